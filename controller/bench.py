"""Benchmarks entry point (``make bench``): prints every figure with its
reference or target beside it."""

from __future__ import annotations

import sys
from collections.abc import Callable


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks named in ``argv`` (default: all)."""
    from controller import replay_bench as drivers_bench
    from controller.engine import bench as engine_bench
    from controller.reconcile import bench as reconcile_bench
    from controller.rules import bench as rules_bench

    names = argv if argv is not None else sys.argv[1:]
    from calibration import bench as camera_bench

    suites = {
        "rules": rules_bench.main,
        "reconciler": reconcile_bench.main,
        "drivers": drivers_bench.main,
        "engine": _no_args(engine_bench.main),
        "camera": _no_args(camera_bench.main),
        "service": _service,
    }
    for name, run in suites.items():
        if not names or name in names:
            run()
    return 0


def _service() -> None:
    from controller.service import bench as service_bench

    service_bench.main([])


def _no_args(run: Callable[[list[str]], int]) -> Callable[[], None]:
    def main() -> None:
        run([])

    return main


if __name__ == "__main__":
    raise SystemExit(main())
