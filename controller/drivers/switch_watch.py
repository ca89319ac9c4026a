"""Watching the matrix's switches for faults while it scans.

The scanner hands every scan to a :class:`SwitchWatch`, which logs (logger
``controller.drivers.switch_watch``) one line when a fault starts and one
when it ends:

- **chattering**: a switch whose raw reading changes in ``chatter_bursts``
  bursts or more within ``window`` seconds (a worn reed, a magnet at the
  edge of its range, a wobbling piece); changes less than ``burst``
  seconds after the start of a burst belong to it, so the contact bounce
  of a piece set down or lifted counts once, and a person's hand never
  makes enough.  It has ended once the switch keeps still for ``window``
  seconds;
- **stuck**: a switch whose settled reading disagrees with the board its
  user expects (:meth:`SwitchWatch.expect`: the game's board, or an empty
  board during a check) for ``stuck_after`` seconds: closed where no piece
  should stand (welded contacts) or open under a piece (a switch that no
  longer closes).  Without an expectation nothing is called stuck: a reed
  welded shut reads exactly like a piece; nor is a stuck switch called
  mended (a piece in the hand leaves the board unknown), until the
  expected board is known again and agrees;
- **closed under no point** (:class:`NoPoint`): a switch at a crossing
  the board has no point over (8 of the 37-point board's 9x5 matrix)
  that reads closed for ``no_point_after`` seconds.  No piece can close
  it, so it is said whatever the board expected: the matrix is wired for
  another board (a 7x7 board's, whose 14 pins the 37-point board's stock
  pins are) or a diode is shorted.  Such a switch is not also called
  stuck.  It has ended once the switch reads open.

:meth:`SwitchWatch.problem` says the faults there are now in words, for
the page.

Switches are bits ``row * size + column`` and are named by ``label``
(``"r2c3 (c3)"``).

A board read through a microcontroller (the Pico's serial link) reports
only its debounced readings, as frames of points: :class:`PointWatch`
feeds them to a :class:`SwitchWatch` as both its raw and its settled
reading.  Stuck switches are called as on the GPIO board.  The
frames carry only the points: the firmware names the crossings with no
point that read closed in a NOTICE before each heartbeat
(:meth:`PointWatch.see_no_point`), so one is said after
``no_point_after`` seconds too (up to a heartbeat more).  Chattering
is called only when it passes the device's debouncing (runs of 12 ms or
more, changing in six bursts within a second, as on GPIO); the bounces the
firmware rejects never reach the host (``doctor --serial`` counts them
on the device).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from controller.board.words import a, place

from .layout import BOARDS
from .mapping import BoardMapping

__all__ = ["NoPoint", "PointWatch", "SwitchWatch", "WatchSettings"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WatchSettings:
    """When a switch is called chattering or stuck."""

    chatter_bursts: int = 6  # bursts of raw changes within the window
    window: float = 1.0  # seconds
    burst: float = 0.15  # seconds: changes this soon after a burst began are bounce
    stuck_after: float = 10.0  # seconds of disagreement with the expected board
    no_point_after: float = 1.0  # seconds a crossing with no point reads closed

    def __post_init__(self) -> None:
        if self.chatter_bursts < 2:
            raise ValueError(f"chatter_bursts must be 2 or more, not {self.chatter_bursts}")
        if (self.window <= 0 or self.stuck_after <= 0 or self.no_point_after <= 0
                or self.burst < 0):
            raise ValueError("window, stuck_after and no_point_after must be positive, "
                             "burst not negative")


@dataclass(frozen=True)
class NoPoint:
    """The crossings of a matrix with no point over them (bitmask, bit
    ``row * columns + column``), and the words for one read closed."""

    crossings: int
    name: Callable[[int], str]  # a switch by its crossing: "r1c0"
    board: str  # "37-point"
    noun: str  # "point"
    guess: str = ""  # the other board's matrix read as this one, if any

    @classmethod
    def of(cls, mapping: BoardMapping) -> NoPoint | None:
        """The mapping's crossings with no point; None when it has none."""
        crossings = sum(1 << i for i in range(mapping.switch_count)
                        if mapping.square_of_switch_index(i) < 0)
        if not crossings:
            return None
        shape = (mapping.rows, mapping.columns)
        guess = ""
        for board in BOARDS:  # a stock matrix on as many pins: read as this one
            other = BoardMapping.for_board(board)
            if board != mapping.board and (other.rows + other.columns == sum(shape)
                                           and (other.rows, other.columns) != shape):
                guess = (f"{a(f'{other.rows}x{other.columns}')} matrix read as the "
                         f"{mapping.board} board's {shape[0]}x{shape[1]}?")
                break
        return cls(crossings, mapping.switch_label, mapping.board, place(mapping.board), guess)

    def words(self, closed: int) -> str:
        """What the crossings ``closed`` (with no point) read closed mean."""
        names = [self.name(i) for i in _bits(closed)]
        which = (f"switch {names[0]} closes" if len(names) == 1 else
                 f"switches {', '.join(names[:-1])} and {names[-1]} close")
        guess = f" ({self.guess})" if self.guess else ""
        return (f"{which} where the {self.board} board has no {self.noun}: the matrix "
                f"seems wired for another board{guess} or a diode is shorted "
                "(hardware.md, \"The leap games' boards\")")


