"""Writing the game being played to the archive, come what may.

:class:`Keeper` writes the game (its actions, its end) and the sensor log
to the :class:`~controller.service.store.Store`.  A write that fails (the
disk full, the data directory read-only, the archive locked by another
program) does not stop the board: the moves stay in memory, the failure is
said in words for the page (:attr:`Keeper.problem`: the moves shown are
not saved yet, and why) and logged once, and the same write is tried again
every :data:`RETRY` seconds until it goes through, when everything held
back is written and the words go.  The other writes of a change of game
(the old game finished or put aside, the new one created under an id
known at once: :meth:`Store.reserve_id`) and of the players' names are
held back alike (:meth:`Keeper.later`), in order, before the game's own,
so a failure in the middle of a change never writes a game under
another's id (one that fails for a fault of the service's own, not of
the archive, is named in the log and dropped: it holds up no other).
Meanwhile what is held back is written to the journal beside the archive
(:mod:`.journal`), which a restart writes into the archive first: a
service killed while the archive could not be written loses no move
(unless the journal cannot be written either: the words say so).
What a game's actions do not hold (an exchange flag raised, a draw
offered, the computer's action lit, an undo's board not yet put back:
:class:`~controller.reconcile.unrecorded.Unrecorded`) is kept beside them,
written in the same transaction as the actions, so a game resumed after
a crash has them too, as they stood at its last write."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from controller.board.words import named, said
from controller.hall.protocol import action_tokens
from controller.reconcile.unrecorded import Undone, Unrecorded
from controller.rules import AnyGame

from .archive import ArchiveError
from .journal import Current, Journal, recover
from .store import CURRENT, Store, StoredGame

__all__ = ["PENDING", "RETRY", "WAITING", "Keeper"]

log = logging.getLogger("kharbga.store")

RETRY = 1.0  # seconds between attempts after a failed write
PENDING = "pending"  # the store's key for what a game's actions do not hold
WAITING = "waiting_clear"  # the store's key for the game that waits for the cleared board


class Keeper:
    """The current game's writes, with their failure in words."""

    def __init__(self, store: Store, where: str, now: Callable[[], float]) -> None:
        """Keep the games of ``store``, a journal left behind written into it
        first (:func:`~.journal.recover`; :class:`ArchiveError`, the store
        closed, when it cannot be now)."""
        try:
            recover(store)
        except ArchiveError:
            store.close()
            raise
        self.journal = Journal(store.path.parent)
        self._journal_failed = self._unremoved = False  # said once in the log
        self._current: Current | None = None  # the game as last handed to keep()
        self.store = store
        self.where = where  # the data directory, for the words
        self.now = now
        self.problem: str | None = None
        self._retry_at = 0.0
        # As last stored: the game, its number of actions, what they do not hold.
        self.pending: tuple[int, int, Unrecorded] = (0, 0, Unrecorded())
        # The game last seen finished in the store, and its actions then.
        self._finished: tuple[int, list[str]] = (0, [])
        self._backlog: list[Callable[[], object]] = []  # writes held back, in order

    def resumed_pending(self, gid: int, game: AnyGame, computer: str | None) -> Unrecorded:
        """What game ``gid`` (``game``) had pending when the service stopped
        (nothing for another game or one stored at another of its actions,
        or a value not of this program's making); the computer's action
        lit only if ``computer`` is the side to move."""
        value = self.store.get_value(PENDING, instead="ignored (no exchange flag raised, "
                                     "no draw offered, no computer's move lit)")
        pending = _unrecorded(value, gid, len(game.history))
        self.pending = (gid, len(game.history), pending)
        if computer != game.to_move or game.outcome is not None:
            pending = replace(pending, expected=None)
        return pending

    def due(self) -> bool:
        """Is a failed write to be tried again now?"""
        return self.problem is not None and self.now() >= self._retry_at

    def later(self, *steps: Callable[[], object]) -> None:
        """Writes to the store, done in order: now, or once the archive
        can be written again (after those held back before them)."""
        self._backlog.extend(steps)
        if self.journal.live:  # the journal first, as in keep()
            self._journal()
        self._drain()

    def resumed(self, gid: int) -> None:
        """Game ``gid``, put aside, is played again: the one a restart
        resumes (a game started later stays put aside)."""
        self.later(partial(self.store.set_value, CURRENT, gid))

    def new_game(self, game: AnyGame, attacker: str, defender: str,
                 settings: dict[str, object], waiting: bool | None = False) -> int:
        """A new game's id, its row written now or once it can be, with
        whether it ``waiting`` for the board cleared (None: if it is not the
        archive's first game, whose soldiers may still stand) in the same
        transaction: a crash never leaves the game without its wait."""
        gid = self.store.reserve_id()
        wait = gid > 1 if waiting is None else waiting
        self.later(partial(self.store.new_game, game, attacker, defender, settings, gid,
                           (WAITING, gid if wait else None)))
        return gid

    def _drain(self, tokens: list[str] | None = None) -> bool:
        """Do the writes held back, in order, until one fails on the
        archive (kept, to be tried again; the journal written with the
        current game's ``tokens`` when the caller has them).  One that
        fails for another reason, a fault of the service's own, would fail
        alike at every try and hold up every write after it: it is
        dropped, named in one line of the log (its traceback at debug
        level), and the rest go on."""
        while self._backlog:
            step = self._backlog[0]
            try:
                step()
            except (sqlite3.Error, OSError) as exc:
                self._failed("the archive", exc, tokens=tokens)
                return False
            except Exception as exc:
                log.error("%s: not written to %s: %s (a fault of the service, not of the "
                          "archive: dropped, the writes after it go on)", _what(step),
                          self.where, named(exc))
                log.debug("the write dropped", exc_info=exc)
            del self._backlog[0]
        return True

    def kept(self, gid: int, game: AnyGame, pending: Unrecorded) -> bool:
        """Is ``pending`` stored for game ``gid`` as it stands?"""
        return self.pending == (gid, len(game.history), pending)

    def keep(self, gid: int, game: AnyGame, lines: list[str], flush: bool,
             pending: Unrecorded) -> None:
        """Store ``game`` as game ``gid`` (finished when it is over), what
        its actions do not hold (``pending``, in the same transaction;
        :meth:`resumed_pending`) and, with ``flush``, the sensor ``lines``
        (emptied once written)."""
        ply = len(game.history)
        tokens = action_tokens(game)  # once a write: the store's sync takes them as they are
        self.store.played(gid, tokens)  # each move's time: now, as it is played
        self._current = (gid, game, (PENDING, {"game": gid, "ply": ply, **_value_of(pending)}))
        if self.journal.live:  # the journal first: it never holds less than the archive
            self._journal(tokens)
        if not self._drain(tokens):  # the game's row may be among them
            return
        try:
            value = None if self.kept(gid, game, pending) else self._current[2]
            self.store.sync(gid, game, value=value, tokens=tokens)
            self.pending = (gid, ply, pending)
            if game.outcome is not None and self._finished != (gid, tokens):
                # Once an end, not at every tick after it (an end taken back
                # by Undo and another come to: the archive has it unfinished).
                stored = self.store.get(gid)
                if stored is not None and stored.finished is None:
                    self.store.finish(gid, game)
                self._finished = (gid, tokens)
            if flush and lines:
                self.store.append_sensor(gid, lines)
                lines.clear()
        except (sqlite3.Error, OSError) as exc:
            self._failed(f"game {gid}", exc, tokens=tokens)
            return
        except Exception as exc:  # a fault of the service's: said and retried alike
            if self.problem is None:
                log.debug("the game's write failed", exc_info=exc)
            self._failed(f"game {gid}", exc, named(exc), tokens)
            return
        if self.journal.live:
            try:
                self.journal.remove()
            except OSError as exc:
                if not self._unremoved:
                    log.warning("%s cannot be removed (%s): it is written anew before the "
                                "archive until it can be", self.journal.path, said(exc))
                self._unremoved = True
        if self.problem is not None:
            log.info("game %s is written to %s again", gid, self.where)
            self.problem = None

    def stored(self, gid: int) -> StoredGame | None:
        """Game ``gid`` as the archive has it; None, said in the log, when
        the archive cannot be read."""
        try:
            return self.store.get(gid)
        except (sqlite3.Error, OSError) as exc:
            log.warning("game %s cannot be read from %s (%s): its players and settings "
                        "stay as they are", gid, self.where, said(exc))
            return None

    def _failed(self, what: str, exc: Exception, why: str = "",
                tokens: list[str] | None = None) -> None:
        """Say the failure (logged once), write the journal (with the
        current game's ``tokens`` when the caller has them) and try again
        in :data:`RETRY` seconds."""
        why = why or said(exc) or type(exc).__name__
        if self.problem is None:
            log.error("%s cannot be written to %s: %s", what, self.where, why)
        guess = ("another program holding the archive?" if "locked" in why
                 else "a full disk? a read-only card?")
        kept = (f"kept in {self.journal.path} and written to the archive" if self._journal(tokens)
                else "kept in memory and written")
        self.problem = (f"the game is not being saved ({why}): the moves shown since are "
                        f"{kept} once {self.where} can be written again ({guess})")
        self._retry_at = self.now() + RETRY

    def _journal(self, tokens: list[str] | None = None) -> bool:
        """Write what is held back to the journal (the current game's action
        ``tokens`` given by :meth:`keep`, which has them: not computed
        again): False when it cannot be (said once in the log: the moves
        are then in memory only)."""
        try:
            self.journal.write(self._backlog, self._current, self.store.played, tokens)
        except (OSError, ValueError, TypeError) as exc:  # a full disk; a value not JSON
            if not self._journal_failed:
                log.error("%s cannot be written either (%s): the moves not yet in the "
                          "archive are kept in memory only", self.journal.path, named(exc))
            self._journal_failed = True
            return False
        if self._journal_failed:
            log.info("%s is written again", self.journal.path)
        self._journal_failed = False
        return True


