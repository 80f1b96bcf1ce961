"""Base game: a tinted grey candidate with a poor outline is no figure; one follower per tile.

:func:`scorer.vision.figures._tinted_grey` and :func:`scorer.vision.figures._one_follower`
are tested on hand-made candidate measurements and readings; a seeded synthesised
scene (a grey follower beside others, light from the side) checks that the whole
figure stage reads it exactly with both switched on.
"""

from __future__ import annotations

import numpy as np

from scorer.board import Board, Placement
from scorer.evaluate import compare_boards
from scorer.render.synth import SynthParams, synthesize
from scorer.vision.figures import FigureConfig, FigureReading, _one_follower, _tinted_grey, read_figures
from scorer.vision.pipeline import add_figures

from test_vision_figures import _true_grid

BASE_COLOURS = ["red", "green", "blue", "yellow", "black", "grey", "pink"]


def _info(rgb, best: float, cls: str = "grey") -> dict:
    return {"class": cls, "rgb": np.array(rgb, dtype=np.float64), "shapes": {"meeple": best, "farmer": best - 0.02}}


def test_tinted_grey_with_a_poor_outline_is_no_figure():
    """A blue-grey shadow (99, 94, 119) fitting its best outline at 0.44 is none; a neutral grey
    (110, 110, 115) at 0.54 is a figure, and so is the blue-grey one fitting at 0.75."""
    cfg = FigureConfig(grey_tint=0.07, grey_tint_shape=0.55)
    assert _tinted_grey(_info((99, 94, 119), 0.44), BASE_COLOURS, cfg) is True
    assert _tinted_grey(_info((110, 110, 115), 0.54), BASE_COLOURS, cfg) is False
    assert _tinted_grey(_info((99, 94, 119), 0.75), BASE_COLOURS, cfg) is False


def test_tinted_grey_only_where_grey_is_a_player_colour_and_when_on():
    """Not for other colour classes, not where no player is grey (Gold Rush: off_colour_distance
    decides there), and not with grey_tint_shape = 0 (off)."""
    cfg = FigureConfig(grey_tint=0.07, grey_tint_shape=0.55)
    shade = _info((99, 94, 119), 0.44)
    assert _tinted_grey(_info((33, 74, 155), 0.44, "blue"), BASE_COLOURS, cfg) is False
    assert _tinted_grey(shade, ["yellow", "red", "green", "blue", "black"], cfg) is False
    assert _tinted_grey(shade, BASE_COLOURS, FigureConfig(grey_tint_shape=0.0)) is False


def _m(player: str, x: int, y: int, at: str) -> dict:
    return {"player": player, "x": x, "y": y, "at": at, "pose": "standing", "confidence": 0.9}


def test_one_follower_per_tile_keeps_the_best_outline():
    """Two followers on (1, 1): the green one (outline 0.95) stays, the grey one (0.45) goes;
    the lone follower on (2, 1) stays."""
    out = FigureReading(meeples=[_m("grey", 1, 1, "NL"), _m("green", 1, 1, "W"), _m("red", 2, 1, "C")])
    _one_follower(out, [0.45, 0.95, 0.6], FigureConfig())
    assert [(m["player"], m["x"], m["y"], m["at"]) for m in out.meeples] == [("green", 1, 1, "W"),
                                                                             ("red", 2, 1, "C")]


def test_one_follower_leaves_crowded_cells_whole():
    """Four followers on one cell (more than max_cell_followers = 3: a patterned table) stay, to be
    dropped whole as the table by the caller."""
    out = FigureReading(meeples=[_m(c, 0, 0, "C") for c in ("red", "green", "blue", "pink")])
    _one_follower(out, [0.5, 0.9, 0.7, 0.6], FigureConfig(max_cell_followers=3))
    assert [m["player"] for m in out.meeples] == ["red", "green", "blue", "pink"]


def test_defaults_are_on():
    """The packaged defaults switch both on."""
    cfg = FigureConfig()
    assert (cfg.grey_tint, cfg.grey_tint_shape, cfg.one_follower) == (0.07, 0.55, True)


SCENE = {
    "format": "carcassonne-board/1", "game": "carcassonne", "expansions": [],
    "players": ["grey", "red", "blue", "green"],
    "tiles": [
        {"x": 0, "y": 0, "tile": "E", "rot": 0}, {"x": 1, "y": 0, "tile": "B", "rot": 0},
        {"x": 2, "y": 0, "tile": "U", "rot": 0}, {"x": 0, "y": 1, "tile": "V", "rot": 0},
        {"x": 1, "y": 1, "tile": "B", "rot": 0}, {"x": 2, "y": 1, "tile": "D", "rot": 0},
    ],
    "meeples": [
        {"player": "grey", "x": 0, "y": 0, "at": "N"},
        {"player": "red", "x": 1, "y": 0, "at": "C"},
        {"player": "grey", "x": 2, "y": 0, "at": "W"},
        {"player": "blue", "x": 1, "y": 1, "at": "C"},
        {"player": "green", "x": 2, "y": 1, "at": "N"},
    ],
}


def _scene_reading(**cfg) -> tuple:
    seed = 65008
    params = SynthParams(seed=seed, megapixels=0.5, tilt_deg=12.0, rotation_deg=0.0, fill=0.75, clutter=0,
                         light_elevation_deg=30.0, shadow=0.8, blur_px=0.3, noise=1.0, jpeg_quality=92,
                         tile_offset=0.02, tile_turn_deg=1.0, gap_mm=0.8, figure_jitter_mm=0.5)
    result = synthesize(Board.from_dict(SCENE), rng=np.random.default_rng(seed), params=params)
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    reading = read_figures(result.image, _true_grid(result), placements, FigureConfig(**cfg), game="carcassonne")
    board = Board(game=truth.game, expansions=list(truth.expansions), catalog=truth.catalog)
    board.tiles = {c: Placement(p.x, p.y, p.tile, p.rot) for c, p in truth.tiles.items()}
    cmp = compare_boards(truth, add_figures(board, reading), offset=(0, 0))
    return sorted((m["player"], m["x"], m["y"], m["at"]) for m in reading.meeples), cmp.to_dict()["figure_errors"]


def test_scene_second_follower_on_a_tile_dropped():
    """Seed 65008, light low from the side (long shadows): with both switches off a second,
    black follower is read beside the blue monk on (1, 1); with the defaults every follower is
    read, of the right colour and location, and nothing extra."""
    want = [("blue", 1, 1, "C"), ("green", 2, 1, "N"), ("grey", 0, 0, "N"), ("grey", 2, 0, "W"), ("red", 1, 0, "C")]
    read, errors = _scene_reading(one_follower=False, grey_tint_shape=0.0)
    assert read == sorted(want + [("black", 1, 1, "NR")])
    read, errors = _scene_reading()
    assert (read, errors) == (want, [])
