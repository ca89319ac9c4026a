"""Play the model of hands on a reed board (tests/reconcile/test_reed_hands.py)
over many games, its habits as they are or changed, and list the games the
reconciler read otherwise: the held-out check of docs/reconciler.md ("What
hands do"). Needs the test extras (``make install-test``).

    python scripts/hands_sweep.py --variant sabouiyya --seeds 64-127 \\
        --habit wrong=0.3 --habit hesitate=0.3

Prints each game read otherwise (its first difference from the moves
meant) and a line a variant; exit status 1 if any was, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FAMILY = ["kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya"]
GAME_LIMIT = 120  # seconds a game at most (the model's own search may not end)


def _model() -> Any:
    for sub in ("tests", "tests/reconcile"):
        sys.path.insert(0, str(ROOT / sub))
    sys.path.insert(0, str(ROOT))
    return importlib.import_module("test_reed_hands")


def _seeds(text: str) -> range:
    lo, sep, hi = text.partition("-")
    try:
        first, last = int(lo), int(hi) if sep else int(lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds {text!r}: give N or N-M") from None
    if first < 0 or last < first:
        raise argparse.ArgumentTypeError(f"seeds {text!r}: give N or N-M, 0 <= N <= M")
    return range(first, last + 1)


def _habits(model: Any, pairs: list[str]) -> Any:
    names = {f.name for f in dataclasses.fields(model.Habits)}
    changed: dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or name not in names:
            raise SystemExit(f"hands_sweep: habit {pair!r}: give NAME=P, NAME one of "
                             f"{', '.join(sorted(names))}")
        try:
            p = float(value)
        except ValueError:
            p = -1.0
        if not 0.0 <= p <= 1.0:
            raise SystemExit(f"hands_sweep: habit {pair!r}: P is a chance from 0 to 1")
        changed[name] = p
    return dataclasses.replace(model.Habits(), **changed)


def _timeout(_signum: int, _frame: FrameType | None) -> None:
    raise TimeoutError(f"no end within {GAME_LIMIT} s")


def _play(model: Any, variant: str, seed: int, habits: Any) -> str | None:
    """None if game ``seed`` was read as meant, else how it was not."""
    moves = model._intended(variant, seed)
    player = model.Player(variant, seed, habits)
    signal.alarm(GAME_LIMIT)
    try:
        problems = player.play(moves)
    except TimeoutError as e:
        return str(e)
    finally:
        signal.alarm(0)
    why: str | None = model.read_otherwise(player, moves, problems)
    return why


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", help=f"(repeat; default: {', '.join(FAMILY)})")
    ap.add_argument("--seeds", type=_seeds, default=range(64), help="N-M (default 0-63)")
    ap.add_argument("--habit", action="append", default=[], metavar="NAME=P",
                    help="a habit's chance changed (repeat)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    model = _model()
    try:
        habits = _habits(model, args.habit)
        variants = args.variant or FAMILY
        for v in variants:
            if v not in model.VARIANTS:
                raise SystemExit(f"hands_sweep: variant {v!r}: one of {', '.join(model.VARIANTS)}")
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    signal.signal(signal.SIGALRM, _timeout)
    changed = {f.name: getattr(habits, f.name) for f in dataclasses.fields(habits)
               if getattr(habits, f.name) != getattr(model.Habits(), f.name)}
    print(f"habits changed: {changed or 'none'}; seeds {args.seeds.start}-{args.seeds.stop - 1}")
    bad_total = 0
    for v in variants:
        start = time.monotonic()
        bad = []
        for seed in args.seeds:
            why = _play(model, v, seed, habits)
            if why is not None:
                bad.append(seed)
                print(f"  {v} {seed}: {why}", flush=True)
        bad_total += len(bad)
        print(f"{v}: {len(bad)} of {len(args.seeds)} read otherwise {bad or ''} "
              f"({time.monotonic() - start:.0f} s)", flush=True)
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main())
