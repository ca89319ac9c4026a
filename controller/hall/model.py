"""What the hall knows: every board heard on ``kharbga/+/...`` and its games.

Pure bookkeeping (no network): :meth:`Hall.handle` takes one MQTT message
(topic and payload bytes) and returns the id of the board it changed, or
None when the message was ignored.  Ignored messages (malformed, foreign
topics, repeats) are counted, never raised.

Moves arrive in order with a growing ``seq``; a message whose ``seq`` is not
above the highest seen from that board is a repeat (QoS 1 delivers at least
once) and is dropped.  The retained record on ``kharbga/NAME/game`` is the
board's stored game: it fills any moves the hall missed (a broker that lost
messages when it was killed), so once the board has republished, the hall
holds exactly the recorded game.  Moves messages also carry the game's rule
options and the position it was set up from, so the evening's file replays
a game from its moves alone.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from controller.board.words import named, on_one_line
from controller.rules.leap_factory import format_any_options
from controller.rules.record import parse_record

from .boards import HallBoard, HallGame, Left
from .geometry import check_position, checked_geometry
from .protocol import BOARD_ID, action_tokens
from .records import GAME_ID, STORE_TAG, count_actions, positions_of, record_text
from .trust import MAX_JUMP, is_int, move_time, seq_trouble, strict_json

log = logging.getLogger("kharbga.hall")
SAY_EVERY = 60.0  # seconds between two log lines of one board's same trouble
# Seconds the store a board's card follows may be silent while another store
# under its id goes on before the card follows that one (the board shown gone).
TAKE_OVER = 60.0

__all__ = ["Hall"]

MAX_PAYLOAD = 256 * 1024
MAX_GAMES = 1000  # per board: the oldest are dropped beyond this
MAX_START = 2000  # characters kept of a game's start position or options


class Hall:
    """Every board of the evening and its games."""

    def __init__(self) -> None:
        self.boards: dict[str, HallBoard] = {}
        self.ignored: dict[str, int] = {}
        self.received = 0
        self.repeats = 0
        self._said: dict[tuple[str, str], float] = {}

    def ignore(self, why: str, where: str = "", detail: str = "") -> None:
        self.ignored[why] = self.ignored.get(why, 0) + 1
        self.say(where, f"{why} message ignored{f' ({detail})' if detail else ''}", why)

    def say(self, where: str, what: str, key: str) -> None:
        """One log line for a board's trouble (``where``: its topic), then
        at most one a minute for the same trouble (a board sending junk
        at every move must not flood the log)."""
        now = time.monotonic()
        last = self._said.get((where, key))
        if last is not None and now - last < SAY_EVERY:
            return
        if len(self._said) > 4096:
            self._said.clear()
        self._said[(where, key)] = now
        line = f"{where[:120]}: {what}" if where else what
        log.warning("hall: %s", on_one_line(line))

    def tell_once(self, board: HallBoard, key: str, what: str) -> None:
        """One log line for a board's lasting trouble (a clock that is off),
        said once for the evening, not at every message."""
        if key not in board.told:
            board.told.add(key)
            self.say(f"kharbga/{board.id}", what, key)

    def handle(self, topic: str, payload: bytes, retained: bool = False) -> str | None:
        """One message; the board it changed, or None (ignored and counted).
        ``retained``: the broker's stored copy, not the board speaking now."""
        self.received += 1
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != "kharbga" or not BOARD_ID.fullmatch(parts[1]):
            self.ignore("foreign topic", topic)
            return None
        name, kind = parts[1], parts[2]
        if len(payload) > MAX_PAYLOAD:
            self.ignore("too large", topic)
            return None
        known = name in self.boards
        try:
            changed = self._take(name, kind, payload.decode("utf-8"))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError,
                ArithmeticError) as exc:
            self.ignore(f"malformed {kind}", topic, named(exc, 100))
            if not known:  # no empty card for a board heard only in junk
                self.boards.pop(name, None)
            return None
        if changed and not retained and payload != b"0":  # "0": the broker's last will
            self.boards[name].heard_at = time.time()
        if changed and not retained and kind == "online" and payload == b"0":
            self.boards[name].gone_at = time.time()  # the broker saw it go just now
        return name if changed else None

    def _take(self, name: str, kind: str, text: str) -> bool:
        if kind == "moves":
            return self._move(name, strict_json(text))
        if kind == "state":
            return self._state(name, strict_json(text))
        if kind == "game":
            return self._record(name, text)
        if kind == "online":
            if text not in ("0", "1"):
                raise ValueError(text)
            board = self.board(name)
            board.online = text == "1"
            if board.online:
                board.gone_at = None
            return True
        self.ignore("foreign topic", f"kharbga/{name}/{kind}")
        return False

    def unheard(self) -> list[str]:
        """The broker forgot everything (restarted without its memory, so
        without the last wills of the boards gone meanwhile): no board is
        online until it says so again, as a board back does at once; the
        boards that were."""
        names = [name for name, b in self.boards.items() if b.online]
        for name in names:
            self.boards[name].online = False
        for b in self.boards.values():
            b.gone_at = None  # when a board went is no longer known
        return names

    def link_lost(self, within: float = 5.0) -> list[str]:
        """The hall's link to the broker went down: a last will that came
        in the seconds before is more likely the broker's own shutdown (it
        sends every board's as it stops) than the board's going, so when
        those boards went is not known; the boards whose time is dropped."""
        now = time.time()
        names = [n for n, b in self.boards.items()
                 if b.gone_at is not None and now - b.gone_at < within]
        for name in names:
            self.boards[name].gone_at = None
        return names

    def board(self, name: str) -> HallBoard:
        b = self.boards.get(name)
        if b is None:
            b = self.boards[name] = HallBoard(name)
        return b

    def _game(self, board: HallBoard, gid: int, variant: str) -> HallGame:
        g = board.games.get(gid)
        if g is None:
            g = board.games[gid] = HallGame(gid, variant, store=board.store)
            if len(board.games) > MAX_GAMES:
                del board.games[min(board.games)]
        if board.current is None or gid >= board.current:
            board.current = gid
        return g

    def _move(self, name: str, m: Any) -> bool:
        if not isinstance(m, dict):
            raise ValueError("not an object")
        seq, gid, ply = m["seq"], m["game_id"], m["ply"]
        position, variant = m["position"], m["variant"]
        undo = m.get("undo") is True
        # a move is action 1 or later; an undo may leave none
        if not (is_int(seq) and is_int(gid) and is_int(ply) and ply >= (0 if undo else 1) and
                isinstance(position, str) and isinstance(variant, str)):
            raise ValueError("bad fields")
        check_position(position)
        move = m.get("move")
        if not undo and not isinstance(move, str):
            raise ValueError("no move")
        options, start = _short(m.get("options"), "options"), _short(m.get("start"), "start")
        board = self.board(name)
        if not self._same_store(board, m) or not self._next_seq(board, seq):
            return False
        board.seq = seq
        board.heard = time.monotonic()
        g = self._game(board, gid, variant)
        for side in ("attacker", "defender"):
            if isinstance(m.get(side), str):
                setattr(g, side, _name(m[side]))
        if "options" in m:  # a board before these fields sends neither
            g.options = options or ""
        if "start" in m:
            g.start = start or None  # null: the variant's start
        result = m.get("result")
        g.result = result if isinstance(result, str) else None
        if undo:
            del g.moves[ply:], g.positions[ply:], g.times[ply:]
            g.epoch += 1
            return True
        assert isinstance(move, str)  # checked above: only an undo has no move
        if ply - 1 > len(g.moves) or g.gap:
            g.gap = True  # missed moves: the board's next record fills them
            return True
        if ply - 1 < len(g.moves):
            del g.moves[ply - 1:], g.positions[ply - 1:], g.times[ply - 1:]
            g.epoch += 1
        now = time.time()
        t, why = move_time(m.get("time"), now, m.get("sent"))
        if why is not None:
            shown = "shown at the time the hall received them" if t == now \
                else "shown moved by the difference"
            self.tell_once(board, "clock", f"{why}: its moves are {shown} (set the boards' "
                           "clocks: network time)")
        g.moves.append(move)
        g.positions.append(position)
        g.times.append(t)
        return True

    def _next_seq(self, board: HallBoard, seq: int) -> bool:
        """Whether ``seq`` is the board's next: above the highest heard (else
        a repeat, counted), not beyond a board's count nor a jump past what
        the hall could have missed (refused, said in the log).  A ``seq``
        far below the highest heard is no repeat but the board itself
        after a wrong one that came first: followed from there."""
        topic = f"kharbga/{board.id}/moves"
        trouble = seq_trouble(seq, board.seq)
        if trouble is not None:
            self.ignore("out-of-line seq", topic, f"{trouble}: not this board's next message")
            return False
        if seq <= board.seq - MAX_JUMP:
            self.say(topic, f"seq {seq} far below the {board.seq} heard before: that one was "
                     "not this board's; following it from here", "seq restart")
            return True
        if seq <= board.seq:
            self.repeats += 1
            return False
        return True

    def _state(self, name: str, s: Any) -> bool:
        if not isinstance(s, dict) or not is_int(s.get("game_id")) or \
                not isinstance(s.get("position"), str):
            raise ValueError("not a state")
        check_position(s["position"])
        board = self.board(name)
        if not self._same_store(board, s):
            return False
        s["geometry"] = checked_geometry(s.get("geometry"))
        board.state = s
        variant = s.get("variant")
        g = self._game(board, s["game_id"], variant if isinstance(variant, str) else "kharbga")
        board.current = g.id  # the board's own word (a game put aside may come back)
        players = s.get("players")
        if isinstance(players, dict):
            g.attacker = _name(str(players.get("attacker", g.attacker)))
            g.defender = _name(str(players.get("defender", g.defender)))
        return True

    def _same_store(self, board: HallBoard, m: dict[str, Any]) -> bool:
        """Moves and states name the board's store they come from.  A new
        one (the board set up again with a fresh store: its ``seq`` starts
        over, its game ids too) puts the board's games aside, still in the
        evening's file; False for a late message of an earlier store, and
        for one naming no store once the board has named one (refused)."""
        store = m.get("store")
        if not isinstance(store, str) and board.store is not None:
            self.ignore("storeless", f"kharbga/{board.id}", "a message naming no store from a "
                        f"board that sends from store {board.store}: a board of an earlier "
                        "version under the same id, or a forged message")
            return False
        now = time.monotonic()
        if not isinstance(store, str) or store == board.store:
            board.store_heard = now
            return True
        left = board.left
        if left is not None and store == left.store and is_int(m.get("seq")) \
                and m["seq"] > left.seq:
            self._go_back(board, left)
            return True
        if store in board.old_stores:
            seq, new = m.get("seq"), False
            if is_int(seq) and seq > board.old_seqs.get(store, 0):
                # a live board, not a late repeat: two boards under this id
                new, board.old_seqs[store] = True, seq
                board.twin, board.twin_heard = store[:64], now
            quiet = now - board.store_heard
            if not new or quiet < TAKE_OVER:
                self.repeats += 1
                self.say(f"kharbga/{board.id}", f"a message of store {store[:16]}, which this "
                         f"board left for {board.store}: a late repeat, or two boards sending "
                         "under one board id (give each its own)", "old store")
                return False
            # The store followed has been silent a minute while this one
            # goes on: the board the card shows has gone; follow this one.
            taken = store[:64]
            self.say(f"kharbga/{board.id}", f"store {store[:16]} goes on while {board.store} "
                     f"has been silent {quiet:.0f} s: following it", "store takes over")
            board.old_stores.discard(store)
            board.twin = None  # the other one went: said again if it comes back
        else:
            taken = None
        if board.store is not None:
            self.say(f"kharbga/{board.id}", f"now sends from store {store[:16]} (was "
                     f"{board.store}): its earlier games are put aside", "new store")
            board.old_stores.add(board.store)
            board.old_seqs[board.store] = board.seq
            board.left = Left(board.store, board.games, board.current, board.seq)
            board.earlier = [*board.earlier, *(g for _, g in sorted(board.games.items()))]
            del board.earlier[:-MAX_GAMES]
            board.games, board.current, board.seq, board.pending = {}, None, 0, None
        if taken is not None:
            # Its games heard before it was refused go on (the evening's
            # file holds each once, not a part beside the whole).
            board.games = {g.id: g for g in board.earlier if g.store == taken}
            board.earlier = [g for g in board.earlier if g.store != taken]
        board.store, board.store_heard = store[:64], now
        return True

    def _go_back(self, board: HallBoard, left: Left) -> None:
        """The store a board left sends a new message: it was not set up
        again; the message that named another store was stray (garbled,
        forged, or a second board under the same id).  The board's games
        come back; the stray store's are put aside and refused from now."""
        self.say(f"kharbga/{board.id}", f"store {left.store[:16]} speaks again after "
                 f"{board.store}: following it again; the messages of {board.store} are "
                 "refused from now (a stray message, or two boards under one board id: give "
                 "each its own)", "store back")
        kept = set(map(id, left.games.values()))
        board.earlier = [g for g in board.earlier if id(g) not in kept]
        board.earlier += [g for _, g in sorted(board.games.items())]
        del board.earlier[:-MAX_GAMES]
        board.old_stores.discard(left.store)
        if board.store is not None:
            board.old_stores.add(board.store)
            board.old_seqs[board.store] = board.seq
        board.store, board.games, board.current = left.store, left.games, left.current
        board.seq, board.pending, board.left = left.seq, None, None

    def _record(self, name: str, text: str) -> bool:
        """A board's record: read whole (slow: tens of ms) only when it
        holds moves the hall lacks; otherwise kept until the board is quiet
        (:meth:`check_quiet`) or the games are downloaded."""
        header = text.split("\n\n", 1)[0]
        found = GAME_ID.search(header)
        if found is None:
            raise ValueError("a record without GameId")
        gid = int(found[1])
        board = self.board(name)
        if not self._record_store(board, STORE_TAG.search(header)):
            return False
        g = board.games.get(gid)
        board.pending = (gid, text)
        board.heard = time.monotonic()
        if g is None or g.gap or count_actions(text) > len(g.moves):
            return self._apply_record(name)
        return True

    def _record_store(self, board: HallBoard, tag: re.Match[str] | None) -> bool:
        """A record names its board's store as the moves do: one of another
        store (a late copy of one the board left, two boards under one id),
        or naming none once the board names its store, is refused.  A board
        not yet heard from, or of an earlier version (no store), is taken."""
        if board.store is None or (tag is not None and tag[1] == board.store):
            return True
        where = f"kharbga/{board.id}/game"
        if tag is None:
            self.ignore("storeless", where, f"a record naming no store from a board that "
                        f"sends from store {board.store[:16]}")
        else:
            self.ignore("stray record", where, f"a record of store {tag[1][:16]}, while this "
                        f"board sends from store {board.store[:16]}")
        return False

    def check_quiet(self, quiet: float = 2.0) -> list[str]:
        """Read the kept records of boards silent for ``quiet`` seconds
        (a check that the hall holds exactly the board's game); the boards
        that changed."""
        now = time.monotonic()
        changed = []
        for name, board in self.boards.items():
            if board.pending is None or now - board.heard < quiet:
                continue
            gid = board.pending[0]
            g = board.games.get(gid)
            before = None if g is None else (g.epoch, len(g.moves))
            try:
                self._apply_record(name)
            except (ValueError, TypeError, KeyError, RecursionError, ArithmeticError) as exc:
                self.ignore("malformed game", f"kharbga/{name}/game", named(exc, 100))
            board.pending = None
            g = board.games.get(gid)
            if g is not None and before != (g.epoch, len(g.moves)):
                changed.append(name)
        return changed

    def _apply_record(self, name: str) -> bool:
        board = self.board(name)
        assert board.pending is not None
        text = board.pending[1]
        board.pending = None
        record = parse_record(text)
        gid_text = record.tags.get("GameId", "")
        if not gid_text.isdigit():
            raise ValueError("a record without GameId")
        game = record.game()
        tokens = action_tokens(game)
        g = self._game(board, int(gid_text), game.variant.name)
        g.attacker = _name(record.tags.get("Attacker", g.attacker))
        g.defender = _name(record.tags.get("Defender", g.defender))
        g.options, g.start = format_any_options(game.variant), game.start_position
        if game.outcome is not None:
            g.result = game.outcome.result
        if tokens == g.moves:
            g.record, g.record_moves = text, list(tokens)
        elif len(tokens) >= len(g.moves) or g.gap:
            # The stored game: it holds what the hall missed.
            positions = positions_of(game, tokens)
            keep = [t for t, tok in zip(g.times, g.moves, strict=False)]
            g.moves, g.positions = tokens, positions
            # when the moves the record fills were made is not known: not now
            g.times = keep[:len(tokens)] + [None] * (len(tokens) - len(keep))
            g.record, g.record_moves, g.gap = text, list(tokens), False
            g.epoch += 1
        return True

    # -- what the page and the download need ---------------------------------

    def summaries(self, names: set[str] | None = None) -> list[dict[str, Any]]:
        return [b.summary() for n, b in sorted(self.boards.items())
                if names is None or n in names]

    def stats(self) -> dict[str, Any]:
        return {"boards": len(self.boards), "received": self.received,
                "repeats": self.repeats, "ignored": sum(self.ignored.values()),
                "ignored_by_reason": dict(self.ignored)}

    def kgn(self) -> str:
        """Every game of the evening as one KGN file (records separated by a
        blank line), board by board."""
        self.check_quiet(0.0)
        out = []
        for name, board in sorted(self.boards.items()):
            for g in [*board.earlier, *(g for _, g in sorted(board.games.items()))]:
                # A game with no action (named, then a new one begun before
                # any move; a board's restart) is no game of the evening.
                if g.moves or (g.record and count_actions(g.record)):
                    text = record_text(name, g)
                    if text is not None:
                        out.append(text)
                    elif f"unknown {g.id}" not in board.told:
                        board.told.add(f"unknown {g.id}")  # counted once, not at every download
                        self.ignore("game of an unknown variant",
                                    f"kharbga/{name}", f"game {g.id}: {g.variant[:40]!r}")
        return "\n".join(out)


def _short(v: object, what: str) -> str | None:
    """A message's ``options`` or ``start``: a string of at most
    ``MAX_START`` characters, or null; anything else makes the message
    malformed (ignored and counted; the board's record fills it)."""
    if v is None or (isinstance(v, str) and len(v) <= MAX_START):
        return v
    raise ValueError(f"bad {what}")


def _name(text: str) -> str:
    """A player's name from a board, as the hall keeps it: at most 80
    characters, what would break a line or hide text (a line break, a NUL,
    a bidi override: a board refuses them in its own names) shown as '?'."""
    return on_one_line(text[:80])
