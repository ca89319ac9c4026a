"""``kharbga-board doctor --camera DEVICE``: is the camera ready to read a board?

Watches the camera (a device number, a ``/dev/video*`` path, or a video file
to try it without one) for a few seconds and reports: whether exposure and
white balance are locked (asked of the V4L2 driver with ``v4l2-ctl``), the
frame rate actually delivered, and in how many frames each of the four
markers was seen.  Exit status 0 when all is well, 1 when something needs
attention, 2 when the camera cannot be opened.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import cv2

from calibration.frames import frames_short, open_capture
from calibration.images import native_stderr
from calibration.markers import MARKER_CENTRES, detect_markers

__all__ = ["camera_locks", "doctor_camera", "parse_controls"]

# V4L2 control names (Linux 5.17 renamed them; both spellings are read)
AUTO_EXPOSURE = ("auto_exposure", "exposure_auto")
AUTO_WB = ("white_balance_automatic", "white_balance_temperature_auto")
MANUAL_EXPOSURE = 1  # V4L2_EXPOSURE_MANUAL


def parse_controls(text: str) -> dict[str, int]:
    """``name: value`` lines of ``v4l2-ctl --get-ctrl`` (or the value column of
    ``--list-ctrls``) as a dict."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\w+)\s*(?:0x[0-9a-f]+\s*)?(?:\(\w+\)\s*)?:.*?\bvalue=(-?\d+)", line)
        if m is None:
            m = re.match(r"\s*(\w+)\s*:\s*(-?\d+)\s*$", line)
        if m is not None:
            out[m.group(1)] = int(m.group(2))
    return out


def camera_locks(controls: dict[str, int]) -> dict[str, bool | None]:
    """Whether exposure and white balance are locked (None: the driver does not say)."""
    exp = next((controls[k] for k in AUTO_EXPOSURE if k in controls), None)
    wb = next((controls[k] for k in AUTO_WB if k in controls), None)
    return {"exposure": None if exp is None else exp == MANUAL_EXPOSURE,
            "white balance": None if wb is None else wb == 0}


def _device(source: str) -> tuple[int | str, str | None]:
    """(what OpenCV opens, the V4L2 node or None for a file)."""
    if source.isdigit():
        return int(source), f"/dev/video{source}"
    if source.startswith("/dev/"):  # /dev/video0, /dev/v4l/by-id/...: a camera's node
        return source, source
    if not Path(source).is_file():
        raise ValueError(f"no camera or video {source}: give a device number such as 0, a "
                         "/dev/video* path or a video file")
    return source, None


def _controls(node: str) -> dict[str, int] | None:
    tool = shutil.which("v4l2-ctl")
    if tool is None:
        return None
    try:
        res = subprocess.run([tool, "-d", node, "--list-ctrls"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse_controls(res.stdout) if res.returncode == 0 else None


def _watch(cap: cv2.VideoCapture,
           seconds: float) -> tuple[int, float, dict[int, int], str | None]:
    """(frames, seconds taken, frames each marker was seen in, how a video
    file ended before its header says or None), the decoder's own warnings
    kept off the terminal."""
    seen = dict.fromkeys(MARKER_CENTRES, 0)
    frames, last, short = 0, "", None
    t0 = time.monotonic()
    while frames == 0 or time.monotonic() - t0 < seconds:  # at least one, however short
        with native_stderr() as said:
            ok, frame = cap.read()
        last = "".join(said).strip() or last
        if not ok or frame is None:
            short = frames_short(cap, frames, last)
            break
        frames += 1
        for mid in detect_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)):
            seen[mid] += 1
    return frames, time.monotonic() - t0, seen, short


def doctor_camera(source: str, seconds: float = 3.0) -> int:
    """Print the report; the exit status."""
    if not 0 < seconds <= 600:
        raise ValueError(f"--seconds must be more than 0 and at most 600, not {seconds:g}")
    _, node = _device(source)
    cap = open_capture(source)
    try:
        frames, took, seen, short = _watch(cap, seconds)
    finally:
        cap.release()
    if not frames:
        raise ValueError(f"camera {source} opened but gave no picture")
    good = True
    if node is None:
        print("exposure and white balance: a video file (nothing to lock)")
    else:
        controls = _controls(node)
        if controls is None:
            print("exposure and white balance: unknown (v4l2-ctl not installed or the device"
                  " does not answer: Debian package v4l-utils)")
            good = False
        for what, locked in camera_locks(controls or {}).items():
            if controls is None:
                break
            state = {True: "locked", False: "AUTOMATIC: lock it (hardware.md)",
                     None: "not reported by the driver"}[locked]
            print(f"{what}: {state}")
            good &= locked is not False
    print(f"frame rate: {frames / max(took, 1e-9):.1f} frames/s ({frames} frames in"
          f" {took:.1f} s)")
    if short is not None:
        print(f"the video {source} {short}")
        good = False
    for mid, n in seen.items():
        print(f"marker {mid}: seen in {n} of {frames} frames")
    if min(seen.values()) < frames:
        print("not every marker is seen in every frame: check the light and that nothing"
              " covers them")
        good = False
    print("camera ready" if good else "camera needs attention")
    return 0 if good else 1
