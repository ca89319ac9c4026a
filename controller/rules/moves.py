"""Moves, outcomes and the errors of the rules engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "ATTACKER",
    "DEFENDER",
    "SIDE_NAMES",
    "Move",
    "Outcome",
    "Termination",
    "REASONS",
    "reason_words",
    "action_words",
    "RulesError",
    "IllegalMoveError",
    "NotationError",
    "PositionError",
    "MAX_COUNT",
    "position_count",
]

ATTACKER = 0
DEFENDER = 1
SIDE_NAMES = ("attacker", "defender")


class RulesError(ValueError):
    """Root of the rules engine's errors; every one is a ``ValueError``."""


class IllegalMoveError(RulesError):
    """A move that the rules do not allow in this position."""


class NotationError(RulesError):
    """A move, square or record token that cannot be read."""


class PositionError(RulesError):
    """A position string that cannot be read or describes no legal state."""


MAX_COUNT = 1_000_000
"""The largest turn number or count a position string may give (a real game
ends long before; the compiled core keeps them in 32 bits)."""


def position_count(text: str, what: str, low: int = 0) -> int:
    """``text`` as a whole number from ``low`` to :data:`MAX_COUNT`, or a
    :class:`PositionError` naming ``what``."""
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= MAX_COUNT:
        raise PositionError(f"{what} {text!r} is not a whole number from {low} to {MAX_COUNT:,}")
    return int(text)


class Termination(StrEnum):
    """Why a game ended."""

    ALL_CAPTURED = "all-captured"
    BLOCKED = "blocked"
    BLOCKED_FIRST_TURN = "blocked-first-turn"
    NO_PROGRESS = "no-progress"
    REPETITION = "repetition"
    BARRIER = "barrier"
    TURN_LIMIT = "turn-limit"
    RESIGNATION = "resignation"
    AGREEMENT = "agreement"


# Why a game ended, in words (the board page, its status line and archive,
# the hall page).
REASONS = {
    "all-captured": "all soldiers captured",
    "blocked": "the losing side could not move",
    "blocked-first-turn": "blocked on the first move",
    "no-progress": "no capture for too long",
    "repetition": "the same position three times",
    "barrier": "a barrier neither side can break",
    "turn-limit": "the turn limit was reached",
    "resignation": "resignation",
    "agreement": "agreed by the players",
}


def reason_words(reason: str | None) -> str:
    """A termination code (``all-captured``) as words a player reads."""
    if not reason:
        return ""
    return REASONS.get(reason, reason.replace("-", " "))


def outcome_said(winner: str | None, reason: str | None) -> str:
    """A game's end in words: ``Defender wins (all soldiers captured)``,
    ``Draw (the turn limit was reached)``; the winner alone when no reason is
    known."""
    who = f"{winner.capitalize()} wins" if winner else "Draw"
    why = reason_words(reason)
    return f"{who} ({why})" if why else who


def action_words(token: str) -> str:
    """An action's token, with what to do in words when it is of one point
    (``@c2 (set a soldier on c2)``, ``xb4 (take the soldier on b4 off)``):
    a step's two points say it themselves."""
    if token.startswith("@"):
        return f"{token} (set a soldier on {token[1:]})"
    if token.startswith("x"):
        return f"{token} (take the soldier on {token[1:]} off)"
    return token


@dataclass(frozen=True)
class Outcome:
    """The end of a game: ``winner`` is ``"attacker"``, ``"defender"`` or
    ``None`` for a draw; ``kind`` is ``"major"`` or ``"minor"`` in variants
    that grade wins, else ``None``."""

    winner: str | None
    reason: str
    kind: str | None = None

    @property
    def result(self) -> str:
        """The record's result token: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner == "attacker":
            return "1-0"
        if self.winner == "defender":
            return "0-1"
        return "1/2-1/2"

    @property
    def said(self) -> str:
        """The end in words: ``Defender wins (all soldiers captured)``,
        ``Draw (the turn limit was reached)``; the board's status and the refusals
        of a finished position say it so."""
        return outcome_said(self.winner, self.reason)


PLACE = "place"
STEP = "step"
PASS = "pass"
REMOVE = "remove"
HAJEB = "hajeb"  # the Defender declares H'ajeb (rule option ``hajeb``)
RESCIND = "rescind"  # the Defender rescinds it


@dataclass(frozen=True)
class Move:
    """One action: a placement, a step, a ``pass``, a removal, or the
    declaration (``hajeb``) or rescinding (``rescind``) of H'ajeb.

    ``capture`` is true for a step that captures; ``flag`` marks a step
    made with the exchange flag raised.  ``str(move)`` is its notation.
    """

    kind: str
    to: int = -1
    frm: int = -1
    capture: bool = False
    flag: bool = False
    names: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __str__(self) -> str:
        names = self.names
        if self.kind == STEP:
            sep = "x" if self.capture else "-"
            return f"{names[self.frm]}{sep}{names[self.to]}{'=' if self.flag else ''}"
        if self.kind == PLACE:
            return f"@{names[self.to]}"
        if self.kind == REMOVE:
            return f"x{names[self.to]}"
        if self.kind in (HAJEB, RESCIND):
            return self.kind
        return "pass"

    @property
    def from_square(self) -> str | None:
        return self.names[self.frm] if self.frm >= 0 else None

    @property
    def to_square(self) -> str | None:
        return self.names[self.to] if self.to >= 0 else None
