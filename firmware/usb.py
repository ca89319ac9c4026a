"""The USB serial port (CDC) to the Pi: MicroPython's stdin and stdout.

Never waits on the host: reading takes only the bytes already there (at
most ``limit`` per call) and writing is skipped when the port cannot take
more.  Ctrl-C (0x03) is an ordinary byte here, so the keyboard interrupt is
switched off while the firmware runs (``restore`` switches it back on).
"""

import select
import sys

try:
    import micropython
except ImportError:  # pragma: no cover - not on MicroPython
    micropython = None


class UsbSerial:
    def __init__(self, limit=512):
        self.rx = sys.stdin.buffer
        self.tx = sys.stdout.buffer
        self.limit = limit
        self.rx_poll = select.poll()
        self.rx_poll.register(sys.stdin, select.POLLIN)
        self.tx_poll = select.poll()
        self.tx_poll.register(sys.stdout, select.POLLOUT)
        if micropython is not None:
            micropython.kbd_intr(-1)

    def read(self):
        """The bytes waiting (possibly none)."""
        out = bytearray()
        poll = self.rx_poll.poll
        while len(out) < self.limit and poll(0):
            b = self.rx.read(1)
            if not b:
                break
            out += b
        return out

    def write(self, data):
        """Write ``data`` if the port can take it now; did it?"""
        if not self.tx_poll.poll(0):
            return False
        self.tx.write(data)
        return True

    def restore(self):
        if micropython is not None:
            micropython.kbd_intr(3)
