"""The hall page in Debian's chromium (Playwright) against a real Mosquitto,
with twenty simulated boards (real board services and publishers) playing
at once: every board shown live, every move on the page in order, one board
opened large, all games downloaded as one KGN file."""

from __future__ import annotations

import threading
from pathlib import Path

from bchelp import Broker, hall, keep_screenshots, turn_texts, wait_until
from chromium import launch, require_chromium
from playwright.sync_api import expect, sync_playwright

from controller.rules.record import parse_record
from controller.service.hallsim import BoardResult, run_boards

BOARDS = 20


def test_twenty_boards_on_the_hall_page(tmp_path: Path) -> None:
    require_chromium()
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    results: list[BoardResult] = []
    failed: list[BaseException] = []

    def play() -> None:
        try:
            results.extend(run_boards(tmp_path / "boards", BOARDS, broker.url, rate=5.0,
                                      variant="sabouiyya", max_actions=40, processes=2,
                                      linger=1.0, prefix="hb"))
        except BaseException as exc:  # reported below
            failed.append(exc)

    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1280, "height": 1000},
                                    accept_downloads=True)
            page.goto(h.url + "/")
            expect(page.locator("#link")).to_have_class("link up")
            players = threading.Thread(target=play)
            players.start()
            # Live: every board appears while the games are being played.
            expect(page.locator(".card")).to_have_count(BOARDS, timeout=60_000)
            page.wait_for_function("() => document.querySelectorAll('.card .p').length > 40")
            page.screenshot(path=str(tmp_path / "hall-live.png"))
            players.join(300)
            assert not players.is_alive() and not failed, failed
            assert len(results) == BOARDS
            for r in results:
                assert len(r.actions) >= 20
                wait_until(lambda r=r: page.evaluate("(id) => hallMoves(id)", r.board_id)
                           == r.actions, 30, f"{r.board_id}: every move on the page")
                card = page.locator(f'.card[data-board="{r.board_id}"]')
                expect(card).to_have_attribute("data-ply", str(len(r.actions)))
            page.screenshot(path=str(tmp_path / "hall.png"))
            # One board large, with its moves by turn.
            one = results[3]
            page.click(f'.card[data-board="{one.board_id}"]')
            expect(page.locator("#large")).to_be_visible()
            assert page.locator("#large-moves li").all_inner_texts() == \
                turn_texts("sabouiyya", one.actions)
            expect(page.locator("#large-board .sq")).to_have_count(25)
            # Drawn as the board's own page draws it: a Kharbga board's
            # squares alike (no draughts chequer), the players named once.
            expect(page.locator("#large-board .sq.odd")).to_have_count(0)
            expect(page.locator("#large-players")).to_have_text("Attacker – Defender")
            # A named player is said with the side; a computer's thinking time
            # and the side share one pair of brackets.
            said = page.evaluate("""() => [player("Amel", "Attacker"),
                player("Computer (club, level 3, 1 s)", "Defender"), player(" ", "Defender"),
                player("defender", "Defender"), player("(x)", "Attacker")]""")
            assert said == ["Amel (Attacker)", "Computer (club, level 3, 1 s, Defender)",
                            "Defender", "Defender", "(x) (Attacker)"], said
            page.screenshot(path=str(tmp_path / "hall-large.png"))
            page.click("#close")
            expect(page.locator("#large")).to_be_hidden()
            # The evening's games in one file.
            with page.expect_download() as info:
                page.click("#download")
            text = Path(info.value.path()).read_text()
            records = [parse_record("[Variant" + part) for part in text.split("[Variant")[1:]]
            by_board = {r.board_id: r.actions for r in results}
            assert len(records) == BOARDS
            got = sorted([str(m) for m in rec.game().moves] for rec in records)
            assert got == sorted(by_board.values())
            assert "0 messages ignored" in page.locator("#counts").inner_text()
            browser.close()
    finally:
        h.stop()
        broker.stop()
        keep_screenshots(tmp_path)


