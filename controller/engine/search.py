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
:data:`CHECK_EVERY` nodes; the result is the best move of the last
completed iteration.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.rules import Game, Move
from controller.rules.leap import LeapGame
from controller.rules.moves import REMOVE, SIDE_NAMES

from .evaluate import WIN, evaluate
from .evaluate_leap import evaluate_leap

__all__ = ["SearchResult", "Searcher", "CHECK_EVERY", "INF"]

INF = 10 * WIN
CHECK_EVERY = 256
MAX_PLY = 128
EXACT, LOWER, UPPER = 0, 1, 2
WON = WIN - 1000  # scores beyond this are wins/losses at a distance

Raw = tuple[str, int, int, int, bool]
AnyGame = Game | LeapGame
"""A game of either rules family: the Kharbga family or the leap games."""


@dataclass
class SearchResult:
    """The answer of a search.

    ``move`` is the chosen action (None only when the game is over),
    ``score`` its value for the side to move in hundredths of a piece
    (``WIN - k``: a forced win in ``k`` actions), ``pv`` the principal
    variation in notation, ``depth`` the last completed depth, ``nodes``
    the nodes searched, ``seconds`` the time taken, ``scores`` the score of
    each root move when every root move was scored exactly (weak levels).
    """

    move: Move | None
    score: int
    pv: list[str]
    depth: int
    nodes: int
    seconds: float = 0.0
    scores: dict[str, int] = field(default_factory=dict)


class _Timeout(Exception):
    pass


class _Zobrist:
    """Zobrist keys: a random 64-bit key per (side, square), combined per
    7-bit chunk of each bitboard so a key costs a few table lookups, plus
    keys for the side to move, the chain square, the phase, the exchange in
    progress and the first turns of the moving phase (which decide the
    blocked-first-turn rule).  In the leap games the kings and the enemy
    soldiers of a huff owed are two more bitboards of keys."""

    CHUNK = 7

    def __init__(self, squares: int, seed: int = 0x4B48) -> None:
        rng = random.Random(seed)
        c = self.CHUNK
        self.tables: list[list[list[int]]] = []
        for _side in range(4):  # Attacker, Defender, kings, huff
            per_square = [rng.getrandbits(64) for _ in range(squares)]
            chunks = []
            for base in range(0, squares, c):
                table = []
                for v in range(1 << c):
                    k = 0
                    for i in range(c):
                        if v >> i & 1 and base + i < squares:
                            k ^= per_square[base + i]
                    table.append(k)
                chunks.append(table)
            self.tables.append(chunks)
        self.side = rng.getrandbits(64)
        self.setting = rng.getrandbits(64)
        self.first_turns = rng.getrandbits(64)
        self.chain = [rng.getrandbits(64) for _ in range(squares + 1)]
        self._rng = rng
        self._exchange: dict[object, int] = {}

    def _bits(self, table: list[list[int]], bb: int) -> int:
        mask = (1 << self.CHUNK) - 1
        k = 0
        i = 0
        while bb:
            k ^= table[i][bb & mask]
            bb >>= self.CHUNK
            i += 1
        return k

    def key(self, game: AnyGame) -> int:
        a, d = game.bitboards()
        tables = self.tables
        k = self._bits(tables[0], a) ^ self._bits(tables[1], d)
        if isinstance(game, LeapGame):
            k ^= self._bits(tables[2], game.kings) ^ self._bits(tables[3], game.huff)
        if game.side:
            k ^= self.side
        if game.setting:
            k ^= self.setting
        elif game.turn <= 2:
            k ^= self.first_turns
        k ^= self.chain[game.chain_point + 1]
        ex = game.exchange
        if ex is not None or game.removals:
            state = (ex, game.removals)
            ek = self._exchange.get(state)
            if ek is None:
                ek = self._exchange[state] = self._rng.getrandbits(64)
            k ^= ek
        return k


