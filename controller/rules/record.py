"""Game records: a PGN-like text (docs/rules.md), read and written exactly.

A record is tag pairs, a blank line, then the movetext::

    [Variant "kharbga"]
    [Attacker "Amel"]
    [Defender "Youssef"]
    [Date "2026.11.21"]
    [Result "1-0"]

    1. @d3 @e4 2. @c4 @d5 ... 25. e4-d4 {[%clk 0:00:12]} 26. c4xd4xd3 ... 1-0

Each turn is numbered in order from 1 (setting turns included, so the
first move of a 7x7 game is turn 25; in position strings the moving phase
counts from 1; a game begun from a ``[Position]`` goes on from that
position's turn, :func:`first_turn`).  A turn holds its actions: two placements, a step, a chain
joined into one token (``a4xb4xc4``), an optional ``pass``, a flagged step
(``c4-d4=``) or one removal (``xd5``).  Under H'ajeb (rule option
``hajeb``) a turn may hold ``hajeb`` (the declaration), ``rescind``, and
the captures of several soldiers as separate tokens (``b3xa4 b2xb5``).
``{...}`` comments follow a turn;
``{[%clk H:MM:SS]}`` is the clock time that turn took.  A game that did not
start on the empty board carries ``[Position "..."]``; a variant with
changed rule options carries them as ``[Options "blocked=remove"]``; one
ended by the
players carries ``[Termination "resignation"]``, ``"agreement"`` or
``"barrier"``.

:func:`read_record` takes an open text handle, :func:`parse_record` a
string; errors name the line and the token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TextIO

from controller.board.geometry import Geometry
from controller.board.words import on_one_line

from . import leap_notation, notation
from .leap import LeapGame
from .leap_factory import (
    AnyGame,
    AnyVariant,
    apply_any_options,
    find_any_variant,
    format_any_options,
    game_from_position,
    new_game,
)
from .leap_variants import LeapVariant
from .moves import HAJEB, PASS, PLACE, REMOVE, RESCIND, RulesError, Termination

__all__ = [
    "Record",
    "RecordError",
    "Turn",
    "first_turn",
    "group_turns",
    "sided_turns",
    "numbered_turns",
    "parse_record",
    "read_record",
    "write_record",
]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SEVEN_TAGS = ("Variant", "Attacker", "Defender", "Date", "Result")
_TAG_RE = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*')
_TOKEN_RE = re.compile(r"\{[^}]*\}?|[^\s{]+")
_CLOCK_RE = re.compile(r"\[%clk (\d+):(\d\d):(\d\d(?:\.\d+)?)\]")


class RecordError(RulesError):
    """A record that cannot be read or replayed; the message names the line."""


@dataclass
class Turn:
    """One turn of the movetext: its tokens and the comments after it."""

    tokens: list[str]
    comments: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def clock(self) -> float | None:
        """Seconds from a ``[%clk]`` comment, if any."""
        for c in self.comments:
            m = _CLOCK_RE.search(c)
            if m:
                return int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
        return None


@dataclass
class Record:
    """Tags (in order), turns and the result of one game."""

    tags: dict[str, str] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    result: str = "*"

    @property
    def variant(self) -> str:
        return self.tags.get("Variant", "kharbga")

    @classmethod
    def from_game(
        cls,
        game: AnyGame,
        tags: dict[str, str] | None = None,
        clocks: list[float] | None = None,
        start: str | None = None,
    ) -> Record:
        """The record of ``game``; ``clocks`` gives seconds per turn;
        ``start`` the position string the game started from (by default
        the one it was made from, if any)."""
        out = cls()
        out.tags["Variant"] = game.variant.name
        options = format_any_options(game.variant)
        if options:
            out.tags["Options"] = options
        for key, value in (tags or {}).items():
            out.tags[key] = value
        outcome = game.outcome
        out.result = outcome.result if outcome else "*"
        out.tags["Result"] = out.result
        start = start if start is not None else game.start_position
        if start is not None:
            out.tags["Position"] = start
        if outcome and outcome.reason in (
            Termination.RESIGNATION.value,
            Termination.AGREEMENT.value,
            Termination.BARRIER.value,
        ):
            out.tags["Termination"] = outcome.reason
            if outcome.reason == Termination.RESIGNATION.value:
                loser = "defender" if outcome.winner == "attacker" else "attacker"
                out.tags["Resigned"] = loser
        out.turns = [Turn(tokens) for tokens in group_turns(game)]
        for turn, seconds in zip(out.turns, clocks or [], strict=False):
            turn.comments.append("{[%clk " + _format_clock(seconds) + "]}")
        return out

    def rules(self) -> AnyVariant:
        """The variant named by the tags, with its ``Options`` (a
        ``LeapVariant`` for the leap-capture games)."""
        try:
            variant = find_any_variant(self.variant)
        except ValueError as exc:
            raise RecordError(f"tag Variant: {exc}") from None
        try:
            return apply_any_options(variant, self.tags.get("Options", ""))
        except ValueError as exc:
            raise RecordError(f"tag Options: {exc}") from None

    def game(self) -> AnyGame:
        """Replay the record (a ``LeapGame`` for the leap-capture games);
        :class:`RecordError` names the line and token."""
        variant = self.rules()
        start = self.tags.get("Position")
        try:
            game = game_from_position(variant, start) if start else new_game(variant)
        except RulesError as exc:
            raise RecordError(f"tag Position: {exc}") from None
        for turn in self.turns:
            for token in turn.tokens:
                try:
                    for action in split_token(variant, game.geometry, token):
                        game.play(action)
                except RulesError as exc:
                    raise RecordError(f"line {turn.line}: token {token!r}: {exc}") from None
        termination = self.tags.get("Termination")
        if game.outcome is None and termination:
            try:
                if termination == Termination.RESIGNATION.value:
                    game.resign(self.tags.get("Resigned") or game.to_move)
                elif termination == Termination.AGREEMENT.value:
                    game.agree_draw()
                elif termination == Termination.BARRIER.value and not isinstance(
                    variant, LeapVariant
                ):
                    game.agree_barrier()  # type: ignore[union-attr]
            except ValueError as exc:
                raise RecordError(f"tag Termination: {exc}") from None
        if game.outcome is not None and self.result != "*" and game.outcome.result != self.result:
            raise RecordError(
                f"result {self.result} but the moves end {game.outcome.result} "
                f"({game.outcome.reason})"
            )
        return game

    def __str__(self) -> str:
        return write_record(self)


def _format_clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def split_token(variant: AnyVariant, geometry: Geometry, token: str) -> list[str]:
    """A record token as the single actions of ``variant``'s family."""
    if isinstance(variant, LeapVariant):
        return leap_notation.split_token(geometry, token)
    return notation.split_token(geometry, token)


