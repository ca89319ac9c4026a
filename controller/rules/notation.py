"""Move notation and position strings (docs/rules.md, "Notation decisions").

Position string: ranks from the top down separated by ``/`` (``A``, ``D``,
``.``), then the side to move (``a``/``d``), the phase (``s``/``m``), the
chain square or ``-``, and the moving-phase turn number.  Optional
``key=value`` fields follow for further state:

- ``ex=STAGE:S[:A1[:A2]]``: an exchange in progress (``kharbga``);
- ``np=N``: completed turns without a capture or exchange;
- ``rm=SIDES:RESUME``: pieces still to remove under the ``remove`` blocked
  rule, e.g. ``rm=aad:d`` (Attacker, Attacker, Defender, then the Defender
  plays);
- ``off=CA,EA,RA,CD,ED,RD``: pieces captured, exchanged and removed per side;
- ``hajeb=on`` or ``hajeb=end``: the Defender's H'ajeb declaration in force,
  or ended with the removals of ``rm=`` owed (rule option ``hajeb``).

The H'ajeb actions are written ``hajeb`` (declare) and ``rescind``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.board.geometry import Geometry

from .hajeb import STATE_WORDS
from .moves import (
    ATTACKER,
    DEFENDER,
    HAJEB,
    PASS,
    PLACE,
    REMOVE,
    RESCIND,
    STEP,
    NotationError,
    PositionError,
    position_count,
)
from .state import NO_OFF, Exchange, Off, State
from .variants import Variant

__all__ = ["parse_action", "split_token", "format_position", "parse_position", "position_fields",
           "quoted"]

_SQUARE = r"[a-z][1-9]"
_STEP_RE = re.compile(rf"({_SQUARE})(?:[-x]({_SQUARE}))+(=?)")


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error's one line: a long one cut, with its length."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def position_fields(text: str) -> list[str]:
    """A position string's fields (every position string, of any board,
    starts with the same five); :class:`PositionError` with fewer."""
    fields = text.split()
    if len(fields) < 5:
        raise PositionError(
            f"position needs 5 fields (board, side, phase, chain, turn), got {len(fields)}: "
            f"{quoted(text)}"
        )
    return fields


def parse_action(geometry: Geometry, text: str) -> tuple[str, int, int, bool]:
    """One action: ``(kind, from, to, flag)``; raises :class:`NotationError`."""
    t = text.strip()
    if t in (PASS, HAJEB, RESCIND):
        return t, -1, -1, False
    try:
        if t.startswith("@") and len(t) > 1:
            return PLACE, -1, _square(geometry, t[1:]), False
        if t.startswith("x") and len(t) > 1 and "-" not in t and "x" not in t[1:]:
            return REMOVE, -1, _square(geometry, t[1:]), False
        m = re.fullmatch(rf"({_SQUARE})[-x]({_SQUARE})(=?)", t)
        if m:
            return STEP, _square(geometry, m[1]), _square(geometry, m[2]), bool(m[3])
    except NotationError:
        raise NotationError(f"bad square in move {quoted(text)}") from None
    raise NotationError(f"cannot read move {quoted(text)}")


def split_token(geometry: Geometry, token: str) -> list[str]:
    """A record token as single actions: ``a4xb4xc4`` -> ``a4xb4``, ``b4xc4``."""
    if token.startswith("@") or token in (PASS, HAJEB, RESCIND) or token.startswith("x"):
        parse_action(geometry, token)
        return [token]
    m = _STEP_RE.fullmatch(token)
    if not m:
        raise NotationError(f"cannot read move {quoted(token)}")
    squares = re.findall(_SQUARE, token)
    seps = re.findall(r"(?<=[1-9])[-x]", token)  # after a square: the x of x4 is no capture
    flag = token.endswith("=")
    out = [f"{squares[i]}{seps[i]}{squares[i + 1]}" for i in range(len(seps))]
    if flag:
        if len(out) > 1:
            raise NotationError(f"a flagged step cannot be a chain: {quoted(token)}")
        out[-1] += "="
    for action in out:
        parse_action(geometry, action)
    return out


def _square(geometry: Geometry, text: str) -> int:
    try:
        return geometry.parse_point(text)
    except ValueError as exc:
        raise NotationError(str(exc)) from None


def format_position(variant: Variant, state: State) -> str:
    """The position string of ``state`` in ``variant`` (docs/rules.md), with
    the extra fields the state needs."""
    g = variant.geometry
    names = g.point_names
    fields = [
        _format_board(variant.size, state.attacker, state.defender),
        "ad"[state.side],
        "s" if state.setting else "m",
        names[state.chain] if state.chain >= 0 else "-",
        str(state.turn),
    ]
    ex = state.exchange
    if ex is not None:
        parts = [str(ex.stage), names[ex.soldier]]
        parts += [names[x] for x in (ex.first, ex.second) if x >= 0]
        fields.append("ex=" + ":".join(parts))
    if variant.no_progress_turns and not state.setting:
        fields.append(f"np={state.no_progress}")
    if state.removals:
        sides = "".join("ad"[s] for s in state.removals)
        fields.append(f"rm={sides}:{'ad'[state.resume]}")
    off = [x for side in state.off for x in side]
    if any(off):
        fields.append("off=" + ",".join(map(str, off)))
    if state.hajeb:
        fields.append("hajeb=" + STATE_WORDS[state.hajeb])
    return " ".join(fields)


def _format_board(n: int, a: int, d: int) -> str:
    ranks = []
    for r in range(n - 1, -1, -1):
        row = []
        for f in range(n):
            p = r * n + f
            row.append("A" if a >> p & 1 else "D" if d >> p & 1 else ".")
        ranks.append("".join(row))
    return "/".join(ranks)


@dataclass(frozen=True)
class _Extras:
    """The optional ``key=value`` fields of a position string."""

    exchange: Exchange | None = None
    no_progress: int = 0
    removals: tuple[int, ...] = ()
    resume: int = -1
    off: Off = NO_OFF
    hajeb: int = 0


def parse_position(variant: Variant, text: str) -> State:
    """The state that the position string ``text`` describes in ``variant``
    (as written: a blocked side to move is not yet dealt with);
    :class:`PositionError` when it cannot be read or is impossible."""
    fields = position_fields(text)
    board, side_t, phase_t, chain_t, turn_t = fields[:5]
    a, d = _parse_board(variant, board)
    side, setting, turn = _parse_side_phase_turn(side_t, phase_t, turn_t)
    _check_counts(variant, a, d)
    if setting:
        _check_setting(variant, a, d, side, turn)
    elif turn < 1:
        raise PositionError(f"turn number {turn} in the moving phase (1 is the first)")
    chain = _parse_chain(variant.geometry, chain_t, (a, d)[side], setting)
    extras = _parse_extras(variant, fields[5:], side)
    if extras.hajeb and setting:
        raise PositionError("H'ajeb in the setting phase")
    if (extras.hajeb == 2) != bool(extras.removals and extras.hajeb):
        raise PositionError("hajeb=end goes with the removals owed (rm=...), hajeb=on without")
    for name, on_board, off in zip(("Attacker", "Defender"), (a, d), extras.off, strict=True):
        if on_board.bit_count() + sum(off) > variant.pieces_per_side:
            raise PositionError(
                f"off={','.join(str(n) for pair in extras.off for n in pair)}: the {name} has "
                f"{on_board.bit_count()} on the board and {sum(off)} off it, more than its "
                f"{variant.pieces_per_side} pieces")
    return State(
        a,
        d,
        side,
        setting,
        chain,
        turn,
        turn_captured=chain >= 0,  # a chain goes on only after a capture this turn
        exchange=extras.exchange,
        no_progress=extras.no_progress,
        removals=extras.removals,
        resume=extras.resume,
        off=extras.off,
        hajeb=extras.hajeb,
    )


def _parse_board(variant: Variant, board: str) -> tuple[int, int]:
    n = variant.size
    ranks = board.split("/")
    if len(ranks) != n:
        raise PositionError(
            f"board {quoted(board)} does not fit variant {variant.name}: its "
            f"{variant.geometry.name} board has {n} ranks, this one {len(ranks)}"
        )
    a = d = 0
    for i, rank in enumerate(ranks):
        r = n - 1 - i
        if len(rank) != n:
            raise PositionError(f"rank {r + 1} {quoted(rank)} has {len(rank)} squares, not {n}")
        for f, ch in enumerate(rank):
            bit = 1 << (r * n + f)
            if ch == "A":
                a |= bit
            elif ch == "D":
                d |= bit
            elif ch != ".":
                raise PositionError(
                    f"rank {r + 1} {quoted(rank)}: unknown piece {ch!r} (A, D or .)")
    return a, d


def _parse_side_phase_turn(side_t: str, phase_t: str, turn_t: str) -> tuple[int, bool, int]:
    if side_t not in ("a", "d"):
        raise PositionError(f"side to move {quoted(side_t)} is not 'a' or 'd'")
    if phase_t not in ("s", "m"):
        raise PositionError(f"phase {quoted(phase_t)} is not 's' or 'm'")
    turn = position_count(turn_t, "turn number")
    return (ATTACKER if side_t == "a" else DEFENDER), phase_t == "s", turn


def _check_counts(variant: Variant, a: int, d: int) -> None:
    per_side = variant.pieces_per_side
    for name, bb in (("Attacker", a), ("Defender", d)):
        if bb.bit_count() > per_side:
            raise PositionError(f"the {name} has {bb.bit_count()} pieces, at most {per_side}")


def _check_setting(variant: Variant, a: int, d: int, side: int, turn: int) -> None:
    if (a | d) >> variant.geometry.centre & 1:
        raise PositionError("a piece on the centre during the setting phase")
    placed = a.bit_count() + d.bit_count()
    if placed >= 2 * variant.pieces_per_side:
        raise PositionError("a full board is not in the setting phase")
    expect = (placed // 2) % 2
    if side != expect:
        raise PositionError(
            f"with {placed} pieces placed the {'ad'[expect]} side places next, "
            f"not {'ad'[side]!r}"
        )
    if a.bit_count() - d.bit_count() not in (0, 1, 2) or turn != 0:
        raise PositionError("piece counts or turn number impossible in the setting phase")


def _parse_chain(geometry: Geometry, chain_t: str, own: int, setting: bool) -> int:
    if chain_t == "-":
        return -1
    try:
        chain = geometry.parse_point(chain_t)
    except ValueError:
        raise PositionError(f"chain square {quoted(chain_t)} is not a square") from None
    if setting or not own >> chain & 1:
        raise PositionError(f"chain square {chain_t} holds no piece of the side to move")
    return chain


def _parse_extras(variant: Variant, extras: list[str], side: int) -> _Extras:
    values: dict[str, object] = {}
    seen: set[str] = set()
    for extra in extras:
        key, sep, value = extra.partition("=")
        if not sep:
            raise PositionError(f"extra field {quoted(extra)} is not key=value")
        if key in seen:  # "np=1 np=2": which is meant?
            raise PositionError(f"extra field {quoted(key)} given twice")
        seen.add(key)
        reader = _EXTRA_READERS.get(key)
        if reader is None:
            raise PositionError(f"unknown extra field {quoted(key)} in {quoted(extra)}")
        try:
            values.update(reader(variant, value, side, extra))
        except PositionError:
            raise
        except ValueError:
            raise PositionError(f"cannot read extra field {quoted(extra)}") from None
    return _Extras(**values)  # type: ignore[arg-type]


def _read_exchange(variant: Variant, value: str, side: int, extra: str) -> dict[str, object]:
    parts = value.split(":")
    stage = int(parts[0])
    squares = [variant.geometry.parse_point(p) for p in parts[1:]]
    if not 1 <= stage <= 4 or len(squares) != (1, 2, 2, 3)[stage - 1]:
        raise ValueError
    if not variant.exchange:
        raise PositionError(f"variant {variant.name} has no exchange: {quoted(extra)}")
    return {"exchange": Exchange(stage, *squares)}


def _read_no_progress(variant: Variant, value: str, side: int, extra: str) -> dict[str, object]:
    return {"no_progress": position_count(value, f"{quoted(extra)}: the count")}


def _read_removals(variant: Variant, value: str, side: int, extra: str) -> dict[str, object]:
    sides_t, _, resume_t = value.partition(":")
    if not sides_t or any(c not in "ad" for c in sides_t) or resume_t not in ("a", "d"):
        raise ValueError
    removals = tuple("ad".index(c) for c in sides_t)
    if removals[0] != side:
        raise PositionError(f"{quoted(extra)}: the side to move must remove first")
    return {"removals": removals, "resume": "ad".index(resume_t)}


def _read_off(variant: Variant, value: str, side: int, extra: str) -> dict[str, object]:
    nums = [position_count(x, f"{quoted(extra)}: the count") for x in value.split(",")]
    if len(nums) != 6:
        raise ValueError
    return {"off": ((nums[0], nums[1], nums[2]), (nums[3], nums[4], nums[5]))}


def _read_hajeb(variant: Variant, value: str, side: int, extra: str) -> dict[str, object]:
    if value not in STATE_WORDS[1:]:
        raise PositionError(f"{quoted(extra)}: hajeb=on or hajeb=end")
    if not variant.hajeb:
        raise PositionError(
            f"variant {variant.name} has no H'ajeb (rule option hajeb): {quoted(extra)}")
    return {"hajeb": STATE_WORDS.index(value)}


_EXTRA_READERS = {
    "ex": _read_exchange,
    "np": _read_no_progress,
    "rm": _read_removals,
    "off": _read_off,
    "hajeb": _read_hajeb,
}
