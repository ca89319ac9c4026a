"""LED roles: what the lights under the squares mean (docs/reconciler.md,
"LED roles"), and the one function that turns roles into colours.

The reconciler gives each square at most one role; where several apply the
one later in :data:`ROLES` wins (an error outranks everything).  ``king``,
the lowest, is the service's: a point where a king (a crowned soldier of
the draughts games) stands shows it while no other role lights it, so the
players see the kings on the board itself (the sensors cannot tell a king
from a man).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "DEFAULT_STYLES",
    "MEANINGS",
    "RGB",
    "ROLES",
    "LedMap",
    "RoleStyle",
    "STYLES",
    "format_colour",
    "legend",
    "paint",
    "role_colours",
]

ROLES = (
    "king",
    "setup",
    "last-from",
    "last-to",
    "hint",
    "destination",
    "continue",
    "exchange-request",
    "lifted",
    "exchange",
    "capture",
    "error",
)
_RANK = {role: i for i, role in enumerate(ROLES)}

# The looks that can be configured: every role, and ``hint-to``, the end
# square of a lit hint (its role stays ``hint``; only its colour differs).
STYLES = (*ROLES[: ROLES.index("hint") + 1], "hint-to", *ROLES[ROLES.index("hint") + 1 :])

LedMap = dict[str, str]


def paint(leds: LedMap, bits: int, role: str, names: tuple[str, ...]) -> None:
    """Give ``role`` to every square of bitboard ``bits`` unless a square
    already has a role that outranks it."""
    rank = _RANK[role]
    while bits:
        low = bits & -bits
        name = names[low.bit_length() - 1]
        current = leds.get(name)
        if current is None or _RANK[current] <= rank:
            leds[name] = role
        bits ^= low


RGB = tuple[int, int, int]


@dataclass(frozen=True)
class RoleStyle:
    """A role's colour (full scale, before brightness) and blink period in
    seconds (0: steady; else on for the first half of each period)."""

    colour: RGB
    blink: float = 0.0


# The default look of each role, and what it tells the player.  The WS2812
# driver, the Pico host side and the page's legend all read these.
DEFAULT_STYLES: dict[str, RoleStyle] = {
    "king": RoleStyle((210, 160, 0)),
    "setup": RoleStyle((60, 60, 60)),
    "last-from": RoleStyle((0, 0, 110)),
    "last-to": RoleStyle((0, 0, 255)),
    "hint": RoleStyle((170, 0, 255), 1.0),
    "hint-to": RoleStyle((0, 190, 255), 1.0),
    "destination": RoleStyle((0, 255, 0)),
    "continue": RoleStyle((255, 190, 0), 0.5),
    "exchange-request": RoleStyle((255, 110, 180), 1.0),
    "lifted": RoleStyle((255, 255, 255)),
    "exchange": RoleStyle((255, 0, 200), 0.5),
    "capture": RoleStyle((255, 70, 0), 0.5),
    "error": RoleStyle((255, 0, 0), 0.25),
}

MEANINGS: dict[str, str] = {
    "king": "a king (a crowned soldier) stands here",
    "setup": "put a piece here to set the board up",
    "last-from": "the last move started here",
    "last-to": "the last move ended here",
    "hint": "the suggested move starts here",
    "hint-to": "the suggested move ends here (a hint's second square)",
    "destination": "the lifted (or capturing) soldier may go here",
    "continue": "this soldier must (or may) capture again",
    "lifted": "the soldier lifted",
    "exchange-request": "a soldier in the two-for-one exchange being asked and offered",
    "exchange": "the exchange is done: remove this piece",
    "capture": "captured (or huffed): remove this piece",
    "error": "out of place: put this square right",
}


def format_colour(rgb: RGB) -> str:
    """``(255, 128, 0)`` -> ``"#ff8000"``."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def role_colours(
    leds: Mapping[str, str],
    now: float,
    styles: Mapping[str, RoleStyle] = DEFAULT_STYLES,
    brightness: float = 1.0,
    hint_to: str | None = None,
) -> dict[str, RGB]:
    """The colour each lit point shows at time ``now`` (blinking roles are
    dark in the second half of their period).  Unknown roles stay dark;
    points that are dark are left out.  ``hint_to``, the point where a
    lit hint ends, shows the ``hint-to`` style, so a hint's two squares
    differ."""
    out: dict[str, RGB] = {}
    for name, role in leds.items():
        key = "hint-to" if role == "hint" and name == hint_to else role
        style = styles.get(key, styles.get(role))
        if style is None or (style.blink > 0 and now % style.blink >= style.blink / 2):
            continue
        r, g, b = style.colour
        out[name] = (int(r * brightness), int(g * brightness), int(b * brightness))
    return out


def legend(styles: Mapping[str, RoleStyle] = DEFAULT_STYLES) -> list[dict[str, object]]:
    """Every role (and the ``hint-to`` style) with its colour, blink period
    and meaning, lowest rank first."""
    return [
        {
            "role": role,
            "colour": format_colour(styles[role].colour),
            "blink": styles[role].blink,
            "meaning": MEANINGS[role],
        }
        for role in STYLES
        if role in styles
    ]
