"""The Pi <-> Pico serial protocol, shared by both ends (hardware.md, "The serial protocol").

This one file runs on CPython (the host driver, ``serial_link``) and on
MicroPython (the firmware, deployed as ``protocol.py``), so the two ends can
never disagree.  It therefore keeps to the subset both share: no
``__future__``, ``typing``, ``dataclasses`` or ``enum`` at run time, no
``bytes.hex``; annotations are never evaluated by MicroPython.

On the wire a message is ``COBS(body) 0x00`` where ``body`` is::

    type u8 | seq u8 | payload | CRC-16/CCITT-FALSE of the above, big-endian

Multi-byte payload fields are little-endian.  Type codes below 0x80 go from
the device to the host, 0x80 and above from the host to the device.
"""

import struct

PROTOCOL_VERSION = 1

# Device -> host
HELLO_ACK = 0x01
OCC = 0x02  # reliable (sequenced, acknowledged, retransmitted)
BUTTON = 0x03  # reliable
HEARTBEAT = 0x04
ACK = 0x05  # the device acknowledges a host message
STATS = 0x06
NOTICE = 0x07

# Host -> device
HELLO = 0x81
CONFIG = 0x82
SYNC = 0x83
LEDS = 0x84
HOST_ACK = 0x85  # cumulative ack of device events; also the host's keepalive
STATS_REQ = 0x86
STOP = 0x87

NAMES = {
    HELLO_ACK: "HELLO_ACK",
    OCC: "OCC",
    BUTTON: "BUTTON",
    HEARTBEAT: "HEARTBEAT",
    ACK: "ACK",
    STATS: "STATS",
    NOTICE: "NOTICE",
    HELLO: "HELLO",
    CONFIG: "CONFIG",
    SYNC: "SYNC",
    LEDS: "LEDS",
    HOST_ACK: "HOST_ACK",
    STATS_REQ: "STATS_REQ",
    STOP: "STOP",
}

# OCC flags
OCC_FULL = 0x01  # a full report asked for by SYNC
# HEARTBEAT state bits
STATE_IDLE = 0x01  # the host is silent: the LEDs show the idle pattern
STATE_OVERFLOW = 0x02  # events were dropped since the last heartbeat
STATE_NO_SESSION = 0x04  # no host has said HELLO since the device booted
# CONFIG flags
CONFIG_LED_MAP = 0x01
CONFIG_SWITCH_MAP = 0x02
# NOTICE codes
NOTICE_ERROR = 1  # an error inside the firmware's loop
NOTICE_CONFIG = 2  # a host message the device could not use
# Crossings with no point that read closed (their numbers, row * columns +
# column, spaced): sent before each heartbeat while there are any.
NOTICE_NO_POINT = 3
# The CONFIG refusal that means the device's board has another point count
CONFIG_WRONG_LENGTH = "CONFIG: maps of the wrong length"

# Buttons: the order of controller.board.sensorlog.BUTTONS (new ones are
# appended, so a button's index keeps its meaning); sides 0..2.
BUTTON_NAMES = ("hint", "exchange", "undo", "new", "resign", "draw", "hajeb")
SIDE_NAMES = (None, "attacker", "defender")
NO_LED = 0xFF  # a square without an LED in a map

MAX_BODY = 256  # type + seq + payload + CRC, before COBS
MAX_WIRE = MAX_BODY + MAX_BODY // 254 + 2  # COBS overhead and the delimiter
SEQ_WINDOW = 128  # sequence numbers are mod 256; half of them are "ahead"
STATS_COUNTERS = (
    "uptime_ms",
    "rx_frames",
    "rx_errors",
    "tx_frames",
    "tx_retransmits",
    "tx_dropped",
    "scans",
    "loop_max_us",
    "resets",
    "errors",
)


class ProtocolError(ValueError):
    """A message that is well framed but cannot be used."""


# ---------------------------------------------------------------------------
# CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, xorout 0;
# check("123456789") == 0x29B1.  Appending it big-endian makes the CRC of
# the whole body 0.


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return crc


# ---------------------------------------------------------------------------
# COBS (Cheshire and Baker): no 0x00 in the output, so 0x00 ends a frame.


