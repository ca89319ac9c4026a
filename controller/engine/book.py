"""The setting phase's opening book: for the first placements of the
Kharbga-family variants, the move a deep offline search chose, its score
and the depth it reached (``data/book-<variant>.tsv``, built by
``scripts/engine_book.py``; see docs/engine.md, "Opening book").

Positions are stored folded: of the eight symmetries of the square (the
rotations and reflections, which all keep the centre in place, so the
setting rules of every variant here are unchanged by them), the one whose
board string is smallest.  A move found for a folded position is mapped
back through the inverse symmetry.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = ["VARIANTS", "SYMMETRIES", "BookError", "Entry", "Book", "fold", "transform",
           "map_square", "map_move", "parse", "load", "book_for"]

VARIANTS = ("kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya")
"""The variants with a book (square boards whose setting rules are
symmetric under all eight symmetries of the square)."""

Sym = tuple[bool, bool, bool]  # (transpose, flip files, flip ranks), applied in that order
SYMMETRIES: tuple[Sym, ...] = tuple((t, fx, fy) for t in (False, True)
                                    for fx in (False, True) for fy in (False, True))


class BookError(ValueError):
    """A malformed book file: one line naming the file and the line."""


@dataclass(frozen=True)
class Entry:
    """A book move (in the folded position's coordinates) with its score
    for the side to move (hundredths of a piece) and the search depth."""

    move: str
    score: int
    depth: int


def _coords(square: str) -> tuple[int, int]:
    return ord(square[0]) - ord("a"), int(square[1:]) - 1


def _name(x: int, y: int) -> str:
    return f"{chr(ord('a') + x)}{y + 1}"


def _apply(sym: Sym, x: int, y: int, n: int) -> tuple[int, int]:
    t, fx, fy = sym
    if t:
        x, y = y, x
    return (n - 1 - x if fx else x), (n - 1 - y if fy else y)


def _inverse(sym: Sym, n: int) -> Sym:
    probe = [(x, y) for x in range(n) for y in range(n)]
    for cand in SYMMETRIES:
        if all(_apply(cand, *_apply(sym, x, y, n), n) == (x, y) for x, y in probe):
            return cand
    raise AssertionError("a symmetry without an inverse")  # pragma: no cover


def map_square(square: str, sym: Sym, n: int, inverse: bool = False) -> str:
    """``square`` moved by ``sym`` (or by its inverse) on an ``n`` x ``n`` board."""
    if inverse:
        sym = _inverse(sym, n)
    return _name(*_apply(sym, *_coords(square), n))


def map_move(move: str, sym: Sym, n: int, inverse: bool = False) -> str:
    """A placement ``@sq`` moved by ``sym`` (the book holds placements only)."""
    return "@" + map_square(move[1:], sym, n, inverse)


def transform(position: str, sym: Sym) -> str:
    """``position`` with its board moved by ``sym`` (the other fields kept)."""
    board, _, rest = position.partition(" ")
    ranks = board.split("/")
    n = len(ranks)
    out = [["."] * n for _ in range(n)]
    for r, row in enumerate(ranks):
        for x, c in enumerate(row):
            nx, ny = _apply(sym, x, n - 1 - r, n)
            out[n - 1 - ny][nx] = c
    return "/".join("".join(row) for row in out) + (f" {rest}" if rest else "")


def fold(position: str) -> tuple[str, Sym]:
    """The folded form of a position string and the symmetry that maps the
    position onto it (squares of the position -> squares of the fold)."""
    return min((transform(position, sym), sym) for sym in SYMMETRIES)


class Book:
    """A variant's book: folded position string -> :class:`Entry`."""

    def __init__(self, variant: str, entries: dict[str, Entry]) -> None:
        self.variant = variant
        self.entries = entries

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, position: str) -> tuple[str, int, int] | None:
        """The book's move for ``position`` (in its own coordinates), its
        score and depth; None when the position is not in the book."""
        key, sym = fold(position)
        entry = self.entries.get(key)
        if entry is None:
            return None
        n = len(position.split(" ", 1)[0].split("/"))
        return map_move(entry.move, sym, n, inverse=True), entry.score, entry.depth


def _square_ok(square: str, n: int) -> bool:
    return (len(square) >= 2 and "a" <= square[0] < chr(ord("a") + n)
            and square[1:].isdigit() and 1 <= int(square[1:]) <= n)


def _parse_line(line: str) -> tuple[str, Entry]:
    fields = line.split("\t")
    if len(fields) != 4:
        raise ValueError(f"expected 4 tab-separated fields (position, move, score, depth), "
                         f"got {len(fields)}")
    position, move, score, depth = fields
    ranks = position.split(" ", 1)[0].split("/")
    n = len(ranks)
    if len(position.split()) < 4 or any(len(r) != n or set(r) - set("AD.") for r in ranks):
        raise ValueError(f"not a position string: {position!r}")
    if not (move.startswith("@") and _square_ok(move[1:], n)):
        raise ValueError(f"not a placement on the board: {move!r}")
    try:
        entry = Entry(move, int(score), int(depth))
    except ValueError:
        raise ValueError(f"score and depth must be integers: {score!r}, {depth!r}") from None
    key, _ = fold(position)
    if key != position:
        raise ValueError("position not in its folded form")
    return key, entry


def parse(text: str, source: str, variant: str) -> Book:
    """A book from its text; :class:`BookError` names ``source`` and the line."""
    entries: dict[str, Entry] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        try:
            key, entry = _parse_line(line)
        except ValueError as exc:
            raise BookError(f"{source}:{number}: {exc}") from None
        entries[key] = entry
    return Book(variant, entries)


def load(path: str | Path, variant: str) -> Book:
    """A book read from a file (:class:`BookError` when malformed)."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BookError(f"{p}: cannot read the book: {exc}") from None
    return parse(text, str(p), variant)


@functools.cache
def book_for(variant: str) -> Book | None:
    """The packaged book of ``variant`` (None when it has none)."""
    if variant not in VARIANTS:
        return None
    res = resources.files(__package__).joinpath("data", f"book-{variant}.tsv")
    if not res.is_file():
        return None
    return parse(res.read_text("utf-8"), f"controller/engine/data/book-{variant}.tsv", variant)
