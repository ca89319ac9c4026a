"""A model of real hands on a reed-switch board, playing random legal games
through the real reconciler on a fake clock.

The hands slide soldiers across the squares between (each reed closes while
the soldier is over it), hesitate (lift, set back on the start square, lift
again), touch down on a wrong square and correct it, set a landed soldier
down again, use both hands (a captured piece taken off while the capturing
soldier is still in the air), leave captured pieces standing until after
the reply, and play quickly (the next action begun before the board
settled). Every mistake is either brief (shorter than the settle time) or
held long enough to settle. The recorded moves must be the moves the hands
meant to play, the record must follow them turn by turn, and the board must
end in sync with the game (docs/reconciler.md, "What hands do").
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace

import pytest
from fake_clock import FakeClock

from controller.board.events import Button, Frame
from controller.board.geometry import points
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.rules import AnyGame, Game, new_game
from controller.rules.moves import PASS, PLACE, REMOVE, STEP, Move
from controller.rules.random_games import lasting_moves

SETTLE = 0.25
DELAY = 1.0
SIDES = ("attacker", "defender")
LENGTH = 110  # actions a game at most: the setting phase and some 30 moves
SEEDS = 9  # games a variant


@dataclass(frozen=True)
class Habits:
    """How often the hands do each thing (per occasion)."""

    slide: float = 0.5  # slid across other squares rather than lifted
    overlap: float = 0.5  # while sliding, the next reed closes before the last opens
    air: float = 0.2  # the soldier held up in the air long enough to settle
    hesitate: float = 0.15  # set back on its own square, then lifted again
    wrong: float = 0.15  # set down on a wrong square first, then corrected
    relift: float = 0.12  # the landed soldier lifted again and set back down
    both_hands: float = 0.35  # captured pieces taken off before the soldier lands
    together: float = 0.3  # two captured pieces taken off at once
    late: float = 0.15  # captured pieces left standing until after the reply
    quick: float = 0.25  # the next action begun before the board settled
    held: float = 0.5  # a hesitation or mistake held long enough to settle
    # Habits the reconciler was not tuned on (0 here: the sweeps turn them on,
    # docs/reconciler.md; at 0 they draw no random number, so games stay as they were).
    bump: float = 0.0  # the hand knocks a standing piece beside the step: its reed opens a moment
    fidget: float = 0.0  # before a step, another soldier of the side lifted and set back


@dataclass
class Board:
    """The reed board under the reconciler: which points hold a piece."""

    rec: Reconciler
    rng: random.Random
    clock: FakeClock = field(default_factory=lambda: FakeClock(0.0))
    occ: int = 0
    updates: list[Update] = field(default_factory=list)

    def show(self, occ: int) -> None:
        if occ == self.occ:
            return
        self.clock.t += 0.002
        self.occ = occ
        self.updates.append(self.rec.feed(Frame(self.clock.t, occ)))

    def put(self, *ps: int) -> None:
        self.show(self.occ | sum(1 << p for p in ps))

    def take(self, *ps: int) -> None:
        self.show(self.occ & ~sum(1 << p for p in ps))

    def wait(self, seconds: float) -> None:
        self.clock.t += seconds
        self.updates.append(self.rec.tick(self.clock.t))

    def brief(self) -> None:
        """Shorter than the settle time: the reading does not count."""
        self.wait(self.rng.uniform(0.01, SETTLE * 0.4))

    def hold(self, lo: float = 2 * SETTLE, hi: float = 2 * SETTLE + 0.8) -> None:
        """Long enough to settle."""
        self.wait(self.rng.uniform(lo, hi))

    def maybe_hold(self, held: float) -> None:
        if self.rng.random() < held:
            self.hold()
        else:
            self.brief()

    def press(self, button: str, side: str) -> None:
        self.clock.t += 0.05
        self.updates.append(self.rec.feed(Button(self.clock.t, button, side)))

    @property
    def last(self) -> Update:
        return self.updates[-1]


def _reachable(game: AnyGame, frm: int) -> int:
    """Points the soldier on ``frm`` can end on this turn, chains included."""
    out = 0
    side = game.side
    for m in game.legal_moves():
        if m.kind != STEP or m.frm != frm:
            continue
        out |= 1 << m.to
        game.push(m.kind, m.frm, m.to, m.flag)
        try:
            if game.outcome is None and game.side == side and game.chain_point >= 0:
                out |= _reachable(game, m.to)
        finally:
            game.pop()
    return out


class Player:
    """The hands of both players acting out a game on a :class:`Board`."""

    def __init__(self, variant: str, seed: int, habits: Habits) -> None:
        self.rng = random.Random(f"{variant}-{seed}")
        self.habits = habits
        self.game = new_game(variant)  # the game as the hands play it
        self.board = Board(Reconciler(variant, Settings(settle=SETTLE, error_delay=DELAY)),
                           self.rng)
        self.adjacent = self.game.geometry.adjacent
        self.standing = 0  # captured pieces left on the board for now
        self.visited = 0  # points the moving soldier stood on this turn
        self.origin = -1  # the point it stood on when the turn began
        self.start = 0  # the first action of the turn being made
        self.quick = False  # the last turn was answered before the board settled
        a, d = self.game.bitboards()
        self.boards = {a | d}  # every board the game had
        self.turns: list[AnyGame] = []  # the game at the start of each turn
        self.side_before = self.game.side  # the side that made the last action
        self.done: Counter[str] = Counter()  # what the hands did, how often
        if not isinstance(self.game, Game):  # a leap game: its soldiers set up first
            a, d = self.game.bitboards()
            self.board.show(a | d)
            self.board.hold()

    # -- the game's actions ---------------------------------------------

    def play(self, moves: list[Move]) -> list[str]:
        """Act out ``moves``; returns the problems seen on the way."""
        side = -1  # the turn being made: its side, its first action (self.start)
        for i, move in enumerate(moves):
            if move.kind == PASS:
                self.game.play(move)
                continue
            if self.game.side != side:  # a new turn (the pass before it is read with it)
                side, self.start = self.game.side, i - (i > 0 and moves[i - 1].kind == PASS)
                self.turns.append(self.game.copy())
            nxt = next((m for m in moves[i + 1:] if m.kind != PASS), None)
            self.act(move, nxt)
            a, d = self.game.bitboards()
            self.boards.add(a | d)
            if not self.settled_here(moves, i):
                continue
            self.board.hold()
            problem = self.check(moves, i + 1, self.start)
            if problem:
                return [problem]
        self.board.take(*points(self.standing))
        self.standing = 0
        self.board.hold(DELAY + 0.5, DELAY + 1.0)
        return []

    def check(self, moves: list[Move], done: int, start: int) -> str:
        """The record on a settled board: the actions made so far, never
        one more; at the end of a turn none fewer, but for a turn that
        occupancy cannot prove until the next reading (docs/reconciler.md:
        a soldier stepping onto a piece just captured, a run that leaves no
        piece where there was none), which the reconciler shows as the
        soldier still in the hand: that turn (from action ``start``) waits."""
        got = [str(m) for m in self.board.rec.game.moves]
        want = [str(m) for m in moves[:done]]
        if done < len(moves) and moves[done].kind == PASS:
            want.append("pass")  # recorded with the step when passing wins at once
        said = f"after {moves[done - 1]} (action {done}): recorded {got[-5:]}, meant {want[-5:]}"
        if got != want[:len(got)]:
            return "phantom " + said
        if len(got) >= done or self.game.side == self.side_before and self.game.outcome is None:
            return ""
        if len(got) >= start and "lifted" in self.board.last.leds.values():
            return ""
        return "missed " + said

    def settled_here(self, moves: list[Move], i: int) -> bool:
        """Is the board left to settle after action ``i`` (else the next
        action follows at once)?"""
        nxt = next((m for m in moves[i + 1:] if m.kind != PASS), None)
        if nxt is None:
            return True
        rng, quick = self.rng, self.habits.quick
        g = self.game
        same_side = moves[i + 1].kind != PASS and g.side == self.side_before
        same_turn = same_side and (g.chain_point >= 0 or moves[i].kind in (PLACE, REMOVE))
        if nxt.to == moves[i].to and REMOVE in (nxt.kind, moves[i].kind):
            # The soldier that moved huffed before the board settled looks
            # the same as that soldier lifted again; a huff and a step onto
            # the point it freed, the same as the soldier still in the hand
            # (docs/reconciler.md).
            return True
        if g.phase == "setting" or moves[i].kind == PLACE:
            return not same_turn or rng.random() >= quick  # never three placements at once
        if nxt.flag:  # the button is pressed on a settled board
            return True
        if same_turn:
            return rng.random() >= quick
        if same_side:  # the other side blocked: two turns of one side are not read at once
            return True
        # A quick reply: at most two turns in one reading, all captured
        # pieces off, and not back to an earlier board (that is a takeback).
        # The turns before this one were read as they were made (not a
        # soldier set on a wrong square, to be corrected with this one).
        read = [str(m) for m in self.board.rec.game.moves] == [str(m) for m in moves[:self.start]]
        self.quick = not self.quick and read and not self.standing and rng.random() < quick \
            and not self.ambiguous(moves, i)
        self.done["quick reply"] += self.quick
        return not self.quick

    def ambiguous(self, moves: list[Move], i: int) -> bool:
        """Would the turn after action ``i``, made before the board settled,
        leave a board that something shorter leaves too: a board the game
        had (a takeback), one turn from the board before this turn, or the
        last turn made another way (a correction)?  Occupancy cannot tell
        them apart, and the shorter reading is the one taken."""
        g = self.game.copy()
        j = i + 1
        while j < len(moves) and moves[j].kind == PASS:
            g.play(moves[j])
            j += 1
        side, first = g.side, j
        while j < len(moves) and g.side == side and g.outcome is None:
            g.play(moves[j])
            j += 1
        reply = moves[first:j]
        if reply and reply[0].kind == REMOVE and any(m.to == reply[0].to for m in reply[1:]):
            return True  # a huff, then a step onto the point it freed: see settled_here
        a, d = g.bitboards()
        return a | d in self.boards or any(a | d in _one_turn(t) for t in self.turns[-2:])

    def act(self, move: Move, nxt: Move | None) -> int:
        """Make ``move``; returns the pieces it took off."""
        game = self.game
        if move.kind == STEP and game.chain_point >= 0:
            self.board.wait(0.02)  # the soldier stands on a chain's point more than a bounce
        self.side_before = side = game.side
        before = game.bitboards()
        if move.flag:
            self.board.press("exchange", SIDES[side])
            self.board.brief()
        if move.kind == PLACE:
            last_placement = self.placements_left() == 1
            game.play(move)
            self.place(move.to, before[0] | before[1], last_placement, nxt)
        elif move.kind == REMOVE:
            game.play(move)
            self.take_off(move.to)
        else:
            chained = game.chain_point >= 0
            if not chained:
                self.visited, self.origin = 0, move.frm
                if self.habits.fidget and self.rng.random() < self.habits.fidget:
                    self.straighten(move.frm)
            reach = _reachable(game, move.frm)
            pre = game.copy()
            game.play(move)
            after = game.bitboards()
            mid = list(before)
            mid[side] ^= 1 << move.frm | 1 << move.to
            removed = (mid[0] & ~after[0]) | (mid[1] & ~after[1])
            boards = {mid[0] | mid[1], after[0] | after[1]}
            legal = sum(1 << w for w in points(reach) if _corrected(pre, move.frm, w, boards))
            self.step(move, removed, reach, legal, nxt)
            self.visited |= 1 << move.to
            return removed
        return 0

    def placements_left(self) -> int:
        a, d = self.game.bitboards()
        empty = self.game.geometry.size - (a | d).bit_count()
        return empty - 1  # the centre stays empty

    # -- what the hands do ----------------------------------------------

    def place(self, to: int, occ: int, last_placement: bool, nxt: Move | None) -> None:
        """A soldier set on ``to``, perhaps on a wrong point first (not the
        turn's other one: set there first, the two come in the other order)."""
        b, h, rng = self.board, self.habits, self.rng
        other = nxt.to if nxt is not None and nxt.kind == PLACE else -1
        empty = [p for p in range(self.game.geometry.size) if not (occ | b.occ) >> p & 1
                 and p not in (to, other)]
        if empty and rng.random() < h.wrong:
            self.set_wrong(rng.choice(empty), "wrong point", 0 if last_placement else h.held)
        self.set_down(to)

    def set_wrong(self, w: int, habit: str, held: float) -> None:
        """A piece set down on ``w`` by mistake (read with chance ``held``),
        then taken off again."""
        b = self.board
        self.done[habit] += 1
        b.put(w)
        b.maybe_hold(held)
        b.take(w)
        b.brief()

    def set_down(self, p: int) -> None:
        """A piece set down on ``p``, perhaps lifted and set down again."""
        b, h = self.board, self.habits
        b.put(p)
        if self.rng.random() < h.relift:
            self.done["set down again"] += 1
            b.brief()
            b.take(p)
            b.maybe_hold(h.held)
            b.put(p)

    def take_off(self, p: int) -> None:
        b = self.board
        b.take(p)
        if self.rng.random() < self.habits.hesitate:
            b.maybe_hold(self.habits.held)
            b.put(p)
            b.brief()
            b.take(p)

    def step(self, move: Move, removed: int, reach: int, legal: int, nxt: Move | None) -> None:
        """``reach``: the points the soldier may end on this turn; ``legal``:
        those where, set down long enough to be read, the step there is
        then read as corrected (see :func:`_corrected`)."""
        b, h, rng = self.board, self.habits, self.rng
        frm, to = move.frm, move.to
        taken = points(removed)
        rng.shuffle(taken)
        # Leaving the square: lifted, or slid across other squares (not
        # across one it may capture to: the chain another way, read so).
        near = (self.adjacent[frm] | self.adjacent[to]) & ~b.occ & ~(1 << to)
        over = points(near & ~reach)
        path = rng.sample(over, min(len(over), rng.randint(0, 2))) if rng.random() < h.slide else []
        self.done["slid"] += bool(path)
        if path and rng.random() < h.overlap:
            b.put(path[0])
            b.brief()
        b.take(frm)
        if h.bump and rng.random() < h.bump:
            self.knock(frm, to, removed)
        if not path:
            b.maybe_hold(h.air)
            if rng.random() < h.hesitate:
                self.done["hesitated"] += 1
                b.put(frm)
                b.maybe_hold(h.held)
                b.take(frm)
                b.brief()
            if taken and move.capture and rng.random() < h.both_hands:
                self.done["both hands"] += 1
                for _ in range(rng.randint(1, len(taken))):
                    b.take(taken.pop())
                    b.maybe_hold(h.air)
            wrong = [p for p in points(near & ~self.visited) if p != frm]
            if wrong and rng.random() < h.wrong:
                w = rng.choice(wrong)
                self.set_wrong(w, "wrong square", 0 if (reach & ~legal) >> w & 1 else h.held)
        for i, p in enumerate(path):
            if i:
                b.put(p)
                b.brief()
            following = path[i + 1] if i + 1 < len(path) else to
            if rng.random() < h.overlap and following != to:
                b.put(following)
                b.brief()
            b.take(p)
            b.brief()
        self.set_down(to)
        self.remove(taken, nxt, back=to == self.origin)

    def knock(self, frm: int, to: int, removed: int) -> None:
        """The hand brushes a standing piece beside ``frm`` or ``to`` (not
        one the step takes): its reed opens for less than the settle time."""
        b = self.board
        near = points((self.adjacent[frm] | self.adjacent[to]) & b.occ & ~removed & ~(1 << to))
        if near:
            q = self.rng.choice(near)
            self.done["knocked"] += 1
            b.take(q)
            b.brief()
            b.put(q)
            b.brief()

    def straighten(self, frm: int) -> None:
        """Before stepping from ``frm``, another soldier of the side is
        lifted and set back on its point (held long enough to be read, with
        chance ``held``): nothing moved."""
        b, g = self.board, self.game
        own = points(g.bitboards()[g.side] & ~(1 << frm))
        if own:
            q = self.rng.choice(own)
            self.done["straightened"] += 1
            b.take(q)
            b.maybe_hold(self.habits.held)
            b.put(q)
            b.maybe_hold(self.habits.held)

    def remove(self, taken: list[int], nxt: Move | None, back: bool) -> None:
        """Take the captured pieces off, now or after the reply; at once if
        the soldier is ``back`` where its turn began (with its captures
        standing, that board is the soldier lifted and set back: nothing
        moved, docs/reconciler.md)."""
        b, h, rng = self.board, self.habits, self.rng
        held = 0 if back else h.held
        if taken and not back and nxt is not None and nxt.kind == STEP and rng.random() < h.late:
            keep = [p for p in taken if p != nxt.to and p != nxt.frm]
            self.done["left standing"] += bool(keep)
            taken = [p for p in taken if p not in keep]
            b.take(*points(self.standing))
            self.standing = sum(1 << p for p in keep)
        elif self.standing:
            b.maybe_hold(h.held)
            b.take(*points(self.standing))
            self.standing = 0
        while taken:
            b.maybe_hold(held)
            group = [taken.pop()]
            if taken and rng.random() < h.together:
                group.append(taken.pop())
            b.take(*group)


def _corrected(game: AnyGame, frm: int, w: int, boards: set[int]) -> bool:
    """The soldier on ``frm`` set down on ``w`` long enough to be read as a
    plain step there, then moved on to where it leaves one of ``boards``:
    is that read as the step corrected (not a capture: a chain goes on from
    there; not where the other side's reply to it leaves the same board)?"""
    step = next((m for m in game.legal_moves() if m.kind == STEP and m.frm == frm
                 and m.to == w and not m.capture and not m.flag), None)
    if step is None:
        return False
    g = game.copy()
    g.play(step)
    return g.outcome is None and not boards & _one_turn(g)


def _one_turn(game: AnyGame) -> set[int]:
    """The boards every run of actions of one turn from ``game`` leaves
    (after an implied pass too)."""
    g = game.copy()
    out: set[int] = set()

    def runs(side: int, depth: int) -> None:
        for m in g.legal_moves():
            if m.kind == PASS:
                continue
            g.play(m)
            a, d = g.bitboards()
            out.add(a | d)
            # On within the turn only (a chain, a huff's move), not into
            # the same side's next turn when the other is blocked.
            if (g.chain_point >= 0 or m.kind == REMOVE) and g.outcome is None \
                    and g.side == side and depth:
                runs(side, depth - 1)
            g.pop()

    runs(g.side, 6)
    if g.outcome is None and any(m.kind == PASS for m in g.legal_moves()):
        g.play(next(m for m in g.legal_moves() if m.kind == PASS))
        if g.outcome is None:
            runs(g.side, 6)
    return out


def _intended(variant: str, seed: int) -> list[Move]:
    """A random legal game that mostly keeps going (so that the moving
    phase is played, not lost on its first move), with passes where a
    chain may end; a pass that wins at once is made."""
    rng = random.Random(f"game-{variant}-{seed}")
    g = new_game(variant)
    while g.outcome is None and len(g.moves) < LENGTH:
        moves = g.legal_moves()
        passing = next((m for m in moves if m.kind == PASS), None)
        if passing is not None:
            g.play(passing)
            if g.outcome is not None:
                continue
            g.pop()
        lasting = lasting_moves(g)
        g.play(rng.choice(lasting if lasting and rng.random() < 0.9 else moves))
    while g.outcome is None and g.moves and g.moves[-1].kind in (PASS, REMOVE):
        g.pop()  # a game cut off does not end on a pass or a huff without its move
    return list(g.moves)


VARIANTS = ["kharbga", "khamousiyya", "sabouiyya", "sixteen-soldiers", "english-draughts",
            "checkers", "kharbga-refuge", "hewakam-keliya"]
# Games of seeds past SEEDS once read otherwise, read as played since: a
# quick reply that is a capture chain back to its own square (missed:
# refuge 9, 36); the first of two quick turns proven by a piece seen on
# its last point only before the soldier standing there left (31), or
# ranked by the soldiers still off, not by the one lifted first (its point
# filled again by the reply: 46, 47, 51); a quick reply whose landing
# stood before its soldier left (43); a chain's steps too quick to be
# seen (refuge 17, 60); a game the model's own search never finished (3);
# an optional chain's second step into the point its first capture freed,
# within the settle time, read as the chain stopped and a reply capturing
# its soldier (khamousiyya 16, 30, 44); a chain back to its own square
# read by another route there (kharbga 9).
FOUND = [("kharbga", 9), ("kharbga-refuge", 3), ("kharbga-refuge", 9), ("kharbga-refuge", 17),
         ("kharbga-refuge", 36), ("kharbga-refuge", 60), ("hewakam-keliya", 31),
         ("hewakam-keliya", 43), ("hewakam-keliya", 46), ("hewakam-keliya", 47),
         ("hewakam-keliya", 51), ("khamousiyya", 16), ("khamousiyya", 30),
         ("khamousiyya", 44), ("hewakam-keliya", 20),
         ("hewakam-keliya", 25), ("sixteen-soldiers", 34), ("kharbga", 20),
         ("sixteen-soldiers", 28), ("sixteen-soldiers", 45)]


def read_otherwise(player: Player, moves: list[Move], problems: list[str]) -> str | None:
    """After ``problems = player.play(moves)``: None if the game was read as meant,
    else how it was not (the first problem the hands met, the record
    another, the game finished or saved, the board out of step with the
    game, an error lit).  scripts/hands_sweep.py counts by it too."""
    rec = player.board.rec
    if problems:
        return str(problems[0])
    got, want = [str(m) for m in rec.game.moves], [str(m) for m in moves]
    if got != want:
        return f"recorded {len(got)} actions {got[-3:]}, meant {len(want)} {want[-3:]}"
    if rec.finished or rec.saved:
        return "the game ended or was saved"
    a, d = rec.game.bitboards()
    if player.board.occ != a | d:
        return "the board out of step with the game at the end"
    if "error" in player.board.last.leds.values():
        return "an error lit at the end"
    return None


def _play(variant: str, seed: int) -> Player:
    """Game ``seed`` of ``variant`` acted out; asserts it was read as meant."""
    moves = _intended(variant, seed)
    player = Player(variant, seed, Habits())
    why = read_otherwise(player, moves, player.play(moves))
    assert why is None, why
    return player


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_hands_play_the_games_they_mean(variant: str, seed: int) -> None:
    _play(variant, seed)


@pytest.mark.parametrize(("variant", "seed"), FOUND)
def test_games_once_read_otherwise_are_read_as_played(variant: str, seed: int) -> None:
    _play(variant, seed)


def test_the_hands_do_all_they_are_modelled_to() -> None:
    player = _play("kharbga", 4)
    assert set(player.done) == {"wrong point", "set down again", "slid", "hesitated",
                                "both hands", "wrong square", "left standing", "quick reply"}
    assert all(player.done.values()), player.done


@pytest.mark.parametrize(("variant", "seed"), [("kharbga", 1), ("sabouiyya", 2)])
def test_hands_that_knock_and_straighten_pieces_are_read_as_meant(variant: str, seed: int) -> None:
    """The habits the reconciler was never mended against (docs/reconciler.md:
    the held-out sweep turns them on over 768 games), in two games here."""
    moves = _intended(variant, seed)
    player = Player(variant, seed, replace(Habits(), bump=0.4, fidget=0.4))
    problems = player.play(moves)
    assert read_otherwise(player, moves, problems) is None
    assert player.done["knocked"] > 5 and player.done["straightened"] > 5, player.done


SLID_PAST = ("a soldier slid past the point where the turn it answers could have ended: that "
             "turn made there, and the capture after it, leave the same board")
RARE = [  # of seeds 0-63 a variant, the games read otherwise
    ("kharbga-refuge", 12, SLID_PAST),
]


@pytest.mark.parametrize(("variant", "seed"), [
    pytest.param(v, s, marks=pytest.mark.xfail(reason=why, strict=True)) for v, s, why in RARE])
def test_the_rare_games_read_otherwise(variant: str, seed: int) -> None:
    """docs/reconciler.md, "What hands do": strict, so a game read as meant
    after a change is noticed (and dropped from the list)."""
    _play(variant, seed)
