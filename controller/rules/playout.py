"""Fast uniformly random playouts on bitboards.

A random playout picks every action uniformly among the legal ones, as
:meth:`Game.legal_moves` lists them, from the empty board (or a given game)
to the end.  The search engine's Monte Carlo parts and the benchmark use it.

The kernel here handles the variants whose whole state is the two
bitboards, the side to move, the chain and the turn count: those whose
blocked side loses (``khamousiyya``, ``sabouiyya``).  Every other variant
is played through :class:`Game` itself (:func:`random_game`), slower but
exact.  Tests replay kernel games through :class:`Game` move by move.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from .game import Game
from .moves import ATTACKER, DEFENDER
from .variants import Variant, find_variant

__all__ = ["Playout", "random_playout", "random_game", "kernel_supports"]


@dataclass(frozen=True)
class Playout:
    """The end of a random game: ``winner`` (0 Attacker, 1 Defender, None
    for a draw), ``actions`` (every action, placements and passes
    included) and, when asked for, the actions in notation."""

    winner: int | None
    actions: int
    moves: tuple[str, ...] = ()


def kernel_supports(variant: Variant) -> bool:
    """Does the fast kernel play this variant exactly?"""
    g = variant.geometry
    return (
        variant.blocked == "lose"
        and not variant.exchange
        and not variant.compulsory_capture
        and not variant.refuge
        and variant.setting_rule in ("first-piece-adjacent", "free")
        and not variant.no_progress_turns
        and not variant.repetition
        and g.offsets is not None
        and g.offsets == (variant.size, 1, -variant.size, -1)
    )


@cache
def _tables(variant: Variant) -> tuple[tuple[tuple[tuple[int, int], ...], ...],
                                       tuple[tuple[tuple[int, tuple[tuple[int, int], ...]], ...],
                                             ...]]:
    g = variant.geometry
    caps = g.capture_pairs
    nei = tuple(
        tuple((1 << t, caps[t]) for _, t in g.step_targets[p]) for p in range(g.size)
    )
    return caps, nei


def _nth_bit(bb: int, k: int) -> int:
    for _ in range(k):
        bb &= bb - 1
    return bb & -bb


def random_playout(
    variant: str | Variant, rng: random.Random | None = None, record: bool = False
) -> Playout:
    """Play one uniformly random game from the empty board."""
    v = find_variant(variant)
    if not kernel_supports(v):
        return random_game(v, rng, record)
    rng = rng or random.Random()
    rand = rng.random
    g = v.geometry
    n = v.size
    full = g.full
    centre = 1 << g.centre
    near = g.centre_adjacent
    caps_t, nei_t = _tables(v)
    names = g.point_names
    moves: list[str] = []
    per_side = v.pieces_per_side
    first_adjacent = v.setting_rule == "first-piece-adjacent"
    optional_chain = v.chain == "optional"
    limit = v.turn_limit - per_side if v.turn_limit else 1 << 62

    # Setting phase: two placements a turn, Attacker first.
    bbs = [0, 0]
    actions = 0
    for i in range(2 * per_side):
        side = (i // 2) % 2
        empty = full & ~(bbs[0] | bbs[1]) & ~centre
        allowed = empty
        if first_adjacent and not bbs[side] and empty & near:
            allowed = empty & near
        bit = _nth_bit(allowed, int(rand() * allowed.bit_count()))
        bbs[side] |= bit
        actions += 1
        if record:
            moves.append("@" + names[bit.bit_length() - 1])

    # Moving phase.  ``own`` moves; ``opp`` waits.
    own, opp = bbs[ATTACKER], bbs[DEFENDER]
    side = ATTACKER
    not_east = 0
    not_west = 0
    for p in range(g.size):
        if p % n != n - 1:
            not_east |= 1 << p
        if p % n != 0:
            not_west |= 1 << p
    turn = 1
    winner: int | None = None
    while True:
        empty = full ^ (own | opp)
        up = (own << n) & empty
        right = ((own & not_east) << 1) & empty
        down = (own >> n) & empty
        left = ((own & not_west) >> 1) & empty
        cu = up.bit_count()
        cr = right.bit_count()
        cd = down.bit_count()
        total = cu + cr + cd + left.bit_count()
        if not total:
            winner = 1 - side
            break
        if turn > limit:
            winner = None
            break
        r = int(rand() * total)
        if r < cu:
            to = _nth_bit(up, r)
            frm = to >> n
        elif r < cu + cr:
            to = _nth_bit(right, r - cu)
            frm = to >> 1
        elif r < cu + cr + cd:
            to = _nth_bit(down, r - cu - cr)
            frm = to << n
        else:
            to = _nth_bit(left, r - cu - cr - cd)
            frm = to << 1
        own ^= frm | to
        actions += 1
        sq = to.bit_length() - 1
        caps = 0
        for nb, beyond in caps_t[sq]:
            if opp & nb and own & beyond:
                caps |= nb
        if record:
            sep = "x" if caps else "-"
            moves.append(f"{names[frm.bit_length() - 1]}{sep}{names[sq]}")
        # A capture chain: the same piece, capturing steps only.
        while caps:
            opp ^= caps
            if not opp:
                break
            occupied = own | opp
            options = []
            for tbit, pairs in nei_t[sq]:
                if occupied & tbit:
                    continue
                own2 = own ^ to ^ tbit
                c = 0
                for nb, beyond in pairs:
                    if opp & nb and own2 & beyond:
                        c |= nb
                if c:
                    options.append((tbit, c))
            if not options:
                break
            k = len(options) + optional_chain
            r = int(rand() * k)
            actions += 1
            if r == len(options):
                if record:
                    moves.append("pass")
                break
            tbit, caps = options[r]
            own ^= to | tbit
            if record:
                moves.append(f"{names[sq]}x{names[tbit.bit_length() - 1]}")
            to = tbit
            sq = to.bit_length() - 1
        own, opp = opp, own
        side = 1 - side
        turn += 1
    return Playout(winner, actions, tuple(moves))


def random_game(
    variant: str | Variant, rng: random.Random | None = None, record: bool = False
) -> Playout:
    """A uniformly random game played through :class:`Game` (any variant)."""
    rng = rng or random.Random()
    game = Game.new(variant)
    rand = rng.random
    moves: list[str] = []
    actions = 0
    while game.outcome is None:
        legal = game._raw_moves()
        kind, frm, to, _, flag = legal[int(rand() * len(legal))]
        game._apply(kind, frm, to, flag)
        actions += 1
        if record:
            moves.append(str(game.last_move))
    outcome = game.outcome
    winner = None if outcome.winner is None else ("attacker", "defender").index(outcome.winner)
    return Playout(winner, actions, tuple(moves))
