"""A board moved against its markers (the markers on a sheet of their own, or
taped beside it), by a whole square or half of one: by a whole square every
grid line but one falls where the profile has a line, and each square would
be read one square off; by half a square most intersections still show a
line. The board's lines going on past its edge as calibrated give it away:
every square reads '?', and the page and ``camera read`` say why and which
way. A board in place, under any of the rooms the benchmark puts it in, is
not taken for moved."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_video import CAM

from calibration.bench import LAYOUT
from calibration.camera import CameraProfile, CameraReader, board_in_view, calibrate
from calibration.conditions import CONDITIONS
from calibration.render import Lighting, Scene, render, room_lighting
from controller.cli import main
from controller.drivers.camera import blindness

PIECES = "a.d..a." "..a.d.." "d...a.." ".a.d..d" "..d...a" "a...d.." ".d.a..."
EMPTY = "." * 49
TOWARDS = {(1.0, 0.0): "the g file", (-1.0, 0.0): "the a file", (0.0, 1.0): "rank 7",
           (0.0, -1.0): "rank 1", (0.5, 0.0): "the g file", (-0.5, 0.0): "the a file",
           (0.0, 0.5): "rank 7", (0.0, -0.5): "rank 1"}


@pytest.fixture(scope="module")
def profile() -> CameraProfile:
    light = Lighting(level=1.0, gradient=(0.1, 0.1), blur=0.8, noise=2, jpeg=90)
    empty, layout = (render(Scene(cells, "white-black", CAM, light, seed=seed)).image
                     for cells, seed in ((EMPTY, 1), (LAYOUT, 2)))
    return calibrate(empty, layout, LAYOUT)


def _photo(cells: str, seed: int, shift: tuple[float, float] = (0.0, 0.0),
           hand: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return render(Scene(cells, "white-black", CAM.shaken(rng), room_lighting(rng), hand=hand,
                        seed=seed, shift=shift)).image


@pytest.mark.parametrize("cells", [PIECES, EMPTY], ids=["pieces", "empty"])
@pytest.mark.parametrize("shift", list(TOWARDS), ids=[f"{u:+}{v:+}" for u, v in TOWARDS])
def test_a_board_moved_against_its_markers_reads_nothing_and_says_which_way(
        profile: CameraProfile, shift: tuple[float, float], cells: str) -> None:
    # Before, a whole square's shift read 41-42 squares one square off (the
    # pieces of the a file on the b file) and the line on the board's far
    # side as '?', with every grid line the check looks for in view; half a
    # square left a wrong square now and then and nothing said.
    image = _photo(cells, 10 + int(4 * shift[0] + 2 * shift[1]), shift)
    reader = CameraReader(profile)
    assert reader.read(image) == "?" * 49
    assert not board_in_view(reader)
    why = blindness(image, reader)
    assert why is not None and why[0] == "sees the board moved against its markers"
    assert f"past its edge towards {TOWARDS[shift]}," in why[1]
    assert "calibrate it again" in why[1]


def test_a_photo_of_a_moved_board_is_refused_in_one_line(
        profile: CameraProfile, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "profile.json").write_text(json.dumps(profile.to_json()))
    cv2.imwrite(str(tmp_path / "moved.png"), _photo(PIECES, 20, (0.0, -1.0)))
    assert main(["camera", "read", str(tmp_path / "moved.png"),
                 "--profile", str(tmp_path / "profile.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "has moved against its markers since calibration" in err
    assert "towards rank 1" in err


@pytest.mark.parametrize("condition", ["none", *CONDITIONS])
def test_a_board_in_place_is_not_taken_for_moved(profile: CameraProfile,
                                                 condition: str) -> None:
    rng = np.random.default_rng(30)
    for k, cells in enumerate((PIECES, EMPTY, PIECES)):
        image = _photo(cells, 30 + k, hand=k == 2)
        if condition != "none":
            image = CONDITIONS[condition](image, rng)
        reader = CameraReader(profile)
        got = reader.read(image)
        assert reader.last_reading is not None and reader.last_reading.moved == ()
        why = blindness(image, reader)
        assert why is None or "moved" not in why[0]
        if condition == "none":
            assert got.count("?") < 49 and all(
                g in ("?", c) for g, c in zip(got, cells, strict=True))
