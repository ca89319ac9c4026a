"""Quick and hesitant hands, the cases the model of tests/reconcile/
test_reed_hands.py found: two turns made before the board settled, a
soldier lifted again after it landed, a placement moved from a wrong point,
the soldier just moved set down elsewhere on a board that repeats an older
position, and runs the board cannot prove confirmed (or not) by what the
hands do next. Each checks what is recorded and what the players are told."""

from __future__ import annotations

from test_reconciler import DELAY, Hands

# a2xb2 takes c2 (d2 is the Attacker's); the Defender's g1 then steps.
CAPTURE = "......./......./......./......./......./A.DA.../......D a m - 5"
# a2xb2 takes c2, b2xb3 takes c3, b3xb4 takes c4; c5 may then step to c4.
CHAIN = "......./......./..D..../..DA.../..DA.../A.DA.../......D a m - 5"
# Sixteen Soldiers, the Defender to move: d6-e5 leaves e5 to be huffed.
HUFF = "DDD/DDD/DDDDD/DDDDD/..A../A.AAA/AAAAA/AAA/AAA d m - 2"


def _quick(h: Hands, *steps: tuple[str, str, str]) -> None:
    """Each step (from, to, side) made with no pause the board could read."""
    for frm, to, side in steps:
        h.lift(frm, hold=0.05)
        h.put(to, side, hold=0.05)


def test_a_capture_and_the_reply_made_before_the_board_settled_are_both_played() -> None:
    # Before, the reading (two turns) was nothing: error lights, nothing
    # recorded, until the players put the board back.
    h = Hands("kharbga", CAPTURE)
    _quick(h, ("a2", "b2", "a"))
    h.lift("c2", hold=0.05)
    _quick(h, ("g1", "g2", "d"))
    h.hold(DELAY + 0.5)
    assert h.moves == ["a2xb2", "g1-g2"]
    assert h.leds == {"g1": "last-from", "g2": "last-to"}
    assert h.last.status == "Attacker to move"


def test_the_reply_s_soldier_held_up_is_lifted_after_the_capture() -> None:
    h = Hands("kharbga", CAPTURE)
    _quick(h, ("a2", "b2", "a"))
    h.lift("c2", hold=0.05)
    h.lift("g1", hold=0.6)
    assert h.moves == ["a2xb2"]
    assert h.leds["g1"] == "lifted" and h.leds["g2"] == "destination"
    assert h.last.status == "Defender: g1 lifted; set it on a lit square"
    h.put("g2", "d")
    assert h.moves == ["a2xb2", "g1-g2"]


def test_the_turn_set_down_first_is_the_one_answered() -> None:
    # b1-b2 then c2-c1, or b1-c1 then c2-b2: the same board. The piece set
    # down last is the reply's.
    h = Hands("kharbga", "......./......./......./......./......./..D..../.A..... a m - 5")
    _quick(h, ("b1", "b2", "a"))
    h.lift("c2", hold=0.05)
    h.put("c1", "d", hold=0.5)
    assert h.moves == ["b1-b2", "c2-c1"]


def test_a_quick_reply_set_down_on_a_wrong_square_first_is_read_once_right() -> None:
    # The Defender answers a2xb2 by taking b2 (c1-b1), b2 taken off before
    # its soldier lands, and sets it on e1 first: a reading nothing explains.
    # What the hands did before it (b2 shown occupied) is kept for the next
    # reading; before, it was forgotten and the errors stayed.
    h = Hands("kharbga", "......./......./......./......./.D...../A.DA.../..D.... a m - 5")
    _quick(h, ("a2", "b2", "a"))
    h.lift("c2", hold=0.05)
    h.lift("c1", hold=0.05)
    h.lift("b2", hold=0.05)
    h.put("e1", "d", hold=DELAY + 0.5)
    assert h.moves == [] and h.leds["e1"] == "error"
    h.lift("e1", hold=0.05)
    h.put("b1", "d")
    assert h.moves == ["a2xb2", "c1xb1"]
    assert "error" not in h.leds.values()


def test_the_soldier_lifted_again_before_the_board_settled_is_no_huff() -> None:
    # Sixteen Soldiers: d6-e5 leaves e5 to be huffed. Lifted again at once
    # and held, it is the soldier in the hand, not d6-e5 and the Attacker's
    # huff of e5 (a huff alone is no proof of the reply: it looks the same).
    h = Hands("sixteen-soldiers", HUFF)
    _quick(h, ("d6", "e5", "d"))
    h.lift("e5", hold=0.6)
    assert h.moves == []
    assert h.leds["d6"] == "lifted"
    h.put("e5", "d")
    assert h.moves == ["d6-e5"]
    assert h.last.status.startswith("Attacker: huff: remove the enemy soldier on e5")


def test_a_huff_made_at_once_is_read_with_the_move_after_it() -> None:
    # The Attacker huffs e5 before the board settled (it shows d6 in the
    # hand meanwhile), then moves: all three read. Before, the landing on e5
    # was forgotten once the board had read the soldier in the hand, and
    # d6-d5 was read, with d4 lifted and 'the huff comes first: take off d5'.
    h = Hands("sixteen-soldiers", HUFF)
    _quick(h, ("d6", "e5", "d"))
    h.lift("e5", hold=0.6)
    assert h.moves == [] and h.leds["d6"] == "lifted"
    _quick(h, ("d4", "d5", "a"))
    h.hold(DELAY)
    assert h.moves == ["d6-e5", "xe5", "d4-d5"]
    assert h.leds == {"d4": "last-from", "d5": "last-to"}


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


def _stepped_onto_the_freed_square() -> Hands:
    """The Attacker's chain made, c3 and c4 still standing; the Defender's
    c5 lifted and c4 taken off and set down again at once: c5-c4 onto the
    freed square, or c5 in the hand and c4 set back (occupancy cannot
    tell: the board shows c5 lifted until something else tells)."""
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("b2", "b3")
    h.move("b3", "b4")
    assert h.moves == ["a2xb2", "b2xb3", "b3xb4"]
    h.lift("c5", hold=0.05)
    h.lift("c4", hold=0.05)
    h.put("c4", "d", hold=0.5)
    assert h.moves == ["a2xb2", "b2xb3", "b3xb4"] and h.leds["c5"] == "lifted"
    return h


def test_the_other_side_s_soldier_lifted_confirms_a_step_onto_a_freed_square() -> None:
    # Before, the Attacker's soldier held up left nothing read, and the
    # Defender's step was lost: the next reading showed two turns.
    h = _stepped_onto_the_freed_square()
    h.lift("c3", hold=0.5)
    h.lift("b4", hold=0.6)
    assert h.moves[-1] == "c5-c4" and h.leds["b4"] == "lifted"
    h.put("b5")
    assert h.moves[-2:] == ["c5-c4", "b4-b5"]


