"""Pieces of another set read as calibrated ones: each frame's class means
are fitted to its own colours, so another set's pieces can pull a class to
themselves and read as it without a '?' (stone and brown pieces on a camera
calibrated with blue and pink read as Defenders and as empty squares, 16
squares wrong a picture).  Four or more squares read far from their class
as calibrated (in the frame's light) read '?' instead
(``calibration.foreign``), and the page names them (``PiecesWatch``).

Seeds 100-113 (every pair of the five sets) and 150-153 (the calibrated
sets under a lamp's hot spot, a warm lamp, a dim room and a hard shadow)
were looked at to set the distance and the count; the tests marked ``held
back`` (seeds 930-953 and 860-865) ran once the code was written and were
not tuned on since."""

from __future__ import annotations

import pytest
from test_unclear_board import PIECES, _photo, _profile
from test_unknown_pieces import _said_after_five_seconds

from calibration.camera import CameraReader
from calibration.conditions import CONDITIONS


def _wrong(calibrated: str, played: str, seeds: range) -> tuple[int, int]:
    """Squares read wrong, and squares read '?' as far from their class as
    calibrated, over pictures of ``played`` (a hand over every other one)."""
    reader = CameraReader(_profile(calibrated))
    wrong = foreign = 0
    for seed in seeds:
        cells = reader.read(_photo(played, seed, hand=seed % 2 == 0))
        wrong += sum(c not in ("?", t) for c, t in zip(cells, PIECES, strict=True))
        assert reader.last_reading is not None
        foreign += len(reader.last_reading.foreign)
    return wrong, foreign


@pytest.mark.parametrize(("calibrated", "played"), [
    ("blue-pink", "stone-brown"), ("blue-pink", "white-black"), ("stone-brown", "red-green"),
])
def test_another_piece_set_is_not_read_as_the_calibrated_one(calibrated: str,
                                                             played: str) -> None:
    # Before, 27-72 squares wrong in these 8 pictures (up to 16 a picture).
    wrong, foreign = _wrong(calibrated, played, range(106, 114))
    assert wrong == 0
    assert foreign >= 20


@pytest.mark.parametrize("condition", [None, *CONDITIONS])
@pytest.mark.parametrize("pieces", ["white-black", "blue-pink", "red-green", "stone-brown"])
def test_the_calibrated_set_is_never_taken_for_another(pieces: str,
                                                       condition: str | None) -> None:
    reader = CameraReader(_profile(pieces))
    for seed in range(150, 154):
        reader.read(_photo(pieces, seed, hand=seed % 2 == 0, condition=condition))
        assert reader.last_reading is None or not reader.last_reading.foreign


def test_held_back_blue_pink_calibrated_and_stone_brown_played_is_said() -> None:
    # Before, every piece read as a Defender or an empty square, 16 squares
    # wrong a picture and hardly a '?', and nothing was said.
    _said_after_five_seconds("blue-pink", "stone-brown", 930)


@pytest.mark.parametrize(("calibrated", "played"), [
    ("blue-pink", "white-black"), ("stones", "red-green"),
])
def test_held_back_another_set_reads_no_square_wrong(calibrated: str, played: str) -> None:
    # Before, 62 and 19 squares wrong in these six pictures.  Held back with
    # them, white and black calibrated and stone and brown played still
    # read 5 squares wrong (19 before; docs/camera.md, Limits).
    assert _wrong(calibrated, played, range(860, 866))[0] == 0
