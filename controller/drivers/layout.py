"""The boards the drivers know, as grids of cells for wiring.

A board's points are numbered as in the sensor log (the board's geometry
order: a1, b1, .., on the square boards; a1, c1, e1, b2, .. on the
37-point board).  For wiring, each *sensed* point sits on one cell of a
``width`` x ``height`` grid: ``(file, rank)`` from the bottom-left corner.
The switch matrix and the LED chain are laid over that grid
(:mod:`.mapping`):

- ``"5x5"``, ``"7x7"``, ``"8x8"``: one cell per square (``8x8`` with
  ``dark_only``: the 32 dark squares only, four cells a rank, the
  light squares unsensed and unlit);
- ``"37-point"``: a 5 x 9 grid, file ``a``..``e`` and row ``1``..``9`` as
  the points are named; the 8 cells of the two triangles' gaps (``b1``,
  ``d1``, ``a2``, ``e2`` and the same at the top) have no point.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from controller.board.boards import draughts_board, sixteen_soldiers_board
from controller.board.words import place

from .config_table import ConfigError

__all__ = ["BOARDS", "Layout", "layout"]

BOARDS = ("5x5", "7x7", "8x8", "37-point")
FILES = "abcdefghi"


@dataclass(frozen=True)
class Layout:
    """A board's points on a grid of cells."""

    board: str
    dark_only: bool
    names: tuple[str, ...]  # point names, log order
    width: int  # cells a rank (along the files)
    height: int  # ranks of cells
    cells: tuple[int, ...]  # the point on cell ``rank * width + file``, -1 for none

    @property
    def points(self) -> int:
        return len(self.names)

    @property
    def sensed(self) -> tuple[int, ...]:
        """The points with a cell (a switch and an LED), lowest first."""
        return tuple(sorted(p for p in self.cells if p >= 0))

    def cell_of(self, point: int) -> tuple[int, int] | None:
        """``(file, rank)`` of a point's cell, None for an unsensed point."""
        try:
            i = self.cells.index(point)
        except ValueError:
            return None
        return i % self.width, i // self.width

    def point_at(self, file: int, rank: int) -> int:
        return self.cells[rank * self.width + file]

    def corner_points(self) -> tuple[str, ...]:
        """The points on the grid's four corners (a chain may start there)."""
        w, h = self.width - 1, self.height - 1
        out = []
        for f, k in ((0, 0), (w, 0), (0, h), (w, h)):
            p = self.point_at(f, k)
            if p >= 0:
                out.append(self.names[p])
        return tuple(out)

    def parse(self, name: str) -> int:
        """A point's index from its name; :class:`ConfigError` for none."""
        text = name.strip().lower()
        try:
            return self.names.index(text)
        except ValueError:
            pass
        raise ConfigError(
            f"{name!r} is not a {place(self.board)} of the {self.board} board "
            f"({self.names[0]} to {self.names[-1]})"
        )


@cache
def layout(board: str, dark_only: bool = False) -> Layout:
    """The grid of ``board`` (one of :data:`BOARDS`)."""
    if board == "37-point":
        names = sixteen_soldiers_board().point_names
        cells = [-1] * (5 * 9)
        for i, name in enumerate(names):
            cells[(int(name[1:]) - 1) * 5 + FILES.index(name[0])] = i
        return Layout(board, False, names, 5, 9, tuple(cells))
    if board not in BOARDS:
        raise ConfigError(f"unknown board {board!r} (known: {', '.join(BOARDS)})")
    n = int(board.split("x")[0])
    if n == 8:
        names = draughts_board().point_names
    else:
        names = tuple(f"{FILES[i % n]}{i // n + 1}" for i in range(n * n))
    if dark_only:
        if n != 8:
            raise ConfigError(f"dark_only: only the 8x8 board has dark squares, not {board}")
        dark = [k * 8 + f for k in range(8) for f in range(8) if (f + k) % 2 == 0]
        return Layout(board, True, names, 4, 8, tuple(dark))
    return Layout(board, False, names, n, n, tuple(range(n * n)))
