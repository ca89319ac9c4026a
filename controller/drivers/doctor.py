"""``kharbga-board doctor``: check the LEDs, the switches and the diodes.

Each check is a function of the hardware objects, a clock and a console
(all parameters, so the simulator runs them in tests) and returns
:class:`~controller.drivers.doctor_report.Finding` objects;
:func:`run_doctor` runs them all and gives a
:class:`~controller.drivers.doctor_report.DoctorReport`, which
:mod:`controller.drivers.doctor_report` draws for the terminal.

- :func:`walk_leds` lights each LED in turn and says which square it should
  be under (the person watches);
- :func:`check_empty` scans the empty board: a switch closed throughout is
  **stuck**, one that opens and closes is **chattering**;
- :func:`check_squares` asks for a piece on each square in turn: a switch
  that does not close is **never-closes**, a different one closing is
  **misplaced** (a wiring or mapping fault), another one closing as well
  is **neighbour** (a magnet too strong for the spacing), one flickering
  while the piece stands still is **chattering**;
- :func:`check_ghosting` asks for pieces on a few patterns (two per row and
  per column: :mod:`controller.drivers.ghosts`) under which any switch
  with a missing diode makes a switch that has no piece read closed: a
  **ghost**, reported with the switches whose diode may be missing.
  Ghosts need released rows to float (``row_drive = "open-drain"``, the
  default).
- :func:`live_view` redraws every switch's raw state until stopped.

Answering ``q`` to any question (or closing the input) stops the doctor:
the report then has the findings of the checks done so far and says it
stopped.  LEDs whose library does not load (not installed, or a PC where
Blinka has no SPI) are not checked: one line says why, and the other
checks run (:func:`leds_not_loaded`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.board.words import place

from .console import Console, Prompt
from .doctor_report import DoctorReport, Finding, render_report, render_switches
from .ghosts import ghost_suspects, matrix_ghost_patterns
from .gpio_matrix import Clock, MatrixScanner, Stop
from .mapping import BoardMapping, points
from .ws2812 import RGB, LedOutput, library_trouble

if TYPE_CHECKING:
    from .gpio_config import GpioConfig

__all__ = [
    "Observation",
    "check_empty",
    "check_ghosting",
    "check_squares",
    "live_from_config",
    "live_view",
    "doctor_from_config",
    "observe",
    "run_doctor",
    "leds_not_loaded",
    "walk_leds",
]

LIT: RGB = (255, 255, 255)


# ----------------------------------------------------------------------
# Observing


@dataclass
class Observation:
    """Raw (undebounced) scans over a while: per switch, in how many scans
    it was closed and how often it changed.  ``size`` is the matrix's
    crossings."""

    size: int
    scans: int = 0
    closed: list[int] = field(default_factory=list)
    changes: list[int] = field(default_factory=list)
    last: int | None = None

    def __post_init__(self) -> None:
        n = self.size
        self.closed = self.closed or [0] * n
        self.changes = self.changes or [0] * n

    def add(self, raw: int) -> None:
        self.scans += 1
        for i in points(raw):
            self.closed[i] += 1
        if self.last is not None:
            for i in points(raw ^ self.last):
                self.changes[i] += 1
        self.last = raw

    def always(self) -> int:
        """Switches closed in every scan."""
        return sum(1 << i for i, c in enumerate(self.closed) if self.scans and c == self.scans)

    def ever(self) -> int:
        return sum(1 << i for i, c in enumerate(self.closed) if c)


def observe(scanner: MatrixScanner, clock: Clock, seconds: float) -> Observation:
    """Scan at the scanner's rate for ``seconds`` (at least two scans)."""
    obs = Observation(scanner.mapping.switch_count)
    t = clock.now()
    end = t + seconds
    while True:
        obs.add(scanner.read_raw())
        if obs.scans >= 2 and t >= end:
            return obs
        t = clock.sleep_until(t + scanner.period)


# ----------------------------------------------------------------------
# Checks


def walk_leds(
    leds: LedOutput,
    mapping: BoardMapping,
    clock: Clock,
    say: Callable[[str], None],
    dwell: float = 0.4,
) -> int:
    """Light each LED of the chain alone for ``dwell`` seconds, saying
    where it should be; the number of LEDs lit."""
    t = clock.now()
    for i in range(mapping.led_count):
        pixels: list[RGB] = [(0, 0, 0)] * mapping.led_count
        pixels[i] = LIT
        leds.show_pixels(pixels)
        square = mapping.square_of_led(i)
        where = f"under {mapping.name(square)}" if square is not None else "a spare LED"
        say(f"LED {i}: {where}")
        t = clock.sleep_until(t + dwell)
    leds.show_pixels([(0, 0, 0)] * mapping.led_count)
    return mapping.led_count


