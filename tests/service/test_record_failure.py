"""A board whose archive cannot be written (the disk full, here SQLite's
own page limit on the real file): the board goes on, the page says the
moves are not saved and why, and every move is written once it can be."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fake_clock import FakeClock as Clock

from controller.board.events import Frame
from controller.rules import Game
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.store import Store


def _bits(game: Game) -> int:
    a, d = game.bitboards()
    return a | d


def _place(service: BoardService, clock: Clock, game: Game, *tokens: str) -> None:
    """Play ``tokens`` in ``game`` and show each on the board, settled."""
    for token in tokens:
        game.play(token)
        _show(service, clock, _bits(game))


def _show(service: BoardService, clock: Clock, occupied: int, wait: float = 0.5) -> None:
    """``wait`` s on, the board reads ``occupied``, and it settles."""
    clock.t += wait
    service.feed(Frame(service.now(), occupied))
    clock.t += 0.5
    service.tick()


def _config(tmp_path: Path, board: str = "gpio") -> Config:
    return Config(data_dir=tmp_path, board=board, settle=0.05, error_delay=0.3)


def _written_again(service: BoardService, clock: Clock) -> None:
    """The held-back writes tried again: the page's red words are gone."""
    clock.t += 1.5
    service.tick()
    assert service.state()["record_problem"] is None


def _read_only(service: BoardService, on: bool) -> None:
    """SQLite's own refusal to write, on both of the service's archives."""
    for db in (service.store.db, service.store.log_db):
        db.execute(f"PRAGMA query_only = {int(on)}")


def _fill(db: sqlite3.Connection, sql: str, key: Callable[[int], object], n: int = 0) -> int:
    """Rows of ``sql`` (``key(n)`` and a text) inserted until every free
    byte of its table is taken; the last ``n``."""
    for size in (200, 20, 1):
        with pytest.raises(sqlite3.OperationalError, match="full"):
            while True:
                n += 1
                with db:
                    db.execute(sql, (key(n), "x" * size))
    return n


@contextmanager
def _locked(tmp_path: Path, begin: str = "EXCLUSIVE") -> Iterator[None]:
    """Another program holding the archive's write lock meanwhile."""
    other = sqlite3.connect(tmp_path / "games.sqlite3", isolation_level=None)
    other.execute(f"BEGIN {begin}")
    other.execute("INSERT INTO kv VALUES ('another program', '1')")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


FILL_ACTIONS = "INSERT INTO actions (game_id, ply, token, t) VALUES (?, 0, ?, 0)"


def test_a_full_disk_is_said_and_the_moves_are_written_when_it_frees(tmp_path: Path) -> None:
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    game = Game.new("kharbga")

    _place(service, clock, game, "@a1", "@b1")
    db = service.store.db
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 8}")  # a few pages more, then "disk full"
    # every free byte of the tables the game writes taken
    n = _fill(db, FILL_ACTIONS, lambda n: -n)
    _fill(db, "INSERT INTO kv VALUES (?, ?)", lambda n: f"filler{n}", n)
    _place(service, clock, game, "@a7", "@b7", "@c1", "@d1", "@c7", "@d7", "@e1", "@f1")
    state = service.state()
    assert state["moves"] == [str(m) for m in game.moves]  # the board goes on
    words = state["record_problem"]
    assert words is not None and words.startswith("the game is not being saved (")
    assert "full" in words and str(tmp_path) in words
    stored = Store(tmp_path)
    kept = stored.get(service.gid)
    assert kept is not None and len(kept.actions) < len(game.moves)  # not on disk yet
    stored.close()
    with db:  # space again
        db.execute("DELETE FROM actions WHERE game_id < 0")
        db.execute("DELETE FROM kv WHERE key LIKE 'filler%'")
    db.execute("PRAGMA max_page_count = 1073741823")
    _written_again(service, clock)
    service.close()
    again = BoardService(Config(data_dir=tmp_path, board="gpio"), clock)
    assert again.state()["moves"] == [str(m) for m in game.moves]  # nothing lost
    again.close()


