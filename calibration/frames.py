"""``kharbga-board camera read``: one photo, a folder of photos, or a video.

A single photo prints its cells string.  A folder (its pictures in name
order) or a video prints one line a frame: the photo's name or the frame's
number, then the cells.  The reader keeps the board's position from frame to
frame (a hand over a marker is covered), and a frame where the board cannot
be located reads as all ``?``: nothing is guessed from it.  ``--explain``
writes the overlay (:mod:`calibration.explain`) of the last frame read, or of
every frame when the name holds ``{}`` (replaced by the photo's name or the
frame's number).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import (
    CameraProfile,
    CameraReader,
    check_board,
    check_size,
    load_image,
    load_profile,
    native_stderr,
    read_photo,
)

__all__ = ["IMAGE_SUFFIXES", "camera_node", "frames_of", "is_video_file", "open_capture",
           "open_problem", "read_frames"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def is_video_file(device: str) -> bool:
    """A recorded video (a regular file), not a camera: a device number or a
    device node such as /dev/video0 or /dev/v4l/by-id/..., which comes back
    after a failed read or an unplugging, where a video has ended."""
    return not device.isdigit() and Path(device).is_file()


def camera_node(device: str) -> str | None:
    """The device node of a camera (a device number or a /dev path), or None
    for anything else (a video file)."""
    if device.isdigit():
        return f"/dev/video{device}"
    return device if device.startswith("/dev/") else None


def open_problem(device: str) -> str:
    """Why ``device`` does not open, in words: the causes a person can mend."""
    node = camera_node(device)
    if node is None:
        p = Path(device)
        if p.is_dir():
            return "a folder, not a video"
        if not p.exists():
            return ("no such file or camera: give a device number such as 0, a /dev/video* "
                    "path or a video file")
        return "not a video OpenCV can decode"
    if not os.path.exists(node):
        return f"no such camera {node}: is it plugged in? ls /dev/video* lists the cameras"
    if not os.access(node, os.R_OK | os.W_OK):
        return f"permission denied on {node}: add this user to the video group"
    return f"{node} does not answer as a camera: not one, or in use by another program?"


def open_capture(device: str) -> cv2.VideoCapture:
    """A camera (its number or device node) or a video file, opened; a
    ValueError in one line if it cannot be, saying why (OpenCV's own
    warnings about it are silenced: the caller tells what went wrong)."""
    if not device.strip():
        raise ValueError("no camera or video given: a device number such as 0, a /dev/video* "
                         "path or a video file")
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    source: int | str = int(device) if device.isdigit() else device
    with native_stderr():
        cap = cv2.VideoCapture(source)
    opened = cap.isOpened()
    if not opened:
        cap.release()
        what = "camera" if camera_node(device) else "video"
        raise ValueError(f"cannot open {what} {device}: {open_problem(device)}")
    return cap


def _video(path: Path) -> Iterator[tuple[str, np.ndarray]]:
    with native_stderr():
        cap = cv2.VideoCapture(str(path))
        ok, frame = cap.read() if cap.isOpened() else (False, None)
    try:
        if not ok or frame is None:
            raise ValueError(f"cannot open video {path}: not a picture or a video OpenCV can"
                             " decode")
        n = 0
        while ok and frame is not None:
            yield str(n), frame
            n += 1
            ok, frame = cap.read()
    finally:
        cap.release()


def frames_of(source: str | Path) -> tuple[str, Iterator[tuple[str, np.ndarray]]]:
    """(kind, frames) of ``source``: ``photo``, ``folder`` or ``video``; frames are
    (name, BGR picture) pairs.  A clear ValueError for what cannot be read."""
    p = Path(source)
    if p.is_dir():
        photos = sorted(q for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES)
        if not photos:
            raise ValueError(f"no pictures in folder {p} ({', '.join(IMAGE_SUFFIXES)})")
        return "folder", ((q.name, load_image(q)) for q in photos)
    if not p.is_file():
        raise ValueError(f"cannot read {p}: no such file or folder")
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return "photo", iter([(p.name, load_image(p))])
    return "video", _video(p)


def _explain(out: str | None, name: str, image: np.ndarray, reader: CameraReader,
             last: bool) -> None:
    if out is None or ("{}" not in out and not last):
        return
    from calibration.explain import explain_picture

    path = Path(out.replace("{}", Path(name).stem) if "{}" in out else out)
    # Encoded here and written by Python, so a file that cannot be written
    # says why (OpenCV's imwrite answers only False).
    try:
        ok, data = cv2.imencode(path.suffix, explain_picture(image, reader))
    except cv2.error:
        ok = False
    if not ok:
        raise ValueError(f"cannot write {path}: not a picture name OpenCV can encode"
                         " (use .png or .jpg)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.tobytes())
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_explain(out: str) -> None:
    """Refuse an ``--explain`` name no picture can be written to, before
    any frame is read."""
    path = Path(out.replace("{}", "0"))
    if path.is_dir():
        raise ValueError(f"cannot write --explain {out}: is a directory: give the picture "
                         "to write in it (.png or .jpg)")
    if not cv2.haveImageWriter(str(path)):
        raise ValueError(f"cannot write --explain {out}: not a picture name OpenCV can "
                         "encode (use .png or .jpg)")


def read_frames(source: str | Path, profile_path: str | Path,
                explain: str | None = None) -> Iterator[str]:
    """The output lines of ``camera read SOURCE``."""
    profile: CameraProfile = load_profile(profile_path)
    if explain is not None:
        _check_explain(explain)
    kind, frames = frames_of(source)
    if kind == "photo":
        name, image = next(frames)
        reader = read_photo(image, profile, str(source))
        cells = reader.read(image)
        check_board(reader, str(source))
        yield cells
        _explain(explain, name, image, reader, True)
        return
    reader = CameraReader(profile)
    located = 0
    previous: tuple[str, np.ndarray] | None = None
    for name, image in frames:
        check_size(image, profile, f"{source} ({name})")
        if previous is not None:
            _explain(explain, *previous, reader, False)
        cells = reader.read(image)
        if reader.last_markers and reader.last_reading is not None:
            located += 1
        elif not located:  # no marker of the board seen yet in this source: no guess
            cells = "?" * 49
        yield f"{name} {cells}"
        previous = (name, image)
    if previous is not None:
        _explain(explain, *previous, reader, True)
    if not located:
        raise ValueError(f"the board was not located in any frame of {source}: no markers of"
                         " this profile's board in view")
