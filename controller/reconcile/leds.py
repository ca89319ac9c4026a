"""LED roles: what the lights under the squares mean (INTERFACES.md).

The reconciler gives each square at most one role; where several apply the
one later in :data:`ROLES` wins (an error outranks everything).
"""

from __future__ import annotations

__all__ = ["ROLES", "LedMap", "paint"]

ROLES = (
    "setup",
    "last-from",
    "last-to",
    "hint",
    "destination",
    "continue",
    "lifted",
    "exchange",
    "capture",
    "error",
)
_RANK = {role: i for i, role in enumerate(ROLES)}

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
