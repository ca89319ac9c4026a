"""The rules core as it was before the table-driven generator: a slow,
straightforward reference for the differential tests.

Moves are found by walking every soldier and every direction, captures by
checking each capture pair with the stepping soldier moved, and undo by a
full State per action.  Only what the comparison needs is kept: the
generator, the flow of turns and undo.  Not used by the program.
"""

from __future__ import annotations

from controller.board.geometry import Geometry, points
from controller.rules.moves import (
    ATTACKER,
    DEFENDER,
    PASS,
    PLACE,
    REMOVE,
    SIDE_NAMES,
    STEP,
    Outcome,
    Termination,
)
from controller.rules.state import Exchange, Raw, State
from controller.rules.variants import Variant, find_variant


class ReferenceGame:
    """The reference rules: start from a :class:`State` and play raw actions."""

    variant: Variant
    geometry: Geometry

    def __init__(self, variant: str | Variant = "kharbga") -> None:
        v = find_variant(variant)
        self.variant = v
        self.geometry = v.geometry
        g = self.geometry
        self._names = g.point_names
        self._centre_bit = 1 << g.centre
        self._bb = [0, 0]
        self._side = ATTACKER
        self._setting = True
        self._chain = -1
        self._turn = 0
        self._exchange: Exchange | None = None
        self._noprog = 0
        self._removals: tuple[int, ...] = ()
        self._resume = -1
        self._turn_captured = False
        self._off = [[0, 0, 0], [0, 0, 0]]  # per side: captured, exchanged, removed
        self._outcome: Outcome | None = None
        self._history: list[tuple[State, str]] = []
        self._repetitions: dict[tuple[object, ...], int] = {}
        self._cache: list[Raw] | None = None

    # ------------------------------------------------------------------
    # Construction

    @classmethod
    def from_state(cls, variant: str | Variant, state: State) -> ReferenceGame:
        """A reference game at ``state`` (as Game holds it: blocked sides
        already dealt with)."""
        game = cls(variant)
        game._restore(state)
        if not state.setting:
            game._count_position()
        return game

    def _raw_moves(self) -> list[Raw]:
        if self._cache is None:
            self._cache = self._generate()
        return self._cache

    def _generate(self) -> list[Raw]:
        if self._outcome is not None:
            return []
        if self._setting:
            return [(PLACE, -1, p, 0, False) for p in self._placements()]
        side = self._side
        if self._removals:
            return [(REMOVE, -1, p, 0, False) for p in points(self._bb[side])]
        v = self.variant
        if self._chain >= 0:
            steps = [s for s in self._steps_from(side, self._chain) if s[2]]
            out = [(STEP, f, t, c, False) for f, t, c in steps]
            if v.chain == "optional":
                out.append((PASS, -1, -1, 0, False))
            return out
        steps = self._steps(side)
        if v.compulsory_capture:
            capturing = [s for s in steps if s[2]]
            if capturing:
                steps = capturing
        if v.blocked == "reopen" and steps and not self._has_step(1 - side):
            opening = [s for s in steps if self._opens(side, s)]
            if opening:
                steps = opening
        out = [(STEP, f, t, c, False) for f, t, c in steps]
        if v.exchange:
            out.extend((STEP, f, t, 0, True) for f, t, c in steps if not c and self._may_flag(f))
        return out

    def _may_flag(self, frm: int) -> bool:
        ex = self._exchange
        if self._side == DEFENDER:
            return True
        if ex is None or self._bb[ATTACKER].bit_count() < 2:
            return False
        if ex.stage == 1:
            return True
        return ex.stage == 3 and frm != ex.first

    def _placements(self) -> list[int]:
        g = self.geometry
        side = self._side
        a, d = self._bb
        empty = g.full & ~(a | d) & ~self._centre_bit
        near = g.centre_adjacent
        rule = self.variant.setting_rule
        allowed = empty
        if rule == "first-piece-adjacent":
            if not self._bb[side] and empty & near:
                allowed = empty & near
        elif rule == "open-first-move" and not (a & near):
            if side == DEFENDER:
                if (empty & near).bit_count() == 1 and empty & ~near:
                    allowed = empty & ~near
            elif a.bit_count() == self.variant.pieces_per_side - 1 and empty & near:
                allowed = empty & near
        return points(allowed)

    def _captures(self, side: int, frm: int, to: int) -> int:
        """The enemy pieces a step of ``side`` from ``frm`` to ``to`` takes."""
        own = (self._bb[side] & ~(1 << frm)) | (1 << to)
        enemy = self._bb[1 - side]
        if self.variant.refuge:
            enemy &= ~self._centre_bit
        caps = 0
        for nb, beyond in self.geometry.capture_pairs[to]:
            if enemy & nb and own & beyond:
                caps |= nb
        return caps

    def _steps(self, side: int) -> list[tuple[int, int, int]]:
        g = self.geometry
        own = self._bb[side]
        empty = g.full & ~(own | self._bb[1 - side])
        out = []
        for d in range(len(g.neighbours)):
            back = g.neighbours[g.opposite[d]]
            targets = g.shift(own, d) & empty
            while targets:
                low = targets & -targets
                to = low.bit_length() - 1
                frm = back[to]
                out.append((frm, to, self._captures(side, frm, to)))
                targets ^= low
        out.sort()
        return out

    def _steps_from(self, side: int, frm: int) -> list[tuple[int, int, int]]:
        a, d = self._bb
        occupied = a | d
        out = []
        for _, to in self.geometry.step_targets[frm]:
            if not occupied >> to & 1:
                out.append((frm, to, self._captures(side, frm, to)))
        return out

    def _has_step(self, side: int) -> bool:
        g = self.geometry
        own = self._bb[side]
        empty = g.full & ~(own | self._bb[1 - side])
        return any(g.shift(own, d) & empty for d in range(len(g.neighbours)))

    def _opens(self, side: int, step: tuple[int, int, int]) -> bool:
        """Would this step (with its captures) give the other side a step?"""
        frm, to, caps = step
        saved = list(self._bb)
        self._bb[side] ^= (1 << frm) | (1 << to)
        self._bb[1 - side] &= ~caps
        try:
            return self._has_step(1 - side)
        finally:
            self._bb = saved

    # ------------------------------------------------------------------
    # Lookups for the reconciler

    def state(self) -> State:
        """The current position as a typed value (see :meth:`restore`)."""
        off = self._off
        return State(
            self._bb[0],
            self._bb[1],
            self._side,
            self._setting,
            self._chain,
            self._turn,
            self._exchange,
            self._noprog,
            self._removals,
            self._resume,
            self._turn_captured,
            ((off[0][0], off[0][1], off[0][2]), (off[1][0], off[1][1], off[1][2])),
            self._outcome,
        )

    _snapshot = state

    def _restore(self, snap: State) -> None:
        self._bb = [snap.attacker, snap.defender]
        self._side = snap.side
        self._setting = snap.setting
        self._chain = snap.chain
        self._turn = snap.turn
        self._exchange = snap.exchange
        self._noprog = snap.no_progress
        self._removals = snap.removals
        self._resume = snap.resume
        self._turn_captured = snap.turn_captured
        self._off = [list(x) for x in snap.off]
        self._outcome = snap.outcome
        self._cache = None

    def pop(self) -> None:
        """Undo the last action."""
        if not self._history:
            raise IndexError("pop from a game with no moves")
        snap, _ = self._history.pop()
        key = self._repetition_key()
        if self._chain < 0 and key in self._repetitions and self._counted_here():
            self._repetitions[key] -= 1
            if not self._repetitions[key]:
                del self._repetitions[key]
        self._restore(snap)

    def _counted_here(self) -> bool:
        return not self._setting and self._outcome is None or (
            self._outcome is not None and self._outcome.reason == Termination.REPETITION.value
        )

    def _apply(self, kind: str, frm: int, to: int, flag: bool) -> None:
        snap = self._snapshot()
        side = self._side
        self._cache = None
        if kind == PLACE:
            self._bb[side] |= 1 << to
            self._history.append((snap, kind))
            self._after_placement()
            return
        if kind == REMOVE:
            self._bb[side] &= ~(1 << to)
            self._off[side][2] += 1
            self._history.append((snap, kind))
            self._after_removal()
            return
        if kind == PASS:
            self._history.append((snap, kind))
            self._end_turn()
            return
        caps = self._captures(side, frm, to)
        self._history.append((snap, kind))
        self._bb[side] ^= (1 << frm) | (1 << to)
        if caps:
            self._bb[1 - side] &= ~caps
            self._off[1 - side][0] += caps.bit_count()
            self._turn_captured = True
            self._exchange = None
            self._chain = to
            if not self._bb[1 - side]:
                self._end_turn()
                return
            if any(c for _, _, c in self._steps_from(side, to)):
                return
            self._end_turn()
            return
        if self.variant.exchange:
            self._exchange_step(frm, to, flag)
        self._end_turn()

    def _exchange_step(self, frm: int, to: int, flag: bool) -> None:
        ex = self._exchange
        if not flag:
            self._exchange = None
            return
        if self._side == DEFENDER:
            if ex is not None and ex.stage == 2 and frm == ex.soldier:
                self._exchange = Exchange(3, to, ex.first)
            elif ex is not None and ex.stage == 4 and frm == ex.soldier:
                bits = (1 << to, (1 << ex.first) | (1 << ex.second))
                self._bb[DEFENDER] &= ~bits[0]
                self._bb[ATTACKER] &= ~bits[1]
                self._off[DEFENDER][1] += 1
                self._off[ATTACKER][1] += 2
                self._turn_captured = True  # an exchange counts as progress
                self._exchange = None
            else:
                self._exchange = Exchange(1, to)
        else:
            assert ex is not None
            if ex.stage == 1:
                self._exchange = Exchange(2, ex.soldier, to)
            else:
                self._exchange = Exchange(4, ex.soldier, ex.first, to)

    def _after_placement(self) -> None:
        v = self.variant
        placed = self._bb[0].bit_count() + self._bb[1].bit_count()
        if placed >= 2 * v.pieces_per_side:
            self._setting = False
            self._side = ATTACKER
            self._turn = 1
            self._start_turn(mover=DEFENDER)
            self._count_position()
        else:
            self._side = (placed // 2) % 2

    def _after_removal(self) -> None:
        side = self._side
        if not self._bb[side]:
            self._finish(1 - side, Termination.ALL_CAPTURED)
            return
        self._removals = self._removals[1:]
        if self._removals:
            self._side = self._removals[0]
            return
        self._side = self._resume
        self._resume = -1
        self._start_turn(mover=1 - self._side)
        self._count_position()

    def _end_turn(self) -> None:
        """Close the mover's turn and hand over (or not) to the other side."""
        v = self.variant
        mover = self._side
        self._chain = -1
        self._turn += 1
        if self._turn_captured:
            self._noprog = 0
        else:
            self._noprog += 1
        self._turn_captured = False
        if not self._bb[1 - mover]:
            self._finish(mover, Termination.ALL_CAPTURED)
            return
        if not self._bb[mover]:  # an exchange can take the last soldier
            self._finish(1 - mover, Termination.ALL_CAPTURED)
            return
        self._side = 1 - mover
        self._start_turn(mover)
        if self._outcome is not None:
            return
        if v.turn_limit and v.pieces_per_side + self._turn - 1 >= v.turn_limit:
            self._finish(None, Termination.TURN_LIMIT)
            return
        if v.no_progress_turns and self._noprog >= v.no_progress_turns:
            self._adjudicate(Termination.NO_PROGRESS)
            return
        self._count_position()

    def _count_position(self) -> None:
        """Count this position (side to move included) for repetition; the
        third occurrence ends the game.  Called wherever a turn starts: after
        a turn, at the start of the moving phase, after removals, and for a
        position read from a string (its first occurrence)."""
        if not self.variant.repetition or self._outcome is not None or self._chain >= 0:
            return
        key = self._repetition_key()
        n = self._repetitions.get(key, 0) + 1
        self._repetitions[key] = n
        if n >= 3:
            self._adjudicate(Termination.REPETITION)

    def _start_turn(self, mover: int) -> None:
        """The side to move is set; deal with it being blocked."""
        v = self.variant
        side = self._side
        if self._has_step(side):
            return
        if v.blocked == "lose":
            reason = Termination.BLOCKED if self._bb[side] else Termination.ALL_CAPTURED
            self._finish(1 - side, reason)
            return
        if v.blocked_first_turn_defender_wins and side == DEFENDER and self._turn == 2:
            self._finish(DEFENDER, Termination.BLOCKED_FIRST_TURN)
            return
        self._exchange = None
        if v.blocked == "remove":
            self._resume = side
            self._removals = (ATTACKER, ATTACKER, DEFENDER)
            self._side = ATTACKER
            return
        # "move-again" and "reopen": the other side moves again.
        self._side = 1 - side

    def _adjudicate(self, reason: Termination) -> None:
        a, d = (x.bit_count() for x in self._bb)
        winner = ATTACKER if a > d else DEFENDER if d > a else None
        self._finish(winner, reason, minor=True)

    def _finish(self, winner: int | None, reason: Termination, minor: bool = False) -> None:
        kind = None
        if self.variant.win_kinds and winner is not None:
            if reason == Termination.ALL_CAPTURED:
                kind = "major"
            elif minor:
                kind = "minor"
        name = SIDE_NAMES[winner] if winner is not None else None
        self._outcome = Outcome(name, reason.value, kind)
        self._cache = None

    def _repetition_key(self) -> tuple[object, ...]:
        return (self._bb[0], self._bb[1], self._side, self._exchange, self._removals)

    # ------------------------------------------------------------------
    # Endings by the players
