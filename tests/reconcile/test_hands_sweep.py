"""scripts/hands_sweep.py: the reed-hands model over other seeds and habits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "hands_sweep.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize(("args", "words"), [
    (["--habit", "fast=0.5"], "habit 'fast=0.5': give NAME=P"),
    (["--habit", "wrong=1.5"], "P is a chance from 0 to 1"),
    (["--variant", "chess"], "variant 'chess': one of"),
    (["--seeds", "9-3"], "seeds '9-3'"),
])
def test_bad_arguments_are_one_line_and_status_2(args: list[str], words: str) -> None:
    done = _run(*args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr


def test_games_read_as_meant_and_otherwise_are_counted() -> None:
    # kharbga-refuge seed 12 is read otherwise with the model's habits (a
    # soldier slid past a point: test_reed_hands.RARE), 11 is not.
    done = _run("--variant", "kharbga-refuge", "--seeds", "11-12")
    assert done.returncode == 1
    assert "  kharbga-refuge 12: phantom after" in done.stdout
    assert "kharbga-refuge: 1 of 2 read otherwise [12]" in done.stdout
    done = _run("--variant", "kharbga", "--seeds", "8", "--habit", "wrong=0.2")
    assert done.returncode == 0
    assert "habits changed: {'wrong': 0.2}; seeds 8-8" in done.stdout
    assert "kharbga: 0 of 1 read otherwise" in done.stdout
