"""The page a player trusts (Debian's chromium): it follows a restart and
says when the service is offline, never keeps a refused click, cannot be
driven by another web site, and takes the token from its start address."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect
from server import Server, free_port

from controller.rules import Game


def occ_of(game: Game) -> str:
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> i & 1 else "0" for i in range(game.geometry.size))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data", "sabouiyya")
    s.start()
    yield s
    s.stop()


def _set(server: Server, game: Game) -> None:
    """Set the simulated board to ``game``'s board and wait until read."""
    server.post("/api/sim/occupancy", {"occ": occ_of(game)})
    deadline = time.monotonic() + 10
    while server.get("/api/state")["position"] != game.position():
        assert time.monotonic() < deadline, f"the board never reached {game.position()}"
        time.sleep(0.03)


def _page(browser: Browser, url: str) -> Page:
    pg = browser.new_page(viewport={"width": 420, "height": 1000})
    pg.goto(url)
    expect(pg.locator("#conn")).to_have_text("live")
    return pg


def _sq(pg: Page, name: str) -> object:
    return pg.locator(f'#board [data-square="{name}"]')


def test_page_follows_a_restart_and_says_offline(browser: Browser, server: Server,
                                                 tmp_path: Path) -> None:
    pg = _page(browser, server.url + "/")
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1", "@b3", "@e5"]:
        game.play(token)
        _set(server, game)
    expect(pg.locator("#moves li")).to_have_count(2)
    # SIGTERM: the page hears of it at once, not when a heartbeat fails.
    server.stop()
    expect(pg.locator("#conn")).to_contain_text("offline", timeout=2000)
    pg.screenshot(path=str(tmp_path / "offline.png"))
    server.start()  # versions start again at 1: the page must still follow
    expect(pg.locator("#conn")).to_have_text("live", timeout=10000)
    game.play("@d4")
    _set(server, game)
    expect(pg.locator("#moves li")).to_have_count(3)
    expect(pg.locator("#moves li").nth(2)).to_have_text("@d4")
    expect(_sq(pg, "d4").locator(".piece")).to_have_count(1)


def test_a_refused_or_unsent_click_is_not_kept(browser: Browser, server: Server,
                                               tmp_path: Path) -> None:
    pg = _page(browser, server.url + "/")
    pg.route("**/api/sim/occupancy", lambda route: route.fulfill(
        status=400, content_type="application/json",
        body=json.dumps({"error": "the board is busy"})))
    pg.click('#board [data-square="c2"]')
    expect(pg.locator("#error")).to_have_text("Refused: the board is busy")
    expect(_sq(pg, "c2").locator(".piece")).to_have_count(0)
    pg.unroute("**/api/sim/occupancy")
    server.stop()
    expect(pg.locator("#conn")).to_contain_text("offline")
    pg.click('#board [data-square="c2"]')
    expect(pg.locator("#error")).to_contain_text("cannot be reached")
    expect(_sq(pg, "c2").locator(".piece")).to_have_count(0)
    pg.screenshot(path=str(tmp_path / "unreachable.png"))
    server.start()


