"""Grid detection: the homography from a photo to the top-down tile lattice.

Pipeline (all in a working copy of the photo, longest side ``work_side`` px):

1. line segments (OpenCV's LSD) on the grey image;
2. two vanishing points by RANSAC over segment pairs: the two families of tile
   seams (any camera tilt, any in-plane rotation);
3. projective rectification (the vanishing line sent to infinity) and an affine
   map that makes the two families axis-parallel;
4. the lattice period and phase of each family from the seam positions: the
   period that explains the most seam length *and* leaves the fewest lattice
   lines without any seam (so neither half nor double the tile size wins);
5. refinement: every segment near a lattice line is snapped to it and the
   homography is re-fitted (RANSAC, then least squares), a few rounds;
6. north: of the four quarter-turns of the lattice, the one whose north points
   most nearly to the top of the photo.

The result maps photo pixels to lattice coordinates in tile units: cell
``(i, j)`` covers ``[i, i+1] x [j, j+1]``, ``i`` east, ``j`` south.

References: R. Hartley, A. Zisserman, *Multiple View Geometry*, 2nd ed., §2.7
(affine rectification from the vanishing line), §8.6 (vanishing points).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import cv2
import numpy as np

from ..errors import TableNotFoundError

log = logging.getLogger(__name__)


@dataclass
class GridConfig:
    """Thresholds of grid detection (``config.toml`` section ``[grid]``)."""

    work_side: int = 1600
    min_segment: float = 0.009  # of the image diagonal
    vp_iterations: int = 600
    vp_angle_deg: float = 1.5
    family_sep_deg: float = 25.0
    min_family_segments: int = 6
    period_min_frac: float = 0.02  # tile size bounds, fraction of the rectified span
    period_max_frac: float = 0.8
    snap_tol: float = 0.12  # tile units
    refine_rounds: int = 4
    min_seam_support: float = 0.35
    max_families: int = 4
    family_angle_deg: float = 2.5
    max_cos: float = 0.25  # of the angle between the two families on the table
    period_candidates: int = 3
    k1_candidates: tuple = (0.0, 0.05, 0.1)
    clahe: float = 0.0
    score_px: int = 16
    max_lattice_cells: int = 80
    seam_ratio: float = 1.3
    seam_min: float = 4.0
    min_framed_cells: float = 0.05


#: Mean brightness (0-255) below which a photo without seams is called too dark.
DARK_LUMINANCE = 35.0


@dataclass
class Grid:
    """A tile lattice found in a photo.

    The model is a pinhole homography plus one-parameter radial (barrel) lens
    distortion: with photo pixels ``p``, centre ``c`` and ``norm`` half the photo
    diagonal, ``q = (p - c) / norm`` and ``u = q (1 + k1 |q|^2)`` are undistorted
    normalised coordinates, and ``Hn @ (u, 1)`` gives lattice coordinates in tile
    units (cell ``(i, j)`` covers ``[i, i+1] x [j, j+1]``, ``i`` east, ``j`` south).

    Attributes
    ----------
    Hn : (3, 3) float64 ndarray
        Homography from undistorted normalised coordinates to the lattice.
    shape : (int, int)
        Photo height and width in pixels.
    k1 : float
        Radial distortion (0: none; phone lenses about 0-0.12).
    support : float
        Share of lattice lines near the board that are backed by seams (0-1).
    segments : int
        Line segments that agree with the lattice.
    """

    Hn: np.ndarray
    shape: tuple[int, int]
    k1: float = 0.0
    support: float = 0.0
    segments: int = 0
    debug: dict = field(default_factory=dict)

    @property
    def _norm(self) -> tuple[np.ndarray, float]:
        h, w = self.shape
        return np.array([w / 2, h / 2]), 0.5 * float(np.hypot(w, h))

    @property
    def H(self) -> np.ndarray:
        """(3, 3) homography from photo pixels to the lattice, ignoring lens distortion.

        Exact when ``k1`` is 0; use :meth:`to_lattice` / :meth:`to_photo` for exact mapping.
        """
        c, n = self._norm
        N = np.array([[1 / n, 0, -c[0] / n], [0, 1 / n, -c[1] / n], [0, 0, 1]])
        return self.Hn @ N

    def to_lattice(self, pts: np.ndarray) -> np.ndarray:
        """Photo pixels (N, 2) -> lattice coordinates (N, 2), tile units."""
        c, n = self._norm
        q = (np.asarray(pts, dtype=np.float64).reshape(-1, 2) - c) / n
        u = q * (1 + self.k1 * np.sum(q * q, axis=1, keepdims=True))
        return _apply(self.Hn, u)

    def to_photo(self, pts: np.ndarray) -> np.ndarray:
        """Lattice coordinates (N, 2), tile units -> photo pixels (N, 2)."""
        c, n = self._norm
        u = _apply(np.linalg.inv(self.Hn), np.asarray(pts, dtype=np.float64).reshape(-1, 2))
        q = u.copy()
        if self.k1:
            for _ in range(8):  # fixed point of u = q (1 + k1 |q|^2)
                q = u / (1 + self.k1 * np.sum(q * q, axis=1, keepdims=True))
        return q * n + c

    def cell_corners(self, cell: tuple[int, int]) -> np.ndarray:
        """(4, 2) photo pixels of a cell's NW, NE, SE, SW corners."""
        i, j = cell
        return self.to_photo(np.array([[i, j], [i + 1, j], [i + 1, j + 1], [i, j + 1]], dtype=np.float64))

    def visible_cells(self, margin: float = 0.0) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Cells wholly inside the photo, and cells cut by the photo's edge.

        Parameters
        ----------
        margin : float
            Pixels a corner may lie outside the photo and still count as inside.
        """
        h, w = self.shape
        border = np.array([[x, 0] for x in np.linspace(0, w, 9)] + [[x, h] for x in np.linspace(0, w, 9)]
                          + [[0, y] for y in np.linspace(0, h, 9)] + [[w, y] for y in np.linspace(0, h, 9)])
        lat = self.to_lattice(border)
        inside: list[tuple[int, int]] = []
        cut: list[tuple[int, int]] = []
        if not np.all(np.isfinite(lat)):
            return inside, cut
        lo = np.floor(lat.min(axis=0)).astype(int) - 1
        hi = np.ceil(lat.max(axis=0)).astype(int) + 1
        if np.prod(hi - lo) > 250_000:  # a degenerate lattice: the horizon is in the picture
            return inside, cut
        ii, jj = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1))
        pts = self.to_photo(np.c_[ii.ravel(), jj.ravel()]).reshape(ii.shape + (2,))
        ok = (pts[..., 0] >= -margin) & (pts[..., 0] <= w + margin) & (pts[..., 1] >= -margin) & (pts[..., 1] <= h + margin)
        for j in range(ii.shape[0] - 1):
            for i in range(ii.shape[1] - 1):
                corners = int(ok[j, i]) + int(ok[j, i + 1]) + int(ok[j + 1, i]) + int(ok[j + 1, i + 1])
                cell = (int(ii[0, i]), int(jj[j, 0]))
                if corners == 4:
                    inside.append(cell)
                elif corners > 0:
                    cut.append(cell)
        return inside, cut

    def _maps(self, lat_x: np.ndarray, lat_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pts = self.to_photo(np.c_[lat_x.ravel(), lat_y.ravel()])
        return (pts[:, 0].reshape(lat_x.shape).astype(np.float32), pts[:, 1].reshape(lat_x.shape).astype(np.float32))

    def warp_cell(self, rgb: np.ndarray, cell: tuple[int, int], size: int, *, pad: float = 0.0) -> np.ndarray:
        """The cell cut out of the photo as a top-down ``size`` x ``size`` RGB patch.

        Parameters
        ----------
        rgb : (H, W, 3) uint8 ndarray
            The photo (the pixels this grid was found in).
        cell : (int, int)
            Lattice cell.
        size : int
            Patch side in pixels.
        pad : float
            Extra border around the cell, in tiles (0.1 = 10% each side).
        """
        i, j = cell
        t = (np.arange(size) + 0.5) / size * (1 + 2 * pad) - pad
        gx, gy = np.meshgrid(i + t, j + t)
        mx, my = self._maps(gx, gy)
        # Sample a little blurred when the photo has more pixels than the patch (no aliasing).
        span = np.hypot(mx[0, -1] - mx[0, 0], my[0, -1] - my[0, 0]) / size
        src = rgb
        if span > 1.6:
            k = int(min(9, 2 * round(span / 2) + 1))
            src = cv2.blur(rgb, (k, k))
        return cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def rectify(self, rgb: np.ndarray, lo: tuple[int, int], hi: tuple[int, int], px: int) -> np.ndarray:
        """Top-down picture of lattice cells ``lo`` .. ``hi`` (exclusive), ``px`` pixels per tile."""
        tx = lo[0] + (np.arange((hi[0] - lo[0]) * px) + 0.5) / px
        ty = lo[1] + (np.arange((hi[1] - lo[1]) * px) + 0.5) / px
        gx, gy = np.meshgrid(tx, ty)
        mx, my = self._maps(gx, gy)
        return cv2.remap(rgb, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def _centre_inside(c: np.ndarray, w: int, h: int) -> bool:
    m = c.mean(axis=0)
    return 0 <= m[0] <= w and 0 <= m[1] <= h


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


# ------------------------------------------------------------------ public entry


def find_grid(rgb: np.ndarray, cfg: GridConfig | None = None) -> Grid:
    """Find the tile lattice in a photo.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB.
    cfg : GridConfig, optional
        Thresholds (defaults from ``config.toml``).

    Returns
    -------
    Grid
        Homography photo pixels -> lattice (tile units), north snapped to the
        photo's top edge.

    Raises
    ------
    TableNotFoundError
        Too few straight seams, no two seam directions, or no regular spacing:
        the message says what to change (closer, more light, less tilt).
    """
    cfg = cfg or GridConfig()
    h, w = rgb.shape[:2]
    scale = min(1.0, cfg.work_side / max(h, w))
    small = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else rgb
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    segs = _segments(gray, cfg)
    if len(segs) < 2 * cfg.min_family_segments and float(gray.mean()) < DARK_LUMINANCE:
        exc = TableNotFoundError(
            f"the photo is too dark to find the tiles (mean brightness {gray.mean():.0f} of 255); "
            "turn on more light or use the flash"
        )
        exc.seen["segments"] = segs / scale
        raise exc
    try:
        return _lattice_from_segments(segs, gray.shape, (h, w), cfg)
    except TableNotFoundError as exc:
        exc.seen.setdefault("segments", segs / scale)
        raise


def _lattice_from_segments(segs: np.ndarray, work_shape: tuple[int, int], shape: tuple[int, int],
                           cfg: GridConfig) -> Grid:
    h, w = shape
    if len(segs) < 2 * cfg.min_family_segments:
        raise TableNotFoundError(
            f"found only {len(segs)} straight edges in the photo: no tile grid visible; "
            "photograph the tiles from closer, with more light and less blur"
        )
    # Normalised coordinates: centre at 0, unit = half the diagonal.
    hs, ws = work_shape
    half = 0.5 * np.hypot(ws, hs)
    q1 = (segs[:, :2] - [ws / 2, hs / 2]) / half
    q2 = (segs[:, 2:4] - [ws / 2, hs / 2]) / half
    # Lens distortion bends the seams: the lattice search runs for a few values of
    # k1 and the lattice that frames the most tiles wins.
    best = None
    for k1 in cfg.k1_candidates:
        p1, p2 = _undistort(q1, k1), _undistort(q2, k1)
        found = _best_lattice(p1, p2, cfg)
        log.debug("k1 %.3f: best lattice frames %.2f", k1, found[1] if found else 0.0)
        if found is not None and (best is None or found[1] > best[1] * 1.05):
            best = (found[0], found[1], k1, np.c_[p1, p2])
    if best is None or best[1] < cfg.min_framed_cells:
        raise TableNotFoundError(
            "no regular tile grid found (no cells framed by seams); take the photo closer, "
            "more from above (less tilt) and with more light"
        )
    best_k1, usegs = best[2], best[3]
    Hn, support, used, _ = _refine(best[0], usegs, cfg)
    framed = _framed_cells(Hn, usegs, cfg.snap_tol)
    log.debug("grid: k1 %.3f, %.2f cells framed before refinement, %.2f after", best_k1, best[1], framed)
    if support < cfg.min_seam_support:
        exc = TableNotFoundError(
            f"the lattice found is weak (only {support:.0%} of grid lines backed by seams); "
            "take the photo from closer, with more light and less tilt"
        )
        exc.seen["grid"] = Grid(Hn, (h, w), best_k1, support, used, {"framed_cells": framed})
        raise exc
    # The working copy and the photo share normalised coordinates (same centre and
    # half-diagonal, up to rounding of the resize), so Hn serves both.
    grid = Grid(Hn, (h, w), best_k1, support, used, {"framed_cells": framed})
    grid.Hn = _north_up(grid)
    return grid


def _best_lattice(p1: np.ndarray, p2: np.ndarray, cfg: GridConfig) -> tuple[np.ndarray, float] | None:
    """The lattice homography (undistorted normalised coords -> tile units) framing most tiles.

    Several candidate families (vanishing points) are found: tile seams, but also
    wood grain, cloth patterns or clutter.  Every pair that could be perpendicular
    on the table is tried with a few periods each.
    """
    usegs = np.c_[p1, p2]
    rng = np.random.default_rng(0)
    vps: list[tuple[np.ndarray, np.ndarray]] = []
    allowed = np.ones(len(p1), bool)
    wide = np.cos(np.radians(cfg.family_angle_deg))
    for _ in range(cfg.max_families + 2):
        vp, inl = _vanishing_point(p1, p2, allowed, cfg, rng)
        if vp is None:
            break
        allowed &= ~inl
        # Every segment pointing at the vanishing point (within a wider angle) belongs to
        # the family, also those another family's RANSAC took first.
        family = _vp_inliers(vp, p1, p2, wide)
        if any(_same_family(vp, other, p1, p2) for other, _ in vps):
            continue
        vps.append((vp, family))
        if len(vps) == cfg.max_families:
            break
    best = None
    tol = 2 * cfg.snap_tol
    for a in range(len(vps)):
        for b in range(a + 1, len(vps)):
            (vp1, in1), (vp2, in2) = vps[a], vps[b]
            perp = _perpendicularity(vp1, vp2)
            if perp > cfg.max_cos:
                continue
            for H in _rectify(vp1, vp2, p1, p2, in1, in2, cfg):
                framed = _framed_cells(H, usegs, tol)
                if best is None or framed > best[1]:
                    best = (H, framed)
    return best


def _undistort(q: np.ndarray, k1: float) -> np.ndarray:
    """Undistorted normalised coordinates: ``q (1 + k1 |q|^2)``."""
    return q * (1 + k1 * np.sum(q * q, axis=1, keepdims=True)) if k1 else q


# ------------------------------------------------------------------ stages


def _segments(gray: np.ndarray, cfg: GridConfig) -> np.ndarray:
    # Local contrast equalisation brings out faint seams in shade and on pale tiles.
    if cfg.clahe:
        gray = cv2.createCLAHE(clipLimit=cfg.clahe, tileGridSize=(8, 8)).apply(gray)
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    lines = lsd.detect(gray)[0]
    if lines is None:
        return np.zeros((0, 4))
    s = lines.reshape(-1, 4).astype(np.float64)
    length = np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1])
    keep = length > cfg.min_segment * np.hypot(*gray.shape)
    return s[keep]


def _direction_to(vp: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Unit directions from points towards a (homogeneous) vanishing point."""
    if abs(vp[2]) < 1e-9:
        d = np.tile(vp[:2], (len(pts), 1))
    else:
        d = vp[:2] / vp[2] - pts
    return d / (np.linalg.norm(d, axis=1, keepdims=True) + 1e-12)