def _value_of(pending: Unrecorded) -> dict[str, object]:
    """``pending`` as the store keeps it (JSON)."""
    u = pending.undone
    return {"flags": list(pending.flags), "draw": pending.draw, "expected": pending.expected,
            "undone": None if u is None else {"board": u.board, "squares": u.squares}}


def _unrecorded(value: object, gid: int, ply: int) -> Unrecorded:
    """The stored :func:`_value_of` of game ``gid`` at ``ply`` actions;
    nothing for another game or ply (written before its last action), and
    nothing of a part not of this program's making."""
    if not isinstance(value, dict) or value.get("game") != gid \
            or value.get("ply", ply) != ply:  # stored before plies were kept: no ply
        return Unrecorded()
    flags, draw, expected = value.get("flags"), value.get("draw"), value.get("expected")
    if not (isinstance(flags, list) and len(flags) == 2
            and all(isinstance(f, bool) for f in flags)):
        flags = [False, False]
    if draw not in (0, 1) or isinstance(draw, bool):
        draw = None
    undone, u = None, value.get("undone")
    if isinstance(u, dict) and all(type(u.get(k)) is int and u[k] >= 0
                                   for k in ("board", "squares")):
        undone = Undone(u["board"], u["squares"])
    return Unrecorded((flags[0], flags[1]), draw,
                      expected if isinstance(expected, str) else None, undone)


# What the service's held-back writes write, in words (Keeper._drain's log).
_WRITES = {"finish": "the end", "sync": "the moves", "new_game": "the row and first moves",
           "rename": "the players' names and settings", "keep_settings": "the settings",
           "set_value": "the kept value",
           "append_sensor": "the sensor log lines", "save": "the simulated board's pieces"}


def _what(step: Callable[[], object]) -> str:
    """A held-back write in words: ``game 3: the end (finish)``."""
    func = step.func if isinstance(step, partial) else step
    name = str(getattr(func, "__name__", type(func).__name__))
    args = step.args if isinstance(step, partial) else ()
    words = _WRITES.get(name, "a write")
    gids = [a for a in args if type(a) is int]
    if name == "set_value" and args:
        words, gids = f"the kept value {args[0]!r}", []
    return (f"game {gids[0]}: " if gids else "") + f"{words} ({name})"
