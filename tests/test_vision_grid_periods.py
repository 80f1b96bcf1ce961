"""The lattice's period is settled at one tile from 2/3, 3/2, 1/3, 3 and 2 tiles (grid.py step 5).

Exact synthetic seams of an 8 x 8 board seen at a tilt (as in
``test_vision_grid``): a lattice of the wrong period put on them is settled by
:func:`scorer.vision.grid._settle` to one tile per cell, and the tile lattice
stays.  ``GridConfig.rescale_periods`` switches the 2/3 and 3/2 steps
(:func:`scorer.vision.grid._rescale`) off; ``GridConfig.halve_ratio`` decides
when a lattice of 2 x 2 tiles is halved.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.vision import grid as G
from scorer.vision.grid import GridConfig

from test_vision_grid import _lattice_photo_map, _seams

PTS = np.array([[x, y] for x in range(9) for y in range(9)], float)  # tile corners of the 8 x 8 board


def _cell_size(H: np.ndarray, Hn: np.ndarray) -> tuple[float, float]:
    """Lattice units per tile along east, and the largest distance of a tile corner from a lattice corner."""
    got = G._apply(H, G._apply(np.linalg.inv(Hn), PTS))
    return float(np.linalg.norm(got[9] - got[0])), float(np.abs(got - np.round(got)).max())


def _scene(roads: bool = True):
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    q1, q2 = _seams(to_q, roads=roads, rng=np.random.default_rng(0))
    return Hn, np.c_[q1, q2]


WRONG = {
    # name: lattice -> wrong lattice (lattice units per tile along both axes, phase)
    "cells of 2/3 tile": np.diag([1.5, 1.5, 1.0]),
    "cells of 3/2 tiles": np.diag([2 / 3, 2 / 3, 1.0]),
    "cells of 3/2 tiles, half a cell off": np.array([[2 / 3, 0, 1 / 3], [0, 2 / 3, 0], [0, 0, 1]]),
    "cells of 3 tiles": np.diag([1 / 3, 1 / 3, 1.0]),
    "cells of 1/3 tile": np.diag([3.0, 3.0, 1.0]),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_a_wrong_period_is_settled_at_one_tile(name):
    Hn, segs = _scene()
    size, off = _cell_size(G._settle(WRONG[name] @ Hn, segs, GridConfig()), Hn)
    assert size == pytest.approx(1.0, abs=1e-6), f"{name}: {size:.3f} lattice units per tile"
    assert off == pytest.approx(0.0, abs=1e-6), f"{name}: the lattice lies {off:.3f} tile off the seams"


@pytest.mark.parametrize("name, kept", [("cells of 3/2 tiles", 3.0), ("cells of 2/3 tile", 3.0)])
def test_without_rescaling_halving_and_doubling_miss_the_tile(name, kept):
    """The switch: halving and doubling alone end at a lattice of 1/3 or 3 tiles."""
    Hn, segs = _scene()
    size, _ = _cell_size(G._settle(WRONG[name] @ Hn, segs, GridConfig(rescale_periods=False)), Hn)
    assert size == pytest.approx(kept, rel=1e-6) or size == pytest.approx(1 / kept, rel=1e-6)


@pytest.mark.parametrize("n", [2, 3, 8])
def test_the_tile_lattice_stays(n):
    """Boards of 2 x 2, 3 x 3 and 8 x 8 tiles with roads: no trial period explains the seams better."""
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    q1, q2 = _seams(to_q, n, roads=True, rng=np.random.default_rng(1))
    segs = np.c_[q1, q2]
    assert G._rescale(Hn, segs, GridConfig()) is None
    assert _cell_size(G._settle(Hn, segs, GridConfig()), Hn) == pytest.approx((1.0, 0.0), abs=1e-6)


def test_rescale_explains_two_thirds_lattice():
    """On a lattice of 2/3 tile only every other seam line is its own; 3/2 of its period explains all 9 of them."""
    Hn, segs = _scene(roads=False)
    H = WRONG["cells of 2/3 tile"] @ Hn
    own = G._explained(H, segs, GridConfig().snap_tol).sum()
    tiles = (G._explained(np.diag([2 / 3, 2 / 3, 1.0]) @ H, segs, GridConfig().snap_tol) * 1.5).sum()
    assert tiles / own == pytest.approx(9 / 5, rel=1e-9)  # lines 0, 2, 4, 6, 8 of 0-8
    out = G._rescale(H, segs, GridConfig())
    assert _cell_size(out, Hn) == pytest.approx((1.0, 0.0), abs=1e-6)


def test_double_lattice_on_partly_seen_seams_is_halved():
    """Blur shows the seams in parts: the lines between a 2 x 2 tile lattice's carry 60% of its own seams.

    A steep, blurred photo of a large board: the segment detector finds every
    other seam line only in parts, and the lattice of 2 x 2 tiles frames more
    whole cells than the tile lattice; its in-between lines are seams all the
    same (through a tile's middle, a road or a river crosses now and then).
    """
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    rng = np.random.default_rng(2)
    a, b = [], []
    for i in range(9):
        for j in range(8):
            for end_a, end_b in (([i, j + 0.1], [i, j + 0.9]), ([j + 0.1, i], [j + 0.9, i])):
                if i % 2 == 0 or rng.random() < 0.6:  # every other line seen in parts
                    a.append(end_a)
                    b.append(end_b)
    segs = np.c_[to_q(np.array(a)), to_q(np.array(b))]
    double = np.diag([0.5, 0.5, 1.0]) @ Hn
    half = G._parity(np.diag([2.0, 2.0, 1.0]) @ double, segs, GridConfig().snap_tol)
    mid = half[:, 1] / half[:, 0]
    assert GridConfig().halve_ratio < mid.min() < 0.7  # between the new and the old halve_ratio
    assert _cell_size(G._settle(double, segs, GridConfig()), Hn) == pytest.approx((1.0, 0.0), abs=1e-6)
    kept = G._settle(double, segs, GridConfig(halve_ratio=0.7, rescale_periods=False))
    assert np.allclose(kept / kept[2, 2], double / double[2, 2])  # the old ratio keeps 2 x 2 tiles
