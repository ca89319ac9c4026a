"""The serial link logs what goes wrong and what heals: the cable pulled
(link lost, the port failing to open, once however often it is retried),
put back (opened again, reconnected), and corrupted bytes (bad frames,
at most one line every ten seconds)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from fw_helpers import wait_for

from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.serial_link import SerialLink

pytestmark = pytest.mark.timeout(120)

MakeLink = Callable[..., SerialLink]


def said(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int, str]]:
    return [(r.name, r.levelno, r.getMessage()) for r in caplog.records
            if r.name.startswith("controller.drivers")]


def test_a_link_drop_and_its_recovery_are_logged(
    sim: FirmwareSim, make_link: MakeLink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="controller.drivers")
    sim.follow_real_time()
    link = make_link(sim.cable.path)
    assert link.wait_connected(15)
    wait_for(lambda: len(said(caplog)) >= 1, what="the connection logged")
    first = said(caplog)
    assert [(n, lv) for n, lv, _ in first] == [("controller.drivers.link_protocol", logging.INFO)]
    assert first[0][2].startswith("serial link: connected to ")
    caplog.clear()
    sim.cable.unplug()
    wait_for(lambda: link.stats().open_failures >= 3, what="the port retried")
    sim.cable.plug()
    assert link.wait_connected(10), link.stats()
    got = said(caplog)
    path = sim.cable.path
    lost = [(lv, m) for _n, lv, m in got if m.startswith("serial link: link lost")]
    assert len(lost) == 1 and lost[0][0] == logging.WARNING
    cannot = [(lv, m) for _n, lv, m in got if "cannot open" in m]
    assert len(cannot) == 1  # one line for the whole outage (the retries log at DEBUG)
    assert cannot[0][0] == logging.WARNING
    assert cannot[0][1].startswith(f"serial link: cannot open {path}: ")
    tail = [(n.rsplit(".", 1)[1], lv, m) for n, lv, m in got if "cannot open" not in m][1:]
    assert tail[0] == ("serial_link", logging.INFO, f"serial link: {path} opened again")
    assert tail[1][:2] == ("link_protocol", logging.INFO)
    assert tail[1][2].startswith("serial link: reconnected to ")
    assert tail[1][2].endswith("(reconnection 1)")


def test_corrupted_bytes_are_logged_at_most_once_in_ten_seconds(
    sim: FirmwareSim, make_link: MakeLink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="controller.drivers")
    sim.follow_real_time()
    link = make_link(sim.cable.path)
    assert link.wait_connected(15)

    def flip(direction: str, data: bytes) -> bytes:
        return bytes([data[0] ^ 0x10]) + data[1:] if direction == "up" and data else data

    sim.cable.fault = flip
    wait_for(lambda: link.stats().checksum_failures + link.stats().framing_errors >= 5,
             what="bad frames")
    sim.cable.fault = None
    bad = [m for _n, lv, m in said(caplog) if "bad frames" in m]
    assert len(bad) == 1
    assert bad[0].startswith("serial link: bad frames on the line: ")
