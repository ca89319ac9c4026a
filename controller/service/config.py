"""The configuration file: one TOML file for the service and its board,
read once and checked on start.

Every mistake is one line naming the file, the dotted key and the problem,
e.g. ``config.toml: web.port: must be from 1 to 65535, not 70000`` (a
:class:`ConfigError`, the one error type of every configuration reader,
from :mod:`controller.board.config`).  docs/service.md gives the whole
file, every key with its default (tests/test_docs.py holds it to what
this module reads and the defaults it has).

The ``[gpio]`` table belongs to the drivers: it is checked by their typed
configurations (:meth:`Config.gpio`, :meth:`Config.serial_leds`) when the
board uses it, with the same error type and the file's name; the
``[broadcast]`` table is checked by :func:`controller.hall.protocol.load_broadcast`
when the service starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from controller.board.config import ConfigError, Table, loopback_host, read_toml, token_problem
from controller.board.words import is_hidden, on_one_line
from controller.reconcile.settings import Settings, timing_problem
from controller.rules import find_any_variant

if TYPE_CHECKING:
    from controller.drivers.gpio_config import GpioConfig
    from controller.drivers.mapping import BoardMapping
    from controller.drivers.ws2812 import LedConfig

__all__ = ["THINK_MAX", "THINK_MIN", "Config", "ConfigError", "load_config"]

# The computer's seconds a move: the configuration, the page's field and
# POST /api/computer take the same range.
THINK_MIN, THINK_MAX = 0.01, 60.0
NAME_MAX = 40  # a player's name, in characters (the page's fields take as many)
# The most raw sensor lines kept a game: far beyond any game, and within
# SQLite's integers (a larger limit made every write of the log fail).
SENSOR_LOG_MAX = 1_000_000_000

_T = TypeVar("_T")

SECTIONS = ("board", "web", "players", "storage", "camera", "gpio", "broadcast")
# The command-line option that sets each field.
OPTIONS = {"board": "--board", "variant": "--variant", "host": "--host", "port": "--port",
           "data_dir": "--data-dir", "token": "--token"}


@dataclass(frozen=True)
class Config:
    board: str = "sim"
    variant: str = "kharbga"
    settle: float = Settings.settle  # the reconciler's defaults, written once
    error_delay: float = Settings.error_delay
    host: str = "127.0.0.1"
    port: int = 8080
    token: str = ""
    attacker: str = "Attacker"
    defender: str = "Defender"
    computer: str = ""  # "attacker" or "defender": the side the engine plays
    think: float = 1.0  # the computer's seconds a move
    level: int = 5  # the computer's level, 1 (beginner) to 5 (full strength)
    ponder: bool = True  # the engine ponders on the person's time (the page's eval bar)
    threads: int = 0  # threads a search uses (0: the machine's cores but one)
    data_dir: Path = field(default_factory=lambda: Path("data"))
    sensor_log_limit: int = 200_000
    camera_profile: str = ""
    # The drivers' [gpio] table as written (checked when the board uses it).
    gpio_table: Mapping[str, object] | None = field(default=None, compare=False, repr=False)
    # The [broadcast] table as written (checked by controller.service.broadcast).
    broadcast_table: Mapping[str, object] | None = field(default=None, compare=False, repr=False)
    # The file it came from ("" for the defaults), named in every error.
    source: str = field(default="", compare=False)

    @property
    def loopback(self) -> bool:
        """Does the web page listen on this machine only?"""
        return loopback_host(self.host)

    def with_overrides(self, **changes: Any) -> Config:
        """Command-line options win over the file."""
        clean = {k: v for k, v in changes.items() if v is not None}
        out = replace(self, **clean)
        _check(out, set(clean))
        return out

    def gpio(self, board: str | None = None) -> GpioConfig:
        """The ``[gpio]`` table as the GPIO board's configuration (imports
        the GPIO drivers, hence gpiozero).  ``board``: the board the game
        is played on ("5x5", "37-point", ..): a ``[gpio.mapping]`` that
        names no board is that board's stock mapping, and one that names
        another board is refused."""
        from controller.drivers.gpio_config import GpioConfig

        config = self._read(GpioConfig.from_table, board)
        self._same_board(config.mapping, board, "")
        return config

    def serial_leds(self, board: str | None = None) -> tuple[BoardMapping, LedConfig]:
        """The square-to-LED map and the LED colours of ``[gpio]``, for a
        board on the serial link (no GPIO library needed); ``board`` as
        in :meth:`gpio`."""
        from controller.drivers.mapping import BoardMapping
        from controller.drivers.ws2812 import LedConfig

        def read(table: Mapping[str, object] | None) -> tuple[BoardMapping, LedConfig]:
            t = Table(table, "gpio")
            tables = (BoardMapping.from_table(t.sub("mapping").data),
                      LedConfig.from_table(t.sub("leds").data))
            t.sub("matrix")  # the GPIO board's own tables: the Pico has its pins
            t.sub("buttons")
            t.done()  # a typo (``[gpio.mapings]``) is said, not read as the stock mapping
            return tables

        mapping, leds = self._read(read, board)
        self._same_board(mapping, board, " (the serial board)")
        return mapping, leds

    def _read(self, read: Callable[[Mapping[str, object] | None], _T], board: str | None) -> _T:
        from controller.drivers.mapping import gpio_table_for_board

        try:
            return read(gpio_table_for_board(self.gpio_table, board))
        except ConfigError as exc:
            raise self._in_file(exc) from None

    def _same_board(self, mapping: BoardMapping, board: str | None, which: str) -> None:
        if board is not None and mapping.board != board:
            raise self._in_file(ConfigError(
                f"it is for the {mapping.board} board, but variant {self.variant} "
                f"is played on the {board} board{which}: play a variant of the "
                f"{mapping.board} board, or name the {board} board there once it is wired "
                "(hardware.md)", "gpio.mapping"))

    def _in_file(self, exc: ConfigError) -> ConfigError:
        return exc.in_file(self.source) if self.source else exc


def load_config(path: str | Path | None) -> Config:
    """The configuration in ``path`` (None: the defaults); a
    :class:`ConfigError` naming the file and the key otherwise."""
    if path is None:
        return Config()
    source = str(path)
    doc = read_toml(path)
    try:
        config = _parse(doc, source)
    except ConfigError as exc:
        raise exc.in_file(source) from None
    _check(config, set())
    return config


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name, or None: up to ``NAME_MAX``
    printable characters (no control, format or bidi-override characters,
    no double quote or backslash: it goes into the record).  The same for
    the configuration and the page."""
    import unicodedata

    if len(name) > NAME_MAX:
        return f"must be at most {NAME_MAX} characters"
    for c in name:
        if c in '"\\' or is_hidden(c) or unicodedata.category(c) == "Cn":
            return (f"must be printable text without quotes or backslashes "
                    f"(U+{ord(c):04X} is not allowed)")
    return None


