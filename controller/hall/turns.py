"""A hall game's moves as the board page and the KGN record write them.

The hall receives single actions (``@c5``, ``d3xd4``, ``resign:defender``);
spectators read turns: ``4. @c5 @e5`` (a setting turn is two placements),
``25. d3xd4``, a chain as one token.  The grouping is the record's own
(:func:`controller.rules.record.group_turns`), run on the game replayed
from the actions received, numbered as the record numbers them (a game
set up from a position from that position's turn); a resignation or an
agreement is no move but the game's end, said in words ("Defender
resigned: Attacker wins").  Actions the rules refuse follow as turns of
one token, numbered on from the last turn replayed (from the position's
first turn when none was).

The replay is kept between messages: a move appended costs one action,
only a game taken back or replaced is replayed from its start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.rules import AnyGame
from controller.rules.moves import reason_words
from controller.rules.record import first_turn, numbered_turns

from .protocol import Unreplayable, apply_token, stored_start

__all__ = ["Replay", "Turns", "ending_words", "turns_of"]


@dataclass
class Turns:
    """The numbered turns (``[[n, [token, ...]], ...]``) and how the game
    ended in words (None while it goes on, or when the hall cannot say)."""

    turns: list[list[Any]] = field(default_factory=list)
    ending: str | None = None


@dataclass
class Replay:
    """The game as replayed so far, and what it was replayed from."""

    key: tuple[object, ...]
    game: AnyGame | None  # None: these rules do not replay its start
    played: list[str] = field(default_factory=list)  # the tokens applied
    stuck: bool = False  # an action was refused: the rest is not replayed
    shown: Turns | None = None


def turns_of(replay: Replay | None, key: tuple[object, ...], variant: str, options: str,
             start: str | None, moves: list[str]) -> tuple[Replay, Turns]:
    """The turns of ``moves`` (a game of ``variant`` set up with ``options``
    from ``start``), reusing ``replay`` where it still holds (same ``key``,
    its tokens a beginning of ``moves``).  Actions the rules refuse (a
    garbled message, an unknown variant) follow as turns of one token."""
    if replay is None or replay.key != key or moves[:len(replay.played)] != replay.played:
        try:
            game: AnyGame | None = stored_start(variant, options, start)
        except Unreplayable:
            game = None
        replay = Replay(key, game)
    if replay.shown is not None and len(replay.played) == len(moves):
        return replay, replay.shown
    for token in moves[len(replay.played):]:
        if replay.game is None or replay.stuck:
            break
        try:
            apply_token(replay.game, token)
        except Unreplayable:
            replay.stuck = True
            break
        replay.played.append(token)
    out = Turns()
    g = replay.game
    if g is not None:
        out.turns = [[num, turn] for num, turn in numbered_turns(g)]
        out.ending = ending_words(g)
    # The number before the next turn: the last one's, else the record's
    # first turn's (a start these rules do not set up counts from 1).
    n = out.turns[-1][0] if out.turns else \
        (first_turn(g.variant, g.start_position) - 1 if g is not None else 0)
    for token in moves[len(replay.played):]:
        n += 1
        out.turns.append([n, [token]])
    replay.shown = out
    return replay, out


def ending_words(game: AnyGame) -> str | None:
    """How the game ended, in words: "Defender resigned: Attacker wins",
    "Draw agreed", "Attacker wins: all soldiers captured"; None while it
    goes on."""
    o = game.outcome
    if o is None:
        return None
    winner = o.winner.capitalize() if o.winner else None
    if o.reason == "resignation" and o.winner:
        loser = "Defender" if o.winner == "attacker" else "Attacker"
        return f"{loser} resigned: {winner} wins"
    if o.reason == "agreement":
        return "Draw agreed"
    if o.reason == "barrier":
        return f"Barrier agreed: {winner} wins" if winner else "Barrier agreed: a draw"
    return f"{winner} wins: {reason_words(o.reason)}" if winner \
        else f"Draw: {reason_words(o.reason)}"
