"""A position read from a string is settled as the turn that led to it
would have settled it: the last position of a game drawn or adjudicated by
its no-progress or turn limit loads as ended, with the same outcome, on
both Kharbga cores and in the leap games; the position a turn before it
still loads as a game in play."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

import pytest

from controller.rules import Game, accel, find_variant
from controller.rules.leap import LeapGame
from controller.rules.leap_variants import find_leap_variant
from controller.rules.moves import Termination
from controller.rules.variants import Variant

CORES = ("pure", "compiled")
G = TypeVar("G", Game, LeapGame)


def _core(core: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if core == "compiled" and not accel.AVAILABLE:
        pytest.skip("the compiled core is not built")
    monkeypatch.setenv("KHARBGA_PURE", "1" if core == "pure" else "0")


def _ended_by(new: Callable[[], G], reason: Termination, tries: int = 60) -> tuple[G, str]:
    """A random game (``new()`` and random legal moves) that ended by
    ``reason``, and the position before its last action."""
    for seed in range(tries):
        rng = random.Random(seed)
        g = new()
        before = g.position()
        while g.outcome is None:
            before = g.position()
            moves = g.legal_moves()
            g.play(moves[rng.randrange(len(moves))])
        if g.outcome.reason == reason.value:
            return g, before
    raise AssertionError(f"no random game of {tries} ended by {reason.value}")


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize(
    ("variant", "reason"),
    [
        (find_variant("kharbga"), Termination.NO_PROGRESS),
        (find_variant("kharbga-refuge"), Termination.NO_PROGRESS),
        # sabouiyya with a short turn limit (the variant's own is 2,500 turns)
        (replace(find_variant("sabouiyya"), turn_limit=60), Termination.TURN_LIMIT),
    ],
    ids=["kharbga-np", "refuge-np", "sabouiyya-turns"],
)
def test_the_last_position_of_a_game_ended_by_a_limit_loads_as_ended(
    core: str, variant: Variant, reason: Termination, monkeypatch: pytest.MonkeyPatch
) -> None:
    _core(core, monkeypatch)
    g, before = _ended_by(lambda: Game.new(variant), reason)
    assert (core == "compiled") == (type(g).__name__ == "CompiledGame")
    loaded = Game.from_position(variant, g.position())
    assert loaded.outcome == g.outcome, g.position()
    assert loaded.legal_moves() == [] and loaded.raw_moves() == []
    # A turn earlier the game is in play, and its last action ends it alike.
    earlier = Game.from_position(variant, before)
    assert earlier.outcome is None, before
    earlier.play(str(g.last_move))
    assert earlier.outcome == g.outcome and earlier.position() == g.position()


@pytest.mark.parametrize("core", CORES)
def test_the_counter_at_its_limit_ends_the_game_and_one_below_does_not(
    core: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Level material at the no-progress limit: adjudicated a draw."""
    _core(core, monkeypatch)
    v = find_variant("kharbga")
    text = "ADADADA/DADADAD/DADADAD/ADA.ADA/DADADAD/DADADAD/ADADADA a m - 1"
    g = Game.from_position(v, text + " np=60")
    assert g.outcome is not None and g.outcome.reason == Termination.NO_PROGRESS.value
    assert g.outcome.winner is None and g.legal_moves() == []
    assert Game.from_position(v, text + " np=59").outcome is None


@pytest.mark.parametrize(
    ("name", "reason", "limit"),
    [
        ("sixteen-soldiers", Termination.NO_PROGRESS, {}),
        ("checkers", Termination.NO_PROGRESS, {}),
        ("hewakam-keliya", Termination.TURN_LIMIT, {"turn_limit": 40}),
    ],
)
def test_leap_games_ended_by_a_limit_load_as_ended(
    name: str, reason: Termination, limit: dict[str, int]
) -> None:
    variant = replace(find_leap_variant(name), **limit)
    g, before = _ended_by(lambda: LeapGame.new(variant), reason)
    loaded = LeapGame.from_position(variant, g.position())
    assert loaded.outcome == g.outcome and loaded.legal_moves() == [], g.position()
    earlier = LeapGame.from_position(variant, before)
    assert earlier.outcome is None, before
    earlier.play(str(g.last_move))
    assert earlier.outcome == g.outcome
