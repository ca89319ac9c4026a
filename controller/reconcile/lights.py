"""The LED roles lit for the game and a :class:`.View`
(docs/reconciler.md, "LED roles")."""

from __future__ import annotations

from collections.abc import Sequence

from controller.board.leds import LedMap, paint
from controller.rules import AnyGame, LeapGame, State
from controller.rules.leap import LeapState
from controller.rules.moves import STEP, Move

from .view import View, crowning, empty_starts, placeable, setting_up, step_targets

__all__ = ["leds"]


def _last_move(g: AnyGame) -> tuple[int, int] | None:
    """Where the last move started and ended: a capture chain from where
    its soldier began the turn to where it stands."""
    frm = to = -1
    history: Sequence[tuple[State | LeapState, Move]] = g.history
    for snap, m in reversed(history):
        if m.kind != STEP:
            if to >= 0:
                break
            continue
        frm = m.frm
        if to < 0:
            to = m.to
        if snap.chain == -1:
            break
    return (frm, to) if to >= 0 else None


def leds(g: AnyGame, v: View) -> LedMap:
    """The LED role of each lit square (docs/reconciler.md, "LED roles"),
    the higher role winning where two meet."""
    names = g.geometry.point_names
    out: LedMap = {}
    if g.outcome is None and g.phase == "setting":
        a, d = g.bitboards()
        empty = g.geometry.full & ~(a | d) & ~(1 << g.geometry.centre)
        allowed = placeable(g)
        if allowed != empty:
            paint(out, allowed, "setup", names)
    last = _last_move(g)
    if last is not None and g.outcome is None:
        a, d = g.bitboards()
        paint(out, 1 << last[0], "last-from", names)
        paint(out, 1 << last[1] & (a | d), "last-to", names)  # not once huffed away
    paint(out, v.hint, "hint", names)
    suggested = v.hint
    # The computer's reply to a stop, unless a hint for the person is lit.
    for e in (v.expected, v.after_pass if not v.hint else None):
        if e is not None and g.outcome is None:
            suggested |= sum(1 << x for x in (e.frm, e.to) if x >= 0)
            paint(out, suggested, "hint", names)
    if g.outcome is None and g.chain_point >= 0:
        targets = step_targets(g)
        # A suggested (or the computer's) capture keeps its own light, and
        # another soldier lifted (the other side ends an optional chain)
        # has only its own destinations lit.
        if v.lifted < 0:
            paint(out, targets & ~suggested, "destination", names)
        paint(out, 1 << g.chain_point & ~suggested, "continue", names)
    if v.lifted >= 0:
        paint(out, v.targets, "destination", names)
        paint(out, 1 << v.lifted, "lifted", names)
    # A huff owed: the soldiers it may take (the one suggested is lit so);
    # with a soldier in the hand that may move, the huff is made already.
    if isinstance(g, LeapGame) and g.outcome is None and not (v.lifted >= 0 and v.targets):
        # One already taken off is not lit: nothing stands there to remove.
        paint(out, g.huff & ~v.off & ~suggested, "capture", names)
    ex = g.exchange
    if ex is not None and g.outcome is None:  # the request shown on its soldiers
        paint(out, sum(1 << p for p in (ex.soldier, ex.first, ex.second) if p >= 0),
              "exchange-request", names)
    paint(out, v.standing & v.exchanged, "exchange", names)
    paint(out, v.standing & ~v.exchanged, "capture", names)
    if setting_up(g, v):
        empty = empty_starts(g, v)
        paint(out, empty, "setup", names)
        paint(out, v.errors & ~empty, "error", names)
    else:
        # The man just crowned lifted off to be made a king: where to set
        # the king (the soldier in the hand goes there), an instruction, not
        # an error.
        crowned = crowning(g, v)
        paint(out, crowned, "destination", names)
        paint(out, v.errors & ~crowned, "error", names)
    return out
