"""The service's boards: every sensor backend behind one :class:`Backend`
protocol, chosen in one place (:func:`open_backend`) from the board kind
(``--board`` or ``[board] kind``): ``sim``, ``gpio``, ``serial:PORT``,
``camera:DEVICE``.

A backend puts frames and button presses on its :attr:`Backend.events`
queue from its own thread, stamped on the service's clock (injected: no
backend reads the system clock for the times it reports), and shows the
published state on its lights.  :class:`EventPump` feeds the queue to the
service on the event loop, keeping each event's own time (a frame the
Pico stamped when the switch moved keeps that time, not the time its bytes
arrived), only bounded so that times never go back and never lie ahead of
the service's clock.

Each backend imports its hardware library when it is opened; a missing
one is :class:`MissingLibrary`, one line naming the extra to install.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from controller.board.config import install_hint
from controller.board.events import Button, Frame
from controller.board.words import said
from controller.rules import find_any_variant

from .config import Config, load_config

if TYPE_CHECKING:
    from controller.drivers.switch_watch import WatchSettings

    from .board import BoardService

log = logging.getLogger("kharbga.hardware")

__all__ = [
    "Backend",
    "CameraBackend",
    "EventPump",
    "GpioBackend",
    "MissingLibrary",
    "SerialBackend",
    "SimBackend",
    "drain",
    "needs_extra",
    "open_backend",
]

Event = Frame | Button
Clock = Callable[[], float]


class MissingLibrary(ValueError):
    """A board whose library is not installed; the message names the extra."""


@contextmanager
def needs_extra(extra: str, what: str) -> Iterator[None]:
    """Turn a missing module inside the block into :class:`MissingLibrary`:
    ``the serial board needs the Python module 'serial': make install-pi
    (or ...)`` (:func:`~controller.board.config.install_hint`)."""
    try:
        yield
    except ModuleNotFoundError as exc:
        module = exc.name or "a module"
        raise MissingLibrary(
            f"{what} needs the Python module {module!r}: {install_hint(extra)}"
        ) from None


class Backend(Protocol):
    """What the service needs of a board."""

    name: str  # the board kind: "sim", "gpio", "serial:/dev/ttyACM0", ..
    description: str  # for people: "the simulated board", ..
    events: queue.Queue[Event]  # frames and presses, on the service's clock
    preview: Callable[[], bytes] | None  # a camera's picture (JPEG), if any

    def start(self) -> None:
        """Start reading (threads of its own)."""

    def show(self, state: dict[str, Any]) -> None:
        """Light the published state (called every pump, for blinking)."""

    def problem(self) -> str | None:
        """What keeps the board from being read, in words (a camera with no
        picture, a link down); None when it is read."""

    def fault(self) -> str | None:
        """What is wrong with a board still read, in words (its lights
        cannot be set); None when nothing is."""

    def close(self) -> None:
        """Stop and release the hardware; safe to call twice."""


def _config(config: Config | str | Path | None) -> Config:
    """The service's configuration (a file's path is loaded)."""
    if isinstance(config, Config):
        return config
    return load_config(config) if config else Config()


def check_backend(config: Config) -> None:
    """Raise the one-line error :func:`open_backend` would raise for the
    configuration of ``config.board`` (its tables against the variant's
    board) or for a GPIO board with no pin library, without opening any
    hardware: told before a data folder or a game is made."""
    kind = config.board
    board = find_any_variant(config.variant).geometry.name
    if kind == "gpio":
        with needs_extra("pi", "the gpio board"):
            config.gpio(board)
            from controller.drivers.gpio_matrix import check_pin_library

            check_pin_library()
    elif kind.startswith("serial:"):
        serial_mapping(config, board)
        with needs_extra("serial", "the serial board"):
            from controller.drivers.serial_link import never_a_port

        problem = never_a_port(kind.removeprefix("serial:"))
        if problem is not None:  # not there yet, or busy, may mend: those are retried
            raise OSError(problem)
    elif kind.startswith("camera:"):
        camera_profile(config)


def open_backend(config: Config, clock: Clock) -> Backend:
    """The backend of ``config.board`` on the service's ``clock``."""
    kind = config.board
    if kind == "sim":
        return SimBackend()
    if kind == "gpio":
        return GpioBackend(config, clock=clock)
    if kind.startswith("serial:"):
        return SerialBackend(kind.removeprefix("serial:"), config, clock=clock)
    if kind.startswith("camera:"):
        return CameraBackend(kind.removeprefix("camera:"), config, clock=clock)
    raise ValueError(f"board {kind!r}: use sim, gpio, serial:PORT or camera:DEVICE")


