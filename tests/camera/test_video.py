"""A recorded (rendered) video of a short game replays through the camera
path (markers, colour model, smoothing, reconciler) to the right record."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.bench import LAYOUT
from calibration.camera import calibrate_camera
from calibration.render import Camera, Lighting, Scene, render
from controller.drivers.camera import stream_speed, video_events, video_frames, video_log
from controller.reconcile.replay import replay, replay_events
from controller.rules import Game

CAM = Camera(angle=4, scale=520, tilt=0.1, cx=640, cy=360)


def _cells(game: Game) -> str:
    a, d = game.bitboards()
    return "".join("a" if a >> i & 1 else "d" if d >> i & 1 else "." for i in range(49))


def _calibrated(tmp_path: Path) -> Path:
    """A profile learned from two rendered photos taken by ``CAM``."""
    light = Lighting(level=1.0, gradient=(0.1, 0.1), blur=0.8, noise=2, jpeg=90)
    for name, cells, seed in (("empty.png", "." * 49, 1), ("layout.png", LAYOUT, 2)):
        cv2.imwrite(str(tmp_path / name), render(Scene(cells, "white-black", CAM, light,
                                                       seed=seed)).image)
    profile = tmp_path / "profile.json"
    calibrate_camera(tmp_path / "empty.png", tmp_path / "layout.png", LAYOUT, profile)
    return profile


def test_rendered_video_of_a_game_replays(tmp_path: Path) -> None:
    profile = _calibrated(tmp_path)
    rng = random.Random(4)
    game = Game.new("kharbga")
    for _ in range(6):
        game.play(rng.choice(game.legal_moves()))
    # The video: each board held for a second at 5 frames a second, with a
    # hand over the board between two boards.
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 720))
    assert writer.isOpened()
    replayed = Game.new("kharbga")
    boards = [_cells(replayed)]
    for m in game.moves:
        replayed.play(m)
        boards.append(_cells(replayed))
    seed = 10
    for k, cells in enumerate(boards):
        if k:
            writer.write(render(Scene(cells, "white-black", CAM, Lighting(level=0.95),
                                      hand=True, seed=seed)).image)
            seed += 1
        for _ in range(5):
            writer.write(render(Scene(cells, "white-black", CAM, Lighting(level=0.95),
                                      seed=seed)).image)
            seed += 1
    writer.release()
    lines = video_log(str(video), profile)
    result = replay(lines, "kharbga")
    assert result.reconciler is not None
    assert [str(m) for m in result.reconciler.game.moves] == [str(m) for m in game.moves]
    # The video as an event source replays the same, straight to the reconciler.
    direct = replay_events(video_events(str(video), profile), "kharbga")
    assert [str(r) for r in direct.records] == [str(r) for r in result.records]


def _lamp(t: float, lamp_on: bool) -> Lighting:
    """A room at time ``t`` (0..1) of a game: daylight fading slowly, and a
    desk lamp beside the board (brighter, warmer, from one side) once on."""
    level = 0.95 - 0.25 * t + (0.45 if lamp_on else 0.0)
    gradient = (0.5, -0.2) if lamp_on else (0.05, 0.05)
    white = (0.92, 1.0, 1.1) if lamp_on else (1.0, 1.0, 1.0)
    return Lighting(level=level, gradient=gradient, white=white, blur=0.7, noise=2.0, jpeg=85,
                    linear=True, flare=0.01, shoulder=0.3)


def test_a_whole_game_under_drifting_light_and_a_lamp_replays(tmp_path: Path) -> None:
    """A whole game (the setting phase to the Defender's win, blocked after the
    Attacker's first move), a hand over
    the board between moves, the light fading and a lamp switched on midway:
    the video replays through the camera driver to exactly the game's record."""
    profile = _calibrated(tmp_path)
    rng = random.Random(7)
    game = Game.new("kharbga")
    while game.outcome is None:
        game.play(rng.choice(game.legal_moves()))
    assert len(game.moves) >= 40 and game.outcome.reason == "blocked-first-turn"
    replayed = Game.new("kharbga")
    boards = [_cells(replayed)]
    for m in game.moves:
        replayed.play(m)
        boards.append(_cells(replayed))
    # Played at 2 frames a second: each board rendered once and shown for
    # 4 frames (the lamp comes on between two of them), a hand between boards.
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 2, (1280, 720))
    assert writer.isOpened()
    midway = len(boards) // 2
    for k, cells in enumerate(boards):
        light = _lamp(k / len(boards), k > midway)
        if k:
            writer.write(render(Scene(cells, "white-black", CAM, light, hand=True,
                                      seed=2 * k)).image)
        image = render(Scene(cells, "white-black", CAM, light, seed=2 * k + 1)).image
        if k == midway:  # the lamp switched on while the board stands
            lit = render(Scene(cells, "white-black", CAM, _lamp(k / len(boards), True),
                               seed=2 * k + 1)).image
            frames = [image, image, lit, lit, lit]
        else:
            frames = [image] * 4
        for frame in frames:
            writer.write(frame)
    writer.release()
    result = replay_events(video_events(str(video), profile), "kharbga")
    assert len(result.records) == 1
    played = result.records[0].game()
    assert [str(m) for m in played.moves] == [str(m) for m in game.moves]
    assert played.outcome == game.outcome


