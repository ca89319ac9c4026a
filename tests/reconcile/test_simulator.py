"""The sensor simulator: logs that parse, are reproducible, and show every
action held long enough to settle and nothing else held that long.

The checks below rebuild, from the game alone, which board readings a
person may leave on the board (the board after each action, possibly with
captured pieces still on it; a soldier lifted; a piece lifted and put back;
a soldier on a wrong square) and compare every reading of the log that
lasts ``settle`` or longer against them.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import combinations

import pytest

from controller.board.sensorlog import Button, Event, Frame, Header, read_log, write_log
from controller.reconcile.simulator import Style, simulate, simulate_log
from controller.rules import Game, find_variant

EPS = 1e-6
View = tuple[int, int, int]  # (attacker, defender, unknown); occupancy: (occupied, 0, 0)


def random_game(variant: str, seed: int, actions: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(variant)
    for _ in range(actions):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    return game


def exchange_game(seed: int) -> Game:
    """A kharbga game whose players like exchanges: flagged steps whenever
    they can, the Defender with its exchange soldier."""
    rng = random.Random(seed)
    game = Game.new("kharbga")
    for _ in range(140):
        moves = game.legal_moves()
        if not moves:
            break
        flagged = [m for m in moves if m.flag]
        ex = game.exchange
        if ex is not None and game.to_move == "defender":
            flagged = [m for m in flagged if m.frm == ex.soldier] or flagged
        game.play(rng.choice(flagged or moves))
    return game


def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def subsets(mask: int) -> Iterator[int]:
    squares = bits(mask)
    for n in range(len(squares) + 1):
        for combo in combinations(squares, n):
            yield sum(1 << s for s in combo)


@dataclass
class Action:
    kind: str
    side: int
    frm: int
    flag: bool
    before: tuple[int, int]
    after: tuple[int, int]
    gone: tuple[int, int]  # pieces to take off after the action, by colour
    dests: int  # legal destinations of the step's soldier


def actions_of(game: Game, start: str | None = None) -> tuple[tuple[int, int], list[Action]]:
    g = Game.new(game.variant) if start is None else Game.from_position(game.variant, start)
    first = g.bitboards()
    out = []
    for m in game.moves:
        if m.kind not in ("place", "step", "pass", "remove"):
            break
        side = g.side
        before = g.bitboards()
        dests = 0  # (flagged and plain steps repeat a destination)
        for x in g.legal_moves():
            if x.kind == "step" and x.frm == m.frm:
                dests |= 1 << x.to
        g.play(m)
        after = g.bitboards()
        mid = list(before)
        if m.kind == "step":
            mid[side] ^= 1 << m.frm | 1 << m.to
        gone = (mid[0] & ~after[0], mid[1] & ~after[1]) if m.kind == "step" else (0, 0)
        out.append(Action(m.kind, side, m.frm, m.flag, before, after, gone, dests))
    return first, out


def project(a: int, d: int, colour: bool) -> View:
    return (a, d, 0) if colour else (a | d, 0, 0)


def after_views(action: Action, colour: bool) -> set[View]:
    """The board after the action, with some of its removals still to do."""
    (a, d), (ga, gd) = action.after, action.gone
    return {project(a | sa, d | sd, colour) for sa in subsets(ga) for sd in subsets(gd)}


def during_views(action: Action, colour: bool, size: int) -> set[View]:
    """Readings a person may leave while making the action."""
    a, d = action.before
    side = action.side
    out: set[View] = set()
    own = action.before[side]
    for q in bits(own):  # lift and replace (and the soldier lifted)
        pieces = [a, d]
        pieces[side] &= ~(1 << q)
        out.add(project(pieces[0], pieces[1], colour))
    if action.kind == "step":
        ga, gd = action.gone
        lifted = [a, d]
        lifted[side] &= ~(1 << action.frm)
        for sa in subsets(ga):  # captured pieces taken off early
            for sd in subsets(gd):
                out.add(project(lifted[0] & ~sa, lifted[1] & ~sd, colour))
        empty = ~(a | d) & ((1 << size * size) - 1) & ~action.dests & ~(1 << action.frm)
        for w in bits(empty):  # the wrong square
            pieces = list(lifted)
            pieces[side] |= 1 << w
            out.add(project(pieces[0], pieces[1], colour))
    return out


def view(frame: Frame) -> View:
    if frame.colour:
        return (frame.attacker, frame.defender, frame.unknown)
    return (frame.occupied, 0, 0)


@dataclass
class Run:
    view: View
    start: float
    end: float

    @property
    def length(self) -> float:
        return self.end - self.start


def runs_of(events: list[Event]) -> list[Run]:
    frames = [e for e in events if isinstance(e, Frame)]
    runs: list[Run] = []
    for f in frames:
        v = view(f)
        if runs and runs[-1].view == v:
            continue
        if runs:
            runs[-1].end = f.t
        runs.append(Run(v, f.t, f.t))
    runs[-1].end = frames[-1].t
    return runs


def parse(text: str) -> list[Event]:
    return [e for _, e in read_log(text.splitlines())]


def check_log(
    game: Game, events: list[Event], colour: bool, style: Style, start: str | None = None
) -> None:
    """Every property of a simulated log that the reconciler relies on."""
    settle = style.settle
    size = game.variant.size
    header = events[0]
    assert isinstance(header, Header)
    assert header.board == f"{size}x{size}"
    assert header.sensor == ("colour" if colour else "occupancy")
    body = events[1:]
    assert body and isinstance(body[0], Frame) and isinstance(body[-1], Frame)
    times = [e.t for e in events]
    assert all(t1 < t2 for t1, t2 in zip(times, times[1:], strict=False)), "times must increase"
    frames = [e for e in body if isinstance(e, Frame)]
    assert all(f.colour == colour for f in frames)
    gaps = [f2.t - f1.t for f1, f2 in zip(frames, frames[1:], strict=False)]
    assert max(gaps) <= style.heartbeat + EPS, "a heartbeat is missing"

    first, actions = actions_of(game, start)
    assert view(frames[0]) == project(*first, colour)
    final = actions[-1].after if actions else first
    assert view(frames[-1]) == project(*final, colour)

    runs = runs_of(events)
    assert runs[-1].length >= 2.0 - EPS, "the final board must be held two seconds"
    # Transient or held, nothing in between; '?' never held.
    for run in runs:
        assert run.length < settle / 2 or run.length >= 2 * settle - EPS, run
        if run.view[2]:
            assert run.length < settle / 2, run
    if not (colour and style.hands):
        assert not any(r.view[2] for r in runs), "'?' cells without hands"

    # Every held reading is one a person means to leave.
    allowed = {project(*first, colour)}
    for action in actions:
        allowed |= after_views(action, colour)
        allowed |= during_views(action, colour, size)
    held = [r for r in runs if r.length >= settle]
    for run in held:
        assert run.view in allowed, f"unintended reading held {run.length:.3f}s at {run.start}"

    # Every action's result is held, in order.
    i = 0
    seen: list[float] = [runs[0].start]
    for n, action in enumerate(actions):
        targets = after_views(action, colour)
        while i < len(runs) and not (runs[i].length >= settle and runs[i].view in targets):
            i += 1
        assert i < len(runs), f"action {n} ({action.kind}) never settles"
        seen.append(runs[i].start)

    if colour:
        check_colours(frames, first, actions, seen)
    check_buttons(body, actions, seen)


def check_colours(
    frames: list[Frame], first: tuple[int, int], actions: list[Action], seen: list[float]
) -> None:
    """Pieces show their own colour: a square shows a colour only where a
    nearby board has that colour, or the colour of the side moving."""
    boards = [first] + [(x.after[0] | x.gone[0], x.after[1] | x.gone[1]) for x in actions]
    for f in frames:
        if f.unknown:
            continue
        k = max(j for j, t in enumerate(seen) if t <= f.t + EPS)
        ref_a = ref_d = 0
        for j in range(max(0, k - 1), min(len(boards), k + 2)):
            ref_a |= boards[j][0]
            ref_d |= boards[j][1]
        for j in (k - 1, k):
            if 0 <= j < len(actions):
                if actions[j].side == 0:
                    ref_a = -1
                else:
                    ref_d = -1
        assert f.attacker & ~ref_a == 0, f"an attacker where none can be, at {f.t}"
        assert f.defender & ~ref_d == 0, f"a defender where none can be, at {f.t}"


def check_buttons(body: list[Event], actions: list[Action], seen: list[float]) -> None:
    """One exchange press per flagged step, by its side, between the
    previous action's result and the soldier being lifted."""
    buttons = [e for e in body if isinstance(e, Button)]
    flagged = [(n, x) for n, x in enumerate(actions) if x.flag]
    assert len(buttons) == len(flagged)
    frames = [e for e in body if isinstance(e, Frame)]
    for press, (n, action) in zip(buttons, flagged, strict=True):
        assert press.button == "exchange"
        assert press.side == ("attacker", "defender")[action.side]
        # (the search for action results is greedy, so seen[n] is no later
        # than the result of the action before this one)
        assert seen[n] < press.t
        held = next(f for f in reversed(frames) if f.t < press.t)
        change = next(f for f in frames if f.t > press.t and view(f) != view(held))
        assert 0.2 - EPS <= change.t - press.t <= 1.0 + EPS
        # the first change after the press is at the soldier's square
        moved = (held.occupied ^ change.occupied) | change.unknown
        assert moved >> action.frm & 1, f"press at {press.t} not followed by the lift"


