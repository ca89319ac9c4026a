"""The publisher's queue in the SQLite store: moves queued while the broker
is away stay in the table across a restart of the board, actions the store
holds but the queue never saw (a power cut between the two writes) are
queued on the next start, and everything reaches the broker in order, once."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
import time
from pathlib import Path

import pytest
from bchelp import Broker, Listener, free_port, random_game, wait_until

from controller.hall.model import Hall
from controller.rules import Game, find_any_variant
from controller.rules.leap_factory import apply_any_options
from controller.rules.record import parse_record
from controller.service.broadcast import BroadcastConfig, Publisher
from controller.service.store import Store


def _outbox(data: Path) -> list[dict[str, object]]:
    db = sqlite3.connect(data / "games.sqlite3")
    try:
        rows = db.execute("SELECT payload FROM broadcast_outbox ORDER BY seq").fetchall()
    except sqlite3.OperationalError:  # not made yet
        rows = []
    finally:
        db.close()
    return [json.loads(r[0]) for r in rows]


def test_queue_survives_restarts_and_catches_up(tmp_path: Path) -> None:
    data = tmp_path / "data"
    actions = random_game(41)[:15]
    game = Game.new("sabouiyya")
    store = Store(data)
    for a in actions[:10]:
        game.play(a)
    gid = store.new_game(game, "Ali", "Badr")
    port = free_port()
    config = BroadcastConfig(url=f"mqtt://127.0.0.1:{port}", board_id="ob")
    # The broker is away: the ten actions wait in the table.
    first = Publisher(config, data)
    first.start()
    wait_until(lambda: len(_outbox(data)) == 10, 10, "ten moves queued")
    assert "unreachable" in first.link()["error"]
    first.close()
    assert [m["move"] for m in _outbox(data)] == actions[:10]
    # Five more actions recorded while no publisher ran (a power cut right
    # after the store's write).
    for a in actions[10:]:
        game.play(a)
    store.sync(gid, game)
    store.close()
    broker = Broker(tmp_path / "broker")
    broker.port = port
    broker.conf.write_text(f"listener {port} 127.0.0.1\npersistence false\n"
                           "allow_anonymous true\n")
    broker.start()
    listener = Listener(broker.url, "kharbga/ob/moves")
    time.sleep(0.3)
    second = Publisher(config, data)
    second.start()
    try:
        wait_until(lambda: len(listener.on("kharbga/ob/moves")) >= 15, 15, "fifteen moves")
        wait_until(lambda: not _outbox(data), 10, "the queue emptied by the acknowledgements")
        time.sleep(0.5)
        moves = [json.loads(p) for p in listener.on("kharbga/ob/moves")]
        assert [m["move"] for m in moves] == actions
        assert [m["ply"] for m in moves] == list(range(1, 16))
        assert [m["seq"] for m in moves] == sorted({m["seq"] for m in moves})
        assert moves[0]["attacker"] == "Ali" and moves[0]["game_id"] == gid
    finally:
        second.close()
        listener.close()
        broker.stop()
    # A third start finds nothing new to send.
    third = Publisher(config, data)
    third.start()
    time.sleep(1.0)
    third.close()
    assert not _outbox(data)


def _stored(data: Path, seed: int, n: int, names: tuple[str, str]) -> tuple[int, list[str]]:
    """A random sabouiyya game of ``n`` actions stored: its id and actions."""
    store = Store(data)
    game = Game.new("sabouiyya")
    actions = random_game(seed)[:n]
    for a in actions:
        game.play(a)
    gid = store.new_game(game, *names)
    store.close()
    return gid, actions


def _queued(data: Path, config: BroadcastConfig, n: int, caplog: pytest.LogCaptureFixture,
            why: str) -> list[dict[str, object]]:
    """Run the sender until ``n`` messages are queued; the queue."""
    publisher = Publisher(config, data)
    with caplog.at_level(logging.WARNING, logger="kharbga.broadcast"):
        publisher.start()
        try:
            wait_until(lambda: len(_outbox(data)) == n, 10, why)
            time.sleep(0.5)
        finally:
            publisher.close()
    return _outbox(data)


def test_a_game_that_no_longer_replays_does_not_hold_up_the_rest(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stored game the rules refuse (an archive from other rules, edited
    by hand) is skipped with one line; the games after it are queued."""
    data = tmp_path / "data"
    broken, _ = _stored(data, 5, 6, ("Ali", "Badr"))
    db = sqlite3.connect(data / "games.sqlite3")
    with db:  # the second action made the same as the first: not a legal game
        first_token = db.execute("SELECT token FROM actions WHERE game_id=? AND ply=0",
                                 (broken,)).fetchone()[0]
        db.execute("UPDATE actions SET token=? WHERE game_id=? AND ply=1",
                   (first_token, broken))
    db.close()
    later, actions = _stored(data, 6, 8, ("Chema", "Dora"))
    config = BroadcastConfig(url=f"mqtt://127.0.0.1:{free_port()}", board_id="ob")
    queued = _queued(data, config, 8, caplog, "the later game's moves queued")
    assert {m["game_id"] for m in queued} == {later}
    assert [m["move"] for m in queued] == actions
    said = [r.getMessage() for r in caplog.records if "does not replay" in r.getMessage()]
    assert said == [said[0]] and said[0].startswith(f"broadcast: game {broken} does not "
                                                    f"replay (action 2 ({first_token}): ")


