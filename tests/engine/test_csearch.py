"""The engine's search in C (controller/engine/_csearch*.c) against the
Python evaluation and search, on positions from seeded random games."""

from __future__ import annotations

import random
import threading
import time

import pytest

from controller.engine import csearch
from controller.engine.evaluate import WIN, evaluate
from controller.engine.search import Searcher
from controller.rules import VARIANTS as RULES
from controller.rules import Game

pytestmark = pytest.mark.skipif(not csearch.available(),
                                reason="the C search extension was not built")

VARIANTS = tuple(v.name for v in RULES if v.name in csearch.VARIANTS)


def positions(variant: str, games: int, seed: int, every: int = 1) -> list[Game]:
    """Copies of the positions of seeded random games (game not over)."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        g = Game.new(variant)
        while g.outcome is None:
            if g.ply % every == 0:
                out.append(g.copy())
            raws = g.raw_moves()
            g.push_raw(raws[int(rng.random() * len(raws))])
    return out


def replay(game: Game, pv: list[str]) -> None:
    """Play the line on a copy; every action must be legal."""
    g = game.copy()
    for token in pv:
        assert g.outcome is None
        assert token in {str(m) for m in g.legal_moves()}, (game.position(), pv, token)
        g.play(token)


@pytest.mark.parametrize("variant", VARIANTS)
def test_evaluation_equals_python(variant: str) -> None:
    games = positions(variant, 12, seed=VARIANTS.index(variant))
    assert len(games) > 500
    differ = [(g.position(), csearch.evaluate(g), evaluate(g))
              for g in games if csearch.evaluate(g) != evaluate(g)]
    assert not differ, differ[:3]
    # the scores are not all alike: the test could fail
    assert len({evaluate(g) for g in games}) > 20


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("use_tt", [False, True])
def test_plain_search_matches_python_minimax(variant: str, use_tt: bool) -> None:
    games = positions(variant, 3, seed=7, every=9)[:24]
    depth = 3 if variant.startswith("kharbga") else 4
    for g in games:
        c = csearch.search(g, max_depth=depth, use_tt=use_tt, selective=False)
        p = Searcher(g, use_tt=use_tt, selective=False).search(max_depth=depth)
        assert c.score == p.score, g.position()
        assert c.depth == p.depth
        assert c.move is not None and str(c.move) in {str(m) for m in g.legal_moves()}


@pytest.mark.parametrize("variant", VARIANTS)
def test_selective_search_follows_python_step_for_step(variant: str) -> None:
    # The pruning, reductions, extensions and aspiration windows are written
    # twice, in negamax.py/search.py and in _csearch_*.c: at a fixed depth
    # both searches give the same score and move, and nearly the same node
    # count (their tables and caches replace entries a little apart, up to
    # 5% here). One constant changed on one side (LMR_AFTER 3 to 4, the
    # pruning margin 120 to 150, no extension, other windows) moves some
    # count by a third or more.
    worst = 0.0
    for g in positions(variant, 3, seed=7, every=9)[:16]:
        for depth in (4, 5):
            c = csearch.search(g, max_depth=depth)
            p = Searcher(g).search(max_depth=depth)
            assert (c.score, str(c.move)) == (p.score, str(p.move)), (g.position(), depth)
            worst = max(worst, abs(c.nodes - p.nodes) / max(c.nodes, p.nodes))
    assert worst < 0.1, worst


@pytest.mark.parametrize("variant", VARIANTS)
def test_full_search_gives_legal_move_and_line(variant: str) -> None:
    games = positions(variant, 2, seed=11, every=13)[:12]
    for g in games:
        before = g.position()
        r = csearch.search(g, seconds=2.0, max_nodes=20_000)
        assert g.position() == before  # left unchanged
        assert r.move is not None and r.pv and r.pv[0] == str(r.move)
        replay(g, r.pv)
        assert r.depth >= 1 and 0 < r.nodes <= 20_000 + 300
        assert -WIN < r.score < WIN
        if abs(r.score) < WIN - 1000:  # not a forced result: near a shallow plain search
            p = Searcher(g, selective=False).search(max_depth=2)
            assert abs(r.score - p.score) < 3000 or abs(p.score) >= WIN - 1000


def test_node_limit_is_deterministic_and_deadline_honoured() -> None:
    g = Game.from_position("khamousiyya", positions("khamousiyya", 1, seed=3)[80].position())
    a = csearch.search(g, max_nodes=5000)
    b = csearch.search(g, max_nodes=5000)
    assert (str(a.move), a.score, a.pv, a.nodes) == (str(b.move), b.score, b.pv, b.nodes)
    began = time.perf_counter()
    r = csearch.search(g, seconds=0.2)
    assert time.perf_counter() - began < 1.5  # 0.2 s and the way out, on a loaded machine
    assert r.move is not None and r.depth >= 3


def test_search_releases_the_gil() -> None:
    g = positions("khamousiyya", 1, seed=5)[70]
    done = threading.Event()
    span: list[float] = []

    def run() -> None:
        span.append(time.perf_counter())
        csearch.search(g, seconds=0.4)
        span.append(time.perf_counter())
        done.set()

    t = threading.Thread(target=run)
    last = time.perf_counter()
    t.start()
    gap = 0.0  # the longest the main thread was kept from running
    while not done.is_set():
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    t.join()
    began, ended = span
    took = ended - began
    assert took >= 0.1  # a search long enough to tell
    # The main thread kept running all through it: a search holding the
    # GIL would stop it from the search's start to its end.
    assert last > ended - took / 2 and gap < took / 2, (gap, took)


def test_a_game_over_or_a_foreign_game_is_refused_or_empty() -> None:
    g = positions("khamousiyya", 1, seed=9)[-1]
    g.push_raw(g.raw_moves()[0])
    while g.outcome is None:
        g.push_raw(g.raw_moves()[0])
    r = csearch.search(g, max_depth=3)
    assert r.move is None and r.pv == []
    with pytest.raises(ValueError):
        csearch.search(g, seconds=0)
    with pytest.raises(ValueError):
        csearch.search(object(), 1.0)  # type: ignore[arg-type]
    assert not csearch.available(object())
    assert csearch._cs is not None
    with pytest.raises(TypeError):
        csearch._cs.search(object(), (1,) * 7, (False, False, False), 1.0, 3, 0, True, True, 8)


@pytest.mark.parametrize("threads", [2, 4])
def test_threads_give_a_legal_move_and_line(threads: int) -> None:
    for g in positions("khamousiyya", 1, seed=13, every=17)[:6]:
        before = g.position()
        r = csearch.search(g, seconds=0.5, max_depth=6, threads=threads)
        assert g.position() == before
        assert r.move is not None and r.pv and r.pv[0] == str(r.move)
        replay(g, r.pv)
        assert r.depth == 6 or abs(r.score) >= WIN - 1000 or r.seconds >= 0.45


def test_threads_out_of_range_are_refused() -> None:
    g = Game.new("khamousiyya")
    for bad in (0, 17):
        with pytest.raises(ValueError):
            csearch.search(g, max_depth=2, threads=bad)


def test_bench_figures_have_both_searches() -> None:
    figures = csearch.search_speed("khamousiyya", 0.05)
    assert set(figures) == {"c", "python"}
    for rate, depth in figures.values():
        assert rate > 0 and depth >= 1
    assert csearch.search_speed("no-such-variant", 0.05) == {}


def test_best_move_searches_with_the_threads_asked_at_full_strength_only() -> None:
    # The product's call (best_move) passes its threads to the C search:
    # the helpers' nodes count beside the main thread's, which alone the
    # node limit bounds. The weaker levels search in Python, with one.
    from controller.engine.api import best_move

    g = positions("khamousiyya", 1, seed=13, every=17)[3]
    one = best_move(g, 10.0, max_nodes=1_000_000, book=False)
    two = best_move(g, 10.0, max_nodes=1_000_000, book=False, threads=2)
    assert (one.threads, two.threads) == (1, 2)
    assert one.nodes <= 1_000_300 < two.nodes
    assert two.move is not None and two.pv[0] == str(two.move)
    replay(g, two.pv)
    weak = best_move(g, 0.2, level=3, threads=2)
    assert weak.threads == 1 and weak.move is not None
    for bad in (0, 17):
        with pytest.raises(ValueError, match="threads: 1 to 16 expected"):
            best_move(g, 0.1, threads=bad)
