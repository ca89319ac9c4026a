"""Precomputed tables of a board for the move generator.

Everything the generator needs about a geometry is computed once per board
(:func:`tables_for`): the whole-board shifts along each direction, each
point's neighbours and capture pairs, and every action that does not
capture as a shared raw tuple with its shared :class:`~.moves.Move`, so
generating moves allocates nothing but the lists that hold them.

The steps of the soldier on point ``p`` are looked up by the set of its
empty neighbours: ``step_raws[p][empty & adjacent[p]]`` (see
:class:`Tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controller.board.geometry import Geometry, points

from .moves import PASS, PLACE, REMOVE, STEP, Move
from .state import Raw

__all__ = ["MoveTable", "Tables", "tables_for"]


class MoveTable(dict[Raw, Move]):
    """The :class:`Move` of each raw action, made once on first use."""

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, raw: Raw) -> Move:
        kind, frm, to, caps, flag = raw
        move = Move(kind, to, frm, bool(caps), flag, self.names)
        self[raw] = move
        return move


@dataclass(frozen=True)
class Tables:
    """The move generator's tables for one geometry (see the module)."""

    geometry: Geometry
    full: int
    # Whole-board shifts: per direction (source mask, left shift, right shift).
    shifts: tuple[tuple[int, int, int], ...]
    adjacent: tuple[int, ...]
    capture_pairs: tuple[tuple[tuple[int, int], ...], ...]
    # The non-capturing steps of the soldier on p onto the empty
    # neighbours ``near``: ``step_raws[p][near]`` by destination point (with
    # ``step_moves`` their moves), ``chain_steps[p][near]`` along the
    # directions in order.
    step_raws: tuple[dict[int, tuple[Raw, ...]], ...]
    step_moves: tuple[dict[int, tuple[Move, ...]], ...]
    chain_steps: tuple[dict[int, tuple[Raw, ...]], ...]
    # The plain and the flagged step of each (from, to) pair, by from point.
    step_raw: tuple[dict[int, Raw], ...]
    flagged_raw: tuple[dict[int, Raw], ...]
    place: tuple[Raw, ...]
    place_moves: tuple[Move, ...]
    remove: tuple[Raw, ...]
    moves: MoveTable
    pass_raw: Raw
    spread: Callable[[int], int]
    """``spread(bb)``: every point next to a point of ``bb``."""
    capture_targets: Callable[[int, int, int], int]
    """``capture_targets(own, enemy, empty)``: the empty points a soldier of
    ``own`` captures by stepping onto (an ``enemy`` soldier next to it with
    an ``own`` one beyond).  Which soldier steps there does not matter: the
    point it leaves is next to the target, never beyond an enemy."""


def _board_functions(
    shifts: tuple[tuple[int, int, int], ...],
) -> tuple[Callable[[int], int], Callable[[int, int, int], int]]:
    """:attr:`Tables.spread` and :attr:`Tables.capture_targets` for a board
    of four directions, unrolled (they run for every generated position)."""
    (m0, l0, r0), (m1, l1, r1), (m2, l2, r2), (m3, l3, r3) = shifts

    def spread(bb: int) -> int:
        return (
            (((bb & m0) << l0) >> r0)
            | (((bb & m1) << l1) >> r1)
            | (((bb & m2) << l2) >> r2)
            | (((bb & m3) << l3) >> r3)
        )

    def capture_targets(own: int, enemy: int, empty: int) -> int:
        # Along each direction: enemies with an own soldier one step on,
        # then the points one step back from those enemies.
        x0 = (((own & m2) << l2) >> r2) & enemy
        x1 = (((own & m3) << l3) >> r3) & enemy
        x2 = (((own & m0) << l0) >> r0) & enemy
        x3 = (((own & m1) << l1) >> r1) & enemy
        return empty & (
            (((x0 & m2) << l2) >> r2)
            | (((x1 & m3) << l3) >> r3)
            | (((x2 & m0) << l0) >> r0)
            | (((x3 & m1) << l1) >> r1)
        )

    return spread, capture_targets


def _make(geometry: Geometry) -> Tables:
    shifts = []
    n = round(geometry.size**0.5)
    if geometry.offsets != (n, 1, -n, -1) or n * n != geometry.size:
        raise ValueError(f"the move generator needs a square grid, not {geometry.name}")
    for mask, k in zip(geometry.source_masks, geometry.offsets, strict=True):
        shifts.append((mask, k, 0) if k >= 0 else (mask, 0, -k))
    moves = MoveTable(geometry.point_names)
    step_raw: dict[tuple[int, int], Raw] = {}
    step_raws, step_moves, chain_steps = [], [], []
    for p in range(geometry.size):
        targets = geometry.step_targets[p]
        for _, q in targets:
            step_raw[p, q] = (STEP, p, q, 0, False)
        by_to: dict[int, tuple[Raw, ...]] = {}
        by_dir: dict[int, tuple[Raw, ...]] = {}
        adj = geometry.adjacent[p]
        subset = adj
        while True:  # every subset of the neighbours
            by_to[subset] = tuple(step_raw[p, q] for q in points(subset))
            by_dir[subset] = tuple(step_raw[p, q] for _, q in targets if subset >> q & 1)
            if not subset:
                break
            subset = (subset - 1) & adj
        step_raws.append(by_to)
        step_moves.append({k: tuple(moves[r] for r in v) for k, v in by_to.items()})
        chain_steps.append(by_dir)
    by_from: list[dict[int, Raw]] = [{} for _ in range(geometry.size)]
    flagged: list[dict[int, Raw]] = [{} for _ in range(geometry.size)]
    for (p, q), raw in step_raw.items():
        by_from[p][q] = raw
        flagged[p][q] = (STEP, p, q, 0, True)
    place = tuple((PLACE, -1, p, 0, False) for p in range(geometry.size))
    remove = tuple((REMOVE, -1, p, 0, False) for p in range(geometry.size))
    spread, capture_targets = _board_functions(tuple(shifts))
    return Tables(
        geometry=geometry,
        full=geometry.full,
        shifts=tuple(shifts),
        adjacent=geometry.adjacent,
        capture_pairs=geometry.capture_pairs,
        step_raws=tuple(step_raws),
        step_moves=tuple(step_moves),
        chain_steps=tuple(chain_steps),
        step_raw=tuple(by_from),
        flagged_raw=tuple(flagged),
        place=place,
        place_moves=tuple(moves[r] for r in place),
        remove=remove,
        moves=moves,
        pass_raw=(PASS, -1, -1, 0, False),
        spread=spread,
        capture_targets=capture_targets,
    )


def tables_for(geometry: Geometry) -> Tables:
    """The tables of ``geometry`` (made once per board)."""
    t = _TABLES.get(geometry.name)
    if t is None or (t.geometry is not geometry and t.geometry != geometry):
        t = _TABLES[geometry.name] = _make(geometry)
    return t


_TABLES: dict[str, Tables] = {}
