"""The WS2812 chain under a leap game's board, at the SPI seam: a game
played on the 37-point board and on the 8x8 board (all squares, or the dark
ones only) lights the destinations of a lifted soldier, the soldiers a
capture took, the soldier that must continue, and the soldiers a huff may
take, each on the LED under its point in the mapping's chain order."""

from __future__ import annotations

import json
import random

import pytest
from gpio_fakes import FakeSPI, decode

from controller.board.leds import role_colours
from controller.drivers.mapping import BoardMapping
from controller.drivers.ws2812 import LedConfig, SquareLeds
from controller.reconcile.bench import random_game
from controller.reconcile.replay import replay
from controller.reconcile.simulator import simulate_log

pytestmark = pytest.mark.timeout(120)

BOARDS = [
    ("sixteen-soldiers", BoardMapping.for_board("37-point"), 37),
    ("hewakam-keliya", BoardMapping.for_board("37-point", led_serpentine=False), 37),
    ("checkers", BoardMapping.for_board("8x8"), 64),
    ("english-draughts", BoardMapping.for_board("8x8", dark_only=True), 32),
]
SERPENTINE = {"sixteen-soldiers": True, "hewakam-keliya": False, "checkers": True,
              "english-draughts": True}


def chain_order(names: list[str], dark_only: bool, serpentine: bool) -> list[str]:
    """The points in the order the strip runs under them, as hardware.md
    says it: rank by rank from a1, every other rank back when it snakes
    (37-point: a1 c1 e1, d2 c2 b2, a3 .. e3, ...), the light squares of a
    dark-only 8x8 board skipped."""
    ranks: dict[int, list[str]] = {}
    for name in names:
        if dark_only and (ord(name[0]) - ord("a") + int(name[1:])) % 2 == 0:
            continue  # a light square (a1, file 0 and rank 1, is dark)
        ranks.setdefault(int(name[1:]), []).append(name)
    order: list[str] = []
    for i, rank in enumerate(sorted(ranks)):
        run = sorted(ranks[rank])
        order += run[::-1] if serpentine and i % 2 else run
    return order


@pytest.mark.parametrize(("variant", "mapping", "leds"), BOARDS,
                         ids=[f"{v}-{n}" for v, _m, n in BOARDS])
def test_a_leap_game_lights_its_roles_under_their_points(
        variant: str, mapping: BoardMapping, leds: int) -> None:
    game = random_game(variant, random.Random(1), 60)
    result = replay(simulate_log(game, seed=1).splitlines(), variant, trace=True)
    config = LedConfig(brightness=1.0, max_current_ma=0)  # colours exactly as styled
    spi = FakeSPI()
    chain = SquareLeds(config, mapping, spi)
    names = mapping.layout.names
    order = chain_order(list(names), leds == 32, SERPENTINE[variant])
    assert len(order) == leds
    seen: set[str] = set()
    huffs = 0
    try:
        for line in result.trace:
            step = json.loads(line)
            chain.show(step["leds"], step["t"])
            pixels = decode(spi.writes[-1], config.pixel_order)
            assert len(pixels) == leds
            want = [(0, 0, 0)] * leds
            for name, rgb in role_colours(step["leds"], step["t"], config.roles, 1.0).items():
                if name in order:  # a light square of the dark-only board has none
                    want[order.index(name)] = rgb
            assert pixels == want, step
            seen |= set(step["leds"].values())
            # The soldiers the huff may take, lit to remove (one already off
            # is told "huff: b4 taken off" and lit no more).
            if "huff: remove" in step["status"]:
                lit = [n for n, role in step["leds"].items() if role == "capture"]
                chain.show(step["leds"], 0.0)  # a blinking role's lit half
                pixels = decode(spi.writes[-1], config.pixel_order)
                red = config.roles["capture"].colour
                assert lit and all(pixels[order.index(n)] == red for n in lit)
                huffs += 1
    finally:
        chain.close()
    assert {"lifted", "destination", "capture", "continue", "last-to"} <= seen
    assert huffs > 0 or variant != "sixteen-soldiers"


def test_a_point_s_led_follows_the_chain_order_not_the_point_order() -> None:
    """d2 is point 5 of the 37-point board but LED 3 of its serpentine chain
    (the second row runs back: d2 c2 b2)."""
    mapping = BoardMapping.for_board("37-point")
    d2 = mapping.parse("d2")
    assert (d2, mapping.led_of_square(d2)) == (5, 3)
    spi = FakeSPI()
    config = LedConfig(brightness=1.0, max_current_ma=0)
    with SquareLeds(config, mapping, spi) as chain:
        chain.show({"d2": "destination"}, 0.0)
        pixels = decode(spi.writes[-1], config.pixel_order)
    lit = [i for i, p in enumerate(pixels) if p != (0, 0, 0)]
    assert lit == [3] and pixels[3] == config.roles["destination"].colour
