"""A tile with little structure of its own, enclosed by tiles, is decoded, not taken for table.

Gold Rush's all-mountain tile (GR10) is plain rock but for three nuggets: seen
steeply on a grey cloth its match score is below zero and its occupancy about
1%, below ``decode_min_occupancy``, so it was left out of decoding and read
as a hole in the board.  A cell that ``hole_neighbours`` decoded tiles enclose
is decoded too, where the neighbour prior and its neighbours' sides weigh in
(and ``unmatched_score`` leaves it alone when ``unmatched_neighbours`` tiles
enclose it).

The photo is photo 94 of the Gold Rush series ``scorer synth --generate 200
--seed 8811301 --difficulty mixed --game goldrush --expansions sheriff``
(24 tiles, hard light, 35 degrees of tilt); the lattice is the synthesiser's
exact one, so the test measures tile recognition alone.  The photo's typical
tile is taken here as before ``sure_colour`` (off): with it, the cell's
occupancy is no longer that low, and this cell is read without the rule.
"""

from __future__ import annotations

import dataclasses

from scorer.render.synth import generated_photo
from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, truth_grid


def test_an_enclosed_all_mountain_tile_is_read_not_left_as_a_hole():
    res, level, _ = generated_photo("goldrush", ["sheriff"], 8811301, 94, difficulty="mixed")
    assert level == "hard" and len(res.truth.tiles) == 24
    cell = next(c for c, p in res.truth.tiles.items() if p.tile.id == "GR10")
    assert all((cell[0] + dx, cell[1] + dy) in res.truth.tiles for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    grid = truth_grid(res)
    cfg = dataclasses.replace(default_config(), sure_colour=1e9)
    assert (cfg.hole_neighbours, cfg.unmatched_neighbours) == (4, 4)
    on = read_tiles(res.image, grid, res.truth.catalog, cfg)
    assert on.cells[cell].tile_id == "GR10"
    assert right_tiles(res, on) == (23, 24, 0)  # SH3 still reads as its look-alike GR05
    off = read_tiles(res.image, grid, res.truth.catalog, dataclasses.replace(cfg, hole_neighbours=0))
    assert cell not in off.cells
    assert right_tiles(res, off) == (22, 24, 0)
