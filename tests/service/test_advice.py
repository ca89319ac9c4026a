"""The service's use of the engine's children: the ponder follows the
person's positions, a hint is answered from it, and the computer's reply
comes from the ponder's line when the person played the move it expected."""

from __future__ import annotations

import random
import time

import pytest
from server import eventually

from controller.rules import Game
from controller.rules.leap_factory import new_game
from controller.service.advice import Advice, thought_view
from controller.service.thinker import Thinker, Thought


def _midgame(seed: int = 3):
    """A Kharbga game a few moves into the moving phase (no chain pending)."""
    rng = random.Random(seed)
    g = new_game("kharbga")
    moving = 0
    while g.phase == "setting" or moving < 6 or g.chain_square is not None:
        going = []
        for m in g.legal_moves():
            g.play(m)
            if g.outcome is None and g.legal_moves():
                going.append(m)
            g.pop()
        g.play(rng.choice(going))
        moving += g.phase == "moving"
    return g


def _wait(predicate, seconds: float = 30.0):
    return eventually(predicate, seconds)


@pytest.fixture
def advice():
    a = Advice(True, Thinker(first=0.1, limit=3.0))
    yield a
    a.close()


def _count_searches(advice: Advice) -> list[float]:
    """The seconds of every search the thinker is asked for from now on
    (the search itself still runs in its child)."""
    asked: list[float] = []
    search = advice.thinker.search

    def counted(game, seconds, **kw):
        asked.append(seconds)
        return search(game, seconds, **kw)

    advice.thinker.search = counted  # type: ignore[method-assign]
    return asked


def test_the_ponder_runs_on_the_persons_turn_only(advice):
    g = _midgame()
    computer = "defender" if g.to_move == "attacker" else "attacker"
    advice.follow(g, computer)
    assert advice.thinker._ponder is not None
    view = _wait(lambda: advice.thought(g))
    assert view["move"] in {str(m) for m in g.legal_moves()}
    assert view["line"][0] == view["move"] and view["depth"] >= 1
    g.play(view["move"])  # now the computer is to move: no ponder
    advice.follow(g, computer)
    assert advice.thinker._ponder is None and advice.thought(g) is None
    advice.set_ponder(False)
    g.pop()
    advice.follow(g, computer)
    assert advice.thinker._ponder is None and advice.thought(g) is None


def test_a_hint_after_enough_thought_comes_from_the_ponder_at_once(advice):
    g = _midgame()
    advice.follow(g, None)
    ripe = _wait(lambda: (t := advice.thinker.thought(g)) and t.seconds >= 0.3 and t)
    asked = _count_searches(advice)
    marker, game, squares, move, _ = advice.hint_job(g, 0.3)()
    assert asked == []  # no search: the ponder's move
    assert (marker, game) == (len(g.moves), g)
    latest = advice.thinker.thought(g)
    assert move in {ripe.move, latest.move}
    assert squares and all(sq in move for sq in squares)


def test_a_hint_asked_before_the_ponder_thought_enough_is_searched(advice):
    g = _midgame()
    advice.follow(g, None)
    started = time.perf_counter()
    _, _, _, move, turn = advice.hint_job(g, 0.6)()
    assert time.perf_counter() - started >= 0.3  # a search of its own
    assert move in {str(m) for m in g.legal_moves()}
    assert turn == "" or turn.startswith(move) and turn != move  # said only when it goes on


def test_a_hint_names_its_whole_turn_from_the_engines_line(advice):
    # A chain: the first step is lit, the turn is the chain as the move list
    # writes it. A setting turn's first placement: the turn is both.
    g = Game.from_position("kharbga", "......./......./......./....DA./.AD..../...A.../"
                           "....... a m - 30")
    assert advice.hint_job(g, 0.3)()[2:] == (["d2", "d3"], "d2xd3", "d2xd3xd4")
    rng = random.Random(5)
    g = new_game("kharbga")
    for _ in range(10):  # five turns of two placements: out of the opening book
        g.play(rng.choice(g.legal_moves()))
    _, _, squares, move, turn = advice.hint_job(g, 0.3)()
    assert squares == [move[1:]] and turn.split(" ")[0] == move and len(turn.split(" ")) == 2


def test_the_computer_replies_from_the_line_the_person_followed(advice):
    g = _midgame()
    person = g.to_move
    computer = "defender" if person == "attacker" else "attacker"
    advice.follow(g, computer)
    t = _wait(lambda: (x := advice.thinker.thought(g)) and len(x.pv) >= 2 and x.seconds >= 0.3
              and x)
    g.play(t.pv[0])  # the move the ponder expected
    if g.to_move != computer:  # a chain goes on: the person's turn is longer
        pytest.skip("the line's first action does not end the person's turn")
    advice.follow(g, computer)
    reply = advice.ponder_reply(g, 0.3)
    assert reply is not None and reply in {str(m) for m in g.legal_moves()}
    asked = _count_searches(advice)
    marker, game, move = advice.computer_job(g, 0.3)()
    assert asked == [] and advice.from_ponder == 1
    assert (marker, game, move) == (len(g.moves), g, reply)
    # More thinking time than the ponder had: a search.
    assert advice.ponder_reply(g, 1000.0) is None
    # Below full strength the level's own search answers, never the
    # full-strength ponder's reply (a beginner played the strongest move).
    advice.from_ponder = 0
    _, _, move = advice.computer_job(g, 0.3, level=1)()
    assert advice.from_ponder == 0 and move in {str(m) for m in g.legal_moves()}


