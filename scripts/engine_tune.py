"""Tune the evaluation's weights by Texel's method, one set a variant.

1. Play games of the engine against itself (bounded by nodes, so the games
   are the same on any machine), each from a random opening of a few
   placements (``--opening setting``: the whole setting phase, so that the
   games teach the moving phase alone; ``--balanced``: only openings that
   a fixed search scores within a piece of even, as in matches), and keep
   the quiet positions (no capture available, no chain) with the game's
   result: 1 the Attacker won, 0 the Defender, 1/2 a draw (games longer
   than ``--cap`` moving turns are adjudicated by piece count, as in
   matches).
2. The evaluation is linear in its weights (:class:`Weights`), so each
   position's term values are read once, by evaluating it with one weight
   at 1 and the others at 0.
3. Fit the scale ``k`` of the logistic ``1 / (1 + exp(-k * score / 100))``
   to the results with the current weights, then change one weight at a
   time by 8, 4, 2, 1 while the mean squared error between results and
   predictions falls (coordinate descent).
4. Write the weights with the fit's figures to
   ``controller/engine/data/weights.json`` (``--out``).  A variant whose
   games one side (nearly) always wins (the Attacker's score above
   ``--one-sided`` or below one minus it) teaches nothing but that side's
   colour: its fit is recorded and its weights stay the defaults.

    python scripts/engine_tune.py --games 40 --nodes 300 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.engine.api import best_move  # noqa: E402
from controller.engine.evaluate import Weights, evaluate, weights  # noqa: E402
from controller.engine.match import (  # noqa: E402
    describe_opening,
    game_after,
    opening_length,
    start_of,
)
from controller.rules import VARIANTS as RULES  # noqa: E402
from controller.rules import Game  # noqa: E402

VARIANTS = tuple(v.name for v in RULES)  # the Kharbga family, each with its weights
TERMS = tuple(f.name for f in fields(Weights))
OUT = ROOT / "controller" / "engine" / "data" / "weights.json"
SATURATED = 2000  # positions scored beyond this (a trap seen) teach nothing
MAX_WEIGHT = 150  # a term never outweighs one and a half pieces


def play(args: tuple[str, int, int, int, int, bool]) -> tuple[list[str], float]:
    """One self-play game: its quiet positions and the Attacker's result."""
    variant, seed, nodes, opening_actions, cap, balanced = args
    g = game_after(variant, start_of(variant, opening_actions, seed, balanced))
    assert isinstance(g, Game)  # the Kharbga family's: tuned weights are theirs
    positions: list[str] = []
    while g.outcome is None and g.turn <= cap:
        moves = g.raw_moves()
        if g.chain_point < 0 and not any(m[3] for m in moves) and g.ply % 2 == 0:
            positions.append(g.position())
        m = best_move(g, 60.0, seed=seed, max_nodes=nodes).move
        assert m is not None
        g.push(m.kind, m.frm, m.to, m.flag)
    if g.outcome is None:
        a, d = g.count(0), g.count(1)
        result = 1.0 if a > d else 0.0 if d > a else 0.5
    else:
        w = g.outcome.winner
        result = 0.5 if w is None else 1.0 if w == "attacker" else 0.0
    return positions, result


def features(variant: str, position: str) -> tuple[list[int], int] | None:
    """The term values of a position (the Attacker's view) and the rest of
    its score (material, the blocked first move)."""
    g = Game.from_position(variant, position)
    sign = 1 if g.side == 0 else -1
    zero = replace(Weights(), **{t: 0 for t in TERMS})
    base = sign * evaluate(g, zero)
    if abs(base) > SATURATED:
        return None
    values = [sign * evaluate(g, replace(zero, **{t: 1})) - base for t in TERMS]
    return values, base


def error(data: list[tuple[list[int], int, float]], w: list[int], k: float) -> float:
    total = 0.0
    for values, base, result in data:
        s = base + sum(a * b for a, b in zip(values, w, strict=True))
        x = max(-50.0, min(50.0, k * s / 100))
        total += (result - 1 / (1 + math.exp(-x))) ** 2
    return total / len(data)


def fit(data: list[tuple[list[int], int, float]], start: Weights) -> tuple[list[int], float]:
    w = [getattr(start, t) for t in TERMS]
    k = min((x / 100 for x in range(5, 301, 5)), key=lambda k: error(data, w, k))
    best = error(data, w, k)
    for step in (8, 4, 2, 1):
        improved = True
        while improved:
            improved = False
            for i in range(len(w)):
                for delta in (step, -step):
                    trial = list(w)
                    trial[i] = max(0, min(MAX_WEIGHT, trial[i] + delta))
                    e = error(data, trial, k)
                    if e < best - 1e-9:
                        best, w, improved = e, trial, True
    return w, k


def tune(variant: str, games: int, nodes: int, opening_actions: int, cap: int,
         pool: ProcessPoolExecutor, balanced: bool = False) -> dict[str, object]:
    work = [(variant, seed, nodes, opening_actions, cap, balanced) for seed in range(games)]
    data: list[tuple[list[int], int, float]] = []
    scores = []
    for positions, result in pool.map(play, work):
        scores.append(result)
        for p in positions:
            f = features(variant, p)
            if f is not None:
                data.append((f[0], f[1], result))
    start = weights(Game.new(variant).variant)
    w0 = [getattr(start, t) for t in TERMS]
    w, k = fit(data, start)
    return {
        "weights": dict(zip(TERMS, w, strict=True)),
        "fit": {"games": games, "nodes_per_action": nodes,
                "opening": describe_opening(opening_actions) + (", balanced" if balanced else ""),
                "attacker_score": round(sum(scores) / len(scores), 3),
                "positions": len(data), "k": k,
                "error_before": round(error(data, w0, k), 5),
                "error_after": round(error(data, w, k), 5),
                "start": dict(zip(TERMS, w0, strict=True))},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", action="append", choices=VARIANTS)
    p.add_argument("--games", type=int, default=40, help="self-play games a variant")
    p.add_argument("--nodes", type=int, default=300, help="search nodes an action")
    p.add_argument("--opening", type=opening_length, default=8,
                   help="random placements to start ('setting': the whole setting phase)")
    p.add_argument("--balanced", action="store_true", help="only openings a fixed search "
                   "scores within a piece of even (controller/engine/match.py)")
    p.add_argument("--cap", type=int, default=120, help="moving turns before adjudication")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--one-sided", type=float, default=0.9, help="Attacker score beyond which "
                   "a variant keeps its default weights")
    args = p.parse_args(argv)
    doc = json.loads(args.out.read_text()) if args.out.exists() else {}
    doc.setdefault("about", "Evaluation weights a variant, tuned by scripts/engine_tune.py "
                   "(Texel's method on self-play positions); see docs/engine.md.")
    with ProcessPoolExecutor(args.jobs) as pool:
        for v in args.variant or VARIANTS:
            try:
                out = tune(v, args.games, args.nodes, args.opening, args.cap, pool,
                           args.balanced)
            except ValueError as exc:  # no balanced opening of that length, say
                print(f"engine_tune: {v}: {exc} (nothing written)", file=sys.stderr)
                return 1
            fit_ = out["fit"]
            assert isinstance(fit_, dict)
            score = fit_["attacker_score"]
            if 1 - args.one_sided <= score <= args.one_sided:
                doc.setdefault("variants", {})[v] = out["weights"]
            else:
                doc.setdefault("variants", {}).pop(v, None)
                fit_["kept"] = "defaults: one side won (nearly) every game"
            doc.setdefault("fit", {})[v] = fit_
            print(v, json.dumps(out), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
