"""The page of a real board: the service run on a serial board (``[board]
kind = "serial:PORT"``, as ``kharbga-board run --board serial:PORT``) with
the Pico's firmware (in MicroPython, on simulated switches) at the other
end of the cable, and the page in Debian's chromium.  What a player sees
is what the switches say: placements made on the board appear as moves,
the page's board takes no clicks (the pieces are on the wooden board), and
a piece lifted where no move can start is lit and explained in words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import launch, require_chromium
from playwright.sync_api import Page, expect, sync_playwright
from real_board_page import check_real_board_page
from server import Server

from controller.drivers.firmware_sim import FirmwareSim, FirmwareSimError, find_micropython

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Page, Server, FirmwareSim]]:
    require_chromium()
    try:
        micropython = find_micropython()
    except FirmwareSimError as exc:
        pytest.fail(f"{exc} (make test installs it)", pytrace=False)
    with FirmwareSim(size=7, micropython=micropython) as sim:
        sim.follow_real_time()
        server = Server(tmp_path / "data", "kharbga", board=f"serial:{sim.cable.path}")
        try:
            server.start()
            with sync_playwright() as p:
                browser = launch(p)
                pg = browser.new_page(viewport={"width": 460, "height": 900})
                pg.goto(server.url + "/")
                expect(pg.locator("#conn")).to_have_text("live")
                yield pg, server, sim
                browser.close()
        finally:
            server.stop()


def test_the_page_shows_what_the_switches_say(
        board: tuple[Page, Server, FirmwareSim], tmp_path: Path) -> None:
    pg, server, sim = board
    assert server.get("/api/state")["board"].startswith("serial:")
    check_real_board_page(
        pg, f"the board's switches, through its microcontroller on {sim.cable.path}",
        sim.set_occupancy, lambda: server.get("/api/state"), tmp_path, "pico-page-error")
