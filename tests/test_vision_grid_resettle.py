"""The lattice is settled again after the least-squares fit (grid.py step 5 after step 6).

A lattice of half the tile size a little off the seams misses them on its own
lines, so its odd and even lines look equally (poorly) covered and the first
settling keeps it; the fit puts its lines on the seams, where every other line
shows the empty middles of the tiles.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.vision import grid as G
from scorer.vision.grid import GridConfig

from test_vision_grid import _lattice_photo_map, _seams

PTS = np.array([[x, y] for x in range(9) for y in range(9)], float)  # tile corners of the 8 x 8 board


def _cell_size(H: np.ndarray, Hn: np.ndarray) -> tuple[float, float]:
    """Lattice units per tile along east and south, and the largest distance of a tile corner from a lattice corner."""
    got = G._apply(H, G._apply(np.linalg.inv(Hn), PTS))
    return float(np.linalg.norm(got[9] - got[0])), float(np.abs(got - np.round(got)).max())


def test_half_period_off_the_seams_is_doubled_after_the_fit():
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    q1, q2 = _seams(to_q, roads=True, rng=np.random.default_rng(0))
    segs = np.c_[q1, q2]
    cfg = GridConfig()
    off = np.array([[2.0, 0, 0.22], [0, 2.0, 0.22], [0, 0, 1.0]]) @ Hn  # half the tile size, 0.11 tile off
    first = G._settle(off, segs, cfg)
    assert _cell_size(first, Hn) == pytest.approx((2.0, 0.22))  # kept: half the tile size, off the seams
    H, k1, k2, _ = G._fit(first, 0.0, q1, q2, 1000.0, cfg)
    assert (k1, k2) == pytest.approx((0.0, 0.0), abs=1e-3)
    assert _cell_size(H, Hn) == pytest.approx((2.0, 0.0), abs=2e-3)  # on the seams, still half the tile size
    again = G._settle(H, segs, cfg)
    assert _cell_size(again, Hn) == pytest.approx((1.0, 0.0), abs=2e-3)  # one tile per cell


def test_find_grid_settles_the_fitted_lattice(monkeypatch):
    """Through the whole search: the half-size lattice chosen off the seams comes out one tile per cell."""
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    q1, q2 = _seams(to_q, roads=True, rng=np.random.default_rng(0))
    cfg = GridConfig()
    gray = np.full((800, 1000), 128, np.uint8)
    evidence = G._Evidence(gray, cfg)
    segs = np.c_[q1 * evidence.half + evidence.c, q2 * evidence.half + evidence.c]
    off = np.array([[2.0, 0, 0.22], [0, 2.0, 0.22], [0, 0, 1.0]]) @ Hn

    def choose(cands, ev, cfg_):
        return off, 5.0, 0.0, np.c_[q1, q2], np.ones(len(q1), bool)

    monkeypatch.setattr(G, "_choose", choose)
    grid = G._lattice_from_segments(segs, evidence, gray.shape, cfg)
    assert _cell_size(grid.Hn, Hn) == pytest.approx((1.0, 0.0), abs=2e-3)
