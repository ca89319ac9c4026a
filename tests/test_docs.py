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
    assert set(documented) == set(MEANINGS)
    for role, meaning in MEANINGS.items():
        assert documented[role].startswith(meaning), (role, meaning, documented[role])
