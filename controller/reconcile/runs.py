"""Every run of legal actions within one turn: what the reconciler's
search (:mod:`.explain`) ranks against a reading.

A run is the actions a side may make in one turn from a position: a
step, a placement pair, a capture chain step by step, the removals owed,
a huff and the move after it, after an implied pass too.  Each run is a
:class:`Candidate` carrying what occupancy can show of it (the squares
it empties and fills, the exchange, the points that prove it).  The runs
of a position are generated once and cached, bounded by the settings: a
pathological position cannot exhaust memory.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from controller.rules import AnyGame, Game
from controller.rules.moves import PASS, REMOVE, STEP, Move

from .settings import Settings
from .turn import Candidate

__all__ = ["Runs"]


@dataclass(frozen=True, slots=True)
class _Path:
    """A run of actions being extended by the search."""

    actions: tuple[Move, ...]
    gone_a: int = 0
    gone_d: int = 0
    exchanged: int = 0
    proof: int = 0
    entered: int = 0
    retaken: int = 0


class Runs:
    """The runs of each position met, generated once and cached."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[object, list[Candidate]] = {}

    def of(self, game: AnyGame, flags: Sequence[bool]) -> list[Candidate]:
        """Every run of actions within one turn from this position (after
        an implied pass too), generated once per position and flags."""
        key = (game.state(), flags[0], flags[1])
        cands = self._cache.get(key)
        if cands is None:
            # Bounded: a pathological position cannot exhaust memory.
            found = self._generate(game, (flags[0], flags[1]))
            cands = list(itertools.islice(found, self.settings.max_candidates))
            if len(self._cache) > self.settings.cached_positions:
                self._cache.clear()
            self._cache[key] = cands
        return cands

    def _generate(self, g: AnyGame, flags: tuple[bool, bool]) -> Iterator[Candidate]:
        side = g.side
        a, d = g.bitboards()
        if any(kind == PASS for kind, *_ in g.raw_moves()):
            g.push(PASS, -1, -1, False)
            try:
                if g.outcome is None:
                    yield from self._sequences(g, flags, g.side, _Path((g.history[-1][1],)), a | d)
            finally:
                g.pop()
        yield from self._sequences(g, flags, side, _Path(()), a | d)

    def _sequences(
        self, g: AnyGame, flags: tuple[bool, bool], side: int, path: _Path, root: int
    ) -> Iterator[Candidate]:
        """``path`` extended by each action of ``side``, and on within the
        turn; ``root`` is the board the search started from."""
        flag = flags[side]
        raw = list(g.raw_moves())
        flagged = {(f, t) for kind, f, t, _, fl in raw if fl}
        b = g.bitboards()
        gone_before = path.gone_a | path.gone_d
        start = next((m.frm for m in path.actions if m.kind == STEP), -1)  # the run's first
        for kind, frm, to, _, fl in raw:
            if kind == PASS:
                continue
            if kind == STEP and fl != (flag and (frm, to) in flagged):
                continue
            mover = g.side
            g.push(kind, frm, to, fl)
            try:
                move = g.history[-1][1]
                actions = path.actions + (move,)
                a, d = g.bitboards()
                moved = [b[0], b[1]]
                if kind == STEP:
                    moved[mover] ^= (1 << frm) | (1 << to)
                elif kind == REMOVE:  # one's own soldier, or a huffed enemy
                    moved[0 if b[0] >> to & 1 else 1] &= ~(1 << to)
                ga, gd = moved[0] & ~a, moved[1] & ~d
                exch = 0 if move.capture else ga | gd
                gone_a, gone_d = path.gone_a | ga, path.gone_d | gd
                exchanged = path.exchanged | exch
                # A soldier taken off by the exchange it completes must be
                # seen on its destination first: lifting it proves nothing.
                proof = path.proof | (1 << to if exch else 0)
                entered = path.entered | (1 << to if kind == STEP else 0)
                retaken = path.retaken | (1 << to if kind == STEP and (
                    gone_before >> to & 1 or to == start) else 0)
                # Steps that leave no piece on a square empty before them are
                # unproven: the reading only shows pieces gone (unless the
                # soldier ends on a point its run emptied, that point
                # filled again: _is_weak).
                unseen = kind == STEP and not ((a | d | proof) & ~root) \
                    and not retaken >> to & 1
                yield Candidate(
                    actions, a, d, gone_a, gone_d, exchanged, proof, entered, unseen, retaken
                )
                # Go on only within the turn: a chain, the removals owed, or
                # the move after a huff, which is the same turn (not into a
                # new turn when the opponent is blocked).
                within_turn = g.chain_point >= 0 or (kind == REMOVE and (
                    bool(g.removals) or not isinstance(g, Game)))
                if (
                    within_turn
                    and g.outcome is None
                    and g.side == side
                    and g.phase == "moving"
                    and len(actions) < self.settings.max_actions
                ):
                    nxt = _Path(actions, gone_a, gone_d, exchanged, proof, entered, retaken)
                    yield from self._sequences(g, flags, side, nxt, root)
            finally:
                g.pop()
