"""The shared board vocabulary: what every layer of the controller speaks.

Board geometry (points, names, lines, bit iteration), sides and phases,
sensor events and the sensor-log format, LED roles and their colours.
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
