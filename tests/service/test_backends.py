"""The boards behind the service: one Backend protocol chosen in one place,
the service's clock injected (a fake one here), device times kept through
the pump, and a missing hardware library named as the extra to install."""

from __future__ import annotations

import queue
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_clock import FakeClock

from controller.board.events import Button, Frame
from controller.cli import main
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import (
    Backend,
    EventPump,
    GpioBackend,
    MissingLibrary,
    SerialBackend,
    SimBackend,
    open_backend,
)

A1 = 1  # the bitboard of a piece on a1


class RecordingService:
    """What the pump needs of the service: its clock and feed."""

    def __init__(self, clock: FakeClock) -> None:
        self.now = clock
        self.fed: list[Frame | Button] = []

    def feed(self, event: Frame | Button) -> None:
        self.fed.append(event)


def test_the_pump_keeps_device_times_bounded_by_order_and_now() -> None:
    clock = FakeClock(3.0)
    service = RecordingService(clock)
    events: queue.Queue[Frame | Button] = queue.Queue()
    pump = EventPump(service, events)  # type: ignore[arg-type]
    # Frames the device stamped when the switches moved, arriving at 3.0.
    for t in (1.0, 1.25):
        events.put(Frame(t, A1))
    events.put(Button(2.5, "hint", None))
    assert pump() == 3
    assert [e.t for e in service.fed] == [1.0, 1.25, 2.5]
    # Never back before the last event, never ahead of the service's clock.
    events.put(Frame(2.0, 0))
    events.put(Frame(9.0, A1))
    pump()
    assert [e.t for e in service.fed[3:]] == [2.5, 3.0]


def test_a_serial_frame_keeps_its_time_from_the_link_in_the_service(tmp_path: Path) -> None:
    """The serial backend's link maps the Pico's clock onto the service's
    clock (the mapping itself: tests/firmware/test_serial_link.py and
    test_link_sim.py), and the pump keeps the times the link puts on its
    frames: a placement the device saw at 1.0 s and the service got at
    1.3 s has settled (0.25 s) at once; stamped on arrival it would not
    have."""
    clock = FakeClock(0.0)
    config = Config(data_dir=tmp_path, settle=0.25, error_delay=0.5, board="serial:loop://")
    service = BoardService(config, clock=clock)
    backend = SerialBackend("loop://", config, 7, clock=service.now)
    try:
        assert backend.link.protocol.clock == service.now  # the link maps onto it
        pump = EventPump(service, backend.events)
        backend.events.put(Frame(0.5, 0))  # as the link puts them: device time mapped
        backend.events.put(Frame(1.0, A1))
        clock.t = 1.3
        pump()
        service.tick()
        assert service.state()["moves"] == ["@a1"]
    finally:
        backend.close()
        service.close()


def test_the_gpio_board_stamps_on_the_injected_clock() -> None:
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    factory = MockFactory()
    clock = FakeClock(42.0)
    config = Config(board="gpio", gpio_table={"leds": {"enabled": False}})
    backend = GpioBackend(config, clock=clock, pin_factory=factory)
    try:
        backend.start()
        first = backend.events.get(timeout=5)  # the empty board, on the fake clock
        assert isinstance(first, Frame) and 42.0 <= first.t < 43.0
        clock.t = 50.0
        factory.pin(16).drive_low()  # the hint button
        press = backend.events.get(timeout=5)
        assert press == Button(50.0, "hint", None)
    finally:
        backend.close()
        factory.reset()


def test_the_gpio_board_is_told_the_game_s_board_for_its_stuck_switch_watch() -> None:
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    from controller.service.hardware import expected_occupancy

    factory = MockFactory()
    config = Config(board="gpio", gpio_table={"leds": {"enabled": False}})
    backend = GpioBackend(config, clock=FakeClock(1.0), pin_factory=factory)
    try:
        position = "ADADADA/DADADAD/DADADAD/ADA.ADA/DADADAD/DADADAD/ADADADA a m - 1"
        backend.show({"position": position, "leds": {}})
        full = (1 << 49) - 1
        assert backend.scanner.watch.expected == full & ~(1 << 24)  # all but d4
        # A soldier in hand: the board is rightly not the position.
        backend.show({"position": position, "leds": {"c4": "lifted", "d4": "destination"}})
        assert backend.scanner.watch.expected is None
        small = {"position": "A.D/.../... a m - 1", "leds": {}}
        assert expected_occupancy(small) == 1 << 6 | 1 << 8
    finally:
        backend.close()
        factory.reset()


