"""Debian's chromium for the browser tests, launched the same way by each:
the page of the service (tests/service), of a real board (tests/drivers)
and of the hall (tests/broadcast)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Locator, Playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Fail the test, saying how to get it, where chromium is missing."""
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: `make test` installs it (apt-get install chromium)")


def launch(p: Playwright) -> Browser:
    """Debian's chromium, headless, under Playwright ``p``."""
    require_chromium()
    return p.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def box(locator: Locator, seconds: float = 10.0) -> FloatRect:
    """Where ``locator`` is drawn, measured again while the page draws the
    board anew between finding the element and measuring it (each state
    the service sends redraws it, a pondering engine's several a second):
    Playwright then measures a detached element, and answers None."""
    deadline = time.monotonic() + seconds
    while (found := locator.bounding_box()) is None:
        assert time.monotonic() < deadline, f"{locator} never measured"
    return found
