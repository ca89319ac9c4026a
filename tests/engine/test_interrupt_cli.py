"""Ctrl-C during the engine's long commands: ``hint`` and ``match`` (one
job or several) stop at once with exit status 130, no traceback, and no
process of theirs left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

POSITION_7X7 = "ADADADA/DADADAD/DADADAD/ADA.ADA/DADADAD/DADADAD/ADADADA a m - 1"


def _interrupted(argv: list[str]) -> tuple[subprocess.CompletedProcess[str], float, bool]:
    """Start ``kharbga-board ARGV`` in its own process group, press Ctrl-C
    (SIGINT to the group, as a terminal does) once it is busy; its result,
    the seconds it took to stop, and whether anything of it was left."""
    proc = subprocess.Popen([sys.executable, "-m", "controller", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    time.sleep(3.0)  # started, and searching
    os.killpg(proc.pid, signal.SIGINT)
    began = time.monotonic()
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    took = time.monotonic() - began
    time.sleep(0.5)
    try:
        os.killpg(proc.pid, 0)
        left = True
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        left = False
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), took, left


@pytest.mark.parametrize("argv", [
    ["hint", "--position", POSITION_7X7, "--time", "60"],
    ["match", "--games", "20", "--a", "engine:0.5", "--b", "engine:0.5"],
    ["match", "--games", "20", "--a", "engine:0.5", "--b", "engine:0.5", "--jobs", "2"],
    # One job, a long move: Ctrl-C waited for the move's whole search.
    ["match", "--games", "2", "--a", "engine:30", "--b", "engine:30"],
], ids=["hint", "match", "match-jobs", "match-long-move"])
def test_ctrl_c_stops_at_once_without_a_traceback(argv: list[str]) -> None:
    result, took, left = _interrupted(argv)
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr and result.stderr == ""
    assert took < 5.0  # not the search's 60 s, not the match's games
    assert not left
