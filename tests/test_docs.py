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