def test_an_unreadable_list_of_moves_sent_holds_up_no_other_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The sender's own list of what it queued for a game, edited into
    something else: that game is skipped with one line, later games go."""
    data = tmp_path / "data"
    first, _ = _stored(data, 5, 6, ("Ali", "Badr"))
    config = BroadcastConfig(url=f"mqtt://127.0.0.1:{free_port()}", board_id="ob")
    _queued(data, config, 6, caplog, "the first game's moves queued")
    db = sqlite3.connect(data / "games.sqlite3")
    with db:
        db.execute("UPDATE broadcast_sent SET tokens=? WHERE game_id=?", ('["@a1", ', first))
        db.execute("DELETE FROM broadcast_outbox")
    db.close()
    caplog.clear()
    later, actions = _stored(data, 6, 4, ("Chema", "Dora"))
    queued = _queued(data, config, 4, caplog, "the later game's moves queued")
    assert [m["move"] for m in queued if m["game_id"] == later] == actions
    said = [r.getMessage() for r in caplog.records if f"game {first}" in r.getMessage()]
    assert said == [f"broadcast: game {first} does not replay (its list of the moves already "
                    "sent is unreadable): not broadcast"]


def test_a_game_set_up_from_a_position_reaches_the_hall_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The moves messages carry a game's start position and rule options,
    so the hall's evening file replays a game set up from a position (with
    H'ajeb on) from its moves alone, before the board's record comes."""
    variant = apply_any_options(find_any_variant("sabouiyya"), "hajeb=true")
    rng = random.Random(12)
    game = Game.new(variant)
    while game.phase != "moving":
        game.play(rng.choice(game.legal_moves()))
    start = game.position()
    game = Game.from_position(variant, start)  # the board set up from it
    while len(game.moves) < 9:
        game.play(rng.choice([m for m in game.legal_moves() if m.kind != "pass"]))
        assert game.outcome is None
    data = tmp_path / "data"
    store = Store(data)
    gid = store.new_game(game, "Ali", "Badr")
    store.close()
    config = BroadcastConfig(url=f"mqtt://127.0.0.1:{free_port()}", board_id="ob")
    queued = _queued(data, config, 9, caplog, "the nine moves queued")
    assert {(m["start"], m["options"]) for m in queued} == {(start, "hajeb=true")}
    hall = Hall()
    for i, m in enumerate(queued):
        hall.handle("kharbga/ob/moves", json.dumps(dict(m, seq=i + 1)).encode())
    text = hall.kgn()
    record = parse_record(text)
    assert "Note" not in record.tags, record.tags.get("Note")
    assert record.tags["Position"] == start and record.tags["Options"] == "hajeb=true"
    assert record.tags["GameId"] == str(gid)
    replay = record.game()
    assert replay.position() == game.position() and replay.variant.hajeb
    # Without the start (a board of an older version), the file says why.
    old = Hall()
    for i, m in enumerate(queued):
        bare = {k: v for k, v in m.items() if k not in ("start", "options")}
        old.handle("kharbga/ob/moves", json.dumps(dict(bare, seq=i + 1)).encode())
    assert parse_record(old.kgn()).tags["Note"].startswith(
        "the moves received do not replay from action 1 ")


