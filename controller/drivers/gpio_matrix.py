"""The reed-switch matrix on the Pi's GPIO, scanned with gpiozero.

Wiring (see hardware.md): one reed switch per square in series with a diode,
anode on the column, cathode on the row.  Columns are inputs with pull-ups;
a scan selects one row at a time by driving it low, reads every column (a
column reads low when the switch of the selected row in that column is
closed), then releases the row.  In ``open-drain`` mode (the default, as
keyboard firmware does) a released row floats as an input, so two rows are
never driven against each other even with a diode missing; in
``push-pull`` mode released rows are driven high.

Each switch is debounced on its own: its reported state changes only after
``debounce_scans`` scans in a row agree.  A :class:`~controller.board.
events.Frame` (squares, log order) goes out whenever the reported board
changes, the first one as soon as the first scans agree.  Chattering
switches, and switches stuck against the board the caller expects
(:meth:`MatrixScanner.expect`), are logged
(:mod:`~controller.drivers.switch_watch`).  A scan that fails (a pin
that cannot be read) is logged once and tried again every second; until
one succeeds, :meth:`MatrixScanner.problem` says so, as it says which
switches are stuck or chattering.

The scanner takes its clock as a parameter (:class:`Clock`): the service
runs it on :class:`MonotonicClock` at ``scan_hz``; tests and
``replay --via gpio`` run it on a virtual clock, as fast as the CPU goes.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from gpiozero import GPIODevice, InputDevice  # type: ignore[import-untyped]
from gpiozero.exc import BadPinFactory, PinFactoryFallback  # type: ignore[import-untyped]

from controller.board.config import install_hint
from controller.board.events import Button, Frame
from controller.board.words import a, place

from .config_table import ConfigError, Table, check_pins
from .mapping import BoardMapping
from .switch_watch import NoPoint, SwitchWatch, WatchSettings

__all__ = [
    "Clock",
    "Debouncer",
    "MatrixConfig",
    "MatrixRow",
    "MatrixScanner",
    "MonotonicClock",
    "Sink",
    "Stop",
]

log = logging.getLogger(__name__)

WHERE = "gpio.matrix"
RETRY = 1.0  # seconds between scans after one failed
ROW_DRIVES = ("open-drain", "push-pull")
ROW_PINS = (4, 17, 27, 22, 5, 6, 13)
COLUMN_PINS = (19, 26, 18, 23, 24, 25, 12)
# Matrices beyond 7x7 take their pins in this order, rows first (hardware.md):
# the 14 pins of the 7x7 board, then GPIO15 (UART RX) and GPIO7 (SPI0 CE1,
# free with ``dtoverlay=spi0-1cs``; the LEDs use MOSI and SCLK only).
MORE_PINS = (*ROW_PINS, *COLUMN_PINS, 15, 7)


def stock_pins(rows: int, columns: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The stock row and column pins of a ``rows`` x ``columns`` matrix."""
    if rows <= len(ROW_PINS) and columns <= len(COLUMN_PINS):
        return ROW_PINS[:rows], COLUMN_PINS[:columns]
    if rows + columns > len(MORE_PINS):
        raise ConfigError(
            f"{WHERE}: {a(f'{rows}x{columns}')} matrix needs {rows + columns} pins: "
            "give row_pins and column_pins")
    return MORE_PINS[:rows], MORE_PINS[rows : rows + columns]


