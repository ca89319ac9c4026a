"""WS2812 output: the exact SPI bytes neopixel_spi sends for the reconciler's
roles, blinking, brightness and current limits, colour order, the chain's
layout."""

from __future__ import annotations

import logging

import pytest
from gpio_fakes import FakeSPI, decode, encode, fake_blinka

from controller.board.leds import ROLES, STYLES
from controller.drivers.config_table import ConfigError
from controller.drivers.gpio_config import loads
from controller.drivers.mapping import BoardMapping, parse_square
from controller.drivers.ws2812 import (
    DEFAULT_ROLES,
    LedConfig,
    RoleStyle,
    SquareLeds,
    limit_current,
    render,
)

STEADY = LedConfig(
    brightness=1.0,
    max_current_ma=0,
    roles={**DEFAULT_ROLES, "capture": RoleStyle((255, 70, 0), 0.0)},
)


def test_every_role_has_a_default_style() -> None:
    assert set(DEFAULT_ROLES) == set(STYLES) == set(ROLES) | {"hint-to"}
    by_colour: dict[tuple[int, int, int], list[str]] = {}
    for role, style in DEFAULT_ROLES.items():
        by_colour.setdefault(style.colour, []).append(role)
    shared = [roles for roles in by_colour.values() if len(roles) > 1]
    assert not shared, (f"lights {shared} share a colour on the board: give each its own in "
                        "DEFAULT_STYLES (controller/board/leds.py)")


def test_a_hint_s_two_squares_show_two_colours(spi: FakeSPI) -> None:
    mapping = BoardMapping()
    config = LedConfig(brightness=1.0, max_current_ma=0)
    with SquareLeds(config, mapping, spi) as leds:
        leds.show({"b4": "hint", "c4": "hint"}, now=0.0, hint_to="c4")
    shown = decode(spi.writes[0])  # (r, g, b) per LED
    hint, hint_to = DEFAULT_ROLES["hint"].colour, DEFAULT_ROLES["hint-to"].colour
    assert shown[mapping.led_of_square(parse_square("b4"))] == hint
    assert shown[mapping.led_of_square(parse_square("c4"))] == hint_to
    assert hint != hint_to


def test_a_square_the_hint_ends_on_keeps_a_light_that_outranks_the_hint(spi: FakeSPI) -> None:
    # The hint's end lit for something else (the lifted soldier may go
    # there): it shows that light, not the hint's end colour.
    mapping = BoardMapping()
    config = LedConfig(brightness=1.0, max_current_ma=0)
    with SquareLeds(config, mapping, spi) as leds:
        leds.show({"c2": "lifted", "c3": "destination"}, now=0.0, hint_to="c3")
    shown = decode(spi.writes[0])
    assert shown[mapping.led_of_square(parse_square("c3"))] == DEFAULT_ROLES["destination"].colour


def test_the_exact_bytes_on_the_spi_bus(spi: FakeSPI) -> None:
    mapping = BoardMapping()
    with SquareLeds(STEADY, mapping, spi) as leds:
        assert leds.show({"a1": "capture", "b1": "destination", "a2": "last-to"}, now=0.0)
    grb = bytearray(49 * 3)
    grb[0:3] = bytes([70, 255, 0])  # a1: LED 0, capture (255, 70, 0) in G, R, B order
    grb[3:6] = bytes([255, 0, 0])  # b1: LED 1, destination (0, 255, 0)
    grb[13 * 3 : 14 * 3] = bytes([0, 0, 255])  # a2: LED 13 (serpentine), last-to
    assert spi.writes[0] == encode(bytes(grb))
    assert spi.writes[-1] == encode(bytes(49 * 3))  # closing blanks the board
    assert spi.frequency == 6_400_000 and not spi.locked
    assert not spi.deinited  # the caller's bus is the caller's to close


def test_nothing_is_sent_while_nothing_changes(spi: FakeSPI) -> None:
    leds = SquareLeds(STEADY, BoardMapping(), spi)
    assert leds.show({"d4": "lifted"}, 0.0)
    assert not leds.show({"d4": "lifted"}, 0.3)
    assert leds.show({"d4": "lifted", "d5": "destination"}, 0.4)
    assert len(spi.writes) == leds.writes == 2


