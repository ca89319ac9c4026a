"""Reading the reed-switch matrix and debouncing it.

Rows are selected one at a time by driving them low (open drain, so an
unselected row floats and two rows never fight); columns are inputs with
pull-ups.  A closed switch (with its diode) pulls its column low only while
its row is selected.  A row of ``None`` (a button set not fitted) is skipped.
"""

from machine import Pin


class Matrix:
    def __init__(self, row_pins, col_pins):
        self.rows = [None if n is None else Pin(n, Pin.OPEN_DRAIN, value=1) for n in row_pins]
        self.cols = [Pin(n, Pin.IN, Pin.PULL_UP) for n in col_pins]
        self.raw = [0] * len(self.rows)

    def scan(self):
        """One bitmask per row, bit c set when the switch in column c is closed."""
        raw = self.raw
        cols = self.cols
        r = 0
        for row in self.rows:
            if row is not None:
                row.value(0)
                bits = 0
                bit = 1
                for col in cols:
                    if not col.value():
                        bits |= bit
                    bit <<= 1
                row.value(1)
                raw[r] = bits
            r += 1
        return raw

    def release(self):
        for row in self.rows:
            if row is not None:
                row.value(1)


class Debouncer:
    """A switch changes state once it has read the new state for
    ``debounce_us`` without a break.  The change is stamped with the time the
    new state was first read, so a report carries when the piece moved, not
    when the debouncing ended.  A run broken before it is long enough counts
    as chatter for that switch.

    Times are device microseconds mod 2**32.
    """

    def __init__(self, nrows, ncols, debounce_us):
        self.nrows = nrows
        self.ncols = ncols
        self.debounce_us = debounce_us
        self.stable = [0] * nrows
        self.pending = [0] * nrows
        self.since = [0] * (nrows * ncols)
        self.chatter = [0] * (nrows * ncols)
        self.flipped = [0] * nrows  # the bits each row changed in the last update
        self.stamps = [0] * nrows  # when each row's last change was first read

    def preset(self, raw):
        """Take a reading as the stable state (at boot)."""
        for r in range(self.nrows):
            self.stable[r] = raw[r]
            self.pending[r] = 0

    def update(self, raw, now):
        """Feed one scan; the bitmask of rows whose stable state changed.
        ``self.stamps[r]`` is then the latest first-read time among row r's
        changes."""
        changed = 0
        ncols = self.ncols
        since = self.since
        for r in range(self.nrows):
            diff = raw[r] ^ self.stable[r]
            pend = self.pending[r]
            if not (diff | pend):
                self.flipped[r] = 0
                continue
            base = r * ncols
            back = pend & ~diff  # went back before it was long enough
            if back:
                pend &= ~back
                c = 0
                while back:
                    if back & 1:
                        self.chatter[base + c] += 1
                    back >>= 1
                    c += 1
            new = diff & ~pend
            if new:
                pend |= new
                c = 0
                while new:
                    if new & 1:
                        since[base + c] = now
                    new >>= 1
                    c += 1
            confirm = 0
            youngest = -1
            m = pend
            c = 0
            while m:
                if m & 1:
                    age = (now - since[base + c]) & 0xFFFFFFFF
                    if age >= self.debounce_us:
                        confirm |= 1 << c
                        if youngest < 0 or age < youngest:
                            youngest = age
                m >>= 1
                c += 1
            self.flipped[r] = confirm
            if confirm:
                self.stable[r] ^= confirm
                self.stamps[r] = (now - youngest) & 0xFFFFFFFF
                pend &= ~confirm
                changed |= 1 << r
            self.pending[r] = pend
        return changed

    def settled_until(self, now):
        """The last moment the stable state is known to hold: ``now``, or
        the first read of a change still being debounced.  Heartbeats and
        full reports carry this time, so a change reported later never
        looks older than a reading sent before it."""
        oldest = 0
        ncols = self.ncols
        for r in range(self.nrows):
            m = self.pending[r]
            c = 0
            while m:
                if m & 1:
                    age = (now - self.since[r * ncols + c]) & 0xFFFFFFFF
                    if age > oldest:
                        oldest = age
                m >>= 1
                c += 1
        return (now - oldest) & 0xFFFFFFFF

    def stamp(self, rows):
        """The latest change time among the rows in the bitmask ``rows``."""
        best = None
        r = 0
        while rows:
            if rows & 1:
                t = self.stamps[r]
                if best is None or ((t - best) & 0xFFFFFFFF) < 0x80000000:
                    best = t
            rows >>= 1
            r += 1
        return best
