"""``kharbga-board camera read`` on a folder of photos and on a video, with the
explain overlay; what cannot be read gets one line and exit status 2."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.bench import LAYOUT
from calibration.camera import CameraReader, calibrate_camera, load_profile
from calibration.explain import light_summary
from calibration.render import Camera, Lighting, Scene, render, room_lighting
from controller.cli import main

CAM = Camera(angle=12, scale=540, tilt=0.15, cx=640, cy=360)
CELLS = ["ad.a.d." * 7, "." * 24 + "a" + "." * 24, "dd.aa..d" * 6 + "a"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("read")
    rng = np.random.default_rng(5)
    for name, cells, seed in (("empty.png", "." * 49, 1), ("layout.png", LAYOUT, 2)):
        cv2.imwrite(str(d / name), render(Scene(cells, "red-green", CAM, room_lighting(rng),
                                                seed=seed)).image)
    calibrate_camera(d / "empty.png", d / "layout.png", LAYOUT, d / "profile.json")
    photos = d / "photos"
    photos.mkdir()
    for k, cells in enumerate(CELLS):
        img = render(Scene(cells, "red-green", CAM, room_lighting(rng), seed=10 + k)).image
        cv2.imwrite(str(photos / f"{k:02d}.png"), img)
    return d, photos


def test_folder_prints_one_line_a_photo_and_explains_each(
        setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    d, photos = setup
    out = d / "explain" / "frame-{}.png"
    assert main(["camera", "read", str(photos), "--profile", str(d / "profile.json"),
                 "--explain", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{k:02d}.png {c}" for k, c in enumerate(CELLS)]
    for k in range(len(CELLS)):
        pic = cv2.imread(str(d / "explain" / f"frame-{k:02d}.png"))
        assert pic is not None and pic.shape[0] == 720 and pic.shape[1] > 1280


def test_video_prints_one_line_a_frame(setup: tuple[Path, Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    d, photos = setup
    video = d / "game.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 720))
    for p in sorted(photos.iterdir()):
        w.write(cv2.imread(str(p)))
    w.release()
    assert main(["camera", "read", str(video), "--profile", str(d / "profile.json"),
                 "--explain", str(d / "last.png")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["0", "1", "2"]
    got = [ln.split()[1] for ln in lines]
    # MJPEG recompresses: a square may turn '?', never into another piece
    for g, want in zip(got, CELLS, strict=True):
        assert all(a in ("?", b) for a, b in zip(g, want, strict=True)), (g, want)
    assert sum(g == want for g, want in zip(got, CELLS, strict=True)) >= 2
    assert cv2.imread(str(d / "last.png")) is not None


def test_light_summary_sees_the_light_change(setup: tuple[Path, Path]) -> None:
    d, _ = setup
    profile = load_profile(d / "profile.json")
    summaries = []
    for level, tint in ((0.7, 1.0), (1.3, 1.12)):
        light = Lighting(level=level, white=(1.0, 1.0, tint), linear=True)
        reader = CameraReader(profile)
        assert reader.read(render(Scene(CELLS[0], "red-green", CAM, light, seed=3)).image) \
            == CELLS[0]
        assert reader.last_reading is not None
        summaries.append(light_summary(reader.last_reading))
    dark, bright = summaries
    assert bright["gain"] > 1.3 * dark["gain"]
    assert bright["tint_red"] > 1.05 * dark["tint_red"]


def test_bad_sources_get_one_line(setup: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    d, photos = setup
    prof = str(d / "profile.json")
    junk = tmp_path / "clip.mp4"
    junk.write_bytes(b"not a video")
    blank = tmp_path / "blank"
    blank.mkdir()
    cv2.imwrite(str(blank / "a.png"), np.full((720, 1280, 3), 128, np.uint8))
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(photos / "00.png")), (640, 360)))
    (tmp_path / "nothing").mkdir()
    for source, msg in ((junk, "cannot open video"), (tmp_path / "nothing", "no pictures"),
                        (tmp_path / "none", "no such file"),
                        (small, "640x360"), (blank, "not located in any frame")):
        assert main(["camera", "read", str(source), "--profile", prof]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err and "Traceback" not in err, err


def test_a_profile_from_another_board_is_one_line(setup: tuple[Path, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    d, _ = setup
    # the same markers stuck around another board: its grid painted over with wood
    scene = Scene("." * 49, "red-green", CAM, Lighting(), seed=3, wood=(90, 140, 190))
    img = render(scene).image
    pts = cv2.perspectiveTransform(np.array([[[-0.1, -0.1]], [[7.1, -0.1]], [[7.1, 7.1]],
                                             [[-0.1, 7.1]]]), CAM.homography())
    other = img.copy()
    cv2.fillPoly(other, [pts.reshape(-1, 2).astype(np.int32)],
                 tuple(int(c) for c in np.median(img[340:380, 620:660].reshape(-1, 3), 0)))
    cv2.imwrite(str(tmp_path / "other.png"), other)
    assert main(["camera", "read", str(tmp_path / "other.png"), "--profile",
                 str(d / "profile.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not look like the one in the profile" in err


def test_an_explain_picture_that_cannot_be_written_says_why(
        setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # /proc takes no new file: OpenCV's imwrite answers only False, which
    # was told as "not a picture name OpenCV can encode" for a .png.
    d, photos = setup
    photo = sorted(photos.iterdir())[0]
    assert main(["camera", "read", str(photo), "--profile", str(d / "profile.json"),
                 "--explain", "/proc/kharbga-explain.png"]) == 2
    err = capsys.readouterr().err
    assert err == ("kharbga-board: cannot write /proc/kharbga-explain.png: "
                   "no such file or directory\n")


@pytest.mark.parametrize(("explain", "words"), [
    # Before: the photos were read, their cells printed, then "cannot write
    # frame.txt: OpenCV(5.0.0) .../loadsave.cpp:1072: error: (-2:Unspecified
    # error) could not find a writer for the specified extension in function 'imwrite_'".
    ("frame.txt", "frame.txt: not a picture name OpenCV can encode (use .png or .jpg)"),
    ("frame-{}", "frame-{}: not a picture name OpenCV can encode (use .png or .jpg)"),
    (".", ".: is a directory: give the picture to write in it (.png or .jpg)"),
])
def test_an_explain_name_that_cannot_be_written_is_refused_first(
        setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, explain: str, words: str) -> None:
    d, photos = setup
    monkeypatch.chdir(tmp_path)
    assert main(["camera", "read", str(photos), "--profile", str(d / "profile.json"),
                 "--explain", explain]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"kharbga-board: cannot write --explain {words}\n")
    assert list(tmp_path.iterdir()) == []