def group_turns(game: AnyGame, start: int = 0) -> Iterator[list[str]]:
    """The game's actions grouped into turns of record tokens; with
    ``start``, those from action ``start`` on (the first action of a turn:
    they are then grouped as in the whole game, and only they are read)."""
    return (tokens for _, tokens in sided_turns(game, start))


def sided_turns(game: AnyGame, start: int = 0) -> Iterator[tuple[int, list[str]]]:
    """:func:`group_turns` with the side that played each turn (0 the
    Attacker, 1 the Defender): two turns of one side in a row are a
    turn the other side, blocked, did not play."""
    current: list[str] = []
    side = 0
    key: tuple[object, ...] | None = None
    removals = 0
    for snap, move in (game.history[start:] if start else game.history):
        if move.kind not in (PLACE, REMOVE, PASS, "step", HAJEB, RESCIND):
            continue  # resignation and agreements live in the tags
        setting, chain, turn = snap.setting, snap.chain, snap.turn
        if setting:
            k: tuple[object, ...] = ("s", snap.placed // 2)
        elif move.kind == REMOVE and not getattr(snap, "huff", 0):
            removals += 1
            k = ("r", removals)  # a blocked side's own removal: a turn of its own
        else:
            k = ("m", turn, snap.side)
        text = str(move)
        if key is not None and k == key:
            frm = move.from_square or ""
            if chain != -1 and move.kind == "step" and current and _continues(current[-1], frm):
                current[-1] += text[len(frm):]  # b4xc4 continues a4xb4 as a4xb4xc4
            else:
                current.append(text)
            continue
        if current:
            yield side, current
        current = [text]
        key = k
        side = snap.side
    if current:
        yield side, current


def _continues(token: str, frm: str) -> bool:
    """Does a step from ``frm`` carry on the chain ``token`` (the same
    soldier; under H'ajeb another soldier's capture is a token of its own)?"""
    return token.endswith(frm) and token[-len(frm) - 1 : -len(frm)] in ("-", "x")


def first_turn(variant: AnyVariant, start: str | None) -> int:
    """The number of the first turn of a game begun from the position
    string ``start`` (None: the usual start, turn 1), counted as the record
    counts a whole game: the position's turn of the moving phase after the
    setting's turns (one per soldier of a side: on 7x7, turn 1 of the
    moving phase is 25), in the setting phase the turn of the next
    placement, in the leap games (no setting) the position's turn.  A
    blocked side's own removal (``xd5``), as each of H'ajeb's end
    removals, is a turn of the record that the position's turn does not
    count: the removals of its ``off=`` field are added (without that
    field, none are assumed)."""
    if not start:
        return 1
    game = game_from_position(variant, start)
    if isinstance(game, LeapGame):
        return max(game.turn, 1)
    if game.setting:
        a, d = game.bitboards()
        return (a | d).bit_count() // 2 + 1
    removed = game.off_board(0)[2] + game.off_board(1)[2]
    return variant.pieces_per_side + game.turn + removed


def numbered_turns(game: AnyGame) -> list[tuple[int, list[str]]]:
    """The game's turns of record tokens with their numbers, from
    :func:`first_turn` of the position it began from."""
    return list(enumerate(group_turns(game), first_turn(game.variant, game.start_position)))


def _record_first_turn(record: Record) -> int:
    try:
        return first_turn(record.rules(), record.tags.get("Position"))
    except (RulesError, RecordError, ValueError):
        return 1  # a record that cannot be replayed is still written, from 1


def write_record(record: Record, width: int = 79) -> str:
    """The record as text: tags, a blank line, wrapped movetext (the turns
    numbered from :func:`first_turn` of its ``Position``)."""
    lines = [f'[{k} "{_escape(v)}"]' for k, v in record.tags.items()]
    lines.append("")
    words: list[str] = []
    for i, turn in enumerate(record.turns, _record_first_turn(record)):
        words.append(f"{i}.")
        words.extend(turn.tokens)
        words.extend(turn.comments)
    words.append(record.result)
    line = ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    """A tag's value as the record writes it: quotes and backslashes
    escaped, and what would break the line or hide text (a line break, a
    NUL, a bidi override: :func:`on_one_line`) written as '?', so a value
    never ends its tag or line."""
    text = on_one_line(value)
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def read_record(handle: TextIO) -> Record:
    """Read one record from an open text handle."""
    return parse_record(handle.read())


def parse_record(text: str) -> Record:
    """Read one record; :class:`RecordError` names the line and the token."""
    record = Record()
    lines = text.splitlines()
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].lstrip().startswith("["):
        raw = lines[i].strip()
        m = _TAG_RE.fullmatch(raw)
        if not m:
            raise RecordError(f"line {i + 1}: cannot read tag {raw!r} (expected [Name \"value\"])")
        if m[1] in record.tags:  # which one is meant?
            raise RecordError(f"line {i + 1}: tag {m[1]} given twice")
        record.tags[m[1]] = _unescape(m[2])
        i += 1
    rules = record.rules()
    geometry = rules.geometry
    result: str | None = None
    turn: Turn | None = None
    body = "\n".join(lines[i:])
    n, counted = i + 1, 0  # the line number of body[counted]
    for m in _TOKEN_RE.finditer(body):
        tok = m[0]
        n += body.count("\n", counted, m.start())  # from the last token on: linear
        counted = m.start()
        if result is not None:
            raise RecordError(f"line {n}: token {tok!r} after the result {result}")
        if tok.startswith("{"):
            if "}" not in tok:
                raise RecordError(f"line {n}: comment not closed")
            if turn is None:
                raise RecordError(f"line {n}: a comment before the first turn")
            turn.comments.append(tok)
        elif tok in RESULTS:
            result = tok
        elif re.fullmatch(r"\d+\.", tok):  # a turn begins (its number not checked)
            turn = Turn([], line=n)
            record.turns.append(turn)
        elif turn is None:
            raise RecordError(f"line {n}: token {tok!r} before the first turn number")
        else:
            try:
                split_token(rules, geometry, tok)
            except RulesError as exc:
                raise RecordError(f"line {n}: token {tok!r}: {exc}") from None
            turn.tokens.append(tok)
    if result is None:
        raise RecordError("the movetext does not end with a result (1-0, 0-1, 1/2-1/2 or *)")
    tagged = record.tags.get("Result")
    if tagged is not None and tagged != result:
        raise RecordError(f"tag Result {tagged!r} but the movetext ends {result!r}")
    for t in record.turns:
        if not t.tokens:
            raise RecordError(f"line {t.line}: turn with no moves")
    record.result = result
    return record
