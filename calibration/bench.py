"""Benchmark of the camera reader on rendered photos: ``python -m calibration.bench``.

Photos as a room lights a board (``render.room_lighting``): every photo lit
on its own, the two calibration photos too (level 0.6-1.4, gradients, soft
shadows, tint, the camera's tone curve and veiling light, JPEG 60-92), four
piece sets (white/black, blue/pink, red/green, pale stone/brown) on wood of
different shades, camera shake and now and then a bump, a hand over the
board in one frame of three.  A square under the hand may honestly be '?';
anywhere else '?' counts as unknown.  Speed is the reading only (marker
search, homography, warp, light correction, classification) on one core,
printed beside the floor of a bare warp plus 49 means.  ``--steady`` runs
the earlier benchmark (calibration photos under one steady light).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.camera import CameraReader, calibrate
from calibration.render import (
    PIECE_SETS,
    Lighting,
    Rendered,
    Scene,
    bumped,
    random_camera,
    random_cells,
    random_lighting,
    render,
    room_lighting,
)

LAYOUT = "".join("ad."[(i * 5) % 3] for i in range(49))
REFERENCE = "chesscog (chess, synthetic): 0.24% wrong squares, 94% boards exact, 2.1 s/board CPU"


class _Tally:
    """Readings against the rendered truth: wrong and unknown squares (a
    square under the hand may honestly be '?'), photos read exactly, time."""

    def __init__(self) -> None:
        self.wrong = self.unknown = self.visible = self.boards = self.exact = 0
        self.hidden = self.hidden_unknown = 0
        self.elapsed = 0.0

    def read(self, reader: CameraReader, r: Rendered) -> tuple[str, int]:
        """Read ``r`` with ``reader`` and count; returns the cells and how
        many squares were wrong."""
        t = time.perf_counter()
        got = reader.read(r.image)
        self.elapsed += time.perf_counter() - t
        w = sum(1 for i in range(49) if got[i] not in ("?", r.cells[i]))
        u = sum(1 for i in range(49) if got[i] == "?" and not r.hidden[i])
        self.wrong += w
        self.unknown += u
        self.visible += 49 - sum(r.hidden)
        self.hidden += sum(r.hidden)
        self.hidden_unknown += sum(1 for i in range(49) if got[i] == "?" and r.hidden[i])
        self.boards += 1
        self.exact += w == 0 and u == 0
        return got, w

    def figures(self) -> dict[str, float]:
        boards = max(self.boards, 1)
        return {
            "boards": self.boards,
            "squares": self.boards * 49,
            "wrong": self.wrong,
            "wrong_pct": 100 * self.wrong / (boards * 49),
            "unknown_pct": 100 * self.unknown / max(self.visible, 1),
            "exact_pct": 100 * self.exact / boards,
            "hidden_unknown_pct": 100 * self.hidden_unknown / max(self.hidden, 1),
            "fps": self.boards / max(self.elapsed, 1e-9),
            "ms": 1000 * self.elapsed / boards,
        }


def _wood(rng: np.random.Generator, low: tuple[int, int, int],
          high: tuple[int, int, int]) -> tuple[int, int, int]:
    """A board's wood colour (BGR), drawn between two colours."""
    b, g, r = (int(x) for x in rng.uniform(low, high))
    return b, g, r


def run(setups: int = 24, frames: int = 20, seed: int = 0) -> dict[str, float]:
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    base = Lighting(level=1.0, gradient=(0.1, 0.1), blur=0.8, noise=2, jpeg=90)
    tally = _Tally()
    for setup in range(setups):
        pieces = list(PIECE_SETS)[setup % len(PIECE_SETS)]
        cam = random_camera(rng, full_turn=setup % 2 == 1)
        wood = _wood(rng, (60, 110, 150), (130, 180, 220))
        empty = render(Scene("." * 49, pieces, cam, base, seed=1, wood=wood)).image
        layout = render(Scene(LAYOUT, pieces, cam, base, seed=2, wood=wood)).image
        reader = CameraReader(calibrate(empty, layout, LAYOUT))
        for k in range(frames):
            scene = Scene(random_cells(rng), pieces, cam.shaken(rng), random_lighting(rng),
                          hand=k % 3 == 0, seed=1000 * setup + k, wood=wood)
            tally.read(reader, render(scene))
    return tally.figures()


HELD_OUT = (40, 41, 42, 43, 44, 45, 46, 47)  # docs/camera.md's figures: never tuned on
ROOM_SETS = ("white-black", "blue-pink", "red-green", "stone-brown")


