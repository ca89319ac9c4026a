"""The words an exception gives a user or a log line: its message on one
line (a message from SQLite, OpenCV or the operating system may hold line
breaks and runs of spaces), and, where the message alone may say too
little, the exception's kind before it; why a file could not be opened;
the article before a board's or a matrix's name ("an 8x8"); what a
board's places are called ("square", "point")."""

from __future__ import annotations

import unicodedata

# Characters that would break a line or a record's tag, or hide text: controls (a
# line break, a NUL, ESC), format characters (a bidi override), line and
# paragraph separators, surrogates and private use. Spaces of any kind stay.
HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co"))


def is_hidden(c: str) -> bool:
    """Is ``c`` one of :data:`HIDDEN`'s characters?"""
    return unicodedata.category(c) in HIDDEN


def on_one_line(text: str) -> str:
    """``text`` with each :data:`HIDDEN` character written '?': one line,
    shown as written (a name's no-break or ideographic space is kept)."""
    return "".join("?" if is_hidden(c) else c for c in text)


def a(name: str) -> str:
    """``name`` after its article: "a 7x7", "an 8x8", "an 11x3", "a 37-point"."""
    spoken_vowel = name[:1] in "aeiou8" or (name[:2] in ("11", "18") and not name[2:3].isdigit())
    return f"{'an' if name and spoken_vowel else 'a'} {name}"


def place(board: str, count: int = 1) -> str:
    """What a place of the board named ``board`` is called: "point" on the
    37-point board (its places are points on lines), "square" on a board
    of squares ("7x7", "5x5", "8x8"); "points", "squares" for a ``count``
    other than 1."""
    noun = "square" if "x" in board else "point"
    return noun if count == 1 else f"{noun}s"


def said(exc: BaseException) -> str:
    """The exception's message on one line ('' for none)."""
    return " ".join(str(exc).split())


def named(exc: BaseException, limit: int | None = None) -> str:
    """'Kind: message' on one line, the message cut to ``limit`` characters
    when given; the kind alone for an exception without a message."""
    text = said(exc)
    if limit is not None:
        text = text[:limit]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def os_reason(exc: OSError) -> str:
    """What the system said stopped it, in lower case, to follow a colon or
    stand in brackets: "permission denied", "no space left on device"."""
    return (exc.strerror or str(exc)).lower()


def unreadable(exc: OSError, what: str = "file") -> str:
    """Why a ``what`` (a file, a sensor log) could not be opened, in a
    few words: "no such file", "is a directory, not a file", or "cannot
    read (Permission denied)"."""
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return f"is a directory, not a {what}"
    return f"cannot read ({exc.strerror or said(exc)})"
