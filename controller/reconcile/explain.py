"""Explaining a settled reading as actions: the reconciler's search.

Given the game, a settled reading, and what else the board holds (a
:class:`Turn`: captured pieces still standing, the exchange flags, the
computer's expected action, and :class:`Clues` from how the hands moved),
an :class:`Explainer` answers:

- does the reading show nothing new (:meth:`Explainer.nothing_new`);
- which run of legal actions leaves the board the reading shows
  (:meth:`Explainer.explain`), and which runs fit it that occupancy cannot
  prove (:meth:`Explainer.unproven`);
- is a soldier of the side to move in the hand, and where may it go
  (:meth:`Explainer.lift`);
- which one piece, knocked off while an action was made, is all that keeps
  the reading from being that action (:meth:`Explainer.knocked`).

The search plays actions on the game to look ahead and takes them back
before it returns: the game is left as it was given.  The runs of actions
it ranks come from :class:`.runs.Runs`, generated once a position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from controller.board.events import Frame
from controller.board.geometry import points
from controller.rules import AnyGame, Game, LeapGame
from controller.rules.moves import PASS, PLACE, REMOVE, STEP, Move

from .runs import Runs
from .settings import Settings
from .turn import (
    Candidate,
    Clues,
    Pending,
    Turn,
    chain_takes,
    ends_on,
    filled_first,
    fits,
    shown_since_undo,
)

__all__ = ["Explainer", "stop_answered"]

_KNOCKED = 3  # most pieces missing for one of them to be tried as knocked off


class Explainer:
    """The search over each position's runs (:class:`Runs`, cached)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._runs = Runs(settings)

    # ------------------------------------------------------------------
    # Questions

    def nothing_new(self, game: AnyGame, r: Frame, pending: Pending) -> bool:
        """The expected board, perhaps with captured pieces still standing."""
        a, d = game.bitboards()
        return fits(r, a, d, pending.a, pending.d)

    def explain(
        self, game: AnyGame, r: Frame, turn: Turn, weak_ok: bool = True
    ) -> Candidate | None:
        """The best explanation (see :meth:`_best`); where the computer's
        choice decides it (:func:`_decided`: its action awaited, or a pass
        ending the person's chain), only what that choice allows, the best
        one or another that ``r`` shows."""
        if turn.thinking:
            return None
        cand = self._best(game, r, turn, weak_ok)
        if cand is not None and not shown_since_undo(cand, turn):
            return None  # the board being put back after an undo, not that run
        stopping = stop_answered(game, turn)
        if cand is None or not _decided(turn, cand, stopping) or _allowed(turn, cand, stopping):
            return cand
        if game.phase == "moving":
            for c in self.candidates(game, turn.flags):
                if _decided(turn, c, stopping) and _allowed(turn, c, stopping) \
                        and _fits_candidate(r, c, turn):
                    return c
        return None

    def unproven(self, game: AnyGame, r: Frame, turn: Turn) -> list[Candidate]:
        """Explanations of ``r`` that occupancy cannot prove, fewest actions
        first: a soldier stepping onto a piece it captured while that piece
        still stands, or steps that leave no piece where there was none.
        Both look like a soldier in the hand.  Only what the computer's
        choice allows (:func:`_allowed`): one of these, proven by the next
        reading, is played as it stands."""
        held = _chain_held(game, r, turn.clues)
        stopping = stop_answered(game, turn)
        found = [c for c in self.candidates(game, turn.flags)
                 if _fits_candidate(r, c, turn) and _is_weak(c, r, turn)
                 and not _ends_held_chain(c, game, held) and _allowed(turn, c, stopping)]
        # Fewest actions, and of those first the run whose soldier ends
        # where a piece was last set down.
        landed = turn.clues.landed
        found.sort(key=lambda c: (len(c.actions), not ends_on(c, landed)))
        return found[: self.settings.max_unproven]

    def lift(self, game: AnyGame, r: Frame, turn: Turn) -> tuple[int, int] | None:
        """A soldier of the side to move in the hand: its point and the
        points it may go to.  While an optional chain waits, the opponent
        may already be lifting one (an implied pass); while a huff is owed,
        the huffed soldier may already be off."""
        g = game
        if g.outcome is not None or g.phase != "moving":
            return None
        found = [_lift(g, r, turn)]
        if g.chain_point >= 0 and any(m.kind == PASS for m in g.legal_moves()):
            # The computer's soldier lifted to stop the chain: its reply's only.
            other = (replace(turn, expected=turn.after_pass, thinking=turn.after_pass is None)
                     if stop_answered(g, turn) else turn)
            g.push(PASS, -1, -1, False)
            try:
                found.append(_lift(g, r, other))
            finally:
                g.pop()
        huffed = g.huff & ~r.occupied & ~r.unknown if isinstance(g, LeapGame) else 0
        if huffed.bit_count() == 1:  # the huff made, and the move after it begun
            g.push(REMOVE, -1, huffed.bit_length() - 1, False)
            try:
                found.append(_lift(g, r, turn))
            finally:
                g.pop()
        options = [f for f in found if f is not None]
        if not options:
            return None
        # The chain soldier, or the opponent's piece after an implied pass:
        # the one already in the hand, else the one lifted first since the
        # board last settled.
        held, origin = turn.clues.held, turn.clues.origin
        options.sort(key=lambda f: (not held >> f[0] & 1, not origin >> f[0] & 1))
        return options[0]

    def misplaced(self, game: AnyGame, r: Frame, turn: Turn) -> tuple[int, int] | None:
        """A soldier of the side to move set down on one empty point it
        cannot go to: the soldier's point and the points it can go to, as
        :meth:`lift` gives them with that point empty (None: the reading
        is not that)."""
        a, d = game.bitboards()
        extra = r.occupied & ~(a | d) & ~turn.pending.bits
        if extra.bit_count() != 1 or (r.colour and not (r.attacker, r.defender)[game.side] & extra):
            return None
        keep = ~extra
        found = self.lift(game, replace(r, occupied=r.occupied & keep, attacker=r.attacker & keep,
                                        defender=r.defender & keep), turn)
        return None if found is None or found[1] & extra else found

    def knocked(self, game: AnyGame, r: Frame, turn: Turn) -> int:
        """A piece knocked off its square while an action was made: the one
        expected piece missing from ``r`` that, set back, leaves a reading
        a legal run of actions explains (0: there is none)."""
        a, d = game.bitboards()
        missing = (a | d) & ~r.occupied & ~r.unknown
        if not 0 < missing.bit_count() <= _KNOCKED:
            return 0
        for p in points(missing):
            bit = 1 << p
            back = replace(r, occupied=r.occupied | bit)
            if r.colour:
                back = replace(back, attacker=r.attacker | bit & a, defender=r.defender | bit & d)
            if self.explain(game, back, turn, weak_ok=False) is not None:
                return bit
        return 0

    def huff_first(self, game: AnyGame, r: Frame, turn: Turn) -> int:
        """A huff owed and the move after it made, but the huffed soldier
        still standing: the soldiers of which, once one is taken off, the
        reading is the huff and the move (0: there is none)."""
        if not isinstance(game, LeapGame):
            return 0
        found = 0
        for p in points(game.huff & r.occupied):
            bit = 1 << p
            keep = ~bit
            off = replace(r, occupied=r.occupied & keep, attacker=r.attacker & keep,
                          defender=r.defender & keep)
            if self.explain(game, off, turn, weak_ok=False) is not None:
                found |= bit
        return found

    def two_turns(self, game: AnyGame, r: Frame, turn: Turn) -> Candidate | None:
        """A turn and the opponent's reply, both made before the board
        settled (quick hands): the turn, if its soldier was seen on every
        point it stepped to and gone from its own since the board last read
        an action, its last point filled since then (not only a piece seen
        there before the soldier standing on it left), every piece it huffs
        seen taken off (a reply onto that point refills it), and ``r`` shows the
        reply begun after it (:meth:`followed`). The best-ranked such turn;
        None if there is none."""
        g = game
        if g.phase != "moving" or g.outcome is not None or turn.expected or turn.thinking \
                or turn.computer is not None:  # the computer's reply is lit, not guessed
            return None
        clues = turn.clues
        best: Candidate | None = None
        held = _chain_held(g, r, clues)
        for c in self.candidates(g, turn.flags):
            steps = [m for m in c.actions if m.kind == STEP]
            if not steps or _ends_held_chain(c, g, held) \
                    or any(not clues.seen >> m.to & 1 for m in steps) \
                    or steps[-1].to not in clues.filled or not shown_since_undo(c, turn) \
                    or not clues.emptied >> steps[0].frm & 1 \
                    or any(m.kind == REMOVE and not clues.emptied >> m.to & 1
                           for m in c.actions) \
                    or (r.occupied | clues.seen) & c.proof != c.proof:
                continue
            if (best is None or _first_rank(c, clues) < _first_rank(best, clues)) \
                    and self.followed(g, r, turn, c):
                best = c
        return best

    def followed(self, g: AnyGame, r: Frame, turn: Turn, c: Candidate,
                 lifted: bool = True, unless: int = 0) -> bool:
        """Does ``r`` show ``c`` made, its turn over, and the other side's
        turn begun: a soldier of that side stepped, a step the board
        proves (a run it cannot prove is no more proof of ``c`` than
        ``c`` is; nor one ending on a point of ``unless``, where another
        soldier may have landed), or, if ``lifted``, lifted off its square
        after ``c``'s soldier first landed?  A huff alone is not that: it
        looks the same as the soldier that moved lifted again."""
        flags = turn.flags[:]
        pending = turn.pending.copy()
        pending.add(c)
        mover = g.side
        for m in c.actions:
            mover = g.side  # after an implied pass, the other side
            if m.kind == STEP:
                flags[mover] = False  # a step lowers its side's flag
            g.push(m.kind, m.frm, m.to, m.flag)
        try:
            after = Turn(pending, flags, None, turn.clues, turn.thinking)
            reply = self.explain(g, r, after, weak_ok=False)
            if reply is not None and (filled_first(reply, turn.clues) or ends_on(reply, unless)):
                reply = None  # its landing stood before its soldier left: no proof
            if reply is not None:
                if g.side == mover and reply.actions[0].kind != PASS:
                    return False  # the same turn going on
                return any(m.kind == STEP for m in reply.actions)
            # Or a capture chain of the reply back to its soldier's square:
            # only where a soldier of that side went and stands again.
            if g.side != mover and turn.clues.emptied & r.occupied & g.bitboards()[g.side] \
                    and _home_again(self.explain(g, r, after), turn.clues):
                return True
            held = self.lift(g, r, after) if lifted else None
            if held is None or not g.bitboards()[1 - mover] >> held[0] & 1:
                return False
            # Lifted before ``c``'s soldier landed: a piece ``c`` captures
            # taken off first, as likely as a reply begun.
            steps = [m for m in c.actions if m.kind == STEP]
            went = turn.clues.went.get(held[0])
            landed = turn.clues.first.get(steps[-1].to) if steps else None
            return went is None or landed is None or went > landed
        finally:
            for _ in c.actions:
                g.pop()

    # ------------------------------------------------------------------
    # The search

    def candidates(self, game: AnyGame, flags: Sequence[bool]) -> list[Candidate]:
        """Every run of actions within one turn from this position
        (:class:`Runs`)."""
        return self._runs.of(game, flags)

    def _best(self, g: AnyGame, r: Frame, turn: Turn, weak_ok: bool) -> Candidate | None:
        """The best-ranked explanation; one that occupancy cannot prove only
        if ``weak_ok`` and nothing stronger fits."""
        if g.outcome is not None:
            return None
        if g.phase == "setting":
            return _placements(g, r, turn.clues.landed)
        best: Candidate | None = None
        best_weak: Candidate | None = None
        clues = turn.clues
        held = _chain_held(g, r, clues)
        for c in self.candidates(g, turn.flags):
            if not _fits_candidate(r, c, turn) or _ends_held_chain(c, g, held):
                continue
            if _is_weak(c, r, turn):
                if best_weak is None or _rank(c, clues) < _rank(best_weak, clues):
                    best_weak = c
            elif best is None or _rank(c, clues) < _rank(best, clues):
                best = c
        if best is None and weak_ok:
            return best_weak
        return best