def _same_family(vp1: np.ndarray, vp2: np.ndarray, p1: np.ndarray, p2: np.ndarray) -> bool:
    """Whether two vanishing points give nearly the same direction at every segment (within 2 degrees)."""
    mid = 0.5 * (p1 + p2)
    c = np.abs(np.sum(_direction_to(vp1, mid) * _direction_to(vp2, mid), axis=1))
    return bool(np.median(c) > np.cos(np.radians(2.0)))


def _vp_inliers(vp: np.ndarray, p1: np.ndarray, p2: np.ndarray, cos_tol: float) -> np.ndarray:
    mid = 0.5 * (p1 + p2)
    d = p2 - p1
    d = d / (np.linalg.norm(d, axis=1, keepdims=True) + 1e-12)
    to = _direction_to(vp, mid)
    return np.abs(np.sum(d * to, axis=1)) > cos_tol


def _vanishing_point(p1, p2, allowed, cfg: GridConfig, rng) -> tuple[np.ndarray | None, np.ndarray]:
    """RANSAC vanishing point of the allowed segments (all hypotheses scored at once)."""
    idx = np.flatnonzero(allowed)
    if len(idx) < cfg.min_family_segments:
        return None, np.zeros(len(p1), bool)
    L = np.cross(np.c_[p1, np.ones(len(p1))], np.c_[p2, np.ones(len(p2))])
    L /= np.linalg.norm(L[:, :2], axis=1, keepdims=True) + 1e-12
    length = np.linalg.norm(p2 - p1, axis=1)
    cos_tol = np.cos(np.radians(cfg.vp_angle_deg))
    prob = length[idx] / length[idx].sum()
    a = rng.choice(idx, cfg.vp_iterations, p=prob)
    b = rng.choice(idx, cfg.vp_iterations, p=prob)
    keep = a != b
    V = np.cross(L[a[keep]], L[b[keep]])
    n = np.linalg.norm(V, axis=1)
    V = V[n > 1e-12] / n[n > 1e-12, None]
    if not len(V):
        return None, np.zeros(len(p1), bool)
    mid = 0.5 * (p1[idx] + p2[idx])
    d = (p2[idx] - p1[idx]) / (length[idx, None] + 1e-12)
    # Direction from each segment midpoint to each hypothesis (homogeneous: works at infinity).
    tx = V[:, None, 0] - V[:, None, 2] * mid[None, :, 0]
    ty = V[:, None, 1] - V[:, None, 2] * mid[None, :, 1]
    tn = np.sqrt(tx * tx + ty * ty) + 1e-12
    cos = np.abs(tx * d[None, :, 0] + ty * d[None, :, 1]) / tn
    score = (cos > cos_tol) @ length[idx]
    best = V[int(np.argmax(score))]
    inl = _vp_inliers(best, p1, p2, cos_tol) & allowed
    if inl.sum() < cfg.min_family_segments:
        return None, inl
    # Least squares: the point closest to all inlier lines (weighted by length).
    A = L[inl] * length[inl, None]
    _, _, vt = np.linalg.svd(A, full_matrices=False)
    vp = vt[-1] / np.linalg.norm(vt[-1])
    inl = _vp_inliers(vp, p1, p2, cos_tol) & allowed
    return vp, inl


