"""The matrix scanner on MockFactory pins wired by the simulator: squares,
orientation, debouncing, faults (stuck, chattering, ghosting), timing."""

from __future__ import annotations

import queue
import random
import threading
import time

import pytest
from gpiozero import InputDevice  # type: ignore[import-untyped]
from gpiozero.exc import GPIOPinInUse  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.board.events import Button, Frame
from controller.drivers.gpio_matrix import (
    Debouncer,
    MatrixConfig,
    MatrixScanner,
    MonotonicClock,
)
from controller.drivers.mapping import BoardMapping, parse_square
from controller.drivers.matrix_sim import MatrixSimulator, VirtualClock

CONFIG = MatrixConfig()


def make(
    factory: MockFactory,
    config: MatrixConfig = CONFIG,
    mapping: BoardMapping | None = None,
) -> tuple[MatrixSimulator, MatrixScanner]:
    mapping = mapping or BoardMapping()
    sim = MatrixSimulator(factory, config, mapping)
    return sim, MatrixScanner(config, mapping, pin_factory=factory)


def squares(bits: int) -> set[str]:
    return {f"{'abcdefg'[i % 7]}{i // 7 + 1}" for i in range(49) if bits >> i & 1}


@pytest.mark.parametrize(("a1", "files"), [("r0c0", "columns"), ("r6c0", "rows"), ("r0c6", "rows")])
def test_each_square_reads_as_itself_whatever_the_orientation(
    factory: MockFactory, a1: str, files: str
) -> None:
    mapping = BoardMapping(a1=a1, files=files)
    sim, scanner = make(factory, mapping=mapping)
    with scanner:
        for sq in range(49):
            sim.set_occupied(1 << sq)
            assert mapping.switches_to_squares(scanner.read_raw()) == 1 << sq
        rng = random.Random(7)
        for _ in range(20):
            board = rng.getrandbits(49)
            sim.set_occupied(board)
            assert mapping.switches_to_squares(scanner.read_raw()) == board


def test_the_simulator_only_pulls_a_column_low_while_its_row_is_selected(
    factory: MockFactory,
) -> None:
    sim, scanner = make(factory)
    with scanner:
        sim.set_switch(2, 3, True)
        column = factory.pin(CONFIG.column_pins[3])
        assert column.state  # no row selected: pulled up
        scanner._rows[2].select()
        assert not column.state
        scanner._rows[2].release()
        scanner._rows[1].select()
        assert column.state
        scanner._rows[1].release()


def test_frames_come_once_the_debounce_agrees_and_carry_the_clock(factory: MockFactory) -> None:
    config = MatrixConfig(scan_hz=100, debounce_scans=3)
    sim, scanner = make(factory, config)
    with scanner:
        frames = [scanner.scan(t / 100) for t in range(5)]
        assert frames[:2] == [None, None]
        assert frames[2] == Frame(0.02, 0) and frames[3:] == [None, None]
        assert scanner.idle
        sim.place(parse_square("d4"))
        got = [scanner.scan(0.05)]
        assert got == [None] and not scanner.idle  # a change waits for the debounce
        got += [scanner.scan(t / 100) for t in range(6, 10)]
        assert got[1] is None
        assert got[2] is not None and got[2].t == 0.07 and squares(got[2].occupied) == {"d4"}
        assert got[3:] == [None, None] and scanner.idle


def test_a_chattering_switch_is_debounced(factory: MockFactory) -> None:
    config = MatrixConfig(debounce_scans=4)
    sim, scanner = make(factory, config)
    e2 = parse_square("e2")
    with scanner:
        for t in range(4):
            scanner.scan(t)
        out: list[Frame] = []
        # bounce: on/off runs shorter than the debounce window
        for i, run in enumerate([1, 2, 3, 1, 2, 3, 1, 1]):
            for _ in range(run):
                if i % 2 == 0:
                    sim.place(e2)
                else:
                    sim.lift(e2)
                frame = scanner.scan(len(out))
                if frame:
                    out.append(frame)
        assert out == []
        sim.place(e2)
        frames = [f for f in (scanner.scan(100 + k) for k in range(6)) if f]
        assert len(frames) == 1 and squares(frames[0].occupied) == {"e2"}


def test_debouncer_matches_a_reference_model_on_random_noise() -> None:
    rng = random.Random(3)
    for scans in (1, 2, 3, 5):
        deb = Debouncer(scans)
        state = None
        history: list[int] = []
        for _ in range(400):
            raw = rng.getrandbits(4) if rng.random() < 0.5 else (history[-1] if history else 0)
            history.append(raw)
            changed = deb.push(raw)
            want = state
            if len(history) >= scans:
                want = state or 0
                for bit in range(4):
                    window = [h >> bit & 1 for h in history[-scans:]]
                    if all(window):
                        want |= 1 << bit
                    elif not any(window):
                        want &= ~(1 << bit)
            assert deb.state == want
            assert changed == (want != state)
            state = want


