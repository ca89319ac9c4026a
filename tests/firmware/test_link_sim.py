"""The firmware (in MicroPython, on simulated switches) and the host driver
(pyserial on a pty) together: handshake, reports, buttons, LEDs, idle
pattern, maps, statistics."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from fw_helpers import FAST, collect, distinct, frames, is_idle_pattern, wait_for

from controller.board.events import Button, Frame
from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.serial_link import SerialLink

pytestmark = pytest.mark.timeout(120)  # a hung simulator fails, never hangs the run

MakeLink = Callable[..., SerialLink]
D4, B2 = 24, 8


def connect(sim: FirmwareSim, make_link: MakeLink, **kw: object) -> SerialLink:
    sim.follow_real_time()
    link = make_link(sim.cable.path, **kw)
    assert link.wait_connected(10), link.stats()
    return link


def test_handshake_reports_the_board_and_the_device(sim: FirmwareSim, make_link: MakeLink) -> None:
    sim.set_occupancy(0b1000001 | 1 << D4)
    link = connect(sim, make_link)
    want = 0b1000001 | 1 << D4
    got = frames(collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == want
                                              for e in ev)))
    # the full report first; at power-up the pieces show once debounced
    assert distinct([f.occupied for f in got]) in ([want], [0, want])
    dev = link.device
    assert dev is not None
    assert (dev.rows, dev.cols, dev.sides, dev.leds) == (7, 7, 0b111, 49)
    assert dev.firmware == "kharbga-pico" and dev.version == 1
    s = link.stats()
    assert s.connected and s.connects == 1 and s.checksum_failures == 0


def test_changes_and_presses_come_in_order_with_the_boards_times(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    # Device time as it is (the simulator's clock only follows the real one
    # roughly, so the host's own mapping is tested in test_serial_link.py).
    link = connect(sim, make_link, timebase=lambda us: us / 1e6)
    collect(link, lambda ev: len(ev) >= 1)
    t0 = sim.granted + 200_000
    sim.set_occupancy(1 << D4, at=t0)
    sim.set_button("attacker", "hint", True, at=t0 + 150_000)
    sim.set_button("attacker", "hint", False, at=t0 + 250_000)
    sim.set_occupancy(0, at=t0 + 400_000)
    sim.set_button(None, "new", True, at=t0 + 500_000)
    sim.set_button(None, "new", False, at=t0 + 600_000)
    got = collect(link, lambda ev: sum(isinstance(e, Button) for e in ev) == 2 and any(
        isinstance(e, Frame) and e.occupied == 0 for e in ev[-3:]))
    assert distinct([e.occupied for e in frames(got)]) == [0, 1 << D4, 0]
    presses = [e for e in got if isinstance(e, Button)]
    assert [(b.button, b.side) for b in presses] == [("hint", "attacker"), ("new", None)]
    first_d4 = next(f for f in frames(got) if f.occupied)
    gone = next(f for f in frames(got) if f.t > first_d4.t and not f.occupied)
    # Stamped when the switch changed, on the board's clock: the intervals
    # are the simulated ones, whatever the link's delays.
    assert first_d4.t == t0 / 1e6
    assert presses[0].t - first_d4.t == pytest.approx(0.150)
    assert gone.t - first_d4.t == pytest.approx(0.400)
    assert presses[1].t - first_d4.t == pytest.approx(0.500)
    times = [e.t for e in got]
    assert times == sorted(times)


def chain(sim: FirmwareSim, until: Callable[[bytes], bool]) -> bytes:
    deadline = time.monotonic() + 10
    while True:
        _, rgb = sim.leds()
        if until(rgb) or time.monotonic() > deadline:
            return rgb
        time.sleep(0.01)


def test_led_frames_go_through_the_default_serpentine(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    link = connect(sim, make_link)
    colours = [(sq, 100 - sq, 7) for sq in range(49)]
    link.send_leds(colours)
    rgb = chain(sim, lambda b: b[2] == 7)
    led = [tuple(rgb[3 * i : 3 * i + 3]) for i in range(49)]
    assert led[0] == colours[0]  # a1 first
    assert led[6] == colours[6]  # g1
    assert led[7] == colours[13]  # then back along rank 2: g2
    assert led[12] == colours[B2]
    assert led[13] == colours[7]  # a2
    assert led[14] == colours[14]  # a3


def test_an_led_map_from_the_host_is_used(sim: FirmwareSim, make_link: MakeLink) -> None:
    led_map = [49 - sq for sq in range(49)]  # LED 0 is a spare before the board
    link = connect(sim, make_link, led_count=50, led_map=led_map)
    link.send_leds([(sq, 1, 2) for sq in range(49)])
    rgb = chain(sim, lambda b: len(b) == 150 and b[-1] == 2)
    assert len(rgb) == 150 and rgb[:3] == b"\x00\x00\x00"
    assert all(tuple(rgb[3 * (49 - sq) : 3 * (49 - sq) + 3]) == (sq, 1, 2) for sq in range(49))


def test_bright_frames_are_kept_within_the_power_budget(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    link = connect(sim, make_link)
    link.send_leds([(255, 255, 255)] * 49)
    rgb = chain(sim, lambda b: max(b) > 50)
    assert sum(rgb) <= 25500 and max(rgb) >= 160  # scaled, not blanked


def test_idle_pattern_and_never_blocking_without_a_host(micropython: str) -> None:
    sim = FirmwareSim(micropython=micropython)
    try:
        sim.start()
        sim.run(30_000_000)  # 30 s with nobody reading the port: never blocked
        now, _ = sim.sync()
        assert now == 30_000_000
        _, a = sim.leds()
        sim.run(30_120_000)
        sim.sync()
        writes, b = sim.leds()
        assert is_idle_pattern(a) and is_idle_pattern(b) and a != b  # it moves
        assert writes > 200
        assert sim.returncode is None
    finally:
        sim.close()


def test_the_idle_pattern_gives_way_to_the_host_and_comes_back(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    link = connect(sim, make_link)
    link.send_leds([(9, 0, 0)] * 49)
    assert chain(sim, lambda b: b[0] == 9)[0] == 9
    link.close()
    # FAST.idle is 1 s: then the firmware shows its idle pattern again
    assert FAST.idle == 1.0
    assert is_idle_pattern(chain(sim, is_idle_pattern))
    # A host again (one that has sent no frame yet): the last frame is back.
    make_link(sim.cable.path).wait_connected(10)
    assert chain(sim, lambda b: b[0] == 9) == bytes((9, 0, 0)) * 49


def test_a_switch_map_puts_squares_right_whatever_the_wiring(
    sim: FirmwareSim, make_link: MakeLink
) -> None:
    wiring = [(7 * (sq % 7) + sq // 7) for sq in range(49)]  # matrix turned a quarter
    sim.wire(wiring)
    sim.set_occupancy(1 << B2 | 1 << 1)
    link = connect(sim, make_link, switch_map=wiring)
    want = 1 << B2 | 1 << 1
    got = frames(collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == want
                                              for e in ev), timeout=3))
    assert distinct([f.occupied for f in got]) in ([want], [0, want])


def test_device_statistics_for_doctor(sim: FirmwareSim, make_link: MakeLink) -> None:
    link = connect(sim, make_link)
    time.sleep(0.3)
    stats = link.device_stats(timeout=5)
    assert stats is not None
    c = stats.counters
    assert c["scans"] >= 40 and c["rx_frames"] >= 3 and c["resets"] >= 1  # one per HELLO nonce
    assert c["rx_errors"] == 0 and c["errors"] == 0 and len(stats.chatter) == 49


def test_stop_returns_the_pico_to_its_repl(sim: FirmwareSim, make_link: MakeLink) -> None:
    link = connect(sim, make_link)
    assert link.stop_device()
    wait_for(lambda: sim.returncode is not None, what="the firmware to stop")
    assert sim.returncode == 0
