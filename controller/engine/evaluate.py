"""Static evaluation of a position, per variant family.

Scores are in hundredths of a piece, from the point of view of the side to
move.  Every term is a handful of bitboard operations on the two
bitboards of :class:`~controller.rules.Game` (no move generation):

- material: 100 a piece;
- mobility: the number of steps each side has; where a blocked side
  loses (``sabouiyya``; ``khamousiyya`` plays tuned weights) only the safe
  steps count, those onto a square where no enemy step could then take
  the piece;
- stable pieces: pieces that can never be captured, because along each
  axis they stand on the edge or next to a stable friend (corners first,
  then outwards; the centre too where it is a refuge);
- threats: pieces that an enemy step could capture next (an enemy beside
  it and an empty square on the other side that an enemy can step into);
- the malha in the setting phase: pieces next to the centre that the first
  move into the centre would capture, and the blocked first move: an
  Attacker piece next to the centre whose other neighbours are all
  Attackers blocks the Defender when it steps in (:func:`first_move_blocks`),
  which wins for the Attacker in ``khamousiyya``/``sabouiyya`` and for the
  Defender in ``kharbga`` when every first move does it.

The weights of these terms are data: ``data/weights.json`` holds one set
a variant, tuned by ``scripts/engine_tune.py`` (Texel's method on positions
from engine games); :data:`DEFAULT_WEIGHTS` are the hand-set ones.

Terminal positions are not scored here: the search scores them as
+-:data:`WIN` (minus the distance).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from functools import cache
from importlib import resources

from controller.rules import Game, Variant
from controller.rules.leap import LeapGame

from .evaluate_leap import evaluate_leap

__all__ = [
    "WIN",
    "Masks",
    "Weights",
    "DEFAULT_WEIGHTS",
    "masks",
    "weights",
    "read_weights",
    "evaluate",
    "vulnerable",
    "stable",
]

WIN = 1_000_000
"""Score of a won position (a win in ``k`` actions scores ``WIN - k``)."""


@dataclass(frozen=True)
class Weights:
    """The weights of the evaluation's terms, in hundredths of a piece (a
    piece is 100).  ``mobility`` is per step available; ``stable`` per piece
    that can never be captured; ``hanging_theirs``/``hanging_own`` per
    opponent's/own piece one enemy step would capture; the ``setting_``
    terms score the setting phase: pieces of each side that the first move
    into the malha would capture, and stable pieces; ``safe_steps`` is per
    step onto a square where no enemy step could then take the piece (a
    second count beside ``mobility``: where a blocked side loses, the side
    left with only risky steps must give a piece or be blocked)."""

    mobility: int = 1
    stable: int = 15
    hanging_theirs: int = 10
    hanging_own: int = 20
    setting_exposed_defender: int = 30
    setting_exposed_attacker: int = 15
    setting_stable: int = 8
    safe_steps: int = 0


DEFAULT_WEIGHTS = Weights()
"""The hand-set weights (where a blocked side loses: :data:`BLOCKED_LOSES`)."""
BLOCKED_LOSES = replace(DEFAULT_WEIGHTS, mobility=0, safe_steps=4)
"""The hand-set weights where a blocked side loses: the steps counted are
the safe ones (docs/engine.md, "Safe steps")."""
WEIGHTS_FILE = "weights.json"


def read_weights(text: str) -> dict[str, Weights]:
    """Weights a variant from the JSON text of ``data/weights.json``: an
    object ``{"variants": {name: {term: int, ...}}}``; a term left out keeps
    its default.  ``ValueError`` names an unknown term or a bad value."""
    names = {f.name for f in fields(Weights)}
    out: dict[str, Weights] = {}
    try:
        data = json.loads(text)
    except ValueError as exc:  # cut short, or not JSON at all
        raise ValueError(f"{WEIGHTS_FILE}: not JSON ({exc})") from None
    variants = data.get("variants", {}) if isinstance(data, dict) else None
    if not isinstance(variants, dict) or not all(isinstance(t, dict) for t in variants.values()):
        raise ValueError(f'{WEIGHTS_FILE}: an object {{"variants": {{name: {{term: int}}}}}} '
                         "expected")
    for variant, terms in variants.items():
        for k, v in terms.items():
            if k not in names or not isinstance(v, int):
                raise ValueError(f"{WEIGHTS_FILE}: {variant}.{k}: an integer weight of "
                                 f"{sorted(names)} expected")
        out[variant] = replace(DEFAULT_WEIGHTS, **terms)
    return out


@cache
def _tuned() -> dict[str, Weights]:
    try:
        text = resources.files(__package__).joinpath("data", WEIGHTS_FILE).read_text("utf-8")
    except OSError:
        return {}
    return read_weights(text)


def weights(variant: Variant) -> Weights:
    """The weights used for ``variant``: tuned ones from the data file, else
    the defaults."""
    tuned = _tuned().get(variant.name)
    if tuned is not None:
        return tuned
    if variant.blocked == "lose":
        return BLOCKED_LOSES
    return DEFAULT_WEIGHTS


@dataclass(frozen=True)
class Masks:
    """Bitboard masks of a variant's square board."""

    n: int
    full: int
    not_east: int
    not_west: int
    edge_cols: int
    edge_rows: int
    centre: int
    refuge: bool
    lose_when_blocked: bool
    defender_wins_blocked_first: bool
    # per centre neighbour N: (N, N's other neighbours, the captures of the
    # step N -> centre as (M, the square beyond M, M's two side squares))
    malha: tuple[tuple[int, int, tuple[tuple[int, int, int], ...]], ...]


