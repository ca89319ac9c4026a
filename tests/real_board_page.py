"""What the page of a real board (the Pico's serial link, the Pi's GPIO)
must show, whichever way the switches reach the service: the checks
tests/service/test_pico_page.py and tests/drivers/test_gpio_page.py share.
``eventually`` is also the service tests' wait (tests/service/server.py)."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Request, expect

from controller.rules import Game


def eventually(predicate: Any, seconds: float = 20.0, every: float = 0.05) -> Any:
    """The first true value ``predicate()`` gives within ``seconds``
    (asked every ``every`` seconds); AssertionError when none comes."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("timed out")


def bit(name: str) -> int:
    """A kharbga point's bit in an occupancy bitboard."""
    return 1 << Game.new("kharbga").geometry.point_names.index(name)


def shot(pg: Page, tmp_path: Path, name: str) -> None:
    """The whole page as ``name``.png (also into $KHARBGA_PAGE_SHOTS)."""
    path = tmp_path / f"{name}.png"
    pg.screenshot(path=str(path), animations="disabled")
    out = os.environ.get("KHARBGA_PAGE_SHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(out) / path.name)


def check_real_board_page(
    pg: Page, source: str, occupy: Callable[[int], None], state: Callable[[], dict[str, Any]],
    tmp_path: Path, shot_name: str, error_lit: Callable[[], None] = lambda: None,
    error_out: Callable[[], None] = lambda: None,
) -> None:
    """On a kharbga board read from ``source`` (the words after "Read from
    "), with pieces set by ``occupy(bitboard)`` and the service's state
    from ``state()``: the page takes no clicks, placements on the switches
    appear, a soldier set on the malha is lit as an error and explained
    (then ``error_lit()``, the screenshot ``shot_name``), and taken off the
    light goes out with no move lost (then ``error_out()``)."""
    # A real board: no "click to lift" help, the board's source in words,
    # and clicks on the page's board send nothing (the pieces are on the
    # wooden board).
    expect(pg.locator("#sim-help")).to_be_hidden()
    expect(pg.locator("#board")).not_to_have_class(re.compile(r"\bsim\b"))
    expect(pg.locator("#board-help")).to_have_text(
        f"Read from {source}: move the pieces on the board; this page follows them (a piece "
        "out of place is lit here, not drawn).")
    sent: list[str] = []

    def seen(req: Request) -> None:
        if req.method == "POST":
            sent.append(req.url)

    pg.on("request", seen)
    pg.click('#board [data-square="c2"]')  # checked below: nothing was sent

    # Two soldiers set on the switches: the Attacker's setting turn, on the page.
    occupy(bit("d2"))
    eventually(lambda: state()["moves"] == ["@d2"])
    occupy(bit("d2") | bit("e2"))
    eventually(lambda: state()["moves"] == ["@d2", "@e2"])
    game = Game.new("kharbga")
    game.play_all(["@d2", "@e2"])
    assert state()["position"] == game.position()
    for name in ("d2", "e2"):
        expect(pg.locator(f'#board [data-square="{name}"] .piece.attacker')).to_have_count(1)
    expect(pg.locator("#moves")).to_contain_text("@d2")
    expect(pg.locator("#moves")).to_contain_text("@e2")

    # A soldier set on the malha, where nothing is ever placed: the square
    # lights as an error, and the page says why, in words.
    occupy(bit("d2") | bit("e2") | bit("d4"))
    expect(pg.locator('#board [data-square="d4"]')).to_have_attribute("data-led", "error")
    expect(pg.locator('#lit li[data-role="error"]')).to_contain_text("d4")
    expect(pg.locator("#status")).to_contain_text(
        "d4: no soldier belongs here (the malha, the centre square, stays empty until the first "
        "move); take it off")
    error_lit()
    shot(pg, tmp_path, shot_name)
    # Taken off: the light goes out and no recorded move was lost.
    occupy(bit("d2") | bit("e2"))
    expect(pg.locator("#board [data-led=error]")).to_have_count(0)
    eventually(lambda: "error" not in state()["leds"].values())
    error_out()
    assert state()["moves"] == ["@d2", "@e2"]
    assert sent == []  # the click on c2, long answered had it been sent
