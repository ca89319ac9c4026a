"""A game with the board before and after each of its actions: what a
takeback is matched against, and where the last turn begins."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from controller.board.events import Frame
from controller.rules import AnyGame, Game, State, game_from_position, new_game
from controller.rules.leap import LeapState
from controller.rules.moves import HAJEB, PASS, PLACE, REMOVE, RESCIND, STEP, Move

from .turn import Pending, fits

__all__ = ["Timeline", "captured_last_turn", "set_up_first"]

# Actions of the game's flow (not resign, draw): the H'ajeb button's too.
_PLAYED = (PLACE, STEP, PASS, REMOVE, HAJEB, RESCIND)


class Timeline:
    """``game`` and ``boards``: the (attacker, defender) bitboards at the
    start and after each action (a resignation or a draw repeats the board)."""

    def __init__(self, game: AnyGame) -> None:
        self.game = game
        self.boards = _boards_of(game)

    def push(self, kind: str, frm: int, to: int, flag: bool = False) -> None:
        self.game.push(kind, frm, to, flag)
        self.boards.append(self.game.bitboards())

    def ended_by_players(self) -> None:
        """The game just ended by a button (resignation, draw agreed)."""
        self.boards.append(self.game.bitboards())

    def pop(self) -> None:
        self.game.pop()
        self.boards.pop()

    def last_turn_length(self, before: int = 0) -> int:
        """How many actions the last turn took (0 if it cannot be redone);
        ``before``: the turn before the game's last ``before`` actions."""
        hist: Sequence[tuple[State | LeapState, Move]] = self.game.history
        end = len(hist) - before  # (a view of the undo stack: read, not copied)
        if end <= 0 or hist[end - 1][1].kind not in _PLAYED:
            return 0
        side = hist[end - 1][0].side
        n = 0
        for i in range(end - 1, -1, -1):
            snap, m = hist[i]
            if snap.side != side:
                break
            n += 1
            if m.kind == PLACE:
                if snap.placed % 2 == 0:
                    break
            elif m.kind == REMOVE or (m.kind == STEP and snap.chain == -1):
                break
        return n

    def takeback_point(self, r: Frame, not_to: int | None = None) -> int | None:
        """The latest earlier position that reading ``r`` shows (an index
        into ``boards``), or None.  One soldier of the side to move set down
        on a wrong square, or the soldier the last turn moved set down
        elsewhere, is no takeback beyond the last turn, even when the
        occupancy matches an older position.  A position with side
        ``not_to`` to move (the computer's) is none either."""
        boards = self.boards
        current = boards[-1]
        g = self.game
        occ = current[0] | current[1]
        missing = occ & ~r.occupied
        extra = r.occupied & ~occ
        last = g.last_move
        landed = 1 << last.to if last is not None and last.kind == STEP else 0
        displaced = (
            g.phase == "moving"
            and missing.bit_count() == 1
            and extra.bit_count() == 1
            and bool(missing & (current[g.side] | landed))
        )
        last_turn = len(boards) - 1 - self.last_turn_length()
        for k in range(len(boards) - 2, -1, -1):
            if displaced and k < last_turn:
                break
            a, d = boards[k]
            if (a, d) != current and fits(r, a, d) and not self._to_move(k, not_to):
                return k
        return None

    def _to_move(self, k: int, side: int | None) -> bool:
        """Is ``side`` to move at position ``k``?"""
        hist = self.game.history
        return side is not None and k < len(hist) and hist[k][0].side == side

    def owed(self, r: Frame) -> int:
        """A capture taken back by hand: the capturing soldier set back,
        the soldiers it took already off.  The squares of those soldiers
        (the other side's, taken by the steps of the last turn) that, set
        back, make ``r`` a position of that turn before its captures, the
        latest one (0: ``r`` is not that)."""
        g, boards = self.game, self.boards
        n = self.last_turn_length()
        if n == 0 or g.outcome is not None:
            return 0
        mover = g.history[-1][0].side
        now = boards[-1][0] | boards[-1][1]
        for k in range(len(boards) - 2, len(boards) - 2 - n, -1):
            if g.moves[k].kind != STEP:
                break
            a, d = boards[k]
            back = (a | d) & ~r.occupied & ~now
            if not back or back & ~(a, d)[1 - mover]:
                continue
            filled = replace(r, occupied=r.occupied | back, attacker=r.attacker | back & a,
                             defender=r.defender | back & d)
            if fits(filled, a, d):
                return back
        return 0


def _boards_of(game: AnyGame) -> list[tuple[int, int]]:
    """The board before and after each action of ``game``."""
    if game.ply == 0:
        return [game.bitboards()]
    start = game.start_position
    replay = game_from_position(game.variant, start) if start else new_game(game.variant)
    boards = [replay.bitboards()]
    for m in game.moves:
        if m.kind in _PLAYED:
            replay.push(m.kind, m.frm, m.to, m.flag)
        boards.append(replay.bitboards())
    return boards


def captured_last_turn(tl: Timeline, within: int = -1) -> Pending:
    """The pieces the last turn of ``tl`` captured (on ``within`` only)."""
    n = tl.last_turn_length()
    g = tl.game
    if n == 0 or g.outcome is not None:
        return Pending()
    before, after = tl.boards[-1 - n], tl.boards[-1]
    other = 1 - g.history[-1][0].side
    gone = before[other] & ~(after[0] | after[1]) & within
    return Pending(gone if other == 0 else 0, gone if other == 1 else 0)


def set_up_first(game: AnyGame) -> bool:
    """A leap game not begun: its soldiers are set up on their starting
    points before it is played (the Kharbga family places them in play)."""
    return game.ply == 0 and not isinstance(game, Game)
