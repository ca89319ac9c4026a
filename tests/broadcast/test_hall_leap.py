"""Leap-capture games in the hall (Debian's chromium against a real
Mosquitto): boards playing Sixteen Soldiers and checkers are drawn as the
service draws them (the 37-point board's points and lines, the draughts
board's dark squares), their moves in order, the evening's KGN replaying
them."""

from __future__ import annotations

from pathlib import Path

from bchelp import Broker, hall, keep_screenshots, turn_texts, wait_until
from chromium import launch, require_chromium
from playwright.sync_api import expect, sync_playwright

from controller.rules.record import parse_record
from controller.service.hallsim import run_boards


def test_leap_boards_on_the_hall_page(tmp_path: Path) -> None:
    require_chromium()
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    try:
        results = [
            *run_boards(tmp_path / "boards", 1, broker.url, rate=20.0, variant="sixteen-soldiers",
                        max_actions=12, processes=1, linger=1.0, prefix="ss"),
            *run_boards(tmp_path / "boards", 1, broker.url, rate=20.0, variant="checkers",
                        max_actions=12, processes=1, linger=1.0, prefix="ck"),
        ]
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 900, "height": 900},
                                    accept_downloads=True)
            page.goto(h.url + "/")
            for r in results:
                assert len(r.actions) == 12
                wait_until(lambda r=r: page.evaluate("(id) => hallMoves(id)", r.board_id)
                           == r.actions, 30, f"{r.board_id}: every move on the page")
            sixteen = page.locator('.card[data-board="ss00"] .board')
            expect(sixteen).to_have_class("board points")
            expect(sixteen.locator(".sq")).to_have_count(37)
            expect(sixteen.locator("line")).to_have_count(76)
            checkers = page.locator('.card[data-board="ck00"] .board')
            expect(checkers.locator(".sq")).to_have_count(64)
            expect(checkers.locator(".sq.odd")).to_have_count(32)
            expect(checkers.locator(".sq.odd .p")).to_have_count(
                checkers.locator(".p").count())  # soldiers on dark squares only
            page.screenshot(path=str(tmp_path / "hall-leap.png"))
            # On a projector two boards are shown large, each whole on the
            # screen (the 37-point board taller than wide).
            page.set_viewport_size({"width": 1920, "height": 1080})
            cards = "() => [...document.querySelectorAll('.card')].map(c => " \
                    "{const r = c.getBoundingClientRect(); return [r.width, r.bottom];})"
            wait_until(lambda: all(w >= 400 for w, _ in page.evaluate(cards)), 10,
                       "the cards grown on a projector")
            assert all(bottom <= 1080 for _, bottom in page.evaluate(cards))
            page.screenshot(path=str(tmp_path / "hall-leap-projector.png"))
            page.set_viewport_size({"width": 900, "height": 900})
            page.click('.card[data-board="ss00"]')
            expect(page.locator("#large-board .sq")).to_have_count(37)
            assert page.locator("#large-moves li").all_inner_texts() == \
                turn_texts("sixteen-soldiers", results[0].actions)
            page.screenshot(path=str(tmp_path / "hall-leap-large.png"))
            page.click("#close")
            with page.expect_download() as info:
                page.click("#download")
            text = Path(info.value.path()).read_text()
            records = [parse_record("[Variant" + part) for part in text.split("[Variant")[1:]]
            got = sorted([str(m) for m in rec.game().moves] for rec in records)
            assert got == sorted(r.actions for r in results)
            browser.close()
    finally:
        h.stop()
        broker.stop()
        keep_screenshots(tmp_path)