KHARBGA_MOVING = "......./......./..D..../.A.A.../....D../......./A...... d m - 7"


def test_an_exchange_flag_and_a_draw_offer_outlive_a_crash(tmp_path: Path) -> None:
    """The service stopped without a word (nothing written at its end):
    the resumed game still has the Defender's exchange flag raised and the
    draw offered, so the next step is the flagged one and the other side's
    press of Draw agrees."""
    clock = Clock()
    game, first = _game_from(tmp_path, clock, KHARBGA_MOVING)
    first.press("exchange", "defender")
    first.press("draw", "attacker")
    first.tick()
    assert "exchange flag raised" in first.state()["status"]
    assert first.state()["draw_offer"] == "attacker"
    # No close(): as after a power cut.
    second = _gpio_service(tmp_path, clock, game)
    state = second.state()
    assert "exchange flag raised" in state["status"], state["status"]
    assert state["draw_offer"] == "attacker"
    _place(second, clock, game, "c5-c4=")
    assert second.state()["moves"][-1] == "c5-c4="
    assert second.state()["draw_offer"] is None  # a move lets an offer lapse
    second.press("draw", "defender")  # the Defender offers now; power cut again
    second.tick()
    third = _gpio_service(tmp_path, clock, game)
    assert third.state()["draw_offer"] == "defender"
    third.press("draw", "attacker")
    third.tick()
    outcome = third.state()["outcome"]
    assert outcome is not None and outcome["winner"] is None  # agreed
    for service in (third, second, first):
        service.close()


def test_a_draw_offer_declined_or_taken_back_stays_gone_after_a_crash(tmp_path: Path) -> None:
    """An offer declined (on the page) or taken back with its move (Undo)
    is gone from the board's memory too, kept so before it is shown: after
    a power cut, and without one, the other side's press of Draw is an offer
    of its own, not an agreement the page never showed."""
    clock = Clock()
    game, first = _game_from(tmp_path, clock, KHARBGA_MOVING)
    first.press("draw", "defender")
    first.tick()
    first.answer_draw("decline")  # and the power cut at once, before the next tick
    assert first.state()["draw_offer"] is None
    second = _gpio_service(tmp_path, clock, game)
    assert second.state()["draw_offer"] is None
    second.press("draw", "attacker")
    second.tick()
    assert second.state()["outcome"] is None and second.state()["draw_offer"] == "attacker"
    _place(second, clock, game, next(str(m) for m in game.legal_moves() if not m.capture))
    second.press("draw", "attacker")  # on the Attacker's turn now, after the Defender's move
    second.tick()
    assert second.state()["draw_offer"] == "attacker"
    second.press("undo")  # the Defender's move taken back, the offer after it with it
    second.tick()
    game.pop()
    _show(second, clock, _bits(game))
    assert second.state()["moves"] == [] and second.state()["draw_offer"] is None
    second.press("draw", "defender")
    second.tick()
    assert second.state()["outcome"] is None and second.state()["draw_offer"] == "defender"
    third = _gpio_service(tmp_path, clock, game)
    assert third.state()["draw_offer"] == "defender"
    for service in (third, second, first):
        service.close()


def _gpio_service(tmp_path: Path, clock: Clock, game: Game) -> BoardService:
    """A service on a real board (no simulated pieces written) showing ``game``."""
    service = BoardService(_config(tmp_path), clock)
    _show(service, clock, _bits(game))
    return service


def _game_from(tmp_path: Path, clock: Clock, position: str) -> tuple[Game, BoardService]:
    """A kharbga game from ``position``, new on such a service and shown."""
    game = Game.from_position("kharbga", position)
    service = _gpio_service(tmp_path, clock, game)
    service.new_game("kharbga", position=position)
    _show(service, clock, _bits(game))
    return game, service


