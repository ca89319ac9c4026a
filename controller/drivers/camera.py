"""The overhead camera as a sensor: pictures from a device or a video file,
read into colour frames (``cells``) with a calibration profile.

``kharbga-board run --board camera:DEVICE`` uses :class:`CameraStream` on a
device number (V4L2 covers USB webcams and the Pi camera) or a video file;
:func:`video_events` is the event source of a recorded video (a colour
sensor log's header, then a frame per picture, timed by the video's frame
rate), and :func:`video_log` the same as sensor-log lines, so a game
filmed from above replays through the whole path.

The image analysis (markers, homography, colour model, smoothing) is
calibration's :class:`~calibration.camera.CameraReader`; this module owns
the capture device, the thread and the timing.  It logs (``logging``) when
markers are lost and found again, when the board cannot be located, when
the camera gives no picture, when its pictures show none of the board,
when they read most of its squares as unknown for seconds, when they show
pieces of neither calibrated colour on the same squares for seconds, when
they are grey while the profile was calibrated in colour, and when a video
ends.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import (
    LOOKS_CHANGED,
    CameraReader,
    board_in_view,
    fit_size,
    load_profile,
    moved_towards,
    size_problem,
    square_names,
    unclear,
    unknown_pieces,
)
from calibration.frames import (
    GREY_WORDS,
    camera_node,
    check_colour,
    frames_short,
    in_colour,
    is_grey,
    is_video_file,
    open_capture,
    open_problem,
)
from calibration.images import native_stderr
from controller.board.events import Frame
from controller.board.sensorlog import Event, Header, format_event

__all__ = ["CameraStream", "MarkerWatch", "PiecesWatch", "UnclearWatch", "blindness",
           "stream_speed", "video_events", "video_frames", "video_log"]

log = logging.getLogger(__name__)

MARKERS = frozenset(range(4))
SIZE = 7  # the camera reads the 7x7 board
REOPEN_AFTER = 2.0  # seconds without a picture before a camera is opened again
BLIND_AFTER = 3.0  # seconds of pictures without the board before it is said (an arm passing)
DARK = 12.0  # a picture this dark on average (0-255) shows nothing
UNCLEAR_AFTER = 5.0  # seconds of pictures reading most squares '?' before it is said
FEW_UNKNOWN = 16  # pictures with the board in view and no more '?' than this end it,
CLEAR_FOR = 1.0  # once they have come for this many seconds with none reading most '?'
GREY_AFTER = 1.0  # seconds of grey pictures before they are said (a setting, not a hand)
PIECES_AFTER = 5.0  # seconds a square shows a piece the calibration does not know before it counts
FEW_PIECES = 4  # this many such squares at once are said


class MarkerWatch:
    """Logs what changes in the reader's view: markers lost and found
    again, the board located or not (one log line per change)."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.seen: frozenset[int] = MARKERS  # a full set is assumed at the start
        self.located = True

    def update(self, reader: CameraReader) -> None:
        seen = frozenset(reader.last_markers) & MARKERS
        if seen != self.seen:
            lost = sorted(self.seen - seen)
            found = sorted(seen - self.seen)
            if lost:
                log.warning("camera %s: marker%s %s lost (%d of 4 in view)", self.device,
                            "s" if len(lost) > 1 else "", _ids(lost), len(seen))
            if found:
                log.info("camera %s: marker%s %s found again (%d of 4 in view)", self.device,
                         "s" if len(found) > 1 else "", _ids(found), len(seen))
            self.seen = seen
        located = reader.tracker.homography is not None
        if located != self.located:
            if located:
                log.info("camera %s: the board is located again", self.device)
            else:
                log.warning("camera %s: the board cannot be located (too few markers, or "
                            "the camera or board moved): every square reads '?'", self.device)
            self.located = located


