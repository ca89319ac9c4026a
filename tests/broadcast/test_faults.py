"""Faults with a real Mosquitto, a board service and the hall: the broker
killed mid-game and restarted, the board's network silent for 30 s, the
board killed with SIGKILL mid-game.  The board never waits for the broker,
and once the connections are back the hall holds exactly the recorded game."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bchelp import (
    SLOWEST,
    STOP_WAIT,
    Broker,
    Player,
    Proc,
    Proxy,
    board,
    hall,
    hall_has,
    random_game,
    wait_until,
)

from controller.rules.record import parse_record


def _check_hall(h: object, name: str, player: Player) -> None:
    recorded = player.stored()
    assert recorded == player.actions[:player.done]
    wait_until(lambda: hall_has(h, name, recorded), 40,  # type: ignore[arg-type]
               f"the hall holds the {len(recorded)} recorded actions of {name}")
    kgn = h.get("/api/games.kgn")  # type: ignore[attr-defined]
    records = ["[Variant" + part for part in kgn.split("[Variant")[1:]]
    games = [parse_record(r) for r in records]
    ours = [g for g in games if g.tags.get("GameId") == str(player.proc.get("/api/state")
                                                           ["game_id"])]
    assert ours and [str(m) for m in ours[-1].game().moves] == recorded


@contextmanager
def _rig(tmp_path: Path, name: str,
         network: str = "direct") -> Iterator[tuple[Broker, Proxy | None, Proc, Proc]]:
    """A broker, the hall, and the board ``name`` reaching the broker
    ``network``: "direct", through a proxy ("proxy"), or through a proxy
    cut from the start ("cut"); all stopped at the end."""
    broker = Broker(tmp_path / "broker").start()
    proxy = Proxy(broker.port) if network != "direct" else None
    if proxy is not None and network == "cut":
        proxy.cut()
    h = hall(tmp_path, broker.url).start("/api/boards")
    b = board(tmp_path, name, proxy.url if proxy is not None else broker.url).start()
    try:
        yield broker, proxy, h, b
    finally:
        b.stop()
        h.stop()
        if proxy is not None:
            proxy.close()
        broker.stop()


def test_broker_killed_and_restarted(tmp_path: Path) -> None:
    with _rig(tmp_path, "kb") as (broker, _, h, b):
        player = Player(b, random_game(21))
        player.play(10)
        wait_until(lambda: hall_has(h, "kb", player.actions[:10]), 10, "first moves in the hall")
        broker.kill()
        wait_until(lambda: not b.get("/api/state")["broker"]["connected"], 10, "link down shown")
        player.play(12)  # recorded and lit while the broker is away
        # A board that waited for the broker would take the keepalive (10 s)
        # or the whole outage on some action; a loaded machine takes ~3 s.
        assert player.slowest < SLOWEST
        broker.start()
        player.play(8)
        wait_until(lambda: b.get("/api/state")["broker"]["connected"], 15, "link up shown")
        _check_hall(h, "kb", player)
        player.play(10)
        _check_hall(h, "kb", player)


def test_network_cut_for_30_seconds(tmp_path: Path) -> None:
    with _rig(tmp_path, "nb", "proxy") as (_, proxy, h, b):
        assert proxy is not None
        player = Player(b, random_game(22))
        player.play(8)
        wait_until(lambda: hall_has(h, "nb", player.actions[:8]), 10, "first moves in the hall")
        proxy.cut()
        cut_at = time.monotonic()
        while time.monotonic() - cut_at < 30:
            player.play(1, pause=1.0)  # the board plays on at full speed
        assert player.slowest < SLOWEST
        # The silent network was noticed (keepalive 10 s) and is on the page.
        assert b.get("/api/state")["broker"]["connected"] is False
        assert h.get("/api/boards/nb")["ply"] <= 8 + 1
        proxy.restore()
        wait_until(lambda: b.get("/api/state")["broker"]["connected"], 20, "link up again")
        _check_hall(h, "nb", player)
        stats = h.get("/api/boards")["stats"]
        assert stats["ignored"] == 0


def test_board_sigkilled_mid_game(tmp_path: Path) -> None:
    with _rig(tmp_path, "sb") as (_, _, h, b):
        player = Player(b, random_game(23))
        for _ in range(4):
            player.play(6, pause=0.02)
            b.kill()  # right after the action was recorded: maybe not yet published
            b.start()
        player.play(6)
        _check_hall(h, "sb", player)
        # Every action reached the hall once: the moves it shows are in order
        # and nothing is counted as malformed.
        d = h.get("/api/boards/sb")
        assert d["moves"] == player.actions[:player.done]
        assert h.get("/api/boards")["stats"]["ignored"] == 0
        assert json.loads(json.dumps(d))["online"] is True


def test_board_stops_at_once_with_a_silent_broker(tmp_path: Path) -> None:
    """SIGTERM with the network silent: the board stops within seconds and
    the moves it could not send are still queued when it comes back."""
    with _rig(tmp_path, "qb", "cut") as (_, proxy, h, b):
        assert proxy is not None
        player = Player(b, random_game(24))
        player.play(5, pause=0.02)
        assert b.proc is not None
        b.proc.terminate()  # the board's own shutdown, not a kill: exits cleanly
        assert b.proc.wait(STOP_WAIT) == 0  # (a board waiting on the network would time out)
        b.proc = None
        proxy.restore()
        b.start()
        _check_hall(h, "qb", player)


def test_a_second_hall_on_the_same_port_leaves_the_first_connected(tmp_path: Path) -> None:
    # The second hall, refused its port, had already connected under the
    # same client id (the host and the port name it): the broker closed the
    # running hall's connection for it, and its page showed the link down.
    broker = Broker(tmp_path / "broker").start()
    first = hall(tmp_path, broker.url).start("/api/boards")
    try:
        wait_until(lambda: first.get("/api/boards")["link"]["connected"], 15, "first hall linked")
        since = first.get("/api/boards")["link"]["since"]
        second = subprocess.run(
            [sys.executable, "-m", "controller", "hall", "--broker", broker.url,
             "--port", str(first.port)], capture_output=True, text=True, timeout=60)
        assert second.returncode != 0
        assert second.stderr.strip().endswith(
            f"port {first.port}: in use (another hall?): give another with --host or --port")
        time.sleep(2)  # a connection dropped would show by now
        link = first.get("/api/boards")["link"]
        assert link["connected"] and link["since"] == since, link
        assert "lost" not in first.log.read_text()
    finally:
        first.stop()
        broker.stop()


def test_the_hall_stops_at_once_with_a_page_open(tmp_path: Path) -> None:
    # An open page kept a stopped hall 30 s on the broker (its WebSocket was
    # closed only after the server's wait for it), fighting a hall started
    # again meanwhile. The page is told the hall is going, and it goes.
    import asyncio
    import threading

    import aiohttp

    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    seen: list[object] = []
    opened = threading.Event()

    async def page() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(h.url + "/ws") as ws:
            async for msg in ws:
                opened.set()
                seen.append(msg.type)
            seen.append(ws.close_code)

    reader = threading.Thread(target=lambda: asyncio.run(page()), daemon=True)
    try:
        reader.start()
        assert opened.wait(15), "the hall's page got its first snapshot"
        assert h.proc is not None
        h.proc.terminate()
        assert h.proc.wait(STOP_WAIT) == 0
        h.proc = None
        reader.join(5)
        assert seen[-1] == 1001  # going away: the page says the hall stopped
    finally:
        h.stop()
        broker.stop()


def test_two_boards_given_one_board_id_stay_connected_and_say_so(tmp_path: Path) -> None:
    # A copied configuration: both boards sent as t1. The broker took one's
    # connection for the other about once a second, each page saying only
    # "not connected", and the hall showed one of the two games.
    with _rig(tmp_path, "t1") as (broker, _, h, one):
        two = board(tmp_path / "two", "t1", broker.url).start()
        try:
            for b in (one, two):
                wait_until(lambda b=b: b.get("/api/state")["broker"]["connected"], 15,
                           "connected")
            p1, p2 = Player(one, random_game(41)), Player(two, random_game(42))
            for _ in range(3):
                p1.play(2, pause=0.05)
                p2.play(2, pause=0.05)
            for b in (one, two):
                wait_until(lambda b=b: b.get("/api/state")["broker"]["twin"], 15, "twin said")
                link = b.get("/api/state")["broker"]
                assert link["connected"] and "another board also sends as t1" in link["twin"]
            wait_until(lambda: h.get("/api/boards/t1")["twin"], 15, "the hall's card says it")
            for b in (one, two):  # never knocked off the broker
                assert "lost the broker" not in b.log.read_text()
        finally:
            two.stop()
