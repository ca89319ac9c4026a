"""The board service's core: sensor events in, reconciler, durable records,
state out.  No web and no hardware here: the web app and the drivers call
:meth:`BoardService.feed` and :meth:`BoardService.tick`.

Order of work for every event: the reconciler decides; every recognised
action is written to SQLite (synced) *before* the state that shows it (LEDs,
web page) is published.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.board.sensorlog import BUTTONS, Button, Frame, format_event
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.rules import Game, Move, find_variant

from .config import Config
from .store import Store

__all__ = ["BoardService", "RequestError"]

SIDES = ("attacker", "defender")


class RequestError(ValueError):
    """A request the service refuses; the message says why."""


@dataclass
class _Published:
    version: int = 0
    state: dict[str, Any] = field(default_factory=dict)


class BoardService:
    """One physical (or simulated) board and its games."""

    def __init__(self, config: Config, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self._t0 = clock()
        self.store = Store(config.data_dir, config.sensor_log_limit)
        self.settings = Settings(settle=config.settle, error_delay=config.error_delay)
        active = self.store.active()
        if active is not None:
            game = active.game()
            self.gid = active.id
            self.players = (active.attacker, active.defender)
        else:
            game = Game.new(config.variant)
            self.players = (config.attacker, config.defender)
            self.gid = self.store.new_game(game, *self.players)
        self.reconciler = Reconciler(game=game, settings=self.settings)
        # Games put aside unfinished (board cleared): resumed when set up again.
        self._ids: dict[int, int] = {}
        for other in self.store.unfinished():
            if other.id != self.gid:
                g = other.game()
                self.reconciler.saved.append(g)
                self._ids[id(g)] = other.id
        self.simulated = config.board == "sim"
        size = game.variant.size
        self.squares = size * size
        stored = self.store.get_value("sim_occ") if self.simulated else None
        if isinstance(stored, str) and len(stored) == self.squares and not stored.strip("01"):
            self.sim_occ = stored
        else:
            a, d = game.bitboards()
            self.sim_occ = "".join("1" if (a | d) >> i & 1 else "0" for i in range(self.squares))
        self.hint_wanted = False
        from controller.engine.api import DEFAULT_HINT_SECONDS

        self.hint_seconds = DEFAULT_HINT_SECONDS
        self.computer: str | None = config.computer or None
        self.think = config.think
        self.computer_wanted = False
        self._published = _Published()
        self._last_update: Update | None = None
        self._sensor_lines: list[str] = []
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        # A camera board's picture with its readings (JPEG), for the page.
        self.camera_preview: Callable[[], bytes] | None = None
        if self.simulated:
            self.feed(Frame.from_occ(self.now(), self.sim_occ))
        else:
            self._publish(self.reconciler.tick(self.now()))

    # ------------------------------------------------------------------

    def now(self) -> float:
        return self.clock() - self._t0

    def close(self) -> None:
        self.store.close()

    def feed(self, event: Frame | Button) -> Update:
        """A sensor frame or button press, with the service's clock."""
        self._sensor_lines.append(format_event(event, self.squares))
        update = self.reconciler.feed(event)
        self._after(update)
        return update

    def tick(self) -> Update:
        update = self.reconciler.tick(self.now())
        self._after(update)
        return update

    def _after(self, update: Update) -> None:
        rec = self.reconciler
        if update.new_game or rec.resumed:
            for old in rec.finished:
                gid = self._ids.pop(id(old), self.gid)
                self.store.sync(gid, old)
                self.store.finish(gid, old)
            rec.finished.clear()
            for old in rec.saved:  # put aside unfinished: kept as it is
                if id(old) not in self._ids:
                    self.store.sync(self.gid, old)
                    self._ids[id(old)] = self.gid
            if rec.resumed:
                self.gid = self._ids.pop(id(rec.game))
                rec.resumed.clear()
            else:
                self.gid = self.store.new_game(rec.game, *self.players)
        if update.played or update.undone or update.new_game:
            self.store.sync(self.gid, rec.game)
        if rec.game.outcome is not None:
            stored = self.store.get(self.gid)
            if stored is not None and stored.finished is None:
                self.store.finish(self.gid, rec.game)
        if update.hint_requested and rec.game.outcome is None:
            self.hint_wanted = True
        self._want_computer()
        if self._sensor_lines and (update.played or len(self._sensor_lines) >= 200):
            self.store.append_sensor(self.gid, self._sensor_lines)
            self._sensor_lines = []
        self._publish(update)

    def _publish(self, update: Update) -> None:
        self._last_update = update
        state = self._state(update)
        if state != self._published.state:
            self._published.version += 1
            self._published.state = state
            for listener in list(self.listeners):
                listener(self.state())

    def _want_computer(self) -> None:
        g = self.reconciler.game
        self.computer_wanted = (
            self.computer is not None
            and g.outcome is None
            and g.to_move == self.computer
            and self.reconciler.expected is None
            and not g.removals
        )

    def set_computer(self, side: object, seconds: object = None) -> None:
        """The engine plays ``side`` (None: nobody); its moves are lit and
        the players make them on the board."""
        if side is not None and side not in SIDES:
            raise RequestError("computer side must be \"attacker\", \"defender\" or null")
        if seconds is not None:
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or \
                    not 0.01 <= seconds <= 60:
                raise RequestError("seconds must be a number from 0.01 to 60")
            self.think = float(seconds)
        self.computer = None if side is None else str(side)
        self.reconciler.expected = None
        names = list(self.players)
        if self.computer is not None:
            names[SIDES.index(self.computer)] = f"Computer ({self.think:g} s)"
        self.players = (names[0], names[1])
        self.store.rename(self.gid, *self.players)
        self._want_computer()
        self._publish(self.reconciler.tick(self.now()))

    def compute_computer(self) -> tuple[int, Game, Move]:
        """The computer's next action (slow: call it off the event loop)."""
        from controller.engine.api import best_move

        self.computer_wanted = False
        game = self.reconciler.game
        result = best_move(game.copy(), self.think)
        return len(game.moves), game, result.move

    def play_computer(self, marker: int, game: Game, move: Move) -> None:
        """Show the computer's action unless the game moved on meanwhile."""
        if game is self.reconciler.game and len(game.moves) == marker and \
                game.to_move == self.computer:
            self.reconciler.expect(move)
            update = self.reconciler.tick(self.now())
            self._after(update)

    def compute_hint(self) -> tuple[int, Game, list[str]]:
        """The engine's suggestion for the current position (slow: call it
        off the event loop); returns what :meth:`show_hint` needs."""
        from controller.engine.api import best_move

        self.hint_wanted = False
        game = self.reconciler.game.copy()
        marker = len(game.moves)
        result = best_move(game, self.hint_seconds)
        m = result.move
        squares = [sq for sq in (m.from_square, m.to_square) if sq]
        return marker, self.reconciler.game, squares

    def show_hint(self, marker: int, game: Game, squares: list[str]) -> None:
        """Light the hint unless the game moved on meanwhile."""
        if game is self.reconciler.game and len(game.moves) == marker:
            self.reconciler.set_hint(squares)
            self._publish(self.reconciler.tick(self.now()))

    # ------------------------------------------------------------------
    # Requests from the web page / API

    def set_sim_occupancy(self, occ: object) -> None:
        if not self.simulated:
            raise RequestError("this board is not simulated")
        if not isinstance(occ, str) or len(occ) != self.squares or occ.strip("01"):
            raise RequestError(f"'occ' must be a string of {self.squares} characters 0 or 1")
        self.sim_occ = occ
        self.store.set_value("sim_occ", occ)  # the simulated board keeps its pieces
        self.feed(Frame.from_occ(self.now(), occ))

    def press(self, button: object, side: object = None) -> None:
        if button not in BUTTONS:
            raise RequestError(f"unknown button {button!r} (known: {', '.join(BUTTONS)})")
        if side is not None and side not in SIDES:
            raise RequestError("side must be \"attacker\" or \"defender\"")
        self.feed(Button(self.now(), str(button), None if side is None else str(side)))

    def new_game(self, variant: object = None, attacker: object = None,
                 defender: object = None) -> None:
        """Start a new game (the board must then be cleared or set up)."""
        name = self.config.variant if variant is None else variant
        if not isinstance(name, str):
            raise RequestError("variant must be a string")
        try:
            v = find_variant(name)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        names = []
        for label, value, default in (("attacker", attacker, self.players[0]),
                                      ("defender", defender, self.players[1])):
            if value is None:
                names.append(default)
            elif not isinstance(value, str) or len(value) > 80 or any(
                    c in value for c in '"\\\n\r'):
                raise RequestError(f"{label} must be a short name without quotes")
            else:
                names.append(value.strip() or default)
        old = self.reconciler.game
        if old.moves and old.outcome is None:
            self.store.sync(self.gid, old)
        self.store.finish(self.gid, old)
        if v.size != old.variant.size and self.simulated:
            self.sim_occ = "0" * (v.size * v.size)
            self.store.set_value("sim_occ", self.sim_occ)
        self.players = (names[0], names[1])
        game = Game.new(v)
        self.gid = self.store.new_game(game, *self.players)
        self.squares = v.size * v.size
        self.reconciler = Reconciler(game=game, settings=self.settings)
        if self.simulated:
            self.feed(Frame.from_occ(self.now(), self.sim_occ))
        else:
            self._publish(self.reconciler.tick(self.now()))

    # ------------------------------------------------------------------
    # State

    def _state(self, update: Update) -> dict[str, Any]:
        g = self.reconciler.game
        o = g.outcome
        return {
            "game_id": self.gid,
            "variant": g.variant.name,
            "size": g.variant.size,
            "position": g.position(),
            "to_move": g.to_move,
            "phase": g.phase,
            "status": update.status,
            "leds": update.leds,
            "moves": _record_tokens(g),
            "outcome": None if o is None else {"winner": o.winner, "reason": o.reason,
                                               "kind": o.kind, "result": o.result},
            "players": {"attacker": self.players[0], "defender": self.players[1]},
            "board": self.config.board,
            "sim_occ": self.sim_occ if self.simulated else None,
            "counts": {"attacker": g.count("attacker"), "defender": g.count("defender")},
            "computer": self.computer,
            "expected": None if self.reconciler.expected is None
            else str(self.reconciler.expected),
        }

    def state(self) -> dict[str, Any]:
        out = dict(self._published.state)
        out["version"] = self._published.version
        return out

    def state_json(self) -> str:
        return json.dumps(self.state())


def _record_tokens(game: Game) -> list[str]:
    """The game's tokens in record notation (a chain joined into one)."""
    from controller.rules.record import group_turns

    return [tok for turn in group_turns(game) for tok in turn]