# Where each field lives in the file, [section] and key: the one list of
# the keys read (and named in errors); a field's type is its default's.
KEYS = {"board": "board.kind", "variant": "board.variant", "settle": "board.settle",
        "error_delay": "board.error_delay", "host": "web.host", "port": "web.port",
        "token": "web.token", "attacker": "players.attacker", "defender": "players.defender",
        "computer": "players.computer", "think": "players.think", "level": "players.level",
        "ponder": "players.ponder", "threads": "players.threads", "data_dir": "storage.data_dir",
        "sensor_log_limit": "storage.sensor_log_limit", "camera_profile": "camera.profile"}
# Bounds checked as the value is read (others are checked by _check).
_BOUNDS: dict[str, tuple[int | None, int | None]] = {
    "level": (1, 5), "sensor_log_limit": (None, SENSOR_LOG_MAX),
    "threads": (0, 16)}  # the C search's MAX_THREADS


def _read(table: Table, attr: str, key: str, default: object) -> object:
    if attr == "data_dir":
        return Path(_folder(table, key, str(default)))
    if isinstance(default, bool):
        return table.get_bool(key, default)
    if isinstance(default, int):
        return table.get_int(key, default, *_BOUNDS.get(attr, (None, None)))
    if isinstance(default, float):
        return table.get_float(key, default)
    text = table.get_str(key, str(default))
    # As the page takes a name: without spaces or tabs around it (checked so).
    return text.strip() if attr in ("attacker", "defender") else text


