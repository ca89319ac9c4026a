"""``kharbga-board replay --via gpio``: a sensor log through the GPIO drivers.

The log's occupancy frames close and open the switches of a simulated
matrix (:mod:`controller.drivers.matrix_sim`) on gpiozero's ``MockFactory``
pins; the real :class:`~controller.drivers.gpio_matrix.MatrixScanner`
scans and debounces them, on a virtual clock that follows the log's times;
the log's button presses press mock buttons of a real
:class:`~controller.drivers.buttons.ButtonPanel`.  :func:`gpio_events` is
the event source: whatever the drivers report, in order, as the live
service would receive it; ``kharbga-board replay --via gpio`` feeds it to
the reconciler (:func:`controller.reconcile.replay.replay_events`).

Nothing sleeps: when the scanner says it is idle (no switch between two
states) and the switches do not change before the log's next line, the
virtual clock jumps to the first scan at or after that line, so a replay
costs a few scans per change rather than ``scan_hz`` scans per second.
Scan times are kept on the log's 0.1 ms grid.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.board.sensorlog import (
    Button,
    Event,
    Frame,
    read_occupancy_log,
)

from .buttons import ButtonConfig, ButtonPanel
from .config_table import GPIO_PINS
from .gpio_matrix import MatrixConfig, MatrixScanner
from .mapping import BoardMapping
from .matrix_sim import MatrixSimulator

__all__ = ["LogClock", "gpio_events"]

Action = Callable[[], None]
LOG_DECIMALS = 4  # a sensor log's times: 0.1 ms


class LogClock:
    """A virtual clock that carries out a log's actions as time reaches
    them, and stops the scanner once they are all done and it is idle."""

    def __init__(self, actions: list[tuple[float, Action]], period: float) -> None:
        self._actions = actions
        self._next = 0
        self.period = period
        self.stop = threading.Event()
        self._now = actions[0][0] if actions else 0.0
        self.wakeups = 0

    def start(self) -> None:
        """Carry out the actions at the first one's time (a press among
        them reads this clock: it is made first)."""
        self._run_until(self._now)

    def now(self) -> float:
        return self._now

    def _run_until(self, t: float) -> None:
        actions = self._actions
        while self._next < len(actions) and actions[self._next][0] <= t + 1e-9:
            when, action = actions[self._next]
            self._now = max(self._now, when)
            self._next += 1
            action()

    def sleep_until(self, deadline: float, idle: bool = False) -> float:
        self.wakeups += 1
        target = deadline
        if idle:
            if self._next >= len(self._actions):
                self.stop.set()
            else:
                upcoming = self._actions[self._next][0]
                if upcoming > deadline:
                    steps = math.ceil((upcoming - deadline) / self.period - 1e-9)
                    target = deadline + steps * self.period
        # Scan times on the log's 0.1 ms grid: no drift from adding periods,
        # and a frame written to a log and read back keeps its exact time.
        target = round(target, LOG_DECIMALS)
        self._run_until(target)
        self._now = max(self._now, target)
        return target


class _Outbox(deque[Frame | Button]):
    """A queue read at once, in the thread that fills it."""

    def put(self, item: Frame | Button) -> None:
        self.append(item)


def gpio_events(
    lines: Iterable[str],
    *,
    matrix: MatrixConfig | Callable[[str], MatrixConfig] | None = None,
    mapping: BoardMapping | Callable[[str], BoardMapping] | None = None,
) -> Iterator[Event]:
    """The events the scanner and the buttons report for an occupancy log:
    its header first, then frames and presses as the drivers deliver them.

    ``matrix`` and ``mapping`` default to the stock configuration for the
    log's board size; either may be a function of the log's board (a
    configuration file's, for that board).  :class:`LogError` for an unusable log (a colour log
    among them: a reed matrix senses occupancy only), ``ConfigError`` for a
    configuration that does not fit the log; both before the header.
    """
    header, events = read_occupancy_log(
        lines, "via gpio: the reed-switch matrix senses occupancy only")
    if callable(mapping):
        mapping = mapping(header.board)
    if callable(matrix):
        matrix = matrix(header.board)
    mapping = BoardMapping.for_log(header.board, mapping)
    matrix = matrix or MatrixConfig.stock(mapping)
    matrix.check_mapping(mapping)
    yield header
    yield from _drive(list(events), matrix, mapping)


def _button_config(events: list[Event], matrix: MatrixConfig) -> ButtonConfig:
    """A mock button for every (name, side) the log presses, on the free pins."""
    wanted: list[tuple[str, str | None]] = []
    for event in events:
        if isinstance(event, Button) and (event.button, event.side) not in wanted:
            wanted.append((event.button, event.side))
    free = [p for p in GPIO_PINS if p not in matrix.pins]
    return ButtonConfig(
        tuple((name, side, pin) for (name, side), pin in zip(wanted, free, strict=False)),
        bounce_time=None,
    )


def _drive(
    events: list[Event], matrix: MatrixConfig, mapping: BoardMapping
) -> Iterator[Frame | Button]:
    """Run the log's frames and presses through the simulated switches, the
    scanner and the buttons; yield what they report, in order."""
    factory = MockFactory()
    sim = MatrixSimulator(factory, matrix, mapping)
    buttons = _button_config(events, matrix)
    presses = _Outbox()  # the button panel's output queue
    clock_box: list[LogClock] = []

    def press(name: str, side: str | None) -> Action:
        pin = buttons.pin_of(name, side)
        if pin is None:  # more kinds of press than free pins: straight to the queue
            return lambda: presses.append(Button(clock_box[0].now(), name, side))
        mock = factory.pin(pin)

        def act() -> None:
            mock.drive_low()
            mock.drive_high()

        return act

    def occupy(bits: int) -> Action:
        return lambda: sim.set_occupied(bits)

    actions: list[tuple[float, Action]] = []
    for event in events:
        if isinstance(event, Frame):
            actions.append((event.t, occupy(event.occupied)))
        elif isinstance(event, Button):
            actions.append((event.t, press(event.button, event.side)))
    try:
        with (
            MatrixScanner(matrix, mapping, pin_factory=factory) as scanner,
            ButtonPanel(buttons, presses, lambda: clock_box[0].now(), pin_factory=factory),
        ):
            clock = LogClock(actions, scanner.period)
            clock_box.append(clock)
            clock.start()
            if not actions:
                return
            for frame in scanner.frames(clock, clock.stop):
                while presses:  # pressed before this scan
                    yield presses.popleft()
                yield frame
            while presses:
                yield presses.popleft()
    finally:
        factory.reset()


def scan_rate(seconds: float = 1.0) -> float:
    """Scans a second of the GPIO matrix's real-time loop (the product's
    thread, on the wall clock) over gpiozero's mock pins (`make bench`)."""
    import queue
    import time

    from .gpio_matrix import MonotonicClock

    factory = MockFactory()
    config = MatrixConfig(scan_hz=200)
    try:
        MatrixSimulator(factory, config, BoardMapping())
        with MatrixScanner(config, BoardMapping(), pin_factory=factory) as scanner:
            out: queue.Queue[object] = queue.Queue()
            thread, stop = scanner.start(out, MonotonicClock())
            time.sleep(seconds)
            stop.set()
            thread.join(2)
            return float(scanner.scans) / seconds
    finally:
        factory.reset()
