"""Paired openings, the baseline player's loading, the weights file."""

from __future__ import annotations

import random
from importlib import resources

import pytest

from controller.engine import evaluate
from controller.engine.evaluate import DEFAULT_WEIGHTS, Weights, read_weights, weights
from controller.engine.match import (
    AnyGame,
    Raw,
    baseline_player,
    game_after,
    make_player,
    opening,
    play_game,
    run_match,
)
from controller.rules import Game, find_variant


def test_an_opening_is_legal_setting_placements_fixed_by_its_seed() -> None:
    one = opening("kharbga", 8, seed=3)
    assert one == opening("kharbga", 8, seed=3)
    assert one != opening("kharbga", 8, seed=4)
    g = Game.new("kharbga")
    for m in one:
        assert m in g.raw_moves() and m[0] == "place"
        g.push(m[0], m[1], m[2], m[4])
    assert g.setting and g.ply == 8


def test_paired_games_start_alike_with_colours_swapped() -> None:
    seen: list[tuple[str, int, str]] = []

    def recorder(name: str) -> object:
        def play(game: AnyGame, rng: random.Random) -> Raw:
            if game.ply == 6:
                seen.append((name, game.side, game.position()))
            game_moves = game.raw_moves()
            return game_moves[0]
        return play

    a, b = recorder("a"), recorder("b")
    run_match("sabouiyya", a, b, 4, seed=1, cap=5, opening_actions=6)  # type: ignore[arg-type]
    # Game 0: A is the Attacker; game 1: B is; the same position after the
    # opening, where the Defender is to place.
    (n0, s0, p0), (n1, s1, p1), (n2, _, p2), (_, _, p3) = seen
    assert p0 == p1 and p2 == p3 and p0 != p2
    assert (n0, s0) == ("b", 1) and (n1, s1) == ("a", 1)


def test_play_game_plays_on_from_the_opening() -> None:
    start = opening("khamousiyya", 4, seed=0)
    after = game_after("khamousiyya", start)
    greedy = make_player("greedy")
    seen: list[str] = []

    def first(game: AnyGame, rng: random.Random) -> Raw:
        seen.append(game.position())
        return greedy(game, rng)

    play_game("khamousiyya", first, first, 0, cap=3, start=start)
    assert len(start) == 4 and seen[0] == after.position()  # the opening's four placements
    assert len(seen) > 4  # and the game played on from them


def test_an_engine_player_with_threads_plays_a_legal_action() -> None:
    g = game_after("khamousiyya", opening("khamousiyya", 10_000, seed=2))
    move = make_player("engine:0.05:5:2")(g, random.Random(0))
    assert move[:3] in [m[:3] for m in g.raw_moves()]  # the player leaves the captures 0


def test_the_baseline_player_needs_its_directory(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: object) -> None:
    monkeypatch.delenv("KHARBGA_ENGINE_BASELINE", raising=False)
    with pytest.raises(ValueError, match="KHARBGA_ENGINE_BASELINE"):
        baseline_player(0.1)
    monkeypatch.setenv("KHARBGA_ENGINE_BASELINE", str(tmp_path))
    with pytest.raises(ValueError, match="engine_round1"):
        make_player("baseline:0.1")


