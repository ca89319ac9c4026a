"""The leap games reached by name: the factory, find_variant's refusal, and
records of leap games that round-trip."""

from __future__ import annotations

import random

import pytest

from controller.rules import (
    Game,
    LeapGame,
    find_any_variant,
    find_leap_variant,
    find_variant,
    game_from_position,
    is_leap,
    new_game,
)
from controller.rules.record import Record, RecordError, parse_record

LEAP = ["hewakam-keliya", "sixteen-soldiers", "english-draughts", "checkers"]


def _random_game(variant: str, seed: int) -> LeapGame:
    rng = random.Random(seed)
    g = new_game(variant)
    assert isinstance(g, LeapGame)
    while g.outcome is None and g.ply < 400:
        moves = g.legal_moves()
        g.play(moves[rng.randrange(len(moves))])
    return g


@pytest.mark.parametrize("variant", LEAP)
def test_new_game_makes_a_leap_game_for_leap_names(variant: str) -> None:
    g = new_game(variant)
    assert isinstance(g, LeapGame) and g.variant.name == variant and is_leap(variant)
    again = game_from_position(variant, g.position())
    assert isinstance(again, LeapGame) and again.position() == g.position()


def test_kharbga_names_still_make_a_game() -> None:
    g = new_game("khamousiyya")
    assert isinstance(g, Game) and not isinstance(g, LeapGame)
    assert g.phase == "setting" and not is_leap("kharbga")
    assert isinstance(Game.new("kharbga"), Game)
    assert find_any_variant("kharbga") is find_variant("kharbga")


def test_find_variant_of_a_leap_name_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="'checkers' is a leap-capture game") as exc:
        find_variant("checkers")
    assert "\n" not in str(exc.value)
    with pytest.raises(ValueError, match="kharbga.*; leap-capture games: .*sixteen"):
        find_variant("draughts")
    assert find_any_variant("checkers") is find_leap_variant("checkers")


@pytest.mark.parametrize("variant", LEAP)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_leap_record_round_trips(variant: str, seed: int) -> None:
    g = _random_game(variant, seed)
    record = Record.from_game(g, {"Attacker": "A", "Defender": "B"})
    assert record.tags["Variant"] == variant and "Options" not in record.tags
    text = str(record)
    again = parse_record(text)
    replay = again.game()
    assert isinstance(replay, LeapGame)
    assert replay.position() == g.position()
    assert replay.outcome == g.outcome
    assert [str(m) for m in replay.moves] == [str(m) for m in g.moves]
    assert str(Record.from_game(replay, {"Attacker": "A", "Defender": "B"})) == text


def test_a_leap_record_from_a_position_with_options_round_trips() -> None:
    variant = find_leap_variant("checkers").with_options(chain="mandatory")
    start = ".D.D.D.D/D.D.D.D./.D.D.D.D/......../......../A.A.A.A./.A.A.A.A/A.A.A.A. a m - 1 np=0"
    g = game_from_position(variant, start)
    g.play("c3-d4")
    record = Record.from_game(g)
    assert record.tags["Options"] == "chain=mandatory"
    assert record.tags["Position"] == start
    replay = parse_record(str(record)).game()
    assert replay.variant == variant and replay.position() == g.position()


def test_a_resigned_leap_game_round_trips() -> None:
    g = new_game("sixteen-soldiers")
    g.play("c4-c5")
    g.resign("defender")
    replay = parse_record(str(Record.from_game(g))).game()
    assert replay.outcome == g.outcome and replay.outcome is not None
    assert replay.outcome.winner == "attacker"


def test_a_leap_record_with_a_bad_token_or_option_names_it() -> None:
    text = '[Variant "checkers"]\n[Result "*"]\n\n1. c3-c4 *\n'
    with pytest.raises(RecordError, match="line 4: token 'c3-c4'"):
        parse_record(text).game()  # c4 is a light square: no move goes there
    with pytest.raises(RecordError, match="line 4: token 'i3-i4'"):
        parse_record(text.replace("c3-c4", "i3-i4"))
    bad = '[Variant "checkers"]\n[Options "size=7"]\n[Result "*"]\n\n1. c3-d4 *\n'
    with pytest.raises(RecordError, match="tag Options: unknown rule option 'size=7'"):
        parse_record(bad)
