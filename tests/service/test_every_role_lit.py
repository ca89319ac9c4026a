"""Every LED role is lit by something a person does on the board.

The role sets of ``test_lights_of.py`` force a decision on each role's
legend, but a role nothing lights (named in ``controller/board/leds.py``,
never given by ``lights.leds`` or the service) would pass them. Here each
role has a scenario that lights it, played through the reconciler as the
hands of ``tests/reconcile/test_reconciler.py`` play (the service's own
role, ``king``, through the service on the simulated board); a role added
to ``ROLES`` without one fails the first test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fake_clock import FakeClock as Clock

from controller.board.leds import ROLES
from controller.rules import game_from_position
from controller.service.board import BoardService
from controller.service.config import Config
from tests.reconcile.test_reconciler import CHAIN, DELAY, Hands

# kharbga, moving phase: the Defender's b3, the Attacker's d4 and a1.
EXCHANGE = "......./......./......./...A.../.D...../......./A...... d m - 7"
# checkers: the Attacker's man on b6 leaps c7 and is crowned on d8.
CROWNING = ".......D/..D...../.A....../......../......../......../......../........ a m - 1 np=0"

Lit = dict[str, str]


def _setup(tmp_path: Path) -> Lit:
    return Hands("khamousiyya").leds  # the first placement goes next to the malha


def _lifted(tmp_path: Path) -> Lit:
    h = Hands("kharbga", CHAIN)
    h.lift("d4")
    return h.leds


_destination = _lifted


def _last_move(tmp_path: Path) -> Lit:
    h = Hands("kharbga", CHAIN)
    h.move("d4", "e4")
    assert h.moves == ["d4-e4"]
    return h.leds


def _hint(tmp_path: Path) -> Lit:
    h = Hands("kharbga", CHAIN)
    h.r.set_hint(["d4", "e4"])
    return h.hold().leds


def _capture(tmp_path: Path) -> Lit:
    h = Hands("kharbga", CHAIN)
    h.move("a2", "b2")  # takes c2, and b2 must go on to take c3
    assert h.moves == ["a2xb2"]
    return h.leds


_continue = _capture


def _exchange_request(tmp_path: Path) -> Lit:
    h = Hands("kharbga", EXCHANGE)
    h.press("exchange", "defender")
    h.move("b3", "b4")
    assert h.moves == ["b3-b4="]
    return h.leds


def _exchange(tmp_path: Path) -> Lit:
    h = Hands("kharbga", EXCHANGE)
    for side, frm, to in (("defender", "b3", "b4"), ("attacker", "a1", "a2"),
                          ("defender", "b4", "b5"), ("attacker", "d4", "d3"),
                          ("defender", "b5", "b6")):
        h.press("exchange", side)
        h.move(frm, to)
    assert h.moves == ["b3-b4=", "a1-a2=", "b4-b5=", "d4-d3=", "b5-b6="]
    return h.leds  # b6, a2 and d3 to take off


def _error(tmp_path: Path) -> Lit:
    h = Hands("kharbga", CHAIN)
    h.put("a7", hold=DELAY + 0.5)  # a soldier where none belongs
    return h.leds


def _king(tmp_path: Path) -> Lit:
    clock = Clock(500.0)
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2),
                           clock=clock)
    service.new_game("checkers", "Amina", "Driss", position=CROWNING)
    game = game_from_position("checkers", CROWNING)
    for token in ("b6xd8", "h8-g7"):  # crowned, then a move elsewhere
        game.play(token)
        a, d = game.bitboards()
        service.set_sim_occupancy("".join("1" if (a | d) >> i & 1 else "0"
                                          for i in range(game.geometry.size)))
        clock.t += 0.1
        service.tick()
    leds: Lit = service.state()["leds"]
    service.close()
    return leds


SCENARIOS: dict[str, tuple[Callable[[Path], Lit], set[str]]] = {
    "king": (_king, {"d8"}),
    "setup": (_setup, {"c4", "d3", "d5", "e4"}),
    "last-from": (_last_move, {"d4"}),
    "last-to": (_last_move, {"e4"}),
    "hint": (_hint, {"d4", "e4"}),
    "destination": (_destination, {"d5", "e4"}),
    "continue": (_continue, {"b2"}),
    "exchange-request": (_exchange_request, {"b4"}),
    "lifted": (_lifted, {"d4"}),
    "exchange": (_exchange, {"b6", "a2", "d3"}),
    "capture": (_capture, {"c2"}),
    "error": (_error, {"a7"}),
}


def test_every_role_has_a_scenario_that_lights_it() -> None:
    missing = [role for role in ROLES if role not in SCENARIOS]
    assert not missing, (
        f"no scenario lights {missing}: a role named in controller/board/leds.py must be lit "
        "by controller/reconcile/lights.py (or the service) and get a scenario here")
    assert set(SCENARIOS) == set(ROLES)


@pytest.mark.parametrize("role", list(SCENARIOS))
def test_the_role_is_lit_where_it_belongs(role: str, tmp_path: Path) -> None:
    scenario, squares = SCENARIOS[role]
    leds = scenario(tmp_path)
    assert {s for s, r in leds.items() if r == role} == squares, leds
