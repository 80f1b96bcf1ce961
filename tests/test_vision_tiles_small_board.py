"""A board of three tiles on a wooden table: the tiles, not the wood, set the photo's typical tile.

The occupancy cues "contrast" and "tint" compare each cell with the photo's
sure tiles; on a board of a few tiles none matches ``sure_score`` and the
three best-matching cells stand in.  Wood grain matches the structure of a
Gold Rush rail as well as the tiles match their own art, but not its
colours (colour cue above zero), and only with a strong colour cast; without
``sure_colour`` and ``max_cast`` the wood set the reference, the real tiles
looked unlike it and nothing was read.  Either check alone keeps the wood out.
Since the reference cells' bar (``occ_seed``) is lowered by the share of the
tile that figures hide, the tiles with figures join the wood's cells and the
tiles are read without either check too.

Photos are synthesised (seeded); the lattice is the synthesiser's exact one,
so the test measures tile recognition alone.
"""

from __future__ import annotations

import dataclasses

import pytest

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
    # ... and now neither is needed here: the reference cells' bar is lowered by the share that
    # figures hide, so the tiles join the wood among the three best cells.
    neither = dataclasses.replace(cfg, sure_colour=1e9, max_cast=1e9, consensus_per_tile=0)
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, neither)) == (3, 3, 0)


@pytest.fixture(scope="module")
def close_up(tmp_path_factory):
    """Photo 122 of ``scorer synth --generate 200 --seed 9927001 --difficulty mixed --game goldrush
    --expansions sheriff``: three tiles on wood seen from close (about 370 photo pixels a side), a
    meeple on two of them and a tall ore stack on the third."""
    from scorer.render.synth import generated_photo

    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9927001, 122, difficulty="mixed")
    path, _ = res.save(tmp_path_factory.mktemp("close") / "photo.jpg")
    return res, path


def test_three_tiles_largely_hidden_by_figures_set_the_reference(close_up):
    """On the lattice the grid stage finds, the figures hide 18-23% of each tile; compared on what stays
    visible, the tiles match their art at 0.37-0.49 only, below ``occ_seed`` (0.5), so no cell set the
    typical tile contrast and colours and the photo was refused ("nothing on the lattice looks like a
    goldrush tile").  The bar lowered by the share hidden lets the two best of them set it: the photo is
    read, every tile right."""
    from scorer.evaluate import compare_boards
    from scorer.vision.pipeline import read_photo_full

    res, path = close_up
    reading = read_photo_full(path, game="goldrush")
    cmp = compare_boards(res.truth, reading.board, mode="completed")
    assert (cmp.truth_tiles, cmp.tiles_right, cmp.pred_tiles) == (3, 3, 3)
