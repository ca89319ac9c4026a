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
import re
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import (
    CameraProfile,
    CameraReader,
    check_board,
    check_size,
    load_profile,
    read_photo,
)
from calibration.images import (
    file_keys,
    load_image,
    native_stderr,
    not_a_file,
    picture_size,
    same_file,
    too_many_pixels,
    unfit_to_write,
    write_file,
)

__all__ = ["GREY_WORDS", "IMAGE_SUFFIXES", "camera_node", "check_colour", "frames_of",
           "frames_short", "in_colour", "is_grey", "is_video_file", "open_capture", "open_problem",
           "read_frames"]

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


class TooLarge(ValueError):
    """A video whose pictures are too large to decode (:func:`open_capture`)."""


class NotUtf8(ValueError):
    """A camera or video whose name OpenCV cannot be given (:func:`open_capture`)."""


def open_capture(device: str) -> cv2.VideoCapture:
    """A camera (its number or device node) or a video file, opened; a
    ValueError in one line if it cannot be, saying why (OpenCV's own
    warnings about it are silenced: the caller tells what went wrong)."""
    if not device.strip():
        raise ValueError("no camera or video given: a device number such as 0, a /dev/video* "
                         "path or a video file")
    what = "camera" if camera_node(device) else "video"
    if not _utf8(device):  # OpenCV's Python binding crashes on such a name
        raise NotUtf8(f"cannot open {what} {device}: its name is not UTF-8, which OpenCV "
                      "cannot open: rename it")
    if what == "video" and Path(device).exists() and not Path(device).is_dir() \
            and not Path(device).is_file():  # a pipe: opening it waits for a writer
        raise ValueError(f"cannot open video {device}: {not_a_file(Path(device))}")
    if what == "video":  # a photo given as a video: FFmpeg gives 0x0 for one it will not decode
        try:
            with open(device, "rb") as f:
                size = picture_size(f.read(1 << 16))
        except OSError:
            size = None
        large = None if size is None else too_many_pixels(*size)
        if large is not None:
            raise TooLarge(f"cannot open video {device}: its pictures are {large}")
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    source: int | str = int(device) if device.isdigit() else device
    with native_stderr():
        cap = cv2.VideoCapture(source)
    opened = cap.isOpened()
    if not opened:
        cap.release()
        raise ValueError(f"cannot open {what} {device}: {open_problem(device)}")
    width, height = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    if what == "video" and width * height == 0:  # pictures its decoder refuses (too large)
        cap.release()
        raise ValueError(f"cannot open video {device}: {open_problem(device)}")
    large = too_many_pixels(width, height)
    if large is not None:  # said before a picture is decoded
        cap.release()
        raise TooLarge(f"cannot open {what} {device}: its pictures are {large}")
    return cap


