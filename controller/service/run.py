"""``kharbga-board run``: the service on the simulated board, GPIO or a
serial link, with its web page."""

from __future__ import annotations

import logging
import sys

from .config import Config

__all__ = ["serve"]

log = logging.getLogger("kharbga")


def serve(config: Config) -> int:
    """Run until interrupted; returns the exit status."""
    from aiohttp import web

    from .app import make_app
    from .board import BoardService

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if config.board != "sim":
        raise ValueError(f"board {config.board!r}: only the simulated board is wired in yet")
    service = BoardService(config)
    app = make_app(service)
    where = f"http://{config.host}:{config.port}/"
    print(f"kharbga-board: {config.variant} on the simulated board at {where}", flush=True)
    log.info("data in %s, game %s", config.data_dir, service.gid)
    web.run_app(app, host=config.host, port=config.port, print=None,
                handle_signals=True, access_log=None)
    return 0
