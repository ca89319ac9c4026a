"""``kharbga-board doctor --serial PORT``: a Pico board checked over its link.

:func:`doctor_link` waits for the handshake (a refusal, such as a firmware
reading another board, is its one line), watches the empty board for a
while, and reports in words: the board the firmware reads, the link's and
the firmware's counters, then one line per problem, named by square
("d2: chattering (112 changes)").  A problem is a switch chattering
(bounces the firmware's debouncer rejected, or a point opening and closing
on the empty board), a point closed throughout (stuck, or a piece left on
the board), an error the device reported, or bytes lost on the link.  Its
exit status is 1 when it found one, 0 when all is well.

:func:`stop_firmware` (``doctor --serial PORT --stop-firmware``) asks the
firmware to stop, for an update: the Pico resets to its REPL.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.board.events import Frame
from controller.board.words import a

from .link_settings import DeviceInfo, DeviceStats, LinkStats
from .mapping import BoardMapping, points
from .serial_link import SerialLink

__all__ = ["Watch", "doctor_link", "link_problems", "stop_firmware", "switch_problems"]

SIDES = ("shared", "attacker", "defender")


@dataclass
class Watch:
    """The occupancy frames seen while watching: the points closed in
    every frame, and how often each point changed."""

    frames: int = 0
    always: int = 0
    changes: dict[int, int] = field(default_factory=dict)
    last: int | None = None

    def add(self, occupied: int) -> None:
        self.always = occupied if self.last is None else self.always & occupied
        if self.last is not None:
            for p in points(occupied ^ self.last):
                self.changes[p] = self.changes.get(p, 0) + 1
        self.last = occupied
        self.frames += 1


def describe_device(device: DeviceInfo | None, url: str) -> str:
    if device is None:
        return f"board on {url}: connected"
    version = ".".join(map(str, device.firmware_version))
    sides = [name for k, name in enumerate(SIDES) if device.sides >> k & 1]
    return (f"board on {url}: {device.firmware} {version} (protocol {device.version}), "
            f"{a(f'{device.rows}x{device.cols}')} switch matrix, {device.leds} LEDs, "
            f"buttons: {', '.join(sides) or 'none'}")


def describe_counters(link: LinkStats, device: DeviceStats | None) -> list[str]:
    out = [f"link: {link.frames} frames received, {link.frames_sent} sent, "
           f"{link.resent} sent again, {link.disconnects} connections lost"]
    if device is not None:
        c = device.counters
        out.append(
            f"firmware: up {c['uptime_ms'] / 1000:.1f} s, {c['scans']} scans (slowest loop "
            f"{c['loop_max_us']} us), {c['rx_frames']} frames received ({c['rx_errors']} bad), "
            f"{c['tx_frames']} sent ({c['tx_retransmits']} again, {c['tx_dropped']} dropped), "
            f"{c['errors']} errors")
    return out


def switch_problems(mapping: BoardMapping, watch: Watch, before: DeviceStats | None,
                    after: DeviceStats | None) -> list[str]:
    """One line per point: chattering (the bounces the firmware rejected
    while watching and the changes it reported on the empty board), closed
    throughout."""
    out = []
    for p in range(mapping.squares):
        name = mapping.name(p)
        rejected = 0
        if after is not None and p < len(after.chatter):
            was = before.chatter[p] if before is not None and p < len(before.chatter) else 0
            rejected = (after.chatter[p] - was) & 0xFFFF  # u16 counters wrap
        changes = rejected + watch.changes.get(p, 0)
        if changes:
            out.append(f"{name}: chattering ({changes} change{'s' if changes > 1 else ''})")
        if watch.frames and watch.always >> p & 1:
            out.append(f"{name}: closed throughout (a stuck switch, or a piece left on it)")
    return out


def link_problems(link: LinkStats, before: DeviceStats | None,
                  after: DeviceStats | None) -> list[str]:
    """One line per problem of the link or the firmware."""
    out = []
    bad = link.checksum_failures + link.framing_errors + link.bad_messages
    if bad:
        out.append(f"the link: {link.checksum_failures} frames failed the CRC check, "
                   f"{link.framing_errors} were malformed, {link.bad_messages} unusable")
    if link.disconnects:
        times = "once" if link.disconnects == 1 else f"{link.disconnects} times"
        out.append(f"the link: lost {times} ({link.last_error or 'no reason given'})")
    if after is None:
        out.append("the firmware did not answer the request for its counters")
        return out
    diff = {k: v - (before.counters.get(k, 0) if before else 0) for k, v in after.counters.items()}
    if diff["errors"] > 0:
        notices = [n for n in link.notices if n.startswith("1: ")]
        last = f" (the last: {notices[-1][3:]})" if notices else ""
        out.append(f"the firmware: {diff['errors']} errors in its loop{last}")
    if diff["rx_errors"] > 0:
        out.append(f"the firmware: {diff['rx_errors']} bad frames from the host")
    return out


def doctor_link(link: SerialLink, mapping: BoardMapping, seconds: float,
                say: Callable[[str], None], connect_timeout: float = 5.0) -> int:
    """Check the board on ``link`` (started) for ``seconds``; the exit
    status: 1 when a problem was found (or no handshake), 0 otherwise."""
    if not _connected(link, say, connect_timeout):
        return 1
    say(describe_device(link.device, link.url))
    say(f"watching the board for {seconds:g} s: leave it empty")
    before = link.device_stats(2.0)
    watch = Watch()
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        event = link.get(timeout=min(left, 0.1))
        if isinstance(event, Frame):
            watch.add(event.occupied)
    after = link.device_stats(2.0)
    stats = link.stats()
    for line in describe_counters(stats, after):
        say(line)
    problems = switch_problems(mapping, watch, before, after) + link_problems(stats, before, after)
    for line in problems:
        say(line)
    say(f"{len(problems)} problem(s) found" if problems else "all well")
    return 1 if problems else 0


def _connected(link: SerialLink, say: Callable[[str], None], timeout: float) -> bool:
    if link.wait_connected(timeout):
        return True
    why = link.stats().last_error or "no answer"
    say(f"no handshake from a board on {link.url} within {timeout:g} s: {why}")
    return False


def stop_firmware(link: SerialLink, say: Callable[[str], None],
                  connect_timeout: float = 5.0) -> int:
    """Stop the firmware on ``link`` (started) for an update: 0 when it
    acknowledged the STOP, else 1."""
    if not _connected(link, say, connect_timeout):
        return 1
    say(describe_device(link.device, link.url))
    if not link.stop_device(3.0):
        say("the firmware did not acknowledge the stop within 3 s: try again, or hold "
            "BOOTSEL while plugging the Pico in")
        return 1
    say("the firmware stopped: the Pico restarts and waits at its REPL; copy the new "
        "files with mpremote now (hardware.md, Deploying and updating); its next "
        "reset runs the firmware again")
    return 0
