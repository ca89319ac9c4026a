"""Sensor events: what a board's sensors and buttons report.

A :class:`Frame` is the whole board as the sensor saw it at one time; a
:class:`Button` is one press.  Both carry their time in seconds.  Points
are bit indexes in the order of the board's geometry (a1, b1, .. on the
square boards).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BUTTONS", "Button", "Frame"]

# "hajeb": the Defender declares H'ajeb, or rescinds it (sabouiyya with
# the rule option hajeb).  New names go at the end: the serial protocol
# sends a button as its index here.
BUTTONS = ("hint", "exchange", "undo", "new", "resign", "draw", "hajeb")


@dataclass(frozen=True)
class Frame:
    """The whole board as the sensor saw it.

    ``occupied`` is a bitboard of squares with a piece (``?`` cells not
    included); for colour frames ``attacker`` and ``defender`` are the
    pieces of each colour and ``unknown`` the ``?`` cells.
    """

    t: float
    occupied: int
    attacker: int = 0
    defender: int = 0
    unknown: int = 0
    colour: bool = False

    @classmethod
    def from_occ(cls, t: float, occ: str, place: str = "square") -> Frame:
        """The frame of an ``occ`` string; a bad character is said at its
        ``place`` ("point" on the 37-point board)."""
        if occ.strip("01"):
            i = next(i for i, ch in enumerate(occ) if ch not in "01")
            raise ValueError(f"occ character {occ[i]!r} at {place} {i} is not 0 or 1")
        return cls(t, int(occ[::-1], 2) if occ else 0)

    @classmethod
    def from_cells(cls, t: float, cells: str, place: str = "square") -> Frame:
        a = d = u = 0
        for i, ch in enumerate(cells):
            bit = 1 << i
            if ch == "a":
                a |= bit
            elif ch == "d":
                d |= bit
            elif ch == "?":
                u |= bit
            elif ch != ".":
                raise ValueError(f"cells character {ch!r} at {place} {i} is not a, d, . or ?")
        return cls(t, a | d, a, d, u, True)

    def same_reading(self, other: Frame) -> bool:
        """Do both frames show the same board (times aside)?"""
        return (
            self.occupied == other.occupied
            and self.attacker == other.attacker
            and self.defender == other.defender
            and self.unknown == other.unknown
            and self.colour == other.colour
        )

    def text(self, squares: int) -> str:
        """The frame's ``occ`` or ``cells`` string."""
        if not self.colour:
            return "".join("1" if self.occupied >> i & 1 else "0" for i in range(squares))
        out = []
        for i in range(squares):
            if self.attacker >> i & 1:
                out.append("a")
            elif self.defender >> i & 1:
                out.append("d")
            elif self.unknown >> i & 1:
                out.append("?")
            else:
                out.append(".")
        return "".join(out)


@dataclass(frozen=True)
class Button:
    """A button press; ``side`` is ``None`` when the board does not say."""

    t: float
    button: str
    side: str | None = None
