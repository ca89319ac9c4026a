"""Variant ``kharbga-refuge``: the rules of RULES.md "Variant kharbga-refuge"
(compulsory captures, the refuge centre, no exchange, the ``reopen`` and
``remove`` blocked rules, major and minor wins), from hand-made positions.
"""

from __future__ import annotations

import pytest
from helpers import legal, pos, setting_pos, undo_restores

from controller.rules import Game, IllegalMoveError, PositionError, find_variant

V = "kharbga-refuge"
REMOVE = find_variant(V).with_options(blocked="remove")


def game(position: str) -> Game:
    return Game.from_position(V, position)


def remove_game(position: str) -> Game:
    return Game.from_position(REMOVE, position)


# ----------------------------------------------------------------------
# Setting: as kharbga


def test_setting_keeps_the_first_move_open() -> None:
    empty = "d5 a1 b1 c1 d1 e1 f1 g1 a2 b2"
    g = game(setting_pos(d="c4 e4 d3", empty=empty, attackers=20))
    assert g.to_move == "defender"
    assert "@d5" not in legal(g) and len(legal(g)) == 9
    g = game(setting_pos(d="c4 e4 d3", empty="d5 a1 b1", attackers=23))
    assert legal(g) == ["@d5"]


# ----------------------------------------------------------------------
# Compulsory captures and chains


def test_capture_is_compulsory() -> None:
    g = game(pos("b4 c6", "c5 a1", "a m - 5"))
    assert legal(g) == ["b4xc4"]
    with pytest.raises(IllegalMoveError):
        g.play("c6-d6")
    g.play("b4-c4")
    assert g.position() == pos("c4 c6", "a1", "d m - 6 np=0 off=0,0,0,1,0,0")


def test_every_capturing_step_of_every_piece_is_listed() -> None:
    g = game(pos("b4 c6 b6 e3 g2", "c5 b5 f3", "a m - 5"))
    assert legal(g) == ["b4xc4", "g2xg3"]


def test_without_a_capture_every_step_is_legal() -> None:
    g = game(pos("b4 c6", "c5 a1", "d m - 6"))
    assert legal(g) == ["a1-a2", "a1-b1", "c5-b5", "c5-c4", "c5-d5"]


def test_chain_is_mandatory_and_ends_when_no_capture_is_left() -> None:
    g = game(pos("b4 c6 b6 e3 g2", "c5 b5 f3", "a m - 5"))
    g.play("b4xc4")
    assert (g.to_move, g.chain_square) == ("attacker", "c4")
    assert legal(g) == ["c4xb4"]
    with pytest.raises(IllegalMoveError):
        g.play("pass")
    g.play("c4xb4")
    assert g.position() == pos("b4 c6 b6 e3 g2", "f3", "d m - 6 np=0 off=0,0,0,2,0,0")


# ----------------------------------------------------------------------
# The refuge


def test_a_defender_on_the_centre_is_not_captured() -> None:
    # In kharbga this step takes c5, d4 and c3; here d4 is safe.
    start = pos("b4 c6 e4 c2", "c5 d4 c3 a7", "a m - 5")
    assert str(Game.from_position("kharbga", start).play("b4-c4")) == "b4xc4"
    g = game(start)
    g.play("b4xc4")
    assert g.position() == pos("c4 c6 e4 c2", "d4 a7", "d m - 6 np=0 off=0,0,0,2,0,0")


def test_an_attacker_on_the_centre_is_not_captured() -> None:
    start = pos("d4 a1", "e5 d3 g7", "d m - 6")
    assert "e5xd5" in legal(Game.from_position("kharbga", start))
    g = game(start)
    assert "e5-d5" in legal(g) and "e5xd5" not in legal(g)
    g.play("e5-d5")
    assert g.piece_at("d4") == "attacker"
    assert g.off_board("attacker") == (0, 0, 0)


def test_a_piece_on_the_centre_still_closes_a_sandwich() -> None:
    g = game(pos("d4 a4", "c4 g7", "a m - 5"))
    assert legal(g) == ["a4xb4"]
    g.play("a4xb4")
    assert g.piece_at("c4") is None


def test_a_piece_stepping_onto_the_centre_captures() -> None:
    g = game(pos("e4 d6", "d5 a1", "a m - 5"))
    assert legal(g) == ["e4xd4"]
    g.play("e4xd4")
    assert g.position() == pos("d4 d6", "a1", "d m - 6 np=0 off=0,0,0,1,0,0")