def check_empty(scanner: MatrixScanner, clock: Clock, seconds: float = 1.0) -> list[Finding]:
    """Findings on a board with no pieces (the caller asks for that)."""
    m = scanner.mapping
    obs = observe(scanner, clock, seconds)
    out = []
    for i in range(m.switch_count):
        if obs.closed[i] == obs.scans:
            out.append(Finding("stuck", i, m.square_of_switch_index(i), "closed on an empty board"))
        elif obs.closed[i]:
            out.append(
                Finding(
                    "chattering",
                    i,
                    m.square_of_switch_index(i),
                    f"closed in {obs.closed[i]} of {obs.scans} scans on an empty board",
                )
            )
    return out


class Stopped(Exception):
    """The person answered ``q`` (or closed the input); ``findings``: those
    of the check under way, up to then."""

    def __init__(self) -> None:
        super().__init__("stopped")
        self.findings: list[Finding] = []


def _ask(console: Console, prompt: Prompt, found: list[Finding] | None = None) -> str:
    """The person's answer to ``prompt``; :class:`Stopped` (carrying
    ``found``) on ``q``."""
    answer = console.ask(prompt).strip().lower()
    if answer in ("q", "quit"):
        stop = Stopped()
        stop.findings = list(found or ())
        raise stop
    return answer


def _placed(console: Console, leds: LedOutput | None, text: str, squares: tuple[int, ...],
            found: list[Finding]) -> bool:
    """Light ``squares`` and ask for pieces on them (``text``): False when
    the person skips; :class:`Stopped` (carrying ``found``) on ``q``."""
    if leds is not None:
        leds.light({sq: LIT for sq in squares})
    return _ask(console, Prompt(text, "place", squares), found) != "s"


def check_squares(
    scanner: MatrixScanner,
    console: Console,
    clock: Clock,
    leds: LedOutput | None = None,
    squares: Sequence[int] | None = None,
    seconds: float = 0.3,
    ignore: int = 0,
) -> list[Finding]:
    """Ask for one piece on each square in turn; switches in ``ignore``
    (already known stuck) are left out."""
    m = scanner.mapping
    name = m.name
    out: list[Finding] = []
    for square in m.sensed if squares is None else squares:
        if not _placed(console, leds, f"Move the piece to {name(square)}, then press Enter "
                       "(s skips, q stops).", (square,), out):
            continue
        settle = scanner.config.debounce_scans * scanner.period
        observe(scanner, clock, settle)  # let the piece come to rest
        obs = observe(scanner, clock, seconds)
        switch = m.switch_index_of_square(square)
        seen = obs.ever() & ~ignore
        if not obs.closed[switch]:
            others = seen & ~(1 << switch)
            if others:
                where = ", ".join(m.switch_label(i) for i in points(others))
                out.append(
                    Finding(
                        "misplaced",
                        switch,
                        square,
                        f"a piece on {name(square)} closes {where} instead of "
                        f"{m.switch_label(switch)}",
                    )
                )
            else:
                out.append(
                    Finding(
                        "never-closes",
                        switch,
                        square,
                        f"a piece on {name(square)} closes no switch",
                    )
                )
        elif seen & ~(1 << switch):
            where = ", ".join(m.switch_label(i) for i in points(seen & ~(1 << switch)))
            out.append(
                Finding(
                    "neighbour",
                    switch,
                    square,
                    f"a piece on {name(square)} also closes {where} (magnet too strong, "
                    "or a reed too near)",
                )
            )
        elif obs.changes[switch] >= 2:
            out.append(
                Finding(
                    "chattering",
                    switch,
                    square,
                    f"changed {obs.changes[switch]} times in {obs.scans} scans under a still piece",
                )
            )
    if leds is not None:
        leds.light({})
    return out


def check_ghosting(
    scanner: MatrixScanner,
    console: Console,
    clock: Clock,
    leds: LedOutput | None = None,
    ignore: int = 0,
) -> list[Finding]:
    """Ask for pieces on each ghost pattern; a switch read closed without a
    piece is a ghost (or stuck: pass known stuck ones in ``ignore``)."""
    m = scanner.mapping
    label = m.switch_label
    out: list[Finding] = []
    seen_ghosts: set[int] = set()
    for n, pattern in enumerate(matrix_ghost_patterns(m), 1):
        squares = tuple(m.square_of_switch_index(i) for i in pattern)
        names = " ".join(m.name(sq) for sq in sorted(squares))
        if not _placed(console, leds, f"Ghost test {n}: put pieces on {names} (lit) and "
                       "nowhere else, then press Enter (s skips, q stops).", squares, out):
            continue
        closed = scanner.settle(clock)
        expected = sum(1 << i for i in pattern)
        for ghost in points(closed & ~expected & ~ignore):
            if ghost in seen_ghosts:
                continue
            seen_ghosts.add(ghost)
            suspects = ghost_suspects(m.columns, set(pattern), ghost)
            out.append(
                Finding(
                    "ghost",
                    ghost,
                    m.square_of_switch_index(ghost),
                    f"reads closed with no piece on it in ghost test {n}; a diode is missing "
                    f"at {' or '.join(label(s) for s in suspects) or 'an unknown switch'}",
                    suspects,
                )
            )
    if leds is not None:
        leds.light({})
    return out