# ----------------------------------------------------------------------
# Feeding the service


class EventPump:
    """Feeds a backend's events to the service with their own times,
    bounded to [the previous event's time, the service's now]; while a
    call leaves some waiting, the service's ``fed_until`` holds its ticks
    back to the last one fed."""

    def __init__(self, service: BoardService, events: queue.Queue[Event]) -> None:
        self.service = service
        self.events = events
        self.last = -math.inf

    def __call__(self, most: int | None = None) -> int:
        """Feed every queued event, or at most ``most`` of them (the rest
        wait for the next call); how many."""
        n = 0
        now = self.service.now()
        while most is None or n < most:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                self.service.fed_until = math.inf
                return n
            t = min(max(event.t, self.last), now)
            self.last = t
            self.service.feed(event if t == event.t else dataclasses.replace(event, t=t))
            n += 1
        # More wait: the service's ticks go no further than the last one fed.
        self.service.fed_until = math.inf if self.events.empty() else self.last
        return n


def drain(service: BoardService, events: queue.Queue[Event]) -> int:
    """Feed every queued event to the service once (see :class:`EventPump`)."""
    return EventPump(service, events)()


# ----------------------------------------------------------------------
# Backends


class SimBackend:
    """The simulated board: the web page sets its pieces (the service keeps
    them), so it reads and lights nothing itself."""

    name = "sim"
    description = "the simulated board"
    preview: Callable[[], bytes] | None = None

    def __init__(self) -> None:
        self.events: queue.Queue[Event] = queue.Queue()

    def start(self) -> None:
        return None

    def show(self, state: dict[str, Any]) -> None:
        return None

    def problem(self) -> str | None:
        return None

    def fault(self) -> str | None:
        return None

    def close(self) -> None:
        return None


class ScanClock:
    """The scanner's clock (``now`` and ``sleep_until``) on the service's
    clock ``now``: it sleeps the difference."""

    def __init__(self, now: Clock, max_lag: float = 0.1) -> None:
        self._now = now
        self.max_lag = max_lag

    def now(self) -> float:
        return self._now()

    def sleep_until(self, deadline: float, idle: bool = False) -> float:
        delay = deadline - self._now()
        if delay > 0:
            time.sleep(delay)
            return deadline
        # Late: keep the rhythm unless far behind (then start again from now).
        return deadline if -delay < self.max_lag else self._now()


def hint_end(state: dict[str, Any]) -> str | None:
    """Where the lit hint of ``state`` ends, when it has two squares."""
    hint = state.get("hint_squares")
    if isinstance(hint, dict) and "from" in hint and isinstance(hint.get("to"), str):
        return str(hint["to"])
    return None


# While these lights are on, the board is rightly not the game's position
# (``setup``: a leap game's soldiers are still being set out).
_IN_HAND = {"lifted", "capture", "exchange", "destination", "setup"}


def expected_occupancy(state: dict[str, Any]) -> int | None:
    """The points that should hold a piece now, as a bitboard (a1 bit 0,
    the sensor log's order), from the state's position: its ranks from the
    top, each from file a, so the points in log order from the last rank.
    None while a piece is in hand or due to be taken off (or set out),
    or when the position cannot be read."""
    if _IN_HAND & set(state.get("leds", {}).values()):
        return None
    position = state.get("position")
    if not isinstance(position, str) or not position:
        return None
    cells = "".join(reversed(position.split()[0].split("/")))
    geometry = state.get("geometry")
    points = geometry.get("points") if isinstance(geometry, dict) else None
    count = len(points) if isinstance(points, list) else round(len(cells) ** 0.5) ** 2
    if len(cells) != count:
        return None  # not this board's position
    return sum(1 << p for p, ch in enumerate(cells) if ch != ".")


