"""The reconciler's parts on their own: the search (explain), the game's
timeline (takebacks, turns), and the presentation (status line, LEDs)."""

from __future__ import annotations

from dataclasses import replace

from controller.board.events import Frame
from controller.reconcile.explain import Explainer
from controller.reconcile.present import Display, View, leds, status
from controller.reconcile.settings import Settings
from controller.reconcile.timeline import Timeline
from controller.reconcile.turn import Pending, Turn
from controller.rules import Game, find_variant
from controller.rules.moves import action_words

CHAIN = "......./......./......./..DA.../..DA.../A.DA.../......D a m - 5"


def _game() -> Game:
    return Game.from_position("kharbga", CHAIN)


def _bits(game: Game, *squares: str) -> int:
    return sum(1 << game.geometry.parse_point(s) for s in squares)


def _frame(a: int, d: int) -> Frame:
    return Frame(0.0, a | d)


def test_explain_reads_a_chain_made_at_once_and_leaves_the_game_as_it_was() -> None:
    g = _game()
    a, d = g.bitboards()
    position = g.position()
    ex = Explainer(Settings())
    reading = _frame(a & ~_bits(g, "a2") | _bits(g, "b3"), d)  # c2, c3 still standing
    cand = ex.explain(g, reading, Turn())
    assert cand is not None
    assert [str(m) for m in cand.actions] == ["a2xb2", "b2xb3"]
    assert cand.gone_d == _bits(g, "c2", "c3") and cand.exchanged == 0
    assert g.position() == position and g.ply == 0
    # The captured pieces standing are nothing new once they are pending.
    g.play("a2xb2")
    g.play("b2xb3")
    assert not ex.nothing_new(g, reading, Pending())
    assert ex.nothing_new(g, reading, Pending(d=_bits(g, "c2", "c3")))


def test_explain_while_an_action_is_expected_accepts_only_it() -> None:
    g = _game()
    a, d = g.bitboards()
    ex = Explainer(Settings())
    reading = _frame(a & ~_bits(g, "d4") | _bits(g, "e4"), d)
    step = next(m for m in g.legal_moves() if str(m) == "d4-e4")
    other = next(m for m in g.legal_moves() if str(m) == "d4-d5")
    cand = ex.explain(g, reading, Turn(expected=step))
    assert cand is not None and [str(m) for m in cand.actions] == ["d4-e4"]
    assert ex.explain(g, reading, Turn(expected=other)) is None


def test_lift_names_the_soldier_and_where_it_may_go() -> None:
    g = _game()
    a, d = g.bitboards()
    ex = Explainer(Settings())
    lifted = ex.lift(g, _frame(a & ~_bits(g, "d4"), d), Turn())
    assert lifted == (g.geometry.parse_point("d4"), _bits(g, "d5", "e4"))
    # Two soldiers off the board at once are no lift.
    assert ex.lift(g, _frame(a & ~_bits(g, "d4", "d3"), d), Turn()) is None
    # During a chain, only the chaining soldier.
    g.play("a2xb2")
    a, d = g.bitboards()
    assert ex.lift(g, _frame(a & ~_bits(g, "d4"), d), Turn()) is None
    assert ex.lift(g, _frame(a & ~_bits(g, "b2"), d), Turn()) == (
        g.geometry.parse_point("b2"), _bits(g, "b3"))


def test_unproven_runs_are_kept_apart_from_a_soldier_in_the_hand() -> None:
    # The Defender's soldier on c3 must continue the chain.  The reading
    # shows it gone and nothing else changed: the soldier is in the hand,
    # or it went c3xb3 (taking b2) and then b3xb2, onto the square of the
    # piece it took, which still stands.  Occupancy cannot tell them apart.
    g = Game.from_position(
        "kharbga",
        "ADAADAD/ADDDDAA/DA.DAAD/DD..AAD/D.D.AAD/DAADDDA/ADAADDD d m c3 2 np=1 off=4,0,0,0,0,0",
    )
    a, d = g.bitboards()
    reading = _frame(a, d & ~_bits(g, "c3"))
    ex = Explainer(Settings())
    assert ex.explain(g, reading, Turn(), weak_ok=False) is None
    unproven = ex.unproven(g, reading, Turn())
    assert [[str(m) for m in c.actions] for c in unproven] == [["c3xb3", "b3xb2"]]
    cand = ex.explain(g, reading, Turn())
    assert cand is not None and cand.actions == unproven[0].actions
    assert ex.lift(g, reading, Turn()) == (g.geometry.parse_point("c3"), _bits(g, "b3"))
    assert Explainer(Settings(max_unproven=0)).unproven(g, reading, Turn()) == []


