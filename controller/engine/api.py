"""The engine's entry point: :func:`best_move`, for hints and for the
computer opponent, with playing levels.

Levels weaken the engine deliberately: a depth cap, and a random choice
(under the seed) among the root moves whose exact score is within a margin
of the best.  A move that loses by force is never chosen when another
move does not.  ``level=None`` is full strength.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .search import WON, AnyGame, Searcher, SearchResult

__all__ = ["Level", "LEVELS", "best_move", "DEFAULT_HINT_SECONDS"]

DEFAULT_HINT_SECONDS = 0.9
"""Default think time for a hint: on a Raspberry Pi 4 the hint is lit within
1 s of the request (see docs/engine.md)."""

@dataclass(frozen=True)
class Level:
    """A playing level: a depth cap (0: none) and a margin in hundredths of
    a piece for the random choice among near-best moves."""

    name: str
    max_depth: int
    margin: int


LEVELS: dict[int, Level] = {
    1: Level("beginner", 1, 250),
    2: Level("casual", 2, 120),
    3: Level("club", 3, 50),
    4: Level("strong", 5, 15),
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
) -> SearchResult:
    """Search ``game`` (left unchanged) for at most ``seconds`` and return
    the move to play with its score, principal variation, depth and nodes.

    ``max_depth``/``max_nodes`` bound the search further (deterministic
    results for tests and benchmarks).
    """
    if game.outcome is not None:
        return SearchResult(None, 0, [], 0, 0)
    lv = LEVELS[level] if level is not None else LEVELS[5]
    depth = max_depth if max_depth is not None else 64
    if lv.max_depth:
        depth = min(depth, lv.max_depth)
    searcher = Searcher(game, use_tt=use_tt)
    weak = lv.margin > 0
    if len(game.raw_moves()) == 1 and not weak:
        seconds = seconds / 10  # forced: search only for the score and the line
    result = searcher.search(seconds, max_depth=depth, max_nodes=max_nodes, all_scores=weak)
    if weak and result.scores:
        result = _weaken(game, result, lv, seed)
    return result


def _weaken(game: AnyGame, result: SearchResult, lv: Level, seed: int) -> SearchResult:
    scores = result.scores
    top = max(scores.values())
    floor = top - lv.margin
    if top > -WON:
        floor = max(floor, -WON)
    if top >= WON:
        floor = top  # never miss a forced win
    choices = sorted(m for m, s in scores.items() if s >= floor)
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


