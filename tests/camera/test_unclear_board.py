"""A board that stops being read while it is in view: most of its squares
'?' for seconds on end. Moved a little against its markers (0.2-0.4 of a
square: less than the half square whose lines going on past its edge are
caught, more than the tenth that hides its lines), its lines one way are no
longer where they were and most squares read '?'; a light far from the
calibration's does the same. The page says why after five seconds of it
(``UnclearWatch``); a hand over the board for a second or two, a dim room
or a lamp's hot spot, and each piece set calibrated, never.

Seeds 100-140, 200-209, 300-303, 400-404 and 500-514 and the sets
white-black, stone-brown, blue-pink and red-green were looked at to set the
thresholds; the tests marked ``held back`` use seeds 900-907 and 920-943 and the
``stones`` set, run once the code was written and not tuned on since."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from test_video import CAM

from calibration.bench import LAYOUT
from calibration.camera import CameraProfile, CameraReader, calibrate, unclear
from calibration.conditions import CONDITIONS
from calibration.render import Lighting, Scene, render, room_lighting
from controller.drivers.camera import PiecesWatch, UnclearWatch, blindness

PIECES = "a.d..a." "..a.d.." "d...a.." ".a.d..d" "..d...a" "a...d.." ".d.a..."
AXIS = {(1, 0): "towards the a or the g file", (-1, 0): "towards the a or the g file",
        (0, 1): "towards rank 1 or rank 7", (0, -1): "towards rank 1 or rank 7"}
_PROFILES: dict[str, CameraProfile] = {}


def _profile(pieces: str) -> CameraProfile:
    if pieces not in _PROFILES:
        light = Lighting(level=1.0, gradient=(0.1, 0.1), blur=0.8, noise=2, jpeg=90)
        empty, layout = (render(Scene(cells, pieces, CAM, light, seed=seed)).image
                         for cells, seed in (("." * 49, 1), (LAYOUT, 2)))
        _PROFILES[pieces] = calibrate(empty, layout, LAYOUT)
    return _PROFILES[pieces]


def _photo(pieces: str, seed: int, shift: tuple[float, float] = (0.0, 0.0), hand: bool = False,
           level: float = 1.0, condition: str | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    light = room_lighting(rng)
    light.level *= level
    image = render(Scene(PIECES, pieces, CAM.shaken(rng), light, hand=hand, seed=seed,
                         shift=shift)).image
    return CONDITIONS[condition](image, rng) if condition else image


def _said_moved(pieces: str, seed: int, shift: tuple[float, float], axis: str) -> None:
    """The picture of a board moved by ``shift`` is said moved, either way:
    most squares '?' and its lines one way off, or (the lines off both ways
    at once, 12 of the 64 intersections seen) its lines not seen."""
    image = _photo(pieces, seed, shift)
    reader = CameraReader(_profile(pieces))
    cells = reader.read(image)
    why = blindness(image, reader)
    if why is not None:
        assert why[0] == "does not see the board's lines" and "moved against its markers" in why[1]
        return
    assert cells.count("?") >= 25
    words = unclear(reader)
    assert words is not None
    assert words.startswith(f"the board seems to have moved a little against its markers, {axis}:")
    assert words.endswith("put it back where it was at calibration, or calibrate it again")


@pytest.mark.parametrize("pieces", ["white-black", "stone-brown"])
@pytest.mark.parametrize("way", list(AXIS), ids=[f"{u:+}{v:+}" for u, v in AXIS])
@pytest.mark.parametrize("by", [0.2, 0.3, 0.4])
def test_a_board_moved_a_little_against_its_markers_is_said_so(
        pieces: str, way: tuple[int, int], by: float) -> None:
    # Before, nothing was said: most squares read '?' and the page named
    # them, 'a1, b1, c1 and 34 more not seen clearly (a hand, a reflection
    # or something on the board?)'.
    _said_moved(pieces, 100 + int(by * 100), (by * way[0], by * way[1]), AXIS[way])


@pytest.mark.parametrize("seed", range(900, 908))
def test_held_back_a_board_moved_a_little_is_said_so(seed: int) -> None:
    rng = np.random.default_rng(seed)
    way = list(AXIS)[seed % 4]
    by = float(rng.uniform(0.2, 0.4))
    pieces = ("stones", "red-green")[seed % 2]
    _said_moved(pieces, seed, (by * way[0], by * way[1]), AXIS[way])


def test_a_light_far_from_the_calibration_is_said_in_words_for_light() -> None:
    # two and a half times the light of the room (the sun on the board)
    reader = CameraReader(_profile("white-black"))
    cells = reader.read(_photo("white-black", 401, level=2.5))
    assert cells.count("?") >= 25 and blindness(_photo("white-black", 401, level=2.5),
                                                reader) is None
    words = unclear(reader)
    assert words is not None and words.startswith(
        "the squares do not look as they did at calibration: the light changed a lot")


def _watched(pictures: list[tuple[float, np.ndarray]], profile: CameraProfile,
             check: Callable[[float, str | None], None]) -> UnclearWatch:
    """The watch over pictures taken at the times given (seconds), one
    reader following them as the stream's does; ``check`` sees the page's
    words after each (those of the watch for pieces the calibration does
    not know too)."""
    reader = CameraReader(profile)
    watch, pieces = UnclearWatch("0"), PiecesWatch("0")
    for t, image in pictures:
        reader.read(image)
        watch.update(reader, 1_000_000.0 + t, t)
        pieces.update(reader, 1_000_000.0 + t, t)
        check(t, watch.problem(t) or pieces.problem())
    return watch


def test_a_board_moved_a_little_is_said_after_five_seconds_and_not_before() -> None:
    # the board nudged by a third of a square towards rank 7, a picture every
    # half second, a hand over it for a second after three seconds
    pictures = [(t / 2, _photo("blue-pink", 600 + t, (0.0, 0.33), hand=t in (6, 7)))
                for t in range(13)]
    said: list[tuple[float, str | None]] = []
    watch = _watched(pictures, _profile("blue-pink"), lambda t, p: said.append((t, p)))
    assert all(p is None for t, p in said if t < 5.0)
    assert all(p is not None for t, p in said if t >= 5.0)
    words = said[-1][1]
    assert words is not None and words.startswith("the camera 0 reads most squares as unknown "
                                                  "since ")
    assert "moved a little against its markers, towards rank 1 or rank 7" in words
    # put back: a second of pictures of the board read again ends it
    reader = CameraReader(_profile("blue-pink"))
    for t in (7.0, 7.5, 8.0):
        reader.read(_photo("blue-pink", 620 + int(t)))
        watch.update(reader, 1_000_000.0 + t, t)
        assert (watch.problem(t) is None) == (t >= 8.0)


def test_a_board_read_badly_but_for_one_good_picture_now_and_then_is_said() -> None:
    # the board nudged by a third of a square towards the g file, put back
    # for one picture in four (before, that picture ended the count: never said)
    pictures = [(t / 2, _photo("red-green", 640 + t, (0.0, 0.0) if t % 4 == 3 else (0.34, 0.0)))
                for t in range(14)]
    said: list[tuple[float, str | None]] = []
    _watched(pictures, _profile("red-green"), lambda t, p: said.append((t, p)))
    assert all(p is None for t, p in said if t < 5.0)
    assert all(p is not None and "towards the a or the g file" in p for t, p in said if t >= 5.0)


def _play(pieces: str, seed: int, condition: str | None) -> list[tuple[float, np.ndarray]]:
    """Twelve seconds of play, a picture every half second: a hand over the
    board for two seconds out of every four, somewhere else each time."""
    return [(k / 2, _photo(pieces, seed + k, hand=k % 8 < 4, condition=condition))
            for k in range(24)]


def _never_said(t: float, problem: str | None) -> None:
    assert problem is None, f"said at {t} s: {problem}"


@pytest.mark.parametrize(("pieces", "condition"), [
    ("white-black", None), ("stone-brown", "dark room"), ("red-green", "lamp hot spot"),
    ("blue-pink", "warm lamp"),
])
def test_hands_over_the_board_in_a_dim_or_lamp_lit_room_are_never_said(
        pieces: str, condition: str | None) -> None:
    _watched(_play(pieces, 700, condition), _profile(pieces), _never_said)


@pytest.mark.parametrize(("pieces", "condition"), [
    ("stones", "dark room"), ("stone-brown", "hard shadow"), ("white-black", "noise and JPEG 35"),
])
def test_held_back_hands_over_the_board_are_never_said(pieces: str, condition: str) -> None:
    _watched(_play(pieces, 920, condition), _profile(pieces), _never_said)

