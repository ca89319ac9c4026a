"""``kharbga-board run``: the service on its board (simulated, GPIO, the
serial link or a camera; :func:`controller.service.hardware.open_backend`
chooses), with its web page."""

from __future__ import annotations

import errno
import logging
import socket
import sys
from collections.abc import Callable

from controller.board.words import said

from . import datadir
from .broadcast import BroadcastConfig
from .config import Config
from .hardware import Backend

__all__ = ["serve", "compiled_note"]

log = logging.getLogger("kharbga")


def serve(config: Config, config_path: str | None = None,
          broadcast: BroadcastConfig | None = None) -> int:
    """Run until interrupted; returns the exit status.  (``config``
    carries every table of its file; ``config_path`` is not read again.)"""
    from .hardware import check_backend, needs_extra, open_backend

    with needs_extra("web", "the service"):
        import aiohttp  # noqa: F401 (the web extra, said before anything starts)

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # One service a data directory: a folder in use is told first (not "the
    # port is busy"), and the lock is kept from here on.
    held = datadir.hold(config.data_dir, create=False)
    try:
        check_listen(config.host, config.port)  # before a data folder or a game is made
        check_backend(config)  # the board's wiring against the game's board, as well
        # The board opened before the data folder too: LEDs whose library does
        # not load, or a bus that does not open, leave no folder and no game.
        clock = ServiceClock()
        backend = open_backend(config, clock)
        try:
            if held is None:  # a new folder
                held = datadir.hold(config.data_dir)
            return _serve(config, broadcast, backend, clock)
        finally:
            backend.close()
    finally:
        if held is not None:
            held.close()


class ServiceClock:
    """The service's clock for a board opened before the service is made:
    0.0 until then (the service's own clock starts at 0.0), then the
    service's."""

    def __init__(self) -> None:
        self.source: Callable[[], float] | None = None

    def __call__(self) -> float:
        source = self.source
        return 0.0 if source is None else source()


def _serve(config: Config, broadcast: BroadcastConfig | None, backend: Backend,
           clock: ServiceClock) -> int:
    from aiohttp import web

    from controller.board.config import start_url

    from .app import make_app
    from .archive import archive_errors
    from .board import BoardService

    # Damage the opening did not meet (in the pages of the games the
    # board resumes) is told as the opening tells it: the file, the fix.
    with archive_errors(config.data_dir / "games.sqlite3"):
        service = BoardService(config)
    clock.source = service.now
    app = make_app(service)
    _attach(app, service, backend)
    if broadcast is not None:  # the games to an MQTT broker (broadcast.py)
        from .broadcast import attach

        attach(app, service, broadcast)
    where = start_url(config.host, config.port, config.token)
    log.info("data in %s, game %s", config.data_dir, service.gid)
    log.log(*compiled_note())

    def listening(_: str) -> None:  # told once the port is bound, not before
        variant = service.reconciler.game.variant.name  # a resumed game: its own
        print(f"kharbga-board: {variant} on {backend.description} at {where}", flush=True)

    try:
        web.run_app(app, host=config.host, port=config.port, print=listening,
                    handle_signals=True, access_log=None, shutdown_timeout=1.0)
    except OSError as exc:
        raise _listen_error(exc, config.host, config.port) from None
    return 0


def check_listen(host: str, port: int) -> None:
    """Raise the one-line :func:`_listen_error` if the page could not listen
    on ``host``:``port`` (each of its addresses bound and let go again, as
    the web server will bind them)."""
    try:
        for family, kind, proto, _, address in socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE):
            with socket.socket(family, kind, proto) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                s.bind(address)
    except OSError as exc:
        raise _listen_error(exc, host, port) from None


def _listen_error(exc: OSError, host: str, port: int) -> OSError:
    """Why the page cannot listen on ``host``:``port``, in one line naming
    the option to change (the system's own words name neither)."""
    if exc.errno == errno.EADDRINUSE:
        return OSError(f"port {port} on {host} is in use (another kharbga-board?): "
                       "give another with --port or [web] port")
    if isinstance(exc, socket.gaierror):
        return OSError(f"cannot listen on {host}: no such address ({exc.strerror or said(exc)})"
                       ": give another with --host or [web] host")
    if exc.errno == errno.EADDRNOTAVAIL:
        return OSError(f"cannot listen on {host}: it is not an address of this machine: "
                       "give another with --host or [web] host")
    return OSError(f"cannot listen on {host} port {port}: {exc.strerror or said(exc)}")


def compiled_note() -> tuple[int, str]:
    """The level and words of the line logged at start about the compiled
    parts: without them (no C compiler or Python headers when ``make
    install`` ran, say on a Pi without python3-dev) the board works the
    same, but the engine's hints and moves search 15 to 30 times slower
    (docs/engine-c.md)."""
    from controller.engine import csearch
    from controller.rules import accel

    if accel.pure_requested():
        return logging.INFO, "KHARBGA_PURE=1: the rules and the engine run in Python"
    missing = [what for what, built in (("the compiled rules core", accel.AVAILABLE),
                                        ("the engine's C search", csearch.available()))
               if not built]
    if missing:
        return logging.WARNING, (
            f"{' and '.join(missing)} not built: the engine searches in Python, 15 to 30 "
            "times slower (install gcc and python3-dev, then make install)")
    return logging.INFO, "the rules core and the engine's search run in C"


# Events fed a pass of the pump: more than a board sends in seconds (a
# switch changing at every scan is 200 a second), few enough (a quarter of
# a second's work) that a device flooding the link never holds the page,
# the lights and the board's status still.
PUMP_MOST = 500


def _attach(app: object, service: object, backend: Backend) -> None:
    """Run the backend's events into the service every 10 ms; LEDs follow."""
    import asyncio

    from aiohttp import web

    from .board import BoardService
    from .hardware import EventPump

    assert isinstance(app, web.Application) and isinstance(service, BoardService)
    pump: web.AppKey[asyncio.Task[None]] = web.AppKey("pump", asyncio.Task)
    feed = EventPump(service, backend.events)

    async def run_pump() -> None:
        told = ""
        while True:
            try:
                feed(PUMP_MOST)
                # a camera with no picture, a link down; lights that fail
                service.set_sensor(backend.problem(), backend.fault())
                backend.show(service.state())  # refreshes blinking roles too
                told = ""
            except Exception as exc:  # the board must keep being read
                if repr(exc) != told:  # each new failure once, not 100 times a second
                    log.error("the board's loop: %s (going on)", exc, exc_info=exc)
                told = repr(exc)
            await asyncio.sleep(0.01)

    service.camera_preview = backend.preview

    async def start(app: web.Application) -> None:
        backend.start()
        app[pump] = asyncio.create_task(run_pump())

    async def stop(app: web.Application) -> None:
        app[pump].cancel()

    app.on_startup.append(start)
    app.on_cleanup.append(stop)