# ----------------------------------------------------------------------
# No exchange


def test_there_is_no_exchange() -> None:
    g = game(pos("a1 c1 e1", "a7 c7", "d m - 10"))
    assert legal(g) == ["a7-a6", "a7-b7", "c7-b7", "c7-c6", "c7-d7"]
    with pytest.raises(IllegalMoveError):
        g.play("a7-a6=")
    g.play("a7-a6")
    assert g.exchange is None
    assert not [m for m in legal(g) if m.endswith("=")]
    with pytest.raises(PositionError):
        game(pos("a1 c1 e1", "a6 c7", "a m - 11 ex=1:a6"))


# ----------------------------------------------------------------------
# Blocked side: reopen (the default)

# The Defender's only piece a1 is shut in by a2 and b1.
SHUT_IN = pos("a2 b1 e5", "a1", "d m - 10")


def test_reopen_the_opponent_must_open_a_way_when_it_can() -> None:
    g = game(SHUT_IN)
    assert g.to_move == "attacker"
    assert legal(g) == ["a2-a3", "a2-b2", "b1-b2", "b1-c1"]
    with pytest.raises(IllegalMoveError):
        g.play("e5-e6")
    g.play("b1-c1")
    assert g.position() == pos("a2 c1 e5", "a1", "d m - 11 np=1")
    assert legal(g) == ["a1-b1"]


def test_move_again_in_kharbga_has_no_such_duty() -> None:
    g = Game.from_position("kharbga", SHUT_IN)
    assert g.to_move == "attacker"
    assert "e5-e6" in legal(g)
    g.play("e5-e6")
    assert (g.to_move, g.turn) == ("attacker", 11)


def test_reopen_with_no_opening_step_allows_any_step() -> None:
    # a2 and b1 cannot move (a3, b2, c1 are full), so no step opens a way.
    start = pos("a2 b1 a3 b2 c1", "a1", "d m - 10")
    g = game(start)
    assert g.to_move == "attacker"
    assert legal(g) == legal(Game.from_position("kharbga", start))
    assert len(legal(g)) == 6
    g.play("c1-d1")  # does not open: the Attacker moves again
    assert (g.to_move, g.turn) == ("attacker", 11)
    assert legal(g) == ["b1-c1"]  # now one step opens a way, and it must be made


# ----------------------------------------------------------------------
# Blocked side: remove

# Both Defender pieces are shut in: a1 by a2 and b1, g7 by f7 and g6.
SHUT_TWO = "a2 b1 f7 g6 d1", "a1 g7"


def test_remove_attacker_removes_two_then_defender_one_then_the_blocked_side_plays() -> None:
    a, d = SHUT_TWO
    g = remove_game(pos(a, d, "d m - 10"))
    assert g.to_move == "attacker"
    assert g.position() == pos(a, d, "a m - 10 np=0 rm=aad:d")
    assert legal(g) == ["xa2", "xb1", "xd1", "xf7", "xg6"]
    with pytest.raises(IllegalMoveError):
        g.play("d1-d2")
    assert str(g.play("xd1")) == "xd1"
    assert g.position() == pos("a2 b1 f7 g6", d, "a m - 10 np=0 rm=ad:d off=0,0,1,0,0,0")
    g.play("xf7")
    assert g.to_move == "defender"
    assert g.position() == pos("a2 b1 g6", d, "d m - 10 np=0 rm=d:d off=0,0,2,0,0,0")
    assert legal(g) == ["xa1", "xg7"]
    with pytest.raises(IllegalMoveError):
        g.play("xa2")
    g.play("xa1")
    assert g.position() == pos("a2 b1 g6", "g7", "d m - 10 np=0 off=0,0,2,0,0,1")
    assert legal(g) == ["g7-f7"]
    assert g.off_board("attacker") == (0, 0, 2)
    assert g.off_board("defender") == (0, 0, 1)


def test_remove_repeats_while_the_side_stays_blocked() -> None:
    g = remove_game(pos("a2 b1 f7 g6 d1 e1", "a1 g7", "d m - 10"))
    g.play_all(["xd1", "xe1", "xa1"])  # g7 is still shut in
    assert g.position() == pos("a2 b1 f7 g6", "g7", "a m - 10 np=0 rm=aad:d off=0,0,2,0,0,1")