def _perpendicularity(vp1: np.ndarray, vp2: np.ndarray) -> float:
    """|cos| of the angle on the table between two families, at the most favourable focal length.

    With the principal point at the image centre and focal length ``f`` (in units
    of half the image diagonal), the image of the absolute conic is
    ``diag(1, 1, f^2)^-1`` up to scale; two vanishing points of perpendicular
    directions satisfy ``v1^T w v2 = 0`` (Hartley & Zisserman §8.6).  Phone and
    webcam lenses have ``f`` between about 0.6 and 4 half-diagonals.
    """
    best = 1.0
    for f in np.geomspace(0.6, 4.0, 24):
        w = np.array([1 / f**2, 1 / f**2, 1.0])
        num = abs(np.sum(vp1 * w * vp2))
        den = np.sqrt(np.sum(vp1 * w * vp1) * np.sum(vp2 * w * vp2)) + 1e-15
        best = min(best, num / den)
    return best


def _rectify(vp1, vp2, p1, p2, in1, in2, cfg: GridConfig) -> list[np.ndarray]:
    """Candidate homographies (normalised image -> lattice units) from two vanishing points.

    The vanishing line is sent to infinity and the two families made
    axis-parallel (Hartley & Zisserman §2.7); each family's seam positions then
    give a few candidate periods and phases, and every combination is returned.
    """
    l = np.cross(vp1, vp2)
    if abs(l[2]) < 1e-9:
        return []
    l = l / l[2]
    Hp = np.array([[1, 0, 0], [0, 1, 0], [l[0], l[1], 1.0]])
    d1 = Hp @ vp1
    d2 = Hp @ vp2
    D = np.array([[d1[0], d2[0]], [d1[1], d2[1]]])
    if abs(np.linalg.det(D)) < 1e-12:
        return []
    A = np.eye(3)
    A[:2, :2] = np.linalg.inv(D)
    M = A @ Hp
    q1 = _apply(M, p1)
    q2 = _apply(M, p2)
    # Family 1 runs along u (direction e1): its lines are told apart by v; family 2 by u.
    mid = 0.5 * (q1 + q2)
    length = np.linalg.norm(q2 - q1, axis=1)
    cands_v = _periods(mid[in1, 1], length[in1], cfg)
    cands_u = _periods(mid[in2, 0], length[in2], cfg)
    out = []
    for pv, phv in cands_v:
        for pu, phu in cands_u:
            if not 0.2 < pu / pv < 5:  # tiles are square: the aspect left after rectification is moderate
                continue
            S = np.array([[1 / pu, 0, -phu / pu], [0, 1 / pv, -phv / pv], [0, 0, 1]])
            out.append(S @ M)
    return out