class UnclearWatch:
    """Pictures of the board, in view, reading most of its squares ``?``
    (``calibration.camera.unclear``: the board moved a little against its
    markers, the light changed a lot, other pieces), since when: said after
    ``UNCLEAR_AFTER`` seconds, and over once pictures of the board have
    read 16 squares or fewer ``?`` for ``CLEAR_FOR`` seconds with none
    reading most of them ``?`` between (one good picture now and then does
    not end it).  A hand over part of the board hides a few squares for a
    second or two (at most 24 on rendered frames), and an arm reaching
    across it in a dim room, up to 30, does not stay for five seconds: the
    board between moves ends it.  Words saying which way the board moved
    stay once seen (a hand passing over it for a picture hides the lines
    that tell)."""

    def __init__(self, device: str) -> None:
        self.device = device
        # why, and since when (time.time(), time.monotonic() of its first
        # picture), replaced as one (the page asks from another thread)
        self.state: tuple[str, float, float] | None = None
        self.said = False
        self.clear_since: float | None = None  # time.monotonic() of the first good picture

    def update(self, reader: CameraReader, wall: float, mono: float) -> None:
        """Take the picture ``reader`` read last, at ``wall`` (time.time())
        and ``mono`` (time.monotonic())."""
        why, state = unclear(reader), self.state
        if why is not None:
            if state is None:
                state = (why, wall, mono)
            elif why != LOOKS_CHANGED:
                state = (why, state[1], state[2])
            self.state, self.clear_since = state, None
            if not self.said and mono - state[2] >= UNCLEAR_AFTER:
                log.warning("camera %s: most squares read '?' (%s)", self.device, state[0])
                self.said = True
            return
        r = reader.last_reading
        if state is None or not board_in_view(reader) or r is None \
                or r.cells.count("?") > FEW_UNKNOWN:
            return
        if self.clear_since is None:
            self.clear_since = mono
        if mono - self.clear_since >= CLEAR_FOR:
            if self.said:
                log.info("camera %s: the board's squares are read again", self.device)
            self.state, self.said, self.clear_since = None, False, None

    def problem(self, mono: float) -> str | None:
        """The words for the page at ``mono`` (time.monotonic()), or None."""
        state = self.state
        if state is None or mono - state[2] < UNCLEAR_AFTER:
            return None
        since = time.strftime("%H:%M:%S", time.localtime(state[1]))
        return f"the camera {self.device} reads most squares as unknown since {since} ({state[0]})"


class PiecesWatch:
    """Squares showing a piece of neither calibrated colour
    (``calibration.camera.unknown_pieces``: read ``?`` with no hand over or
    beside them and far from the bare board), picture after picture, since
    when.  A square counts once it has shown one for ``PIECES_AFTER``
    seconds and has not been read (empty or a piece) for ``CLEAR_FOR``
    seconds running since, nor gone ``PIECES_AFTER`` seconds without
    showing one; a picture where it is hidden or not judged (a hand, a
    corner not seen) changes nothing else.  ``FEW_PIECES`` squares counting
    at once are said (a piece set played that is not the one calibrated):
    a hand moves, and the squares beside it are read again once it has
    gone."""

    def __init__(self, device: str, profile: str | Path = "camera.json") -> None:
        self.device = device
        self.profile = str(profile)
        self.since: dict[int, tuple[float, float]] = {}  # square: (time.time(), monotonic)
        self.last: dict[int, float] = {}  # square: monotonic of the last picture showing one
        self.read_since: dict[int, float] = {}  # square: monotonic of its first reading since
        self.said: tuple[list[int], float] | None = None  # squares said, since (time.time())

    def update(self, reader: CameraReader, wall: float, mono: float) -> None:
        """Take the picture ``reader`` read last, at ``wall`` (time.time())
        and ``mono`` (time.monotonic())."""
        judged = unknown_pieces(reader)
        if judged is None:
            return
        strange, read = judged
        for i in strange:
            self.since.setdefault(i, (wall, mono))
            self.last[i] = mono
            self.read_since.pop(i, None)
        for i in list(self.since):
            if i in read and mono - self.read_since.setdefault(i, mono) >= CLEAR_FOR \
                    or mono - self.last[i] >= PIECES_AFTER:
                del self.since[i], self.last[i]
                self.read_since.pop(i, None)
        long = sorted(i for i, (_, m) in self.since.items() if mono - m >= PIECES_AFTER)
        if len(long) >= FEW_PIECES:
            if self.said is None:
                log.warning("camera %s: pieces of neither calibrated colour on %s",
                            self.device, square_names(long))
            self.said = (long, min(self.since[i][0] for i in long))
        elif self.said is not None:
            log.info("camera %s: the pieces are told apart again", self.device)
            self.said = None

    def problem(self) -> str | None:
        """The words for the page, or None."""
        said = self.said
        if said is None:
            return None
        since = time.strftime("%H:%M:%S", time.localtime(said[1]))
        return (f"the camera {self.device} cannot tell the pieces on {square_names(said[0])} "
                f"from the calibrated ones since {since} (another piece set? calibrate it "
                f"again with these pieces: kharbga-board calibrate camera --live "
                f"{self.device} --out {self.profile})")