def test_a_click_from_before_a_new_game_is_not_laid_over_it(browser: Browser, server: Server,
                                                            tmp_path: Path) -> None:
    """A click still on its way when a new game sets the board up (from
    another page or the API) is refused, not sent over the new board."""
    pg = _page(browser, server.url + "/")
    held: list[Route] = []

    def hold(route: Route) -> None:  # the first click is held, later ones go
        if held:
            route.continue_()
        else:
            held.append(route)

    pg.route("**/api/sim/occupancy", hold)
    pg.click('#board [data-square="a1"]')  # a piece set on a1: not yet heard by the service
    expect(_sq(pg, "a1").locator(".piece")).to_have_count(1)
    deadline = time.monotonic() + 10
    while not held:  # the request reaches the route
        assert time.monotonic() < deadline, "the click was never sent"
        pg.wait_for_timeout(20)
    # Meanwhile a game in its moving phase is set up on the board: the
    # simulated board stands with all 24 soldiers.
    game = Game.new("sabouiyya")
    rng = random.Random(3)
    while game.phase != "moving":
        game.play(rng.choice(game.legal_moves()))
    server.post("/api/new", {"variant": "sabouiyya", "position": game.position()})
    expect(pg.locator("#board .piece")).to_have_count(24)
    # The player lifts a soldier of the new game: the board keeps the
    # other 23 (the click is made on the new board, not over the old one).
    lift = game.legal_moves()[0].from_square
    assert lift is not None and lift != "a1"
    pg.click(f'#board [data-square="{lift}"]')
    expect(_sq(pg, lift)).to_have_attribute("data-led", "lifted")
    lifted = list(occ_of(game))
    lifted[game.geometry.point_names.index(lift)] = "0"
    assert server.get("/api/state")["sim_occ"] == "".join(lifted)
    # The old click arrives at last: refused in words, nothing changed.
    held[0].continue_()
    expect(pg.locator("#error")).to_contain_text("set up again (a new game) after that click")
    state = server.get("/api/state")
    assert state["sim_occ"] == "".join(lifted) and state["position"] == game.position()
    expect(pg.locator("#board .piece")).to_have_count(23)
    expect(_sq(pg, lift)).to_have_attribute("data-led", "lifted")
    expect(pg.locator("#board [data-led=error]")).to_have_count(0)
    pg.screenshot(path=str(tmp_path / "stale-click.png"))


def test_two_clicks_on_one_point_reach_the_service_in_their_order(
        browser: Browser, server: Server, tmp_path: Path) -> None:
    """A piece set down and at once lifted (a double tap on a phone) ends
    lifted, however the two requests would have raced."""
    pg = _page(browser, server.url + "/")
    held: list[Route] = []
    sent: list[dict[str, object]] = []

    def hold(route: Route) -> None:  # the first request is held, later ones go
        sent.append(json.loads(route.request.post_data or "{}"))
        if held:
            route.continue_()
        else:
            held.append(route)

    pg.route("**/api/sim/occupancy", hold)
    pg.click('#board [data-square="a1"]')  # set down
    deadline = time.monotonic() + 10
    while not held:
        assert time.monotonic() < deadline, "the click was never sent"
        pg.wait_for_timeout(20)
    pg.click('#board [data-square="a1"]')  # lifted again before the first is answered
    expect(_sq(pg, "a1").locator(".piece")).to_have_count(0)
    pg.click('#board [data-square="b2"]')  # another point is not held up
    deadline = time.monotonic() + 10
    while len(sent) < 2:
        assert time.monotonic() < deadline, "the click on b2 waited for a1's"
        pg.wait_for_timeout(20)
    assert [(c["point"], c["occupied"]) for c in sent] == [("a1", True), ("b2", True)]
    held[0].continue_()
    a1 = Game.new("sabouiyya").geometry.point_names.index("a1")
    deadline = time.monotonic() + 10
    while len(sent) < 3 or server.get("/api/state")["sim_occ"][a1] != "0":
        assert time.monotonic() < deadline, f"a1 never lifted: {sent}"
        pg.wait_for_timeout(30)  # the route's handler runs while playwright waits
    assert (sent[2]["point"], sent[2]["occupied"]) == ("a1", False)
    occ = server.get("/api/state")["sim_occ"]
    b2 = Game.new("sabouiyya").geometry.point_names.index("b2")
    assert occ[a1] == "0" and occ[b2] == "1"
    expect(_sq(pg, "a1").locator(".piece")).to_have_count(0)
    expect(_sq(pg, "b2").locator(".piece")).to_have_count(1)
    expect(pg.locator("#error")).to_be_hidden()
    pg.screenshot(path=str(tmp_path / "double-tap.png"))