def _same(a: Move, b: Move) -> bool:
    return (a.kind, a.frm, a.to, a.flag) == (b.kind, b.frm, b.to, b.flag)


def _fits_candidate(r: Frame, c: Candidate, turn: Turn) -> bool:
    p = turn.pending
    clues = turn.clues
    first = next((m for m in c.actions if m.kind == STEP), None)
    if first is not None and r.occupied >> first.frm & 1 and \
            not (clues.emptied | clues.held) >> first.frm & 1:
        # A chain back to its own square: its soldier must have been
        # lifted, or taking one captured piece off reads as the whole chain.
        return False
    return (r.occupied | clues.seen) & c.proof == c.proof and fits(
        r, c.a, c.d, p.a | c.gone_a, p.d | c.gone_d
    )


def _chain_held(g: AnyGame, r: Frame, clues: Clues) -> bool:
    """Is an optional chain's soldier off its point, lifted first (or seen
    in the hand) since the board last read an action: the chain going on,
    not ended by an implied pass (the other side waits for that soldier)?"""
    p = g.chain_point
    return p >= 0 and not r.occupied >> p & 1 and bool((clues.held | clues.origin) >> p & 1)


def _ends_held_chain(c: Candidate, g: AnyGame, held: bool) -> bool:
    """``c`` ends the chain whose soldier is held (:func:`_chain_held`) and
    does not capture that soldier, or does with a soldier that the chain's
    next step would capture (lifted after the chain's soldier: that
    capture's piece taken off early): not what the hands did."""
    if not held or c.actions[0].kind != PASS:
        return False
    p = g.chain_point
    if not (c.gone_a | c.gone_d) >> p & 1:
        return True
    reply = next((m for m in c.actions if m.kind == STEP), None)
    return reply is not None and bool(chain_takes(g, p, 1) >> reply.frm & 1)


