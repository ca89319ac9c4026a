"""The broker stopped mid-evening and started again, with real board
services, the hall and both pages in Debian's chromium: while it is down
both pages say so and the boards play on; once it is back, every move
made meanwhile reaches the hall page.  Beside them, a board of a newer
version whose variant this hall does not know, with its clock days
behind: its card says so in words, and its move shows at the time the
hall received it."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from bchelp import SLOWEST, Broker, Player, board, hall, keep_screenshots, random_game, wait_until
from chromium import launch, require_chromium
from playwright.sync_api import Page, expect, sync_playwright

LINK_DOWN = "The hall's link to the broker is down: this is how the board was when last heard."


def _newer_board(broker_url: str) -> None:
    """A board's messages in a variant these rules do not know, its
    clock three days behind, sent by hand as a newer version would."""
    import paho.mqtt.publish as publish

    host, port = broker_url.removeprefix("mqtt://").split(":")
    position = "...../...../..A../...../..... d s - 1"
    state = {"game_id": 3, "variant": "zamma", "position": position, "store": "c" * 16,
             "status": "Defender to move", "to_move": "defender", "players": {}}
    move = {"seq": 1, "store": "c" * 16, "game_id": 3, "ply": 1, "move": "@c3",
            "position": position, "time": time.time() - 3 * 86400, "variant": "zamma",
            "options": "", "start": None, "result": None}
    publish.multiple([("kharbga/t3/online", "1", 1, True),
                      ("kharbga/t3/state", json.dumps(state), 1, True),
                      ("kharbga/t3/moves", json.dumps(move), 1, False)],
                     hostname=host, port=int(port))


def _shows(page: Page, players: list[Player]) -> bool:
    return all(page.evaluate("(id) => hallMoves(id)", name) == pl.stored()
               for name, pl in zip(("t1", "t2"), players, strict=True))


def test_broker_stopped_and_started_mid_evening(tmp_path: Path) -> None:
    require_chromium()
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    boards = [board(tmp_path, name, broker.url).start() for name in ("t1", "t2")]
    players = [Player(b, random_game(40 + i)) for i, b in enumerate(boards)]
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            page.goto(h.url + "/")
            expect(page.locator("#link")).to_have_class("link up")
            board_page = browser.new_page()
            board_page.goto(boards[0].url + "/")
            expect(board_page.locator("#broker")).to_have_text("broker: connected (t1)",
                                                                timeout=15_000)
            for pl in players:
                pl.play(6, pause=0.05)
            _newer_board(broker.url)
            wait_until(lambda: _shows(page, players), 20, "the first moves on the hall page")
            newer = page.locator('.card[data-board="t3"]')
            expect(newer.locator(".note")).to_have_text(
                "This hall does not know the variant “zamma”: its moves are shown as the "
                "board sent them, unchecked, and the game is not in the download.")
            expect(newer.locator(".when")).to_contain_text(" s ago)")  # not "4320 min ago"
            newer.click()
            expect(page.locator("#large-note")).to_contain_text(
                "This hall does not know the variant “zamma”")
            page.click("#close")

            broker.stop()  # mid-evening: the organiser restarts Mosquitto
            expect(page.locator("#link")).to_contain_text("not connected", timeout=15_000)
            # since when: how long the hall has heard nothing
            expect(page.locator("#link")).to_have_text(re.compile(
                r"not connected since \d\d:\d\d:\d\d \(\d+ s ago\): (lost|unreachable)$"))
            expect(page.locator("#link")).to_have_class("link down")
            expect(board_page.locator("#broker")).to_contain_text("not connected",
                                                                   timeout=15_000)
            for pl in players:
                pl.play(5, pause=0.05)  # recorded and lit while the broker is away
                assert pl.slowest < SLOWEST
            page.screenshot(path=str(tmp_path / "hall-outage.png"))
            # Mosquitto sent the boards' last wills as it stopped: the boards are not
            # off, the hall's link is; the cards and the opened board say that.
            for card in page.locator(".card").all():
                expect(card.locator(".link-note")).to_have_text(LINK_DOWN)
                expect(card.locator(".silent")).to_be_hidden()
            page.click('.card[data-board="t2"]')
            expect(page.locator("#large-status")).to_have_text(LINK_DOWN)
            page.screenshot(path=str(tmp_path / "hall-outage-large.png"))
            page.click("#close")
            assert not _shows(page, players)  # the moves meanwhile are not there yet

            broker.start()
            expect(page.locator("#link")).to_have_class("link up", timeout=20_000)
            expect(board_page.locator("#broker")).to_have_text("broker: connected (t1)",
                                                                timeout=20_000)
            expect(page.locator(".card .link-note:visible")).to_have_count(0)
            # The boards came back: the last wills the broker sent as it stopped are
            # undone.  The hand-made board never speaks again: not heard from since.
            for name in ("t1", "t2"):
                expect(page.locator(f'.card[data-board="{name}"] .silent')).to_be_hidden()
            expect(page.locator(".card.offline")).to_have_count(1)
            expect(newer.locator(".silent")).to_contain_text("Not heard from since ")
            for pl in players:
                pl.play(4, pause=0.05)
            wait_until(lambda: _shows(page, players), 40,
                       "every move, those made while the broker was down too, on the hall page")
            page.click('.card[data-board="t1"]')
            expect(page.locator("#large")).to_be_visible()
            page.screenshot(path=str(tmp_path / "hall-after-outage.png"))
            assert "0 messages ignored" in page.locator("#counts").inner_text()
            page.click("#close")
            h.stop()  # the hall itself gone: the page says it lost the hall, not the broker
            expect(page.locator("#link")).to_have_text(re.compile(
                r"^the hall does not answer this page since \d\d:\d\d:\d\d \(\d+ s ago\): "
                "reconnecting…$"), timeout=15_000)
            expect(page.locator('.card[data-board="t1"] .link-note')).to_have_text(
                "This page has lost the hall (it keeps trying): this is how the board was "
                "when last heard.")
            page.screenshot(path=str(tmp_path / "hall-page-lost.png"))
            browser.close()
    finally:
        for b in boards:
            b.stop()
        h.stop()
        broker.stop()
        keep_screenshots(tmp_path)


def test_a_board_gone_while_the_broker_was_down_is_not_shown_online(tmp_path: Path) -> None:
    """The broker killed (no last wills) and started again without its
    memory; meanwhile one board is gone for good (SIGKILL): the hall does
    not go on calling it online, while the board that came back is."""
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    boards = [board(tmp_path, name, broker.url).start() for name in ("k1", "k2")]
    players = [Player(b, random_game(50 + i)) for i, b in enumerate(boards)]
    try:
        for pl in players:
            pl.play(4, pause=0.05)
        wait_until(lambda: all(h.get(f"/api/boards/{n}")["online"] is True for n in ("k1", "k2"))
                   and h.get("/api/boards/k2")["ply"] == 4, 20, "both boards heard")
        broker.kill()
        boards[1].kill()  # gone for good: it never says so
        wait_until(lambda: not h.get("/api/boards")["link"]["connected"], 15, "link down")
        players[0].play(3, pause=0.05)
        broker.start()
        wait_until(lambda: h.get("/api/boards")["link"]["connected"], 20, "link up")
        wait_until(lambda: h.get("/api/boards/k1")["moves"] == players[0].stored(), 30,
                   "the board that came back: every move")
        time.sleep(6)  # more than a board takes to connect again (1 to 5 s)
        assert h.get("/api/boards/k1")["online"] is True
        gone = h.get("/api/boards/k2")
        assert gone["online"] is False and gone["ply"] == 4
        assert gone["heard"] is not None and gone["heard"] < time.time() - 5
    finally:
        for b in boards:
            b.stop()
        h.stop()
        broker.stop()
