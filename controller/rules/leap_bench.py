"""Random playouts of the leap games, through the public API.

``python -m controller.rules.leap_bench [SECONDS]`` prints, for every leap
variant, uniformly random games per second played with the low-level
interface (``raw_moves`` + ``push``, as the engine and reconciler use it)
and with ``legal_moves`` + ``play``, next to the Ludii system's figures.
Times are the process's CPU time, so other work on a shared machine does
not count against the figures.

Reference: Ludii 1.3.13 (Java, one thread) on this machine class plays 658
random games of Hewakam Keliya and 2,749 of English Draughts per second.
"""

from __future__ import annotations

import random
import sys
import time

from .leap import LeapGame
from .leap_variants import LEAP_VARIANTS

LUDII_GAMES_PER_SECOND = {"hewakam-keliya": 658.0, "english-draughts": 2749.0}


def raw_playouts(variant: str, seconds: float, seed: int = 1) -> tuple[float, float]:
    """Games per second and mean actions per game, with raw_moves + push."""
    rng = random.Random(seed)
    games = actions = 0
    start = time.process_time()
    while True:
        g = LeapGame.new(variant)
        while g.outcome is None:
            moves = g.raw_moves()
            kind, frm, to, _, flag = moves[int(rng.random() * len(moves))]
            g.push(kind, frm, to, flag)
            actions += 1
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds and games >= 3:
            return games / elapsed, actions / games


def api_playouts(variant: str, seconds: float, seed: int = 1) -> float:
    """Games per second with legal_moves + play (Move objects, checked)."""
    rng = random.Random(seed)
    games = 0
    start = time.process_time()
    while True:
        g = LeapGame.new(variant)
        while g.outcome is None:
            moves = g.legal_moves()
            g.play(moves[int(rng.random() * len(moves))])
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds and games >= 3:
            return games / elapsed


def main(seconds: float = 3.0) -> None:
    print("== leap games: random playouts ==")
    for v in LEAP_VARIANTS:
        raw, length = raw_playouts(v.name, seconds)
        api = api_playouts(v.name, seconds)
        ludii = LUDII_GAMES_PER_SECOND.get(v.name)
        ref = f"  Ludii {ludii:,.0f} games/s ({raw / ludii:.2f}x)" if ludii else ""
        print(f"{v.name:17s} {raw:8.1f} games/s raw_moves+push  {api:8.1f} games/s "
              f"legal_moves+play  {length:6.0f} actions/game{ref}")


def seconds_arg(args: list[str]) -> float:
    """The optional SECONDS argument; a bad one is a one-line
    :class:`SystemExit`, not a traceback."""
    if not args:
        return 3.0
    try:
        seconds = float(args[0])
    except ValueError:
        seconds = 0.0
    if not (0 < seconds < 3600) or len(args) > 1:
        raise SystemExit(f"usage: python -m controller.rules.leap_bench [SECONDS]: SECONDS "
                         f"is a number of seconds above 0 and below 3600, not "
                         f"{' '.join(args)!r}")
    return seconds


if __name__ == "__main__":
    main(seconds_arg(sys.argv[1:]))
