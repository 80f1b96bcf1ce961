"""Gold Rush has no grey figures: a grey candidate there is the pale side of an ore stack.

A tall ore stack lit from the side shows a pale grey face, which the figure stage
may cut off as a candidate of its own.  Grey is no player's colour in Gold Rush,
and a candidate of a colour no player has must lie within a distance of a player
colour to be a figure (``off_colour_distance``, 0.25); within that, the pale face
of a stack beside black cowboys was read as one more black cowboy.  On 400 Gold
Rush photos read with their true tiles (``scorer synth --seed 9920001`` and
``9921001``, 200 each) no true figure was a grey candidate, and 7 grey candidates
were read as cowboys or tents; a grey one is now a figure only within
``off_grey_distance`` (0: never) where the game has no grey figures.

The photo is photo 5 of ``scorer synth --generate 200 --seed 9921001 --difficulty
mixed --game goldrush --expansions sheriff``, read with its true tiles on the
synthesiser's exact lattice.  Measured: with the grey face allowed within 0.25,
a black cowboy is read on (5, 5), where the truth has a stack of ore and no cowboy.
"""

from __future__ import annotations

import dataclasses

from scorer.vision.config import load_config
from scorer.vision.figures import read_figures

from test_vision_tiles import series_photo


def test_a_grey_stack_face_is_no_cowboy(tmp_path):
    res, rgb, grid = series_photo(tmp_path, 5, seed=9921001)
    assert not any((m.x, m.y) == (5, 5) for m in res.truth.meeples)
    assert any((o.x, o.y) == (5, 5) for o in res.truth.ore)
    placements = {c: (p.tile, p.rot) for c, p in res.truth.tiles.items()}
    cfg = load_config().figures
    assert cfg.off_grey_distance == 0.0
    on = read_figures(rgb, grid, placements, cfg, game="goldrush")
    assert not any((m["x"], m["y"]) == (5, 5) for m in on.meeples)
    off = read_figures(rgb, grid, placements, dataclasses.replace(cfg, off_grey_distance=0.25), game="goldrush")
    assert [m["player"] for m in off.meeples if (m["x"], m["y"]) == (5, 5)] == ["black"]
