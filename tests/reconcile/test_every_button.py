"""Every button does something a player can see: a press of each, in a
game where it applies, changes the game or the status line. A button added
to ``BUTTONS`` (controller/board/events.py) that the reconciler ignores
would pass the protocol, firmware and GPIO tests, which only carry it; it
fails here until it has a scenario (docs/reconciler.md, "Buttons")."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_reconciler import CHAIN, DELAY, Hands

from controller.board.events import BUTTONS, Button, Frame
from controller.reconcile.reconciler import Reconciler, Settings
from controller.rules import Game
from controller.rules.variants import find_variant

# sabouiyya with H'ajeb: the Defender's soldiers walled in (tests/reconcile/test_hajeb_replay.py)
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"


def _hint() -> str:
    h = Hands("kharbga", CHAIN)
    update = h.press("hint", "attacker")
    return f"the engine asked for the {update.hint_requested}'s move"  # None: not asked


def _exchange() -> str:
    h = Hands("kharbga", "......./......./......./...A.../.D...../......./A...... d m - 7")
    h.press("exchange", "defender")
    return h.hold().status


def _undo() -> str:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    h.press("undo")
    assert h.moves == []
    return h.hold(DELAY + 0.1).status


def _new() -> str:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    h.press("new")
    assert h.r.game.moves == [] and h.r.game.phase == "setting"
    return h.hold(DELAY + 0.1).status


def _resign() -> str:
    h = Hands("kharbga", CHAIN)
    h.press("resign", "defender")
    outcome = h.r.game.outcome
    assert outcome is not None and outcome.winner == "attacker"
    return h.hold().status


def _draw() -> str:
    h = Hands("kharbga", CHAIN)
    h.press("draw", "attacker")
    h.press("draw", "defender")
    outcome = h.r.game.outcome
    assert outcome is not None and outcome.winner is None
    return h.hold().status


def _hajeb() -> str:
    game = Game.from_position(find_variant("sabouiyya").with_options(hajeb=True), WALL)
    r = Reconciler(game=game, settings=Settings(settle=0.25, error_delay=DELAY))
    a, d = game.bitboards()
    r.feed(Frame(0.0, a | d))
    r.tick(0.5)
    update = r.feed(Button(1.0, "hajeb", "defender"))
    assert update.played == ["hajeb"] and game.hajeb != "off"
    return update.status


SCENARIOS: dict[str, tuple[Callable[[], str], str]] = {
    "hint": (_hint, "the engine asked for the attacker's move"),
    "exchange": (_exchange, "exchange flag raised"),
    "undo": (_undo, "taken back by undo"),
    "new": (_new, "placements left in this turn"),  # the board still the old game's
    "resign": (_resign, "resign"),
    "draw": (_draw, "draw"),
    "hajeb": (_hajeb, "H'ajeb declared"),
}


def test_every_button_has_a_scenario() -> None:
    missing = [b for b in BUTTONS if b not in SCENARIOS]
    assert not missing, (
        f"no scenario presses {missing}: a button of controller/board/events.py BUTTONS needs "
        "its action in Reconciler._button and a scenario here (docs/reconciler.md, 'Buttons')")
    assert set(SCENARIOS) == set(BUTTONS)


@pytest.mark.parametrize("button", list(SCENARIOS))
def test_the_press_is_seen(button: str) -> None:
    scenario, words = SCENARIOS[button]
    status = scenario()
    assert words.lower() in status.lower(), status
