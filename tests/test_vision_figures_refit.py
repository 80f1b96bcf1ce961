"""The figure stage's second look at the tiles: look-alike tiles under figures, tiles hidden by figures.

The scene is the small Gold Rush board of ``test_vision_figures.py`` (rendered
once by :func:`scorer.render.synth.synthesize`, a grid fitted to the true cell
corners), read with the true tiles except where a test changes them.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_vision_figures import GOLDRUSH, _scene

from scorer.vision.figures import FigureConfig, _empty_beside, _make_canvas, _Tile, read_figures


@pytest.fixture(scope="module")
def scene():
    return _scene(GOLDRUSH, seed=12)


def _placements(result):
    return {c: (p.tile, p.rot) for c, p in result.truth.tiles.items()}


def test_look_alike_tile_under_a_figure_replaced(scene):
    """Given the railwayman's tile GR01 (an Indian camp) misread as GR02 (wild horses; the same
    rail and prairies), when read, then the second look puts GR01 back: the two arts differ only
    in the small picture on the prairie, so the comparison caps what each pixel may cost."""
    result, grid = scene
    placements = _placements(result)
    placements[(0, 1)] = (result.truth.catalog["GR02"], 0)
    reading = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush")
    assert {c: (t["tile"], t["rot"]) for c, t in reading.tiles.items()} == {(0, 1): ("GR01", 0)}
    assert [(m["player"], m["x"], m["y"], m["at"]) for m in reading.meeples if m["player"] == "red"] == [
        ("red", 0, 1, "W")]


def test_tile_hidden_by_a_tent_added_when_asked(scene):
    """Given the green tent's tile (1, 1) left out by the tile stage, when read with add_tiles, then GR22
    is found there (marked added), the tent is read on it, and no table cell gets a tile; without
    add_tiles, no tile is added."""
    result, grid = scene
    placements = _placements(result)
    del placements[(1, 1)]
    plain = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush")
    assert not any(t.get("added") for t in plain.tiles.values())
    reading = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush", add_tiles=True)
    added = {c: (t["tile"], t["rot"]) for c, t in reading.tiles.items() if t.get("added")}
    assert added == {(1, 1): ("GR22", 0)}
    assert [(t["player"], t["x"], t["y"], t["at"]) for t in reading.tents] == [("green", 1, 1, "W")]


@pytest.fixture(scope="module")
def plain_scene():
    """The same board with nothing on the mountain GR10 at (0, 0): a plain tile, its nuggets its only picture."""
    board = dict(GOLDRUSH, meeples=[m for m in GOLDRUSH["meeples"] if (m["x"], m["y"]) != (0, 0)])
    return _scene(board, seed=12)


@pytest.mark.parametrize("plain_rule", [True, False])
def test_plain_tile_the_tile_stage_left_out_added_back(plain_scene, plain_rule):
    """Given the plain mountain GR10 at (0, 0), nothing on it, left out by the tile stage (a blurred
    photo leaves its rock texture unmatched), when read with add_tiles, then it is added back as it
    lies, though nothing hides any of it, and no cell of the table gets a tile; with refit_add_plain
    0 (only tiles under something no tile explains are added) it is not."""
    result, grid = plain_scene
    placements = _placements(result)
    del placements[(0, 0)]
    cfg = FigureConfig() if plain_rule else FigureConfig(refit_add_plain=0.0)
    reading = read_figures(result.image, grid, placements, cfg, game="goldrush", add_tiles=True)
    added = {c: (t["tile"], t["rot"]) for c, t in reading.tiles.items() if t.get("added")}
    assert added == ({(0, 0): ("GR10", 0)} if plain_rule else {})


def test_empty_beside_lists_the_free_neighbours_inside_the_photo(scene):
    """Given the six tiles less (1, 0), when listing the empty cells beside them, then (1, 0) is one,
    placed where the lattice puts it moved by its neighbours' drift, and every one is a 4-neighbour
    of a tile and not a tile."""
    result, grid = scene
    placements = _placements(result)
    del placements[(1, 0)]
    canvas = _make_canvas(placements, 64)
    tiles = {c: _Tile(c, t, r, np.array([[1.0, 0.0, canvas.origin_px(c)[0] + 2.0],
                                         [0.0, 1.0, canvas.origin_px(c)[1] - 1.0]]), 1.0)
             for c, (t, r) in placements.items()}
    empty = _empty_beside(tiles, canvas, grid)
    assert (1, 0) in empty
    np.testing.assert_allclose(empty[(1, 0)], [[1.0, 0.0, canvas.origin_px((1, 0))[0] + 2.0],
                                                 [0.0, 1.0, canvas.origin_px((1, 0))[1] - 1.0]])
    for (x, y) in empty:
        assert (x, y) not in tiles
        assert any((x + dx, y + dy) in tiles for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))


def test_figure_far_from_every_player_colour_is_none(scene):
    """Given max_colour_distance 0 (no colour near enough), when read, then no follower, cowboy or tent
    is read, while the Sheriff (gold, no player's colour) still is."""
    result, grid = scene
    reading = read_figures(result.image, grid, _placements(result), FigureConfig(max_colour_distance=0.0),
                           game="goldrush")
    assert reading.meeples == [] and reading.tents == []
    assert reading.sheriff is not None and (reading.sheriff["x"], reading.sheriff["y"]) == (1, 0)


def test_sure_ore_stack_is_never_a_cowboy():
    """Given a black candidate shaped like a stack (ore outline far above the figures'), when its roles are
    listed, then it is an ore stack first; with ore_sure above its logit it may still be read as a cowboy
    where no mountain spot takes it, below its logit it may only be an ore stack."""
    from scorer.vision.figures import _decide, _decision_features, _roles

    info = {"class": "black", "rgb": [40.0, 37.0, 36.0], "area": 150.0, "radial": 6.0, "across": 10.0,
            "lum_cv": 0.2, "dark": 1.0, "smear16": 6.0,
            "shapes": {"meeple": 0.6, "farmer": 0.6, "tent": 0.6, "ore": 0.9},
            "shading": {"meeple": 0.05, "farmer": 0.05, "tent": 0.05}}
    loose = _roles(dict(info), "goldrush", FigureConfig(ore_sure=1e9))
    assert _decide("ore", _decision_features(dict(info), info["shapes"])) > FigureConfig().ore_sure
    assert loose[0] == "ore" and "meeple" in loose and "tent" in loose
    assert _roles(dict(info), "goldrush", FigureConfig()) == ["ore"]


@pytest.fixture(scope="module")
def cloth_scene():
    """The same board on a striped cloth (white and blue): a patch of it does not look like any tile."""
    return _scene(GOLDRUSH, seed=12, table="pattern", table_rgb=[0.92, 0.91, 0.87], table_rgb2=[0.15, 0.25, 0.55])


@pytest.mark.parametrize("add_tiles", [True, False])
def test_table_read_as_a_tile_removed_when_asked(cloth_scene, add_tiles):
    """Given the tile stage's six tiles and a GR06 it read on the cloth beside them at (3, 1), when read
    with add_tiles, then that cell is reported removed (its visible pixels off by more than
    refit_table at the median, against any tile), no tile of the board is, and the figures on the
    board are read as without it; without add_tiles (the caller keeps its tiles) nothing is removed."""
    result, grid = cloth_scene
    placements = _placements(result)
    truth = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush", add_tiles=add_tiles)
    placements[(3, 1)] = (result.truth.catalog["GR06"], 0)
    reading = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush", add_tiles=add_tiles)
    removed = {c: t for c, t in reading.tiles.items() if t.get("removed")}
    if add_tiles:
        assert list(removed) == [(3, 1)]
        assert removed[(3, 1)]["table"] > FigureConfig().refit_table
    else:
        assert removed == {}
    assert not any(t.get("removed") for t in truth.tiles.values())
    figures = sorted((m["player"], m["x"], m["y"], m["at"]) for m in reading.meeples)
    assert figures == sorted((m["player"], m["x"], m["y"], m["at"]) for m in truth.meeples)


def test_table_like_leaves_out_hidden_pixels():
    """Given squared residuals of two arts over a 4 x 4 cell, when judged, then the pixels above
    refit_hidden (a figure) are left out, the better art's median of the rest counts, and a cell
    hidden over more than refit_table_seen of it against every art is not judged (0.0)."""
    from scorer.vision.figures import _table_like

    cfg = FigureConfig()
    a = np.full((4, 4), 0.3 ** 2, np.float32)
    a[:2, :2] = 1.0  # a figure: hidden, left out
    b = np.full((4, 4), 0.5 ** 2, np.float32)
    assert _table_like(np.stack([a, b]), cfg) == pytest.approx(0.3)
    hidden = np.full((4, 4), 1.0, np.float32)
    hidden[0, :3] = 0.01
    assert _table_like(np.stack([hidden, hidden]), cfg) == 0.0
