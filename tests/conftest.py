"""Shared pytest configuration for the test suite (rootdir conftest; no tests/__init__.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from controller.drivers.firmware_sim import FirmwareSimError, find_micropython

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="session")
def micropython() -> str:
    """The MicroPython interpreter the firmware tests run the firmware in."""
    try:
        return find_micropython()
    except FirmwareSimError as exc:
        pytest.fail(f"{exc} (make test installs it)", pytrace=False)


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Debian's chromium, driven by Playwright (the page's tests)."""
    from chromium import launch, require_chromium
    from playwright.sync_api import sync_playwright

    require_chromium()
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
