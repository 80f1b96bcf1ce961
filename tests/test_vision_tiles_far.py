"""A steep view over a textured floor: the far, tiny lattice cells are not examined.

The lattice seen in such a photo holds thousands of cells near the horizon, a
few pixels each; many match some tile at the coarse scale.  The survey leaves
out cells too small to read (``survey_min_px``) and the detail stage keeps the
nearest cells within a bounding box of ``max_board_area`` cells.
"""

from __future__ import annotations

import numpy as np

from scorer.vision.grid import Grid
from scorer.vision.recognise import TileConfig, _cell_sides, _nearest_within, _visible_cells, survey_lattice


def _steep_grid() -> Grid:
    """A 1000 x 800 photo looking at the lattice aslant: cells shrink towards the photo's top.

    Lattice ``(x, y)`` maps to photo pixels ``(400 + 60 x, 950 + 5 y) / (1 - 0.1 y)``:
    cells are ``100 / (1 - 0.1 y)^2`` pixels tall, 100 at ``y = 0`` (near the
    photo's bottom), 11 at ``y = -20``; the horizon lies 50 rows above the photo.
    """
    to_photo = np.array([[60.0, 0.0, 400.0], [0.0, 5.0, 950.0], [0.0, -0.1, 1.0]])
    h, w = 1000, 800
    n = 0.5 * float(np.hypot(w, h))
    N_inv = np.array([[n, 0, w / 2], [0, n, h / 2], [0, 0, 1]])
    return Grid(np.linalg.inv(to_photo) @ N_inv, (h, w))


def test_nearest_cells_within_the_bounding_box_are_kept():
    """Given 60 kept cells in a column x = 0, y = 0 .. -59 and a budget of 20 cells, when the
    budget is applied, then the 20 largest in the photo (y = 0 .. -19) stay; with a budget of 60
    (or 0: off) every cell stays."""
    grid = _steep_grid()
    cells = np.array([(0, -y) for y in range(60)])
    keep = np.ones(len(cells), bool)
    out = _nearest_within(grid, cells, keep, 20)
    assert sorted(cells[out][:, 1].tolist()) == list(range(-19, 1))
    assert _nearest_within(grid, cells, keep, 60).all()
    assert _nearest_within(grid, cells, keep, 0).all()


def test_cells_not_kept_stay_out_and_the_box_counts_both_axes():
    """Given kept cells (0..4, 0), (0, -10) and (3, -30) and one not kept (7, 7), when the budget
    is 25 cells, then only the row stays ((0, -10) would make the box 5 x 11 = 55); with 60 the
    row and (0, -10) stay but not (3, -30) (box 5 x 31); (7, 7) never."""
    grid = _steep_grid()
    cells = np.array([(x, 0) for x in range(5)] + [(0, -10), (3, -30), (7, 7)])
    keep = np.array([True] * 7 + [False])
    assert [tuple(c) for c in cells[_nearest_within(grid, cells, keep, 25)].tolist()] == [(x, 0) for x in range(5)]
    kept = [tuple(c) for c in cells[_nearest_within(grid, cells, keep, 60)].tolist()]
    assert kept == [(x, 0) for x in range(5)] + [(0, -10)]


def test_cells_too_small_to_read_are_not_surveyed():
    """Given the steep grid (cells from 100 pixels at the bottom to a few near the top), when the
    lattice is surveyed, then with survey_min_px = 12 exactly the 1257 visible cells at least 12
    pixels wide are surveyed; with 0 (off) the 6000 (max_cells) of 26010 nearest the photo's
    centre, some smaller."""
    grid = _steep_grid()
    rgb = np.random.default_rng(5).integers(0, 256, (1000, 800, 3), dtype=np.uint8)
    on = survey_lattice(rgb, grid, TileConfig())
    off = survey_lattice(rgb, grid, TileConfig(survey_min_px=0.0))
    assert TileConfig().survey_min_px == 12.0
    assert _cell_sides(grid, on.cells).min() >= 12.0
    assert _cell_sides(grid, off.cells).min() < 12.0
    inside, _ = _visible_cells(grid)
    large = {c for c, side in zip(inside, _cell_sides(grid, np.array(inside))) if side >= 12.0}
    assert len(inside) > 20_000 and len(large) == 1257
    assert {tuple(c) for c in on.cells.tolist()} == large
    assert len(off.cells) == TileConfig().max_cells  # the 6000 nearest the photo's centre instead
