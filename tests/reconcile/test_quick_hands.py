"""Quick and hesitant hands, the cases the model of tests/reconcile/
test_reed_hands.py found: two turns made before the board settled, a
soldier lifted again after it landed, a placement moved from a wrong point,
the soldier just moved set down elsewhere on a board that repeats an older
position, and runs the board cannot prove confirmed (or not) by what the
hands do next. Each checks what is recorded and what the players are told."""

from __future__ import annotations

from test_reconciler import Hands


def test_a_placement_moved_from_a_wrong_point_keeps_its_place_in_the_turn() -> None:
    # The Defender's second soldier set on g4, read, then moved to f1:
    # before, the turn was rewritten '@f1 @g1', the order of the board's
    # points, not of the hands.
    h = Hands("kharbga")
    h.put("a1")
    h.put("b1")
    h.put("g1", "d")
    h.put("g4", "d", hold=0.8)
    assert h.moves[-1] == "@g4"
    h.lift("g4", hold=0.05)
    h.put("f1", "d")
    assert h.moves == ["@a1", "@b1", "@g1", "@f1"]


def test_a_first_placement_moved_and_the_second_made_at_once_are_read() -> None:
    # Before, the correction could not be longer than the placement it
    # replaced: nothing was read and the squares were lit as errors.
    h = Hands("kharbga")
    h.put("a1")
    h.put("b1")
    h.put("g4", "d", hold=0.8)
    assert h.moves[-1] == "@g4"
    h.lift("g4", hold=0.05)
    h.put("d1", "d", hold=0.05)
    h.put("c1", "d")
    assert h.moves == ["@a1", "@b1", "@d1", "@c1"]


def test_the_soldier_just_moved_set_down_elsewhere_is_no_takeback() -> None:
    # The soldiers stepped back and forth: b4-b5, read, then moved on to
    # a5, shows the board after the first b4-a5. Before, that was taken
    # back to (four turns undone); it is the last turn made another way.
    h = Hands("sixteen-soldiers")
    for frm, to in (("b4", "a5"), ("d6", "e5"), ("a5", "b4"), ("e5", "d6"), ("b4", "b5")):
        h.move(frm, to)
    assert h.moves[-1] == "b4-b5"
    h.move("b5", "a5")
    assert h.moves == ["b4-a5", "d6-e5", "a5-b4", "e5-d6", "b4-a5"]
