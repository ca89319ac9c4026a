"""Random games and their simulated sensor logs, for the replay tests."""

from __future__ import annotations

import random

from controller.reconcile.simulator import simulate_log
from controller.rules import Game


def random_game(variant: str, rng: random.Random, limit: int) -> Game:
    """Random legal actions; an unfinished game does not end on a pass
    (a pass leaves no trace on the board)."""
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < limit:
        g.play(rng.choice(g.legal_moves()))
    while g.outcome is None and g.moves and g.moves[-1].kind == "pass":
        g.pop()
    return g


def random_log(variant: str, seed: int, limit: int, colour: bool = False) -> tuple[Game, list[str]]:
    """A random game (seeded) and the lines of its simulated sensor log."""
    game = random_game(variant, random.Random(seed), limit)
    return game, simulate_log(game, seed=seed, colour=colour).splitlines()
