"""The service on a Pico board: the firmware (in MicroPython, on simulated
switches) and the serial link feed the service; the LED colours go back
over the link; ``doctor --serial`` reads the link statistics."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fw_helpers import wait_for

from controller.cli import main
from controller.drivers.firmware_sim import FirmwareSim
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import SerialBackend, drain

pytestmark = pytest.mark.timeout(120)


def test_service_on_the_pico_board(sim: FirmwareSim, tmp_path: Path) -> None:
    sim.follow_real_time()
    backend = SerialBackend(sim.cable.path, size=7)
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.3,
                                  board=f"serial:{sim.cable.path}"))
    backend.start()
    try:
        assert backend.link.wait_connected(10)
        sim.set_occupancy(1 << 10)  # a piece on d2

        def recorded() -> bool:
            drain(service, backend.events)
            service.tick()
            backend.show(service.state())
            return service.state()["moves"] == ["@d2"]

        wait_for(recorded, 15, "the placement recorded")
        assert backend.link.stats().frames_sent > 0
    finally:
        backend.close()
        service.close()


def test_doctor_reads_the_link(sim: FirmwareSim, capsys: pytest.CaptureFixture[str]) -> None:
    sim.follow_real_time()
    time.sleep(0.1)
    status = main(["doctor", "--serial", sim.cable.path, "--seconds", "0.5"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "kharbga-pico" in out and "checksum_failures 0" in out
