"""Table-driven tests of the reconciler: what people do, what it records,
and the LED roles it shows at each moment."""

from __future__ import annotations

from typing import Any

import pytest

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler, Settings, Unrecorded, Update
from controller.rules import Game, game_from_position, new_game

SETTLE = 0.25
DELAY = 1.0
CHAIN = "......./......./......./..DA.../..DA.../A.DA.../......D a m - 5"


class Hands:
    """A physical board under a reconciler, moved by a person."""

    def __init__(self, variant: str, position: str | None = None, colour: bool = False,
                 settings: Settings | None = None, **options: Any) -> None:
        game = game_from_position(variant, position) if position else new_game(variant)
        settings = settings or Settings(settle=SETTLE, error_delay=DELAY)
        self.r = Reconciler(game=game, settings=settings, **options)
        self.updates: list[Update] = []
        self.names = game.geometry.point_names
        self.a, self.d = game.bitboards()
        self.colour = colour
        self.unknown = 0
        self.t = 0.0
        self.played: list[str] = []
        self.last = self._feed()
        self.hold()

    def _bit(self, square: str) -> int:
        return 1 << self.names.index(square)

    def frame(self) -> Frame:
        occ = self.a | self.d
        if self.colour:
            return Frame(self.t, occ & ~self.unknown, self.a & ~self.unknown,
                         self.d & ~self.unknown, self.unknown, True)
        return Frame(self.t, occ)

    def _feed(self) -> Update:
        update = self.r.feed(self.frame())
        self.updates.append(update)
        self.played += update.played
        return update

    def show(self, a: int, d: int) -> Update:
        """The whole board set to (a, d) at once, and held."""
        self.a, self.d = a, d
        self.t += 0.01
        self._feed()
        return self.hold()

    def hold(self, seconds: float = 0.3) -> Update:
        """Let time pass with the board as it is."""
        self.t += seconds
        self.last = self.r.tick(self.t)
        self.updates.append(self.last)
        self.played += self.last.played
        return self.last

    def lift(self, *squares: str, hold: float = 0.3) -> Update:
        for s in squares:
            bit = self._bit(s)
            assert (self.a | self.d) & bit, f"nothing on {s}"
            self.a &= ~bit
            self.d &= ~bit
        self.t += 0.01
        self._feed()
        return self.hold(hold)

    def put(self, square: str, side: str = "a", hold: float = 0.3) -> Update:
        bit = self._bit(square)
        assert not (self.a | self.d) & bit, f"{square} is occupied"
        if side == "a":
            self.a |= bit
        else:
            self.d |= bit
        self.t += 0.01
        self._feed()
        return self.hold(hold)

    def move(self, frm: str, to: str) -> Update:
        side = "a" if self.a & self._bit(frm) else "d"
        self.lift(frm)
        return self.put(to, side)

    def bounce(self, square: str, side: str = "a") -> None:
        """A reed switch chattering: flips within a few milliseconds."""
        bit = self._bit(square)
        for _ in range(3):
            for attr in ("a" if side == "a" else "d",):
                setattr(self, attr, getattr(self, attr) ^ bit)
            self.t += 0.004
            self._feed()

    def press(self, button: str, side: str | None = None) -> Update:
        self.t += 0.05
        update = self.r.feed(Button(self.t, button, side))
        self.updates.append(update)
        self.played += update.played
        return update

    @property
    def leds(self) -> dict[str, str]:
        return self.last.leds

    @property
    def moves(self) -> list[str]:
        return [str(m) for m in self.r.game.moves]


def test_setting_placements_and_setup_lights() -> None:
    h = Hands("khamousiyya")
    # Each player's first piece goes next to the malha: those squares are lit.
    assert sorted(h.leds) == ["c4", "d3", "d5", "e4"]
    assert set(h.leds.values()) == {"setup"}
    h.put("d5")
    assert h.moves == ["@d5"] and h.leds == {}
    assert h.last.status == "Attacker: place a soldier (2 of 2)"
    h.put("a1")
    assert h.moves == ["@d5", "@a1"]
    assert sorted(h.leds) == ["c4", "d3", "e4"]
    assert h.last.status.startswith("Defender")


def test_occupancy_records_a_soldier_set_out_of_turn_as_the_side_to_place() -> None:
    # Reed switches see only that a square is filled (docs/reconciler.md,
    # "Limits of occupancy sensors"): the Attacker's third soldier, set in
    # the Defender's turn, is the Defender's placement, and undo takes it back.
    h = Hands("kharbga")
    h.put("a1")
    h.put("b1")
    h.put("c1", "a")
    assert h.moves == ["@a1", "@b1", "@c1"]
    assert h.r.game.bitboards()[1] == h._bit("c1")
    assert h.last.status == "Defender: place a soldier (2 of 2)"


