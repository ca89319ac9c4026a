"""The examples in the README and the package docstrings run as written."""

from __future__ import annotations

import ast
import doctest
import re
import tomllib
from pathlib import Path

import pytest

import controller.rules

ROOT = Path(__file__).resolve().parents[1]


def test_readme_examples() -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 4
    assert result.failed == 0


def test_rules_docstring_examples() -> None:
    result = doctest.testmod(controller.rules)
    assert result.attempted >= 2
    assert result.failed == 0


def _toml_blocks(text: str) -> list[str]:
    return [part.split("```", 1)[0] for part in text.split("```toml\n")[1:]]


def test_the_service_docs_configuration_is_the_one_read(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/service.md's configuration file is the one a person copies: it
    # names every key the service reads in its own tables (the drivers'
    # [gpio] and the broadcast's are theirs, in hardware.md and
    # broadcast.md), none it does not, and each with the service's default
    # (the camera's profile an example path).
    from dataclasses import fields

    from controller.board.config import Table
    from controller.service.config import Config, load_config

    read: set[str] = set()
    asked = Table._get

    def spy(self: Table, key: str) -> object:
        if self.where in ("board", "web", "players", "storage", "camera"):
            read.add(self.path(key))
        return asked(self, key)

    monkeypatch.setattr(Table, "_get", spy)
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    load_config(empty)
    text = _toml_blocks((ROOT / "docs" / "service.md").read_text())[0]
    docs = tomllib.loads(text)
    written = {f"{t}.{k}" for t, keys in docs.items() if t not in ("gpio", "broadcast")
               for k in keys}
    assert written == read, (
        f"docs/service.md's configuration block lacks {sorted(read - written)} (keys the "
        f"service reads) and has {sorted(written - read)} (keys it does not read)")
    path = tmp_path / "config.toml"
    path.write_text(text)
    loaded, defaults = load_config(path), Config()
    differ = [f.name for f in fields(Config)
              if getattr(loaded, f.name) != getattr(defaults, f.name)]
    assert sorted(differ) == ["broadcast_table", "camera_profile", "gpio_table", "source"]


def test_every_value_the_configuration_checks_is_named_by_its_key() -> None:
    # A value refused names its dotted key (KEYS), or at worst its field.
    import inspect
    import re

    from controller.service import config

    checked = set(re.findall(r'error\("(\w+)"', inspect.getsource(config._check)))
    assert {"board", "think", "port"} <= checked
    assert checked <= set(config.KEYS), checked - set(config.KEYS)
    # Every field is read from its key (a field added without one would
    # keep its default whatever the file said); the driver tables and the
    # file's name are not keys.
    from dataclasses import fields

    read = {f.name for f in fields(config.Config)} - {"gpio_table", "broadcast_table", "source"}
    assert set(config.KEYS) == read, read ^ set(config.KEYS)


def test_the_page_docs_lights_say_what_the_page_says() -> None:
    # docs/page.md's table of lights gives each light's meaning as the page
    # and the API's legend say it (the doc may add when it is lit).
    from controller.board.leds import MEANINGS

    rows = [line.split("|") for line in (ROOT / "docs" / "page.md").read_text().splitlines()
            if line.startswith("| `")]
    documented = {cells[1].strip().strip("`"): cells[4].strip() for cells in rows}
    assert not set(MEANINGS) - set(documented), (
        f"docs/page.md's table of lights has no row for {sorted(set(MEANINGS) - set(documented))}")
    assert not set(documented) - set(MEANINGS), (
        f"docs/page.md's table of lights has rows for {sorted(set(documented) - set(MEANINGS))}, "
        "which controller/board/leds.py does not know")
    for role, meaning in MEANINGS.items():
        assert documented[role].startswith(meaning), (role, meaning, documented[role])


def test_the_page_docs_lights_have_the_drivers_colours_and_rank() -> None:
    # docs/page.md's table of lights is in rank order (a lower row wins)
    # and gives each light's default colour and blink as the LED drivers
    # and the page's legend use them (controller/board/leds.py).
    from controller.board.leds import DEFAULT_STYLES, STYLES, format_colour

    rows = [[c.strip() for c in line.split("|")[1:-1]]
            for line in (ROOT / "docs" / "page.md").read_text().splitlines()
            if line.startswith("| `")]
    assert [r[0].strip("`") for r in rows] == list(STYLES), (
        f"docs/page.md's table of lights: give the lights in their rank, {list(STYLES)}")
    for role, colour, how, _ in rows:
        style = DEFAULT_STYLES[role.strip("`")]
        assert colour.split()[0] == format_colour(style.colour), (role, colour)
        said = "steady" if not style.blink else f"blinks every {style.blink:g} s"
        assert how == said, (role, how, said)


def test_the_reconciler_docs_name_every_led_role_in_rank_order() -> None:
    # docs/reconciler.md's "LED roles" gives the roles from the lowest to
    # the highest, as controller.board.leds.ROLES ranks them.
    from controller.board.leds import ROLES

    section = (ROOT / "docs" / "reconciler.md").read_text().split("## LED roles\n", 1)[1]
    paragraph = section.split("\n\n", 1)[0]
    named = [w for w in paragraph.split("`")[1::2] if w in ROLES]
    assert named == list(ROLES), (
        f"docs/reconciler.md, 'LED roles', names {named}: say every role of "
        f"controller/board/leds.py ROLES, in their rank, {list(ROLES)}")


def test_hardware_md_names_every_logger_of_the_drivers() -> None:
    # hardware.md, "Logging": one logger per module under controller.drivers,
    # each with its row, so a line in the journal leads to its module.
    import re

    text = (ROOT / "hardware.md").read_text().split("## Logging\n", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip().strip("`") for line in text.splitlines()
            if line.startswith("| `")}
    for path in sorted((ROOT / "controller" / "drivers").glob("*.py")):
        loggers = re.findall(r"logging\.getLogger\(([^)]*)\)", path.read_text())
        module = f"controller.drivers.{path.stem}"
        assert loggers in ([], ["__name__"]), (
            f"{module} logs as {loggers}: hardware.md says each driver logs under its "
            "module's name (logging.getLogger(__name__))")
        if loggers:
            assert module in rows, f"hardware.md, 'Logging', has no row for {module}"
    assert rows <= {f"controller.drivers.{p.stem}" for p in (ROOT / "controller" / "drivers")
                    .glob("*.py")}, f"hardware.md, 'Logging', names {sorted(rows)}"


def _without_groups(text: str) -> str:
    """``text`` with every (...), {...} and [...] group taken out."""
    import re

    while True:
        shorter = re.sub(r"\([^()]*\)|\{[^{}]*\}|\[[^\[\]]*\]", "", text)
        if shorter == text:
            return text
        text = shorter


def test_the_service_docs_state_has_every_key_of_the_state(tmp_path: Path) -> None:
    # docs/service.md's JSON API gives GET /api/state's answer: its keys are
    # the state's, and the outcome's too, so a page or a client reading the
    # doc finds every field and no field that is gone.
    import re

    from controller.service.board import BoardService
    from controller.service.config import Config

    row = next(line for line in (ROOT / "docs" / "service.md").read_text().splitlines()
               if line.startswith("| `GET /api/state` |"))
    answer = row.split("|")[3].replace("`", "").strip()
    documented = re.findall(r'"(\w+)"', _without_groups(answer[1:-1]))
    outcome = re.search(r'"outcome": (\{[^{}]*\})', answer)
    assert outcome is not None
    service = BoardService(Config(data_dir=tmp_path, ponder=False))
    try:
        state = service.state()
        assert sorted(documented) == sorted(state), (
            "docs/service.md, GET /api/state: "
            f"not said {sorted(set(state) - set(documented))}, "
            f"gone {sorted(set(documented) - set(state))}")
        service.press("resign", "attacker")
        ended = service.state()["outcome"]
        assert sorted(re.findall(r'"(\w+)"', outcome[1])) == sorted(ended), ended
    finally:
        service.close()


def test_the_reconciler_docs_settings_are_the_defaults() -> None:
    # docs/reconciler.md's "Settings" table gives each setting's default as
    # controller/reconcile/settings.py has it.
    import dataclasses

    from controller.reconcile.settings import Settings

    section = (ROOT / "docs" / "reconciler.md").read_text().split("## Settings\n", 1)[1]
    rows = [line.split("|")[1:3] for line in section.split("\n## ", 1)[0].splitlines()
            if line.startswith("| `")]
    documented = {name.strip().strip("`"): float(value.replace(",", "").replace(" s", ""))
                  for name, value in rows}
    defaults = {f.name: f.default for f in dataclasses.fields(Settings)}
    assert documented == defaults, f"docs/reconciler.md, 'Settings': {documented} != {defaults}"


def test_the_service_docs_configuration_errors_are_the_code_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/service.md, "One file, one error": the lines quoted are the ones
    # the service says.
    from controller.board.config import ConfigError
    from controller.service.config import Config, load_config

    monkeypatch.chdir(tmp_path)
    block = (ROOT / "docs" / "service.md").read_text().split(
        "### One file, one error", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    quoted = block.splitlines()
    said = []
    etc = "/etc/kharbga/config.toml"
    for text in ("[web]\nport = 70000\n", '[gpio.leds.roles.capture]\ncolour = "red"\n'):
        Path("config.toml").write_text(text)
        with pytest.raises(ConfigError) as err:
            load_config("config.toml").serial_leds()
        said.append(str(err.value).replace("config.toml", etc, 1))
    for act in (lambda: load_config("missing.toml"), lambda: Config().with_overrides(port=0)):
        with pytest.raises(ConfigError) as err:
            act()
        said.append(str(err.value))
    assert quoted == [f"kharbga-board: {line}" for line in said]


def test_the_service_docs_name_every_option_of_run() -> None:
    # docs/service.md's "Options:" of kharbga-board run are the parser's.
    import argparse
    import re

    from controller.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    run = sub.choices["run"]
    options = {o for a in run._actions for o in a.option_strings if o.startswith("--")}
    options.discard("--help")
    text = (ROOT / "docs" / "service.md").read_text()
    paragraph = text.split("\nOptions: ", 1)[1].split("\n\n", 1)[0]
    said = {o for span in paragraph.split("`")[1::2] for o in re.findall(r"--[\w-]+", span)}
    assert said == options, (f"docs/service.md, kharbga-board run's options: not said "
                             f"{sorted(options - said)}, gone {sorted(said - options)}")


def test_the_service_docs_api_table_has_every_route(tmp_path: Path) -> None:
    # docs/service.md's JSON API table has a row for every route of the web
    # app (but the page's own files), and none that is gone.
    import re

    from controller.service.app import make_app
    from controller.service.board import BoardService
    from controller.service.config import Config

    text = (ROOT / "docs" / "service.md").read_text()
    documented = set(re.findall(r"^\| `((?:GET|POST) /[^`]*)` \|", text, re.M))
    service = BoardService(Config(data_dir=tmp_path, ponder=False))
    try:
        routes = {f"{r.method} {r.resource.canonical}".replace("{gid}", "{id}")
                  for r in make_app(service).router.routes() if r.resource is not None
                  and r.method in ("GET", "POST")}
    finally:
        service.close()
    routes -= {"GET /", "GET /static/{name}"}  # the page itself
    assert documented == routes, (f"docs/service.md, JSON API: no row for "
                                  f"{sorted(routes - documented)}, rows for gone "
                                  f"{sorted(documented - routes)}")


def test_the_pis_configuration_names_the_data_directory_the_unit_uses(tmp_path: Path) -> None:
    # docs/service.md's steps for the Pi write the configuration file with
    # printf: it loads, and names the data directory, so `games --config`
    # reads the archive the service writes; the unit adds no --data-dir
    # that the file would not know of.
    from controller.service.config import load_config

    text = (ROOT / "docs" / "service.md").read_text()
    line = next(x for x in text.split("## Running on the Pi", 1)[1].splitlines()
                if x.startswith("printf "))
    path = tmp_path / "config.toml"
    path.write_text(line.split("'")[1].encode().decode("unicode_escape"))
    assert str(load_config(path).data_dir) == "/var/lib/kharbga/data"
    assert "games list --config /etc/kharbga/config.toml" in " ".join(text.split())
    for unit in ((ROOT / "docs" / "kharbga-board.service").read_text(),
                 (ROOT / "hardware.md").read_text()):
        assert "--config /etc/kharbga/config.toml" in unit and "--data-dir" not in unit.split(
            "ExecStart=", 1)[1].split("\n", 1)[0]


def test_the_engine_docs_levels_are_the_engines() -> None:
    # docs/engine.md's table of levels gives each level's settings as
    # controller/engine/api.py plays them.
    from controller.engine.api import LEVELS

    text = (ROOT / "docs" / "engine.md").read_text()
    table = text.split("| level | name | depth cap | noise | margin | blunder check |", 1)[1]
    table = table.split("\n\n", 1)[0]  # the table ends at the first empty line
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in table.splitlines()[2:]]
    assert len(rows) == len(LEVELS)
    for number, name, depth, noise, margin, guard in rows:
        level = LEVELS[int(number)]
        assert (name, depth, noise, margin) == (
            level.name, str(level.max_depth or "none"), str(level.noise), str(level.margin))
        assert guard == ("-" if not level.max_depth else "yes" if level.guard else "no")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation but
    hyphens dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)  # no headings in code
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_every_link_between_the_docs_reaches_its_file_and_heading() -> None:
    root = Path(__file__).parent.parent
    pages = [p for p in root.rglob("*.md")
             if not {".venv", "node_modules", ".git", "build"} & set(p.relative_to(root).parts)]
    assert len(pages) > 10
    broken = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):  # a web address: not ours to check
                continue
            name, _, anchor = target.partition("#")
            linked = (page.parent / name).resolve() if name else page
            if not linked.exists():
                broken.append(f"{page.relative_to(root)}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(root)}: {target} (no such heading)")
    assert not broken, broken