def test_a_captured_piece_of_the_turn_before_taken_off_confirms_no_step() -> None:
    # c3 (the Attacker's capture) taken off says nothing of the Defender's
    # soldier: it is still in the hand, and here it goes to b5, with c4 the
    # captured soldier still to come off.
    h = _stepped_onto_the_freed_square()
    h.lift("c3", hold=0.5)
    assert h.moves == ["a2xb2", "b2xb3", "b3xb4"] and h.leds["c5"] == "lifted"
    h.put("b5", "d")
    assert h.moves[-1] == "c5-b5"
    assert h.leds["c4"] == "capture"
    assert h.last.status == "c4: remove the captured soldier"


# Khamousiyya, the Attacker's d4 continuing a chain: d4xd5 takes e5 and d6.
# d4xd3 then d3xc3 (taking c3, then c4) leaves the same board as d4 lifted.
CONTINUE = "AAAADDA/DDDDDDA/DDA.DAA/ADDA.AD/DAD.AAA/DDAAADA/ADADDAA a m d4 1 off=0,0,0,2,0,0"


def test_a_piece_the_held_soldier_will_take_lifted_first_is_no_reply() -> None:
    # With d4 in the hand, e5 taken off before d4 lands is the capture to
    # come, not the Defender answering a run the board cannot prove with a
    # run of its own (before: d4xd3 d3xc3 recorded, then 'pass e5xe4 e4xf4'
    # waited, and d4xd5 was lost).
    h = Hands("khamousiyya", CONTINUE)
    h.lift("d4", hold=0.6)
    assert h.leds["d4"] == "lifted"
    h.lift("e5", hold=0.6)
    assert h.moves == []
    h.put("d5", "a", hold=0.6)
    h.lift("d6", hold=0.6)
    assert h.moves == ["d4xd5"]
    assert "error" not in h.leds.values()


# b2xc2 takes c3 (c4 is the Attacker's), then c2xb2 takes b3: back on b2.
BACK = "......./......./......./.AA..../.DD..../.A...../......D a m - 5"


def test_a_chain_back_to_its_own_square_read_as_nothing_new_then_its_captures_off() -> None:
    # The soldier's round trip made before the board settled reads as the
    # board unchanged; what the hands did is kept, so its captures taken
    # off then are the chain (before, the clues were dropped with that
    # reading, and the chain could not be read: nothing recorded).
    h = Hands("kharbga", BACK)
    h.lift("b2", hold=0.05)
    h.put("c2", "a", hold=0.05)
    h.lift("c2", hold=0.05)
    h.put("b2", "a", hold=0.6)
    assert h.moves == [] and h.last.status == "Attacker to move"
    h.lift("c3", hold=0.05)
    h.lift("b3", hold=0.6)
    assert h.moves == ["b2xc2", "c2xb2"]
    assert "error" not in h.leds.values()


def test_a_chain_back_to_its_own_square_then_a_quick_reply_are_both_read() -> None:
    # The soldier read in the hand, set back after its round trip (the
    # board as it was), then its captures off and the Defender's g1 lifted
    # in one reading: the chain, then g1 in the hand.
    h = Hands("kharbga", BACK)
    h.lift("b2", hold=0.6)
    assert h.leds["b2"] == "lifted"
    h.put("c2", "a", hold=0.05)
    h.lift("c2", hold=0.05)
    h.put("b2", "a", hold=0.6)
    assert h.moves == []
    h.lift("c3", hold=0.05)
    h.lift("b3", hold=0.05)
    h.lift("g1", hold=0.6)
    assert h.moves == ["b2xc2", "c2xb2"]
    assert h.leds["g1"] == "lifted"
    h.put("g2", "d")
    assert h.moves == ["b2xc2", "c2xb2", "g1-g2"]


def test_a_quick_reply_onto_the_point_of_the_piece_just_captured_is_read() -> None:
    # a2xb2 takes c2, c2 taken off, and c1-c2 made before the board settled.
    # The board is also the capture with c2 still standing and c1 in the
    # hand; but c2 was shown empty, then filled: the reply set down there.
    # Before, c2 was lit to be taken off and the reply was not recorded.
    h = Hands("kharbga", "......./......./......./......./......./A.DA.../..D...D a m - 5")
    _quick(h, ("a2", "b2", "a"))
    h.lift("c2", hold=0.05)
    _quick(h, ("c1", "c2", "d"))
    h.hold(DELAY + 0.5)
    assert h.moves == ["a2xb2", "c1-c2"]
    assert h.leds == {"c1": "last-from", "c2": "last-to"}
    assert h.last.status == "Attacker to move"


