"""The typed values of a position: :class:`State`, :class:`Exchange` and
the raw action tuple :data:`Raw` of the low-level interface."""

from __future__ import annotations

from dataclasses import dataclass

from .moves import Outcome

__all__ = ["Exchange", "Raw", "State", "NO_OFF"]


@dataclass(frozen=True)
class Exchange:
    """A two-for-one exchange in progress (variant ``kharbga``).

    ``stage`` is the last stage reached: 1 the Defender asked with soldier
    on ``soldier``; 2 the Attacker offered the soldier on ``first``; 3 the
    Defender took it; 4 the Attacker offered the soldier on ``second``.
    Squares follow the Defender's soldier as it steps.
    """

    stage: int
    soldier: int
    first: int = -1
    second: int = -1


# A raw action: (kind, frm, to, captured_mask, flag).  Points are ints,
# ``-1`` where an action has no such point; ``captured_mask`` is the
# bitboard of the pieces a step takes.
Raw = tuple[str, int, int, int, bool]

Off = tuple[tuple[int, int, int], tuple[int, int, int]]
NO_OFF: Off = ((0, 0, 0), (0, 0, 0))


@dataclass(frozen=True)
class State:
    """Everything that decides a position, as one typed value.

    ``attacker`` and ``defender`` are bitboards; ``side`` 0 is the Attacker;
    ``chain`` the point of the soldier that must or may continue (``-1``:
    none); ``removals`` the sides still to remove one of their own pieces;
    ``resume`` the side to move after them; ``off`` per side the pieces
    captured, exchanged and removed; ``hajeb`` the H'ajeb declaration
    (:mod:`.hajeb`): 0 none, 1 in force, 2 ended with removals owed.
    """

    attacker: int
    defender: int
    side: int
    setting: bool
    chain: int
    turn: int
    exchange: Exchange | None = None
    no_progress: int = 0
    removals: tuple[int, ...] = ()
    resume: int = -1
    turn_captured: bool = False
    off: Off = NO_OFF
    outcome: Outcome | None = None
    hajeb: int = 0

    @property
    def placed(self) -> int:
        """Pieces on the board, both sides."""
        return self.attacker.bit_count() + self.defender.bit_count()
