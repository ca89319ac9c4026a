"""``replay --via gpio``: simulated logs through the simulated matrix, the
real scanner and buttons on MockFactory pins, give the records of the
direct replay, on the log's clock (never sleeping)."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from typing import Any

import pytest
from simulated_games import random_game

from controller.board.sensorlog import LogError
from controller.drivers.buttons import ButtonPanel
from controller.drivers.config_table import ConfigError
from controller.drivers.gpio_matrix import MatrixConfig
from controller.drivers.gpio_replay import gpio_events
from controller.drivers.mapping import BoardMapping
from controller.reconcile.replay import ReplayResult, replay, replay_events
from controller.reconcile.simulator import simulate_log


def replay_via_gpio(
    lines: list[str], variant: str, trace: bool = False, **options: Any
) -> ReplayResult:
    return replay_events(gpio_events(lines, **options), variant, trace=trace)


def records(result: ReplayResult) -> list[str]:
    return [str(r) for r in result.records]


CASES = [
    ("kharbga", 1, 80),
    ("kharbga", 2, 10**6),
    ("kharbga-refuge", 3, 120),
    ("khamousiyya", 4, 200),
    ("sabouiyya", 5, 10**6),
]


@pytest.mark.parametrize(("variant", "seed", "limit"), CASES)
def test_same_records_as_the_direct_replay(
    variant: str, seed: int, limit: int, caplog: pytest.LogCaptureFixture
) -> None:
    game = random_game(variant, random.Random(seed), limit)
    lines = simulate_log(game, seed=seed).splitlines()
    direct = replay(lines, variant)
    caplog.set_level(logging.INFO, logger="controller.drivers")
    via = replay_via_gpio(lines, variant)
    assert records(via) == records(direct)
    assert via.reconciler is not None
    assert [str(m) for m in via.reconciler.game.moves] == [str(m) for m in game.moves]
    # People playing (bounce, lifting and putting back, brushing) are no fault.
    assert [r.getMessage() for r in caplog.records] == []


def test_other_wiring_and_timing_give_the_same_records() -> None:
    game = random_game("kharbga", random.Random(11), 150)
    lines = simulate_log(game, seed=11).splitlines()
    mapping = BoardMapping(a1="r6c6", files="rows")
    matrix = MatrixConfig(scan_hz=100, debounce_scans=2, row_drive="push-pull")
    via = replay_via_gpio(lines, "kharbga", matrix=matrix, mapping=mapping)
    assert records(via) == records(replay(lines, "kharbga"))


def test_the_replay_runs_on_the_log_clock_and_never_sleeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scanner's debounce and scan intervals follow the log's own
    clock, so a whole game replays without waiting for real time (how
    much faster than real time: ``make bench``, section ``drivers``)."""
    real_sleep = time.sleep
    caller = threading.current_thread()

    def no_sleep(seconds: float) -> None:
        # Only the replay's own thread is watched: a thread another test
        # left behind in this process may sleep as it likes.
        if threading.current_thread() is caller:
            raise AssertionError("replay_via_gpio slept")
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", no_sleep)
    game = random_game("kharbga", random.Random(21), 10**6)
    lines = simulate_log(game, seed=21).splitlines()
    via = replay_via_gpio(lines, "kharbga")
    assert records(via) == records(replay(lines, "kharbga")) and via.records


