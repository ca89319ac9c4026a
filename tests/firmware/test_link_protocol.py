"""The shared protocol module on CPython: CRC, COBS, framing, resync,
message layouts.  (test_protocol_micropython.py runs the same file in
MicroPython and checks both give the same bytes.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.drivers import protocol as P


def test_crc_is_ccitt_false_with_its_check_value() -> None:
    assert P.crc16(b"123456789") == 0x29B1
    assert P.crc16(b"") == 0xFFFF


@given(st.binary(max_size=600))
def test_cobs_round_trip_and_no_zero_bytes(data: bytes) -> None:
    enc = P.cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert P.cobs_decode(enc) == data


def test_cobs_known_vectors() -> None:
    # From the COBS paper / Wikipedia examples.
    assert P.cobs_encode(b"\x00") == b"\x01\x01"
    assert P.cobs_encode(b"\x00\x00") == b"\x01\x01\x01"
    assert P.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert P.cobs_encode(b"\x11\x00\x00\x00") == b"\x02\x11\x01\x01\x01"
    assert P.cobs_encode(bytes(range(1, 255))) == b"\xff" + bytes(range(1, 255)) + b"\x01"


@pytest.mark.parametrize("bad", [b"\x05\x11", b"\x02\x00", b"\x00"])
def test_cobs_rejects_invalid_encodings(bad: bytes) -> None:
    with pytest.raises(ValueError):
        P.cobs_decode(bad)


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=200))
def test_frames_round_trip(kind: int, seq: int, payload: bytes) -> None:
    wire = P.encode(kind, seq, payload)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    d = P.Deframer()
    assert d.feed(wire) == [(kind, seq, payload)]
    assert d.errors() == 0


@given(st.lists(st.binary(max_size=40), max_size=8), st.integers(1, 64))
def test_deframer_takes_any_chunking(payloads: list[bytes], chunk: int) -> None:
    wire = b"".join(P.encode(P.OCC, i, p) for i, p in enumerate(payloads))
    d = P.Deframer()
    got = []
    for i in range(0, len(wire), chunk):
        got += d.feed(wire[i : i + chunk])
    assert [(k, s, p) for k, s, p in got] == [(P.OCC, i, p) for i, p in enumerate(payloads)]


def test_resynchronises_after_garbage_and_counts_it() -> None:
    good = P.encode(P.BUTTON, 7, P.pack_button(5, 1, 2))
    d = P.Deframer()
    # Garbage glued to a frame spoils that frame only; the next one is read.
    out = d.feed(b"\x13\x37\xfe" + good + good)
    assert out == [(P.BUTTON, 7, P.pack_button(5, 1, 2))]
    assert d.errors() == 1
    # A frame cut short by a lost tail is dropped; the next one survives.
    out = d.feed(good[:5] + b"\x00" + good)
    assert len(out) == 1 and d.errors() == 2


def test_oversize_frames_are_dropped_until_the_next_delimiter() -> None:
    d = P.Deframer()
    good = P.encode(P.OCC, 1, bytes(12))
    assert d.feed(b"\x01" * 5000 + b"\x00" + good) == [(P.OCC, 1, bytes(12))]
    assert d.oversize == 1


def test_every_single_and_double_bit_error_is_detected() -> None:
    body = bytearray(P.cobs_decode(P.encode(P.OCC, 3, P.pack_occ(123456, 0, 0x1F0F, 49))[:-1]))
    assert P.crc16(body) == 0
    bits = len(body) * 8
    for i in range(bits):
        flipped = bytearray(body)
        flipped[i // 8] ^= 1 << (i % 8)
        assert P.crc16(flipped) != 0
        for j in range(i + 1, bits):
            two = bytearray(flipped)
            two[j // 8] ^= 1 << (j % 8)
            assert P.crc16(two) != 0


def test_random_noise_yields_no_message() -> None:
    rng = random.Random(4)
    noise = bytes(rng.getrandbits(8) for _ in range(1_000_000))
    d = P.Deframer()
    assert d.feed(noise) == []
    assert d.errors() > 1000  # every would-be frame was looked at and refused


def test_corrupted_wire_bytes_never_make_a_different_message() -> None:
    rng = random.Random(5)
    payload = P.pack_occ(99, 0, (1 << 49) - 1, 49)
    wire = P.encode(P.OCC, 9, payload)
    for _ in range(20000):
        bad = bytearray(wire)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(len(bad) - 1)] ^= 1 << rng.randrange(8)
        for kind, seq, got in P.Deframer().feed(bytes(bad)):
            assert (kind, seq, got) == (P.OCC, 9, payload)


def test_seq_window() -> None:
    assert P.seq_after(5, 5) and P.seq_after(6, 5) and P.seq_after(3, 250)
    assert not P.seq_after(4, 5) and not P.seq_after(250, 3)


def test_message_layouts() -> None:
    assert P.parse_hello(P.pack_hello(0xDEADBEEF)) == (P.PROTOCOL_VERSION, 0xDEADBEEF)
    ack = P.pack_hello_ack(1, 2, 3, 7, 7, 0b111, 49, 4, (1, 2, 3), "pico")
    assert len(ack) == 21 + 4
    want = (P.PROTOCOL_VERSION, 1, 2, 3, 7, 7, 7, 49, 4, (1, 2, 3), "pico")
    assert P.parse_hello_ack(ack) == want
    occ = P.pack_occ(2**32 + 5, P.OCC_FULL, 1 << 48, 49)
    assert len(occ) == 12 and P.parse_occ(occ, 49) == (5, P.OCC_FULL, 1 << 48)
    beat = P.pack_heartbeat(7, 200, P.STATE_IDLE, 0x1234, 3, 49)
    assert P.parse_heartbeat(beat, 49) == (7, 200, P.STATE_IDLE, 0x1234, 3)
    assert P.parse_button(P.pack_button(1, 5, 2)) == (1, 5, 2)
    assert P.BUTTON_NAMES[P.parse_button(P.pack_button(1, 6, 2))[1]] == "hajeb"
    colours = [(i, 255 - i, 7) for i in range(49)]
    assert P.parse_leds(P.pack_leds(colours), 49) == bytes(v for c in colours for v in c)
    counters, chatter = P.parse_stats(P.pack_stats(list(range(10)), [1] * 49), 49)
    assert counters == list(range(10)) and chatter == [1] * 49
    cfg = P.pack_config(1000, 3000, 12, 150, 50, list(range(49)), list(range(48, -1, -1)))
    assert P.parse_config(cfg, 49) == (
        1000, 3000, 12, 150, 50, list(range(49)), list(range(48, -1, -1)))
    assert P.parse_config(P.pack_config(1000, 3000, 12, 150), 49)[5:] == (None, None)


@pytest.mark.parametrize(
    "parse",
    [
        lambda: P.parse_occ(bytes(11), 49),
        lambda: P.parse_occ(P.pack_occ(0, 0, 0, 49)[:-1] + b"\x80", 49),  # bit 55 > square 48
        lambda: P.parse_button(P.pack_button(0, 7, 0)),  # 6 is hajeb, the last
        lambda: P.parse_button(P.pack_button(0, 0, 3)),
        lambda: P.parse_leds(bytes(146), 49),
        lambda: P.parse_config(P.pack_config(1000, 3000, 12, 150, 10, [11] * 49), 49),
        lambda: P.parse_config(P.pack_config(1000, 3000, 12, 150, 0, None, [0] * 49), 49),
        lambda: P.parse_config(P.pack_config(10, 3000, 12, 150), 49),
        lambda: P.parse_hello_ack(bytes(20)),
        lambda: P.parse_heartbeat(bytes(14), 49),
    ],
)
def test_unusable_payloads_raise_protocol_error(parse: object) -> None:
    with pytest.raises(P.ProtocolError):
        parse()  # type: ignore[operator]


def test_the_protocols_button_names_are_the_vocabularys() -> None:
    # protocol.py runs on the Pico too, so it cannot import the board's
    # vocabulary: its copy of the buttons, in the order their numbers go
    # over the wire, is checked here.
    from controller.board.events import BUTTONS

    assert P.BUTTON_NAMES == tuple(BUTTONS)
