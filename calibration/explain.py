"""Why a frame read as it did: the overlay written by ``camera read --explain``.

The camera picture with the markers, the grid and every square's reading
(:func:`calibration.preview.draw_overlay`), and beside it a panel with the
light correction applied to that frame: the light falling on the board at
each grid intersection relative to the calibration (brightness as grey
level, the gradient as an arrow), the overall gain and tint, the veiling
light taken out, and the pieces' contrast with the board in this frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import EXPLAIN_PANEL, CameraReader, Reading
from calibration.colour import GAMMA
from calibration.preview import draw_overlay

__all__ = ["light_summary", "explain_picture"]

PANEL = EXPLAIN_PANEL


def light_summary(reading: Reading) -> dict[str, float]:
    """The light correction of one frame, in plain numbers.

    ``gain``: mean brightness of the picture against the empty-board photo;
    ``tint_red`` and ``tint_blue``: red and blue light against green (the
    white balance, in linear light); ``gradient``: the change of
    light across the 7x7 area (fraction, along ``gradient_deg``, 0 = towards
    the g-file, 90 = towards rank 7); ``flare``: veiling light taken out
    (fraction of white); ``contrast``: the pieces' contrast with the board
    against the calibration.
    """
    fe = reading.features
    light = fe.light if fe.light is not None else np.zeros((64, 3))
    ok = fe.patch_ok[:64]
    pts = light[ok] if ok.sum() >= 3 else light
    grey = pts.mean(axis=1) * GAMMA  # log of linear light
    ij = np.array([(k % 8, k // 8) for k in range(64)], np.float64)[ok if ok.sum() >= 3 else
                                                                     slice(None)]
    a = np.column_stack([ij, np.ones(len(ij))])
    coef, *_ = np.linalg.lstsq(a, grey, rcond=None)
    slope = np.hypot(coef[0], coef[1]) * 7  # log change across the board
    med = np.median(pts, axis=0)
    cal = reading.model
    return {
        "gain": float(np.exp(med.mean())),
        "tint_blue": float(np.exp(GAMMA * (med[0] - med[1]))),
        "tint_red": float(np.exp(GAMMA * (med[2] - med[1]))),
        "gradient": float(np.expm1(slope / GAMMA)),
        "gradient_deg": float(np.degrees(np.arctan2(coef[1], coef[0]))),
        "flare": float(fe.flare),
        "contrast": float(np.linalg.norm(cal.means[1:]))
        / max(float(np.linalg.norm(cal.base[1:])), 1e-9),
    }


def _light_map(reading: Reading, size: int) -> np.ndarray:
    """The 8x8 intersections as discs: grey = light there (mid grey = as at
    calibration), a red cross where the board's lines were not seen."""
    fe = reading.features
    light = fe.light if fe.light is not None else np.zeros((64, 3))
    img = np.full((size, size, 3), 40, np.uint8)
    step = size / 9
    for k in range(64):
        i, j = k % 8, k // 8
        c = (round((i + 1) * step), round((8 - j) * step))
        v = int(np.clip(128 * np.exp(light[k].mean()), 0, 255))
        cv2.circle(img, c, max(3, round(step * 0.4)), (v, v, v), -1, cv2.LINE_AA)
        if not fe.patch_ok[k]:
            d = round(step * 0.3)
            cv2.line(img, (c[0] - d, c[1] - d), (c[0] + d, c[1] + d), (40, 40, 230), 2)
            cv2.line(img, (c[0] - d, c[1] + d), (c[0] + d, c[1] - d), (40, 40, 230), 2)
    return img


def explain_picture(image: np.ndarray, reader: CameraReader) -> np.ndarray:
    """The overlay of the frame ``reader`` read last (``image``), with the panel."""
    r = reader.last_reading
    pic = draw_overlay(image, markers=reader.last_markers,
                       homography=None if r is None else r.homography,
                       cells=reader.last_raw)
    h = pic.shape[0]
    panel = np.full((h, PANEL, 3), 24, np.uint8)
    lines = [f"board: {reader.tracker.status}", f"read: {reader.last_raw.count('?')} '?'"]
    if r is None:
        lines.append("board not located: no light measured")
    else:
        s = _light_map(r, PANEL - 20)
        top = min(h - s.shape[0], 150)
        panel[top : top + s.shape[0], 10 : 10 + s.shape[1]] = s[: h - top]
        k = light_summary(r)
        lines += [
            f"gain {k['gain']:.2f}  tint R {k['tint_red']:.2f} B {k['tint_blue']:.2f}",
            f"gradient {100 * k['gradient']:.0f}% at {k['gradient_deg']:.0f} deg",
            f"veiling light {100 * k['flare']:.1f}%  contrast x{k['contrast']:.2f}",
            "light at the grid intersections:",
        ]
    for n, text in enumerate(lines):
        cv2.putText(panel, text, (10, 26 + 28 * n), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    (230, 230, 230), 1, cv2.LINE_AA)
    return np.hstack([pic, panel])
