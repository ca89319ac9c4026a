"""The computer's search brings no action back (its process died): the
service asks again, a bounded number of times, then leaves the action to
the players and says so. Before, one lost search left the board saying
"the computer is thinking" for good, nothing accepted for its side."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_clock import FakeClock
from playwright.sync_api import Browser, expect
from server import Server
from test_leap_service import _play

from controller.rules import new_game
from controller.service.board import BoardService
from controller.service.computer_side import ENGINE_TRIES
from controller.service.config import Config

# No opening book outside the Kharbga family's setting phase: every
# search of the computer here thinks its whole time, long enough to be
# killed thinking.
VARIANT = "english-draughts"


def _search_killed(service: BoardService, hint: bool = False) -> Any:
    """The computer's search (or a hint's), its child process killed while
    it thinks."""
    out: list[Any] = []
    job = service.compute_hint if hint else service.compute_computer
    worker = threading.Thread(target=lambda: out.append(job()))
    worker.start()
    deadline = time.monotonic() + 60
    children: list[Any] = []
    while not children and time.monotonic() < deadline:
        children = [p for p in multiprocessing.active_children() if p.pid]
        time.sleep(0.01)
    assert children, "no search was started"
    for child in children:
        os.kill(child.pid, signal.SIGKILL)
    worker.join(60)
    assert out, "the search did not come back"
    return out[0]


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[BoardService, FakeClock]]:
    """The service on the simulated board, its clock the test's."""
    clock = FakeClock(1000.0)
    service = BoardService(Config(data_dir=tmp_path, variant=VARIANT, settle=0.05,
                                  error_delay=0.2, ponder=False), clock=clock)
    yield service, clock
    service.close()


def test_a_search_whose_process_dies_is_asked_again_then_left_to_the_players(
        board: tuple[BoardService, FakeClock]) -> None:
    service, clock = board
    service.set_computer("attacker", 30)
    assert service.computer_wanted
    for n in range(1, ENGINE_TRIES):
        service.play_computer(*_search_killed(service))
        state = service.state()
        assert service.computer_wanted, f"not asked again after failure {n}"
        assert "is thinking" in state["status"] and not state["engine_gave_up"]
    service.play_computer(*_search_killed(service))
    state = service.state()
    assert not service.computer_wanted
    assert state["engine_gave_up"] and state["expected"] is None
    assert state["status"].startswith("Attacker to move")
    assert state["status"].endswith(
        f"The computer's engine gave no move ({ENGINE_TRIES} tries): make its move by "
        "hand, or choose its side again to try once more")
    service.tick()  # a tick, a frame: not asked again by itself
    assert not service.computer_wanted
    # The players make the computer's move; after the person's reply
    # its next one is searched.
    game = new_game(VARIANT)
    made = str(game.legal_moves()[0])
    _play(service, clock, game, made)
    state = service.state()
    assert state["moves"] == [made]
    assert not state["engine_gave_up"] and "gave no move" not in state["status"]
    assert not service.computer_wanted  # the person's turn
    _play(service, clock, game, str(game.legal_moves()[0]))
    assert len(service.state()["moves"]) == 2 and service.computer_wanted


def test_choosing_the_computers_side_again_tries_the_engine_again(
        board: tuple[BoardService, FakeClock]) -> None:
    service, _ = board
    service.set_computer("attacker", 30)
    for _ in range(ENGINE_TRIES):
        service.play_computer(*_search_killed(service))
    assert service.state()["engine_gave_up"]
    service.set_computer("attacker", 0.1, 1)
    assert service.computer_wanted and "gave no move" not in service.state()["status"]
    service.play_computer(*service.compute_computer())
    assert service.state()["expected"] is not None


def test_a_hint_whose_search_dies_says_so(board: tuple[BoardService, FakeClock]) -> None:
    service, _ = board
    service.hint_seconds = 30
    service.press("hint")
    assert service.hint_wanted
    service.show_hint(*_search_killed(service, hint=True))
    state = service.state()
    assert state["hint_squares"] is None and state["hint_move"] is None
    assert state["status"].endswith(
        "(no hint: the engine gave no move (press Hint to ask again))")
    service.hint_seconds = 0.2
    service.press("hint")
    service.show_hint(*service.compute_hint())
    state = service.state()
    assert state["hint_move"] and "no hint" not in state["status"]


def _descendants(pid: int) -> dict[int, int]:
    """The processes under ``pid`` (Linux's /proc), each with its parent."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found: dict[int, int] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        for child, parent in parents.items():
            if parent == p and child not in found:
                found[child] = parent
                todo.append(child)
    return found


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data", VARIANT)
    s.start()
    yield s
    s.stop()


def test_the_page_says_the_move_is_the_players_when_the_engine_gives_none(
        browser: Browser, server: Server) -> None:
    """The service's searches are killed where they run (the forkserver's
    children): the page does not stay on "is thinking"."""
    assert server.proc is not None
    server.post("/api/ponder", {"on": True})
    server.post("/api/computer", {"side": "attacker", "seconds": 30, "level": 5})
    pg = browser.new_page(viewport={"width": 420, "height": 900})
    pg.goto(server.url + "/")
    expect(pg.locator("#status")).to_contain_text("Attacker (computer) is thinking")
    killed: set[int] = set()
    deadline = time.monotonic() + 90
    while server.get("/api/state")["engine_gave_up"] is False:
        assert time.monotonic() < deadline, "the engine was not given up"
        under = _descendants(server.proc.pid)
        for pid, parent in under.items():  # a search: a child of the forkserver
            if parent != server.proc.pid and pid not in killed:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        time.sleep(0.05)
    assert len(killed) >= ENGINE_TRIES
    expect(pg.locator("#status")).to_contain_text(
        "The computer's engine gave no move (3 tries): make its move by hand, or choose its "
        "side again to try once more")
    expect(pg.locator("#eval-words")).to_have_text(
        "The engine gave no move: make the computer's by hand")
    pg.screenshot(path=str(server.data_dir.parent / "engine-gave-up.png"))
    move = new_game(VARIANT).legal_moves()[0]  # made by hand on the simulated board
    pg.click(f'#board [data-square="{move.from_square}"]')
    pg.click(f'#board [data-square="{move.to_square}"]')
    expect(pg.locator("#moves")).to_contain_text(str(move))
    expect(pg.locator("#status")).not_to_contain_text("gave no move")
