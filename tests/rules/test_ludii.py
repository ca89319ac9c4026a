"""Move-by-move agreement with the Ludii system's sample games."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from controller.rules import Game

LUDII = Path(__file__).resolve().parents[3] / "shared" / "ludii"
WINNERS = {"P1": "attacker", "P2": "defender"}


def _games(name: str) -> list[dict[str, Any]]:
    path = LUDII / f"{name}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path} not found (shared/ sits beside the repository)")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _ours(game: Game) -> list[str]:
    moves = (str(m).replace("x", "-").upper() for m in game.legal_moves())
    return sorted(m.replace("PASS", "pass") for m in moves)


@pytest.mark.parametrize("variant", ["khamousiyya", "sabouiyya"])
def test_every_decision_matches_ludii(variant: str) -> None:
    games = _games(variant)
    assert games
    for record in games:
        game = Game.new(variant)
        for i, step in enumerate(record["steps"]):
            where = f"game {record['index']} step {i} ({game.position()})"
            assert game.outcome is None, f"{where}: ended early: {game.outcome}"
            assert game.to_move == ("attacker" if step["mover"] == 1 else "defender"), where
            assert _ours(game) == sorted(step["legal"]), where
            before = game.bitboards()
            game.play(step["move"].lower())
            after_a, after_d = game.bitboards()
            names = game.geometry.point_names
            gone = [names[p] for p in range(game.geometry.size)
                    if (before[0] | before[1]) >> p & 1 and not (after_a | after_d) >> p & 1]
            moved_from = [step["move"][:2].lower()] if "-" in step["move"] else []
            taken = sorted(s.upper() for s in gone if s not in moved_from)
            assert taken == sorted(step["captured"]), where
        assert game.outcome is not None, f"game {record['index']} did not end"
        if record["endType"] == "NaturalEnd":
            assert game.outcome.winner == WINNERS[record["result"]]
        else:
            assert game.outcome.winner is None and game.outcome.reason == "turn-limit"
