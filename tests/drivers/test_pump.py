"""The service's pump (`kharbga-board run`'s loop from the board to the
game and back to the lights): a failing LED strip is logged once, said on
the page until it works again, and the board goes on being read, every
move recorded."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from gpio_fakes import FakeSPI
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.drivers.gpio_config import GpioConfig
from controller.drivers.matrix_sim import MatrixSimulator
from controller.service.app import make_app
from controller.service.board import BoardService
from controller.service.config import Config
from controller.service.hardware import GpioBackend
from controller.service.run import _attach

pytestmark = pytest.mark.timeout(60)


class BreakingSPI(FakeSPI):
    """An LED bus whose writes fail once ``broken`` (a loose connector)."""

    broken = False

    def write(self, buf: bytes, start: int = 0, end: int | None = None) -> None:
        if self.broken:
            raise OSError(121, "Remote I/O error")
        super().write(buf, start, end)


def test_a_failing_led_strip_never_stops_the_board(
    tmp_path: Path, factory: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    gpio = GpioConfig.from_table({"mapping": {"board": "5x5"}})  # sabouiyya's board
    sim = MatrixSimulator(factory, gpio.matrix, gpio.mapping)
    config = Config(data_dir=tmp_path, settle=0.05, error_delay=0.3, board="gpio", ponder=False,
                    variant="sabouiyya")
    service = BoardService(config)
    spi = BreakingSPI()
    backend = GpioBackend(config, pin_factory=factory, spi=spi)
    spi.broken = True  # the strip fails once the board is running
    caplog.set_level(logging.ERROR, logger="kharbga")

    async def main() -> tuple[list[str], str | None, str | None]:
        app = make_app(service)
        _attach(app, service, backend)
        client = TestClient(TestServer(app))
        await client.start_server()  # runs the pump
        try:
            for square in ("c2", "a1", "b3", "e5"):
                sim.place(gpio.mapping.parse(square))
                for _ in range(100):
                    await asyncio.sleep(0.02)
                    if service.state()["moves"][-1:] == [f"@{square}"]:
                        break
            fault = (await (await client.get("/api/state")).json())["board_fault"]
            spi.broken = False  # the connector pushed back in
            for _ in range(100):
                await asyncio.sleep(0.02)
                if service.state()["board_fault"] is None:
                    break
            return list(service.state()["moves"]), fault, service.state()["board_fault"]
        finally:
            await client.close()

    try:
        moves, fault, mended = asyncio.run(main())
    finally:
        spi.broken = False
        backend.close()
        service.close()
    assert moves == ["@c2", "@a1", "@b3", "@e5"]
    # The page says the lights fail while the board is read, and stops once they work.
    assert fault == ("its lights cannot be set ([Errno 121] Remote I/O error): the page shows "
                     "them as they should be")
    assert mended is None
    said = [r.getMessage() for r in caplog.records]
    assert said == ["the board's lights cannot be set: [Errno 121] Remote I/O error"]


def test_a_board_not_being_read_is_said_on_the_page_until_it_is(tmp_path: Path) -> None:
    from controller.service.hardware import SerialBackend

    config = Config(data_dir=tmp_path, board="serial:/dev/ttyNOPE", ponder=False)
    service = BoardService(config)
    backend = SerialBackend("/dev/ttyNOPE", config, reconnect_delay=0.05)

    async def main() -> str | None:
        app = make_app(service)
        _attach(app, service, backend)
        client = TestClient(TestServer(app))
        await client.start_server()  # runs the pump
        try:
            for _ in range(100):
                await asyncio.sleep(0.02)
                if service.state()["sensor_problem"]:
                    break
            state = await (await client.get("/api/state")).json()
            return state["sensor_problem"]  # type: ignore[no-any-return]
        finally:
            await client.close()

    try:
        problem = asyncio.run(main())
    finally:
        backend.close()
        service.close()
    assert problem is not None
    assert problem.startswith("the board on /dev/ttyNOPE is not connected (cannot open")
    assert problem.endswith("; trying again")


def test_a_flood_of_frames_never_holds_the_page(tmp_path: Path) -> None:
    """A device sending frames faster than the service takes them (a link
    flooded with valid reports): each pass of the pump feeds a bounded
    share and the page answers between passes; every frame is fed in the
    end, in order.  Before: a pass fed until the queue was empty, so a
    flood that never let it empty held the page, the lights and the
    board's status for as long as it lasted."""
    from controller.board.events import Frame
    from controller.service.hardware import SimBackend
    from controller.service.run import PUMP_MOST

    config = Config(data_dir=tmp_path, ponder=False)
    service = BoardService(config)
    backend = SimBackend()
    flood = 3 * PUMP_MOST
    for i in range(flood):  # a piece on a1 seen and gone at every report
        backend.events.put(Frame(service.now(), i % 2))

    async def main() -> tuple[int, int]:
        app = make_app(service)
        _attach(app, service, backend)
        client = TestClient(TestServer(app))
        await client.start_server()  # runs the pump
        try:
            while backend.events.qsize() == flood:  # the pump's first pass
                await asyncio.sleep(0)
            waiting = backend.events.qsize()  # what the page's answer does not wait for
            assert (await client.get("/api/state")).status == 200
            for _ in range(500):
                await asyncio.sleep(0.02)
                if backend.events.empty():
                    break
            return waiting, backend.events.qsize()
        finally:
            await client.close()

    try:
        waiting, left = asyncio.run(main())
    finally:
        service.close()
    assert waiting == flood - PUMP_MOST and left == 0


def test_a_reading_the_backlog_changes_is_not_settled_by_the_clock(tmp_path: Path) -> None:
    """A pass of the pump that leaves frames waiting: the service's ticks
    go no further than the last frame fed, so a reading the waiting frames
    change is not settled meanwhile, however late the next pass. Before,
    a tick at the wall clock's time settled it: a soldier shown for a
    millisecond on a1 was the Attacker's first placement."""
    from fake_clock import FakeClock

    from controller.board.events import Frame
    from controller.service.hardware import EventPump, SimBackend
    from controller.service.run import PUMP_MOST

    clock = FakeClock()
    service = BoardService(Config(data_dir=tmp_path, ponder=False, board="gpio"), clock)
    try:
        backend = SimBackend()
        pump = EventPump(service, backend.events)
        a1 = 1  # a1 is point 0
        frames = [0] * (PUMP_MOST - 1) + [a1] + [0] * 100  # a1 for one frame, in a backlog
        for i, occupied in enumerate(frames):
            backend.events.put(Frame(clock.t + i * 0.001, occupied))
        clock.t += 1.0  # the frames came in the last second
        assert pump(PUMP_MOST) == PUMP_MOST and service.fed_until < clock.t - 0.3
        clock.t += 2.0  # the next pass late: the loop busy
        service.tick()
        assert service.state()["moves"] == []
        assert pump(PUMP_MOST) == 100 and service.fed_until == float("inf")
        clock.t += 1.0
        service.tick()
        assert service.state()["moves"] == []
        backend.events.put(Frame(clock.t, a1))  # a1 placed and left: the first placement
        pump(PUMP_MOST)
        clock.t += 1.0
        service.tick()
        assert service.state()["moves"] == ["@a1"]
    finally:
        service.close()
