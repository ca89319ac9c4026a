"""Per-square colour features normalised by local illumination, and the classifier.

The frame is warped to a top-down grid (``S`` pixels a square, half a square
of margin).  For every square we take the median colour of its central disc
(radius 0.2 square, so an off-centre piece still covers it) and compare it
with the same disc on the empty board: ``log(disc / empty_disc)`` per channel.
Lighting is divided out with the board itself: the small patches at the grid
intersections (the square's corners, which pieces do not cover) give
``log(patch / empty_patch)``, the local illumination and white balance.  A
patch counts only when it still looks like the empty board there
(normalised cross-correlation of its grid-line pattern, and a colour ratio
close to the board's usual one): a hand or an arm hides the lines.

The feature of a square is ``log(disc ratio) - log(local illumination)``: about
0 for an empty square whatever the light, and the piece's reflectance relative
to the board for a piece.  Each class (empty, Attacker, Defender) is a
Gaussian learned from the layout photo, widened by a floor and by the spread
of the square's corner illuminations (a shadow edge across it).  A square is
``?`` unless one class is close and the next clearly farther.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.images import numbers_only

__all__ = ["Grid", "Features", "ColourModel", "CLASSES", "lines_beyond"]

CLASSES = (".", "a", "d")
CLOSE_DIST, CLOSE_MARGIN = 1.5, 1.5
# or, for a reading within LIKELY_DIST, the second class at least e^(LIKELY/2)
# times less likely (squared distances LIKELY apart)
LIKELY_DIST, LIKELY = 2.5, 6.0
EDGE_BY_HAND = 1.0  # the largest distance to empty of a square whose edge the hand hides
NEAR_HAND = 2.5  # the largest distance to its class of a piece reading beside the hand
NEAR_HAND_EMPTY = 1.5  # and of an empty reading
SCALES = np.linspace(0.5, 1.8, 14)  # per-frame contrast of the pieces against the board
# The largest number of a profile's colour model: far beyond a colour's
# statistics, and far below what overflows the reading's arithmetic.
MODEL_LIMIT = 1e6
SEPARATION = 4.0  # the least distance between two class means, in floors
LEAST_FLOOR = 0.01  # a fifth of the floor calibration writes
CLIP = 10.0  # a square's largest say in choosing that contrast, in floor units
ADAPT = (0, 1, 2)
PRIOR = 3.0  # the calibration's weight in a frame's class means, in squares
CLIPPED = 253.0  # this bright (8-bit, +1) a channel is at the top of the camera's range


class Grid:
    """Pixel index sets of the top-down warp."""

    def __init__(self, s: int = 24) -> None:
        self.s = s
        self.size = 8 * s  # board units -0.5 .. 7.5
        n = self.size
        yy, xx = np.mgrid[0:n, 0:n]
        u = (xx + 0.5) / s - 0.5
        v = 7.5 - (yy + 0.5) / s
        flat = np.arange(n * n).reshape(n, n)
        discs = []
        rings = []
        for i in range(49):
            f, r = i % 7, i // 7
            d = np.hypot(u - (f + 0.5), v - (r + 0.5))
            discs.append(flat[d <= 0.2])
            rings.append(flat[(np.abs(u - (f + 0.5)) < 0.5) & (np.abs(v - (r + 0.5)) < 0.5)])
        k = min(len(x) for x in discs)
        self.disc = np.stack([x[:k] for x in discs])
        self.square = np.stack(rings)
        half = max(3, round(0.16 * s))

        def box(cu: float, cv: float) -> np.ndarray:
            x, y = round((cu + 0.5) * s), round((7.5 - cv) * s)
            return flat[y - half : y + half, x - half : x + half].ravel()

        # 64 intersections (index j*8+i), then 56 horizontal edge midpoints
        # (64 + j*7+i: (i+0.5, j)), then 56 vertical ones (120 + j*8+i: (i, j+0.5))
        patches = [box(i, j) for j in range(8) for i in range(8)]
        patches += [box(i + 0.5, j) for j in range(8) for i in range(7)]
        patches += [box(i, j + 0.5) for j in range(7) for i in range(8)]
        self.patch = np.stack(patches)
        centres: list[tuple[float, float]] = [(i, j) for j in range(8) for i in range(8)]
        centres += [(i + 0.5, j) for j in range(8) for i in range(7)]
        centres += [(i, j + 0.5) for j in range(7) for i in range(8)]
        self.patch_uv = np.array(centres, np.float64) / 7.0  # 176 x 2, board units / 7
        # 32 patches in the margin, a third of a square beyond the outer lines,
        # where each grid line would go on (8 a side: the a file's side, the
        # g file's, rank 1's and rank 7's), and the edge midpoint whose
        # pattern is that line
        t = 1 / 3
        self.margin = np.stack([box(-t, j) for j in range(8)] + [box(7 + t, j) for j in range(8)]
                               + [box(i, -t) for i in range(8)] + [box(i, 7 + t) for i in range(8)])
        self.margin_line = np.array([64 + j * 7 for j in range(8)] + [70 + j * 7 for j in range(8)]
                                    + [120 + i for i in range(8)] + [168 + i for i in range(8)])
        corners, edges, across = [], [], []
        for sq in range(49):
            f, r = sq % 7, sq // 7
            corners.append([r * 8 + f, r * 8 + f + 1, (r + 1) * 8 + f, (r + 1) * 8 + f + 1])
            # bottom, top, left, right edges and the square across each (-1: off the board)
            edges.append([64 + r * 7 + f, 64 + (r + 1) * 7 + f,
                          120 + r * 8 + f, 120 + r * 8 + f + 1])
            across.append([sq - 7 if r > 0 else -1, sq + 7 if r < 6 else -1,
                           sq - 1 if f > 0 else -1, sq + 1 if f < 6 else -1])
        self.corners = np.array(corners)  # 49 x 4 intersection indices
        self.edges = np.array(edges)  # 49 x 4 edge-midpoint patch indices
        self.across = np.array(across)  # 49 x 4 neighbouring squares
        self.around = np.array([[(r + dr) * 7 + f + df if 0 <= f + df < 7 and 0 <= r + dr < 7
                                 else -1 for dr in (-1, 0, 1) for df in (-1, 0, 1) if dr or df]
                                for r, f in (divmod(sq, 7) for sq in range(49))])  # 49 x 8

    def to_warp(self, h: np.ndarray) -> np.ndarray:
        """Homography mapping warp pixels to image pixels (for WARP_INVERSE_MAP)."""
        s = self.s
        t = np.array([[1 / s, 0, 0.5 / s - 0.5], [0, -1 / s, 7.5 - 0.5 / s], [0, 0, 1]])
        out: np.ndarray = h @ t
        return out

    def warp(self, image: np.ndarray, h: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(
            image, self.to_warp(h), (self.size, self.size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE,
        )


@dataclass
class Empty:
    """The empty board's appearance: disc and patch medians, patch grey patterns."""

    disc: np.ndarray  # 49 x 3
    patch: np.ndarray  # 176 x 3: the board's light at each patch (its bare wood)
    pattern: np.ndarray  # 176 x P zero-mean unit-norm grey patterns
    wood: np.ndarray  # 176 x W: the pixels of each patch farthest from its lines
    line_contrast: np.ndarray  # 32: the contrast of the line each margin patch faces
    margin_bare: np.ndarray  # 32 bool: the margin patch does not show that line going on

    @classmethod
    def from_warp(cls, grid: Grid, top: np.ndarray) -> Empty:
        flat = top.reshape(-1, 3).astype(np.float32) + 1.0
        disc = np.median(flat[grid.disc], axis=1)
        pattern = _patterns(flat[grid.patch])
        # the light is read off the bare wood between the lines: a patch's
        # median sits between the dark lines and the wood, where the edge or
        # shadow of a piece reaching into the patch (or the blur of the
        # photo) moves it a lot
        wood = np.argsort(-pattern, axis=1)[:, : int(WOOD * pattern.shape[1])]
        line = flat[grid.patch[grid.margin_line]]
        contrast = _contrast(line)
        bare = ~_line_on(flat[grid.margin], pattern[grid.margin_line], contrast)
        return cls(disc, _wood_light(flat[grid.patch], wood), pattern, wood, contrast, bare)