@dataclass(frozen=True)
class MatrixConfig:
    """Pins and timing of the switch matrix (BCM GPIO numbers)."""

    row_pins: tuple[int, ...] = ROW_PINS
    column_pins: tuple[int, ...] = COLUMN_PINS
    scan_hz: float = 200.0
    debounce_scans: int = 3
    row_drive: str = "open-drain"

    def __post_init__(self) -> None:
        if not 100 <= self.scan_hz <= 5000:
            raise ConfigError(
                f"{WHERE}.scan_hz: must be 100 to 5000 scans a second, not {self.scan_hz}"
            )
        if not 1 <= self.debounce_scans <= 50:
            raise ConfigError(f"{WHERE}.debounce_scans: must be 1 to 50, not {self.debounce_scans}")
        if self.row_drive not in ROW_DRIVES:
            raise ConfigError(
                f'{WHERE}.row_drive: must be "open-drain" or "push-pull", not {self.row_drive!r}'
            )
        check_pins(self.row_pins, f"{WHERE}.row_pins")
        check_pins(self.column_pins, f"{WHERE}.column_pins")
        check_pins((*self.row_pins, *self.column_pins), f"{WHERE}: row_pins and column_pins")

    @property
    def period(self) -> float:
        return 1.0 / self.scan_hz

    def check_mapping(self, mapping: BoardMapping) -> None:
        """Rows and columns must match the mapping's matrix: one line naming
        the matrix the pins wire, the one the board is read on, and what to
        change."""
        rows, columns = mapping.rows, mapping.columns
        wired = (len(self.row_pins), len(self.column_pins))
        if wired == (rows, columns):
            return
        keys = [key for key, n, want in (("row_pins", wired[0], rows),
                                         ("column_pins", wired[1], columns)) if n != want]
        where = f"{WHERE}.{keys[0]}" if len(keys) == 1 else WHERE
        shape = f"{wired[0]}x{wired[1]}"
        onto = (f", or map the board onto the {shape} matrix ([gpio.mapping] rows, columns "
                "and switches)") if wired[0] * wired[1] >= len(mapping.sensed) else ""
        raise ConfigError(
            f"{where}: the pins wire {a(shape)} switch matrix, but the {mapping.board} board "
            f"is read on {a(f'{rows}x{columns}')} one: give {rows} row_pins and {columns} "
            f"column_pins (or neither, for its stock pins: hardware.md){onto}")

    @property
    def pins(self) -> tuple[int, ...]:
        return (*self.row_pins, *self.column_pins)

    @classmethod
    def stock(cls, mapping: BoardMapping) -> MatrixConfig:
        """The stock pins for the mapping's matrix."""
        rows, columns = stock_pins(mapping.rows, mapping.columns)
        return cls(row_pins=rows, column_pins=columns)

    @classmethod
    def from_table(
        cls, data: Mapping[str, object] | None, mapping: BoardMapping | None = None
    ) -> MatrixConfig:
        """The table's values; pins not given are the stock pins of the
        mapping's matrix (the 7x7 board's without one)."""
        t = Table(data, WHERE)
        d = cls.stock(mapping) if mapping is not None else cls()
        config = cls(
            row_pins=t.get_pins("row_pins", d.row_pins),
            column_pins=t.get_pins("column_pins", d.column_pins),
            scan_hz=t.get_float("scan_hz", d.scan_hz),
            debounce_scans=t.get_int("debounce_scans", d.debounce_scans),
            row_drive=t.get_str("row_drive", d.row_drive, ROW_DRIVES),
        )
        t.done()
        return config

    def to_table(self) -> dict[str, object]:
        return {
            "row_pins": list(self.row_pins),
            "column_pins": list(self.column_pins),
            "scan_hz": self.scan_hz,
            "debounce_scans": self.debounce_scans,
            "row_drive": self.row_drive,
        }


# ----------------------------------------------------------------------
# Time and output


class Clock(Protocol):
    """Where the scanner gets its time and waits."""

    def now(self) -> float:
        """Seconds on this clock."""
        ...

    def sleep_until(self, deadline: float, idle: bool = False) -> float:
        """Wait until ``deadline``; return the time it is then (the time of
        the next scan).  ``idle`` says that nothing is pending in the
        scanner: a clock that knows the switches will not change before
        some later time may return that time instead."""
        ...


class MonotonicClock:
    """The wall clock: ``time.monotonic()`` from ``origin`` (default: now)."""

    def __init__(self, origin: float | None = None, max_lag: float = 0.1) -> None:
        self.origin = time.monotonic() if origin is None else origin
        self.max_lag = max_lag

    def now(self) -> float:
        return time.monotonic() - self.origin

    def sleep_until(self, deadline: float, idle: bool = False) -> float:
        delay = deadline - self.now()
        if delay > 0:
            time.sleep(delay)
            return deadline
        # Late: keep the rhythm unless far behind (then start again from now).
        return deadline if -delay < self.max_lag else self.now()


class Sink(Protocol):
    """Where input events go: a ``queue.Queue`` does."""

    def put(self, item: Frame | Button) -> None: ...


class Stop(Protocol):
    """A ``threading.Event`` does."""

    def is_set(self) -> bool: ...


# ----------------------------------------------------------------------
# Debouncing


