"""The device's clock on the host: the firmware stamps each report with
its own microsecond counter (32 bits, wrapping every 71 minutes), which
the serial link maps onto the host's clock."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Clock", "HostTimebase", "Timebase", "Unwrap"]

Clock = Callable[[], float]
Timebase = Callable[[int], float]


class Unwrap:
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


class HostTimebase:
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
