"""The boards of the leap games: the 37-point board checked against every
step and leap of Ludii's Hewakam Keliya samples, and the 8x8 board."""

from __future__ import annotations

from leap_helpers import ludii_games

from controller.board.boards import (
    COMPASS,
    SIXTEEN_SOLDIERS_LINES,
    draughts_board,
    sixteen_soldiers_board,
)
from controller.board.geometry import Geometry


def _line_between(g: Geometry, a: int, b: int) -> tuple[int, int] | None:
    """(direction, steps) when ``b`` lies 1 or 2 steps from ``a`` along a line."""
    for d, table in enumerate(g.neighbours):
        q = table[a]
        if q == b:
            return d, 1
        if q >= 0 and table[q] == b:
            return d, 2
    return None


def test_the_37_point_board() -> None:
    g = sixteen_soldiers_board()
    assert g.size == 37
    assert g.name == "37-point"
    assert g.direction_names == COMPASS
    assert g.point_names[g.centre] == "c5"
    rows = {}
    for name in g.point_names:
        rows.setdefault(int(name[1]), []).append(name[0])
    assert rows == {1: list("ace"), 2: list("bcd"), **{r: list("abcde") for r in range(3, 8)},
                    8: list("bcd"), 9: list("ace")}
    # A triangle's wide row: a1 east is c1, then e1; its spokes meet at c3.
    e, ne, nw = COMPASS.index("east"), COMPASS.index("north-east"), COMPASS.index("north-west")
    ix = g.index
    assert g.neighbours[e][ix["a1"]] == ix["c1"]
    assert g.neighbours[ne][ix["a1"]] == ix["b2"]
    assert g.neighbours[ne][ix["b2"]] == ix["c3"]
    assert g.neighbours[nw][ix["e1"]] == ix["d2"]
    # The alquerque pattern: c4 has no diagonal, b4 has all eight;
    # b3, on the edge beside the triangle, joins neither b2 nor c2.
    assert sum(t[ix["c4"]] >= 0 for t in g.neighbours) == 4
    assert sum(t[ix["b3"]] >= 0 for t in g.neighbours) == 3
    assert sum(t[ix["b4"]] >= 0 for t in g.neighbours) == 8
    assert all(g.neighbours[g.opposite[d]][g.neighbours[d][p]] == p
               for d in range(8) for p in range(37) if g.neighbours[d][p] >= 0)
    assert len(SIXTEEN_SOLDIERS_LINES) == 20


def test_every_ludii_step_and_leap_lies_along_a_line() -> None:
    g = sixteen_soldiers_board()
    ix = g.index
    seen_steps: set[tuple[int, int]] = set()
    seen_leaps: set[tuple[int, int]] = set()
    for record in ludii_games("hewakam-keliya"):
        for step in record["steps"]:
            for move in step["legal"]:
                if move == "pass":
                    continue
                a, b = (ix[x.lower()] for x in move.split("-"))
                line = _line_between(g, a, b)
                assert line is not None, move
                (seen_steps if line[1] == 1 else seen_leaps).add((a, b))
            if step["captured"]:
                a, b = (ix[x.lower()] for x in step["move"].split("-"))
                line = _line_between(g, a, b)
                assert line is not None and line[1] == 2, step["move"]
                over = g.neighbours[line[0]][a]
                assert [g.point_names[over].upper()] == step["captured"]
    # The samples use nearly every line segment of the board.
    segments = sum(t[p] >= 0 for t in g.neighbours for p in range(37))
    assert len(seen_steps) > 0.9 * segments
    assert len(seen_leaps) > 80


def test_the_draughts_board() -> None:
    g = draughts_board()
    assert g.size == 64
    assert g.point_names[0] == "a1" and g.point_names[63] == "h8"
    ix = g.index
    dark = [p for p in range(64) if any(t[p] >= 0 for t in g.neighbours)]
    assert len(dark) == 32
    assert ix["a1"] in dark and ix["h1"] not in dark and ix["h8"] in dark
    ne = COMPASS.index("north-east")
    assert g.neighbours[ne][ix["g3"]] == ix["h4"]
    assert g.neighbours[ne][ix["h4"]] == -1
    assert all(g.neighbours[d][p] == -1 for d in (0, 2, 4, 6) for p in range(64))


def test_ludii_draughts_moves_are_diagonal_steps_and_leaps() -> None:
    g = draughts_board()
    ix = g.index
    for record in ludii_games("english-draughts"):
        for step in record["steps"]:
            for move in step["legal"]:
                a, b = (ix[x.lower()] for x in move.split("-"))
                assert _line_between(g, a, b) is not None, move
