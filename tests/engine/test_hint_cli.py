"""``kharbga-board hint``: an answer for good input, one line and exit
status 2 for bad input (never a traceback)."""

from __future__ import annotations

import pytest

from controller.cli import main
from controller.rules import Game, new_game

EMPTY7 = "/".join(["......."] * 7) + " a s - 0"


def test_hint_prints_a_legal_move_at_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    pos = Game.new("sabouiyya").position()
    assert main(["hint", "--variant", "sabouiyya", "--position", pos, "--time", "0.2",
                 "--level", "3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first in {str(m) for m in Game.new("sabouiyya").legal_moves()}


def test_hint_plays_the_leap_games(capsys: pytest.CaptureFixture[str]) -> None:
    g = new_game("english-draughts")
    assert main(["hint", "--variant", "english-draughts", "--position", g.position(),
                 "--time", "0.1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first in {str(m) for m in g.legal_moves()}
    # Without --position: the variant's start.
    assert main(["hint", "--variant", "english-draughts", "--time", "0.1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first in {str(m) for m in g.legal_moves()}



@pytest.mark.parametrize(("rank3", "to_move", "winner"),
                         [(".DA.D", "d", "Defender"), (".AD.A", "a", "Attacker")])
def test_a_forced_win_is_said_in_words(capsys: pytest.CaptureFixture[str], rank3: str,
                                       to_move: str, winner: str) -> None:
    # e3xd3 takes the other side's last soldier (c3, between d3 and b3).
    pos = f"...../...../{rank3}/...../..... {to_move} m - 10"
    assert main(["hint", "--variant", "sabouiyya", "--position", pos, "--time", "0.5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "e3xd3" and out[-1] == f"the {winner} wins by force in 1 action", out

@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--variant", "sabouiyya", "--position", EMPTY7], "7 ranks but sabouiyya"),
        (["--variant", "kharbga", "--position", "...../...../...../...../..... a s - 0"],
         "5 ranks but kharbga"),
        (["--variant", "kharbga", "--position", new_game("checkers").position()],
         "8 ranks but kharbga"),
        (["--variant", "kharbga", "--position", EMPTY7, "--time", "0"], "--time"),
        (["--variant", "kharbga", "--position", EMPTY7, "--time", "601"], "--time"),
        (["--variant", "kharbga", "--position", EMPTY7, "--time", "nan"], "--time"),
        (["--variant", "kharbga", "--position", EMPTY7, "--level", "0"], "--level"),
        (["--variant", "sabouiyya", "--position", "...../...../...../D..../AD... a m - 5"],
         "over"),
        (["--variant", "kharbga", "--position", "ADA/D.D a m - 1"], "rank"),
        (["--variant", "kharbga", "--position", EMPTY7.replace(" a s", " x s")], "side"),
        (["--variant", "nope", "--position", EMPTY7], "unknown variant"),
        (["--variant", "checkers", "--position", "garbage"], "fields"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hint", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err
    assert words in lines[0]



def _one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["hint", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    return err


@pytest.mark.parametrize("position", [
    "A" * 100_000 + " a m - 1",  # one rank, 100,000 squares
    "/".join(["A" * 5000] * 7) + " a m - 1",
    EMPTY7 + " " + "x" * 100_000,
    "/".join(["A" * 5000] * 8) + " a m - 1",  # a leap game's board of 8 ranks
])
def test_a_huge_position_is_named_in_short(position: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # The one line quotes the start of what was given and its length, not
    # the whole 100,000 characters.
    variant = "checkers" if position.count("/") == 7 else "kharbga"
    err = _one_line_error(["--variant", variant, "--position", position], capsys)
    assert len(err) < 300 and "characters)" in err, err[:400]

def test_a_time_above_the_limit_is_named_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    # Just above the limit: the number as given, not rounded to the limit
    # ("at most 600 seconds, not 600").
    err = _one_line_error(["--position", EMPTY7, "--time", "600.0001"], capsys)
    assert err.endswith("not 600.0001")


@pytest.mark.parametrize(
    ("position", "variant", "words", "code"),
    [
        ("...../...../...../D..../AD... a m - 5", "sabouiyya",
         "over in that position: Defender wins (the losing side could not move)", "(blocked)"),
        ("......./......./......./......./......./A....../DA..... d m - 2", "kharbga",
         "over in that position: Defender wins (blocked on the first move)",
         "blocked-first-turn"),
        ("......../......../......../......../......../......../......../........ a m - 1",
         "checkers", "Defender wins (all soldiers captured)", "all-captured"),
    ],
)
def test_a_game_over_says_who_won_and_why(
    position: str, variant: str, words: str, code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(["--variant", variant, "--position", position], capsys)
    assert words in err and code not in err


@pytest.mark.parametrize(
    ("position", "words", "not_words"),
    [
        # A 5x5 or 8x8 position: the variants whose board it fits are named.
        ("...../...../...../...../..... a s - 0", "--variant sabouiyya", None),
        (new_game("checkers").position(), "english-draughts or checkers", None),
        # Not a position of any variant: the rules' own reason, no advice
        # to change the variant.
        ("garbage", "needs 5 fields", "--variant"),
        ("/".join(["......."] * 6) + " a s - 0", "7 ranks, this one 6", "--variant"),
    ],
)
def test_another_boards_position_names_the_variants_it_fits(
    position: str, words: str, not_words: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _one_line_error(["--position", position], capsys)
    assert words in err
    assert not_words is None or not_words not in err
