"""WS2812 LEDs under the squares, driven from the Pi's SPI port.

The library is Adafruit's ``neopixel_spi`` (``adafruit-circuitpython-
neopixel-spi``): it turns each data bit into one SPI byte clocked at
6.4 MHz on MOSI (GPIO10 for SPI0), which works the same on the Pi 4 and the
Pi 5 (``rpi_ws281x`` drives the Pi 4's PWM/PCM hardware and does not
support the Pi 5's RP1).  It needs no root and no timing-critical code of
ours.  The SPI bus is a parameter: the service opens the real one through
Blinka (:func:`open_spi`), tests pass an object that records the bytes.

What the lights show is a pure function (:func:`render`) of the
reconciler's roles (``{"d4": "capture", ..}``, docs/reconciler.md "LED roles"), the time
(for blinking), the configuration (a colour and blink period per role, a
brightness limit and a current budget) and the LED mapping.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.board.config import install_hint
from controller.board.leds import (
    DEFAULT_STYLES,
    RGB,
    STYLES,
    RoleStyle,
    format_colour,
    role_colours,
)
from controller.board.words import said

from .config_table import ConfigError, Inline, Table
from .mapping import BoardMapping

__all__ = [
    "DEFAULT_ROLES",
    "LedConfig",
    "LedOutput",
    "MOST_LEDS",
    "RGB",
    "RoleStyle",
    "SquareLeds",
    "library_trouble",
    "open_spi",
    "render",
    "limit_current",
]

log = logging.getLogger(__name__)

WHERE = "gpio.leds"
ORDERS = ("GRB", "RGB", "BRG", "BGR", "RBG", "GBR")
MA_PER_CHANNEL = 20.0  # a WS2812B channel at full duty, milliamps
MOSI = {0: 10, 1: 20}  # SPI port -> its MOSI GPIO
# One frame is one SPI write: 24 bytes an LED (a byte a bit at 6.4 MHz)
# between two 80 us resets (64 bytes each), and Blinka writes it through
# py-spidev's writebytes, which takes at most 4,096 bytes (as does the
# kernel's spidev by default).
SPI_WRITE_BYTES = 4096
MOST_LEDS = (SPI_WRITE_BYTES - 2 * 64) // 24  # 165


DEFAULT_ROLES = DEFAULT_STYLES

_HEX = re.compile(r"^#([0-9a-fA-F]{6})$")


def parse_colour(text: str) -> RGB:
    """``"#ff8000"`` -> ``(255, 128, 0)``; ``ValueError`` otherwise."""
    m = _HEX.match(text.strip())
    if not m:
        raise ValueError(f'{text!r} is not a colour like "#ff8000"')
    value = int(m.group(1), 16)
    return (value >> 16, value >> 8 & 255, value & 255)


@dataclass(frozen=True)
class LedConfig:
    """The LED chain: SPI port, colour order, limits, and the role styles."""

    enabled: bool = True
    spi_port: int = 0
    pixel_order: str = "GRB"
    brightness: float = 0.3
    max_current_ma: float = 2000.0
    roles: Mapping[str, RoleStyle] = field(default_factory=lambda: dict(DEFAULT_ROLES))

    def __post_init__(self) -> None:
        if self.spi_port not in MOSI:
            raise ConfigError(f"{WHERE}.spi_port: must be 0 or 1, not {self.spi_port}")
        if self.pixel_order not in ORDERS:
            raise ConfigError(
                f"{WHERE}.pixel_order: {self.pixel_order!r} is not one of {', '.join(ORDERS)}"
            )
        if not 0 < self.brightness <= 1:
            raise ConfigError(
                f"{WHERE}.brightness: must be above 0 and at most 1, not {self.brightness}"
            )
        if not (self.max_current_ma == 0 or 50 <= self.max_current_ma <= 100_000):
            raise ConfigError(
                f"{WHERE}.max_current_ma: must be 0 (no limit) or 50 to 100000, "
                f"not {self.max_current_ma}"
            )
        for role, style in self.roles.items():
            if role not in STYLES:
                raise ConfigError(
                    f"{WHERE}.roles.{role}: unknown role (known: {', '.join(STYLES)})")
            if len(style.colour) != 3 or not all(0 <= c <= 255 for c in style.colour):
                raise ConfigError(f"{WHERE}.roles.{role}.colour: channels must be 0 to 255")
            if not 0 <= style.blink <= 10:
                raise ConfigError(
                    f"{WHERE}.roles.{role}.blink: must be 0 (steady) to 10 seconds, "
                    f"not {style.blink}"
                )

    @property
    def data_pin(self) -> int:
        """The GPIO the chain's data line is on (the SPI port's MOSI)."""
        return MOSI[self.spi_port]

    @classmethod
    def from_table(cls, data: Mapping[str, object] | None) -> LedConfig:
        """Roles not in ``[gpio.leds.roles]`` keep their default style; a role
        is ``{ colour = "#ff0000", blink = 0.5 }`` or just ``"#ff0000"``."""
        t = Table(data, WHERE)
        d = cls()
        roles = dict(DEFAULT_ROLES)
        table = t.sub("roles")
        for role in table.keys():
            if role not in STYLES:
                raise table.error(role, f"unknown role (known: {', '.join(STYLES)})")
            value = table.data[role]
            if isinstance(value, str):
                value = {"colour": value}
            if not isinstance(value, Mapping):
                raise table.error(role, "must be a colour string or a table")
            style = Table(value, table.path(role))
            text = style.get_str("colour", format_colour(roles[role].colour))
            try:
                colour = parse_colour(text)
            except ValueError as exc:
                raise style.error("colour", str(exc)) from None
            blink = style.get_float("blink", roles[role].blink, 0.0, 10.0)
            style.done()
            roles[role] = RoleStyle(colour, blink)
        config = cls(
            enabled=t.get_bool("enabled", d.enabled),
            spi_port=t.get_int("spi_port", d.spi_port),
            pixel_order=t.get_str("pixel_order", d.pixel_order, ORDERS),
            brightness=t.get_float("brightness", d.brightness),
            max_current_ma=t.get_float("max_current_ma", d.max_current_ma),
            roles=roles,
        )
        t.done()
        return config

    def to_table(self) -> dict[str, object]:
        return {
            "enabled": self.enabled,
            "spi_port": self.spi_port,
            "pixel_order": self.pixel_order,
            "brightness": self.brightness,
            "max_current_ma": self.max_current_ma,
            "roles": {
                role: Inline(colour=format_colour(s.colour), blink=s.blink)
                for role, s in self.roles.items()
            },
        }


# ----------------------------------------------------------------------
# Rendering (pure)


def _scale(rgb: RGB, factor: float) -> RGB:
    return (int(rgb[0] * factor), int(rgb[1] * factor), int(rgb[2] * factor))


def limit_current(pixels: list[RGB], max_ma: float) -> list[RGB]:
    """Scale every pixel down alike so that the chain draws at most
    ``max_ma`` (estimated at 20 mA per channel at full duty; 0: no limit)."""
    if max_ma <= 0:
        return pixels
    total = sum(sum(p) for p in pixels) * MA_PER_CHANNEL / 255
    if total <= max_ma:
        return pixels
    factor = max_ma / total
    return [_scale(p, factor) for p in pixels]


def render(
    leds: Mapping[str, str],
    now: float,
    config: LedConfig,
    mapping: BoardMapping,
    hint_to: str | None = None,
) -> list[RGB]:
    """The colour of every LED in the chain (spare ones dark) for the roles
    ``leds`` at time ``now`` (``hint_to``: where a lit hint ends, shown in
    the ``hint-to`` style).  Unknown roles and squares, and points with no
    LED (the light squares of a dark-only 8x8 board), stay dark."""
    pixels: list[RGB] = [(0, 0, 0)] * mapping.led_count
    lit = role_colours(leds, now, config.roles, config.brightness, hint_to)
    for name, rgb in lit.items():
        try:
            led = mapping.led_of_square(mapping.parse(name))
        except ValueError:
            continue
        if led >= 0:
            pixels[led] = rgb
    return limit_current(pixels, config.max_current_ma)


# ----------------------------------------------------------------------
# Output


class LedOutput(Protocol):
    """What the guided procedures need of the lights."""

    def light(self, squares: Mapping[int, RGB]) -> None:
        """Light these squares (full-scale colours; brightness applies),
        every other LED off."""
        ...

    def show_pixels(self, pixels: Sequence[RGB]) -> bool: ...


def open_spi(port: int = 0) -> Any:
    """The Pi's SPI bus through Blinka (``busio.SPI``); on the Pi only
    (elsewhere an ``ImportError``, see :func:`blinka_said`)."""
    with blinka_said():
        import board  # type: ignore[import-untyped, import-not-found, unused-ignore]
        import busio  # type: ignore[import-untyped, import-not-found, unused-ignore]

        if port == 0:
            return busio.SPI(board.SCLK, MOSI=board.MOSI)
        return busio.SPI(board.SCLK_1, MOSI=board.MOSI_1)


@contextmanager
def blinka_said() -> Iterator[None]:
    """Keep what Blinka prints inside the block off stdout (on a PC, twice,
    ``WARNING: GENERIC_X86 is not fully supported..``, then an
    ``ImportError``).  An ``ImportError`` raised carries that text in its
    message (for :func:`library_trouble`); otherwise it is logged as a
    warning, on stderr, so nothing it says is lost."""
    out = io.StringIO()
    told = False  # the text went into the ImportError raised
    try:
        with redirect_stdout(out):
            yield
    except ImportError as exc:
        text = _printed(out.getvalue())
        if not text or isinstance(exc, ModuleNotFoundError):
            raise
        told = True
        why = said(exc).split(" (/")[0]  # the path of the file that failed says nothing more
        raise ImportError(f"{why}; Blinka says: {text}", name=exc.name) from exc
    finally:
        if not told and (text := _printed(out.getvalue())):
            log.warning("the LEDs' library says: %s", text)


def _printed(text: str) -> str:
    """The distinct lines printed, each once, without Blinka's ``WARNING:``."""
    lines = [line.removeprefix("WARNING:").strip().rstrip(".") for line in text.splitlines()]
    return "; ".join(dict.fromkeys(line for line in lines if line))


