"""The service on a Pico board: the firmware (in MicroPython, on simulated
switches) and the serial link feed the service; the LED colours go back
over the link; ``doctor --serial`` reads the link statistics."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from fw_helpers import is_idle_pattern, wait_for

from controller.cli import main
from controller.drivers import serial_link
from controller.drivers.firmware_sim import FirmwareSim
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import SerialBackend, drain, square_colours

pytestmark = pytest.mark.timeout(120)


def test_a_placement_on_the_pico_board_is_recorded_and_a_wrong_one_lit(
        sim: FirmwareSim, tmp_path: Path) -> None:
    sim.follow_real_time()
    backend = SerialBackend(sim.cable.path, size=7)
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.3,
                                  board=f"serial:{sim.cable.path}"))
    backend.start()

    def pump() -> dict[str, str]:
        drain(service, backend.events)
        service.tick()
        backend.show(service.state())
        return dict(service.state()["leds"])

    try:
        assert backend.link.wait_connected(10)
        sim.set_occupancy(1 << 10)  # a piece on d2
        wait_for(lambda: (pump(), service.state()["moves"])[1] == ["@d2"], 15,
                 "the placement recorded")
        sim.set_occupancy(1 << 10 | 1 << 24)  # and one on d4, the centre kept empty
        wait_for(lambda: pump() == {"d4": "error"}, 15, "the centre lit as out of place")
        # the error's colour (blinking: on in the first half of its period)
        # on the firmware's LED chain, and nothing else lit
        on = [c for c in square_colours({"d4": "error"}, 0.0, backend.leds, backend.mapping)
              if any(c)]

        def lit() -> list[tuple[int, ...]]:
            pump()
            rgb = sim.leds()[1]
            return [p for p in (tuple(rgb[i:i + 3]) for i in range(0, len(rgb), 3)) if any(p)]

        wait_for(lambda: lit() == on, 15, "the firmware's LED under d4 lit red")
        assert on and on[0][0] > 0 and on[0][1:] == (0, 0)  # red
        assert service.state()["moves"] == ["@d2"]
    finally:
        backend.close()
        service.close()


def test_a_chain_with_leds_between_the_squares_is_driven_whole_by_the_pico(
        sim: FirmwareSim) -> None:
    # [gpio.mapping] leds for a strip with one LED between squares, snaking
    # by ranks (a1 - b1 - .. - g1 - g2 - ..): the handshake carries the
    # 97-LED chain and its map, the firmware lights the squares' LEDs and
    # leaves the 48 between them dark.
    ranks = [[f"{f}{r}" for f in "abcdefg"][:: -1 if r % 2 == 0 else 1] for r in range(1, 8)]
    spaced = [x for run in ranks for name in run for x in ("-", name)][1:]
    sim.follow_real_time()
    backend = SerialBackend(sim.cable.path, Config(gpio_table={"mapping": {"leds": spaced}}),
                            size=7)
    backend.start()
    try:
        assert backend.link.wait_connected(10)
        assert backend.link.settings.led_count == 97
        roles = {"a1": "last-from", "g2": "last-to", "g7": "destination"}  # steady roles
        backend.show({"leds": roles})
        colours = square_colours(roles, 0.0, backend.leds, backend.mapping)

        def shown() -> bool:
            rgb = sim.leds()[1]
            lit = [i for i in range(len(rgb) // 3) if any(rgb[3 * i:3 * i + 3])]
            return len(rgb) == 97 * 3 and len(lit) == 3

        wait_for(shown, 15, "the three squares lit on the 97-LED chain")
        rgb = sim.leds()[1]
        pixels = [tuple(rgb[3 * i:3 * i + 3]) for i in range(97)]
        assert [i for i, p in enumerate(pixels) if any(p)] == [0, 14, 96]
        assert [pixels[i] for i in (0, 14, 96)] == [colours[0], colours[13], colours[48]]
        backend.close()  # the host silent: the idle wave, on the squares' LEDs only

        wait_for(lambda: is_idle_pattern(sim.leds()[1]), 15, "the idle pattern")
        rgb = sim.leds()[1]
        assert len(rgb) == 97 * 3 and all(i % 2 == 0 for i in range(97) if rgb[3 * i + 2])
    finally:
        backend.close()


def test_doctor_reports_a_sound_board_in_words(
    sim: FirmwareSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.follow_real_time()
    status = main(["doctor", "--serial", sim.cable.path, "--seconds", "0.5"])
    out, err = capsys.readouterr()
    assert status == 0, out
    lines = out.splitlines()
    assert lines[0] == (f"board on {sim.cable.path}: kharbga-pico 0.3.0 (protocol 1), a 7x7 "
                        "switch matrix, 49 LEDs, buttons: shared, attacker, defender")
    assert lines[-1] == "all well" and err == ""
    assert not re.search(r"DeviceInfo|\w=|[{}]|\(\)", out)  # no Python reprs


def test_doctor_stops_the_firmware_for_an_update(
    sim: FirmwareSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.follow_real_time()
    status = main(["doctor", "--serial", sim.cable.path, "--stop-firmware"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.splitlines()[-1].startswith("the firmware stopped: the Pico restarts and waits "
                                           "at its REPL; copy the new files with mpremote now")
    wait_for(lambda: sim.returncode is not None, what="the firmware to stop")
    assert sim.returncode == 0
    # Without a port it is refused in one line.
    assert main(["doctor", "--stop-firmware"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "--stop-firmware needs --serial PORT (the Pico's port)")


def test_doctor_names_the_squares_at_fault_and_fails(
    sim: FirmwareSim, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.follow_real_time()
    sim.set_occupancy(1 << 2)  # c1 closed on the empty board
    sim.set_chatter(10, 3000)  # d2 bouncing every 3 ms
    time.sleep(0.3)  # the firmware has read c1 before the doctor starts
    status = main(["doctor", "--serial", sim.cable.path, "--seconds", "1"])
    out = capsys.readouterr().out
    assert status == 1, out
    problems = out.splitlines()[4:]
    assert problems[0] == "c1: closed throughout (a stuck switch, or a piece left on it)"
    assert re.fullmatch(r"d2: chattering \(\d+ changes\)", problems[1]), out
    assert problems[2:] == ["2 problem(s) found"]


def test_doctor_follows_the_board_of_the_configuration(
    micropython: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    five = tmp_path / "five.toml"
    five.write_text('[board]\nvariant = "sabouiyya"\n')
    with FirmwareSim(size=5, micropython=micropython) as sim:
        sim.follow_real_time()
        argv = ["doctor", "--serial", sim.cable.path, "--seconds", "0.3"]
        refused = main(argv)
        said = capsys.readouterr()
        status = main([*argv, "--config", str(five)])
        out = capsys.readouterr().out
    assert refused == 1 and said.err == ""
    assert said.out == (f"no handshake from a board on {sim.cable.path} within 5 s: the "
                        "firmware reads a 5x5 switch matrix, but this host reads the 7x7 "
                        "board on a 7x7 one: set ROW_PINS and COL_PINS (and SWITCH_MAP) in "
                        "the firmware's board.py for the 7x7 board (hardware.md, \"On the "
                        'Pico")\n')
    assert status == 0, out
    assert "a 5x5 switch matrix, 25 LEDs" in out and out.endswith("all well\n")


@pytest.mark.parametrize(("table", "shape"), [
    ('[gpio.mapping]\nboard = "37-point"\n', "a 9x5 switch matrix, 37 LEDs"),
    ('[gpio.mapping]\nboard = "8x8"\ndark_only = true\n', "an 8x4 switch matrix, 32 LEDs"),
])
def test_doctor_checks_the_board_the_mapping_names(
    micropython: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str,
    shape: str
) -> None:
    # hardware.md: "Name the board in [gpio.mapping]"; a leap board's owner
    # has no [board] variant (doctor plays no game): the board is the
    # mapping's, as for doctor on the GPIO board.
    from controller.drivers.mapping import BoardMapping

    config = tmp_path / "leap.toml"
    config.write_text(table)
    mapping = BoardMapping.for_board("37-point") if "37" in table else \
        BoardMapping.for_board("8x8", dark_only=True)
    with FirmwareSim(size=0, micropython=micropython, mapping=mapping) as sim:
        sim.follow_real_time()
        status = main(["doctor", "--serial", sim.cable.path, "--seconds", "0.3",
                       "--config", str(config)])
        out, err = capsys.readouterr()
    assert err == "" and status == 0, out + err
    assert shape in out and out.endswith("all well\n")


def test_a_pico_whose_lights_fail_is_said_on_the_page_and_the_board_still_read(
        sim: FirmwareSim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The LED chain's data line breaks: the firmware's writes raise, its
    # loop reports the error (NOTICE) and goes on scanning.  The page says
    # so while the moves keep being recorded; once the chain works the
    # lights come right with nothing moved, and the page stops saying it
    # when the device has been quiet about it for FAULT_SHOWN seconds.
    monkeypatch.setattr(serial_link, "FAULT_SHOWN", 1.0)
    sim.follow_real_time()
    backend = SerialBackend(sim.cable.path, Config(variant="khamousiyya"))
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.3,
                                  board=f"serial:{sim.cable.path}", variant="khamousiyya"))
    backend.start()

    def pump() -> dict[str, object]:
        drain(service, backend.events)
        service.tick()
        service.set_sensor(backend.problem(), backend.fault())
        backend.show(service.state())
        return service.state()

    def chain_lit() -> bool:
        return any(sim.leds()[1])

    try:
        assert backend.link.wait_connected(10)
        # Khamousiyya's first placement goes next to the malha: four steady lights.
        wait_for(lambda: pump() and chain_lit(), 15, "the setting lights on the chain")
        sim.set_led_failure(True)
        sim.set_occupancy(1 << 31)  # a soldier on d5: the lights go out on the page
        wait_for(lambda: pump()["board_fault"] is not None, 15, "the fault on the page")
        state = pump()
        assert state["board_fault"] == ("its microcontroller reports an error (OSError(5,)), "
                                        "so its lights may be wrong: the page shows them as "
                                        "they should be"), state["board_fault"]
        assert state["moves"] == ["@d5"] and state["leds"] == {}
        assert state["sensor_problem"] is None  # the board is read: no such line
        assert chain_lit()  # the failing chain still shows the old lights
        sim.set_led_failure(False)  # mended: the lights come right with nothing moved
        wait_for(lambda: pump() and not chain_lit(), 15, "the chain dark, as the page")
        wait_for(lambda: pump()["board_fault"] is None, 15, "the fault gone from the page")
        sim.set_occupancy(1 << 31 | 1 << 12)  # f2: the Defender's turn lights the malha's side
        wait_for(lambda: pump()["moves"] == ["@d5", "@f2"], 15, "both placements recorded")
        wait_for(lambda: pump() and chain_lit(), 15, "the Defender's setting lights")
    finally:
        backend.close()
        service.close()
