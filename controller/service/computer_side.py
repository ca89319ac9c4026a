"""The engine's part of the board service: the side the computer plays,
its actions lit for the players to make, the hints, and the engine
thinking on the person's time (pondering).  The searches run in child
processes (:mod:`.advice`); these methods make their jobs on the
service's loop and show their results unless the game moved on.

:class:`EngineSide` is a part of :class:`~controller.service.board.BoardService`
(its base class): it uses the service's reconciler, advice, clock and
publishing, declared here for the type checker."""

from __future__ import annotations

import logging
from collections.abc import Callable

from controller.reconcile.reconciler import Reconciler, Update
from controller.rules import AnyGame, Game, Move

from .advice import Advice, Hint
from .boardview import check_level
from .config import THINK_MAX, THINK_MIN
from .simboard import RequestError

__all__ = ["ENGINE_TRIES", "GAVE_UP", "EngineSide"]

log = logging.getLogger(__name__)

SIDES = ("attacker", "defender")
# Searches that bring back no action (the engine's process died or gave no
# answer in time) before the computer's action at that point is left to
# the players: asked again at once below that, never in a loop.
ENGINE_TRIES = 3
GAVE_UP = ("The computer's engine gave no move ({tries} tries): make its move by hand, "
           "or choose its side again to try once more")


