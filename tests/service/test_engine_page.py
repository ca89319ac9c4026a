"""The page's engine and H'ajeb (Debian's chromium): the evaluation bar and
the best line while the engine ponders, switched off and on by the
player; sabouiyya's H'ajeb declared and rescinded by clicks, refused with
its reason, and its end's removals lit.

With ``KHARBGA_PAGE_SHOTS=DIR`` the screenshots are also written to DIR
(docs/page.md shows them)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from chromium import box as steady_box
from playwright.sync_api import Page, expect
from server import Server
from test_browser import served_page
from test_lights import lights, shot

from controller.engine import csearch
from controller.rules import Game

# Plain sabouiyya, the Defender to move (tests/rules/test_hajeb.py): a
# diagonal wall with a soldier inside; with H'ajeb the Defender may declare.
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"
FORTRESS = "..D../.DDA./DDA../.A.../A...A d m - 5"  # H'ajeb ends at once
EXPOSED = "D.DAD/.DA../DA..D/AA.../....A d m - 10"  # e3 can be taken: no blockade


def _signed(x: float) -> str:
    return ("+" if x > 0 else "\u2212" if x < 0 else "") + f"{abs(x):.1f}"


def _new(pg: Page, server: Server, position: str, options: str = "") -> None:
    server.post("/api/new", {"variant": "sabouiyya", "position": position,
                             "options": options})
    expect(pg.locator("#moves li")).to_have_count(0)
    deadline = time.monotonic() + 10
    while server.get("/api/state")["position"].split()[0] != position.split()[0]:
        assert time.monotonic() < deadline
        time.sleep(0.03)


def test_the_evaluation_bar_and_line_switch_off_and_on(tmp_path: Path) -> None:
    # Two threads a search (on two cores here): the line under the bar says so.
    with served_page(tmp_path, 460, 860, players="ponder = true\nthreads = 2") as (pg, server):
        _new(pg, server, WALL)
        bar = pg.locator("#evalbar")
        expect(bar).to_be_visible()
        expect(pg.locator("#ponder")).to_be_checked()
        expect(pg.locator("#eval-line")).to_contain_text("Best line: ", timeout=15000)
        # The fold-out under the line opened: it stays open as the line is
        # drawn again (the picture shows what it says).
        pg.locator("#eval-key summary").click()
        expect(pg.locator("#eval-key-list")).to_be_visible()
        # A few rounds in: the depth grows, the page follows the state.
        deadline = time.monotonic() + 20
        while (server.get("/api/state")["thought"] or {}).get("depth", 0) < 4:
            assert time.monotonic() < deadline, "the ponder never reached depth 4"
            time.sleep(0.1)
        expect(pg.locator("#eval-depth")).to_contain_text("depth ")
        # The page shows the newest round (rounds come while it looks).
        deadline = time.monotonic() + 10
        while True:
            t = server.get("/api/state")["thought"]
            num = bar.locator(".num").inner_text()
            words = pg.locator("#eval-words").inner_text()
            first = pg.locator("#eval-line b").inner_text()
            depth = pg.locator("#eval-depth").inner_text()
            won = abs(t["score"]) >= 90_000
            # A search still deepening says so in words that cannot be read
            # as the switch's state ("thinking on").
            going = depth.endswith(", still thinking") and "thinking on" not in depth
            # A won bar names the winner, not only by its colour.
            winner = "Attacker wins" if t["score"] > 0 else "Defender wins"
            if num == (winner if won else _signed(t["pieces"])) and first == t["turns"][0] \
                    and words.startswith(t["words"]) and going != t["done"]:
                break
            assert time.monotonic() < deadline, (t, num, words, first, depth)
            time.sleep(0.05)
        if not won and f"{abs(t['pieces']):.1f}" != "0.0":  # its unit, not only on hover
            assert f"by {abs(t['pieces']):.1f} soldier" in words and " worth (" in words \
                and words.endswith(f"{_signed(t['pieces'])} on the bar)"), words
        if csearch.available():  # the C search (Python's searches with one thread)
            assert t["threads"] == 2 and " s on 2 cores" in depth, depth
        else:
            assert t["threads"] == 1 and "cores" not in depth, depth
        assert t["words"] in ("Attacker better", "Defender better", "even",
                              "Attacker wins by force", "Defender wins by force")
        # The line's first move is the Defender's here: in the Defender's
        # colour (pink, rgb(210, 72, 122)), not the Attacker's blue; the line
        # is drawn again at each round of the search, so the check waits for
        # the element that stands (one replaced in between reads no colour).
        expect(pg.locator("#eval-line b")).to_have_css("color", "rgb(210, 72, 122)")
        # The Attacker's share of the bar follows the sign of the number.
        share = bar.locator(".fill").evaluate(
            "e => e.getBoundingClientRect().height / e.parentElement.clientHeight")
        if not won and t["pieces"]:
            assert (share > 0.5) == (t["pieces"] > 0), (share, t)
        expect(pg.locator("#eval-key-list")).to_be_visible()
        shot(pg, tmp_path, "thinking")
        # Off: no bar, no line, no pondering.
        pg.click("#ponder")
        expect(bar).to_be_hidden()
        expect(pg.locator("#thinking")).to_be_hidden()
        state = server.get("/api/state")
        assert state["ponder"] is False and state["thought"] is None
        pg.click("#ponder")
        expect(bar).to_be_visible()
        expect(pg.locator("#eval-line")).to_contain_text("Best line: ", timeout=15000)


def test_a_won_bar_names_the_winner(tmp_path: Path) -> None:
    # The Defender takes the Attacker's last soldier at once (d3 between e3
    # and c3): the bar is full pink and says who wins, in words, not only
    # by its colour.
    with served_page(tmp_path, 460, 860, players="ponder = true") as (pg, server):
        _new(pg, server, "...../...../.DA.D/...../..... d m - 10")
        bar = pg.locator("#evalbar")
        expect(bar.locator(".num")).to_have_text("Defender wins", timeout=15000)
        expect(pg.locator("#eval-words")).to_have_text("Defender wins by force")
        deadline = time.monotonic() + 5  # the fill slides to its height
        while (share := bar.locator(".fill").evaluate(
                "e => e.getBoundingClientRect().height / e.parentElement.clientHeight")) > 0:
            assert time.monotonic() < deadline, share  # none of it the Attacker's
            time.sleep(0.1)
        shot(pg, tmp_path, "won")


def test_the_bar_and_line_are_greyed_while_the_board_is_out_of_place(tmp_path: Path) -> None:
    # A soldier dropped on an empty square (lit as an error): the bar and
    # the line are for the recorded position, not the board as it stands.
    with served_page(tmp_path, 460, 860, players="ponder = true") as (pg, server):
        _new(pg, server, "...../...../.DA.D/...../..... d m - 10")
        bar, note = pg.locator("#evalbar"), pg.locator("#eval-astray")
        expect(bar.locator(".num")).to_have_text("Defender wins", timeout=15000)
        expect(note).to_be_hidden()
        grey = "e => getComputedStyle(e).filter"
        assert bar.evaluate(grey) == "none"
        pg.click('#board [data-square="a1"]')
        expect(pg.locator('#board [data-square="a1"]')).to_have_attribute(
            "data-led", "error", timeout=5000)
        expect(note).to_have_text(
            "(the board is out of place: the engine's line is for the recorded position)")
        assert "grayscale" in bar.evaluate(grey)
        line = pg.locator("#eval-line b").first
        assert line.evaluate("e => getComputedStyle(e).color") == "rgb(153, 153, 153)"
        shot(pg, tmp_path, "astray")
        pg.click('#board [data-square="a1"]')  # taken off again: in place
        expect(note).to_be_hidden()
        expect(bar).not_to_have_class("evalbar astray")
        assert bar.evaluate(grey) == "none"


def test_hajeb_declared_and_rescinded_by_clicks(tmp_path: Path) -> None:
    with served_page(tmp_path, 460, 900) as (pg, server):
        # The form offers H'ajeb with sabouiyya only, and says each
        # variant's rules in a line under the choice.
        variant = pg.locator('#new-game select[name="variant"]')
        about = pg.locator("#variant-about")
        expect(about).to_contain_text("5x5, 12 soldiers a side")  # the game in play
        variant.select_option("english-draughts")
        expect(about).to_have_text("English draughts, 8x8, 12 a side: captures and chains "
                                   "compulsory, a man crowned on the far row ends its turn")
        variant.select_option("kharbga")
        expect(about).to_contain_text("Tunisian Kharbga, 7x7")
        expect(pg.locator("#hajeb-option")).to_be_hidden()
        variant.select_option("sabouiyya")
        expect(about).to_contain_text("5x5, 12 soldiers a side")
        expect(pg.locator("#hajeb-option")).to_be_visible()
        pg.locator("#new-game").screenshot(path=str(tmp_path / "variant-chosen.png"))
        pg.check('#new-game [name="hajeb"]')
        pg.click('#new-game button[type="submit"]')
        expect(pg.locator("#hajeb")).to_be_visible()
        assert server.get("/api/state")["options"] == "hajeb=true"
        # A game without the option has no button.
        _new(pg, server, WALL)
        expect(pg.locator("#hajeb")).to_be_hidden()
        # No blockade: the button is there, refused with the reason.
        _new(pg, server, EXPOSED, "hajeb=true")
        button = pg.locator("#hajeb")
        expect(button).to_be_disabled()
        expect(pg.locator("#hajeb-info")).to_contain_text("cannot be declared now")
        expect(pg.locator("#hajeb-info")).to_contain_text("no blockade")
        # The blockade holds: declared, then rescinded, by clicks.
        _new(pg, server, WALL, "hajeb=true")
        expect(button).to_be_enabled()
        expect(button).to_have_text("Declare H'ajeb")
        expect(pg.locator("#hajeb-info")).to_contain_text("may declare H'ajeb now")
        button.click()
        expect(button).to_have_text("Rescind H'ajeb")
        expect(pg.locator("#status")).to_contain_text(
            "H'ajeb in force (long moves, captures by any soldier)")
        expect(pg.locator("#hajeb-info")).to_contain_text(
            "H'ajeb in force: the Attacker moves any distance")
        expect(pg.locator("#moves li").last).to_contain_text("hajeb")
        shot(pg, tmp_path, "hajeb")
        button.click()
        expect(button).to_have_text("Declare H'ajeb")
        expect(pg.locator("#moves li").last).to_contain_text("rescind")
        assert server.get("/api/state")["hajeb"]["state"] == "off"
        # The fortress: H'ajeb ends at once; the two-for-one removals lit.
        _new(pg, server, FORTRESS, "hajeb=true")
        button.click()
        removals = ["a1", "e1", "b2", "c3", "d4"]  # the board's order, the status line's
        expect(pg.locator('#lit [data-role="hajeb-removal"]')).to_have_text(
            f"{', '.join(removals)}: H'ajeb is over: the Defender removes one of these")
        assert lights(pg, "capture") == sorted(removals)
        expect(pg.locator("#hajeb-info")).to_contain_text("the Attacker could not capture")
        expect(button).to_be_disabled()
        shot(pg, tmp_path, "hajeb-end")


def test_the_computers_lit_move_is_called_its_move_not_a_suggestion(tmp_path: Path) -> None:
    # The lights under the board name the computer's move as its own: the
    # person makes it on the board; nothing was suggested to them.
    with served_page(tmp_path, 460, 860) as (pg, server):
        server.post("/api/computer", {"side": "defender", "seconds": 0.1, "level": 3})
        _new(pg, server, WALL)
        deadline = time.monotonic() + 15
        while not server.get("/api/state")["expected"]:
            assert time.monotonic() < deadline, "the computer never lit its move"
            time.sleep(0.05)
        lit = pg.locator("#lit")
        expect(lit.locator('li[data-role="hint"]')).to_contain_text(
            ": the computer's move starts here")
        expect(lit.locator('li[data-role="hint-to"]')).to_contain_text(
            ": the computer's move ends here")
        expect(lit).not_to_contain_text("suggested")
        # A hint the person asks for is still a suggestion.
        server.post("/api/computer", {"side": None})
        server.post("/api/button", {"button": "hint", "side": "defender"})
        expect(lit.locator('li[data-role="hint"]')).to_contain_text(
            ": the suggested move starts here", timeout=15000)


def test_the_computers_reply_that_stops_a_chain_is_lit_and_named(tmp_path: Path) -> None:
    # Khamousiyya, the computer the Defender: after a2xb2 the person's
    # soldier may go on (b2xb3) or stop, and a chain is stopped by the other
    # side playing. The computer's reply to the stop is lit and named so.
    chain = "......./......./......./..DA.../..DA.../A.DA.../......D a m - 5"
    with served_page(tmp_path, 460, 900) as (pg, server):
        server.post("/api/computer", {"side": "defender", "seconds": 0.1, "level": 3})
        server.post("/api/new", {"variant": "khamousiyya", "position": chain})
        game = Game.from_position("khamousiyya", chain)
        game.play("a2xb2")
        a, d = game.bitboards()
        occ = "".join("1" if (a | d) >> i & 1 else "0" for i in range(49))
        server.post("/api/sim/occupancy", {"occ": occ})
        deadline = time.monotonic() + 15
        while not server.get("/api/state")["after_pass"]:
            assert time.monotonic() < deadline, "the computer's reply was never lit"
            time.sleep(0.05)
        reply = server.get("/api/state")["after_pass"]
        expect(pg.locator("#status")).to_contain_text(
            f"or stop there by making the Defender (computer)'s lit reply {reply}")
        lit = pg.locator("#lit")
        expect(lit.locator('li[data-role="hint"]')).to_contain_text(
            ": the computer's reply, should you stop the chain, starts here")
        expect(lit.locator('li[data-role="hint-to"]')).to_contain_text(
            ": the computer's reply, should you stop the chain, ends here")
        expect(lit.locator('li[data-role="continue"]')).to_have_text(
            "b2: this soldier may capture again, or stop there: make the computer's lit reply")
        expect(lit).not_to_contain_text("suggested")
        shot(pg, tmp_path, "chain-stop-reply")


def test_the_seconds_field_takes_what_the_service_takes(tmp_path: Path) -> None:
    # A computer set to 0.05 s a move (the configuration allows 0.01 to
    # 60) is shown as a valid value; the field's bounds are the service's.
    from controller.service.config import THINK_MAX, THINK_MIN

    with served_page(tmp_path, 460, 860, players="think = 0.05") as (pg, server):
        field = pg.locator("#computer input[name=seconds]")
        expect(field).to_have_value("0.05")
        assert field.evaluate("el => el.checkValidity()")
        assert float(field.get_attribute("min") or "nan") == THINK_MIN
        assert float(field.get_attribute("max") or "nan") == THINK_MAX
        field.fill("0.02")
        field.dispatch_event("change")
        deadline = time.monotonic() + 5
        while server.get("/api/state")["think"] != 0.02:
            assert time.monotonic() < deadline, "the page's 0.02 s never reached the service"
            time.sleep(0.05)
        assert field.evaluate("el => el.checkValidity()")


# What the key under the moves says of each kind of token (app.js NOTATION).
def _kind_words(token: str) -> list[str]:
    if token.startswith("@"):
        return ["a soldier set on"]
    if token.startswith("x"):
        return ["removed"]
    if token == "pass":
        return ["the chain stopped"]
    words = ["a capture: the soldier on" if "x" in token else "a step from"]
    if token.count("x") > 1:
        words.append("a chain: one soldier capturing again")
    if token.endswith("="):
        words.append("a step with the exchange flag raised")
    return words


def test_the_key_explains_the_best_line_and_the_hint_before_any_move(tmp_path: Path) -> None:
    # A game from a position: no move listed yet, but the best line and the
    # hint are in notation; the key under the moves says what each means.
    with served_page(tmp_path, 1366, 768, players="ponder = true") as (pg, server):
        _new(pg, server, WALL)
        expect(pg.locator("#eval-line")).to_contain_text("Best line: ", timeout=15000)
        # Line and key read at once (both are drawn again as the search deepens).
        read = "() => [[...document.querySelectorAll('#eval-line b, #eval-line span')]" \
               ".map(e => e.textContent), document.querySelector('#notation').innerText," \
               " document.querySelector('#notation').hidden]"
        line, key, hidden = pg.evaluate(read)
        assert line and not hidden, (line, key)
        for token in line:
            for words in _kind_words(token):
                assert words in key, (token, key)
        # The key is not read as moves made: the empty list says so, and the
        # key says what it explains.
        expect(pg.locator("#no-moves")).to_be_visible()
        expect(pg.locator("#notation-title")).to_contain_text("the engine's best line")
        pg.click("#ponder")  # the line goes: the key keeps only what is shown
        expect(pg.locator("#notation")).to_be_hidden()
        expect(pg.locator("#notation-title")).to_be_hidden()
        pg.click('[data-button="hint"]')
        expect(pg.locator("#status")).to_contain_text("Hint for Defender: ", timeout=15000)
        hint = server.get("/api/state")["hint_move"]
        for words in _kind_words(hint):
            expect(pg.locator("#notation")).to_contain_text(words)


def test_on_a_phone_the_best_lines_moves_are_explained_beside_it(tmp_path: Path) -> None:
    # At 390 px the key under the moves is far below the line: a fold-out
    # right under the line says what its moves mean, in the key's words.
    with served_page(tmp_path, 390, 844, players="ponder = true") as (pg, server):
        _new(pg, server, WALL)
        expect(pg.locator("#eval-line")).to_contain_text("Best line: ", timeout=15000)
        fold = pg.locator("#eval-key")
        expect(fold).to_be_visible()
        expect(fold.locator("summary")).to_have_text("How these moves are written")
        # Measured again where the line is drawn anew (the search deepens) meanwhile.
        line_box, fold_box = steady_box(pg.locator("#eval-line")), steady_box(fold)
        key_box = steady_box(pg.locator("#notation-title"))
        assert 0 <= fold_box["y"] - (line_box["y"] + line_box["height"]) < 10, (line_box, fold_box)
        assert key_box["y"] > fold_box["y"] + 200, "the full key is no longer far below the line"
        expect(pg.locator("#eval-key-list")).to_be_hidden()  # folded until asked
        fold.locator("summary").click()
        expect(pg.locator("#eval-key-list")).to_be_visible()
        read = "() => [[...document.querySelectorAll('#eval-line b, #eval-line span')]" \
               ".map(e => e.textContent), document.querySelector('#eval-key-list').innerText]"
        line, key = pg.evaluate(read)
        assert line, key
        for token in line:
            for words in _kind_words(token):
                assert words in key, (token, key)
        pg.screenshot(path=str(tmp_path / "line-key.png"))
        pg.click("#ponder")  # the line goes, and its key with it
        expect(fold).to_be_hidden()


def test_a_game_from_a_position_numbers_its_turns_from_the_positions_turn(
        tmp_path: Path) -> None:
    # WALL is turn 10 of the moving phase: after sabouiyya's setting turns
    # (one per soldier of a side) the list, the viewer and the record go on
    # from there, as the whole game would have numbered it.
    from controller.rules.variants import find_variant

    first = find_variant("sabouiyya").pieces_per_side + int(WALL.split()[4])
    with served_page(tmp_path, 1366, 768) as (pg, server):
        _new(pg, server, WALL)
        move = sorted(str(m) for m in Game.from_position("sabouiyya", WALL).legal_moves()
                      if "-" in str(m))[0]
        src, dst = move.split("-")
        pg.click(f'#board [data-square="{src}"]')
        pg.click(f'#board [data-square="{dst}"]')
        expect(pg.locator("#moves li")).to_have_count(1)
        expect(pg.locator("#no-moves")).to_be_hidden()
        assert pg.locator("#moves li").get_attribute("value") == str(first)
        gid = server.get("/api/state")["game_id"]
        assert server.get(f"/api/games/{gid}")["labels"] == [f"{first}. {move}"]
        record = server.get(f"/api/games/{gid}.kgn")
        assert f"\n{first}. {move} " in record, record


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
def test_the_buttons_are_in_sight_without_scrolling(tmp_path: Path,
                                                    size: tuple[int, int]) -> None:
    # A 7x7 kharbga game on a laptop's or a phone's screen, the engine's line
    # shown and a soldier set on the malha (its light listed): Hint, Undo,
    # Draw and Resign, pressed every turn, are on the screen as the page opens.
    width, height = size
    with served_page(tmp_path, width, height, variant="kharbga",
                     players="ponder = true") as (pg, server):
        expect(pg.locator("#eval-line")).to_contain_text("Best line: ", timeout=15000)
        geo = Game.new("kharbga").geometry
        centre = geo.point_names[geo.centre]
        pg.click(f'#board [data-square="{centre}"]')
        expect(pg.locator('#lit [data-role="error"]')).to_be_visible(timeout=10000)
        pg.evaluate("window.scrollTo(0, 0)")
        for name in ("hint", "undo", "draw", "resign"):
            box = pg.locator(f'[data-button="{name}"]').bounding_box()
            assert box is not None and box["y"] + box["height"] <= height, (name, box)


ROWS_OF_BUTTONS = """els => els.map(e => { const r = e.getBoundingClientRect();
  return [e.textContent, Math.round(r.top), r.left, r.right, r.height]; })"""


@pytest.mark.parametrize(("variant", "options", "width"), [
    ("kharbga", "", 390), ("sabouiyya", "hajeb=true", 390), ("sabouiyya", "hajeb=true", 360),
    ("kharbga", "", 300), ("sabouiyya", "", 300)])
def test_a_phones_buttons_share_their_rows_evenly(tmp_path: Path, variant: str, options: str,
                                                  width: int) -> None:
    # Kharbga's five buttons (its Exchange) and sabouiyya's with H'ajeb's
    # declaration: in one row on a 390 px phone (Resign not alone on a
    # second); where they must wrap, each row is filled edge to edge.
    with served_page(tmp_path, width, 844, variant=variant) as (pg, server):
        if options:
            _new(pg, server, WALL, options)
            expect(pg.locator("#hajeb")).to_be_visible()
        row = pg.locator(".buttons:has([data-button=hint])")
        box = row.bounding_box()
        assert box is not None
        found = row.locator("button:visible").evaluate_all(ROWS_OF_BUTTONS)
        assert len(found) == (4 if variant == "sabouiyya" and not options else 5), found
        tops = sorted({top for _, top, *_ in found})
        if width >= 360:
            assert len(tops) == 1, found
        for top in tops:
            line = [b for b in found if b[1] == top]
            assert len(line) >= 2, found  # no button alone on a row
            right = box["x"] + box["width"]
            assert abs(line[0][2] - box["x"]) < 1 and abs(line[-1][3] - right) < 1, (line, box)
        assert len({round(h) for *_, h in found}) == 1, found  # each word on one line
        pg.screenshot(path=str(tmp_path / f"buttons-{variant}-{width}.png"))


def test_the_key_says_a_removal_at_hajebs_end_is_not_a_capture(tmp_path: Path) -> None:
    # H'ajeb ended with removals owed: the soldier taken off is listed as
    # `xa1`, which the key says is a removal the rules ask for (the leap
    # games' huff is another page's word).
    end = "..D../.DDA./DDA../.A.../A...A d m - 6 rm=dda:a hajeb=end"
    with served_page(tmp_path, 1366, 768) as (pg, server):
        _new(pg, server, end, "hajeb=true")
        pg.click('#board [data-square="a1"]')
        expect(pg.locator("#moves li")).to_contain_text(["xa1"])
        expect(pg.locator("#notation")).to_contain_text(
            "xa1: the soldier on a1 removed (as the rules ask: not a capture)")
        expect(pg.locator("#notation")).not_to_contain_text("huffed")
        shot(pg, tmp_path, "hajeb-removal-key")


def test_the_computers_first_move_waits_for_the_board_cleared_in_words(tmp_path: Path) -> None:
    # A new game against the computer as the Attacker, a soldier of the last
    # game still on the board: the status said "clear the board first" and
    # the words under the bar "make it on the board", at once.
    with served_page(tmp_path, 460, 900, variant="kharbga", players="ponder = true") as (
            pg, server):
        server.post("/api/sim/occupancy", {"point": "a1", "occupied": True})
        server.post("/api/computer", {"side": "attacker", "seconds": 0.1})
        server.post("/api/new", {"variant": "kharbga"})
        expect(pg.locator("#status")).to_contain_text("New game: clear the board first")
        words = pg.locator("#eval-words")
        expect(words).to_contain_text("make it once the board is cleared", timeout=15_000)
        expect(words).not_to_contain_text("make it on the board")
        shot(pg, tmp_path, "computer-waits-for-clear")
        server.post("/api/sim/occupancy", {"point": "a1", "occupied": False})
        expect(words).to_contain_text("make it on the board")
