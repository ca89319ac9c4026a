"""``kharbga-board calibrate matrix``: find which switch and which LED lie
under each square, with a person and one piece.

The procedure lights one LED at a time (in chain order) and asks the person
to put a piece on the lit square, naming the square the current mapping
expects there; if the light is under another square the person types that
square's name.  The one switch that closes belongs to the square under the
piece, and so does the lit LED.  Without LEDs it names the squares in order
instead.  The result is a :class:`~controller.drivers.mapping.BoardMapping`
(written as an orientation when it is one, else as tables), which
:func:`run_calibration` saves into the configuration file.

Everything it touches is a parameter: the scanner (on MockFactory pins and
a simulated matrix in tests), the lights, the clock and the console.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config_table import ConfigError
from .console import Console, Prompt
from .gpio_config import load_config, save_config
from .gpio_matrix import Clock, MatrixScanner, MonotonicClock
from .mapping import BoardMapping, parse_square, points
from .ws2812 import RGB, LedOutput, SquareLeds

__all__ = ["CalibrationAborted", "calibrate_matrix", "run_calibration"]

LIT: RGB = (255, 255, 255)


class CalibrationAborted(ValueError):
    """The person quit, or a square could not be calibrated; nothing is
    written."""


def calibrate_matrix(
    scanner: MatrixScanner,
    console: Console,
    clock: Clock,
    leds: LedOutput | None = None,
    *,
    attempts: int = 5,
    settle_timeout: float = 2.0,
) -> BoardMapping:
    """Walk the person through every square; the mapping found.

    :class:`CalibrationAborted` if they type ``q`` or a square fails
    ``attempts`` times.
    """
    mapping = scanner.mapping
    size = mapping.size
    n = mapping.squares
    name = mapping.name
    label = mapping.switch_label

    def read() -> int:
        return scanner.settle(clock, settle_timeout)

    def quit_if(answer: str) -> None:
        if answer.strip().lower() in ("q", "quit"):
            raise CalibrationAborted("calibration abandoned: nothing written")

    console.say(
        f"Calibrating the {size}x{size} switch matrix: {n} squares, one piece. "
        "Type q at any prompt to stop."
    )
    # 1. The empty board: switches closed now are stuck and left out.
    ignored = 0
    for _ in range(attempts):
        quit_if(console.ask(Prompt("Take every piece off the board, then press Enter.", "clear")))
        ignored = read()
        if not ignored:
            break
        stuck = ", ".join(label(i) for i in points(ignored))
        answer = console.ask(
            Prompt(
                f"Switches {stuck} are closed on an empty board. Enter to look again, "
                "c to carry on without them."
            )
        )
        quit_if(answer)
        if answer.strip().lower() == "c":
            break
    # 2. One square at a time.
    switch_square: dict[int, int] = {}
    led_square: dict[int, int] = {}
    for k in range(n):
        expected = mapping.square_of_led(mapping.led_offset + k) if leds else k
        assert expected is not None
        if leds is not None:
            pixels: list[RGB] = [(0, 0, 0)] * mapping.led_count
            pixels[mapping.led_offset + k] = LIT
            leds.show_pixels(pixels)
        where = f"{name(expected)} (it is lit)" if leds else name(expected)
        hint = " If the light is under another square, type that square's name." if leds else ""
        square = expected
        for attempt in range(attempts + 1):
            if attempt == attempts:
                raise CalibrationAborted(
                    f"calibration abandoned at {name(square)}: no single switch answered"
                )
            answer = console.ask(
                Prompt(f"Move the piece to {where}, then press Enter.{hint}", "place", (expected,))
            ).strip()
            quit_if(answer)
            if answer and leds is not None:
                try:
                    square = parse_square(answer, size)
                except ValueError as exc:
                    console.say(str(exc))
                    continue
            closed = [i for i in points(read() & ~ignored)]
            if len(closed) != 1:
                if not closed:
                    console.say(f"No switch closed under {name(square)}: is the piece down?")
                else:
                    listed = ", ".join(label(i) for i in closed)
                    console.say(f"Switches {listed} are closed: leave only the one piece.")
                continue
            switch = closed[0]
            if switch in switch_square:
                console.say(
                    f"Switch {label(switch)} already belongs to {name(switch_square[switch])}: "
                    "is the piece on the right square?"
                )
                continue
            if square in switch_square.values():
                console.say(f"{name(square)} already has its switch: which square is lit?")
                continue
            switch_square[switch] = square
            if leds is not None:
                led_square[k] = square
            console.say(f"{name(square)}: switch {label(switch)}")
            break
    if leds is not None:
        leds.show_pixels([(0, 0, 0)] * mapping.led_count)
    missing = [name(s) for s in range(n) if s not in switch_square.values()]
    if missing:  # only when ignored (stuck) switches hid some squares
        raise CalibrationAborted(f"no switch found for {', '.join(missing)}")
    try:
        result = mapping.with_switch_table([switch_square[i] for i in range(n)])
        if leds is not None:
            result = result.with_led_table([led_square[k] for k in range(n)])
    except ConfigError as exc:
        raise CalibrationAborted(f"calibration gave an inconsistent mapping: {exc}") from None
    console.say(_describe(result))
    return result


def _describe(m: BoardMapping) -> str:
    switches = "a table of switches" if m.switches else f"a1 at {m.a1}, files along {m.files}"
    if m.leds:
        leds = "a table of LEDs"
    else:
        leds = f"LEDs from {m.led_first} along {m.led_runs}" + (
            ", serpentine" if m.led_serpentine else ""
        )
    return f"Mapping found: {switches}; {leds}."


def run_calibration(
    config_path: str | Path,
    console: Console,
    *,
    pin_factory: Any = None,
    spi: Any = None,
    clock: Clock | None = None,
    use_leds: bool | None = None,
) -> BoardMapping:
    """``kharbga-board calibrate matrix [--config FILE]``: load the
    configuration, open the matrix (and the LEDs unless disabled),
    calibrate, and save the mapping back into the file (created when
    missing; its comments and other values are kept)."""
    config = load_config(config_path, missing_ok=True)
    with MatrixScanner(config.matrix, config.mapping, pin_factory=pin_factory) as scanner:
        with_leds = config.leds.enabled if use_leds is None else use_leds
        leds = SquareLeds(config.leds, config.mapping, spi) if with_leds else None
        try:
            mapping = calibrate_matrix(scanner, console, clock or MonotonicClock(), leds)
        finally:
            if leds is not None:
                leds.close()
    save_config(config_path, config.with_mapping(mapping))
    console.say(f"Written to {config_path}.")
    return mapping
