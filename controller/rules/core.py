"""The rules core: the state of a game on two bitboards, the move
generator, make/unmake and the flow of turns (chains, exchanges, blocked
sides, endings).

Moves are generated with the tables of :mod:`.tables`: the soldiers that
can step and the points a step onto would capture are found with
whole-board shifts; each soldier contributes a shared tuple of steps
looked up by its empty neighbours; only a step that captures is built.
Raw tuples (:data:`~.state.Raw`) and their shared :class:`~.moves.Move`
objects are generated side by side and cached until the next action.
Undo keeps, per action, one flat tuple: the state fields before it and the
raw action played.
"""

from __future__ import annotations

from controller.board.geometry import Geometry, points

from . import hajeb
from .moves import (
    ATTACKER,
    DEFENDER,
    HAJEB,
    PLACE,
    REMOVE,
    RESCIND,
    SIDE_NAMES,
    STEP,
    Move,
    Outcome,
    Termination,
)
from .state import NO_OFF, Exchange, Off, Raw, State
from .tables import Tables, tables_for
from .variants import Variant, find_variant

__all__ = ["Core", "Entry"]

# One undo entry: the first 13 fields of State (in order) before an action,
# the raw action played, then State.hajeb before it.
Entry = tuple[
    int, int, int, bool, int, int, Exchange | None, int, tuple[int, ...], int, bool, Off,
    Outcome | None, Raw, int,
]
NEVER = 1 << 62


def turn_cap(v: Variant) -> int:
    """The moving-phase turn at whose end a game is drawn by the turn limit
    (the variant's limit counts the setting phase's turns too)."""
    return v.turn_limit - v.pieces_per_side + 1 if v.turn_limit else NEVER


def noprog_cap(v: Variant) -> int:
    """The turns without a capture or exchange at which a game is adjudicated."""
    return v.no_progress_turns or NEVER


