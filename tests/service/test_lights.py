"""What a player at the board sees on the page (Debian's chromium): the
legend of the lights the game can show, lifted, capture, chain, error and hint lights, the
draw offer, resigning and the game's end in words, the viewer.

With ``KHARBGA_PAGE_SHOTS=DIR`` the screenshots are also written to DIR
(docs/page.md shows them)."""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import launch
from playwright.sync_api import Page, expect, sync_playwright
from server import Server
from test_browser import served_page

from controller.board.leds import legend
from controller.rules import Game
from controller.rules.random_games import lasting_moves


def occ(bits: int, n: int) -> str:
    return "".join("1" if bits >> i & 1 else "0" for i in range(n))


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[Page, Server]]:
    with served_page(tmp_path, 460, 820) as (pg, server):
        expect(pg.locator("#conn")).to_have_text("live")
        yield pg, server


def shot(pg: Page, tmp_path: Path, name: str) -> None:
    # A lit square stays in its row, the same size as its neighbours, its
    # name shown (a stray margin once pushed lit squares down).
    rows = pg.evaluate("""() => {
        const rows = {};
        for (const sq of document.querySelectorAll('#board [data-square]')) {
            const r = sq.getBoundingClientRect(), rank = sq.dataset.square.slice(1);
            (rows[rank] = rows[rank] || []).push([r.top, r.height]);
        }
        return Object.values(rows);
    }""")
    for row in rows:
        assert max(t for t, _ in row) - min(t for t, _ in row) < 0.5, (name, row)
        assert max(h for _, h in row) - min(h for _, h in row) < 0.5, (name, row)
    # Every row the same height (a king's crown once made its row taller,
    # and the king an oval in it).
    heights = [h for row in rows for _, h in row]
    assert max(heights) - min(heights) < 0.5, (name, heights)
    for label in pg.locator("#board .sq.lit .label").all():
        assert label.is_visible()
    path = tmp_path / f"{name}.png"
    pg.locator(".play").screenshot(path=str(path), animations="disabled")  # lights on
    out = os.environ.get("KHARBGA_PAGE_SHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(out) / path.name)


def send(server: Server, bits: int, position: str | None = None) -> None:
    server.post("/api/sim/occupancy", {"occ": occ(bits, 25)})
    deadline = time.monotonic() + 10
    while position is not None and server.get("/api/state")["position"] != position:
        assert time.monotonic() < deadline, f"the board never reached {position}"
        time.sleep(0.03)


def lights(pg: Page, role: str) -> list[str]:
    return sorted(pg.locator(f'#board [data-led="{role}"]').evaluate_all(
        "els => els.map(e => e.dataset.square)"))


def listed(pg: Page) -> list[str]:
    """The lights the legend lists (the malha's cross, not a light, is left out)."""
    return [r for r in pg.locator("#legend li").evaluate_all("els => els.map(e => e.dataset.role)")
            if r != "malha"]


def test_the_legend_lists_the_lights_this_game_can_show(board: tuple[Page, Server]) -> None:
    pg, server = board
    everything = [str(r["role"]) for r in legend()]
    # While the soldiers are set (no kings, no exchange in sabouiyya), none
    # of a step's, a capture's or a chain's: the looks test_lights_of.py
    # decides for the setting phase, where a new role is decided too.
    from test_lights_of import SETTING_LOOKS

    shown = [r for r in legend() if r["role"] in SETTING_LOOKS]
    assert {str(r["role"]) for r in shown} == {"setup", "hint", "hint-to", "lifted", "error"}
    # The setting phase's lights: where the rules let the next soldier go.
    words = {"setup": "the next soldier may be set here (the rules keep it off the others)"}
    items = pg.locator("#legend li:not([data-role=malha])")
    expect(items).to_have_count(len(shown))
    # The cross drawn on the centre square is said too, with what the word means.
    expect(pg.locator('#legend [data-role="malha"]')).to_have_text(
        "c3: the malha, the centre square: it stays empty while the soldiers are set, "
        "and the first move goes into it")
    assert pg.locator('#board [data-square="c3"]').get_attribute("title") == (
        "c3: the malha, the centre square: it stays empty while the soldiers are set, "
        "and the first move goes into it")
    for i, r in enumerate(shown):
        item = items.nth(i)
        expect(item).to_have_attribute("data-role", str(r["role"]))
        # In words only: the role's name ("hint-to") is the program's, not a player's.
        period = float(str(r["blink"]))
        blink = f' (blinks every {period:g} s)' if period > 0 else ""
        expect(item).to_have_text(f'{words.get(str(r["role"]), str(r["meaning"]))}{blink}')
        colour = str(r["colour"])
        rgb = tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))
        ring = item.locator(".swatch").evaluate("e => getComputedStyle(e).boxShadow")
        assert ring.startswith("rgb({}, {}, {}) ".format(*rgb)) and "inset" in ring
    # No button for an exchange the rules do not have.
    expect(pg.locator('[data-button="exchange"]')).to_be_hidden()
    # The squares take the same colours: the setup squares of the first move.
    setup = pg.locator('#board [data-square="c2"]')
    expect(setup).to_have_attribute("data-led", "setup")
    assert setup.evaluate("e => getComputedStyle(e).getPropertyValue('--led')").strip() == \
        next(r["colour"] for r in shown if r["role"] == "setup")
    # A kharbga game in its moving phase has the exchange: its two lights
    # and its button come back, the setting's light goes (it can no longer
    # be lit); a checkers game crowns kings and has no exchange.
    game = Game.new("kharbga")
    rng = random.Random(5)
    while game.phase != "moving":
        game.play(rng.choice(game.legal_moves()))
    server.post("/api/new", {"variant": "kharbga", "position": game.position()})
    expect(pg.locator('#legend [data-role="exchange-request"]')).to_have_count(1)
    expect(pg.locator('#legend [data-role="malha"]')).to_contain_text("d4: the malha")
    assert listed(pg) == [r for r in everything if r not in ("king", "setup")]
    expect(pg.locator('#legend [data-role="continue"]')).to_contain_text(
        "this soldier must capture again")  # kharbga's chains are mandatory
    expect(pg.locator('[data-button="exchange"]')).to_be_visible()
    server.post("/api/new", {"variant": "checkers"})
    expect(pg.locator('#legend [data-role="king"]')).to_have_count(1)
    assert listed(pg) == [r for r in everything if r not in ("exchange", "exchange-request")]
    expect(pg.locator('#legend [data-role="malha"]')).to_have_count(0)  # no malha in checkers
    expect(pg.locator('[data-button="exchange"]')).to_be_hidden()


