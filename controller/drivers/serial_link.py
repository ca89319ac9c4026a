"""The host's end of the serial link to the Pico firmware (hardware.md, "The serial protocol").

:class:`SerialLink` opens the port by URL (``serial_for_url``: a device
path, ``loop://``, a pty, ``socket://``), runs the handshake, and puts what
the board reports on :attr:`SerialLink.events`, a queue of
:class:`~controller.board.sensorlog.Frame` (occupancy, bit i = square i) and
:class:`~controller.board.sensorlog.Button` objects, in the order they
happened.  Nothing is called back on its thread.  It reconnects by itself
after the port goes away or the device falls silent, and after every
(re)connection asks for a full report, so a move made while the link was
down shows in the next frame and nothing is delivered twice.

The framing and the session are in :class:`LinkProtocol`, a pyserial
``Protocol`` (``connection_made`` / ``data_received`` / ``connection_lost``)
that never raises on bad bytes: they are counted in :class:`LinkStats` and
reading resynchronises at the next frame delimiter.

Times: the firmware stamps each report with its own microsecond clock.  By
default the link maps that clock onto the host clock (``clock``, injectable)
with a minimum-delay estimate, so a frame carries when the switch changed,
not when the bytes arrived; pass ``timebase`` to map device time yourself
(the firmware replay maps it onto the log's times).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import serial
from serial.threaded import Protocol

from controller.board.events import Button, Frame

from . import protocol as P

__all__ = [
    "DeviceInfo",
    "DeviceStats",
    "LinkError",
    "LinkProtocol",
    "LinkSettings",
    "LinkStats",
    "SerialLink",
]

Event = Frame | Button
Clock = Callable[[], float]
Timebase = Callable[[int], float]
Colour = tuple[int, int, int]


class LinkError(ValueError):
    """A link setting that cannot be used."""


@dataclass(frozen=True)
class LinkSettings:
    """Timing of the link, in seconds (the firmware's share goes to it in
    the handshake's CONFIG)."""

    heartbeat: float = 1.0  # the device's occupancy heartbeat
    idle: float = 3.0  # host silent this long: the device shows its idle pattern
    debounce: float = 0.012  # the device's switch debounce
    retry: float = 0.15  # the device resends unacknowledged events after this
    keepalive: float = 0.5  # the host sends at least this often
    device_timeout: float = 3.0  # device silent this long: reconnect
    request_retry: float = 0.25  # the host resends an unanswered request
    reconnect_delay: float = 0.5  # wait before reopening the port
    read_timeout: float = 0.02  # the reader's poll interval

    def check(self) -> None:
        if not 0.05 <= self.heartbeat <= 60:
            raise LinkError(f"heartbeat must be 0.05 to 60 s, not {self.heartbeat}")
        if not 0.1 <= self.idle <= 60:
            raise LinkError(f"idle must be 0.1 to 60 s, not {self.idle}")
        if not 0 <= self.debounce <= 0.255:
            raise LinkError(f"debounce must be 0 to 0.255 s, not {self.debounce}")
        if not 0.01 <= self.retry <= 60:
            raise LinkError(f"retry must be 0.01 to 60 s, not {self.retry}")
        if self.device_timeout <= self.heartbeat:
            raise LinkError("device_timeout must be longer than the heartbeat")
        if self.keepalive >= self.idle:
            raise LinkError("keepalive must be shorter than idle")


@dataclass(frozen=True)
class DeviceInfo:
    """What the firmware said in the handshake."""

    version: int
    boot: int  # random at each boot of the Pico: a change means it restarted
    rows: int
    cols: int
    sides: int  # bit k: button set k is fitted (0 shared, 1 attacker, 2 defender)
    leds: int
    firmware: str
    firmware_version: tuple[int, int, int]


@dataclass(frozen=True)
class DeviceStats:
    """The firmware's own counters (STATS), for ``doctor``."""

    counters: dict[str, int]
    chatter: tuple[int, ...]  # rejected switch bounces, per square


@dataclass(frozen=True)
class LinkStats:
    """A snapshot of the link's counters."""

    connected: bool = False
    connects: int = 0  # handshakes completed
    reconnects: int = 0  # handshakes after the first
    disconnects: int = 0  # connections lost (port error or silence)
    timeouts: int = 0  # of which: the device fell silent
    open_failures: int = 0  # the port could not be opened
    frames: int = 0  # good frames received
    checksum_failures: int = 0
    framing_errors: int = 0  # bad COBS, oversize or too short
    bad_messages: int = 0  # good checksum but not usable (type, length, echo)
    duplicates: int = 0  # events received twice (resent by the device)
    out_of_order: int = 0  # events after a gap, dropped until resent
    frames_sent: int = 0
    resent: int = 0  # requests the host sent again
    occupancy: int = 0  # frames delivered
    buttons: int = 0  # button presses delivered
    device_restarts: int = 0  # the device's boot id changed
    device_overflows: int = 0  # heartbeats saying the device dropped events
    resyncs: int = 0  # sessions restarted because the device had lost ours
    last_error: str = ""
    notices: tuple[str, ...] = ()  # the device's last NOTICE messages
    device: DeviceInfo | None = None


@dataclass
class _Counters:
    connects: int = 0
    reconnects: int = 0
    disconnects: int = 0
    timeouts: int = 0
    open_failures: int = 0
    bad_messages: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    frames_sent: int = 0
    resent: int = 0
    occupancy: int = 0
    buttons: int = 0
    device_restarts: int = 0
    device_overflows: int = 0
    resyncs: int = 0
    last_error: str = ""
    notices: deque[str] = field(default_factory=lambda: deque(maxlen=8))


class _Unwrap:
    """Device time mod 2**32 to an unbounded count of microseconds."""

    def __init__(self, first: int) -> None:
        self.last = first
        self.value = first

    def __call__(self, stamp: int) -> int:
        d = (stamp - self.last) & 0xFFFFFFFF
        if d >= 0x80000000:
            d -= 0x100000000
        self.last = stamp
        self.value += d
        return self.value


class _HostTimebase:
    """Device microseconds to host seconds: offset = the least (arrival -
    stamp) seen, allowed to creep up by ``drift`` per second so a slower
    device clock is followed too."""

    def __init__(self, clock: Clock, drift: float = 500e-6) -> None:
        self.clock = clock
        self.drift = drift
        self.offset: float | None = None
        self.at = 0.0

    def observe(self, device_us: int) -> None:
        now = self.clock()
        cand = now - device_us / 1e6
        if self.offset is None:
            self.offset = cand
        else:
            self.offset = min(self.offset + self.drift * max(0.0, now - self.at), cand)
        self.at = now

    def __call__(self, device_us: int) -> float:
        if self.offset is None:
            return self.clock()
        return device_us / 1e6 + self.offset


class _Request:
    """A host message sent until the device answers it."""

    def __init__(self, kind: int, seq: int, payload: bytes, now: float) -> None:
        self.kind = kind
        self.seq = seq
        self.payload = payload
        self.sent = now


HANDSHAKE, CONFIGURING, SYNCING, READY = "handshake", "configuring", "syncing", "ready"


class LinkProtocol(Protocol):
    """Framing and session state of one link; survives reconnections.

    Called by one thread at a time (:class:`SerialLink` holds its lock).
    """

    def __init__(
        self,
        events: queue.Queue[Event],
        size: int = 7,
        settings: LinkSettings | None = None,
        clock: Clock = time.monotonic,
        timebase: Timebase | None = None,
        led_count: int = 0,
        led_map: Sequence[int] | None = None,
        switch_map: Sequence[int] | None = None,
        on_ready: Callable[[bool], None] | None = None,
    ) -> None:
        self.events = events
        self.size = size
        self.squares = size * size
        self.settings = settings or LinkSettings()
        self.settings.check()
        self.clock = clock
        self.user_timebase = timebase
        self.config = P.pack_config(
            round(self.settings.heartbeat * 1000),
            round(self.settings.idle * 1000),
            round(self.settings.debounce * 1000),
            round(self.settings.retry * 1000),
            led_count,
            list(led_map) if led_map is not None else None,
            list(switch_map) if switch_map is not None else None,
        )
        P.parse_config(self.config, self.squares)  # LinkError early, not on the device
        self.on_ready = on_ready
        self.deframer = P.Deframer()
        self.c = _Counters()
        self.transport: Any = None
        self.state = HANDSHAKE
        self.device: DeviceInfo | None = None
        self.nonce = 0
        self.seq = 0
        self.expected = 0
        self.requests: dict[int, _Request] = {}
        self.leds: bytes | None = None
        self.last_rx = 0.0
        self.last_tx = 0.0
        self.hello_sent = 0.0
        self.dead = False
        self.stats_reply: DeviceStats | None = None
        self.stats_event = threading.Event()
        self.unwrap = _Unwrap(0)
        self.timebase: Timebase = self.user_timebase or _HostTimebase(clock)
        self.last_t = float("-inf")

    # -- pyserial Protocol ---------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.deframer.reset()
        self.state = HANDSHAKE
        self.requests.clear()
        self.dead = False
        now = self.clock()
        self.last_rx = now
        self._write(b"\x00")  # ends whatever partial frame the device holds
        self._hello(now)

    def data_received(self, data: bytes) -> None:
        try:
            self._data(bytes(data))
        except Exception as exc:  # never let bad input stop the reader
            self.c.bad_messages += 1
            self.c.last_error = f"internal error on input: {exc!r}"

    def connection_lost(self, exc: BaseException | None) -> None:
        was_ready = self.state == READY
        self.transport = None
        self.state = HANDSHAKE
        self.requests.clear()
        self.c.disconnects += 1
        if exc is not None:
            self.c.last_error = f"link lost: {exc}"
        if was_ready and self.on_ready is not None:
            self.on_ready(False)

    # -- timers ------------------------------------------------------------------

    def tick(self) -> None:
        """Resend what is unanswered, keep the device awake, notice silence."""
        if self.transport is None:
            return
        now = self.clock()
        s = self.settings
        if now - self.last_rx >= s.device_timeout:
            self.dead = True
            self.c.timeouts += 1
            self.c.last_error = f"device silent for {s.device_timeout:g} s"
            return
        if self.state == HANDSHAKE:
            if now - self.hello_sent >= s.request_retry:
                self._hello(now)
            return
        for req in list(self.requests.values()):
            if now - req.sent >= s.request_retry:
                req.sent = now
                self.c.resent += 1
                self._send(req.kind, req.seq, req.payload)
        if now - self.last_tx >= s.keepalive:
            self._send(P.HOST_ACK, self.expected)

    # -- requests from the user's thread (under the link's lock) --------------

    def set_leds(self, payload: bytes) -> None:
        self.leds = payload
        if self.state == READY:
            self._request(P.LEDS, payload)

    def sync(self) -> None:
        if self.state == READY:
            self._request(P.SYNC, b"")

    def ask_stats(self) -> bool:
        if self.state != READY:
            return False
        self.stats_event.clear()
        self._request(P.STATS_REQ, b"")
        return True

    def stop_device(self) -> bool:
        if self.state != READY:
            return False
        self._request(P.STOP, b"")
        return True

    # -- internals -----------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        if self.transport is not None:
            self.transport.write(data)

    def _send(self, kind: int, seq: int, payload: bytes = b"") -> None:
        self._write(P.encode(kind, seq, payload))
        self.c.frames_sent += 1
        self.last_tx = self.clock()

    def _hello(self, now: float) -> None:
        self.nonce = int.from_bytes(os.urandom(4), "little")
        self.hello_sent = now
        self._send(P.HELLO, 0, P.pack_hello(self.nonce))

    def _request(self, kind: int, payload: bytes) -> None:
        # One outstanding request per kind: a newer one (LED frame) replaces it.
        self.seq = (self.seq + 1) & 0xFF
        self.requests[kind] = _Request(kind, self.seq, payload, self.clock())
        self._send(kind, self.seq, payload)

    def _data(self, data: bytes) -> None:
        acked = False
        for kind, seq, payload in self.deframer.feed(data):
            self.last_rx = self.clock()
            try:
                acked |= self._message(kind, seq, payload)
            except P.ProtocolError as exc:
                self.c.bad_messages += 1
                self.c.last_error = f"bad {P.NAMES.get(kind, hex(kind))}: {exc}"
        if acked:
            self._send(P.HOST_ACK, self.expected)

    def _message(self, kind: int, seq: int, payload: bytes) -> bool:
        """Handle one message; does it call for an acknowledgement?"""
        if kind >= 0x80:  # one of ours, echoed back
            self.c.bad_messages += 1
            return False
        if kind == P.HELLO_ACK:
            self._hello_ack(payload)
            return False
        if self.state == HANDSHAKE:
            return False  # from a session that is over
        if kind == P.OCC:
            stamp, flags, bits = P.parse_occ(payload, self.squares)
            if self._in_order(seq):
                if flags & P.OCC_FULL and self.state == SYNCING:
                    self.requests.pop(P.SYNC, None)
                    self._ready()
                elif flags & P.OCC_FULL:
                    self.requests.pop(P.SYNC, None)
                if self.state == READY:
                    self._deliver(Frame(self._time(stamp), bits))
            return True
        if kind == P.BUTTON:
            stamp, button, side = P.parse_button(payload)
            if self._in_order(seq) and self.state == READY:
                name = P.BUTTON_NAMES[button]
                self._deliver(Button(self._time(stamp), name, P.SIDE_NAMES[side]))
            return True
        if kind == P.HEARTBEAT:
            stamp, next_seq, state, session, bits = P.parse_heartbeat(payload, self.squares)
            if state & P.STATE_NO_SESSION or session != self.nonce & 0xFFFF:
                # The device restarted, or forgot us: start a new session.
                self.c.last_error = "the device lost the session; handshake again"
                self.c.resyncs += 1
                self._lost_session()
                return False
            if state & P.STATE_OVERFLOW:
                self.c.device_overflows += 1
            if next_seq != self.expected:
                return True  # events are missing: ask for them again
            if self.state == READY:
                self._deliver(Frame(self._time(stamp), bits))
            return False
        if kind == P.ACK:
            acked_kind = P.parse_ack(payload)
            req = self.requests.get(acked_kind)
            if req is not None and req.seq == seq:
                del self.requests[acked_kind]
                if acked_kind == P.CONFIG and self.state == CONFIGURING:
                    self.state = SYNCING
                    self._request(P.SYNC, b"")
            return False
        if kind == P.STATS:
            counters, chatter = P.parse_stats(payload, self.squares)
            self.requests.pop(P.STATS_REQ, None)
            self.stats_reply = DeviceStats(
                dict(zip(P.STATS_COUNTERS, counters, strict=True)), tuple(chatter)
            )
            self.stats_event.set()
            return False
        if kind == P.NOTICE:
            code, text = P.parse_notice(payload)
            self.c.notices.append(f"{code}: {text}")
            return False
        self.c.bad_messages += 1
        return False

    def _hello_ack(self, payload: bytes) -> None:
        (version, nonce, boot, now, rows, cols, sides, leds, next_seq, fw_version, name) = (
            P.parse_hello_ack(payload)
        )
        if self.state != HANDSHAKE or nonce != self.nonce:
            return  # an answer to an older HELLO
        if version != P.PROTOCOL_VERSION:
            self.c.last_error = (
                f"firmware speaks protocol version {version}, this host {P.PROTOCOL_VERSION}"
            )
            self.hello_sent = self.clock() + 5.0  # ask again later, not in a loop
            return
        if rows != self.size or cols != self.size:
            self.c.last_error = (
                f"firmware reads a {rows}x{cols} board, the host expects {self.size}x{self.size}"
            )
            self.hello_sent = self.clock() + 5.0
            return
        info = DeviceInfo(version, boot, rows, cols, sides, leds, name, fw_version)
        if self.device is not None and self.device.boot != boot:
            self.c.device_restarts += 1
        self.device = info
        self.expected = next_seq
        self.unwrap = _Unwrap(now)
        if self.user_timebase is None:
            self.timebase = _HostTimebase(self.clock)
        self._observe(now)
        self.state = CONFIGURING
        self._request(P.CONFIG, self.config)

    def _lost_session(self) -> None:
        was_ready = self.state == READY
        self.state = HANDSHAKE
        self.requests.clear()
        self._hello(self.clock())
        if was_ready and self.on_ready is not None:
            self.on_ready(False)

    def _ready(self) -> None:
        self.state = READY
        self.c.connects += 1
        if self.c.connects > 1:
            self.c.reconnects += 1
        if self.leds is not None:
            self._request(P.LEDS, self.leds)
        if self.on_ready is not None:
            self.on_ready(True)

    def _in_order(self, seq: int) -> bool:
        if seq == self.expected:
            self.expected = (self.expected + 1) & 0xFF
            return True
        if P.seq_after(seq, self.expected):
            self.c.out_of_order += 1
        else:
            self.c.duplicates += 1
        return False

    def _observe(self, stamp: int) -> int:
        us = self.unwrap(stamp)
        if isinstance(self.timebase, _HostTimebase):
            self.timebase.observe(us)
        return us

    def _time(self, stamp: int) -> float:
        # Only the session's own events move the unwrapped clock forward.
        us = self._observe(stamp)
        t = self.timebase(us)
        if self.user_timebase is None:
            t = min(t, self.clock())
        t = max(t, self.last_t)
        self.last_t = t
        return t

    def _deliver(self, event: Event) -> None:
        if isinstance(event, Frame):
            self.c.occupancy += 1
        else:
            self.c.buttons += 1
        self.events.put(event)

    def snapshot(self) -> LinkStats:
        d = self.deframer
        c = self.c
        return LinkStats(
            connected=self.state == READY,
            connects=c.connects,
            reconnects=c.reconnects,
            disconnects=c.disconnects,
            timeouts=c.timeouts,
            open_failures=c.open_failures,
            frames=d.frames,
            checksum_failures=d.crc_errors,
            framing_errors=d.cobs_errors + d.oversize + d.short,
            bad_messages=c.bad_messages,
            duplicates=c.duplicates,
            out_of_order=c.out_of_order,
            frames_sent=c.frames_sent,
            resent=c.resent,
            occupancy=c.occupancy,
            buttons=c.buttons,
            device_restarts=c.device_restarts,
            device_overflows=c.device_overflows,
            resyncs=c.resyncs,
            last_error=c.last_error,
            notices=tuple(c.notices),
            device=self.device,
        )


class _Transport:
    """What the protocol writes to: the open port."""

    def __init__(self, port: Any) -> None:
        self.port = port

    def write(self, data: bytes) -> None:
        self.port.write(data)


class SerialLink:
    """The Pico board over a serial port; see the module's docstring.

    ``size``: the board's side (the handshake checks the firmware's).
    ``led_count``, ``led_map`` (the chain index under each square, 255 for
    none) and ``switch_map`` (the matrix switch under each square, row *
    cols + column) go to the firmware in the handshake; without them it
    uses the defaults in its board.py.  ``clock`` is the host clock (for
    timers, and frame times unless ``timebase`` is given).
    """

    def __init__(
        self,
        url: str,
        *,
        size: int = 7,
        settings: LinkSettings | None = None,
        clock: Clock = time.monotonic,
        timebase: Timebase | None = None,
        led_count: int = 0,
        led_map: Sequence[int] | None = None,
        switch_map: Sequence[int] | None = None,
        baudrate: int = 115200,
        serial_factory: Callable[..., Any] = serial.serial_for_url,
    ) -> None:
        if (led_map is None) != (led_count == 0):
            raise LinkError("led_map and led_count go together")
        self.url = url
        self.size = size
        self.settings = settings or LinkSettings()
        self.baudrate = baudrate
        self.serial_factory = serial_factory
        self.events: queue.Queue[Event] = queue.Queue()
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self._port: Any = None  # a pyserial port while open
        self.protocol = LinkProtocol(
            self.events,
            size,
            self.settings,
            clock,
            timebase,
            led_count,
            led_map,
            switch_map,
            self._on_ready,
        )
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
        if len(colours) != self.size * self.size:
            raise LinkError(f"an LED frame has {self.size * self.size} colours, not {len(colours)}")
        for rgb in colours:
            if len(rgb) != 3 or not all(0 <= v <= 255 for v in rgb):
                raise LinkError(f"an LED colour is three values 0..255, not {rgb!r}")
        payload = P.pack_leds(list(colours))
        with self._lock:
            self.protocol.set_leds(payload)

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

    def stop_device(self) -> bool:
        """Ask the firmware to stop and leave the Pico at its REPL."""
        with self._lock:
            return self.protocol.stop_device()

    # -- the reader thread ------------------------------------------------------------

    def _on_ready(self, ready: bool) -> None:
        if ready:
            self._ready.set()
        else:
            self._ready.clear()

    def _run(self) -> None:
        s = self.settings
        proto = self.protocol
        while not self._stop.is_set():
            try:
                port = self.serial_factory(
                    self.url, baudrate=self.baudrate, timeout=s.read_timeout, write_timeout=1.0
                )
            except (serial.SerialException, OSError, ValueError) as exc:
                with self._lock:
                    proto.c.open_failures += 1
                    proto.c.last_error = f"cannot open {self.url}: {exc}"
                self._stop.wait(s.reconnect_delay)
                continue
            self._port = port
            error: BaseException | None = None
            try:
                with self._lock:
                    proto.connection_made(_Transport(port))
                while not self._stop.is_set():
                    data = port.read(port.in_waiting or 1)
                    with self._lock:
                        if data:
                            proto.data_received(data)
                        proto.tick()
                        if proto.dead:
                            break
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
