"""Looking back at a game (controller/engine/review.py): a turn that
loses pieces is marked, the engine's own moves never are, and a budget
that is no budget is refused."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from controller.engine.api import MAX_SECONDS, best_move, book_move
from controller.engine.review import (
    BLUNDER,
    DEFAULT_NODES,
    PYTHON_NODES,
    check_budget,
    review,
    turn_line,
)
from controller.rules import Game, find_any_variant, find_variant
from controller.rules.leap_factory import AnyGame, make_game

KHARBGA = find_variant("kharbga")
# The Defender to move, 30th turn of the record.  c4-d4 leaves d5 and d6
# to the Attacker's chain; f5-e5 keeps them.
POSITION = "ADDAADD/DADADAD/AA...DA/D.D..DD/AA.A.AA/DA.ADDA/DAAADDD d m - 6 np=0 off=4,0,0,4,0,0"


def _engine_turns(game: AnyGame, turns: int, nodes: int) -> list[str]:
    """Play ``turns`` whole turns of the engine's best moves at ``nodes``."""
    played: list[str] = []
    for _ in range(turns):
        side = game.to_move
        while game.outcome is None and game.to_move == side:
            move = best_move(game, MAX_SECONDS, max_nodes=nodes, book=False).move
            assert move is not None
            game.play(move)
            played.append(str(move))
    return played


def _defenders_after(move: str) -> int:
    """The Defender's soldiers after ``move`` and the Attacker's best answer."""
    game = Game.from_position(KHARBGA, POSITION)
    game.play(move)
    _engine_turns(game, 1, DEFAULT_NODES)
    return game.position().split()[0].count("D")


def test_a_move_that_loses_pieces_is_a_blunder() -> None:
    engine = str(best_move(Game.from_position(KHARBGA, POSITION), MAX_SECONDS,
                           max_nodes=DEFAULT_NODES, book=False).move)
    assert engine != "c4-d4"
    assert _defenders_after("c4-d4") <= _defenders_after(engine) - 2  # the pieces it loses
    turn = review(KHARBGA, POSITION, ["c4-d4"]).turns[0]
    assert (turn.number, turn.side, turn.played, turn.best) == (30, "defender", "c4-d4", engine)
    assert turn.loss >= BLUNDER and turn.mark == "??"
    assert turn_line(turn).endswith(f"loss {turn.loss / 100:.2f} ??")


def test_the_engines_own_moves_are_never_marked() -> None:
    game = Game.from_position(KHARBGA, POSITION)
    played = _engine_turns(game, 12, DEFAULT_NODES)
    result = review(KHARBGA, POSITION, played)
    assert [t.number for t in result.turns] == list(range(30, 42))
    assert all(t.best is None and t.loss == 0 and t.mark == "" for t in result.turns)
    assert result.summary("defender") == ("defender: 0 mistakes, 0 blunders, average loss "
                                          "0.00 pieces over 6 turns")


def test_the_leap_games_engine_moves_are_never_marked() -> None:
    variant = find_any_variant("english-draughts")
    played = _engine_turns(make_game(variant), 6, PYTHON_NODES)
    result = review(variant, None, played)
    assert len(result.turns) == 6
    assert all(t.mark == "" and t.best is None for t in result.turns)


def _engine_placement(game: AnyGame) -> str:
    """The engine's placement: the opening book's, else the search's at
    the review's budget."""
    found = book_move(game) or best_move(game, MAX_SECONDS, max_nodes=DEFAULT_NODES,
                                               book=False)
    assert found.move is not None
    return str(found.move)


def test_the_engines_own_setting_turns_are_scored_and_never_marked() -> None:
    game = Game.new(KHARBGA)
    placements, booked = [], 0
    while game.setting:
        booked += book_move(game) is not None
        placements.append(_engine_placement(game))
        game.play(placements[-1])
    assert 0 < booked < len(placements)  # the book answers, then the search
    result = review(KHARBGA, None, placements)
    assert [t.number for t in result.turns] == list(range(1, 25))
    assert all(t.best is None and t.loss == 0 and t.mark == "" for t in result.turns)
    assert result.turns[0].score == book_move(Game.new(KHARBGA)).score  # type: ignore[union-attr]
    assert all("not judged" not in turn_line(t) for t in result.turns)


def test_a_placement_that_lets_the_attacker_seal_the_centre_is_a_blunder() -> None:
    # khamousiyya: a Defender blocked after the first move loses the game.
    variant = find_variant("khamousiyya")
    played = ["@d5", "@d6", "@c4", "@a5"]
    turn = review(variant, None, played).turns[1]
    assert (turn.number, turn.side, turn.played) == (2, "defender", "@c4 @a5")
    assert turn.mark == "??" and turn.loss >= BLUNDER and turn.best is not None

    def first_move(tokens: list[str]) -> AnyGame:
        """The game after ``tokens``, the engine on both sides to the first move."""
        game = make_game(variant)
        for token in tokens:
            game.play(token)
        while game.outcome is None and getattr(game, "setting", False):
            game.play(best_move(game, MAX_SECONDS, max_nodes=DEFAULT_NODES, book=False).move)
        _engine_turns(game, 1, DEFAULT_NODES)
        return game

    lost = first_move(played).outcome
    assert lost is not None and (lost.winner, lost.reason) == ("attacker", "blocked")
    assert first_move(played[:2] + turn.best.split()).outcome is None


