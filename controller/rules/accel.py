"""The compiled rules core, when it is built, behind the pure core's
interface.

:class:`CompiledCore` keeps a game's state, undo stack and repetition
counts in C (``controller/rules/_ccore.c``) and offers the attributes and
methods :class:`~.game.Game` uses of :class:`~.core.Core`, with the same
legal actions in the same order.  Raw tuples and :class:`~.moves.Move`
objects appear only at this edge: they are the shared objects of
:mod:`.tables`, handed to C once per game.

:func:`core_class` picks the core for a variant: the compiled one when the
extension was built, the board fits in 64 bits, the variant has no
H'ajeb (the rule option ``hajeb``, which only the pure core plays) and
the environment variable ``KHARBGA_PURE`` is not ``1``; else the pure
:class:`~.core.Core`.
See docs/core.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, overload

from .core import Core, Entry
from .moves import PASS, PLACE, REMOVE, SIDE_NAMES, STEP, Outcome, Termination
from .state import Exchange, Raw, State
from .tables import Tables, tables_for
from .variants import Variant, find_variant

if TYPE_CHECKING:
    from . import _ccore
else:
    try:
        from . import _ccore
    except ImportError:  # not built: no compiler or headers at install time
        _ccore = None

__all__ = ["AVAILABLE", "CompiledCore", "compiled", "core_class", "pure_requested"]

AVAILABLE: bool = _ccore is not None
"""Is the compiled core built and importable?"""

REASONS: tuple[Termination, ...] = tuple(Termination)
_SETTING = ("open-first-move", "first-piece-adjacent", "free")
_BLOCKED = ("lose", "move-again", "reopen", "remove")
_EDGES: dict[str, tuple[object, ...]] = {}


def pure_requested() -> bool:
    """Has the environment asked for the pure-Python core (``KHARBGA_PURE=1``)?"""
    return os.environ.get("KHARBGA_PURE", "") == "1"


# Does the pure core's State (and undo entry) carry an H'ajeb field?
_HAJEB_FIELD = "hajeb" in State.__dataclass_fields__


def fits(variant: Variant) -> bool:
    """Can the compiled core play this variant: a board of at most 64
    points, and no H'ajeb declaration (which only the pure core knows)?"""
    return variant.geometry.size <= 64 and not getattr(variant, "hajeb", False)


def compiled(variant: str | Variant) -> bool:
    """Does :func:`core_class` give the compiled core for this variant?"""
    return AVAILABLE and not pure_requested() and fits(find_variant(variant))


def core_class(variant: str | Variant) -> type[Core] | type[CompiledCore]:
    """The core to use for ``variant`` (see the module)."""
    return CompiledCore if compiled(variant) else Core


def options(v: Variant) -> tuple[int, ...]:
    """The variant's options as the twelve numbers ``_ccore_setup`` reads."""
    return (
        v.size,
        _SETTING.index(v.setting_rule),
        int(v.compulsory_capture),
        int(v.chain == "optional"),
        int(v.refuge),
        int(v.exchange),
        _BLOCKED.index(v.blocked),
        int(v.blocked_first_turn_defender_wins),
        v.no_progress_turns,
        int(v.repetition),
        int(v.win_kinds),
        v.turn_limit,
    )


def _outcomes() -> list[Outcome]:
    """Every outcome the core can reach, by (reason, winner + 1, kind)."""
    out = []
    for reason in REASONS:
        for winner in (None, *SIDE_NAMES):
            for kind in (None, "major", "minor"):
                out.append(Outcome(winner, reason.value, kind))
    return out


def edge_objects(t: Tables) -> tuple[object, ...]:
    """The shared raw tuples and moves of a board, in ``_ccore_setup``'s order."""
    key = t.geometry.name
    cached = _EDGES.get(key)
    if cached is not None and cached[-1] is t.moves:
        return cached[:-1]
    g = t.geometry
    step_raw: list[Raw | None] = []
    flag_raw: list[Raw | None] = []
    for p in range(g.size):
        for q in (table[p] for table in g.neighbours):
            step_raw.append(t.step_raw[p][q] if q >= 0 else None)
            flag_raw.append(t.flagged_raw[p][q] if q >= 0 else None)
    mt = t.moves
    objs: tuple[object, ...] = (
        (STEP, PLACE, PASS, REMOVE),
        step_raw,
        flag_raw,
        [mt[r] if r else None for r in step_raw],
        [mt[r] if r else None for r in flag_raw],
        [mt[(STEP, r[1], r[2], 1, False)] if r else None for r in step_raw],
        list(t.place),
        list(t.place_moves),
        list(t.remove),
        [mt[r] for r in t.remove],
        t.pass_raw,
        mt[t.pass_raw],
        _outcomes(),
        mt.__getitem__,
    )
    _EDGES[key] = (*objs, mt)
    return objs


