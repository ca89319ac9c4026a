"""Simulated sensor logs: people acting out a game on the physical board.

:func:`simulate` turns the actions of a :class:`~controller.rules.Game` into
the frames and button presses a real board would report (docs/reconciler.md, "Inputs"):
contact bounce, hands hovering over the board (``?`` cells in colour logs),
soldiers held in the air, set down on a wrong square first, pieces lifted
and put back, captured pieces taken off early, late or two at once, and
heartbeat frames while nothing changes.  Everything comes from one seeded
:class:`random.Random`: the same game and seed give the same log.

Timing contract (all relative to ``Style.settle``):

- every board reading the simulated people *mean* to leave is shown for at
  least ``2 * settle``; every other reading (bounce, hands, brushing a
  square, a piece in passage) for less than ``settle / 2``;
- readings with ``?`` cells are never held (colour logs are exact once
  settled);
- the readings held are: the board after each action (with some of that
  action's captured pieces possibly still on it), a soldier of the side to
  move lifted (possibly with a piece it captures already taken off), a
  piece of the side to move lifted before the action and put back, and a
  soldier set down on a wrong empty square that is no legal destination;
- times strictly increase (a multiple of 0.1 ms, so they survive the log's
  rounding), frames repeat at least every ``heartbeat`` seconds, and the
  log ends with the final board held for at least two seconds.

Standard library only; no wall clock.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass

from controller.board.geometry import points
from controller.board.sensorlog import Button, Event, Frame, Header, write_log
from controller.rules import AnyGame, LeapVariant, game_from_position, new_game
from controller.rules.moves import PASS, PLACE, REMOVE, STEP, Move

__all__ = ["Style", "simulate", "simulate_log"]

SIDES = ("attacker", "defender")
PHYSICAL = (PLACE, STEP, PASS, REMOVE)
TICKS = 10_000  # time resolution: 0.1 ms, exact at the log's 4 decimals


@dataclass(frozen=True)
class Style:
    """How the simulated people behave; all times in seconds.

    Probabilities are per occasion (per contact change, per step, ...).
    ``hold_lifted`` (the soldier is held in the air long enough to settle)
    and ``pause`` (the board settles between two removals of captured
    pieces) extend the original list.
    """

    settle: float = 0.25
    think: tuple[float, float] = (0.6, 4.0)
    bounce: float = 0.5
    hover: float = 0.3
    wrong_square: float = 0.1
    lift_and_replace: float = 0.05
    early_removal: float = 0.3
    together: float = 0.3
    heartbeat: float = 1.0
    hands: bool = True
    hold_lifted: float = 0.25
    pause: float = 0.5

    def check(self) -> None:
        """``ValueError`` for settings the timing contract cannot meet."""
        if not 0.01 <= self.settle <= 60:
            raise ValueError(f"settle must be between 0.01 and 60 s, not {self.settle}")
        lo, hi = self.think
        if not 0 <= lo <= hi:
            raise ValueError(f"think must be an interval (low, high), not {self.think}")
        if self.heartbeat < 0.001:
            raise ValueError(f"heartbeat must be at least 1 ms, not {self.heartbeat}")


def _ticks(seconds: float) -> int:
    return max(1, round(seconds * TICKS))


class _Board:
    """The physical board over time, and the events it reports."""

    def __init__(
        self,
        rng: random.Random,
        style: Style,
        colour: bool,
        adjacent: tuple[int, ...],
        pieces: tuple[int, int],
    ) -> None:
        self.rng = rng
        self.style = style
        self.colour = colour
        self.hands = colour and style.hands
        self.adjacent = adjacent
        self.pieces = list(pieces)  # the pieces on the board, per side
        self.hand = 0  # squares under a hand ('?' in colour logs with hands)
        self.ghost = 0  # an empty square brushed by a carried piece
        self.ghost_side = 0
        self.events: list[Event] = []
        self.now = 0
        self.last_event = 0
        self.last_frame = 0
        self.shown: tuple[int, int, int] | None = None
        # A transient reading lasts at most this long: below settle / 2.
        self.brief = max(1, math.ceil(style.settle * TICKS / 2) - 1)
        self.held = math.ceil(2 * style.settle * TICKS)  # a held reading, at least
        self.beat = max(1, int(style.heartbeat * TICKS))

    # -- readings and time ---------------------------------------------

    def view(self) -> tuple[int, int, int]:
        a, d = self.pieces
        if self.ghost_side == 0:
            a |= self.ghost
        else:
            d |= self.ghost
        if not self.colour:
            return (a | d, 0, 0)
        return (a & ~self.hand, d & ~self.hand, self.hand)

    def frame(self) -> None:
        assert self.shown is not None and self.now > self.last_event
        a, d, u = self.shown
        t = self.now / TICKS
        if self.colour:
            self.events.append(Frame(t, a | d, a, d, u, True))
        else:
            self.events.append(Frame(t, a))
        self.last_event = self.last_frame = self.now

    def show(self) -> bool:
        """Report the reading if it changed; did it?"""
        v = self.view()
        if v == self.shown:
            return False
        self.shown = v
        self.frame()
        return True

    def advance(self, ticks: int) -> None:
        """Let ``ticks`` pass, with heartbeat frames (never at the end)."""
        end = self.now + ticks
        while True:
            nxt = self.last_frame + self.rng.randint(max(1, self.beat * 7 // 10), self.beat)
            nxt = max(nxt, self.last_event + 1)
            if nxt >= end:
                break
            self.now = nxt
            self.frame()
        self.now = end

    def transient(self, lo: float = 0.03, hi: float | None = None) -> None:
        """Show the reading briefly (if it is new: an unseen change takes
        no time)."""
        if not self.show():
            return
        top = self.style.settle * 0.45 if hi is None else hi
        lo = min(lo, top)
        self.advance(min(self.brief, _ticks(self.rng.uniform(lo, top))))

    def hold(
        self, seconds: float, press: tuple[str, str | None] | None = None, lead: float = 0.0
    ) -> None:
        """Leave the reading as it is, at least ``2 * settle``; ``press``
        (button name and side) happens ``lead`` seconds before the end."""
        assert not self.hand and not self.ghost, "a held reading with a hand on the board"
        self.show()
        total = max(self.held, _ticks(seconds))
        if press is None:
            self.advance(total)
            return
        before = _ticks(lead)
        total = max(total, before + _ticks(0.1))
        self.advance(total - before)
        self.events.append(Button(self.now / TICKS, *press))
        self.last_event = self.now
        self.advance(before)

    def short_hold(self) -> None:
        s = self.style.settle
        self.hold(self.rng.uniform(2 * s, 2 * s + 0.8))

    def pause(self) -> None:
        """Sometimes let the reading settle, else move straight on."""
        if self.rng.random() < self.style.pause:
            self.short_hold()
        else:
            self.transient()

    def finish(self, seconds: float) -> None:
        """The final hold, closed by a frame so that it is seen to last."""
        self.hold(seconds)
        self.frame()

    # -- hands and pieces -------------------------------------------------

    def hand_over(self, *squares: int) -> None:
        """A hand over ``squares`` and some of their neighbours."""
        if not self.hands:
            return
        mask = 0
        for sq in squares:
            mask |= 1 << sq
            for nb in points(self.adjacent[sq]):
                if self.rng.random() < 0.5:
                    mask |= 1 << nb
        self.hand = mask

    def side_at(self, square: int) -> int | None:
        return next((s for s in (0, 1) if self.pieces[s] >> square & 1), None)

    def _set(self, squares: list[int], side: int | None) -> None:
        for sq in squares:
            bit = 1 << sq
            self.pieces[0] &= ~bit
            self.pieces[1] &= ~bit
            if side is not None:
                self.pieces[side] |= bit

    def contact(self, squares: list[int], side: int | None) -> None:
        """Set down (``side``) or lift (``None``) pieces on ``squares`` in
        one frame change, maybe with bounce; the caller then waits."""
        olds = [self.side_at(sq) for sq in squares]
        self._set(squares, side)
        if self.rng.random() >= self.style.bounce:
            return
        i = self.rng.randrange(len(squares))
        bouncing, old = [squares[i]], olds[i]
        hi = min(0.020, self.style.settle * 0.45)
        for _ in range(self.rng.randint(1, 3)):
            self.transient(0.002, hi)
            self._set(bouncing, old)
            self.transient(0.002, hi)
            self._set(bouncing, side)

    # -- what people do -----------------------------------------------

    def place(self, side: int, square: int) -> None:
        self.hand_over(square)
        self.transient()
        if self.hands and self.rng.random() < 0.5:
            self.hand_over(square)  # the hand shifts
            self.transient()
        self.contact([square], side)
        self.transient()
        self.hand = 0

    def lift(self, square: int) -> None:
        """A piece lifted; the hand is still over the board."""
        self.hand_over(square)
        self.transient()
        self.contact([square], None)
        self.transient()

    def take_off(self, square: int) -> None:
        """A piece lifted off the board (the hand then leaves)."""
        self.lift(square)
        self.hand = 0

    def lift_and_replace(self, side: int) -> None:
        own = points(self.pieces[side])
        if not own:
            return
        q = self.rng.choice(own)
        self.take_off(q)
        self.short_hold()
        self.hand_over(q)
        self.transient()
        self.contact([q], side)
        self.transient()
        self.hand = 0

    def hover(self, side: int, frm: int, to: int) -> None:
        """The carried soldier brushes an empty neighbour square."""
        occupied = self.pieces[0] | self.pieces[1]
        near = (self.adjacent[frm] | self.adjacent[to]) & ~occupied & ~(1 << frm | 1 << to)
        if not near:
            return
        h = self.rng.choice(points(near))
        if self.hands:
            self.hand_over(h)
        else:
            self.ghost, self.ghost_side = 1 << h, side
        self.transient(0.01)
        self.ghost = 0
        self.transient()

    def step(
        self,
        side: int,
        frm: int,
        to: int,
        removed: list[int],
        early: bool,
        wrong: list[int],
    ) -> None:
        """One step; ``removed`` are the pieces to take off after it
        (``early``: captured, so one may go while the soldier is in hand);
        ``wrong`` the squares where it may be set down by mistake."""
        rng = self.rng
        style = self.style
        self.lift(frm)
        if rng.random() < style.hold_lifted:
            self.hand = 0  # the soldier held up, off the board
            self.short_hold()
        if rng.random() < style.hover:
            self.hover(side, frm, to)
        if wrong and rng.random() < style.wrong_square:
            w = rng.choice(wrong)
            self.hand_over(w)
            self.transient()
            self.contact([w], side)
            self.transient()
            self.hand = 0
            self.short_hold()
            self.lift(w)
        pending = list(removed)
        rng.shuffle(pending)
        if early and pending and rng.random() < style.early_removal:
            self.take_off(pending.pop())
            if rng.random() < style.hold_lifted:
                self.short_hold()
            else:
                self.transient()
        self.hand_over(to)
        self.transient()
        self.contact([to], side)
        self.transient()
        self.hand = 0
        if pending:
            self.pause()
        while pending:
            if len(pending) >= 2 and rng.random() < style.together:
                group = [pending.pop(), pending.pop()]
            else:
                group = [pending.pop()]
            self.hand_over(*group)
            self.transient()
            self.contact(group, None)
            self.transient()
            self.hand = 0
            if pending:
                self.pause()


def _reachable(game: AnyGame, frm: int) -> set[int]:
    """Squares the soldier on ``frm`` can end on this turn, chains included
    (a quick chain leaves the same board as a soldier set down there)."""
    out: set[int] = set()
    side = game.side
    for m in game.legal_moves():
        if m.kind != STEP or m.frm != frm:
            continue
        out.add(m.to)
        game.push(m.kind, m.frm, m.to, m.flag)
        try:
            if game.outcome is None and game.side == side and game.chain_square is not None:
                out |= _reachable(game, m.to)
        finally:
            game.pop()
    return out


def board_of(game: AnyGame) -> tuple[str, int]:
    """The sensor log's name of the game's board and its point count."""
    v = game.variant
    if isinstance(v, LeapVariant):
        return v.board, game.geometry.size
    return f"{v.size}x{v.size}", v.size * v.size


def _wrong_squares(game: AnyGame, move: Move, before: int) -> list[int]:
    """Empty squares near the soldier that it may not step to."""
    if isinstance(game.variant, LeapVariant):  # two steps along the lines
        adjacent = game.geometry.adjacent
        near = adjacent[move.frm]
        for p in points(near):
            near |= adjacent[p]
        legal = _reachable(game, move.frm)
        return [p for p in points(near & ~before) if p != move.frm and p not in legal]
    size = game.variant.size
    legal = _reachable(game, move.frm)
    fx, fy = move.frm % size, move.frm // size
    out = []
    for sq in range(size * size):
        if sq == move.frm or sq in legal or before >> sq & 1:
            continue
        if abs(sq % size - fx) + abs(sq // size - fy) <= 2:
            out.append(sq)
    return out


def simulate(
    game: AnyGame,
    seed: int,
    colour: bool = False,
    style: Style = Style(),
    start: str | None = None,
) -> list[Event]:
    """The sensor log of people playing ``game.moves`` on a board: a
    :class:`Header`, then frames and button presses in time order.

    The actions are replayed from a new game of ``game.variant`` (or from
    the position ``start``); they stop at the first action that is not a
    placement, step, pass or removal (a resignation, say), which leaves no
    trace on the board.
    """
    style.check()
    rng = random.Random(seed)
    variant = game.variant
    replay = new_game(variant) if start is None else game_from_position(variant, start)
    board = _Board(rng, style, colour, replay.geometry.adjacent, replay.bitboards())
    header = Header(0.0, board_of(replay)[0], "colour" if colour else "occupancy")
    board.now = _ticks(rng.uniform(0.02, 0.2))
    board.show()

    def think() -> float:
        return rng.uniform(*style.think)

    previous: tuple[str, int] | None = None  # kind and side of the last action
    for move in game.moves:
        if move.kind not in PHYSICAL:
            break
        side = replay.side
        chained = move.kind == STEP and replay.chain_square is not None
        second = move.kind == PLACE and previous == (PLACE, side)
        previous = (move.kind, side)
        before = replay.bitboards()
        wrong = (
            _wrong_squares(replay, move, before[0] | before[1])
            if move.kind == STEP and replay.chain_square is None
            else []
        )
        replay.play(move)
        if move.kind == PASS:
            continue
        after = replay.bitboards()
        # The wait before the action (after the previous one).
        s = style.settle
        wait = rng.uniform(2 * s, 2 * s + 1.0) if chained or second else think()
        if (
            not (chained or second)
            and move.kind != REMOVE
            and before[side]
            and rng.random() < style.lift_and_replace
        ):
            board.hold(wait * rng.uniform(0.2, 0.8))
            board.lift_and_replace(side)
            wait = think()
        if move.flag:
            board.hold(wait, ("exchange", SIDES[side]), rng.uniform(0.2, 1.0))
        else:
            board.hold(wait)
        if move.kind == PLACE:
            board.place(side, move.to)
        elif move.kind == REMOVE:
            board.take_off(move.to)
        else:
            mid = list(before)
            mid[side] ^= 1 << move.frm | 1 << move.to
            if after[0] & ~mid[0] or after[1] & ~mid[1]:
                raise ValueError(f"{move}: pieces appeared on the board")
            removed = points(mid[0] & ~after[0] | mid[1] & ~after[1])
            board.step(side, move.frm, move.to, removed, move.capture, wrong)
    board.finish(max(2.0, think()))
    return [header, *board.events]


def simulate_log(
    game: AnyGame,
    seed: int,
    colour: bool = False,
    style: Style = Style(),
    start: str | None = None,
) -> str:
    """:func:`simulate` as JSON Lines text, one event per line."""
    events = simulate(game, seed, colour, style, start)
    out = io.StringIO()
    write_log(events, out, board_of(game)[1])
    return out.getvalue()
