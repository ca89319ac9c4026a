"""The game state of the leap-capture games (draughts, Sixteen Soldiers):
steps, leaping captures and chains, kings, huffing and endings, with
make/unmake.

The same low-level interface as :class:`~.game.Game` (``raw_moves``,
``push``, ``pop``, ``captures``, ``state``, ``history``, ...), so the
reconciler, records and engine can drive either.  Pieces are two
bitboards and a bitboard of kings; moves are generated from the
precomputed tables of :mod:`.leap_variants`; :class:`~.moves.Move`
objects are made only at the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from controller.board.geometry import Geometry, points

from .leap_generate import can_leap, generate, has_move, leaps_at
from .leap_variants import KING, LeapVariant, find_leap_variant, leap_tables
from .moves import (
    PASS,
    REMOVE,
    SIDE_NAMES,
    STEP,
    IllegalMoveError,
    Move,
    Outcome,
    Termination,
)
from .views import BoardViews

__all__ = ["LeapGame", "LeapState", "Raw"]

# A raw action: (kind, frm, to, captured_mask, flag), as in Game.
Raw = tuple[str, int, int, int, bool]

_PASS: Raw = (PASS, -1, -1, 0, False)
# Move objects are immutable: one per action and board, shared by all games.
_MOVES: dict[str, dict[Raw, Move]] = {}


class LeapState(NamedTuple):
    """Everything that decides a position.

    ``attacker``/``defender``: the sides' soldiers; ``kings``: which of them
    are kings; ``side`` 0 the Attacker; ``chain`` the point of the soldier
    continuing a capture (-1: none); ``huff`` the enemy soldiers of which the
    side to move must first remove one (0: none); ``no_progress`` the turns
    since the last capture, huff or man's move (see ``LeapVariant``);
    ``huffed`` whether the side to move has taken its huff this turn (its
    step to come then ends a turn of progress).
    """

    attacker: int
    defender: int
    kings: int
    side: int
    chain: int
    turn: int
    no_progress: int
    huff: int
    outcome: Outcome | None
    huffed: bool = False

    @property
    def setting(self) -> bool:
        """No setting phase (as ``State.setting`` of the Kharbga family)."""
        return False

    @property
    def placed(self) -> int:
        """Soldiers on the board, both sides."""
        return self.attacker.bit_count() + self.defender.bit_count()


class LeapGame(BoardViews):
    """A game of one leap variant, from any position, with undo.

    Use :meth:`new` or :meth:`from_position` to make one.
    """

    variant: LeapVariant
    geometry: Geometry

    def __init__(self, variant: str | LeapVariant = "sixteen-soldiers") -> None:
        v = find_leap_variant(variant)
        self.variant = v
        self.geometry = v.geometry
        self._t = leap_tables(v)
        self._names = self.geometry.point_names
        self._full = self.geometry.full
        self._optional_chain = v.chain == "optional"
        self._compulsory = v.compulsory_capture
        self._huffing = v.huffing
        self._ends_chain = v.promotion == "ends-chain"
        self._men_progress = v.kings  # a man's move is progress where men crown
        self._turn_limit = v.turn_limit
        self._noprog_limit = v.no_progress_turns
        self._repetition = v.repetition
        self._bb = list(self._t.start)
        self._kings = 0
        self._side = 0
        self._chain = -1
        self._turn = 1
        self._noprog = 0
        self._huff = 0
        self._huffed = False
        self._outcome: Outcome | None = None
        self._history: list[tuple[LeapState, Move]] = []
        self._counted: list[tuple[int, ...] | None] = []
        self._repetitions: dict[tuple[int, ...], int] = {}
        self._cache: list[Raw] | None = None
        # legal_moves' last answer and the raw list it was made from.
        self._legal: list[Move] = []
        self._legal_of: list[Raw] | None = None
        self._start: str | None = None
        self._moves = _MOVES.setdefault(self.geometry.name, {})

    # ------------------------------------------------------------------
    # Construction

    @classmethod
    def new(cls, variant: str | LeapVariant = "sixteen-soldiers") -> LeapGame:
        """The starting position."""
        game = cls(variant)
        game._count_position(None)
        return game

    @classmethod
    def from_position(cls, variant: str | LeapVariant, position: str) -> LeapGame:
        """A game starting from a position string (docs/rules-leap.md)."""
        from .leap_notation import parse_position

        game = cls(variant)
        parse_position(game, position)
        game._start = " ".join(position.split())
        if game._huffed:  # mid-turn, the huff taken: as after it (counted at no turn's start)
            game._after_huff()
        elif game._chain < 0:
            if not game._huff:
                game._start_turn()
            game._check_limits()  # the last position of a game drawn by a limit
            game._count_position(None)
        return game

    def copy(self) -> LeapGame:
        """An independent copy, history included."""
        other = LeapGame.__new__(LeapGame)
        other.__dict__.update(self.__dict__)
        other._bb = list(self._bb)
        other._history = list(self._history)
        other._counted = list(self._counted)
        other._repetitions = dict(self._repetitions)
        return other

    # ------------------------------------------------------------------
    # Read-only views

    @property
    def phase(self) -> str:
        """Always ``"moving"``: these games have no setting phase."""
        return "moving"

    @property
    def setting(self) -> bool:
        return False

    @property
    def turn(self) -> int:
        """The current turn (1 is the Attacker's first)."""
        return self._turn

    @property
    def no_progress(self) -> int:
        return self._noprog

    @property
    def huff(self) -> int:
        """Bitboard of the enemy soldiers the side to move must remove one of."""
        return self._huff

    @property
    def removals(self) -> tuple[int, ...]:
        """``(side,)`` while the side to move owes a huff removal, else ``()``."""
        return (self._side,) if self._huff else ()

    @property
    def exchange(self) -> None:
        """These games have no exchange."""
        return None

    @property
    def start_position(self) -> str | None:
        """The position string the game started from (None: the usual start)."""
        return self._start

    @property
    def moves(self) -> list[Move]:
        """Every action played so far, in order."""
        return [m for _, m in self._history]

    @property
    def kings(self) -> int:
        """Bitboard of the soldiers that are kings."""
        return self._kings

    def is_king(self, square: str | int) -> bool:
        return bool(self._kings >> self._point(square) & 1)

    def in_hand(self, side: str | int) -> int:
        """No setting phase: nothing is ever in hand."""
        return 0

    def position(self) -> str:
        """The position string (docs/rules-leap.md)."""
        from .leap_notation import format_position

        return format_position(self)

    def __repr__(self) -> str:
        return f"LeapGame({self.variant.name!r}, {self.position()!r})"

    # ------------------------------------------------------------------
    # Move generation

    def legal_moves(self) -> list[Move]:
        """Every legal single action for the side to move."""
        raws = self._raw_moves()
        if self._legal_of is raws:
            return list(self._legal)
        cache = self._moves
        out = []
        for raw in raws:
            m = cache.get(raw)
            if m is None:
                m = self._move(raw[0], raw[1], raw[2], bool(raw[3]))
            out.append(m)
        self._legal, self._legal_of = out, raws
        return list(out)

    def _move(self, kind: str, frm: int, to: int, capture: bool) -> Move:
        """The (shared, immutable) Move object of an action."""
        raw = (kind, frm, to, self._t.over[frm].get(to, 0) if capture else 0, False)
        m = self._moves.get(raw)
        if m is None:
            m = self._moves[raw] = Move(kind, to, frm, capture, False, self._names)
        return m

    def _raw_moves(self) -> list[Raw]:
        if self._cache is None:
            self._cache = self._generate()
        return self._cache

    def _generate(self) -> list[Raw]:
        if self._outcome is not None:
            return []
        if self._huff:
            return [(REMOVE, -1, p, 0, False) for p in points(self._huff)]
        side = self._side
        own = self._bb[side]
        enemy = self._bb[1 - side]
        empty = self._full & ~(own | enemy)
        kings = self._kings
        if self._chain >= 0:
            p = self._chain
            kind = KING if kings >> p & 1 else side
            out = list(leaps_at(self._t, kind, p, enemy, empty))
            if self._optional_chain:
                out.append(_PASS)
            return out
        return generate(self._t, side, own, enemy, kings, empty, self._compulsory)

    def _can_leap(self, pieces: int, side: int) -> int:
        """The soldiers among ``pieces`` (of ``side``) that have a leap."""
        enemy = self._bb[1 - side]
        empty = self._full & ~(self._bb[side] | enemy)
        return can_leap(self._t, pieces, side, self._kings, enemy, empty)

    def _has_move(self, side: int) -> bool:
        return has_move(self._t, side, self._bb[side], self._bb[1 - side], self._kings, self._full)

    # ------------------------------------------------------------------
    # Lookups for the reconciler

    def find_move(
        self, from_square: str | int | None, to_square: str | int | None, flag: bool = False
    ) -> Move:
        """The legal action with these squares: a step or leap (both
        squares), a huff removal (``to_square`` None, the soldier on
        ``from_square``).  Raises :class:`IllegalMoveError`."""
        frm = -1 if from_square is None else self._point(from_square)
        to = -1 if to_square is None else self._point(to_square)
        for m in self.legal_moves():
            if m.kind == STEP and m.frm == frm and m.to == to and m.flag == flag:
                return m
            if m.kind == REMOVE and to < 0 and m.to == frm:
                return m
        if self._outcome is not None:
            raise IllegalMoveError("the game is over")
        parts = [self._names[x] for x in (frm, to) if x >= 0]
        raise IllegalMoveError(
            f"no legal {'-'.join(parts) or 'pass'} for the {self.to_move} in {self.position()}"
        )

    def parse_move(self, text: str) -> Move:
        """The legal action written ``text`` (``-`` and ``x`` alike)."""
        from .leap_notation import parse_action

        kind, frm, to = parse_action(self.geometry, text)
        if self._outcome is not None:
            raise IllegalMoveError(f"{text}: the game is over")
        for m in self.legal_moves():
            if m.kind == kind and m.frm == frm and m.to == to:
                return m
        raise IllegalMoveError(
            f"illegal move {text!r} for the {self.to_move} in {self.position()}"
        )

    # ------------------------------------------------------------------
    # Playing

    def play(self, move: Move | str) -> Move:
        """Play one action (a legal :class:`Move` or its notation)."""
        if isinstance(move, str):
            m = self.parse_move(move)
        else:
            m = move
            # The Move objects are shared: the one legal_moves gave is found
            # by identity; any other by its fields.
            raws = self._raw_moves()
            if not (self._legal_of is raws and any(x is m for x in self._legal)):
                key = (m.kind, m.frm, m.to)
                if m.flag or not any(r[:3] == key for r in raws):
                    raise IllegalMoveError(f"illegal move {m} in {self.position()}")
        self._apply(m.kind, m.frm, m.to)
        return self._history[-1][1]

    def play_all(self, moves: Iterable[Move | str]) -> None:
        for m in moves:
            self.play(m)

    def state(self) -> LeapState:
        """The current position as a typed value."""
        return LeapState(
            self._bb[0],
            self._bb[1],
            self._kings,
            self._side,
            self._chain,
            self._turn,
            self._noprog,
            self._huff,
            self._outcome,
            self._huffed,
        )

    def _restore(self, s: LeapState) -> None:
        self._bb = [s.attacker, s.defender]
        self._kings = s.kings
        self._side = s.side
        self._chain = s.chain
        self._turn = s.turn
        self._noprog = s.no_progress
        self._huff = s.huff
        self._outcome = s.outcome
        self._huffed = s.huffed
        self._cache = None

    # ------------------------------------------------------------------
    # The low-level interface (as Game's)

    def raw_moves(self) -> list[Raw]:
        """The legal actions as raw tuples, in :meth:`legal_moves` order.
        The list is shared: do not change it."""
        return self._raw_moves()

    def push(self, kind: str, frm: int, to: int, flag: bool = False) -> None:
        """Play a raw action known to be legal (no check; undo with :meth:`pop`)."""
        self._apply(kind, frm, to)

    def captures(self, frm: int, to: int) -> int:
        """The bitboard of the enemy soldier a move of the side to move from
        ``frm`` to ``to`` would take (0 for a step)."""
        over = self._t.over[frm].get(to, 0)
        return over & self._bb[1 - self._side]

    @property
    def ply(self) -> int:
        """How many actions have been played."""
        return len(self._history)

    @property
    def last_move(self) -> Move | None:
        return self._history[-1][1] if self._history else None

    @property
    def history(self) -> Sequence[tuple[LeapState, Move]]:
        """Every action played with the state before it, oldest first."""
        return self._history

    def pop(self) -> Move:
        """Undo the last action and return it."""
        if not self._history:
            raise IndexError("pop from a game with no moves")
        snap, move = self._history.pop()
        key = self._counted.pop()
        if key is not None:
            n = self._repetitions[key] - 1
            if n:
                self._repetitions[key] = n
            else:
                del self._repetitions[key]
        self._restore(snap)
        return move

    def _apply(self, kind: str, frm: int, to: int) -> None:
        side = self._side
        snap = self.state()
        self._cache = None
        bb = self._bb
        if kind == REMOVE:
            bit = 1 << to
            self._history.append((snap, self._move(REMOVE, -1, to, False)))
            bb[1 - side] &= ~bit
            self._kings &= ~bit
            self._huff = 0
            self._huffed = True  # progress: the turn's step counts it (see below)
            self._after_huff()
            self._counted.append(None)
            return
        if kind == PASS:
            self._history.append((snap, self._move(PASS, -1, -1, False)))
            self._end_turn(side, True, 0)
            return
        over = self._t.over[frm].get(to, 0) & bb[1 - side]
        self._history.append((snap, self._move(STEP, frm, to, bool(over))))
        frm_bit, to_bit = 1 << frm, 1 << to
        huff = 0
        if not over and self._chain < 0 and self._huffing:
            huff = self._can_leap(bb[side], side)
            if huff & frm_bit:
                huff ^= frm_bit | to_bit
        bb[side] ^= frm_bit | to_bit
        kings = self._kings
        was_man = not kings & frm_bit
        if not was_man:
            kings ^= frm_bit | to_bit
        crowned = was_man and bool(self._t.far_row[side] & to_bit)
        if crowned:
            kings |= to_bit
        if over:
            bb[1 - side] &= ~over
            kings &= ~over
        self._kings = kings
        if over and bb[1 - side] and not (crowned and self._ends_chain):
            enemy = bb[1 - side]
            empty = self._full & ~(bb[side] | enemy)
            if leaps_at(self._t, KING if kings & to_bit else side, to, enemy, empty):
                self._chain = to
                self._counted.append(None)
                return
        progress = bool(over) or (was_man and self._men_progress) or self._huffed
        self._end_turn(side, progress, huff)

    def _after_huff(self) -> None:
        """The huff taken, the side to move's step to come: it has won if
        that was the last enemy soldier, lost if it has no step."""
        side = self._side
        if not self._bb[1 - side]:
            self._finish(side, Termination.ALL_CAPTURED)
        elif not self._has_move(side):
            self._finish(1 - side, Termination.BLOCKED)

    def _end_turn(self, mover: int, progress: bool, huff: int) -> None:
        """Close the mover's turn and hand over to the other side."""
        self._chain = -1
        self._turn += 1
        self._noprog = 0 if progress else self._noprog + 1
        self._huffed = False
        opp = 1 - mover
        self._side = opp
        self._huff = huff
        if not self._bb[opp]:
            self._finish(mover, Termination.ALL_CAPTURED)
        elif not huff:
            self._start_turn()
        self._check_limits()
        if self._repetition:
            self._count_position(self._counted)
        else:
            self._counted.append(None)

    def _check_limits(self) -> None:
        """Draw a game still in play at its turn or no-progress limit."""
        if self._outcome is None:
            if self._turn_limit and self._turn > self._turn_limit:
                self._finish(None, Termination.TURN_LIMIT)
            elif self._noprog_limit and self._noprog >= self._noprog_limit:
                self._finish(None, Termination.NO_PROGRESS)

    def _start_turn(self) -> None:
        """The side to move loses if it has no legal move (the moves found
        are kept for :meth:`raw_moves`)."""
        self._cache = moves = self._generate()
        if not moves:
            side = self._side
            reason = Termination.BLOCKED if self._bb[side] else Termination.ALL_CAPTURED
            self._finish(1 - side, reason)

    def _count_position(self, record: list[tuple[int, ...] | None] | None) -> None:
        """Count the position at the start of a turn for repetition (the
        third occurrence draws); ``record`` gets the key counted (or None)
        for :meth:`pop`."""
        key = None
        if self._repetition and self._outcome is None:
            key = (self._bb[0], self._bb[1], self._kings, self._side, self._huff)
            n = self._repetitions.get(key, 0) + 1
            self._repetitions[key] = n
            if n >= 3:
                self._finish(None, Termination.REPETITION)
        if record is not None:
            record.append(key)

    def _finish(self, winner: int | None, reason: Termination) -> None:
        name = SIDE_NAMES[winner] if winner is not None else None
        self._outcome = Outcome(name, reason.value)
        self._cache = None

    # ------------------------------------------------------------------
    # Endings by the players

    def resign(self, side: str | None = None) -> None:
        """``side`` (default: the side to move) resigns."""
        s = self._side if side is None else SIDE_NAMES.index(side)
        self._end_by_players(1 - s, Termination.RESIGNATION)

    def agree_draw(self) -> None:
        """Both players agree a draw."""
        self._end_by_players(None, Termination.AGREEMENT)

    def _end_by_players(self, winner: int | None, reason: Termination) -> None:
        if self._outcome is not None:
            raise IllegalMoveError("the game is over")
        snap = self.state()
        self._history.append((snap, Move(reason.value, names=self._names)))
        self._counted.append(None)
        self._finish(winner, reason)