def test_search_caps_bound_the_candidates() -> None:
    g = _game()
    few = Explainer(Settings(max_candidates=3)).candidates(g, [False, False])
    every = Explainer(Settings()).candidates(g, [False, False])
    assert len(few) == 3 and len(every) > 3
    short = Explainer(Settings(max_actions=1)).candidates(g, [False, False])
    assert max(len(c.actions) for c in every) > 1
    assert max(len(c.actions) for c in short) == 1


def test_pending_keeps_only_the_pieces_still_standing() -> None:
    p = Pending(a=0b0011, d=0b1100, exchanged=0b0001)
    p.keep(0b1001)
    assert (p.a, p.d, p.exchanged) == (0b0001, 0b1000, 0b0001)
    p.keep(0b1000)
    assert (p.a, p.d, p.exchanged) == (0, 0b1000, 0)


def test_timeline_turns_and_takebacks() -> None:
    tl = Timeline(_game())
    start = tl.boards[0]
    for text in ("a2xb2", "b2xb3", "b3xb4"):
        m = tl.game.parse_move(text)
        tl.push(m.kind, m.frm, m.to, m.flag)
    assert len(tl.boards) == 4 and tl.last_turn_length() == 3  # the whole chain
    m = tl.game.parse_move("g1-g2")
    tl.push(m.kind, m.frm, m.to, m.flag)
    assert tl.last_turn_length() == 1
    assert tl.takeback_point(_frame(*start)) == 0
    assert tl.takeback_point(_frame(*tl.boards[2])) == 2
    assert tl.takeback_point(Frame(0.0, 0)) is None
    tl.pop()
    assert len(tl.boards) == 4 and tl.game.ply == 3
    # A timeline of a game with moves rebuilds its boards from the start.
    assert Timeline(tl.game).boards == tl.boards


def test_status_and_leds_from_the_view() -> None:
    g = _game()
    assert status(g, View()) == "Attacker to move"
    assert status(g, View(flags=(True, False))) == (
        "Attacker to move (exchange flag raised, but no exchange is asked: nothing to offer)")
    a, d = g.bitboards()
    a2, c2, d2 = (g.geometry.parse_point(n) for n in ("a2", "c2", "d2"))
    assert a >> a2 & 1 and a >> d2 & 1 and d >> c2 & 1
    # Squares with the same words are named together, the words said once.
    assert status(g, View(errors=_bits(g, "a1", "a2", "c2", "d2"))) == (
        "a1: no soldier belongs here; take it off; a2, d2: put the Attacker's soldiers back; "
        "c2: put the Defender's soldier back (it is the Attacker's turn)")
    both = _bits(g, "c2", "c3")
    assert status(g, View(standing=both)) == "Remove the captured soldiers on c2, c3"
    assert status(g, View(standing=both, exchanged=both)) == \
        "Remove the exchanged soldiers on c2, c3"
    assert status(g, View(standing=_bits(g, "c2"))) == "c2: remove the captured soldier"
    # One exchanged and one captured standing: not all exchanged, so captured.
    assert status(g, View(standing=both, exchanged=_bits(g, "c2"))) == \
        "Remove the captured soldiers on c2, c3"
    lit = leds(g, View(standing=both, exchanged=_bits(g, "c2"), errors=_bits(g, "c3")))
    assert lit == {"c2": "exchange", "c3": "error"}  # error outranks capture
    d4 = g.geometry.parse_point("d4")
    lift = View(lifted=d4, targets=_bits(g, "d5", "e4"))
    assert status(g, lift) == "Attacker: d4 lifted; set it on a lit square"
    assert leds(g, lift) == {"d4": "lifted", "d5": "destination", "e4": "destination"}
    # A captured soldier standing and a soldier in the hand: both said (the
    # soldier may stand on the captured soldier's point already; a reed
    # switch cannot tell), where it may go or that it has none (before: the
    # captured soldier alone, with the lifted soldier lit and no word of it).
    c2 = _bits(g, "c2")
    assert status(g, replace(lift, standing=c2)) == (
        "c2: remove the captured soldier; d4 lifted: set it on a lit square")
    # Its only square holds the captured soldier (a chain's soldier lifted
    # first): no square is lit for it, so none is spoken of (before: "set
    # it on a lit square", and the one lit empty square, where it came
    # from, took the capture back).
    assert status(g, View(standing=c2, lifted=d4, targets=c2)) == (
        "c2: remove the captured soldier; d4 lifted: it may go to c2 once the captured "
        "soldier there is off")
    # The computer's reply lit meanwhile: the status line asks for both.
    reply = next(m for m in g.legal_moves() if m.kind == "step")
    assert status(g, View(standing=c2, expected=reply)) == (
        f"c2: remove the captured soldier; Attacker (computer): make the lit move "
        f"{action_words(str(reply))}")
    assert status(g, View(standing=c2, lifted=d4)) == (
        "c2: remove the captured soldier; Attacker: d4 lifted, but it has no move from here; "
        "put it back")


