"""What the hall believes of a board's messages: a move's time only when
it is plausible (a board's clock may be wrong, a message garbled or
forged), said once in the log."""

from __future__ import annotations

import json
import logging
import time

import pytest
from bchelp import random_game

from controller.hall.model import Hall
from controller.hall.trust import MAX_AGE, move_time, span
from controller.rules import Game
from controller.rules.record import Record


def _messages(actions: list[str], seq0: int = 0, gid: int = 1, store: str | None = "a" * 16,
              **extra: object) -> list[dict[str, object]]:
    g = Game.new("sabouiyya")
    out: list[dict[str, object]] = []
    for i, a in enumerate(actions):
        g.play(a)
        m: dict[str, object] = {"seq": seq0 + i + 1, "game_id": gid, "ply": i + 1, "move": a,
                                "position": g.position(), "time": time.time() - 30 + i,
                                "variant": "sabouiyya", "result": None, **extra}
        if store is not None:
            m["store"] = store
        out.append(m)
    return out


def _send(hall: Hall, board: str, m: dict[str, object]) -> str | None:
    return hall.handle(f"kharbga/{board}/moves", json.dumps(m).encode())


HOSTILE_TIMES: list[object] = [
    4102444800.0,  # 2100: far future
    1.0,  # 1970
    -5,
    "10:42",
    None,
    1e300,
    10**30,
    True,
]


def test_a_move_time_the_hall_cannot_believe_is_its_receive_time(
        caplog: pytest.LogCaptureFixture) -> None:
    actions = random_game(31)[:len(HOSTILE_TIMES) + 2]
    msgs = _messages(actions)
    hall = Hall()
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        assert _send(hall, "b1", msgs[0]) == "b1"  # a plausible time is the board's own
        assert hall.boards["b1"].game().times == [msgs[0]["time"]]  # type: ignore[union-attr]
        for m, t in zip(msgs[1:], HOSTILE_TIMES, strict=False):
            before = time.time()
            assert _send(hall, "b1", dict(m, time=t)) == "b1", t  # the move is kept
            shown = hall.boards["b1"].summary()["last_time"]
            assert before <= shown <= time.time(), (t, shown)
        last = dict(msgs[-1])
        del last["time"]
        assert _send(hall, "b1", last) == "b1"
    d = hall.boards["b1"].detail()
    assert d["moves"] == actions and hall.stats()["ignored"] == 0
    json.dumps(d, allow_nan=False)
    lines = [r.getMessage() for r in caplog.records]
    clock = [line for line in lines if "kharbga/b1" in line]
    assert len(clock) == 1, lines  # once for the board, not at every move
    assert "ahead of the hall's" in clock[0] and "time the hall received them" in clock[0]


def test_each_board_with_a_wrong_clock_is_named_once(caplog: pytest.LogCaptureFixture) -> None:
    hall = Hall()
    behind = time.time() - 3 * 86400  # a Pi started without network time, three days behind
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        for board in ("b1", "b2"):
            for m in _messages(random_game(32)[:4]):
                _send(hall, board, dict(m, time=behind))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and "kharbga/b1" in lines[0] and "kharbga/b2" in lines[1], lines
    assert "its move time is 3 days behind the hall's clock" in lines[0]


def test_move_time() -> None:
    now = 1_800_000_000.0
    assert move_time(now - 5, now) == (now - 5, None)
    assert move_time(now - MAX_AGE + 60, now)[1] is None  # queued for hours: the board's time
    assert move_time(now + 5, now) == (now + 5, None)  # within the clocks' tolerance
    for t in (now + 60, now - MAX_AGE - 60, 0, -1.0, float("nan"), float("inf"), "1", [1]):
        shown, why = move_time(t, now)
        assert shown == now and why, t
    assert span(40) == "40 s" and span(600) == "10 min" and span(5 * 3600) == "5 h"
    assert span(1e300).endswith(" days") and len(span(1e300)) < 20


def test_a_message_naming_no_store_cannot_take_over_a_board(
        caplog: pytest.LogCaptureFixture) -> None:
    actions = random_game(33)[:12]
    msgs = _messages(actions)
    hall = Hall()
    for m in msgs[:8]:
        _send(hall, "b1", m)
    garbage = _messages(random_game(34)[:1], seq0=500, gid=99999, store=None)[0]
    state = {"game_id": 99999, "position": garbage["position"], "variant": "sabouiyya",
             "status": "Attacker to move"}
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        for _ in range(3):
            assert _send(hall, "b1", garbage) is None
        assert hall.handle("kharbga/b1/state", json.dumps(state).encode()) is None
        for m in msgs[8:]:  # the board itself goes on
            assert _send(hall, "b1", m) == "b1"
    d = hall.boards["b1"].detail()
    assert d["game_id"] == 1 and d["moves"] == actions and d["status"] is None
    assert hall.stats()["ignored_by_reason"] == {"storeless": 4}
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith("hall: kharbga/b1: storeless message "
                                                   "ignored (a message naming no store"), lines
    # A board of an earlier version, which names no store at all, is followed as before.
    for m in _messages(actions[:3], store=None):
        assert _send(hall, "old", m) == "old"
    assert hall.boards["old"].detail()["moves"] == actions[:3]


