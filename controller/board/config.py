"""Reading configuration files: the one error type and the typed reader.

Every layer that reads a configuration raises :class:`ConfigError`, a
``ValueError`` whose message is one line naming the file, the key (dotted,
``gpio.leds.roles.capture.colour``) and the problem::

    board.toml: gpio.matrix.scan_hz: must be at least 100, not 50

:func:`read_toml` reads a file (the one place a configuration file is
opened and parsed); :class:`Table` reads one table of it with typed
getters.  A part that checks a table without knowing the file raises the
error without one, and the loader adds it with :meth:`ConfigError.in_file`.
:class:`OneLineParser` is the command line's: its refusals are one line
too; :func:`install_hint` names the make target that installs a missing
extra.  The web pages' listening and access helpers are here as well:
where a page listens, who calls it and the address to print
(:func:`listen_failure`, :func:`local_caller`, :func:`loopback_host`,
:func:`start_url`), and its access token (:func:`token_given`,
:func:`token_problem`).  Standard library only.
"""

from __future__ import annotations

import argparse
import errno
import hmac
import ipaddress
import math
import os
import socket
import stat
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

from .words import unreadable

__all__ = ["ConfigError", "OneLineParser", "Table", "install_hint", "kind_of", "listen_failure",
           "local_caller", "loopback_host", "read_bounded", "read_toml", "start_url"]

# The make targets that install an extra of pyproject.toml into .venv.
MAKE_TARGETS = {"pi": "install-pi", "serial": "install-pi", "camera": "install-camera",
                "web": "install", "mqtt": "install"}


def install_hint(extra: str) -> str:
    """How to install the optional libraries of ``extra`` (pyproject.toml)
    into the checkout's ``.venv``, in words: ``make install-pi (or
    .venv/bin/pip install -e '.[pi]')``."""
    pip = f".venv/bin/pip install -e '.[{extra}]' in the checkout"
    target = MAKE_TARGETS.get(extra)
    return f"make {target} (or {pip})" if target else pip


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose refusals are one line and exit status 2
    (``kharbga-board hint: argument --time: invalid float value: 'abc'``),
    without the usage block that ``--help`` shows."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def listen_failure(page: str, host: str, port: int, exc: OSError,
                   in_use: str = "in use") -> OSError:
    """A web page that could not listen on ``host``:``port`` (a name that
    does not resolve, a port in use: ``in_use``), as one line naming the
    options to change."""
    why = in_use if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
    return OSError(f"{page} cannot listen on {host} port {port}: {why}: "
                   "give another with --host or --port")


def local_caller(remote: str | None) -> bool:
    """Is a web page's caller (its address ``remote``, not the one the page
    listens on) on this machine?"""
    try:
        return ipaddress.ip_address((remote or "").split("%")[0]).is_loopback
    except ValueError:
        return False


def token_given(authorization: str, token: str) -> bool:
    """Does a web page's caller give ``token`` in its ``Authorization``
    header (``Bearer TOKEN``)?  A header holding bytes that are not text
    (the server hands them over as lone surrogates) gives none."""
    given = authorization.removeprefix("Bearer ").strip()
    try:
        return hmac.compare_digest(given.encode(), token.encode())
    except UnicodeEncodeError:
        return False


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot be given by a browser's page, or None: it must
    be printable ASCII with no spaces (a browser sends nothing else in a
    header as it is, and the server strips spaces at its ends)."""
    bad = [ch for ch in token if not 33 <= ord(ch) <= 126]
    if not bad:
        return None
    shown = "a space" if bad[0] == " " else repr(bad[0])
    return f"must be printable ASCII letters, digits or signs, with no spaces (it has {shown})"


def loopback_host(host: str) -> bool:
    """Does a page listening on ``host`` stay on this machine?"""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def start_url(host: str, port: int, token: str = "") -> str:
    """The address to open, printed on start: a real address of this
    machine when listening on all of them, with the token when there is
    one (the page keeps it and drops it from the address bar)."""
    from urllib.parse import quote

    address = host
    if host in ("", "0.0.0.0", "::"):
        family = socket.AF_INET6 if host == "::" else socket.AF_INET
        probe = "2001:db8::1" if host == "::" else "192.0.2.1"
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))  # no packet is sent: it picks the route
                address = str(s.getsockname()[0])
        except OSError:
            address = socket.gethostname()
    if ":" in address:
        address = f"[{address}]"
    url = f"http://{address}:{port}/"
    return f"{url}?token={quote(token, safe='')}" if token else url


class ConfigError(ValueError):
    """A configuration that cannot be used; ``str()`` is one line:
    ``FILE: KEY: PROBLEM`` (file and key when known)."""

    def __init__(self, problem: str, key: str = "", file: str = "") -> None:
        self.problem = " ".join(problem.split())
        self.key = key
        self.file = file
        super().__init__(": ".join(part for part in (file, key, self.problem) if part))

    def in_file(self, file: str | Path) -> ConfigError:
        """The same error naming ``file`` (unchanged if it names one)."""
        if self.file:
            return self
        return ConfigError(self.problem, self.key, str(file))


def kind_of(value: object) -> str:
    """``"an integer"``, ``"a string"``, .. for error messages."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return f"{value!r} (a decimal number)" if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return type(value).__name__