def test_display_recomputes_only_on_change_and_hands_out_copies() -> None:
    g = _game()
    shown = Display()
    d4 = g.geometry.parse_point("d4")
    first = shown.show(g, View(lifted=d4))
    first[1]["d4"] = "error"  # the caller's copy
    again = shown.show(g, View(lifted=d4))
    assert again[1]["d4"] == "lifted"
    g.play("d4-e4")
    after = shown.show(g, View())
    assert after[0] == "Defender to move"
    assert after[1] == {"d4": "last-from", "e4": "last-to"}


def test_every_refusal_says_which_rule() -> None:
    # The setting phase: the malha, and the squares next to it.
    g = Game.new("kharbga")
    assert status(g, View(errors=_bits(g, "d4"))) == (
        "d4: no soldier belongs here (the malha, the centre square, stays empty until the first "
        "move); take it off")
    g = Game.new("sabouiyya")  # a turn's first soldier goes next to the malha
    # The malha is named with what it is: the words are read by people
    # who may never have heard the word.
    assert status(g, View()) == (
        "Attacker: place a soldier (1 of 2) next to the malha, the centre square")
    assert status(g, View(errors=_bits(g, "a1"))) == (
        "a1: no soldier belongs here (the Attacker's soldier must go next to the malha, "
        "the centre square: c2, b3, d3, c4); take it off")
    assert status(g, View(errors=_bits(g, "a1", "b1"))) == (
        "a1, b1: no soldier belongs here (the Attacker's soldier must go next to the malha, "
        "the centre square: c2, b3, d3, c4); take them off")
    g.play("@c2")
    assert status(g, View(errors=_bits(g, "c2"))) == (
        "c2: put the Attacker's soldier back (nothing moves in the setting phase)")
    # kharbga: the Defender may not close the malha on an Attacker with no soldier there.
    g = Game.new("kharbga")
    g.play_all(["@a1", "@a2", "@d5", "@c4", "@a3", "@a4", "@e4"])
    assert status(g, View(errors=_bits(g, "d3"))) == (
        "d3: no soldier belongs here (the Defender may not close the malha, the centre square, "
        "while the Attacker has no soldier next to it); take it off")
    # The moving phase: another soldier during a chain, the other side's soldier.
    g = Game.from_position("kharbga",
                           "......./......./......./...A.../.D...../......./A...... a m - 7")
    assert status(g, View(errors=_bits(g, "b3"))) == (
        "b3: put the Defender's soldier back (it is the Attacker's turn)")
    g = _game()
    g.play("a2xb2")
    assert g.chain_square == "b2"
    other = next(p for p in g.geometry.point_names if p != g.chain_square
                 and g.bitboards()[g.side] >> g.geometry.parse_point(p) & 1)
    assert status(g, View(errors=_bits(g, other))).endswith(
        f"soldier back ({g.chain_square} must capture again)")
    # A soldier lifted that cannot move.
    g = Game.from_position("kharbga",
                           "ADADADA/DADADAD/DADADAD/ADA.ADA/DADADAD/DADADAD/ADADADA a m - 1")
    a7 = g.geometry.parse_point("a7")
    assert status(g, View(lifted=a7)) == (
        "Attacker: a7 lifted, but it has no move from here; put it back")
    # kharbga: captures are optional, so a capture that is the only move
    # is not called compulsory; kharbga-refuge: it is.
    position = "DDDDDDD/DDDDDDD/DDDDDDD/AAD.DAD/AAAAAAA/AAAAAAA/AAAAAAA a m - 1"
    g = Game.from_position("kharbga", position)
    assert all(m.capture for m in g.legal_moves())
    assert status(g, View(lifted=g.geometry.parse_point("a1"))) == (
        "Attacker: a1 lifted, but it has no move from here (only d3 can move); put it back")
    g = Game.from_position("kharbga-refuge", position)
    assert status(g, View(lifted=g.geometry.parse_point("a1"))) == (
        "Attacker: a1 lifted, but a capture must be made, by d3; put it back")


