"""The reconciler on the leap-capture games: simulated people playing random
games (bounce, hands, wrong squares, captured soldiers taken off in any
order) on the 37-point and 8x8 boards replay to exactly the game played;
a huff is a removal the reconciler lights and expects, and a crowning
leaves the occupancy unchanged (the king lives in the game)."""

from __future__ import annotations

import random

import pytest
from test_replay_games import LENGTHS, random_game

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler
from controller.reconcile.replay import replay
from controller.reconcile.simulator import board_of, simulate_log
from controller.rules import AnyGame, LeapGame, game_from_position, new_game
from controller.rules.moves import REMOVE

VARIANTS = ["sixteen-soldiers", "hewakam-keliya", "checkers", "english-draughts"]
GAMES = 10  # a variant and a sensor: 20 games a variant


def _occ(game: AnyGame) -> str:
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> p & 1 else "0" for p in range(board_of(game)[1]))


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_simulated_leap_games_replay_exactly(variant: str, colour: bool) -> None:
    rng = random.Random(f"{variant}-{colour}")
    huffs = kings = captures = 0
    for i in range(GAMES):
        game = random_game(variant, rng, rng.choice(LENGTHS))
        assert isinstance(game, LeapGame)
        log = simulate_log(game, seed=i, colour=colour)
        rec = replay(log.splitlines(), variant).reconciler
        assert rec is not None and not rec.finished, f"game {i}: a new game was started"
        assert [str(m) for m in rec.game.moves] == [str(m) for m in game.moves], f"game {i}"
        assert rec.game.position() == game.position() and rec.game.outcome == game.outcome
        huffs += sum(1 for m in game.moves if m.kind == REMOVE)
        captures += sum(1 for m in game.moves if m.capture)
        kings += bool(game.kings)
    assert captures > 0
    if variant == "sixteen-soldiers":
        assert huffs > 0
    if variant in ("checkers", "english-draughts"):
        assert kings > 0


def _settle(rec: Reconciler, t: float, occ: str) -> None:
    rec.feed(Frame.from_occ(t, occ))
    rec.tick(t + 1.0)


def test_a_huff_is_lit_on_the_soldier_it_may_take_and_recognised() -> None:
    start = "..D/.../...../...../...../..D../A.A../.../... a m - 5"
    g = game_from_position("sixteen-soldiers", start)
    g.play("a3-a4")  # c3 could have captured c4 and did not: the Defender huffs it
    rec = Reconciler(game=g)
    update = rec.tick(0.0)
    assert update.status == ("Defender: huff: remove the enemy soldier on c3 (the Attacker "
                             "could have captured with it and did not)")
    assert update.leds["c3"] == "capture"
    huffed = g.copy()
    huffed.play("xc3")
    _settle(rec, 1.0, _occ(huffed))
    assert [str(m) for m in rec.game.moves][-1] == "xc3"
    assert rec.game.removals == () and rec.game.to_move == "defender"


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_and_the_move_after_it_in_one_reading_are_one_turn(colour: bool) -> None:
    # A camera settles only once the hand has gone: the soldier huffed and
    # the move after it (the same turn) are seen in one reading.
    g = new_game("sixteen-soldiers")
    for m in ("c4-c5", "b6-b5"):
        g.play(m)
    rec = Reconciler(game=g.copy())
    assert rec.tick(0.0).status == ("Attacker: huff: remove the enemy soldier on c6 (the "
                                    "Defender could have captured with it and did not)")
    after = g.copy()
    after.play("xc6")
    after.play("a4-a5")
    a, d = after.bitboards()
    rec.feed(Frame(1.0, a | d, a, d, 0, True) if colour else Frame(1.0, a | d))
    update = rec.tick(3.0)
    assert [str(m) for m in rec.game.moves][-2:] == ["xc6", "a4-a5"]
    assert "error" not in update.leds.values()
    # A soldier lifted before the huff is told that the huff comes first.
    rec = Reconciler(game=g.copy())
    a, d = g.bitboards()
    a4 = g.geometry.point_names.index("a4")
    rec.feed(Frame(1.0, (a | d) & ~(1 << a4)))
    assert rec.tick(2.0).status == "Attacker: a4 lifted; the huff comes first: take off c6"


