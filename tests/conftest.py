"""Shared pytest configuration for the test suite (rootdir conftest; no tests/__init__.py)."""

from __future__ import annotations

import pytest

from controller.drivers.firmware_sim import FirmwareSimError, find_micropython


@pytest.fixture(scope="session")
def micropython() -> str:
    """The MicroPython interpreter the firmware tests run the firmware in."""
    try:
        return find_micropython()
    except FirmwareSimError as exc:
        pytest.fail(f"{exc} (make test installs it)", pytrace=False)