class Debouncer:
    """Per-switch debouncing of bitmasks: a bit of :attr:`state` follows the
    raw readings once ``scans`` readings in a row agree on it."""

    def __init__(self, scans: int) -> None:
        if scans < 1:
            raise ValueError(f"debounce needs at least one scan, not {scans}")
        self.scans = scans
        self._history: deque[int] = deque(maxlen=scans)
        self.state: int | None = None  # None until the first full window

    def push(self, raw: int) -> bool:
        """Add one reading; did the debounced state change (or become known)?"""
        history = self._history
        history.append(raw)
        if len(history) < self.scans:
            return False
        all_closed = raw
        any_closed = raw
        for value in history:
            all_closed &= value
            any_closed |= value
        old = self.state
        new = ((old or 0) | all_closed) & any_closed
        self.state = new
        return new != old

    @property
    def idle(self) -> bool:
        """Every reading in the window equals the state: nothing pending."""
        s = self.state
        return s is not None and all(v == s for v in self._history)

    def reset(self) -> None:
        self._history.clear()
        self.state = None


# ----------------------------------------------------------------------
# Devices


class MatrixRow(GPIODevice):  # type: ignore[misc]
    """One matrix row: :meth:`select` drives it low, :meth:`release` lets it
    float (open drain) or drives it high (push-pull)."""

    def __init__(self, pin: int, *, open_drain: bool = True, pin_factory: Any = None) -> None:
        super().__init__(pin, pin_factory=pin_factory)
        try:
            self._open_drain = open_drain
            if open_drain:
                self.pin.function = "input"
            else:
                self.pin.function = "output"
                self.pin.state = True
        except BaseException:
            self.close()
            raise

    def select(self) -> None:
        pin = self.pin
        if self._open_drain:
            pin.function = "output"
        pin.state = False

    def release(self) -> None:
        if self._open_drain:
            self.pin.function = "input"
        else:
            self.pin.state = True

    @property
    def value(self) -> int:
        """1 while selected."""
        pin = self.pin
        return int(pin.function == "output" and not pin.state)


def no_pin_library(tried: list[str]) -> str:
    """Why no GPIO pin could be opened, in one line, from gpiozero's
    fallback warnings (``Falling back from lgpio: No module named 'lgpio'``)."""
    why = "; ".join(t.removeprefix("Falling back from ") for t in tried)
    return ("no GPIO pin library could be loaded" + (f" ({why})" if why else "") +
            ": on a Raspberry Pi install the pi libraries, which bring lgpio, with "
            f"{install_hint('pi')}, and run as a user of the gpio group; elsewhere play on "
            "--board sim or serial:PORT")


@contextmanager
def pin_library_said() -> Iterator[None]:
    """gpiozero finding no pin library inside the block (the first device
    opened, or the factory asked for) raised as the one-line ``OSError`` of
    :func:`no_pin_library`, naming each library tried."""
    with warnings.catch_warnings(record=True) as fallbacks:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            yield
        except BadPinFactory:
            raise OSError(no_pin_library([str(w.message) for w in fallbacks])) from None


def check_pin_library() -> None:
    """Raise the one-line ``OSError`` of :func:`no_pin_library` when gpiozero
    finds no pin library, as the first device would, opening no pin: a
    service that cannot read its switches says so before it makes a data
    folder or a game."""
    from gpiozero import Device

    with pin_library_said():
        Device.ensure_pin_factory()