def test_the_captured_piece_put_back_before_a_soldier_is_lifted_is_still_to_come_off() -> None:
    # The same board, another order: c2 (captured) taken off and put back,
    # then c1 lifted and held. c2 was filled again before c1 left, so the
    # piece on it is the captured one: c1 is in the hand, c2 to come off.
    h = Hands("kharbga", "......./......./......./......./......./A.DA.../..D...D a m - 5")
    _quick(h, ("a2", "b2", "a"))
    h.lift("c2", hold=0.05)
    h.put("c2", "d", hold=0.05)
    h.lift("c1", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2"]
    assert h.leds["c1"] == "lifted" and h.leds["c2"] == "capture"
    h.put("d1", "d", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2", "c1-d1"]
    assert h.last.status == "c2: remove the captured soldier"
    h.lift("c2", hold=DELAY + 0.5)
    assert h.leds == {"c1": "last-from", "d1": "last-to"}


def test_a_chain_and_a_quick_reply_onto_its_captured_points_are_not_a_soldier_in_the_hand() -> None:
    # f3xe3 takes d3 and e2, e3xd3 takes d2; f2-e2 before the board settled.
    # The board is also f3 in the hand, f2 and d2 (pieces it may capture)
    # taken off early, d3 and e2 never moved; but d3 and e2 were shown
    # empty, then filled: the chain and the reply landed there. Before,
    # f3 was lit as lifted and nothing was recorded.
    h = Hands("khamousiyya", "......./......./......./......./A.AD.AA/A.ADDDA/DDDAADA a m - 5")
    _quick(h, ("f3", "e3", "a"))
    for captured in ("e2", "d3"):
        h.lift(captured, hold=0.05)
    h.lift("e3", hold=0.05)
    h.lift("d2", hold=0.05)
    h.put("d3", "a", hold=0.05)
    _quick(h, ("f2", "e2", "d"))
    h.hold(DELAY + 0.5)
    assert h.moves == ["f3xe3", "e3xd3", "f2-e2"]
    assert h.leds == {"f2": "last-from", "e2": "last-to"}
    assert h.last.status == "Attacker to move"


def test_the_chain_s_soldier_set_down_long_on_a_wrong_point_is_not_the_chain_ended() -> None:
    # g2xg3 takes f3; g3xg2 (taking f2) may follow. The chain's soldier
    # lifted, f2 taken off early, the soldier set down long on f3: the
    # board of the chain ended and f2-f3 made, then g3 lifted. But g3 went
    # first, and a player does not move while the chain's soldier is in
    # the air. Before, pass and f2-f3 were recorded.
    h = Hands("khamousiyya", "......./......./......./......./DD..AD./..DAADA/ADAAADA a m - 5")
    _quick(h, ("g2", "g3", "a"))
    h.lift("f3", hold=DELAY + 0.5)
    assert h.moves == ["g2xg3"] and h.leds["g3"] == "continue"
    h.lift("g3", hold=0.05)
    h.lift("f2", hold=0.05)
    h.put("f3", "a", hold=DELAY + 0.5)
    assert h.moves == ["g2xg3"]
    assert h.leds["g3"] == "lifted" and h.leds["g2"] == "destination"
    h.lift("f3", hold=0.05)
    h.put("g2", "a", hold=DELAY + 0.5)
    assert h.moves == ["g2xg3", "g3xg2"]
    assert h.last.status == "Defender to move"


def test_a_reply_capturing_the_chain_s_soldier_taken_off_first_ends_the_chain() -> None:
    # g2xg3 takes f3; the Defender's g1xg2 (g4 beyond) takes the chain's
    # soldier on g3, and that soldier is taken off first: its point is
    # empty because it was captured, not because it is in the hand.
    h = Hands("khamousiyya", "......./......./......./......D/DD..AD./..DAADA/ADAAADD a m - 5")
    _quick(h, ("g2", "g3", "a"))
    h.lift("f3", hold=DELAY + 0.5)
    assert h.moves == ["g2xg3"]
    h.lift("g3", hold=0.05)
    _quick(h, ("g1", "g2", "d"))
    h.hold(DELAY + 0.5)
    assert h.moves == ["g2xg3", "pass", "g1xg2"]
    assert "error" not in h.leds.values()


def test_a_glitch_on_another_point_does_not_change_a_quick_reply_read() -> None:
    # Sixteen Soldiers: a5-b6, the huff of b4 at once, and the Defender's
    # c6xa6 over b6, made before the board read the huff. c1, no part of
    # it, drops out for 4 ms (a reed's chatter, in a raw log) just before
    # b6 comes off. Before, c1 counted as the piece last set down, and the
    # reading became "a5-a6" with c6 in the hand, nothing lit.
    position = "DDD/DDD/DDDDD/..DDD/AD.../.AA.A/AAAA./AAA/AAA a m - 13 np=6"
    for glitch in (False, True):
        h = Hands("sixteen-soldiers", position)
        h.lift("a5", hold=0.0)
        h.put("b6", "a", hold=0.0)
        h.lift("b4", hold=1.3)  # the huff with no move yet: not read alone
        h.lift("c6", hold=0.02)
        h.put("a6", "d", hold=0.08)
        if glitch:
            c1 = h._bit("c1")
            for _ in range(2):  # off and back, 4 ms apart
                h.a ^= c1
                h.t += 0.004
                h.r.feed(h.frame())
        h.lift("b6", hold=DELAY + 0.5)
        assert h.moves == ["a5-b6", "xb4", "c6xa6"], glitch
        assert "error" not in h.leds.values()
        assert h.last.status == "Attacker to move"


# Khamousiyya games of the reed-hands model: e4xd4 takes d3, and d4xd3
# (into the point just freed) takes c3 and e3; or b5xc5 takes c6, and
# c5xc6 takes d6. Occupancy also shows the chain stopped (pass) and the
# Defender's c3xd3 (d6xc6) capturing the chain's soldier.
CHAIN_INTO_ITS_CAPTURE = "ADDDDAA/DDDDDDA/DAADADA/DAA.ADA/DADDDAD/AAAAADA/DDAAAAD a m - 1"
CHAIN_INTO_ITS_CAPTURE_2 = ("DAAADD./DADDAAD/AA...AD/DDDD..A/AA..D../DDAA.DA/AAAA..A "
                            "a m - 43 off=4,0,0,8,0,0")


def test_a_chain_into_its_first_capture_s_point_with_its_soldier_in_the_air_goes_on() -> None:
    # The soldier set down on d4 and lifted again at once, d3 and c3 taken
    # off meanwhile, held up long (read as in the hand), then set on d3.
    # Its point went before any Defender soldier: the chain went on (a
    # captured piece is seldom taken off before its capture is begun).
    # Before, pass and c3xd3 were recorded, and e3 coming off was an error.
    h = Hands("khamousiyya", CHAIN_INTO_ITS_CAPTURE)
    h.lift("e4", hold=0.04)
    h.put("d4", "a", hold=0.03)
    h.lift("d3", hold=0.02)
    h.lift("d4", hold=0.07)
    h.lift("c3", hold=1.1)
    assert h.moves == [] and h.leds["e4"] == "lifted"
    h.put("d3", "a", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4", "d4xd3"]
    assert h.leds["e3"] == "capture" and "error" not in h.leds.values()
    h.lift("e3", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4", "d4xd3"]
    assert "error" not in h.leds.values()
    assert h.last.status == "Defender to move"


def test_a_chain_into_its_first_capture_s_point_made_at_once_goes_on() -> None:
    # All before the board settled: b5xc5, c6 off, the soldier lifted off
    # c5, d6 off, the hand brushing b5 (15 ms), the soldier set on c6.
    # Before, the Defender's d6 counted as lifted first (b5 shown again),
    # and pass and d6xc6 were recorded, b6 lit to come off.
    h = Hands("khamousiyya", CHAIN_INTO_ITS_CAPTURE_2)
    h.lift("b5", hold=0.05)
    h.put("c5", "a", hold=0.05)
    h.lift("c6", hold=0.02)
    h.lift("c5", hold=0.04)
    h.lift("d6", hold=0.08)
    h.put("b5", "a", hold=0.005)
    h.lift("b5", hold=0.09)
    h.put("c6", "a", hold=DELAY + 0.5)
    assert h.moves == ["b5xc5", "c5xc6"]
    assert "error" not in h.leds.values() and "capture" not in h.leds.values()
    assert h.last.status == "Defender to move"


def test_a_chain_kept_aside_unproven_is_not_confirmed_while_its_soldier_still_moves() -> None:
    # Kharbga with a refuge (a reed-hands game): e4xe5 takes f5, e5xe6
    # (must) takes f6. The soldier set on e5 and lifted again, held up
    # (read as in the hand, e4xe5 then back over e3's Attacker kept aside
    # as a run the board cannot prove), set on e5 again, f5 taken off, the
    # soldier lifted on. Before, f5 off confirmed that run (e4xe5, e5xe4,
    # e4xe3, its soldier "on e3"), though a soldier was set down on e5
    # since; f6 off and e6 filled then read as the Attacker's f6-e6.
    h = Hands("kharbga-refuge", "D.D.AAD/AA.A.AD/A.AA.AD/DAAADDD/DDAAAAD/AAADDDD/AAADDDA "
                                "d m - 8 np=2 off=0,0,0,5,0,0")
    h.lift("e4", hold=0.08)
    h.put("e5", "d", hold=0.08)
    h.lift("e5", hold=1.26)
    assert h.moves == [] and h.leds["e4"] == "lifted"
    h.put("e5", "d", hold=0.04)
    h.lift("f5", hold=0.02)
    h.lift("e5", hold=0.7)
    assert h.moves == []
    h.lift("f6", hold=0.01)
    h.put("e6", "d", hold=DELAY + 0.5)
    assert h.moves == ["e4xe5", "e5xe6"]
    assert "error" not in h.leds.values()


def test_a_chain_soldier_set_on_a_wrong_point_after_its_next_capture_came_off_goes_on() -> None:
    # Sabouiyya (a reed-hands game, clumsy hands): a3xb3 takes b4; b3xa3
    # would take a4. The soldier lifted, a4 taken off early, the soldier
    # set down long on b4. Occupancy also shows the chain stopped and the
    # Attacker's a4xb4 capturing b3; but b3 went first, and a4 is the
    # piece the chain's next step takes. Before, pass and a4xb4 were
    # recorded, and the soldier set right on a3 was read as nothing.
    h = Hands("sabouiyya", "DD.AA/AADDD/D.DDD/DAAA./.AA.A d m - 16 off=2,0,0,2,0,0")
    h.lift("a3", hold=0.05)
    h.put("b3", "d", hold=0.05)
    h.lift("b4", hold=DELAY + 0.5)
    assert h.moves == ["a3xb3"] and h.leds["b3"] == "continue"
    h.lift("b3", hold=0.09)
    h.lift("a4", hold=0.09)
    h.put("b4", "d", hold=DELAY + 0.5)
    assert h.moves == ["a3xb3"]
    assert h.leds["b3"] == "lifted" and h.leds["a3"] == "destination"
    h.lift("b4", hold=0.09)
    h.put("a3", "d", hold=DELAY + 0.5)
    assert h.moves == ["a3xb3", "b3xa3"]
    assert h.last.status == "Attacker to move"


def test_a_chain_through_a_captured_point_kept_aside_then_on_into_the_next_goes_on() -> None:
    # Khamousiyya (a reed-hands game, quick hands): d5xd6 takes c6, still
    # standing; the soldier lifted (it may go to c6 once c6 is off). Then
    # c5 off (d6xc6 takes it), c6 off, the soldier on c6 and lifted on,
    # b5 off (c6xc5 takes it), the soldier on c5. d6xc6 is confirmed
    # first; c6xc5 from there is proven by c5 filled after the soldier
    # left c6. Before, it was not (c6 was no piece of the board last read),
    # and pass and the Defender's b5xc5 were recorded.
    h = Hands("khamousiyya", "AADDAA./AAD.D.D/ADDA.DA/A.A...A/DAAAADA/AADADDA/DDADDDD "
                             "a m - 13 off=2,0,0,5,0,0")
    h.lift("d5", hold=0.05)
    h.put("d6", "a", hold=DELAY + 0.5)
    h.lift("d6", hold=0.6)
    assert h.moves == ["d5xd6"] and h.leds["d6"] == "lifted" and h.leds["c6"] == "capture"
    h.lift("c5", hold=0.02)
    h.lift("c6", hold=0.05)
    h.put("c6", "a", hold=0.04)
    h.lift("c6", hold=0.09)
    h.lift("b5", hold=0.06)
    h.put("c5", "a", hold=DELAY + 0.5)
    assert h.moves == ["d5xd6", "d6xc6", "c6xc5"]
    assert h.last.status == "Defender to move"


def test_a_chain_s_first_capture_off_with_its_soldier_in_the_hand_confirms_no_later_step() -> None:
    # Kharbga with a refuge (a reed-hands game): e4xd4 takes d3 and d5;
    # d4xe4 (back to its square) takes e3, e5 and f4; e4xe3 takes f3 (and
    # may go on). The
    # soldier lifted off d4 and held up, e3 taken off meanwhile. Occupancy
    # also shows d4xe4 and e4xf4, its soldier "on f4" where f4's captured
    # piece stands, a run kept aside unproven. e3 off proves d4xe4 (the
    # soldier in the hand does the same), not the step after it: only a
    # piece that step takes (f3) off would. Before, e3 off confirmed the
    # run, and the soldier set on e3 was lit as an error.
    h = Hands("kharbga-refuge", "ADADDDA/ADAAADD/AADDDAD/DAA.ADA/DADDDDA/DADAAAD/AADADAD "
                                "a m - 1 np=0")
    h.lift("e4", hold=0.05)
    h.put("d4", "a", hold=DELAY + 0.5)
    h.lift("d5", hold=DELAY + 0.5)
    h.lift("d3", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4"] and h.leds["d4"] == "continue"
    h.lift("d4", hold=1.26)
    h.lift("e3", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4"]
    assert h.leds["d4"] == "lifted" and "error" not in h.leds.values()
    h.put("e4", "a", hold=0.07)
    h.lift("f4", hold=0.02)
    h.lift("e5", hold=0.02)
    h.lift("e4", hold=0.1)
    h.put("e3", "a", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4", "d4xe4", "e4xe3"]
    assert h.leds["f3"] == "capture" and "error" not in h.leds.values()
    h.lift("f3", hold=DELAY + 0.5)
    assert h.last.status == "Attacker: continue the capture with e3"  # on into d3


def test_a_quick_reply_then_the_next_soldier_held_up_is_not_the_turn_made_another_way() -> None:
    # Sabouiyya (a reed-hands game): c2-b2; the Defender's d1-c1 at once,
    # then the Attacker's b2 lifted and held up. Occupancy also shows c2-b2
    # made another way: c2xc1, taking d1. But c1 was filled before b2's
    # soldier left: the piece on c1 is another's. Before, c2-b2 was
    # corrected to c2xc1, and b2 set on c2 was nothing.
    h = Hands("sabouiyya", "D.DD./D..../DA.D./..A../D..DA a m - 73 off=9,0,0,4,0,0")
    h.lift("c2", hold=0.05)
    h.put("b2", "a", hold=DELAY + 0.5)
    assert h.moves == ["c2-b2"]
    h.lift("d1", hold=0.012)
    h.put("c1", "d", hold=0.002)
    h.lift("b2", hold=0.83)
    assert h.moves == ["c2-b2", "d1-c1"]
    assert h.leds["b2"] == "lifted" and "error" not in h.leds.values()
    h.put("c2", "a", hold=DELAY + 0.5)
    assert h.moves == ["c2-b2", "d1-c1", "b2-c2"]
    assert h.last.status == "Defender to move"


def test_a_turn_made_another_way_leaves_the_turn_before_s_captured_piece_to_come_off() -> None:
    # Kharbga (a reed-hands game): the Defender's d3xd4 takes c4, still
    # standing. The Attacker's c3 set down on b3 (read as c3-b3), lifted,
    # touched to d3 and held up. Occupancy also shows c3-b3 made another
    # way: c3xc4, its soldier "on c4" where c4's captured piece stands,
    # which is a soldier in the hand as much. Before, that run was read
    # (the turn being made again forgot the pieces still to come off), and
    # the soldier set on d3 next was no correction of it (d3 filled
    # before the piece on c4 went).
    h = Hands("kharbga", "DADDAAA/DDDAADA/DD.AAAD/ADA.AAD/A.AD.DD/.....DA/ADDD.DD "
                         "d m d3 18 np=3 off=6,0,0,3,0,0")
    h.lift("d3", hold=0.05)
    h.put("d4", "d", hold=DELAY + 0.5)
    assert h.moves == ["d3xd4"] and h.leds["c4"] == "capture"
    h.lift("c3", hold=0.04)
    h.put("b3", "a", hold=1.28)
    assert h.moves == ["d3xd4", "c3-b3"]
    h.lift("b3", hold=0.015)
    h.put("d3", "a", hold=0.08)
    h.lift("d3", hold=0.69)
    assert h.moves == ["d3xd4", "c3-b3"]
    h.put("d3", "a", hold=0.05)
    h.lift("c4", hold=0.9)
    h.lift("d4", hold=DELAY + 0.5)
    assert h.moves == ["d3xd4", "c3xd3"]
    assert "error" not in h.leds.values()
    assert h.last.status == "Defender to move"


def test_a_capture_s_piece_off_before_its_soldier_lands_on_a_wrong_point_is_no_reply() -> None:
    # Khamousiyya (a reed-hands game, quick hands): d4xd5 takes d6, then
    # d5xd4 takes e4. The soldier set on d5, d6 taken off, the soldier
    # lifted on and set down long on c4, a wrong point. Occupancy also
    # shows d4-c4 and the Attacker's d6 lifted to reply; but d6 went
    # before c4 was filled: a piece taken off, not a reply begun. Before,
    # d4-c4 was recorded and d6 lit as lifted.
    h = Hands("khamousiyya", "ADAD.AA/DAAAA.D/DA..AAA/AA.DADD/AADDDAA/DDDDDAA/DDD.ADA "
                             "d m - 10 off=1,0,0,4,0,0")
    h.lift("d4", hold=0.1)
    h.put("d5", "d", hold=0.02)
    h.lift("d6", hold=0.02)
    h.lift("d5", hold=0.05)
    h.put("c4", "d", hold=1.1)
    assert "d4-c4" not in h.moves and "d6" not in h.leds
    h.lift("c4", hold=0.03)
    h.put("d4", "d", hold=0.07)
    h.lift("e4", hold=DELAY + 0.5)
    assert h.moves == ["d4xd5", "d5xd4"]
    assert "error" not in h.leds.values()
    assert h.last.status == "Attacker to move"


def test_a_run_kept_aside_is_not_confirmed_by_a_reply_onto_a_point_filled_before() -> None:
    # Khamousiyya (a reed-hands game, clumsy hands): the Defender's e2
    # lifted, set back, lifted again, touched to d2 and held up (a chain
    # of e2 kept aside, the board cannot prove it), then set on d2; the
    # Attacker's d1 lifted 2 ms later, touched to c1 and held up.
    # Occupancy also shows that chain made and the Attacker's d1-d2; but
    # d2 was filled before d1 left: the piece on it is the Defender's.
    # Before, the chain and d1-d2 were recorded.
    h = Hands("khamousiyya", ".A.AADD/AADDDDD/DDAAAAD/.DA..AA/.A.A.AD/..A.D.D/AA.A.AD "
                             "d m - 46 off=4,0,0,9,0,0")
    h.lift("e2", hold=0.087)
    h.put("e2", "d", hold=1.07)
    h.lift("e2", hold=0.019)
    h.put("d2", "d", hold=0.062)
    h.lift("d2", hold=1.169)
    assert h.moves == [] and h.leds["e2"] == "lifted"
    h.put("d2", "d", hold=0.002)
    h.lift("d1", hold=0.092)
    h.put("c1", "a", hold=0.08)
    h.lift("c1", hold=1.138)
    assert h.moves == ["e2-d2"] and h.leds["d1"] == "lifted"
    h.put("c1", "a", hold=DELAY + 0.5)
    assert h.moves == ["e2-d2", "d1-c1"]
    assert "error" not in h.leds.values() and h.last.status == "Defender to move"


def test_a_step_set_down_on_a_wrong_point_then_taken_on_as_a_chain_is_that_chain() -> None:
    # Sabouiyya (a reed-hands game, quick hands): b2xb3 takes c3, b3xb4
    # takes c4. The soldier set down long on c2 (read as b2-c2), then
    # taken on to b3 and b4, the captures taken off. That turn made
    # another way is two actions for one: before, a correction was no
    # longer than the turn, and the board was lit as errors.
    h = Hands("sabouiyya", "AA..A/DDDAA/D.DAA/DA.D./DD.DD a m - 13 off=4,0,0,1,0,0")
    h.lift("b2", hold=0.09)
    h.put("c2", "a", hold=0.87)
    assert h.moves == ["b2-c2"]
    h.lift("c2", hold=0.1)
    h.put("b3", "a", hold=0.07)
    h.lift("c3", hold=0.07)
    h.lift("b4", hold=0.02)
    h.lift("b3", hold=0.07)
    h.put("b4", "a", hold=DELAY + 0.5)
    assert h.moves == ["b2xb3", "b3xb4"]
    h.lift("c4", hold=DELAY + 0.5)
    assert "error" not in h.leds.values() and h.last.status == "Defender to move"


def test_a_chain_step_onto_a_point_whose_captured_piece_just_came_off_is_proven() -> None:
    # Kharbga with a refuge (a reed-hands game): d4xc4 takes c3 and b4,
    # read, both still standing; then b4 taken off, the soldier lifted and
    # set on b4 110 ms later (c4xb4, taking b5). A
    # captured piece still standing is no piece the game expects: its
    # going shows only as its square emptied, before the soldier landed
    # there. Before, the step was kept aside as a soldier in the hand.
    h = Hands("kharbga-refuge", "AADADAA/DDAADDA/AA.A..D/DA.D..D/DAA...D/AADDDDD/DDDAAAD "
                                "d m d4 4 np=1 off=5,0,0,3,0,0")
    h.lift("d4", hold=0.02)
    h.put("c4", "d", hold=DELAY + 0.5)
    assert h.moves == ["d4xc4"] and h.leds["b4"] == "capture"
    h.lift("b4", hold=0.02)
    h.lift("c4", hold=0.09)
    h.put("b4", "d", hold=DELAY + 0.5)
    assert h.moves == ["d4xc4", "c4xb4"]
    assert h.leds["b4"] == "last-to" and "error" not in h.leds.values()


def test_a_piece_off_that_the_soldier_in_the_hand_may_take_another_way_confirms_nothing() -> None:
    # Kharbga with a refuge (a reed-hands game): e4xd4 read, d3 and d5
    # still standing; the soldier lifted off d4 and held up, then e5 taken
    # off. Occupancy also shows d4xd5 (taking c5 and e5), its soldier
    # "on d5" where d5's captured piece stands, a run kept aside unproven.
    # e5 off does not prove it: d4xe4, with the soldier still in the hand,
    # takes e5 too, and no soldier was seen set down on d5. Before, d4xd5
    # was recorded, and the soldier set on e4 was lit as an error.
    h = Hands("kharbga-refuge", "ADADDDA/ADAAADD/AADDDAD/DAA.ADA/DADDDDA/DADAAAD/AADADAD "
                                "a m - 1 np=0")
    h.lift("e4", hold=0.05)
    h.put("d4", "a", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4"] and h.leds["d5"] == "capture"
    h.lift("d4", hold=1.26)
    h.lift("e5", hold=0.83)
    assert h.moves == ["e4xd4"]
    assert h.leds["d4"] == "lifted" and "error" not in h.leds.values()
    h.put("e4", "a", hold=0.04)
    h.lift("d3", "d5", hold=0.02)
    h.lift("e3", "f4", hold=DELAY + 0.5)
    assert h.moves == ["e4xd4", "d4xe4"]
    assert "error" not in h.leds.values()
    assert h.last.status == "Attacker: continue the capture with e4"


def test_a_turn_made_again_as_a_chain_back_home_counts_what_the_hands_did_for_it() -> None:
    # Sabouiyya (a reed-hands game, clumsy hands): d3xd2 takes c2, d2xd3
    # takes d4. The soldier set down long on e3 first (read as d3-e3),
    # then taken on to d2 and back to d3. That is d3-e3 made another way,
    # a chain back to its own point: proven by d3 emptied, which the hands
    # did before d3-e3 was read. Before, the clues of the turn made again
    # began when it was read, and the board was lit as errors.
    h = Hands("sabouiyya", "AA.DA/.D.A./D.AD./DDA.D/.DDAA d m - 22 off=4,0,0,3,0,0")
    h.lift("d3", hold=0.03)
    h.put("e3", "d", hold=0.93)
    assert h.moves == ["d3-e3"]
    h.lift("e3", hold=0.03)
    h.put("d2", "d", hold=0.07)
    h.lift("c2", hold=0.02)
    h.lift("d2", hold=0.045)
    h.put("d3", "d", hold=0.035)
    h.lift("d4", hold=DELAY + 0.5)
    assert h.moves == ["d3xd2", "d2xd3"]
    assert "error" not in h.leds.values() and h.last.status == "Attacker to move"


def test_a_captured_piece_knocked_as_the_chain_passes_is_put_right_when_the_soldier_lands() -> None:
    # Sabouiyya (knocking hands): c2xc3 takes c4, c3xc2 takes b2. The
    # soldier on c3 lifted on, and c4's captured piece, still standing,
    # knocked: its square open 40 ms. That reads as c4 taken off and the
    # soldier set down there (c3xc4, taking b4), as quick two-handed play
    # does. The soldier then set on c2, b2 and c4 taken off: c2xc3 made
    # another way, back to c2. That c2 filled before the point the turn
    # was read to end on went is no sign of another's piece there: that
    # point's piece is one the turn made again takes. Before, it was read
    # as the Defender's b2-c2, and c4 as the Attacker's soldier lifted.
    h = Hands("sabouiyya", "DAADD/ADDAD/DD.AD/ADAAA/DDAAA a m - 1")
    h.lift("c2", hold=0.5)
    h.put("c3", "a", hold=0.02)
    h.lift("c3", hold=0.0)
    h.lift("c4", hold=0.03)
    h.put("c4", "d", hold=0.9)
    assert h.moves == ["c2xc3", "c3xc4"]
    h.lift("b2", hold=0.0)
    h.put("c2", "a", hold=0.02)
    h.lift("c4", hold=DELAY + 0.5)
    assert h.moves == ["c2xc3", "c3xc2"]
    assert "error" not in h.leds.values() and h.last.status == "Defender to move"


def test_a_board_read_as_a_takeback_then_moved_on_from_the_turn_it_undid_makes_it_again() -> None:
    # Sabouiyya (a reed-hands game, clumsy hands): a3-b3 read; the
    # Attacker's a2-a3 and at once the Defender's b3 set down long on a2,
    # a wrong point: the board before a3-b3, read as it taken back. Then
    # the soldier moved on to b2. From the position taken back to that is
    # three turns; from the one it left, a2-a3 and b3-b2. Before, the board
    # stayed lit as errors until put back.
    h = Hands("sabouiyya", "DA.AA/DAAA./D.DDA/A.DAA/DDDAA d m - 12 off=0,0,0,3,0,0")
    h.lift("a3", hold=0.08)
    h.put("b3", "d", hold=DELAY + 0.5)
    assert h.moves == ["a3-b3"]
    h.lift("a2", hold=0.066)
    h.put("a3", "a", hold=0.002)
    h.lift("b3", hold=0.021)
    h.put("b3", "d", hold=0.025)
    h.lift("b3", hold=0.031)
    h.put("a2", "d", hold=1.16)
    assert h.moves == []
    h.lift("a2", hold=0.07)
    h.put("b2", "d", hold=DELAY + 0.5)
    assert h.moves == ["a3-b3", "a2-a3", "b3-b2"]
    assert "error" not in h.leds.values() and h.last.status == "Attacker to move"


def test_a_kept_run_is_not_confirmed_by_a_reply_where_the_soldier_in_the_hand_may_go() -> None:
    # Kharbga (a reed-hands game, clumsy hands): the Defender's d5 lifted
    # and held up: occupancy also shows d5xc5xc6 (taking c6, then b6),
    # its soldier "on c6" where c6's captured piece stands, a run kept
    # aside unproven. c4 taken off, the soldier set on d4 (d5xd4, taking
    # c4), and the Attacker's b5 lifted at once: that board is also the
    # run and the Attacker's c4-d4. But d4 is where the soldier in the
    # hand may go, and no soldier was seen set down on c6. Before, the run
    # and c4-d4 were recorded.
    h = Hands("kharbga", "AADAADA/DAAAADA/DA.D..D/DDA.D.A/A.ADDAD/DDADDDA/DAAADAD "
                         "d m - 8 np=3 off=2,0,0,3,0,0")
    h.lift("d5", hold=1.01)
    assert h.moves == [] and h.leds["d5"] == "lifted"
    h.lift("c4", hold=0.05)
    h.put("d4", "d", hold=0.002)
    h.lift("b5", hold=1.25)
    assert h.moves == ["d5xd4"] and h.leds["b5"] == "lifted"
    h.put("c5", "a", hold=DELAY + 0.5)
    assert h.moves == ["d5xd4", "b5-c5"]
    assert "error" not in h.leds.values() and h.last.status == "Defender to move"


def test_a_step_made_another_way_is_read_before_a_run_the_board_cannot_prove() -> None:
    # Kharbga (a reed-hands game, clumsy hands): c3 set down long on c2
    # (read as c3-c2), then moved on to d3 (c3xd3, taking d2), d2 taken
    # off. Occupancy also shows the Defender's d2xe2, e2xd2, d2xd3, a run
    # it cannot prove (the soldier back on d2, where a piece of that run
    # stood). The last turn made another way, which the board proves,
    # comes first. Before, the Defender's chain was recorded.
    h = Hands("kharbga", "ADDADDA/A.D..AA/.DDA.DD/.D.A.DA/DAA.ADD/DD.D.AD/ADDAAAA "
                         "a m - 17 np=1 off=6,0,0,4,0,0")
    h.lift("c3", hold=0.05)
    h.put("c2", "a", hold=1.29)
    assert h.moves == ["c3-c2"]
    h.lift("c2", hold=0.03)
    h.put("d3", "a", hold=0.05)
    h.lift("d2", hold=DELAY + 0.5)
    assert h.moves == ["c3xd3"]
    assert "error" not in h.leds.values() and h.last.status.startswith("Defender to move")


def test_a_captured_piece_off_then_a_soldier_on_its_point_is_no_piece_set_back() -> None:
    # Kharbga (a reed-hands game, quick hands): e5xe4 takes f4, e4xf4
    # takes f3; f4 taken off while e5's soldier is in the hand, the
    # soldier set on e4, slid on over e5 to f4, f3 taken off, and the
    # Attacker's d3-e3 at once. Occupancy also shows e5xe4, e4xe3 (taking
    # d3 and f3), f4's captured piece set back on its point. But f4 went
    # after the soldier left e5: a piece set there since is as likely the
    # chain going on into it, and the reading waits for the board to tell.
    # Before, e5xe4, e4xe3 was recorded.
    h = Hands("kharbga", "ADDAAAA/AAADDAD/AAADDAA/DDD..AD/ADDA.AD/AADAADD/DADDDAD "
                         "d m - 2 np=0 off=0,0,0,2,0,0")
    h.lift("e5", hold=0.65)
    h.lift("f4", hold=0.1)
    h.put("e4", "d", hold=0.02)
    h.lift("e4", hold=0.09)
    h.put("e5", "d", hold=0.07)
    h.lift("e5", hold=0.08)
    h.put("f4", "d", hold=0.02)
    h.lift("f4", hold=0.02)
    h.put("f4", "d", hold=0.02)
    h.lift("f3", hold=0.0)
    h.lift("d3", hold=0.07)
    h.put("e3", "a", hold=DELAY + 0.5)
    assert h.moves == ["e5xe4", "e4xf4", "d3-e3"]
    assert "error" not in h.leds.values() and h.last.status == "Defender to move"


def test_a_chain_back_home_goes_by_the_point_filled_after_its_soldier_left() -> None:
    # Kharbga with a refuge (a reed-hands game, quick hands): f1-f2, then
    # the Defender's e1xe2 (taking f2) and e2xe1 (taking d1). e1xf1 and
    # f1xe1 take the same pieces and leave the same board, but f1 was
    # last filled before e1's soldier left, e2 after. Before, the chain
    # was recorded by way of f1.
    h = Hands("kharbga-refuge", "AAA.DDD/DAAAADD/A..AAD./.AA...D/.....D./AD.D..D/ADDADAD "
                                "a m - 21 np=3 off=8,0,0,8,0,0")
    h.lift("f1", hold=1.25)
    h.put("f2", "a", hold=0.0)
    h.lift("e1", hold=0.014)
    h.lift("f2", hold=0.85)
    assert h.moves == ["f1-f2"] and h.leds["e1"] == "lifted"
    h.put("e2", "d", hold=0.02)
    h.lift("e2", hold=0.1)
    h.lift("d1", hold=0.95)
    h.put("e1", "d", hold=DELAY + 0.5)
    assert h.moves == ["f1-f2", "e1xe2", "e2xe1"]
    assert "error" not in h.leds.values() and h.last.status == "Attacker to move"


# Sixteen Soldiers, the Defender to move: after a5-b6 the Attacker may huff
# b8, c8 or d8 (each could have captured and did not).
HUFF_OWED = "DDD/DDD/D.A.D/D..../D..../....A/AAA.A/AAA/AAA d m - 34 np=0"
# Sixteen Soldiers, the Attacker to step (its huff made).
HUFF_DONE = ".DD/DD./...../...D./..A../....D/..A../AA./A.A a m - 85 np=8 hf=done"
# Checkers, the Defender to move: g5xe3 takes f4, then e3xc1 may take d2.
CHECKERS_CHAIN = (".D.....D/A.D.D.../.....D.D/D...D.D./.A.D.A../A.....A./.A.A.A.A/....A.A."
                  " d m - 24 np=0")


def test_a_huff_in_the_first_of_two_turns_is_of_a_piece_seen_taken_off() -> None:
    # The Attacker huffs b8 and steps a3-a4, the Defender at once huffs c7
    # and steps a6-a5. c8 huffed, then b8 stepped onto c8 leaves the same
    # board after c7's huff, but c8 never left its point: read so, the
    # Defender's turn was b8-c8, a phantom.
    h = Hands("sixteen-soldiers", HUFF_OWED)
    h.lift("a5", hold=0.05)
    h.put("b6", "d", hold=1.0)
    assert h.moves == ["a5-b6"]
    h.lift("b8", hold=0.002)
    h.lift("a3", hold=0.08)
    h.put("a4", "a", hold=0.07)
    h.lift("a4", hold=0.002)
    h.put("a4", "a", hold=0.002)
    h.lift("c7", hold=0.9)
    h.lift("a6", hold=0.08)
    h.put("a5", "d", hold=DELAY)
    assert h.moves == ["a5-b6", "xb8", "a3-a4", "xc7", "a6-a5"]


def test_a_soldier_set_down_wrong_then_huffed_there_was_moving_on() -> None:
    # Sixteen Soldiers: c5 set down on b5 long enough to be read, the
    # Defender's huff of b5 read when it was lifted again; it lands on b6:
    # that was the Attacker's step, not a huff.
    h = Hands("sixteen-soldiers", HUFF_DONE)
    h.lift("c5", hold=1.1)
    h.put("b5", "a", hold=1.2)
    assert h.moves == ["c5-b5"]
    h.lift("b5", hold=0.1)
    h.put("b6", "a", hold=0.02)
    h.lift("b6", hold=1.06)
    h.put("b6", "a", hold=DELAY)
    assert h.moves == ["c5-b6"]
    assert not any(role == "error" for role in h.leds.values())


def test_a_chain_read_as_stopped_and_answered_was_its_soldier_set_down_wrong() -> None:
    # Checkers: g5xe3 takes f4; the soldier goes on to take d2 but is set
    # down on f4 first, read as the chain stopped (pass) and d2xf4 taking
    # e3. Then it lands on c1: the chain went on, e3xc1.
    h = Hands("checkers", CHECKERS_CHAIN)
    h.lift("g5", hold=0.012)
    h.lift("f4", hold=1.156)
    h.put("e3", "d", hold=0.02)
    h.lift("e3", hold=0.09)
    h.put("e3", "d", hold=0.065)
    h.lift("e3", hold=0.049)
    h.lift("d2", hold=0.031)
    h.put("f4", "d", hold=0.855)
    h.lift("f4", hold=0.026)
    h.put("c1", "d", hold=DELAY + 0.3)
    assert h.moves == ["g5xe3", "e3xc1"]


def test_a_capture_landing_before_its_piece_came_off_is_no_takeback() -> None:
    # Hewakam Keliya: b3-b4 and at once b5xb3 taking b4; with b4 still
    # standing the board is the one before b4-b5 (read as a takeback). The
    # captured piece then comes off: the two turns, made again.
    h = Hands("hewakam-keliya", "DDD/DDD/.DD../DDDDD/A.ADD/.DAAA/AAAAA/AA./AAA d m - 20")
    h.lift("b4", hold=0.08)
    h.put("b5", "d", hold=0.7)
    assert h.moves == ["b4-b5"]
    h.lift("b3", hold=0.07)
    h.put("b4", "a", hold=0.002)
    h.lift("b5", hold=0.054)
    h.put("b3", "d", hold=0.85)
    h.lift("b4", hold=DELAY)
    assert h.moves == ["b4-b5", "b3-b4", "b5xb3"]


def test_a_chain_round_a_point_is_read_the_way_its_points_were_filled() -> None:
    # Hewakam Keliya: d5 round c6 by b5, b7 and d7 back to d5 takes c5, b6,
    # c7 and d6; the other way round takes the same and ends there too.
    h = Hands("hewakam-keliya", "DDD/DDD/..D.D/AD.DD/..DAD/..DAA/.AAAA/AAA/AAA a m - 17")
    h.lift("d5", hold=0.06)
    for point in ("b5", "b7", "d7"):
        h.put(point, "a", hold=0.06)
        h.lift(point, hold=0.06)
    h.put("d5", "a", hold=0.06)
    h.lift("c5", "b6", "c7", "d6", hold=DELAY)
    assert h.moves == ["d5xb5", "b5xb7", "b7xd7", "d7xd5"]


def test_a_capture_and_the_reply_lifted_at_once_are_no_long_chain_never_seen() -> None:
    # Hewakam Keliya: c5xe7 takes d6; b5 is lifted to reply, set on c5 and
    # lifted again. The board then fits one run alone, c5 round by a5, a7
    # and c5 again to e7 (b5, a6 and b6 taken too), its points never seen
    # filled: the capture and the reply in the hand are read instead.
    h = Hands("hewakam-keliya", "DDD/DDD/.DDD./DDDDD/.DADA/AAAA./.AAAA/AAA/AAA a m - 11")
    h.lift("c5", hold=0.032)
    h.put("e7", "a", hold=0.074)
    h.lift("d6", hold=0.002)
    h.put("d6", "d", hold=0.012)
    h.lift("b5", hold=0.002)
    h.lift("d6", hold=0.076)
    h.put("c5", "d", hold=0.09)
    h.lift("c5", hold=0.6)
    assert h.moves == ["c5xe7"]
    h.put("c5", "d", hold=DELAY)
    assert h.moves == ["c5xe7", "b5-c5"]


def test_an_answer_set_down_where_the_chain_could_go_on_stops_the_chain() -> None:
    # Checkers: g1xe3 takes f2 and may go on to c5 taking d4; the Defender
    # answers d4xf2 taking e3, its soldier set down on c5 first, long
    # enough to be read as the chain going on (d4 taken, the soldier in
    # the hand). Then it lands on f2: the chain stopped, and the answer.
    h = Hands("checkers", "......../......a./.....D../A...A.D./.D.D.A../D.A...D./...d.D../"
                          "......A. a m - 63 np=0")
    h.lift("g1", hold=0.02)
    h.put("e3", "a", hold=0.1)
    h.lift("f2", hold=1.0)
    assert h.moves == ["g1xe3"]
    h.lift("d4", hold=0.022)
    h.lift("e3", hold=0.097)
    h.put("c5", "d", hold=1.23)
    assert h.moves == ["g1xe3", "e3xc5"]
    h.lift("c5", hold=0.049)
    h.put("f2", "d", hold=DELAY + 0.3)
    assert h.moves == ["g1xe3", "pass", "d4xf2"]
