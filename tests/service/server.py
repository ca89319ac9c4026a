"""Start the real service (``kharbga-board run``) in a subprocess for tests."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from real_board_page import eventually
from service_process import ServiceProcess, free_port

__all__ = ["Server", "eventually", "free_port"]


class Server(ServiceProcess):
    stop_grace = 5.0

    def __init__(self, data_dir: Path, variant: str, settle: float = 0.05,
                 web: str = "", players: str = "ponder = false", board: str = "sim") -> None:
        """``players``: the ``[players]`` table's lines (the engine does not
        ponder unless a test asks for it: it would take a core); ``board``:
        the board's kind (``sim``, ``serial:PORT``, ...)."""
        self.data_dir = data_dir
        self.port = free_port()
        self.config = data_dir / "config.toml"
        data_dir.mkdir(parents=True, exist_ok=True)
        self.config.write_text(
            f'[board]\nkind = "{board}"\nvariant = "{variant}"\nsettle = {settle}\n'
            'error_delay = 0.5\n'
            + (f"[web]\n{web}\n" if web else "")
            + (f"[players]\n{players}\n" if players else "")
        )
        self.proc = None
        # What the service says (its warnings, a job that failed): shown
        # under a failing test's report (tests/conftest.py).
        self.log_path = data_dir.parent / "service.log"

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "controller", "run", "--config", str(self.config),
                 "--data-dir", str(self.data_dir), "--port", str(self.port)],
                stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.get("/api/state")
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        code = self.proc.poll()
        said = self.log_path.read_text(errors="replace").splitlines()[-20:]
        raise RuntimeError("the service did not start in 30 s ("
                           + ("still running" if code is None else f"exit {code}")
                           + "); its log ends:\n" + "\n".join(said))

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            body = r.read()
        return json.loads(body) if path.startswith("/api/") and not path.endswith(".kgn") \
            else body.decode()
