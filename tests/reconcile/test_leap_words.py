"""What a player of the leap-capture games is shown in the middle of a
chain, a huff or a compulsory capture: the lights of a hint or of the
computer's move, the lights of a soldier lifted by the other side, and the
words that say why a move is not taken."""

from __future__ import annotations

from dataclasses import replace

import pytest

from controller.board.events import Button, Frame
from controller.reconcile.present import View, leds, status
from controller.reconcile.reconciler import Reconciler, Settings
from controller.rules import AnyGame, game_from_position, new_game


def _bits(g: AnyGame, *names: str) -> int:
    return sum(1 << g.geometry.point_names.index(n) for n in names)


def _occ(g: AnyGame) -> str:
    a, d = g.bitboards()
    return "".join("1" if (a | d) >> p & 1 else "0" for p in range(len(g.geometry.point_names)))


def _sixteen_in_a_chain() -> AnyGame:
    """Sixteen Soldiers: d4 has leapt c5 to b6 and must capture again, to
    b4 or to d6 (the game the page tests play)."""
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5", "c4-d4", "xb4", "b6-b5", "d4xb6"):
        g.play(m)
    assert g.chain_square == "b6"
    return g


def test_undo_takes_a_hint_off_with_the_turn_it_was_for() -> None:
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5"):
        g.play(m)
    rec = Reconciler(game=g.copy())
    rec.feed(Frame.from_occ(0.0, _occ(g)))
    rec.tick(1.0)
    rec.set_hint(["c4", "d4"])  # the hint for the Attacker after d6-c5
    assert rec.tick(1.1).leds["c4"] == "hint"
    rec.feed(Button(2.0, "undo"))
    lit = rec.tick(2.1).leds
    # The Defender to move again: a hint for the Attacker means nothing.
    assert rec.game.to_move == "defender" and "hint" not in lit.values(), lit


def test_a_hint_in_a_chain_is_lit_over_the_chains_own_lights() -> None:
    g = _sixteen_in_a_chain()
    lit = leds(g, View(hint=_bits(g, "b6", "b4")))
    # The suggested leap b6 to b4 in the hint's lights; d6, the other
    # landing point, still green.
    assert (lit["b6"], lit["b4"], lit["d6"]) == ("hint", "hint", "destination")
    assert leds(g, View())["b6"] == "continue"


def test_the_computers_next_leap_in_a_chain_is_lit_as_its_move() -> None:
    pos = "......../D......./......../......../...D..../..A...../.......A/........ d m d4 2"
    g = game_from_position("english-draughts", pos)
    leap = next(m for m in g.legal_moves() if str(m) == "d4xb2")
    lit = leds(g, View(expected=leap))
    assert (lit["d4"], lit["b2"]) == ("hint", "hint")


def test_a_soldier_the_other_side_lifts_in_an_optional_chain_has_only_its_own_lights() -> None:
    # Checkers: the Attacker's new king on d8 may leap e7 to f6, or pass;
    # the Defender lifts h8 (its move ends the chain): h8 goes to g7 only.
    pos = "...a...D/....D.../......../......../......../......../......../A....... a m d8 1 np=0"
    g = game_from_position("checkers", pos)
    h8 = g.geometry.point_names.index("h8")
    lit = leds(g, View(lifted=h8, targets=_bits(g, "g7")))
    assert lit["h8"] == "lifted" and lit["g7"] == "destination"
    assert "f6" not in lit, lit
    assert lit["d8"] == "continue"


def test_another_soldier_moved_in_an_optional_chain_is_told_how_the_chain_ends() -> None:
    # Checkers: d8 may capture again or pass; the Attacker moved a1 to b2.
    pos = "...a...D/....D.../......../......../......../......../......../A....... a m d8 1 np=0"
    g = game_from_position("checkers", pos)
    said = status(g, View(errors=_bits(g, "a1", "b2")))
    assert said.startswith("a1: put the Attacker's soldier back (only d8 may move now, "
                           "capturing again; to stop the chain, the Defender plays)"), said
    assert "must" not in said