def _periods(vals: np.ndarray, wts: np.ndarray, cfg: GridConfig) -> list[tuple[float, float]]:
    """Candidate lattice periods and phases of seam positions ``vals`` (weights ``wts``), best first.

    A period scores by the seam length it explains times the share of its
    lattice lines (within the seams' span) that carry any seam: half the tile
    size explains as much but leaves every other line empty, double the tile
    size fills its lines but explains half.
    """
    if len(vals) < 3:
        return []
    lo, hi = np.percentile(vals, [2, 98])
    span = hi - lo
    if span <= 0:
        return []
    periods = np.geomspace(span * cfg.period_min_frac, span * cfg.period_max_frac, 300)
    total = wts.sum()
    nb = 48
    scored = []
    for p in periods:
        ph = np.mod(vals - lo, p) / p
        hist = np.bincount((ph * nb).astype(int) % nb, weights=wts, minlength=nb)
        win = hist + np.roll(hist, 1) + np.roll(hist, -1)
        k = int(np.argmax(win))
        explained = win[k] / total
        phase = lo + (k + 0.5) / nb * p
        n_lines = int(np.floor((hi - phase) / p)) - int(np.ceil((lo - phase) / p)) + 1
        if n_lines < 2:
            continue
        idx = np.round((vals - phase) / p)
        near = np.abs(vals - phase - idx * p) < 0.06 * p
        support = min(1.0, len(np.unique(idx[near])) / n_lines)
        scored.append((explained * support, p, phase))
    scored.sort(reverse=True)
    out: list[tuple[float, float]] = []
    for _score, p, phase in scored:
        if any(0.87 < p / q < 1.15 for q, _ in out):
            continue
        # Refine the phase: weighted circular mean of the seams near the lattice lines.
        ang = 2 * np.pi * (vals - phase) / p
        near = np.cos(ang) > np.cos(2 * np.pi * 0.08)
        if near.any():
            c = np.sum(wts[near] * np.cos(ang[near]))
            sn = np.sum(wts[near] * np.sin(ang[near]))
            phase += np.arctan2(sn, c) / (2 * np.pi) * p
        out.append((p, phase))
        if len(out) == cfg.period_candidates:
            break
    return out


