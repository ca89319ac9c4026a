"""The live service on a Pico board of a leap game: the firmware (in
MicroPython, on simulated switches wired as the board's mapping says)
talks over a pty to the serial backend the service opens for the 37-point
board and for the 8x8 board (all 64 squares, or the dark ones only).  A
move made on the switches is recorded, and the lights the service asks for
reach the LEDs under the right points."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pico_rig import Rig, occupancy, wait_for

from controller.rules import new_game
from controller.service.config import load_config
from controller.service.hardware import open_backend

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def rig(request: pytest.FixtureRequest, tmp_path: Path, micropython: str) -> Iterator[Rig]:
    variant, table = request.param
    r = Rig(tmp_path, micropython, variant, table)
    try:
        yield r
    finally:
        r.close()


BOARDS = [
    ("sixteen-soldiers", ""),  # no [gpio.mapping]: the stock 37-point board
    ("english-draughts", '[gpio.mapping]\nboard = "8x8"\n'),
    ("checkers", '[gpio.mapping]\nboard = "8x8"\ndark_only = true\n'),
]


@pytest.mark.parametrize("rig", BOARDS, indirect=True, ids=[v for v, _ in BOARDS])
def test_a_move_on_the_pico_board_is_recorded_and_lit(rig: Rig) -> None:
    variant = rig.service.state()["variant"]
    game = new_game(str(variant))
    dev_leds = len(rig.mapping.sensed)
    assert rig.backend.link.settings.squares == game.geometry.size
    rig.sim.set_occupancy(occupancy(game))
    rig.backend.start()
    assert rig.backend.link.wait_connected(15), rig.backend.link.stats()
    device = rig.backend.link.device
    assert device is not None and (device.rows, device.cols) == (rig.mapping.rows,
                                                               rig.mapping.columns)
    before = occupancy(game)
    move = next(m for m in game.legal_moves() if "x" not in str(m))
    token = str(move)
    game.play(move)
    after = occupancy(game)
    frm = (before & ~after).bit_length() - 1
    to = (after & ~before).bit_length() - 1
    names = rig.mapping.layout.names
    # The piece in hand: its origin and its destinations light under their points.
    rig.sim.set_occupancy(before & ~(1 << frm))

    def in_hand() -> bool:
        leds = rig.pump()["leds"]
        assert isinstance(leds, dict)
        return leds.get(names[frm]) == "lifted" and leds.get(names[to]) == "destination"

    wait_for(in_hand, "the lifted piece's lights")
    wait_for(lambda: rig.pump() is not None and rig.lit(names[to]) and rig.lit(names[frm]),
             "the destination lit on the board's LED chain")
    quiet = next(p for p in rig.mapping.sensed
                 if p not in (frm, to) and names[p] not in rig.pump()["leds"])  # type: ignore[operator]
    assert not rig.lit(names[quiet])
    assert len(rig.sim.leds()[1]) == 3 * dev_leds  # the chain the host configured
    # Put down: the move is recorded as the service's first.
    rig.sim.set_occupancy(after)
    wait_for(lambda: rig.pump()["moves"] == [token], f"the move {token} recorded")
    assert rig.service.state()["position"] == game.position()
    assert rig.backend.link.stats().checksum_failures == 0


def test_a_mapping_of_another_board_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text('[board]\nkind = "serial:loop://"\nvariant = "sixteen-soldiers"\n'
                    '[gpio.mapping]\nboard = "8x8"\n')
    with pytest.raises(ValueError, match="is for the 8x8 board.*37-point board") as err:
        open_backend(load_config(path), time.monotonic)
    assert "\n" not in str(err.value)


def test_a_square_variant_takes_its_board_from_the_variant(tmp_path: Path,
                                                           micropython: str) -> None:
    # The lights reach the LED chain of the firmware's 5x5 board: the LED
    # under c3 lit, a point not on the board (g7) dropped, none else lit.
    rig = Rig(tmp_path, micropython, "sabouiyya", "")
    try:
        backend = rig.backend
        assert backend.mapping.board == "5x5" and backend.link.settings.squares == 25
        backend.start()
        assert backend.link.wait_connected(15), backend.link.stats()
        backend.show({"leds": {"c3": "destination", "g7": "capture"}})
        wait_for(lambda: rig.lit("c3"), "c3 lit on the board's LED chain")
        _writes, rgb = rig.sim.leds()
        assert len(rgb) == 3 * 25
        assert [i for i in range(25) if any(rgb[3 * i: 3 * i + 3])] == [
            rig.mapping.led_of_square(rig.mapping.parse("c3"))]
    finally:
        rig.close()
