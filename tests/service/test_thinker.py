"""The engine's child processes: searches and pondering off the board's loop."""

from __future__ import annotations

import threading
import time

import pytest
from server import eventually as _wait

from controller.rules.leap_factory import new_game
from controller.service.thinker import Thinker, spec_of


def _kharbga_midgame(plies: int = 30):
    g = new_game("kharbga")
    for i in range(plies):
        g.play(g.legal_moves()[i % 3])
    return g




@pytest.fixture
def thinker():
    t = Thinker(first=0.1, limit=2.0)
    yield t
    t.close()


def test_spec_rebuilds_the_game_with_its_history():
    g = _kharbga_midgame()
    spec = spec_of(g)
    assert len(spec.moves) == g.ply
    h = spec.build()
    assert h.position() == g.position() and h.ply == g.ply
    assert [str(m) for m in h.legal_moves()] == [str(m) for m in g.legal_moves()]
    c = new_game("checkers")
    c.play(c.legal_moves()[2])
    assert spec_of(c).build().position() == c.position()


def test_search_answers_a_legal_move_for_both_families(thinker):
    for game in (_kharbga_midgame(), new_game("sixteen-soldiers")):
        t = thinker.search(game, 0.2)
        assert t is not None and t.done
        assert t.move in {str(m) for m in game.legal_moves()}
        assert t.position == game.position()
        assert t.pv[0] == t.move


def test_ponder_reports_deepening_rounds_for_the_position_only(thinker):
    g = _kharbga_midgame()
    thinker.ponder(g)
    first = _wait(lambda: thinker.thought(g))
    later = _wait(lambda: (x := thinker.thought(g)) and x.seconds > first.seconds and x)
    assert later.depth >= first.depth
    assert later.move in {str(m) for m in g.legal_moves()}
    other = g.copy()
    other.play(other.legal_moves()[0])
    assert thinker.thought(other) is None  # a thought belongs to its position
    # The score is the attacker's view whoever is to move: the same
    # position searched by a child agrees in sign with the ponder's view.
    final = _wait(lambda: (x := thinker.thought(g)) and x.done and x)
    assert final.seconds <= 2.0 + 1.0


def test_a_new_position_replaces_the_ponder_and_off_stops_it(thinker):
    g = _kharbga_midgame()
    thinker.ponder(g)
    job = thinker._ponder
    assert job is not None and job.process.is_alive()
    thinker.ponder(g)  # the same position: the same child goes on
    assert thinker._ponder is job
    g.play(g.legal_moves()[0])
    thinker.ponder(g)
    assert thinker._ponder is not job and not job.process.is_alive()
    assert _wait(lambda: thinker.thought(g)).position == g.position()
    newer = thinker._ponder
    thinker.set_ponder(False)
    assert thinker._ponder is None and not newer.process.is_alive()
    thinker.ponder(g)
    assert thinker._ponder is None and thinker.thought(g) is None


def test_a_search_does_not_hold_the_interpreter(thinker):
    """The search runs in a child: this process spends (almost) no CPU on
    it, so the board's loop keeps its pace while the engine thinks."""
    g = _kharbga_midgame()
    cpu, wall = time.process_time(), time.perf_counter()
    result = thinker.search(g, 1.5)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert result is not None and result.move in {str(m) for m in g.legal_moves()}
    assert wall >= result.seconds >= 0.3  # the child did think ...
    assert cpu < 0.3 * result.seconds  # ... and this process did not


def test_cancel_returns_none_to_the_waiting_caller(thinker):
    g = _kharbga_midgame()
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(thinker.search(g, 30.0)))
    worker.start()
    _wait(lambda: thinker._searches)
    thinker.cancel_searches()
    worker.join(timeout=10)
    assert not worker.is_alive() and result == [None]


def test_nothing_starts_after_close():
    t = Thinker(first=0.1, limit=2.0)
    g = _kharbga_midgame()
    t.ponder(g)
    ponder = t._ponder
    t.close()
    assert ponder is not None and not ponder.process.is_alive()
    assert t.search(g, 0.2) is None
    t.ponder(g)
    assert t._ponder is None and t.thought(g) is None


def test_the_ponder_searches_past_the_opening_book(thinker):
    """A book position is pondered by searching it (nodes counted, depth
    growing), not answered from the book over and over."""
    g = new_game("kharbga")
    assert g.setting
    thinker.ponder(g)
    first = _wait(lambda: thinker.thought(g))
    assert first.nodes > 0
    later = _wait(lambda: (x := thinker.thought(g)) and x.seconds > first.seconds and x)
    assert later.nodes > 0 and later.depth >= first.depth


def test_search_threads_leave_a_core_to_the_board():
    from controller.service.thinker import search_threads

    assert [search_threads(0, cores) for cores in (1, 2, 4, 8, 64)] == [1, 1, 3, 7, 16]
    assert search_threads(2, 64) == 2 and search_threads(5, 1) == 5  # as configured


def test_the_children_search_with_the_threads_below_the_boards_priority():
    """A Thinker of two threads: its searches and its ponder use both (the
    C search says so), and each child runs ``NICE`` below this process,
    so the board's loop is run first when every core searches."""
    import os

    from controller.engine import csearch
    from controller.service.thinker import NICE

    two = 2 if csearch.available() else 1  # without the C search: Python's, one thread
    t = Thinker(first=0.1, limit=2.0, threads=2)
    try:
        g = _kharbga_midgame()
        found = t.search(g, 0.3)
        assert found is not None and found.threads == two
        assert found.move in {str(m) for m in g.legal_moves()}
        t.ponder(g)
        thought = _wait(lambda: t.thought(g))
        assert thought.threads == two and thought.as_json()["threads"] == two
        job = t._ponder
        assert job is not None and job.process.is_alive()
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, job.process.pid) == min(mine + NICE, 19)
    finally:
        t.close()
    one = Thinker(first=0.1, limit=2.0)
    try:
        found = one.search(_kharbga_midgame(), 0.2)
        assert found is not None and found.threads == 1
    finally:
        one.close()
