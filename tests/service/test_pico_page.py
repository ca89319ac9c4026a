"""The page of a real board: the service run on a serial board (``[board]
kind = "serial:PORT"``, as ``kharbga-board run --board serial:PORT``) with
the Pico's firmware (in MicroPython, on simulated switches) at the other
end of the cable, and the page in Debian's chromium.  What a player sees
is what the switches say: placements made on the board appear as moves,
the page's board takes no clicks (the pieces are on the wooden board), and
a piece lifted where no move can start is lit and explained in words."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, expect, sync_playwright
from server import Server, eventually
from test_browser import ARGS, CHROMIUM

from controller.drivers.firmware_sim import FirmwareSim, FirmwareSimError, find_micropython
from controller.rules import Game

pytestmark = pytest.mark.timeout(120)


def bit(name: str) -> int:
    return 1 << Game.new("kharbga").geometry.point_names.index(name)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Page, Server, FirmwareSim]]:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: `make test` installs it (apt-get install chromium)")
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
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                pg = browser.new_page(viewport={"width": 460, "height": 900})
                pg.goto(server.url + "/")
                expect(pg.locator("#conn")).to_have_text("live")
                yield pg, server, sim
                browser.close()
        finally:
            server.stop()


def shot(pg: Page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    pg.screenshot(path=str(path), animations="disabled")
    out = os.environ.get("KHARBGA_PAGE_SHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(out) / path.name)


def test_the_page_shows_what_the_switches_say(
        board: tuple[Page, Server, FirmwareSim], tmp_path: Path) -> None:
    pg, server, sim = board
    assert server.get("/api/state")["board"].startswith("serial:")
    # A real board: no "click to lift" help, and clicks on the page's board
    # send nothing (the pieces are on the wooden board).
    expect(pg.locator("#sim-help")).to_be_hidden()
    expect(pg.locator("#board")).not_to_have_class(re.compile(r"\bsim\b"))
    expect(pg.locator("#board-help")).to_have_text(
        "Read from the board's switches, through its microcontroller on "
        f"{sim.cable.path}: move the pieces on the board; this page follows them.")
    sent: list[str] = []

    def seen(req: Request) -> None:
        if req.method == "POST":
            sent.append(req.url)

    pg.on("request", seen)
    pg.click('#board [data-square="c2"]')  # checked below: nothing was sent

    # Two soldiers set on the switches: the Attacker's setting turn, on the page.
    sim.set_occupancy(bit("d2"))
    eventually(lambda: server.get("/api/state")["moves"] == ["@d2"])
    sim.set_occupancy(bit("d2") | bit("e2"))
    eventually(lambda: server.get("/api/state")["moves"] == ["@d2", "@e2"])
    game = Game.new("kharbga")
    for token in ("@d2", "@e2"):
        game.play(token)
    assert server.get("/api/state")["position"] == game.position()
    for name in ("d2", "e2"):
        expect(pg.locator(f'#board [data-square="{name}"] .piece.attacker')).to_have_count(1)
    expect(pg.locator("#moves")).to_contain_text("@d2")
    expect(pg.locator("#moves")).to_contain_text("@e2")

    # A soldier set on the malha, where nothing is ever placed: the square
    # lights as an error, and the page says why, in words.
    sim.set_occupancy(bit("d2") | bit("e2") | bit("d4"))
    expect(pg.locator('#board [data-square="d4"]')).to_have_attribute("data-led", "error")
    expect(pg.locator('#lit li[data-role="error"]')).to_contain_text("d4")
    expect(pg.locator("#status")).to_contain_text("d4: no soldier belongs here; take it off")
    shot(pg, tmp_path, "pico-page-error")
    # Taken off: the light goes out and no recorded move was lost.
    sim.set_occupancy(bit("d2") | bit("e2"))
    expect(pg.locator("#board [data-led=error]")).to_have_count(0)
    assert server.get("/api/state")["moves"] == ["@d2", "@e2"]
    assert sent == []  # the click on c2, long answered had it been sent
