"""The low-level interface LeapGame shares with the Kharbga Game: lookups
for the reconciler, raw actions, history, and record tokens."""

from __future__ import annotations

import random

import pytest
from leap_helpers import game_at, legal

from controller.rules.leap import LeapGame
from controller.rules.leap_notation import split_token
from controller.rules.leap_variants import find_leap_variant
from controller.rules.moves import IllegalMoveError, NotationError
from controller.rules.record import group_turns


def test_find_move_steps_leaps_and_huffs() -> None:
    g = game_at("sixteen-soldiers", A="c3 a3", D="c4 e9")
    m = g.find_move("c3", "c5")
    assert str(m) == "c3xc5" and m.capture
    assert str(g.find_move("a3", "a4")) == "a3-a4"
    with pytest.raises(IllegalMoveError, match="no legal c3-e5"):
        g.find_move("c3", "e5")
    g.play("a3-a4")
    assert str(g.find_move("c3", None)) == "xc3"
    assert g.removals == (1,)


def test_raw_moves_push_pop_and_captures() -> None:
    g = game_at("checkers", A="d4", D="e5 h8")
    d4, e5, f6 = (g.geometry.index[s] for s in ("d4", "e5", "f6"))
    assert g.captures(d4, f6) == 1 << e5
    assert g.captures(d4, g.geometry.index["c5"]) == 0
    raw = {r[:3]: r[3] for r in g.raw_moves()}
    assert raw[("step", d4, f6)] == 1 << e5
    before = g.position()
    g.push("step", d4, f6)
    assert g.ply == 1 and str(g.last_move) == "d4xf6"
    state, move = g.history[0]
    assert state.side == 0 and state.defender >> e5 & 1 and not state.setting
    assert g.pop() == move
    assert g.position() == before and g.ply == 0


def test_parse_move_reads_both_separators_and_refuses_other_boards() -> None:
    g = game_at("checkers", A="d4", D="e5 h8")
    assert str(g.parse_move("d4-f6")) == "d4xf6"
    with pytest.raises(NotationError):
        g.parse_move("d4-i9")
    with pytest.raises(NotationError):
        LeapGame.new("sixteen-soldiers").parse_move("b1-b2")  # no b1 there
    with pytest.raises(IllegalMoveError):
        g.play("d4-c3")


def test_find_leap_variant_names_the_known_ones() -> None:
    assert find_leap_variant("checkers").board == "8x8"
    with pytest.raises(ValueError, match="hewakam-keliya, sixteen-soldiers"):
        find_leap_variant("kharbga")


@pytest.mark.parametrize("variant", ["sixteen-soldiers", "checkers", "hewakam-keliya"])
def test_record_turns_replay_the_game(variant: str) -> None:
    rng = random.Random(11)
    g = LeapGame.new(variant)
    while g.outcome is None:
        moves = g.legal_moves()
        g.play(moves[rng.randrange(len(moves))])
    turns = list(group_turns(g))
    if any(state.chain >= 0 for state, _ in g.history):  # chains joined in one token
        assert any(len(t[0].split("x")) > 2 for t in turns)
    again = LeapGame.new(variant)
    for turn in turns:
        for token in turn:
            for action in split_token(again.geometry, token):
                again.play(action)
    assert again.position() == g.position()
    assert again.outcome == g.outcome


def test_state_and_piece_views() -> None:
    g = game_at("checkers", a="c5", D="d6")
    assert g.piece_at("c5") == "attacker" and g.is_king("c5")
    assert g.piece_at("d6") == "defender" and not g.is_king("d6")
    assert g.piece_at("a1") is None
    assert g.count("attacker") == 1 and g.count(1) == 1
    assert g.phase == "moving" and g.exchange is None and g.in_hand("attacker") == 0
    assert legal(g) == ["c5-b4", "c5-b6", "c5-d4", "c5xe7"]


def test_a_place_not_on_the_board_is_named_as_the_board_names_its_places() -> None:
    from controller.rules import game_from_position, new_game
    from controller.rules.moves import PositionError

    with pytest.raises(NotationError) as exc:
        new_game("sixteen-soldiers").play("f3-f4")
    assert str(exc.value) == "move 'f3-f4': no point 'f3' on the 37-point board"
    with pytest.raises(NotationError, match="no square 'z9' on the 8x8 board"):
        new_game("checkers").play("z9-a1")
    start = new_game("sixteen-soldiers").position()
    with pytest.raises(PositionError) as exc:
        game_from_position("sixteen-soldiers", start.replace(" - ", " z9 "))
    assert str(exc.value) == "chain point 'z9' is not a point of the 37-point board"
    with pytest.raises(PositionError, match="^chain point c4: no soldier of the side"):
        game_from_position("sixteen-soldiers", start.replace(" - ", " c4 "))
    draughts = new_game("checkers").position()
    with pytest.raises(PositionError, match="^chain square 'h9' is not a square of the 8x8"):
        game_from_position("checkers", draughts.replace(" - ", " h9 "))


def test_the_leap_bench_refuses_a_bad_seconds_in_one_line() -> None:
    import subprocess
    import sys

    from controller.rules.leap_bench import seconds_arg

    assert seconds_arg([]) == 3.0 and seconds_arg(["0.5"]) == 0.5
    for bad in (["abc"], ["0"], ["-2"], ["nan"], ["1", "2"]):
        run = subprocess.run([sys.executable, "-m", "controller.rules.leap_bench", *bad],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 1 and run.stdout == "", bad
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.startswith("usage: python -m controller.rules.leap_bench [SECONDS]")


def test_the_kharbga_familys_lookup_knows_every_leap_game() -> None:
    # rules/variants.py names the leap games in its refusal without
    # importing them: its list is every leap variant's name.
    from controller.rules import LEAP_VARIANTS
    from controller.rules.variants import _LEAP_NAMES

    assert sorted(_LEAP_NAMES) == sorted(v.name for v in LEAP_VARIANTS)
