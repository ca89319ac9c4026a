"""The engine in the running service: frames keep flowing while it thinks
at full load in its child, pondering is switched through the API and kept
with the game, and its children end with the service."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient
from server import Server, eventually
from test_api import serve

from controller.service.board import BoardService
from controller.service.config import Config

# Plain sabouiyya, the Defender to move: e5 can step to e4.
POSITION = "D.DAD/.DA../DA.../AA.../....A d m - 10"


def _occ(position: str) -> str:
    rows = position.split()[0].split("/")
    cells = "".join(reversed(rows))  # a1 first
    return "".join("0" if c == "." else "1" for c in cells)


def _without(occ: str, square: str) -> str:
    i = (int(square[1]) - 1) * 5 + ord(square[0]) - ord("a")
    return occ[:i] + "0" + occ[i + 1:]


def _wait(predicate: Any, seconds: float = 20.0) -> Any:
    return eventually(predicate, seconds, every=0.01)


def test_frames_flow_while_the_computer_thinks_at_full_load(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "sabouiyya", players="ponder = false")
    server.start()
    try:
        server.post("/api/new", {"variant": "sabouiyya", "position": POSITION})
        start = time.monotonic()
        # 10 s to think: the touches below end 2.5 s in, and each takes
        # more than half a second (more on a loaded machine): the engine
        # must still be thinking through the last of them.
        server.post("/api/computer", {"side": "defender", "seconds": 10})
        board = _occ(POSITION)
        lifted, restored = [], []
        thinking = "Defender (computer) is thinking: its move will be lit"
        while time.monotonic() - start < 2.5:
            # The players touch the board while the engine thinks: each
            # reading is taken at once. The computer's soldier lifted is
            # not its move: it is asked back once the error delay (0.5 s
            # here) has passed, and the board is right again at once.
            sent = time.monotonic()
            server.post("/api/sim/occupancy", {"occ": _without(board, "e5")})
            _wait(lambda: server.get("/api/state")["status"].startswith(
                "e5: put the Defender's soldier back (the computer is thinking"))
            lifted.append(time.monotonic() - sent)
            sent = time.monotonic()
            server.post("/api/sim/occupancy", {"occ": board})
            _wait(lambda: server.get("/api/state")["status"] == thinking)
            restored.append(time.monotonic() - sent)
            state = server.get("/api/state")
            assert state["expected"] is None and state["moves"] == []  # still thinking
        assert len(lifted) >= 2
        # Each reading answered while the 10 s search runs, not after it:
        # the margins are for a loaded machine (two test workers and the
        # engine's child on two cores).
        assert max(lifted) < 0.5 + 1.5 and max(restored) < 1.5, (lifted, restored)
        # ... and it thought all that time (no move for 2 s): its move
        # is lit after it.
        lit = _wait(lambda: server.get("/api/state")["expected"], 25)
        assert server.get("/api/state")["to_move"] == "defender" and "-" in lit
    finally:
        server.stop()


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for child, parent in parents.items():
            if parent == p and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_engines_children_end_with_the_service(tmp_path: Path) -> None:
    server = Server(tmp_path / "data", "kharbga", players="ponder = true")
    server.start()
    try:
        assert server.proc is not None
        thought = _wait(lambda: server.get("/api/state")["thought"])
        assert thought["move"].startswith("@") and thought["depth"] >= 1
        children = _descendants(server.proc.pid)
        assert len(children) >= 2  # the fork server and the ponder
    finally:
        server.stop()
    _wait(lambda: not any(_alive(p) for p in children), 10)


def test_ponder_switched_through_the_api_and_kept_with_the_game(tmp_path: Path) -> None:
    config = Config(data_dir=tmp_path, settle=0.05, error_delay=0.2, variant="sabouiyya")
    service = BoardService(config)

    async def body(client: TestClient[Any, Any]) -> None:
        async def state() -> dict[str, Any]:
            return dict(await (await client.get("/api/state")).json())

        for _ in range(400):  # the ponder's first round arrives
            if (await state())["thought"]:
                break
            await asyncio.sleep(0.05)
        first = await state()
        assert first["ponder"] is True and first["thought"]["line"]
        assert first["thought"]["words"] in ("even", "Attacker better", "Defender better")
        r = await client.post("/api/ponder", json={"on": False})
        assert r.status == 200
        off = await r.json()
        assert off["ponder"] is False and off["thought"] is None
        assert service.advice.thinker._ponder is None
        stored = service.store.get(service.gid)
        assert stored is not None and stored.settings["ponder"] is False
        for bad in ({"on": "yes"}, {}, {"on": 1}):
            r = await client.post("/api/ponder", json=bad)
            assert r.status == 400
            assert (await r.json())["error"] == '"on" must be true or false'
        r = await client.post("/api/ponder", data="[", headers={"Content-Type":
                                                                "application/json"})
        assert r.status == 400 and "JSON object" in (await r.json())["error"]

    serve(service, body)  # its end closes the service
    again = BoardService(config)  # the game resumed: pondering stays off
    try:
        assert again.ponder is False and again.state()["ponder"] is False
        again.think_ahead()
        assert again.advice.thinker._ponder is None
    finally:
        again.close()


def test_the_computers_reply_is_ready_when_the_expected_move_lands(tmp_path: Path) -> None:
    """The person plays the ponder's first move: the computer's reply (the
    line's next move) is lit at once, not after its 3 seconds of search.
    The ponder goes on deepening while the move is on its way, and its
    newest line is the one that counts: every report seen until the reply
    is lit is kept, and the reply must be the next move of one of them."""
    from controller.rules import Game

    start = POSITION.replace(" d m ", " a m ")  # the Attacker (the person) to move
    server = Server(tmp_path / "data", "sabouiyya", players="ponder = true")
    server.start()
    seen: list[dict[str, Any]] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                x = server.get("/api/state")["thought"]
            except OSError:
                x = None
            if x:
                seen.append(x)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    try:
        server.post("/api/new", {"variant": "sabouiyya", "position": start})
        server.post("/api/computer", {"side": "defender", "seconds": 3})
        t = _wait(lambda: (x := server.get("/api/state")["thought"]) and x["seconds"] >= 3
                  and len(x["line"]) >= 2 and "x" not in x["line"][0] and x, 30)
        watcher.start()
        game = Game.from_position("sabouiyya", start)
        game.play(t["line"][0])
        assert game.to_move == "defender"  # a quiet step ends the person's turn
        a, d = game.bitboards()
        sent = time.monotonic()
        server.post("/api/sim/occupancy",
                    {"occ": "".join("1" if (a | d) >> i & 1 else "0" for i in range(25))})
        lit = _wait(lambda: server.get("/api/state")["expected"], 10)
        took = time.monotonic() - sent
        stop.set()
        watcher.join()
        replies = {x["line"][1] for x in (t, *seen)
                   if len(x["line"]) >= 2 and x["line"][0] == t["line"][0]}
        assert lit in replies, (lit, replies)  # the line's next move ...
        # ... at once: a search would take 3 s; the margin is for a loaded
        # machine, where the reading and the lighting took 0.8 s.
        assert took < 2.0, took
    finally:
        stop.set()
        server.stop()


def test_no_score_is_shown_once_the_computer_takes_the_side_to_move(tmp_path: Path) -> None:
    """The engine's thinking is shown while the person thinks; the computer
    chosen for the side to move, the page waits for its move (grey, no
    score: the computer's own search at its level is not shown)."""
    server = Server(tmp_path / "data", "hewakam-keliya", players="ponder = true")
    server.start()
    try:
        assert _wait(lambda: server.get("/api/state")["thought"], 30)
        server.post("/api/computer", {"side": "attacker", "level": 5})
        state = _wait(lambda: (s := server.get("/api/state"))["expected"] and s, 30)
        assert state["to_move"] == "attacker" and state["computer"] == "attacker"
        seen = []
        until = time.monotonic() + 3.0
        while time.monotonic() < until:  # while its move waits to be made
            seen.append(server.get("/api/state")["thought"])
            time.sleep(0.1)
        assert seen == [None] * len(seen), [t for t in seen if t][:1]
    finally:
        server.stop()
