"""Service benchmark for ``make bench``: how long a sensor frame takes to
reach the lights while the archive is read and many pages listen.

The service runs in its own process as ``kharbga-board run`` does (the
same app, the same event pump), with a long finished game in its archive
and a stand-in for the board's driver: a thread queues a frame every 20 ms
(as the switch matrix or the Pico link does) and the pump's call to light
the state marks its arrival.  A load process keeps 200 clients reading
the long game (``GET /api/games/1``: the viewer's request, a replay of
every action) and 300 WebSockets listening.  Target: p99 at most 50 ms.
"""

from __future__ import annotations

import asyncio
import collections
import json
import multiprocessing
import queue
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.board.events import Frame

from .hardware import Event

TARGET_P99_MS = 50.0
READERS = 200
LISTENERS = 300
IDLE_SECONDS = 3.0
LOADED_SECONDS = 10.0


def _long_game(data_dir: Path) -> None:
    """A finished game of several hundred actions in the archive."""
    from controller.rules import Game

    from .store import Store

    rng = random.Random(1)
    game = Game.new("kharbga")
    while game.outcome is None and len(game.moves) < 600:
        game.play(rng.choice(game.legal_moves()))
    store = Store(data_dir)
    gid = store.new_game(game, "A", "D")
    store.finish(gid, game)
    store.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _load(url: str, ready: object, stop: object) -> None:
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        sockets = [await session.ws_connect(url + "/ws") for _ in range(LISTENERS)]

        async def drain(ws: aiohttp.ClientWebSocketResponse) -> None:
            async for _ in ws:
                pass

        async def read() -> None:
            while not stop.is_set():  # type: ignore[attr-defined]
                async with session.get(url + "/api/games/1") as r:
                    await r.read()

        tasks = [asyncio.create_task(drain(ws)) for ws in sockets]
        tasks += [asyncio.create_task(read()) for _ in range(READERS)]
        ready.set()  # type: ignore[attr-defined]
        while not stop.is_set():  # type: ignore[attr-defined]
            await asyncio.sleep(0.1)
        for t in tasks:
            t.cancel()
        for ws in sockets:
            await ws.close()


def _load_process(url: str, ready: object, stop: object) -> None:
    asyncio.run(_load(url, ready, stop))


class _TimedQueue(queue.Queue[Event]):
    """A queue that remembers when each item taken was put."""

    def __init__(self) -> None:
        super().__init__()
        self._taken: list[float] = []
        self._sent: collections.deque[float] = collections.deque()

    def _put(self, item: Event) -> None:  # under the queue's lock
        self._sent.append(time.perf_counter())
        super()._put(item)

    def _get(self) -> Event:  # under the queue's lock
        self._taken.append(self._sent.popleft())
        item: Event = super()._get()
        return item

    def taken(self) -> list[float]:
        out, self._taken = self._taken, []
        return out


class _Driver:
    """A board driver stand-in: frames every 20 ms from a thread; ``show``
    (called by the service's pump after feeding) notes when each arrived."""

    name = "bench"
    description = "the benchmark's board"
    preview: Callable[[], bytes] | None = None

    def __init__(self, clock: Callable[[], float], squares: int) -> None:
        self.clock = clock
        self.squares = squares
        self.timed = _TimedQueue()
        self.events: queue.Queue[Event] = self.timed
        self.latencies: list[tuple[float, float]] = []  # (wall time, seconds)
        self._stop = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        n = 0
        while not self._stop.wait(0.02):
            occ = "0" * self.squares
            if n // 10 % 2:  # a soldier set on d3 and taken back: the lights change
                occ = occ[:17] + "1" + occ[18:]
            self.events.put(Frame.from_occ(self.clock(), occ))
            n += 1

    def show(self, state: dict[str, Any]) -> None:
        now = time.perf_counter()
        for sent in self.timed.taken():
            self.latencies.append((time.time(), now - sent))

    def problem(self) -> str | None:
        return None

    def fault(self) -> str | None:
        return None

    def close(self) -> None:
        self._stop.set()


def _serve(data: Path, port: int) -> None:
    """The service with the stand-in driver; latencies to data/latency.json."""
    from aiohttp import web

    from .app import make_app
    from .board import BoardService
    from .config import Config
    from .run import _attach

    service = BoardService(Config(data_dir=data, variant="kharbga", port=port))
    driver = _Driver(service.now, 49)
    app = make_app(service)
    _attach(app, service, driver)
    try:
        web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None,
                    shutdown_timeout=1.0)
    finally:
        driver.close()
        (data / "latency.json").write_text(json.dumps(driver.latencies))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure() -> tuple[list[float], list[float]]:
    """Frame-to-lights times (seconds) with the service idle, then loaded."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        _long_game(data)
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "controller.service.bench", "--serve",
                                 str(data), str(port)], stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_listening(port)
            idle_from = time.time() + 0.5
            time.sleep(IDLE_SECONDS)
            idle_to = time.time()
            ctx = multiprocessing.get_context("spawn")
            ready, stop = ctx.Event(), ctx.Event()
            load = ctx.Process(target=_load_process, args=(url, ready, stop))
            load.start()
            ready.wait(60)
            time.sleep(1.0)  # the readers' first requests made the game's view once
            begin = time.time()
            time.sleep(LOADED_SECONDS)
            end = time.time()
            stop.set()
            load.join(10)
        finally:
            proc.terminate()
            proc.wait(10)
        pairs = json.loads((data / "latency.json").read_text())
    idle = [lat for t, lat in pairs if idle_from <= t <= idle_to]
    loaded = [lat for t, lat in pairs if begin <= t <= end]
    return idle, loaded


def wait_listening(port: int, seconds: float = 120.0, what: str = "the service") -> None:
    """Wait until something accepts connections on the local port."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not start")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--serve"]:
        _serve(Path(args[1]), int(args[2]))
        return
    idle, loaded = measure()
    for name, values in (("idle", idle), (f"{READERS} readers, {LISTENERS} sockets", loaded)):
        ms = [v * 1000 for v in values]
        print(f"service frame-to-lights ({name}, {len(ms)} frames): median "
              f"{statistics.median(ms):.1f} ms, p99 {_percentile(ms, 0.99):.1f} ms, "
              f"max {max(ms):.1f} ms (target p99 <= {TARGET_P99_MS:.0f} ms)")


if __name__ == "__main__":
    main()
