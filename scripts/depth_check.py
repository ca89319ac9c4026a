"""Does a much longer search see more than the match's search?

From the openings a match with the same ``--variant``, ``--seed`` and
``--opening`` plays (``controller/engine/match.py``, ``pair_start``), the
engine at ``--time`` seconds an action plays both sides.  At each turn of
``--at`` (counted from the end of the opening) the position is searched
twice, for ``--time`` and for ``--deep`` seconds (searched, not answered
from the opening book), and one line gives both scores (for the side to
move, hundredths of a piece), depths and moves, the piece count, and
whether the position (side to move included) stood at an earlier turn of
``--at``: the game shuffling.

    python scripts/depth_check.py --variant sabouiyya --seed 1 --pairs 4 \\
        --time 0.2 --deep 20 --at 30,60,120

The last line sums up: in how many positions the long search agreed with
the short one within ``--margin`` and chose the same move.  Where the two
agree and the games shuffle, more time alone does not change the result.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.engine.api import MAX_SECONDS, best_move  # noqa: E402
from controller.engine.match import (  # noqa: E402
    describe_opening,
    game_after,
    new_game,
    opening_length,
    pair_start,
)
from controller.rules import Game  # noqa: E402


@dataclass(frozen=True)
class Check:
    """One position looked at: its pair and turn, the piece count, the two
    searches' scores, depths and moves, and the turn it repeats (or None)."""

    pair: int
    turn: int
    count: tuple[int, int]
    short: tuple[int, int, str]
    deep: tuple[int, int, str]
    repeats: int | None

    def agrees(self, margin: int) -> bool:
        return abs(self.short[0] - self.deep[0]) <= margin and self.short[2] == self.deep[2]

    def __str__(self) -> str:
        rep = f", the position of turn {self.repeats}" if self.repeats is not None else ""
        return (f"pair {self.pair} turn {self.turn}: pieces {self.count[0]}-{self.count[1]}; "
                f"short {self.short[0]:+d} depth {self.short[1]} {self.short[2]}; "
                f"deep {self.deep[0]:+d} depth {self.deep[1]} {self.deep[2]}{rep}")


def board_key(game: Game) -> str:
    """The position's board, side to move, phase and chain square: the
    position string without the turn number, which a shuffle keeps
    raising, or any later field."""
    return " ".join(game.position().split()[:4])


def check_pair(variant: str, seed: int, pair: int, opening: int, seconds: float,
               deep: float, at: list[int]) -> tuple[list[Check], str | None]:
    """The checks of one pair's game, and how it ended if it ended before
    the last turn of ``at``."""
    game = game_after(variant, pair_start(variant, opening, seed, pair, True))
    assert isinstance(game, Game)
    seen: dict[str, int] = {}
    checks: list[Check] = []
    for turn in range(max(at) + 1):
        if game.outcome is not None:
            return checks, f"pair {pair} ended at turn {turn}: {game.outcome}"
        if turn in at:
            # searched, never answered from the opening book
            short = best_move(game, seconds, book=False)
            long = best_move(game, deep, book=False)
            key = board_key(game)
            checks.append(Check(pair, turn, (game.count(0), game.count(1)),
                                (short.score, short.depth, str(short.move)),
                                (long.score, long.depth, str(long.move)), seen.get(key)))
            seen.setdefault(key, turn)
        r = best_move(game, seconds)  # full strength: the seed plays no part
        assert r.move is not None
        game.play(r.move)
    return checks, None


def turns(text: str) -> list[int]:
    try:
        out = sorted({int(t) for t in text.split(",")})
    except ValueError:
        raise ValueError(f"--at: turns separated by commas, not {text!r}") from None
    if not out or out[0] < 0:
        raise ValueError(f"--at: turns from 0 up, not {text!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="sabouiyya")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairs", type=int, default=4, help="openings to look at")
    ap.add_argument("--opening", default="setting",
                    help="random placements before the engine plays ('setting': all)")
    ap.add_argument("--time", type=float, default=0.2, help="the match's seconds an action")
    ap.add_argument("--deep", type=float, default=20.0, help="the long search's seconds")
    ap.add_argument("--at", default="30,60,120", help="turns to look at, after the opening")
    ap.add_argument("--margin", type=int, default=25,
                    help="hundredths of a piece within which the two scores agree")
    args = ap.parse_args(argv)
    try:
        opening = opening_length(args.opening)
        at = turns(args.at)
        for name in ("time", "deep"):
            value = getattr(args, name)
            if not 0 < value <= MAX_SECONDS:
                raise ValueError(f"--{name}: above 0 and at most {MAX_SECONDS:g} s, not {value:g}")
        if args.pairs < 1:
            raise ValueError(f"--pairs: at least 1, not {args.pairs}")
        if not isinstance(new_game(args.variant), Game):
            raise ValueError(f"{args.variant}: not a Kharbga-family variant")
    except (ValueError, KeyError) as e:
        print(f"depth_check: {e}", file=sys.stderr)
        return 2
    print(f"{args.variant}, seed {args.seed}, openings of {describe_opening(opening)} "
          f"(balanced), {args.time:g} s against {args.deep:g} s", flush=True)
    checks: list[Check] = []
    for pair in range(args.pairs):
        found, ended = check_pair(args.variant, args.seed, pair, opening, args.time,
                                  args.deep, at)
        for c in found:
            print(c, flush=True)
        if ended:
            print(ended, flush=True)
        checks += found
    agree = sum(c.agrees(args.margin) for c in checks)
    level = sum(c.count[0] == c.count[1] for c in checks)
    repeated = sum(c.repeats is not None for c in checks)
    print(f"{len(checks)} positions: the long search agreed with the short one (within "
          f"{args.margin}, the same move) in {agree}; level material in {level}; "
          f"a position seen at an earlier turn in {repeated}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
