"""Replay benchmarks for ``make bench``: how much faster than real time a
sensor log replays through the drivers (the simulated switches and the
real scanning code, or the real firmware over its serial link) and the
reconciler (target: at least 20 times), and whether the records match the
direct replay.  It sits above the drivers and the reconciler, as the
``replay`` command does."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable

from controller.board.sensorlog import Event
from controller.reconcile.replay import replay, replay_events
from controller.reconcile.simulator import simulate_log
from controller.rules import Game

TARGET_SPEEDUP = 20.0

Source = Callable[[Iterable[str]], Iterable[Event]]


def _log(variant: str, seed: int, actions: int) -> str:
    rng = random.Random(seed)
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < actions:
        g.play(rng.choice([m for m in g.legal_moves() if m.kind != "pass"] or g.legal_moves()))
    return simulate_log(g, seed=seed)


def speedup(source: Source, variant: str, log: str) -> tuple[float, bool]:
    """Log seconds per wall-clock second, and whether the records match the
    direct replay."""
    lines = log.splitlines()
    duration = max(float(json.loads(line)["t"]) for line in lines)
    start = time.perf_counter()
    result = replay_events(source(lines), variant)
    wall = time.perf_counter() - start
    same = [str(r) for r in result.records] == [str(r) for r in replay(lines, variant).records]
    return duration / wall, same


def _sources() -> list[tuple[str, Source]]:
    paths: list[tuple[str, Source]] = []
    try:
        from controller.drivers.gpio_replay import gpio_events

        paths.append(("gpio", gpio_events))
    except ImportError as exc:  # pragma: no cover - missing optional library
        print(f"via gpio: unavailable ({exc})")
    try:
        from controller.drivers.firmware_replay import firmware_events

        paths.append(("firmware", firmware_events))
    except ImportError as exc:  # pragma: no cover
        print(f"via firmware: unavailable ({exc})")
    return paths


def main() -> None:
    print("== replay through the drivers ==")
    print(f"target: at least {TARGET_SPEEDUP:.0f}x faster than real time, same records")
    log = _log("kharbga", 5, 120)
    for name, source in _sources():
        try:
            x, same = speedup(source, "kharbga", log)
        except Exception as exc:  # a missing interpreter must not stop the other figures
            print(f"replay via {name:8s} failed: {exc}")
            continue
        print(f"replay via {name:8s} {x:8.1f}x real time  records {'match' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