class Core:
    """The state of a game and its rules, for :class:`~.game.Game`.

    The state lives in plain attributes (``_bb`` the two bitboards, then
    the fields of :class:`~.state.State`); every change goes through
    :meth:`_do` (one action) and :meth:`_undo_one`.
    """

    variant: Variant
    geometry: Geometry

    def __init__(self, variant: str | Variant = "kharbga") -> None:
        v = find_variant(variant)
        self.variant = v
        self.geometry = v.geometry
        self._t: Tables = tables_for(v.geometry)
        self._names = v.geometry.point_names
        self._centre_bit = 1 << v.geometry.centre
        self._enemy_mask = ~self._centre_bit if v.refuge else -1
        self._filtered = v.compulsory_capture or v.blocked == "reopen" or v.exchange
        self._turn_cap = turn_cap(v)
        self._noprog_cap = noprog_cap(v)
        self._repetition = v.repetition
        self._exchanges = v.exchange
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
        self._off: Off = NO_OFF
        self._outcome: Outcome | None = None
        self._hajeb = hajeb.OFF
        self._undo: list[Entry] = []
        # Repetition counts, and the positions counted: (ply, key).
        self._repetitions: dict[tuple[object, ...], int] = {}
        self._counted: list[tuple[int, tuple[object, ...]]] = []
        self._raws: list[Raw] | None = None
        self._moves: list[Move] | None = None

    # ------------------------------------------------------------------
    # State as a value

    def state(self) -> State:
        """The current position as a typed value."""
        bb = self._bb
        return State(
            bb[0],
            bb[1],
            self._side,
            self._setting,
            self._chain,
            self._turn,
            self._exchange,
            self._noprog,
            self._removals,
            self._resume,
            self._turn_captured,
            self._off,
            self._outcome,
            self._hajeb,
        )

    def _restore(self, s: State) -> None:
        self._bb = [s.attacker, s.defender]
        self._side = s.side
        self._setting = s.setting
        self._chain = s.chain
        self._turn = s.turn
        self._exchange = s.exchange
        self._noprog = s.no_progress
        self._removals = s.removals
        self._resume = s.resume
        self._turn_captured = s.turn_captured
        self._off = s.off
        self._outcome = s.outcome
        self._hajeb = s.hajeb
        self._raws = self._moves = None

    # ------------------------------------------------------------------
    # Move generation

    def _generated(self) -> tuple[list[Raw], list[Move]]:
        """The legal actions as raw tuples and as moves (cached)."""
        raws, moves = self._raws, self._moves
        if raws is None or moves is None:
            raws, moves = [], []
            if self._outcome is None:
                if self._setting:
                    self._gen_placements(raws, moves)
                elif self._removals:
                    if self._hajeb == hajeb.ENDING:
                        hajeb.gen_removals(self, raws, moves)
                    else:
                        self._gen_removals(raws, moves)
                elif self._hajeb == hajeb.IN_FORCE and self._side == ATTACKER:
                    hajeb.gen_long_moves(self, raws, moves)
                elif self._chain >= 0:
                    self._gen_chain(raws, moves)
                else:
                    self._gen_steps(raws, moves)
                    if self._filtered:
                        raws, moves = self._filter_steps(raws, moves)
            self._raws, self._moves = raws, moves
        return raws, moves

    def _gen_removals(self, raws: list[Raw], moves: list[Move]) -> None:
        """The side to move takes off one of its own pieces (``remove``)."""
        remove, mt = self._t.remove, self._t.moves
        for p in points(self._bb[self._side]):
            raws.append(remove[p])
            moves.append(mt[remove[p]])

    def _gen_steps(self, raws: list[Raw], moves: list[Move]) -> None:
        """Every step of the side to move, by from point then to point.

        Each soldier that can step adds the shared steps onto its empty
        neighbours; a step onto one of the capture targets is built with
        the pieces it takes."""
        t = self._t
        bb = self._bb
        side = self._side
        own = bb[side]
        empty = t.full ^ (own | bb[1 - side])
        movers = own & t.spread(empty)
        targets = t.capture_targets(own, bb[1 - side] & self._enemy_mask, empty)
        step_raws, step_moves, adjacent = t.step_raws, t.step_moves, t.adjacent
        while movers:
            low = movers & -movers
            p = low.bit_length() - 1
            near = empty & adjacent[p]
            if near & targets:
                mt = t.moves
                for raw in step_raws[p][near]:
                    to = raw[2]
                    if targets >> to & 1:
                        raw = (STEP, p, to, self._captures(side, p, to), False)
                    raws.append(raw)
                    moves.append(mt[raw])
            else:
                raws += step_raws[p][near]
                moves += step_moves[p][near]
            movers ^= low

    def _gen_chain(self, raws: list[Raw], moves: list[Move]) -> None:
        """The capturing steps of the chaining soldier (and ``pass``)."""
        t = self._t
        c = self._chain
        side = self._side
        empty = t.full ^ (self._bb[0] | self._bb[1])
        for raw in t.chain_steps[c][empty & t.adjacent[c]]:
            caps = self._captures(side, c, raw[2])
            if caps:
                raw = (STEP, c, raw[2], caps, False)
                raws.append(raw)
                moves.append(t.moves[raw])
        if self.variant.chain == "optional":
            raws.append(t.pass_raw)
            moves.append(t.moves[t.pass_raw])

    def _gen_placements(self, raws: list[Raw], moves: list[Move]) -> None:
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
        place, place_moves = self._t.place, self._t.place_moves
        for p in points(allowed):
            raws.append(place[p])
            moves.append(place_moves[p])

    def _filter_steps(
        self, raws: list[Raw], moves: list[Move]
    ) -> tuple[list[Raw], list[Move]]:
        """Compulsory captures, the ``reopen`` rule and flagged steps."""
        v = self.variant
        side = self._side
        keep: list[int] | None = None
        if v.compulsory_capture:
            capturing = [i for i, r in enumerate(raws) if r[3]]
            if capturing:
                keep = capturing
        if v.blocked == "reopen" and raws and not self._has_step(1 - side):
            kept = keep if keep is not None else range(len(raws))
            opening = [i for i in kept if self._opens(side, raws[i])]
            if opening:
                keep = opening
        if keep is not None:
            raws = [raws[i] for i in keep]
            moves = [moves[i] for i in keep]
        if v.exchange:
            flagged = self._t.flagged_raw
            extra = [flagged[f][to] for _, f, to, c, _ in raws if not c and self._may_flag(f)]
            raws = raws + extra
            moves = moves + [self._t.moves[r] for r in extra]
        return raws, moves

    def _may_flag(self, frm: int) -> bool:
        ex = self._exchange
        if self._side == DEFENDER:
            return True
        if ex is None or self._bb[ATTACKER].bit_count() < 2:
            return False
        if ex.stage == 1:
            return True
        return ex.stage == 3 and frm != ex.first

    def _captures(self, side: int, frm: int, to: int) -> int:
        """The enemy pieces a step of ``side`` from ``frm`` to ``to`` takes
        (the square beyond an enemy is never ``frm`` nor ``to``)."""
        own = self._bb[side]
        enemy = self._bb[1 - side] & self._enemy_mask
        caps = 0
        for nb, beyond in self._t.capture_pairs[to]:
            if enemy & nb and own & beyond:
                caps |= nb
        return caps

    def _has_step(self, side: int) -> bool:
        t = self._t
        own = self._bb[side]
        return bool(own & t.spread(t.full ^ (own | self._bb[1 - side])))

    def _opens(self, side: int, raw: Raw) -> bool:
        """Would this step (with its captures) give the other side a step?"""
        _, frm, to, caps, _ = raw
        t = self._t
        own = self._bb[side] ^ ((1 << frm) | (1 << to))
        opp = self._bb[1 - side] & ~caps
        return bool(opp & t.spread(t.full ^ (own | opp)))

    # ------------------------------------------------------------------
    # Make and unmake

    def _do(self, raw: Raw) -> None:
        """Play a legal raw action (with its true captures)."""
        kind, frm, to, caps, flag = raw
        bb = self._bb
        side = self._side
        self._undo.append((
            bb[0], bb[1], side, self._setting, self._chain, self._turn, self._exchange,
            self._noprog, self._removals, self._resume, self._turn_captured, self._off,
            self._outcome, raw, self._hajeb,
        ))  # fmt: skip
        self._raws = self._moves = None
        if kind == STEP:
            bb[side] ^= (1 << frm) | (1 << to)
            if caps:
                self._took(side, to, caps)
                return
            if self._exchanges:
                self._exchange_step(frm, to, flag)
            self._end_turn()
        elif kind == PLACE:
            bb[side] |= 1 << to
            self._after_placement()
        elif kind == REMOVE:
            if self._hajeb == hajeb.ENDING:
                hajeb.remove(self, to)
                return
            bb[side] &= ~(1 << to)
            self._add_off(side, 2, 1)
            self._after_removal()
        elif kind == HAJEB:
            hajeb.declare(self)
        elif kind == RESCIND:
            hajeb.rescind(self)
        else:  # pass
            self._end_turn()

    def _undo_one(self) -> Raw:
        """Undo the last action; returns it."""
        ply = len(self._undo)
        counted = self._counted
        if counted and counted[-1][0] == ply:
            key = counted.pop()[1]
            n = self._repetitions[key] - 1
            if n:
                self._repetitions[key] = n
            else:
                del self._repetitions[key]
        (
            a, d, self._side, self._setting, self._chain, self._turn, self._exchange,
            self._noprog, self._removals, self._resume, self._turn_captured, self._off,
            self._outcome, raw, self._hajeb,
        ) = self._undo.pop()  # fmt: skip
        bb = self._bb
        bb[0] = a
        bb[1] = d
        self._raws = self._moves = None
        return raw

    def _raw_step(self, kind: str, frm: int, to: int, flag: bool) -> Raw:
        """The raw tuple of an action given by its parts (captures found)."""
        t = self._t
        if kind == STEP:
            caps = self._captures(self._side, frm, to)
            if caps:
                return (STEP, frm, to, caps, flag)
            table = t.flagged_raw if flag else t.step_raw
            raw = table[frm].get(to)
            return raw if raw is not None else (STEP, frm, to, 0, flag)
        if kind == PLACE:
            return t.place[to]
        if kind == REMOVE:
            return t.remove[to]
        return (kind, frm, to, 0, flag)

    def _add_off(self, side: int, column: int, n: int) -> None:
        row = list(self._off[side])
        row[column] += n
        c, e, r = row
        self._off = ((c, e, r), self._off[1]) if side == 0 else (self._off[0], (c, e, r))

    def _took(self, side: int, to: int, caps: int) -> None:
        """A step that captured: the chain goes on while it can."""
        bb = self._bb
        opp = bb[1 - side] & ~caps
        bb[1 - side] = opp
        self._add_off(1 - side, 0, caps.bit_count())
        self._turn_captured = True
        self._exchange = None
        self._chain = to
        if self._hajeb == hajeb.IN_FORCE and side == ATTACKER:
            if not (opp and hajeb.can_capture(self)):
                self._end_turn()  # the captures of any soldier go on while they can
            return
        if opp:
            t = self._t
            own = bb[side]
            targets = t.capture_targets(own, opp & self._enemy_mask, t.full ^ (own | opp))
            if targets & t.adjacent[to]:
                return
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
                self._bb[DEFENDER] &= ~(1 << to)
                self._bb[ATTACKER] &= ~((1 << ex.first) | (1 << ex.second))
                self._add_off(DEFENDER, 1, 1)
                self._add_off(ATTACKER, 1, 2)
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

    # ------------------------------------------------------------------
    # The flow of turns

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
        mover = self._side
        bb = self._bb
        self._chain = -1
        turn = self._turn = self._turn + 1
        if self._turn_captured:
            self._noprog = 0
            self._turn_captured = False
        else:
            self._noprog += 1
        if not bb[1 - mover]:
            self._finish(mover, Termination.ALL_CAPTURED)
            return
        if not bb[mover]:  # an exchange can take the last soldier
            self._finish(1 - mover, Termination.ALL_CAPTURED)
            return
        side = self._side = 1 - mover
        t = self._t
        if self._hajeb or not bb[side] & t.spread(t.full ^ (bb[0] | bb[1])):
            self._start_turn(mover)  # blocked, or under H'ajeb
            if self._outcome is not None:
                return
        if turn >= self._turn_cap:
            self._finish(None, Termination.TURN_LIMIT)
            return
        if self._noprog >= self._noprog_cap:
            self._adjudicate(Termination.NO_PROGRESS)
            return
        if self._repetition:
            self._count_position()

    def _count_position(self) -> None:
        """Count this position (side to move included) for repetition; the
        third occurrence ends the game.  Called wherever a turn starts: after
        a turn, at the start of the moving phase, after removals, and for a
        position read from a string (its first occurrence)."""
        if not self.variant.repetition or self._outcome is not None or self._chain >= 0:
            return
        key = (self._bb[0], self._bb[1], self._side, self._exchange, self._removals, self._hajeb)
        n = self._repetitions.get(key, 0) + 1
        self._repetitions[key] = n
        self._counted.append((len(self._undo), key))
        if n >= 3:
            self._adjudicate(Termination.REPETITION)

    def _start_turn(self, mover: int) -> None:
        """The side to move is set; deal with it being blocked (and, under
        H'ajeb, with an Attacker that can capture no more)."""
        side = self._side
        if self._hajeb == hajeb.IN_FORCE and side == ATTACKER:
            if not hajeb.can_capture(self):
                hajeb.begin_end(self)
            return
        t = self._t
        bb = self._bb
        if bb[side] & t.spread(t.full ^ (bb[0] | bb[1])):
            return
        v = self.variant
        if v.blocked == "lose":
            reason = Termination.BLOCKED if bb[side] else Termination.ALL_CAPTURED
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
        self._raws = self._moves = None
