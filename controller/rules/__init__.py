"""The rules engines (standard library only): the Kharbga family
(:class:`Game`) and the leap-capture games (:class:`LeapGame`).

``new_game(name)`` and ``game_from_position(name, text)`` make a game of
either family from its variant's name; ``Game.new`` and ``find_variant``
stay Kharbga only (a leap name there is a ``ValueError`` saying so).

>>> from controller.rules import Game
>>> g = Game.new("kharbga")
>>> g.to_move, g.phase
('attacker', 'setting')
>>> sorted(str(m) for m in g.legal_moves())[:3]
['@a1', '@a2', '@a3']
"""

from controller.board.geometry import Geometry, square_grid

from .game import Game
from .leap import LeapGame
from .leap_factory import (
    AnyGame,
    AnyVariant,
    find_any_variant,
    game_from_position,
    is_leap,
    new_game,
)
from .leap_variants import LEAP_VARIANTS, LeapVariant, find_leap_variant
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
    "AnyGame",
    "AnyVariant",
    "Exchange",
    "Game",
    "State",
    "Geometry",
    "IllegalMoveError",
    "LEAP_VARIANTS",
    "LeapGame",
    "LeapVariant",
    "Move",
    "NotationError",
    "Outcome",
    "PositionError",
    "RulesError",
    "Termination",
    "VARIANTS",
    "Variant",
    "find_any_variant",
    "find_leap_variant",
    "find_variant",
    "game_from_position",
    "is_leap",
    "new_game",
    "square_grid",
]
