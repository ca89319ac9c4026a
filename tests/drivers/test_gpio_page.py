"""The page of the GPIO board: the service with the real matrix scanner on
gpiozero's mock pins (the matrix simulator closing switches under the
pieces), the real LED driver writing its bytes to a recording SPI bus, and
the page in Debian's chromium.  The service runs in this process (its
pins are this process's mock pins) on the same web application and event
pump as ``kharbga-board run --board gpio``.  What the page shows is what
the switches say, and what it lights is what the LEDs under the wooden
board light.

With ``KHARBGA_PAGE_SHOTS=DIR`` the screenshots are also written to DIR
(docs/page.md shows them)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web
from chromium import launch, require_chromium
from gpio_fakes import FakeSPI, decode
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]
from playwright.sync_api import Page, expect, sync_playwright
from real_board_page import check_real_board_page, eventually, shot

from controller.drivers.gpio_config import GpioConfig
from controller.drivers.mapping import parse_square
from controller.drivers.matrix_sim import MatrixSimulator
from controller.service.app import make_app
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import GpioBackend
from controller.service.run import _attach

pytestmark = pytest.mark.timeout(120)


@dataclass
class Rig:
    page: Page
    service: BoardService
    sim: MatrixSimulator
    spi: FakeSPI
    led_of: Callable[[str], int]
    backend: GpioBackend


@pytest.fixture
def rig(tmp_path: Path, factory: MockFactory, spi: FakeSPI) -> Iterator[Rig]:
    require_chromium()
    gpio = GpioConfig()
    sim = MatrixSimulator(factory, gpio.matrix, gpio.mapping)  # before the scanner claims the pins
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.3,
                                  board="gpio", ponder=False))
    backend = GpioBackend(None, pin_factory=factory, spi=spi)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    runner: web.AppRunner | None = None
    try:
        app = make_app(service)
        _attach(app, service, backend)  # the pump that `kharbga-board run` attaches
        runner = web.AppRunner(app)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", 0).start())
        port = runner.addresses[0][1]
        thread.start()
        with sync_playwright() as p:
            browser = launch(p)
            pg = browser.new_page(viewport={"width": 460, "height": 900})
            pg.goto(f"http://127.0.0.1:{port}/")
            expect(pg.locator("#conn")).to_have_text("live")
            yield Rig(pg, service, sim, spi,
                      lambda name: gpio.mapping.led_of_square(parse_square(name)), backend)
            browser.close()
    finally:
        try:
            if runner is not None:
                if thread.is_alive():
                    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
                else:
                    loop.run_until_complete(runner.cleanup())
        finally:
            if thread.is_alive():
                loop.call_soon_threadsafe(loop.stop)
                thread.join(10)
            loop.close()
            backend.close()
            service.close()


def frame(rig: Rig) -> list[tuple[int, int, int]]:
    """The colour of every LED now (the last SPI frame)."""
    assert rig.spi.writes, "the LED strip was never written"
    return decode(rig.spi.writes[-1])


def red(pixel: tuple[int, int, int]) -> bool:
    r, g, b = pixel
    return r > 0 and g == b == 0


def test_the_page_and_the_leds_show_what_the_switches_say(rig: Rig, tmp_path: Path) -> None:
    assert rig.service.state()["board"] == "gpio"
    d4 = rig.led_of("d4")

    def lit_frame() -> list[tuple[int, int, int]] | None:
        f = frame(rig)  # one frame, read once: the light blinks meanwhile
        return f if f[d4] != (0, 0, 0) else None

    def error_lit() -> None:
        # The LED under d4 is red (the error role), no other LED is red,
        # and it blinks: dark frames come between the lit ones.
        lit = eventually(lit_frame)
        assert red(lit[d4]), lit[d4]
        assert [i for i, p in enumerate(lit) if red(p)] == [d4]
        n = len(rig.spi.writes)
        eventually(lambda: any(decode(f)[d4] == (0, 0, 0) for f in rig.spi.writes[n:])
                   and any(red(decode(f)[d4]) for f in rig.spi.writes[n:]))

    def error_out() -> None:
        # The error gone from the state: every frame after it has d4 dark.
        time.sleep(0.05)  # the pump's next frame
        n = len(rig.spi.writes)
        time.sleep(0.6)  # more than two of the error light's blinks
        assert all(decode(f)[d4] == (0, 0, 0) for f in rig.spi.writes[n:])
        assert frame(rig)[d4] == (0, 0, 0)

    check_real_board_page(rig.page, "the board's switches, on the Pi's GPIO pins",
                          rig.sim.set_occupied, rig.service.state, tmp_path, "gpio-page-error",
                          error_lit, error_out)


def test_a_broken_led_strip_is_said_on_the_page_while_the_board_is_read(
        rig: Rig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(buf: bytes, start: int = 0, end: int | None = None) -> None:
        raise OSError(121, "Remote I/O error")

    monkeypatch.setattr(rig.spi, "write", broken)  # the strip's connector works loose
    fault = rig.page.locator("#board-fault")
    rig.sim.set_occupied(1 << 24)  # a soldier on the malha: its error light fails to show
    expect(rig.page.locator('#board [data-square="d4"]')).to_have_attribute("data-led", "error")
    expect(fault).to_have_text("The board is read, but its lights cannot be set ([Errno 121] "
                               "Remote I/O error): the page shows them as they should be.")
    expect(rig.page.locator("#sensor-problem")).to_be_hidden()
    for _ in range(6):  # said throughout the error light's blinks, lit and dark
        time.sleep(0.1)
        assert fault.is_visible()
    shot(rig.page, tmp_path, "gpio-page-lights-fail")
    rig.sim.set_occupied(1 << 10)  # moved on to d2: still read and recorded
    expect(rig.page.locator("#moves")).to_contain_text("@d2")
    rig.sim.set_occupied(1 << 10 | 1 << 24)  # the malha again: a light to write
    expect(rig.page.locator('#board [data-square="d4"]')).to_have_attribute("data-led", "error")
    monkeypatch.undo()  # pushed back in: the strip is written, the line goes
    expect(fault).to_be_hidden()
    eventually(lambda: red(frame(rig)[rig.led_of("d4")]))  # the error light blinks on the strip


def test_a_welded_reed_is_said_on_the_page_as_a_fault_of_a_board_still_read(
        rig: Rig, tmp_path: Path) -> None:
    from controller.drivers.switch_watch import WatchSettings

    assert rig.backend.scanner is not None
    rig.backend.scanner.watch.settings = WatchSettings(stuck_after=0.3)
    rig.sim.set_occupied(1 << 0)  # a soldier on a1: read and recorded
    expect(rig.page.locator("#moves")).to_contain_text("@a1")
    rig.sim.stick(3, 3)  # the reed under d4 (the malha) welds shut, no piece there
    expect(rig.page.locator("#board-fault")).to_have_text(
        "The board is read, but switch r3c3 (d4) reads closed where no piece should stand: "
        "if the square is empty, the reed switch is stuck (kharbga-board doctor checks every "
        "switch).")
    expect(rig.page.locator("#sensor-problem")).to_be_hidden()
    expect(rig.page.locator('#board [data-square="d4"]')).to_have_attribute("data-led", "error")
    shot(rig.page, tmp_path, "gpio-page-stuck")
    rig.sim.stick(3, 3, False)  # mended: the line goes
    expect(rig.page.locator("#board-fault")).to_be_hidden()
