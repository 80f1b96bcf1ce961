"""A figure merged with an ore stack into one dark candidate is split off (:func:`_ore_remainder`)."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.vision.figures import FigureConfig, _Blob, _make_canvas, _ore_remainder, _render, camera_from_grid
from scorer.vision.grid import Grid


def _tilted_grid() -> Grid:
    """A 3 x 2 tile board seen aslant (the far row narrower) in an 800 x 600 photo."""
    h, w = 600, 800
    c = np.array([w / 2, h / 2])
    n = 0.5 * np.hypot(w, h)
    photo = np.array([[180, 520], [620, 520], [560, 120], [240, 120]], dtype=np.float64)
    lattice = np.array([[0, 2], [3, 2], [3, 0], [0, 0]], dtype=np.float64)
    Hn = cv2.getPerspectiveTransform(((photo - c) / n).astype(np.float32), lattice.astype(np.float32))
    return Grid(Hn, (h, w), k1=0.0)


def _blob(mask: np.ndarray, px: int) -> _Blob:
    v, u = np.nonzero(mask)
    uv = np.column_stack([u, v]).astype(np.float64)
    k = len(uv)
    return _Blob(1, uv, (uv + 0.5) / px, np.ones(k), np.full((k, 3), 30.0), np.ones(k))


def test_figure_beside_an_ore_stack_is_split_off():
    """Given the outline of a 3-token ore stack on the middle of tile (1, 0) and a disc of radius 8
    pixels (about 100 mm^2) touching it on its right, then the part left outside the stack's outline
    lies within the disc and holds over 70% of it; the stack's outline alone leaves nothing, and a
    threshold above the disc's area (ore_split_mm2 = 150) keeps the candidate whole."""
    cfg = FigureConfig()
    cam = camera_from_grid(_tilted_grid(), cfg)
    canvas = _make_canvas({(x, y): (None, 0) for x in range(3) for y in range(2)}, cfg.px)
    foot = np.array([1.5, 0.5])
    mt = {"foot": foot, "yaw": 0, "count": 3}
    ore = _render("ore", 3, 0, foot, cam, canvas, np.zeros(2), canvas.shape, cfg.lattice_mm) > 0
    v, u = np.nonzero(ore)
    yy, xx = np.mgrid[:canvas.shape[0], :canvas.shape[1]]
    cu, cv = u.max() + 7, int(np.median(v))
    disc = (xx - cu) ** 2 + (yy - cv) ** 2 <= 64
    part = _ore_remainder(_blob(ore | disc, cfg.px), mt, cam, canvas, cfg)
    assert part is not None
    inside = disc[part.uv[:, 1].astype(int), part.uv[:, 0].astype(int)]
    assert inside.all()
    assert len(part.uv) > 0.7 * disc.sum()
    assert _ore_remainder(_blob(ore, cfg.px), mt, cam, canvas, cfg) is None
    cfg.ore_split_mm2 = 150.0
    assert _ore_remainder(_blob(ore | disc, cfg.px), mt, cam, canvas, cfg) is None
