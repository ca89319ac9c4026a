"""The simulated world around the firmware: the reed switches and buttons
under the board, and the test's hand on the virtual clock.

The test drives it over a control channel (two pipes), one command a line:

``ev T occ BITS``          at virtual time T (us) the squares in BITS
                            (bit i = square i) hold a piece
``ev T btn SIDE BUTTON D``  at T the button is pressed (D=1) or released (0)
``ev T stuck SQ V``        at T square SQ's switch is stuck closed (V=1),
                            stuck open (0) or works again (-1)
``ev T chatter SQ HALF``   at T square SQ's switch starts toggling every
                            HALF us over what it should read (0: stops)
``ev T ledfail V``         from T the LED chain's writes fail (V=1: raise
                            OSError, as a broken data line) or work (0)
``wire S0,S1,..``          square i's switch is matrix switch Si
                            (row * cols + column, 255: none); default:
                            square i = switch i
``run T``                  let virtual time run up to T; T equal to the
                            current time runs one more pass of the loop
``sync``                   reply ``at NOW PENDING`` (events the firmware
                            holds unacknowledged)
``leds``                   reply ``leds WRITES HEX`` (the chain's last frame)
``quit``                   stop

Events must come in time order.  Virtual time stops at each event's time,
so the firmware scans exactly then; otherwise it moves as the firmware
sleeps.  While the granted time is used up the simulator waits for the
next command: the firmware cannot run ahead of the test.
"""

import sys

import vtime

try:
    import ubinascii as binascii
except ImportError:  # pragma: no cover
    import binascii


class World:
    def __init__(self, ctl_in, ctl_out, row_pins, button_row_pins, col_pins, button_col_pins=()):
        self.ctl_in = ctl_in
        self.ctl_out = ctl_out
        self.rows = len(row_pins)
        self.cols = len(col_pins)
        self.row_of = {}
        r = 0
        for pin in tuple(row_pins) + tuple(button_row_pins):
            if pin is not None:
                self.row_of[pin] = r
            r += 1
        self.col_of = {}
        cols = tuple(col_pins) + tuple(button_col_pins)  # button-only ones last
        for c in range(len(cols)):
            self.col_of[cols[c]] = c
        self.nrows = r
        self.masks = [0] * r  # closed switches per row, chatter aside
        self.low = []  # matrix rows driven low now
        self.selected = 0  # columns pulled low by the selected rows
        self.pieces = 0
        self.buttons = [0] * len(button_row_pins)
        self.stuck = {}
        self.chatter = {}
        self.switch_of = list(range(self.rows * self.cols))
        self.limit = vtime.now
        self.step_once = False
        self.events = []
        self.next_event = 0
        self.probe = None  # the firmware, for ``sync``
        self.wdt_us = 0
        self.fed = vtime.now
        self.rebuild()

    # -- the pins' view --------------------------------------------------------

    def column_of(self, pin):
        return self.col_of.get(pin)

    def drive(self, pin, low):
        r = self.row_of.get(pin)
        if r is None:
            return
        if low and r not in self.low:
            self.low.append(r)
        elif not low and r in self.low:
            self.low.remove(r)
        sel = 0
        for r in self.low:
            sel |= self.row_mask(r)
        self.selected = sel

    def row_mask(self, r):
        mask = self.masks[r]
        if self.chatter and r < self.rows:
            for sq in self.chatter:
                s = self.switch_of[sq]
                on = (vtime.now // self.chatter[sq]) & 1
                if on and s < self.rows * self.cols and s // self.cols == r:
                    mask ^= 1 << (s % self.cols)
        return mask

    def rebuild(self):
        masks = [0] * self.nrows
        cols = self.cols
        crossings = self.rows * cols
        for sq in range(len(self.switch_of)):
            closed = self.pieces >> sq & 1
            if sq in self.stuck:
                closed = self.stuck[sq]
            s = self.switch_of[sq]
            if closed and s < crossings:
                masks[s // cols] |= 1 << (s % cols)
        for k in range(len(self.buttons)):
            masks[self.rows + k] = self.buttons[k]
        self.masks = masks

    # -- the clock ---------------------------------------------------------------

    def watchdog(self, timeout_us):
        self.wdt_us = timeout_us
        self.fed = vtime.now

    def sleep(self, us):
        while vtime.now >= self.limit and not self.step_once:
            self.command()
        if self.step_once:
            self.step_once = False
        else:
            target = vtime.now + max(us, 0)
            if target > self.limit:
                target = self.limit
            if self.next_event < len(self.events):
                t = self.events[self.next_event][0]
                if t < target:
                    target = t if t > vtime.now else vtime.now
            if self.wdt_us and target - self.fed > self.wdt_us:
                sys.stderr.write("sim: watchdog reset at " + str(target) + " us\n")
                sys.exit(3)
            vtime.now = target
        self.apply_due()

    def apply_due(self):
        changed = False
        events = self.events
        while self.next_event < len(events) and events[self.next_event][0] <= vtime.now:
            self.apply(events[self.next_event][1])
            self.next_event += 1
            changed = True
        if self.next_event > 256:
            del events[: self.next_event]
            self.next_event = 0
        if changed:
            self.rebuild()

    def apply(self, words):
        what = words[0]
        if what == "occ":
            self.pieces = int(words[1])
        elif what == "btn":
            side, button, down = int(words[1]), int(words[2]), int(words[3])
            if down:
                self.buttons[side] |= 1 << button
            else:
                self.buttons[side] &= ~(1 << button)
        elif what == "stuck":
            sq, v = int(words[1]), int(words[2])
            if v < 0:
                self.stuck.pop(sq, None)
            else:
                self.stuck[sq] = v
        elif what == "chatter":
            sq, half = int(words[1]), int(words[2])
            if half <= 0:
                self.chatter.pop(sq, None)
            else:
                self.chatter[sq] = half
        elif what == "ledfail":
            import sim_neopixel

            sim_neopixel.failing = bool(int(words[1]))
        else:
            raise ValueError("unknown event " + what)

    # -- the control channel -----------------------------------------------------

    def reply(self, text):
        self.ctl_out.write((text + "\n").encode())

    def command(self):
        line = self.ctl_in.readline()
        if not line:
            raise SystemExit(0)  # the test has gone
        words = line.decode().split()
        if not words:
            return
        what = words[0]
        if what == "ev":
            t = int(words[1])
            last = self.events[-1][0] if self.next_event < len(self.events) else vtime.now
            if t < last:
                raise ValueError("events out of time order")
            self.events.append((t, words[2:]))
            if t <= vtime.now:
                self.apply_due()
        elif what == "run":
            t = int(words[1])
            if t == vtime.now:
                self.step_once = True
            elif t > vtime.now:
                self.limit = t
        elif what == "sync":
            pending = self.probe() if self.probe is not None else 0
            self.reply("at " + str(vtime.now) + " " + str(pending))
        elif what == "leds":
            import sim_neopixel

            chain = sim_neopixel.chains[-1] if sim_neopixel.chains else None
            if chain is None:
                self.reply("leds 0 -")
            else:
                hexed = binascii.hexlify(chain.rgb()).decode() or "-"
                self.reply("leds " + str(chain.writes) + " " + hexed)
        elif what == "wire":
            self.switch_of = [int(w) for w in words[1].split(",")]
            self.rebuild()
        elif what == "quit":
            raise SystemExit(0)
        else:
            raise ValueError("unknown command " + what)
