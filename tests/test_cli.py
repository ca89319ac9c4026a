"""The kharbga-board command line: replay, errors, demo."""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from controller.cli import main
from controller.reconcile.simulator import simulate_log
from controller.rules import Game
from controller.rules.record import parse_record
from controller.service.store import Store


def _game(variant: str, seed: int, limit: int) -> Game:
    rng = random.Random(seed)
    g = Game.new(variant)
    while g.outcome is None and len(g.moves) < limit:
        g.play(rng.choice([m for m in g.legal_moves() if m.kind != "pass"] or g.legal_moves()))
    return g


def test_replay_prints_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = _game("kharbga", 3, 70)
    log = tmp_path / "game.jsonl"
    log.write_text(simulate_log(game, seed=1))
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    record = parse_record(out)
    assert [str(m) for m in record.game().moves] == [str(m) for m in game.moves]


def test_replay_trace_has_one_object_per_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    game = _game("sabouiyya", 4, 30)
    text = simulate_log(game, seed=2, colour=True)
    log = tmp_path / "game.jsonl"
    log.write_text(text)
    assert main(["replay", str(log), "--variant", "sabouiyya", "--trace"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len([x for x in text.splitlines() if x.strip()])
    objs = [json.loads(x) for x in lines]
    assert all(set(o) == {"t", "status", "leds"} for o in objs)
    assert any(role == "setup" for o in objs for role in o["leds"].values())
    assert [o["t"] for o in objs] == sorted(o["t"] for o in objs)


@pytest.mark.parametrize("via", ["direct", "gpio"])
def test_a_log_whose_last_line_was_cut_short_replays_the_lines_before_it(
        via: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A log copied while it was being written, or a logger stopped
    # mid-line: the game up to the tear is replayed, and the tear said.
    game = _game("kharbga", 3, 70)
    text = simulate_log(game, seed=1)
    whole = len(text.splitlines())
    log = tmp_path / "game.jsonl"
    log.write_text(text + '{"t": 99999, "occ": "0110')
    assert main(["replay", str(log), "--via", via]) == 0
    out, err = capsys.readouterr()
    assert [str(m) for m in parse_record(out).game().moves] == [str(m) for m in game.moves]
    assert err == (f"kharbga-board: {log}: line {whole + 1}: cut short (no end of line); "
                   f"the {whole} lines before it were replayed\n")
    # Cut short anywhere but at its end, or whole but bad, a log is refused.
    for bad in (text + '{"t": 99999, "occ": "0110\n', text + '{"t": 99999, "occ": "01"}'):
        log.write_text(bad)
        assert main(["replay", str(log), "--via", via]) == 2
        assert f"line {whole + 1}:" in capsys.readouterr().err


def test_a_log_cut_short_on_standard_input_replays_too() -> None:
    game = _game("kharbga", 5, 40)
    text = simulate_log(game, seed=2)
    torn = text + text.splitlines()[-1][:20]
    proc = subprocess.run([sys.executable, "-m", "controller", "replay", "-"], input=torn,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0
    assert [str(m) for m in parse_record(proc.stdout).game().moves] == [
        str(m) for m in game.moves]
    assert proc.stderr.count("\n") == 1 and "cut short (no end of line)" in proc.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty log"),
        ("not json\n", "line 1 (header): not JSON"),
        ('{"t": 0, "board": "9x9", "sensor": "occupancy"}\n', "header 'board'"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy"}\n{"t": 1, "occ": "01"}\n',
         "line 2: 'occ' must be a string of 49 characters"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy"}\n{"t": 1, "occ": "' + "2" * 49
         + '"}\n', "line 2: occ character '2'"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy"}\n{"t": 5, "occ": "' + "0" * 49
         + '"}\n{"t": 4, "occ": "' + "0" * 49 + '"}\n', "line 3: time 4.0 goes back"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy"}\n{"t": 1, "button": "launch"}\n',
         "unknown button 'launch'"),
        ('{"t": 0, "board": "5x5", "sensor": "occupancy"}\n', "variant kharbga is played on 7x7"),
        ('{"t": 0, "board": "7x7", "sensor": "colour"}\n{"t": 1, "occ": "' + "0" * 49 + '"}\n',
         "an 'occ' frame in a colour log"),
        ('{"t": -1, "board": "7x7", "sensor": "colour"}\n', "from 0 to 10,000,000,000, not -1"),
        # Before: "OverflowError: int too large to convert to float", and (replayed
        # through the firmware) "cannot convert float infinity to integer".
        ('{"t": 1' + "0" * 400 + ', "board": "7x7", "sensor": "colour"}\n',
         "line 1 (header): 't' must be a number of seconds from 0 to 10,000,000,000, not "
         "1000000000000000000000000000000000000..."),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy"}\n{"t": 1e308, "occ": "' + "0" * 49
         + '"}\n', "line 2: 't' must be a number of seconds from 0 to 10,000,000,000, not 1e+308"),
        # The game a header names (a log written by games log), when it is of no use.
        ('{"t": 0, "board": "7x7", "sensor": "occupancy", "variant": "chess"}\n',
         "header: unknown variant 'chess'"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy", "variant": 7}\n',
         "header 'variant' must be a string"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy", "variant": "sabouiyya"}\n',
         "variant sabouiyya is played on 5x5"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy", "variant": "kharbga", '
         '"start": "AAA a m - 1"}\n', "header: its start 'AAA a m - 1' is not a kharbga position"),
        ('{"t": 0, "board": "7x7", "sensor": "occupancy", "variant": "kharbga", '
         '"options": "no-such-option"}\n', "header: unknown rule option 'no-such-option'"),
    ],
)
def test_bad_logs_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       content: str, message: str) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(content)
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_replay_refuses_a_configuration_it_would_not_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A direct replay uses no wiring: a --config given with it (even one
    # that does not exist) is refused, not silently ignored.
    log = tmp_path / "game.jsonl"
    log.write_text(simulate_log(_game("kharbga", 3, 30), seed=1))
    assert main(["replay", str(log), "--config", str(tmp_path / "none.toml")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        "kharbga-board: --config: read only with --via gpio or --via firmware (a direct "
        "replay uses no wiring)\n")


@pytest.mark.parametrize(("content", "words"), [
    # Before: "[Errno 2] No such file or directory: '...'" and "[Errno 21] Is a directory".
    (None, "{log}: no such file"),
    ("dir", "{log}: is a directory, not a sensor log"),
    # Before: a line number, but of which file? and "(Unterminated string starting at)".
    # (A last line cut short replays the lines before it: this one is not the last.)
    ('{"t": 0.0, "board": "7x7", "sensor": "occupancy"}\n{"t": 1.0, "occ": "0011\n'
     '{"t": 2.0, "occ": "' + "0" * 49 + '"}\n',
     '{log}: line 2: not JSON (Unterminated string starting at column 19)'),
    ("", "{log}: empty log: no header line"),
    ('{"t": 0, "board": "5x5", "sensor": "occupancy"}\n',
     "{log}: header: the log is for a 5x5 board, variant kharbga is played on 7x7"),
    # Before: "not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig))".
    ('\ufeff{"t": 0.0, "board": "7x7", "sensor": "occupancy"}\n',
     "{log}: line 1: starts with a byte-order mark (BOM): a sensor log is UTF-8 without one"),
])
def test_a_bad_log_is_named_with_the_line_and_the_problem(
        tmp_path: Path, content: str | None, words: str) -> None:
    log = tmp_path / "game.jsonl"
    if content == "dir":
        log.mkdir()
    elif content is not None:
        log.write_text(content, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "controller", "replay", str(log)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr == f"kharbga-board: {words.format(log=log)}\n"
    assert proc.stdout == ""


def test_a_log_on_standard_input_that_is_not_utf8_is_said_so_as_a_file_is(
        tmp_path: Path) -> None:
    # Standard input was decoded as the terminal decodes it, bytes of
    # another kind let through as stand-ins: "'occ' must be a string of 49
    # characters (the 7x7 board), got 2", where a file says what it is.
    data = b'{"t": 0.0, "board": "7x7", "sensor": "occupancy"}\n{"t": 1.0, "occ": "\xff\xfe"}\n'
    log = tmp_path / "game.jsonl"
    log.write_bytes(data)
    said = []
    for args, given in ((["-"], data), ([str(log)], None)):
        proc = subprocess.run([sys.executable, "-m", "controller", "replay", *args],
                              input=given, capture_output=True, check=False,
                              env={"PATH": "/usr/bin:/bin", "LANG": "C"})
        assert proc.returncode == 2 and proc.stdout == b""
        said.append(proc.stderr.decode().split(": ", 2)[-1])
    assert said == ["not a sensor log (not UTF-8 text)\n"] * 2


def test_a_log_read_from_a_closed_standard_input_is_said_so() -> None:
    # Before: "AttributeError: 'NoneType' object has no attribute 'buffer'".
    proc = subprocess.run([sys.executable, "-m", "controller", "replay", "-"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False,
                          preexec_fn=lambda: os.close(0))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("kharbga-board: standard input is closed: give the log's file "
                           "name\n")


def test_missing_file_and_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/log.jsonl"]) == 2
    assert main(["replay", "-", "--variant", "chess"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0] == "kharbga-board: /nonexistent/log.jsonl: no such file"
    assert "unknown variant 'chess'" in err[1]


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--settle", "nan", "--settle must be 0.01 to 5 seconds, not nan"),
    ("--settle", "1e9", "--settle must be 0.01 to 5 seconds"),
    ("--settle", "-1", "--settle must be"),
    ("--error-delay", "nan", "--error-delay must be 0 to 60 seconds, not nan"),
    ("--error-delay", "-0.5", "--error-delay must be"),
])
def test_replay_refuses_timings_no_board_has(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            option: str, value: str, words: str) -> None:
    # The same ranges as the service's configuration: a window that reads
    # nothing would print an empty record as if the game had none.
    log = tmp_path / "game.jsonl"
    log.write_text(simulate_log(_game("kharbga", 3, 30), seed=1))
    assert main(["replay", str(log), option, value]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"kharbga-board: {words}")
    assert captured.err.count("\n") == 1


@pytest.mark.parametrize(("content", "words"), [
    (b"[" * 60_000 + b"\n", "line 1 (header): not a log line (JSON nested too deeply)"),
    (b"\xff\xfe garbage\n", "bad.jsonl: not a sensor log (not UTF-8 text)"),
    # Before: Python's "Exceeds the limit (4300 digits) ... sys.set_int_max_str_digits()".
    (b'{"t": 0.0, "board": "7x7", "sensor": "occupancy"}\n{"t": ' + b"1" * 5000 + b"}\n",
     "line 2: not a log line (an integer of more than 4300 digits)"),
    # Before: "a line needs exactly one of 'occ', 'cells' or 'button'".
    (b'{"t": 0.0, "board": "7x7", "sensor": "occupancy"}\n'
     b'{"t": 1.0, "board": "7x7", "sensor": "occupancy"}\n',
     "line 2: a second header: a log has one, on its first line"),
])
def test_unreadable_logs_are_named_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            content: bytes, words: str) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_bytes(content)
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Error" not in err


def test_a_log_with_no_game_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An empty board throughout: nothing to print, and said (before: nothing at all).
    log = tmp_path / "empty.jsonl"
    log.write_text('{"t": 0.0, "board": "7x7", "sensor": "occupancy"}\n'
                   '{"t": 1.0, "occ": "' + "0" * 49 + '"}\n')
    assert main(["replay", str(log)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"kharbga-board: {log}: no game recognised (the board never showed "
                            "an action of the rules)\n")


def test_the_installed_command_says_bad_input_in_one_line(tmp_path: Path) -> None:
    """The console script ``make install`` puts on the PATH, not only main()."""
    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"\xff\xfe garbage")
    script = Path(sysconfig.get_path("scripts")) / "kharbga-board"
    proc = subprocess.run([str(script), "replay", str(log)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"kharbga-board: {log}: not a sensor log (not UTF-8 text)\n"


def test_demo_plays_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    """The moves printed replay to the position and the end printed."""
    from controller.rules import Game

    assert main(["demo", "--variant", "sabouiyya", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    game = Game.new("sabouiyya")
    for line in lines[:-2]:
        game.play(line.split()[-1])
    assert lines[-2] == f"position: {game.position()}"
    out = game.outcome
    assert out is not None and lines[-1] == f"outcome: {out.winner} wins ({out.reason})"


@pytest.mark.parametrize("variant", ["checkers", "sixteen-soldiers"])
def test_demo_plays_the_leap_games_too(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.rules import game_from_position, new_game

    assert main(["demo", "--variant", variant, "--seed", "1", "--max-moves", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and lines[-1] == "outcome: none after 5 moves"
    game = new_game(variant)
    for line in lines[:5]:
        game.play(line.split()[-1])
    assert lines[5] == f"position: {game.position()}"
    assert game_from_position(variant, game.position()).position() == game.position()


def test_demo_refuses_a_negative_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--max-moves", "-5"]) == 2
    assert capsys.readouterr().err == "kharbga-board: --max-moves must be 0 or more, not -5\n"


def _three_placements(data: Path) -> tuple[Store, int]:
    """An archive in ``data`` with a sabouiyya game of three placements,
    Amel against Youssef: the store (open) and the game's id."""
    store = Store(data)
    game = Game.new("sabouiyya")
    gid = store.new_game(game, "Amel", "Youssef")
    for token in ["@c2", "@a1", "@b3"]:
        game.play(token)
    store.sync(gid, game)
    return store, gid


def test_games_archive_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, gid = _three_placements(tmp_path)
    store.append_sensor(gid, ['{"t": 0.0, "occ": "' + "0" * 25 + '"}'])
    store.close()
    assert main(["games", "list", "--data-dir", str(tmp_path)]) == 0
    assert "Amel - Youssef  playing  (3 actions)" in capsys.readouterr().out
    assert main(["games", "export", str(gid), "--data-dir", str(tmp_path)]) == 0
    record = parse_record(capsys.readouterr().out)
    assert record.tags["Attacker"] == "Amel"
    assert [str(m) for m in record.game().moves] == ["@c2", "@a1", "@b3"]
    assert main(["games", "log", str(gid), "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out  # a header, then the log: replayable as it is
    assert out.splitlines() == ['{"t": 0.0, "board": "5x5", "sensor": "occupancy", '
                                '"variant": "sabouiyya"}',
                                '{"t": 0.0, "occ": "' + "0" * 25 + '"}']
    assert main(["games", "show", "77", "--data-dir", str(tmp_path)]) == 2
    assert "no game 77" in capsys.readouterr().err
    huge = "9" * 23  # beyond SQLite's 64-bit ids
    assert main(["games", "show", huge, "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"kharbga-board: no game {huge} in {tmp_path}\n"


def test_a_stored_game_that_does_not_replay_is_named(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """An archive edited by hand (an action no rules read, a variant no
    longer known): show and export name the game and the archive, as the
    service's log does. Before, the line was the bare cause ("action 2
    (zz9): cannot read move 'zz9'", "its start (nosuch): ..."), the game
    and the archive unnamed."""
    import sqlite3

    store, gid = _three_placements(tmp_path)
    other = store.new_game(Game.new("kharbga"), "Amel", "Youssef")
    store.close()
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        db.execute("UPDATE actions SET token='zz9' WHERE game_id=? AND ply=1", (gid,))
        db.execute("UPDATE games SET variant='nosuch' WHERE id=?", (other,))
    archive = tmp_path / "games.sqlite3"
    for action, g, why in (("show", gid, "action 2 (zz9): cannot read move 'zz9'"),
                           ("export", gid, "action 2 (zz9): cannot read move 'zz9'"),
                           ("show", other, "its start (nosuch): unknown variant 'nosuch'")):
        assert main(["games", action, str(g), "--data-dir", str(tmp_path)]) == 2
        out, err = capsys.readouterr()
        assert not out and err.startswith(
            f"kharbga-board: game {g} in {archive} does not replay under these rules "
            f"({why}"), err
        assert err.count("\n") == 1
    # Its sensor log alike (was the bare "unknown variant 'nosuch' ...").
    assert main(["games", "log", str(other), "--data-dir", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert not out and err.startswith(
        f"kharbga-board: game {other} in {archive}: no sensor log for its rules "
        "(unknown variant 'nosuch'"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("gid", ["\u00b2", "\u0663", "1\u00b9", "-1", "1.0"])
def test_a_game_id_is_ascii_digits(gid: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from controller.service.store import Store

    store = Store(tmp_path)
    for _ in range(3):  # "\u0663" (Arabic-Indic three) is not game 3
        store.new_game(Game.new("kharbga"), "A", "D")
    store.close()
    assert main(["games", "show", gid, "--data-dir", str(tmp_path)]) == 2
    # Before: "games show needs a game id", as if none had been given.
    assert capsys.readouterr() == ("", f"kharbga-board: games show: {gid!r} is not a game id, "
                                       "which is a number written in the digits 0-9 (see: "
                                       "games list)\n")
    assert main(["games", "show", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr() == ("", "kharbga-board: games show needs a game id (see: games "
                                       "list)\n")


def test_games_list_refuses_an_id_and_a_file_for_a_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.service.store import Store

    Store(tmp_path).close()
    # Before: the id was ignored and every game listed.
    assert main(["games", "list", "3", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr() == ("", "kharbga-board: games list takes no game id: to see "
                                       "one game, games show 3\n")
    # Before: "no games recorded in F (no games.sqlite3 there)", as of an empty folder.
    archive = tmp_path / "games.sqlite3"
    assert main(["games", "list", "--data-dir", str(archive)]) == 2
    assert capsys.readouterr() == ("", f"kharbga-board: {archive} is a file, not a data "
                                       "directory: give the folder that holds games.sqlite3 "
                                       "(--data-dir)\n")


def test_a_date_out_of_range_is_shown_unknown(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """One game's date edited out of range: the listing still lists them
    all, that date as "?", and its record has an unknown Date."""
    import sqlite3

    from controller.service.store import Store

    store = Store(tmp_path)
    for name in ("Amel", "Nadia"):
        store.new_game(Game.new("kharbga"), name, "D")
    store.close()
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("UPDATE games SET created=1e300 WHERE id=1")
    db.close()
    assert main(["games", "list", "--data-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert err == "" and len(lines) == 2 and "Nadia - D" in lines[0]
    assert lines[1].startswith("    1  ?  kharbga ") and "Amel - D" in lines[1]
    assert main(["games", "export", "1", "--data-dir", str(tmp_path)]) == 0
    assert '[Date "????.??.??"]' in capsys.readouterr().out


def test_replay_via_firmware_follows_the_configured_mapping(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--config`` gives the firmware its board's wiring (the dark squares
    of 8x8 on 8 x 4); a mapping of another board is refused in one line."""
    from controller.rules import new_game

    game = new_game("english-draughts")
    rng = random.Random(5)
    while game.outcome is None and len(game.moves) < 12:
        game.play(rng.choice(game.legal_moves()))
    log = tmp_path / "game.jsonl"
    log.write_text(simulate_log(game, seed=5))
    dark = tmp_path / "dark.toml"
    dark.write_text('[gpio.mapping]\nboard = "8x8"\ndark_only = true\n')
    argv = ["replay", str(log), "--variant", "english-draughts", "--via", "firmware"]
    assert main([*argv, "--config", str(dark)]) == 0
    record = parse_record(capsys.readouterr().out)
    assert [str(m) for m in record.game().moves] == [str(m) for m in game.moves]
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('[gpio.mapping]\nboard = "37-point"\n')
    assert main([*argv, "--config", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the mapping is for the 37-point board, the log for 8x8" in err


@pytest.mark.parametrize(("argv", "module", "extra"), [
    (["camera", "read", "x", "--profile", "y"], "cv2", "camera"),
    (["doctor"], "gpiozero", "pi"),
    (["doctor", "--serial", "/dev/nonexistent"], "serial", "serial"),
])
def test_a_missing_library_is_named_with_its_extra(argv: list[str], module: str,
                                                    extra: str) -> None:
    # The library hidden from a fresh interpreter, as on a machine that
    # installed the package without that extra.
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            f"from controller.cli import main; raise SystemExit(main({argv!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 2
    from controller.board.config import install_hint

    assert proc.stderr == (f"kharbga-board: this needs the Python module {module!r}, which is "
                           f"not installed: {install_hint(extra)}\n")
    assert f".venv/bin/pip install -e '.[{extra}]'" in proc.stderr  # works in a checkout


@pytest.mark.parametrize("command", [["games", "list"], ["run"]])
def test_an_empty_data_dir_is_refused(command: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    # Not read as "the default folder": a script with an unset variable
    # would otherwise write into ./data unnoticed.
    with pytest.raises(SystemExit) as done:
        main([*command, "--data-dir", ""])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --data-dir: an empty path" in err


@pytest.mark.parametrize("command", [["run"], ["doctor"], ["doctor", "--serial", "/dev/null"],
                                     ["calibrate", "matrix"], ["games", "list"], ["hall"],
                                     ["replay", "game.log"]])
def test_an_empty_config_file_name_is_refused(command: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # Before: read as the current folder ("is a directory, not a file",
    # naming nothing), and by doctor as no file given (config.toml read).
    with pytest.raises(SystemExit) as done:
        main([*command, "--config", ""])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1
    assert "argument --config: an empty path: give the file, or leave the option out" in err


@pytest.mark.parametrize(("argv", "words"), [
    (["run", "--board", "serial:", "--data-dir", "{tmp}"],
     "--board: must be sim, gpio, serial:PORT or camera:DEVICE, not 'serial:'"),
    (["doctor", "--serial", ""], "--serial needs a port or device, not an empty name"),
    (["doctor", "--camera", " "], "--camera needs a port or device, not an empty name"),
    (["doctor", "--serial", "/dev/x\ny"],
     "--serial needs a port or device, not a name with control characters ('/dev/x\\ny')"),
    (["run", "--board", "serial:/dev/x\x1b[2J", "--data-dir", "{tmp}"],
     "--board: a port or device name cannot hold control characters, not "
     "'serial:/dev/x\\x1b[2J'"),
    (["doctor", "--serial", "/dev/null", "--seconds", "inf"],
     "--seconds must be more than 0 and at most 600, not inf"),
    (["doctor", "--serial", "/dev/null", "--seconds", "-1"], "--seconds must be more than 0"),
    (["doctor", "--serial", "/dev/null", "--config", "{tmp}/none.toml"], "none.toml: "),
    (["doctor", "--serial", "/dev/null", "--config", "{tmp}/m99.toml"],
     "{tmp}/m99.toml: gpio.mapping.board: must be one of 5x5, 7x7, 8x8, 37-point, not '9x9'"),
    # What can never be a port is refused at once, as `run` refuses it
    # (before: 5 s waited for a handshake, then status 1).
    (["doctor", "--serial", "/dev/null"],
     "kharbga-board: cannot open /dev/null: not a serial port (a Pico is /dev/ttyACM0"),
    (["doctor", "--serial", "{tmp}", "--stop-firmware"],
     "kharbga-board: cannot open {tmp}: a folder, not a serial port"),
    (["doctor", "--serial", "socket://pi.local"],
     "kharbga-board: cannot open socket://pi.local: HOST:PORT expected after socket://"),
    (["run", "--board", "serial:foo://bar", "--data-dir", "{tmp}/d"],
     "kharbga-board: cannot open foo://bar: not a kind of port this program opens"),
    (["hall", "--config", "{tmp}/hall.toml"],
     "hall.toml: broadcast.ca_file: {tmp}/hall.toml holds no usable certificate"),
    # A camera board started from the command line alone is told where its
    # profile goes (before: only "camera.profile: a camera board needs its profile").
    (["run", "--board", "camera:0", "--data-dir", "{tmp}/d"],
     "camera.profile: a camera board needs its profile (made by kharbga-board calibrate "
     "camera), named by [camera] profile in the configuration file (--config FILE)"),
    # Files that are not what they are given as, never read whole (before:
    # /dev/zero read until memory ran out, the command hanging).
    (["replay", "/dev/zero"], "/dev/zero: line 1: longer than 64 KiB: not a sensor log"),
    (["camera", "read", "{tmp}/hall.toml", "--profile", "/dev/zero"],
     "camera profile /dev/zero: a device, not a regular file"),
    # The option is named, as a file's key is (before: "'table 7': 1 to 64 ...").
    (["run", "--data-dir", "{tmp}/d", "--broker", "mqtt://127.0.0.1:1", "--board-id", "table 7"],
     "kharbga-board: --board-id 'table 7': 1 to 64 letters, digits, '.', '_' or '-'"),
    # Options given empty are named (before: taken as not given, the file's
    # values or no broadcast at all used without a word).
    (["run", "--data-dir", "{tmp}/d", "--broker", "mqtt://127.0.0.1:1", "--board-id", ""],
     "kharbga-board: --board-id '': 1 to 64 letters"),
    (["run", "--data-dir", "{tmp}/d", "--broker", "", "--board-id", "t7"],
     "kharbga-board: broker '': use mqtt://HOST:PORT"),
    (["run", "--data-dir", "{tmp}/d", "--board-id", ""], "--board-id needs a broker"),
    (["hall", "--broker", ""], "broker '': use mqtt://HOST:PORT"),
    (["hall", "--port", "0"], "--port must be from 1 to 65535, not 0"),
    (["hall", "--port", "65536"], "--port must be from 1 to 65535, not 65536"),
])
def test_empty_devices_bad_durations_and_tls_files_are_refused_before_anything_starts(
        argv: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hall.toml").write_text(
        f'[broadcast]\nbroker = "mqtts://127.0.0.1:1"\nca_file = "{tmp_path}/hall.toml"\n')
    (tmp_path / "m99.toml").write_text('[gpio.mapping]\nboard = "9x9"\n')
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert words.replace("{tmp}", str(tmp_path)) in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("argv", "words"), [
    (["hint", "--time", "abc"], "kharbga-board hint: argument --time: invalid float value: 'abc'"),
    (["hint", "--level", "3.5"], "kharbga-board hint: argument --level: invalid int value"),
    (["bogus"], "kharbga-board: argument COMMAND: invalid choice: 'bogus'"),
    # games' action named as its --help names it, as COMMAND, WHAT and ACTION
    # are the other commands' (before: "arguments are required: action").
    (["games"], "kharbga-board games: the following arguments are required: ACTION"),
    (["games", "lst"], "kharbga-board games: argument ACTION: invalid choice: 'lst'"),
])
def test_a_bad_option_is_refused_in_one_line(argv: list[str], words: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.startswith(words) and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "words"), [
    (["--games", "abc"], "kharbga-board match: argument --games: invalid int value: 'abc'"),
    (["--games", "1000000000000", "--jobs", "2"],
     "--games must be 1 to 100,000, not 1,000,000,000,000"),
    (["--cap", "0"], "--cap must be 1 to 100,000, not 0"),
    # The option at fault is named alone, with what was given.
    (["--jobs", "0"], "kharbga-board: --jobs must be 1 to 64, not 0"),
    (["--quiet", "-1"], "kharbga-board: --quiet must be at least 0, not -1"),
    (["--opening", "100"], "--opening: kharbga opens with at most 48 placements, not 100"),
    # A number is a number of placements, however large (only 'setting'
    # is the whole setting phase).
    (["--opening", "99999"], "--opening: kharbga opens with at most 48 placements, not 99999"),
    (["--variant", "checkers", "--opening", "99999"],
     "--opening: checkers opens with at most 200 random actions, not 99999"),
    (["--variant", "checkers", "--opening", "setting"],
     "checkers has no setting phase: give --opening a number"),
    (["--games", "3", "--opening", "8"], "--games must be even with --opening"),
])
def test_match_refuses_what_it_cannot_play(argv: list[str], words: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(["match", *argv])
    except SystemExit as done:
        status = done.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert status == 2 and words in err and err.count("\n") == 1


def test_a_match_whose_reader_went_away_stops_quietly(tmp_path: Path) -> None:
    # `kharbga-board match ... | head -1`: as every other command, no
    # "Broken pipe" and exit 0.
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "controller", "match", "--a", "random",
                            "--b", "random", "--games", "2"], stdout=write,
                           stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(write)
    assert r.returncode == 0 and r.stderr == ""


def test_an_output_that_cannot_be_written_is_said_as_the_shell_says_it() -> None:
    # `kharbga-board hint ... > /dev/full`: before, "[Errno 28] No space
    # left on device", Python's form.
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "controller", "hint", "--variant",
                            "khamousiyya", "--time", "0.1"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert r.returncode == 2
    assert r.stderr == "kharbga-board: cannot write: No space left on device\n"


def test_a_hint_for_a_blocked_side_says_who_plays(capsys: pytest.CaptureFixture[str]) -> None:
    # In kharbga a blocked side does not move: the other side plays again.
    position = "......./......./......./......./......./D....../AD..... a m - 5"
    assert main(["hint", "--variant", "kharbga", "--position", position, "--time", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    from controller.rules import Game

    game = Game.from_position("kharbga", position)
    assert game.to_move == "defender" and lines[0] in {str(m) for m in game.legal_moves()}
    assert lines[-1] == "the Attacker is blocked: the Defender plays"


def test_doctor_without_a_config_file_checks_the_board_wired_as_hardware_md_says(
        tmp_path: Path) -> None:
    # As `run --board gpio` plays without one; a file named and missing is
    # still refused. gpiozero's own mock pins (GPIOZERO_PIN_FACTORY) stand
    # for the Pi's; Enter at once ends the live view.
    import os

    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    run = [sys.executable, "-m", "controller", "doctor", "--live"]
    proc = subprocess.run(run, cwd=tmp_path, input="\n", capture_output=True, text=True,
                          env=env, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("No config.toml here: checking the board as hardware.md "
                                  "wires it (the defaults)")
    proc = subprocess.run([*run, "--config", "config.toml"], cwd=tmp_path, input="\n",
                          capture_output=True, text=True, env=env, check=False, timeout=60)
    assert proc.returncode == 2 and proc.stderr == "kharbga-board: config.toml: no such file\n"


def test_the_benchmark_refuses_a_suite_it_does_not_have(
        capsys: pytest.CaptureFixture[str]) -> None:
    # `python -m controller.bench camra` ran nothing and exited 0, silently.
    from controller import bench

    assert bench.main(["camra"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("controller.bench: no suite 'camra' (suites: ") and err.count("\n") == 1


def test_replay_of_a_log_without_its_header_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "header 'board' must be one of "7x7", ..., not None".
    log = tmp_path / "frames.jsonl"
    log.write_text('{"t": 0.0, "occ": "' + "0" * 49 + '"}\n')
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kharbga-board: {log}: line 1 (header): the header names no 'board'")
    assert "None" not in err and err.count("\n") == 1


@pytest.mark.parametrize(("argv", "what"), [
    (["calibrate", "matrix"], "the LEDs cannot be lit (--no-leds calibrates the switches alone)"),
    (["run", "--board", "gpio", "--port", "8798"],
     "the gpio board's LEDs cannot be lit ([gpio.leds] enabled = false plays without them)"),
])
def test_leds_without_their_library_end_calibrate_and_run_in_the_doctor_s_words(
        argv: list[str], what: str, tmp_path: Path) -> None:
    # gpiozero's mock pins, the LEDs enabled, their library hidden from a
    # fresh interpreter: one line, exit 2, no traceback.
    import os

    from controller.board.config import install_hint

    config = tmp_path / "board.toml"
    config.write_text("[gpio.leds]\nenabled = true\n", encoding="utf-8")
    args = [*argv, "--config", str(config)]
    if argv[0] == "run":
        args += ["--data-dir", str(tmp_path / "data")]
    code = ("import sys; sys.modules['neopixel_spi'] = None\n"
            f"from controller.cli import main; raise SystemExit(main({args!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          input="q\n", env={**os.environ, "GPIOZERO_PIN_FACTORY": "mock"},
                          check=False, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"kharbga-board: {what}: their library needs the Python module 'neopixel_spi', which is "
        f"not installed: {install_hint('pi')}")
    assert proc.stdout == ""
    assert config.read_text(encoding="utf-8") == "[gpio.leds]\nenabled = true\n"


def _commands() -> list[list[str]]:
    """Every command of ``kharbga-board`` and every subcommand of one."""
    import argparse

    from controller.cli import build_parser

    def below(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        out = [path] if path else []
        for action in subs:
            for name, child in action.choices.items():
                out += below(child, [*path, name])
        return out

    return below(build_parser(), [])


@pytest.mark.parametrize("argv", _commands(), ids=" ".join)
def test_every_command_refuses_an_option_it_lacks_in_one_line(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # A command's refusals are one line and exit status 2: its parser is
    # the command line's (subparsers of controller/cli.py's parser are).
    try:
        status = main([*argv, "--no-such-option"])
    except SystemExit as done:
        status = done.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("kharbga-board") and err.count("\n") == 1, (
        f"kharbga-board {' '.join(argv)} refused an unknown option with {err!r} (status "
        f"{status}): give it a parser made by controller/cli.py's (sub.add_parser), or a "
        "controller.board.config.OneLineParser")


def test_the_readme_names_every_command() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    missing = sorted({argv[0] for argv in _commands()} - {
        word.split()[0].strip("`.,;:()") for word in readme.split("kharbga-board ")[1:]})
    assert not missing, (
        f"README.md never says `kharbga-board {missing[0]}`: name every command in its tour, "
        "where the part of the project it belongs to is described")


def test_the_help_gives_the_defaults_the_code_uses() -> None:
    # The parser's help writes some defaults as words, without importing the
    # modules that hold them (each command imports its own, lazily).
    from controller.cli import build_parser
    from controller.engine.api import DEFAULT_HINT_SECONDS, MAX_SECONDS
    from controller.engine.review import DEFAULT_NODES, PYTHON_NODES
    from controller.reconcile.settings import Settings

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    subs: dict[str, argparse.ArgumentParser] = action.choices

    def helps(command: str) -> str:
        return " ".join(subs[command].format_help().split())

    assert f"at most {MAX_SECONDS:g} (default: {DEFAULT_HINT_SECONDS:g})" in helps("hint")
    assert f"(default: {DEFAULT_NODES}; {PYTHON_NODES} where" in helps("games")
    assert f"(default: {Settings.settle})" in helps("replay")


@pytest.mark.parametrize(("argv", "words"), [
    # Each was accepted, the second board or the option silently left out.
    (["doctor", "--camera", "0", "--serial", "/dev/null"],
     "check one board at a time: --serial PORT or --camera DEVICE"),
    (["doctor", "--live", "--serial", "/dev/null"],
     "--live shows the GPIO board's switches: drop --serial and --camera, or --live"),
    (["doctor", "--live", "--camera", "0"],
     "--live shows the GPIO board's switches: drop --serial and --camera, or --live"),
    (["calibrate", "camera", "--empty", "e.png", "--layout", "l.png", "--cells", "x",
      "--out", "o.json", "--port", "5"],
     "--port is for the preview page of --live DEVICE, not for photos"),
    (["calibrate", "camera", "--empty", "e.png", "--layout", "l.png", "--cells", "x",
      "--out", "o.json", "--host", "0.0.0.0", "--port", "5"],
     "--host and --port are for the preview page of --live DEVICE, not for photos"),
])
def test_options_that_would_be_left_unused_are_refused(
        argv: list[str], words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"kharbga-board: {words}\n")
    assert not list(tmp_path.iterdir())  # nothing written
