"""Opening the game archive, ``DATA_DIR/games.sqlite3``.

The board opens it to write (WAL, full sync), the ``games`` commands only
to read: they never change the file, read a copy on a read-only medium
(a backup stick) and refuse a SQLite file of another program.  A file that
cannot be used is told in one line (:class:`ArchiveError`) naming it, the
cause in words and what to do; nothing is ever moved aside by itself.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from controller.board import words

__all__ = ["BUSY_MS", "ArchiveError", "NoArchive", "archive_errors", "make_data_dir",
           "open_read_only",
           "open_writable", "optional_text", "ro_uri", "seconds_value", "text_value"]

# The columns of our tables since the first archive (``settings`` came
# later and is added on opening to write).
OURS = {
    "games": {"id", "variant", "options", "start", "attacker", "defender", "created",
              "finished", "result", "termination", "record"},
    "actions": {"game_id", "ply", "token", "t"},
    "sensor": {"game_id", "seq", "line"},
}
MOVE_ASIDE = "move it aside to start a new archive"
# How long (ms) a write of the board waits for another program's lock on
# the archive before it fails (and is tried again a second later): the
# board's loop writes, and SQLite's own 5 s would freeze its LEDs and page.
BUSY_MS = 50
WRITABLE = "the board records every move there; give a writable data directory (--data-dir)"


class ArchiveError(ValueError):
    """The archive file cannot be used: the message names it and what to do."""


class NoArchive(ArchiveError):
    """No games recorded yet: the folder has no archive, or an empty file
    (what the board starts an archive in)."""


def make_data_dir(data_dir: Path) -> None:
    """Make the data directory (and its parents) if it is not there; an
    :class:`ArchiveError` saying why it cannot be."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = words.os_reason(exc)
        if data_dir.is_symlink() and not data_dir.exists():  # a link to nowhere, or a loop
            why = f"a link to {data_dir.readlink()}, which leads to no folder"
        raise ArchiveError(f"cannot make the data directory {data_dir} ({why}): "
                           f"{WRITABLE}") from None


def ro_uri(path: Path, *, immutable: bool = False) -> str:
    """The SQLite URI that opens ``path`` read-only (any character in
    the path, ``?`` and ``#`` too)."""
    return f"file:{quote(str(path.resolve()))}?" + ("immutable=1" if immutable else "mode=ro")


def open_writable(path: Path, schema: str) -> sqlite3.Connection:
    """The board's connection to ``path``: WAL, every commit synced, our
    tables created; a file of another program, a damaged one or one that
    cannot be written is refused (:class:`ArchiveError`)."""
    if path.is_dir():
        raise ArchiveError(f"{path} is a directory, not the archive: {MOVE_ASIDE}")
    why = _unwritable(path)
    if why:
        raise ArchiveError(f"{path} cannot be written ({why}): {WRITABLE}")
    with archive_errors(path):
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            if _tables(db):  # an empty file is a new archive
                _check_ours(db, path, whole=False, what_to_do=f"{MOVE_ASIDE} or give another "
                            "data directory (--data-dir)")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(schema)
            if "settings" not in columns(db, "games"):  # archives from before settings
                db.execute("ALTER TABLE games ADD COLUMN settings TEXT")
            # Opened (waiting up to 5 s, as SQLite does): the board's writes wait less.
            db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        except BaseException:
            db.close()
            raise
    return db


