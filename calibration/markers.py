"""ArUco markers around the board: geometry, detection, printable sheets.

Board coordinates are in *square units*: ``u`` runs along the files (0 at the
outer edge of the a-file, 7 at the outer edge of the g-file) and ``v`` along
the ranks (0 at the outer edge of rank 1, 7 at the outer edge of rank 7), so
square a1 is ``[0, 1] x [0, 1]`` and g7 is ``[6, 7] x [6, 7]``.

Four markers of OpenCV's ``DICT_4X4_50`` sit on the extensions of the board's
diagonals, their centres one square beyond each corner of the 7x7 area:
id 0 at (-1, -1) beyond a1, id 1 at (8, -1) beyond g1, id 2 at (8, 8) beyond
g7, id 3 at (-1, 8) beyond a7.  Each is 0.8 of a square wide and printed
upright (its top edge towards rank 7).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.images import unfit_to_write, write_file

__all__ = [
    "largest_square_mm",
    "MARKER_CENTRES",
    "MARKER_SIDE",
    "marker_corners_board",
    "detect_markers",
    "detect_markers_near",
    "write_marker_sheet",
    "write_paper_board",
]

ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_SIDE = 0.8
MARKER_CENTRES: dict[int, tuple[float, float]] = {
    0: (-1.0, -1.0),
    1: (8.0, -1.0),
    2: (8.0, 8.0),
    3: (-1.0, 8.0),
}


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICT)


def marker_corners_board(marker_id: int) -> np.ndarray:
    """The 4 corners of a marker in board units, in OpenCV's order (TL, TR, BR, BL)."""
    cx, cy = MARKER_CENTRES[marker_id]
    h = MARKER_SIDE / 2
    return np.array(
        [[cx - h, cy + h], [cx + h, cy + h], [cx + h, cy - h], [cx - h, cy - h]],
        dtype=np.float64,
    )


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    global _DETECTOR
    if _DETECTOR is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        # Small, blurred markers under uneven light lose a bit now and then:
        # correct as many bits as the dictionary allows (ids other than 0-3
        # are ignored and the homography checks the rest), and sample each
        # bit from more pixels.
        params.errorCorrectionRate = 1.0
        params.perspectiveRemovePixelPerCell = 8
        _DETECTOR = cv2.aruco.ArucoDetector(_dictionary(), params)
    return _DETECTOR


def _refined(found: dict[int, np.ndarray], gray: np.ndarray) -> dict[int, np.ndarray]:
    pts = np.concatenate(list(found.values())).reshape(-1, 1, 2).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 0.05)
    pts = np.asarray(cv2.cornerSubPix(gray, pts, (3, 3), (-1, -1), crit), np.float32)
    return {k: pts[4 * n : 4 * n + 4].reshape(4, 2).astype(np.float64)
            for n, k in enumerate(found)}


def detect_markers(gray: np.ndarray, downscale: bool = True,
                   thorough: bool = False) -> dict[int, np.ndarray]:
    """Find the board's markers (ids 0-3) in a grey image.

    Returns ``{id: corners}`` with ``corners`` a 4x2 float array of image pixels
    (TL, TR, BR, BL).  With ``downscale`` the search runs on a half-size image
    (4x faster) and the corners are refined on the full-size image.  With
    ``thorough`` (calibration, where time does not matter) a 2x enlargement
    is searched too when a marker is missing.
    """
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    small = downscale and min(gray.shape[:2]) >= 600
    img = cv2.pyrDown(gray) if small else gray
    corners, ids, _ = _detector().detectMarkers(img)
    if small and (ids is None or len(set(ids.ravel().tolist()) & set(MARKER_CENTRES)) < 4):
        # small or blurred markers: search the full-size image as well
        c2, i2, _ = _detector().detectMarkers(gray)
        if i2 is not None and (ids is None or len(i2) > len(ids)):
            small = False
            corners, ids = c2, i2
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        mid = int(i)
        if mid not in MARKER_CENTRES:
            continue
        pts = c.reshape(4, 2).astype(np.float32)
        if small:
            pts = pts * 2.0 + 0.5
        if mid in found:  # the same id twice: ambiguous, trust neither
            found[mid] = np.full((4, 2), np.nan, np.float32)
            continue
        found[mid] = pts
    found = {k: v for k, v in found.items() if not np.isnan(v).any()}
    if thorough and len(found) < 4:
        # a marker far from the camera, a few pixels a bit: search enlargements
        for k in (2, 3):
            big = cv2.resize(gray, None, fx=k, fy=k, interpolation=cv2.INTER_LINEAR)
            c2, i2, _ = _detector().detectMarkers(big)
            more = {int(i): (c.reshape(4, 2) + 0.5) / k - 0.5
                    for c, i in zip(c2, [] if i2 is None else i2.ravel(), strict=True)
                    if int(i) in MARKER_CENTRES}
            if len(more) > len(found):
                found, small = more, True  # refined at full size below
            if len(found) == 4:
                break
    if small and found:
        return _refined(found, gray)
    return {k: v.astype(np.float64) for k, v in found.items()}


