"""The host's session (LinkProtocol) against a scripted device: handshake,
numbering, duplicates and gaps, heartbeats, times, resends, bad input.
And SerialLink itself on pyserial's loop:// and on a port that cannot open."""

from __future__ import annotations

import logging
import os
import queue
import random
import socket
import time
from pathlib import Path

import pytest
from fake_clock import FakeClock
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.board.events import Button, Frame
from controller.drivers import protocol as P
from controller.drivers.serial_link import (
    LinkError,
    LinkProtocol,
    LinkSettings,
    SerialLink,
    never_a_port,
)


class FakePort:
    def __init__(self) -> None:
        self.sent = bytearray()
        self.deframer = P.Deframer()
        self.seen: list[tuple[int, int, bytes]] = []
        self.broken = False  # writing fails, as on a port that went away

    def write(self, data: bytes) -> None:
        if self.broken:
            raise OSError(5, "write failed")
        self.sent += data

    def take(self) -> list[tuple[int, int, bytes]]:
        """Messages the host wrote since the last take."""
        out = self.deframer.feed(bytes(self.sent))
        self.sent.clear()
        self.seen += out
        return out


class Device:
    """A scripted device talking to one LinkProtocol."""

    def __init__(self, proto: LinkProtocol, port: FakePort, clock: FakeClock) -> None:
        self.proto = proto
        self.port = port
        self.clock = clock
        self.nonce = 0
        self.seq = 0

    def send(self, kind: int, seq: int, payload: bytes) -> None:
        self.proto.data_received(P.encode(kind, seq, payload))

    def event_occ(self, t_us: int, bits: int, flags: int = 0, seq: int | None = None) -> None:
        s = self.seq if seq is None else seq
        self.send(P.OCC, s, P.pack_occ(t_us, flags, bits, 49))
        if seq is None:
            self.seq = (self.seq + 1) & 0xFF

    def handshake(self, t_us: int = 1000, bits: int = 0, boot: int = 77) -> None:
        self.proto.connection_made(self.port)
        msgs = self.port.take()
        hello = [m for m in msgs if m[0] == P.HELLO][-1]
        self.nonce = P.parse_hello(hello[2])[1]
        self.seq = 0
        ack = P.pack_hello_ack(self.nonce, boot, t_us, 7, 7, 7, 49, 0, (0, 1, 0), "fake")
        self.send(P.HELLO_ACK, 0, ack)
        msgs = self.port.take()
        assert [m[0] for m in msgs] == [P.CONFIG]  # no SYNC before the CONFIG is in
        self.send(P.ACK, msgs[0][1], P.pack_ack(P.CONFIG))
        msgs = self.port.take()
        assert [m[0] for m in msgs] == [P.SYNC]
        self.event_occ(t_us, bits, P.OCC_FULL)

    def heartbeat(self, t_us: int, bits: int, session: int | None = None, state: int = 0) -> None:
        s = self.nonce & 0xFFFF if session is None else session
        self.send(P.HEARTBEAT, 0, P.pack_heartbeat(t_us, self.seq, state, s, bits, 49))


def make(**kw: object) -> tuple[LinkProtocol, Device, queue.Queue[Frame | Button]]:
    events: queue.Queue[Frame | Button] = queue.Queue()
    clock = FakeClock()
    proto = LinkProtocol(events, clock=clock, **kw)  # type: ignore[arg-type]
    port = FakePort()
    return proto, Device(proto, port, clock), events


def drain(q: queue.Queue[Frame | Button]) -> list[Frame | Button]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


def test_handshake_then_the_full_report_is_the_first_frame() -> None:
    proto, dev, events = make()
    dev.handshake(bits=0b101)
    assert proto.snapshot().connected
    got = drain(events)
    assert len(got) == 1 and isinstance(got[0], Frame) and got[0].occupied == 0b101
    s = proto.snapshot()
    assert s.connects == 1 and s.reconnects == 0
    assert s.device is not None and (s.device.rows, s.device.firmware) == (7, "fake")
    assert dev.port.seen[0][0] == P.HELLO


