"""The ``kharbga-board`` command line: thin subcommands over the packages.

Every command returns an exit status. A ``ValueError`` or ``OSError`` raised
by a command becomes one line on standard error and exit status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import random
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from controller import __version__
from controller.board.config import OneLineParser, install_hint
from controller.board.words import said

PROG = "kharbga-board"

EXTRAS = {
    "gpiozero": "pi", "lgpio": "pi", "adafruit_blinka": "pi", "board": "pi", "busio": "pi",
    "neopixel_spi": "pi", "serial": "serial", "cv2": "camera", "numpy": "camera",
    "aiohttp": "web", "paho": "mqtt",
}
"""The optional libraries and the extra of pyproject.toml that installs each
(a command that needs one and does not find it says which)."""
DEFAULT_VARIANT = "kharbga"
DEFAULT_MAX_MOVES = 2000
MIN_DPI, MAX_DPI = 50, 1200  # calibrate markers: a printer's resolutions

Command = Callable[[argparse.Namespace], int]


def _play_random_game(variant: str, seed: int | None, max_moves: int) -> int:
    """Play uniformly random legal moves from the start; print moves, position, outcome."""
    from controller.rules import new_game

    if max_moves < 0:
        raise ValueError(f"--max-moves must be 0 or more, not {max_moves}")
    rng = random.Random(seed)
    game = new_game(variant)
    played = 0
    while game.outcome is None and played < max_moves:
        moves = game.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        side = game.to_move
        game.play(move)
        played += 1
        print(f"{played:4d}. {side:<8} {move}")

    print(f"position: {game.position()}")
    outcome = game.outcome
    if outcome is None:
        print(f"outcome: none after {played} moves")
    elif outcome.winner is None:
        print(f"outcome: draw ({outcome.reason})")
    else:
        print(f"outcome: {outcome.winner} wins ({outcome.reason})")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    variant: str = args.variant
    seed: int | None = args.seed
    max_moves: int = args.max_moves
    return _play_random_game(variant, seed, max_moves)


def _cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from controller.service.config import load_config
    from controller.service.run import serve

    config = load_config(args.config).with_overrides(
        board=args.board,
        variant=args.variant,
        host=args.host,
        port=args.port,
        data_dir=Path(args.data_dir) if args.data_dir else None,
        token=args.token,
    )
    from controller.service.broadcast import load_broadcast

    broadcast = load_broadcast(config.broadcast_table, args.broker, args.board_id,
                               config.source)
    return serve(config, args.config, broadcast)


def _cmd_hall(args: argparse.Namespace) -> int:
    from controller.service.broadcast import load_broadcast
    from controller.service.config import load_config

    if not 1 <= args.port <= 65535:
        raise ValueError(f"--port must be from 1 to 65535, not {args.port}")
    config = load_config(args.config)
    broker = load_broadcast(config.broadcast_table, args.broker, None, config.source,
                            need_id=False)
    if broker is None:
        raise ValueError("hall needs a broker: --broker mqtt://HOST:PORT or [broadcast] broker")
    from controller.hall.server import serve_hall

    return serve_hall(broker, args.host, args.port)


def _cmd_replay(args: argparse.Namespace) -> int:
    from controller.service.replay_command import replay_command

    return replay_command(args.log, args.variant, args.settle, args.error_delay,
                          via=args.via, config=args.config, trace=args.trace)


def _cmd_games(args: argparse.Namespace) -> int:
    from pathlib import Path

    from controller.service.config import load_config
    from controller.service.games_command import games_command

    config = load_config(args.config)
    data_dir = Path(args.data_dir) if args.data_dir else config.data_dir
    return games_command(args.action, args.id, data_dir, nodes=args.nodes, seconds=args.time)


def _cmd_hint(args: argparse.Namespace) -> int:
    from controller.engine.hint import hint_command

    return hint_command(args.variant, args.position, args.time, args.level, args.seed)


MIN_SQUARE_MM = 10.0  # a marker 8 mm wide: smaller, a camera over a board reads none


def _cmd_markers(args: argparse.Namespace) -> int:
    import math

    from calibration.markers import largest_square_mm, write_marker_sheet

    if not MIN_DPI <= args.dpi <= MAX_DPI:  # A4 at 100,000 dpi: 859 PiB of pixels
        raise ValueError(f"--dpi must be {MIN_DPI} to {MAX_DPI}, not {args.dpi}")
    most = math.floor(largest_square_mm(args.dpi) * 10) / 10
    if not (math.isfinite(args.square_mm) and MIN_SQUARE_MM <= args.square_mm <= most):
        raise ValueError(f"--square-mm must be a number of millimetres, {MIN_SQUARE_MM:g} "
                         f"to {most:g} (a board's square; a marker is 0.8 of it, and four "
                         f"fit an A4 sheet), not {args.square_mm:g}")
    paths = write_marker_sheet(args.out, square_mm=args.square_mm, dpi=args.dpi)
    for path in paths:
        print(path)
    return 0


def _cmd_calibrate_camera(args: argparse.Namespace) -> int:
    from calibration.camera import check_cells

    if args.live is not None:
        if args.empty or args.layout:
            raise ValueError("--live takes the photos itself: drop --empty and --layout")
        from calibration.live import DEFAULT_LAYOUT, serve

        layout = check_cells(args.cells) if args.cells else DEFAULT_LAYOUT
        host = "127.0.0.1" if args.host is None else args.host
        return serve(args.live, args.out, layout, host=host,
                     port=8081 if args.port is None else args.port)
    given = [f"--{n}" for n in ("host", "port") if getattr(args, n) is not None]
    if given:
        raise ValueError(f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} for the "
                         "preview page of --live DEVICE, not for photos")
    missing = [f"--{n}" for n in ("empty", "layout", "cells") if not getattr(args, n)]
    if missing:
        raise ValueError(f"calibrate camera needs {', '.join(missing)} (or --live DEVICE)")
    from calibration.camera import calibrate_camera

    calibrate_camera(args.empty, args.layout, args.cells, args.out)
    print(f"profile written to {args.out}")
    return 0


def _cmd_camera_read(args: argparse.Namespace) -> int:
    from calibration.frames import read_frames

    for line in read_frames(args.image, args.profile, args.explain):
        print(line, flush=True)
    return 0


def _doctor_serial(port: str, config_path: str | None, seconds: float,
                   stop: bool = False) -> int:
    """A Pico board on ``port``, of the board ``config_path``'s
    ``[gpio.mapping]`` names, or else of the board its variant is played on
    (as ``doctor`` on the GPIO board): the report in words, 1 when it found
    a problem; with ``stop``, its firmware stopped for an update instead.
    The link's own log lines would repeat the report."""
    import logging

    from controller.drivers.mapping import named_board
    from controller.drivers.serial_doctor import doctor_link, stop_firmware
    from controller.drivers.serial_link import never_a_port
    from controller.rules import find_any_variant
    from controller.service.config import load_config
    from controller.service.hardware import SerialBackend

    config = load_config(config_path)
    board = named_board(config.gpio_table, find_any_variant(config.variant).geometry.name)
    backend = SerialBackend(port, config, board=board)  # the mapping checked, no port opened
    quiet = logging.NullHandler()
    logger = logging.getLogger("controller.drivers")
    logger.addHandler(quiet)
    try:
        problem = never_a_port(port)
        if problem is not None:  # refused as `run` refuses it: no handshake to wait for
            raise OSError(problem)
        backend.start()
        if stop:
            return stop_firmware(backend.link, print)
        return doctor_link(backend.link, backend.mapping, seconds, print)
    finally:
        backend.close()
        logger.removeHandler(quiet)


