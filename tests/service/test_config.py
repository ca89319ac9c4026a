"""The configuration file: one reader, one error type, every mistake one
line naming the file, the dotted key and the problem, and the command
line refusing a bad file without a traceback."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from controller.board.config import ConfigError as BoardConfigError
from controller.cli import main
from controller.service.config import Config, ConfigError, load_config


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[web]\nport = 'x'\n", "web.port", "must be an integer, not a string"),
        ("[web]\nport = 70000\n", "web.port", "must be from 1 to 65535, not 70000"),
        ("[board]\nvariant = 'chess'\n", "board.variant", "unknown variant"),
        ("[board]\nkind = 'usb'\n", "board.kind", "must be sim, gpio, serial:PORT"),
        # Before: taken, and the name printed raw on the page and in the log.
        ('[board]\nkind = "serial:/dev/x\\ny"\n', "board.kind",
         "a port or device name cannot hold control characters, not 'serial:/dev/x\\ny'"),
        ("[bord]\n", "bord", "unknown section (known: board, web"),
        ("[web]\nhost = '0.0.0.0'\n", "web.token", "token of at least 12 characters"),
        # A browser's page can never send these: a space the server strips, a
        # letter beyond ASCII or a control character (its fetch throws).
        ("[web]\ntoken = ' abcdefghijklmn'\n", "web.token",
         "must be printable ASCII letters, digits or signs, with no spaces (it has a space)"),
        ("[web]\ntoken = 'abcdefghijkl\u00e9'\n", "web.token", "(it has '\u00e9')"),
        ('[web]\ntoken = "abcdefghijkl\\u0001"\n', "web.token", "(it has '\\x01')"),
        ("[board]\nsettle = -1\n", "board.settle", "must be 0.01 to 5 seconds"),
        ("[board]\nsetle = 1\n", "board.setle", "unknown key (known here: error_delay"),
        ("[players]\ncomputer = 'both'\n", "players.computer", "must be \"attacker\""),
        ("[players]\nponder = 'yes'\n", "players.ponder", "must be true or false"),
        # An empty name was taken: a game of "" against "Defender" in the record.
        ("[players]\nattacker = ''\n", "players.attacker",
         "must not be empty (leave it out for the name Attacker)"),
        ("[players]\ndefender = '   '\n", "players.defender", "must not be empty"),
        # The page's rules for a name: 40 characters, printable, no quotes.
        ("[players]\nattacker = '" + "x" * 41 + "'\n", "players.attacker",
         "must be at most 40 characters"),
        ("[players]\ndefender = 'Ann\u202eX'\n", "players.defender",
         "must be printable text without quotes or backslashes (U+202E is not allowed)"),
        ("[players]\nlevel = 6\n", "players.level", "must be at most 5, not 6"),
        ("[players]\nlevel = '3'\n", "players.level", "must be an integer, not a string"),
        # A non-finite number is named as written, not as "a number".
        ("[players]\nlevel = inf\n", "players.level", "must be an integer, not inf"),
        ("[players]\nlevel = nan\n", "players.level", "must be an integer, not nan"),
        ("[players]\nthreads = 17\n", "players.threads", "must be at most 16, not 17"),
        ("[players]\nthreads = -1\n", "players.threads", "must be at least 0, not -1"),
        ("[players]\nthreads = 2.5\n", "players.threads", "must be an integer"),
        ("web = 3\n", "web", "must be a table, not an integer"),
        ("[board]\nkind = 'camera:0'\n", "camera.profile", "a camera board needs"),
        # Beyond SQLite's integers every write of the sensor log failed.
        ("[storage]\nsensor_log_limit = 100000000000000000000\n", "storage.sensor_log_limit",
         "must be at most 1000000000, not 100000000000000000000"),
        # An empty folder was the current one, silently (--data-dir "" is refused).
        ("[storage]\ndata_dir = ''\n", "storage.data_dir", "an empty path: give the folder"),
        ("[storage]\ndata_dir = '  '\n", "storage.data_dir", "an empty path: give the folder"),
        # Before: "embedded null byte", naming neither the file nor the key; and a
        # host with a space or a NUL asked for a token (the NUL printed raw).
        ('[storage]\ndata_dir = "a\\u0000b"\n', "storage.data_dir",
         "a path cannot hold a NUL character (\\u0000)"),
        ("[web]\nhost = 'no such host.invalid'\n", "web.host",
         "must be a host name or address (no spaces or control characters), not "
         "'no such host.invalid'"),
        ('[web]\nhost = "127.0.0.1\\u0000"\n', "web.host",
         "(no spaces or control characters), not '127.0.0.1?'"),
    ],
)
def test_bad_files_name_the_file_the_key_and_the_problem(
    tmp_path: Path, text: str, key: str, problem: str
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert message.startswith(f"{path}: {key}: "), message
    assert problem in message and "\n" not in message
    assert (err.value.file, err.value.key) == (str(path), key)


def test_unreadable_files(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(ConfigError, match=r"missing\.toml: no such file$"):
        load_config(missing)
    broken = tmp_path / "broken.toml"
    broken.write_text("[web\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML \(.*line 1"):
        load_config(broken)
    deep = tmp_path / "deep.toml"  # before: "RecursionError: maximum recursion depth ..."
    deep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"deep\.toml: not valid TOML \(nested too deeply\)$"):
        load_config(deep)
    huge = tmp_path / "huge.toml"  # before: Python's "Exceeds the limit (4300 digits)"
    huge.write_text("[web]\nport = " + "9" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"huge\.toml: not valid TOML \(an integer of more "
                       r"than 4300 digits\)$"):
        load_config(huge)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe[web]")
    with pytest.raises(ConfigError, match=r"binary\.toml: not UTF-8 text"):
        load_config(binary)
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)
    bom = tmp_path / "bom.toml"  # as Notepad saves it: the file looks right
    bom.write_bytes(b"\xef\xbb\xbf[web]\nport = 8080\n")
    with pytest.raises(ConfigError, match=r"bom\.toml: starts with a byte-order mark \(BOM\), "
                       r"which TOML does not allow: save it as UTF-8 without BOM$"):
        load_config(bom)


def test_a_file_too_large_to_be_a_configuration_is_refused_unread(tmp_path: Path) -> None:
    """A video or a disk image given as --config (a slip of the shell's
    completion), or an endless device: refused once it passes a size no
    configuration reaches.  Before: read whole into memory first (for
    /dev/zero, until memory ran out)."""
    big = tmp_path / "clip.mp4"
    big.write_bytes(b"\0" * (2 * 1024 * 1024))
    with pytest.raises(ConfigError, match=r"clip\.mp4: larger than 1 MiB: not a configuration "
                       r"file$"):
        load_config(big)
    with pytest.raises(ConfigError, match=r"^/dev/zero: larger than 1 MiB"):
        load_config("/dev/zero")


def test_the_bounded_read_stops_past_its_limit_and_raises_the_callers_error(
        tmp_path: Path) -> None:
    """The one bounded read under the configuration file and the camera
    profile: at most ``limit`` bytes, then the caller's error type with
    the words it is given."""
    from controller.board.config import read_bounded

    class Refused(Exception):
        pass

    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 2**20)
    assert read_bounded(exact, 2**20, "a thing", Refused) == b"x" * 2**20
    exact.write_bytes(b"x" * (2**20 + 1))
    with pytest.raises(Refused, match=r"^larger than 1 MiB: not a thing$"):
        read_bounded(exact, 2**20, "a thing", Refused)
    with pytest.raises(Refused, match=r"^no such file$"):
        read_bounded(tmp_path / "none", 2**20, "a thing", Refused)
    with pytest.raises(Refused, match=r"^larger than 16 MiB: not a camera profile$"):
        read_bounded(Path("/dev/zero"), 2**24, "a camera profile", Refused)
    # Before: a named pipe waited for a writer for ever (run, games, camera read).
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(Refused, match=r"^a named pipe, not a camera profile$"):
        read_bounded(fifo, 2**24, "a camera profile", Refused)
    with pytest.raises(ConfigError, match=r"pipe: a named pipe, not a configuration file$"):
        load_config(fifo)
    # Before: a terminal (a Pico's port given as --config) waited for a line
    # typed there for ever; this one has lines and an end (Ctrl-D) waiting.
    leader, follower = os.openpty()
    try:
        os.write(leader, b"[web]\nport = 8080\n\x04")
        tty = os.ttyname(follower)
        with pytest.raises(ConfigError, match=r": a terminal or serial port, not a "
                           r"configuration file$"):
            load_config(tty)
    finally:
        os.close(leader)
        os.close(follower)


def test_a_whole_file_is_read_once(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        "[board]\nkind = 'serial:/dev/ttyACM0'\nvariant = 'khamousiyya'\nsettle = 1\n"
        "[web]\nport = 9000\n[storage]\ndata_dir = 'games'\n"
        "[camera]\nprofile = 'cam.json'\n"
        "[gpio.leds]\nbrightness = 0.5\n[gpio.mapping]\na1 = 'r6c0'\n",
        encoding="utf-8",
    )
    c = load_config(path)
    assert (c.board, c.variant, c.settle, c.port) == ("serial:/dev/ttyACM0", "khamousiyya",
                                                      1.0, 9000)
    assert (c.data_dir, c.camera_profile, c.source) == (Path("games"), "cam.json", str(path))
    mapping, leds = c.serial_leds()
    assert (mapping.a1, leds.brightness) == ("r6c0", 0.5)
    assert c.gpio().leds.brightness == 0.5
    assert load_config(None) == Config()


def test_the_drivers_tables_are_checked_with_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[board]\nkind = 'gpio'\n[gpio.leds.roles]\ncapture = { colour = 'red' }\n",
                    encoding="utf-8")
    c = load_config(path)  # the drivers' tables are checked when the board opens
    for read in (c.gpio, c.serial_leds):
        with pytest.raises(ConfigError) as err:
            read()
        assert str(err.value).startswith(f"{path}: gpio.leds.roles.capture.colour: 'red'")
    assert ConfigError is BoardConfigError


@pytest.mark.parametrize("table", ["[gpio.mapings]\nboard = '7x7'\n", "[gpio]\nfoo = 1\n"])
def test_a_typo_in_the_gpio_table_is_said_for_either_board(tmp_path: Path, table: str) -> None:
    # Before: the serial board read a misspelt [gpio.mapping] as no mapping
    # at all, and lit and read the stock squares.
    path = tmp_path / "c.toml"
    path.write_text(table + "[gpio.matrix]\n[gpio.buttons]\n", encoding="utf-8")
    c = load_config(path)
    key = "gpio.mapings" if "mapings" in table else "gpio.foo"
    for read in (c.gpio, c.serial_leds):
        with pytest.raises(ConfigError) as err:
            read()
        assert str(err.value) == (f"{path}: {key}: unknown key "
                                  "(known here: buttons, leds, mapping, matrix)")


def test_command_line_values_are_named_as_options(tmp_path: Path) -> None:
    c = load_config(None)
    # Before: "--host: ..." although the host was fine and the token given too short.
    with pytest.raises(ConfigError, match=r"^command line: --token: a token of at least 12 "
                       r"characters is required to listen on 0\.0\.0\.0 \(this one has 3\)$"):
        c.with_overrides(host="0.0.0.0", token="abc")
    with pytest.raises(ConfigError, match=r"^command line: --host: a token of at least 12 "
                       r"characters is required to listen on 0\.0\.0\.0$"):
        c.with_overrides(host="0.0.0.0")
    with pytest.raises(ConfigError, match=r"^command line: --token: must be printable ASCII"):
        c.with_overrides(host="0.0.0.0", token="aaaaaaaaaaa\u00e9")
    with pytest.raises(ConfigError, match=r"^command line: --port: must be from 1 to 65535"):
        c.with_overrides(port=0)
    with pytest.raises(ConfigError, match=r"^command line: --host: a token of at least 12"):
        c.with_overrides(host="0.0.0.0")
    assert c.with_overrides(port=9001, variant=None).port == 9001


def test_a_token_off_loopback_has_at_least_12_characters() -> None:
    # The boundary itself: eleven refused, twelve taken.
    c = load_config(None)
    with pytest.raises(ConfigError, match=r"at least 12 characters .* \(this one has 11\)$"):
        c.with_overrides(host="0.0.0.0", token="a1b2c3d4e5f")
    assert c.with_overrides(host="0.0.0.0", token="a1b2c3d4e5f6").token == "a1b2c3d4e5f6"


@pytest.mark.parametrize("command", [["doctor"], ["run"], ["games", "list"]])
def test_the_commands_say_a_missing_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    missing = tmp_path / "missing.toml"
    status = main([*command, "--config", str(missing)])
    err = capsys.readouterr().err
    assert status == 2
    assert err == f"kharbga-board: {missing}: no such file\n"


def test_run_refuses_a_bad_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[board]\nkind = 'gpio'\n[gpio.matrix]\nscan_hz = 50\n", encoding="utf-8")
    status = main(["run", "--config", str(path), "--data-dir", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"kharbga-board: {path}: gpio.matrix.scan_hz: must be")


def test_pondering_is_on_unless_the_file_says_off(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[players]\nthink = 2.0\n", encoding="utf-8")
    assert load_config(path).ponder is True
    path.write_text("[players]\nponder = false\n", encoding="utf-8")
    assert load_config(path).ponder is False


def test_the_search_threads_are_the_machines_cores_but_one_unless_the_file_says(
        tmp_path: Path) -> None:
    # The configured threads reach the service's engine children; 0 (the
    # default) is the machine's cores but one. The bound is the C search's.
    from controller.engine.csearch import MAX_THREADS
    from controller.service.board import BoardService
    from controller.service.config import _BOUNDS
    from controller.service.thinker import search_threads

    assert _BOUNDS["threads"] == (0, MAX_THREADS)
    path = tmp_path / "c.toml"
    path.write_text("[players]\nponder = false\n", encoding="utf-8")
    assert load_config(path).threads == 0
    path.write_text(f"[players]\nponder = false\nthreads = 3\n[storage]\ndata_dir = "
                    f"'{tmp_path / 'd'}'\n", encoding="utf-8")
    service = BoardService(load_config(path))
    try:
        assert service.advice.thinker.threads == 3
    finally:
        service.close()
    service = BoardService(replace(load_config(path), threads=0))
    try:
        assert service.advice.thinker.threads == search_threads(0) >= 1
    finally:
        service.close()


def test_the_serial_and_gpio_boards_read_a_mapping_for_the_game_alike() -> None:
    """A ``[gpio.mapping]`` naming no board is the game's board's stock
    mapping on both paths; one naming another board is refused on both."""
    c = Config(variant="sabouiyya", gpio_table={"mapping": {"a1": "r4c0"}})
    mapping, _ = c.serial_leds("5x5")
    assert (mapping.board, mapping.a1, mapping.squares) == ("5x5", "r4c0", 25)
    other = Config(variant="sabouiyya", gpio_table={"mapping": {"board": "7x7"}})
    with pytest.raises(ConfigError, match=r"^gpio\.mapping: it is for the 7x7 board, but "
                       r"variant sabouiyya is played on the 5x5 board \(the serial board\): play a "
                       r"variant of the 7x7 board, or name the 5x5 board there once it is "
                       r"wired \(hardware\.md\)$"):
        other.serial_leds("5x5")


def test_the_pages_form_takes_what_the_service_takes() -> None:
    # index.html writes its fields' limits by hand: they are the
    # configuration's own; the variants it offers are the rules' own,
    # written in with each one's description and its chosen options.
    from html.parser import HTMLParser

    from controller.rules import LEAP_VARIANTS, VARIANTS
    from controller.rules.variants import CHOSEN_OPTIONS
    from controller.service.config import NAME_MAX, THINK_MAX, THINK_MIN

    inputs: dict[str, dict[str, str | None]] = {}
    options: list[str] = []
    about: dict[str, tuple[str | None, str | None]] = {}
    checkboxes: list[str] = []

    class Form(HTMLParser):
        select = ""

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            a = dict(attrs)
            if tag == "input" and a.get("name"):
                inputs[str(a["name"])] = a
            if tag == "label" and "rule-option" in str(a.get("class")).split():
                checkboxes.append(str(a.get("data-option")))
            if tag == "select":
                self.select = str(a.get("name"))
            if tag == "option" and self.select == "variant":
                about[str(a["value"])] = (a.get("data-about"), a.get("data-options"))

        def handle_data(self, data: str) -> None:
            if self.select == "variant" and self.lasttag == "option" and data.strip():
                options.append(data.strip())

    from controller.service.app import index_page

    Form().feed(index_page().decode())
    assert inputs["attacker"]["maxlength"] == inputs["defender"]["maxlength"] == str(NAME_MAX)
    assert float(inputs["seconds"]["min"] or "") == THINK_MIN
    assert float(inputs["seconds"]["max"] or "") == THINK_MAX
    assert options == [v.name for v in (*VARIANTS, *LEAP_VARIANTS)]
    assert about == {v.name: (v.description, " ".join(CHOSEN_OPTIONS.get(v.name, ())))
                     for v in (*VARIANTS, *LEAP_VARIANTS)}
    assert about["sabouiyya"][1] == "hajeb"
    # A rule option a variant offers without its checkbox on the page would
    # be offered by the service and never by the New game form.
    offered = {name for names in CHOSEN_OPTIONS.values() for name in names}
    assert sorted(checkboxes) == sorted(offered), (
        f"index.html's New game form has rule-option checkboxes for {sorted(checkboxes)}, "
        f"rules.variants.CHOSEN_OPTIONS offers {sorted(offered)}: give each option a "
        '<label class="rule-option" data-option="NAME"> with its checkbox')
    assert all(v.description for v in (*VARIANTS, *LEAP_VARIANTS))


@pytest.mark.parametrize("value", ["-1", "-1.5", "1e12"])
def test_every_number_in_the_file_has_its_range(tmp_path: Path, value: str) -> None:
    # A number key whose range check was forgotten takes a negative or
    # absurd value silently: each one (whole or decimal, from the list of
    # keys read) refuses them in one line naming the key.
    from controller.service.config import KEYS

    numbers = {attr: dotted for attr, dotted in KEYS.items()
               if isinstance(getattr(Config(), attr), (int, float))
               and not isinstance(getattr(Config(), attr), bool)}
    assert {"port", "think", "settle", "error_delay", "level", "threads"} <= set(numbers)
    for attr, dotted in numbers.items():
        section, key = dotted.split(".")
        default = getattr(Config(), attr)
        typed = value if isinstance(default, float) else str(int(float(value)))
        path = tmp_path / f"{attr}.toml"
        path.write_text(f"[{section}]\n{key} = {typed}\n")
        with pytest.raises(ConfigError) as info:
            load_config(path)
        said = str(info.value)
        assert dotted in said and "\n" not in said, (attr, value, said)