def test_two_placements_at_once_and_a_third_refused() -> None:
    h = Hands("kharbga")
    h.a |= h._bit("a1") | h._bit("b1")
    h.t += 0.01
    h._feed()
    h.hold()
    assert sorted(h.moves) == ["@a1", "@b1"]
    # Three new pieces at once span two turns: nothing recorded, errors lit.
    h.d |= h._bit("a7") | h._bit("b7") | h._bit("c7")
    h.t += 0.01
    h._feed()
    h.hold()
    assert h.leds == {}  # not yet: a reading must stay wrong for error_delay
    h.hold(DELAY)
    assert len(h.moves) == 2
    assert {s: r for s, r in h.leds.items() if r == "error"} == {
        "a7": "error", "b7": "error", "c7": "error"}
    h.lift("c7")
    assert sorted(h.moves) == ["@a1", "@a7", "@b1", "@b7"]
    assert "error" not in h.leds.values()


def test_bounce_and_hover_record_nothing() -> None:
    h = Hands("kharbga")
    h.bounce("c3")  # ends with a piece on c3 after three flips
    h.bounce("c3")  # and off again
    h.hold()
    assert h.moves == []
    h.bounce("c3")
    h.hold()
    assert h.moves == ["@c3"]


def test_lift_shows_destinations_then_the_step_is_recorded() -> None:
    h = Hands("kharbga", CHAIN)
    h.lift("d4")
    assert h.leds == {"d4": "lifted", "d5": "destination", "e4": "destination"}
    assert h.last.status.startswith("Attacker: d4 lifted")
    assert h.moves == []
    h.put("e4")
    assert h.moves == ["d4-e4"]
    assert h.leds == {"d4": "last-from", "e4": "last-to"}


def test_lift_and_put_back_is_nothing() -> None:
    h = Hands("kharbga", CHAIN)
    h.lift("d3", hold=3.0)
    assert h.leds["d3"] == "lifted" and "error" not in h.leds.values()
    h.put("d3")
    assert h.moves == [] and h.leds == {}


def test_capture_chain_with_removals_in_any_order() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    assert h.moves == ["a2xb2"]
    # The capture is lit; the soldier must continue; b3 is its capturing square.
    assert h.leds["c2"] == "capture"
    assert h.leds["b2"] == "continue" and h.leds["b3"] == "destination"
    # The move read is named: a soldier set down diagonally over two
    # sandwiches would leave the board a quick chain leaves.
    assert h.last.status == "c2: remove the captured soldier (taken by a2xb2)"
    h.lift("c2")
    assert h.leds["b2"] == "continue" and "c2" not in h.leds
    # Next step: the captured piece is taken off before the soldier lands.
    h.lift("b2")
    assert h.leds["b2"] == "lifted"
    h.lift("c3", hold=2.0)  # early removal: still no error
    assert "error" not in h.leds.values() and h.leds["b2"] == "lifted"
    h.put("b3")
    assert h.moves == ["a2xb2", "b2xb3"]
    h.move("b3", "b4")
    assert h.moves == ["a2xb2", "b2xb3", "b3xb4"]
    assert h.leds["c4"] == "capture"
    assert h.r.game.to_move == "defender"
    h.lift("c4")
    assert "capture" not in h.leds.values()


def test_chain_refuses_another_soldier() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("d4", "e4")  # not the chaining soldier
    h.hold(DELAY)
    assert h.moves == ["a2xb2"]
    assert h.leds["e4"] == "error" and h.leds["d4"] == "error"
    h.move("e4", "d4")
    assert "error" not in h.leds.values() and h.leds["b2"] == "continue"


def test_two_captures_removed_together() -> None:
    # d4-d5 lands between two sandwiches: b5 A, c5 D | e5 D, f5 A.
    pos = "......./......./.AD.DA./...A.../......./......./......D a m - 5"
    h = Hands("kharbga", pos)
    h.move("d4", "d5")
    assert h.moves == ["d4xd5"]
    assert h.leds["c5"] == "capture" and h.leds["e5"] == "capture"
    h.lift("c5", "e5")
    assert "capture" not in h.leds.values()
    assert h.r.game.to_move == "defender"


