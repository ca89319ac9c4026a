"""Move generation of the leap games, from the tables of
:mod:`.leap_variants`: pure functions of bitboards returning raw actions.

Two generators give the same moves: one soldier at a time, from per-point
caches (any board), and one direction at a time, shifting whole bitboards
(boards whose directions are constant index offsets: the 8x8 board).
"""

from __future__ import annotations

from .leap_variants import KING, LeapTables, RawMove, leaps_for, steps_for

__all__ = ["can_leap", "generate", "has_move", "leaps_at"]


def leaps_at(t: LeapTables, kind: int, p: int, enemy: int, empty: int) -> tuple[RawMove, ...]:
    """The leaps of a soldier of ``kind`` (0/1 a man of that side, 2 a
    king) on ``p``."""
    over = enemy & t.over_mask[kind][p]
    if not over:
        return ()
    found = t.leap_cache[kind][p].get(over)
    if found is None:
        found = leaps_for(t, kind, p, over)
    return tuple(raw for to_bit, raw in found if empty & to_bit)


def can_leap(t: LeapTables, pieces: int, side: int, kings: int, enemy: int, empty: int) -> int:
    """The soldiers among ``pieces`` (of ``side``) that have a leap."""
    found = 0
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        kind = KING if kings & low else side
        if leaps_at(t, kind, low.bit_length() - 1, enemy, empty):
            found |= low
    return found


def has_move(t: LeapTables, side: int, own: int, enemy: int, kings: int, full: int) -> bool:
    """Does ``side`` have a step or a leap?"""
    empty = full & ~(own | enemy)
    mask = t.step_mask
    pieces = own
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        if mask[KING if kings & low else side][low.bit_length() - 1] & empty:
            return True
    return bool(can_leap(t, own, side, kings, enemy, empty))


def generate(
    t: LeapTables, side: int, own: int, enemy: int, kings: int, empty: int, compulsory: bool
) -> list[RawMove]:
    """Every step and leap of ``side``: the leaps first; only the leaps if
    ``compulsory`` and there are any."""
    if t.shifts is not None:
        return _generate_shifted(t, side, own, enemy, kings, empty, compulsory)
    over_mask, step_mask = t.over_mask, t.step_mask
    leap_cache, step_cache = t.leap_cache, t.step_cache
    leaps: list[RawMove] = []
    steps: list[RawMove] = []
    while own:
        low = own & -own
        own ^= low
        p = low.bit_length() - 1
        kind = KING if kings & low else side
        over = enemy & over_mask[kind][p]
        if over:
            found_leaps = leap_cache[kind][p].get(over)
            if found_leaps is None:
                found_leaps = leaps_for(t, kind, p, over)
            for to_bit, raw in found_leaps:
                if empty & to_bit:
                    leaps.append(raw)
        key = empty & step_mask[kind][p]
        found = step_cache[kind][p].get(key)
        if found is None:
            found = steps_for(t, kind, p, key)
        steps += found
    if leaps and compulsory:
        return leaps
    leaps += steps
    return leaps


def _generate_shifted(
    t: LeapTables, side: int, own: int, enemy: int, kings: int, empty: int, compulsory: bool
) -> list[RawMove]:
    assert t.shifts is not None
    men = own & ~kings
    own_kings = own & kings
    side_bit = 1 << side
    leaps: list[RawMove] = []
    steps: list[RawMove] = []
    for off, one, two, step_raw, leap_raw, men_sides in t.shifts:
        movers = own_kings | men if men_sides & side_bit else own_kings
        if not movers:
            continue
        if off > 0:
            land = ((movers & two) << off & enemy) << off & empty
            targets = (movers & one) << off & empty
        else:
            land = ((movers & two) >> -off & enemy) >> -off & empty
            targets = (movers & one) >> -off & empty
        while land:
            low = land & -land
            land ^= low
            leaps.append(leap_raw[low.bit_length() - 1])
        while targets:
            low = targets & -targets
            targets ^= low
            steps.append(step_raw[low.bit_length() - 1])
    if leaps and compulsory:
        return leaps
    leaps += steps
    return leaps
