"""What boards and the hall agree on: broker URLs, board ids, the
``[broadcast]`` table, a game's start (variant, options, start position)
and the action tokens of the moves topic (as the store keeps them), and
their replay.  See docs/broadcast.md."""

from __future__ import annotations

import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from controller.board.config import ConfigError, Table
from controller.board.words import said
from controller.rules import AnyGame, Game, find_any_variant
from controller.rules.leap_factory import apply_any_options, make_game

__all__ = ["BOARD_ID", "KEEPALIVE", "BroadcastConfig", "BroadcastError", "Unreplayable",
           "action_tokens", "apply_token", "load_broadcast", "parse_broker_url", "stored_start"]

BOARD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
KEEPALIVE = 10  # seconds, the boards' and the hall's: a silent network is noticed within 15 s


class BroadcastError(ValueError):
    """A broadcast setting that cannot be used; the message is one line."""


class Unreplayable(ValueError):
    """A stored game these rules do not replay (an action they refuse, or
    its variant, options or start); the message says which and why."""


def parse_broker_url(url: str) -> tuple[str, int, bool]:
    """``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]`` -> host, port, TLS."""
    shown = re.sub(r"(?<=//).*@", "", url, count=1)  # said without any credentials in it
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BroadcastError(f"broker {shown!r}: not a URL like mqtt://HOST:1883") from None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise BroadcastError(f"broker {shown!r}: use mqtt://HOST:PORT or mqtts://HOST:PORT")
    if port == 0:  # not "no port given": none to connect to
        raise BroadcastError(f"broker {shown!r}: the port must be from 1 to 65535")
    if parts.username or parts.password:
        where = parts.netloc.rpartition("@")[2]  # the host and port given, no credentials
        raise BroadcastError(f"broker {parts.scheme}://{where}: put the user name and "
                             "password in the configuration file, not in the URL")
    if parts.path not in ("", "/") or parts.query:
        raise BroadcastError(f"broker {shown!r}: nothing may follow HOST:PORT")
    tls = parts.scheme == "mqtts"
    return parts.hostname, port or (8883 if tls else 1883), tls


@dataclass(frozen=True)
class BroadcastConfig:
    """Where and as whom a board publishes."""

    url: str
    board_id: str
    username: str = ""
    password: str = ""
    ca_file: str = ""  # mqtts: the CA that signed the broker (default: the system's)
    cert_file: str = ""  # mqtts: a client certificate, if the broker wants one
    key_file: str = ""

    @property
    def address(self) -> tuple[str, int, bool]:
        return parse_broker_url(self.url)

    def topic(self, what: str) -> str:
        return f"kharbga/{self.board_id}/{what}"

    @property
    def no_connection(self) -> str:
        """Why a connection failed when the broker's port answered (the
        plain probe found it): with ``mqtts://``, the TLS handshake."""
        if self.address[2]:
            return ("no TLS connection (the port answers, but not with TLS, or refused the "
                    "certificates: mqtts:// needs the broker's TLS listener, often port 8883)")
        return "unreachable"


_KEYS = ("broker", "board_id", "username", "password", "ca_file", "cert_file", "key_file")


def load_broadcast(table: Mapping[str, object] | None, broker: str | None = None,
                   board_id: str | None = None, source: str = "",
                   need_id: bool = True) -> BroadcastConfig | None:
    """The ``[broadcast]`` table of the configuration file with the command
    line's ``--broker`` and ``--board-id`` over it; None: no broadcast.  A
    mistake is a :class:`ConfigError` naming the key."""
    try:
        return _load(Table(table, "broadcast"), broker, board_id, need_id)
    except ConfigError as exc:
        raise exc.in_file(source) if source else exc from None


