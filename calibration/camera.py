"""Camera calibration and reading: photos of the board to ``cells`` strings.

``calibrate_camera`` learns a profile (JSON) from two photos taken by the
fixed camera: the empty board, and the board with a known layout.
``read_image`` reads one photo with a profile; :class:`CameraReader` reads a
live stream (homography tracking, bump detection, optional smoothing).
"""

from __future__ import annotations

import base64
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.colour import CLASSES, ColourModel, Empty, Features, Grid, features, lines_beyond
from calibration.foreign import foreign_squares
from calibration.homography import (
    HomographyTracker,
    fit_from_centres,
    fit_homography,
    project,
    square_px,
)
from calibration.images import (
    MAX_PIXELS,
    as_bgr,
    load_image,
    native_stderr,
    not_a_file,
    numbers_only,
    picture_size,
    same_file,
    unfit_to_write,
    write_file,
)
from calibration.markers import detect_markers, detect_markers_near
from calibration.smooth import CellSmoother
from controller.board.config import read_bounded

__all__ = ["calibrate_camera", "read_image", "load_profile", "CameraProfile", "CameraReader",
           "check_cells", "Reading", "read_photo", "check_size", "check_board", "fit_size",
           "size_problem", "board_in_view", "moved_towards", "unclear", "MOST_UNKNOWN",
           "LOOKS_CHANGED", "unknown_pieces", "square_names"]

PROFILE_KIND = "kharbga-camera-profile"
PROFILE_VERSION = 1
SQUARE_PX = 24
SQUARE_RANGE = (16, 96)  # a profile's square_px (below 16 the grid's margin patches fall off)
WINDOW = 0.6  # margin of a marker's search window around where it was, in squares


def check_cells(cells: str, allow_unknown: bool = False) -> str:
    if not isinstance(cells, str):
        raise ValueError("cells must be a string")
    allowed = "ad.?" if allow_unknown else "ad."
    if len(cells) != 49:
        raise ValueError(f"cells must be 49 characters (a1..g7), got {len(cells)}")
    bad = cells.strip(allowed)
    if bad:
        i = next(i for i, ch in enumerate(cells) if ch not in allowed)
        raise ValueError(f"cells character {cells[i]!r} at square {i} is not one of {allowed!r}")
    return cells


def _all_markers(img: np.ndarray, what: str) -> dict[int, np.ndarray]:
    found = detect_markers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), thorough=True)
    if not found:
        raise ValueError(f"no board markers found in {what} (ArUco DICT_4X4_50 ids 0-3)")
    missing = sorted(set(range(4)) - set(found))
    if missing:
        raise ValueError(f"markers {missing} not found in {what}; calibration needs all four")
    return found


class CameraProfile:
    """Everything learned at calibration."""

    def __init__(self, homography: np.ndarray, markers: dict[int, np.ndarray],
                 empty_top: np.ndarray, model: ColourModel, image_size: tuple[int, int],
                 square_px: int = SQUARE_PX):
        self.homography = homography
        self.markers = markers
        self.empty_top = empty_top
        self.model = model
        self.image_size = image_size
        self.grid = Grid(square_px)
        self.empty = Empty.from_warp(self.grid, empty_top)

    def to_json(self) -> dict[str, Any]:
        ok, png = cv2.imencode(".png", self.empty_top)
        return {
            "kind": PROFILE_KIND,
            "version": PROFILE_VERSION,
            "square_px": self.grid.s,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "markers": {str(k): v.tolist() for k, v in self.markers.items()},
            "empty_top_png": base64.b64encode(png.tobytes()).decode("ascii"),
            "model": self.model.to_json(),
        }

    @classmethod
    def from_json(cls, d: Any) -> CameraProfile:
        if not isinstance(d, dict) or d.get("kind") != PROFILE_KIND:
            raise ValueError("not a kharbga camera profile")
        version = d.get("version")
        if isinstance(version, bool) or version != PROFILE_VERSION:  # True == 1 in Python
            raise ValueError(f"unsupported camera profile version {version!r}")
        try:
            s = _field(d, "square_px")
            if not isinstance(s, int) or isinstance(s, bool):
                raise ValueError(f"square_px must be a whole number of pixels, not {s!r}")
            if not SQUARE_RANGE[0] <= s <= SQUARE_RANGE[1]:
                least, most = SQUARE_RANGE
                raise ValueError(f"square_px must be {least} to {most}, not {s}")
            h = _homography(_field(d, "homography"))
            markers = _marker_corners(_field(d, "markers"))
            top = _empty_top(_field(d, "empty_top_png"), s)
            model = ColourModel.from_json(_field(d, "model"))
            model.check_apart()  # as calibration checks the model it writes
            size = _image_size(_field(d, "image_size"))
        except ValueError as exc:
            raise ValueError(f"corrupt camera profile ({exc})") from None
        return cls(h, markers, top, model, size, s)


