"""A checked tablecloth in the prairie's colours beside a Gold Rush board is table, not tiles.

White and orange checks have the sand colours and the contrast of Gold Rush
art, so the occupancy model takes many cells of the cloth beside the board
for tiles, though no template matches them (fine scores about zero or below)
and nothing hides them.  A decoded tile that matches below
``unmatched_score`` on a cell less than ``unmatched_hidden`` hidden is left
out (a tile under a figure keeps its low score: it is hidden).  With the
detail comparison made half on chromaticity (``detail_chroma``) a second cell
of the cloth, beside the board's corner, is read as a tile (GR10 at fine score
0.05: the repair of cells that do not meet their neighbours scores it again
among the tiles that fit them); on RGB alone, one cell.

Photos are synthesised (seeded); the lattice is the synthesiser's exact one,
so the test measures tile recognition alone.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from scorer.generate import generate_game
from scorer.render.synth import SynthParams, synthesize
from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, truth_grid


def _cloth_photo(seed: int):
    rng = np.random.default_rng(seed)
    board = generate_game("goldrush", ["sheriff"], n_tiles=30, rng=rng)
    params = SynthParams.random(rng, "easy", megapixels=1.0)
    params.table = "pattern"  # white and orange checks
    params.table_rgb = [0.96, 0.95, 0.92]
    params.table_rgb2 = [0.85, 0.55, 0.1]
    return synthesize(board, rng=rng, params=params)


def test_an_orange_checked_cloth_is_not_read_as_tiles():
    res = _cloth_photo(60004)
    grid = truth_grid(res)
    cfg = default_config()
    assert cfg.unmatched_score == 0.0 and cfg.unmatched_hidden == 0.05
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, cfg)) == (30, 30, 2)
    rgb = dataclasses.replace(cfg, detail_chroma=0.0)
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, rgb)) == (30, 30, 1)
    off = dataclasses.replace(cfg, unmatched_score=-1.0)
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, off)) == (30, 30, 21)
