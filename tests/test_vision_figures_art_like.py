"""Figures on art of their own colour: black tents and cowboys on the dark rock of the mountains.

Where the art has a colour like a candidate's, a pixel counts for the candidate's
outline only as far as it differs from the art (``FigureConfig.art_like``): dark
rock around a black figure no longer takes part in its outline, so the solids'
outlines tell a tent from a cowboy.  A seeded synthesised scene is read with the
true tiles and a grid fitted to the true cell corners (only the figure stage is
under test).
"""

from __future__ import annotations

import pytest

from scorer.evaluate import compare_boards
from scorer.vision.figures import FigureConfig, read_figures

from test_vision_figures import _as_board, _scene

ROCK = {
    "format": "carcassonne-board/1", "game": "goldrush", "expansions": ["sheriff"],
    "players": ["black", "yellow", "red", "green", "blue"],
    "tiles": [
        {"x": 0, "y": 0, "tile": "GR10", "rot": 0}, {"x": 1, "y": 0, "tile": "GR11", "rot": 0},
        {"x": 2, "y": 0, "tile": "GR10", "rot": 0}, {"x": 0, "y": 1, "tile": "GR13", "rot": 1},
        {"x": 1, "y": 1, "tile": "GR22", "rot": 0}, {"x": 2, "y": 1, "tile": "GR14", "rot": 0},
    ],
    "tents": [{"player": "black", "x": 0, "y": 0, "at": "N"}, {"player": "blue", "x": 1, "y": 1, "at": "E"}],
    "meeples": [{"player": "black", "x": 2, "y": 0, "at": "N"}, {"player": "black", "x": 1, "y": 0, "at": "N"},
                {"player": "green", "x": 0, "y": 1, "at": "E"}, {"player": "blue", "x": 2, "y": 1, "at": "N"}],
}


@pytest.fixture(scope="module")
def rock_scene():
    return _scene(ROCK, seed=1, tilt_deg=10.0, megapixels=0.5)


def _read(scene, art_like: bool, **options):
    result, grid = scene
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    reading = read_figures(result.image, grid, placements, FigureConfig(art_like=art_like, **options),
                           game="goldrush", players=ROCK["players"])
    return reading, compare_boards(truth, _as_board(truth, reading), offset=(0, 0))


def test_black_figures_on_dark_rock_are_told_apart(rock_scene):
    """With art_like (the default) all six figures are read with their kinds, colours and locations."""
    reading, cmp = _read(rock_scene, True)
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (6, 6, 6)
    assert (cmp.colour_right, cmp.location_right) == (6, 6)
    assert sorted((t["player"], t["x"], t["y"], t["at"]) for t in reading.tents) == [
        ("black", 0, 0, "N"), ("blue", 1, 1, "E")]


def test_without_it_the_rock_takes_part_in_an_outline(rock_scene):
    """With art_like off one of the six is read as the wrong kind of figure (measured with
    tent_promote_near 0, as before it: the tent's foot on its spot now mends that one too)."""
    _, cmp = _read(rock_scene, False, tent_promote_near=0.0)
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (6, 6, 5)
    _, cmp = _read(rock_scene, False)
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (6, 6, 6)
