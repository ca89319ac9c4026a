"""Interactive camera calibration on the live camera, with a preview page.

``kharbga-board calibrate camera --live DEVICE --out PROFILE`` opens the
camera (a device number, or a video file played in a loop) and serves a page
(http://127.0.0.1:8081/ by default) showing the camera picture with the
markers found and the board grid drawn over it:

1. With the board empty and all four markers in view, press *Empty board*.
2. Set pieces where the rings on the picture ask (the layout is editable on
   the page: 49 characters ``a``, ``d``, ``.`` from a1 to g7), then press
   *Layout*.  The profile is learned from the two frames and written to
   PROFILE; any problem (a marker hidden, the camera moved, pieces that
   cannot be told apart, a square that does not read back) is shown as one
   line and the step can be repeated.
3. From then on every square's reading is drawn over the picture: move
   pieces around to check it, then stop with Ctrl-C.
"""

from __future__ import annotations

import json
import secrets
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import cv2
import numpy as np

from calibration.camera import CameraReader, calibrate, check_cells
from calibration.frames import is_video_file, open_capture
from calibration.homography import fit_from_centres
from calibration.images import native_stderr, same_file
from calibration.markers import detect_markers
from calibration.preview import draw_overlay, jpeg
from controller.board.config import (
    listen_failure,
    local_caller,
    loopback_host,
    start_url,
    token_given,
)

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["DEFAULT_LAYOUT", "LiveCalibration", "FrameGrabber", "make_app", "refusal", "serve"]

# Every class spread over the whole board (17 a, 16 d, 16 empty).
DEFAULT_LAYOUT = ("ad." * 17)[:49]


class Capture(Protocol):
    """What :class:`FrameGrabber` needs of ``cv2.VideoCapture``."""

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


class LiveCalibration:
    """The calibration steps over a stream of frames (thread-safe).

    ``frame(image)`` gives the newest camera picture; ``capture_empty()``,
    ``capture_layout(cells)`` and ``restart()`` are the page's buttons;
    ``status()`` and ``preview()`` what the page shows.  Errors are
    ``ValueError`` with a one-line message (the step stays where it was).
    """

    def __init__(self, out_path: str | Path, layout: str = DEFAULT_LAYOUT) -> None:
        self.out = Path(out_path)
        self.layout = check_cells(layout)
        self._lock = threading.Lock()
        self._image: np.ndarray | None = None
        self._frames = 0
        self._empty: np.ndarray | None = None
        self._reader: CameraReader | None = None
        self._reading: str | None = None
        self._seen: tuple[np.ndarray, dict[int, np.ndarray]] | None = None
        self.message = "Clear the board, show all four markers, then press Empty board."

    # -- frames -------------------------------------------------------------
    def frame(self, image: np.ndarray) -> None:
        if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3:
            return  # a broken frame from the driver is skipped
        with self._lock:
            self._image = image
            self._frames += 1

    def _latest(self) -> np.ndarray:
        with self._lock:
            image = self._image
        if image is None:
            raise ValueError("no picture from the camera yet")
        return image

    @property
    def step(self) -> str:
        if self._reader is not None:
            return "done"
        return "layout" if self._empty is not None else "empty"

    # -- the buttons ----------------------------------------------------------
    def capture_empty(self) -> None:
        image = self._latest()
        found = self._markers(image)
        missing = sorted(set(range(4)) - set(found))
        if missing:
            raise ValueError(f"markers {missing} are not in view: all four are needed")
        with self._lock:
            self._empty = image.copy()
            self._reader = None
        self.message = ("Empty board taken. Set the pieces on the rings (blue A: Attacker, "
                        "pink D: Defender), then press Layout.")

    def capture_layout(self, cells: str | None = None) -> None:
        if self._empty is None:
            raise ValueError("take the empty board first")
        layout = check_cells(cells) if cells is not None else self.layout
        image = self._latest()
        profile = calibrate(self._empty, image, layout)
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.out.with_name(self.out.name + ".tmp")
            tmp.write_text(json.dumps(profile.to_json()) + "\n", encoding="utf-8")
            tmp.replace(self.out)
        except OSError as exc:
            raise ValueError(f"cannot write camera profile {self.out}: {exc}") from None
        with self._lock:
            self.layout = layout
            self._reader = CameraReader(profile, smooth=0)
        self.message = (f"Profile written to {self.out}. Every square's reading is drawn on "
                        "the picture: move pieces to check it, then stop with Ctrl-C.")

    def restart(self) -> None:
        with self._lock:
            self._empty = None
            self._reader = None
            self._reading = None
        self.message = "Clear the board, show all four markers, then press Empty board."

    # -- what the page shows --------------------------------------------------
    def _markers(self, image: np.ndarray) -> dict[int, np.ndarray]:
        """The markers in ``image``, found once per frame (status and
        preview both ask)."""
        seen = self._seen
        if seen is None or seen[0] is not image:
            seen = self._seen = (image, detect_markers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)))
        return seen[1]

    def _overlay(self, image: np.ndarray) -> np.ndarray:
        reader = self._reader
        if reader is not None:
            with self._lock:
                cells = reader.read(image)
                h = reader.tracker.homography
                markers = reader.last_markers
            self._reading = cells
            return draw_overlay(image, markers=markers, homography=h, cells=cells)
        markers = self._markers(image)
        h = fit_from_centres(markers) if len(markers) == 4 and set(markers) == {0, 1, 2, 3} \
            else None
        expected = self.layout if self._empty is not None else None
        return draw_overlay(image, markers=markers, homography=h, expected=expected)

    def preview(self) -> bytes:
        """The newest picture with the overlay, as JPEG."""
        with self._lock:
            image = self._image
        if image is None:
            image = np.full((360, 640, 3), 40, np.uint8)
            cv2.putText(image, "waiting for the camera", (150, 180), cv2.FONT_HERSHEY_SIMPLEX,
                        0.9, (220, 220, 220), 2, cv2.LINE_AA)
            return jpeg(image)
        return jpeg(self._overlay(image))

    def status(self) -> dict[str, Any]:
        with self._lock:
            image = self._image
            frames = self._frames
        markers: list[int] = []
        if image is not None:
            markers = sorted(self._markers(image))
        return {
            "step": self.step, "message": self.message, "markers": markers,
            "frames": frames, "layout": self.layout, "reading": self._reading,
            "out": str(self.out),
        }


