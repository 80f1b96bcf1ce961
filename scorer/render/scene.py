"""The table scene of a synthetic photo: camera, lens, table cloth, clutter and light.

World frame (millimetres): ``X`` grows east, ``Y`` grows south, exactly as the
cells of ``board-format.md``; ``Z`` grows *down*, into the table, so that
``(X, Y, Z)`` is right-handed and heights above the table are negative ``Z``.
``Z = 0`` is the top face of the tiles; the table cloth lies ``tile thickness``
lower, at ``Z = +T``.

Camera: a pinhole ``p_cam = R (P - C)``, pixels ``u = f x / z + cx``,
``v = f y / z + cy`` (OpenCV convention, pixel centres at integer coordinates),
built from a tilt (0 = straight down), an in-plane rotation and a distance.  The
lens adds radial (barrel) distortion, modelled from the *distorted* side so that
the photo is one :func:`cv2.remap` away from the pinhole picture::

    undistorted = c + (d - c) (1 + k1 rho^2 + k2 rho^4),  rho = |d - c| / (half diagonal)

where ``d`` is a photo pixel and ``c`` the photo centre.

Everything random takes a numpy ``rng``; nothing here reads a global seed.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import cv2
import numpy as np

log = logging.getLogger(__name__)

#: Real Carcassonne tiles are 45 x 45 mm and about 2 mm thick.
TILE_MM = 45.0

# --------------------------------------------------------------------------- camera


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table.

    Attributes
    ----------
    K : (3, 3) float64 ndarray
        Intrinsics, pixels (focal length ``K[0, 0]``, principal point ``K[:2, 2]``).
    R : (3, 3) float64 ndarray
        World-to-camera rotation.
    C : (3,) float64 ndarray
        Camera centre in world millimetres.
    """

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        """World points ``(N, 3)`` mm to camera coordinates ``(N, 3)`` mm (``z`` = depth)."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        return (pts - self.C) @ self.R.T

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points ``(N, 3)`` mm to pinhole pixels ``(N, 2)`` float64 (no lens distortion)."""
        cam = self.to_camera(pts)
        z = np.maximum(cam[:, 2:3], 1e-6)
        uv = cam[:, :2] / z
        return uv * self.K[0, 0] + self.K[:2, 2]

    def depth(self, pts: np.ndarray) -> np.ndarray:
        """Depth (camera ``z``, mm) of world points ``(N, 3)``."""
        return self.to_camera(pts)[:, 2]

    def homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 float64 map from ``(X, Y, 1)`` on the plane ``Z = z`` (mm) to pinhole pixels."""
        t = -self.R @ self.C
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + t])
        return self.K @ M

    def shifted(self, du: float, dv: float) -> "Camera":
        """The same camera with its pixel frame moved by ``(du, dv)`` (a canvas margin)."""
        K = self.K.copy()
        K[0, 2] += du
        K[1, 2] += dv
        return Camera(K, self.R, self.C)


def rotation(tilt_deg: float, roll_deg: float) -> np.ndarray:
    """World-to-camera rotation for a camera tilted ``tilt_deg`` from straight down.

    ``roll_deg`` turns the picture: the board appears turned ``roll_deg`` clockwise
    in the photo.  The tilt always lifts the top of the photo away from the camera,
    as when a player photographs the table from their seat.
    """
    g = math.radians(roll_deg)
    a = math.radians(tilt_deg)
    c, s = math.cos(g), math.sin(g)
    roll = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    ca, sa = math.cos(a), math.sin(a)
    tilt = np.array([[1.0, 0.0, 0.0], [0.0, ca, sa], [0.0, -sa, ca]])
    return tilt @ roll


def frame_board(
    corners: np.ndarray,
    tops: np.ndarray,
    size: tuple[int, int],
    *,
    hfov_deg: float,
    tilt_deg: float,
    roll_deg: float,
    fill: float,
    shift: tuple[float, float],
    margin_px: float,
) -> Camera:
    """Place the camera so that the board fills ``fill`` of the frame.

    Parameters
    ----------
    corners : (N, 3) float64
        World points of the board on the tile plane (its outline), mm.
    tops : (M, 3) float64
        Further points that must stay in the frame (figure tops), mm.
    size : (int, int)
        Pinhole frame ``(width, height)``, pixels.
    hfov_deg : float
        Field of view across the long side of the frame, degrees.
    tilt_deg, roll_deg : float
        See :func:`rotation`.
    fill : float
        Fraction of the frame's area the board's bounding box covers (0.3-0.9);
        less when the board's shape does not allow that inside the frame.
    shift : (float, float)
        Where the board sits in the room left in the frame, -1 (left/top) to 1.
    margin_px : float
        Room kept between the board and the frame edge, pixels.

    Returns
    -------
    Camera
    """
    w, h = size
    f = (max(w, h) / 2) / math.tan(math.radians(hfov_deg) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
    R = rotation(tilt_deg, roll_deg)
    axis = R.T @ np.array([0.0, 0.0, 1.0])
    target = np.concatenate([corners[:, :2].mean(axis=0), [0.0]])
    everything = np.vstack([corners, tops])

    def cam_at(dist: float) -> Camera:
        return Camera(K, R, target - dist * axis)

    def too_close(cam: Camera) -> bool:
        if np.any(cam.depth(everything) <= 1.0):
            return True
        uv = cam.project(corners)
        span = uv.max(axis=0) - uv.min(axis=0)
        area = span[0] * span[1] / (w * h)
        return area > fill or span[0] > w - 2 * margin_px or span[1] > h - 2 * margin_px

    lo, hi = 10.0, 1e6
    for _ in range(80):  # the board shrinks as the camera moves away
        mid = math.sqrt(lo * hi)
        if too_close(cam_at(mid)):
            lo = mid
        else:
            hi = mid
    dist = hi
    cam = cam_at(dist)
    # Keep figure tops in the frame too.
    for _ in range(40):
        uv = cam.project(everything)
        if (uv.min(axis=0) >= margin_px).all() and (uv.max(axis=0) <= np.array([w, h]) - 1 - margin_px).all():
            break
        dist *= 1.03
        cam = cam_at(dist)
    # Slide the camera parallel to the picture to move the board off centre.
    uv = cam.project(everything)
    lo_room = uv.min(axis=0) - margin_px
    hi_room = np.array([w - 1, h - 1]) - margin_px - uv.max(axis=0)
    want = np.array([
        (shift[0] * hi_room[0] if shift[0] >= 0 else shift[0] * lo_room[0]),
        (shift[1] * hi_room[1] if shift[1] >= 0 else shift[1] * lo_room[1]),
    ])
    depth = float(cam.depth(target[None])[0])
    for _ in range(12):
        move_cam = np.array([-want[0] * depth / f, -want[1] * depth / f, 0.0])
        moved = Camera(K, R, cam.C + R.T @ move_cam)
        uv = moved.project(everything)
        if (uv.min(axis=0) >= margin_px).all() and (uv.max(axis=0) <= np.array([w, h]) - 1 - margin_px).all():
            return moved
        want = want / 2
    return cam


# --------------------------------------------------------------------------- lens


@dataclass(frozen=True)
class Lens:
    """Radial lens distortion of a ``width`` x ``height`` photo (see the module docstring).

    ``k1 > 0`` is barrel distortion (straight lines bow outwards).
    """

    k1: float
    k2: float
    width: int
    height: int

    @property
    def centre(self) -> np.ndarray:
        return np.array([(self.width - 1) / 2, (self.height - 1) / 2])

    @property
    def norm(self) -> float:
        return math.hypot(self.width, self.height) / 2

    @property
    def identity(self) -> bool:
        return self.k1 == 0 and self.k2 == 0

    def margin(self) -> tuple[int, int]:
        """Extra pinhole pixels needed on each side (x, y) to fill the distorted photo."""
        grow = self.k1 + self.k2
        return (int(math.ceil(self.width * grow / 2)) + 2, int(math.ceil(self.height * grow / 2)) + 2)

    def undistort_points(self, d: np.ndarray) -> np.ndarray:
        """Photo pixels ``(N, 2)`` to pinhole pixels ``(N, 2)``."""
        d = np.asarray(d, dtype=np.float64).reshape(-1, 2)
        if self.identity:
            return d.copy()
        rel = (d - self.centre) / self.norm
        r2 = (rel ** 2).sum(axis=1, keepdims=True)
        return self.centre + (d - self.centre) * (1 + self.k1 * r2 + self.k2 * r2 * r2)

    def distort_points(self, u: np.ndarray) -> np.ndarray:
        """Pinhole pixels ``(N, 2)`` to photo pixels ``(N, 2)`` (Newton on the radius)."""
        u = np.asarray(u, dtype=np.float64).reshape(-1, 2)
        if self.identity:
            return u.copy()
        rel = (u - self.centre) / self.norm
        ru = np.hypot(rel[:, 0], rel[:, 1])
        rd = ru.copy()
        for _ in range(30):
            g = rd * (1 + self.k1 * rd ** 2 + self.k2 * rd ** 4) - ru
            dg = 1 + 3 * self.k1 * rd ** 2 + 5 * self.k2 * rd ** 4
            rd = rd - g / dg
        scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
        return self.centre + (u - self.centre) * scale[:, None]

    def apply(self, canvas: np.ndarray, margin: tuple[int, int]) -> np.ndarray:
        """The distorted ``(height, width, C)`` photo from a pinhole canvas with ``margin``.

        OpenCV's radial model with focal length ``norm`` is this lens's model
        read from the photo side, so :func:`cv2.initUndistortRectifyMap` builds
        the exact sampling maps.
        """
        mx, my = margin
        if self.identity:
            return canvas[my:my + self.height, mx:mx + self.width].copy()
        cx, cy = self.centre
        n = self.norm
        src = np.array([[n, 0, cx + mx], [0, n, cy + my], [0, 0, 1.0]])
        dst = np.array([[n, 0, cx], [0, n, cy], [0, 0, 1.0]])
        dist = np.array([self.k1, self.k2, 0.0, 0.0, 0.0])
        map_x, map_y = cv2.initUndistortRectifyMap(src, dist, None, dst, (self.width, self.height), cv2.CV_32FC1)
        return cv2.remap(canvas, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


# --------------------------------------------------------------------------- table

#: Table finishes, RGB 0-1: wood tones, plain cloths, patterned cloths.
WOODS = ((0.70, 0.52, 0.33), (0.45, 0.29, 0.17), (0.80, 0.72, 0.62), (0.58, 0.33, 0.20),
         (0.30, 0.21, 0.14), (0.76, 0.60, 0.42))
CLOTHS = ((0.16, 0.36, 0.22), (0.15, 0.20, 0.38), (0.45, 0.45, 0.46), (0.78, 0.72, 0.60),
          (0.45, 0.12, 0.14), (0.88, 0.88, 0.86), (0.25, 0.25, 0.27))
FLOORS = ((0.22, 0.16, 0.11), (0.35, 0.34, 0.33), (0.55, 0.50, 0.44), (0.12, 0.12, 0.13), (0.40, 0.28, 0.18))
PATTERN_BASES = ((0.92, 0.91, 0.87), (0.88, 0.84, 0.74), (0.93, 0.93, 0.93), (0.85, 0.88, 0.90))
PATTERN_INKS = ((0.70, 0.12, 0.12), (0.15, 0.25, 0.55), (0.12, 0.40, 0.20), (0.30, 0.30, 0.30),
                (0.85, 0.55, 0.10))


def table_grid(cam: Camera, shape: tuple[int, int], z: float, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Table-plane coordinates of every ``step``-th canvas pixel.

    Returns
    -------
    X, Y : (h, w) float32 ndarrays
        Millimetres on the plane ``Z = z`` (far beyond the horizon: clipped).
    footprint : (h, w) float32 ndarray
        Millimetres of table covered by one canvas pixel there (anti-aliasing).
    """
    H, W = shape
    us = np.arange(0, W + step, step, dtype=np.float64)
    vs = np.arange(0, H + step, step, dtype=np.float64)
    Hinv = np.linalg.inv(cam.homography(z))
    uu, vv = np.meshgrid(us, vs)
    den = Hinv[2, 0] * uu + Hinv[2, 1] * vv + Hinv[2, 2]
    den = np.where(np.abs(den) < 1e-9, 1e-9, den)
    X = (Hinv[0, 0] * uu + Hinv[0, 1] * vv + Hinv[0, 2]) / den
    Y = (Hinv[1, 0] * uu + Hinv[1, 1] * vv + Hinv[1, 2]) / den
    far = 2e4
    X = np.clip(X, -far, far)
    Y = np.clip(Y, -far, far)
    gx = np.hypot(np.gradient(X, axis=1), np.gradient(Y, axis=1)) / step
    gy = np.hypot(np.gradient(X, axis=0), np.gradient(Y, axis=0)) / step
    return X.astype(np.float32), Y.astype(np.float32), np.maximum(gx, gy).astype(np.float32)


