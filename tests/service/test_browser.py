"""End to end in a real browser (Debian's chromium driven by Playwright):
a game played on the virtual board by clicks, with the expected lights and
the recorded game checked."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from chromium import box as steady_box
from chromium import launch, require_chromium
from playwright.sync_api import Page, expect, sync_playwright
from server import Server

from controller.rules import Game
from controller.rules.random_games import lasting_moves
from controller.rules.record import group_turns, parse_record


@contextmanager
def served_page(tmp_path: Path, width: int, height: int,
                variant: str = "sabouiyya",
                players: str = "ponder = false") -> Iterator[tuple[Page, Server]]:
    """The service on a simulated board of ``variant`` and its page open
    in Debian's chromium at this window size (``players``: the
    configuration's ``[players]`` lines)."""
    require_chromium()
    server = Server(tmp_path / "data", variant, players=players)
    server.start()
    try:
        with sync_playwright() as p:
            browser = launch(p)
            pg = browser.new_page(viewport={"width": width, "height": height})
            pg.goto(server.url + "/")
            # The page has drawn the service's first state (the form set to
            # its variant): a test's own changes are not undone by it.
            expect(pg.locator("#board [data-square]").first).to_be_visible()
            yield pg, server
            browser.close()
    finally:
        server.stop()


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[Page, Server]]:
    with served_page(tmp_path, 420, 900) as opened:
        yield opened


def _click(page: Page, square: str) -> None:
    page.click(f'.board#board [data-square="{square}"]')


def _wait_for(server: Server, position: str) -> None:
    deadline = time.monotonic() + 10
    while (state := server.get("/api/state"))["position"] != position:
        assert time.monotonic() < deadline, (
            f"the board never reached {position}: it holds {state['position']}, "
            f"status {state.get('status')!r}, sim board {state.get('sim_occ')}, "
            f"lights {state.get('leds')}")
        time.sleep(0.03)


def _moves(page: Page) -> list[str]:
    return page.locator("#moves li").all_inner_texts()


def test_a_game_by_clicks(page: tuple[Page, Server], tmp_path: Path) -> None:
    pg, server = page
    # A simulated board says so (a real board's page says where it reads from).
    expect(pg.locator("#sim-help")).to_be_visible()
    expect(pg.locator("#board-help")).to_be_hidden()
    # The first piece goes next to the malha: those squares are lit.
    for sq in ("c2", "b3", "d3", "c4"):
        expect(pg.locator(f'#board [data-square="{sq}"]')).to_have_attribute("data-led", "setup")
    rng = random.Random(3)
    game = Game.new("sabouiyya")
    checked_lift = checked_capture = False
    while game.outcome is None and len(game.moves) < 45:
        moves = lasting_moves(game)  # a blocked side loses at once
        captures = [m for m in moves if m.capture]
        move = captures[0] if captures and not checked_capture else rng.choice(moves)
        names = game.geometry.point_names
        before = game.bitboards()
        game.play(move)
        after = game.bitboards()
        if move.kind == "place":
            _click(pg, names[move.to])
        else:
            _click(pg, names[move.frm])
            if not checked_lift:
                lifted = pg.locator(f'#board [data-square="{names[move.frm]}"]')
                expect(lifted).to_have_attribute("data-led", "lifted")
                dest = pg.locator(f'#board [data-square="{names[move.to]}"]')
                expect(dest).to_have_attribute("data-led", "destination")
                checked_lift = True
            _click(pg, names[move.to])
            gone = (before[0] | before[1]) & ~(after[0] | after[1]) & ~(1 << move.frm)
            if gone:
                for p in range(game.geometry.size):
                    if gone >> p & 1:
                        cell = pg.locator(f'#board [data-square="{names[p]}"]')
                        expect(cell).to_have_attribute("data-led", "capture")
                        checked_capture = True
                        _click(pg, names[p])
        _wait_for(server, game.position())
        expect(pg.locator("#board [data-led=error]")).to_have_count(0)
    state = server.get("/api/state")
    assert state["position"] == game.position()
    assert checked_lift and checked_capture
    record = server.get(f"/api/games/{state['game_id']}.kgn")
    replayed = parse_record(record).game()
    assert [str(m) for m in replayed.moves] == [str(m) for m in game.moves]
    # The page shows the move list and lets one download the record.
    # Numbered by turns, as the record numbers them.
    assert _moves(pg)[0] == " ".join(next(group_turns(game)))
    pg.screenshot(path=str(tmp_path / "board.png"))


def test_a_click_survives_the_board_drawn_anew(page: tuple[Page, Server]) -> None:
    """The page draws the board anew with every state the service sends (a
    thought of the engine pondering, the other page's click): a press made
    on the old drawing and released on the new one is still a click."""
    pg, server = page
    cell = pg.locator('#board [data-square="c2"]')
    expect(cell).to_have_attribute("data-led", "setup")
    box = steady_box(cell)  # the board may be drawn anew as it is measured
    pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    pg.mouse.down()
    pg.evaluate("render()")  # the state arrives between the press and the release
    pg.mouse.up()
    game = Game.new("sabouiyya")
    c2 = game.geometry.point_names.index("c2")
    game.play(next(m for m in game.legal_moves() if m.to == c2))
    _wait_for(server, game.position())
    expect(cell.locator(".piece")).to_have_count(1)