def run_doctor(
    scanner: MatrixScanner,
    console: Console,
    clock: Clock,
    leds: LedOutput | None = None,
    *,
    squares: bool = True,
    ghosts: bool = True,
    dwell: float = 0.4,
) -> DoctorReport:
    """All the checks in turn (the LED walk only with ``leds``)."""
    m = scanner.mapping
    report = DoctorReport(m.size)
    if leds is not None:
        console.say("LEDs: each lights in turn; watch that it is under the "
                    f"{place(m.board)} named.")
        report.leds_walked = walk_leds(leds, m, clock, console.say, dwell)
        report.checks.append("leds")
    try:
        _ask(console, Prompt("Take every piece off the board, then press Enter (q stops).",
                             "clear"))
        report.findings += check_empty(scanner, clock)
        report.checks.append("empty")
        stuck = sum(1 << f.switch for f in report.findings if f.kind == "stuck")
        if squares:
            found = check_squares(scanner, console, clock, leds, ignore=stuck)
            report.findings += found
            report.checks.append(place(m.board, 2))  # "points" on the 37-point board
        if ghosts:
            if scanner.config.row_drive != "open-drain":
                console.say('Ghost test skipped: it needs row_drive = "open-drain".')
            else:
                report.findings += check_ghosting(scanner, console, clock, leds, ignore=stuck)
                report.checks.append("ghosting")
    except Stopped as stop:
        report.findings += stop.findings
        report.stopped = True
        if leds is not None:
            leds.light({})
    console.say(render_report(report, m))
    return report


# ----------------------------------------------------------------------
# Terminal


def live_view(
    scanner: MatrixScanner,
    clock: Clock,
    write: Callable[[str], None],
    stop: Stop,
    refresh: float = 0.1,
) -> int:
    """Redraw the raw switches every ``refresh`` seconds until ``stop`` is
    set (ANSI home-and-clear before each frame); the frames drawn."""
    frames = 0
    t = clock.now()
    while not stop.is_set():
        raw = scanner.read_raw()
        write("\x1b[H\x1b[2J" + render_switches(raw, scanner.mapping) + "\n")
        frames += 1
        t = clock.sleep_until(t + refresh)
    return frames


@contextmanager
def _configured(config_path: str, board: str | None, missing_ok: bool,
                pin_factory: object) -> Iterator[tuple[GpioConfig, MatrixScanner]]:
    """The configuration file's ``[gpio]`` table for a game on ``board``,
    and its matrix open meanwhile."""
    from .gpio_config import load_config

    config = load_config(config_path, board=board, missing_ok=missing_ok)
    with MatrixScanner(config.matrix, config.mapping, pin_factory=pin_factory) as scanner:
        yield config, scanner


def doctor_from_config(
    config_path: str,
    console: Console,
    *,
    pin_factory: object = None,
    spi: object = None,
    clock: Clock | None = None,
    squares: bool = True,
    ghosts: bool = True,
    board: str | None = None,
    missing_ok: bool = False,
) -> DoctorReport:
    """``kharbga-board doctor [--config FILE]``: open the matrix and the
    LEDs (unless disabled) as configured for a game on ``board`` (the
    file's variant's) and run every check.  A missing (unless
    ``missing_ok``: the defaults) or wrong file is a ``ConfigError``
    naming it, before any pin is opened."""
    from .gpio_matrix import MonotonicClock
    from .ws2812 import SquareLeds

    with _configured(config_path, board, missing_ok, pin_factory) as (config, scanner):
        leds = None
        if config.leds.enabled:
            try:
                leds = SquareLeds(config.leds, config.mapping, spi)
            except ImportError as exc:  # the switches can still be checked
                console.say(leds_not_loaded(exc))
        try:
            return run_doctor(
                scanner, console, clock or MonotonicClock(), leds, squares=squares, ghosts=ghosts
            )
        finally:
            if leds is not None:
                leds.close()


def leds_not_loaded(exc: ImportError) -> str:
    """Why the LEDs are not checked, in one line
    (:func:`~controller.drivers.ws2812.library_trouble`)."""
    return f"LEDs not checked: {library_trouble(exc)}"


def live_from_config(
    config_path: str,
    write: Callable[[str], None],
    stop: Stop,
    *,
    pin_factory: object = None,
    clock: Clock | None = None,
    board: str | None = None,
    missing_ok: bool = False,
) -> int:
    """``kharbga-board doctor --live``: every switch, redrawn until
    ``stop`` is set (the command sets it on Ctrl-C or Enter)."""
    from .gpio_matrix import MonotonicClock

    with _configured(config_path, board, missing_ok, pin_factory) as (_, scanner):
        return live_view(scanner, clock or MonotonicClock(), write, stop)
