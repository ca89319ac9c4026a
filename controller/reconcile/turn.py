"""What the reconciler's search reads and answers with: an explanation
(:class:`Candidate`), the pieces taken off that still stand
(:class:`Pending`), how the hands moved (:class:`Clues`), and the turn
those make up (:class:`Turn`); :func:`fits` and :func:`difference` compare
a reading with a board; :func:`chain_takes` is what a chain may capture."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.board.events import Frame
from controller.rules import AnyGame
from controller.rules.moves import PLACE, STEP, Move

__all__ = ["Candidate", "Clues", "Pending", "Turn", "chain_reach", "chain_takes", "difference",
           "ends_on", "filled_first", "fits", "shown_since_undo"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One explanation: its actions and the board (a, d) after them."""

    actions: tuple[Move, ...]
    a: int
    d: int
    gone_a: int  # pieces the rules took off during the actions, by colour
    gone_d: int
    exchanged: int  # of those, the ones an exchange took
    proof: int = 0  # squares the readings must have shown occupied
    entered: int = 0  # squares the moving soldier stepped onto
    weak: bool = False  # a step that leaves no piece where there was none (unproven)
    # points the run steps onto that it emptied before (a piece it
    # captured, or the square its soldier began on): proven only if filled
    # again after the soldier left the point before
    retaken: int = 0


@dataclass(slots=True)
class Pending:
    """Pieces the rules took off that still stand on the board, by colour;
    ``exchanged`` marks those an exchange took (the rest were captured)."""

    a: int = 0
    d: int = 0
    exchanged: int = 0

    @property
    def bits(self) -> int:
        return self.a | self.d

    def copy(self) -> Pending:
        return Pending(self.a, self.d, self.exchanged)

    def clear(self) -> None:
        self.a = self.d = self.exchanged = 0

    def add(self, c: Candidate) -> None:
        """The pieces ``c`` took off join those standing."""
        occ = c.a | c.d
        self.a = (self.a | c.gone_a) & ~occ
        self.d = (self.d | c.gone_d) & ~occ
        self.exchanged |= c.exchanged

    def keep(self, occupied: int) -> None:
        """Forget the pieces lifted off (not in ``occupied``)."""
        self.a &= occupied
        self.d &= occupied
        self.exchanged &= self.a | self.d


@dataclass(frozen=True, slots=True)
class Clues:
    """How the hands moved since the board last read an action (a reading
    shown as a soldier in the hand, that nothing explains, or that shows
    the board as it was does not count): proof for some explanations and
    the tie-breakers between those that leave the same board."""

    origin: int = 0  # expected pieces that went missing first
    held: int = 0  # the soldier in the hand at the previous settled reading
    landed: int = 0  # squares of the latest piece set down
    seen: int = 0  # squares shown occupied since the board last read an action
    emptied: int = 0  # expected pieces shown gone since the board last read an action
    gone: tuple[int, ...] = ()  # the expected points now empty, in the order they went
    went: Mapping[int, float] = field(default_factory=dict)  # when each emptied point went
    filled: Mapping[int, float] = field(default_factory=dict)  # when each square last filled
    left: Mapping[int, float] = field(default_factory=dict)  # when each square last emptied
    first: Mapping[int, float] = field(default_factory=dict)  # when each square first filled
    # The clues the last action read was read with (None: none, or an undo
    # since): what the hands did for the turn, were it made again.
    before: Clues | None = None

    def with_before(self) -> Clues:
        """These clues and those before the board last read an action, as
        one: what the hands did since the last turn read began (a turn
        made again is proven by both)."""
        b = self.before
        if b is None:
            return self
        went = {**self.went, **b.went}  # when each first went: the earlier
        gone = tuple(sorted(set(b.gone) | set(self.gone), key=lambda p: (went.get(p, 0.0), p)))
        return Clues(b.origin or self.origin, b.held | self.held, self.landed,
                     b.seen | self.seen, b.emptied | self.emptied, gone, went,
                     {**b.filled, **self.filled}, {**b.left, **self.left},
                     {**self.first, **b.first})