def _cmd_doctor(args: argparse.Namespace) -> int:
    warnings.simplefilter("ignore")  # gpiozero's pin-factory fallbacks
    if not 0 < args.seconds <= 600:
        raise ValueError(f"--seconds must be more than 0 and at most 600, not {args.seconds:g}")
    for option in ("serial", "camera"):
        if getattr(args, option) is not None and not getattr(args, option).strip():
            raise ValueError(f"--{option} needs a port or device, not an empty name")
        if getattr(args, option) is not None and not getattr(args, option).isprintable():
            raise ValueError(f"--{option} needs a port or device, not a name with control "
                             f"characters ({getattr(args, option)!r})")
    if args.stop_firmware and not args.serial:
        raise ValueError("--stop-firmware needs --serial PORT (the Pico's port)")
    if args.serial and args.camera:
        raise ValueError("check one board at a time: --serial PORT or --camera DEVICE")
    if args.live and (args.serial or args.camera):
        raise ValueError("--live shows the GPIO board's switches: drop --serial and --camera, "
                         "or --live")
    if args.serial:
        return _doctor_serial(args.serial, args.config, args.seconds, args.stop_firmware)
    if args.camera:
        from calibration.doctor import doctor_camera

        return doctor_camera(args.camera, args.seconds)
    from controller.drivers.console import TerminalConsole
    from controller.drivers.doctor import doctor_from_config, live_from_config

    config = args.config or "config.toml"
    defaults = args.config is None  # no file named: the wiring of hardware.md without one
    if defaults and not os.path.exists(config):
        print("No config.toml here: checking the board as hardware.md wires it (the "
              "defaults); give --config FILE for another wiring.")
    if args.live:
        import threading

        stop = threading.Event()

        def wait_for_enter() -> None:
            sys.stdin.readline()
            stop.set()

        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()

        threading.Thread(target=wait_for_enter, daemon=True).start()
        return live_from_config(config, write, stop, board=_board_of(config),
                                missing_ok=defaults)
    report = doctor_from_config(config, TerminalConsole(), board=_board_of(config),
                                missing_ok=defaults)
    return 0 if report.ok else 1


