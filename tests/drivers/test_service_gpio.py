"""The service on the GPIO board: the real scanner on gpiozero's mock pins
(with the matrix simulator), the buttons, and the LED strip's SPI bytes."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from gpio_fakes import FakeSPI, decode, fake_blinka
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.matrix_sim import MatrixSimulator
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import GpioBackend, drain


def _gpio_board(tmp_path: Path, factory: MockFactory,
                spi: FakeSPI) -> tuple[MatrixSimulator, GpioBackend, BoardService]:
    """The default matrix simulated on the mock pins, the backend that
    reads it (not started), and a service of the gpio board."""
    from controller.drivers.gpio_config import GpioConfig

    cfg = GpioConfig()
    sim = MatrixSimulator(factory, cfg.matrix, cfg.mapping)
    backend = GpioBackend(None, pin_factory=factory, spi=spi)
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.3,
                                  board="gpio"))
    return sim, backend, service


def _pump(backend: GpioBackend, service: BoardService, until: Callable[[], object],
          seconds: float = 5) -> None:
    """The service's loop (events in, a tick, the lights out, the board's
    problem told) until ``until()``; AssertionError "not reached" after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        drain(service, backend.events)
        service.tick()
        backend.show(service.state())
        service.set_sensor(backend.problem(), backend.fault())
        if until():
            return
        time.sleep(0.01)
    raise AssertionError(f"not reached: {service.state()['sensor_problem']!r}")


def test_gpio_board_feeds_the_service_and_lights_the_leds(
    tmp_path: Path, factory: MockFactory, spi: FakeSPI
) -> None:
    sim, backend, service = _gpio_board(tmp_path, factory, spi)

    def pump(until: Callable[[], object]) -> None:
        _pump(backend, service, until)

    try:
        backend.start()
        sim.place(0)  # a piece on a1
        pump(lambda: service.state()["moves"])  # the placement recorded
        assert service.state()["moves"] == ["@a1"]
        sim.place(24)  # one on d4, the centre kept empty while setting
        pump(lambda: service.state()["leds"] == {"d4": "error"})  # d4 said out of place
        # On the strip (the default chain snakes by ranks from a1, so d4 is
        # LED 24 whichever way its rank runs): d4 red (blinking: a frame it
        # is on), every other LED dark.
        pump(lambda: any(decode(spi.writes[-1])[24]))  # d4's LED lit
        pixels = decode(spi.writes[-1])
        assert len(pixels) == 49
        assert pixels[24][0] > 0 and pixels[24][1:] == (0, 0)
        assert [i for i, p in enumerate(pixels) if any(p)] == [24]
        assert service.state()["moves"] == ["@a1"]
    finally:
        service.close()
        backend.close()


def test_a_matrix_that_cannot_be_read_is_said_on_the_page_and_read_again(
    tmp_path: Path, factory: MockFactory, spi: FakeSPI
) -> None:
    """A column pin whose read fails (an I/O error from the pin library):
    the scan thread lives on, the page says why nothing is read, and the
    board is read again once the pin answers."""
    sim, backend, service = _gpio_board(tmp_path, factory, spi)
    pin = sim.columns[0]
    working = pin._get_state

    def broken() -> bool:
        raise OSError(5, "Input/output error")

    def pump(until: Callable[[], object], seconds: float = 5) -> None:
        _pump(backend, service, until, seconds)

    try:
        backend.start()
        pin._get_state = broken
        pump(lambda: service.state()["sensor_problem"])
        words = service.state()["sensor_problem"]
        assert words.startswith("the switch matrix cannot be read (")
        assert "Input/output error" in words and "trying again every second" in words
        sim.place(0)  # a piece on a1 while the pin is dead: not read
        with pytest.raises(AssertionError, match="not reached"):
            pump(lambda: service.state()["moves"], 0.5)
        pin._get_state = working
        pump(lambda: service.state()["moves"] == ["@a1"])
        assert service.state()["sensor_problem"] is None
        assert backend._thread is not None and backend._thread.is_alive()
    finally:
        service.close()
        backend.close()


