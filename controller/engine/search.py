"""Anytime alpha-beta search on the rules engine.

Iterative deepening negamax with a transposition table, move ordering
(the table's move, captures by size, killers, history) and a quiescence
search over captures and capture chains.  One *ply* is one action of the
rules engine: a placement, a step, a chain continuation or a ``pass``.

The side to move does not always change after an action (the second
placement of a setting turn, a chain continuation, a side that moves again
because the other is blocked), so a child's score is negated only when the
side to move changed; otherwise the same window is passed down unchanged.

Time control: an iteration is not started when the last two predict it
cannot finish before the deadline.  The deadline (and an optional node limit) is checked every
:data:`.negamax.CHECK_EVERY` nodes; the result is the best move of the last
completed iteration.

This module is the root: iterative deepening, the aspiration windows and
the root's moves (:class:`Searcher`, mirrored by ``_csearch_root.c``);
the search below the root, with the table and the static score, is
:mod:`.negamax`'s (mirrored by ``_csearch_search.c``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from controller.rules import Move

from .evaluate import WIN
from .negamax import CHECK_EVERY, EXACT, INF, LOWER, UPPER, WON, Negamax, OutOfTime, Raw

__all__ = ["SearchResult", "Searcher", "to_move"]

ASPIRATION = (40, 200)
"""Half-widths of the root windows tried around the last score before an
open window (hundredths of a piece)."""
START_SHARE = 0.5
"""The selective search starts another iteration when this share of its
predicted cost fits in the time left."""


@dataclass
class SearchResult:
    """The answer of a search.

    ``move`` is the chosen action (None only when the game is over),
    ``score`` its value for the side to move in hundredths of a piece
    (``WIN - k``: a forced win in ``k`` actions), ``pv`` the principal
    variation in notation, ``depth`` the last completed depth, ``nodes``
    the nodes searched (by every thread), ``seconds`` the time taken,
    ``scores`` the score of each root move when every root move was scored
    exactly (weak levels), ``threads`` the threads that searched.
    """

    move: Move | None
    score: int
    pv: list[str]
    depth: int
    nodes: int
    seconds: float = 0.0
    scores: dict[str, int] = field(default_factory=dict)
    threads: int = 1


class Searcher(Negamax):
    """A search over a private copy of ``game``.

    ``use_tt=False`` searches without the transposition table (for tests);
    ``qdepth`` bounds the quiescence search (captures only);
    ``selective=False`` turns off the principal-variation search, the
    aspiration windows, the late-move reductions, the pruning and the
    extensions (a plain alpha-beta: with it a fixed-depth score does not
    depend on the move order); ``noise`` adds a pseudo-random amount of up
    to that many hundredths, fixed per position and ``noise_seed``, to
    every static score (the weaker levels).
    """

    def search(
        self,
        seconds: float | None = None,
        max_depth: int = 64,
        max_nodes: int | None = None,
        all_scores: bool = False,
    ) -> SearchResult:
        """Iterative deepening until ``seconds``, ``max_depth`` or
        ``max_nodes``; ``all_scores`` scores every root move exactly."""
        g = self.game
        start = time.perf_counter()
        self._deadline = start + seconds if seconds is not None else float("inf")
        self._max_nodes = max_nodes if max_nodes is not None else 1 << 62
        self.nodes = 0
        self._next_check = CHECK_EVERY
        names = g.geometry.point_names
        root_moves = list(g.raw_moves())
        if not root_moves:
            return SearchResult(None, 0, [], 0, 0)
        best: Raw = root_moves[0]
        best_score = self._eval(g)
        best_pv: list[Raw] = [best]
        scores: dict[Raw, int] = {}
        depth_done = 0
        base = g.ply
        order = self._order(root_moves, None, 0, g.side)
        last_time = 0.0
        deadline = self._deadline
        for depth in range(1, max_depth + 1):
            # The first iteration always finishes (each root move and its
            # quiescence): however short the time, no move is played unsearched.
            self._deadline = float("inf") if depth == 1 else deadline
            began = time.perf_counter()
            self._horizon = False
            self._root_depth = depth
            self._partial = None
            try:
                score, move, round_scores, pv = self._aspirate(order, depth, all_scores,
                                                               best_score, depth_done)
            except OutOfTime:
                while g.ply > base:
                    g.pop()
                if self._partial is not None:  # root moves this iteration scored exactly
                    best_score, best, best_pv = self._partial
                break
            best, best_score, depth_done = move, score, depth
            best_pv = pv
            scores = round_scores
            order = [move] + [m for m in order if m != move]
            if all_scores:
                order.sort(key=lambda m: -round_scores.get(m, -INF))
            if abs(score) >= WON and depth >= WIN - abs(score):
                break  # a forced result, seen by the main search
            if not self._horizon:
                break  # the whole game tree was seen
            now = time.perf_counter()
            took = now - began
            # Do not start an iteration that cannot finish in time (its cost
            # predicted from the last two); the selective search starts one
            # when its first half fits: an unfinished iteration still gives
            # the best of the root moves it scored exactly.
            growth = min(8.0, max(2.0, took / last_time)) if last_time > 0.002 else 2.0
            last_time = took
            share = START_SHARE if self.selective and not all_scores else 1.0
            if now + took * growth * share > self._deadline:
                break
        return SearchResult(
            move=to_move(best, names),
            score=best_score,
            pv=self._pv_strings(best_pv),
            depth=depth_done,
            nodes=self.nodes,
            seconds=time.perf_counter() - start,
            scores={str(to_move(m, names)): s for m, s in scores.items()},
        )

    def _aspirate(
        self, order: list[Raw], depth: int, all_scores: bool, guess: int, done: int
    ) -> tuple[int, Raw, dict[Raw, int], list[Raw]]:
        """The root search in a window around the last iteration's score,
        widened (then opened) when the score falls outside it."""
        if all_scores or not self.selective or done < 3 or abs(guess) >= WON:
            return self._root(order, depth, all_scores, -INF, INF)
        for width in ASPIRATION:
            alpha, beta = guess - width, guess + width
            result = self._root(order, depth, False, alpha, beta)
            if alpha < result[0] < beta:
                return result
            order = [result[1]] + [m for m in order if m != result[1]]
        return self._root(order, depth, False, -INF, INF)

    def _root(
        self, order: list[Raw], depth: int, all_scores: bool, alpha: int, beta: int
    ) -> tuple[int, Raw, dict[Raw, int], list[Raw]]:
        g = self.game
        side = g.side
        best_score = -INF
        best = order[0]
        best_pv: list[Raw] = [best]
        scores: dict[Raw, int] = {}
        self.nodes += 1
        pvs = self.selective and not all_scores
        alpha0 = alpha
        for i, m in enumerate(order):
            self._push(m)
            lo = -INF if all_scores else alpha
            if pvs and i > 0:
                v = self._child(depth - 1, lo, lo + 1, 1, side)
                if lo < v < beta:
                    v = self._child(depth - 1, lo, beta, 1, side)
            else:
                v = self._child(depth - 1, lo, beta, 1, side)
            g.pop()
            scores[m] = v
            if v > best_score:
                best_score, best = v, m
                best_pv = [m, *self._pv[1]]
                if pvs and alpha0 < v < beta:
                    self._partial = (v, m, best_pv)
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        if self.use_tt and -INF < best_score:
            # Outside an aspiration window the score is only a bound.
            flag_ = LOWER if best_score >= beta else UPPER if best_score <= alpha0 else EXACT
            self.tt[self.zobrist.key(g)] = (depth, flag_, best_score, best)
        return best_score, best, scores, best_pv

    def _pv_strings(self, pv: list[Raw]) -> list[str]:
        """The principal variation in notation, replayed to check it."""
        g = self.game.copy()
        out = []
        for m in pv:
            if g.outcome is not None or m not in g.raw_moves():
                break
            out.append(str(to_move(m, g.geometry.point_names)))
            g.push(m[0], m[1], m[2], m[4])
        return out


def to_move(m: Raw, names: tuple[str, ...]) -> Move:
    """A raw move (the Python or the C search's) as the API's ``Move``."""
    kind, frm, to, caps, flag = m
    return Move(kind, to, frm, bool(caps), flag, names)
