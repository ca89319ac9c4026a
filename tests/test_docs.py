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
