"""The web page and JSON API (aiohttp), served by the board service.

API (all JSON):

- ``GET /api/state``: position, to_move, status, LED roles, game id, moves,
  outcome, players, the board to draw (``geometry``: points, lines, dark
  squares), the kings, and on the simulated board its occupancy; the
  engine's ``thought`` while it ponders, and ``hajeb`` in H'ajeb games.
- ``POST /api/sim/occupancy`` ``{"occ": "0110...", "setup": 3}`` or
  ``{"point": "c2", "occupied": true, "setup": 3}``: set the simulated
  board's sensors, the whole board or one point (simulated board only);
  ``setup`` (optional, the state's ``sim_setup``) refuses with 409 a click
  made before the service set the board up again for a new game.
- ``POST /api/button`` ``{"button": "undo", "side": "attacker"}``: a board
  button (hint, exchange, undo, new, resign, draw, hajeb).
- ``POST /api/draw`` ``{"answer": "accept"}`` or ``"decline"``: the answer
  to the draw offered (``draw_offer`` in the state names who offered).
- ``POST /api/new`` ``{"variant": "kharbga", "attacker": "..", "defender": "..",
  "position": "..", "options": "hajeb=true"}``: any variant, the leap games
  too (``"checkers"``); ``position`` (optional) starts from that position
  string; ``options`` (sabouiyya only) switches H'ajeb on.
- ``POST /api/computer`` ``{"side": "defender", "seconds": 1.0, "level": 3}``: the engine
  plays that side (``null``: nobody; a field left out keeps its value); its
  actions are lit with ``hint``.
- ``POST /api/ponder`` ``{"on": true}``: the engine thinks on the person's
  time (``thought`` in the state: evaluation, depth, best line) or not.
- ``GET /api/games``: the archive; ``GET /api/games/{id}``: one game's
  actions; ``GET /api/games/{id}.kgn``: its record.
- ``GET /api/camera.jpg``: on a camera board, the newest picture with the
  markers, the grid and every square's reading drawn over it.
- ``GET /api/legend``: every light's role, colour, blink period and meaning.
- ``GET /ws``: a WebSocket that sends the state whenever it changes.

Every state-changing request must be JSON (``Content-Type:
application/json``) and, from a browser, come from the page itself
(``Origin`` equal to the service's own address, no ``Sec-Fetch-Site`` of
``cross-site`` or ``same-site``): another web site cannot
start a game or press a button.  A caller on another machine also needs the
token (``Authorization: Bearer TOKEN``).  Bad requests get a 4xx status and
``{"error": "one line"}``; nothing outside the archive is reachable.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from aiohttp.web_protocol import RequestPayloadError

from controller.board.config import local_caller, token_given
from controller.board.leds import legend
from controller.board.words import said
from controller.hall.protocol import Unreplayable
from controller.hall.weblog import malformed_words, quiet_malformed_requests

from .board import BoardService, RequestError
from .boardview import outcome_words

__all__ = ["make_app"]

log = logging.getLogger("kharbga.web")
MAX_BODY = 16 * 1024
SERVICE: web.AppKey[BoardService] = web.AppKey("service", BoardService)
SOCKETS: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("sockets", set)
TICKER: web.AppKey[asyncio.Task[None]] = web.AppKey("ticker", asyncio.Task)
JOBS: web.AppKey[dict[str, asyncio.Task[None]]] = web.AppKey("jobs", dict)
ARCHIVE_GATE: web.AppKey[asyncio.Semaphore] = web.AppKey("archive_gate", asyncio.Semaphore)
ARCHIVE_THREAD: web.AppKey[ThreadPoolExecutor] = web.AppKey("archive_thread", ThreadPoolExecutor)
STATIC_FILES = {"index.html": "text/html", "app.js": "text/javascript", "style.css": "text/css"}


def _static(name: str) -> bytes:
    return (resources.files("controller.service") / "static" / name).read_bytes()


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


class _Twice(Exception):
    """A JSON object with a key given twice (which is meant?)."""


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _Twice(key[:40])
        data[key] = value
    return data


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise RequestError("request body too large")
    try:
        raw = await request.content.read(MAX_BODY + 1)
    except RequestPayloadError as exc:  # a gzip body that is not gzip, say
        raise RequestError(f"the body cannot be read ({malformed_words(exc)})") from None
    if len(raw) > MAX_BODY:
        raise RequestError("request body too large")
    try:
        data = json.loads(raw or b"{}", object_pairs_hook=_once)
    except _Twice as exc:
        raise RequestError(f"the body gives the field {exc.args[0]!r} twice") from None
    except ValueError as exc:  # bad JSON, bad UTF-8, a number of too many digits
        why = "a number has too many digits" if "digits" in str(exc) else "not JSON"
        raise RequestError(f"the body must be a JSON object ({why})") from None
    except RecursionError:
        raise RequestError("the body must be a JSON object (nested too deeply)") from None
    if not isinstance(data, dict):
        raise RequestError("the body must be a JSON object")
    return data


def _local_caller(request: web.Request) -> bool:
    """Is the caller on this machine? (Its address, not the listening one.)"""
    return local_caller(request.remote)


def _named_here(request: web.Request) -> bool:
    """Was the page opened by an address no other web site can take: an IP
    address, ``localhost``, this machine's name (``NAME``, ``NAME.local``)
    or the host the service is configured to listen on?  A name of another
    site pointed at 127.0.0.1 (DNS rebinding) is none of them: its page
    passes the Origin check (the browser thinks itself on that site) but
    not this one."""
    name = (request.url.host or "").rstrip(".").lower()
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        pass
    here = socket.gethostname().lower()
    listening = request.app[SERVICE].config.host.lower()
    return name in ("localhost", here, f"{here}.local", listening) \
        or name.endswith(".localhost")


def _refusal(request: web.Request) -> web.Response | None:
    """Why a state-changing request is refused, or None."""
    site = request.headers.get("Sec-Fetch-Site", "")
    origin = request.headers.get("Origin")
    if site in ("cross-site", "same-site") or (
            origin is not None and origin != f"{request.scheme}://{request.host}"):
        return _error(403, "refused: the request comes from another web site, not this page")
    if request.content_type != "application/json":
        return _error(415, "refused: a change must be sent as JSON "
                           "(Content-Type: application/json)")
    named_here = _named_here(request)
    if _local_caller(request) and named_here:
        return None
    token = request.app[SERVICE].config.token
    if not token and not named_here:
        return _error(403, f"refused: the page was opened as {request.host!r}, a name that "
                           "is not this machine's (open it as localhost or by its address)")
    if not token:
        return _error(403, "refused: changes are accepted only from this machine "
                           "(start the service with a token to play from elsewhere)")
    if not token_given(request.headers.get("Authorization", ""), token):
        return _error(401, "a valid token is required: open the address the service "
                           "printed on start, or enter the token")
    return None


@web.middleware
async def _guard(request: web.Request, handler: Any) -> web.StreamResponse:
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        refused = _refusal(request)
        if refused is not None:
            return refused
    try:
        response: web.StreamResponse = await handler(request)
        return response
    except RequestError as exc:
        return _error(exc.status, said(exc))
    except web.HTTPException as exc:
        if not 400 <= exc.status < 500:
            raise
        return _error(exc.status, exc.reason)
    except (asyncio.CancelledError, ConnectionError):
        raise
    except Exception:  # a bug: logged with its traceback, one line to the caller
        log.exception("%s %s failed", request.method, request.rel_url)
        return _error(500, "internal error (logged by the service)")


def variant_choices() -> str:
    """The New game form's variants, from the rules: each with its
    description (shown under the choice) and the rule options a player
    may switch on for it."""
    from html import escape

    from controller.rules import LEAP_VARIANTS, VARIANTS
    from controller.rules.variants import CHOSEN_OPTIONS

    groups = (("Kharbga family (setting, then steps)", VARIANTS),
              ("Leap captures (soldiers set up at the start)", LEAP_VARIANTS))
    out = []
    for label, variants in groups:
        out.append(f'<optgroup label="{escape(label)}">')
        for v in variants:
            chosen = " ".join(CHOSEN_OPTIONS.get(v.name, ()))
            out.append(f'<option value="{escape(v.name)}" data-about="{escape(v.description)}"'
                       f' data-options="{escape(chosen)}">{escape(v.name)}</option>')
        out.append("</optgroup>")
    return "\n".join(out)


def index_page() -> bytes:
    """The page, its variants written in from the rules."""
    return _static("index.html").replace(b"<!-- variants -->", variant_choices().encode())


async def index(request: web.Request) -> web.Response:
    return web.Response(body=index_page(), content_type="text/html")


async def static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in STATIC_FILES:
        return _error(404, "not found")
    return web.Response(body=_static(name), content_type=STATIC_FILES[name])


async def get_state(request: web.Request) -> web.Response:
    return web.json_response(request.app[SERVICE].state())


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _change(act: Callable[[BoardService, dict[str, Any]], None], *fields: str) -> Handler:
    """A route that changes the game: the JSON body's ``fields`` go to
    ``act`` (which refuses bad values with RequestError; a field it does
    not take is refused here); the answer is the new state."""

    async def handler(request: web.Request) -> web.StreamResponse:
        data = await _body(request)
        unknown = [key for key in data if key not in fields]
        if unknown:
            raise RequestError(f"unknown field {unknown[0][:40]!r}: {request.path} takes "
                               f"{', '.join(fields)}")
        service = request.app[SERVICE]
        act(service, data)
        return web.json_response(service.state())

    return handler


post_occupancy = _change(lambda s, d: s.set_sim_occupancy(d.get("occ"), d.get("setup"),
                                                          d.get("point"), d.get("occupied")),
                         "occ", "setup", "point", "occupied")
post_button = _change(lambda s, d: s.press(d.get("button"), d.get("side")), "button", "side")
post_draw = _change(lambda s, d: s.answer_draw(d.get("answer")), "answer")
post_new = _change(lambda s, d: s.new_game(d.get("variant"), d.get("attacker"), d.get("defender"),
                                           d.get("position"), d.get("options")),
                   "variant", "attacker", "defender", "position", "options")
# A field left out keeps its value: {"level": 2} changes the level of the
# computer playing; only "side": null switches it off.
post_computer = _change(lambda s, d: s.set_computer(d.get("side", s.computer), d.get("seconds"),
                                                    d.get("level")), "side", "seconds", "level")
post_ponder = _change(lambda s, d: s.set_ponder(d.get("on")), "on")


async def get_camera(request: web.Request) -> web.Response:
    preview = request.app[SERVICE].camera_preview
    if preview is None:
        return _error(404, "this board has no camera")
    try:
        data = await asyncio.get_running_loop().run_in_executor(None, preview)
    except ValueError as exc:
        return _error(503, str(exc))
    return web.Response(body=data, content_type="image/jpeg",
                        headers={"Cache-Control": "no-store"})


async def _archive_work(request: web.Request, work: Any, *args: Any) -> Any:
    """Archive reads: one worker thread (so the event loop is not starved
    of the interpreter), and a few requests at a time (many waiting readers
    cost the loop nothing; the board's frames go first)."""
    async with request.app[ARCHIVE_GATE]:
        return await asyncio.get_running_loop().run_in_executor(
            request.app[ARCHIVE_THREAD], work, *args)


async def get_games(request: web.Request) -> web.Response:
    games = await _archive_work(request, request.app[SERVICE].store.archive)
    for g in games:
        g["outcome"] = outcome_words(g["result"], g["termination"], g["finished"])
    return web.json_response(games)


def _game_id(request: web.Request) -> int:
    text = request.match_info["gid"]
    if not text.isascii() or not text.isdigit():
        raise RequestError("a game id is a number (see /api/games)")
    if len(text) > 12:  # no archive holds so many games
        raise RequestError(f"a game id has at most 12 digits, not {len(text)} (see /api/games)")
    return int(text)


def _unreplayable(gid: int, exc: Exception) -> web.Response:
    """A stored game whose actions these rules refuse: refused in words."""
    return _error(409, f"game {gid} does not replay under these rules: "
                  + said(exc))


async def get_game(request: web.Request) -> web.Response:
    # Replaying a long game takes a while: a worker thread does it, the
    # board (the event loop) stays live.
    store = request.app[SERVICE].store
    gid = _game_id(request)
    async with request.app[ARCHIVE_GATE]:  # a few at a time, even from the cache
        data = store.cached_view(gid)
        if data is None:
            try:
                data = await asyncio.get_running_loop().run_in_executor(
                    request.app[ARCHIVE_THREAD], store.game_view, gid)
            except Unreplayable as exc:
                return _unreplayable(gid, exc)
    if data is None:
        return _error(404, "no such game")
    return web.Response(body=data, content_type="application/json")


async def get_legend(request: web.Request) -> web.Response:
    return web.json_response(legend())


async def get_record(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    gid = _game_id(request)
    if service.store.get(gid) is None:
        return _error(404, "no such game")
    game = service.reconciler.game if gid == service.gid else None
    try:
        text = service.store.record_text(gid, game)
    except Unreplayable as exc:
        return _unreplayable(gid, exc)
    return web.Response(
        text=text, content_type="text/plain",
        headers={"Content-Disposition": f'attachment; filename="kharbga-{gid}.kgn"'},
    )


async def websocket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(heartbeat=10)
    await ws.prepare(request)
    sockets = request.app[SOCKETS]
    sockets.add(ws)
    try:
        await ws.send_str(request.app[SERVICE].state_json())
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        sockets.discard(ws)
    return ws


async def _ticker(app: web.Application) -> None:
    service = app[SERVICE]
    jobs = app[JOBS]
    while True:
        await asyncio.sleep(0.05)
        try:
            service.tick()
            service.think_ahead()
            # The engine searches in a child process, waited for by a worker
            # thread: the ticks (and so the frames settling) go on meanwhile.
            if service.computer_wanted and _idle(jobs, "computer"):
                jobs["computer"] = _run_job(service.computer_job(), service.play_computer)
            if service.hint_wanted and _idle(jobs, "hint"):
                jobs["hint"] = _run_job(service.hint_job(), service.show_hint)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not stop the board; it is logged
            log.exception("tick failed")


def _idle(jobs: dict[str, asyncio.Task[None]], name: str) -> bool:
    task = jobs.get(name)
    return task is None or task.done()


def _run_job(job: Callable[[], Any], done: Callable[..., None]) -> asyncio.Task[None]:
    """``job`` in a worker thread, then ``done`` with its result on the loop."""

    async def run() -> None:
        try:
            result = await asyncio.get_running_loop().run_in_executor(None, job)
            done(*result)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("engine job failed")

    return asyncio.get_running_loop().create_task(run())


async def _start(app: web.Application) -> None:
    service = app[SERVICE]
    loop = asyncio.get_running_loop()

    def broadcast(state: dict[str, Any]) -> None:
        text = json.dumps(state)
        sockets: set[web.WebSocketResponse] = app[SOCKETS]
        for ws in list(sockets):
            loop.create_task(_send(ws, text))

    service.listeners.append(broadcast)
    app[ARCHIVE_GATE] = asyncio.Semaphore(4)
    app[ARCHIVE_THREAD] = ThreadPoolExecutor(1, thread_name_prefix="archive")
    app[TICKER] = asyncio.create_task(_ticker(app))


async def _send(ws: web.WebSocketResponse, text: str) -> None:
    try:
        await ws.send_str(text)
    except (ConnectionError, RuntimeError):
        pass


async def _close_sockets(app: web.Application) -> None:
    """On shutdown (SIGTERM) the pages are told at once: they show
    "offline" and reconnect to the next start."""
    task = app.get(TICKER)
    if task is not None:
        task.cancel()
    for job in app[JOBS].values():
        job.cancel()
    app[SERVICE].advice.close()  # the engine's children end with the service
    open_sockets: set[web.WebSocketResponse] = app[SOCKETS]
    sockets = list(open_sockets)
    if sockets:
        await asyncio.wait([asyncio.ensure_future(
            ws.close(code=WSCloseCode.GOING_AWAY, message=b"the service is stopping"))
            for ws in sockets], timeout=1.0)


async def _stop(app: web.Application) -> None:
    task = app.get(TICKER)
    if task is not None:
        task.cancel()
    pool = app.get(ARCHIVE_THREAD)
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
    app[SERVICE].close()


def make_app(service: BoardService) -> web.Application:
    quiet_malformed_requests()
    app = web.Application(middlewares=[_guard], client_max_size=MAX_BODY)
    app[SERVICE] = service
    app[SOCKETS] = set()
    app[JOBS] = {}
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/api/state", get_state)
    app.router.add_post("/api/sim/occupancy", post_occupancy)
    app.router.add_post("/api/button", post_button)
    app.router.add_post("/api/new", post_new)
    app.router.add_post("/api/draw", post_draw)
    app.router.add_post("/api/computer", post_computer)
    app.router.add_post("/api/ponder", post_ponder)
    app.router.add_get("/api/camera.jpg", get_camera)
    app.router.add_get("/api/legend", get_legend)
    app.router.add_get("/api/games", get_games)
    app.router.add_get(r"/api/games/{gid}.kgn", get_record)
    app.router.add_get(r"/api/games/{gid}", get_game)
    app.router.add_get("/ws", websocket)
    app.on_startup.append(_start)
    app.on_shutdown.append(_close_sockets)
    app.on_cleanup.append(_stop)
    return app