def test_a_seq_beyond_what_a_board_sends_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    actions = random_game(35)[:12]
    msgs = _messages(actions)
    hall = Hall()
    for m in msgs[:6]:
        _send(hall, "b1", m)
    other = _messages(random_game(36)[:1], gid=7)[0]
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        for seq in (10**30, 2**53 + 1, 6 + 50_000):
            assert _send(hall, "b1", dict(other, seq=seq)) is None, seq
        for m in msgs[6:]:  # not frozen: the board's next messages are taken
            assert _send(hall, "b1", m) == "b1"
    d = hall.boards["b1"].detail()
    assert d["game_id"] == 1 and d["moves"] == actions and hall.boards["b1"].seq == 12
    assert hall.stats()["ignored_by_reason"] == {"out-of-line seq": 3}
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and lines[0].startswith(
        "hall: kharbga/b1/moves: out-of-line seq message ignored (seq 1000000000000"), lines
    assert "is beyond any board's count: not this board's next message" in lines[0]


def test_a_seq_below_any_board_count_is_refused() -> None:
    """A board counts its messages from 1: a seq of 0 or below (garbled,
    forged) is refused, not followed as the board's own from there (which
    refused every later message of the board as out of line)."""
    actions = random_game(38)[:10]
    msgs = _messages(actions)
    hall = Hall()
    for m in msgs[:4]:
        assert _send(hall, "b1", m) == "b1"
    for seq in (-10**6, -1, 0):
        assert _send(hall, "b1", dict(msgs[4], seq=seq)) is None, seq
    for m in msgs[4:]:
        assert _send(hall, "b1", m) == "b1"
    assert hall.boards["b1"].detail()["moves"] == actions and hall.boards["b1"].seq == 10
    assert hall.stats()["ignored_by_reason"] == {"out-of-line seq": 3}


def test_a_wrong_seq_heard_first_does_not_freeze_the_board() -> None:
    """The hall started after a wrong message (its seq not yet known): the
    board's own messages, far below it, are followed from there."""
    actions = random_game(37)[:6]
    msgs = _messages(actions, seq0=40)
    hall = Hall()
    assert _send(hall, "b1", dict(msgs[0], seq=2**50)) == "b1"
    for m in msgs[1:]:
        assert _send(hall, "b1", m) == "b1"
    assert hall.boards["b1"].detail()["moves"] == actions and hall.repeats == 0
    assert _send(hall, "b1", msgs[-1]) is None and hall.repeats == 1  # a real repeat still is


def test_a_game_of_a_variant_the_hall_does_not_know_is_said_so() -> None:
    """A board of a newer version plays a variant these rules do not know:
    its card says so (the page words it), and the evening's file leaves
    it out, counted once, not again at every download."""
    hall = Hall()
    for m in _messages(random_game(38)[:3]):
        _send(hall, "known", m)
    for i, token in enumerate(["@c3", "@d3"]):
        _send(hall, "newer", {"seq": i + 1, "store": "b" * 16, "game_id": 4, "ply": i + 1,
                              "move": token, "position": "5/5/5/5/5 a s - 1",
                              "time": time.time(), "variant": "zamma", "result": None})
    summaries = {s["board"]: s for s in hall.summaries()}
    assert summaries["known"]["known_variant"] is True
    assert summaries["newer"]["known_variant"] is False
    assert summaries["newer"]["last_move"] == "@d3" and summaries["newer"]["variant"] == "zamma"
    for _ in range(3):
        assert "zamma" not in hall.kgn()
    assert hall.stats()["ignored_by_reason"] == {"game of an unknown variant": 1}


