"""A board on a wide wooden table: the tiles, not the wood, set the photo's colours.

The photo is photo 116 of ``scorer synth --generate 200 --seed 9932001
--difficulty mixed --game goldrush --expansions sheriff``: 78 tiles in the
middle of a wide table of wood grain the colour of a Gold Rush prairie.  On the
lattice the grid stage finds (the right one), the wood matches the plain
prairie tile (GR07) at about 0.85 on 72 cells around the board, with only a
mild colour cast, so it made the largest group of cells whose colours agree,
larger than the board's 51 surest tiles (22 tile types, near neutral).  That
group set the white balance and told where the tiles lie (the position
prior), the tiles then matched no template (median 0.13) and the photo was
refused ("nothing on the lattice looks like a goldrush tile").  Counting each
tile type at most ``consensus_per_tile`` (4) times, the wood's group counts 4
and the board's 48: every tile is read.

The lattice is the synthesiser's exact one, so the test measures tile
recognition alone.
"""

from __future__ import annotations

import dataclasses

import pytest

from scorer.errors import TableNotFoundError
from scorer.render.synth import generated_photo
from scorer.vision.config import load_config
from scorer.vision.photo import load_photo
from scorer.vision.recognise import default_config, read_tiles

from test_vision_tiles import right_tiles, truth_grid


@pytest.fixture(scope="module")
def wood(tmp_path_factory):
    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9932001, 116, difficulty="mixed")
    path, _ = res.save(tmp_path_factory.mktemp("wood") / "photo.jpg")
    rgb = load_photo(path, max_side=load_config().photo.max_side)
    return res, rgb, truth_grid(res, rgb.shape[:2])


def test_board_on_wood_of_the_prairie_colour_is_read(wood):
    res, rgb, grid = wood
    cfg = default_config()
    assert cfg.consensus_per_tile == 4
    assert right_tiles(res, read_tiles(rgb, grid, res.truth.catalog, cfg)) == (78, 78, 0)


def test_without_the_limit_the_wood_sets_the_colours(wood):
    res, rgb, grid = wood
    cfg = dataclasses.replace(default_config(), consensus_per_tile=0)
    with pytest.raises(TableNotFoundError, match="nothing on the lattice looks like"):
        read_tiles(rgb, grid, res.truth.catalog, cfg)
