"""The moves the archive cannot take yet, kept on disk beside it.

While the archive's writes fail (:class:`~controller.service.keeper.Keeper`:
another program holding its lock, a read-only file), what the keeper holds
back in memory is written to ``DATA_DIR/journal.json`` too, a small file of
its own that no lock on the archive reaches: after each failed write, a
snapshot of the games the held-back writes change (each game's start, a
new game's time of starting, its players and settings when they change,
its actions with their times, whether it ended) and of the small values
they set (the game a restart goes on with, what its actions do not hold,
a new game's wait, the simulated board's pieces).  It
replaces the file whole (written beside it, synced, renamed over it, the
folder synced), so the file is always one whole snapshot, and it is
written before the state showing the move is published.  Once the archive
takes every write the journal is removed; while a journal is on disk, it
is written before the archive, so it never holds less than the archive.
The raw sensor log is not journaled (a lost tail of it costs no move).

On start, :func:`recover` writes a journal left behind (the service killed
before the archive let it write) into the archive, in one transaction, and
removes it: each game is made as the journal has it (its row written if
the archive lacks it, its actions made the journal's), but a game the
archive has finished is left as it is (unless the journal has it
unfinished with moves the archive lacks, made after its end was taken
back), so a journal the archive already holds changes nothing.  One that
cannot be read, is not of this program's making, or does not fit the
archive (a game that does not replay, or that is another game there) is
renamed aside and said in one line; the archive is left as it was."""

from __future__ import annotations

import inspect
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from typing import cast

from controller.board.words import is_hidden, said
from controller.hall.protocol import Unreplayable, action_tokens, apply_token, stored_start
from controller.rules import AnyGame
from controller.rules.leap_factory import format_any_options

from .archive import BUSY_MS, ArchiveError, reopen
from .simboard import SimBoard
from .store import CURRENT, Store, common_length

__all__ = ["NAME", "Current", "Journal", "recover"]

LATEST = 95_617_584_000  # 5000-01-01, in seconds since 1970
log = logging.getLogger("kharbga.store")

NAME = "journal.json"
FORMAT = 1  # the journal's "journal" field: the layout below
WAIT_MS = 5000  # how long the start waits for another program's lock to write a journal

# The game being played as the keeper last wrote it: its id, the game, and
# what its actions do not hold (the store's key and value).
Current = tuple[int, AnyGame, tuple[str, object]]
Entry = dict[str, object]


class JournalError(ValueError):
    """A journal that cannot be used: the message says why."""


