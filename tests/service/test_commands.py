"""The service's commands: `games log` replays, `run` prints the address
to open and says whether the engine searches in C, and bad options give
one line, never a traceback."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from server import free_port

from controller.engine import csearch
from controller.rules import Game, accel
from controller.rules.record import parse_record
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.run import compiled_note

POSITION_7X7 = "ADADADA/DADADAD/DADADAD/ADA.ADA/DADADAD/DADADAD/ADADADA a m - 1"


def _cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], capture_output=True,
                          text=True, timeout=60, **kw)  # type: ignore[call-overload]


def test_bad_hint_options_are_one_line() -> None:
    r = _cli("hint", "--time", "0", "--position", POSITION_7X7)
    assert r.returncode == 2
    assert r.stderr == ("kharbga-board: --time must be more than 0 and at most 600 "
                        "seconds, not 0\n")
    r = _cli("hint", "--variant", "sabouiyya", "--position", POSITION_7X7)
    assert r.returncode == 2
    assert r.stderr == ("kharbga-board: the position has 7 ranks but sabouiyya is played "
                        "on 5x5: a position of kharbga, kharbga-refuge or khamousiyya? give "
                        "its variant with --variant\n")


def test_match_help_is_plain_text() -> None:
    r = _cli("match", "--help")
    assert r.returncode == 0
    assert r.stdout.startswith("usage: kharbga-board match")
    for markup in ("controller.engine", "``", ":func:", "%%"):
        assert markup not in r.stdout


def _stored_game(tmp_path: Path) -> int:
    clock = [100.0]
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                                  variant="sabouiyya"), clock=lambda: clock[0])
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1", "@b3", "@e5", "@d3", "@a5"]:
        game.play(token)
        service.set_sim_occupancy("".join(
            "1" if (game.bitboards()[0] | game.bitboards()[1]) >> i & 1 else "0"
            for i in range(25)))
        clock[0] += 0.1
        service.tick()
    service.press("resign", "attacker")
    gid = service.gid
    service.close()
    return gid


def test_games_log_replays_and_stops_quietly_in_a_pipe(tmp_path: Path) -> None:
    gid = _stored_game(tmp_path)
    r = _cli("games", "log", str(gid), "--data-dir", str(tmp_path))
    assert r.returncode == 0
    assert r.stdout.startswith('{"t": 0.0, "board": "5x5", "sensor": "occupancy", '
                               '"variant": "sabouiyya"}\n')
    log = tmp_path / "g.jsonl"
    log.write_text(r.stdout)
    # The header names the game: no --variant needed.
    replayed = _cli("replay", str(log), "--settle", "0.05", "--error-delay", "0.2")
    assert replayed.returncode == 0, replayed.stderr
    recorded = parse_record(_cli("games", "export", str(gid), "--data-dir",
                                 str(tmp_path)).stdout)
    again = parse_record(replayed.stdout)
    assert [t.tokens for t in again.turns] == [t.tokens for t in recorded.turns] == \
        [["@c2", "@a1"], ["@b3", "@e5"], ["@d3", "@a5"]]
    assert again.result == recorded.result == "0-1"
    # `games log N | head -1`: the reader has gone away; no "Broken pipe".
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "controller", "games", "log", str(gid),
                            "--data-dir", str(tmp_path)], stdout=write, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    finally:
        os.close(write)
    assert r.returncode == 0 and r.stderr == ""


def test_run_prints_an_address_to_open_with_the_token(tmp_path: Path) -> None:
    port = free_port()
    token = "a-token-long-enough"
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--host", "0.0.0.0", "--port", str(port),
         "--token", token, "--data-dir", str(tmp_path), "--variant", "sabouiyya"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert f":{port}/?token={token}" in line, line
        assert "0.0.0.0" not in line
        deadline = time.monotonic() + 30
        while True:  # listening
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        # SIGTERM: the service stops at once (no waiting on open pages).
        start = time.monotonic()
        proc.terminate()
        proc.wait(10)
        assert proc.returncode == 0
        assert time.monotonic() - start < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_games_show_and_log_of_a_leap_game(tmp_path: Path) -> None:
    """A checkers game from the archive: shown with its position, and its
    sensor log (an 8x8 header) replayed to the same moves; replayed as
    another variant it is refused in one line naming both boards."""
    from controller.rules import new_game

    clock = [100.0]
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                                  variant="checkers"), clock=lambda: clock[0])
    game = new_game("checkers")
    for token in ["g3-f4", "b6-a5", "e3-d4", "a5-b4", "c3xa5"]:
        game.play(token)
        a, d = game.bitboards()
        service.set_sim_occupancy("".join("1" if (a | d) >> i & 1 else "0" for i in range(64)))
        clock[0] += 0.1
        service.tick()
    gid = service.gid
    service.close()
    shown = _cli("games", "show", str(gid), "--data-dir", str(tmp_path))
    assert shown.returncode == 0 and '[Variant "checkers"]' in shown.stdout
    assert f"position: {game.position()}" in shown.stdout
    log = _cli("games", "log", str(gid), "--data-dir", str(tmp_path))
    assert log.stdout.startswith('{"t": 0.0, "board": "8x8", "sensor": "occupancy", '
                                 '"variant": "checkers"}\n')
    path = tmp_path / "g.jsonl"
    path.write_text(log.stdout)
    again = _cli("replay", str(path), "--settle", "0.05")  # the header names checkers
    assert again.returncode == 0
    assert [str(m) for m in parse_record(again.stdout).game().moves] == \
        [str(m) for m in game.moves]
    wrong = _cli("replay", str(path), "--variant", "sixteen-soldiers")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "8x8" in wrong.stderr and "37-point" in wrong.stderr


def test_the_start_says_whether_the_engine_searches_in_c(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KHARBGA_PURE", raising=False)
    if accel.AVAILABLE and csearch.available():  # make install built both
        assert compiled_note() == (logging.INFO,
                                   "the rules core and the engine's search run in C")
    # An install without a C compiler or Python's headers (a Pi without python3-dev).
    monkeypatch.setattr(csearch, "_cs", None)
    level, words = compiled_note()
    assert level == logging.WARNING
    if accel.AVAILABLE:
        assert words.startswith("the engine's C search not built: the engine searches in Python")
    monkeypatch.setattr(accel, "AVAILABLE", False)
    level, words = compiled_note()
    assert level == logging.WARNING
    assert words == ("the compiled rules core and the engine's C search not built: the "
                     "engine searches in Python, 15 to 30 times slower (install gcc and "
                     "python3-dev, then make install)")
    monkeypatch.setenv("KHARBGA_PURE", "1")
    assert compiled_note() == (logging.INFO,
                               "KHARBGA_PURE=1: the rules and the engine run in Python")


def test_run_on_a_port_in_use_says_so_and_announces_nothing(tmp_path: Path) -> None:
    import socket

    port = free_port()
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", port))
        taken.listen()
        r = _cli("run", "--port", str(port), "--data-dir", str(tmp_path / "data"))
    assert r.returncode == 2
    assert r.stdout == ""  # the address is told only once the service listens there
    assert r.stderr.splitlines()[-1] == (
        f"kharbga-board: port {port} on 127.0.0.1 is in use (another kharbga-board?): "
        "give another with --port or [web] port")
    assert "Traceback" not in r.stderr
    # Nothing made before the port was found taken: no data folder, no game 1.
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("host", "words"), [
    # Before: "kharbga-board: [Errno -2] Name or service not known" (no host, no option).
    ("nosuchhost.invalid", "cannot listen on nosuchhost.invalid: no such address ("),
    # Before: "[Errno 99] error while attempting to bind on address ('192.0.2.1', ...)".
    ("192.0.2.1", "cannot listen on 192.0.2.1: it is not an address of this machine"),
])
def test_run_names_a_host_it_cannot_listen_on(tmp_path: Path, host: str, words: str) -> None:
    r = _cli("run", "--host", host, "--token", "a-long-enough-token", "--port",
             str(free_port()), "--data-dir", str(tmp_path / "data"))
    assert r.returncode == 2
    assert r.stdout == ""
    last = r.stderr.splitlines()[-1]
    assert last.startswith(f"kharbga-board: {words}"), r.stderr
    assert last.endswith(": give another with --host or [web] host")
    assert "Traceback" not in r.stderr and "Errno" not in r.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("board", "table", "words"), [
    ("gpio", '[gpio.mapping]\nboard = "37-point"\n',
     "gpio.mapping: it is for the 37-point board, but variant checkers is played on the "
     "8x8 board: play a variant of the 37-point board, or name the 8x8 board there once "
     "it is wired (hardware.md)"),
    ("gpio", '[gpio.matrix]\nrow_pins = [4, 17, 27, 22, 5, 6, 13]\n',
     "gpio.matrix.row_pins: the pins wire a 7x8 switch matrix, but the 8x8 board is read on "
     "an 8x8 one: give 8 row_pins and 8 column_pins (or neither, for its stock pins: "
     "hardware.md)"),
    ("serial:/dev/null", '[gpio.mapping]\nboard = "37-point"\n',
     "gpio.mapping: it is for the 37-point board, but variant checkers is played on the "
     "8x8 board (the serial board): play a variant of the 37-point board, or name the 8x8 "
     "board there once it is wired (hardware.md)"),
    ("camera:0", '[camera]\nprofile = "{tmp}/board.toml"\n',
     "the camera board reads the 7x7 board, but variant checkers is played "
                     "on the 8x8 board"),
])
def test_run_with_a_board_wired_for_another_game_makes_no_data_folder(
        tmp_path: Path, board: str, table: str, words: str) -> None:
    # A checkers game on a board whose wiring says another board: refused
    # in one line, and nothing made (no data folder, no game 1 of checkers
    # left unfinished in the archive of every such start).
    config = tmp_path / "board.toml"
    config.write_text(table.replace("{tmp}", str(tmp_path)))
    r = _cli("run", "--board", board, "--variant", "checkers", "--config", str(config),
             "--port", str(free_port()), "--data-dir", str(tmp_path / "data"),
             env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"})
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[-1].endswith(words), r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("kind", ["a folder", "a file", "/dev/null"])
def test_run_on_a_port_that_can_never_be_one_stops_at_once(tmp_path: Path, kind: str) -> None:
    # Before: the service started and retried the "port" for ever, the page
    # saying "not connected ... trying again".  A port not there yet (the
    # cable unplugged) is still retried: tests/firmware/test_serial_link.py.
    path = {"a folder": tmp_path / "folder", "a file": tmp_path / "board.log",
            "/dev/null": Path("/dev/null")}[kind]
    if kind == "a folder":
        path.mkdir()
    elif kind == "a file":
        path.write_text("not a port\n")
    r = _cli("run", "--board", f"serial:{path}", "--port", str(free_port()),
             "--data-dir", str(tmp_path / "data"))
    assert r.returncode == 2, r.stderr
    what = "a folder, not a serial port" if kind == "a folder" else "not a serial port"
    assert r.stderr.splitlines() == [
        f"kharbga-board: cannot open {path}: {what} (a Pico is /dev/ttyACM0 or under "
        "/dev/serial/by-id)"], r.stderr
    assert not (tmp_path / "data").exists()


def test_run_on_a_gpio_board_with_no_pin_library_makes_no_data_folder(tmp_path: Path) -> None:
    # A Pi without lgpio (or a PC): the one line says what to install, and
    # the start leaves no data folder and no empty game in the archive.
    r = _cli("run", "--board", "gpio", "--port", str(free_port()),
             "--data-dir", str(tmp_path / "data"),
             env={**os.environ, "GPIOZERO_PIN_FACTORY": "no-such-library"})
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[-1].startswith(
        "kharbga-board: no GPIO pin library could be loaded"), r.stderr
    assert not (tmp_path / "data").exists()
