"""Fault injection on the whole chain (firmware in MicroPython, cable, pty,
host driver): corrupted, dropped, duplicated and stray bytes; the cable
pulled mid-game and put back; the Pico restarting; a stuck switch and a
chattering one.  Whatever happens, the host delivers the board's readings
in order, each press once, and never a reading that did not happen."""

from __future__ import annotations

import os
import random
import time
import zlib
from collections.abc import Callable

import pytest
from fw_helpers import collect, distinct, frames, is_idle_pattern, wait_for

from controller.board.events import Button, Frame
from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.serial_link import SerialLink

pytestmark = pytest.mark.timeout(120)  # a hung simulator fails, never hangs the run

MakeLink = Callable[..., SerialLink]
D4 = 24


class Faults:
    """A cable fault: each chunk of bytes, with probability ``p``, is hit
    by ``kind`` (flip, drop, dup or junk)."""

    def __init__(self, kind: str, p: float, seed: int, directions: str = "up down") -> None:
        self.kind = kind
        self.p = p
        self.rng = random.Random(seed)
        self.directions = directions.split()
        self.hits = 0

    def __call__(self, direction: str, data: bytes) -> bytes:
        if direction not in self.directions or self.rng.random() >= self.p or not data:
            return data
        self.hits += 1
        b = bytearray(data)
        i = self.rng.randrange(len(b))
        if self.kind == "flip":
            b[i] ^= 1 << self.rng.randrange(8)
        elif self.kind == "drop":
            del b[i : i + self.rng.randint(1, 3)]
        elif self.kind == "dup":
            b = b + b  # the whole chunk twice
        elif self.kind == "junk":
            b[i:i] = bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(1, 40)))
        return bytes(b)


def boards(n: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = rng.getrandbits(49) & rng.getrandbits(49)
        if b and (not out or b != out[-1]):
            out.append(b)
    return out


def play(sim: FirmwareSim, states: list[int], presses: dict[int, tuple[str | None, str]],
         start_us: int | None = None, spacing_us: int = 60_000) -> int:
    """Schedule the readings ``states`` and the presses (by state index)."""
    t = (sim.granted if start_us is None else start_us) + 100_000
    for i, bits in enumerate(states):
        sim.set_occupancy(bits, at=t)
        if i in presses:
            side, button = presses[i]
            sim.set_button(side, button, True, at=t + 20_000)
            sim.set_button(side, button, False, at=t + 45_000)
        t += spacing_us
    return t


def connect(sim: FirmwareSim, make_link: MakeLink, **kw: object) -> SerialLink:
    sim.follow_real_time()
    link = make_link(sim.cable.path, **kw)
    assert link.wait_connected(15), link.stats()
    return link


def finished(states: list[int], n_presses: int) -> Callable[[list[Frame | Button]], bool]:
    def done(events: list[Frame | Button]) -> bool:
        got = sum(isinstance(e, Button) for e in events)
        return got >= n_presses and any(
            isinstance(e, Frame) and e.occupied == states[-1] for e in events
        )

    return done


PRESSES: dict[int, tuple[str | None, str]] = {
    2: ("attacker", "hint"),
    5: ("defender", "exchange"),
    9: (None, "undo"),
    13: ("attacker", "resign"),
}


@pytest.mark.parametrize(
    "kind, p",
    [("flip", 0.3), ("drop", 0.3), ("dup", 1.0), ("junk", 0.3)],
)
def test_a_faulty_cable_loses_nothing_and_invents_nothing(
    sim: FirmwareSim, make_link: MakeLink, kind: str, p: float
) -> None:
    faults = Faults(kind, p, seed=zlib.crc32(kind.encode()))  # the same faults every run
    sim.cable.fault = faults
    link = connect(sim, make_link)
    states = boards(16, seed=7)
    play(sim, states, PRESSES)
    got = collect(link, finished(states, len(PRESSES)), timeout=20)
    time.sleep(0.3)  # anything late or repeated would show now
    while (extra := link.get(timeout=0.05)) is not None:
        got.append(extra)
    readings = distinct([f.occupied for f in frames(got)])
    assert readings == [0, *states]
    presses = [(b.side, b.button) for b in got if isinstance(b, Button)]
    assert presses == [PRESSES[i] for i in sorted(PRESSES)]
    times = [e.t for e in got]
    assert times == sorted(times)
    s = link.stats()
    assert faults.hits > 3
    if kind == "dup":
        assert s.duplicates >= len(states)  # every event came twice, delivered once
    else:
        assert s.checksum_failures + s.framing_errors > 0
    dev = link.device_stats(timeout=5)
    assert dev is not None and sim.returncode is None
    if kind in ("flip", "drop", "junk"):
        assert dev.counters["rx_errors"] > 0  # the firmware saw bad bytes too, and went on


def test_the_cable_pulled_mid_game_and_put_back(sim: FirmwareSim, make_link: MakeLink) -> None:
    link = connect(sim, make_link)
    a, b, c = 1 << D4 | 1, 1 << D4 | 1 << 25, 1 << 25 | 1 << 40
    sim.set_occupancy(a, at=sim.granted + 50_000)
    collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == a for e in ev))
    sim.cable.unplug()
    wait_for(lambda: not link.connected, what="the host to notice")
    # While the cable is out: a move, a press, another move.
    sim.set_occupancy(b, at=sim.granted + 50_000)
    sim.set_button("attacker", "resign", True, at=sim.granted + 200_000)
    sim.set_button("attacker", "resign", False, at=sim.granted + 300_000)
    sim.set_occupancy(c, at=sim.granted + 400_000)
    # past the firmware's idle time (1 s): the idle pattern, the Pi is silent
    wait_for(lambda: is_idle_pattern(sim.leds()[1]), what="the firmware's idle pattern")
    while link.get(timeout=0) is not None:
        pass
    sim.cable.plug()
    assert link.wait_connected(10), link.stats()
    got = collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == c for e in ev))
    time.sleep(0.3)
    while (extra := link.get(timeout=0.05)) is not None:
        got.append(extra)
    # The board as it is now, read afresh: the move made meanwhile is there,
    # nothing from before the cut comes again, the stale press is dropped.
    assert distinct([f.occupied for f in frames(got)]) == [c]
    assert not [e for e in got if isinstance(e, Button)]
    s = link.stats()
    assert s.reconnects == 1 and s.disconnects >= 1 and s.open_failures >= 1
    assert sim.returncode is None and sim.restarts == 0


