"""Many simulated boards publishing to one broker: for the hall's tests and
the broadcast benchmark.

Each board is a real :class:`~controller.service.board.BoardService` (its
own data directory and SQLite store) with a real
:class:`~controller.service.broadcast.Publisher`, fed occupancy frames of a
random game at a fixed rate, as a person moving pieces would.  Boards run
in a few worker processes, several boards to a process.

For every confirmed action the board's *frame-to-LED time* is measured: the
wall time of the service call that confirmed it (reconciler, synced write,
state out to the LEDs and the listeners), so the same boards can be run
with and without a broker side by side.
"""

from __future__ import annotations

import multiprocessing
import random
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from controller.board.sensorlog import Frame
from controller.rules import new_game
from controller.rules.random_games import lasting_moves

from .simboard import occupancy

__all__ = ["BoardResult", "plan_game", "run_boards"]


@dataclass
class BoardResult:
    board_id: str
    game_id: int
    actions: list[str]  # as stored
    led_ms: list[float] = field(default_factory=list)  # frame-to-LED time per action
    seconds: float = 0.0  # from the first frame to the last action confirmed
    cpu: float = 0.0  # CPU seconds of the board's process over the game (all its threads)


def plan_game(variant: str, seed: int, max_actions: int) -> list[str]:
    """A random game (avoiding moves that end it at once): the occupancy
    frame after each action."""
    rng = random.Random(seed)
    g = new_game(variant)
    frames: list[str] = []
    while g.outcome is None and len(frames) < max_actions:
        moves = lasting_moves(g)
        if not moves:
            break
        g.play(rng.choice(moves))
        frames.append(occupancy(g))
    return frames


def _board(root: Path, name: str, variant: str, broker: str | None) -> tuple[object, object]:
    from .board import BoardService
    from .broadcast import BroadcastConfig, Publisher
    from .config import Config

    data = root / name
    service = BoardService(Config(board="sim", variant=variant, settle=0.03, error_delay=1.0,
                                  data_dir=data))
    publisher = None
    if broker is not None:
        publisher = Publisher(BroadcastConfig(url=broker, board_id=name), data)
        service.listeners.append(publisher.listener)
        publisher.listener(service.state())
        publisher.start()
    return service, publisher


def _worker(root: str, names: list[str], variant: str, broker: str | None, rate: float,
            max_actions: int, start_at: float, linger: float) -> list[BoardResult]:
    from .board import BoardService

    boards = [_board(Path(root), n, variant, broker) for n in names]
    plans = [plan_game(variant, zlib.crc32(n.encode()), max_actions) for n in names]
    results = [BoardResult(n, 0, []) for n in names]
    step = [0] * len(names)
    offsets = [i / (rate * len(names)) for i in range(len(names))]  # spread the boards
    while time.time() < start_at:
        time.sleep(0.005)
    t0 = time.monotonic()
    cpu0 = time.process_time()
    while any(step[i] < len(plans[i]) for i in range(len(names))):
        now = time.monotonic() - t0
        for i, (service, _) in enumerate(boards):
            assert isinstance(service, BoardService)
            # The next action once the last one is confirmed (a player
            # waits for the lights) and its time has come.
            if step[i] < len(plans[i]) and now >= offsets[i] + step[i] / rate and \
                    len(service.reconciler.game.moves) >= step[i]:
                service.feed(Frame.from_occ(service.now(), plans[i][step[i]]))
                step[i] += 1
            t = time.perf_counter()
            update = service.tick()
            if update.played:
                results[i].led_ms.append((time.perf_counter() - t) * 1000)
                results[i].seconds = time.monotonic() - t0
        time.sleep(0.003)
    end = time.monotonic() + 0.5
    while time.monotonic() < end:  # the last actions settle
        for service, _ in boards:
            assert isinstance(service, BoardService)
            service.tick()
        time.sleep(0.005)
    time.sleep(linger)
    cpu = time.process_time() - cpu0
    for r, (service, publisher) in zip(results, boards, strict=True):
        r.cpu = cpu
        assert isinstance(service, BoardService)
        r.game_id = service.gid
        stored = service.store.get(service.gid)
        r.actions = list(stored.actions) if stored else []
        if publisher is not None:
            publisher.close()  # type: ignore[attr-defined]
        service.close()
    return results


def run_boards(root: Path, count: int, broker: str | None, *, rate: float = 10.0,
               variant: str = "kharbga", max_actions: int = 100, processes: int = 4,
               linger: float = 2.0, prefix: str = "board") -> list[BoardResult]:
    """``count`` boards, each playing one game at ``rate`` actions a second
    (``broker`` None: without broadcasting); their stored games and timings.
    ``linger``: seconds the publishers stay up after the last action."""
    names = [f"{prefix}{i:02d}" for i in range(count)]
    groups = [names[i::processes] for i in range(processes) if names[i::processes]]
    start_at = time.time() + 2.0 + 0.3 * len(names) / len(groups)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(len(groups)) as pool:
        jobs = [pool.apply_async(_worker, (str(root), g, variant, broker, rate, max_actions,
                                           start_at, linger)) for g in groups]
        out = [r for job in jobs for r in job.get(timeout=600)]
    return sorted(out, key=lambda r: r.board_id)