def test_remove_a_side_that_removes_its_last_piece_loses() -> None:
    g = remove_game(pos("a2 b1", "a1", "d m - 10"))
    g.play("xa2")
    assert g.outcome is None
    g.play("xb1")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("defender", "all-captured")


def test_remove_when_a_step_blocks_the_opponent() -> None:
    g = remove_game(pos("a2 c1 e5", "a1", "a m - 10"))
    g.play("c1-b1")  # shuts a1 in
    assert g.position() == pos("a2 b1 e5", "a1", "a m - 11 np=1 rm=aad:d")


def test_repetition_counts_the_position_after_the_removals() -> None:
    a, d = SHUT_TWO
    g = remove_game(pos(a, d, "d m - 10"))
    g.play_all(["xd1", "xf7", "xa1"])
    cycle = ["g7-f7", "g6-g5", "f7-g7", "g5-g6"]
    g.play_all(cycle)  # second time
    assert g.outcome is None
    g.play_all(cycle)  # third time
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (
        "attacker", "repetition", "minor",
    )


# ----------------------------------------------------------------------
# Endings: major and minor wins


def test_capturing_every_piece_is_a_major_win() -> None:
    g = game(pos("b4 c6", "c5", "a m - 5"))
    g.play("b4xc4")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (
        "attacker", "all-captured", "major",
    )


@pytest.mark.parametrize(
    ("attackers", "defenders", "winner", "kind"),
    [
        ("a1 g1", "a7", "attacker", "minor"),
        ("a1", "a7 g7", "defender", "minor"),
        ("a1", "a7", None, None),
    ],
)
def test_no_progress_adjudication_is_a_minor_win(
    attackers: str, defenders: str, winner: str | None, kind: str | None
) -> None:
    g = game(pos(attackers, defenders, "a m - 40 np=59"))
    g.play("a1-a2")
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (winner, "no-progress", kind)


@pytest.mark.parametrize(
    ("attackers", "defenders", "winner", "kind"),
    [
        ("a1 g1", "a7", "attacker", "minor"),
        ("a1", "a7 g7", "defender", "minor"),
        ("a1", "a7", None, None),
    ],
)
def test_agreed_barrier(
    attackers: str, defenders: str, winner: str | None, kind: str | None
) -> None:
    g = game(pos(attackers, defenders, "a m - 40"))
    before = g.position()
    g.agree_barrier()
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (winner, "barrier", kind)
    with pytest.raises(IllegalMoveError):
        g.play("a1-a2")
    g.pop()
    assert g.outcome is None and g.position() == before


def test_repetition_is_a_minor_win() -> None:
    g = game(pos("a1 g1", "a7", "a m - 5"))
    g.play_all(["a1-a2", "a7-a6", "a2-a1", "a6-a7"] * 2)
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (
        "attacker", "repetition", "minor",
    )


def test_resignation_and_agreed_draw() -> None:
    g = game(pos("a1", "a7 g7", "d m - 10"))
    g.resign()
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "resignation")
    g.pop()
    g.agree_draw()
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason, g.outcome.kind) == (None, "agreement", None)


# ----------------------------------------------------------------------
# Undo


def test_undo_compulsory_captures_chains_and_reopening() -> None:
    g = game(pos("b4 c6 b6 e3 g2", "c5 b5 f3", "a m - 5"))
    undo_restores(g, "b4xc4")
    undo_restores(g, "c4xb4")
    undo_restores(game(SHUT_IN), "b1-c1")
    undo_restores(game(pos("b4 c6", "c5", "a m - 5")), "b4xc4")
    undo_restores(game(pos("a1 g1", "a7", "a m - 40 np=59")), "a1-a2")


def test_undo_removals() -> None:
    a, d = SHUT_TWO
    g = remove_game(pos(a, d, "d m - 10"))
    for action in ("xd1", "xf7", "xa1", "g7-f7"):
        undo_restores(g, action)
    undo_restores(remove_game(pos("a2 c1 e5", "a1", "a m - 10")), "c1-b1")
    g = remove_game(pos("a2 b1", "a1", "d m - 10"))
    undo_restores(g, "xa2")
    undo_restores(g, "xb1")  # the removal that ends the game