def test_answers_to_old_hellos_and_wrong_boards_are_refused() -> None:
    proto, dev, _ = make()
    proto.connection_made(dev.port)
    nonce = P.parse_hello(dev.port.take()[-1][2])[1]
    dev.send(P.HELLO_ACK, 0, P.pack_hello_ack(nonce ^ 1, 1, 0, 7, 7, 7, 49, 0, (0, 1, 0), "x"))
    assert dev.port.take() == []  # stale nonce: ignored
    dev.send(P.HELLO_ACK, 0, P.pack_hello_ack(nonce, 1, 0, 5, 5, 7, 25, 0, (0, 1, 0), "x"))
    assert "5x5" in proto.snapshot().last_error and not proto.snapshot().connected
    assert dev.port.take() == []
    for _ in range(2):
        dev.clock.t += 2.0
        dev.heartbeat(0, 0, state=P.STATE_NO_SESSION)  # the device is alive
        proto.tick()
        assert dev.port.take() == []  # a wrong board is not asked again at once
    dev.clock.t += 1.5
    proto.tick()
    hello = dev.port.take()
    assert [m[0] for m in hello] == [P.HELLO] and P.parse_hello(hello[0][2])[1] != nonce


def test_other_protocol_version_is_refused() -> None:
    proto, dev, _ = make()
    proto.connection_made(dev.port)
    nonce = P.parse_hello(dev.port.take()[-1][2])[1]
    ack = bytearray(P.pack_hello_ack(nonce, 1, 0, 7, 7, 7, 49, 0, (0, 1, 0), "x"))
    ack[0] = P.PROTOCOL_VERSION + 1
    dev.send(P.HELLO_ACK, 0, bytes(ack))
    assert "version" in proto.snapshot().last_error and not proto.snapshot().connected


def test_events_arrive_once_and_in_order_whatever_the_device_resends() -> None:
    proto, dev, events = make()
    dev.handshake()
    drain(events)
    dev.event_occ(2000, 1)  # seq 1
    dev.event_occ(2000, 1, seq=1)  # resent: a duplicate
    dev.event_occ(4000, 3, seq=3)  # seq 2 lost: a gap
    acks = [m for m in dev.port.take() if m[0] == P.HOST_ACK]
    assert acks[-1][1] == 2  # "I want 2"
    dev.event_occ(3000, 2, seq=2)
    dev.event_occ(4000, 3, seq=3)  # the device resends from 2
    dev.send(P.BUTTON, 4, P.pack_button(5000, 2, 2))
    got = drain(events)
    assert [(type(e).__name__, getattr(e, "occupied", None)) for e in got] == [
        ("Frame", 1),
        ("Frame", 2),
        ("Frame", 3),
        ("Button", None),
    ]
    assert got[3] == Button(got[3].t, "undo", "defender")
    s = proto.snapshot()
    assert (s.duplicates, s.out_of_order, s.occupancy, s.buttons) == (1, 1, 4, 1)
    assert [m for m in dev.port.take() if m[0] == P.HOST_ACK][-1][1] == 5


def test_a_flood_the_host_cannot_take_keeps_the_latest_board_in_bounded_memory(
        caplog: pytest.LogCaptureFixture) -> None:
    # Before: the queue had no bound, and a device flooding the link faster
    # than the service took its readings grew the host's memory without end.
    events: queue.Queue[Frame | Button] = queue.Queue(3)
    clock = FakeClock()
    proto = LinkProtocol(events, clock=clock)
    dev = Device(proto, FakePort(), clock)
    dev.handshake(t_us=1000, bits=0)  # the full report: 1 in the queue
    with caplog.at_level(logging.WARNING, logger="controller.drivers"):
        for bits in range(1, 9):  # 8 frames, room for 2
            dev.event_occ(2000 + bits, bits)
        dev.send(P.BUTTON, dev.seq, P.pack_button(3000, 2, 2))  # pressed in the flood
        dev.seq += 1
    assert events.qsize() == 3 and proto.held is not None and proto.held.occupied == 8
    got = drain(events)
    assert [e.occupied for e in got if isinstance(e, Frame)] == [0, 1, 2]
    proto.tick()  # room again: the latest board goes in, after what came before it
    latest = drain(events)
    assert [e.occupied for e in latest if isinstance(e, Frame)] == [8] and len(latest) == 1
    assert proto.held is None and latest[0].t >= got[-1].t
    assert proto.snapshot().host_dropped == 6  # frames 3-7 and the press
    said = [r.getMessage() for r in caplog.records if "faster than this host" in r.getMessage()]
    assert len(said) == 1, said