def _smooth_noise(rng: np.random.Generator, X: np.ndarray, Y: np.ndarray, scale: float, n: int = 6) -> np.ndarray:
    """Band-limited noise of wavelength ~``scale`` mm at plane points: a sum of random waves, about -1..1."""
    out = np.zeros_like(X)
    for _ in range(n):
        ang = rng.uniform(0, math.pi)
        k = 2 * math.pi / (scale * rng.uniform(0.6, 1.6))
        out += np.sin((X * math.cos(ang) + Y * math.sin(ang)) * k + rng.uniform(0, 2 * math.pi)).astype(np.float32)
    return out / math.sqrt(n / 2)


def _noise_1d(rng: np.random.Generator, t: np.ndarray, scale: float) -> np.ndarray:
    """Smooth 1-D noise of feature size ``scale`` (mm) at positions ``t``: about -1..1, float32."""
    n = 8192
    knots = rng.uniform(-1, 1, n).astype(np.float32)
    pos = (np.asarray(t, dtype=np.float64) / scale) % (n - 1)
    i = np.floor(pos).astype(np.int64)
    f = (pos - i).astype(np.float32)
    f = f * f * (3 - 2 * f)
    return knots[i] * (1 - f) + knots[i + 1] * f


def _creases(rng: np.random.Generator, X: np.ndarray, Y: np.ndarray, footprint: np.ndarray) -> np.ndarray:
    """Shading of the crease lines a folded table cloth keeps: a light and a dark side per fold."""
    out = np.zeros_like(X)
    ang = rng.uniform(0, math.pi / 2)
    for k, spacing in enumerate((rng.uniform(220, 420), rng.uniform(220, 420))):
        a = ang + k * math.pi / 2
        t = X * math.cos(a) + Y * math.sin(a) + rng.uniform(0, spacing)
        d = (t % spacing) - spacing / 2
        w = rng.uniform(3, 8)
        out += (rng.uniform(0.03, 0.07) * (d / w) * np.exp(-(d / w) ** 2)).astype(np.float32)
    return out * _fade(1.0, 6.0, footprint)


