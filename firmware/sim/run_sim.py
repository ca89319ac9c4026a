"""Runs the firmware in the MicroPython unix port with simulated hardware.

    micropython run_sim.py FLASH CTL_IN CTL_OUT START_US SIZE

FLASH is a folder laid out as the Pico's flash (main.py, app.py, ..,
protocol.py); CTL_IN and CTL_OUT are the control channel's paths (see
world.py); START_US is the virtual clock at boot; SIZE the board's side (the
first SIZE rows and columns of board.py's wiring are used).  The firmware's
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
import world  # noqa: E402

size = int(size)
board.ROW_PINS = tuple(board.ROW_PINS)[:size]
board.COL_PINS = tuple(board.COL_PINS)[:size]
board.LED_COUNT = size * size
w = world.World(
    open(ctl_in, "rb"), open(ctl_out, "wb"), board.ROW_PINS, board.BUTTON_ROW_PINS, board.COL_PINS
)
sim_machine.world = w
vtime.world = w

import app  # noqa: E402

fw = app.Firmware()


def pending():
    return len(fw.link.unacked) + (1 if fw.link.occ_dirty else 0)


w.probe = pending
fw.loop()