def test_heartbeats_are_frames_only_when_no_event_is_missing() -> None:
    proto, dev, events = make()
    dev.handshake()
    drain(events)
    dev.heartbeat(2000, 0b11)
    assert [e.occupied for e in drain(events)] == [0b11]  # type: ignore[union-attr]
    dev.seq = 5  # the device has sent events 1..4, all lost
    dev.heartbeat(3000, 0b111)
    assert drain(events) == []
    assert [m for m in dev.port.take() if m[0] == P.HOST_ACK][-1][1] == 1  # resend from 1


def test_a_heartbeat_from_another_session_starts_a_new_handshake() -> None:
    proto, dev, events = make()
    dev.handshake()
    dev.port.take()
    dev.heartbeat(2000, 0, state=P.STATE_NO_SESSION, session=0)  # the Pico rebooted
    s = proto.snapshot()
    assert not s.connected and s.resyncs == 1
    assert [m[0] for m in dev.port.take()] == [P.HELLO]
    dev.handshake(t_us=50, boot=78, bits=0b1)
    s = proto.snapshot()
    assert s.connected and s.reconnects == 1 and s.device_restarts == 1


def test_frame_times_follow_the_device_clock_across_its_wrap() -> None:
    proto, dev, events = make()
    start = 0xFFFFFFFF - 500_000  # the 32-bit clock wraps 0.5 s into the session
    dev.handshake(t_us=start)
    first = drain(events)[0]
    dev.clock.t += 1.0
    dev.event_occ((start + 1_000_000) & 0xFFFFFFFF, 1)
    dev.clock.t += 1.0
    dev.event_occ((start + 1_250_000) & 0xFFFFFFFF, 3)
    a, b = drain(events)
    # exact but for the offset's allowed creep (500 ppm)
    assert a.t - first.t == pytest.approx(1.0, abs=0.002)
    assert b.t - a.t == pytest.approx(0.25, abs=0.002)
    assert b.t <= dev.clock.t  # never later than it arrived


def test_the_offset_keeps_the_least_delay_seen() -> None:
    proto, dev, events = make()
    dev.handshake(t_us=0)  # arrives at host 100.0: offset 100.0
    drain(events)
    dev.clock.t = 102.3  # 0.3 s of delay
    dev.heartbeat(2_000_000, 0)
    dev.clock.t = 103.0  # a quick one
    dev.heartbeat(2_990_000, 0)
    t1 = [f.t for f in drain(events)]
    # the 0.3 s delay of the first did not move it (500 ppm creep aside)
    assert t1 == [pytest.approx(102.0, abs=0.003), pytest.approx(102.99, abs=0.003)]


def test_a_given_timebase_maps_device_time() -> None:
    proto, dev, events = make(timebase=lambda us: (us - 1000) / 1e6)
    dev.handshake(t_us=1000)
    dev.event_occ(1_501_000, 1)
    assert [e.t for e in drain(events)] == [0.0, 1.5]


