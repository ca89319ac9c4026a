"""The simulated board's sensors, and the refusals of the service's requests.

The simulated board keeps its pieces in the store, so a restart finds them
where they stood. It also counts the times the service set it up itself (a
new game that starts with its soldiers standing): the page sends the count
a click was made on, and a click made before the latest set-up is refused
instead of putting the earlier board back over the new game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from controller.board.words import place
from controller.rules import AnyGame

from .store import Store

log = logging.getLogger("kharbga.service")


class RequestError(ValueError):
    """A request the service refuses; the message says why (HTTP 400)."""

    status = 400


class StaleRequest(RequestError):
    """A request made on a state that has changed since (HTTP 409)."""

    status = 409


def check_board(board: str | None, game: AnyGame) -> None:
    """Refuse a new game of another board than a real ``board`` (its
    switches and LEDs are wired for one board; None: the simulated board,
    which plays every board)."""
    if board is not None and game.geometry.name != board:
        raise RequestError(
            f"this board is the {board} board; {game.variant.name} is played on the "
            f"{game.geometry.name} board")


def fits(board: str | None, gid: int, game: AnyGame) -> bool:
    """Can game ``gid`` be resumed on a real ``board`` (None: the simulated
    board, which plays every board)?  A game that cannot is logged."""
    if board is None or game.geometry.name == board:
        return True
    log.info("game %d (%s, on the %s board) is kept unfinished: this board is the %s board",
             gid, game.variant.name, game.geometry.name, board)
    return False


def occupancy(game: AnyGame) -> str:
    """``game``'s pieces as sensor readings, one 0 or 1 a point."""
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> i & 1 else "0" for i in range(game.geometry.size))


class SimBoard:
    """The simulated board: its readings (``occ``) and set-up count."""

    def __init__(self, store: Store, game: AnyGame,
                 later: Callable[[Callable[[], object]], None]) -> None:
        """The board kept in ``store`` (or ``game``'s pieces); ``later``
        does the writes of a board set up anew (:meth:`Keeper.later`: an
        archive that cannot be written is said and retried, not raised)."""
        self.store = store
        stored = store.get_value("sim_occ", instead="ignored (the simulated board shows "
                                 "the game)")
        size = game.geometry.size
        valid = isinstance(stored, str) and len(stored) == size and not stored.strip("01")
        self.occ: str = stored if valid and isinstance(stored, str) else occupancy(game)
        setup = store.get_value("sim_setup", instead="ignored (counted from 0)")
        self.setup: int = setup if type(setup) is int else 0
        self._later = later
        self._saved = (self.occ if valid else None, self.setup if type(setup) is int else None)
        self._held = False  # a save among the writes held back (the archive locked)
        if stored is not None and not valid:  # the board set up anew (another board)
            self.setup += 1
            later(self.save)

    def set(self, occ: object, setup: object, board: str) -> str:
        """A reading of the whole board, ``occ``, made on set-up ``setup``
        (None: not said). Refuses a malformed one and one made before the
        latest set-up; returns the readings kept."""
        self._check_setup(setup)
        size = len(self.occ)
        if not isinstance(occ, str) or len(occ) != size or occ.strip("01"):
            raise RequestError(f"'occ' must be a string of {size} characters 0 or 1 "
                               f"(one a {place(board)} of the {board} board)")
        return self._keep(occ)

    def set_point(self, point: object, occupied: object, setup: object,
                  names: Sequence[str], board: str) -> str:
        """A click: a piece set down on (``occupied`` true) or lifted from
        ``point``, the rest of the board as it is now (two pages clicking
        at once lose nothing). Refuses as :meth:`set` does."""
        self._check_setup(setup)
        if not isinstance(point, str) or point not in names:
            raise RequestError(f"'point' must be a {place(board)} of the {board} board (as a1)")
        if type(occupied) is not bool:
            raise RequestError("'occupied' must be true (a piece set down) or false (lifted)")
        i = names.index(point)
        return self._keep(self.occ[:i] + ("1" if occupied else "0") + self.occ[i + 1:])

    def _check_setup(self, setup: object) -> None:
        if setup is not None and (type(setup) is not int or setup < 0):
            raise RequestError("'setup' must be the state's sim_setup (a whole number)")
        if setup is not None and setup != self.setup:
            raise StaleRequest("the simulated board was set up again (a new game) after that "
                               "click was made: nothing was changed; it now shows the new game")

    def _keep(self, occ: str) -> str:
        """The readings ``occ`` kept: written now or, while the archive
        cannot be written, among the writes held back (and in the journal
        beside the moves, so a crash then finds the pieces where they stood
        when the last move was kept)."""
        self.occ = occ
        if not self._held:  # one save held back writes the pieces as they are then
            self._held = True
            self._later(self.save)
        return occ

    def set_up(self, game: AnyGame) -> None:
        """The service stands ``game``'s pieces on the board (a new game);
        :meth:`save` keeps them."""
        self.occ = occupancy(game)
        self.setup += 1

    def save(self) -> None:
        """Write the readings and the set-up count, those changed since
        they were last written, to the store (raises as the store does: the
        service's writes retry it in order)."""
        if self._saved[0] != self.occ:
            self.store.set_value("sim_occ", self.occ)
            self._saved = (self.occ, self._saved[1])
        if self._saved[1] != self.setup:
            self.store.set_value("sim_setup", self.setup)
            self._saved = (self._saved[0], self.setup)
        self._held = False

    def values(self) -> dict[str, object]:
        """What :meth:`save` writes, as the store's values (the journal's)."""
        return {"sim_occ": self.occ, "sim_setup": self.setup}
