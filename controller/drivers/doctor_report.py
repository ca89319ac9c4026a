"""What ``kharbga-board doctor`` found, and its drawing for the terminal.

A :class:`Finding` is one fault of a switch (its kind one of
:data:`KINDS`), a :class:`DoctorReport` the findings of a run with the
checks done; :func:`render_switches` draws the board as the switches see
it (or with a letter on each faulty switch, :data:`MARKS`) and
:func:`render_report` the whole report.  The checks that make them are
in :mod:`controller.drivers.doctor`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .mapping import BoardMapping

__all__ = ["KINDS", "MARKS", "DoctorReport", "Finding", "render_report", "render_switches"]

KINDS = ("stuck", "chattering", "never-closes", "misplaced", "neighbour", "ghost")


@dataclass(frozen=True)
class Finding:
    """One fault: its kind (:data:`KINDS`), the switch (``row * columns +
    column``), the square the mapping puts there (-1 for a crossing with
    no switch), and what was seen.
    ``suspects`` are switches whose diode may be missing (ghosts)."""

    kind: str
    switch: int
    square: int
    detail: str
    suspects: tuple[int, ...] = ()


@dataclass
class DoctorReport:
    size: int
    findings: list[Finding] = field(default_factory=list)
    leds_walked: int = 0
    checks: list[str] = field(default_factory=list)
    stopped: bool = False  # the person stopped it before every check ran

    @property
    def ok(self) -> bool:
        return not self.findings and not self.stopped

    def switches(self, kind: str) -> set[int]:
        """The switches with a finding of this kind."""
        return {f.switch for f in self.findings if f.kind == kind}

    def suspects(self) -> set[int]:
        """Switches whose diode may be missing."""
        return {s for f in self.findings for s in f.suspects}



def render_switches(closed: int, mapping: BoardMapping, marks: dict[int, str] | None = None) -> str:
    """The board as the switches see it: ``#`` closed, ``.`` open, or a
    mark per switch (``S`` stuck, ``G`` ghost, ..); rank 1 at the bottom,
    a blank where the board's grid has no sensed point."""
    grid = mapping.layout
    marks = marks or {}
    lines = []
    files = "abcdefghi"[: grid.width]
    for rank in range(grid.height - 1, -1, -1):
        cells = []
        for f in range(grid.width):
            square = grid.point_at(f, rank)
            switch = mapping.switch_index_of_square(square) if square >= 0 else -1
            if switch < 0:
                cells.append(" ")
                continue
            mark = marks.get(switch)
            cells.append(mark if mark else ("#" if closed >> switch & 1 else "."))
        lines.append(f"{rank + 1} " + " ".join(cells))
    if grid.dark_only:  # four dark squares a rank, from file a or b
        lines.append("  (dark squares)")
    else:
        lines.append("  " + " ".join(files))
    return "\n".join(lines)


MARKS = {
    "stuck": "S",
    "chattering": "C",
    "never-closes": "N",
    "misplaced": "M",
    "neighbour": "X",
    "ghost": "G",
}


def render_report(report: DoctorReport, mapping: BoardMapping) -> str:
    """A short report: the board with a letter on every faulty switch and
    one line per finding."""
    marks = {f.switch: MARKS[f.kind] for f in report.findings}
    done = ", ".join(report.checks) or "none"
    if report.ok:
        head = f"Doctor: all well (checks: {done})."
    elif report.stopped:
        head = (f"Doctor: stopped before the end, {len(report.findings)} problem(s) found "
                f"(checks done: {done}).")
    else:
        head = f"Doctor: {len(report.findings)} problem(s) (checks: {done})."
    lines = [head, render_switches(0, mapping, marks)]
    for f in report.findings:
        lines.append(
            f"  {f.kind:<12} {mapping.switch_label(f.switch):<5} "
            f"{mapping.name(f.square) if f.square >= 0 else '-':<3} {f.detail}"
        )
    suspects = report.suspects()
    if suspects:
        lines.append(
            "  missing diode: check " + ", ".join(mapping.switch_label(s) for s in sorted(suspects))
        )
    lines.append(
        "  key: # closed . open S stuck C chattering N never closes M misplaced "
        "X closes a neighbour too G ghost"
    )
    return "\n".join(lines)
