"""Variant ``kharbga``: every rule of RULES.md ("Common ground" and "Variant
kharbga"), from hand-made positions.

Positions are written with the helpers of ``helpers.py``: ``pos(a, d, tail)``
lists the Attacker's and the Defender's squares and the rest of the position
string (side, phase, chain square, turn, extra fields).
"""

from __future__ import annotations

import random

import pytest
from helpers import NEAR_CENTRE, filled, legal, pos, setting_pos, undo_restores

from controller.rules import Game, IllegalMoveError, PositionError

V = "kharbga"


def game(position: str) -> Game:
    return Game.from_position(V, position)


# ----------------------------------------------------------------------
# Setting phase


def test_new_game_places_anywhere_but_the_centre() -> None:
    g = Game.new(V)
    moves = legal(g)
    assert len(moves) == 48
    assert "@d4" not in moves
    with pytest.raises(IllegalMoveError):
        g.play("@d4")
    assert g.position() == pos("", "", "a s - 0")


def test_centre_is_never_placeable_late_in_the_setting() -> None:
    # Two squares left besides the centre: the Defender's last turn.
    g = game(setting_pos(a="c4", empty="a1 b1"))
    assert g.to_move == "defender"
    assert legal(g) == ["@a1", "@b1"]
    with pytest.raises(IllegalMoveError):
        g.play("@d4")


def test_setting_position_with_a_piece_on_the_centre_is_rejected() -> None:
    with pytest.raises(PositionError):
        game(pos("d4", "", "d s - 0"))


def test_two_placements_per_turn_alternating_attacker_first() -> None:
    g = Game.new(V)
    g.play("@a1")
    assert (g.to_move, g.phase) == ("attacker", "setting")
    assert g.position() == pos("a1", "", "a s - 0")
    g.play("@b1")
    assert g.to_move == "defender"
    g.play("@c1")
    assert g.to_move == "defender"
    assert g.position() == pos("a1 b1", "c1", "d s - 0")
    g.play("@d1")
    assert g.to_move == "attacker"
    assert g.position() == pos("a1 b1", "c1 d1", "a s - 0")
    assert (g.in_hand("attacker"), g.in_hand("defender")) == (22, 22)
    with pytest.raises(IllegalMoveError):
        g.play("@a1")  # occupied
    assert g.turn == 0 and g.outcome is None


def test_nothing_is_captured_during_setting() -> None:
    g = Game.new(V)
    g.play_all(["@b5", "@d5"])  # Attacker
    g.play_all(["@c5", "@c2"])  # Defender: c5 between two Attacker pieces
    g.play_all(["@c1", "@c3"])  # Attacker closes c1..c3 around c2
    g.play_all(["@a1", "@g1"])
    assert g.position() == pos("b5 d5 c1 c3", "c5 c2 a1 g1", "a s - 0")


def test_defender_may_not_fill_the_last_empty_square_next_to_the_centre() -> None:
    # The Defender holds c4, e4 and d3; d5 is the last empty centre-adjacent
    # square and the Attacker has no piece next to the centre.
    empty = "d5 a1 b1 c1 d1 e1 f1 g1 a2 b2"
    g = game(setting_pos(d="c4 e4 d3", empty=empty, attackers=20))
    assert g.to_move == "defender"
    others = sorted(f"@{s}" for s in empty.split() if s != "d5")
    assert legal(g) == others
    with pytest.raises(IllegalMoveError):
        g.play("@d5")
    g.play("@a1")  # the second placement of the turn: still not d5
    assert g.to_move == "defender"
    assert "@d5" not in legal(g)
    g.play("@b1")
    assert g.to_move == "attacker"
    assert "@d5" in legal(g)


