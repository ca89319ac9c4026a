"""The Makefile's install: run again, it installs again only when there is
something to do (a dry run, ``make -n``, in a copy of the tree's outline)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("controller/rules/_ccore.cpython-x.so", "controller/engine/_csearch.cpython-x.so")


def _tree(where: Path, built: tuple[str, ...]) -> None:
    """The Makefile, its inputs and an installed .venv (stamp newer than
    the inputs), with the compiled parts ``built``."""
    shutil.copy(ROOT / "Makefile", where / "Makefile")
    for name in ("pyproject.toml", "setup.py", *PARTS):
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text("")
    for name in PARTS:
        if name not in built:
            (where / name).unlink()
    (where / ".venv/bin").mkdir(parents=True)
    (where / ".venv/bin/python").symlink_to(sys.executable)
    stamp = where / ".venv/.installed"
    stamp.write_text("")
    later = stamp.stat().st_mtime + 10
    os.utime(stamp, (later, later))


def _dry_install(where: Path, path: str) -> str:
    make = shutil.which("make")
    if make is None:
        pytest.fail("make is not installed")
    env = {**os.environ, "PATH": path}
    return subprocess.run([make, "-n", "install", f"PY={sys.executable}"], cwd=where,
                          env=env, capture_output=True, text=True, check=True).stdout


def _can_build() -> bool:
    compiler = shutil.which("cc") or shutil.which("gcc")
    return bool(compiler) and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


def test_installed_and_built_is_left_alone(tmp_path: Path) -> None:
    _tree(tmp_path, PARTS)
    assert "pip install" not in _dry_install(tmp_path, os.environ["PATH"])


def test_a_compiled_part_missing_is_built_once_a_compiler_is_there(tmp_path: Path) -> None:
    # The service's log says "install gcc and python3-dev, then make
    # install" when the C was not built: that make install must build it.
    if not _can_build():
        pytest.fail("no C compiler or Python headers: make test builds the C core with them")
    _tree(tmp_path, PARTS[:1])
    assert "pip install -e '.[web]'" in _dry_install(tmp_path, os.environ["PATH"])


def test_without_a_compiler_a_missing_part_does_not_reinstall_each_time(tmp_path: Path) -> None:
    _tree(tmp_path, ())
    bare = tmp_path / "bare-bin"  # a PATH with the shell and make but no cc or gcc
    bare.mkdir()
    for tool in ("sh", "make", "touch"):
        found = shutil.which(tool)
        assert found is not None
        (bare / tool).symlink_to(found)
    assert "pip install" not in _dry_install(tmp_path, str(bare))
