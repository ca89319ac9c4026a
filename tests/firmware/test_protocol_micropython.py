"""The very same protocol file, run in MicroPython, gives the same bytes
as in CPython, both ways."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from protocol_messages import messages

from controller.drivers import protocol as P
from controller.drivers.firmware_sim import FirmwareSim, flash_files

pytestmark = pytest.mark.timeout(120)  # a hung simulator fails, never hangs the run

HERE = Path(__file__).resolve().parent
DRIVERS = Path(P.__file__).resolve().parent


def test_micropython_and_cpython_agree_byte_for_byte(micropython: str) -> None:
    rng = random.Random(1)
    msgs: list[tuple[int, int, bytes]] = messages(P)
    stream = bytearray()
    for kind, seq, payload in msgs:
        stream += bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 9)))  # garbage
        stream += b"\x00" + P.encode(kind, seq, payload)
    proc = subprocess.run(
        [micropython, str(HERE / "mp_protocol.py"), str(DRIVERS)],
        input=bytes(stream),
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert Path(lines[0].split()[1]).resolve() == Path(P.__file__).resolve()
    assert lines[1] == "crc 10673"  # 0x29B1
    encoded = [bytes.fromhex(line.split()[1]) for line in lines if line.startswith("enc ")]
    assert encoded == [P.encode(k, s, p) for k, s, p in msgs]
    decoded = [line.split()[1:] for line in lines if line.startswith("dec ")]
    assert [(int(k), int(s), bytes.fromhex(p[0]) if p else b"") for k, s, *p in decoded] == msgs
    errors = next(line for line in lines if line.startswith("errors"))
    assert errors != "errors 0 0 0 0"  # the garbage was seen and dropped
    assert "config (1000, 3000, 12, 150, 49)" in lines


def test_the_firmware_flash_holds_the_drivers_protocol_file(micropython: str) -> None:
    files = flash_files()
    assert files["protocol.py"].resolve() == Path(P.__file__).resolve()
    assert {"main.py", "app.py", "board.py", "matrix.py", "leds.py", "usb.py", "link.py"} <= set(
        files
    )
    sim = FirmwareSim(micropython=micropython)
    try:
        assert (sim.flash / "protocol.py").resolve() == Path(P.__file__).resolve()
    finally:
        sim.close()