def _ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in ids)


def blindness(image: np.ndarray, reader: CameraReader) -> tuple[str, str] | None:
    """Why the picture ``reader`` has just read shows none of the board, as
    (what the camera sees, what may be the cause), or None when it shows the
    board (a hand over part of it is not blindness: its squares read '?')."""
    if board_in_view(reader):
        return None
    if float(image.mean()) < DARK:
        return "sees only darkness", "the light off, or the lens covered?"
    seen = sorted(frozenset(reader.last_markers) & MARKERS)
    if not seen:
        return ("sees none of the board's markers",
                "the camera turned or knocked away, or something over them?")
    if reader.last_reading is None:
        return (f"cannot locate the board (only marker{'s' if len(seen) > 1 else ''} "
                f"{_ids(seen)} in view)", "3 are needed after the camera or board moved")
    towards = moved_towards(reader)
    if towards is not None:
        return ("sees the board moved against its markers",
                f"its lines go on past its edge {towards}, so every square would be read off:"
                " put it back where it was at calibration, or calibrate it again")
    return ("does not see the board's lines",
            "something over the whole board, or the board moved against its markers since "
            "calibration: calibrate it again if so")


def video_frames(device: str, profile_path: str | Path, smooth: int = 3,
                 fps: float | None = None) -> Iterator[Frame]:
    """Colour frames of a video file (times from its frame rate)."""
    reader = CameraReader(load_profile(profile_path), smooth=smooth)
    colour_profile = in_colour(reader.profile)
    watch = MarkerWatch(device)
    cap = open_capture(device)
    rate = fps or cap.get(cv2.CAP_PROP_FPS) or 10.0
    n, last = 0, ""  # the decoder's last words, kept off the terminal
    try:
        while True:
            with native_stderr() as said:
                ok, image = cap.read()
            last = "".join(said).strip() or last
            if not ok:
                short = frames_short(cap, n, last)
                if short is not None:
                    raise ValueError(f"the video {device} {short}")
                log.info("camera %s: the video ended after %d pictures", device, n)
                return
            fitted = fit_size(image, reader.profile)
            if fitted is None:
                raise ValueError(f"the video {device} {size_problem(image, reader.profile)}")
            cells = reader.read(fitted)
            if reader.last_markers:  # the board seen, not a blank frame
                check_colour(fitted, colour_profile, f"the video {device}", "video")
            watch.update(reader)
            yield Frame.from_cells(n / rate, cells)
            n += 1
    finally:
        cap.release()


def video_events(device: str, profile_path: str | Path, smooth: int = 3,
                 fps: float | None = None) -> Iterator[Event]:
    """The event source of a video: a colour log's header, then its frames."""
    yield Header(0.0, f"{SIZE}x{SIZE}", "colour")
    yield from video_frames(device, profile_path, smooth, fps)


def video_log(device: str, profile_path: str | Path, smooth: int = 3,
              fps: float | None = None) -> list[str]:
    """The sensor log (JSON lines) of a video."""
    return [format_event(e, SIZE * SIZE) for e in video_events(device, profile_path, smooth, fps)]


