"""Twins whose telling picture a figure hides: the twin with more copies not on the table elsewhere.

An Indian camp (GR01) and wild horses (GR02) are the same straight rail; a
cowboy lying on the prairie often covers the picture whole.  Nothing seen
then tells the two apart, and the tile drawn was any copy not yet on the
table: where the copies of the twin not on the table elsewhere are more
than ``twin_prior`` (2) times the tile read's, the twin check
(:func:`scorer.vision.figures._recheck_twins`) takes the twin, as sure as
its share of those copies (the board's confidence, marked ``reread`` with
the tile read as the first runner-up).

* Photo 40 of seed 9951001 (Gold Rush + Sheriff): GR01 at (5, 5) under a
  cowboy, read GR02 by the tile stage.
* Photo 12 of seed 9951001: GR02 at (6, 5) under a cowboy, read GR01.
"""

from __future__ import annotations

import math

import pytest

from helpers import config_with, read_generated

OFF = {"twin_prior": math.inf}


@pytest.mark.parametrize("photo, cell, truth, read", [
    (40, (5, 5), "GR01 rot 1", "GR02 rot 1"),
    (12, (6, 5), "GR02 rot 2", "GR01 rot 2"),
])
def test_the_hidden_twin_is_the_one_more_copies_of_are_left(tmp_path, photo, cell, truth, read):
    """Read whole, every tile is right; without the counts the twin under the cowboy is misread."""
    comp = read_generated(tmp_path, "goldrush", ["sheriff"], 9951001, photo)
    off = read_generated(tmp_path, "goldrush", ["sheriff"], 9951001, photo, config=config_with("figures", **OFF))
    assert comp.tile_errors == [] and comp.tiles_right == comp.truth_tiles
    assert [(e["x"], e["y"], e["truth"], e["pred"]) for e in off.tile_errors] == [(*cell, truth, read)]


def test_the_board_says_how_sure_the_counts_make_it(tmp_path):
    """Photo 40: the cell under the cowboy holds GR01, marked ``reread`` with the tile stage's GR02 as
    its first runner-up, as sure as GR01's share of the copies of the two not on the table elsewhere
    (more than twice GR02's: above 2/3, below 1)."""
    from scorer.evaluate import best_offset
    from scorer.render.synth import generated_photo
    from scorer.vision.pipeline import read_photo_full

    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9951001, 40, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo40.jpg")
    board = read_photo_full(path).board
    dx, dy = best_offset(res.truth, board)
    cell = board.tiles[(5 - dx, 5 - dy)]
    assert (cell.tile.id, cell.rot) == ("GR01", 1)
    assert cell.extra["reread"] is True
    assert 2 / 3 < cell.extra["confidence"] < 1
    first = cell.extra["alternatives"][0]
    assert (first["tile"], first["rot"], first["first_read"]) == ("GR02", 1, True)
