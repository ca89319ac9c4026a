"""A device that stops reading what the host writes (its USB receive side
stuck, a full CDC buffer), on a real pty with pyserial: the host's LED
writes never block or fail the caller, the link drops and reconnects, and
the board's reports flow again once the device reads again."""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from typing import Any

import pytest
import serial  # type: ignore[import-untyped]

from controller.board.events import Frame
from controller.drivers import protocol as P
from controller.drivers.serial_link import LinkSettings, SerialLink

pytestmark = pytest.mark.timeout(60)


class StallingDevice:
    """The device's end of a pty: answers the handshake and LED frames,
    sends heartbeats, and reports occupancy; ``reading`` off, it stops
    reading (the host's writes pile up in the pty until they time out)."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave
        self.reading = True
        self.bits = 0
        self.hellos = 0
        self._nonce = 0
        self._seq = 0
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _us(self) -> int:
        return int((time.monotonic() - self._t0) * 1e6) & 0xFFFFFFFF

    def _write(self, kind: int, seq: int, payload: bytes) -> None:
        os.write(self.master, P.encode(kind, seq, payload))

    def report(self, bits: int, flags: int = 0) -> None:
        self.bits = bits
        self._write(P.OCC, self._seq, P.pack_occ(self._us(), flags, bits, 49))
        self._seq = (self._seq + 1) & 0xFF

    def _run(self) -> None:
        deframer = P.Deframer()
        beat = 0.0
        while not self._stop.is_set():
            if not self.reading:
                time.sleep(0.01)
            elif select.select([self.master], [], [], 0.01)[0]:
                for kind, seq, payload in deframer.feed(os.read(self.master, 4096)):
                    self._answer(kind, seq, payload)
            if self.hellos and time.monotonic() - beat > 0.2:
                beat = time.monotonic()
                self._write(P.HEARTBEAT, 0, P.pack_heartbeat(
                    self._us(), self._seq, 0, self._nonce & 0xFFFF, self.bits, 49))

    def _answer(self, kind: int, seq: int, payload: bytes) -> None:
        if kind == P.HELLO:
            self.hellos += 1
            self._nonce = P.parse_hello(payload)[1]
            self._seq = 0
            self._write(P.HELLO_ACK, 0, P.pack_hello_ack(
                self._nonce, 1, self._us(), 7, 7, 0, 49, 0, (0, 1, 0), "stalling"))
        elif kind == P.SYNC:
            self.report(self.bits, P.OCC_FULL)
        elif kind in (P.CONFIG, P.LEDS):
            self._write(P.ACK, seq, P.pack_ack(kind))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.master)
        os.close(self._slave)


def test_a_device_that_stops_reading_never_blocks_the_host_and_is_reconnected() -> None:
    dev = StallingDevice()
    fast = LinkSettings(read_timeout=0.005, reconnect_delay=0.05, request_retry=0.05)
    writers: set[str] = set()  # the threads that wrote to the port

    def opened(*args: Any, **kwargs: Any) -> Any:  # pyserial's port, its writes watched
        port = serial.serial_for_url(*args, **kwargs)
        write = port.write

        def watched(data: bytes) -> Any:
            writers.add(threading.current_thread().name)
            return write(data)

        port.write = watched
        return port

    link = SerialLink(dev.path, fast, serial_factory=opened).start()
    try:
        assert link.wait_connected(5), link.stats()
        dev.reading = False
        deadline = time.monotonic() + 20
        i = 0
        # As the service does: a new LED frame each time a light blinks.
        while link.stats().connects < 2 and time.monotonic() < deadline:
            i += 1
            link.send_leds([(i % 256, 0, 0)] * 49)  # never raises
            time.sleep(0.01)
            if link.stats().last_error and not dev.reading:
                dev.reading = True  # the device reads again: the link comes back
        s = link.stats()
        assert "timeout" in s.last_error.lower(), s
        assert s.connects >= 2 and dev.hellos >= 2
        # The caller never waited on the stuck port (a write there waits up to
        # its 1 s timeout): only the link's own thread writes to it.
        assert writers and threading.current_thread().name not in writers, writers
        # The board's reports flow again.
        assert link.wait_connected(5), link.stats()
        dev.report(1 << 24)
        deadline = time.monotonic() + 5
        seen = 0
        while seen != 1 << 24 and time.monotonic() < deadline:
            ev = link.get(timeout=0.1)
            if isinstance(ev, Frame):
                seen = ev.occupied
        assert seen == 1 << 24
    finally:
        link.close()
        dev.close()
