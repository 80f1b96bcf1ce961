"""Top-down picture of a whole board: tiles at their cells, figures on their locations.

North is up, ``x`` grows to the east (right) and ``y`` to the south (down),
as in ``board-format.md``.  Each tile is drawn by
:func:`scorer.render.tileart.tile_image` and turned ``rot`` clockwise quarter
turns with ``np.rot90(img, -rot)``.

Figures are drawn flat, as seen from above, centred on the anchor of their
location (:data:`LOCATION_ANCHORS`): followers/cowboys as a meeple silhouette in
the player colour, farmers (on a field or prairie) as a meeple lying on its
side, tents as triangles in the player colour, the Sheriff as a golden figure
with a star, Goldmines gold bars as gold bricks with their count, ore tokens as
dark discs with their count.

The anchor table is shared: the photo synthesiser stands figures on these
points and the vision pipeline maps a figure back to the nearest location with
:func:`nearest_location`.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..board import Board, Figure
from ..errors import ScorerError
from ..geometry import LOCATIONS, Cell
from .colours import PLAYER_RGB, SHERIFF_RGB, outline_rgb
from .tileart import PALETTE, tile_image

log = logging.getLogger(__name__)

#: Location -> anchor point ``(fx, fy)`` as fractions of the tile side, in board
#: orientation, measured from the tile's top-left (north-west) corner.  Sides sit
#: 0.15 in from the middle of their side; half-sides 0.13 in from their side,
#: a quarter of the way along it; ``C`` is the centre.
LOCATION_ANCHORS: dict[str, tuple[float, float]] = {
    "N": (0.50, 0.15),
    "E": (0.85, 0.50),
    "S": (0.50, 0.85),
    "W": (0.15, 0.50),
    "NL": (0.25, 0.13),
    "NR": (0.75, 0.13),
    "EL": (0.87, 0.25),
    "ER": (0.87, 0.75),
    "SL": (0.75, 0.87),
    "SR": (0.25, 0.87),
    "WL": (0.13, 0.75),
    "WR": (0.13, 0.25),
    "C": (0.50, 0.50),
}

#: Where the Goldmines gold bars of a tile lie (they belong to the tile, not a feature).
GOLD_ANCHOR: tuple[float, float] = (0.68, 0.68)

#: Offset from the location anchor per figure kind, so that a cowboy, a tent, the
#: Sheriff and an ore stack on one mountain part stay apart: ``(across, inward)`` in
#: fractions of a tile, where ``inward`` points from the anchor to the tile centre
#: (south for ``C``) and ``across`` is ``inward`` turned a quarter turn clockwise
#: (see :func:`figure_point`).
FIGURE_OFFSETS: dict[str, tuple[float, float]] = {
    "meeple": (0.0, 0.0),
    "tent": (-0.15, 0.05),
    "sheriff": (0.15, 0.05),
    "ore": (0.0, 0.17),
}

#: Figure sizes as fractions of a tile: meeple height, tent width, ore disc radius.
MEEPLE_SIZE = 0.26
TENT_SIZE = 0.2
ORE_RADIUS = 0.065

#: Colour of the table around the tiles, RGB.
TABLE_RGB = (70, 64, 58)

#: Largest board picture drawn: cells across or down, and pixels in all.  A whole
#: game spans a few dozen cells; anything far beyond is a mistyped cell, and the
#: picture would not fit in memory.
MAX_CELLS = 200
MAX_PIXELS = 60_000_000

_SS = 16
_SHIFT = 4

#: Meeple silhouette, standing, head up: points in a unit box (x right, y down).
MEEPLE_SHAPE = np.array([
    (0.50, 0.00), (0.62, 0.03), (0.68, 0.13), (0.66, 0.24), (0.90, 0.35), (1.00, 0.44), (0.97, 0.53),
    (0.86, 0.56), (0.70, 0.54), (0.78, 0.86), (0.83, 0.97), (0.78, 1.00), (0.58, 1.00), (0.50, 0.82),
    (0.42, 1.00), (0.22, 1.00), (0.17, 0.97), (0.22, 0.86), (0.30, 0.54), (0.14, 0.56), (0.03, 0.53),
    (0.00, 0.44), (0.10, 0.35), (0.34, 0.24), (0.32, 0.13), (0.38, 0.03),
])


@dataclass(frozen=True)
class BoardRaster:
    """Where cells and tile locations lie in a rendered board picture.

    Attributes
    ----------
    origin : (int, int)
        The cell drawn at the top-left of the tile area (the board's
        ``(min_x, min_y)``); its top-left corner is pixel ``(margin, margin)``.
    tile_px : int
        Side of one cell in pixels.
    margin : int
        Table border around the tiles, in pixels.
    """

    origin: Cell
    tile_px: int
    margin: int = 0

    def cell_to_px(self, cell: Cell) -> tuple[int, int]:
        """Pixel ``(x, y)`` of the top-left corner of ``cell``."""
        return (self.margin + (cell[0] - self.origin[0]) * self.tile_px,
                self.margin + (cell[1] - self.origin[1]) * self.tile_px)

    def location_px(self, cell: Cell, at: str) -> tuple[float, float]:
        """Pixel ``(x, y)`` of a tile location (``N``, ``NL``..., ``C``) of ``cell``.

        Raises
        ------
        ScorerError
            ``at`` is not a tile location.
        """
        if at not in LOCATION_ANCHORS:
            raise ScorerError(f"unknown tile location {at!r}; expected one of {' '.join(LOCATIONS)}")
        fx, fy = LOCATION_ANCHORS[at]
        return self.point_px(cell, (fx, fy))

    def point_px(self, cell: Cell, frac: tuple[float, float]) -> tuple[float, float]:
        """Pixel ``(x, y)`` of a point given as fractions ``(fx, fy)`` of ``cell``."""
        x0, y0 = self.cell_to_px(cell)
        return (x0 + frac[0] * self.tile_px, y0 + frac[1] * self.tile_px)

    def px_to_cell(self, x: float, y: float) -> tuple[Cell, tuple[float, float]]:
        """The cell under pixel ``(x, y)`` and the point's fractions ``(fx, fy)`` within it."""
        gx = (x - self.margin) / self.tile_px
        gy = (y - self.margin) / self.tile_px
        cx, cy = math.floor(gx), math.floor(gy)
        return (cx + self.origin[0], cy + self.origin[1]), (gx - cx, gy - cy)


