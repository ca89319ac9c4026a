"""A virtual ``time`` module for the firmware simulator (installed as
``sys.modules["time"]`` by run_sim.py).

Virtual time moves only when the firmware sleeps, and never past the limit
the test grants (see world.py), so a simulated hour takes as long as the
firmware's work in it.  The ticks wrap like the Pico's (period 2**30).
"""

PERIOD = 1 << 30
MASK = PERIOD - 1
HALF = PERIOD // 2

now = 0  # virtual microseconds since the simulator's epoch
world = None  # set by run_sim.py: does the sleeping


def ticks_us():
    return now & MASK


def ticks_ms():
    return (now // 1000) & MASK


def ticks_cpu():
    return now & MASK


def ticks_diff(a, b):
    return ((a - b + HALF) & MASK) - HALF


def ticks_add(t, delta):
    return (t + delta) & MASK


def sleep_us(us):
    world.sleep(int(us))


def sleep_ms(ms):
    world.sleep(int(ms) * 1000)


def sleep(seconds):
    world.sleep(int(seconds * 1000000))


def time():
    return now // 1000000


def time_ns():
    return now * 1000
