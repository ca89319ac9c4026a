"""The Pico's wiring and the firmware's defaults (hardware.md, "Pico
wiring").  A builder with other wiring edits this file, nothing else.

GPIO numbers are the Pico's GPn.  The switch matrix has one row per rank
(row 0 under rank 1) and one column per file (column 0 under file a); each
reed switch has a series diode, cathode towards its row, so any number of
closed switches reads without ghosts.  Button rows share the columns:
column 0..6 = hint, exchange, undo, new, resign, draw, hajeb; a board with
fewer than seven columns adds button-only columns (BUTTON_COL_PINS).
"""

NAME = "kharbga-pico"
VERSION = (0, 3, 0)  # 0.2: the hajeb button (index 6), button-only columns;
# 0.3: the crossings with no point that read closed (NOTICE 3)

# Rows are driven one at a time (open drain: low selects, released otherwise).
ROW_PINS = (0, 1, 2, 3, 4, 5, 6)  # ranks 1..7
# Button rows: the shared set, the attacker's set, the defender's set (a
# builder without one of them writes None in its place).
BUTTON_ROW_PINS = (7, 8, 9)
# Columns are read with the internal pull-ups: low = switch closed.
COL_PINS = (10, 11, 12, 13, 14, 15, 16)  # files a..g
# Columns read on the button rows only, after COL_PINS: a board with
# fewer than seven columns wires its last buttons there (a 5x5 board on
# GP10..GP14 adds (15, 16) for draw and hajeb).
BUTTON_COL_PINS = ()
# A board that is not one square a crossing (the 37-point board on a 9x5
# matrix, the 8x8 board's dark squares on 8x4) lists the crossing
# (row * columns + column) under each of its points, in the order of the
# sensor log, 255 for a point with no switch; the host's handshake sends
# the same map.  None: point i is crossing i.
SWITCH_MAP = None

LED_PIN = 22  # WS2812 data in, through a 3.3 V -> 5 V level shifter
LED_COUNT = 49
LED_FIRST_RUN_REVERSED = False  # the chain starts at a1 and runs a1..g1
LED_SERPENTINE = True  # then g2..a2, a3..g3, ...
# Power budget: the sum of all channel values sent to the chain (a WS2812
# channel draws about 20 mA at 255).  Brighter frames are scaled down.
LED_SUM_LIMIT = 25500  # about 2 A

SCAN_US = 5000  # one scan of the matrix every 5 ms
DEBOUNCE_MS = 12  # a switch must read the same for this long
HEARTBEAT_MS = 1000  # occupancy heartbeat while nothing changes
IDLE_MS = 3000  # host silent this long: show the idle pattern
RETRY_MS = 150  # resend unacknowledged events after this long
QUEUE = 32  # unacknowledged events kept for resending
WATCHDOG_MS = 5000  # 0 disables the hardware watchdog
RX_BYTES_PER_LOOP = 512  # never spend a whole loop reading the host


def default_led_map(rows, cols, points=None):
    """The LED index under each square for the chain described above (on
    a board of ``points`` points other than ``rows * cols``: LED i under
    point i, until the host sends its map)."""
    if points is not None and points != rows * cols:
        return list(range(points))
    out = [0] * (rows * cols)
    i = 0
    for r in range(rows):
        files = list(range(cols))
        if LED_FIRST_RUN_REVERSED:
            files.reverse()
        if LED_SERPENTINE and r % 2:
            files.reverse()
        for f in files:
            out[r * cols + f] = i
            i += 1
    return out