def test_defender_may_fill_the_centre_ring_once_the_attacker_is_there() -> None:
    empty = "d5 a1 b1 c1 d1 e1 f1 g1 a2 b2"
    g = game(setting_pos(a="e4", d="c4 d3", empty=empty, attackers=20))
    assert g.to_move == "defender"
    assert legal(g) == sorted(f"@{s}" for s in empty.split())
    g.play("@d5")
    assert g.piece_at("d5") == "defender"


def test_attacker_last_placement_must_go_next_to_the_centre() -> None:
    # Attacker 23 pieces, none next to the centre: its 24th must go on d5.
    g = game(setting_pos(d="c4 e4 d3", empty="d5 a1 b1", attackers=23))
    assert g.to_move == "attacker" and g.in_hand("attacker") == 1
    assert legal(g) == ["@d5"]
    with pytest.raises(IllegalMoveError):
        g.play("@a1")
    g.play("@d5")
    assert g.to_move == "defender"
    assert legal(g) == ["@a1", "@b1"]


def test_attacker_first_placement_of_its_last_turn_is_free() -> None:
    g = game(setting_pos(d="c4 e4", empty="d5 d3 a1 b1", attackers=22))
    assert g.to_move == "attacker" and g.in_hand("attacker") == 2
    assert legal(g) == ["@a1", "@b1", "@d3", "@d5"]
    g.play("@a1")
    assert legal(g) == ["@d3", "@d5"]


def test_attacker_last_placement_is_free_when_it_is_already_next_to_the_centre() -> None:
    g = game(setting_pos(a="e4", d="c4 d3", empty="d5 a1 b1", attackers=23))
    assert legal(g) == ["@a1", "@b1", "@d5"]


def test_setting_ends_with_the_attacker_to_move_in_turn_1() -> None:
    a, d = filled(a="c4 e4", d="d5 d3 d6 d2", empty="d4 a1 b1", attackers=24)
    g = game(pos(a, d, "d s - 0"))
    assert g.in_hand("defender") == 2
    g.play("@a1")
    assert g.phase == "setting"
    g.play("@b1")
    assert (g.phase, g.to_move, g.turn, g.chain_square) == ("moving", "attacker", 1, None)
    assert g.position() == pos(a, f"{d} a1 b1", "a m - 1 np=0")
    assert legal(g) == ["c4-d4", "e4-d4"]
    assert g.in_hand("attacker") == 0


@pytest.mark.parametrize("seed", range(40))
def test_random_settings_always_leave_the_attacker_a_first_move(seed: int) -> None:
    rng = random.Random(seed)
    g = Game.new(V)
    while g.phase == "setting":
        g.play(rng.choice(g.legal_moves()))
    assert (g.to_move, g.turn, g.outcome) == ("attacker", 1, None)
    assert g.count("attacker") == g.count("defender") == 24
    near_attackers = [s for s in NEAR_CENTRE if g.piece_at(s) == "attacker"]
    assert near_attackers
    assert sorted(m[:2] for m in legal(g)) == sorted(near_attackers)
    assert all(m[3:] == "d4" for m in legal(g))


# ----------------------------------------------------------------------
# Custodial capture


def test_single_capture() -> None:
    g = game(pos("b4 c6 g7", "c5 a1", "a m - 5 np=3"))
    assert str(g.play("b4-c4")) == "b4xc4"
    assert g.position() == pos("c4 c6 g7", "a1", "d m - 6 np=0 off=0,0,0,1,0,0")
    assert g.off_board("defender") == (1, 0, 0)


def test_double_capture_in_one_step() -> None:
    g = game(pos("b4 c6 c2", "c5 c3 a7", "a m - 5"))
    assert str(g.play("b4-c4")) == "b4xc4"
    assert g.position() == pos("c4 c6 c2", "a7", "d m - 6 np=0 off=0,0,0,2,0,0")


def test_triple_capture_in_one_step() -> None:
    g = game(pos("e2 e5 g3 c3", "e4 f3 d3 a7", "a m - 5"))
    assert str(g.play("e2-e3")) == "e2xe3"
    assert g.position() == pos("e3 e5 g3 c3", "a7", "d m - 6 np=0 off=0,0,0,3,0,0")