def _utf8(text: str) -> bool:
    """Whether ``text`` (a file name, with undecodable bytes as surrogates)
    is UTF-8: OpenCV's Python binding crashes (a segmentation fault) on a
    string that is not."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def frames_short(cap: cv2.VideoCapture, read: int, said: str) -> str | None:
    """Why a video file that gave ``read`` pictures before its end was cut
    short, in words (None: it ended where its header says), with the last
    words its decoder wrote (``said``)."""
    count = int(max(0.0, cap.get(cv2.CAP_PROP_FRAME_COUNT)))
    if read >= count:
        return None
    words = said.strip().splitlines()[-1:]
    decoder = re.sub(r"^\[(\w+) @ 0x[0-9a-f]+\] ", r"\1: ", words[0]) if words else ""
    return (f"ends after {read} of the {count} pictures its header gives: cut short or "
            f"damaged{f' ({decoder})' if decoder else ''}")


def _video(path: Path) -> Iterator[tuple[str, np.ndarray]]:
    """The pictures of a video file; a ValueError after the last one it
    could decode when it ends before its header says (the decoder's own
    warnings kept off the terminal, as a photo's)."""
    try:
        cap = open_capture(str(path))
    except (TooLarge, NotUtf8):
        raise
    except ValueError:
        raise ValueError(f"cannot open video {path}: not a picture or a video OpenCV can"
                         " decode") from None
    try:
        n, last = 0, ""  # the decoder's last words
        while True:
            with native_stderr() as said:
                ok, frame = cap.read()
            last = "".join(said).strip() or last
            if not ok or frame is None:
                break
            yield str(n), frame
            n += 1
        if n == 0:
            raise ValueError(f"cannot open video {path}: not a picture or a video OpenCV can"
                             " decode")
        short = frames_short(cap, n, last)
        if short is not None:
            raise ValueError(f"the video {path} {short}")
    finally:
        cap.release()


def _inputs(source: str | Path) -> tuple[str, list[Path]]:
    """(kind, files) of ``source``: ``photo``, ``folder`` (its pictures in
    name order) or ``video``.  A clear ValueError for what cannot be read."""
    p = Path(source)
    if p.is_dir():
        photos = sorted(q for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES)
        if not photos:
            raise ValueError(f"no pictures in folder {p} ({', '.join(IMAGE_SUFFIXES)})")
        return "folder", photos
    why = not_a_file(p)
    if why is not None:
        raise ValueError(f"cannot read {p}: " + ("no such file or folder"
                                                  if why == "no such file" else why))
    return ("photo" if p.suffix.lower() in IMAGE_SUFFIXES else "video"), [p]


def frames_of(source: str | Path) -> tuple[str, Iterator[tuple[str, np.ndarray]]]:
    """(kind, frames) of ``source``: ``photo``, ``folder`` or ``video``; frames are
    (name, BGR picture) pairs.  A clear ValueError for what cannot be read."""
    kind, files = _inputs(source)
    return kind, _frames(kind, files)


def _frames(kind: str, files: list[Path]) -> Iterator[tuple[str, np.ndarray]]:
    """The frames of :func:`_inputs`' files, read as they are asked for."""
    if kind == "folder":
        return ((q.name, load_image(q)) for q in files)
    if kind == "photo":
        return iter([(files[0].name, load_image(files[0]))])
    return _video(files[0])


def _explain_path(out: str, name: str) -> Path:
    """Where ``--explain out`` writes the overlay of the frame ``name``."""
    return Path(out.replace("{}", Path(name).stem) if "{}" in out else out)


def _explain(out: str | None, name: str, image: np.ndarray, reader: CameraReader,
             last: bool) -> None:
    if out is None or ("{}" not in out and not last):
        return
    from calibration.explain import explain_picture

    path = _explain_path(out, name)
    # Encoded here and written by Python, so a file that cannot be written
    # says why (OpenCV's imwrite answers only False).
    try:  # a suffix that is not UTF-8 crashes OpenCV: refused as one it cannot encode
        ok, data = cv2.imencode(path.suffix if _utf8(path.suffix) else ".?",
                                explain_picture(image, reader))
    except cv2.error:
        ok = False
    if not ok:
        raise ValueError(f"cannot write {path}: not a picture name OpenCV can encode"
                         " (use .png or .jpg)")
    write_file(path, data.tobytes())


def _check_explain(out: str) -> None:
    """Refuse an ``--explain`` name no picture can be written to, before
    any frame is read."""
    path = Path(out.replace("{}", "0"))
    if path.is_dir():
        raise ValueError(f"cannot write --explain {out}: is a directory: give the picture "
                         "to write in it (.png or .jpg)")
    why = None if "{}" in out else unfit_to_write(path)  # each frame's is checked as written
    if why is not None:  # a pipe would hang
        raise ValueError(f"cannot write --explain {out}: {why}")
    if not _utf8(path.suffix) or not cv2.haveImageWriter("x" + path.suffix):
        raise ValueError(f"cannot write --explain {out}: not a picture name OpenCV can "
                         "encode (use .png or .jpg)")


def _check_overlays(out: str, source: str | Path, kind: str, files: list[Path],
                    profile_path: str | Path) -> None:
    """Refuse, before any frame is read, an ``--explain`` that would write
    into the folder being read (the next read of it would take the overlays
    for photos), over a file being read (by its path, a symbolic link or a
    hard link), or the overlays of two photos to one file."""
    if kind == "video":  # frames are named 0, 1, 2, ...: only a video named so is at risk
        digits = re.escape(Path(out).name).replace(re.escape("{}"), "[0-9]+")
        at_risk = "{}" not in out or re.fullmatch(digits, files[0].name)
        written = [(Path(out).parent / files[0].name if "{}" in out else Path(out),
                    files[0])] if at_risk else []
    else:
        written = [(_explain_path(out, q.name), q) for q in files]
    if kind == "folder":
        for parent in {path.parent for path, _ in written}:
            if same_file(parent, source):
                raise ValueError(f"cannot write --explain {out}: it writes into the folder "
                                 f"being read ({source}), where the next read would take the "
                                 "overlays for photos: write them in another folder")
    what = {"video": "the video being read", "photo": "the picture being read"}.get(
        kind, "a picture being read")
    read: dict[Path | tuple[int, int], tuple[Path, str]] = {}
    for q, words in [(q, what) for q in files] + [(Path(profile_path), "the profile")]:
        for key in file_keys(q):
            if key is not None:
                read[key] = (q, words)
    seen: dict[Path, Path] = {}
    for path, q in written:
        resolved, disk = file_keys(path)
        for key in (resolved, disk):
            if key in read:
                other, words = read[key]
                raise ValueError(f"cannot write --explain {out}: it would write over {other}, "
                                 f"{words}: give the overlay another name")
        if "{}" in out and resolved in seen:
            raise ValueError(f"cannot write --explain {out}: the overlays of {seen[resolved]} "
                             f"and {q} would both be {path} ({{}} is a photo's name without "
                             "its extension): rename one of them")
        seen[resolved] = q


GREY_WORDS = ("the profile was calibrated from colour photos, which tell the pieces apart by "
              "their colour")


GREY_SPREAD = 4  # a pixel's channels this far apart (0-255), on average, at most: no colour
GREY_MOST = 8  # and 99 pixels in 100 no further apart than this


def is_grey(image: np.ndarray) -> bool:
    """A picture with no colour: its three channels alike (a grey-scale
    file, or a camera set to black and white).  A webcam's grey pictures
    come as MJPEG and decode with their channels a unit or two apart;
    colour pictures of the board, even at a third of a room's usual light,
    have them a dozen apart on average."""
    few = image[::4, ::4].astype(np.int16)
    spread = few.max(axis=2) - few.min(axis=2)
    return bool(spread.mean() < GREY_SPREAD and np.percentile(spread, 99) <= GREY_MOST)


def in_colour(profile: CameraProfile) -> bool:
    """Whether ``profile`` was calibrated from colour photos (its empty
    board in colour): such a profile reads nothing from grey pictures."""
    return not is_grey(profile.empty_top)


def check_colour(image: np.ndarray, colour_profile: bool, name: str,
                 what: str = "picture") -> None:
    """Refuse a grey picture of the board (its markers found: a blank
    frame is no news) read with a profile calibrated from colour photos
    (``colour_profile``; before: most squares read ``?``, exit status 0);
    ``what`` the picture is, in the words (a picture, a video)."""
    if colour_profile and is_grey(image):
        raise ValueError(f"{name} is grey (no colour), and {GREY_WORDS}: give a colour "
                         f"{what}, or calibrate again from this camera's pictures")


def read_frames(source: str | Path, profile_path: str | Path,
                explain: str | None = None) -> Iterator[str]:
    """The output lines of ``camera read SOURCE``."""
    profile: CameraProfile = load_profile(profile_path)
    colour_profile = in_colour(profile)  # once, not at every frame
    if explain is not None:
        _check_explain(explain)
    kind, files = _inputs(source)  # listed once: the overlays checked are the frames read
    if explain is not None:
        _check_overlays(explain, source, kind, files, profile_path)
    frames = _frames(kind, files)
    if kind == "photo":
        name, image = next(frames)
        reader = read_photo(image, profile, str(source))
        check_colour(image, colour_profile, str(source))
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
            # the board seen, not a blank frame
            check_colour(image, colour_profile, f"{source} ({name})")
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
