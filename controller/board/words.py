"""The words an exception gives a user or a log line: its message on one
line (a message from SQLite, OpenCV or the operating system may hold line
breaks and runs of spaces), and, where the message alone may say too
little, the exception's kind before it."""

from __future__ import annotations


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
