"""``kharbga-board replay --via firmware``: a sensor log through the firmware.

:func:`firmware_events` is the event source: the log's occupancy frames and
button presses set the simulated switches of a :class:`~controller.drivers.
firmware_sim.FirmwareSim` at the log's times (on its virtual clock), the
real firmware scans and debounces them and reports over the link (on the
log's board: its stock matrix and switch map, sent in the handshake), and
:class:`~controller.drivers.serial_link.SerialLink` delivers them, stamped
with the firmware's clock mapped back onto the log's times.  What the link
delivers is what the live service would receive;
:func:`controller.reconcile.replay.replay_events` feeds it to the
reconciler.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from controller.board.sensorlog import (
    Button,
    Event,
    Frame,
    read_occupancy_log,
)

from .firmware_sim import FirmwareSim, FirmwareSimError
from .mapping import BoardMapping
from .serial_link import LinkSettings, SerialLink

__all__ = ["firmware_events"]

BOOT_US = 1_000_000  # log time 0 is this far into the firmware's virtual time
STEP_US = 100_000  # virtual time granted at most at once (below the retry time)
PRESS_US = 60_000  # how long a simulated finger holds a button
TAIL_US = 300_000  # virtual time run after the log's last line
ACK_WAIT = 20.0  # wall seconds the host may take to acknowledge a report
IDLE_US = 90_000_000  # a pause kept of a longer one where the board does not change


class _Pauses:
    """The log's long pauses, shortened for the firmware: where the board
    stands unchanged for more than :data:`IDLE_US` (longer than any
    settle or error delay), the firmware runs only the first ``IDLE_US``
    of it (it would scan and send heartbeats through the rest: an hour's
    pause took minutes, a day's never ended), and the times it reports
    after are moved on by what was cut, so the reconciler reads the log's
    own times."""

    def __init__(self, times: list[int]) -> None:
        """``times``: the virtual times of the board's changes, in order."""
        self.after: list[int] = []  # a change after a long pause, on the log's clock
        self.short: list[int] = []  # the same, as the firmware runs it
        self.cut: list[int] = []  # the time cut up to it
        cut = 0
        for before, after in zip(times, times[1:], strict=False):
            if after - before > IDLE_US:
                cut += after - before - IDLE_US
                self.after.append(after)
                self.short.append(after - cut)
                self.cut.append(cut)

    def shorten(self, t: int) -> int:
        """A change's time as the firmware runs it."""
        i = bisect_right(self.after, t)
        return t - (self.cut[i - 1] if i else 0)

    def restore(self, us: int) -> int:
        """A time the firmware reports, on the log's clock."""
        i = bisect_right(self.short, us)
        return us + (self.cut[i - 1] if i else 0)


class _Change(NamedTuple):
    """One change of the simulated board at a virtual time."""

    t: int
    order: int
    occupied: int | None  # the squares with a piece, or None for a button
    side: str | None = None
    button: str = ""
    down: bool = False

    def send(self, sim: FirmwareSim) -> None:
        if self.occupied is not None:
            sim.set_occupancy(self.occupied, at=self.t)
        else:
            sim.set_button(self.side, self.button, self.down, at=self.t)


def _world_events(events: list[Frame | Button]) -> list[_Change]:
    """The changes of the simulated board, in time order."""
    out: list[_Change] = []
    last_occ: int | None = None
    for n, ev in enumerate(events):
        t = BOOT_US + round(ev.t * 1e6)
        if isinstance(ev, Frame):
            if ev.occupied != last_occ:
                out.append(_Change(t, 2 * n, ev.occupied))
                last_occ = ev.occupied
        else:
            out.append(_Change(t, 2 * n, None, ev.side, ev.button, True))
            out.append(_Change(t + PRESS_US, 2 * n + 1, None, ev.side, ev.button, False))
    out.sort(key=lambda e: (e.t, e.order))
    return out


def firmware_events(
    lines: Iterable[str],
    *,
    micropython: str | None = None,
    timeout: float = 600.0,
    mapping: BoardMapping | Callable[[str], BoardMapping] | None = None,
) -> Iterator[Event]:
    """The events the firmware and the serial link deliver for an occupancy
    log: its header first (before anything starts), then frames and presses.

    :class:`LogError` for an unusable log (a colour log among them: the
    firmware reads occupancy switches only); :class:`FirmwareSimError` (an
    OSError) if MicroPython is missing, the firmware fails, or the whole
    replay takes more than ``timeout`` wall seconds.  ``mapping``: how the
    simulated board is wired (the log's board's stock mapping by default;
    a function of the log's board, a configuration file's for it;
    ``ConfigError`` before the header if it is for another board).
    """
    header, events = read_occupancy_log(
        lines, "through the firmware, which reads occupancy switches only")
    if callable(mapping):
        mapping = mapping(header.board)
    mapping = BoardMapping.for_log(header.board, mapping)
    yield header
    yield from _run(events, mapping, micropython, timeout)


def _run(
    events: list[Frame | Button], mapping: BoardMapping, micropython: str | None,
    timeout: float,
) -> Iterator[Frame | Button]:
    """Start the firmware, connect, play the log's changes; yield what the
    link delivers; refuse a replay over a link that was not clean."""
    world = _world_events(events)
    end_us = BOOT_US + (round(events[-1].t * 1e6) if events else 0) + TAIL_US
    end_us = max(end_us, world[-1].t + TAIL_US if world else 0)
    pauses = _Pauses([BOOT_US] + [e.t for e in world] + [end_us])
    world = [e._replace(t=pauses.shorten(e.t)) for e in world]
    end_us = pauses.shorten(end_us)
    with FirmwareSim(size=mapping.size, micropython=micropython, mapping=mapping) as sim:
        # The board stands as the log's first frame shows it from the start,
        # not empty until that frame's time (an empty reading the log never
        # showed would be a cleared board: a new game).
        first = next((e for e in events if isinstance(e, Frame)), None)
        if first is not None:
            sim.set_occupancy(first.occupied)
        driver = _Driver(sim, mapping, time.monotonic() + timeout, timeout, pauses)
        with driver.link:
            driver.handshake()
            yield from driver.play(world, end_us)
            stats = driver.link.stats()
    if stats.checksum_failures or stats.out_of_order:
        raise FirmwareSimError(f"the link was not clean during the replay: {stats}")


class _Driver:
    """Virtual time granted to the firmware step by step, and the link's
    deliveries collected between steps."""

    def __init__(
        self, sim: FirmwareSim, mapping: BoardMapping, deadline: float, timeout: float,
        pauses: _Pauses,
    ) -> None:
        self.sim = sim
        self.deadline = deadline
        self.timeout = timeout
        self.now = 0  # the firmware's virtual time, µs
        settings = LinkSettings.for_mapping(
            mapping,
            device_timeout=3600.0,
            read_timeout=0.005,
            reconnect_delay=0.05,
            request_retry=0.2,
        )
        self.link = SerialLink(
            sim.cable.path,
            settings,
            clock=lambda: self.now / 1e6,
            timebase=lambda us: (pauses.restore(us) - BOOT_US) / 1e6,
        )

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise FirmwareSimError(f"replay through the firmware took over {self.timeout:g} s")

    def handshake(self) -> None:
        """Boot and handshake, before the log's time 0."""
        link, sim = self.link, self.sim
        while not link.connected:
            self.check_time()
            if self.now >= BOOT_US - 2 * STEP_US:
                raise FirmwareSimError(
                    "the firmware did not finish the handshake: " + link.stats().last_error
                )
            sim.run(self.now + 10_000)
            self.now, _ = sim.sync()
            link.wait_connected(0.005)

    def advance(self, target: int, pending: int) -> None:
        """Run the firmware to ``target``; then let the host acknowledge
        every report before time moves on, so the firmware never resends
        or overflows for want of time."""
        sim = self.sim
        if target > self.now or pending:
            sim.run(target)
            self.now, pending = sim.sync()
        stuck_at = time.monotonic() + ACK_WAIT
        spins = 0
        while pending:
            self.check_time()
            if time.monotonic() > stuck_at:
                raise FirmwareSimError(
                    f"the host stopped acknowledging the firmware's reports: {self.link.stats()}"
                )
            spins += 1
            time.sleep(0.0002 if spins < 20 else 0.002)
            sim.run(self.now)
            self.now, pending = sim.sync()

    def delivered(self) -> Iterator[Frame | Button]:
        """What the link has delivered so far (the board before the log
        began left out)."""
        while True:
            ev = self.link.get(timeout=0)
            if ev is None:
                return
            if ev.t >= 0:
                yield ev

    def play(self, world: list[_Change], end_us: int) -> Iterator[Frame | Button]:
        i = 0
        while True:
            self.check_time()
            nxt = world[i].t if i < len(world) else end_us
            target = max(self.now, min(nxt, self.now + STEP_US, end_us))
            while i < len(world) and world[i].t <= target:
                world[i].send(self.sim)
                i += 1
            self.advance(target, 0)
            yield from self.delivered()
            if self.now >= end_us and i >= len(world):
                break
        yield from self.delivered()