def test_a_click_never_answered_does_not_hold_up_the_point(browser: Browser, server: Server,
                                                          tmp_path: Path) -> None:
    """A click lost on the way (a dropped Wi-Fi link) is given up after
    10 s, said in words, and the next clicks on that point go."""
    pg = browser.new_page(viewport={"width": 420, "height": 1000})
    pg.clock.install()
    pg.goto(server.url + "/")
    expect(pg.locator("#conn")).to_have_text("live")
    lost: list[Route] = []
    sent: list[dict[str, object]] = []

    def lose_first(route: Route) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        if lost:
            route.continue_()
        else:
            lost.append(route)  # never answered

    pg.route("**/api/sim/occupancy", lose_first)
    pg.click('#board [data-square="a1"]')  # set down: lost
    deadline = time.monotonic() + 10
    while not lost:
        assert time.monotonic() < deadline, "the click was never sent"
        pg.wait_for_timeout(20)
    pg.click('#board [data-square="a1"]')  # lifted: waits for the lost one
    pg.wait_for_timeout(300)
    assert len(sent) == 1
    pg.clock.run_for(10_500)
    expect(pg.locator("#error")).to_contain_text("did not answer within 10 s")
    deadline = time.monotonic() + 10
    while len(sent) < 2:
        assert time.monotonic() < deadline, "the click after the lost one never went"
        pg.wait_for_timeout(20)
    assert (sent[1]["point"], sent[1]["occupied"]) == ("a1", False)
    pg.click('#board [data-square="a1"]')  # and the point still answers clicks
    expect(_sq(pg, "a1").locator(".piece")).to_have_count(1)
    a1 = Game.new("sabouiyya").geometry.point_names.index("a1")
    deadline = time.monotonic() + 10
    while server.get("/api/state")["sim_occ"][a1] != "1":
        assert time.monotonic() < deadline, f"the third click never arrived: {sent}"
        pg.wait_for_timeout(30)
    expect(pg.locator("#error")).to_be_hidden()
    pg.screenshot(path=str(tmp_path / "lost-click.png"))


EVIL = """<!doctype html><html><body>
<form id="f" method="POST" enctype="text/plain" action="{target}/api/new">
<input name='{{"variant": "kharbga", "x": "' value='"}}'></form>
<script>
fetch("{target}/api/new", {{method: "POST", mode: "no-cors",
  headers: {{"Content-Type": "text/plain"}}, body: '{{"variant": "kharbga"}}'}});
fetch("{target}/api/button", {{method: "POST", mode: "no-cors",
  body: '{{"button": "resign"}}'}});
setTimeout(() => document.getElementById("f").submit(), 300);
</script></body></html>"""


