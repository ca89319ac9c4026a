"""The stuck-switch watch of a Pico board, end to end: the firmware (in
MicroPython, on simulated switches) reports its debounced frames over a
pty; the serial backend's watch is told the board the service's state
expects, as the GPIO board's scanner is.  A reed welded shut where no
piece should stand, or one that no longer closes under a piece, is named
on the page and in the log, by its switch and its point; nothing is said
during play, while a piece is in the hand, or while a leap game's
soldiers are being set out, however slowly."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pico_rig import Rig, occupancy, wait_for

from controller.drivers.switch_watch import WatchSettings
from controller.rules import AnyGame, Move, new_game

pytestmark = pytest.mark.timeout(180)

STUCK_AFTER = 1.0  # seconds (10 by default)
WATCH = "controller.drivers.switch_watch"


@pytest.fixture
def rig(request: pytest.FixtureRequest, tmp_path: Path, micropython: str) -> Iterator[Rig]:
    r = Rig(tmp_path, micropython, request.param, "",
            watch=WatchSettings(stuck_after=STUCK_AFTER), heartbeat=0.2)
    try:
        r.backend.start()
        assert r.backend.link.wait_connected(15), r.backend.link.stats()
        yield r
    finally:
        r.close()


def problem(rig: Rig) -> str | None:
    """The switches named on the page: a fault of a board still read (the
    board is not said to be unread for a welded reed)."""
    state = rig.pump()
    words = state["board_fault"]
    assert words is None or isinstance(words, str)
    assert state["sensor_problem"] is None
    return words


def quiet_for(rig: Rig, seconds: float) -> None:
    """Pump for ``seconds`` (longer than the watch waits): nothing is said."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert problem(rig) is None
        time.sleep(0.02)


def named(rig: Rig, words: str) -> str:
    """Pump until the page's problem says ``words``; the whole line."""
    wait_for(lambda: words in (problem(rig) or ""), repr(words), timeout=15)
    return str(rig.service.state()["board_fault"])


def watch_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == WATCH]


def set_out(rig: Rig, occupied: int) -> None:
    """The 37-point board's soldiers all standing (``occupied``): pump
    until the setting out is over."""
    rig.sim.set_occupancy(occupied)
    wait_for(lambda: "setup" not in rig.pump()["leds"].values(), "the soldiers set out")  # type: ignore[union-attr]


def a_step(game: AnyGame) -> Move:
    """The first step (no capture) of ``game``, played in it."""
    move = next(m for m in game.legal_moves() if "x" not in str(m))
    game.play(move)
    return move


def recorded(rig: Rig, game: AnyGame, move: Move) -> None:
    """The board as ``game`` stands after ``move``, its first: pump until
    it is recorded."""
    rig.sim.set_occupancy(occupancy(game))
    wait_for(lambda: rig.pump()["moves"] == [str(move)], "the move recorded")


CLOSED = ("reads closed where no piece should stand: if the square is empty, the reed "
          "switch is stuck")
OPEN = "reads open under a piece: if a piece stands there, the switch no longer closes"


@pytest.mark.parametrize("rig", ["kharbga"], indirect=True)
def test_a_welded_reed_on_the_7x7_board_is_named_after_quiet_play(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, WATCH)
    quiet_for(rig, 2 * STUCK_AFTER)  # the empty board of the setting phase
    for i, placed in enumerate((1, 1 | 2, 1 | 2 | 1 << 48)):  # a1, b1, g7
        rig.sim.set_occupancy(placed)
        wait_for(lambda i=i: len(rig.pump()["moves"]) == i + 1, "the placement")  # type: ignore[misc, arg-type]
        quiet_for(rig, 1.5 * STUCK_AFTER)
    assert watch_lines(caplog) == []
    # d4's reed welded shut: no soldier may be set on the centre now.
    rig.sim.set_stuck(24, True)
    words = named(rig, f"switch r3c3 (d4) {CLOSED}")
    assert words.endswith("(kharbga-board doctor checks every switch)")
    assert rig.service.state()["moves"] == ["@a1", "@b1", "@g7"]
    [line] = watch_lines(caplog)
    assert line.startswith("switch r3c3 (d4) is stuck closed: it has read closed for ")
    assert line.endswith(" s where no piece should stand")
    rig.sim.set_stuck(24, None)  # mended: said in the log, gone from the page
    wait_for(lambda: problem(rig) is None, "the problem gone")
    assert watch_lines(caplog)[-1] == "switch r3c3 (d4) reads as expected again"


