"""One line in the log for a malformed HTTP request, not a traceback.

aiohttp refuses a request it cannot parse (a line or header too long, a
byte not allowed in the address, a body length that is no number, TLS
sent to the plain port, a body whose ``Content-Encoding`` cannot be
decoded) with a plain 400 and logs the parser's traceback at ERROR, as
if the server had a bug. The page's service and the hall's share this
filter on aiohttp's server logger: such a record becomes one WARNING
line naming the refusal. TLS sent to the plain port (aiohttp says so at
DEBUG only) is said too, in words a person who opened an https://
address can act on, at most once a minute: a browser asks again and
again."""

from __future__ import annotations

import logging
import time

from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from controller.board.words import on_one_line

__all__ = ["malformed_words", "quiet_malformed_requests"]

SERVER_LOG = "aiohttp.server"
TLS_WORDS = "Received HTTPS traffic on an HTTP port"  # aiohttp's words
TLS_SAID = ("an https:// address was opened on this plain HTTP port: the page is "
            "http:// (no TLS here); open it with http://")
TLS_EVERY = 60.0  # seconds between two lines about it
_tls_said_at: list[float] = []


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
    if words == TLS_WORDS:
        now = time.monotonic()
        if _tls_said_at and now - _tls_said_at[-1] < TLS_EVERY:
            return False
        _tls_said_at[:] = [now]
        record.msg, record.args = "%s", (TLS_SAID,)
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
    if record.levelno < logging.getLogger("aiohttp").getEffectiveLevel():
        return False  # below what the service logs: let through for the TLS line only
    if words is not None:
        record.msg, record.args = "a malformed request was refused: %s", (words,)
        record.exc_info, record.exc_text = None, None
        if record.levelno > logging.WARNING:  # DEBUG stays DEBUG
            record.levelno, record.levelname = logging.WARNING, "WARNING"
    return True


def quiet_malformed_requests() -> None:
    """Install the filter (once, however often called).  The server's
    logger is opened to DEBUG, aiohttp's level for TLS on the plain port;
    the filter lets through below that only what aiohttp's loggers above
    it would log."""
    logger = logging.getLogger(SERVER_LOG)
    if _one_line not in logger.filters:
        logger.addFilter(_one_line)
        logger.setLevel(logging.DEBUG)
