"""Game on the compiled core (rules.accel_game.CompiledGame) against Game
on the pure core, through the public API: the same legal moves and
positions, records of moves and history, copies, undo, positions read
from strings, endings by the players and refusals of illegal moves."""

from __future__ import annotations

import random

import pytest
from option_cases import PureGame

from controller.rules import Game, IllegalMoveError, accel, find_variant
from controller.rules.accel_game import CompiledGame, game_class

pytestmark = pytest.mark.skipif(
    not accel.AVAILABLE,
    reason="the compiled core is not built (no C compiler or Python headers at install)",
)

NAMES = ("kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya")


def _alike(fast: Game, pure: Game, where: str) -> None:
    assert type(pure) is PureGame, where  # Game.new would hand out the compiled core
    assert [str(m) for m in fast.legal_moves()] == [str(m) for m in pure.legal_moves()], where
    assert fast.position() == pure.position(), where
    assert fast.outcome == pure.outcome and fast.to_move == pure.to_move, where
    assert fast.ply == pure.ply and fast.exchange == pure.exchange, where
    assert fast.off_board(0) == pure.off_board(0) and fast.in_hand(1) == pure.in_hand(1), where


@pytest.mark.parametrize("name", NAMES)
def test_games_through_the_public_api_match(name: str) -> None:
    for seed in range(12):
        rng = random.Random(seed)
        fast, pure = CompiledGame.new(name), PureGame.new(name)
        while pure.outcome is None:
            where = f"{name} seed {seed} ply {pure.ply}"
            _alike(fast, pure, where)
            moves = pure.legal_moves()
            text = str(moves[rng.randrange(len(moves))])
            if rng.random() < 0.5:
                fast.play(text)
            else:
                fast.play(fast.legal_moves()[[str(m) for m in moves].index(text)])
            pure.play(text)
            if rng.random() < 0.03:
                assert str(fast.pop()) == str(pure.pop()) == text
                _alike(fast, pure, f"{where} undone")
                fast.play(text)
                pure.play(text)
        _alike(fast, pure, f"{name} seed {seed} end")
        assert [str(m) for m in fast.moves] == [str(m) for m in pure.moves]
        assert [s for s, _ in fast.history] == [s for s, _ in pure.history]
        assert str(fast.last_move) == str(pure.last_move)


@pytest.mark.parametrize("name", NAMES)
def test_loaded_positions_and_copies_match(name: str) -> None:
    rng = random.Random(3)
    for _ in range(15):
        pure = PureGame.new(name)
        for _ in range(rng.randrange(20, 140)):
            if pure.outcome is not None:
                break
            moves = pure.legal_moves()
            pure.play(moves[rng.randrange(len(moves))])
        text = pure.position()
        fast, again = CompiledGame.from_position(name, text), PureGame.from_position(name, text)
        _alike(fast, again, text)
        assert fast.start_position == again.start_position
        copy = fast.copy()
        assert isinstance(copy, CompiledGame) and copy.position() == text
        if again.outcome is None:
            move = str(again.legal_moves()[0])
            copy.play(move)
            again.play(move)
            _alike(copy, again, f"{text} then {move}")
            assert fast.position() == text and fast.ply == 0  # the original is untouched


def test_illegal_moves_and_endings_by_the_players() -> None:
    fast = CompiledGame.new("kharbga")
    with pytest.raises(IllegalMoveError):
        fast.play("a1-a2")  # no steps while setting
    with pytest.raises(IllegalMoveError):
        fast.play("hajeb")  # not a rule of kharbga
    with pytest.raises(ValueError):
        fast.play("z9")
    fast.play("@a1")
    fast.resign()
    assert fast.outcome is not None and fast.outcome.winner == "defender"
    assert fast.outcome.reason == "resignation" and fast.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        fast.agree_draw()
    assert fast.pop().kind == "resignation" and fast.outcome is None
    pure = PureGame.new("kharbga")
    pure.play("@a1")
    assert fast.position() == pure.position()
    fast.agree_draw()
    assert fast.outcome is not None and fast.outcome.winner is None


def test_game_class_picks_the_compiled_core_where_it_can() -> None:
    assert game_class("khamousiyya") is CompiledGame
    assert game_class(find_variant("kharbga").with_options(size=9)) is Game
    assert isinstance(CompiledGame.new("sabouiyya"), Game)


@pytest.mark.parametrize("name", ("kharbga", "kharbga-refuge", "sabouiyya"))
def test_the_low_level_interface_matches(name: str) -> None:
    """raw_moves, push, push_raw, pop, captures, bitboards and the
    read-only views, as the reconciler and the engine use them."""
    rng = random.Random(6)
    for seed in range(6):
        fast, pure = CompiledGame.new(name), PureGame.new(name)
        while pure.outcome is None:
            raws = pure.raw_moves()
            assert fast.raw_moves() == raws
            assert fast.bitboards() == pure.bitboards()
            assert (fast.side, fast.setting, fast.turn, fast.chain_point, fast.removals) == (
                pure.side, pure.setting, pure.turn, pure.chain_point, pure.removals)
            raw = raws[rng.randrange(len(raws))]
            kind, frm, to, caps, flag = raw
            if kind == "step":
                assert fast.captures(frm, to) == pure.captures(frm, to) == caps
            if seed % 2:
                fast.push(kind, frm, to, flag=flag)
            else:
                fast.push_raw(raw)
            pure.push(kind, frm, to, flag)
            if rng.random() < 0.1:
                assert fast.pop() == pure.pop()
                assert fast.ply == pure.ply and fast.position() == pure.position()
                fast.push_raw(raw)
                pure.push_raw(raw)
        assert fast.outcome == pure.outcome and fast.position() == pure.position()
    with pytest.raises(IndexError):
        CompiledGame.new(name).pop()