def test_led_frames_are_resent_until_acknowledged_and_after_reconnecting() -> None:
    proto, dev, _ = make(settings=LinkSettings(request_retry=0.1))
    dev.handshake()
    dev.port.take()
    frame_a = P.pack_leds([(1, 2, 3)] * 49)
    proto.set_leds(frame_a)
    (kind, seq, payload), = dev.port.take()
    assert (kind, payload) == (P.LEDS, frame_a)
    dev.clock.t += 0.15
    proto.tick()
    assert [(m[0], m[1]) for m in dev.port.take() if m[0] == P.LEDS] == [(P.LEDS, seq)]
    dev.send(P.ACK, seq, P.pack_ack(P.LEDS))
    dev.clock.t += 0.15
    proto.tick()
    assert [m for m in dev.port.take() if m[0] == P.LEDS] == []
    proto.connection_lost(OSError("unplugged"))
    assert proto.snapshot().disconnects == 1 and "unplugged" in proto.snapshot().last_error
    dev.handshake()
    assert [m[2] for m in dev.port.take() if m[0] == P.LEDS] == [frame_a]


def test_a_late_ack_of_an_older_led_frame_does_not_stop_the_newer_being_resent() -> None:
    # Before: any ACK of LEDS cancelled the resend, whatever its number, so the
    # late ACK of frame A dropped frame B (lost on the wire) and the lights
    # stayed on the old frame.
    proto, dev, _ = make(settings=LinkSettings(request_retry=0.1))
    dev.handshake()
    dev.port.take()
    frame_a, frame_b = P.pack_leds([(1, 2, 3)] * 49), P.pack_leds([(9, 9, 9)] * 49)
    proto.set_leds(frame_a)
    (_, seq_a, _), = dev.port.take()
    proto.set_leds(frame_b)
    (_, seq_b, _), = dev.port.take()  # frame B lost on the wire
    assert seq_b != seq_a
    dev.send(P.ACK, seq_a, P.pack_ack(P.LEDS))  # the late ACK of frame A
    dev.clock.t += 0.15
    proto.tick()
    assert [(m[1], m[2]) for m in dev.port.take() if m[0] == P.LEDS] == [(seq_b, frame_b)]
    dev.send(P.ACK, seq_b, P.pack_ack(P.LEDS))
    dev.clock.t += 0.15
    proto.tick()
    assert [m for m in dev.port.take() if m[0] == P.LEDS] == []


def test_a_device_that_never_acknowledges_the_config_is_said_and_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    # Before: it answered HELLO, then the page said "no answer to the
    # handshake yet" for ever, and nothing was logged.
    proto, dev, _ = make()
    proto.connection_made(dev.port)
    nonce = P.parse_hello(dev.port.take()[-1][2])[1]
    dev.send(P.HELLO_ACK, 0, P.pack_hello_ack(nonce, 1, 0, 7, 7, 7, 49, 0, (0, 1, 0), "x"))
    dev.nonce = nonce
    with caplog.at_level(logging.WARNING, logger="controller.drivers"):
        for _ in range(16):  # 8 s of heartbeats: alive, but the CONFIG never acknowledged
            dev.clock.t += 0.5
            dev.heartbeat(0, 0)
            proto.tick()
    kinds = [m[0] for m in dev.port.take()]
    assert kinds.count(P.CONFIG) > 1 and not proto.dead  # still asked, never dropped
    said = [r.getMessage() for r in caplog.records if "CONFIG" in r.getMessage()]
    assert len(said) == 1, said  # once, not at every resend
    assert said[0].endswith("has not acknowledged the board's settings (CONFIG) in 3 s: "
                            "asking again (copy this version's firmware to the Pico: "
                            "hardware.md, \"Flashing the firmware\")")
    assert "has not acknowledged" in proto.snapshot().last_error
    assert not proto.snapshot().connected


def test_keepalive_and_device_silence() -> None:
    proto, dev, _ = make()
    dev.handshake()
    dev.port.take()
    dev.clock.t += 0.6
    proto.tick()
    assert [m[0] for m in dev.port.take()] == [P.HOST_ACK]
    assert not proto.dead
    dev.clock.t += 3.0
    proto.tick()
    assert proto.dead and proto.snapshot().timeouts == 1