def _hint(pg: Page, server: Server, game: Game, tmp_path: Path) -> None:
    """A hint: its from and to squares told apart, the move named."""
    pg.click('[data-button="hint"]')
    expect(pg.locator("#board [data-hint=from]")).to_have_count(1, timeout=10000)
    hint = server.get("/api/state")
    squares = hint["hint_squares"]
    expect(pg.locator(f'#board [data-square="{squares["from"]}"] .tag')).to_have_text("from")
    expect(pg.locator(f'#board [data-square="{squares["to"]}"] .tag')).to_have_text("to")
    assert squares["from"] in hint["hint_move"] and squares["to"] in hint["hint_move"]
    # Two colours, as on the board's LEDs: hint, then hint-to.
    colours = [pg.locator(f'#board [data-square="{squares[end]}"]').evaluate(
        "e => e.style.getPropertyValue('--led')") for end in ("from", "to")]
    styles = {r["role"]: r["colour"] for r in server.get("/api/legend")}
    assert colours == [styles["hint"], styles["hint-to"]]
    # Each end's words on hover (before: "starts here" on both).
    titles = [pg.locator(f'#board [data-square="{squares[end]}"]').get_attribute("title")
              for end in ("from", "to")]
    assert titles == [f'{squares["from"]}: the suggested move starts here',
                      f'{squares["to"]}: the suggested move ends here']
    # The lights lit now, in words: each end under its own look.
    expect(pg.locator('#lit [data-role="hint"]')).to_contain_text(f'{squares["from"]}: ')
    expect(pg.locator('#lit [data-role="hint-to"]')).to_have_text(
        f'{squares["to"]}: the suggested move ends here (a hint\'s second square)')
    expect(pg.locator("#status")).to_contain_text(
        f"Hint for {game.to_move.capitalize()}: {hint['hint_move']}")
    shot(pg, tmp_path, "hint")


