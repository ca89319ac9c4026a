"""A board's game records (KGN) as the hall reads and writes them.

Reading a record fast, without the rules: its ``GameId`` and ``Store``
tags (:data:`GAME_ID`, :data:`STORE_TAG`) and how many actions its moves
hold (:func:`count_actions`), so the hall reads a record whole only when
it holds moves the hall lacks; the positions of a stored game
(:func:`positions_of`); and a game as it goes into the evening's file
(:func:`record_text`), for the variants these rules know
(:func:`known_variant`).  Used by :mod:`controller.hall.model`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from controller.rules import AnyGame
from controller.rules.record import RESULTS, Record

from .protocol import Unreplayable, apply_token, stored_start

if TYPE_CHECKING:
    from .boards import HallGame

__all__ = ["COMMENT", "GAME_ID", "STORE_TAG", "count_actions", "known_variant", "positions_of",
           "record_text"]

GAME_ID = re.compile(r'^\[GameId "(\d{1,12})"\]', re.M)
STORE_TAG = re.compile(r'^\[Store "([^"\n]{0,64})"\]', re.M)
# A comment; one not closed runs to the end (each '{' scanning on for a
# '}' that never comes took quadratic time: a quarter megabyte of '{' held
# the hall for a minute).
COMMENT = re.compile(r"\{[^}]*\}?")


@lru_cache(maxsize=256)
def known_variant(name: str) -> bool:
    """Whether these rules know ``name``: the hall numbers its moves by
    turn and writes its games in the evening's file; else the page says
    the moves are shown as the board sent them."""
    from controller.rules import find_any_variant

    try:
        find_any_variant(name)
    except (ValueError, LookupError):
        return False
    return True


def record_text(board: str, g: HallGame) -> str | None:
    """The game's record for the evening's file: the board's own, or the
    moves as received replayed from the start they carried (up to the
    first one these rules refuse, named in a ``Note`` tag; without the
    moves when the rules refuse the start or options, said in the same
    tag); None for a variant unknown here."""
    if g.record is not None and g.record_moves == g.moves:
        first, _, rest = g.record.partition("\n")
        text = f'{first}\n[BoardId "{board}"]\n{rest}'
        return text if text.endswith("\n") else text + "\n"
    from controller.rules import new_game

    if not known_variant(g.variant):
        return None
    tags = {"Attacker": g.attacker, "Defender": g.defender, "BoardId": board,
            "GameId": str(g.id)}
    try:
        game = stored_start(g.variant, g.options, g.start)
        moves = g.moves
    except Unreplayable as exc:  # options or a start position these rules refuse
        try:
            game = stored_start(g.variant, g.options, None)
        except Unreplayable:
            game = new_game(g.variant)
        moves = []
        tags["Note"] = f"the game received does not replay: {exc}"[:300]
    for token in moves:
        try:
            apply_token(game, token)
        except Unreplayable as exc:  # a garbled message, or a game set up from a position
            tags["Note"] = f"the moves received do not replay from {exc}"[:300]
            break
    return str(Record.from_game(game, tags))


def count_actions(text: str) -> int:
    """How many actions a record's moves hold, read fast (no rules)."""
    parts = text.split("\n\n", 1)
    moves = COMMENT.sub(" ", parts[1] if len(parts) > 1 else "")
    n = 0
    for tok in moves.split():
        if tok in RESULTS or tok.rstrip(".").isdigit():
            continue  # a turn number or the result
        if tok.startswith(("@", "x")) or tok == "pass":
            n += 1
        else:
            n += max(1, tok.count("-") + tok.count("x"))
    return n if "[Termination" not in parts[0] else n + 1


def positions_of(game: AnyGame, tokens: list[str]) -> list[str]:
    replay = game.copy()
    out = []
    for _ in tokens:
        out.append(replay.position())
        replay.pop()
    out.reverse()
    return out
