"""Synthetic camera photos of the board, for tests and the benchmark.

A wooden board with grid lines and the four markers, pieces of one of several
sets, seen under perspective and rotation, with a lighting gradient, white
balance drift, cast shadows, blur, noise, JPEG compression and optionally a
'hand' over some squares.  Everything is drawn from a seeded RNG so a scene is
reproducible.  :func:`render` returns the picture and its ground truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.markers import MARKER_CENTRES, MARKER_SIDE, _marker_image

__all__ = ["PIECE_SETS", "Camera", "Lighting", "Scene", "Rendered", "random_camera",
           "random_lighting", "room_lighting", "bumped", "random_cells", "render"]

W, H = 1280, 720
R = 48  # board texture pixels per square
EXTENT = 10  # board texture covers board units -1.5 .. 8.5

# BGR colours (attacker, defender) and a style
PIECE_SETS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], str]] = {
    "white-black": ((228, 232, 236), (38, 36, 34), "disc"),
    "blue-pink": ((190, 95, 40), (170, 120, 235), "disc"),
    "stones": ((185, 195, 200), (75, 85, 70), "stone"),
    "red-green": ((50, 40, 180), (70, 150, 60), "disc"),
    "stone-brown": ((188, 206, 214), (45, 78, 118), "stone"),
}


@dataclass
class Camera:
    """Where the board lands in the picture."""

    angle: float = 0.0  # degrees, rotation of the board in the picture
    scale: float = 560.0  # pixels across the 10-square board extent
    tilt: float = 0.15  # 0 = straight above; far edge shrinks by this fraction
    cx: float = 640.0
    cy: float = 360.0

    def homography(self) -> np.ndarray:
        """Board units -> image pixels."""
        half = self.scale / 2
        t = self.tilt
        # far edge (rank 7 side, board v = 8.5) shrinks by tilt
        src = np.array([[-1.5, -1.5], [8.5, -1.5], [8.5, 8.5], [-1.5, 8.5]], np.float32)
        dst = np.array(
            [[-half, half], [half, half], [half * (1 - t), -half * (1 - t * 0.6)],
             [-half * (1 - t), -half * (1 - t * 0.6)]],
            np.float64,
        )
        a = np.deg2rad(self.angle)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        dst = dst @ rot.T + [self.cx, self.cy]
        return cv2.getPerspectiveTransform(src, dst.astype(np.float32))

    def shaken(self, rng: np.random.Generator, px: float = 2.0) -> Camera:
        return Camera(self.angle + rng.normal(0, 0.15), self.scale * (1 + rng.normal(0, 0.003)),
                      self.tilt, self.cx + rng.normal(0, px), self.cy + rng.normal(0, px))


@dataclass
class Lighting:
    level: float = 1.0
    gradient: tuple[float, float] = (0.0, 0.0)  # relative change across the picture in x, y
    white: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gains
    shadows: int = 0
    blur: float = 0.7
    noise: float = 2.0
    jpeg: int = 85
    # A camera in a room (``room_lighting``): light is added in linear light,
    # then encoded with the camera's tone curve (gamma 2.2 with a highlight
    # shoulder), so a change of light is not a plain gain on the pixel values.
    linear: bool = False
    flare: float = 0.0  # veiling light added everywhere, fraction of white
    shoulder: float = 0.0  # highlight compression of the tone curve
    shadow_depth: tuple[float, float] = (0.25, 0.45)
    shadow_blur: tuple[float, float] = (3.0, 15.0)


@dataclass
class Scene:
    cells: str
    pieces: str = "white-black"
    camera: Camera = field(default_factory=Camera)
    lighting: Lighting = field(default_factory=Lighting)
    hand: bool = False
    offset: float = 0.1  # max piece offset from the square centre, in squares
    seed: int = 0
    wood: tuple[int, int, int] = (95, 150, 195)  # BGR
    # the board moved against its markers (markers on a sheet of their own,
    # or taped beside it): shifted by (du, dv) board units, then turned by
    # ``turn`` quarter turns anticlockwise about its centre; the markers stay
    # (``cells`` are the board's own squares, moved with it)
    shift: tuple[float, float] = (0.0, 0.0)
    turn: int = 0


@dataclass
class Rendered:
    image: np.ndarray  # BGR uint8, 720x1280
    cells: str
    hidden: list[bool]  # squares touched by the hand
    homography: np.ndarray  # board units -> image pixels
    markers_hidden: list[int]


def random_cells(rng: np.random.Generator, fill: float | None = None) -> str:
    p = rng.uniform(0.2, 0.95) if fill is None else fill
    out = []
    for _ in range(49):
        if rng.random() < p:
            out.append("a" if rng.random() < 0.5 else "d")
        else:
            out.append(".")
    return "".join(out)


def random_camera(rng: np.random.Generator, full_turn: bool = False) -> Camera:
    """A camera pose that keeps the whole board and its markers in the picture."""
    angle = rng.uniform(-180, 180) if full_turn else rng.uniform(-20, 20)
    cam = Camera(angle, rng.uniform(460, 640), rng.uniform(0.0, 0.3),
                 640 + rng.uniform(-120, 120), 360 + rng.uniform(-20, 20))
    ext = np.array([[-1.5, -1.5], [8.5, -1.5], [8.5, 8.5], [-1.5, 8.5]], np.float64)
    while True:
        p = cv2.perspectiveTransform(ext.reshape(-1, 1, 2), cam.homography()).reshape(-1, 2)
        if (p.min(0) >= 12).all() and (p.max(0) <= [W - 12, H - 12]).all():
            return cam
        cam.scale *= 0.95
        cam.cx += (640 - cam.cx) * 0.2
        cam.cy += (360 - cam.cy) * 0.2


def random_lighting(rng: np.random.Generator, shadows: bool = True) -> Lighting:
    return Lighting(
        level=rng.uniform(0.6, 1.25),
        gradient=(rng.uniform(-0.45, 0.45), rng.uniform(-0.45, 0.45)),
        white=tuple(rng.uniform(0.82, 1.18, 3)),
        shadows=int(rng.integers(0, 3)) if shadows else 0,
        blur=rng.uniform(0.4, 1.3),
        noise=rng.uniform(1.0, 5.0),
        jpeg=int(rng.integers(65, 95)),
    )


def room_lighting(rng: np.random.Generator, hard: bool = False) -> Lighting:
    """Light as a room gives it, each photo on its own: overall level 0.6-1.4, a
    gradient of up to 40% across the board in any direction, usually a soft
    shadow of 15-40% from something beside the board, a tint of up to +-15% on
    red and blue (the camera's white balance), JPEG quality 60-92.  ``hard``
    widens nothing; it only makes every photo carry a shadow."""
    ang = rng.uniform(0, 2 * np.pi)
    g = rng.uniform(0.05, 0.4)
    red, blue = rng.uniform(0.85, 1.15, 2)
    return Lighting(
        level=rng.uniform(0.6, 1.4),
        gradient=(g * np.cos(ang) * W / 560, g * np.sin(ang) * H / 560),
        white=(float(blue), 1.0, float(red)),
        shadows=1 if hard or rng.random() < 0.7 else 0,
        blur=rng.uniform(0.4, 1.2),
        noise=rng.uniform(1.0, 4.0),
        jpeg=int(rng.integers(60, 93)),
        linear=True,
        flare=rng.uniform(0.0, 0.03),
        shoulder=rng.uniform(0.0, 0.6),
        shadow_depth=(0.15, 0.4),
        shadow_blur=(12.0, 40.0),
    )


def bumped(cam: Camera, rng: np.random.Generator) -> Camera:
    """The camera knocked: turned by a few degrees and moved tens of pixels."""
    return Camera(cam.angle + rng.uniform(-4, 4), cam.scale * rng.uniform(0.97, 1.03), cam.tilt,
                  cam.cx + rng.uniform(-30, 30), cam.cy + rng.uniform(-15, 15))


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    small = rng.normal(0, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _bx(u: float) -> float:
    return (u + 1.5) * R


def _by(v: float) -> float:
    return (8.5 - v) * R


def _board_texture(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    n = EXTENT * R
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    warp = _smooth_noise(rng, (n, n), 6) * 6
    grain = np.sin((yy + warp * 3) / rng.uniform(5, 9)) * 0.5 + 0.5
    grain = grain * 0.07 + _smooth_noise(rng, (n, n), 12) * 0.03
    base = np.array(scene.wood, np.float32) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    img: np.ndarray = base[None, None, :] * (1 - 0.08 + grain[..., None])
    line = tuple(float(c) * 0.35 for c in base)
    lw = max(2, round(0.06 * R))
    for t in range(8):
        cv2.line(img, (round(_bx(t)), round(_by(0))), (round(_bx(t)), round(_by(7))), line, lw)
        cv2.line(img, (round(_bx(0)), round(_by(t))), (round(_bx(7)), round(_by(t))), line, lw)
    if not _moved(scene):
        for x, y, card in _marker_cards():
            img[y : y + card.shape[0], x : x + card.shape[1]] = card
    return img


def _marker_cards() -> list[tuple[int, int, np.ndarray]]:
    """Each marker on its white card: the card's top-left corner in texture
    pixels, and its picture."""
    side = round(MARKER_SIDE * R)
    pad = round(0.1 * R)
    cards = []
    for mid, (cu, cv) in MARKER_CENTRES.items():
        x, y = round(_bx(cu)) - side // 2, round(_by(cv)) - side // 2
        card = np.empty((side + 2 * pad, side + 2 * pad, 3), np.float32)
        card[:] = (235, 238, 240)
        card[pad:-pad, pad:-pad] = _marker_image(mid, side)[..., None].astype(np.float32) * 0.8 + 20
        cards.append((x - pad, y - pad, card))
    return cards


def _moved(scene: Scene) -> bool:
    return scene.shift != (0.0, 0.0) or scene.turn % 4 != 0


def _board_move(scene: Scene) -> np.ndarray:
    """The board's own units -> where it now lies (turned, then shifted)."""
    a = np.deg2rad(90.0 * (scene.turn % 4))
    c, s = round(np.cos(a)), round(np.sin(a))
    turn = np.array([[c, -s, 3.5 - 3.5 * c + 3.5 * s], [s, c, 3.5 - 3.5 * s - 3.5 * c],
                     [0, 0, 1]], np.float64)
    shift = np.array([[1, 0, scene.shift[0]], [0, 1, scene.shift[1]], [0, 0, 1]], np.float64)
    return np.asarray(shift @ turn)


def _draw_pieces(img: np.ndarray, scene: Scene, rng: np.random.Generator) -> None:
    att, dfd, style = PIECE_SETS[scene.pieces]
    shade = np.ones(img.shape[:2], np.float32)
    discs = []
    for i, ch in enumerate(scene.cells):
        if ch not in "ad":
            continue
        f, r = i % 7, i // 7
        du, dv = rng.uniform(-scene.offset, scene.offset, 2)
        radius = rng.uniform(0.34, 0.4) * R
        x, y = _bx(f + 0.5 + du), _by(r + 0.5 + dv)
        colour = np.array(att if ch == "a" else dfd, np.float32) * rng.uniform(0.93, 1.07)
        discs.append((x, y, radius, colour))
        centre = (round(x + 0.06 * R), round(y + 0.08 * R))
        cv2.circle(shade, centre, round(radius * 1.02), 0.55, -1)
    shade = np.asarray(cv2.GaussianBlur(shade, (0, 0), 0.05 * R), np.float32)
    img *= shade[..., None]
    for x, y, radius, colour in discs:
        x0, x1 = int(x - radius - 2), int(x + radius + 3)
        y0, y1 = int(y - radius - 2), int(y + radius + 3)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        dx, dy = xx - x, yy - y
        if style == "stone":
            ang = rng.uniform(0, np.pi)
            ax, ay = rng.uniform(0.85, 1.0), rng.uniform(0.72, 0.9)
            rx = (dx * np.cos(ang) + dy * np.sin(ang)) / ax
            ry = (-dx * np.sin(ang) + dy * np.cos(ang)) / ay
            d = np.hypot(rx, ry) / radius
        else:
            d = np.hypot(dx, dy) / radius
        alpha = np.clip((1.0 - d) * radius / 1.2, 0, 1)[..., None]
        # dome shading: lighter towards the top-left, darker rim
        light = 1.0 + 0.12 * (-(dx + dy) / (radius * 1.4)) - 0.18 * np.clip(d - 0.8, 0, 1) * 5
        col = colour[None, None, :] * light[..., None]
        if style == "stone":
            col = col * (1 + 0.05 * rng.normal(0, 1, col.shape[:2]).astype(np.float32))[..., None]
        else:
            ring = (np.abs(d - 0.62) < 0.04)[..., None]
            col = np.where(ring, col * 0.88, col)
        patch = img[y0:y1, x0:x1]
        patch[:] = patch * (1 - alpha) + col * alpha
        # a small specular highlight
        hx, hy = round(x - 0.3 * radius), round(y - 0.3 * radius)
        cv2.circle(img, (hx, hy), max(1, round(radius * 0.12)), (250, 250, 250), -1, cv2.LINE_AA)


def _hand_mask(rng: np.random.Generator, hm: np.ndarray) -> np.ndarray:
    """A hand-like blob (palm and fingers) reaching over the board from one side."""
    mask = np.zeros((H, W), np.uint8)
    # aim at a random board point
    u, v = rng.uniform(0.5, 6.5, 2)
    p = cv2.perspectiveTransform(np.array([[[u, v]]], np.float64), hm)[0, 0]
    ang = rng.uniform(0, 2 * np.pi)
    size = rng.uniform(60, 95)
    d = np.array([np.cos(ang), np.sin(ang)])
    palm = p + d * size * 1.1
    cv2.ellipse(mask, (round(palm[0]), round(palm[1])), (round(size), round(size * 0.8)),
                np.rad2deg(ang), 0, 360, 255, -1)
    # arm to the picture edge
    far = palm + d * 2000
    cv2.line(mask, (round(palm[0]), round(palm[1])), (round(far[0]), round(far[1])), 255,
             round(size * 1.2))
    for k in range(4):
        off = (k - 1.5) * size * 0.38
        nrm = np.array([-d[1], d[0]])
        base = palm - d * size * 0.6 + nrm * off
        tip = base - d * size * rng.uniform(0.8, 1.3)
        cv2.line(mask, (round(base[0]), round(base[1])), (round(tip[0]), round(tip[1])), 255,
                 round(size * 0.28))
    return mask


def render(scene: Scene) -> Rendered:
    """Draw one photo of ``scene`` at 1280x720."""
    if len(scene.cells) != 49 or scene.cells.strip("ad."):
        raise ValueError("scene cells must be 49 characters of a, d and .")
    rng = np.random.default_rng(scene.seed)
    board = _board_texture(scene, np.random.default_rng(abs(hash(scene.wood)) % 2**32))
    _draw_pieces(board, scene, rng)
    hm = scene.camera.homography()
    # texture pixel -> board units -> image
    tex = np.array([[1 / R, 0, 0.5 / R - 1.5], [0, -1 / R, 8.5 - 0.5 / R], [0, 0, 1]])
    m = hm @ tex
    bg = np.empty((H, W, 3), np.float32)
    bg[:] = (70, 80, 90)
    bg *= (1 + 0.1 * _smooth_noise(rng, (H, W), 8))[..., None]
    if _moved(scene):  # the board where it now lies, the markers where they were
        board_m = hm @ _board_move(scene) @ tex
        img = cv2.warpPerspective(board, board_m, (W, H), dst=bg, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_TRANSPARENT)
        for x, y, card in _marker_cards():
            at = m @ np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)
            img = cv2.warpPerspective(card, at, (W, H), dst=img, flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_TRANSPARENT)
    else:
        img = cv2.warpPerspective(board, m, (W, H), dst=bg, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_TRANSPARENT)
    lt = scene.lighting
    if lt.linear:
        img = (np.clip(img, 0, 255) / 255) ** 2.2
    illum = _illumination(lt, rng)
    if lt.linear:  # level, gradient and shadows as the photo shows them
        illum = illum ** 2.2
    hidden = [False] * 49
    markers_hidden: list[int] = []
    hand = None
    if scene.hand:
        hand = _hand_mask(rng, hm)
        # the hand's own shadow on the board
        sh = np.roll(hand, (18, 14), (0, 1)).astype(np.float32) / 255
        illum *= 1 - 0.35 * cv2.GaussianBlur(sh, (0, 0), 8)
    img *= illum[..., None] * np.array(lt.white, np.float32)
    if hand is not None:
        skin = np.array((120, 150, 205), np.float32) * lt.level * rng.uniform(0.8, 1.15)
        if lt.linear:
            skin = (skin / 255) ** 2.2
        dist = cv2.distanceTransform(hand, cv2.DIST_L2, 3)
        shade = np.clip(0.65 + dist / 40, 0.65, 1.05)
        skin_img = skin[None, None, :] * shade[..., None]
        a = cv2.GaussianBlur(hand.astype(np.float32) / 255, (0, 0), 1.2)[..., None]
        img = img * (1 - a) + skin_img * a
        hidden, markers_hidden = _hidden_squares(hand, hm)
    img = cv2.GaussianBlur(img, (0, 0), lt.blur)
    if lt.linear:
        img = img + lt.flare
        img = np.clip(img * (1 + lt.shoulder) / (1 + lt.shoulder * img), 0, 1)
        img = 255 * img ** (1 / 2.2)
    img += rng.normal(0, lt.noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, lt.jpeg])
    out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
    return Rendered(out, scene.cells, hidden, hm, markers_hidden)


