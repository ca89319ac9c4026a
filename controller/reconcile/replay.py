"""Replaying a sensor log through the reconciler (``kharbga-board replay``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.board.sensorlog import Button, Frame, Header, LogError, read_log
from controller.rules import find_variant
from controller.rules.record import Record

from .reconciler import Reconciler, Settings, Update

__all__ = ["ReplayResult", "replay"]


@dataclass
class ReplayResult:
    """The games recognised in a log, and the trace lines if asked for."""

    records: list[Record] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    reconciler: Reconciler | None = None

    def text(self) -> str:
        """The records, each followed by a blank line between them."""
        return "\n".join(str(r) for r in self.records)


def _trace_line(update: Update) -> str:
    return json.dumps(
        {"t": round(update.t, 4), "status": update.status, "leds": update.leds},
        sort_keys=False,
    )


def replay(
    lines: Iterable[str],
    variant: str = "kharbga",
    settings: Settings | None = None,
    trace: bool = False,
) -> ReplayResult:
    """Feed a log through a fresh reconciler; :class:`LogError` on bad input."""
    v = find_variant(variant)
    out = ReplayResult()
    rec = Reconciler(v, settings)
    out.reconciler = rec
    for n, event in read_log(lines):
        if isinstance(event, Header):
            if event.size != v.size:
                raise LogError(
                    f"line {n}: the log is for a {event.board} board, "
                    f"variant {v.name} is played on {v.size}x{v.size}"
                )
            if trace:
                out.trace.append(_trace_line(rec.tick(event.t)))
            continue
        assert isinstance(event, Frame | Button)
        update = rec.feed(event)
        if trace:
            out.trace.append(_trace_line(update))
    rec.finish()
    for game in [*rec.finished, *rec.saved, rec.game]:
        if game.moves:
            out.records.append(Record.from_game(game))
    return out
