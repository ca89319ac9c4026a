"""The boards of the leap-capture games: the 37-point board and the 8x8
draughts board, as :class:`~.geometry.Geometry` values.

Both use eight compass directions (north, north-east, .., north-west;
``opposite[d] == (d + 4) % 8``); a direction with no line through a point
has ``-1`` there.

The 37-point board ("Sixteen Soldiers", Ludii's Hewakam Keliya) is a 5x5
grid of lines with the alquerque diagonals, and a triangle on the middle of
its lower and upper edges.  Points are named as Ludii labels them, in
lowercase: files ``a``..``e``, rows ``1``..``9`` from the bottom::

    a9 . c9 . e9        row 9: the far side of the upper triangle
    .  b8 c8 d8 .       row 8
    a7 b7 c7 d7 e7      rows 7..3: the grid, c5 its centre
    ...
    a3 b3 c3 d3 e3
    .  b2 c2 d2 .       row 2
    a1 . c1 . e1        row 1: the far side of the lower triangle

A triangle's lines are its three spokes from the grid's edge point (``c3``
to ``a1``, ``c1`` and ``e1``) and its two cross rows (``b2 c2 d2`` and
``a1 c1 e1``).  On a line, the next point in a direction is the next point
of that line, however far apart the labels are (``a1`` east is ``c1``).

The draughts board has all 64 squares, ``a1`` bottom-left (dark) to ``h8``;
only the 32 dark squares (file + rank even, counting from 0) have
neighbours, along the diagonals.
"""

from __future__ import annotations

from functools import cache

from .geometry import Geometry

__all__ = [
    "COMPASS",
    "SIXTEEN_SOLDIERS_LINES",
    "draughts_board",
    "sixteen_soldiers_board",
]

COMPASS = (
    "north",
    "north-east",
    "east",
    "south-east",
    "south",
    "south-west",
    "west",
    "north-west",
)
_COMPASS_STEP = {(0, 1): 0, (1, 1): 1, (1, 0): 2, (1, -1): 3}

# The lines of the 37-point board, each listed from one end to the other.
SIXTEEN_SOLDIERS_LINES: tuple[str, ...] = (
    # rows of the grid and of the two triangles
    *(" ".join(f"{f}{r}" for f in "abcde") for r in range(3, 8)),
    "a1 c1 e1",
    "b2 c2 d2",
    "b8 c8 d8",
    "a9 c9 e9",
    # columns: the middle one runs through both triangles
    *(" ".join(f"{f}{r}" for r in range(3, 8)) for f in "abde"),
    " ".join(f"c{r}" for r in range(1, 10)),
    # diagonals of the grid, the long ones continuing into the triangles
    "a3 b4 c5 d6 e7",
    "a7 b6 c5 d4 e3",
    "a1 b2 c3 d4 e5",
    "e1 d2 c3 b4 a5",
    "a5 b6 c7 d8 e9",
    "e5 d6 c7 b8 a9",
)

# The rows of the 37-point board from the top, each left to right.
SIXTEEN_SOLDIERS_ROWS: tuple[tuple[str, ...], ...] = (
    ("a9", "c9", "e9"),
    ("b8", "c8", "d8"),
    *(tuple(f"{f}{r}" for f in "abcde") for r in range(7, 2, -1)),
    ("b2", "c2", "d2"),
    ("a1", "c1", "e1"),
)


def _direction(frm: str, to: str) -> int:
    dx = ord(to[0]) - ord(frm[0])
    dy = int(to[1:]) - int(frm[1:])
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    if (sx, sy) in _COMPASS_STEP:
        return _COMPASS_STEP[(sx, sy)]
    return _COMPASS_STEP[(-sx, -sy)] + 4


@cache
def sixteen_soldiers_board() -> Geometry:
    """The 37-point board; points numbered row by row from the bottom
    (``a1``, ``c1``, ``e1``, ``b2``, .., ``e9``)."""
    names = tuple(p for row in reversed(SIXTEEN_SOLDIERS_ROWS) for p in row)
    index = {name: i for i, name in enumerate(names)}
    tables = [[-1] * len(names) for _ in COMPASS]
    for line in SIXTEEN_SOLDIERS_LINES:
        pts = line.split()
        for a, b in zip(pts, pts[1:], strict=False):
            d = _direction(a, b)
            tables[d][index[a]] = index[b]
            tables[(d + 4) % 8][index[b]] = index[a]
    return Geometry(
        name="37-point",
        point_names=names,
        direction_names=COMPASS,
        neighbours=tuple(tuple(t) for t in tables),
        opposite=tuple((d + 4) % 8 for d in range(8)),
        centre=index["c5"],
    )


@cache
def draughts_board() -> Geometry:
    """The 8x8 board, ``a1`` (index 0) .. ``h8`` (63) in the sensor order;
    diagonal neighbours between dark squares only.  Its ``centre`` is
    ``d4``, nominally: no rule of these games uses a centre."""
    n = 8
    names = tuple(f"{chr(ord('a') + i % n)}{i // n + 1}" for i in range(n * n))
    tables = [[-1] * (n * n) for _ in COMPASS]
    for i in range(n * n):
        f, r = i % n, i // n
        if (f + r) % 2:
            continue  # a light square: no lines
        for d in (1, 3, 5, 7):
            dx = 1 if d in (1, 3) else -1
            dy = 1 if d in (1, 7) else -1
            if 0 <= f + dx < n and 0 <= r + dy < n:
                tables[d][i] = (r + dy) * n + f + dx
    return Geometry(
        name="8x8",
        point_names=names,
        direction_names=COMPASS,
        neighbours=tuple(tuple(t) for t in tables),
        opposite=tuple((d + 4) % 8 for d in range(8)),
        centre=3 * n + 3,
    )