class Searcher:
    """A search over a private copy of ``game``.

    ``use_tt=False`` searches without the transposition table (for tests);
    ``qdepth`` bounds the quiescence search (captures only).
    """

    def __init__(self, game: AnyGame, *, use_tt: bool = True, qdepth: int = 8) -> None:
        self.game: AnyGame = game.copy()
        g = self.game
        self._eval: Callable[[AnyGame], int]
        self._push: Callable[[Raw], None]
        self._leap = isinstance(g, LeapGame)
        if isinstance(g, LeapGame):
            leap = g
            self._eval = lambda x: evaluate_leap(leap)
            self._push = lambda m: leap.push(m[0], m[1], m[2])
        else:
            kharbga = g
            self._eval = lambda x: evaluate(kharbga)
            self._push = kharbga.push_raw
        self.use_tt = use_tt
        self.qdepth = qdepth
        self.zobrist = _Zobrist(game.geometry.size)
        self.tt: dict[int, tuple[int, int, int, Raw | None]] = {}
        self.killers: list[list[Raw]] = [[] for _ in range(MAX_PLY + 1)]
        self.history: dict[tuple[int, int, int], int] = {}
        self.nodes = 0
        self._deadline = float("inf")
        self._max_nodes = 1 << 62
        self._next_check = CHECK_EVERY
        self._pv: list[list[Raw]] = [[] for _ in range(MAX_PLY + 2)]
        self._horizon = False

    # ------------------------------------------------------------------

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
        for depth in range(1, max_depth + 1):
            began = time.perf_counter()
            self._horizon = False
            try:
                score, move, round_scores, pv = self._root(order, depth, all_scores)
            except _Timeout:
                while g.ply > base:
                    g.pop()
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
            # Only a completed iteration counts: do not start one that cannot
            # finish in time (its cost predicted from the last two).
            growth = min(8.0, max(2.0, took / last_time)) if last_time > 0.002 else 2.0
            last_time = took
            if now + took * growth > self._deadline:
                break
        return SearchResult(
            move=_to_move(best, names),
            score=best_score,
            pv=self._pv_strings(best_pv),
            depth=depth_done,
            nodes=self.nodes,
            seconds=time.perf_counter() - start,
            scores={str(_to_move(m, names)): s for m, s in scores.items()},
        )

    def _root(
        self, order: list[Raw], depth: int, all_scores: bool
    ) -> tuple[int, Raw, dict[Raw, int], list[Raw]]:
        g = self.game
        side = g.side
        alpha, beta = -INF, INF
        best_score = -INF
        best = order[0]
        best_pv: list[Raw] = [best]
        scores: dict[Raw, int] = {}
        self.nodes += 1
        for m in order:
            self._push(m)
            lo = -INF if all_scores else alpha
            if g.side == side:
                v = self._negamax(depth - 1, lo, beta, 1)
            else:
                v = -self._negamax(depth - 1, -beta, -lo, 1)
            g.pop()
            scores[m] = v
            if v > best_score:
                best_score, best = v, m
                best_pv = [m, *self._pv[1]]
                if v > alpha:
                    alpha = v
        if self.use_tt:
            self.tt[self.zobrist.key(g)] = (depth, EXACT, best_score, best)
        return best_score, best, scores, best_pv

    def _check(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        if self.nodes >= self._max_nodes or time.perf_counter() >= self._deadline:
            raise _Timeout

    def _terminal(self, ply: int) -> int:
        out = self.game.outcome
        assert out is not None
        if out.winner is None:
            return 0
        me = SIDE_NAMES[self.game.side]
        return WIN - ply if out.winner == me else -(WIN - ply)

    def _order(self, moves: list[Raw], tt_move: Raw | None, ply: int, side: int) -> list[Raw]:
        killers = self.killers[ply] if ply <= MAX_PLY else []
        hist = self.history

        def key(m: Raw) -> int:
            if m == tt_move:
                return 1 << 40
            caps = m[3]
            if caps:
                return (1 << 30) + caps.bit_count()
            if m in killers:
                return (1 << 29) - killers.index(m)
            return hist.get((side, m[1], m[2]), 0) - (1 << 20 if m[4] else 0)

        return sorted(moves, key=key, reverse=True)

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        g = self.game
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._check()
        self._pv[ply] = []
        if g.outcome is not None:
            return self._terminal(ply)
        if depth <= 0 or ply >= MAX_PLY:
            self._horizon = True
            return self._quiesce(alpha, beta, ply, self.qdepth)
        tt_move: Raw | None = None
        key = 0
        if self.use_tt:
            key = self.zobrist.key(g)
            entry = self.tt.get(key)
            if entry is not None:
                edepth, eflag, escore, tt_move = entry
                if edepth == depth:
                    s = escore - ply if escore > WON else escore + ply if escore < -WON else escore
                    if (
                        eflag == EXACT
                        or (eflag == LOWER and s >= beta)
                        or (eflag == UPPER and s <= alpha)
                    ):
                        self._horizon = True  # conservatively: the entry may hide a horizon
                        if eflag == EXACT and tt_move is not None:
                            self._pv[ply] = [tt_move]
                        return s
        side = g.side
        moves = self._order(g.raw_moves(), tt_move, ply, side)
        alpha0 = alpha
        best = -INF
        best_move: Raw | None = None
        pv = self._pv
        for m in moves:
            _, frm, to, caps, _ = m
            self._push(m)
            if g.side == side:
                v = self._negamax(depth - 1, alpha, beta, ply + 1)
            else:
                v = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            g.pop()
            if v > best:
                best, best_move = v, m
                if v > alpha:
                    alpha = v
                    pv[ply] = [m, *pv[ply + 1]]
                    if v >= beta:
                        if not caps:
                            k = self.killers[ply]
                            if m not in k:
                                k.insert(0, m)
                                del k[2:]
                            hk = (side, frm, to)
                            self.history[hk] = self.history.get(hk, 0) + depth * depth
                        break
        if self.use_tt:
            flag_ = LOWER if best >= beta else EXACT if best > alpha0 else UPPER
            s = best + ply if best > WON else best - ply if best < -WON else best
            self.tt[key] = (depth, flag_, s, best_move)
            if len(self.tt) > 2_000_000:
                self.tt.clear()
        return best

    def _quiesce(self, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        """Captures only, on the static score.  In the leap games, where
        every action is a capture or a huff removal (a compulsory capture,
        a mandatory chain, a huff owed), there is no standing pat: they are
        all searched."""
        g = self.game
        if g.outcome is not None:
            return self._terminal(ply)
        stand = self._eval(g)
        if qdepth <= 0 or ply >= MAX_PLY:
            return stand
        forced = False
        if self._leap:
            moves = g.raw_moves()
            noisy = [m for m in moves if m[3] or m[0] == REMOVE]
            forced = len(noisy) == len(moves)
        if not forced:
            if stand >= beta:
                return stand
            if stand > alpha:
                alpha = stand
            if not self._leap:
                noisy = [m for m in g.raw_moves() if m[3]]
        if not noisy:
            return stand
        best = -INF if forced else stand
        side = g.side
        noisy.sort(key=lambda m: m[3].bit_count(), reverse=True)
        for m in noisy:
            self.nodes += 1
            if self.nodes >= self._next_check:
                self._check()
            self._push(m)
            if g.side == side:
                v = self._quiesce(alpha, beta, ply + 1, qdepth - 1)
            else:
                v = -self._quiesce(-beta, -alpha, ply + 1, qdepth - 1)
            g.pop()
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        return best

    def _pv_strings(self, pv: list[Raw]) -> list[str]:
        """The principal variation in notation, replayed to check it."""
        g = self.game.copy()
        out = []
        for m in pv:
            if g.outcome is not None or m not in g.raw_moves():
                break
            out.append(str(_to_move(m, g.geometry.point_names)))
            g.push(m[0], m[1], m[2], m[4])
        return out


def _to_move(m: Raw, names: tuple[str, ...]) -> Move:
    kind, frm, to, caps, flag = m
    return Move(kind, to, frm, bool(caps), flag, names)
