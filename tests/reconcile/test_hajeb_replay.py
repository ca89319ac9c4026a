"""H'ajeb on the physical board: the ``hajeb`` button declares and
rescinds it; long moves and a capture by two soldiers are recognised from
a sensor log (occupancy only, with the pieces lifted one at a time)."""

from __future__ import annotations

import json

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler, Settings
from controller.reconcile.replay import replay
from controller.rules import Game, find_variant
from controller.rules.leap_factory import format_any_options

HAJEB = find_variant("sabouiyya").with_options(hajeb=True)
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"
SETTINGS = Settings(settle=0.25, error_delay=1.0)
NAMES = Game.from_position(HAJEB, WALL).geometry.point_names


class Log:
    """A sensor log written as a person plays: lift, set down, press."""

    def __init__(self, position: str) -> None:
        a, d = Game.from_position(HAJEB, position).bitboards()
        self.occ = a | d
        self.t = 0.0
        self.lines = [json.dumps({"t": 0.0, "board": "5x5", "sensor": "occupancy"})]
        self._frame()

    def _frame(self) -> None:
        self.t += 0.5
        occ = "".join("1" if self.occ >> i & 1 else "0" for i in range(25))
        self.lines.append(json.dumps({"t": round(self.t, 2), "occ": occ}))

    def lift(self, square: str) -> Log:
        self.occ &= ~(1 << NAMES.index(square))
        self._frame()
        return self

    def put(self, square: str) -> Log:
        self.occ |= 1 << NAMES.index(square)
        self._frame()
        return self

    def move(self, frm: str, to: str, *taken: str) -> Log:
        self.lift(frm).put(to)
        for square in taken:
            self.lift(square)
        return self

    def press(self, side: str) -> Log:
        self.t += 0.5
        self.lines.append(json.dumps({"t": self.t, "button": "hajeb", "side": side}))
        return self


def test_a_game_with_hajeb_replays_from_its_sensor_log() -> None:
    log = Log(WALL)
    log.press("attacker")  # refused: only the Defender declares
    log.press("defender")  # declared
    log.move("e1", "c3")  # a long diagonal move
    log.move("e5", "e4")
    log.move("b3", "a4", "a3", "b4")  # a4 takes a3 and b4 ...
    log.move("b2", "b5", "c5")  # ... and another soldier takes c5
    log.press("defender")  # rescinded
    log.move("e4", "e5")
    log.move("a4", "a3")  # an ordinary step again
    result = replay(log.lines, HAJEB, SETTINGS, trace=True, start=WALL)
    record = str(result.records[0])
    assert '[Options "hajeb=true"]' in record
    # Numbered on from the position's turn 10, after the 12 setting turns.
    assert "22. hajeb 23. e1-c3 24. e5-e4 25. b3xa4 b2xb5 26. rescind e4-e5 27. a4-a3 *" in record
    statuses = [json.loads(line)["status"] for line in result.trace]
    assert any("only the Defender declares or rescinds H'ajeb" in s for s in statuses)
    assert any(s.endswith("H'ajeb declared") for s in statuses)
    assert result.reconciler is not None
    assert result.reconciler.game.hajeb == "off"


def test_a_press_without_a_blockade_is_refused_with_its_reason() -> None:
    game = Game.from_position(HAJEB, "..D../.D.../D..../...../AAAAA d m - 5")
    r = Reconciler(game=game, settings=SETTINGS)
    a, d = game.bitboards()
    r.feed(Frame(0.0, a | d))
    r.tick(0.5)
    update = r.feed(Button(1.0, "hajeb", "defender"))
    assert update.played == [] and "no blockade" in str(update.refused)
    assert "H'ajeb: the Defender has no blockade" in update.status
    assert game.hajeb == "off"


def test_a_press_while_the_board_settles_counts_for_the_position_it_settles_to() -> None:
    game = Game.from_position(HAJEB, WALL)
    r = Reconciler(game=game, settings=SETTINGS)
    a, d = game.bitboards()
    bit = {s: 1 << NAMES.index(s) for s in ("e1", "c3", "b3", "a4", "a3", "b4")}
    r.feed(Frame(0.0, a | d))
    r.tick(0.5)
    played = r.feed(Button(1.0, "hajeb", "defender")).played
    assert played == ["hajeb"]
    occ = (a | d) & ~bit["e1"] | bit["c3"]
    r.feed(Frame(2.0, occ))  # e1-c3 set down; the Defender presses at once
    assert r.feed(Button(2.1, "hajeb", "defender")).played == []
    update = r.tick(2.5)  # settled: e1-c3, then the press rescinds
    assert update.played == ["e1-c3", "rescind"]
    assert game.hajeb == "off" and game.to_move == "defender"


def test_rescinding_by_the_button_while_the_attacker_captures_ends_its_turn() -> None:
    game = Game.from_position(HAJEB, WALL)
    r = Reconciler(game=game, settings=SETTINGS)
    a, d = game.bitboards()
    bit = {s: 1 << NAMES.index(s) for s in ("e1", "c3", "b3", "a4", "a3", "b4", "e5", "e4")}
    occ = a | d
    r.feed(Frame(0.0, occ))
    r.tick(0.5)
    r.feed(Button(1.0, "hajeb", "defender"))
    t = 1.0
    for gone, new in (("e1", "c3"), ("e5", "e4"), ("b3", "a4")):
        occ = occ & ~bit[gone] | bit[new]
        t += 1.0
        r.feed(Frame(t, occ))
        r.tick(t + 0.5)
    occ &= ~(bit["a3"] | bit["b4"])
    r.feed(Frame(t + 1.0, occ))
    r.tick(t + 1.5)
    assert game.any_soldier_continues and str(game.last_move) == "b3xa4"
    update = r.feed(Button(t + 2.0, "hajeb"))  # a shared button, on the Attacker's turn
    assert update.played == ["rescind"]
    assert (game.to_move, game.hajeb, game.chain_square) == ("defender", "off", None)


def test_a_new_game_from_the_board_keeps_the_hajeb_option() -> None:
    """The ``new`` button (and a cleared board) start another game of the
    variant being played, options included; after a resumed game, its own."""
    plain = Game.from_position(find_variant("sabouiyya"), "DDDAD/DDDAA/DA.AA/AADDA/DAADA a m - 2")
    plain.play(plain.legal_moves()[0])
    game = Game.from_position(HAJEB, WALL)
    r = Reconciler(game=game, settings=SETTINGS, saved=[plain])
    a, d = game.bitboards()
    r.feed(Frame(0.0, a | d))
    r.tick(0.5)
    update = r.feed(Button(1.0, "new", None))
    assert update.new_game and r.game is not game
    assert format_any_options(r.game.variant) == "hajeb=true"
    assert r.game.phase == "setting" and not r.game.moves
    # The plain game set up on the board resumes; a new game then is plain.
    a, d = plain.bitboards()
    r.feed(Frame(2.0, a | d))
    assert r.tick(3.0).resumed is plain
    assert r.feed(Button(4.0, "new", None)).new_game
    assert format_any_options(r.game.variant) == ""
    # A cleared board and a H'ajeb game's placements: the record keeps the option.
    log = Log(WALL)
    log.lines.append(json.dumps({"t": log.t + 0.5, "button": "new"}))
    log.t += 0.5
    log.occ = 0
    log._frame()
    log.put("c2")
    log.put("a1")
    result = replay(log.lines, HAJEB, SETTINGS, start=WALL)
    assert '[Options "hajeb=true"]' in str(result.records[-1])
    assert str(result.records[-1]).rstrip().endswith("1. @c2 @a1 *")
