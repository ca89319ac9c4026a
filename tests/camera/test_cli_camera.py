"""The camera commands of kharbga-board: the marker sheet, calibration from
two rendered photos, reading a photo (cells as the last line of standard
output); bad input exits 2 with one line."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from calibration.render import Camera, Lighting, Scene, render
from controller.cli import main

LAYOUT = "".join("ad."[(i * 5) % 3] for i in range(49))
LIGHT = Lighting(level=1.0, gradient=(0.1, 0.1), blur=0.8, noise=2, jpeg=90)


def test_camera_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "markers", "--out", str(tmp_path / "sheet.png")]) == 0
    assert (tmp_path / "sheet.png").exists() and (tmp_path / "sheet-board.png").exists()
    cam = Camera(angle=-6, scale=520, tilt=0.15, cx=640, cy=360)
    for name, cells, seed in (("empty.png", "." * 49, 1), ("layout.png", LAYOUT, 2)):
        cv2.imwrite(str(tmp_path / name), render(Scene(cells, "blue-pink", cam, LIGHT,
                                                       seed=seed)).image)
    profile = tmp_path / "profile.json"
    assert main(["calibrate", "camera", "--empty", str(tmp_path / "empty.png"), "--layout",
                 str(tmp_path / "layout.png"), "--cells", LAYOUT, "--out", str(profile)]) == 0
    cells = "d.a..ad" * 7
    cv2.imwrite(str(tmp_path / "game.png"),
                render(Scene(cells, "blue-pink", cam, Lighting(level=0.85), seed=7)).image)
    capsys.readouterr()
    assert main(["camera", "read", str(tmp_path / "game.png"), "--profile", str(profile)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == cells
    # Bad input: one line, exit 2.
    assert main(["camera", "read", str(tmp_path / "missing.jpg"), "--profile",
                 str(profile)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["calibrate", "camera", "--empty", str(tmp_path / "empty.png"), "--layout",
                 str(tmp_path / "layout.png"), "--cells", "x", "--out", str(profile)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_photo_cut_short_is_refused_in_one_line(tmp_path: Path,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    # Before: a half-grey picture read (exit 0, '?' for the lost squares)
    # with libjpeg's own "Premature end of JPEG file" on the terminal.
    cam = Camera(angle=-6, scale=520, tilt=0.15, cx=640, cy=360)
    photo = tmp_path / "half.jpg"
    cv2.imwrite(str(photo), render(Scene(LAYOUT, "blue-pink", cam, LIGHT, seed=3)).image)
    data = photo.read_bytes()
    photo.write_bytes(data[:len(data) // 2])
    assert main(["calibrate", "camera", "--empty", str(photo), "--layout", str(photo),
                 "--cells", LAYOUT, "--out", str(tmp_path / "profile.json")]) == 2
    out, err = capfd.readouterr()
    assert out == "" and not (tmp_path / "profile.json").exists()
    # (libjpeg's words added where it decoded a part: the rest grey.)
    assert err.startswith(f"kharbga-board: cannot read image {photo}: the picture is cut "
                          "short or damaged") and err.count("\n") == 1, err


@pytest.mark.parametrize(("out", "words"), [
    # Before: "error: OpenCV(5.0.0) ... could not find a writer for the
    # specified extension in function 'imwrite_' (KHARBGA_DEBUG=1 shows details)".
    ("sheet.txt", "sheet.txt: not a PNG file name: give one ending in .png"),
    # Before: written as a lossy JPEG, with OpenCV's "imwrite_ An unsupported key" warning.
    ("sheet.jpg", "sheet.jpg: not a PNG file name: give one ending in .png"),
    (".", ".: is a directory: give the PNG file to write in it"),
])
def test_the_marker_sheet_needs_a_png_file_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        out: str, words: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "markers", "--out", out]) == 2
    assert capsys.readouterr().err == f"kharbga-board: {words}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("argv", "argument"), [
    # Before: the current folder read as a folder of photos, exit status 0.
    (["camera", "read", "", "--profile", "p.json"], "SOURCE"),
    # Before: "camera profile .: is a directory, not a file".
    (["camera", "read", "x.png", "--profile", ""], "--profile"),
    (["camera", "read", "x.png", "--profile", "p.json", "--explain", ""], "--explain"),
    (["calibrate", "camera", "--empty", "", "--layout", "l.png", "--cells", "x", "--out",
      "p.json"], "--empty"),
    (["calibrate", "camera", "--empty", "e.png", "--layout", " ", "--cells", "x", "--out",
      "p.json"], "--layout"),
    # Before: "cannot write camera profile .: [Errno 21] Is a directory: '.'".
    (["calibrate", "camera", "--live", "0", "--out", ""], "--out"),
    (["calibrate", "markers", "--out", ""], "--out"),
])
def test_an_empty_path_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                  argument: str) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"argument {argument}: an empty path: give one" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["photo.png/sheet.png", "photo.png/sub/sheet.png"])
def test_the_marker_sheet_under_a_file_says_why_it_cannot_be_written(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        out: str) -> None:
    # Before: "[Errno 17] File exists: 'photo.png'" (or "[Errno 20] Not a
    # directory"), naming neither the sheet nor what is wrong; a folder that
    # could not be written, OpenCV's "[ WARN:0@0.044] global loadsave.cpp:1145
    # imwrite_ ...: can't open file for writing" above "cannot write ...".
    monkeypatch.chdir(tmp_path)
    (tmp_path / "photo.png").write_bytes(b"x")
    assert main(["calibrate", "markers", "--out", out]) == 2
    assert capfd.readouterr().err == (f"kharbga-board: cannot write {out}: a file on its path "
                                      "is not a folder\n")
    assert [p.name for p in tmp_path.iterdir()] == ["photo.png"]


SQUARE = ("--square-mm must be a number of millimetres, 10 to 129.1 (a board's square; a "
          "marker is 0.8 of it, and four fit an A4 sheet), not ")


@pytest.mark.parametrize(("option", "value", "words"), [
    # Before: "cannot convert float NaN to integer".
    ("--square-mm", "nan", SQUARE + "nan"),
    ("--square-mm", "-1", SQUARE + "-1"),
    # Before: OpenCV's "(-215:Assertion failed) sidePixels >= ..." on three lines.
    ("--square-mm", "0.0001", SQUARE + "0.0001"),
    # Before: "square_mm 200.0 too large for an A4 marker sheet", the option not named.
    ("--square-mm", "200", SQUARE + "200"),
    # Before: "MemoryError: Unable to allocate 859. PiB for an array ...".
    ("--dpi", "100000000", "--dpi must be 50 to 1200, not 100000000"),
    ("--dpi", "10", "--dpi must be 50 to 1200, not 10"),
])
def test_the_marker_sheet_refuses_sizes_no_printer_has(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str,
        words: str) -> None:
    out = tmp_path / "sheet.png"
    assert main(["calibrate", "markers", "--out", str(out), option, value]) == 2
    assert capsys.readouterr().err == f"kharbga-board: {words}\n"
    assert not out.exists()


def test_the_empty_boards_photo_given_as_the_layout_is_told_for_what_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The paper board (no pieces on it) given as the layout's photo too:
    before, "the layout has no 'a' square to learn from" though the cells
    hold 17."""
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.png")]) == 0
    board = str(tmp_path / "m-board.png")
    capsys.readouterr()
    cells = ("ad." * 17)[:49]
    assert main(["calibrate", "camera", "--empty", board, "--layout", board, "--cells", cells,
                 "--out", str(tmp_path / "p.json")]) == 2
    assert capsys.readouterr().err == (
        "kharbga-board: the layout photo shows none of the layout's 17 'a' squares clearly "
        "enough to learn from: is it the photo of the layout, with the pieces set as the "
        "cells say (not the empty board's photo)?\n")
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize("dpi", [50, 72, 150])
def test_the_largest_square_offered_fits_the_sheet(tmp_path: Path, dpi: int) -> None:
    # The bound the refusal names is one the sheet takes, at any resolution.
    import math

    from calibration.markers import largest_square_mm

    most = math.floor(largest_square_mm(dpi) * 10) / 10
    out = tmp_path / "sheet.png"
    assert main(["calibrate", "markers", "--out", str(out), "--square-mm", str(most),
                 "--dpi", str(dpi)]) == 0
    assert out.exists()
    assert main(["calibrate", "markers", "--out", str(out), "--square-mm",
                 str(round(most + 0.1, 1)), "--dpi", str(dpi)]) == 2