def test_another_soldier_moved_in_a_mandatory_chain_is_told_it_must_go_on() -> None:
    g = _sixteen_in_a_chain()
    said = status(g, View(errors=_bits(g, "e5", "d5")))
    assert "e5: put the Attacker's soldier back (b6 must capture again)" in said


def test_a_step_made_while_a_capture_is_compulsory_is_told_which_must_capture() -> None:
    # English draughts: c3 must leap d4; the Attacker stepped a1 to b2.
    pos = ".D.....D/......../.....D../......../...D..../..A...../......../A....... a m - 1"
    g = game_from_position("english-draughts", pos)
    said = status(g, View(errors=_bits(g, "a1", "b2")))
    assert said.startswith(
        "a1: put the Attacker's soldier back (a capture must be made, by c3)"), said
    # Where captures are free (checkers), a step needs no such reason.
    free = game_from_position("checkers", pos + " np=0")
    assert "capture must" not in status(free, View(errors=_bits(free, "a1", "b2")))


def test_a_compulsory_capture_is_said_before_a_soldier_is_lifted() -> None:
    # English draughts: c3 must leap d4, and the status says so with the
    # Attacker to move, not only once a soldier that cannot capture is
    # lifted; where captures are free (checkers) it says nothing of it.
    pos = ".D.....D/......../.....D../......../...D..../..A...../......../A....... a m - 1"
    g = game_from_position("english-draughts", pos)
    assert status(g, View()) == "Attacker to move: a capture must be made, by c3"
    free = game_from_position("checkers", pos + " np=0")
    assert status(free, View()) == "Attacker to move"
    # Kharbga with the refuge rules (compulsory): both capturers named.
    k = game_from_position("kharbga-refuge",
                           "......./......./..A..../AD...../.....A./....D../....A.. a m - 9")
    assert status(k, View()) == "Attacker to move: a capture must be made, by c5 or f3"


def test_a_huff_owed_on_several_soldiers_says_why_each_may_go() -> None:
    # Both a3 and c3 could have leapt over b4 or c4; the Attacker stepped e3.
    start = "..D/.../...../...../...../.DD../A.A.A/.../... a m - 5"
    g = game_from_position("sixteen-soldiers", start)
    g.play("e3-e4")
    assert g.huff == _bits(g, "a3", "c3")
    assert status(g, View()) == ("Defender: huff: remove the enemy soldier on a3 or c3 (the "
                                 "Attacker could have captured with any of them and did not)")
    # One taken off, the board not yet read: it is the huff made, not asked.
    assert status(g, View(off=_bits(g, "a3"))) == (
        "Defender: huff: a3 taken off (the Attacker could have captured with it and did not)")


def test_a_king_crowned_by_a_capture_is_told_its_turn_is_over() -> None:
    # English draughts: b6 leaps c7 to d8 and is crowned, which ends the
    # turn though the new king could leap e7; moved on, it is told why.
    pos = "......../..D.D.../.A....../......../......../......../......../A....... a m - 1"
    g = game_from_position("english-draughts", pos)
    g.play("b6xd8")
    assert g.to_move == "defender" and g.chain_square is None
    said = status(g, View(errors=_bits(g, "d8", "f6")))
    assert ("d8: put the Attacker's soldier back (it is the Defender's turn: a soldier "
            "crowned by a capture ends its turn)") in said, said
    # Another of the Attacker's soldiers: only whose turn it is.
    other = status(g, View(errors=_bits(g, "a1", "b2")))
    assert "a1: put the Attacker's soldier back (it is the Defender's turn)" in other, other
    # Where a crowned soldier leaps on (checkers), there is nothing to tell.
    free = game_from_position("checkers", pos + " np=0")
    free.play("b6xd8")
    assert free.chain_square == "d8"


