"""The board controller's main loop (run from main.py at boot).

Every ``SCAN_US`` the loop: reads what the host sent, scans the matrix,
debounces it, reports changes and button presses, resends what the host
has not acknowledged, sends a heartbeat when one is due, and shows the
host's LED frame, or the idle pattern while the host is silent.  Nothing in
it waits for the host.  An error inside one pass is reported to the host
(NOTICE) and the loop goes on; the watchdog resets the Pico if a pass ever
hangs.
"""

import time

import board
import protocol as P
from leds import Leds
from link import Link
from matrix import Debouncer, Matrix
from usb import UsbSerial

try:
    import machine
except ImportError:  # pragma: no cover
    machine = None


class Clock:
    """Device time: microseconds mod 2**32 from the wrapping ``ticks_us``."""

    def __init__(self):
        self.last = time.ticks_us()
        self.now = self.last
        self.elapsed_us = 0

    def read(self):
        t = time.ticks_us()
        d = time.ticks_diff(t, self.last)
        self.now = (self.now + d) & 0xFFFFFFFF
        self.elapsed_us += d
        self.last = t
        return self.now


class Firmware:
    def __init__(self, port=None):
        self.clock = Clock()
        self.board_rows = len(board.ROW_PINS)
        self.cols = len(board.COL_PINS)
        self.switches = self.board_rows * self.cols
        self.switch_map = board.SWITCH_MAP  # the crossing under each point (None: the same)
        self.squares = self.switches if self.switch_map is None else len(self.switch_map)
        rows = tuple(board.ROW_PINS) + tuple(board.BUTTON_ROW_PINS)
        cols = tuple(board.COL_PINS) + tuple(getattr(board, "BUTTON_COL_PINS", ()))
        self.all_cols = len(cols)  # the board's columns, then the button-only ones
        self.board_mask = (1 << self.cols) - 1
        self.matrix = Matrix(rows, cols)
        self.debouncer = Debouncer(len(rows), self.all_cols, board.DEBOUNCE_MS * 1000)
        self.debouncer.preset(self.matrix.scan())
        self.sides = 0
        for k in range(len(board.BUTTON_ROW_PINS)):
            if board.BUTTON_ROW_PINS[k] is not None:
                self.sides |= 1 << k
        self.led_map = board.default_led_map(self.board_rows, self.cols, self.squares)
        self.leds = Leds(
            board.LED_PIN, board.LED_COUNT, self.led_map, self.cols, board.LED_SUM_LIMIT
        )
        self.port = port if port is not None else UsbSerial(board.RX_BYTES_PER_LOOP)
        self.link = Link(self.port, board.QUEUE, board.RETRY_MS * 1000)
        self.heartbeat_us = board.HEARTBEAT_MS * 1000
        self.idle_us = board.IDLE_MS * 1000
        self.boot = int.from_bytes(_random4(), "little")
        now = self.clock.read()
        self.last_beat = now
        self.last_change = now
        self.scans = 0
        self.loop_max_us = 0
        self.errors = 0
        self.stopped = False
        self.silent = True
        self.wdt = None
        if board.WATCHDOG_MS and machine is not None and hasattr(machine, "WDT"):
            self.wdt = machine.WDT(timeout=board.WATCHDOG_MS)

    # -- the loop --------------------------------------------------------------

    def loop(self):
        try:
            while not self.stopped:
                t0 = time.ticks_us()
                try:
                    self.step()
                except Exception as exc:  # keep scanning whatever happens
                    self.errors += 1
                    self.link.send(P.NOTICE, P.pack_notice(P.NOTICE_ERROR, repr(exc)))
                spent = time.ticks_diff(time.ticks_us(), t0)
                if spent > self.loop_max_us:
                    self.loop_max_us = spent
                if self.wdt is not None:
                    self.wdt.feed()
                wait = board.SCAN_US - spent
                if wait > 0:
                    time.sleep_us(wait)
        finally:
            self.matrix.release()
            self.port.restore()

    def step(self):
        now = self.clock.read()
        for kind, seq, payload in self.link.receive(now):
            self.handle(kind, seq, payload, now)
        raw = self.matrix.scan()
        self.scans += 1
        changed = self.debouncer.update(raw, now)
        if changed:
            self.report(changed, now)
        silent = self.link.host_silent(now, self.idle_us)
        if self.silent and not silent:  # the host is back: its frame, not the idle one
            if self.leds.frame is not None:
                self.leds.show(self.leds.frame)
            else:
                self.leds.off()
        self.silent = silent
        if self.link.occ_dirty and self.link.room():
            self.link.occ_dirty = False
            self.send_occupancy(self.last_change, 0, now)
        self.link.service(now, silent)
        if (now - self.last_beat) & 0xFFFFFFFF >= self.heartbeat_us:
            self.last_beat = now
            link = self.link
            state = P.STATE_IDLE if silent else 0
            if link.overflowed:
                state |= P.STATE_OVERFLOW
                link.overflowed = False
            session = 0
            if link.nonce is None:
                state |= P.STATE_NO_SESSION
            else:
                session = link.nonce & 0xFFFF
            closed = self.closed_without_point()
            if closed:  # the frames carry points only: these never reach them
                link.send(P.NOTICE, P.pack_notice(P.NOTICE_NO_POINT, closed))
            bits = self.occupancy()
            at = self.debouncer.settled_until(now)
            beat = P.pack_heartbeat(at, link.next_seq, state, session, bits, self.squares)
            link.send(P.HEARTBEAT, beat)
        if silent:
            self.leds.idle(now)

    # -- the board ---------------------------------------------------------------

    def occupancy(self):
        """The debounced board as square bits (bit i = square i)."""
        stable = self.debouncer.stable
        cols = self.cols
        switches = 0
        mask = self.board_mask
        for r in range(self.board_rows - 1, -1, -1):
            switches = (switches << cols) | (stable[r] & mask)
        if self.switch_map is None:
            return switches
        bits = 0
        sq = 0
        for s in self.switch_map:
            if switches >> s & 1:
                bits |= 1 << sq
            sq += 1
        return bits

    def closed_without_point(self):
        """The crossings with no point over them that read closed (the
        matrix wired for another board, or a shorted diode), as their
        numbers spaced; "" for none."""
        if self.switch_map is None:
            return ""
        stable = self.debouncer.stable
        out = []
        for r in range(self.board_rows):
            bits = stable[r] & self.board_mask
            s = r * self.cols
            while bits:
                if bits & 1 and s not in self.switch_map:
                    out.append(str(s))
                bits >>= 1
                s += 1
        return " ".join(out)

    def switch_chatter(self):
        """The debouncer's chatter counts of the board's crossings, row by
        row (the button-only columns left out)."""
        chatter = self.debouncer.chatter
        extra = self.all_cols - self.cols
        if not extra:
            return chatter
        out = []
        for r in range(self.board_rows):
            base = r * self.all_cols
            out.extend(chatter[base : base + self.cols])
        return out

    def report(self, changed, now):
        """Send the changes of one scan, the earliest first."""
        out = []
        board_rows = changed & ((1 << self.board_rows) - 1)
        if board_rows:
            self.last_change = self.debouncer.stamp(board_rows)
            out.append((self.last_change, -1, 0))
        stable = self.debouncer.stable
        flipped = self.debouncer.flipped
        for k in range(len(board.BUTTON_ROW_PINS)):
            r = self.board_rows + k
            if changed >> r & 1:
                pressed = flipped[r] & stable[r]  # just closed: a press
                for c in range(len(P.BUTTON_NAMES)):
                    if pressed >> c & 1:
                        out.append((self.debouncer.stamps[r], c, k))
        if len(out) > 1:
            out.sort(key=lambda e: (now - e[0]) & 0xFFFFFFFF, reverse=True)
        for stamp, button, side in out:
            if button < 0:
                self.send_occupancy(stamp, 0, now)
            else:
                self.link.send_event(P.BUTTON, P.pack_button(stamp, button, side), now)

    def send_occupancy(self, stamp, flags, now):
        payload = P.pack_occ(stamp, flags, self.occupancy(), self.squares)
        if not self.link.send_event(P.OCC, payload, now):
            self.link.occ_dirty = True

    # -- the host's messages -------------------------------------------------------

    def handle(self, kind, seq, payload, now):
        try:
            self._handle(kind, seq, payload, now)
        except ValueError as exc:  # ProtocolError: a message we cannot use
            self.link.rx_bad += 1
            self.link.send(P.NOTICE, P.pack_notice(P.NOTICE_CONFIG, str(exc)))

    def _handle(self, kind, seq, payload, now):
        link = self.link
        if kind == P.HELLO:
            _version, nonce = P.parse_hello(payload)
            link.new_session(nonce)
            ack = P.pack_hello_ack(
                nonce,
                self.boot,
                now,
                self.board_rows,
                self.cols,
                self.sides,
                self.leds.count,
                link.next_seq,
                board.VERSION,
                board.NAME,
            )
            link.send(P.HELLO_ACK, ack)
        elif kind == P.CONFIG:
            hb, idle, deb, retry, count, led_map, switch_map = P.parse_config(
                payload, self.squares, self.switches
            )
            self.heartbeat_us = hb * 1000
            self.idle_us = idle * 1000
            self.debouncer.debounce_us = deb * 1000
            link.retry_us = retry * 1000
            if led_map is not None:
                self.led_map = led_map
                self.leds.configure(count, led_map)
            if switch_map is not None or self.squares == self.switches:
                self.switch_map = switch_map
            link.send(P.ACK, P.pack_ack(kind), seq)
        elif kind == P.SYNC:
            self.send_occupancy(self.debouncer.settled_until(now), P.OCC_FULL, now)
        elif kind == P.LEDS:
            self.leds.show(P.parse_leds(payload, self.squares))
            link.send(P.ACK, P.pack_ack(kind), seq)
        elif kind == P.STATS_REQ:
            counters = (
                self.clock.elapsed_us // 1000,
                link.deframer.frames,
                link.rx_errors(),
                link.tx_frames,
                link.tx_retransmits,
                link.tx_dropped,
                self.scans,
                self.loop_max_us,
                link.resets,
                self.errors,
            )
            chatter = self.switch_chatter()
            if self.switch_map is None:
                chatter = chatter[: self.squares]
            else:  # per point, as the occupancy
                chatter = [chatter[s] if s < self.switches else 0 for s in self.switch_map]
            link.send(P.STATS, P.pack_stats(counters, chatter))
        elif kind == P.STOP:
            link.send(P.ACK, P.pack_ack(kind), seq)
            self.stopped = True
        else:
            link.rx_bad += 1


def _random4():
    try:
        import os

        return os.urandom(4)
    except (ImportError, AttributeError):  # pragma: no cover
        return time.ticks_us().to_bytes(4, "little")


NO_START = "no_start"  # left by STOP: the next boot goes to the REPL instead


def run():
    """Run until the host sends STOP.  The watchdog cannot be stopped once
    started, so STOP leaves a marker and resets the Pico; the next boot sees
    the marker, removes it and stays at the REPL (without a watchdog) for
    maintenance.  The boot after that runs the firmware again."""
    import os

    try:
        os.remove(NO_START)
        return
    except OSError:
        pass
    fw = Firmware()
    fw.loop()
    if fw.stopped and fw.wdt is not None:
        with open(NO_START, "w") as f:
            f.write("STOP from the host\n")
        time.sleep_ms(50)  # let the ACK go out
        machine.reset()
