"""The leap games against a plain, slow reading of the rules, written here
from the geometry alone (no tables, no caches, no shifts): at every
decision of random games of every variant, the same legal actions; after
every capture the same decision whether the chain goes on; after every
step that could have captured and did not, the same soldiers to huff."""

from __future__ import annotations

import random

import pytest

from controller.board.geometry import Geometry
from controller.rules.leap import LeapGame
from controller.rules.leap_variants import LEAP_VARIANTS, LeapVariant

FORWARD = ({"north", "north-east", "north-west"}, {"south", "south-east", "south-west"})


def _directions(v: LeapVariant, g: Geometry, side: int, king: bool) -> list[int]:
    names = g.direction_names
    if king or not v.men_forward:
        return list(range(len(names)))
    return [d for d, name in enumerate(names) if name in FORWARD[side]]


def _leaps(game: LeapGame, p: int) -> list[str]:
    g, v, side = game.geometry, game.variant, game.side
    owner = {q: s for s in (0, 1) for q in range(g.size) if game.bitboards()[s] >> q & 1}
    out = []
    for d in _directions(v, g, side, game.is_king(p)):
        over = g.neighbours[d][p]
        land = g.neighbours[d][over] if over >= 0 else -1
        if land >= 0 and owner.get(over) == 1 - side and land not in owner:
            out.append(f"{g.point_names[p]}x{g.point_names[land]}")
    return out


def _steps(game: LeapGame, p: int) -> list[str]:
    g, side = game.geometry, game.side
    occupied = game.bitboards()[0] | game.bitboards()[1]
    out = []
    for d in _directions(game.variant, g, side, game.is_king(p)):
        q = g.neighbours[d][p]
        if q >= 0 and not occupied >> q & 1:
            out.append(f"{g.point_names[p]}-{g.point_names[q]}")
    return out


def expected_legal(game: LeapGame) -> list[str]:
    g, v = game.geometry, game.variant
    if game.huff:
        return sorted(f"x{g.point_names[p]}" for p in range(g.size) if game.huff >> p & 1)
    if game.chain_point >= 0:
        return sorted(_leaps(game, game.chain_point) + (["pass"] if v.chain == "optional" else []))
    own = [p for p in range(g.size) if game.bitboards()[game.side] >> p & 1]
    leaps = [m for p in own for m in _leaps(game, p)]
    if leaps and v.compulsory_capture:
        return sorted(leaps)
    return sorted(leaps + [m for p in own for m in _steps(game, p)])


@pytest.mark.parametrize("variant", [v.name for v in LEAP_VARIANTS])
def test_random_games_agree_with_the_plain_reading(variant: str) -> None:
    rng = random.Random(variant)
    chains = decisions = huffs = 0
    for _ in range(8):
        game = LeapGame.new(variant)
        while game.outcome is None:
            legal = sorted(str(m) for m in game.legal_moves())
            assert legal == expected_legal(game), game.position()
            decisions += 1
            move = game.legal_moves()[rng.randrange(len(legal))]
            mover = game.side
            crowns = (move.kind == "step" and game.variant.kings
                      and not game.is_king(move.frm)
                      and int(game.geometry.point_names[move.to][1]) == (8 if mover == 0 else 1))
            could = set()
            if game.variant.huffing and game.chain_point < 0 and not game.huff:
                own = game.bitboards()[mover]
                could = {p for p in range(game.geometry.size) if own >> p & 1 and _leaps(game, p)}
            game.play(move)
            if move.kind == "step" and not move.capture and game.outcome is None:
                if move.frm in could:
                    could = (could - {move.frm}) | {move.to}
                huffs += bool(could)
                assert {p for p in range(game.geometry.size) if game.huff >> p & 1} == could
            else:  # a capture, a huff taken, a pass, an end: no soldier left to huff
                assert game.huff == 0, (str(move), game.position())
            if move.kind != "step" or not move.capture or game.outcome is not None:
                continue
            stops = crowns and game.variant.promotion == "ends-chain"
            again = not stops and game.side == mover and bool(_leaps(game, move.to))
            assert (game.chain_point == move.to) == again, game.position()
            assert game.side == (mover if again else 1 - mover), game.position()
            chains += again
    assert decisions > 300
    assert chains > 0 or variant == "sixteen-soldiers"
    assert (huffs > 0) == (variant == "sixteen-soldiers")
