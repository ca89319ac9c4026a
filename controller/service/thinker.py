"""The engine's own processes: hints, the computer's moves and pondering.

Every search runs in a child process, so the board's loop (frames in,
LEDs out) never shares the interpreter with a search: a hint or a
computer move at full strength cannot delay a frame.  Children are forked
from a ``forkserver`` that has the rules and the engine imported already,
so starting one costs milliseconds, and a search that is no longer wanted
(the position moved on) is simply terminated.  A child searches with the
Thinker's ``threads`` (the C search's Lazy SMP) at a priority ``NICE``
below the service's, so the board's loop is run first when every core
searches.

Pondering: while the person to move thinks, a child searches the position
in rounds of doubling time (``first``, 2x, 4x ... up to ``limit`` seconds
in all) and reports each round: depth, score, best line.  The page shows
the latest report as an evaluation bar and a line; a hint asked for after
enough thought is answered from it at once, and when the person plays the
move the ponder expected, the computer's reply is the next move of that
line, ready when the move lands.

A game crosses to a child as its description (variant, options, start
position and the moves played, see :class:`GameSpec`), and comes back as
strings: no game object is pickled.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from controller.rules.leap_factory import (
    apply_any_options,
    find_any_variant,
    format_any_options,
    game_from_position,
)

__all__ = ["GameSpec", "Thought", "Thinker", "search_threads", "spec_of"]

_PRELOAD = ["controller.engine.api", "controller.rules.leap_factory"]
NICE = 5  # a search child's priority below the board's loop (os.nice)


def search_threads(configured: int, cores: int | None = None) -> int:
    """The threads each search uses: ``configured``, or with 0 one fewer
    than the machine's ``cores`` (a core left to the board's loop: 3 on a
    Raspberry Pi 4 or 5), at least 1."""
    from controller.engine.csearch import MAX_THREADS

    if configured:
        return configured
    n = (os.cpu_count() or 1) if cores is None else cores
    return max(1, min(n - 1, MAX_THREADS))


@dataclass(frozen=True)
class GameSpec:
    """What a child needs to rebuild a game, repetition history included."""

    variant: str
    options: str
    start: str
    moves: tuple[str, ...]

    def build(self) -> Any:
        v = find_any_variant(self.variant)
        if self.options:
            v = apply_any_options(v, self.options)
        game = game_from_position(v, self.start)
        for move in self.moves:
            game.play(move)
        return game


def spec_of(game: Any) -> GameSpec:
    """The :class:`GameSpec` of ``game`` (a Game or a LeapGame; unchanged)."""
    moves = tuple(str(m) for _, m in game.history)
    first = game.copy()
    while first.ply > 0 and first.history:
        first.pop()
    return GameSpec(game.variant.name, format_any_options(game.variant),
                    first.position(), moves)


@dataclass(frozen=True)
class Thought:
    """One finished round of a search.

    ``score`` is in hundredths of a piece for the attacker (positive: the
    attacker stands better), whoever is to move; ``pv`` the best line in
    notation; ``seconds`` the thinking time spent on the position so far.
    """

    position: str
    ply: int
    move: str | None
    score: int
    pv: tuple[str, ...]
    depth: int
    nodes: int
    seconds: float
    done: bool = False
    threads: int = 1

    def as_json(self) -> dict[str, object]:
        return {"move": self.move, "score": self.score, "line": list(self.pv),
                "depth": self.depth, "nodes": self.nodes,
                "seconds": round(self.seconds, 2), "done": self.done, "threads": self.threads}


def _attacker_view(game: Any, score: int) -> int:
    return score if game.to_move == "attacker" else -score


def _below_the_board() -> None:
    """A search child's priority below the board's own (``NICE`` more):
    with every core searching, the board's loop is still run first."""
    with contextlib.suppress(OSError):
        os.nice(NICE)


def _search_child(spec: GameSpec, seconds: float, level: int | None, seed: int, threads: int,
                  out: Connection) -> None:
    """One search (a hint or the computer's move); sends one Thought."""
    from controller.engine.api import best_move

    _below_the_board()
    game = spec.build()
    r = best_move(game, seconds, seed=seed, level=level, threads=threads)
    out.send(Thought(game.position(), game.ply, None if r.move is None else str(r.move),
                     _attacker_view(game, r.score), tuple(r.pv), r.depth, r.nodes,
                     r.seconds, True, r.threads))
    out.close()


