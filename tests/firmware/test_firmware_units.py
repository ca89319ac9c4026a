"""The firmware's matrix scanning and debouncing, run in MicroPython on the
simulated pins (rows driven, columns read with pull-ups)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fw_helpers import run_micropython

from controller.drivers.firmware_sim import FIRMWARE, SIM

pytestmark = pytest.mark.timeout(120)  # a hung simulator fails, never hangs the run

HERE = Path(__file__).resolve().parent


def test_matrix_scan_and_debounce_in_micropython(micropython: str) -> None:
    out = run_micropython(micropython, HERE / "mp_matrix.py", str(FIRMWARE), str(SIM))
    r = {k: v for line in out.splitlines() for k, v in json.loads(line).items()}
    # a1, g1 (rank 1), d4 (rank 4), a7, g7 (rank 7); button rows empty
    assert r["corners"] == [0b1000001, 0, 0, 0b0001000, 0, 0, 0b1000001, 0, 0, 0]
    # 48 pieces: no ghost fills the hole at d4
    assert r["all_but_d4"][:7] == [127, 127, 127, 0b1110111, 127, 127, 127]
    # the attacker's resign button: button row 1, column 4
    assert r["resign_attacker"] == [0] * 7 + [0, 1 << 4, 0]
    assert r["low_after_scan"] == 0  # every row released after the scan
    # closed at 5 ms, open at 15 ms (a 10 ms run: chatter), closed from 20 ms:
    # confirmed at the first scan 12 ms after 20 ms, stamped 20 ms.
    assert r["debounce"] == [[35000, 1, 20000]]
    assert r["chatter"] == 1
    assert r["zero"] == [1, 5, 100, 5]
    assert r["two_rows"] == [3, [1, 2], 0]
    assert r["wrap"] == [1, 0xFFFFF000]
    assert r["settled"] == [5000, True] and r["settled_after"] == 25000


def test_two_changes_confirmed_by_one_late_scan_are_stamped_when_the_younger_was_read(
        micropython: str) -> None:
    # Before: the row was stamped with its older change's first read, so when
    # the scan after two pieces set down came late, the later piece looked
    # set down 5 ms before it was.
    out = run_micropython(micropython, HERE / "mp_matrix.py", str(FIRMWARE), str(SIM))
    r = {k: v for line in out.splitlines() for k, v in json.loads(line).items()}
    # a1 closed at 0 ms, b1 at 5 ms; the next scan at 40 ms confirms both
    assert r["late"] == [1, 0b11, 5000]