WOOD = 0.4  # the part of a patch's pixels read as its bare wood
LINE_ON = 0.6  # the correlation of a margin patch with a grid line's pattern that shows it
LINE_CONTRAST = 0.4  # and the part of the line's contrast at calibration it must keep
BEYOND = 5  # margin patches of one side (of 8) showing the lines going on: the board moved


def _contrast(pix: np.ndarray) -> np.ndarray:
    g = pix.mean(axis=2)
    return np.asarray(g.std(axis=1) / (g.mean(axis=1) + 1e-6))


def _line_on(pix: np.ndarray, line: np.ndarray, contrast: np.ndarray) -> np.ndarray:
    """Which margin patches show the grid line they face going on: its
    pattern, and most of its contrast (the wood's grain can follow a line's
    direction, faintly)."""
    ncc = np.sum(_patterns(pix) * line, axis=1)
    return np.asarray((ncc >= LINE_ON) & (_contrast(pix) >= LINE_CONTRAST * contrast))


def lines_beyond(grid: Grid, empty: Empty, top: np.ndarray) -> tuple[int, ...]:
    """The sides (0: the a file's, 1: the g file's, 2: rank 1's, 3: rank 7's)
    past whose outer line the board's grid lines go on in the top view
    ``top``: the board moved that way against its markers since calibration,
    by half a square or more (by a whole square, every other line is where
    the profile has one, and each square would be read one square off).  A
    side counts when 5 of its 8 margin patches show their line, of those
    the calibration saw bare."""
    flat = top.reshape(-1, 3).astype(np.float32) + 1.0
    on = _line_on(flat[grid.margin], empty.pattern[grid.margin_line], empty.line_contrast)
    on &= empty.margin_bare
    return tuple(side for side in range(4) if on[8 * side : 8 * side + 8].sum() >= BEYOND)