def test_optional_chain_ended_by_the_opponent() -> None:
    h = Hands("khamousiyya", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    assert h.leds["b2"] == "continue"
    assert "pass" in h.last.status
    h.move("g1", "g2")  # the Defender moves: an implied pass
    assert h.moves == ["a2xb2", "pass", "g1-g2"]


def _after_pass(h: Hands, token: str) -> Any:
    after = h.r.game.copy()
    after.push("pass", -1, -1, False)
    return next(m for m in after.legal_moves() if str(m) == token)


def test_against_the_computer_an_optional_chain_stops_with_its_reply_only() -> None:
    # The computer plays the Defender: the person stopping their chain does
    # not choose its reply.  Until the computer has chosen, none is taken;
    # then its lit reply stops the chain, and no other.
    h = Hands("khamousiyya", CHAIN)
    h.r.computer = 1
    h.move("a2", "b2")
    h.lift("c2")
    assert h.moves == ["a2xb2"]
    assert h.last.status == ("Attacker: continue the capture with b2, or stop there: the "
                             "Defender (computer) is choosing its reply, to be lit")
    h.move("g1", "g2")  # the person moves the computer's soldier before it chose
    status = h.hold(DELAY + 0.1).status
    assert h.moves == ["a2xb2"] and h.leds.get("g2") == "error"
    assert status.startswith("g1: put the Defender's soldier back (the computer is thinking")
    h.move("g2", "g1")
    h.r.expect_after_pass(_after_pass(h, "g1-f1"))
    status = h.hold().status
    assert status == ("Attacker: continue the capture with b2, or stop there by making the "
                      "Defender (computer)'s lit reply g1-f1")
    assert h.leds.get("g1") == "hint" and h.leds.get("f1") == "hint"
    assert h.leds.get("b2") == "continue" and h.leds.get("b3") == "destination"
    h.lift("g1")  # its soldier in the hand: only where it chose to go is lit
    assert h.leds.get("f1") == "destination" and h.leds.get("g2") is None
    status = h.put("g2", "d", hold=DELAY + 0.5).status  # not its reply
    assert h.moves == ["a2xb2"] and h.leds.get("g2") == "error"
    assert status == ("g2: not the computer's move (g1-f1): set it on a lit square (f1), "
                      "or back on g1")
    h.move("g2", "g1")
    h.move("g1", "f1")  # its reply: the chain stopped
    assert h.moves == ["a2xb2", "pass", "g1-f1"]
    assert "error" not in h.leds.values()
    # The chain going on instead is the person's own: the reply is withdrawn.
    h = Hands("khamousiyya", CHAIN)
    h.r.computer = 1
    h.move("a2", "b2")
    h.lift("c2")
    h.r.expect_after_pass(_after_pass(h, "g1-f1"))
    h.move("b2", "b3")
    h.lift("c3")
    assert h.moves == ["a2xb2", "b2xb3"]
    assert h.r.after_pass is None and "hint" not in h.leds.values()
    # A reply ending where the chain's soldier would capture: the square is
    # lit as the reply's, and the status says it is the capture's too.
    h = Hands("khamousiyya", CHAIN)
    h.r.computer = 1
    h.move("a2", "b2")
    h.lift("c2")
    h.r.expect_after_pass(_after_pass(h, "c3-b3"))
    assert h.hold().status == (
        "Attacker: continue the capture with b2, or stop there by making the Defender "
        "(computer)'s lit reply c3-b3 (b3, where it ends, is also where b2 captures)")
    assert h.leds.get("b3") == "hint" and h.leds.get("b2") == "continue"
    # Without the computer, either side's soldier stops it, as before.
    h = Hands("khamousiyya", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("g1", "g2")
    assert h.moves == ["a2xb2", "pass", "g1-g2"]


def test_wrong_square_then_moved_on() -> None:
    h = Hands("kharbga", CHAIN)
    h.lift("d4")
    h.put("f6", hold=2.0)  # not a legal destination: shown as an error
    assert h.moves == []
    assert h.leds["f6"] == "error" and h.leds["d4"] == "error"
    h.move("f6", "e4")
    assert h.moves == ["d4-e4"]
    assert "error" not in h.leds.values()


def test_a_soldier_set_down_where_it_cannot_go_is_told_where_it_can() -> None:
    # Once lit, the wrong point names the points the soldier can go to, and
    # they are lit; before, 'f6: no soldier belongs here; take it off' (the
    # words naming them were never reached: a lift clears the errors).
    h = Hands("kharbga", CHAIN)
    h.lift("d4")
    lit = {sq for sq, role in h.leds.items() if role == "destination"}
    assert lit and "f6" not in lit
    h.put("f6", hold=2.0)
    targets = ", ".join(sorted(lit, key=lambda sq: (sq[1], sq[0])))
    # One order, at the square set down on (before, also "d4: put the
    # Attacker's soldier back", as if the two contradicted each other).
    assert h.last.status == ("f6: not a legal square for the soldier from d4: set it on a "
                             f"lit square ({targets}), or back on d4")
    assert h.leds["f6"] == "error" and h.leds["d4"] == "error"
    assert {sq for sq, role in h.leds.items() if role == "destination"} == lit
    h.move("f6", "d4")  # put back: nothing lit, nothing recorded
    h.hold(DELAY)
    assert h.moves == [] and not {"error", "destination"} & set(h.leds.values())


def test_legal_wrong_square_is_corrected() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "d5")  # legal, recorded
    assert h.moves == ["d4-d5"]
    h.move("d5", "e5")  # moved on: d4-e5 is no step; d5-e5 is the Defender's turn
    h.hold(DELAY)
    assert h.moves == ["d4-d5"] and "error" in h.leds.values()
    h.move("e5", "e4")  # d4-e4 instead of d4-d5: a correction
    assert h.moves == ["d4-e4"]
    assert "error" not in h.leds.values()


def test_takeback_by_restoring_the_board() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")
    h.lift("c2")
    h.move("b2", "b3")
    h.lift("c3")
    assert h.moves == ["a2xb2", "b2xb3"]
    # Put everything back as it was before the chain.
    h.move("b3", "a2")
    h.put("c2", "d")
    h.put("c3", "d")
    assert h.moves == []
    assert h.r.game.position() == Game.from_position("kharbga", CHAIN).position()


def test_cleared_board_starts_a_new_game() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    for s in ("a2", "c2", "c3", "c4", "d2", "d3", "e4", "g1"):
        h.lift(s, hold=0.05)
    h.hold()
    assert h.r.saved and [str(m) for m in h.r.saved[0].moves] == ["d4-e4"]
    assert h.r.game.moves == [] and h.r.game.phase == "setting"


def test_exchange_flag_from_the_button() -> None:
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    h = Hands("kharbga", pos)
    h.press("exchange", "defender")
    assert "exchange flag raised" in h.hold().status
    h.move("b3", "b4")
    assert h.moves == ["b3-b4="]
    assert h.r.game.exchange is not None and h.r.game.exchange.stage == 1
    h.move("a1", "a2")  # no flag: the Attacker denies
    assert h.moves == ["b3-b4=", "a1-a2"]
    assert h.r.game.exchange is None


def test_a_flag_raised_in_one_game_is_not_carried_into_a_game_resumed() -> None:
    # The Defender raises the exchange flag, then the board is set up as a
    # game put aside earlier: that game's next Defender step is a plain
    # step, not an exchange asked for in another game.
    aside = Game.from_position("kharbga",
                               "......./......./......./......./..D..../......./A.....A a m - 7")
    aside.play("a1-b1")
    h = Hands("kharbga", "......./......./......./...A.../.D...../......./A...... d m - 7",
              saved=[aside])
    h.press("exchange", "defender")
    assert "exchange flag raised" in h.hold().status
    h.show(*aside.bitboards())
    assert h.r.game is aside
    assert "flag" not in h.hold().status
    h.move("c3", "c4")
    assert [str(m) for m in aside.moves] == ["a1-b1", "c3-c4"]


def test_undo_button_waits_for_the_board() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    h.press("undo")
    h.hold(DELAY + 0.1)
    assert h.moves == []
    assert h.leds.get("e4") == "error" and h.leds.get("d4") == "error"
    h.move("e4", "d4")
    assert "error" not in h.leds.values()
    h.move("d4", "d5")
    assert h.moves == ["d4-d5"]


def test_undo_tells_the_squares_it_changed_as_taken_back() -> None:
    # Setting phase: the two soldiers just placed are to come off again.
    h = Hands("khamousiyya")
    h.put("c4", "a")
    h.put("d3", "a")
    assert h.moves == ["@c4", "@d3"]
    h.press("undo")
    status = h.hold(DELAY + 0.1).status
    assert h.moves == []
    assert status == "d3, c4: taken back by undo; take them off"
    h.lift("c4")
    h.lift("d3")
    assert "error" not in h.leds.values() and "undo" not in h.last.status
    # Moving phase: the step taken back.
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    h.press("undo")
    status = h.hold(DELAY + 0.1).status
    assert "e4: taken back by undo; take it off" in status
    assert "d4: taken back by undo; put the Attacker's soldier back" in status
    # A square wrong for another reason keeps its own words.
    h.put("a7", "d")
    assert "a7: no soldier belongs here; take it off" in h.hold(DELAY + 0.1).status


def test_after_the_end_an_undo_not_put_back_is_told_as_the_end_asks() -> None:
    # The undo's board not yet put back when the game ends: its squares are
    # said for what the end asks (the board cleared), not as taken back.
    h = Hands("khamousiyya")
    h.put("c4", "a")
    h.put("d3", "a")
    h.press("undo")
    h.hold(DELAY + 0.1)
    h.press("resign", "attacker")
    status = h.hold(DELAY + 0.1).status
    assert status == "d3, c4: no soldier belongs here; take them off"
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    h.press("undo")
    h.hold(DELAY + 0.1)
    h.press("resign", "defender")
    status = h.hold(DELAY + 0.1).status
    assert "undo" not in status
    assert "e4: no soldier belongs here; take it off" in status


def test_nothing_is_taken_for_the_computer_while_it_thinks() -> None:
    h = Hands("kharbga", CHAIN)
    h.r.think(True)  # the computer plays the Attacker and searches its move
    assert h.hold().status == "Attacker (computer) is thinking: its move will be lit"
    h.move("d4", "e4")  # a person makes a move for it
    status = h.hold(DELAY + 0.1).status
    assert h.moves == [] and h.leds.get("d4") == "error" and h.leds.get("e4") == "error"
    assert "d4: put the Attacker's soldier back (the computer is thinking" in status
    h.move("e4", "d4")
    assert "error" not in h.leds.values()
    move = next(m for m in h.r.game.legal_moves() if str(m) == "d4-d5")
    h.r.expect(move)  # its move is found: lit, and only it is taken
    h.lift("d4")  # its soldier in the hand: where it chose to go lit, no other step
    assert h.leds.get("d5") == "destination" and h.leds.get("e4") is None
    h.put("d5")
    assert h.moves == ["d4-d5"]


def test_the_computers_move_made_before_it_was_lit_is_taken_once_it_is() -> None:
    # The person makes the move the computer then finds (its search slow, or
    # the service restarted meanwhile): once lit, the board showing it is
    # read as that move; before, it stayed lit as an error until the soldier
    # was lifted and set down again.
    h = Hands("kharbga", CHAIN)
    h.r.think(True)
    h.move("d4", "d5")
    h.hold(DELAY + 0.1)
    assert h.moves == [] and h.leds.get("d5") == "error"
    h.r.expect(next(m for m in h.r.game.legal_moves() if str(m) == "d4-d5"))
    update = h.hold()
    assert h.moves == ["d4-d5"], update.status
    assert "error" not in h.leds.values()
    # Another move than the one found stays an error, with the found move lit.
    h = Hands("kharbga", CHAIN)
    h.r.think(True)
    h.move("d4", "e4")
    h.r.expect(next(m for m in h.r.game.legal_moves() if str(m) == "d4-d5"))
    status = h.hold(DELAY + 0.1).status
    assert h.moves == [] and h.leds.get("e4") == "error" and h.leds.get("d5") == "destination"
    assert status == ("e4: not the computer's move (d4-d5): set it on a lit square (d5), "
                      "or back on d4")


def _restarted(pending: Unrecorded, position: str = CHAIN) -> Reconciler:
    """A new reconciler on the same game, given what the first one's
    actions did not hold (as the service does after a restart)."""
    r = Reconciler(game=Game.from_position("kharbga", position),
                   settings=Settings(settle=SETTLE, error_delay=DELAY), resumed=True)
    r.restore(pending)
    return r


def _bits(*squares: str) -> int:
    names = Game.new("kharbga").geometry.point_names
    return sum(1 << names.index(s) for s in squares)


def test_the_computers_action_is_taken_up_after_a_restart() -> None:
    h = Hands("kharbga", CHAIN)
    h.r.expect(next(m for m in h.r.game.legal_moves() if str(m) == "d4-d5"))
    assert h.r.pending.expected == "d4-d5"
    r = _restarted(h.r.pending)
    assert str(r.expected) == "d4-d5"
    a, d = r.game.bitboards()
    assert r.tick(0.0).leds == {"d4": "hint", "d5": "hint"}
    # Another move is not the computer's: refused.
    r.feed(Frame(0.0, (a | d) & ~_bits("d4") | _bits("e4")))
    assert not r.tick(SETTLE + DELAY + 0.1).played and not r.game.moves
    # The board showing its action is that action.
    r.feed(Frame(2.0, (a | d) & ~_bits("d4") | _bits("d5")))
    assert r.tick(2.0 + SETTLE + 0.1).played == ["d4-d5"]
    assert r.pending.expected is None
    # An action that is not one of the position's is not taken up.
    assert _restarted(Unrecorded(expected="a1-a2")).expected is None


def test_an_undo_not_put_back_is_asked_back_after_a_restart() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    h.press("undo")
    pending = h.r.pending
    assert pending.undone is not None and pending.undone.squares == _bits("d4", "e4")
    r = _restarted(pending)
    assert r.pending == pending  # kept until the board is seen
    a, d = r.game.bitboards()
    r.feed(Frame(0.0, (a | d) & ~_bits("d4") | _bits("e4")))  # as the undo left it
    status = r.tick(SETTLE + DELAY + 0.1).status
    assert not r.game.moves
    assert "e4: taken back by undo; take it off" in status
    assert "d4: taken back by undo; put the Attacker's soldier back" in status
    assert r.pending == pending
    r.feed(Frame(2.0, a | d))  # put back
    update = r.tick(2.0 + SETTLE + 0.1)
    assert "error" not in update.leds.values() and r.pending.undone is None
    r.feed(Frame(3.0, (a | d) & ~_bits("d4") | _bits("e4")))  # and made again: a move
    assert r.tick(3.0 + SETTLE + 0.1).played == ["d4-e4"]
    # A board put back while the service was down: the mark goes, the move is read.
    r = _restarted(pending)
    r.feed(Frame(0.0, a | d))
    r.tick(SETTLE + 0.1)
    assert r.pending.undone is None
    r.feed(Frame(1.0, (a | d) & ~_bits("d4") | _bits("e4")))
    assert r.tick(1.0 + SETTLE + 0.1).played == ["d4-e4"]


def test_resign_and_draw_buttons() -> None:
    h = Hands("kharbga", CHAIN)
    h.press("draw", "attacker")
    assert h.r.game.outcome is None
    h.press("draw", "defender")
    assert h.r.game.outcome is not None and h.r.game.outcome.reason == "agreement"
    h2 = Hands("kharbga", CHAIN)
    h2.press("resign", "defender")
    assert h2.r.game.outcome is not None and h2.r.game.outcome.winner == "attacker"
    # A hint asked after the end is refused in words, not silently dropped.
    update = h2.press("hint", "attacker")
    assert update.hint_requested is None
    assert update.status.endswith("(the game is over: there is no move to suggest)")


def test_colour_frames_wait_out_hands_and_catch_wrong_colours() -> None:
    h = Hands("kharbga", colour=True)
    h.unknown = h._bit("c3") | h._bit("c4") | h._bit("d3")
    h.put("c3", "a", hold=2.0)  # the hand hides the squares: nothing decided
    assert h.moves == [] and "error" not in h.leds.values()
    assert "not seen" not in h.last.status  # a hand passing is not named
    h.hold(1.5)  # ... but one that stays is: the players learn what the board waits for
    assert h.moves == [] and h.last.status == (
        "c3, d3, c4 not seen clearly (a hand, a reflection or something on the board?): "
        "the board is read once they are")
    h.unknown = h._bit("d3")  # one left: said of one
    h.t += 0.01
    h._feed()
    assert h.hold(0.2).status.startswith("d3 not seen clearly") and \
        h.last.status.endswith("the board is read once it is")
    h.unknown = 0
    h.t += 0.01
    h._feed()
    h.hold()
    assert h.moves == ["@c3"]
    h.put("e5", "d", hold=2.0)  # a Defender piece in the Attacker's turn
    assert h.moves == ["@c3"] and h.leds["e5"] == "error"
    h.lift("e5")
    h.put("e5", "a")
    assert h.moves == ["@c3", "@e5"]


@pytest.mark.parametrize("colour", [False, True])
def test_never_a_move_without_proof(colour: bool) -> None:
    # A piece appearing on the malha in the setting phase proves nothing.
    h = Hands("kharbga", colour=colour)
    h.put("d4", hold=3.0)
    assert h.moves == [] and h.leds.get("d4") == "error"


def test_cleared_board_puts_the_game_aside_and_setting_it_up_resumes_it() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    board = (h.a, h.d)
    for s in ("a2", "c2", "c3", "c4", "d2", "d3", "e4", "g1"):
        h.lift(s, hold=0.05)
    h.hold()
    assert h.r.game.moves == [] and len(h.r.saved) == 1
    # Set the old game up again: it is resumed, with its move.
    h.a, h.d = board
    h.t += 0.01
    h._feed()
    h.hold()
    assert [str(m) for m in h.r.game.moves] == ["d4-e4"]
    assert not h.r.saved and "error" not in h.leds.values()



def test_games_put_aside_resumed_and_finished_are_reported_in_updates() -> None:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    first = h.r.game
    board = (h.a, h.d)
    h.show(0, 0)  # cleared in the moving phase: put aside, a new game
    new = [u for u in h.updates if u.new_game]
    assert len(new) == 1 and new[0].saved == [first]
    assert new[0].finished == [] and new[0].resumed is None
    assert h.r.saved == (first,) and h.r.game is not first
    h.show(*board)  # set up again: resumed
    resumed = [u for u in h.updates if u.resumed is not None]
    assert len(resumed) == 1 and resumed[0].resumed is first and h.r.game is first
    assert not resumed[0].new_game and resumed[0].saved == [] and resumed[0].finished == []
    assert h.r.saved == ()
    h.press("resign", "defender")
    h.show(0, 0)  # a finished game cleared away: finished, not saved
    assert [u.finished for u in h.updates if u.finished] == [[first]]
    assert h.r.finished == (first,) and h.r.saved == ()


def test_a_long_lived_reconciler_need_not_keep_finished_games() -> None:
    h = Hands("kharbga", CHAIN, keep_finished=False)
    h.move("d4", "e4")
    first = h.r.game
    h.press("resign", "defender")
    h.show(0, 0)
    assert [u.finished for u in h.updates if u.finished] == [[first]]
    assert h.r.finished == ()


def test_saved_games_given_at_start_are_resumed_when_set_up() -> None:
    aside = Game.from_position("kharbga", CHAIN)
    aside.play("d4-e4")
    h = Hands("kharbga", saved=[aside])
    assert h.r.saved == (aside,)
    update = h.show(*aside.bitboards())
    assert h.r.game is aside and any(u.resumed is aside for u in h.updates)
    assert "error" not in update.leds.values() and h.r.saved == ()
    # Without it, the same board is just wrong.
    h2 = Hands("kharbga")
    h2.show(*aside.bitboards())
    h2.hold(DELAY)
    assert h2.r.game.moves == [] and "error" in h2.leds.values()


def test_a_declined_draw_is_no_longer_on_offer() -> None:
    h = Hands("kharbga", CHAIN)
    h.press("draw", "attacker")
    h.r.decline_draw()
    h.press("draw", "defender")  # a new offer, not an agreement
    assert h.r.game.outcome is None
    h.press("draw", "attacker")
    outcome = h.r.game.outcome
    assert outcome is not None and outcome.reason == "agreement"


def test_the_computers_placement_is_said_in_words() -> None:
    h = Hands("kharbga")
    place = next(m for m in h.r.game.legal_moves() if str(m) == "@c4")
    h.r.expect(place)
    update = h.hold()
    assert update.status == "Attacker (computer): make the lit move @c4 (set a soldier on c4)"


def test_the_computer_action_is_lit_and_only_it_is_accepted_until_withdrawn() -> None:
    h = Hands("kharbga", CHAIN)
    step = next(m for m in h.r.game.legal_moves() if str(m) == "d4-e4")
    h.r.expect(step)
    update = h.hold()
    assert h.r.expected == step
    assert update.leds.get("d4") == "hint" and update.leds.get("e4") == "hint"
    assert update.status == "Attacker (computer): make the lit move d4-e4"
    h.move("d4", "d5")  # another legal step: refused
    h.hold(DELAY)
    assert h.moves == [] and h.leds.get("d5") == "error"
    h.move("d5", "d4")
    h.r.expect(None)
    assert h.r.expected is None and "hint" not in h.hold().leds.values()
    h.move("d4", "d5")
    assert h.moves == ["d4-d5"]


@pytest.mark.parametrize("max_actions", [1, 2])
def test_max_actions_caps_the_run_read_from_one_reading(max_actions: int) -> None:
    settings = Settings(settle=SETTLE, error_delay=DELAY, max_actions=max_actions)
    h = Hands("kharbga", CHAIN, settings=settings)
    # a2xb2, b2xb3 in one reading: the soldier goes from a2 to b3 at once,
    # both captured pieces still standing.
    h.show(h.a & ~h._bit("a2") | h._bit("b3"), h.d)
    h.hold(DELAY)
    if max_actions == 2:
        assert h.moves == ["a2xb2", "b2xb3"]
        assert h.leds["c2"] == "capture" and h.leds["c3"] == "capture"
    else:
        assert h.moves == []
        assert h.leds["a2"] == "error" and h.leds["b3"] == "error"


@pytest.mark.parametrize("variant", ["kharbga-refuge", "khamousiyya"])
def test_the_exchange_button_is_refused_where_there_is_no_exchange(variant: str) -> None:
    pos = "......./......./......./...A.../.D...../......./A...... d m - 7"
    h = Hands(variant, pos)
    update = h.press("exchange", "defender")
    assert update.refused == f"the exchange is not a rule of {variant}"
    assert "exchange flag" not in h.hold().status
    h.move("b3", "b4")
    assert h.moves == ["b3-b4"]  # an ordinary step, no flag


def test_three_soldiers_set_at_once_are_said_to_be_one_too_many() -> None:
    """Legal squares, but a turn places two: the words say so, not that no
    soldier belongs there; taking one off records the other two."""
    h = Hands("kharbga")
    h.show(h._bit("a1") | h._bit("b1") | h._bit("g1"), 0)
    update = h.hold(DELAY + 0.1)
    assert h.moves == []
    assert update.status == ("a1, b1, g1: 3 soldiers set at once, but the Attacker has two "
                             "placements left in this turn; take 1 off")
    assert {h.leds[s] for s in ("a1", "b1", "g1")} == {"error"}
    h.show(h._bit("a1") | h._bit("b1"), 0)
    h.hold(DELAY)
    assert sorted(h.moves) == ["@a1", "@b1"]


def test_the_exchange_button_is_refused_in_the_setting_phase() -> None:
    """A press while soldiers are being set is refused in words, and not
    kept: the Defender's first step later is an ordinary one."""
    h = Hands("kharbga")
    h.put("a1", "a")
    h.put("b1", "a")
    update = h.press("exchange", "defender")
    assert update.refused == ("the exchange is asked with a step: there is none in the "
                              "setting phase")
    assert "exchange" not in h.hold().status
    h.put("a7", "d")
    assert h.moves == ["@a1", "@b1", "@a7"]
    assert not any(h.r._turn.flags)


def test_the_exchange_button_is_refused_in_a_leap_game() -> None:
    from controller.rules import new_game

    game = new_game("checkers")
    r = Reconciler(game=game)
    a, d = game.bitboards()
    r.feed(Frame(0.0, a | d))
    r.tick(0.5)
    update = r.feed(Button(1.0, "exchange", "attacker"))
    assert update.refused == "the exchange is not a rule of checkers"
    assert update.status == "Attacker to move (the exchange is not a rule of checkers)"


# d5xd4xd5 takes c4, then d6.
RETURNING = "DAAADDD/DAADAAA/ADDAAAD/DAD.AAA/DDADADA/ADADADD/ADDDDAD a m - 1"


def test_a_captured_piece_lifted_alone_is_not_a_chain_back_home() -> None:
    # Taking c4 off leaves the board the chain d5xd4xd5 would leave with d6
    # still to remove; but d5 never left its square: no move was made.
    h = Hands("kharbga", RETURNING)
    h.lift("c4", hold=DELAY + 1.0)
    assert h.moves == []
    assert h.leds.get("c4") == "error"
    assert "c4: put the Defender's soldier back (it is the Attacker's turn)" in h.last.status
    h.put("c4", "d")
    assert "error" not in h.leds.values()


def test_a_chain_back_home_is_read_when_its_soldier_moves() -> None:
    h = Hands("kharbga", RETURNING)
    h.move("d5", "d4")
    h.move("d4", "d5")
    h.lift("c4")
    h.lift("d6")
    assert h.moves == ["d5xd4", "d4xd5"]
    assert "error" not in h.leds.values()


def test_clearing_the_board_after_the_end_lights_nothing_and_keeps_the_end_in_words() -> None:
    # Once the game is over the status asks for the board to be cleared: a
    # soldier taken off is that, not a piece to put back. A piece set down
    # where none stood is still lit, and the empty board starts a new game.
    h = Hands("kharbga", "/".join(["......."] * 5) + "/A....../DA..... d m - 2")
    end = "Game over: Defender wins (blocked on the first move). Clear the board for a new game"
    assert h.last.status == end
    for square in ("b1", "a2"):
        u = h.lift(square, hold=2 * DELAY)
        assert u.status == end and u.leds == {}
    u = h.put("d4", hold=2 * DELAY)
    assert u.leds == {"d4": "error"} and "d4: no soldier belongs here" in u.status
    h.lift("d4")
    u = h.lift("a1", hold=2 * DELAY)
    assert u.status == "Attacker: place a soldier (1 of 2)" and h.r.game.ply == 0


def test_two_undos_in_the_setting_phase_say_every_soldier_taken_back() -> None:
    # Two turns taken back before the board is put right (two presses, or
    # one Undo against the computer): all four soldiers are undo's; before,
    # "c3, e3, c5, e5: 4 soldiers set at once, but the Attacker has two
    # placements left in this turn; take 2 off", as if just set down.
    h = Hands("kharbga")
    for square, side in (("c3", "a"), ("e3", "a"), ("c5", "d"), ("e5", "d")):
        h.put(square, side)
    h.press("undo")
    h.press("undo")
    u = h.hold(DELAY + 0.5)
    assert h.moves == []
    assert u.status == "c3, e3, c5, e5: taken back by undo; take them off"
    for square in ("c3", "e3", "c5", "e5"):
        u = h.lift(square)
    assert u.status == "Attacker: place a soldier (1 of 2)" and u.leds == {}


def test_an_undo_put_back_one_square_at_a_time_takes_back_nothing_more() -> None:
    # Soldiers stepping back and forth repeat positions: after the undo of
    # d3xd4, d3's soldier set back first makes the board (by occupancy) the
    # one before the Defender's d4-c4.  That is the undo's board half put
    # back, not a takeback of d4-c4 too.
    h = Hands("kharbga", "ADAAAAD/DDDAA.A/.A..AA./AAD..DA/DD.A..A/DDA.DDD/AADADAD d m - 10 "
                         "np=0 off=3,0,0,7,0,0")
    for frm, to in (("c4", "d4"), ("e6", "f6"), ("d4", "c4"), ("d3", "d4")):
        h.move(frm, to)
    h.lift("c4")  # d3xd4 captured c4
    assert h.moves[-4:] == ["c4-d4", "e6-f6", "d4-c4", "d3xd4"]
    h.press("undo")
    h.hold(DELAY + 0.1)
    assert h.moves[-3:] == ["c4-d4", "e6-f6", "d4-c4"]
    status = h.put("d3", "a", hold=DELAY + 0.1).status
    assert h.moves[-3:] == ["c4-d4", "e6-f6", "d4-c4"]
    assert status == ("c4: taken back by undo; put the Defender's soldier back; "
                      "d4: taken back by undo; take it off")
    h.put("c4", "d")
    assert h.lift("d4", hold=DELAY + 0.1).status == "Attacker to move"
    assert h.moves[-3:] == ["c4-d4", "e6-f6", "d4-c4"]
    assert "error" not in h.leds.values()