def test_one_message_naming_another_store_does_not_freeze_the_board(
        caplog: pytest.LogCaptureFixture) -> None:
    """A garbled or forged message naming a store of its own: the hall
    takes it for the board set up again, but the board's own store then
    goes on with new messages: the hall follows it again, its games back
    on the card, and refuses the stray store from then on."""
    actions = random_game(39)[:12]
    msgs = _messages(actions)
    hall = Hall()
    for m in msgs[:8]:
        _send(hall, "b1", m)
    stray = _messages(random_game(40)[:1], gid=5, store="f" * 16)[0]
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        assert _send(hall, "b1", stray) == "b1"  # as a board set up again would be
        assert hall.boards["b1"].detail()["game_id"] == 5
        assert _send(hall, "b1", msgs[3]) is None  # a late repeat of the earlier store
        for m in msgs[8:]:  # the board's own next messages: followed again
            assert _send(hall, "b1", m) == "b1"
        assert _send(hall, "b1", dict(stray, seq=2)) is None  # the stray store: refused now
        state = {"game_id": 5, "position": stray["position"], "store": "f" * 16}
        assert hall.handle("kharbga/b1/state", json.dumps(state).encode()) is None
    d = hall.boards["b1"].detail()
    assert d["game_id"] == 1 and d["moves"] == actions and hall.boards["b1"].store == "a" * 16
    assert [g.id for g in hall.boards["b1"].earlier] == [5]  # kept for the evening's file
    lines = [r.getMessage() for r in caplog.records]
    back = [line for line in lines if "speaks again" in line]
    assert len(back) == 1 and back[0].startswith(f"hall: kharbga/b1: store {'a' * 16} speaks "
                                                 "again"), lines


def _record(actions: list[str], gid: int, store: str | None) -> bytes:
    g = Game.new("sabouiyya")
    for a in actions:
        g.play(a)
    tags = {"GameId": str(gid), **({"Store": store} if store is not None else {})}
    return str(Record.from_game(g, tags)).encode()


def test_a_record_of_another_store_cannot_replace_a_boards_moves(
        caplog: pytest.LogCaptureFixture) -> None:
    # A record holding more actions than the hall has replaces the card's
    # moves (it fills what the hall missed): one of another store (a late
    # copy of a store the board left, two boards under one id) or naming
    # none, once the board names its store, is refused, the card intact.
    actions, other = random_game(41)[:10], random_game(42)[:14]
    hall = Hall()
    for m in _messages(actions[:6]):
        _send(hall, "b1", m)
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        assert hall.handle("kharbga/b1/game", _record(other, 1, "f" * 16)) is None
        assert hall.handle("kharbga/b1/game", _record(other, 1, None)) is None
    assert hall.boards["b1"].detail()["moves"] == actions[:6]
    assert hall.stats()["ignored_by_reason"] == {"stray record": 1, "storeless": 1}
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == (f"hall: kharbga/b1/game: stray record message ignored (a record of "
                        f"store {'f' * 16}, while this board sends from store {'a' * 16})")
    # The board's own record (its store named) fills the moves the hall missed.
    assert hall.handle("kharbga/b1/game", _record(actions, 1, "a" * 16)) == "b1"
    assert hall.boards["b1"].detail()["moves"] == actions
    # A board of an earlier version names no store anywhere: its records are taken.
    for m in _messages(actions[:3], store=None):
        _send(hall, "old", m)
    assert hall.handle("kharbga/old/game", _record(actions, 1, None)) == "old"
    assert hall.boards["old"].detail()["moves"] == actions


def test_a_board_clock_off_by_hours_is_corrected_by_its_sent_time() -> None:
    now = 1_800_000_000.0
    behind = now - 2 * 3600  # a Pi without network time, two hours behind
    # Within MAX_AGE a move 2 h "old" was believed; with the send time it is
    # moved by the clocks' difference: confirmed 5 s before it was sent.
    assert move_time(behind - 5, now, behind) == (now - 5, "its clock is 2 h behind the hall's")
    assert move_time(now + 300 - 10, now, now + 300) == (
        now - 10, "its clock is 5 min ahead of the hall's")
    # Queued through a broker outage: the action's age is kept.
    assert move_time(behind - 3600, now, behind)[0] == now - 3600
    assert move_time(now - 30, now, now - 0.4) == (now - 30, None)  # a sound clock: as it is
    for sent in ("x", None, float("nan"), True):  # no usable send time: as before
        assert move_time(behind, now, sent) == (behind, None)
    shown, why = move_time(now - MAX_AGE - 9e5, now, now - 60)  # off even when moved
    assert shown == now and why is not None and "behind the hall's clock" in why


def test_a_board_whose_clock_is_behind_shows_its_moves_at_the_right_time(
        caplog: pytest.LogCaptureFixture) -> None:
    hall = Hall()
    off = 3 * 3600.0  # three hours behind: within MAX_AGE, so before shown 3 h old
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        for m in _messages(random_game(43)[:4]):
            now = time.time()
            _send(hall, "b1", dict(m, time=now - 1 - off, sent=now - off))
    times = hall.boards["b1"].game().times  # type: ignore[union-attr]
    assert all(time.time() - 5 < t <= time.time() for t in times), times
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["hall: kharbga/b1: its clock is 3 h behind the hall's: its moves are shown "
                     "moved by the difference (set the boards' clocks: network time)"]
