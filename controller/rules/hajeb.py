"""H'ajeb (seed 003, the rule option ``hajeb`` of ``sabouiyya``).

The Defender, when its soldiers form a blockade that cannot be taken,
declares H'ajeb (the action ``hajeb``).  While it is in force the
Attacker moves any distance orthogonally or diagonally over empty points
and, after a capture, may go on capturing with any of its soldiers (or
``pass``).  The Defender may rescind it (``rescind``) at any time.  When
the Attacker, at the start of one of its turns under H'ajeb, can capture
nothing, H'ajeb ends: the Defender removes two Attacker soldiers, the
Attacker one Defender soldier able to move, and the Attacker plays on
under the ordinary rules.  The rulings are in ``docs/rules.md``.

These functions work on a :class:`~.core.Core`'s state; the core calls
them where its flow meets H'ajeb.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from controller.board.geometry import Geometry, points

from .moves import ATTACKER, DEFENDER, STEP, Move, Termination
from .state import Raw

if TYPE_CHECKING:
    from .core import Core

__all__ = [
    "ENDING",
    "IN_FORCE",
    "OFF",
    "STATE_WORDS",
    "blockade",
    "can_capture",
    "declare_refusal",
    "rescind_refusal",
]

OFF, IN_FORCE, ENDING = 0, 1, 2
STATE_WORDS = ("off", "on", "end")  # as the position string writes them

Rays = tuple[tuple[tuple[int, ...], ...], ...]
_RAYS: dict[str, Rays] = {}
_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def rays(geometry: Geometry) -> Rays:
    """Per point, the points along each of the eight directions, nearest
    first (square grids: ``n`` points a rank, ``a1`` = 0)."""
    found = _RAYS.get(geometry.name)
    if found is None:
        n = round(geometry.size**0.5)
        per_point = []
        for p in range(geometry.size):
            f0, r0 = p % n, p // n
            out = []
            for df, dr in _DIRECTIONS:
                ray = []
                f, r = f0 + df, r0 + dr
                while 0 <= f < n and 0 <= r < n:
                    ray.append(r * n + f)
                    f, r = f + df, r + dr
                if ray:
                    out.append(tuple(ray))
            per_point.append(tuple(out))
        found = _RAYS[geometry.name] = tuple(per_point)
    return found


# ----------------------------------------------------------------------
# The blockade


def _reach(core: Core, a: int, d: int) -> int:
    """The Attacker's soldiers and every empty point they can ever reach
    by ordinary steps while the Defender's soldiers stand."""
    t = core._t
    empty = t.full & ~(a | d)
    reach = a
    while True:
        more = t.spread(reach) & empty & ~reach
        if not more:
            return reach
        reach |= more


def _all_safe(core: Core, d: int, reach: int) -> bool:
    """Can no Defender soldier ever be sandwiched: on each line through it,
    is one neighbour off the board or a point the Attacker cannot reach?"""
    n = round(core.geometry.size**0.5)
    for p in points(d):
        f, r = p % n, p // n
        if 0 < r < n - 1 and reach >> (p + n) & 1 and reach >> (p - n) & 1:
            return False
        if 0 < f < n - 1 and reach >> (p + 1) & 1 and reach >> (p - 1) & 1:
            return False
    return True


def blockade(core: Core) -> bool:
    """Does the Defender hold a blockade that cannot be taken?  Every one
    of its soldiers is safe (see :func:`_all_safe`), and one of them can
    step inside the blockade (onto a point the Attacker cannot reach,
    leaving one it cannot reach either) with every soldier still safe, so
    that it can step back and forth for ever."""
    a, d = core._bb
    t = core._t
    reach = _reach(core, a, d)
    if not _all_safe(core, d, reach):
        return False
    empty = t.full & ~(a | d)
    for p in points(d):
        if t.adjacent[p] & reach:
            continue  # the point it leaves would open to the Attacker
        for q in points(t.adjacent[p] & empty & ~reach):
            if _all_safe(core, d ^ (1 << p) ^ (1 << q), reach):
                return True
    return False


# ----------------------------------------------------------------------
# The Attacker's moves under H'ajeb


def _slides(core: Core, soldiers: int, occupied: int) -> Iterator[tuple[int, int]]:
    """(from, to) for each of the soldiers and each point it can reach along
    one of the eight directions over empty points, nearest first."""
    all_rays = rays(core.geometry)
    for p in points(soldiers):
        for ray in all_rays[p]:
            for q in ray:
                if occupied >> q & 1:
                    break
                yield p, q


