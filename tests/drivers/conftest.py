"""Fixtures for the GPIO driver tests: a fresh MockFactory per test (never
the process-wide default, reset afterwards) and a recording SPI bus."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpio_fakes import FakeSPI
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def spi() -> FakeSPI:
    return FakeSPI()
