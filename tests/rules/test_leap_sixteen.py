"""Sixteen Soldiers (seed 004) on the 37-point board: a test per ruling of
docs/rules-leap.md, from positions."""

from __future__ import annotations

import pytest
from leap_helpers import game_at, legal

from controller.rules.leap import LeapGame
from controller.rules.moves import IllegalMoveError

V = "sixteen-soldiers"
START = "DDD/DDD/DDDDD/DDDDD/...../AAAAA/AAAAA/AAA/AAA a m - 1 np=0"


def test_start_sixteen_a_side_on_the_first_four_ranks() -> None:
    g = LeapGame.new(V)
    assert g.position() == START
    assert g.count("attacker") == g.count("defender") == 16
    assert legal(g) == ["a4-a5", "b4-a5", "b4-b5", "b4-c5", "c4-c5",
                        "d4-c5", "d4-d5", "d4-e5", "e4-e5"]


def test_steps_follow_the_lines_of_the_triangles() -> None:
    g = game_at(V, A="c3", D="e9")
    # c3 is where the lower triangle's spokes meet the grid.
    assert legal(g) == ["c3-b2", "c3-b3", "c3-b4", "c3-c2", "c3-c4",
                        "c3-d2", "c3-d3", "c3-d4"]
    g = game_at(V, A="a1", D="e9")
    assert legal(g) == ["a1-b2", "a1-c1"]


def test_capture_by_a_short_leap_in_any_direction() -> None:
    g = game_at(V, A="c5", D="c4 b6 d5 e9")
    # backwards (c4), diagonally (b6), sideways (d5): all three leap.
    leaps = [m for m in legal(g) if "x" in m]
    assert leaps == ["c5xa7", "c5xc3", "c5xe5"]
    g.play("c5xc3")
    assert g.piece_at("c4") is None
    assert g.piece_at("c3") == "attacker"
    assert g.to_move == "defender"


def test_leap_needs_an_empty_point_beyond_on_the_same_line() -> None:
    # b3 has no diagonals: no leap from b3 over c4 to d5.
    g = game_at(V, A="b3", D="c4 e9")
    assert not [m for m in legal(g) if "x" in m]
    g = game_at(V, A="c3 c5", D="c4 e9")
    assert "c3xc5" not in legal(g)


def test_several_captures_any_one() -> None:
    g = game_at(V, A="c3", D="c4 d4 a9")
    assert [m for m in legal(g) if "x" in m] == ["c3xc5", "c3xe5"]
    g.play("c3xe5")
    assert g.piece_at("c4") == "defender"
    assert g.to_move == "defender"


def test_chain_continues_changing_direction_and_is_mandatory() -> None:
    g = game_at(V, A="a3", D="b4 c6 a9")
    g.play("a3xc5")
    assert g.to_move == "attacker"
    assert g.chain_square == "c5"
    assert legal(g) == ["c5xc7"]  # no pass, no other soldier, no step
    assert g.position().split()[3] == "c5"
    with pytest.raises(IllegalMoveError):
        g.play("pass")
    g.play("c5xc7")
    assert g.to_move == "defender" and g.chain_square is None
    assert g.count("defender") == 1


def test_huffing_the_soldier_that_failed_to_capture() -> None:
    g = game_at(V, A="c3 a3", D="c4 e9")
    assert "a3-a4" in legal(g)  # a step is allowed: huffing is the penalty
    g.play("a3-a4")
    assert g.to_move == "defender"
    assert legal(g) == ["xc3"]
    assert g.position().endswith("hf=c3")
    m = g.play("xc3")
    assert m.kind == "remove" and str(m) == "xc3"
    assert g.piece_at("c3") is None
    assert g.to_move == "defender"  # now the Defender's own move
    assert "xc3" not in legal(g) and all("-" in m or "x" in m for m in legal(g))


def test_a_huffed_soldier_that_moved_is_removed_where_it_stands() -> None:
    g = game_at(V, A="c3 a3", D="c4 e9")
    g.play("c3-d3")
    assert legal(g) == ["xd3"]


def test_with_several_soldiers_that_could_capture_the_opponent_chooses() -> None:
    g = game_at(V, A="c3 e5 a3", D="c4 e6 a9")
    g.play("a3-a4")
    assert legal(g) == ["xc3", "xe5"]
    g.play("xe5")
    assert g.piece_at("c3") == "attacker" and g.piece_at("e5") is None


def test_no_huff_after_a_capture_or_without_a_capture_on_offer() -> None:
    g = game_at(V, A="c3 e5", D="c4 e6 a9")
    g.play("c3xc5")  # captured with another soldier than e5: no huff
    assert not g.huff and "xe5" not in legal(g)
    g = game_at(V, A="c3", D="e6 a9")
    g.play("c3-c4")
    assert not g.huff


def test_huff_removal_counts_and_can_end_the_game() -> None:
    g = game_at(V, A="c3", D="c4 e9")
    g.play("c3-d3")
    g.play("xd3")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "all-captured")
    g.pop()
    assert g.outcome is None and legal(g) == ["xd3"]


def test_a_side_without_a_move_loses() -> None:
    g = game_at(V, A="c9 e9 b8 c7 a3", D="a9")
    g.play("a3-a4")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "blocked")


def test_capturing_the_last_soldier_wins() -> None:
    g = game_at(V, A="c3", D="c4")
    g.play("c3xc5")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "all-captured")


def test_third_repetition_draws() -> None:
    g = game_at(V, "a m - 1", A="a3", D="e9")
    for _ in range(2):
        for m in ("a3-a4", "e9-d8", "a4-a3", "d8-e9"):
            assert g.outcome is None
            g.play(m)
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (None, "repetition")
    g.pop()
    assert g.outcome is None


def test_no_progress_limit_draws() -> None:
    g = game_at(V, "a m - 40 np=98", A="a3", D="e9")
    g.play("a3-a4")
    assert g.outcome is None and g.no_progress == 99
    g.play("e9-d8")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (None, "no-progress")


def test_a_turn_with_a_huff_is_progress() -> None:
    g = game_at(V, "a m - 9 np=40", A="c3 a3", D="c4 e9")
    g.play("a3-a4")
    assert g.no_progress == 41
    g.play("xc3")
    g.play("e9-d8")
    assert g.no_progress == 0


def test_a_huff_is_numbered_with_the_move_of_its_turn() -> None:
    # The move list, the record and the position number turns alike: the
    # huff and the move after it are one turn of the huffing side.
    from controller.rules import new_game
    from controller.rules.record import Record, group_turns, parse_record

    g = new_game("sixteen-soldiers")
    for m in ["c4-c5", "b6-b5", "xc6", "a4-a5"]:
        g.play(m)
    assert list(group_turns(g)) == [["c4-c5"], ["b6-b5"], ["xc6", "a4-a5"]]
    assert g.position().split()[4] == "4"  # the Defender's turn 4 comes next
    text = str(Record.from_game(g, {}))
    assert "3. xc6 a4-a5" in text
    assert [str(m) for m in parse_record(text).game().moves] == ["c4-c5", "b6-b5", "xc6", "a4-a5"]