def _illumination(lt: Lighting, rng: np.random.Generator) -> np.ndarray:
    """The light falling on each pixel: level, gradient and cast shadows."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    illum = lt.level * (1 + lt.gradient[0] * (xx / W - 0.5) + lt.gradient[1] * (yy / H - 0.5))
    for _ in range(lt.shadows):
        sm = np.zeros((H, W), np.float32)
        pts = rng.uniform([0, 0], [W, H], (3, 2))
        c = pts.mean(0)
        pts = c + (pts - c) * rng.uniform(0.4, 0.9)
        cv2.fillPoly(sm, [pts.astype(np.int32)], 1.0)
        sm = np.asarray(cv2.GaussianBlur(sm, (0, 0), rng.uniform(*lt.shadow_blur)), np.float32)
        illum *= 1 - rng.uniform(*lt.shadow_depth) * sm
    return np.asarray(illum)


def _hidden_squares(hand: np.ndarray, hm: np.ndarray) -> tuple[list[bool], list[int]]:
    """Squares (and markers) any part of which the hand covers, with a small margin."""
    s = 16
    # top-down board units -1.5..8.5 at s px per square
    tex = np.array([[1 / s, 0, 0.5 / s - 1.5], [0, -1 / s, 8.5 - 0.5 / s], [0, 0, 1]])
    top = cv2.warpPerspective(hand, hm @ tex, (10 * s, 10 * s),
                              flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
    top = cv2.dilate(top, np.ones((5, 5), np.uint8))
    hidden = []
    for i in range(49):
        f, r = i % 7, i // 7
        x0, y0 = round((f + 1.5) * s), round((8.5 - r - 1) * s)
        hidden.append(bool(top[y0 : y0 + s, x0 : x0 + s].any()))
    mh = []
    for mid, (cu, cv) in MARKER_CENTRES.items():
        x, y = round((cu + 1.5) * s), round((8.5 - cv) * s)
        if top[y - s // 2 : y + s // 2, x - s // 2 : x + s // 2].any():
            mh.append(mid)
    return hidden, mh
