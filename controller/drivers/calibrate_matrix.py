"""``kharbga-board calibrate matrix``: find which switch and which LED lie
under each square, with a person and one piece.

The procedure lights one LED at a time (in chain order: the LEDs the
configured mapping puts under a square, those under none, ``"-"`` in
``leds``, left dark and kept so) and asks the person to put a piece on the
lit square, naming the square the current mapping
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

import os
from pathlib import Path
from typing import Any

from controller.board.words import place

from .config_table import ConfigError
from .console import Console, Prompt
from .gpio_config import load_config, save_config
from .gpio_matrix import Clock, MatrixScanner, MonotonicClock
from .mapping import BoardMapping, points
from .ws2812 import RGB, LedOutput, SquareLeds, library_trouble

__all__ = ["CalibrationAborted", "calibrate_matrix", "run_calibration"]

LIT: RGB = (255, 255, 255)


class CalibrationAborted(ValueError):
    """The person quit, a square could not be calibrated, or the LEDs
    could not be lit; nothing is written."""


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
    session = _Session(scanner, console, clock, leds, attempts, settle_timeout)
    console.say(
        f"Calibrating the {mapping.rows}x{mapping.columns} switch matrix of the "
        f"{mapping.board} board: {len(mapping.sensed)} {place(mapping.board, 2)}, one piece. "
        "Type q at any prompt to stop."
    )
    session.clear_board()
    for k in range(len(mapping.sensed)):
        session.find_square(k)
    if leds is not None:
        leds.show_pixels([(0, 0, 0)] * mapping.led_count)
    result = session.result()
    console.say(_describe(result))
    return result


class _Session:
    """One calibration: what has been found so far."""

    def __init__(self, scanner: MatrixScanner, console: Console, clock: Clock,
                 leds: LedOutput | None, attempts: int, settle_timeout: float) -> None:
        self.scanner = scanner
        self.mapping = scanner.mapping
        self.console = console
        self.clock = clock
        self.leds = leds
        self.attempts = attempts
        self.settle_timeout = settle_timeout
        self.noun = place(self.mapping.board)  # "point" on the 37-point board
        self.ignored = 0  # switches stuck closed on the empty board
        self.switch_square: dict[int, int] = {}
        self.led_square: dict[int, int] = {}  # chain index (after led_offset) -> square
        m = self.mapping
        self.board_leds = [i for i in range(m.led_count) if m.square_of_led(i) is not None]

    def read(self) -> int:
        return self.scanner.settle(self.clock, self.settle_timeout)

    def ask(self, prompt: Prompt) -> str:
        answer = self.console.ask(prompt)
        if answer.strip().lower() in ("q", "quit"):
            raise CalibrationAborted("calibration abandoned: nothing written")
        return answer

    def clear_board(self) -> None:
        """The empty board: switches closed now are stuck and left out."""
        label = self.mapping.switch_label
        for _ in range(self.attempts):
            self.ask(Prompt("Take every piece off the board, then press Enter.", "clear"))
            self.ignored = self.read()
            if not self.ignored:
                return
            stuck = ", ".join(label(i) for i in points(self.ignored))
            answer = self.ask(Prompt(
                f"Switches {stuck} are closed on an empty board. Enter to look again, "
                "c to carry on without them."
            ))
            if answer.strip().lower() == "c":
                return

    def find_square(self, k: int) -> None:
        """The ``k``-th square: the ``k``-th LED under a square lit (or the
        ``k``-th square named), the one switch that closes under the piece."""
        m, leds, name = self.mapping, self.leds, self.mapping.name
        expected = m.square_of_led(self.board_leds[k]) if leds else m.sensed[k]
        assert expected is not None
        if leds is not None:
            pixels: list[RGB] = [(0, 0, 0)] * m.led_count
            pixels[self.board_leds[k]] = LIT
            leds.show_pixels(pixels)
        where = f"{name(expected)} (it is lit)" if leds else name(expected)
        hint = (f" If the light is under another {self.noun}, type that {self.noun}'s name."
                if leds else "")
        square = expected
        for _ in range(self.attempts):
            answer = self.ask(
                Prompt(f"Move the piece to {where}, then press Enter.{hint}", "place", (expected,))
            ).strip()
            if answer and leds is not None:
                try:
                    square = m.parse(answer)
                except ValueError as exc:
                    self.console.say(str(exc))
                    continue
                if square not in m.sensed:  # a light square of a board wired dark_only
                    self.console.say(f"{name(square)} has no switch and no LED on this "
                                     f"board: type the name of the lit {self.noun}")
                    square = expected
                    continue
            if self._take(square, k):
                return
        raise CalibrationAborted(
            f"calibration abandoned at {name(square)}: no single switch answered"
        )

    def _take(self, square: int, k: int) -> bool:
        """Read the switch under the piece on ``square``; False (said why)
        when it is not exactly one new switch."""
        name, label = self.mapping.name, self.mapping.switch_label
        closed = list(points(self.read() & ~self.ignored))
        if len(closed) != 1:
            if not closed:
                self.console.say(f"No switch closed under {name(square)}: is the piece down?")
            else:
                listed = ", ".join(label(i) for i in closed)
                self.console.say(f"Switches {listed} are closed: leave only the one piece.")
            return False
        switch = closed[0]
        if switch in self.switch_square:
            self.console.say(
                f"Switch {label(switch)} already belongs to {name(self.switch_square[switch])}: "
                f"is the piece on the right {self.noun}?"
            )
            return False
        if square in self.switch_square.values():
            self.console.say(f"{name(square)} already has its switch: which {self.noun} is lit?")
            return False
        self.switch_square[switch] = square
        if self.leds is not None:
            self.led_square[self.board_leds[k] - self.mapping.led_offset] = square
        self.console.say(f"{name(square)}: switch {label(switch)}")
        return True

    def result(self) -> BoardMapping:
        m = self.mapping
        found = set(self.switch_square.values())
        missing = [m.name(s) for s in m.sensed if s not in found]
        if missing:  # only when ignored (stuck) switches hid some squares
            raise CalibrationAborted(f"no switch found for {', '.join(missing)}")
        try:
            result = m.with_switch_table(
                [self.switch_square.get(i, -1) for i in range(m.switch_count)])
            if self.leds is not None:
                result = result.with_led_table(
                    [self.led_square.get(j, -1) for j in range(m.led_count - m.led_offset)])
        except ConfigError as exc:
            raise CalibrationAborted(f"calibration gave an inconsistent mapping: {exc}") from None
        return result


def _describe(m: BoardMapping) -> str:
    switches = "a table of switches" if m.switches else f"a1 at {m.a1}, files along {m.files}"
    if m.leds:
        dark = m.leds.count("-")
        leds = "a table of LEDs" + (f", {dark} of them under no {place(m.board)}" if dark else "")
    else:
        leds = f"LEDs from {m.led_first} along {m.led_runs}" + (
            ", serpentine" if m.led_serpentine else ""
        )
    return f"Mapping found: {switches}; {leds}."


def _check_writable(path: Path) -> None:
    """Refuse, before the walk over the squares, a file that could not
    take its result (a symbolic link's target: the file written)."""
    if path.is_symlink():
        path = path.resolve()
    folder = path.parent
    if path.exists() and not path.is_file():  # /dev/null: the file put in its place
        raise ConfigError("cannot write the mapping there: not a regular file (give the "
                          "configuration file, or a new one's name)", file=str(path))
    if not folder.is_dir():
        raise ConfigError(f"cannot write the mapping there: no folder {folder}", file=str(path))
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ConfigError("cannot write the mapping there: permission denied "
                          "(run as a user who may write it, or give another --config)",
                          file=str(path))


def _open_leds(config: Any, mapping: BoardMapping, spi: Any) -> SquareLeds:
    """The LEDs, or, when their library does not load, the one-line
    :class:`CalibrationAborted` saying why (the LED mapping is half of
    what calibration finds: it does not go on without them unasked)."""
    try:
        return SquareLeds(config, mapping, spi)
    except ImportError as exc:
        raise CalibrationAborted(
            f"the LEDs cannot be lit (--no-leds calibrates the switches alone): "
            f"{library_trouble(exc)}") from None


def run_calibration(
    config_path: str | Path,
    console: Console,
    *,
    pin_factory: Any = None,
    spi: Any = None,
    clock: Clock | None = None,
    use_leds: bool | None = None,
    board: str | None = None,
) -> BoardMapping:
    """``kharbga-board calibrate matrix [--config FILE]``: load the
    configuration (for a game on ``board``: the file's variant's), open the
    matrix (and the LEDs unless disabled), calibrate, and save the mapping
    back into the file (created when missing; its comments and other values
    are kept)."""
    config = load_config(config_path, missing_ok=True, board=board)
    _check_writable(Path(config_path))
    with MatrixScanner(config.matrix, config.mapping, pin_factory=pin_factory) as scanner:
        with_leds = config.leds.enabled if use_leds is None else use_leds
        leds = _open_leds(config.leds, config.mapping, spi) if with_leds else None
        try:
            mapping = calibrate_matrix(scanner, console, clock or MonotonicClock(), leds)
        finally:
            if leds is not None:
                leds.close()
    save_config(config_path, config.with_mapping(mapping))
    console.say(f"Written to {config_path}.")
    return mapping
