"""What the reconciler reports after each event (:class:`Update`), and
what it gathers for the next one (:class:`Report`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from controller.board.leds import LedMap
from controller.rules import AnyGame

__all__ = ["REPORTED", "Report", "Update"]


@dataclass
class Update:
    """What changed after one event."""

    t: float
    status: str
    leds: LedMap
    played: list[str] = field(default_factory=list)
    undone: int = 0
    new_game: bool = False
    hint_requested: str | None = None
    finished: list[AnyGame] = field(default_factory=list)
    """Games that ended, or had moves and were replaced by a new game."""
    saved: list[AnyGame] = field(default_factory=list)
    """Unfinished games put aside (the board cleared): set up again, they resume."""
    dropped: list[AnyGame] = field(default_factory=list)
    """Games without a move replaced by another (a new game, or a game
    resumed): nothing to keep but their place in the archive."""
    resumed: AnyGame | None = None
    """A game put aside that was set up again: it is now :attr:`Reconciler.game`."""
    refused: str | None = None
    """Why a press of the ``hajeb`` or ``exchange`` button (or
    :meth:`Reconciler.hajeb`) changed nothing, in words."""


@dataclass(slots=True)
class Report:
    """What happened since the last :class:`Update`."""

    played: list[str] = field(default_factory=list)
    undone: int = 0
    new_game: bool = False
    finished: list[AnyGame] = field(default_factory=list)
    saved: list[AnyGame] = field(default_factory=list)
    dropped: list[AnyGame] = field(default_factory=list)
    resumed: AnyGame | None = None
    refused: str | None = None

    def progress(self) -> tuple[int, int, int, AnyGame | None]:
        """What changed the game so far (played, undone, finished, resumed):
        two that differ say an action was read in between."""
        return len(self.played), self.undone, len(self.finished), self.resumed


# The fields a Report hands on to its Update, each by the same name
# (Reconciler._finish_update copies them; a test holds Update to have each).
REPORTED = tuple(f.name for f in fields(Report))
