"""Helpers of the broadcast tests: a real Mosquitto on a free loopback port,
a TCP proxy that can cut the network, board services and the hall as
subprocesses, and a plain MQTT listener."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from service_process import ServiceProcess, free_port

from controller.rules import Game
from controller.rules.random_games import lasting_moves

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
# How long a board stopped by SIGTERM may take to close (its broadcast
# thread waits for nothing on the network, whatever the broker does).
STOP_WAIT = 5


def wait_until(check: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = check()
        except (OSError, urllib.error.URLError, KeyError, ValueError):
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.05)


class Broker:
    """Debian's mosquitto, started by the test on a free port."""

    def __init__(self, workdir: Path, extra: str = "") -> None:
        if not Path(MOSQUITTO).exists():
            pytest.fail("mosquitto is not installed: `make test` installs it "
                        "(apt-get install mosquitto)")
        self.port = free_port()
        self.dir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\npersistence false\n"
                             + (extra or "allow_anonymous true\n"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Broker:
        log = open(self.dir / "mosquitto.log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=log)
        wait_until(self._listening, 10, "mosquitto listening")
        return self

    def _listening(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
            return True

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(STOP_WAIT)
            self.proc = None


class Proxy:
    """A loopback TCP proxy in front of the broker.  ``cut()`` makes the
    network silent (bytes dropped, connections left open, as a pulled
    cable); ``restore()`` closes what was open and forwards again."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.silent = False
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            pair = [client]
            if not self.silent:
                try:
                    pair.append(socket.create_connection(("127.0.0.1", self.target)))
                except OSError:
                    client.close()
                    continue
            with self.lock:
                self.open.extend(pair)
            threading.Thread(target=self._pump, args=(client, pair[1:]), daemon=True).start()
            if len(pair) == 2:
                threading.Thread(target=self._pump, args=(pair[1], [client]), daemon=True).start()

    def _pump(self, src: socket.socket, dst: list[socket.socket]) -> None:
        try:
            while data := src.recv(65536):
                if not self.silent and dst:
                    dst[0].sendall(data)
        except OSError:
            pass
        for s in [src, *dst]:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.silent = True

    def restore(self) -> None:
        with self.lock:
            old, self.open = self.open, []
        for s in old:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
        self.silent = False

    def close(self) -> None:
        self.sock.close()
        self.restore()


def keep_screenshots(folder: Path) -> None:
    """Copy the hall's screenshots in ``folder`` to ``$KHARBGA_SCREENSHOTS``
    (a folder to keep them in), when it is set."""
    shots = os.environ.get("KHARBGA_SCREENSHOTS")
    if shots:
        for png in folder.glob("hall*.png"):
            shutil.copy(png, Path(shots) / png.name)


def http_get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        body = r.read()
    ctype = r.headers.get("Content-Type", "")
    return json.loads(body) if "json" in ctype else body.decode()


class Proc(ServiceProcess):
    """``python -m controller ARGS`` in the background, output to a file."""

    def __init__(self, args: list[str], log: Path, port: int) -> None:
        self.args = args
        self.log = log
        self.port = port
        self.proc = None

    def start(self, path: str = "/api/state") -> Proc:
        out = open(self.log, "ab")  # noqa: SIM115
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "controller", *self.args],
                                     stdout=out, stderr=out, env=env)
        wait_until(lambda: http_get(self.url + path), 30, f"{self.args[0]} started")
        return self

    def get(self, path: str) -> Any:
        return http_get(self.url + path)


def board(tmp: Path, name: str, broker_url: str, variant: str = "sabouiyya",
          extra: str = "") -> Proc:
    data = tmp / name
    data.mkdir(parents=True, exist_ok=True)
    config = data / "config.toml"
    config.write_text(f'[board]\nvariant = "{variant}"\nsettle = 0.05\nerror_delay = 0.5\n'
                      + extra)
    port = free_port()
    args = ["run", "--config", str(config), "--data-dir", str(data), "--port", str(port)]
    if broker_url:
        args += ["--broker", broker_url, "--board-id", name]
    return Proc(args, data / "service.log", port)


def hall(tmp: Path, broker_url: str) -> Proc:
    port = free_port()
    return Proc(["hall", "--broker", broker_url, "--port", str(port)], tmp / "hall.log", port)


def random_game(seed: int, variant: str = "sabouiyya", limit: int = 70) -> list[str]:
    """Actions of a random game that does not end at once."""
    rng = random.Random(seed)
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < limit:
        moves = lasting_moves(g)
        if not moves:
            break
        g.play(rng.choice(moves))
    return [str(m) for m in g.moves]


# Seconds an action may take from the board to its record while the broker
# or the network is away: well below the 10 s keepalive that a board waiting
# on the broker would take, above the ~3 s a loaded test machine can take.
SLOWEST = 6.0


class Player:
    """Plays a list of actions on a simulated board through its API."""

    def __init__(self, proc: Proc, actions: list[str], variant: str = "sabouiyya") -> None:
        self.proc = proc
        self.actions = actions
        self.game = Game.new(variant)
        self.done = 0
        self.slowest = 0.0

    def occ(self) -> str:
        a, d = self.game.bitboards()
        return "".join("1" if (a | d) >> i & 1 else "0" for i in range(self.game.geometry.size))

    def play(self, count: int, pause: float = 0.12) -> None:
        """The next ``count`` actions, each confirmed before the next."""
        for _ in range(count):
            if self.done >= len(self.actions):
                return
            self.game.play(self.actions[self.done])
            t = time.monotonic()
            self.proc.post("/api/sim/occupancy", {"occ": self.occ()})
            self.done += 1
            wait_until(lambda: self.stored() == self.actions[:self.done], 10,
                       f"action {self.done} recorded")
            self.slowest = max(self.slowest, time.monotonic() - t)
            time.sleep(pause)

    def stored(self) -> list[str]:
        state = self.proc.get("/api/state")
        return list(self.proc.get(f"/api/games/{state['game_id']}")["actions"])


def turn_texts(variant: str, actions: list[str]) -> list[str]:
    """The game's turns as the board page and the KGN write them
    (``@c5 @e5``, ``a4xb4xc4``), without their numbers."""
    from controller.rules import new_game
    from controller.rules.record import group_turns

    game = new_game(variant)
    for a in actions:
        game.play(a)
    return [" ".join(turn) for turn in group_turns(game)]


def hall_has(hall_proc: Proc, name: str, actions: list[str]) -> bool:
    d = hall_proc.get(f"/api/boards/{name}")
    return bool(d["moves"] == actions)


class Listener:
    """A plain MQTT client that keeps every message it hears."""

    def __init__(self, broker_url: str, topic: str = "kharbga/#") -> None:
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, bytes, bool]] = []
        host, port = broker_url.removeprefix("mqtt://").split(":")
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        subscribed = threading.Event()
        self.client.on_connect = lambda c, *a: c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda *a: subscribed.set()
        self.client.on_message = lambda c, u, m: self.messages.append(
            (m.topic, bytes(m.payload), bool(m.retain)))
        self.client.connect(host, int(port))
        self.client.loop_start()
        # Messages sent before the broker took the subscription are not heard.
        if not subscribed.wait(10):
            self.close()
            raise AssertionError("the listener's subscription was not acknowledged")

    def on(self, topic: str) -> list[bytes]:
        return [p for t, p, _ in self.messages if t == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
