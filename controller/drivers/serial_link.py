"""The host's end of the serial link to the Pico firmware (hardware.md, "The serial protocol").

:class:`SerialLink` opens the port by URL (``serial_for_url``: a device
path, ``loop://``, a pty, ``socket://``), runs the handshake, and puts what
the board reports on :attr:`SerialLink.events`, a queue of
:class:`~controller.board.events.Frame` (occupancy, bit i = square i) and
:class:`~controller.board.events.Button` objects, in the order they
happened.  Nothing is called back on its thread.  It reconnects by itself
after the port goes away or the device falls silent, and after every
(re)connection asks for a full report, so a move made while the link was
down shows in the next frame and nothing is delivered twice.

The framing and the session are in :class:`~controller.drivers.
link_protocol.LinkProtocol`; this module owns the port and its thread.
Errors, bad frames and reconnections are logged (``logging``, this
package's loggers).

Times: the firmware stamps each report with its own microsecond clock.  By
default the link maps that clock onto the host clock (``clock``, injectable)
with a minimum-delay estimate, so a frame carries when the switch changed,
not when the bytes arrived; pass ``timebase`` to map device time yourself
(the firmware replay maps it onto the log's times).
"""

from __future__ import annotations

import dataclasses
import errno
import importlib.util
import logging
import os
import queue
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import serial

from controller.board.words import said

from . import protocol as P
from .link_protocol import Clock, Event, LinkProtocol, Timebase
from .link_settings import DeviceInfo, DeviceStats, LinkError, LinkSettings, LinkStats
from .switch_watch import PointWatch

__all__ = [
    "DeviceInfo",
    "DeviceStats",
    "LinkError",
    "LinkProtocol",
    "LinkSettings",
    "LinkStats",
    "SerialLink",
]

log = logging.getLogger(__name__)

BY_ID = "/dev/serial/by-id"  # udev's names that follow a USB device wherever it enumerates
EVENTS_MOST = 10_000  # readings waiting for the service at most (a flooding device's bound)
FAULT_SHOWN = 30.0  # seconds a device's error stays on the page after its last report

Colour = tuple[int, int, int]


A_FOLDER = "a folder, not a serial port (a Pico is /dev/ttyACM0 or under /dev/serial/by-id)"
NOT_A_PORT = "not a serial port (a Pico is /dev/ttyACM0 or under /dev/serial/by-id)"


def never_a_port(url: str) -> str | None:
    """Why ``url`` can never be a serial port, in words, or None: a folder,
    a file, or a device that is not a terminal (/dev/null).  A port not
    there, not permitted or in use may yet open (the cable plugged in, the
    other program closed): the link keeps trying those."""
    if "://" in url:  # pyserial's own kinds: loop://, socket://, ...
        return _never_a_url(url)
    try:
        mode = os.stat(url).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return f"cannot open {url}: {A_FOLDER}"
    if not stat.S_ISCHR(mode):
        return f"cannot open {url}: {NOT_A_PORT}"
    try:
        fd = os.open(url, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        return None if os.isatty(fd) else f"cannot open {url}: {NOT_A_PORT}"
    finally:
        os.close(fd)


NETWORK = ("socket", "rfc2217")  # a serial port over the network, at HOST:PORT
URLS = "a device path, or socket://HOST:PORT or rfc2217://HOST:PORT for a port over the network"


def _never_a_url(url: str) -> str | None:
    """Why the URL ``url`` can never open, in words: a kind pyserial does
    not know, or a port over the network with no HOST:PORT."""
    scheme, _, rest = url.partition("://")
    if not scheme.isidentifier() or importlib.util.find_spec(
            f"serial.urlhandler.protocol_{scheme}") is None:
        return f"cannot open {url}: not a kind of port this program opens ({URLS})"
    if scheme in NETWORK:
        host, colon, port = rest.split("?")[0].rstrip("/").rpartition(":")
        if not (colon and host and port.isdigit() and 0 < int(port) < 65536):
            return (f"cannot open {url}: HOST:PORT expected after {scheme}:// (the port a "
                    "number from 1 to 65535)")
    return None


def open_problem(url: str, exc: BaseException) -> str:
    """Why ``url`` did not open, in words: the causes a person can mend
    named (pyserial's own message repeats the port and the errno)."""
    code = getattr(exc, "errno", None)
    cause = exc.__context__  # pyserial's "Could not configure port: (25, ...)" wraps termios'
    if code is None and cause is not None and cause.args and isinstance(cause.args[0], int):
        code = cause.args[0]
    if code == errno.ENOENT:
        why = "no such port (is the board's USB cable plugged in?)"
    elif code in (errno.EACCES, errno.EPERM):
        why = "permission denied (add this user to the dialout group)"
    elif code in (errno.EAGAIN, errno.EBUSY):
        why = "in use by another program (another kharbga-board, or a doctor --serial?)"
    elif code == errno.EISDIR:
        why = A_FOLDER
    elif code == errno.ENOTTY:  # a file, /dev/null: opens, but takes no serial settings
        why = NOT_A_PORT
    elif isinstance(cause, socket.gaierror):
        why = "no such host on the network (is its name right?)"
    elif code == errno.ECONNREFUSED:
        why = "nothing answers at that port (is the serial server there running, on that port?)"
    elif code in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ETIMEDOUT) \
            or isinstance(cause, TimeoutError):
        why = "the host does not answer (is it on the network?)"
    else:
        why = said(exc)
    return f"cannot open {url}: {why}"


