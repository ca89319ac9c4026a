"""Interactive calibration on the live camera (``calibrate camera --live``):
the steps over rendered camera frames, the preview drawn over the picture,
the page in a real browser, and the command on a video file."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from chromium import launch, require_chromium

from calibration.camera import CameraReader, load_profile
from calibration.homography import fit_from_centres, project
from calibration.live import DEFAULT_LAYOUT, FrameGrabber, LiveCalibration, make_app, refusal
from calibration.markers import detect_markers
from calibration.preview import draw_overlay
from calibration.render import Camera, Lighting, Scene, render

CAM = Camera(angle=-7, scale=500, tilt=0.12, cx=640, cy=370)
LIGHT = Lighting(level=1.0, gradient=(0.1, -0.1), blur=0.7, noise=2, jpeg=90)


def _frame(cells: str, seed: int, **kw: Any) -> np.ndarray:
    return render(Scene(cells, "blue-pink", CAM, LIGHT, seed=seed, **kw)).image


class Switchable:
    """A camera whose picture the test changes (the frame is the seam)."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.released = False

    def read(self) -> tuple[bool, np.ndarray]:
        return True, self.image

    def release(self) -> None:
        self.released = True


def test_steps_write_a_profile_that_reads_the_board(tmp_path: Path) -> None:
    out = tmp_path / "cam" / "profile.json"
    cal = LiveCalibration(out)
    assert cal.step == "empty"
    with pytest.raises(ValueError, match="no picture"):
        cal.capture_empty()
    with pytest.raises(ValueError, match="empty board first"):
        cal.capture_layout()
    cal.frame(_frame("." * 49, 1))
    assert cal.status()["markers"] == [0, 1, 2, 3]
    cal.capture_empty()
    assert cal.step == "layout"
    # The pieces are not set yet: the layout does not read back, nothing written.
    with pytest.raises(ValueError):
        cal.capture_layout()
    assert cal.step == "layout" and not out.exists()
    cal.frame(_frame(DEFAULT_LAYOUT, 2))
    cal.capture_layout()
    assert cal.step == "done" and out.exists()
    # The profile reads other boards, and the page shows the reading.
    other = "a" * 10 + "." * 20 + "d" * 12 + "." * 7
    assert CameraReader(load_profile(out)).read(_frame(other, 3)) == other
    cal.frame(_frame(other, 4))
    cal.preview()
    assert cal.status()["reading"] == other


def test_errors_keep_the_step(tmp_path: Path) -> None:
    cal = LiveCalibration(tmp_path / "p.json")
    image = _frame("." * 49, 1)
    # Paint over marker 2 (beyond g7): the empty board is refused.
    h = fit_from_centres(detect_markers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)))
    c = project(h, np.array([[7.5 + 0.5, 7.5 + 0.5]]))[0]
    hidden = image.copy()
    cv2.circle(hidden, (int(c[0]), int(c[1])), 60, (90, 120, 150), -1)
    cal.frame(hidden)
    with pytest.raises(ValueError, match=r"markers \[2\] are not in view"):
        cal.capture_empty()
    assert cal.step == "empty"
    cal.frame(image)
    cal.capture_empty()
    cal.frame(_frame(DEFAULT_LAYOUT, 2))
    with pytest.raises(ValueError, match="49 characters"):
        cal.capture_layout("ad.")
    swapped = "dadaa" + DEFAULT_LAYOUT[5:]  # three of a1..e1 not as set
    assert swapped[:5] != DEFAULT_LAYOUT[:5]
    with pytest.raises(ValueError, match="does not match cells"):
        cal.capture_layout(swapped)
    assert cal.step == "layout"
    cal.frame(np.zeros((4, 4), np.uint8))  # a broken frame is skipped
    cal.capture_layout(DEFAULT_LAYOUT)
    assert cal.step == "done"
    cal.restart()
    assert cal.step == "empty"