class EngineSide:
    """The computer's side, hints and pondering of a board service."""

    reconciler: Reconciler
    advice: Advice
    gid: int
    computer: str | None
    think: float
    level: int
    ponder: bool
    note: str | None
    hint_seconds: float
    hint_move: str | None
    hint_turn: str | None
    hint_squares: list[str]
    hint_wanted: bool
    hint_for: tuple[AnyGame, int] | None = None  # the game and ply a hint is searched for
    computer_wanted: bool
    refusal: str | None
    _refused_on: int
    _occupied: int
    # The point of the game (the game itself, its length) where the engine
    # last failed, how many times there; and where it was given up.
    engine_failed: tuple[AnyGame, int, int] | None
    engine_gave_up: tuple[AnyGame, int] | None

    def now(self) -> float:
        raise NotImplementedError  # the service's clock

    def _publish(self, update: Update) -> None:
        raise NotImplementedError  # the service's state, sent to the page

    def _after(self, update: Update) -> None:
        raise NotImplementedError  # the service's records and state after an update

    def _rename(self) -> None:
        raise NotImplementedError  # the game's players and settings, stored

    def _want_computer(self) -> None:
        g = self.reconciler.game
        ready = (self.computer is not None and g.outcome is None
                 and not (g.removals and isinstance(g, Game))  # a huff: it chooses
                 and not self.gave_up_here())  # its move is by hand
        its_turn = ready and g.to_move == self.computer and self.reconciler.expected is None
        # In the person's optional chain, its reply to a pass, lit: the chain
        # is stopped by making it.
        self.computer_wanted = its_turn or (
            ready and self.reconciler.stop_answered and self.reconciler.after_pass is None)
        self.reconciler.think(its_turn)  # nothing is taken for its move meanwhile

    def _after_pass(self) -> AnyGame | None:
        """In the person's chain that the computer's reply to a pass stops
        (:attr:`Reconciler.stop_answered`), a copy of the game after the
        pass; else None."""
        if not self.reconciler.stop_answered:
            return None
        after = self.reconciler.game.copy()
        after.push("pass", -1, -1, False)
        return after

    def set_computer(self, side: object, seconds: object = None, level: object = None) -> None:
        """The engine plays ``side`` (None: nobody) at ``level`` (1-5); its
        moves are lit and the players make them on the board."""
        if side is not None and side not in SIDES:
            raise RequestError("computer side must be \"attacker\", \"defender\" or null")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(
                seconds, int | float) or not THINK_MIN <= seconds <= THINK_MAX):
            raise RequestError(f"seconds must be a number from {THINK_MIN:g} to {THINK_MAX:g}")
        self.level = self.level if level is None else check_level(level)
        self.think = self.think if seconds is None else float(seconds)
        self.computer = None if side is None else str(side)
        self.engine_failed = self.engine_gave_up = None  # asked again: the engine tries again
        if self.note == GAVE_UP.format(tries=ENGINE_TRIES):
            self.note = None
        self._tell_computer()
        self.reconciler.expect(None)
        self._rename()
        self._want_computer()
        self._publish(self.reconciler.tick(self.now()))

    def think_ahead(self) -> None:
        """Ponder the position while the person to move thinks (the
        service's loop calls it every tick; cheap when nothing changed)."""
        self.advice.follow(self.reconciler.game, self.computer)

    def computer_job(self) -> Callable[[], tuple[int, AnyGame, str | None]]:
        """The computer's next action, as a job for a worker thread (made
        on the loop); its result goes to :meth:`play_computer`."""
        self.computer_wanted = False
        g = self.reconciler.game
        # Below full strength the level's choice among near-best moves is
        # drawn under the game's own seed (its id): another game, other
        # replies to the same moves; the same game, the same ones.
        after = self._after_pass()
        marker = len(g.moves)
        # The reply to a pass that would stop the person's chain, searched
        # as its own turn, and shown for the position before the pass.
        job = self.advice.computer_job(g if after is None else after, self.think, self.level,
                                       seed=self.gid)

        def run() -> tuple[int, AnyGame, str | None]:
            try:
                return marker, g, job()[2]
            except Exception:  # no child could be started: a failed search
                log.exception("the computer's search failed")
                return marker, g, None

        return run

    def compute_computer(self) -> tuple[int, AnyGame, str | None]:
        """The computer's next action (slow: call it off the event loop)."""
        return self.computer_job()()

    def play_computer(self, marker: int, game: AnyGame, move: Move | str | None) -> None:
        """Show the computer's action unless the game moved on meanwhile
        (in the person's optional chain, its reply to a pass)."""
        if game is not self.reconciler.game or len(game.moves) != marker:
            return
        after = self._after_pass()
        if after is not None:
            reply = next((x for x in after.legal_moves() if str(x) == str(move)), None)
            if reply is None:
                self._engine_failed(game)
                return
            self.reconciler.expect_after_pass(reply)
            self._after(self.reconciler.tick(self.now()))
            return
        if game.to_move == self.computer:
            m = next((x for x in game.legal_moves() if str(x) == str(move)), None)
            if m is None:
                self._engine_failed(game)
                return
            self.reconciler.expect(m)
            update = self.reconciler.tick(self.now())
            self._after(update)
            if m.kind == "pass" and self.note is None:  # played at once: nothing lit
                self.note = "The computer ended its chain there (pass)"
                self._publish(self.reconciler.tick(self.now()))

    def _engine_failed(self, game: AnyGame) -> None:
        """The search for the computer's action brought none back: asked
        again on the next tick, up to :data:`ENGINE_TRIES` times at one
        point of the game; then the players make its action by hand
        (nothing awaited, any legal action taken), and the page says so."""
        last = self.engine_failed
        tries = last[2] + 1 if last is not None and _at(last, game) else 1
        self.engine_failed = (game, len(game.history), tries)
        log.warning("the computer's search brought no move back (%d of %d)", tries, ENGINE_TRIES)
        if tries < ENGINE_TRIES:
            self.computer_wanted = True
            return
        self.engine_gave_up = (game, len(game.history))
        self._want_computer()  # not wanted, not thinking: its move is the players'
        self.note = GAVE_UP.format(tries=tries)
        self._publish(self.reconciler.tick(self.now()))

    def gave_up_here(self) -> bool:
        """Did the engine give no action at this point of the game (the
        players make the computer's)?"""
        return self.engine_gave_up is not None and _at(self.engine_gave_up, self.reconciler.game)

    def _tell_computer(self) -> None:
        """The reconciler told the side the computer plays: a board back at
        a position of the computer's turn is no takeback by hand (its
        soldiers lifted are asked back, its actions are its own)."""
        self.reconciler.computer = self._computer_index()

    def _computer_index(self) -> int | None:
        return None if self.computer is None else SIDES.index(self.computer)

    def hint_job(self) -> Callable[[], Hint]:
        """The engine's suggestion, as a job for a worker thread (made on
        the loop); its result goes to :meth:`show_hint`."""
        self.hint_wanted = False
        g = self.reconciler.game
        self.hint_for = (g, len(g.moves))  # said on the page until the hint comes
        job = self.advice.hint_job(g, self.hint_seconds)
        self._publish(self.reconciler.tick(self.now()))
        return job

    def compute_hint(self) -> Hint:
        """The engine's suggestion for the current position (slow: call it
        off the event loop); returns what :meth:`show_hint` needs."""
        return self.hint_job()()

    def set_ponder(self, on: object) -> None:
        """The engine's thinking on the person's time (and the page's
        evaluation bar and line) on or off; kept in the game's settings."""
        if not isinstance(on, bool):
            raise RequestError('"on" must be true or false')
        self.ponder = on
        self.advice.set_ponder(on)
        self._rename()
        self._publish(self.reconciler.tick(self.now()))

    def show_hint(self, marker: int, game: AnyGame, squares: list[str], move: str = "",
                  turn: str = "") -> None:
        """Light the hint unless the game moved on meanwhile (``turn``: the
        hint's whole turn when it goes on past the action lit)."""
        self.hint_for = None
        if game is self.reconciler.game and len(game.moves) == marker:
            if not move:  # the search brought nothing back (its process died)
                self.refusal, self._refused_on = (
                    "no hint: the engine gave no move (press Hint to ask again)", self._occupied)
            self.hint_move = move or None
            self.hint_turn = turn or None
            self.hint_squares = squares
            self.reconciler.set_hint(squares)
            self._publish(self.reconciler.tick(self.now()))


def _at(point: tuple[AnyGame, int] | tuple[AnyGame, int, int], game: AnyGame) -> bool:
    """Is ``point`` (a game and its length, as kept for the engine's
    failures) this point of ``game``?"""
    return point[0] is game and point[1] == len(game.history)
