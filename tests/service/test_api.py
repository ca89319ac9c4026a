"""The service's JSON API on the simulated board (aiohttp test server)."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from fake_clock import FakeClock

from controller.rules import Game
from controller.service.app import make_app
from controller.service.board import BoardService, RequestError
from controller.service.boardview import QUIET_TURNS
from controller.service.config import Config
from controller.service.simboard import SimBoard
from controller.service.store import Store

Run = Callable[[Callable[[TestClient[Any, Any]], Awaitable[None]]], None]


def occ_of(game: Game) -> str:
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> i & 1 else "0" for i in range(game.geometry.size))


def serve(service: BoardService,
          body: Callable[[TestClient[Any, Any]], Awaitable[None]]) -> None:
    """Run ``body`` against the service's web app on a test server."""
    async def main() -> None:
        client: TestClient[Any, Any] = TestClient(TestServer(make_app(service)))
        await client.start_server()
        try:
            await body(client)
        finally:
            await client.close()

    asyncio.run(main())


@pytest.fixture
def make(tmp_path: Path) -> Callable[..., tuple[BoardService, FakeClock, Run]]:
    def build(**options: Any) -> tuple[BoardService, FakeClock, Run]:
        clock = FakeClock(1000.0)
        config = Config(data_dir=tmp_path, settle=0.05, error_delay=0.2, **options)
        service = BoardService(config, clock=clock)

        def run(body: Callable[[TestClient[Any, Any]], Awaitable[None]]) -> None:
            serve(service, body)

        return service, clock, run

    return build


def test_state_and_a_game_played_through_the_api(make: Any) -> None:
    service, clock, run = make(variant="sabouiyya")
    game = Game.new("sabouiyya")

    async def body(client: TestClient[Any, Any]) -> None:
        r = await client.get("/api/state")
        state = await r.json()
        assert state["variant"] == "sabouiyya" and state["moves"] == []
        assert set(state) >= {"game_id", "position", "to_move", "status", "leds", "moves",
                              "outcome"}
        for token in ["@c2", "@a1", "@b3", "@e5"]:
            game.play(token)
            r = await client.post("/api/sim/occupancy", json={"occ": occ_of(game)})
            assert r.status == 200
            clock.t += 0.1
            service.tick()
        r = await client.get("/api/state")
        state = await r.json()
        assert state["moves"] == ["@c2", "@a1", "@b3", "@e5"]
        assert state["position"] == game.position()
        r = await client.get("/api/games")
        games = await r.json()
        assert games[0]["id"] == state["game_id"] and games[0]["actions"] == 4
        assert games[0]["outcome"] == "not finished"  # still in play
        r = await client.post("/api/button", json={"button": "resign", "side": "defender"})
        assert r.status == 200
        r = await client.post("/api/new", json={"variant": "sabouiyya"})
        assert r.status == 200
        games = await (await client.get("/api/games")).json()
        ended = next(g for g in games if g["id"] == state["game_id"])
        assert ended["outcome"] == "Attacker wins (resignation)" and ended["result"] == "1-0"
        r = await client.get(f"/api/games/{state['game_id']}.kgn")
        text = await r.text()
        assert "[Variant \"sabouiyya\"]" in text and "1. @c2 @a1 " in text and "2. @b3 @e5 " in text

    run(body)


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/api/sim/occupancy", {"occ": "012"}, 400, "'occ' must be a string of 49"),
        # A character other than 0 and 1 (before the check: a 500, and the bad
        # board kept, every later click a 500 too).
        ("/api/sim/occupancy", {"occ": "0" * 48 + "2"}, 400, "occ"),
        ("/api/sim/occupancy", [1, 2], 400, "JSON object"),
        ("/api/sim/occupancy", "not json", 400, "must be a JSON object (not JSON)"),
        ("/api/new", '{"seconds": ' + "9" * 5000 + "}", 400,
         "must be a JSON object (a number has too many digits)"),
        ("/api/new", "[" * 5000, 400, "must be a JSON object (nested too deeply)"),
        # Before: the last of the two taken (a checkers game started), and a
        # field no request takes answered 200 with nothing changed.
        ("/api/new", '{"variant": "kharbga", "variant": "checkers"}', 400,
         "the body gives the field 'variant' twice"),
        ("/api/computer", {"foo": 1}, 400,
         "unknown field 'foo': /api/computer takes side, seconds, level"),
        ("/api/new", {"variant": "kharbga", "seconds": 2}, 400,
         "unknown field 'seconds': /api/new takes variant, attacker, defender, position, options"),
        ("/api/sim/occupancy", {"occ": "0" * 49, "setup": "0"}, 400, "'setup' must be"),
        ("/api/sim/occupancy", {"occ": "0" * 49, "setup": 1}, 409, "set up again"),
        ("/api/sim/occupancy", {"point": "h9", "occupied": True}, 400,
         "'point' must be a square of the 7x7 board"),
        ("/api/sim/occupancy", {"point": "c2", "occupied": 1}, 400, "'occupied' must be true"),
        ("/api/sim/occupancy", {"point": "c2", "occupied": True, "occ": "0" * 49}, 400,
         "not both"),
        ("/api/sim/occupancy", {"point": "c2", "occupied": True, "setup": 2}, 409,
         "set up again"),
        ("/api/button", {"button": "launch"}, 400, "unknown button 'launch' (known: hint, "),
        # Before: "unknown button None", Python's word for JSON's null.
        ("/api/button", {"button": None}, 400, "button must name a button: hint, exchange"),
        ("/api/button", {"button": 3}, 400, "button must name a button: hint, exchange"),
        ("/api/button", {"button": "undo", "side": "martian"}, 400, "side must be"),
        ("/api/new", {"variant": "chess"}, 400, "unknown variant"),
        ("/api/new", {"attacker": "a\"b"}, 400, "without quotes"),
        ("/api/new", {"attacker": "a\u0000b"}, 400, "U+0000 is not allowed"),
        ("/api/new", {"defender": "abc\u202edef"}, 400, "U+202E is not allowed"),
        ("/api/new", {"defender": "x" * 41}, 400, "at most 40 characters"),
        ("/api/new", {"variant": "kharbga", "position": "ADADADA/DADADAD/DADADAD/ADA.ADA/"
                      "DADADAD/DADADAD/ADADADA a m - 99999999999999999999"}, 400,
         "is not a whole number from 0 to 1,000,000"),
        ("/api/new", {"variant": "kharbga", "position": "......./......./......./......./"
                      "......./D....../A.D.... a m a1 5"}, 400,
         "chain square a1: its soldier has no capture to continue"),
        # Before: the game started already over (a hint refused the same).
        ("/api/new", {"variant": "kharbga", "position": "......./......./......./......./"
                      "......./......./....... a m - 1"}, 400,
         "the game is over in that position: Defender wins (all soldiers captured): "
         "give one with a move to make"),
        ("/api/new", {"variant": "sabouiyya", "position": "...../...../...../A..../DA... d m - 3"},
         400, "over in that position: Attacker wins (the losing side could not move)"),
    ],
)
def test_bad_requests_are_refused(make: Any, path: str, body: Any, status: int,
                                  message: str) -> None:
    service, _, run = make()
    before = service.state()

    async def go(client: TestClient[Any, Any]) -> None:
        if isinstance(body, str):
            r = await client.post(path, data=body, headers={"Content-Type": "application/json"})
        else:
            r = await client.post(path, json=body)
        assert r.status == status
        assert message in (await r.json())["error"]
        r = await client.get("/api/state")
        assert (await r.json())["moves"] == before["moves"]

    run(go)


