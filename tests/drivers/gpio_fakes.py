"""Test doubles for the GPIO driver tests: an SPI bus that records the
bytes sent (the seam under neopixel_spi), an independent WS2812 encoder and
decoder, Blinka as it loads on a PC, and a simulated person for the guided
procedures."""

from __future__ import annotations

import sys
import types

import pytest

from controller.drivers.console import Prompt
from controller.drivers.mapping import BoardMapping
from controller.drivers.matrix_sim import MatrixSimulator

RESET_BYTES = 64  # 80 us of zeros at 6.4 MHz, before and after the data
BIT0, BIT1 = 0b11000000, 0b11110000
SPIDEV_BYTES = 4096  # the most one write on the Pi's spidev takes


class FakeSPI:
    """A ``busio.SPI`` stand-in: the lowest seam under neopixel_spi."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.frequency: int | None = None
        self.locked = False
        self.deinited = False

    def try_lock(self) -> bool:
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        self.locked = False

    def configure(
        self, baudrate: int = 100_000, polarity: int = 0, phase: int = 0, bits: int = 8
    ) -> None:
        self.frequency = baudrate

    def write(self, buf: bytes, start: int = 0, end: int | None = None) -> None:
        data = bytes(buf[start:end])
        if len(data) > SPIDEV_BYTES:  # as Blinka's write through py-spidev's writebytes
            raise OverflowError(f"Argument list size exceeds {SPIDEV_BYTES} bytes.")
        self.writes.append(data)

    def deinit(self) -> None:
        self.deinited = True


BLINKA_ON_A_PC = "WARNING: GENERIC_X86 is not fully supported. Some features may not work."


def fake_blinka(monkeypatch: pytest.MonkeyPatch, opens: FakeSPI | None = None) -> None:
    """Blinka's ``board`` and ``busio`` as on a PC: opening the SPI bus
    prints Blinka's warning twice to stdout, then raises the ImportError it
    raises there (or, given ``opens``, returns that bus)."""
    board = types.ModuleType("board")
    board.SCLK = board.MOSI = board.SCLK_1 = board.MOSI_1 = object()  # type: ignore[attr-defined]

    def spi(clock: object, MOSI: object) -> FakeSPI:  # noqa: N803 (Blinka's keyword)
        print(BLINKA_ON_A_PC)
        print(BLINKA_ON_A_PC)
        if opens is None:
            raise ImportError("cannot import name 'spiPorts' from 'microcontroller.pin' "
                              "(/venv/site-packages/microcontroller/pin.py)",
                              name="microcontroller.pin")
        return opens

    busio = types.ModuleType("busio")
    busio.SPI = spi  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "board", board)
    monkeypatch.setitem(sys.modules, "busio", busio)


def encode(grb_bytes: bytes) -> bytes:
    """What a WS2812 chain must receive over SPI for these colour bytes,
    written out independently of the library: a byte per bit, MSB first."""
    body = bytes(BIT1 if b >> i & 1 else BIT0 for b in grb_bytes for i in range(7, -1, -1))
    return bytes(RESET_BYTES) + body + bytes(RESET_BYTES)


def decode(frame: bytes, order: str = "GRB") -> list[tuple[int, int, int]]:
    """The (r, g, b) of every LED in an SPI frame (checks its framing)."""
    assert frame[:RESET_BYTES] == bytes(RESET_BYTES)
    assert frame[-RESET_BYTES:] == bytes(RESET_BYTES)
    body = frame[RESET_BYTES:-RESET_BYTES]
    assert len(body) % 24 == 0 and set(body) <= {BIT0, BIT1}
    raw = bytes(
        sum((body[i + k] == BIT1) << (7 - k) for k in range(8)) for i in range(0, len(body), 8)
    )
    out = []
    for i in range(0, len(raw), 3):
        ch = dict(zip(order, raw[i : i + 3], strict=True))
        out.append((ch["R"], ch["G"], ch["B"]))
    return out


class SimPerson:
    """Plays the person at the console on a simulated matrix: does what
    each prompt asks.  With ``spi`` and ``truth`` (the real LED positions)
    it follows the lights instead of the square names, and names the lit
    square when it differs from the one asked for."""

    def __init__(
        self,
        sim: MatrixSimulator,
        spi: FakeSPI | None = None,
        truth: BoardMapping | None = None,
        script: list[str] | None = None,
    ) -> None:
        self.sim = sim
        self.spi = spi
        self.truth = truth
        self.script = list(script or [])
        self.asked: list[Prompt] = []
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)

    def lit_squares(self) -> list[int]:
        assert self.spi is not None and self.truth is not None
        pixels = decode(self.spi.writes[-1])
        out = []
        for i, rgb in enumerate(pixels):
            if any(rgb):
                sq = self.truth.square_of_led(i)
                assert sq is not None
                out.append(sq)
        return out

    def ask(self, prompt: Prompt) -> str:
        self.asked.append(prompt)
        if self.script:
            answer = self.script.pop(0)
            if answer.startswith("!"):  # act wrongly: leave the board as it is
                return answer[1:]
        else:
            answer = ""
        if prompt.action == "clear":
            self.sim.set_occupied(0)
        elif prompt.action == "place":
            squares = list(prompt.squares)
            if self.spi is not None and self.truth is not None:
                lit = self.lit_squares()
                if len(lit) == 1 and lit != squares and not answer:
                    answer = self.truth.name(lit[0])
                squares = lit
            self.sim.set_occupied(sum(1 << s for s in squares))
        return answer
