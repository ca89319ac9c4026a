"""What the reconciler knows beyond the game, for what the players are
told (:mod:`.present`'s status line, :mod:`.lights`' LED roles), and the
readings of the board both use."""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules import AnyGame, LeapGame
from controller.rules.moves import STEP, Move

from .crown_words import crowned_at

__all__ = ["TITLE", "View", "crowning", "empty_starts", "names_of", "placeable", "setting_up",
           "step_targets"]

TITLE = ("Attacker", "Defender")


@dataclass(frozen=True, slots=True)
class View:
    """What the status line and the LEDs show besides the game."""

    lifted: int = -1  # the soldier in the hand, or set down where it cannot go (-1: none)
    targets: int = 0  # where it may go
    errors: int = 0  # squares that differ from the expected board, once lit
    standing: int = 0  # pieces the rules took off that still stand
    exchanged: int = 0  # those an exchange took (the others were captured)
    hint: int = 0  # squares of a suggested move
    flags: tuple[bool, bool] = (False, False)  # exchange flags raised, per side
    expected: Move | None = None  # the computer's action to make
    undone: int = 0  # error squares the undo button changed
    seen: tuple[int, int] | None = None  # each side's pieces as a colour sensor saw them
    unseen: int = 0  # squares read unknown for long: the reading waits for them
    thinking: bool = False  # the computer searches its action: nothing is accepted
    setup: bool = False  # a leap game's soldiers being set up (the board has not yet fit)
    huffed: int = 0  # a huff owed still standing, the move after it made (once lit)
    knocked: int = 0  # the one piece missing that keeps the reading from an action (lit)
    owed: int = 0  # captured soldiers off that, set back, take the capture back (lit)
    off: int = 0  # points of the game's soldiers the reading shows empty
    # The person's optional chain, the computer to answer a pass: its reply
    # (None: not chosen yet), lit; ``stop_answered`` False: no such chain.
    stop_answered: bool = False
    after_pass: Move | None = None


def names_of(g: AnyGame, bits: int) -> list[str]:
    names = g.geometry.point_names
    return [names[p] for p in range(len(names)) if bits >> p & 1]


def setting_up(g: AnyGame, v: View) -> bool:
    """A leap game being set up (after a clear, before the board first
    fits its start) with soldiers still missing from their starting points
    (a soldier on a wrong point besides is an error of its own)."""
    if not v.setup or not isinstance(g, LeapGame) or g.ply or g.outcome is not None:
        return False
    return bool(empty_starts(g, v))


def empty_starts(g: AnyGame, v: View) -> int:
    """The starting points lit as errors that the reading shows empty (a
    camera sees the wrong side's soldier on one: an error of its own)."""
    a, d = g.bitboards()
    shown = v.seen[0] | v.seen[1] if v.seen is not None else 0
    return v.errors & (a | d) & ~shown


def placeable(g: AnyGame) -> int:
    """The points the side to move may place a soldier on (setting phase)."""
    allowed = 0
    for m in g.legal_moves():
        allowed |= 1 << m.to
    return allowed


def step_targets(g: AnyGame) -> int:
    """The points the side to move may step to (in a chain: where its
    soldier captures next)."""
    targets = 0
    for m in g.legal_moves():
        if m.kind == STEP:
            targets |= 1 << m.to
    return targets


def crowning(g: AnyGame, v: View) -> int:
    """The man the last turn crowned, when it is all that is off the board
    (lifted off alone to be made a king: a soldier stacked, or the piece
    flipped); else 0."""
    p = crowned_at(g, 1 - g.side)
    crowned = p >= 0 and v.errors == 1 << p and g.outcome is None and not v.thinking
    return v.errors if crowned and not (v.seen is not None and _seen_here(g, v, p)) else 0


def _seen_here(g: AnyGame, v: View, p: int) -> bool:
    """Does a colour sensor see a soldier on ``p``?"""
    assert v.seen is not None
    return bool((v.seen[0] | v.seen[1]) >> p & 1)