def test_the_37_point_board_s_places_are_points_in_the_status_line() -> None:
    # Its places are points on lines, not squares; 8x8 keeps its squares.
    g = new_game("sixteen-soldiers")
    c4 = g.geometry.point_names.index("c4")
    lifted = View(lifted=c4, targets=_bits(g, "c5"))
    assert status(g, lifted) == "Attacker: c4 lifted; set it on a lit point"
    wrong = replace(lifted, errors=_bits(g, "b5"))
    assert status(g, wrong) == (
        "b5: not a legal point for the soldier from c4: set it on a lit point (c5), or back on c4")
    c = new_game("checkers")
    c3 = c.geometry.point_names.index("c3")
    assert status(c, View(lifted=c3, targets=_bits(c, "d4"))) == \
        "Attacker: c3 lifted; set it on a lit square"
    # Set up after a clear: the starting points still empty counted.
    a, d = g.bitboards()
    setting = View(errors=(a | d) & ~_bits(g, "a1"), setup=True)
    assert status(g, setting) == "Set up the soldiers: 31 starting points still empty"
    one = View(errors=_bits(g, "a1"), setup=True)
    assert status(g, one) == "Set up the soldiers: 1 starting point still empty"
    a, d = c.bitboards()
    assert status(c, View(errors=a | d, setup=True)) == \
        "Set up the soldiers: 24 starting squares still empty"


def test_after_the_end_soldiers_set_back_on_their_starting_points_start_a_new_game() -> None:
    # Draughts players put the men straight back for the next game; the end
    # says so, and the board need not be cleared first.
    from controller.rules import find_any_variant

    won = "......../......../......../......../......../......../.A....../A....... d m - 30"
    g = game_from_position(find_any_variant("english-draughts"), won)
    r = Reconciler(game=g, settings=Settings(settle=0.25, error_delay=1.0))
    a, d = g.bitboards()
    r.feed(Frame(0.0, a | d))
    assert r.tick(0.3).status == ("Game over: Attacker wins (all soldiers captured). Clear the "
                                  "board, or set the soldiers back on their starting squares, "
                                  "for a new game")
    start = new_game("english-draughts")
    a, d = start.bitboards()
    half = a | d & ~_bits(start, "b8", "d8")  # on the way: not yet a game
    r.feed(Frame(1.0, half))
    assert r.tick(3.0).leds != {} and r.game is g
    r.feed(Frame(4.0, a | d))
    u = r.tick(4.5)
    assert r.game is not g and r.game.ply == 0 and u.status == "Attacker to move"
    assert u.leds == {} and g.outcome is not None


def _frame(g: AnyGame, t: float, colour: bool, *off: str, on: str = "") -> Frame:
    """The board of ``g`` with the soldiers on ``off`` taken away and one
    of the side to move set on ``on``."""
    a, d = g.bitboards()
    gone = _bits(g, *off)
    a, d = a & ~gone, d & ~gone
    if on:
        a, d = (a | _bits(g, on), d) if g.side == 0 else (a, d | _bits(g, on))
    return Frame(t, a | d, a, d, 0, True) if colour else Frame(t, a | d)


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_move_made_before_the_huff_is_told_to_wait_for_the_huff(colour: bool) -> None:
    # The Defender owes the huff of b4 and moves b6 to b5 first: b4 alone
    # is to come off, and then the huff and the move are read; before,
    # "b5: no soldier belongs here; take it off; b6: put the Defender's
    # soldier back" asked to undo a move that stands.
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5", "c4-d4"):
        g.play(m)
    assert g.huff == _bits(g, "b4")
    r = Reconciler(game=g.copy(), settings=Settings(settle=0.25, error_delay=1.0))
    r.feed(_frame(g, 0.0, colour))
    r.feed(_frame(g, 1.0, colour, "b6"))
    r.feed(_frame(g, 1.5, colour, "b6", on="b5"))
    u = r.tick(3.0)
    assert [str(m) for m in r.game.moves] == ["d4-e5", "d6-c5", "c4-d4"]
    assert u.status == "Defender: the huff comes first: take off b4; then the move made stands"
    assert u.leds == {"c4": "last-from", "d4": "last-to", "b4": "capture"}
    r.feed(_frame(g, 3.5, colour, "b6", "b4", on="b5"))
    u = r.tick(4.0)
    assert [str(m) for m in r.game.moves][-2:] == ["xb4", "b6-b5"]
    assert u.status == "Attacker to move"


