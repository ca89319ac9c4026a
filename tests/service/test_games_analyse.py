"""``kharbga-board games analyse ID``: the archive's game looked back at
with the engine, and one line, exit status 2, for what cannot be."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.cli import main
from controller.engine.api import MAX_SECONDS, best_move
from controller.engine.review import DEFAULT_NODES
from controller.rules import Game
from controller.service.store import Store

# The Defender to move; c4-d4 loses pieces (tests/engine/test_review.py).
POSITION = "ADDAADD/DADADAD/AA...DA/D.D..DD/AA.A.AA/DA.ADDA/DAAADDD d m - 6 np=0 off=4,0,0,4,0,0"


def _stored(data: Path, first: str | None) -> int:
    """A game from POSITION in an archive in ``data``: ``first`` played,
    then the engine's answer (None: no moves at all)."""
    store = Store(data)
    game = Game.from_position("kharbga", POSITION)
    if first is not None:
        game.play(first)
        while game.to_move == "attacker" and game.outcome is None:
            move = best_move(game, MAX_SECONDS, max_nodes=DEFAULT_NODES, book=False).move
            assert move is not None
            game.play(move)
    gid = store.new_game(game, "Amel", "Youssef")
    store.close()
    return gid


def test_a_blunder_is_marked_and_each_side_summed_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gid = _stored(tmp_path, "c4-d4")
    assert main(["games", "analyse", str(gid), "--data-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert not err and lines[0].startswith(f"game {gid} (kharbga): ")
    assert lines[2].split()[:3] == ["30.", "defender", "c4-d4"]
    assert lines[2].endswith(" ??") and " best " in lines[2]
    assert lines[3].split()[:2] == ["31.", "attacker"] and "?" not in lines[3]
    assert lines[4].startswith("attacker: 0 mistakes, 0 blunders, average loss 0.00 pieces "
                               "over 1 turn")
    assert lines[5].startswith("defender: 0 mistakes, 1 blunder, average loss ")
    assert len(lines) == 6


def test_a_setting_turn_that_lets_the_centre_be_sealed_is_marked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # khamousiyya: the Defender's @c4 @a5 lets the Attacker seal it in
    # (tests/engine/test_review.py); a blocked Defender loses there.
    game = Game.new("khamousiyya")
    for token in ("@d5", "@d6", "@c4", "@a5"):
        game.play(token)
    store = Store(tmp_path)
    gid = store.new_game(game, "Amel", "Youssef")
    store.close()
    assert main(["games", "analyse", str(gid), "--data-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split()[:4] == ["1.", "attacker", "@d5", "@d6"] and "?" not in lines[2]
    assert lines[3].split()[:4] == ["2.", "defender", "@c4", "@a5"]
    assert " best " in lines[3] and lines[3].endswith(" ??")
    assert lines[5].startswith("defender: 0 mistakes, 1 blunder, average loss ")


def test_a_flagged_step_is_explained_once_the_game_has_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain, flagged = tmp_path / "plain", tmp_path / "flagged"
    for data, first in ((plain, "f5-e5"), (flagged, "f5-e5=")):
        gid = _stored(data, first)
        assert main(["games", "analyse", str(gid), "--data-dir", str(data),
                     "--nodes", "500"]) == 0
        out = capsys.readouterr().out
        said = "a step ending in = raises the exchange flag" in out
        assert said == (data == flagged), out


def test_a_budget_is_given_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gid = _stored(tmp_path, "f5-e5")
    assert main(["games", "analyse", str(gid), "--data-dir", str(tmp_path),
                 "--nodes", "500"]) == 0
    assert "f5-e5" in capsys.readouterr().out
    assert main(["games", "analyse", str(gid), "--data-dir", str(tmp_path), "--time", "0.05"]) == 0
    assert "f5-e5" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["games", "analyse", str(gid), "--nodes", "5", "--time", "1"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(("args", "words"), [
    (["--nodes", "0"], "--nodes must be from 1 to 1,000,000,000,000, not 0"),
    (["--nodes", "-3"], "--nodes must be from 1 to 1,000,000,000,000, not -3"),
    # Before: the analysis's header, then "OverflowError: int too big to convert".
    (["--nodes", "9" * 23],
     "--nodes must be from 1 to 1,000,000,000,000, not 99999999999999999..."),
    (["--time", "0"], "--time must be more than 0 and at most 600 seconds, not 0"),
    (["--time", "600.5"], "--time must be more than 0 and at most 600 seconds, not 600.5"),
])
def test_a_budget_that_is_no_budget_is_one_line(
        args: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gid = _stored(tmp_path, "f5-e5")
    assert main(["games", "analyse", str(gid), "--data-dir", str(tmp_path), *args]) == 2
    assert capsys.readouterr() == ("", f"kharbga-board: {words}\n")


def test_what_cannot_be_looked_back_at_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    played = _stored(tmp_path, "f5-e5")
    empty = _stored(tmp_path, None)
    edited = _stored(tmp_path, "f5-e5")
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        db.execute("UPDATE actions SET token='b7-b6' WHERE game_id=? AND ply=0", (edited,))
    archive = tmp_path / "games.sqlite3"
    for gid, words in ((77, f"no game 77 in {tmp_path}"),
                       (empty, f"game {empty} has no moves to look back at"),
                       (edited, f"game {edited} in {archive} does not replay under these "
                                "rules (action 1 (b7-b6): ")):
        assert main(["games", "analyse", str(gid), "--data-dir", str(tmp_path)]) == 2
        out, err = capsys.readouterr()
        assert not out and err.startswith(f"kharbga-board: {words}"), err
        assert err.count("\n") == 1
    assert main(["games", "analyse", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("kharbga-board: games analyse needs a game id (see: "
                                       "games list)\n")
    # The budget belongs to analyse: elsewhere it is refused, not ignored.
    assert main(["games", "show", str(played), "--data-dir", str(tmp_path),
                 "--nodes", "5"]) == 2
    assert capsys.readouterr().err == ("kharbga-board: --nodes and --time are for games "
                                       "analyse, not games show\n")