def nearest_location(frac: tuple[float, float], candidates=None) -> str:
    """The location whose anchor is nearest to a point of a tile.

    Parameters
    ----------
    frac : (float, float)
        The point as fractions ``(fx, fy)`` of the tile side, board orientation.
    candidates : iterable of str, optional
        Locations to choose from (e.g. those the tile has features at); all by default.

    Returns
    -------
    str
        A key of :data:`LOCATION_ANCHORS`.
    """
    names = list(candidates) if candidates is not None else list(LOCATION_ANCHORS)
    if not names:
        raise ScorerError("nearest_location: no candidate locations given")
    return min(names, key=lambda n: (LOCATION_ANCHORS[n][0] - frac[0]) ** 2 + (LOCATION_ANCHORS[n][1] - frac[1]) ** 2)


def figure_point(at: str | None, kind: str = "meeple") -> tuple[float, float]:
    """Where a figure of ``kind`` on location ``at`` is drawn, as fractions of a tile.

    Parameters
    ----------
    at : str or None
        Tile location; ``None`` for Goldmines gold bars (:data:`GOLD_ANCHOR`).
    kind : str
        ``meeple``, ``tent``, ``sheriff``, ``ore`` or ``gold`` (:data:`FIGURE_OFFSETS`).

    Returns
    -------
    (float, float)
        ``(fx, fy)``, kept 0.1 inside the tile.
    """
    if at is None:
        return GOLD_ANCHOR
    ax, ay = LOCATION_ANCHORS[at]
    across, inward = FIGURE_OFFSETS.get(kind, (0.0, 0.0))
    (ix, iy), (cx, cy) = offset_axes(at)
    fx = ax + across * cx + inward * ix
    fy = ay + across * cy + inward * iy
    return (min(0.9, max(0.1, fx)), min(0.9, max(0.1, fy)))