def test_the_pico_restarting_mid_game(sim: FirmwareSim, make_link: MakeLink) -> None:
    link = connect(sim, make_link)
    a = 1 << 3 | 1 << 30
    sim.set_occupancy(a, at=sim.granted + 50_000)
    collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == a for e in ev))
    boot = link.device.boot if link.device else None
    sim.restart()  # power cycle: the same cable, the firmware from boot
    b = a | 1 << D4
    sim.set_occupancy(b)
    sim.follow_real_time()
    got = collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == b for e in ev))
    assert set(distinct([f.occupied for f in frames(got)])) <= {0, a, b}
    wait_for(lambda: link.connected, what="the new session")
    s = link.stats()
    assert s.device_restarts == 1 and s.resyncs >= 1
    assert link.device is not None and link.device.boot != boot


def test_a_stuck_switch_is_reported_as_it_reads(sim: FirmwareSim, make_link: MakeLink) -> None:
    link = connect(sim, make_link)
    t = sim.granted + 50_000
    sim.set_stuck(D4, True, at=t)
    states = [1 << 3, 1 << 3 | 1 << 40, 1 << 40, 0]
    end = play(sim, states, {}, start_us=t)
    sim.set_stuck(D4, None, at=end + 100_000)
    got = collect(
        link, lambda ev: any(isinstance(e, Frame) and e.occupied == 0 and e.t > 0 for e in ev[3:])
    )
    readings = distinct([f.occupied for f in frames(got)])
    stuck = [r for r in readings if r & 1 << D4]
    # While stuck, d4 always reads occupied and the other squares still work
    # (no ghost); mended, it reads empty again.
    assert stuck == [s | 1 << D4 for s in [0, *states]]
    assert readings[-1] == 0


