"""``doctor`` on the simulated matrix: a healthy board passes; a stuck
switch, a switch that never closes, a chattering one, a swapped wire and a
missing diode are each found and named; the LED walk lights each LED."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from gpio_fakes import FakeSPI, SimPerson, decode, fake_blinka
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.console import Prompt
from controller.drivers.doctor import (
    check_empty,
    check_ghosting,
    check_squares,
    doctor_from_config,
    leds_not_loaded,
    live_from_config,
    live_view,
    run_doctor,
    walk_leds,
)
from controller.drivers.doctor_report import render_report, render_switches
from controller.drivers.ghosts import ghost_patterns
from controller.drivers.gpio_matrix import MatrixConfig, MatrixScanner
from controller.drivers.mapping import BoardMapping, parse_square
from controller.drivers.matrix_sim import MatrixSimulator, VirtualClock
from controller.drivers.ws2812 import LedConfig, SquareLeds

CONFIG = MatrixConfig()


def rig(
    factory: MockFactory, truth: BoardMapping | None = None, config: MatrixConfig = CONFIG
) -> tuple[MatrixSimulator, MatrixScanner]:
    sim = MatrixSimulator(factory, config, truth or BoardMapping())
    return sim, MatrixScanner(config, BoardMapping(), pin_factory=factory)


def test_a_healthy_board_passes_every_check(factory: MockFactory, spi: FakeSPI) -> None:
    sim, scanner = rig(factory)
    leds = SquareLeds(LedConfig(), BoardMapping(), spi)
    person = SimPerson(sim)
    with scanner:
        report = run_doctor(scanner, person, VirtualClock(), leds)
    assert report.ok, render_report(report, BoardMapping())
    assert report.checks == ["leds", "empty", "squares", "ghosting"]
    assert report.leds_walked == 49
    places = [p for p in person.asked if p.action == "place"]
    assert len(places) == 49 + len(ghost_patterns(7))
    assert "Doctor: all well" in person.said[-1]


def test_a_stuck_switch(factory: MockFactory) -> None:
    sim, scanner = rig(factory)
    sim.stick(2, 5)
    with scanner:
        report = run_doctor(scanner, SimPerson(sim), VirtualClock())
    assert report.switches("stuck") == {2 * 7 + 5}
    assert not report.switches("ghost")  # the stuck switch is not taken for a ghost
    assert [f.kind for f in report.findings] == ["stuck"]


def test_a_switch_that_never_closes(factory: MockFactory) -> None:
    sim, scanner = rig(factory)
    sim.break_switch(6, 0)
    with scanner:
        report = run_doctor(scanner, SimPerson(sim), VirtualClock(), ghosts=False)
    assert report.switches("never-closes") == {42}
    finding = report.findings[0]
    assert finding.square == parse_square("a7") and "closes no switch" in finding.detail


def test_a_chattering_switch(factory: MockFactory) -> None:
    sim, scanner = rig(factory)
    flicker = [0]

    def bounce(now: float) -> None:
        flicker[0] += 1
        if sim.closed & 1 << 24 or flicker[0] % 3 == 0:
            sim.set_switch(3, 3, flicker[0] % 3 == 0)

    with scanner:
        found = check_empty(scanner, VirtualClock(on_tick=bounce))
    assert [(f.kind, f.switch) for f in found] == [("chattering", 24)]
    assert "on an empty board" in found[0].detail


def test_a_swapped_pair_of_wires_is_misplaced(factory: MockFactory) -> None:
    truth = BoardMapping().with_switch_table(
        [1, 0, *range(2, 49)]  # a1 and b1 swapped
    )
    sim, scanner = rig(factory, truth)
    with scanner:
        report = run_doctor(scanner, SimPerson(sim), VirtualClock(), ghosts=False)
    assert report.switches("misplaced") == {0, 1}
    assert "a piece on a1 closes r0c1 instead of r0c0" in report.findings[0].detail


@pytest.mark.parametrize("switch", [(0, 1), (3, 3), (6, 6), (5, 2)])
def test_a_missing_diode_shows_as_a_ghost_and_is_named(
    factory: MockFactory, switch: tuple[int, int]
) -> None:
    sim, scanner = rig(factory)
    sim.remove_diode(*switch)
    with scanner:
        report = run_doctor(scanner, SimPerson(sim), VirtualClock(), squares=False)
    index = switch[0] * 7 + switch[1]
    assert report.switches("ghost")
    assert index in report.suspects()
    assert {f.kind for f in report.findings} == {"ghost"}
    text = render_report(report, BoardMapping())
    assert f"missing diode: check r{switch[0]}c{switch[1]}" in text
    grid = text.splitlines()[1:8]  # rank 7 at the top, a letter per switch
    marked = {(6 - i) * 7 + c for i, line in enumerate(grid)
              for c, mark in enumerate(line.split()[1:]) if mark == "G"}
    assert marked == report.switches("ghost")


def test_every_switch_is_covered_by_the_ghost_patterns() -> None:
    for size in (5, 7):
        patterns = ghost_patterns(size)
        assert set().union(*map(set, patterns)) == set(range(size * size))
        for p in patterns:
            rows = [sw // size for sw in p]
            cols = [sw % size for sw in p]
            assert all(rows.count(r) == 2 and cols.count(r) == 2 for r in range(size))


def test_without_floating_rows_the_ghost_test_is_skipped(factory: MockFactory) -> None:
    sim, scanner = rig(factory, config=MatrixConfig(row_drive="push-pull"))
    person = SimPerson(sim)
    with scanner:
        report = run_doctor(scanner, person, VirtualClock(), squares=False)
    assert "ghosting" not in report.checks
    assert any("Ghost test skipped" in s for s in person.said)


def test_ghost_test_can_be_skipped_by_the_person(factory: MockFactory) -> None:
    sim, scanner = rig(factory)
    sim.remove_diode(1, 1)
    with scanner:
        found = check_ghosting(scanner, SimPerson(sim, script=["s"] * 4), VirtualClock())
    assert found == []


def test_the_led_walk_lights_each_led_alone(factory: MockFactory, spi: FakeSPI) -> None:
    mapping = BoardMapping(led_offset=1)
    leds = SquareLeds(LedConfig(brightness=1.0), mapping, spi)
    said: list[str] = []
    clock = VirtualClock()
    assert walk_leds(leds, mapping, clock, said.append, dwell=0.25) == 50
    frames = [decode(w) for w in spi.writes]
    assert len(frames) == 51
    for i, frame in enumerate(frames[:50]):
        assert [k for k, p in enumerate(frame) if any(p)] == [i]
    assert not any(any(p) for p in frames[-1])
    assert said[0] == "LED 0: a spare LED" and said[1] == "LED 1: under a1"
    assert said[8] == "LED 8: under g2" and clock.now() == pytest.approx(12.5)


def test_live_view_draws_the_switches(factory: MockFactory) -> None:
    sim, scanner = rig(factory)
    sim.place(parse_square("b2"))
    out: list[str] = []
    clock = VirtualClock(until=0.35)
    with scanner:
        frames = live_view(scanner, clock, out.append, clock.stop, refresh=0.1)
    assert frames == 4 == len(out)
    board = out[-1].split("\x1b[2J")[1].splitlines()
    assert board[5] == "2 . # . . . . ." and board[-1] == "  a b c d e f g"


def test_render_switches_marks_faults() -> None:
    text = render_switches(1, BoardMapping(), {48: "S"})
    lines = text.splitlines()
    assert lines[0] == "7 . . . . . . S" and lines[6] == "1 # . . . . . ."


def test_the_live_view_with_its_stop_already_set_draws_nothing(factory: MockFactory) -> None:
    _sim, scanner = rig(factory)
    stop = threading.Event()
    stop.set()
    with scanner:
        assert live_view(scanner, VirtualClock(), lambda s: None, stop) == 0


class StrongMagnet(SimPerson):
    """A piece on d4 also closes the switch of e4."""

    def ask(self, prompt: Prompt) -> str:
        answer = super().ask(prompt)
        if prompt.squares == (parse_square("d4"),):
            self.sim.place(parse_square("e4"))
        return answer


def test_a_magnet_that_closes_a_neighbour_too(factory: MockFactory) -> None:
    sim, scanner = rig(factory)
    with scanner:
        found = check_squares(scanner, StrongMagnet(sim), VirtualClock())
    assert [(f.kind, f.switch) for f in found] == [("neighbour", 24)]
    assert found[0].detail.startswith("a piece on d4 also closes r3c4")


def test_the_command_line_entry_points_run_from_a_config_file(
    factory: MockFactory, spi: FakeSPI, tmp_path: Path
) -> None:
    path = tmp_path / "board.toml"
    path.write_text("[gpio.matrix]\nscan_hz = 400\n", encoding="utf-8")
    sim = MatrixSimulator(factory, MatrixConfig(scan_hz=400), BoardMapping())
    sim.stick(0, 6)
    report = doctor_from_config(
        str(path), SimPerson(sim), pin_factory=factory, spi=spi, clock=VirtualClock()
    )
    assert report.switches("stuck") == {6} and report.leds_walked == 49
    sim.set_occupied(0)  # the last ghost test's pieces off
    clock = VirtualClock(until=0.2)
    out: list[str] = []
    frames = live_from_config(str(path), out.append, clock.stop, pin_factory=factory, clock=clock)
    assert frames == 2 and "1 . . . . . . #" in out[-1]
    assert not any(factory._reservations.values())


def test_a_missing_or_wrong_file_is_one_line_naming_it(
    factory: MockFactory, tmp_path: Path
) -> None:
    from controller.board.config import ConfigError

    missing = tmp_path / "missing.toml"
    with pytest.raises(ConfigError, match=r"missing\.toml: no such file$"):
        doctor_from_config(str(missing), SimPerson(MatrixSimulator(factory, MatrixConfig(),
                                                                   BoardMapping())),
                           pin_factory=factory)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('[gpio.matrix]\nrow_drive = "sideways"\n', encoding="utf-8")
    stop = threading.Event()
    with pytest.raises(ConfigError) as err:
        live_from_config(str(wrong), print, stop, pin_factory=factory)
    assert str(err.value).startswith(f"{wrong}: gpio.matrix.row_drive: 'sideways' is not one of")


class Quitter(SimPerson):
    """Does what it is asked, and answers ``q`` at the ``stop_at``th question."""

    def __init__(self, sim: MatrixSimulator, stop_at: int) -> None:
        super().__init__(sim)
        self.stop_at = stop_at

    def ask(self, prompt: Prompt) -> str:
        if len(self.asked) + 1 == self.stop_at:
            self.asked.append(prompt)
            return "q"
        return super().ask(prompt)


def test_q_stops_the_doctor_with_what_it_found_so_far(factory: MockFactory) -> None:
    truth = BoardMapping().with_switch_table([1, 0, *range(2, 49)])  # a1, b1 swapped
    sim = MatrixSimulator(factory, CONFIG, truth)
    person = Quitter(sim, stop_at=4)  # clear, a1, b1, then q at c1
    with MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory) as scanner:
        report = run_doctor(scanner, person, VirtualClock())
    assert report.stopped and not report.ok
    assert [(f.kind, f.square) for f in report.findings] == [("misplaced", 0), ("misplaced", 1)]
    assert report.checks == ["empty"]
    assert person.said[-1].startswith(
        "Doctor: stopped before the end, 2 problem(s) found (checks done: empty).")


def test_the_command_checks_the_board_of_the_variant_and_stops_at_end_of_input(
    tmp_path: Path
) -> None:
    """``doctor --config F`` with ``[board] variant = "sabouiyya"``: the
    5x5 matrix, as ``run`` plays it; no input (a pipe closed) stops it
    rather than calling every square broken."""
    import os
    import subprocess
    import sys

    path = tmp_path / "board.toml"
    path.write_text('[board]\nkind = "gpio"\nvariant = "sabouiyya"\n[gpio.leds]\nenabled = false\n',
                    encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "controller", "doctor", "--config", str(path)],
                       input="\n", capture_output=True, text=True, timeout=60,
                       env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"})
    assert r.returncode == 1, r.stderr
    assert "Doctor: stopped before the end" in r.stdout and "Traceback" not in r.stderr
    assert "  a b c d e\n" in r.stdout and "  a b c d e f g" not in r.stdout
    assert "never-closes" not in r.stdout


def test_leds_whose_library_is_missing_are_one_line_and_the_switches_still_checked(
    factory: MockFactory, spi: FakeSPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the LED library's ImportError ended the doctor in a traceback."""
    monkeypatch.setitem(sys.modules, "neopixel_spi", None)  # import neopixel_spi fails
    path = tmp_path / "board.toml"
    path.write_text("[gpio.matrix]\nscan_hz = 400\n", encoding="utf-8")
    sim = MatrixSimulator(factory, MatrixConfig(scan_hz=400), BoardMapping())
    sim.stick(0, 6)
    person = SimPerson(sim)
    report = doctor_from_config(
        str(path), person, pin_factory=factory, spi=spi, clock=VirtualClock()
    )
    assert person.said[0] == (
        "LEDs not checked: their library needs the Python module 'neopixel_spi', which is not "
        "installed: make install-pi (or .venv/bin/pip install -e '.[pi]' in the checkout)")
    assert report.checks == ["empty", "squares", "ghosting"] and report.leds_walked == 0
    assert report.switches("stuck") == {6}
    assert not spi.writes and not any(factory._reservations.values())