def _ponder_child(spec: GameSpec, first: float, limit: float, threads: int,
                  out: Connection) -> None:
    """Rounds of doubling time on one position until ``limit`` seconds."""
    from controller.engine.api import best_move

    _below_the_board()
    game = spec.build()
    spent, budget, last_depth = 0.0, first, -1
    while spent < limit:
        # Pondering is the deep search itself: past the opening book.
        r = best_move(game, min(budget, limit - spent), book=False, threads=threads)
        spent += max(r.seconds, 0.001)
        forced = r.move is None or abs(r.score) >= 90_000 or r.depth == last_depth >= 60
        done = forced or spent >= limit
        out.send(Thought(game.position(), game.ply, None if r.move is None else str(r.move),
                         _attacker_view(game, r.score), tuple(r.pv), r.depth, r.nodes,
                         spent, done, r.threads))
        if done:
            break
        last_depth = r.depth
        budget *= 2
    out.close()


@dataclass
class _Job:
    process: Any
    conn: Connection
    spec: GameSpec
    latest: Thought | None = None
    started: float = field(default_factory=time.monotonic)


class Thinker:
    """The engine's child processes for one board service.

    ``ponder_on`` switches pondering (and so the page's evaluation bar and
    line) on or off; ``first``/``limit`` shape the ponder rounds;
    ``threads`` search together in each child (:func:`search_threads`).
    """

    def __init__(self, *, ponder_on: bool = True, first: float = 0.25,
                 limit: float = 300.0, threads: int = 1) -> None:
        self.ponder_on = ponder_on
        self.threads = threads
        self.first = first
        self.limit = limit
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(_PRELOAD)
        self._lock = threading.Lock()
        self._ponder: _Job | None = None
        self._searches: list[_Job] = []
        self._closed = False  # no child starts after close()

    # -- pondering -------------------------------------------------------

    def ponder(self, game: Any) -> None:
        """Think about ``game`` (the position on the board) from now on;
        drops the thought about any other position.  Nothing when
        pondering is off or the game is over."""
        spec = spec_of(game)
        with self._lock:
            job = self._ponder
            if job is not None and job.spec == spec:
                return
            self._stop(job)
            self._ponder = None
            if not self.ponder_on or game.outcome is not None or self._closed:
                return
            self._ponder = self._start(_ponder_child,
                                       (spec, self.first, self.limit, self.threads), spec)

    def thought(self, game: Any = None) -> Thought | None:
        """The latest finished round of the ponder (of ``game``'s position
        when given, else of whatever is pondered), or None."""
        with self._lock:
            job = self._ponder
            if job is None:
                return None
            self._drain(job)
            latest = job.latest
        if latest is None:
            return None
        if game is not None and (latest.position != game.position() or latest.ply != game.ply):
            return None
        return latest

    def stop_ponder(self) -> None:
        """Stop the ponder now (the computer is to move), pondering staying on."""
        with self._lock:
            self._stop(self._ponder)
            self._ponder = None

    def set_ponder(self, on: bool) -> None:
        with self._lock:
            self.ponder_on = on
            if not on:
                self._stop(self._ponder)
                self._ponder = None

    # -- searches ----------------------------------------------------------

    def search(self, game: Any, seconds: float, *, level: int | None = None,
               seed: int = 0, timeout: float | None = None) -> Thought | None:
        """The engine's choice for ``game`` after ``seconds`` in a child
        (blocks the calling thread only: run it off the event loop).  None
        when it was cancelled or the child died."""
        spec = spec_of(game)
        with self._lock:
            if self._closed:
                return None
            job = self._start(_search_child, (spec, seconds, level, seed, self.threads), spec)
            self._searches.append(job)
        wait = timeout if timeout is not None else seconds * 4 + 30
        try:
            if job.conn.poll(wait):
                result: Thought = job.conn.recv()
                return result
            return None
        except (EOFError, OSError):
            return None
        finally:
            with self._lock:
                if job in self._searches:
                    self._searches.remove(job)
                self._stop(job)

    def cancel_searches(self) -> None:
        """Stop every running search (their callers get None)."""
        with self._lock:
            jobs, self._searches = self._searches, []
            for job in jobs:
                self._stop(job)

    def close(self) -> None:
        """Stop every child; nothing starts after this."""
        with self._lock:
            self._closed = True
            self._stop(self._ponder)
            self._ponder = None
            for job in self._searches:
                self._stop(job)
            self._searches = []

    # -- children ----------------------------------------------------------

    def _start(self, target: Any, args: tuple[Any, ...], spec: GameSpec) -> _Job:
        recv, send = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(target=target, args=(*args, send), daemon=True)
        proc.start()
        send.close()
        return _Job(proc, recv, spec)

    @staticmethod
    def _drain(job: _Job) -> None:
        try:
            while job.conn.poll():
                job.latest = job.conn.recv()
        except (EOFError, OSError):
            pass

    @staticmethod
    def _stop(job: _Job | None) -> None:
        if job is None:
            return
        if job.process.is_alive():
            job.process.terminate()
        job.process.join(timeout=2)
        job.conn.close()
