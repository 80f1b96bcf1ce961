"""Procedural tile art: a picture of any tile type drawn from its features.

The picture is built only from the tile's feature list (``scorer.tiles``), so
every tile set, user tile sets and inline tiles included, gets art:

* ground: green field (base game) or straw prairie (Gold Rush);
* cities and mountains (the wall kinds) as regions derived from their sides: a
  one-side feature is a cap on its side, two adjacent sides cover that corner,
  two opposite sides a band across the tile, three sides everything but a cap on
  the open side, four sides the whole tile; cities get a stone wall along their
  border, red-roofed houses and pennant shields, mountains grey-brown rock with
  one gold nugget per ``nuggets``;
* roads (beige with dark edges), rivers (blue) and rails (two dark rails on
  sleepers, one locomotive per ``locomotives``): two sides run straight across
  or bend around the shared corner; one side runs to the centre, where it meets
  a centre feature, a junction (roads: a small house; rails: a crossing), the
  other one-side lines, or the wall feature it ends at;
* centre features: cloister (red-roofed church), town (wooden buildings round a
  square), cemetery (fence with crosses);
* symbols: inn (house by the road), pig herd (pink pigs), Indian camps (tipis),
  wild horses (horse silhouettes), Goldmines gold ingot and Sheriff star in a
  free corner;
* a thin darker border on the tile edge.

Orientation: :func:`tile_image` draws the tile in **catalogue orientation**
(``rot`` 0).  A board turns it with ``np.rot90(img, -rot)``: ``rot`` clockwise
quarter turns, so ``rot=1`` moves the north feature to the east
(``board-format.md``, ``rot``).

Drawing uses OpenCV with anti-aliasing and sub-pixel coordinates; finished
pictures are cached per tile content, size and seed.
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ..errors import ScorerError
from ..geometry import OPPOSITE, SIDES
from ..tiles import FeatureSpec, TileType
from .colours import imread_rgb

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]

#: Colours of the tile art, RGB 0-255.
PALETTE: dict[str, RGB] = {
    "field": (104, 164, 54),
    "field_tuft": (74, 128, 40),
    "prairie": (204, 184, 112),
    "prairie_tuft": (150, 134, 66),
    "city": (200, 146, 88),
    "city_speck": (160, 110, 64),
    "wall": (226, 212, 178),
    "wall_dark": (92, 72, 52),
    "roof": (204, 64, 42),
    "roof_dark": (120, 34, 24),
    "house": (238, 224, 192),
    "mountain": (132, 116, 100),
    "mountain_dark": (72, 62, 54),
    "mountain_light": (176, 164, 148),
    "road": (236, 226, 200),
    "road_edge": (104, 94, 80),
    "river": (66, 142, 214),
    "river_edge": (34, 78, 140),
    "river_light": (150, 200, 240),
    "rail": (44, 44, 50),
    "sleeper": (112, 80, 50),
    "ballast": (168, 168, 164),
    "gold": (240, 196, 40),
    "gold_light": (255, 236, 140),
    "gold_dark": (140, 100, 16),
    "pennant": (36, 78, 196),
    "white": (250, 250, 250),
    "pig": (242, 154, 176),
    "pig_dark": (170, 84, 110),
    "tipi": (232, 212, 164),
    "tipi_dark": (120, 74, 40),
    "tipi_stripe": (190, 54, 40),
    "horse": (118, 72, 38),
    "wood": (150, 102, 58),
    "wood_roof": (96, 64, 40),
    "plaza": (214, 190, 140),
    "loco": (36, 36, 40),
    "loco_red": (190, 40, 36),
    "grave": (236, 236, 230),
    "grave_ground": (150, 132, 96),
    "star": (240, 196, 40),
}

#: Corner sample points (unit coordinates) for the gold ingot and Sheriff star.
_CORNERS = ((0.84, 0.84), (0.16, 0.84), (0.84, 0.16), (0.16, 0.16))

#: Unit-coordinate middle of each side, and the tile centre.
_MID = {"N": (0.5, 0.0), "E": (1.0, 0.5), "S": (0.5, 1.0), "W": (0.0, 0.5)}
_CENTRE = (0.5, 0.5)
#: Outward unit direction of each side.
_OUT = {"N": (0.0, -1.0), "E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0)}
#: Sample points just inside each half-side (unit coordinates), to find field regions.
_HALF_SAMPLE = {
    "NL": (0.25, 0.03), "NR": (0.75, 0.03), "EL": (0.97, 0.25), "ER": (0.97, 0.75),
    "SL": (0.75, 0.97), "SR": (0.25, 0.97), "WL": (0.03, 0.75), "WR": (0.03, 0.25),
}

# Sizes, as fractions of the tile side.
_CAP_DEPTH = 0.29         # one-side city/mountain cap, at the middle of the side
_FIELD_CAP_DEPTH = 0.31   # field left beside a 2- or 3-side city/mountain
_CORNER_CTRL = 0.62       # control point of a corner city's border (0.5 = straight diagonal)
_CORNER_CTRL_SMALL = 0.26  # ... when a centre feature needs the middle
_HALF_WIDTH = {"road": 0.045, "river": 0.072, "rail": 0.062}
_EDGE = 0.017

_SS = 16  # sub-pixel factor of OpenCV's ``shift`` (4 bits)
_SHIFT = 4

_CACHE: "OrderedDict[tuple, np.ndarray]" = OrderedDict()
# Where symbols go (pennants, houses, nuggets, field symbols, corner marks) is read off the
# tile's masks; it is decided once, on a drawing of this size, and reused at every size, so a
# tile's symbols sit in the same places whatever size it is drawn at (templates match photos).
_LAYOUT_PX = 256
_LAYOUTS: dict[tuple, list] = {}
_CACHE_BYTES = 96 * 2**20
_cache_used = 0


# --------------------------------------------------------------------------- public


def tile_image(tile: TileType, size: int = 256, *, art_dir: str | Path | None = None, seed: int = 0) -> np.ndarray:
    """Picture of a tile type in catalogue orientation.

    Parameters
    ----------
    tile : TileType
        The tile design (catalogue entry or inline tile).
    size : int
        Side of the square picture in pixels (at least 16).
    art_dir : str or Path, optional
        A folder of real tile art: the file whose stem is ``tile.meta['art']``
        (``.png``/``.jpg``/``.jpeg``) is loaded and resized instead of drawing.
        For development and evaluation only.
    seed : int
        Varies small texture details (grass tufts, speckles) only; the layout
        is the same for every seed.

    Returns
    -------
    (size, size, 3) uint8 ndarray
        RGB picture of the tile at ``rot`` 0.  Turn it to a board rotation with
        ``np.rot90(img, -rot)`` (``rot`` clockwise quarter turns: ``rot=1``
        moves the north feature to the east).  A fresh array the caller may
        modify.

    Raises
    ------
    ScorerError
        ``size`` below 16, or with ``art_dir``: the tile has no ``art`` name or
        the folder holds no such file.

    Notes
    -----
    The same ``(tile, size, seed)`` always gives the same bytes.  Pictures are
    cached (about 96 MiB at most), so repeated calls cost a copy.
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 16:
        raise ScorerError(f"tile picture size must be an integer of at least 16 pixels, got {size!r}")
    size = int(size)
    key = (_tile_key(tile), size, int(seed), None if art_dir is None else str(Path(art_dir).resolve()))
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit.copy()
    img = _load_art(tile, size, Path(art_dir)) if art_dir is not None else _draw(tile, size, int(seed))
    log.debug("tile %s: %s at %d px (seed %d)", tile.id, "loaded art" if art_dir else "drew", size, seed)
    _remember(key, img)
    return img.copy()


