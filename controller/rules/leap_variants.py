"""Variants of the leap-capture games (draughts and the 37-point board):
rule options as data, and the move tables each board and variant needs.

A soldier steps to a next point along a line, or captures by leaping over
an adjacent enemy onto the empty point just beyond it on the same line.
See docs/rules-leap.md for each variant's rules and rulings.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cache, cached_property

from controller.board.boards import draughts_board, sixteen_soldiers_board
from controller.board.geometry import Geometry

__all__ = [
    "LEAP_VARIANTS",
    "LeapTables",
    "LeapVariant",
    "find_leap_variant",
    "leap_tables",
    "leaps_for",
    "steps_for",
]

BOARDS = ("37-point", "8x8")
# A raw action (kind, frm, to, captured_mask, flag), as Game's ``Raw``.
RawMove = tuple[str, int, int, int, bool]
ShiftDirection = tuple[int, int, int, tuple[RawMove, ...], tuple[RawMove, ...], int]
_NO_MOVE: RawMove = ("none", -1, -1, 0, False)


@dataclass(frozen=True)
class LeapVariant:
    """The rules of one leap-capture game.

    ``board``
        ``"37-point"`` (Sixteen Soldiers) or ``"8x8"`` (draughts).
    ``men_forward``
        Men step and leap only forwards (towards the opponent's side);
        otherwise along every line.
    ``promotion``
        ``"none"`` (no kings); ``"ends-chain"``: a man reaching the far row
        becomes a king and its turn ends; ``"continues"``: it becomes a king
        at once and, after a capture, goes on capturing as a king.
    ``compulsory_capture``
        Only leaps are legal when the side to move has one.
    ``chain``
        After a capture, while the same soldier can leap again:
        ``"mandatory"`` (it must) or ``"optional"`` (it may, or ``pass``).
    ``huffing``
        A side that could capture at the start of its turn and did not
        loses one of the soldiers that could have, removed by the opponent
        before the opponent's own move.
    ``repetition``
        The third occurrence of a position (same side to move) is a draw.
    ``no_progress_turns``
        Turns in a row without a capture, a huff or a man's move in a
        variant with kings (without a capture or huff otherwise) that end
        the game drawn (0: never).
    ``turn_limit``
        Turns after which the game is drawn (0: none); a guard for random
        games, as the Ludii system has.
    """

    name: str
    board: str
    men_forward: bool = False
    promotion: str = "none"
    compulsory_capture: bool = False
    chain: str = "mandatory"
    huffing: bool = False
    repetition: bool = False
    no_progress_turns: int = 0
    turn_limit: int = 0
    description: str = ""

    @cached_property
    def geometry(self) -> Geometry:
        return sixteen_soldiers_board() if self.board == "37-point" else draughts_board()

    @property
    def kings(self) -> bool:
        """Does a man reaching the far row become a king?"""
        return self.promotion != "none"

    @property
    def pieces_per_side(self) -> int:
        return 16 if self.board == "37-point" else 12

    def with_options(self, **options: object) -> LeapVariant:
        """A copy with some options changed (``chain="mandatory"``, say);
        ``ValueError`` for an unknown option or value."""
        unknown = set(options) - {f.name for f in fields(self)} - {"name"}
        if unknown:
            raise ValueError(f"unknown rule option(s) {', '.join(sorted(unknown))}")
        out = replace(self, **options)  # type: ignore[arg-type]
        if out.board not in BOARDS:
            raise ValueError(f"board {out.board!r}: one of {', '.join(BOARDS)}")
        if out.chain not in ("mandatory", "optional"):
            raise ValueError(f"chain {out.chain!r}: mandatory or optional")
        if out.promotion not in ("none", "ends-chain", "continues"):
            raise ValueError(f"promotion {out.promotion!r}: none, ends-chain or continues")
        if out.promotion != "none" and out.board != "8x8":
            raise ValueError("kings only on the 8x8 board")
        return out


HEWAKAM_KELIYA = LeapVariant(
    name="hewakam-keliya",
    board="37-point",
    compulsory_capture=False,
    chain="optional",
    turn_limit=5000,
    description=("the 37-point board, 16 soldiers a side, as the Ludii system plays it: "
                 "captures by a short leap, captures and chains optional"),
)

SIXTEEN_SOLDIERS = LeapVariant(
    name="sixteen-soldiers",
    board="37-point",
    compulsory_capture=False,
    chain="mandatory",
    huffing=True,
    repetition=True,
    no_progress_turns=100,
    description=("Sixteen Soldiers on the 37-point board, 16 a side: captures by a short "
                 "leap, chains compulsory; a soldier that could capture and did not is huffed"),
)

ENGLISH_DRAUGHTS = LeapVariant(
    name="english-draughts",
    board="8x8",
    men_forward=True,
    promotion="ends-chain",
    compulsory_capture=True,
    chain="mandatory",
    turn_limit=5000,
    description=("English draughts, 8x8, 12 a side: captures and chains compulsory, "
                 "a man crowned on the far row ends its turn"),
)

CHECKERS = LeapVariant(
    name="checkers",
    board="8x8",
    men_forward=True,
    promotion="continues",
    compulsory_capture=False,
    chain="optional",
    repetition=True,
    no_progress_turns=80,
    description=("checkers, 8x8, 12 a side: captures optional, a man crowned in a chain "
                 "goes on capturing as a king"),
)

LEAP_VARIANTS: tuple[LeapVariant, ...] = (
    HEWAKAM_KELIYA,
    SIXTEEN_SOLDIERS,
    ENGLISH_DRAUGHTS,
    CHECKERS,
)
_BY_NAME = {v.name: v for v in LEAP_VARIANTS}


def find_leap_variant(name: str | LeapVariant) -> LeapVariant:
    """The leap variant called ``name``; ``ValueError`` naming the known ones."""
    if isinstance(name, LeapVariant):
        return name
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(_BY_NAME)
        raise ValueError(f"unknown leap variant {name!r} (known: {known})") from None


# Kinds of soldier in the tables: an Attacker man, a Defender man, a king.
KING = 2
_FORWARD = ((7, 0, 1), (3, 4, 5))  # north-west/north/north-east; the south three


@dataclass(frozen=True)
class LeapTables:
    """Precomputed moves.  Index ``[kind][point]`` with kind 0 an Attacker
    man, 1 a Defender man, 2 a king.

    ``steps``: the points a step may go to; ``leaps``: ``(over_bit, to)``
    pairs; ``over[frm]``: leap destination -> bit of the point leapt over;
    ``far_row[side]``: the bitboard where a man of ``side`` is crowned;
    ``start``: the starting bitboards.
    """

    steps: tuple[tuple[tuple[int, ...], ...], ...]
    leaps: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]
    over: tuple[dict[int, int], ...]
    far_row: tuple[int, int]
    start: tuple[int, int]
    # The same moves ready for the generator: ``step_moves[kind][p]`` holds
    # ``(to_bit, raw)``, ``leap_moves[kind][p]`` ``(over_bit, to_bit, raw)``
    # with ``raw`` the action's raw tuple; ``step_mask``/``over_mask`` the
    # union of the ``to_bit``s/``over_bit``s (to skip a soldier at once).
    step_moves: tuple[tuple[tuple[tuple[int, RawMove], ...], ...], ...]
    leap_moves: tuple[tuple[tuple[tuple[int, int, RawMove], ...], ...], ...]
    step_mask: tuple[tuple[int, ...], ...]
    over_mask: tuple[tuple[int, ...], ...]
    # The caches map, per kind and point, the empty points of
    # ``step_mask`` to the tuple of legal steps, and the enemies of
    # ``over_mask`` to the ``(to_bit, raw)`` leaps over them (legal when
    # ``to_bit`` is empty); filled as positions come (:func:`steps_for`,
    # :func:`leaps_for`).
    step_cache: tuple[tuple[dict[int, tuple[RawMove, ...]], ...], ...]
    leap_cache: tuple[tuple[dict[int, tuple[tuple[int, RawMove], ...]], ...], ...]
    size: int
    # Boards whose directions are constant index offsets (8x8) also get,
    # per direction: (offset, points with a neighbour that way, points with
    # a second one, step raw by destination, leap raw by destination, which
    # sides' men use it as a bit mask: 1 Attacker, 2 Defender).
    shifts: tuple[ShiftDirection, ...] | None


def _start(variant: LeapVariant, g: Geometry) -> tuple[int, int]:
    a = d = 0
    for p, name in enumerate(g.point_names):
        file, rank = ord(name[0]) - ord("a"), int(name[1:])
        if variant.board == "37-point":
            a |= (rank <= 4) << p
            d |= (rank >= 6) << p
        elif (file + rank) % 2 == 1:  # dark: file index + rank index even
            a |= (rank <= 3) << p
            d |= (rank >= 6) << p
    return a, d


@cache
def leap_tables(variant: LeapVariant) -> LeapTables:
    """The move tables of ``variant`` (built once per variant)."""
    g = variant.geometry
    n = g.size
    dirs_of = [
        _FORWARD[0] if variant.men_forward else tuple(range(8)),
        _FORWARD[1] if variant.men_forward else tuple(range(8)),
        tuple(range(8)),
    ]
    steps = []
    leaps = []
    for dirs in dirs_of:
        st: list[tuple[int, ...]] = []
        lp: list[tuple[tuple[int, int], ...]] = []
        for p in range(n):
            st.append(tuple(g.neighbours[d][p] for d in dirs if g.neighbours[d][p] >= 0))
            pairs = []
            for d in dirs:
                q = g.neighbours[d][p]
                r = g.neighbours[d][q] if q >= 0 else -1
                if r >= 0:
                    pairs.append((1 << q, r))
            lp.append(tuple(pairs))
        steps.append(tuple(st))
        leaps.append(tuple(lp))
    over = tuple({to: bit for bit, to in leaps[KING][p]} for p in range(n))
    far = [0, 0]
    if variant.kings:
        for p, name in enumerate(g.point_names):
            rank = int(name[1:])
            far[0] |= (rank == 8) << p
            far[1] |= (rank == 1) << p
    step_moves = tuple(
        tuple(tuple((1 << to, ("step", p, to, 0, False)) for to in kind[p]) for p in range(n))
        for kind in steps
    )
    leap_moves = tuple(
        tuple(
            tuple((over, 1 << to, ("step", p, to, over, False)) for over, to in kind[p])
            for p in range(n)
        )
        for kind in leaps
    )
    return LeapTables(
        steps=tuple(steps),
        leaps=tuple(leaps),
        over=over,
        far_row=(far[0], far[1]),
        start=_start(variant, g),
        step_moves=step_moves,
        leap_moves=leap_moves,
        step_mask=tuple(tuple(sum(b for b, _ in m) for m in kind) for kind in step_moves),
        over_mask=tuple(tuple(sum(b for b, _, _ in m) for m in kind) for kind in leap_moves),
        step_cache=tuple(tuple({} for _ in range(n)) for _ in range(3)),
        leap_cache=tuple(tuple({} for _ in range(n)) for _ in range(3)),
        size=n,
        shifts=_shifts(g, dirs_of),
    )


def _shifts(g: Geometry, dirs_of: list[tuple[int, ...]]) -> tuple[ShiftDirection, ...] | None:
    """The per-direction shift tables, or None if a direction is irregular."""
    n = g.size
    out = []
    for d, table in enumerate(g.neighbours):
        offsets = {q - p for p, q in enumerate(table) if q >= 0}
        if not offsets:
            continue
        if len(offsets) != 1:
            return None
        off = offsets.pop()
        one = sum(1 << p for p in range(n) if table[p] >= 0)
        two = sum(1 << p for p in range(n) if table[p] >= 0 and table[table[p]] >= 0)
        step_raw = [_NO_MOVE] * n
        leap_raw = [_NO_MOVE] * n
        for p in range(n):
            q = table[p]
            if q >= 0:
                step_raw[q] = ("step", p, q, 0, False)
                if table[q] >= 0:
                    leap_raw[table[q]] = ("step", p, table[q], 1 << q, False)
        men_sides = (d in dirs_of[0]) | (d in dirs_of[1]) << 1
        out.append((off, one, two, tuple(step_raw), tuple(leap_raw), men_sides))
    return tuple(out)


def steps_for(t: LeapTables, kind: int, p: int, empty: int) -> tuple[RawMove, ...]:
    """The steps of a soldier of ``kind`` on ``p`` given the empty points
    ``empty`` (masked by ``step_mask``); cached."""
    found = tuple(raw for bit, raw in t.step_moves[kind][p] if empty & bit)
    t.step_cache[kind][p][empty] = found
    return found


def leaps_for(t: LeapTables, kind: int, p: int, enemy: int) -> tuple[tuple[int, RawMove], ...]:
    """The ``(to_bit, raw)`` leaps of a soldier of ``kind`` on ``p`` over
    the enemies ``enemy`` (masked by ``over_mask``); cached."""
    found = tuple((to, raw) for over, to, raw in t.leap_moves[kind][p] if enemy & over)
    t.leap_cache[kind][p][enemy] = found
    return found