def _play_to_a_chain(pg: Page, server: Server, tmp_path: Path) -> Game:
    """A game with captures preferred (seed 0: a capture at action 25, a
    chain at 38), screenshots on the way."""
    rng = random.Random(0)
    game = Game.new("sabouiyya")
    seen = set()
    while game.chain_square is None:
        moves = lasting_moves(game)
        caps = [m for m in moves if m.capture]
        move = rng.choice(caps) if caps else rng.choice(moves)
        a, d = game.bitboards()
        before = a | d
        game.play(move)
        a, d = game.bitboards()
        after = a | d
        names = game.geometry.point_names
        if move.kind == "step" and "lifted" not in seen:
            send(server, before & ~(1 << move.frm))
            expect(pg.locator(f'#board [data-square="{names[move.frm]}"]')) \
                .to_have_attribute("data-led", "lifted")
            assert names[move.to] in lights(pg, "destination")
            expect(pg.locator("#status")).to_contain_text(f"{names[move.frm]} lifted")
            shot(pg, tmp_path, "lifted")
            seen.add("lifted")
        gone = before & ~after & ~(1 << move.frm if move.frm >= 0 else 0)
        if gone and "capture" not in seen:
            send(server, after | gone)
            taken = [names[p] for p in range(25) if gone >> p & 1]  # the board's order
            expect(pg.locator("#status")).to_have_text(
                (f"{taken[0]}: remove the captured soldier" if len(taken) == 1
                 else f"Remove the captured soldiers on {', '.join(taken)}")
                + f" (taken by {move})")
            assert lights(pg, "capture") == sorted(taken)
            shot(pg, tmp_path, "capture")
            seen.add("capture")
        send(server, after, game.position())
        if "capture" in seen and "hint" not in seen and game.chain_square is None:
            _hint(pg, server, game, tmp_path)
            seen.add("hint")
    expect(pg.locator(f'#board [data-square="{game.chain_square}"]')) \
        .to_have_attribute("data-led", "continue")
    expect(pg.locator("#status")).to_contain_text(f"continue the capture with {game.chain_square}")
    shot(pg, tmp_path, "chain")
    return game


def test_lights_of_a_game(board: tuple[Page, Server], tmp_path: Path) -> None:
    pg, server = board
    game = _play_to_a_chain(pg, server, tmp_path)
    # Ending the chain (pass), then a soldier set on a wrong square: error.
    moves = [m for m in game.legal_moves() if m.kind == "pass"]
    if moves:
        game.play(moves[0])
    a, d = game.bitboards()
    empty = [p for p in range(25) if not (a | d) >> p & 1 and p != 12]
    wrong = (a | d) | 1 << empty[0]
    name = game.geometry.point_names[empty[0]]
    send(server, wrong)
    expect(pg.locator(f'#board [data-square="{name}"]')).to_have_attribute(
        "data-led", "error", timeout=5000)
    expect(pg.locator("#status")).to_have_text(f"{name}: no soldier belongs here; take it off")
    shot(pg, tmp_path, "error")
    send(server, a | d)
    expect(pg.locator("#board [data-led=error]")).to_have_count(0)


