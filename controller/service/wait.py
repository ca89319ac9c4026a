"""A new game's wait for the board cleared (or set up as its start).

A game started with soldiers standing off its start (New game pressed in
the middle of a game, a restart after a finished game) reads no moves
until the board is cleared or set up as its start: the soldiers taken off
one by one are not its first turns.  A game put aside in its moving phase
and set up again on the board also ends the wait: that game is resumed.

The board as it stood when the wait began is not "set up again": New game
pressed with a game's soldiers standing leaves that game showing, and a
board that reads it again (a camera's once-a-second reading, a restart's
first reading) would otherwise resume it at once.  That reading ends the
wait as a game put aside only once the board has shown something else
(a soldier lifted, and put back); a reading with squares it cannot tell
(``?``: a hand over the board, a glare) shows nothing else, resumes no
game put aside, and is no cleared board either (the last soldier under
the hand reaching for it would be read as the new game's first move).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules import AnyGame

from .boardview import off_start, wait_over

_FIRST = -1  # the reading held is the first one to come (after a restart)


class ClearWait:
    """Whether a new game waits, and the reading that does not end it."""

    def __init__(self) -> None:
        self.on = False
        self._held: int | None = None

    def start(self, g: AnyGame, occupied: int) -> bool:
        """A new game ``g`` begins with the board reading ``occupied``: it
        waits if soldiers stand off its start (returned)."""
        self.on = bool(off_start(g, occupied))
        self._held = occupied if self.on else None
        return self.on

    def resume(self, on: bool, *, held: bool) -> None:
        """After a restart: the game waits (``on``); ``held``: it waited
        before the restart, so the board's first reading (unchanged since
        New game was pressed) does not resume a game put aside."""
        self.on = on
        self._held = _FIRST if on and held else None

    def end(self) -> None:
        self.on = False
        self._held = None

    def over(self, g: AnyGame, saved: Sequence[AnyGame], occupied: int,
             unknown: int = 0) -> bool:
        """Does the reading ``occupied`` (``unknown``: its squares read
        ``?``) end the wait (and so it ends)?"""
        if unknown:  # not the board as it stands: not changed, cleared nor set up
            return False
        if self._held == _FIRST:
            self._held = occupied
        elif occupied != self._held:
            self._held = None
        done = wait_over(g, tuple(saved) if occupied != self._held else (), occupied)
        if done:
            self.end()
        return done