def test_board_page_shows_the_broker_link(tmp_path: Path) -> None:
    """The board's own page: the link's state, down then up."""
    from bchelp import board, free_port

    port = free_port()
    b = board(tmp_path, "pb", f"mqtt://127.0.0.1:{port}").start()
    broker = Broker(tmp_path / "broker")
    broker.port = port
    broker.conf.write_text(f"listener {port} 127.0.0.1\npersistence false\n"
                           "allow_anonymous true\n")
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            page.goto(b.url + "/")
            link = page.locator("#broker")
            expect(link).to_contain_text("not connected")
            expect(link).to_contain_text("unreachable")
            expect(link).to_have_class("conn offline")
            broker.start()
            expect(link).to_have_text("broker: connected (pb)", timeout=15_000)
            browser.close()
    finally:
        b.stop()
        broker.stop()


def test_the_halls_counts_say_one_board_in_the_singular(tmp_path: Path) -> None:
    """One board with one move: "1 board · 1 move shown"; before, "1 boards
    · 1 moves shown"."""
    from bchelp import board

    require_chromium()
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    b = board(tmp_path, "solo", broker.url).start()
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            page.goto(h.url + "/")
            b.post("/api/sim/occupancy", {"point": "c2", "occupied": True})
            expect(page.locator("#counts")).to_have_text(
                "1 board · 1 move shown · 0 messages ignored", timeout=15_000)
            browser.close()
    finally:
        b.stop()
        h.stop()
        broker.stop()


def test_long_names_in_two_scripts_both_show_on_a_phone_s_card(tmp_path: Path) -> None:
    # An Arabic name beside a Latin one on a 390 px screen: the card showed
    # the Arabic name's end alone, the Defender's gone, no way to read them.
    from bchelp import board

    require_chromium()
    attacker = "محمد بن عبد الرحمن القيرواني التونسي"
    defender = "Ḥammādī Ben Ṣāliḥ-Šarīf d'Aïn Drahäm"
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    b = board(tmp_path, "names", broker.url).start()
    try:
        b.post("/api/new", {"variant": "sabouiyya", "attacker": attacker, "defender": defender})
        b.post("/api/sim/occupancy", {"point": "c2", "occupied": True})
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(h.url + "/")
            names = page.locator('.card[data-board="names"] .names')
            # One placement made: still the Attacker's turn, marked on its name.
            expect(names).to_have_attribute("title", f"{attacker} – {defender}; {attacker} "
                                            "to move", timeout=15_000)
            expect(names.locator("bdi.turn")).to_have_text(attacker)
            box = names.bounding_box()
            assert box is not None
            shown = [bdi.bounding_box() for bdi in names.locator("bdi").all()]
            assert [bdi.inner_text() for bdi in names.locator("bdi").all()] == [attacker,
                                                                               defender]
            for part in shown:  # each name in sight, some of it, inside the card's line
                assert part is not None and part["width"] > 20
                assert box["x"] - 1 <= part["x"] and part["x"] + part["width"] <= \
                    box["x"] + box["width"] + 1
            page.screenshot(path=str(tmp_path / "hall-names.png"))
            # The turn passes with the second placement; a resignation ends
            # it: no side to move is marked on a finished game's card.
            b.post("/api/sim/occupancy", {"point": "c4", "occupied": True})
            expect(names.locator("bdi.turn")).to_have_text(defender, timeout=15_000)
            expect(names.locator(".turn-mark")).to_have_count(1)
            b.post("/api/button", {"button": "resign", "side": "defender"})
            expect(page.locator('.card[data-board="names"] .result')).not_to_be_empty(
                timeout=15_000)
            expect(names).to_have_attribute("title", f"{attacker} – {defender}")
            expect(names.locator(".turn-mark, .turn")).to_have_count(0)
            browser.close()
    finally:
        b.stop()
        h.stop()
        broker.stop()
        keep_screenshots(tmp_path)
