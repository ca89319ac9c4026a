"""Shared by the leap-game tests: the Ludii samples and position builders.

Positions are written as lists of points per kind of soldier (``A`` an
Attacker man, ``a`` an Attacker king, ``D``/``d`` the Defender's), so a test
shows only the points that matter.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from controller.rules.leap import LeapGame
from controller.rules.leap_notation import board_rows
from controller.rules.leap_variants import find_leap_variant

LUDII = Path(__file__).resolve().parents[3] / "shared" / "ludii"


def ludii_games(name: str) -> list[dict[str, Any]]:
    """The sample games of ``name`` (skips when shared/ is not beside us)."""
    path = LUDII / f"{name}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path} not found (shared/ sits beside the repository)")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def leap_pos(variant: str, tail: str = "a m - 5", **pieces: str) -> str:
    """A position string of ``variant``: ``A="c3 c4", d="e7"`` and so on
    list the points of each kind of soldier; every other point is empty."""
    g = find_leap_variant(variant).geometry
    where: dict[str, str] = {}
    for ch, squares in pieces.items():
        for sq in squares.split():
            assert sq in g.index, f"no point {sq}"
            assert sq not in where, f"{sq} given twice"
            where[sq] = ch
    rows = ["".join(where.get(g.point_names[p], ".") for p in row) for row in board_rows(g)]
    return f"{'/'.join(rows)} {tail}"


def game_at(variant: str, tail: str = "a m - 5", **pieces: str) -> LeapGame:
    return LeapGame.from_position(variant, leap_pos(variant, tail, **pieces))


def legal(game: LeapGame) -> list[str]:
    """The legal actions of ``game`` in notation, sorted."""
    return sorted(str(m) for m in game.legal_moves())