class FrameGrabber:
    """Reads a capture on its own thread into a :class:`LiveCalibration`.

    ``device``: a device number (V4L2) or a video file, played in a loop at
    its own frame rate; ``capture`` replaces the OpenCV capture (tests).
    """

    def __init__(self, target: LiveCalibration, device: str = "0",
                 capture: Capture | None = None) -> None:
        self.target = target
        self.device = device
        self.is_file = capture is None and is_video_file(device)
        if capture is None:
            capture = self._open()
        if self.is_file:  # a video with no picture would be opened again and again, unsaid
            with native_stderr():
                ok, image = capture.read()
            if not ok or image is None:
                capture.release()
                raise ValueError(f"cannot open video {device}: no picture in it (an empty "
                                 "video, or none OpenCV can decode)")
            target.frame(image)
        self.capture = capture
        fps = 0.0
        if self.is_file and isinstance(capture, cv2.VideoCapture):
            fps = capture.get(cv2.CAP_PROP_FPS) or 0.0
        self.period = 1.0 / fps if fps > 0 else 0.03
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def _open(self) -> cv2.VideoCapture:
        return open_capture(self.device)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            ok, image = self.capture.read()
            if ok:
                failures = 0
                self.target.frame(image)
            elif self.is_file:
                self.capture.release()
                self.capture = self._open()  # a video file plays in a loop
            else:
                failures += 1
                if failures == 50:
                    self.target.message = f"the camera {self.device!r} gives no pictures"
                if failures % 50 == 0 and isinstance(self.capture, cv2.VideoCapture):
                    self._reopen()  # unplugged and plugged back: open it again
            self._stop.wait(self.period)

    def _reopen(self) -> None:
        self.capture.release()
        try:
            self.capture = self._open()
        except ValueError:
            pass  # still gone: tried again after the next 50 failures

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        self.capture.release()