def _parse(doc: Mapping[str, object], source: str) -> Config:
    top = Table(doc, "")
    for name in top.keys():
        if name not in SECTIONS:
            raise top.error(name, f"unknown section (known: {', '.join(SECTIONS)})")
    d = Config()
    tables = {s: top.sub(s) for s in SECTIONS if s not in ("gpio", "broadcast")}
    values: dict[str, Any] = {}  # each of its field's type (_read)
    for attr, dotted in KEYS.items():
        section, key = dotted.split(".")
        values[attr] = _read(tables[section], attr, key, getattr(d, attr))
    config = replace(d, **values,
                     gpio_table=dict(top.sub("gpio").data),  # checks that it is a table
                     broadcast_table=dict(top.sub("broadcast").data), source=source)
    for table in tables.values():
        table.done()
    return config


def _folder(table: Table, key: str, default: str) -> str:
    """A folder's path: an empty one would silently be the current folder
    (``--data-dir ""`` is refused alike)."""
    text = table.get_str(key, default)
    if not text.strip():
        raise table.error(key, "an empty path: give the folder, or leave the key out")
    if "\0" in text:  # before: "embedded null byte", naming neither file nor key
        raise table.error(key, "a path cannot hold a NUL character (\\u0000)")
    return text


def _check(c: Config, overridden: set[str]) -> None:
    """The values' meaning; an error names the key in the file, or the
    command-line option that gave the value."""

    def error(attr: str, problem: str) -> ConfigError:
        if attr in overridden:
            return ConfigError(problem, OPTIONS.get(attr, attr), "command line")
        return ConfigError(problem, KEYS.get(attr, attr), c.source)

    if not (c.board in ("sim", "gpio") or c.board.startswith(("serial:", "camera:"))
            and c.board.partition(":")[2].strip()):
        raise error("board", f"must be sim, gpio, serial:PORT or camera:DEVICE, not {c.board!r}")
    if not c.board.isprintable():  # a port or device name: said on the page and in the log
        raise error("board", f"a port or device name cannot hold control characters, "
                             f"not {c.board!r}")
    try:
        find_any_variant(c.variant)
    except ValueError as exc:
        raise error("variant", str(exc)) from None
    timing = timing_problem(c.settle, c.error_delay)
    if timing:
        raise error(*timing)
    if not 1 <= c.port <= 65535:
        raise error("port", f"must be from 1 to 65535, not {c.port}")
    if not c.host:
        raise error("host", "must not be empty")
    if any(ch.isspace() or not ch.isprintable() for ch in c.host):
        told = on_one_line(c.host[:60])
        raise error("host", f"must be a host name or address (no spaces or control "
                            f"characters), not '{told}'")
    if c.token and (problem := token_problem(c.token)) is not None:
        raise error("token", problem)
    if not c.loopback and len(c.token) < 12:
        # The option given names it: --token too short, or --host off loopback.
        given = "token" if "token" in overridden or "host" not in overridden else "host"
        short = f" (this one has {len(c.token)})" if c.token else ""
        raise error(given, f"a token of at least 12 characters is required to listen on "
                           f"{c.host}{short}")
    for side, value in (("attacker", c.attacker), ("defender", c.defender)):
        if not value.strip():
            raise error(side, f"must not be empty (leave it out for the name {side.capitalize()})")
        problem = name_problem(value.strip())
        if problem is not None:
            raise error(side, problem)
    if c.computer not in ("", "attacker", "defender"):
        raise error("computer", f'must be "attacker", "defender" or "", not {c.computer!r}')
    if not THINK_MIN <= c.think <= THINK_MAX:
        raise error("think", f"must be {THINK_MIN:g} to {THINK_MAX:g} seconds, not {c.think}")
    if c.sensor_log_limit < 0:
        raise error("sensor_log_limit", "must not be negative")
    if c.board.startswith("camera:") and not c.camera_profile:
        raise ConfigError("a camera board needs its profile (made by kharbga-board calibrate "
                          "camera), named by [camera] profile in the configuration file "
                          "(--config FILE)", "camera.profile", c.source)
