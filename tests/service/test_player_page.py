"""What a player stumbles on in the page (Debian's chromium): words left
over from another game, a refusal without its reason, a page wider than a
phone, the viewer opened out of sight, an error that outlives its cause."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import box as steady_box
from playwright.sync_api import Browser, Page, Route, expect
from server import Server

from controller.service.boardview import QUIET_TURNS


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data", "kharbga")
    s.start()
    yield s
    s.stop()


def _page(browser: Browser, server: Server, width: int = 420, height: int = 900) -> Page:
    pg = browser.new_page(viewport={"width": width, "height": height})
    pg.goto(server.url + "/")
    expect(pg.locator("#conn")).to_have_text("live")
    return pg


def test_a_declined_draw_is_not_told_in_the_next_game(browser: Browser, server: Server) -> None:
    pg = _page(browser, server)
    pg.click('[data-button="draw"]')
    pg.click("#draw-decline")
    expect(pg.locator("#status")).to_contain_text("Defender declines the draw")
    pg.select_option('#new-game select[name="variant"]', "sixteen-soldiers")
    pg.click('#new-game button[type="submit"]')
    expect(pg.locator("#board")).to_have_attribute("data-geometry", "37-point")
    expect(pg.locator("#status")).to_have_text("Attacker to move")


def test_a_refused_press_says_why_until_the_board_changes(browser: Browser,
                                                         server: Server) -> None:
    pg = _page(browser, server)
    why = "(the exchange is asked with a step: there is none in the setting phase)"
    pg.click('[data-button="exchange"]')
    expect(pg.locator("#status")).to_have_text(f"Attacker: place a soldier (1 of 2) {why}")
    time.sleep(1.5)  # the board's frames and ticks meanwhile keep it
    expect(pg.locator("#status")).to_contain_text(why)
    pg.click('#board [data-square="a1"]')  # the board changes: the press is over
    expect(pg.locator("#status")).to_have_text("Attacker: place a soldier (2 of 2)")


def test_undo_with_nothing_to_take_back_says_so(browser: Browser, server: Server) -> None:
    pg = _page(browser, server)
    pg.click('[data-button="undo"]')
    expect(pg.locator("#status")).to_have_text(
        "Attacker: place a soldier (1 of 2) (there is no move to take back)")
    pg.click('[data-button="resign"]')
    pg.click("#confirm-yes")
    expect(pg.locator("#turn")).to_have_text("Defender wins: resignation")
    pg.click('[data-button="undo"]')  # the only button left on: it says why it does nothing
    expect(pg.locator("#status")).to_contain_text(
        "(a resignation or an agreed draw is not taken back)")


def test_the_page_fits_a_phone(browser: Browser, server: Server) -> None:
    # Finished games of long names and variants, the viewer open: nothing
    # sticks out sideways (a page that scrolls sideways hides its edge).
    for variant, attacker in (("english-draughts", "Mohamed-Salah Ben Abdallah Ben Youssef"),
                              ("sixteen-soldiers", "Amira"), ("kharbga-refuge", "Youssef"),
                              ("khamousiyya", "Amira")):
        server.post("/api/new", {"variant": variant, "attacker": attacker})
        server.post("/api/button", {"button": "resign"})
    pg = _page(browser, server, 360, 740)
    expect(pg.locator("#games tbody tr")).to_have_count(4)
    pg.locator("#games button").first.click()
    expect(pg.locator("#viewer")).to_be_visible()
    wide = pg.evaluate("""() => { const w = document.documentElement.clientWidth;
        return [w, document.documentElement.scrollWidth, [...document.querySelectorAll('main *')]
          .filter((e) => e.getBoundingClientRect().right > w + 0.5)
          .map((e) => e.tagName + (e.id ? '#' + e.id : ''))]; }""")
    assert wide[1] <= wide[0] and not wide[2], wide
    expect(pg.locator("#games tbody tr").first.locator("a")).to_have_text("record")


def test_the_viewer_opens_in_sight_and_closes(browser: Browser, server: Server) -> None:
    for _ in range(4):  # a list long enough to push the viewer below the screen
        server.post("/api/button", {"button": "resign"})
        server.post("/api/new", {"variant": "kharbga"})
    pg = _page(browser, server, 1280, 800)
    expect(pg.locator("#games tbody tr")).to_have_count(5)
    pg.locator("#games button").nth(1).click()
    expect(pg.locator("#viewer-title")).to_contain_text("Defender wins (resignation)")
    expect(pg.locator("#v-ply")).to_be_in_viewport()
    expect(pg.locator("#viewer-board")).to_be_in_viewport(ratio=1)
    pg.click("#v-close")
    expect(pg.locator("#viewer")).to_be_hidden()


def test_cannot_be_reached_goes_once_the_service_is_back(browser: Browser,
                                                        server: Server) -> None:
    pg = _page(browser, server)
    server.stop()
    expect(pg.locator("#conn")).to_contain_text("offline")
    pg.click('#board [data-square="c2"]')
    expect(pg.locator("#error")).to_contain_text("The board service cannot be reached")
    server.start()
    expect(pg.locator("#conn")).to_have_text("live", timeout=10000)
    expect(pg.locator("#error")).to_be_hidden()
    # A refusal is the service's answer: it stays until the next request.
    pg.route("**/api/sim/occupancy", lambda route: route.fulfill(
        status=400, content_type="application/json", body='{"error": "the board is busy"}'))
    pg.click('#board [data-square="c2"]')
    expect(pg.locator("#error")).to_have_text("Refused: the board is busy")


def test_a_finished_game_says_so_first_when_the_board_differs(browser: Browser,
                                                              server: Server) -> None:
    pg = _page(browser, server)
    pg.click('[data-button="resign"]')
    pg.click("#confirm-yes")
    over = "Game over: Defender wins (resignation). Clear the board for a new game"
    expect(pg.locator("#status")).to_have_text(over)
    pg.click('#board [data-square="c1"]')  # a soldier set down after the end
    expect(pg.locator('#board [data-square="c1"]')).to_have_attribute("data-led", "error")
    expect(pg.locator("#status")).to_have_text(
        f"{over} (c1: no soldier belongs here; take it off)")


def test_a_hinted_placement_is_said_in_words(browser: Browser, server: Server) -> None:
    pg = _page(browser, server)
    pg.click('[data-button="hint"]')
    expect(pg.locator("#board [data-hint]")).to_have_count(1, timeout=15000)
    to = server.get("/api/state")["hint_squares"]["to"]
    # The turn's second placement is added when the engine's line has it.
    expect(pg.locator("#status")).to_have_text(re.compile(
        rf"^Attacker: place a soldier \(1 of 2\)\. Hint for Attacker: @{to} "
        rf"\(set a soldier on {to}\)(; the whole turn: @{to} @[a-g][1-7])?$"))


def test_squares_lit_alike_are_told_in_the_plural(browser: Browser, server: Server) -> None:
    pg = _page(browser, server)
    pg.click('[data-button="resign"]')
    pg.click("#confirm-yes")
    pg.click('#board [data-square="c1"]')
    expect(pg.locator('#lit [data-role="error"]')).to_have_text(
        "c1: out of place: put this square right")
    pg.click('#board [data-square="a1"]')
    expect(pg.locator('#lit [data-role="error"]')).to_have_text(
        "a1, c1: out of place: put these squares right")
    # The list names them in the status line's order, the board's (b1 before a2).
    pg.click('#board [data-square="a1"]')
    pg.click('#board [data-square="c1"]')
    pg.click('#board [data-square="a2"]')
    pg.click('#board [data-square="b1"]')
    expect(pg.locator('#lit [data-role="error"]')).to_have_text(
        "b1, a2: out of place: put these squares right")
    expect(pg.locator("#status")).to_contain_text("b1, a2")


def test_each_name_says_its_side_and_its_count_what_it_counts(browser: Browser,
                                                             server: Server) -> None:
    """Players named: the page says which of them is the Attacker, and the
    number beside each name is said to be its soldiers in play (the game's,
    whatever still stands on the board: its hover title says so)."""
    pg = _page(browser, server)
    expect(pg.locator("#count-attacker")).to_have_text("0 in play")
    pg.fill('#new-game input[name="attacker"]', "Amira")
    pg.fill('#new-game input[name="defender"]', "Youssef")
    pg.click('#new-game button[type="submit"]')
    expect(pg.locator("#name-attacker")).to_have_text("Amira")
    expect(pg.locator("#count-attacker")).to_have_text("Attacker · 0 in play")
    expect(pg.locator("#count-defender")).to_have_text("Defender · 0 in play")
    pg.click('#board [data-square="a1"]')
    expect(pg.locator("#count-attacker")).to_have_text("Attacker · 1 in play")
    expect(pg.locator("#count-attacker")).to_have_attribute("title", re.compile("not counted"))
    pg.screenshot(path=str(server.data_dir.parent / "names.png"))


def test_the_viewers_buttons_stay_on_one_line_on_a_phone(browser: Browser,
                                                          server: Server) -> None:
    """360 px wide: the viewer's step buttons and Close sit in one row, the
    action's words above them; before, the words sat between the buttons
    and broke them over three lines."""
    server.post("/api/button", {"button": "resign"})
    server.post("/api/new", {"variant": "kharbga"})
    pg = _page(browser, server, 360, 740)
    pg.locator("#games button").first.click()
    expect(pg.locator("#v-ply")).to_contain_text("(action 0 of 0)")
    # One row: their tops within a pixel (Close, a text button, is a
    # fraction of a pixel shorter than the icons, centred in the row; a
    # rounding of the tops split them as the content above them moved).
    tops = [pg.locator(f"#{b}").bounding_box()["y"]  # type: ignore[index]
            for b in ("v-first", "v-prev", "v-next", "v-last", "v-close")]
    assert max(tops) - min(tops) < 1, tops
    ply = pg.locator("#v-ply").bounding_box()
    assert ply is not None and ply["y"] + ply["height"] <= min(tops) + 0.5, (ply, tops)


def test_a_press_let_go_off_the_board_is_no_click_later(browser: Browser,
                                                        server: Server) -> None:
    """A press on a1 dragged off the board and let go there is no click;
    nor is a later press made off the board and let go on a1 (a text
    selected, say): a browser's click is a press and a release on the same
    element, neither here. Before, the board kept the press on a1 until its
    next release on the board, so the second let-go set a soldier on a1."""
    pg = _page(browser, server)
    a1 = steady_box(pg.locator('#board [data-square="a1"]'))
    header = steady_box(pg.locator("h1"))
    on_a1 = (a1["x"] + a1["width"] / 2, a1["y"] + a1["height"] / 2)
    off = (header["x"] + 5, header["y"] + header["height"] / 2)
    for start, end in ((on_a1, off), (off, on_a1)):
        pg.evaluate("getSelection().removeAllRanges()")  # no drag of the text selected
        pg.mouse.move(*start)
        pg.mouse.down()
        pg.mouse.move(*end, steps=5)
        pg.mouse.up()
    time.sleep(0.5)
    assert server.get("/api/state")["sim_occ"] == "0" * 49
    expect(pg.locator("#status")).to_have_text("Attacker: place a soldier (1 of 2)")


def _wider_than_the_page(pg: Page) -> list[object]:
    return list(pg.evaluate("""() => { const w = document.documentElement.clientWidth;
        return [w, document.documentElement.scrollWidth, [...document.querySelectorAll('main *')]
          .filter((e) => e.getBoundingClientRect().right > w + 0.5)
          .map((e) => e.tagName + (e.id ? '#' + e.id : ''))]; }"""))


@pytest.mark.parametrize("attacker", ["", "Amina", "Abdelkarim-Ben-Mohamed-Salah-El-Tounsi"])
def test_named_players_fit_a_phone(browser: Browser, server: Server, attacker: str) -> None:
    """Both players named, each count says its side ("Attacker · 0 on
    board"): on a 320 or 360 px phone the names and counts wrap in their
    corners, a name keeps its side's dot on its line, and only a name
    longer than its corner is broken. Before, they kept the page 368 px
    wide, the Defender's name cut at the screen's edge and the page
    scrolling sideways."""
    defender = "Youssef" if attacker else ""
    server.post("/api/new", {"variant": "kharbga", "attacker": attacker, "defender": defender})
    for width in (320, 360):
        pg = _page(browser, server, width, 740)
        expect(pg.locator("#count-defender")).to_contain_text("0 in play")
        wide = _wider_than_the_page(pg)
        assert wide[1] <= wide[0] and not wide[2], wide  # type: ignore[operator]
        names = ["#name-defender"] + (["#name-attacker"] if len(attacker) < 20 else [])
        for name in names:  # one line each: the dot and the name together
            lines = pg.locator(name).evaluate("e => e.getClientRects().length")
            assert lines == 1, (width, name, lines)
        pg.close()


def _luminance(rgb: tuple[float, ...]) -> float:
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
           for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_a_lit_dark_squares_name_can_be_read(browser: Browser, server: Server) -> None:
    """On the draughts board a lit square's name sits on a white badge: on
    the dark squares (the only ones played on) it is written in dark ink.
    Before, it kept the dark squares' cream ink, unreadable on the badge:
    the lifted soldier's square and every square it could go to showed a
    blank white tag."""
    server.post("/api/new", {"variant": "checkers"})
    pg = _page(browser, server)
    pg.click('#board [data-square="c3"]')
    for square, led in (("c3", "lifted"), ("b4", "destination"), ("d4", "destination")):
        cell = pg.locator(f'#board [data-square="{square}"]')
        expect(cell).to_have_attribute("data-led", led)
        ink, badge, wood = cell.locator(".label").evaluate("""(e) => {
            const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
            return [rgb(getComputedStyle(e).color), rgb(getComputedStyle(e).backgroundColor),
                    rgb(getComputedStyle(e.parentElement).backgroundColor)]; }""")
        alpha = badge[3] if len(badge) > 3 else 1.0
        under = tuple(alpha * b + (1 - alpha) * w for b, w in zip(badge[:3], wood[:3], strict=True))
        light, dark = sorted((_luminance(tuple(ink[:3])), _luminance(under)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 3, (square, ink, badge, wood)


@pytest.mark.parametrize("width", [360, 1280])
def test_on_a_phones_draughts_board_a_name_goes_under_its_soldier(browser: Browser,
                                                                  server: Server,
                                                                  width: int) -> None:
    """At some 35 px a square, a square's name overlapped the top corner
    of the soldier on it: on a phone it is drawn under an unlit soldier;
    a lit square's name stays on top (on its badge), as on a wide screen."""
    server.post("/api/new", {"variant": "english-draughts"})
    pg = _page(browser, server, width, 800)
    pg.click('#board [data-square="c3"]')
    expect(pg.locator('#board [data-square="c3"]')).to_have_attribute("data-led", "lifted")

    def z(square: str, part: str) -> int:
        return int(pg.locator(f'#board [data-square="{square}"] {part}').evaluate(
            "(e) => Number(getComputedStyle(e).zIndex) || 0"))

    # an unlit soldier's square; the lifted soldier's (lit, no soldier on it)
    assert (z("a3", ".label") > z("a3", ".piece")) == (width > 520)
    assert z("c3", ".label") > z("a3", ".piece")
    pg.locator("#board").screenshot(path=str(server.data_dir.parent / f"names-{width}.png"))


@pytest.mark.parametrize("width", [360, 1280])
def test_buttons_greyed_after_the_end_say_why_in_words(browser: Browser, server: Server,
                                                      width: int) -> None:
    """A phone shows no hover title: the greyed buttons' reason is a line
    under them, there only while some are greyed."""
    pg = _page(browser, server, width, 900)
    off = pg.locator("#buttons-off")
    expect(off).to_be_hidden()
    pg.click('[data-button="resign"]')
    pg.click("#confirm-yes")
    expect(pg.locator('[data-button="hint"]')).to_be_disabled()
    expect(off).to_be_visible()
    expect(off).to_have_text(
        "Hint, Exchange, Draw and Resign are off until a new game: this one is over.")
    box, row = off.bounding_box(), pg.locator(".buttons").first.bounding_box()
    assert box is not None and row is not None and box["y"] >= row["y"] + row["height"] - 1
    assert box["x"] + box["width"] <= width
    pg.screenshot(path=str(server.data_dir.parent / f"buttons-off-{width}.png"), full_page=True)
    # A game of a variant without the exchange names only its own buttons.
    pg.select_option('#new-game select[name="variant"]', "sixteen-soldiers")
    pg.click('#new-game button[type="submit"]')
    expect(off).to_be_hidden()
    server.post("/api/button", {"button": "resign"})
    expect(off).to_have_text("Hint, Draw and Resign are off until a new game: this one is over.")


def test_buttons_wait_with_the_new_game_for_its_board(browser: Browser, server: Server) -> None:
    """A new game waiting for the board cleared reads no press: before,
    Hint, Draw and Resign were offered and did nothing."""
    pg = _page(browser, server)
    off = pg.locator("#buttons-off")
    pg.click('#board [data-square="c2"]')
    expect(pg.locator("#status")).to_contain_text("(2 of 2)")
    server.post("/api/new", {"variant": "kharbga"})
    expect(pg.locator("#status")).to_contain_text("New game: clear the board first")
    for name in ("hint", "exchange", "draw", "resign"):
        expect(pg.locator(f'[data-button="{name}"]')).to_be_disabled()
    expect(off).to_have_text("Hint, Exchange, Draw and Resign are off until the new game "
                             "begins: its board is not ready yet.")
    pg.screenshot(path=str(server.data_dir.parent / "buttons-waiting.png"))
    pg.click('#board [data-square="c2"]')  # the board cleared: the game begins
    expect(pg.locator("#status")).to_contain_text("Attacker: place a soldier (1 of 2)")
    expect(off).to_be_hidden()
    expect(pg.locator('[data-button="hint"]')).to_be_enabled()


def test_against_the_computer_draw_and_resign_are_the_persons(browser: Browser,
                                                              server: Server) -> None:
    """While the computer's move is lit, the page's player still plays the
    other side: their Draw offers it to the computer (which answers), their
    Resign gives the computer the game. Before, both went to the side to
    move: the computer offered the person a draw, or resigned."""
    server.post("/api/new", {"variant": "english-draughts"})
    server.post("/api/computer", {"side": "attacker", "seconds": 0.2, "level": 1})
    pg = _page(browser, server, 390, 844)
    expect(pg.locator("#status")).to_contain_text("Attacker (computer): make the lit move",
                                                  timeout=15000)
    pg.click('[data-button="resign"]')
    expect(pg.locator("#confirm-text")).to_have_text(
        "Defender resigns: Attacker wins. Resign for the Defender?")
    pg.click("#confirm-no")
    # The draw is asked first, as Resign is (the computer answers at once,
    # and a draw agreed is not taken back; before, one press ended the game).
    pg.click('[data-button="draw"]')
    expect(pg.locator("#confirm-text")).to_have_text(
        "Defender offers the computer a draw: it accepts unless it is ahead on pieces (ahead, "
        f"it accepts once {QUIET_TURNS} turns go without a capture), and a draw agreed ends "
        "the game (it is not taken back). Offer a draw?")
    pg.screenshot(path=str(server.data_dir.parent / "draw-asks.png"))
    pg.click("#confirm-no")
    assert server.get("/api/state")["outcome"] is None
    pg.click('[data-button="draw"]')
    pg.click("#confirm-yes")  # even on pieces: the computer takes the draw
    expect(pg.locator("#turn")).to_have_text("Draw: agreed by the players")
    expect(pg.locator("#draw-offer")).to_be_hidden()


def test_the_new_game_form_shows_the_names_it_keeps(browser: Browser, server: Server) -> None:
    """A name left empty keeps the last game's: the field shows it greyed.
    Before, both fields were blank and the new game still came up with
    'Amira' and 'Youssef'."""
    server.post("/api/new", {"variant": "kharbga", "attacker": "Amira", "defender": "Youssef"})
    pg = _page(browser, server, 390, 844)
    attacker = pg.locator('#new-game input[name="attacker"]')
    defender = pg.locator('#new-game input[name="defender"]')
    expect(attacker).to_have_attribute("placeholder", "Amira")
    expect(defender).to_have_attribute("placeholder", "Youssef")
    defender.fill("Karim")
    pg.select_option('#new-game select[name="variant"]', "sabouiyya")
    pg.click('#new-game button[type="submit"]')
    expect(pg.locator("#name-attacker")).to_have_text("Amira")
    expect(pg.locator("#name-defender")).to_have_text("Karim")
    expect(defender).to_have_attribute("placeholder", "Karim")


def test_no_hint_on_the_computers_turn(browser: Browser, server: Server) -> None:
    """Hint pressed while the computer's move is lit says it gives none.
    Before, a second move was lit beside the computer's, both called 'the
    computer's move starts here', and the status line still named only one."""
    server.post("/api/new", {"variant": "sixteen-soldiers"})
    server.post("/api/computer", {"side": "attacker", "seconds": 0.2, "level": 1})
    pg = _page(browser, server, 390, 844)
    expect(pg.locator("#status")).to_contain_text("Attacker (computer): make the lit move",
                                                  timeout=15000)
    expected = server.get("/api/state")["expected"]
    pg.click('[data-button="hint"]')
    expect(pg.locator("#status")).to_have_text(
        f"Attacker (computer): make the lit move {expected} (no hint on the computer's turn)")
    time.sleep(2)  # a hint would have been lit by now
    expect(pg.locator("#board [data-led=hint]")).to_have_count(2)
    assert server.get("/api/state")["hint_move"] is None


@pytest.mark.parametrize(("width", "height"), [(1366, 650), (390, 844)])
def test_the_status_line_stays_in_sight_at_the_buttons(browser: Browser, server: Server,
                                                       width: int, height: int) -> None:
    """The buttons are under the board, below a laptop's (1366x768: 650
    px under the browser's bars) or a phone's screen: the status line that
    answers a press stays at the top of the screen. Before, scrolled down
    to Undo, its '(there is no move to take back)' was said out of sight."""
    server.post("/api/new", {"variant": "sixteen-soldiers"})
    pg = _page(browser, server, width, height)
    undo = pg.locator('[data-button="undo"]')
    undo.evaluate("(b) => b.scrollIntoView({block: 'center'})")  # as a player scrolls to it
    undo.click()
    expect(pg.locator("#status")).to_contain_text("(there is no move to take back)")
    assert pg.evaluate("window.scrollY") > 0  # the page was scrolled to the button
    expect(pg.locator("#status")).to_be_in_viewport(ratio=1)
    pg.screenshot(path=str(server.data_dir.parent / f"status-{width}.png"))


def test_undo_against_the_computer_gives_the_person_their_move_back(browser: Browser,
                                                                    server: Server) -> None:
    """Undo on the person's turn takes back the computer's reply and the
    person's move before it. Before, it took back the reply only, and the
    computer lit the same reply at once ('make the lit move b6-a5') over the
    board that still showed it made."""
    server.post("/api/new", {"variant": "english-draughts"})
    server.post("/api/computer", {"side": "defender", "seconds": 0.2, "level": 1})
    pg = _page(browser, server, 390, 844)
    for square in ("c3", "d4"):
        pg.click(f'#board [data-square="{square}"]')
    expect(pg.locator("#status")).to_contain_text("Defender (computer): make the lit move",
                                                  timeout=15000)
    reply = server.get("/api/state")["expected"]
    for square in reply.split("-"):
        pg.click(f'#board [data-square="{square}"]')
    expect(pg.locator("#status")).to_have_text("Attacker to move")
    pg.click('[data-button="undo"]')
    expect(pg.locator("#turn")).to_have_text("Attacker to play")
    expect(pg.locator("#moves li")).to_have_count(0)
    for square in ("c3", "d4", *reply.split("-")):
        expect(pg.locator(f'#board [data-square="{square}"]')).to_have_attribute(
            "data-led", "error")
    expect(pg.locator("#status")).to_contain_text("c3: taken back by undo; put the Attacker's")
    for square in ("d4", "c3", *reversed(reply.split("-"))):  # the board put back
        pg.click(f'#board [data-square="{square}"]')
    expect(pg.locator("#status")).to_have_text("Attacker to move")
    time.sleep(1.5)
    assert server.get("/api/state")["expected"] is None


@pytest.mark.parametrize("level", [5, 3])
def test_the_computers_name_wraps_between_words_not_in_its_numbers(browser: Browser,
                                                                   server: Server,
                                                                   level: int) -> None:
    """On a phone the computer's name wraps in its corner: never between a
    number and its word. Before, 'Computer (1' above 's)'."""
    server.post("/api/computer", {"side": "defender", "seconds": 1, "level": level})
    pg = _page(browser, server, 390, 844)
    name = pg.locator("#name-defender")
    expect(name).to_contain_text("Computer (")
    split = name.evaluate("""(e) => {
        const text = e.firstChild, top = (i) => {
            const r = document.createRange();
            r.setStart(text, i); r.setEnd(text, i + 1);
            return r.getBoundingClientRect().top; };
        const s = text.data;
        return [[s.indexOf("1"), s.indexOf("s)")],
                [s.indexOf("level"), s.indexOf("level") + 6]]
            .filter(([a]) => a >= 0).map(([a, b]) => [s.slice(a, b + 1), top(a), top(b)])
            .filter(([, a, b]) => Math.abs(a - b) > 2); }""")
    assert not split, split
    # Nor does the count under it break inside "24 in play" (it read "24 in / play").
    tops = pg.locator("#count-defender").evaluate("""(e) => {
        const text = e.firstChild, s = text.data, i = s.search(/\\d/), r = document.createRange();
        return [...Array(s.length - i).keys()].map((k) => {
            r.setStart(text, i + k); r.setEnd(text, i + k + 1);
            return Math.round(r.getBoundingClientRect().top); }); }""")
    assert len(set(tops)) == 1, tops


def test_the_thinking_box_stays_as_clicked(browser: Browser, server: Server) -> None:
    """'Show the engine's thinking' unticked stays unticked while the
    service takes the click: the states sent meanwhile (the engine thinking
    sends several a second) no longer tick it back for a moment."""
    server.post("/api/ponder", {"on": True})
    pg = _page(browser, server, 390, 844)
    expect(pg.locator("#eval-depth")).to_contain_text("depth", timeout=15000)

    def slow(route: Route) -> None:
        time.sleep(1.5)  # a slow link: states keep coming meanwhile
        route.continue_()

    pg.route("**/api/ponder", slow)
    box = pg.locator("#ponder")
    box.click()
    for _ in range(10):
        assert not box.is_checked()
        time.sleep(0.1)
    expect(pg.locator("#thinking")).to_be_hidden()
    assert server.get("/api/state")["ponder"] is False


@pytest.mark.parametrize(("width", "height"), [(1366, 650), (1366, 768)])
def test_the_buttons_and_their_answers_stay_in_sight_under_a_long_status_line(
        browser: Browser, server: Server, width: int, height: int) -> None:
    """A laptop's screen (1366x768, 650 px under the browser's bars): a
    status line of three lines and the engine's line push the buttons
    under the board below the screen's foot. Before, Hint, Undo, Draw and
    Resign were cut off or out of sight, and so were a draw offer's Accept
    and Decline. The board is now sized to the screen's height as well,
    and the buttons stick to the screen's foot if they still fall below."""
    server.post("/api/new", {"variant": "khamousiyya"})
    pg = _page(browser, server, width, height)
    pg.check("#ponder")
    for square in ("a1", "b1", "c1"):  # set where the first soldiers may not go
        pg.click(f'#board [data-square="{square}"]')
    expect(pg.locator("#status")).to_contain_text("c1")
    pg.evaluate("window.scrollTo(0, 0)")  # the page as it stands, not scrolled
    shots = server.data_dir.parent
    pg.screenshot(path=str(shots / f"long-status-{height}.png"))
    for name in ("hint", "undo", "draw", "resign"):
        expect(pg.locator(f'[data-button="{name}"]')).to_be_in_viewport(ratio=1)
    pg.evaluate("document.querySelector('[data-button=\"draw\"]').click()")  # no scrolling
    expect(pg.locator("#draw-accept")).to_be_in_viewport(ratio=1)
    expect(pg.locator("#draw-decline")).to_be_in_viewport(ratio=1)
    assert pg.evaluate("window.scrollY") == 0
    pg.screenshot(path=str(shots / f"long-status-draw-{height}.png"))
    # Nor does the foot cover the board: its last row stays in sight.
    board = pg.locator("#board").evaluate("e => e.getBoundingClientRect().bottom")
    controls = pg.locator(".controls").evaluate("e => e.getBoundingClientRect().top")
    assert board <= controls, (board, controls)


def test_start_asks_before_it_ends_a_game_in_play(browser: Browser, server: Server) -> None:
    """Resign asks first; so does Start, which ends the game in play as
    surely (kept as abandoned): a slip on it cost a game without a word."""
    pg = _page(browser, server)
    pg.click('#board [data-square="a1"]')
    pg.click('#board [data-square="b1"]')
    expect(pg.locator("#moves li")).to_have_count(1)
    game = server.get("/api/state")["game_id"]
    pg.click('#new-game button[type="submit"]')
    ask = pg.locator("#new-confirm")
    expect(ask).to_be_visible()
    expect(pg.locator("#new-confirm-text")).to_have_text(
        "This kharbga game is in play (1 turn played): a new game ends it unfinished, kept in the "
        "games list as abandoned. Start a new game?")
    pg.screenshot(path=str(server.data_dir.parent / "start-asks.png"), full_page=True)
    pg.click("#new-confirm-no")
    expect(ask).to_be_hidden()
    assert server.get("/api/state")["game_id"] == game  # nothing started
    pg.click('#new-game button[type="submit"]')
    pg.click("#new-confirm-yes")
    expect(pg.locator("#moves li")).to_have_count(0)
    assert server.get("/api/state")["game_id"] != game
    expect(ask).to_be_hidden()
    # A game with no move yet is left at once, without a question.
    pg.click('#new-game button[type="submit"]')
    expect(ask).to_be_hidden()


def test_against_the_computer_as_attacker_the_board_turns_to_the_defender(
        browser: Browser, server: Server) -> None:
    """The computer takes the Attacker: the person plays the Defender, from
    that side of the board, until they choose the side themselves."""
    pg = _page(browser, server)
    flip = pg.locator("#flip")
    expect(flip).not_to_be_checked()
    server.post("/api/computer", {"side": "attacker", "seconds": 0.05, "level": 1})
    expect(flip).to_be_checked()
    a1 = steady_box(pg.locator('#board [data-square="a1"]'))
    a7 = steady_box(pg.locator('#board [data-square="a7"]'))
    assert a1["y"] < a7["y"]  # rank 1, the Attacker's, at the top
    pg.screenshot(path=str(server.data_dir.parent / "computer-attacker.png"))
    flip.uncheck()  # the player's choice stands from now on
    server.post("/api/computer", {"side": None, "seconds": 0.05, "level": 1})
    server.post("/api/computer", {"side": "attacker", "seconds": 0.05, "level": 1})
    expect(pg.locator("#computer select[name=side]")).to_have_value("attacker")
    expect(flip).not_to_be_checked()
    assert steady_box(pg.locator('#board [data-square="a1"]'))["y"] > steady_box(
        pg.locator('#board [data-square="a7"]'))["y"]


def test_a_turn_the_blocked_side_could_not_play_is_said_in_the_move_list(
        browser: Browser, server: Server, tmp_path: Path) -> None:
    # Kharbga: a3-a2 leaves the Defender's one soldier (a1) no step, and the
    # Attacker moves again; "a3-a2", "a7-a6" in the list read as the sides'
    # alternate moves.
    from controller.rules import Game

    position = "A....../......./......./......./A....../......./DA..... a m - 30"
    server.post("/api/new", {"variant": "kharbga", "position": position})
    pg = _page(browser, server)
    game = Game.from_position("kharbga", position)
    for token in ("a3-a2", "a7-a6"):
        game.play(token)
        a, d = game.bitboards()
        occ = "".join("1" if (a | d) >> i & 1 else "0" for i in range(49))
        server.post("/api/sim/occupancy", {"occ": occ})
        expect(pg.locator("#moves li").last).to_contain_text(token)
    items = pg.locator("#moves li")
    expect(items).to_have_count(2)
    expect(items.first).to_have_text("a3-a2")
    expect(items.last).to_have_text("a7-a6 (Attacker again: the Defender is blocked)")
    expect(items.last).to_have_attribute("data-side", "attacker")
    pg.locator("#moves").screenshot(path=str(tmp_path / "moved-again.png"))


def test_the_computers_side_takes_no_typed_name(browser: Browser, server: Server) -> None:
    # A name typed for the computer's side ("Bot") was silently replaced by
    # "Computer (casual, level 2, 1 s)": its field is now shown as the
    # computer's, greyed, with the reason on hover.
    server.post("/api/computer", {"side": "defender", "seconds": 1, "level": 2})
    pg = _page(browser, server, 390, 844)
    defender = pg.locator('#new-game input[name="defender"]')
    expect(defender).to_be_disabled()
    expect(defender).to_have_attribute("placeholder", "Computer (casual, level 2, 1 s)")
    expect(defender).to_have_attribute(
        "title", "The computer plays the Defender: it is named by its level (Computer, below)")
    pg.locator('#new-game input[name="attacker"]').fill("Amira")
    pg.click('#new-game button[type="submit"]')
    expect(pg.locator("#name-attacker")).to_have_text("Amira")
    expect(pg.locator("#name-defender")).to_contain_text("Computer (casual, level 2, 1 s)")
    # The computer's name is whole in its field, on a phone as on a wide
    # screen (it was cut after "level 1,").
    server.post("/api/computer", {"side": "defender", "seconds": 1.5, "level": 1})
    expect(defender).to_have_attribute("placeholder", "Computer (beginner, level 1, 1.5 s)")
    for width in (390, 1280):
        pg.set_viewport_size({"width": width, "height": 844})
        room, needed = defender.evaluate(
            """el => { const s = getComputedStyle(el);
                       const c = document.createElement("canvas").getContext("2d");
                       c.font = s.font;
                       return [el.clientWidth - parseFloat(s.paddingLeft)
                               - parseFloat(s.paddingRight),
                               c.measureText(el.placeholder).width]; }""")
        assert needed <= room, (width, needed, room)
    pg.set_viewport_size({"width": 390, "height": 844})
    # Nobody playing: the field takes a name again.
    pg.select_option("#computer-side", "")
    expect(defender).to_be_enabled()


def test_a_refused_computer_setting_is_said_beside_its_field_on_a_phone(
        browser: Browser, server: Server, tmp_path: Path) -> None:
    # At 390 px the refusal was said only at the top of the page, out of
    # sight from the form, and the field went back to 1 without a word.
    pg = _page(browser, server, 390, 844)
    seconds = pg.locator("#computer input[name=seconds]")
    seconds.scroll_into_view_if_needed()
    seconds.fill("0")
    seconds.press("Tab")
    said = pg.locator("#computer .form-error")
    expect(said).to_have_text("Refused: seconds must be a number from 0.01 to 60")
    expect(said).to_be_in_viewport()
    pg.screenshot(path=str(tmp_path / "computer-refused.png"))
    keep = os.environ.get("KHARBGA_PAGE_SHOTS")
    if keep:
        shutil.copy(tmp_path / "computer-refused.png", keep)
    seconds.fill("2")
    seconds.press("Tab")
    expect(said).to_be_hidden()
    assert server.get("/api/state")["think"] == 2