def test_the_last_move_of_a_chain_is_lit_from_where_its_soldier_began() -> None:
    g = _game()
    for step in ("a2xb2", "b2xb3", "b3xb4"):  # the chain ends: the Defender to move
        g.play(step)
    lit = leds(g, View())
    assert lit["a2"] == "last-from" and lit["b4"] == "last-to"
    assert "b2" not in lit and "b3" not in lit
    # A plain step after it is lit from its own start.
    g.play(next(m for m in g.legal_moves() if m.kind == "step" and not m.capture))
    last = g.moves[-1]
    names = g.geometry.point_names
    lit = leds(g, View())
    assert lit[names[last.frm]] == "last-from" and lit[names[last.to]] == "last-to"
    assert "a2" not in lit


def test_a_side_that_moves_again_is_told_the_other_is_blocked() -> None:
    # kharbga: when the side to move has no step the other moves again; the
    # status says why it is the same side's turn again (a player pressing
    # Hint there gets the mover's move, not their own).
    empty = "......./......./......./......./......./"
    g = Game.from_position("kharbga", empty + "A....../DA..... a m - 5")
    g.play("b1-c1")  # the Defender's a1 can step to b1: its turn
    assert status(g, View()) == "Defender to move"
    g = Game.from_position("kharbga", empty + "A....../DAA.... a m - 5")
    g.play("c1-d1")  # a1 is walled in by a2 and b1: the Attacker again
    assert g.to_move == "attacker"
    assert status(g, View()) == "Attacker to move again (the Defender is blocked)"
    # Not at the start of a game given that way, nor after a chain's step.
    fresh = Game.from_position("kharbga", empty + "A....../DA..... d m - 5")
    assert status(fresh, View()) == "Attacker to move"
    assert status(_game(), View()) == "Attacker to move"


def test_the_end_is_told_in_words_in_the_status_itself() -> None:
    # The status line (replay --trace prints it as it is) says why the game
    # ended as the page does, not in the rules' code.
    g = Game.from_position("kharbga", "/".join(["......."] * 5) + "/A....../DA..... d m - 2")
    assert status(g, View()) == ("Game over: Defender wins (blocked on the first move). "
                                 "Clear the board for a new game")


def test_a_raised_exchange_flag_with_only_captures_to_make_says_it_asks_nothing() -> None:
    # The Defender's only steps are captures (c3xd3, e3xd3): before, "(exchange
    # flag raised: the soldier the Defender steps asks an exchange)", and the
    # capture then lowered the flag without a word.
    g = Game.from_position(
        "kharbga", "ADDDAAD/DADDDAA/AAADAAA/ADDADDD/DDD.DAA/AAAADDD/AAADADD d m - 2 np=1")
    assert sorted(str(m) for m in g.legal_moves()) == ["c3xd3", "e3xd3"]
    assert status(g, View(flags=(False, True))) == (
        "Defender to move (exchange flag raised, but there is no step to ask or answer it "
        "with, only captures, and a capture cannot: the next capture lowers it)")


def test_the_computers_flagged_step_says_how_the_flag_is_raised() -> None:
    # The computer (Defender) asks an exchange with b3-b4=. Before: "make the
    # lit move b3-b4=", and the step alone was refused as a plain step.
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    g = Game.from_position("kharbga", pos)
    step = g.find_move("b3", "b4", True)
    assert str(step) == "b3-b4="
    assert status(g, View(expected=step)) == (
        "Defender (computer): make the lit move b3-b4= (raise the exchange flag first: "
        "press Exchange, then make the step)")
    # Once raised, the step is all there is to do, and the press is
    # answered: before, the bracket went and nothing said the flag was up.
    assert status(g, View(expected=step, flags=(False, True))) == (
        "Defender (computer): make the lit move b3-b4= (exchange flag raised: now make the "
        "step)")