class GpioBackend:
    """The matrix scanner, the buttons and the LED strip on the Pi's GPIO,
    configured by the ``[gpio]`` table of ``config`` (the service's
    configuration or its file; None: the defaults)."""

    name = "gpio"
    description = "the GPIO board"
    preview: Callable[[], bytes] | None = None

    def __init__(self, config: Config | str | Path | None = None, *,
                 clock: Clock = time.monotonic, pin_factory: Any = None, spi: Any = None) -> None:
        self.events: queue.Queue[Event] = queue.Queue()
        self.clock = clock
        self.buttons: Any = None
        self.leds: Any = None
        self.scanner: Any = None
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None
        self._fault: str | None = None  # why the lights cannot be set (fault)
        with needs_extra("pi", "the gpio board"):
            from controller.drivers.buttons import ButtonPanel
            from controller.drivers.gpio_matrix import MatrixScanner

            cfg = _config(config)
            self.config = cfg.gpio(find_any_variant(cfg.variant).geometry.name)
            try:
                self.scanner = MatrixScanner(self.config.matrix, self.config.mapping,
                                             pin_factory=pin_factory)
                self.buttons = ButtonPanel(self.config.buttons, self.events, clock,
                                           pin_factory=pin_factory)
                if self.config.leds.enabled:
                    self.leds = _gpio_leds(self.config, spi)
            except BaseException:
                self.close()
                raise
            log.info("buttons: %s", ", ".join(  # once the board is open: a refusal stays one line
                f"{name}{f' ({side})' if side else ''} on GPIO{pin}"
                for name, side, pin in self.config.buttons.pins) or "none")

    def start(self) -> None:
        self._thread, self._stop = self.scanner.start(self.events, ScanClock(self.clock))

    def show(self, state: dict[str, Any]) -> None:
        if self.leds is not None:
            try:
                self.leds.show(state.get("leds", {}), self.clock(), hint_end(state))
                self._fault = None
            except Exception as exc:  # the strip's driver: the board is still read
                if self._fault is None:
                    log.error("the board's lights cannot be set: %s", said(exc))
                self._fault = (f"its lights cannot be set ({said(exc)}): the page shows them "
                               "as they should be")
        if self.scanner is not None:
            self.scanner.expect(expected_occupancy(state))

    def listener(self) -> Callable[[dict[str, Any]], None]:
        return self.show

    def problem(self) -> str | None:
        scanner = self.scanner
        return None if scanner is None else scanner.problem()

    def fault(self) -> str | None:
        """The lights failing, and the switches the watch names (the board
        is read, but a welded reed reads as a piece)."""
        switches = None if self.scanner is None else self.scanner.fault()
        return "; ".join(f for f in (self._fault, switches) if f) or None

    def close(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(1)
            self._thread = None
        for part in (self.buttons, self.leds, self.scanner):
            if part is not None:
                part.close()
        self.buttons = self.leds = self.scanner = None


def _gpio_leds(config: Any, spi: Any) -> Any:
    """The GPIO board's LEDs (``config``: its ``GpioConfig``), or, when
    their library is missing or does not load here (Blinka on a PC), the
    one-line :class:`MissingLibrary` in the doctor's words; when their SPI
    bus does not open (SPI not turned on, the user not in the ``spi``
    group), an ``OSError`` in one line saying so."""
    from controller.drivers.ws2812 import SquareLeds, library_trouble

    refused = ("the gpio board's LEDs cannot be lit ([gpio.leds] enabled = false plays without "
               "them): ")
    try:
        return SquareLeds(config.leds, config.mapping, spi)
    except ImportError as exc:
        raise MissingLibrary(refused + library_trouble(exc)) from None
    except OSError as exc:
        raise OSError(f"{refused}their SPI bus does not open ({said(exc)}): turn SPI on and "
                      "add this user to the spi group (hardware.md)") from None


class SerialBackend:
    """The Pico board on a serial port (``serial:PORT``).  The link
    reconnects by itself and maps the Pico's clock onto the service's
    (``clock``), so frames carry the time the switch moved.  The LED
    colours come from ``[gpio.leds]`` and the board's mapping (its matrix,
    the switch and the LED under each point) from ``[gpio.mapping]`` of
    ``config``, sent to the firmware in the handshake; a mapping that
    names no board is the stock one of the variant's board (``size``: of
    the square board of that side instead; ``board``: of that board, a
    mapping of another refused).  Its stuck-switch watch sees the frames
    the link reports and is told the board the shown state expects, as the
    GPIO board's scanner is (``watch``: its timing).  ``link_options`` go
    to the link (tests)."""

    preview: Callable[[], bytes] | None = None

    def __init__(self, url: str, config: Config | str | Path | None = None,
                 size: int | None = None, *, clock: Clock = time.monotonic,
                 board: str | None = None, watch: WatchSettings | None = None,
                 **link_options: Any) -> None:
        cfg = _config(config)
        if board is None:
            board = f"{size}x{size}" if size else find_any_variant(cfg.variant).geometry.name
        self.mapping, self.leds = serial_mapping(cfg, board)
        with needs_extra("serial", "the serial board"):
            from controller.drivers.protocol import NO_LED
            from controller.drivers.serial_link import LinkSettings, SerialLink
            from controller.drivers.switch_watch import PointWatch

        self.name = f"serial:{url}"
        self.description = f"the board on {url}"
        self.clock = clock
        self.size = self.mapping.size  # 0: not a square board
        mapping = self.mapping
        led_map = tuple(led if 0 <= led < NO_LED else NO_LED
                        for led in map(mapping.led_of_square, range(mapping.squares)))
        settings = LinkSettings.for_mapping(mapping, led_count=mapping.led_count,
                                            led_map=led_map)
        self.link = SerialLink(url, settings, clock=clock, watch=PointWatch(mapping, watch),
                               **link_options)
        self.events: queue.Queue[Event] = self.link.events
        self._last: list[tuple[int, int, int]] | None = None

    def start(self) -> None:
        self.link.start()

    def show(self, state: dict[str, Any]) -> None:
        colours = square_colours(state.get("leds", {}), self.clock(), self.leds, self.mapping,
                                 hint_end(state))
        if colours != self._last:  # a frame the device fails to show is sent until acknowledged
            self._last = colours
            self.link.send_leds(colours)
        self.link.expect(expected_occupancy(state))

    def problem(self) -> str | None:
        return self.link.problem()

    def fault(self) -> str | None:
        return self.link.fault()

    def close(self) -> None:
        self.link.close()


def serial_mapping(config: Config, board: str) -> tuple[Any, Any]:
    """The serial board's mapping and LED settings for a game on ``board``
    (a board name of a sensor log: "7x7", "37-point", ..): ``[gpio.mapping]``,
    or the stock mapping of ``board`` when that table names no board; a
    mapping of another board is refused in one line."""
    from controller.drivers.protocol import NO_LED

    mapping, leds = config.serial_leds(board)
    error = mapping.chain_beyond(NO_LED, "the serial board")  # one byte an LED in the handshake
    if error is not None:
        raise error.in_file(config.source) if config.source else error
    return mapping, leds


def square_colours(leds: dict[str, str], now: float, config: Any,
                   mapping: Any, hint_to: str | None = None) -> list[tuple[int, int, int]]:
    """The colour over every point of ``mapping``'s board, in point order
    (the sensor log's), for these roles (``hint_to``: where a lit hint
    ends); names not on the board stay dark."""
    from controller.board.leds import role_colours
    from controller.drivers.ws2812 import limit_current

    out: list[tuple[int, int, int]] = [(0, 0, 0)] * mapping.squares
    for name, rgb in role_colours(leds, now, config.roles, config.brightness, hint_to).items():
        try:
            out[mapping.parse(name)] = rgb
        except ValueError:
            continue
    return limit_current(out, config.max_current_ma)


def camera_profile(config: Config) -> str:
    """The camera board's profile file; ``ValueError`` for a game it
    cannot read or a configuration without one."""
    board = find_any_variant(config.variant).geometry.name
    if board != "7x7":
        raise ValueError(f"the camera board reads the 7x7 board, but variant {config.variant} "
                         f"is played on the {board} board")
    profile = config.camera_profile
    if not profile:
        raise ValueError('a camera board needs [camera] profile = "FILE" in the '
                         "configuration (made by kharbga-board calibrate camera)")
    return str(profile)


class CameraBackend:
    """An overhead camera (``camera:DEVICE``: a device number or a video
    file) with the profile of ``[camera] profile`` in ``config``.  Each reading is
    stamped on the service's clock the moment the camera thread hands it
    over.  It drives no LEDs: the page shows the lights."""

    def __init__(self, device: str, config: Config | str | Path | None = None, *,
                 clock: Clock = time.monotonic) -> None:
        cfg = _config(config)
        profile = camera_profile(cfg)
        with needs_extra("camera", "the camera board"):
            from controller.drivers.camera import CameraStream
        self.name = f"camera:{device}"
        self.description = f"the camera {device}"
        self.clock = clock
        self.stream = CameraStream(device, profile)
        self.preview: Callable[[], bytes] | None = self.stream.preview
        self.events: queue.Queue[Event] = queue.Queue()
        self._stop = threading.Event()
        self._relay = threading.Thread(target=self._run, name="camera-relay", daemon=True)

    def start(self) -> None:
        self.stream.start()
        self._relay.start()

    def _run(self) -> None:
        source: queue.Queue[Any] = self.stream.events
        while not self._stop.is_set():
            try:
                frame = source.get(timeout=0.1)
            except queue.Empty:
                continue
            self.events.put(dataclasses.replace(frame, t=self.clock()))

    def show(self, state: dict[str, Any]) -> None:
        return None

    def problem(self) -> str | None:
        return self.stream.problem()

    def fault(self) -> str | None:
        return None

    def close(self) -> None:
        self._stop.set()
        if self._relay.is_alive():
            self._relay.join(1)
        self.stream.close()
