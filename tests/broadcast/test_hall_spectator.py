"""The hall page as a spectator reads it (Debian's chromium against a real
Mosquitto and a real board service): moves numbered by turn as the board
page and the KGN number them, the newest always in sight, a resignation
in words, the board page's colours and the last turn's outline with a
key, the variant named, the opened board's squares named, and a board
that went quiet said to be so."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from bchelp import Broker, Player, board, hall, keep_screenshots, random_game, wait_until
from chromium import launch, require_chromium
from playwright.sync_api import Page, expect, sync_playwright

from controller.rules import Game
from controller.rules.record import group_turns

ACTIONS = 52  # the setting's twelve turns and some forty moves: a long list

# Does an element show all its text (nothing cut off sideways)?
FITS = "(el) => el.scrollWidth <= el.clientWidth"
# Is an item (the list's last) inside the list's visible box?
LAST_SHOWN = """(li) => {
  const list = li.parentElement;
  const box = list.getBoundingClientRect();
  const last = li.getBoundingClientRect();
  return last.top >= box.top - 1 && last.bottom <= box.bottom + 1 &&
         last.left >= box.left - 1 && last.right <= box.right + 1 &&
         list.scrollWidth <= list.clientWidth;
}"""


def _turns(actions: list[str]) -> list[str]:
    g = Game.new("sabouiyya")
    for a in actions:
        g.play(a)
    return [f"{n}. {' '.join(turn)}" for n, turn in enumerate(group_turns(g), 1)]


def _colours(page: Page, *names: str) -> list[str]:
    return [str(page.evaluate(
        f"() => getComputedStyle(document.documentElement).getPropertyValue('{n}').trim()"))
        for n in names]


def test_a_spectator_reads_the_hall(tmp_path: Path) -> None:
    require_chromium()
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    b = board(tmp_path, "sp1", broker.url).start()
    actions = random_game(11, limit=ACTIONS)
    assert len(actions) == ACTIONS
    turns = _turns(actions)
    try:
        Player(b, actions).play(ACTIONS, pause=0.02)
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(b.url + "/")  # the board's own page: its colours
            board_colours = _colours(page, "--att", "--def")
            page.goto(h.url + "/")
            wait_until(lambda: page.evaluate("(id) => hallMoves(id)", "sp1") == actions, 30,
                       "every move on the page")
            _check_card(page, turns)
            assert _colours(page, "--att", "--def") == board_colours
            key = page.locator("header .key")
            expect(key).to_have_text(re.compile(r"^Attacker Defender\s+last turn ▸\s*to move$"))
            assert key.locator(".dot.A").evaluate(
                "(e) => getComputedStyle(e).backgroundColor") == "rgb(31, 95, 191)"  # #1f5fbf
            # The green outline of the last turn's squares, as the key draws it.
            outlines = page.evaluate("""() => [
                document.querySelector('header .key .sq.moved'),
                document.querySelector('.card .sq.moved')
              ].map((el) => el && getComputedStyle(el).boxShadow)""")
            assert outlines[0] is not None and outlines[0] == outlines[1], outlines
            # Polled: a card drawn again under load has no piece for an instant.
            expect(page.locator(".card .p.A").first).to_have_css(
                "background-image", re.compile(r"rgb\(31, 95, 191\)\)$"))
            page.screenshot(path=str(tmp_path / "hall-spectator-card.png"))
            _check_opened(page, turns)
            # The opened board names its squares, as its moves and its status
            # line do ("@b3", "next to the malha"); the small cards do not.
            expect(page.locator('#large-board .sq[data-square="a1"] .name')).to_have_text("a1")
            expect(page.locator("#large-board .sq .name")).to_have_count(25)
            expect(page.locator(".card .sq .name")).to_have_count(0)
            page.screenshot(path=str(tmp_path / "hall-spectator-large.png"))

            b.post("/api/button", {"button": "resign", "side": "defender"})
            words = "Defender resigned: Attacker wins"
            expect(page.locator("#large-moves li").last).to_have_text(words)
            expect(page.locator("#large-status")).to_have_text(words)
            assert page.locator("#large-moves li").last.evaluate(LAST_SHOWN)
            assert "resign:" not in page.locator("#large").inner_text()
            page.screenshot(path=str(tmp_path / "hall-spectator-resigned.png"))
            page.click("#close")
            expect(page.locator('.card[data-board="sp1"] .when')).to_have_text(words)

            b.stop()  # the board goes away: its last word is "offline"
            silent = page.locator('.card[data-board="sp1"] .silent')
            expect(silent).to_contain_text("Not heard from since", timeout=15_000)
            expect(silent).to_contain_text("; offline since ")  # when the hall saw it go
            said = silent.inner_text()  # one time said once: "...; offline since then"
            hms = r"\d\d:\d\d:\d\d"
            times = re.search(rf"since ({hms}).*; offline since (then|{hms})", said)
            assert times is not None and times.group(2) != times.group(1), said
            page.set_viewport_size({"width": 1000, "height": 700})  # cards at their narrowest
            assert page.locator('.card[data-board="sp1"] .when').evaluate(FITS)
            page.screenshot(path=str(tmp_path / "hall-spectator-silent-card.png"))
            page.click('.card[data-board="sp1"]')
            status = page.locator("#large-status")
            expect(status).to_contain_text("Not heard from since")
            expect(status).to_contain_text("; offline since ")
            expect(status).not_to_contain_text("to move")
            page.screenshot(path=str(tmp_path / "hall-spectator-silent.png"))
            browser.close()
    finally:
        b.stop()
        h.stop()
        broker.stop()
        keep_screenshots(tmp_path)


def _check_card(page: Page, turns: list[str]) -> None:
    """The card: the last turn numbered as the record numbers it, whole
    (wrapped, not cut off); the variant named; nobody said to be quiet."""
    card = page.locator('.card[data-board="sp1"]')
    when = card.locator(".when")
    expect(when).to_contain_text(turns[-1] + " · ")
    assert when.evaluate(FITS), when.inner_text()
    assert int(turns[-1].split(".")[0]) < ACTIONS  # by turn, not by action
    expect(card.locator(".variant")).to_have_text("sabouiyya")
    expect(card.locator(".silent")).to_be_hidden()


def _check_opened(page: Page, turns: list[str]) -> None:
    """Opened: every turn in one list, a setting turn's two placements
    together, the newest in sight (the list scrolled to it, nothing beyond
    the list's box)."""
    page.click('.card[data-board="sp1"]')
    items = page.locator("#large-moves li")
    expect(items).to_have_count(len(turns))
    assert items.all_inner_texts() == [t.split(". ", 1)[1] for t in turns]
    numbers: Any = items.evaluate_all("(lis) => lis.map((li) => li.value)")
    assert numbers == list(range(1, len(turns) + 1))
    assert turns[0].count("@") == 2  # "1. @c2 @a1"
    assert items.last.evaluate(LAST_SHOWN)
    expect(page.locator("#large-variant")).to_have_text("sabouiyya")
    assert page.evaluate("(id) => hallTurns(id)", "sp1") == turns


def test_a_hall_started_late_does_not_date_the_moves_now(tmp_path: Path) -> None:
    # The organiser (re)starts the hall after a board played: its moves come
    # from the board's record, which says nothing of when they were made.
    # The card must not show them as made when the hall started ("just now").
    require_chromium()
    broker = Broker(tmp_path / "broker").start()
    b = board(tmp_path, "late1", broker.url).start()
    actions = random_game(4, limit=10)
    h = hall(tmp_path, broker.url)
    try:
        Player(b, actions).play(len(actions), pause=0.02)
        wait_until(lambda: len(b.get("/api/state")["moves"]) == len(actions), 10, "played")
        time.sleep(2.5)  # the record goes out at most every 2 s
        h.start("/api/boards")
        wait_until(lambda: h.get("/api/boards/late1")["moves"] == actions, 20,
                   "the record read by the hall")
        assert h.get("/api/boards/late1")["last_time"] is None
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(h.url + "/")
            card = page.locator('.card[data-board="late1"]')
            why = "time not known (read from the board's record: the hall started after " \
                  "this move was made)"
            # On the card in short, the reason in its tooltip.
            when = card.locator(".when")
            expect(when).to_have_text(f"{_turns(actions)[-1]} · time not known")
            expect(when).to_have_attribute("title", why)
            page.screenshot(path=str(tmp_path / "hall-started-late.png"))
            # A card at its narrowest (170 px) keeps it to two lines at most.
            card.evaluate("el => { el.style.width = '170px'; }")
            height, size = when.evaluate(
                "el => [el.getBoundingClientRect().height, "
                "parseFloat(getComputedStyle(el).fontSize)]")
            assert height < 3 * size, f"{height / size:.1f} font sizes high: three lines"
            card.screenshot(path=str(tmp_path / "hall-card-170.png"))
            # Opened, the board says why in full.
            card.click()
            expect(page.locator("#large-when")).to_have_text(
                f"Last move {_turns(actions)[-1]} · {why}")
            page.locator("#large").screenshot(path=str(tmp_path / "hall-large-untimed.png"))
            browser.close()
    finally:
        b.stop()
        h.stop()
        broker.stop()
        keep_screenshots(tmp_path)
