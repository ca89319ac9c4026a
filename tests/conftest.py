"""Shared pytest configuration for the test suite (rootdir conftest; no tests/__init__.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from controller.drivers.firmware_sim import FirmwareSimError, find_micropython

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A JavaScript error in a page of tests/chromium.py's browsers fails
    the test with its message (in place of the timeout or closed page the
    test then met)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.failed:
        _service_logs(item, report)
    chromium = sys.modules.get("chromium")
    if chromium is None:  # no browser test has run in this process
        return
    errors: list[str] = chromium.PAGE_ERRORS
    if errors:  # in the test or in a fixture's setup or teardown
        crash = getattr(report.longrepr, "reprcrash", None)
        then = crash.message.splitlines()[:1] if report.failed and crash else []
        report.outcome = "failed"
        report.longrepr = "\n".join(
            ["JavaScript error in the page:", *errors]
            + [f"(the test then failed: {line})" for line in then])
        errors.clear()


def _service_logs(item: pytest.Item, report: pytest.TestReport) -> None:
    """A failing test's service processes' logs (a fixture's ``log_path``,
    as tests/service/server.py keeps), their last lines, in its report."""
    for value in getattr(item, "funcargs", {}).values():
        path = getattr(value, "log_path", None)
        if isinstance(path, Path) and path.is_file():
            lines = path.read_text(errors="replace").splitlines()[-60:]
            report.sections.append((f"service log {path}", "\n".join(lines) or "(empty)"))


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
