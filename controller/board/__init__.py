"""The shared board vocabulary: what every layer of the controller speaks.

Board geometry (points, names, lines, bit iteration) and the boards of
the leap-capture games, sides and phases, sensor events and the
sensor-log format, LED roles and their colours; configuration files read
with one error type (:mod:`.config`, with the command line's parser and
the web pages' helpers), and exceptions and board names in words
(:mod:`.words`).
This package imports nothing else of the project, and only the standard
library; everything else may import it.
"""

from .events import BUTTONS, Button, Frame
from .geometry import Geometry, points, square_grid
from .leds import ROLES, LedMap, RoleStyle, legend, paint, role_colours
from .sides import SIDES, Phase, Side, other

__all__ = [
    "BUTTONS",
    "Button",
    "Frame",
    "Geometry",
    "LedMap",
    "Phase",
    "ROLES",
    "RoleStyle",
    "SIDES",
    "Side",
    "legend",
    "other",
    "paint",
    "points",
    "role_colours",
    "square_grid",
]