def test_without_a_pin_library_the_board_says_why_in_one_line(tmp_path: Path) -> None:
    """``run --board gpio`` off a Pi (no lgpio, no Pi revision): one line
    naming what gpiozero tried and what to do, not its warnings and error."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    r = subprocess.run([sys.executable, "-m", "controller", "run", "--board", "gpio",
                        "--data-dir", str(tmp_path), "--port", "8797"],
                       capture_output=True, text=True, timeout=60, env=env)
    if r.returncode != 2 and Path("/proc/device-tree/model").exists():
        import pytest

        pytest.skip("a Raspberry Pi: the pin library loads")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Warning" not in r.stderr, r.stderr
    assert lines[0].startswith("kharbga-board: no GPIO pin library could be loaded (")
    assert "which bring lgpio, with make install-pi (or .venv/bin/pip install -e '.[pi]'" \
        " in the checkout), and run as a user of the gpio group;" in lines[0]


def test_a_new_game_of_another_board_is_refused_on_the_gpio_board(
    tmp_path: Path, factory: MockFactory, spi: FakeSPI
) -> None:
    # The matrix is wired for the 7x7 board: a 37-point, 8x8 or 5x5 game on
    # it would read its switches as other points (or refuse every frame).
    from controller.service.board import RequestError

    sim, backend, service = _gpio_board(tmp_path, factory, spi)
    try:
        for variant, board in (("sixteen-soldiers", "37-point"), ("checkers", "8x8"),
                               ("sabouiyya", "5x5")):
            with pytest.raises(RequestError, match=f"^this board is the 7x7 board; {variant} "
                                                   f"is played on the {board} board$"):
                service.new_game(variant)
        assert service.state()["variant"] == "kharbga"
        service.new_game("kharbga-refuge")  # the same board: a new game
        backend.start()
        sim.place(0)
        _pump(backend, service, lambda: service.state()["moves"])
        assert service.state()["moves"] == ["@a1"]
    finally:
        backend.close()
        service.close()


def test_games_of_another_board_are_not_resumed_on_the_gpio_board(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Games left unfinished on the simulated board (a 37-point game, a 5x5
    game put aside) are not resumed when the service starts on the 7x7
    matrix: they stay in the archive, unfinished, and the log says why; on
    the simulated board again they can be resumed."""
    import logging

    from controller.rules import new_game
    from controller.service.store import Store

    caplog.set_level(logging.INFO, logger="kharbga.service")
    store = Store(tmp_path)  # as the simulated board leaves it: two games unfinished
    game = new_game("sabouiyya")
    game.play("@c2")
    five = store.new_game(game, "A", "D")  # the older: put aside
    sixteen = store.new_game(new_game("sixteen-soldiers"), "A", "D")  # the newest: active
    store.close()
    real = BoardService(Config(data_dir=tmp_path, board="gpio", variant="kharbga"))
    try:
        assert real.gid not in (five, sixteen)
        assert real.state()["variant"] == "kharbga"
        assert not real.reconciler.saved  # no 5x5 game to match on the 7x7 board
        said = [r.getMessage() for r in caplog.records]
        assert (f"game {sixteen} (sixteen-soldiers, on the 37-point board) is kept unfinished: "
                "this board is the 7x7 board") in said
        assert (f"game {five} (sabouiyya, on the 5x5 board) is kept unfinished: "
                "this board is the 7x7 board") in said
        unfinished = {g.id for g in real.store.unfinished()}
        assert {five, sixteen, real.gid} <= unfinished
    finally:
        real.close()
    again = BoardService(Config(data_dir=tmp_path, board="sim", variant="kharbga"))
    try:
        assert sorted(g.variant.name for g in again.reconciler.saved) == [
            "sabouiyya", "sixteen-soldiers"]  # resumed when set up as they stand
    finally:
        again.close()


def test_a_welded_reed_is_a_fault_of_a_board_still_read(
    tmp_path: Path, factory: MockFactory, spi: FakeSPI
) -> None:
    # A reed welded shut on d4: the page names it among the faults of a
    # board that is read ("The board is read, but switch r3c3 (d4) ...").
    # Before, it was shown as "The board is not being read: switch r3c3
    # (d4) ...", while every other square was read and moves were taken.
    from controller.drivers.switch_watch import WatchSettings

    sim, backend, service = _gpio_board(tmp_path, factory, spi)
    assert backend.scanner is not None
    # Long enough that a1, played, is known to stand before it could be
    # called stuck on a loaded machine (0.3 s once was not).
    backend.scanner.watch.settings = WatchSettings(stuck_after=1.0)
    try:
        backend.start()
        sim.place(0)  # a1: read and played
        _pump(backend, service, lambda: service.state()["moves"])
        sim.stick(3, 3)  # d4 (the malha) welded shut, no piece there
        _pump(backend, service, lambda: service.state()["board_fault"] is not None)
        state = service.state()
        assert state["moves"] == ["@a1"]
        assert state["sensor_problem"] is None
        assert state["board_fault"] == (
            "switch r3c3 (d4) reads closed where no piece should stand: if the square is "
            "empty, the reed switch is stuck (kharbga-board doctor checks every switch)")
    finally:
        service.close()
        backend.close()