def test_an_led_library_that_does_not_load_here_is_said_in_one_line() -> None:
    exc = ImportError("cannot import name 'spiPorts' from 'microcontroller.pin' "
                      "(/venv/site-packages/microcontroller/pin.py)", name="microcontroller.pin")
    assert leds_not_loaded(exc) == (
        "LEDs not checked: their library does not load here (cannot import name 'spiPorts' "
        "from 'microcontroller.pin'): it drives the Raspberry Pi's SPI, installed there with "
        "make install-pi (or .venv/bin/pip install -e '.[pi]' in the checkout)")


def test_blinka_on_a_pc_is_the_doctor_s_one_line_and_nothing_on_stdout(
    factory: MockFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: Blinka printed its warning twice on stdout as the doctor
    started; now it is part of the doctor's line about the LEDs."""
    fake_blinka(monkeypatch)
    path = tmp_path / "board.toml"
    path.write_text("[gpio.leds]\nenabled = true\n", encoding="utf-8")
    person = SimPerson(MatrixSimulator(factory, MatrixConfig(), BoardMapping()))
    report = doctor_from_config(str(path), person, pin_factory=factory, clock=VirtualClock())
    assert capsys.readouterr().out == ""
    assert person.said[0] == (
        "LEDs not checked: their library does not load here (cannot import name 'spiPorts' "
        "from 'microcontroller.pin'; Blinka says: GENERIC_X86 is not fully supported. Some "
        "features may not work): it drives the Raspberry Pi's SPI, installed there with "
        "make install-pi (or .venv/bin/pip install -e '.[pi]' in the checkout)")
    assert report.checks == ["empty", "squares", "ghosting"] and report.leds_walked == 0