def art_path(tile: TileType, art_dir: str | Path) -> Path:
    """The real-art file of ``tile`` in ``art_dir``.

    Raises
    ------
    ScorerError
        The tile has no ``art`` name, or no ``<art>.png``/``.jpg``/``.jpeg`` is in the folder.
    """
    folder = Path(art_dir)
    stem = tile.meta.get("art")
    if not stem:
        raise ScorerError(f"tile {tile.id}: its tile set names no art file ('art'), so it cannot be "
                          f"loaded from {str(folder)!r}; draw it without --art-dir")
    for ext in (".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"):
        path = folder / f"{stem}{ext}"
        if path.is_file():
            return path
    raise ScorerError(f"tile {tile.id}: no art file {stem}.png or {stem}.jpg in {str(folder)!r}")


def clear_cache() -> None:
    """Forget every cached tile picture."""
    global _cache_used
    _CACHE.clear()
    _cache_used = 0


# --------------------------------------------------------------------------- cache and art files


def _tile_key(tile: TileType) -> tuple:
    meta = tuple(sorted((k, str(v)) for k, v in tile.meta.items() if k in ("gold", "sheriff", "river")))
    return (tile.id, tile.features, meta)


def _remember(key: tuple, img: np.ndarray) -> None:
    global _cache_used
    img.setflags(write=False)
    _CACHE[key] = img
    _cache_used += img.nbytes
    while _cache_used > _CACHE_BYTES and len(_CACHE) > 1:
        _, old = _CACHE.popitem(last=False)
        _cache_used -= old.nbytes


def _load_art(tile: TileType, size: int, folder: Path) -> np.ndarray:
    img = imread_rgb(art_path(tile, folder))
    # The art shows the tile turned ``art_rot`` quarter turns clockwise: turn it back.
    img = np.rot90(img, int(tile.meta.get("art_rot", 0)) % 4)
    interp = cv2.INTER_AREA if min(img.shape[:2]) > size else cv2.INTER_CUBIC
    return np.ascontiguousarray(cv2.resize(img, (size, size), interpolation=interp))


# --------------------------------------------------------------------------- geometry helpers


def _quad(a, c, b, n: int = 28) -> np.ndarray:
    """Points of the quadratic Bezier curve a -> b with control c, (n, 2) float."""
    t = np.linspace(0.0, 1.0, n)[:, None]
    a, c, b = (np.asarray(p, float) for p in (a, c, b))
    return (1 - t) ** 2 * a + 2 * t * (1 - t) * c + t**2 * b


def _turn(pts: np.ndarray, k: int) -> np.ndarray:
    """Turn unit-square points ``k`` clockwise quarter turns about the centre."""
    pts = np.asarray(pts, float).reshape(-1, 2)
    for _ in range(k % 4):
        pts = np.stack([1.0 - pts[:, 1], pts[:, 0]], axis=1)
    return pts


def _side_index(side: str) -> int:
    return SIDES.index(side)