def _fade(contrast: float, period_mm: float, footprint: np.ndarray) -> np.ndarray:
    """Contrast of a pattern of ``period_mm`` once the pixel footprint is known (no moire)."""
    return contrast * np.clip(period_mm / np.maximum(footprint, 1e-6) / 3.0 - 0.5, 0.0, 1.0)


def render_table(
    kind: str,
    rgb: tuple[float, float, float],
    rgb2: tuple[float, float, float],
    X: np.ndarray,
    Y: np.ndarray,
    footprint: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """The table surface at plane points, RGB float32 0-1.

    Parameters
    ----------
    kind : {"wood", "cloth", "pattern"}
        Wooden boards with grain, a plain cloth with folds, or a checked/striped cloth.
    rgb, rgb2 : (float, float, float)
        Main colour and second colour (the pattern's ink), RGB 0-1.
    X, Y, footprint : (h, w) float32
        From :func:`table_grid`.
    rng : numpy.random.Generator

    Returns
    -------
    (h, w, 3) float32 ndarray
    """
    base = np.asarray(rgb, dtype=np.float32)
    if kind == "wood":
        angle = rng.uniform(0, math.pi)  # direction of the planks
        ca, sa = math.cos(angle), math.sin(angle)
        along = X * ca + Y * sa
        across = -X * sa + Y * ca
        plank_w = rng.uniform(90, 200)
        plank = np.floor(across / plank_w)
        pid = plank.astype(np.int64) % 64
        tints = rng.uniform(0.93, 1.06, size=64).astype(np.float32)
        offsets = rng.uniform(0, 3000, size=64).astype(np.float32)
        tint = tints[pid]
        # Grain lines run along the plank and meander slowly (1-D noise of the
        # position along the plank, different in every plank).
        key = along + offsets[pid] * 7
        meander = (_noise_1d(rng, key, 420.0) * rng.uniform(4, 14) + _noise_1d(rng, key, 90.0) * 1.5)
        g = across + meander + offsets[pid]
        # Irregular growth rings: a random band profile across the grain.
        ring_w = rng.uniform(1.5, 5.0)
        prof = _noise_1d(rng, g, ring_w) + 0.5 * _noise_1d(rng, g, ring_w * 0.37)
        rings = np.clip(prof * 0.9 + 0.1, 0, 1) ** 1.5 * _fade(1.0, ring_w, footprint)
        fibres = _noise_1d(rng, g, 0.6) * _fade(1.0, 0.6, footprint)
        blotch = _noise_1d(rng, g * 0.3 + key * 0.01, 60.0)
        seam_d = np.abs(across - (plank + 0.5) * plank_w) - (plank_w / 2 - 0.7)
        seam = np.clip(seam_d / 0.7, 0, 1) * _fade(1.0, 2.0, footprint)
        shade = tint * (1 - 0.15 * rings - 0.04 * fibres + 0.05 * blotch) * (1 - 0.5 * seam)
        out = base[None, None, :] * shade[..., None]
        # Wood is redder in the dark rings.
        out[..., 2] *= 1 - 0.12 * rings
        out[..., 1] *= 1 - 0.05 * rings
    elif kind == "cloth":
        folds = _smooth_noise(rng, X, Y, rng.uniform(250, 500), 5)
        shade = 1 + 0.025 * folds + _creases(rng, X, Y, footprint)
        weave = (np.sin(X * 2 * math.pi / 0.8) * np.sin(Y * 2 * math.pi / 0.8)).astype(np.float32)
        shade += _fade(0.05, 0.8, footprint) * weave
        out = base[None, None, :] * shade[..., None]
    else:
        ink = np.asarray(rgb2, dtype=np.float32)
        period = rng.uniform(12, 30)
        style = int(rng.choice(3, p=[0.55, 0.3, 0.15]))
        ang = rng.uniform(0, math.pi / 2)
        ca, sa = math.cos(ang), math.sin(ang)
        a = X * ca + Y * sa
        b = -X * sa + Y * ca

        def stripes(t: np.ndarray) -> np.ndarray:
            s = np.clip(2.5 * np.sin(2 * math.pi * t / period), -1, 1)
            return (0.5 + 0.5 * s).astype(np.float32)

        if style == 0:  # gingham
            m = 0.5 * (stripes(a) + stripes(b))
        elif style == 1:  # stripes
            m = stripes(a)
        else:  # dots
            da = (a / period) % 1.0 - 0.5
            db = (b / period) % 1.0 - 0.5
            m = np.clip((0.2 - np.hypot(da, db)) * period / 1.0, 0, 1).astype(np.float32)
        mean_m = 0.5 if style < 2 else 0.125
        c = _fade(1.0, period, footprint)
        m = mean_m + (m - mean_m) * c
        folds = _smooth_noise(rng, X, Y, rng.uniform(250, 500), 5)
        out = (base[None, None, :] * (1 - m[..., None]) + ink[None, None, :] * m[..., None])
        out *= (1 + 0.025 * folds + _creases(rng, X, Y, footprint))[..., None]
    return np.clip(out, 0, 1).astype(np.float32)


def add_floor(table: np.ndarray, X: np.ndarray, Y: np.ndarray, footprint: np.ndarray,
              rect: tuple[float, float, float, float], floor_rgb: tuple[float, float, float],
              rng: np.random.Generator) -> np.ndarray:
    """Put the floor (blurred: far below, out of focus) where the view passes the table's edge.

    ``rect`` is the table top ``(x0, y0, x1, y1)`` in mm; the edge is anti-aliased
    with the pixel ``footprint``.
    """
    x0, y0, x1, y1 = rect
    inside = np.minimum(np.minimum(X - x0, x1 - X), np.minimum(Y - y0, y1 - Y))
    a = np.clip(inside / np.maximum(footprint, 1e-3) + 0.5, 0, 1).astype(np.float32)
    if a.min() >= 1:
        return table
    floor = np.asarray(floor_rgb, dtype=np.float32)[None, None, :] * (
        1 + 0.12 * _smooth_noise(rng, X, Y, 400.0, 4))[..., None]
    floor = cv2.GaussianBlur(floor, (0, 0), 4.0)
    return table * a[..., None] + floor * (1 - a[..., None])


def table_corners(rect: tuple[float, float, float, float]) -> np.ndarray:
    """``(4, 2)`` corners of a table rectangle, clockwise from the north-west."""
    x0, y0, x1, y1 = rect
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


# --------------------------------------------------------------------------- clutter


@dataclass
class Clutter:
    """One object lying on the table beside the play area.

    Attributes
    ----------
    kind : str
        ``card``, ``track`` (score track board), ``lid`` (box lid) or ``stack``
        (face-down tiles).
    centre : (float, float)
        Centre on the table, mm.
    size : (float, float)
        Width and depth, mm.
    angle : float
        Turn on the table, radians.
    height : float
        Height of its top above the table, mm.
    seed : int
        Seed of its printed design.
    """

    kind: str
    centre: tuple[float, float]
    size: tuple[float, float]
    angle: float
    height: float
    seed: int

    def footprint(self) -> np.ndarray:
        """``(4, 2)`` corners on the table, mm, clockwise from the north-west."""
        w, d = self.size
        c, s = math.cos(self.angle), math.sin(self.angle)
        local = np.array([[-w / 2, -d / 2], [w / 2, -d / 2], [w / 2, d / 2], [-w / 2, d / 2]])
        rot = np.array([[c, -s], [s, c]])
        return local @ rot.T + np.asarray(self.centre)


CLUTTER_SIZES = {"card": (57.0, 88.0, 0.4), "track": (290.0, 210.0, 2.0), "lid": (298.0, 298.0, 70.0),
                 "stack": (45.0, 45.0, 16.0)}


def _convex_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex polygons ``(N, 2)`` overlap (separating axis test)."""
    for poly in (a, b):
        n = len(poly)
        for i in range(n):
            e = poly[(i + 1) % n] - poly[i]
            axis = np.array([-e[1], e[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


def on_table(pts: np.ndarray, rect: tuple[float, float, float, float], margin: float = 5.0) -> bool:
    """Whether every point ``(N, 2)`` mm lies on the table top ``rect``, ``margin`` mm from its edge."""
    x0, y0, x1, y1 = rect
    return bool(((pts[:, 0] >= x0 + margin) & (pts[:, 0] <= x1 - margin)
                 & (pts[:, 1] >= y0 + margin) & (pts[:, 1] <= y1 - margin)).all())


def _hull(pts: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.asarray(pts, dtype=np.float32)).reshape(-1, 2).astype(np.float64)


def plan_clutter(
    rng: np.random.Generator,
    count: int,
    board_rect: tuple[float, float, float, float],
    cam: Camera,
    canvas_size: tuple[int, int],
    board_hull_px: np.ndarray,
    table_z: float,
    table_rect: tuple[float, float, float, float] | None = None,
) -> list[Clutter]:
    """Lay up to ``count`` objects around the play area, never over it.

    An object is kept only if its footprint stays at least 25 mm outside the
    board's rectangle ``(x0, y0, x1, y1)`` (mm) and on the table (``table_rect``),
    it overlaps no other object, and its picture (top and sides) does not cover
    the board's picture ``board_hull_px`` (convex, canvas pixels).  Objects
    wholly out of the picture are dropped.
    """
    x0, y0, x1, y1 = board_rect
    keep_out = np.array([[x0 - 25, y0 - 25], [x1 + 25, y0 - 25], [x1 + 25, y1 + 25], [x0 - 25, y1 + 25]])
    W, H = canvas_size
    frame = np.array([[0, 0], [W, 0], [W, H], [0, H]], dtype=np.float64)
    kinds = ["card", "card", "track", "lid", "stack", "stack", "card"]
    out: list[Clutter] = []
    tries = 0
    while len(out) < count and tries < 40 * max(count, 1):
        tries += 1
        kind = kinds[int(rng.integers(0, len(kinds)))]
        if kind in ("track", "lid") and any(o.kind == kind for o in out):
            continue  # one box, one score track
        w, d, h = CLUTTER_SIZES[kind]
        if kind == "stack":
            h = 2.0 * int(rng.integers(3, 12))
        side = int(rng.integers(0, 4))
        gap = rng.uniform(30, 160) + max(w, d) / 2
        if side == 0:
            centre = (rng.uniform(x0 - 100, x1 + 100), y0 - gap)
        elif side == 1:
            centre = (x1 + gap, rng.uniform(y0 - 100, y1 + 100))
        elif side == 2:
            centre = (rng.uniform(x0 - 100, x1 + 100), y1 + gap)
        else:
            centre = (x0 - gap, rng.uniform(y0 - 100, y1 + 100))
        angle = rng.normal(0, 0.25) + (rng.integers(0, 4) * math.pi / 2 if kind != "card" else rng.uniform(0, math.pi))
        item = Clutter(kind, (float(centre[0]), float(centre[1])), (w, d), float(angle), float(h),
                       int(rng.integers(0, 2**31 - 1)))
        foot = item.footprint()
        if _convex_overlap(foot, keep_out):
            continue
        if table_rect is not None and not on_table(foot, table_rect):
            continue
        if any(_convex_overlap(foot, o.footprint()) for o in out):
            continue
        pts3 = np.vstack([np.column_stack([foot, np.full(4, table_z)]),
                          np.column_stack([foot, np.full(4, table_z - h)])])
        if np.any(cam.depth(pts3) <= 1):
            continue
        hull = _hull(cam.project(pts3))
        if _convex_overlap(hull, board_hull_px):
            continue
        if not _convex_overlap(hull, frame):
            continue
        out.append(item)
    return out


def _put_text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour, thick: int = 1) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def clutter_texture(item: Clutter, px_per_mm: float) -> np.ndarray:
    """The printed top of a clutter object, RGB uint8, ``size`` mm at ``px_per_mm``."""
    rng = np.random.default_rng(item.seed)
    w, d = item.size
    W = max(8, int(round(w * px_per_mm)))
    H = max(8, int(round(d * px_per_mm)))
    img = np.zeros((H, W, 3), np.uint8)
    s = px_per_mm
    if item.kind == "card":
        img[:] = (236, 228, 205)
        ink = tuple(int(v) for v in rng.integers(40, 200, 3))
        m = int(3 * s)
        cv2.rectangle(img, (m, m), (W - m, int(H * 0.45)), ink, -1)
        cv2.circle(img, (W // 2, int(H * 0.25)), int(8 * s), (235, 220, 160), -1, cv2.LINE_AA)
        for i in range(int(rng.integers(4, 8))):
            y = int(H * 0.52 + i * 5 * s)
            if y > H - m:
                break
            cv2.line(img, (m + int(2 * s), y), (W - m - int(rng.uniform(2, 20) * s), y), (60, 55, 50),
                     max(1, int(1.2 * s)), cv2.LINE_AA)
        cv2.rectangle(img, (0, 0), (W - 1, H - 1), (120, 110, 95), max(1, int(0.6 * s)))
    elif item.kind == "track":
        img[:] = (112, 150, 70)
        for _ in range(14):
            c = (int(rng.uniform(0, W)), int(rng.uniform(0, H)))
            cv2.ellipse(img, c, (int(rng.uniform(10, 50) * s), int(rng.uniform(8, 30) * s)),
                        rng.uniform(0, 180), 0, 360,
                        tuple(int(v) for v in (rng.uniform(60, 200), rng.uniform(110, 190), rng.uniform(40, 110))),
                        -1, cv2.LINE_AA)
        cell = 29.0 * s
        n_x = int(w // 29)
        n_y = int(d // 29)
        k = 0
        path = ([(i, 0) for i in range(n_x)] + [(n_x - 1, j) for j in range(1, n_y)]
                + [(i, n_y - 1) for i in range(n_x - 2, -1, -1)] + [(0, j) for j in range(n_y - 2, 0, -1)])
        for i, j in path:
            x, y = int(i * cell + 1), int(j * cell + 1)
            cv2.rectangle(img, (x, y), (int(x + cell - 2), int(y + cell - 2)), (225, 215, 185), -1)
            cv2.rectangle(img, (x, y), (int(x + cell - 2), int(y + cell - 2)), (90, 70, 50), max(1, int(0.5 * s)))
            _put_text(img, str(k % 50), (int(x + cell * 0.2), int(y + cell * 0.65)), 0.03 * s * 9, (60, 40, 30),
                      max(1, int(0.7 * s)))
            k += 1
    elif item.kind == "lid":
        top = np.array([90, 150, 215], np.float32)
        bottom = np.array([80, 140, 60], np.float32)
        t = np.linspace(0, 1, H, dtype=np.float32)[:, None, None]
        img[:] = (top * (1 - t) + bottom * t).astype(np.uint8)
        for _ in range(6):
            x = int(rng.uniform(0.1, 0.9) * W)
            y = int(rng.uniform(0.45, 0.75) * H)
            bw, bh = int(rng.uniform(15, 40) * s), int(rng.uniform(20, 60) * s)
            cv2.rectangle(img, (x, y - bh), (x + bw, y), (150, 140, 125), -1)
            cv2.rectangle(img, (x + bw // 4, y - bh - int(8 * s)), (x + 3 * bw // 4, y - bh), (140, 60, 50), -1)
        cv2.rectangle(img, (int(0.08 * W), int(0.06 * H)), (int(0.92 * W), int(0.2 * H)), (40, 40, 120), -1)
        _put_text(img, "CARCASSONNE", (int(0.12 * W), int(0.17 * H)), 0.0042 * W, (240, 220, 120),
                  max(1, int(0.8 * s)))
    else:  # stack of face-down tiles: the backs
        img[:] = (150, 128, 96)
        noise = rng.normal(0, 8, (max(2, H // 4), max(2, W // 4), 1)).astype(np.float32)
        img = np.clip(img.astype(np.float32) + cv2.resize(noise, (W, H))[..., None], 0, 255).astype(np.uint8)
        cv2.rectangle(img, (int(3 * s), int(3 * s)), (W - int(3 * s), H - int(3 * s)), (110, 90, 65),
                      max(1, int(0.8 * s)), cv2.LINE_AA)
    return img


def draw_quad_texture(canvas: np.ndarray, tex: np.ndarray, corners_px: np.ndarray, gain: float = 1.0) -> None:
    """Warp the RGB picture ``tex`` onto the quad ``corners_px`` (NW, NE, SE, SW) of the float32 ``canvas``.

    ``tex`` is uint8 (0-255) or float32 (0-1); ``gain`` scales its brightness.
    Only the quad's bounding box is processed; edges are anti-aliased.
    """
    H, W = canvas.shape[:2]
    lo = np.floor(corners_px.min(axis=0)).astype(int) - 1
    hi = np.ceil(corners_px.max(axis=0)).astype(int) + 2
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [W, H])
    if (hi <= lo).any():
        return
    th, tw = tex.shape[:2]
    src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], dtype=np.float32)
    dst = (corners_px - lo).astype(np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    size = (int(hi[0] - lo[0]), int(hi[1] - lo[1]))
    full = 255 if tex.dtype == np.uint8 else 1.0
    rgba = np.dstack([tex, np.full(tex.shape[:2], full, tex.dtype)])
    warped = cv2.warpPerspective(rgba, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0)).astype(np.float32)
    warped *= np.float32(1.0 / full)
    a = warped[..., 3:4]
    roi = canvas[lo[1]:hi[1], lo[0]:hi[0]]
    roi[:] = roi * (1 - a) + warped[..., :3] * np.float32(gain)


def shade_faces(normal: np.ndarray, light: np.ndarray, ambient: float = 0.55) -> float:
    """Brightness of a flat matte face with world ``normal`` under ``light`` (unit vector to the light)."""
    return ambient + (1 - ambient) * max(0.0, float(np.dot(normal, light)))


def draw_box(
    canvas: np.ndarray,
    cam: Camera,
    foot: np.ndarray,
    z_bottom: float,
    z_top: float,
    side_rgb: np.ndarray,
    light: np.ndarray,
) -> None:
    """Draw the visible vertical sides of a box with footprint ``foot`` (4, 2) mm between two heights."""
    bottom = np.column_stack([foot, np.full(4, z_bottom)])
    top = np.column_stack([foot, np.full(4, z_top)])
    centre = np.concatenate([foot.mean(axis=0), [(z_bottom + z_top) / 2]])
    faces = []
    for i in range(4):
        j = (i + 1) % 4
        quad = np.array([bottom[i], bottom[j], top[j], top[i]])
        mid = quad.mean(axis=0)
        e = foot[j] - foot[i]
        n = np.array([e[1], -e[0], 0.0])
        n /= np.linalg.norm(n) + 1e-12
        if np.dot(n, mid - centre) < 0:
            n = -n
        if np.dot(n, cam.C - mid) <= 0:
            continue
        faces.append((cam.depth(mid[None])[0], quad, n))
    for _, quad, n in sorted(faces, key=lambda f: -f[0]):
        px = cam.project(quad)
        colour = np.clip(side_rgb * shade_faces(n, light), 0, 1)
        cv2.fillConvexPoly(canvas, np.round(px * 16).astype(np.int32), colour.tolist(), cv2.LINE_AA, 4)


def soft_shadow(canvas: np.ndarray, polys_px: list[np.ndarray], sigma_px: float, strength: float) -> None:
    """Darken ``canvas`` under the polygons ``polys_px`` (canvas pixels), blurred by ``sigma_px``."""
    if not polys_px or strength <= 0:
        return
    H, W = canvas.shape[:2]
    allp = np.vstack(polys_px)
    pad = int(3 * sigma_px) + 3
    lo = np.maximum(np.floor(allp.min(axis=0)).astype(int) - pad, 0)
    hi = np.minimum(np.ceil(allp.max(axis=0)).astype(int) + pad, [W, H])
    if (hi <= lo).any():
        return
    mask = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.float32)
    for p in polys_px:
        cv2.fillPoly(mask, [np.round((p - lo) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    if sigma_px > 0.3:
        mask = cv2.GaussianBlur(mask, (0, 0), sigma_px)
    roi = canvas[lo[1]:hi[1], lo[0]:hi[0]]
    roi *= (1 - strength * mask)[..., None]


def shadow_on_plane(pts: np.ndarray, light: np.ndarray, z: float) -> np.ndarray:
    """Where the light casts world points ``(N, 3)`` onto the plane ``Z = z``: ``(N, 3)``."""
    t = (pts[:, 2] - z) / light[2]
    out = pts - light[None, :] * t[:, None]
    out[:, 2] = z
    return out


def draw_clutter(canvas: np.ndarray, cam: Camera, items: list[Clutter], table_z: float, light: np.ndarray,
                 shadow: float) -> None:
    """Draw clutter objects (shadows, sides, printed tops) onto the float32 ``canvas``, far ones first."""
    order = sorted(items, key=lambda it: -cam.depth(np.array([[*it.centre, table_z]]))[0])
    limit = 4.0 * max(canvas.shape[:2])
    for item in order:
        foot = item.footprint()
        z_top = table_z - item.height
        top3 = np.column_stack([foot, np.full(4, z_top)])
        shadow_pts = shadow_on_plane(top3, light, table_z)
        corners = np.vstack([top3, shadow_pts, np.column_stack([foot, np.full(4, table_z)])])
        if (cam.depth(corners) <= 1.0).any() or np.abs(cam.project(corners)).max() > limit:
            # At the camera or far outside the picture: its projection would be
            # enormous (and its shadow's blur with it); such an object is not in the photo.
            continue
        poly = _hull(cam.project(np.vstack([shadow_pts, np.column_stack([foot, np.full(4, table_z)])])))
        px_mm = _px_per_mm(cam, top3)
        soft_shadow(canvas, [poly], sigma_px=max(0.5, (1.5 + 0.1 * item.height) * px_mm), strength=0.35 * shadow)
        if item.height > 1.0:
            side = {"lid": np.array([0.20, 0.30, 0.55]), "stack": np.array([0.55, 0.50, 0.42]),
                    "track": np.array([0.35, 0.30, 0.25])}.get(item.kind, np.array([0.8, 0.8, 0.8]))
            draw_box(canvas, cam, foot, table_z, z_top, side, light)
        draw_quad_texture(canvas, clutter_texture(item, min(6.0, max(1.0, px_mm * 1.2))), cam.project(top3))


def _px_per_mm(cam: Camera, pts: np.ndarray) -> float:
    """Largest pixels-per-millimetre scale of the quad ``pts`` (4, 3) in the picture."""
    px = cam.project(pts)
    sides = [np.linalg.norm(px[(i + 1) % 4] - px[i]) / max(np.linalg.norm(pts[(i + 1) % 4] - pts[i]), 1e-6)
             for i in range(4)]
    return float(max(sides))


# --------------------------------------------------------------------------- light and sensor


def light_field(
    shape: tuple[int, int],
    *,
    gradient: float,
    gradient_angle_deg: float,
    vignette: float,
    spot: float,
    spot_xy: tuple[float, float],
    hand_shadow: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Uneven light over the photo: a smooth ``(H, W)`` float32 gain around 1.

    A linear gradient (window light), a vignette (the lens), a lamp's bright
    spot and, when ``hand_shadow > 0``, the soft shadow of the phone and hand.
    Computed on a coarse grid and resized (it has no fine detail).
    """
    H, W = shape
    step = 8
    h, w = max(2, H // step), max(2, W // step)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs = (xs + 0.5) / w * 2 - 1
    ys = (ys + 0.5) / h * 2 - 1
    ys *= H / max(H, W)
    xs *= W / max(H, W)
    a = math.radians(gradient_angle_deg)
    g = 1 + gradient * (xs * math.cos(a) + ys * math.sin(a))
    r2 = (xs ** 2 + ys ** 2) / 2
    g *= 1 - vignette * r2
    sx, sy = spot_xy
    g *= 1 + spot * np.exp(-((xs - sx) ** 2 + (ys - sy) ** 2) / 0.35)
    if hand_shadow > 0:
        mask = np.zeros((h, w), np.float32)
        cx, cy = rng.uniform(0.2, 0.8) * w, h * rng.uniform(0.85, 1.2)
        ang = rng.uniform(-0.6, 0.6) - math.pi / 2
        length, width = rng.uniform(0.3, 0.6) * h, rng.uniform(0.15, 0.3) * w
        d = np.array([math.cos(ang), math.sin(ang)])
        nrm = np.array([-d[1], d[0]])
        poly = np.array([[cx, cy] + nrm * width / 2, [cx, cy] - nrm * width / 2,
                         [cx, cy] - nrm * width / 3 + d * length, [cx, cy] + nrm * width / 3 + d * length])
        cv2.fillConvexPoly(mask, np.round(poly * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
        mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, 0.06 * max(h, w)))
        g *= 1 - hand_shadow * mask
    return cv2.resize(g.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A normalised line kernel for camera shake of ``length_px`` pixels at ``angle_deg``."""
    n = max(3, int(math.ceil(length_px)) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    d = np.array([math.cos(a), math.sin(a)]) * length_px / 2
    cv2.line(k, (int(round((c - d[0]) * 16)), int(round((c - d[1]) * 16))),
             (int(round((c + d[0]) * 16)), int(round((c + d[1]) * 16))), 1.0, 1, cv2.LINE_AA, 4)
    return k / max(k.sum(), 1e-6)


def sensor(
    img: np.ndarray,
    *,
    blur_px: float,
    motion_px: float,
    motion_angle_deg: float,
    sharpen: float,
    noise: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Optics and sensor on a float32 0-1 RGB photo: defocus, shake, phone sharpening, noise.

    Noise is ``noise`` grey levels (of 255) of luminance noise at full
    resolution plus blotchy chroma noise (what a phone's denoiser leaves).
    Returns uint8 RGB (OpenCV's saturating conversion, rounded).
    """
    if blur_px > 0.2:
        img = cv2.GaussianBlur(img, (0, 0), blur_px)
    if motion_px > 1.0:
        img = cv2.filter2D(img, -1, motion_kernel(motion_px, motion_angle_deg))
    if sharpen > 0:
        soft = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = cv2.addWeighted(img, 1 + sharpen, soft, -sharpen, 0)
        del soft
    H, W = img.shape[:2]
    if noise > 0:
        lum = rng.standard_normal((H, W), dtype=np.float32)
        lum *= np.float32(noise / 255)
        img = cv2.add(img, cv2.cvtColor(lum, cv2.COLOR_GRAY2RGB))
        del lum
        ch, cw = max(2, H // 4), max(2, W // 4)
        chroma = rng.standard_normal((ch, cw, 3), dtype=np.float32) * np.float32(noise * 0.6 / 255)
        img = cv2.add(img, cv2.resize(chroma, (W, H), interpolation=cv2.INTER_LINEAR))
    return cv2.multiply(img, (255.0, 255.0, 255.0, 0.0), dtype=cv2.CV_8U)
