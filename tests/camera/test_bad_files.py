"""What the camera commands are given that is no picture, video or profile
they can read: a picture too large for memory in a small file, a video cut
short, a folder, a device or a pipe.  Each gets one line and exit status 2,
before it is decoded (or, a pipe, opened)."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest
from photo_folder import GAME, LAYOUT, photo_folder

import calibration.images
from calibration.live import FrameGrabber, LiveCalibration
from controller.cli import main
from controller.drivers.camera import CameraStream, video_frames

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """empty.png, layout.png, profile.json, game.png and a video of ten
    pictures of the game, game.avi, in one folder."""
    d = photo_folder(tmp_path_factory.mktemp("bad"))
    w = cv2.VideoWriter(str(d / "game.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for _ in range(10):
        w.write(cv2.imread(str(d / "game.png")))
    w.release()
    return d


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _blank_png(path: Path, width: int, height: int) -> Path:
    """A black PNG of ``width`` x ``height`` written row by row (never held
    whole): a few hundred kilobytes for tens of millions of pixels."""
    z = zlib.compressobj(9)
    row = bytes(width + 1)  # filter byte, then grey pixels
    body = b"".join(z.compress(row) for _ in range(height)) + z.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                     + _chunk(b"IDAT", body) + _chunk(b"IEND", b""))
    return path


def _refused(capfd: pytest.CaptureFixture[str], argv: list[str]) -> tuple[str, str]:
    """(standard output, the one line on standard error) of a refusal."""
    assert main(argv) == 2
    out, err = capfd.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return out, err.removeprefix("kharbga-board: ").rstrip("\n")


def test_a_picture_is_sized_from_its_header() -> None:
    from calibration.images import picture_size

    img = np.zeros((20, 30, 3), np.uint8)
    for ext in (".png", ".jpg"):
        assert picture_size(cv2.imencode(ext, img)[1].tobytes()) == (30, 20), ext
    assert picture_size(cv2.imencode(".bmp", img)[1].tobytes()) is None
    assert picture_size(b"\xff\xd8\xff") is None  # a JPEG cut short in its header


def test_a_picture_too_large_is_refused_before_it_is_decoded(
        made: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: decoded whole (a 15000x15000 PNG of 219 KB took 1.4 GB), then
    # refused as a picture of another size than the profile's; with
    # calibrate camera, more than 2 GB and OpenCV's "Insufficient memory".
    bomb = _blank_png(tmp_path / "bomb.png", 7500, 7500)
    words = (f"cannot read image {bomb}: 7500x7500 pixels, more than the 50 million a "
             "picture may have (a camera's are a few million): scale it down")
    assert _refused(capfd, ["camera", "read", str(bomb), "--profile",
                            str(made / "profile.json")]) == ("", words)

    def decoded(*args: object) -> None:
        raise AssertionError("decoded")

    monkeypatch.setattr(cv2, "imdecode", decoded)
    assert _refused(capfd, ["calibrate", "camera", "--empty", str(bomb), "--layout",
                            str(made / "layout.png"), "--cells", LAYOUT, "--out",
                            str(tmp_path / "p.json")]) == ("", words)
    assert not (tmp_path / "p.json").exists()


def test_opencv_refuses_a_large_picture_of_another_format(tmp_path: Path) -> None:
    # What is not a PNG or a JPEG is refused by OpenCV from its header
    # (OPENCV_IO_MAX_IMAGE_PIXELS, set when calibration is imported).
    # Before: decoded (a TIFF of 1 MB, 52 million pixels).
    big = tmp_path / "big.tiff"
    assert cv2.imwrite(str(big), np.zeros((7250, 7250), np.uint8))
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_IO_MAX_IMAGE_PIXELS"}
    proc = subprocess.run([sys.executable, "-m", "controller", "calibrate", "camera", "--empty",
                           str(big), "--layout", str(big), "--cells", LAYOUT, "--out",
                           str(tmp_path / "p.json")], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"kharbga-board: cannot read image {big}: more than the 50 million "
                           "pixels a picture may have (a camera's are a few million): scale "
                           "it down\n")


def test_a_video_of_pictures_too_large_is_refused_before_one_is_decoded(
        made: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: every picture decoded, however large (no limit on a video's).
    monkeypatch.setattr(calibration.images, "MAX_PIXELS", 500_000)
    video, profile = made / "game.avi", str(made / "profile.json")
    words = (f"cannot open video {video}: its pictures are 1280x720 pixels, more than the 0.5 "
             "million a picture may have (a camera's are a few million): scale it down")
    assert _refused(capfd, ["camera", "read", str(video), "--profile", profile]) == ("", words)
    with pytest.raises(ValueError) as err:  # the run service's camera board
        CameraStream(str(video), profile)
    assert str(err.value) == words


def test_a_photo_too_large_given_as_a_video_is_refused_from_its_header(
        made: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Before: OpenCV opened it with no size (FFmpeg will not decode 20000x20000),
    # so it passed the size check: doctor printed FFmpeg's "Picture size
    # 20000x20000 is invalid" lines, then "opened but gave no picture"; run
    # --board camera: started and calibrate camera --live served its page,
    # opening it again and again with FFmpeg's lines on the terminal.
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 20000, 20000, 3) + bytes(9)
    photo = tmp_path / "huge.jpg"
    photo.write_bytes(b"\xff\xd8" + sof + b"\xff\xd9")
    words = (f"cannot open video {photo}: its pictures are 20000x20000 pixels, more than the "
             "50 million a picture may have (a camera's are a few million): scale it down")
    assert _refused(capfd, ["doctor", "--camera", str(photo)]) == ("", words)
    with pytest.raises(ValueError) as err:  # the run service's camera board
        CameraStream(str(photo), str(made / "profile.json"))
    assert str(err.value) == words
    with pytest.raises(ValueError) as err:  # calibrate camera --live
        FrameGrabber(LiveCalibration(tmp_path / "p.json"), str(photo))
    assert str(err.value) == words
    assert "Picture size" not in capfd.readouterr().err


def test_a_video_cut_short_says_so_after_its_pictures(
        made: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Before: the pictures it had read, exit status 0, and ffmpeg's
    # "[mjpeg @ 0x...] overread 6" on the terminal.
    data = (made / "game.avi").read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[:len(data) // 2])
    out, err = _refused(capfd, ["camera", "read", str(cut), "--profile",
                                str(made / "profile.json")])
    lines = out.splitlines()
    assert 3 <= len(lines) < 10
    assert all(ln == f"{k} {GAME}" for k, ln in enumerate(lines)), lines
    assert re.fullmatch(rf"the video {re.escape(str(cut))} ends after {len(lines)} of the 10 "
                        r"pictures its header gives: cut short or damaged( \(mjpeg: [^()]+\))?",
                        err), err
    frames = video_frames(str(cut), made / "profile.json")
    with pytest.raises(ValueError, match=r" ends after \d of the 10 pictures its header"):
        for _ in frames:
            pass
    assert "mjpeg @" not in capfd.readouterr().err


def test_the_whole_video_ends_without_a_word(made: Path,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["camera", "read", str(made / "game.avi"), "--profile",
                 str(made / "profile.json")]) == 0
    out, err = capfd.readouterr()
    assert out.splitlines() == [f"{k} {GAME}" for k in range(10)] and err == ""


def test_a_grey_picture_read_with_a_colour_profile_is_refused_in_words(
        made: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Before: most squares read '?' (none wrong), exit status 0, and no word why.
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), cv2.cvtColor(cv2.imread(str(made / "game.png")), cv2.COLOR_BGR2GRAY))
    out, err = _refused(capfd, ["camera", "read", str(grey), "--profile",
                                str(made / "profile.json")])
    assert out == "" and err == (
        f"{grey} is grey (no colour), and the profile was calibrated from colour photos, "
        "which tell the pieces apart by their colour: give a colour picture, or calibrate "
        "again from this camera's pictures")
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "1.png").write_bytes((made / "game.png").read_bytes())
    (folder / "2.png").write_bytes(grey.read_bytes())
    out, err = _refused(capfd, ["camera", "read", str(folder), "--profile",
                                str(made / "profile.json")])
    assert out.splitlines() == [f"1.png {GAME}"] and err.startswith(f"{folder} (2.png) is grey")


def test_a_grey_video_read_with_a_colour_profile_is_refused_in_words(
        made: Path, tmp_path: Path) -> None:
    # A webcam set to black and white films MJPEG whose channels decode a
    # unit or two apart: still grey.  Before: its frames were read for pieces.
    picture = cv2.imread(str(made / "game.png"))
    grey = cv2.cvtColor(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    video = tmp_path / "grey.avi"
    h, w = picture.shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (w, h))
    for _ in range(3):
        writer.write(grey)
    writer.release()
    capture = cv2.VideoCapture(str(video))
    ok, first = capture.read()
    capture.release()
    assert ok
    assert (first.max(axis=2).astype(int) - first.min(axis=2)).max() > 0  # not exactly alike
    with pytest.raises(ValueError, match=rf"^the video {re.escape(str(video))} is grey \(no "
                       r"colour\), and the profile was calibrated from colour photos"):
        list(video_frames(str(video), made / "profile.json"))


@pytest.fixture
def pipe(tmp_path: Path) -> Path:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize(("given", "words"), [
    # Before: "no such file" for each, though it is there.
    ("folder", "a folder, not a picture"),
    ("/dev/null", "a device, not a regular file"),
    ("pipe", "a pipe, not a regular file"),
])
def test_what_is_no_picture_is_said_for_what_it_is(
        made: Path, tmp_path: Path, pipe: Path, capfd: pytest.CaptureFixture[str],
        given: str, words: str) -> None:
    path = {"folder": str(tmp_path), "pipe": str(pipe)}.get(given, given)
    assert _refused(capfd, ["calibrate", "camera", "--empty", path, "--layout",
                            str(made / "layout.png"), "--cells", LAYOUT, "--out",
                            str(tmp_path / "p.json")]) == ("", f"cannot read image {path}: {words}")
    if given != "folder":  # camera read reads a folder's pictures
        # Before: "no such file or folder".
        assert _refused(capfd, ["camera", "read", path, "--profile",
                                str(made / "profile.json")]) == ("", f"cannot read {path}: {words}")


def test_a_pipe_given_as_the_profile_is_refused_before_it_is_opened(
        made: Path, pipe: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Before: opened, which waits for a writer for ever (here the writer
    # sends "x": "is not valid JSON").
    def write() -> None:
        try:
            pipe.write_bytes(b"x")
        except BrokenPipeError:  # let go below, with no reader
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        assert _refused(capfd, ["camera", "read", str(made / "game.png"), "--profile",
                                str(pipe)]) == ("", f"camera profile {pipe}: a pipe, not a "
                                                    "regular file")
    finally:
        os.close(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK))  # the writer let go
        writer.join(5)


@contextmanager
def _drained(fifo: Path) -> Iterator[None]:
    """A reader on the pipe ``fifo`` meanwhile, draining what is written to
    it: a command that opens it to write goes on (rather than waiting)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    stop = threading.Event()

    def drain() -> None:
        while not stop.is_set():
            try:
                os.read(fd, 1 << 16)
            except BlockingIOError:
                stop.wait(0.01)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield
    finally:
        stop.set()
        reader.join(5)
        os.close(fd)


