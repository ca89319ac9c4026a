"""A man crowned in a leap game, in words: the sensors cannot see a king,
so the players are told which soldier to make one, and why a soldier
crowned by a capture (where that ends the chain) does not move on."""

from __future__ import annotations

from controller.rules import AnyGame, LeapGame
from controller.rules.moves import STEP

__all__ = ["crowned_at", "crowned_last", "crowned_words"]


def crowned_words(g: AnyGame, side: int) -> str:
    """"; d8 is crowned: set a second soldier on it" when ``side``'s last
    turn (or its chain going on) crowned a man: the sensors cannot see a
    king, the players make one."""
    p = crowned_at(g, side)
    return f"; {g.geometry.point_names[p]} is crowned: set a second soldier on it" if p >= 0 else ""


def crowned_at(g: AnyGame, side: int) -> int:
    """Where the man that ``side``'s last turn (or its chain going on)
    crowned stands (-1: none)."""
    if not isinstance(g, LeapGame):
        return -1
    steps = []  # the last turn's steps, latest first
    for before, m in reversed(g.history):
        if before.side != side:
            break
        if m.kind == STEP:
            steps.append((before, m))
    if not steps:
        return -1
    (start, first), to = steps[-1], steps[0][1].to
    return -1 if start.kings >> first.frm & 1 or not g.kings >> to & 1 else to


def crowned_last(g: AnyGame, p: int) -> bool:
    """The soldier on ``p`` was crowned by the capture that ended the last
    turn, where crowning ends a chain (English draughts)."""
    if not isinstance(g, LeapGame) or g.variant.promotion != "ends-chain" or not g.history:
        return False
    before, last = g.history[-1]
    return last.kind == STEP and last.capture and crowned_at(g, before.side) == p