def test_no_capture_along_the_direction_the_piece_came_from() -> None:
    # b4 steps to c4 and takes north, east and south; the line back west
    # (b4 now empty, then a4) takes nothing, and a4 stays.
    g = game(pos("b4 c6 e4 c2", "c5 d4 c3 a4", "a m - 5"))
    assert str(g.play("b4-c4")) == "b4xc4"
    assert g.position() == pos("c4 c6 e4 c2", "a4", "d m - 6 np=0 off=0,0,0,3,0,0")


def test_defender_captures_too() -> None:
    g = game(pos("c5 a1", "b4 c6", "d m - 6"))
    assert str(g.play("b4-c4")) == "b4xc4"
    assert g.position() == pos("a1", "c4 c6", "a m - 7 np=0 off=1,0,0,0,0,0")


def test_a_piece_moving_between_two_enemies_is_safe() -> None:
    g = game(pos("b3 d3 g7", "c2 a7", "d m - 6"))
    assert "c2-c3" in legal(g)
    assert str(g.play("c2-c3")) == "c2-c3"
    assert g.position() == pos("b3 d3 g7", "c3 a7", "a m - 7 np=1")
    g.play("g7-g6")  # an unrelated Attacker step takes nothing
    assert g.piece_at("c3") == "defender"


def test_sandwich_from_the_setting_stays_until_an_enemy_step_completes_it() -> None:
    # c4 (D) has sat between b4 and d4 (A) since the setting.
    g = game(pos("b4 d4 g1", "c4 a7", "a m - 5"))
    g.play("g1-g2")
    assert g.piece_at("c4") == "defender"
    g.play("a7-a6")
    g.play("d4-e4")  # leaves
    g.play("a6-a7")
    assert str(g.play("e4-d4")) == "e4xd4"  # comes back: the sandwich is completed
    assert g.piece_at("c4") is None
    assert g.off_board("defender") == (1, 0, 0)


def test_only_the_moved_piece_captures() -> None:
    # c4 (D) sits between b4 and d4 (A); the step e5-f5 takes f6 (with f7)
    # and nothing else.
    g = game(pos("b4 d4 e5 f7", "c4 f6 a1", "a m - 5"))
    assert str(g.play("e5-f5")) == "e5xf5"
    assert g.position() == pos("b4 d4 f5 f7", "c4 a1", "d m - 6 np=0 off=0,0,0,1,0,0")


def test_the_centre_is_an_ordinary_square_in_kharbga() -> None:
    g = game(pos("b4 c6 e4 c2", "c5 d4 c3 a7", "a m - 5"))
    g.play("b4-c4")
    assert g.piece_at("d4") is None
    assert g.off_board("defender") == (3, 0, 0)


# ----------------------------------------------------------------------
# Optional captures, mandatory chains


def test_capturing_is_optional() -> None:
    g = game(pos("b4 c6", "c5 a1", "a m - 5 np=3"))
    assert legal(g) == [
        "b4-a4", "b4-b3", "b4-b5", "b4xc4", "c6-b6", "c6-c7", "c6-d6",
    ]
    assert str(g.play("c6-d6")) == "c6-d6"
    assert g.position() == pos("b4 d6", "c5 a1", "d m - 6 np=4")


def chain_game() -> Game:
    # b4xc4 takes c5 (with c6); from c4, back to b4 takes b5 (with b6).
    # g2xg3 (takes f3 with e3) is another capture of another piece.
    return game(pos("b4 c6 b6 e3 g2", "c5 b5 f3", "a m - 5 np=3"))


