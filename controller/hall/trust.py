"""What the hall believes of a board's message: the time of its move and
its ``seq``.

A board's clock may be wrong (a Pi without a clock battery and without
network time starts at the time it last shut down) and a message may be
garbled or forged: the hall shows a move at the board's own time only
when that time is plausible, and follows a board's ``seq`` only in steps
a board can take.  Pure functions of their inputs; the hall says in its
log what it did not believe (:mod:`controller.hall.model`).  See
docs/broadcast.md ("What the hall believes").
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeGuard

__all__ = [
    "MAX_AGE", "MAX_AHEAD", "MAX_JUMP", "MAX_SEQ", "is_int", "move_time", "seq_trouble", "span",
    "strict_json",
]

MAX_AHEAD = 10.0  # seconds a move's time may lie after the hall's clock
MAX_AGE = 12 * 3600.0  # seconds a move's time may lie before it (moves queued all evening)
MAX_SEQ = 2**53  # beyond any count a board reaches (and beyond a page's exact integers)
MAX_JUMP = 10_000  # messages of a board the hall may have missed (more than an evening's)


def move_time(t: object, received: float, sent: object = None) -> tuple[float, str | None]:
    """The time to show for a move the board says it confirmed at ``t``,
    received at ``received`` (the hall's clock), and why the board's own
    time was not taken as it is (None: it was).  ``sent``: the board's
    clock when it sent the message (boards before this field send none);
    where it differs from ``received`` by more than :data:`MAX_AHEAD`,
    the board's clock is off by that much and ``t`` is moved by it."""
    if _number(sent) and _number(t) and abs(received - sent) > MAX_AHEAD:
        off = received - sent  # the board's clock behind the hall's (ahead: negative)
        shown, why = move_time(t + off, received)
        if why is None:
            way = "behind" if off > 0 else "ahead of"
            return shown, f"its clock is {span(abs(off))} {way} the hall's"
        return shown, why
    if not isinstance(t, int | float) or isinstance(t, bool):
        return received, f"its move time {str(t)[:20]!r} is not a number"
    if not math.isfinite(t):
        return received, f"its move time {t} is not a time"
    if t > received + MAX_AHEAD:
        return received, f"its clock is {span(t - received)} ahead of the hall's"
    if t < received - MAX_AGE:
        return received, f"its move time is {span(received - t)} behind the hall's clock"
    return float(t), None


def _number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def is_int(v: object) -> TypeGuard[int]:
    """A JSON integer: an int, not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def seq_trouble(seq: int, last: int) -> str | None:
    """Why a moves message's ``seq`` cannot be the board's next (``last``:
    the highest heard from its store, 0 for none), or None."""
    if seq > MAX_SEQ:
        return f"seq {str(seq)[:24]} is beyond any board's count"
    if seq < 1:  # a board counts its messages from 1
        return f"seq {str(seq)[:24]} is below any board's count"
    if last and seq > last + MAX_JUMP:
        return f"seq {seq} jumps {seq - last} messages past the {last} heard last"
    return None


def span(seconds: float) -> str:
    """A length of time in words: "40 s", "12 min", "5 h", "3 days"."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    days = seconds / 86400
    return f"{days:.0f} days" if days < 1e6 else f"{days:.3g} days"


def strict_json(text: str) -> Any:
    """A message's JSON, refusing what JSON itself has no word for
    (``NaN``, ``Infinity``, a number too large for a float): the page
    reads the hall's answers as strict JSON."""
    def finite(word: str) -> float:
        value = float(word)
        if not math.isfinite(value):
            raise ValueError(f"number {word[:20]} out of range")
        return value

    def constant(word: str) -> None:
        raise ValueError(f"{word} is not JSON")

    return json.loads(text, parse_float=finite, parse_constant=constant)
