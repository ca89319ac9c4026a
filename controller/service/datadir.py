"""One service a data directory: :func:`hold` takes the directory's lock
(``service.lock``, an ``flock`` the system drops when the process ends,
however it ends), so a second ``kharbga-board run`` on the same games
refuses to start rather than write over the first one's moves."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

__all__ = ["LOCK_NAME", "hold"]

LOCK_NAME = "service.lock"


def _take(fh: IO[str], where: Path) -> None:
    """Lock ``fh`` without waiting, or raise the one line naming who holds it."""
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        pid = fh.read().strip()
        fh.close()
        who = f" (process {pid})" if pid.isascii() and pid.isdigit() else ""
        raise OSError(f"the data directory {where} is in use by another kharbga-board{who}: "
                      "stop it, or give this one another --data-dir") from None


def hold(folder: str | Path, create: bool = True) -> IO[str] | None:
    """Lock ``folder`` for this process (created if missing) until the
    returned file is closed; ``OSError`` in one line when another process
    holds it.  A lock file this user may read but not write (another
    user's) is locked all the same, read-only.  None when the folder cannot
    be written at all: the archive's opening then refuses it in its own
    words (archive.py).

    With ``create`` False nothing is made: a folder without a lock file (a
    new one) gives None.  The service takes the lock so before the web port
    and the board are opened, so a second service on the same games is
    told that, not that the port or the board's pins are busy (the first
    one has them), and holds it from then on."""
    where = Path(folder)
    try:
        if create:
            where.mkdir(parents=True, exist_ok=True)
        fd = os.open(where / LOCK_NAME, os.O_RDWR | (os.O_CREAT if create else 0), 0o644)
    except PermissionError:
        try:  # another user's lock file this one may read: locked read-only, the same
            fd = os.open(where / LOCK_NAME, os.O_RDONLY)  # lock (flock needs no writing)
        except OSError:
            return None
        fh = open(fd, encoding="utf-8", errors="replace")  # noqa: SIM115 (held open)
        _take(fh, where)
        return fh
    except OSError:
        return None
    fh = open(fd, "r+", encoding="utf-8", errors="replace")  # noqa: SIM115 (held open)
    _take(fh, where)
    try:  # who holds it, for a second one's refusal (unbuffered: nothing left to
        # fail again at close); the lock holds without it
        os.ftruncate(fh.fileno(), 0)
        os.pwrite(fh.fileno(), f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass  # a full disk: the archive's opening says so in its words
    return fh