def _field(d: dict[str, Any], key: str) -> Any:
    """``d[key]``; a ValueError naming the key when it is missing."""
    if key not in d:
        raise ValueError(f"{key} is missing")
    return d[key]


def _homography(d: Any) -> np.ndarray:
    """The profile's homography: an invertible 3x3 matrix of finite numbers."""
    try:
        h = np.array(d if numbers_only(d) else [], np.float64)
    except (TypeError, ValueError):
        h = np.zeros(0)
    if h.shape != (3, 3) or not np.isfinite(h).all() or not _invertible(h):
        raise ValueError("homography is not an invertible 3x3 matrix")
    return h


def _empty_top(d: Any, s: int) -> np.ndarray:
    """The empty board seen from above, 8 squares of ``s`` pixels a side."""
    words = "empty_top_png is not a picture of the empty board (a PNG in base64)"
    try:
        png = np.frombuffer(base64.b64decode(d, validate=True), np.uint8)
    except (TypeError, ValueError):  # binascii.Error is a ValueError
        raise ValueError(words) from None
    top = None
    size = picture_size(png.tobytes())
    if size is not None and size != (8 * s, 8 * s):  # refused before it is decoded
        raise ValueError(f"empty_top_png is {size[0]}x{size[1]} pixels, not "
                         f"{8 * s}x{8 * s} (8 squares of square_px {s})")
    if png.size:
        with native_stderr():  # OpenCV's warnings of a damaged picture: said here
            try:
                top = cv2.imdecode(png, cv2.IMREAD_COLOR)
            except cv2.error:
                top = None
    if top is None:
        raise ValueError(words)
    if top.shape != (8 * s, 8 * s, 3):
        raise ValueError(f"empty_top_png is {top.shape[1]}x{top.shape[0]} pixels, not "
                         f"{8 * s}x{8 * s} (8 squares of square_px {s})")
    return top


def _invertible(h: np.ndarray) -> bool:
    sv = np.linalg.svd(h, compute_uv=False)
    return bool(sv[0] > 0 and sv[-1] > 1e-12 * sv[0])


MARKER_REACH = 50.0  # board units (squares): the markers lie just beyond the board's edge


def _marker_corners(d: Any) -> dict[int, np.ndarray]:
    """The profile's four markers' corners in board units (ids 0-3, 4 corners each)."""
    words = (f"marker corners: ids 0, 1, 2, 3 each with 4 corners, within {MARKER_REACH:g} "
             "squares of the board")
    try:
        markers = {int(k): np.array(v if numbers_only(v) else [], float) for k, v in d.items()}
    except (AttributeError, TypeError, ValueError):
        raise ValueError(words) from None
    if (sorted(markers) != [0, 1, 2, 3]
            or any(v.shape != (4, 2) or not (np.abs(v) <= MARKER_REACH).all()
                   for v in markers.values())):
        raise ValueError(words)
    centres = np.array([markers[i].mean(axis=0) for i in range(4)])
    if min(_area(v) for v in markers.values()) < MARKER_AREA or _area(centres) < BOARD_AREA:
        raise ValueError("marker corners: each marker a square of the board's plane, "
                         "the four around the board (not all at one place)")
    return markers


MARKER_AREA = 1e-3  # square units: a marker of 8 mm on a board of 40 mm squares has 0.04
BOARD_AREA = 1.0  # the markers' centres enclose the board (7x7 squares and more)


def _area(quad: np.ndarray) -> float:
    """The area enclosed by the corners ``quad`` (N x 2), in order."""
    x, y = quad[:, 0], quad[:, 1]
    return float(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2)