def test_another_web_site_cannot_change_the_game(browser: Browser, server: Server) -> None:
    before = server.get("/api/state")
    page = EVIL.format(target=server.url).encode()

    class Evil(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: object) -> None:
            pass

    port = free_port()
    evil = ThreadingHTTPServer(("127.0.0.1", port), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        pg = browser.new_page()
        pg.goto(f"http://localhost:{port}/")  # another origin
        expect(pg.locator("body")).to_contain_text("refused", timeout=5000)
    finally:
        evil.shutdown()
    after = server.get("/api/state")
    assert (after["game_id"], after["variant"], after["outcome"]) == \
        (before["game_id"], "sabouiyya", None)
    # The page itself still can.
    own = _page(browser, server.url + "/")
    own.select_option('#new-game select[name="variant"]', "kharbga")
    own.click('#new-game button[type="submit"]')
    expect(own.locator("#board .sq")).to_have_count(49)


def _outward_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_the_page_takes_the_token_from_its_address(browser: Browser, tmp_path: Path) -> None:
    address = _outward_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    token = "a-long-enough-token-123"
    server = Server(tmp_path / "net", "sabouiyya",
                    web=f'host = "0.0.0.0"\ntoken = "{token}"')
    server.start()
    try:
        base = f"http://{address}:{server.port}"
        pg = _page(browser, f"{base}/?token={token}")
        assert "token" not in pg.url  # kept by the page, not left in the address
        pg.click('#board [data-square="c2"]')
        expect(_sq(pg, "c2").locator(".piece")).to_have_count(1)
        # (the page shows the piece before its click reaches the service)
        deadline = time.monotonic() + 10
        while server.get("/api/state")["sim_occ"][7] != "1":  # c2
            assert time.monotonic() < deadline, "the click on c2 never reached the service"
            pg.wait_for_timeout(30)
        # Without it: refused with the reason, and the page asks for it.
        pg.evaluate("localStorage.removeItem('kharbga-token')")
        pg.click('#board [data-square="c2"]')
        expect(pg.locator("#error")).to_contain_text("token")
        expect(pg.locator("#token-form")).to_be_visible()
        expect(_sq(pg, "c2").locator(".piece")).to_have_count(1)
        pg.screenshot(path=str(tmp_path / "token.png"))
        pg.fill("#token-input", token)
        pg.click('#token-form button[type="submit"]')
        pg.click('#board [data-square="c2"]')
        expect(_sq(pg, "c2").locator(".piece")).to_have_count(0)
    finally:
        server.stop()


def test_a_new_game_on_the_simulated_board_offers_to_clear_it(
        browser: Browser, tmp_path: Path) -> None:
    """Another kharbga-family variant on the same board waits for it to be
    cleared: the simulated board offers one button for what would be a
    click a soldier."""
    server = Server(tmp_path / "data", "kharbga")
    server.start()
    try:
        game = Game.new("kharbga")
        for token in ("@a1", "@b1", "@a7", "@b7"):
            game.play(token)
            _set(server, game)
        pg = _page(browser, server.url)
        expect(pg.locator("#sim-clear")).to_be_hidden()  # mid-game: no such offer
        server.post("/api/new", {"variant": "kharbga-refuge"})
        expect(pg.locator("#status")).to_contain_text("clear the board first")
        expect(pg.locator("#sim-clear")).to_be_visible()
        pg.screenshot(path=str(tmp_path / "clear-offered.png"))
        pg.click("#sim-clear")
        expect(pg.locator("#status")).to_have_text("Attacker: place a soldier (1 of 2)")
        expect(pg.locator("#sim-clear")).to_be_hidden()
        state = server.get("/api/state")
        assert state["variant"] == "kharbga-refuge" and state["moves"] == []
        assert set(state["sim_occ"]) == {"0"}
    finally:
        server.stop()


def test_the_moves_notation_is_said_in_words(browser: Browser, server: Server,
                                             tmp_path: Path) -> None:
    """Under the moves, each kind of move listed is said in words, once,
    with its first example from the game: a player who never read the
    rules' notation can read the list."""
    pg = _page(browser, server.url + "/")
    key = pg.locator("#notation li")
    expect(pg.locator("#notation")).to_be_hidden()  # no moves, nothing to explain
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1"]:
        game.play(token)
        _set(server, game)
    expect(key).to_have_count(1)
    expect(key.first).to_have_text("@c2: a soldier set on c2")
    position = "D.DAD/.DA../DA.../AA.../....A d m - 10"  # the Defender to move
    server.post("/api/new", {"variant": "sabouiyya", "position": position})
    game = Game.from_position("sabouiyya", position)
    expect(pg.locator("#notation")).to_be_hidden()
    rng = random.Random(3)
    kinds: set[str] = set()
    while {"x", "-"} - kinds and game.outcome is None:
        moves = [str(m) for m in game.legal_moves()]
        captures = [m for m in moves if "x" in m]
        token = rng.choice(captures or moves)
        kinds.add("x" if "x" in token else "-")
        game.play(token)
        _set(server, game)
    # (a step or capture shown by one without the exchange flag, if any)
    tokens = sorted((str(m) for m in game.moves), key=lambda t: t.endswith("="))
    first = {k: next(t for t in tokens if k in t) for k in kinds}
    expect(key).to_have_count(len(kinds))
    src, dst = first["-"].split("-")
    expect(pg.locator("#notation")).to_contain_text(
        f"{first['-']}: a step from {src} to {dst.rstrip('=')}")
    src, dst = first["x"].split("x")[:2]
    expect(pg.locator("#notation")).to_contain_text(
        f"{first['x']}: a capture: the soldier on {src} goes to {dst}")
    pg.screenshot(path=str(tmp_path / "notation.png"))