def test_a_flag_raised_before_the_other_sides_move_outlives_a_crash(tmp_path: Path) -> None:
    # What the actions do not hold is kept for the position it belongs to
    # (a value of another position is not taken up): the Attacker's flag,
    # raised on the Defender's turn, is kept again with the Defender's move.
    clock = Clock()
    game, first = _game_from(tmp_path, clock, KHARBGA_MOVING)
    first.press("exchange", "attacker")
    first.tick()
    _place(first, clock, game, "e3-f3")
    assert first.state()["moves"] == ["e3-f3"]
    second = _gpio_service(tmp_path, clock, game)  # no close(): a power cut
    assert second.reconciler.pending.flags == (True, False)
    assert "exchange flag raised" in second.state()["status"]
    for service in (second, first):
        service.close()


def test_the_moves_and_what_they_do_not_hold_are_written_together(tmp_path: Path) -> None:
    # One transaction: a crash between two writes would resume the game
    # with a mark of another position (an undo's board not to be read as
    # a move, written after the undo: lost; the computer's action lit,
    # kept after it was made). Here the archive refuses the mark: the
    # move is not written either, and both are once the archive takes them.
    clock = Clock()
    game, service = _game_from(tmp_path, clock, KHARBGA_MOVING)
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("CREATE TRIGGER refused BEFORE INSERT ON kv WHEN NEW.key = 'pending' "
                   "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    _place(service, clock, game, "e3-f3")
    assert service.state()["moves"] == ["e3-f3"]
    assert service.state()["record_problem"] is not None
    stored = service.store.get(service.gid)
    assert stored is not None and stored.actions == ()
    with db:
        db.execute("DROP TRIGGER refused")
    db.close()
    _written_again(service, clock)
    stored = service.store.get(service.gid)
    assert stored is not None and stored.actions == ("e3-f3",)
    pending = service.store.get_value("pending")
    assert isinstance(pending, dict) and pending["game"] == service.gid and pending["ply"] == 1
    service.close()


def test_a_board_packed_away_during_a_restart_takes_no_placement_back(tmp_path: Path) -> None:
    """In the setting phase a cleared board is a takeback to the start, but
    not before a resumed game's board has shown it once: after a restart
    an empty reading is a board still to set up, and the placements stay."""
    clock = Clock()
    config = _config(tmp_path)
    game = Game.new("kharbga")
    first = BoardService(config, clock)
    _place(first, clock, game, "@a1", "@b1", "@a7", "@b7")
    assert first.state()["moves"] == ["@a1", "@b1", "@a7", "@b7"]
    second = BoardService(config, clock)  # a restart; the board was put away
    _show(second, clock, 0)
    state = second.state()
    assert state["moves"] == ["@a1", "@b1", "@a7", "@b7"]
    assert {state["leds"].get(s) for s in ("a1", "b1", "a7", "b7")} == {"error"}
    _show(second, clock, _bits(game))  # set up again: the game goes on
    assert second.state()["moves"] == ["@a1", "@b1", "@a7", "@b7"]
    _show(second, clock, 0)  # and now clearing it is the takeback it always was
    assert second.state()["moves"] == []
    for service in (second, first):
        service.close()


def test_a_new_game_while_the_archive_cannot_be_written_mixes_no_games(tmp_path: Path) -> None:
    """New game pressed while the card is read-only: the new game starts at
    once, the old one is finished and the new one written under an id of
    its own once the archive can be written again; the computer's side
    chosen meanwhile is kept too. Before, the change failed half-way and
    the new game's moves were later written over the old game's."""
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    first_id = service.gid
    game = Game.new("kharbga")

    _place(service, clock, game, "@a1", "@b1")
    _read_only(service, True)
    _place(service, clock, game, "@a7", "@b7")
    first = [str(m) for m in game.moves]
    service.new_game("kharbga")  # no exception: the board goes on
    assert service.state()["moves"] == [] and service.gid != first_id
    game = Game.new("kharbga")
    clock.t += 0.5
    service.feed(Frame(service.now(), 0))  # the board cleared for the new game
    _place(service, clock, game, "@c1", "@d1")
    service.set_computer("defender", 1)
    second_id = service.gid
    service.press("new")  # the board's own New game button, as the archive still fails
    clock.t += 0.5
    service.tick()
    assert service.gid not in (first_id, second_id)
    game = Game.new("kharbga")
    service.feed(Frame(service.now(), 0))  # cleared again
    clock.t += 0.5
    service.tick()
    _place(service, clock, game, "@e1", "@f1")
    assert service.state()["record_problem"] is not None
    _read_only(service, False)
    _written_again(service, clock)
    third_id = service.gid
    service.close()
    stored = Store(tmp_path)
    old, new, third = stored.get(first_id), stored.get(second_id), stored.get(third_id)
    assert old is not None and new is not None and third is not None
    assert list(third.actions) == ["@e1", "@f1"]
    assert list(old.actions) == first and old.finished is not None
    assert list(new.actions) == ["@c1", "@d1"]
    assert new.settings["computer"] == "defender"
    assert any("@" not in line for line in stored.sensor_log(first_id))
    stored.close()


def test_a_new_game_on_the_simulated_board_while_the_archive_fails(tmp_path: Path) -> None:
    """On the simulated board a checkers game (another board, its soldiers
    set up at once) asked for while the archive cannot be written starts
    at once, like any new game; once the archive is back, a restart finds
    it with its soldiers standing. Before, setting up the simulated board
    raised half-way: an internal error, the old game queued as finished
    and yet played on under its id."""
    clock = Clock()
    config = _config(tmp_path, "sim")
    service = BoardService(config, clock)
    first_id = service.gid
    service.set_sim_occupancy(None, point="a1", occupied=True)
    _read_only(service, True)
    service.new_game("checkers")
    state = service.state()
    assert state["variant"] == "checkers" and service.gid != first_id
    assert state["sim_occ"].count("1") == 24 and state["record_problem"] is not None
    _read_only(service, False)
    _written_again(service, clock)
    setup = service.state()["sim_setup"]
    service.close()
    again = BoardService(config, clock)
    state = again.state()
    assert (state["variant"], again.gid) == ("checkers", service.gid)
    assert state["sim_occ"].count("1") == 24 and state["sim_setup"] == setup
    assert "error" not in state["leds"].values()
    old = again.store.get(first_id)
    assert old is not None and old.finished is not None
    again.close()


def test_a_sensor_log_cut_short_by_a_full_disk_is_written_once_it_frees(tmp_path: Path) -> None:
    """The disk fills in the middle of writing a batch of raw sensor lines:
    once it frees, the batch is written, each line once, and the page's
    red words go. Before, the lines that fitted stayed written, and every
    retry of the batch collided with them: the game was said not to be
    saved until the service restarted (a new game's writes waited behind
    the batch)."""
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    game = Game.new("kharbga")

    _show(service, clock, 0)
    game.play("@a1")
    _show(service, clock, _bits(game))  # a move: the log so far written
    log = service.store.log_db
    pages = log.execute("PRAGMA page_count").fetchone()[0]
    log.execute(f"PRAGMA max_page_count = {pages}")  # what is free in its pages, no more
    for _ in range(150):  # heartbeats: lines kept for the next move's flush
        clock.t += 0.1
        service.feed(Frame(service.now(), _bits(game)))
    game.play("@b1")
    _show(service, clock, _bits(game))
    assert service.state()["record_problem"] is not None
    log.execute("PRAGMA max_page_count = 1073741823")  # space again
    game.play("@a7")
    _show(service, clock, _bits(game), wait=1.5)
    assert service.state()["record_problem"] is None
    gid = service.gid
    service.close()
    stored = Store(tmp_path)
    lines = stored.sensor_log(gid)
    assert len(lines) == len(set(lines)) > 150
    assert list(stored.get(gid).actions) == ["@a1", "@b1", "@a7"]  # type: ignore[union-attr]
    stored.close()


def test_a_new_games_row_written_before_its_moves_fail_is_not_written_twice(
    tmp_path: Path
) -> None:
    """New game pressed while the card is read-only, two placements made;
    then the card has room for the new game's row but not yet for its
    moves (full). Once it has space again the game is written with its
    moves. Before, the row stayed written without them and each retry
    wrote it again under the same id: "UNIQUE constraint failed", and
    nothing more was ever saved until a restart."""
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    game = Game.new("kharbga")

    db = service.store.db
    db.execute("PRAGMA query_only = 1")
    service.new_game("kharbga")
    _show(service, clock, 0)
    _place(service, clock, game, "@c1", "@d1")
    assert service.state()["record_problem"] is not None
    db.execute("PRAGMA query_only = 0")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    _fill(db, FILL_ACTIONS, lambda n: -n)  # every free byte of the moves' table taken
    clock.t += 1.5
    service.tick()  # room for the new game's row, not for its moves
    assert service.state()["record_problem"] is not None
    with db:
        db.execute("DELETE FROM actions WHERE game_id < 0")
    db.execute("PRAGMA max_page_count = 1073741823")
    _written_again(service, clock)
    stored = service.store.get(service.gid)
    assert stored is not None and list(stored.actions) == ["@c1", "@d1"]
    service.close()


def test_small_values_not_json_are_logged_and_done_without(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The values kept beside the games (what stood on the simulated board,
    an exchange flag or a draw offer, a new game waiting for the cleared
    board, the game last played) edited by hand into text that is not JSON: the board starts,
    each is named in one line of the log and done without, and the game's
    moves are as they were. Before, the service stopped at start with a
    traceback."""
    clock = Clock()
    config = _config(tmp_path, "sim")
    first = BoardService(config, clock)
    for point in ("a1", "b1"):
        first.set_sim_occupancy(None, point=point, occupied=True)
        clock.t += 1.0
        first.tick()
    first.press("draw", "defender")
    first.tick()
    gid = first.gid
    first.close()
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("INSERT OR REPLACE INTO kv VALUES ('waiting_clear', '3,')")
        db.execute("UPDATE kv SET value='{\"game\": ' WHERE key IN ('pending', 'sim_occ', "
                   "'current')")
        db.execute("INSERT OR REPLACE INTO kv VALUES ('sim_setup', x'ff')")
    keys = [r[0] for r in db.execute("SELECT key FROM kv ORDER BY key")]
    db.close()
    assert keys == ["current", "pending", "sim_occ", "sim_setup", "waiting_clear"]
    with caplog.at_level(logging.WARNING, logger="kharbga.store"):
        again = BoardService(config, clock)
    said = [r.getMessage() for r in caplog.records if r.name == "kharbga.store"]
    for key in keys:
        lines = [line for line in said if f"'{key}'" in line]
        assert len(lines) == 1 and "\n" not in lines[0], said
        assert str(tmp_path / "games.sqlite3") in lines[0] and "not JSON" in lines[0]
    state = again.state()
    assert again.gid == gid and state["moves"] == ["@a1", "@b1"]
    assert state["draw_offer"] is None  # done without
    assert not state["waiting_clear"]  # a game with moves is not waiting
    clock.t += 1.0
    again.tick()
    again.close()


def test_a_waiting_mark_not_json_keeps_the_new_game_waiting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A new game started with soldiers still on the board waits for it to
    be cleared; that mark edited by hand into text that is not JSON is
    taken as waiting (said in one line), so the soldiers left standing are
    not read as the new game's moves."""
    clock = Clock()
    config = _config(tmp_path)
    game = Game.new("kharbga")
    first = BoardService(config, clock)
    _place(first, clock, game, "@a1", "@b1")
    first.new_game("kharbga")
    assert first.state()["waiting_clear"]
    first.close()
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("UPDATE kv SET value='[' WHERE key='waiting_clear'")
    db.close()
    with caplog.at_level(logging.WARNING, logger="kharbga.store"):
        again = BoardService(config, clock)
    said = [r.getMessage() for r in caplog.records if "'waiting_clear'" in r.getMessage()]
    assert len(said) == 1 and "waits" in said[0].split("not JSON")[1], said
    _show(again, clock, _bits(game))  # the old game's soldiers
    assert again.state()["waiting_clear"] and again.state()["moves"] == []
    again.close()


def test_a_new_game_while_the_archive_cannot_even_be_read(tmp_path: Path) -> None:
    """New game pressed while every statement on the archive fails, reads
    too (a disk I/O error, the archive locked: here SQLite interrupts each
    one): the new game starts at once under an id of its own, the page says
    the game is not being saved, and both games are written once the
    archive answers again. Before, finding the new game's id raised: the
    web request failed with an internal error."""
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    first_id = service.gid
    game = Game.new("kharbga")

    _place(service, clock, game, "@a1", "@b1")
    for db in (service.store.db, service.store.log_db):
        db.set_progress_handler(lambda: 1, 1)  # every statement refused
    service.new_game("kharbga")  # no exception: the board goes on
    assert service.gid != first_id and service.state()["moves"] == []
    assert service.state()["record_problem"] is not None
    _show(service, clock, 0)  # cleared for the new game
    game = Game.new("kharbga")
    _place(service, clock, game, "@c1", "@d1")
    assert service.state()["moves"] == ["@c1", "@d1"]
    for db in (service.store.db, service.store.log_db):
        db.set_progress_handler(None, 1)
    _written_again(service, clock)
    second_id = service.gid
    service.close()
    stored = Store(tmp_path)
    old, new = stored.get(first_id), stored.get(second_id)
    assert old is not None and list(old.actions) == ["@a1", "@b1"] and old.finished is not None
    assert new is not None and list(new.actions) == ["@c1", "@d1"] and new.finished is None
    stored.close()


def test_a_held_back_write_that_fails_for_another_reason_holds_up_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write held back while the archive could not be written fails, once
    the archive can be, for a reason of the service's own (a fault: here the
    players' names): it is named in one line of the log as not written, and
    every write after it goes through, the moves too. Before, it stayed
    first in the queue: every later write (the game's moves) raised it
    again, at each tick, and nothing more was saved."""
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    first_id = service.gid
    game = Game.new("kharbga")

    def broken(*args: object) -> None:
        raise TypeError("a fault of the service")

    game.play("@a1")
    _show(service, clock, _bits(game))
    service.store.db.execute("PRAGMA query_only = 1")
    service.new_game("kharbga")
    monkeypatch.setattr(service.store, "rename", broken)
    service.set_computer("defender", 1)  # the players' names held back, to fail
    _show(service, clock, 0)
    game = Game.new("kharbga")
    _place(service, clock, game, "@c1", "@d1")
    service.store.db.execute("PRAGMA query_only = 0")
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="kharbga.store"):
        for _ in range(3):
            clock.t += 1.5
            service.tick()
    assert service.state()["record_problem"] is None
    said = [r.getMessage() for r in caplog.records
            if r.name == "kharbga.store" and r.levelno >= logging.ERROR]
    assert len(said) == 1 and "\n" not in said[0], said
    assert "a fault of the service" in said[0] and f"game {service.gid}" in said[0]
    second_id = service.gid
    service.close()
    stored = Store(tmp_path)
    old, new = stored.get(first_id), stored.get(second_id)
    assert old is not None and list(old.actions) == ["@a1"] and old.finished is not None
    assert new is not None and list(new.actions) == ["@c1", "@d1"]
    stored.close()


def test_a_game_write_that_fails_for_another_reason_is_said_and_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The game's own write fails for a reason of the service's (a fault:
    here its moves' write raises a TypeError): the board goes on, the page
    says in red the game is not being saved and why, the log says it once,
    and the moves are written once the write works again. Before, the
    error went up through the tick at every pass: a traceback each time and
    no word on the page."""
    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    game = Game.new("kharbga")
    sync = service.store.sync

    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("a fault of the service")

    monkeypatch.setattr(service.store, "sync", broken)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="kharbga.store"):
        _place(service, clock, game, "@a1", "@b1", "@a7", "@b7")
        for _ in range(3):
            clock.t += 1.5
            service.tick()
    problem = service.state()["record_problem"]
    assert problem is not None and "TypeError: a fault of the service" in problem, problem
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(said) == 1 and "\n" not in said[0], said
    assert service.state()["moves"] == ["@a1", "@b1", "@a7", "@b7"]
    monkeypatch.setattr(service.store, "sync", sync)
    _written_again(service, clock)
    gid = service.gid
    service.close()
    stored = Store(tmp_path)
    kept = stored.get(gid)
    assert kept is not None and list(kept.actions) == ["@a1", "@b1", "@a7", "@b7"]
    stored.close()


def test_an_archive_locked_by_another_program_never_holds_the_board_up(tmp_path: Path) -> None:
    """Another program holds the archive's write lock (a database browser
    left in a transaction): the board does not wait for it (SQLite would
    wait 5 s a write, the LEDs and the page frozen meanwhile); the page
    says the game is not saved, and the moves are written once it lets go."""
    import time

    clock = Clock()
    service = BoardService(_config(tmp_path), clock)
    game = Game.new("kharbga")
    _place(service, clock, game, "@a1", "@b1")
    with _locked(tmp_path):
        started = time.monotonic()
        _place(service, clock, game, "@a7", "@b7")
        clock.t += 1.5
        service.tick()  # the write tried again
        assert time.monotonic() - started < 1.0
        state = service.state()
        assert state["moves"] == ["@a1", "@b1", "@a7", "@b7"]
        assert state["record_problem"] is not None and state["record_problem"].startswith(
            "the game is not being saved (database is locked): ")
        assert state["record_problem"].endswith("(another program holding the archive?)")
    _written_again(service, clock)
    stored = Store(tmp_path)
    kept = stored.get(service.gid)
    assert kept is not None and list(kept.actions) == ["@a1", "@b1", "@a7", "@b7"]
    stored.close()
    service.close()


def test_a_simulated_board_set_up_anew_while_the_archive_is_locked_starts(
    tmp_path: Path,
) -> None:
    """The service starts on the simulated board for another board than
    the one it kept (the last game finished, the variant changed) while
    another program holds the archive's write lock: the board starts, set
    up anew, the page says the game is not saved, and the new board is
    written once the lock goes. Before, the start stopped on SQLite's
    'database is locked' (the new board was written at once, not through
    the game's writes that say a failure and try again)."""
    clock = Clock()
    first = BoardService(Config(data_dir=tmp_path, board="sim", variant="kharbga",
                                settle=0.05), clock)
    first.set_sim_occupancy(None, point="a1", occupied=True)
    clock.t += 1.0
    first.tick()
    first.press("resign", "defender")
    first.close()
    with _locked(tmp_path, "IMMEDIATE"):
        service = BoardService(Config(data_dir=tmp_path, board="sim",
                                      variant="sixteen-soldiers", settle=0.05), clock)
        state = service.state()
        assert state["variant"] == "sixteen-soldiers" and len(state["sim_occ"]) == 37
        assert state["record_problem"] is not None and "database is locked" in \
            state["record_problem"]
    _written_again(service, clock)
    assert service.store.get_value("sim_occ") == state["sim_occ"]
    assert service.store.get_value("sim_setup") == state["sim_setup"] == 1
    service.close()


ONE_CAPTURE_LEFT = "......./......./......./.AD..../D....../......./....... d m - 7"


def _game_ended_by_a3xa4(tmp_path: Path) -> tuple[Clock, Game, BoardService, int]:
    """A service on a real archive whose game one capture, a3xa4, ended;
    the end is stored."""
    clock = Clock()
    game, service = _game_from(tmp_path, clock, ONE_CAPTURE_LEFT)
    gid = service.gid
    _place(service, clock, game, "a3xa4")
    stored = service.store.get(gid)
    assert stored is not None and stored.finished is not None and stored.result == "0-1"
    return clock, game, service, gid


def test_a_game_ending_move_taken_back_reopens_the_game_in_the_archive(tmp_path: Path) -> None:
    # The capture that ends the game finishes it in the archive; Undo takes
    # it back and the game goes on. The archive's game is unfinished again
    # (no result, no record of the end taken back): a power cut then
    # resumes it with the moves played since, and its own end is the one
    # recorded. Before, it stayed finished (0-1, the old record) under its
    # new moves, and a restart left it for a new game.
    clock, game, first, gid = _game_ended_by_a3xa4(tmp_path)
    first.press("undo")
    game.pop()
    _show(first, clock, _bits(game))  # the board put back
    _place(first, clock, game, "a3-a2")
    assert first.state()["outcome"] is None and first.state()["moves"] == ["a3-a2"]
    stored = first.store.get(gid)
    assert stored is not None and stored.actions == ("a3-a2",)
    assert stored.finished is None and stored.result == "*" and stored.termination is None
    second = _gpio_service(tmp_path, clock, game)  # no close(): a power cut
    assert second.gid == gid and second.state()["moves"] == ["a3-a2"]
    _place(second, clock, game, "b4-b3", "a2-b2", "b3-c3", "b2xc2")  # another end
    assert second.state()["outcome"] is not None
    stored = second.store.get(gid)
    assert stored is not None and stored.finished is not None and stored.result == "0-1"
    assert stored.actions == ("a3-a2", "b4-b3", "a2-b2", "b3-c3", "b2xc2")
    assert "b2xc2" in second.store.record_text(gid) and "a3xa4" not in second.store.record_text(gid)
    for service in (second, first):
        service.close()


def test_a_game_ending_move_taken_back_and_another_end_while_locked(tmp_path: Path) -> None:
    # The end written; then, while another program holds the archive's
    # lock, Undo takes it back and the game comes to another end. Once the
    # lock goes the archive has the game finished with that end: the
    # moves, and the result and record of the end the game came to.
    clock, game, service, gid = _game_ended_by_a3xa4(tmp_path)
    with _locked(tmp_path):
        service.press("undo")
        game.pop()
        _show(service, clock, _bits(game))
        _place(service, clock, game, "a3-a2", "b4-b3", "a2-b2", "b3-c3", "b2xc2")
        assert service.state()["outcome"] is not None
        assert service.state()["record_problem"] is not None
    _written_again(service, clock)
    stored = service.store.get(gid)
    assert stored is not None and stored.actions == ("a3-a2", "b4-b3", "a2-b2", "b3-c3", "b2xc2")
    assert stored.finished is not None and stored.result == "0-1"
    assert "b2xc2" in service.store.record_text(gid)
    service.close()


def test_what_was_pending_at_another_ply_does_not_come_back(tmp_path: Path) -> None:
    # A draw offer and a raised flag kept at ply 2; the game went on to ply 4
    # before the restart (the mark not written again since): they belong to
    # a position gone and must not be offered again.
    from stored import stored_game

    from controller.service.keeper import PENDING, Keeper, Unrecorded

    store, game, gid = stored_game(tmp_path, "@a1", "@b1", "@a7", "@b7")
    kept = {"game": gid, "ply": 2, "flags": [True, False], "draw": 0, "expected": None,
            "undone": None}
    store.set_value(PENDING, kept)
    keeper = Keeper(store, "test", lambda: 0.0)
    assert keeper.resumed_pending(gid, game, None) == Unrecorded()
    store.set_value(PENDING, {**kept, "ply": 4})  # kept at the ply it came back to: it does
    assert keeper.resumed_pending(gid, game, None) != Unrecorded()
    store.close()
