"""Board homography from the markers, kept across frames with bump detection."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.markers import MARKER_CENTRES, marker_corners_board

__all__ = ["fit_homography", "fit_from_centres", "HomographyTracker", "project", "square_px"]


def project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Map Nx2 points through the 3x3 homography ``h``."""
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(p, h).reshape(-1, 2)


def fit_from_centres(detections: dict[int, np.ndarray]) -> np.ndarray:
    """Board units -> pixels from the centres of all four markers (orientation-free)."""
    src = np.array([MARKER_CENTRES[i] for i in range(4)], np.float64)
    dst = np.array([detections[i].mean(axis=0) for i in range(4)], np.float64)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(
        np.float64
    )


def fit_homography(
    detections: dict[int, np.ndarray], board: dict[int, np.ndarray] | None = None
) -> tuple[np.ndarray | None, float]:
    """Least-squares homography (board units -> pixels) from the visible markers' corners.

    ``board`` gives each marker's corners in board units (learned at
    calibration; the nominal layout otherwise).  Needs 3 markers.  Returns the
    homography (or None) and the worst corner residual in pixels.
    """
    ids = [i for i in sorted(detections) if board is None or i in board]
    if len(ids) < 3:
        return None, float("inf")
    src = np.concatenate([(board[i] if board else marker_corners_board(i)) for i in ids])
    dst = np.concatenate([detections[i] for i in ids])
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        return None, float("inf")
    err = float(np.linalg.norm(project(h, src) - dst, axis=1).max())
    return h, err


def square_px(h: np.ndarray) -> float:
    """The mean side of a board square in pixels under ``h``."""
    c = project(h, np.array([[0, 0], [7, 0], [7, 7], [0, 7]], np.float64))
    area = 0.5 * abs(
        np.dot(c[:, 0], np.roll(c[:, 1], 1)) - np.dot(c[:, 1], np.roll(c[:, 0], 1))
    )
    return float(np.sqrt(area) / 7)


class HomographyTracker:
    """Keeps the board homography over a live stream.

    Each frame: with all 4 markers seen in agreement with the kept homography
    it is refitted (following small shake); with fewer (a hand over a
    marker), the kept one follows the markers still seen with a rotation,
    scale and shift (three markers alone fix the perspective poorly towards
    the hidden corner: a couple of pixels off there is enough to lose the
    grid lines).  A marker seen far from where the kept homography
    puts it (more than ``bump`` squares) means the camera or board was bumped:
    the homography is recomputed when 3 markers are visible, otherwise it is
    dropped (``homography`` is None: the frame cannot be read) until enough
    markers show again.  ``bumped`` tells whether the last update saw a bump;
    ``bumps`` counts them.
    """

    def __init__(
        self,
        board: dict[int, np.ndarray] | None = None,
        initial: np.ndarray | None = None,
        bump: float = 0.3,
    ) -> None:
        self.board = board or {i: marker_corners_board(i) for i in range(4)}
        self.homography = initial
        self.bump = bump
        self.bumped = False
        self.bumps = 0
        self.status = "none" if initial is None else "initial"

    def _tolerance(self, h: np.ndarray) -> float:
        return max(3.0, self.bump * square_px(h))

    def update(self, detections: dict[int, np.ndarray]) -> np.ndarray | None:
        seen = {i: c for i, c in detections.items() if i in self.board}
        self.bumped = False
        kept = self.homography
        if kept is not None and seen:
            tol = self._tolerance(kept)
            errs = {
                i: float(np.linalg.norm(project(kept, self.board[i]) - c, axis=1).max())
                for i, c in seen.items()
            }
            if max(errs.values()) > tol:
                self.bumped = True
                self.bumps += 1
        if len(seen) == 4:
            h, err = fit_homography(seen, self.board)
            if h is not None and err <= self._tolerance(h) * 0.5:
                self.homography = h
                self.status = "bumped" if self.bumped else "fresh"
                return h
        if len(seen) >= 3 and (self.bumped or kept is None):
            # a new place: fitted from three markers (or, one partly covered
            # by a hand, its corners off, the best three of four).  Three
            # markers fix the perspective poorly towards the missing corner,
            # so an unmoved camera follows the kept homography instead (below)
            subsets = ([{k: v for k, v in seen.items() if k != i} for i in seen]
                       if len(seen) == 4 else [seen])
            for sub in subsets:
                h, err = fit_homography(sub, self.board)
                if h is not None and err <= self._tolerance(h) * 0.5:
                    self.homography = h
                    self.status = "bumped" if self.bumped else "fresh"
                    return h
            # inconsistent markers (one misdetected or moved): keep only if nothing contradicts
        if self.bumped or kept is None:
            self.homography = None
            self.status = "lost"
            return None
        self.status = "kept"
        if seen:
            self.homography = kept = _follow(kept, seen, self.board)
        return kept


def _follow(h: np.ndarray, seen: dict[int, np.ndarray], board: dict[int, np.ndarray]) -> np.ndarray:
    """The kept homography moved to follow the few markers still seen (camera
    shake): a shift from one marker, a rotation, scale and shift from two."""
    ids = sorted(seen)
    src = np.concatenate([project(h, board[i]) for i in ids]).astype(np.float32)
    dst = np.concatenate([seen[i] for i in ids]).astype(np.float32)
    if len(ids) >= 2:
        a, _ = cv2.estimateAffinePartial2D(src, dst, method=cv2.LMEDS)
        if a is None:
            return h
    else:
        a = np.hstack([np.eye(2), (dst - src).mean(axis=0)[:, None]])
    m = np.vstack([a, [0, 0, 1]])
    return np.asarray(m @ h)
