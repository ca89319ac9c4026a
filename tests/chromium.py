"""Debian's chromium for the browser tests, launched the same way by each:
the page of the service (tests/service), of a real board (tests/drivers)
and of the hall (tests/broadcast).

A JavaScript error in a page of a browser launched here (an uncaught
exception, Playwright's ``pageerror``) fails the test with the error's
message: the page is closed at once, so the test's next wait ends there
rather than at its timeout, and tests/conftest.py reports the error in
place of what the test then saw ("element not found", a closed page)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Error, FloatRect, Locator, Page, Playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Fail the test, saying how to get it, where chromium is missing."""
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: `make test` installs it (apt-get install chromium)")


# The JavaScript errors of the pages since the test began (tests/conftest.py
# empties the list before each test and fails a test that leaves any).
PAGE_ERRORS: list[str] = []


def watch(page: Page) -> Page:
    """``page`` with its JavaScript errors failing the test."""
    def failed(error: Error) -> None:
        where = next((line.strip() for line in (error.stack or "").splitlines()[1:2]), "")
        PAGE_ERRORS.append(f"{page.url}: {error.name or 'Error'}: {error.message}"
                           + (f" ({where})" if where else ""))
        try:
            page.close(reason=f"JavaScript error in the page: {error.message}")
        except Error:  # closed meanwhile
            pass

    page.on("pageerror", failed)
    return page


def launch(p: Playwright) -> Browser:
    """Debian's chromium, headless, under Playwright ``p``; every page it
    opens is watched for JavaScript errors (:func:`watch`)."""
    require_chromium()
    browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    new_page, new_context = browser.new_page, browser.new_context

    def page(*args: object, **kwargs: object) -> Page:
        return watch(new_page(*args, **kwargs))  # type: ignore[arg-type]

    def context(*args: object, **kwargs: object) -> BrowserContext:
        made = new_context(*args, **kwargs)  # type: ignore[arg-type]
        made.on("page", watch)
        return made

    browser.new_page = page  # type: ignore[method-assign]
    browser.new_context = context  # type: ignore[method-assign]
    return browser


def box(locator: Locator, seconds: float = 10.0) -> FloatRect:
    """Where ``locator`` is drawn, measured again while the page draws the
    board anew between finding the element and measuring it (each state
    the service sends redraws it, a pondering engine's several a second):
    Playwright then measures a detached element, and answers None."""
    deadline = time.monotonic() + seconds
    while (found := locator.bounding_box()) is None:
        assert time.monotonic() < deadline, f"{locator} never measured"
    return found
