"""``kharbga-board doctor --camera``: exposure and white-balance locks read from
v4l2-ctl's listing, frame rate and markers seen on a video file; a camera
that cannot be opened is one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.doctor import camera_locks, parse_controls
from calibration.render import Camera, Lighting, Scene, render
from controller.cli import main

LISTING = """
User Controls

                     brightness 0x00980900 (int)    : min=-64 max=64 step=1 default=0 value=0
        white_balance_automatic 0x0098090c (bool)   : default=1 value=0
      white_balance_temperature 0x0098091a (int)    : min=2800 max=6500 default=4600 value=4600
Camera Controls

      auto_exposure 0x009a0901 (menu)   : min=0 max=3 default=3 value=3 (Aperture Priority Mode)
      exposure_time_absolute 0x009a0902 (int)    : min=1 max=5000 default=157 value=157
"""


def test_locks_are_read_from_the_listing() -> None:
    controls = parse_controls(LISTING)
    assert controls["auto_exposure"] == 3 and controls["white_balance_automatic"] == 0
    assert camera_locks(controls) == {"exposure": False, "white balance": True}
    assert camera_locks(parse_controls("exposure_auto (menu) : min=0 max=3 value=1")) == {
        "exposure": True, "white balance": None}


def test_video_file_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "cam.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 720))
    img = render(Scene("." * 49, "white-black", Camera(), Lighting(), seed=1)).image
    blank = np.full_like(img, 120)
    for frame in (img, img, blank):
        w.write(frame)
    w.release()
    assert main(["doctor", "--camera", str(video), "--seconds", "5"]) == 1
    out = capsys.readouterr().out
    assert "marker 0: seen in 2 of 3 frames" in out and "frame rate:" in out
    assert out.splitlines()[-1] == "camera needs attention"
    assert main(["doctor", "--camera", str(tmp_path / "none.mp4")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no camera or video" in err


def test_a_video_cut_short_is_said_in_the_report(tmp_path: Path,
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    # Before: FFmpeg's "[mjpeg @ 0x...] overread 8" on the terminal, then
    # "camera ready", exit status 0.
    video = tmp_path / "cam.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    img = render(Scene("." * 49, "white-black", Camera(), Lighting(), seed=1)).image
    for _ in range(10):
        w.write(img)
    w.release()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(video.read_bytes()[:video.stat().st_size // 2])
    assert main(["doctor", "--camera", str(cut), "--seconds", "5"]) == 1
    out, err = capfd.readouterr()
    assert err == ""
    said = [ln for ln in out.splitlines() if ln.startswith("the video")]
    assert len(said) == 1 and said[0].startswith(
        f"the video {cut} ends after "), out
    assert " of the 10 pictures its header gives: cut short or damaged" in said[0]
    assert out.splitlines()[-1] == "camera needs attention"


def test_a_short_watch_still_reads_a_picture(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "camera cam.avi opened but gave no picture", exit status 2:
    # the time was up before the first picture was asked for.
    video = tmp_path / "cam.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 720))
    w.write(render(Scene("." * 49, "white-black", Camera(), Lighting(), seed=1)).image)
    w.release()
    assert main(["doctor", "--camera", str(video), "--seconds", "1e-9"]) == 0
    out = capsys.readouterr().out
    assert "(1 frames in 0.0 s)" in out and out.splitlines()[-1] == "camera ready"
