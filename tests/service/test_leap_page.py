"""The leap-capture games on the page (Debian's chromium): each variant's
board drawn from the geometry the service sends, moves played by clicks on
the simulated board with their lights (lifted, destinations, captures, the
soldier that must continue, the huff, a hint in a chain), kings drawn and
lit.

With ``KHARBGA_PAGE_SHOTS=DIR`` the screenshots are also written to DIR
(docs/page.md shows them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import box as steady_box
from playwright.sync_api import Page, expect
from server import Server
from test_browser import served_page
from test_lights import shot

from controller.rules import AnyGame, game_from_position, new_game
from controller.rules.record import parse_record

# Checkers: the Attacker's man on b6 leaps c7 and is crowned on d8.
CROWNING = ".......D/..D...../.A....../......../......../......../......../........ a m - 1 np=0"


@pytest.fixture
def opened(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Page, Server]]:
    with served_page(tmp_path, 460, 900, request.param) as (pg, server):
        expect(pg.locator("#conn")).to_have_text("live")
        yield pg, server


def cell(pg: Page, name: str) -> object:
    return pg.locator(f'#board [data-square="{name}"]')


def wait_for(server: Server, position: str) -> None:
    deadline = time.monotonic() + 10
    while server.get("/api/state")["position"] != position:
        assert time.monotonic() < deadline, f"the board never reached {position}"
        time.sleep(0.03)


def click(pg: Page, game: AnyGame, token: str) -> list[str]:
    """Play ``token`` on ``game`` and by clicks on the page's simulated
    board, checking the lights on the way; returns the points captured."""
    names = game.geometry.point_names
    a, d = game.bitboards()
    before = a | d
    move = game.play(token)
    a, d = game.bitboards()
    if move.from_square is None:  # a huff: the enemy soldier taken off
        expect(cell(pg, move.to_square)).to_have_attribute("data-led", "capture")
        pg.click(f'#board [data-square="{move.to_square}"]')
        return []
    # A player lifts the soldier they see: the page shows it first (a click
    # still in flight from before a new game draws the board as it was).
    expect(cell(pg, move.from_square).locator(".piece")).to_have_count(1)
    pg.click(f'#board [data-square="{move.from_square}"]')
    expect(cell(pg, move.from_square)).to_have_attribute("data-led", "lifted")
    expect(cell(pg, move.to_square)).to_have_attribute("data-led", "destination")
    pg.click(f'#board [data-square="{move.to_square}"]')
    gone = before & ~(a | d) & ~(1 << names.index(move.from_square))
    taken = [names[p] for p in range(len(names)) if gone >> p & 1]
    for name in taken:
        expect(cell(pg, name)).to_have_attribute("data-led", "capture")
    return taken


def take_off(pg: Page, server: Server, game: AnyGame, taken: list[str]) -> None:
    for name in taken:
        pg.click(f'#board [data-square="{name}"]')
    wait_for(server, game.position())
    expect(pg.locator("#board [data-led=error]")).to_have_count(0)


def play(pg: Page, server: Server, game: AnyGame, tokens: list[str]) -> None:
    for token in tokens:
        take_off(pg, server, game, click(pg, game, token))


@pytest.mark.parametrize(("opened", "place"), [("sixteen-soldiers", "point"),
                                               ("checkers", "square")], indirect=["opened"])
def test_the_simulated_boards_help_names_its_own_places(opened: tuple[Page, Server],
                                                        place: str) -> None:
    # Before, 'click an empty square or point' on every board.
    pg, _ = opened
    expect(pg.locator("#sim-help")).to_be_visible()
    expect(pg.locator("#sim-help-words")).to_have_text(
        "Simulated board: click a piece to lift it, click an empty "
        f"{place} to set a piece down.")


@pytest.mark.parametrize("opened", ["sixteen-soldiers"], indirect=True)
def test_sixteen_soldiers_a_huff_and_a_capture(opened: tuple[Page, Server],
                                               tmp_path: Path) -> None:
    pg, server = opened
    expect(pg.locator("#board")).to_have_attribute("data-geometry", "37-point")
    expect(pg.locator("#board .pt")).to_have_count(37)
    expect(pg.locator("#board svg.lines line")).to_have_count(76)
    expect(pg.locator('#board [data-square="a1"] .piece.attacker')).to_have_count(1)
    expect(pg.locator('#board [data-square="e9"] .piece.defender')).to_have_count(1)
    expect(pg.locator('[data-button="exchange"]')).to_be_hidden()
    expect(pg.locator('#new-game select[name="variant"]')).to_have_value("sixteen-soldiers")
    game = new_game("sixteen-soldiers")
    play(pg, server, game, ["d4-e5", "d6-c5", "c4-d4"])
    # b4 could have captured and did not: the Defender huffs it.
    expect(cell(pg, "b4")).to_have_attribute("data-led", "capture")
    expect(pg.locator("#status")).to_contain_text("huff")
    expect(pg.locator("#status")).to_contain_text("b4")
    expect(pg.locator('#lit [data-role="capture"]')).to_contain_text("b4: captured (or huffed)")
    shot(pg, tmp_path, "leap-huff")
    play(pg, server, game, ["xb4", "b6-b5"])
    # A capture: d4 leaps c5; the soldier leapt over is lit to go.
    taken = click(pg, game, "d4xb6")
    assert taken == ["c5"]
    assert len(taken) == 1
    expect(pg.locator("#status")).to_contain_text(taken[0])
    shot(pg, tmp_path, "leap-capture")
    take_off(pg, server, game, taken)
    state = server.get("/api/state")
    assert state["moves"] == ["d4-e5", "d6-c5", "c4-d4", "xb4", "b6-b5", "d4xb6"]
    assert state["counts"] == {"attacker": 15, "defender": 15}


@pytest.mark.parametrize("opened", ["hewakam-keliya"], indirect=True)
def test_hewakam_keliya_a_capture_and_the_soldier_that_may_continue(
        opened: tuple[Page, Server], tmp_path: Path) -> None:
    pg, server = opened
    game = new_game("hewakam-keliya")
    play(pg, server, game, ["d4-e5", "d6-c5", "b4xd6", "d7xd5", "e5xc5", "b6xd4"])
    square = game.chain_square
    assert square is not None
    expect(cell(pg, square)).to_have_attribute("data-led", "continue")
    expect(pg.locator("#status")).to_contain_text(square)
    expect(pg.locator('#lit [data-role="continue"]')).to_contain_text(square)
    shot(pg, tmp_path, "leap-continue")
    record = parse_record(server.get(f"/api/games/{server.get('/api/state')['game_id']}.kgn"))
    assert record.game().position() == game.position()


@pytest.mark.parametrize("opened", ["checkers"], indirect=True)
def test_checkers_a_capture_and_a_crowning(opened: tuple[Page, Server],
                                           tmp_path: Path) -> None:
    pg, server = opened
    expect(pg.locator("#board")).to_have_attribute("data-geometry", "8x8")
    expect(pg.locator("#board .sq.dark")).to_have_count(32)
    expect(pg.locator("#board .sq")).to_have_count(64)
    game = new_game("checkers")
    play(pg, server, game, ["g3-f4", "b6-a5", "e3-d4", "a5-b4", "c3xa5"])
    assert game.count("defender") == 11
    # A new game from a position (as the API allows): a man about to crown.
    server.post("/api/new", {"variant": "checkers", "position": CROWNING})
    game = game_from_position("checkers", CROWNING)
    expect(cell(pg, "c7").locator(".piece.defender")).to_have_count(1)
    play(pg, server, game, ["b6xd8"])
    expect(cell(pg, "d8")).to_have_attribute("data-king", "attacker")
    expect(cell(pg, "d8").locator(".piece.king")).to_have_count(1)
    play(pg, server, game, ["h8-g7"])
    # The king's point in its own light, said in words under the board.
    expect(cell(pg, "d8")).to_have_attribute("data-led", "king")
    expect(pg.locator('#lit [data-role="king"]')).to_contain_text("d8: a king")
    expect(pg.locator('#legend [data-role="king"]')).to_contain_text("a king")
    king = steady_box(cell(pg, "d8").locator(".piece.king"))
    man = steady_box(cell(pg, "g7").locator(".piece"))
    assert king and man and abs(king["width"] - king["height"]) < 1, king  # round, as the men
    assert abs(king["height"] - man["height"]) < 1, (king, man)
    shot(pg, tmp_path, "leap-king")
    assert server.get("/api/state")["kings"] == ["d8"]
    # The viewer draws a past game on its own board: the first game here.
    pg.locator("#games button").nth(1).click()
    expect(pg.locator("#viewer-board .sq.dark")).to_have_count(32)
    expect(pg.locator("#v-ply")).to_contain_text("c3xa5 (action 5 of 5)")
    # The action shown is marked on the board and said in words: where the
    # man left and arrived, the man it captured.
    viewer = pg.locator("#viewer-board")
    expect(viewer.locator('[data-square="c3"]')).to_have_attribute("data-was", "from")
    expect(viewer.locator('[data-square="a5"]')).to_have_attribute("data-was", "to")
    expect(viewer.locator('[data-square="b4"]')).to_have_attribute("data-was", "taken")
    expect(viewer.locator('[data-square="b4"]')).to_have_attribute("title", "b4: captured")
    expect(viewer.locator("[data-was]")).to_have_count(3)
    expect(pg.locator("#v-what")).to_have_text("c3 to a5; b4 captured")
    pg.locator("#viewer").screenshot(path=str(tmp_path / "viewer-capture.png"))
    pg.click("#v-first")
    expect(viewer.locator("[data-was]")).to_have_count(0)
    expect(pg.locator("#v-what")).to_have_text("")
    expect(pg.locator("#viewer-board .piece")).to_have_count(24)


@pytest.mark.parametrize("opened", ["sixteen-soldiers"], indirect=True)
def test_the_viewer_says_a_huffed_soldier_was_taken_off_not_captured(
        opened: tuple[Page, Server]) -> None:
    # Before: the viewer said "b4 captured" of a huff, as if a piece had
    # leapt it, and marked b4 as captured on its board.
    pg, server = opened
    game = new_game("sixteen-soldiers")
    play(pg, server, game, ["d4-e5", "d6-c5", "c4-d4", "xb4"])
    pg.locator("#games button").first.click()
    expect(pg.locator("#v-ply")).to_contain_text("xb4 (action 4 of 4)")
    expect(pg.locator("#v-what")).to_have_text("b4 taken off")
    viewer = pg.locator("#viewer-board")
    expect(viewer.locator('[data-square="b4"]')).to_have_attribute("data-was", "off")
    expect(viewer.locator('[data-square="b4"]')).to_have_attribute("title", "b4: taken off")
    expect(viewer.locator("[data-was]")).to_have_count(1)


@pytest.mark.parametrize("opened", ["english-draughts"], indirect=True)
def test_english_draughts_a_capture_and_a_chain(opened: tuple[Page, Server],
                                                tmp_path: Path) -> None:
    pg, server = opened
    game = new_game("english-draughts")
    play(pg, server, game, ["g3-f4", "b6-a5", "e3-d4", "a5-b4", "c3xa5", "f6-e5", "d4xf6"])
    # The capture is compulsory: only g7 and e7 may leap f6; lifting g7
    # lights its one destination.
    pg.click('#board [data-square="g7"]')
    expect(cell(pg, "e5")).to_have_attribute("data-led", "destination")
    pg.click('#board [data-square="g7"]')
    wait_for(server, game.position())
    play(pg, server, game, ["g7xe5"])
    square = game.chain_square
    assert square == "e5"
    expect(cell(pg, square)).to_have_attribute("data-led", "continue")
    shot(pg, tmp_path, "leap-draughts")
    # A new game of another board from the page's form: the simulated
    # board is set up with its soldiers at once.
    pg.select_option('#new-game select[name="variant"]', "sixteen-soldiers")
    pg.click('#new-game button[type="submit"]')
    # The draughts game is in play: Start asks first, beside the button.
    expect(pg.locator("#new-confirm")).to_contain_text("game is in play")
    pg.click("#new-confirm-yes")
    expect(pg.locator("#board")).to_have_attribute("data-geometry", "37-point")
    expect(pg.locator("#board .piece")).to_have_count(32)
    expect(pg.locator("#status")).to_have_text("Attacker to move")
    # The Defender's side at the bottom: the 37-point board turned round.
    top = steady_box(pg.locator('#board [data-square="a9"]'))
    pg.check("#flip")
    flipped = steady_box(pg.locator('#board [data-square="a9"]'))
    assert flipped["y"] > top["y"] + 200
    pg.uncheck("#flip")


@pytest.mark.parametrize("opened", ["sixteen-soldiers"], indirect=True)
def test_a_hint_in_a_chain_is_lit_and_named_and_undo_takes_it_off(
        opened: tuple[Page, Server], tmp_path: Path) -> None:
    pg, server = opened
    game = new_game("sixteen-soldiers")
    play(pg, server, game, ["d4-e5", "d6-c5", "c4-d4", "xb4", "b6-b5", "d4xb6"])
    expect(cell(pg, "b6")).to_have_attribute("data-led", "continue")
    pg.click('[data-button="hint"]')
    # The suggested leap lights over the chain's own amber and green, and
    # the status line names it.
    expect(cell(pg, "b6")).to_have_attribute("data-led", "hint", timeout=15000)
    expect(pg.locator("#status")).to_contain_text("Hint for Attacker: b6x")
    hint = server.get("/api/state")["hint_move"]
    assert hint in ("b6xb4", "b6xd6")
    expect(cell(pg, hint[-2:])).to_have_attribute("data-led", "hint")
    # The chain's own reason stays in the list of lights under the hint.
    expect(pg.locator('#lit [data-role="continue"]')).to_contain_text(
        "b6: this soldier must capture again")
    shot(pg, tmp_path, "leap-chain-hint")
    # Undo takes the leap back, and its hint with it.
    pg.click('[data-button="undo"]')
    expect(pg.locator("#status")).to_contain_text("taken back by undo")
    expect(pg.locator("#board [data-led=hint]")).to_have_count(0)
    expect(pg.locator('#lit [data-role="hint"]')).to_have_count(0)


@pytest.mark.parametrize("opened", ["sixteen-soldiers"], indirect=True)
def test_a_hint_to_huff_says_take_this_soldier_off(opened: tuple[Page, Server]) -> None:
    pg, server = opened
    game = new_game("sixteen-soldiers")
    play(pg, server, game, ["d4-e5", "d6-c5", "c4-d4"])
    pg.click('[data-button="hint"]')
    expect(cell(pg, "b4")).to_have_attribute("data-led", "hint", timeout=15000)
    expect(pg.locator("#status")).to_contain_text("Hint for Defender: xb4")
    # The huff is no move that starts or ends on b4: the soldier goes off.
    expect(pg.locator('#lit [data-role="hint"]')).to_have_text(
        "b4: the suggested move: take this soldier off")
    expect(cell(pg, "b4").locator(".tag")).to_have_text("off")


def test_the_players_line_keeps_its_words_apart_on_a_phone(tmp_path: Path) -> None:
    # 390 px wide: each side's count, the turn and the other side's name
    # do not run into one another ("12Attacker to play").
    with served_page(tmp_path, 390, 844, "checkers") as (pg, _server):
        expect(pg.locator("#turn")).to_have_text("Attacker to play")
        boxes = [pg.locator(sel).bounding_box() for sel in
                 ("#count-attacker", "#turn", ".players .side.defender")]
        assert all(b is not None for b in boxes)
        left, turn, right = boxes
        assert left is not None and turn is not None and right is not None
        assert turn["x"] - (left["x"] + left["width"]) >= 6, (left, turn)
        assert right["x"] - (turn["x"] + turn["width"]) >= 6, (turn, right)