def _board_of(config: str) -> str | None:
    """The board the game of configuration file ``config`` is played on
    (its ``[board] variant``), as ``run`` plays it; None for no file."""
    from pathlib import Path

    from controller.rules import find_any_variant
    from controller.service.config import load_config

    if not Path(config).exists():
        return None
    return find_any_variant(load_config(config).variant).geometry.name


def _cmd_calibrate(args: argparse.Namespace) -> int:
    warnings.simplefilter("ignore")
    from controller.drivers.calibrate_matrix import run_calibration
    from controller.drivers.console import TerminalConsole

    run_calibration(args.config, TerminalConsole(), use_leds=False if args.no_leds else None,
                    board=_board_of(args.config))
    return 0


def _path(then: str) -> Callable[[str], str]:
    """An option's path checked as argparse reads it: not an empty word
    (the current folder, unsaid) and no NUL; ``then`` ends the refusal of
    an empty one."""
    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"an empty path: {then}")
        if "\0" in text:
            raise argparse.ArgumentTypeError("a path cannot hold a NUL character")
        return text
    return check


# --data-dir; --config (read as the current folder, or by doctor as no file
# given); a camera command's file (``camera read ''`` read every picture of
# the current folder).
_data_dir = _path("give the folder, or leave the option out")
_config_file = _path("give the file, or leave the option out")
_file = _path("give one")


def _variant_help(default: str = DEFAULT_VARIANT) -> str:
    from controller.rules import LEAP_VARIANTS, VARIANTS

    names = ", ".join([v.name for v in VARIANTS] + [v.name for v in LEAP_VARIANTS])
    return f"rules variant: {names} (default: {default})"


def _add_demo_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help=_variant_help())
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: none)")
    parser.add_argument(
        "--max-moves",
        type=int,
        default=DEFAULT_MAX_MOVES,
        help=f"stop after this many actions (default: {DEFAULT_MAX_MOVES})",
    )


def _add_replay_parser(sub: Any) -> None:
    from controller.reconcile.settings import Settings  # the service's defaults too

    rp = sub.add_parser(
        "replay",
        help="feed a sensor log through the reconciler and print the game record",
    )
    rp.add_argument("log", metavar="LOG", help="sensor log (JSON Lines); - for standard input")
    rp.add_argument(
        "--variant", default=None,
        help=_variant_help("the game the log's header names, as in a log written by games "
                           f"log; else {DEFAULT_VARIANT}"))
    rp.add_argument(
        "--trace",
        action="store_true",
        help="print one JSON object per input line (time, status, LED roles) instead",
    )
    rp.add_argument(
        "--settle", type=float, default=Settings.settle,
        help=f"settle window in seconds (default: {Settings.settle})"
    )
    rp.add_argument(
        "--error-delay",
        type=float,
        default=Settings.error_delay,
        help=f"seconds a wrong reading stays before errors light (default: {Settings.error_delay})",
    )
    rp.add_argument(
        "--via",
        choices=["direct", "gpio", "firmware"],
        default="direct",
        help="feed the log's frames through the simulated switches and the real "
        "GPIO scanning code, or the firmware and its serial link (default: direct)",
    )
    rp.add_argument("--config", type=_config_file,
                    help="TOML configuration ([gpio] mapping for --via gpio, firmware)")
    rp.set_defaults(command=_cmd_replay)