def test_chain_is_mandatory_and_only_the_chaining_piece_moves() -> None:
    g = chain_game()
    assert "g2xg3" in legal(g)
    g.play("b4-c4")
    assert (g.to_move, g.chain_square) == ("attacker", "c4")
    assert g.position() == pos("c4 c6 b6 e3 g2", "b5 f3", "a m c4 5 np=3 off=0,0,0,1,0,0")
    assert legal(g) == ["c4xb4"]
    for move in ("pass", "g2-g3", "c4-c3", "c4-d4"):
        with pytest.raises(IllegalMoveError):
            g.play(move)


def test_chain_may_return_to_the_square_it_came_from_and_then_ends() -> None:
    g = chain_game()
    g.play("b4-c4")
    assert str(g.play("c4-b4")) == "c4xb4"
    assert (g.to_move, g.chain_square) == ("defender", None)
    assert g.position() == pos("b4 c6 b6 e3 g2", "f3", "d m - 6 np=0 off=0,0,0,2,0,0")
    assert g.off_board("defender") == (2, 0, 0)
    assert [str(m) for m in g.moves] == ["b4xc4", "c4xb4"]


def test_chain_ends_when_no_capture_is_left() -> None:
    # After b4xc4 (takes c5) the piece on c4 could step on but takes nothing.
    g = game(pos("b4 c6", "c5 a1", "a m - 5"))
    g.play("b4xc4")
    assert (g.to_move, g.chain_square, g.turn) == ("defender", None, 6)


def test_position_with_a_chain_square_lists_only_its_captures() -> None:
    g = game(pos("c4 c6 b6 e3 g2", "b5 f3", "a m c4 5"))
    assert legal(g) == ["c4xb4"]
    with pytest.raises(PositionError):
        game(pos("c4", "b5", "a m b5 5"))  # b5 holds no Attacker piece


# ----------------------------------------------------------------------
# Blocked sides


def first_turn_board() -> tuple[str, str]:
    # Only c4 can enter the centre; afterwards the hole on c4 is surrounded
    # by Attacker pieces (b4, c5, c3 and the piece now on d4).
    return filled(a="c4 b4 c5 c3", d="d5 e4 d3 d6 f4 d2", empty="d4", attackers=24)


def test_defender_blocked_after_the_attackers_first_turn_wins() -> None:
    a, d = first_turn_board()
    g = game(pos(a, d, "a m - 1"))
    assert legal(g) == ["c4-d4"]
    g.play("c4-d4")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "blocked-first-turn")
    assert g.outcome.result == "0-1"
    assert legal(g) == []
    with pytest.raises(IllegalMoveError):
        g.play("b4-c4")


def test_defender_blocked_later_lets_the_attacker_move_again() -> None:
    a, d = first_turn_board()
    g = game(pos(a, d, "a m - 7"))
    g.play("c4-d4")
    assert g.outcome is None
    assert (g.to_move, g.turn) == ("attacker", 8)
    assert legal(g) == ["b4-c4", "c3-c4", "c5-c4", "d4-c4"]


def test_blocked_side_waits_as_often_as_needed() -> None:
    # The Defender's only piece a1 is shut in by a2 and b1.
    g = game(pos("a2 b1 g4", "a1", "a m - 10 np=0"))
    g.play("g4-g5")
    assert g.position() == pos("a2 b1 g5", "a1", "a m - 11 np=1")
    g.play("g5-g6")
    assert g.position() == pos("a2 b1 g6", "a1", "a m - 12 np=2")
    g.play("b1-c1")
    assert g.position() == pos("a2 c1 g6", "a1", "d m - 13 np=3")
    assert legal(g) == ["a1-b1", "a1-b1="]


def test_a_blocked_side_to_move_in_a_position_string_passes_the_turn() -> None:
    g = game(pos("a2 b1 g4", "a1", "d m - 10"))
    assert g.to_move == "attacker"
    assert "g4-g5" in legal(g)


def test_blocked_attacker_lets_the_defender_move_again() -> None:
    g = game(pos("a1", "a2 b1 g4", "d m - 10"))
    g.play("g4-g5")
    assert (g.to_move, g.turn) == ("defender", 11)
    g.play("b1-c1")
    assert g.to_move == "attacker"