def cobs_encode(data: bytes | bytearray) -> bytes:
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes | bytearray) -> bytes:
    """The decoded bytes; :class:`ValueError` for an invalid encoding."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the end")
        chunk = data[i + 1 : end]
        if chunk.find(b"\x00") >= 0:
            raise ValueError("zero byte inside a COBS frame")
        out.extend(chunk)
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(kind: int, seq: int, payload: bytes | bytearray = b"") -> bytes:
    """One message as wire bytes, the 0x00 delimiter included."""
    body = bytearray(2 + len(payload) + 2)
    body[0] = kind
    body[1] = seq & 0xFF
    body[2 : 2 + len(payload)] = payload
    crc = crc16(memoryview(body)[: 2 + len(payload)])
    body[-2] = crc >> 8
    body[-1] = crc & 0xFF
    if len(body) > MAX_BODY:
        raise ValueError("message too long")
    return cobs_encode(body) + b"\x00"


class Deframer:
    """Splits a byte stream into checked messages ``(type, seq, payload)``.

    Resynchronisation: a frame is whatever lies between two 0x00 bytes.  A
    frame that is too long, not valid COBS or fails the CRC is dropped and
    counted, and reading goes on after the next 0x00.  Empty frames (two
    delimiters in a row) are ignored.  Nothing raises on bad input.
    """

    def __init__(self) -> None:
        self.buf = bytearray()
        self.hunting = False  # discarding an oversize frame until 0x00
        self.frames = 0
        self.crc_errors = 0
        self.cobs_errors = 0
        self.oversize = 0
        self.short = 0

    def errors(self) -> int:
        return self.crc_errors + self.cobs_errors + self.oversize + self.short

    def reset(self) -> None:
        self.buf = bytearray()
        self.hunting = False

    def feed(self, data: bytes | bytearray) -> list[tuple[int, int, bytes]]:
        out: list[tuple[int, int, bytes]] = []
        start = 0
        n = len(data)
        while start < n:
            zero = data.find(b"\x00", start)
            end = n if zero < 0 else zero
            if not self.hunting:
                self.buf.extend(data[start:end])
                if len(self.buf) > MAX_WIRE:
                    self.oversize += 1
                    self.buf = bytearray()
                    self.hunting = True
            if zero < 0:
                break
            if self.hunting:
                self.hunting = False
            elif self.buf:
                msg = self._frame(self.buf)
                if msg is not None:
                    out.append(msg)
            self.buf = bytearray()
            start = zero + 1
        return out

    def _frame(self, raw: bytes | bytearray) -> tuple[int, int, bytes] | None:
        try:
            body = cobs_decode(raw)
        except ValueError:
            self.cobs_errors += 1
            return None
        if len(body) < 4:
            self.short += 1
            return None
        if crc16(body) != 0:
            self.crc_errors += 1
            return None
        self.frames += 1
        return body[0], body[1], body[2:-2]


def seq_after(seq: int, ref: int) -> bool:
    """Is ``seq`` at or after ``ref`` in the mod-256 window?"""
    return (seq - ref) & 0xFF < SEQ_WINDOW


# ---------------------------------------------------------------------------
# Squares as bits: bit i = square i (a1, b1, .., g1, a2, ..), little-endian.


def square_bytes(squares: int) -> int:
    return (squares + 7) // 8


def pack_bits(value: int, squares: int) -> bytes:
    return value.to_bytes(square_bytes(squares), "little")


def unpack_bits(data: bytes | bytearray, squares: int) -> int:
    if len(data) != square_bytes(squares):
        raise ProtocolError("bitmap of the wrong length")
    value = int.from_bytes(data, "little")
    if value >> squares:
        raise ProtocolError("bits set beyond the last square")
    return value


def _need(payload: bytes | bytearray, size: int, name: str) -> None:
    if len(payload) != size:
        raise ProtocolError(name + ": payload of the wrong length")


# ---------------------------------------------------------------------------
# Payloads.  pack_* build them, parse_* check and take them apart (raising
# ProtocolError).  Times are device microseconds mod 2**32.

_HELLO_ACK = "<BIIIBBBBB3B"  # 21 bytes, then the firmware name (ASCII)


def pack_hello(nonce: int) -> bytes:
    return struct.pack("<BI", PROTOCOL_VERSION, nonce & 0xFFFFFFFF)


def parse_hello(payload: bytes | bytearray) -> tuple[int, int]:
    """(version, nonce)"""
    if len(payload) < 5:
        raise ProtocolError("HELLO: payload too short")
    version, nonce = struct.unpack("<BI", payload[:5])
    return version, nonce


def pack_hello_ack(
    nonce: int,
    boot: int,
    now: int,
    rows: int,
    cols: int,
    sides: int,
    leds: int,
    next_seq: int,
    fw_version: tuple[int, int, int],
    name: str,
) -> bytes:
    head = struct.pack(
        _HELLO_ACK,
        PROTOCOL_VERSION,
        nonce & 0xFFFFFFFF,
        boot & 0xFFFFFFFF,
        now & 0xFFFFFFFF,
        rows,
        cols,
        sides,
        leds,
        next_seq & 0xFF,
        fw_version[0],
        fw_version[1],
        fw_version[2],
    )
    return head + name.encode()[:32]


def parse_hello_ack(
    payload: bytes | bytearray,
) -> tuple[int, int, int, int, int, int, int, int, int, tuple[int, int, int], str]:
    """(version, nonce, boot, now, rows, cols, sides, leds, next_seq,
    fw_version, name).  A newer device may append fields; they are ignored
    up to the name, which is the rest."""
    size = struct.calcsize(_HELLO_ACK)
    if len(payload) < size:
        raise ProtocolError("HELLO_ACK: payload too short")
    f = struct.unpack(_HELLO_ACK, payload[:size])
    name = bytes(payload[size:]).decode("ascii", "replace") if len(payload) > size else ""
    return f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], (f[9], f[10], f[11]), name


def pack_config(
    heartbeat_ms: int,
    idle_ms: int,
    debounce_ms: int,
    retry_ms: int,
    led_count: int = 0,
    led_map: "list[int] | tuple[int, ...] | None" = None,
    switch_map: "list[int] | tuple[int, ...] | None" = None,
) -> bytes:
    flags = (CONFIG_LED_MAP if led_map is not None else 0) | (
        CONFIG_SWITCH_MAP if switch_map is not None else 0
    )
    out = struct.pack("<HHBHBB", heartbeat_ms, idle_ms, debounce_ms, retry_ms, led_count, flags)
    if led_map is not None:
        out += bytes(led_map)
    if switch_map is not None:
        out += bytes(switch_map)
    return out


def parse_config(
    payload: bytes | bytearray, squares: int, switches: "int | None" = None
) -> tuple[int, int, int, int, int, list[int] | None, list[int] | None]:
    """(heartbeat_ms, idle_ms, debounce_ms, retry_ms, led_count, led_map,
    switch_map); the maps are None when not sent.  ``squares`` is the
    board's point count, ``switches`` the crossings of its matrix (the
    same by default: the switch map must then be a permutation; with more
    crossings than points, each point names its own crossing, or
    ``NO_LED`` for a point with no switch)."""
    if len(payload) < 9:
        raise ProtocolError("CONFIG: payload too short")
    hb, idle, deb, retry, count, flags = struct.unpack("<HHBHBB", payload[:9])
    rest = payload[9:]
    want = squares * ((flags & CONFIG_LED_MAP) != 0) + squares * ((flags & CONFIG_SWITCH_MAP) != 0)
    if len(rest) != want:
        raise ProtocolError(CONFIG_WRONG_LENGTH)
    led_map = None
    switch_map = None
    if flags & CONFIG_LED_MAP:
        led_map = list(rest[:squares])
        rest = rest[squares:]
        for i in led_map:
            if i != NO_LED and i >= count:
                raise ProtocolError("CONFIG: LED index beyond the chain")
    if flags & CONFIG_SWITCH_MAP:
        switch_map = list(rest[:squares])
        if switches is None or switches == squares:
            if sorted(switch_map) != list(range(squares)):
                raise ProtocolError("CONFIG: the switch map is not a permutation")
        else:
            used = [s for s in switch_map if s != NO_LED]
            if len(set(used)) != len(used) or any(s >= switches for s in used):
                raise ProtocolError("CONFIG: the switch map repeats or leaves the matrix")
    if hb < 50 or idle < 100 or retry < 10:
        raise ProtocolError("CONFIG: timing out of range")
    return hb, idle, deb, retry, count, led_map, switch_map


def pack_occ(now: int, flags: int, bits: int, squares: int) -> bytes:
    return struct.pack("<IB", now & 0xFFFFFFFF, flags) + pack_bits(bits, squares)


def parse_occ(payload: bytes | bytearray, squares: int) -> tuple[int, int, int]:
    """(time, flags, bits)"""
    _need(payload, 5 + square_bytes(squares), "OCC")
    now, flags = struct.unpack("<IB", payload[:5])
    return now, flags, unpack_bits(payload[5:], squares)


def pack_heartbeat(
    now: int, next_seq: int, state: int, session: int, bits: int, squares: int
) -> bytes:
    head = struct.pack("<IBBH", now & 0xFFFFFFFF, next_seq & 0xFF, state, session & 0xFFFF)
    return head + pack_bits(bits, squares)


def parse_heartbeat(payload: bytes | bytearray, squares: int) -> tuple[int, int, int, int, int]:
    """(time, next_seq, state, session, bits); session is the low 16 bits
    of the nonce of the HELLO that started the device's session."""
    _need(payload, 8 + square_bytes(squares), "HEARTBEAT")
    now, next_seq, state, session = struct.unpack("<IBBH", payload[:8])
    return now, next_seq, state, session, unpack_bits(payload[8:], squares)


