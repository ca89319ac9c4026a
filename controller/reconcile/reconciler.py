"""The reconciler: from sensor readings and buttons to moves and LED roles.

Pure: no hardware, no wall clock.  Every event carries its time; the live
service also calls :meth:`Reconciler.tick` as time passes.

A reading *settles* when the board has shown it for ``settle`` seconds
(contact bounce and hovering hands are shorter).  A settled reading is
explained, in this order, as:

1. the expected board, with some captured pieces still waiting to be
   lifted off (nothing new happened);
2. one legal action, or a few within the same turn (a chain made quickly,
   two placements at once), possibly after an implied ``pass`` that ends
   an optional chain;
3. a soldier of the side to move lifted (the LEDs show where it may go),
   possibly with a piece it is about to capture already taken off;
4. an earlier position of this game: a takeback, undone to that position;
5. a correction: the last turn made differently (a soldier set down on a
   wrong square and then moved on);
6. a cleared board: a new game;
otherwise the reading is wrong, nothing is recorded, and after
``error_delay`` seconds the LEDs show ``error`` on every square that differs
from the expected board until it is put right.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from controller.board.events import Button, Frame
from controller.board.leds import LedMap, paint
from controller.rules import Game, Variant, find_variant
from controller.rules.moves import PASS, PLACE, REMOVE, STEP, Move

__all__ = ["Settings", "Update", "Reconciler"]

SIDES = ("attacker", "defender")
TITLE = ("Attacker", "Defender")


@dataclass(frozen=True)
class Settings:
    """Timing of the reconciler, in seconds."""

    settle: float = 0.25
    error_delay: float = 1.0
    max_actions: int = 8


@dataclass
class Update:
    """What changed after one event."""

    t: float
    status: str
    leds: LedMap
    played: list[str] = field(default_factory=list)
    undone: int = 0
    new_game: bool = False
    hint_requested: str | None = None


# A candidate explanation: the actions, the board after them, and the
# pieces the engine took off during them (by colour).
@dataclass(frozen=True)
class _Candidate:
    actions: tuple[Move, ...]
    a: int
    d: int
    gone_a: int
    gone_d: int
    exchanged: int
    proof: int = 0  # squares the reading must show occupied
    entered: int = 0  # squares the moving soldier stepped onto
    weak: bool = False  # it steps onto a piece it captured: unproven


class Reconciler:
    """Turns frames and buttons into moves of a :class:`Game`."""

    def __init__(
        self,
        variant: str | Variant = "kharbga",
        settings: Settings | None = None,
        game: Game | None = None,
        on_new_game: Callable[[Game], None] | None = None,
    ) -> None:
        self.variant = find_variant(variant) if game is None else game.variant
        self.settings = settings or Settings()
        self.game = game if game is not None else Game.new(self.variant)
        self._played: list[str] = []
        self._undone = 0
        self._new_games = 0
        self.finished: list[Game] = []
        # Unfinished games put aside by clearing the board; setting one up
        # again resumes it.  ``resumed`` lists those resumed since last read.
        self.saved: list[Game] = []
        # The computer's next action, shown with ``hint`` lights: while it is
        # set, only it is accepted (set by the service, cleared when played).
        self.expected: Move | None = None
        self.resumed: list[Game] = []
        self.on_new_game = on_new_game
        g = self.game.geometry
        self._names = g.point_names
        self._boards: list[tuple[int, int]] = _boards_of(self.game)
        self._pending_a = 0
        self._pending_d = 0
        self._exchange_bits = 0
        self._reading: Frame | None = None
        self._since = 0.0
        self._processed = True
        self._stale = False
        self._lifted = -1
        self._lift_targets = 0
        self._mismatch_since: float | None = None
        self._deferred: list[_Candidate] = []
        self._gone_at: dict[int, float] = {}
        self._gone_bits = 0
        self._origin = 0
        self._held = 0
        self._seen = 0  # squares shown occupied since the board last settled
        self._landing = 0  # squares of the latest piece set down
        self._flag_presses: list[int] = []  # exchange presses awaiting a settle
        self._landed = 0
        self._shown_key: tuple[object, ...] | None = None
        self._shown: tuple[str, LedMap] = ("", {})
        self._error_bits = 0
        self._flags = [False, False]
        self._draw_offer: int | None = None
        self._hint = 0
        self._cache: dict[object, list[_Candidate]] = {}
        self._now = 0.0
        self._message = ""

    # ------------------------------------------------------------------
    # Events

    def feed(self, event: Frame | Button) -> Update:
        """Process one frame or button press (times must not go back)."""
        self._advance(event.t)
        update = Update(event.t, "", {})
        if isinstance(event, Button):
            self._button(event, update)
        elif self._reading is None or not event.same_reading(self._reading):
            # When each expected piece went missing: the one lifted first tells
            # who moved when two explanations leave the same board.
            a, d = self.game.bitboards()
            gone = (a | d) & ~event.occupied
            for p in list(self._gone_at):
                if not gone >> p & 1:
                    del self._gone_at[p]
            new = gone & ~self._gone_bits
            while new:
                low = new & -new
                self._gone_at[low.bit_length() - 1] = event.t
                new ^= low
            self._gone_bits = gone
            if event.occupied & ~self._reading_occ():
                self._landing = event.occupied & ~self._reading_occ()
            self._seen |= event.occupied
            self._hint = 0  # a hint lasts until the board changes
            self._reading = event
            self._since = event.t
            self._processed = False
            self._stale = False
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
        if self._reading is not None:
            t = max(t, self._since + self.settings.settle)
            if self._mismatch_since is not None or not self._processed:
                t = max(t, self._since + self.settings.settle + self.settings.error_delay)
        self._advance(t)
        if self._deferred and self._lifted >= 0 and self._reading is not None:
            self._lifted = -1
            self._play(self._deferred[0], self._reading)
            self._deferred = []
        return self._finish_update(Update(t, "", {}))

    def _finish_update(self, update: Update) -> Update:
        update.played, self._played = self._played, []
        update.undone, self._undone = self._undone, 0
        update.new_game, self._new_games = bool(self._new_games), 0
        g = self.game
        pend = self._pending_a | self._pending_d
        if self._reading is not None:
            pend &= self._reading.occupied
        key = (
            id(g),
            g.ply,
            g.last_move,
            g.outcome,
            self._lifted,
            self._lift_targets,
            self._error_bits,
            pend,
            self._exchange_bits,
            self._hint,
            tuple(self._flags),
            self._message,
            self.expected,
        )
        if key != self._shown_key:
            self._shown_key = key
            self._shown = (self.status(), self.leds())
        update.status = self._shown[0]
        update.leds = dict(self._shown[1])
        return update

    def _advance(self, now: float) -> None:
        self._now = max(self._now, now)
        r = self._reading
        if r is None:
            return
        settle_at = self._since + self.settings.settle
        if not self._processed and self._now >= settle_at and not r.unknown and not self._stale:
            self._processed = True
            self._settle(r, settle_at)
            for side in self._flag_presses:
                self._flags[side] = not self._flags[side]
            self._flag_presses = []
        if self._mismatch_since is not None:
            if self._now >= self._mismatch_since + self.settings.error_delay:
                self._error_bits = self._difference(r)

    # ------------------------------------------------------------------
    # Buttons

    def _button(self, event: Button, update: Update) -> None:
        g = self.game
        side = SIDES.index(event.side) if event.side else g.side
        name = event.button
        if name == "exchange":
            if not self._processed:
                # The board is still settling from a move made before the
                # press: the flag is for the next step, not that one.
                self._flag_presses.append(side)
            else:
                self._flags[side] = not self._flags[side]
        elif name == "hint":
            update.hint_requested = SIDES[side]
        elif name == "undo":
            self._undo_turn()
            self._stale = True
            self._check_reading_against_expected()
        elif name == "new":
            self._new_game()
            self._stale = True
            self._check_reading_against_expected()
        elif name == "resign" and g.outcome is None:
            g.resign(SIDES[side])
            self._boards.append(g.bitboards())
        elif name == "draw" and g.outcome is None:
            if self._draw_offer is not None and self._draw_offer != side:
                g.agree_draw()
                self._boards.append(g.bitboards())
                self._draw_offer = None
            else:
                self._draw_offer = side
                self._message = f"{TITLE[side]} offers a draw"

    def _check_reading_against_expected(self) -> None:
        r = self._reading
        self._lifted = -1
        if r is None:
            return
        if self._explains_nothing_new(r):
            self._mismatch_since = None
            self._error_bits = 0
        else:
            self._mismatch_since = self._now
            self._error_bits = 0

    # ------------------------------------------------------------------
    # Settled readings

    def _settle(self, r: Frame, now: float) -> None:
        try:
            self._settle_reading(r, now)
        finally:
            self._seen = r.occupied

    def _settle_reading(self, r: Frame, now: float) -> None:
        self._landed = self._landing
        self._landing = 0
        a, d = self.game.bitboards()
        times = {p: t for p, t in self._gone_at.items() if (a | d) >> p & 1}
        first = min(times.values(), default=None)
        self._origin = sum(1 << p for p, t in times.items() if t == first)
        self._held = 1 << self._lifted if self._lifted >= 0 else 0
        deferred, self._deferred = self._deferred, []
        self._lifted = -1
        self._lift_targets = 0
        if self._explains_nothing_new(r):
            self._ok(r)
            return
        cand = self._explain(r, weak_ok=False)
        if cand is not None:
            self._play(cand, r)
            return
        if self._explain_lift(r):
            self._mismatch_since = None
            self._error_bits = 0
            # Or the soldier already stands where it captured a piece (the
            # same occupancy): decided by what the board shows next.
            self._deferred = self._weak(r)
            return
        if deferred and self._resolve(deferred, r):
            return
        cand = self._explain(r)
        if cand is not None:
            self._play(cand, r)
            return
        if r.occupied == 0 and (self.game.phase == "moving" or self.game.outcome is not None):
            # Not a takeback to the empty board: the game is put aside.
            self._new_game()
            self._ok(r)
            return
        if self._takeback(r) or self._correction(r):
            return
        if self._resume(r):
            return
        if self._mismatch_since is None:
            self._mismatch_since = now
        self._error_bits = 0

    def _ok(self, r: Frame) -> None:
        self._pending_a &= r.occupied
        self._pending_d &= r.occupied
        self._exchange_bits &= self._pending_a | self._pending_d
        self._mismatch_since = None
        self._error_bits = 0

    def _fits(self, r: Frame, a: int, d: int, pend_a: int, pend_d: int) -> bool:
        """Is reading ``r`` the board (a, d) with some pending pieces left?"""
        occ = a | d
        if r.colour:
            return (
                r.attacker & a == a
                and r.defender & d == d
                and r.attacker & ~a & ~pend_a == 0
                and r.defender & ~d & ~pend_d == 0
            )
        return r.occupied & occ == occ and r.occupied & ~occ & ~(pend_a | pend_d) == 0

    def _explains_nothing_new(self, r: Frame) -> bool:
        a, d = self.game.bitboards()
        return self._fits(r, a, d, self._pending_a, self._pending_d)

    def _weak(self, r: Frame) -> list[_Candidate]:
        """Unproven explanations of ``r``, fewest actions first."""
        found = []
        for c in self._candidates():
            if self._fits_candidate(r, c) and self._is_weak(c):
                found.append(c)
        found.sort(key=lambda c: len(c.actions))
        return found[:8]

    def _resolve(self, deferred: list[_Candidate], r: Frame) -> bool:
        """Does an unproven explanation of the last reading, followed by
        what ``r`` shows, explain ``r``?  Then play both."""
        g = self.game
        for w in deferred:
            saved = (self._pending_a, self._pending_d, self._exchange_bits)
            n = g.ply
            for m in w.actions:
                g.push(m.kind, m.frm, m.to, m.flag)
            occ = w.a | w.d
            self._pending_a = (self._pending_a | w.gone_a) & ~occ
            self._pending_d = (self._pending_d | w.gone_d) & ~occ
            ok = self._explains_nothing_new(r) or self._explain(r, weak_ok=False) is not None
            while g.ply > n:
                g.pop()
            self._pending_a, self._pending_d, self._exchange_bits = saved
            if ok:
                self._play(w, r)
                if not self._explains_nothing_new(r):
                    nxt = self._explain(r, weak_ok=False)
                    if nxt is not None:
                        self._play(nxt, r)
                return True
        return False

    def _candidates(self) -> list[_Candidate]:
        g = self.game
        key = (g.state(), self._flags[0], self._flags[1])
        cands = self._cache.get(key)
        if cands is None:
            # Bounded: a pathological position cannot exhaust memory.
            cands = list(itertools.islice(self._generate(), 20000))
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = cands
        return cands

    def _fits_candidate(self, r: Frame, c: _Candidate) -> bool:
        return (r.occupied | self._seen) & c.proof == c.proof and self._fits(
            r, c.a, c.d, self._pending_a | c.gone_a, self._pending_d | c.gone_d
        )

    def _reading_occ(self) -> int:
        return self._reading.occupied if self._reading is not None else 0

    def _rank(self, c: _Candidate) -> tuple[bool, bool, bool, int]:
        """Prefer a soldier taken off by its exchange on the square last set
        down, the soldier seen in the hand, the piece first lifted since the
        board last settled, then the fewest actions."""
        first = next((m for m in c.actions if m.kind != PASS), None)
        frm = 1 << first.frm if first is not None and first.frm >= 0 else 0
        landed = not c.proof or bool(c.proof & self._landed)
        return (not landed, not frm & self._held, not frm & self._origin, len(c.actions))

    def _is_weak(self, c: _Candidate) -> bool:
        return c.weak or bool(c.entered & (self._pending_a | self._pending_d))

    def _explain(self, r: Frame, weak_ok: bool = True) -> _Candidate | None:
        """The explanation with the fewest actions; while the computer's
        move is awaited, only that move."""
        cand = self._explain_any(r, weak_ok)
        if cand is None or self.expected is None:
            return cand
        if len(cand.actions) == 1 and _same(cand.actions[0], self.expected):
            return cand
        if self.game.phase == "moving":
            for c in self._candidates():
                if len(c.actions) == 1 and _same(c.actions[0], self.expected) and \
                        self._fits_candidate(r, c):
                    return c
        return None

    def _explain_any(self, r: Frame, weak_ok: bool = True) -> _Candidate | None:
        """The explanation with the fewest actions; one that steps onto a
        captured piece still standing (unproven by occupancy) only if
        ``weak_ok`` and nothing stronger fits."""
        g = self.game
        if g.outcome is not None:
            return None
        if g.phase == "setting":
            return self._explain_placements(r)
        best: _Candidate | None = None
        best_weak: _Candidate | None = None
        for c in self._candidates():
            if not self._fits_candidate(r, c):
                continue
            if self._is_weak(c):
                if best_weak is None or self._rank(c) < self._rank(best_weak):
                    best_weak = c
            elif best is None or self._rank(c) < self._rank(best):
                best = c
        if best is None and weak_ok:
            return best_weak
        return best

    def _explain_placements(self, r: Frame) -> _Candidate | None:
        """One placement, or the two of this turn at once, read directly."""
        g = self.game
        a, d = g.bitboards()
        occ = a | d
        if occ & ~r.occupied:
            return None
        new = r.occupied & ~occ
        count = new.bit_count()
        if not 1 <= count <= 2:
            return None
        side = g.side
        if r.colour and new & ~(r.attacker, r.defender)[side]:
            return None
        squares = [p for p in range(g.geometry.size) if new >> p & 1]
        orders = [squares] if count == 1 else [squares, squares[::-1]]
        for order in orders:
            done: list[Move] = []
            for p in order:
                if g.side != side or g.phase != "setting":
                    break
                m = next((x for x in g.legal_moves() if x.to == p), None)
                if m is None:
                    break
                g.push(PLACE, -1, p, False)
                done.append(m)
            after = g.bitboards()
            for _ in done:
                g.pop()
            if len(done) == count and self._fits(r, after[0], after[1], 0, 0):
                return _Candidate(tuple(done), after[0], after[1], 0, 0, 0)
        return None

    def _play(self, cand: _Candidate, r: Frame) -> None:
        g = self.game
        self.expected = None
        for m in cand.actions:
            side = g.side
            g.push(m.kind, m.frm, m.to, m.flag)
            self._boards.append(g.bitboards())
            self._played.append(str(g.last_move))
            if m.kind == STEP:
                self._flags[side] = False
        self._draw_offer = None
        self._hint = 0
        occ = cand.a | cand.d
        self._pending_a = (self._pending_a | cand.gone_a) & ~occ
        self._pending_d = (self._pending_d | cand.gone_d) & ~occ
        self._exchange_bits |= cand.exchanged
        self._auto_pass()
        self._ok(r)

    def _auto_pass(self) -> None:
        """End an optional chain when passing wins at once (a player does
        not play on past a won game)."""
        g = self.game
        if g.chain_square is None or g.outcome is not None:
            return
        mover = g.side
        if any(m.kind == PASS for m in g.legal_moves()):
            g.push(PASS, -1, -1, False)
            if g.outcome is not None and g.outcome.winner == SIDES[mover]:
                self._boards.append(g.bitboards())
                self._played.append("pass")
                return
            g.pop()

    def _generate(self) -> Iterator[_Candidate]:
        g = self.game
        side = g.side
        a, d = g.bitboards()
        raw = g.raw_moves()
        if any(kind == PASS for kind, *_ in raw):
            g.push(PASS, -1, -1, False)
            try:
                if g.outcome is None:
                    yield from self._sequences(g.side, (g.history[-1][1],), root=a | d)
            finally:
                g.pop()
        yield from self._sequences(side, (), root=a | d)

    def _sequences(
        self,
        side: int,
        prefix: tuple[Move, ...],
        gone: tuple[int, int, int] = (0, 0, 0),
        proof: int = 0,
        entered: int = 0,
        weak: bool = False,
        root: int = 0,
    ) -> Iterator[_Candidate]:
        g = self.game
        gone_a, gone_d, exchanged = gone
        flag = self._flags[side]
        raw = list(g.raw_moves())
        flagged = {(f, t) for kind, f, t, _, fl in raw if fl}
        b = g.bitboards()
        for kind, frm, to, _, fl in raw:
            if kind == PASS:
                continue
            if kind == STEP and fl != (flag and (frm, to) in flagged):
                continue
            mover = g.side
            g.push(kind, frm, to, fl)
            try:
                move = g.history[-1][1]
                actions = prefix + (move,)
                a, d = g.bitboards()
                moved = [b[0], b[1]]
                if kind == STEP:
                    moved[mover] ^= (1 << frm) | (1 << to)
                elif kind == REMOVE:
                    moved[mover] &= ~(1 << to)
                ga, gd = moved[0] & ~a, moved[1] & ~d
                exch = 0 if move.capture else ga | gd
                gone = (gone_a | ga, gone_d | gd, exchanged | exch)
                # A soldier taken off by the exchange it completes must be
                # seen on its destination first: lifting it proves nothing.
                seen = proof | (1 << to if exch else 0)
                into = entered | (1 << to if kind == STEP else 0)
                weak_now = weak or bool((gone_a | gone_d) >> to & 1 and kind == STEP)
                # Steps that leave no piece on a square empty before them are
                # unproven too: the reading only shows pieces gone.
                unseen = kind == STEP and not ((a | d | seen) & ~root)
                yield _Candidate(actions, a, d, *gone, seen, into, weak_now or unseen)
                # Go on only within the turn: a chain, or the removals owed
                # (not into a new turn when the opponent is blocked).
                within_turn = g.chain_square is not None or (kind == REMOVE and bool(g.removals))
                if (
                    within_turn
                    and g.outcome is None
                    and g.side == side
                    and g.phase == "moving"
                    and len(actions) < self.settings.max_actions
                ):
                    yield from self._sequences(
                        side, actions, gone, seen, into, weak_now, root
                    )
            finally:
                g.pop()

    def _explain_lift(self, r: Frame) -> bool:
        """A piece of the side to move in the hand?  While an optional chain
        waits, the opponent may already be lifting one (an implied pass)."""
        g = self.game
        if g.outcome is not None or g.phase != "moving":
            return False
        found = [self._lift(r)]
        if g.chain_square is not None and any(m.kind == PASS for m in g.legal_moves()):
            g.push(PASS, -1, -1, False)
            try:
                found.append(self._lift(r))
            finally:
                g.pop()
        options = [f for f in found if f is not None]
        if not options:
            return False
        # The chain soldier, or the opponent's piece after an implied pass:
        # the one already in the hand, else the one lifted first since the
        # board last settled.
        options.sort(key=lambda f: (not self._held >> f[0] & 1, not self._origin >> f[0] & 1))
        self._lifted, self._lift_targets = options[0]
        return True

    def _lift(self, r: Frame) -> tuple[int, int] | None:
        g = self.game
        a, d = g.bitboards()
        own = (a, d)[g.side]
        enemy = (a, d)[1 - g.side]
        occ = a | d
        if r.occupied & ~occ & ~(self._pending_a | self._pending_d):
            return None  # a piece where none should be
        if r.colour and (r.attacker & ~a & ~self._pending_a or r.defender & ~d & ~self._pending_d):
            return None
        missing = occ & ~r.occupied
        lifted = missing & own
        if g.chain_square is not None:
            lifted &= 1 << g.geometry.parse_point(g.chain_square)
        if self.expected is not None and self.expected.frm >= 0:
            lifted &= 1 << self.expected.frm  # the computer's soldier only
        if lifted.bit_count() != 1:
            return None
        frm = lifted.bit_length() - 1
        # Pieces taken off early must be ones a step of this soldier takes.
        takes = targets = 0
        for m in g.legal_moves():
            if m.kind == STEP and m.frm == frm:
                targets |= 1 << m.to
                takes |= g.captures(m.frm, m.to)
        if missing & ~lifted & ~(enemy & takes):
            return None
        return frm, targets

    def _takeback(self, r: Frame) -> bool:
        """The board is back at an earlier position of this game: undo to it."""
        current = self._boards[-1]
        g = self.game
        occ = current[0] | current[1]
        missing = occ & ~r.occupied
        extra = r.occupied & ~occ
        own = current[g.side]
        # One soldier of the side to move set down on a wrong square is no
        # takeback, even when the occupancy matches an older position.
        displaced = (
            g.phase == "moving"
            and missing.bit_count() == 1
            and extra.bit_count() == 1
            and missing & own
        )
        last_turn = len(self._boards) - 1 - self._last_turn_length()
        for k in range(len(self._boards) - 2, -1, -1):
            if displaced and k < last_turn:
                break
            a, d = self._boards[k]
            if (a, d) == current:
                continue
            if self._fits(r, a, d, 0, 0):
                while len(self._boards) > k + 1:
                    self._pop()
                self._pending_a = self._pending_d = self._exchange_bits = 0
                self._ok(r)
                return True
        return False

    def _correction(self, r: Frame) -> bool:
        """The last turn made another way (set down wrong, then moved on)."""
        g = self.game
        n = self._last_turn_length()
        if n == 0:
            return False
        saved = [g.moves[-1 - i] for i in range(n)][::-1]
        saved_state = (self._pending_a, self._pending_d, self._exchange_bits, self._flags[:])
        saved_boards = self._boards[-n:]
        for _ in range(n):
            g.pop()
        del self._boards[-n:]
        self._pending_a = self._pending_d = self._exchange_bits = 0
        if saved[0].kind == STEP:
            self._flags[g.side] = saved[0].flag  # the flag it was made with
        cand = self._explain(r, weak_ok=False)
        # The same piece's turn made another way, no longer than it was.
        if (
            cand is not None
            and [str(x) for x in cand.actions] != [str(x) for x in saved]
            and len(cand.actions) <= len(saved)
            and (cand.actions[0].kind, cand.actions[0].frm) == (saved[0].kind, saved[0].frm)
        ):
            self._undone += n
            self._play(cand, r)
            return True
        for m in saved:
            g.push(m.kind, m.frm, m.to, m.flag)
        self._boards.extend(saved_boards)
        self._pending_a, self._pending_d, self._exchange_bits, self._flags = saved_state
        return False

    def _last_turn_length(self) -> int:
        """How many actions the last turn took (0 if it cannot be redone)."""
        hist = self.game.history
        if not hist or hist[-1][1].kind not in (PLACE, STEP, PASS, REMOVE):
            return 0
        side = hist[-1][0].side
        n = 0
        for snap, m in reversed(hist):
            if snap.side != side:
                break
            n += 1
            if m.kind == PLACE:
                if snap.placed % 2 == 0:
                    break
            elif m.kind == REMOVE or (m.kind == STEP and snap.chain == -1):
                break
        return n

    def _pop(self) -> None:
        self.game.pop()
        self._boards.pop()
        self._undone += 1

    def _undo_turn(self) -> None:
        """The undo button: take back the last turn."""
        for _ in range(self._last_turn_length()):
            self._pop()
        self._pending_a = self._pending_d = self._exchange_bits = 0

    def _resume(self, r: Frame) -> bool:
        """The board set up as a saved unfinished game: play on with it."""
        for saved in self.saved:
            a, d = saved.bitboards()
            if saved.phase == "moving" and self._fits(r, a, d, 0, 0):
                self.saved.remove(saved)
                if self.game.moves and self.game.outcome is None and self.game.phase == "moving":
                    self.saved.append(self.game)
                elif self.game.moves:
                    self.finished.append(self.game)
                self._switch(saved)
                self.resumed.append(saved)
                self._ok(r)
                return True
        return False

    def _switch(self, game: Game) -> None:
        self.game = game
        self._boards = _boards_of(game)
        self._pending_a = self._pending_d = self._exchange_bits = 0
        self._flags = [False, False]
        self._draw_offer = None
        self._hint = 0

    def _new_game(self) -> None:
        if self.game.moves and self.game.outcome is None and self.game.phase == "moving":
            self.saved.append(self.game)  # unfinished: resumed if set up again
        elif self.game.moves:
            self.finished.append(self.game)
        self.game = Game.new(self.variant)
        self.start = None
        self._boards = [self.game.bitboards()]
        self._pending_a = self._pending_d = self._exchange_bits = 0
        self._flags = [False, False]
        self._draw_offer = None
        self._hint = 0
        self._new_games += 1
        if self.on_new_game is not None:
            self.on_new_game(self.game)

    def _difference(self, r: Frame) -> int:
        a, d = self.game.bitboards()
        pend = self._pending_a | self._pending_d
        occ = a | d
        diff = (r.occupied ^ occ) & ~(pend & r.occupied)
        if r.colour:
            diff |= (r.attacker & d) | (r.defender & a)
            diff |= r.attacker & self._pending_d | r.defender & self._pending_a
        return diff

    # ------------------------------------------------------------------
    # Output

    def expect(self, move: Move | None) -> None:
        """Wait for the computer's action ``move`` (a legal action): it is
        lit, and only it is accepted; a ``pass`` is played at once."""
        if move is not None and move.kind == PASS:
            self.game.push(PASS, -1, -1, False)
            self._boards.append(self.game.bitboards())
            self._played.append("pass")
            self.expected = None
            return
        self.expected = move

    def set_hint(self, squares: list[str]) -> None:
        """Light ``hint`` on these squares until the board next changes."""
        self._hint = 0
        for s in squares:
            self._hint |= 1 << self.game.geometry.parse_point(s)

    def status(self) -> str:
        g = self.game
        if self._error_bits:
            n = self._error_bits.bit_count()
            return f"Put the board right: {n} square{'s' if n != 1 else ''} lit"
        o = g.outcome
        if o is not None:
            who = "Draw" if o.winner is None else f"{o.winner.capitalize()} wins"
            return f"Game over: {who} ({o.reason}). Clear the board for a new game"
        side = TITLE[g.side]
        pend = self._pending_a | self._pending_d
        if self._reading is not None:
            pend &= self._reading.occupied
        if pend:
            n = pend.bit_count()
            what = "exchanged" if pend & self._exchange_bits == pend else "captured"
            return f"Remove the {n} {what} piece{'s' if n != 1 else ''} lit red"
        flag = " (exchange flag raised)" if self._flags[g.side] else ""
        if self.expected is not None and self._lifted < 0:
            return f"{side} (computer): make the lit move {self.expected}"
        if self._lifted >= 0:
            return f"{side}: {self._names[self._lifted]} lifted; set it on a lit square{flag}"
        if g.phase == "setting":
            placed = (g.count(0) + g.count(1)) % 2 + 1
            return f"{side}: place a soldier ({placed} of 2)"
        if g.chain_square is not None:
            optional = " or carry on with another move (pass)" if g.variant.chain == "optional" \
                else ""
            return f"{side}: continue the capture with {g.chain_square}{optional}"
        if g.removals:
            return f"{side}: remove one of your own pieces (blocked side rule)"
        return f"{side} to move{flag}"

    def leds(self) -> LedMap:
        g = self.game
        names = self._names
        leds: LedMap = {}
        if g.outcome is None and g.phase == "setting":
            a, d = g.bitboards()
            empty = g.geometry.full & ~(a | d) & ~(1 << g.geometry.centre)
            allowed = 0
            for m in g.legal_moves():
                allowed |= 1 << m.to
            if allowed != empty:
                paint(leds, allowed, "setup", names)
        last = next((m for _, m in reversed(g.history) if m.kind == STEP), None)
        if last is not None and g.outcome is None:
            paint(leds, 1 << last.frm, "last-from", names)
            paint(leds, 1 << last.to, "last-to", names)
        paint(leds, self._hint, "hint", names)
        if self.expected is not None and g.outcome is None:
            e = self.expected
            paint(leds, sum(1 << x for x in (e.frm, e.to) if x >= 0), "hint", names)
        if g.outcome is None and g.chain_square is not None:
            p = g.geometry.parse_point(g.chain_square)
            targets = 0
            for m in g.legal_moves():
                if m.kind == STEP:
                    targets |= 1 << m.to
            paint(leds, targets, "destination", names)
            paint(leds, 1 << p, "continue", names)
        if self._lifted >= 0:
            paint(leds, self._lift_targets, "destination", names)
            paint(leds, 1 << self._lifted, "lifted", names)
        pend = self._pending_a | self._pending_d
        if self._reading is not None:
            pend &= self._reading.occupied
        paint(leds, pend & self._exchange_bits, "exchange", names)
        paint(leds, pend & ~self._exchange_bits, "capture", names)
        paint(leds, self._error_bits, "error", names)
        return leds


def _same(a: Move, b: Move) -> bool:
    return (a.kind, a.frm, a.to, a.flag) == (b.kind, b.frm, b.to, b.flag)


def _boards_of(game: Game) -> list[tuple[int, int]]:
    """The board before and after each action of ``game`` (for takebacks)."""
    start = game.start_position
    replay = Game.from_position(game.variant, start) if start else Game.new(game.variant)
    boards = [replay.bitboards()]
    for m in game.moves:
        if m.kind in (PLACE, STEP, PASS, REMOVE):
            replay.push(m.kind, m.frm, m.to, m.flag)
        boards.append(replay.bitboards())
    return boards