def detect_markers_near(image: np.ndarray, expected: dict[int, np.ndarray],
                        margin: float) -> dict[int, np.ndarray]:
    """Find each marker in a small window around where it is expected
    (``expected``: id -> 4x2 corners in pixels, ``margin`` pixels around
    them), at full size: a few small searches instead of one over the whole
    picture.  A marker not in its window is simply not returned."""
    found: dict[int, np.ndarray] = {}
    height, width = image.shape[:2]
    for mid, corners in expected.items():
        x0, y0 = np.floor(corners.min(axis=0) - margin).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0) + margin).astype(int)
        # even offsets: the half-size crop is the half-size picture's pixels
        x0, y0, x1, y1 = max(x0, 0) & ~1, max(y0, 0) & ~1, min(x1, width), min(y1, height)
        if x1 - x0 < 16 or y1 - y0 < 16:
            continue
        crop = image[y0:y1, x0:x1]
        if crop.ndim == 3:
            crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        # as the whole-picture search does: at half size, corners refined at full size
        for k in (2, 1):
            c, ids, _ = _detector().detectMarkers(cv2.pyrDown(crop) if k == 2 else crop)
            hits = [n for n, i in enumerate([] if ids is None else ids.ravel()) if int(i) == mid]
            if len(hits) == 1:
                pts = c[hits[0]].reshape(4, 2) * k + (0.5 if k == 2 else 0.0)
                found[mid] = _refined({mid: pts}, crop)[mid] + [x0, y0]
                break
    return found


def _marker_image(marker_id: int, side_px: int) -> np.ndarray:
    return cv2.aruco.generateImageMarker(_dictionary(), marker_id, side_px)


def _px_per_mm(dpi: int) -> float:
    return dpi / 25.4


