"""Rooms the reader was not tuned on, applied to a rendered photo: a lamp's
hot spot, a hard shadow across the board, motion blur, a warm dim lamp, a
very dark room, heavy sensor noise and JPEG (``python -m calibration.bench
--conditions``).  Each works in linear light (the usual 2.2 encoding) and
compresses the result again as a camera would."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

__all__ = ["CONDITIONS"]


def _linear(img: np.ndarray) -> np.ndarray:
    return np.asarray((img.astype(np.float32) / 255) ** 2.2)


def _encoded(x: np.ndarray, quality: int = 75) -> np.ndarray:
    out = np.clip(255 * np.clip(x, 0, 1) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def _grid(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0 : img.shape[0], 0 : img.shape[1]].astype(np.float32)
    return xx, yy


def hot_spot(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A desk lamp close over the board: up to 3.5 times the light under it."""
    xx, yy = _grid(img)
    cx, cy, r = rng.uniform(300, 980), rng.uniform(150, 570), rng.uniform(150, 300)
    gain = 0.5 + 3.0 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    return _encoded(_linear(img) * gain[..., None])


def hard_shadow(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A sharp shadow edge (60% less light) across the board."""
    xx, yy = _grid(img)
    a = rng.uniform(0, np.pi)
    cx, cy = rng.uniform(400, 880), rng.uniform(200, 520)
    gain = np.where((xx - cx) * np.cos(a) + (yy - cy) * np.sin(a) > 0, 0.4, 1.0)
    gain = cv2.GaussianBlur(gain.astype(np.float32), (0, 0), 2)
    return _encoded(_linear(img) * gain[..., None])


def motion_blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The camera shaken during the exposure: 15 pixels of blur."""
    n = 15
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = np.asarray(cv2.warpAffine(k, turn, (n, n)), np.float32)
    out = cv2.filter2D(img, -1, kernel / kernel.sum())
    return _encoded(_linear(out))


def warm_lamp(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A warm bulb and no white balance: blue 0.2, green 0.4, red 0.7 of the light."""
    return _encoded(_linear(img) * np.array([0.21, 0.42, 0.72], np.float32))


def dark_room(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An eighth of the light under a locked exposure, JPEG quality 60."""
    return _encoded(_linear(img) * 0.12, 60)


def noisy(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Heavy sensor noise (10 levels) and JPEG quality 35."""
    x = img.astype(np.float32) + rng.normal(0, 10, img.shape)
    return _encoded(_linear(np.clip(x, 0, 255).astype(np.uint8)), 35)


CONDITIONS: dict[str, Callable[[np.ndarray, np.random.Generator], np.ndarray]] = {
    "lamp hot spot": hot_spot, "hard shadow": hard_shadow, "motion blur": motion_blur,
    "warm lamp": warm_lamp, "dark room": dark_room, "noise and JPEG 35": noisy,
}