class Journal:
    """``DATA_DIR/journal.json``: what is held back, written as it changes."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / NAME
        self.live = self.path.exists()  # on disk: written before the archive, then removed
        self._text = ""  # the snapshot last written

    def write(self, steps: Sequence[Callable[[], object]], current: Current | None,
              played: Callable[[int, Sequence[str]], list[float]],
              tokens: Sequence[str] | None = None) -> None:
        """Write the snapshot of the writes held back (``steps``, in order)
        and, after them, of the ``current`` game (its action ``tokens``
        when the caller has them), each game's actions with the time each
        was ``played`` (:meth:`Store.played`); ``OSError`` when it cannot
        be (the file left as it was)."""
        games, values = snapshot(steps, current, tokens)
        for entry in games:
            actions = entry.get("actions")
            if isinstance(actions, list):
                entry["times"] = played(int(str(entry["id"])), actions)
        text = json.dumps({"journal": FORMAT, "games": games, "values": values},
                          separators=(",", ":"))
        if self.live and text == self._text:
            return
        tmp = self.path.with_name(NAME + ".tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except OSError:
            with suppress(OSError):
                tmp.unlink()
            raise
        self.live = True
        _sync_folder(self.path.parent)
        self._text = text

    def remove(self) -> None:
        """Everything is in the archive: the journal goes (``OSError`` if
        it cannot: it stays live, written before the archive)."""
        self.path.unlink(missing_ok=True)
        _sync_folder(self.path.parent)
        self.live, self._text = False, ""


def snapshot(steps: Sequence[Callable[[], object]], current: Current | None,
             tokens: Sequence[str] | None = None) -> tuple[list[Entry], dict[str, object]]:
    """The games and values the held-back ``steps`` write, then the
    ``current`` game's actions (``tokens``, when the caller has them: not
    computed again, for a step of the same game either) and its pending
    value (JSON)."""
    games: dict[int, Entry] = {}
    values: dict[str, object] = {}
    known = (current[1], list(tokens)) if current is not None and tokens is not None else None
    for step in steps:
        _fold(step, games, values, known)
    if current is not None:
        gid, game, (key, value) = current
        entry = _entry(games, gid, game, known)
        if game.outcome is not None:
            entry["finished"] = True  # the keeper finishes a game over
        values[key] = value
    return list(games.values()), values


# A game and its action tokens, computed once by the caller.
Known = tuple[AnyGame, list[str]] | None


def _entry(games: dict[int, Entry], gid: int, game: AnyGame | None = None,
           known: Known = None) -> Entry:
    entry = games.setdefault(gid, {"id": gid})
    if game is not None:
        actions = list(known[1]) if known is not None and known[0] is game \
            else action_tokens(game)
        entry.update(variant=game.variant.name, options=format_any_options(game.variant),
                     start=game.start_position, actions=actions)
    return entry


def _fold(step: Callable[[], object], games: dict[int, Entry], values: dict[str, object],
          known: Known = None) -> None:
    """What ``step``, a write of the store held back, changes, into
    ``games`` and ``values`` (``known``: a game's tokens already
    computed).  The simulated board's save gives its pieces as they are
    now; a write of another kind (the raw sensor lines) is left out."""
    sim = getattr(step, "__self__", None)
    if isinstance(sim, SimBoard) and getattr(step, "__name__", "") == "save":
        values.update(sim.values())
        return
    if not isinstance(step, partial):
        return
    store = getattr(step.func, "__self__", None)
    if not isinstance(store, Store):
        return
    name = str(getattr(step.func, "__name__", ""))
    if name not in ("set_value", "new_game", "sync", "finish", "rename", "keep_settings"):
        return
    try:
        bound = inspect.signature(step.func).bind(*step.args, **step.keywords)
    except (TypeError, ValueError):
        return
    bound.apply_defaults()
    p = bound.arguments
    gid = p.get("gid")
    if name == "set_value":
        values[str(p["key"])] = p["value"]
        return
    if not isinstance(gid, int):
        return
    game = p.get("game")
    entry = _entry(games, gid, game if name in ("new_game", "sync", "finish") else None, known)
    if name in ("new_game", "rename"):
        entry.update(attacker=p["attacker"], defender=p["defender"])
    if p.get("settings") is not None:
        entry["settings"] = p["settings"]
    if name == "finish":
        entry["finished"] = True
    if name == "new_game":
        values[CURRENT] = gid
        created = store.reserved.get(gid)
        if created is not None:  # when New game was pressed, however late it is written
            entry["created"] = created
    value = p.get("value")
    if isinstance(value, tuple) and len(value) == 2:
        values[str(value[0])] = value[1]


def recover(store: Store) -> None:
    """Write a journal left in the archive's folder into ``store``, in one
    transaction, and remove it; one that cannot be used is renamed aside
    (said in one line).  :class:`ArchiveError` when the archive cannot be
    written now (the journal kept, for the next start)."""
    path = store.path.parent / NAME
    with suppress(OSError):
        path.with_name(NAME + ".tmp").unlink(missing_ok=True)  # never renamed: not the journal
    if not path.exists():
        return
    try:
        games, values = _read(path)
        with _waiting(store.db), store.db:
            store.db.execute("BEGIN IMMEDIATE")
            written = {int(str(g["id"])): _apply(store, g) for g in games}
            for key, value in values.items():
                store.db.execute("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)",
                                 (key, json.dumps(value)))
    except JournalError as exc:
        _aside(path, str(exc))
        return
    except (sqlite3.Error, OSError) as exc:
        why = said(exc) or type(exc).__name__
        guess = ("another program holding the archive?" if "locked" in why
                 else "a full disk? a read-only card?")
        raise ArchiveError(f"{path} holds moves not yet in {store.path}, which cannot be "
                           f"written ({why}: {guess}): start again once it can be; the "
                           "journal is kept until then") from None
    for gid in written:
        store.taken(gid)
    done = ", ".join(f"game {gid}: {n} action{'s' * (n != 1)}"
                     for gid, n in written.items() if n)
    log.info("%s: written to the archive (%s)", path, done or "it had them already")
    try:
        path.unlink()
        _sync_folder(path.parent)
    except OSError as exc:
        log.warning("%s cannot be removed (%s): it is written anew before the archive "
                    "until it can be", path, said(exc))


def _read(path: Path) -> tuple[list[Entry], dict[str, object]]:
    """The journal's games and values, checked; :class:`JournalError`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # unreadable, not UTF-8, not JSON
        raise JournalError(f"cannot be read: {said(exc) or type(exc).__name__}") from None
    except RecursionError:  # lists in lists beyond what the reader follows
        raise JournalError("cannot be read: nested too deeply") from None
    if not isinstance(data, dict) or data.get("journal") != FORMAT \
            or not isinstance(data.get("games"), list) or not isinstance(data.get("values"), dict):
        raise JournalError("not a journal of this program")
    games: list[Entry] = data["games"]
    for g in games:
        if not _valid(g):
            raise JournalError(f"not a journal of this program (game {str(g)[:60]})")
    return games, data["values"]


ID_MAX = 2**53  # far beyond any archive's games; SQLite's own limit is 2**63 - 1


