"""Close candidates are compared in detail where the one that fits them best together lies.

A figure or a tall ore stack hides a quarter of a tile: the misread twin's fit
(a mountain tile without the Sheriff expansion's horses and star, GR07, for
SH4) may slide the tile along the mountain's edge, where the hidden part
leaves the whole cell nearly as well explained, while the right twin's fit
stays on the tile.  Compared in detail at the wrong twin's position, the right
twin's horses and star fall beside the photo's and it loses.  With
``detail_own_shift``, where figures hide part of the tile, the comparison is
made at each close candidate's own position and kept where the candidates
together explain the window best.

The photo is photo 36 of ``scorer synth --generate 200 --seed 9921001
--difficulty mixed --game goldrush --expansions sheriff`` (a series the
development looked at), read on the synthesiser's exact lattice, so the test
measures tile recognition alone.  Measured: cell (1, 3), SH4 under a red and
a yellow cowboy and an ore stack, is read as SH4 with the option and as GR07
without it; every other tile is read right either way.
"""

from __future__ import annotations

import dataclasses

from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, series_photo


def test_detail_compares_twins_where_they_fit_together(tmp_path):
    res, rgb, grid = series_photo(tmp_path, 36, seed=9921001)
    assert res.truth.tiles[(1, 3)].tile.id == "SH4"
    cfg = default_config()
    assert cfg.detail_own_shift
    on = read_tiles(rgb, grid, res.truth.catalog, cfg)
    off = read_tiles(rgb, grid, res.truth.catalog, dataclasses.replace(cfg, detail_own_shift=False))
    n = len(res.truth.tiles)
    assert on.cells[(1, 3)].tile_id == "SH4"
    assert off.cells[(1, 3)].tile_id == "GR07"
    assert right_tiles(res, on) == (n, n, 0)
    assert right_tiles(res, off) == (n - 1, n, 0)