def _load(t: Table, broker: str | None, board_id: str | None,
          need_id: bool) -> BroadcastConfig | None:
    values = {key: t.get_str(key, "") for key in _KEYS}
    t.done()
    # An option given empty is a mistake to name, not "not given" (the
    # file's empty broker is: no broadcast).
    url = values["broker"] if broker is None else broker
    name = values["board_id"] if board_id is None else board_id
    if not url and broker is None:
        if board_id is not None:
            raise ConfigError("--board-id needs a broker (--broker or [broadcast] broker)")
        return None
    try:
        parse_broker_url(url)
    except BroadcastError as exc:
        raise ConfigError(str(exc), "" if broker is not None else "broadcast.broker") from None
    if (name or board_id is not None) and not BOARD_ID.fullmatch(name):
        given = "--board-id " if board_id is not None else ""  # the option named, as the key is
        raise ConfigError(f"{given}{name!r}: 1 to 64 letters, digits, '.', '_' or '-' "
                          "(no '/', '+' or '#')",
                          "" if board_id is not None else "broadcast.board_id")
    if need_id and not name:
        raise ConfigError("a broker needs a board id (--board-id NAME or [broadcast] board_id)")
    for key in ("ca_file", "cert_file", "key_file"):
        if values[key] and not Path(values[key]).is_file():
            raise ConfigError(f"no file {values[key]}", f"broadcast.{key}")
    if bool(values["cert_file"]) != bool(values["key_file"]):
        raise ConfigError("cert_file and key_file go together", "broadcast")
    _check_tls(values["ca_file"], values["cert_file"], values["key_file"])
    return BroadcastConfig(url=url, board_id=name, username=values["username"],
                           password=values["password"], ca_file=values["ca_file"],
                           cert_file=values["cert_file"], key_file=values["key_file"])


def _check_tls(ca_file: str, cert_file: str, key_file: str) -> None:
    """The TLS files load: a CA certificate, a certificate and its key."""
    if ca_file:
        try:
            ssl.create_default_context(cafile=ca_file)
        except (ssl.SSLError, OSError, ValueError) as exc:
            raise ConfigError(f"{ca_file} holds no usable certificate ({_ssl_words(exc)})",
                              "broadcast.ca_file") from None
    if cert_file:
        try:
            ssl.create_default_context().load_cert_chain(cert_file, key_file)
        except (ssl.SSLError, OSError, ValueError) as exc:
            raise ConfigError(f"{cert_file} and {key_file} are not a certificate and its key "
                              f"({_ssl_words(exc)})", "broadcast.cert_file") from None


def _ssl_words(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason).lower().replace("_", " ") if reason else said(exc)


def stored_start(variant: str, options: str, start: str | None) -> AnyGame:
    """A game's start as a board stores and broadcasts it (either rules
    family): its variant, its options (``key=value`` words, empty for the
    named variant) and the position it was set up from (None: the
    variant's start); :class:`Unreplayable` if these rules do not know
    them."""
    try:
        return make_game(apply_any_options(find_any_variant(variant), options), start)
    except (ValueError, LookupError) as exc:
        raise Unreplayable(f"its start ({variant}): " + said(exc)) from exc


def apply_token(game: AnyGame, token: str) -> None:
    """Play one stored action token (as the store keeps them) on ``game``;
    one the rules refuse raises :class:`Unreplayable` naming it."""
    try:
        if token in ("resign:attacker", "resign:defender"):
            game.resign(token.split(":")[1])
        elif token == "agreement":
            game.agree_draw()
        elif token == "barrier" and isinstance(game, Game):
            game.agree_barrier()
        else:
            game.play(token)
    except (ValueError, LookupError) as exc:
        raise Unreplayable(f"action {len(game.moves) + 1} ({token}): "
                           + said(exc)) from exc


def action_tokens(game: AnyGame) -> list[str]:
    """The game's actions as the store keeps them: a resignation as
    ``resign:SIDE``, an agreed draw as ``agreement``, an agreed barrier as
    ``barrier`` (what :func:`apply_token` plays back)."""
    out = []
    for m in game.moves:
        if m.kind == "resignation":
            o = game.outcome
            out.append("resign:" + ("defender" if o and o.winner == "attacker" else "attacker"))
        elif m.kind in ("agreement", "barrier"):
            out.append(m.kind)
        else:
            out.append(str(m))
    return out