def _wood_light(ppix: np.ndarray, wood: np.ndarray) -> np.ndarray:
    """Median colour of each patch's bare-wood pixels (176 x 3)."""
    return np.asarray(np.median(ppix[np.arange(len(ppix))[:, None], wood], axis=1))


def _patterns(pix: np.ndarray) -> np.ndarray:
    g = pix.mean(axis=2)
    g = g - g.mean(axis=1, keepdims=True)
    return np.asarray(g / (np.linalg.norm(g, axis=1, keepdims=True) + 1e-6))


GAMMA = 2.2  # the usual camera encoding, undone before light is subtracted
FLARES = (0.0, 0.005, 0.01, 0.02, 0.03, 0.045)  # veiling light tried, fraction of white
DARKEST = 0.6  # the most of the darkest square's light a veiling light may be
SHOULDERS = (0.0, 0.3, 0.6)  # highlight compressions of the tone curve tried


def _log_light(x: np.ndarray, flare: float | np.ndarray,
               shoulder: float | np.ndarray = 0.0) -> np.ndarray:
    """Log of linear light less the veiling light, in units of encoded log values.

    ``shoulder``: the tone curve's highlight compression ``y = x (1 + s) / (1 + s x)``
    (bright pieces under strong light), undone before the veiling light."""
    y = np.minimum((x / 256.0) ** GAMMA, 0.999)
    v = y / (1 + shoulder - shoulder * y) - flare
    return np.log(np.maximum(v, 1e-4)) / GAMMA