def refusal(method: str, headers: Any, remote: str | None, own_origin: str,
            token: str) -> tuple[int, str] | None:
    """Why a request to the calibration page is refused (status, words), or
    None.  Looking is open; a button (a POST) must come from this page, and
    from this machine or with ``token`` (``Authorization: Bearer``)."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return None
    origin = headers.get("Origin")
    if headers.get("Sec-Fetch-Site", "") in ("cross-site", "same-site") or (
            origin is not None and origin != own_origin):
        return 403, "refused: the request comes from another web site, not this page"
    if local_caller(remote):
        return None
    if not token:
        return 403, "refused: calibration is changed only from this machine"
    if not token_given(headers.get("Authorization", ""), token):
        return 401, ("a valid token is required: open the address the calibration "
                     "printed on start")
    return None


async def _json_body(request: web.Request, takes: tuple[str, ...]) -> dict[str, Any] | str:
    """The request's JSON object (empty when no body), or why not in
    one line: over 4 KiB, not an object, a field ``takes`` does not name."""
    raw = b""
    while len(raw) <= 4096 and (part := await request.content.read(4097 - len(raw))):
        raw += part
    if len(raw) > 4096:
        return "the body is larger than 4 KiB: " + (
            "it takes cells, one character a square" if takes
            else f"{request.path} takes no field")
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return "the body must be a JSON object"
    if not isinstance(data, dict):
        return "the body must be a JSON object"
    unknown = sorted(set(data) - set(takes))
    if unknown:
        return (f"unknown field {unknown[0][:40]!r}: {request.path} takes "
                + (" ".join(takes) if takes else "no field"))
    return data


def make_app(cal: LiveCalibration, token: str = "") -> Any:
    """The aiohttp application of the calibration page; ``token`` lets
    another machine press its buttons (:func:`refusal`)."""
    import asyncio

    from aiohttp import web

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        refused = refusal(request.method, request.headers, request.remote,
                          f"{request.scheme}://{request.host}", token)
        if refused is not None:
            return web.json_response({"error": refused[1]}, status=refused[0])
        try:
            return await handler(request)  # type: ignore[no-any-return]
        except web.HTTPException as exc:  # no such page, a GET of a button: said in JSON
            if not 400 <= exc.status < 500:
                raise
            return web.json_response({"error": exc.reason}, status=exc.status)

    async def run(func: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, func, *args)

    def error(message: str) -> web.Response:
        return web.json_response({"error": message}, status=400)

    async def index(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def preview(request: web.Request) -> web.Response:
        data = await run(cal.preview)
        return web.Response(body=data, content_type="image/jpeg",
                            headers={"Cache-Control": "no-store"})

    async def status(request: web.Request) -> web.Response:
        return web.json_response(await run(cal.status))

    async def empty(request: web.Request) -> web.Response:
        data = await _json_body(request, ())
        if isinstance(data, str):
            return error(data)
        try:
            await run(cal.capture_empty)
        except ValueError as exc:
            return error(str(exc))
        return web.json_response(await run(cal.status))

    async def layout(request: web.Request) -> web.Response:
        data = await _json_body(request, ("cells",))
        if isinstance(data, str):
            return error(data)
        cells = data.get("cells")
        if cells is not None and not isinstance(cells, str):
            return error("cells must be a string")
        try:
            await run(cal.capture_layout, cells)
        except ValueError as exc:
            return error(str(exc))
        return web.json_response(await run(cal.status))

    async def restart(request: web.Request) -> web.Response:
        data = await _json_body(request, ())
        if isinstance(data, str):
            return error(data)
        cal.restart()
        return web.json_response(await run(cal.status))

    app = web.Application(client_max_size=4096, middlewares=[guard])
    app.router.add_get("/", index)
    app.router.add_get("/preview.jpg", preview)
    app.router.add_get("/api/status", status)
    app.router.add_post("/api/empty", empty)
    app.router.add_post("/api/layout", layout)
    app.router.add_post("/api/restart", restart)
    return app


def serve(device: str, out_path: str | Path, layout: str = DEFAULT_LAYOUT,
          host: str = "127.0.0.1", port: int = 8081) -> int:
    """``kharbga-board calibrate camera --live``: run until interrupted."""
    from aiohttp import web

    if not 1 <= port <= 65535:
        raise ValueError(f"--port must be from 1 to 65535, not {port}")
    if is_video_file(device) and same_file(out_path, device):
        raise ValueError(f"cannot write camera profile {out_path}: it is the video being read "
                         "(--live), which it would replace: give --out another name "
                         "(camera.json)")
    cal = LiveCalibration(out_path, layout)
    grabber = FrameGrabber(cal, device)
    grabber.start()
    # Open to other machines: the buttons need the token printed here.
    token = "" if loopback_host(host) else secrets.token_urlsafe(12)
    address = start_url(host, port, token)

    def listening(_: str) -> None:  # told once the port is bound, not before
        print(f"kharbga-board: camera calibration at {address} (Ctrl-C to stop)", flush=True)

    try:
        web.run_app(make_app(cal, token), host=host, port=port, print=listening,
                    access_log=None)
    except OSError as exc:  # a name that does not resolve, a port in use
        raise listen_failure("the calibration page", host, port, exc) from None
    finally:
        grabber.close()
    if cal.step == "done":
        print(f"profile written to {cal.out}")
        return 0
    print(f"no profile written ({cal.out})")
    return 1


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kharbga board: camera calibration</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1em; background: #222; color: #eee; }
img { max-width: 100%; border: 1px solid #555; display: block; margin: .5em 0; }
button { font-size: 1em; padding: .4em 1em; margin-right: .5em; }
input { font-family: monospace; width: 52ch; }
#error { color: #ff7b7b; min-height: 1.2em; }
.steps li.current { font-weight: bold; }
code { color: #9fd; }
</style></head><body>
<h1>Camera calibration</h1>
<ol class="steps">
<li id="s-empty">Clear the board so the camera sees all four markers and the empty board
  (the grid is drawn when all four are found), then
  <button id="empty">Empty board</button></li>
<li id="s-layout">Set the pieces on the rings (blue A: Attacker, pink D: Defender), then
  <button id="layout">Layout</button><br>
  <label>Layout a1..g7: <input id="cells" maxlength="49" spellcheck="false"></label></li>
<li id="s-done">Check the readings drawn over the picture while moving pieces
  (A, D, a grey dot for empty, ? where unsure); Ctrl-C stops.
  <button id="restart">Start again</button></li>
</ol>
<p>Markers seen: <span id="markers">-</span> &middot; <span id="message"></span></p>
<p id="error"></p>
<p>Reading: <code id="reading">-</code></p>
<img id="preview" alt="camera preview" src="/preview.jpg">
<script>
const $ = (id) => document.getElementById(id);
// Opened from another machine: the address printed on start carries ?token=.
const token = new URLSearchParams(location.search).get("token") || "";
let editing = false;
$("cells").addEventListener("focus", () => { editing = true; });
$("cells").addEventListener("blur", () => { editing = false; });
function show(s) {
  $("markers").textContent = s.markers.length ? s.markers.join(" ") : "none";
  $("message").textContent = s.message;
  $("reading").textContent = s.reading || "-";
  if (!editing && !$("cells").value) $("cells").value = s.layout;
  for (const step of ["empty", "layout", "done"]) {
    $("s-" + step).classList.toggle("current", s.step === step);
  }
  document.body.dataset.step = s.step;
}
async function call(path, body) {
  const headers = {"Content-Type": "application/json"};
  if (token) headers["Authorization"] = "Bearer " + token;
  const r = await fetch(path, {method: "POST", headers, body: JSON.stringify(body || {})});
  const data = await r.json();
  $("error").textContent = r.ok ? "" : data.error;
  if (r.ok) show(data);
}
$("empty").onclick = () => call("/api/empty");
$("layout").onclick = () => call("/api/layout", {cells: $("cells").value});
$("restart").onclick = () => call("/api/restart");
async function poll() {
  try { show(await (await fetch("/api/status")).json()); } catch (e) { }
  setTimeout(poll, 500);
}
function refresh() {
  const img = new Image();
  img.onload = () => { $("preview").src = img.src; setTimeout(refresh, 200); };
  img.onerror = () => setTimeout(refresh, 1000);
  img.src = "/preview.jpg?t=" + Date.now();
}
poll();
refresh();
</script>
</body></html>
"""

