"""The board's push buttons on the Pi's GPIO (gpiozero ``Button``).

Each button is wired from its GPIO to ground (internal pull-up).  A press
puts a :class:`~controller.board.sensorlog.Button` event, stamped by the
injected clock, on the output queue; that is all the callback does, on
whatever thread gpiozero calls it from: the service reads the queue on its
own thread.

Configuration (``[gpio.buttons]``): shared buttons (the reconciler takes
the side to move) in ``[gpio.buttons.pins]``, per-side ones in
``[gpio.buttons.attacker]`` and ``[gpio.buttons.defender]``::

    [gpio.buttons]
    bounce_time = 0.05

    [gpio.buttons.pins]
    hint = 16
    undo = 21

    [gpio.buttons.attacker]
    resign = 20

    [gpio.buttons.defender]
    resign = 2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from gpiozero import Button as GpioButton  # type: ignore[import-untyped]

from controller.board.events import BUTTONS, Button

from .config_table import ConfigError, Table, check_pins
from .gpio_matrix import Sink

__all__ = ["ButtonConfig", "ButtonPanel", "SIDES"]

WHERE = "gpio.buttons"
SIDES = ("attacker", "defender")
_GROUPS = (("pins", None), ("attacker", "attacker"), ("defender", "defender"))


@dataclass(frozen=True)
class ButtonConfig:
    """Which GPIO each button is on: ``(name, side or None, pin)``."""

    pins: tuple[tuple[str, str | None, int], ...] = (
        ("hint", None, 16),
        ("exchange", None, 20),
        ("undo", None, 21),
        ("new", None, 2),
        ("resign", None, 3),
        ("draw", None, 14),
    )
    bounce_time: float | None = 0.05

    def __post_init__(self) -> None:
        seen: set[tuple[str, str | None]] = set()
        for name, side, _pin in self.pins:
            if name not in BUTTONS:
                raise ConfigError(f"{WHERE}: unknown button {name!r} (known: {', '.join(BUTTONS)})")
            if side is not None and side not in SIDES:
                raise ConfigError(f"{WHERE}: side must be attacker or defender, not {side!r}")
            if (name, side) in seen:
                raise ConfigError(f"{WHERE}: button {name} ({side or 'shared'}) given twice")
            seen.add((name, side))
        check_pins([p for _n, _s, p in self.pins], f"{WHERE}: button pins")
        if self.bounce_time is not None and not 0 < self.bounce_time <= 1:
            raise ConfigError(
                f"{WHERE}.bounce_time: must be 0 (off) to 1 second, not {self.bounce_time}"
            )

    @property
    def gpio(self) -> tuple[int, ...]:
        return tuple(p for _n, _s, p in self.pins)

    def pin_of(self, name: str, side: str | None = None) -> int | None:
        return next((p for n, s, p in self.pins if n == name and s == side), None)

    @classmethod
    def from_table(cls, data: Mapping[str, object] | None) -> ButtonConfig:
        """Absent ``pins``, ``attacker`` and ``defender`` tables mean the
        default shared buttons."""
        t = Table(data, WHERE)
        bounce = t.get_float("bounce_time", 0.05, 0.0, 1.0)
        groups = [(g, side) for g, side in _GROUPS if t.has(g)]
        pins: list[tuple[str, str | None, int]] = []
        for group, side in groups:
            sub = t.sub(group)
            for name in sub.keys():
                if name not in BUTTONS:
                    raise sub.error(name, f"unknown button (known: {', '.join(BUTTONS)})")
                value = sub.data[name]
                if isinstance(value, bool) or not isinstance(value, int):
                    raise sub.error(name, "must be a GPIO number")
                pins.append((name, side, value))
        t.done()
        default = cls()
        return cls(tuple(pins) if groups else default.pins, bounce if bounce > 0 else None)

    def to_table(self) -> dict[str, object]:
        out: dict[str, object] = {"bounce_time": self.bounce_time or 0.0}
        for group, side in _GROUPS:
            pins = {n: p for n, s, p in self.pins if s == side}
            if pins:
                out[group] = pins
        return out


class ButtonPanel:
    """The buttons as gpiozero devices; presses go to ``out``."""

    def __init__(
        self,
        config: ButtonConfig,
        out: Sink,
        clock: Callable[[], float],
        *,
        pin_factory: Any = None,
    ) -> None:
        self.config = config
        self._out = out
        self._clock = clock
        self.buttons: dict[tuple[str, str | None], Any] = {}
        try:
            for name, side, pin in config.pins:
                device = GpioButton(
                    pin, pull_up=True, bounce_time=config.bounce_time, pin_factory=pin_factory
                )
                self.buttons[(name, side)] = device
                device.when_pressed = partial(self._pressed, name, side)
        except BaseException:
            self.close()
            raise

    def _pressed(self, name: str, side: str | None) -> None:
        # Runs on gpiozero's thread: only post the event.
        self._out.put(Button(self._clock(), name, side))

    def close(self) -> None:
        for device in self.buttons.values():
            device.when_pressed = None
            device.close()
        self.buttons = {}

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
