"""``kharbga-board hall``: the hall page, fed by the broker.

Subscribes to ``kharbga/#`` (QoS 1, a persistent session so a short
outage of the hall's own link loses nothing), keeps every board in a
:class:`~controller.hall.model.Hall` and pushes what changed to the pages
over a WebSocket.  The page is read-only: nothing on it changes a board.

- ``GET /``: the page; ``GET /static/{hall.js,hall.css}``.
- ``GET /api/boards``: every board's summary and the message counters.
- ``GET /api/boards/{id}``: one board with its current game's moves.
- ``GET /api/games.kgn``: every game of the evening, one KGN file.
- ``GET /ws``: first every board in full, then what changed:
  ``{"boards": [summary, ...], "moves": {id: {"game_id", "from", "moves",
  "positions", "times", "turns_from", "turns"}}, "stats", "link", "time"}``
  (``time``: the hall's clock when it was sent); a
  page keeps its moves up to ``from`` and appends the rest, likewise its
  turns (``[n, [token, ...]]``, numbered as the board page and the KGN
  number them) up to ``turns_from``.  A summary says how the game ended
  in words (``ending``) and when the board was last heard (``heard``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
import time
from importlib import resources
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from controller.board.config import install_hint, listen_failure

from .boards import HallBoard
from .model import Hall
from .protocol import KEEPALIVE, BroadcastConfig
from .weblog import quiet_malformed_requests

__all__ = ["HallServer", "serve_hall"]

log = logging.getLogger("kharbga.hall")
STATIC = {"hall.js": "text/javascript", "hall.css": "text/css"}


def _static(name: str) -> bytes:
    return (resources.files("controller.hall") / "static" / name).read_bytes()


class HallServer:
    """The broker subscription and the pages' WebSockets."""

    def __init__(self, config: BroadcastConfig, client_id: str) -> None:
        self.config = config
        self.client_id = client_id
        self.hall = Hall()
        self.sockets: set[web.WebSocketResponse] = set()
        # since: when the link last went up or down (wall clock)
        self.link: dict[str, Any] = {"url": config.url, "connected": False, "error": "",
                                     "since": time.time()}
        self._dirty: set[str] = set()
        self._stopping = False
        # board -> game, epoch, moves sent; what the turns were numbered from, turns sent
        self._flushed: dict[str, tuple[int, int, int, tuple[object, ...], int]] = {}
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None

    # -- the broker ---------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self._loop = loop
        host, port, tls = self.config.address
        try:
            socket.create_connection((host, port), timeout=3).close()
        except OSError as exc:
            self._set_link(False, f"unreachable ({exc.strerror or exc})")
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=self.client_id,
                        clean_session=False)
        if self.config.username:
            c.username_pw_set(self.config.username, self.config.password or None)
        if tls:
            c.tls_set(ca_certs=self.config.ca_file or None, certfile=self.config.cert_file or None,
                      keyfile=self.config.key_file or None)
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_connect_fail = lambda *_: self._set_link(False, self.link["error"]
                                                       or self.config.no_connection)
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message
        c.connect_async(host, port, keepalive=KEEPALIVE)
        c.loop_start()
        self._client = c
        loop.call_later(1.0, self._check_quiet)

    def _check_quiet(self) -> None:
        """Boards silent for two seconds: their record is read in full (the
        next check set first: a record nobody foresaw going wrong stops
        this check, not every later one)."""
        asyncio.get_running_loop().call_later(1.0, self._check_quiet)
        for name in self.hall.check_quiet():
            self._changed(name)

    def stop(self) -> None:
        self._stopping = True  # the hall's own going: no "lost" in the log
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()

    def _on_connect(self, c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self._set_link(False, f"refused the connection ({reason})")
            return
        if not getattr(flags, "session_present", True) and self._loop is not None:
            # A broker that forgot the hall (restarted without its memory)
            # forgot the boards' last wills too: a board gone meanwhile
            # would stay "online"; each says so again when it is back.
            self._loop.call_soon_threadsafe(self._forgotten)
        c.subscribe("kharbga/#", qos=1)

    def _forgotten(self) -> None:
        for name in self.hall.unheard():
            self._changed(name)

    def _on_subscribe(self, c: Any, userdata: Any, mid: Any, reasons: Any, props: Any) -> None:
        # "connected" on the page means messages arrive: the broker took the
        # subscription, not merely the connection.
        if any(r.is_failure for r in reasons):
            self._set_link(False, f"refused the subscription ({reasons[0]})")
            return
        self._set_link(True, "")

    def _on_disconnect(self, c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if self._stopping:
            return
        self._set_link(False, self.link["error"])

    def _set_link(self, connected: bool, error: str) -> None:
        if (connected, error) == (self.link["connected"], self.link["error"]):
            return
        since = self.link["since"] if connected == self.link["connected"] else time.time()
        self.link = {"url": self.config.url, "connected": connected, "error": error,
                     "since": since}
        if connected:
            log.info("hall: connected to %s", self.config.url)
        else:
            log.warning("hall: broker %s %s; the page shows what it has and keeps trying",
                        self.config.url, error or "lost")
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._changed, None)
            if not connected:
                self._loop.call_soon_threadsafe(self._link_lost)

    def _link_lost(self) -> None:
        for name in self.hall.link_lost():
            self._changed(name)

    def _on_message(self, c: Any, userdata: Any, msg: Any) -> None:
        assert self._loop is not None
        try:
            topic = msg.topic
        except UnicodeDecodeError:  # a broker that lets one through; raised here it
            topic = "(a topic not in UTF-8)"  # would end paho's thread, the hall deaf
        self._loop.call_soon_threadsafe(self._take, topic, bytes(msg.payload),
                                        bool(msg.retain))

    # -- on the event loop --------------------------------------------------

    def _take(self, topic: str, payload: bytes, retained: bool = False) -> None:
        try:
            name = self.hall.handle(topic, payload, retained)
        except Exception:  # a message must never stop the hall
            log.exception("hall: message on %s", topic)
            self.hall.ignore("failed")
            return
        self._changed(name)

    def _changed(self, name: str | None) -> None:
        if name is not None:
            self._dirty.add(name)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        names, self._dirty = self._dirty, set()
        update = self.snapshot(names, incremental=True)
        text = json.dumps(update)
        for ws in list(self.sockets):
            asyncio.get_running_loop().create_task(_send(ws, text))

    def snapshot(self, names: set[str] | None, incremental: bool = False) -> dict[str, Any]:
        """Summaries and moves of ``names`` (None: every board)."""
        boards = self.hall.summaries(names)
        moves = {}
        for s in boards:
            board = self.hall.boards[s["board"]]
            moves[board.id] = self._moves(board, incremental)
        return {"boards": boards, "moves": moves, "stats": self.hall.stats(),
                "link": self.link, "time": time.time()}

    def _moves(self, board: HallBoard, incremental: bool) -> dict[str, Any]:
        g = board.game()
        if g is None:
            return {"game_id": None, "from": 0, "moves": [], "positions": [], "times": [],
                    "turns_from": 0, "turns": []}
        turns = g.turns().turns
        start = first_turn = 0
        last = self._flushed.get(board.id)
        if incremental and last is not None and last[:2] == (g.id, g.epoch):
            start = min(last[2], len(g.moves))
            # moves appended change the last turn sent at most (a setting
            # turn's second placement, a chain's next step)
            if last[3] == (g.variant, g.options, g.start):
                first_turn = max(0, min(last[4] - 1, len(turns)))
        if incremental:
            self._flushed[board.id] = (g.id, g.epoch, len(g.moves),
                                       (g.variant, g.options, g.start), len(turns))
        return {"game_id": g.id, "from": start, "moves": g.moves[start:],
                "positions": g.positions[start:], "times": g.times[start:],
                "turns_from": first_turn, "turns": turns[first_turn:]}


SERVER: web.AppKey[HallServer] = web.AppKey("hall", HallServer)


async def _send(ws: web.WebSocketResponse, text: str) -> None:
    try:
        await ws.send_str(text)
    except (ConnectionError, RuntimeError):
        pass


async def _index(request: web.Request) -> web.Response:
    return web.Response(body=_static("index.html"), content_type="text/html")


async def _static_file(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in STATIC:
        return web.json_response({"error": "not found"}, status=404)
    return web.Response(body=_static(name), content_type=STATIC[name])


async def _boards(request: web.Request) -> web.Response:
    server = request.app[SERVER]
    return web.json_response({"boards": server.hall.summaries(), "stats": server.hall.stats(),
                              "link": server.link})


async def _board(request: web.Request) -> web.Response:
    board = request.app[SERVER].hall.boards.get(request.match_info["name"])
    if board is None:
        return web.json_response({"error": "no such board"}, status=404)
    return web.json_response(board.detail())


async def _kgn(request: web.Request) -> web.Response:
    text = request.app[SERVER].hall.kgn()
    day = time.strftime("%Y-%m-%d")
    return web.Response(text=text, content_type="text/plain", headers={
        "Content-Disposition": f'attachment; filename="kharbga-hall-{day}.kgn"'})


async def _websocket(request: web.Request) -> web.WebSocketResponse:
    server = request.app[SERVER]
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    server.sockets.add(ws)
    try:
        await ws.send_str(json.dumps(server.snapshot(None)))
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        server.sockets.discard(ws)
    return ws


def make_hall_app(server: HallServer) -> web.Application:
    quiet_malformed_requests()
    app = web.Application()
    app[SERVER] = server
    app.router.add_get("/", _index)
    app.router.add_get("/static/{name}", _static_file)
    app.router.add_get("/api/boards", _boards)
    app.router.add_get("/api/boards/{name}", _board)
    app.router.add_get("/api/games.kgn", _kgn)
    app.router.add_get("/ws", _websocket)

    async def close_pages(app: web.Application) -> None:
        # At SIGTERM, before the server waits for its connections: an open
        # page kept the hall 30 s on the broker (its WebSocket closed only
        # at cleanup, after the wait), fighting a hall started again.
        sockets = list(server.sockets)
        if sockets:
            await asyncio.wait([asyncio.ensure_future(ws.close(
                code=WSCloseCode.GOING_AWAY, message=b"the hall is stopping"))
                for ws in sockets], timeout=1.0)

    async def stop(app: web.Application) -> None:
        await asyncio.get_running_loop().run_in_executor(None, server.stop)

    app.on_shutdown.append(close_pages)
    app.on_cleanup.append(stop)
    return app


def serve_hall(config: BroadcastConfig, host: str, port: int) -> int:
    """Run the hall page until interrupted."""
    try:
        import paho.mqtt.client  # noqa: F401
    except ImportError:
        raise ValueError(f"the hall needs paho-mqtt: {install_hint('mqtt')}") from None
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    server = HallServer(config, f"kharbga-hall-{socket.gethostname()}-{port}"[:64])
    def listening(_: str) -> None:
        # Called once the port is bound: this is the hall here, and only now
        # does it speak to the broker. A second hall started by mistake
        # (its port in use) connected first, under the same client id, and
        # the broker dropped the running hall's connection for it.
        print(f"kharbga-board: hall of {config.url} at http://{host}:{port}/", flush=True)
        server.start(asyncio.get_running_loop())

    try:
        web.run_app(make_hall_app(server), host=host, port=port, print=listening,
                    handle_signals=True, access_log=None, shutdown_timeout=1.0)
    except OSError as exc:  # the page's address: a name that does not resolve, a port in use
        raise listen_failure("the hall", host, port, exc, "in use (another hall?)") from None
    return 0
