"""The live service on a Pico board, for the tests: the firmware (in
MicroPython, on simulated switches wired as the board's mapping says)
talks over a pty to the serial backend the service opens, and the test
pumps the events, the state and the board's problem as ``run`` does."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.mapping import BoardMapping
from controller.rules import AnyGame
from controller.service.board import BoardService
from controller.service.config import load_config
from controller.service.hardware import SerialBackend, drain, open_backend


def occupancy(game: AnyGame) -> int:
    a, d = game.bitboards()
    return a | d


def wait_for(cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class Rig:
    """The service, its serial backend and the firmware on one board;
    ``backend_options`` go to the :class:`SerialBackend` (without any, the
    backend is the one ``open_backend`` chooses)."""

    def __init__(self, tmp_path: Path, micropython: str, variant: str, mapping_toml: str,
                 **backend_options: Any) -> None:
        path = tmp_path / "board.toml"
        path.write_text(f'[board]\nvariant = "{variant}"\n{mapping_toml}')
        config = load_config(path)
        probe = SerialBackend("loop://", config)  # the mapping the service will use
        self.mapping: BoardMapping = probe.mapping
        probe.close()
        self.sim = FirmwareSim(size=self.mapping.size, micropython=micropython,
                               mapping=self.mapping)
        self.sim.start()
        self.sim.follow_real_time()
        config = config.with_overrides(board=f"serial:{self.sim.cable.path}",
                                       data_dir=tmp_path / "data")
        config = dataclasses.replace(config, settle=0.05, error_delay=0.3)
        self.service = BoardService(config)
        if backend_options:
            backend = SerialBackend(self.sim.cable.path, config, clock=self.service.now,
                                    **backend_options)
        else:
            chosen = open_backend(config, self.service.now)
            assert isinstance(chosen, SerialBackend)
            backend = chosen
        self.backend = backend

    def pump(self) -> dict[str, object]:
        """One pass of ``run``'s loop: the events fed, the board's problem
        set, the state shown; the state."""
        drain(self.service, self.backend.events)
        self.service.tick()
        self.service.set_sensor(self.backend.problem(), self.backend.fault())
        state = self.service.state()
        self.backend.show(state)
        return state

    def lit(self, point: str) -> bool:
        """Whether the LED under ``point`` shows a colour now."""
        led = self.mapping.led_of_square(self.mapping.parse(point))
        _writes, rgb = self.sim.leds()
        return any(rgb[3 * led: 3 * led + 3])

    def close(self) -> None:
        self.backend.close()
        self.service.close()
        self.sim.close()
