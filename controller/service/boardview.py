"""What the page needs to draw a game's board, and the words a player reads.

Every board the service plays (the Kharbga family's 7x7 and 5x5 grids, the
37-point board of Sixteen Soldiers, the 8x8 draughts board) goes to the
page as one plain description: its points with their place in a grid
(``x`` the file, ``y`` the row counted from the top), the lines joining
them where a board has lines to draw, its dark squares, its centre.  The
page draws from this alone, so a new board needs no new page code.
"""

from __future__ import annotations

from typing import Any

from controller.board.geometry import Geometry
from controller.rules import AnyGame, AnyVariant, find_any_variant, game_from_position, new_game

__all__ = [
    "board_view",
    "check_name",
    "kings",
    "make_game",
    "points_of",
    "reason_words",
]

# Why a game ended, in words (the page, the status line and the archive).
REASONS = {
    "all-captured": "all soldiers captured",
    "blocked": "the losing side could not move",
    "blocked-first-turn": "blocked on the first move",
    "no-progress": "no capture for too long",
    "repetition": "the same position three times",
    "barrier": "a barrier neither side can break",
    "turn-limit": "the turn limit was reached",
    "resignation": "resignation",
    "agreement": "a draw agreed",
}


def reason_words(reason: str | None) -> str:
    """A termination code (``all-captured``) as words a player reads."""
    if not reason:
        return ""
    return REASONS.get(reason, reason.replace("-", " "))


def check_name(label: str, value: object) -> str:
    """A player's name: up to 40 printable characters (no control, format
    or bidi-override characters, no quotes: it goes into the record)."""
    import unicodedata

    from .board import RequestError

    if not isinstance(value, str):
        raise RequestError(f"{label} must be a name (text)")
    value = value.strip()
    if len(value) > 40:
        raise RequestError(f"{label} must be at most 40 characters")
    for c in value:
        if c in '"\\' or unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise RequestError(f"{label} must be printable text without quotes or backslashes "
                               f"(U+{ord(c):04X} is not allowed)")
    return value


def make_game(variant: str | AnyVariant, position: str | None = None) -> AnyGame:
    """A game of either rules family at its start or from ``position``;
    ``ValueError`` in one line (an unknown variant, or a position that
    does not fit the variant's board, named)."""
    v = find_any_variant(variant)
    if position is None:
        return new_game(v)
    try:
        return game_from_position(v, position)
    except ValueError as exc:
        board = v.geometry.name
        text = " ".join(str(exc).split())
        if board not in text:
            text = f"{text} (variant {v.name} is played on the {board} board)"
        raise ValueError(text) from None


def points_of(variant: str | AnyVariant) -> int:
    """How many points (sensors) the variant's board has."""
    return int(find_any_variant(variant).geometry.size)


def kings(game: AnyGame) -> list[str]:
    """The points where a king (a crowned soldier) stands."""
    bits = int(getattr(game, "kings", 0) or 0)
    names = game.geometry.point_names
    return [names[i] for i in range(len(names)) if bits >> i & 1]


_VIEWS: dict[str, dict[str, Any]] = {}


def _view(geometry: Geometry) -> dict[str, Any]:
    view = _VIEWS.get(geometry.name)
    if view is None:
        view = _VIEWS[geometry.name] = _make_view(geometry)
    return view


def _make_view(geometry: Geometry) -> dict[str, Any]:
    names = geometry.point_names
    rows = [int(n[1:]) for n in names]
    top = max(rows)
    places = [(n, ord(n[0]) - ord("a"), top - r) for n, r in zip(names, rows, strict=True)]
    grid = geometry.name != "37-point"
    lines: list[list[str]] = []
    if not grid:
        # Each segment once: from a point to its next one along the four
        # directions that point "forwards" (the others are their opposites).
        for d in range(len(geometry.direction_names)):
            if geometry.opposite[d] < d:
                continue
            for i, j in enumerate(geometry.neighbours[d]):
                if j >= 0:
                    lines.append([names[i], names[j]])
    dark = [n for n, x, y in places if (x + (top - 1 - y)) % 2 == 0] \
        if geometry.name == "8x8" else []
    # The malha: the centre of the Kharbga family's boards only.
    centre = names[geometry.centre] if grid and geometry.name != "8x8" else None
    return {
        "name": geometry.name,
        "kind": "grid" if grid else "points",
        "width": max(x for _, x, _ in places) + 1,
        "height": top,
        "points": [list(p) for p in places],
        "lines": lines,
        "dark": dark,
        "centre": centre,
    }


def board_view(game: AnyGame) -> dict[str, Any]:
    """The page's description of ``game``'s board: one shared value per
    board, made once (read it, do not change it; every state carries it,
    and comparing a state with the last one costs nothing for it)."""
    return _view(game.geometry)
