"""The calibration photos and a game photo the camera commands' file
tests read, rendered into one folder (tests/camera/test_own_files.py,
test_bad_files.py)."""

from __future__ import annotations

from pathlib import Path

import cv2

from calibration.bench import LAYOUT
from calibration.camera import calibrate_camera
from calibration.render import Camera, Lighting, Scene, render

CAM = Camera(angle=-6, scale=520, tilt=0.15, cx=640, cy=360)
LIGHT = Lighting(level=1.0, gradient=(0.1, 0.1), blur=0.8, noise=2, jpeg=90)
GAME = "d.a..ad" * 7  # what game.png shows


def photo_folder(d: Path) -> Path:
    """``d`` with empty.png, layout.png (``LAYOUT``), game.png (``GAME``)
    and profile.json, calibrated from the first two."""
    for name, cells, seed in (("empty.png", "." * 49, 1), ("layout.png", LAYOUT, 2),
                              ("game.png", GAME, 7)):
        cv2.imwrite(str(d / name), render(Scene(cells, "blue-pink", CAM, LIGHT,
                                                seed=seed)).image)
    calibrate_camera(d / "empty.png", d / "layout.png", LAYOUT, d / "profile.json")
    return d