def offset_axes(at: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The unit directions in which :data:`FIGURE_OFFSETS` apply on location ``at``.

    Returns
    -------
    ((float, float), (float, float))
        ``inward`` (from the location's anchor towards the tile centre; south for
        the centre itself) and ``across`` (inward turned a quarter turn clockwise),
        in tile fractions, x east and y south.
    """
    ax, ay = LOCATION_ANCHORS[at]
    ix, iy = 0.5 - ax, 0.5 - ay
    n = math.hypot(ix, iy)
    ix, iy = (0.0, 1.0) if n < 1e-9 else (ix / n, iy / n)
    return (ix, iy), (-iy, ix)


def render_board(board: Board, *, tile_px: int = 128, art_dir: str | Path | None = None, figures: bool = True,
                 margin: int = 0) -> tuple[np.ndarray, BoardRaster]:
    """Top-down picture of a board.

    Parameters
    ----------
    board : Board
        The board (at least one tile).
    tile_px : int
        Side of one tile in pixels (at least 16).
    art_dir : str or Path, optional
        Folder of real tile art (see :func:`scorer.render.tileart.tile_image`).
    figures : bool
        Draw meeples/cowboys, tents, the Sheriff, gold bars and ore tokens.
    margin : int
        Table border around the tiles, in pixels.

    Returns
    -------
    image : (rows * tile_px + 2 * margin, cols * tile_px + 2 * margin, 3) uint8 ndarray
        RGB picture, north up; ``rows``/``cols`` span the placed tiles' bounding box.
        Cells without a tile show the table colour.
    raster : BoardRaster
        Maps cells and locations to pixels of ``image``.

    Raises
    ------
    ScorerError
        The board has no tiles, ``tile_px`` or ``margin`` is out of range, the
        picture would be larger than :data:`MAX_CELLS` cells across or down or
        :data:`MAX_PIXELS` pixels, or an art file is missing.
    """
    if isinstance(tile_px, bool) or not isinstance(tile_px, (int, np.integer)) or tile_px < 16:
        raise ScorerError(f"tile_px must be an integer of at least 16 pixels, got {tile_px!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, np.integer)) or margin < 0:
        raise ScorerError(f"margin must be an integer of at least 0 pixels, got {margin!r}")
    tile_px, margin = int(tile_px), int(margin)
    min_x, min_y, max_x, max_y = board.bounds()
    cols, rows = max_x - min_x + 1, max_y - min_y + 1
    width, height = cols * tile_px + 2 * margin, rows * tile_px + 2 * margin
    if cols > MAX_CELLS or rows > MAX_CELLS:
        raise ScorerError(
            f"the board spans {cols} x {rows} cells ({min_x},{min_y} to {max_x},{max_y}); a picture of at most "
            f"{MAX_CELLS} x {MAX_CELLS} cells is drawn; the cell coordinates look mistyped (check the tiles "
            "far from the others)")
    if width * height > MAX_PIXELS:
        raise ScorerError(
            f"the picture would be {width} x {height} pixels ({width * height / 1e6:.0f} megapixels; at most "
            f"{MAX_PIXELS // 1_000_000} are drawn); use a smaller tile size, or check the cell coordinates, "
            "they look mistyped")
    raster = BoardRaster((min_x, min_y), tile_px, margin)
    img = np.empty((rows * tile_px + 2 * margin, cols * tile_px + 2 * margin, 3), np.uint8)
    img[:] = TABLE_RGB
    for cell, placement in board.tiles.items():
        x0, y0 = raster.cell_to_px(cell)
        art = tile_image(placement.tile, tile_px, art_dir=art_dir)
        img[y0:y0 + tile_px, x0:x0 + tile_px] = np.rot90(art, -placement.rot)
    if figures:
        _draw_figures(img, board, raster)
    log.debug("rendered %d tiles at %d px: %dx%d", len(board.tiles), tile_px, img.shape[1], img.shape[0])
    return img, raster


# --------------------------------------------------------------------------- figures


def _draw_figures(img: np.ndarray, board: Board, raster: BoardRaster) -> None:
    t = raster.tile_px
    used: dict[tuple, int] = {}

    def spot(cell: Cell, at: str | None, kind: str) -> tuple[float, float]:
        fx, fy = figure_point(at, kind)
        k = used.get((cell, at, kind), 0)
        used[(cell, at, kind)] = k + 1
        if k:  # several figures of one kind on one location fan out
            fx = min(0.9, max(0.1, fx + 0.11 * ((k + 1) // 2) * (1 if k % 2 else -1)))
        return raster.point_px(cell, (fx, fy))

    for s in board.gold:
        _gold_stack(img, spot(s.cell, None, "gold"), t, s.count)
    for s in board.ore:
        _ore_stack(img, spot(s.cell, s.at, "ore"), t, s.count)
    for f in board.tents:
        _tent(img, spot(f.cell, f.at, "tent"), t, PLAYER_RGB[f.player])
    for f in board.meeples:
        lying = _is_farmer(board, f)
        _meeple(img, spot(f.cell, f.at, "meeple"), t, PLAYER_RGB[f.player], lying=lying)
    if board.sheriff is not None:
        f = board.sheriff
        _meeple(img, spot(f.cell, f.at, "sheriff"), t, SHERIFF_RGB, star=True)


def _is_farmer(board: Board, f: Figure) -> bool:
    placement = board.tiles.get(f.cell)
    if placement is None:
        return False
    return placement.tile.turned(placement.rot).kind_at(f.at) in ("field", "prairie")


def _fx(pts) -> np.ndarray:
    return np.round(np.asarray(pts, float).reshape(-1, 2) * _SS).astype(np.int32)


def _shadow(img: np.ndarray, pts: np.ndarray, t: int) -> None:
    d = max(1.0, 0.018 * t)
    box = _bbox(img, pts, pad=int(d) + 3)
    if box is None:
        return
    x0, y0, x1, y1 = box
    roi = img[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillPoly(mask, [_fx(pts + np.array([d - x0, d - y0]))], 255, cv2.LINE_AA, _SHIFT)
    a = (mask.astype(np.uint16) * 90) // 255
    roi[:] = ((roi.astype(np.uint16) * (255 - a[:, :, None])) // 255).astype(np.uint8)


def _bbox(img: np.ndarray, pts: np.ndarray, pad: int):
    h, w = img.shape[:2]
    x0 = max(0, int(pts[:, 0].min()) - pad)
    y0 = max(0, int(pts[:, 1].min()) - pad)
    x1 = min(w, int(pts[:, 0].max()) + pad + 1)
    y1 = min(h, int(pts[:, 1].max()) + pad + 1)
    return None if x0 >= x1 or y0 >= y1 else (x0, y0, x1, y1)


def _meeple(img: np.ndarray, c, t: int, colour, *, lying: bool = False, star: bool = False) -> None:
    """A meeple silhouette centred on ``c``; ``lying`` turns it on its side (a farmer)."""
    h = MEEPLE_SIZE * t
    shape = (MEEPLE_SHAPE - 0.5) * h
    if lying:
        shape = np.stack([shape[:, 1], -shape[:, 0]], axis=1)  # head to the west
    pts = shape + np.asarray(c, float)
    _shadow(img, pts, t)
    cv2.fillPoly(img, [_fx(pts)], colour, cv2.LINE_AA, _SHIFT)
    cv2.polylines(img, [_fx(pts)], True, outline_rgb(colour), max(1, round(t / 110)), cv2.LINE_AA, _SHIFT)
    if star:
        centre = np.asarray(c, float) + np.array([0.0, 0.06 * h])
        spts = []
        for k in range(10):
            a = -math.pi / 2 + k * math.pi / 5
            r = 0.2 * h if k % 2 == 0 else 0.09 * h
            spts.append((centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)))
        cv2.fillPoly(img, [_fx(spts)], (96, 60, 16), cv2.LINE_AA, _SHIFT)


def _tent(img: np.ndarray, c, t: int, colour) -> None:
    """A tent: triangle in the player colour with a dark door."""
    w = TENT_SIZE * t
    x, y = c
    pts = np.array([(x - w / 2, y + 0.4 * w), (x, y - 0.5 * w), (x + w / 2, y + 0.4 * w)])
    _shadow(img, pts, t)
    cv2.fillPoly(img, [_fx(pts)], colour, cv2.LINE_AA, _SHIFT)
    cv2.polylines(img, [_fx(pts)], True, outline_rgb(colour), max(1, round(t / 110)), cv2.LINE_AA, _SHIFT)
    door = np.array([(x - 0.1 * w, y + 0.4 * w), (x, y + 0.05 * w), (x + 0.1 * w, y + 0.4 * w)])
    cv2.fillPoly(img, [_fx(door)], outline_rgb(colour), cv2.LINE_AA, _SHIFT)


def _label(img: np.ndarray, text: str, c, t: int, colour=(255, 255, 255)) -> None:
    scale = max(0.3, t / 260)
    thick = max(1, round(t / 128))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    org = (int(round(c[0] - tw / 2)), int(round(c[1] + th / 2)))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 16, 12), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def _gold_stack(img: np.ndarray, c, t: int, count: int) -> None:
    """Goldmines gold bars: up to three stacked bricks and the count."""
    w = 0.12 * t
    x, y = c
    for k in range(min(max(count, 1), 3)):
        yy = y - k * 0.045 * t
        xx = x + (k % 2) * 0.015 * t
        body = np.array([(xx - w / 2, yy + 0.18 * w), (xx + w / 2, yy + 0.18 * w), (xx + 0.35 * w, yy - 0.2 * w),
                         (xx - 0.35 * w, yy - 0.2 * w)])
        top = np.array([(xx - 0.35 * w, yy - 0.2 * w), (xx + 0.35 * w, yy - 0.2 * w), (xx + 0.25 * w, yy - 0.36 * w),
                        (xx - 0.25 * w, yy - 0.36 * w)])
        if k == 0:
            _shadow(img, body, t)
        cv2.fillPoly(img, [_fx(body)], PALETTE["gold"], cv2.LINE_AA, _SHIFT)
        cv2.fillPoly(img, [_fx(top)], PALETTE["gold_light"], cv2.LINE_AA, _SHIFT)
        cv2.polylines(img, [_fx(np.vstack([body, top[2:]]))], True, PALETTE["gold_dark"], 1, cv2.LINE_AA, _SHIFT)
    _label(img, str(count), (x + 0.1 * t, y + 0.02 * t), t, PALETTE["gold_light"])


def _ore_stack(img: np.ndarray, c, t: int, count: int) -> None:
    """Face-down ore tokens: a dark disc with the count."""
    r = ORE_RADIUS * t
    ctr = (int(round(c[0] * _SS)), int(round(c[1] * _SS)))
    cv2.circle(img, (ctr[0] + int(0.02 * t * _SS), ctr[1] + int(0.02 * t * _SS)), int(r * _SS), (30, 26, 24), -1,
               cv2.LINE_AA, _SHIFT)
    cv2.circle(img, ctr, int(r * _SS), (58, 52, 50), -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(img, ctr, int(r * _SS), (150, 140, 130), max(1, round(t / 128)), cv2.LINE_AA, _SHIFT)
    _label(img, str(count), c, t)