GAMES = [("kharbga", 90), ("khamousiyya", 80), ("sabouiyya", 50)]


@pytest.mark.parametrize("variant,length", GAMES)
@pytest.mark.parametrize("colour", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_games(variant: str, length: int, colour: bool, seed: int) -> None:
    game = random_game(variant, seed, length)
    style = Style()
    text = simulate_log(game, seed, colour=colour, style=style)
    check_log(game, parse(text), colour, style)


ALL = Style(
    bounce=1.0,
    hover=1.0,
    wrong_square=1.0,
    lift_and_replace=1.0,
    early_removal=1.0,
    together=1.0,
    hold_lifted=1.0,
    pause=1.0,
)
NONE = Style(
    bounce=0.0,
    hover=0.0,
    wrong_square=0.0,
    lift_and_replace=0.0,
    early_removal=0.0,
    together=0.0,
    hold_lifted=0.0,
    pause=0.0,
)


@pytest.mark.parametrize(
    "style",
    [
        ALL,
        NONE,
        replace(ALL, hands=False),
        replace(ALL, settle=0.1, heartbeat=0.3),
        replace(ALL, settle=0.6, think=(0.0, 0.0), hold_lifted=0.0, pause=0.0),
        replace(ALL, together=0.0, early_removal=0.5, wrong_square=0.5),
    ],
    ids=["all", "none", "no-hands", "fast", "slow-settle", "mixed"],
)
@pytest.mark.parametrize("colour", [False, True])
def test_styles(style: Style, colour: bool) -> None:
    for variant, length, seed in (("kharbga", 110, 5), ("sabouiyya", 60, 6)):
        game = random_game(variant, seed, length)
        check_log(game, simulate(game, seed, colour, style), colour, style)


def test_captures_and_chains_are_exercised() -> None:
    """The random games above do capture, chain and flag: the checks bite."""
    kinds = set()
    for variant, length in GAMES:
        for seed in (1, 2):
            _, actions = actions_of(random_game(variant, seed, length))
            for a in actions:
                n = bin(a.gone[0] | a.gone[1]).count("1")
                kinds.add("capture" if n else a.kind)
                if n >= 2:
                    kinds.add("double")
                if a.flag:
                    kinds.add("flag")
    assert {"capture", "double", "flag", "place", "step"} <= kinds


def test_exchange_completed() -> None:
    """An exchange takes three pieces off with no capture; they are lifted
    off after the step like captured pieces."""
    for seed in range(40):
        game = exchange_game(seed)
        _, actions = actions_of(game)
        done = [a for a in actions if a.flag and a.gone[0] and a.gone[1]]
        if done:
            break
    else:
        pytest.fail("no completed exchange in 40 games")
    assert bin(done[0].gone[0]).count("1") == 2 and bin(done[0].gone[1]).count("1") == 1
    for colour in (False, True):
        for style in (Style(), ALL, NONE):
            check_log(game, simulate(game, seed, colour, style), colour, style)


def test_same_seed_same_log_other_seed_other_log() -> None:
    game = random_game("kharbga", 3, 70)
    for colour in (False, True):
        one = simulate_log(game, 11, colour=colour)
        assert one == simulate_log(game, 11, colour=colour)
        assert one != simulate_log(game, 12, colour=colour)


def test_log_text_matches_events() -> None:
    """The JSONL text is the events, times exact (0.1 ms steps)."""
    game = random_game("sabouiyya", 4, 40)
    events = simulate(game, 9, colour=True)
    out = io.StringIO()
    write_log(events, out, 25)
    text = simulate_log(game, 9, colour=True)
    assert text == out.getvalue()
    assert text.endswith("\n") and len(text.splitlines()) == len(events)
    assert parse(text) == events


def test_start_position() -> None:
    """A game from a position: the log starts with that board."""
    opening = random_game("khamousiyya", 8, 48)
    start = opening.position()
    game = Game.from_position("khamousiyya", start)
    rng = random.Random(8)
    for _ in range(30):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(rng.choice(moves))
    events = simulate(game, 2, colour=True, start=start)
    check_log(game, events, True, Style(), start=start)
    first = next(e for e in events if isinstance(e, Frame))
    assert (first.attacker, first.defender) == opening.bitboards()


def test_empty_and_resigned_games() -> None:
    game = Game.new("kharbga")
    events = simulate(game, 1)
    check_log(game, events, False, Style())
    assert all(isinstance(e, Frame) and e.occupied == 0 for e in events[1:])
    game = random_game("kharbga", 1, 60)
    final = game.bitboards()
    game.resign()
    events = simulate(game, 1, colour=True)
    last = [e for e in events if isinstance(e, Frame)][-1]
    assert (last.attacker, last.defender) == final


def test_bad_style() -> None:
    with pytest.raises(ValueError):
        simulate(Game.new("kharbga"), 1, style=Style(settle=0.0))
    with pytest.raises(ValueError):
        simulate(Game.new("kharbga"), 1, style=Style(think=(3.0, 1.0)))


def test_chains_are_exercised() -> None:
    """Chain continuations occur in the random games (same soldier again)."""
    chained = 0
    for variant, length in GAMES:
        for seed in (1, 2):
            game = random_game(variant, seed, length)
            moves = game.moves
            for m1, m2 in zip(moves, moves[1:], strict=False):
                chained += m1.kind == m2.kind == "step" and m1.capture and m2.frm == m1.to
    assert chained


def test_removals() -> None:
    """A blocked side under ``blocked=remove``: the owners lift pieces off."""
    variant = find_variant("kharbga-refuge").with_options(blocked="remove")
    for seed in range(60):
        rng = random.Random(seed)
        game = Game.new(variant)
        for _ in range(400):
            moves = game.legal_moves()
            if not moves or sum(m.kind == "remove" for m in game.moves) >= 3:
                break
            game.play(rng.choice(moves))
        if any(m.kind == "remove" for m in game.moves):
            break
    else:
        pytest.fail("no removal in 60 games")
    for _ in range(10):  # play on a little
        moves = game.legal_moves()
        if moves:
            game.play(rng.choice(moves))
    for colour in (False, True):
        for style in (Style(), ALL):
            check_log(game, simulate(game, seed, colour, style), colour, style)
