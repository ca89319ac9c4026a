"""Durable records: SQLite in WAL mode with full sync.

Every recognised action is written (and the write synced) before the LEDs
and the web page confirm it, so power lost at any instant loses no
confirmed move.  The unfinished game is resumed on start; finished games
keep their record (docs/rules.md) and a size-bounded raw sensor log.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.board.sensorlog import Header, format_event, parse_line
from controller.board.words import said
from controller.hall.protocol import Unreplayable, action_tokens, apply_token, stored_start
from controller.rules import AnyGame, AnyVariant, find_any_variant
from controller.rules.leap_factory import apply_any_options, format_any_options
from controller.rules.record import Record

from .archive import (
    BUSY_MS,
    archive_errors,
    columns,
    make_data_dir,
    open_read_only,
    open_writable,
    optional_text,
    reopen,
    ro_uri,
    seconds_value,
    text_value,
)
from .boardview import board_view
from .turns import action_labels, turn_clocks, turn_numbers

log = logging.getLogger("kharbga.store")

__all__ = ["CURRENT", "Store", "StoredGame", "common_length"]

CURRENT = "current"  # kv: the game last started or resumed (resumed after a restart)

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '',
    start TEXT,
    attacker TEXT NOT NULL,
    defender TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    result TEXT NOT NULL DEFAULT '*',
    termination TEXT,
    record TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    token TEXT NOT NULL,
    t REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS sensor (
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass(frozen=True)
class StoredGame:
    id: int
    variant: str
    options: str
    start: str | None
    attacker: str
    defender: str
    created: float
    finished: float | None
    result: str
    termination: str | None
    actions: tuple[str, ...]
    times: tuple[float, ...]
    # The game's own settings: human names, the computer's side and think time.
    settings: dict[str, object] = field(default_factory=dict)

    def rules(self) -> AnyVariant:
        """The variant the game was played with (its options applied)."""
        return apply_any_options(find_any_variant(self.variant), self.options)

    def game(self) -> AnyGame:
        """The game replayed from its stored actions (either rules family);
        :class:`Unreplayable` if these rules refuse its start or an action."""
        g = stored_start(self.variant, self.options, self.start)
        last = len(self.actions) - 1
        for i, token in enumerate(self.actions):
            if i == last and token == "pass" and self.termination in ("agreement", "barrier"):
                # Earlier versions stored an agreed draw or barrier as
                # "pass", which the rules do not play as an ending.
                token = self.termination
            apply_token(g, token)
        return g


def resumable(stored: StoredGame) -> AnyGame | None:
    """An unfinished game of the archive replayed to resume it, or None when
    its actions no longer replay under these rules (told in one line): it
    stays in the archive as stored, and the board starts without it."""
    try:
        return stored.game()
    except Unreplayable as exc:
        log.warning("game %d in the archive does not replay (%s): kept as stored, "
                    "not resumed", stored.id, said(exc))
        return None


class Store:
    """The game archive in ``data_dir/games.sqlite3``."""

    def __init__(self, data_dir: Path, sensor_log_limit: int = 200_000, *,
                 read_only: bool = False) -> None:
        """Open (or start) the archive to write; ``read_only``: open an
        existing archive only to read it, never changing the file (on a
        read-only medium too: then :attr:`note` may say what it hides)."""
        self.path = data_dir / "games.sqlite3"
        self.sensor_log_limit = sensor_log_limit
        self.note: str | None = None
        if read_only:
            self.db, self.note = open_read_only(self.path)
            self.log_db = self.db
        else:
            make_data_dir(data_dir)
            self.db = open_writable(self.path, SCHEMA)
            # The raw sensor log on a connection of its own that does not
            # sync every write (WAL, synchronous=NORMAL): frames come 100
            # times a second, and a lost tail of raw log costs no recorded move.
            self.log_db = sqlite3.connect(self.path, isolation_level=None,
                                          check_same_thread=False)
            self.log_db.execute("PRAGMA synchronous=NORMAL")
            self.log_db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        # Archives from before settings were kept, read without adding it.
        self._settings = "settings" if "settings" in columns(self.db, "games") else "NULL"
        self._local = threading.local()
        self._views: dict[int, bytes] = {}  # finished games for the viewer (final)
        self._stored: dict[int, list[str]] = {}
        # Each game's actions with the wall-clock time each was first seen
        # (:meth:`played`): the time written for it, however late the write.
        self._played: dict[int, tuple[list[str], list[float]]] = {}
        self.reserved: dict[int, float] = {}  # an id reserved, and when (the game's start)
        self.wall: Callable[[], float] = time.time
        self._sensor_seq: dict[int, int] = {}
        self._next_id = 1  # the lowest id a new game may take (reserve_id)
        if not read_only:
            with archive_errors(self.path):
                row = self.db.execute("SELECT max(id) FROM games").fetchone()
            self._next_id = int(row[0] or 0) + 1

    def close(self) -> None:
        if self.log_db is not self.db:
            self.log_db.close()
        self.db.close()

    # -- games ---------------------------------------------------------

    def reserve_id(self) -> int:
        """The id the next new game is written under, known before it is
        written (one writer to an archive: the service's lock): above every
        game of the archive and every id reserved or written since it was
        opened, so that it is known even when the archive cannot be read
        (a disk I/O error, the archive locked: the game's own write then
        says so, :meth:`Keeper.later`)."""
        try:
            row = self.db.execute("SELECT max(id) FROM games").fetchone()
        except sqlite3.Error:
            pass
        else:
            self._next_id = max(self._next_id, int(row[0] or 0) + 1)
        self._next_id += 1
        self.reserved[self._next_id - 1] = self.wall()
        return self._next_id - 1

    def taken(self, gid: int) -> None:
        """Game ``gid`` is in the archive, written there another way (a
        journal, :mod:`.journal`): :meth:`reserve_id` gives ids above it."""
        self._next_id = max(self._next_id, gid + 1)

    def new_game(self, game: AnyGame, attacker: str, defender: str,
                 settings: dict[str, object] | None = None, gid: int | None = None,
                 value: tuple[str, object] | None = None) -> int:
        """Write a new game (as ``gid``, from :meth:`reserve_id`; by default
        the next id) with its actions so far, all or nothing (a write
        retried after a failure), and return its id; with ``value`` (a key
        and its value, :meth:`set_value`), that value in the same
        transaction: a crash keeps both or neither."""
        tokens = action_tokens(game)
        now = self.reserved.get(gid) if gid is not None else None
        now = now or self.wall()
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            cur = self.db.execute(
                "INSERT INTO games (id, variant, options, start, attacker, defender, created, "
                "settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (gid, game.variant.name, format_any_options(game.variant), game.start_position,
                 attacker, defender, now, json.dumps(settings or {})),
            )
            gid = int(cur.lastrowid or 0)
            times = self.played(gid, tokens)
            self.db.executemany("INSERT INTO actions (game_id, ply, token, t) VALUES (?, ?, ?, ?)",
                                [(gid, i, token, times[i]) for i, token in enumerate(tokens)])
            if value is not None:
                self._put_value(*value)
            self._put_value(CURRENT, gid)
        self._stored[gid] = tokens
        self.reserved.pop(gid, None)
        self._next_id = max(self._next_id, gid + 1)
        return gid

    def played(self, gid: int, tokens: Sequence[str]) -> list[float]:
        """The wall-clock time of each of game ``gid``'s actions ``tokens``:
        when it was first seen here (by this call or :meth:`sync`), now for
        those not seen before; an action taken back and played again anew.
        A write held back while the archive could not be written keeps the
        time each move was played, not the time it was written."""
        seen, times = self._played.get(gid, ([], []))
        common = common_length(seen, tokens)
        if common == len(seen) == len(tokens):
            return times
        now = round(self.wall(), 3)
        stamped = times[:common] + [now] * (len(tokens) - common)
        self._played[gid] = (list(tokens), stamped)
        return stamped

    def sync(self, gid: int, game: AnyGame, times: Sequence[float] = (),
             value: tuple[str, object] | None = None, *,
             tokens: Sequence[str] | None = None, finish: bool = False) -> None:
        """Make the stored actions of ``gid`` those of ``game`` (``tokens``
        when the caller has them) with undo, in one synced transaction, each
        with its time (``times``; by default when it was played,
        :meth:`played`); with ``value`` (:meth:`set_value`), that too; an
        end taken back (Undo) unfinishes the game in the same transaction;
        ``finish`` archives it in the same transaction (:meth:`finish`)."""
        tokens = action_tokens(game) if tokens is None else list(tokens)
        stored = self._stored.get(gid)
        if stored is None:
            stored = [r[0] for r in self.db.execute(
                "SELECT token FROM actions WHERE game_id=? ORDER BY ply", (gid,))]
        common = common_length(tokens, stored)
        if common == len(tokens) == len(stored) and value is None and not finish:
            return
        stamps = list(times) or self.played(gid, tokens)
        now = self.wall()
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("DELETE FROM actions WHERE game_id=? AND ply>=?", (gid, common))
            self.db.executemany(
                "INSERT INTO actions (game_id, ply, token, t) VALUES (?, ?, ?, ?)",
                [(gid, i, tokens[i], stamps[i] if i < len(stamps) else now)
                 for i in range(common, len(tokens))],
            )
            if common < len(stored):  # taken back: an end they made is not the game's
                reopen(self.db, gid)
            if value is not None:
                self._put_value(*value)
            if finish:  # the record read back from the actions just written
                outcome = game.outcome
                self.db.execute(
                    "UPDATE games SET finished=?, result=?, termination=?, record=? WHERE id=?",
                    (self.wall(), outcome.result if outcome else "*",
                     outcome.reason if outcome else "abandoned", self.record_text(gid, game),
                     gid))
        self._stored[gid] = tokens
        self._views.pop(gid, None)  # a view of it finished is of another game now

    def rename(self, gid: int, attacker: str, defender: str,
               settings: dict[str, object] | None = None) -> None:
        """The players' names shown in the record, and the game's settings."""
        with self.db:
            if settings is None:
                self.db.execute("UPDATE games SET attacker=?, defender=? WHERE id=?",
                                (attacker, defender, gid))
            else:
                self.db.execute("UPDATE games SET attacker=?, defender=?, settings=? WHERE id=?",
                                (attacker, defender, json.dumps(settings), gid))

    def keep_settings(self, gid: int, settings: dict[str, object]) -> None:
        """The game's settings alone, its players' names as they are."""
        with self.db:
            self.db.execute("UPDATE games SET settings=? WHERE id=?",
                            (json.dumps(settings), gid))

    def finish(self, gid: int, game: AnyGame) -> None:
        """Archive ``gid``: its last actions, result, termination and record,
        in one transaction (a power cut leaves it finished or as it was)."""
        self.sync(gid, game, finish=True)

    def active(self) -> StoredGame | None:
        """The game being played when the service stopped, if unfinished:
        the one last started or resumed (:data:`CURRENT`); else the newest
        unfinished game, if any."""
        current = self.get_value(CURRENT, instead="the newest unfinished game is taken")
        if isinstance(current, int) and not isinstance(current, bool):
            game = self.get(current)
            if game is not None and game.finished is None:
                return game
        row = self.db.execute(
            "SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return self.get(int(row[0])) if row else None

    def unfinished(self) -> list[StoredGame]:
        """Every game not finished, oldest first."""
        rows = self.db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id")
        out = [self.get(int(r[0])) for r in rows.fetchall()]
        return [g for g in out if g is not None]

    def put_aside(self, skip: Sequence[int]) -> list[tuple[int, AnyGame]]:
        """The unfinished games but those of ``skip`` that can be resumed
        (a board set up as one), with their ids, oldest first."""
        out = []
        for stored in self.unfinished():
            game = resumable(stored) if stored.id not in skip else None
            if game is not None:
                out.append((stored.id, game))
        return out

    def get(self, gid: int, db: sqlite3.Connection | None = None) -> StoredGame | None:
        if not 0 < gid < 2**63:  # no such row (SQLite's ids are 64-bit)
            return None
        db = self.db if db is None else db
        row = db.execute(
            "SELECT id, variant, options, start, attacker, defender, created, finished, result, "
            f"termination, {self._settings} FROM games WHERE id=?", (gid,)).fetchone()
        if row is None:
            return None
        acts = db.execute(
            "SELECT token, t FROM actions WHERE game_id=? ORDER BY ply", (gid,)).fetchall()
        try:
            settings = json.loads(row[10]) if row[10] else {}
        except (ValueError, RecursionError):  # a hand edit: the game's own settings lost only
            settings = {}
        return StoredGame(
            int(row[0]), text_value(row[1]), text_value(row[2]), optional_text(row[3]),
            text_value(row[4]), text_value(row[5]), seconds_value(row[6]),
            None if row[7] is None else seconds_value(row[7]),
            text_value(row[8]), optional_text(row[9]),
            tuple(text_value(a[0]) for a in acts), tuple(seconds_value(a[1]) for a in acts),
            settings if isinstance(settings, dict) else {},
        )

    # -- reads from worker threads (the web page's archive) ----------------

    def _reader(self) -> sqlite3.Connection:
        """This thread's own read-only connection (WAL: readers never block
        the writer, and the writer's connection stays on its thread)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(ro_uri(self.path), uri=True, check_same_thread=False)
            self._local.db = db
        return db

    def game_view(self, gid: int) -> bytes | None:
        """One game for the viewer as JSON: its actions and the position
        after each (slow for long games: call it off the event loop)."""
        db = self._reader()
        stored = self.get(gid, db)
        if stored is None:
            return None
        game = stored.game()
        positions = []
        replay = game.copy()
        while replay.moves:
            positions.append(replay.position())
            replay.pop()
        positions.append(replay.position())
        positions.reverse()
        data = json.dumps({
            "id": stored.id, "variant": stored.variant, "geometry": board_view(game),
            "start": stored.start, "positions": positions,
            "attacker": stored.attacker, "defender": stored.defender,
            "result": stored.result, "termination": stored.termination,
            "actions": list(stored.actions), "finished": stored.finished is not None,
            "turns": turn_numbers(game),
            "labels": action_labels(stored.actions, turn_numbers(game)),
        }).encode()
        if stored.finished is not None:
            if len(self._views) >= 64:
                self._views.pop(next(iter(self._views)))
            self._views[gid] = data
        return data

    def cached_view(self, gid: int) -> bytes | None:
        """A finished game's view if already made (cheap: on the loop)."""
        return self._views.get(gid)

    def archive(self) -> list[dict[str, object]]:
        """:meth:`list_games` from a worker thread."""
        return self.list_games(self._reader())

    def list_games(self, db: sqlite3.Connection | None = None) -> list[dict[str, object]]:
        """The archive's games, newest first, but those finished without a
        move (a new game asked for before anything was played): nothing
        to view or download.  Their rows (and sensor lines) stay."""
        db = self.db if db is None else db
        rows = db.execute(
            "SELECT g.id, g.variant, g.attacker, g.defender, g.created, g.finished, g.result, "
            "g.termination, (SELECT COUNT(*) FROM actions a WHERE a.game_id=g.id) "
            "FROM games g WHERE g.finished IS NULL OR EXISTS "
            "(SELECT 1 FROM actions a WHERE a.game_id=g.id) ORDER BY g.id DESC").fetchall()
        return [
            {"id": r[0], "variant": text_value(r[1]), "attacker": text_value(r[2]),
             "defender": text_value(r[3]), "created": _date(r[4]), "finished": r[5] is not None,
             "result": text_value(r[6]), "termination": optional_text(r[7]), "actions": r[8]}
            for r in rows
        ]

    def record_text(self, gid: int, game: AnyGame | None = None,
                    more: dict[str, str] | None = None) -> str:
        """The game record (docs/rules.md) of ``gid``, with the tags
        ``more`` besides its own (the broadcast names its store)."""
        stored = self.get(gid)
        if stored is None:
            raise KeyError(gid)
        if stored.finished is not None and game is None and not more:
            row = self.db.execute("SELECT record FROM games WHERE id=?", (gid,)).fetchone()
            if row and row[0]:
                return str(row[0])
        g = game if game is not None else stored.game()
        tags = {"Attacker": stored.attacker, "Defender": stored.defender,
                "Date": _date(stored.created, "%Y.%m.%d", "????.??.??"),
                "Board": "sensor", "GameId": str(gid), **(more or {})}
        clocks = turn_clocks(g, stored.times, stored.created)
        return str(Record.from_game(g, tags, clocks))

    # -- raw sensor log --------------------------------------------------

    def append_sensor(self, gid: int, lines: Sequence[str]) -> None:
        if not lines or self.sensor_log_limit == 0:
            return
        seq = self._sensor_seq.get(gid)
        if seq is None:
            row = self.log_db.execute("SELECT MAX(seq) FROM sensor WHERE game_id=?",
                                      (gid,)).fetchone()
            seq = int(row[0]) + 1 if row and row[0] is not None else 0
        with self.log_db:  # all the lines or none: a retry neither repeats nor collides
            self.log_db.execute("BEGIN IMMEDIATE")
            self.log_db.executemany("INSERT INTO sensor (game_id, seq, line) VALUES (?, ?, ?)",
                                    [(gid, seq + i, line) for i, line in enumerate(lines)])
            seq += len(lines)
            self.log_db.execute("DELETE FROM sensor WHERE game_id=? AND seq<?",
                                (gid, seq - self.sensor_log_limit))
        self._sensor_seq[gid] = seq

    def sensor_log(self, gid: int) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT line FROM sensor WHERE game_id=? ORDER BY seq", (gid,))]

    def replayable_log(self, gid: int) -> list[str]:
        """The game's sensor log as a file ``kharbga-board replay`` reads: a
        header first, times from 0 and never going back (a restart starts
        the service's clock again: later lines continue one second on)."""
        return self.replayable(gid)[0]

    def replayable(self, gid: int) -> tuple[list[str], int]:
        """:meth:`replayable_log`, and how many of the stored lines are left
        out as not events of this board (the archive edited by hand)."""
        stored = self.get(gid)
        if stored is None:
            raise KeyError(gid)
        geometry = stored.rules().geometry
        out: list[str] = []
        shift = None
        last = 0.0
        colour = False
        left_out = 0
        for line in self.sensor_log(gid):
            try:
                parse_line(line, geometry.size)
                event = json.loads(line)
                t = float(event["t"])
            except (ValueError, KeyError, TypeError):
                left_out += 1
                continue
            colour = colour or "cells" in event
            if shift is None:
                shift = -t
            elif t + shift < last:  # the service restarted
                shift = last + 1.0 - t
            last = round(t + shift, 4)
            event["t"] = last
            out.append(json.dumps(event))
        header = Header(0.0, geometry.name, "colour" if colour else "occupancy",
                        stored.variant, stored.options or None, stored.start)
        return [format_event(header, geometry.size), *out], left_out

    # -- small settings ------------------------------------------------------

    def get_value(self, key: str, unreadable: object = None, instead: str = "ignored") -> object:
        """The value kept under ``key``, None if none is.  These values are
        conveniences the board does without (what stood on the simulated
        board, a flag raised, a new game waiting for the cleared board):
        one that is not JSON (the archive edited by hand) is said in one
        line of the log, with what is done ``instead``, and ``unreadable``
        is returned in its place."""
        row = self.db.execute("SELECT value FROM kv WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (ValueError, TypeError) as exc:
            log.warning("%s: the kept value %r is not JSON (%s): %s", self.path, key,
                        said(exc) or type(exc).__name__, instead)
            return unreadable

    def set_value(self, key: str, value: object) -> None:
        with self.db:
            self._put_value(key, value)

    def _put_value(self, key: str, value: object) -> None:
        """Keep ``value`` under ``key``, in the transaction under way."""
        self.db.execute("INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)",
                        (key, json.dumps(value)))


def common_length(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the actions ``a`` and ``b`` share from the start."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _date(t: float, form: str = "%Y-%m-%d %H:%M", unknown: str = "?") -> str:
    """The local time ``t`` as ``form``; ``unknown`` for a time that is
    none (out of range, not a number: an archive edited by hand)."""
    try:
        return time.strftime(form, time.localtime(t))
    except (OverflowError, OSError, ValueError, TypeError):
        return unknown