def test_a_stuck_switch_reads_closed_under_an_empty_board(factory: MockFactory) -> None:
    sim, scanner = make(factory)
    with scanner:
        sim.stick(4, 1)
        assert scanner.settle(VirtualClock()) == 1 << (4 * 7 + 1)
        sim.set_occupied(1 << parse_square("a1"))
        assert scanner.settle(VirtualClock()) == 1 << 29 | 1


def test_ghosting_needs_a_missing_diode_and_floating_rows(factory: MockFactory) -> None:
    sim, scanner = make(factory)
    with scanner:
        for r, c in [(0, 0), (0, 1), (1, 1)]:
            sim.set_switch(r, c, True)
        three = 1 | 1 << 1 | 1 << 8
        assert scanner.read_raw() == three  # diodes: no ghost
        sim.remove_diode(0, 1)
        assert scanner.read_raw() == three | 1 << 7  # the fourth corner, r1c0
        sim.remove_diode(0, 1, missing=False)
        sim.remove_diode(0, 0)  # this diode is not on a ghost path here
        assert scanner.read_raw() == three


def test_push_pull_rows_hide_ghosts(factory: MockFactory) -> None:
    config = MatrixConfig(row_drive="push-pull")
    sim, scanner = make(factory, config)
    with scanner:
        for r, c in [(0, 0), (0, 1), (1, 1)]:
            sim.set_switch(r, c, True)
        sim.remove_diode(0, 1)
        assert scanner.read_raw() == 1 | 1 << 1 | 1 << 8
        assert all(factory.pin(p).function == "output" for p in config.row_pins)


def test_run_posts_frames_on_a_queue_with_a_virtual_clock(factory: MockFactory) -> None:
    sim, scanner = make(factory)
    changes = {0.1: 1 << 24, 0.2: 1 << 24 | 1 << 25, 0.3: 0}

    def person(now: float) -> None:
        for t, board in changes.items():
            if abs(now - t) < 1e-9:
                sim.set_occupied(board)

    clock = VirtualClock(until=0.5, on_tick=person)
    out: queue.Queue[Frame | Button] = queue.Queue()
    with scanner:
        scanner.run(out, clock.stop, clock)
    frames = [out.get_nowait() for _ in range(out.qsize())]
    assert [squares(f.occupied) for f in frames if isinstance(f, Frame)] == [
        set(),
        {"d4"},
        {"d4", "e4"},
        set(),
    ]
    times = [round(f.t, 3) for f in frames]
    assert times == [0.01, 0.11, 0.21, 0.31]  # 3 scans at 200 Hz after each change
    assert scanner.scans == clock.wakeups == 100  # t = 0, 0.005, .., 0.495


def test_the_real_time_loop_reads_a_placement_on_the_wall_clock(factory: MockFactory) -> None:
    """The scanner's own thread, on the wall clock, puts the frame of a
    placement on the queue, its time the clock's (how many scans a second:
    `make bench`, drivers)."""
    sim, scanner = make(factory, MatrixConfig(scan_hz=200))
    out: queue.Queue[Frame | Button] = queue.Queue()
    with scanner:
        thread, stop = scanner.start(out, MonotonicClock())
        started = time.monotonic()
        first = out.get(timeout=5)  # the empty board
        assert isinstance(first, Frame) and first.occupied == 0
        sim.place(parse_square("c3"))
        placed = time.monotonic() - started
        frame = out.get(timeout=5)
        read = time.monotonic() - started
        stop.set()
        thread.join(2)
    assert not thread.is_alive()
    assert isinstance(frame, Frame) and squares(frame.occupied) == {"c3"}
    assert placed <= frame.t + 0.05 and frame.t <= read + 0.05  # between placing and reading
    assert scanner.scans >= 3  # the debounce's scans, at least


def test_a_failed_construction_releases_the_pins_already_claimed(factory: MockFactory) -> None:
    MatrixSimulator(factory, CONFIG)
    blocker = InputDevice(CONFIG.column_pins[4], pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory)
    blocker.close()
    with MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory) as scanner:
        assert scanner.read_raw() == 0
    with pytest.raises(RuntimeError):
        scanner.read_raw()


def test_the_simulator_must_own_the_pins(factory: MockFactory) -> None:
    scanner = MatrixScanner(CONFIG, BoardMapping(), pin_factory=factory)
    with scanner, pytest.raises(ValueError, match="create the MatrixSimulator before"):
        MatrixSimulator(factory, CONFIG)


def test_start_stops_on_its_event(factory: MockFactory) -> None:
    _sim, scanner = make(factory)
    with scanner:
        thread, stop = scanner.start(queue.Queue(), MonotonicClock())
        assert isinstance(stop, threading.Event)
        stop.set()
        thread.join(2)
        assert not thread.is_alive()
