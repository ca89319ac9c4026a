"""Seven buttons on a board with fewer columns: the 5x5 board's button rows
go on past its five matrix columns on button-only columns (board.py's
BUTTON_COL_PINS), so draw (column 5) and hajeb (column 6) are read, while
the board's occupancy and its switches' chatter counts stay its own."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from fw_helpers import FAST, collect, distinct, frames

from controller.board.events import Button, Frame
from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.serial_link import SerialLink

pytestmark = pytest.mark.timeout(120)

C2 = 7  # square c2 of the 5x5 board


@pytest.fixture
def sim5(micropython: str) -> Iterator[FirmwareSim]:
    s = FirmwareSim(size=5, micropython=micropython)
    try:
        s.start()
        yield s
    finally:
        s.close()


def test_the_5x5_board_reads_all_seven_buttons_and_only_its_own_switches(
        sim5: FirmwareSim) -> None:
    sim5.follow_real_time()
    link = SerialLink(sim5.cable.path, dataclasses.replace(FAST, size=5)).start()
    try:
        assert link.wait_connected(15), link.stats()
        assert link.device is not None and (link.device.rows, link.device.cols) == (5, 5)
        t = sim5.granted + 50_000
        presses = [("defender", "hajeb"), (None, "draw"), ("attacker", "hint"),
                   ("attacker", "resign")]
        for i, (side, button) in enumerate(presses):
            sim5.set_button(side, button, True, at=t + i * 100_000)
            sim5.set_button(side, button, False, at=t + i * 100_000 + 40_000)
        sim5.set_chatter(C2, 3_000, at=t + 500_000)  # c2 toggles every 3 ms
        sim5.set_chatter(C2, 0, at=t + 800_000)
        sim5.set_occupancy(1 << 24 | 1 << 0, at=t + 900_000)  # e5 and a1
        got = collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == 1 << 24 | 1
                                           for e in ev))
        assert [(b.side, b.button) for b in got if isinstance(b, Button)] == presses
        readings = distinct([f.occupied for f in frames(got)])
        assert all(r < 1 << 25 for r in readings) and readings[-1] == 1 << 24 | 1
        stats = link.device_stats(timeout=5)
        assert stats is not None and len(stats.chatter) == 25
        assert stats.chatter[C2] >= 3 and sum(stats.chatter) == stats.chatter[C2]
    finally:
        link.close()


def _shipped_board() -> object:
    """firmware/board.py as it goes onto the Pico (plain constants)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "firmware" / "board.py"
    spec = importlib.util.spec_from_file_location("shipped_board", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_wiring_has_a_column_for_every_button_and_no_pin_twice() -> None:
    # The simulator pads the button columns to the protocol's buttons, so a
    # button added to BUTTON_NAMES passed every firmware test while a real
    # Pico, wired as board.py says, never read it.
    from controller.drivers.protocol import BUTTON_NAMES

    b = _shipped_board()
    columns = tuple(b.COL_PINS) + tuple(b.BUTTON_COL_PINS)  # type: ignore[attr-defined]
    assert len(columns) >= len(BUTTON_NAMES), (
        f"firmware/board.py reads {len(columns)} button columns, the protocol has "
        f"{len(BUTTON_NAMES)} buttons ({', '.join(BUTTON_NAMES)}): wire the new ones on "
        "BUTTON_COL_PINS (hardware.md, 'Pico wiring') and raise VERSION")
    rows = tuple(b.ROW_PINS) + tuple(p for p in b.BUTTON_ROW_PINS  # type: ignore[attr-defined]
                                     if p is not None)
    pins = [*rows, *columns, b.LED_PIN]  # type: ignore[attr-defined]
    assert len(pins) == len(set(pins)), f"a Pico pin used twice in firmware/board.py: {pins}"