def _wall_shape(sides: tuple[str, ...], centre_taken: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """Region polygon and border curves (unit coordinates) of a city or mountain.

    The shape follows the sides it touches: 1 side a cap, 2 adjacent sides the
    corner between them, 2 opposite sides a band, 3 sides all but a cap on the
    open side, 4 sides the whole tile.
    """
    s = set(sides)
    if len(s) == 4:
        return np.array([(0, 0), (1, 0), (1, 1), (0, 1)], float), []
    if len(s) == 1:
        (side,) = s
        curve = _quad((0, 0), (0.5, 2 * _CAP_DEPTH), (1, 0))
        k = _side_index(side)
        return _turn(curve, k), [_turn(curve, k)]
    if len(s) == 3:
        (open_side,) = set(SIDES) - s
        curve = _quad((1, 1), (0.5, 1 - 2 * _FIELD_CAP_DEPTH), (0, 1))
        poly = np.vstack([[(0, 0), (1, 0)], curve])
        k = (_side_index(open_side) - 2) % 4
        return _turn(poly, k), [_turn(curve, k)]
    a, b = sorted(s, key=_side_index)
    if (_side_index(b) - _side_index(a)) % 2 == 0:  # opposite: a band (canonical W-E)
        top = _quad((0, 0), (0.5, 2 * _FIELD_CAP_DEPTH), (1, 0))
        bottom = _quad((1, 1), (0.5, 1 - 2 * _FIELD_CAP_DEPTH), (0, 1))
        k = 0 if s == {"E", "W"} else 1
        return _turn(np.vstack([top, bottom]), k), [_turn(top, k), _turn(bottom, k)]
    # adjacent: the corner between them (canonical N-W, the north-west corner)
    ctrl = _CORNER_CTRL_SMALL if centre_taken else _CORNER_CTRL
    curve = _quad((1, 0), (ctrl, ctrl), (0, 1))
    poly = np.vstack([[(0, 0)], curve])
    k = next(k for k in range(4) if {SIDES[(0 + k) % 4], SIDES[(3 + k) % 4]} == s)
    return _turn(poly, k), [_turn(curve, k)]


def _arc(corner, start, end, n: int = 24) -> np.ndarray:
    """Arc of radius 0.5 around a tile corner from one side middle to another."""
    cx, cy = corner
    a0 = math.atan2(start[1] - cy, start[0] - cx)
    a1 = math.atan2(end[1] - cy, end[0] - cx)
    if a1 - a0 > math.pi:
        a1 -= 2 * math.pi
    elif a0 - a1 > math.pi:
        a1 += 2 * math.pi
    t = np.linspace(a0, a1, n)
    return np.stack([cx + 0.5 * np.cos(t), cy + 0.5 * np.sin(t)], axis=1)


def _out_point(side: str, d: float = 0.06) -> tuple[float, float]:
    m, o = _MID[side], _OUT[side]
    return (m[0] + o[0] * d, m[1] + o[1] * d)


def _line_path(sides: tuple[str, ...], end: tuple[float, float] | None) -> np.ndarray:
    """Centre line (unit coordinates) of a road, river or rail, reaching past the tile edge."""
    if len(sides) == 2:
        a, b = sides
        if (_side_index(a) - _side_index(b)) % 2 == 0:
            body = np.array([_MID[a], _MID[b]])
        else:
            corner = (1.0 if "E" in sides else 0.0, 1.0 if "S" in sides else 0.0)
            body = _arc(corner, _MID[a], _MID[b])
        return np.vstack([[_out_point(a)], body, [_out_point(b)]])
    (a,) = sides
    pts = [_out_point(a), _MID[a], _CENTRE if end is None else end]
    if end is not None and end != _CENTRE:
        pts = [_out_point(a), _MID[a], _CENTRE, end]
    return np.array(pts, float)


def _resample(path: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every ``step`` along a polyline and the unit tangent there."""
    seg = np.diff(path, axis=0)
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    keep = lengths > 1e-9
    seg, lengths = seg[keep], lengths[keep]
    starts = path[:-1][keep]
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    s = np.arange(step / 2, cum[-1], step)
    idx = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(lengths) - 1)
    frac = (s - cum[idx]) / lengths[idx]
    pts = starts[idx] + seg[idx] * frac[:, None]
    tang = seg[idx] / lengths[idx][:, None]
    return pts, tang


def _point_at(path: np.ndarray, frac: float) -> tuple[np.ndarray, np.ndarray]:
    """Point and unit tangent at a fraction of a polyline's length."""
    seg = np.diff(path, axis=0)
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    s = frac * cum[-1]
    i = int(np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(lengths) - 1))
    t = (s - cum[i]) / max(lengths[i], 1e-9)
    return path[i] + seg[i] * t, seg[i] / max(lengths[i], 1e-9)


# --------------------------------------------------------------------------- textures


_MATERIALS = ("field", "prairie", "city", "mountain", "grave_ground", "plaza")


@lru_cache(maxsize=48)
def _texture(material: str, size: int, seed: int) -> np.ndarray:
    """A (size, size, 3) uint8 texture of a material; read-only, shared."""
    # The broad shading is the same for every seed; the seed varies the fine grain and tufts.
    g = max(4, size // 20)
    base_rng = np.random.default_rng([size, _MATERIALS.index(material)])
    low = cv2.resize(base_rng.standard_normal((g, g)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    rng = np.random.default_rng([seed & 0xFFFFFFFF, size, _MATERIALS.index(material)])
    fine = rng.standard_normal((size, size)).astype(np.float32)
    amp_low, amp_fine = {"field": (9, 4), "prairie": (9, 5), "city": (10, 7), "mountain": (12, 8),
                         "grave_ground": (6, 5), "plaza": (5, 4)}[material]
    shade = (amp_low * low + amp_fine * fine)[:, :, None]
    tex = np.clip(np.asarray(PALETTE[material], np.float32) + shade, 0, 255).astype(np.uint8)
    n = int(size * size / 700)
    pts = rng.random((n, 2)) * size
    if material in ("field", "prairie"):
        tuft = PALETTE[material + "_tuft"]
        ang = rng.normal(-math.pi / 2, 0.5, n)
        ln = size * (0.012 + 0.014 * rng.random(n)) * (1.6 if material == "prairie" else 1.0)
        for (x, y), a, l in zip(pts, ang, ln):
            p0 = (int(x * _SS), int(y * _SS))
            p1 = (int((x + l * math.cos(a)) * _SS), int((y + l * math.sin(a)) * _SS))
            cv2.line(tex, p0, p1, tuft, 1, cv2.LINE_AA, _SHIFT)
    elif material == "city":
        for x, y in pts[: n // 2]:
            cv2.circle(tex, (int(x * _SS), int(y * _SS)), int(size * 0.006 * _SS) + 8, PALETTE["city_speck"],
                       -1, cv2.LINE_AA, _SHIFT)
    elif material == "mountain":
        dark, light = PALETTE["mountain_dark"], PALETTE["mountain_light"]
        for i, (x, y) in enumerate(pts[: n // 2]):
            a = rng.uniform(0, math.pi)
            l = size * rng.uniform(0.02, 0.05)
            p0 = (int(x * _SS), int(y * _SS))
            p1 = (int((x + l * math.cos(a)) * _SS), int((y + l * math.sin(a)) * _SS))
            cv2.line(tex, p0, p1, dark if i % 3 else light, 1, cv2.LINE_AA, _SHIFT)
    tex.setflags(write=False)
    return tex


# --------------------------------------------------------------------------- the painter


class _Painter:
    """Draws one tile; coordinates are unit fractions of the tile side."""

    def __init__(self, size: int, seed: int, layout: list | None = None) -> None:
        self.size = size
        self.seed = seed
        self.replaying = layout is not None
        self.decisions: list = list(layout) if layout is not None else []
        self._step = 0
        self.img = np.zeros((size, size, 3), np.uint8)
        self.barrier = np.zeros((size, size), np.uint8)  # walls, lines and centre features
        self.lines = np.zeros((size, size), np.uint8)    # line footprints only
        self.river = np.zeros((size, size), np.uint8)    # river footprints
        self.walls = np.zeros((size, size), np.uint8)    # cities and mountains

    def decide(self, compute):
        """A layout decision read off the masks: made by ``compute()`` when drawing at the
        layout size, replayed from that drawing at every other size."""
        if self.replaying:
            value = self.decisions[self._step]
        else:
            value = compute()
            self.decisions.append(value)
        self._step += 1
        return value

    # -- conversions
    def px(self, pts) -> np.ndarray:
        """Unit points -> int32 fixed-point pixel coordinates for ``shift=4``."""
        return np.round(np.asarray(pts, float).reshape(-1, 2) * self.size * _SS - _SS / 2).astype(np.int32)

    def pt(self, p) -> tuple[int, int]:
        q = self.px([p])[0]
        return int(q[0]), int(q[1])

    def th(self, frac: float, minimum: int = 1) -> int:
        """A line thickness in pixels from a fraction of the tile side."""
        return max(minimum, int(round(frac * self.size)))

    def r(self, frac: float) -> int:
        """A fixed-point radius from a fraction of the tile side."""
        return max(_SS // 2, int(round(frac * self.size * _SS)))

    # -- primitives
    def poly(self, pts, colour, img=None) -> None:
        cv2.fillPoly(self.img if img is None else img, [self.px(pts)], colour, cv2.LINE_AA, _SHIFT)

    def outline(self, pts, colour, frac: float, closed: bool = False, minimum: int = 1, img=None) -> None:
        cv2.polylines(self.img if img is None else img, [self.px(pts)], closed, colour, self.th(frac, minimum),
                      cv2.LINE_AA, _SHIFT)

    def disc(self, c, rad: float, colour, thickness: int = -1, img=None) -> None:
        cv2.circle(self.img if img is None else img, self.pt(c), self.r(rad), colour, thickness, cv2.LINE_AA,
                   _SHIFT)

    def ellipse(self, c, axes, angle: float, colour, thickness: int = -1) -> None:
        cv2.ellipse(self.img, self.pt(c), (self.r(axes[0]), self.r(axes[1])), angle, 0, 360, colour, thickness,
                    cv2.LINE_AA, _SHIFT)

    def segment(self, a, b, colour, frac: float, minimum: int = 1) -> None:
        cv2.line(self.img, self.pt(a), self.pt(b), colour, self.th(frac, minimum), cv2.LINE_AA, _SHIFT)

    def mask_of(self, pts) -> np.ndarray:
        m = np.zeros((self.size, self.size), np.uint8)
        cv2.fillPoly(m, [self.px(pts)], 255, cv2.LINE_8, _SHIFT)
        return m

    def fill_texture(self, mask: np.ndarray, material: str) -> None:
        sel = mask > 0
        self.img[sel] = _texture(material, self.size, self.seed)[sel]


# --------------------------------------------------------------------------- drawing


def _draw(tile: TileType, size: int, seed: int) -> np.ndarray:
    layout = None
    if size != _LAYOUT_PX:
        key = _tile_key(tile)
        layout = _LAYOUTS.get(key)
        if layout is None:
            layout = _LAYOUTS[key] = _paint(tile, _LAYOUT_PX, 0, None).decisions
    return _paint(tile, size, seed, layout).img


def _paint(tile: TileType, size: int, seed: int, layout: list | None) -> _Painter:
    feats = tile.features
    p = _Painter(size, seed, layout)
    kinds = {f.kind for f in feats}
    goldrush = bool(kinds & {"prairie", "mountain", "rail", "town", "cemetery"})
    ground = "prairie" if goldrush else "field"
    p.img[:] = _texture(ground, size, seed)
    centre = next((f for f in feats if f.kind in ("cloister", "town", "cemetery")), None)

    walls = [(i, f) for i, f in enumerate(feats) if f.kind in ("city", "mountain")]
    shapes = {i: _wall_shape(f.edges, centre is not None) for i, f in walls}
    wall_masks = {i: p.mask_of(shapes[i][0]) for i, _ in walls}
    wall_union = np.zeros((size, size), np.uint8)
    for m in wall_masks.values():
        wall_union |= m
    centre_walled = bool(wall_union[size // 2, size // 2])

    lines = [(i, f) for i, f in enumerate(feats) if f.kind in ("road", "river", "rail")]
    single = [f for _, f in lines if len(f.edges) == 1]
    ends: dict[int, tuple[float, float] | None] = {}
    for i, f in lines:
        if len(f.edges) != 1:
            continue
        same = [g for g in single if g.kind == f.kind]
        if centre is None and not centre_walled and len(same) == 1 and walls:
            ends[i] = _wall_target(f.edges[0], [feats[j].edges for j, _ in walls])
        else:
            ends[i] = None
    paths = {i: _line_path(f.edges, ends.get(i)) for i, f in lines}

    # Lines that end under a wall (or pass under it: rivers) go first, the wall covers them.
    under = [(i, f) for i, f in lines if f.kind == "river" or len(f.edges) == 1]
    over = [(i, f) for i, f in lines if (i, f) not in under]
    order = {"river": 0, "road": 1, "rail": 2}
    for i, f in sorted(under, key=lambda t: order[t[1].kind]):
        _draw_line(p, f.kind, paths[i])
    _draw_line_ends(p, tile, feats, centre, centre_walled)
    for i, f in walls:
        _draw_wall(p, f, wall_masks[i], shapes[i][1])
    for i, f in sorted(over, key=lambda t: order[t[1].kind]):
        _draw_line(p, f.kind, paths[i], bridge=bool(wall_union[_mask_hits(p, paths[i])].any()))
    p.barrier |= wall_union
    p.walls = wall_union

    # Centre features and symbols.
    if centre is not None:
        if any(f.kind == "river" and len(f.edges) == 2 for f in feats):  # an island in the river
            p.ellipse(_CENTRE, (0.2, 0.17), 0, PALETTE["river_edge"])
            island = np.zeros((size, size), np.uint8)
            cv2.ellipse(island, p.pt(_CENTRE), (p.r(0.185), p.r(0.155)), 0, 0, 360, 255, -1, cv2.LINE_8, _SHIFT)
            p.fill_texture(island, ground)
        {"cloister": _cloister, "town": _town, "cemetery": _cemetery}[centre.kind](p)
        p.disc(_CENTRE, 0.17, 255, img=p.barrier)
    for i, f in lines:
        if f.get("locomotives"):
            _locomotives(p, paths[i], f.get("locomotives"))
        if f.get("inn"):
            _inn(p, paths[i])
    for i, f in walls:
        if f.kind == "city":
            _city_symbols(p, wall_masks[i], f.get("pennants"))
        else:
            _mountain_symbols(p, wall_masks[i], f.get("nuggets"))
    # Corner symbols: pick their corners first so that field symbols keep clear of them.
    free_corners = list(p.decide(lambda: _free_corners(p)))
    gold_at = free_corners.pop(0) if tile.gold else None
    star_at = free_corners.pop(0) if tile.sheriff else None
    # River II repeats some River I designs: its tiles carry a small set mark (two waves)
    # so that the two boxes can be told apart, as their printed art can.
    mark_at = free_corners.pop(0) if tile.meta.get("set") == "river2" and free_corners else None
    for c in (gold_at, star_at, mark_at):
        if c is not None:
            p.disc(c, 0.11, 255, img=p.barrier)
    _field_symbols(p, feats)
    if gold_at is not None:
        _ingot(p, gold_at, 0.095)
    if star_at is not None:
        p.disc(star_at, 0.095, PALETTE["tipi_dark"])  # the Sheriff star on a dark badge
        _star(p, star_at, 0.088)
    if mark_at is not None:
        p.disc(mark_at, 0.075, (245, 240, 225))
        for dy in (-0.025, 0.025):
            x, y = mark_at
            wave = np.array([[x - 0.05 + 0.1 * t, y + dy + 0.015 * np.sin(2 * np.pi * 2 * t)] for t in np.linspace(0, 1, 12)])
            p.outline(wave, PALETTE["river"], 0.012)
    _border(p)
    return p


def _mask_hits(p: _Painter, path: np.ndarray) -> np.ndarray:
    pts, _ = _resample(path, 0.02)
    pts = pts[(pts >= 0).all(axis=1) & (pts < 1).all(axis=1)]
    ij = np.clip((pts * p.size).astype(int), 0, p.size - 1)
    return (ij[:, 1], ij[:, 0])


def _wall_target(side: str, wall_edges: list[tuple[str, ...]]) -> tuple[float, float]:
    """Where a lone one-side line ends when it runs into a city or mountain."""
    touched = [s for edges in wall_edges for s in edges]
    target = OPPOSITE[side] if OPPOSITE[side] in touched else touched[0]
    return _MID[target]


def _draw_line(p: _Painter, kind: str, path: np.ndarray, bridge: bool = False) -> None:
    w = _HALF_WIDTH[kind]
    if kind != "river" and p.river.any():  # a bridge where it crosses a river
        tmp = p.img.copy()
        p.outline(path, PALETTE["wall_dark"], 2 * w + 0.07, minimum=3, img=tmp)
        p.outline(path, PALETTE["wall"], 2 * w + 0.04, minimum=3, img=tmp)
        sel = cv2.dilate(p.river, np.ones((3, 3), np.uint8)) > 0
        p.img[sel] = tmp[sel]
    cv2.polylines(p.barrier, [p.px(path)], False, 255, p.th(2 * w + 0.02), cv2.LINE_8, _SHIFT)
    cv2.polylines(p.lines, [p.px(path)], False, 255, p.th(2 * w), cv2.LINE_8, _SHIFT)
    if kind == "river":
        cv2.polylines(p.river, [p.px(path)], False, 255, p.th(2 * (w + _EDGE)), cv2.LINE_8, _SHIFT)
    if kind == "road":
        edge = PALETTE["wall_dark"] if bridge else PALETTE["road_edge"]
        p.outline(path, edge, 2 * (w + _EDGE), minimum=3)
        p.outline(path, PALETTE["road"], 2 * w, minimum=1)
    elif kind == "river":
        p.outline(path, PALETTE["river_edge"], 2 * (w + _EDGE), minimum=3)
        p.outline(path, PALETTE["river"], 2 * w, minimum=1)
        pts, tang = _resample(path, 0.09)
        nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
        for k, (q, t, n) in enumerate(zip(pts, tang, nrm)):
            off = 0.025 if k % 2 else -0.025
            a = q + n * off - t * 0.022
            b = q + n * off + t * 0.022
            p.segment(a, b, PALETTE["river_light"], 0.008)
    else:  # rail
        p.outline(path, PALETTE["ballast"], 2 * w, minimum=3)
        pts, tang = _resample(path, 0.062)
        nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
        for q, n in zip(pts, nrm):
            p.segment(q - n * 0.052, q + n * 0.052, PALETTE["sleeper"], 0.02)
        for off in (-0.028, 0.028):
            rail = _offset(path, off)
            p.outline(rail, PALETTE["rail"], 0.012, minimum=1)


def _offset(path: np.ndarray, d: float) -> np.ndarray:
    """The polyline moved ``d`` sideways (left of the direction of travel)."""
    seg = np.diff(path, axis=0)
    ln = np.maximum(np.hypot(seg[:, 0], seg[:, 1]), 1e-9)
    nrm = np.stack([-seg[:, 1], seg[:, 0]], axis=1) / ln[:, None]
    vn = np.vstack([nrm[:1], (nrm[:-1] + nrm[1:]) / 2, nrm[-1:]])
    vn /= np.maximum(np.hypot(vn[:, 0], vn[:, 1]), 1e-9)[:, None]
    return path + vn * d


def _draw_line_ends(p: _Painter, tile: TileType, feats, centre, centre_walled: bool) -> None:
    """What sits where one-side lines meet in the middle: junction, crossing, spring, lake."""
    if centre is not None or centre_walled:
        return
    for kind in ("river", "road", "rail"):
        n = sum(1 for f in feats if f.kind == kind and len(f.edges) == 1)
        if n == 0:
            continue
        if any(f.kind == kind and len(f.edges) == 1 and _lone_to_wall(f, feats) for f in feats):
            continue
        if kind == "river":
            if tile.river == "lake":
                p.ellipse(_CENTRE, (0.27, 0.22), 0, PALETTE["river_edge"])
                p.ellipse(_CENTRE, (0.25, 0.20), 0, PALETTE["river"])
                p.ellipse((0.44, 0.44), (0.09, 0.05), -20, PALETTE["river_light"])
            elif n == 1:  # spring (or a river that just ends)
                p.disc(_CENTRE, 0.1, PALETTE["river_edge"])
                p.disc(_CENTRE, 0.085, PALETTE["river"])
                p.disc((0.48, 0.48), 0.03, PALETTE["river_light"])
            else:  # fork: the arms flow together
                p.disc(_CENTRE, _HALF_WIDTH["river"] + 0.012, PALETTE["river"])
            p.disc(_CENTRE, 0.27 if tile.river == "lake" else 0.1, 255, img=p.barrier)
            continue
        if kind == "road":
            _house(p, (0.5, 0.5), 0.07, PALETTE["roof"])
            p.disc(_CENTRE, 0.08, 255, img=p.barrier)
        else:  # rail crossing or buffer stop
            if n >= 2:
                p.disc(_CENTRE, 0.085, PALETTE["rail"])
                p.disc(_CENTRE, 0.06, PALETTE["ballast"])
                p.disc(_CENTRE, 0.025, PALETTE["rail"])
            else:
                p.segment((0.42, 0.5), (0.58, 0.5), PALETTE["loco_red"], 0.03)
            p.disc(_CENTRE, 0.085, 255, img=p.barrier)


def _lone_to_wall(f: FeatureSpec, feats) -> bool:
    same = [g for g in feats if g.kind == f.kind and len(g.edges) == 1]
    return len(same) == 1 and any(g.kind in ("city", "mountain") for g in feats)


def _draw_wall(p: _Painter, f: FeatureSpec, mask: np.ndarray, borders: list[np.ndarray]) -> None:
    if f.kind == "city":
        p.fill_texture(mask, "city")
        for curve in borders:
            p.outline(curve, PALETTE["wall_dark"], 0.05, minimum=3)
            p.outline(curve, PALETTE["wall"], 0.03, minimum=1)
            # towers along the wall
            for frac in (0.3, 0.7) if len(curve) > 2 else ():
                q, _ = _point_at(curve, frac)
                if 0.06 < q[0] < 0.94 and 0.06 < q[1] < 0.94:
                    p.disc(q, 0.032, PALETTE["wall_dark"])
                    p.disc(q, 0.024, PALETTE["roof"])
    else:
        p.fill_texture(mask, "mountain")
        for curve in borders:
            jag = _jagged(curve, 0.018)
            p.outline(jag, PALETTE["mountain_dark"], 0.03, minimum=2)
            p.outline(_offset(jag, 0.012 if p.decide(lambda: _inside_left(curve, mask, p)) else -0.012),
                      PALETTE["mountain_light"], 0.008)


def _inside_left(curve: np.ndarray, mask: np.ndarray, p: _Painter) -> bool:
    q, t = _point_at(curve, 0.5)
    test = q + np.array([-t[1], t[0]]) * 0.06
    i, j = np.clip((test * p.size).astype(int), 0, p.size - 1)
    return bool(mask[j, i])


def _jagged(curve: np.ndarray, amp: float) -> np.ndarray:
    pts, tang = _resample(curve, 0.03)
    if len(pts) < 2:
        return curve
    nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
    wobble = np.where(np.arange(len(pts)) % 2 == 0, amp, -amp)[:, None]
    return np.vstack([curve[:1], pts + nrm * wobble, curve[-1:]])


def _spots(mask: np.ndarray, n: int, radius_px: float, keep_edge: float = 0.0) -> list[tuple[float, float]]:
    """Up to ``n`` well-spaced points (unit coordinates) deep inside ``mask``.

    Called through ``_Painter.decide``: worked out once, on the layout-size drawing.
    """
    if n <= 0:
        return []
    m = mask.copy()
    size = m.shape[0]
    if keep_edge > 0:
        e = max(1, int(keep_edge * size))
        m[:e, :] = 0
        m[-e:, :] = 0
        m[:, :e] = 0
        m[:, -e:] = 0
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    out = []
    for _ in range(n):
        j, i = np.unravel_index(int(np.argmax(dist)), dist.shape)
        if dist[j, i] <= 0:
            break
        out.append(((i + 0.5) / size, (j + 0.5) / size))
        cv2.circle(dist, (int(i), int(j)), int(2.2 * radius_px), 0, -1)
    return out


# --------------------------------------------------------------------------- symbols


def _shadow(p: _Painter, c, rx: float, ry: float) -> None:
    overlay = p.img.copy()
    cv2.ellipse(overlay, p.pt((c[0] + rx * 0.25, c[1] + ry * 0.35)), (p.r(rx), p.r(ry)), 0, 0, 360,
                (0, 0, 0), -1, cv2.LINE_AA, _SHIFT)
    cv2.addWeighted(overlay, 0.25, p.img, 0.75, 0, dst=p.img)


def _house(p: _Painter, c, s: float, roof) -> None:
    """A small house seen from above at an angle: wall strip and a pitched roof."""
    x, y = c
    body = [(x - s, y - 0.1 * s), (x + s, y - 0.1 * s), (x + s, y + 0.7 * s), (x - s, y + 0.7 * s)]
    p.poly(body, PALETTE["house"])
    p.outline(body, PALETTE["wall_dark"], 0.006, closed=True)
    roof_pts = [(x - 1.1 * s, y), (x - 0.8 * s, y - 0.75 * s), (x + 0.8 * s, y - 0.75 * s), (x + 1.1 * s, y)]
    p.poly(roof_pts, roof)
    p.outline(roof_pts, PALETTE["roof_dark"], 0.006, closed=True)
    p.segment((x - 0.8 * s, y - 0.75 * s), (x + 0.8 * s, y - 0.75 * s), PALETTE["roof_dark"], 0.01)
    p.poly([(x - 0.2 * s, y + 0.7 * s), (x - 0.2 * s, y + 0.25 * s), (x + 0.2 * s, y + 0.25 * s),
            (x + 0.2 * s, y + 0.7 * s)], PALETTE["wall_dark"])


def _cloister(p: _Painter) -> None:
    """A cloister: church with a red roof and a bell tower, about 0.35 of the tile wide."""

    def t(*pts):
        return [(0.5 + (x - 0.5) * 0.8, 0.5 + (y - 0.45) * 0.8) for x, y in pts]

    _shadow(p, (0.52, 0.53), 0.15, 0.1)
    nave = t((0.34, 0.44), (0.70, 0.44), (0.70, 0.66), (0.34, 0.66))
    p.poly(nave, PALETTE["house"])
    p.outline(nave, PALETTE["wall_dark"], 0.008, closed=True)
    roof = t((0.32, 0.52), (0.37, 0.40), (0.72, 0.40), (0.72, 0.52))
    p.poly(roof, PALETTE["roof"])
    p.outline(roof, PALETTE["roof_dark"], 0.008, closed=True)
    for x in (0.46, 0.56, 0.65):  # windows
        p.poly(t((x - 0.015, 0.56), (x + 0.015, 0.56), (x + 0.015, 0.62), (x - 0.015, 0.62)), PALETTE["wall_dark"])
    tower = t((0.30, 0.36), (0.42, 0.36), (0.42, 0.68), (0.30, 0.68))
    p.poly(tower, PALETTE["house"])
    p.outline(tower, PALETTE["wall_dark"], 0.008, closed=True)
    spire = t((0.28, 0.37), (0.36, 0.22), (0.44, 0.37))
    p.poly(spire, PALETTE["roof"])
    p.outline(spire, PALETTE["roof_dark"], 0.008, closed=True)
    a, b = t((0.36, 0.22), (0.36, 0.15))
    p.segment(a, b, PALETTE["wall_dark"], 0.01)
    a, b = t((0.335, 0.175), (0.385, 0.175))
    p.segment(a, b, PALETTE["wall_dark"], 0.01)
    p.poly(t((0.34, 0.68), (0.34, 0.60), (0.38, 0.60), (0.38, 0.68)), PALETTE["wall_dark"])  # door


def _town(p: _Painter) -> None:
    p.disc(_CENTRE, 0.2, PALETTE["wall_dark"])
    m = np.zeros((p.size, p.size), np.uint8)
    p.disc(_CENTRE, 0.19, 255, img=m)
    p.fill_texture(m, "plaza")
    for (x, y), s in (((0.39, 0.38), 0.055), ((0.61, 0.37), 0.06), ((0.37, 0.60), 0.05), ((0.62, 0.61), 0.055)):
        body = [(x - s, y - s * 0.6), (x + s, y - s * 0.6), (x + s, y + s * 0.8), (x - s, y + s * 0.8)]
        p.poly(body, PALETTE["wood"])
        p.outline(body, PALETTE["wall_dark"], 0.006, closed=True)
        roof = [(x - s * 1.1, y - s * 0.3), (x, y - s * 1.2), (x + s * 1.1, y - s * 0.3)]
        p.poly(roof, PALETTE["wood_roof"])
        p.poly([(x - s * 0.25, y + s * 0.8), (x - s * 0.25, y + s * 0.2), (x + s * 0.25, y + s * 0.2),
                (x + s * 0.25, y + s * 0.8)], PALETTE["wall_dark"])
    # water tower in the square
    p.disc((0.5, 0.5), 0.035, PALETTE["wood_roof"])
    p.disc((0.5, 0.5), 0.02, PALETTE["river"])


def _cemetery(p: _Painter) -> None:
    box = [(0.32, 0.32), (0.68, 0.32), (0.68, 0.68), (0.32, 0.68)]
    m = p.mask_of(box)
    p.fill_texture(m, "grave_ground")
    p.outline(box, PALETTE["wall_dark"], 0.018, closed=True)
    for x, y in ((0.41, 0.42), (0.59, 0.42), (0.41, 0.6), (0.59, 0.6)):
        p.segment((x, y - 0.06), (x, y + 0.06), PALETTE["grave"], 0.022)
        p.segment((x - 0.035, y - 0.025), (x + 0.035, y - 0.025), PALETTE["grave"], 0.022)
        p.segment((x, y - 0.06), (x, y + 0.06), PALETTE["wall_dark"], 0.006)
    p.segment((0.46, 0.68), (0.54, 0.68), PALETTE["grave_ground"], 0.025)  # gate


def _city_symbols(p: _Painter, mask: np.ndarray, pennants: int) -> None:
    area = float(mask.mean()) / 255.0
    n_houses = 1 if area < 0.25 else 2 if area < 0.5 else 3
    spots = p.decide(lambda: _spots(mask, pennants + n_houses, 0.075 * p.size, keep_edge=0.05))
    shields, houses = spots[:pennants], spots[pennants:]
    for c in houses:
        _house(p, c, 0.055, PALETTE["roof"])
    for c in shields:
        _shield(p, c, 0.085)


def _shield(p: _Painter, c, s: float) -> None:
    """A pennant: blue and white shield, ``s`` its half width."""
    x, y = c
    outline = [(x - s, y - s), (x + s, y - s), (x + s, y + 0.2 * s), (x, y + 1.15 * s), (x - s, y + 0.2 * s)]
    p.poly(outline, PALETTE["white"])
    p.poly([(x - s, y - s), (x, y - s), (x, y + 1.15 * s), (x - s, y + 0.2 * s)], PALETTE["pennant"])
    p.poly([(x, y - s), (x + s, y - s), (x + s, y + 0.1 * s), (x, y + 0.1 * s)], PALETTE["pennant"])
    p.outline(outline, (20, 30, 70), 0.012, closed=True, minimum=1)


def _mountain_symbols(p: _Painter, mask: np.ndarray, nuggets: int) -> None:
    """Gold nuggets (one per ``nuggets``, deepest spots first) and rocky peaks in a mountain."""
    area = float(mask.mean()) / 255.0
    n_peaks = 1 if area < 0.25 else 2 if area < 0.55 else 4
    spots = p.decide(lambda: _spots(mask, nuggets + n_peaks, 0.055 * p.size, keep_edge=0.04))
    for x, y in spots[nuggets:]:
        s = 0.07
        left = [(x - s, y + 0.5 * s), (x, y - 0.8 * s), (x, y + 0.5 * s)]
        right = [(x, y - 0.8 * s), (x + s, y + 0.5 * s), (x, y + 0.5 * s)]
        p.poly(left, PALETTE["mountain_light"])
        p.poly(right, PALETTE["mountain_dark"])
        p.outline([(x - s, y + 0.5 * s), (x, y - 0.8 * s), (x + s, y + 0.5 * s)], PALETTE["mountain_dark"], 0.008)
    for c in spots[:nuggets]:
        _nugget(p, c, 0.058)


def _nugget(p: _Painter, c, s: float) -> None:
    x, y = c
    pts = [(x - s, y + 0.2 * s), (x - 0.6 * s, y - 0.7 * s), (x + 0.3 * s, y - 0.9 * s), (x + s, y - 0.2 * s),
           (x + 0.7 * s, y + 0.7 * s), (x - 0.4 * s, y + 0.8 * s)]
    p.poly(pts, PALETTE["gold"])
    p.outline(pts, PALETTE["gold_dark"], 0.008, closed=True)
    p.disc((x - 0.2 * s, y - 0.3 * s), 0.25 * s, PALETTE["gold_light"])


def _ingot(p: _Painter, c, s: float) -> None:
    """Goldmines symbol: a gold ingot (trapezoid bar), ``s`` its half width."""
    x, y = c
    bottom = [(x - s, y + 0.45 * s), (x + s, y + 0.45 * s), (x + 0.7 * s, y - 0.1 * s), (x - 0.7 * s, y - 0.1 * s)]
    top = [(x - 0.7 * s, y - 0.1 * s), (x + 0.7 * s, y - 0.1 * s), (x + 0.5 * s, y - 0.45 * s),
           (x - 0.5 * s, y - 0.45 * s)]
    _shadow(p, c, s * 1.05, s * 0.5)
    p.poly(bottom, PALETTE["gold"])
    p.poly(top, PALETTE["gold_light"])
    p.outline(bottom + top[2:], PALETTE["gold_dark"], 0.008, closed=True)
    p.outline(bottom[2:], PALETTE["gold_dark"], 0.006)


def _star(p: _Painter, c, s: float, colour=None, edge=None) -> None:
    """A five-pointed star of outer radius ``s``."""
    pts = _star_points(c, s)
    p.poly(pts, PALETTE["star"] if colour is None else colour)
    p.outline(pts, PALETTE["gold_dark"] if edge is None else edge, 0.01, closed=True)


def _star_points(c, s: float) -> list[tuple[float, float]]:
    pts = []
    for k in range(10):
        a = -math.pi / 2 + k * math.pi / 5
        rr = s if k % 2 == 0 else s * 0.45
        pts.append((c[0] + rr * math.cos(a), c[1] + rr * math.sin(a)))
    return pts


def _locomotives(p: _Painter, path: np.ndarray, n: int) -> None:
    for k in range(n):
        q, t = _point_at(path, (k + 1) / (n + 1))
        _loco(p, q, t)


def _loco(p: _Painter, c, tang) -> None:
    """A steam locomotive seen from above, pointing along the rail."""
    t = np.asarray(tang, float)
    n = np.array([-t[1], t[0]])
    c = np.asarray(c, float)

    def box(a0, a1, w):
        return [c + t * a0 + n * w, c + t * a1 + n * w, c + t * a1 - n * w, c + t * a0 - n * w]

    p.poly(box(-0.13, 0.13, 0.055), PALETTE["loco"])          # boiler and frame
    p.poly(box(-0.13, -0.05, 0.062), PALETTE["loco_red"])     # cab
    p.outline(box(-0.13, 0.13, 0.055), (10, 10, 10), 0.006, closed=True)
    p.poly(box(-0.11, -0.07, 0.04), (20, 20, 20))             # cab roof opening
    p.disc(c + t * 0.07, 0.026, PALETTE["ballast"])           # chimney
    p.disc(c + t * 0.07, 0.014, (10, 10, 10))
    p.poly(box(0.13, 0.16, 0.05), PALETTE["loco_red"])        # cow-catcher


def _inn(p: _Painter, path: np.ndarray) -> None:
    """An inn: a house with a blue roof and a sign beside the road."""
    q, t = _point_at(path, 0.3)
    n = np.array([-t[1], t[0]])

    def side() -> int:
        for sign in (1, -1):
            i, j = np.clip(((q + n * sign * 0.17) * p.size).astype(int), 0, p.size - 1)
            if not p.barrier[j, i]:
                return sign
        return -1

    c = q + n * p.decide(side) * 0.17
    _house(p, tuple(c), 0.085, (60, 90, 170))
    p.disc((c[0] + 0.11, c[1] + 0.03), 0.026, PALETTE["gold"])
    p.disc((c[0] + 0.11, c[1] + 0.03), 0.026, PALETTE["wall_dark"], 1)


def _field_symbols(p: _Painter, feats) -> None:
    wanted = [(i, f) for i, f in enumerate(feats)
              if f.kind in ("field", "prairie") and (f.get("pigherd") or f.get("camps") or f.get("horses"))]
    if not wanted:
        return
    labels = None

    def spots_in_field(f: FeatureSpec, n: int) -> list[tuple[float, float]]:
        nonlocal labels
        if labels is None:
            _, labels = cv2.connectedComponents((p.barrier == 0).astype(np.uint8), connectivity=4)
        region = np.zeros(labels.shape, np.uint8)
        for h in f.edges:
            x, y = _HALF_SAMPLE[h]
            j0, i0 = int(y * p.size), int(x * p.size)
            patch = labels[max(0, j0 - 3):j0 + 4, max(0, i0 - 3):i0 + 4]
            for lab in np.unique(patch[patch > 0]):
                region[labels == lab] = 255
        return _spots(region, n, 0.09 * p.size, keep_edge=0.09)

    for i, f in wanted:
        items = ["pig"] * (1 if f.get("pigherd") else 0) + ["camp"] * f.get("camps") + ["horse"] * f.get("horses")
        spots = p.decide(lambda: spots_in_field(f, len(items)))
        for what, c in zip(items, spots):
            {"pig": _pigs, "camp": _tipi, "horse": _horse}[what](p, c)
            p.disc(c, 0.12, 255, img=p.barrier)


def _pigs(p: _Painter, c) -> None:
    """A pig herd: three pink pigs in a pen."""
    p.ellipse((c[0], c[1] + 0.005), (0.115, 0.095), 0, PALETTE["grave_ground"])
    p.ellipse((c[0], c[1] + 0.005), (0.115, 0.095), 0, PALETTE["wood_roof"], p.th(0.012))
    for dx, dy in ((-0.05, -0.03), (0.045, -0.04), (0.0, 0.045)):
        x, y = c[0] + dx, c[1] + dy
        p.ellipse((x, y), (0.042, 0.028), 0, PALETTE["pig"])
        p.disc((x + 0.042, y - 0.006), 0.018, PALETTE["pig"])
        p.ellipse((x, y), (0.042, 0.028), 0, PALETTE["pig_dark"], 1)
        p.disc((x + 0.05, y - 0.008), 0.004, PALETTE["pig_dark"])


def _tipi(p: _Painter, c) -> None:
    """An Indian camp: a tipi."""
    x, y = c
    k = 1.8

    def t(*pts):
        return [(x + dx * k, y + dy * k) for dx, dy in pts]

    _shadow(p, (x, y + 0.03 * k), 0.06 * k, 0.025 * k)
    body = t((-0.06, 0.05), (0, -0.065), (0.06, 0.05))
    p.poly(body, PALETTE["tipi"])
    a, b = t((-0.035, 0.0), (0.035, 0.0))
    p.segment(a, b, PALETTE["tipi_stripe"], 0.012 * k)
    a, b = t((-0.022, -0.03), (0.022, -0.03))
    p.segment(a, b, PALETTE["tipi_stripe"], 0.008 * k)
    p.outline(body, PALETTE["tipi_dark"], 0.01, closed=True)
    a, b = t((-0.02, -0.085), (0.012, -0.045))
    p.segment(a, b, PALETTE["tipi_dark"], 0.008 * k)
    a, b = t((0.02, -0.085), (-0.012, -0.045))
    p.segment(a, b, PALETTE["tipi_dark"], 0.008 * k)
    p.poly(t((-0.015, 0.05), (0, 0.015), (0.015, 0.05)), PALETTE["tipi_dark"])


#: Horse silhouette, facing right, in units of its half length.
_HORSE = np.array([
    (-1.0, -0.2), (-0.7, -0.3), (0.45, -0.3), (0.6, -0.55), (0.75, -0.8), (0.95, -0.75), (1.0, -0.6),
    (0.75, -0.35), (0.7, 0.05), (0.65, 0.7), (0.55, 0.7), (0.5, 0.15), (-0.45, 0.15), (-0.55, 0.7),
    (-0.65, 0.7), (-0.7, 0.05), (-0.85, 0.0), (-1.05, 0.35), (-1.1, 0.3), (-0.95, -0.1),
])


def _horse(p: _Painter, c) -> None:
    """A herd of wild horses: two horse silhouettes."""
    for (dx, dy), s, flip in (((-0.03, -0.035), 0.085, 1), ((0.045, 0.045), 0.075, -1)):
        pts = _HORSE * np.array([flip * s, s]) + np.array([c[0] + dx, c[1] + dy])
        p.poly(pts, PALETTE["horse"])
        p.outline(pts, (50, 30, 14), 0.005, closed=True)


def _free_corners(p: _Painter) -> list[tuple[float, float]]:
    """Corners free of lines and symbols, best first (for the gold ingot and Sheriff star)."""
    out = []
    for c in _CORNERS:
        x0, y0 = int((c[0] - 0.09) * p.size), int((c[1] - 0.07) * p.size)
        x1, y1 = int((c[0] + 0.09) * p.size), int((c[1] + 0.07) * p.size)
        busy = 4 * (p.barrier[y0:y1, x0:x1] & ~p.walls[y0:y1, x0:x1]).mean() + p.walls[y0:y1, x0:x1].mean()
        out.append((busy, c))
    return [c for _, c in sorted(out, key=lambda t: t[0])]


def _border(p: _Painter) -> None:
    """The tile edge: a thin darker frame."""
    w = max(1, p.size // 100)
    img = p.img
    for sl in ((slice(0, w), slice(None)), (slice(-w, None), slice(None)),
               (slice(w, -w), slice(0, w)), (slice(w, -w), slice(-w, None))):
        img[sl] = (img[sl].astype(np.uint16) * 9 // 20).astype(np.uint8)
    if p.size >= 96:
        for sl in ((slice(w, 2 * w), slice(w, -w)), (slice(-2 * w, -w), slice(w, -w)),
                   (slice(2 * w, -2 * w), slice(w, 2 * w)), (slice(2 * w, -2 * w), slice(-2 * w, -w))):
            img[sl] = (img[sl].astype(np.uint16) * 15 // 20).astype(np.uint8)
