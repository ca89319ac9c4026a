"""The baseline engine of the strength matches (scripts/engine_vs_baseline.py):
found by tag or, in a clone without the tag, by the commit the tag names."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import SCRIPTS, load_script

ROOT = SCRIPTS.parent


def _script() -> ModuleType:
    return load_script("engine_vs_baseline")


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def test_round1_is_found_with_or_without_its_tag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script()
    has_tag = _git("rev-parse", "--verify", "--quiet", "engine-round1^{commit}").returncode == 0
    assert script.resolve("engine-round1") == ("engine-round1" if has_tag
                                               else script.ROUND1_COMMIT)
    assert script.resolve("abc123") == "abc123", "any other name is passed to git as given"
    # A repository without the tag falls back to the commit.
    bare = tmp_path / "bare"
    subprocess.run(["git", "init", "-q", str(bare)], check=True)
    with monkeypatch.context() as m:
        m.setattr(script, "ROOT", bare)
        assert script.resolve("engine-round1") == script.ROUND1_COMMIT
        with pytest.raises(SystemExit, match=r"no tag or commit engine-round1 \(commit 7d16e83\)"):
            script.extract("engine-round1", tmp_path / "none")
    has_commit = _git("cat-file", "-e", f"{script.ROUND1_COMMIT}^{{commit}}").returncode == 0
    if has_commit:
        script.extract(script.ROUND1_COMMIT, tmp_path / "by-commit")
        script.extract("engine-round1", tmp_path / "by-name")
        package = tmp_path / "by-commit" / script.BASELINE_PACKAGE
        assert (package / "search.py").is_file() and (package / "api.py").is_file()
        # The round-1 engine: the Python search only, no compiled search beside it.
        assert not (package / "csearch.py").exists()
        named = tmp_path / "by-name" / script.BASELINE_PACKAGE
        assert (named / "search.py").read_bytes() == (package / "search.py").read_bytes()
    else:  # a shallow clone: one clear line, not a traceback
        with pytest.raises(SystemExit, match="no tag or commit engine-round1"):
            script.extract("engine-round1", tmp_path)


def test_an_unknown_baseline_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no tag or commit no-such-engine: fatal"):
        _script().extract("no-such-engine", tmp_path)


def test_the_result_line_says_which_search_the_new_engine_played(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkout whose extensions are not built (sources copied, no
    ``make install``) plays the Python search; the figures must say so."""
    script = _script()
    if script.csearch.available():
        assert script.backend("khamousiyya") == "the new engine searches in C"
    assert "no C search for this variant" in script.backend("checkers")
    monkeypatch.setattr(script.csearch, "_cs", None)
    said = script.backend("sabouiyya")
    assert "PYTHON" in said and "make install" in said
    # ...and the warning comes before any game is played.
    def stop(tag: str, into: Path) -> None:
        raise SystemExit("stopped before the games")

    monkeypatch.setattr(script, "extract", stop)
    with pytest.raises(SystemExit, match="stopped before the games"):
        script.main(["--variant", "sabouiyya", "--games", "2"])
    assert "C search is not built" in capsys.readouterr().err


def test_no_balanced_opening_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Openings of a length that random play always decides (sabouiyya at 16
    placements: none of 200 draws balanced) end the run with one line."""
    script = _script()
    monkeypatch.setattr("controller.engine.match.BALANCE_TRIES", 0)
    assert script.main(["--variant", "sabouiyya", "--games", "2", "--opening", "16",
                        "--balanced"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("engine_vs_baseline: sabouiyya: no balanced opening of 16 placements "
                       "in sabouiyya after 0 tries (seed 0): random openings of that length "
                       "are decided; give fewer placements or the whole setting phase")
    assert "Traceback" not in "".join(err)
