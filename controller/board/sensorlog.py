"""Sensor logs: JSON Lines of frames and button presses, as below (what the
reconciler reads: docs/reconciler.md, "Inputs").

::

    {"t": 0.0, "board": "7x7", "sensor": "occupancy"}     header, first line
    {"t": 1.25, "occ": "0110..."}                          occupancy frame
    {"t": 1.25, "cells": "ad.?..."}                        colour frame
    {"t": 3.0, "button": "hint", "side": "defender"}       button press

Squares are in the order a1, b1, .., g1, a2, .., g7 on the 7x7 board (a1
.. e5 on 5x5).  The leap-capture games' boards are ``"37-point"`` (37
characters) and ``"8x8"`` (64, a1 .. h1, a2, .. h8): each frame has one
character per point in the order of the board's geometry
(:mod:`controller.board.boards`).  Reading a log checks every line and
raises :class:`LogError` naming the line for anything off.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from .events import BUTTONS, Button, Frame
from .sides import SIDES
from .words import place

__all__ = [
    "BUTTONS",
    "Button",
    "Frame",
    "Header",
    "LogError",
    "Event",
    "parse_line",
    "read_log",
    "read_occupancy_log",
    "format_event",
    "write_log",
]

SENSORS = ("occupancy", "colour")
MAX_GAME_TEXT = 400  # the longest variant, options or start a header may give
# The boards a header may name, with the characters of each frame.
BOARDS: dict[str, int] = {"7x7": 49, "5x5": 25, "37-point": 37, "8x8": 64}


class LogError(ValueError):
    """A sensor log line that cannot be used; the message names the line."""


@dataclass(frozen=True)
class Header:
    """The first line: board and sensor kind; and, in a log the service
    wrote for a game (``games log``), the game's variant, its options and
    the position it started from (none: the variant's start), so that a
    replay needs no ``--variant``."""

    t: float
    board: str
    sensor: str
    variant: str | None = None
    options: str | None = None
    start: str | None = None

    @property
    def size(self) -> int:
        """The side of a square board (5, 7 or 8); 0 for the 37-point board."""
        side = self.board.split("x")[0]
        return int(side) if side.isdigit() and "x" in self.board else 0

    @property
    def squares(self) -> int:
        """The characters of each frame: the board's point count."""
        return BOARDS[self.board]


Event = Header | Frame | Button


LATEST_T = 1e10  # seconds (some 317 years): a log's clock, or a wall clock's, is far below


def _time(obj: dict[str, object]) -> float:
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t < LATEST_T:
        told = repr(t) if len(repr(t)) <= 40 else f"{repr(t)[:37]}..."
        raise ValueError(f"'t' must be a number of seconds from 0 to 10,000,000,000, not {told}")
    return float(t)


def parse_line(text: str, squares: int | None, sensor: str | None = None) -> Event:
    """One log line as an event; ``ValueError`` says what is wrong.

    ``squares`` is the board's square count (None for the header line).
    """
    try:  # its end of line is no part of it ("Unterminated string", not "control character")
        obj = json.loads(text.rstrip("\r\n"))
    except json.JSONDecodeError as exc:  # "Unterminated string starting at": where
        raise ValueError(f"not JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})"
                         ) from None
    except RecursionError:
        raise ValueError("not a log line (JSON nested too deeply)") from None
    except ValueError:  # Python's limit on the digits of an integer it converts
        raise ValueError(f"not a log line (an integer of more than "
                         f"{sys.get_int_max_str_digits()} digits)") from None
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    t = _time(obj)
    if squares is None:
        board = obj.get("board")
        kind = obj.get("sensor")
        if not isinstance(board, str) or board not in BOARDS:
            known = ", ".join(f'"{b}"' for b in BOARDS)
            if "board" not in obj:  # a frame first, or a header cut: not "not None"
                raise ValueError(f"the header names no 'board' (one of {known}): a sensor log "
                                 'starts with one, such as {"t": 0.0, "board": "7x7", '
                                 '"sensor": "occupancy"}')
            raise ValueError(f"header 'board' must be one of {known}, not {board!r}")
        if kind not in SENSORS:
            raise ValueError(f"header 'sensor' must be \"occupancy\" or \"colour\", not {kind!r}")
        game: dict[str, str | None] = {}
        for key in ("variant", "options", "start"):
            value = obj.get(key)
            if value is not None and (not isinstance(value, str) or len(value) > MAX_GAME_TEXT):
                raise ValueError(f"header '{key}' must be a string of at most {MAX_GAME_TEXT} "
                                 f"characters, not {str(value)[:40]!r}")
            game[key] = value
        return Header(t, board, str(kind), **game)
    keys = {"occ", "cells", "button"} & obj.keys()
    if not keys and "board" in obj:
        raise ValueError("a second header: a log has one, on its first line")
    if len(keys) != 1:
        raise ValueError("a line needs exactly one of 'occ', 'cells' or 'button'")
    key = keys.pop()
    if key == "button":
        name = obj["button"]
        side = obj.get("side")
        if name not in BUTTONS:
            raise ValueError(f"unknown button {name!r} (known: {', '.join(BUTTONS)})")
        if side is not None and side not in SIDES:
            raise ValueError(f"button side must be \"attacker\" or \"defender\", not {side!r}")
        return Button(t, str(name), side if side is None else str(side))
    value = obj[key]
    names = [b for b, n in BOARDS.items() if n == squares]
    if not isinstance(value, str) or len(value) != squares:
        got = len(value) if isinstance(value, str) else type(value).__name__
        board = f" (the {names[0]} board)" if names else ""
        raise ValueError(f"'{key}' must be a string of {squares} characters{board}, got {got}")
    noun = place(names[0]) if names else "square"  # "at point 36" on the 37-point board
    if key == "occ":
        if sensor == "colour":
            raise ValueError("an 'occ' frame in a colour log")
        return Frame.from_occ(t, value, noun)
    if sensor == "occupancy":
        raise ValueError("a 'cells' frame in an occupancy log")
    return Frame.from_cells(t, value, noun)


MAX_LINE = 2**16  # characters a log line may have: a frame of the largest board is a few hundred


def log_lines(handle: TextIO, limit: int = MAX_LINE,
              torn: list[str] | None = None) -> Iterator[str]:
    """The lines of an open sensor log, none read beyond ``limit``
    characters: :class:`LogError` for a longer one (a file of another kind
    given by mistake, /dev/zero), which is never read whole.

    With ``torn`` given, a last line cut short (no end of line, and not a
    whole JSON object: a log copied while it was being written, a logger
    stopped mid-line) is left out and said in ``torn``, so that the lines
    before it still replay; a bad line anywhere else is the reader's error."""
    n = 0
    while line := handle.readline(limit + 1):
        n += 1
        if len(line) > limit:
            raise LogError(f"line {n}: longer than {limit // 1024} KiB: not a sensor log")
        if torn is not None and not line.endswith("\n") and n > 1 and _cut_short(line):
            torn.append(f"line {n}: cut short (no end of line); the {n - 1} lines before it "
                        "were replayed")
            return
        yield line


def _cut_short(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return True
    return False


def read_log(lines: Iterable[str]) -> Iterator[tuple[int, Event]]:
    """Events with their line numbers; :class:`LogError` at the first bad
    line (blank lines are skipped; times must not go backwards)."""
    squares: int | None = None
    sensor: str | None = None
    last_t = 0.0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if n == 1 and line.startswith("\ufeff"):  # as some Windows editors save a file
            raise LogError("line 1: starts with a byte-order mark (BOM): a sensor log is "
                           "UTF-8 without one")
        try:
            event = parse_line(line, squares, sensor)
        except ValueError as exc:
            where = " (header)" if squares is None else ""
            raise LogError(f"line {n}{where}: {exc}") from None
        if isinstance(event, Header):
            squares = event.squares
            sensor = event.sensor
        elif event.t + 1e-9 < last_t:
            raise LogError(f"line {n}: time {event.t} goes back (previous {last_t})")
        last_t = max(last_t, event.t)
        yield n, event
    if squares is None:
        raise LogError("empty log: no header line")


def read_occupancy_log(lines: Iterable[str], through: str) -> tuple[Header, list[Frame | Button]]:
    """The header and the events of a log that only occupancy sensors can
    replay (``through`` says what, e.g. "via gpio: the reed-switch matrix
    senses occupancy only"); :class:`LogError` for a colour log."""
    numbered = list(read_log(lines))
    n, header = numbered[0]
    assert isinstance(header, Header)
    if header.sensor != "occupancy":
        raise LogError(f"line {n} (header): a {header.sensor} log cannot be replayed {through}")
    return header, [e for _n, e in numbered[1:] if isinstance(e, Frame | Button)]


def format_event(event: Event, squares: int) -> str:
    """One log line (no newline) for ``event``."""
    t = round(event.t, 4)
    if isinstance(event, Header):
        head: dict[str, object] = {"t": t, "board": event.board, "sensor": event.sensor}
        for key in ("variant", "options", "start"):
            if getattr(event, key):
                head[key] = getattr(event, key)
        return json.dumps(head)
    if isinstance(event, Button):
        obj: dict[str, object] = {"t": t, "button": event.button}
        if event.side is not None:
            obj["side"] = event.side
        return json.dumps(obj)
    key = "cells" if event.colour else "occ"
    return json.dumps({"t": t, key: event.text(squares)})


def write_log(events: Iterable[Event], handle: TextIO, squares: int) -> None:
    for event in events:
        handle.write(format_event(event, squares) + "\n")