def _is_weak(c: Candidate, r: Frame, turn: Turn) -> bool:
    """Occupancy cannot prove ``c``: a step that leaves no piece where
    there was none, or a step onto a piece taken off that still stands
    (captured by an earlier reading's run, or by ``c`` itself before the
    step) or back onto the square ``c`` began on, unless that point's
    piece went since the board last read an action and the point was
    filled again after the moving soldier left the point before (that
    piece off, then the step there), and (for ``c``'s own) no other piece
    ``c`` captured was taken off and set back (that is the board of a
    reply onto the point, after the captures came off)."""
    if c.weak:
        return True
    if _set_back(c, r, turn.clues):
        return True
    onto = c.entered & turn.pending.bits
    if not onto and not c.retaken:
        return False
    clues = turn.clues
    if c.retaken and (c.gone_a | c.gone_d) & ~c.retaken & r.occupied & clues.emptied:
        return True
    steps = [m for m in c.actions if m.kind == STEP]
    for m in steps:
        if not (onto | c.retaken) >> m.to & 1:
            continue
        # when the soldier left the point before (the first step's, an
        # expected piece's: when it first went; a point the run reached, or
        # one a run read before it from the same reading reached: when it
        # was last emptied)
        frm = steps[0].frm if onto >> m.to & 1 else m.frm
        left = clues.went.get(frm, clues.left.get(frm)) if frm == steps[0].frm \
            else clues.left.get(frm)
        # (a captured piece still standing is no expected piece: its
        # going shows only as its square emptied, here before the soldier
        # left: taken off after it, then set down, it may be that piece
        # set back)
        went = clues.emptied >> m.to & 1 or bool(onto >> m.to & 1) and left is not None \
            and clues.left.get(m.to, left) < left
        if left is None or not went or clues.filled.get(m.to, left) <= left:
            return True
    return False


