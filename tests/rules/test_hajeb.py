"""H'ajeb in ``sabouiyya`` (seed 003, rule option ``hajeb``): one test per
ruling of docs/rules.md, from positions."""

from __future__ import annotations

import random

import pytest

from controller.rules import Game, IllegalMoveError, PositionError, find_variant
from controller.rules.record import Record, parse_record

HAJEB = find_variant("sabouiyya").with_options(hajeb=True)

# A diagonal wall a3, b4, c5 and a soldier shuffling inside (a5 <-> a4, b5);
# e5 stands safe in its corner.  Under H'ajeb the Attacker can break in.
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"
# A corner fortress a3 b3 b4 c4 c5 around a4 a5 b5: even under H'ajeb the
# Attacker can capture nothing.  b3 and c4 cannot step.
FORTRESS = "..D../.DDA./DDA../.A.../A...A d m - 5"


def game(position: str = WALL) -> Game:
    return Game.from_position(HAJEB, position)


def names(moves: list[object]) -> list[str]:
    return [str(m) for m in moves]


def play(g: Game, *actions: str) -> Game:
    for a in actions:
        g.play(a)
    return g


# ----------------------------------------------------------------------
# The option


def test_plain_sabouiyya_has_no_hajeb() -> None:
    g = Game.from_position("sabouiyya", WALL)
    assert g.hajeb_refusal("hajeb") is not None
    assert "hajeb=true" in str(g.hajeb_refusal("hajeb"))
    with pytest.raises(IllegalMoveError, match="cannot declare H'ajeb"):
        g.play("hajeb")
    assert g.hajeb_actions() == []
    with pytest.raises(PositionError, match="no H'ajeb"):
        Game.from_position("sabouiyya", WALL.replace(" d ", " a ") + " hajeb=on")


def test_hajeb_is_never_among_the_legal_moves() -> None:
    g = game()
    assert g.hajeb_refusal("hajeb") is None
    assert "hajeb" not in names(g.legal_moves())
    assert names(g.hajeb_actions()) == ["hajeb"]


# ----------------------------------------------------------------------
# The blockade that cannot be taken


def test_blockade_with_a_soldier_moving_inside_may_declare() -> None:
    assert game(WALL).hajeb_refusal("hajeb") is None
    assert game(FORTRESS).hajeb_refusal("hajeb") is None


def test_an_exposed_soldier_is_no_blockade() -> None:
    # e3 has e2 and e4 open to the Attacker: it could be sandwiched.
    g = game("D.DAD/.DA../DA..D/AA.../....A d m - 10")
    assert "no blockade" in str(g.hajeb_refusal("hajeb"))


def test_a_wall_nobody_can_move_inside_is_no_blockade() -> None:
    # The same diagonal wall with nothing inside: every step opens it.
    g = game("..D../.D.../D..../...../AAAAA d m - 5")
    assert "no blockade" in str(g.hajeb_refusal("hajeb"))


# ----------------------------------------------------------------------
# Declaring


def test_only_the_defender_declares_on_its_turn() -> None:
    g = game(WALL.replace(" d ", " a "))
    assert "only the Defender" in str(g.hajeb_refusal("hajeb"))
    with pytest.raises(IllegalMoveError, match="only the Defender"):
        g.declare_hajeb()


def test_no_declaration_in_the_middle_of_a_capture_chain() -> None:
    # The Defender's e2 has captured and may go on. Its blockade is one
    # H'ajeb may be declared against (the refusal without this check says
    # nothing), but not while a chain is being made.
    g = game("..DD./.ADDD/AA.A./AAA.D/.AAD. d m e2 70 off=3,0,0,5,0,0")
    assert g.hajeb_refusal("hajeb") == "not in the middle of a capture chain"
    with pytest.raises(IllegalMoveError, match="not in the middle of a capture chain"):
        g.declare_hajeb()


def test_no_declaration_while_setting_or_twice() -> None:
    g = Game.new(HAJEB)
    # Said after "H'ajeb: " (the status) or "cannot declare H'ajeb: ", so
    # the reason does not name H'ajeb again.
    assert g.hajeb_refusal("hajeb") == "it is declared in the moving phase, not while setting"
    with pytest.raises(IllegalMoveError, match="^cannot declare H'ajeb: it is declared in"):
        g.declare_hajeb()
    g = play(game(), "hajeb", "e1-c3")
    assert g.hajeb_refusal("hajeb") == "it is already declared"


def test_declaring_takes_the_defenders_turn() -> None:
    g = game()
    g.declare_hajeb()
    assert (g.to_move, g.turn, g.hajeb) == ("attacker", 11, "on")
    assert g.position() == "D.DAD/.DA../DA.../AA.../....A a m - 11 hajeb=on"
    assert str(g.last_move) == "hajeb"


# ----------------------------------------------------------------------
# The Attacker's moves under H'ajeb


