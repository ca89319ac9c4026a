"""Driver benchmarks for ``make bench``: how much faster than real time a
sensor log replays through the simulated switches and the real scanning
code (target: at least 20 times)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable

from controller.reconcile.replay import ReplayResult, replay
from controller.reconcile.simulator import simulate_log
from controller.rules import Game

TARGET_SPEEDUP = 20.0


def _log(variant: str, seed: int, actions: int) -> str:
    rng = random.Random(seed)
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < actions:
        g.play(rng.choice([m for m in g.legal_moves() if m.kind != "pass"] or g.legal_moves()))
    return simulate_log(g, seed=seed)


def speedup(run: Callable[[Iterable[str], str], ReplayResult], variant: str,
            log: str) -> tuple[float, bool]:
    """Log seconds per wall-clock second, and whether the records match the
    direct replay."""
    lines = log.splitlines()
    duration = max(float(x.split('"t": ')[1].split(",")[0].rstrip("}")) for x in lines)
    start = time.perf_counter()
    result = run(lines, variant)
    wall = time.perf_counter() - start
    same = [str(r) for r in result.records] == [str(r) for r in replay(lines, variant).records]
    return duration / wall, same


def main() -> None:
    print("== replay through the drivers ==")
    print(f"target: at least {TARGET_SPEEDUP:.0f}x faster than real time, same records")
    paths: list[tuple[str, Callable[[Iterable[str], str], ReplayResult]]] = []
    try:
        from .gpio_replay import replay_via_gpio

        paths.append(("gpio", lambda lines, v: replay_via_gpio(lines, v)))
    except ImportError as exc:  # pragma: no cover - missing optional library
        print(f"via gpio: unavailable ({exc})")
    try:
        from .firmware_replay import replay_via_firmware

        paths.append(("firmware", lambda lines, v: replay_via_firmware(lines, v)))
    except ImportError as exc:  # pragma: no cover
        print(f"via firmware: unavailable ({exc})")
    log = _log("kharbga", 5, 120)
    for name, run in paths:
        try:
            x, same = speedup(run, "kharbga", log)
        except Exception as exc:  # a missing interpreter must not stop the other figures
            print(f"replay via {name:8s} failed: {exc}")
            continue
        print(f"replay via {name:8s} {x:8.1f}x real time  records {'match' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
