"""A ``neopixel`` module for the firmware simulator: keeps the chain's
buffer (GRB, as the real driver sends it) and the last frame written."""

chains = []  # every NeoPixel made, the newest last
failing = False  # writes raise OSError (a broken data line), set by the world


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.shown = bytes(n * bpp)
        self.writes = 0
        chains.append(self)

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        off = i * self.bpp
        for k in range(self.bpp):
            self.buf[off + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        off = i * self.bpp
        return tuple(self.buf[off + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        if failing:
            raise OSError(5)
        self.shown = bytes(self.buf)
        self.writes += 1

    def rgb(self):
        """The last frame written, as R, G, B bytes per LED."""
        out = bytearray(3 * self.n)
        s = self.shown
        for i in range(self.n):
            out[3 * i] = s[3 * i + 1]
            out[3 * i + 1] = s[3 * i]
            out[3 * i + 2] = s[3 * i + 2]
        return bytes(out)