def _rays_by_hand(g: Game, square: str) -> set[str]:
    """Every point along the eight lines from ``square`` up to a piece."""
    a, d = g.bitboards()
    f0, r0 = ord(square[0]) - 97, int(square[1]) - 1
    out = set()
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            f, r = f0 + df, r0 + dr
            while (df or dr) and 0 <= f < 5 and 0 <= r < 5 and not (a | d) >> (r * 5 + f) & 1:
                out.add(f"{chr(97 + f)}{r + 1}")
                f, r = f + df, r + dr
    return out


def test_attacker_moves_any_distance_orthogonally_or_diagonally() -> None:
    g = play(game(), "hajeb")
    for square in ("e1", "b2", "c4", "d5"):
        targets = {m.to_square for m in g.legal_moves() if m.from_square == square}
        assert targets == _rays_by_hand(g, square)
    assert "e1-c3" in names(g.legal_moves()) and "b2-d4" in names(g.legal_moves())


def test_captures_stay_orthogonal_custodial_at_the_arrival() -> None:
    g = play(game(), "hajeb")
    move = g.parse_move("b3-a4")  # diagonal; a3 (a2 beyond) and b4 (c4 beyond)
    assert move.capture
    g.play(move)
    assert g.piece_at("a3") is None and g.piece_at("b4") is None
    assert g.off_board("defender") == (2, 0, 0)


def test_the_defender_still_steps_one_square() -> None:
    g = play(game(), "hajeb", "e1-c3")
    assert names(g.legal_moves()) == ["a3-a4", "b4-a4", "b4-b5", "a5-a4", "a5-b5", "c5-b5",
                                      "e5-e4"]


def test_after_a_capture_any_attacker_soldier_may_capture_or_pass() -> None:
    g = play(game(), "hajeb", "e1-c3", "e5-e4", "b3xa4")
    assert g.any_soldier_continues and g.chain_square == "a4"
    assert names(g.legal_moves()) == ["b2xb5", "a4xb5", "c4xb5", "pass"]
    g.play("b2xb5")  # another soldier: c5 taken
    assert g.piece_at("c5") is None and g.to_move == "defender"  # no capture left: turn over
    g2 = play(game(), "hajeb", "e1-c3", "e5-e4", "b3xa4", "pass")
    assert g2.to_move == "defender" and g2.piece_at("c5") == "defender"


def test_a_defender_walled_in_by_the_captures_loses_as_in_sabouiyya() -> None:
    g = play(game("D.DA./.DA../DA.../AA.../....A d m - 10"), "hajeb", "b3xa4")
    assert g.to_move == "attacker" and g.outcome is None
    g.play("b2xb5")  # c5 taken; a5 is left between a4 and b5
    assert g.outcome is not None
    assert (g.outcome.winner, g.outcome.reason) == ("attacker", "blocked")


# ----------------------------------------------------------------------
# Rescinding


def test_rescinding_ends_the_attackers_captures_at_once() -> None:
    g = play(game(), "hajeb", "e1-c3", "e5-e4", "b3xa4")
    assert names(g.hajeb_actions()) == ["rescind"]
    g.rescind_hajeb()
    assert (g.to_move, g.hajeb, g.chain_square) == ("defender", "off", None)
    assert g.piece_at("c5") == "defender"


def test_rescinding_on_its_own_turn_keeps_the_defenders_turn() -> None:
    g = play(game(), "hajeb", "e1-c3")
    turn = g.turn
    g.play("rescind")
    assert (g.to_move, g.turn, g.hajeb) == ("defender", turn, "off")
    g.play("e5-e4")
    assert all(abs(m.frm - m.to) in (1, 5) for m in g.legal_moves())  # ordinary steps


def test_rescinding_before_the_attacker_moves_gives_it_ordinary_steps() -> None:
    g = play(game(), "hajeb")
    g.rescind_hajeb()
    assert g.to_move == "attacker"
    assert "b3xa4" not in names(g.legal_moves()) and "e1-e2" in names(g.legal_moves())
    assert "e1-e3" not in names(g.legal_moves())


def test_an_attacker_blocked_when_hajeb_is_rescinded_loses() -> None:
    # The Attacker's soldiers on a1 and b2 have only diagonal moves.
    g = Game.from_position(HAJEB, "...../DD.../AD.../DAD../AD... a m - 9 hajeb=on")
    assert g.outcome is None and g.legal_moves()
    g.rescind_hajeb()
    assert g.outcome is not None and (g.outcome.winner, g.outcome.reason) == (
        "defender", "blocked")


def test_nothing_to_rescind() -> None:
    g = game()
    assert g.hajeb_refusal("rescind") == "H'ajeb is not declared"
    with pytest.raises(IllegalMoveError, match="not declared"):
        g.play("rescind")


def test_may_declare_again_after_rescinding() -> None:
    g = play(game(), "hajeb", "rescind")
    assert g.to_move == "attacker"
    g.play("e1-e2")
    assert g.hajeb_refusal("hajeb") is None


# ----------------------------------------------------------------------
# The end: the two-for-one removals


