"""Settings, device information and counters of the serial link to the
Pico (hardware.md, "The serial protocol"): frozen, validated values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.board.words import a

from . import protocol as P
from .mapping import BoardMapping

__all__ = ["DeviceInfo", "DeviceStats", "LinkError", "LinkSettings", "LinkStats"]


class LinkError(ValueError):
    """A link setting that cannot be used."""


@dataclass(frozen=True)
class LinkSettings:
    """One link's settings: the board's side (the handshake checks the
    firmware's), what goes to the firmware in the handshake's CONFIG, and
    the timing, in seconds.

    ``led_count`` and ``led_map`` (the chain index under each square, 255
    for none) go together; ``switch_map`` is the matrix switch under each
    square (row * cols + column, 255 for none).  Without them the firmware
    uses the defaults in its board.py.

    A square board of side ``size`` has one switch a square on a ``size``
    x ``size`` matrix; any other board gives ``rows`` and ``cols`` of its
    matrix and ``points``, its point count (:meth:`for_mapping`).
    """

    size: int = 7
    rows: int = 0  # 0: ``size``
    cols: int = 0
    points: int = 0  # 0: ``size * size``
    board: str = ""  # the board's name, for the words ("37-point"); "": the square board
    led_count: int = 0
    led_map: tuple[int, ...] | None = None
    switch_map: tuple[int, ...] | None = None
    heartbeat: float = 1.0  # the device's occupancy heartbeat
    idle: float = 3.0  # host silent this long: the device shows its idle pattern
    debounce: float = 0.012  # the device's switch debounce
    retry: float = 0.15  # the device resends unacknowledged events after this
    keepalive: float = 0.5  # the host sends at least this often
    device_timeout: float = 3.0  # device silent this long: reconnect
    request_retry: float = 0.25  # the host resends an unanswered request
    reconnect_delay: float = 0.5  # wait before reopening the port
    read_timeout: float = 0.02  # the reader's poll interval

    def __post_init__(self) -> None:
        for name in ("led_map", "switch_map"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))

    @classmethod
    def for_mapping(cls, mapping: BoardMapping, **options: Any) -> LinkSettings:
        """Settings for a board's mapping: its matrix, its points, and the
        switch under each point (sent when it is not the default)."""
        switch_map = tuple(
            s if s >= 0 else P.NO_LED
            for s in (mapping.switch_index_of_square(p) for p in range(mapping.squares))
        )
        square = mapping.size and mapping.rows == mapping.columns == mapping.size
        return cls(
            size=mapping.size,
            rows=mapping.rows,
            cols=mapping.columns,
            points=mapping.squares,
            board=mapping.board,
            switch_map=None if square and switch_map == tuple(range(mapping.squares))
            else switch_map,
            **options,
        )

    @property
    def matrix(self) -> tuple[int, int]:
        """Rows and columns of the board's switch matrix."""
        return self.rows or self.size, self.cols or self.size

    @property
    def board_name(self) -> str:
        """The board's name: "37-point", "7x7", ..."""
        return self.board or f"{self.size}x{self.size}"

    def other_matrix(self, rows: int, cols: int) -> str:
        """Why a device reading a ``rows`` x ``cols`` matrix is not this
        board's, and what to change, in one line."""
        want_rows, want_cols = self.matrix
        said = (f"the firmware reads {a(f'{rows}x{cols}')} switch matrix, but this host reads "
                f"the {self.board_name} board on {a(f'{want_rows}x{want_cols}')} one")
        if (rows, cols) == (want_cols, want_rows):
            return (f"{said}: turn the host's mapping (files = \"rows\" or \"columns\" in "
                    "[gpio.mapping])")
        onto = (f", or map the board onto the {rows}x{cols} matrix in [gpio.mapping]"
                if rows * cols >= self.squares else "")
        return (f"{said}: set ROW_PINS and COL_PINS (and SWITCH_MAP) in the firmware's "
                f"board.py for the {self.board_name} board{onto} (hardware.md, "
                "\"On the Pico\")")

    @property
    def squares(self) -> int:
        """The board's points: the bits of an occupancy report."""
        return self.points or self.size * self.size

    def check(self) -> None:
        """:class:`LinkError` for settings that cannot be used."""
        if not 0.05 <= self.heartbeat <= 60:
            raise LinkError(f"heartbeat must be 0.05 to 60 s, not {self.heartbeat}")
        if not 0.1 <= self.idle <= 60:
            raise LinkError(f"idle must be 0.1 to 60 s, not {self.idle}")
        if not 0 <= self.debounce <= 0.255:
            raise LinkError(f"debounce must be 0 to 0.255 s, not {self.debounce}")
        if not 0.01 <= self.retry <= 60:
            raise LinkError(f"retry must be 0.01 to 60 s, not {self.retry}")
        if self.device_timeout <= self.heartbeat:
            raise LinkError("device_timeout must be longer than the heartbeat")
        if self.keepalive >= self.idle:
            raise LinkError("keepalive must be shorter than idle")
        if (self.led_map is None) != (self.led_count == 0):
            raise LinkError("led_map and led_count go together")
        try:
            rows, cols = self.matrix
            P.parse_config(self.config(), self.squares, rows * cols)
        except P.ProtocolError as exc:
            raise LinkError(f"the board's settings cannot be sent: {exc}") from None

    def config(self) -> bytes:
        """The payload of the handshake's CONFIG."""
        return P.pack_config(
            round(self.heartbeat * 1000),
            round(self.idle * 1000),
            round(self.debounce * 1000),
            round(self.retry * 1000),
            self.led_count,
            list(self.led_map) if self.led_map is not None else None,
            list(self.switch_map) if self.switch_map is not None else None,
        )


@dataclass(frozen=True)
class DeviceInfo:
    """What the firmware said in the handshake."""

    version: int
    boot: int  # random at each boot of the Pico: a change means it restarted
    rows: int
    cols: int
    sides: int  # bit k: button set k is fitted (0 shared, 1 attacker, 2 defender)
    leds: int
    firmware: str
    firmware_version: tuple[int, int, int]


@dataclass(frozen=True)
class DeviceStats:
    """The firmware's own counters (STATS), for ``doctor``."""

    counters: dict[str, int]
    chatter: tuple[int, ...]  # rejected switch bounces, per square


@dataclass(frozen=True)
class LinkStats:
    """A snapshot of the link's counters."""

    connected: bool = False
    connects: int = 0  # handshakes completed
    reconnects: int = 0  # handshakes after the first
    disconnects: int = 0  # connections lost (port error or silence)
    timeouts: int = 0  # of which: the device fell silent
    open_failures: int = 0  # the port could not be opened
    frames: int = 0  # good frames received
    checksum_failures: int = 0
    framing_errors: int = 0  # bad COBS, oversize or too short
    bad_messages: int = 0  # good checksum but not usable (type, length, echo)
    duplicates: int = 0  # events received twice (resent by the device)
    out_of_order: int = 0  # events after a gap, dropped until resent
    frames_sent: int = 0
    resent: int = 0  # requests the host sent again
    occupancy: int = 0  # frames delivered
    buttons: int = 0  # button presses delivered
    device_restarts: int = 0  # the device's boot id changed
    device_overflows: int = 0  # heartbeats saying the device dropped events
    resyncs: int = 0  # sessions restarted because the device had lost ours
    host_dropped: int = 0  # readings the host's full queue lost (a flood; the latest board kept)
    last_error: str = ""
    notices: tuple[str, ...] = ()  # the device's last NOTICE messages
    device: DeviceInfo | None = None