def _held(since: dict[int, float], now_on: int, now: float,
          after: float) -> list[tuple[int, float]]:
    """The switches of ``now_on`` that have been so for ``after`` seconds,
    with how long: ``since`` keeps when each became so, and forgets those
    no longer in ``now_on``."""
    for switch in list(since):
        if not now_on >> switch & 1:
            del since[switch]
    held = [(switch, now - since.setdefault(switch, now)) for switch in _bits(now_on)]
    return [(switch, t) for switch, t in held if t >= after]


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class SwitchWatch:
    """Chattering and stuck switches, from the raw and settled readings."""

    def __init__(self, label: Callable[[int], str], settings: WatchSettings | None = None,
                 noun: str = "square", no_point: NoPoint | None = None) -> None:
        self.label = label
        self.no_point = no_point  # the crossings no piece can close
        self.noun = noun  # what the board's places are called: "point" on the 37-point board
        self.settings = settings or WatchSettings()
        self.chattering = 0  # switches chattering now (bitmask)
        self.stuck = 0  # switches stuck now (bitmask)
        self.miswired = 0  # switches with no point over them read closed now (bitmask)
        self._closed_since: dict[int, float] = {}  # switch with no point -> closed since
        self._raw: int | None = None
        self._bursts: dict[int, deque[float]] = {}  # switch -> when its last bursts began
        self._last_change: dict[int, float] = {}
        self._expected: int | None = None  # switches that should be closed
        self._wrong_since: dict[int, float] = {}
        self._settled = 0  # the last debounced reading
        # update() runs on the scanning thread, expect() and problem() on the
        # service's: one at a time (never held over a pin or the port).
        self._lock = threading.Lock()

    @property
    def expected(self) -> int | None:
        """The switches that should be closed now (None: no expectation)."""
        return self._expected

    def expect(self, closed: int | None) -> None:
        """The switches that should be closed now (None: no expectation)."""
        with self._lock:
            self._expected = closed
            if closed is None:
                self._wrong_since.clear()

    def update(self, now: float, raw: int, settled: int | None, every: bool = True) -> None:
        """One scan: the raw reading and the debounced one (None until known);
        ``every``: of every crossing (False: of the points' only, as a
        Pico's frames, whose crossings with no point come to
        :meth:`see_no_point`)."""
        with self._lock:
            if self._raw is not None and raw != self._raw:
                self._count_changes(now, raw ^ self._raw)
            self._raw = raw
            if self.chattering:
                self._end_chatter(now)
            if settled is not None:
                self._settled = settled
                if every:
                    self._check_no_point(now, settled)
                if self._expected is not None:
                    self._check_stuck(now, settled, self._expected)

    def see_no_point(self, now: float, closed: int) -> None:
        """The switches with no point over them that read closed at ``now``
        (a board whose frames carry only its points: the Pico's)."""
        with self._lock:
            self._check_no_point(now, closed)

    def problem(self, most: int = 3) -> str | None:
        """The stuck and chattering switches now, in words (naming ``most``
        of them); None when there are none."""
        with self._lock:
            return self._problem(most)

    def _problem(self, most: int) -> str | None:
        wiring = None
        if self.miswired and self.no_point is not None:
            wiring = self.no_point.words(self.miswired)
        said = []
        for switch in _bits(self.stuck):
            if self._settled >> switch & 1:
                said.append(f"switch {self.label(switch)} reads closed where no piece "
                            f"should stand: if the {self.noun} is empty, the reed switch "
                            "is stuck")
            else:
                said.append(f"switch {self.label(switch)} reads open under a piece: "
                            "if a piece stands there, the switch no longer closes")
        for switch in _bits(self.chattering & ~self.stuck):
            said.append(f"switch {self.label(switch)} is chattering (a worn reed, or a "
                        "magnet at the edge of its range)")
        if not said:
            return wiring
        more = f"; and {len(said) - most} more" if len(said) > most else ""
        switches = "; ".join(said[:most]) + more + " (kharbga-board doctor checks every switch)"
        return switches if wiring is None else f"{wiring}; {switches}"

    def _check_no_point(self, now: float, closed: int) -> None:
        if self.no_point is None:
            return
        closed &= self.no_point.crossings
        for switch in _bits(self.miswired & ~closed):
            self.miswired &= ~(1 << switch)
            log.info("switch %s, under no %s, reads open again", self.no_point.name(switch),
                     self.no_point.noun)
        for switch, held in _held(self._closed_since, closed & ~self.miswired, now,
                                  self.settings.no_point_after):
            self.miswired |= 1 << switch
            log.warning("%s (read closed for %.1f s)", self.no_point.words(1 << switch), held)

    def _count_changes(self, now: float, changed: int) -> None:
        s = self.settings
        for switch in _bits(changed):
            self._last_change[switch] = now
            times = self._bursts.setdefault(switch, deque(maxlen=s.chatter_bursts))
            if times and now - times[-1] < s.burst:
                continue  # bounce within the burst
            times.append(now)
            bit = 1 << switch
            if (
                not self.chattering & bit
                and len(times) == s.chatter_bursts
                and now - times[0] <= s.window
            ):
                self.chattering |= bit
                log.warning(
                    "switch %s is chattering: %d bursts of changes in %.2f s",
                    self.label(switch), len(times), now - times[0],
                )

    def _end_chatter(self, now: float) -> None:
        for switch in _bits(self.chattering):
            if now - self._last_change[switch] >= self.settings.window:
                self.chattering &= ~(1 << switch)
                log.info("switch %s has stopped chattering", self.label(switch))

    def _check_stuck(self, now: float, settled: int, expected: int) -> None:
        wrong = settled ^ expected
        if self.no_point is not None:  # said as such (_check_no_point), not as stuck
            wrong &= ~self.no_point.crossings
        for switch in _bits(self.stuck & ~wrong):
            self.stuck &= ~(1 << switch)
            log.info("switch %s reads as expected again", self.label(switch))
        for switch, held in _held(self._wrong_since, wrong & ~self.stuck, now,
                                  self.settings.stuck_after):
            self.stuck |= 1 << switch
            closed = bool(settled >> switch & 1)
            log.warning(
                "switch %s is stuck %s: it has read %s for %.1f s where %s",
                self.label(switch),
                "closed" if closed else "open",
                "closed" if closed else "open",
                held,
                "no piece should stand" if closed else "a piece should stand",
            )


