"""Runs the firmware in the MicroPython unix port with simulated hardware.

    micropython run_sim.py FLASH CTL_IN CTL_OUT START_US SIZE [SWITCH_MAP]

FLASH is a folder laid out as the Pico's flash (main.py, app.py, ..,
protocol.py); CTL_IN and CTL_OUT are the control channel's paths (see
world.py); START_US is the virtual clock at boot; SIZE the board's side (the
first SIZE rows and columns of board.py's wiring are used), or ROWSxCOLS for
a matrix of another shape (rows and columns taken in turn from board.py's
rows and columns, then its button rows' pins are moved past them);
A board with fewer columns than buttons gets button-only columns
(BUTTON_COL_PINS: the stock columns it leaves free, or simulated ones).
SWITCH_MAP, when given, is board.py's SWITCH_MAP: the crossing under each
point, comma-separated (255 for a point with no switch).  The firmware's
USB serial port is this process's stdin and stdout, unchanged: whatever is
connected there (a pty, a socket) is the cable to the host.
"""

import sys

here = sys.argv[0].rsplit("/", 1)[0] if "/" in sys.argv[0] else "."
flash, ctl_in, ctl_out, start_us, size = sys.argv[1:6]
sys.path[:] = [flash, here]

import vtime  # noqa: E402

vtime.now = int(start_us)
sys.modules["time"] = vtime

import sim_machine  # noqa: E402
import sim_neopixel  # noqa: E402

sys.modules["machine"] = sim_machine
sys.modules["neopixel"] = sim_neopixel

import board  # noqa: E402
import protocol  # noqa: E402
import world  # noqa: E402

if "x" in size:
    nrows, ncols = (int(n) for n in size.split("x"))
else:
    nrows = ncols = int(size)
buttons = len(protocol.BUTTON_NAMES)  # the button rows need this many columns
if nrows <= len(board.ROW_PINS) and ncols <= len(board.COL_PINS):
    stock = tuple(board.COL_PINS)
    board.ROW_PINS = tuple(board.ROW_PINS)[:nrows]
    board.COL_PINS = stock[:ncols]
    board.BUTTON_COL_PINS = stock[ncols:buttons] + tuple(range(80, 80 + buttons - len(stock)))
else:  # simulated pins need no header: number them past the stock ones
    board.ROW_PINS = tuple(range(40, 40 + nrows))
    board.COL_PINS = tuple(range(60, 60 + ncols))
    board.BUTTON_COL_PINS = tuple(range(60 + ncols, 60 + buttons))
if len(sys.argv) > 6:
    board.SWITCH_MAP = [int(s) for s in sys.argv[6].split(",")]
    board.LED_COUNT = len([s for s in board.SWITCH_MAP if s != 255])  # one LED a sensed point
else:
    board.LED_COUNT = nrows * ncols
w = world.World(
    open(ctl_in, "rb"),
    open(ctl_out, "wb"),
    board.ROW_PINS,
    board.BUTTON_ROW_PINS,
    board.COL_PINS,
    board.BUTTON_COL_PINS,
)
if board.SWITCH_MAP is not None:
    w.switch_of = list(board.SWITCH_MAP)
    w.rebuild()
sim_machine.world = w
vtime.world = w

import app  # noqa: E402

fw = app.Firmware()


def pending():
    return len(fw.link.unacked) + (1 if fw.link.occ_dirty else 0)


w.probe = pending
fw.loop()