def largest_square_mm(dpi: int) -> float:
    """The largest board square whose markers fit an A4 sheet at ``dpi``
    (each in a quarter of the sheet, 20 pixels to spare for its guide)."""
    k = _px_per_mm(dpi)
    return (min(round(210 * k) // 2, round(297 * k) // 2) - 20) / (MARKER_SIDE * k)


def write_marker_sheet(
    out_path: str | Path, *, square_mm: float = 40.0, dpi: int = 300, board: bool = True
) -> list[Path]:
    """Write a printable A4 PNG of the four markers (each 0.8 * ``square_mm`` wide).

    Print at ``dpi`` with no scaling; each marker has a white margin and a label
    saying where it goes.  With ``board`` also write a printable paper board
    (7x7 grid with the markers in place) beside it, named ``<stem>-board.png``.
    Returns the paths written.
    """
    if square_mm <= 0 or dpi < 50:
        raise ValueError("square_mm must be positive and dpi at least 50")
    out_path = Path(out_path)
    if out_path.is_dir():
        raise ValueError(f"{out_path}: is a directory: give the PNG file to write in it")
    if out_path.suffix.lower() != ".png":  # a JPEG's losses blur the markers' edges
        raise ValueError(f"{out_path}: not a PNG file name: give one ending in .png")
    for path in (out_path, out_path.with_name(out_path.stem + "-board.png")):
        why = unfit_to_write(path)
        if why is not None:
            raise ValueError(f"{path}: {why}")
    k = _px_per_mm(dpi)
    w, h = round(210 * k), round(297 * k)
    sheet = np.full((h, w), 255, np.uint8)
    side = round(MARKER_SIDE * square_mm * k)
    cell_w, cell_h = w // 2, h // 2
    places = {0: "beyond a1", 1: "beyond g1", 2: "beyond g7", 3: "beyond a7"}
    for mid in range(4):
        col, row = mid % 2, mid // 2
        x0 = col * cell_w + (cell_w - side) // 2
        y0 = row * cell_h + (cell_h - side) // 2
        if side > min(cell_w, cell_h) - 20:
            raise ValueError(f"square_mm {square_mm:g} too large for an A4 marker sheet "
                             f"(at most {largest_square_mm(dpi):.1f})")
        sheet[y0 : y0 + side, x0 : x0 + side] = _marker_image(mid, side)
        label = f"id {mid}: {places[mid]}  (side {MARKER_SIDE * square_mm:.1f} mm, top to rank 7)"
        scale = max(0.4, dpi / 300)
        cv2.putText(sheet, label, (col * cell_w + 20, y0 + side + round(40 * scale)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, 0, max(1, round(2 * scale)))
        # cutting guide: a thin square one quarter of a square wide outside the marker
        m = round(0.1 * square_mm * k)
        cv2.rectangle(sheet, (x0 - m, y0 - m), (x0 + side + m, y0 + side + m), 160, 1)
    _write_png(out_path, sheet)
    written = [out_path]
    if board:
        bpath = out_path.with_name(out_path.stem + "-board.png")
        write_paper_board(bpath, square_mm=min(square_mm, 19.0), dpi=dpi)
        written.append(bpath)
    return written


def paper_board_image(px_per_square: int, line_px: int | None = None) -> np.ndarray:
    """A top-down grey image of the 7x7 grid with its markers: 10 x 10 squares,
    board units -1.5 .. 8.5 (rank 7 at the top)."""
    s = px_per_square
    img = np.full((10 * s, 10 * s), 255, np.uint8)
    lw = line_px or max(1, round(0.04 * s))

    def xy(u: float, v: float) -> tuple[int, int]:
        return round((u + 1.5) * s), round((8.5 - v) * s)

    for t in range(8):
        cv2.line(img, xy(t, 0), xy(t, 7), 0, lw)
        cv2.line(img, xy(0, t), xy(7, t), 0, lw)
    side = round(MARKER_SIDE * s)
    for mid, (cx, cy) in MARKER_CENTRES.items():
        x, y = xy(cx, cy)
        img[y - side // 2 : y - side // 2 + side, x - side // 2 : x - side // 2 + side] = (
            _marker_image(mid, side)
        )
    for f in range(7):
        cv2.putText(img, "abcdefg"[f], xy(f + 0.4, -0.4), cv2.FONT_HERSHEY_SIMPLEX,
                    s / 80, 0, max(1, s // 40))
    for r in range(7):
        cv2.putText(img, str(r + 1), xy(-0.4, r + 0.4), cv2.FONT_HERSHEY_SIMPLEX,
                    s / 80, 0, max(1, s // 40))
    return img


def write_paper_board(out_path: str | Path, *, square_mm: float = 19.0, dpi: int = 300) -> Path:
    """Write a printable paper board (grid and markers, 10 squares wide) as PNG.

    A4 holds ``square_mm`` up to 21; larger boards need a larger sheet.
    """
    if square_mm <= 0 or dpi < 50:
        raise ValueError("square_mm must be positive and dpi at least 50")
    out_path = Path(out_path)
    s = round(square_mm * _px_per_mm(dpi))
    img = paper_board_image(s)
    _write_png(out_path, img)
    return out_path


def _write_png(path: Path, img: np.ndarray) -> None:
    """``img`` written to ``path`` as PNG, its folder made when missing:
    encoded here and written by Python, so a file that cannot be written
    says why in one line (OpenCV's imwrite printed a warning of its own and
    answered only False)."""
    write_file(path, cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 9])[1].tobytes())