def _calibrated(rng: np.random.Generator, base: Scene) -> tuple[CameraReader, int]:
    """Calibrate from an empty and a layout photo, each under its own light; a
    refused calibration (a marker not found) is retaken in new light, as a
    person would.  Returns the reader and the number of tries."""
    for tries in range(1, 4):
        empty = render(Scene("." * 49, base.pieces, base.camera.shaken(rng), room_lighting(rng),
                             seed=base.seed, wood=base.wood)).image
        layout = render(Scene(base.cells, base.pieces, base.camera.shaken(rng),
                              room_lighting(rng), seed=base.seed + 1, wood=base.wood)).image
        try:
            return CameraReader(calibrate(empty, layout, base.cells)), tries
        except ValueError:
            if tries == 3:
                raise
    raise AssertionError("unreachable")


def run_room(setups: int = 8, frames: int = 20, seed: int = 100,
             pieces: tuple[str, ...] = ROOM_SETS) -> dict[str, Any]:
    """The room: every photo lit on its own, the calibration photos too."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    tally = _Tally()
    retakes = 0
    worst: list[tuple[int, str, str]] = []
    for setup in range(setups):
        ps = pieces[setup % len(pieces)]
        cam = random_camera(rng, full_turn=setup % 2 == 1)
        wood = _wood(rng, (50, 100, 140), (140, 190, 230))
        reader, tries = _calibrated(rng, Scene(LAYOUT, ps, cam, seed=seed * 1000 + 2 * setup,
                                               wood=wood))
        retakes += tries - 1
        for k in range(frames):
            if rng.random() < 0.05:
                cam = bumped(cam, rng)
            scene = Scene(random_cells(rng), ps, cam.shaken(rng), room_lighting(rng),
                          hand=k % 3 == 0, seed=seed * 100000 + 1000 * setup + k, wood=wood)
            r = render(scene)
            got, w = tally.read(reader, r)
            if w:
                worst.append((setup * 1000 + k, r.cells, got))
    return {**tally.figures(), "worst": worst, "retakes": retakes}


def stream_sample(out_dir: Path, seed: int = HELD_OUT[0], frames: int = 30,
                  loops: int = 3) -> tuple[Path, Path]:
    """A camera profile and an MJPG video (1280x720, 30 frames/s) of room-lit
    frames with shake and a hand in one of three, for timing the product
    path (``CameraStream`` on the video); returns (video, profile)."""
    import json

    rng = np.random.default_rng(seed)
    cam = random_camera(rng)
    wood = _wood(rng, (50, 100, 140), (140, 190, 230))
    reader, _ = _calibrated(rng, Scene(LAYOUT, "white-black", cam, seed=seed, wood=wood))
    profile = out_dir / "camera.json"
    profile.write_text(json.dumps(reader.profile.to_json()), encoding="utf-8")
    video = out_dir / "board.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 30, (1280, 720))
    pictures = [render(Scene(random_cells(rng), "white-black", cam.shaken(rng),
                             room_lighting(rng), hand=k % 3 == 0, seed=seed + k,
                             wood=wood)).image for k in range(frames)]
    for _ in range(loops):
        for picture in pictures:
            writer.write(picture)
    writer.release()
    return video, profile


def run_swapped(seeds: range = range(500, 510)) -> tuple[int, int, int]:
    """Calibration on room-lit photo pairs, each piece set a seed, given the
    right way round and swapped: (pairs, right ones accepted, swapped ones
    refused as an empty-board photo with pieces)."""
    pairs = accepted = refused = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        for ps in PIECE_SETS:
            cam = random_camera(rng, full_turn=True)
            wood = _wood(rng, (50, 100, 140), (140, 190, 230))
            empty, layout = (render(Scene(c, ps, cam.shaken(rng), room_lighting(rng),
                                          seed=seed + k, wood=wood)).image
                             for k, c in enumerate(("." * 49, LAYOUT)))
            pairs += 1
            try:
                calibrate(empty, layout, LAYOUT)
                accepted += 1
            except ValueError:
                pass
            try:
                calibrate(layout, empty, LAYOUT)
            except ValueError as exc:
                refused += str(exc).startswith("the empty-board photo shows pieces")
    return pairs, accepted, refused


def run_conditions(seeds: tuple[int, ...], frames: int = 6) -> dict[str, tuple[int, int, int]]:
    """Each of ``conditions.CONDITIONS`` over the room-lit photos of every
    piece set (a hand in one photo of two): (squares, wrong, unknown outside
    the hand), raw readings (no smoothing)."""
    from calibration.conditions import CONDITIONS

    cv2.setNumThreads(1)
    out: dict[str, tuple[int, int, int]] = {}
    for name, spoil in CONDITIONS.items():
        squares = wrong = unknown = 0
        for seed in seeds:
            rng = np.random.default_rng(seed)
            for ps in ROOM_SETS:
                cam = random_camera(rng, full_turn=True)
                wood = _wood(rng, (50, 100, 140), (140, 190, 230))
                reader, _ = _calibrated(rng, Scene(LAYOUT, ps, cam, seed=seed, wood=wood))
                for k in range(frames):
                    r = render(Scene(random_cells(rng, 0.6), ps, cam.shaken(rng),
                                     room_lighting(rng), hand=k % 2 == 0,
                                     seed=seed * 100 + k, wood=wood))
                    got = reader.read(spoil(r.image, rng))
                    squares += 49
                    wrong += sum(g not in ("?", c) for g, c in zip(got, r.cells, strict=True))
                    unknown += sum(g == "?" and not h
                                   for g, h in zip(got, r.hidden, strict=True))
        out[name] = (squares, wrong, unknown)
    return out


def floor_ms(frames: int = 40, seed: int = 0) -> float:
    """The least any reader must do per frame: warp the picture to the top-down
    grid and take 49 means (no marker search, no classification), in ms."""
    from calibration.colour import Grid

    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    grid = Grid(24)
    r = render(Scene(random_cells(rng), "white-black", random_camera(rng), Lighting(), seed=1))
    total = 0.0
    for _ in range(frames):
        t = time.perf_counter()
        flat = grid.warp(r.image, r.homography).reshape(-1, 3)
        flat[grid.disc].mean(axis=1)
        total += time.perf_counter() - t
    return 1000 * total / frames


def _report(title: str, res: dict[str, Any], floor: float) -> None:
    print(title)
    print(f"  wrong squares:     {res['wrong']} ({res['wrong_pct']:.2f}% of {res['squares']})"
          "   target 0")
    print(f"  unknown squares:   {res['unknown_pct']:.2f}% of visible squares   target <= 0.5%")
    print(f"  photos exact:      {res['exact_pct']:.1f}%  (a '?' under the hand counts as exact)"
          "   target >= 95%")
    print(f"  under the hand:    {res['hidden_unknown_pct']:.1f}% of hidden squares read '?'")
    if "retakes" in res:
        print(f"  calibrations retaken: {res['retakes']} (a marker not found in a calibration"
              " photo: refused, taken again in new light)")
    print(f"  speed:             {res['fps']:.0f} frames/s ({res['ms']:.1f} ms/frame, one core,"
          f" markers searched every frame, near where they were; floor {floor:.1f} ms ="
          " bare warp + 49 means)"
          "   target >= 30")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m calibration.bench", description=__doc__)
    ap.add_argument("--setups", type=int, default=8)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--seed", type=int, default=HELD_OUT[0],
                    help=f"scene seed (held out, never tuned on: {HELD_OUT})")
    ap.add_argument("--steady", action="store_true",
                    help="the earlier benchmark: calibration photos under one steady light")
    ap.add_argument("--swapped", action="store_true",
                    help="calibration photos given the right way round and swapped")
    ap.add_argument("--conditions", action="store_true",
                    help="rooms not tuned on (a lamp's hot spot, a hard shadow, motion blur, ...)")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    if a.conditions:
        for name, (n, w, u) in run_conditions((a.seed, a.seed + 1)).items():
            print(f"{name:18s} {n} squares: {w} wrong, {100 * u / n:.1f}% unknown (not under"
                  " the hand)")
        return 0
    if a.swapped:
        pairs, accepted, refused = run_swapped()
        print(f"calibration on {pairs} room-lit photo pairs: {accepted} accepted; swapped,"
              f" {refused} refused as an empty-board photo with pieces")
        return 0
    floor = floor_ms()
    if a.steady:
        res = run(a.setups, a.frames, a.seed)
        what = "steady calibration light"
    else:
        res = run_room(a.setups, a.frames, a.seed)
        what = "every photo lit on its own, calibration photos too"
    _report(f"camera reader on {res['boards']} rendered 1280x720 frames, seed {a.seed} ({what};"
            f" {a.setups} setups x {a.frames}, 1 frame in 3 with a hand)", res, floor)
    print(f"  reference:         {REFERENCE}")
    print(f"  (benchmark took {time.perf_counter() - t0:.0f} s, mostly rendering)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