def pack_button(now: int, button: int, side: int) -> bytes:
    return struct.pack("<IBB", now & 0xFFFFFFFF, button, side)


def parse_button(payload: bytes | bytearray) -> tuple[int, int, int]:
    """(time, button, side); button indexes BUTTON_NAMES, side SIDE_NAMES."""
    _need(payload, 6, "BUTTON")
    now, button, side = struct.unpack("<IBB", payload)
    if button >= len(BUTTON_NAMES) or side >= len(SIDE_NAMES):
        raise ProtocolError("BUTTON: unknown button or side")
    return now, button, side


def pack_leds(colours: "list[tuple[int, int, int]] | tuple[tuple[int, int, int], ...]") -> bytes:
    out = bytearray(3 * len(colours))
    i = 0
    for r, g, b in colours:
        out[i] = r
        out[i + 1] = g
        out[i + 2] = b
        i += 3
    return bytes(out)


def parse_leds(payload: bytes | bytearray, squares: int) -> bytes:
    _need(payload, 3 * squares, "LEDS")
    return bytes(payload)


def pack_stats(counters: "list[int] | tuple[int, ...]", chatter: "list[int]") -> bytes:
    out = bytearray()
    for c in counters:
        out += struct.pack("<I", min(c, 0xFFFFFFFF))
    for c in chatter:
        out += struct.pack("<H", min(c, 0xFFFF))
    return bytes(out)


def parse_stats(payload: bytes | bytearray, squares: int) -> tuple[list[int], list[int]]:
    """(counters in STATS_COUNTERS order, chatter count per square)"""
    n = len(STATS_COUNTERS)
    _need(payload, 4 * n + 2 * squares, "STATS")
    counters = list(struct.unpack("<" + "I" * n, payload[: 4 * n]))
    chatter = list(struct.unpack("<" + "H" * squares, payload[4 * n :]))
    return counters, chatter


def pack_ack(kind: int) -> bytes:
    return bytes((kind,))


def parse_ack(payload: bytes | bytearray) -> int:
    """The type of the acknowledged host message (its seq is the frame's)."""
    _need(payload, 1, "ACK")
    return payload[0]


def pack_notice(code: int, text: str) -> bytes:
    return bytes((code & 0xFF,)) + text.encode()[:200]


def parse_notice(payload: bytes | bytearray) -> tuple[int, str]:
    if not payload:
        raise ProtocolError("NOTICE: empty")
    return payload[0], bytes(payload[1:]).decode("ascii", "replace")