def test_hint_draw_offer_resign_and_the_end_in_words(board: tuple[Page, Server],
                                                     tmp_path: Path) -> None:
    pg, server = board
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1", "@b3", "@e5", "@d3", "@a5", "@c4", "@e1", "@b2", "@d4",
                  "@b4", "@d2"]:
        game.play(token)
        a, d = game.bitboards()
        send(server, a | d, game.position())
    assert game.phase == "setting" and game.in_hand("attacker") == 6  # 12 of 24 set
    pg.click('[data-button="hint"]')
    expect(pg.locator("#board [data-hint=to]")).to_have_count(1, timeout=10000)
    state = server.get("/api/state")
    hint = state["hint_squares"]
    expect(pg.locator("#status")).to_contain_text(f"Hint for {game.to_move.capitalize()}: ")
    expect(pg.locator(f'#board [data-square="{hint["to"]}"] .tag')).to_have_text("to")
    # A draw offered, declined, offered again and accepted.
    side = state["to_move"]
    other = "defender" if side == "attacker" else "attacker"
    pg.click('[data-button="draw"]')
    expect(pg.locator("#draw-offer")).to_contain_text(f"{side.capitalize()} offers a draw")
    expect(pg.locator("#draw-accept")).to_have_text(f"{other.capitalize()} accepts")
    # The status line says both: the hint still lit, and the offer.
    expect(pg.locator("#status")).to_contain_text(f"Hint for {game.to_move.capitalize()}: ")
    expect(pg.locator("#status")).to_contain_text(
        f"{side.capitalize()} offers a draw: {other.capitalize()}: Draw accepts it, a move "
        "declines it")
    shot(pg, tmp_path, "draw-offer")
    pg.click("#draw-decline")
    expect(pg.locator("#draw-offer")).to_be_hidden()
    assert server.get("/api/state")["draw_offer"] is None
    # Resigning asks first and names the side.
    pg.click('[data-button="resign"]')
    expect(pg.locator("#confirm")).to_contain_text(
        f"{side.capitalize()} resigns: {other.capitalize()} wins")
    pg.click("#confirm-no")
    assert server.get("/api/state")["outcome"] is None
    pg.click('[data-button="resign"]')
    pg.click("#confirm-yes")
    expect(pg.locator("#turn")).to_have_text(f"{other.capitalize()} wins: resignation")
    expect(pg.locator("#status")).to_contain_text("(resignation)")
    expect(pg.locator("#board [data-led=hint]")).to_have_count(0)  # over: no hint
    for button in ("hint", "draw", "resign"):  # nothing left to ask or offer, and it says so
        expect(pg.locator(f'[data-button="{button}"]')).to_be_disabled()
        expect(pg.locator(f'[data-button="{button}"]')).to_have_attribute(
            "title", "The game is over: clear the board or start a new game")
    shot(pg, tmp_path, "game-over")
    # The viewer numbers the actions as the record does; its buttons are drawn.
    pg.locator("#games button").first.click()
    expect(pg.locator("#v-ply")).to_have_text(
        f"{side.capitalize()} resigns (action 13 of 13)")
    expect(pg.locator("#v-what")).to_have_text("")  # a resignation moves nothing
    pg.click("#v-prev")
    expect(pg.locator("#v-ply")).to_have_text("6. @d2 (action 12 of 13)")
    expect(pg.locator('#viewer-board [data-square="d2"]')).to_have_attribute("data-was", "to")
    expect(pg.locator("#v-what")).to_have_text("set on d2")
    # The arrow keys step through the game, Home and End to its ends.
    pg.keyboard.press("ArrowLeft")
    expect(pg.locator("#v-ply")).to_contain_text("(action 11 of 13)")
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowRight")
    expect(pg.locator("#v-ply")).to_contain_text("resigns (action 13 of 13)")
    pg.keyboard.press("Home")
    expect(pg.locator("#v-ply")).to_have_text("start (action 0 of 13)")
    pg.keyboard.press("End")
    expect(pg.locator("#v-ply")).to_contain_text("(action 13 of 13)")
    pg.click("#v-prev")
    for button in ("#v-first", "#v-prev", "#v-next", "#v-last"):
        box = pg.locator(f"{button} svg").bounding_box()
        assert box is not None and box["width"] >= 8
    pg.click("#v-first")
    expect(pg.locator("#v-ply")).to_contain_text("start")
    pg.locator("#viewer").screenshot(path=str(tmp_path / "viewer.png"))


def test_an_exchange_request_is_lit_on_its_soldier(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "kharbga")
    server.start()
    try:
        rng = random.Random(0)  # flagged steps preferred: the Defender asks at action 51
        game = Game.new("kharbga")
        while game.exchange is None:
            moves = game.legal_moves()
            flagged = [m for m in moves if m.flag]
            move = rng.choice(flagged) if flagged else rng.choice(moves)
            if move.flag:
                server.post("/api/button", {"button": "exchange", "side": game.to_move})
            game.play(move)
            a, d = game.bitboards()
            server.post("/api/sim/occupancy", {"occ": occ(a | d, 49)})
            deadline = time.monotonic() + 10
            while server.get("/api/state")["position"] != game.position():
                assert time.monotonic() < deadline, f"the board never reached {game.position()}"
                time.sleep(0.03)
        square = game.geometry.point_names[game.exchange.soldier]
        with sync_playwright() as p:
            browser = launch(p)
            pg = browser.new_page(viewport={"width": 460, "height": 820})
            pg.goto(server.url + "/")
            expect(pg.locator(f'#board [data-square="{square}"]')).to_have_attribute(
                "data-led", "exchange-request")
            expect(pg.locator("#status")).to_contain_text(
                f"the Defender asks an exchange with {square}")
            shot(pg, tmp_path, "exchange")
            browser.close()
    finally:
        server.stop()
