"""The sensor's latest reading, how long it has been shown, and what the
hands did since the board last read an action (who went missing first, and in
what order, where a piece was last set down, which squares were shown
occupied): the clues that tell apart explanations that leave the same
board, and the proof of a turn the next one followed before the board
settled."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from controller.board.events import Frame
from controller.board.geometry import points

from .turn import Clues

__all__ = ["BOUNCE", "Mismatch", "Readings"]

# A square back as it was within this long was the contact bouncing (a
# reed's chatter, a glitch of a few milliseconds), never a hand. The
# board's own drivers pass no change this short (the GPIO scanner wants 3
# scans in a row to agree, the Pico 12 ms: hardware.md); a raw sensor log
# may. The clues count a square's change once it has lasted this long,
# with the time it began.
BOUNCE = 0.01


@dataclass(slots=True)
class Readings:
    """The latest reading, its settling, and what the hands did since the
    board last read an action."""

    frame: Frame | None = None
    since: float = 0.0  # when the board began to show it
    settled: bool = True  # explained already (or nothing to explain)
    stale: bool = False  # a button made it old news: it waits for a change
    gone_at: dict[int, float] = field(default_factory=dict)  # when expected pieces went
    gone: int = 0
    landing: int = 0  # squares of the latest piece set down
    seen: int = 0  # squares shown occupied since the board last read an action
    # expected pieces shown gone since the board last read an action, and
    # when each first went
    went: dict[int, float] = field(default_factory=dict)
    filled: dict[int, float] = field(default_factory=dict)  # when each square last filled
    first: dict[int, float] = field(default_factory=dict)  # when each square first filled
    left: dict[int, float] = field(default_factory=dict)  # when each square last emptied
    unseen_since: float | None = None  # since when some square reads unknown, without a break
    # Squares changed less than BOUNCE ago: when, to occupied or not, and
    # whether an expected piece went (not yet in the clues).
    fresh: dict[int, tuple[float, bool, bool]] = field(default_factory=dict)
    before: Clues | None = None  # the clues the board last read an action with

    @property
    def occupied(self) -> int:
        return self.frame.occupied if self.frame is not None else 0

    def observe(self, frame: Frame, expected: int) -> bool:
        """A frame from the sensor; False if it shows the same reading.
        ``expected`` is the board the game expects (who went missing when
        tells who moved when two explanations leave the same board)."""
        if self.frame is not None and frame.same_reading(self.frame):
            return False
        gone = expected & ~frame.occupied
        for p in list(self.gone_at):
            if not gone >> p & 1:
                del self.gone_at[p]
        new = gone & ~self.gone
        while new:
            low = new & -new
            self.gone_at[low.bit_length() - 1] = frame.t
            new ^= low
        self.gone = gone
        self._count(frame.t)
        for p in points(frame.occupied ^ self.occupied):
            if self.fresh.pop(p, None) is None:  # else back within BOUNCE: a bounce
                self.fresh[p] = (frame.t, bool(frame.occupied >> p & 1), bool(gone >> p & 1))
        fresh = sum(1 << p for p in self.fresh)
        for p in points(gone & ~fresh):
            self.went.setdefault(p, frame.t)
        self.seen |= frame.occupied & ~fresh
        if not frame.unknown:
            self.unseen_since = None
        elif self.unseen_since is None:
            self.unseen_since = frame.t
        self.frame = frame
        self.since = frame.t
        self.settled = False
        self.stale = False
        return True

    def _count(self, now: float | None) -> None:
        """The changes that have lasted BOUNCE by ``now`` (None: all) into
        the clues, in the order they came."""
        due = sorted((t, p, on, went) for p, (t, on, went) in self.fresh.items()
                     if now is None or now - t >= BOUNCE)
        for t, p, on, went in due:
            del self.fresh[p]
            if went:
                self.went.setdefault(p, t)
            if on:
                set_down = self.filled.get(self.landing.bit_length() - 1) == t
                self.landing = (self.landing if set_down else 0) | 1 << p  # one frame's
                self.filled[p] = t
                self.first.setdefault(p, t)
                self.seen |= 1 << p
            else:
                self.left[p] = t

    def clues(self, expected: int, held: int) -> Clues:
        """The clues for explaining the reading now settling."""
        self._count(None)
        landed, self.landing = self.landing, 0
        times = {p: t for p, t in self.gone_at.items() if expected >> p & 1}
        first = min(times.values(), default=None)
        origin = sum(1 << p for p, t in times.items() if t == first)
        gone = tuple(sorted(times, key=lambda p: (times[p], p)))
        emptied = sum(1 << p for p in self.went)
        return Clues(origin, held, landed, self.seen, emptied, gone,
                     dict(self.went), dict(self.filled), dict(self.left), dict(self.first),
                     self.before)

    def restart(self, occupied: int, read: Clues | None = None) -> None:
        """The board read an action (with clues ``read``; None: an undo):
        what the hands did counts from here."""
        self.before = None if read is None else replace(read, before=None)
        self.seen = occupied
        self.went.clear()
        self.filled.clear()
        self.first.clear()
        self.left.clear()


@dataclass(slots=True)
class Mismatch:
    """A reading nothing explains: since when, the squares lit once it
    has lasted ``error_delay``, and those the undo button changed (told
    as taken back, not as errors of the players)."""

    since: float | None = None
    errors: int = 0
    undone: int = 0
    # A soldier of the side to move set down where it cannot go: its point
    # and the points it can go to (None: the reading is not that).
    misplaced: tuple[int, int] | None = None
    # A piece knocked off while an action was made: the one square lit.
    knocked: int = 0
    # A huffed soldier still standing, the move after the huff made: lit alone.
    huffed: int = 0
    # Captured soldiers off that, set back, make the reading a takeback (lit too).
    owed: int = 0

    def clear(self) -> None:
        self.since = None
        self.errors = 0
        self.undone = 0
        self.misplaced = None
        self.knocked = 0
        self.huffed = 0
        self.owed = 0
