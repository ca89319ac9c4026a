"""The firmware and the link on a board that is not one square a
crossing: the 37-point board on a 9x5 matrix (8 crossings unused).  The
CONFIG's switch map names each point's crossing, the firmware reports the
board's 37 points in log order, its chatter counts come per point, and a
host that expects another matrix is refused at the handshake."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterator

import pytest
from fw_helpers import FAST, collect, distinct, frames

from controller.board.events import Frame
from controller.drivers import protocol as P
from controller.drivers.firmware_sim import FirmwareSim
from controller.drivers.link_settings import LinkSettings
from controller.drivers.mapping import BoardMapping
from controller.drivers.serial_link import SerialLink
from controller.drivers.switch_watch import PointWatch, WatchSettings

pytestmark = pytest.mark.timeout(120)

MAPPING = BoardMapping.for_board("37-point")
SETTINGS = dataclasses.replace(
    LinkSettings.for_mapping(MAPPING),
    **{f: getattr(FAST, f) for f in ("heartbeat", "idle", "retry", "keepalive",
                                     "device_timeout", "request_retry", "reconnect_delay",
                                     "read_timeout")},
)


def test_a_config_names_a_crossing_for_each_point_or_none() -> None:
    good = list(SETTINGS.switch_map or ())
    cfg = P.pack_config(1000, 3000, 12, 150, 0, None, good)
    assert P.parse_config(cfg, 37, 45)[6] == good
    dark = [i // 2 if i % 2 == 0 else P.NO_LED for i in range(64)]  # every other: no switch
    assert P.parse_config(P.pack_config(1000, 3000, 12, 150, 0, None, dark), 64, 32)[6] == dark
    for bad in ([0] * 37, [44] + good[1:36] + [45]):  # a crossing twice; beyond the matrix
        with pytest.raises(P.ProtocolError, match="repeats or leaves the matrix"):
            P.parse_config(P.pack_config(1000, 3000, 12, 150, 0, None, bad), 37, 45)
    with pytest.raises(P.ProtocolError, match="wrong length"):  # a map for another board
        P.parse_config(P.pack_config(1000, 3000, 12, 150, 0, None, good), 49, 45)


@pytest.fixture
def sim37(micropython: str) -> Iterator[FirmwareSim]:
    s = FirmwareSim(size=0, micropython=micropython, mapping=MAPPING)
    try:
        s.start()
        yield s
    finally:
        s.close()


def connect(sim: FirmwareSim, settings: LinkSettings) -> SerialLink:
    sim.follow_real_time()
    return SerialLink(sim.cable.path, settings).start()


def test_the_firmware_reports_the_37_points_through_the_9x5_matrix(sim37: FirmwareSim) -> None:
    points = [MAPPING.parse(n) for n in ("a1", "e1", "c5", "b8", "e9")]
    want = sum(1 << p for p in points)
    sim37.set_occupancy(want)
    link = connect(sim37, SETTINGS)
    try:
        assert link.wait_connected(10), link.stats()
        got = frames(collect(link, lambda ev: any(
            isinstance(e, Frame) and e.occupied == want for e in ev)))
        assert distinct([f.occupied for f in got]) in ([want], [0, want])
        dev = link.device
        assert dev is not None and (dev.rows, dev.cols, dev.leds) == (9, 5, 37)
        time.sleep(0.2)
        stats = link.device_stats(timeout=5)
        assert stats is not None and len(stats.chatter) == 37
        assert link.stats().checksum_failures == 0
    finally:
        link.close()


def test_a_host_expecting_another_board_is_refused(sim37: FirmwareSim) -> None:
    link = connect(sim37, FAST)  # the 7x7 board
    try:
        assert not link.wait_connected(1.5)
        assert link.stats().last_error == (
            "the firmware reads a 9x5 switch matrix, but this host reads the 7x7 board on a "
            "7x7 one: set ROW_PINS and COL_PINS (and SWITCH_MAP) in the firmware's board.py "
            'for the 7x7 board (hardware.md, "On the Pico")')
    finally:
        link.close()


def test_a_pico_wired_as_the_7x7_board_is_refused_for_the_37_point_board(
        micropython: str) -> None:
    # The 7x7 board's Pico, its configuration used for a 37-point game: the
    # handshake names both matrices and what to change, on the page too;
    # before, 'firmware reads a 7x7 board, the host expects 9x5'.
    with FirmwareSim(size=7, micropython=micropython) as sim:
        link = connect(sim, SETTINGS)
        try:
            assert not link.wait_connected(1.5)
            problem = link.problem()
        finally:
            link.close()
    why = ("the firmware reads a 7x7 switch matrix, but this host reads the 37-point board on "
           "a 9x5 one: set ROW_PINS and COL_PINS (and SWITCH_MAP) in the firmware's board.py "
           "for the 37-point board, or map the board onto the 7x7 matrix in [gpio.mapping] "
           '(hardware.md, "On the Pico")')
    assert problem == f"the board on {sim.cable.path} is not connected ({why}); trying again"


def test_a_pico_with_the_37_point_matrix_turned_is_told_to_turn_the_mapping(
        micropython: str) -> None:
    # hardware.md's Pico wiring of the 37-point board is 5 x 9 (files =
    # "rows" on the host); a host left on the stock 9 x 5 mapping is told so.
    turned = BoardMapping(board="37-point", size=0, files="rows")
    with FirmwareSim(size=0, micropython=micropython, mapping=turned) as sim:
        link = connect(sim, SETTINGS)
        try:
            assert not link.wait_connected(1.5)
            error = link.stats().last_error
        finally:
            link.close()
    assert error == ("the firmware reads a 5x9 switch matrix, but this host reads the 37-point "
                     'board on a 9x5 one: turn the host\'s mapping (files = "rows" or '
                     '"columns" in [gpio.mapping])')




def test_a_firmware_without_the_switch_map_is_named_once_and_in_words(
    micropython: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The builder forgot SWITCH_MAP in board.py: the firmware reads the 9x5
    # matrix as 45 points and refuses the host's CONFIG of 37 points.
    sim = FirmwareSim(size=0, micropython=micropython, mapping=MAPPING)
    fixed, sim.switch_map = sim.switch_map, ""
    caplog.set_level(logging.INFO, logger="controller.drivers")
    why = ("the device's board has another number of points than this host's 37: "
           "set SWITCH_MAP in the firmware's board.py")
    with sim:
        link = connect(sim, SETTINGS)
        try:
            assert not link.wait_connected(2.5)  # the host asks again meanwhile
            problem = link.problem()
            notices = link.stats().notices
            sim.stop_following()
            sim.switch_map = fixed  # board.py mended, the Pico restarted
            sim.restart()
            sim.follow_real_time()
            assert link.wait_connected(10), link.stats()
        finally:
            link.close()
    assert notices and set(notices) == {f"2: {P.CONFIG_WRONG_LENGTH}"}
    assert problem == f"the board on {sim.cable.path} is not connected ({why}); trying again"
    said = [(r.levelno, r.getMessage()) for r in caplog.records]
    config = [(lv, m) for lv, m in said if "CONFIG" in m or "points" in m or "settings" in m]
    assert config == [(logging.WARNING, f"serial link: {why}"),
                      (logging.INFO, "serial link: the device took the board's settings")]
    assert not [m for _lv, m in said if "HEARTBEAT" in m]  # its 45-point heartbeats: the same fault


def test_the_8x8_boards_refused_switch_map_counts_squares(micropython: str) -> None:
    # The dark squares on 8x4, board.py without its SWITCH_MAP: the firmware
    # reads 32 squares, the host's map has 64; before, '... number of points'.
    dark = BoardMapping.for_board("8x8", dark_only=True)
    settings = dataclasses.replace(SETTINGS, **{
        f: getattr(LinkSettings.for_mapping(dark), f)
        for f in ("size", "rows", "cols", "points", "board", "switch_map")})
    sim = FirmwareSim(size=0, micropython=micropython, mapping=dark)
    sim.switch_map = ""
    with sim:
        link = connect(sim, settings)
        try:
            assert not link.wait_connected(1.5)
            error = link.stats().last_error
        finally:
            link.close()
    assert error == ("the device's board has another number of squares than this host's 64: "
                     "set SWITCH_MAP in the firmware's board.py")


def test_a_7x7_board_read_through_the_37_point_firmware_is_said_by_a_switch_under_no_point(
        sim37: FirmwareSim) -> None:
    # The firmware reports points only: a closed crossing with no point
    # over it (r1c0, under no a2) comes in a NOTICE before each heartbeat,
    # and the link's fault says it once it has held a second; before, the
    # host never knew.  Every point held on the board wired as read: none.
    watch = PointWatch(MAPPING, WatchSettings())
    every = sum(1 << p for p in MAPPING.sensed)
    sim37.set_occupancy(every)
    link = SerialLink(sim37.cable.path, SETTINGS, watch=watch)
    sim37.follow_real_time()
    link.start()
    try:
        assert link.wait_connected(10), link.stats()
        collect(link, lambda ev: any(isinstance(e, Frame) and e.occupied == every for e in ev))
        time.sleep(1.5)
        assert link.fault() is None
        # The 7x7 board's wiring as the 9x5 reading sees it (the same pins
        # in the same order): its files c..g are the 9x5 matrix's columns,
        # its files a and b two more rows, read by no column.
        sim37.wire([r * 5 + c - 2 if c >= 2 else 255 for r in range(7) for c in range(7)])
        sim37.set_occupancy(1 << 7 + 2)  # c2 of the 7x7 board: crossing r1c0
        deadline = time.monotonic() + 5
        while link.fault() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.fault() == (
            "switch r1c0 closes where the 37-point board has no point: the matrix seems wired "
            "for another board (a 7x7 matrix read as the 37-point board's 9x5?) or a diode is "
            "shorted (hardware.md, \"The leap games' boards\")")
        assert link.stats().notices == ()
        sim37.set_occupancy(0)
        deadline = time.monotonic() + 5
        while link.fault() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.fault() is None
    finally:
        link.close()
