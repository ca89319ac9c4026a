"""What a player of the leap-capture games sees while the hands are still
at work: a huff taken back by undo and not yet made again, a capture with
two routes to the same landing point taken off piece by piece, and a man
just crowned lifted off to be made a king."""

from __future__ import annotations

import pytest
from test_leap_words import _bits, _frame

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.rules import AnyGame, game_from_position, new_game

SETTINGS = Settings(settle=0.25, error_delay=1.0)


def _removals_lit_on_empty_points(u: Update, g: AnyGame, board: Frame) -> list[str]:
    """The points lit "remove this piece" that hold nothing to remove."""
    return [name for name, role in u.leds.items() if role in ("capture", "exchange")
            and not board.occupied & _bits(g, name)]


def _huff_undone(colour: bool) -> tuple[AnyGame, Reconciler]:
    """Sixteen Soldiers: the Defender owed the huff of b4 (c4-d4 left it
    uncaptured), took it off, and pressed undo; b4 is not back yet."""
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5", "c4-d4"):
        g.play(m)
    assert g.huff == _bits(g, "b4")
    r = Reconciler(game=g.copy(), settings=SETTINGS)
    r.feed(_frame(g, 0.0, colour))
    r.feed(_frame(g, 1.0, colour, "b4"))
    r.tick(1.5)
    assert [str(m) for m in r.game.moves][-1] == "xb4"
    r.feed(Button(2.0, "undo"))
    u = r.tick(4.0)
    assert [str(m) for m in r.game.moves] == [str(m) for m in g.moves]
    assert u.status == "b4: taken back by undo; put the Attacker's soldier back"
    return g, r


def _lifted_with_the_huff_undone(colour: bool, point: str) -> Update:
    """What is shown once ``point`` is off the board too, b4 still off
    after the huff's undo: no empty point is lit to take a piece off."""
    g, r = _huff_undone(colour)
    board = _frame(g, 5.0, colour, "b4", point)
    r.feed(board)
    u = r.tick(7.0)
    assert _removals_lit_on_empty_points(u, g, board) == [], u.leds
    return u


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_undone_and_another_soldier_lifted_lights_no_empty_point_to_remove(
        colour: bool) -> None:
    # The Defender takes e5 off as well (the wrong soldier for the huff).
    # Before, b4, empty, was lit 'capture' ("remove this piece") beside
    # e5's error.
    u = _lifted_with_the_huff_undone(colour, "e5")
    assert u.leds["e5"] == "error"
    assert u.status == "e5: put the Attacker's soldier back"


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_undone_and_a_soldier_without_a_move_lifted_is_told_to_go_back(
        colour: bool) -> None:
    # a7 has no move, huff or not. Before, "a7 lifted; the huff comes
    # first: take off b4" with b4 already off, and b4 lit 'capture' empty.
    u = _lifted_with_the_huff_undone(colour, "a7")
    assert u.leds["a7"] == "lifted"
    assert u.status == "Defender: a7 lifted, but it has no move from here; put it back"


def _two_routes(variant: str) -> AnyGame:
    """c1 leaps to c5 two ways: over d2 and d4 (by e3), or over b2 and b4
    (by a3); the board shows the same either way until the captured
    soldiers come off."""
    pos = ".......D/......../......../......../.D.D..../......../.D.D..../..A...A. a m - 1"
    g = game_from_position(variant, pos + (" np=0" if variant == "checkers" else ""))
    assert {str(m) for m in g.legal_moves() if m.capture} == {"c1xa3", "c1xe3"}
    return g


