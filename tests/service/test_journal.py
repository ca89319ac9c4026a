"""The journal: moves played while the archive cannot be written (another
program holding its lock) survive the service killed meanwhile: kept in
DATA_DIR/journal.json, written into the archive on the next start."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fake_clock import FakeClock as Clock

from controller.board.events import Frame
from controller.rules import Game
from controller.service import journal
from controller.service.archive import ArchiveError
from controller.service.board import BoardService
from controller.service.config import Config, load_config
from controller.service.store import Store


def _bits(game: Game) -> int:
    a, d = game.bitboards()
    return a | d


def _show(service: BoardService, clock: Clock, occupied: int) -> None:
    clock.t += 0.5
    service.feed(Frame(service.now(), occupied))
    clock.t += 0.5
    service.tick()


def _place(service: BoardService, clock: Clock, game: Game, *tokens: str) -> None:
    for token in tokens:
        game.play(token)
        _show(service, clock, _bits(game))


def _service(data: Path, clock: Clock) -> BoardService:
    return BoardService(Config(data_dir=data, board="gpio", settle=0.05, error_delay=0.3), clock)


@contextmanager
def _locked(data: Path) -> Iterator[sqlite3.Connection]:
    """Another program holding the archive's write lock (a database browser
    left in a transaction)."""
    other = sqlite3.connect(data / "games.sqlite3", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO kv VALUES ('another program', '1')")
    try:
        yield other
    finally:
        other.execute("ROLLBACK")
        other.close()


def _crash(service: BoardService) -> None:
    """The service gone without a word: nothing written at its end (its
    connections closed, as the system closes a killed process's files)."""
    service.advice.close()
    service.store.close()


def _dump(data: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(data / "games.sqlite3")
    rows = [*db.execute("SELECT * FROM games ORDER BY id"),
            *db.execute("SELECT * FROM actions ORDER BY game_id, ply"),
            *db.execute("SELECT * FROM kv ORDER BY key")]
    db.close()
    return rows


def test_moves_played_while_the_archive_is_locked_outlive_a_crash(tmp_path: Path) -> None:
    """Another program holds the archive's lock while four soldiers are
    placed, and the service is killed before it lets go: once it has, the
    service started again has every move in the archive and goes on with
    the game. Before, the four moves, kept in memory only, were lost."""
    clock = Clock()
    first = _service(tmp_path, clock)
    game = Game.new("kharbga")
    _place(first, clock, game, "@a1", "@b1")
    with _locked(tmp_path):
        _place(first, clock, game, "@a7", "@b7", "@c1", "@d1")
        words = first.state()["record_problem"]
        assert first.store.get(first.gid).actions == ("@a1", "@b1")  # type: ignore[union-attr]
        gid = first.gid
        _crash(first)
    # A journal's next snapshot cut short by the crash: never the journal.
    (tmp_path / "journal.json.tmp").write_text('{"journal": 1, "ga')
    again = _service(tmp_path, clock)
    stored = again.store.get(gid)
    assert stored is not None and list(stored.actions) == [str(m) for m in game.moves]
    assert not (tmp_path / "journal.json.tmp").exists()
    assert words is not None and words.startswith(
        "the game is not being saved (database is locked): the moves shown since are kept in "
        f"{tmp_path / 'journal.json'} and written to the archive once "), words
    assert not (tmp_path / "journal.json").exists()
    assert stored.finished is None and again.gid == gid
    assert again.state()["moves"] == [str(m) for m in game.moves]
    _show(again, clock, _bits(game))
    _place(again, clock, game, "@c7")  # the game goes on
    assert again.state()["moves"][-1] == "@c7"
    assert again.store.get(gid).actions[-1] == "@c7"  # type: ignore[union-attr]
    assert again.state()["record_problem"] is None
    again.close()


def test_a_journal_of_names_the_board_may_hold_is_written_in(tmp_path: Path) -> None:
    """A name the board holds (kept from an archive of an earlier version,
    which took quotes and 80 characters; typed with a tab after it in the
    configuration) does not make the journal "not of this program": its
    moves reach the archive. Before, such a journal was set aside and the
    moves it held were lost."""
    clock = Clock()
    config = tmp_path / "c.toml"
    config.write_text('[players]\nattacker = "Amira\\t"\n')
    assert load_config(config).attacker == "Amira"  # as the page takes it: stripped
    first = _service(tmp_path, clock)
    game = Game.new("kharbga")
    _place(first, clock, game, "@a1", "@b1")
    gid = first.gid
    _crash(first)
    old = 'An "old" name, of an archive of an earlier version: 60 chars.'
    (tmp_path / "journal.json").write_text(json.dumps({"journal": 1, "values": {}, "games": [
        {"id": gid, "variant": "kharbga", "options": "", "start": None, "attacker": old,
         "defender": "Defender", "actions": ["@a1", "@b1", "@a7", "@b7"],
         "times": [1e6, 1e6 + 1, 1e6 + 2, 1e6 + 3]}]}))
    again = _service(tmp_path, clock)
    stored = again.store.get(gid)
    assert stored is not None and list(stored.actions) == ["@a1", "@b1", "@a7", "@b7"]
    assert stored.attacker == old
    assert not (tmp_path / "journal.json.bad").exists()
    again.close()


def test_a_new_game_while_the_archive_is_locked_outlives_a_crash(tmp_path: Path) -> None:
    """New game pressed while the archive is locked, the old game's end and
    the new game's row held back with its moves: after the crash both games
    are in the archive as played, and the new one goes on."""
    clock = Clock()
    first = _service(tmp_path, clock)
    old_id = first.gid
    game = Game.new("kharbga")
    _place(first, clock, game, "@a1", "@b1")
    with _locked(tmp_path):
        _place(first, clock, game, "@a7")
        first.new_game("kharbga")
        new_id = first.gid
        _show(first, clock, 0)  # cleared for the new game
        game = Game.new("kharbga")
        _place(first, clock, game, "@c1", "@d1")
        first.set_computer("defender", 1)
        clock.t += 1.5
        first.tick()  # the held-back names tried again, and journaled
        _crash(first)
    again = _service(tmp_path, clock)
    old, new = again.store.get(old_id), again.store.get(new_id)
    assert old is not None and list(old.actions) == ["@a1", "@b1", "@a7"]
    assert old.finished is not None and old.termination == "abandoned"
    assert new is not None and list(new.actions) == ["@c1", "@d1"] and new.finished is None
    assert new.settings["computer"] == "defender"
    assert again.gid == new_id and again.state()["moves"] == ["@c1", "@d1"]
    again.close()


def test_the_service_killed_during_a_lock_and_started_after_it_keeps_every_move(
    tmp_path: Path
) -> None:
    """The real service killed with SIGKILL while another program holds the
    archive's lock; the lock let go; the service started again has every
    move and the game goes on."""
    from server import Server

    def occ(g: Game) -> str:
        return "".join("1" if _bits(g) >> i & 1 else "0" for i in range(g.geometry.size))

    def reach(server: Server, n: int) -> Any:
        deadline = time.monotonic() + 10
        while len((state := server.get("/api/state"))["moves"]) < n:
            assert time.monotonic() < deadline, f"{n} moves never reached"
            time.sleep(0.02)
        return state

    data = tmp_path / "data"
    server = Server(data, "kharbga")
    server.start()
    game = Game.new("kharbga")
    try:
        for token in ("@a1", "@b1"):
            game.play(token)
            server.post("/api/sim/occupancy", {"occ": occ(game)})
            reach(server, len(game.moves))
        with _locked(data):
            for token in ("@a7", "@b7", "@c1"):
                game.play(token)
                server.post("/api/sim/occupancy", {"occ": occ(game)})
                state = reach(server, len(game.moves))
            words = str(state["record_problem"])
            server.kill()
        server.start()
        state = server.get("/api/state")
        assert state["moves"] == [str(m) for m in game.moves]
        assert "journal.json" in words
        stored = server.get(f"/api/games/{state['game_id']}")
        assert stored["actions"] == [str(m) for m in game.moves]
        game.play("@d1")
        server.post("/api/sim/occupancy", {"occ": occ(game)})
        state = reach(server, len(game.moves))
        assert state["moves"][-1] == "@d1" and state["record_problem"] is None
    finally:
        server.stop()
    assert not (data / "journal.json").exists()


def test_a_restart_while_the_archive_is_still_locked_refuses_and_keeps_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started again while the other program still holds the lock: the
    service refuses in one line (systemd starts it again), the journal
    kept; once the lock goes, the start writes it."""
    monkeypatch.setattr(journal, "WAIT_MS", 100)
    clock = Clock()
    first = _service(tmp_path, clock)
    game = Game.new("kharbga")
    with _locked(tmp_path):
        _place(first, clock, game, "@a1", "@b1")
        _crash(first)
        with pytest.raises(ArchiveError) as refused:
            _service(tmp_path, clock)
        words = str(refused.value)
        assert "\n" not in words and "database is locked" in words
        assert words.startswith(f"{tmp_path / 'journal.json'} holds moves not yet in ")
    assert (tmp_path / "journal.json").exists()
    again = _service(tmp_path, clock)
    assert again.state()["moves"] == ["@a1", "@b1"]
    again.close()


@pytest.mark.parametrize(("text", "why"), [
    (b'{"journal": 1, "games": [{"id": 1, "vari', "cannot be read"),
    (b"\xff\xfe{", "cannot be read"),
    (b'{"journal": 9, "games": [], "values": {}}', "not a journal of this program"),
    (b'{"journal": 1, "games": [{"id": 1, "variant": "kharbga", "options": "", "start": null, '
     b'"actions": ["@a1", "@a1"]}], "values": {}}', "game 1 does not replay (action 2 (@a1)"),
    (b'{"journal": 1, "games": [{"id": 1, "variant": "checkers", "options": "", "start": null, '
     b'"actions": ["c3-d4"]}], "values": {}}', "game 1 is another game in the archive (kharbga)"),
    # A time that is no time.  Before: NaN stopped the board, "... holds moves not yet in
    # games.sqlite3, which cannot be written (NOT NULL constraint failed: actions.t: a full
    # disk? a read-only card?)"; a number of 400 digits, "OverflowError: int too large to
    # convert to float".
    (b'{"journal": 1, "games": [{"id": 9, "variant": "kharbga", "options": "", "start": null, '
     b'"actions": ["@a1"], "times": [NaN]}], "values": {}}', "not a journal of this program"),
    (b'{"journal": 1, "games": [{"id": 9, "variant": "kharbga", "options": "", "start": null, '
     b'"actions": ["@a1"], "times": [1' + b"0" * 400 + b']}], "values": {}}',
     "not a journal of this program"),
    # A time far beyond any clock (before: a clock comment hundreds of digits long in
    # the record), a name the board would refuse (a line break: the record's tags
    # broken), lists nested too deeply to read (before: "RecursionError", no start).
    (b'{"journal": 1, "games": [{"id": 9, "variant": "kharbga", "options": "", "start": null, '
     b'"actions": ["@a1"], "times": [1e300]}], "values": {}}', "not a journal of this program"),
    (b'{"journal": 1, "games": [{"id": 1, "attacker": "X\\"]\\n[Result \\"1-0", '
     b'"defender": "D"}], "values": {}}', "not a journal of this program"),
    # An id at SQLite's limit. Before: taken, and every later game lost
    # ("OverflowError: Python int too large to convert to SQLite INTEGER").
    (b'{"journal": 1, "games": [{"id": 9223372036854775807, "variant": "kharbga", '
     b'"options": "", "start": null, "actions": ["@a1"]}], "values": {}}',
     "not a journal of this program"),
    (b'{"journal": 1, "games": ' + b"[" * 100000 + b"]" * 100000 + b', "values": {}}',
     "cannot be read: nested too deeply"),
    # Times that do not go with the actions (one for two). Taken, recovery
    # stopped on an IndexError: the board did not start.
    (b'{"journal": 1, "games": [{"id": 9, "variant": "kharbga", "options": "", "start": null, '
     b'"actions": ["@a1", "@b1"], "times": [1.0]}], "values": {}}',
     "not a journal of this program"),
])
def test_a_journal_that_cannot_be_used_is_kept_aside_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: bytes, why: str
) -> None:
    """A journal damaged, not of this program's making, or not fitting the
    archive: the board starts with the archive as it was, the journal is
    renamed aside and said in one line; nothing is written of it."""
    clock = Clock()
    first = _service(tmp_path, clock)
    game = Game.new("kharbga")
    _place(first, clock, game, "@b1", "@c1")
    first.close()
    before = _dump(tmp_path)
    (tmp_path / "journal.json").write_bytes(text)
    with caplog.at_level(logging.INFO, logger="kharbga.store"):
        again = _service(tmp_path, clock)
    said = [r.getMessage() for r in caplog.records if "journal" in r.getMessage()]
    assert len(said) == 1 and "\n" not in said[0], said
    assert why in said[0] and "kept aside as" in said[0] and said[0].endswith(
        "the archive is as it was"), said
    assert not (tmp_path / "journal.json").exists()
    assert (tmp_path / "journal.json.bad").read_bytes() == text
    assert again.state()["moves"] == ["@b1", "@c1"]
    again.close()
    assert _dump(tmp_path) == before


def test_a_journal_the_archive_already_has_changes_nothing(tmp_path: Path) -> None:
    """A journal left behind whose game the archive already has, complete
    (finished since) or with the same moves: the archive is as it was and
    the journal goes."""
    clock = Clock()
    first = _service(tmp_path, clock)
    game = Game.new("kharbga")
    _place(first, clock, game, "@a1", "@b1")
    done = first.gid
    with _locked(tmp_path):
        _place(first, clock, game, "@a7")
    clock.t += 1.5
    first.tick()  # written: the journal gone
    assert not (tmp_path / "journal.json").exists()
    first.press("resign", "defender")
    first.tick()
    first.new_game("kharbga")
    _show(first, clock, 0)
    second = Game.new("kharbga")
    _place(first, clock, second, "@d1", "@e1")
    playing = first.gid
    first.close()
    before = _dump(tmp_path)
    entry = {"variant": "kharbga", "options": "", "start": None}
    (tmp_path / "journal.json").write_text(json.dumps({"journal": 1, "games": [
        {"id": done, **entry, "actions": ["@a1", "@b1", "@a7"], "times": [1.0, 2.0, 3.0]},
        {"id": playing, **entry, "actions": ["@d1", "@e1"], "attacker": "Attacker",
         "defender": "Defender"}],
        "values": {"current": playing}}))
    again = _service(tmp_path, clock)
    assert not (tmp_path / "journal.json").exists()
    assert again.gid == playing and again.state()["moves"] == ["@d1", "@e1"]
    again.close()
    assert _dump(tmp_path) == before
    stored = Store(tmp_path)
    finished = stored.get(done)
    assert finished is not None and finished.result == "1-0" and finished.actions[-1] == \
        "resign:defender"
    stored.close()


def test_a_journal_that_cannot_be_written_either_is_said_as_before(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The journal cannot be written either (here its file's place taken by
    a folder; a full disk alike): the page says the moves are kept in
    memory, as before the journal, the log says it once, and the moves are
    written once the archive lets go."""
    clock = Clock()
    service = _service(tmp_path, clock)
    game = Game.new("kharbga")
    (tmp_path / "journal.json.tmp").mkdir()
    with caplog.at_level(logging.INFO, logger="kharbga.store"), _locked(tmp_path):
        _place(service, clock, game, "@a1", "@b1", "@a7")
        words = service.state()["record_problem"]
        assert words is not None and "kept in memory" in words and "journal.json" not in words
    said = [r.getMessage() for r in caplog.records if "journal.json" in r.getMessage()]
    assert len(said) == 1 and "cannot be written either" in said[0], said
    clock.t += 1.5
    service.tick()
    assert service.state()["record_problem"] is None
    assert service.store.get(service.gid).actions == ("@a1", "@b1", "@a7")  # type: ignore[union-attr]
    service.close()


class _Wall:
    """The wall clock the archive stamps moves with, moved by the test."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_moves_written_after_a_lock_keep_the_time_they_were_played(tmp_path: Path) -> None:
    """Four soldiers placed while another program holds the archive are
    written once it lets go, each with the time it was played, so the
    record's clock shows each turn as it was, not one long turn and three
    instant ones at the moment the archive came back; a new game pressed
    during the lock is written as created when it was pressed."""
    clock, wall = Clock(), _Wall(1_000_000.0)
    service = _service(tmp_path, clock)
    service.store.wall = wall
    game = Game.new("kharbga")
    _place(service, clock, game, "@a1", "@b1")
    with _locked(tmp_path):
        for token in ("@a7", "@b7", "@c1", "@d1"):
            wall.t += 60.0  # a minute a placement
            _place(service, clock, game, token)
        assert service.state()["record_problem"] is not None
        wall.t += 60.0
        service.new_game("kharbga")
        new_id, pressed = service.gid, wall.t
        wall.t += 3600.0  # the other program lets go an hour later
    clock.t += 1.5
    service.tick()
    assert service.state()["record_problem"] is None
    old = service.store.get(service.gid - 1)
    assert old is not None and list(old.actions) == [str(m) for m in game.moves]
    assert list(old.times) == [1_000_000.0] * 2 + [1_000_000.0 + 60.0 * k for k in (1, 2, 3, 4)]
    new = service.store.get(new_id)
    assert new is not None and new.created == pressed
    service.close()


def test_the_first_turns_clock_counts_from_the_start_of_the_game(tmp_path: Path) -> None:
    """The record's clock for the first turn is the time from New game (or
    the service's start) to that turn, as every other turn's is from the
    turn before; it read 0:00:00 whatever the wait."""
    from controller.rules.record import parse_record

    clock, wall = Clock(), _Wall(1_000_000.0)
    service = _service(tmp_path, clock)
    service.store.wall = wall
    service.new_game("kharbga")
    game = Game.new("kharbga")
    wall.t += 95.0  # the Attacker thinks a minute and a half
    _place(service, clock, game, "@a1", "@b1")
    wall.t += 12.0
    _place(service, clock, game, "@a7", "@b7")
    record = parse_record(service.store.record_text(service.gid))
    assert [t.comments for t in record.turns] == [["{[%clk 0:01:35]}"], ["{[%clk 0:00:12]}"]]
    service.close()


def test_a_write_of_the_keeper_computes_the_games_actions_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The keeper's write notes each move's time and stores the actions
    from one computation of the game's action tokens (before, the store's
    sync computed them again); the stored actions are the game's."""
    from controller.hall.protocol import action_tokens
    from controller.reconcile.unrecorded import Unrecorded
    from controller.service import keeper as keeper_module
    from controller.service import store as store_module

    calls: list[int] = []

    def counted(game: Any) -> list[str]:
        calls.append(len(game.moves))
        return action_tokens(game)

    monkeypatch.setattr(keeper_module, "action_tokens", counted)
    monkeypatch.setattr(store_module, "action_tokens", counted)
    store = Store(tmp_path)
    keeper = keeper_module.Keeper(store, str(tmp_path), time.monotonic)
    game = Game.new("kharbga")
    gid = store.new_game(game, "A", "D")
    for token in ("@a1", "@b1"):
        game.play(token)
        calls.clear()
        keeper.keep(gid, game, [], False, Unrecorded())
        assert calls == [len(game.moves)]
    stored = store.get(gid)
    assert stored is not None and list(stored.actions) == ["@a1", "@b1"]
    store.close()


def test_a_failed_write_computes_the_games_actions_once_and_says_it_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """While the archive is locked, each of the keeper's writes computes the
    game's action tokens once, for the archive's try and the journal alike
    (the journal computed them again); every move is in the journal, the
    log says the failure in one line, and once the archive lets go every
    move is written there."""
    from controller.hall.protocol import action_tokens
    from controller.reconcile.unrecorded import Unrecorded
    from controller.service import keeper as keeper_module
    from controller.service import store as store_module

    calls: list[int] = []

    def counted(game: Any) -> list[str]:
        calls.append(len(game.moves))
        return action_tokens(game)

    for module in (keeper_module, store_module, journal):
        monkeypatch.setattr(module, "action_tokens", counted)
    store = Store(tmp_path)
    keeper = keeper_module.Keeper(store, str(tmp_path), time.monotonic)
    game = Game.new("kharbga")
    gid = store.new_game(game, "A", "D")
    path = tmp_path / journal.NAME
    with caplog.at_level(logging.INFO, logger="kharbga.store"), _locked(tmp_path):
        for token in ("@a1", "@b1", "@a7", "@b7"):
            game.play(token)
            calls.clear()
            keeper.keep(gid, game, [], False, Unrecorded())
            assert calls == [len(game.moves)], token
            kept = json.loads(path.read_text(encoding="utf-8"))
            assert kept["games"][0]["actions"] == [str(m) for m in game.moves]
        assert keeper.problem is not None and "database is locked" in keeper.problem
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert said == [f"game {gid} cannot be written to {tmp_path}: database is locked"], said
    calls.clear()
    keeper.keep(gid, game, [], False, Unrecorded())  # the archive let go
    assert calls == [len(game.moves)]
    assert keeper.problem is None and not path.exists()
    stored = store.get(gid)
    assert stored is not None and list(stored.actions) == ["@a1", "@b1", "@a7", "@b7"]
    store.close()


ONE_CAPTURE_LEFT = "......./......./......./.AD..../D....../......./....... d m - 7"


def test_a_game_ending_move_taken_back_during_a_lock_reopens_the_game(tmp_path: Path) -> None:
    """The capture that ends the game is written (the game finished in the
    archive); then, while another program holds the lock, Undo takes it
    back and another move is made, and the service is killed. The journal
    holds the game unfinished with its new move: the restart writes that
    in and goes on with the game. Before, the archive's finished game was
    kept as it was (the move taken back still its end, the move made
    since lost) and a new game was started."""
    clock = Clock()
    game = Game.from_position("kharbga", ONE_CAPTURE_LEFT)
    first = _service(tmp_path, clock)
    _show(first, clock, _bits(game))
    first.new_game("kharbga", position=ONE_CAPTURE_LEFT)
    _show(first, clock, _bits(game))
    gid = first.gid
    _place(first, clock, game, "a3xa4")
    assert first.store.get(gid).finished is not None  # type: ignore[union-attr]
    with _locked(tmp_path):
        first.press("undo")
        game.pop()
        _show(first, clock, _bits(game))  # the board put back
        _place(first, clock, game, "a3-a2")
        assert first.state()["moves"] == ["a3-a2"]
        assert first.state()["record_problem"] is not None
        _crash(first)
    again = _service(tmp_path, clock)
    stored = again.store.get(gid)
    assert stored is not None and stored.actions == ("a3-a2",)
    assert stored.finished is None and stored.result == "*" and stored.termination is None
    assert again.gid == gid and again.state()["moves"] == ["a3-a2"]
    again.close()


def test_a_new_game_written_from_the_journal_keeps_the_time_it_was_pressed(
        tmp_path: Path) -> None:
    """New game pressed while another program holds the archive, the
    Attacker thinking a minute and a half, two soldiers placed, and the
    service killed: written from the journal on the next start, the game
    is created when New game was pressed (its date, its first turn's
    clock), as when the write goes through late without a crash. Before,
    it was created at its first move's time (the first turn's clock
    0:00:00), or at the restart for a game with no move yet."""
    from controller.rules.record import parse_record

    clock, wall = Clock(), _Wall(1_000_000.0)
    first = _service(tmp_path, clock)
    first.store.wall = wall
    with _locked(tmp_path):
        wall.t += 60.0
        first.new_game("kharbga")
        pressed, gid = wall.t, first.gid
        game = Game.new("kharbga")
        wall.t += 95.0
        _place(first, clock, game, "@a1", "@b1")
        assert first.state()["record_problem"] is not None
        first.new_game("kharbga")  # and another, nothing played in it
        unplayed, empty = wall.t, first.gid
        _crash(first)
    again = _service(tmp_path, clock)
    stored = again.store.get(gid)
    assert stored is not None and stored.actions == ("@a1", "@b1")
    assert stored.created == pressed
    record = parse_record(again.store.record_text(gid))
    assert [t.comments for t in record.turns] == [["{[%clk 0:01:35]}"]]
    assert again.store.get(empty).created == unplayed  # type: ignore[union-attr]
    again.close()


def _click(service: BoardService, clock: Clock, game: Game, *tokens: str) -> None:
    """Placements made by clicks on the simulated board (the page's request)."""
    for token in tokens:
        game.play(token)
        for point in token[1:].split("@"):
            clock.t += 0.5
            service.set_sim_occupancy(None, point=point, occupied=True)
        clock.t += 0.5
        service.tick()


def test_the_simulated_boards_pieces_set_during_a_lock_outlive_a_crash(tmp_path: Path) -> None:
    """On the simulated board, soldiers placed by clicks while another
    program holds the archive's lock, and the service killed: started
    again, the board shows them where they stood, as the journal's game
    has them. Before, its pieces were written to the archive only (each
    click's write failed quietly), so the restart showed the board of
    before the lock under the game's later moves, lit as out of place."""
    clock = Clock()
    config = Config(data_dir=tmp_path, board="sim", settle=0.05, error_delay=0.3)
    first = BoardService(config, clock)
    game = Game.new("kharbga")
    _click(first, clock, game, "@a1", "@b1")
    with _locked(tmp_path):
        _click(first, clock, game, "@a7", "@b7", "@c1", "@d1")
        assert first.state()["moves"] == [str(m) for m in game.moves]
        assert first.state()["record_problem"] is not None
        occ, setup = first.state()["sim_occ"], first.state()["sim_setup"]
        _crash(first)
    assert occ.count("1") == 6
    again = BoardService(config, clock)
    clock.t += 1
    again.tick()
    state = again.state()
    assert state["moves"] == [str(m) for m in game.moves]
    assert (state["sim_occ"], state["sim_setup"]) == (occ, setup)
    assert state["leds"] == {} or set(state["leds"].values()) <= {"last"}, state["leds"]
    _click(again, clock, game, "@c7")  # the game goes on
    assert again.state()["moves"][-1] == "@c7"
    again.close()


def test_a_journal_with_fewer_moves_than_the_archive_takes_them_back(tmp_path: Path) -> None:
    """An undo made while the archive could not be written: the journal
    holds two actions, the archive still four. Recovered, the archive
    holds the two (before: it kept all four, the undo lost)."""
    from stored import stored_game

    from controller.service import journal

    store, _, gid = stored_game(tmp_path, "@a1", "@b1", "@a7", "@b7")
    (tmp_path / journal.NAME).write_text(json.dumps({"journal": 1, "values": {}, "games": [
        {"id": gid, "variant": "kharbga", "options": "", "start": None,
         "actions": ["@a1", "@b1"], "times": [1.0, 2.0]}]}))
    journal.recover(store)
    assert list(store.get(gid).actions) == ["@a1", "@b1"]
    store.close()
