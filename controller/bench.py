"""Benchmarks entry point (``make bench``): prints every figure with its
reference or target beside it."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.board.sensorlog import Event


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks named in ``argv`` (default: all)."""
    from controller.engine import bench as engine_bench
    from controller.reconcile import bench as reconcile_bench
    from controller.rules import bench as rules_bench

    names = argv if argv is not None else sys.argv[1:]
    suites = {
        "rules": rules_bench.main,
        "leap": _leap,
        "reconciler": reconcile_bench.main,
        "drivers": _drivers,
        "engine": _no_args(engine_bench.main),
        "strength": _strength,
        "camera": _camera,
        "service": _service,
        "broadcast": _broadcast,
    }
    unknown = [name for name in names if name not in suites]
    if unknown:  # a typo ran nothing, silently, and said all was well
        print(f"controller.bench: no suite {unknown[0]!r} (suites: {', '.join(suites)})",
              file=sys.stderr)
        return 2
    for name, run in suites.items():
        if not names or name in names:
            run()
    return 0


def _camera() -> None:
    import logging
    import tempfile
    from pathlib import Path

    from calibration import bench as camera_bench
    from controller.drivers.camera import stream_speed

    camera_bench.main([])
    logging.getLogger("controller.drivers.camera").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as d:
        video, profile = camera_bench.stream_sample(Path(d))
        n, secs = stream_speed(str(video), profile)
    print(f"  product path:      CameraStream on a {n}-picture 1280x720 MJPG video:"
          f" {n / secs:.0f} frames/s ({1000 * secs / n:.1f} ms a picture, decoding included)"
          "   target >= 30")


def _leap() -> None:
    from controller.rules import leap_bench

    leap_bench.main()


def _broadcast() -> None:
    from controller.service import broadcast_bench

    broadcast_bench.main()


def _service() -> None:
    from controller.service import bench as service_bench

    service_bench.main([])


# -- replay through the drivers ---------------------------------------------------
# Here, above the drivers and the reconciler, as the ``replay`` command is.

REPLAY_TARGET = 20.0  # times faster than real time
SCAN_TARGET = 100.0  # the GPIO matrix's scans a second: a press of 10 ms is seen


def replay_speedup(source: Callable[[Iterable[str]], Iterable[Event]], variant: str,
                   lines: list[str]) -> tuple[float, bool]:
    """Log seconds per wall-clock second of a replay from ``source``, and
    whether its records match the direct replay's."""
    from controller.reconcile.replay import replay, replay_events

    duration = max(float(json.loads(line)["t"]) for line in lines)
    start = time.perf_counter()
    result = replay_events(source(lines), variant)
    wall = time.perf_counter() - start
    same = [str(r) for r in result.records] == [str(r) for r in replay(lines, variant).records]
    return duration / wall, same


def _drivers() -> None:
    """How much faster than real time a simulated game replays through the
    simulated switches and the real scanning code, and through the real
    firmware over its serial link (target: at least 20 times)."""
    import random

    from controller.drivers.firmware_replay import firmware_events
    from controller.drivers.gpio_replay import gpio_events, scan_rate
    from controller.reconcile.simulator import simulate_log
    from controller.rules import Game

    print("== replay through the drivers ==")
    print(f"target: at least {REPLAY_TARGET:.0f}x faster than real time, same records")
    rng = random.Random(5)
    g = Game.new("kharbga")
    while g.outcome is None and len(g.moves) < 120:
        g.play(rng.choice([m for m in g.legal_moves() if m.kind != "pass"] or g.legal_moves()))
    lines = simulate_log(g, seed=5).splitlines()
    for name, source in (("gpio", gpio_events), ("firmware", firmware_events)):
        try:
            x, same = replay_speedup(source, "kharbga", lines)
        except Exception as exc:  # a missing interpreter must not stop the other figures
            print(f"replay via {name:8s} failed: {exc}")
            continue
        print(f"replay via {name:8s} {x:8.1f}x real time  records {'match' if same else 'DIFFER'}")
    rate = scan_rate()
    print(f"GPIO matrix scan loop, real time on gpiozero's mock pins: {rate:.0f} scans/s "
          f"(set to 200; target: at least {SCAN_TARGET:.0f})")


def _strength(games: int = 8, seconds: float = 0.1,
              variants: tuple[str, ...] = ()) -> None:
    """A short paired match against the round-1 engine (git tag
    ``engine-round1``); the full runs are in docs/engine.md."""
    import subprocess
    from pathlib import Path

    print("== engine against engine-round1 ==")
    print(f"target: at least 70% with the 95% interval above 60% (200 games a variant); "
          f"here {games} games a variant at {seconds:g} s, paired balanced openings: a "
          "check, the figures are in docs/engine.md")
    script = Path(__file__).resolve().parent.parent / "scripts" / "engine_vs_baseline.py"
    cmd = [sys.executable, str(script), "--games", str(games), "--time", f"{seconds:g}",
           "--opening", "8", "--balanced", "--jobs", "2"]
    for v in variants:
        cmd += ["--variant", v]
    done = subprocess.run(cmd, capture_output=True, text=True)
    out = (done.stdout + done.stderr).strip()
    print(out if done.returncode == 0 else
          f"strength: not measured ({out.splitlines()[-1] if out else done.returncode})")


def _no_args(run: Callable[[list[str]], int]) -> Callable[[], None]:
    def main() -> None:
        run([])

    return main


if __name__ == "__main__":
    raise SystemExit(main())
