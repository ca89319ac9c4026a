"""Sides and phases of a game.

Both are string enums: a :class:`Side` compares equal to its name
(``Side.ATTACKER == "attacker"``), so the public API, records and JSON keep
their plain strings.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["SIDES", "Phase", "Side", "other"]


class Side(StrEnum):
    """The two sides: the Attacker moves first."""

    ATTACKER = "attacker"
    DEFENDER = "defender"

    @property
    def other(self) -> Side:
        return Side.DEFENDER if self is Side.ATTACKER else Side.ATTACKER


class Phase(StrEnum):
    """The phases of a game of the Kharbga family."""

    SETTING = "setting"
    MOVING = "moving"


SIDES: tuple[Side, Side] = (Side.ATTACKER, Side.DEFENDER)


def other(side: str) -> Side:
    """The opponent of ``side`` (a :class:`Side` or its name)."""
    return Side(side).other
