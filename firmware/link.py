"""The device's end of the session with the host (hardware.md, "The serial protocol").

Events (occupancy changes, button presses) are numbered and kept until the
host acknowledges them; unacknowledged ones are sent again, all of them in
order, ``retry_us`` after the last sending (go-back-N).  A HELLO with a new
nonce starts a new session: numbering restarts at 0 and old events are
dropped (the host then asks for a full report).  A HELLO with the current
nonce (a duplicate) is answered again without resetting anything.

The queue holds at most ``queue`` events.  When it is full an occupancy
change is not queued but marked, and the board as it then is goes out as
soon as there is room (intermediate readings are lost, the final one is
not); a button press is dropped.  Both are counted.  Before the first
HELLO after boot no event is sent at all (only heartbeats, which say
NO_SESSION).
"""

import protocol as P


class Link:
    def __init__(self, port, queue, retry_us):
        self.port = port
        self.deframer = P.Deframer()
        self.queue = queue
        self.retry_us = retry_us
        self.next_seq = 0
        self.unacked = []  # [seq, wire bytes]
        self.sent_at = 0
        self.now = 0
        self.nonce = None
        self.host_seen = None  # device time of the last good host message
        self.occ_dirty = False
        self.overflowed = False
        self.rx_bad = 0
        self.tx_frames = 0
        self.tx_retransmits = 0
        self.tx_dropped = 0
        self.resets = 0

    # -- receiving -----------------------------------------------------------

    def receive(self, now):
        """Host messages ``(type, seq, payload)`` waiting, acks handled here."""
        self.now = now
        data = self.port.read()
        if not data:
            return ()
        out = []
        for kind, seq, payload in self.deframer.feed(data):
            if kind < 0x80:  # our own kind of message: an echo, not the host
                self.rx_bad += 1
                continue
            self.host_seen = now
            if kind == P.HOST_ACK:
                self._acked(seq)
            else:
                out.append((kind, seq, payload))
        return out

    def _acked(self, next_expected):
        # Drop every queued event before next_expected (mod 256).
        if not self.unacked:
            return
        keep = []
        for item in self.unacked:
            if P.seq_after(item[0], next_expected):
                keep.append(item)
        if len(keep) != len(self.unacked):
            self.sent_at = self.now  # progress: give the rest a full retry time
        self.unacked = keep

    def rx_errors(self):
        return self.deframer.errors() + self.rx_bad

    def host_silent(self, now, idle_us):
        return self.host_seen is None or (now - self.host_seen) & 0xFFFFFFFF >= idle_us

    def new_session(self, nonce):
        """A HELLO: is it a new session (else a repeated HELLO)?"""
        if nonce == self.nonce:
            return False
        self.nonce = nonce
        self.next_seq = 0
        self.unacked = []
        self.occ_dirty = False
        self.resets += 1
        return True

    # -- sending -------------------------------------------------------------

    def send(self, kind, payload, seq=0):
        """An unnumbered message; dropped if the port is busy."""
        if self.port.write(P.encode(kind, seq, payload)):
            self.tx_frames += 1
            return True
        self.tx_dropped += 1
        return False

    def room(self):
        return len(self.unacked) < self.queue

    def send_event(self, kind, payload, now):
        """A numbered event; False if the queue is full (nothing sent).
        Without a session (no HELLO since boot) there is no host to number
        events for: nothing is sent.  A host that has not noticed the
        reboot yet would take them in the stock switch map, not the one its
        CONFIG will bring; after the handshake its SYNC reads the board."""
        if self.nonce is None:
            return True
        if not self.room():
            self.overflowed = True
            self.tx_dropped += 1
            return False
        seq = self.next_seq
        self.next_seq = (seq + 1) & 0xFF
        wire = P.encode(kind, seq, payload)
        if not self.unacked:
            self.sent_at = now
        self.unacked.append([seq, wire])
        if self.port.write(wire):
            self.tx_frames += 1
        return True

    def service(self, now, host_silent):
        """Resend unacknowledged events when their time has come."""
        if not self.unacked or host_silent:
            return
        if (now - self.sent_at) & 0xFFFFFFFF < self.retry_us:
            return
        self.sent_at = now
        for item in self.unacked:
            if not self.port.write(item[1]):
                break
            self.tx_retransmits += 1
            self.tx_frames += 1
