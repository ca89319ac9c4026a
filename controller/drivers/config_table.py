"""The drivers' side of the configuration file: typed tables and writing
changes back.

Reading goes through :mod:`controller.board.config` (one reader, one
error type, :class:`ConfigError`); :class:`Table` adds GPIO pin lists to
its typed getters.  :func:`write_changes` writes a new value of one table
into the file through ``tomlkit``, touching only the keys whose value
changed: the user's comments, key order and other tables stay as they
were.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from controller.board.config import ConfigError, kind_of
from controller.board.config import Table as _Table

__all__ = ["ConfigError", "Inline", "Table", "GPIO_PINS", "check_pins", "write_changes"]

GPIO_PINS = range(0, 28)  # BCM numbers of the 40-pin header's GPIO


class Inline(dict[str, object]):
    """A table written inline: ``{ colour = "#ff0000", blink = 0.5 }``."""


class Table(_Table):
    """Typed access to one table, with GPIO pin lists."""

    def get_pins(self, key: str, default: tuple[int, ...]) -> tuple[int, ...]:
        out: list[int] = []
        for i, pin in enumerate(self.get_list(key, default)):
            if isinstance(pin, bool) or not isinstance(pin, int):
                raise self.error(key, f"item {i + 1} must be a GPIO number, not {kind_of(pin)}")
            out.append(pin)
        check_pins(out, self.path(key))
        return tuple(out)


def check_pins(pins: Iterable[int], where: str) -> None:
    """Every pin a BCM GPIO number, none twice."""
    seen: set[int] = set()
    for pin in pins:
        if pin not in GPIO_PINS:
            raise ConfigError(f"GPIO{pin} does not exist (GPIO0 to GPIO27)", where)
        if pin in seen:
            raise ConfigError(f"GPIO{pin} is used twice", where)
        seen.add(pin)


# ----------------------------------------------------------------------
# Writing


def write_changes(
    path: str | Path, where: str, old: Mapping[str, object], new: Mapping[str, object]
) -> None:
    """Write table ``where`` (dotted, ``"gpio"``) of the file at ``path``
    as ``new``, given ``old``, what the file meant before (its values with
    the defaults filled in).  Only keys whose value changed are written
    (a key ``new`` lacks is removed); a missing file is created.  The file
    is replaced atomically, keeping its mode and owner (it may hold the
    broker's password), and a symbolic link's target is the file written."""
    try:
        import tomlkit
    except ModuleNotFoundError:
        raise ConfigError(
            "writing the configuration needs tomlkit (pip install tomlkit)", file=str(path)
        ) from None
    p = Path(path)
    if p.is_symlink():  # /etc/kharbga/config.toml -> the file kept elsewhere: kept a link
        p = p.resolve()
    try:
        text = p.read_text(encoding="utf-8") if p.exists() else ""
        doc = tomlkit.parse(text)
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.ParseError) as exc:
        raise ConfigError(f"cannot update it ({exc})", file=str(p)) from None
    table: Any = doc
    for part in where.split("."):
        if part not in table:
            table[part] = tomlkit.table(is_super_table=True)
        table = table[part]
    _merge(table, old, new)
    tmp = p.with_name(p.name + ".tmp")
    was = p.stat() if p.exists() else None
    with open(tmp, "w", encoding="utf-8") as fh:
        if was is not None:  # a file only its owner reads stays so, before a word is in it
            os.fchmod(fh.fileno(), was.st_mode & 0o7777)
            if (was.st_uid, was.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):  # the owner's own file, written by root
                    os.fchown(fh.fileno(), was.st_uid, was.st_gid)
        fh.write(tomlkit.dumps(doc))
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(p)


def _merge(table: Any, old: Mapping[str, object], new: Mapping[str, object]) -> None:
    import tomlkit

    for key, value in new.items():
        before = old.get(key)
        if _plain(value) == _plain(before):
            continue
        if isinstance(value, Mapping) and not isinstance(value, Inline):
            if key not in table or not isinstance(table[key], Mapping):
                table[key] = tomlkit.table()
            _merge(table[key], before if isinstance(before, Mapping) else {}, value)
        else:
            table[key] = _item(value)
    for key in old:
        if key not in new and key in table:
            del table[key]


def _item(value: object) -> object:
    import tomlkit

    if isinstance(value, Inline):
        inline = tomlkit.inline_table()
        inline.update({k: _item(v) for k, v in value.items()})
        return inline
    if isinstance(value, tuple):
        return list(value)
    return value


def _plain(value: object) -> object:
    """Values compared as TOML sees them (tuples as lists, tables as dicts)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
