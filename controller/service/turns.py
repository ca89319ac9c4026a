"""The turns of a stored game as the page, the record and the viewer
count them: each action's turn number, each action's label, and the
seconds each turn took."""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules import AnyGame
from controller.rules.record import group_turns, numbered_turns

__all__ = ["action_labels", "actions_in", "turn_clocks", "turn_numbers"]


def turn_numbers(game: AnyGame) -> list[int]:
    """For each action of ``game``, the number of the turn it belongs to in
    the record (the page, the record and the viewer count turns alike)."""
    out: list[int] = []
    for n, turn in numbered_turns(game):
        for tok in turn:
            out.extend([n] * actions_in(tok))
    return out[:len(game.moves)]


def action_labels(actions: Sequence[str], turns: Sequence[int]) -> list[str]:
    """Each action as the viewer names it: ``6. @d2`` (the record's turn
    number), ``Attacker resigns``, ``draw agreed``."""
    out = []
    for i, token in enumerate(actions):
        if token.startswith("resign:"):
            out.append(f"{token.split(':')[1].capitalize()} resigns")
        elif token == "agreement":
            out.append("draw agreed")
        elif token == "barrier":
            out.append("barrier agreed")
        else:
            out.append(f"{turns[i]}. {token}" if i < len(turns) else token)
    return out


def turn_clocks(game: AnyGame, times: Sequence[float], start: float) -> list[float]:
    """Seconds each turn took, from the wall-clock time of each action; the
    first turn's from ``start``, the game's (unless it is no time at or
    before the first action: NaN, or later, in an archive edited by hand)."""
    out = []
    i = 0
    last = times[0] if times else 0.0
    if start <= last:  # False for NaN
        last = start
    for turn in group_turns(game):
        i += sum(actions_in(tok) for tok in turn)
        t = times[min(i, len(times)) - 1] if times and i else last
        out.append(max(0.0, t - last))
        last = t
    return out


def actions_in(token: str) -> int:
    """How many single actions a record token holds (a chain: its steps)."""
    if token.startswith(("@", "x")) or token == "pass":
        return 1
    return token.count("-") + token.count("x")