def test_blinking_roles_follow_the_clock(spi: FakeSPI) -> None:
    config = LedConfig(brightness=1.0, max_current_ma=0)
    mapping = BoardMapping()
    leds = SquareLeds(config, mapping, spi)
    d4 = mapping.led_of_square(parse_square("d4"))
    seen = []
    for k in range(8):
        leds.show({"d4": "error", "e4": "destination"}, now=k * 0.0625)
        seen.append(decode(spi.writes[-1])[d4])
    assert seen == [(255, 0, 0)] * 2 + [(0, 0, 0)] * 2 + [(255, 0, 0)] * 2 + [(0, 0, 0)] * 2
    assert len(spi.writes) == 4  # only the changes


def test_brightness_and_the_current_budget_scale_every_pixel(spi: FakeSPI) -> None:
    config = LedConfig(brightness=0.5, max_current_ma=0)
    mapping = BoardMapping()
    SquareLeds(config, mapping, spi).show({"a1": "lifted", "g7": "capture"}, 0.0)
    pixels = decode(spi.writes[-1])
    assert pixels[0] == (127, 127, 127)
    assert pixels[mapping.led_of_square(48)] == (127, 35, 0)
    full = [(255, 255, 255)] * 49  # 49 x 60 mA = 2940 mA
    limited = limit_current(full, 1000)
    assert sum(sum(p) for p in limited) * 20 / 255 <= 1000
    assert limited[0] == (86, 86, 86)
    assert limit_current(full, 0) == full


def test_the_budget_applies_to_a_whole_board_of_roles() -> None:
    config = LedConfig(brightness=1.0, max_current_ma=500)
    mapping = BoardMapping()
    everything = {mapping.name(s): "lifted" for s in range(49)}
    pixels = render(everything, 0.0, config, mapping)
    assert sum(sum(p) for p in pixels) * 20 / 255 <= 500
    assert len(set(pixels)) == 1 and pixels[0][0] > 0


def test_colour_order_and_chain_layout_come_from_the_configuration(spi: FakeSPI) -> None:
    config = loads(
        '[gpio.leds]\npixel_order = "RGB"\nbrightness = 1.0\nmax_current_ma = 0\n'
        '[gpio.leds.roles]\nhint = { colour = "#102030", blink = 0 }\n'
        '[gpio.mapping]\nled_first = "g7"\nled_runs = "files"\nled_offset = 1\n'
    )
    leds = SquareLeds(config.leds, config.mapping, spi)
    leds.show({"g7": "hint", "g6": "hint", "f1": "hint"}, 0.0)
    frame = spi.writes[-1]
    assert len(frame) == 2 * 64 + 50 * 24
    pixels = decode(frame, "RGB")
    lit = [i for i, p in enumerate(pixels) if any(p)]
    assert lit == [1, 2, 8]  # spare LED 0, then g7, g6, .., g1, f1 (serpentine)
    assert pixels[1] == (0x10, 0x20, 0x30)
    raw = frame[64 + 24 : 64 + 48]  # LED 1 in R, G, B order
    assert raw == encode(bytes([0x10, 0x20, 0x30]))[64:-64]


def test_unknown_roles_and_squares_stay_dark(spi: FakeSPI) -> None:
    pixels = render({"d4": "sparkle", "z9": "capture"}, 0.0, STEADY, BoardMapping())
    assert not any(any(p) for p in pixels)


def test_light_and_show_pixels_check_lengths(spi: FakeSPI) -> None:
    mapping = BoardMapping()
    leds = SquareLeds(STEADY, mapping, spi)
    leds.light({parse_square("c5"): (10, 20, 30)})
    pixels = decode(spi.writes[-1])
    assert pixels[mapping.led_of_square(parse_square("c5"))] == (10, 20, 30)
    with pytest.raises(ValueError, match="48 colours for 49 LEDs"):
        leds.show_pixels([(0, 0, 0)] * 48)