def _set_back(c: Candidate, r: Frame, clues: Clues) -> bool:
    """Does a piece ``c`` captures stand where it was taken off after
    ``c``'s soldier left its point: set back, or another piece landed
    there (a chain going on into that point, which occupancy cannot tell
    from ``c``)?"""
    first = next((m for m in c.actions if m.kind == STEP), None)
    went = clues.went.get(first.frm) if first is not None else None
    if went is None:
        return False
    back = (c.gone_a | c.gone_d) & ~c.retaken & r.occupied & clues.emptied
    return any(clues.left.get(p, went) > went for p in points(back))


def _rank(c: Candidate, clues: Clues) -> tuple[bool, bool, bool, int, int, int]:
    """Prefer a soldier taken off by its exchange on the square last set
    down, the soldier seen in the hand, the piece first lifted since the
    board last settled, the fewest actions, the fewest points stepped to
    that were not filled after the soldier left its own, then the steps
    in the order their points were filled (a chain round a square, one
    way or the other, takes the same pieces and ends on the same point)."""
    first = next((m for m in c.actions if m.kind != PASS), None)
    frm = 1 << first.frm if first is not None and first.frm >= 0 else 0
    landed = not c.proof or bool(c.proof & clues.landed)
    went = clues.went.get(first.frm, math.inf) if first is not None and first.frm >= 0 \
        else math.inf
    unseen = sum(1 for m in c.actions if m.kind == STEP and clues.filled.get(m.to, -1.0) < went)
    filled = [clues.filled.get(m.to, -1.0) for m in c.actions if m.kind == STEP]
    disorder = sum(1 for a, b in zip(filled, filled[1:], strict=False) if a > b)
    return (not landed, not frm & clues.held, not frm & clues.origin, len(c.actions), unseen,
            disorder)


def _first_rank(c: Candidate, clues: Clues) -> tuple[bool, float,
                                                     tuple[bool, bool, bool, int, int, int]]:
    """How likely ``c`` is the first of two turns read at once (lowest
    first): its soldier not the piece set down last (that is the reply's),
    then lifted before the other soldiers that went (when it went, its
    point perhaps filled again since by the reply), then :func:`_rank`."""
    steps = [m for m in c.actions if m.kind == STEP]
    went = clues.went.get(steps[0].frm, math.inf) if steps else math.inf
    return (ends_on(c, clues.landed), went, _rank(c, clues))


