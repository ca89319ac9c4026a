"""A board's ``geometry`` as a state sends it (the board the hall page
draws: points with their places, lines, dark squares), checked before it
is passed on to the pages: a board whose drawing does not hold together
is drawn from its position instead."""

from __future__ import annotations

from typing import Any

from .trust import is_int

__all__ = ["check_position", "checked_geometry"]

MAX_SIDE = 26  # points across a drawn board, at most
MAX_LINES = 400
MAX_POSITION = 2000  # characters of a position string, at most


def check_position(position: str) -> None:
    """A ``ValueError`` unless the pages can draw ``position`` (a moves
    message's or a state's): its board part at most ``MAX_SIDE`` ranks of
    at most ``MAX_SIDE`` points.  A board of 450 ranks of 450 held every
    spectator's browser for seconds a frame."""
    ranks = position.split(" ", 1)[0].split("/") if len(position) <= MAX_POSITION else []
    if not ranks or len(ranks) > MAX_SIDE or any(len(r) > MAX_SIDE for r in ranks):
        raise ValueError(f"a position no board has (more than {MAX_SIDE} ranks or points a "
                         "rank)")


def checked_geometry(g: object) -> dict[str, Any] | None:
    """A state's ``geometry`` (the board the page draws) if it holds
    together: at most ``MAX_SIDE`` points a side, each named once within
    the width and height, lines and dark squares between named points;
    None otherwise (the page then draws a square board from the position)."""
    if not isinstance(g, dict):
        return None
    w, h, points = g.get("width"), g.get("height"), g.get("points")
    if not (g.get("kind") in ("grid", "points") and is_int(w) and is_int(h)
            and 0 < w <= MAX_SIDE and 0 < h <= MAX_SIDE
            and isinstance(points, list) and 0 < len(points) <= w * h):
        return None
    names = set()
    for p in points:
        if not (isinstance(p, list) and len(p) == 3 and isinstance(p[0], str)
                and 0 < len(p[0]) <= 8 and all(is_int(c) for c in p[1:])
                and 0 <= p[1] < w and 0 <= p[2] < h):
            return None
        names.add(p[0])
    lines, dark, centre = g.get("lines", []), g.get("dark", []), g.get("centre")
    if not (isinstance(lines, list) and len(lines) <= MAX_LINES and isinstance(dark, list)
            and all(isinstance(n, str) and n in names for n in dark)
            and (centre is None or centre in names) and len(names) == len(points)):
        return None
    for line in lines:
        if not (isinstance(line, list) and len(line) == 2
                and all(isinstance(n, str) and n in names for n in line)):
            return None
    return g

