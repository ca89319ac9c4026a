"""The WS2812 chain under the board.

The host sends colours in square order; the LED map (from the handshake, or
board.py's default) says which LED of the chain lies under each square
(255: none).  Frames brighter than the power budget are scaled down.  When
the host is silent the chain shows the idle pattern: a dim blue diagonal
wave that moves one step every 120 ms.
"""

import neopixel
from machine import Pin

NO_LED = 255
IDLE_STEP_US = 120000
IDLE_PERIOD = 6  # the wave repeats every 6 diagonals
IDLE_LEVELS = (24, 10, 3, 0, 0, 0)


class Leds:
    def __init__(self, pin, count, led_map, cols, sum_limit):
        self.pin = Pin(pin, Pin.OUT)
        self.cols = cols
        self.sum_limit = sum_limit
        self.np = None
        self.count = 0
        self.led_map = led_map
        self.frame = None  # the host's last frame (square order, RGB bytes)
        self.idle_step = -1
        self.configure(count, led_map)

    def configure(self, count, led_map):
        if count != self.count or self.np is None:
            self.np = neopixel.NeoPixel(self.pin, count)
            self.count = count
        self.led_map = led_map
        if self.frame is not None:
            self.show(self.frame)

    def show(self, rgb):
        """Show a host frame: 3 bytes per square, in square order."""
        self.frame = rgb
        self.idle_step = -1
        total = 0
        for v in rgb:
            total += v
        scale = 0
        if total > self.sum_limit:
            scale = (self.sum_limit << 8) // total
        np = self.np
        np.fill((0, 0, 0))
        i = 0
        for led in self.led_map:
            if led != NO_LED and led < self.count:
                r, g, b = rgb[i], rgb[i + 1], rgb[i + 2]
                if scale:
                    r, g, b = (r * scale) >> 8, (g * scale) >> 8, (b * scale) >> 8
                np[led] = (r, g, b)
            i += 3
        np.write()

    def idle(self, now):
        """Advance the idle pattern if its next step is due."""
        step = (now // IDLE_STEP_US) % IDLE_PERIOD
        if step == self.idle_step:
            return
        self.idle_step = step
        np = self.np
        np.fill((0, 0, 0))
        cols = self.cols
        for sq in range(len(self.led_map)):
            led = self.led_map[sq]
            if led == NO_LED or led >= self.count:
                continue
            level = IDLE_LEVELS[(sq // cols + sq % cols - step) % IDLE_PERIOD]
            if level:
                np[led] = (0, 0, level)
        np.write()

    def off(self):
        self.np.fill((0, 0, 0))
        self.np.write()