def _image_size(d: Any) -> tuple[int, int]:
    """The calibration pictures' width and height."""
    if (not isinstance(d, list) or len(d) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in d)):
        raise ValueError("image_size must be two positive whole numbers")
    if d[0] * d[1] > MAX_PIXELS:  # a camera's smaller pictures would be scaled up to it
        raise ValueError(f"image_size {d[0]}x{d[1]} is more than the {MAX_PIXELS / 1e6:g} "
                         "million pixels a picture may have")
    return d[0], d[1]


MAX_PROFILE_BYTES = 2**24  # a profile is tens of kilobytes


def load_profile(path: str | Path) -> CameraProfile:
    p = Path(path)
    why = not_a_file(p)
    if why is not None and why not in ("no such file", "a folder"):  # a pipe would hang
        raise ValueError(f"camera profile {p}: {why}")
    raw = read_bounded(p, MAX_PROFILE_BYTES, "a camera profile",
                       lambda why: ValueError(f"camera profile {p}: {why}"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"camera profile {p} is not text (not UTF-8)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"camera profile {p} is not valid JSON (line {exc.lineno}, column "
                         f"{exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ValueError(f"camera profile {p} is not valid JSON (nested too deeply)") from None
    except ValueError:  # Python's limit on the digits of an integer it converts
        raise ValueError(f"camera profile {p} is not valid JSON (an integer of more than "
                         f"{sys.get_int_max_str_digits()} digits)") from None
    try:
        return CameraProfile.from_json(data)
    except ValueError as exc:
        raise ValueError(f"camera profile {p}: {exc}") from None


BARE = 0.25  # log colour of a square's centre against its corners' wood, beyond a bare one's


def _check_bare(grid: Grid, empty: Empty, cells: str) -> None:
    """A clear ValueError when the empty-board photo shows pieces on half or
    more of the squares where the layout has them (the photos swapped, or
    the empty board taken after the pieces were set): its profile would
    read the bare board as the layout.  Each square's centre is compared
    with the wood at its corners, against the squares the layout leaves
    empty (a board with a few squares painted or marked still passes)."""
    bare = np.log(empty.disc) - np.log(empty.patch[:64])[grid.corners].mean(axis=1)
    ref = np.median(bare[[i for i, c in enumerate(cells) if c == "."]], axis=0)
    covered = np.abs(bare - ref).max(axis=1) > BARE
    on = [i for i, c in enumerate(cells) if c != "." and covered[i]]
    pieces = sum(c != "." for c in cells)
    if len(on) >= max(2, pieces / 2):
        names = ", ".join("abcdefg"[i % 7] + str(i // 7 + 1) for i in on[:3])
        more = f" and {len(on) - 3} more" if len(on) > 3 else ""
        raise ValueError(f"the empty-board photo shows pieces on {names}{more} squares where the"
                         " layout has them: take it with the board clear (were the two photos"
                         " swapped?)")


def calibrate(empty: np.ndarray, layout: np.ndarray, cells: str) -> CameraProfile:
    """Learn a profile from an empty-board photo and a photo of ``cells``."""
    check_cells(cells)
    for c, name in (("a", "Attacker"), ("d", "Defender"), (".", "empty")):
        if cells.count(c) < 2:
            raise ValueError(f"the layout needs at least 2 {name} squares, has {cells.count(c)}")
    empty, layout = as_bgr(empty), as_bgr(layout)
    if empty.shape[:2] != layout.shape[:2]:
        raise ValueError(f"the empty-board photo is {empty.shape[1]}x{empty.shape[0]} but the"
                         f" layout photo {layout.shape[1]}x{layout.shape[0]}: take both with the"
                         " same camera at the same size")
    found = _all_markers(empty, "the empty-board photo")
    h0 = fit_from_centres(found)
    # learn each marker's corners in board units (so markers stuck turned still work)
    inv = np.linalg.inv(h0)
    board = {i: project(inv, c) for i, c in found.items()}
    h, err = fit_homography(found, board)
    if h is None:
        raise ValueError("the markers in the empty-board photo do not fit a board")
    grid = Grid(SQUARE_PX)
    empty_top = grid.warp(empty, h)
    found2 = _all_markers(layout, "the layout photo")
    h2, err2 = fit_homography(found2, board)
    if h2 is None or err2 > 5.0:
        raise ValueError("the camera moved between the empty-board and layout photos")
    e = Empty.from_warp(grid, empty_top)
    _check_bare(grid, e, cells)
    feats = features(grid, e, grid.warp(layout, h2))
    model, feats = ColourModel.learn_layout(feats, cells)
    model.check_apart()
    profile = CameraProfile(h, board, empty_top, model, (empty.shape[1], empty.shape[0]))
    got = profile.model.classify(feats, profile.grid)
    wrong = [i for i in range(49) if got[i] not in ("?", cells[i])]
    if wrong:
        raise ValueError(f"the layout photo does not match cells at {len(wrong)} squares")
    return profile


def calibrate_camera(empty_path: str | Path, layout_path: str | Path, cells: str,
                     out_path: str | Path) -> None:
    """``kharbga-board calibrate camera``: write the profile JSON to
    ``out_path``, refused before anything is read when it names one of the
    two photos."""
    for photo, what in ((empty_path, "the empty-board photo (--empty)"),
                        (layout_path, "the layout photo (--layout)")):
        if same_file(out_path, photo):
            raise ValueError(f"cannot write camera profile {out_path}: it is {what}, which "
                             "it would replace: give --out another name (camera.json)")
    why = unfit_to_write(Path(out_path))
    if why is not None:
        raise ValueError(f"cannot write camera profile {out_path}: {why}"
                         + (": give the file to write in it" if why == "a folder" else ""))
    check_cells(cells)
    profile = calibrate(load_image(empty_path), load_image(layout_path), cells)
    write_file(Path(out_path), (json.dumps(profile.to_json()) + "\n").encode(),
               f"camera profile {out_path}")


LINES_OFF = 7  # of the 56 edge patches of the lines one way: those lines are not where they were
LINES_ON = 28  # while the lines the other way show at this many or more


def lines_off(feats: Features) -> str | None:
    """Which of the board's lines are not where they were at calibration
    while the others are ('files': the lines between its files, 'ranks'),
    or None: the board moved a little against its markers (0.2-0.4 of a
    square) leaves the lines running one way where they were and moves the
    others off, which then show at no more than 7 of their 56 edge patches
    while the others show at half or more (a hand hides both alike)."""
    ranks = int(feats.patch_ok[64:120].sum())  # on the lines between the ranks
    files = int(feats.patch_ok[120:176].sum())  # on the lines between the files
    if files <= LINES_OFF and ranks >= LINES_ON:
        return "files"
    if ranks <= LINES_OFF and files >= LINES_ON:
        return "ranks"
    return None


@dataclass
class Reading:
    """How one frame was read: where the board was, the light taken out of
    each square's measurements, the frame's class model, and the result;
    ``moved``: the sides past whose edge the board's lines go on (the board
    moved against its markers: every square reads ``?``); ``foreign``: the
    squares read ``?`` because they sat far from their class as calibrated,
    with 4 or more such (``calibration.foreign``: pieces of another set)."""

    homography: np.ndarray
    features: Features
    model: ColourModel
    cells: str
    moved: tuple[int, ...] = ()
    foreign: frozenset[int] = frozenset()


class CameraReader:
    """Reads frames with one profile, keeping the homography between frames.

    ``read(image)`` returns the cells string of one BGR frame (all ``?`` when
    the board cannot be located).  With ``smooth`` frames, the result goes
    through a :class:`CellSmoother`.  ``tracker.bumped`` / ``tracker.status``
    tell what the last frame did to the homography.
    """

    def __init__(self, profile: CameraProfile, smooth: int = 0) -> None:
        self.profile = profile
        self.tracker = HomographyTracker(profile.markers, profile.homography.copy())
        self.smoother = CellSmoother(smooth) if smooth else None
        self.last_raw = "?" * 49
        self.last_markers: dict[int, np.ndarray] = {}  # found in the last frame read
        self.last_reading: Reading | None = None  # how the last frame was read

    def _markers(self, image: np.ndarray) -> dict[int, np.ndarray]:
        """The markers in a frame: searched first in small windows around
        where the kept homography puts them; the whole picture is searched
        when fewer than 3 show there or one has moved (the start, a bump)."""
        h = self.tracker.homography
        if h is not None:
            side = square_px(h)
            expected = {i: project(h, c) for i, c in self.tracker.board.items()}
            near = detect_markers_near(image, expected, max(8.0, WINDOW * side))
            moved = max((float(np.abs(c - expected[i]).max()) for i, c in near.items()),
                        default=0.0)
            if len(near) >= 3 and moved <= self.tracker.bump * side:
                return near
        return detect_markers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))

    def read_raw(self, image: np.ndarray) -> str:
        image = as_bgr(image)
        self.last_reading = None
        self.last_markers = self._markers(image)
        h = self.tracker.update(self.last_markers)
        if h is None:
            return "?" * 49
        p = self.profile
        top = p.grid.warp(image, h)
        model, feats = p.model.adapted(features(p.grid, p.empty, top))
        # the board moved against its markers: its squares are not where the
        # profile has them (a whole square's shift keeps the lines in place)
        moved = lines_beyond(p.grid, p.empty, top)
        cells = "?" * 49 if moved else model.classify(feats, p.grid, adapt=False)
        far = foreign_squares(model, feats, cells)
        cells = "".join("?" if i in far else c for i, c in enumerate(cells))
        self.last_reading = Reading(h, feats, model, cells, moved, far)
        return cells

    def read(self, image: np.ndarray) -> str:
        self.last_raw = self.read_raw(image)
        return self.smoother.update(self.last_raw) if self.smoother else self.last_raw


def read_image(path: str | Path, profile_path: str | Path) -> str:
    """``kharbga-board camera read``: the 49-character cells string of one photo.

    The photo is taken by the calibrated camera; a marker hidden by a hand is
    covered by the profile's homography.
    """
    profile = load_profile(profile_path)
    image = load_image(path)
    reader = read_photo(image, profile, str(path))
    cells = reader.read(image)
    check_board(reader, str(path))
    return cells


LINES_IN_VIEW = 16  # of the 64 grid intersections: fewer, and the board is not seen


def board_in_view(reader: CameraReader) -> bool:
    """Whether the frame ``reader`` read last shows the profile's board: it
    was located, its grid lines show at 16 or more of the 64
    intersections (a hand or an arm hides fewer), and they do not go on past
    its edge (the board moved against its markers)."""
    r = reader.last_reading
    return (r is not None and not r.moved
            and int(r.features.patch_ok[:64].sum()) >= LINES_IN_VIEW)


SIDES = ("the a file", "the g file", "rank 1", "rank 7")


def moved_towards(reader: CameraReader) -> str | None:
    """Which way the board read last has moved against its markers, in
    words ('towards the g file'), or None when it has not been seen moved."""
    r = reader.last_reading
    if r is None or not r.moved:
        return None
    return "towards " + " and ".join(SIDES[side] for side in r.moved)


MOST_UNKNOWN = 25  # of the 49 squares read '?' with the board in view: it is not being read
LOOKS_CHANGED = ("the squares do not look as they did at calibration: the light changed a lot "
                 "(sun or a lamp on the board?), other pieces, or the board moved a little "
                 "against its markers; put things back as they were at calibration, or "
                 "calibrate it again")


def unclear(reader: CameraReader) -> str | None:
    """Why most squares (25 or more of 49) of the frame ``reader`` read last
    are ``?`` while its board is in view, in words, or None when they are
    not.  The board moved a little against its markers (0.2-0.4 of a square)
    leaves the lines running one way where they were and moves the others
    off: those show at no more than 7 of their 56 edge patches, the others
    at half or more.  Otherwise the squares no longer look as they did at
    calibration (the light, the pieces)."""
    r = reader.last_reading
    if r is None or not board_in_view(reader) or r.cells.count("?") < MOST_UNKNOWN:
        return None
    lines = lines_off(r.features)
    if lines is None:
        return LOOKS_CHANGED
    towards = "towards the a or the g file" if lines == "files" else "towards rank 1 or rank 7"
    return (f"the board seems to have moved a little against its markers, {towards}: the "
            f"lines between its {lines} are not where they were at calibration; put it back "
            "where it was at calibration, or calibrate it again")


STRANGE = 4.5  # distance to the bare board (the frame's empty class) of a '?' square's piece


def unknown_pieces(reader: CameraReader) -> tuple[frozenset[int], frozenset[int]] | None:
    """The squares of the frame ``reader`` read last that show a piece the
    calibration does not know, and those it read (empty or a piece); None
    when its board is not in view.  A piece it does not know: the square
    reads ``?`` with all four of its corners showing the board (no hand
    over or beside it, its light known) and its colour more than 4.5 sigma
    from the bare board's (a piece stands there, of neither calibrated
    colour), or read ``?`` as one far from its class as calibrated
    (``Reading.foreign``)."""
    r = reader.last_reading
    if r is None or not board_in_view(reader):
        return None
    f = r.features
    far = r.model.distances(f.f, f.spread)[:, CLASSES.index(".")] > STRANGE
    strange = frozenset(i for i in range(49)
                        if r.cells[i] == "?" and f.valid[i] == 4 and far[i]) | r.foreign
    return strange, frozenset(i for i in range(49) if r.cells[i] != "?")


def square_names(squares: list[int], shown: int = 2) -> str:
    """'a1, b3 and 17 more squares' (squares numbered a1 = 0 .. g7 = 48)."""
    names = ["abcdefg"[i % 7] + str(i // 7 + 1) for i in sorted(squares)]
    if len(names) <= shown + 1:
        return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    return f"{', '.join(names[:shown])} and {len(names) - shown} more squares"


def check_board(reader: CameraReader, name: str) -> None:
    """A clear ValueError when the board read does not look like the profile's
    board: its grid lines missing at most intersections (another board, or
    markers moved to another board since calibration), or going on past its
    edge (the board moved against its markers)."""
    towards = moved_towards(reader)
    if towards is not None:
        raise ValueError(f"the board in {name} has moved against its markers since calibration"
                         f" (its lines go on past its edge {towards}): put it back where it"
                         " was, or calibrate it again")
    if reader.last_reading is not None and not board_in_view(reader):
        raise ValueError(f"the board in {name} does not look like the one in the profile (its"
                         " grid lines are not where they were at calibration): calibrate this"
                         " board")


def read_photo(image: np.ndarray, profile: CameraProfile, name: str) -> CameraReader:
    """A reader located on one photo (so its ``read`` does not depend on an
    earlier frame); a clear ValueError when the board cannot be found in it."""
    check_size(image, profile, name)
    found = detect_markers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    if not found:
        raise ValueError(f"no board markers found in {name} (ArUco DICT_4X4_50 ids 0-3)")
    reader = CameraReader(profile)
    if reader.tracker.update(found) is None:
        raise ValueError(
            f"cannot locate the board in {name}: the markers seen ({sorted(found)}) do not match"
            " the calibration and fewer than 3 are visible"
        )
    reader.tracker = HomographyTracker(profile.markers, reader.tracker.homography)
    return reader


EXPLAIN_PANEL = 360  # px: the width of the panel camera read --explain adds beside a picture


def check_size(image: np.ndarray, profile: CameraProfile, name: str) -> None:
    w, h = profile.image_size
    if (image.shape[1], image.shape[0]) == (w + EXPLAIN_PANEL, h):
        raise ValueError(f"{name} is {image.shape[1]}x{image.shape[0]}, the size of an overlay "
                         f"written by camera read --explain, not of a camera picture ({w}x{h}):"
                         " read only the camera's pictures (move overlays out of the folder)")
    if image.shape[1] != w or image.shape[0] != h:
        raise ValueError(f"{name} is {image.shape[1]}x{image.shape[0]} but the profile was made"
                         f" from {w}x{h} pictures: calibrate this camera with its own photos")


def fit_size(image: np.ndarray, profile: CameraProfile) -> np.ndarray | None:
    """A live picture at the profile's size: as it is, or scaled when the
    camera gives the same view at another resolution (the same shape, to 1%);
    None when its shape differs (another crop of the view: the profile's
    marker positions do not hold in it)."""
    w, h = profile.image_size
    ih, iw = image.shape[:2]
    if (iw, ih) == (w, h):
        return image
    if abs(iw * h - ih * w) > 0.01 * w * ih:
        return None
    interpolation = cv2.INTER_AREA if iw > w else cv2.INTER_LINEAR
    return cv2.resize(image, (w, h), interpolation=interpolation)


def size_problem(image: np.ndarray, profile: CameraProfile) -> str:
    """Why a picture of another shape than the profile's cannot be read."""
    w, h = profile.image_size
    return (f"gives {image.shape[1]}x{image.shape[0]} pictures, but its profile was made from "
            f"{w}x{h} ones (another shape of view): calibrate it again at this size")


def class_names() -> tuple[str, ...]:
    return CLASSES
