"""Seam families and their periods where the seams are few among other lines (grid.py steps 2 and 3).

Photos are synthesised (seeded) as in ``test_vision_grid``; a lattice is right
when every tile lands in its own cell, one whole-cell offset for all.
"""

from __future__ import annotations

import numpy as np
import pytest

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