def outcome_codes(o: Outcome | None) -> tuple[int, int, int] | None:
    """An outcome as the core's (reason, winner, kind) numbers."""
    if o is None:
        return None
    winner = -1 if o.winner is None else SIDE_NAMES.index(o.winner)
    kind = (None, "major", "minor").index(o.kind)
    return REASONS.index(Termination(o.reason)), winner, kind


def _exchange(ex: tuple[int, int, int, int] | None) -> Exchange | None:
    return None if ex is None else Exchange(*ex)


def state_of(fields: tuple[object, ...]) -> State:
    """A :class:`State` from the core's field tuple."""
    f = list(fields)
    f[6] = _exchange(fields[6])  # type: ignore[arg-type]
    return State(*f)  # type: ignore[arg-type]


class UndoView(Sequence[Entry]):
    """The compiled core's undo entries in the pure core's shape (read only)."""

    def __init__(self, core: CompiledCore) -> None:
        self._core = core

    def __len__(self) -> int:
        return int(self._core._ply)

    def _get(self, i: int) -> Entry:
        fields, raw = self._core._entry(i)
        f = list(fields)
        f[6] = _exchange(fields[6])
        if _HAJEB_FIELD:
            return (*f, raw, 0)
        return (*f, raw)

    @overload
    def __getitem__(self, i: int) -> Entry: ...

    @overload
    def __getitem__(self, i: slice) -> list[Entry]: ...

    def __getitem__(self, i: int | slice) -> Entry | list[Entry]:
        if isinstance(i, slice):
            return [self._get(k) for k in range(len(self))[i]]
        return self._get(i)

    def __iter__(self) -> Iterator[Entry]:
        for k in range(len(self)):
            yield self._get(k)


_Base: type = _ccore.Core if _ccore is not None else object


class CompiledCore(_Base):  # type: ignore[misc]
    """The compiled core with the pure :class:`~.core.Core`'s interface.

    The state lives in C; ``_bb``, ``_side``, ``_setting``, ``_chain``,
    ``_turn``, ``_noprog``, ``_removals``, ``_resume``, ``_turn_captured``,
    ``_off``, ``_outcome``, ``_raws`` and ``_moves`` read it (``_bb`` is a
    new list each time: change the position with :meth:`_restore`).
    """

    variant: Variant
    _hajeb = 0  # never declared here (hajeb.OFF): H'ajeb variants use the pure core

    def __init__(self, variant: str | Variant = "kharbga") -> None:
        if _ccore is None:
            raise RuntimeError("the compiled core is not built (see docs/core.md)")
        v = find_variant(variant)
        if not fits(v):
            raise _ccore.Unsupported(f"the compiled core plays boards of up to 64 points "
                                     f"without H'ajeb, not {v.name} on {v.geometry.name}")
        self.variant = v
        self.geometry = v.geometry
        self._t = tables_for(v.geometry)
        self._names = v.geometry.point_names
        self._ccore_setup(options(v), edge_objects(self._t))

    @property
    def _exchange(self) -> Exchange | None:
        return _exchange(self._ex_key)

    @property
    def _undo(self) -> UndoView:
        return UndoView(self)

    def state(self) -> State:
        """The current position as a typed value."""
        return state_of(self._fields())

    def _restore(self, s: State) -> None:
        if getattr(s, "hajeb", 0):
            raise _ccore.Unsupported("H'ajeb positions are for the pure core")
        ex = s.exchange
        self._set_fields(
            s.attacker, s.defender, s.side, s.setting, s.chain, s.turn,
            None if ex is None else (ex.stage, ex.soldier, ex.first, ex.second),
            s.no_progress, tuple(s.removals), s.resume, s.turn_captured, s.off,
            outcome_codes(s.outcome),
        )  # fmt: skip

    def _start_turn(self, mover: int) -> None:
        """The side to move is set; deal with it being blocked."""
        self._start_turn_c(mover)

    def _finish(self, winner: int | None, reason: Termination, minor: bool = False) -> None:
        self._finish_code(-1 if winner is None else winner, REASONS.index(reason), minor)

    def _adjudicate(self, reason: Termination) -> None:
        a, d = (x.bit_count() for x in self._bb)
        self._finish(0 if a > d else 1 if d > a else None, reason, minor=True)