def test_echoed_host_bytes_are_refused() -> None:
    proto, dev, events = make()
    proto.connection_made(dev.port)
    proto.data_received(bytes(dev.port.sent))  # a port that echoes
    s = proto.snapshot()
    assert s.bad_messages == 1 and not s.connected and drain(events) == []


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.integers(0, 2**32 - 1))
def test_no_bytes_crash_the_host(noise: bytes, seed: int) -> None:
    proto, dev, events = make()
    dev.handshake(bits=5)
    before = drain(events)
    rng = random.Random(seed)
    # noise, and noise cut into real frames
    good = P.encode(P.OCC, 1, P.pack_occ(9, 0, 6, 49))
    cut = rng.randrange(len(good))
    proto.data_received(noise)
    proto.data_received(good[:cut] + noise + good[cut:])
    proto.tick()
    assert len(before) == 1
    for e in drain(events):  # anything delivered is the real frame
        assert isinstance(e, Frame) and e.occupied == 6


def test_settings_and_led_frames_are_checked() -> None:
    with pytest.raises(LinkError):
        LinkSettings(heartbeat=5.0, device_timeout=3.0).check()
    with pytest.raises(LinkError):
        SerialLink("loop://", LinkSettings(led_count=10))
    with pytest.raises(ValueError):
        SerialLink("loop://", LinkSettings(led_count=10, led_map=(11,) * 49))  # beyond the chain
    link = SerialLink("loop://")
    with pytest.raises(LinkError):
        link.send_leds([(0, 0, 0)] * 48)
    with pytest.raises(LinkError):
        link.send_leds([(0, 0, 256)] * 49)


def test_a_port_that_echoes_never_connects_and_never_crashes() -> None:
    fast = LinkSettings(request_retry=0.02, read_timeout=0.005, reconnect_delay=0.01)
    with SerialLink("loop://", fast) as link:
        assert not link.wait_connected(0.3)
        s = link.stats()
        assert s.bad_messages >= 3 and s.frames >= 3 and not s.connected
    assert link.get(timeout=0) is None


def test_a_port_that_cannot_open_is_retried() -> None:
    calls = []

    def factory(url: str, **kw: object) -> object:
        calls.append(url)
        raise OSError("no such device")

    fast = LinkSettings(reconnect_delay=0.01)
    with SerialLink("/dev/ttyNOPE", fast, serial_factory=factory) as link:
        deadline = time.monotonic() + 5
        while link.stats().open_failures < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        s = link.stats()
    assert s.open_failures >= 3 and "no such device" in s.last_error
    assert len(calls) >= 3


def test_event_numbers_wrap_around() -> None:
    proto, dev, events = make()
    dev.handshake()
    drain(events)
    for i in range(600):  # past 255 twice
        dev.event_occ(2000 + i, i & 1)
    got = drain(events)
    assert len(got) == 600 and proto.snapshot().duplicates == 0
    assert [m for m in dev.port.take() if m[0] == P.HOST_ACK][-1][1] == 601 & 0xFF


def test_device_notices_and_overflows_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    proto, dev, _events = make()
    dev.handshake()
    caplog.set_level(logging.WARNING, logger="controller.drivers.link_protocol")
    for seq in range(50):  # a fault at every pass of the firmware's loop: said once
        dev.send(P.NOTICE, seq, P.pack_notice(1, "ValueError('boom')"))
    for _ in range(3):  # three overflowing heartbeats within ten seconds: one line
        dev.clock.t += 1.0
        dev.heartbeat(5000, 0, state=P.STATE_OVERFLOW)
    dev.clock.t += 10.0
    dev.heartbeat(6000, 0, state=P.STATE_OVERFLOW)
    said = [r.getMessage() for r in caplog.records]
    overflow = "serial link: the device dropped readings the host did not take"
    assert said == ["serial link: the device says 1: ValueError('boom')", overflow, overflow]
    assert proto.snapshot().device_overflows == 4
    dev.send(P.NOTICE, 50, P.pack_notice(1, "ValueError('boom')"))  # 13 s on: said again
    dev.send(P.NOTICE, 51, P.pack_notice(1, "OSError(5)"))  # another fault: said at once
    assert [r.getMessage() for r in caplog.records][3:] == [
        "serial link: the device says 1: ValueError('boom')",
        "serial link: the device says 1: OSError(5)"]