def _placements(g: AnyGame, r: Frame, landed: int = 0) -> Candidate | None:
    """One placement, or the two of this turn at once, read directly: in
    the order they were set down, the one on ``landed`` (the latest set
    down) last (a placement set on a wrong point and moved on keeps its
    place in the turn)."""
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
    if landed >> squares[0] & 1:
        orders.reverse()
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
        if len(done) == count and fits(r, after[0], after[1]):
            return Candidate(tuple(done), after[0], after[1], 0, 0, 0)
    return None


def stop_answered(g: AnyGame, turn: Turn) -> bool:
    """Is the side to move the person, in a chain, with the computer to
    answer a pass (the only way that chain stops)?  Not where a pass would
    end the game (the computer left without a move)."""
    if (turn.computer is None or g.outcome is not None or g.chain_point < 0
            or g.side == turn.computer or not any(m.kind == PASS for m in g.legal_moves())):
        return False
    g.push(PASS, -1, -1, False)
    try:
        return g.outcome is None
    finally:
        g.pop()


def _home_again(reply: Candidate | None, clues: Clues) -> bool:
    """Is ``reply`` a capture chain back to its soldier's own square, that
    soldier seen gone from it and its captures off? Occupancy cannot show
    its steps (nothing new stands), but the soldier lifted and the pieces
    gone are the reply begun."""
    if reply is None or not reply.gone_a | reply.gone_d:
        return False
    steps = [m for m in reply.actions if m.kind == STEP]
    return (len(steps) > 1 and steps[0].frm == steps[-1].to
            and bool(clues.emptied >> steps[0].frm & 1))


def _decided(turn: Turn, c: Candidate, stopping: bool) -> bool:
    """Is ``c`` for the computer's choice to decide: any run while its
    action is awaited, a pass while the person's chain is ``stopping``
    (:func:`stop_answered`) only with its reply?"""
    return turn.expected is not None or (stopping and c.actions[0].kind == PASS)


def _allowed(turn: Turn, c: Candidate, stopping: bool) -> bool:
    """Does the computer's choice allow ``c``: while its action is searched,
    nothing; while it is awaited, that action alone; in the person's chain
    (``stopping``), a pass only followed by the computer's chosen reply?"""
    if turn.thinking:
        return False
    if turn.expected is not None:
        return len(c.actions) == 1 and _same(c.actions[0], turn.expected)
    if c.actions[0].kind == PASS and stopping:
        want = turn.after_pass
        return want is not None and len(c.actions) == 2 and _same(c.actions[1], want)
    return True


def _lift(g: AnyGame, r: Frame, turn: Turn) -> tuple[int, int] | None:
    """The one soldier of the side to move missing from ``r`` (during a
    chain, the chaining soldier; while the computer's action is awaited,
    its soldier), with the points it may step to."""
    a, d = g.bitboards()
    own = (a, d)[g.side]
    enemy = (a, d)[1 - g.side]
    occ = a | d
    pend = turn.pending
    if r.occupied & ~occ & ~pend.bits:
        return None  # a piece where none should be
    if r.colour and (r.attacker & ~a & ~pend.a or r.defender & ~d & ~pend.d):
        return None
    missing = occ & ~r.occupied
    lifted = missing & own
    if g.chain_point >= 0 and not (isinstance(g, Game) and g.any_soldier_continues):
        lifted &= 1 << g.chain_point
    only = -1
    if turn.expected is not None and turn.expected.frm >= 0:
        lifted &= 1 << turn.expected.frm  # the computer's soldier only
        only = 1 << turn.expected.to  # and where it chose to go
    if turn.thinking:
        lifted = 0  # the computer has not chosen yet
    if lifted.bit_count() != 1:
        return None
    frm = lifted.bit_length() - 1
    # Pieces taken off early must be ones this soldier's capture takes, on
    # any of its steps (a chain's later captures too).
    takes = targets = 0
    for m in g.legal_moves():
        if m.kind == STEP and m.frm == frm and only >> m.to & 1:
            targets |= 1 << m.to
            takes |= g.captures(m.frm, m.to)
    if missing & ~lifted & ~(enemy & takes):
        takes |= chain_takes(g, frm, 8)
        if missing & ~lifted & ~(enemy & takes):
            return None
    return frm, targets
