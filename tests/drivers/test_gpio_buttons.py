"""Buttons on MockFactory pins: presses become log Button events on a queue,
stamped by the injected clock, with the side for per-side buttons."""

from __future__ import annotations

import queue

import pytest
from gpiozero import InputDevice  # type: ignore[import-untyped]
from gpiozero.exc import GPIOPinInUse  # type: ignore[import-untyped]
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.board.events import BUTTONS, Button, Frame
from controller.drivers.buttons import ButtonConfig, ButtonPanel
from controller.drivers.config_table import ConfigError


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_each_button_posts_its_event(factory: MockFactory) -> None:
    """The six shared buttons have default pins; the H'ajeb button (the
    Sabou'iyya's declaration) only when given one."""
    out: queue.Queue[Frame | Button] = queue.Queue()
    now = [0.0]
    config = ButtonConfig((*ButtonConfig().pins, ("hajeb", None, 1)))
    assert [n for n, _s, _p in ButtonConfig().pins] == [b for b in BUTTONS if b != "hajeb"]
    with ButtonPanel(config, out, lambda: now[0], pin_factory=factory):
        for i, name in enumerate(BUTTONS):
            now[0] = 1.5 + i
            pin = config.pin_of(name)
            assert pin is not None
            press(factory, pin)
    got = [out.get_nowait() for _ in range(out.qsize())]
    assert got == [Button(1.5 + i, name, None) for i, name in enumerate(BUTTONS)]


def test_per_side_buttons_carry_the_side(factory: MockFactory) -> None:
    config = ButtonConfig.from_table(
        {"attacker": {"resign": 20, "hint": 16}, "defender": {"resign": 21}}
    )
    out: queue.Queue[Frame | Button] = queue.Queue()
    with ButtonPanel(config, out, lambda: 7.0, pin_factory=factory):
        press(factory, 21)
        press(factory, 16)
        factory.pin(20).drive_low()  # held: one press only
        factory.pin(20).drive_low()
    got = [out.get_nowait() for _ in range(out.qsize())]
    assert got == [
        Button(7.0, "resign", "defender"),
        Button(7.0, "hint", "attacker"),
        Button(7.0, "resign", "attacker"),
    ]


def test_closing_detaches_the_buttons(factory: MockFactory) -> None:
    out: queue.Queue[Frame | Button] = queue.Queue()
    panel = ButtonPanel(ButtonConfig(), out, lambda: 0.0, pin_factory=factory)
    panel.close()
    press(factory, 16)
    assert out.empty()
    InputDevice(16, pin_factory=factory).close()  # the pin is free again


def test_a_failed_construction_releases_the_buttons_already_made(factory: MockFactory) -> None:
    blocker = InputDevice(14, pin_factory=factory)  # the draw button's pin
    with pytest.raises(GPIOPinInUse):
        ButtonPanel(ButtonConfig(), queue.Queue(), lambda: 0.0, pin_factory=factory)
    for pin in (16, 20, 21, 2, 3):
        InputDevice(pin, pin_factory=factory, pull_up=True).close()
    blocker.close()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"pins": {"snooze": 16}}, "gpio.buttons.pins.snooze: unknown button"),
        ({"pins": {"hint": "16"}}, "gpio.buttons.pins.hint: must be a GPIO number"),
        ({"pins": {"hint": 16, "undo": 16}}, "GPIO16 is used twice"),
        ({"bounce_time": 5}, "gpio.buttons.bounce_time: must be at most 1.0"),
        ({"referee": {"hint": 5}}, "gpio.buttons.referee: unknown key"),
    ],
)
def test_bad_button_tables(table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        ButtonConfig.from_table(table)
