"""Build the setting phase's opening books (controller/engine/data/book-<variant>.tsv).

For each side in turn, the positions reachable in the first ``--plies``
placements are walked: where that side is to move, the C search thinks
``--seconds`` and its move (the book's) is followed; where the other side
is to move, its ``--replies`` best replies (ranked by a search
``--rank-depth`` actions deep; 0 keeps every reply) are all followed, so
the book covers what an opponent may play.  Positions are folded under the
symmetries of the square (controller/engine/book.py).

    python scripts/engine_book.py --plies 6 --seconds 0.5 --replies 3

A deeper offline run only raises the numbers; it rewrites the files.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.board.words import os_reason  # noqa: E402
from controller.engine import csearch  # noqa: E402
from controller.engine.book import VARIANTS, Entry, fold, map_move  # noqa: E402
from controller.rules import Game  # noqa: E402


def _side(position: str) -> str:
    return position.split()[1]


def ranked_replies(game: Game, replies: int, depth: int) -> list[str]:
    """The side to move's placements, best first by a shallow search, one
    per folded result; the first ``replies`` of them (all when 0)."""
    mover = _side(game.position())
    scored: dict[str, tuple[int, str]] = {}
    for move in game.legal_moves():
        game.play(move)
        key = fold(game.position())[0]
        if key not in scored:
            if game.outcome is not None or not game.setting or replies == 0:
                score = 0
            else:
                score = csearch.search(game, None, max_depth=depth).score
                if _side(game.position()) != mover:
                    score = -score
            scored[key] = (score, str(move))
        game.pop()
    order = sorted(scored.values(), key=lambda s: (-s[0], s[1]))
    return [m for _, m in (order if replies == 0 else order[:replies])]


def build(variant: str, plies: int, seconds: float, replies: int, rank_depth: int,
          log: bool = True) -> dict[str, Entry]:
    """The book of ``variant``: folded position -> entry."""
    book: dict[str, Entry] = {}
    seen: set[tuple[str, str]] = set()

    def walk(game: Game, ply: int, side: str) -> None:
        position = game.position()
        key, sym = fold(position)
        if ply >= plies or not game.setting or game.outcome is not None or (key, side) in seen:
            return
        seen.add((key, side))
        n = game.variant.size
        if _side(position) == side:
            entry = book.get(key)
            if entry is None:
                r = csearch.search(game, seconds)
                entry = Entry(map_move(str(r.move), sym, n), r.score, r.depth)
                book[key] = entry
                if log:
                    print(f"{variant} {len(book)}: {key}\t{entry.move} {entry.score} "
                          f"d{entry.depth}", file=sys.stderr, flush=True)
            moves = [map_move(entry.move, sym, n, inverse=True)]
        else:
            moves = ranked_replies(game, replies, rank_depth)
        for move in moves:
            game.play(move)
            walk(game, ply + 1, side)
            game.pop()

    for side in ("a", "d"):
        walk(Game.new(variant), 0, side)
    return book


def write(path: Path, variant: str, book: dict[str, Entry], command: str) -> None:
    depths = [e.depth for e in book.values()] or [0]
    lines = [
        f"# Opening book of {variant}: the setting phase's first placements, folded",
        "# under the symmetries of the square (controller/engine/book.py).",
        f"# Built by: {command}",
        f"# {len(book)} positions, search depth {min(depths)} to {max(depths)}.",
        "# position\tmove\tscore (hundredths, side to move)\tdepth",
    ]
    lines += [f"{k}\t{e.move}\t{e.score}\t{e.depth}" for k, e in sorted(book.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", choices=VARIANTS,
                    help="a variant (repeatable; default all four)")
    ap.add_argument("--plies", type=int, default=6, help="placements from the start (6)")
    ap.add_argument("--seconds", type=float, default=0.5, help="search time a position (0.5)")
    ap.add_argument("--replies", type=int, default=3,
                    help="opponent replies followed, best first (3; 0: all)")
    ap.add_argument("--rank-depth", type=int, default=4, help="depth ranking the replies (4)")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "controller" / "engine" / "data")
    args = ap.parse_args(argv)
    if not csearch.available():
        print("engine_book: the C search is not built", file=sys.stderr)
        return 1
    try:  # before hours of searching, not after them
        args.out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"engine_book: cannot write to {args.out_dir}: {os_reason(exc)}", file=sys.stderr)
        return 1
    command = "python scripts/engine_book.py " + shlex.join(
        [f"--plies={args.plies}", f"--seconds={args.seconds}", f"--replies={args.replies}",
         f"--rank-depth={args.rank_depth}"])
    for variant in args.variant or VARIANTS:
        began = time.perf_counter()
        book = build(variant, args.plies, args.seconds, args.replies, args.rank_depth)
        write(args.out_dir / f"book-{variant}.tsv", variant, book, command)
        print(f"{variant}: {len(book)} positions in {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
