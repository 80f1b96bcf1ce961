"""Gold Rush look-alikes that differ in their symbol only: an Indian camp or wild horses.

GR01 / GR02 (a straight rail) and GR03 / GR04 (a curved rail) are the same
tile but for a tipi or two horses on one prairie.  Their whole-tile scores
differ by that symbol and the noise, so the tile stage's detail comparison
decides: the close twins start it level (``tiles.detail_twin``), and half of
it is made on chromaticity (``tiles.detail_chroma``), where a figure's shadow
on plain ground does not look like the dark horses of a twin.

The photos are of the Gold Rush + Sheriff series of seed 9940001
(``scorer synth --generate 200 --difficulty mixed``), a series the development
looked at; each was read wrong without the option named, and is read right
with it (measured: the reading with the option off is asserted too).
"""

from __future__ import annotations

import dataclasses

from helpers import config_with, read_generated

GAME, EXPANSIONS, SEED = "goldrush", ["sheriff"], 9940001


def _errors(photo: int, tmp_path, cfg=None) -> list[tuple[int, int, str, str]]:
    """The tile errors ``(x, y, truth, read)`` of one photo of the series."""
    cmp = read_generated(tmp_path, GAME, EXPANSIONS, SEED, photo, cfg)
    return [(e["x"], e["y"], e["truth"], e["pred"]) for e in cmp.tile_errors]


def test_a_camp_beside_a_meeple_is_read_with_twins_level_and_chromaticity(tmp_path):
    """Photo 24: a camp on GR01 beside a green meeple on the rail; the twin with wild horses
    scored higher on the whole tile (0.45 against 0.40) and kept that lead through the detail
    comparison."""
    assert _errors(24, tmp_path) == []
    wrong = [(2, 4, "GR01 rot 2", "GR02 rot 2")]
    assert _errors(24, tmp_path, config_with("tiles", detail_twin=0.0)) == wrong
    assert _errors(24, tmp_path, config_with("tiles", detail_chroma=0.0)) == wrong


def test_wild_horses_on_a_small_board_are_read_in_chromaticity(tmp_path):
    """Photo 181: four tiles; on GR02 the detail window lies partly over the seam beside it, and
    in RGB the camp of GR01, unturned, fitted what it saw there better.  (The figure stage's twin
    check, ``figures.twin_check``, also mends that reading: the ablation leaves it off.)"""
    assert _errors(181, tmp_path) == []
    off = config_with("tiles", detail_chroma=0.0)
    assert _errors(181, tmp_path, off) == []  # the twin check mends it
    off = dataclasses.replace(off, figures=dataclasses.replace(off.figures, twin_check=()))
    assert _errors(181, tmp_path, off) == [(2, 0, "GR02 rot 2", "GR01 rot 0")]
