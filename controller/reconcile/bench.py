"""Reconciler benchmark for ``make bench``: time per frame on long logs.

Target: under 0.2 ms median per frame on this machine class, so a Pi
scanning at 100 Hz spends a few percent of one core on it.
"""

from __future__ import annotations

import random
import statistics
import time

from controller.board.sensorlog import Button, Frame, Header, read_log
from controller.rules import Game

from .reconciler import Reconciler
from .simulator import simulate_log

TARGET_MEDIAN_MS = 0.2


def _game(variant: str, seed: int) -> Game:
    rng = random.Random(seed)
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < 3000:
        g.play(rng.choice(g.legal_moves()))
    while g.outcome is None and g.moves and g.moves[-1].kind == "pass":
        g.pop()
    return g


def frame_times(variant: str, colour: bool, games: int = 4) -> tuple[list[float], list[float]]:
    """Seconds spent in ``feed`` for every event of ``games`` long logs, and
    for the events that settled a reading (the ones that do the work)."""
    times: list[float] = []
    settling: list[float] = []
    for seed in range(games):
        log = simulate_log(_game(variant, seed), seed=seed, colour=colour)
        events = [e for _, e in read_log(log.splitlines()) if not isinstance(e, Header)]
        rec = Reconciler(variant)
        clock = time.perf_counter
        for event in events:
            assert isinstance(event, Frame | Button)
            pending = rec.settling
            start = clock()
            rec.feed(event)
            elapsed = clock() - start
            times.append(elapsed)
            if pending and not rec.settling:
                settling.append(elapsed)
    return times, settling


def main() -> None:
    print("== reconciler ==")
    print(f"target: median under {TARGET_MEDIAN_MS} ms per frame")
    for variant in ("kharbga", "khamousiyya"):
        for colour in (False, True):
            every, settling = frame_times(variant, colour)
            kind = "colour" if colour else "occupancy"
            for label, t in (("frames", sorted(every)), ("settled", sorted(settling))):
                median = statistics.median(t) * 1000
                p99 = t[int(len(t) * 0.99)] * 1000
                print(f"reconciler {variant:12s} {kind:9s} {len(t):7d} {label:8s} "
                      f"median {median:.3f} ms  p99 {p99:.3f} ms  max {t[-1] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