@pytest.mark.parametrize("variant", ["english-draughts", "checkers"])
@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_piece_of_the_other_capture_route_taken_off_is_not_shown_as_lifted(
        colour: bool, variant: str) -> None:
    # The soldier lands on c5, read as the route over d2 and d4, and the
    # player takes b2 off, then b4: it was the other route. Before, b2
    # alone off was shown as the Defender lifting b2 ('lifted', a1 and c1
    # lit where it could go, "Defender: b2 lifted") until b4 came off
    # too; now what was shown stays until the reading tells the two apart.
    g = _two_routes(variant)
    r = Reconciler(game=g.copy(), settings=SETTINGS)
    shown: list[Update] = [r.feed(_frame(g, 0.0, colour)), r.tick(0.5)]
    steps = [("c1",), ("c1", "b2"), ("c1", "b2", "b4")]
    for i, off in enumerate(steps):
        t = 1.0 + 3 * i
        if i == 0:
            shown += [r.feed(_frame(g, t, colour, *off)), r.tick(t + 0.5)]
        shown += [r.feed(_frame(g, t + 1.0, colour, *off, on="c5")),
                  *(r.tick(t + 1.0 + dt) for dt in (0.1, 0.3, 0.6, 1.5))]
        if i == 0:
            assert [str(m) for m in r.game.moves] == ["c1xe3", "e3xc5"]
            waiting = shown[-1]
            assert waiting.status == "Remove the captured soldiers on d2, d4 (taken by c1xe3xc5)"
        if i == 1:  # b2 alone off: held, as it was shown
            assert all((u.status, u.leds) == (waiting.status, waiting.leds)
                       for u in shown[-5:]), [(u.status, u.leds) for u in shown[-5:]]
    assert [str(m) for m in r.game.moves] == ["c1xa3", "a3xc5"]
    assert shown[-1].status == "Defender to move"
    assert not any("lifted" in u.leds.values() or "b2 lifted" in u.status
                   for u in shown[8:]), [(u.status, u.leds) for u in shown[8:]]


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_soldier_lifted_while_a_capture_made_two_ways_waits_moves_once_set_down(
        colour: bool) -> None:
    # b2 lifted was held (it may be the other route's captured soldier);
    # set down on c1, it is the Defender's move, read as ever.
    g = _two_routes("english-draughts")
    r = Reconciler(game=g.copy(), settings=SETTINGS)
    r.feed(_frame(g, 0.0, colour))
    r.feed(_frame(g, 1.0, colour, "c1"))
    r.feed(_frame(g, 2.0, colour, "c1", on="c5"))
    r.tick(3.0)
    r.feed(_frame(g, 4.0, colour, "c1", "b2", on="c5"))
    assert r.tick(5.0).status == "Remove the captured soldiers on d2, d4 (taken by c1xe3xc5)"
    a, d = g.bitboards()
    a = a & ~_bits(g, "c1") | _bits(g, "c5")
    d = d & ~_bits(g, "b2") | _bits(g, "c1")
    r.feed(Frame(6.0, a | d, a, d, 0, True) if colour else Frame(6.0, a | d))
    u = r.tick(7.0)
    assert [str(m) for m in r.game.moves] == ["c1xe3", "e3xc5", "b2-c1"]
    assert u.leds["d2"] == "capture" and u.leds["d4"] == "capture"


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_undone_is_not_made_again_by_a_soldier_lifted_and_set_back(
        colour: bool) -> None:
    # The Defender lifts e5 and sets it back with b4 still off. Before, the
    # board showing the undo's reading again was the huff xb4 made again.
    g, r = _huff_undone(colour)
    r.feed(_frame(g, 5.0, colour, "b4", "e5"))
    r.tick(6.0)
    r.feed(_frame(g, 7.0, colour, "b4"))
    u = r.tick(9.0)
    assert [str(m) for m in r.game.moves] == [str(m) for m in g.moves]
    assert u.played == [] and u.leds["b4"] == "error"
    assert u.status == "b4: taken back by undo; put the Attacker's soldier back"
    # Put back, then the huff made again: it is recorded.
    r.feed(_frame(g, 10.0, colour))
    assert r.tick(11.0).leds["b4"] == "capture"  # the huff owed, as before it
    r.feed(_frame(g, 12.0, colour, "b4"))
    r.tick(13.0)
    assert [str(m) for m in r.game.moves][-1] == "xb4"


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huffed_soldier_already_off_is_not_asked_for_while_the_board_is_read(
        colour: bool) -> None:
    # b4 is off, the reading still settling, then (e5 off too) waiting
    # out the error delay. Before, "huff: remove the enemy soldier on b4"
    # with b4 already off (and, since f0fdd07, not lit).
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5", "c4-d4"):
        g.play(m)
    r = Reconciler(game=g.copy(), settings=SETTINGS)
    r.feed(_frame(g, 0.0, colour))
    asked = ("Defender: huff: remove the enemy soldier on b4 (the Attacker could have "
             "captured with it and did not)")
    assert r.tick(0.5).status == asked
    told = "Defender: huff: b4 taken off (the Attacker could have captured with it and did not)"
    settling = r.feed(_frame(g, 1.0, colour, "b4"))
    assert settling.status == told and "b4" not in settling.leds
    r.feed(_frame(g, 1.1, colour, "b4", "e5"))
    waiting = r.tick(1.6)  # settled, nothing explains it, not lit yet
    assert not waiting.played and "error" not in waiting.leds.values()
    assert waiting.status == told and "b4" not in waiting.leds
    lit = r.tick(2.5)
    assert lit.leds["e5"] == "error" and lit.status == "e5: put the Attacker's soldier back"
    r.feed(_frame(g, 3.0, colour))  # all put back: asked again
    assert r.tick(3.5).status == asked
