"""A live camera (a device number or node, not a video file) that stops
giving pictures: the stream says so in words, opens it again until it
answers, and reads the board once pictures come back. The capture is the
seam: OpenCV's capture of a rendered video, cut where the cable is pulled."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_video import CAM, _calibrated

import controller.drivers.camera as camera
from calibration.frames import is_video_file
from calibration.render import Camera, Lighting, Scene, render
from controller.board.events import Frame
from controller.service.config import Config
from controller.service.hardware import CameraBackend

pytestmark = pytest.mark.timeout(60)

A3 = "." * 14 + "a" + "." * 34  # a piece on a3


def _picture(cells: str = A3, seed: int = 3, view: Camera = CAM,
             shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The board with ``cells`` as the camera ``view`` sees it, well lit."""
    return render(Scene(cells, "white-black", view, Lighting(level=0.95), seed=seed,
                        shift=shift)).image


def _video(path: Path, cells: str, n: int) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for i in range(n):
        writer.write(_picture(cells, seed=i))
    writer.release()
    return path


def _wait(until: Callable[[], object], seconds: float = 20) -> None:
    """Until ``until()`` is true, or ``seconds`` have gone."""
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        time.sleep(0.02)


def _reads_a3(stream: camera.CameraStream) -> None:
    """Wait until ``stream`` reads the piece on a3, and check that it does."""
    _wait(lambda: stream.last is not None and stream.last[1][14] == "a")
    assert stream.last is not None and stream.last[1][14] == "a"


@contextmanager
def _running(stream: camera.CameraStream) -> Iterator[camera.CameraStream]:
    """``stream`` started and reading a3 with nothing to say; closed after."""
    stream.start()
    try:
        _reads_a3(stream)
        assert stream.problem() is None
        yield stream
    finally:
        stream.close()


class Capture:
    """What the fake captures below share: always open, of one size."""

    def get(self, prop: int) -> float:
        return 0.0

    def set(self, prop: int, value: float) -> bool:
        return False  # no size but its own

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def release(self) -> None:
        return None


class Unplugged(Capture):
    """A capture that gives no picture (a camera whose cable was pulled)."""

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(0.01)
        return False, None


def _stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capture: Capture) -> camera.CameraStream:
    """A calibrated stream of /dev/video0, not started, whose capture is ``capture``."""
    profile = _calibrated(tmp_path)
    monkeypatch.setattr(camera, "open_capture", lambda device: capture)
    return camera.CameraStream("/dev/video0", profile)


def test_a_device_node_is_a_camera_and_a_regular_file_a_video(tmp_path: Path) -> None:
    video = _video(tmp_path / "v.avi", "." * 49, 1)
    assert is_video_file(str(video))
    assert not is_video_file("0") and not is_video_file("/dev/video0")
    assert not is_video_file("/dev/v4l/by-id/usb-cam-video-index0")
    assert not is_video_file("/dev/null")  # a device node, never a video


def test_a_camera_that_stops_giving_pictures_is_said_and_opened_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = _calibrated(tmp_path)
    empty = _video(tmp_path / "empty.avi", "." * 49, 5)
    placed = _video(tmp_path / "placed.avi", A3, 60)
    opened: list[str] = []
    # The camera's node: the first capture shows the empty board, then the
    # cable is pulled (no picture, and none from opening it again, twice);
    # then it is back, with a piece on a3.
    captures = iter([cv2.VideoCapture(str(empty)), Unplugged(), Unplugged(),
                     cv2.VideoCapture(str(placed))])

    def open_capture(device: str) -> object:
        opened.append(device)
        return next(captures)

    monkeypatch.setattr(camera, "open_capture", open_capture)
    monkeypatch.setattr(camera, "REOPEN_AFTER", 0.3)
    stream = camera.CameraStream("/dev/video0", profile)
    assert not stream.is_file and stream.problem() is None
    stream.start()
    try:
        deadline = time.monotonic() + 20
        problems = set()
        seen: list[str] = []
        while time.monotonic() < deadline:
            problems.add(stream.problem())
            frame = stream.events.get(timeout=0.05) if not stream.events.empty() else None
            if isinstance(frame, Frame):
                seen.append("a" if frame.occupied >> 14 & 1 else ".")
                if seen[-1] == "a" and stream.problem() is None:
                    break
            time.sleep(0.01)
        said = [p for p in problems if p]
        assert said and all(p.startswith("the camera /dev/video0 gives no picture since ")
                            for p in said)
        assert opened == ["/dev/video0"] * 4  # opened again until it answered
        assert seen[0] == "." and seen[-1] == "a" and stream.problem() is None
    finally:
        stream.close()