def test_a_pipe_given_to_write_to_is_refused_before_it_is_opened(
        made: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Before: opened to write, which waits for a reader for ever (here a
    # reader drains it: the profile and the sheet written into the pipe,
    # exit status 0).
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    with _drained(fifo):
        assert _refused(capfd, ["calibrate", "camera", "--empty", str(made / "empty.png"),
                                "--layout", str(made / "layout.png"), "--cells", LAYOUT,
                                "--out", str(fifo)]) == (
            "", f"cannot write camera profile {fifo}: a pipe, not a regular file")
        assert _refused(capfd, ["calibrate", "markers", "--out", str(fifo)]) == (
            "", f"{fifo}: a pipe, not a regular file")
        assert _refused(capfd, ["calibrate", "camera", "--empty", str(made / "empty.png"),
                                "--layout", str(made / "layout.png"), "--cells", LAYOUT,
                                "--out", str(tmp_path)]) == (
            "", f"cannot write camera profile {tmp_path}: a folder: give the file to write in it")
    assert sorted(tmp_path.iterdir()) == [fifo]


def test_a_pipe_given_as_the_overlay_is_refused_before_it_is_opened(
        made: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # Before: opened to write the overlay, which waits for a reader for ever
    # (here a reader drains it: the overlay written into the pipe, exit status 0).
    fifo, fifo0 = tmp_path / "x.png", tmp_path / "x0.png"
    os.mkfifo(fifo)
    os.mkfifo(fifo0)
    profile = str(made / "profile.json")
    with _drained(fifo), _drained(fifo0):
        assert _refused(capfd, ["camera", "read", str(made / "game.png"), "--profile", profile,
                                "--explain", str(fifo)]) == (
            "", f"cannot write --explain {fifo}: a pipe, not a regular file")
        # one a frame: each overlay's name is known as its frame is read
        assert _refused(capfd, ["camera", "read", str(made / "game.avi"), "--profile", profile,
                                "--explain", str(tmp_path / "x{}.png")]) == (
            f"0 {GAME}\n", f"cannot write {fifo0}: a pipe, not a regular file")


def test_names_that_are_not_utf8_are_no_crash(made: Path, tmp_path: Path) -> None:
    # Before: a segmentation fault (exit status -11, nothing said): OpenCV's
    # Python binding crashes on a string that is not UTF-8, as a file name
    # with such bytes is (a video opened, an overlay's name checked).
    video = os.fsencode(tmp_path) + b"/v\xff.avi"
    Path(os.fsdecode(video)).write_bytes((made / "game.avi").read_bytes())
    profile = str(made / "profile.json")

    def run(*argv: str | bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "controller", *argv],
                              capture_output=True, cwd=ROOT, timeout=120)

    proc = run("camera", "read", video, "--profile", profile)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr == (b"kharbga-board: cannot open video " + os.fsencode(tmp_path)
                           + b"/v\\udcff.avi: its name is not UTF-8, which OpenCV cannot "
                           b"open: rename it\n")
    proc = run("calibrate", "camera", "--live", video, "--out", str(tmp_path / "p.json"))
    assert proc.returncode == 2 and proc.stderr.count(b"\n") == 1, proc.stderr
    overlay = os.fsencode(tmp_path) + b"/x\xff.png"
    proc = run("camera", "read", str(made / "game.png"), "--profile", profile,
               "--explain", overlay)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{GAME}\n".encode(), b"")
    assert os.path.isfile(overlay)
    proc = run("camera", "read", str(made / "game.png"), "--profile", profile,
               "--explain", os.fsencode(tmp_path) + b"/x.pn\xff")
    assert proc.returncode == 2 and proc.stderr.endswith(
        b": not a picture name OpenCV can encode (use .png or .jpg)\n"), proc.stderr