def _add_broadcast(run: argparse.ArgumentParser, sub: Any) -> None:
    """``run``'s broker options and the ``hall`` command (docs/broadcast.md)."""
    run.add_argument("--broker", help="publish the games to this MQTT broker: mqtt://HOST:PORT "
                     "or mqtts://HOST:PORT (credentials go in the configuration file)")
    run.add_argument("--board-id", help="this board's name on the broker (kharbga/NAME/...)")
    hall = sub.add_parser("hall", help="the hall page: every board of a broker live")
    hall.add_argument("--broker", help="the MQTT broker: mqtt://HOST:PORT or mqtts://HOST:PORT")
    hall.add_argument("--host", default="127.0.0.1", help="address of the page "
                      "(default: 127.0.0.1; 0.0.0.0 for every network)")
    hall.add_argument("--port", type=int, default=8090, help="port of the page (default: 8090)")
    hall.add_argument("--config", type=_config_file, help="TOML file with a [broadcast] "
                      "table (user name, password, TLS files)")
    hall.set_defaults(command=_cmd_hall)


def _add_run_and_hint(sub: Any) -> None:
    run = sub.add_parser("run", help="run the board service and its web page")
    run.add_argument("--board", help="sim, gpio, serial:PORT or camera:DEVICE (default: sim)")
    run.add_argument("--variant", help=_variant_help())
    run.add_argument("--host", help="address of the web page (default: 127.0.0.1)")
    run.add_argument("--port", type=int, help="port of the web page (default: 8080)")
    run.add_argument("--data-dir", type=_data_dir, help="where games are stored (default: data)")
    run.add_argument("--config", type=_config_file, help="TOML configuration file")
    run.add_argument("--token", help="the token callers on other machines must give (at least "
                     "12 characters; needed when --host is not a loopback address)")
    run.set_defaults(command=_cmd_run)
    _add_broadcast(run, sub)

    hp = sub.add_parser("hint", help="the engine's best move for a position")
    hp.add_argument("--variant", default=DEFAULT_VARIANT, help=_variant_help())
    hp.add_argument("--position", help="position string (docs/rules.md; default: the "
                    "variant's start)")
    hp.add_argument("--time", type=float, help="seconds to think, more than 0 and at most "
                    "600 (default: 0.9)")
    hp.add_argument("--level", type=int, help="playing level 1 (beginner) to 5 (full "
                    "strength; the default)")
    hp.add_argument("--seed", type=int, default=0, help="seed for weakened levels")
    hp.set_defaults(command=_cmd_hint)


