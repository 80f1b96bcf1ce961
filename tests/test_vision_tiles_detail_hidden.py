"""A tile a figure stands on is compared in detail too, though the figure lowers its scores.

Two tiles a symbol apart (an Indian camp on the north or on the south prairie
of a straight rail, a camp or wild horses) score alike on the whole tile, and
the detail comparison settles them where their pictures differ.  A figure on
the tile lowers every candidate's score, often below ``detail_min``, and
squeezes the right candidate out of ``detail_margin``: there the candidates
were left as the whole-tile scores had them.  Cells where figures hide at
least ``occ_min`` of the tile are compared within ``detail_hidden_margin`` of
their best once it reaches ``detail_hidden_min``.

The photo is photo 119 of the Gold Rush series ``scorer synth --generate 200
--seed 9919001 --difficulty mixed --game goldrush --expansions sheriff`` (15
tiles); the lattice is the synthesiser's exact one, so the test measures tile
recognition alone.  Measured: with the hidden cells' own margins every tile is
read right; with the plain margins one is wrong (both read two table cells
beside the board as tiles).  Over the 400 photos of two
such series (seeds 9918001 and 9919001) the tile stage's errors on the exact
lattice fell from 402 to 358.
"""

from __future__ import annotations

import dataclasses

from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, series_photo


def test_a_tile_under_a_figure_is_compared_in_detail(tmp_path):
    res, rgb, grid = series_photo(tmp_path, 119, seed=9919001)
    cfg = default_config()
    assert (cfg.detail_hidden_min, cfg.detail_hidden_margin) == (0.1, 0.15)
    on = read_tiles(rgb, grid, res.truth.catalog, cfg)
    off = read_tiles(rgb, grid, res.truth.catalog,
                     dataclasses.replace(cfg, detail_hidden_min=cfg.detail_min, detail_hidden_margin=cfg.detail_margin))
    n = len(res.truth.tiles)
    assert n == 15
    assert right_tiles(res, on)[:2] == (n, n)
    assert right_tiles(res, off)[:2] == (n - 1, n)
