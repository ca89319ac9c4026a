"""The reconciler: from sensor readings and buttons to moves and LED roles.

Pure: no hardware, no wall clock.  Every event carries its time; the live
service also calls :meth:`Reconciler.tick` as time passes.

This module is the state machine: it waits for a reading to *settle* (the
board shows it for ``settle`` seconds; contact bounce and hovering hands
are shorter) and handles the buttons.  A settled reading is explained
(:mod:`.explain`, :mod:`.timeline`), in this order, as:

1. the expected board, with some captured pieces still waiting to be
   lifted off (nothing new happened);
2. one legal action, or a few within the same turn (a chain made quickly,
   two placements at once), possibly after an implied ``pass`` that ends
   an optional chain;
3. a soldier of the side to move lifted (the LEDs show where it may go),
   possibly with a piece it is about to capture already taken off; the
   runs that leave the same board but that occupancy cannot prove wait
   for the next reading to confirm them;
4. an earlier position of this game: a takeback, undone to that position;
5. a correction: the last turn made differently (a soldier set down on a
   wrong square and then moved on);
6. a cleared board: a new game (or a game put aside set up again: resumed);
7. a turn and the other side's reply, both made before the board settled;
otherwise the reading is wrong, nothing is recorded, and after
``error_delay`` seconds the LEDs show ``error`` on every square that differs
from the expected board until it is put right.  Playing, taking back and
putting games aside is :mod:`.games`'s business; what the players see is
:mod:`.present`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from controller.board.events import Button, Frame
from controller.board.leds import LedMap
from controller.rules import AnyGame, AnyVariant, Game, find_any_variant, new_game
from controller.rules.moves import HAJEB, PASS, RESCIND, Move

from .exchange_words import exchange_refusal
from .explain import Explainer, stop_answered
from .games import SIDES, Games
from .lights import leds
from .present import Display, status
from .readings import Mismatch, Readings
from .settings import Settings
from .timeline import captured_last_turn, set_up_first
from .turn import Candidate, Turn, difference
from .unrecorded import Table, Undone, Unrecorded
from .update import REPORTED, Update
from .update import Report as _Report
from .view import View

__all__ = ["Settings", "Unrecorded", "Update", "Reconciler"]

UNSEEN = 2.0  # seconds past error_delay a square may read unknown before it is named


class Reconciler:
    """Turns frames and buttons into moves of a :class:`Game`.

    ``saved`` are unfinished games put aside earlier (after a restart):
    setting one up resumes it.  ``keep_finished=False`` keeps no finished
    games (they are reported in :attr:`Update.finished` only), for a
    reconciler that lives long.  ``standing``: squares where pieces the
    resumed game's last turn captured still stand (the caller saw them):
    they are lit ``capture``, to be taken off, not ``error``.
    """

    def __init__(
        self,
        variant: str | AnyVariant = "kharbga",
        settings: Settings | None = None,
        game: AnyGame | None = None,
        on_new_game: Callable[[AnyGame], None] | None = None,
        *,
        saved: Iterable[AnyGame] = (),
        keep_finished: bool = True,
        standing: int = 0,
        resumed: bool = False,
    ) -> None:
        self.variant = find_any_variant(variant) if game is None else game.variant
        self.settings = settings or Settings()
        self.on_new_game = on_new_game
        game = game if game is not None else new_game(self.variant)
        self._explainer = Explainer(self.settings)
        self._display = Display()
        self._turn = Turn()
        self._readings = Readings()
        self._mismatch = Mismatch()
        self._table = Table(setup=set_up_first(game), resumed=resumed)
        self._games = Games(game, self._turn, self._table, self._mismatch, self._explainer,
                            saved=saved, keep_finished=keep_finished)
        if standing:  # a game resumed whose last captures still stand
            self._turn.pending = captured_last_turn(self._games.timeline, standing)
        self._lift: tuple[int, int] | None = None  # soldier in the hand, its targets
        self._deferred: list[Candidate] = []  # unproven explanations of the last reading
        self._deferred_at = Frame(0.0, 0)  # that reading
        self._now = 0.0

    # ------------------------------------------------------------------
    # State read by callers

    @property
    def game(self) -> AnyGame:
        """The game being played."""
        return self._games.game

    @property
    def expected(self) -> Move | None:
        """The computer's action awaited (see :meth:`expect`)."""
        return self._turn.expected

    @property
    def settling(self) -> bool:
        """A reading waits to settle (or to be shown without hands)."""
        return not self._readings.settled

    @property
    def saved(self) -> tuple[AnyGame, ...]:
        """Unfinished games put aside; setting one up again resumes it."""
        return tuple(self._games.saved)

    @property
    def finished(self) -> tuple[AnyGame, ...]:
        """Games finished or replaced so far (none if not kept)."""
        return tuple(self._games.finished or ())

    # ------------------------------------------------------------------
    # Events

    def feed(self, event: Frame | Button) -> Update:
        """Process one frame or button press (times must not go back)."""
        self._advance(event.t)
        update = Update(event.t, "", {})
        if isinstance(event, Button):
            self._button(event, update)
        else:
            a, d = self.game.bitboards()
            if self._readings.observe(event, a | d):
                self._table.hint = 0  # a hint lasts until the board changes
                undone = self._table.undone
                if undone is not None and not event.unknown and event.occupied == undone.board:
                    # As an undo left it (however the hands moved since, or
                    # after a restart): no move, its squares told as taken back.
                    self._readings.stale = True
                    self._mismatch.clear()
                    self._mismatch.since, self._mismatch.undone = event.t, undone.squares
                if self.settings.settle <= 0:
                    self._advance(event.t)
        return self._finish_update(update)

    def tick(self, now: float) -> Update:
        """Time passes with no new frame."""
        self._advance(now)
        return self._finish_update(Update(now, "", {}))

    def finish(self) -> Update:
        """The end of a log: the last reading settles; a soldier still
        'lifted' that may stand on a captured piece's square stands there."""
        t = self._now
        rd = self._readings
        if rd.frame is not None:
            s = self.settings
            t = max(t, rd.since + s.settle)
            if self._mismatch.since is not None or not rd.settled:
                t = max(t, rd.since + s.settle + s.error_delay)
        self._advance(t)
        if self._deferred and self._lift is not None and rd.frame is not None:
            self._lift = None
            self._games.play(self._deferred[0], rd.frame)
            self._deferred = []
        return self._finish_update(Update(t, "", {}))

    def expect(self, move: Move | None) -> None:
        """Wait for the computer's action ``move`` (a legal action; None:
        none): it is lit, and only it is accepted; a ``pass`` is played at
        once."""
        self._turn.thinking = False
        self._turn.after_pass = None
        if move is not None and move.kind == PASS:
            self._games.timeline.push(PASS, -1, -1, False)
            self._games.report.played.append("pass")
            self._turn.expected = None
            return
        self._turn.expected = move
        rd = self._readings
        if move is not None and rd.settled and rd.frame is not None and not (
                rd.stale or rd.frame.unknown):
            rd.settled = False  # read again: a board already showing it is that move

    @property
    def stop_answered(self) -> bool:
        """Is the person to move in a chain that a pass may stop, the
        computer to answer it (:meth:`expect_after_pass`)?"""
        return stop_answered(self.game, self._turn)

    @property
    def after_pass(self) -> Move | None:
        """The computer's reply to a pass awaited (see :meth:`expect_after_pass`)."""
        return self._turn.after_pass

    def expect_after_pass(self, move: Move | None) -> None:
        """The computer's reply ``move`` (an action of the position after a
        pass) should the person stop their optional chain here: it is lit,
        and the chain is stopped only by it (a pass followed by another of
        the computer's actions is not taken); the chain going on is taken
        as ever.  None: not chosen yet (a pass is not taken meanwhile)."""
        self._turn.after_pass = move
        rd = self._readings
        if move is not None and rd.settled and rd.frame is not None and not (
                rd.stale or rd.frame.unknown):
            rd.settled = False  # read again: a board already showing it is that reply

    def think(self, thinking: bool) -> None:
        """The computer's action is being searched (True): no action of the
        game is accepted until :meth:`expect` gives it; False: any is."""
        self._turn.thinking = thinking

    def hajeb(self, side: int | str = 1) -> str | None:
        """The ``hajeb`` button (or the page) pressed by ``side``: the
        Defender declares H'ajeb, or rescinds it while it is in force.
        Returns the action played (``"hajeb"`` or ``"rescind"``), or None
        with the reason in :attr:`Update.refused` of the next update."""
        s = side if isinstance(side, int) else SIDES.index(side)
        g, games = self.game, self._games
        if not isinstance(g, Game):
            games.report.refused = f"H'ajeb is not a rule of {g.variant.name}"
            return None
        if s != 1:
            games.report.refused = "only the Defender declares or rescinds H'ajeb"
            return None
        action = RESCIND if g.hajeb == "on" else HAJEB
        reason = g.hajeb_refusal(action)
        if reason is not None:
            games.report.refused = f"H'ajeb: {reason}"
            return None
        games.timeline.push(action, -1, -1, False)
        games.report.played.append(action)
        self._turn.expected = self._turn.after_pass = None
        self._table.draw_offer = None
        r = self._readings.frame
        if self._lift is not None and r is not None:  # the soldier's moves changed
            self._lift = self._explainer.lift(g, r, self._turn)
        return action

    @property
    def pending(self) -> Unrecorded:
        """What the game's actions do not hold: exchange flags raised, a draw
        offered, the computer's action lit, an undo's board not put back."""
        t = self._turn
        return Unrecorded((t.flags[0], t.flags[1]), self._table.draw_offer,
                       None if t.expected is None else str(t.expected), self._table.undone)

    def restore(self, pending: Unrecorded) -> None:
        """:attr:`pending` as it was when the service stopped (a resumed game);
        the computer's action only if it is one of this position's."""
        t = self._turn
        t.flags[:], self._table.draw_offer = list(pending.flags), pending.draw
        t.expected = next((m for m in self.game.legal_moves() if m.kind != PASS
                           and str(m) == pending.expected), None)
        self._table.undone = pending.undone

    @property
    def computer(self) -> int | None:
        """The side the computer plays (0 the Attacker, 1 the Defender; None:
        none): a board back at a position with that side to move is no
        takeback (the computer's soldiers lifted are asked back), and the
        person's optional chain is stopped only by the computer's reply
        (:meth:`expect_after_pass`)."""
        return self._turn.computer

    @computer.setter
    def computer(self, side: int | None) -> None:
        self._turn.computer = side
        self._turn.after_pass = None

    def decline_draw(self) -> None:
        """The draw offered is declined: the other side's press is a new offer."""
        self._table.draw_offer = None

    def set_hint(self, squares: list[str]) -> None:
        """Light ``hint`` on these squares until the board next changes."""
        self._table.hint = 0
        for s in squares:
            self._table.hint |= 1 << self.game.geometry.parse_point(s)

    def status(self) -> str:
        return status(self.game, self._view())

    def leds(self) -> LedMap:
        return leds(self.game, self._view())

    def _view(self) -> View:
        t = self._turn
        standing = t.pending.bits
        if self._readings.frame is not None:
            standing &= self._readings.frame.occupied
        m, r, since = self._mismatch, self._readings.frame, self._readings.unseen_since
        # A soldier set down where it cannot go: once lit, where it can go.
        misplaced = m.misplaced if m.errors else None
        lifted, targets = self._lift or misplaced or (-1, 0)
        flags = (t.flags[0], t.flags[1])
        seen = (r.attacker, r.defender) if r is not None and r.colour and m.errors else None
        waited = since is not None and self._now - since >= self.settings.error_delay + UNSEEN
        huffed = m.errors & m.huffed  # lit as the huff it is, not as an error
        a, d = self.game.bitboards()
        return View(lifted, targets, m.errors & ~huffed, standing, t.pending.exchanged,
                    self._table.hint, flags, t.expected, m.undone & m.errors, seen,
                    r.unknown if r and waited else 0, t.thinking, self._table.setup, huffed,
                    m.knocked & m.errors, m.owed & m.errors,
                    (a | d) & ~r.occupied if r is not None else 0,
                    stop_answered(self.game, t), t.after_pass)

    def _finish_update(self, update: Update) -> Update:
        report, self._games.report = self._games.report, _Report()
        for name in REPORTED:  # every field of the report is the update's
            setattr(update, name, getattr(report, name))
        update.status, update.leds = self._display.show(self.game, self._view())
        if report.refused:
            update.status += f" ({report.refused})"
        return update

    def _advance(self, now: float) -> None:
        self._now = max(self._now, now)
        rd = self._readings
        r = rd.frame
        if r is None:
            return
        settle_at = rd.since + self.settings.settle
        if not rd.settled and self._now >= settle_at and not r.unknown and not rd.stale:
            rd.settled = True
            self._settle(r, settle_at)
            flags = self._turn.flags
            for side in self._table.flag_presses:
                flags[side] = not flags[side]
            self._table.flag_presses = []
            presses, self._table.hajeb_presses = self._table.hajeb_presses, []
            for side in presses:
                self.hajeb(side)
        m = self._mismatch
        if m.since is not None and self._now >= m.since + self.settings.error_delay:
            m.errors = difference(self.game, self._turn.pending, r)
            if m.errors & m.knocked:  # the rest is an action, once it is set back
                m.errors = m.knocked
            elif m.huffed & r.occupied:  # the rest is the move after the huff
                m.errors = m.huffed & r.occupied
            else:  # a capture taken back by hand: its soldiers to set back too
                m.errors |= m.owed

    # ------------------------------------------------------------------
    # Buttons

    def _button(self, event: Button, update: Update) -> None:
        g = self.game
        side = SIDES.index(event.side) if event.side else g.side
        name = event.button
        table, games = self._table, self._games
        if name == "exchange":
            if (refused := exchange_refusal(g)) is not None:
                games.report.refused = refused
            elif not self._readings.settled:
                # The board is still settling from a move made before the
                # press: the flag is for the next step, not that one.
                table.flag_presses.append(side)
            else:
                self._turn.flags[side] = not self._turn.flags[side]
        elif name == "hint" and g.outcome is not None:
            games.report.refused = "the game is over: there is no move to suggest"
        elif name == "hint":
            update.hint_requested = SIDES[side]
        elif name == "hajeb":
            side = side if event.side else 1  # a shared button: only the Defender acts
            if not self._readings.settled:
                table.hajeb_presses.append(side)  # for the position the board settles to
            else:
                self.hajeb(side)
        elif name in ("undo", "new"):
            a, d = g.bitboards()
            if name == "undo" and not games.timeline.last_turn_length():
                games.report.refused = (  # said, not silently nothing
                    "a resignation or an agreed draw is not taken back"
                    if g.outcome is not None and g.history else "there is no move to take back")
            # The board must be put back; the old reading is no move.
            self._readings.stale = True
            if name == "undo":
                games.undo_turn()
                self._undone(a, d)
            else:
                self._new_game()
                self._recheck_reading()
        elif name == "resign" and g.outcome is None:
            g.resign(SIDES[side])
            games.timeline.ended_by_players()
        elif name == "draw" and g.outcome is None:
            if table.draw_offer is not None and table.draw_offer != side:
                g.agree_draw()
                games.timeline.ended_by_players()
                table.draw_offer = None
            else:
                table.draw_offer = side
        if g.outcome is not None:  # ended by the players: no action of the computer's awaited
            self._turn.expected = self._turn.after_pass = None

    def _undone(self, a: int, d: int) -> None:
        """After undo (``a``, ``d``: the game's board before it): the squares
        it changed, and the reading it left stale, kept until the board is
        put back or another reading is played: shown again, however the
        hands moved in between, it is no move (:class:`Undone`)."""
        before, self._table.undone = self._table.undone, None
        changed = self._mismatch.undone | (before.squares if before is not None else 0)
        self._recheck_reading()
        r = self._readings.frame
        if self._mismatch.since is not None and r is not None:
            a2, d2 = self.game.bitboards()
            self._mismatch.undone = changed | (a ^ a2) | (d ^ d2)
            if not r.unknown:
                self._table.undone = Undone(r.occupied, self._mismatch.undone)
                self._readings.restart(r.occupied)  # what the hands do counts from the undo

    def _recheck_reading(self) -> None:
        """After undo or new: is the board as the game now expects?"""
        r = self._readings.frame
        self._lift = None
        if r is None:
            return
        self._mismatch.clear()
        if not self._explainer.nothing_new(self.game, r, self._turn.pending):
            self._mismatch.since = self._now
        else:  # a new leap game's soldiers already stand: it is set up
            self._table.setup = False

    # ------------------------------------------------------------------
    # Settled readings

    def _settle(self, r: Frame, now: float) -> None:
        before = self._games.report.progress()
        try:
            self._settle_reading(r, now)
        finally:
            read = self._games.report.progress() != before
            if self._mismatch.since is None and self._lift is None and read:
                # Something read: the clues start again.  A soldier in the
                # hand, a reading nothing explains, or the board shown as it
                # was (a soldier set back, or a chain back to its own square
                # with its captures not yet taken off) keeps them for the
                # next reading.
                self._readings.restart(r.occupied, self._turn.clues)

    def _settle_reading(self, r: Frame, now: float) -> None:
        g = self.game
        a, d = g.bitboards()
        lift, held = self._lift, 1 << self._lift[0] if self._lift is not None else 0
        turn = self._turn
        turn.clues = self._readings.clues(a | d, held)
        turn.undone = None if self._table.undone is None else self._table.undone.board
        deferred, self._deferred = self._deferred, []
        self._lift = None
        self._read(r, now, lift, deferred)

    def _two_turns_refill(self, r: Frame) -> bool:
        """A soldier in the hand whose board has pieces that "never moved"
        shown gone and set down again since the board last read an action,
        where a turn and a quick reply (:meth:`Explainer.two_turns`) leave
        the same board: the first turn is played (their steps landed
        there; the reply is the caller's to read).  False if the reading
        is not that."""
        g, turn = self.game, self._turn
        a, d = g.bitboards()
        refilled = turn.clues.emptied & r.occupied & (a | d)
        if not refilled:
            return False
        first = self._explainer.two_turns(g, r, turn)
        if first is None or refilled & ~(first.gone_a | first.gone_d):
            return False  # or not all of them points the first turn captured
        self._games.play(first, r)
        return True

    def _read(self, r: Frame, now: float, lift: tuple[int, int] | None,
              deferred: list[Candidate]) -> None:
        """Settled reading ``r`` explained (the clues taken): ``lift`` and
        ``deferred`` are what the last reading left, the soldier in the
        hand and the runs it could not prove."""
        g, turn = self.game, self._turn
        ex, games = self._explainer, self._games
        if ex.nothing_new(g, r, turn.pending):
            games.ok(r)
            return
        if self._table.setup and games.resume(r):  # not its moves: it never stood set up
            return
        cand = ex.explain(g, r, turn, weak_ok=False)
        if cand is not None:
            games.play(cand, r)
            return
        if deferred and games.resolve(deferred, r, self._deferred_at, False):
            self._read(r, now, None, [])  # then what follows them
            return
        self._lift = ex.lift(g, r, turn)
        if self._lift is not None and (self._two_turns_refill(r) or games.redo(r, lifted=True)):
            self._lift = None  # two turns read (the last takeback by hand, none)
            self._read(r, now, None, [])  # and what follows them
            return
        if self._lift is not None and turn.pending.bits & r.occupied and games.correction(
                r, make=False):
            # Or a piece the last turn's other route to the same landing
            # point captures, taken off (a capture made two ways): what the
            # next reading shows decides; until then, what was shown stays.
            self._lift, self._deferred = lift, deferred
            self._mismatch.clear()  # either way, nothing is wrong
            return
        if self._lift is not None:
            self._mismatch.clear()
            # The captured pieces taken off meanwhile are off: one set down
            # on such a point is read anew (a chain's soldier going on into
            # the point it emptied), not as the captured piece back.
            turn.pending.keep(r.occupied)
            # Or the soldier already stands where it captured a piece (the
            # same occupancy): decided by what the board shows next.
            self._deferred, self._deferred_at = ex.unproven(g, r, turn), r
            return
        if deferred and games.resolve(deferred, r, self._deferred_at, True):
            self._read(r, now, None, [])
            return
        cand = ex.explain(g, r, turn)
        if cand is not None:
            self._unproven(cand, r, now)
            return
        if r.occupied == 0 and (g.phase == "moving" or g.outcome is not None):
            # Not a takeback to the empty board: the game is put aside.
            self._new_game()
            if self._explainer.nothing_new(self.game, r, self._turn.pending):
                games.ok(r)
            else:  # a leap game: its soldiers go on their lit starting points
                self._mismatch.clear()
                self._mismatch.since = now
            return
        if g.outcome is not None and r.occupied and games.at_start(r):
            # The soldiers set straight back on their starting points after
            # the end (draughts players do): the next game, as a cleared board.
            self._new_game()
            games.ok(r)
            return
        if games.takeback(r) or games.correction(r) or games.resume(r):
            return
        first = ex.two_turns(g, r, turn)
        if first is not None:  # a quick reply: the turn it answers, then the reply
            games.play(first, r)
            self._read(r, now, None, [])
            return
        if games.redo(r):  # the last takeback by hand was none
            self._read(r, now, None, [])
            return
        if games.correction(r, back=2) or games.chain_stopped(r):
            return  # the other side's answer was none, or the chain's last step
        if games.readmit(r):  # then read again, as if they had never been lifted
            self._read(r, now, lift, deferred)
            return
        self._mismatched(r, now)

    def _unproven(self, cand: Candidate, r: Frame, now: float) -> None:
        """``cand``, a run occupancy cannot prove, explains ``r``: the last
        turn made another way comes first, if that fits, then a turn and
        the other side's reply begun that the board proves
        (:meth:`Explainer.two_turns`), then ``cand``."""
        if self._games.correction(r):
            return
        first = self._explainer.two_turns(self.game, r, self._turn)
        self._games.play(first or cand, r)
        if first is not None:
            self._read(r, now, None, [])  # and the reply

    def _mismatched(self, r: Frame, now: float) -> None:
        """Nothing explains ``r``: a mismatch (since ``now``, if new), and
        what the players are told to do about it."""
        g, turn = self.game, self._turn
        ex, games = self._explainer, self._games
        m = self._mismatch
        if m.since is None:
            m.since = now
        m.errors = 0
        m.huffed = ex.huff_first(g, r, turn)  # the huff forgotten before the move
        m.misplaced = None if m.huffed else ex.misplaced(g, r, turn)
        m.knocked = 0 if m.huffed or m.misplaced else ex.knocked(g, r, turn)
        m.owed = 0 if m.huffed or m.knocked else games.timeline.owed(r)

    # ------------------------------------------------------------------
    # Games

    def _new_game(self) -> None:
        """Another game of the variant being played (see :meth:`Games.new_game`)."""
        self.variant = self.game.variant
        self._games.new_game()
        if self.on_new_game is not None:
            self.on_new_game(self.game)
