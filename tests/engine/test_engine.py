"""Tests of the search engine (fast: node and depth limits, not wall time)."""

from __future__ import annotations

import random
import time

import pytest

from controller.engine import WIN, Searcher, best_move
from controller.engine.match import (
    greedy_player,
    main,
    play_game,
    random_player,
    run_match,
    wilson,
)
from controller.engine.negamax import WON
from controller.rules import AnyGame, Game

FILES = "abcdefg"


def board(a: str, d: str, n: int = 7) -> str:
    """Board field with Attacker pieces on ``a`` and Defender pieces on ``d``."""
    sa, sd = set(a.split()), set(d.split())
    rows = []
    for r in range(n, 0, -1):
        rows.append(
            "".join(
                "A" if f"{f}{r}" in sa else "D" if f"{f}{r}" in sd else "." for f in FILES[:n]
            )
        )
    return "/".join(rows)


def game(variant: str, a: str, d: str, tail: str = "a m - 5") -> Game:
    return Game.from_position(variant, f"{board(a, d)} {tail}")


def replay(g: Game, pv: list[str]) -> Game:
    h = g.copy()
    for m in pv:
        h.play(m)
    return h


def mid_positions(variant: str, count: int, seed: int = 3) -> list[Game]:
    """Moving-phase positions from random games (deterministic)."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game.new(variant)
        stop = rng.randrange(10, 60)
        while g.outcome is None and (g.phase == "setting" or g.turn < stop):
            g.push(*_pick(g, rng))
        if g.outcome is None:
            out.append(g)
    return out


def _pick(g: Game, rng: random.Random) -> tuple[str, int, int, bool]:
    kind, frm, to, _, flag = random_player(g, rng)
    return kind, frm, to, flag


# ----------------------------------------------------------------------
# Tactics


@pytest.mark.parametrize("variant", ["khamousiyya", "kharbga", "kharbga-refuge"])
def test_finds_a_forced_chain_win(variant: str) -> None:
    g = game(variant, "a3 d3 d4 g1", "c3 c4")
    r = best_move(g, 10.0, max_depth=4)
    assert str(r.move) == "a3xb3"
    assert r.score >= WON
    end = replay(g, r.pv)
    assert end.outcome is not None and end.outcome.winner == "attacker"


def test_finds_a_single_capture() -> None:
    g = game("khamousiyya", "a1 a3 d3", "c3 g7 f7")
    r = best_move(g, 10.0, max_depth=3)
    assert r.move is not None and r.move.capture


def test_avoids_a_move_that_lets_the_opponent_capture() -> None:
    # d4-d5 would let c6-c5 capture it (with e5); every other move is safe.
    g = game("khamousiyya", "d4 a1", "e5 c6 g7")
    assert "d4-d5" in [str(m) for m in g.legal_moves()]
    r = best_move(g, 10.0, max_depth=4)
    assert str(r.move) != "d4-d5"
    h = replay(g, [str(r.move)])
    assert not any(m.capture for m in h.legal_moves())


def test_chain_keeps_the_side_and_pass_is_scored() -> None:
    # Khamousiyya: after a3xb3 the chain may continue (b3xb4) or pass.
    g = game("khamousiyya", "a3 d3 d4 g1", "c3 c4 g7")
    g.play("a3xb3")
    assert g.to_move == "attacker" and g.chain_square == "b3"
    r = Searcher(g).search(max_depth=2, all_scores=True)
    assert set(r.scores) == {"b3xb4", "pass"}
    assert str(r.move) == "b3xb4" and r.scores["b3xb4"] > r.scores["pass"]


# ----------------------------------------------------------------------
# The blocked first move, from the last setting turns


def test_khamousiyya_attacker_blocks_the_defender_from_its_last_setting_turn() -> None:
    g = Game.from_position(
        "khamousiyya", "ADDA.DD/DADADAD/AAADADA/DDA...D/AADDAAD/AAD.AAD/DAAADDD a s - 0"
    )
    r = best_move(g, 30.0, max_depth=8)
    assert str(r.move) in ("@e4", "@f4")  # @d2 and @e7 do not force the block
    assert r.score >= WON
    end = replay(g, r.pv)
    while end.outcome is None:  # the rest of the forced line
        end.play(best_move(end, 30.0, max_depth=4).move or "pass")
    assert end.outcome.winner == "attacker" and end.outcome.reason == "blocked"


def test_sabouiyya_attacker_blocks_the_defender() -> None:
    g = Game.from_position("sabouiyya", "DAD.D/DAD.A/AA..A/ADAAD/D.DAD a s - 0")
    r = best_move(g, 30.0, max_depth=8)
    assert str(r.move) in ("@d3", "@d4") and r.score >= WON


@pytest.mark.parametrize(
    "position,losing",
    [
        (".DADDDA/AADAD.A/DAADADD/ADD..AD/A.DAAAD/AA.AADA/AADDD.D d s - 0", {"@f1", "@f6", "@a7"}),
        ("DDADDAA/DDAA.DD/ADADAD./AA..ADD/DAADDAA/DDAA.D./AAD.AAA d s - 0", {"@d1", "@g5", "@e6"}),
    ],
)
def test_khamousiyya_defender_avoids_the_block_three_turns_ahead(
    position: str, losing: set[str]
) -> None:
    g = Game.from_position("khamousiyya", position)
    r = best_move(g, 60.0, max_depth=8)
    assert str(r.move) not in losing
    assert r.score > -WON


def _placed(variant: str, a: str, d: str, side: str) -> Game:
    """A setting-phase position with these pieces placed, ``side`` to place
    the first piece of its turn."""
    return Game.from_position(variant, f"{board(a, d)} {side[0]} s - 0")


def test_safe_steps_leave_out_a_step_the_enemy_could_answer_with_a_capture() -> None:
    # The Attacker's b2 may step to b1, a2, c2 and b3; on b3 it would stand
    # between the Defender's c3 and a3, a square the Defender's a4 can step
    # into: a step the Defender could answer by taking it. The Defender's
    # nine steps are all safe.
    from dataclasses import fields, replace

    from controller.engine.evaluate import Weights, evaluate, weights

    g = Game.from_position("sabouiyya", "...../DD.../..D../.A.../..... a m - 1")
    zero = replace(Weights(), **{f.name: 0 for f in fields(Weights)})
    base = evaluate(g, zero)
    assert evaluate(g, replace(zero, mobility=1)) - base == 4 - 9
    assert evaluate(g, replace(zero, safe_steps=1)) - base == 3 - 9
    # Where a blocked side loses, the hand-set weights count the safe steps.
    assert weights(g.variant).safe_steps > 0 and weights(g.variant).mobility == 0


def test_first_move_blocks_sees_sealed_covered_and_open_neighbours() -> None:
    from controller.engine.evaluate import COVERED, SEALED, first_move_blocks, masks

    m = masks(Game.new("khamousiyya").variant)

    def bb(squares: str) -> int:
        out = 0
        for sq in squares.split():
            out |= 1 << ((int(sq[1]) - 1) * 7 + FILES.index(sq[0]))
        return out

    # c4 with b4, c3, c5 the Attacker's: stepping c4-d4 leaves the Defender no step.
    assert SEALED in first_move_blocks(m, bb("c4 b4 c3 c5 d3 e4 d5"), bb("a1"))
    # A Defender on c3 covers it.
    assert SEALED not in first_move_blocks(m, bb("c4 b4 c5"), bb("c3"))
    assert COVERED in first_move_blocks(m, bb("c4 b4 c5"), bb("c3"))
    # c5 still empty: one placement from sealed.
    assert 1 in first_move_blocks(m, bb("c4 b4 c3"), bb("a1"))
    # A Defender on e4 taken by c4-d4 (f4 the Attacker's) escapes through e3.
    assert COVERED in first_move_blocks(m, bb("c4 b4 c3 c5 f4"), bb("e4 e3"))


@pytest.mark.parametrize("variant", ["khamousiyya", "sabouiyya"])
def test_defender_answers_a_block_threat_in_the_early_setting(variant: str) -> None:
    # The Attacker holds a centre neighbour with two of its other neighbours:
    # one more Attacker piece there seals it. Many squares are still empty,
    # so only the evaluation (not the look-ahead) can see it.
    if variant == "khamousiyya":
        g = _placed(variant, "c4 b4 c3 a1", "d3 g7 a7", "defender")
        cover = {"@c5"}
    else:  # 5x5, centre c3: b3 and b2 the Attacker's, a3 and b4 free
        g = Game.from_position(variant, "...../...../.A.D./.A.../..... d s - 0")
        cover = {"@a3", "@b4"}
    assert g.phase == "setting"
    r = best_move(g, 10.0, max_depth=2)
    assert str(r.move) in cover
    # Without the answer the Attacker seals it at once.
    other = next(m for m in g.legal_moves() if str(m) not in cover)
    h = replay(g, [str(other)])
    while h.to_move == "defender":
        h.play(next(m for m in h.legal_moves() if str(m) not in cover))
    assert best_move(h, 10.0, max_depth=2).score >= 3000


@pytest.mark.parametrize(
    "position,trap",
    [
        ("DADDDAD/AD.ADDD/D.ADADA/A.A.AAD/.DADADA/DDAADDA/ADAADAA a s - 0", "@b4"),
        ("ADDDDAD/AADADDA/A..AAAD/DAD.AAA/DDADA.A/ADDDDAD/ADDD.AA a s - 0", "@c5"),
    ],
)
def test_kharbga_attacker_must_not_block_the_defender(position: str, trap: str) -> None:
    g = Game.from_position("kharbga", position)
    # After the trap placement the Defender can force every first move to block
    # it, and a blocked Defender wins in kharbga.
    r = best_move(g, 60.0, max_depth=6)
    assert str(r.move) != trap
    assert r.score > -WON
    h = replay(g, [trap])
    assert h.to_move == "attacker"  # its second placement: every one loses
    assert best_move(h, 60.0, max_depth=5).score <= -WON


def test_kharbga_first_move_that_blocks_the_defender_is_avoided() -> None:
    g = Game.from_position(
        "kharbga", "DADDDAD/AD.ADDD/D.ADADA/A.A.AAD/.DADADA/DDAADDA/ADAADAA a s - 0"
    )
    for m in ("@a3", "@b2", "@c6", "@b4"):  # fill: moving phase with the centre free
        if g.phase == "setting" and m in [str(x) for x in g.legal_moves()]:
            g.play(m)
    while g.phase == "setting":
        g.play(g.legal_moves()[0])
    assert g.outcome is None and sorted(str(m) for m in g.legal_moves()) == ["c4xd4", "e4xd4"]
    h = replay(g, ["e4xd4"])  # leaves the Defender blocked: the Defender wins
    assert h.outcome is not None and h.outcome.winner == "defender"
    r = best_move(g, 10.0, max_depth=3)
    assert str(r.move) == "c4xd4" and r.score > -WON


# ----------------------------------------------------------------------
# Properties


@pytest.mark.parametrize("variant", ["kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya"])
def test_returns_only_legal_moves(variant: str) -> None:
    for g in mid_positions(variant, 4):
        for level in (None, 1, 3):
            r = best_move(g, 10.0, level=level, max_nodes=1500)
            assert r.move in g.legal_moves()
            replay(g, r.pv)  # the principal variation is playable
    s = Game.new(variant)
    r = best_move(s, 10.0, max_nodes=2000)
    assert r.move in s.legal_moves()


def test_exchange_steps_are_scored_like_other_moves() -> None:
    g = game("kharbga", "a1 b1 c1 g4", "d4 e7 g7", "d m - 6")
    r = Searcher(g).search(max_depth=2, all_scores=True)
    assert any(k.endswith("=") for k in r.scores)
    assert set(r.scores) == {str(m) for m in g.legal_moves()}


def test_respects_the_deadline() -> None:
    g = mid_positions("khamousiyya", 1)[0]
    t = time.perf_counter()
    r = best_move(g, 0.2)
    assert time.perf_counter() - t < 3.0
    assert r.move is not None and r.depth >= 1


def test_deterministic_under_a_seed() -> None:
    for g in mid_positions("sabouiyya", 3, seed=5):
        for level in (None, 2):
            one = best_move(g, 10.0, seed=7, level=level, max_nodes=3000)
            two = best_move(g, 10.0, seed=7, level=level, max_nodes=3000)
            assert (str(one.move), one.score, one.pv, one.nodes) == (
                str(two.move),
                two.score,
                two.pv,
                two.nodes,
            )


@pytest.mark.parametrize("variant", ["khamousiyya", "sabouiyya", "kharbga-refuge"])
def test_tt_does_not_change_a_fixed_depth_result(variant: str) -> None:
    for g in mid_positions(variant, 3, seed=11):
        with_tt = Searcher(g, use_tt=True, selective=False).search(max_depth=3, all_scores=True)
        without = Searcher(g, use_tt=False, selective=False).search(max_depth=3, all_scores=True)
        assert with_tt.score == without.score
        assert with_tt.scores == without.scores


def test_game_is_left_unchanged() -> None:
    g = mid_positions("kharbga", 1)[0]
    before = (g.position(), len(g.moves))
    best_move(g, 10.0, max_nodes=2000)
    assert (g.position(), len(g.moves)) == before


def test_game_over_gives_no_move() -> None:
    g = game("khamousiyya", "a3 d3 d4 g1", "c3 c4")
    g.play("a3xb3")
    g.play("b3xb4")
    assert g.outcome is not None
    assert best_move(g, 1.0).move is None


# ----------------------------------------------------------------------
# Matches


def test_wilson_interval() -> None:
    lo, hi = wilson(97, 100)
    assert 0.91 < lo < 0.92 and 0.98 < hi < 0.99
    assert wilson(0, 0) == (0.0, 1.0)


def test_greedy_beats_random() -> None:
    r = run_match("khamousiyya", greedy_player, random_player, 20, seed=1)
    assert r.score > 0.7


def _tiny_engine(game: Game, rng: random.Random) -> tuple[str, int, int, int, bool]:
    m = best_move(game, 10.0, seed=rng.getrandbits(16), max_nodes=150).move
    assert m is not None
    return (m.kind, m.frm, m.to, 0, m.flag)


@pytest.mark.parametrize("variant", ["sabouiyya", "kharbga"])
def test_engine_at_a_tiny_budget_beats_random(variant: str) -> None:
    r = run_match(variant, _tiny_engine, random_player, 6, seed=2, cap=80)
    assert r.wins >= 5


def test_play_game_adjudicates_capped_games() -> None:
    # Past the cap the side with more pieces on the board wins, level is a
    # draw: the last position a player saw (the cap checked before the next
    # action) decides, for games that end each way.
    results = set()
    last: list[tuple[int, int, int]] = []

    def play(game: AnyGame, rng: random.Random) -> tuple[str, int, int, int, bool]:
        last[:] = [(game.turn, game.count(0), game.count(1))]
        return random_player(game, rng)

    for seed in range(12):
        w = play_game("kharbga", play, play, seed=seed, cap=40)
        turn, a, d = last[0]
        assert turn == 40  # the game went on to the cap, and no further
        assert w == (0 if a > d else 1 if d > a else None), seed
        results.add(w)
    assert len(results) >= 2  # not one answer whatever the board


def test_match_main(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--variant", "sabouiyya", "--games", "4", "--a", "greedy", "--b", "random"]) == 0
    out = capsys.readouterr().out
    assert "greedy vs random, 4 games" in out and "95% CI" in out


def test_parallel_match_plays_the_same_games() -> None:
    from controller.engine.match import run_match_parallel

    serial = run_match("sabouiyya", greedy_player, random_player, 6, seed=4)
    parallel = run_match_parallel("sabouiyya", "greedy", "random", 6, seed=4, jobs=2)
    assert (serial.wins, serial.draws, serial.losses) == (
        parallel.wins, parallel.draws, parallel.losses)
    assert parallel.games == 6


def test_win_constant_is_large() -> None:
    assert WIN > 100 * 100
