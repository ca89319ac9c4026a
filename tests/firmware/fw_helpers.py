"""Helpers for the firmware and serial-link tests."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from controller.board.events import Button, Frame
from controller.drivers.serial_link import LinkSettings, SerialLink

# Quick timing for tests that run against the real clock.
FAST = LinkSettings(
    heartbeat=0.2,
    idle=1.0,
    retry=0.05,
    keepalive=0.1,
    device_timeout=3.0,
    request_retry=0.05,
    reconnect_delay=0.05,
    read_timeout=0.005,
)


def run_micropython(micropython: str, script: Path, *args: str, timeout: float = 30) -> str:
    """Run a MicroPython script; its standard output (failing on an error)."""
    proc = subprocess.run(
        [micropython, str(script), *args],
        capture_output=True,
        timeout=timeout,
        cwd=str(script.parent),
    )
    assert proc.returncode == 0, proc.stderr.decode() + proc.stdout.decode()
    return proc.stdout.decode()


def wait_for(cond: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or cond}")
        time.sleep(0.01)


def collect(link: SerialLink, until: Callable[[list[Frame | Button]], bool], timeout: float = 10.0
            ) -> list[Frame | Button]:
    """Events from the link until ``until(events)`` holds."""
    out: list[Frame | Button] = []
    deadline = time.monotonic() + timeout
    while not until(out):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; got {out[-5:]} stats {link.stats()}")
        ev = link.get(timeout=min(left, 0.05))
        if ev is not None:
            out.append(ev)
    return out


def frames(events: list[Frame | Button]) -> list[Frame]:
    return [e for e in events if isinstance(e, Frame)]


def distinct(readings: list[int]) -> list[int]:
    """Readings with repeats in a row removed."""
    out: list[int] = []
    for r in readings:
        if not out or out[-1] != r:
            out.append(r)
    return out


def is_idle_pattern(rgb: bytes) -> bool:
    """The firmware's idle wave on an LED chain: dim blue only (no host)."""
    reds, greens, blues = rgb[0::3], rgb[1::3], rgb[2::3]
    return not any(reds) and not any(greens) and 0 < max(blues) <= 24
