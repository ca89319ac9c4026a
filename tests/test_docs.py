"""The examples in the README and the package docstrings run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

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


def test_the_service_docs_configuration_names_every_key(tmp_path: Path) -> None:
    # docs/service.md's configuration file is the one a person copies: it
    # names every key of the tables the configuration module documents
    # (the computer's level among them), and loads as it stands.
    import tomllib

    import controller.service.config as config_module
    from controller.service.config import load_config

    docs = tomllib.loads(_toml_blocks((ROOT / "docs" / "service.md").read_text())[0])
    module = tomllib.loads((config_module.__doc__ or "").split("::\n", 1)[1]
                           .split("\nThe ``[gpio]``", 1)[0].replace("\n    ", "\n"))
    for table, keys in module.items():
        if table == "gpio":
            continue  # the drivers' tables: hardware.md
        missing = set(keys) - set(docs.get(table, {}))
        assert not missing, f"docs/service.md [{table}] lacks {sorted(missing)}"
    path = tmp_path / "config.toml"
    path.write_text(_toml_blocks((ROOT / "docs" / "service.md").read_text())[0])
    assert load_config(path).level == 5


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