def test_a_double_jump_s_pieces_taken_off_with_the_jumper_in_the_hand() -> None:
    # c3xe5xg7: the jumper lifted, then both captured pieces taken off
    # before it lands (rules allow it): no error, one turn recorded.
    pos = "......../......../.....D../......../...D..../..A...../......../........ a m - 1"
    g = game_from_position("checkers", pos)
    rec = Reconciler(game=g.copy())
    names = g.geometry.point_names
    a, d = g.bitboards()
    occ, t = a | d, 0.0
    for square in ("c3", "d4", "f6"):
        occ &= ~(1 << names.index(square))
        t += 0.3
        rec.feed(Frame(t, occ))
    update = rec.tick(t + 1.5)
    assert "error" not in update.leds.values()
    assert update.status == "Attacker: c3 lifted; set it on a lit square"
    rec.feed(Frame(t + 1.6, occ | 1 << names.index("g7")))
    rec.tick(t + 3.0)
    assert [str(m) for m in rec.game.moves] == ["c3xe5", "e5xg7"]


def test_once_set_up_a_leap_game_s_first_move_is_not_setting_up() -> None:
    g = new_game("checkers")
    rec = Reconciler(game=g.copy())
    start = _occ(g)
    _settle(rec, 1.0, start)  # the board set up: it fits the start
    b6 = g.geometry.point_names.index("b6")
    rec.feed(Frame.from_occ(3.0, start[:b6] + "0" + start[b6 + 1:]))  # the opponent's b6
    update = rec.tick(6.0)
    assert update.leds == {"b6": "error"}
    assert update.status == "b6: put the Defender's soldier back (it is the Attacker's turn)"


def test_a_crowning_changes_no_sensor_and_the_game_keeps_the_king() -> None:
    start = "......../..A...../.......D/......../......../......../......../........ a m - 1"
    g = game_from_position("checkers", start)
    rec = Reconciler(game=g)
    after = g.copy()
    after.play("c7-d8")
    _settle(rec, 1.0, _occ(after))
    assert [str(m) for m in rec.game.moves] == ["c7-d8"]
    assert isinstance(rec.game, LeapGame) and rec.game.is_king("d8")


def test_a_cleared_board_starts_a_leap_game_set_up_on_lit_points() -> None:
    g = new_game("checkers")
    g.play("c3-d4")
    rec = Reconciler(game=g)
    empty = "0" * 64
    _settle(rec, 1.0, empty)
    assert rec.saved and rec.game.ply == 0  # the game put aside, a new one begun
    update = rec.tick(2.5)  # the cleared board at once asks for the soldiers
    assert update.status == "Set up the soldiers: 24 starting squares still empty"
    assert len(update.leds) == 24 and set(update.leds.values()) == {"setup"}
    start = _occ(new_game("checkers"))
    half = start[:32] + empty[32:]  # the Attacker's soldiers set up, not the Defender's
    rec.feed(Frame.from_occ(3.0, half))
    update = rec.tick(9.0)
    assert update.status == "Set up the soldiers: 12 starting squares still empty"
    assert sorted(update.leds) == sorted(n for n, c in zip(
        rec.game.geometry.point_names, start, strict=True) if c == "1" and n[1] in "678")
    assert set(update.leds.values()) == {"setup"}
    rec.feed(Frame.from_occ(9.5, half[:56] + "1" + half[57:]))  # a8 is light: a mistake
    update = rec.tick(12.0)
    assert update.leds["a8"] == "error" and update.status == (
        "Set up the soldiers: 12 starting squares still empty; a8: no soldier belongs here; "
        "take it off")  # the squares still empty stay lit for setting up, a8 alone red
    assert sum(role == "setup" for role in update.leds.values()) == 12
    rec.feed(Frame.from_occ(13.0, start[:56] + "1" + start[57:]))  # all set up, a8 still on
    update = rec.tick(16.0)
    assert update.leds == {"a8": "error"} and update.status == \
        "a8: no soldier belongs here; take it off"
    _settle(rec, 17.0, start)
    update = rec.tick(20.0)
    assert update.status == "Attacker to move" and not update.leds


