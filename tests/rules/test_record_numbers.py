"""A game begun from a position numbers its turns as the whole game would:
the position's turn count, after the setting's turns (docs/rules.md)."""

from __future__ import annotations

import random

import pytest

from controller.rules.leap_factory import game_from_position, new_game
from controller.rules.record import Record, numbered_turns, parse_record
from controller.rules.variants import Variant, find_variant


def _continued_alike(variant: str | Variant, seed: int, cut: int, more: int) -> None:
    # A whole game played at random; the same game begun from its position
    # after ``cut`` actions (at a turn's start) numbers the rest alike.
    rng = random.Random(seed)
    whole = new_game(variant)
    for _ in range(cut + more):
        if whole.outcome is not None:
            break
        whole.play(rng.choice(sorted(whole.legal_moves(), key=str)))
    moves = [str(m) for m in whole.moves]
    # Back to the start of the turn at or before the cut.
    turns = numbered_turns(whole)
    starts, done = [], 0
    replay = new_game(variant)
    for n, turn in turns:
        starts.append((n, done))
        done += len(turn_actions(replay, turn))
    n0, at = max((s for s in starts if s[1] <= cut), key=lambda s: s[1])
    if at == 0:
        pytest.skip("the cut falls in the first turn")
    head = new_game(variant)
    for m in moves[:at]:
        head.play(m)
    part = game_from_position(variant, head.position())
    for m in moves[at:]:
        part.play(m)
    got = numbered_turns(part)
    assert got == [(n, t) for n, t in turns if n >= n0], (head.position(), got[:3], turns)
    record = str(Record.from_game(part))
    assert f"\n{n0}. " in record or record.split("\n\n", 1)[1].startswith(f"{n0}. ")
    assert parse_record(record).game().position() == part.position()


def turn_actions(game: object, turn: list[str]) -> list[str]:
    from controller.rules.record import split_token

    out: list[str] = []
    for token in turn:
        actions = split_token(game.variant, game.geometry, token)  # type: ignore[attr-defined]
        for a in actions:
            game.play(a)  # type: ignore[attr-defined]
        out.extend(actions)
    return out


@pytest.mark.parametrize("cut", [6, 30, 40])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_sabouiyya_game_from_its_position_numbers_turns_as_the_whole_game(
        seed: int, cut: int) -> None:
    _continued_alike("sabouiyya", seed, cut, 12)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_checkers_game_from_its_position_numbers_turns_as_the_whole_game(seed: int) -> None:
    _continued_alike("checkers", seed, 9, 8)


def test_a_game_from_the_usual_start_is_numbered_from_1() -> None:
    g = new_game("sabouiyya")
    g.play(sorted(g.legal_moves(), key=str)[0])
    assert numbered_turns(g)[0][0] == 1


@pytest.mark.parametrize("cut", [53, 56, 60])
def test_a_game_from_its_position_after_a_blocked_sides_removal_numbers_turns_alike(
        cut: int) -> None:
    # Seed 7 of this variant: the Defender is blocked at the moving phase's
    # turn 2 and the sides remove their own pieces (turns of the record that
    # the position's turn does not count; its off= field does).
    variant = find_variant("kharbga-refuge").with_options(blocked="remove")
    _continued_alike(variant, 7, cut, 12)
    rng = random.Random(7)
    whole = new_game(variant)
    for _ in range(cut):
        whole.play(rng.choice(sorted(whole.legal_moves(), key=str)))
    assert any(m.kind == "remove" for m in whole.moves)


# A corner fortress the Attacker cannot break even under H'ajeb (as in
# tests/rules/test_hajeb.py): declared, H'ajeb ends at once with removals.
FORTRESS = "..D../.DDA./DDA../.A.../A...A d m - 5"


@pytest.mark.parametrize("cut", [1, 2, 3, 4, 5])
def test_a_game_from_its_position_after_hajebs_removals_numbers_turns_alike(cut: int) -> None:
    # Each of H'ajeb's end removals is a turn of the record that the
    # position's turn does not count (as a blocked side's removal): a game
    # continued from a position after them numbers its turns as the whole
    # game, be the cut before, among or after the removals.
    variant = find_variant("sabouiyya").with_options(hajeb=True)
    whole = game_from_position(variant, FORTRESS)
    for action in ("hajeb", "xa1", "xe1", "xb4"):
        whole.play(action)
    rng = random.Random(3)
    for _ in range(4):
        whole.play(rng.choice(sorted(whole.legal_moves(), key=str)))
    turns = numbered_turns(whole)
    assert [t for _, t in turns[:4]] == [["hajeb"], ["xa1"], ["xe1"], ["xb4"]]
    head = game_from_position(variant, FORTRESS)
    moves = [str(m) for m in whole.moves]
    for m in moves[:cut]:
        head.play(m)
    part = game_from_position(variant, head.position())
    for m in moves[cut:]:
        part.play(m)
    assert numbered_turns(part) == turns[cut:], head.position()


def test_each_turn_has_its_side_and_a_blocked_sides_turn_shows_as_two_in_a_row() -> None:
    from controller.rules.record import group_turns, sided_turns

    # a3-a2 leaves the Defender's only soldier (a1) no step: the Attacker
    # moves again, two turns of its own in a row.
    g = game_from_position("kharbga", "A....../......./......./......./A....../......./DA..... "
                                      "a m - 30")
    for token in ("a3-a2", "a7-a6", "a6-a5"):
        g.play(token)
    assert list(sided_turns(g)) == [(0, ["a3-a2"]), (0, ["a7-a6"]), (0, ["a6-a5"])]
    # Elsewhere the sides alternate, as group_turns groups them.
    rng = random.Random(3)
    g = new_game("khamousiyya")
    while g.outcome is None and g.ply < 80:
        g.play(rng.choice(sorted(g.legal_moves(), key=str)))
    sided = list(sided_turns(g))
    assert [turn for _, turn in sided] == list(group_turns(g))
    assert [side for side, _ in sided] == [i % 2 for i in range(len(sided))]
