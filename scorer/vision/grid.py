"""Grid detection: the homography from a photo to the top-down tile lattice.

Pipeline (all in a working copy of the photo, longest side ``work_side`` px):

1. line segments (OpenCV's LSD) on the grey image (when no lattice is found,
   or one that frames hardly a tile, steps 2-7 run once more on segments
   found at half scale with a lower gradient threshold, for blurred photos,
   and the lattice framing more tiles wins; when that lattice is still weak,
   once more on segments of the line energy image, :func:`_line_energy`,
   where a seam seen as dashes, a striped cloth showing through its gap, is
   one line and a fine pattern an even area: there the lattice chosen is made
   coarser on the seams, fitted, or settled after the fit only where that
   frames no fewer tiles; when every lattice is still weak, once more on
   segments of the chroma image, :func:`_chroma`, where a grey seam between
   coloured tiles shows however bright it is; another pass's lattice replaces
   the one chosen when it frames clearly more tiles on the seams of all
   passes, and two passes finding the same lattice outvote the others); the
   segments of a repeating pattern (a checked or striped table cloth) are set
   aside: the pattern's periods are measured by autocorrelation in windows of
   coarser copies of the photo, and a segment whose neighbourhood repeats one
   period away is the cloth's (a seam between tiles, moved by the cloth's
   period, lands in a tile's art);
2. seam families: vanishing points by RANSAC over segment pairs (tile seams,
   but also wood grain, cloth patterns, box edges), searched once and re-fitted
   for each trial lens distortion ``k1``; more are searched for while no two
   found can be perpendicular on the table (grain taking all but one);
3. for every pair of families that can be perpendicular on the table:
   projective rectification (the vanishing line sent to infinity), an affine map
   that makes the two families axis-parallel, and a few candidate periods and
   phases per family from the seam positions; only period pairs that make
   square cells for a plausible focal length are kept, and each of a family's
   few best periods is also paired with the other family's best period among
   those that make square cells (a board one or two tiles wide shows its tile
   size in one family only);
4. every candidate lattice is scored by the tiles it frames: cells with a seam
   segment on all four sides, each weighted by how unlike its neighbours it
   looks (tiles differ, the squares of a checked cloth repeat), times the share
   of partly framed cells that are fully framed, times the balance of seams on
   odd and even lines (half the tile size puts every other line through the
   middle of the tiles); of lattices framing as many tiles (a board of a few
   tiles), the one with the largest cells wins.  When the lattice framing most
   cells is a repeating pattern, its segments are set aside and the search
   runs again;
5. the winner is settled on the seams: moved by half a cell, or its period
   halved or doubled, when the seam coverage of the lines half a cell off says
   so, or its period made 3/2, 2/3, 3 or 1/3 times as long when a lattice of
   that period explains the seams better; a lattice chosen framing tiles well
   is halved or rescaled only where that frames half its tiles (and once more
   after step 6: a lattice of half the tile size a little off the seams
   misses them on its own lines too, and only on the seams shows its lines
   through the empty middles of the tiles);
6. least-squares fit of the homography and the radial distortion ``k1``, ``k2``
   to every seam near a lattice line (point-to-line distances in pixels, Cauchy
   loss, Levenberg-Marquardt), grown outwards from the middle of the board;
7. north: of the four quarter-turns of the lattice, the one whose north points
   most nearly to the top of the photo.

The result maps photo pixels to lattice coordinates in tile units: cell
``(i, j)`` covers ``[i, i+1] x [j, j+1]``, ``i`` east, ``j`` south.

References: R. Hartley, A. Zisserman, *Multiple View Geometry*, 2nd ed., §2.7
(affine rectification from the vanishing line), §8.6 (vanishing points, the
image of the absolute conic), §4.5 and A6 (iterative minimisation,
Levenberg-Marquardt); R. Grompone von Gioi et al., LSD: a line segment
detector, IPOL 2012; periodicity by autocorrelation as in texture analysis, e.g.
Y. Liu, R. Collins, Y. Tsin, A computational model for periodic pattern
perception based on frieze and wallpaper groups, IEEE PAMI 26(3), 2004.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from typing import Callable

import cv2
import numpy as np

from ..errors import TableNotFoundError

log = logging.getLogger(__name__)


@dataclass
class GridConfig:
    """Thresholds of grid detection (``config.toml`` section ``[grid]``)."""

    # Segments and seam families.
    work_side: int = 1600  # longest side of the working copy, pixels
    clahe: float = 0.0  # local contrast equalisation before the segments (0: off)
    blur_lsd_scale: float = 0.5  # when no lattice is found: segments again at this scale
    blur_lsd_quant: float = 1.0  # and this gradient quantisation (LSD's default 2)
    min_segment: float = 0.009  # of the image diagonal
    vp_iterations: int = 600
    vp_score_segments: int = 800  # segments a vanishing point hypothesis is scored on
    vp_angle_deg: float = 1.5
    min_family_segments: int = 6
    max_families: int = 4
    max_families_unpaired: int = 7  # more, up to this many, while no two families found can be perpendicular
    family_angle_deg: float = 2.5
    k1_candidates: tuple = (0.0, 0.05, 0.1)  # trial lens distortions of the search
    # Table cloths: segments of a repeating pattern set aside before the search.
    cloth_scales: tuple = (4, 8, 16)  # the pattern's period is looked for in copies this many times smaller
    cloth_steps: tuple = (32, 16, 8)  # and in windows this far apart there, pixels
    cloth_window: int = 32  # window side, pixels of the smaller copy
    cloth_min_std: float = 2.5  # grey level spread below which a window shows no pattern
    cloth_periodicity: float = 0.5  # a window repeats: autocorrelation one and two periods away, less half a period away
    cloth_radius: float = 2.5  # a segment takes the period of the nearest periodic window this close, half windows
    cloth_match: float = 0.3  # a segment is the cloth's: grey difference to its copy one period away, of its contrast
    # Periods and square cells.
    max_cos: float = 0.25  # of the angle between the two families on the table
    focal_min: float = 0.6  # focal length range, half image diagonals (phones: about 1-2.5)
    focal_max: float = 4.0
    perp_slack: float = 0.03  # focal lengths within this |cos| of the most perpendicular are plausible
    square_tol: float = 1.15  # tolerance of the cell aspect ratio on the table
    period_min_frac: float = 0.02  # tile size bounds, fraction of the rectified span
    period_max_frac: float = 0.8
    period_candidates: int = 3
    band_periods: int = 3  # each of a family's best periods this many is paired with the other's best making square cells
    period_steps: int = 600
    period_segments: int = 600  # longest seams of a family the period search looks at
    period_window: int = 4  # seam position kernel half-width, 48ths of a period
    period_near: float = 0.08  # a lattice line carries a seam this close, fraction of a period
    # Choosing the lattice.
    snap_tol: float = 0.12  # tile units
    rescore: int = 40  # candidates checked against the photo
    alternatives: int = 6  # candidates not chosen kept (most seams framed first) for the tile stage to check
    max_scored_cells: int = 3000
    repeat_grey: float = 8.0  # mean grey difference below which two cells look alike (a cloth's pattern)
    min_parity_balance: float = 0.5  # seams on odd vs even lattice lines; less is half the tile size
    pattern_passes: int = 2  # repeating patterns (a checked cloth) set aside, at most
    pattern_min_cells: int = 12
    pattern_rank: int = 3  # a pattern's square has this many look-alikes among its 12 neighbours
    pattern_tileness: float = 0.25  # median tileness of its framed cells below which a lattice is a pattern
    pattern_tol: float = 0.06  # segments this close to a pattern's lines are set aside, its cells
    shift_ratio: float = 1.25  # lines half a cell off this much better covered: move the lattice
    halve_ratio: float = 0.55  # lines half a cell off this well covered: halve the period (blur shows seams in parts)
    settle_keep: float = 0.5  # a lattice framing weak_lattice tiles: halved or rescaled only to frame this share of them
    min_framed_cells: float = 0.05
    min_seam_support: float = 0.35
    weak_lattice: float = 1.5  # a lattice framing fewer tiles (tile score) is searched for again on blurred segments
    # Least-squares fit.
    fit_radii: tuple = (2.5, 4.0, 6.0, 9.0, 1000.0)  # fit rounds: seams this far from the middle, tiles
    fit_tols: tuple = (0.25, 0.2, 0.2, 0.15, 0.15)  # and this close to a lattice line, tile units
    fit_steps: int = 30
    fit_loss_px: float = 3.0  # Cauchy loss scale, working-image pixels
    fit_lens_prior: float = 300.0  # pixels of residual per unit of k1, k2 away from the start
    # Periods of 1/3, 2/3, 3/2, 3 times the lattice's (settled on the seams, see _rescale).
    rescale_periods: bool = True  # off: only halving and doubling
    rescale_fine: float = 0.8  # the coarsest trial lattice explaining this share of the most seams any explains wins
    rescale_gain: float = 0.7  # and a coarser one this share of the seams it would explain were it the tiles'
    # Seams the segment detector misses (dashed where a striped cloth shows through, grain-like):
    # when the lattice is still weak after the blurred pass, segments once more on the line energy image.
    line_pass: bool = True  # off: no third pass
    line_sigma: float = 1.0  # scale of the second derivatives across a seam, working-image pixels
    line_smooth: float = 3.0  # and of the smoothing along it that joins a dashed seam, pixels
    line_min_framed: float = 0.02  # the least tile score (min_framed_cells) of a lattice found on it
    line_margin: float = 1.5  # another pass's lattice replaces the one chosen framing this many times the tiles
    # Seams as bright as the tiles (grey on a grey cloth): when every lattice of the first three
    # passes is weak, segments once more on the chroma image (after the third pass: line_pass on).
    chroma_pass: bool = True  # off: no fourth pass


#: Mean brightness (0-255) below which a photo without seams is called too dark.
DARK_LUMINANCE = 35.0


@dataclass
class Grid:
    """A tile lattice found in a photo.

    The model is a pinhole homography plus radial (barrel) lens distortion:
    with photo pixels ``p``, centre ``c`` and ``norm`` half the photo diagonal,
    ``q = (p - c) / norm`` and ``u = q (1 + k1 |q|^2 + k2 |q|^4)`` are undistorted
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
    debug : dict
        What the search saw (``framed_cells``; ``tiles``: the tiles the lattice
        chosen frames, :func:`_tile_score`; ``start``: the lattice before the
        least-squares fit, north up, with its ``k1``; ``alternatives``: other
        lattices the seams allow, ``(Hn, k1, k2)`` each, north up: the other
        passes' and the candidates framing the most seams that were not
        chosen; ``passes``: how many of the first alternatives are the other
        passes' lattices), for development and for the tile stage's check
        (:func:`scorer.vision.recognise.check_lattice`).
    k2 : float
        Second radial distortion coefficient.
    """

    Hn: np.ndarray
    shape: tuple[int, int]
    k1: float = 0.0
    support: float = 0.0
    segments: int = 0
    debug: dict = field(default_factory=dict)
    k2: float = 0.0

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
        return _apply(self.Hn, _undistort(q, self.k1, self.k2))

    def to_photo(self, pts: np.ndarray) -> np.ndarray:
        """Lattice coordinates (N, 2), tile units -> photo pixels (N, 2)."""
        c, n = self._norm
        u = _apply(np.linalg.inv(self.Hn), np.asarray(pts, dtype=np.float64).reshape(-1, 2))
        with np.errstate(over="ignore", invalid="ignore"):
            return _distort(u, self.k1, self.k2) * n + c

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
    evidence = _Evidence(gray, cfg)
    first: Grid | None = None
    segs1 = _without_cloth(segs, evidence, cfg)
    found: list[Grid] = []  # the lattice of each pass
    try:
        first = _lattice_from_segments(segs1, evidence, (h, w), cfg)
        found.append(first)
        if first.debug["tiles"] >= cfg.weak_lattice:
            return first
    except TableNotFoundError as exc:
        exc.seen.setdefault("segments", segs / scale)
        error = exc
    # Blur (a shaking hand, a small photo) smears the seams below the segment
    # detector's threshold: when no lattice was found, or one that frames hardly a
    # tile, once more with coarser, more sensitive segments (the lattice framing
    # more tiles wins).
    segs2 = _without_cloth(_segments(gray, cfg, blurred=True), evidence, cfg)
    log.debug("%s; again with %d segments for a blurred photo",
              "a weak lattice" if first is not None else f"no lattice ({error})", len(segs2))
    try:
        second = _lattice_from_segments(segs2, evidence, (h, w), cfg)
        found.append(second)
        if first is None or second.debug["tiles"] > first.debug["tiles"]:
            first = second
    except TableNotFoundError:
        pass
    if cfg.line_pass and (first is None or first.debug["tiles"] < cfg.weak_lattice):
        # Seams the segment detector sees in pieces only (a striped cloth showing through
        # them as dashes, grain across them): once more on the line energy image, where
        # such a seam is one continuous line and a fine repeating pattern a flat area.
        segs3 = _without_cloth(_segments(_line_energy(gray, cfg), cfg), evidence, cfg)
        log.debug("%s; again with %d segments of the line energy image",
                  "a weak lattice" if first is not None else "no lattice", len(segs3))
        try:
            found.append(_lattice_from_segments(segs3, evidence, (h, w), cfg, guard=True))
        except TableNotFoundError:
            pass
        seen = [segs1, segs2, segs3]
        if cfg.chroma_pass and max((g.debug["tiles"] for g in found), default=0.0) < cfg.weak_lattice:
            # Seams as bright as the tiles beside them (a grey gap, a grey cloth showing
            # through it, between green and brown tiles) vanish in the grey image but not in
            # colour: once more on segments of the chroma image (:func:`_chroma`).
            segs4 = _without_cloth(_segments(_chroma(small), cfg), evidence, cfg)
            seen.append(segs4)
            log.debug("every lattice is weak; again with %d segments of the chroma image", len(segs4))
            try:
                found.append(_lattice_from_segments(segs4, evidence, (h, w), cfg))
            except TableNotFoundError:
                pass
        # Each pass scored its lattice on its own segments: on the seams of all the
        # passes, another pass's lattice must frame clearly more tiles than the one chosen.
        if len(found) > 1:
            every = np.concatenate(seen)
            q1, q2 = (every[:, :2] - evidence.c) / evidence.half, (every[:, 2:4] - evidence.c) / evidence.half
            scores = [_tile_score(g.Hn, g.k1, np.c_[_undistort(q1, g.k1, g.k2), _undistort(q2, g.k1, g.k2)],
                                  evidence, cfg) for g in found]
            log.debug("the lattices of the passes frame %s tiles on the seams of all passes",
                      ", ".join(f"{t:.2f}" for t in scores))
            best = int(np.argmax(scores))
            if first is None or scores[best] > cfg.line_margin * scores[next(
                    n for n, g in enumerate(found) if g is first)]:
                first = found[best]
            # Two passes finding the same lattice outvote a third.
            middle = np.median(0.5 * (segs3[:, :2] + segs3[:, 2:4]), axis=0) / scale
            pairs = [(a, b) for a in range(len(found)) for b in range(a + 1, len(found))
                     if _same_lattice(found[a], found[b], middle)]
            if pairs and not any(first is found[n] for pair in pairs for n in pair):
                first = found[max((n for pair in pairs for n in pair), key=lambda n: scores[n])]
                log.debug("two passes found the same lattice: it is chosen")
        elif found:
            first = found[0]
    if first is None:
        raise error from None
    # The other passes' lattices go first among those the tile stage may check (recognise.check_lattice),
    # and ``passes`` says how many they are.
    passes = [(g.Hn, g.k1, g.k2) for g in found if g is not first]
    first.debug["alternatives"] = passes + list(first.debug.get("alternatives", []))
    first.debug["passes"] = len(passes)
    return first


def fit_to_seams(rgb: np.ndarray, start: Grid, cells: np.ndarray, cfg: GridConfig | None = None) -> Grid:
    """Fit a lattice chosen by other evidence than the seams (the tiles') to the photo's seams.

    The lattice and the lens (``k1``, ``k2``) are refined as :func:`find_grid`
    refines the lattice it chooses (:func:`_fit`, grown from the middle of
    ``cells``), on the straight seams of the photo less a cloth's repeating
    ones.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB, the pixels ``start`` maps.
    start : Grid
        The lattice to refine, north up.
    cells : (N, 2) ndarray
        Lattice cells that hold tiles (the board), tile units.
    cfg : GridConfig, optional

    Returns
    -------
    Grid
        The refined lattice (north up), or ``start`` when the fit would move
        the board's cells far (``_close``) or too few seams were found.
    """
    cfg = cfg or GridConfig()
    h, w = rgb.shape[:2]
    if len(cells) == 0:
        return start
    scale = min(1.0, cfg.work_side / max(h, w))
    small = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else rgb
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    evidence = _Evidence(gray, cfg)
    segs = _without_cloth(_segments(gray, cfg), evidence, cfg)
    if len(segs) < 2 * cfg.min_family_segments:
        return start
    hs, ws = evidence.hs, evidence.ws
    half = 0.5 * np.hypot(ws, hs)
    q1 = (segs[:, :2] - [ws / 2, hs / 2]) / half
    q2 = (segs[:, 2:4] - [ws / 2, hs / 2]) / half
    middle = np.median(np.asarray(cells, np.float64), axis=0) + 0.5
    Hn, k1, k2, _ = _fit(start.Hn, start.k1, q1, q2, half, cfg, middle)
    probe = _distort(_apply(np.linalg.inv(start.Hn), np.asarray(cells, np.float64) + 0.5), start.k1, start.k2)
    if not _close((start.Hn, start.k1, start.k2), (Hn, k1, k2), probe):
        return start
    grid = Grid(Hn, (h, w), k1, start.support, start.segments, dict(start.debug), k2)
    grid.Hn = _north_up(grid)
    return grid


def _lattice_from_segments(segs: np.ndarray, evidence: "_Evidence", shape: tuple[int, int],
                           cfg: GridConfig, guard: bool = False) -> Grid:
    # ``guard`` (seams seen in pieces, whose lines look partly empty): the lattice chosen is
    # made coarser by settling it on the seams (:func:`_settle`), fitted, and settled again
    # after the fit, each only where that frames no fewer tiles; its least tile score is
    # ``line_min_framed``.
    h, w = shape
    if len(segs) < 2 * cfg.min_family_segments:
        raise TableNotFoundError(
            f"found only {len(segs)} straight edges in the photo: no tile grid visible; "
            "photograph the tiles from closer, with more light and less blur"
        )
    # Normalised coordinates: centre at 0, unit = half the diagonal.
    hs, ws = evidence.hs, evidence.ws
    half = 0.5 * np.hypot(ws, hs)
    q1 = (segs[:, :2] - [ws / 2, hs / 2]) / half
    q2 = (segs[:, 2:4] - [ws / 2, hs / 2]) / half
    # Lens distortion bends the seams: the lattice search runs for a few values of
    # k1 and the lattice that frames the most tiles wins.  A checked table cloth is
    # a lattice too, often framing far more squares than there are tiles: when the
    # lattice framing most cells is such a repeating pattern, the segments on its
    # lines are set aside and the search runs again (a pass that finds nothing
    # leaves the previous pass's candidates).
    keep = np.ones(len(q1), bool)
    pool: list[tuple] = []
    for attempt in range(cfg.pattern_passes + 1):
        cands = []
        seeds = None
        # The families are searched for at the middle distortion and re-fitted at the others.
        order = sorted(range(len(cfg.k1_candidates)), key=lambda i: abs(i - (len(cfg.k1_candidates) - 1) / 2))
        for n in order:
            k1 = cfg.k1_candidates[n]
            p1, p2 = _undistort(q1[keep], k1), _undistort(q2[keep], k1)
            found, fams = _candidates(p1, p2, cfg, seeds)
            seeds = seeds or fams
            log.debug("k1 %.3f: %d candidates, best lattice frames %.2f", k1, len(found),
                      max((c[1] for c in found), default=0.0))
            # A slightly better frame count does not buy more lens distortion.
            cands += [(H, score * (1 - 0.05 * n), k1, np.c_[p1, p2], keep) for H, score in found]
        cands.sort(key=lambda c: -c[1])
        pool = cands[:cfg.rescore] or pool
        if not cands or attempt == cfg.pattern_passes or not _is_pattern(cands[0], evidence, cfg):
            break
        H, _, k1 = cands[0][:3]
        on = _on_lattice(H, _undistort(q1, k1), _undistort(q2, k1), cfg.pattern_tol)
        if (keep & ~on).sum() < 2 * cfg.min_family_segments:
            break
        log.debug("the lattice framing most cells is a repeating pattern: %d segments set aside", (on & keep).sum())
        keep = keep & ~on
    best = _choose(pool, evidence, cfg)
    if best is None or best[1] < (cfg.line_min_framed if guard else cfg.min_framed_cells):
        raise TableNotFoundError(
            "no regular tile grid found (no cells framed by seams); take the photo closer, "
            "more from above (less tilt) and with more light"
        )
    H0, score, k1_0, usegs0, keep = best
    # Other lattices the seams allow, most seams framed first, one of each (the same lattice at
    # another k1 is not another), for the tile stage to check (recognise.check_lattice).
    middle = np.array([w / 2, h / 2], dtype=np.float64)
    others: list[Grid] = [Grid(H0, (h, w), k1_0)]
    for c in pool:
        if len(others) > cfg.alternatives:
            break
        g = Grid(c[0], (h, w), c[2])
        if not any(_same_lattice(g, o, middle) for o in others):
            others.append(g)
    # A lattice chosen framing tiles well keeps its period where halving or rescaling it would
    # frame far fewer (_settle); one framing few (blurred seams seen in parts, where a lattice of
    # 2 x 2 tiles may frame more than the tiles) says too little for that.
    hold = score >= cfg.weak_lattice
    Hs = _settle(H0, usegs0, cfg, (lambda H: _tile_score(H, k1_0, usegs0, evidence, cfg)) if hold else None)
    if not guard or not _coarser(Hs, H0) or _tile_score(Hs, k1_0, usegs0, evidence, cfg) >= score:
        H0 = Hs
    else:
        log.debug("settling the lattice on the seams would frame fewer tiles: kept as chosen")
    q1, q2 = q1[keep], q2[keep]
    # The board: the cells the lattice frames (or, failing that, all its seams).
    out: list = []
    _framed_cells(H0, usegs0, 2 * cfg.snap_tol, cells_out=out)
    board = out[0] + 0.5 if out and len(out[0]) else None
    Hn, k1, k2, _ = _fit(H0, k1_0, q1, q2, half, cfg, None if board is None else np.median(board, axis=0))
    probe = np.r_[q1, q2] if board is None else _distort(_apply(np.linalg.inv(H0), board), k1_0)
    if not _close((H0, k1_0, 0.0), (Hn, k1, k2), probe):
        log.debug("the least-squares fit moved the lattice too far: kept the lattice found")
        Hn, k1, k2 = H0, k1_0, 0.0
    usegs = np.c_[_undistort(q1, k1, k2), _undistort(q2, k1, k2)]
    if guard and _tile_score(Hn, k1, usegs, evidence, cfg) < _tile_score(H0, k1_0, usegs0, evidence, cfg):
        log.debug("the least-squares fit frames fewer tiles: kept the lattice found")
        Hn, k1, k2, usegs = H0, k1_0, 0.0, usegs0
    # Settled once more on the fitted lattice: a lattice of half the tile size a
    # little off the seams before the fit misses them on its own lines and looks
    # balanced; on the seams it shows its empty tile middles.
    Hs = _settle(Hn, usegs, cfg, (lambda H: _tile_score(H, k1, usegs, evidence, cfg)) if hold else None)
    if guard and not np.allclose(Hs, Hn) and _tile_score(Hs, k1, usegs, evidence, cfg) < _tile_score(
            Hn, k1, usegs, evidence, cfg):
        Hs = Hn
    if not np.allclose(Hs, Hn):
        log.debug("the fitted lattice settled again (moved, or its period halved or doubled)")
        Hn = Hs
    support, used = _support(Hn, usegs, cfg)
    framed = _framed_cells(Hn, usegs, cfg.snap_tol)
    log.debug("grid: k1 %.3f k2 %.3f, %.2f tiles framed before the fit, %.2f cells after; seam support %.2f",
              k1, k2, score, framed, support)
    # The working copy and the photo share normalised coordinates (same centre and
    # half-diagonal, up to rounding of the resize), so Hn serves both.
    grid = Grid(Hn, (h, w), k1, support, used, {"framed_cells": framed, "tiles": score}, k2)
    if support < cfg.min_seam_support:
        exc = TableNotFoundError(
            f"the lattice found is weak (only {support:.0%} of grid lines backed by seams); "
            "take the photo from closer, with more light and less tilt"
        )
        exc.seen["grid"] = grid
        raise exc
    grid.Hn = _north_up(grid)
    grid.debug["start"] = (_north_up(Grid(H0, (h, w), k1_0)), k1_0)
    grid.debug["alternatives"] = [(_north_up(g), g.k1, 0.0) for g in others[1:]]
    return grid


def _same_lattice(a: Grid, b: Grid, middle: np.ndarray, reach: int = 1) -> bool:
    """Whether two grids put the same cells round photo pixel ``middle`` (2,): the centre of each
    of the ``2 reach + 1`` squared cells of either round it lies within a quarter tile of a cell centre
    of the other (up to whole cells and quarter turns)."""
    for g, other in ((a, b), (b, a)):
        lat = g.to_lattice(middle[None, :])
        if not np.all(np.isfinite(lat)):
            return False
        k = np.arange(-reach, reach + 1)
        cells = np.floor(lat) + np.stack(np.meshgrid(k, k), axis=-1).reshape(-1, 2) + 0.5
        there = other.to_lattice(g.to_photo(cells))
        if not np.all(np.isfinite(there)) or np.abs(there - np.floor(there) - 0.5).max() >= 0.25:
            return False
    return True


def _coarser(Hs: np.ndarray, H: np.ndarray) -> bool:
    """Whether ``Hs`` (``S @ H``, ``S`` an affine map of the lattice, :func:`_settle`) has larger cells than ``H``."""
    return bool(abs(np.linalg.det(Hs)) < 0.9 * abs(np.linalg.det(H)))


def _choose(cands: list, evidence: "_Evidence", cfg: GridConfig) -> tuple | None:
    """The candidate ``(H, score, k1, segments, mask)`` that frames the most tiles (:func:`_tile_score`).

    On a board of a few tiles every framed cell counts fully, and a lattice of
    half the tile size may frame as many cells as the tiles: of candidates that
    frame the same number of tiles, the one with the largest cells in the photo
    wins (:func:`_cell_area`).
    """
    scored = [(H, _tile_score(H, k1, usegs, evidence, cfg), k1, usegs, mask) for H, _, k1, usegs, mask in cands]
    if not scored:
        return None
    top = max(c[1] for c in scored)
    ties = [c for c in scored if c[1] >= top - 1e-9 * max(top, 1.0)]
    if len(ties) > 1 and top > 0:
        return max(ties, key=lambda c: _cell_area(c[0], c[3], cfg))
    return ties[0]


def _cell_area(H: np.ndarray, usegs: np.ndarray, cfg: GridConfig) -> float:
    """Median area of the cells a lattice frames (:func:`_framed_cells`), in the photo (normalised units squared)."""
    out: list = []
    _framed_cells(H, usegs, 2 * cfg.snap_tol, cells_out=out)
    if not out or not len(out[0]):
        return 0.0
    corners = out[0][:, None, :] + np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)[None]
    p = _apply(np.linalg.inv(H), corners.reshape(-1, 2)).reshape(-1, 4, 2)
    x, y = p[..., 0], p[..., 1]
    area = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
    return float(np.median(area))


def _is_pattern(cand: tuple, evidence: "_Evidence", cfg: GridConfig) -> bool:
    """Whether a candidate lattice frames a repeating pattern (a checked cloth) rather than tiles."""
    H, _, k1, usegs = cand[:4]
    out: list = []
    _framed_cells(H, usegs, 2 * cfg.snap_tol, cells_out=out)
    if not out or len(out[0]) < cfg.pattern_min_cells or len(out[0]) > cfg.max_scored_cells:
        return False
    return bool(np.median(evidence.tileness(H, k1, out[0], cfg.pattern_rank)) < cfg.pattern_tileness)


def _on_lattice(H: np.ndarray, p1: np.ndarray, p2: np.ndarray, tol: float) -> np.ndarray:
    """Segments (undistorted ends ``p1``, ``p2``) lying along a line of the lattice ``H``."""
    a = _apply(H, p1)
    b = _apply(H, p2)
    d = np.abs(b - a)
    on = np.zeros(len(p1), bool)
    for across, along in ((0, 1), (1, 0)):
        k = np.round(0.5 * (a[:, across] + b[:, across]))
        on |= ((d[:, along] > 8 * d[:, across]) & (np.abs(a[:, across] - k) < tol)
               & (np.abs(b[:, across] - k) < tol))
    return on


def _tile_score(H: np.ndarray, k1: float, usegs: np.ndarray, evidence: "_Evidence", cfg: GridConfig) -> float:
    """How many tiles a lattice frames.

    ``t * t / n2 * min(1, balance / min_parity_balance) ** 2``: ``t`` sums the
    tileness (:meth:`_Evidence.tileness`) of the cells framed on all four sides
    (:func:`_framed_cells`), so that the squares of a checked cloth, framed by
    seams as well as tiles are, count little; ``t / n2`` is the share of the
    cells with two framed sides or more that look like framed tiles; the
    parity balance (:func:`_parity_balance`) falls for half the tile size.
    """
    out: list = []
    _framed_cells(H, usegs, 2 * cfg.snap_tol, cells_out=out)
    cells, n2 = out if out else (np.zeros((0, 2)), 0)
    if not n2 or len(cells) > cfg.max_scored_cells:
        return 0.0
    t = evidence.tileness(H, k1, cells).sum()
    bal = _parity_balance(H, usegs, cfg.snap_tol)
    score = t * t / n2 * min(1.0, bal / cfg.min_parity_balance) ** 2
    log.debug("lattice: %d framed cells look like %.1f tiles, %d with 2 seams or more, parity balance %.2f: %.2f",
              len(cells), t, n2, bal, score)
    return float(score)


def _line_cover(H: np.ndarray, segs: np.ndarray, tol: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seam coverage of every lattice line, for lines ``u = k`` and lines ``v = k``.

    Returns, per family, the line numbers ``k`` (consecutive, from the lowest to
    the highest line with a seam) and the length of each covered by segments
    within ``tol`` of it, in tenths of a tile (overlaps counted once).
    """
    a = _apply(H, segs[:, :2])
    b = _apply(H, segs[:, 2:4])
    out = []
    finite = bool(np.all(np.isfinite(a)) and np.all(np.isfinite(b)))
    for along, across in ((1, 0), (0, 1)):
        empty = (np.zeros(0, np.int64), np.zeros(0))
        if not finite:
            out.append(empty)
            continue
        lo_ = np.minimum(a[:, along], b[:, along])
        hi_ = np.maximum(a[:, along], b[:, along])
        k = np.round(0.5 * (a[:, across] + b[:, across]))
        ok = ((hi_ - lo_) > 3 * np.abs(a[:, across] - b[:, across])) & (hi_ - lo_ < 50)
        ok &= (np.abs(a[:, across] - k) < tol) & (np.abs(b[:, across] - k) < tol) & (np.abs(k) < 10_000)
        if not ok.any():
            out.append(empty)
            continue
        f = np.floor(lo_[ok] * 10).astype(np.int64)
        n = np.ceil(hi_[ok] * 10).astype(np.int64) - f
        rep = np.repeat(np.arange(len(n)), n)
        bins = f[rep] + (np.arange(len(rep)) - np.repeat(np.cumsum(n) - n, n))
        kk = k[ok][rep].astype(np.int64)
        uniq = np.unique((kk + 50_000) * 10_000_000 + (bins + 5_000_000))
        ks, cov = np.unique(uniq // 10_000_000 - 50_000, return_counts=True)
        full = np.zeros(ks.max() - ks.min() + 1)
        full[ks - ks.min()] = cov
        out.append((np.arange(ks.min(), ks.max() + 1), full))
    return out


def _parity(H: np.ndarray, segs: np.ndarray, tol: float) -> np.ndarray:
    """(2, 2): mean seam coverage of the even and the odd lines, for each family (:func:`_line_cover`)."""
    out = np.zeros((2, 2))
    for f, (ks, cov) in enumerate(_line_cover(H, segs, tol)):
        if not len(ks):
            continue
        # The board's span: lines between 5% and 95% of the coverage (a table edge or a
        # box far off does not count).
        c = np.cumsum(cov) / cov.sum()
        inside = (c >= 0.05) & (np.r_[0.0, c[:-1]] <= 0.95)
        for par in (0, 1):
            sel = inside & ((ks % 2) == par)
            out[f, par] = cov[sel].mean() if sel.any() else 0.0
    return out


def _parity_balance(H: np.ndarray, segs: np.ndarray, tol: float) -> float:
    """How evenly the seams cover the even and the odd lattice lines (0-1, the worse family).

    On the tile lattice every line between tiles is a seam along the whole
    board.  Half the tile size puts every other line through the middle of the
    tiles, where only a road or a city wall here and there runs along it: one
    parity of lines is then covered much less than the other.
    """
    par = _parity(H, segs, tol)
    return float(min(par[f].min() / max(par[f].max(), 1e-9) for f in (0, 1)))


def _settle(H: np.ndarray, segs: np.ndarray, cfg: GridConfig,
            tiles: Callable[[np.ndarray], float] | None = None) -> np.ndarray:
    """Put the lattice's lines on the seams and its period at one tile.

    Seams inside the tiles (roads, rivers, city walls) can pull the period
    search to half the tile size, or the phase half a tile off, and faint seams
    let a lattice of 2 x 2 tiles frame more cells than the tile lattice.  The
    seam coverage (:func:`_parity`) of the lattice's lines against the lines
    half a cell off decides, family by family: when the lines half a cell off
    carry more seams, the lattice moves by half a cell; when every other line
    of the lattice carries few seams, the period is doubled, onto the better
    covered lines; when the lines half a cell off carry nearly as many seams as
    the lattice's own, the period is halved; otherwise a lattice of 3/2, 2/3, 3
    or 1/3 times the period may explain the seams better (:func:`_rescale`,
    with ``rescale_periods``).

    ``tiles``, when given (a lattice chosen framing ``weak_lattice`` tiles or
    more), says how many tiles a lattice frames (:func:`_tile_score`): the
    period is halved or rescaled only where the lattice that makes frames at
    least ``settle_keep`` of the tiles the lattice does.  Rails or a road
    through the middles of the tiles of a small board cover the lines half a
    cell off nearly as well as the seams do (its quarter tiles are framed on
    two sides only), and its outline lies on every third line of some lattice
    (whose cells frame no tile).
    """
    tol = cfg.snap_tol

    def kept(Hnew: np.ndarray, what: str) -> bool:
        """Whether a lattice of another period frames enough of the tiles the lattice does."""
        if tiles is None:
            return True
        new, now = tiles(Hnew), tiles(H)
        if new >= cfg.settle_keep * now:
            return True
        log.debug("%s the period would frame fewer tiles (%.2f, not %.2f): kept", what, new, now)
        return False

    for _ in range(6 if cfg.rescale_periods else 4):
        # Family 0: lines u = k, family 1: lines v = k; even lines of the halved
        # lattice are the lattice's own lines, odd ones lie half a cell off.
        half = _parity(np.diag([2.0, 2.0, 1.0]) @ H, segs, tol)
        if half.max() == 0:
            return H
        shift = half[:, 1] > cfg.shift_ratio * half[:, 0]
        if shift.any():  # the seams lie half a cell off
            H = np.array([[1, 0, -0.5 * shift[0]], [0, 1, -0.5 * shift[1]], [0, 0, 1]]) @ H
            continue
        par = _parity(H, segs, tol)
        seen = par.max(axis=1) > 0
        bal = par.min(axis=1) / np.maximum(par.max(axis=1), 1e-9)
        if seen.any() and bal[seen].mean() < cfg.min_parity_balance:  # every other line is a tile's middle
            off = (par[:, 1] > par[:, 0]).astype(float)
            H = np.array([[0.5, 0, -off[0] / 2], [0, 0.5, -off[1] / 2], [0, 0, 1]]) @ H
            continue
        mid = half[:, 1] / np.maximum(half[:, 0], 1e-9)
        if seen.any() and mid[seen].min() >= cfg.halve_ratio:  # the lines between are seams too
            Hh = np.diag([2.0, 2.0, 1.0]) @ H
            if kept(Hh, "halving"):
                H = Hh
                continue
        if cfg.rescale_periods:
            Hr = _rescale(H, segs, cfg)
            if Hr is not None and kept(Hr, "rescaling"):
                # a period of 2/3, 3/2, 1/3 or 3 times the lattice's fits the seams
                H = Hr
                continue
        break
    return H


#: Trial periods (lattice cells) of :func:`_rescale`, coarsest first, the phases tried, and for a coarser
#: one the seams its lines explain over those the lattice's own lines do when it is the tile lattice (every
#: seam on its lines: a lattice of a third of it explains them too; of two thirds, every other one).
_PERIODS = ((3.0, (0.0, 0.5, 1.0, 1.5, 2.0, 2.5), 1.0), (1.5, (0.0, 0.5, 1.0), 2.0), (1.0, (0.0,), 1.0),
            (2 / 3, (0.0, 1 / 3), 0.0), (1 / 3, (0.0,), 0.0))


def _explained(H: np.ndarray, segs: np.ndarray, tol: float) -> np.ndarray:
    """(2,): length of the segments lying along lines ``u = k``, and along lines ``v = k``, of a lattice, its cells.

    A segment lies along a line when both its ends are within ``tol`` (cells)
    of it and it runs along it (more than 3 times as long as it runs across).
    """
    a = _apply(H, segs[:, :2])
    b = _apply(H, segs[:, 2:4])
    out = np.zeros(2)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return out
    for f, (along, across) in enumerate(((1, 0), (0, 1))):
        length = np.abs(b[:, along] - a[:, along])
        k = np.round(0.5 * (a[:, across] + b[:, across]))
        ok = (length > 3 * np.abs(a[:, across] - b[:, across])) & (length < 50)
        ok &= (np.abs(a[:, across] - k) < tol) & (np.abs(b[:, across] - k) < tol)
        out[f] = length[ok].sum()
    return out


def _rescale(H: np.ndarray, segs: np.ndarray, cfg: GridConfig) -> np.ndarray | None:
    """A lattice of another period on the seams: ``P`` times the period, or None to keep ``H``.

    The period search can settle on a period of 2/3 or 3/2 of the tile size (a
    road or river a third of the way into the tiles, a board of few lines, a
    blurred photo whose seams show in parts), and halving or doubling
    (:func:`_settle`) alone never reaches the tile size from there.  Each
    trial period ``P`` (3, 3/2, 1, 2/3, 1/3 cells, with the phases that put its
    lines on the lattice's lines or half-lines; each family its best phase)
    scores by the seam length along its lines (:func:`_explained`, within
    ``snap_tol`` cells, or ``snap_tol`` of its own period when finer): a
    lattice finer than the tiles explains the seams but no more than the tile
    lattice does, one coarser explains only a part (every other or every third
    seam line).  The coarsest trial period explaining
    ``rescale_fine`` of the most any explains wins; a coarser one must also
    explain ``rescale_gain`` of the share of the lattice's own seams it would
    explain were it the tile lattice (a small board's outline lies on every
    third line of some lattice; a lattice off the seams far from the middle of
    the board explains less than the tiles' seams).

    Parameters
    ----------
    H : (3, 3) float64 ndarray
        Undistorted normalised coordinates -> lattice.
    segs : (N, 4) float64 ndarray
        Segment ends, undistorted normalised coordinates.

    Returns
    -------
    (3, 3) float64 ndarray or None
        The rescaled lattice (one cell = ``P`` cells of ``H``), None when ``H`` stays.
    """
    trials = []
    for P, phases, gain in _PERIODS:
        best, ph = np.full(2, -1.0), np.zeros(2)
        for phi in phases:
            S = np.array([[1 / P, 0, -phi / P], [0, 1 / P, -phi / P], [0, 0, 1]])
            e = _explained(S @ H, segs, cfg.snap_tol * min(P, 1.0) / P) * P
            better = e > best
            best[better], ph[better] = e[better], phi
        trials.append((P, ph, float(best.sum()), gain))
    top = max(t[2] for t in trials)
    if top <= 0:
        return None
    own = next(t[2] for t in trials if t[0] == 1.0)
    P, ph, e, _ = next(t for t in trials
                       if t[2] >= cfg.rescale_fine * top and t[2] >= cfg.rescale_gain * t[3] * own)
    if P == 1.0:
        return None
    log.debug("seams along the lattice's lines %.1f, along a lattice of %.2f its period %.1f: rescaled", own, P, e)
    return np.array([[1 / P, 0, -ph[0] / P], [0, 1 / P, -ph[1] / P], [0, 0, 1]]) @ H


def _candidates(p1: np.ndarray, p2: np.ndarray, cfg: GridConfig, seeds: list[np.ndarray] | None = None
                ) -> tuple[list[tuple[np.ndarray, float]], list[np.ndarray]]:
    """Candidate lattice homographies (undistorted normalised coords -> tile units), each with its framing score.

    Several candidate families (vanishing points) are found: tile seams, but also
    wood grain, cloth patterns or clutter.  Every pair that could be perpendicular
    on the table is tried with a few periods each.  With ``seeds`` (the families'
    segment masks found at another lens distortion), each family's vanishing
    point is re-fitted to those segments instead of searched for again.

    Returns
    -------
    (candidates, families)
        ``(H, frame score)`` pairs, and the segment mask of each family.
    """
    usegs = np.c_[p1, p2]
    if seeds is None:
        vps = _families(p1, p2, cfg, np.random.default_rng(0))
    else:
        wide = np.cos(np.radians(cfg.family_angle_deg))
        vps = []
        for mask in seeds:
            vp = _fit_vp(p1, p2, mask)
            if vp is not None:
                vps.append((vp, _vp_inliers(vp, p1, p2, wide)))
    out = []
    tol = 2 * cfg.snap_tol
    for a in range(len(vps)):
        for b in range(a + 1, len(vps)):
            (vp1, in1), (vp2, in2) = vps[a], vps[b]
            if _perpendicularity(vp1, vp2) > cfg.max_cos:
                continue
            for H in _rectify(vp1, vp2, p1, p2, in1, in2, cfg):
                out.append((H, _framed_cells(H, usegs, tol)))
    return out, [m for _, m in vps]


def _fit_vp(p1: np.ndarray, p2: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """Least-squares vanishing point of the segments in ``mask`` (weighted by length)."""
    if mask.sum() < 2:
        return None
    L = np.cross(np.c_[p1[mask], np.ones(mask.sum())], np.c_[p2[mask], np.ones(mask.sum())])
    L /= np.linalg.norm(L[:, :2], axis=1, keepdims=True) + 1e-12
    length = np.linalg.norm(p2[mask] - p1[mask], axis=1)
    _, _, vt = np.linalg.svd(L * length[:, None], full_matrices=False)
    return vt[-1] / np.linalg.norm(vt[-1])


def _families(p1: np.ndarray, p2: np.ndarray, cfg: GridConfig, rng: np.random.Generator
              ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Up to ``max_families`` distinct vanishing points, each with its segments (boolean mask).

    Wood grain or a cloth's pattern can take every one of them but one seam
    direction (a long board one tile wide shows few seams across it): while no
    two of the families found can be perpendicular on the table
    (:func:`_perpendicularity`, ``max_cos``), more are searched for, up to
    ``max_families_unpaired``.
    """
    vps: list[tuple[np.ndarray, np.ndarray]] = []
    allowed = np.ones(len(p1), bool)
    wide = np.cos(np.radians(cfg.family_angle_deg))
    most = max(cfg.max_families, cfg.max_families_unpaired)
    paired = False
    for _ in range(most + 2):
        vp, inl = _vanishing_point(p1, p2, allowed, cfg, rng)
        if vp is None:
            break
        allowed &= ~inl
        # Every segment pointing at the vanishing point (within a wider angle) belongs to
        # the family, also those another family's RANSAC took first.
        family = _vp_inliers(vp, p1, p2, wide)
        if any(_same_family(vp, other, p1, p2) for other, _ in vps):
            continue
        paired = paired or any(_perpendicularity(vp, other) <= cfg.max_cos for other, _ in vps)
        vps.append((vp, family))
        if len(vps) >= most or (len(vps) >= cfg.max_families and paired):
            break
    return vps


def _distort(u: np.ndarray, k1: float, k2: float = 0.0) -> np.ndarray:
    """Inverse of :func:`_undistort`: the radius solved by Newton's method (undistorted radius <= 2)."""
    if not (k1 or k2):
        return u
    ru = np.linalg.norm(u, axis=1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        # Start above the root, as near as each term alone bounds it (then Newton's
        # steps on this convex, increasing function come down to it monotonically).
        r = ru.copy()
        if k1 > 0:
            r = np.minimum(r, np.cbrt(ru / k1))
        if k2 > 0:
            r = np.minimum(r, (ru / k2) ** 0.2)
        for _ in range(8):
            r2 = r * r
            f = r * (1 + k1 * r2 + k2 * r2 * r2) - ru
            r = np.maximum(r - f / np.maximum(1 + 3 * k1 * r2 + 5 * k2 * r2 * r2, 0.2), 0.0)
        return u * np.where(ru > 0, r / np.maximum(ru, 1e-300), 1.0)


def _undistort(q: np.ndarray, k1: float, k2: float = 0.0) -> np.ndarray:
    """Undistorted normalised coordinates: ``q (1 + k1 |q|^2 + k2 |q|^4)``."""
    if not (k1 or k2):
        return q
    r2 = np.sum(q * q, axis=1, keepdims=True)
    return q * (1 + k1 * r2 + k2 * r2 * r2)


# ------------------------------------------------------------------ stages


def _segments(gray: np.ndarray, cfg: GridConfig, *, blurred: bool = False) -> np.ndarray:
    """Line segments (N, 4) float64, working-image pixels ``x1, y1, x2, y2`` (LSD).

    ``blurred``: the detector works at ``blur_lsd_scale`` of the image with a
    lower gradient threshold (``blur_lsd_quant``), for seams smeared by blur.
    """
    # Local contrast equalisation brings out faint seams in shade and on pale tiles.
    if cfg.clahe:
        gray = cv2.createCLAHE(clipLimit=cfg.clahe, tileGridSize=(8, 8)).apply(gray)
    if blurred:
        lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD, scale=cfg.blur_lsd_scale, quant=cfg.blur_lsd_quant)
    else:
        lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    lines = lsd.detect(gray)[0]
    if lines is None:
        return np.zeros((0, 4))
    s = lines.reshape(-1, 4).astype(np.float64)
    length = np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1])
    keep = length > cfg.min_segment * np.hypot(*gray.shape)
    return s[keep]


def _line_energy(gray: np.ndarray, cfg: GridConfig) -> np.ndarray:
    """Line energy image (H, W) uint8: how strongly a thin line runs through each pixel, any contrast.

    The Hessian ``Hs`` of the grey image (second derivatives at scale
    ``line_sigma`` pixels) is ``lambda n n^T`` on a thin line of normal ``n``,
    ``lambda`` positive on a dark line and negative on a bright one; its square
    ``Hs Hs`` is ``lambda^2 n n^T`` for both.  Averaged over ``line_smooth``
    pixels (like a structure tensor, Forstner and Gulch 1987; Bigun and Granlund
    1987), a seam whose gap shows a striped cloth as dark and bright dashes
    becomes one line of one orientation, and a pattern finer than the averaging
    scale an evenly bright area without edges; the image is the square root of
    the averaged tensor's anisotropy (half its eigenvalue difference), scaled
    so that its 99.5th percentile is 255.

    Parameters
    ----------
    gray : (H, W) uint8 ndarray
        The working grey image.
    """
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), cfg.line_sigma)
    xx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    yy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    xy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    a, b, c = (cv2.GaussianBlur(t, (0, 0), cfg.line_smooth) for t in (xx * xx + xy * xy, xy * (xx + yy),
                                                                      yy * yy + xy * xy))
    return _to_byte(np.sqrt(np.sqrt(0.25 * (a - c) ** 2 + b * b)))


def _chroma(rgb: np.ndarray) -> np.ndarray:
    """Chroma image (H, W) uint8: how far each pixel's colour is from grey, whatever its brightness.

    The distance from the grey axis in CIELAB, ``sqrt(a*^2 + b*^2)`` (OpenCV's
    8-bit Lab), scaled so that its 99.5th percentile is 255.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The working copy of the photo, RGB.
    """
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    return _to_byte(np.hypot(lab[..., 1] - 128.0, lab[..., 2] - 128.0))


def _to_byte(x: np.ndarray) -> np.ndarray:
    """``x`` (H, W) float, non-negative, scaled so that its 99.5th percentile is 255 and clipped:
    (H, W) uint8 (the line energy and chroma images the segment detector reads)."""
    top = float(np.percentile(x, 99.5))
    return np.clip(x * (255.0 / max(top, 1e-6)), 0, 255).astype(np.uint8)


def _without_cloth(segs: np.ndarray, evidence: "_Evidence", cfg: GridConfig) -> np.ndarray:
    """The segments less those of a repeating pattern (:func:`_cloth_segments`)."""
    cloth = _cloth_segments(segs, evidence, cfg)
    if cloth.any():
        log.debug("%d of %d segments belong to a repeating pattern (a table cloth): set aside", cloth.sum(), len(segs))
    return segs[~cloth]


def _cloth_segments(segs: np.ndarray, evidence: "_Evidence", cfg: GridConfig) -> np.ndarray:
    """Segments of a repeating pattern (a checked or striped table cloth), boolean (N,).

    A cloth repeats: shifted by one period of its pattern, the neighbourhood of
    one of its edges looks the same.  A seam between tiles, shifted by the
    cloth's period, lands in a tile's art (tiles differ from each other, and the
    cloth's period is not the tile size).  The pattern's periods are found in
    windows of the photo (:meth:`_Evidence.cloth_windows`); each segment near a
    periodic window (within ``cloth_radius`` half windows) is compared with its
    copies one period away (both periods of the window, both ways): grey
    profiles across the segment (9 points a pixel apart, more for long periods,
    each profile's mean removed so that shading does not count) at 5 points
    along it, against the same at the copy, which is searched for within 8% of
    the period across the segment (perspective changes the period).  A mean
    absolute difference below ``cloth_match`` times the profiles' own mean
    absolute deviation makes the segment the cloth's.

    Parameters
    ----------
    segs : (N, 4) float64 ndarray
        Segments ``x1, y1, x2, y2``, working-image pixels.
    """
    n = len(segs)
    cloth = np.zeros(n, bool)
    windows = evidence.cloth_windows()
    if not n or not windows:
        return cloth
    a, b = segs[:, :2], segs[:, 2:4]
    mid = 0.5 * (a + b)
    d = b - a
    u = d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    nrm = np.c_[-u[:, 1], u[:, 0]]
    along = np.linspace(0.1, 0.9, 5)
    core, slack = 4, 4
    across = np.arange(-core - slack, core + slack + 1.0)  # the profile is the middle 9; its copy within +-slack
    base = (a[:, None, :] + d[:, None, :] * along[None, :, None]).astype(np.float32)  # (N, 5, 2)

    def profiles(idx: np.ndarray, unit: np.ndarray, shift: np.ndarray) -> np.ndarray:
        """(len(idx), 5, 17) grey levels across segments ``idx``, ``unit`` pixels apart, moved by ``shift`` (M, 2)."""
        step = (nrm[idx] * unit[:, None]).astype(np.float32)
        pts = (base[idx] + shift[:, None, :].astype(np.float32))[:, :, None, :] + (
            across.astype(np.float32)[None, :, None] * step[:, None, :])[:, None, :, :]
        return evidence.sample(evidence.g, pts.reshape(-1, 2)).reshape(len(idx), len(along), len(across))

    def centred(v: np.ndarray) -> np.ndarray:
        return v - v.mean(axis=-1, keepdims=True)

    ratio = np.full(n, np.inf)
    for centres, lags, reach in windows:
        # Each segment takes the periods of the nearest periodic window at each scale.
        todo = np.flatnonzero(ratio >= cfg.cloth_match)  # not yet the cloth's
        k, dist = _nearest(centres, mid[todo])
        sel, k = todo[dist <= reach], k[dist <= reach]
        for t in (lags[k, 0], lags[k, 1]):
            ok = np.isfinite(t).all(axis=1)
            t = np.where(ok[:, None], t, 0.0)
            # A shift along the segment says nothing: only periods with a part across it count.
            cross = np.abs(np.sum(nrm[sel] * t, axis=1))
            ok &= cross > 0.3 * np.linalg.norm(t, axis=1)
            if not ok.any():
                continue
            idx, t = sel[ok], t[ok]
            # Perspective changes the period across the photo: the copy is searched for
            # within 8% of the period across the segment (at least 1 pixel, at most 4 steps).
            unit = np.maximum(1.0, cross[ok] / 50)
            search = np.clip(np.round(0.08 * cross[ok] / unit), 1, slack)
            edge = centred(profiles(idx, unit, np.zeros_like(t))[:, :, slack:slack + 2 * core + 1])
            spread = np.abs(edge).mean(axis=(1, 2))
            for sign in (1.0, -1.0):
                copy = profiles(idx, unit, sign * t)
                diff = np.full(len(idx), np.inf)
                for j in range(2 * slack + 1):
                    near = np.abs(j - slack) <= search
                    if near.any():
                        dj = np.abs(centred(copy[near, :, j:j + 2 * core + 1]) - edge[near]).mean(axis=(1, 2))
                        diff[near] = np.minimum(diff[near], dj)
                ratio[idx] = np.minimum(ratio[idx], diff / np.maximum(spread, 1e-6))
    return ratio < cfg.cloth_match


def _nearest(centres: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the nearest of ``centres`` (M, 2) to each of ``pts`` (N, 2), and its distance."""
    d2 = ((pts[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    k = np.argmin(d2, axis=1)
    return k, np.sqrt(d2[np.arange(len(pts)), k])


def _periodic_windows(g: np.ndarray, cfg: GridConfig, step: int) -> tuple[np.ndarray, np.ndarray]:
    """Windows of a grey image that show a repeating pattern, with the pattern's periods.

    Windows ``cloth_window`` pixels wide, ``step`` apart; the autocorrelation
    ``A`` of each (mean removed, normalised by the overlap and the variance)
    is read at every integer shift ``t`` up to a third of the window.  A window
    repeats with period ``t`` when ``A(t)`` and ``A(2t)`` are both high and
    ``A(t/2)`` low, ``min(A(t), A(2t)) - max(A(t/2), 0) > cloth_periodicity``:
    a straight edge has a high ``A`` all along it (also half way), a board's
    tiles do not repeat.  The best period and the best one at least 37 degrees
    from it are refined to a fraction of a pixel (a parabola through the peak).

    Returns
    -------
    (centres, lags)
        ``(M, 2)`` window centres and ``(M, 2, 2)`` two periods ``(x, y)`` each
        (the second NaN when there is none), pixels of ``g``.
    """
    W = cfg.cloth_window
    h, w = g.shape
    ny, nx = (h - W) // step + 1, (w - W) // step + 1
    empty = np.zeros((0, 2)), np.zeros((0, 2, 2))
    if ny < 1 or nx < 1:
        return empty
    win = np.lib.stride_tricks.sliding_window_view(g, (W, W))[::step, ::step][:ny, :nx].reshape(-1, W, W)
    var = win.var(axis=(1, 2))
    live = np.flatnonzero(var > cfg.cloth_min_std ** 2)
    if not len(live):
        return empty
    p = win[live] - win[live].mean(axis=(1, 2), keepdims=True)
    var = var[live]
    N = W + 2 * (W // 3) + 2  # room for shifts up to twice a third of the window without wrapping round
    F = np.fft.rfft2(p, s=(N, N))
    ac = np.fft.irfft2(F.real ** 2 + F.imag ** 2, s=(N, N))
    lags = _lag_table(W)
    rows = np.arange(len(live))

    def corr_all(t: np.ndarray) -> np.ndarray:
        """(R, L): every window at every shift ``t`` (L, 2)."""
        overlap = (W - np.abs(t[:, 0])) * (W - np.abs(t[:, 1]))
        return ac[:, t[:, 0] % N, t[:, 1] % N] / (overlap * var[:, None])

    half = np.trunc(lags / 2).astype(np.int64)
    score = np.minimum(corr_all(lags), corr_all(2 * lags)) - np.maximum(corr_all(half), 0)
    good = score.max(axis=1) > cfg.cloth_periodicity
    if not good.any():
        return empty
    rows, score = rows[good], score[good]
    # Of the shifts nearly as good as the best, the shortest (a striped cloth repeats
    # one period across its stripes and anywhere along them).
    length = np.hypot(lags[:, 0], lags[:, 1])
    i1 = np.argmin(np.where(score >= score.max(axis=1, keepdims=True) - 0.1, length, np.inf), axis=1)
    ang = np.arctan2(lags[:, 0], lags[:, 1])
    other = np.where(np.abs(np.cos(ang[None, :] - ang[i1][:, None])) < 0.8, score, -np.inf)
    top2 = other.max(axis=1, keepdims=True)
    i2 = np.argmin(np.where(other >= top2 - 0.1, length, np.inf), axis=1)
    has2 = top2[:, 0] > cfg.cloth_periodicity

    def corr_each(t: np.ndarray, r: np.ndarray) -> np.ndarray:
        """(R,): window ``r[i]`` at shift ``t[i]``."""
        overlap = (W - np.abs(t[:, 0])) * (W - np.abs(t[:, 1]))
        return ac[r, t[:, 0] % N, t[:, 1] % N] / (overlap * var[r])

    def refine(t: np.ndarray) -> np.ndarray:
        out = t.astype(np.float64)
        for axis in (0, 1):
            e = np.zeros(2, int)
            e[axis] = 1
            lo, mid_, hi = (corr_each(t + k * e, rows) for k in (-1, 0, 1))
            den = lo - 2 * mid_ + hi
            with np.errstate(divide="ignore", invalid="ignore"):
                off = np.where(den < -1e-9, 0.5 * (lo - hi) / den, 0.0)
            out[:, axis] += np.clip(off, -0.5, 0.5)
        return out[:, ::-1]  # (dy, dx) -> (x, y)

    lag1 = refine(lags[i1])
    lag2 = np.where(has2[:, None], refine(lags[i2]), np.nan)
    j, i = np.divmod(live[rows], nx)
    centres = np.c_[i * step + W / 2, j * step + W / 2].astype(np.float64)
    return centres, np.stack([lag1, lag2], axis=1)


@functools.lru_cache(maxsize=8)
def _lag_table(W: int, min_lag: int = 3) -> np.ndarray:
    """Integer shifts ``(dy, dx)`` of one half-plane, ``min_lag`` to ``W // 3`` pixels (chessboard) long."""
    L = W // 3
    return np.array([(dy, dx) for dy in range(0, L + 1) for dx in range(-L, L + 1)
                     if (dy > 0 or dx > 0) and dy * dy + dx * dx >= min_lag * min_lag], dtype=np.int64)


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
    # Hypotheses are scored on a sample of the segments (the vote is by length).
    sub = idx if len(idx) <= cfg.vp_score_segments else rng.choice(idx, cfg.vp_score_segments, replace=False)
    mid = 0.5 * (p1[sub] + p2[sub])
    d = (p2[sub] - p1[sub]) / (length[sub, None] + 1e-12)
    # Direction from each segment midpoint to each hypothesis (homogeneous: works at infinity).
    tx = V[:, None, 0] - V[:, None, 2] * mid[None, :, 0]
    ty = V[:, None, 1] - V[:, None, 2] * mid[None, :, 1]
    dot = tx * d[None, :, 0] + ty * d[None, :, 1]
    score = (dot * dot > cos_tol**2 * (tx * tx + ty * ty)) @ length[sub]
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
    a, b = vp1 * _IAC_WEIGHTS * vp2, vp1 * _IAC_WEIGHTS * vp1  # (24, 3): every trial focal length at once
    c = vp2 * _IAC_WEIGHTS * vp2
    num = np.abs(a[:, 0] + a[:, 1] + a[:, 2])
    den = np.sqrt((b[:, 0] + b[:, 1] + b[:, 2]) * (c[:, 0] + c[:, 1] + c[:, 2])) + 1e-15
    return float(min(1.0, (num / den).min()))


#: Diagonals of the image of the absolute conic, ``(1/f^2, 1/f^2, 1)``, at the trial focal lengths of
#: :func:`_perpendicularity` (0.6 to 4 half image diagonals).
_IAC_WEIGHTS = np.array([[1 / f**2, 1 / f**2, 1.0] for f in np.geomspace(0.6, 4.0, 24)])


def _rectify(vp1, vp2, p1, p2, in1, in2, cfg: GridConfig) -> list[np.ndarray]:
    """Candidate homographies (normalised image -> lattice units) from two vanishing points.

    The vanishing line is sent to infinity and the two families made
    axis-parallel (Hartley & Zisserman §2.7); each family's seam positions then
    give a few candidate periods and phases.  Tiles are square, so only pairs of
    periods that make square cells for some plausible focal length are kept
    (:func:`_square_ratio`).
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
    lo_r, hi_r = _square_ratio(M, cfg)
    if lo_r is None:
        return []
    q1 = _apply(M, p1)
    q2 = _apply(M, p2)
    # Family 1 runs along u (direction e1): its lines are told apart by v; family 2 by u.
    mid = 0.5 * (q1 + q2)
    length = np.linalg.norm(p2 - p1, axis=1)
    vals_v, wts_v = mid[in1, 1], length[in1]
    vals_u, wts_u = mid[in2, 0], length[in2]
    table_v = _period_scores(vals_v, wts_v, cfg)
    table_u = _period_scores(vals_u, wts_u, cfg)
    cands_v = _periods(vals_v, wts_v, cfg, table_v)
    cands_u = _periods(vals_u, wts_u, cfg, table_u)
    pairs = [(v, u) for v in cands_v for u in cands_u if lo_r <= u[0] / v[0] <= hi_r]  # square tiles
    n_own = len(pairs)
    # A family with few seam lines (a board one or two tiles wide, a river's banks
    # between its seams, a score track or a table edge far off widening the span
    # the periods are judged on) may miss the tile size that the other family
    # shows clearly: each of a family's best periods (``band_periods``) without a
    # partner gets the other family's best period within the square cells' range.
    for cv in cands_v[:cfg.band_periods]:
        if not any(v == cv for v, _ in pairs):
            u = _band_period(vals_u, wts_u, table_u, (cv[0] * lo_r, cv[0] * hi_r))
            if u is not None:
                pairs.append((cv, u))
    for cu in cands_u[:cfg.band_periods]:
        if not any(u == cu for _, u in pairs):
            v = _band_period(vals_v, wts_v, table_v, (cu[0] / hi_r, cu[0] / lo_r))
            if v is not None:
                pairs.append((v, cu))
    out = []
    for n, ((pv, phv), (pu, phu)) in enumerate(pairs):
        if n >= n_own and any(_same_period((pv, phv), v) and _same_period((pu, phu), u) for v, u in pairs[:n]):
            continue  # offered already
        S = np.array([[1 / pu, 0, -phu / pu], [0, 1 / pv, -phv / pv], [0, 0, 1]])
        out.append(S @ M)
    return out


def _square_ratio(M: np.ndarray, cfg: GridConfig) -> tuple[float | None, float | None]:
    """The range of period ratios ``pu / pv`` that make the lattice cells square on the table.

    ``M`` maps normalised image coordinates to a frame where the two seam
    families run along the axes.  With the principal point at the image centre
    and focal length ``f`` (half image diagonals), the table directions of the
    axes are ``K^-1 m1`` and ``K^-1 m2`` (``m`` the columns of ``M^-1``,
    ``K = diag(f, f, 1)``); they must be perpendicular (which limits ``f``) and
    a cell ``pu`` by ``pv`` is square when ``pu |K^-1 m1| = pv |K^-1 m2|``
    (Hartley & Zisserman §8.6).  Returns (None, None) when no focal length makes
    the families perpendicular.
    """
    Mi = np.linalg.inv(M)
    m1, m2 = Mi[:, 0], Mi[:, 1]
    f = np.geomspace(cfg.focal_min, cfg.focal_max, 32)
    w = np.stack([1 / f**2, 1 / f**2, np.ones_like(f)], axis=1)  # (F, 3)
    n1 = (w * m1 * m1).sum(axis=1)
    n2 = (w * m2 * m2).sum(axis=1)
    cos = np.abs((w * m1 * m2).sum(axis=1)) / np.sqrt(n1 * n2 + 1e-300)
    if cos.min() > cfg.max_cos:
        return None, None
    ok = cos <= cos.min() + cfg.perp_slack
    ratio = np.sqrt(n2[ok] / n1[ok])
    return float(ratio.min() / cfg.square_tol), float(ratio.max() * cfg.square_tol)


def _periods(vals: np.ndarray, wts: np.ndarray, cfg: GridConfig, table: tuple | None = None
             ) -> list[tuple[float, float]]:
    """Candidate lattice periods and phases of seam positions ``vals`` (weights ``wts``), best first.

    A period scores by the seam length it explains (a triangular kernel of
    ``+-period_window / 48`` period around the best phase: tiles laid by hand
    stray by up to 0.08 tile) times the share of its lattice lines (within the
    seams' span) that carry any seam, times ``1 - 1 / n`` for ``n`` lines with
    seams: half the tile size explains as much but leaves every other line
    empty, double the tile size fills its lines but explains half, and any two
    clusters of seams fit some long period.  Trial periods are evenly spaced in
    frequency.  Half and double of the best period are offered too (the lattice
    score decides).  ``table``: the scores (:func:`_period_scores`) when
    computed already.
    """
    if table is None:
        table = _period_scores(vals, wts, cfg)
    if table is None:
        return []
    periods, score, phase, span = table
    order = np.argsort(-score)
    out: list[tuple[float, float]] = []
    for i in order:
        if score[i] < 0:
            break
        p = periods[i]
        if any(0.87 < p / q < 1.15 for q, _ in out):
            continue
        out.append((p, _fit_phase(vals, wts, p, phase[i])))
        if len(out) == cfg.period_candidates:
            break
    extra = []
    for p, phase0 in out[:1]:
        for q in (p / 2, 2 * p):
            if not span * cfg.period_min_frac / 1.5 <= q <= span:
                continue
            if any(0.87 < q / r < 1.15 for r, _ in out + extra):
                continue
            extra.append((q, _fit_phase(vals, wts, q, phase0)))
            if q > p:
                extra.append((q, _fit_phase(vals, wts, q, phase0 + p)))
    return out + extra


def _period_scores(vals: np.ndarray, wts: np.ndarray, cfg: GridConfig
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
    """Score of every trial period: (periods, scores, best phases, span of the seams)."""
    if len(vals) < 3:
        return None
    if len(vals) > cfg.period_segments:  # the longest seams say enough
        top = np.argsort(-wts)[:cfg.period_segments]
        vals, wts = vals[top], wts[top]
    lo, hi = np.percentile(vals, [2, 98])
    span = hi - lo
    if span <= 0:
        return None
    # Trial periods evenly spaced in frequency, so that the phase drifts by at most
    # about 2% of a period over the seams' span (the phase is referred to their middle).
    nu = np.linspace(1 / (span * cfg.period_max_frac), 1 / (span * cfg.period_min_frac), cfg.period_steps)
    periods = 1 / nu
    ref = 0.5 * (lo + hi)
    total = wts.sum()
    nb = 48
    rows = np.arange(len(periods))[:, None]
    ph = (vals[None, :] - ref) * nu[:, None]
    ph -= np.floor(ph)  # the phase, 0-1 (faster than np.mod)
    bins = np.minimum((ph * nb).astype(np.int64), nb - 1)
    hist = np.bincount((rows * nb + bins).ravel(), weights=np.broadcast_to(wts, bins.shape).ravel(),
                       minlength=len(periods) * nb).reshape(len(periods), nb)
    # Seams of tiles laid by hand stray by up to about 0.08 tile from the lattice line.
    win = hist.copy()
    for d in range(1, cfg.period_window + 1):
        win += (1 - d / (cfg.period_window + 1)) * (np.roll(hist, d, axis=1) + np.roll(hist, -d, axis=1))
    k = np.argmax(win, axis=1)
    explained = win[np.arange(len(periods)), k] / total
    phase = ref + (k + 0.5) / nb * periods
    first = np.ceil((lo - phase) / periods)
    n_lines = np.floor((hi - phase) / periods) - first + 1
    pos = (vals[None, :] - phase[:, None]) / periods[:, None]  # in periods from the first line
    idx = np.round(pos)
    near = np.abs(pos - idx) < cfg.period_near
    near &= (idx >= first[:, None]) & (idx < first[:, None] + n_lines[:, None])
    width = int(n_lines.max()) + 1
    occ = np.zeros((len(periods), width), bool)
    r_i, c_i = np.nonzero(near)
    occ.ravel()[r_i * width + (idx[r_i, c_i] - first[r_i]).astype(np.int64)] = True
    n_hit = occ.sum(axis=1)
    support = np.minimum(1.0, n_hit / np.maximum(n_lines, 1))
    # Any two clusters of seams fit some long period: a lattice is believed by the
    # number of its lines that carry seams.
    score = np.where(n_lines >= 2, explained * support * (1 - 1 / np.maximum(n_hit, 1)), -1.0)
    return periods, score, phase, span


def _same_period(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two (period, phase) pairs put the lines within 2% of a period of each other."""
    d = (a[1] - b[1]) / a[0]
    return abs(a[0] / b[0] - 1) < 0.02 and abs(d - round(d)) < 0.02


def _band_period(vals: np.ndarray, wts: np.ndarray, table: tuple | None, band: tuple[float, float]
                 ) -> tuple[float, float] | None:
    """The best period within ``band`` of a period table (:func:`_period_scores`) and its phase, or None."""
    if table is None:
        return None
    periods, score, phase, _ = table
    inside = np.flatnonzero((periods >= band[0]) & (periods <= band[1]) & (score > 0))
    if not len(inside):
        return None
    i = inside[int(np.argmax(score[inside]))]
    return float(periods[i]), _fit_phase(vals, wts, float(periods[i]), float(phase[i]))


def _fit_phase(vals: np.ndarray, wts: np.ndarray, p: float, phase: float) -> float:
    """Phase refined to the weighted circular mean of the seams near the lattice lines."""
    ang = 2 * np.pi * (vals - phase) / p
    near = np.cos(ang) > np.cos(2 * np.pi * 0.08)
    if near.any():
        c = np.sum(wts[near] * np.cos(ang[near]))
        sn = np.sum(wts[near] * np.sin(ang[near]))
        phase += np.arctan2(sn, c) / (2 * np.pi) * p
    return phase


class _Evidence:
    """The working grey image, for checking candidate lattices against what the photo shows."""

    def __init__(self, gray: np.ndarray, cfg: GridConfig):
        self.gray = gray
        self.g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)
        self._cloth: list | None = None
        self.hs, self.ws = gray.shape
        self.c = np.array([self.ws / 2, self.hs / 2])
        self.half = 0.5 * np.hypot(self.ws, self.hs)
        self.cfg = cfg

    def cloth_windows(self) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """Periodic windows (:func:`_periodic_windows`) at each of ``cloth_scales``, in working-image pixels.

        One ``(centres (M, 2), periods (M, 2, 2), reach)`` per scale with any,
        ``reach`` the distance within which a segment takes a window's periods;
        computed once.
        """
        if self._cloth is None:
            self._cloth = []
            small = self.gray.astype(np.float32)
            for scale, step in zip(self.cfg.cloth_scales, self.cfg.cloth_steps):
                # Each copy from the previous one (the scales grow).
                small = cv2.resize(small, (self.ws // scale, self.hs // scale), interpolation=cv2.INTER_AREA)
                centres, lags = _periodic_windows(small, self.cfg, step)
                if len(centres):
                    reach = self.cfg.cloth_radius * self.cfg.cloth_window * scale / 2
                    self._cloth.append((centres * scale, lags * scale, reach))
        return self._cloth

    def to_pixels(self, Hi: np.ndarray, k1: float, lat: np.ndarray) -> np.ndarray:
        """Lattice points (N, 2) -> working-image pixels, ``Hi`` the inverse lattice homography."""
        return _distort(_apply(Hi, lat), k1) * self.half + self.c

    def sample(self, img: np.ndarray, px: np.ndarray) -> np.ndarray:
        """Bilinear samples of ``img`` at pixels ``px`` (N, 2)."""
        n = len(px)
        cols = 1024
        rows = -(-n // cols)
        m = np.zeros((rows * cols, 2), np.float32)
        m[:n] = px
        m = m.reshape(rows, cols, 2)
        return cv2.remap(img, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()[:n]

    def tileness(self, H: np.ndarray, k1: float, cells: np.ndarray, rank: int = 1) -> np.ndarray:
        """How unlike its neighbours each cell looks, 0 (a repeat: cloth pattern) to 1 (a tile).

        The grey levels at 6 x 6 points inside the cell are compared with those of
        the 12 cells one and two steps away (straight and diagonal); the mean
        absolute difference to the ``rank``-th closest, over
        ``repeat_grey``, minus 1, clipped to 0-1.  Neighbours outside the photo
        do not count.
        """
        if not len(cells):
            return np.zeros(0)
        Hi = np.linalg.inv(H)
        ti = np.linspace(0.12, 0.88, 6)
        ui, vi = np.meshgrid(ti, ti)
        inner = np.c_[ui.ravel(), vi.ravel()]
        shifts = np.array([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1),
                           (2, 0), (-2, 0), (0, 2), (0, -2)], dtype=np.float64)
        # Neighbouring cells share neighbours: each distinct cell is sampled once.
        around = (cells[:, None, :] + shifts[None, :, :]).reshape(-1, 2)  # (n * S, 2), whole numbers
        distinct, which = np.unique(around, axis=0, return_inverse=True)
        pts = distinct[:, None, :] + inner[None, :, :]  # (U, 36, 2)
        px = self.to_pixels(Hi, k1, pts.reshape(-1, 2))
        ok = (px[:, 0] >= 0) & (px[:, 0] <= self.ws - 1) & (px[:, 1] >= 0) & (px[:, 1] <= self.hs - 1)
        vals = self.sample(self.g, px).reshape(len(distinct), -1)[which.ravel()].reshape(len(cells), len(shifts), -1)
        ok = ok.reshape(len(distinct), -1).all(axis=1)[which.ravel()].reshape(len(cells), len(shifts))
        diff = np.abs(vals[:, 1:] - vals[:, :1]).mean(axis=2)
        diff = np.where(ok[:, 1:] & ok[:, :1], diff, np.inf)
        # A cloth's square has look-alikes all around (a checked pattern repeats every
        # second square at least); a tile may resemble a neighbour or two.
        alike = np.sort(diff, axis=1)[:, rank - 1]
        return np.clip(alike / self.cfg.repeat_grey - 1, 0, 1)


def _framed_cells(H: np.ndarray, segs: np.ndarray, tol: float, *, cells_out: list | None = None) -> float:
    """How well a lattice frames tiles: ``n4 * n4 / n2``.

    ``n4`` counts cells with seams on all 4 sides, ``n2`` cells with seams on at
    least 2.  The true lattice frames nearly every tile (``n4 ~ n2 ~`` tiles);
    half the tile size frames only the halves split by a road or river
    (``n4 / n2`` small); double the tile size frames a quarter as many cells; wood
    grain frames few.  A cell side carries a seam when a segment within ``tol``
    (tile units) of the line covers 0.3 of it.  With ``cells_out`` (a list), the
    framed cells ((n4, 2) float64, lattice indices) and ``n2`` are appended to it.
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
    keys_, counts = np.unique(cells, return_counts=True)
    n4 = int((counts == 4).sum())
    n2 = int((counts >= 2).sum())
    if cells_out is not None:
        k4 = keys_[counts == 4]
        cells_out += [np.c_[k4 // 200_000 - 50_000, k4 % 200_000 - 50_000].astype(np.float64), n2]
    return n4 * n4 / n2 if n2 else 0.0


def _fit(H: np.ndarray, k1: float, q1: np.ndarray, q2: np.ndarray, half: float, cfg: GridConfig,
         centre: np.ndarray | None = None) -> tuple[np.ndarray, float, float, int]:
    """Least-squares refinement of the lattice and the lens: every seam on its lattice line.

    Each segment whose ends both lie within ``fit_tol`` tile of one lattice line
    is assigned to it; the homography (8 parameters) and the radial distortion
    ``k1``, ``k2`` are then fitted so that three points of every assigned segment
    lie on their lines, distances measured in working-image pixels, with a
    Cauchy loss (tiles laid by hand stray) and a weak prior pulling ``k1``, ``k2``
    towards the starting values (a small board says little about the lens).
    Levenberg-Marquardt, a few rounds of reassignment (Hartley & Zisserman §4.5, A6).

    Parameters
    ----------
    H : (3, 3) float64 ndarray
        Start: undistorted normalised coordinates -> lattice.
    k1 : float
        Start distortion.
    q1, q2 : (N, 2) float64 ndarray
        Segment ends, distorted normalised coordinates (working image).
    half : float
        Working-image pixels per normalised unit.
    centre : (2,) float64 ndarray, optional
        Lattice point the fit grows from (the middle of the board); default: the
        median of the segments.

    Returns
    -------
    (H, k1, k2, used)
        Refined homography and distortion, and the number of segments used.
    """
    H = H / H[2, 2]
    theta = np.concatenate([H.ravel()[:8], [k1, 0.0]])
    prior = np.array([k1, 0.0])
    ts = np.array([0.0, 0.5, 1.0])
    pts = (q1[:, None, :] * (1 - ts)[None, :, None] + q2[:, None, :] * ts[None, :, None]).reshape(-1, 3, 2)
    r2 = np.sum(pts * pts, axis=2)
    len_px = np.linalg.norm(q2 - q1, axis=1) * half

    def lattice(th: np.ndarray, sub: np.ndarray | slice = slice(None)) -> tuple[np.ndarray, ...]:
        q, rr = pts[sub], r2[sub]
        u = q * (1 + th[8] * rr + th[9] * rr * rr)[..., None]
        num0 = th[0] * u[..., 0] + th[1] * u[..., 1] + th[2]
        num1 = th[3] * u[..., 0] + th[4] * u[..., 1] + th[5]
        den = th[6] * u[..., 0] + th[7] * u[..., 1] + 1.0
        return np.stack([num0 / den, num1 / den], axis=-1), u, den, q, rr

    used = 0
    for radius, tol in zip(cfg.fit_radii, cfg.fit_tols):
        L = lattice(theta)[0]
        if not np.all(np.isfinite(L)):
            break
        if centre is None:
            # Grow outwards from the middle of the board, where a slightly wrong start
            # still puts every seam on the right line.
            centre = np.median(L[:, 1], axis=0)
        d = L[:, 2] - L[:, 0]
        horiz = np.abs(d[:, 0]) > 3 * np.abs(d[:, 1])
        vert = np.abs(d[:, 1]) > 3 * np.abs(d[:, 0])
        axis = np.where(horiz, 1, 0)
        ends = np.take_along_axis(L[:, [0, 2], :], axis[:, None, None].repeat(2, 1), axis=2)[..., 0]
        line = np.round(ends.mean(axis=1))
        sel = (horiz | vert) & np.all(np.abs(ends - line[:, None]) < tol, axis=1) & (np.abs(d).max(axis=1) < 50)
        sel &= np.abs(L[:, 1] - centre).max(axis=1) < radius
        used = int(sel.sum())
        if used < 8:
            break
        idx = np.flatnonzero(sel)
        px_per_tile = len_px[idx] / (np.linalg.norm(d[idx], axis=1) + 1e-9)
        # Pixels off the line; longer segments count more (the loss scale stays in pixels).
        w = (np.sqrt(len_px[idx] / np.median(len_px[idx])) * px_per_tile)[:, None]
        ax = axis[idx][:, None]
        ln = line[idx][:, None]

        def resid(th: np.ndarray, jac: bool = False):
            Lt, u, den, q, rr = lattice(th, idx)
            La = np.where(ax == 1, Lt[..., 1], Lt[..., 0])
            r = ((La - ln) * w).ravel()
            if not jac:
                return r
            # d La / d theta (Hartley & Zisserman A6.2): rows a of H, the denominator row, the lens.
            J = np.zeros(La.shape + (10,))
            on0 = (ax == 0) / den
            on1 = (ax == 1) / den
            J[..., 0], J[..., 1], J[..., 2] = on0 * u[..., 0], on0 * u[..., 1], on0
            J[..., 3], J[..., 4], J[..., 5] = on1 * u[..., 0], on1 * u[..., 1], on1
            J[..., 6] = -La * u[..., 0] / den
            J[..., 7] = -La * u[..., 1] / den
            ha = np.where(ax == 0, th[0], th[3]), np.where(ax == 0, th[1], th[4])
            du = np.stack([(ha[0] - La * th[6]) / den, (ha[1] - La * th[7]) / den], axis=-1)
            dk = np.sum(du * q, axis=-1)
            J[..., 8] = dk * rr
            J[..., 9] = dk * rr * rr
            return r, (J * w[..., None]).reshape(-1, 10)

        theta = _levenberg(resid, theta, prior, cfg)
    Hm = np.concatenate([theta[:8], [1.0]]).reshape(3, 3)
    return Hm, float(theta[8]), float(theta[9]), used


def _levenberg(resid, theta: np.ndarray, prior: np.ndarray, cfg: GridConfig) -> np.ndarray:
    """Levenberg-Marquardt steps on ``resid`` with a Cauchy loss and the lens prior."""
    c = cfg.fit_loss_px
    lam = 1e-3
    scale = np.concatenate([np.abs(theta[:8]) + 1e-3, [1e-2, 1e-2]])

    def cost(r: np.ndarray, th: np.ndarray) -> float:
        pr = (th[8:] - prior) * cfg.fit_lens_prior
        return float(np.sum(np.log1p((r / c) ** 2)) * c * c + np.sum(pr * pr))

    r, J = resid(theta, True)
    f = cost(r, theta)
    for _ in range(cfg.fit_steps):
        wt = 1 / np.sqrt(1 + (r / c) ** 2)  # Cauchy weights (iteratively reweighted)
        Jw = J * wt[:, None]
        A = Jw.T @ Jw
        g = Jw.T @ (r * wt)
        A[8:, 8:] += np.eye(2) * cfg.fit_lens_prior**2
        g[8:] += (theta[8:] - prior) * cfg.fit_lens_prior**2
        improved = False
        for _ in range(6):
            try:
                step = np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), -g)
            except np.linalg.LinAlgError:
                break
            r_new = resid(theta + step)
            f_new = cost(r_new, theta + step)
            if np.isfinite(f_new) and f_new < f:
                gain = (f - f_new) / max(f, 1e-12)
                theta, f = theta + step, f_new
                lam = max(lam / 4, 1e-7)
                improved = True
                break
            lam *= 8
        if not improved or gain < 1e-5 or np.max(np.abs(step) / scale) < 1e-7:
            break
        r, J = resid(theta, True)
    return theta


def _support(H: np.ndarray, segs: np.ndarray, cfg: GridConfig) -> tuple[float, int]:
    """Share of lattice lines (inside the board's span) backed by at least one seam, and the seams on lines."""
    a = _apply(H, segs[:, :2])
    b = _apply(H, segs[:, 2:4])
    mid = 0.5 * (a + b)
    d = b - a
    lines = hit = used = 0
    for coord, mask in ((1, np.abs(d[:, 0]) > 3 * np.abs(d[:, 1])), (0, np.abs(d[:, 1]) > 3 * np.abs(d[:, 0]))):
        v = mid[mask, coord]
        if len(v) == 0:
            continue
        near = np.abs(v - np.round(v)) < cfg.snap_tol
        used += int(near.sum())
        lo, hi = np.percentile(v[near], [5, 95]) if near.any() else (0, 0)
        want = np.arange(np.ceil(lo), np.floor(hi) + 1)
        got = set(np.round(v[near]).astype(int))
        lines += len(want)
        hit += sum(1 for k in want if int(k) in got)
    return (hit / lines if lines else 0.0), used


def _cross2(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _close(old: tuple, new: tuple, q: np.ndarray) -> bool:
    """Whether a re-fitted lattice stays near the old one (no collapse, no jump).

    ``old`` and ``new`` are ``(H, k1, k2)``; ``q`` (N, 2) distorted normalised
    points (the board's cells) where the two maps are compared.
    """
    def lattice(m: tuple, pts: np.ndarray) -> np.ndarray:
        return _apply(m[0], _undistort(pts, m[1], m[2]))

    a, b = lattice(old, q), lattice(new, q)
    if not np.all(np.isfinite(b)):
        return False
    if np.median(np.linalg.norm(a - b, axis=1)) > 0.35:
        return False
    # Local scale (area of a unit pixel square) must not collapse or blow up.
    c = q.mean(axis=0)
    probe = np.array([c, c + [1e-2, 0], c + [0, 1e-2]])
    ja, jb = lattice(old, probe), lattice(new, probe)
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