@dataclass(slots=True)
class Turn:
    """What the search reads besides the game and the reading."""

    pending: Pending = field(default_factory=Pending)
    flags: list[bool] = field(default_factory=lambda: [False, False])  # exchange, per side
    expected: Move | None = None  # the computer's action: only it is accepted
    clues: Clues = Clues()
    thinking: bool = False  # the computer's action is being searched: nothing is accepted
    # The side the computer plays (0, 1; None: none): the board shown as a
    # position with that side to move is no takeback (its own soldiers
    # lifted: put back), since its actions are the computer's to take back;
    # and a person's optional chain is stopped only by the computer's reply.
    computer: int | None = None
    # The computer's reply to a pass that stops the person's optional chain
    # (None: not chosen yet): the one action after that pass accepted.
    after_pass: Move | None = None
    # The board an undo left, not yet put back (None: none): a run read
    # meanwhile must have been made since, each of its steps onto a point
    # filled since the undo or empty on that board (:func:`shown_since_undo`).
    undone: int | None = None


def difference(game: AnyGame, pend: Pending, r: Frame) -> int:
    """The squares where reading ``r`` differs from ``game``'s board, the
    pieces ``pend`` (taken off by the rules) allowed to stand. Once the
    game is over, a soldier taken off is the board being cleared for the
    next game, as the status asks: not a difference."""
    a, d = game.bitboards()
    diff = (r.occupied ^ (a | d)) & ~(pend.bits & r.occupied)
    if game.outcome is not None:
        diff &= r.occupied
    if r.colour:
        diff |= (r.attacker & d) | (r.defender & a)
        diff |= r.attacker & pend.d | r.defender & pend.a
    return diff


def fits(r: Frame, a: int, d: int, pend_a: int = 0, pend_d: int = 0) -> bool:
    """Is reading ``r`` the board (a, d), with some of the pieces
    ``pend_a``/``pend_d`` (taken off by the rules) still standing?"""
    occ = a | d
    if r.colour:
        return (
            r.attacker & a == a
            and r.defender & d == d
            and r.attacker & ~a & ~pend_a == 0
            and r.defender & ~d & ~pend_d == 0
        )
    return r.occupied & occ == occ and r.occupied & ~occ & ~(pend_a | pend_d) == 0


def shown_since_undo(c: Candidate, turn: Turn) -> bool:
    """While an undo's board is being put back (``turn.undone``), was ``c``
    made since? Each step onto a point filled since the undo, or empty on
    the board it left (passed over unseen). A board met on the way back (a
    capture's captured soldier set back first shows that capture made, its
    captured piece standing) is no run made."""
    undone = turn.undone
    return undone is None or all(
        m.to in turn.clues.filled or not undone >> m.to & 1
        for m in c.actions if m.kind in (STEP, PLACE))


def ends_on(c: Candidate, squares: int) -> bool:
    """Does the last step of ``c`` end on one of ``squares``?"""
    last = next((m for m in reversed(c.actions) if m.kind == STEP), None)
    return last is not None and bool(squares >> last.to & 1)


def filled_first(c: Candidate, clues: Clues, frm: int | None = None) -> bool:
    """Was the last point ``c`` steps to filled before its soldier left
    its own (``frm``; by default its first step's point): the piece there
    another's, set down earlier?"""
    steps = [m for m in c.actions if m.kind == STEP]
    if not steps:
        return False
    went = clues.went.get(steps[0].frm if frm is None else frm)
    filled = clues.filled.get(steps[-1].to)
    return went is not None and filled is not None and filled < went


def chain_reach(g: AnyGame, frm: int, depth: int) -> int:
    """The points the soldier on ``frm`` may step to this turn, on any
    step of a chain (``depth`` steps at most)."""
    return _chain(g, frm, depth, -1)[0]


def chain_takes(g: AnyGame, frm: int, depth: int, but: int = -1) -> int:
    """The pieces a capture chain of the soldier on ``frm`` may take, on
    any of its steps (``depth`` steps at most; not by way of a first step
    to ``but``)."""
    return _chain(g, frm, depth, but)[1]


def _chain(g: AnyGame, frm: int, depth: int, but: int) -> tuple[int, int]:
    """The points the soldier on ``frm`` may step to this turn and the
    pieces it may take, on any step of a chain (``depth`` steps at most;
    not by way of a first step to ``but``)."""
    reach = takes = 0
    for m in g.legal_moves():
        if m.kind != STEP or m.frm != frm or m.to == but:
            continue
        reach |= 1 << m.to
        if not m.capture:
            continue
        takes |= g.captures(m.frm, m.to)
        if depth > 1:
            g.play(m)
            try:
                if g.chain_point == m.to and g.outcome is None:
                    more = _chain(g, m.to, depth - 1, -1)
                    reach, takes = reach | more[0], takes | more[1]
            finally:
                g.pop()
    return reach, takes
