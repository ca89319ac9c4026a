"""Crash tests: the service killed with SIGKILL at random moments of a game
fed through the API, twenty times; after each restart the game goes on and
the final record equals the game played."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

from server import Server, eventually, free_port

from controller.rules import Game
from controller.rules.record import parse_record


def _occ(game: Game) -> str:
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> i & 1 else "0" for i in range(game.geometry.size))


def _game(rng: random.Random) -> Game:
    g = Game.new("sabouiyya")
    while g.outcome is None and len(g.moves) < 70:
        moves = [m for m in g.legal_moves() if m.kind != "pass"]
        if not moves:
            break
        g.play(rng.choice(moves))
    return g


def test_sigkill_twenty_times(tmp_path: Path) -> None:
    rng = random.Random(7)
    game = _game(rng)
    tokens = [str(m) for m in game.moves]
    server = Server(tmp_path / "data", "sabouiyya")
    server.start()
    replay = Game.new("sabouiyya")
    kills = sorted(rng.sample(range(1, len(tokens)), 20))
    confirmed = 0
    try:
        for i, token in enumerate(tokens):
            replay.play(token)
            server.post("/api/sim/occupancy", {"occ": _occ(replay)})
            if kills and kills[0] == i:
                kills.pop(0)
                time.sleep(rng.random() * 0.08)  # anywhere around the settle window
                server.kill()
                server.start()
            deadline = time.monotonic() + 10
            while True:
                state = server.get("/api/state")
                if len(state["moves"]) >= 1 and _count(state["moves"]) >= i + 1:
                    break
                assert time.monotonic() < deadline, f"action {i} {token} never confirmed"
                time.sleep(0.02)
            stored = server.get(f"/api/games/{state['game_id']}")
            assert stored["actions"][: i + 1] == tokens[: i + 1]
            confirmed = i + 1
        record = server.get(f"/api/games/{state['game_id']}.kgn")
    finally:
        server.stop()
    assert confirmed == len(tokens)
    again = parse_record(record).game()
    assert [str(m) for m in again.moves] == tokens


def _count(tokens: list[str]) -> int:
    n = 0
    for t in tokens:
        n += 1 if t.startswith(("@", "x")) or t == "pass" else t.count("-") + t.count("x")
    return n


def test_sigkill_during_a_sixteen_soldiers_game_with_a_huff(tmp_path: Path) -> None:
    """A leap game killed twice (once with a huff owed): each restart
    resumes it, the huff still owed, and the record equals the game."""
    from controller.rules import new_game

    game = new_game("sixteen-soldiers")
    server = Server(tmp_path / "data", "sixteen-soldiers")
    server.start()
    try:
        for token in ["d4-e5", "d6-c5", "c4-d4", "xb4", "b6-b5", "d4xb6"]:
            game.play(token)
            server.post("/api/sim/occupancy", {"occ": _occ(game)})
            deadline = time.monotonic() + 10
            while server.get("/api/state")["position"] != game.position():
                assert time.monotonic() < deadline, f"the board never reached {token}"
                time.sleep(0.03)
            if token in ("c4-d4", "d4xb6"):
                server.kill()
                server.start()
                state = server.get("/api/state")
                assert state["position"] == game.position()
                assert state["variant"] == "sixteen-soldiers"
                if token == "c4-d4":  # the huff owed is lit again
                    assert state["leds"].get("b4") == "capture"
        record = parse_record(server.get(f"/api/games/{server.get('/api/state')['game_id']}.kgn"))
        assert [str(m) for m in record.game().moves] == [str(m) for m in game.moves]
    finally:
        server.stop()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """``kharbga-board run ARGS`` to its end (a second service, refused)."""
    return subprocess.run([sys.executable, "-m", "controller", "run", *args],
                          capture_output=True, text=True, timeout=60)


def _assert_refused_as_in_use(second: subprocess.CompletedProcess[str], folder: Path,
                              pid: int) -> None:
    """``second`` stopped at start, in one line: process ``pid`` holds the
    data directory ``folder``."""
    assert second.returncode == 2
    assert second.stderr.strip().splitlines() == [
        f"kharbga-board: the data directory {folder} is in use by another "
        f"kharbga-board (process {pid}): stop it, or give "
        "this one another --data-dir"]


def test_a_second_service_on_the_same_games_refuses_to_start(tmp_path: Path) -> None:
    """Two services on one data directory would each keep their own idea
    of the game and write over the other's moves: the second refuses in
    one line, and once the first is gone (even by SIGKILL) it may start."""
    first = Server(tmp_path / "data", "kharbga")
    first.start()
    pid = first.proc.pid if first.proc else 0
    try:
        second = _run("--config", str(first.config), "--data-dir", str(first.data_dir),
                      "--port", str(free_port()))
    finally:
        first.kill()
    _assert_refused_as_in_use(second, first.data_dir, pid)
    again = Server(tmp_path / "data", "kharbga")
    again.start()  # the lock went with the killed process
    try:
        assert again.get("/api/state")["variant"] == "kharbga"
    finally:
        again.stop()


def test_a_second_service_is_told_the_games_are_in_use_before_the_board_is_opened(
        tmp_path: Path) -> None:
    """A second service on a board the first one holds would first meet the
    web port's or the board's own refusal (the port or the pins busy, or
    here no pin library at all); the data directory in use is the reason
    to give, so it is asked before either is opened."""
    import socket

    from controller.service import datadir

    folder = tmp_path / "data"
    held = datadir.hold(folder)
    assert held is not None
    port = free_port()
    try:
        with socket.socket() as first_page:  # the first service's port
            first_page.bind(("127.0.0.1", port))
            first_page.listen()
            second = _run("--board", "gpio", "--data-dir", str(folder), "--port", str(port))
    finally:
        held.close()
    _assert_refused_as_in_use(second, folder, os.getpid())
    again = datadir.hold(folder, create=False)  # let go: taken without a word
    assert again is not None
    again.close()


def test_the_start_line_names_the_resumed_game_s_variant(tmp_path: Path) -> None:
    first = Server(tmp_path / "data", "kharbga")
    first.start()
    first.post("/api/new", {"variant": "kharbga-refuge"})
    first.stop()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(first.config),
         "--data-dir", str(first.data_dir), "--port", str(free_port())],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
    finally:
        proc.kill()
        proc.wait()
    assert line.startswith("kharbga-board: kharbga-refuge on the simulated board at http://")


def test_a_restart_after_a_finished_game_waits_for_the_cleared_board(tmp_path: Path) -> None:
    """The power goes after a game ended, its soldiers still standing: the
    game started on restart waits for the board cleared, and the soldiers
    taken off one by one are never read as its placements (the last two
    would have been the Attacker's first turn)."""
    game = Game.new("kharbga")
    rng = random.Random(5)
    server = Server(tmp_path / "data", "kharbga")
    server.start()
    try:
        for n in range(1, 9):
            game.play(rng.choice(game.legal_moves()))
            server.post("/api/sim/occupancy", {"occ": _occ(game)})
            eventually(lambda: _count(server.get("/api/state")["moves"]) == n)  # noqa: B023
        server.post("/api/button", {"button": "resign", "side": "defender"})
        eventually(lambda: server.get("/api/state")["outcome"] is not None)
        finished = server.get("/api/state")["game_id"]
        server.kill()
        server.start()
        state = server.get("/api/state")
        assert state["game_id"] != finished
        assert state["waiting_clear"]
        assert state["status"] == "New game: clear the board first (8 soldiers still on it, " \
            "lit red)"
        names = game.geometry.point_names
        standing = [names[i] for i, c in enumerate(_occ(game)) if c == "1"]
        for n, point in enumerate(standing):
            server.post("/api/sim/occupancy", {"point": point, "occupied": False})
            time.sleep(0.15)  # past the settle: a reading of two would be a turn
            assert server.get(f"/api/games/{state['game_id']}")["actions"] == [], n
            if n == 3:  # a restart meanwhile keeps the new game waiting
                server.kill()
                server.start()
                assert server.get("/api/state")["waiting_clear"]
        state = server.get("/api/state")
        assert not state["waiting_clear"] and state["moves"] == []
        first = str(Game.new("kharbga").legal_moves()[0])
        server.post("/api/sim/occupancy", {"point": first[1:], "occupied": True})
        eventually(lambda: server.get("/api/state")["moves"] == [first])
    finally:
        server.stop()


def _moving_position(seed: int) -> Game:
    """A kharbga game a few steps into its moving phase."""
    rng = random.Random(seed)
    game = Game.new("kharbga")
    while game.phase != "moving" or len(game.moves) < 52:
        game.play(rng.choice([m for m in game.legal_moves() if m.kind != "pass"]))
    return Game.from_position("kharbga", game.position())


def _set_sim_board(data_dir: Path, occ: str) -> None:
    """What stands on the simulated board, changed while the service is
    down (the person moving a soldier while the Pi restarts)."""
    import json
    import sqlite3

    db = sqlite3.connect(data_dir / "games.sqlite3")
    with db:
        db.execute("UPDATE kv SET value=? WHERE key='sim_occ'", (json.dumps(occ),))
    db.close()


def test_the_computers_lit_move_made_during_a_crash_is_read_as_that_move(
    tmp_path: Path,
) -> None:
    """The computer's move is lit and the service killed; the restarted
    service lights the same move (it does not search again, perhaps to
    another choice), and a board already showing it is read as that move.
    Before, the restart searched again, and the move made meanwhile was lit
    as an error to put right (even when the search chose it again)."""
    game = _moving_position(3)
    server = Server(tmp_path / "data", "kharbga")
    server.start()
    try:
        server.post("/api/new", {"variant": "kharbga", "position": game.position()})
        server.post("/api/computer", {"side": game.to_move, "seconds": 0.3})
        lit = eventually(lambda: server.get("/api/state")["expected"])
        gid = server.get("/api/state")["game_id"]
        server.kill()
        server.start()  # the move lit, not made: the same one is lit at once
        assert server.get("/api/state")["expected"] == lit
        server.kill()
        game.play(lit)
        _set_sim_board(server.data_dir, _occ(game))  # made while the service is down
        server.start()
        eventually(lambda: server.get(f"/api/games/{gid}")["actions"] == [lit])
        time.sleep(1.0)  # past the error delay: nothing to put right
        state = server.get("/api/state")
        assert state["game_id"] == gid and state["position"] == game.position()
        assert "error" not in state["leds"].values(), state["status"]
    finally:
        server.stop()


def test_an_undo_not_yet_put_back_before_a_crash_is_asked_back_after_it(
    tmp_path: Path,
) -> None:
    """Undo is pressed and the service killed before the pieces are put
    back: the restarted service keeps the turn taken back and lights its
    squares as taken back by undo, as before the crash; the board still
    showing it is not read as the move again. Before, the restart read it
    as a new move and recorded it again."""
    game = _moving_position(5)
    server = Server(tmp_path / "data", "kharbga")
    server.start()
    try:
        server.post("/api/new", {"variant": "kharbga", "position": game.position()})
        gid = server.get("/api/state")["game_id"]
        before = game.position()
        move = next(m for m in game.legal_moves() if not m.capture and not m.flag)
        game.play(move)
        server.post("/api/sim/occupancy", {"occ": _occ(game)})
        eventually(lambda: server.get(f"/api/games/{gid}")["actions"] == [str(move)])
        server.post("/api/button", {"button": "undo"})
        # The undo is in the archive (the pieces not yet put back): then the crash.
        eventually(lambda: server.get(f"/api/games/{gid}")["actions"] == [])
        server.kill()
        server.start()
        frm, to = str(move).split("-")
        # Past the settle and the error delay, the squares are told.
        eventually(lambda: f"{to}: taken back by undo" in server.get("/api/state")["status"])
        state = server.get("/api/state")
        assert server.get(f"/api/games/{gid}")["actions"] == []
        assert state["position"] == before
        assert state["leds"].get(frm) == "error" and state["leds"].get(to) == "error"
        assert f"{frm}: taken back by undo; put the" in state["status"]
        assert f"{to}: taken back by undo; take it off" in state["status"]
        game.pop()
        server.post("/api/sim/occupancy", {"occ": _occ(game)})  # put back
        eventually(lambda: "error" not in server.get("/api/state")["leds"].values())
        # The lights go out with the frame; the board is read once the frame
        # has lasted the settle window (0.25 s): the move made again within it
        # would leave the board as it stood before the put-back, nothing new.
        time.sleep(1.0)
        assert server.get(f"/api/games/{gid}")["actions"] == []
        game.play(move)  # and made again: now it is a move
        server.post("/api/sim/occupancy", {"occ": _occ(game)})
        eventually(lambda: server.get(f"/api/games/{gid}")["actions"] == [str(move)])
    finally:
        server.stop()


def test_the_boards_new_game_button_then_a_crash_reads_no_soldier_left_standing(
    tmp_path: Path,
) -> None:
    """The board's New game button pressed with a game's soldiers on the
    board, the service killed before they are cleared: the new game waits
    for the board cleared, before the crash and after it, and the soldiers
    taken off one by one are never its moves; the game left is in the
    archive with its moves. Before, the button's new game read the board
    at once (after a restart: its first reading) and recorded the last two
    soldiers standing as the Attacker's first turn."""
    game = Game.new("kharbga")
    server = Server(tmp_path / "data", "kharbga")
    server.start()
    try:
        for n, token in enumerate(["@a1", "@b1", "@c1", "@d1"], 1):
            game.play(token)
            server.post("/api/sim/occupancy", {"occ": _occ(game)})
            eventually(lambda: _count(server.get("/api/state")["moves"]) == n)  # noqa: B023
        old = server.get("/api/state")["game_id"]
        server.post("/api/button", {"button": "new"})
        state = server.get("/api/state")
        assert state["waiting_clear"] and state["game_id"] != old
        server.kill()
        server.start()
        state = server.get("/api/state")
        assert state["waiting_clear"] and state["moves"] == []
        assert state["status"] == "New game: clear the board first (4 soldiers still on it, " \
            "lit red)"
        for point in ["a1", "b1", "c1"]:
            server.post("/api/sim/occupancy", {"point": point, "occupied": False})
            time.sleep(0.15)  # past the settle: two soldiers would be a turn
            assert server.get(f"/api/games/{state['game_id']}")["actions"] == [], point
        server.post("/api/sim/occupancy", {"point": "d1", "occupied": False})
        eventually(lambda: not server.get("/api/state")["waiting_clear"])
        server.post("/api/sim/occupancy", {"point": "e2", "occupied": True})
        eventually(lambda: server.get("/api/state")["moves"] == ["@e2"])
        assert server.get("/api/state")["game_id"] == state["game_id"]
        assert server.get(f"/api/games/{old}")["actions"] == ["@a1", "@b1", "@c1", "@d1"]
        assert {g["id"]: g["termination"] for g in server.get("/api/games")} == \
            {old: "abandoned", state["game_id"]: None}
    finally:
        server.stop()


def test_a_lock_file_the_service_may_not_write_still_keeps_a_second_one_out(
        tmp_path: Path) -> None:
    """``service.lock`` left by another user (a first start by hand with
    sudo) that the service's user may read but not write: the service
    still takes the lock on it (flock needs no writing), so a second
    service on the same games is refused. Before, the first ran without
    the lock, and a second one (root's, say) started beside it, both
    writing the same archive."""
    import shutil
    import signal

    import pytest

    from controller.service import datadir

    folder = tmp_path / "data"
    folder.mkdir()
    (folder / datadir.LOCK_NAME).write_text("")
    (folder / datadir.LOCK_NAME).chmod(0o444)  # another user's; readable
    cmd = [sys.executable, "-m", "controller", "run", "--data-dir", str(folder),
           "--port", str(free_port())]
    if os.geteuid() == 0:  # file modes bind root only without its capabilities
        if shutil.which("setpriv") is None:
            pytest.skip("root, without setpriv to drop the capabilities that pass file modes")
        cmd = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", *cmd]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout is not None
        line = first.stdout.readline()  # the address: the service is up
        assert "kharbga-board: kharbga on" in line, (line, first.stderr)
        with pytest.raises(OSError, match="is in use by another kharbga-board"):
            held = datadir.hold(folder)
            if held is not None:
                held.close()
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