@dataclass
class Features:
    f: np.ndarray  # 49 x 3 normalised log colour
    spread: np.ndarray  # 49: illumination disagreement between the square's corners
    valid: np.ndarray  # 49: number of usable corners
    patch_ok: np.ndarray  # 176 bool: the board's line pattern is visible there
    edge_ok: np.ndarray  # 49 x 4 bool: the square's edge lines are visible
    raw: tuple[np.ndarray, ...] = ()  # disc, patch medians, empty disc, empty patch, corners
    flare: float = 0.0
    light: np.ndarray | None = None  # 64 x 3 log illumination at the intersections
    shoulder: float = 0.0

    def with_flare(self, flare: float, shoulder: float = 0.0) -> Features:
        """The same frame with the camera's tone curve (``shoulder``) undone and
        ``flare`` (veiling light, fraction of white) taken out of every
        measurement before the ratios are formed."""
        disc, patch, edisc, epatch, corners = self.raw
        logl = _log_light(patch, flare, shoulder) - _log_light(epatch, 0.0)
        cok = self.patch_ok[corners]
        mean, spread = _illumination(logl[corners], cok)
        f = _log_light(disc, flare, shoulder) - _log_light(edisc, 0.0) - mean
        return Features(f, spread, self.valid, self.patch_ok, self.edge_ok, self.raw, flare,
                        logl[:64], shoulder)

    def flares(self) -> tuple[float, ...]:
        """The veiling lights worth trying: at most half the light of the
        darkest part of the board in any channel (more would leave the board
        itself next to nothing)."""
        board = (self.raw[1][self.patch_ok[:64]] / 256.0) ** GAMMA
        if len(board) < 4:
            return FLARES[:1]
        limit = 0.5 * float(np.percentile(board, 10, axis=0).min())
        # nor more than most of the light of the darkest square read (a dark
        # piece would be left next to nothing, its colour only noise)
        discs = (self.raw[0][self.valid >= 3] / 256.0) ** GAMMA
        if len(discs):
            limit = min(limit, DARKEST * float(discs.min()))
        return tuple(fl for fl in FLARES if fl <= limit) or FLARES[:1]

    def corrected(self) -> tuple[list[tuple[float, float]], np.ndarray]:
        """The frame's features under every veiling light and tone curve tried,
        in one array operation: the (flare, shoulder) pairs and K x 49 x 3."""
        disc, patch, edisc, epatch, corners = self.raw
        opts = [(fl, sh) for sh in SHOULDERS for fl in self.flares()]
        fl = np.array([o[0] for o in opts])[:, None, None]
        sh = np.array([o[1] for o in opts])[:, None, None]
        logl = _log_light(patch[None], fl, sh) - _log_light(epatch, 0.0)  # K x 64 x 3
        cok = self.patch_ok[corners]
        w = cok[None, :, :, None].astype(np.float64)
        mean = (logl[:, corners] * w).sum(axis=2) / np.maximum(cok.sum(axis=1), 1)[None, :, None]
        return opts, _log_light(disc[None], fl, sh) - _log_light(edisc, 0.0) - mean