def test_another_move_than_the_line_expected_is_searched(advice):
    g = _midgame()
    computer = "defender" if g.to_move == "attacker" else "attacker"
    advice.follow(g, computer)
    t = _wait(lambda: (x := advice.thinker.thought(g)) and len(x.pv) >= 2 and x)
    other = next(m for m in g.legal_moves() if str(m) != t.pv[0])
    g.play(other)
    advice.follow(g, computer)
    assert advice.ponder_reply(g, 0.0) is None
    started = time.perf_counter()
    _, _, move = advice.computer_job(g, 0.4)()
    assert time.perf_counter() - started >= 0.2 and advice.from_ponder == 0
    assert move in {str(m) for m in g.legal_moves()}


def test_the_evaluation_in_words():
    def view(score: int) -> dict[str, object]:
        return thought_view(Thought("p", 0, "a1-a2", score, ("a1-a2",), 3, 10, 0.5))

    assert view(150)["words"] == "Attacker better" and view(150)["pieces"] == 1.5
    assert view(-230)["words"] == "Defender better" and view(-230)["pieces"] == -2.3
    assert view(10)["words"] == "even"
    assert view(-95_000)["words"] == "Defender wins by force"


def test_a_weakened_computers_search_is_not_shown_as_the_evaluation(advice):
    # Below full strength the computer's scores carry its level's noise and
    # its depth cap: the page's bar must not show them as the engine's view.
    g = _midgame()
    computer = g.to_move
    advice.follow(g, computer)  # the computer to move: nothing pondered
    legal = {str(m) for m in g.legal_moves()}
    _, _, move = advice.computer_job(g, 0.2, level=1)()
    assert move in legal
    assert advice.thought(g) is None
    # At full strength its search is the engine's view, shown until played.
    _, _, move = advice.computer_job(g, 0.2, level=5)()
    view = advice.thought(g)
    assert view is not None and view["move"] == move and view["depth"] >= 1
    # A weak search after it leaves no stale full-strength view behind either.
    advice.computer_job(g, 0.2, level=2)()
    assert advice.thought(g) is None


def test_a_computer_below_full_strength_plays_each_game_under_its_own_seed(tmp_path):
    # Levels 1-4 choose among near-best moves under a seed; with one seed
    # for every game, a person repeating their moves met the same replies
    # in every game. Each game has its own (its id), kept for its moves.
    from controller.service.board import BoardService
    from controller.service.config import Config

    service = BoardService(Config(data_dir=tmp_path, computer="attacker", level=1,
                                  think=0.05, ponder=False))
    seeds: list[tuple[int, int | None]] = []

    def search(game, seconds, *, level=None, seed=0, timeout=None):
        seeds.append((seed, level))
        return None

    try:
        service.advice.thinker.search = search
        service.compute_computer()
        service.compute_computer()  # the same game: the same seed
        service.new_game("kharbga")
        service.compute_computer()
    finally:
        service.close()
    assert [level for _, level in seeds] == [1, 1, 1]
    assert seeds[0][0] == seeds[1][0] != seeds[2][0]


def test_the_best_line_reads_by_turns_as_the_move_list_writes_them() -> None:
    """A chain is one token in the page's line (three read as the sides'
    alternate moves), a setting turn's placements together; a line no
    longer of the game stops where it leaves it."""
    from controller.rules import Game
    from controller.service.advice import line_turns

    chain = "......./......./......./..DA.../..DA.../A.DA.../......D a m - 5"
    g = Game.from_position("kharbga", chain)
    before = g.position()
    assert line_turns(g, ["a2xb2", "b2xb3", "b3xb4", "g1-f1", "b4-b5"]) == [
        "a2xb2xb3xb4", "g1-f1", "b4-b5"]
    assert line_turns(g, ["a2xb2", "b2xb3", "a1-a2"]) == ["a2xb2xb3"]  # a1: no soldier
    assert g.position() == before  # the game itself untouched
    start = Game.new("kharbga")
    assert line_turns(start, ["@c3", "@a1", "@e3", "@g7", "@d3"]) == [
        "@c3 @a1", "@e3 @g7", "@d3"]
    start.play("@c3")  # a turn half made: its rest first
    assert line_turns(start, ["@a1", "@e3", "@g7"]) == ["@a1", "@e3 @g7"]


def test_the_best_line_gives_each_turns_side_a_blocked_side_skipped() -> None:
    """The page says a turn of the same side as the one before: a3-a2
    leaves the Defender no step, and the Attacker moves again (the line
    read "a3-a2 · a7-a6" as the sides' alternate moves)."""
    from controller.service.advice import sided_line

    g = Game.from_position("kharbga", "A....../......./......./......./A....../......./DA..... "
                                      "a m - 30")
    assert sided_line(g, ["a3-a2", "a7-a6", "a6-a5"]) == [
        ("a3-a2", "attacker"), ("a7-a6", "attacker"), ("a6-a5", "attacker")]
    g = Game.from_position("kharbga", "......./......./......./..DA.../..DA.../A.DA.../......D "
                                      "a m - 5")
    assert sided_line(g, ["a2xb2", "b2xb3", "b3xb4", "g1-f1", "b4-b5"]) == [
        ("a2xb2xb3xb4", "attacker"), ("g1-f1", "defender"), ("b4-b5", "attacker")]
