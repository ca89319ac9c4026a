"""``kharbga-board run``: the service on the simulated board, GPIO or a
serial link, with its web page."""

from __future__ import annotations

import logging
import sys

from .config import Config

__all__ = ["serve"]

log = logging.getLogger("kharbga")


def serve(config: Config, config_path: str | None = None) -> int:
    """Run until interrupted; returns the exit status."""
    from aiohttp import web

    from .app import make_app
    from .board import BoardService

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from controller.rules import find_variant

    backend: object = None
    if config.board == "gpio":
        from .hardware import GpioBackend

        backend = GpioBackend(config_path)
    elif config.board.startswith("serial:"):
        from .hardware import SerialBackend

        backend = SerialBackend(config.board.removeprefix("serial:"), config_path,
                                find_variant(config.variant).size)
    elif config.board.startswith("camera:"):
        from .hardware import CameraBackend

        backend = CameraBackend(config.board.removeprefix("camera:"), config_path)
    elif config.board != "sim":
        raise ValueError(f"board {config.board!r}: use sim, gpio, serial:PORT or camera:DEVICE")
    service = BoardService(config)
    app = make_app(service)
    if backend is not None:
        _attach(app, service, backend)
    where = f"http://{config.host}:{config.port}/"
    board = "the simulated board" if config.board == "sim" else config.board
    print(f"kharbga-board: {config.variant} on {board} at {where}", flush=True)
    log.info("data in %s, game %s", config.data_dir, service.gid)
    try:
        web.run_app(app, host=config.host, port=config.port, print=None,
                    handle_signals=True, access_log=None)
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    return 0


def _attach(app: object, service: object, backend: object) -> None:
    """Run the backend's queue into the service every 10 ms; LEDs follow."""
    import asyncio

    from aiohttp import web

    from .board import BoardService
    from .hardware import CameraBackend, GpioBackend, SerialBackend, drain

    assert isinstance(app, web.Application) and isinstance(service, BoardService)
    assert isinstance(backend, GpioBackend | SerialBackend | CameraBackend)
    pump: web.AppKey[asyncio.Task[None]] = web.AppKey("pump", asyncio.Task)

    async def run_pump() -> None:
        while True:
            drain(service, backend.events)
            backend.show(service.state())  # refreshes blinking roles too
            await asyncio.sleep(0.01)

    if isinstance(backend, CameraBackend):
        service.camera_preview = backend.preview

    async def start(app: web.Application) -> None:
        backend.start()
        app[pump] = asyncio.create_task(run_pump())

    async def stop(app: web.Application) -> None:
        app[pump].cancel()

    app.on_startup.append(start)
    app.on_cleanup.append(stop)