def _illumination(cl: np.ndarray, cok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean log illumination of each square's usable corners, and their spread."""
    n = cok.sum(axis=1)
    w = cok[..., None].astype(np.float32)
    mean = (cl * w).sum(axis=1) / np.maximum(n, 1)[:, None]
    big = np.where(cok[..., None], cl, -np.inf).max(axis=1)
    small = np.where(cok[..., None], cl, np.inf).min(axis=1)
    spread = np.where(n >= 2, (big - small).max(axis=1), 0.0)
    return mean, spread


def features(grid: Grid, empty: Empty, top: np.ndarray, ncc_min: float = 0.55,
             chroma_tol: float = 0.12) -> Features:
    flat = top.reshape(-1, 3).astype(np.float32) + 1.0
    disc = np.median(flat[grid.disc], axis=1)
    ppix = flat[grid.patch]
    patch = _wood_light(ppix, empty.wood)
    ncc = np.sum(_patterns(ppix) * empty.pattern, axis=1)
    logl = np.log(patch / empty.patch)
    chroma = logl - logl.mean(axis=1, keepdims=True)
    ok = ncc >= ncc_min
    if ok[:64].sum() >= 4:
        dev = np.abs(chroma - _usual_chroma(grid, logl, chroma, ok))
        # a dim channel is noisy: the tolerance follows the intersections'
        # own scatter about the usual ratio (up to twice the given one)
        scatter = 1.4826 * np.median(dev[:64][ok[:64]], axis=0)
        ok &= (dev <= np.clip(4.0 * scatter, chroma_tol, 2 * chroma_tol)).all(axis=1)
    n = ok[grid.corners].sum(axis=1)
    # A disc at the top of the camera's range in every channel, on wood there
    # in two channels or more (sunlight, a lamp over a locked exposure): a
    # white piece, or the bare board washed out; the square is not read.
    wood = (patch[:64][grid.corners] >= CLIPPED).sum(axis=1) >= 2  # 49 x 3
    n = np.where((disc >= CLIPPED).all(axis=1) & (wood.sum(axis=1) >= 2), 0, n)
    raw = (disc, patch[:64], empty.disc, empty.patch[:64], grid.corners)
    return Features(np.zeros((49, 3)), np.zeros(49), n, ok, ok[grid.edges], raw).with_flare(0.0)


def _usual_chroma(grid: Grid, logl: np.ndarray, chroma: np.ndarray,
                  ok: np.ndarray) -> np.ndarray:
    """The board's usual colour ratio at every patch: an affine function of the
    patch's place and brightness, fitted to the patches that show the grid
    lines (trimmed twice).  The camera's tone curve bends the channels apart
    as the light changes across the board, so one ratio for the whole board
    would reject the bright or the dark end of a gradient."""
    x = np.column_stack([grid.patch_uv, logl.mean(axis=1), np.ones(len(logl))])
    use = ok.copy()
    use[64:] = False  # only the intersections: pieces reach over the edge midpoints
    ref = np.broadcast_to(np.median(chroma[use], axis=0), chroma.shape)
    for _ in range(3):
        if use.sum() < 12:
            break
        coef, *_ = np.linalg.lstsq(x[use], chroma[use], rcond=None)
        ref = x @ coef
        res = np.abs(chroma - ref).max(axis=1)
        use[:64] = ok[:64] & (res[:64] <= max(0.06, 2.5 * float(np.median(res[:64][use[:64]]))))
    return ref


def _kept_apart(means: np.ndarray, base: np.ndarray) -> bool:
    """Whether a frame's class means are still at least half as far apart as
    at calibration, each pair in the same direction."""
    for i in range(3):
        for j in range(i + 1, 3):
            now, then = means[i] - means[j], base[i] - base[j]
            if np.dot(now, then) < 0.5 * np.dot(then, then) or (
                    np.linalg.norm(now) < 0.5 * np.linalg.norm(then)):
                return False
    return True


def _beside_the_hand(out: list[str], best: np.ndarray, feats: Features, grid: Grid) -> None:
    """A piece reading beside the hand (a neighbour whose corners it covers)
    with two or more of its own edge lines hidden is a finger lying across
    the square unless it sits right on its class: it becomes ``?``."""
    hand = feats.valid < 3
    for i in range(49):
        if out[i] in ("a", "d") and best[i] > CLOSE_DIST and (~feats.edge_ok[i]).sum() >= 2:
            if any(j >= 0 and hand[j] for j in grid.across[i]):
                out[i] = "?"
    # Fingers spread over a square show the lines between them, so its
    # corners can pass while its disc mixes finger, piece and wood: beside the
    # hand (a corner hidden, or a neighbour under it) only a reading close to
    # its class is kept.
    # A finger over a piece can look like bare wood: an empty reading there
    # must be closer still.
    near = (feats.valid < 4) | (hand[grid.around] & (grid.around >= 0)).any(axis=1)
    for i in range(49):
        if near[i] and best[i] > (NEAR_HAND_EMPTY if out[i] == "." else NEAR_HAND):
            out[i] = "?"


MODEL_KEYS = ("floor", "max_dist", "margin", "means", "covs")


def _table(d: Any, shape: tuple[int, ...], words: str) -> np.ndarray:
    """``d`` as an array of ``shape``; a ValueError of ``words`` when it is not."""
    if not numbers_only(d):
        raise ValueError(words)
    try:
        x = np.array(d, np.float64)
    except (TypeError, ValueError):
        raise ValueError(words) from None
    if x.shape != shape:
        raise ValueError(words)
    return x


class ColourModel:
    """Gaussian per class over the 3 normalised log-colour channels."""

    def __init__(self, means: np.ndarray, covs: np.ndarray, floor: float = 0.05,
                 max_dist: float = 4.5, margin: float = 2.5) -> None:
        self.means = np.asarray(means, np.float64)  # 3 x 3 (class, channel)
        self.base = self.means  # the calibration's means (a frame's model adapts them)
        self.covs = np.asarray(covs, np.float64)  # 3 x 3 x 3
        # the calibration's classes as they look in a frame's light (its means
        # scaled to the frame's piece contrast) and spreads, before the frame moves them
        self.expected, self.calibrated_covs = self.means, self.covs
        self.floor = floor
        self.max_dist = max_dist
        self.margin = margin

    @classmethod
    def learn(cls, feats: list[tuple[np.ndarray, str]], **kw: float) -> ColourModel:
        """From (feature row, class) samples; every class needs at least one."""
        means, covs = [], []
        for c in CLASSES:
            x = np.array([f for f, k in feats if k == c], np.float64)
            if len(x) == 0:
                raise ValueError(f"the layout has no {c!r} square to learn from")
            means.append(x.mean(axis=0))
            covs.append(np.cov(x.T) if len(x) >= 3 else np.zeros((3, 3)))
        return cls(np.array(means), np.array(covs), **kw)

    @classmethod
    def learn_layout(cls, feats: Features, cells: str) -> tuple[ColourModel, Features]:
        """From the layout photo's features: the veiling light in that photo is
        taken as the one that keeps each class tightest against the distances
        between classes (``FLARES``)."""
        best: tuple[float, ColourModel, Features] | None = None
        for fe in map(feats.with_flare, feats.flares()):
            samples = [(fe.f[i], cells[i]) for i in range(49) if fe.valid[i] >= 2]
            samples += [(np.zeros(3), ".")] * 3  # the empty photo itself
            missing = [c for c in CLASSES if c in cells and all(k != c for _, k in samples)]
            if missing:  # in the cells, but no such square read in the photo
                c = missing[0]
                raise ValueError(
                    f"the layout photo shows none of the layout's {cells.count(c)} {c!r} "
                    "squares clearly enough to learn from: is it the photo of the layout, "
                    "with the pieces set as the cells say (not the empty board's photo)?")
            model = cls.learn(samples)
            width = [np.sqrt(np.trace(c)) for c in model.covs]
            score = min(np.linalg.norm(model.means[i] - model.means[j])
                        / (width[i] + width[j] + model.floor)
                        for i in range(3) for j in range(i + 1, 3))
            if best is None or score > best[0]:
                best = (float(score), model, fe)
        assert best is not None
        return best[1], best[2]

    def separation(self) -> float:
        """The smallest distance between two class means, in floor units."""
        d = [np.linalg.norm(self.means[i] - self.means[j]) / self.floor
             for i in range(3) for j in range(i + 1, 3)]
        return float(min(d))

    def check_apart(self) -> None:
        """A ValueError when two classes lie too close to tell apart (fewer
        than ``SEPARATION`` floors between their means): calibration writes
        no such model, and a profile holding one is refused."""
        sep = self.separation()
        if sep < SEPARATION:
            raise ValueError("Attacker, Defender and empty squares look too alike to tell "
                             f"apart: separation {sep:.1f}, at least {SEPARATION:g} needed")

    def distances(self, f: np.ndarray, spread: np.ndarray) -> np.ndarray:
        """49 x 3 Mahalanobis distances."""
        out = np.empty((len(f), 3))
        eye = np.eye(3)
        for c in range(3):
            diff = f - self.means[c]
            # shadow edges across the square (corner disagreement) make the
            # brightness uncertain, much less the chromaticity
            grey = (0.5 * spread) ** 2
            cov = (self.covs[c][None] + (self.floor**2 + 0.04 * grey)[:, None, None] * eye[None]
                   + grey[:, None, None] * np.ones((1, 3, 3)))
            sol = np.linalg.solve(cov, diff[..., None])[..., 0]
            out[:, c] = np.sqrt(np.maximum(np.sum(diff * sol, axis=1), 0))
        return out

    def _fit(self, fs: np.ndarray) -> tuple[int, np.ndarray]:
        """Which of the feature sets ``fs`` (K x N x 3) fits the classes best, with
        the piece contrast that fits it: (index, means)."""
        m = self.means[None] * np.stack([np.ones(len(SCALES)), SCALES, SCALES], 1)[..., None]
        d = np.sqrt(((fs[:, None, :, None, :] - m[None, :, None]) ** 2).sum(axis=-1))
        cost = np.minimum(d.min(axis=-1) / self.floor, CLIP).sum(axis=-1)  # K x scales
        k, s = np.unravel_index(int(np.argmin(cost)), cost.shape)
        return int(k), m[s]

    def adapted(self, feats: Features) -> tuple[ColourModel, Features]:
        """This frame's model and features: light taken out, class means re-estimated.

        A change of light is not a plain gain on a camera's pixel values: veiling
        light lifts the dark parts, the tone curve bends the bright ones, so a
        piece's contrast with the board changes from frame to frame and across
        the board.  The veiling light that makes the frame fit the classes best
        is taken out (``FLARES``), the piece means are scaled together to fit
        the frame, then each class mean moves to the squares that read as it
        with a clear lead, weighed against the calibration (``PRIOR`` squares).
        """
        use = feats.valid >= 3
        if use.sum() < 6:
            return self, feats
        options, fs = feats.corrected()
        k, best = self._fit(fs[:, use])
        feats = feats.with_flare(*options[k])
        f = feats.f[use]
        model = ColourModel(best, self.covs, self.floor, self.max_dist, self.margin)
        for _ in range(2):
            d = model.distances(f, feats.spread[use])
            order = np.argsort(d, axis=1)
            b = d[np.arange(len(f)), order[:, 0]]
            lead = d[np.arange(len(f)), order[:, 1]] - b
            sure = lead >= self.margin
            means, covs = best.copy(), self.covs.copy()
            for c in ADAPT:
                pick = sure & (order[:, 0] == c)
                n = int(pick.sum())
                if n:
                    means[c] = (f[pick].sum(axis=0) + PRIOR * best[c]) / (n + PRIOR)
                if n >= 4:  # the spread of the class in this frame's light
                    dev = f[pick] - means[c]
                    covs[c] = (dev.T @ dev + PRIOR * self.covs[c]) / (n + PRIOR)
            if not _kept_apart(means, self.means):
                means, covs = best, self.covs  # the frame pulled the classes together
            model = ColourModel(means, covs, self.floor, self.max_dist, self.margin)
        model.base = self.means
        model.expected, model.calibrated_covs = best, self.covs
        return model, feats

    def classify(self, feats: Features, grid: Grid, adapt: bool = True) -> str:
        if adapt:
            model, feats = self.adapted(feats)
            return model.classify(feats, grid, adapt=False)
        d = self.distances(feats.f, feats.spread)
        order = np.argsort(d, axis=1)
        best = d[np.arange(49), order[:, 0]]
        second = d[np.arange(49), order[:, 1]]
        # at least 3 of the square's corners must show the board: the square is not
        # under a hand or an arm, and its illumination is known
        # A reading close to its class's centre needs a smaller lead over the
        # next class (a shadow edge across the square widens both).
        lead = second - best
        ok = (((best <= self.max_dist) & (lead >= self.margin))
              | ((best <= CLOSE_DIST) & (lead >= CLOSE_MARGIN))
              | ((best <= LIKELY_DIST) & (second**2 - best**2 >= LIKELY))) & (feats.valid >= 3)
        out = [CLASSES[order[i, 0]] if ok[i] else "?" for i in range(49)]
        # An empty reading needs the board around the square in view: its corners
        # and its edge lines, unless a piece next door explains a hidden edge.
        # A finger over a piece can look like bare wood; it cannot hide that it
        # crosses the square's lines.
        for i in range(49):
            if out[i] != ".":
                continue
            for k in range(4):
                if not feats.edge_ok[i, k]:
                    j = grid.across[i, k]
                    # or the hand next door (what lies under it reaches over
                    # the line) when the square shows the bare board plainly
                    by_hand = (j >= 0 and feats.valid[j] < 3 and feats.valid[i] == 4
                               and best[i] <= EDGE_BY_HAND)
                    if not by_hand and (j < 0 or out[j] not in ("a", "d")):
                        out[i] = "?"
                        break
        _beside_the_hand(out, best, feats, grid)
        return "".join(out)

    def to_json(self) -> dict[str, Any]:
        return {"means": self.means.tolist(), "covs": self.covs.tolist(), "floor": self.floor,
                "max_dist": self.max_dist, "margin": self.margin}

    @classmethod
    def from_json(cls, d: Any) -> ColourModel:
        """A model from its JSON; a ValueError in words for a key missing or
        numbers it cannot use."""
        if not isinstance(d, dict):
            raise ValueError("model must be an object (floor, max_dist, margin, means, covs), "
                             f"not {json.dumps(d)[:20]}")
        missing = [key for key in MODEL_KEYS if key not in d]
        if missing:
            raise ValueError(f"{missing[0]} is missing from model")
        numbers = []
        for key in ("floor", "max_dist", "margin"):
            x = d[key]
            if not isinstance(x, int | float) or isinstance(x, bool):
                raise ValueError(f"{key} must be a positive number, not {json.dumps(x)[:20]}")
            if not (np.isfinite(x) and x > 0):
                raise ValueError(f"{key} must be a positive number, not {x:g}")
            if key == "floor" and x < LEAST_FLOOR:  # no spread: every reading '?'
                raise ValueError(f"floor must be at least {LEAST_FLOOR:g}, not {x:g}")
            if x > MODEL_LIMIT:
                raise ValueError(f"{key} must be at most {MODEL_LIMIT:g}, not {x:g}")
            numbers.append(float(x))
        means = _table(d["means"], (3, 3), "means must be 3 rows of 3 numbers (the class means)")
        covs = _table(d["covs"], (3, 3, 3),
                      "covs must be 3 tables of 3 rows of 3 numbers (the class spreads)")
        m = cls(means, covs, *numbers)
        if not np.isfinite(m.means).all():
            raise ValueError("class means are not finite numbers")
        if not np.isfinite(m.covs).all():
            raise ValueError("class spreads are not finite numbers")
        if max(np.abs(m.means).max(), np.abs(m.covs).max()) > MODEL_LIMIT:
            raise ValueError(f"class statistics must be numbers of at most {MODEL_LIMIT:g}")
        if (np.abs(m.covs - m.covs.transpose(0, 2, 1)).max() > 1e-9
                or np.linalg.eigvalsh(m.covs).min() < -1e-9):
            raise ValueError("class spreads are not covariances")
        return m
