"""The camera as a sensor: frames from a device or a video file, read into
colour frames (``cells``) for the reconciler.

``kharbga-board run --board camera:DEVICE`` uses :class:`CameraStream` on a
device number (V4L2 covers USB webcams and the Pi camera) or a video file;
``replay_video`` turns a recorded video into a colour sensor log, so a game
filmed from above replays through the whole path.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from controller.board.sensorlog import Frame

from .camera import CameraReader, load_profile

__all__ = ["CameraStream", "video_frames", "replay_video"]


def _open(device: str) -> cv2.VideoCapture:
    source: int | str = int(device) if device.isdigit() else device
    cap = cv2.VideoCapture(source)
    if not cap.isOpened():
        raise ValueError(f"cannot open camera or video {device!r}")
    return cap


def video_frames(device: str, profile_path: str | Path, smooth: int = 3,
                 fps: float | None = None) -> Iterator[Frame]:
    """Colour frames of a video file (times from its frame rate)."""
    reader = CameraReader(load_profile(profile_path), smooth=smooth)
    cap = _open(device)
    rate = fps or cap.get(cv2.CAP_PROP_FPS) or 10.0
    n = 0
    try:
        while True:
            ok, image = cap.read()
            if not ok:
                return
            yield Frame.from_cells(n / rate, reader.read(image))
            n += 1
    finally:
        cap.release()


def replay_video(device: str, profile_path: str | Path, variant: str) -> list[str]:
    """The sensor log (JSON lines) of a video: header, then a colour frame
    for each video frame."""
    from controller.board.sensorlog import Header, format_event
    from controller.rules import find_variant

    size = find_variant(variant).size
    lines = [format_event(Header(0.0, f"{size}x{size}", "colour"), size * size)]
    lines += [format_event(f, size * size) for f in video_frames(device, profile_path)]
    return lines


class CameraStream:
    """A live camera on its own thread, putting colour frames on a queue
    (only when the reading changes, and a heartbeat every second)."""

    def __init__(self, device: str, profile_path: str | Path) -> None:
        self.reader = CameraReader(load_profile(profile_path), smooth=3)
        self.cap = _open(device)
        # A video file plays at its own pace, as the camera filmed it.
        fps = self.cap.get(cv2.CAP_PROP_FPS) if not device.isdigit() else 0.0
        self.period = 1.0 / fps if fps and fps > 0 else 0.0
        self.events: queue.Queue[Frame] = queue.Queue()
        # the newest frame, its reading and its markers (replaced as one)
        self.last: tuple[np.ndarray, str, dict[int, np.ndarray]] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        last = ""
        beat = 0.0
        next_at = time.monotonic()
        while not self._stop.is_set():
            if self.period:
                next_at += self.period
                time.sleep(max(0.0, next_at - time.monotonic()))
            ok, image = self.cap.read()
            if not ok:
                time.sleep(0.05)
                continue
            cells = self.reader.read(image)
            self.last = (image, cells, self.reader.last_markers)
            now = time.monotonic()
            if cells != last or now - beat >= 1.0:
                self.events.put(Frame.from_cells(now, cells))
                last, beat = cells, now

    def preview(self) -> bytes:
        """The newest frame as JPEG, with the markers, grid and readings drawn."""
        from .preview import draw_overlay, jpeg

        last = self.last
        if last is None:
            raise ValueError("no picture from the camera yet")
        image, cells, markers = last
        return jpeg(draw_overlay(image, markers=markers,
                                 homography=self.reader.tracker.homography, cells=cells))

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        self.cap.release()