class CameraStream:
    """A live camera on its own thread, putting colour frames on a queue
    (only when the reading changes, and a heartbeat every second).

    A video file plays at its own pace, as the camera filmed it, and the
    stream stops reading at its end.  A camera (a device number or node)
    that gives no picture for ``REOPEN_AFTER`` seconds is opened again,
    until it answers (unplugged and plugged back); :meth:`problem` says so
    meanwhile, in words for the page."""

    def __init__(self, device: str, profile_path: str | Path) -> None:
        self.device = device
        self.reader = CameraReader(load_profile(profile_path), smooth=3)
        self.is_file = is_video_file(device)
        self._failing = False  # the last read gave no picture
        self._failing_since = 0.0  # time.time() of the first read that gave none
        self._tried_at = 0.0  # time.monotonic() of the last open, or the first failure
        self._why = "its cable?"  # why it gives none, in words
        self._shape: str | None = None  # why the pictures' shape cannot be read, if so
        self._short: str | None = None  # how a video file ended before its header says
        try:
            self.cap = self._open()
        except ValueError as exc:
            if camera_node(device) is None:
                raise  # a video that cannot be opened will not come
            # a camera not plugged in yet: said, and opened again until it answers
            log.warning("camera %s: %s", device, exc)
            self.cap = cv2.VideoCapture()
            self._failing, self._failing_since = True, time.time()
            self._tried_at, self._why = time.monotonic(), open_problem(device)
        fps = self.cap.get(cv2.CAP_PROP_FPS) if self.is_file else 0.0
        self.period = 1.0 / fps if fps and fps > 0 else 0.0
        self.events: queue.Queue[Frame] = queue.Queue()
        # the newest frame, its reading and its markers (replaced as one)
        self.last: tuple[np.ndarray, str, dict[int, np.ndarray]] | None = None
        self.watch = MarkerWatch(device)
        self.pictures = 0
        # why the pictures show none of the board, since when (time.time(),
        # time.monotonic()): said after BLIND_AFTER seconds
        self._blind: tuple[tuple[str, str], float, float] | None = None
        self.unclear = UnclearWatch(device)  # most squares '?' with the board in view
        self.pieces = PiecesWatch(device, profile_path)  # pieces the calibration does not know
        # a profile calibrated in colour reads nothing from grey pictures (a
        # camera set to black and white): since when (time.time(), monotonic)
        self._colour_profile = in_colour(self.reader.profile)
        self._grey: tuple[float, float] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _open(self) -> cv2.VideoCapture:
        """The capture opened; a camera is asked for the profile's picture
        size (a webcam's default is often smaller than the one it was
        calibrated at: a picture of the same shape is scaled, see
        :meth:`_fit`)."""
        cap = open_capture(self.device)
        if not self.is_file:
            w, h = self.reader.profile.image_size
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
        return cap

    def _fit(self, image: np.ndarray) -> np.ndarray | None:
        """The picture at the profile's size, or None if its shape differs
        (said on the page and logged once)."""
        fitted = fit_size(image, self.reader.profile)
        shape = None if fitted is not None else size_problem(image, self.reader.profile)
        if shape != self._shape:
            if shape is not None:
                log.warning("camera %s: %s", self.device, shape)
            elif self._shape is not None:
                log.info("camera %s: pictures of the profile's shape again", self.device)
            self._shape = shape
        return fitted

    def problem(self) -> str | None:
        """What is wrong with the pictures, in words (None: they come)."""
        if not self._failing and self._shape is not None:
            return f"the camera {self.device} {self._shape}"
        if not self._failing:
            return (self._greyness() or self._blindness()
                    or self.unclear.problem(time.monotonic()) or self.pieces.problem())
        if self.is_file:
            ended = self._short or f"ended after {self.pictures} pictures"
            return f"the video {self.device} {ended}"
        since = time.strftime("%H:%M:%S", time.localtime(self._failing_since))
        return (f"the camera {self.device} gives no picture since {since} ({self._why}; "
                "it is opened again until it answers)")

    def _greyness(self) -> str | None:
        grey = self._grey
        if grey is None or time.monotonic() - grey[1] < GREY_AFTER:
            return None
        since = time.strftime("%H:%M:%S", time.localtime(grey[0]))
        return (f"the camera {self.device} gives grey pictures (no colour) since {since}, and "
                f"{GREY_WORDS}: set the camera to colour, or calibrate again from its pictures")

    def _colour(self, image: np.ndarray) -> bool:
        """Whether the picture just read (its board's markers found) can be
        read: not grey, or the profile grey too (logged when it starts and
        ends)."""
        grey = self._colour_profile and bool(self.reader.last_markers) and is_grey(image)
        if grey and self._grey is None:
            log.warning("camera %s: grey pictures (no colour), and %s: nothing is read until "
                        "they come in colour", self.device, GREY_WORDS)
            self._grey = (time.time(), time.monotonic())
        elif not grey and self._grey is not None and self.reader.last_markers:
            log.info("camera %s: pictures in colour again", self.device)
            self._grey = None
        return not grey

    def _blindness(self) -> str | None:
        blind = self._blind
        if blind is None or time.monotonic() - blind[2] < BLIND_AFTER:
            return None
        (what, why), since = blind[0], time.strftime("%H:%M:%S", time.localtime(blind[1]))
        return f"the camera {self.device} {what} since {since} ({why})"

    def _sight(self, image: np.ndarray) -> None:
        """Keep why the picture just read shows none of the board (logged
        when it starts and ends)."""
        why = blindness(image, self.reader)
        if why is None:
            if self._blind is not None:
                log.info("camera %s: the board is in view again", self.device)
            self._blind = None
        elif self._blind is None:
            log.warning("camera %s: %s (%s)", self.device, *why)
            self._blind = (why, time.time(), time.monotonic())
        else:
            self._blind = (why, self._blind[1], self._blind[2])

    def _picture(self) -> np.ndarray | None:
        """The next picture, or None (logged once per run of failures)."""
        ok, image = self.cap.read()
        if ok:
            if self.pictures and self._failing:
                log.info("camera %s: pictures again", self.device)
            self._failing = False
            self.pictures += 1
            return image
        if not self._failing:
            if self.is_file:
                self._short = frames_short(self.cap, self.pictures, "")
                log.info("camera %s: the video %s", self.device,
                         self._short or f"ended after {self.pictures} pictures")
            else:
                log.warning("camera %s: no picture from the camera", self.device)
            self._failing_since, self._tried_at = time.time(), time.monotonic()
            self._why = "its cable?"
        self._failing = True
        return None

    def _reopen(self) -> None:
        """A camera silent for ``REOPEN_AFTER`` seconds: open it again."""
        if time.monotonic() - self._tried_at < REOPEN_AFTER:
            return
        self._tried_at = time.monotonic()
        self.cap.release()
        try:
            self.cap = self._open()
        except ValueError:
            self._why = open_problem(self.device)
            return  # still gone: tried again later
        log.info("camera %s: opened again", self.device)

    def _run(self) -> None:
        last = ""
        beat = 0.0
        next_at = time.monotonic()
        while not self._stop.is_set():
            if self.period:
                next_at += self.period
                time.sleep(max(0.0, next_at - time.monotonic()))
            image = self._picture()
            if image is None:
                if self.is_file:
                    return  # the end of the video: nothing more will come
                self._reopen()
                self._stop.wait(0.05)
                continue
            fitted = self._fit(image)
            if fitted is None:  # another shape: nothing is read (problem() says why)
                cells = "?" * (SIZE * SIZE)
                self.last = (image, cells, {})
            else:
                image = fitted
                cells = self.reader.read(image)
                self.watch.update(self.reader)
                self._sight(image)
                if self._colour(image):
                    self.unclear.update(self.reader, time.time(), time.monotonic())
                    self.pieces.update(self.reader, time.time(), time.monotonic())
                else:  # grey: every square unknown, no piece guessed from it
                    cells = "?" * (SIZE * SIZE)
                self.last = (image, cells, self.reader.last_markers)
            now = time.monotonic()
            if cells != last or now - beat >= 1.0:
                self.events.put(Frame.from_cells(now, cells))
                last, beat = cells, now

    def preview(self) -> bytes:
        """The newest frame as JPEG, with the markers, grid and readings drawn."""
        from calibration.preview import draw_overlay, jpeg

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


def stream_speed(video: str, profile_path: str | Path) -> tuple[int, float]:
    """Time the live path on a video file: a :class:`CameraStream` reading
    every picture as fast as it can (not at the video's pace), decoding
    included.  Returns the pictures read and the seconds taken."""
    stream = CameraStream(video, profile_path)
    stream.period = 0.0
    start = time.perf_counter()
    stream.start()
    stream._thread.join()
    elapsed = time.perf_counter() - start
    stream.close()
    return stream.pictures, elapsed
