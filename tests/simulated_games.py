"""Random games and their simulated sensor logs, for the replay tests."""

from __future__ import annotations

import random

from controller.reconcile.bench import random_game
from controller.reconcile.simulator import simulate_log
from controller.rules import AnyGame

__all__ = ["random_game", "random_log"]


def random_log(variant: str, seed: int, limit: int,
               colour: bool = False) -> tuple[AnyGame, list[str]]:
    """A random game (seeded) and the lines of its simulated sensor log."""
    game = random_game(variant, random.Random(seed), limit)
    return game, simulate_log(game, seed=seed, colour=colour).splitlines()