async def _get_camera(service: object) -> tuple[int, str, bytes]:
    from aiohttp.test_utils import TestClient, TestServer

    from controller.service.app import make_app
    from controller.service.board import BoardService

    assert isinstance(service, BoardService)
    async with TestClient(TestServer(make_app(service))) as client:
        r = await client.get("/api/camera.jpg")
        return r.status, r.content_type, await r.read()


def test_service_on_a_camera_board_from_a_video(tmp_path: Path) -> None:
    import time

    from controller.service.board import BoardService
    from controller.service.config import Config
    from controller.service.hardware import CameraBackend, drain

    profile = _calibrated(tmp_path)
    video = tmp_path / "two.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    boards = ["." * 49, "." * 14 + "a" + "." * 34]  # a piece set on a3
    for k, cells in enumerate(boards):
        for i in range(8):
            writer.write(render(Scene(cells, "white-black", CAM, Lighting(level=0.95),
                                      seed=20 * k + i)).image)
    writer.release()
    config_file = tmp_path / "config.toml"
    config_file.write_text(f'[camera]\nprofile = "{profile}"\n')
    backend = CameraBackend(str(video), config_file)
    service = BoardService(Config(data_dir=tmp_path / "data", settle=0.2, error_delay=0.5,
                                  board=f"camera:{video}"))
    backend.start()
    try:
        deadline = time.monotonic() + 20
        while service.state()["moves"] != ["@a3"] and time.monotonic() < deadline:
            drain(service, backend.events)
            service.tick()
            time.sleep(0.02)
        assert service.state()["moves"] == ["@a3"]
        # The page's camera picture: the grid and the readings over the frame.
        service.camera_preview = backend.preview
        status, kind, body = asyncio.run(_get_camera(service))
        assert (status, kind) == (200, "image/jpeg")
        picture = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
        assert picture is not None and picture.shape[1] == 960
    finally:
        backend.close()
        service.close()


def test_the_camera_logs_markers_lost_and_found_and_the_end_of_a_video(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from calibration.markers import detect_markers

    profile = _calibrated(tmp_path)
    picture = render(Scene("." * 49, "white-black", CAM, Lighting(level=0.95), seed=3)).image
    corners = detect_markers(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY))[2]
    covered = picture.copy()  # a sleeve over marker 2
    centre = corners.mean(axis=0)
    cv2.fillConvexPoly(covered, ((corners - centre) * 1.6 + centre).astype(np.int32),
                       (90, 90, 90))
    video = tmp_path / "sleeve.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for image in [picture] * 3 + [covered] * 3 + [picture] * 3:
        writer.write(image)
    writer.release()
    with caplog.at_level(logging.INFO, logger="controller.drivers.camera"):
        frames = list(video_frames(str(video), profile))
    assert len(frames) == 9
    said = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert said == [
        (logging.WARNING, f"camera {video}: marker 2 lost (3 of 4 in view)"),
        (logging.INFO, f"camera {video}: marker 2 found again (4 of 4 in view)"),
        (logging.INFO, f"camera {video}: the video ended after 9 pictures"),
    ]


def test_stream_speed_reads_every_picture_of_a_video_without_its_pace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile = _calibrated(tmp_path)
    picture = render(Scene("." * 49, "white-black", CAM, Lighting(level=0.9), seed=4)).image
    video = tmp_path / "slow.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 1, (1280, 720))
    for _ in range(6):
        writer.write(picture)
    writer.release()
    slept: list[float] = []
    sleep = time.sleep

    def recorded(seconds: float) -> None:
        slept.append(seconds)
        sleep(seconds)

    monkeypatch.setattr("controller.drivers.camera.time.sleep", recorded)
    pictures, seconds = stream_speed(str(video), profile)
    # at the video's own pace (1 a second) the stream would wait about 1 s
    # before each picture
    assert pictures == 6 and seconds > 0
    assert not [s for s in slept if s > 0.1], slept