def test_the_camera_board_refuses_a_game_on_another_board(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as err:
        CameraBackend("0", Config(variant="sabouiyya", camera_profile=str(tmp_path / "p.json")))
    assert str(err.value) == ("the camera board reads the 7x7 board, but variant sabouiyya is "
                              "played on the 5x5 board")


class Showing(Capture):
    """A capture that gives the same picture every time (a camera at rest)."""

    def __init__(self, picture: np.ndarray) -> None:
        self.picture = picture

    def read(self) -> tuple[bool, np.ndarray]:
        time.sleep(0.01)
        return True, self.picture


def _blinded(picture: np.ndarray, how: str) -> np.ndarray:
    """The camera's picture when it cannot see the board: the light off or
    the lens covered, the camera knocked to look beside the board, a cloth
    over the whole board (its markers still in view), the board moved a
    square against its markers (its a3 soldier where b3 was), or a third of
    one (most squares then read '?')."""
    if how == "dark":
        return np.full_like(picture, 4)
    if how == "moved":  # the board nudged a square against its markers' sheet
        return _picture(shift=(1.0, 0.0))
    if how == "nudged":  # by a third of a square towards rank 1
        return _picture(shift=(0.0, -0.33))
    if how == "turned away":
        away = Camera(CAM.angle, CAM.scale, CAM.tilt, CAM.cx + 2000, CAM.cy)
        return _picture("." * 49, view=away)
    covered = picture.copy()
    corners = cv2.perspectiveTransform(
        np.array([[[-0.2, -0.2]], [[7.2, -0.2]], [[7.2, 7.2]], [[-0.2, 7.2]]]),
        CAM.homography())
    cv2.fillConvexPoly(covered, corners.reshape(-1, 2).astype(np.int32), (60, 60, 140))
    return covered


@pytest.mark.parametrize(("how", "words"), [
    ("dark", "sees only darkness"),
    ("turned away", "sees none of the board's markers"),
    ("covered", "does not see the board's lines"),
    ("moved", "sees the board moved against its markers"),
    ("nudged", "reads most squares as unknown"),
])
def test_a_camera_that_cannot_see_the_board_says_so_and_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, words: str
) -> None:
    # Before, the stream said nothing (its pictures came): the page's only
    # words were "a1, b1, c1 and 46 more not seen clearly (a hand, a
    # reflection ...)" for a camera looking at the wall.
    board = _picture()
    capture = Showing(board)
    monkeypatch.setattr(camera, "BLIND_AFTER", 0.3)
    monkeypatch.setattr(camera, "UNCLEAR_AFTER", 0.3)
    with _running(_stream(tmp_path, monkeypatch, capture)) as stream:
        capture.picture = _blinded(board, how)
        _wait(lambda: stream.problem() is not None)
        problem = stream.problem()
        assert problem is not None and problem.startswith(f"the camera /dev/video0 {words} "
                                                          "since ")
        if how == "nudged":  # which way, and what to do
            assert problem.endswith("(the board seems to have moved a little against its "
                                    "markers, towards rank 1 or rank 7: the lines between its "
                                    "ranks are not where they were at calibration; put it back "
                                    "where it was at calibration, or calibrate it again)")
        frames = []
        while not stream.events.empty():
            frames.append(stream.events.get())
        for f in frames:  # nothing guessed: every square read is as it stands
            assert all(c in ("?", want) for c, want in zip(f.text(49), A3, strict=True))
        capture.picture = board
        _wait(lambda: stream.problem() is None)
        assert stream.problem() is None