def _blue_pink_at(img: np.ndarray, h: np.ndarray, sq: int) -> tuple[int, int]:
    """Strongly blue and strongly pink pixels around square ``sq``'s centre."""
    c = project(h, np.array([[sq % 7 + 0.5, sq // 7 + 0.5]]))[0]
    x, y = int(c[0]), int(c[1])
    patch = img[y - 12 : y + 12, x - 12 : x + 12].astype(int)
    b, g, r = patch[..., 0], patch[..., 1], patch[..., 2]
    return int(((b > 180) & (r < 90)).sum()), int(((r > 180) & (b > 110) & (g < 110)).sum())


def test_overlay_draws_grid_and_readings() -> None:
    # Each side in the board page's colours: the Attacker blue, the Defender pink.
    image = np.full((720, 1280, 3), 128, np.uint8)
    h = np.array([[60.0, 0, 400], [0, -60.0, 600], [0, 0, 1]])
    cells = "a" + "d" + "?" + "." * 46
    out = draw_overlay(image, homography=h, cells=cells)
    assert out.shape == image.shape and not np.array_equal(out, image)
    assert (image == 128).all()  # the camera frame itself is left alone
    blue, pink = _blue_pink_at(out, h, 0)
    assert blue > 50 and pink == 0
    blue, pink = _blue_pink_at(out, h, 1)
    assert pink > 50 and blue == 0
    # Grid lines pass through the corners of the board.
    for u, v in ((0, 0), (7, 7), (3, 0)):
        x, y = project(h, np.array([[u, v]], np.float64))[0]
        assert (out[int(round(y)), int(round(x))] != 128).any()
    # Where a layout is asked for, a disagreeing reading is ringed in red.
    def red(img: np.ndarray) -> int:
        b, g, r = (img[..., k].astype(int) for k in range(3))
        return int(((r > 180) & (g < 90) & (b < 90)).sum())

    layout = "a" + "." * 48
    assert red(draw_overlay(image, homography=h, cells="." * 49, expected=layout)) > 100
    assert red(draw_overlay(image, homography=h, cells=layout, expected=layout)) == 0


# -- the page in a real browser -------------------------------------------------

def test_the_calibration_page_refuses_in_json_words(tmp_path: Path) -> None:
    """Every refusal of the calibration page is its JSON error: no such
    page, a button looked at, a field it does not take, a body too long.
    Before: 404 and 405 in plain text, an unknown field ignored, and a
    long body "not a JSON object"."""
    from aiohttp.test_utils import TestClient, TestServer

    cal = LiveCalibration(tmp_path / "profile.json")
    cal.frame(_frame("." * 49, 21))

    async def main() -> list[tuple[int, str]]:
        client: TestClient[Any, Any] = TestClient(TestServer(make_app(cal)))
        await client.start_server()
        seen = []
        try:
            for method, path, body in (
                    ("GET", "/nothing", None), ("GET", "/api/layout", None),
                    ("POST", "/api/layout", {"cells": "." * 49, "colour": "red"}),
                    ("POST", "/api/layout", {"cells": "." * 5000}),
                    # Before: 200, and the empty board taken (or all undone).
                    ("POST", "/api/empty", {"cells": "." * 49}),
                    ("POST", "/api/restart", {"step": "layout"})):
                r = await client.request(method, path, json=body)
                seen.append((r.status, (await r.json())["error"]))
        finally:
            await client.close()
        return seen

    assert asyncio.run(main()) == [
        (404, "Not Found"), (405, "Method Not Allowed"),
        (400, "unknown field 'colour': /api/layout takes cells"),
        (400, "the body is larger than 4 KiB: it takes cells, one character a square"),
        (400, "unknown field 'cells': /api/empty takes no field"),
        (400, "unknown field 'step': /api/restart takes no field")]
    assert cal.status()["step"] == "empty"  # nothing was taken


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class AppThread:
    def __init__(self, app: Any) -> None:
        from aiohttp import web

        self.port = _free_port()
        self.loop = asyncio.new_event_loop()
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", self.port)
        self.loop.run_until_complete(site.start())
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[LiveCalibration, Switchable, str]]:
    cal = LiveCalibration(tmp_path / "profile.json")
    camera = Switchable(_frame("." * 49, 11))
    grabber = FrameGrabber(cal, "test", capture=camera)
    grabber.start()
    server = AppThread(make_app(cal))
    try:
        yield cal, camera, f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()
        grabber.close()
    assert camera.released


def test_page_in_a_browser(live: tuple[LiveCalibration, Switchable, str]) -> None:
    from playwright.sync_api import expect, sync_playwright

    cal, camera, url = live
    with sync_playwright() as p:
        browser = launch(p)  # a JavaScript error in the page fails the test
        page = browser.new_page(viewport={"width": 1000, "height": 1200})
        page.goto(url + "/")
        expect(page.locator("#markers")).to_have_text("0 1 2 3", timeout=10_000)
        expect(page.locator("body")).to_have_attribute("data-step", "empty")
        page.wait_for_function("document.getElementById('preview').naturalWidth > 0")
        # Layout before the empty board: refused, shown as one line.
        page.click("#layout")
        expect(page.locator("#error")).to_have_text("take the empty board first")
        page.click("#empty")
        expect(page.locator("body")).to_have_attribute("data-step", "layout")
        expect(page.locator("#error")).to_have_text("")
        layout = _frame(DEFAULT_LAYOUT, 12)  # (rendered before the count is taken)
        seen = cal.status()["frames"]
        camera.image = layout
        deadline = time.monotonic() + 10  # two frames grabbed since: the new picture's
        while cal.status()["frames"] < seen + 2:
            assert time.monotonic() < deadline, "no new frame grabbed"
            time.sleep(0.02)
        expect(page.locator("#cells")).to_have_value(DEFAULT_LAYOUT)
        page.click("#layout")
        expect(page.locator("body")).to_have_attribute("data-step", "done", timeout=10_000)
        expect(page.locator("#reading")).to_have_text(DEFAULT_LAYOUT, timeout=10_000)
        # Moving pieces changes what the page reads.
        moved = "." * 7 + DEFAULT_LAYOUT[7:]
        camera.image = _frame(moved, 13)
        expect(page.locator("#reading")).to_have_text(moved, timeout=10_000)
        shot = page.locator("#preview").screenshot()
        browser.close()
    picture = cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and picture.shape[1] > 300
    # the profile written reads a board as the page did
    assert CameraReader(load_profile(cal.out)).read(_frame(moved, 14)) == moved


def test_buttons_from_another_machine_need_the_token(tmp_path: Path) -> None:
    """Looking is open; a button pressed from another machine needs the
    token printed on start, and one from another web site is refused."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    cal = LiveCalibration(tmp_path / "profile.json")
    cal.frame(_frame("." * 49, 21))
    caller = ["192.0.2.7"]

    @web.middleware
    async def remote(request: web.Request, handler: Any) -> web.StreamResponse:
        return await handler(request.clone(remote=caller[0]))  # type: ignore[no-any-return]

    async def main(token: str) -> list[tuple[int, str]]:
        app = make_app(cal, token)
        app.middlewares.insert(0, remote)
        client: TestClient[Any, Any] = TestClient(TestServer(app))
        await client.start_server()
        seen = []
        try:
            r = await client.get("/api/status")
            assert r.status == 200
            for headers in ({}, {"Authorization": "Bearer wrong"},
                            {"Authorization": f"Bearer {token}"},
                            {"Authorization": f"Bearer {token}", "Origin": "http://evil.example"}):
                r = await client.post("/api/restart", json={}, headers=headers)
                seen.append((r.status, (await r.json()).get("error", "")))
        finally:
            await client.close()
        return seen

    seen = asyncio.run(main("s3cret"))
    # Bytes that are not text reach the check as lone surrogates: a wrong
    # token, not a fault of the page (it was a 500).
    assert refusal("POST", {"Authorization": "Bearer s3cr\udce9t"}, "192.0.2.7",
                   "http://x", "s3cret") == (401, "a valid token is required: open the "
                                                    "address the calibration printed on start")
    assert [code for code, _ in seen] == [401, 401, 200, 403]
    assert "token" in seen[0][1] and "another web site" in seen[3][1]
    # Without a token (listening on this machine only), another machine is refused.
    assert [code for code, _ in asyncio.run(main(""))][:1] == [403]
    caller[0] = "127.0.0.1"
    assert [code for code, _ in asyncio.run(main(""))] == [200, 200, 200, 403]


# -- the command on a video file --------------------------------------------------

def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _wait_for(url: str, ready: Any, seconds: float = 30) -> Any:
    """GET ``url`` until the server answers and ``ready(answer)`` holds."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = _get(url)
            if ready(answer):
                return answer
        except (urllib.error.URLError, ConnectionError):
            pass
        assert time.monotonic() < deadline, f"{url} never became ready"
        time.sleep(0.1)


def _post(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_command_on_a_video_file(tmp_path: Path) -> None:
    video = tmp_path / "empty.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for i in range(5):
        writer.write(_frame("." * 49, 30 + i))
    writer.release()
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "calibrate", "camera", "--live", str(video),
         "--out", str(tmp_path / "p.json"), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        # the page is up and the video has looped
        status = _wait_for(url + "/api/status", lambda s: s["frames"] > 5)
        assert status["markers"] == [0, 1, 2, 3] and status["step"] == "empty"
        with urllib.request.urlopen(url + "/preview.jpg", timeout=5) as r:
            assert r.headers["Content-Type"] == "image/jpeg"
            assert cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR) is not None
        assert _post(url + "/api/empty", {})[0] == 200
        # The board is still empty: the layout is refused with one line.
        code, body = _post(url + "/api/layout", {"cells": DEFAULT_LAYOUT})
        assert code == 400 and "\n" not in body["error"]
        assert _post(url + "/api/layout", {"cells": 5})[1] == {"error": "cells must be a string"}
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 1
    assert "no profile written" in out and "Traceback" not in err
    assert not (tmp_path / "p.json").exists()


def test_command_open_to_the_network_prints_a_token(tmp_path: Path) -> None:
    video = tmp_path / "empty.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    writer.write(_frame("." * 49, 40))
    writer.release()
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "calibrate", "camera", "--live", str(video),
         "--out", str(tmp_path / "p.json"), "--host", "0.0.0.0", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        _wait_for(f"http://127.0.0.1:{port}/api/status", lambda s: s["frames"] > 0)
        # This machine's own caller needs no token.
        assert _post(f"http://127.0.0.1:{port}/api/restart", {})[0] == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    assert "camera calibration at http://" in line and "0.0.0.0" not in line
    assert f":{port}/?token=" in line and len(line.split("?token=")[1].strip()) >= 16


def test_command_refuses_bad_arguments(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "controller", "calibrate", "camera", *args],
                              capture_output=True, text=True, timeout=60)

    r = run("--out", str(tmp_path / "p.json"))
    assert r.returncode == 2 and "needs --empty, --layout, --cells" in r.stderr
    r = run("--live", "0", "--empty", "x.png", "--out", str(tmp_path / "p.json"))
    assert r.returncode == 2 and "--live takes the photos itself" in r.stderr
    r = run("--live", str(tmp_path / "none.avi"), "--out", str(tmp_path / "p.json"))
    assert r.returncode == 2 and "none.avi: no such file or camera" in r.stderr
    r = run("--live", "0", "--cells", "abc", "--out", str(tmp_path / "p.json"))
    assert r.returncode == 2 and "49 characters" in r.stderr


def test_service_page_shows_the_camera_picture(tmp_path: Path) -> None:
    """``kharbga-board run --board camera:VIDEO``: the page shows what the
    camera reads (the picture with the grid and readings drawn)."""
    from playwright.sync_api import expect, sync_playwright

    from calibration.camera import calibrate_camera

    require_chromium()
    cv2.imwrite(str(tmp_path / "empty.png"), _frame("." * 49, 1))
    cv2.imwrite(str(tmp_path / "layout.png"), _frame(DEFAULT_LAYOUT, 2))
    profile = tmp_path / "camera.json"
    calibrate_camera(tmp_path / "empty.png", tmp_path / "layout.png", DEFAULT_LAYOUT, profile)
    video = tmp_path / "board.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for i in range(10):
        writer.write(_frame("." * 49, 40 + i))
    writer.release()
    config = tmp_path / "config.toml"
    config.write_text(f'[board]\nkind = "camera:{video}"\n\n[camera]\nprofile = "{profile}"\n')
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "run", "--config", str(config),
         "--data-dir", str(tmp_path / "data"), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for(url + "/api/state", lambda s: s["board"].startswith("camera:"))
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            page.goto(url + "/")
            expect(page.locator("#camera")).to_be_visible(timeout=10_000)
            expect(page.locator("#board-help")).to_have_text(
                f"Read from the overhead camera (camera:{video}): move the pieces on the "
                "board; this page follows them (a piece out of place is lit here, not drawn).")
            page.wait_for_function(
                "document.getElementById('camera-img').naturalWidth === 960", timeout=15_000)
            browser.close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "Traceback" not in err


def test_a_video_with_no_picture_is_refused_before_the_page(tmp_path: Path) -> None:
    # Before: opened, the page served, and the video opened again and again
    # meanwhile: "no picture from the camera yet" at every button, nothing said.
    video = tmp_path / "none.avi"
    cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720)).release()
    with pytest.raises(ValueError) as err:
        FrameGrabber(LiveCalibration(tmp_path / "p.json"), str(video))
    assert str(err.value) == (f"cannot open video {video}: no picture in it (an empty video, "
                              "or none OpenCV can decode)")