def test_a_chain_with_leds_between_the_squares_is_written_whole(spi: FakeSPI) -> None:
    # One LED between squares, snaking by ranks: a1 - b1 - .. - g1 - g2 - f2 ..
    ranks = [[f"{f}{r}" for f in "abcdefg"][:: -1 if r % 2 == 0 else 1] for r in range(1, 8)]
    spaced = [x for run in ranks for name in run for x in ("-", name)][1:]
    mapping = BoardMapping.from_table({"leds": spaced})
    with SquareLeds(STEADY, mapping, spi) as leds:
        leds.show({"a1": "capture", "b1": "destination", "g2": "last-to", "g7": "capture"}, 0.0)
        frame = spi.writes[-1]
        assert len(frame) == 2 * 64 + 97 * 24  # the whole chain, every frame
        pixels = decode(frame)
        assert [i for i, p in enumerate(pixels) if any(p)] == [0, 2, 14, 96]
        assert pixels[14] == (0, 0, 255)  # g2: after g1 (12) and the LED in the bend (13)
        leds.light({parse_square("c1"): (10, 20, 30)})
        assert [i for i, p in enumerate(decode(spi.writes[-1])) if any(p)] == [4]
    assert spi.writes[-1] == encode(bytes(97 * 3))  # closing blanks the whole chain


def test_a_chain_longer_than_one_spi_write_is_refused_in_one_line(spi: FakeSPI) -> None:
    # A frame is one write of 24 bytes an LED and two resets of 64: spidev
    # takes 4,096 bytes, so 165 LEDs.  Three LEDs a square on the 8x8 board
    # (a1, then two under none, ..) is 192.
    squares = BoardMapping(size=8).layout.names
    longest = loads("[gpio.mapping]\nsize = 8\nleds = %s\n" % (
        [x for name in squares for x in (name, "-")][:-1] + ["-"] * 38)).mapping
    assert longest.led_count == 165
    with SquareLeds(STEADY, longest, spi) as leds:
        leds.show({"h8": "capture"}, 0.0)
    assert len(spi.writes[0]) == 4088 and decode(spi.writes[0])[126] == (255, 70, 0)
    three = [x for name in squares for x in (name, "-", "-")]
    with pytest.raises(ConfigError) as err:
        loads(f"[gpio.mapping]\nsize = 8\nleds = {three}\n")
    assert str(err.value) == (
        "gpio.mapping.leds: the Pi's SPI port (4,096 bytes a frame) drives at most 165 LEDs, "
        "and the table's 192 (the 64 squares of the 8x8 board and 128 under none) make 192: "
        "cut the strip between points and wire across the gaps, or use a strip with fewer "
        "LEDs a metre")
    with pytest.raises(ConfigError, match="^gpio.mapping.led_offset: .* at most 165 LEDs, and "
                       "led_offset 120 with the 49 squares of the 7x7 board makes 169$"):
        loads("[gpio.mapping]\nled_offset = 120\n")
    assert loads(f"[gpio.leds]\nenabled = false\n[gpio.mapping]\nsize = 8\nleds = {three}\n")


def test_blinka_failing_on_a_pc_is_one_import_error_with_what_it_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: Blinka's warning went to stdout, twice, before its error."""
    fake_blinka(monkeypatch)
    with pytest.raises(ImportError) as err:
        SquareLeds(LedConfig(), BoardMapping())
    assert capsys.readouterr().out == ""
    assert str(err.value) == ("cannot import name 'spiPorts' from 'microcontroller.pin'; "
                              "Blinka says: GENERIC_X86 is not fully supported. "
                              "Some features may not work")
    assert err.value.name == "microcontroller.pin"


def test_what_blinka_prints_on_a_bus_that_opens_is_logged_not_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = FakeSPI()
    fake_blinka(monkeypatch, opens=bus)
    with caplog.at_level(logging.WARNING, logger="controller.drivers.ws2812"):
        with SquareLeds(LedConfig(), BoardMapping()) as leds:
            leds.light({0: (255, 0, 0)})
    assert capsys.readouterr().out == ""
    assert [r.getMessage() for r in caplog.records] == [
        "the LEDs' library says: GENERIC_X86 is not fully supported. Some features may not work"]
    assert bus.writes and bus.deinited  # the bus was used, then released
