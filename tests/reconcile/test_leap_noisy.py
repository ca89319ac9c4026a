"""The noisy-games benchmark of the leap variants, in small: a few dozen
simulated noisy games a variant (occupancy and colour sensors in turn)
replay to exactly the game played, and a log that does not show the game
is counted as a failure, not as exact."""

from __future__ import annotations

import random

import pytest

from controller.reconcile.bench import (
    LEAP_VARIANTS,
    _replays_exactly,
    noisy_games,
    random_game,
)
from controller.reconcile.simulator import simulate_log

GAMES = 30  # a variant; ``make bench`` plays 1,000


@pytest.mark.parametrize("variant", LEAP_VARIANTS)
def test_a_few_dozen_noisy_games_replay_exactly(variant: str) -> None:
    tally = noisy_games(variant, GAMES, seed=1000)
    assert tally.failed == ()
    assert (tally.games, tally.exact, tally.colour) == (GAMES, GAMES, GAMES // 2)
    assert tally.captures > 0
    # The logs are noisy: many more frames than actions.
    assert tally.frames > 3 * tally.actions > 0
    assert tally.games_per_second > 0


def test_a_log_of_another_game_is_not_counted_exact() -> None:
    rng = random.Random(5)
    game = random_game("checkers", rng, 30)
    other = game.copy()
    other.pop()  # the log stops one action short of the game
    assert _replays_exactly(game, simulate_log(game, seed=5), "checkers")
    assert not _replays_exactly(game, simulate_log(other, seed=5), "checkers")
