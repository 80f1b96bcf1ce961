"""A camp under a meeple is not read as wild horses.

The photo is photo 121 of ``scorer synth --generate 200 --seed 9933001
--difficulty mixed --game goldrush --expansions sheriff``, read through the
whole pipeline (on the lattice the grid stage finds).  A green meeple stands
on the camp of a GR01 (straight rail, Indian camp), whose look-alike GR02 has
wild horses in the same place.  The meeple's legs fall just outside the hidden
pixels the tile stage finds: a dark blob where the camp would be pale and the
horses are dark, so the detail comparison took the legs for the horses.  With
the hidden pixels grown by ``detail_hidden_grow`` (0.03 tile) the legs take no
part, and what shows of the symbol around the meeple favours the camp (masked
fit 0.77 against 0.74).  That was measured with the detail comparison on RGB
alone (``detail_chroma`` 0); made half on chromaticity, the comparison reads
the camp without the growth too.
"""

from __future__ import annotations

import pytest

from scorer.evaluate import compare_boards
from scorer.render.synth import generated_photo
from scorer.vision.config import load_config
from scorer.vision.pipeline import read_photo_full


@pytest.fixture(scope="module")
def camp_under_meeple(tmp_path_factory):
    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9933001, 121, difficulty="mixed")
    path, _ = res.save(tmp_path_factory.mktemp("camp") / "photo.jpg")
    return res, path


def _read(res, path, grow: float, chroma: float = 0.5):
    cfg = load_config()
    cfg.tiles.detail_hidden_grow = grow
    cfg.tiles.detail_chroma = chroma
    return compare_boards(res.truth, read_photo_full(path, game="goldrush", config=cfg).board, mode="completed")


def test_a_camp_under_a_meeple_is_not_read_as_wild_horses(camp_under_meeple):
    res, path = camp_under_meeple
    assert load_config().tiles.detail_hidden_grow == 0.03 and load_config().tiles.detail_chroma == 0.5
    cmp = _read(res, path, 0.03)
    assert (cmp.truth_tiles, cmp.tiles_right, cmp.pred_tiles) == (30, 30, 30)
    assert (_read(res, path, 0.0).tiles_right, _read(res, path, 0.03, chroma=0.0).tiles_right) == (30, 30)
    plain = _read(res, path, 0.0, chroma=0.0)
    assert (plain.tiles_right, plain.pred_tiles) == (29, 30)
    assert [(e["truth"], e["pred"]) for e in plain.tile_errors] == [("GR01 rot 0", "GR02 rot 0")]
