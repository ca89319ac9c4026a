"""The engine's entry point: :func:`best_move`, for hints and for the
computer opponent, with playing levels.

Levels weaken the engine deliberately: a depth cap, noise in the static
evaluation, and a random choice (under the seed) among the root moves whose
exact score is within a margin of the best.  A move its search sees losing
by force is never chosen when another move does not; from level 3 up, a
one-move blunder never is either: the choice is checked by a noise-free
search two actions deep, four when the time allows (with its capture
chains), and a move that scores more than :data:`BLUNDER` below that
search's best is never played.
``level=None`` is full strength.  At full strength, a setting-phase
position of the opening book (:mod:`.book`) is answered from the book
when the search is bounded by time only.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from controller.rules import Game, find_variant

from . import book as opening_book
from . import csearch
from .csearch import MAX_THREADS
from .negamax import INF, WON, AnyGame
from .search import Searcher, SearchResult

__all__ = ["Level", "LEVELS", "BLUNDER", "MAX_SECONDS", "MAX_THREADS", "best_move", "book_move",
           "DEFAULT_HINT_SECONDS"]

DEFAULT_HINT_SECONDS = 0.9
"""Default think time for a hint: on a Raspberry Pi 4 the hint is lit within
1 s of the request (see docs/engine.md)."""

BLUNDER = 60
"""From level 3 up, no move scoring this much (hundredths of a piece) below
the best of a noise-free search (:data:`GUARD_DEPTH`) is played."""

GUARD_DEPTH = 4
"""The check's depth in actions, as the time allows: two see a piece left
to be taken, four a recapture that does not hold."""


MAX_SECONDS = 600.0
"""The longest think time a hint may ask for (``kharbga-board hint --time``)."""


@dataclass(frozen=True)
class Level:
    """A playing level: a depth cap (0: none), a margin in hundredths of a
    piece for the random choice among near-best moves, the noise added to
    the static evaluation (hundredths, at most), and whether one-move
    blunders are ruled out."""

    name: str
    max_depth: int
    margin: int
    noise: int = 0
    guard: bool = False


LEVELS: dict[int, Level] = {
    1: Level("beginner", 1, 200, noise=120),
    2: Level("casual", 2, 100, noise=80),
    3: Level("club", 3, 40, noise=40, guard=True),
    4: Level("strong", 5, 15, noise=15, guard=True),
    5: Level("full", 0, 0),
}


def best_move(
    game: AnyGame,
    seconds: float,
    seed: int = 0,
    level: int | None = None,
    *,
    max_depth: int | None = None,
    max_nodes: int | None = None,
    use_tt: bool = True,
    book: bool = True,
    threads: int = 1,
) -> SearchResult:
    """Search ``game`` (left unchanged) for at most ``seconds`` and return
    the move to play with its score, principal variation, depth and nodes.

    ``max_depth``/``max_nodes`` bound the search further (deterministic
    results for tests and benchmarks); a bounded search, ``book=False``
    or a level below full strength never consults the opening book.
    ``threads`` (1 to 16) search together where the C search plays at
    full strength (Lazy SMP, docs/engine-c.md); elsewhere one searches.
    """
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads: 1 to {MAX_THREADS} expected")
    if game.outcome is not None:
        return SearchResult(None, 0, [], 0, 0)
    if book and level in (None, 5) and max_depth is None and max_nodes is None:
        found = book_move(game)
        if found is not None:
            return found
    lv = LEVELS[level] if level is not None else LEVELS[5]
    depth = max_depth if max_depth is not None else 64
    if lv.max_depth:
        depth = min(depth, lv.max_depth)
    weak = lv.margin > 0
    if not weak and not lv.noise and isinstance(game, Game) and csearch.available(game):
        # Full strength on the compiled search (docs/engine-c.md); the
        # Python search below plays what it cannot (leap games, H'ajeb,
        # no compiler) and the weak levels.
        if len(game.raw_moves()) == 1:
            seconds = seconds / 10
        return csearch.search(game, seconds, max_depth=depth, max_nodes=max_nodes,
                              use_tt=use_tt, threads=threads)
    searcher = Searcher(game, use_tt=use_tt, noise=lv.noise, noise_seed=seed)
    if len(game.raw_moves()) == 1 and not weak:
        seconds = seconds / 10  # forced: search only for the score and the line
    safe = None
    if weak and lv.guard:  # within the same budget: up to half of it, the search the rest
        began = time.perf_counter()
        safe = _safe_moves(game, seconds / 2, max_nodes)
        seconds -= time.perf_counter() - began
    result = searcher.search(seconds, max_depth=depth, max_nodes=max_nodes, all_scores=weak)
    if weak and result.scores:
        won = max(result.scores.values()) >= WON
        result = _weaken(game, result, lv, seed, None if won else safe)
    return result


def book_move(game: AnyGame) -> SearchResult | None:
    """The opening book's move for ``game``'s position, if the book holds
    it (a setting-phase position of a variant with a book): the move, its
    score for the side to move, the depth it was searched to, ``pv`` that
    move, 0 nodes and no time spent.  None anywhere else, and for a game
    whose rule options differ from its named variant's: the book was
    searched under that variant's rules."""
    if not isinstance(game, Game) or not game.setting:
        return None
    if game.variant != find_variant(game.variant.name):
        return None
    table = opening_book.book_for(game.variant.name)
    if table is None:
        return None
    hit = table.lookup(game.position())
    if hit is None:
        return None
    move, score, depth = hit
    legal = next((m for m in game.legal_moves() if str(m) == move), None)
    if legal is None:
        return None
    return SearchResult(legal, score, [move], depth, 0, seconds=0.0)


def _safe_moves(game: AnyGame, seconds: float, max_nodes: int | None) -> set[str] | None:
    """The moves that are no one-move blunder: within :data:`BLUNDER` of
    the best score of a noise-free search :data:`GUARD_DEPTH` actions deep
    when the time allows it, else two actions deep (one when the time
    allows no more; None only when a node limit stops even that).  The
    deeper search's answer stands alone: a capture that two actions make
    look lost (a recapture) and four show to win is no blunder."""
    began = time.perf_counter()
    safe = None
    for depth in (2, GUARD_DEPTH):
        left = seconds - (time.perf_counter() - began)
        result = Searcher(game).search(left, max_depth=depth, max_nodes=max_nodes,
                                       all_scores=True)
        if not result.scores or (safe is not None and result.depth < depth):
            break  # the deeper search did not finish: the first one's answer stands
        top = max(result.scores.values())
        safe = {m for m, s in result.scores.items() if s >= top - BLUNDER}
    return safe


def _weaken(game: AnyGame, result: SearchResult, lv: Level, seed: int,
            safe: set[str] | None = None) -> SearchResult:
    scores = result.scores
    top = max(scores.values())
    floor = top - lv.margin
    if top > -WON:
        floor = max(floor, -WON)
    if top >= WON:
        floor = top  # never miss a forced win
    choices = sorted(m for m, s in scores.items() if s >= floor)
    if safe is not None:
        checked = [m for m in choices if m in safe]
        choices = checked or sorted(safe, key=lambda m: -scores.get(m, -INF))[:1]
    rng = random.Random(f"{seed}|{game.position()}")
    pick = choices[int(rng.random() * len(choices))]
    if pick == str(result.move):
        return result
    move = next(m for m in game.legal_moves() if str(m) == pick)
    return SearchResult(
        move=move,
        score=scores[pick],
        pv=[pick],
        depth=result.depth,
        nodes=result.nodes,
        seconds=result.seconds,
        scores=scores,
    )