def test_the_other_side_moving_in_a_mandatory_chain_is_told_the_chain_goes_on() -> None:
    # Sixteen Soldiers: b6 must capture again; the Defender moved e7 to e6
    # (or lifted it). Before, "e7: put the Defender's soldier back" said no
    # why, as if the Defender were wrong to move at all.
    g = _sixteen_in_a_chain()
    said = status(g, View(errors=_bits(g, "c6", "c5")))
    assert ("c6: put the Defender's soldier back (it is the Attacker's turn: b6 must "
            "capture again)") in said, said
    # Where the chain is optional, the Defender's move ends it: no such words.
    pos = "...a...D/....D.../......../......../......../......../......../A....... a m d8 1 np=0"
    free = game_from_position("checkers", pos)
    said = status(free, View(errors=_bits(free, "e7", "d6")))
    assert "must" not in said and "turn" not in said, said


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_soldiers_taken_off_before_the_leap_that_captures_them_are_told_so(
        colour: bool) -> None:
    # English draughts: c3 must leap d4 and then f6. The player takes the
    # two soldiers off first (the leaps are made next, and read): the
    # words say the capture is as good as putting them back; before, "d4,
    # f6: put the Defender's soldiers back (it is the Attacker's turn)"
    # blamed the Defender.
    pos = ".D.D..../......../.....D../......../...D..../..A...../.A....../........ a m - 1"
    g = game_from_position("english-draughts", pos)
    r = Reconciler(game=g.copy(), settings=Settings(settle=0.25, error_delay=1.0))
    r.feed(_frame(g, 0.0, colour))
    r.feed(_frame(g, 1.0, colour, "f6"))
    u = r.tick(2.5)
    assert u.status == "f6: put the Defender's soldier back (or capture it, with c3)"
    assert u.leds == {"f6": "error"}
    r.feed(_frame(g, 3.0, colour, "f6", "d4"))
    u = r.tick(4.5)
    assert u.status == "d4, f6: put the Defender's soldiers back (or capture them, with c3)"
    r.feed(_frame(g, 5.0, colour, "f6", "d4", "c3"))
    r.feed(_frame(g, 5.5, colour, "f6", "d4", "c3", on="g7"))
    u = r.tick(6.0)
    assert [str(m) for m in r.game.moves] == ["c3xe5", "e5xg7"]
    assert "error" not in u.leds.values()
    # Mid-chain: e5 still to leap f6, f6 taken off first.
    g.play("c3xe5")
    said = status(g, View(errors=_bits(g, "f6")))
    assert said == "f6: put the Defender's soldier back (or capture it, with e5)", said
    # A soldier the Defender moved away is not one taken off early.
    moved = status(g, View(errors=_bits(g, "f6", "g5")))
    assert "capture it" not in moved, moved


@pytest.mark.parametrize("variant", ["english-draughts", "checkers"])
def test_a_man_crowned_is_told_to_be_made_a_king(variant: str) -> None:
    # The sensors cannot see a king: the status asks for it to be made,
    # for the turn after the crowning; before, "Defender to move" alone,
    # and a man left uncrowned looked a man to the players.
    pos = "......../..A...../.......D/......../......../......../......../A....... a m - 1"
    g = game_from_position(variant, pos + (" np=0" if variant == "checkers" else ""))
    g.play("c7-d8")
    assert status(g, View()) == "Defender to move; d8 is crowned: set a second soldier on it"
    g.play("h6-g5")
    assert status(g, View()) == "Attacker to move"
    # Crowned by a capture: in checkers the king leaps on, or stops.
    pos = "......../..D.D.../.A....../......../......../......../......../A....... a m - 1"
    g = game_from_position(variant, pos + (" np=0" if variant == "checkers" else ""))
    g.play("b6xd8")
    said = status(g, View())
    if variant == "checkers":
        assert said == ("Attacker: continue the capture with d8, or stop there and let the "
                        "Defender play (pass); d8 is crowned: set a second soldier on it")
        g.play("pass")
    assert status(g, View()) == "Defender to move; d8 is crowned: set a second soldier on it"