# ----------------------------------------------------------------------
# Exchange (two for one)

# Attacker soldiers on a1, c1, e1; Defender soldiers on a7, c7.
EX_A = "a1 c1 e1"
EX_D = "a7 c7"


def test_attacker_cannot_raise_the_flag_without_a_request() -> None:
    g = game(pos(EX_A, EX_D, "a m - 9"))
    assert not [m for m in legal(g) if m.endswith("=")]
    with pytest.raises(IllegalMoveError):
        g.play("c1-c2=")


def test_defender_may_flag_any_non_capturing_step() -> None:
    g = game(pos(EX_A, EX_D, "d m - 10"))
    assert legal(g) == [
        "a7-a6", "a7-a6=", "a7-b7", "a7-b7=",
        "c7-b7", "c7-b7=", "c7-c6", "c7-c6=", "c7-d7", "c7-d7=",
    ]


def test_flagged_capturing_steps_do_not_exist() -> None:
    g = game(pos("c5 a1 e1", "b4 c6", "d m - 10"))
    assert "b4xc4" in legal(g)
    assert "b4xc4=" not in legal(g) and "b4-c4=" not in legal(g)
    with pytest.raises(IllegalMoveError):
        g.play("b4-c4=")


def test_exchange_completes_step_by_step() -> None:
    g = game(pos(EX_A, EX_D, "d m - 10 np=7"))
    # 1. the Defender asks with the soldier on a7
    assert undo_restores(g, "a7-a6=") == pos(EX_A, "a6 c7", "a m - 11 ex=1:a6 np=8")
    assert g.exchange is not None and g.exchange.stage == 1
    assert sorted(m for m in legal(g) if m.endswith("=")) == [
        "a1-a2=", "a1-b1=", "c1-b1=", "c1-c2=", "c1-d1=", "e1-d1=", "e1-e2=", "e1-f1=",
    ]
    # 2. the Attacker accepts, offering c1 (now on c2)
    assert undo_restores(g, "c1-c2=") == pos("a1 c2 e1", "a6 c7", "d m - 12 ex=2:a6:c2 np=9")
    # 3. the Defender takes it with the same soldier
    assert undo_restores(g, "a6-a5=") == pos("a1 c2 e1", "a5 c7", "a m - 13 ex=3:a5:c2 np=10")
    # 4. the Attacker offers a second soldier; A1 (c2) cannot be offered again
    flagged = sorted(m for m in legal(g) if m.endswith("="))
    assert flagged == ["a1-a2=", "a1-b1=", "e1-d1=", "e1-e2=", "e1-f1="]
    assert "c2-c3" in legal(g)
    with pytest.raises(IllegalMoveError):
        g.play("c2-c3=")
    assert undo_restores(g, "e1-e2=") == pos(
        "a1 c2 e2", "a5 c7", "d m - 14 ex=4:a5:c2:e2 np=11"
    )
    # 5. the Defender's soldier steps flagged once more: S, A1, A2 go
    assert undo_restores(g, "a5-a4=") == pos("a1", "c7", "a m - 15 np=0 off=0,2,0,0,1,0")
    assert g.exchange is None
    assert g.to_move == "attacker"
    assert g.off_board("attacker") == (0, 2, 0)
    assert g.off_board("defender") == (0, 1, 0)
    assert g.outcome is None


def test_attacker_denies_with_an_unflagged_step() -> None:
    g = game(pos(EX_A, "a6 c7", "a m - 11 ex=1:a6"))
    g.play("c1-c2")
    assert g.exchange is None
    assert g.position() == pos("a1 c2 e1", "a6 c7", "d m - 12 np=1")


def test_defender_flag_with_another_soldier_restarts_the_request() -> None:
    g = game(pos("a1 c2 e1", "a6 c7", "d m - 12 ex=2:a6:c2"))
    g.play("c7-c6=")
    assert g.position() == pos("a1 c2 e1", "a6 c6", "a m - 13 ex=1:c6 np=1")


