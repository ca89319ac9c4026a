# Run by MicroPython (test_firmware_units.py): the firmware's own matrix.py
# on the simulated pins.  Prints one JSON result a line.
import json
import sys

firmware, sim = sys.argv[1], sys.argv[2]
sys.path[:] = [firmware, sim]
import vtime  # noqa: E402

sys.modules["time"] = vtime
import sim_machine  # noqa: E402

sys.modules["machine"] = sim_machine
import board  # noqa: E402
import world  # noqa: E402

w = world.World(None, None, board.ROW_PINS, board.BUTTON_ROW_PINS, board.COL_PINS)
sim_machine.world = w
from matrix import Debouncer, Matrix  # noqa: E402

rows = tuple(board.ROW_PINS) + tuple(board.BUTTON_ROW_PINS)
m = Matrix(rows, board.COL_PINS)


def scan(pieces, buttons=(0, 0, 0)):
    w.pieces = pieces
    w.buttons = list(buttons)
    w.rebuild()
    return list(m.scan())


corners = (1 << 0) | (1 << 6) | (1 << 24) | (1 << 42) | (1 << 48)
print(json.dumps({"corners": scan(corners)}))
print(json.dumps({"all_but_d4": scan(((1 << 49) - 1) & ~(1 << 24))}))
print(json.dumps({"resign_attacker": scan(0, (0, 1 << 4, 0))}))
print(json.dumps({"low_after_scan": len(w.low)}))

# Debouncing: scans every 5 ms, 12 ms debounce.
d = Debouncer(1, 7, 12000)
out = []
raw_at = {0: 0, 5000: 1, 10000: 1, 15000: 0, 20000: 1, 25000: 1, 30000: 1, 35000: 1, 40000: 1}
for t in sorted(raw_at):
    changed = d.update([raw_at[t]], t)
    if changed:
        out.append([t, d.stable[0], d.stamps[0]])
print(json.dumps({"debounce": out, "chatter": d.chatter[0]}))

d = Debouncer(1, 7, 0)
print(json.dumps({"zero": [d.update([5], 100), d.stable[0], d.stamps[0], d.flipped[0]]}))

d = Debouncer(2, 7, 12000)
d.update([1, 2], 0)
d.update([1, 2], 6000)
c = d.update([1, 2], 12000)
print(json.dumps({"two_rows": [c, d.stable, d.stamp(3)]}))

# Wrapping device time: the change is first read just before 2**32.
d = Debouncer(1, 7, 12000)
d.update([1], 0xFFFFF000)
c = d.update([1], (0xFFFFF000 + 13000) & 0xFFFFFFFF)
print(json.dumps({"wrap": [c, d.stamps[0]]}))

# A change still being debounced holds back the "known until" time.
d = Debouncer(2, 7, 12000)
d.update([0, 0], 0)
d.update([0, 4], 5000)  # first read at 5 ms, not yet confirmed
print(json.dumps({"settled": [d.settled_until(10000), d.settled_until(10000) <= 5000]}))
d.update([0, 4], 20000)  # confirmed
print(json.dumps({"settled_after": d.settled_until(25000)}))

# One scan late (a slow USB write): two changes confirmed together are
# stamped with the younger's first read.
d = Debouncer(1, 7, 12000)
d.update([0b01], 0)
d.update([0b11], 5000)
c = d.update([0b11], 40000)
print(json.dumps({"late": [c, d.stable[0], d.stamps[0]]}))
