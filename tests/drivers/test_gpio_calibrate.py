"""``calibrate matrix`` with a simulated person on the simulated matrix: the
person follows the lights (or the names), and the procedure finds how the
board is really wired, whatever the configuration said."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpio_fakes import FakeSPI, SimPerson, decode, fake_blinka
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.calibrate_matrix import (
    CalibrationAborted,
    calibrate_matrix,
    run_calibration,
)
from controller.drivers.console import Prompt
from controller.drivers.gpio_config import GpioConfig, load_config, save_config
from controller.drivers.gpio_matrix import MatrixConfig, MatrixScanner
from controller.drivers.mapping import BoardMapping
from controller.drivers.matrix_sim import MatrixSimulator, VirtualClock
from controller.drivers.ws2812 import LedConfig, SquareLeds

CONFIG = MatrixConfig()
TRUTH = BoardMapping(a1="r6c0", files="rows", led_first="g7", led_runs="files", led_serpentine=True)


def same_places(a: BoardMapping, b: BoardMapping) -> None:
    for sq in range(a.squares):
        assert a.switch_of_square(sq) == b.switch_of_square(sq)
        assert a.led_of_square(sq) == b.led_of_square(sq)


def test_following_the_lights_finds_the_switches_and_the_leds(
    factory: MockFactory, spi: FakeSPI
) -> None:
    sim = MatrixSimulator(factory, CONFIG, TRUTH)
    configured = BoardMapping()  # wrong on both counts
    leds = SquareLeds(LedConfig(), configured, spi)
    person = SimPerson(sim, spi, TRUTH)
    with MatrixScanner(CONFIG, configured, pin_factory=factory) as scanner:
        found = calibrate_matrix(scanner, person, VirtualClock(), leds)
    same_places(found, TRUTH)
    assert (found.a1, found.files, found.switches) == ("r6c0", "rows", ())
    assert (found.led_first, found.led_runs, found.leds) == ("g7", "files", ())
    assert person.said[-1].startswith("Mapping found: a1 at r6c0, files along rows")
    assert len([p for p in person.asked if p.action == "place"]) == 49


def test_a_chain_with_leds_under_no_square_keeps_them_dark_and_listed(
    factory: MockFactory, spi: FakeSPI
) -> None:
    # A strip with one LED between squares (a1 - b1 - .. - g1 - g2 - ..),
    # listed so; the builder swapped b1 and c1 in the table by mistake.
    ranks = [[f"{f}{r}" for f in "abcdefg"][:: -1 if r % 2 == 0 else 1] for r in range(1, 8)]
    spaced = [x for run in ranks for name in run for x in ("-", name)][1:]
    truth = BoardMapping(a1="r6c0", files="rows", leds=tuple(spaced))
    wrong = spaced[:]
    wrong[2], wrong[4] = "c1", "b1"
    configured = BoardMapping(leds=tuple(wrong))
    sim = MatrixSimulator(factory, CONFIG, truth)
    leds = SquareLeds(LedConfig(), configured, spi)
    person = SimPerson(sim, spi, truth)
    with MatrixScanner(CONFIG, configured, pin_factory=factory) as scanner:
        found = calibrate_matrix(scanner, person, VirtualClock(), leds)
    same_places(found, truth)
    assert found.leds == tuple(spaced) and found.led_count == 97
    assert person.said[-1] == ("Mapping found: a1 at r6c0, files along rows; "
                               "a table of LEDs, 48 of them under no square.")
    lit = [[i for i, p in enumerate(decode(w)) if any(p)] for w in spi.writes]
    assert sorted({i for led in lit for i in led}) == list(range(0, 97, 2))  # never one between
    assert len([p for p in person.asked if p.action == "place"]) == 49


def test_by_names_without_leds_and_an_odd_wiring_gives_a_table(factory: MockFactory) -> None:
    table = list(range(49))
    table[10], table[30] = table[30], table[10]
    truth = BoardMapping().with_switch_table(table)
    assert truth.switches
    sim = MatrixSimulator(factory, CONFIG, truth)
    with MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory) as scanner:
        found = calibrate_matrix(scanner, SimPerson(sim), VirtualClock())
    assert found.switches == truth.switches
    assert found.led_first == "a1" and not found.leds  # LEDs untouched without lights


class Forgetful(SimPerson):
    """Leaves the piece on a1 when asked to move it to b1, the first time."""

    forgot = False

    def ask(self, prompt: Prompt) -> str:
        if prompt.squares == (1,) and not self.forgot:
            self.forgot = True
            self.asked.append(prompt)
            self.sim.set_occupied(0b11)  # a1 and b1
            return ""
        return super().ask(prompt)


def test_mistakes_are_explained_and_asked_again(factory: MockFactory) -> None:
    sim = MatrixSimulator(factory, CONFIG, BoardMapping())
    person = Forgetful(sim)
    with MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory) as scanner:
        found = calibrate_matrix(scanner, person, VirtualClock())
    assert "Switches r0c0, r0c1 are closed: leave only the one piece." in person.said
    assert [p.squares for p in person.asked[1:4]] == [(0,), (1,), (1,)]
    same_places(found, BoardMapping())


def test_a_stuck_switch_is_reported_and_stops_calibration(factory: MockFactory) -> None:
    sim = MatrixSimulator(factory, CONFIG, BoardMapping())
    sim.stick(3, 3)
    person = SimPerson(sim, script=["", "c"])
    with MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory) as scanner:
        with pytest.raises(CalibrationAborted, match="at d4: no single switch answered"):
            calibrate_matrix(scanner, person, VirtualClock(), attempts=2)
    assert any("Switches r3c3 are closed on an empty board" in p.text for p in person.asked)


def test_quitting_writes_nothing(factory: MockFactory, tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    save_config(path, GpioConfig())
    before = path.read_text(encoding="utf-8")
    sim = MatrixSimulator(factory, CONFIG, TRUTH)
    person = SimPerson(sim, script=["", "", "q"])
    with pytest.raises(CalibrationAborted, match="nothing written"):
        run_calibration(path, person, pin_factory=factory, clock=VirtualClock(), use_leds=False)
    assert path.read_text(encoding="utf-8") == before


def test_run_calibration_saves_the_mapping(
    factory: MockFactory, spi: FakeSPI, tmp_path: Path
) -> None:
    path = tmp_path / "board.toml"
    path.write_text("[gpio.leds]\nbrightness = 0.2\n[web]\nport = 9000\n", encoding="utf-8")
    sim = MatrixSimulator(factory, CONFIG, TRUTH)
    person = SimPerson(sim, spi, TRUTH)
    found = run_calibration(path, person, pin_factory=factory, spi=spi, clock=VirtualClock())
    saved = load_config(path)
    assert saved.mapping == found
    same_places(saved.mapping, TRUTH)
    assert saved.leds.brightness == 0.2
    assert "[web]\nport = 9000" in path.read_text(encoding="utf-8")
    assert person.said[-1] == f"Written to {path}."
    assert not any(factory._reservations.values())  # every pin released


COMMENTED = """\
# Hall board, wired in March.
[board]
kind = "gpio"       # the reed matrix

