"""What a game's actions do not hold, and a restart must not lose.

The record holds the actions played; the players also see an exchange
flag raised, a draw offered, the computer's action lit for them to make,
and the squares an undo asks them to put back.  :class:`Unrecorded` is
that state as a value: :attr:`Reconciler.pending` gives it, the service
keeps it beside the game, and :meth:`Reconciler.restore` takes it back
after a restart, so the board goes on as the players left it.
:class:`Table` is the state machine's own memory of it, and of what the
players asked for that waits for the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Table", "Undone", "Unrecorded"]


@dataclass(frozen=True, slots=True)
class Undone:
    """An undo whose board was not yet put back: the reading it left
    stale (an occupancy bitboard: shown again, it is no move) and the
    squares the undo changed (told as taken back by undo)."""

    board: int
    squares: int


@dataclass(frozen=True, slots=True)
class Unrecorded:
    """What the game's actions do not hold (nothing, by default)."""

    flags: tuple[bool, bool] = (False, False)  # exchange flags raised, per side
    draw: int | None = None  # the side offering a draw (0 the Attacker, 1 the Defender)
    expected: str | None = None  # the computer's action lit, to be made on the board
    undone: Undone | None = None  # an undo's board still to be put back


@dataclass(slots=True)
class Table:
    """What the players asked for with the buttons and the service, as the
    reconciler keeps it."""

    flag_presses: list[int] = field(default_factory=list)  # awaiting a settle
    hajeb_presses: list[int] = field(default_factory=list)  # awaiting a settle
    draw_offer: int | None = None  # the side offering
    hint: int = 0  # squares lit until the board changes
    setup: bool = False  # a leap game's soldiers being set up, until the board first fits
    resumed: bool = False  # a game resumed, until the board first shows it: no takeback
    undone: Undone | None = None  # an undo not put back: till the board is, or a move is made