def _valid(g: object) -> bool:
    # An id the archive gives (from 1 up): one near SQLite's limit left no id
    # for the next game, and every later game went unrecorded.
    if not isinstance(g, dict) or type(g.get("id")) is not int or not 0 < g["id"] < ID_MAX:
        return False
    kinds: dict[str, tuple[type, ...]] = {
        "variant": (str,), "options": (str,), "start": (str, type(None)), "actions": (list,),
        "times": (list,), "attacker": (str,), "defender": (str,), "settings": (dict,),
        "finished": (bool,)}
    if any(k in g and not isinstance(g[k], t) for k, t in kinds.items()):
        return False
    if "created" in g and not _a_time(g["created"]):
        return False
    if any(k in g and _forged(g[k]) for k in ("attacker", "defender")):
        return False  # a name no board writes: not its journal
    actions, times = g.get("actions"), g.get("times", [])
    if actions is None:
        return True
    return ("variant" in g and all(isinstance(a, str) for a in actions)
            and ("times" not in g or len(times) == len(actions))
            and all(_a_time(t) for t in times))


def _forged(name: str) -> bool:
    """A player's name no board writes: over 200 characters (the page
    takes 40, an archive of an earlier version 80), or holding a line break,
    a NUL or another hidden character (the record's tags would break)."""
    return len(name) > 200 or any(is_hidden(c) for c in name)


def _a_time(t: object) -> bool:
    """A time the journal may hold: seconds since 1970, before the year
    5000 (a wall clock's time, as the board writes them)."""
    return isinstance(t, (int, float)) and type(t) is not bool and 0 <= t < LATEST


def _apply(store: Store, g: Entry) -> int:
    """Make game ``g`` of the journal so in the archive (in the transaction
    under way): the number of actions written."""
    db, gid = store.db, int(str(g["id"]))
    row = db.execute("SELECT variant, options, start, finished FROM games WHERE id=?",
                     (gid,)).fetchone()
    actions = g.get("actions")
    if row is not None and row[3] is not None:
        stored = [r[0] for r in db.execute(
            "SELECT token FROM actions WHERE game_id=? ORDER BY ply", (gid,))]
        if g.get("finished") or not isinstance(actions, list) \
                or common_length(stored, actions) == len(actions):
            return 0  # finished in the archive (since, or as the journal has it): as it is
        # Moves the archive lacks, made after its end was taken back (Undo
        # after the move that ended it): unfinished again.
        reopen(db, gid)
    if not isinstance(actions, list):  # the players' names alone
        if row is not None:
            _rename(db, gid, g)
        return 0
    start = (str(g["variant"]), str(g.get("options", "")), cast("str | None", g.get("start")))
    try:
        game = stored_start(*start)
        for token in actions:
            apply_token(game, token)
    except Unreplayable as exc:
        raise JournalError(f"game {gid} does not replay ({exc})") from None
    times = [float(t) for t in cast("list[float]", g.get("times", []))]
    if row is None:
        db.execute("INSERT INTO games (id, variant, options, start, attacker, defender, created, "
                   "settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (gid, *start, g.get("attacker", "Attacker"), g.get("defender", "Defender"),
                    g.get("created", times[0] if times else time.time()),
                    json.dumps(g.get("settings", {}))))
    elif (row[0], row[1] or "", row[2]) != start:
        raise JournalError(f"game {gid} is another game in the archive ({row[0]})")
    else:
        _rename(db, gid, g)
    stored = [r[0] for r in db.execute(
        "SELECT token FROM actions WHERE game_id=? ORDER BY ply", (gid,))]
    common = common_length(stored, actions)
    if common < len(stored) or common < len(actions):
        db.execute("DELETE FROM actions WHERE game_id=? AND ply>=?", (gid, common))
        db.executemany("INSERT INTO actions (game_id, ply, token, t) VALUES (?, ?, ?, ?)",
                       [(gid, i, actions[i], times[i] if times else time.time())
                        for i in range(common, len(actions))])
    if g.get("finished"):
        outcome = game.outcome
        db.execute("UPDATE games SET finished=?, result=?, termination=?, record=? WHERE id=?",
                   (time.time(), outcome.result if outcome else "*",
                    outcome.reason if outcome else "abandoned", store.record_text(gid, game),
                    gid))
    return len(actions) - common


def _rename(db: sqlite3.Connection, gid: int, g: Entry) -> None:
    if "attacker" in g and "defender" in g:
        db.execute("UPDATE games SET attacker=?, defender=? WHERE id=?",
                   (g["attacker"], g["defender"], gid))
    if "settings" in g:
        db.execute("UPDATE games SET settings=? WHERE id=?", (json.dumps(g["settings"]), gid))


def _aside(path: Path, why: str) -> None:
    """Rename the journal that cannot be used out of the way, said in one line."""
    n = 1
    while (aside := path.with_name(f"{NAME}.bad{n if n > 1 else ''}")).exists():
        n += 1
    try:
        path.rename(aside)
    except OSError as exc:
        log.warning("%s is not used (%s) and cannot be moved aside (%s): the archive is as it "
                    "was", path, why, said(exc))
        return
    log.warning("%s is not used (%s): kept aside as %s; the archive is as it was",
                path, why, aside)


@contextmanager
def _waiting(db: sqlite3.Connection) -> Iterator[None]:
    """The start waits for another program's lock as SQLite's opening does."""
    db.execute(f"PRAGMA busy_timeout={WAIT_MS}")
    try:
        yield
    finally:
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")


def _sync_folder(folder: Path) -> None:
    """The folder's entries (a file renamed, removed) on disk."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
