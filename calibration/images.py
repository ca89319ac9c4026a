"""Pictures from files: a photo read in one clear line whatever is wrong
with it (OpenCV's own warnings kept off the terminal), and whether two
names are one file (a command never writes over what it reads)."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import MAX_PIXELS
from controller.board.words import os_reason

__all__ = ["MAX_PIXELS", "as_bgr", "file_keys", "load_image", "native_stderr", "not_a_file",
           "numbers_only", "picture_size", "same_file", "too_many_pixels", "unfit_to_write",
           "write_file"]


@contextmanager
def native_stderr() -> Iterator[list[str]]:
    """What native code (OpenCV and the decoders under it) writes to file
    descriptor 2 meanwhile, kept off the terminal and handed to the caller
    (one string, after the block), who tells what went wrong in one line."""
    said: list[str] = []
    try:
        saved = os.dup(2)
    except OSError:
        yield said
        return
    with tempfile.TemporaryFile() as catch:
        try:
            os.dup2(catch.fileno(), 2)
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            catch.seek(0)
            said.append(catch.read(4096).decode("utf-8", "replace"))


# What libjpeg says of a file cut short or damaged (it decodes what it has:
# the rest of the picture grey).
_DAMAGED = ("Premature end of JPEG file", "Corrupt JPEG data")
_PICTURES = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n")  # how a JPEG and a PNG file begin


def not_a_file(p: Path) -> str | None:
    """Why ``p`` is no regular file, in words (None: it is one).  A pipe or a
    device is refused before it is opened: opening a pipe waits for a writer."""
    if p.is_file():
        return None
    if p.is_dir():
        return "a folder"
    try:
        mode = p.stat().st_mode
    except (OSError, ValueError):  # no such file, a link to none, a NUL in a name
        return "no such file"
    kind = ("a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device")
    return f"{kind}, not a regular file"


def unfit_to_write(p: Path) -> str | None:
    """Why no file can be written at ``p``, in words (None: a regular file,
    or none yet).  Asked before anything is read: opening a pipe or a
    device to write waits for a reader, or swallows the file."""
    why = not_a_file(p)
    return None if why == "no such file" else why


def write_file(path: Path, data: bytes, name: str = "") -> None:
    """``data`` written to ``path``, its folder made when missing; what
    stops it is a ValueError ``cannot write NAME: why`` on one line (the
    name defaults to the path), in words, not an errno."""
    shown = name or str(path)
    why = unfit_to_write(path)
    if why is not None:
        raise ValueError(f"cannot write {shown}: {why}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except (FileExistsError, NotADirectoryError):  # a file where a folder of the path goes
        raise ValueError(f"cannot write {shown}: a file on its path is not a folder") from None
    except OSError as exc:
        raise ValueError(f"cannot write {shown}: {os_reason(exc)}") from None


def picture_size(data: bytes) -> tuple[int, int] | None:
    """The width and height a PNG or JPEG file's header gives (None for
    other formats, or a header cut short), read before anything is decoded."""
    if data.startswith(_PICTURES[1]) and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if not data.startswith(_PICTURES[0]):
        return None
    i = 2
    while i + 9 <= len(data):  # the segments before the frame header (SOFn)
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return (int.from_bytes(data[i + 7:i + 9], "big"),
                    int.from_bytes(data[i + 5:i + 7], "big"))
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return None


def too_many_pixels(width: int, height: int) -> str | None:
    """Why a picture of ``width`` x ``height`` is not decoded, in words
    (None: it may be)."""
    if width * height <= MAX_PIXELS:
        return None
    return (f"{width}x{height} pixels, more than the {MAX_PIXELS / 1e6:g} million a picture "
            "may have (a camera's are a few million): scale it down")


def load_image(path: str | Path) -> np.ndarray:
    """A picture file as BGR; a clear ValueError when it cannot be read.  Its
    size is taken from its header before it is decoded: a small file can
    hold a picture too large for memory."""
    p = Path(path)
    why = not_a_file(p)
    if why is not None:
        raise ValueError(f"cannot read image {p}: " + (
            "a folder, not a picture" if why == "a folder" else why))
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read image {p}: {os_reason(exc)}") from None
    if not data:
        raise ValueError(f"cannot read image {p}: an empty file")
    size = picture_size(data)
    large = None if size is None else too_many_pixels(*size)
    if large is not None:
        raise ValueError(f"cannot read image {p}: {large}")
    with native_stderr() as said:
        try:
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        except cv2.error as exc:  # OPENCV_IO_MAX_IMAGE_PIXELS (calibration/__init__.py)
            if "MAX_IMAGE_PIXELS" not in str(exc):
                raise ValueError(f"cannot read image {p}: not a picture OpenCV can decode"
                                 ) from None
            raise ValueError(f"cannot read image {p}: more than the {MAX_PIXELS / 1e6:g} "
                             "million pixels a picture may have (a camera's are a few "
                             "million): scale it down") from None
    damaged = next((w for w in _DAMAGED if w in "".join(said)), None)
    if damaged is not None:
        raise ValueError(f"cannot read image {p}: the picture is cut short or damaged "
                         f"(libjpeg: {damaged})")
    if img is None and data.startswith(_PICTURES):
        raise ValueError(f"cannot read image {p}: the picture is cut short or damaged")
    if img is None:
        raise ValueError(f"cannot read image {p}: not a picture OpenCV can decode")
    return img


def numbers_only(d: Any) -> bool:
    """Whether ``d`` (read from a profile's JSON) is a number, not ``true``,
    or lists of them: NumPy takes ``"1"`` and ``true`` for numbers too."""
    todo = [d]
    while todo:  # no recursion: lists nested as deep as JSON allows
        x = todo.pop()
        if isinstance(x, list):
            todo.extend(x)
        elif not isinstance(x, int | float) or isinstance(x, bool):
            return False
    return True


def as_bgr(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ValueError("image must be a uint8 numpy array")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("image must be grey or 3-channel BGR")
    return image


def file_keys(path: str | Path) -> tuple[Path, tuple[int, int] | None]:
    """What names ``path``'s file: its path once ``.``, ``..`` and symbolic
    links are resolved (as written, made absolute, where they loop), and
    its file on disk (device, inode; None if there is none), which a hard
    link shares."""
    p = Path(path)
    try:
        resolved = p.resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links
        resolved = p.absolute()
    try:
        st = p.stat()
    except (OSError, ValueError):  # no such file, a NUL in a name
        return resolved, None
    return resolved, (st.st_dev, st.st_ino)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether ``a`` and ``b`` name one file (:func:`file_keys`): the same
    resolved path, or the same file on disk."""
    (path_a, disk_a), (path_b, disk_b) = file_keys(a), file_keys(b)
    return path_a == path_b or (disk_a is not None and disk_a == disk_b)
