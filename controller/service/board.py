"""The board service's core: sensor events in, reconciler, durable records,
state out.  No web and no hardware here: the web app (its requests and
its ticker) and the backends' event pump (:class:`.hardware.EventPump`)
call :meth:`BoardService.feed` and :meth:`BoardService.tick`.

Order of work for every event: the reconciler decides; every recognised
action is written to SQLite (synced) *before* the state that shows it (LEDs,
web page) is published; a write that fails is held by the keeper
(:mod:`.keeper`, and the journal beside the archive) and tried again.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from controller.board.sensorlog import BUTTONS, Button, Frame, format_event
from controller.board.words import place
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.rules import AnyGame, find_any_variant
from controller.rules.leap_factory import format_any_options, is_leap, make_game

from .advice import Advice
from .boardview import (
    DRAW_TERMS,
    Turns,
    board_view,
    check_name,
    computer_draw_answer,
    computer_name,
    hajeb_view,
    has_exchange,
    hint_shown,
    kings,
    lights_of,
    lit_hint,
    reason_words,
    simulated_words,
    status_words,
    stored_settings,
    waiting_view,
    with_options,
)
from .computer_side import SIDES, EngineSide
from .config import Config
from .keeper import WAITING, Keeper
from .simboard import RequestError, SimBoard, check_board, fits
from .store import Store, resumable
from .thinker import search_threads
from .wait import ClearWait

__all__ = ["BoardService", "RequestError", "reason_words"]

# The buttons as the page labels them, for a press said in words.
BUTTON_WORDS = {"hint": "Hint", "exchange": "Exchange", "undo": "Undo", "new": "New game",
                "resign": "Resign", "draw": "Draw", "hajeb": "H'ajeb"}


@dataclass
class _Published:
    version: int = 0
    state: dict[str, Any] = field(default_factory=dict)


class BoardService(EngineSide):
    """One physical (or simulated) board and its games."""

    def __init__(self, config: Config, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self._t0 = clock()
        self.store = Store(config.data_dir, config.sensor_log_limit)
        self.keeper = Keeper(self.store, str(config.data_dir), self.now)
        self.settings = Settings(settle=config.settle, error_delay=config.error_delay)
        # Each start has its own identity: a page takes its state as new.
        self.server_id = secrets.token_hex(8)
        # The game's settings (stored with it): the players' own names, the
        # side the computer plays and its seconds a move.
        self.names = (config.attacker, config.defender)
        self.computer: str | None = config.computer or None
        self.think, self.level = config.think, config.level
        self.ponder = config.ponder
        # A real board's switches are wired for one board: games of another
        # (started on the simulated board, say) stay in the archive, unfinished.
        self.board = find_any_variant(config.variant).geometry.name
        board = None if config.board == "sim" else self.board
        game, active, fresh = self._first_game(board)
        # The engine's children: hints, the computer's moves, pondering.
        self.advice = Advice(self.ponder, threads=search_threads(config.threads))
        # Games put aside unfinished (board cleared): resumed when set up again.
        aside = [(i, g) for i, g in self.store.put_aside((self.gid, active))
                 if fits(board, i, g)]
        self._ids: dict[int, int] = {id(g): gid for gid, g in aside}
        # A resumed game: no takeback before the board shows it (one packed
        # away reads empty); an exchange flag raised, a draw offered, as they were.
        self.reconciler = self._reconciler(game, saved=[g for _, g in aside],
                                           resumed=bool(game.moves))
        self.reconciler.restore(self.keeper.resumed_pending(self.gid, game, self.computer))
        # A resumed game: the first frame may show its last captures still
        # standing (the players had not taken them off when it stopped).
        self._resume_check = bool(game.moves)
        self.simulated = config.board == "sim"
        self.squares = game.geometry.size  # the board's points (sensors)
        self.sim = SimBoard(self.store, game, self.keeper.later)  # the simulated board only
        self.hint_wanted = self.computer_wanted = False
        self.engine_failed: tuple[AnyGame, int, int] | None = None
        self.engine_gave_up: tuple[AnyGame, int] | None = None
        # The time of the last event fed while the board's pump has more
        # waiting (inf: none waiting): ticks go no further (:meth:`tick`).
        self.fed_until = float("inf")
        from controller.engine.api import DEFAULT_HINT_SECONDS

        self.hint_seconds = DEFAULT_HINT_SECONDS
        self.hint_move: str | None = None
        self.hint_turn: str | None = None  # the hint's whole turn, when it goes on past it
        self.hint_squares: list[str] = []
        offer = self.reconciler.pending.draw  # a draw offered before a restart
        self.draw_offer: str | None = None if offer is None else SIDES[offer]
        self.note: str | None = None  # a draw declined, the computer's pass: until the next move
        self.refusal: str | None = None  # why the last press did nothing: until the board changes
        self._occupied = self._refused_on = 0  # the board's reading; as the press was refused
        self._published = _Published()
        self._last_update: Update | None = None
        self._sensor_lines: list[str] = []
        self._log_now = False
        self._last_frame: Frame | None = None
        self._turns = Turns()  # the record's numbered turns, for the page
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        # A camera board's picture with its readings (JPEG), for the page.
        self.camera_preview: Callable[[], bytes] | None = None
        # The MQTT broadcast link (broadcast.py), shown on the page; None: no broker.
        self.broker: dict[str, Any] | None = None
        self.sensor_problem: str | None = None  # set_sensor: why the board is not read
        self.board_fault: str | None = None  # set_sensor: a board read, its lights failing
        # A new game started with pieces on the board waits for it cleared (or
        # set up as its start) before it reads moves; an unreadable mark waits.
        # So does one started here after the last game ended (its soldiers
        # may still stand), until the board's first reading shows it.
        waiting = self.store.get_value(
            WAITING, self.gid, "taken as set: a game with no move yet waits for the "
            "board cleared or set up as its start")
        self.wait = ClearWait()
        self.wait.resume((fresh or waiting == self.gid) and not game.moves, held=not fresh)
        if self.simulated:
            self.feed(Frame.from_occ(self.now(), self.sim.occ))
        else:
            self._publish(self.reconciler.tick(self.now()))

    def _first_game(self, board: str | None) -> tuple[AnyGame, int, bool]:
        """The archive's unfinished game resumed, or a new one (as game
        :attr:`gid`); with the id of the game found unfinished (0: none) and
        whether a new game was started after others (their soldiers may
        still stand: it waits for the board cleared)."""
        active = self.store.active()
        resumed = resumable(active) if active is not None else None
        if active is not None and resumed is not None and fits(board, active.id, resumed):
            self.gid = active.id
            self._load_settings(active.settings, (active.attacker, active.defender))
            return resumed, active.id, False
        game = make_game(self.config.variant)
        self.gid = self.keeper.new_game(game, *self.players, self.game_settings(), None)
        return game, active.id if active is not None else 0, self.gid > 1

    # ------------------------------------------------------------------

    @property
    def waiting_clear(self) -> bool:
        """Does a new game wait for the board cleared (:mod:`.wait`)?"""
        return self.wait.on

    def now(self) -> float:
        return self.clock() - self._t0

    @property
    def players(self) -> tuple[str, str]:
        """The names shown and recorded: the computer's side is named so."""
        names = list(self.names)
        if self.computer is not None:
            names[SIDES.index(self.computer)] = computer_name(self.think, self.level)
        return names[0], names[1]

    def game_settings(self) -> dict[str, object]:
        return {"names": list(self.names), "computer": self.computer, "think": self.think,
                "level": self.level, "ponder": self.ponder}

    def _rename(self) -> None:
        if self.reconciler.game.outcome is not None:  # its record names who played it
            self.keeper.later(partial(self.store.keep_settings, self.gid, self.game_settings()))
            return
        self.keeper.later(partial(self.store.rename, self.gid, *self.players,
                                  self.game_settings()))

    def _load_settings(self, stored: dict[str, object], shown: tuple[str, str]) -> None:
        """The settings a stored game was played with (games stored before
        settings were kept: their recorded names, no computer)."""
        for key, value in stored_settings(stored, shown).items():
            setattr(self, key, value)

    def _reconciler(self, game: AnyGame, **kw: Any) -> Reconciler:
        """A reconciler of the service's for ``game`` (finished games are the
        archive's), told the computer's side."""
        rec = Reconciler(game=game, settings=self.settings, keep_finished=False, **kw)
        rec.computer = self._computer_index()
        return rec

    def close(self) -> None:
        self.advice.close()
        self.store.close()

    def feed(self, event: Frame | Button) -> Update:
        """A sensor frame or button press, with the service's clock."""
        if isinstance(event, Frame) and (event.occupied | event.unknown) >> self.squares:
            what = place(self.reconciler.game.geometry.name, 2)
            raise ValueError(f"a frame shows {what} beyond the game's {self.squares}")
        if isinstance(event, Button) or (not event.unknown and event.occupied != self._refused_on):
            self.refusal = None  # the press it answered is over (a '?' is no change)
        if isinstance(event, Button) and event.side is None and self.computer is not None \
                and event.button in ("draw", "resign"):
            # A shared button (the board's set, a press without its side)
            # against the computer is the person's, as the page's is: the
            # computer offers and resigns nothing by hand.
            event = replace(event, side=SIDES[1 - SIDES.index(self.computer)])
        if isinstance(event, Frame):
            self._occupied, self._last_frame = event.occupied, event
            if self._resume_check:
                self._resume_check = False
                self._take_standing(event.occupied)
        if self.waiting_clear:
            return self._feed_waiting(event)
        self._sensor_lines.append(format_event(event, self.squares))
        if isinstance(event, Button):
            self._note_button(event)
        update = self.reconciler.feed(event)
        self._after(update)
        return update

    def _take_standing(self, occupied: int) -> None:
        """If the board shows the resumed game exactly, plus soldiers its
        last turn captured, those are asked to be taken off (not errors);
        so too when a chain's soldier is in the hand (mid-chain, the power
        went): the chain goes on."""
        from controller.reconcile.timeline import Timeline, captured_last_turn

        rec = self.reconciler
        a, d = rec.game.bitboards()
        standing = occupied & captured_last_turn(Timeline(rec.game)).bits
        jumper = 1 << rec.game.chain_point if rec.game.chain_point >= 0 else 0
        if standing and occupied | jumper == a | d | standing:
            self.reconciler = self._reconciler(rec.game, saved=rec.saved, standing=standing,
                                               resumed=True)
            self.reconciler.restore(rec.pending)

    def _feed_waiting(self, event: Frame | Button) -> Update:
        """A new game waits for the cleared board (or its start position):
        frames until then are not moves."""
        rec = self.reconciler
        if isinstance(event, Frame) and self.wait.over(rec.game, rec.saved, event.occupied,
                                                   event.unknown):
            self.keeper.later(partial(self.store.set_value, WAITING, None))
            self._sensor_lines.append(format_event(event, self.squares))
            update = self.reconciler.feed(event)
            self._after(update)
            return update
        if isinstance(event, Button):  # said, as a refused press is in play
            self.refusal, self._refused_on = (f"{BUTTON_WORDS.get(event.button, event.button)} "
                                              "waits: the new game begins once its board is "
                                              "ready"), self._occupied
        update = self.reconciler.tick(event.t)
        self._publish(update)
        return update

    def _note_button(self, event: Button) -> None:
        """Flush the log at every press (a resign or draw ends a game), and
        follow the draw offer for the page."""
        g = self.reconciler.game
        side = event.side or g.to_move
        if event.button == "draw" and g.outcome is None:
            self.draw_offer = None if self.draw_offer not in (None, side) else side
        self._log_now = True

    def _flush_log(self) -> None:
        if self._sensor_lines:
            self.keeper.later(partial(self.store.append_sensor, self.gid, self._sensor_lines))
            self._sensor_lines = []

    def tick(self) -> Update:
        # Never past the last event fed while more wait to be (the pump's
        # backlog): a reading they change is not settled by the clock alone.
        update = self.reconciler.tick(min(self.now(), self.fed_until))
        self._after(update)
        return update

    def _after(self, update: Update) -> None:
        rec = self.reconciler
        if update.played or update.undone or update.new_game or update.resumed is not None:
            self.draw_offer = self.note = self.hint_move = self.hint_turn = self.refusal = None
        if update.refused:
            self.refusal, self._refused_on = update.refused, self._occupied
        if update.new_game or update.resumed is not None:
            # What led here belongs to the game that ends or is put aside;
            # the next game's log starts with the board as it is now.
            self._flush_log()
            # Finished, and never played (not left unfinished in the list).
            for old in [*update.finished, *update.dropped]:
                self.keeper.later(partial(self.store.finish, self._ids.pop(id(old), self.gid),
                                          old))
            for old in update.saved:  # put aside unfinished: kept as it is
                self.keeper.later(partial(self.store.sync, self.gid, old))
                self._ids[id(old)] = self.gid
            if update.resumed is not None:
                self.gid = self._ids.pop(id(update.resumed))
                self.keeper.resumed(self.gid)
                stored = self.keeper.stored(self.gid)  # None: unreadable, kept as they are
                if stored is not None:
                    self._load_settings(stored.settings, (stored.attacker, stored.defender))
                    self._tell_computer()
                    self.advice.set_ponder(self.ponder)
            else:
                self._begin(rec.game)
            if not self.waiting_clear:  # the wait's end starts its log
                self._sensor_lines.append(self._board_line())
        flush = bool(self._sensor_lines) and bool(update.played or update.undone or self._log_now
                                                  or len(self._sensor_lines) >= 200)
        if (update.played or update.undone or update.new_game or flush or self.keeper.due()
                or rec.game.outcome is not None
                or not self.keeper.kept(self.gid, rec.game, rec.pending)):
            self.keeper.keep(self.gid, rec.game, self._sensor_lines, flush, rec.pending)
        if (update.undone and not update.played and rec.game.to_move == self.computer
                and rec.game.outcome is None and rec.game.moves):
            # Undo on the person's turn took back the computer's reply: the
            # person's turn before it goes too, theirs to play again (else
            # the same reply is lit at once over the board not yet put back).
            self.press("undo")
            return
        if update.hint_requested and rec.game.outcome is None:
            if rec.game.to_move == self.computer:  # its move is lit (or coming): no other
                self.refusal, self._refused_on = "no hint on the computer's turn", self._occupied
            else:
                self.hint_wanted = True
        self._want_computer()
        self._log_now = False
        answer = computer_draw_answer(rec.game, self.computer, self.draw_offer)
        if answer is not None:  # the computer answers an offer at once
            self.answer_draw(answer[0])
            self.note = answer[1] or self.note
            self._publish(self.reconciler.tick(self.now()))
            return
        self._publish(update)

    def _begin(self, game: AnyGame) -> None:
        """The reconciler's new game (the board's New game button, the board
        cleared): soldiers standing off its start are no moves of it: it waits
        (:mod:`.wait`; the wait kept with its row), read afresh then."""
        wait = self.wait.start(game, self._occupied)
        self.gid = self.keeper.new_game(game, *self.players, self.game_settings(), wait)
        if wait:
            self.reconciler = self._reconciler(game, saved=self.reconciler.saved)

    def _board_line(self) -> str:
        """The board as it stands now, as a sensor-log frame."""
        if self._last_frame is not None:
            return format_event(replace(self._last_frame, t=self.now()), self.squares)
        return format_event(Frame(self.now(), 0), self.squares)

    def _publish(self, update: Update) -> None:
        self._last_update = update
        state = self._state(update)
        if state != self._published.state:
            self._published.version += 1
            self._published.state = state
            for listener in list(self.listeners):
                listener(self.state())

    # ------------------------------------------------------------------
    # Requests from the web page / API

    def set_sim_occupancy(self, occ: object, setup: object = None, point: object = None,
                          occupied: object = None) -> None:
        """The simulated board's readings: the whole board (``occ``) or one
        click (``point`` and ``occupied``), made on the board's set-up
        ``setup`` (``sim_setup`` in the state; optional)."""
        if not self.simulated:
            raise RequestError("this board is not simulated")
        geometry = self.reconciler.game.geometry
        if point is None:
            occ = self.sim.set(occ, setup, geometry.name)
        elif occ is None:
            occ = self.sim.set_point(point, occupied, setup, geometry.point_names, geometry.name)
        else:
            raise RequestError("give either 'occ' (the whole board) or 'point', not both")
        self.feed(Frame.from_occ(self.now(), occ))

    def press(self, button: object, side: object = None) -> None:
        if not isinstance(button, str):  # null, a number: not a name
            raise RequestError(f"button must name a button: {', '.join(BUTTONS)}")
        if button not in BUTTONS:
            raise RequestError(f"unknown button {button[:40]!r} (known: {', '.join(BUTTONS)})")
        if side is not None and side not in SIDES:
            raise RequestError("side must be \"attacker\" or \"defender\"")
        self.feed(Button(self.now(), str(button), None if side is None else str(side)))

    def answer_draw(self, answer: object) -> None:
        """The other side accepts the draw offered, or declines it."""
        offer = self.draw_offer
        if offer is None or self.reconciler.game.outcome is not None:
            raise RequestError("no draw is offered")
        if answer == "accept":
            self.press("draw", "defender" if offer == "attacker" else "attacker")
        elif answer == "decline":
            self.note = f"{SIDES[1 - SIDES.index(offer)].capitalize()} declines the draw"
            self.draw_offer = None
            rec = self.reconciler
            rec.decline_draw()  # the board's own memory of it, kept before it is shown
            self.keeper.keep(self.gid, rec.game, self._sensor_lines, False, rec.pending)
            self._publish(rec.tick(self.now()))
        else:
            raise RequestError('answer must be "accept" or "decline"')

    def new_game(self, variant: object = None, attacker: object = None,
                 defender: object = None, position: object = None,
                 options: object = None) -> None:
        """Start a new game of any variant, at its start or from
        ``position`` (the board must then be cleared or set up as it);
        ``options``: ``"hajeb=true"`` for sabouiyya's H'ajeb."""
        name = self.config.variant if variant is None else variant
        if not isinstance(name, str):
            raise RequestError("variant must be a string")
        if position is not None and not isinstance(position, str):
            raise RequestError("position must be a position string")
        try:
            v = with_options(find_any_variant(name), options)
            game = make_game(v, position or None)
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        if game.outcome is not None:  # a game that would start over
            raise RequestError(f"the game is over in that position: {game.outcome.said}: "
                               "give one with a move to make")
        check_board(None if self.simulated else self.board, game)
        names = []
        for label, value, default in (("attacker", attacker, self.names[0]),
                                      ("defender", defender, self.names[1])):
            names.append(default if value is None else check_name(label, value) or default)
        old = self.reconciler.game
        self.keeper.later(partial(self.store.finish, self.gid, old))
        if self.simulated and (game.geometry.name != old.geometry.name
                               or game.phase == "moving"):
            # The simulated board: another board starts empty; a game that
            # starts with its soldiers standing has them set up at once.
            self.sim.set_up(game)
            self.keeper.later(self.sim.save)
        self._flush_log()
        self.names = (names[0], names[1])
        if self.simulated:
            self._occupied = Frame.from_occ(0, self.sim.occ).occupied
        # Pieces left off its start are not the new game's first moves.
        self.wait.start(game, self._occupied)
        self.gid = self.keeper.new_game(game, *self.players, self.game_settings(),
                                        self.waiting_clear)
        self.squares = game.geometry.size
        # Games put aside earlier stay resumable (the board set up as one).
        saved = [g for g in self.reconciler.saved if g.variant == v]
        self.reconciler = self._reconciler(game, saved=saved)
        self.draw_offer = self.note = self.hint_move = self.hint_turn = self.refusal = None
        if self.simulated:
            self.feed(Frame.from_occ(self.now(), self.sim.occ))
        elif not self.waiting_clear and self._last_frame is not None:
            # The board as it stands, its log's first line, read (a leap
            # game's soldiers standing: it is set up, its changes are play).
            self.feed(replace(self._last_frame, t=self.now()))
        else:
            if not self.waiting_clear:
                self._sensor_lines.append(self._board_line())
            self._publish(self.reconciler.tick(self.now()))

    # ------------------------------------------------------------------
    # State

    def _status(self, update: Update) -> tuple[str, dict[str, str]]:
        """The status line and lights: the reconciler's, or the service's
        own while a new game waits for the cleared board."""
        if self.waiting_clear and self._last_frame is not None:  # what stands is known
            status, leds = waiting_view(self.reconciler.game, self._occupied)
            return (f"{status} ({self.refusal})" if self.refusal else status), leds
        hint = self.hint_move if self.reconciler.expected is None else None
        status, leds = status_words(update.status, update.leds, self.reconciler.game, hint,
                                    self.note, self.draw_offer,
                                    None if update.refused else self.refusal, self.hint_turn)
        g = self.reconciler.game
        if self.hint_for is not None and self.hint_for[0] is g and \
                self.hint_for[1] == len(g.moves) and not self.hint_move and g.outcome is None:
            status = f"{status} (looking for a hint: up to {self.hint_seconds:g} s)"
        return (simulated_words(status) if self.simulated else status), leds

    def _state(self, update: Update) -> dict[str, Any]:
        g = self.reconciler.game
        o = g.outcome
        status, leds = self._status(update)
        crowned = kings(g)
        leds = {**{name: "king" for name in crowned}, **leds}  # a king's own look, when unlit
        hajeb = hajeb_view(g, leds)  # its end's removals lit where nothing else is
        turns = self._turns(g)
        view = board_view(g)
        hinted = hint_shown(self.hint_move, leds, g)
        # The computer's reply to a pass stopping the person's chain, lit
        # (a hint for the person outranks it).
        reply = None if hinted else self.reconciler.after_pass
        return {
            "game_id": self.gid,
            "variant": g.variant.name,
            "size": view["width"] if view["kind"] == "grid" else None,  # a square board's side
            "geometry": view,
            "rules": "leap" if is_leap(g.variant) else "kharbga",
            "exchange": has_exchange(g.variant),  # the page's Exchange button
            # The looks the legend lists (those this phase, or the end, can light), in words.
            "lights": lights_of(g.variant, g.phase, started=g.ply > 0, over=o is not None),
            "kings": crowned,
            "position": g.position(),
            "to_move": g.to_move,
            "phase": g.phase,
            "chain": g.chain_square if g.outcome is None else None,  # the soldier to go on
            "status": status,
            "leds": leds,
            "moves": [tok for _, turn, _ in turns for tok in turn],
            "outcome": None if o is None else {"winner": o.winner, "reason": o.reason,
                                               "kind": o.kind, "result": o.result,
                                               "words": reason_words(o.reason)},
            "turns": turns,
            "names": {"attacker": self.names[0], "defender": self.names[1]},
            "think": self.think,
            "level": self.level,
            "draw_offer": self.draw_offer if o is None else None,
            "hint_move": self.hint_move if hinted else None,
            "hint_squares": lit_hint(self.reconciler.expected or reply, self.hint_squares, leds),
            "waiting_clear": self.waiting_clear,
            "players": {"attacker": self.players[0], "defender": self.players[1]},
            "board": self.config.board,
            "sim_occ": self.sim.occ if self.simulated else None,
            "sim_setup": self.sim.setup if self.simulated else None,
            "counts": {"attacker": g.count("attacker"), "defender": g.count("defender")},
            "computer": self.computer,
            "draw_terms": DRAW_TERMS if self.computer else None,
            "expected": None if self.reconciler.expected is None
            else str(self.reconciler.expected),
            "after_pass": None if reply is None else str(reply),
            # The engine gave no action here: the players make the computer's.
            "engine_gave_up": self.gave_up_here(),
            "broker": self.broker,
            "sensor_problem": self.sensor_problem,
            "board_fault": self.board_fault,
            "record_problem": self.keeper.problem,
            "options": format_any_options(g.variant),
            "hajeb": hajeb,
            "ponder": self.ponder,
            # (none on the computer's turn, however it came: its own search,
            # at its level, is not shown, and the page waits grey for its move)
            "thought": self.advice.thought(g) if self.ponder and o is None
            and self.computer != g.to_move else None,
        }

    def set_broker(self, link: dict[str, Any] | None) -> None:
        """The broadcast link changed (connected, error): the page shows it."""
        self.broker = link
        if self._last_update is not None:
            self._publish(self._last_update)

    def set_sensor(self, problem: str | None, fault: str | None = None) -> None:
        """Why the board is not being read, in words (a camera giving no
        picture, a link down), or None; and a fault of a board still read
        (its lights failing), or None: the page shows both."""
        if (problem, fault) != (self.sensor_problem, self.board_fault):
            self.sensor_problem, self.board_fault = problem, fault
            if self._last_update is not None:
                self._publish(self._last_update)

    def state(self) -> dict[str, Any]:
        out = dict(self._published.state)
        out["version"] = self._published.version
        out["server"] = self.server_id
        return out

    def state_json(self) -> str:
        return json.dumps(self.state())
