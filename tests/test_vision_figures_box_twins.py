"""Twins beyond the box: the figure stage settles which copy is the twin by what the photo shows of their pictures.

No tile is on the table more often than the box holds.  The second look at the
tiles (:func:`scorer.vision.figures._refit`, before the figures are found) may
read a twin (the same sides, a small picture apart) where the tile stage had
read the other one, and the board then holds one copy too many.  The board's
box settling (:func:`scorer.vision.pipeline._settle_box`) turns back the copy
the tile stage was least sure of, often a right one: two tiles wrong.  Once the
figures are found, :func:`scorer.vision.figures._settle_twins` compares every
copy held with its twin where their arts differ and no figure's outline lies,
and the copy whose photo the twin's picture explains best becomes the twin.

* A green meeple on the River II mark of a river bend (R2.II) looks like the
  grass round it: the second look reads R1.II and the board holds three (the
  box has two).  Photo 115 of the development series of seed 9951002 (base +
  River + Goldmines): R2.II at (4, 9), R1.II at (5, 5).
* The second look's small art draws the wild horses of SH4 bolder than a
  blurred photo shows them and takes SH4 for GR07, seen whole: photos 80 and
  114 of seed 9951001 (Gold Rush + Sheriff), SH4 beside a GR07.
"""

from __future__ import annotations

import pytest

from helpers import config_with, read_generated

EXPANSIONS = ["river", "goldmines"]
SETTLE_OFF = {"box_check": ()}


def test_a_meeple_on_the_river_ii_mark_does_not_cost_two_tiles(tmp_path):
    """Read whole, every tile of photo 115 is right; without the settling by the pictures R2.II and R1.II
    change places."""
    comp = read_generated(tmp_path, "carcassonne", EXPANSIONS, 9951002, 115)
    off = read_generated(tmp_path, "carcassonne", EXPANSIONS, 9951002, 115,
                         config=config_with("figures", **SETTLE_OFF))
    assert comp.tile_errors == []
    assert comp.tiles_right == comp.truth_tiles
    assert sorted((e["x"], e["y"], e["truth"], e["pred"]) for e in off.tile_errors) == [
        (4, 9, "R2.II rot 3", "R1.II rot 2"), (5, 5, "R1.II rot 2", "R2.II rot 3")]


@pytest.mark.parametrize("photo, swapped", [
    (114, [(4, 3, "GR07 rot 0", "SH4 rot 0"), (5, 3, "SH4 rot 1", "GR07 rot 1")]),
    (80, [(10, 4, "GR07 rot 3", "SH4 rot 3"), (11, 4, "SH4 rot 1", "GR07 rot 1")]),
])
def test_the_copy_beyond_the_box_whose_photo_shows_the_horses_becomes_sh4(tmp_path, photo, swapped):
    """Photos 114 and 80 of seed 9951001: the second look reads SH4 (or a GR07 elsewhere) as GR07 and the
    board holds five GR07; read whole, every tile is right; without the settling by the pictures the box
    settling of the board turns the wrong GR07 into SH4 (SH4 and a GR07 beside it change places)."""
    comp = read_generated(tmp_path, "goldrush", ["sheriff"], 9951001, photo)
    off = read_generated(tmp_path, "goldrush", ["sheriff"], 9951001, photo,
                         config=config_with("figures", **SETTLE_OFF))
    assert comp.tile_errors == [] and comp.tiles_right == comp.truth_tiles
    assert sorted((e["x"], e["y"], e["truth"], e["pred"]) for e in off.tile_errors) == swapped