def test_a_chattering_switch_is_contained_and_counted(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    link = connect(sim, make_link)
    t = sim.granted + 50_000
    sim.set_chatter(D4, 3_000, at=t)  # d4 toggles every 3 ms for 0.6 s: 200 toggles
    sim.set_occupancy(1 << 5, at=t + 300_000)
    sim.set_chatter(D4, 0, at=t + 600_000)
    sim.set_occupancy(1 << 5 | 1 << 6, at=t + 700_000)
    got = collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == 0b1100000
                                       for e in ev))
    readings = distinct([f.occupied for f in frames(got)])
    # The other squares are read right, in order; the debouncer lets at most
    # a few of d4's toggles through (a sampling debouncer can alias with a
    # regular chatter: the reconciler's settling takes care of the rest),
    # and d4 ends as it really is.
    assert distinct([r & ~(1 << D4) for r in readings]) == [0, 1 << 5, 0b1100000]
    assert len(readings) < 40 and readings[-1] == 0b1100000
    # How many of the toggles the scan sees depends on how fast the
    # interpreter runs here (8 under a full test run's load, 10 and more
    # alone): counted on d4 and nowhere else; the count itself is
    # test_firmware_units.py's (a run of one pattern counted exactly once).
    dev = link.device_stats(timeout=5)
    assert dev is not None and dev.chatter[D4] >= 3 and sum(dev.chatter) == dev.chatter[D4]


def test_a_pico_rebooted_mid_game_reports_nothing_in_its_stock_wiring(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    # A board wired otherwise than the firmware's stock map: the host's
    # CONFIG carries the switch map.  The Pico reboots (a brown-out as the
    # LEDs light) and forgets it; a hand moving on the board in its first
    # second must not reach the host in the stock wiring (squares that no
    # one touched), only the board read afresh once the host configured it.
    wiring = [7 * (sq % 7) + sq // 7 for sq in range(49)]  # matrix turned a quarter
    sim.wire(wiring)
    link = connect(sim, make_link, switch_map=tuple(wiring))
    collect(link, lambda ev: bool(frames(ev)))
    sim.restart()
    sim.wire(wiring)
    b1, c1 = 1 << 1, 1 << 2
    sim.set_occupancy(b1, at=sim.granted + 30_000)
    sim.set_occupancy(b1 | c1, at=sim.granted + 60_000)  # event 1: the host expects it
    sim.follow_real_time()
    got = collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == b1 | c1
                                       for e in ev))
    time.sleep(0.3)
    while (extra := link.get(timeout=0.05)) is not None:
        got.append(extra)
    assert set(distinct([f.occupied for f in frames(got)])) <= {0, b1, b1 | c1}
    assert link.connected and link.stats().device_restarts == 1


def test_the_port_back_under_another_name_is_found_by_its_stable_name(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    # The person named the port as it was (/dev/ttyACM0); pulled out and
    # plugged back while the old name was still held, the Pico comes back
    # as another (/dev/ttyACM1), and something else may sit on the old one.
    # The stable name (/dev/serial/by-id/..., here the cable's symlink)
    # follows the board: the link reopens by it.
    stable = sim.cable.path
    old = os.path.realpath(stable)
    link = connect_url(sim, make_link, old, aliases=os.path.dirname(stable))
    a = 1 << D4
    sim.set_occupancy(a, at=sim.granted + 50_000)
    collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == a for e in ev))
    sim.cable.unplug()
    wait_for(lambda: not link.connected, what="the host to notice")
    held = []  # ptys taking the names up to the old one: the Pico comes back elsewhere
    try:
        for _ in range(64):
            held.append(os.openpty())
            if os.ttyname(held[-1][1]) == old:
                break
        sim.cable.plug()
        assert os.path.realpath(stable) != old
        b = a | 1 << 3
        sim.set_occupancy(b, at=sim.granted + 50_000)
        assert link.wait_connected(10), link.stats()
        collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == b for e in ev))
        assert link.problem() is None and link.stats().reconnects == 1
    finally:
        for fds in held:
            for fd in fds:
                os.close(fd)


def connect_url(sim: FirmwareSim, make_link: MakeLink, url: str, **kw: object) -> SerialLink:
    sim.follow_real_time()
    link = make_link(url, **kw)
    assert link.wait_connected(15), link.stats()
    return link