@pytest.mark.parametrize(("nodes", "seconds", "words"), [
    (0, None, "--nodes must be from 1 to 1,000,000,000,000, not 0"),
    (-5, None, "--nodes must be from 1 to 1,000,000,000,000, not -5"),
    (None, 0.0, "--time must be more than 0"),
    (None, MAX_SECONDS + 1, "--time must be more than 0 and at most 600 seconds, not 601"),
])
def test_a_budget_that_is_no_budget_is_refused(nodes: int | None, seconds: float | None,
                                              words: str) -> None:
    with pytest.raises(ValueError, match=words):
        check_budget(nodes, seconds)
    with pytest.raises(ValueError, match=words):
        review(KHARBGA, POSITION, ["c4-d4"], nodes=nodes, seconds=seconds)


def test_no_moves_and_a_move_the_rules_refuse_are_refused() -> None:
    with pytest.raises(ValueError, match="no moves"):
        review(KHARBGA, POSITION, [])
    with pytest.raises(ValueError, match=r"does not replay: action 1 \(b7-b6\)"):
        review(KHARBGA, POSITION, ["b7-b6"])


@pytest.mark.parametrize(("variant", "options", "nodes"), [
    ("kharbga", "", DEFAULT_NODES),
    ("sabouiyya", "hajeb=true", PYTHON_NODES),  # H'ajeb: the Python search
    ("english-draughts", "", PYTHON_NODES),
])
def test_the_default_budget_follows_the_search_that_runs(
        variant: str, options: str, nodes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.engine import review as module
    from controller.rules.leap_factory import apply_any_options

    budgets: set[int | None] = set()

    def counted(game: AnyGame, seconds: float, **kw: object) -> object:
        budgets.add(kw.get("max_nodes"))  # type: ignore[arg-type]
        return best_move(game, seconds, max_nodes=200, book=False)

    monkeypatch.setattr(module, "best_move", counted)
    rules = apply_any_options(find_any_variant(variant), options)
    game = make_game(rules)
    while getattr(game, "setting", False):  # to the moving phase, where it searches
        game.play(game.legal_moves()[0])
    start = game.position()
    review(rules, start, [str(game.legal_moves()[0])])
    assert budgets == {nodes}


def _random_turns(variant: str, seed: int, turns: int) -> list[str]:
    """``turns`` whole turns (fewer if the game ends) of uniformly random
    actions under ``seed``, from the variant's start."""
    rng = random.Random(seed)
    game = make_game(find_any_variant(variant))
    played: list[str] = []
    for _ in range(turns):
        side = game.to_move
        while game.outcome is None and game.to_move == side:
            moves = game.legal_moves()
            played.append(str(game.play(moves[int(rng.random() * len(moves))])))
    return played


@pytest.mark.parametrize(("variant", "seed", "turns", "nodes"), [
    ("kharbga", 15, 64, 2000),  # 24 setting turns, then chains
    ("english-draughts", 3, 40, 300),  # multiple jumps
])
def test_each_turn_is_grouped_from_the_last_turn_on_with_the_same_result(
        variant: str, seed: int, turns: int, nodes: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The review groups only the last turn and the current one for every
    # action it looks at, not the whole game, so a game's time is linear in
    # its length; the lines are the same as when the whole game is grouped
    # each time (the reference below).
    from controller.engine import review as module
    from controller.rules import record

    tokens = _random_turns(variant, seed, turns)
    rules = find_any_variant(variant)
    read: list[int] = []

    def counted(game: AnyGame, start: int = 0) -> Iterator[list[str]]:
        read.append(len(game.history) - start)
        return record.group_turns(game, start)

    monkeypatch.setattr(module, "group_turns", counted)
    result = review(rules, None, tokens, nodes=nodes)
    linear = sum(read)
    read.clear()
    monkeypatch.setattr(module, "group_turns",
                        lambda game, start=0: counted(game))  # the whole game each time
    reference = review(rules, None, tokens, nodes=nodes)
    assert [turn_line(t) for t in result.turns] == [turn_line(t) for t in reference.turns]
    assert len(result.turns) == turns
    assert linear <= 12 * len(tokens) and sum(read) > 3 * linear
    judged = [t for t in result.turns if t.best is not None]
    assert judged and len(judged) < len(result.turns)
    chains = [tok for t in judged for tok in f"{t.played} {t.best}".split() if tok.count("x") > 1]
    assert chains
    if variant == "kharbga":
        assert all(t.played.startswith("@") for t in result.turns[:24])
        assert any(t.best is not None for t in result.turns[:24])
