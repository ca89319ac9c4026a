"""The doctor's ghost test: which switches to close so that a missing diode shows.

With two switches closed in a row and two in a column, a switch whose
diode is missing lets current run backwards through it, and a switch
with no piece on it reads closed: a *ghost*.  :func:`ghost_patterns`
gives such patterns for a square matrix (pairs of diagonals),
:func:`matrix_ghost_patterns` for any board's matrix (cut to the
crossings that have a switch), and :func:`ghost_suspects` names the
switches whose diode may be missing for a ghost seen.  Pure functions of
the matrix; :func:`controller.drivers.doctor.check_ghosting` asks for
the pieces and reads the switches.
"""

from __future__ import annotations

from .mapping import BoardMapping

__all__ = ["ghost_patterns", "ghost_suspects", "matrix_ghost_patterns"]


def ghost_patterns(size: int = 7) -> list[list[int]]:
    """Switch patterns with two closed switches in every row and column
    (diagonals ``k`` and ``k + 1``), covering every switch: under each, a
    missing diode at any of its switches shows as a ghost."""
    out = []
    for k in range(0, size, 2):
        cells = set()
        for r in range(size):
            cells.add(r * size + (r + k) % size)
            cells.add(r * size + (r + k + 1) % size)
        out.append(sorted(cells))
    return out


def ghost_suspects(size: int, pattern: set[int], ghost: int) -> tuple[int, ...]:
    """Closed switches (r, c) with (s, c) and (r, d) closed, for the ghost
    at (s, d): the current path runs through (r, c) backwards (``size``:
    the matrix's columns)."""
    s, d = divmod(ghost, size)
    out = []
    for sw in sorted(pattern):
        r, c = divmod(sw, size)
        if r != s and c != d and s * size + c in pattern and r * size + d in pattern:
            out.append(sw)
    return tuple(out)


def _exposed(columns: int, pattern: set[int]) -> set[int]:
    """The switches of ``pattern`` whose missing diode shows as a ghost
    under it: some (s, c) and (r, d) closed with (s, d) open."""
    out = set()
    for sw in pattern:
        r, c = divmod(sw, columns)
        for other in pattern:
            s, d0 = divmod(other, columns)
            if d0 != c or s == r:
                continue
            if any(x // columns == r and x % columns != c
                   and s * columns + x % columns not in pattern for x in pattern):
                out.add(sw)
                break
    return out


def matrix_ghost_patterns(mapping: BoardMapping) -> list[list[int]]:
    """Ghost patterns for the mapping's matrix: the square board's
    diagonals; on another matrix, pairs of diagonals wrapped around its
    columns, cut to the crossings that have a switch, chosen greedily
    while one exposes switches not exposed before."""
    rows, columns = mapping.rows, mapping.columns
    if mapping.size and rows == columns == mapping.size and len(mapping.sensed) == rows * rows:
        return ghost_patterns(rows)
    usable = {i for i in range(rows * columns) if mapping.square_of_switch_index(i) >= 0}
    candidates = []
    for k in range(columns):
        for gap in range(1, columns):
            pattern = {r * columns + (r + j) % columns for r in range(rows) for j in (k, k + gap)}
            pattern &= usable
            candidates.append((sorted(pattern), _exposed(columns, pattern)))
    out: list[list[int]] = []
    covered: set[int] = set()
    while True:
        best, shows = max(candidates, key=lambda c: len(c[1] - covered))
        if not shows - covered:
            return out
        covered |= shows
        out.append(best)