def test_a_huff_suggested_is_lit_as_the_hint_and_a_huffed_mover_leaves_no_light() -> None:
    from controller.reconcile.present import View, leds

    g = new_game("sixteen-soldiers")
    for m in ("c4-c5", "b6-b5"):
        g.play(m)
    names = g.geometry.point_names
    # The hint (or the computer's huff) on c6 shows as the hint, not under
    # the huff's capture light.
    assert leds(g, View(hint=1 << names.index("c6")))["c6"] == "hint"
    # c3 could capture c4 and steps to d4 instead: the Defender huffs it
    # there, and no light is left on the point it emptied.
    g = game_from_position("sixteen-soldiers",
                           "..D/.../...../...../...../..D../A.A../.../... a m - 5")
    g.play("c3-d4")
    assert leds(g, View())["d4"] == "capture"
    g.play("xd4")
    lit = leds(g, View())
    assert lit.get("c3") == "last-from" and "last-to" not in lit.values()


def test_a_soldier_lifted_while_a_capture_is_compulsory_is_told_which_must_capture() -> None:
    from controller.reconcile.present import View, status

    pos = "......../......../.....D../......../...D..../..A...../......../A....... a m - 1"
    g = game_from_position("english-draughts", pos)
    a1 = g.geometry.point_names.index("a1")
    assert status(g, View(lifted=a1)) == \
        "Attacker: a1 lifted, but a capture must be made, by c3; put it back"


def test_a_leap_game_put_aside_after_one_move_resumes_when_set_up_again() -> None:
    """A game cleared after its first move and set up again resumes: the
    new game's soldiers never stood on their start, so the board is not
    that move made in it. Before, the move was read in the new game and
    the game put aside stayed aside, unfinished, with the same move."""
    g = new_game("checkers")
    g.play("c3-d4")
    rec = Reconciler(game=g)
    moved = _occ(g)
    _settle(rec, 1.0, moved)
    _settle(rec, 3.0, "0" * 64)
    assert rec.saved == (g,) and rec.game.ply == 0
    _settle(rec, 5.0, moved)
    assert rec.game is g and [str(m) for m in g.moves] == ["c3-d4"] and not rec.saved


def test_a_new_game_on_soldiers_standing_at_its_start_reads_their_changes_as_play() -> None:
    """The New game button pressed with the soldiers on their start points:
    they stand set up, so a soldier lifted and set on a wrong point is a
    wrong move. Before, the reading at the press (no move: not read) left
    the game being set up: 'Set up the soldiers: 1 starting point still
    empty; b5: ...'."""
    g = new_game("sixteen-soldiers")
    rec = Reconciler(game=g.copy())
    start = _occ(g)
    _settle(rec, 1.0, start)
    rec.feed(Button(3.0, "new", None))
    names = g.geometry.point_names
    c4, b5 = names.index("c4"), names.index("b5")
    lifted = start[:c4] + "0" + start[c4 + 1:]
    _settle(rec, 4.0, lifted)
    rec.feed(Frame.from_occ(6.0, lifted[:b5] + "1" + lifted[b5 + 1:]))
    update = rec.tick(9.0)
    assert update.status == "b5: not a legal point for the soldier from c4: set it on a lit " \
        "point (c5), or back on c4"
    assert update.leds == {"c4": "error", "b5": "error", "c5": "destination"}