def _huff_owed(colour: bool) -> tuple[AnyGame, Reconciler]:
    """Sixteen Soldiers with the Defender owing the huff of b4 (c4-d4 left
    it uncaptured), and a reconciler that has read that board."""
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5", "c4-d4"):
        g.play(m)
    r = Reconciler(game=g.copy(), settings=Settings(settle=0.25, error_delay=1.0))
    r.feed(_frame(g, 0.0, colour))
    return g, r


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_huff_of_the_wrong_soldier_is_told_which_the_huff_takes(colour: bool) -> None:
    # The Defender owes the huff of b4 and takes a4 off instead; before,
    # "a4: put the Attacker's soldier back (it is the Defender's turn)",
    # as if a4 had been moved by its side.
    g, r = _huff_owed(colour)
    r.feed(_frame(g, 1.0, colour, "a4"))
    u = r.tick(2.5)
    assert u.status == "a4: put the Attacker's soldier back (the huff takes b4, not this one)"
    assert u.leds["a4"] == "error" and u.leds["b4"] == "capture"
    two = status(g, View(errors=_bits(g, "a4", "a3")))
    assert two == "a3, a4: put the Attacker's soldiers back (the huff takes b4, not these)"
    # The Attacker moving again is told whose turn it is, as ever.
    moved = status(g, View(errors=_bits(g, "e5", "d5")))
    assert "e5: put the Attacker's soldier back (it is the Defender's turn)" in moved, moved


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_neighbour_knocked_off_by_a_compulsory_leap_is_only_to_go_back(colour: bool) -> None:
    # English draughts: c3 must leap d4; lifting it knocks b2 off. Only b2
    # is to be put back, and then the leap is read; before, "b2: put the
    # Attacker's soldier back (a capture must be made, by c3)", as if the
    # leap just made with c3 were not one.
    pos = ".D.D..../......../.....D../......../...D..../..A...../.A....../........ a m - 1"
    g = game_from_position("english-draughts", pos)
    r = Reconciler(game=g.copy(), settings=Settings(settle=0.25, error_delay=1.0))
    r.feed(_frame(g, 0.0, colour))
    r.feed(_frame(g, 1.0, colour, "c3", "b2"))
    r.feed(_frame(g, 1.5, colour, "c3", "b2", on="e5"))
    u = r.tick(3.0)
    assert u.status == "b2: put the Attacker's soldier back" and u.leds == {"b2": "error"}
    r.feed(_frame(g, 3.5, colour, "c3", on="e5"))
    r.tick(4.0)
    assert [str(m) for m in r.game.moves] == ["c3xe5"]


