"""Benchmarks entry point (``make bench``): runs ``controller.rules.bench`` if present."""

from __future__ import annotations

import importlib


def main() -> int:
    """Run the rules benchmarks, or say there are none yet."""
    try:
        bench = importlib.import_module("controller.rules.bench")
    except ImportError:
        print("no benchmarks yet")
        return 0
    bench.main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
