"""A port where bytes arrive but never a valid message (another device, or
the board at another baud rate), on a real pty with pyserial, told apart
from a silent device: the link says so, in one line, and says once that
it tries again."""

from __future__ import annotations

import logging
import os
import random
import re
import select
import threading
import time
import tty
from collections.abc import Iterator

import pytest

from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.serial_link import LinkSettings, SerialLink

pytestmark = pytest.mark.timeout(60)

QUICK = LinkSettings(heartbeat=0.2, idle=1.0, keepalive=0.1, device_timeout=0.6,
                     request_retry=0.05, reconnect_delay=0.05, read_timeout=0.005)


class Pty:
    """The device's end of a pty: sends random bytes while ``noisy``, and
    reads (drops) whatever the host writes."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.noisy = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        rnd = random.Random(1)
        while not self._stop.is_set():
            if self.noisy:
                os.write(self.master, bytes(rnd.randrange(256) for _ in range(200)))
            while select.select([self.master], [], [], 0)[0]:
                os.read(self.master, 4096)
            time.sleep(0.01)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def pty() -> Iterator[Pty]:
    p = Pty()
    yield p
    p.close()


def wait_timeouts(link: SerialLink, n: int) -> None:
    deadline = time.monotonic() + 20
    while link.stats().timeouts < n:
        assert time.monotonic() < deadline, link.stats()
        time.sleep(0.02)


def test_bytes_that_never_make_a_message_are_not_called_silence(
    pty: Pty, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="controller.drivers")
    with SerialLink(pty.path, QUICK) as link:
        wait_timeouts(link, 2)
        time.sleep(0.2)  # and more noise after reconnecting
        problem = link.problem() or ""
        s = link.stats()
        pty.noisy = False  # now the device is silent
        wait_timeouts(link, s.timeouts + 2)
        quiet = link.stats().last_error
    assert not s.connected and s.framing_errors + s.checksum_failures > 10
    want = (rf"the board on {re.escape(pty.path)} is not connected \(bytes arrive but no valid "
            r"message for \d+ s: is it the board's firmware, at the right baud rate\?\); "
            r"trying again")
    assert re.fullmatch(want, problem), problem
    assert "silent" not in problem and "reconnecting" not in problem
    assert quiet == "device silent for 0.6 s"
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    noise = [m for m in said if "no valid message" in m]
    silent = [m for m in said if "silent" in m]
    assert len(noise) == 1 and noise[0].startswith("serial link: reconnecting: bytes arrive")
    assert silent == ["serial link: reconnecting: device silent for 0.6 s"]  # once for the outage


def test_a_device_fallen_silent_is_said_to_be_reconnected_once(sim: FirmwareSim) -> None:
    sim.follow_real_time()
    with SerialLink(sim.cable.path, QUICK) as link:
        assert link.wait_connected(10), link.stats()
        sim.stop_following()  # the firmware's time stands still: it says nothing
        wait_timeouts(link, 1)
        problem = link.problem()
    assert problem == (f"the board on {sim.cable.path} is not connected since it was lost "
                       "(device silent for 0.6 s); reconnecting")
