"""scripts/depth_check.py: the short and the long search on a match's
openings, and the repeated-position key."""

from __future__ import annotations

import re

import pytest

from controller.rules import Game
from tests.engine.script_loader import load_script

dc = load_script("depth_check")


def test_a_shuffle_gives_the_same_key_and_a_new_position_string() -> None:
    g = Game.from_position("sabouiyya", "A..../...../...../...../....D a m - 1")
    before, key = g.position(), dc.board_key(g)
    g.play_all(["a5-a4", "e1-e2", "a4-a5", "e2-e1"])
    assert g.position() != before  # the turn number moved on
    assert dc.board_key(g) == key
    g.play("a5-b5")
    assert dc.board_key(g) != key


def test_a_run_looks_at_each_turn_asked_and_sums_up(capsys: pytest.CaptureFixture[str]) -> None:
    assert dc.main(["--variant", "khamousiyya", "--pairs", "2", "--opening", "8",
                    "--time", "0.02", "--deep", "0.1", "--at", "3,1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("khamousiyya, seed 1, openings of 8 placements")
    lines = [x for x in out if x.startswith("pair ") and " turn " in x and "ended" not in x]
    turns = [(int(m[1]), int(m[2])) for x in lines
             if (m := re.match(r"pair (\d+) turn (\d+): pieces \d+-\d+; short [+-]\d+ depth "
                               r"\d+ \S+; deep [+-]\d+ depth \d+ \S+", x))]
    assert turns == [(0, 1), (0, 3), (1, 1), (1, 3)]
    agree = sum(1 for x in lines
                if (m := re.search(r"short ([+-]\d+) depth \d+ (\S+); deep ([+-]\d+) depth \d+ "
                                   r"(\S+)", x))
                and abs(int(m[1]) - int(m[3])) <= 25 and m[2] == m[4])
    assert out[-1].startswith(f"4 positions: the long search agreed with the short one "
                              f"(within 25, the same move) in {agree};")


def test_the_deep_search_goes_deeper_than_the_short_one() -> None:
    checks, ended = dc.check_pair("sabouiyya", 1, 0, 8, 0.02, 0.4, [2])
    assert ended is None and len(checks) == 1
    assert checks[0].deep[1] > checks[0].short[1]


@pytest.mark.parametrize("args, words", [
    (["--deep", "0"], "--deep: above 0"),
    (["--time", "601"], "--time: above 0"),
    (["--at", "x"], "--at: turns separated by commas"),
    (["--at", "-1"], "--at: turns from 0 up"),
    (["--pairs", "0"], "--pairs: at least 1"),
    (["--variant", "checkers"], "not a Kharbga-family variant"),
    (["--variant", "nope"], "unknown variant 'nope'"),
    (["--opening", "x"], "--opening: a number of placements"),
])
def test_bad_arguments_give_one_line_and_status_2(
        args: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert dc.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("depth_check: ") and words in err and err.count("\n") == 1