def test_a_queue_write_cut_short_queues_each_move_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The write of a game's messages fails part-way (here the list of
    what was queued, refused as a full disk would): nothing of it stays,
    and the next turn queues each move once. Before, the messages stayed
    queued without the list, and the next turn queued them all again: the
    hall was sent every move twice."""
    data = tmp_path / "data"
    actions = random_game(43)[:6]
    game = Game.new("sabouiyya")
    store = Store(data)
    for a in actions:
        game.play(a)
    store.new_game(game, "Ali", "Badr")
    store.db.executescript(
        "CREATE TABLE broadcast_sent (game_id INTEGER PRIMARY KEY, tokens TEXT NOT NULL);"
        "CREATE TRIGGER full BEFORE INSERT ON broadcast_sent "
        "BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END;")
    config = BroadcastConfig(url=f"mqtt://127.0.0.1:{free_port()}", board_id="ob")
    caplog.set_level(logging.WARNING, "kharbga.broadcast")
    publisher = Publisher(config, data)
    publisher.start()
    try:
        wait_until(lambda: "broadcast: database or disk is full" in caplog.messages, 10,
                   "the first turn's queueing refused")
        assert not _outbox(data)  # nothing of the refused write stays
        store.db.execute("DROP TRIGGER full")
        publisher.listener({})  # a change of state: the sender looks again
        wait_until(lambda: len(_outbox(data)) >= len(actions), 10, "the moves queued")
        time.sleep(0.5)
        assert [m["move"] for m in _outbox(data)] == actions
    finally:
        publisher.close()
        store.close()


def test_a_finished_game_whose_end_is_taken_back_is_followed_again(tmp_path: Path) -> None:
    """Undo of the capture that ended a game makes it unfinished in the
    store: the publisher, which had stopped following the finished game,
    queues the undo and the moves made since, with no result."""
    data = tmp_path / "data"
    start = "......./......./......./.AD..../D....../......./....... d m - 7"
    game = Game.from_position("kharbga", start)
    store = Store(data)
    gid = store.new_game(game, "Ali", "Badr")
    config = BroadcastConfig(url=f"mqtt://127.0.0.1:{free_port()}", board_id="ob")
    publisher = Publisher(config, data)
    publisher.start()
    # Started: it follows the games from the first unfinished one, taken
    # when its thread starts (the game must not have ended by then).
    wait_until(lambda: "unreachable" in publisher.link()["error"], 10, "the publisher started")
    try:
        game.play("a3xa4")  # the Attacker's last soldier taken: the game ends
        store.sync(gid, game)
        store.finish(gid, game)
        publisher.listener({"game_id": gid})
        wait_until(lambda: len(_outbox(data)) == 1, 10, "the ending move queued")
        assert _outbox(data)[0]["result"] == "0-1"
        time.sleep(0.3)  # the publisher has seen the game finished
        game.pop()
        game.play("a3-a2")
        store.sync(gid, game)  # the undo and a move made since
        publisher.listener({"game_id": gid, "moves": 1})
        wait_until(lambda: len(_outbox(data)) == 3, 10, "the undo and the new move queued")
        # And it ends again: that end is sent too (before, the publisher
        # followed the game no more: the hall showed it unfinished for good).
        time.sleep(0.3)
        game.resign("attacker")
        store.finish(gid, game)
        publisher.listener({"game_id": gid, "moves": 1, "outcome": "resigned"})
        wait_until(lambda: len(_outbox(data)) == 4, 10, "the second end queued")
    finally:
        publisher.close()
        store.close()
    undo, move, end = _outbox(data)[1:]
    assert undo["undo"] is True and undo["ply"] == 0 and undo["result"] is None
    assert move["move"] == "a3-a2" and move["ply"] == 1 and move["result"] is None
    assert end["result"] == "0-1"
