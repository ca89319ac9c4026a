"""scripts/engine_book.py: the opening book's builder writes where it is
told, and says at once when it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest
from script_loader import load_script

from controller.engine import csearch

pytestmark = pytest.mark.skipif(not csearch.available(),
                                reason="the C search is not built (no compiler at install)")

TINY = ["--variant", "sabouiyya", "--plies", "1", "--seconds", "0.01", "--replies", "1",
        "--rank-depth", "1"]


def test_the_book_goes_into_a_folder_made_for_it(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # It searched, then died with FileNotFoundError on a missing folder.
    out = tmp_path / "new" / "books"
    assert load_script("engine_book").main([*TINY, "--out-dir", str(out)]) == 0
    lines = (out / "book-sabouiyya.tsv").read_text().splitlines()
    assert lines[0].startswith("# Opening book of sabouiyya")
    assert [line for line in lines if not line.startswith("#")]
    assert "sabouiyya: " in capsys.readouterr().out


def test_a_folder_it_cannot_make_is_said_before_any_search(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert load_script("engine_book").main([*TINY, "--out-dir", str(blocker / "books")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"engine_book: cannot write to {blocker / 'books'}: not a directory\n"
