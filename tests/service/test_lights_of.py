"""Which lights each variant's game can show, and in what words: what the
page's legend lists (``state.lights``) and whether it shows an Exchange
button (``state.exchange``), from the variants' own rules."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fake_clock import FakeClock

from controller.board.leds import DEFAULT_STYLES, MEANINGS, ROLES, STYLES
from controller.rules import LEAP_VARIANTS, VARIANTS, Game, find_any_variant
from controller.service.board import BoardService
from controller.service.boardview import has_exchange, lights_of
from controller.service.config import Config

ALL = [v.name for v in (*VARIANTS, *LEAP_VARIANTS)]
CROWNING = {"english-draughts", "checkers"}  # the draughts games on 8x8
HUFFING = {"sixteen-soldiers"}
MUST_CHAIN = {"kharbga", "kharbga-refuge", "sixteen-soldiers", "english-draughts"}


def test_every_variant_is_covered() -> None:
    assert {"kharbga", "kharbga-refuge", "khamousiyya", "sabouiyya", "sixteen-soldiers",
            "hewakam-keliya", "english-draughts", "checkers"} == set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_the_lights_a_variant_can_show(name: str) -> None:
    variant = find_any_variant(name)
    lights = lights_of(variant)
    assert has_exchange(variant) == (name == "kharbga")
    assert ("exchange" in lights) == ("exchange-request" in lights) == (name == "kharbga")
    assert ("king" in lights) == (name in CROWNING)
    # The others always, in the legend's order.
    assert list(lights) == [s for s in STYLES if s in lights]
    assert set(STYLES) - {"king", "exchange", "exchange-request"} <= set(lights)
    assert lights["capture"] == ("captured (or huffed): remove this piece" if name in HUFFING
                                 else "captured: remove this piece")
    assert lights["continue"] == ("this soldier must capture again" if name in MUST_CHAIN
                                  else "this soldier may capture again (or pass)")


KHARBGA_FAMILY = [v.name for v in VARIANTS]


@pytest.mark.parametrize("name", KHARBGA_FAMILY)
def test_the_legend_lists_only_the_lights_of_the_games_phase(name: str) -> None:
    variant = find_any_variant(name)
    every = lights_of(variant)
    setting, moving = lights_of(variant, "setting"), lights_of(variant, "moving")
    # "The next soldier may be set here" is a setting-phase light only; no
    # step, capture or exchange is lit while the soldiers are set.
    assert "setup" in setting and "setup" not in moving and "setup" in every
    for look in ("last-from", "last-to", "destination", "continue", "capture"):
        assert look in moving and look not in setting
    assert set(setting) | set(moving) == set(every)
    for look in ("hint", "lifted", "error"):
        assert look in setting and look in moving
    # Every look is decided for the setting phase: a new one is either
    # lit while the soldiers are set or listed as never lit then.
    assert set(setting) == SETTING_LOOKS, (
        f"the setting phase's legend lists {sorted(set(setting) - SETTING_LOOKS)} and not "
        f"{sorted(SETTING_LOOKS - set(setting))}: a light the setting phase never lights goes "
        "in _NOT_WHILE_SETTING (controller/service/boardview.py); one it lights, in "
        "SETTING_LOOKS here")


# The looks the Kharbga family's setting phase lights.
SETTING_LOOKS = {"setup", "hint", "hint-to", "lifted", "error"}


def test_every_light_is_decided_for_the_end_of_a_game_and_for_a_piece_in_hand() -> None:
    # Two sets of roles the service keeps besides the setting phase's: the
    # lights a game over can still show (its legend lists only those), and
    # the lights on while the board is rightly not the position (a piece
    # in the hand, one to take off or set out: the board's check that it
    # matches the game waits). A new role is put in or out of each.
    from controller.service.boardview import _AFTER_THE_END
    from controller.service.hardware import _IN_HAND

    for kept, left, where in (
            (_AFTER_THE_END, NOT_AFTER_THE_END, "_AFTER_THE_END (controller/service/boardview.py)"),
            (_IN_HAND, NOT_IN_HAND, "_IN_HAND (controller/service/hardware.py)")):
        assert not kept & left
        assert kept | left == set(ROLES), (
            f"decide {sorted(set(ROLES) - kept - left)}: in {where}, or in the list of "
            "those left out here")


# The roles a game over never lights, and those with which the board
# matches the game's position.
NOT_AFTER_THE_END = {"setup", "last-from", "last-to", "hint", "destination", "continue",
                     "exchange-request", "lifted"}
NOT_IN_HAND = {"king", "last-from", "last-to", "hint", "continue", "exchange-request", "error"}


def test_every_light_has_a_colour_a_rank_and_words() -> None:
    # A role is ranked (ROLES), coloured (DEFAULT_STYLES) and worded
    # (MEANINGS) in controller/board/leds.py: the board shows its colour,
    # the page's legend its words.
    assert set(STYLES) == set(ROLES) | {"hint-to"}
    for look in STYLES:
        assert look in DEFAULT_STYLES, (
            f"light {look!r} has no colour: add it to DEFAULT_STYLES in controller/board/leds.py")
        assert look in MEANINGS, (
            f"light {look!r} has no words for the page's legend: add them to MEANINGS in "
            "controller/board/leds.py")
    assert not set(DEFAULT_STYLES) - set(STYLES), (
        f"DEFAULT_STYLES colours {sorted(set(DEFAULT_STYLES) - set(STYLES))}, which are not "
        "in ROLES (controller/board/leds.py): no square is ever given them")


@pytest.mark.parametrize("name", [v.name for v in LEAP_VARIANTS])
def test_a_leap_game_lists_setting_the_board_up_only_before_its_first_move(name: str) -> None:
    variant = find_any_variant(name)
    assert "setup" in lights_of(variant, "moving", started=False)
    assert "setup" not in lights_of(variant, "moving", started=True)


def test_the_services_legend_follows_the_game_from_setting_to_moving(tmp_path: Path) -> None:
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                                  variant="kharbga"), clock=FakeClock(1000.0))
    try:
        assert "setup" in service.state()["lights"]
        game = Game.new("kharbga")
        rng = random.Random(5)
        while game.phase != "moving":
            game.play(rng.choice(game.legal_moves()))
        service.new_game("kharbga", None, None, game.position(), None)
        lights = service.state()["lights"]
        assert "setup" not in lights and "capture" in lights
    finally:
        service.close()


@pytest.mark.parametrize("name", ALL)
def test_after_the_end_the_legend_lists_only_what_the_end_lights(name: str) -> None:
    # Once the game is over the reconciler lights no step, destination,
    # chain, hint, request or setting (controller/reconcile/present.py):
    # only a king, the last turn's captures still standing, and a piece
    # out of place.
    variant = find_any_variant(name)
    over = lights_of(variant, "moving", started=True, over=True)
    assert "capture" in over and "error" in over
    assert ("king" in over) == (name in CROWNING)
    assert ("exchange" in over) == has_exchange(variant)
    # A game resigned while its soldiers are set: nothing was captured.
    assert set(lights_of(variant, "setting", over=True)) <= set(lights_of(variant, "setting"))
    for phase in ("setting", "moving"):
        over = lights_of(variant, phase, started=True, over=True)
        for look in ("setup", "last-from", "last-to", "hint", "hint-to", "destination",
                     "continue", "exchange-request", "lifted"):
            assert look not in over, (name, phase, look)
        # The same words as while the game went on.
        playing = lights_of(variant)
        assert all(playing[look] == words for look, words in over.items())


def test_the_services_legend_after_a_resignation(tmp_path: Path) -> None:
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                                  variant="kharbga"), clock=FakeClock(1000.0))
    try:
        game = Game.new("kharbga")
        rng = random.Random(7)
        while game.phase != "moving":
            game.play(rng.choice(game.legal_moves()))
        service.new_game("kharbga", None, None, game.position(), None)
        assert "destination" in service.state()["lights"]
        service.press("resign", "attacker")
        state = service.state()
        assert state["outcome"] is not None
        lights = state["lights"]
        assert "destination" not in lights and "last-to" not in lights
        assert "hint" not in lights and "capture" in lights and "error" in lights
        # Whatever the board lights after the end, the legend lists.
        assert set(state["leds"].values()) <= set(lights)
    finally:
        service.close()