def _edge_strength(gray: np.ndarray) -> np.ndarray:
    """Gradient magnitude of the grey image (float32), lightly smoothed."""
    g = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


def _framed_cells_image(H: np.ndarray, edges: np.ndarray, segs: np.ndarray, cfg: GridConfig) -> float:
    """:func:`_framed_cells` with seams measured in the picture itself.

    The edge-strength image is warped into the candidate lattice (``px`` pixels a
    tile); a cell side is a seam when the edge strength along it (best of a
    band of +-0.12 tile, for tiles laid by hand) is well above the strength along
    the lines a quarter tile inside the neighbouring cells.
    """
    r = cfg.score_px
    a = _apply(H, segs[:, :2])
    b = _apply(H, segs[:, 2:4])
    mid = 0.5 * (a + b)
    ok = np.all(np.isfinite(mid), axis=1)
    if ok.sum() < 4:
        return 0.0
    lo = np.floor(np.percentile(mid[ok], 3, axis=0)) - 1
    hi = np.ceil(np.percentile(mid[ok], 97, axis=0)) + 1
    size = hi - lo
    if np.any(size < 2) or np.any(size > cfg.max_lattice_cells):
        return 0.0
    nu, nv = int(size[0]), int(size[1])
    T = np.array([[r, 0, -lo[0] * r], [0, r, -lo[1] * r], [0, 0, 1]], dtype=np.float64)
    rect = cv2.warpPerspective(edges, T @ H, (nu * r, nv * r), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    valid = cv2.warpPerspective(np.ones_like(edges), T @ H, (nu * r, nv * r), flags=cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    band = max(1, round(0.12 * r))
    q = r // 4

    def sides(img: np.ndarray, val: np.ndarray, n_lines: int, n_cells: int) -> np.ndarray:
        # Lines are rows k*r (k = 0..n_lines); returns (n_lines+1, n_cells) seam flags.
        padded = np.pad(img, ((band + q, band + q), (0, 0)))
        pv = np.pad(val, ((band + q, band + q), (0, 0)))
        out = np.zeros((n_lines + 1, n_cells), bool)
        for k in range(n_lines + 1):
            c = k * r + band + q
            line = padded[c - band:c + band + 1].max(axis=0)
            base = 0.5 * (padded[c - q - band:c - q + band + 1].mean(axis=0) + padded[c + q - band:c + q + band + 1].mean(axis=0))
            seen = pv[c - band:c + band + 1].min(axis=0)
            lc = line[: n_cells * r].reshape(n_cells, r)[:, 2:-2].mean(axis=1)
            bc = base[: n_cells * r].reshape(n_cells, r)[:, 2:-2].mean(axis=1)
            sc = seen[: n_cells * r].reshape(n_cells, r).min(axis=1)
            out[k] = (lc > cfg.seam_ratio * bc + cfg.seam_min) & (sc > 0)
        return out

    horiz = sides(rect, valid, nv, nu)  # horiz[k, i]: side v=k, u in [i, i+1]
    vert = sides(rect.T.copy(), valid.T.copy(), nu, nv)  # vert[k, j]: side u=k, v in [j, j+1]
    count = horiz[:-1, :].astype(int) + horiz[1:, :] + vert[:-1, :].T + vert[1:, :].T  # (nv, nu)
    n4 = int((count == 4).sum())
    n2 = int((count >= 2).sum())
    return n4 * n4 / n2 if n2 else 0.0


def _framed_cells(H: np.ndarray, segs: np.ndarray, tol: float) -> float:
    """How well a lattice frames tiles: ``n4 * n4 / n2``.

    ``n4`` counts cells with seams on all 4 sides, ``n2`` cells with seams on at
    least 2.  The true lattice frames nearly every tile (``n4 ~ n2 ~`` tiles);
    half the tile size frames only the halves split by a road or river
    (``n4 / n2`` small); double the tile size frames a quarter as many cells; wood
    grain and cloth patterns frame few.
    """
    a = _apply(H, segs[:, :2])
    b = _apply(H, segs[:, 2:4])
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return 0.0
    keys = []
    for axis, along, across in ((0, 0, 1), (1, 1, 0)):
        d_across = np.abs(a[:, across] - b[:, across])
        lo_ = np.minimum(a[:, along], b[:, along])
        hi_ = np.maximum(a[:, along], b[:, along])
        k = np.round(0.5 * (a[:, across] + b[:, across]))
        ok = ((hi_ - lo_) > 3 * d_across) & (np.abs(a[:, across] - k) < tol) & (np.abs(b[:, across] - k) < tol)
        ok &= (hi_ - lo_) < 50
        lo_, hi_, k = lo_[ok], hi_[ok], k[ok]
        first = np.floor(lo_).astype(np.int64)
        n = np.ceil(hi_).astype(np.int64) - first
        if not len(n):
            continue
        rep = np.repeat(np.arange(len(n)), n)
        i = first[rep] + (np.arange(len(rep)) - np.repeat(np.cumsum(n) - n, n))
        overlap = np.minimum(hi_[rep], i + 1) - np.maximum(lo_[rep], i)
        sel = overlap > 0.3
        # key: (axis, i, k) packed into one integer
        keys.append((axis * 1_000_003 + (i[sel] + 50_000)) * 1_000_003 + (k[rep][sel].astype(np.int64) + 50_000))
    if not keys:
        return 0.0
    uniq = np.unique(np.concatenate(keys))
    k = uniq % 1_000_003 - 50_000
    rest = uniq // 1_000_003
    i = rest % 1_000_003 - 50_000
    axis = rest // 1_000_003
    # Horizontal side at v=k over u=i: top of cell (i, k), bottom of (i, k-1).
    # Vertical side at u=k over v=i: left of cell (k, i), right of (k-1, i).
    cu = np.where(axis == 0, i, k)
    cv = np.where(axis == 0, k, i)
    cu2 = np.where(axis == 0, i, k - 1)
    cv2_ = np.where(axis == 0, k - 1, i)
    cells = np.concatenate([(cu + 50_000) * 200_000 + (cv + 50_000), (cu2 + 50_000) * 200_000 + (cv2_ + 50_000)])
    _, counts = np.unique(cells, return_counts=True)
    n4 = int((counts == 4).sum())
    n2 = int((counts >= 2).sum())
    return n4 * n4 / n2 if n2 else 0.0


def _refine(H: np.ndarray, segs: np.ndarray, cfg: GridConfig) -> tuple[np.ndarray, float, int, float]:
    """Snap segments to their nearest lattice lines and re-fit the homography."""
    used = 0
    for rnd in range(cfg.refine_rounds):
        a = _apply(H, segs[:, :2])
        b = _apply(H, segs[:, 2:4])
        d = b - a
        horiz = np.abs(d[:, 0]) > 3 * np.abs(d[:, 1])
        vert = np.abs(d[:, 1]) > 3 * np.abs(d[:, 0])
        tol = cfg.snap_tol if rnd else 2 * cfg.snap_tol
        src, dst = [], []
        for mask, coord in ((horiz, 1), (vert, 0)):
            for P, Q in ((a, segs[:, :2]), (b, segs[:, 2:4])):
                r = np.round(P[mask, coord])
                ok = np.abs(P[mask, coord] - r) < tol
                target = P[mask].copy()
                target[:, coord] = r
                src.append(Q[mask][ok])
                dst.append(target[ok])
        src = np.concatenate(src)
        dst = np.concatenate(dst)
        used = len(src) // 2
        if len(src) < 8:
            break
        H_new, inl = cv2.findHomography(src, dst, cv2.RANSAC, 0.05)
        if H_new is None or not _close(H, H_new, segs):
            break
        H = H_new
    # Support: lattice lines (inside the board's span) backed by at least one seam.
    a = _apply(H, segs[:, :2])
    b = _apply(H, segs[:, 2:4])
    mid = 0.5 * (a + b)
    d = b - a
    lines = 0
    hit = 0
    for coord, mask in ((1, np.abs(d[:, 0]) > 3 * np.abs(d[:, 1])), (0, np.abs(d[:, 1]) > 3 * np.abs(d[:, 0]))):
        v = mid[mask, coord]
        if len(v) == 0:
            continue
        near = np.abs(v - np.round(v)) < cfg.snap_tol
        lo, hi = np.percentile(v[near], [5, 95]) if near.any() else (0, 0)
        want = np.arange(np.ceil(lo), np.floor(hi) + 1)
        got = set(np.round(v[near]).astype(int))
        lines += len(want)
        hit += sum(1 for k in want if int(k) in got)
    support = hit / lines if lines else 0.0
    # Explained seam length: photo-pixel length of axis-parallel segments lying on lattice lines.
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    on = np.zeros(len(segs), bool)
    for coord, mask in ((1, np.abs(d[:, 0]) > 4 * np.abs(d[:, 1])), (0, np.abs(d[:, 1]) > 4 * np.abs(d[:, 0]))):
        ends_a = np.abs(a[:, coord] - np.round(a[:, coord])) < cfg.snap_tol / 2
        ends_b = np.abs(b[:, coord] - np.round(b[:, coord])) < cfg.snap_tol / 2
        on |= mask & ends_a & ends_b & (np.round(a[:, coord]) == np.round(b[:, coord]))
    explained = float(length[on].sum())
    return H, support, used, explained


def _cross2(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _close(H: np.ndarray, H_new: np.ndarray, segs: np.ndarray) -> bool:
    """Whether a re-fitted homography stays near the old one (no collapse, no jump)."""
    pts = np.r_[segs[:, :2], segs[:, 2:4]]
    a = _apply(H, pts)
    b = _apply(H_new, pts)
    if not np.all(np.isfinite(b)):
        return False
    if np.median(np.linalg.norm(a - b, axis=1)) > 0.35:
        return False
    # Local scale (area of a unit pixel square) must not collapse or blow up.
    c = pts.mean(axis=0)
    probe = np.array([c, c + [1e-2, 0], c + [0, 1e-2]])
    ja, jb = _apply(H, probe), _apply(H_new, probe)
    area_a = abs(_cross2(ja[1] - ja[0], ja[2] - ja[0]))
    area_b = abs(_cross2(jb[1] - jb[0], jb[2] - jb[0]))
    return 0.6 < area_b / (area_a + 1e-18) < 1.7


def _north_up(grid: Grid) -> np.ndarray:
    """``grid.Hn`` turned/flipped so the lattice is not mirrored and north points to the photo's top."""
    h, w = grid.shape
    pc, pu, pr = grid.to_lattice(np.array([[w / 2, h / 2], [w / 2, h / 2 - 10], [w / 2 + 10, h / 2]]))
    du, dr = pu - pc, pr - pc
    Hn = grid.Hn
    if du[0] * dr[1] - du[1] * dr[0] < 0:  # mirrored relative to the photo
        F = np.diag([-1.0, 1.0, 1.0])
        Hn = F @ Hn
        du = F[:2, :2] @ du
    # Quarter turn that sends the image's up direction closest to lattice north (0, -1).
    best = None
    for k in range(4):
        R = _quarter(k)
        v = R[:2, :2] @ du
        score = -v[1] / (np.linalg.norm(v) + 1e-12)
        if best is None or score > best[0]:
            best = (score, R)
    return best[1] @ Hn


def _quarter(k: int) -> np.ndarray:
    """Rotation of lattice coordinates by k quarter turns (integer lattice kept)."""
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)
