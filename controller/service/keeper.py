"""Writing the game being played to the archive, come what may.

:class:`Keeper` writes the game (its actions, its end) and the sensor log
to the :class:`~controller.service.store.Store`.  A write that fails (the
disk full, the data directory read-only, the archive locked by another
program) does not stop the board: the moves stay in memory, the failure is
said in words for the page (:attr:`Keeper.problem`: the moves shown are
not saved yet, and why) and logged once, and the same write is tried again
every :data:`RETRY` seconds until it goes through, when everything held
back is written and the words go."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable

from controller.rules import AnyGame

from .store import Store

__all__ = ["RETRY", "Keeper"]

log = logging.getLogger("kharbga.store")

RETRY = 1.0  # seconds between attempts after a failed write


class Keeper:
    """The current game's writes, with their failure in words."""

    def __init__(self, store: Store, where: str, now: Callable[[], float]) -> None:
        self.store = store
        self.where = where  # the data directory, for the words
        self.now = now
        self.problem: str | None = None
        self._retry_at = 0.0

    def due(self) -> bool:
        """Is a failed write to be tried again now?"""
        return self.problem is not None and self.now() >= self._retry_at

    def keep(self, gid: int, game: AnyGame, lines: list[str], flush: bool) -> None:
        """Store ``game`` as game ``gid`` (finished when it is over) and,
        with ``flush``, the sensor ``lines`` (emptied once written)."""
        try:
            self.store.sync(gid, game)
            if game.outcome is not None:
                stored = self.store.get(gid)
                if stored is not None and stored.finished is None:
                    self.store.finish(gid, game)
            if flush and lines:
                self.store.append_sensor(gid, lines)
                lines.clear()
        except (sqlite3.Error, OSError) as exc:
            why = " ".join(str(exc).split()) or type(exc).__name__
            if self.problem is None:
                log.error("game %s cannot be written to %s: %s", gid, self.where, why)
            self.problem = (f"the game is not being saved ({why}): the moves shown since are "
                            f"kept in memory and written once {self.where} can be written "
                            "again (a full disk? a read-only card?)")
            self._retry_at = self.now() + RETRY
            return
        if self.problem is not None:
            log.info("game %s is written to %s again", gid, self.where)
            self.problem = None