@pytest.mark.parametrize("variant", ["english-draughts", "checkers"])
@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_man_lifted_to_be_crowned_is_told_to_set_it_back_as_a_king(
        colour: bool, variant: str) -> None:
    # c7-d8 crowns; the player lifts d8 to stack a second soldier on it
    # (or flip it), and takes a while: that is what the status asked, so
    # d8 is lit where to set the king ('destination'), not red. Before, d8 was
    # lit 'error', "d8: put the Attacker's soldier back (as a king: it was
    # crowned)"; earlier still "(it is the Defender's turn)", as if the
    # crowning were a move of it.
    pos = "......../..A...../.......D/......../......../......../......../A....... a m - 1"
    g = game_from_position(variant, pos + (" np=0" if variant == "checkers" else ""))
    g.play("c7-d8")
    r = Reconciler(game=g.copy(), settings=Settings(settle=0.25, error_delay=1.0))
    r.feed(_frame(g, 0.0, colour))
    r.feed(_frame(g, 1.0, colour, "d8"))
    u = r.tick(3.0)
    assert u.status == "d8: set the crowned soldier back as a king, with a second soldier on it"
    assert u.leds == {"c7": "last-from", "d8": "destination"}
    r.feed(_frame(g, 3.5, colour))
    u = r.tick(4.0)
    assert u.status == "Defender to move; d8 is crowned: set a second soldier on it"
    assert u.leds == {"c7": "last-from", "d8": "last-to"}
    # Moved on, it is an error, told whose turn it is, as ever.
    a, d = g.bitboards()
    a = a & ~_bits(g, "d8") | _bits(g, "e7")
    r.feed(Frame(5.0, a | d, a, d, 0, True) if colour else Frame(5.0, a | d))
    u = r.tick(7.0)
    assert u.leds["d8"] == "error" and u.leds["e7"] == "error"
    assert "d8: put the Attacker's soldier back (it is the Defender's turn)" in u.status, u.status


def test_a_wrong_side_s_soldier_set_up_on_a_camera_board_is_not_an_empty_point() -> None:
    # A camera sees a Defender's soldier set on a1, the Attacker's starting
    # point: it is named as the wrong side's; before, "Set up the soldiers:
    # 1 starting point still empty" with a1 lit 'setup', under a soldier.
    g = new_game("sixteen-soldiers")
    r = Reconciler(game=g.copy(), settings=Settings(settle=0.25, error_delay=1.0))
    r.feed(Frame(0.0, 0, 0, 0, 0, True))
    r.tick(1.0)
    assert r.game.ply == 0
    a, d = g.bitboards()
    a1, c1 = _bits(g, "a1"), _bits(g, "c1")
    half = a & ~a1 & ~c1
    r.feed(Frame(2.0, half | a1, half, a1, 0, True))  # the Defender's soldier on a1
    u = r.tick(4.0)
    assert u.status == ("Set up the soldiers: 17 starting points still empty; a1: wrong "
                        "side's soldier (the Attacker's belongs here)")
    assert u.leds["a1"] == "error" and u.leds["c1"] == "setup"
    r.feed(Frame(5.0, a | d, a & ~a1, d | a1, 0, True))
    u = r.tick(7.0)
    assert u.status == "a1: wrong side's soldier (the Attacker's belongs here)"
    assert u.leds == {"a1": "error"}
    r.feed(Frame(8.0, a | d, a, d, 0, True))
    u = r.tick(9.0)
    assert u.status == "Attacker to move" and u.leds == {}


@pytest.mark.parametrize("colour", [False, True], ids=["occupancy", "colour"])
def test_a_soldier_held_after_the_huff_is_lit_where_it_may_go(colour: bool) -> None:
    # The Defender huffs b4 and holds b6, its next move, for a while: b6
    # is lifted, b5 and a5 lit, b4 no longer lit to come off; before, "b6:
    # put the Defender's soldier back", b6 red and b4 lit 'capture' with
    # nothing on it.
    g, r = _huff_owed(colour)
    r.feed(_frame(g, 1.0, colour, "b6"))
    r.feed(_frame(g, 1.2, colour, "b6", "b4"))
    u = r.tick(3.0)
    assert u.status == "Defender: b6 lifted; set it on a lit point"
    assert u.leds == {"c4": "last-from", "d4": "last-to", "b6": "lifted",
                      "b5": "destination", "a5": "destination"}
    r.feed(_frame(g, 3.5, colour, "b6", "b4", on="b5"))
    r.tick(4.0)
    assert [str(m) for m in r.game.moves][-2:] == ["xb4", "b6-b5"]
