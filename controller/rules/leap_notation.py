"""Move notation and position strings of the leap-capture games.

Moves are written as in the Kharbga family: ``c3-c4`` a step, ``c3xc5`` a
capturing leap, a chain joined into one token (``c3xc5xe5``), ``pass`` to
end an optional chain, and ``xd5`` a huff (the soldier on d5 removed).

Position string: the board's rows from the top, separated by ``/``, each
row's points from left to right (8x8: eight squares a row, light squares
always ``.``; 37-point: the rows of its points, 3, 3, 5, 5, 5, 5, 5, 3 and
3 long); ``A``/``D`` a man of the Attacker/Defender, ``a``/``d`` a king,
``.`` empty.  Then the side to move (``a``/``d``), the phase (always ``m``),
the chain square or ``-``, the turn number (1 is the Attacker's first), and
``key=value`` fields: ``np=N`` (turns without progress, in variants that
draw on it) and ``hf=c5,d4`` (the enemy soldiers the side to move must
first remove one of: a huff), ``hf=done`` once it has removed one (its
step to come ends a turn with a huff, which is progress).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from controller.board.geometry import Geometry, points
from controller.board.words import place

from .moves import PASS, REMOVE, STEP, NotationError, PositionError, position_count
from .notation import position_fields, quoted

if TYPE_CHECKING:
    from .leap import LeapGame

__all__ = ["board_rows", "format_position", "parse_action", "parse_position", "split_token"]

_POINT = r"[a-z][1-9]"
_CHAIN_RE = re.compile(rf"{_POINT}(?:[-x]{_POINT})+")


def board_rows(geometry: Geometry) -> list[list[int]]:
    """The points of ``geometry`` row by row from the top, left to right."""
    rows: dict[int, list[int]] = {}
    for p, name in enumerate(geometry.point_names):
        rows.setdefault(int(name[1:]), []).append(p)
    return [sorted(rows[r], key=lambda p: geometry.point_names[p]) for r in sorted(rows)[::-1]]


def parse_action(geometry: Geometry, text: str) -> tuple[str, int, int]:
    """One action: ``(kind, from, to)``; raises :class:`NotationError`."""
    t = text.strip()
    if t == "pass":
        return PASS, -1, -1
    m = re.fullmatch(rf"x({_POINT})|({_POINT})[-x]({_POINT})", t)
    if not m:
        raise NotationError(f"cannot read move {quoted(text)}")
    try:
        if m[1]:
            return REMOVE, -1, geometry.parse_point(m[1])
        return STEP, geometry.parse_point(m[2]), geometry.parse_point(m[3])
    except ValueError as exc:
        raise NotationError(f"move {quoted(text)}: {exc}") from None


def split_token(geometry: Geometry, token: str) -> list[str]:
    """A record token as single actions: ``a3xc5xe5`` -> ``a3xc5``, ``c5xe5``."""
    if token == "pass" or token.startswith("x"):
        parse_action(geometry, token)
        return [token]
    if not _CHAIN_RE.fullmatch(token):
        raise NotationError(f"cannot read move {quoted(token)}")
    squares = re.findall(_POINT, token)
    seps = re.findall(r"(?<=[1-9])[-x]", token)  # after a square: the x of x4 is no capture
    out = [f"{squares[i]}{seps[i]}{squares[i + 1]}" for i in range(len(seps))]
    for action in out:
        parse_action(geometry, action)
    return out


def _board_field(game: LeapGame) -> str:
    a, d = game.bitboards()
    kings = game.kings
    rows = []
    for row in board_rows(game.geometry):
        chars = []
        for p in row:
            if a >> p & 1:
                chars.append("a" if kings >> p & 1 else "A")
            elif d >> p & 1:
                chars.append("d" if kings >> p & 1 else "D")
            else:
                chars.append(".")
        rows.append("".join(chars))
    return "/".join(rows)


def format_position(game: LeapGame) -> str:
    fields = [
        _board_field(game),
        "ad"[game.side],
        "m",
        game.chain_square or "-",
        str(game.turn),
    ]
    if game.variant.no_progress_turns:
        fields.append(f"np={game.no_progress}")
    if game.huff:
        names = game.geometry.point_names
        fields.append("hf=" + ",".join(names[p] for p in points(game.huff)))
    elif game._huffed:
        fields.append("hf=done")
    return " ".join(fields)


def _shape(rows: list[list[int]]) -> str:
    lengths = [len(r) for r in rows]
    if len(set(lengths)) == 1:
        return f"{len(rows)} rows of {lengths[0]}"
    return f"{len(rows)} rows of {','.join(map(str, lengths))} points"


def _parse_board(game: LeapGame, board: str) -> tuple[int, int, int]:
    g = game.geometry
    rows = board_rows(g)
    texts = board.split("/")
    v = game.variant
    if [len(t) for t in texts] != [len(r) for r in rows]:
        raise PositionError(
            f"board {quoted(board)} does not fit variant {v.name}: its {g.name} board has "
            f"{_shape(rows)} (rows from the top, separated by '/')"
        )
    a = d = kings = 0
    for text, row in zip(texts, rows, strict=True):
        for ch, p in zip(text, row, strict=True):
            if ch == ".":
                continue
            if ch not in "AaDd":
                raise PositionError(f"{g.point_names[p]}: unknown piece {ch!r} (A, a, D, d or .)")
            if not any(table[p] >= 0 for table in g.neighbours):
                raise PositionError(f"{g.point_names[p]}: no soldier stands on a light square")
            bit = 1 << p
            if ch in "Aa":
                a |= bit
            else:
                d |= bit
            if ch.islower():
                if not v.kings:
                    raise PositionError(f"{g.point_names[p]}: variant {v.name} has no kings")
                kings |= bit
    return a, d, kings


def _check_board(game: LeapGame, a: int, d: int, kings: int) -> None:
    v = game.variant
    for name, bb in (("Attacker", a), ("Defender", d)):
        if bb.bit_count() > v.pieces_per_side:
            raise PositionError(
                f"the {name} has {bb.bit_count()} soldiers, at most {v.pieces_per_side}"
            )
    far = game._t.far_row
    if v.kings and (a & ~kings & far[0] or d & ~kings & far[1]):
        raise PositionError("a man stands on its crowning row (write it as a king)")


def parse_position(game: LeapGame, text: str) -> None:
    """Set ``game`` (fresh) to the position ``text``; :class:`PositionError`."""
    g = game.geometry
    fields = position_fields(text)
    board, side_t, phase_t, chain_t, turn_t = fields[:5]
    a, d, kings = _parse_board(game, board)
    _check_board(game, a, d, kings)
    if side_t not in ("a", "d"):
        raise PositionError(f"side to move {quoted(side_t)} is not 'a' or 'd'")
    if phase_t != "m":
        raise PositionError(f"phase {quoted(phase_t)}: these games have only the moving phase 'm'")
    turn = position_count(turn_t, "turn number", 1)
    side = "ad".index(side_t)
    game._bb = [a, d]
    game._kings = kings
    game._side = side
    game._turn = turn
    if chain_t != "-":
        noun = place(g.name)  # "chain point c5" on the 37-point board
        try:
            chain = g.parse_point(chain_t)
        except ValueError:
            raise PositionError(f"chain {noun} {quoted(chain_t)} is not a {noun} of the "
                                f"{g.name} board") from None
        if not (a, d)[side] >> chain & 1 or not game._can_leap(1 << chain, side):
            raise PositionError(f"chain {noun} {chain_t}: no soldier of the side to move that "
                                "can capture")
        game._chain = chain
    keys = [extra.partition("=")[0] for extra in fields[5:]]
    for key in keys:
        if keys.count(key) > 1:  # "np=1 np=2": which is meant?
            raise PositionError(f"extra field {quoted(key)} given twice")
    for extra in fields[5:]:
        _parse_extra(game, extra)
    if game._huff and game._chain >= 0:
        raise PositionError("a huff is owed only at the start of a turn, not in a chain")


def _parse_extra(game: LeapGame, extra: str) -> None:
    g = game.geometry
    key, sep, value = extra.partition("=")
    if not sep:
        raise PositionError(f"extra field {quoted(extra)} is not key=value")
    if key == "np":
        game._noprog = position_count(value, f"{quoted(extra)}: the count")
    elif key == "hf":
        if not game.variant.huffing:
            raise PositionError(f"variant {game.variant.name} has no huffing: {quoted(extra)}")
        if value == "done":  # the huff taken this turn (its chain may be going on)
            game._huffed = True
            return
        huff = 0
        for name in value.split(","):
            try:
                huff |= 1 << g.parse_point(name)
            except ValueError:
                raise PositionError(f"cannot read extra field {quoted(extra)}") from None
        if huff & ~game._bb[1 - game._side]:
            raise PositionError(f"{quoted(extra)}: a huff removes soldiers of the other side")
        game._huff = huff
    else:
        raise PositionError(f"unknown extra field {quoted(key)} in {quoted(extra)}")
