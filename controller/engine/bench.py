"""Engine benchmarks (``python -m controller.engine.bench``): search speed
and depth beside Ludii's AlphaBeta, the time to depth 6 from the fixed
positions of ``data/depth_positions.tsv``, the depth reached by phase, and
short matches against a random and a greedy player.  About four minutes on
two cores."""

from __future__ import annotations

import argparse
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from typing import Any

from controller.rules import VARIANTS, Game

from .api import best_move
from .match import MatchResult, make_player, play_game, random_player
from .search import Searcher

LUDII_ALPHABETA = "Ludii AlphaBeta about 100k-200k nodes/s, 5-7 plies at 1 s"
GREEDY_VS_RANDOM_REFERENCE = 0.97
SPEEDUP_DEPTH = 12  # the threads' speed-up: the time to this depth at 1, 2 and 4 threads


def mid_game_positions(variant: str, count: int, seed: int = 4) -> list[Game]:
    """Moving-phase positions 10 to 40 turns into random games."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game.new(variant)
        stop = rng.randrange(10, 40)
        while g.outcome is None and (g.phase == "setting" or g.turn < stop):
            kind, frm, to, _, flag = random_player(g, rng)
            g.push(kind, frm, to, flag)
        if g.outcome is None:
            out.append(g)
    return out


def search_speed(variant: str, positions: int, seconds: float) -> tuple[float, float, int]:
    """Nodes per second, mean and minimum depth reached in ``seconds``."""
    nodes = 0
    elapsed = 0.0
    depths = []
    for g in mid_game_positions(variant, positions):
        r = best_move(g, seconds)
        nodes += r.nodes
        elapsed += r.seconds
        depths.append(r.depth)
    return nodes / elapsed, sum(depths) / len(depths), min(depths)


def depth_positions() -> list[tuple[str, str]]:
    """The fixed positions (variant, position) of ``data/depth_positions.tsv``."""
    text = resources.files(__package__).joinpath("data", "depth_positions.tsv").read_text()
    out = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            variant, position = line.split("\t")
            out.append((variant, position))
    return out


def time_to_depth(depth: int = 6, searcher: Any = Searcher) -> list[tuple[str, float, int]]:
    """Seconds and nodes to complete ``depth`` from each fixed position
    (``searcher``: a class like :class:`Searcher`, e.g. an earlier one)."""
    out = []
    for variant, position in depth_positions():
        g = Game.from_position(variant, position)
        r = searcher(g).search(None, max_depth=depth)
        out.append((variant, r.seconds, r.nodes))
    return out


def phase_depth(seconds: float, search: Any = best_move) -> dict[str, tuple[float, float]]:
    """Mean depth and nodes a second at ``seconds`` in the setting phase
    (the fixed setting positions and every variant's empty board) and the
    moving phase (the fixed moving positions)."""
    games = [Game.from_position(v, p) for v, p in depth_positions()]
    games += [Game.new(v.name) for v in VARIANTS]
    out = {}
    for phase in ("setting", "moving"):
        rs = [search(g, seconds) for g in games if g.phase == phase]
        out[phase] = (sum(r.depth for r in rs) / len(rs),
                      sum(r.nodes for r in rs) / max(1e-9, sum(r.seconds for r in rs)))
    return out


def _game(args: tuple[str, str, str, int, int]) -> tuple[int | None, int]:
    variant, a, b, seed, a_side = args
    pa, pb = make_player(a), make_player(b)
    pair = (pa, pb) if a_side == 0 else (pb, pa)
    return play_game(variant, pair[0], pair[1], seed, cap=200), a_side


def match(
    variant: str, a: str, b: str, games: int, pool: ProcessPoolExecutor | None, seed: int = 0
) -> MatchResult:
    jobs = [(variant, a, b, seed * 100_003 + i, i % 2) for i in range(games)]
    results = list(pool.map(_game, jobs)) if pool else [_game(j) for j in jobs]
    wins = sum(1 for w, s in results if w == s)
    draws = sum(1 for w, _ in results if w is None)
    return MatchResult(wins, draws, games - wins - draws)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m controller.engine.bench")
    p.add_argument("--seconds", type=float, default=1.0, help="think time per search position")
    p.add_argument("--positions", type=int, default=5)
    p.add_argument("--games", type=int, default=10, help="engine games per variant and opponent")
    p.add_argument("--think", type=float, default=0.05, help="engine think time per action")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = p.parse_args(argv)
    print("== engine ==")
    print(f"reference: {LUDII_ALPHABETA}")
    rate, depth, low = search_speed("khamousiyya", args.positions, args.seconds)
    print(f"search khamousiyya mid-game: {rate:8.0f} nodes/s, depth {depth:.1f} "
          f"(min {low}) at {args.seconds:g} s")
    from . import csearch

    for name, (rate, depth) in csearch.search_speed("khamousiyya", args.seconds).items():
        print(f"search khamousiyya fixed positions, {name:6s} search: {rate:8.0f} nodes/s, "
              f"depth {depth:.1f} at {args.seconds:g} s (target >= 150,000 nodes/s)")
    # Depth 12: about 1 s on one thread here, long enough that starting the
    # threads does not hide what they gain (depth 10 takes 0.17 s).
    speedup = csearch.threads_speedup(SPEEDUP_DEPTH)
    if speedup:
        one = speedup[min(speedup)]
        print(f"C search to depth {SPEEDUP_DEPTH}, ten fixed positions: " + ", ".join(
            f"{t} thread{'s' if t > 1 else ''} {s:.2f} s (x{one / s:.2f})"
            for t, s in speedup.items()) + f" on {os.cpu_count()} cores")
    for v in VARIANTS:
        if v.name != "khamousiyya":
            rate, depth, low = search_speed(v.name, 2, args.seconds)
            print(f"search {v.name:15s}: {rate:8.0f} nodes/s, depth {depth:.1f} (min {low}) "
                  f"at {args.seconds:g} s")
    took = time_to_depth(6)
    total = sum(t for _, t, _ in took)
    print(f"time to depth 6, {len(took)} fixed positions: total {total:.1f} s, "
          + ", ".join(f"{v} {t:.2f}" for v, t, _ in took))
    for phase, (depth, rate) in phase_depth(args.seconds).items():
        print(f"search {phase} phase: depth {depth:.1f}, {rate:.0f} nodes/s at {args.seconds:g} s")
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for v in VARIANTS:
            r = match(v.name, "greedy", "random", 100, None)
            print(f"match {v.name:15s} greedy vs random      100 games: {r}  "
                  f"(reference {100 * GREEDY_VS_RANDOM_REFERENCE:.0f}%)")
        engine = f"engine:{args.think:g}"
        for v in VARIANTS:
            for opp in ("random", "greedy"):
                r = match(v.name, engine, opp, args.games, pool)
                print(f"match {v.name:15s} {engine} vs {opp:6s} {args.games:3d} games: {r}")
    print(f"matches took {time.perf_counter() - start:.0f} s ({args.jobs} processes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