def test_a_fault_said_during_the_handshake_is_not_lost(caplog: pytest.LogCaptureFixture) -> None:
    # A firmware whose LED chain fails says so at boot, before the host's
    # HELLO is answered; that NOTICE was dropped with the old session's messages.
    proto, dev, _events = make()
    caplog.set_level(logging.WARNING, logger="controller.drivers.link_protocol")
    dev.send(P.NOTICE, 0, P.pack_notice(1, "OSError(5)"))
    assert [r.getMessage() for r in caplog.records] == [
        "serial link: the device says 1: OSError(5)"]
    assert proto.snapshot().notices == ("1: OSError(5)",)


def test_a_device_text_with_line_breaks_is_logged_on_one_line(
        caplog: pytest.LogCaptureFixture) -> None:
    """A NOTICE's text and the firmware's name are the device's words: a
    line break or a control character in them is shown as '?', so that a
    device (a garbled or foreign firmware) never writes lines of its own
    into the log or the doctor's report."""
    proto, dev, _events = make()
    proto.connection_made(dev.port)
    nonce = P.parse_hello(dev.port.take()[-1][2])[1]
    dev.send(P.HELLO_ACK, 0, P.pack_hello_ack(nonce, 1, 0, 7, 7, 7, 49, 0, (0, 1, 0),
                                              "pico\nfake"))
    assert proto.device is not None and proto.device.firmware == "pico?fake"
    caplog.set_level(logging.WARNING, logger="controller.drivers.link_protocol")
    dev.send(P.NOTICE, 1, P.pack_notice(1, "Traceback:\n  File \"app.py\"\x1b[2J"))
    assert [r.getMessage() for r in caplog.records] == [
        'serial link: the device says 1: Traceback:?  File "app.py"?[2J']
    assert proto.snapshot().notices[-1] == '1: Traceback:?  File "app.py"?[2J'


def test_a_port_failing_under_an_answer_is_the_link_lost_not_bad_input() -> None:
    proto, dev, _events = make()
    dev.handshake()
    dev.port.broken = True
    with pytest.raises(OSError):  # up to the port's thread, which reconnects
        dev.event_occ(2000, 1)  # its acknowledgement cannot be written
    assert proto.snapshot().bad_messages == 0
    dev.port.broken = False
    dev.send(P.OCC, 99, b"\x01")  # bad input still never raises
    assert proto.snapshot().bad_messages == 1
    assert proto.snapshot().last_error == "bad OCC from the device: payload of the wrong length"


def test_a_port_held_by_another_link_is_refused_in_words_and_left_alone() -> None:
    # A second kharbga-board (or a doctor --serial) on the port the service
    # reads: two hosts taking turns to start sessions on one Pico read half
    # the board's bytes each.  The second one is refused, and says why.
    master, slave = os.openpty()
    path = os.ttyname(slave)
    fast = LinkSettings(reconnect_delay=0.01, read_timeout=0.005)
    try:
        with SerialLink(path, fast) as first:
            deadline = time.monotonic() + 5
            while not first.stats().frames_sent and time.monotonic() < deadline:
                time.sleep(0.01)
            assert first.stats().frames_sent  # its HELLOs go out: the port is held
            with SerialLink(path, fast) as second:
                while second.stats().open_failures < 2 and time.monotonic() < deadline:
                    time.sleep(0.01)
                s = second.stats()
                problem = second.problem()
        assert s.open_failures >= 2 and s.frames_sent == 0
        assert problem == (f"the board on {path} is not connected (cannot open {path}: in use "
                           "by another program (another kharbga-board, or a doctor --serial?)); "
                           "trying again")
    finally:
        os.close(master)
        os.close(slave)


def test_a_port_that_does_not_exist_is_said_in_words() -> None:
    fast = LinkSettings(reconnect_delay=0.01)
    with SerialLink("/dev/ttyKHARBGA-NONE", fast) as link:
        deadline = time.monotonic() + 5
        while not link.stats().open_failures and time.monotonic() < deadline:
            time.sleep(0.01)
        assert link.stats().last_error == (
            "cannot open /dev/ttyKHARBGA-NONE: no such port (is the board's USB cable "
            "plugged in?)")


