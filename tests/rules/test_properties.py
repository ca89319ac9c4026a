"""Property tests over random games of every variant."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import Game, find_variant
from controller.rules.random_games import lasting_moves, random_playout
from controller.rules.record import Record, parse_record

VARIANTS = [
    find_variant("kharbga"),
    find_variant("kharbga-refuge"),
    find_variant("kharbga-refuge").with_options(blocked="remove"),
    find_variant("khamousiyya"),
    find_variant("sabouiyya"),
]
variants = st.sampled_from(VARIANTS)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _random_game(variant: object, seed: int, limit: int = 3000) -> tuple[Game, list[str]]:
    rng = random.Random(seed)
    game = Game.new(variant)  # type: ignore[arg-type]
    positions = [game.position()]
    for _ in range(limit):
        if game.outcome is not None:
            break
        moves = game.legal_moves()
        assert moves, f"no legal move but no outcome in {game.position()}"
        game.play(rng.choice(moves))
        positions.append(game.position())
    return game, positions


def _conserved(game: Game) -> None:
    per_side = game.variant.pieces_per_side
    for side in ("attacker", "defender"):
        total = game.count(side) + sum(game.off_board(side))
        if game.phase == "moving":
            assert total == per_side, (side, game.position())
        else:
            assert total + game.in_hand(side) == per_side, (side, game.position())


@settings(max_examples=40, deadline=None)
@given(variants, seeds)
def test_random_games_never_raise_and_conserve_pieces(variant: object, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.new(variant)  # type: ignore[arg-type]
    while game.outcome is None:
        moves = game.legal_moves()
        assert moves
        assert len({str(m) for m in moves}) == len(moves), "duplicate moves listed"
        move = rng.choice(moves)
        game.play(str(move) if rng.random() < 0.5 else move)
        _conserved(game)
    assert game.legal_moves() == []
    _won_as_said(game)


def _won_as_said(game: Game) -> None:
    """The winner follows from the reason the game ended and the board."""
    out = game.outcome
    assert out is not None
    count = {side: game.count(side) for side in ("attacker", "defender")}
    if out.reason == "all-captured":
        assert out.winner is not None and min(count.values()) == 0 < count[out.winner]
    elif out.reason in ("no-progress", "repetition"):  # adjudicated on the pieces left
        more = max(count, key=count.__getitem__)
        assert out.winner == (None if count["attacker"] == count["defender"] else more), count
    elif out.reason == "turn-limit":
        assert out.winner is None
    else:  # a side left without a move, or walled off
        assert out.reason in ("blocked", "blocked-first-turn", "barrier"), out
        assert out.winner is not None


@settings(max_examples=25, deadline=None)
@given(variants, seeds)
def test_undo_restores_every_position(variant: object, seed: int) -> None:
    game, positions = _random_game(variant, seed, limit=600)
    for expected in reversed(positions[:-1]):
        game.pop()
        assert game.position() == expected
        assert game.outcome is None
    assert game.moves == []


@settings(max_examples=25, deadline=None)
@given(variants, seeds)
def test_position_strings_round_trip(variant: object, seed: int) -> None:
    game, positions = _random_game(variant, seed, limit=400)
    for text in positions[:: max(1, len(positions) // 25)]:
        again = Game.from_position(variant, text)  # type: ignore[arg-type]
        assert again.position() == text


@settings(max_examples=20, deadline=None)
@given(variants, seeds, st.booleans())
def test_records_round_trip(variant: object, seed: int, clocks: bool) -> None:
    game, _ = _random_game(variant, seed)
    times = [float(i % 90) for i in range(4000)] if clocks else None
    record = Record.from_game(game, {"Attacker": 'Ali "the fox"', "Defender": "Sana"}, times)
    text = str(record)
    parsed = parse_record(text)
    assert str(parsed) == text
    replayed = parsed.game()
    assert [str(m) for m in replayed.moves] == [str(m) for m in game.moves]
    assert replayed.position() == game.position()
    assert replayed.outcome == game.outcome
    if clocks:
        assert parsed.turns[3].clock == 3.0


@settings(max_examples=30, deadline=None)
@given(variants, seeds)
def test_random_playouts_are_legal_games(variant: object, seed: int) -> None:
    playout = random_playout(variant, random.Random(seed), record=True)  # type: ignore[arg-type]
    game = Game.new(variant)  # type: ignore[arg-type]
    for token in playout.moves:
        assert game.outcome is None
        game.play(token)
        assert str(game.moves[-1]) == token
    assert game.outcome is not None
    winner = {"attacker": 0, "defender": 1, None: None}[game.outcome.winner]
    assert winner == playout.winner
    assert len(game.moves) == playout.actions


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["khamousiyya", "sabouiyya", "kharbga"]), seeds)
def test_lasting_moves_keep_a_random_game_going(variant: str, seed: int) -> None:
    # Where some action would end the game at once, the simulated player's
    # choice leaves it out; it never offers a pass, and it changes nothing.
    rng = random.Random(seed)
    game = Game.new(variant)
    for _ in range(120):
        if game.outcome is not None:
            break
        before = game.position()
        offered = lasting_moves(game)
        assert game.position() == before
        legal = [m for m in game.legal_moves() if m.kind != "pass"]
        assert [str(m) for m in offered] == [str(m) for m in legal if m in offered]
        ending = []
        for m in legal:
            game.play(m)
            if game.outcome is not None:
                ending.append(str(m))
            game.pop()
        if len(ending) < len(legal):
            assert sorted(str(m) for m in offered) == sorted(
                str(m) for m in legal if str(m) not in ending)
        else:
            assert [str(m) for m in offered] == [str(m) for m in legal]
        if not offered:
            break
        game.play(rng.choice(offered))
