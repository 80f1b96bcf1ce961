"""What hides a tile's symbol is hidden up to the tile's border in the detail comparison.

The hidden pixels (a figure, :func:`scorer.vision.recognise._hidden_masks`) are
found in the fine comparison's window, which leaves a border of a tenth of a
tile out; the detail comparison looks closer to the border (symbols sit near
corners).  A cowboy standing at the border was half hidden there and half
taken for art: its visible half, which no template explains, outweighed the
faint camp symbol at the other end of the tile.  With ``detail_band`` the band
repeats the edge of the hidden mask.

The photo is photo 28 of the Gold Rush series ``scorer synth --generate 120
--seed 8811301 --difficulty mixed --game goldrush --expansions sheriff``, read
from its JPEG file at the pipeline's working size on the synthesiser's exact
lattice.  Measured: with the band, the camp tile at (3, 6) (GR01 turned once,
a red cowboy at its far end) is read right; without it (and without growing the
hidden pixels, ``detail_hidden_grow`` 0), that tile is read a half turn off
(the camp taken to lie under the cowboy) and 39 of 42 tiles are right.  On the
120 photos of that series the tile stage misread 109 tiles with the band and 117
without it.  The hidden pixels grown by ``detail_hidden_grow`` (0.03 tile) take
in the cowboy's part beyond the fine window too: with the growth, the tile is
read right with or without the band, and 41 of 42 tiles are.  Those readings
without the band and the growth were measured with the detail comparison on
RGB alone (``detail_chroma`` 0); made half on chromaticity, the comparison
reads the tile right without either of them too (41 of 42).
"""

from __future__ import annotations

import dataclasses

from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, series_photo


def test_a_cowboy_at_the_border_does_not_outweigh_the_camp_symbol(tmp_path):
    res, rgb, grid = series_photo(tmp_path, 28)
    cfg = default_config()
    assert cfg.detail_band and cfg.detail_hidden_grow == 0.03
    truth = res.truth.tiles[(3, 6)]
    assert (truth.tile.id, truth.rot) == ("GR01", 1)
    on = read_tiles(rgb, grid, res.truth.catalog, cfg)
    off = read_tiles(rgb, grid, res.truth.catalog,
                     dataclasses.replace(cfg, detail_band=False, detail_hidden_grow=0.0, detail_chroma=0.0))
    assert (on.cells[(3, 6)].tile_id, on.cells[(3, 6)].rot) == ("GR01", 1)
    assert (off.cells[(3, 6)].tile_id, off.cells[(3, 6)].rot) == ("GR01", 3)
    assert right_tiles(res, on) == (41, 42, 0)
    assert right_tiles(res, off) == (39, 42, 0)
    grown = read_tiles(rgb, grid, res.truth.catalog, dataclasses.replace(cfg, detail_band=False, detail_chroma=0.0))
    assert (grown.cells[(3, 6)].tile_id, grown.cells[(3, 6)].rot) == ("GR01", 1)
    chroma = read_tiles(rgb, grid, res.truth.catalog, dataclasses.replace(cfg, detail_band=False, detail_hidden_grow=0.0))
    assert cfg.detail_chroma == 0.5 and right_tiles(res, chroma) == (41, 42, 0)
