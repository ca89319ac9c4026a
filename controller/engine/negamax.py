"""The search below the root: negamax over the rules engine's actions.

:class:`Negamax` holds the state of one search (a private copy of the
game, the static score, the transposition table with its Zobrist keys,
the killers and the history, the node count and the deadline) and
searches every node below the root: negamax with principal-variation
windows, the table's entries, move ordering (the table's move, captures
by size, killers, history), reverse futility pruning, late-move
reductions, capture-threat extensions, and a quiescence search over
captures and capture chains.  :class:`.search.Searcher` adds the root,
the aspiration windows and iterative deepening, as
``_csearch_root.c`` does over ``_csearch_search.c`` in the C search.

A child's score is negated only when the side to move changed (see
:mod:`.search`).  The deadline (and an optional node limit) is checked
every :data:`CHECK_EVERY` nodes; past it, :class:`OutOfTime` unwinds the
search to the root.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable

from controller.rules import Game
from controller.rules.leap import LeapGame
from controller.rules.moves import REMOVE, SIDE_NAMES

from .evaluate import WIN, Masks, evaluate, masks, vulnerable, weights
from .evaluate_leap import evaluate_leap

__all__ = ["AnyGame", "CHECK_EVERY", "EXACT", "INF", "LOWER", "MAX_PLY", "UPPER", "WON",
           "Negamax", "OutOfTime", "Raw"]

INF = 10 * WIN
CHECK_EVERY = 256
MAX_PLY = 128
EXACT, LOWER, UPPER = 0, 1, 2
WON = WIN - 1000  # scores beyond this are wins/losses at a distance
LMR_AFTER = 3
"""Quiet moves after this many are searched one action shallower first
(two after three times as many, from depth 5)."""
PRUNE_DEPTH, PRUNE_MARGIN, PRUNE_MIN_MOVES = 2, 120, 6
"""Reverse futility pruning: at most this depth, this margin a ply, and only
with at least this many actions for the side to move (flagged steps count)."""
EXTEND = True
EVAL_CACHE = 1 << 20
"""Static scores kept per search (by the two bitboards and the side to
move: all a Kharbga-family score depends on)."""
EXTEND_PLY = 1
"""Capture-threat extensions: at principal-variation nodes this near the root."""

Raw = tuple[str, int, int, int, bool]
AnyGame = Game | LeapGame
"""A game of either rules family: the Kharbga family or the leap games."""


class OutOfTime(Exception):
    """The deadline or the node limit passed: the search unwinds to the root."""


@functools.cache
def _zobrist_keys(squares: int, seed: int, c: int) -> tuple[
        list[list[list[int]]], tuple[int, int, int], list[int], tuple[object, ...]]:
    """The Zobrist tables of a board of ``squares`` points (per bitboard,
    per ``c``-bit chunk, per chunk value), the side, setting and
    first-turns keys, the chain keys, and the generator's state after them:
    drawn once a process, not for every search (about 5 ms of processor time
    on 64 squares, 3 ms on 37, which a search spent outside its think
    time).  Shared: read only."""
    rng = random.Random(seed)
    tables: list[list[list[int]]] = []
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
        tables.append(chunks)
    flags = (rng.getrandbits(64), rng.getrandbits(64), rng.getrandbits(64))
    chain = [rng.getrandbits(64) for _ in range(squares + 1)]
    return tables, flags, chain, rng.getstate()


class _Zobrist:
    """Zobrist keys: a random 64-bit key per (side, square), combined per
    7-bit chunk of each bitboard so a key costs a few table lookups, plus
    keys for the side to move, the chain square, the phase, the exchange in
    progress and the first turns of the moving phase (which decide the
    blocked-first-turn rule).  In the leap games the kings and the enemy
    soldiers of a huff owed are two more bitboards of keys."""

    CHUNK = 7

    def __init__(self, squares: int, seed: int = 0x4B48) -> None:
        self.tables, (self.side, self.setting, self.first_turns), self.chain, state = \
            _zobrist_keys(squares, seed, self.CHUNK)
        self._rng = random.Random()
        self._rng.setstate(state)  # the exchange keys, drawn as they are met
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


class Negamax:
    """The state of one search over a private copy of ``game`` and the
    search below its root (the switches: :class:`.search.Searcher`)."""

    def __init__(self, game: AnyGame, *, use_tt: bool = True, qdepth: int = 8,
                 selective: bool = True, noise: int = 0, noise_seed: int = 0) -> None:
        self.game: AnyGame = game.copy()
        g = self.game
        self._eval: Callable[[AnyGame], int]
        self._push: Callable[[Raw], None]
        self._leap = isinstance(g, LeapGame)
        if isinstance(g, LeapGame):
            leap = g
            self._eval = lambda x: evaluate_leap(leap)
            self._push = lambda m: leap.push(m[0], m[1], m[2])
            self._masks: Masks | None = None
        else:
            kharbga = g
            tuned = weights(kharbga.variant)
            cache: dict[tuple[int, int, int], int] = {}

            def cached(x: AnyGame) -> int:
                a, d = kharbga.bitboards()
                k = (a, d, kharbga.side)
                v = cache.get(k)
                if v is None:
                    if len(cache) > EVAL_CACHE:
                        cache.clear()
                    v = cache[k] = evaluate(kharbga, tuned)
                return v

            self._eval = cached
            self._push = kharbga.push_raw
            self._masks = masks(kharbga.variant)
        if noise:
            plain = self._eval

            def noisy(x: AnyGame) -> int:
                a, d = x.bitboards()
                return plain(x) + hash((a, d, x.side, noise_seed)) % (2 * noise + 1) - noise

            self._eval = noisy
        self.use_tt = use_tt
        self.selective = selective
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
        self._root_depth = 1
        self._partial: tuple[int, Raw, list[Raw]] | None = None

    def _child(self, depth: int, alpha: int, beta: int, ply: int, side: int) -> int:
        """The score, for ``side``, of the position after an action: the
        window is turned round only when the side to move changed."""
        if self.game.side == side:
            return self._negamax(depth, alpha, beta, ply)
        return -self._negamax(depth, -beta, -alpha, ply)

    def _check(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        if self.nodes >= self._max_nodes or time.perf_counter() >= self._deadline:
            raise OutOfTime

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

    def _probe(self, key: int, depth: int, alpha: int, beta: int, ply: int
               ) -> tuple[int | None, Raw | None]:
        """A score from the table when its entry settles this node, and the
        table's move for ordering.  The plain search takes entries of the
        same depth only (its scores then do not depend on the table); the
        selective search takes deeper ones too."""
        entry = self.tt.get(key)
        if entry is None:
            return None, None
        edepth, eflag, escore, tt_move = entry
        if edepth == depth or (self.selective and edepth > depth):
            s = escore - ply if escore > WON else escore + ply if escore < -WON else escore
            if eflag == EXACT or (eflag == LOWER and s >= beta) or (eflag == UPPER and s <= alpha):
                self._horizon = True  # conservatively: the entry may hide a horizon
                if eflag == EXACT and tt_move is not None:
                    self._pv[ply] = [tt_move]
                return s, tt_move
        return None, tt_move

    def _prune(self, depth: int, beta: int, moves: list[Raw]) -> int | None:
        """Reverse futility pruning (a static null move): near the horizon,
        a static score far above ``beta`` stands.  Only in the moving phase
        of the Kharbga family, outside chains, and only when the side to move
        has room to move (:data:`PRUNE_MIN_MOVES` actions): a nearly blocked
        side is where giving up a move costs the game, so it is never
        pruned."""
        g = self.game
        if (depth > PRUNE_DEPTH or self._leap or g.setting or g.chain_point >= 0
                or abs(beta) >= WON or len(moves) < PRUNE_MIN_MOVES):
            return None
        if any(m[3] for m in moves):
            return None  # a capture is available: let the search see it
        stand = self._eval(g)
        margin = PRUNE_MARGIN * depth
        if stand - margin >= beta:
            return stand - margin
        return None

    def _threat(self, side: int) -> int:
        """Pieces of the side not ``side`` that a step of ``side`` could
        capture next (Kharbga family)."""
        m = self._masks
        assert m is not None
        bb = self.game.bitboards()
        own, opp = bb[side], bb[1 - side]
        return vulnerable(m, opp, own, m.full & ~(own | opp)).bit_count()

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
            hit, tt_move = self._probe(key, depth, alpha, beta, ply)
            if hit is not None:
                return hit
        side = g.side
        raw = g.raw_moves()
        selective = self.selective
        pv_node = beta - alpha > 1
        if selective and not pv_node:
            cut = self._prune(depth, beta, raw)
            if cut is not None:
                self._horizon = True
                return cut
        moves = self._order(raw, tt_move, ply, side)
        extend = (pv_node and EXTEND and not self._leap and not g.setting and depth >= 2
                  and ply <= EXTEND_PLY)
        threats = self._threat(side) if extend else 0
        alpha0 = alpha
        best = -INF
        best_move: Raw | None = None
        pv = self._pv
        killers = self.killers[ply]
        for i, m in enumerate(moves):
            _, frm, to, caps, flag = m
            self._push(m)
            d = depth - 1
            if extend and not caps and self._threat(side) > threats:
                d += 1  # a new capture threat: look one action further
            if selective and i > 0:
                r = 0
                if (i >= LMR_AFTER and depth >= 3 and not caps and not flag
                        and d < depth and m not in killers):
                    r = 2 if i >= 3 * LMR_AFTER and depth >= 5 else 1
                v = self._child(d - r, alpha, alpha + 1, ply + 1, side)
                if r and v > alpha:
                    v = self._child(d, alpha, alpha + 1, ply + 1, side)
                if alpha < v < beta and pv_node:
                    v = self._child(d, alpha, beta, ply + 1, side)
            else:
                v = self._child(d, alpha, beta, ply + 1, side)
            g.pop()
            if v > best:
                best, best_move = v, m
                if v > alpha:
                    alpha = v
                    pv[ply] = [m, *pv[ply + 1]]
                    if v >= beta:
                        if not caps:
                            self._remember(m, ply, side, depth)
                        break
        if self.use_tt:
            self._store(key, depth, best, alpha0, beta, ply, best_move)
        return best

    def _remember(self, m: Raw, ply: int, side: int, depth: int) -> None:
        """A quiet move that caused a cut-off: a killer and history."""
        k = self.killers[ply]
        if m not in k:
            k.insert(0, m)
            del k[2:]
        hk = (side, m[1], m[2])
        self.history[hk] = self.history.get(hk, 0) + depth * depth

    def _store(self, key: int, depth: int, best: int, alpha0: int, beta: int, ply: int,
               best_move: Raw | None) -> None:
        flag_ = LOWER if best >= beta else EXACT if best > alpha0 else UPPER
        s = best + ply if best > WON else best - ply if best < -WON else best
        self.tt[key] = (depth, flag_, s, best_move)
        if len(self.tt) > 2_000_000:
            self.tt.clear()

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
