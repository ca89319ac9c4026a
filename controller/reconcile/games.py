"""The game being played and the games put aside: what the state machine
(:mod:`.reconciler`) does to them once it knows what a reading or a
press means.

:class:`Games` plays a settled reading's actions (ending an optional
chain when passing wins at once), takes turns back (the board set back to
an earlier position, the undo button), makes the last turn again another
way (a correction), and puts the game aside for a new one or for a game
put aside earlier and set up again (resumed).  What it did waits in
:attr:`Games.report` for the next update.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.board.events import Frame
from controller.rules import AnyGame, new_game
from controller.rules.moves import PASS, PLACE, STEP, Move

from .explain import Explainer
from .readings import Mismatch
from .timeline import Timeline, captured_last_turn, set_up_first
from .turn import (
    Candidate,
    Pending,
    Turn,
    chain_reach,
    chain_takes,
    ends_on,
    filled_first,
    fits,
)
from .unrecorded import Table
from .update import Report

__all__ = ["SIDES", "Games"]

SIDES = ("attacker", "defender")


class Games:
    """The game being played (:attr:`timeline`), the unfinished games put
    aside (:attr:`saved`: set up again, they resume) and the finished ones
    kept (:attr:`finished`, None if none are kept).  ``turn``, ``table``,
    ``mismatch`` and ``explainer`` are the state machine's own."""

    def __init__(
        self,
        game: AnyGame,
        turn: Turn,
        table: Table,
        mismatch: Mismatch,
        explainer: Explainer,
        *,
        saved: Iterable[AnyGame] = (),
        keep_finished: bool = True,
    ) -> None:
        self.timeline = Timeline(game)
        self.saved = list(saved)
        self.finished: list[AnyGame] | None = [] if keep_finished else None
        self.report = Report()  # what happened since the last update
        self._turn = turn
        self._table = table
        self._mismatch = mismatch
        self._explainer = explainer
        # The actions the last takeback by hand undid, while nothing is
        # played since: the board moving on from them shows it was none.
        self._redo: list[Move] = []

    @property
    def game(self) -> AnyGame:
        """The game being played."""
        return self.timeline.game

    # ------------------------------------------------------------------
    # Actions played

    def ok(self, r: Frame) -> None:
        """Reading ``r`` is the game's board, as it now stands."""
        self._turn.pending.keep(r.occupied)
        self._mismatch.clear()
        self._table.setup = self._table.resumed = False
        self._table.undone = None  # the board put back, or a move made since

    def play(self, cand: Candidate, r: Frame) -> None:
        """Play ``cand``, the explanation of reading ``r``."""
        g = self.game
        turn = self._turn
        turn.expected = turn.after_pass = None
        self._redo = []
        for m in cand.actions:
            side = g.side
            self.timeline.push(m.kind, m.frm, m.to, m.flag)
            self.report.played.append(str(g.last_move))
            if m.kind == STEP:
                turn.flags[side] = False
        self._table.draw_offer = None
        self._table.hint = 0
        turn.pending.add(cand)
        self._auto_pass()
        self.ok(r)

    def resolve(self, deferred: list[Candidate], r: Frame, at: Frame, lifted: bool) -> bool:
        """Does ``r`` confirm an unproven explanation of the last reading
        ``at``?  Then play it (what ``r`` shows after it is the caller's to
        read).  Confirmed: its board, with only pieces it took off lifted
        off since, one of them taken by its last action (the pieces the
        actions before it took prove those, as much as a soldier in the
        hand after them) and, unless that action's soldier was seen set
        down, by no other way it may go on, and nothing set down since
        where it leaves no piece (a soldier still moving: in the hand, not
        where the run ends); a run of actions occupancy proves after it,
        not ending where that soldier, unseen, may land; or the other
        side's turn begun after it (:meth:`Explainer.followed`, the same
        way; a soldier of that side only lifted counts if ``lifted``).
        Its board with nothing it took lifted off is no proof: that is the
        soldier in the hand as much as it is the run."""
        g = self.game
        turn = self._turn
        ex = self._explainer
        off = at.occupied & ~r.occupied  # lifted off since the runs were kept aside
        clues = turn.clues
        filled = clues.filled

        def landed(frm: int, to: int) -> bool:
            left = clues.left.get(frm, clues.went.get(frm))
            return left is not None and filled.get(to, left) > left

        for w in deferred:
            saved = turn.pending
            turn.pending = saved.copy()
            n = g.ply
            before = elsewhere = reach = 0
            last_step = w.actions[-1]
            unseen = last_step.kind == STEP and not landed(last_step.frm, last_step.to)
            for i, m in enumerate(w.actions):
                a, d = g.bitboards()
                before = a | d
                if unseen and i == 0 and m.kind == STEP:
                    # where the soldier, never seen set down, may go instead
                    reach = chain_reach(g, m.frm, 4) & ~(1 << last_step.to)
                if unseen and i == len(w.actions) - 1:
                    # what it takes going on another way
                    elsewhere = chain_takes(g, m.frm, 4, but=m.to)
                g.push(m.kind, m.frm, m.to, m.flag)
            a, d = g.bitboards()
            frm = last_step.frm
            last = before & ~(a | d) & ~(1 << frm if frm >= 0 else 0)  # taken by its last action
            turn.pending.add(w)
            moved = any(t > at.t and not (w.a | w.d) >> p & 1 for p, t in filled.items())
            after = ex.explain(g, r, turn, weak_ok=False)
            # (a run after it whose landing stood before its soldier left is
            # no proof: that piece is another's; nor, when the run's soldier
            # was never seen set down, one ending where it may land)
            proven = after is not None and not filled_first(after, turn.clues) \
                and not ends_on(after, reach)
            taken_off = bool(off & last & ~elsewhere) and not off & ~(w.gone_a | w.gone_d) \
                and not moved and ex.nothing_new(g, r, turn.pending)
            ok = proven or taken_off
            while g.ply > n:
                g.pop()
            turn.pending = saved
            if ok or ex.followed(g, r, turn, w, lifted, unless=reach):
                self.play(w, r)
                return True
        return False

    def _auto_pass(self) -> None:
        """End an optional chain when passing wins at once (a player does
        not play on past a won game)."""
        g = self.game
        if g.chain_point < 0 or g.outcome is not None:
            return
        mover = g.side
        if any(m.kind == PASS for m in g.legal_moves()):
            self.timeline.push(PASS, -1, -1, False)
            if g.outcome is not None and g.outcome.winner == SIDES[mover]:
                self.report.played.append("pass")
                return
            self.timeline.pop()

    # ------------------------------------------------------------------
    # Actions taken back

    def takeback(self, r: Frame) -> bool:
        """The board is back at an earlier position of this game: undo to it."""
        if self._table.resumed or self._table.undone is not None:
            # After a restart: a board not set up yet.  An undo's board not
            # yet put back: the squares set right one at a time pass through
            # boards of earlier positions (positions repeat), no takeback.
            return False
        k = self.timeline.takeback_point(r, self._turn.computer)
        if k is None:
            return False
        redo = [m for _, m in self.game.history[k:]]
        while len(self.timeline.boards) > k + 1:
            self._pop()
        self._redo = redo
        self._turn.pending.clear()
        self.ok(r)
        return True

    def redo(self, r: Frame, *, lifted: bool = False) -> bool:
        """The board moved on, not from the position the last takeback by
        hand went back to, but from the one it left: that board was the
        hands on their way (a quick reply set down first on a wrong point,
        or where its soldier stood a turn before, or a capture's soldier
        landed before its captured piece came off).  Then the actions it
        undid are made again, and what ``r`` shows after them is the
        caller's to read (one turn, or two at once).  ``lifted``: from the
        position taken back to, ``r`` is a soldier in the hand; then only
        two turns at once prove it, where pieces standing in the position
        taken back to were lifted and set down again, all on points the
        first of the two turns stepped from or to.  Not against the
        computer: its reply to the position taken back may be chosen
        already, and the board is what it waits for."""
        if not self._redo or self._turn.computer is not None:
            return False
        g, ex, turn = self.game, self._explainer, self._turn
        redo, n, clues = self._redo, g.ply, turn.clues
        a, d = g.bitboards()
        for m in redo:
            self.timeline.push(m.kind, m.frm, m.to, m.flag)
        # what the hands did before the takeback was read counts too (for
        # the rest of this reading as well, once the actions are made again)
        turn.clues = clues.with_before()
        if lifted:
            refilled = turn.clues.emptied & r.occupied & (a | d)
            first = ex.two_turns(g, r, turn) if refilled else None
            moved = 0
            for m in first.actions if first is not None else ():
                if m.kind == STEP:
                    moved |= 1 << m.frm | 1 << m.to
            found = first is not None and not refilled & ~moved
        else:
            found = ex.explain(g, r, turn, weak_ok=False) is not None \
                or ex.two_turns(g, r, turn) is not None
        if not found:
            while g.ply > n:
                self.timeline.pop()
            turn.clues = clues
            return False
        self._redo = []
        self.report.played.extend(str(m) for m in redo)
        return True

    def correction(self, r: Frame, *, make: bool = True, back: int = 1) -> bool:
        """The last turn made another way (set down wrong, then moved on):
        the same piece's turn, no longer than it was unless a capture chain
        (a soldier set down on a wrong point, then taken on as the chain),
        and not ending on a point filled before the soldier left the one
        the turn ended on (:func:`filled_first`) unless it takes the piece
        there.  What the hands did since the turn was begun proves it, not
        only what they did since it was read (:meth:`Clues.with_before`).
        ``back=2``: the turn before the last made another way, the last
        (one action of the other side, taking the soldier that turn moved
        off its landing: a huff of the soldier set down wrong, or a capture
        answering the chain read as stopped there) the same soldier going
        on; never with the computer playing a side.
        ``make=False`` only tells whether ``r`` is one, changing nothing."""
        tl = self.timeline
        g = tl.game
        last = tl.last_turn_length()
        if last == 0 or g.history[-1][0].side == self._turn.computer:
            return False  # the computer's turn is made as it chose, not another way
        n = last
        if back == 2:
            earlier = tl.last_turn_length(before=last)
            if last != 1 or earlier == 0 or self._turn.computer is not None:
                return False
            n += earlier
        turn = self._turn
        undone = [m for _, m in g.history[-n:]]
        made = undone[:n - last] if back == 2 else undone
        landing = next((m.to for m in reversed(made) if m.kind == STEP), -1)
        a, d = g.bitboards()
        if back == 2 and (landing < 0 or (a | d) >> landing & 1):
            return False  # the other side's answer took no soldier the turn moved
        saved = self._without(n)
        if made[0].kind == STEP:
            turn.flags[g.side] = made[0].flag  # the flag it was made with
        cand = self._explained_as_made(r)
        found = (
            cand is not None
            and [str(x) for x in cand.actions] != [str(x) for x in made]
            and (len(cand.actions) <= len(made) or made[0].kind == PLACE
                 or all(m.kind == STEP and m.capture for m in cand.actions))
            and (cand.actions[0].kind, cand.actions[0].frm) == (made[0].kind, made[0].frm)
            # (nor onto a point filled before the soldier left the turn's
            # landing: that piece is another's, a quick reply's; unless the
            # turn made again takes the piece there, a captured piece that
            # stood on the point the turn was read to end on)
            and not (made[-1].kind == STEP and filled_first(cand, turn.clues, made[-1].to)
                     and not (cand.gone_a | cand.gone_d) >> made[-1].to & 1)
        )
        if found and make:
            assert cand is not None
            self.report.undone += n
            self.play(cand, r)
            return True
        self._again(undone, saved)
        return found

    def chain_stopped(self, r: Frame) -> bool:
        """The chain's last step was the other side's answer: its soldier,
        set down first on the point the chain could go on to, read as the
        chain going on (the piece that step took being that soldier, in
        the hand), then moved where it meant, taking the chain's soldier.
        Then the step is undone and the chain stopped there (``pass``),
        the answer made.  Never with the computer playing a side."""
        hist = self.game.history
        if not hist or self._turn.computer is not None:
            return False
        snap, step = hist[-1]
        if step.kind != STEP or not step.capture or snap.chain == -1:
            return False  # no chain's later step
        saved = self._without(1)
        cand = self._explained_as_made(r)
        if cand is not None and cand.actions[0].kind == PASS \
                and (cand.gone_a | cand.gone_d) >> step.frm & 1:
            self.report.undone += 1
            self.play(cand, r)
            return True
        self._again([step], saved)
        return False

    def _without(self, n: int) -> tuple[Pending, list[bool]]:
        """Take the game's last ``n`` actions off, to read the board again
        from before them: the pending pieces and flags that
        :meth:`_again` gives back if it is not read otherwise."""
        turn = self._turn
        saved = (turn.pending.copy(), turn.flags[:])
        for _ in range(n):
            self.timeline.pop()
        a, d = self.game.bitboards()
        turn.pending.keep(~(a | d))  # those of the turns before them still stand
        return saved

    def _again(self, undone: list[Move], saved: tuple[Pending, list[bool]]) -> None:
        """The actions :meth:`_without` took off, made again as they were."""
        for m in undone:
            self.timeline.push(m.kind, m.frm, m.to, m.flag)
        self._turn.pending, self._turn.flags = saved

    def _explained_as_made(self, r: Frame) -> Candidate | None:
        """The run the board proves ``r`` to be, counting what the hands did
        since the actions taken off were begun (:meth:`Clues.with_before`)."""
        turn = self._turn
        clues = turn.clues
        turn.clues = clues.with_before()
        try:
            return self._explainer.explain(self.game, r, turn, weak_ok=False)
        finally:
            turn.clues = clues

    def readmit(self, r: Frame) -> bool:
        """Pieces the last turn captured, lifted off and set back down on
        their squares (by mistake, or to look) before the opponent acted:
        they are those pieces still to come off, not stray ones.  Tried
        only when nothing else explains ``r``: a soldier stepping onto a
        square a capture freed is a move."""
        pend = self._turn.pending
        back = captured_last_turn(self.timeline, r.occupied & ~pend.bits)
        pend.a |= back.a
        pend.d |= back.d
        return bool(back.bits)

    def undo_turn(self) -> None:
        """The undo button: take back the last turn."""
        self._redo = []
        for _ in range(self.timeline.last_turn_length()):
            self._pop()
        self._turn.pending.clear()
        self._turn.expected = None  # the computer's reply to the turn taken back

    def _pop(self) -> None:
        self.timeline.pop()
        self.report.undone += 1
        self._turn.after_pass = None  # the reply to a pass from the position left
        self._table.hint = 0  # a hint was for the position taken back
        self._table.draw_offer = None  # an offer goes with the move it followed

    # ------------------------------------------------------------------
    # Games put aside

    def resume(self, r: Frame) -> bool:
        """The board set up as a saved unfinished game: play on with it."""
        for saved in self.saved:
            a, d = saved.bitboards()
            if saved.phase == "moving" and fits(r, a, d):
                self.saved.remove(saved)
                self._put_aside(self.game)
                self._switch(saved)
                self.report.resumed = saved
                self.ok(r)
                return True
        return False

    def at_start(self, r: Frame) -> bool:
        """Is reading ``r`` a new game's board (a leap game's soldiers on
        their starting points)?"""
        a, d = new_game(self.game.variant).bitboards()
        return fits(r, a, d)

    def new_game(self) -> None:
        """Another game of the variant being played, with its options
        (sabouiyya's H'ajeb stays on), whatever game was resumed."""
        self._put_aside(self.game)
        self._switch(new_game(self.game.variant))
        self.report.new_game = True

    def _put_aside(self, game: AnyGame) -> None:
        """The game is no longer played: saved if unfinished in the moving
        phase (set up again, it resumes), else finished if it has moves;
        without a move, reported as dropped."""
        if not game.moves:
            self.report.dropped.append(game)
            return
        if game.outcome is None and game.phase == "moving":
            self.saved.append(game)
            self.report.saved.append(game)
        else:
            if self.finished is not None:
                self.finished.append(game)
            self.report.finished.append(game)

    def _switch(self, game: AnyGame) -> None:
        self.timeline = Timeline(game)
        self._redo = []
        self._turn.pending.clear()
        self._turn.flags = [False, False]
        self._table.draw_offer, self._table.undone = None, None
        self._table.hint = 0
        self._table.setup = set_up_first(game)

