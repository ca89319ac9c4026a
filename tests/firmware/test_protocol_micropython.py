"""The very same protocol file, run in MicroPython, gives the same bytes
as in CPython, both ways."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from controller.drivers import protocol as P
from controller.drivers.firmware_sim import FirmwareSim, flash_files

pytestmark = pytest.mark.timeout(120)  # a hung simulator fails, never hangs the run

HERE = Path(__file__).resolve().parent
DRIVERS = Path(P.__file__).resolve().parent


def _messages() -> list[tuple[int, int, bytes]]:
    return [
        (P.HELLO, 0, P.pack_hello(0x12345678)),
        (P.HELLO_ACK, 0, P.pack_hello_ack(1, 2, 3, 7, 7, 7, 49, 4, (0, 1, 0), "kharbga-pico")),
        (P.OCC, 200, P.pack_occ(0xFFFFFFFF, P.OCC_FULL, (1 << 49) - 1, 49)),
        (P.HEARTBEAT, 0, P.pack_heartbeat(5, 6, 1, 0xABCD, 1 << 24, 49)),
        (P.BUTTON, 255, P.pack_button(1000000, 5, 2)),
        (P.LEDS, 3, P.pack_leds([(i, 0, 255 - i) for i in range(49)])),
        (P.CONFIG, 9, P.pack_config(1000, 3000, 12, 150, 49, list(range(49)), list(range(49)))),
        (P.STATS, 0, P.pack_stats(list(range(10)), list(range(49)))),
        (P.ACK, 7, P.pack_ack(P.LEDS)),
        (P.NOTICE, 0, P.pack_notice(1, "ValueError('x')")),
        (P.OCC, 1, bytes(250)),
    ]


def test_micropython_and_cpython_agree_byte_for_byte(micropython: str) -> None:
    rng = random.Random(1)
    msgs = _messages()
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
