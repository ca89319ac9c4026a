"""The service on the GPIO board: the real scanner on gpiozero's mock pins
(with the matrix simulator), the buttons, and the LED strip's SPI bytes."""

from __future__ import annotations

import time
from pathlib import Path

from gpio_fakes import FakeSPI, decode
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.matrix_sim import MatrixSimulator
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import GpioBackend, drain


def test_gpio_board_feeds_the_service_and_lights_the_leds(
    tmp_path: Path, factory: MockFactory, spi: FakeSPI
) -> None:
    sim_holder: dict[str, MatrixSimulator] = {}
    backend = None
    try:
        from controller.drivers.gpio_config import GpioConfig

        cfg = GpioConfig()
        sim_holder["sim"] = MatrixSimulator(factory, cfg.matrix, cfg.mapping)
        backend = GpioBackend(None, pin_factory=factory, spi=spi)
        service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.3,
                                      board="gpio"))
        backend.start()
        sim = sim_holder["sim"]
        sim.place(0)  # a piece on a1
        deadline = time.monotonic() + 5
        while not service.state()["moves"] and time.monotonic() < deadline:
            drain(service, backend.events)
            service.tick()
            backend.show(service.state())
            time.sleep(0.01)
        assert service.state()["moves"] == ["@a1"]
        assert spi.writes, "the LED strip was never written"
        pixels = decode(spi.writes[-1])
        assert len(pixels) >= 49
        service.close()
    finally:
        if backend is not None:
            backend.close()