@pytest.mark.parametrize("rig", ["kharbga"], indirect=True)
def test_a_reed_that_no_longer_closes_on_the_7x7_board_is_named(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, WATCH)
    placed = ["@a1", "@b1", "@c1", "@d1"]  # two soldiers a side
    for i in range(4):
        rig.sim.set_occupancy((1 << i + 1) - 1)
        wait_for(lambda i=i: rig.pump()["moves"] == placed[: i + 1], placed[i])  # type: ignore[misc]
    # The Attacker to place: its soldier on a1 stands, but the reed reads
    # open (not the last placement, so not taken for one taken back).
    rig.sim.set_stuck(0, False)
    named(rig, f"switch r0c0 (a1) {OPEN}")
    assert any(line.startswith("switch r0c0 (a1) is stuck open: it has read open for ")
               for line in watch_lines(caplog))


@pytest.mark.parametrize("rig", ["sixteen-soldiers"], indirect=True)
def test_a_welded_reed_on_the_37_point_board_is_named_after_a_slow_setting_out(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, WATCH)
    game = new_game("sixteen-soldiers")
    start = occupancy(game)
    half = start & (1 << 16) - 1  # the Attacker's soldiers first, then a long pause
    rig.sim.set_occupancy(half)
    quiet_for(rig, 2.5 * STUCK_AFTER)
    assert set(rig.service.state()["leds"].values()) >= {"setup"}  # type: ignore[union-attr]
    set_out(rig, start)
    # A move, the soldier held in the hand longer than the watch waits.
    move = a_step(game)
    after = occupancy(game)
    rig.sim.set_occupancy(start & after)
    quiet_for(rig, 2 * STUCK_AFTER)
    recorded(rig, game, move)
    quiet_for(rig, 1.5 * STUCK_AFTER)
    assert watch_lines(caplog) == []
    # c5's reed welded shut (an empty point when the game starts).
    assert not after >> 18 & 1
    rig.sim.set_stuck(18, True)
    # In the board's words: a point, not a square.
    named(rig, f"switch r4c2 (c5) {CLOSED.replace('the square', 'the point')}")
    assert any(line.startswith("switch r4c2 (c5) is stuck closed") for line in watch_lines(caplog))


@pytest.mark.parametrize("rig", ["sixteen-soldiers"], indirect=True)
def test_a_reed_that_no_longer_closes_on_the_37_point_board_is_named(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, WATCH)
    game = new_game("sixteen-soldiers")
    set_out(rig, occupancy(game))
    move = a_step(game)  # a4-a5
    recorded(rig, game, move)
    # The Defender to move: the Attacker's soldier on a1 stands, its reed reads open.
    assert occupancy(game) & 1
    rig.sim.set_stuck(0, False)
    named(rig, f"switch r0c0 (a1) {OPEN}")
    assert any(line.startswith("switch r0c0 (a1) is stuck open") for line in watch_lines(caplog))


@pytest.mark.parametrize("rig", ["kharbga"], indirect=True)
def test_chatter_is_named_only_when_it_passes_the_firmware_s_debouncing(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    # The Pico debounces (12 ms): bounces shorter than that never reach
    # the host, so only a reed chattering slower than that is named.
    caplog.set_level(logging.INFO, WATCH)
    rig.sim.set_chatter(24, 1000)  # d4 bouncing every 1 ms: no two scans agree
    quiet_for(rig, 1.5)
    stats = rig.backend.link.device_stats()  # the device counted them (doctor --serial says so)
    assert stats is not None and stats.chatter[24] > 100
    rig.sim.set_chatter(24, 40_000)  # d4 opening and closing every 40 ms
    named(rig, "switch r3c3 (d4) is chattering (a worn reed, or a magnet at the edge of its "
               "range)")
    assert any(line.startswith("switch r3c3 (d4) is chattering: ") for line in watch_lines(caplog))