def _add_games_parser(sub: Any) -> None:
    gp = sub.add_parser("games", help="the archive: list, show, export a record, raw sensor "
                        "log, analyse a game with the engine")
    gp.add_argument("action", metavar="ACTION", help="list, show, export, log or analyse",
                    choices=["list", "show", "export", "log", "analyse"])
    gp.add_argument("id", metavar="ID", nargs="?", help="game id (show, export, log, analyse)")
    budget = gp.add_mutually_exclusive_group()
    budget.add_argument("--nodes", type=int, help="analyse: nodes searched a position "
                        "(default: 100000; 5000 where the search runs in Python: the leap games, "
                        "H'ajeb)")
    budget.add_argument("--time", type=float, help="analyse: seconds a position instead")
    gp.add_argument("--data-dir", type=_data_dir, help="where games are stored (default: "
                    "[storage] data_dir of --config, else data)")
    gp.add_argument("--config", type=_config_file, help="TOML configuration file")
    gp.set_defaults(command=_cmd_games)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; each subcommand sets ``command`` to its handler."""
    parser = OneLineParser(prog=PROG, description="Controller for a physical Kharbga board.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command_name", metavar="COMMAND", required=True)

    demo = sub.add_parser("demo", help="play a random game and print it")
    _add_demo_options(demo)
    demo.set_defaults(command=_cmd_demo)

    _add_run_and_hint(sub)

    # Listed for --help only: main() hands `match ...` whole to engine/match.py,
    # which parses its own options, before this parser is made.
    sub.add_parser("match", help="engine, greedy or random players against each other",
                   add_help=False)

    _add_games_parser(sub)

    _add_replay_parser(sub)

    dp = sub.add_parser("doctor", help="self-test of the GPIO board (LEDs, switches, "
                        "ghosting), a Pico board (--serial) or a camera (--camera)")
    dp.add_argument("--config", type=_config_file,
                    help="TOML configuration file (default: config.toml, or "
                    "without one the wiring of hardware.md; with --serial, the defaults: the "
                    "7x7 board)")
    dp.add_argument("--live", action="store_true", help="show every switch live until Enter")
    dp.add_argument("--serial", metavar="PORT", help="check a Pico board on this serial port")
    dp.add_argument("--camera", metavar="DEVICE", help="check a camera (device number, "
                    "/dev/video* or a video file): exposure and white balance locked, frame "
                    "rate, the four markers seen")
    dp.add_argument("--seconds", type=float, default=3.0,
                    help="how long to watch the serial link or the camera (default: 3)")
    dp.add_argument("--stop-firmware", action="store_true",
                    help="with --serial: stop the Pico's firmware for an update (it restarts "
                    "at its REPL, for mpremote; stop the service first)")
    dp.set_defaults(command=_cmd_doctor)

    cp = sub.add_parser("calibrate", help="calibration: switch matrix, camera markers, camera")
    csub = cp.add_subparsers(dest="what", metavar="WHAT", required=True)
    cm = csub.add_parser("matrix", help="walk through the switch and LED mapping")
    cm.add_argument("--config", type=_config_file, default="config.toml",
                    help="TOML file to write the mapping to")
    cm.add_argument("--no-leds", action="store_true", help="do not light the squares")
    cm.set_defaults(command=_cmd_calibrate)
    ck = csub.add_parser("markers", help="print sheet of the four ArUco markers (and a board)")
    ck.add_argument("--out", required=True, type=_file, help="PNG file to write")
    ck.add_argument("--square-mm", type=float, default=40.0, help="square size (default 40 mm)")
    ck.add_argument("--dpi", type=int, default=300, help=f"print resolution, {MIN_DPI} to "
                    f"{MAX_DPI} (default 300)")
    ck.set_defaults(command=_cmd_markers)
    cc = csub.add_parser("camera", help="learn the board's colours from two photos",
                         description="From two photos (--empty, --layout, --cells), or "
                         "interactively on the live camera with a preview page (--live).")
    cc.add_argument("--empty", type=_file, help="photo of the empty board")
    cc.add_argument("--layout", type=_file, help="photo of the board with known pieces")
    cc.add_argument("--cells", help="the layout's 49 cells (a, d, .); with --live, the "
                    "layout asked for (default: a, d, . in turn)")
    cc.add_argument("--out", required=True, type=_file, help="profile (JSON) to write")
    cc.add_argument("--live", metavar="DEVICE", help="calibrate on the live camera (a device "
                    "number, or a video file) with a preview page")
    cc.add_argument("--host", help="preview page address (--live; default: 127.0.0.1)")
    cc.add_argument("--port", type=int, help="preview page port (--live; default: 8081)")
    cc.set_defaults(command=_cmd_calibrate_camera)

    cr = sub.add_parser("camera", help="read a board from a photo, a folder of photos or a video")
    crs = cr.add_subparsers(dest="camera_action", metavar="ACTION", required=True)
    read = crs.add_parser("read", help="print the 49-character cells string of a photo, or one "
                          "line a frame (name, cells) of a folder of photos or a video")
    read.add_argument("image", metavar="SOURCE", type=_file,
                      help="a photo, a folder of photos or a video")
    read.add_argument("--profile", required=True, type=_file,
                      help="profile from calibrate camera")
    read.add_argument("--explain", metavar="OUT.png", type=_file, help="write the overlay "
                      "(squares, readings, the light correction) of the last frame; {} in "
                      "the name writes one a frame")
    read.set_defaults(command=_cmd_camera_read)

    return parser


def _words(exc: ValueError | OSError) -> str:
    """The error on one line: a system error as the shell's tools say it
    ("FILE: Permission denied"; "cannot write: No space left on device"
    for the output or a file it does not name), not Python's form."""
    if isinstance(exc, OSError) and exc.strerror:
        if exc.filename is not None:
            return said(OSError(f"{exc.filename}: {exc.strerror}"))
        if exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
            return f"cannot write: {exc.strerror}"
        return exc.strerror
    return said(exc) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``kharbga-board``; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["match"]:  # its own options, passed on whole
        from controller.engine.match import main as match_main

        def command(_: object) -> int:
            return match_main(args_list[1:])

        args: object = None
    else:
        args = build_parser().parse_args(args_list)
        command = args.command
    try:
        return command(args)
    except KeyboardInterrupt:  # Ctrl-C (a match stops, its workers with it)
        return 130
    except BrokenPipeError:  # `games log 3 | head`: the reader stopped; say nothing
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except ModuleNotFoundError as exc:
        root = (exc.name or "").partition(".")[0]
        if root not in EXTRAS:
            raise
        print(f"{PROG}: this needs the Python module {root!r}, which is not installed: "
              f"{install_hint(EXTRAS[root])}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"{PROG}: {_words(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # hardware libraries raise their own errors
        if os.environ.get("KHARBGA_DEBUG"):
            raise
        message = said(exc) or "failed"
        print(f"{PROG}: {type(exc).__name__}: {message} (KHARBGA_DEBUG=1 shows details)",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