class PointWatch:
    """A :class:`SwitchWatch` over a board's debounced frames of points
    (bit i = point i, the sensor log's order), on the switches ``mapping``
    puts under them, named as on the GPIO board (``"r3c3 (d4)"``).

    :meth:`see` is called on the reader's thread, :meth:`expect` and
    :meth:`problem` on the service's (the watch's lock keeps them apart)."""

    def __init__(self, mapping: BoardMapping, settings: WatchSettings | None = None) -> None:
        self.mapping = mapping
        self.switches = SwitchWatch(mapping.switch_and_point, settings, place(mapping.board),
                                    NoPoint.of(mapping))

    def see(self, now: float, occupied: int) -> None:
        """A frame: the points read occupied at ``now``."""
        closed = self.mapping.squares_to_switches(occupied)
        self.switches.update(now, closed, closed, every=False)

    def see_no_point(self, now: float, closed: int) -> None:
        """The crossings with no point over them that read closed at ``now``
        (bitmask of switches: the firmware's NOTICE before a heartbeat)."""
        self.switches.see_no_point(now, closed)

    def expect(self, occupied: int | None) -> None:
        """The points that should hold a piece now (None: unknown)."""
        m = self.mapping
        self.switches.expect(None if occupied is None else m.squares_to_switches(occupied))

    def problem(self) -> str | None:
        """The switches closed under no point, stuck or chattering now, in
        words (None: none)."""
        return self.switches.problem()