def test_buttons_go_through_mock_buttons_even_beyond_the_free_pins(
        monkeypatch: pytest.MonkeyPatch) -> None:
    game = random_game("kharbga", random.Random(5), 40)
    lines = simulate_log(game, seed=5).splitlines()
    t = json.loads(lines[-1])["t"]
    extra = []
    for i, name in enumerate(["hint", "exchange", "undo", "resign"] * 3):
        for side in (None, "attacker", "defender"):
            t += 0.5
            obj: dict[str, object] = {"t": round(t, 4), "button": name}
            if side:
                obj["side"] = side
            if name != "resign" or i >= 9:
                extra.append(json.dumps(obj))
    for side in (None, "attacker", "defender"):  # refused in kharbga, in words
        t += 0.5
        hajeb: dict[str, object] = {"t": round(t, 4), "button": "hajeb"}
        extra.append(json.dumps(hajeb | ({"side": side} if side else {})))
    t += 0.5
    extra.append(json.dumps({"t": round(t, 4), "button": "draw"}))
    # 18 kinds of press, 14 free pins: the last ones go straight to the queue
    extra.append(json.dumps({"t": round(t + 0.5, 4), "button": "draw", "side": "attacker"}))
    extra.append(json.dumps({"t": round(t + 1.0, 4), "button": "draw", "side": "defender"}))
    log = lines + extra
    through: list[tuple[str, str | None]] = []  # the presses the mock buttons' pins made
    pressed = ButtonPanel._pressed

    def counted(panel: ButtonPanel, name: str, side: str | None) -> None:
        through.append((name, side))
        pressed(panel, name, side)

    monkeypatch.setattr(ButtonPanel, "_pressed", counted)
    direct = replay(log, "kharbga", trace=True)
    via = replay_via_gpio(log, "kharbga", trace=True)
    kinds = {(o["button"], o.get("side")) for o in map(json.loads, extra)}
    assert len(kinds) == 18 and len(set(through)) == 14 < len(kinds)
    assert 0 < len(through) < len(extra)  # the rest went straight to the queue
    assert records(via) == records(direct)
    assert via.reconciler is not None and direct.reconciler is not None
    assert via.reconciler.game.outcome == direct.reconciler.game.outcome
    last = json.loads(via.trace[-1])
    assert last == json.loads(direct.trace[-1])


def test_a_colour_log_is_refused_with_one_line() -> None:
    game = random_game("kharbga", random.Random(1), 10)
    lines = simulate_log(game, seed=1, colour=True).splitlines()
    with pytest.raises(
        LogError, match=r"line 1 \(header\): a colour log cannot be replayed via gpio"
    ):
        replay_via_gpio(lines, "kharbga")


def test_board_sizes_must_agree() -> None:
    small = simulate_log(random_game("sabouiyya", random.Random(2), 6), seed=2).splitlines()
    with pytest.raises(LogError, match="header: the log is for a 5x5 board"):
        replay_via_gpio(small, "kharbga")
    with pytest.raises(ConfigError, match="the mapping is for the 7x7 board"):
        replay_via_gpio(small, "sabouiyya", mapping=BoardMapping())
    with pytest.raises(LogError, match="line 2"):
        replay_via_gpio([small[0], '{"t": 1, "occ": "01"}'], "sabouiyya")


@pytest.mark.parametrize("via", ["gpio", "firmware"])
def test_a_config_file_that_names_no_board_follows_the_log(
    tmp_path: Any, via: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay --via V --config F``: a file whose mapping names no board
    is read for the log's board (5x5 here), as ``run`` reads it for the
    variant's; one that names another board is refused naming the file."""
    from controller.cli import main
    from controller.drivers.firmware_sim import find_micropython

    if via == "firmware":
        find_micropython()  # says how to install it when it is missing
    game = random_game("sabouiyya", random.Random(3), 6)
    log = tmp_path / "five.jsonl"
    log.write_text(simulate_log(game, seed=3), encoding="utf-8")
    plain = tmp_path / "plain.toml"
    plain.write_text('[gpio.mapping]\na1 = "r4c0"\nfiles = "rows"\n', encoding="utf-8")
    assert main(["replay", str(log), "--variant", "sabouiyya"]) == 0
    direct = capsys.readouterr().out
    assert main(["replay", str(log), "--variant", "sabouiyya", "--via", via,
                 "--config", str(plain)]) == 0
    assert capsys.readouterr().out == direct
    named = tmp_path / "named.toml"
    named.write_text('[gpio.mapping]\nboard = "7x7"\n', encoding="utf-8")
    assert main(["replay", str(log), "--variant", "sabouiyya", "--via", via,
                 "--config", str(named)]) == 2
    assert capsys.readouterr().err == (
        f"kharbga-board: {named}: gpio.mapping.board: the mapping is for the 7x7 board, "
        "the log for 5x5\n")
