"""A board of three tiles on a wooden table: the tiles, not the wood, set the photo's typical tile.

The occupancy cues "contrast" and "tint" compare each cell with the photo's
sure tiles; on a board of a few tiles none matches ``sure_score`` and the
three best-matching cells stand in.  Wood grain matches the structure of a
Gold Rush rail as well as the tiles match their own art, but not its
colours (colour cue above zero), and only with a strong colour cast; without
``sure_colour`` and ``max_cast`` the wood set the reference, the real tiles
looked unlike it and nothing was read.  Either check alone keeps the wood out.

Photos are synthesised (seeded); the lattice is the synthesiser's exact one,
so the test measures tile recognition alone.
"""

from __future__ import annotations

import dataclasses

import pytest

from scorer.errors import TableNotFoundError
from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import photo, right_tiles, truth_grid


def test_three_tiles_on_wood_are_read_with_the_colour_checked_reference():
    res = photo("goldrush", ["sheriff"], 3, 81044, megapixels=2.0, table="wood")
    grid = truth_grid(res)
    cfg = default_config()
    assert cfg.sure_colour == 0.0
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, cfg)) == (3, 3, 0)
    # The cast alone (no per-cell colour check) keeps the wood out too ...
    only_cast = dataclasses.replace(cfg, sure_colour=1e9)
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, only_cast)) == (3, 3, 0)
    # ... and with neither, the wood sets the reference and no tile is read.
    with pytest.raises(TableNotFoundError, match="nothing on the lattice looks like"):
        read_tiles(res.image, grid, res.truth.catalog, dataclasses.replace(cfg, sure_colour=1e9, max_cast=1e9))