def test_defender_unflagged_step_withdraws_the_request() -> None:
    g = game(pos("a1 c2 e1", "a6 c7", "d m - 12 ex=2:a6:c2"))
    g.play("a6-a5")
    assert g.exchange is None
    assert g.position() == pos("a1 c2 e1", "a5 c7", "a m - 13 np=1")
    assert not [m for m in legal(g) if m.endswith("=")]


def test_attacker_denies_the_second_soldier_and_nothing_is_removed() -> None:
    g = game(pos("a1 c2 e1", "a5 c7", "a m - 13 ex=3:a5:c2"))
    g.play("e1-e2")
    assert g.position() == pos("a1 c2 e2", "a5 c7", "d m - 14 np=1")
    assert g.off_board("attacker") == (0, 0, 0)


def test_attacker_with_fewer_than_two_soldiers_cannot_accept() -> None:
    g = game(pos("c1", "a6 c7", "a m - 11 ex=1:a6"))
    assert legal(g) == ["c1-b1", "c1-c2", "c1-d1"]
    with pytest.raises(IllegalMoveError):
        g.play("c1-c2=")


def test_a_capturing_step_by_the_defender_cancels_the_exchange() -> None:
    # f6xf5 takes f4 (with f3).
    g = game(pos("a1 c2 e1 f4", "a6 f6 f3", "d m - 12 ex=2:a6:c2 np=5"))
    assert str(g.play("f6-f5")) == "f6xf5"
    assert g.exchange is None
    assert g.position() == pos("a1 c2 e1", "a6 f5 f3", "a m - 13 np=0 off=1,0,0,0,0,0")


def test_a_capturing_step_by_the_attacker_cancels_the_exchange() -> None:
    g = game(pos("a1 c1 e1 b4 c6", "a6 c5 g7", "a m - 11 ex=1:a6"))
    g.play("b4xc4")
    assert g.exchange is None
    assert g.position() == pos("a1 c1 e1 c4 c6", "a6 g7", "d m - 12 np=0 off=0,0,0,1,0,0")


def test_exchange_that_takes_the_attackers_last_soldiers_ends_the_game() -> None:
    g = game(pos("c2 e2", "a5 c7", "d m - 14 ex=4:a5:c2:e2"))
    g.play("a5-a4=")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "all-captured")
    assert g.count("attacker") == 0


# ----------------------------------------------------------------------
# Endings


def test_attacker_wins_by_capturing_every_defender_piece() -> None:
    g = game(pos("b4 c6", "c5", "a m - 5"))
    g.play("b4xc4")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (
        "attacker", "all-captured", None,
    )
    assert g.outcome.result == "1-0"
    assert legal(g) == []


def test_defender_wins_by_capturing_every_attacker_piece() -> None:
    g = game(pos("c5", "b4 c6", "d m - 6"))
    g.play("b4xc4")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "all-captured")


def test_resignation() -> None:
    g = game(pos(EX_A, EX_D, "a m - 9"))
    g.resign()
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "resignation")
    assert legal(g) == []
    with pytest.raises(IllegalMoveError):
        g.play("a1-a2")
    with pytest.raises(IllegalMoveError):
        g.agree_draw()
    g.pop()
    assert g.outcome is None
    g.resign("defender")  # either side may resign, not only the side to move
    assert g.outcome is not None and g.outcome.winner == "attacker"


def test_agreed_draw() -> None:
    g = game(pos(EX_A, EX_D, "d m - 10"))
    g.agree_draw()
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (None, "agreement")
    assert g.outcome.result == "1/2-1/2"


@pytest.mark.parametrize(
    ("attackers", "winner"),
    [("a1 g1", "attacker"), ("a1", None)],
)
def test_no_progress_for_60_turns_ends_by_piece_count(attackers: str, winner: str | None) -> None:
    g = game(pos(attackers, "a7", "a m - 40 np=59"))
    g.play("a1-a2")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (winner, "no-progress")


