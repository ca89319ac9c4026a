"""Checkers (seed 002) and English draughts (as Ludii plays it) on the 8x8
board: a test per ruling of docs/rules-leap.md, from positions."""

from __future__ import annotations

import pytest
from leap_helpers import game_at, leap_pos, legal

from controller.rules.leap import LeapGame
from controller.rules.leap_variants import find_leap_variant
from controller.rules.moves import IllegalMoveError

V = "checkers"
START = ".D.D.D.D/D.D.D.D./.D.D.D.D/......../......../A.A.A.A./.A.A.A.A/A.A.A.A. a m - 1"


def test_start_twelve_men_a_side_on_the_dark_squares() -> None:
    g = LeapGame.new(V)
    assert g.position() == START + " np=0"
    assert LeapGame.new("english-draughts").position() == START
    assert legal(g) == ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
    g.play("g3-h4")
    assert legal(g) == ["b6-a5", "b6-c5", "d6-c5", "d6-e5", "f6-e5", "f6-g5", "h6-g5"]


def test_men_step_forward_only() -> None:
    g = game_at(V, A="d4", D="h8")
    assert legal(g) == ["d4-c5", "d4-e5"]
    g = game_at(V, "d m - 5", A="a1", D="d4")
    assert legal(g) == ["d4-c3", "d4-e3"]


def test_men_capture_forward_only() -> None:
    g = game_at(V, A="d4", D="c3 e5 h8")
    assert legal(g) == ["d4-c5", "d4xf6"]  # not d4xb2 over the man behind


def test_captures_are_not_compulsory() -> None:
    g = game_at(V, A="d4 a1", D="e5 h8")
    moves = legal(g)
    assert "d4xf6" in moves and "d4-c5" in moves and "a1-b2" in moves
    g.play("a1-b2")
    assert g.to_move == "defender" and not g.huff


def test_chains_may_continue_or_pass() -> None:
    g = game_at(V, A="a3", D="b4 d6 h8")
    g.play("a3xc5")
    assert g.chain_square == "c5"
    assert legal(g) == ["c5xe7", "pass"]
    g.play("pass")
    assert g.to_move == "defender"
    assert g.piece_at("d6") == "defender"


def test_crowned_mid_chain_the_new_king_goes_on_capturing() -> None:
    g = game_at(V, A="b6", D="c7 e7 h2")
    g.play("b6xd8")
    assert g.is_king("d8")
    assert g.to_move == "attacker" and g.chain_square == "d8"
    assert legal(g) == ["d8xf6", "pass"]  # backwards: a king's leap
    assert g.position().startswith("...a....")
    g.play("d8xf6")
    assert g.to_move == "defender"
    assert g.count("defender") == 1 and g.is_king("f6")


def test_english_draughts_crowning_ends_the_turn() -> None:
    g = game_at("english-draughts", A="b6", D="c7 e7 h2")
    assert legal(g) == ["b6xd8"]
    g.play("b6xd8")
    assert g.is_king("d8")
    assert g.to_move == "defender" and g.chain_square is None


def test_kings_step_and_leap_in_every_direction() -> None:
    g = game_at(V, a="d4", D="c3 h8")
    assert legal(g) == ["d4-c5", "d4-e3", "d4-e5", "d4xb2"]
    g = game_at(V, "d m - 5", A="a1", d="e5")
    assert legal(g) == ["e5-d4", "e5-d6", "e5-f4", "e5-f6"]


def test_crowning_by_a_step() -> None:
    g = game_at(V, A="c7", D="h2")
    g.play("c7-d8")
    assert g.is_king("d8")
    assert g.piece_at("d8") == "attacker"
    g = game_at(V, "d m - 5", A="a7", D="e3")
    g.play("e3-f2")
    assert not g.is_king("f2")


def test_english_draughts_captures_and_chains_are_compulsory() -> None:
    g = game_at("english-draughts", A="d4 a1", D="e5 g7")
    assert legal(g) == ["d4xf6"]
    g = game_at("english-draughts", A="a3", D="b4 d6 h8")
    g.play("a3xc5")
    assert legal(g) == ["c5xe7"]
    with pytest.raises(IllegalMoveError):
        g.play("pass")


def test_all_captured_wins() -> None:
    g = game_at(V, A="d4", D="e5")
    g.play("d4xf6")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "all-captured")


def test_lockout_wins() -> None:
    # The Defender's last man, on h2, has g1 taken and nothing beyond it.
    g = game_at(V, A="b4 g1", D="h2")
    g.play("b4-c5")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "blocked")


def test_threefold_repetition_draws() -> None:
    g = game_at(V, "a m - 1", a="a1", d="h8")
    cycle = ("a1-b2", "h8-g7", "b2-a1", "g7-h8")
    for i in range(8):
        assert g.outcome is None, i
        g.play(cycle[i % 4])
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (None, "repetition")


def test_no_progress_limit_counts_king_moves_not_man_moves() -> None:
    g = game_at(V, "a m - 60 np=78", a="a1", D="h8")
    g.play("a1-b2")
    assert g.no_progress == 79
    g.play("h8-g7")  # a man's move is progress
    assert g.no_progress == 0
    g = game_at(V, "a m - 60 np=78", a="a1", d="h8")
    g.play("a1-b2")
    g.play("h8-g7")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (None, "no-progress")


def test_agreement_and_resignation() -> None:
    g = LeapGame.new(V)
    g.agree_draw()
    assert g.outcome is not None and g.outcome.winner is None
    assert g.outcome.reason == "agreement"
    with pytest.raises(IllegalMoveError):
        g.resign()
    g.pop()
    g.resign()
    assert g.outcome is not None and g.outcome.winner == "defender"


def test_a_variant_with_mandatory_chains_has_no_pass() -> None:
    strict = find_leap_variant(V).with_options(chain="mandatory")
    g = LeapGame.from_position(strict, leap_pos(V, A="a3", D="b4 d6 h8"))
    g.play("a3xc5")
    assert legal(g) == ["c5xe7"]
    with pytest.raises(ValueError, match="chain"):
        find_leap_variant(V).with_options(chain="sometimes")
    with pytest.raises(ValueError, match="colour"):
        find_leap_variant(V).with_options(colour="red")
