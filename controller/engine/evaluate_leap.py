"""Static evaluation of the leap-capture games (draughts, Sixteen Soldiers).

Scores are in hundredths of a man, from the point of view of the side to
move, built from the bitboards of a
:class:`~controller.rules.leap.LeapGame` and the variant's move tables:

- material: 100 a man, :data:`KING_VALUE` a king;
- advancement (variants with kings): a man gains :data:`ADVANCE` a row
  towards the row where it is crowned; men on their own back row guard it
  (:data:`GUARD` each) while the opponent has no king;
- mobility: :data:`MOBILITY` a step available (a blocked side loses);
- threats: :data:`THREAT` for each enemy soldier that has a leap;
- a huff owed: the side to move removes one enemy soldier first
  (:data:`MAN` for it);
- the endgame: with few soldiers left, the side ahead gains for every trade
  and for its soldiers' closeness to the enemy's (to hunt down the last
  ones before a draw by repetition or a turn limit).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from controller.rules.leap import LeapGame
from controller.rules.leap_generate import can_leap
from controller.rules.leap_variants import KING, LeapVariant, leap_tables

__all__ = ["LeapMasks", "leap_masks", "evaluate_leap", "MAN", "KING_VALUE"]

MAN = 100
KING_VALUE = 250
ADVANCE = 6
GUARD = 10
MOBILITY = 3
THREAT = 25
ENDGAME = 10
"""Soldiers on the board, both sides, from which the endgame terms apply."""


@dataclass(frozen=True)
class LeapMasks:
    """What the evaluation needs of a leap variant's board."""

    full: int
    has_kings: bool
    # advance[side][point]: the bonus of a man of ``side`` on ``point``
    advance: tuple[tuple[int, ...], tuple[int, ...]]
    back: tuple[int, int]
    coords: tuple[tuple[int, int], ...]
    # step_mask[kind][point] (kind 0/1 a man of that side, 2 a king)
    step_mask: tuple[tuple[int, ...], ...]


def _coords(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:])


@cache
def leap_masks(variant: LeapVariant) -> LeapMasks:
    t = leap_tables(variant)
    g = variant.geometry
    coords = tuple(_coords(n) for n in g.point_names)
    has_kings = variant.promotion != "none"
    advance: list[tuple[int, ...]] = []
    back: list[int] = []
    for side in (0, 1):
        far = t.far_row[side]
        far_rows = {coords[p][1] for p in range(g.size) if far >> p & 1}
        rows = [r for _, r in coords]
        if not has_kings or not far_rows:
            advance.append(tuple(0 for _ in range(g.size)))
            back.append(0)
            continue
        target = far_rows.pop()
        home = min(rows) if target == max(rows) else max(rows)
        advance.append(tuple(ADVANCE * abs(r - home) for r in rows))
        back.append(sum(1 << p for p in range(g.size) if rows[p] == home))
    return LeapMasks(
        full=g.full,
        has_kings=has_kings,
        advance=(advance[0], advance[1]),
        back=(back[0], back[1]),
        coords=coords,
        step_mask=t.step_mask,
    )


def _side_score(m: LeapMasks, side: int, own: int, kings: int, empty: int) -> int:
    """Material, advancement and mobility of one side."""
    adv = m.advance[side]
    steps = m.step_mask
    score = 0
    mob = 0
    pieces = own
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        p = low.bit_length() - 1
        if kings & low:
            score += KING_VALUE
            mob += (steps[KING][p] & empty).bit_count()
        else:
            score += MAN + adv[p]
            mob += (steps[side][p] & empty).bit_count()
    return score + MOBILITY * mob


def _hunt(m: LeapMasks, hunters: int, prey: int) -> int:
    """The sum over ``hunters`` of the distance to the nearest of ``prey``."""
    c = m.coords
    prey_at = [c[p] for p in range(len(c)) if prey >> p & 1]
    total = 0
    while hunters:
        low = hunters & -hunters
        hunters ^= low
        x, y = c[low.bit_length() - 1]
        total += min(max(abs(x - px), abs(y - py)) for px, py in prey_at)
    return total


def evaluate_leap(game: LeapGame) -> int:
    """The static score of ``game`` for its side to move."""
    v = game.variant
    m = leap_masks(v)
    t = leap_tables(v)
    side = game.side
    bb = game.bitboards()
    own, opp = bb[side], bb[1 - side]
    kings = game.kings
    empty = m.full & ~(own | opp)
    score = _side_score(m, side, own, kings, empty) - _side_score(m, 1 - side, opp, kings, empty)
    if m.has_kings:
        if not opp & kings:
            score += GUARD * (own & m.back[side] & ~kings).bit_count()
        if not own & kings:
            score -= GUARD * (opp & m.back[1 - side] & ~kings).bit_count()
    if game.huff:
        score += MAN
    elif game.chain_point < 0:
        score -= THREAT * can_leap(t, opp, 1 - side, kings, own, empty).bit_count()
    n_own, n_opp = own.bit_count(), opp.bit_count()
    if n_own + n_opp <= ENDGAME and n_own != n_opp and own and opp:
        ahead = n_own > n_opp
        strong, weak = (own, opp) if ahead else (opp, own)
        bonus = 8 * (2 * ENDGAME - n_own - n_opp) - 4 * _hunt(m, strong, weak)
        score += bonus if ahead else -bonus
    return score
