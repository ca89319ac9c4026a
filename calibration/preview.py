"""Pictures of what the camera sees: the markers found, the board grid the
homography puts on the picture, and each square's reading (or the layout a
person is asked to set up), drawn over the camera frame.

Used by the interactive calibration (``calibrate camera --live``) and by the
service's camera preview (``GET /api/camera.jpg``).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.homography import project, square_px

__all__ = ["draw_overlay", "jpeg"]

# BGR colours
GREEN = (60, 200, 60)
RED = (40, 40, 230)
BLUE = (230, 120, 30)  # the Attacker, as the board page draws it
PINK = (150, 80, 230)  # the Defender, as the board page draws it
YELLOW = (0, 220, 255)
GREY = (170, 170, 170)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
PIECE = {"a": (BLUE, "A"), "d": (PINK, "D")}


def _pt(p: np.ndarray) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))


def _label(img: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int],
           scale: float) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, int(round(scale * 2)))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (at[0] - w // 2, at[1] + h // 2)
    cv2.putText(img, text, org, font, scale, BLACK, thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)


def draw_overlay(image: np.ndarray, *, markers: dict[int, np.ndarray] | None = None,
                 homography: np.ndarray | None = None, cells: str | None = None,
                 expected: str | None = None, size: int = 7) -> np.ndarray:
    """A copy of ``image`` (BGR) with the overlay.

    ``markers``: detected marker corners by id (outlined, with their id).
    ``homography``: board units to pixels (a1 is [0,1]x[0,1]); draws the grid
    and the file and rank labels.  ``cells``: a reading, one character a
    square (``a`` blue A, ``d`` pink D, ``?`` yellow, ``.`` a grey dot).
    ``expected``: the layout asked for, drawn as hollow rings; where a reading
    is also given, squares that disagree get a red ring.
    """
    out = image.copy()
    for mid, corners in (markers or {}).items():
        pts = np.round(corners).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, GREEN, 2, cv2.LINE_AA)
        _label(out, str(mid), _pt(corners.mean(axis=0)), GREEN, 0.8)
    if homography is None:
        return out
    h = homography
    side = max(4.0, square_px(h))
    scale = max(0.35, min(1.2, side / 60))
    for k in range(size + 1):
        a, b = project(h, np.array([[k, 0], [k, size]], np.float64))
        cv2.line(out, _pt(a), _pt(b), GREEN, 1, cv2.LINE_AA)
        a, b = project(h, np.array([[0, k], [size, k]], np.float64))
        cv2.line(out, _pt(a), _pt(b), GREEN, 1, cv2.LINE_AA)
    for f in range(size):
        _label(out, "abcdefghijklmnopqrstuvwxyz"[f],
               _pt(project(h, np.array([[f + 0.5, -0.3]]))[0]), GREEN, scale * 0.7)
    for r in range(size):
        _label(out, str(r + 1), _pt(project(h, np.array([[-0.3, r + 0.5]]))[0]), GREEN,
               scale * 0.7)
    centres = project(h, np.array([[sq % size + 0.5, sq // size + 0.5]
                                   for sq in range(size * size)], np.float64))
    radius = max(3, int(side * 0.32))
    for sq in range(size * size):
        c = _pt(centres[sq])
        want = expected[sq] if expected else None
        got = cells[sq] if cells else None
        if want in PIECE:
            colour, text = PIECE[want]
            cv2.circle(out, c, radius, colour, 2, cv2.LINE_AA)
            if got is None:
                _label(out, text, c, colour, scale)
        if got is None:
            continue
        if got in PIECE:
            colour, text = PIECE[got]
            cv2.circle(out, c, radius // 2, colour, -1, cv2.LINE_AA)
            _label(out, text, c, WHITE, scale * 0.8)
        elif got == "?":
            _label(out, "?", c, YELLOW, scale)
        else:
            cv2.circle(out, c, max(2, radius // 6), GREY, -1, cv2.LINE_AA)
        if want is not None and got != "?" and got != want:
            cv2.circle(out, c, radius + 3, RED, 3, cv2.LINE_AA)
    return out


def jpeg(image: np.ndarray, max_width: int = 960, quality: int = 80) -> bytes:
    """JPEG bytes of ``image``, scaled down to ``max_width`` pixels wide."""
    if image.shape[1] > max_width:
        k = max_width / image.shape[1]
        image = cv2.resize(image, (max_width, max(1, int(image.shape[0] * k))),
                           interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("cannot encode the preview picture")
    return data.tobytes()
