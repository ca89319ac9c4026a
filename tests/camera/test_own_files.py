"""The camera commands never write over the files they read: a profile named
as one of its calibration photos, an overlay named as a picture being read
or written into the folder being read, two overlays to one file; and a
spoilt profile is told in one line naming the field."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import pytest
from photo_folder import GAME, LAYOUT, photo_folder

from controller.cli import main


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """empty.png, layout.png, profile.json and game.png in one folder."""
    return photo_folder(tmp_path_factory.mktemp("own"))


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line of a refusal (exit status 2, nothing on standard output)."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, (out, err)
    return err.removeprefix("kharbga-board: ").rstrip("\n")


@pytest.mark.parametrize(("out", "what"), [
    # Before: exit 0, the photo replaced by the profile's JSON.
    ("empty.png", "the empty-board photo (--empty)"),
    ("./empty.png", "the empty-board photo (--empty)"),
    ("sub/../layout.png", "the layout photo (--layout)"),
    ("link.json", "the empty-board photo (--empty)"),  # a symbolic link to it
    ("hard.json", "the layout photo (--layout)"),  # a hard link to it
])
def test_the_profile_is_not_written_over_a_calibration_photo(
        made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], out: str, what: str) -> None:
    for name in ("empty.png", "layout.png"):
        shutil.copy(made / name, tmp_path / name)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.json").symlink_to(tmp_path / "empty.png")
    os.link(tmp_path / "layout.png", tmp_path / "hard.json")
    before = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    said = _refused(capsys, ["calibrate", "camera", "--empty", "empty.png", "--layout",
                             "layout.png", "--cells", LAYOUT, "--out", out])
    assert said == (f"cannot write camera profile {out}: it is {what}, which it would "
                    "replace: give --out another name (camera.json)")
    assert _files(tmp_path) == before


def test_the_live_profile_is_not_written_over_the_video_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the page started, and pressing Layout replaced the video.
    video = tmp_path / "clip.avi"
    video.write_bytes(b"a video")
    monkeypatch.chdir(tmp_path)

    def started(*args: object) -> None:
        raise AssertionError("the camera was opened")

    monkeypatch.setattr("calibration.live.FrameGrabber", started)
    said = _refused(capsys, ["calibrate", "camera", "--live", "clip.avi", "--out",
                             "./clip.avi"])
    assert said == ("cannot write camera profile ./clip.avi: it is the video being read "
                    "(--live), which it would replace: give --out another name (camera.json)")
    assert video.read_bytes() == b"a video"


@pytest.mark.parametrize("explain", ["v.png", "./v.png", "{}.png", "link.png"])
def test_the_overlay_is_not_written_over_the_photo_read(
        made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], explain: str) -> None:
    # Before: the cells printed, exit 0, the photo replaced by its overlay.
    shutil.copy(made / "game.png", tmp_path / "v.png")
    (tmp_path / "link.png").symlink_to(tmp_path / "v.png")
    before = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    said = _refused(capsys, ["camera", "read", "--profile", str(made / "profile.json"),
                             "v.png", "--explain", explain])
    assert said == (f"cannot write --explain {explain}: it would write over v.png, the "
                    "picture being read: give the overlay another name")
    assert _files(tmp_path) == before


def test_the_overlay_is_not_written_over_the_profile(
        made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "profile.png"  # a profile given a picture's name
    shutil.copy(made / "profile.json", profile)
    said = _refused(capsys, ["camera", "read", "--profile", str(profile),
                             str(made / "game.png"), "--explain", str(profile)])
    assert said == (f"cannot write --explain {profile}: it would write over {profile}, the "
                    "profile: give the overlay another name")
    assert profile.read_bytes() == (made / "profile.json").read_bytes()


def test_two_photos_of_one_name_are_refused_before_any_is_read(
        made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: both read, the overlay of f2.png written over that of f2.jpg.
    photos = tmp_path / "photos"
    photos.mkdir()
    game = cv2.imread(str(made / "game.png"))
    for name in ("f1.png", "f2.jpg", "f2.png"):
        cv2.imwrite(str(photos / name), game)
    explain = tmp_path / "overlays" / "x{}.png"
    said = _refused(capsys, ["camera", "read", "--profile", str(made / "profile.json"),
                             str(photos), "--explain", str(explain)])
    assert said == (f"cannot write --explain {explain}: the overlays of {photos / 'f2.jpg'} "
                    f"and {photos / 'f2.png'} would both be {tmp_path / 'overlays/xf2.png'} "
                    "({} is a photo's name without its extension): rename one of them")
    assert not (tmp_path / "overlays").exists()
    # One overlay, of the last frame, is no clash.
    assert main(["camera", "read", "--profile", str(made / "profile.json"), str(photos),
                 "--explain", str(tmp_path / "last.png")]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{n} {GAME}" for n in
                                                    ("f1.png", "f2.jpg", "f2.png")]


@pytest.mark.parametrize("explain", ["photos/x{}.png", "photos/last.png", "./photos/{}.jpg",
                                     "link/x{}.png"])
def test_overlays_are_not_written_into_the_folder_read(
        made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], explain: str) -> None:
    # Before: written there, the next read of the folder failed on them
    # ("photos (xf1.png) is 1640x720 but the profile was made from 1280x720
    # pictures").
    photos = tmp_path / "photos"
    photos.mkdir()
    shutil.copy(made / "game.png", photos / "f1.png")
    (tmp_path / "link").symlink_to(photos)
    before = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    said = _refused(capsys, ["camera", "read", "--profile", str(made / "profile.json"),
                             "photos", "--explain", explain])
    assert said == (f"cannot write --explain {explain}: it writes into the folder being read "
                    "(photos), where the next read would take the overlays for photos: "
                    "write them in another folder")
    assert _files(tmp_path) == before


def test_an_overlay_in_the_folder_read_is_named_as_one(
        made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An overlay put there by hand: said for what it is.
    photos = tmp_path / "photos"
    photos.mkdir()
    shutil.copy(made / "game.png", photos / "f1.png")
    assert main(["camera", "read", "--profile", str(made / "profile.json"), str(photos),
                 "--explain", str(tmp_path / "x{}.png")]) == 0
    shutil.move(tmp_path / "xf1.png", photos / "xf1.png")
    capsys.readouterr()
    assert main(["camera", "read", "--profile", str(made / "profile.json"), str(photos)]) == 2
    out, err = capsys.readouterr()
    assert out == f"f1.png {GAME}\n"
    assert err == (f"kharbga-board: {photos} (xf1.png) is 1640x720, the size of an overlay "
                   "written by camera read --explain, not of a camera picture (1280x720): read "
                   "only the camera's pictures (move overlays out of the folder)\n")


@pytest.mark.parametrize(("spoil", "words"), [
    # Before: "corrupt camera profile (KeyError: 'floor')".
    (lambda d: d.update(model={}), "floor is missing from model"),
    # Before: "(TypeError: list indices must be integers or slices, not str)".
    (lambda d: d.update(model=[]),
     "model must be an object (floor, max_dist, margin, means, covs), not []"),
    # Before: "(KeyError: 'empty_top_png')".
    (lambda d: d.pop("empty_top_png"), "empty_top_png is missing"),
])
def test_a_spoilt_profile_names_the_field(made: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          spoil, words: str) -> None:
    data = json.loads((made / "profile.json").read_text())
    spoil(data)
    bad = tmp_path / "P.json"
    bad.write_text(json.dumps(data))
    said = _refused(capsys, ["camera", "read", "--profile", str(bad), str(made / "game.png")])
    assert said == f"camera profile {bad}: corrupt camera profile ({words})"
