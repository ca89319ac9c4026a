"""Fuzzing the reconciler: random and adversarial frames never raise, never
record a move the frames do not prove, and leave a valid game."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.rules import Game

VARIANTS = ["kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya"]


def _check_proof(rec: Reconciler, frame: Frame, captured_ever: int) -> None:
    """Moves were just recorded: the settled frame must show their board,
    with at most pieces the engine captured still standing."""
    a, d = rec.game.bitboards()
    occ = a | d
    assert frame.occupied & occ == occ, "a recorded board with a piece the frame lacks"
    assert frame.occupied & ~occ & ~captured_ever == 0, "an unexplained piece"
    if frame.colour:
        assert frame.attacker & a == a and frame.defender & d == d


def _check_valid(game: Game) -> None:
    replay = Game.from_position(game.variant, game.start_position) if game.start_position \
        else Game.new(game.variant)
    for m in game.moves:
        if m.kind in ("place", "step", "pass", "remove"):
            replay.play(str(m))
    if game.outcome is None or game.outcome.reason not in ("resignation", "agreement"):
        assert replay.position() == game.position()


def _frames(rng: random.Random, variant: str, colour: bool, count: int,
            ) -> list[Frame | Button]:
    """Frames that drift around a plausible game: mostly legal actions made
    by hand, mixed with random lifts, drops, swaps and noise."""
    game = Game.new(variant)
    size = game.geometry.size
    a = d = unknown = 0
    t = 0.0
    out: list[Frame | Button] = []
    for _ in range(count):
        t += rng.choice([0.003, 0.02, 0.1, 0.3, 0.6, 1.5, 3.0])
        r = rng.random()
        if r < 0.45 and game.outcome is None:
            m = rng.choice(game.legal_moves())
            game.play(m)
            a, d = game.bitboards()
        elif r < 0.6:
            bit = 1 << rng.randrange(size)
            a &= ~bit
            d &= ~bit
        elif r < 0.75:
            bit = 1 << rng.randrange(size)
            if rng.random() < 0.5:
                a |= bit
                d &= ~bit
            else:
                d |= bit
                a &= ~bit
        elif r < 0.8:
            a = d = 0
        elif r < 0.85:
            out.append(Button(t, rng.choice(["exchange", "undo", "hint", "new", "resign", "draw"]),
                              rng.choice(["attacker", "defender", None])))
            continue
        elif r < 0.9 and colour:
            unknown = rng.getrandbits(size) & rng.getrandbits(size) & rng.getrandbits(size)
        else:
            unknown = 0
        if colour:
            out.append(Frame(t, (a | d) & ~unknown, a & ~unknown, d & ~unknown, unknown, True))
        else:
            out.append(Frame(t, a | d))
    return out


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1), st.booleans())
def test_fuzzed_frames(variant: str, seed: int, colour: bool) -> None:
    rng = random.Random(seed)
    events = _frames(rng, variant, colour, 300)
    rec = Reconciler(variant, Settings(settle=0.25, error_delay=1.0))
    captured_ever = 0
    last_frame: Frame | None = None
    finished: list[Game] = []
    saved: list[Game] = []
    for event in events:
        before = rec.game.bitboards()
        game_before = rec.game
        update = rec.feed(event)
        _follow_games(update, game_before, rec, finished, saved)
        after = rec.game.bitboards()
        captured_ever |= (before[0] | before[1]) & ~(after[0] | after[1])
        if isinstance(event, Frame):
            if update.played and not update.undone and last_frame is not None:
                # The frame that settled is the one before this event.
                _check_proof(rec, last_frame, captured_ever)
            last_frame = event
        _check_valid(rec.game)
        assert set(update.leds.values()) <= {
            "lifted", "destination", "capture", "continue", "exchange", "exchange-request",
            "last-from", "last-to", "error", "hint", "setup"}
    game_before = rec.game
    _follow_games(rec.finish(), game_before, rec, finished, saved)
    _check_valid(rec.game)
    # What the updates reported is what the reconciler holds.
    assert tuple(finished) == rec.finished and tuple(saved) == rec.saved
    for game in rec.finished:
        _check_valid(game)


def _follow_games(update: Update, before: Game, rec: Reconciler, finished: list[Game],
                  saved: list[Game]) -> None:
    """Track the games through the update, as the service does."""
    finished += update.finished
    saved += update.saved
    if update.resumed is not None:
        saved.remove(update.resumed)
        assert rec.game is update.resumed
    if rec.game is not before:
        assert update.new_game or update.resumed is not None
    assert not (update.finished or update.saved) or rec.game is not before


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_noise_never_raises(seed: int) -> None:
    rng = random.Random(seed)
    rec = Reconciler("kharbga")
    t = 0.0
    for _ in range(400):
        t += rng.random() * 0.5
        if rng.random() < 0.5:
            rec.feed(Frame(t, rng.getrandbits(49)))
        else:
            a = rng.getrandbits(49)
            d = rng.getrandbits(49) & ~a
            u = rng.getrandbits(49) & rng.getrandbits(49) & ~(a | d)
            rec.feed(Frame(t, a | d, a, d, u, True))
    rec.finish()
    _check_valid(rec.game)
