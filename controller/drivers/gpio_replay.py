"""``kharbga-board replay --via gpio``: a sensor log through the GPIO drivers.

The log's occupancy frames close and open the switches of a simulated
matrix (:mod:`controller.drivers.matrix_sim`) on gpiozero's ``MockFactory``
pins; the real :class:`~controller.drivers.gpio_matrix.MatrixScanner`
scans and debounces them, on a virtual clock that follows the log's times;
the log's button presses press mock buttons of a real
:class:`~controller.drivers.buttons.ButtonPanel`.  Whatever the drivers
report goes into a :class:`~controller.reconcile.reconciler.Reconciler`,
exactly as in the live service.  The result has the same form as
:func:`controller.reconcile.replay.replay`; on simulated logs it holds the
same records.

Nothing sleeps: when the scanner says it is idle (no switch between two
states) and the switches do not change before the log's next line, the
virtual clock jumps to the first scan at or after that line, so a replay
costs a few scans per change rather than ``scan_hz`` scans per second.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.board.sensorlog import Button, Frame, Header, LogError, read_log
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.reconcile.replay import ReplayResult
from controller.rules import find_variant
from controller.rules.record import Record

from .buttons import ButtonConfig, ButtonPanel
from .config_table import GPIO_PINS, ConfigError
from .gpio_matrix import MatrixConfig, MatrixScanner
from .mapping import BoardMapping
from .matrix_sim import MatrixSimulator

__all__ = ["replay_via_gpio", "LogClock"]

Action = Callable[[], None]


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
        self._run_until(target)
        self._now = max(self._now, target)
        return target


class _Feed:
    """The drivers' output queue, read at once by the reconciler."""

    def __init__(self, reconciler: Reconciler, trace: list[str] | None) -> None:
        self.reconciler = reconciler
        self.trace = trace
        self.events = 0

    def put(self, item: Frame | Button) -> None:
        self.events += 1
        update = self.reconciler.feed(item)
        if self.trace is not None:
            self.trace.append(_trace_line(update))


def _trace_line(update: Update) -> str:
    return json.dumps({"t": round(update.t, 4), "status": update.status, "leds": update.leds})


def _default_matrix(size: int) -> MatrixConfig:
    d = MatrixConfig()
    return MatrixConfig(row_pins=d.row_pins[:size], column_pins=d.column_pins[:size])


def replay_via_gpio(
    lines: Iterable[str],
    variant: str = "kharbga",
    settings: Settings | None = None,
    *,
    matrix: MatrixConfig | None = None,
    mapping: BoardMapping | None = None,
    trace: bool = False,
) -> ReplayResult:
    """Replay an occupancy log through the simulated matrix, the real
    scanner and buttons, and a reconciler.

    ``matrix`` and ``mapping`` default to the stock configuration for the
    log's board size.  :class:`LogError` for an unusable log (a colour log
    among them: a reed matrix senses occupancy only), ``ConfigError`` for a
    configuration that does not fit the log.
    """
    v = find_variant(variant)
    events = list(read_log(lines))
    _n, header = events[0]
    assert isinstance(header, Header)
    if header.sensor != "occupancy":
        raise LogError(
            f"line {_n} (header): a {header.sensor} log cannot be replayed via gpio: "
            "the reed-switch matrix senses occupancy only"
        )
    if header.size != v.size:
        raise LogError(
            f"line {_n}: the log is for a {header.board} board, "
            f"variant {v.name} is played on {v.size}x{v.size}"
        )
    mapping = mapping or BoardMapping(size=header.size)
    if mapping.size != header.size:
        raise ConfigError(
            f"gpio.mapping.size: the mapping is for a {mapping.size}x{mapping.size} board, "
            f"the log for {header.board}"
        )
    matrix = matrix or _default_matrix(header.size)
    matrix.check_size(header.size)

    out = ReplayResult()
    rec = Reconciler(v, settings)
    out.reconciler = rec
    feed = _Feed(rec, out.trace if trace else None)
    if trace:
        out.trace.append(_trace_line(rec.tick(header.t)))

    factory = MockFactory()
    sim = MatrixSimulator(factory, matrix, mapping)

    # A mock button for every (name, side) the log presses, on the free pins.
    wanted: list[tuple[str, str | None]] = []
    for _line, event in events:
        if isinstance(event, Button) and (event.button, event.side) not in wanted:
            wanted.append((event.button, event.side))
    free = [p for p in GPIO_PINS if p not in matrix.pins]
    buttons = ButtonConfig(
        tuple((name, side, pin) for (name, side), pin in zip(wanted, free, strict=False)),
        bounce_time=None,
    )
    clock_box: list[LogClock] = []

    def now() -> float:
        return clock_box[0].now()

    def press(name: str, side: str | None) -> Action:
        pin = buttons.pin_of(name, side)
        if pin is None:  # more kinds of press than free pins: straight to the queue
            return lambda: feed.put(Button(now(), name, side))
        mock = factory.pin(pin)

        def act() -> None:
            mock.drive_low()
            mock.drive_high()

        return act

    def occupy(bits: int) -> Action:
        return lambda: sim.set_occupied(bits)

    actions: list[tuple[float, Action]] = []
    for _line, event in events[1:]:
        if isinstance(event, Frame):
            actions.append((event.t, occupy(event.occupied)))
        elif isinstance(event, Button):
            actions.append((event.t, press(event.button, event.side)))
    with (
        MatrixScanner(matrix, mapping, pin_factory=factory) as scanner,
        ButtonPanel(buttons, feed, now, pin_factory=factory),
    ):
        clock = LogClock(actions, scanner.period)
        clock_box.append(clock)
        if actions:
            scanner.run(feed, clock.stop, clock)
    factory.reset()

    rec.finish()
    for game in [*rec.finished, rec.game]:
        if game.moves:
            out.records.append(Record.from_game(game))
    return out