def test_malformed_http_is_refused_with_one_line_in_the_log(
        make: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A body that says gzip and is not, a request line too long, a body
    length that is no number: refused (the body with the service's JSON
    error), each said in one WARNING line, never an ERROR with the
    parser's traceback (as if the service had a bug)."""
    service, _, run = make()

    async def go(client: TestClient[Any, Any]) -> None:
        r = await client.post("/api/new", data=b"abcde", headers={
            "Content-Type": "application/json", "Content-Encoding": "gzip"})
        assert r.status == 400
        assert (await r.json())["error"] == (
            "the body cannot be read (Can not decode content-encoding: gzip)")
        for raw in (b"GET /api/state?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                    b"POST /api/new HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\nx"):
            reader, writer = await asyncio.open_connection(client.host, client.port)
            writer.write(raw)
            await writer.drain()
            assert (await reader.read(200)).split(b" ")[1] == b"400"
            writer.close()
        r = await client.get("/api/state")
        assert r.status == 200 and (await r.json())["moves"] == []

    with caplog.at_level(logging.INFO):
        run(go)
    refused = [r for r in caplog.records if "malformed" in r.getMessage()]
    assert len(refused) >= 3 and all(r.levelno == logging.WARNING for r in refused)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert not any(r.exc_info for r in caplog.records)
    assert any("Got more than 8190 bytes" in r.getMessage() for r in refused)
    assert any("Content-Length" in r.getMessage() for r in refused)


def test_https_on_the_plain_port_is_said_once_in_words(
        make: Any, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone opened https://: aiohttp says so at DEBUG only, which the
    service does not log; the log says, once a minute, what to open."""
    import ssl

    from controller.hall import weblog

    monkeypatch.setattr(weblog, "_tls_said_at", [])
    service, _, run = make()
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE

    async def go(client: TestClient[Any, Any]) -> None:
        for _ in range(3):  # a browser asks again
            with pytest.raises(ssl.SSLError):
                await asyncio.open_connection(client.host, client.port, ssl=tls)
        r = await client.get("/api/state")
        assert r.status == 200

    with caplog.at_level(logging.INFO):
        run(go)
    said = [r for r in caplog.records if "https://" in r.getMessage()]
    assert [(r.levelno, r.getMessage()) for r in said] == [(logging.WARNING, weblog.TLS_SAID)]
    assert not any(r.levelno < logging.INFO for r in caplog.records if r.name.startswith("aiohttp"))


def test_unknown_paths_and_files(make: Any) -> None:
    _, _, run = make()

    async def go(client: TestClient[Any, Any]) -> None:
        for path in ("/static/../store.py", "/static/secret.txt", "/api/games/999.kgn",
                     "/api/games/..%2F..%2Fetc.kgn", "/api/games/abc", "/api/camera.jpg"):
            r = await client.get(path)
            assert r.status in (400, 404), path
        r = await client.get("/static/app.js")
        assert r.status == 200
        # A game id refused in words: before, a number too long for any
        # archive was told "a game id is a number".
        for path, words in (("/api/games/abc", "a game id is a number (see /api/games)"),
                            ("/api/games/-1.kgn", "a game id is a number (see /api/games)"),
                            ("/api/games/" + "9" * 26,
                             "a game id has at most 12 digits, not 26 (see /api/games)"),
                            ("/api/games/999", "no such game")):
            r = await client.get(path)
            assert (r.status, (await r.json())["error"]) == (
                404 if words == "no such game" else 400, words), path

    run(go)


def _from_address(app: Any, address: str | list[str]) -> None:
    """Make every request to ``app`` come from ``address`` (another machine;
    a list: its first item, which the test may change)."""
    from aiohttp import web

    @web.middleware
    async def remote(request: web.Request, handler: Any) -> web.StreamResponse:
        where = address if isinstance(address, str) else address[0]
        return await handler(request.clone(remote=where))  # type: ignore[no-any-return]

    app.middlewares.insert(0, remote)


def test_token_required_from_another_machine(make: Any) -> None:
    """The caller's address decides, not the address the service listens on."""
    service, _, _ = make(host="0.0.0.0", token="correct-horse-battery")

    async def main() -> None:
        caller = ["?"]
        app = make_app(service)
        _from_address(app, caller)
        client: TestClient[Any, Any] = TestClient(TestServer(app))
        await client.start_server()
        try:
            for address, needs_token in (("192.0.2.7", True), ("127.0.0.1", False),
                                         ("::1", False), ("2001:db8::1", True)):
                caller[0] = address
                r = await client.post("/api/button", json={"button": "hint"})
                assert r.status == (401 if needs_token else 200), address
                if needs_token:
                    assert "token" in (await r.json())["error"]
                r = await client.post("/api/button", json={"button": "hint"},
                                      headers={"Authorization": "Bearer wrong"})
                assert r.status == (401 if needs_token else 200), address
                r = await client.post("/api/button", json={"button": "hint"},
                                      headers={"Authorization": "Bearer correct-horse-battery"})
                assert r.status == 200
                r = await client.get("/api/state")
                assert r.status == 200
        finally:
            await client.close()

    asyncio.run(main())


def test_a_token_of_bytes_that_are_not_text_is_refused_as_wrong(make: Any) -> None:
    """An ``Authorization`` header whose bytes are not UTF-8 is a wrong token
    (401 and the usual words), not a fault of the service (it was a 500)."""
    service, _, _ = make(host="0.0.0.0", token="correct-horse-battery")

    async def main() -> list[bytes]:
        app = make_app(service)
        _from_address(app, "192.0.2.7")
        server = TestServer(app)
        await server.start_server()
        answers = []
        try:
            for given in (b"\xff\xfe", b"correct-horse-batter\xe9", b"correct-horse-battery"):
                reader, writer = await asyncio.open_connection(server.host, server.port)
                body = b'{"button": "hint"}'
                writer.write(b"POST /api/button HTTP/1.1\r\nHost: %s:%d\r\n"
                             b"Content-Type: application/json\r\nAuthorization: Bearer %s\r\n"
                             b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
                             % (server.host.encode(), server.port, given, len(body), body))
                await writer.drain()
                answers.append(await reader.read())
                writer.close()
        finally:
            await server.close()
        return answers

    bad, near, right = asyncio.run(main())
    for answer in (bad, near):
        assert answer.startswith(b"HTTP/1.1 401"), answer[:60]
        assert b"a valid token is required" in answer
    assert right.startswith(b"HTTP/1.1 200"), right[:60]


def test_no_token_means_this_machine_only(make: Any) -> None:
    service, _, _ = make()

    async def main() -> None:
        app = make_app(service)
        _from_address(app, "192.0.2.7")
        client: TestClient[Any, Any] = TestClient(TestServer(app))
        await client.start_server()
        try:
            r = await client.post("/api/new", json={})
            assert r.status == 403
            assert "only from this machine" in (await r.json())["error"]
        finally:
            await client.close()

    asyncio.run(main())


def _three_placements_then_stopped(tmp_path: Path) -> tuple[Config, FakeClock, Game, int]:
    """A kharbga game of three placements on the simulated board, the
    service then stopped: its config, clock, game and id."""
    clock = FakeClock(1000.0)
    config = Config(data_dir=tmp_path, settle=0.05, error_delay=0.2, variant="kharbga")
    service = BoardService(config, clock=clock)
    game = Game.new("kharbga")
    for token in ["@a1", "@b1", "@a7"]:
        game.play(token)
        service.set_sim_occupancy(occ_of(game))
        clock.t += 0.1
        service.tick()
    assert service.state()["moves"] == ["@a1", "@b1", "@a7"]
    gid = service.gid
    service.close()
    return config, clock, game, gid


def test_restart_resumes_the_game_and_the_simulated_board(tmp_path: Path) -> None:
    config, clock, game, gid = _three_placements_then_stopped(tmp_path)
    again = BoardService(config, clock=clock)
    clock.t += 0.1
    again.tick()
    state = again.state()
    assert again.gid == gid and state["moves"] == ["@a1", "@b1", "@a7"]
    assert state["sim_occ"] == occ_of(game)
    assert "error" not in state["leds"].values()
    again.close()


def test_a_click_on_the_board_before_a_new_game_set_it_up_is_refused(tmp_path: Path) -> None:
    """The simulated board set up by the service (a game in its moving
    phase) counts a set-up; a click made on the board before it (its count
    sent with it) is refused, also after a restart."""
    config, clock, _, _ = _three_placements_then_stopped(tmp_path)
    service = BoardService(config, clock=clock)
    assert service.state()["sim_setup"] == 0
    game = Game.new("kharbga")
    rng = random.Random(5)
    while game.phase != "moving":
        game.play(rng.choice(game.legal_moves()))
    service.new_game("kharbga", None, None, game.position(), None)
    assert service.state()["sim_setup"] == 1 and service.sim.occ == occ_of(game)
    service.close()
    again = BoardService(config, clock=clock)
    assert again.state()["sim_setup"] == 1
    stale = "1" * 49
    with pytest.raises(RequestError, match="set up again") as refused:
        again.set_sim_occupancy(stale, 0)
    assert refused.value.status == 409
    assert again.sim.occ == occ_of(game) and again.state()["position"] == game.position()
    # A click made on the new board, or one that names no set-up, is taken.
    lift = game.legal_moves()[0].from_square
    assert lift is not None
    occ = list(occ_of(game))
    occ[game.geometry.point_names.index(lift)] = "0"
    again.set_sim_occupancy("".join(occ), 1)
    clock.t += 0.1
    again.tick()
    assert again.state()["leds"].get(lift) == "lifted"
    again.set_sim_occupancy(occ_of(game))
    assert again.sim.occ == occ_of(game)
    again.close()


def test_clicks_from_two_pages_at_once_are_both_kept(make: Any) -> None:
    """Two pages (two players' phones on one simulated board) click at
    once, each on the board as it last heard of it: one point a click, so
    neither click undoes the other."""
    service, clock, run = make(variant="sabouiyya")

    async def body(client: TestClient[Any, Any]) -> None:
        seen = await (await client.get("/api/state")).json()
        for point in ("c2", "a1"):  # both made on the state seen before either
            r = await client.post("/api/sim/occupancy", json={
                "point": point, "occupied": True, "setup": seen["sim_setup"]})
            assert r.status == 200
        clock.t += 0.1
        service.tick()
        state = await (await client.get("/api/state")).json()
        assert state["moves"] == ["@c2", "@a1"]
        r = await client.post("/api/sim/occupancy", json={"point": "c2", "occupied": False})
        names = Game.new("sabouiyya").geometry.point_names
        occ = (await r.json())["sim_occ"]
        assert (occ[names.index("c2")], occ[names.index("a1")]) == ("0", "1")  # c2 lifted

    run(body)


def test_a_stored_board_of_another_size_is_set_up_anew(tmp_path: Path) -> None:
    """The simulated board kept from another board's game (its size) is
    set up anew for this one: counted, so a click made on it is refused."""
    store = Store(tmp_path)
    store.set_value("sim_occ", "1" * 25)
    sim = SimBoard(store, Game.new("kharbga"), lambda write: write())
    assert (sim.occ, sim.setup) == ("0" * 49, 1)
    again = SimBoard(store, Game.new("kharbga"), lambda write: write())  # kept: no new set-up
    assert (again.occ, again.setup) == ("0" * 49, 1)
    with pytest.raises(RequestError, match="set up again"):
        again.set("1" * 25, 0, "7x7")
    store.close()


def test_a_stored_game_that_no_longer_replays_is_kept_and_not_resumed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An unfinished game whose actions the rules refuse (an archive from
    other rules, or edited by hand) does not stop the board: it starts a new
    game, says so in one line, and keeps the old one's actions as stored;
    the page's archive refuses it in words."""
    config, clock, _, broken = _three_placements_then_stopped(tmp_path)
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:  # @a1 twice: no longer a legal game
        db.execute("UPDATE actions SET token='@a1' WHERE game_id=? AND ply=1", (broken,))
    db.close()
    with caplog.at_level(logging.WARNING, logger="kharbga.store"):
        again = BoardService(config, clock=clock)
    assert again.gid != broken and again.state()["moves"] == []
    said = [r.getMessage() for r in caplog.records if r.name == "kharbga.store"]
    assert len(said) == 1 and "\n" not in said[0], said
    assert said[0].startswith(f"game {broken} in the archive does not replay (")
    assert "(action 2 (@a1): " in said[0] and said[0].endswith("): kept as stored, not resumed")
    stored = again.store.get(broken)
    assert stored is not None and list(stored.actions) == ["@a1", "@a1", "@a7"]

    async def body(client: TestClient[Any, Any]) -> None:
        for path in (f"/api/games/{broken}", f"/api/games/{broken}.kgn"):
            r = await client.get(path)
            assert r.status == 409, path
            text = (await r.json())["error"]
            assert text.startswith(f"game {broken} does not replay under these rules: "
                                   "action 2 (@a1): ")

    serve(again, body)

    # Any other failure of the archive is the service's error, not a game
    # that does not replay.
    def broken_view(gid: int) -> bytes:
        raise LookupError("a bug")

    again.store.game_view = broken_view  # type: ignore[method-assign]

    async def bug(client: TestClient[Any, Any]) -> None:
        r = await client.get(f"/api/games/{broken}")
        assert r.status == 500
        assert "does not replay" not in (await r.json())["error"]

    serve(again, bug)
    again.close()


def test_stored_before_published(make: Any) -> None:
    service, clock, _ = make(variant="sabouiyya")
    seen: list[tuple[list[str], int]] = []

    def listener(state: dict[str, Any]) -> None:
        stored = service.store.get(state["game_id"])
        seen.append((state["moves"], len(stored.actions) if stored else -1))

    service.listeners.append(listener)
    game = Game.new("sabouiyya")
    game.play("@c2")
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    assert any(moves == ["@c2"] for moves, _ in seen)
    assert all(len(moves) <= n for moves, n in seen)


def _sabouiyya_in_the_moving_phase(
    tmp_path: Path, seed: int
) -> tuple[BoardService, FakeClock, Game]:
    """A service on the simulated board that has followed a random
    sabouiyya game, placed by placed, into its moving phase (26 actions)."""
    import random

    clock = FakeClock(1000.0)
    config = Config(data_dir=tmp_path, settle=0.05, error_delay=0.2, variant="sabouiyya")
    service = BoardService(config, clock=clock)
    rng = random.Random(seed)
    game = Game.new("sabouiyya")
    while game.phase == "setting" or len(game.moves) < 26:
        moves = [m for m in game.legal_moves() if m.kind != "pass"]
        game.play(rng.choice(moves))
        if game.outcome is not None:
            game.pop()
            continue
        service.set_sim_occupancy(occ_of(game))
        clock.t += 0.1
        service.tick()
    return service, clock, game


def test_cleared_board_and_resumed_game_keep_their_ids(tmp_path: Path) -> None:
    service, clock, game = _sabouiyya_in_the_moving_phase(tmp_path, seed=2)
    first = service.gid
    assert service.state()["position"] == game.position()
    service.set_sim_occupancy("0" * 25)
    clock.t += 0.1
    service.tick()
    assert service.gid != first and service.state()["moves"] == []
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    assert service.gid == first
    assert service.state()["position"] == game.position()
    stored = service.store.get(first)
    assert stored is not None and stored.finished is None
    assert list(stored.actions) == [str(m) for m in game.moves]
    service.close()



def test_a_game_set_up_again_while_the_archive_cannot_be_read_is_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The board cleared in the moving phase puts the game aside; set up
    # again while the archive cannot be read (a disk I/O error), the game
    # is taken up again under its own id with the settings the service
    # had. Before, reading its stored settings raised half-way through the
    # change of game: the id had changed but nothing was kept or shown.
    service, clock, game = _sabouiyya_in_the_moving_phase(tmp_path, seed=2)
    first = service.gid
    service.set_computer("defender", 0.5)
    service.set_sim_occupancy("0" * 25)
    clock.t += 0.1
    service.tick()
    assert service.gid != first

    def unreadable(gid: int) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(service.store, "get", unreadable)
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    state = service.state()
    assert service.gid == first and state["position"] == game.position()
    assert state["computer"] == "defender"
    monkeypatch.undo()
    service.close()

def test_a_game_put_aside_survives_a_new_game_from_the_page(tmp_path: Path) -> None:
    service, clock, game = _sabouiyya_in_the_moving_phase(tmp_path, seed=5)
    first = service.gid
    service.set_sim_occupancy("0" * 25)  # cleared: the game is put aside
    clock.t += 0.1
    service.tick()
    service.new_game()  # and a new game asked from the page
    clock.t += 0.1
    service.tick()
    assert service.gid != first
    service.set_sim_occupancy(occ_of(game))  # the old game set up again
    clock.t += 0.1
    service.tick()
    assert service.gid == first
    assert service.state()["position"] == game.position()
    service.close()


def test_hint_button_lights_the_suggested_move(make: Any) -> None:
    service, clock, _ = make(variant="sabouiyya")
    service.hint_seconds = 0.2
    service.press("hint")
    assert service.hint_wanted
    # While the engine searches, the status line says so (with the engine's
    # thinking off the page said nothing for a second); not once it is lit.
    job = service.hint_job()
    assert service.state()["status"].endswith("(looking for a hint: up to 0.2 s)")
    service.show_hint(*job())
    assert "looking for a hint" not in service.state()["status"]
    leds = service.state()["leds"]
    hinted = [sq for sq, role in leds.items() if role == "hint"]
    assert len(hinted) == 1 and hinted[0] in ("b3", "c2", "c4", "d3")
    # The hint goes out as soon as the board changes.
    game = Game.new("sabouiyya")
    game.play("@" + hinted[0])
    service.set_sim_occupancy(occ_of(game))
    assert "hint" not in service.state()["leds"].values()


def test_a_hinted_chain_is_said_as_its_whole_turn(make: Any) -> None:
    # d2xd3 captures c3 and the soldier goes on: d3xd4 captures e4, d4xd5
    # c5 (the Defender's last soldiers). Only the first step is lit (a board
    # lights one step); the status line says the whole chain, which it did
    # not, and in the chain what is left of it.
    service, clock, _ = make(variant="kharbga", ponder=False)
    position = "......./......./.AD..../....DA./.AD..../...A.../....... a m - 30"
    service.new_game("kharbga", position=position)
    try:
        game = Game.from_position("kharbga", position)
        service.set_sim_occupancy(occ_of(game))
        clock.t += 0.1
        service.tick()
        service.hint_seconds = 0.3
        service.show_hint(*service.compute_hint())
        state = service.state()
        assert sorted(sq for sq, role in state["leds"].items() if role == "hint") == ["d2", "d3"]
        assert state["hint_move"] == "d2xd3"
        assert state["status"].endswith(
            "Hint for Attacker: d2xd3; the whole turn: d2xd3xd4xd5")
        game.play("d2xd3")  # made, and the captured soldier taken off
        service.set_sim_occupancy(occ_of(game))
        clock.t += 0.1
        service.tick()
        assert service.state()["chain"] == "d3"
        service.show_hint(*service.compute_hint())
        assert service.state()["status"].endswith(
            "Hint for Attacker: d3xd4; the chain from here: d3xd4xd5")
    finally:
        service.close()


def test_undo_while_the_computers_reply_is_lit_gives_the_turn_back(make: Any) -> None:
    # The person takes back their turn before making the computer's reply:
    # the reply goes out, and the person plays again (it once stayed lit,
    # the board waiting for a move of the wrong side).
    service, clock, _ = make(variant="sabouiyya")
    service.set_computer("defender", 0.1)
    game = Game.new("sabouiyya")

    def put(token: str | None = None) -> None:
        if token is not None:
            game.play(token)
        service.set_sim_occupancy(occ_of(game))
        clock.t += 0.1
        service.tick()

    put("@c2")
    put("@a1")
    service.play_computer(*service.compute_computer())
    assert service.reconciler.expected is not None
    service.press("undo")
    clock.t += 0.1
    service.tick()
    assert service.state()["moves"] == []
    assert service.state()["expected"] is None and not service.computer_wanted
    game.pop()
    game.pop()
    put()  # the two soldiers taken off again
    assert "error" not in service.state()["leds"].values()
    put("@b3")
    put("@a5")
    assert service.state()["moves"] == ["@b3", "@a5"]
    assert service.computer_wanted


def test_the_computers_soldier_lifted_is_asked_back_not_taken_back(make: Any) -> None:
    # A player's review: lifting the computer's last-set soldier took its
    # placement back by hand, and the service's undo for the computer's
    # turn then took everything back ("c3, e3, b7: taken back by undo",
    # though Undo was never pressed). The computer's actions are its own:
    # its soldier is asked back, nothing is taken back.
    service, clock, _ = make(variant="kharbga", ponder=False)
    service.set_computer("defender", 0.1, 2)
    game = Game.new("kharbga")

    def put(occ: str) -> None:
        service.set_sim_occupancy(occ)
        for _ in range(3):
            clock.t += 0.1
            service.tick()

    for token in ("@c3", "@e3"):
        game.play(token)
        put(occ_of(game))
    for _ in range(2):  # the computer's turn, made as lit
        service.play_computer(*service.compute_computer())
        game.play(service.state()["expected"])
        put(occ_of(game))
    moves = service.state()["moves"]
    assert len(moves) == 4 and service.state()["to_move"] == "attacker"
    last = game.moves[-1].to_square
    i = game.geometry.point_names.index(last)
    lifted = occ_of(game)[:i] + "0" + occ_of(game)[i + 1:]
    put(lifted)
    state = service.state()
    assert state["moves"] == moves and state["to_move"] == "attacker"
    assert state["status"] == (f"{last}: put the Defender's soldier back (nothing moves in the "
                               "setting phase)")
    put(occ_of(game))  # set back: the game goes on as it was
    assert service.state()["status"] == "Attacker: place a soldier (1 of 2)"
    # The person's own turn is still theirs to take back by hand: the
    # computer's and their own soldiers lifted, back to their turn.
    game.pop()
    game.pop()
    game.pop()
    game.pop()
    put(occ_of(game))
    assert service.state()["moves"] == [] and service.state()["to_move"] == "attacker"


def test_the_persons_optional_chain_is_stopped_by_the_computers_lit_reply(make: Any) -> None:
    # Khamousiyya's chains are optional, and a chain is stopped by the other
    # side playing. Against the computer nothing lit that play: the person
    # could stop only by making a move of the computer's choosing for it.
    # Its reply to the pass is searched and lit; made, it stops the chain.
    service, clock, _ = make(variant="khamousiyya", ponder=False)
    position = "......./......./......./..DA.../..DA.../A.DA.../......D a m - 5"
    service.new_game("khamousiyya", position=position)
    service.set_computer("defender", 0.1)
    try:
        game = Game.from_position("khamousiyya", position)

        def put(token: str | None = None) -> None:
            if token is not None:
                game.play(token)
            service.set_sim_occupancy(occ_of(game))
            for _ in range(3):
                clock.t += 0.1
                service.tick()

        put()
        assert not service.computer_wanted
        put("a2xb2")  # captures c2; b2 may go on to b3, capturing c3
        state = service.state()
        assert state["chain"] == "b2" and state["moves"] == ["a2xb2"]
        assert service.computer_wanted and state["after_pass"] is None
        assert "the Defender (computer) is choosing its reply" in state["status"]
        service.play_computer(*service.compute_computer())
        state = service.state()
        reply = state["after_pass"]
        assert reply is not None
        after = game.copy()
        after.play("pass")
        move = after.parse_move(reply)  # a Defender's action after the pass
        shared = " (b3, where it ends, is also where b2 captures)" if reply.endswith("b3") else ""
        assert state["status"] == ("Attacker: continue the capture with b2, or stop there by "
                                   f"making the Defender (computer)'s lit reply {reply}{shared}")
        assert state["leds"][move.from_square or ""] == "hint"
        assert state["hint_squares"] == {"from": move.from_square, "to": move.to_square}
        assert not service.computer_wanted
        game.play("pass")
        put(reply)
        assert service.state()["moves"] == ["a2xb2", "pass", reply]
        assert service.state()["to_move"] == "attacker" and not service.computer_wanted
    finally:
        service.close()


def test_the_computer_answers_a_draw_offer_in_words(make: Any) -> None:
    # It declines while ahead on pieces and says so; level, it accepts.
    # Pieces still to set count: before, two soldiers set against none
    # were "ahead, 2 pieces to 0" in the setting phase, where none is lost.
    service, clock, _ = make(variant="sabouiyya")
    service.set_computer("attacker", 0.1)
    service.play_computer(*service.compute_computer())
    game = Game.new("sabouiyya")
    game.play(str(service.reconciler.expected))
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    assert service.state()["moves"] == [str(game.history[-1][1])]
    service.press("draw", "defender")  # one soldier set against none: level
    state = service.state()
    assert state["outcome"] is not None and state["outcome"]["reason"] == "agreement"
    service.new_game(variant="sabouiyya", position="A..D./.A.../...../...../..... d m - 20")
    service.set_computer("attacker", 0.1)
    service.press("draw", "defender")
    state = service.state()
    assert state["draw_offer"] is None and state["outcome"] is None
    assert state["status"].endswith(
        ". Attacker (computer) declines the draw: it is ahead, 2 pieces to 1 (it takes one "
        "once 30 turns go without a capture: 0 so far)")
    game = Game.from_position("sabouiyya", "A..D./.A.../...../...../..... d m - 20")
    game.play("d5-e5")
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    assert service.state()["moves"] == ["d5-e5"]
    assert "declines" not in service.state()["status"]  # gone with the next move


def test_the_computer_ahead_on_a_locked_board_takes_a_draw_after_30_quiet_turns(
        make: Any) -> None:
    # Before, the computer one soldier ahead declined every offer, and in
    # khamousiyya and sabouiyya (no rule ends a locked game) the person's
    # only way out of an endless shuffle was to resign.
    service, clock, _ = make(variant="sabouiyya")
    position = "....D/...../...../A..../A.... a m - 20"  # no capture can come
    service.new_game(variant="sabouiyya", position=position)
    game = Game.from_position("sabouiyya", position)
    shuffle = ["a2-b2", "e5-d5", "b2-a2", "d5-e5"]
    for n in range(QUIET_TURNS):
        if n == QUIET_TURNS - 1:  # one turn short: declined, and said how far it is
            assert game.side == 1  # the Defender's turn: the person's
            service.set_computer("attacker", 0.1)
            service.press("draw", "defender")
            state = service.state()
            assert state["outcome"] is None and state["status"].endswith(
                "it is ahead, 2 pieces to 1 (it takes one once 30 turns go without a "
                "capture: 29 so far)")
        game.play(shuffle[n % 4])
        service.set_sim_occupancy(occ_of(game))
        clock.t += 0.1
        service.tick()
    assert service.state()["moves"][-1] == shuffle[(QUIET_TURNS - 1) % 4]
    service.press("draw", "defender")
    state = service.state()
    assert state["outcome"] is not None and state["outcome"]["reason"] == "agreement"


def test_a_declined_draw_is_told(make: Any) -> None:
    service, clock, _ = make(variant="sabouiyya")
    service.press("draw", "attacker")
    service.answer_draw("decline")
    assert service.state()["status"].endswith(". Defender declines the draw")


def test_computer_opponent_is_lit_and_waited_for(make: Any) -> None:
    service, clock, run = make(variant="sabouiyya")
    service.set_computer("defender", 0.1)
    assert service.state()["players"]["defender"].startswith("Computer")
    game = Game.new("sabouiyya")

    def settle() -> None:
        clock.t += 0.1
        service.tick()

    for token in ["@c2", "@a1"]:  # the human Attacker
        game.play(token)
        service.set_sim_occupancy(occ_of(game))
        settle()
    assert service.computer_wanted
    service.play_computer(*service.compute_computer())
    move = service.reconciler.expected
    assert move is not None and move.kind == "place"
    assert service.state()["leds"].get(move.to_square or "") == "hint"
    # A piece on another square is refused: errors after the delay.
    wrong = next(m for m in game.legal_moves() if m.to != move.to)
    game.play(wrong)
    service.set_sim_occupancy(occ_of(game))
    settle()
    clock.t += 0.3
    service.tick()
    assert service.state()["moves"] == ["@c2", "@a1"]
    assert "error" in service.state()["leds"].values()
    game.pop()
    game.play(move)
    service.set_sim_occupancy(occ_of(game))
    settle()
    assert service.state()["moves"] == ["@c2", "@a1", str(move)]
    assert service.computer_wanted  # its second placement
    stored = service.store.get(service.gid)
    assert stored is not None and stored.defender.startswith("Computer")

    async def go(client: TestClient[Any, Any]) -> None:
        r = await client.post("/api/computer", json={"side": "nobody"})
        assert r.status == 400
        for level in (9, 0, 2.5, True, "3"):  # refused in words, nothing changed
            r = await client.post("/api/computer", json={"side": "defender", "level": level})
            assert r.status == 400 and "level must be a whole number from 1" in \
                (await r.json())["error"]
        assert service.state()["level"] == 5
        r = await client.post("/api/computer", json={"side": "defender", "level": 3})
        state = await r.json()
        assert state["level"] == 3 and state["players"]["defender"] == \
            f"Computer (club, level 3, {service.think:g} s)"
        kept = service.store.get(service.gid)  # kept with the game, for a resume
        assert kept is not None and kept.settings["level"] == 3
        r = await client.post("/api/computer", json={"side": None})
        assert (await r.json())["computer"] is None

    run(go)


def test_the_computer_plays_at_its_level(make: Any) -> None:
    # Level 1 (depth 1, wide noise) is the engine's level 1 itself: the
    # service's computer picks what best_move picks at that level, under
    # the game's own seed (its id).
    from controller.engine import best_move

    service, _, _ = make(variant="kharbga", ponder=False)
    # Full strength plays g4xg3 here, level 1 other moves (d7xc7 under
    # seed 0, f7-f6 under seed 2).
    position = ("AD.A.A./DDAA..D/DAAAAAD/AAD.D.A/AA.D.D./DDDDAAD/D.D...A a m - 37 np=1 "
                "off=6,0,0,7,0,0")
    service.new_game("kharbga", position=position)
    try:
        service.set_computer("attacker", 0.2, 1)
        assert service.computer_wanted
        _, game, move = service.compute_computer()
        want = best_move(Game.from_position("kharbga", position), 0.2, seed=service.gid,
                         level=1)
        assert move == str(want.move) != "g4xg3"
        assert service.state()["players"]["attacker"] == "Computer (beginner, level 1, 0.2 s)"
    finally:
        service.close()


def test_the_computers_level_or_time_alone_keeps_its_side(make: Any) -> None:
    # {"level": 2} changes the level of the computer playing: it does not
    # switch the computer off (only "side": null does).
    service, _, run = make(variant="kharbga", ponder=False)

    async def go(client: TestClient[Any, Any]) -> None:
        r = await client.post("/api/computer", json={"side": "defender", "seconds": 2.0})
        assert (await r.json())["computer"] == "defender"
        r = await client.post("/api/computer", json={"level": 2})
        state = await r.json()
        assert (state["computer"], state["level"], state["think"]) == ("defender", 2, 2.0)
        r = await client.post("/api/computer", json={"seconds": 0.5})
        state = await r.json()
        assert (state["computer"], state["level"], state["think"]) == ("defender", 2, 0.5)
        assert state["players"]["defender"] == "Computer (casual, level 2, 0.5 s)"
        r = await client.post("/api/computer", json={"side": None})
        assert (await r.json())["computer"] is None

    try:
        run(go)
    finally:
        service.close()