def test_a_raised_exchange_flag_says_what_the_next_step_does() -> None:
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    g = Game.from_position("kharbga", pos)
    said = [status(g, View(flags=(g.side == 0, g.side == 1)))]  # the side to move's flag
    for frm, to in (("b3", "b4"), ("d4", "d5"), ("b4", "b3"), ("a1", "a2")):
        g.play(g.find_move(frm, to, True))
        said.append(status(g, View(flags=(g.side == 0, g.side == 1))))
    assert said == [
        "Defender to move (exchange flag raised: the soldier the Defender steps asks an "
        "exchange)",
        "Attacker to move; the Defender asks an exchange with b4 (exchange flag raised: the "
        "soldier the Attacker steps is offered for b4)",
        "Defender to move; exchange: the Attacker offers d5 (exchange flag raised: stepping b4 "
        "takes d5, and a second soldier is asked)",
        "Attacker to move; exchange: the Defender took d5, a second soldier is asked (exchange "
        "flag raised: the soldier the Attacker steps is offered as the second, not d5)",
        "Defender to move; exchange: the Attacker offers a2 as well (exchange flag raised: "
        "stepping b3 ends the exchange: b3, d5 and a2 come off)",
    ]
    # With the flag down, the side to answer is told how: with the flag, or
    # refusing with a plain step.
    g = Game.from_position("kharbga", pos)
    said = []
    for frm, to in (("b3", "b4"), ("d4", "d5"), ("b4", "b3"), ("a1", "a2")):
        g.play(g.find_move(frm, to, True))
        said.append(status(g, View()))
    assert said == [
        "Attacker to move; the Defender asks an exchange with b4 (to accept, press Exchange, "
        "then step the soldier you offer; a step without it refuses)",
        "Defender to move; exchange: the Attacker offers d5 (to take it, press Exchange, then "
        "step b4 again; a step without it withdraws the request)",
        "Attacker to move; exchange: the Defender took d5, a second soldier is asked (to give "
        "it, press Exchange, then step another soldier; a step without it refuses, and "
        "nothing comes off)",
        "Defender to move; exchange: the Attacker offers a2 as well (to end the exchange, "
        "press Exchange, then step b3 again; a step without it withdraws the request)",
    ]
    alone = Game.from_position("kharbga", pos.replace("A......", "......."))
    alone.play(alone.find_move("b3", "b4", True))
    assert status(alone, View()).endswith(
        "asks an exchange with b4 (one soldier left cannot be offered: any step refuses)")
    # Its own flag raised says the same, not that no exchange is asked.
    assert status(alone, View(flags=(True, False))).endswith(
        "asks an exchange with b4 (exchange flag raised, but one soldier left cannot be "
        "offered: any step refuses)")
    # The soldier in the hand is told the same.
    lifted = View(flags=(False, True), lifted=g.geometry.parse_point("b3"),
                  targets=1 << g.geometry.parse_point("b2"))
    assert status(g, lifted).endswith("(exchange flag raised: stepping b3 ends the exchange: "
                                      "b3, d5 and a2 come off)")


def test_an_exchange_request_is_said_after_the_error_squares_at_each_stage() -> None:
    # Who answers, and what is asked, follow the error squares' words; not
    # while the computer is to move (it answers itself).
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    g = Game.from_position("kharbga", pos)
    wrong = View(errors=_bits(g, "g7"))
    alone = status(g, wrong)
    assert alone == "g7: no soldier belongs here; take it off"
    said = []
    for frm, to in (("b3", "b4"), ("d4", "d5"), ("b4", "b3"), ("a1", "a2")):
        g.play(g.find_move(frm, to, True))
        said.append(status(g, wrong).removeprefix(alone))
        assert status(g, replace(wrong, thinking=True)).startswith("g7: ")
        assert "then:" not in status(g, replace(wrong, thinking=True))
        expected = next(m for m in g.legal_moves())
        assert "then:" not in status(g, replace(wrong, expected=expected))
    assert said == [
        "; then: Attacker, answer the exchange (the Defender asks it with b4)",
        "; then: Defender, answer the exchange (the Attacker offers d5 for b4)",
        "; then: Attacker, answer the exchange (the Defender took d5 and asks a second soldier)",
        "; then: Defender, answer the exchange (the Attacker offers a2 as well)",
    ]


def test_a_capture_after_rescinding_hajeb_is_named() -> None:
    """The Defender rescinds H'ajeb and captures in the same turn: the
    soldier left standing is told with the move that took it."""
    g = Game.from_position(find_variant("sabouiyya").with_options(hajeb=True),
                           "D...A/A..../.D.../..D../A...A d m - 9 hajeb=on")
    g.play("rescind")
    g.play("b3-a3")
    assert status(g, View(standing=_bits(g, "a4"))) == (
        "a4: remove the captured soldier (taken by b3xa3)")


def test_an_update_carries_every_field_of_the_report() -> None:
    # The reconciler copies a Report's fields into its Update by name: a
    # field added to Report alone would be an attribute no reader types.
    from dataclasses import fields

    from controller.reconcile.update import REPORTED, Report, Update

    assert REPORTED and set(REPORTED) <= {f.name for f in fields(Update)}
    assert set(REPORTED) == {f.name for f in fields(Report)}
