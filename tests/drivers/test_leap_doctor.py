"""``doctor`` on the leap games' boards (simulated matrix): the 37-point
board's 9x5 matrix and the 8x8 board's dark squares on 8x4 pass when
healthy; a missing diode anywhere is found and named, a short at a
crossing with no switch is reported, and the picture leaves the grid's
gaps blank."""

from __future__ import annotations

import pytest
from gpio_fakes import FakeSPI, SimPerson
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.doctor import run_doctor
from controller.drivers.doctor_report import render_report, render_switches
from controller.drivers.ghosts import _exposed, matrix_ghost_patterns
from controller.drivers.gpio_matrix import MatrixConfig, MatrixScanner
from controller.drivers.mapping import BoardMapping
from controller.drivers.matrix_sim import MatrixSimulator, VirtualClock
from controller.drivers.ws2812 import LedConfig, SquareLeds

BOARDS = {
    "37-point": BoardMapping.for_board("37-point"),
    "8x8": BoardMapping.for_board("8x8"),
    "8x8-dark": BoardMapping.for_board("8x8", dark_only=True),
}


def rig(factory: MockFactory, mapping: BoardMapping) -> tuple[MatrixSimulator, MatrixScanner]:
    config = MatrixConfig.stock(mapping)
    return (MatrixSimulator(factory, config, mapping),
            MatrixScanner(config, mapping, pin_factory=factory))


@pytest.mark.parametrize("board", BOARDS)
def test_the_ghost_patterns_expose_every_switch_of_the_stock_matrices(board: str) -> None:
    m = BOARDS[board]
    patterns = matrix_ghost_patterns(m)
    switches = {i for i in range(m.switch_count) if m.square_of_switch_index(i) >= 0}
    assert all(set(p) <= switches for p in patterns)  # pieces only where a switch is
    assert set().union(*(_exposed(m.columns, set(p)) for p in patterns)) == switches


@pytest.mark.parametrize("board", ["37-point", "8x8-dark"])
def test_a_healthy_leap_board_passes_every_check(
    factory: MockFactory, spi: FakeSPI, board: str
) -> None:
    m = BOARDS[board]
    sim, scanner = rig(factory, m)
    person = SimPerson(sim)
    with scanner:
        report = run_doctor(scanner, person, VirtualClock(), SquareLeds(LedConfig(), m, spi))
    assert report.ok, render_report(report, m)
    assert report.leds_walked == len(m.sensed)
    places = [p for p in person.asked if p.action == "place"]
    assert len(places) == len(m.sensed) + len(matrix_ghost_patterns(m))
    # In the board's words: the 37-point board's places are points.
    noun = "point" if board == "37-point" else "square"
    assert f"LEDs: each lights in turn; watch that it is under the {noun} named." in person.said
    assert report.checks == ["leds", "empty", f"{noun}s", "ghosting"]


@pytest.mark.parametrize("switch", [(0, 2), (1, 1), (4, 2), (8, 4)])
def test_a_missing_diode_on_the_37_point_matrix_is_named(
    factory: MockFactory, switch: tuple[int, int]
) -> None:
    m = BOARDS["37-point"]
    sim, scanner = rig(factory, m)
    sim.remove_diode(*switch)
    with scanner:
        report = run_doctor(scanner, SimPerson(sim), VirtualClock(), squares=False)
    assert report.switches("ghost")
    assert switch[0] * 5 + switch[1] in report.suspects()
    line = next(x for x in render_report(report, m).splitlines() if "missing diode" in x)
    assert f"r{switch[0]}c{switch[1]}" in line.split("check ")[1].split(", ")


def test_a_short_at_a_crossing_with_no_switch_is_reported(factory: MockFactory) -> None:
    m = BOARDS["37-point"]
    sim, scanner = rig(factory, m)
    sim.stick(0, 1)  # between a1 and c1: no point there
    with scanner:
        report = run_doctor(scanner, SimPerson(sim), VirtualClock(), squares=False, ghosts=False)
    assert [(f.kind, f.switch, f.square) for f in report.findings] == [("stuck", 1, -1)]
    assert "stuck        r0c1  -   closed on an empty board" in render_report(report, m)


def test_the_picture_leaves_the_gaps_blank() -> None:
    m = BOARDS["37-point"]
    closed = 1 << m.switch_index_of_square(m.parse("c5"))
    lines = render_switches(closed, m).splitlines()
    assert lines[0] == "9 .   .   ." and lines[1] == "8   . . .  "
    assert lines[4] == "5 . . # . ." and lines[-1] == "  a b c d e"
