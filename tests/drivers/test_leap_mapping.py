"""The switch matrix and LED chain of the leap games' boards: the 37-point
board on a 9x5 matrix with 8 crossings unused (or any matrix, by table),
the 8x8 board on 64 switches or on its 32 dark squares (8x4); stock pins,
TOML, one-line errors, calibration and the scanner on the simulated
matrix."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpio_fakes import FakeSPI, SimPerson
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.board.boards import draughts_board, sixteen_soldiers_board
from controller.drivers.calibrate_matrix import calibrate_matrix
from controller.drivers.config_table import ConfigError
from controller.drivers.gpio_config import GpioConfig, load_config, loads, save_config
from controller.drivers.gpio_matrix import MatrixConfig, MatrixScanner
from controller.drivers.link_settings import LinkSettings
from controller.drivers.mapping import BoardMapping
from controller.drivers.matrix_sim import MatrixSimulator, VirtualClock
from controller.drivers.ws2812 import LedConfig, SquareLeds, render

POINTS = sixteen_soldiers_board().point_names
GAPS = ["b1", "d1", "a2", "e2", "a8", "e8", "b9", "d9"]  # grid cells with no point


def test_the_37_point_board_sits_on_a_9x5_matrix_with_its_8_gaps_unused() -> None:
    m = BoardMapping.for_board("37-point")
    assert (m.rows, m.columns, m.squares, m.switch_count) == (9, 5, 37, 45)
    assert [m.name(p) for p in m.sensed] == list(POINTS)
    # matrix row = the board's row, column = its file
    for p, name in enumerate(POINTS):
        assert m.switch_of_square(p) == (int(name[1:]) - 1, "abcde".index(name[0]))
    unused = [f"{'abcde'[i % 5]}{i // 5 + 1}" for i in range(45) if m.square_of_switch_index(i) < 0]
    assert unused == GAPS
    # a switch closed at a crossing with none (a short) is no point
    everything = (1 << 45) - 1
    assert m.switches_to_squares(everything) == (1 << 37) - 1
    assert m.squares_to_switches((1 << 37) - 1) == everything & ~sum(
        1 << i for i in range(45) if m.square_of_switch_index(i) < 0)
    # named so by the stuck-switch watch (it was taken for e9, the last point)
    assert m.switch_and_point(1) == "r0c1 (no point)"
    assert m.switch_and_point(2) == "r0c2 (c1)"


@pytest.mark.parametrize("files", ["columns", "rows"])
@pytest.mark.parametrize("corner", [0, 1, 2, 3])
def test_every_orientation_of_the_37_point_matrix_is_a_bijection(files: str, corner: int) -> None:
    rows, cols = (9, 5) if files == "columns" else (5, 9)
    a1 = ("r0c0", f"r0c{cols - 1}", f"r{rows - 1}c0", f"r{rows - 1}c{cols - 1}")[corner]
    m = BoardMapping(board="37-point", size=0, a1=a1, files=files)
    assert (m.rows, m.columns) == (rows, cols)
    switches = {m.switch_of_square(p) for p in range(37)}
    assert len(switches) == 37 and f"r{m.switch_of_square(0)[0]}c{m.switch_of_square(0)[1]}" == a1
    for p in range(37):
        assert m.square_of_switch(*m.switch_of_square(p)) == p
    # the table of an orientation is recognised as that orientation
    table = [m.square_of_switch_index(i) for i in range(45)]
    again = BoardMapping.for_board("37-point").with_switch_table(table) if files == "columns" \
        else m.with_switch_table(table)
    assert (again.a1, again.files, again.switches) == (a1, files, ())


def test_the_37_point_chain_snakes_row_by_row_over_37_leds() -> None:
    m = BoardMapping.for_board("37-point", led_offset=1)
    assert m.led_count == 38 and m.square_of_led(0) is None
    order = [m.name(m.square_of_led(i) or 0) for i in range(1, 15)]
    assert order == ["a1", "c1", "e1", "d2", "c2", "b2", "a3", "b3", "c3", "d3", "e3",
                     "e4", "d4", "c4"]
    down = BoardMapping.for_board("37-point", led_first="e9", led_runs="files",
                                  led_serpentine=False)
    assert [down.name(down.square_of_led(i) or 0) for i in range(8)] == [
        "e9", "e7", "e6", "e5", "e4", "e3", "e1", "d8"]
    assert sorted(down.led_of_square(p) for p in range(37)) == list(range(37))


def test_a_37_point_board_on_any_matrix_by_table() -> None:
    """Wired on 7x6 = 42 crossings (5 unused): the table names each."""
    names = list(POINTS) + ["-"] * 5
    names[3], names[40] = names[40], names[3]  # a gap early in the matrix
    m = BoardMapping.from_table({"board": "37-point", "rows": 7, "columns": 6,
                                 "switches": names})
    assert (m.rows, m.columns, m.switch_count) == (7, 6, 42)
    assert m.switch_of_square(POINTS.index("b2")) == (6, 4) and m.square_of_switch(0, 3) == -1
    assert MatrixConfig.stock(m).row_pins == MatrixConfig().row_pins
    assert len(MatrixConfig.stock(m).column_pins) == 6
    assert BoardMapping.from_table(m.to_table()) == m


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"board": "9x9"}, "gpio.mapping.board: must be one of 5x5, 7x7, 8x8, 37-point"),
        ({"board": "37-point", "size": 5}, "gpio.mapping.size: the 37-point board is not square"),
        ({"board": "37-point", "a1": "r6c6"},
         "'r6c6' is not a corner of the 37-point board's 9x5 switch matrix"),
        ({"board": "37-point", "led_first": "b2"}, "'b2' is not a corner point (a1, e1, a9, e9)"),
        ({"board": "37-point", "switches": ["a1"]},
         "the 37-point board's 9x5 switch matrix has 45 crossings, one point or "
         '"-" each, but the table lists 1: give rows and columns for another matrix'),
        ({"board": "37-point", "rows": 7, "columns": 6, "switches": list(POINTS) + ["a1"] * 5},
         "point a1 appears twice"),
        ({"board": "37-point", "rows": 7, "columns": 6, "switches": list(POINTS[:-1]) + ["-"] * 6},
         "no switch for e9"),
        ({"board": "37-point", "switches": ["b1"] * 45}, "'b1' is not a point of the 37-point"),
        ({"board": "37-point", "rows": 7}, "rows and columns go with a switches table"),
        ({"board": "37-point", "rows": 5, "columns": 5, "switches": list(POINTS[:25])},
         "gpio.mapping.rows: the 5x5 matrix has 25 crossings, too few for the 37 points of "
         "the 37-point board"),
        ({"board": "8x8", "rows": 8, "columns": 4, "switches": ["a1"] * 32},
         "the 8x4 matrix has 32 crossings, too few for the 64 squares of the 8x8 board "
         "(dark_only = true senses its 32 dark squares)"),
        ({"board": "37-point", "rows": 7, "columns": 6, "switches": list(POINTS[:30]) + ["-"] * 12},
         "no switch for e7, b8, c8, d8, a9 (and 2 more)"),
        ({"board": "7x7", "dark_only": True}, "only the 8x8 board has dark squares"),
        ({"board": "8x8", "dark_only": True, "leds": ["b1"] * 32}, "b1 is not sensed"),
    ],
)
def test_bad_leap_board_mappings_give_one_line_errors(
    table: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        BoardMapping.from_table(table)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_the_8x8_board_on_64_switches_or_on_its_32_dark_squares() -> None:
    full = BoardMapping.for_board("8x8")
    assert (full.rows, full.columns, full.led_count) == (8, 8, 64)
    assert [full.name(p) for p in range(64)] == list(draughts_board().point_names)
    dark = BoardMapping.for_board("8x8", dark_only=True)
    assert (dark.rows, dark.columns, dark.switch_count, dark.led_count) == (8, 4, 32, 32)
    b1, c1, d2 = (dark.parse(n) for n in ("b1", "c1", "d2"))
    assert dark.switch_of_square(c1) == (0, 1) and dark.switch_of_square(d2) == (1, 1)
    assert dark.switch_index_of_square(b1) == -1 and dark.led_of_square(b1) == -1
    # a light square is never sensed nor lit
    assert dark.squares_to_switches(1 << b1 | 1 << c1) == 1 << 1
    pixels = render({"b1": "error", "c1": "capture"}, 0.0, LedConfig(), dark)
    assert [i for i, rgb in enumerate(pixels) if any(rgb)] == [dark.led_of_square(c1)]
    assert dark.led_of_square(c1) == 1 and dark.name(dark.square_of_led(4) or 0) == "h2"
    # 12 pins: the first 8 of the stock order for rows, 4 for columns
    stock = MatrixConfig.stock(dark)
    assert (len(stock.row_pins), len(stock.column_pins)) == (8, 4)
    assert len(set(MatrixConfig.stock(full).pins)) == 16


def test_a_37_point_configuration_takes_its_stock_pins_and_round_trips(tmp_path: Path) -> None:
    config = loads('[gpio.mapping]\nboard = "37-point"\n')
    assert config.mapping.board == "37-point"
    assert (len(config.matrix.row_pins), len(config.matrix.column_pins)) == (9, 5)
    assert set(config.matrix.pins) == set(MatrixConfig().pins)  # the 7x7 board's 14 pins
    path = tmp_path / "board.toml"
    save_config(path, config)
    assert load_config(path) == config and 'board = "37-point"' in path.read_text()
    with pytest.raises(ConfigError, match="row_pins: the pins wire a 7x5 switch matrix, but "
                       "the 37-point board is read on a 9x5 one: give 9 row_pins and 5 "
                       "column_pins"):
        loads('[gpio.mapping]\nboard = "37-point"\n[gpio.matrix]\nrow_pins = [4, 17, 27, 22, 5, '
              '6, 13]\n')
    assert GpioConfig().mapping.board == "7x7"


def test_the_7x7_boards_pins_for_a_37_point_game_are_refused_naming_both_matrices(
        tmp_path: Path) -> None:
    # A configuration written for the 7x7 board (its 7 + 7 pins), used for
    # a 37-point game: one line naming the matrix the pins wire, the one the
    # board is read on, and what to change; before, 'the 9x5 switch matrix
    # needs 9 pins, got 7'.
    from controller.service.config import load_config as load_service_config

    path = tmp_path / "board.toml"
    path.write_text('[board]\nvariant = "sixteen-soldiers"\n[gpio.matrix]\n'
                    "row_pins = [4, 17, 27, 22, 5, 6, 13]\n"
                    "column_pins = [19, 26, 18, 23, 24, 25, 12]\n")
    with pytest.raises(ConfigError) as err:
        load_service_config(path).gpio("37-point")
    assert str(err.value) == (
        f"{path}: gpio.matrix: the pins wire a 7x7 switch matrix, but the 37-point board is "
        "read on a 9x5 one: give 9 row_pins and 5 column_pins (or neither, for its stock "
        "pins: hardware.md), or map the board onto the 7x7 matrix ([gpio.mapping] rows, "
        "columns and switches)")


def test_the_link_settings_of_a_leap_board_carry_its_matrix_and_switch_map() -> None:
    s = LinkSettings.for_mapping(BoardMapping.for_board("37-point"))
    assert (s.matrix, s.squares) == ((9, 5), 37)
    assert s.switch_map is not None and s.switch_map[:4] == (0, 2, 4, 6)  # a1 c1 e1 b2
    s.check()
    dark = LinkSettings.for_mapping(BoardMapping.for_board("8x8", dark_only=True))
    assert dark.squares == 64 and dark.switch_map is not None
    assert dark.switch_map[:3] == (0, 255, 1)  # a1, b1 (light: no switch), c1
    assert LinkSettings.for_mapping(BoardMapping()).switch_map is None


def test_the_scanner_reports_the_37_point_board_through_the_matrix(factory: MockFactory) -> None:
    mapping = BoardMapping.for_board("37-point")
    config = MatrixConfig.stock(mapping)
    sim = MatrixSimulator(factory, config, mapping)
    occupied = sum(1 << p for p in range(0, 37, 3))
    with MatrixScanner(config, mapping, pin_factory=factory) as scanner:
        sim.set_occupied(occupied)
        clock = VirtualClock()
        assert mapping.switches_to_squares(scanner.settle(clock)) == occupied
        assert scanner.occupied == occupied
        sim.stick(0, 1)  # a short at the crossing under no point (b1)
        scanner.settle(clock)
        assert scanner.occupied == occupied


def test_calibration_finds_a_rotated_37_point_wiring_and_its_chain(
    factory: MockFactory, spi: FakeSPI
) -> None:
    truth = BoardMapping.for_board("37-point", a1="r8c4", led_first="e9", led_runs="files")
    configured = BoardMapping.for_board("37-point")
    config = MatrixConfig.stock(configured)
    sim = MatrixSimulator(factory, config, truth)
    leds = SquareLeds(LedConfig(), configured, spi)
    person = SimPerson(sim, spi, truth)
    with MatrixScanner(config, configured, pin_factory=factory) as scanner:
        found = calibrate_matrix(scanner, person, VirtualClock(), leds)
    assert (found.a1, found.files, found.switches) == ("r8c4", "columns", ())
    assert (found.led_first, found.led_runs, found.leds) == ("e9", "files", ())
    assert len([p for p in person.asked if p.action == "place"]) == 37
    assert "9x5 switch matrix of the 37-point board: 37 points, one piece" in person.said[0]
    assert next(p for p in person.asked if p.action == "place").text.endswith(
        "If the light is under another point, type that point's name.")


def test_calibration_refuses_a_light_square_named_on_a_dark_only_board(
    factory: MockFactory, spi: FakeSPI
) -> None:
    # The person types b1 (a light square: no switch, no LED) for the lit
    # a1: told at once and asked again, not accepted and found wanting
    # after all 32 squares.
    truth = BoardMapping.for_board("8x8", dark_only=True)
    config = MatrixConfig.stock(truth)
    sim = MatrixSimulator(factory, config, truth)
    person = SimPerson(sim, spi, truth, script=["", "b1"])
    leds = SquareLeds(LedConfig(), truth, spi)
    with MatrixScanner(config, truth, pin_factory=factory) as scanner:
        found = calibrate_matrix(scanner, person, VirtualClock(), leds)
    assert person.said[1] == \
        "b1 has no switch and no LED on this board: type the name of the lit square"
    assert person.said[2] == "a1: switch r0c0"
    assert (found.a1, found.files, found.switches, found.leds) == ("r0c0", "columns", (), ())
