"""The engine on the leap-capture games (draughts, Sixteen Soldiers)."""

from __future__ import annotations

import random

import pytest

from controller.engine import Searcher, best_move, evaluate
from controller.engine.evaluate_leap import KING_VALUE, MAN, evaluate_leap
from controller.engine.match import (
    Player,
    greedy_player,
    main,
    play_game,
    random_player,
    run_match,
)
from controller.engine.negamax import AnyGame, Raw
from controller.rules.leap import LeapGame
from controller.rules.moves import REMOVE

LEAP = ["hewakam-keliya", "sixteen-soldiers", "english-draughts", "checkers"]


def draughts(pieces: dict[str, str], tail: str = "a m - 5") -> str:
    """An 8x8 position string: ``pieces`` maps squares to A, D, a or d."""
    rows = []
    for r in range(8, 0, -1):
        rows.append("".join(pieces.get(f"{f}{r}", ".") for f in "abcdefgh"))
    return "/".join(rows) + " " + tail


def mid_positions(variant: str, count: int, seed: int = 5) -> list[LeapGame]:
    """Positions from random games (deterministic)."""
    rng = random.Random(seed)
    out: list[LeapGame] = []
    while len(out) < count:
        g = LeapGame.new(variant)
        stop = rng.randrange(4, 40)
        while g.outcome is None and g.turn < stop:
            kind, frm, to, _, _ = random_player(g, rng)
            g.push(kind, frm, to)
        if g.outcome is None:
            out.append(g)
    return out


def node_player(nodes: int) -> Player:
    """The engine bounded by nodes, not time (the same moves under load)."""

    def play(game: AnyGame, rng: random.Random) -> Raw:
        r = best_move(game, 60.0, max_nodes=nodes)
        assert r.move is not None
        return (r.move.kind, r.move.frm, r.move.to, 0, False)

    return play


# ----------------------------------------------------------------------
# Evaluation and hash


def test_a_king_is_worth_more_than_a_man() -> None:
    man = LeapGame.from_position("checkers", draughts({"c3": "A", "f6": "D"}))
    king = LeapGame.from_position("checkers", draughts({"c3": "a", "f6": "D"}))
    assert evaluate(man) == evaluate_leap(man)
    assert evaluate_leap(king) - evaluate_leap(man) >= KING_VALUE - MAN - 40


def test_men_are_worth_more_nearer_the_crowning_row() -> None:
    back = LeapGame.from_position("english-draughts", draughts({"c1": "A", "f8": "D"}))
    ahead = LeapGame.from_position("english-draughts", draughts({"c5": "A", "f8": "D"}))
    assert evaluate_leap(ahead) > evaluate_leap(back)


def test_the_hash_sees_kings() -> None:
    man = LeapGame.from_position("checkers", draughts({"c3": "A", "f6": "D"}))
    king = LeapGame.from_position("checkers", draughts({"c3": "a", "f6": "D"}))
    assert man.bitboards() == king.bitboards()
    s = Searcher(man)
    assert s.zobrist.key(man) != s.zobrist.key(king)


def huff_position() -> LeapGame:
    """A sixteen-soldiers game in which the side to move owes a huff."""
    rng = random.Random(2)
    while True:
        g = LeapGame.new("sixteen-soldiers")
        while g.outcome is None and not g.huff:
            kind, frm, to, _, _ = random_player(g, rng)
            g.push(kind, frm, to)
        if g.huff:
            return g


def test_the_hash_sees_a_huff_owed() -> None:
    g = huff_position()
    text = " ".join(f for f in g.position().split() if not f.startswith("hf="))
    plain = LeapGame.from_position("sixteen-soldiers", text)
    assert plain.bitboards() == g.bitboards() and plain.side == g.side and not plain.huff
    s = Searcher(g)
    assert s.zobrist.key(g) != s.zobrist.key(plain)


# ----------------------------------------------------------------------
# Tactics


def test_follows_an_optional_chain_to_its_end() -> None:
    g = LeapGame.from_position(
        "checkers", draughts({"c3": "A", "a1": "A", "d4": "D", "d6": "D", "h8": "D"})
    )
    side = g.side
    taken = 0
    while g.side == side and g.outcome is None:
        m = best_move(g, 10.0, max_depth=3).move
        assert m is not None
        taken += m.capture
        g.play(m)
    assert taken == 2  # c3xe5xc7, not a pass after the first leap


def test_a_huff_owed_is_searched() -> None:
    """A step that leaves a capture untaken is huffed: the engine sees the
    opponent's removal at depth 1 (quiescence) and captures instead."""
    rng = random.Random(7)
    checked = 0
    while checked < 3:
        g = LeapGame.new("sixteen-soldiers")
        while g.outcome is None and not any(m[3] for m in g.raw_moves()):
            kind, frm, to, _, _ = random_player(g, rng)
            g.push(kind, frm, to)
        if g.outcome is not None or g.huff:
            continue
        r = Searcher(g).search(max_depth=1, all_scores=True)
        assert r.move is not None and r.move.capture
        steps = [s for m, s in r.scores.items() if "x" not in m]
        if steps:
            assert max(steps) < r.score
        checked += 1


def test_the_huff_removal_is_the_engine_s_action() -> None:
    g = huff_position()
    r = best_move(g, 10.0, max_nodes=2000)
    assert r.move is not None and r.move.kind == REMOVE
    assert r.move in g.legal_moves()


# ----------------------------------------------------------------------
# API and matches


@pytest.mark.parametrize("variant", LEAP)
def test_hints_are_legal_and_the_pv_replays(variant: str) -> None:
    for g in mid_positions(variant, 3):
        before = g.position()
        for level in (None, 1, 3):
            r = best_move(g, 10.0, seed=1, level=level, max_nodes=1500)
            assert r.move in g.legal_moves()
            assert g.position() == before
            h = g.copy()  # every level's line replays (play refuses an illegal one)
            for token in r.pv:
                h.play(token)
            assert not r.pv or r.pv[0] == str(r.move)


@pytest.mark.parametrize("variant", LEAP)
def test_beats_random_and_greedy(variant: str) -> None:
    engine = node_player(300)
    assert run_match(variant, engine, random_player, 2, seed=1).score == 1.0
    assert run_match(variant, engine, greedy_player, 2, seed=1).score == 1.0


def test_match_runner_plays_leap_games(capsys: pytest.CaptureFixture[str]) -> None:
    # Greedy against random at checkers: greedy wins (the game ends by its rules).
    assert play_game("checkers", greedy_player, random_player, seed=3) == 0
    assert main(["--variant", "hewakam-keliya", "--games", "2", "--a", "greedy"]) == 0
    assert "hewakam-keliya: greedy vs random, 2 games" in capsys.readouterr().out
