"""The engine against an earlier version of itself, at equal time.

The earlier engine is taken from a git tag or commit (default
``engine-round1``, which is commit ``7d16e83``: the engine as it was when
this script came in; a clone without the tag falls back to that commit):
``git archive`` extracts its ``controller/engine`` into a temporary
directory as the package ``engine_round1``; its absolute imports
(``controller.rules``) resolve to this checkout's rules, so both engines
play on the same rules core in the same run.  Games are paired: each pair
starts from the same random setting-phase opening, with colours swapped.

    python scripts/engine_vs_baseline.py --variant kharbga --games 200 \\
        --time 0.2 --opening 8 --jobs 2

prints one line a variant: the new engine's wins, draws and losses, its
score and the 95% Wilson interval, and whether the new engine searched in
C (the product's path) or fell back to Python (a checkout whose compiled
extensions are not built).  ``--speed`` prints instead, for both
engines in the same process: the time to depth 6 from the fixed positions
of ``controller/engine/data/depth_positions.tsv`` and the depth and node
rate reached in ``--time`` seconds in the setting and moving phases.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.engine import csearch  # noqa: E402
from controller.engine.match import (  # noqa: E402
    BASELINE_ENV,
    BASELINE_PACKAGE,
    describe_opening,
    make_player,
    new_game,
    opening_length,
    run_match,
    run_match_parallel,
)
from controller.rules import VARIANTS  # noqa: E402

ROUND1_TAG = "engine-round1"
ROUND1_COMMIT = "7d16e83d80ee452bd3afc0db93913ed044337918"


def resolve(tag: str) -> str:
    """The tree to extract: ``tag`` itself, or for ``engine-round1`` in a
    clone that lacks the tag (tags do not travel with every copy), the
    commit it names."""
    if tag != ROUND1_TAG:
        return tag
    found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet",
                            f"{tag}^{{commit}}"], capture_output=True, text=True)
    return tag if found.returncode == 0 else ROUND1_COMMIT


def extract(tag: str, into: Path) -> None:
    """``controller/engine`` at ``tag`` as the package ``engine_round1``."""
    ref = resolve(tag)
    try:
        data = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "controller/engine"],
                              check=True, capture_output=True).stdout
    except subprocess.CalledProcessError as exc:
        named = tag if ref == tag else f"{tag} (commit {ref[:7]})"
        raise SystemExit(f"engine_vs_baseline: no tag or commit {named}: "
                         f"{exc.stderr.decode().strip()}") from None
    target = into / BASELINE_PACKAGE
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            rel = Path(member.name).relative_to("controller/engine")
            out = target / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            f = tar.extractfile(member)
            assert f is not None
            out.write_bytes(f.read())


def speed(where: Path, tag: str, seconds: float) -> None:
    import importlib

    from controller.engine.api import best_move
    from controller.engine.bench import phase_depth, time_to_depth
    from controller.engine.search import Searcher

    sys.path.insert(0, str(where))
    old_search = importlib.import_module(f"{BASELINE_PACKAGE}.search")
    old_api = importlib.import_module(f"{BASELINE_PACKAGE}.api")
    for name, searcher, search in (("engine", Searcher, best_move),
                                   (tag, old_search.Searcher, old_api.best_move)):
        took = time_to_depth(6, searcher)
        print(f"{name}: time to depth 6, {len(took)} positions: total "
              f"{sum(t for _, t, _ in took):.2f} s, nodes {sum(n for _, _, n in took)}; "
              + " ".join(f"{t:.2f}" for _, t, _ in took), flush=True)
        for phase, (depth, rate) in phase_depth(seconds, search).items():
            print(f"{name}: {phase} phase at {seconds:g} s: depth {depth:.1f}, "
                  f"{rate:.0f} nodes/s", flush=True)


def backend(variant: str) -> str:
    """How the new engine plays ``variant`` in this checkout: on the
    compiled search (the product's path on every board with a C compiler)
    or on the Python search, which a checkout without the built extensions
    (a copy of the sources, no ``make install``) falls back to unseen."""
    if csearch.available(new_game(variant)):
        return "the new engine searches in C"
    if variant not in csearch.VARIANTS:
        return "the new engine searches in Python (no C search for this variant)"
    return ("the new engine searches in PYTHON: the C search is not built here "
            "(make install), so these are not the product's figures")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", action="append",
                   help="variant (repeatable; default the four 7x7/5x5 Kharbga variants)")
    p.add_argument("--games", type=int, default=20, help="games a variant (even)")
    p.add_argument("--time", type=float, default=0.2, help="seconds an action, both engines")
    p.add_argument("--opening", type=opening_length, default=8,
                   help="random placements of each pair's opening ('setting': the whole "
                   "setting phase)")
    p.add_argument("--balanced", action="store_true", help="only openings a fixed search "
                   "scores within a piece of even (controller/engine/match.py)")
    p.add_argument("--tag", default=ROUND1_TAG, help="git tag or commit of the baseline "
                   "engine (default: engine-round1, commit 7d16e83 where the tag is absent)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="games played at once")
    p.add_argument("--cap", type=int, default=200, help="moving-phase turns before adjudication")
    p.add_argument("--quiet", type=int, default=0, metavar="N", help="adjudicate by piece "
                   "count after N turns without a capture (default 0: only at --cap)")
    p.add_argument("--speed", action="store_true", help="time to depth 6 and depth by phase "
                   "for both engines, no games")
    args = p.parse_args(argv)
    variants = args.variant or [v.name for v in VARIANTS]
    if not csearch.available():  # said before the games, not only in their result lines
        print("engine_vs_baseline: warning: the C search is not built in this checkout "
              "(make install): the new engine plays the Python search", file=sys.stderr,
              flush=True)
    with tempfile.TemporaryDirectory(prefix="engine-baseline-") as tmp:
        extract(args.tag, Path(tmp))
        os.environ[BASELINE_ENV] = tmp
        if args.speed:
            speed(Path(tmp), args.tag, args.time)
            return 0
        a, b = f"engine:{args.time:g}", f"baseline:{args.time:g}"
        for v in variants:
            try:
                if args.jobs > 1:
                    r = run_match_parallel(v, a, b, args.games, args.seed, args.cap,
                                           args.jobs, args.opening, args.balanced, args.quiet)
                else:
                    r = run_match(v, make_player(a), make_player(b), args.games, args.seed,
                                  args.cap, args.opening, args.balanced, args.quiet)
            except ValueError as exc:  # no balanced opening of that length, say
                print(f"engine_vs_baseline: {v}: {exc}", file=sys.stderr, flush=True)
                return 1
            kind = "balanced " if args.balanced else ""
            print(f"{v}: {a} vs {args.tag} at {args.time:g} s, {r.games} games "
                  f"(paired {kind}openings of {describe_opening(args.opening)}"
                  + (f", adjudicated after {args.quiet} quiet turns" if args.quiet else "")
                  + f"; {backend(v)}): {r}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
