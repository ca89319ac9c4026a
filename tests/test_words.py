"""The one-line words of an exception (controller/board/words.py), used by
every error a user or a log line gets from the service, the hall and the
command line."""

import sqlite3

import pytest

from controller.board.words import a, named, place, said


def test_a_message_over_several_lines_is_said_on_one():
    exc = ValueError("  line one\n\tline   two \r\n")
    assert said(exc) == "line one line two"
    assert named(exc) == "ValueError: line one line two"


def test_an_exception_without_a_message_is_named_by_its_kind():
    assert said(KeyboardInterrupt()) == ""
    assert named(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert named(ValueError("   ")) == "ValueError"


def test_a_long_message_is_cut_where_asked_and_whole_otherwise():
    exc = RuntimeError("x" * 500)
    assert named(exc, 100) == "RuntimeError: " + "x" * 100
    assert named(exc) == "RuntimeError: " + "x" * 500


def test_a_real_sqlite_error_reads_as_sqlite_put_it():
    with pytest.raises(sqlite3.Error) as info:
        sqlite3.connect(":memory:").execute("select * from\nmissing_table")
    assert named(info.value) == "OperationalError: no such table: missing_table"


def test_a_file_that_cannot_be_opened_is_said_in_a_few_words(tmp_path):
    from controller.board.words import unreadable

    for path, what, words in ((tmp_path / "none", "file", "no such file"),
                              (tmp_path, "sensor log", "is a directory, not a sensor log")):
        with pytest.raises(OSError) as info:
            open(path, encoding="utf-8")
        assert unreadable(info.value, what) == words
    assert unreadable(PermissionError(13, "Permission denied")) == "cannot read (Permission denied)"


def test_a_board_s_name_takes_its_article():
    assert [a(n) for n in ("7x7", "8x8", "8x4", "37-point", "11x3", "18x2", "1x9")] == [
        "a 7x7", "an 8x8", "an 8x4", "a 37-point", "an 11x3", "an 18x2", "a 1x9"]


def test_a_board_s_places_are_squares_or_points() -> None:
    assert [place(b) for b in ("7x7", "5x5", "8x8", "37-point")] == [
        "square", "square", "square", "point"]
    assert (place("37-point", 2), place("8x8", 0), place("37-point", 1)) == (
        "points", "squares", "point")
