"""The switch/LED mapping and the [gpio] configuration: orientations,
serpentine chains, explicit tables, TOML round trips, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.drivers.config_table import ConfigError
from controller.drivers.gpio_config import GpioConfig, load_config, loads, save_config
from controller.drivers.gpio_matrix import MatrixConfig
from controller.drivers.mapping import BoardMapping, orientations, parse_square, square_name
from controller.drivers.ws2812 import LedConfig, RoleStyle


def test_square_names_follow_the_log_order() -> None:
    assert [square_name(i) for i in (0, 6, 7, 48)] == ["a1", "g1", "a2", "g7"]
    assert parse_square("d4") == 24 and parse_square("E5", 5) == 24
    for bad in ("h1", "a8", "a0", "", "4d"):
        with pytest.raises(ConfigError):
            parse_square(bad)


@pytest.mark.parametrize("size", [5, 7])
@pytest.mark.parametrize(("a1", "files"), orientations(7))
def test_every_orientation_is_a_bijection_with_a1_at_its_corner(
    size: int, a1: str, files: str
) -> None:
    n = size - 1
    a1 = a1.replace("6", str(n))
    m = BoardMapping(size=size, a1=a1, files=files)
    switches = {m.switch_of_square(s) for s in range(size * size)}
    assert len(switches) == size * size
    assert f"r{m.switch_of_square(0)[0]}c{m.switch_of_square(0)[1]}" == a1
    for sq in range(size * size):
        assert m.square_of_switch(*m.switch_of_square(sq)) == sq
    # b1 is one step from a1 along the matrix columns or rows, as configured
    (r0, c0), (r1, c1) = m.switch_of_square(0), m.switch_of_square(1)
    assert (r0 == r1) == (files == "columns") and abs(r1 - r0) + abs(c1 - c0) == 1


def test_serpentine_chain_snakes_and_the_offset_skips_spare_leds() -> None:
    m = BoardMapping(led_first="g7", led_runs="files", led_serpentine=True, led_offset=1)
    order = [m.name(s) for s in (m.square_of_led(i) for i in range(1, 16)) if s is not None]
    assert order[:9] == ["g7", "g6", "g5", "g4", "g3", "g2", "g1", "f1", "f2"]
    assert m.square_of_led(0) is None and m.led_count == 50
    assert m.led_of_square(parse_square("g7")) == 1
    straight = BoardMapping(led_serpentine=False)
    assert [straight.name(straight.square_of_led(i) or 0) for i in (6, 7)] == ["g1", "a2"]


def test_explicit_tables_override_and_calibrated_orientations_are_recognised() -> None:
    rotated = BoardMapping(a1="r6c6", files="rows")
    table = [rotated.square_of_switch_index(i) for i in range(49)]
    again = BoardMapping().with_switch_table(table)
    assert (again.a1, again.files, again.switches) == ("r6c6", "rows", ())
    scrambled = table[:]
    scrambled[3], scrambled[40] = scrambled[40], scrambled[3]  # two swapped wires
    explicit = BoardMapping().with_switch_table(scrambled)
    assert (
        explicit.switches and [explicit.square_of_switch_index(i) for i in range(49)] == scrambled
    )
    chain = BoardMapping(led_first="a7", led_runs="ranks", led_serpentine=False)
    leds = [chain.square_of_led(i) or 0 for i in range(49)]
    found = BoardMapping().with_led_table(leds)
    assert (found.led_first, found.led_runs, found.led_serpentine, found.leds) == (
        "a7",
        "ranks",
        False,
        (),
    )


# A strip with one LED between squares, snaking by ranks under the 7x7
# board: a1 - b1 - .. - g1 - g2 - f2 - .. (97 LEDs, 48 of them under no square).
SPACED = [x for r in range(1, 8)
          for name in [f"{f}{r}" for f in "abcdefg"][:: -1 if r % 2 == 0 else 1]
          for x in ("-", name)][1:]


def test_a_chain_can_have_leds_under_no_square(tmp_path: Path) -> None:
    m = BoardMapping.from_table({"leds": SPACED, "led_offset": 1})
    assert m.led_count == 1 + 97
    assert [m.led_of_square(parse_square(n)) for n in ("a1", "b1", "g1", "g2", "a2", "a3")] == [
        1, 3, 13, 15, 27, 29]
    assert m.square_of_led(0) is None and m.square_of_led(2) is None  # spare, between a1 and b1
    assert m.square_of_led(14) is None and m.square_of_led(97) == parse_square("g7")
    assert {m.led_of_square(s) for s in range(49)} == set(range(1, 98, 2))
    path = tmp_path / "board.toml"
    save_config(path, GpioConfig(mapping=m))
    assert load_config(path).mapping == m and m.to_table()["leds"] == SPACED


@pytest.mark.parametrize(
    ("leds", "message"),
    [
        ([n for n in SPACED if n != "d4"], "gpio.mapping.leds: no LED for d4"),
        (SPACED + ["-", "d4"], "gpio.mapping.leds: square d4 appears twice (items 49 and 99)"),
        (SPACED[:-1], "gpio.mapping.leds: no LED for g7"),
        (["-"] * 49, "gpio.mapping.leds: no LED for a1, b1, c1, d1, e1 (and 44 more)"),
    ],
)
def test_a_chain_with_a_square_missing_or_twice_is_refused(leds: list[str], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        BoardMapping.from_table({"leds": leds})
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"a1": "r3c3"}, "gpio.mapping.a1: 'r3c3' is not a corner"),
        ({"size": 6}, "gpio.mapping.size: must be 5, 7 or 8"),
        ({"files": "diagonal"}, "gpio.mapping.files: must be"),
        ({"switches": ["a1"] * 49}, "square a1 appears twice"),
        ({"switches": ["a1", "b1"]},
         "the 7x7 board's 7x7 switch matrix has 49 crossings, one square or"),
        ({"leds": ["z9"] * 49}, "gpio.mapping.leds: item 1: 'z9' is not a square"),
        ({"led_first": "d4"}, "not a corner square"),
        ({"led_offset": -1}, "gpio.mapping.led_offset: must be at least 0"),
        ({"serpentine": True}, "gpio.mapping.serpentine: unknown key"),
        ({"size": "7"}, "gpio.mapping.size: must be an integer, not a string"),
        # Before: an empty list was taken as left out, the default chain used.
        ({"leds": []}, "gpio.mapping.leds: an empty list: list them, or leave leds out "
                       "(led_first, led_runs and led_serpentine set the chain)"),
        ({"switches": []}, "gpio.mapping.switches: an empty list"),
    ],
)
def test_bad_mappings_give_one_line_errors(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as err:
        BoardMapping.from_table(table)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[gpio.matrix]\nrow_pins = [4, 4, 5, 6, 7, 8, 9]",
            "gpio.matrix.row_pins: GPIO4 is used twice",
        ),
        ("[gpio.matrix]\nrow_pins = [4, 5]",
         "row_pins: the pins wire a 2x7 switch matrix, but the 7x7 board is read on a 7x7 one"),
        ("[gpio.matrix]\nscan_hz = 50", "gpio.matrix.scan_hz: must be 100 to 5000"),
        ("[gpio.matrix]\ndebounce_scans = 0", "gpio.matrix.debounce_scans"),
        ("[gpio.matrix]\ncolumn_pins = [19, 26, 18, 23, 24, 25, 40]", "GPIO40 does not exist"),
        (
            "[gpio.buttons.pins]\nhint = 4",
            "GPIO4 is used for both matrix row 0 and the hint button",
        ),
        ("[gpio.buttons.pins]\nnap = 16", "gpio.buttons.pins.nap: unknown button"),
        ("[gpio.buttons.attacker]\nresign = 10", "GPIO10 is used for both the LED data line"),
        ("[gpio.buttons.pins]\nhint = 8", "GPIO8 is used for both SPI0 CE0 (held by the SPI "
         "driver the LEDs use) and the hint button"),
        # SPI1's driver holds GPIO19 (MISO), the default wiring's column a.
        ("[gpio.leds]\nspi_port = 1\n[gpio.buttons.pins]\nhint = 2\nexchange = 3\n"
         "undo = 14", "GPIO19 is used for both matrix column 0 and SPI1 MISO (held by the SPI "
         "driver the LEDs use)"),
        ("[gpio.matrix]\nrow_pins = [4, 17, 27, 22, 5, 6, 13.0]",
         "gpio.matrix.row_pins: item 7 must be a GPIO number, not 13.0 (a decimal number)"),
        ('[gpio.mapping]\nboard = "5x5"\nsize = 7', "gpio.mapping.size: the 5x5 board has size 5, "
         "not 7"),
        ("[gpio.leds]\nbrightness = 1.5", "gpio.leds.brightness: must be above 0"),
        ('[gpio.leds]\npixel_order = "XYZ"', "gpio.leds.pixel_order: 'XYZ' is not one of"),
        ('[gpio.leds.roles]\ncapture = "red"', "gpio.leds.roles.capture.colour: 'red' is not"),
        ('[gpio.leds.roles]\nsparkle = "#ffffff"', "gpio.leds.roles.sparkle: unknown role"),
        (
            "[gpio]\nmatrx = 1",
            "gpio.matrx: unknown key (known here: buttons, leds, mapping, matrix)",
        ),
        ("[gpio", "not valid TOML"),
        ("a = " + "[" * 5000 + "]" * 5000, "not valid TOML (nested too deeply)"),
    ],
)
def test_bad_configurations_give_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        loads(text)
    assert message in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_the_written_file_keeps_its_mode_and_a_link_stays_a_link(tmp_path: Path) -> None:
    # The service's file holds the broker's password, readable by its owner
    # alone, and /etc/kharbga/config.toml may be a link to it. Before: the
    # mapping written replaced the file by a new one of the default mode
    # (the password readable by every user) and the link by a plain file.
    kept = tmp_path / "kept" / "config.toml"
    kept.parent.mkdir()
    kept.write_text('[broadcast]\npassword = "s3cret-s3cret"\n', encoding="utf-8")
    kept.chmod(0o600)
    link = tmp_path / "config.toml"
    link.symlink_to(kept)
    config = GpioConfig(mapping=BoardMapping(a1="r6c0", files="rows"))
    save_config(link, config)
    assert link.is_symlink() and link.resolve() == kept.resolve()
    assert kept.stat().st_mode & 0o777 == 0o600
    assert load_config(kept) == config and 'password = "s3cret-s3cret"' in kept.read_text()
    assert sorted(p.name for p in kept.parent.iterdir()) == ["config.toml"]  # no .tmp left
    again = GpioConfig(mapping=BoardMapping(a1="r0c0", files="rows"))
    save_config(kept, again)  # the file itself, written anew
    assert kept.stat().st_mode & 0o777 == 0o600 and load_config(link) == again


def test_configuration_round_trips_through_toml(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text("[service]\nport = 8080\n\n[gpio.leds]\nbrightness = 0.5\n", encoding="utf-8")
    config = GpioConfig(
        matrix=MatrixConfig(scan_hz=250.0, debounce_scans=4, row_drive="push-pull"),
        mapping=BoardMapping(a1="r6c0", files="rows", led_offset=1, led_first="g1"),
        leds=LedConfig(
            brightness=0.5, roles={**LedConfig().roles, "error": RoleStyle((200, 0, 10), 0.2)}
        ),
    )
    save_config(path, config)
    assert load_config(path) == config
    text = path.read_text(encoding="utf-8")
    assert "[service]\nport = 8080" in text  # the other tables are kept
    absent = tmp_path / "absent.toml"
    assert load_config(absent, missing_ok=True) == GpioConfig()
    with pytest.raises(ConfigError) as err:
        load_config(absent)
    assert str(err.value) == f"{absent}: no such file"


COMMENTED = """\
# The board in the hall.
[web]
port = 9000  # behind the proxy

