"""The archive file, ``DATA_DIR/games.sqlite3``: the ``games`` commands only
read it (never change it, read it on a read-only medium, refuse another
program's SQLite file), and a file the board cannot use (damaged, not a
database, a directory, on a read-only medium) is told in one line naming
it and what to do, and left where it is."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from server import free_port

from controller.cli import main
from controller.rules import Game
from controller.service.store import Store

READ_COMMANDS = [["list"], ["show", "1"], ["export", "1"], ["log", "1"]]
RECOVER = "move it aside to start a new archive; its games may be recovered with sqlite3's .recover"


def _archive(data: Path, *names: str) -> None:
    """An archive with a game of a placement for each name, all of it in
    the main file (no WAL left)."""
    store = Store(data)
    for name in names:
        game = Game.new("kharbga")
        gid = store.new_game(game, name, "Youssef")
        game.play("@e4")
        store.sync(gid, game)
        store.append_sensor(gid, ['{"t": 0.0, "occ": "' + "0" * 49 + '"}'] * 200)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()


def _files(folder: Path) -> dict[str, bytes]:
    """The folder's files, but the service's lock (datadir.py), which a
    refused start leaves empty of meaning (the lock goes with the process)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())
            if p.is_file() and p.name != "service.lock"}


def _games(data: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["games", *argv, "--data-dir", str(data)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("tables", [
    ["CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)"],
    ["CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT, score INT)",
     "INSERT INTO games VALUES (1, 'chess', 3)"],
], ids=["another-program", "a-games-table-not-ours"])
def test_reading_commands_refuse_another_programs_file_and_never_change_it(
        tables: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.sqlite3"
    db = sqlite3.connect(path)
    for sql in tables:
        db.execute(sql)
    db.commit()
    db.close()
    before = _files(tmp_path)
    for argv in READ_COMMANDS:
        assert _games(tmp_path, *argv, capsys=capsys) == (
            2, "", f"kharbga-board: {path} is not a kharbga-board archive (no games table of "
                   "ours)\n"), argv
    assert _files(tmp_path) == before  # no tables added, not switched to WAL, no -wal left
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    db.close()


@pytest.mark.parametrize("table", ["actions", "sensor"])
def test_the_board_refuses_an_archive_whose_games_lost_their_moves(
        table: str, tmp_path: Path) -> None:
    """A table of ours missing beside recorded games is damage, not an old
    archive: before, the board made it again empty, and the games' moves
    (or sensor logs) were gone for good.  With no game recorded yet it is
    made, as in an archive the board stopped while making."""
    from controller.service.archive import ArchiveError

    store = Store(tmp_path)
    game = Game.new("kharbga")
    gid = store.new_game(game, "Amel", "Youssef")
    game.play("@a1")
    store.sync(gid, game)
    store.close()
    path = tmp_path / "games.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"DROP TABLE {table}")
    db.commit()
    db.close()
    with pytest.raises(ArchiveError) as err:
        Store(tmp_path)
    assert str(err.value) == (
        f"{path} is not a kharbga-board archive (no {table} table of ours): move it aside to "
        "start a new archive or give another data directory (--data-dir)")
    db = sqlite3.connect(path)
    db.execute("DELETE FROM games")
    db.commit()
    db.close()
    Store(tmp_path).close()  # no game: the table is made
    db = sqlite3.connect(path)
    assert db.execute("SELECT name FROM sqlite_master WHERE name=?", (table,)).fetchone()
    db.close()


def test_a_folder_with_no_archive_yet_lists_no_games_and_succeeds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: exit 2, "no games recorded in D", as if not having played
    yet were an error.  Now the listing says so and succeeds; asking for
    one game there finds none (exit 2), as in an archive without it."""
    for empty in (False, True):  # no archive, then the empty file the board starts one in
        if empty:
            (tmp_path / "games.sqlite3").touch()
        assert _games(tmp_path, "list", capsys=capsys) == (
            0, f"no games recorded yet in {tmp_path}\n", "")
        for action in ("show", "export", "log"):
            assert _games(tmp_path, action, "1", capsys=capsys) == (
                2, "", f"kharbga-board: no game 1 in {tmp_path}: no games recorded yet\n")
        assert _files(tmp_path) == ({"games.sqlite3": b""} if empty else {})
    # An archive whose games are all gone (none listed) says the same.
    Store(tmp_path).close()
    assert _games(tmp_path, "list", capsys=capsys) == (
        0, f"no games recorded yet in {tmp_path}\n", "")


def test_a_data_directory_that_does_not_exist_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    none = tmp_path / "none"
    for argv in READ_COMMANDS:
        assert _games(none, *argv, capsys=capsys) == (
            2, "", f"kharbga-board: {none} does not exist: give the data directory that holds "
                   "games.sqlite3 (--data-dir)\n"), argv
    assert not none.exists()  # reading makes no folder
    # A game id is checked first, wherever the archive is.
    assert _games(none, "show", "x", capsys=capsys)[0] == 2
    # A device is no folder either (was: "/dev/null does not exist").
    assert _games(Path("/dev/null"), "list", capsys=capsys) == (
        2, "", "kharbga-board: /dev/null is a file, not a data directory: give the folder "
               "that holds games.sqlite3 (--data-dir)\n")


def test_a_data_directory_linked_to_no_folder_is_said_so(tmp_path: Path) -> None:
    # A link to a folder not there (a card not mounted) or a loop of links:
    # said so, not "file exists".
    from controller.service.archive import ArchiveError, make_data_dir

    (tmp_path / "card").symlink_to(tmp_path / "media" / "card")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for name, to in (("card", tmp_path / "media" / "card"), ("a", tmp_path / "b")):
        with pytest.raises(ArchiveError) as err:
            make_data_dir(tmp_path / name)
        assert str(err.value) == (
            f"cannot make the data directory {tmp_path / name} (a link to {to}, which leads "
            "to no folder): the board records every move there; give a writable data "
            "directory (--data-dir)")
    make_data_dir(tmp_path / "new" / "games")  # made, with its parents
    assert (tmp_path / "new" / "games").is_dir()


def test_an_archive_from_before_game_settings_is_read_as_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _archive(tmp_path, "Amel")
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    db.execute("ALTER TABLE games DROP COLUMN settings")
    db.close()
    before = (tmp_path / "games.sqlite3").read_bytes()
    status, out, err = _games(tmp_path, "show", "1", capsys=capsys)
    assert (status, err) == (0, "") and '[Attacker "Amel"]' in out
    # Not added by reading.  (SQLite may leave its empty WAL and shared
    # memory beside a WAL archive it read: they are not the archive.)
    assert (tmp_path / "games.sqlite3").read_bytes() == before


@pytest.fixture
def read_only() -> Iterator[Callable[[Path], Path]]:
    """The folder given, seen where nothing can be written: a read-only
    bind mount for root (whom file modes do not stop), or the folder and
    its files made read-only for anyone else."""
    mounts: list[Path] = []
    modes: list[Path] = []

    def seal(folder: Path) -> Path:
        if os.geteuid() == 0:
            view = folder.with_name(folder.name + "-ro")
            view.mkdir()
            for cmd in (["mount", "--bind", str(folder), str(view)],
                        ["mount", "-o", "remount,bind,ro", str(view)]):
                if subprocess.run(cmd, capture_output=True, check=False).returncode:
                    if cmd[1] != "--bind":
                        subprocess.run(["umount", str(view)], check=False)
                    pytest.skip("no read-only bind mount here (root, without the right to mount)")
                if cmd[1] == "--bind":
                    mounts.append(view)
        else:
            view = folder
            for p in folder.iterdir():
                p.chmod(0o444)
            folder.chmod(0o555)
            modes.append(folder)
        with pytest.raises(OSError):
            (view / "probe").touch()
        return view

    yield seal
    for view in mounts:
        subprocess.run(["umount", str(view)], check=True)
    for folder in modes:
        folder.chmod(0o755)


@pytest.mark.parametrize("wal", ["none", "with-shm", "without-shm"])
def test_an_archive_on_a_read_only_medium_is_read(
        wal: str, read_only: Callable[[Path], Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A backup stick: a clean archive; a copy taken while the board ran
    (its WAL and shared memory beside it: the WAL's game is read); a copy
    without the shared memory (SQLite cannot read that WAL without writing:
    the main file is read, and a note says what is left out)."""
    stick = tmp_path / "stick"
    _archive(stick, "Amel")
    if wal != "none":
        running = Store(stick)  # a second game, left in the WAL
        running.new_game(Game.new("kharbga"), "Later", "Youssef")
        copy = _files(stick)
        running.close()
        for name, data in copy.items():
            if not (wal == "without-shm" and name.endswith("-shm")):
                (stick / name).write_bytes(data)
    view = read_only(stick)
    before = _files(view)
    status, out, err = _games(view, "list", capsys=capsys)
    assert status == 0 and "Amel - Youssef  playing  (1 actions)" in out
    assert ("Later - Youssef" in out) == (wal == "with-shm")
    if wal == "without-shm":
        assert err == (f"kharbga-board: {view}/games.sqlite3-wal holds the archive's last "
                       "changes, which cannot be read where nothing can be written: they are "
                       f"left out (copy {view} to a writable place to see them)\n")
    else:
        assert err == ""
    status, out, _ = _games(view, "export", "1", capsys=capsys)
    assert status == 0 and '[Attacker "Amel"]' in out
    assert _files(view) == before


def test_a_games_settings_nested_too_deeply_is_read_without_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A hand edit. Before: "RecursionError: maximum recursion depth exceeded
    # while decoding a JSON array", for show and for the service's start.
    _archive(tmp_path, "Amel")
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("UPDATE games SET settings = ?", ("[" * 100_000 + "]" * 100_000,))
    db.close()
    status, out, err = _games(tmp_path, "show", "1", capsys=capsys)
    assert (status, err) == (0, "") and '[Attacker "Amel"]' in out


def test_the_list_is_one_line_a_game_whatever_the_archive_holds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A hand edit put a line break and an escape into a name (the board's
    # own names cannot hold them); before, the list printed them raw.
    _archive(tmp_path, "Amel", "Driss")
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute("UPDATE games SET attacker = ? WHERE id = 1", ("Amel\n\x1b[2Jx",))
    db.close()
    status, out, err = _games(tmp_path, "list", capsys=capsys)
    assert (status, err) == (0, "") and len(out.splitlines()) == 2
    assert "Amel??[2Jx - Youssef" in out and "\x1b" not in out


@pytest.mark.parametrize("kind", ["dangling", "loop", "pipe"])
def test_an_archive_that_is_no_file_is_said_for_what_it_is(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: a link to nothing was "no games recorded yet", and a pipe
    # kept the command waiting for good.
    path = tmp_path / "games.sqlite3"
    if kind == "dangling":
        path.symlink_to(tmp_path / "gone.sqlite3")
    elif kind == "loop":
        path.symlink_to(path)
    else:
        os.mkfifo(path)
    status, out, err = _games(tmp_path, "list", capsys=capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"kharbga-board: {path} is ")
    assert ("a link to no file" in err) == (kind != "pipe")


def _as_another_user(*argv: str) -> subprocess.CompletedProcess[str]:
    """``kharbga-board argv`` where file modes bind (root runs it without
    its capabilities: file modes do not stop root)."""
    cmd = [sys.executable, "-m", "controller", *argv]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root, without setpriv to drop the capabilities that pass file modes")
        cmd = ["setpriv", "--bounding-set=-all", "--", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


def test_another_user_reads_the_boards_archive_it_may_not_write(tmp_path: Path) -> None:
    # The service runs as its own user; another reads its archive while it
    # is stopped (no WAL beside it). Before, SQLite's read-only-folder error
    # refused it as "cannot be written".
    board = tmp_path / "board"
    _archive(board, "Amel")
    tmp_path.chmod(0o755)
    (board / "games.sqlite3").chmod(0o444)
    board.chmod(0o555)
    try:
        done = _as_another_user("games", "list", "--data-dir", str(board))
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        assert "Amel - Youssef" in done.stdout
        board.chmod(0o000)  # a folder it may not even read: said so, in one line
        done = _as_another_user("games", "list", "--data-dir", str(board))
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (f"kharbga-board: {board}/games.sqlite3 cannot be read "
                               "(permission denied): read it as the user the board runs as, "
                               "or with sudo\n")
    finally:
        board.chmod(0o755)


def _run(data: Path) -> subprocess.CompletedProcess[str]:
    """``run`` on ``data`` (one that is refused returns at once)."""
    return subprocess.run(
        [sys.executable, "-m", "controller", "run", "--board", "sim", "--port",
         str(free_port()), "--data-dir", str(data)],
        capture_output=True, text=True, timeout=60, check=False)


def test_an_archive_the_system_will_not_let_grow_stops_the_board_in_words(
        tmp_path: Path) -> None:
    """A limit on the size of the files the service may write (``ulimit
    -f``, a quota) met as the archive is made: SQLite says only 'disk I/O
    error'; the board says which file and what to do."""
    import resource

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))

    data = tmp_path / "data"
    r = subprocess.run(
        [sys.executable, "-m", "controller", "run", "--board", "sim", "--port",
         str(free_port()), "--data-dir", str(data)],
        capture_output=True, text=True, timeout=60, check=False, preexec_fn=small_files)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith(f"kharbga-board: {data}/games.sqlite3 cannot be written (a "
                               "disk I/O error: "), r.stderr
    assert r.stderr.endswith("check the disk or card, and the limits on file size (ulimit -f) "
                             "and disk quota, or give another data directory (--data-dir)\n")
    assert r.stderr.count("\n") == 1


def _damage(data: Path, kind: str) -> str:
    """``data``'s archive damaged as ``kind``; the line that tells it."""
    path = data / "games.sqlite3"
    if kind == "directory":
        path.mkdir(parents=True)
        return f"{path} is a directory, not the archive: move it aside to start a new archive"
    _archive(data, "Amel", "Nadia")
    whole = path.read_bytes()
    if kind == "truncated":
        path.write_bytes(whole[:12000])
        return f"{path} is damaged (database disk image is malformed): {RECOVER}"
    if kind == "garbage":
        path.write_bytes(bytes((i * 7919 + 13) % 251 for i in range(50_000)))
        return (f"{path} is damaged or not a SQLite file (file is not a database): move it "
                "aside to start a new archive")
    # The games table's page overwritten: the file opens, the damage is
    # met when the board reads the game to resume.
    db = sqlite3.connect(path)
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name='games'").fetchone()
    (size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    path.write_bytes(whole[:(root - 1) * size] + b"\xff" * size + whole[root * size:])
    return f"{path} is damaged (database disk image is malformed): {RECOVER}"


@pytest.mark.parametrize("kind", ["truncated", "garbage", "directory", "games-page"])
def test_a_damaged_archive_is_told_with_its_file_and_what_to_do(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = _damage(tmp_path, kind)
    before = _files(tmp_path)
    r = _run(tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"kharbga-board: {said}\n")
    assert _files(tmp_path) == before  # left where it is, as it is
    if kind != "directory":  # (read, a directory is refused in its own words)
        assert _games(tmp_path, "show", "1", capsys=capsys) == (2, "", f"kharbga-board: {said}\n")


def test_an_archive_that_cannot_be_written_stops_the_board_in_words(
        read_only: Callable[[Path], Path], tmp_path: Path) -> None:
    stick = tmp_path / "stick"
    _archive(stick, "Amel")
    (stick / "empty").mkdir()
    view = read_only(stick)
    why = (f"{view} is on a read-only file system" if os.geteuid() == 0
           else f"no permission to write in {view}")
    fix = "the board records every move there; give a writable data directory (--data-dir)"
    r = _run(view)
    assert (r.returncode, r.stdout, r.stderr) == (
        2, "", f"kharbga-board: {view}/games.sqlite3 cannot be written ({why}): {fix}\n")
    r = _run(view / "empty")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"kharbga-board: {view}/empty/games.sqlite3 cannot be written "
                        f"({why.replace(str(view), f'{view}/empty')}): {fix}\n")


@pytest.mark.parametrize("room", ["none", "for-the-lock"])
def test_a_new_archive_on_a_full_disk_stops_the_board_in_words(
        room: str, tmp_path: Path) -> None:
    """A data directory on a disk with no room left (a small tmpfs, filled):
    one line naming the archive and the full disk, not the system's
    '[Errno 28] No space left on device' or SQLite's 'OperationalError:
    database or disk is full' naming no file."""
    if os.geteuid() != 0:
        pytest.skip("a small file system of its own needs root (mount -t tmpfs)")
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                      capture_output=True, check=False).returncode:
        pytest.skip("no tmpfs mount here (root, without the right to mount)")
    try:
        data = disk / "data"
        data.mkdir()
        if room == "for-the-lock":  # a lock file left by an earlier run
            (data / "service.lock").write_text("123\n")
        with pytest.raises(OSError), open(disk / "filler", "wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        r = _run(data)
        assert (r.returncode, r.stdout) == (2, "")
        assert r.stderr == (f"kharbga-board: {data}/games.sqlite3 cannot be written (the disk "
                            "is full): the board records every move there; free some space "
                            "or give another data directory (--data-dir)\n")
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_games_log_of_a_hand_edited_sensor_log_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sensor lines edited by hand (a frame of a number, one of another
    board, a button not known, a line cut short) are left out of ``games
    log``, said in one line: what it writes is a log ``replay`` reads."""
    store = Store(tmp_path)
    game = Game.new("kharbga")
    gid = store.new_game(game, "Amel", "Youssef")
    game.play("@e4")
    store.sync(gid, game)
    empty, placed = "0" * 49, "0" * 25 + "1" + "0" * 23  # e4
    store.append_sensor(gid, [
        f'{{"t": 0.5, "occ": "{empty}"}}', '{"t": 0.6, "occ": 5}', '{"t": 0.7, "occ": "01"}',
        '{"t": 0.8, "button": "launch"}', f'{{"t": 0.9, "occ": "{empty[:20]}',
        '{"t": -1, "occ": "' + empty + '"}', f'{{"t": 1.0, "occ": "{placed}"}}'])
    store.close()
    status, out, err = _games(tmp_path, "log", str(gid), capsys=capsys)
    assert status == 0
    assert err == (f"kharbga-board: game {gid}: 5 sensor-log lines that are not events "
                   "(the archive edited by hand?) are left out\n")
    log = tmp_path / "game.jsonl"
    log.write_text(out)
    assert main(["replay", str(log), "--variant", "kharbga"]) == 0
    assert "@e4" in capsys.readouterr().out


@pytest.mark.parametrize("edit", [
    "UPDATE games SET created='yesterday'",
    "UPDATE actions SET t='noon' WHERE ply=1",
    "UPDATE games SET attacker=X'416d656c'",  # "Amel", written as bytes
    "UPDATE actions SET token=X'406534' WHERE ply=1",  # "@e4", written as bytes
    # Before: an OverflowError for `games show`, a 500 for the record, and
    # the game's end (a resignation) never written.
    "UPDATE actions SET t=1e999 WHERE ply=1",
    "UPDATE games SET created=-1e999",
], ids=["created-text", "time-text", "name-bytes", "action-bytes", "time-infinite",
        "created-infinite"])
def test_values_of_another_type_edited_by_hand_are_read(
        edit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A time that is not a number, or text written as bytes (the archive
    edited by hand), neither stops the board nor the ``games`` commands:
    the game is resumed and shown, an unknown time as an unknown date."""
    from controller.service.board import BoardService
    from controller.service.config import Config

    store = Store(tmp_path)
    game = Game.new("kharbga")
    gid = store.new_game(game, "Amel", "Youssef")
    for token in ["@a1", "@e4"]:
        game.play(token)
    store.sync(gid, game)
    store.close()
    db = sqlite3.connect(tmp_path / "games.sqlite3")
    with db:
        db.execute(edit)
    db.close()
    service = BoardService(Config(data_dir=tmp_path))
    try:
        assert service.gid == gid and service.state()["moves"] == ["@a1", "@e4"]
        assert [g["attacker"] for g in service.store.archive()] == ["Amel"]
        service.press("resign", "defender")
    finally:
        service.close()
    status, out, err = _games(tmp_path, "export", str(gid), capsys=capsys)
    assert (status, err) == (0, "")
    assert '[Attacker "Amel"]' in out and "1. @a1 @e4" in out
    assert '[Result "1-0"]' in out  # the resignation written
    status, out, err = _games(tmp_path, "show", str(gid), capsys=capsys)
    assert (status, err) == (0, ""), err
    assert "@e4" in out
    if "created" in edit:
        assert '[Date "????.??.??"]' in out


def test_a_game_is_finished_with_its_last_moves_or_left_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, Store.finish wrote the last moves and then the end in two
    # transactions: a failure between left the moves of an ended game in an
    # unfinished row.
    from controller.rules import new_game

    store = Store(tmp_path)
    game = new_game("kharbga")
    gid = store.new_game(game, "A", "D")
    game.play(game.legal_moves()[0])
    store.sync(gid, game)
    before = store.get(gid)
    assert before is not None
    game.resign()
    real = store.record_text

    def failing(*args: object, **kwargs: object) -> str:
        raise OSError("the card pulled out")

    monkeypatch.setattr(store, "record_text", failing)
    with pytest.raises(OSError):
        store.finish(gid, game)
    after = store.get(gid)
    assert after is not None and after.actions == before.actions and after.finished is None
    monkeypatch.setattr(store, "record_text", real)
    store.finish(gid, game)
    done = store.get(gid)
    assert done is not None and done.finished is not None
    assert done.actions[-1].startswith("resign:") and done.game().outcome == game.outcome
    store.close()


def test_a_games_sensor_log_keeps_its_last_lines_up_to_the_limit(tmp_path: Path) -> None:
    # [storage] sensor_log_limit: the newest lines kept, that many exactly
    # (one too many was kept with an off-by-one in the trimming).
    store = Store(tmp_path, sensor_log_limit=3)
    gid = store.new_game(Game.new("kharbga"), "A", "D")
    lines = [f'{{"t": {i}, "occ": "{"0" * 49}"}}' for i in range(5)]
    store.append_sensor(gid, lines[:2])
    assert store.sensor_log(gid) == lines[:2]
    store.append_sensor(gid, lines[2:])
    assert store.sensor_log(gid) == lines[2:]
    store.close()
