"""Move notation and position strings (RULES.md).

Position string: ranks from the top down separated by ``/`` (``A``, ``D``,
``.``), then the side to move (``a``/``d``), the phase (``s``/``m``), the
chain square or ``-``, and the moving-phase turn number.  Optional
``key=value`` fields follow for further state:

- ``ex=STAGE:S[:A1[:A2]]``: an exchange in progress (``kharbga``);
- ``np=N``: completed turns without a capture or exchange;
- ``rm=SIDES:RESUME``: pieces still to remove under the ``remove`` blocked
  rule, e.g. ``rm=aad:d`` (Attacker, Attacker, Defender, then the Defender
  plays);
- ``off=CA,EA,RA,CD,ED,RD``: pieces captured, exchanged and removed per side.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from controller.board.geometry import Geometry

from .moves import ATTACKER, DEFENDER, PASS, PLACE, REMOVE, STEP, NotationError, PositionError

if TYPE_CHECKING:
    from .game import Game

__all__ = ["parse_action", "split_token", "format_position", "parse_position"]

_SQUARE = r"[a-z][1-9]"
_STEP_RE = re.compile(rf"({_SQUARE})(?:[-x]({_SQUARE}))+(=?)")


def parse_action(geometry: Geometry, text: str) -> tuple[str, int, int, bool]:
    """One action: ``(kind, from, to, flag)``; raises :class:`NotationError`."""
    t = text.strip()
    if t == "pass":
        return PASS, -1, -1, False
    try:
        if t.startswith("@") and len(t) > 1:
            return PLACE, -1, _square(geometry, t[1:]), False
        if t.startswith("x") and len(t) > 1 and "-" not in t and "x" not in t[1:]:
            return REMOVE, -1, _square(geometry, t[1:]), False
        m = re.fullmatch(rf"({_SQUARE})[-x]({_SQUARE})(=?)", t)
        if m:
            return STEP, _square(geometry, m[1]), _square(geometry, m[2]), bool(m[3])
    except NotationError:
        raise NotationError(f"bad square in move {text!r}") from None
    raise NotationError(f"cannot read move {text!r}")


def split_token(geometry: Geometry, token: str) -> list[str]:
    """A record token as single actions: ``a4xb4xc4`` -> ``a4xb4``, ``b4xc4``."""
    if token.startswith("@") or token == "pass" or token.startswith("x"):
        parse_action(geometry, token)
        return [token]
    m = _STEP_RE.fullmatch(token)
    if not m:
        raise NotationError(f"cannot read move {token!r}")
    squares = re.findall(_SQUARE, token)
    seps = re.findall(r"[-x]", token)
    flag = token.endswith("=")
    out = [f"{squares[i]}{seps[i]}{squares[i + 1]}" for i in range(len(seps))]
    if flag:
        if len(out) > 1:
            raise NotationError(f"a flagged step cannot be a chain: {token!r}")
        out[-1] += "="
    for action in out:
        parse_action(geometry, action)
    return out


def _square(geometry: Geometry, text: str) -> int:
    try:
        return geometry.parse_point(text)
    except ValueError as exc:
        raise NotationError(str(exc)) from None


def format_position(game: Game) -> str:
    g = game.geometry
    n = game.variant.size
    a, d = game.bitboards()
    ranks = []
    for r in range(n - 1, -1, -1):
        row = []
        for f in range(n):
            p = r * n + f
            row.append("A" if a >> p & 1 else "D" if d >> p & 1 else ".")
        ranks.append("".join(row))
    fields = [
        "/".join(ranks),
        "a" if game.side == ATTACKER else "d",
        "s" if game.phase == "setting" else "m",
        game.chain_square or "-",
        str(game.turn),
    ]
    ex = game.exchange
    if ex is not None:
        parts = [str(ex.stage), g.point_names[ex.soldier]]
        parts += [g.point_names[x] for x in (ex.first, ex.second) if x >= 0]
        fields.append("ex=" + ":".join(parts))
    if game.variant.no_progress_turns and game.phase == "moving":
        fields.append(f"np={game.no_progress}")
    if game.removals:
        sides = "".join("ad"[s] for s in game.removals)
        fields.append(f"rm={sides}:{'ad'[game._resume]}")
    off = [x for s in (ATTACKER, DEFENDER) for x in game.off_board(s)]
    if any(off):
        fields.append("off=" + ",".join(map(str, off)))
    return " ".join(fields)


def parse_position(game: Game, text: str) -> None:
    """Set ``game`` (fresh) to the position ``text``; :class:`PositionError`."""
    from .game import Exchange

    v = game.variant
    g = game.geometry
    n = v.size
    fields = text.split()
    if len(fields) < 5:
        raise PositionError(
            f"position needs 5 fields (board, side, phase, chain, turn), got {len(fields)}: "
            f"{text!r}"
        )
    board, side_t, phase_t, chain_t, turn_t = fields[:5]
    ranks = board.split("/")
    if len(ranks) != n:
        raise PositionError(f"board {board!r} has {len(ranks)} ranks, the {g.name} board {n}")
    a = d = 0
    for i, rank in enumerate(ranks):
        r = n - 1 - i
        if len(rank) != n:
            raise PositionError(f"rank {r + 1} {rank!r} has {len(rank)} squares, not {n}")
        for f, ch in enumerate(rank):
            bit = 1 << (r * n + f)
            if ch == "A":
                a |= bit
            elif ch == "D":
                d |= bit
            elif ch != ".":
                raise PositionError(f"rank {r + 1} {rank!r}: unknown piece {ch!r} (A, D or .)")
    if side_t not in ("a", "d"):
        raise PositionError(f"side to move {side_t!r} is not 'a' or 'd'")
    if phase_t not in ("s", "m"):
        raise PositionError(f"phase {phase_t!r} is not 's' or 'm'")
    side = ATTACKER if side_t == "a" else DEFENDER
    setting = phase_t == "s"
    if not turn_t.isdigit():
        raise PositionError(f"turn number {turn_t!r} is not a number")
    turn = int(turn_t)
    per_side = v.pieces_per_side
    for name, bb in (("Attacker", a), ("Defender", d)):
        if bb.bit_count() > per_side:
            raise PositionError(f"the {name} has {bb.bit_count()} pieces, at most {per_side}")
    if setting:
        if (a | d) >> g.centre & 1:
            raise PositionError("a piece on the centre during the setting phase")
        placed = a.bit_count() + d.bit_count()
        if placed >= 2 * per_side:
            raise PositionError("a full board is not in the setting phase")
        expect = (placed // 2) % 2
        if side != expect:
            raise PositionError(
                f"with {placed} pieces placed the {'ad'[expect]} side places next, not {side_t!r}"
            )
        if a.bit_count() - d.bit_count() not in (0, 1, 2) or turn != 0:
            raise PositionError("piece counts or turn number impossible in the setting phase")
    elif turn < 1:
        raise PositionError(f"turn number {turn} in the moving phase (1 is the first)")
    chain = -1
    if chain_t != "-":
        try:
            chain = g.parse_point(chain_t)
        except ValueError:
            raise PositionError(f"chain square {chain_t!r} is not a square") from None
        if setting or not ((a, d)[side] >> chain & 1):
            raise PositionError(f"chain square {chain_t} holds no piece of the side to move")
    game._bb = [a, d]
    game._side = side
    game._setting = setting
    game._chain = chain
    game._turn = turn
    for extra in fields[5:]:
        key, sep, value = extra.partition("=")
        if not sep:
            raise PositionError(f"extra field {extra!r} is not key=value")
        try:
            if key == "ex":
                parts = value.split(":")
                stage = int(parts[0])
                squares = [g.parse_point(p) for p in parts[1:]]
                if not 1 <= stage <= 4 or len(squares) != (1, 2, 2, 3)[stage - 1]:
                    raise ValueError
                if not v.exchange:
                    raise PositionError(f"variant {v.name} has no exchange: {extra!r}")
                game._exchange = Exchange(stage, *squares)
            elif key == "np":
                game._noprog = int(value)
                if game._noprog < 0:
                    raise ValueError
            elif key == "rm":
                sides_t, _, resume_t = value.partition(":")
                if not sides_t or any(c not in "ad" for c in sides_t) or resume_t not in ("a", "d"):
                    raise ValueError
                game._removals = tuple("ad".index(c) for c in sides_t)
                game._resume = "ad".index(resume_t)
                if game._removals[0] != side:
                    raise PositionError(f"{extra!r}: the side to move must remove first")
            elif key == "off":
                nums = [int(x) for x in value.split(",")]
                if len(nums) != 6 or min(nums) < 0:
                    raise ValueError
                game._off = [nums[:3], nums[3:]]
            else:
                raise PositionError(f"unknown extra field {key!r} in {extra!r}")
        except PositionError:
            raise
        except ValueError:
            raise PositionError(f"cannot read extra field {extra!r}") from None
    if not setting and game._outcome is None:
        # A side to move that is blocked: apply the variant's blocked rule.
        if not game._removals and chain < 0:
            game._start_turn(mover=1 - side)
        if game._bb[0] == 0 or game._bb[1] == 0:
            loser = 0 if game._bb[0] == 0 else 1
            from .moves import Termination

            game._finish(1 - loser, Termination.ALL_CAPTURED)
        game._count_position()