def library_trouble(exc: ImportError) -> str:
    """Why the LEDs' library does not load, in words following "the LEDs
    ...: ": the module that is not installed, or the one that does not load
    on this machine, and how to install the library (the ``pi`` extra).
    The doctor, ``calibrate matrix`` and ``run --board gpio`` say it."""
    module = (exc.name or "").partition(".")[0]
    if isinstance(exc, ModuleNotFoundError) and module:
        return (f"their library needs the Python module {module!r}, which is not installed: "
                f"{install_hint('pi')}")
    why = said(exc).split(" (/")[0]  # the path of the file that failed says nothing more
    return (f"their library does not load here ({why}): it drives the Raspberry Pi's SPI, "
            f"installed there with {install_hint('pi')}")


class SquareLeds:
    """The chain under the board; writes to SPI only when a pixel changes.

    ``spi`` is a ``busio.SPI``-like object (``try_lock``, ``unlock``,
    ``configure``, ``write``); None opens the configured port on the Pi.
    """

    def __init__(self, config: LedConfig, mapping: BoardMapping, spi: Any = None) -> None:
        self.config = config
        self.mapping = mapping
        import neopixel_spi  # type: ignore[import-untyped]  # only where there are LEDs

        self._owns_spi = spi is None
        self._spi = open_spi(config.spi_port) if spi is None else spi
        try:
            self._strip = neopixel_spi.NeoPixel_SPI(
                self._spi,
                mapping.led_count,
                pixel_order=config.pixel_order,
                brightness=1.0,
                auto_write=False,
            )
        except BaseException:
            self._release_spi()
            raise
        self._last: list[RGB] | None = None
        self.writes = 0

    def show(self, leds: Mapping[str, str], now: float, hint_to: str | None = None) -> bool:
        """Show the roles at time ``now``; was anything sent?"""
        return self.show_pixels(render(leds, now, self.config, self.mapping, hint_to))

    def show_pixels(self, pixels: Sequence[RGB]) -> bool:
        """Show these colours as they are (one per LED); was anything sent?"""
        if len(pixels) != self.mapping.led_count:
            raise ValueError(f"{len(pixels)} colours for {self.mapping.led_count} LEDs")
        frame: list[RGB] = [(p[0], p[1], p[2]) for p in pixels]
        if frame == self._last:
            return False
        for i, rgb in enumerate(frame):
            self._strip[i] = rgb
        try:
            self._strip.show()
        except BaseException:
            # What the strip shows now is unknown: the next frame is sent,
            # whatever it is (the last one sent may be lit again by then).
            self._last = None
            raise
        self._last = frame
        self.writes += 1
        return True

    def light(self, squares: Mapping[int, RGB]) -> None:
        pixels: list[RGB] = [(0, 0, 0)] * self.mapping.led_count
        for square, rgb in squares.items():
            led = self.mapping.led_of_square(square)
            if led >= 0:
                pixels[led] = _scale(rgb, self.config.brightness)
        self.show_pixels(limit_current(pixels, self.config.max_current_ma))

    def clear(self) -> None:
        self.show_pixels([(0, 0, 0)] * self.mapping.led_count)

    def _release_spi(self) -> None:
        if self._owns_spi and self._spi is not None:
            self._spi.deinit()
        self._spi = None

    def close(self) -> None:
        if self._spi is None:
            return
        try:
            self._last = None
            self.clear()
        finally:
            self._release_spi()

    def __enter__(self) -> SquareLeds:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
