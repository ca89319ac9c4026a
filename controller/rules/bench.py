"""Rules-engine benchmarks for ``make bench``: random playouts per second
and legal-move generations per second, for every variant.

Reference (RULES issue): Ludii 1.3.13, a Java general game system, plays
254 uniformly random games of Khamousiyya per second (about 1,270 actions
each, one thread) on this machine class.
"""

from __future__ import annotations

import random
import time

from .game import Game
from .playout import kernel_supports, random_game, random_playout
from .variants import VARIANTS, find_variant

LUDII_KHAMOUSIYYA_GAMES_PER_SECOND = 254.0


def playouts(variant: str, seconds: float, seed: int = 1) -> tuple[float, float, str]:
    """Games per second, mean actions per game, and the path used."""
    v = find_variant(variant)
    rng = random.Random(seed)
    play = random_playout if kernel_supports(v) else random_game
    games = actions = 0
    start = time.perf_counter()
    while True:
        actions += play(v, rng).actions
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and games >= 3:
            break
    return games / elapsed, actions / games, "kernel" if play is random_playout else "Game"


def api_playouts(variant: str, seconds: float, seed: int = 1) -> float:
    """Random games per second through the public API (legal_moves/play)."""
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while True:
        g = Game.new(variant)
        while g.outcome is None:
            moves = g.legal_moves()
            g.play(moves[int(rng.random() * len(moves))])
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and games >= 2:
            return games / elapsed


def sample_positions(variant: str, count: int, seed: int = 2) -> list[Game]:
    """Games stopped at random moments of random games (both phases)."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game.new(variant)
        stop = rng.randrange(10, 400)
        for _ in range(stop):
            if g.outcome is not None:
                break
            moves = g._raw_moves()
            kind, frm, to, _, flag = moves[rng.randrange(len(moves))]
            g._apply(kind, frm, to, flag)
        if g.outcome is None:
            out.append(g)
    return out


def generations(variant: str, seconds: float) -> tuple[float, float]:
    """Legal-move generations per second: raw and as Move objects."""
    games = sample_positions(variant, 200)
    rates = []
    for objects in (False, True):
        n = 0
        start = time.perf_counter()
        while True:
            for g in games:
                g._cache = None
                if objects:
                    g.legal_moves()
                else:
                    g._raw_moves()
            n += len(games)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates.append(n / elapsed)
    return rates[0], rates[1]


def main(seconds: float = 3.0) -> None:
    print("== rules engine ==")
    print(f"reference: Ludii random Khamousiyya games: {LUDII_KHAMOUSIYYA_GAMES_PER_SECOND:.0f}/s "
          "(about 1,270 actions each, one thread)")
    for v in VARIANTS:
        rate, length, path = playouts(v.name, seconds)
        extra = ""
        if v.name == "khamousiyya":
            extra = f"  ({rate / LUDII_KHAMOUSIYYA_GAMES_PER_SECOND:.2f}x Ludii)"
        print(f"random playouts {v.name:15s} {rate:9.1f} games/s  "
              f"{length:7.0f} actions/game  {rate * length:10.0f} actions/s  [{path}]{extra}")
    for name in ("khamousiyya", "kharbga"):
        print(f"random playouts {name:15s} {api_playouts(name, seconds):9.1f} games/s  "
              "[public API: legal_moves + play]")
    for v in VARIANTS:
        raw, objects = generations(v.name, seconds / 2)
        print(f"legal-move generation {v.name:15s} {raw:10.0f}/s raw  {objects:10.0f}/s as Moves")


if __name__ == "__main__":
    main()
