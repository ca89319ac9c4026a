"""Move-by-move agreement of the leap games with the Ludii system's samples.

At every decision of every sample game: the same side to move, the same
set of legal actions, the same soldiers captured by the action played; at
the end, the same winner.  The samples are read from ../shared/ludii.
"""

from __future__ import annotations

from typing import Any

import pytest
from leap_helpers import ludii_games

from controller.rules.leap import LeapGame

SIDES = {1: "attacker", 2: "defender"}
WINNERS = {"P1": "attacker", "P2": "defender"}


def ours(game: LeapGame) -> list[str]:
    """Our legal actions in Ludii's notation."""
    return sorted("pass" if m.kind == "pass" else str(m).replace("x", "-").upper()
                  for m in game.legal_moves())


def replay(variant: str, record: dict[str, Any]) -> tuple[LeapGame, int]:
    """Play ``record`` checking every decision; returns the game and the
    number of decisions checked."""
    game = LeapGame.new(variant)
    names = game.geometry.point_names
    for i, step in enumerate(record["steps"]):
        where = f"{variant} game {record['index']} step {i} ({game.position()})"
        assert game.outcome is None, f"{where}: ended early: {game.outcome}"
        assert game.to_move == SIDES[step["mover"]], where
        assert ours(game) == sorted(step["legal"]), where
        before_a, before_d = game.bitboards()
        game.play(step["move"].lower())
        after_a, after_d = game.bitboards()
        enemy_before = before_d if step["mover"] == 1 else before_a
        enemy_after = after_d if step["mover"] == 1 else after_a
        taken = sorted(names[p].upper() for p in range(game.geometry.size)
                       if enemy_before >> p & 1 and not enemy_after >> p & 1)
        assert taken == sorted(step["captured"]), where
    return game, len(record["steps"])


@pytest.mark.parametrize(
    ("variant", "games", "decisions"),
    [("hewakam-keliya", 20, 7881), ("english-draughts", 30, 1974)],
)
def test_every_decision_matches_ludii(variant: str, games: int, decisions: int) -> None:
    records = ludii_games(variant)
    assert len(records) == games
    checked = 0
    for record in records:
        game, n = replay(variant, record)
        checked += n
        assert game.outcome is not None, f"game {record['index']} did not end"
        assert record["endType"] == "NaturalEnd"
        assert game.outcome.winner == WINNERS[record["result"]], f"game {record['index']}"
    assert checked == decisions


def test_the_samples_hold_chains_with_pass_and_captures() -> None:
    """The comparison covers the cases that matter: optional chains with
    ``pass`` in Hewakam Keliya, compulsory chains in English draughts."""
    hk = ludii_games("hewakam-keliya")
    assert sum("pass" in s["legal"] for r in hk for s in r["steps"]) > 100
    ed = ludii_games("english-draughts")
    repeats = [
        (a, b) for r in ed for a, b in zip(r["steps"], r["steps"][1:], strict=False)
        if a["mover"] == b["mover"]
    ]
    assert len(repeats) > 20
    assert all("pass" not in b["legal"] for _, b in repeats)
