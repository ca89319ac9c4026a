"""Rules-engine benchmarks for ``make bench``: uniformly random games per
second through the public API and through the low-level interface, and
make/generate/unmake cycles per second, for every variant; then the same
for the compiled core (:mod:`.accel`) when it is built.

Times are the process's CPU time (so that other load on the machine
counts less), after a short warm-up.

References on this machine class (one thread): Ludii 1.3.13, a Java
general game system, plays 254 random Khamousiyya games per second with
its own playouts, and 144 move by move (the legal moves listed and one
applied at a time, as a program using it would).  Our target through the
public API is twice that move-by-move rate.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from . import accel
from .accel_game import CompiledGame
from .game import Game
from .random_games import random_playout
from .variants import VARIANTS

LUDII_PLAYOUTS_PER_SECOND = 254.0
LUDII_MOVE_BY_MOVE_PER_SECOND = 144.0
API_TARGET_PER_SECOND = 290.0


Player = Callable[[random.Random], int]


def _rate(play_one: Player, seconds: float, seed: int) -> tuple[float, float]:
    """Games per second and mean actions per game of ``play_one``."""
    rng = random.Random(seed)
    play_one(random.Random(seed + 1))  # warm-up
    games = actions = 0
    start = time.process_time()
    while True:
        actions += play_one(rng)
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds and games >= 3:
            return games / elapsed, actions / games


def api_game(variant: str) -> Player:
    """One random game through ``legal_moves`` and ``play``."""

    def play(rng: random.Random) -> int:
        g = Game.new(variant)
        while g.outcome is None:
            moves = g.legal_moves()
            g.play(moves[int(rng.random() * len(moves))])
        return g.ply

    return play


def raw_game(variant: str) -> Player:
    """One random game through ``raw_moves`` and ``push_raw``."""

    def play(rng: random.Random) -> int:
        return random_playout(variant, rng).actions

    return play


def push_game(variant: str) -> Player:
    """One random game through ``raw_moves`` and ``push(kind, frm, to, flag)``."""

    def play(rng: random.Random) -> int:
        g = Game.new(variant)
        while g.outcome is None:
            raws = g.raw_moves()
            kind, frm, to, _, flag = raws[int(rng.random() * len(raws))]
            g.push(kind, frm, to, flag)
        return g.ply

    return play


def sample_positions(variant: str, count: int, seed: int = 2) -> list[Game]:
    """Games stopped at random moments of random games (both phases)."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game.new(variant)
        for _ in range(rng.randrange(10, 400)):
            if g.outcome is not None:
                break
            raws = g.raw_moves()
            g.push_raw(raws[rng.randrange(len(raws))])
        if g.outcome is None:
            out.append(g)
    return out


def cycles(variant: str, seconds: float) -> float:
    """Make, generate and unmake cycles per second over sample positions
    (what a search does at every node)."""
    games = sample_positions(variant, 200)
    n = 0
    start = time.process_time()
    while True:
        for g in games:
            for raw in g.raw_moves():
                g.push_raw(raw)
                g.raw_moves()
                g.pop()
                n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def compiled_api_game(variant: str) -> Player:
    """One random game through ``legal_moves`` and ``play`` of a Game on
    the compiled core (:class:`~.accel_game.CompiledGame`)."""

    def play(rng: random.Random) -> int:
        g = CompiledGame.new(variant)
        while g.outcome is None:
            moves = g.legal_moves()
            g.play(moves[int(rng.random() * len(moves))])
        return g.ply

    return play


def compiled_raw_game(variant: str) -> Player:
    """One random game through ``raw_moves`` and ``push_raw`` of a Game on
    the compiled core."""

    def play(rng: random.Random) -> int:
        g = CompiledGame.new(variant)
        while g.outcome is None:
            raws = g.raw_moves()
            g.push_raw(raws[int(rng.random() * len(raws))])
        return g.ply

    return play


def compiled_playouts(variant: str, seconds: float) -> tuple[float, float]:
    """Random games per second played wholly in C, and actions per game."""
    c = accel.CompiledCore(variant)
    games = actions = 0
    start = time.process_time()
    while True:
        actions += c.playouts(50, games)[0]
        games += 50
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games / elapsed, actions / games


def compiled_cycles(variant: str, seconds: float) -> float:
    """:func:`cycles` on the compiled core, from the same positions."""
    cores = []
    for g in sample_positions(variant, 200):
        c = accel.CompiledCore(variant)
        for raw in [e[13] for e in g._undo]:
            c._do(raw)
        cores.append(c)
    n = 0
    start = time.process_time()
    while True:
        for c in cores:
            for raw in c._generated()[0]:
                c._do(raw)
                c._generated()
                c._undo_one()
                n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def compiled_main(seconds: float) -> None:
    if not accel.AVAILABLE:
        print("compiled core: not built (pure core only; see docs/core.md)")
        return
    paths = (
        ("compiled core: public API: legal_moves + play", compiled_api_game),
        ("compiled core: raw_moves + push_raw", compiled_raw_game),
    )
    for label, make in paths:
        rate, length = _rate(make("khamousiyya"), seconds, 1)
        print(f"random games khamousiyya {rate:8.1f} games/s {length:6.0f} actions/game  "
              f"{rate / LUDII_MOVE_BY_MOVE_PER_SECOND:5.2f}x Ludii move by move  [{label}]")
    for v in VARIANTS:
        if not accel.fits(v):
            continue
        rate, length = compiled_playouts(v.name, seconds / 2)
        print(f"random games {v.name:15s} {rate:8.1f} games/s in C "
              f"({rate / LUDII_PLAYOUTS_PER_SECOND:5.2f}x Ludii playouts) {length:6.0f} "
              f"actions/game  [compiled core]")
    for v in VARIANTS:
        if accel.fits(v):
            print(f"make + generate + unmake {v.name:15s} "
                  f"{compiled_cycles(v.name, seconds / 2):10.0f}/s  [compiled core]")


def main(seconds: float = 3.0) -> None:
    print("== rules engine ==")
    print(f"reference: Ludii random Khamousiyya games: {LUDII_PLAYOUTS_PER_SECOND:.0f}/s with "
          f"its playouts, {LUDII_MOVE_BY_MOVE_PER_SECOND:.0f}/s move by move (one thread); "
          f"target through the public API {API_TARGET_PER_SECOND:.0f}/s")
    paths = (
        ("public API: legal_moves + play", api_game),
        ("raw_moves + push_raw", raw_game),
        ("raw_moves + push", push_game),
    )
    for label, make in paths:
        rate, length = _rate(make("khamousiyya"), seconds, 1)
        print(f"random games khamousiyya {rate:8.1f} games/s {length:6.0f} actions/game  "
              f"{rate / LUDII_MOVE_BY_MOVE_PER_SECOND:5.2f}x Ludii move by move  [{label}]")
    for v in VARIANTS:
        if v.name == "khamousiyya":
            continue
        api, length = _rate(api_game(v.name), seconds / 2, 1)
        raw, _ = _rate(raw_game(v.name), seconds / 2, 1)
        print(f"random games {v.name:15s} {api:8.1f} games/s public API, {raw:8.1f} raw "
              f"{length:6.0f} actions/game")
    for v in VARIANTS:
        print(f"make + generate + unmake {v.name:15s} {cycles(v.name, seconds / 2):10.0f}/s")
    compiled_main(seconds)


if __name__ == "__main__":
    main()
