"""The hall numbers moves by turn as the board page and the KGN do (a
setting turn's two placements together, a chain as one token), says a
game's end in words, sends the page only the turns that changed, and
knows when a board last spoke itself; a topic not in UTF-8 is ignored
without stopping the broker link's thread."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from bchelp import random_game
from fake_clock import FakeClock

from controller.hall.model import Hall
from controller.hall.protocol import BroadcastConfig
from controller.hall.server import HallServer
from controller.rules import Game
from controller.rules.record import Record, group_turns

T0 = time.time() - 600  # the first move's time: ten minutes ago


def _send(hall: Hall, actions: list[str], board: str = "b1", retained: bool = False) -> None:
    """The moves messages of a sabouiyya game, as a board sends them."""
    g = Game.new("sabouiyya")
    for i, a in enumerate(actions):
        if a.startswith("resign:"):
            g.resign(a.split(":")[1])
        elif a == "agreement":
            g.agree_draw()
        else:
            g.play(a)
        hall.handle(f"kharbga/{board}/moves", json.dumps({
            "seq": i + 1, "board": board, "game_id": 1, "ply": i + 1, "move": a,
            "position": g.position(), "time": T0 + i, "variant": "sabouiyya",
            "result": None if g.outcome is None else g.outcome.result}).encode(), retained)


def _chain_game() -> list[str]:
    """A random game holding a chain of captures (one turn, one token)."""
    for seed in range(200):
        actions = random_game(seed, limit=80)
        g = Game.new("sabouiyya")
        for a in actions:
            g.play(a)
        if any(tok.count("x") > 1 for turn in group_turns(g) for tok in turn):
            return actions
    raise AssertionError("no random game with a chain")


def test_turns_are_the_records() -> None:
    actions = _chain_game()
    hall = Hall()
    _send(hall, actions)
    g = Game.new("sabouiyya")
    for a in actions:
        g.play(a)
    expected = [[n, turn] for n, turn in enumerate(group_turns(g), 1)]
    d = hall.boards["b1"].detail()
    assert d["moves"] == actions  # the single actions still, for the replay
    assert d["turns"] == expected
    assert len(expected) < len(actions)  # numbered by turn, not by action
    # A setting turn is its two placements; the record writes the same turns.
    assert d["turns"][0] == [1, actions[:2]] and actions[0].startswith("@")
    movetext = str(Record.from_game(g, {})).split("\n\n", 1)[1]
    last_n, last = expected[-1]
    assert f"{last_n}. {' '.join(last)}" in " ".join(movetext.split())


def test_the_end_in_words() -> None:
    actions = random_game(3)[:14]
    hall = Hall()
    _send(hall, [*actions, "resign:defender"])
    s = hall.boards["b1"].summary()
    assert s["ending"] == "Defender resigned: Attacker wins" and s["result"] == "1-0"
    # The resignation is no turn of the list.
    assert all("resign" not in tok for _, turn in s_turns(hall) for tok in turn)
    other = Hall()
    _send(other, [*actions, "agreement"])
    assert other.boards["b1"].summary()["ending"] == "Draw agreed"
    going = Hall()
    _send(going, actions)
    assert going.boards["b1"].summary()["ending"] is None


def s_turns(hall: Hall, board: str = "b1") -> list[list[object]]:
    return list(hall.boards[board].detail()["turns"])


def test_page_gets_the_turns_that_changed() -> None:
    """Flushed after every action, the parts sent rebuild the whole list
    (a setting turn's second placement replaces the turn sent with one)."""
    server = HallServer(BroadcastConfig("mqtt://127.0.0.1:1", "hall"), "test")
    actions = _chain_game()
    page: list[list[object]] = []
    sizes = []
    for i in range(1, len(actions) + 1):
        _send_one(server.hall, actions, i)
        m = server.snapshot({"b1"}, incremental=True)["moves"]["b1"]
        assert m["turns_from"] <= len(page)
        page = page[:m["turns_from"]] + m["turns"]
        sizes.append(len(m["turns"]))
        assert page == s_turns(server.hall)
    assert max(sizes) <= 2  # the last turn and a new one, never the whole list again
    # A new page (not incremental) gets every turn.
    assert server.snapshot(None)["moves"]["b1"]["turns"] == page


def _send_one(hall: Hall, actions: list[str], i: int) -> None:
    """The moves message of action ``i`` (from 1) of ``actions``."""
    g = Game.new("sabouiyya")
    for a in actions[:i]:
        g.play(a)
    hall.handle("kharbga/b1/moves", json.dumps({
        "seq": i, "board": "b1", "game_id": 1, "ply": i, "move": actions[i - 1],
        "position": g.position(), "time": 1000.0 + i, "variant": "sabouiyya",
        "result": None}).encode())


def test_when_a_board_was_last_heard() -> None:
    hall = Hall()
    hall.handle("kharbga/b1/online", b"1", retained=True)
    _send(hall, random_game(5)[:6], retained=True)  # the broker's copies, at start
    s = hall.boards["b1"].summary()
    assert s["heard"] == T0 + 5  # not the hall's start: the last move's time
    before = time.time()
    hall.handle("kharbga/b1/online", b"1")
    assert hall.boards["b1"].summary()["heard"] >= before
    heard = hall.boards["b1"].summary()["heard"]
    hall.handle("kharbga/b1/online", b"0")  # the last will: the broker speaks, not the board
    s = hall.boards["b1"].summary()
    assert s["online"] is False and s["heard"] == heard


def test_since_when_a_board_is_gone() -> None:
    # A board quiet for ten minutes (its players thinking) that goes now is
    # said gone now, not ten minutes ago: the will's arrival is kept.
    hall = Hall()
    _send(hall, random_game(5)[:6])
    assert hall.boards["b1"].summary()["gone"] is None
    hall.handle("kharbga/b1/online", b"0", retained=True)  # a copy the broker kept
    assert hall.boards["b1"].summary()["gone"] is None  # when it went is not known
    hall.handle("kharbga/b1/online", b"1")
    before = time.time()
    hall.handle("kharbga/b1/online", b"0")  # the broker saw it go just now
    s = hall.boards["b1"].summary()
    assert s["online"] is False and s["gone"] >= before and s["gone"] > s["heard"]
    hall.handle("kharbga/b1/online", b"1")
    assert hall.boards["b1"].summary()["gone"] is None
    # The wills a stopping Mosquitto sends just before the hall's link drops
    # are the broker's going, not the boards': their time is dropped.
    hall.handle("kharbga/b1/online", b"0")
    hall.handle("kharbga/b2/online", b"0")
    hall.boards["b2"].gone_at = time.time() - 60  # gone a minute before
    assert hall.link_lost() == ["b1"]
    assert hall.boards["b1"].summary()["gone"] is None
    assert hall.boards["b2"].summary()["gone"] is not None
    hall.unheard()  # a broker back without its memory: nothing known of when
    assert hall.boards["b2"].summary()["gone"] is None


def test_since_when_the_halls_link_is_down(monkeypatch: pytest.MonkeyPatch) -> None:
    # The header says since when the hall hears nothing: kept while only the
    # reason changes (lost, then unreachable), new when the link flips.
    clock = FakeClock(1000.0)
    monkeypatch.setattr("controller.hall.server.time.time", clock)
    server = HallServer(BroadcastConfig("mqtt://127.0.0.1:1", "hall"), "h")
    clock.t = 1010.0
    server._set_link(True, "")
    assert server.link["since"] == 1010.0
    clock.t = 1020.0
    server._set_link(True, "")  # still up: since when it came up
    assert server.link["since"] == 1010.0
    clock.t = 1030.0
    server._set_link(False, "")
    assert server.link["since"] == 1030.0
    clock.t = 1040.0
    server._set_link(False, "unreachable")
    assert server.link["since"] == 1030.0 and server.link["error"] == "unreachable"
    clock.t = 1050.0
    server._set_link(True, "")
    assert server.link["since"] == 1050.0 and server.link["connected"]


def test_a_game_from_a_position_goes_on_from_its_turn() -> None:
    # The hall numbers a game set up from a position as the board's page
    # and its record do: from the position's turn (after the setting's).
    from controller.hall.turns import turns_of
    from controller.rules.record import first_turn
    from controller.rules.variants import find_variant

    start = "D.DAD/.DA../DA.../AA.../....A d m - 10"
    g = Game.from_position("sabouiyya", start)
    moves = []
    for _ in range(3):
        move = str(sorted(g.legal_moves(), key=str)[0])
        g.play(move)
        moves.append(move)
    _, shown = turns_of(None, ("b1", 1), "sabouiyya", "", start, moves)
    first = first_turn(find_variant("sabouiyya"), start)
    assert first > 1
    assert [n for n, _ in shown.turns] == list(range(first, first + len(shown.turns)))
    # Actions the rules refuse follow on from the last number.
    _, shown = turns_of(None, ("b1", 2), "sabouiyya", "", start, [*moves, "z9-z8"])
    assert shown.turns[-1] == [shown.turns[-2][0] + 1, ["z9-z8"]]
    # With no turn replayed (the first action refused), they start from the
    # position's turn too, as the record numbers its first turn.
    _, shown = turns_of(None, ("b1", 3), "sabouiyya", "", start, ["z9-z8", "a1-a2"])
    assert shown.turns == [[first, ["z9-z8"]], [first + 1, ["a1-a2"]]]
    # A start these rules cannot set up has no turn of its own: from 1, as
    # the record of a game that does not replay is written.
    _, shown = turns_of(None, ("b1", 4), "no-such-variant", "", start, ["a1-a2"])
    assert shown.turns == [[1, ["a1-a2"]]]


def test_a_topic_not_in_utf8_is_ignored_and_the_hall_keeps_listening() -> None:
    """MQTT topics are UTF-8; a broker that passes one that is not must not
    stop paho's thread (the hall would hear nothing more): counted as a
    foreign topic, and the next message taken."""
    from paho.mqtt.client import MQTTMessage
    server = HallServer(BroadcastConfig("mqtt://127.0.0.1:1", "hall"), "h")
    loop = asyncio.new_event_loop()
    server._loop = loop
    try:
        bad = MQTTMessage(topic=b"kharbga/\xff\xfe/moves")
        bad.payload = b"{}"
        server._on_message(None, None, bad)
        g = Game.new("sabouiyya")
        a = random_game(4)[0]
        g.play(a)
        good = MQTTMessage(topic=b"kharbga/b1/moves")
        good.payload = json.dumps({"seq": 1, "board": "b1", "game_id": 1, "ply": 1, "move": a,
                                   "position": g.position(), "time": T0, "variant": "sabouiyya",
                                   "result": None}).encode()
        server._on_message(None, None, good)
        loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        loop.close()
    assert server.hall.ignored == {"foreign topic": 1}
    assert server.hall.boards["b1"].detail()["moves"] == [a]
