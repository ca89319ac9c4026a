"""Which lights each variant's game can show, and in what words: what the
page's legend lists (``state.lights``) and whether it shows an Exchange
button (``state.exchange``), from the variants' own rules."""

from __future__ import annotations

import pytest

from controller.board.leds import STYLES
from controller.rules import LEAP_VARIANTS, VARIANTS, find_any_variant
from controller.service.boardview import has_exchange, lights_of

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