def test_the_stuck_switch_watch_knows_the_leap_boards_and_their_setting_up(
        tmp_path: Path) -> None:
    # The 37-point board's ranks have 3 or 5 points: its position was read
    # as unknown, so a reed welded shut was never named there.  A leap
    # game starts with its soldiers on the board: while the setup lights
    # ask for them, the empty points are not switches that no longer close
    # (a checkers board set up in more than 10 s showed 24 of them).
    from controller.rules import new_game
    from controller.service.board import BoardService
    from controller.service.hardware import expected_occupancy

    for variant, count in (("sixteen-soldiers", 37), ("checkers", 64)):
        clock = FakeClock(1.0)
        service = BoardService(Config(data_dir=tmp_path / variant, variant=variant), clock)
        try:
            service.feed(Frame(1.0, 0))  # the board as the switches read it: empty
            clock.t = 5.0
            service.tick()
            state = service.state()
        finally:
            service.close()
        assert set(state["leds"].values()) == {"setup"}
        assert expected_occupancy(state) is None
        attacker, defender = new_game(variant).bitboards()
        set_up = {**state, "leds": {}}
        assert expected_occupancy(set_up) == attacker | defender
        assert (attacker | defender) >> count == 0


def test_the_gpio_board_is_the_variant_s_board_and_another_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("gpiozero")
    from controller.board.config import ConfigError

    # A [gpio.mapping] that names no board follows the variant's board,
    # as the serial board's does: sabouiyya is played on 5x5.
    config = Config(board="gpio", variant="sabouiyya", gpio_table={"leds": {"enabled": False}})
    gpio = config.gpio("5x5")
    assert gpio.mapping.board == "5x5" and len(gpio.matrix.row_pins) == 5
    from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

    backend = GpioBackend(config, pin_factory=MockFactory())
    try:
        assert backend.config.mapping.board == "5x5"
    finally:
        backend.close()
    named = Config(board="gpio", variant="sabouiyya", gpio_table={"mapping": {"board": "7x7"}},
                   source="board.toml")
    with pytest.raises(ConfigError) as err:
        named.gpio("5x5")
    assert str(err.value) == ("board.toml: gpio.mapping: it is for the 7x7 board, but variant "
                              "sabouiyya is played on the 5x5 board: play a variant of the 7x7 "
                              "board, or name the 5x5 board there once it is wired "
                              "(hardware.md)")
    # The service refuses a frame of a bigger board rather than reading it.
    service = BoardService(Config(data_dir=tmp_path, variant="sabouiyya"))
    try:
        with pytest.raises(ValueError, match="^a frame shows squares beyond the game's 25$"):
            service.feed(Frame(0.1, 1 << 30))
        assert service.state()["moves"] == []
    finally:
        service.close()


def test_one_place_chooses_the_board(tmp_path: Path) -> None:
    sim = open_backend(Config(), time.monotonic)
    assert isinstance(sim, SimBackend) and sim.description == "the simulated board"
    backend: Backend = sim
    backend.start()
    backend.show({"leds": {"a1": "error"}})
    assert backend.events.empty() and backend.preview is None
    backend.close()
    serial = open_backend(Config(board="serial:loop://", variant="sabouiyya"), time.monotonic)
    try:
        assert isinstance(serial, SerialBackend) and serial.size == 5
        assert serial.name == "serial:loop://"
    finally:
        serial.close()
    with pytest.raises(ValueError, match="a camera board needs"):
        open_backend(Config(board="camera:0"), time.monotonic)


def _hide(monkeypatch: pytest.MonkeyPatch, library: str, *ours: str) -> None:
    """Make ``import library`` fail, and our modules that import it reload."""
    monkeypatch.setitem(sys.modules, library, None)
    for name in list(sys.modules):
        if name.startswith(ours):
            monkeypatch.delitem(sys.modules, name)


@pytest.mark.parametrize(
    ("board", "library", "ours", "extra"),
    [
        ("serial:/dev/ttyACM0", "serial", ("controller.drivers.serial_link",), "serial"),
        ("gpio", "gpiozero", ("controller.drivers.gpio", "controller.drivers.buttons"), "pi"),
        ("camera:0", "cv2", ("calibration", "controller.drivers.camera"), "camera"),
    ],
)
def test_a_missing_library_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    board: str, library: str, ours: tuple[str, ...], extra: str,
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f"[board]\nkind = '{board}'\n[camera]\nprofile = 'p.json'\n")
    _hide(monkeypatch, library, *ours)
    with pytest.raises(MissingLibrary) as err:
        open_backend(Config(board=board, camera_profile="p.json"), time.monotonic)
    assert f".venv/bin/pip install -e '.[{extra}]'" in str(err.value)
    status = main(["run", "--config", str(config), "--data-dir", str(tmp_path / "data")])
    out = capsys.readouterr().err
    assert status == 2 and out.count("\n") == 1
    assert out.startswith("kharbga-board: the ") and f"'.[{extra}]'" in out