def open_read_only(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """A connection that only reads ``path``, and a note to tell when a
    read-only medium hides the archive's last changes.  No archive or an
    empty one is :class:`NoArchive`; another program's file, a damaged or
    unreadable one :class:`ArchiveError`."""
    try:
        if path.is_symlink() and not path.exists():  # a link to nothing, or to itself
            raise ArchiveError(f"{path} is a link to no file ({os.readlink(path)})")
        if not path.exists():
            raise NoArchive(f"no games recorded yet in {path.parent} (no {path.name} there)")
        if path.is_dir():
            raise ArchiveError(f"{path} is a directory, not a kharbga-board archive")
        if not path.is_file():  # a pipe would wait for a writer for good
            raise ArchiveError(f"{path} is not a file (a pipe or a device), not a "
                               "kharbga-board archive")
        path.open("rb").close()  # readable: SQLite's own error would not say why not
    except OSError as exc:  # a folder or file this user may not read
        why = words.os_reason(exc)
        raise ArchiveError(f"{path} cannot be read ({why}): read it as the user the board "
                           "runs as, or with sudo") from None
    note = None
    with archive_errors(path):
        db = sqlite3.connect(ro_uri(path), uri=True, check_same_thread=False)
        try:
            tables = _tables(db)
        except sqlite3.OperationalError as exc:
            # A WAL archive on a read-only medium, or in a folder this user
            # may not write (the board's, read by another user while the
            # board is stopped): SQLite cannot make the shared-memory file
            # it reads the WAL with.  Nothing writes there for this user,
            # so the main file is read as it is.
            db.close()
            cannot = exc.sqlite_errorname in ("SQLITE_CANTOPEN", "SQLITE_READONLY_DIRECTORY")
            if not cannot or os.access(path.parent, os.W_OK):
                raise
            db = sqlite3.connect(ro_uri(path, immutable=True), uri=True, check_same_thread=False)
            tables = _tables(db)
            wal = path.with_name(path.name + "-wal")
            if wal.exists() and wal.stat().st_size > 0:
                note = (f"{wal} holds the archive's last changes, which cannot be read where "
                        f"nothing can be written: they are left out (copy {path.parent} to a "
                        "writable place to see them)")
        try:
            if not tables:
                raise NoArchive(f"no games recorded yet in {path.parent} ({path} is empty)")
            _check_ours(db, path, whole=True, what_to_do="")
        except BaseException:
            db.close()
            raise
    return db, note


@contextmanager
def archive_errors(path: Path) -> Iterator[None]:
    """SQLite's errors about the file ``path`` itself (damaged, not a
    database, cannot be opened or written) as :class:`ArchiveError`."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        problem = _problem(path, exc)
        if problem is None:
            raise
        raise ArchiveError(problem) from exc


def columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")}


def reopen(db: sqlite3.Connection, gid: int) -> None:
    """Game `gid` unfinished again: the move that ended it was taken back,
    so its result, termination and record are not the game's."""
    db.execute("UPDATE games SET finished=NULL, result='*', termination=NULL, record=NULL "
               "WHERE id=?", (gid,))


def _tables(db: sqlite3.Connection) -> set[str]:
    return {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _check_ours(db: sqlite3.Connection, path: Path, *, whole: bool, what_to_do: str) -> None:
    """Refuse a file whose tables are not ours: every one of ours that it
    has must have our columns, and it must have the games table (and, to
    be read, all of them)."""
    tables = _tables(db)
    for table, ours in OURS.items():
        if table in tables:
            fits = ours <= columns(db, table)
        else:  # the board creates those it lacks, but not the games table, nor
            # the moves or the sensor log of games it has (they would be lost)
            fits = (not whole and table != "games" and "games" in tables
                    and db.execute("SELECT 1 FROM games LIMIT 1").fetchone() is None)
        if not fits:
            raise ArchiveError(f"{path} is not a kharbga-board archive (no {table} table of "
                               "ours)" + (f": {what_to_do}" if what_to_do else ""))


def _problem(path: Path, exc: sqlite3.DatabaseError) -> str | None:
    """The words for an error of SQLite about the file (None: another error)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    said = words.said(exc)
    if name.startswith("SQLITE_CORRUPT"):
        return (f"{path} is damaged ({said}): {MOVE_ASIDE}; its games may be recovered "
                "with sqlite3's .recover")
    if name == "SQLITE_FULL":
        return (f"{path} cannot be written (the disk is full): the board records every move "
                "there; free some space or give another data directory (--data-dir)")
    if name.startswith("SQLITE_IOERR"):  # a failing card, a file size limit, a quota
        return (f"{path} cannot be written (a disk I/O error: {name}): the board records "
                "every move there; check the disk or card, and the limits on file size "
                "(ulimit -f) and disk quota, or give another data directory (--data-dir)")
    if name == "SQLITE_NOTADB":
        return f"{path} is damaged or not a SQLite file ({said}): {MOVE_ASIDE}"
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
        if path.is_dir():
            return f"{path} is a directory, not the archive: {MOVE_ASIDE}"
        why = _unwritable(path)
        if why:
            return f"{path} cannot be written ({why}): {WRITABLE}"
        return f"{path} cannot be opened ({said})"
    return None


def _unwritable(path: Path) -> str | None:
    """Why the archive ``path`` cannot be written, if it cannot: SQLite
    writes the file and, beside it, its WAL and shared-memory files."""
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"{folder} is on a read-only file system"
    except OSError:
        return None  # no folder: creating it tells why
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to write in {folder}"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return "no permission to write it"
    return None


def text_value(value: object) -> str:
    """A text column's value as text: the archive edited by hand may hold
    bytes (invalid UTF-8 replaced) or a number there."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


def optional_text(value: object) -> str | None:
    """:func:`text_value` of a column that may be NULL."""
    return None if value is None else text_value(value)


def seconds_value(value: object) -> float:
    """A time column's value in seconds; NaN, a time unknown (shown as
    such), for one that is not a finite number (the archive edited by
    hand)."""
    try:
        seconds = float(value) if isinstance(value, int | float | str) else math.nan
    except ValueError:
        return math.nan
    return seconds if math.isfinite(seconds) else math.nan
