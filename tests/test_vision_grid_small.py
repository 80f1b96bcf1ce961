"""Boards of a few tiles: the lattice search keeps the tile size where the seams alone mislead.

On a board of three tiles, rails or roads through the tiles' middles cover
the lines half a cell off nearly as well as the seams do, the board's outline
lies on every third line of some coarser lattice, and every framed cell of a
lattice counts fully; settling the period on the seams
(:func:`scorer.vision.grid._settle`) therefore asks how many tiles the lattice
it would make frames.  Photos are synthesised (seeded) as in
``test_vision_grid``.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.vision import grid as G
from scorer.vision.grid import GridConfig, find_grid

from test_vision_grid import _lattice_photo_map, cell_offsets, photo


def _tile_steps(res, grid) -> np.ndarray:
    """Lattice units between the centres of every two tiles side by side on the board."""
    keys = np.array(list(res.cell_corners.keys()))
    lat = grid.to_lattice(np.array([np.mean(c, axis=0) for c in res.cell_corners.values()]))
    return np.array([np.linalg.norm(lat[i] - lat[j]) for i in range(len(keys)) for j in range(i + 1, len(keys))
                     if np.abs(keys[i] - keys[j]).sum() == 1])


def test_three_tiles_keep_their_period_where_a_coarser_lattice_frames_none():
    """Three Gold Rush tiles close up: the lattice of the tiles frames them (tile score 1.5); on the
    seams alone a lattice of 3 tiles explains the board's outline about as well (13.0 of 15.3), and
    without the tile count the search ends with the three tiles in one cell."""
    res = photo("goldrush", ["sheriff"], 3, 7320023, "easy", megapixels=3.0, table="wood")
    grid = find_grid(res.image)
    off, err = cell_offsets(res, grid)
    assert len(np.unique(off, axis=0)) == 1 and err < 0.02
    assert _tile_steps(res, grid) == pytest.approx([1.0, 1.0], abs=0.03)
    unguarded = find_grid(res.image, GridConfig(settle_keep=0.0))
    assert _tile_steps(res, unguarded).max() < 0.01  # every tile in the same cell


def test_halving_stands_only_where_the_halved_lattice_frames_the_tiles():
    """The seams of a lattice of 2 x 2 tiles' in-between lines are covered: halved, unless the
    tiles framed (``tiles``) fall below ``settle_keep`` of the lattice's."""
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    a, b = [], []
    for i in range(9):
        for j in range(8):
            a += [[i, j + 0.1], [j + 0.1, i]]
            b += [[i, j + 0.9], [j + 0.9, i]]
    segs = np.c_[to_q(np.array(a, float)), to_q(np.array(b, float))]
    double = np.diag([0.5, 0.5, 1.0]) @ Hn  # cells of 2 x 2 tiles

    def cell_tiles(H: np.ndarray) -> float:
        corner = G._apply(H, G._apply(np.linalg.inv(Hn), np.array([[0.0, 0.0], [1.0, 0.0]])))
        return float(np.linalg.norm(corner[1] - corner[0]))  # lattice units per tile

    cfg = GridConfig()
    assert cell_tiles(G._settle(double, segs, cfg)) == pytest.approx(1.0)
    assert cell_tiles(G._settle(double, segs, cfg, lambda H: 10.0 / cell_tiles(H))) == pytest.approx(1.0)
    frames_less = lambda H: 1.0 if cell_tiles(H) < 0.75 else 0.49  # noqa: E731 - halved: under half the tiles
    assert cell_tiles(G._settle(double, segs, cfg, frames_less)) == pytest.approx(0.5)


def test_of_lattices_framing_as_many_tiles_the_one_with_larger_cells_wins(monkeypatch):
    """Three Gold Rush tiles in a row on a checked cloth, rails through their middles: the tile
    lattice and one of half the tile size both frame 3 tiles (every framed cell counts fully); the
    larger cells win.  Told apart by nothing (every cell area alike), the first found, of half the
    tile size, would."""
    res = photo("goldrush", ["sheriff"], 3, 7310059, "easy", megapixels=1.0)
    grid = find_grid(res.image)
    assert grid.debug["tiles"] == pytest.approx(3.0)
    assert _tile_steps(res, grid) == pytest.approx([1.0, 1.0], abs=0.01)
    monkeypatch.setattr(G, "_cell_area", lambda H, usegs, cfg: 1.0)
    first = find_grid(res.image)
    assert first.debug["tiles"] == pytest.approx(3.0)
    assert _tile_steps(res, first) == pytest.approx([2.0, 2.0], abs=0.01)