def test_no_progress_defender_ahead() -> None:
    g = game(pos("a1", "a7 g7", "d m - 41 np=59"))
    g.play("a7-a6")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "no-progress")


def test_no_progress_counter_runs_and_a_capture_resets_it() -> None:
    g = game(pos("a1 b4 c6", "c5 g7", "a m - 40 np=58"))
    g.play("a1-a2")
    assert g.outcome is None and g.no_progress == 59
    g.play("g7-g6")
    assert g.outcome is not None and g.outcome.reason == "no-progress"
    g.pop()
    g.pop()
    g.play("b4xc4")  # the turn that would have been the 59th captures
    assert g.outcome is None and g.no_progress == 0


def test_third_repetition_ends_by_piece_count() -> None:
    start = pos("a1 g1", "a7", "a m - 5")
    g = game(start)
    cycle = ["a1-a2", "a7-a6", "a2-a1", "a6-a7"]
    g.play_all(cycle)
    assert g.position().split()[:2] == start.split()[:2]  # second time
    assert g.outcome is None
    g.play_all(cycle[:3])
    assert g.outcome is None
    g.play(cycle[3])  # the starting position, Attacker to move, third time
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "repetition")


def test_repetition_with_equal_counts_is_a_draw() -> None:
    g = game(pos("a1", "a7", "a m - 5"))
    cycle = ["a1-a2", "a7-a6", "a2-a1", "a6-a7"]
    g.play_all(cycle * 2)
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == (None, "repetition")
    assert len(g.moves) == 8


# ----------------------------------------------------------------------
# Undo


def test_undo_placements_including_the_start_of_the_moving_phase() -> None:
    g = Game.new(V)
    undo_restores(g, "@a1")
    undo_restores(g, "@b1")
    a, d = filled(a="c4 e4", d="d5 d3 d6 d2", empty="d4 a1 b1", attackers=24)
    g = game(pos(a, d, "d s - 0"))
    undo_restores(g, "@a1")
    undo_restores(g, "@b1")
    assert g.phase == "moving"


def test_undo_captures_and_chains() -> None:
    g = chain_game()
    undo_restores(g, "b4xc4")
    undo_restores(g, "c4xb4")
    g = game(pos("e2 e5 g3 c3", "e4 f3 d3 a7", "a m - 5"))
    undo_restores(g, "e2xe3")


def test_undo_blocked_turns_and_endings() -> None:
    a, d = first_turn_board()
    undo_restores(game(pos(a, d, "a m - 1")), "c4-d4")
    undo_restores(game(pos(a, d, "a m - 7")), "c4-d4")
    undo_restores(game(pos("b4 c6", "c5", "a m - 5")), "b4xc4")
    undo_restores(game(pos("a1 g1", "a7", "a m - 40 np=59")), "a1-a2")
    g = game(pos(EX_A, EX_D, "a m - 9"))
    before = g.position()
    for end in (g.resign, g.agree_draw):
        end()
        assert g.outcome is not None
        g.pop()
        assert g.position() == before and g.outcome is None


def test_undo_uncounts_repeated_positions() -> None:
    g = game(pos("a1 g1", "a7", "a m - 5"))
    cycle = ["a1-a2", "a7-a6", "a2-a1", "a6-a7"]
    g.play_all(cycle * 2)
    assert g.outcome is not None and g.outcome.reason == "repetition"
    for _ in range(5):  # back to before the start position's second time
        g.pop()
    assert g.outcome is None and len(g.moves) == 3
    g.play("a6-a7")  # second time again: the game goes on
    assert g.outcome is None
    undo_restores(g, "a1-a2")
    g.play_all(cycle[1:])  # third time
    assert g.outcome is not None and g.outcome.reason == "repetition"