@pytest.mark.parametrize(("spec", "words"), [
    ("engine:x", "bad player"), ("random:1", "unknown player"), ("greedy:2", "unknown player"),
    ("engine:", "a time after the colon"),  # before: played at 0.1 s, named "engine:"
    ("engine:1:2:3:4", "unknown player"), ("nobody", "unknown player"),
    ("engine:1:5:0", "the threads must be 1 to 16"), ("engine:1:5:17", "the threads must be"),
    ("engine:1:5:x", "bad player"),
    ("engine:0.01:9", "the level must be one of 1, 2, 3, 4, 5"),
    ("engine:0.01:0", "the level must be"), ("engine:inf", "at most 600 seconds"),
    ("engine:nan", "more than 0"), ("engine:0", "more than 0"), ("baseline:1e9", "at most 600"),
])
def test_bad_player_specs_are_refused(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        make_player(spec)


def test_weights_file_reading() -> None:
    got = read_weights('{"variants": {"kharbga": {"mobility": 7}}}')
    assert got["kharbga"] == Weights(mobility=7)
    for bad in ('{"variants": {"kharbga": {"speed": 7}}}',
                '{"variants": {"kharbga": {"mobility": 1.5}}}'):
        with pytest.raises(ValueError, match="kharbga"):
            read_weights(bad)
    # A file cut short, or of another shape, is named (it was json's own
    # message alone, or an AttributeError).
    shipped = (resources.files("controller.engine") / "data" / "weights.json").read_text()
    for bad in (shipped[: len(shipped) // 2], "[1, 2]", '{"variants": [1]}',
                '{"variants": {"kharbga": 3}}'):
        with pytest.raises(ValueError, match=r"^weights\.json: "):
            read_weights(bad)


def test_the_weights_change_the_score() -> None:
    # The Attacker (to move) has 2 steps from a1, the Defender 6 from d7 and g4.
    g = Game.from_position("kharbga", "...D.../......./......./......D/......./......./"
                           "A...... a m - 5")
    still = Weights(mobility=0)
    assert evaluate(g, Weights(mobility=10)) - evaluate(g, still) == 10 * (2 - 6)
    assert weights(find_variant("kharbga")).mobility >= 0
    assert DEFAULT_WEIGHTS.mobility >= 1


def test_a_balanced_opening_is_scored_near_even_and_replaces_a_decided_one() -> None:
    # khamousiyya: seed 700021's 8 random placements let the Attacker seal
    # the Defender after the first move (a forced win the search sees).
    from controller.engine.match import BALANCE_LIMIT, balanced_opening, opening_score

    decided = opening("khamousiyya", 8, seed=700_021)
    assert opening_score("khamousiyya", decided, nodes=300_000) > 4000
    got = balanced_opening("khamousiyya", 8, seed=700_021, nodes=300_000)
    assert got != decided and len(got) == 8
    assert abs(opening_score("khamousiyya", got, nodes=300_000)) <= BALANCE_LIMIT
    assert got == balanced_opening("khamousiyya", 8, seed=700_021, nodes=300_000)
    # An opening that is already even is kept as it is.
    assert balanced_opening("khamousiyya", 8, seed=700_023, nodes=300_000) == opening(
        "khamousiyya", 8, seed=700_023)


def test_the_result_counts_a_s_games_as_the_defender() -> None:
    from controller.engine.match import MatchResult

    r = MatchResult.of([1, -1, 1, 0, -1, 1])
    assert (r.wins, r.draws, r.losses) == (3, 1, 2)
    assert r.second == (1, 1, 1)
    # Pairs: (1, -1) split by colour, (1, 0) won, (-1, 1) split.
    assert r.pairs == (1, 2, 0)
    assert str(r).endswith("as the Defender +1 =1 -1; pairs +1 =2 -0")
    assert MatchResult.of([-1, 0, 0, 0]).pairs == (0, 1, 1)


def test_balanced_needs_an_opening() -> None:
    from controller.engine.match import main

    with pytest.raises(ValueError, match="--opening"):
        main(["--variant", "sabouiyya", "--games", "2", "--balanced"])


def test_quiet_turns_adjudicate_by_piece_count() -> None:
    from controller.engine.match import random_player

    def run(seed: int, quiet: int) -> tuple[int | None, list[tuple[int, int, int, int]]]:
        seen: list[tuple[int, int, int, int]] = []

        def play(game: AnyGame, rng: random.Random) -> Raw:
            seen.append((game.turn, game.no_progress, game.count(0), game.count(1)))
            return random_player(game, rng)

        start = opening("khamousiyya", 8, seed=seed)
        return play_game("khamousiyya", play, play, seed, 200, start, quiet=quiet), seen

    for seed, winner in ((0, 0), (1, None)):
        got, seen = run(seed, 6)
        full_result, full = run(seed, 0)
        # The same random game, cut where six turns passed without a capture,
        # and scored by the pieces then on the board.
        assert seen == full[:len(seen)] and len(full) > len(seen) + 50
        assert max(np for _, np, _, _ in seen) == 5 and seen[-1][1] == 5
        assert got == winner


def test_an_opening_can_be_the_whole_setting_phase() -> None:
    from controller.engine.match import WHOLE_SETTING, describe_opening, opening_length

    assert opening_length("setting") == WHOLE_SETTING and opening_length("8") == 8
    for bad in ("-1", "eight", ""):
        with pytest.raises(ValueError, match="--opening"):
            opening_length(bad)
    assert describe_opening(WHOLE_SETTING) == "the whole setting phase"
    assert describe_opening(8) == "8 placements"
    start = opening("sabouiyya", WHOLE_SETTING, seed=2)
    g = game_after("sabouiyya", start)
    # 12 + 12 placements, then the Attacker is to make the first step.
    assert len(start) == 24 and not g.setting and g.side == 0 and g.outcome is None
    with pytest.raises(ValueError, match="no setting phase"):
        opening("sixteen-soldiers", WHOLE_SETTING, seed=2)


def test_a_balanced_whole_setting_opening_is_even_for_a_search() -> None:
    from controller.engine.match import (
        BALANCE_LIMIT,
        WHOLE_SETTING,
        balanced_opening,
        opening_score,
    )

    scores = [opening_score("sabouiyya", opening("sabouiyya", WHOLE_SETTING, s), 100_000)
              for s in range(6)]
    # Random full boards are mostly decided: some side is a piece or more ahead.
    assert sum(abs(x) > BALANCE_LIMIT for x in scores) >= 3
    got = balanced_opening("sabouiyya", WHOLE_SETTING, seed=0, nodes=100_000)
    assert len(got) == 24
    assert abs(opening_score("sabouiyya", got, 100_000)) <= BALANCE_LIMIT


def test_the_leap_games_balance_with_a_search_their_python_core_runs_in_seconds() -> None:
    from controller.engine.match import (
        BALANCE_NODES,
        BALANCE_NODES_LEAP,
        balance_nodes,
        opening_score,
    )

    assert balance_nodes("khamousiyya") == BALANCE_NODES
    assert balance_nodes("checkers") == balance_nodes("sixteen-soldiers") == BALANCE_NODES_LEAP
    start = opening("checkers", 4, seed=1)
    # The default budget is the leap one: the same deterministic score.
    assert opening_score("checkers", start) == opening_score("checkers", start, BALANCE_NODES_LEAP)


def test_a_pairs_balanced_opening_is_searched_once_for_its_two_games(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from controller.engine import match

    monkeypatch.setattr(match, "balance_nodes", lambda variant: 20_000)  # quick searches
    scored: list[list[Raw]] = []
    plain = match.opening_score

    def counted(variant: str, start: list[Raw], nodes: int | None = None) -> int:
        scored.append(list(start))
        return plain(variant, start, nodes)

    monkeypatch.setattr(match, "opening_score", counted)
    openings = [match.pair_start("khamousiyya", 8, 3, k, True) for k in range(3)]
    tries = len(scored)  # the openings drawn until each pair's is balanced
    assert tries >= 3 and [s for s in scored if s in openings] == openings
    begun: list[str] = []

    def greedy_noting(game: AnyGame, rng: random.Random) -> Raw:
        if game.ply == 8:
            begun.append(game.position())
        return match.greedy_player(game, rng)

    scored.clear()
    result = run_match("khamousiyya", greedy_noting, greedy_noting, 6, seed=3, cap=4,
                       opening_actions=8, balanced=True)
    assert len(scored) == tries  # not twice as many: once a pair, not once a game
    after = []
    for start in openings:
        g = game_after("khamousiyya", start)
        after += [g.position()] * 2
    assert begun == after
    scored.clear()
    shared = match.run_match_parallel("khamousiyya", "greedy", "greedy", 6, seed=3, cap=4,
                                      jobs=2, opening_actions=8, balanced=True)
    assert str(shared) == str(result)
