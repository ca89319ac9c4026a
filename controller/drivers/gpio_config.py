"""The ``[gpio]`` table of the configuration file: everything on the Pi's
GPIO in one dataclass.

::

    [gpio.matrix]          rows, columns, scan rate, debounce (gpio_matrix)
    [gpio.mapping]         the board, switch and LED positions (mapping)
    [gpio.leds]            SPI port, colours, brightness (ws2812)
    [gpio.leds.roles]
    [gpio.buttons]         button pins (buttons)

The matrix's pins default to the stock pins of the mapping's matrix (9
rows and 5 columns for the 37-point board, say).  Each part checks
itself; :class:`GpioConfig` also checks that no GPIO is used twice
across the parts, and that the SPI port can drive the mapping's chain.  Errors are
:class:`controller.board.config.ConfigError` (a ``ValueError``), one line
naming the dotted key; :func:`load_config` adds the file's name.
:func:`save_config` writes changes back through ``tomlkit``, keeping the
user's comments.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from controller.board.config import read_toml

from .buttons import ButtonConfig
from .config_table import ConfigError, Table, write_changes
from .gpio_matrix import MatrixConfig
from .mapping import BoardMapping, gpio_table_for_board
from .ws2812 import MOST_LEDS, LedConfig

__all__ = ["GpioConfig", "ConfigError", "gpio_table_for_board", "load_config", "save_config"]

# MOSI, SCLK, MISO per SPI port: the driver holds MISO too, though the
# LEDs send only.
SPI_PINS = {0: (10, 11, 9), 1: (20, 21, 19)}
# The chip select the SPI driver holds once SPI0 is on (spidev0.0's CE0);
# SPI1's moves with its overlay's cs0_pin, so it is not claimed here.
SPI_SELECT = {0: 8}


@dataclass(frozen=True)
class GpioConfig:
    matrix: MatrixConfig = field(default_factory=MatrixConfig)
    mapping: BoardMapping = field(default_factory=BoardMapping)
    leds: LedConfig = field(default_factory=LedConfig)
    buttons: ButtonConfig = field(default_factory=ButtonConfig)

    def __post_init__(self) -> None:
        self.matrix.check_mapping(self.mapping)
        users: dict[int, str] = {}

        def claim(pin: int, what: str) -> None:
            if pin in users:
                raise ConfigError(f"GPIO{pin} is used for both {users[pin]} and {what}", "gpio")
            users[pin] = what

        for i, pin in enumerate(self.matrix.row_pins):
            claim(pin, f"matrix row {i}")
        for i, pin in enumerate(self.matrix.column_pins):
            claim(pin, f"matrix column {i}")
        if self.leds.enabled:
            too_long = self.mapping.chain_beyond(MOST_LEDS, "the Pi's SPI port (4,096 bytes a "
                                                 "frame)")
            if too_long is not None:
                raise too_long
            mosi, sclk, miso = SPI_PINS[self.leds.spi_port]
            claim(mosi, f"the LED data line (SPI{self.leds.spi_port} MOSI)")
            claim(sclk, f"SPI{self.leds.spi_port} SCLK (the LED port)")
            claim(miso, f"SPI{self.leds.spi_port} MISO (held by the SPI driver the LEDs use)")
            select = SPI_SELECT.get(self.leds.spi_port)
            if select is not None:
                claim(select, f"SPI{self.leds.spi_port} CE0 (held by the SPI driver the LEDs use)")
        for name, side, pin in self.buttons.pins:
            claim(pin, f"the {name} button" + (f" ({side})" if side else ""))

    @classmethod
    def from_table(cls, data: Mapping[str, object] | None) -> GpioConfig:
        t = Table(data, "gpio")
        mapping = BoardMapping.from_table(t.sub("mapping").data)
        config = cls(
            matrix=MatrixConfig.from_table(t.sub("matrix").data, mapping),
            mapping=mapping,
            leds=LedConfig.from_table(t.sub("leds").data),
            buttons=ButtonConfig.from_table(t.sub("buttons").data),
        )
        t.done()
        return config

    def to_table(self) -> dict[str, object]:
        return {
            "matrix": self.matrix.to_table(),
            "mapping": self.mapping.to_table(),
            "leds": self.leds.to_table(),
            "buttons": self.buttons.to_table(),
        }

    def with_mapping(self, mapping: BoardMapping) -> GpioConfig:
        return replace(self, mapping=mapping)


def loads(text: str) -> GpioConfig:
    """The ``[gpio]`` table of a TOML document (defaults where absent)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError("not valid TOML (nested too deeply)") from None
    return GpioConfig.from_table(doc.get("gpio"))


def load_config(path: str | Path, *, missing_ok: bool = False,
                board: str | None = None) -> GpioConfig:
    """The ``[gpio]`` table of a configuration file; errors name the file.
    A missing file is an error, or the defaults with ``missing_ok``.
    ``board``: the board the file's game is played on (:func:`gpio_table_for_board`)."""
    if missing_ok and not Path(path).exists():
        return GpioConfig.from_table(gpio_table_for_board(None, board))
    doc = read_toml(path)
    try:
        return GpioConfig.from_table(gpio_table_for_board(doc.get("gpio"), board))
    except ConfigError as exc:
        raise exc.in_file(path) from None


def save_config(path: str | Path, config: GpioConfig) -> None:
    """Write ``config`` into the file's ``[gpio]`` table: only the values
    that differ from what the file says are written; comments, key order
    and the other tables are kept (a missing file is created)."""
    old = load_config(path, missing_ok=True)
    write_changes(path, "gpio", old.to_table(), config.to_table())
