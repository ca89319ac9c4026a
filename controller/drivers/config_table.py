"""Reading and writing the drivers' TOML tables.

:class:`Table` reads one table of a parsed TOML document (``tomllib``) with
typed getters that raise :class:`ConfigError`, one line naming the key by
its dotted path (``gpio.matrix.scan_hz: must be at least 100, not 50``).
:func:`dumps` writes nested dicts of plain values back as TOML text (the
standard library reads TOML but does not write it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

__all__ = ["ConfigError", "Inline", "Table", "GPIO_PINS", "check_pins", "dumps"]

GPIO_PINS = range(0, 28)  # BCM numbers of the 40-pin header's GPIO


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message is one line."""


class Inline(dict[str, object]):
    """A table that :func:`dumps` writes inline: ``{ a = 1, b = 2 }``."""


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


class Table:
    """Typed access to one table; :meth:`done` rejects keys nobody read."""

    def __init__(self, data: Mapping[str, object] | None, where: str) -> None:
        if data is not None and not isinstance(data, Mapping):
            raise ConfigError(f"{where}: must be a table, not {_kind(data)}")
        self.data: Mapping[str, object] = data or {}
        self.where = where
        self._read: set[str] = set()

    def path(self, key: str) -> str:
        return f"{self.where}.{key}"

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path(key)}: {message}")

    def _get(self, key: str) -> object:
        self._read.add(key)
        return self.data.get(key)

    def has(self, key: str) -> bool:
        return key in self.data

    def get_int(self, key: str, default: int, lo: int | None = None, hi: int | None = None) -> int:
        value = self._get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be an integer, not {_kind(value)}")
        self._range(key, value, lo, hi)
        return value

    def get_float(
        self, key: str, default: float, lo: float | None = None, hi: float | None = None
    ) -> float:
        value = self._get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"must be a number, not {_kind(value)}")
        if not math.isfinite(value):
            raise self.error(key, f"must be a finite number, not {value}")
        self._range(key, value, lo, hi)
        return float(value)

    def _range(self, key: str, value: float, lo: float | None, hi: float | None) -> None:
        if lo is not None and value < lo:
            raise self.error(key, f"must be at least {lo}, not {value}")
        if hi is not None and value > hi:
            raise self.error(key, f"must be at most {hi}, not {value}")

    def get_bool(self, key: str, default: bool) -> bool:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, not {_kind(value)}")
        return value

    def get_str(self, key: str, default: str, choices: Iterable[str] | None = None) -> str:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {_kind(value)}")
        if choices is not None:
            options = list(choices)
            if value not in options:
                raise self.error(key, f"{value!r} is not one of {', '.join(options)}")
        return value

    def get_list(self, key: str, default: tuple[object, ...]) -> tuple[object, ...]:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, list | tuple):
            raise self.error(key, f"must be a list, not {_kind(value)}")
        return tuple(value)

    def get_pins(self, key: str, default: tuple[int, ...]) -> tuple[int, ...]:
        out: list[int] = []
        for i, pin in enumerate(self.get_list(key, default)):
            if isinstance(pin, bool) or not isinstance(pin, int):
                raise self.error(key, f"item {i + 1} must be a GPIO number, not {_kind(pin)}")
            out.append(pin)
        check_pins(out, self.path(key))
        return tuple(out)

    def get_str_list(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        items = self.get_list(key, default)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(key, f"item {i + 1} must be a string, not {_kind(item)}")
        return tuple(str(item) for item in items)

    def sub(self, key: str) -> Table:
        """The sub-table ``key`` (empty when absent)."""
        value = self._get(key)
        if value is not None and not isinstance(value, Mapping):
            raise self.error(key, f"must be a table, not {_kind(value)}")
        return Table(value, self.path(key))

    def keys(self) -> list[str]:
        """All keys (and marks them read)."""
        self._read.update(self.data)
        return list(self.data)

    def done(self) -> None:
        """:class:`ConfigError` for a key that no getter asked for (a typo)."""
        unknown = [k for k in self.data if k not in self._read]
        if unknown:
            known = ", ".join(sorted(self._read)) or "none"
            raise ConfigError(f"{self.path(unknown[0])}: unknown key (known here: {known})")


def check_pins(pins: Iterable[int], where: str) -> None:
    """Every pin a BCM GPIO number, none twice."""
    seen: set[int] = set()
    for pin in pins:
        if pin not in GPIO_PINS:
            raise ConfigError(f"{where}: GPIO{pin} does not exist (GPIO0 to GPIO27)")
        if pin in seen:
            raise ConfigError(f"{where}: GPIO{pin} is used twice")
        seen.add(pin)


# ----------------------------------------------------------------------
# Writing

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"cannot write {value} to TOML")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise ConfigError(f"cannot write {_kind(value)} to TOML")


def dumps(table: Mapping[str, object], prefix: str = "") -> str:
    """TOML text for nested dicts of strings, numbers, booleans and lists
    (sub-dicts become ``[a.b]`` tables)."""
    lines: list[str] = []
    subs: list[tuple[str, Mapping[str, object]]] = []
    for key, value in table.items():
        if isinstance(value, Mapping) and not isinstance(value, Inline):
            subs.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    out = []
    if lines or (prefix and not subs):
        if prefix:
            out.append(f"[{prefix}]")
        out.extend(lines)
        out.append("")
    for key, value in subs:
        name = f"{prefix}.{_key(key)}" if prefix else _key(key)
        out.append(dumps(value, name))
    return "\n".join(out)