[gpio.mapping]
# as the builder guessed it
a1 = "r0c0"         # the corner under a1
files = "columns"   # b1 along the columns
led_offset = 0      # no spare LED

[gpio.leds]
brightness = 0.2    # evenings

[web]
port = 9000         # behind the proxy
"""


def test_calibration_keeps_the_comments_and_order_of_the_file(
    factory: MockFactory, spi: FakeSPI, tmp_path: Path
) -> None:
    path = tmp_path / "board.toml"
    path.write_text(COMMENTED, encoding="utf-8")
    sim = MatrixSimulator(factory, CONFIG, TRUTH)
    person = SimPerson(sim, spi, TRUTH)
    run_calibration(path, person, pin_factory=factory, spi=spi, clock=VirtualClock())
    text = path.read_text(encoding="utf-8")
    kept = [
        "# Hall board, wired in March.",
        'kind = "gpio"       # the reed matrix',
        "# as the builder guessed it",
        'a1 = "r6c0"         # the corner under a1',
        'files = "rows"   # b1 along the columns',
        "led_offset = 0      # no spare LED",
        "brightness = 0.2    # evenings",
        "port = 9000         # behind the proxy",
    ]
    for line in kept:
        assert line in text, line
    # The keys keep their places; what calibration adds follows its table.
    places = [text.index(line) for line in kept]
    assert places == sorted(places)
    assert text.index('led_first = "g7"') < text.index("[gpio.leds]")
    saved = load_config(path)
    same_places(saved.mapping, TRUTH)
    assert (saved.mapping.a1, saved.mapping.led_first, saved.leds.brightness) == ("r6c0", "g7", 0.2)


def test_the_board_of_the_variant_is_calibrated_and_the_file_names_it(
    factory: MockFactory, tmp_path: Path
) -> None:
    """``[board] variant = "sabouiyya"``: the 5x5 board (25 squares asked),
    as ``run`` plays it; the mapping written names its board (it was
    measured on that board: a 7x7 variant is then refused in one line)."""
    path = tmp_path / "board.toml"
    path.write_text('[board]\nkind = "gpio"\nvariant = "sabouiyya"\n', encoding="utf-8")
    five = BoardMapping(board="5x5")
    config = MatrixConfig.stock(five)
    sim = MatrixSimulator(factory, config, five)
    person = SimPerson(sim)
    found = run_calibration(path, person, pin_factory=factory, clock=VirtualClock(),
                            use_leds=False, board="5x5")
    assert found.board == "5x5"
    assert len([p for p in person.asked if p.action == "place"]) == 25
    assert load_config(path).mapping == found
    assert 'board = "5x5"' in path.read_text(encoding="utf-8")


def test_a_file_that_cannot_be_written_is_refused_before_the_walk(
    factory: MockFactory, tmp_path: Path
) -> None:
    from controller.board.config import ConfigError

    sim = MatrixSimulator(factory, CONFIG, BoardMapping())
    person = SimPerson(sim)
    path = tmp_path / "no-such-folder" / "board.toml"
    with pytest.raises(ConfigError, match="cannot write the mapping there: no folder"):
        run_calibration(path, person, pin_factory=factory, clock=VirtualClock(), use_leds=False)
    assert person.asked == []  # nobody walked the board for nothing


def test_a_device_given_as_the_file_is_refused_before_the_walk(factory: MockFactory) -> None:
    """/dev/null reads as an empty configuration; before, the walk ran and
    its result was put in the device's place (a file renamed over it, as
    root under sudo).  The console quits at the first question, so the
    test never gets that far whatever the outcome."""
    import io

    from controller.board.config import ConfigError
    from controller.drivers.console import TerminalConsole

    said = io.StringIO()
    console = TerminalConsole(io.StringIO("q\n"), said)
    with pytest.raises(ConfigError, match=r"^/dev/null: cannot write the mapping there: not a "
                       r"regular file"):
        run_calibration("/dev/null", console, pin_factory=factory, clock=VirtualClock(),
                        use_leds=False)
    assert said.getvalue() == ""  # nothing asked


def test_leds_whose_library_does_not_load_stop_calibration_in_one_line(
    factory: MockFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: Blinka on a PC (mock pins) ended calibrate in its ImportError.
    The LED mapping is half of what calibration finds: it stops before
    asking anything, writes nothing and says how to go on without LEDs."""
    fake_blinka(monkeypatch)
    path = tmp_path / "board.toml"
    path.write_text("[gpio.leds]\nenabled = true\n", encoding="utf-8")
    person = SimPerson(MatrixSimulator(factory, CONFIG, TRUTH))
    with pytest.raises(CalibrationAborted) as err:
        run_calibration(path, person, pin_factory=factory, clock=VirtualClock())
    assert str(err.value) == (
        "the LEDs cannot be lit (--no-leds calibrates the switches alone): their library does "
        "not load here (cannot import name 'spiPorts' from 'microcontroller.pin'; Blinka says: "
        "GENERIC_X86 is not fully supported. Some features may not work): it drives the "
        "Raspberry Pi's SPI, installed there with make install-pi (or .venv/bin/pip install "
        "-e '.[pi]' in the checkout)")
    assert not person.asked and capsys.readouterr().out == ""
    assert path.read_text(encoding="utf-8") == "[gpio.leds]\nenabled = true\n"
    assert not any(factory._reservations.values())  # the matrix's pins released
