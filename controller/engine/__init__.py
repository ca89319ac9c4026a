"""The search engine (standard library only): hints and a computer
opponent on top of :mod:`controller.rules`, for the Kharbga family and the
leap-capture games (:class:`~controller.rules.leap.LeapGame`).

>>> from controller.rules import Game
>>> from controller.engine import best_move
>>> r = best_move(Game.new("sabouiyya"), seconds=1.0, max_depth=1)
>>> r.move is not None and r.depth == 1
True
"""

from .api import DEFAULT_HINT_SECONDS, LEVELS, Level, best_move
from .evaluate import WIN, evaluate
from .search import Searcher, SearchResult

__all__ = [
    "DEFAULT_HINT_SECONDS",
    "LEVELS",
    "Level",
    "SearchResult",
    "Searcher",
    "WIN",
    "best_move",
    "evaluate",
]
