"""Seam families and their periods where the seams are few among other lines (grid.py steps 2 and 3).

Photos are synthesised (seeded) as in ``test_vision_grid``; a lattice is right
when every tile lands in its own cell, one whole-cell offset for all.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.vision import grid as G
from scorer.vision.grid import GridConfig, find_grid

from test_vision_grid import photo


def _cells_per_tile(res, grid) -> np.ndarray:
    """Lattice units between the centres of every two tiles side by side on the board."""
    keys = np.array(list(res.cell_corners.keys()))
    lat = grid.to_lattice(np.array([np.mean(c, axis=0) for c in res.cell_corners.values()]))
    return np.array([np.linalg.norm(lat[i] - lat[j]) for i in range(len(keys)) for j in range(i + 1, len(keys))
                     if np.abs(keys[i] - keys[j]).sum() == 1])


def _offsets(res, grid) -> np.ndarray:
    keys = np.array(list(res.cell_corners.keys()))
    lat = grid.to_lattice(np.array([np.mean(c, axis=0) for c in res.cell_corners.values()]))
    return np.unique(np.floor(lat).astype(int) - keys, axis=0)


def test_a_partner_period_is_looked_for_beside_each_good_period():
    """A steep photo (37 degrees) of 20 tiles in a snake among a box, cards and the table's edge:
    the tile size is not a family's best period.  With a partner looked for beside the best period
    only (band_periods 1) the lattice found has cells of about 10 tiles; beside the best two or
    three, the tile lattice is found."""
    res = photo("carcassonne", ["river"], 20, 7350017, "hard", megapixels=1.5)
    grid = find_grid(res.image)
    assert len(_offsets(res, grid)) == 1
    assert _cells_per_tile(res, grid) == pytest.approx(1.0, abs=0.03)
    best_only = find_grid(res.image, GridConfig(band_periods=1))
    assert len(_offsets(res, best_only)) > 1
    assert _cells_per_tile(res, best_only).max() < 0.11


def test_more_families_are_searched_while_none_can_be_perpendicular():
    """A board mostly one tile wide on wood grain: the grain takes three of the first four families
    and the seams along the board the fourth, and no two of them can be perpendicular on the
    table; the fifth is the seams across the board, a tile long each.  Stopping at four families
    (and without the chroma pass, which finds the tiles there), the lattice found has cells of a
    third of a tile."""
    res = photo("carcassonne", ["river"], 12, 7330031, "easy", megapixels=1.5, table="wood")
    cfg = GridConfig()
    gray = cv2.cvtColor(res.image, cv2.COLOR_RGB2GRAY)
    segs = G._without_cloth(G._segments(gray, cfg), G._Evidence(gray, cfg), cfg)
    half = 0.5 * np.hypot(*gray.shape)
    c = np.array([gray.shape[1], gray.shape[0]]) / 2
    p1, p2 = ((segs[:, :2] - c) / half, (segs[:, 2:4] - c) / half)
    for most, n in ((4, 4), (7, 5)):
        fams = G._families(G._undistort(p1, 0.05), G._undistort(p2, 0.05),
                           GridConfig(max_families_unpaired=most), np.random.default_rng(0))
        perpendicular = [(a, b) for a in range(len(fams)) for b in range(a + 1, len(fams))
                         if G._perpendicularity(fams[a][0], fams[b][0]) <= cfg.max_cos]
        assert (len(fams), perpendicular) == (n, [] if n == 4 else [(3, 4)])
    grid = find_grid(res.image)
    assert len(_offsets(res, grid)) == 1
    assert _cells_per_tile(res, grid) == pytest.approx(1.0, abs=0.03)
    four = find_grid(res.image, GridConfig(max_families_unpaired=4, chroma_pass=False))
    assert _cells_per_tile(res, four) == pytest.approx(1 / 3, abs=0.03)
