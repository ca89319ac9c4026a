"""The Texel tuning script (scripts/engine_tune.py): term values read from
the evaluation, and a fit that follows the results."""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType

from script_loader import load_script
from test_engine import mid_positions

from controller.engine import evaluate
from controller.engine.evaluate import DEFAULT_WEIGHTS, Weights
from controller.engine.match import WHOLE_SETTING
from controller.rules import Game


def _script() -> ModuleType:
    return load_script("engine_tune")


def test_term_values_rebuild_the_score() -> None:
    tune = _script()
    w = replace(DEFAULT_WEIGHTS, mobility=3, stable=11, hanging_own=17)
    for variant in ("kharbga", "sabouiyya"):
        for g in mid_positions(variant, 3, seed=2):
            got = tune.features(variant, g.position())
            assert got is not None
            values, base = got
            sign = 1 if g.side == 0 else -1
            rebuilt = base + sum(v * getattr(w, t) for v, t in zip(values, tune.TERMS, strict=True))
            assert rebuilt == sign * evaluate(g, w)


def test_the_fit_follows_the_results() -> None:
    tune = _script()
    n = len(tune.TERMS)
    # Results that the first term (mobility) predicts: more steps, more wins.
    data = []
    for x in range(-6, 7):
        values = [x] + [0] * (n - 1)
        data.append((values, 0, 1.0 if x > 0 else 0.0 if x < 0 else 0.5))
    w, k = tune.fit(data, Weights(mobility=0))
    assert w[0] > 0 and k > 0
    assert tune.error(data, w, k) < tune.error(data, [0] * n, k)


def test_games_from_whole_setting_openings_teach_the_moving_phase() -> None:
    tune = _script()
    positions, result = tune.play(("sabouiyya", 0, 300, WHOLE_SETTING, 6, True))
    assert positions, "a game of six moving turns keeps some quiet positions"
    games = [Game.from_position("sabouiyya", p) for p in positions]
    assert not any(g.setting for g in games)
    assert all(g.count(0) <= 12 and g.count(1) <= 12 for g in games)
