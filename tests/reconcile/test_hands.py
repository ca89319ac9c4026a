"""What real hands do on a real board: sliding soldiers, touching down on
a wrong square, knocking a neighbour, taking captured pieces off early, late
or back on again, pauses in a chain, a flickering switch. Each scenario checks
what is recorded and what the players are told."""

from __future__ import annotations

import pytest
from test_reconciler import CHAIN, DELAY, Hands

# CHAIN: a2xb2 takes c2, b2xb3 takes c3, b3xb4 takes c4 (the Attacker to move).


def test_a_captured_soldier_set_back_down_is_still_to_come_off() -> None:
    # Lifted off, then set back down (by mistake, or to look) once the
    # board settled: it is the captured soldier still to come off, lit
    # 'capture'; before, 'c2: no soldier belongs here; take it off', lit
    # 'error'.
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.put("c2", "d", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2"]
    assert h.leds["c2"] == "capture" and "error" not in h.leds.values()
    assert h.last.status == "c2: remove the captured soldier (taken by a2xb2)"


def test_the_chain_goes_on_with_a_captured_soldier_set_back_down() -> None:
    # The chain's next step is read with c2 standing again; before, nothing
    # was recorded and the words asked to put b2 back and take b3 off.
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.put("c2", "d")
    h.lift("b2")
    assert h.leds["b2"] == "lifted" and h.leds["b3"] == "destination"
    h.put("b3", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2", "b2xb3"]
    assert h.leds["c2"] == "capture" and h.leds["c3"] == "capture"
    assert "error" not in h.leds.values()
    h.lift("c2")
    h.lift("c3")
    assert h.last.status == "Attacker: continue the capture with b3"


def test_a_captured_soldier_set_back_down_after_the_turn_is_still_to_come_off() -> None:
    h = Hands("kharbga", CHAIN)
    for frm, to, taken in (("a2", "b2", "c2"), ("b2", "b3", "c3"), ("b3", "b4", "c4")):
        h.move(frm, to)
        h.lift(taken)
    assert h.r.game.to_move == "defender"
    h.put("c4", "d", hold=DELAY + 0.5)
    assert h.leds["c4"] == "capture"
    assert h.last.status == "c4: remove the captured soldier (taken by a2xb2xb3xb4)"
    # The Defender moving on with it still standing is read as ever.
    h.move("g1", "g2")
    assert h.moves[-1] == "g1-g2"
    assert h.leds.get("c4") == "capture"
    h.lift("c4")
    assert "error" not in h.leds.values() and "capture" not in h.leds.values()


def test_a_captured_soldier_set_back_down_after_the_opponent_moved_is_a_stray() -> None:
    h = Hands("kharbga", CHAIN)
    for frm, to, taken in (("a2", "b2", "c2"), ("b2", "b3", "c3"), ("b3", "b4", "c4")):
        h.move(frm, to)
        h.lift(taken)
    h.move("g1", "g2")
    h.put("c4", "d", hold=DELAY + 0.5)
    assert h.moves[-1] == "g1-g2" and h.leds["c4"] == "error"
    assert h.last.status == "c4: no soldier belongs here; take it off"


def test_a_soldier_stepping_onto_a_freed_square_is_a_move_at_once() -> None:
    # Not a captured soldier set back down: the Defender's soldier from c5
    # steps onto c4, freed by the capture.
    pos = "......./......./..D..../..DA.../..DA.../A.DA.../......D a m - 5"
    h = Hands("kharbga", pos)
    for frm, to, taken in (("a2", "b2", "c2"), ("b2", "b3", "c3"), ("b3", "b4", "c4")):
        h.move(frm, to)
        h.lift(taken)
    h.move("c5", "c4")
    assert h.moves[-1] == "c5-c4"
    assert h.leds == {"c5": "last-from", "c4": "last-to"}


def test_a_neighbour_knocked_off_during_a_move_is_the_one_square_named() -> None:
    # d4-e4 made, d3 knocked off on the way: only d3 is to be put back,
    # and then the move is read; before, 'd3, d4: put the Attacker's
    # soldiers back; e4: no soldier belongs here; take it off' asked to
    # undo the move too.
    h = Hands("kharbga", CHAIN)
    h.lift("d4", hold=0.1)
    h.lift("d3", hold=0.1)
    h.put("e4", hold=DELAY + 0.5)
    assert h.moves == []
    assert h.leds == {"d3": "error"}
    assert h.last.status == "d3: put the Attacker's soldier back"
    h.put("d3")
    assert h.moves == ["d4-e4"]
    assert h.leds == {"d4": "last-from", "e4": "last-to"}


def test_two_soldiers_lifted_at_once_are_both_to_go_back() -> None:
    h = Hands("kharbga", CHAIN)
    h.lift("d4", "d3", hold=DELAY + 0.5)
    assert h.moves == []
    assert h.last.status == "d3, d4: put the Attacker's soldiers back"
    h.put("d3")
    assert h.leds == {"d4": "lifted", "d5": "destination", "e4": "destination"}
    h.put("e4")
    assert h.moves == ["d4-e4"]


@pytest.mark.parametrize("colour", [False, True])
def test_a_capture_taken_back_by_hand_asks_the_captured_soldier_back(colour: bool) -> None:
    # The capturing soldier set back where it came from, the captured one
    # already off: the captured soldier's square is lit to be put back, and
    # the words name both ways out, the capture taken back or kept (the
    # soldier's square first, then where it was set down); before, only
    # 'b2: put the Attacker's soldier back; a2: not a legal square; the
    # soldier from b2 can go to b3', c2 unlit.
    h = Hands("kharbga", CHAIN, colour=colour)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("b2", "a2")
    h.hold(DELAY)
    assert h.moves == ["a2xb2"]
    assert h.last.status == (
        "c2: put the Defender's soldier back to take the capture back; or, to keep it, "
        "a2: not a legal square for the soldier from b2: set it on a lit square (b3), or "
        "back on b2")
    assert h.leds == {"a2": "error", "b2": "error", "b3": "destination", "c2": "error"}
    h.put("c2", "d")  # the capture taken back
    assert h.moves == [] and h.leds == {}
    assert h.last.status == "Attacker to move"


def test_a_capture_kept_after_all_puts_its_soldier_back_on_its_landing_square() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("b2", "a2")
    h.hold(DELAY)
    h.move("a2", "b2")
    assert h.moves == ["a2xb2"] and h.leds == {"b2": "continue", "b3": "destination",
                                              "a2": "last-from"}
    assert h.last.status == "Attacker: continue the capture with b2"


def test_a_whole_chain_taken_back_by_hand_asks_every_captured_soldier_back() -> None:
    h = Hands("kharbga", CHAIN)
    for frm, to, taken in (("a2", "b2", "c2"), ("b2", "b3", "c3"), ("b3", "b4", "c4")):
        h.move(frm, to)
        h.lift(taken)
    h.move("b4", "a2")
    h.hold(DELAY)
    assert h.last.status == (
        "c2, c3, c4: put the Defender's soldiers back to take the captures back; or, to keep "
        "them, a2: no soldier belongs here; take it off; b4: put the Attacker's soldier back "
        "(it is the Defender's turn)")
    assert {s for s, role in h.leds.items() if role == "error"} == {"a2", "b4", "c2", "c3", "c4"}
    for s in ("c2", "c3", "c4"):
        h.put(s, "d")
    assert h.moves == [] and h.leds == {}


def test_undo_pressed_after_a_capture_taken_back_by_hand_asks_the_captured_soldier_back() -> None:
    # Undo takes the capture back in the record at once; the captured
    # soldier still has to go back on the board, and is told so.
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("b2", "a2")
    h.hold(DELAY)
    h.press("undo")
    h.hold(DELAY)
    assert h.moves == []
    assert h.last.status == "c2: taken back by undo; put the Defender's soldier back"
    assert h.leds == {"c2": "error"}
    h.put("c2", "d")
    assert h.leds == {} and h.last.status == "Attacker to move"


@pytest.mark.parametrize("side", ["attacker", "defender"])
def test_the_exchange_pressed_during_ones_own_chain_is_said(side: str) -> None:
    # The press is taken (the flag is raised), but a capture is never a
    # flagged step: the chain's status says so, as the status says the
    # flag outside chains; before, the chain's words did not mention it,
    # and the Defender's soldier in the hand was said to ask an exchange.
    pos = CHAIN if side == "attacker" else CHAIN.translate(str.maketrans("AD", "DA"))
    pos = pos if side == "attacker" else pos.replace(" a m ", " d m ")
    h = Hands("kharbga", pos)
    own, title = side[0], side.capitalize()
    h.move("a2", "b2")
    h.lift("c2")
    assert h.last.status == f"{title}: continue the capture with b2"
    h.press("exchange", side)
    said = (" (exchange flag raised, but a capture cannot ask or answer an exchange: "
            "the next capture lowers it)")
    assert h.hold().status == f"{title}: continue the capture with b2{said}"
    assert h.lift("b2").status == f"{title}: b2 lifted; set it on a lit square{said}"
    h.put("b3", own)
    h.lift("c3")
    assert h.moves == ["a2xb2", "b2xb3"]
    assert h.last.status == f"{title}: continue the capture with b3"


def test_two_soldiers_moved_at_once_are_said_to_be_two_moves() -> None:
    # Each step is one the rules allow; together they are two moves in one
    # turn. Before, the words said what to do without why: 'a3, d5: no
    # soldier belongs here; take them off; a2, d4: put the Attacker's
    # soldiers back'.
    h = Hands("kharbga", "......./......./......./...A.../......./A....../......D a m - 5")
    h.lift("a2", "d4", hold=0.05)
    h.put("a3", hold=0.05)
    h.put("d5", hold=DELAY + 0.5)
    assert h.moves == []
    assert h.last.status == (
        "a2-a3, d4-d5: two soldiers moved at once, but the Attacker moves one a turn; "
        "put one of them back where it came from (a2 or d4)")
    assert h.leds == {s: "error" for s in ("a2", "a3", "d4", "d5")}
    h.lift("d5")
    h.put("d4")  # the other stays: it is the move
    assert h.moves == ["a2-a3"]
    assert h.leds == {"a2": "last-from", "a3": "last-to"}


def test_the_exchange_pressed_during_the_other_side_s_turn_is_kept_and_said() -> None:
    # The Defender presses during the Attacker's turn: the flag is kept for
    # the Defender's next step, and said in the Attacker's words and chain;
    # before, nothing was said, so the Defender did not know it was taken.
    h = Hands("kharbga", CHAIN)
    kept = "; Defender's exchange flag raised: it goes with the Defender's next step"
    h.press("exchange", "defender")
    assert h.hold().status == f"Attacker to move{kept}"
    h.move("a2", "b2")
    h.lift("c2")
    assert h.last.status == f"Attacker: continue the capture with b2{kept}"
    assert h.lift("b2").status == f"Attacker: b2 lifted; set it on a lit square{kept}"
    h.put("b3")
    h.lift("c3")
    h.move("b3", "b4")
    h.lift("c4")
    assert h.moves == ["a2xb2", "b2xb3", "b3xb4"]
    assert h.last.status == ("Defender to move (exchange flag raised: the soldier the "
                             "Defender steps asks an exchange)")
    h.move("g1", "g2")
    assert h.moves[-1] == "g1-g2=" and h.r.game.exchange is not None
    assert "flag raised" not in h.last.status  # the step lowered it


def test_the_attacker_s_flag_raised_during_the_defender_s_turn_answers_the_request() -> None:
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    h = Hands("kharbga", pos)
    h.press("exchange", "attacker")
    assert h.hold().status == (
        "Defender to move; Attacker's exchange flag raised: it goes with the Attacker's "
        "next step, to answer an exchange the Defender asks")
    h.press("exchange", "defender")
    h.move("b3", "b4")
    assert h.last.status.startswith("Attacker to move; the Defender asks an exchange with b4 "
                                    "(exchange flag raised: the soldier the Attacker steps")
    h.move("a1", "a2")
    assert h.moves == ["b3-b4=", "a1-a2="]
    assert h.r.game.exchange is not None and h.r.game.exchange.stage == 2


def test_the_attacker_s_flag_with_one_soldier_left_is_said_to_offer_nothing() -> None:
    pos = "......./......./......./...A.../.D...../......./....... d m - 7"
    h = Hands("kharbga", pos)
    h.press("exchange", "attacker")
    assert h.hold().status == (
        "Defender to move; Attacker's exchange flag raised, but one soldier left cannot be "
        "offered: the Attacker's next step lowers it")


def test_an_exchange_request_lit_is_said_after_the_error_squares() -> None:
    # While a square is wrong the status is about it; the request still lit
    # is said after it, so the Attacker knows an answer is awaited. Before,
    # only 'g7: no soldier belongs here ...; take it off' was said.
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    h = Hands("kharbga", pos)
    h.press("exchange", "defender")
    h.move("b3", "b4")
    assert h.leds["b4"] == "exchange-request"
    h.put("g7", hold=DELAY + 0.5)
    assert h.leds["g7"] == "error" and h.leds["b4"] == "exchange-request"
    status = h.last.status
    then = "; then: Attacker, answer the exchange (the Defender asks it with b4)"
    assert status.startswith("g7: no soldier belongs here") and status.endswith(then)
    h.lift("g7")
    assert "then:" not in h.last.status
    assert h.last.status.startswith("Attacker to move; the Defender asks an exchange with b4")


@pytest.mark.parametrize("settled", [True, False], ids=["lift-settled", "quick-hands"])
@pytest.mark.parametrize("capture", [False, True], ids=["step", "capture"])
def test_another_soldier_lifted_and_set_back_after_undo_is_not_the_undone_move(
        capture: bool, settled: bool) -> None:
    # After undo, with the board not yet put back, a player lifts another
    # soldier and sets it back on its own square. Before, the board showing
    # the undo's reading again was read as the move taken back, made again.
    h = Hands("kharbga", CHAIN)
    if capture:
        h.move("a2", "b2")
        h.lift("c2")
    else:
        h.move("d4", "e4")
    made = list(h.moves)
    h.press("undo")
    h.hold(DELAY + 0.1)
    assert h.moves == []
    h.lift("d2", hold=0.3 if settled else 0.1)
    h.put("d2", "a")
    h.hold(DELAY + 0.1)
    assert h.moves == [] and h.played == made
    told = h.last.status
    if capture:
        assert "b2: taken back by undo; take it off" in told
        assert "c2: taken back by undo; put the Defender's soldier back" in told
    else:
        assert "e4: taken back by undo; take it off" in told
    assert "error" in h.leds.values()
    # Put back first, then played again: the same move is recorded.
    if capture:
        h.move("b2", "a2")
        h.put("c2", "d")
    else:
        h.move("e4", "d4")
    assert h.moves == [] and "error" not in h.leds.values()
    if capture:
        h.move("a2", "b2")
        h.lift("c2")
    else:
        h.move("d4", "e4")
    assert h.moves == made


def test_a_chain_soldier_set_on_a_captured_point_is_told_where_it_may_go() -> None:
    # c2 (captured) taken off, b2 (the chain's soldier) set down on c2: the
    # board reads c2 still standing and b2 in the hand, as it would with c2
    # never touched. Both stories are told: c2 to come off, and where the
    # soldier in the hand may go (before, only 'c2: remove the captured
    # soldier', with b3 lit and no word of it).
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2", hold=0.05)
    h.lift("b2", hold=0.05)
    h.put("c2", "a", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2"]
    assert h.leds["b2"] == "lifted" and h.leds["b3"] == "destination"
    assert h.last.status == (
        "c2: remove the captured soldier (taken by a2xb2); b2 lifted: set it on a lit square")
    # Obeying the second half: the soldier goes on from c2 to b3.
    h.lift("c2", hold=0.05)
    h.put("b3", "a", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2", "b2xb3"]
    assert h.last.status == "c3: remove the captured soldier (taken by a2xb2xb3)"


def test_a_soldier_set_down_diagonally_over_two_sandwiches_is_told_as_the_chain_read() -> None:
    # a2 set straight on b3 leaves the board that a quick a2xb2, b2xb3 leaves
    # (c2 and c3 captured, still standing): read as that chain, and the
    # status line names it, so a player who stepped diagonally by mistake
    # sees what was recorded (before: "Remove the captured soldiers on c2,
    # c3" and no word of the move).
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b3")
    assert h.moves == ["a2xb2", "b2xb3"]
    assert h.last.status == "Remove the captured soldiers on c2, c3 (taken by a2xb2xb3)"


def test_a_chain_soldier_lifted_before_the_captured_soldier_is_off_is_told_the_order() -> None:
    # a2xb2 takes c2, and b2's chain goes on into c2 (taking c3): lifted
    # before c2 is off, the soldier has no lit square (c2 is lit as the
    # capture). Before: "set it on a lit square", and the one empty lit
    # square, a2 where it came from, took the capture back.
    h = Hands("kharbga", "......./......./......./..A..../..D..../A.DA.../......D a m - 5")
    h.move("a2", "b2")
    h.lift("b2", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2"]
    assert h.leds == {"a2": "last-from", "b2": "lifted", "c2": "capture"}
    assert h.last.status == ("c2: remove the captured soldier (taken by a2xb2); b2 lifted: "
                             "it may go to c2 once the captured soldier there is off")
    # Doing so: c2 off (for longer than the settle window: a quick swap
    # looks like c2 never touched), the soldier set there, the chain read.
    h.lift("c2", hold=0.5)
    h.put("c2", "a", hold=DELAY + 0.5)
    assert h.moves == ["a2xb2", "b2xc2"]


# The Attacker's d3xd4 takes d5 and may go on, d4xd3 taking e3.
PUT_BACK = "ADDAADD/DADADAD/AAADADA/DDD.ADD/ADAADAA/DAAADDA/DAAADDD a m - 1 np=0"


@pytest.mark.parametrize("order", [("d5", "d4", "d3"), ("d4", "d3", "d5")],
                         ids=["captured-first", "capturer-first"])
def test_the_board_put_back_after_undo_in_any_order_makes_no_move(
        order: tuple[str, str, str]) -> None:
    # Undo after d3xd4 (d5 taken off): the players put d3 back, take d4
    # off and set d5 back, each held long enough to be read. Before, d5 set
    # back first showed d3xd4 with its captured soldier standing, played
    # again ("d5: remove the captured soldier"), and d3 set back then made
    # it d3xd4xd3; d3 first recorded d3xd4xd3 until d5 came back.
    h = Hands("kharbga", PUT_BACK)
    h.move("d3", "d4")
    h.lift("d5", hold=DELAY + 0.5)
    assert h.moves == ["d3xd4"]
    h.press("undo")
    h.hold(DELAY + 0.5)
    for square in order:
        if square == "d4":
            h.lift("d4", hold=DELAY + 0.5)
        else:
            h.put(square, "d" if square == "d5" else "a", hold=DELAY + 0.5)
        assert h.moves == [], square
        assert "capture" not in h.leds.values()
    assert h.played == ["d3xd4"] and h.last.status == "Attacker to move"
    # Put back, the capture made again by hand is read again.
    h.move("d3", "d4")
    h.lift("d5", hold=DELAY + 0.5)
    assert h.moves == ["d3xd4"]


def test_the_computers_flagged_step_made_without_the_flag_says_how_to_make_it() -> None:
    # The computer (Defender) asks an exchange with b3-b4=; the person makes
    # the step without pressing Exchange first. Before: "b4: no soldier
    # belongs here; take it off; b3: put the Defender's soldier back", the
    # flag not named, though the lit move was made where lit.
    h = Hands("kharbga", "......./......./......./...A.../.D...../......./A...... d m - 7")
    step = h.r.game.find_move("b3", "b4", True)
    h.r.expect(step)
    h.move("b3", "b4")
    h.hold(DELAY + 0.5)
    assert h.moves == []
    assert h.last.status == ("b3-b4=: the exchange flag first: put the Defender's soldier back "
                             "on b3, press Exchange, then make the step to b4")
    assert {s for s, role in h.leds.items() if role == "error"} == {"b3", "b4"}
    h.move("b4", "b3")
    h.press("exchange", "defender")
    h.move("b3", "b4")
    h.hold(DELAY + 0.5)
    assert h.moves == ["b3-b4="]
