"""Pieces of a set the camera was not calibrated with: the squares where
they stand read '?' picture after picture (no hand over them, the board
plainly seen there, a piece's colour of neither calibrated side), and the
page says so in words after five seconds (``PiecesWatch``), naming them and
what to do; a hand over the board, a dim room, a lamp and each piece set
that was calibrated, never (``test_unclear_board`` runs its twelve seconds
of play past this watch too).

Calibrated and played sets white-black/blue-pink, red-green/white-black
and stone-brown/red-green (seeds 700-723) were looked at to set the
thresholds; the tests marked ``held back`` (seeds 930-953, the ``stones``
set) ran once the code was written and were not tuned on since."""

from __future__ import annotations

import numpy as np
import pytest
from test_unclear_board import PIECES, _photo, _profile

from calibration.camera import CameraReader, square_names
from controller.drivers.camera import PiecesWatch


def _play(calibrated: str, played: str, seed: int) -> list[tuple[float, str | None]]:
    """Twelve seconds of play with the ``played`` set on a camera calibrated
    with ``calibrated``, a picture every half second and a hand over the
    board two seconds in four: the page's words after each picture."""
    reader = CameraReader(_profile(calibrated))
    watch = PiecesWatch("0", "kitchen.json")
    said = []
    for k in range(24):
        t = k / 2
        reader.read(_photo(played, seed + k, hand=k % 8 < 4))
        watch.update(reader, 1_000_000.0 + t, t)
        said.append((t, watch.problem()))
    return said


def _said_after_five_seconds(calibrated: str, played: str, seed: int) -> None:
    said = _play(calibrated, played, seed)
    assert all(p is None for t, p in said if t < 5.0)
    words = said[-1][1]
    assert words is not None, "never said"
    assert words.startswith("the camera 0 cannot tell the pieces on ")
    assert " from the calibrated ones since " in words
    assert words.endswith("(another piece set? calibrate it again with these pieces: "
                          "kharbga-board calibrate camera --live 0 --out kitchen.json)")
    # the squares named are squares where pieces stand
    named = words.split(" cannot tell the pieces on ")[1].split(" from the calibrated")[0]
    first = [n for n in named.replace(" and", ",").split(", ") if len(n) == 2]
    assert first and all(PIECES[(int(n[1]) - 1) * 7 + "abcdefg".index(n[0])] != "."
                         for n in first)


@pytest.mark.parametrize(("calibrated", "played"), [
    ("white-black", "blue-pink"), ("red-green", "white-black"), ("stone-brown", "red-green"),
])
def test_another_piece_set_is_said_after_five_seconds_with_its_squares(
        calibrated: str, played: str) -> None:
    # Before, the status line named the squares not seen ('a1, c1, d3 and 10
    # more not seen clearly (a hand, a reflection or something on the
    # board?)') and never why.
    _said_after_five_seconds(calibrated, played, 700)


def test_held_back_another_piece_set_is_said() -> None:
    # Held back with it, blue-pink calibrated and stone-brown played: every
    # piece read as a Defender (16 squares wrong a picture, hardly a '?'),
    # which this watch cannot see (docs/camera.md, Limits).
    _said_after_five_seconds("stones", "blue-pink", 930)


def test_the_set_put_back_ends_it() -> None:
    reader = CameraReader(_profile("white-black"))
    watch = PiecesWatch("0")
    for k in range(24):
        reader.read(_photo("blue-pink", 700 + k))
        watch.update(reader, 1_000_000.0 + k / 2, k / 2)
    assert watch.problem() is not None
    # the calibrated set set out again: once its squares have been read for
    # a second, nothing is said
    for k in range(24, 28):
        reader.read(_photo("white-black", 700 + k))
        watch.update(reader, 1_000_000.0 + k / 2, k / 2)
        assert (watch.problem() is None) == (k >= 26)


def test_square_names() -> None:
    assert square_names([0]) == "a1"
    assert square_names([8, 0]) == "a1 and b2"
    assert square_names([0, 8, 48]) == "a1, b2 and g7"
    assert square_names(list(np.arange(0, 20).tolist())) == "a1, b1 and 18 more squares"
