"""The service's configuration: a TOML file, validated on start.

Every mistake gives one line naming the key, e.g.
``config.toml: [web] port must be an integer from 1 to 65535, not "80a"``.

::

    [board]
    kind = "sim"              # sim, gpio, serial:/dev/ttyACM0
    variant = "kharbga"
    settle = 0.25             # seconds a reading must stay
    error_delay = 1.0         # seconds before a wrong reading lights errors

    [web]
    host = "127.0.0.1"
    port = 8080
    token = ""                # required for state-changing requests off loopback

    [players]
    attacker = "Attacker"
    defender = "Defender"
    computer = ""             # "attacker" or "defender": the engine plays that side
    think = 1.0               # the computer's seconds a move

    [storage]
    data_dir = "data"
    sensor_log_limit = 200000 # lines of raw sensor log kept per game
"""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.rules import find_variant

__all__ = ["Config", "ConfigError", "load_config"]


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Config:
    board: str = "sim"
    variant: str = "kharbga"
    settle: float = 0.25
    error_delay: float = 1.0
    host: str = "127.0.0.1"
    port: int = 8080
    token: str = ""
    attacker: str = "Attacker"
    defender: str = "Defender"
    computer: str = ""  # "attacker" or "defender": the side the engine plays
    think: float = 1.0  # the computer's seconds a move
    data_dir: Path = field(default_factory=lambda: Path("data"))
    sensor_log_limit: int = 200_000

    @property
    def loopback(self) -> bool:
        """Does the web page listen on this machine only?"""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def with_overrides(self, **changes: Any) -> Config:
        """Command-line options win over the file."""
        clean = {k: v for k, v in changes.items() if v is not None}
        out = replace(self, **clean)
        _check(out, "command line")
        return out


_SCHEMA: dict[str, dict[str, tuple[str, type]]] = {
    "board": {"kind": ("board", str), "variant": ("variant", str), "settle": ("settle", float),
              "error_delay": ("error_delay", float)},
    "web": {"host": ("host", str), "port": ("port", int), "token": ("token", str)},
    "players": {"attacker": ("attacker", str), "defender": ("defender", str),
                "computer": ("computer", str), "think": ("think", float)},
    "storage": {"data_dir": ("data_dir", str), "sensor_log_limit": ("sensor_log_limit", int)},
}


def load_config(path: str | Path | None) -> Config:
    """The configuration in ``path`` (None: the defaults)."""
    if path is None:
        return Config()
    p = Path(path)
    name = p.name
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{name}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{name}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML ({exc})") from None
    values: dict[str, Any] = {}
    for section, content in data.items():
        if section in ("gpio", "serial", "camera"):
            continue  # the drivers' own tables, checked when that board is used
        if section not in _SCHEMA:
            raise ConfigError(f"{name}: unknown section [{section}] "
                              f"(known: {', '.join(_SCHEMA)})")
        if not isinstance(content, dict):
            raise ConfigError(f"{name}: {section} must be a [{section}] table")
        for key, value in content.items():
            if key not in _SCHEMA[section]:
                known = ", ".join(_SCHEMA[section])
                raise ConfigError(f"{name}: unknown key {key!r} in [{section}] (known: {known})")
            attr, kind = _SCHEMA[section][key]
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ConfigError(
                    f"{name}: [{section}] {key} must be {_kind_name(kind)}, not {value!r}"
                )
            values[attr] = Path(value) if attr == "data_dir" else value
    config = Config(**values)
    _check(config, name)
    return config


def _kind_name(kind: type) -> str:
    return {str: "a string", int: "an integer", float: "a number"}[kind]


def _check(c: Config, name: str) -> None:
    if not (c.board in ("sim", "gpio") or c.board.startswith(("serial:", "camera:"))):
        raise ConfigError(
            f"{name}: [board] kind must be sim, gpio, serial:PORT or camera:DEVICE, not {c.board!r}"
        )
    try:
        find_variant(c.variant)
    except ValueError as exc:
        raise ConfigError(f"{name}: [board] variant: {exc}") from None
    if not 0.01 <= c.settle <= 5:
        raise ConfigError(f"{name}: [board] settle must be 0.01 to 5 seconds, not {c.settle}")
    if not 0 <= c.error_delay <= 60:
        raise ConfigError(f"{name}: [board] error_delay must be 0 to 60 seconds, "
                          f"not {c.error_delay}")
    if not 1 <= c.port <= 65535:
        raise ConfigError(f"{name}: [web] port must be an integer from 1 to 65535, not {c.port}")
    if not c.host:
        raise ConfigError(f"{name}: [web] host must not be empty")
    if not c.loopback and len(c.token) < 12:
        raise ConfigError(
            f"{name}: [web] token of at least 12 characters is required to listen on {c.host}"
        )
    for side, value in (("attacker", c.attacker), ("defender", c.defender)):
        if len(value) > 80 or any(ch in value for ch in '"\\\n\r'):
            raise ConfigError(f"{name}: [players] {side} must be a short name without quotes")
    if c.computer not in ("", "attacker", "defender"):
        raise ConfigError(f"{name}: [players] computer must be \"attacker\", \"defender\" or "
                          f"\"\", not {c.computer!r}")
    if not 0.01 <= c.think <= 60:
        raise ConfigError(f"{name}: [players] think must be 0.01 to 60 seconds, not {c.think}")
    if c.sensor_log_limit < 0:
        raise ConfigError(f"{name}: [storage] sensor_log_limit must not be negative")
