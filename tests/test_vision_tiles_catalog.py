"""The catalogue guess (:func:`scorer.vision.recognise.guess_catalog`) on boards made of one part of the box,
and tiles at the end of an arm of the board under an ore stack.

Photos are synthesised (seeded); the lattice is the synthesiser's exact one,
so these tests measure tile recognition alone.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from scorer.generate import generate_game
from scorer.render.synth import SynthParams, synthesize
from scorer.tiles import catalog_for
from scorer.vision.recognise import LatticeSurvey, _cell_spread, default_config, guess_catalog, read_tiles

from test_vision_tiles import photo, right_tiles, truth_grid

BASE = ("carcassonne", ["river", "goldmines"])
GOLD = ("goldrush", ["sheriff"])


def test_river_only_boards_are_base_carcassonne():
    # Eight river tiles on a wide, plain table: the river's blue and green are
    # not the base box's average colour, and the flat table fits Gold Rush's
    # prairie; the table cells must not vote.  Seeds 94002 and 94011 were read
    # as Gold Rush while every cell of the lattice voted.
    base, gold = catalog_for(*BASE), catalog_for(*GOLD)
    cfg = default_config()
    every_cell = dataclasses.replace(cfg, catalog_min_contrast=0.0)
    for seed in (94002, 94011):
        res = photo("carcassonne", ["river"], 8, seed)
        assert {p.tile.id[:2] for p in res.truth.tiles.values()} <= {"R1", "R2"}
        grid = truth_grid(res)
        assert guess_catalog(res.image, grid, [base, gold], cfg) is base
        assert guess_catalog(res.image, grid, [base, gold], every_cell) is gold


def test_small_goldrush_board_is_goldrush():
    base, gold = catalog_for(*BASE), catalog_for(*GOLD)
    res = photo("goldrush", ["sheriff"], 6, 94020)
    assert guess_catalog(res.image, truth_grid(res), [base, gold]) is gold


def test_cell_spread_tells_art_from_plain_table():
    cfg = default_config()
    px = 2 * cfg.coarse_px
    image = np.full((3 * px, 3 * px, 3), 120, np.uint8)
    image[px:2 * px, px:2 * px, 0] = np.tile(np.arange(px) * 10, (px, 1)).astype(np.uint8)  # a gradient cell
    image[:px, :px] = 120 + np.arange(px, dtype=np.uint8)[:, None, None] % 2  # table grain, 0/1 stripes
    survey = LatticeSurvey(np.array([[0, 0], [1, 1], [2, 2]]), [], image, (0, 0), np.zeros((1, 1, 3), np.float32))
    spread = _cell_spread(survey, np.array([0, 1, 2]), cfg)
    inner = np.arange(px)[2:px - 2] * 10.0  # the inner part (inset 0.1: 2 pixels of 24 left out)
    assert spread.shape == (3,)
    assert np.isclose(spread[1], inner.std() / 3, rtol=1e-5)
    assert np.isclose(spread[0], 0.5, rtol=1e-5) and spread[2] == 0.0


def test_a_mountain_under_an_ore_stack_at_the_end_of_an_arm_is_read():
    # Seed 94102: a stack of three ore tokens lies on a mountain tile (GR12,
    # cell (5, 4)) that has a single neighbour; the stack hides its nuggets, so
    # the coarse candidates miss it and, with one neighbour only, it was not
    # repaired: read empty.  (Cell (1, 0), GR09 read as GR20, stays wrong.)
    rng = np.random.default_rng(94102)
    board = generate_game("goldrush", ["sheriff"], n_tiles=24, rng=rng)
    params = SynthParams.random(rng, "easy", megapixels=1.0)
    params.tilt_deg = 35.0
    params.ore_spot = [0.0, 0.34]  # the stack at the tile's middle, over the nuggets
    res = synthesize(board, rng=rng, params=params)
    grid = truth_grid(res)
    cfg = default_config()
    single = dataclasses.replace(cfg, repair_edge_occupancy=2.0, repair_occlusion=False)
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, cfg)) == (23, 24, 0)
    # Without that repair the stack's dark top is taken for hidden (``occ_dark``) and the tile read too.
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, single)) == (23, 24, 0)
    off = dataclasses.replace(single, occ_dark=0.0)
    assert right_tiles(res, read_tiles(res.image, grid, res.truth.catalog, off)) == (22, 24, 0)
