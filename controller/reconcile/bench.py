"""Reconciler benchmark for ``make bench``: time per frame on long logs,
and simulated noisy games of the leap-capture variants.

Target: under 0.2 ms median per frame on this machine class, so a Pi
scanning at 100 Hz spends a few percent of one core on it.

:func:`noisy_games` plays random games of a variant, acts each out as a
noisy sensor log (:mod:`.simulator`: bounce, hands, wrong squares, captured
pieces taken off in any order; occupancy and colour sensors in turn) and
replays the log; a game counts as exact when the replay recognises every
action of the game played and ends in the same position.  ``make bench``
runs 1,000 games of each leap variant; the tests run a few dozen.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from controller.board.sensorlog import Button, Frame, Header, read_log
from controller.rules import AnyGame, Game, new_game
from controller.rules.moves import PASS

from .reconciler import Reconciler
from .replay import replay
from .simulator import simulate_log

TARGET_MEDIAN_MS = 0.2
LEAP_VARIANTS = ("hewakam-keliya", "sixteen-soldiers", "english-draughts", "checkers")
NOISY_GAMES = 1000  # per leap variant in ``make bench``
# Game lengths in actions, drawn in turn: early, middle and whole games.
LENGTHS = (10, 40, 120, 400, 10**6)


def _game(variant: str, seed: int) -> Game:
    rng = random.Random(seed)
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < 3000:
        g.play(rng.choice(g.legal_moves()))
    while g.outcome is None and g.moves and g.moves[-1].kind == "pass":
        g.pop()
    return g


def frame_times(variant: str, colour: bool, games: int = 4) -> tuple[list[float], list[float]]:
    """Seconds spent in ``feed`` for every event of ``games`` long logs, and
    for the events that settled a reading (the ones that do the work)."""
    times: list[float] = []
    settling: list[float] = []
    for seed in range(games):
        log = simulate_log(_game(variant, seed), seed=seed, colour=colour)
        events = [e for _, e in read_log(log.splitlines()) if not isinstance(e, Header)]
        rec = Reconciler(variant)
        clock = time.perf_counter
        for event in events:
            assert isinstance(event, Frame | Button)
            pending = rec.settling
            start = clock()
            rec.feed(event)
            elapsed = clock() - start
            times.append(elapsed)
            if pending and not rec.settling:
                settling.append(elapsed)
    return times, settling


def random_game(variant: str, rng: random.Random, limit: int) -> AnyGame:
    """A random game of at most ``limit`` actions that does not end on a
    pass (a pass leaves nothing on the board to recognise)."""
    g = new_game(variant)
    while g.outcome is None and len(g.moves) < limit:
        g.play(rng.choice(g.legal_moves()))
    while g.outcome is None and g.moves and g.moves[-1].kind == PASS:
        g.pop()
    return g


@dataclass
class NoisyTally:
    """What :func:`noisy_games` found for one variant."""

    variant: str
    games: int = 0
    exact: int = 0
    colour: int = 0  # games on a colour sensor (the rest on occupancy)
    actions: int = 0
    captures: int = 0
    frames: int = 0
    seconds: float = 0.0
    failed: tuple[int, ...] = ()  # seeds of the games that did not replay exactly

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0


def _replays_exactly(game: AnyGame, log: str, variant: str) -> bool:
    rec = replay(log.splitlines(), variant).reconciler
    if rec is None or rec.finished:
        return False
    same = [str(m) for m in rec.game.moves] == [str(m) for m in game.moves]
    return same and rec.game.position() == game.position()


def noisy_games(variant: str, games: int, seed: int = 0) -> NoisyTally:
    """Simulate ``games`` noisy games of ``variant`` (game ``i`` from seed
    ``seed + i``, on a colour sensor when ``i`` is odd) and replay each."""
    tally = NoisyTally(variant)
    failed: list[int] = []
    start = time.perf_counter()
    for i in range(games):
        rng = random.Random(f"{variant}-{seed + i}")
        game = random_game(variant, rng, LENGTHS[(seed + i) % len(LENGTHS)])
        colour = i % 2 == 1
        log = simulate_log(game, seed=seed + i, colour=colour)
        tally.games += 1
        tally.colour += colour
        tally.actions += len(game.moves)
        tally.captures += sum(1 for m in game.moves if m.capture)
        tally.frames += log.count("\n") - 1
        if _replays_exactly(game, log, variant):
            tally.exact += 1
        else:
            failed.append(seed + i)
    tally.seconds = time.perf_counter() - start
    tally.failed = tuple(failed)
    return tally


def leap_noisy(games: int = NOISY_GAMES) -> None:
    """Print the noisy leap games' figures, one line a variant."""
    print(f"leap games: {games} simulated noisy games a variant "
          "(half occupancy, half colour), each replayed")
    for variant in LEAP_VARIANTS:
        t = noisy_games(variant, games)
        print(f"noisy {variant:17s} {t.exact:5d}/{t.games} exact  {t.actions:7d} actions  "
              f"{t.captures:6d} captures  {t.frames:8d} frames  "
              f"{t.games_per_second:6.1f} games/s"
              + (f"  FAILED seeds {list(t.failed[:10])}" if t.failed else ""))


def main() -> None:
    print("== reconciler ==")
    print(f"target: median under {TARGET_MEDIAN_MS} ms per frame")
    for variant in ("kharbga", "khamousiyya"):
        for colour in (False, True):
            every, settling = frame_times(variant, colour)
            kind = "colour" if colour else "occupancy"
            for label, t in (("frames", sorted(every)), ("settled", sorted(settling))):
                median = statistics.median(t) * 1000
                p99 = t[int(len(t) * 0.99)] * 1000
                print(f"reconciler {variant:12s} {kind:9s} {len(t):7d} {label:8s} "
                      f"median {median:.3f} ms  p99 {p99:.3f} ms  max {t[-1] * 1000:.1f} ms")
    leap_noisy()


if __name__ == "__main__":
    main()