def test_a_serial_board_with_more_leds_than_the_handshake_carries_is_refused(
    tmp_path: Path
) -> None:
    """An LED index is one byte in the handshake: a ``led_offset`` that
    pushes the last LED past 254 is refused in one line naming the key."""
    path = tmp_path / "board.toml"
    path.write_text("[gpio.mapping]\nled_offset = 210\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "controller", "run", "--board", "serial:loop://",
                        "--config", str(path), "--data-dir", str(tmp_path / "data")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"kharbga-board: {path}: gpio.mapping.led_offset: the serial board drives at most "
        "255 LEDs, and led_offset 210 with the 49 squares of the 7x7 board makes 259"]
    from controller.service.hardware import serial_mapping

    mapping, _ = serial_mapping(Config(gpio_table={"mapping": {"led_offset": 206}}), "7x7")
    assert mapping.led_count == 255  # the most there is room for
    # The 8x8 board's places are squares, the 37-point board's points (words.place);
    # before, 'the 64 points of the 8x8 board' too.
    for board, places in (("8x8", "64 squares"), ("37-point", "37 points")):
        offset = {"8x8": 200, "37-point": 230}[board]
        with pytest.raises(ValueError) as err:
            serial_mapping(Config(gpio_table={"mapping": {"led_offset": offset}}), board)
        assert f"led_offset {offset} with the {places} of the {board} board makes" in str(err.value)


def test_a_serial_board_whose_leds_table_is_too_long_is_refused_naming_it() -> None:
    """LEDs under no point ("-" in leds) count in the chain the handshake
    carries: one that ends past LED 254 is refused naming the table."""
    from controller.service.hardware import serial_mapping

    squares = [f"{f}{r}" for r in range(1, 8) for f in "abcdefg"]
    longest = squares + ["-"] * 206
    mapping, _ = serial_mapping(Config(gpio_table={"mapping": {"leds": longest}}), "7x7")
    assert mapping.led_count == 255
    with pytest.raises(ValueError) as err:
        serial_mapping(Config(gpio_table={"mapping": {"leds": longest + ["-"], "led_offset": 2}},
                              source="board.toml"), "7x7")
    assert str(err.value) == (
        "board.toml: gpio.mapping.leds: the serial board drives at most 255 LEDs, and "
        "led_offset 2 and the table's 256 (the 49 squares of the 7x7 board and 207 under "
        "none) make 258: cut the strip between points and wire across the gaps, or use a "
        "strip with fewer LEDs a metre")


def test_the_gpio_board_names_its_buttons_on_start(caplog: pytest.LogCaptureFixture) -> None:
    """A ``[gpio.buttons.pins]`` table lists every shared button wired: the
    log says which, so a table of ``hajeb`` alone does not go unseen."""
    pytest.importorskip("gpiozero")
    import logging

    from gpiozero.pins.mock import MockFactory

    caplog.set_level(logging.INFO, logger="kharbga.hardware")
    config = Config(board="gpio", variant="sabouiyya",
                    gpio_table={"leds": {"enabled": False}, "buttons": {"pins": {"hajeb": 13}}})
    factory = MockFactory()
    backend = GpioBackend(config, pin_factory=factory)
    backend.close()
    factory.reset()
    assert "buttons: hajeb on GPIO13" in caplog.messages
    config = Config(board="gpio", gpio_table={"leds": {"enabled": False}})
    factory = MockFactory()
    GpioBackend(config, pin_factory=factory).close()
    factory.reset()
    assert caplog.messages[-1] == ("buttons: hint on GPIO16, exchange on GPIO20, undo on GPIO21, "
                                   "new on GPIO2, resign on GPIO3, draw on GPIO14")


def test_a_serial_board_mapping_of_another_board_is_refused_naming_the_file(
    tmp_path: Path
) -> None:
    path = tmp_path / "board.toml"
    path.write_text('[board]\nvariant = "sabouiyya"\n[gpio.mapping]\nboard = "7x7"\n',
                    encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "controller", "run", "--board", "serial:loop://",
                        "--config", str(path), "--data-dir", str(tmp_path / "data")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"kharbga-board: {path}: gpio.mapping: it is for the 7x7 board, but variant sabouiyya "
        "is played on the 5x5 board (the serial board): play a variant of the 7x7 board, "
        "or name the 5x5 board there once it is wired (hardware.md)"]
