"""A reed-switch matrix wired to gpiozero's ``MockFactory`` pins.

Mock pins are not wired to each other, so this module plays the wires: the
row pins are :class:`RowPin` objects that tell the simulator whenever the
scanner selects or releases a row, and the simulator then drives each
column pin low or high as the switches, diodes and rows dictate.  The real
scanning code (:class:`~controller.drivers.gpio_matrix.MatrixScanner`) runs
unchanged on top.

The electrical model: a row driven low pulls low every column whose switch
in that row is closed.  A diode (anode on the column, cathode on the row)
lets current flow only from column to row, so a low column cannot pull a
row low; through a switch whose diode is missing it can, and a floating
(released, open-drain) row pulled low that way pulls its own closed columns
low in turn: the ghost of the fourth corner of a rectangle.  A row driven
high (push-pull) is not pulled low by anything.

Faults: :meth:`MatrixSimulator.stick` (a switch stuck closed),
:meth:`~MatrixSimulator.break_switch` (one that never closes),
:meth:`~MatrixSimulator.remove_diode`.  :class:`VirtualClock` runs the
scanner without waiting.

Create the simulator *before* the scanner on the same factory: it claims
the pins' mock objects first (the scanner then reserves the same pins).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin  # type: ignore[import-untyped]

from .gpio_matrix import MatrixConfig
from .mapping import BoardMapping

__all__ = ["MatrixSimulator", "RowPin", "ColumnPin", "VirtualClock"]

HISTORY = 64  # states kept per simulated pin


class _QuietPin(MockPin):  # type: ignore[misc]
    """A mock pin that keeps only its last few states (``MockPin`` keeps
    them all: millions over a long replay)."""

    def clear_states(self) -> None:
        super().clear_states()
        self.states: deque[Any] = deque(self.states, maxlen=HISTORY)


class RowPin(_QuietPin):
    """A mock row pin that tells the simulator when it changes."""

    def __init__(self, factory: Any, info: Any, matrix: MatrixSimulator | None = None) -> None:
        super().__init__(factory, info)
        self.matrix = matrix

    def _set_function(self, value: str) -> None:
        super()._set_function(value)
        if self.matrix is not None:
            self.matrix.update()

    def _set_state(self, value: float) -> None:
        super()._set_state(value)
        if self.matrix is not None:
            self.matrix.update()


class ColumnPin(_QuietPin):
    """A mock column pin: after its pull is set, the simulator drives it."""

    def __init__(self, factory: Any, info: Any, matrix: MatrixSimulator | None = None) -> None:
        super().__init__(factory, info)
        self.matrix = matrix

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        if self.matrix is not None:
            self.matrix.update()


class MatrixSimulator:
    """Switches, diodes and wires between the row and column mock pins."""

    def __init__(
        self,
        factory: MockFactory,
        config: MatrixConfig,
        mapping: BoardMapping | None = None,
    ) -> None:
        mapping = mapping or BoardMapping()
        config.check_mapping(mapping)
        self.size = mapping.size
        self.nrows, self.ncols = mapping.rows, mapping.columns
        self.mapping = mapping
        self._closed = 0  # switches closed by pieces
        self._stuck = 0  # stuck closed whatever the pieces
        self._broken = 0  # never close
        self._no_diode = 0
        self._row_masks = [0] * self.nrows  # effective closed switches per row
        self._ghost_masks = [0] * self.nrows  # ... of them without a diode
        self.rows: list[RowPin] = [self._claim(factory, p, RowPin) for p in config.row_pins]
        self.columns: list[ColumnPin] = [
            self._claim(factory, p, ColumnPin) for p in config.column_pins
        ]
        self.updates = 0
        self._recompute_masks()

    def _claim(self, factory: MockFactory, pin: int, cls: type[Any]) -> Any:
        obj = factory.pin(pin, pin_class=cls, matrix=self)
        if not isinstance(obj, cls) or obj.matrix is not self:
            raise ValueError(
                f"GPIO{pin} already has a mock pin: create the MatrixSimulator before "
                "the scanner, on a fresh MockFactory"
            )
        return obj

    # -- switches --------------------------------------------------------------

    def _bit(self, row: int, column: int) -> int:
        if not (0 <= row < self.nrows and 0 <= column < self.ncols):
            raise ValueError(f"no switch r{row}c{column} in a {self.nrows}x{self.ncols} matrix")
        return 1 << (row * self.ncols + column)

    @property
    def closed(self) -> int:
        """Switches closed by pieces (bitmask, bit ``row * columns + column``)."""
        return self._closed

    @property
    def effective(self) -> int:
        """Switches conducting: closed by pieces or stuck, unless broken."""
        return (self._closed | self._stuck) & ~self._broken

    def set_closed(self, mask: int) -> None:
        """Set every switch at once (bitmask of closed switches)."""
        if mask != self._closed:
            self._closed = mask
            self._recompute_masks()

    def set_switch(self, row: int, column: int, closed: bool) -> None:
        bit = self._bit(row, column)
        self.set_closed(self._closed | bit if closed else self._closed & ~bit)

    def set_occupied(self, occupied: int) -> None:
        """Pieces on these squares (bitboard, log order) and no others."""
        self.set_closed(self.mapping.squares_to_switches(occupied))

    def place(self, square: int) -> None:
        self.set_closed(self._closed | 1 << self.mapping.switch_index_of_square(square))

    def lift(self, square: int) -> None:
        self.set_closed(self._closed & ~(1 << self.mapping.switch_index_of_square(square)))

    # -- faults ---------------------------------------------------------------

    def stick(self, row: int, column: int, stuck: bool = True) -> None:
        """A switch welded closed (``stuck=False`` frees it)."""
        bit = self._bit(row, column)
        self._stuck = self._stuck | bit if stuck else self._stuck & ~bit
        self._recompute_masks()

    def break_switch(self, row: int, column: int, broken: bool = True) -> None:
        """A switch that never closes (no magnet reaches it, a cold joint)."""
        bit = self._bit(row, column)
        self._broken = self._broken | bit if broken else self._broken & ~bit
        self._recompute_masks()

    def remove_diode(self, row: int, column: int, missing: bool = True) -> None:
        """The switch's diode is missing (bridged)."""
        bit = self._bit(row, column)
        self._no_diode = self._no_diode | bit if missing else self._no_diode & ~bit
        self._recompute_masks()

    # -- the wires ---------------------------------------------------------------

    def _recompute_masks(self) -> None:
        n = self.ncols
        full = (1 << n) - 1
        eff = self.effective
        ghost = eff & self._no_diode
        self._row_masks = [(eff >> (r * n)) & full for r in range(self.nrows)]
        self._ghost_masks = [(ghost >> (r * n)) & full for r in range(self.nrows)]
        self.update()

    def column_levels(self) -> int:
        """Bitmask of columns pulled low with the rows as they are now."""
        low_rows = 0
        floating = 0
        for r, pin in enumerate(self.rows):
            if pin._function == "output":
                if not pin._state:
                    low_rows |= 1 << r
            else:
                floating |= 1 << r
        low_cols = 0
        masks = self._row_masks
        r = 0
        rows = low_rows
        while rows:
            if rows & 1:
                low_cols |= masks[r]
            rows >>= 1
            r += 1
        if self._no_diode and low_cols:
            ghosts = self._ghost_masks
            changed = True
            while changed:
                changed = False
                for r in range(self.nrows):
                    bit = 1 << r
                    if floating & bit and not low_rows & bit and ghosts[r] & low_cols:
                        low_rows |= bit
                        low_cols |= masks[r]
                        changed = True
        return low_cols

    def update(self) -> None:
        """Drive the column pins from the rows and switches."""
        if not hasattr(self, "columns"):
            return  # still claiming pins
        self.updates += 1
        low = self.column_levels()
        for c, pin in enumerate(self.columns):
            if pin._function != "input":
                continue
            want = not low >> c & 1
            if pin._state != want:
                if want:
                    if pin._pull == "up":
                        pin.drive_high()
                else:
                    pin.drive_low()


class VirtualClock:
    """A clock for :meth:`MatrixScanner.run` that never waits.

    ``on_tick(now)`` runs at every wake-up (a test's hook to change the
    switches between scans); ``stop`` is set once the time reaches
    ``until``.
    """

    def __init__(
        self,
        start: float = 0.0,
        until: float | None = None,
        on_tick: Callable[[float], None] | None = None,
    ) -> None:
        self._now = start
        self.until = until
        self.on_tick = on_tick
        self.stop = threading.Event()
        self.wakeups = 0

    def now(self) -> float:
        return self._now

    def sleep_until(self, deadline: float, idle: bool = False) -> float:
        self._now = max(self._now, deadline)
        self.wakeups += 1
        if self.until is not None and self._now >= self.until:
            self.stop.set()
        if self.on_tick is not None:
            self.on_tick(self._now)
        return self._now

    def advance(self, seconds: float) -> None:
        self.sleep_until(self._now + seconds)
