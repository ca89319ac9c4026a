"""Bad input never breaks the service: every route answers a bad request
with a one-line 4xx, and no other web site can change the game."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.service.app import make_app
from controller.service.board import BoardService
from controller.service.config import Config

ROUTES = ["/", "/static/app.js", "/api/state", "/api/sim/occupancy", "/api/button",
          "/api/new", "/api/draw", "/api/computer", "/api/ponder", "/api/camera.jpg", "/api/games",
          "/api/games/1", "/api/games/1.kgn", "/api/legend", "/ws"]


@pytest.fixture
def service(tmp_path: Path) -> BoardService:
    return BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                               variant="sabouiyya"))


def _one_line_4xx(status: int, text: str) -> None:
    assert 400 <= status < 500, (status, text)
    assert "\n" not in text.strip() and "Traceback" not in text


def test_odd_game_ids_and_deep_json_are_4xx(service: BoardService) -> None:
    async def main() -> None:
        client: TestClient[Any, Any] = TestClient(TestServer(make_app(service)))
        await client.start_server()
        try:
            for path in ("/api/games/%C2%B2", "/api/games/%C2%B2.kgn", "/api/games/%D9%A3",
                         "/api/games/1%00", "/api/games/99999999999999999999"):
                r = await client.get(path)
                _one_line_4xx(r.status, await r.text())
            for body in ("[" * 8000, '{"occ":' * 2000, "\udcff"):
                r = await client.post("/api/sim/occupancy", data=body.encode("utf-8", "replace"),
                                      headers={"Content-Type": "application/json"})
                _one_line_4xx(r.status, await r.text())
                assert "JSON object" in (await r.json())["error"]
        finally:
            await client.close()

    asyncio.run(main())


def test_changes_need_json_from_the_page_itself(service: BoardService) -> None:
    """A form or a no-cors fetch from another site is refused (CSRF)."""
    before = service.gid

    async def main() -> None:
        client: TestClient[Any, Any] = TestClient(TestServer(make_app(service)))
        await client.start_server()
        try:
            own = f"http://{client.host}:{client.port}"
            body = json.dumps({"variant": "kharbga"})
            cases = [
                ({"Content-Type": "text/plain"}, 415, "JSON"),
                ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "JSON"),
                ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403,
                 "another web site"),
                ({"Content-Type": "application/json", "Origin": "null"}, 403,
                 "another web site"),
                ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403,
                 "another web site"),
            ]
            for headers, status, words in cases:
                r = await client.post("/api/new", data=body, headers=headers)
                assert r.status == status, headers
                assert words in (await r.json())["error"]
            assert service.gid == before
            r = await client.post("/api/new", data=body,
                                  headers={"Content-Type": "application/json", "Origin": own})
            assert r.status == 200
            assert service.gid != before
        finally:
            await client.close()

    asyncio.run(main())


def test_a_site_whose_name_points_here_cannot_change_the_game(service: BoardService) -> None:
    """DNS rebinding: another site's name pointed at 127.0.0.1, its page
    sending its own name as Host and Origin alike, from this machine."""
    before = service.gid
    body = json.dumps({"variant": "kharbga"})

    async def main() -> None:
        client: TestClient[Any, Any] = TestClient(TestServer(make_app(service)))
        await client.start_server()
        try:
            for name in ("rebind.evil.example", "localhost.evil.example"):
                here = f"{name}:{client.port}"
                r = await client.post("/api/new", data=body, headers={
                    "Content-Type": "application/json", "Host": here,
                    "Origin": f"http://{here}", "Sec-Fetch-Site": "same-origin"})
                assert r.status == 403
                error = (await r.json())["error"]
                assert "not this machine's" in error and "\n" not in error
                r = await client.post("/api/button", data=json.dumps(
                    {"button": "resign", "side": "defender"}), headers={
                    "Content-Type": "application/json", "Host": here})
                assert r.status == 403
            assert service.gid == before and service.state()["outcome"] is None
            # By address, localhost or this machine's own name: the page's own.
            for name in ("127.0.0.1", "localhost", "board.localhost", socket.gethostname()):
                here = f"{name}:{client.port}"
                r = await client.post("/api/new", data=body, headers={
                    "Content-Type": "application/json", "Host": here,
                    "Origin": f"http://{here}"})
                assert r.status == 200, (name, await r.text())
            assert service.gid != before
        finally:
            await client.close()

    asyncio.run(main())


_text = st.text(max_size=40)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _text,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_text, kids, max_size=4),
    max_leaves=12,
)
# Each change's own fields (a field a request does not take is refused before
# its values are looked at): so the values reach each request's checks.
FIELDS = {"/api/sim/occupancy": ("occ", "setup", "point", "occupied"),
          "/api/button": ("button", "side"), "/api/draw": ("answer",),
          "/api/new": ("variant", "attacker", "defender", "position", "options"),
          "/api/computer": ("side", "seconds", "level"), "/api/ponder": ("on",)}


def _fields(route: str) -> st.SearchStrategy[dict[str, object]]:
    names = FIELDS.get(route, ("occ", "button", "side", "variant", "seconds", "answer"))
    return st.fixed_dictionaries({}, optional={k: _json for k in names})


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_no_route_answers_5xx(service: BoardService, data: st.DataObject) -> None:
    route = data.draw(st.sampled_from(ROUTES))
    suffix = data.draw(st.sampled_from(["", "x", "/..", "%C2%B2", "%00", "?a=%ff", "/1"]))
    method = data.draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD"]))
    body = data.draw(st.one_of(
        _fields(route).map(lambda d: json.dumps(d).encode()),
        _json.map(lambda d: json.dumps(d).encode()),
        st.binary(max_size=64),
        st.integers(1, 3000).map(lambda n: b"[" * n),
    ))
    headers = data.draw(st.dictionaries(
        st.sampled_from(["Content-Type", "Origin", "Authorization", "Sec-Fetch-Site",
                         "X-Forwarded-For"]),
        st.sampled_from(["application/json", "text/plain", "null", "Bearer x", "cross-site",
                         "", "application/json; charset=latin-1", "\u00e9"]),
        max_size=3))

    async def main() -> None:
        client: TestClient[Any, Any] = TestClient(TestServer(make_app(service)))
        await client.start_server()
        try:
            r = await client.request(method, (route + suffix).replace("//", "/"), data=body,
                                     headers={k: v.encode("latin-1").decode("latin-1")
                                              for k, v in headers.items()})
            text = await r.text(errors="replace")
            assert r.status < 500, (method, route + suffix, body[:80], headers, r.status, text)
        finally:
            # make_app's cleanup closes the service's store: open it again
            await client.close()

    asyncio.run(main())
    service.store = type(service.store)(service.config.data_dir, service.config.sensor_log_limit)