def test_leds_whose_library_does_not_load_are_the_doctor_s_words(
    factory: MockFactory, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``run --board gpio`` on a PC with mock pins: Blinka installed but
    unable to open the SPI bus.  Before: the generic ``ImportError: ..``
    line (and Blinka's warnings on stdout); now the one line of
    :class:`MissingLibrary`, the pins released."""
    from controller.drivers.ws2812 import library_trouble
    from controller.service.hardware import MissingLibrary

    fake_blinka(monkeypatch)
    with pytest.raises(MissingLibrary) as err:
        GpioBackend(None, pin_factory=factory)
    assert capsys.readouterr().out == ""
    cause = ImportError("cannot import name 'spiPorts' from 'microcontroller.pin'; Blinka says: "
                        "GENERIC_X86 is not fully supported. Some features may not work")
    assert str(err.value) == ("the gpio board's LEDs cannot be lit ([gpio.leds] enabled = false "
                              f"plays without them): {library_trouble(cause)}")
    assert "their library does not load here (cannot import name 'spiPorts'" in str(err.value)
    assert not any(factory._reservations.values())


# Blinka's `board` and `busio` as on a Pi whose SPI is not enabled: the
# library loads, the bus does not open (no /dev/spidev0.0).
NO_SPI_BUS = """import sys, types
board = types.ModuleType('board'); board.SCLK = board.MOSI = object()
busio = types.ModuleType('busio')
def SPI(clock, MOSI):
    raise FileNotFoundError(2, 'No such file or directory', '/dev/spidev0.0')
busio.SPI = SPI
sys.modules.update(board=board, busio=busio)
"""


@pytest.mark.parametrize(("prelude", "why"), [
    ("import sys; sys.modules['neopixel_spi'] = None\n",
     "their library needs the Python module 'neopixel_spi', which is not installed: "),
    (NO_SPI_BUS, "their SPI bus does not open ([Errno 2] No such file or directory: "
                 "'/dev/spidev0.0'): turn SPI on and add this user to the spi group "
                 "(hardware.md)"),
], ids=["no-library", "no-spi-bus"])
def test_run_on_a_gpio_board_whose_leds_fail_makes_no_data_folder(
        tmp_path: Path, prelude: str, why: str) -> None:
    """``kharbga-board run --board gpio`` (gpiozero's mock pins) where the
    LEDs' library does not load or their bus does not open: the one line
    and exit status 2, and nothing made: no data folder, no game 1 in an
    archive.  Before, the data folder and its games.sqlite3 were made
    first, and a log line of the buttons came before the refusal."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tmp_path / "data" / "games"  # a parent missing too: none made
    args = ["run", "--board", "gpio", "--port", str(port), "--data-dir", str(data)]
    code = prelude + f"from controller.cli import main; raise SystemExit(main({args!r}))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}, timeout=60,
                       check=False)
    assert r.returncode == 2, r.stderr
    assert not (tmp_path / "data").exists(), r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("kharbga-board: the gpio board's LEDs cannot be lit ([gpio.leds] "
                               f"enabled = false plays without them): {why}"), r.stderr


def test_a_failing_strip_is_a_fault_until_a_frame_is_written(
        factory: MockFactory, spi: FakeSPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """d4 lit as an error blinks every 0.25 s: the strip's frames alternate
    lit and dark.  While every write fails, the fault is said through the
    dark halves too.  Before, a dark frame equal to the last one written
    before the failure was not sent again, the fault was cleared, and the
    page's "its lights cannot be set" line came and went with the blink."""
    now = [0.0]
    backend = GpioBackend(None, pin_factory=factory, spi=spi, clock=lambda: now[0])
    try:
        backend.show({"leds": {}})  # the board dark: the last frame written
        assert backend.fault() is None and len(spi.writes) == 1

        def broken(buf: bytes, start: int = 0, end: int | None = None) -> None:
            raise OSError(121, "Remote I/O error")

        monkeypatch.setattr(spi, "write", broken)  # the strip's connector works loose
        faults = []
        for k in range(20):  # 1 s: two blinks, lit and dark
            now[0] = k * 0.05
            backend.show({"leds": {"d4": "error"}})
            faults.append(backend.fault())
        assert faults == ["its lights cannot be set ([Errno 121] Remote I/O error): the page "
                          "shows them as they should be"] * 20
        monkeypatch.undo()  # pushed back in: the next frame is written, whatever it is
        backend.show({"leds": {"d4": "error"}})
        assert backend.fault() is None and len(spi.writes) == 2
    finally:
        backend.close()
