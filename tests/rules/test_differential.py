"""The table-driven core against the straightforward reference of
``reference.py``, decision by decision over thousands of seeded random
games of every variant and every rule option's case of option_cases.py:
the same legal actions in the same order, the same moves, states,
positions and results, through every way of playing an action (a Move,
``push``, ``push_raw``) and with undo along the way. The games are on the
pure core (test_ccore_differential.py holds the compiled one to it)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from option_cases import CASES, Case, PureGame, start
from reference import ReferenceGame

from controller.rules import Game, Variant, find_variant

VARIANTS = {
    "kharbga": find_variant("kharbga"),
    "kharbga-refuge": find_variant("kharbga-refuge"),
    "refuge-remove": find_variant("kharbga-refuge").with_options(blocked="remove"),
    "khamousiyya": find_variant("khamousiyya"),
    "sabouiyya": find_variant("sabouiyya"),
}
GAMES = 400  # per variant, each cut at CUT actions
CUT = 120
WHOLE = 8  # per variant, played to the end


def _same(game: Game, ref: ReferenceGame, where: str, position: bool = False) -> None:
    raws = game.raw_moves()
    assert raws == ref._raw_moves(), where
    moves = [(m.kind, m.frm, m.to, m.capture, m.flag) for m in game.legal_moves()]
    assert moves == [(k, f, t, bool(c), fl) for k, f, t, c, fl in raws], where
    state = game.state()
    assert state == ref.state(), where
    assert game.outcome == state.outcome, where
    if position:  # the position string, read back, is the reference's position, but
        # for what it does not hold: an end by repetition (the history's), and the
        # turns without a capture where no rule counts them
        back, want = Game.from_position(game.variant, game.position()).state(), ref.state()
        if want.outcome is not None and want.outcome.reason == "repetition":
            assert back.outcome is None, where
        else:  # a game over is the same game over read back, side to move included
            kept = {} if game.variant.no_progress_turns else {"no_progress": 0}
            assert replace(back, **kept) == replace(want, **kept), where


def _play_both(variant: Variant, seed: int, limit: int, position: str = "") -> int:
    """One random game in lockstep (from ``position``, else the empty
    board); returns the actions played."""
    rng = random.Random(seed)
    game = start(PureGame, variant, position)
    ref = ReferenceGame.from_state(variant, game.state()) if position else ReferenceGame(variant)
    played = 0
    while game.outcome is None and played < limit:
        where = f"{variant.name} seed {seed} action {played}: {game.position()}"
        _same(game, ref, where)
        raws = game.raw_moves()
        raw = raws[rng.randrange(len(raws))]
        kind, frm, to, _, flag = raw
        how = rng.randrange(3)
        if how == 0:
            game.play(game.legal_moves()[raws.index(raw)])
        elif how == 1:
            game.push(kind, frm, to, flag)
        else:
            game.push_raw(raw)
        ref._apply(kind, frm, to, flag)
        played += 1
        if rng.random() < 0.05:  # undo and compare, then play it again
            game.pop()
            ref.pop()
            _same(game, ref, f"{where} (undone)", position=True)
            game.push_raw(raw)
            ref._apply(kind, frm, to, flag)
    _same(game, ref, f"{variant.name} seed {seed} end: {game.position()}", position=True)
    if game.outcome is not None:
        assert game.raw_moves() == [] and game.legal_moves() == []
    return played


@pytest.mark.parametrize("name", VARIANTS)
def test_cut_games_match_the_reference(name: str) -> None:
    total = sum(_play_both(VARIANTS[name], seed, CUT) for seed in range(GAMES))
    assert total > GAMES * 50


@pytest.mark.parametrize("name", VARIANTS)
def test_whole_games_match_the_reference(name: str) -> None:
    for seed in range(10_000, 10_000 + WHOLE):
        _play_both(VARIANTS[name], seed, 10**6)


@pytest.mark.parametrize("case", [c for c in CASES if c.reference], ids=str)
def test_every_option_case_matches_the_reference(case: Case) -> None:
    for seed in range(case.games):
        _play_both(case.variant, seed, case.cut, case.position)


@pytest.mark.parametrize("name", VARIANTS)
def test_loaded_positions_match_the_reference(name: str) -> None:
    """Positions read back from strings (blocked sides settled on load)
    continue exactly as the reference started from the same state."""
    variant = VARIANTS[name]
    rng = random.Random(7)
    for seed in range(40):
        game = PureGame.new(variant)
        for _ in range(rng.randrange(30, 120)):
            if game.outcome is not None:
                break
            raws = game.raw_moves()
            game.push_raw(raws[rng.randrange(len(raws))])
        loaded = PureGame.from_position(variant, game.position())
        ref = ReferenceGame.from_state(variant, loaded.state())
        for i in range(60):
            _same(loaded, ref, f"{name} seed {seed} after load, action {i}")
            if loaded.outcome is not None:
                break
            raws = loaded.raw_moves()
            kind, frm, to, _, flag = raws[rng.randrange(len(raws))]
            loaded.push(kind, frm, to, flag)
            ref._apply(kind, frm, to, flag)
