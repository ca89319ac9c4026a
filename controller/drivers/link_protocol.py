"""The session of the serial link to the Pico: framing, handshake,
sequence numbers, acknowledgements and timers (hardware.md, "The serial
protocol").

:class:`LinkProtocol` is a pyserial ``Protocol`` (``connection_made`` /
``data_received`` / ``connection_lost``) that never raises on bad bytes:
they are counted (:class:`~controller.drivers.link_settings.LinkStats`),
logged, and reading resynchronises at the next frame delimiter.  It owns no
thread and no port: :class:`~controller.drivers.serial_link.SerialLink`
runs it on one.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from serial.threaded import Protocol

from controller.board.events import Button, Frame
from controller.board.words import on_one_line, place

from . import protocol as P
from .link_settings import DeviceInfo, DeviceStats, LinkSettings, LinkStats
from .link_time import Clock, HostTimebase, Timebase, Unwrap
from .switch_watch import PointWatch

__all__ = ["Clock", "Event", "LinkProtocol", "Timebase"]

log = logging.getLogger(__name__)

Event = Frame | Button
LOG_EVERY = 10.0  # seconds between two log lines about the same kind of bad input
ASK_LATER = 5.0  # seconds before asking again a device that refused the handshake or CONFIG


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
    host_dropped: int = 0
    last_error: str = ""
    notices: deque[str] = field(default_factory=lambda: deque(maxlen=8))


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
        settings: LinkSettings | None = None,
        clock: Clock = time.monotonic,
        timebase: Timebase | None = None,
        on_ready: Callable[[bool], None] | None = None,
        watch: PointWatch | None = None,
    ) -> None:
        self.events = events
        self.watch = watch  # sees every frame delivered
        self.no_point = 0  # crossings with no point the device says read closed
        self.settings = settings or LinkSettings()
        self.settings.check()  # LinkError early, not on the device
        self.size = self.settings.size
        self.squares = self.settings.squares
        self.clock = clock
        self.user_timebase = timebase
        self.config = self.settings.config()
        self.on_ready = on_ready
        self.deframer = P.Deframer()
        self.c = _Counters()
        self._logged: dict[str, float] = {}  # kind of error -> when last logged
        self.transport: Any = None
        self.state = HANDSHAKE
        self.device: DeviceInfo | None = None
        self.nonce = 0
        self.seq = 0
        self.expected = 0
        self.requests: dict[int, _Request] = {}
        self.leds: bytes | None = None
        self.last_rx = 0.0  # the last valid frame (or the connection)
        self.last_bytes = 0.0  # the last bytes of any kind
        self.noise_since: float | None = None  # bytes, but no valid frame, since then
        self.silence_said = ""  # the kind of timeout logged since the last connection
        self.last_tx = 0.0
        self.hello_sent = 0.0
        self.configuring_since = 0.0  # the HELLO_ACK that asked for the CONFIG's acknowledgement
        self.refused = ""  # why the device refuses the board's CONFIG (a fault, logged once)
        self.fault: tuple[float, str] | None = None  # the device's last error: when, what
        self.dead = False
        self.held: Event | None = None  # the latest frame, while the events queue is full
        self.stats_reply: DeviceStats | None = None
        self.stats_event = threading.Event()
        self.stop_event = threading.Event()  # the device acknowledged STOP
        self.unwrap = Unwrap(0)
        self.timebase: Timebase = self.user_timebase or HostTimebase(clock)
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
        except OSError:
            raise  # the port failed while answering (pyserial's errors are OSErrors)
        except Exception as exc:  # never let bad input stop the reader
            self.c.bad_messages += 1
            self._error(f"internal error on input: {exc!r}", "input")

    def connection_lost(self, exc: BaseException | None) -> None:
        was_ready = self.state == READY
        self.transport = None
        self.state = HANDSHAKE
        self.requests.clear()
        self.c.disconnects += 1
        if exc is not None:
            self._error(f"link lost: {exc}")
        if was_ready and self.on_ready is not None:
            self.on_ready(False)

    # -- timers ------------------------------------------------------------------

    def tick(self) -> None:
        """Resend what is unanswered, keep the device awake, notice silence."""
        if self.held is not None and self._put(self.held):
            self.held = None
        if self.transport is None:
            return
        now = self.clock()
        s = self.settings
        if now - self.last_rx >= s.device_timeout:
            self._timed_out(now)
            return
        if self.state == HANDSHAKE:
            if now - self.hello_sent >= s.request_retry:
                self._hello(now)
            return
        if (self.state == CONFIGURING and not self.refused
                and now - self.configuring_since >= s.device_timeout):
            # Alive (it answers), yet neither takes nor refuses the settings.
            self._error(f"the device answered the handshake but has not acknowledged the "
                        f"board's settings (CONFIG) in {now - self.configuring_since:.0f} s: "
                        "asking again (copy this version's firmware to the Pico: hardware.md, "
                        "\"Flashing the firmware\")", "config")
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
        self.stop_event.clear()
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
        bad_before = self._bad_frames()
        acked = False
        now = self.last_bytes = self.clock()
        if self.noise_since is None:
            self.noise_since = now  # until a valid frame says otherwise
        for kind, seq, payload in self.deframer.feed(data):
            self.last_rx = self.clock()
            self.noise_since = None
            try:
                acked |= self._message(kind, seq, payload)
            except P.ProtocolError as exc:
                self.c.bad_messages += 1
                name = P.NAMES.get(kind, hex(kind))
                why = str(exc).removeprefix(name + ": ")
                self._error(f"bad {name} from the device: {why}", "message")
        if self._bad_frames() != bad_before:
            d = self.deframer
            self._error(
                self._noise(now)
                or f"bad frames on the line: {d.crc_errors} failed the CRC check, "
                f"{d.cobs_errors + d.oversize + d.short} were malformed (so far)",
                "frames",
            )
        if acked:
            self._send(P.HOST_ACK, self.expected)

    def _timed_out(self, now: float) -> None:
        """No valid frame for the device's timeout: drop the connection,
        saying whether bytes came or none did (once for the outage; the
        retries log at DEBUG)."""
        self.dead = True
        self.c.timeouts += 1
        if self.last_bytes <= self.last_rx:  # nothing at all since the connection
            self.noise_since = None
        why = self._noise(now, True)
        kind = "noise" if why else "silent"
        why = why or f"device silent for {self.settings.device_timeout:g} s"
        self.c.last_error = why
        level = logging.DEBUG if kind == self.silence_said else logging.WARNING
        self.silence_said = kind
        log.log(level, "serial link: reconnecting: %s", why)

    def _noise(self, now: float, timed_out: bool = False) -> str:
        """Bytes but no valid frame for the device's timeout (or since the
        connection that just ``timed_out``): words for it."""
        timeout = self.settings.device_timeout
        if self.noise_since is None or now - self.noise_since < timeout and not timed_out:
            return ""
        lasted = max(timeout, round(now - self.noise_since))
        return (f"bytes arrive but no valid message for {lasted:g} s: "
                "is it the board's firmware, at the right baud rate?")

    def _bad_frames(self) -> int:
        d = self.deframer
        return d.crc_errors + d.cobs_errors + d.oversize + d.short

    def _error(self, text: str, kind: str = "", level: int = logging.WARNING) -> None:
        """Keep ``text`` as the last error and log it; errors of one
        ``kind`` (bad input) are logged at most every :data:`LOG_EVERY` s."""
        self.c.last_error = text
        if kind:
            self._log_once(kind, text, level)
        else:
            log.log(level, "serial link: %s", text)

    def _log_once(self, kind: str, text: str, level: int = logging.WARNING) -> None:
        """Log ``text`` unless one of its ``kind`` went out in the last
        :data:`LOG_EVERY` seconds."""
        now = self.clock()
        if now - self._logged.get(kind, float("-inf")) < LOG_EVERY:
            return
        if len(self._logged) >= 64:  # kinds with words of the device's: forget the old
            self._logged = {k: t for k, t in self._logged.items() if now - t < LOG_EVERY}
        self._logged[kind] = now
        log.log(level, "serial link: %s", text)

    def _message(self, kind: int, seq: int, payload: bytes) -> bool:
        """Handle one message; does it call for an acknowledgement?"""
        if kind >= 0x80:  # one of ours, echoed back
            self.c.bad_messages += 1
            return False
        if kind == P.HELLO_ACK:
            self._hello_ack(payload)
            return False
        if kind == P.NOTICE:  # a fault is said whenever it comes, the handshake too
            self._notice(*P.parse_notice(payload))
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
            if len(payload) != 8 + P.square_bytes(self.squares) and self.state != READY:
                self.c.bad_messages += 1  # a bitmap of the device's own board: the same
                self._refuse(P.CONFIG_WRONG_LENGTH)  # fault as its refusing our CONFIG
                return False
            stamp, next_seq, state, session, bits = P.parse_heartbeat(payload, self.squares)
            if state & P.STATE_NO_SESSION or session != self.nonce & 0xFFFF:
                # The device restarted, or forgot us: start a new session.
                self._error("the device lost the session; handshake again")
                self.c.resyncs += 1
                self._lost_session()
                return False
            closed, self.no_point = self.no_point, 0
            if self.state == READY and self.watch is not None:
                self.watch.see_no_point(self.clock(), closed)
            if state & P.STATE_OVERFLOW:
                self.c.device_overflows += 1
                self._log_once("overflow", "the device dropped readings the host did not take")
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
                if acked_kind == P.STOP:
                    self.stop_event.set()
                if acked_kind == P.CONFIG and self.state == CONFIGURING:
                    if self.refused:
                        self.refused = ""
                        log.info("serial link: the device took the board's settings")
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
        self.c.bad_messages += 1
        return False

    def _notice(self, code: int, text: str) -> None:
        if code == P.NOTICE_NO_POINT:  # for the heartbeat that follows
            rows, cols = self.settings.matrix
            self.no_point = sum(1 << int(w) for w in text.split()
                                if w.isdigit() and int(w) < rows * cols)
            return
        text = on_one_line(text)
        self.c.notices.append(f"{code}: {text}")
        if code == P.NOTICE_CONFIG and text.startswith("CONFIG") and self.state == CONFIGURING:
            self._refuse(text)
        else:  # a fault in the firmware's loop repeats at every pass: once in a while
            if code == P.NOTICE_ERROR:
                self.fault = (self.clock(), text)
            self._log_once(f"notice {code} {text}", f"the device says {code}: {text}")

    def _hello_ack(self, payload: bytes) -> None:
        (version, nonce, boot, now, rows, cols, sides, leds, next_seq, fw_version, name) = (
            P.parse_hello_ack(payload)
        )
        if self.state != HANDSHAKE or nonce != self.nonce:
            return  # an answer to an older HELLO
        if version != P.PROTOCOL_VERSION:
            self._error(
                f"firmware speaks protocol version {version}, this host {P.PROTOCOL_VERSION}",
                "handshake",
                logging.ERROR,
            )
            self.hello_sent = self.clock() + ASK_LATER  # ask again later, not in a loop
            return
        if (rows, cols) != self.settings.matrix:
            self._error(
                self.settings.other_matrix(rows, cols),
                "handshake",
                logging.ERROR,
            )
            self.hello_sent = self.clock() + ASK_LATER
            return
        info = DeviceInfo(version, boot, rows, cols, sides, leds, on_one_line(name), fw_version)
        if self.device is not None and self.device.boot != boot:
            self.c.device_restarts += 1
            log.warning("the device restarted (boot id %08x, was %08x)", boot, self.device.boot)
        self.device = info
        self.expected = next_seq
        self.unwrap = Unwrap(now)
        if self.user_timebase is None:
            self.timebase = HostTimebase(self.clock)
        self._observe(now)
        self.state = CONFIGURING
        self.configuring_since = self.clock()
        self._request(P.CONFIG, self.config)

    def _refuse(self, text: str) -> None:
        """The device refused the board's CONFIG (``text``, its NOTICE): say
        why once for as long as it lasts, and ask again later, not in a loop."""
        if text == P.CONFIG_WRONG_LENGTH:
            what = place(self.settings.board_name, 2)
            why = (f"the device's board has another number of {what} than this host's "
                   f"{self.squares}: set SWITCH_MAP in the firmware's board.py")
        else:
            why = f"the device refused the board's settings: {text}"
        self.c.last_error = why
        if why != self.refused:
            log.warning("serial link: %s", why)
        self.refused = why
        req = self.requests.get(P.CONFIG)
        if req is not None:
            req.sent = max(req.sent, self.clock() + ASK_LATER - self.settings.request_retry)

    def _lost_session(self) -> None:
        was_ready = self.state == READY
        self.state = HANDSHAKE
        self.requests.clear()
        self._hello(self.clock())
        if was_ready and self.on_ready is not None:
            self.on_ready(False)

    def _ready(self) -> None:
        self.state = READY
        self.silence_said = ""
        self.c.connects += 1
        device = self.device
        name = f"{device.firmware} {'.'.join(map(str, device.firmware_version))}" if device else ""
        if self.c.connects > 1:
            self.c.reconnects += 1
            log.info("serial link: reconnected to %s (reconnection %d)", name, self.c.reconnects)
        else:
            log.info("serial link: connected to %s", name)
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
        if isinstance(self.timebase, HostTimebase):
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
            if self.watch is not None:
                self.watch.see(event.t, event.occupied)
        else:
            self.c.buttons += 1
        # A bounded queue that is full (a device flooding the link faster
        # than the service takes its readings): the reader never waits on
        # it.  A frame is the whole board, so the latest one is held and
        # put as soon as there is room; the frames between are lost, and a
        # press made in the flood too, said in the log.
        if self.held is not None:
            if not self._put(self.held):
                self._drop(event)
                return
            self.held = None
        if not self._put(event):
            self._drop(event)

    def _put(self, event: Event) -> bool:
        try:
            self.events.put_nowait(event)
        except queue.Full:
            return False
        return True

    def _drop(self, event: Event) -> None:
        if isinstance(event, Frame):
            if self.held is not None:
                self.c.host_dropped += 1
            self.held = event
        else:
            self.c.host_dropped += 1
        self._log_once("behind", "the board's readings come faster than this host takes them: "
                       f"{self.c.host_dropped} dropped so far, the latest board kept")

    def snapshot(self) -> LinkStats:
        d = self.deframer
        counters = {f.name: getattr(self.c, f.name) for f in fields(_Counters)}
        counters["notices"] = tuple(self.c.notices)
        return LinkStats(
            connected=self.state == READY,
            frames=d.frames,
            checksum_failures=d.crc_errors,
            framing_errors=d.cobs_errors + d.oversize + d.short,
            device=self.device,
            **counters,
        )
