"""The scanner logs chattering switches, and switches stuck against the
board it is told to expect: one line when the fault starts, one when it
ends (simulated matrix on MockFactory pins, scans on a virtual clock)."""

from __future__ import annotations

import logging
import sys
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.gpio_matrix import MatrixConfig, MatrixScanner
from controller.drivers.mapping import BoardMapping
from controller.drivers.matrix_sim import MatrixSimulator
from controller.drivers.switch_watch import PointWatch, WatchSettings

CONFIG = MatrixConfig(scan_hz=100, debounce_scans=3)
LOGGER = "controller.drivers.switch_watch"


def make(factory: MockFactory, settings: WatchSettings) -> tuple[MatrixSimulator, MatrixScanner]:
    mapping = BoardMapping()
    sim = MatrixSimulator(factory, CONFIG, mapping)
    return sim, MatrixScanner(CONFIG, mapping, pin_factory=factory, watch=settings)


def said(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER]


def test_a_switch_stuck_closed_on_an_empty_board_is_logged_once_and_its_repair_too(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    sim, scanner = make(factory, WatchSettings(stuck_after=2.0))
    caplog.set_level(logging.INFO, logger=LOGGER)
    with scanner:
        scanner.expect(0)  # the board should be empty
        sim.stick(2, 3)
        for n in range(190):  # 1.9 s: not yet
            scanner.scan(n / 100)
        assert said(caplog) == []
        for n in range(190, 400):
            scanner.scan(n / 100)
        assert said(caplog) == [
            (logging.WARNING, "switch r2c3 (d3) is stuck closed: it has read closed for 2.0 s "
                              "where no piece should stand"),
        ]
        assert scanner.watch.stuck == 1 << (2 * 7 + 3)
        sim.stick(2, 3, False)
        for n in range(400, 410):
            scanner.scan(n / 100)
    assert said(caplog)[1:] == [(logging.INFO, "switch r2c3 (d3) reads as expected again")]
    assert scanner.watch.stuck == 0


def test_a_lifted_piece_is_not_stuck_before_its_time_and_without_expectation_never(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    sim, scanner = make(factory, WatchSettings(stuck_after=2.0))
    caplog.set_level(logging.INFO, logger=LOGGER)
    with scanner:
        sim.set_occupied(1 << 10)  # nothing expected: a piece is a piece
        for n in range(500):
            scanner.scan(n / 100)
        scanner.expect(1 << 10)
        sim.set_occupied(0)  # lifted for 1.5 s, then put back
        for n in range(500, 650):
            scanner.scan(n / 100)
        sim.set_occupied(1 << 10)
        for n in range(650, 900):
            scanner.scan(n / 100)
    assert said(caplog) == []


def test_a_chattering_switch_is_logged_when_it_starts_and_stops(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    sim, scanner = make(factory, WatchSettings(chatter_bursts=6, window=1.0, burst=0.15))
    caplog.set_level(logging.INFO, logger=LOGGER)
    with scanner:
        for n in range(100):  # toggles every 4 scans for a second
            sim.set_switch(4, 0, n // 4 % 2 == 1)
            scanner.scan(n / 100)
        assert said(caplog) == [
            (logging.WARNING, "switch r4c0 (a5) is chattering: 6 bursts of changes in 0.80 s"),
        ]
        for n in range(100, 250):  # still for 1.5 s
            scanner.scan(n / 100)
    assert said(caplog)[1:] == [(logging.INFO, "switch r4c0 (a5) has stopped chattering")]


def test_bad_watch_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="chatter_bursts"):
        WatchSettings(chatter_bursts=1)
    with pytest.raises(ValueError, match="positive"):
        WatchSettings(stuck_after=0)


def test_a_welded_switch_stays_stuck_while_a_piece_is_in_the_hand(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """No expectation (a piece lifted) is no news: the welded switch is not
    called mended each time, and the page keeps its words."""
    sim, scanner = make(factory, WatchSettings(stuck_after=2.0))
    caplog.set_level(logging.INFO, logger=LOGGER)
    with scanner:
        sim.stick(3, 3)  # d4 welded shut
        t = 0
        for _ in range(3):  # three moves: 3 s with the board known, 1 s lifted
            scanner.expect(0)
            for _ in range(300):
                scanner.scan(t / 100)
                t += 1
            scanner.expect(None)
            for _ in range(100):
                scanner.scan(t / 100)
                t += 1
        assert [level for level, _ in said(caplog)] == [logging.WARNING]
        words = scanner.fault()
        assert words is not None and words.startswith(
            "switch r3c3 (d4) reads closed where no piece should stand")
        sim.stick(3, 3, False)  # mended: said once the board is known again
        scanner.expect(0)
        for _ in range(10):
            scanner.scan(t / 100)
            t += 1
    assert said(caplog)[-1] == (logging.INFO, "switch r3c3 (d4) reads as expected again")
    assert scanner.fault() is None


def test_a_piece_out_of_place_while_another_was_in_the_hand_is_not_a_stuck_switch(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # Before: when a switch first read wrong was kept through a spell with no
    # expectation (a piece in the hand), so a piece still out of place when
    # the board was known again was logged stuck at once, not after 2 s.
    sim, scanner = make(factory, WatchSettings(stuck_after=2.0))
    caplog.set_level(logging.INFO, logger=LOGGER)
    with scanner:
        scanner.expect(0)  # the board should be empty
        sim.set_occupied(1 << 10)  # a piece set down there, out of place
        for n in range(50):
            scanner.scan(n / 100)
        scanner.expect(None)  # another piece taken up: in the hand for 30 s
        for n in range(50, 3050):
            scanner.scan(n / 100)
        scanner.expect(0)  # put down: the board is known again
        for n in range(3050, 3150):  # the piece out of place stays 1 s more
            scanner.scan(n / 100)
        assert scanner.fault() is None
        sim.set_occupied(0)  # and is taken off
        for n in range(3150, 3200):
            scanner.scan(n / 100)
    assert said(caplog) == []


def test_the_page_words_name_chattering_and_open_switches(factory: MockFactory) -> None:
    sim, scanner = make(factory, WatchSettings(stuck_after=1.0))
    with scanner:
        scanner.expect(1 << 0)  # a piece should stand on a1; its switch never closes
        for n in range(150):
            sim.set_switch(4, 0, n // 4 % 2 == 1)  # a5 chatters meanwhile
            scanner.scan(n / 100)
        words = scanner.fault()
    assert words is not None
    assert "switch r0c0 (a1) reads open under a piece" in words
    assert "switch r4c0 (a5) is chattering" in words
    assert words.endswith("(kharbga-board doctor checks every switch)")


def test_the_board_told_what_to_expect_while_it_scans_is_never_a_read_failure(
    factory: MockFactory,
) -> None:
    # The service tells the scanner the board to expect (its thread) while
    # the scanner scans (its own).  Before, an expectation dropped between
    # the watch's check and its use raised on the scanning thread (an
    # AssertionError, or a KeyError), and the page said "the switch matrix
    # cannot be read" for that pass.
    sim, scanner = make(factory, WatchSettings(stuck_after=0.001))
    sim.set_occupied(0b1010)
    errors: list[str] = []
    stop = threading.Event()

    def scanning() -> None:
        t = 0.0
        try:
            while not stop.is_set():
                t += 0.01
                scanner.scan(t)
                scanner.fault()
        except Exception as exc:  # noqa: BLE001 - the failure the test is for
            errors.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns as often as they can
    thread = threading.Thread(target=scanning)
    thread.start()
    try:
        end = time.monotonic() + 1.5
        while time.monotonic() < end and not errors:
            scanner.expect(0b0101)
            scanner.expect(None)
            scanner.fault()
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    assert errors == []


def test_a_welded_reed_of_the_37_point_board_is_under_a_point(factory: MockFactory) -> None:
    # The GPIO scanner and the Pico board's watch (PointWatch) name the
    # place as the board does: a point on the 37-point board.
    mapping = BoardMapping.for_board("37-point")
    config = MatrixConfig.stock(mapping)
    sim = MatrixSimulator(factory, config, mapping)
    c5 = mapping.parse("c5")
    row, column = mapping.switch_of_square(c5)
    with MatrixScanner(config, mapping, pin_factory=factory,
                       watch=WatchSettings(stuck_after=1.0)) as scanner:
        scanner.expect(0)
        sim.stick(row, column)
        for n in range(150):
            scanner.scan(n / 100)
        words = scanner.fault()
    closed = ("switch r4c2 (c5) reads closed where no piece should stand: if the point is "
              "empty, the reed switch is stuck")
    assert words is not None and words.startswith(closed), words
    watch = PointWatch(mapping, WatchSettings(stuck_after=1.0))
    watch.expect(0)
    for n in range(150):
        watch.see(n / 100, 1 << c5)
    assert (watch.problem() or "").startswith(closed)


LEAP = "(hardware.md, \"The leap games' boards\")"
NO_POINT = ("closes where the 37-point board has no point: the matrix seems wired for another "
            "board (a 7x7 matrix read as the 37-point board's 9x5?) or a diode is shorted " + LEAP)


def test_a_7x7_matrix_read_as_the_37_point_board_is_said_by_a_switch_under_no_point(
    factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # A configuration naming neither pins nor board: the 37-point board's
    # stock pins are the 7x7 board's 14, its 9 rows the 7x7 board's 7 and
    # its files a and b.  A 7x7 piece on files c..g lands on the 9x5
    # reading; on c2 that is r1c0, a crossing with no point (a2).  Said
    # after a second, with nothing expected; before, never (the frames
    # leave that crossing out) or, against an expected board, after 10 s
    # as a stuck reed under "no point".
    mapping = BoardMapping.for_board("37-point")
    config = MatrixConfig.stock(mapping)
    assert sorted(config.pins) == sorted(MatrixConfig().pins)
    sim = MatrixSimulator(factory, MatrixConfig(), BoardMapping())  # wired as the 7x7 board
    caplog.set_level(logging.INFO, logger=LOGGER)
    with MatrixScanner(config, mapping, pin_factory=factory, watch=WatchSettings()) as scanner:
        sim.set_occupied(1 << 7 + 2)  # c2 of the 7x7 board
        for n in range(90):
            scanner.scan(n / 100)
        assert scanner.occupied == 0 and scanner.fault() is None  # a bounce, so far
        for n in range(90, 120):
            scanner.scan(n / 100)
        assert scanner.fault() == f"switch r1c0 {NO_POINT}"
        assert said(caplog) == [
            (logging.WARNING, f"switch r1c0 {NO_POINT} (read closed for 1.0 s)")]
        sim.set_occupied(0)
        for n in range(120, 130):
            scanner.scan(n / 100)
        assert scanner.fault() is None
    assert said(caplog)[1:] == [(logging.INFO, "switch r1c0, under no point, reads open "
                                               "again")]


def test_a_switch_under_no_point_is_never_said_on_a_37_point_board_wired_as_it_is_read(
    factory: MockFactory,
) -> None:
    # Every point held, then the pieces moved about for seconds: nothing
    # closes under no point, nothing is said.  One diode shorted (b3's),
    # three pieces make a ghost at the fourth corner (a2: no point), said
    # as such; before, nothing was said, and a ghost on a point read as a
    # piece.
    mapping = BoardMapping.for_board("37-point")
    config = MatrixConfig.stock(mapping)
    sim = MatrixSimulator(factory, config, mapping)
    every = sum(1 << p for p in mapping.sensed)
    with MatrixScanner(config, mapping, pin_factory=factory, watch=WatchSettings()) as scanner:
        for n in range(600):
            sim.set_occupied(every if n < 300 else every >> n // 30 % 7)
            scanner.scan(n / 100)
            assert scanner.fault() is None
        sim.set_occupied(0)
        sim.remove_diode(2, 1)  # b3
        sim.set_occupied(sum(1 << mapping.parse(p) for p in ("b2", "a3", "b3")))
        for n in range(600, 720):
            scanner.scan(n / 100)
        assert scanner.fault() == f"switch r1c0 {NO_POINT}"