@cache
def masks(variant: Variant) -> Masks:
    n = variant.size
    full = (1 << (n * n)) - 1
    not_east = not_west = edge_cols = edge_rows = 0
    for p in range(n * n):
        f, r = p % n, p // n
        if f != n - 1:
            not_east |= 1 << p
        if f != 0:
            not_west |= 1 << p
        if f in (0, n - 1):
            edge_cols |= 1 << p
        if r in (0, n - 1):
            edge_rows |= 1 << p
    def bit(f: int, r: int) -> int:
        return 1 << (r * n + f) if 0 <= f < n and 0 <= r < n else 0

    c = n * n // 2
    cf, cr = c % n, c // n
    dirs = ((1, 0), (-1, 0), (0, 1), (0, -1))
    malha = []
    for df, dr in dirs:
        nf, nr = cf + df, cr + dr
        others = 0
        for ef, er in dirs:
            if (nf + ef, nr + er) != (cf, cr):
                others |= bit(nf + ef, nr + er)
        caps = []
        for ef, er in dirs:
            if (ef, er) == (df, dr):
                continue  # the direction the piece came from is empty now
            mf, mr = cf + ef, cr + er
            beyond = bit(cf + 2 * ef, cr + 2 * er)
            sides = bit(mf + er, mr + ef) | bit(mf - er, mr - ef)
            caps.append((bit(mf, mr), beyond, sides))
        malha.append((bit(nf, nr), others, tuple(caps)))
    return Masks(
        n=n,
        full=full,
        not_east=not_east,
        not_west=not_west,
        edge_cols=edge_cols,
        edge_rows=edge_rows,
        centre=1 << (n * n // 2),
        refuge=variant.refuge,
        lose_when_blocked=variant.blocked == "lose",
        defender_wins_blocked_first=variant.blocked_first_turn_defender_wins,
        malha=tuple(malha),
    )


def mobility(m: Masks, own: int, empty: int) -> int:
    """Number of steps of the pieces ``own`` onto ``empty`` squares."""
    n = m.n
    return (
        ((own << n) & empty).bit_count()
        + ((own >> n) & empty).bit_count()
        + (((own & m.not_east) << 1) & empty).bit_count()
        + (((own & m.not_west) >> 1) & empty).bit_count()
    )


def vulnerable(m: Masks, own: int, enemy: int, empty: int) -> int:
    """Pieces of ``own`` that one enemy step onto ``empty`` would capture."""
    n, full, ne, nw = m.n, m.full, m.not_east, m.not_west
    # Empty squares an enemy piece can step into.
    reach = empty & (
        ((enemy << n) & full) | (enemy >> n) | ((enemy & ne) << 1) | ((enemy & nw) >> 1)
    )
    # Piece p with an enemy on one side and a reachable square on the other.
    north_e = enemy >> n  # p has an enemy to the north
    south_e = (enemy << n) & full
    east_e = (enemy & nw) >> 1
    west_e = (enemy & ne) << 1
    north_r = reach >> n
    south_r = (reach << n) & full
    east_r = (reach & nw) >> 1
    west_r = (reach & ne) << 1
    v = own & ((north_e & south_r) | (south_e & north_r) | (east_e & west_r) | (west_e & east_r))
    if m.refuge:
        v &= ~m.centre
    return v


def stable(m: Masks, own: int) -> int:
    """Pieces of ``own`` that can never be captured while their friends
    stay: along each axis on the edge or beside a stable friend."""
    n, full, ne, nw = m.n, m.full, m.not_east, m.not_west
    seeds_ew = m.edge_cols
    seeds_ns = m.edge_rows
    if m.refuge:
        seeds_ew |= m.centre
        seeds_ns |= m.centre
    s = 0
    while True:
        ew = own & (seeds_ew | ((s & ne) << 1) | ((s & nw) >> 1))
        ns = own & (seeds_ns | ((s << n) & full) | (s >> n))
        new = ew & ns
        if m.refuge:
            new |= own & m.centre
        if new == s:
            return s
        s = new


SEALED, COVERED = -1, -2


def first_move_blocks(m: Masks, a: int, d: int) -> list[int]:
    """For each centre neighbour held by the Attacker, or empty (the
    Attacker may still take it), what its step into the centre does to the
    Defender once the board is full: ``SEALED`` (the Defender is blocked
    whatever is placed later), ``COVERED`` (a Defender piece already gives
    it a step), or the number of placements the Attacker still needs to
    seal it (0 < k)."""
    out = []
    empty_all = m.full & ~(a | d) & ~m.centre
    for nb, others, caps in m.malha:
        if nb & d:
            continue
        if others & d:
            out.append(COVERED)
            continue
        need = (others & empty_all).bit_count() + (1 if nb & empty_all else 0)
        covered = False
        for mb, beyond, sides in caps:
            # M is captured if it is a Defender's and the square beyond is the
            # Attacker's (the Attacker never has to complete that itself); the
            # Defender then steps into M from one of M's side squares.
            if not beyond & a or mb & a:
                continue
            if mb & d:
                if sides & d:
                    covered = True
                    break
                need += (sides & empty_all).bit_count()
            elif sides & ~a:
                need += 1  # the Defender could still set this up: fill M
        if covered:
            out.append(COVERED)
        else:
            out.append(SEALED if need == 0 else need)
    return out


def _block_score(m: Masks, a: int, d: int, side: int) -> int:
    """The blocked first move, from the Attacker's view."""
    blocks = first_move_blocks(m, a, d)
    if m.lose_when_blocked:
        if SEALED in blocks:
            return 5000
        left = 2 - (a if side == 0 else d).bit_count() % 2  # placements left this turn
        needs = [k for k in blocks if k > 0]
        if side == 0 and any(k <= left for k in needs):
            return 4000  # sealed before the Defender places again
        threats = sum(1 for k in needs if k <= 2)
        if side == 1 and threats > left:
            return 3500  # more threats than the Defender can answer
        return 40 * threats + 15 * sum(1 for k in needs if k == 3)
    if m.defender_wins_blocked_first and blocks and all(k == SEALED for k in blocks):
        return -5000  # every first move blocks the Defender, which then wins
    return 0


def evaluate(game: Game | LeapGame, w: Weights | None = None) -> int:
    """The static score of ``game`` for its side to move (either family),
    with the weights ``w`` (default: the variant's, :func:`weights`)."""
    if isinstance(game, LeapGame):
        return evaluate_leap(game)
    variant = game.variant
    m = masks(variant)
    if w is None:
        w = weights(variant)
    bb = game.bitboards()
    side = game.side
    if game.setting:
        return _setting_score(m, bb[0], bb[1], side, w)
    own, opp = bb[side], bb[1 - side]
    empty = m.full & ~(own | opp)
    score = 100 * (own.bit_count() - opp.bit_count())
    score += w.mobility * (mobility(m, own, empty) - mobility(m, opp, empty))
    if w.safe_steps:
        risky_own = vulnerable(m, empty, opp, empty)  # a piece stepping here could be taken
        risky_opp = vulnerable(m, empty, own, empty)
        score += w.safe_steps * (mobility(m, own, empty & ~risky_own)
                                 - mobility(m, opp, empty & ~risky_opp))
    score += w.stable * (stable(m, own).bit_count() - stable(m, opp).bit_count())
    # The side to move can take one of the opponent's hanging pieces now;
    # its own hanging pieces are the opponent's next chance.
    score += w.hanging_theirs * vulnerable(m, opp, own, empty).bit_count()
    score -= w.hanging_own * vulnerable(m, own, opp, empty).bit_count()
    return score


def _setting_score(m: Masks, a: int, d: int, side: int, w: Weights) -> int:
    """Setting phase, from the Attacker's view then turned to ``side``:
    pieces exposed to the first move into the malha (the Defender's cost
    more: the Attacker strikes first), and stable pieces."""
    centre = m.centre
    score = w.setting_exposed_defender * vulnerable(m, d, a, centre).bit_count()
    score -= w.setting_exposed_attacker * vulnerable(m, a, d, centre).bit_count()
    score += w.setting_stable * (stable(m, a).bit_count() - stable(m, d).bit_count())
    score += _block_score(m, a, d, side)
    return score if side == 0 else -score
