"""The engine's search in C (``controller.engine._csearch``), when built.

The C module holds the evaluation of :mod:`.evaluate` and the search of
:mod:`.search` (same terms, same weights, same algorithm) for the games of
the compiled rules core in the Kharbga family: ``kharbga``,
``kharbga-refuge``, ``khamousiyya`` and ``sabouiyya`` without H'ajeb.
:func:`available` says whether it can search a given game; anything else
is the Python search's (falling back is the caller's business).  The
search runs without the GIL.  See docs/engine-c.md.
"""

from __future__ import annotations

import time
from dataclasses import astuple
from types import ModuleType

from controller.rules import Game
from controller.rules.moves import PASS, PLACE, REMOVE, STEP

from .evaluate import masks, weights
from .search import SearchResult, to_move

__all__ = ["MAX_THREADS", "VARIANTS", "available", "evaluate", "search", "search_speed"]

_cs: ModuleType | None
try:
    from . import _csearch as _cs
except ImportError:  # built without a C compiler, or the rules core's extension missing
    _cs = None

VARIANTS = frozenset({"kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya"})
MAX_THREADS = 16  # the most threads a search takes
"""The variants the C search plays (on the compiled rules core, no H'ajeb)."""
_KINDS = (STEP, PLACE, PASS, REMOVE)  # the rules core's kind codes, in order
Act = tuple[int, int, int, bool]


def available(game: object | None = None) -> bool:
    """Whether the extension was built and, given a game, can search it."""
    if _cs is None:
        return False
    if game is None:
        return True
    try:
        from controller.rules.accel_game import CompiledGame
    except ImportError:
        return False
    if not isinstance(game, CompiledGame):
        return False
    v = game.variant
    return v.name in VARIANTS and v.size <= 7 and not getattr(v, "hajeb", False)


def _args(game: Game) -> tuple[tuple[int, ...], tuple[bool, bool, bool]]:
    m = masks(game.variant)
    w = tuple(int(x) for x in astuple(weights(game.variant)))
    return w, (m.refuge, m.lose_when_blocked, m.defender_wins_blocked_first)


def evaluate(game: Game) -> int:
    """The C evaluation of ``game`` for its side to move (as
    :func:`.evaluate.evaluate` with the variant's weights)."""
    if _cs is None or not available(game):
        raise ValueError("the C search cannot play this game")
    w, flags = _args(game)
    return int(_cs.evaluate(game, w, flags))


def _match(game: Game, act: Act) -> tuple[str, int, int, int, bool] | None:
    kind, frm, to, flag = act
    name = _KINDS[kind] if 0 <= kind < len(_KINDS) else None
    for raw in game.raw_moves():
        if raw[0] == name and (name == PASS or (raw[1] == frm and raw[2] == to
                                                and bool(raw[4]) == flag)):
            return raw
    return None


def search(game: Game, seconds: float | None = None, max_depth: int = 64,
           max_nodes: int | None = None, *, use_tt: bool = True, selective: bool = True,
           qdepth: int = 8, threads: int = 1) -> SearchResult:
    """Iterative deepening in C until ``seconds``, ``max_depth`` or
    ``max_nodes`` (the switches as :class:`.search.Searcher`'s; the node
    limit counts the main thread's nodes); ``threads`` > 1 adds helper
    threads (Lazy SMP, a shared table); ``game`` is left unchanged.
    ``ValueError`` when :func:`available` is false for the game or a bound
    is out of range."""
    if _cs is None or not available(game):
        raise ValueError("the C search cannot play this game")
    if seconds is not None and not seconds > 0:
        raise ValueError("seconds: a positive number expected")
    if not 1 <= max_depth <= 100:
        raise ValueError("max_depth: 1 to 100 expected")
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads: 1 to {MAX_THREADS} expected")
    w, flags = _args(game)
    began = time.perf_counter()
    move, score, pv, depth, nodes, _ = _cs.search(
        game, w, flags, seconds or 0.0, max_depth, max_nodes or 0, use_tt, selective, qdepth,
        threads)
    if move is None:
        return SearchResult(None, 0, [], 0, nodes, time.perf_counter() - began)
    names = game.geometry.point_names
    raw = _match(game, move)
    if raw is None:
        raise RuntimeError(f"C search returned an action that is not legal: {move}")
    return SearchResult(to_move(raw, names), score, _pv_strings(game, pv), depth, nodes,
                        time.perf_counter() - began, threads=threads)


def _pv_strings(game: Game, pv: list[Act]) -> list[str]:
    """The principal variation in notation, replayed to check it."""
    g = game.copy()
    out: list[str] = []
    for act in pv:
        if g.outcome is not None:
            break
        raw = _match(g, act)
        if raw is None:
            break
        out.append(str(to_move(raw, g.geometry.point_names)))
        g.push(raw[0], raw[1], raw[2], raw[4])
    return out


def search_speed(variant: str = "khamousiyya", seconds: float = 1.0,
                 phase: str = "m") -> dict[str, tuple[float, float]]:
    """For ``make bench``: the C and the Python search, one after the
    other, ``seconds`` on each fixed position of
    ``data/depth_positions.tsv`` of ``variant`` in ``phase`` (``m`` the
    moving phase, ``s`` setting): {"c": (nodes/s, mean depth), "python":
    ...}.  Empty when the C search is not built."""
    from importlib import resources

    from .search import Searcher

    text = resources.files(__package__).joinpath("data", "depth_positions.tsv").read_text("utf-8")
    games = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, position = line.split("\t")
        if name == variant and position.split()[2] == phase:
            games.append(Game.from_position(name, position))
    if not games or not available(games[0]):
        return {}
    out: dict[str, tuple[float, float]] = {}
    for label in ("c", "python"):
        nodes = depth = 0
        took = 0.0
        for g in games:
            if label == "c":
                r = search(g, seconds)
            else:
                r = Searcher(g).search(seconds)
            nodes, depth, took = nodes + r.nodes, depth + r.depth, took + r.seconds
        out[label] = (nodes / took, depth / len(games))
    return out


def threads_speedup(depth: int = 10, threads: tuple[int, ...] = (1, 2, 4)
                    ) -> dict[int, float]:
    """For ``make bench``: the time (seconds) the C search takes to reach
    ``depth`` on all ten fixed positions of ``data/depth_positions.tsv``,
    for each thread count (Lazy SMP).  Empty when the C search is not
    built."""
    from importlib import resources

    text = resources.files(__package__).joinpath("data", "depth_positions.tsv").read_text("utf-8")
    games = [Game.from_position(*line.split("\t")) for line in text.splitlines()
             if line.strip() and not line.startswith("#")]
    if not games or not available(games[0]):
        return {}
    return {t: sum(search(g, max_depth=depth, threads=t).seconds for g in games)
            for t in threads}
