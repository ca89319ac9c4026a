"""The proof of the reconciler: random games acted out by simulated people
(bounce, hovering, wrong squares, removals in any order, hands over the
camera) replay to exactly the game played, for every variant and both
kinds of sensor.  1,000 games per variant and sensor, in chunks."""

from __future__ import annotations

import random

import pytest

from controller.reconcile.replay import replay
from controller.reconcile.simulator import simulate_log
from controller.rules import AnyGame, new_game

VARIANTS = ["kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya"]
GAMES = 1000
CHUNK = 100
LENGTHS = [12, 30, 60, 150, 400, 10**6]  # a mix: setting only, early, middle, whole games


def random_game(variant: str, rng: random.Random, limit: int) -> AnyGame:
    """A random game as players would make it: where passing wins at once
    the chain ends there; an unfinished game does not end on a pass (a
    pass shows nothing on the board)."""
    g = new_game(variant)
    while g.outcome is None and len(g.moves) < limit:
        moves = g.legal_moves()
        passing = next((m for m in moves if m.kind == "pass"), None)
        if passing is not None:
            g.play(passing)
            if g.outcome is not None:
                continue
            g.pop()
        g.play(rng.choice(moves))
    while g.outcome is None and g.moves and g.moves[-1].kind == "pass":
        g.pop()
    return g


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("chunk", range(GAMES // CHUNK))
def test_simulated_games_replay_exactly(variant: str, colour: bool, chunk: int) -> None:
    rng = random.Random(f"{variant}-{colour}-{chunk}")
    chains = 0
    for i in range(CHUNK):
        game = random_game(variant, rng, rng.choice(LENGTHS))
        log = simulate_log(game, seed=chunk * CHUNK + i, colour=colour)
        result = replay(log.splitlines(), variant)
        rec = result.reconciler
        assert rec is not None
        want = [str(m) for m in game.moves]
        got = [str(m) for m in rec.game.moves]
        assert not rec.finished, f"game {i}: a new game was started"
        assert got == want, f"game {i} of chunk {chunk}: first difference at " + str(
            next((k for k, (x, y) in enumerate(zip(got, want, strict=False)) if x != y),
                 min(len(got), len(want))))
        assert rec.game.outcome == game.outcome
        chains += sum(1 for m in game.moves if m.kind == "step" and m.capture)
    assert chains > 0