class MatrixScanner:
    """Scans the matrix, debounces, and reports the board as frames."""

    def __init__(
        self,
        config: MatrixConfig,
        mapping: BoardMapping,
        *,
        pin_factory: Any = None,
        watch: WatchSettings | None = None,
    ) -> None:
        config.check_mapping(mapping)
        self.config = config
        self.mapping = mapping
        self.size = mapping.size  # 0 for a board that is not square
        self.rows, self.columns = mapping.rows, mapping.columns
        self.period = config.period
        self._rows: list[MatrixRow] = []
        self._columns: list[Any] = []
        self._closed = False
        try:
            with pin_library_said():
                self._open(config, pin_factory)
        except BaseException:
            self.close()
            raise
        self._debounce = Debouncer(config.debounce_scans)
        self.watch = SwitchWatch(self.mapping.switch_and_point, watch,
                                 place(self.mapping.board), NoPoint.of(self.mapping))
        self.scans = 0
        self.failure: str | None = None  # why the last scan failed, in words

    def _open(self, config: MatrixConfig, pin_factory: Any) -> None:
        """The row and column devices (gpiozero finds the pin library on the
        first one, unless ``pin_factory`` is given)."""
        for pin in config.row_pins:
            self._rows.append(
                MatrixRow(
                    pin,
                    open_drain=config.row_drive == "open-drain",
                    pin_factory=pin_factory,
                )
            )
        for pin in config.column_pins:
            self._columns.append(InputDevice(pin, pull_up=True, pin_factory=pin_factory))

    def expect(self, occupied: int | None) -> None:
        """The board that should stand on the switches now (a bitboard of
        squares; None: unknown).  A switch that disagrees with it for long
        is logged as stuck (:mod:`~controller.drivers.switch_watch`)."""
        self.watch.expect(None if occupied is None else self.mapping.squares_to_switches(occupied))

    # -- reading ----------------------------------------------------------------

    def read_raw(self) -> int:
        """One pass over the matrix: the bitmask of closed switches
        (bit ``row * columns + column``), undebounced."""
        if self._closed:
            raise RuntimeError("the matrix scanner is closed")
        closed = 0
        bit = 1
        columns = self._columns
        for row in self._rows:
            row.select()
            try:
                for column in columns:
                    if column.is_active:
                        closed |= bit
                    bit <<= 1
            finally:
                row.release()
        return closed

    def scan(self, now: float) -> Frame | None:
        """Read, debounce; the board as a frame at ``now`` if it changed."""
        raw = self.read_raw()
        self.scans += 1
        changed = self._debounce.push(raw)
        self.watch.update(now, raw, self._debounce.state)
        if changed:
            return Frame(now, self.mapping.switches_to_squares(self._debounce.state or 0))
        return None

    @property
    def idle(self) -> bool:
        """No switch is between two states: scanning unchanged switches
        again cannot report anything new."""
        return self._debounce.idle

    @property
    def closed_switches(self) -> int:
        """The debounced bitmask of closed switches (0 before the first)."""
        return self._debounce.state or 0

    @property
    def occupied(self) -> int | None:
        """The debounced board (bitboard of squares), None before known."""
        state = self._debounce.state
        return None if state is None else self.mapping.switches_to_squares(state)

    def settle(self, clock: Clock, timeout: float = 2.0) -> int:
        """Scan until every switch is settled (or ``timeout`` passes);
        the debounced bitmask of closed switches."""
        t = clock.now()
        end = t + timeout
        while True:
            self.scan(t)
            if self.idle or t >= end:
                return self.closed_switches
            t = clock.sleep_until(t + self.period)

    def problem(self) -> str | None:
        """Why the board is not being read now, in words (a scan that
        fails); None when it is read."""
        return self.failure

    def fault(self) -> str | None:
        """What is wrong with the board while it is read, in words: a
        switch closed where the board has no point (the matrix wired for
        another board), the stuck or chattering switches; None when there
        are none."""
        return self.watch.problem()

    def frames(self, clock: Clock, stop: Stop) -> Iterator[Frame]:
        """Scan on ``clock`` until ``stop`` is set, yielding each new frame;
        a scan that fails is tried again every :data:`RETRY` seconds."""
        t = clock.now()
        while not stop.is_set():
            try:
                frame = self.scan(t)
            except Exception as exc:  # a pin that cannot be read: the board stays up
                if self._closed:
                    return
                if self.failure is None:
                    log.exception("the switch matrix cannot be read")
                self.failure = (f"the switch matrix cannot be read ({exc or type(exc).__name__}): "
                                "check the wiring; trying again every second")
                t = clock.sleep_until(t + RETRY)
                continue
            if self.failure is not None:
                log.info("the switch matrix is read again")
                self.failure = None
            if frame is not None:
                yield frame
            t = clock.sleep_until(t + self.period, self.idle)

    def run(self, out: Sink, stop: Stop, clock: Clock | None = None) -> None:
        """Scan until ``stop`` is set, putting each new frame on ``out``
        (the caller's thread: give it one of its own)."""
        for frame in self.frames(clock or MonotonicClock(), stop):
            out.put(frame)

    def start(
        self, out: Sink, clock: Clock | None = None
    ) -> tuple[threading.Thread, threading.Event]:
        """:meth:`run` on a daemon thread; set the event to stop it."""
        stop = threading.Event()
        thread = threading.Thread(
            target=self.run, args=(out, stop, clock), name="matrix-scan", daemon=True
        )
        thread.start()
        return thread, stop

    # -- life -----------------------------------------------------------------

    def close(self) -> None:
        self._closed = True
        for device in [*self._columns, *self._rows]:
            device.close()
        self._columns = []
        self._rows = []

    def __enter__(self) -> MatrixScanner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