@pytest.mark.parametrize(("url", "words"), [
    ("foo://bar", "not a kind of port this program opens (a device path, or "
     "socket://HOST:PORT or rfc2217://HOST:PORT for a port over the network)"),
    ("socket://pi.local", "HOST:PORT expected after socket:// (the port a number from 1 to "
     "65535)"),
    ("rfc2217://pi.local:99999", "HOST:PORT expected after rfc2217:// (the port a number "
     "from 1 to 65535)"),
    ("socket://:7000", "HOST:PORT expected after socket://"),
])
def test_a_url_that_can_never_open_is_refused_at_once(url: str, words: str) -> None:
    # Before: taken, then pyserial's own text on the page ("invalid URL,
    # protocol 'foo' not known"; "'<=' not supported between instances of
    # 'int' and 'NoneType'") with the link trying it again for ever.
    problem = never_a_port(url)
    assert problem is not None and problem.startswith(f"cannot open {url}: {words}")
    assert never_a_port("socket://127.0.0.1:7000") is None
    assert never_a_port("rfc2217://pi.local:2217?timeout=3") is None


def test_a_port_over_the_network_that_does_not_answer_is_said_in_words() -> None:
    # Before: "Could not open port socket://...: [Errno 111] Connection refused".
    with socket.socket() as closed:  # a port bound and not listening: refused
        closed.bind(("127.0.0.1", 0))
        url = f"socket://127.0.0.1:{closed.getsockname()[1]}"
        fast = LinkSettings(reconnect_delay=0.01)
        with SerialLink(url, fast) as link:
            deadline = time.monotonic() + 5
            while not link.stats().open_failures and time.monotonic() < deadline:
                time.sleep(0.01)
            assert link.stats().last_error == (
                f"cannot open {url}: nothing answers at that port (is the serial server "
                "there running, on that port?)")


@pytest.mark.parametrize(("kind", "words"), [
    # Before: "[Errno 21] could not open port X: [Errno 21] Is a directory: 'X'".
    ("a folder", "a folder, not a serial port"),
    # Before: "Could not configure port: (25, 'Inappropriate ioctl for device')".
    ("a file", "not a serial port"),
    ("/dev/null", "not a serial port"),
])
def test_a_folder_or_a_file_given_as_the_port_is_said_in_words(tmp_path: Path, kind: str,
                                                               words: str) -> None:
    path = {"a folder": tmp_path, "a file": tmp_path / "board.log",
            "/dev/null": Path("/dev/null")}[kind]
    if kind == "a file":
        path.write_text("not a port\n")
    fast = LinkSettings(reconnect_delay=0.01)
    with SerialLink(str(path), fast) as link:
        deadline = time.monotonic() + 5
        while not link.stats().open_failures and time.monotonic() < deadline:
            time.sleep(0.01)
        assert link.stats().last_error == (
            f"cannot open {path}: {words} (a Pico is /dev/ttyACM0 or under /dev/serial/by-id)")


def test_only_a_terminal_may_yet_become_the_port(tmp_path: Path) -> None:
    """What ``run`` refuses at once (a folder, a file, a device that is not a
    terminal) and what the link keeps trying (a terminal, a port not there)."""
    leader, follower = os.openpty()
    try:
        assert never_a_port(os.ttyname(follower)) is None
    finally:
        os.close(leader)
        os.close(follower)
    assert never_a_port(str(tmp_path / "ttyACM9")) is None  # the cable not plugged in yet
    assert never_a_port("loop://") is None
    assert never_a_port(str(tmp_path)) == (
        f"cannot open {tmp_path}: a folder, not a serial port (a Pico is /dev/ttyACM0 or "
        "under /dev/serial/by-id)")
    assert never_a_port("/dev/null") == (
        "cannot open /dev/null: not a serial port (a Pico is /dev/ttyACM0 or under "
        "/dev/serial/by-id)")
