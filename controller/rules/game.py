"""The game: the public API of the rules engine over :class:`~.core.Core`.

Pieces are kept as two bitboards (see :mod:`controller.board.geometry`).
Internally an action is a raw tuple (:data:`~.state.Raw`); the shared
:class:`~.moves.Move` objects are the API's view of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from . import hajeb
from .core import Core, Entry, noprog_cap, turn_cap
from .moves import (
    HAJEB,
    PLACE,
    REMOVE,
    RESCIND,
    SIDE_NAMES,
    STEP,
    IllegalMoveError,
    Move,
    PositionError,
    Termination,
)
from .notation import format_position, parse_action, parse_position
from .state import Exchange, Raw, State
from .tables import MoveTable
from .variants import Variant
from .views import BoardViews

__all__ = ["Game", "Exchange", "Raw", "State"]


class History(Sequence[tuple[State, Move]]):
    """The actions played, each with the state before it, oldest first: a
    read-only view of a game's undo entries, made into values on access."""

    def __init__(self, entries: list[Entry], moves: MoveTable) -> None:
        self._entries = entries
        self._table = moves

    def __len__(self) -> int:
        return len(self._entries)

    def _item(self, e: Entry) -> tuple[State, Move]:
        return State(*e[:13], e[14]), self._table[e[13]]

    @overload
    def __getitem__(self, i: int) -> tuple[State, Move]: ...

    @overload
    def __getitem__(self, i: slice) -> list[tuple[State, Move]]: ...

    def __getitem__(self, i: int | slice) -> tuple[State, Move] | list[tuple[State, Move]]:
        if isinstance(i, slice):
            return [self._item(e) for e in self._entries[i]]
        return self._item(self._entries[i])

    def __iter__(self) -> Iterator[tuple[State, Move]]:
        for e in self._entries:
            yield self._item(e)


