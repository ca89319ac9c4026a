"""Broadcast a board's games over MQTT (``kharbga-board run --broker``).

Topics, for a board named ``NAME``:

- ``kharbga/NAME/state``: retained, the JSON of ``GET /api/state`` and
  the board's ``store``, on every change.
- ``kharbga/NAME/moves``: QoS 1, one message per confirmed action (or
  undo): ``{"seq", "store", "board", "game_id", "ply", "move", "position", "time",
  "variant", "options", "start", "attacker", "defender", "result", "sent"}``
  (``options`` the variant's rule options, ``start`` the position a game
  set up from a position started from, else null; ``sent`` the board's
  wall clock when the message went to the broker); an undo has ``"undo":
  true`` and ``ply`` the number of actions left.  ``seq`` grows by one or
  more with every message the board ever sends, so a receiver drops
  repeats (QoS 1 may deliver one twice) by keeping the highest it saw;
  ``store`` names the store the ``seq`` is of (a board set up again with
  a fresh store starts over under another ``store``).
- ``kharbga/NAME/game``: retained, the game's record (KGN) so far, with
  a ``[Store "..."]`` tag naming the board's store as the moves do.
- ``kharbga/NAME/online``: retained ``1`` while connected, ``0`` (the
  broker's last will) when the board vanished.

The board never waits for the broker.  The service's listener only hands
the new state to the sender thread.  The sender reads the confirmed actions
from the store (its own SQLite connection on the same file), turns the ones
not yet queued into messages in the ``broadcast_outbox`` table (together
with what was queued, ``broadcast_sent``, in one transaction), and hands
the queue to paho in order while the broker is connected.  A message leaves
the queue when the broker acknowledges it.  After a restart, even after a
power cut, the sender compares the store with ``broadcast_sent`` again, so
every action the store holds is sent, in order, once.
"""

from __future__ import annotations

import json
import logging
import secrets
import socket
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.board.words import said
from controller.hall.protocol import (
    KEEPALIVE,
    BroadcastConfig,
    Unreplayable,
    action_tokens,
    apply_token,
    load_broadcast,
    parse_broker_url,
    stored_start,
)
from controller.rules import AnyGame

__all__ = ["BroadcastConfig", "Publisher", "action_tokens", "apply_token", "attach",
           "load_broadcast", "parse_broker_url"]

log = logging.getLogger("kharbga.broadcast")

RECORD_EVERY = 2.0  # seconds between two records of the same game
HAND_BATCH = 500  # messages handed to paho in one turn of the sender
TWIN_KEPT = 120  # seconds another board under this board id is said after it was last heard

