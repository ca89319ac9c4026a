"""``kharbga-board replay LOG``: a sensor log fed through the reconciler,
its events read directly or through the real GPIO scanner or firmware
(docs/reconciler.md, "Replay")."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from controller.board.words import said, unreadable

__all__ = ["replay_command"]


def replay_command(log: str, variant: str | None, settle: float, error_delay: float, *,
                   via: str = "direct", config: str | None = None, trace: bool = False) -> int:
    """Replay the sensor log ``log`` (``-``: standard input) through the
    reconciler, its events fed directly or ``via`` the GPIO scanner or the
    firmware (with ``config``'s wiring), and print the record (or, with
    ``trace``, one JSON object a line); exit status 0."""
    from controller.board.sensorlog import Event, LogError, log_lines
    from controller.reconcile.reconciler import Settings
    from controller.reconcile.replay import ReplayResult, log_events, replay_events
    from controller.reconcile.settings import timing_problem

    timing = timing_problem(settle, error_delay)
    if timing:
        raise ValueError(f"--{timing[0].replace('_', '-')} {timing[1]}")
    settings = Settings(settle=settle, error_delay=error_delay)
    source: Callable[[Iterable[str]], Iterable[Event]] = log_events
    options: dict[str, Any] = {}
    if config and via == "direct":
        raise ValueError("--config: read only with --via gpio or --via firmware (a direct "
                         "replay uses no wiring)")
    if config:
        options = _replay_config(config, via)
    if via == "gpio":
        from controller.drivers.gpio_replay import gpio_events

        def source(lines: Iterable[str]) -> Iterable[Event]:
            return gpio_events(lines, **options)
    elif via == "firmware":
        from controller.drivers.firmware_replay import firmware_events

        def source(lines: Iterable[str]) -> Iterable[Event]:
            return firmware_events(lines, **options)

    def run(lines: Iterable[str]) -> ReplayResult:
        return replay_events(source(lines), variant, settings, trace=trace)

    name = "standard input" if log == "-" else log
    torn: list[str] = []
    try:
        if log == "-":
            if sys.stdin is None:  # started with its standard input closed
                raise ValueError("standard input is closed: give the log's file name")
            # Strict UTF-8, as a file is read: the terminal's own decoding
            # lets bytes of another kind through as stand-ins, read as
            # malformed frames ("got 2 characters") rather than said.
            stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="strict")
            result = run(log_lines(stdin, torn=torn))
        else:
            with _open_log(log) as fh:
                result = run(log_lines(fh, torn=torn))
    except UnicodeDecodeError:
        raise ValueError(f"{name}: not a sensor log (not UTF-8 text)") from None
    except LogError as exc:  # the line it names is of this log
        raise ValueError(f"{name}: {said(exc)}") from None
    for words in torn:  # the game up to it is the log's: replayed, and the tear said
        print(f"kharbga-board: {name}: {words}", file=sys.stderr)
    if trace:
        for line in result.trace:
            print(line)
    elif result.records:
        sys.stdout.write(result.text())
    else:  # nothing to print: said, so that an empty output is not a mystery
        print(f"kharbga-board: {name}: no game recognised (the board never showed an action "
              "of the rules)", file=sys.stderr)
    return 0


def _open_log(path: str) -> TextIO:
    """The sensor log ``path`` to read; a ``ValueError`` naming it in words
    when it cannot be opened."""
    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: {unreadable(exc, 'sensor log')}") from None


def _replay_config(path: str, via: str) -> dict[str, Any]:
    """``replay --via gpio|firmware --config FILE``: the file's matrix and
    mapping for the log's board (a mapping that names no board follows
    the log's, as ``run`` follows the variant's); errors name the file."""
    from controller.board.config import ConfigError
    from controller.drivers.gpio_config import GpioConfig, load_config
    from controller.drivers.mapping import BoardMapping

    found: dict[str, GpioConfig] = {}

    def config(board: str) -> GpioConfig:
        if board not in found:
            cfg = load_config(path, board=board)
            try:
                BoardMapping.for_log(board, cfg.mapping)
            except ConfigError as exc:
                raise exc.in_file(path) from None
            found[board] = cfg
        return found[board]

    options: dict[str, Any] = {"mapping": lambda board: config(board).mapping}
    if via == "gpio":
        options["matrix"] = lambda board: config(board).matrix
    return options
