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
