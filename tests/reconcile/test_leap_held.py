"""What a player of the leap-capture games sees while the hands are still
at work: a huff taken back by undo and not yet made again, a capture with
two routes to the same landing point taken off piece by piece, and a man
just crowned lifted off to be made a king."""

from __future__ import annotations

import pytest

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler, Settings, Update
from controller.rules import AnyGame, new_game

SETTINGS = Settings(settle=0.25, error_delay=1.0)


def _bits(g: AnyGame, *names: str) -> int:
    return sum(1 << g.geometry.point_names.index(n) for n in names)


def _frame(g: AnyGame, t: float, colour: bool, *off: str, on: str = "") -> Frame:
    """The board of ``g`` with the soldiers on ``off`` taken away and one
    of the side to move set on ``on``."""
    a, d = g.bitboards()
    gone = _bits(g, *off)
    a, d = a & ~gone, d & ~gone
    if on:
        a, d = (a | _bits(g, on), d) if g.side == 0 else (a, d | _bits(g, on))
    return Frame(t, a | d, a, d, 0, True) if colour else Frame(t, a | d)


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


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_undone_and_another_soldier_lifted_lights_no_empty_point_to_remove(
        colour: bool) -> None:
    # The Defender takes e5 off as well (the wrong soldier for the huff).
    # Before, b4, empty, was lit 'capture' ("remove this piece") beside
    # e5's error.
    g, r = _huff_undone(colour)
    board = _frame(g, 5.0, colour, "b4", "e5")
    r.feed(board)
    u = r.tick(7.0)
    assert _removals_lit_on_empty_points(u, g, board) == [], u.leds
    assert u.leds["e5"] == "error"
    assert u.status == "e5: put the Attacker's soldier back"


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_undone_and_a_soldier_without_a_move_lifted_is_told_to_go_back(
        colour: bool) -> None:
    # a7 has no move, huff or not. Before, "a7 lifted; the huff comes
    # first: take off b4" with b4 already off, and b4 lit 'capture' empty.
    g, r = _huff_undone(colour)
    board = _frame(g, 5.0, colour, "b4", "a7")
    r.feed(board)
    u = r.tick(7.0)
    assert _removals_lit_on_empty_points(u, g, board) == [], u.leds
    assert u.leds["a7"] == "lifted"
    assert u.status == "Defender: a7 lifted, but it has no move from here; put it back"
