"""One line in the log for a malformed HTTP request, not a traceback.

aiohttp refuses a request it cannot parse (a line or header too long, a
byte not allowed in the address, a body length that is no number, TLS
sent to the plain port, a body whose ``Content-Encoding`` cannot be
decoded) with a plain 400 and logs the parser's traceback at ERROR, as
if the server had a bug. The page's service and the hall's share this
filter on aiohttp's server logger: such a record becomes one WARNING
line naming the refusal."""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from controller.board.words import on_one_line

__all__ = ["malformed_words", "quiet_malformed_requests"]

SERVER_LOG = "aiohttp.server"


def malformed_words(exc: BaseException) -> str | None:
    """A malformed request's refusal on one line (at most 160
    characters), or None if ``exc`` (or what caused it) is not one."""
    for seen in (exc, exc.__cause__):  # the refusal itself, or what it was raised from
        if isinstance(seen, HttpProcessingError):
            text = seen.message
            break
        if isinstance(seen, RequestPayloadError):
            text = str(seen)
            break
    else:
        return None
    line = on_one_line(" ".join(text.split())).removeprefix("400, message: ")
    return line[:157] + "..." if len(line) > 160 else line


def _one_line(record: logging.LogRecord) -> bool:
    exc = record.exc_info[1] if record.exc_info else None
    words = malformed_words(exc) if exc is not None else None
    if words is not None:
        record.msg, record.args = "a malformed request was refused: %s", (words,)
        record.exc_info, record.exc_text = None, None
        if record.levelno > logging.WARNING:  # DEBUG stays DEBUG
            record.levelno, record.levelname = logging.WARNING, "WARNING"
    return True


def quiet_malformed_requests() -> None:
    """Install the filter (once, however often called)."""
    logger = logging.getLogger(SERVER_LOG)
    if _one_line not in logger.filters:
        logger.addFilter(_one_line)