class _Transport:
    """What the protocol writes to: the open port.  A write that fails (the
    device stopped reading and the write timed out, or the port went away)
    is kept in :attr:`error` rather than raised to whoever wrote: the
    reader thread then drops the link and reconnects."""

    def __init__(self, port: Any) -> None:
        self.port = port
        self.error: BaseException | None = None

    def write(self, data: bytes) -> None:
        if self.error is not None:
            return
        try:
            self.port.write(data)
        except (serial.SerialException, OSError) as exc:
            self.error = exc


class SerialLink:
    """The Pico board over a serial port; see the module's docstring.

    ``settings``: the board's side, what goes to the firmware in the
    handshake, and the timing (:class:`LinkSettings`; :class:`LinkError`
    if they cannot be used); keywords named as its fields override them
    (``SerialLink(port, size=5)``).  ``clock`` is the host clock (for timers, and
    frame times unless ``timebase`` is given).  ``aliases``: a folder of
    stable names (udev's ``/dev/serial/by-id``); once the port has opened,
    a link there to the same device is used to reopen it, so a Pico that
    comes back under another name (``/dev/ttyACM1``) is found again.
    ``watch``: a stuck-switch watch (:class:`~controller.drivers.
    switch_watch.PointWatch`) that sees every frame; :meth:`expect` tells
    it the board that should stand, and :meth:`fault` says what it finds.
    """

    def __init__(
        self,
        url: str,
        settings: LinkSettings | None = None,
        *,
        clock: Clock = time.monotonic,
        timebase: Timebase | None = None,
        baudrate: int = 115200,
        serial_factory: Callable[..., Any] = serial.serial_for_url,
        aliases: str | None = BY_ID,
        watch: PointWatch | None = None,
        **overrides: Any,
    ) -> None:
        self.url = url
        self.aliases = aliases
        self._open_url = url  # the stable name of the same port, once found
        self.settings = dataclasses.replace(settings or LinkSettings(), **overrides)
        self.size = self.settings.size
        self.baudrate = baudrate
        self.serial_factory = serial_factory
        self.events: queue.Queue[Event] = queue.Queue(EVENTS_MOST)
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self._port: Any = None  # a pyserial port while open
        self._leds_out: bytes | None = None  # the latest LED frame, for the reader to send
        self._out_lock = threading.Lock()
        self.watch = watch
        self.protocol = LinkProtocol(self.events, self.settings, clock, timebase, self._on_ready,
                                     watch)
        self._thread: threading.Thread | None = None

    # -- life ------------------------------------------------------------------------

    def start(self) -> SerialLink:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="serial-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        port = self._port
        if port is not None:
            try:
                port.cancel_read()
            except (AttributeError, OSError, serial.SerialException):
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> SerialLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what the board says -----------------------------------------------------------

    def get(self, timeout: float | None = None) -> Event | None:
        """The next frame or button press; None after ``timeout`` seconds."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def __iter__(self) -> Iterator[Event]:
        """Frames and presses as they come, until :meth:`close`."""
        while not self._stop.is_set():
            event = self.get(timeout=0.1)
            if event is not None:
                yield event

    @property
    def connected(self) -> bool:
        return self._ready.is_set()

    def expect(self, occupied: int | None) -> None:
        """The points that should hold a piece now (a bitboard; None:
        unknown), for the :attr:`watch`: a switch that disagrees with it
        for long is stuck."""
        if self.watch is not None:
            self.watch.expect(occupied)

    def problem(self) -> str | None:
        """Why the board is not being read, in words (None: it is read).
        Takes no lock of the link's: the caller's loop never waits on the port."""
        if self._ready.is_set():
            return None
        c = self.protocol.c
        if not c.connects:
            why = c.last_error or "no answer to the handshake yet"
            return f"the board on {self.url} is not connected ({why}); trying again"
        return (f"the board on {self.url} is not connected since it was lost "
                f"({c.last_error or 'no answer'}); reconnecting")

    def fault(self) -> str | None:
        """What is wrong with the board while it is read, in words (None:
        nothing): an error the device reported in the last
        :data:`FAULT_SHOWN` seconds (the firmware's loop failed somewhere,
        an LED write, say: the lights may be wrong), and the stuck or
        chattering switches the :attr:`watch` names."""
        if not self._ready.is_set():
            return None
        last = self.protocol.fault
        said = []
        if last is not None and self.protocol.clock() - last[0] <= FAULT_SHOWN:
            said.append(f"its microcontroller reports an error ({last[1]}), so its lights may "
                        "be wrong: the page shows them as they should be")
        if self.watch is not None and (switches := self.watch.problem()) is not None:
            said.append(switches)
        return "; ".join(said) or None

    def wait_connected(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    @property
    def device(self) -> DeviceInfo | None:
        with self._lock:
            return self.protocol.device

    def stats(self) -> LinkStats:
        with self._lock:
            return self.protocol.snapshot()

    # -- what the host says ----------------------------------------------------------

    def send_leds(self, colours: Sequence[Colour]) -> None:
        """Show one colour per square, in square order (a1, b1, .., g7).
        The latest frame wins; it is shown again after a reconnection."""
        if len(colours) != self.settings.squares:
            raise LinkError(f"an LED frame has {self.settings.squares} colours, not {len(colours)}")
        for rgb in colours:
            if len(rgb) != 3 or not all(0 <= v <= 255 for v in rgb):
                raise LinkError(f"an LED colour is three values 0..255, not {rgb!r}")
        # The reader thread sends it: a device that stops reading then
        # stalls that thread, never the caller (the service's loop).
        payload = P.pack_leds(list(colours))
        with self._out_lock:
            self._leds_out = payload

    def request_full_report(self) -> None:
        """Ask the board for a full occupancy report (it comes as a Frame)."""
        with self._lock:
            self.protocol.sync()

    def device_stats(self, timeout: float = 1.0) -> DeviceStats | None:
        """The firmware's counters, or None if it does not answer in time."""
        with self._lock:
            if not self.protocol.ask_stats():
                return None
            event = self.protocol.stats_event
        if not event.wait(timeout):
            return None
        with self._lock:
            return self.protocol.stats_reply

    def stop_device(self, timeout: float | None = None) -> bool:
        """Ask the firmware to stop and leave the Pico at its REPL.  False
        when the link is not connected; with ``timeout``, also when the
        firmware does not acknowledge it in that time."""
        with self._lock:
            if not self.protocol.stop_device():
                return False
            event = self.protocol.stop_event
        return timeout is None or event.wait(timeout)

    # -- the reader thread ------------------------------------------------------------

    def _open(self) -> Any:
        """The port, by its stable name once one is known (the name given
        when that one is gone: another board plugged in there)."""
        names = [self._open_url] + ([self.url] if self._open_url != self.url else [])
        for i, name in enumerate(names):
            try:
                # exclusive: a second host on the port (another service, a
                # doctor) is refused rather than stealing the Pico's session.
                port = self.serial_factory(name, baudrate=self.baudrate,
                                           timeout=self.settings.read_timeout,
                                           write_timeout=1.0, exclusive=True)
            except (serial.SerialException, OSError) as exc:
                if i + 1 < len(names) and getattr(exc, "errno", None) == errno.ENOENT:
                    continue
                raise
            if self._open_url == self.url:
                self._find_stable_name()
            return port
        raise AssertionError("unreachable")

    def _find_stable_name(self) -> None:
        """Remember a stable name of the port just opened (a link in
        :attr:`aliases` to the same device), said once."""
        if self.aliases is None or "://" in self.url:
            return
        try:
            device = os.path.realpath(self.url)
            names = sorted(os.listdir(self.aliases))
        except OSError:
            return
        for name in names:
            alias = os.path.join(self.aliases, name)
            if alias != self.url and os.path.islink(alias) and os.path.realpath(alias) == device:
                self._open_url = alias
                log.info("serial link: %s is %s; reopened by that name, which follows the "
                         "board if it comes back under another", self.url, alias)
                return

    def _on_ready(self, ready: bool) -> None:
        if ready:
            self._ready.set()
        else:
            self._ready.clear()

    def _run(self) -> None:
        s = self.settings
        proto = self.protocol
        failing = False
        while not self._stop.is_set():
            try:
                port = self._open()
            except (serial.SerialException, OSError, ValueError) as exc:
                why = open_problem(self._open_url, exc)
                with self._lock:
                    proto.c.open_failures += 1
                    proto.c.last_error = why
                # The first failure is news; the retries that follow are not.
                log.log(logging.DEBUG if failing else logging.WARNING,
                        "serial link: %s (retrying)", why)
                failing = True
                self._stop.wait(s.reconnect_delay)
                continue
            if failing:
                log.info("serial link: %s opened again", self._open_url)
            failing = False
            self._port = port
            error: BaseException | None = None
            transport = _Transport(port)
            try:
                with self._lock:
                    proto.connection_made(transport)
                while not self._stop.is_set():
                    data = port.read(port.in_waiting or 1)
                    with self._lock:
                        if data:
                            proto.data_received(data)
                        with self._out_lock:
                            leds, self._leds_out = self._leds_out, None
                        if leds is not None:
                            proto.set_leds(leds)
                        proto.tick()
                        if proto.dead:
                            break
                    if transport.error is not None:
                        raise transport.error
            except (serial.SerialException, OSError) as exc:
                error = exc
            finally:
                with self._lock:
                    proto.connection_lost(error)
                self._port = None
                try:
                    port.close()
                except (serial.SerialException, OSError):
                    pass
            self._stop.wait(s.reconnect_delay)
