"""Broadcast benchmark (``make bench``, section ``broadcast``): fifty
simulated boards, each playing a game at ten actions a second, through one
Mosquitto to the hall; every move checked on the hall's page feed (in
order, none lost), the publish delay (confirmed move to the hall page's
WebSocket) and each board's frame-to-LED time with and without the broker.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from .bench import wait_listening

__all__ = ["main"]

BOARDS = 50
RATE = 10.0
ACTIONS = 100
PROCESSES = 10  # board processes (the synced writes of many boards overlap)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(check: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("did not start in time")


class PageFeed:
    """The hall page's WebSocket, as a page sees it: every board's moves,
    with the time each one arrived."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.moves: dict[str, list[str]] = {}
        self.delays: list[float] = []
        self.refetches = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self._thread.start()

    async def _run(self) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.ws_connect(self.url) as ws:
            while not self._stop.is_set():
                try:
                    msg = await ws.receive(timeout=0.2)
                except TimeoutError:
                    continue
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                self._take(json.loads(msg.data), time.time())

    def _take(self, update: dict[str, Any], now: float) -> None:
        for name, m in update.get("moves", {}).items():
            have = self.moves.setdefault(name, [])
            if m["from"] > len(have):
                self.refetches += 1  # a page would fetch the board whole
                continue
            old = len(have)
            del have[m["from"]:]
            have.extend(m["moves"])
            fresh = m["times"][max(0, old - m["from"]):]  # moves this page had not seen
            self.delays.extend(now - t for t in fresh)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux)."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _run_with_broker(tmp: Path, mosquitto: str) -> tuple[list[Any], PageFeed, float, int,
                                                          float]:
    from .hallsim import run_boards

    port = _free_port()
    conf = tmp / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    "max_queued_messages 100000\n")
    broker = subprocess.Popen([mosquitto, "-c", str(conf)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    hall_port = _free_port()
    hall = None
    feed = None
    try:
        wait_listening(port, 10, "the broker")
        hall = subprocess.Popen([sys.executable, "-m", "controller", "hall", "--broker",
                                 f"mqtt://127.0.0.1:{port}", "--port", str(hall_port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{hall_port}"
        _wait(lambda: urllib.request.urlopen(base + "/api/boards", timeout=1).status == 200, 30)
        feed = PageFeed(f"ws://127.0.0.1:{hall_port}/ws")
        t0 = time.monotonic()
        results = run_boards(tmp / "with", BOARDS, f"mqtt://127.0.0.1:{port}", rate=RATE,
                             max_actions=ACTIONS, processes=PROCESSES, linger=3.0)
        took = time.monotonic() - t0
        with urllib.request.urlopen(base + "/api/boards", timeout=5) as r:
            ignored = int(json.loads(r.read())["stats"]["ignored"])
        feed.close()
        return results, feed, took, ignored, _cpu_seconds(broker.pid)
    finally:
        for proc in (hall, broker):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def main() -> None:
    from .hallsim import run_boards

    print("== broadcast: boards through one Mosquitto to the hall ==")
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(mosquitto).exists():
        print("broadcast: skipped (mosquitto is not installed: `make bench` installs it)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        results, feed, took, ignored, broker_cpu = _run_with_broker(Path(tmp), mosquitto)
        alone = run_boards(Path(tmp) / "without", BOARDS, None, rate=RATE,
                           max_actions=ACTIONS, processes=PROCESSES, linger=0.0)
        one = _one_board(Path(tmp), mosquitto)
    actions = sum(len(r.actions) for r in results)
    complete = sum(feed.moves.get(r.board_id) == r.actions for r in results)
    play = max(r.seconds for r in results)
    print(f"{BOARDS} boards in {PROCESSES} processes, kharbga games of {ACTIONS} actions at up to "
          f"{RATE:g} a second each: {actions} actions in {play:.1f} s "
          f"({actions / play:.0f} a second in all; {took:.0f} s with start-up)")
    alone_actions = sum(len(r.actions) for r in alone)
    alone_play = max(r.seconds for r in alone)
    print(f"the same boards without a broker: {alone_actions} actions in {alone_play:.1f} s "
          f"({alone_actions / alone_play:.0f} a second; the machine, not the broker, "
          f"sets the pace where this is below {BOARDS * RATE:.0f})")
    print(f"hall page: {complete}/{BOARDS} games complete and in order "
          f"(target {BOARDS}/{BOARDS}), {feed.refetches} gaps, {ignored} messages ignored")
    d = [x * 1000 for x in feed.delays]
    print(f"publish delay, confirmed move to hall page: p50 {_pct(d, 0.5):.1f} ms, "
          f"p99 {_pct(d, 0.99):.1f} ms, max {max(d, default=float('nan')):.1f} ms "
          f"({len(d)} moves)")
    print(f"Mosquitto: {broker_cpu:.1f} s of CPU for {actions} moves "
          f"({broker_cpu / play * 100:.0f}% of one core while the boards played)")
    _led("frame-to-LED, 50 boards loaded", results, alone)
    _led("frame-to-LED, one board alone (a Pi's case)", one[0], one[1])
    w, wo = one[0][0], one[1][0]
    print(f"one board's process CPU over its game: {w.cpu:.2f} s with the broker, "
          f"{wo.cpu:.2f} s without ({(w.cpu - wo.cpu) / max(1, len(w.actions)) * 1000:.2f} ms "
          f"a move for publishing, record and state included)")


def _led(label: str, with_broker: list[Any], without: list[Any]) -> None:
    a = [x for r in with_broker for x in r.led_ms]
    b = [x for r in without for x in r.led_ms]
    print(f"{label}: with the broker p50 {_pct(a, 0.5):.2f} ms, p99 {_pct(a, 0.99):.2f} ms; "
          f"without p50 {_pct(b, 0.5):.2f} ms, p99 {_pct(b, 0.99):.2f} ms")


def _one_board(tmp: Path, mosquitto: str) -> tuple[list[Any], list[Any]]:
    """One board in its own process at the same rate, with and without
    publishing (the broker otherwise idle)."""
    from .hallsim import run_boards

    port = _free_port()
    conf = tmp / "one.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker = subprocess.Popen([mosquitto, "-c", str(conf)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, 10, "the broker")
        with_b = run_boards(tmp / "one-with", 1, f"mqtt://127.0.0.1:{port}", rate=RATE,
                            max_actions=ACTIONS, processes=1, linger=0.5)
        without = run_boards(tmp / "one-without", 1, None, rate=RATE, max_actions=ACTIONS,
                             processes=1, linger=0.0)
        return with_b, without
    finally:
        broker.terminate()
        broker.wait(10)


if __name__ == "__main__":
    main()