def test_the_docs_name_every_button() -> None:
    # docs/reconciler.md's "Buttons" says what each does, hardware.md's
    # protocol table gives each its index: a button added to BUTTONS and
    # said nowhere would be one a builder cannot wire and a player cannot
    # look up.
    from controller.board.events import BUTTONS

    section = (ROOT / "docs" / "reconciler.md").read_text().split("## Buttons\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    said = re.findall(r"^- `([a-z-]+)`", section, re.M)
    assert sorted(said) == sorted(BUTTONS), (
        f"docs/reconciler.md, 'Buttons', says {said}: give each of "
        f"controller/board/events.py BUTTONS {list(BUTTONS)} an item")
    row = next(line for line in (ROOT / "hardware.md").read_text().splitlines()
               if line.startswith("| 0x03 | BUTTON |"))
    listed = row.split("= ", 1)[1].split(";", 1)[0]
    assert listed == ", ".join(BUTTONS), (
        f"hardware.md's 0x03 BUTTON row lists {listed!r}: the buttons by index are "
        f"{', '.join(BUTTONS)} (controller/board/events.py BUTTONS)")
    assert f"button 0..{len(BUTTONS) - 1} =" in row, "hardware.md's 0x03 row: the index range"


_SMALL = "zero one two three four five six seven eight nine ten eleven twelve".split()


def _said(n: int) -> str:
    """A count as the docs write it: ten, 2,000."""
    return _SMALL[n] if n < len(_SMALL) else f"{n:,}"


def _counts(path: Path) -> tuple[dict[str, int], int]:
    """A test file's whole-number constants, and the entries of its VARIANTS."""
    numbers: dict[str, int] = {}
    settings = 0
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if not isinstance(target, ast.Name):
                continue
            if isinstance(node.value, ast.Constant) and type(node.value.value) is int:
                numbers[target.id] = node.value.value
            elif target.id == "VARIANTS" and isinstance(node.value, ast.Dict):
                settings = len(node.value.keys)
    return numbers, settings


def _prose(name: str) -> str:
    return " ".join((ROOT / "docs" / name).read_text().split())


def test_the_docs_count_the_differential_games_the_tests_play() -> None:
    n, settings = _counts(ROOT / "tests" / "rules" / "test_ccore_differential.py")
    said = (f"over {_said(n['GAMES'] * settings)} seeded random games cut at {n['CUT']} "
            f"actions and {_said(n['WHOLE'] * settings)} whole games, across "
            f"{_said(settings)} variant settings")
    assert said in _prose("core.md"), (
        f"docs/core.md's Tests should say {said!r}, as tests/rules/test_ccore_differential.py "
        "plays (GAMES, CUT and WHOLE per entry of its VARIANTS)")
    n, settings = _counts(ROOT / "tests" / "rules" / "test_differential.py")
    for said in (f"{_said(n['GAMES'] * settings)} seeded random games ({_said(n['GAMES'])} "
                 "per variant",
                 f"cut at {n['CUT']} actions), {_said(n['WHOLE'] * settings)} whole games"):
        assert said in _prose("rules.md"), (
            f"docs/rules.md's Checks should say {said!r}, as tests/rules/test_differential.py "
            "plays (GAMES, CUT and WHOLE per entry of its VARIANTS)")


def test_the_docs_name_every_option_a_new_game_takes() -> None:
    # CHOSEN_OPTIONS: the options the page's New game form and POST /api/new take.
    from controller.rules.variants import CHOSEN_OPTIONS

    rules = (ROOT / "docs" / "rules.md").read_text()
    service = (ROOT / "docs" / "service.md").read_text().splitlines()
    row = next(line for line in service if line.startswith("| `POST /api/new` |"))
    for variant, options in CHOSEN_OPTIONS.items():
        for option in options:
            assert f"`{option}`" in rules, (
                f"docs/rules.md does not name the rule option `{option}`, which a new game of "
                f"{variant} takes (CHOSEN_OPTIONS)")
            assert option in row and variant in row, (
                f"docs/service.md's POST /api/new row does not say that a new game of "
                f"{variant} takes the option {option} (CHOSEN_OPTIONS)")


def test_the_rules_docs_variants_table_is_the_variants() -> None:
    # docs/rules.md's table of the square-board variants: a row for each of
    # VARIANTS, in order, with its board, captures, chains and centre.
    from controller.rules.variants import VARIANTS

    lines = (ROOT / "docs" / "rules.md").read_text().splitlines()
    start = lines.index("| name | board | setting | captures | chains | centre | blocked side "
                        "| ends |")
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    assert [re.sub(r"`([^`]+)`.*", r"\1", row[0]) for row in rows] == [v.name for v in VARIANTS]
    for row, v in zip(rows, VARIANTS, strict=True):
        assert row[1] == f"{v.size}x{v.size}", f"{v.name}: the board is {v.size}x{v.size}"
        assert row[3] == ("compulsory" if v.compulsory_capture else "optional"), (
            f"{v.name}: captures are {'compulsory' if v.compulsory_capture else 'optional'}")
        assert row[4].startswith(v.chain), f"{v.name}: chains are {v.chain}"
        assert (row[5] == "refuge") == v.refuge, f"{v.name}: the centre's refuge is {v.refuge}"
