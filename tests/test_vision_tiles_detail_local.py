"""Tiles that differ only in a small symbol are told apart on the symbol's own contrast.

Gold Rush's straight rail comes with an Indian camp (GR01), with wild horses
(GR02) or with a locomotive (GR19): the symbols cover a few percent of the
tile, and blur leaves them less of their contrast than the rail, whose
contrast sets the whole cell's gain.  Measured on that gain, a faint horse is
explained better by plain prairie than by the horse.  The detail comparison
(``detail_local``) removes the mean and fits each template's own gain on the
pixels where the close candidates differ.

The photo is photo 23 of the Gold Rush series ``scorer synth --generate 120
--seed 8811301 --difficulty mixed --game goldrush --expansions sheriff``; the
lattice is the synthesiser's exact one, so the test measures tile recognition
alone; the photo is read from its JPEG file at the pipeline's working size,
as ``scorer score`` reads it.  Measured: with the symbols' own gain every tile is read right; with
the whole-cell gain three are wrong (the horses at one cell read as a camp,
and through the box counts two more).  Trying the detail window at each close
candidate's own position (``detail_own_shift``) settles this cell as well, with
either gain, and so does taking back the hidden pixels a close candidate
explains (``detail_reclaim``: figures stand on the photo's tiles); the gains are
compared with both options off.
"""

from __future__ import annotations

import dataclasses

from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, series_photo


def test_a_faint_horse_symbol_is_read_on_its_own_contrast(tmp_path):
    res, rgb, grid = series_photo(tmp_path, 23)
    cfg = default_config()
    assert cfg.detail_local
    on = read_tiles(rgb, grid, res.truth.catalog, cfg)
    alone = dataclasses.replace(cfg, detail_own_shift=False, detail_reclaim=0.0)
    off = read_tiles(rgb, grid, res.truth.catalog, dataclasses.replace(alone, detail_local=False))
    n = len(res.truth.tiles)
    assert right_tiles(res, on) == (n, n, 0)
    assert right_tiles(res, read_tiles(rgb, grid, res.truth.catalog, alone)) == (n, n, 0)
    assert right_tiles(res, off) == (n - 3, n, 0)
    reclaim = dataclasses.replace(cfg, detail_own_shift=False, detail_local=False)
    assert cfg.detail_reclaim > 0 and right_tiles(res, read_tiles(rgb, grid, res.truth.catalog, reclaim)) == (n, n, 0)
