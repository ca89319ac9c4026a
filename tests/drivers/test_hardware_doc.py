"""hardware.md's wiring of the leap games' boards is what the code does: the
GPIO tables of the 37-point and 8x8 boards name the stock pins (and the
header pins beside them), the LED chains are the mappings' chains, and the
Pico's switch maps are the ones the host sends in the handshake; the [gpio]
defaults shown, the serial link's timings and its statistics are the code's."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from controller.drivers.config_table import ConfigError
from controller.drivers.gpio_matrix import stock_pins
from controller.drivers.link_settings import LinkSettings
from controller.drivers.mapping import BoardMapping
from controller.drivers.protocol import NO_LED
from controller.drivers.ws2812 import MOST_LEDS

DOC = (Path(__file__).resolve().parents[2] / "hardware.md").read_text(encoding="utf-8")

# The Raspberry Pi's 40-pin header: BCM GPIO -> physical pin.
HEADER = {2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18,
          10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32,
          13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40}


def section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n#", start + len(title))
    return DOC[start:end]


def gpio(cell: str) -> int:
    """``"4 (7)"``: GPIO4, checked to be header pin 7."""
    m = re.fullmatch(r"(\d+) \((\d+)\)", cell)
    assert m is not None, cell
    g, physical = int(m[1]), int(m[2])
    assert HEADER[g] == physical, f"GPIO{g} is header pin {HEADER[g]}, not {physical}"
    return g


def table(text: str, row_gpio: int, column: int) -> tuple[dict[int, int], dict[int, int]]:
    """The row and column pins of a wiring table: ``{index: gpio}`` each
    (``row_gpio``: the cell of a row's GPIO, ``column``: of a column's number)."""
    rows: dict[int, int] = {}
    columns: dict[int, int] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) <= column + 1 or not cells[0][:1].isdigit():
            continue
        rows[int(cells[0].split()[0])] = gpio(cells[row_gpio])
        if cells[column]:
            columns[int(cells[column].split()[0])] = gpio(cells[column + 1])
    return rows, columns


def test_the_37_point_gpio_table_is_the_stock_9x5_matrix() -> None:
    text = section("### 37-point board: 9 x 5 matrix")
    rows, columns = stock_pins(9, 5)
    assert table(text, 2, 4) == (dict(enumerate(rows)), dict(enumerate(columns)))
    mapping = BoardMapping.for_board("37-point")
    for line in text.splitlines():  # the points of each matrix row
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0].isdigit():
            r = int(cells[0])
            on_row = [mapping.name(mapping.square_of_switch(r, c)) for c in range(5)
                      if mapping.square_of_switch(r, c) >= 0]
            named = cells[1].split()
            assert named[0] == on_row[0] and named[-1] == on_row[-1], (r, named, on_row)
    chain = [mapping.name(mapping.square_of_led(i) or 0) for i in range(37)]
    assert ("a1 c1 e1, d2 c2 b2, a3 .. e3, e4 .. a4" in " ".join(text.split())
            and chain[:16] == ["a1", "c1", "e1", "d2", "c2", "b2", "a3", "b3", "c3", "d3",
                               "e3", "e4", "d4", "c4", "b4", "a4"])
    assert chain[-6:] == ["d8", "c8", "b8", "a9", "c9", "e9"]


def test_the_8x8_gpio_table_is_the_stock_8x8_and_8x4_matrices() -> None:
    text = section("### 8x8 board: 8 x 8, or the dark squares on 8 x 4")
    rows, columns = stock_pins(8, 8)
    assert table(text, 1, 3) == (dict(enumerate(rows)), dict(enumerate(columns)))
    dark_rows, dark_columns = stock_pins(8, 4)
    assert dark_rows == rows and dark_columns == columns[:4]
    dark = BoardMapping.for_board("8x8", dark_only=True)
    for c, first in enumerate(("a1 / b2 / a3", "c1 / d2 / c3", "e1 / f2 / e3", "g1 / h2 / g3")):
        assert f"{c}: {first}" in text
        assert [dark.name(dark.square_of_switch(r, c)) for r in range(3)] == first.split(" / ")
    chain = [dark.name(dark.square_of_led(i) or 0) for i in range(32)]
    assert chain[:8] == "a1 c1 e1 g1 h2 f2 d2 b2".split() and chain[-4:] == "h8 f8 d8 b8".split()
    assert "a1 c1 e1 g1, h2 f2 d2 b2, a3 c3 e3 g3, .., h8 f8 d8 b8" in " ".join(text.split())


def test_the_pico_switch_maps_are_the_ones_the_host_sends() -> None:
    text = section("### On the Pico")
    m = re.search(r"SWITCH_MAP = (\[[0-9, \n]+\])", text)
    assert m is not None
    turned = BoardMapping.for_board("37-point", files="rows")
    assert (turned.rows, turned.columns) == (5, 9)
    assert eval(m[1]) == list(LinkSettings.for_mapping(turned).switch_map or ())
    m = re.search(r"SWITCH_MAP = (\[r \* 4[^\n]+\])", text)
    assert m is not None
    dark = LinkSettings.for_mapping(BoardMapping.for_board("8x8", dark_only=True))
    assert eval(m[1]) == list(dark.switch_map or ())


def test_the_chain_with_leds_between_the_squares_is_the_one_described() -> None:
    text = section("### Chain layout")
    m = re.search(r"```toml\n(.*?)```", text, re.S)
    assert m is not None
    table = tomllib.loads(m[1])["gpio"]["mapping"]
    mapping = BoardMapping.from_table(table)
    assert mapping.led_count == 97 and "is 97 LEDs" in text
    # a1, one LED between squares along the rank, one in the bend, g2 back to a2, ..
    assert [mapping.led_of_square(mapping.parse(n)) for n in ("a1", "b1", "g1", "g2", "a2")] == [
        0, 2, 12, 14, 26]
    assert {mapping.led_of_square(p) for p in range(49)} == set(range(0, 97, 2))
    words = " ".join(text.split())
    quotes = re.findall(r"`(gpio\.mapping\.leds: [^`]+)`", words)
    assert len(quotes) == 3
    for quoted in quotes:
        leds = quoted.split("the table's ")[1].split(" ")[0] if "table's" in quoted else None
        if leds is None:
            bad = ([n for n in table["leds"] if n != "d4"] if "no LED" in quoted
                   else table["leds"] + ["-", "d4"])
            with pytest.raises(ConfigError) as err:
                BoardMapping.from_table({"leds": bad})
            assert str(err.value) == quoted
        else:
            names = [n for n in table["leds"] if n != "-"]
            long = BoardMapping(leds=tuple(names + ["-"] * (int(leds) - 49)))
            assert str(long.chain_beyond(NO_LED, "the serial board")) == quoted
    assert f"at most {MOST_LEDS} LEDs (24 bytes each" in " ".join(DOC.split())


def _seconds(cell: str) -> float:
    """``"150 ms"``, ``"0.25 s"``: in seconds."""
    number, unit = cell.split()
    return float(number) / (1000 if unit == "ms" else 1)


def test_the_gpio_defaults_shown_are_the_configuration_s() -> None:
    # "A [gpio] configuration, all keys optional (these are the defaults)".
    from controller.drivers.gpio_config import GpioConfig

    text = DOC.split("all keys optional (these are the defaults):", 1)[1]
    m = re.search(r"```toml\n(.*?)```", text, re.S)
    assert m is not None
    shown = tomllib.loads(m[1])["gpio"]
    defaults = GpioConfig.from_table(None).to_table()
    for table, keys in shown.items():
        for key, value in keys.items():
            want = defaults[table][key]
            assert value == (list(want) if isinstance(want, tuple) else want), (
                f"hardware.md shows [gpio.{table}] {key} = {value!r}; the default is {want!r}")


def test_the_link_timings_shown_are_the_defaults() -> None:
    # "The serial protocol", "Timing": each LinkSettings value and firmware
    # board.py constant at its default.
    import ast
    import dataclasses

    firmware = {t.id: ast.literal_eval(node.value)
                for node in ast.parse((Path(__file__).resolve().parents[2] / "firmware" /
                                       "board.py").read_text()).body
                if isinstance(node, ast.Assign) for t in node.targets
                if isinstance(t, ast.Name) and t.id.isupper()}
    settings = {f.name: f.default for f in dataclasses.fields(LinkSettings)}
    checked = 0
    for line in section("### Timing").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or "`" not in cells[2]:
            continue
        name = cells[2].split("`")[1]
        if name.startswith("board."):
            value = firmware[name.removeprefix("board.")]
            value /= 1_000_000 if name.endswith("_US") else 1000
        else:
            key = name.removeprefix("LinkSettings.")
            value = settings[key]
            if cells[2].startswith("CONFIG"):  # the firmware's own, until a CONFIG: the same
                assert firmware[f"{key.upper()}_MS"] / 1000 == value, name
        assert _seconds(cells[1]) == pytest.approx(value), (cells, value)
        checked += 1
    assert checked == 10


def test_the_link_statistics_named_are_link_stats() -> None:
    import dataclasses

    from controller.drivers.link_settings import LinkStats

    text = " ".join(section("### Link statistics").split("\n\n", 2)[1].split())
    named = re.findall(r"`(\w+)`", text.split("snapshot:", 1)[1].split("(the HELLO_ACK", 1)[0])
    assert named == [f.name for f in dataclasses.fields(LinkStats)]
