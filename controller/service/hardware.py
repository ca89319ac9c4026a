"""Sensor backends for the service: the reed matrix on GPIO (and later the
serial link and the camera).  Each one puts frames and button presses on a
queue from its own thread; :func:`drain` feeds them to the service on the
event loop, stamped with the service's clock, and the LEDs follow the
published state."""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.board.events import Button, Frame

from .board import BoardService

__all__ = ["GpioBackend", "drain"]

Event = Frame | Button


def drain(service: BoardService, events: queue.Queue[Event]) -> int:
    """Feed every queued event to the service; returns how many."""
    n = 0
    while True:
        try:
            event = events.get_nowait()
        except queue.Empty:
            return n
        service.feed(dataclasses.replace(event, t=service.now()))
        n += 1


class GpioBackend:
    """The matrix scanner, the buttons and the LED strip on the Pi's GPIO,
    configured by the ``[gpio]`` table of the configuration file."""

    def __init__(self, config_path: str | Path | None, *, pin_factory: Any = None,
                 spi: Any = None) -> None:
        from controller.drivers.buttons import ButtonPanel
        from controller.drivers.gpio_config import GpioConfig, load_config
        from controller.drivers.gpio_matrix import MatrixScanner, MonotonicClock
        from controller.drivers.ws2812 import SquareLeds

        self.config = load_config(config_path) if config_path else GpioConfig()
        self.events: queue.Queue[Event] = queue.Queue()
        self.clock = MonotonicClock()
        self.scanner = MatrixScanner(self.config.matrix, self.config.mapping,
                                     pin_factory=pin_factory)
        self.buttons: Any = None
        self.leds: Any = None
        try:
            self.buttons = ButtonPanel(self.config.buttons, self.events, self.clock.now,
                                       pin_factory=pin_factory)
            if self.config.leds.enabled:
                self.leds = SquareLeds(self.config.leds, self.config.mapping, spi)
        except BaseException:
            self.close()
            raise
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None

    def start(self) -> None:
        self._thread, self._stop = self.scanner.start(self.events, self.clock)

    def show(self, state: dict[str, Any]) -> None:
        if self.leds is not None:
            self.leds.show(state.get("leds", {}), self.clock.now())

    def listener(self) -> Callable[[dict[str, Any]], None]:
        return self.show

    def close(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(1)
        for part in (self.buttons, self.leds, self.scanner):
            if part is not None:
                part.close()


class SerialBackend:
    """The Pico board on a serial port (``--board serial:PORT``): the link
    reconnects by itself; the LED colours of each role come from the
    ``[gpio.leds]`` table and the square-to-LED map from ``[gpio.mapping]``
    of the configuration file (sent to the firmware in the handshake)."""

    def __init__(self, url: str, config_path: str | Path | None, size: int = 7) -> None:
        from controller.drivers.gpio_config import GpioConfig, load_config
        from controller.drivers.serial_link import SerialLink

        self.config = load_config(config_path) if config_path else GpioConfig()
        mapping = self.config.mapping
        led_map = [mapping.led_of_square(sq) for sq in range(size * size)]
        self.link = SerialLink(url, size=size, led_count=mapping.led_count, led_map=led_map)
        self.events: queue.Queue[Event] = self.link.events
        self.size = size
        self._last: list[tuple[int, int, int]] | None = None

    def start(self) -> None:
        self.link.start()

    def show(self, state: dict[str, Any]) -> None:
        import time

        colours = square_colours(state.get("leds", {}), time.monotonic(), self.config.leds,
                                 self.size)
        if colours != self._last:
            self._last = colours
            self.link.send_leds(colours)

    def close(self) -> None:
        self.link.close()


def square_colours(leds: dict[str, str], now: float, config: Any,
                   size: int) -> list[tuple[int, int, int]]:
    """The colour under every square (in square order) for these roles."""
    from controller.board.leds import role_colours
    from controller.drivers.mapping import parse_square
    from controller.drivers.ws2812 import limit_current

    out: list[tuple[int, int, int]] = [(0, 0, 0)] * (size * size)
    for name, rgb in role_colours(leds, now, config.roles, config.brightness).items():
        try:
            out[parse_square(name, size)] = rgb
        except ValueError:
            continue
    return limit_current(out, config.max_current_ma)


class CameraBackend:
    """An overhead camera (``--board camera:DEVICE``: a device number or a
    video file), with the profile named by ``[camera] profile`` in the
    configuration file.  LEDs are optional on such a board: none here."""

    def __init__(self, device: str, config_path: str | Path | None) -> None:
        import tomllib

        from calibration.video import CameraStream

        profile: object = None
        if config_path:
            try:
                data = tomllib.loads(Path(config_path).read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ValueError(f"{config_path}: {exc}") from None
            camera = data.get("camera", {})
            profile = camera.get("profile") if isinstance(camera, dict) else None
        if not isinstance(profile, str) or not profile:
            raise ValueError("a camera board needs [camera] profile = \"FILE\" in the "
                             "configuration (made by kharbga-board calibrate camera)")
        self.stream = CameraStream(device, profile)
        self.events: queue.Queue[Event] = self.stream.events  # type: ignore[assignment]

    def start(self) -> None:
        self.stream.start()

    def show(self, state: dict[str, Any]) -> None:
        return None

    def preview(self) -> bytes:
        """What the camera sees, with the grid and each square's reading."""
        return self.stream.preview()

    def close(self) -> None:
        self.stream.close()