MAX_CONFIG_BYTES = 2**20  # far beyond any configuration file


def read_bounded(path: Path, limit: int, what: str,
                 refuse: Callable[[str], Exception]) -> bytes:
    """The bytes of the file ``path``, never more than ``limit`` of them
    read (a video given by mistake, /dev/zero: never read whole).  A file
    that cannot be read or is larger raises ``refuse(why)``, the caller's
    error with these words: "no such file" (:func:`~.words.unreadable`),
    "larger than 1 MiB: not WHAT"."""
    try:
        # Opened without waiting: a named pipe (a FIFO) would wait for a
        # writer for ever, a terminal for typing; they are refused, and
        # anything else read as usual.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise refuse(unreadable(exc)) from None
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            raise refuse(f"a named pipe, not {what}")
        if os.isatty(fd):  # /dev/ttyACM0 given as the file: it would wait for typing
            raise refuse(f"a terminal or serial port, not {what}")
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as f:  # a folder opens, but does not read
            raw = f.read(limit + 1)
    except OSError as exc:
        raise refuse(unreadable(exc)) from None
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise refuse(f"larger than {limit // 2**20} MiB: not {what}")
    return raw


def read_toml(path: str | Path) -> dict[str, Any]:
    """The TOML document in ``path``; :class:`ConfigError` naming the file
    when it is missing, unreadable, not UTF-8 or not TOML."""
    name = str(path)
    raw = read_bounded(Path(path), MAX_CONFIG_BYTES, "a configuration file",
                       lambda why: ConfigError(why, file=name))
    if raw.startswith(b"\xef\xbb\xbf"):  # what some Windows editors write first
        raise ConfigError("starts with a byte-order mark (BOM), which TOML does not allow: "
                          "save it as UTF-8 without BOM", file=name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", file=name) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML ({exc})", file=name) from None
    except RecursionError:  # arrays in arrays beyond what the reader follows
        raise ConfigError("not valid TOML (nested too deeply)", file=name) from None
    except ValueError:  # Python's limit on the digits of an integer it converts
        raise ConfigError(f"not valid TOML (an integer of more than "
                          f"{sys.get_int_max_str_digits()} digits)", file=name) from None


class Table:
    """Typed access to one table, named by its dotted path ``where``;
    every getter raises :class:`ConfigError` naming the key, and
    :meth:`done` rejects keys nobody asked for (a typo)."""

    def __init__(self, data: object, where: str) -> None:
        if data is not None and not isinstance(data, Mapping):
            raise ConfigError(f"must be a table, not {kind_of(data)}", where)
        self.data: Mapping[str, object] = data or {}
        self.where = where
        self._read: set[str] = set()

    def path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(message, self.path(key))

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
            raise self.error(key, f"must be an integer, not {kind_of(value)}")
        self._range(key, value, lo, hi)
        return value

    def get_float(
        self, key: str, default: float, lo: float | None = None, hi: float | None = None
    ) -> float:
        value = self._get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"must be a number, not {kind_of(value)}")
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
            raise self.error(key, f"must be true or false, not {kind_of(value)}")
        return value

    def get_str(self, key: str, default: str, choices: Iterable[str] | None = None) -> str:
        value = self._get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {kind_of(value)}")
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
            raise self.error(key, f"must be a list, not {kind_of(value)}")
        return tuple(value)

    def get_str_list(self, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
        items = self.get_list(key, default)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(key, f"item {i + 1} must be a string, not {kind_of(item)}")
        return tuple(str(item) for item in items)

    def sub(self, key: str) -> Table:
        """The sub-table ``key`` (empty when absent)."""
        value = self._get(key)
        if value is not None and not isinstance(value, Mapping):
            raise self.error(key, f"must be a table, not {kind_of(value)}")
        return type(self)(value, self.path(key))

    def keys(self) -> list[str]:
        """All keys (and marks them read)."""
        self._read.update(self.data)
        return list(self.data)

    def done(self) -> None:
        """:class:`ConfigError` for a key that no getter asked for (a typo)."""
        unknown = [k for k in self.data if k not in self._read]
        if unknown:
            known = ", ".join(sorted(self._read)) or "none"
            raise self.error(unknown[0], f"unknown key (known here: {known})")