SCHEMA = """
CREATE TABLE IF NOT EXISTS broadcast_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS broadcast_sent (
    game_id INTEGER PRIMARY KEY,
    tokens TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS broadcast_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass
class _Sent:
    """What was queued of one game, and the game replayed to there."""

    tokens: list[str]
    game: AnyGame
    variant: str
    options: str
    start: str | None
    attacker: str
    defender: str


class Publisher:
    """Publishes one board's state, moves and record; see the module text."""

    def __init__(self, config: BroadcastConfig, data_dir: Path,
                 on_link: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.config = config
        self.data_dir = data_dir
        self.on_link = on_link
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._state: dict[str, Any] | None = None
        self._state_sent: dict[str, Any] | None = None
        self._changed = True  # the store may hold actions not yet queued
        self._acks: deque[int] = deque()
        self._connected = False
        self._reconnected = False
        self._error = ""
        # Another board under this board id: its store and when last heard
        # (a state of another store sent live on this board's own topic).
        self._twin: tuple[str, float] | None = None
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self.sent_messages = 0

    # -- called on the board's event loop ---------------------------------

    def listener(self, state: dict[str, Any]) -> None:
        """The service's state listener: cheap, never blocks."""
        self._state = state
        self._changed = True
        self._wake.set()

    def link(self) -> dict[str, Any]:
        """The broker link, for the page: ``{"url", "board_id", "connected", "error",
        "twin"}`` (``twin``: another board sends under this board id, in words)."""
        twin = self._twin
        return {"url": self.config.url, "board_id": self.config.board_id,
                "connected": self._connected, "error": self._error,
                "twin": "" if twin is None else (
                    f"another board also sends as {self.config.board_id} (store "
                    f"{twin[0][:16]}): the hall cannot tell the two apart; give each board "
                    "its own board_id")}

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="broadcast", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop at once, whatever the broker does (a service stops within
        about a second); what was not acknowledged stays queued."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(2)
        client = self._client
        if client is None:
            return
        if self._connected:
            client.publish(self.config.topic("online"), "0", qos=1, retain=True)
            client.disconnect()
            client.loop_stop()
        else:  # no waiting for a broker that does not answer: paho's thread is a daemon
            client.disconnect()

    # -- the sender thread --------------------------------------------------

    def _run(self) -> None:
        try:
            self._serve()
        except Exception as exc:  # logged and shown; the board plays on
            log.exception("broadcast: stopped")
            self._set_link(False, f"stopped ({exc})")

    def _serve(self) -> None:
        from .store import Store

        self.store = Store(self.data_dir)
        self.db = self.store.db
        self.db.execute("PRAGMA synchronous=NORMAL")  # the store is the authority
        self.db.executescript(SCHEMA)
        self._sent: dict[int, _Sent] = {}
        self._done: set[int] = set()  # finished and all sent (followed again if undone)
        self._skipped: set[int] = set()  # not broadcast: does not replay, or a bug
        self._records: dict[int, float] = {}  # game -> when its record is due
        self._record_last: dict[int, float] = {}
        self._handed = 0  # highest outbox seq handed to paho
        self._inflight: dict[int, int] = {}  # paho mid -> outbox seq
        self._first = int(self._meta("first", self._first_game))
        # Names this store in every message: a board set up again with a
        # fresh store (its seq starting over) is told apart by the hall.
        self._store_id = self._meta("store", lambda: secrets.token_hex(8))
        self._probe()
        self._client = self._make_client()
        try:
            while not self._stop.is_set():
                self._wake.wait(self._wait())
                self._wake.clear()
                self._forget_twin()
                try:
                    self._turn()
                except sqlite3.Error as exc:  # a busy database: next turn
                    log.warning("broadcast: %s", exc)
                    time.sleep(0.05)
                except Exception:  # a bug must not stop the broadcast; it is logged
                    log.exception("broadcast: turn failed")
                    time.sleep(1.0)
            self._last_records()
        finally:
            self.store.close()

    def _last_records(self) -> None:
        """On stop, the records held back (``RECORD_EVERY``) go out at
        once: the retained one is what a hall started later shows."""
        if not self._connected:
            return
        try:
            self._turn()
            for gid in self._records:
                self._records[gid] = 0.0
            self._publish_records()
        except Exception:  # the board stops all the same; the next start sends them
            log.exception("broadcast: the last records were not sent")

    def _turn(self) -> None:
        self._take_acks()
        if self._changed:
            self._changed = False
            self._scan()
        if not self._connected:
            return
        if self._reconnected:
            self._reconnected = False
            self._client.publish(self.config.topic("online"), "1", qos=1, retain=True)
            self._state_sent = None
            for gid in self._sent:
                if gid not in self._done:
                    self._records[gid] = 0.0
        self._hand()
        state = self._state
        if state is not None and state is not self._state_sent:
            self._client.publish(self.config.topic("state"),
                                 json.dumps({**state, "store": self._store_id}), qos=1, retain=True)
            self._state_sent = state
        self._publish_records()

    def _meta(self, key: str, make: Callable[[], str]) -> str:
        """A value of this store's broadcast, made once and kept."""
        row = self.db.execute("SELECT value FROM broadcast_meta WHERE key=?", (key,)).fetchone()
        if row:
            return str(row[0])
        value = make()
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO broadcast_meta VALUES (?, ?)", (key, value))
        return value

    def _first_game(self) -> str:
        """Games from this one on are broadcast (not the archive from
        before the board first had a broker)."""
        row = self.db.execute("SELECT MIN(id) FROM games WHERE finished IS NULL").fetchone()
        first = int(row[0]) if row and row[0] is not None else 0
        if not first:
            row = self.db.execute("SELECT MAX(id) FROM games").fetchone()
            first = int(row[0]) + 1 if row and row[0] is not None else 1
        return str(first)

    def _scan(self) -> None:
        """Queue a message for every stored action not yet queued (and for
        every undo), game by game in order."""
        rows = self.db.execute(
            "SELECT id, variant, options, start, attacker, defender, finished FROM games "
            "WHERE id>=? ORDER BY id", (self._first,)).fetchall()
        for row in rows:
            gid = int(row[0])
            if gid in self._skipped or (gid in self._done and row[6] is not None):
                continue
            self._done.discard(gid)  # an end taken back (undo): its moves followed again
            acts = self.db.execute("SELECT token, t FROM actions WHERE game_id=? ORDER BY ply",
                                   (gid,)).fetchall()
            tokens = [a[0] for a in acts]
            try:
                sent = self._sent.get(gid) or self._load_sent(gid, row)
                if tokens != sent.tokens:
                    self._queue(gid, sent, tokens, [float(a[1]) for a in acts])
                    self._record_due(gid)
            except Unreplayable as exc:  # not the rules' game: skip it
                log.warning("broadcast: game %d does not replay (%s): not broadcast",
                            gid, said(exc))
                self._sent.pop(gid, None)
                self._skipped.add(gid)
                continue
            except sqlite3.Error:  # a busy database: this game again next turn
                self._sent.pop(gid, None)
                raise
            except Exception:  # a bug: logged, and it holds up no other game
                log.exception("broadcast: game %d could not be queued: not broadcast", gid)
                self._sent.pop(gid, None)
                self._skipped.add(gid)
                continue
            sent.attacker, sent.defender = row[4], row[5]
            if row[6] is not None and tokens == sent.tokens:
                self._done.add(gid)
                self._records[gid] = 0.0  # the final record, now

    def _record_due(self, gid: int) -> None:
        if gid not in self._records:
            last = self._record_last.get(gid, -RECORD_EVERY)
            self._records[gid] = max(time.monotonic(), last + RECORD_EVERY)

    def _load_sent(self, gid: int, row: tuple[Any, ...]) -> _Sent:
        found = self.db.execute("SELECT tokens FROM broadcast_sent WHERE game_id=?",
                                (gid,)).fetchone()
        try:
            tokens = json.loads(found[0]) if found else []
        except ValueError:
            tokens = None
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise Unreplayable("its list of the moves already sent is unreadable")
        start = row[3] or None
        game = stored_start(row[1], row[2], start)
        for token in tokens:
            apply_token(game, token)
        sent = _Sent(tokens, game, row[1], row[2], start, row[4], row[5])
        self._sent[gid] = sent
        return sent

    def _queue(self, gid: int, sent: _Sent, tokens: list[str], times: list[float]) -> None:
        common = 0
        while common < min(len(tokens), len(sent.tokens)) and \
                tokens[common] == sent.tokens[common]:
            common += 1
        game = sent.game
        base = {"board": self.config.board_id, "game_id": gid, "variant": sent.variant,
                "options": sent.options, "start": sent.start,
                "attacker": sent.attacker, "defender": sent.defender}
        payloads = []
        if common < len(sent.tokens):
            for _ in range(len(sent.tokens) - common):
                game.pop()
            payloads.append(dict(base, ply=common, undo=True, position=game.position(),
                                 time=time.time(), result=None))
        for i in range(common, len(tokens)):
            apply_token(game, tokens[i])
            o = game.outcome
            payloads.append(dict(base, ply=i + 1, move=tokens[i], position=game.position(),
                                 time=times[i], result=None if o is None else o.result))
        topic = self.config.topic("moves")
        with self.db:  # the messages and what was queued, all or nothing
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany("INSERT INTO broadcast_outbox (topic, payload) VALUES (?, ?)",
                                [(topic, json.dumps(p)) for p in payloads])
            self.db.execute("INSERT OR REPLACE INTO broadcast_sent VALUES (?, ?)",
                            (gid, json.dumps(tokens)))
        sent.tokens = list(tokens)

    def _hand(self) -> None:
        """Give paho the queued messages it does not have yet, in order."""
        rows = self.db.execute(
            "SELECT seq, topic, payload FROM broadcast_outbox WHERE seq>? ORDER BY seq LIMIT ?",
            (self._handed, HAND_BATCH)).fetchall()
        for seq, topic, payload in rows:
            # sent: this clock now, so the hall sees by how much it is off
            text = (f'{{"seq": {seq}, "store": "{self._store_id}", '
                    f'"sent": {time.time():.3f}, {payload[1:]}')
            info = self._client.publish(topic, text, qos=1)
            self._inflight[info.mid] = int(seq)
            self._handed = int(seq)
            self.sent_messages += 1
        if len(rows) == HAND_BATCH:
            self._wake.set()

    def _take_acks(self) -> None:
        done = []
        while self._acks:
            seq = self._inflight.pop(self._acks.popleft(), None)
            if seq is not None:
                done.append((seq,))
        if done:
            with self.db:
                self.db.executemany("DELETE FROM broadcast_outbox WHERE seq=?", done)

    def _publish_records(self) -> None:
        now = time.monotonic()
        for gid in sorted(gid for gid, at in self._records.items() if at <= now):
            sent = self._sent.get(gid)
            if sent is not None:
                text = self.store.record_text(gid, sent.game, {"Store": self._store_id})
                self._client.publish(self.config.topic("game"), text, qos=1, retain=True)
            self._record_last[gid] = now
            del self._records[gid]

    def _wait(self) -> float:
        """Seconds until the sender has something to do by itself."""
        if self._records and self._connected:
            return max(0.0, min(1.0, min(self._records.values()) - time.monotonic()))
        return 1.0

    def queued(self) -> int:
        """Messages the broker has not acknowledged yet (sender thread only)."""
        row = self.db.execute("SELECT COUNT(*) FROM broadcast_outbox").fetchone()
        return int(row[0])

    # -- the link -----------------------------------------------------------

    def _heard_state(self, payload: bytes) -> None:
        """A state message on this board's own topic (paho's thread), sent
        live by another client (its own are not sent back): another board
        under the same id, once it names another store."""
        try:
            store = json.loads(payload).get("store")
        except (ValueError, AttributeError):
            return
        if not isinstance(store, str) or store == self._store_id:
            return
        first = self._twin is None
        self._twin = (store[:64], time.monotonic())
        if first:
            log.warning("broadcast: another board sends as %s (store %s): give each board "
                        "its own board_id", self.config.board_id, store[:16])
            self._tell_link()

    def _forget_twin(self) -> None:
        """Another board not heard for TWIN_KEPT seconds is said no more."""
        twin = self._twin
        if twin is not None and time.monotonic() - twin[1] > TWIN_KEPT:
            self._twin = None
            log.info("broadcast: no other board heard as %s for %d s", self.config.board_id,
                     TWIN_KEPT)
            self._tell_link()

    def _tell_link(self) -> None:
        if self.on_link is not None and not self._stop.is_set():
            self.on_link(self.link())

    def _set_link(self, connected: bool, error: str = "") -> None:
        changed = (connected, error) != (self._connected, self._error)
        was = self._connected
        self._connected, self._error = connected, error
        if not changed or self._stop.is_set():
            return
        if connected:
            log.info("broadcast: connected to %s as %s", self.config.url, self.config.board_id)
        elif error:
            log.warning("broadcast: broker %s %s; the board plays on and keeps trying",
                        self.config.url, error)
        elif was:
            log.warning("broadcast: lost the broker %s; moves wait in the queue", self.config.url)
        self._tell_link()
        self._wake.set()

    def _probe(self) -> None:
        """One plain connection first: an unreachable broker is one clear
        line on the console and on the page (paho then keeps trying)."""
        host, port, _ = self.config.address
        try:
            with socket.create_connection((host, port), timeout=3):
                pass
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            self._set_link(False, f"unreachable ({reason})")

    def _make_client(self) -> Any:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
        from paho.mqtt.subscribeoptions import SubscribeOptions

        cfg = self.config
        host, port, tls = cfg.address
        # Named by the store too: a second board given this board id (a
        # copied configuration) does not take this one's connection at the
        # broker, each knocking the other off every second; it is said.
        # MQTT 5: its own state is not sent back to it (no local).
        client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                             client_id=f"kharbga-board-{cfg.board_id}-{self._store_id[:8]}")
        if cfg.username:
            client.username_pw_set(cfg.username, cfg.password or None)
        if tls:
            client.tls_set(ca_certs=cfg.ca_file or None, certfile=cfg.cert_file or None,
                           keyfile=cfg.key_file or None)
        client.will_set(cfg.topic("online"), "0", qos=1, retain=True)
        client.reconnect_delay_set(1, 5)
        client.max_inflight_messages_set(100)

        def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            if reason.is_failure:
                self._set_link(False, f"refused the connection ({reason})")
                return
            self._reconnected = True
            # Another board under this id: a state on this board's topic not
            # its own (no local), and not the copy the broker kept (which
            # may be of the board this one replaced).
            c.subscribe(cfg.topic("state"), options=SubscribeOptions(
                qos=1, noLocal=True, retainHandling=2))
            self._set_link(True)

        def on_disconnect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            self._set_link(False, self._error if not self._connected else "")

        def on_connect_fail(c: Any, userdata: Any) -> None:
            self._set_link(False, self._error or self.config.no_connection)

        def on_publish(c: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
            self._acks.append(mid)
            self._wake.set()

        def on_message(c: Any, userdata: Any, message: Any) -> None:
            self._heard_state(message.payload)

        client.on_connect = on_connect
        client.on_message = on_message
        client.on_disconnect = on_disconnect
        client.on_connect_fail = on_connect_fail
        client.on_publish = on_publish
        client.connect_async(host, port, keepalive=KEEPALIVE, clean_start=True)
        client.loop_start()
        return client


def attach(app: Any, service: Any, config: BroadcastConfig) -> Publisher:
    """Publish ``service``'s games while ``app`` (the aiohttp app) runs; the
    page's state carries the broker link."""
    import asyncio

    from aiohttp import web

    need_paho()
    loop_key: web.AppKey[Publisher] = web.AppKey("broadcast", Publisher)
    publisher = Publisher(config, service.config.data_dir)

    async def start(app: web.Application) -> None:
        loop = asyncio.get_running_loop()

        def on_link(link: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(_show_link, service, link)

        publisher.on_link = on_link
        _show_link(service, publisher.link())
        service.listeners.append(publisher.listener)
        publisher.listener(service.state())
        publisher.start()

    async def stop(app: web.Application) -> None:
        await asyncio.get_running_loop().run_in_executor(None, publisher.close)

    app[loop_key] = publisher
    app.on_startup.append(start)
    app.on_cleanup.insert(0, stop)
    return publisher


def need_paho() -> None:
    """A ValueError with the install line when paho-mqtt is missing."""
    from controller.board.config import install_hint

    try:
        import paho.mqtt.client  # noqa: F401
    except ImportError:
        raise ValueError(f"the broadcast needs paho-mqtt: {install_hint('mqtt')}") from None


def _show_link(service: Any, link: dict[str, Any]) -> None:
    set_broker = getattr(service, "set_broker", None)
    if set_broker is not None:
        set_broker(link)
