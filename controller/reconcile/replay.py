"""Replaying sensor input through the reconciler (``kharbga-board replay``).

:func:`replay_events` is the one replay: it feeds an *event source* (an
iterable of :mod:`controller.board.sensorlog` events, the
:class:`~controller.board.sensorlog.Header` first, then frames and button
presses in time order) through a fresh reconciler, with the events' times
as the clock, and returns the games recognised and, if asked, the trace.

Where the events come from is the source's business: :func:`log_events`
gives a log's own lines (the direct replay); the drivers give what the
real hardware code reports for a log (``replay --via gpio``:
:func:`controller.drivers.gpio_replay.gpio_events`; ``--via firmware``:
:func:`controller.drivers.firmware_replay.firmware_events`).

The trace has one JSON object for the header and one for every event
(docs/reconciler.md, "Replay"): ``{"t": ..., "status": "...", "leds": {...}}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from controller.board.sensorlog import Button, Event, Frame, Header, LogError, read_log
from controller.board.words import a
from controller.rules import AnyVariant, LeapVariant, find_any_variant, game_from_position
from controller.rules.leap_factory import apply_any_options
from controller.rules.record import Record

from .reconciler import Reconciler, Settings, Update

__all__ = ["ReplayResult", "log_events", "replay", "replay_events", "trace_line"]


@dataclass
class ReplayResult:
    """The games recognised in a log, and the trace lines if asked for."""

    records: list[Record] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    reconciler: Reconciler | None = None

    def text(self) -> str:
        """The records, each followed by a blank line between them."""
        return "\n".join(str(r) for r in self.records)


def trace_line(update: Update) -> str:
    """One line of the trace: time, status and LED roles after an event."""
    return json.dumps({"t": round(update.t, 4), "status": update.status, "leds": update.leds})


def log_events(lines: Iterable[str]) -> Iterator[Event]:
    """A sensor log's own events (:class:`LogError` at the first bad line)."""
    for _n, event in read_log(lines):
        yield event


def replay_events(
    events: Iterable[Event],
    variant: str | AnyVariant | None = "kharbga",
    settings: Settings | None = None,
    trace: bool = False,
    start: str | None = None,
) -> ReplayResult:
    """Feed an event source through a fresh reconciler (its game from the
    position string ``start``, if given; else the variant's start).  With
    ``variant`` None, the game the log's header names (variant, options
    and start: a log the service wrote), else kharbga.

    :class:`LogError` if the source does not start with a header for the
    variant's board, or names a game these rules do not know (and whatever
    the source itself raises).
    """
    given = None if variant is None else find_any_variant(variant)  # before the log is read
    it = iter(events)
    header = next(it, None)
    if not isinstance(header, Header):
        raise LogError("the log does not start with a header line")
    v = _variant(header) if given is None else given
    if variant is None and start is None:
        start = header.start
    board = v.board if isinstance(v, LeapVariant) else f"{v.size}x{v.size}"
    if header.board != board:
        raise LogError(
            f"header: the log is for {a(header.board)} board, "
            f"variant {v.name} is played on {board}"
        )
    try:
        game = game_from_position(v, start) if start else None
    except ValueError as exc:
        if variant is not None:
            raise
        raise LogError(f"header: its start {start!r} is not a {v.name} position ({exc})"
                       ) from None
    out = ReplayResult()
    rec = Reconciler(v, settings, game=game)
    out.reconciler = rec
    if trace:
        out.trace.append(trace_line(rec.tick(header.t)))
    for event in it:
        if not isinstance(event, Frame | Button):
            raise LogError(f"a second header in the log, at {event.t:g} s")
        update = rec.feed(event)
        if trace:
            out.trace.append(trace_line(update))
    rec.finish()
    for game in [*rec.finished, *rec.saved, rec.game]:
        if game.moves:
            out.records.append(Record.from_game(game))
    return out


def _variant(header: Header) -> AnyVariant:
    """The variant a header names, with its options (kharbga if none)."""
    try:
        return apply_any_options(find_any_variant(header.variant or "kharbga"),
                                 header.options or "")
    except ValueError as exc:
        raise LogError(f"header: {exc}") from None


def replay(
    lines: Iterable[str],
    variant: str | AnyVariant = "kharbga",
    settings: Settings | None = None,
    trace: bool = False,
    start: str | None = None,
) -> ReplayResult:
    """The direct replay of a sensor log: :func:`replay_events` over
    :func:`log_events`."""
    return replay_events(log_events(lines), variant, settings, trace, start)
