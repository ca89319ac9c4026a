"""A ``machine`` module for the firmware simulator: pins wired to the
simulated switch matrix (world.py), and a watchdog on the virtual clock.

Only what the firmware uses.  A pin driven low (OUT or OPEN_DRAIN, value 0)
selects its matrix row; an input pin that is a matrix column reads 0 when a
closed switch joins it to a selected row, else 1 through its pull-up (an
input without a pull-up floats: it reads 0 here, so a missing pull-up shows
as a board full of pieces).
"""

import vtime

world = None  # set by run_sim.py


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = Pin.IN
        self.pull = None
        self.v = 1
        self.col = world.column_of(id)
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.v = 1 if value else 0
        self._drive()

    def _drive(self):
        world.drive(self.id, self.mode != Pin.IN and self.v == 0)

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.IN:
                if self.col is not None and world.selected >> self.col & 1:
                    return 0
                return 1 if self.pull == Pin.PULL_UP else 0
            return self.v
        self.v = 1 if v else 0
        if self.mode != Pin.IN:
            world.drive(self.id, self.v == 0)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class WDT:
    def __init__(self, id=0, timeout=5000):
        world.watchdog(timeout * 1000)

    def feed(self):
        world.fed = vtime.now


def freq():
    return 125000000


def unique_id():
    return b"\x00\x00\x00\x00\x00\x00\x00\x01"


def reset():
    raise SystemExit(0)
