"""The rules engine of the Kharbga family (standard library only).

>>> from controller.rules import Game
>>> g = Game.new("kharbga")
>>> g.to_move, g.phase
('attacker', 'setting')
>>> sorted(str(m) for m in g.legal_moves())[:3]
['@a1', '@a2', '@a3']
"""

from controller.board.geometry import Geometry, square_grid

from .game import Game
from .moves import (
    IllegalMoveError,
    Move,
    NotationError,
    Outcome,
    PositionError,
    RulesError,
    Termination,
)
from .state import Exchange, State
from .variants import VARIANTS, Variant, find_variant

__all__ = [
    "Exchange",
    "Game",
    "State",
    "Geometry",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Outcome",
    "PositionError",
    "RulesError",
    "Termination",
    "VARIANTS",
    "Variant",
    "find_variant",
    "square_grid",
]