def gen_long_moves(core: Core, raws: list[Raw], moves: list[Move]) -> None:
    """The Attacker's moves any distance along the eight directions over
    empty points, by from point, direction and distance; after a capture
    (``chain`` set) only capturing ones, by any soldier, and ``pass``."""
    t = core._t
    bb = core._bb
    occupied = bb[0] | bb[1]
    continuing = core._chain >= 0
    table, mt = t.step_raw, t.moves
    for p, q in _slides(core, bb[ATTACKER], occupied):
        caps = core._captures(ATTACKER, p, q)
        if caps:
            raw: Raw = (STEP, p, q, caps, False)
        elif continuing:
            continue
        else:
            raw = table[p].get(q) or (STEP, p, q, 0, False)
        raws.append(raw)
        moves.append(mt[raw])
    if continuing:
        raws.append(t.pass_raw)
        moves.append(mt[t.pass_raw])


def can_capture(core: Core) -> bool:
    """Has the Attacker a capturing move under H'ajeb?"""
    t = core._t
    bb = core._bb
    own, occupied = bb[ATTACKER], bb[0] | bb[1]
    targets = t.capture_targets(own, bb[DEFENDER] & core._enemy_mask, t.full ^ occupied)
    if not targets:
        return False
    return any(targets >> q & 1 for _, q in _slides(core, own, occupied))


# ----------------------------------------------------------------------
# Declaring, rescinding, and the end


def declare_refusal(core: Core) -> str | None:
    """Why the Defender may not declare H'ajeb now (None: it may)."""
    if not core.variant.hajeb:
        return f"not a rule of {core.variant.name} here (rule option hajeb=true)"
    if core._outcome is not None:
        return "the game is over"
    if core._setting:
        return "it is declared in the moving phase, not while setting"
    if core._hajeb == IN_FORCE:
        return "it is already declared"
    if core._hajeb == ENDING or core._removals:
        return "pieces are being removed"
    if core._side != DEFENDER:
        return "only the Defender declares H'ajeb, on its own turn"
    if core._chain >= 0:
        return "not in the middle of a capture chain"
    if not blockade(core):
        return (
            "the Defender has no blockade that cannot be taken (every soldier safe, "
            "and one able to move inside it for ever)"
        )
    return None


def rescind_refusal(core: Core) -> str | None:
    """Why the Defender may not rescind H'ajeb now (None: it may)."""
    if not core.variant.hajeb:
        return f"not a rule of {core.variant.name} here (rule option hajeb=true)"
    if core._outcome is not None:
        return "the game is over"
    if core._hajeb == OFF:
        return "H'ajeb is not declared"
    if core._hajeb == ENDING:
        return "too late: the Attacker could capture no more and the removals are owed"
    return None


def declare(core: Core) -> None:
    """The declaration: it takes the Defender's turn."""
    core._hajeb = IN_FORCE
    core._end_turn()


def rescind(core: Core) -> None:
    """Rescinding: the side to move stays, except that an Attacker's
    turn of captures in progress ends at once; an Attacker about to move
    moves under the ordinary rules (blocked, the variant's rule applies)."""
    core._hajeb = OFF
    if core._side != ATTACKER:
        return
    if core._chain >= 0:
        core._end_turn()
    else:
        core._start_turn(mover=DEFENDER)


def begin_end(core: Core) -> None:
    """The Attacker can capture no more: the removals begin, the Defender
    first (two), then the Attacker (one), then the Attacker plays."""
    core._hajeb = ENDING
    core._removals = (DEFENDER, DEFENDER, ATTACKER)
    core._resume = ATTACKER
    core._side = DEFENDER


def gen_removals(core: Core, raws: list[Raw], moves: list[Move]) -> None:
    """At the end of H'ajeb: the Defender removes any Attacker soldier; the
    Attacker a Defender soldier able to step (any, if none can)."""
    t = core._t
    bb = core._bb
    side = core._side
    enemy = bb[1 - side]
    choices = enemy
    if side == ATTACKER:
        movable = enemy & t.spread(t.full ^ (bb[0] | bb[1]))
        choices = movable or enemy
    for p in points(choices):
        raws.append(t.remove[p])
        moves.append(t.moves[t.remove[p]])


def remove(core: Core, to: int) -> None:
    """One removal at the end of H'ajeb, counted as removed (``off=``'s
    ``RA``/``RD``, not a capture): a turn of the record that the turn count
    does not count, as a blocked side's removal (record.first_turn)."""
    side = core._side
    owner = 1 - side
    core._bb[owner] &= ~(1 << to)
    core._add_off(owner, 2, 1)
    if not core._bb[owner]:
        core._finish(side, Termination.ALL_CAPTURED)
        return
    core._removals = core._removals[1:]
    if core._removals:
        core._side = core._removals[0]
        return
    core._side = core._resume
    core._resume = -1
    core._hajeb = OFF
    core._noprog = 0
    core._start_turn(mover=1 - core._side)
    core._count_position()