def test_attacker_unable_to_capture_ends_hajeb_with_removals() -> None:
    g = play(game(FORTRESS), "hajeb")
    assert (g.to_move, g.hajeb, g.removals) == ("defender", "end", (1, 1, 0))
    assert names(g.legal_moves()) == ["xa1", "xe1", "xb2", "xc3", "xd4"]  # any two
    assert "too late" in str(g.hajeb_refusal("rescind"))
    play(g, "xa1", "xe1")
    assert g.to_move == "attacker"
    # one Defender soldier able to move: not b3 nor c4, which cannot step
    assert names(g.legal_moves()) == ["xa3", "xb4", "xc5"]
    g.play("xb4")
    assert (g.to_move, g.hajeb, g.removals) == ("attacker", "off", ())
    assert g.off_board("attacker") == (0, 0, 2) and g.off_board("defender") == (0, 0, 1)
    assert all(abs(m.frm - m.to) in (1, 5) for m in g.legal_moves())  # ordinary rules


def test_the_end_removals_can_take_the_attackers_last_soldiers() -> None:
    g = play(game("..D../.DD../DD.../...../A...A d m - 5"), "hajeb", "xa1")
    assert g.outcome is None
    g.play("xe1")
    assert g.outcome is not None and (g.outcome.winner, g.outcome.reason) == (
        "defender", "all-captured")


# ----------------------------------------------------------------------
# Notation, records and undo


def test_position_strings_carry_the_hajeb_field() -> None:
    g = play(game(), "hajeb", "e1-c3", "e5-e4", "b3xa4")
    text = g.position()
    assert text.endswith("hajeb=on") and " a4 " in text
    again = Game.from_position(HAJEB, text)
    assert again.position() == text and again.any_soldier_continues
    assert names(again.legal_moves()) == names(g.legal_moves())
    end = play(game(FORTRESS), "hajeb").position()
    assert end.endswith("rm=dda:a hajeb=end")
    again = Game.from_position(HAJEB, end)
    assert again.position() == end and names(again.legal_moves())[:2] == ["xa1", "xe1"]


@pytest.mark.parametrize(
    "extra, message",
    [("hajeb=yes", "hajeb=on or hajeb=end"), ("hajeb=end", "removals owed")],
)
def test_bad_hajeb_fields_are_refused(extra: str, message: str) -> None:
    with pytest.raises(PositionError, match=message) as err:
        Game.from_position(HAJEB, WALL.replace(" d ", " a ") + " " + extra)
    assert "\n" not in str(err.value)  # said on one line


def test_records_write_and_replay_the_hajeb_actions() -> None:
    g = play(game(), "hajeb", "e1-c3", "e5-e4", "b3xa4", "b2xb5", "rescind", "e4-e5", "a4-a3")
    rec = Record.from_game(g)
    text = str(rec)
    assert '[Options "hajeb=true"]' in text
    # Numbered from the position's turn 10 of the moving phase, after the 12 setting turns.
    assert "22. hajeb 23. e1-c3 24. e5-e4 25. b3xa4 b2xb5 26. rescind e4-e5 27. a4-a3 *" in text
    assert parse_record(text).game().position() == g.position()


def test_a_record_declaring_without_a_blockade_is_refused() -> None:
    text = '[Variant "sabouiyya"]\n[Options "hajeb=true"]\n' \
        '[Position "..D../.D.../D..../...../AAAAA d m - 5"]\n\n1. hajeb *\n'
    with pytest.raises(ValueError, match="line 5: token 'hajeb': cannot declare H'ajeb"):
        parse_record(text).game()


def test_undo_restores_every_state() -> None:
    g = game()
    states = [g.state()]
    for a in ("hajeb", "e1-c3", "e5-e4", "b3xa4", "b2xb5", "rescind", "e4-e5"):
        g.play(a)
        states.append(g.state())
    assert [s.hajeb for s in states] == [0, 1, 1, 1, 1, 1, 0, 0]
    assert [s for s, _ in g.history] == states[:-1]
    while g.ply:
        g.pop()
        assert g.state() == states[g.ply]


@pytest.mark.parametrize("seed", range(40))
def test_random_games_with_hajeb_stay_consistent(seed: int) -> None:
    """Random games from the two blockades, declaring and rescinding at
    random: every position reads back the same with the same legal
    actions, the record replays to the same game, undo restores each."""
    rng = random.Random(seed)
    g = game(WALL if seed % 2 else FORTRESS)
    states = [g.state()]
    while g.outcome is None and g.ply < 60:
        allowed = g.hajeb_actions()
        if allowed and rng.random() < 0.3:
            g.play(rng.choice(allowed))
        else:
            moves = g.legal_moves()
            captures = [m for m in moves if m.capture]
            g.play(rng.choice(captures if captures and rng.random() < 0.6 else moves))
        states.append(g.state())
        again = Game.from_position(HAJEB, g.position())
        assert again.position() == g.position()
        assert names(again.legal_moves()) == names(g.legal_moves())
        assert names(again.hajeb_actions()) == names(g.hajeb_actions())
    replayed = parse_record(str(Record.from_game(g))).game()
    assert replayed.position() == g.position() and replayed.outcome == g.outcome
    while g.ply:
        g.pop()
        assert g.state() == states[g.ply]
