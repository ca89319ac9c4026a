"""Board geometry: a graph of points joined along named directions.

A point is an int index; a set of points is a bitboard (a Python int with
bit ``i`` set for point ``i``).  The square boards of the Kharbga family are
grids whose directions are constant index offsets, so a whole bitboard moves
one step along a direction with a mask and a shift.  A geometry whose
directions are not constant offsets (the 37-point board, say) still works:
:meth:`Geometry.shift` then walks the bits through the neighbour tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .words import place

__all__ = ["Geometry", "points", "remap", "square_grid"]


def points(bb: int) -> list[int]:
    """The points of bitboard ``bb``, lowest first."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out


def remap(bb: int, table: tuple[int, ...] | list[int]) -> int:
    """Bitboard ``bb`` with each point ``p`` moved to ``table[p]``."""
    out = 0
    while bb:
        low = bb & -bb
        out |= 1 << table[low.bit_length() - 1]
        bb ^= low
    return out


@dataclass(frozen=True)
class Geometry:
    """Points, their names, and each point's neighbour along each direction.

    ``neighbours[d][p]`` is the point one step from ``p`` along direction
    ``d``, or ``-1`` off the board.  ``opposite[d]`` is the reverse direction.
    """

    name: str
    point_names: tuple[str, ...]
    direction_names: tuple[str, ...]
    neighbours: tuple[tuple[int, ...], ...]
    opposite: tuple[int, ...]
    centre: int
    # Derived tables (filled in __post_init__).
    full: int = field(init=False)
    index: dict[str, int] = field(init=False, repr=False)
    offsets: tuple[int, ...] | None = field(init=False, repr=False)
    source_masks: tuple[int, ...] = field(init=False, repr=False)
    adjacent: tuple[int, ...] = field(init=False, repr=False)
    capture_pairs: tuple[tuple[tuple[int, int], ...], ...] = field(init=False, repr=False)
    step_targets: tuple[tuple[tuple[int, int], ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.point_names)
        set_ = object.__setattr__
        set_(self, "full", (1 << n) - 1)
        set_(self, "index", {name: i for i, name in enumerate(self.point_names)})
        masks = []
        offsets: list[int] | None = []
        for table in self.neighbours:
            mask = 0
            delta: int | None = None
            regular = True
            for p, q in enumerate(table):
                if q < 0:
                    continue
                mask |= 1 << p
                if delta is None:
                    delta = q - p
                elif q - p != delta:
                    regular = False
            masks.append(mask)
            if offsets is not None:
                if regular and delta is not None:
                    offsets.append(delta)
                else:
                    offsets = None
        set_(self, "source_masks", tuple(masks))
        set_(self, "offsets", tuple(offsets) if offsets is not None else None)
        adjacent = []
        pairs = []
        targets = []
        for p in range(n):
            adj = 0
            pp = []
            tt = []
            for d, table in enumerate(self.neighbours):
                q = table[p]
                if q < 0:
                    continue
                adj |= 1 << q
                tt.append((d, q))
                r = table[q]
                if r >= 0:
                    pp.append((1 << q, 1 << r))
            adjacent.append(adj)
            pairs.append(tuple(pp))
            targets.append(tuple(tt))
        set_(self, "adjacent", tuple(adjacent))
        set_(self, "capture_pairs", tuple(pairs))
        set_(self, "step_targets", tuple(targets))

    @property
    def size(self) -> int:
        """Number of points."""
        return len(self.point_names)

    @property
    def centre_adjacent(self) -> int:
        """Bitboard of the points next to the centre (the malha)."""
        return self.adjacent[self.centre]

    def shift(self, bb: int, d: int) -> int:
        """Move every point of ``bb`` one step along direction ``d``."""
        if self.offsets is not None:
            k = self.offsets[d]
            bb &= self.source_masks[d]
            return bb << k if k >= 0 else bb >> -k
        return remap(bb, self.neighbours[d])

    def parse_point(self, text: str) -> int:
        """The point named ``text``; ``ValueError`` if there is none."""
        try:
            return self.index[text]
        except KeyError:
            raise ValueError(f"no {place(self.name)} {text!r} on the {self.name} board") from None


def square_grid(n: int) -> Geometry:
    """An ``n`` x ``n`` board with orthogonal directions, ``a1`` at index 0.

    Points are numbered a1, b1, .., then a2, ..: the order of the sensor log.
    Directions: 0 north (up a rank), 1 east, 2 south, 3 west.
    """
    if not 3 <= n <= 9 or n % 2 == 0:
        raise ValueError(f"unsupported board size {n}: odd sizes 3..9 only")
    names = tuple(f"{chr(ord('a') + i % n)}{i // n + 1}" for i in range(n * n))
    north = tuple(i + n if i // n < n - 1 else -1 for i in range(n * n))
    east = tuple(i + 1 if i % n < n - 1 else -1 for i in range(n * n))
    south = tuple(i - n if i // n > 0 else -1 for i in range(n * n))
    west = tuple(i - 1 if i % n > 0 else -1 for i in range(n * n))
    return Geometry(
        name=f"{n}x{n}",
        point_names=names,
        direction_names=("north", "east", "south", "west"),
        neighbours=(north, east, south, west),
        opposite=(2, 3, 0, 1),
        centre=(n * n) // 2,
    )