class Game(BoardViews, Core):
    """A game of one variant, from any position, with undo.

    Use :meth:`new` or :meth:`from_position` to make one.
    """

    def __new__(cls, variant: str | Variant = "kharbga") -> Game:
        # A game of a variant the compiled core can play is made on it
        # (CompiledGame, docs/core.md); subclasses choose for themselves.
        if cls is Game:
            from .accel_game import game_class

            fast = game_class(variant)
            if fast is not Game:
                return fast.__new__(fast)
        return object.__new__(cls)

    def __init__(self, variant: str | Variant = "kharbga") -> None:
        super().__init__(variant)
        self._start: str | None = None

    # ------------------------------------------------------------------
    # Construction

    @classmethod
    def new(cls, variant: str | Variant = "kharbga") -> Game:
        """An empty board at the start of the setting phase."""
        return cls(variant)

    @classmethod
    def from_position(cls, variant: str | Variant, position: str) -> Game:
        """A game starting from a position string (docs/rules.md)."""
        game = cls(variant)
        game._restore(parse_position(game.variant, position))
        game._start = " ".join(position.split())
        if not game._setting:
            game._settle_loaded()
        return game

    def _settle_loaded(self) -> None:
        """A position read from a string: apply the blocked rule to a side
        to move that is blocked, end a game with a side without pieces or
        at its turn or no-progress limit (as the turn that led there would
        have), and count the position for repetition."""
        if self._bb[0] == 0 or self._bb[1] == 0:  # before the blocked rule, as a turn's end
            loser = 0 if self._bb[0] == 0 else 1
            self._finish(1 - loser, Termination.ALL_CAPTURED)
        elif not self._removals and self._chain < 0:
            self._start_turn(mover=1 - self._side)
        if self._outcome is None and self._chain < 0:
            if self._turn >= turn_cap(self.variant):
                self._finish(None, Termination.TURN_LIMIT)
            elif self._noprog >= noprog_cap(self.variant):
                self._adjudicate(Termination.NO_PROGRESS)
        self._count_position()
        if self._chain >= 0 and self._outcome is None and not self.legal_moves():
            name = self.variant.geometry.point_names[self._chain]
            raise PositionError(f"chain square {name}: its soldier has no capture to continue "
                                "(give - when the turn is over)")

    def copy(self) -> Game:
        """An independent copy, history included."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._bb = list(self._bb)
        other._undo = list(self._undo)
        other._counted = list(self._counted)
        other._repetitions = dict(self._repetitions)
        return other

    # ------------------------------------------------------------------
    # Read-only views

    @property
    def phase(self) -> str:
        return "setting" if self._setting else "moving"

    @property
    def setting(self) -> bool:
        """Is the game in the setting phase?"""
        return self._setting

    @property
    def turn(self) -> int:
        """Turn of the moving phase (1 is the Attacker's first; 0 in setting)."""
        return self._turn

    @property
    def start_position(self) -> str | None:
        """The position string the game started from (None: the empty board)."""
        return self._start

    @property
    def exchange(self) -> Exchange | None:
        return self._exchange

    @property
    def no_progress(self) -> int:
        """Completed turns since the last capture or exchange."""
        return self._noprog

    @property
    def removals(self) -> tuple[int, ...]:
        """Sides still to remove one of their own pieces (``remove`` option)."""
        return self._removals

    @property
    def moves(self) -> list[Move]:
        """Every action played so far, in order."""
        table = self._t.moves
        return [table[e[13]] for e in self._undo]

    def off_board(self, side: str | int) -> tuple[int, int, int]:
        """Pieces of ``side`` captured, exchanged and removed."""
        s = side if isinstance(side, int) else SIDE_NAMES.index(side)
        return self._off[s]

    def in_hand(self, side: str | int) -> int:
        """Pieces of ``side`` still to place in the setting phase."""
        s = side if isinstance(side, int) else SIDE_NAMES.index(side)
        if not self._setting:
            return 0
        return self.variant.pieces_per_side - self._bb[s].bit_count()

    def position(self) -> str:
        """The position string (docs/rules.md), with extra fields as needed."""
        return format_position(self.variant, self.state())

    def __repr__(self) -> str:
        return f"Game({self.variant.name!r}, {self.position()!r})"

    # ------------------------------------------------------------------
    # Moves

    def legal_moves(self) -> list[Move]:
        """Every legal single action for the side to move."""
        moves = self._moves
        return (self._generated()[1] if moves is None else moves)[:]

    def find_move(
        self, from_square: str | int | None, to_square: str | int | None, flag: bool = False
    ) -> Move:
        """The legal action with these squares: a step (both squares), a
        placement (``from_square`` None), a removal (``to_square`` None, the
        piece on ``from_square``).  Raises :class:`IllegalMoveError`."""
        frm = -1 if from_square is None else self._point(from_square)
        to = -1 if to_square is None else self._point(to_square)
        for m in self._generated()[1]:
            if m.kind == STEP and m.frm == frm and m.to == to and m.flag == flag:
                return m
            if m.kind == PLACE and frm < 0 and m.to == to:
                return m
            if m.kind == REMOVE and to < 0 and m.to == frm:
                return m
        raise IllegalMoveError(self._describe_illegal(frm, to))

    def _describe_illegal(self, frm: int, to: int) -> str:
        names = self._names
        if self._outcome is not None:
            return "the game is over"
        parts = [names[x] for x in (frm, to) if x >= 0]
        return f"no legal {'-'.join(parts) or 'pass'} for the {self.to_move} in {self.position()}"

    def parse_move(self, text: str) -> Move:
        """The legal action written ``text`` (``-`` and ``x`` alike)."""
        kind, frm, to, flag = parse_action(self.geometry, text)
        if kind in (HAJEB, RESCIND):
            return self._hajeb_move(kind)
        if self._outcome is not None:
            raise IllegalMoveError(f"{text}: the game is over")
        for m in self._generated()[1]:
            if m.kind == kind and m.frm == frm and m.to == to and m.flag == flag:
                return m
        raise IllegalMoveError(
            f"illegal move {text!r} for the {self.to_move} in {self.position()}"
        )

    def play(self, move: Move | str) -> Move:
        """Play one action (a legal :class:`Move` or its notation)."""
        m = self.parse_move(move) if isinstance(move, str) else move
        if m.kind in (HAJEB, RESCIND):
            played = self._hajeb_move(m.kind)  # checks it is allowed
            self._do((m.kind, -1, -1, 0, False))
            return played
        raws, moves = self._raws, self._moves
        if raws is None or moves is None:
            raws, moves = self._generated()
        try:  # the shared Move objects are found by identity, in C
            i = list(map(id, moves)).index(id(m))
        except ValueError:
            try:
                i = moves.index(m)
            except ValueError:
                raise IllegalMoveError(f"illegal move {m} in {self.position()}") from None
        self._do(raws[i])
        return m

    def play_all(self, moves: Iterable[Move | str]) -> None:
        for m in moves:
            self.play(m)

    # ------------------------------------------------------------------
    # H'ajeb (rule option ``hajeb``; see controller/rules/hajeb.py)

    @property
    def hajeb(self) -> str:
        """The H'ajeb declaration: ``"off"``, ``"on"`` (in force) or
        ``"end"`` (ended: the removals are owed)."""
        return hajeb.STATE_WORDS[self._hajeb]

    @property
    def any_soldier_continues(self) -> bool:
        """After a capture under H'ajeb the Attacker's turn goes on with any
        of its soldiers (not only the one on :attr:`chain_point`)."""
        return self._hajeb == hajeb.IN_FORCE and self._chain >= 0 and self._side == 0

    def hajeb_refusal(self, action: str) -> str | None:
        """Why ``action`` (``"hajeb"`` to declare, ``"rescind"``) is not
        allowed now, in words; None when it is."""
        if action == HAJEB:
            return hajeb.declare_refusal(self)
        if action == RESCIND:
            return hajeb.rescind_refusal(self)
        raise ValueError(f"unknown H'ajeb action {action!r} (hajeb or rescind)")

    def hajeb_actions(self) -> list[Move]:
        """The H'ajeb actions the Defender may take now (not in
        :meth:`legal_moves`: rescinding is allowed on the Attacker's turn)."""
        return [
            self._t.moves[(k, -1, -1, 0, False)]
            for k in (HAJEB, RESCIND)
            if self.hajeb_refusal(k) is None
        ]

    def declare_hajeb(self) -> Move:
        """The Defender declares H'ajeb; :class:`IllegalMoveError` says why not."""
        return self.play(HAJEB)

    def rescind_hajeb(self) -> Move:
        """The Defender rescinds H'ajeb; :class:`IllegalMoveError` says why not."""
        return self.play(RESCIND)

    def _hajeb_move(self, kind: str) -> Move:
        reason = self.hajeb_refusal(kind)
        if reason is not None:
            word = "declare" if kind == HAJEB else "rescind"
            raise IllegalMoveError(f"cannot {word} H'ajeb: {reason}")
        return self._t.moves[(kind, -1, -1, 0, False)]

    # ------------------------------------------------------------------
    # The low-level interface for the reconciler and the engine: raw
    # actions (see ``Raw``) without Move objects or legality checks.

    def raw_moves(self) -> list[Raw]:
        """The legal actions as raw tuples, in :meth:`legal_moves` order.
        The list is shared: do not change it."""
        return self._generated()[0]

    def push(self, kind: str, frm: int, to: int, flag: bool = False) -> None:
        """Play a raw action known to be legal (no check; undo with :meth:`pop`)."""
        self._do(self._raw_step(kind, frm, to, flag))

    def push_raw(self, raw: Raw) -> None:
        """Play a raw tuple of :meth:`raw_moves` as it is (no check; its
        captured mask is trusted).  The fastest way to play."""
        self._do(raw)

    def captures(self, frm: int, to: int) -> int:
        """The bitboard of enemy pieces a step of the side to move from
        ``frm`` to ``to`` would take."""
        return self._captures(self._side, frm, to)

    @property
    def ply(self) -> int:
        """How many actions have been played (the length of the history)."""
        return len(self._undo)

    @property
    def last_move(self) -> Move | None:
        return self._t.moves[self._undo[-1][13]] if self._undo else None

    @property
    def history(self) -> Sequence[tuple[State, Move]]:
        """Every action played with the state before it, oldest first.
        Read only: a view of the game's own undo stack."""
        return History(self._undo, self._t.moves)

    def pop(self) -> Move:
        """Undo the last action and return it."""
        if not self._undo:
            raise IndexError("pop from a game with no moves")
        return self._t.moves[self._undo_one()]

    # ------------------------------------------------------------------
    # Endings by the players

    def resign(self, side: str | None = None) -> None:
        """``side`` (default: the side to move) resigns."""
        s = self._side if side is None else SIDE_NAMES.index(side)
        self._end_by_players(1 - s, Termination.RESIGNATION, minor=False)

    def agree_draw(self) -> None:
        """Both players agree a draw."""
        self._end_by_players(None, Termination.AGREEMENT, minor=False)

    def agree_barrier(self) -> None:
        """Both players agree no capture is possible any more: the side with
        more pieces wins (a minor win where wins are graded)."""
        a, d = (x.bit_count() for x in self._bb)
        winner = 0 if a > d else 1 if d > a else None
        self._end_by_players(winner, Termination.BARRIER, minor=True)

    def _end_by_players(self, winner: int | None, reason: Termination, minor: bool) -> None:
        if self._outcome is not None:
            raise IllegalMoveError("the game is over")
        bb = self._bb
        self._undo.append((
            bb[0], bb[1], self._side, self._setting, self._chain, self._turn, self._exchange,
            self._noprog, self._removals, self._resume, self._turn_captured, self._off,
            self._outcome, (reason.value, -1, -1, 0, False), self._hajeb,
        ))  # fmt: skip
        self._finish(winner, reason, minor)