@pytest.mark.parametrize("decoded", [0, 2])
def test_a_camera_set_to_black_and_white_is_said_and_read_as_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
    decoded: int
) -> None:
    # Before, the page said "the squares do not look as they did at
    # calibration: the light changed a lot ..." for a camera set to black
    # and white, and its grey pictures were read for pieces.
    caplog.set_level(logging.INFO, logger="controller.drivers.camera")
    board = _picture()
    capture = Showing(board)
    monkeypatch.setattr(camera, "GREY_AFTER", 0.2)
    with _running(_stream(tmp_path, monkeypatch, capture)) as stream:
        grey = cv2.cvtColor(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        # a webcam's grey MJPEG decodes with its channels a unit or two apart
        grey[..., 2] = np.clip(grey[..., 2].astype(np.int16) + decoded, 0, 255)
        capture.picture = grey
        _wait(lambda: stream.problem() is not None)
        problem = stream.problem()
        assert problem is not None and problem.startswith(
            "the camera /dev/video0 gives grey pictures (no colour) since ")
        assert problem.endswith(", and the profile was calibrated from colour photos, which "
                                "tell the pieces apart by their colour: set the camera to "
                                "colour, or calibrate again from its pictures")
        while not stream.events.empty():
            stream.events.get()
        _wait(lambda: not stream.events.empty(), 3)  # the heartbeat: nothing read
        assert stream.events.get().text(49) == "?" * 49
        capture.picture = board
        _wait(lambda: stream.problem() is None)
        assert stream.problem() is None
        _reads_a3(stream)
    said = [r.getMessage() for r in caplog.records if "colour" in r.getMessage()]
    assert said[0].startswith("camera /dev/video0: grey pictures (no colour), and the profile")
    assert said[-1] == "camera /dev/video0: pictures in colour again"


def test_a_camera_missing_at_start_is_said_and_read_once_it_is_plugged_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the service refused to start ("cannot open camera or video
    # '/dev/video7'"): a Pi that booted before its camera was plugged in
    # showed no page at all.  Now the page says why and the camera is
    # opened again until it answers, as after an unplugging.
    profile = _calibrated(tmp_path)
    missing = "/dev/video-kharbga-test"  # a camera node that is not there (yet)
    video = _video(tmp_path / "a3.avi", A3, 40)
    plugged = threading.Event()
    real_open = camera.open_capture

    def open_capture(device: str) -> object:
        return cv2.VideoCapture(str(video)) if plugged.is_set() else real_open(device)

    monkeypatch.setattr(camera, "open_capture", open_capture)
    monkeypatch.setattr(camera, "REOPEN_AFTER", 0.3)
    stream = camera.CameraStream(missing, profile)
    problem = stream.problem()
    assert problem is not None and problem.startswith(f"the camera {missing} gives no picture "
                                                      "since ")
    assert problem.endswith(f"(no such camera {missing}: is it plugged in? ls /dev/video* "
                            "lists the cameras; it is opened again until it answers)")
    stream.start()
    try:
        plugged.set()  # pictures come
        _wait(lambda: stream.problem() is None)
        assert stream.problem() is None
        _reads_a3(stream)
    finally:
        stream.close()


@pytest.mark.parametrize(("device", "words"), [
    ("missing.avi", "no such file or camera"),
    (".", "a folder, not a video"),
])
def test_a_video_that_cannot_be_opened_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device: str, words: str
) -> None:
    profile = _calibrated(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as err:
        camera.CameraStream(device, profile)
    assert str(err.value).startswith(f"cannot open video {device}: {words}")


class Webcam(Capture):
    """A camera whose pictures come at the size last asked of it among
    ``sizes`` (the first until asked), the view ``picture`` scaled or, for
    another shape, cropped to it, as a webcam's modes do."""

    def __init__(self, picture: np.ndarray, sizes: list[tuple[int, int]]) -> None:
        self.picture, self.sizes = picture, sizes
        self.size = sizes[0]
        self.asked: dict[int, float] = {}

    def read(self) -> tuple[bool, np.ndarray]:
        time.sleep(0.01)
        w, h = self.size
        ph, pw = self.picture.shape[:2]
        cw = min(pw, ph * w // h)  # the crop of the view with the mode's shape
        x = (pw - cw) // 2
        return True, cv2.resize(self.picture[:, x:x + cw], (w, h), interpolation=cv2.INTER_AREA)

    def set(self, prop: int, value: float) -> bool:
        self.asked[prop] = value
        want = (int(self.asked.get(cv2.CAP_PROP_FRAME_WIDTH, 0)),
                int(self.asked.get(cv2.CAP_PROP_FRAME_HEIGHT, 0)))
        if want in self.sizes:
            self.size = want
        return True


@pytest.mark.parametrize(("sizes", "read"), [
    ([(640, 360), (1280, 720)], (1280, 720)),  # asked for the profile's size, and given it
    ([(640, 360)], (640, 360)),  # the same view smaller: scaled up to the profile's size
])
def test_a_camera_is_asked_for_the_profile_size_and_a_smaller_view_is_scaled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sizes: list[tuple[int, int]],
    read: tuple[int, int]
) -> None:
    # Before, the camera was left at its default size (640x480 for most
    # webcams) while the profile was made from 1280x720 photos: the
    # profile's marker positions, used while a hand hides a marker, were
    # taken for the wrong pixels.
    board = _picture()
    capture = Webcam(board, sizes)
    stream = _stream(tmp_path, monkeypatch, capture)
    assert capture.size == read
    stream.start()
    try:
        _wait(lambda: stream.last is not None and stream.last[1] == A3)
        assert stream.last is not None and stream.last[1] == A3
        assert stream.last[0].shape[:2] == (720, 1280)  # read at the profile's size
        assert stream.problem() is None
    finally:
        stream.close()


def test_a_camera_view_of_another_shape_is_said_and_read_as_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a 4:3 picture was read with a profile made from 16:9 ones:
    # where the profile puts a hidden marker is another place in it.
    board = _picture()
    capture = Webcam(board, [(640, 480)])
    stream = _stream(tmp_path, monkeypatch, capture)
    stream.start()
    try:
        _wait(lambda: stream.problem() is not None)
        assert stream.problem() == (
            "the camera /dev/video0 gives 640x480 pictures, but its profile was made from "
            "1280x720 ones (another shape of view): calibrate it again at this size")
        frame = stream.events.get(timeout=5)
        assert frame.text(49) == "?" * 49  # nothing guessed
        capture.picture = cv2.resize(board, (640, 360))  # the camera set to 16:9
        capture.sizes = capture.sizes + [(640, 360)]
        capture.size = (640, 360)
        _wait(lambda: stream.problem() is None)
        assert stream.problem() is None
    finally:
        stream.close()