[gpio.mapping]
# as wired by hand
files = "columns"   # ranks along the rows
a1 = "r0c0"         # the corner under a1
switches = ["a1", "b1"]  # stale: replaced by the calibration

[gpio.leds]
brightness = 0.2    # evenings
"""


def test_saving_keeps_comments_order_and_other_tables(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text(COMMENTED.replace('switches = ["a1", "b1"]', 'led_offset = 0'),
                    encoding="utf-8")
    found = BoardMapping(a1="r6c0", files="rows", led_first="g7", led_runs="files")
    save_config(path, load_config(path).with_mapping(found))
    text = path.read_text(encoding="utf-8")
    for line in ("# The board in the hall.", "port = 9000  # behind the proxy",
                 "# as wired by hand", 'files = "rows"   # ranks along the rows',
                 'a1 = "r6c0"         # the corner under a1', "brightness = 0.2    # evenings"):
        assert line in text, line
    # the keys stay where they were; new ones come after them
    order = [text.index(k) for k in ("[web]", "files =", "a1 =", "led_offset", "led_first",
                                     "led_runs", "[gpio.leds]")]
    assert order == sorted(order)
    assert "led_serpentine" not in text and "[gpio.matrix]" not in text  # defaults unwritten
    again = load_config(path)
    assert again.mapping == found and again.leds.brightness == 0.2


def test_a_key_the_new_mapping_drops_is_removed(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    rotated = BoardMapping(a1="r6c6", files="rows")
    names = [rotated.name(rotated.square_of_switch_index(i)) for i in range(49)]
    path.write_text(COMMENTED.replace('["a1", "b1"]', repr(names).replace("'", '"')),
                    encoding="utf-8")
    assert load_config(path).mapping.switches == tuple(names)
    save_config(path, load_config(path).with_mapping(rotated))
    text = path.read_text(encoding="utf-8")
    assert "switches" not in text and "# as wired by hand" in text
    assert load_config(path).mapping == rotated


def test_errors_in_a_file_name_the_file_and_the_dotted_key(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text('[gpio.leds.roles]\ncapture = { colour = "red" }\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert message.startswith(f"{path}: gpio.leds.roles.capture.colour: ")
    assert "\n" not in message and err.value.file == str(path)
    path.write_text("[gpio.matrix\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


def test_one_error_type_for_every_reader() -> None:
    from controller.board.config import ConfigError as BoardError
    from controller.service.config import ConfigError as ServiceError

    assert ConfigError is BoardError is ServiceError
    assert issubclass(ConfigError, ValueError)


def test_partial_tables_keep_the_defaults() -> None:
    config = loads(
        '[gpio.leds.roles]\ncapture = "#010203"\n'
        "hint = { blink = 0.0 }\n"
        "[gpio.buttons.attacker]\nresign = 20\n[gpio.buttons.defender]\nresign = 21\n"
    )
    roles = config.leds.roles
    assert roles["capture"] == RoleStyle((1, 2, 3), 0.5)
    assert roles["hint"].colour == LedConfig().roles["hint"].colour and roles["hint"].blink == 0
    assert config.buttons.pins == (("resign", "attacker", 20), ("resign", "defender", 21))
    assert config.matrix == MatrixConfig()


def test_gpio8_is_free_for_a_button_when_the_leds_are_off() -> None:
    assert loads("[gpio.leds]\nenabled = false\n[gpio.buttons.pins]\nhint = 8").buttons.pin_of(
        "hint") == 8
