"""A lone ore token is an ore stack, not a black cowboy, where no tent spot takes it.

Seen from above, one ore token is a flat dark disc: its outline fits a tent's
(the roof's two slopes round a point) about as well as a stack's, so the tent
decision may favour a tent while the ore decision stays just below a stack.
Where no tent spot (a mountain part of the tile read) takes it, it was read as
a black cowboy.  With ``ore_demote`` a black candidate read as a tent first
tries the ore stack next when its ore logit is within ``ore_demote`` of one.

The photo is photo 118 of ``scorer synth --generate 300 --seed 8812001
--difficulty mixed --game goldrush --expansions sheriff`` (a series the ore and
tent decisions were fitted on), read with its true tiles on the synthesiser's
exact lattice, so the test measures the figure stage alone.  Measured: the four
black cowboys are read and no more, and the single tokens at (4, 1) and (8, 5)
are stacks of one; with ``ore_demote = 0`` those two are read as cowboys.  On 60
photos of ``--seed 8812003`` the black cowboys read extra fall from 12 to 10.
"""

from __future__ import annotations

import dataclasses

from scorer.vision.config import load_config
from scorer.vision.figures import read_figures

from test_vision_tiles import series_photo


def test_lone_ore_tokens_are_not_read_as_black_cowboys(tmp_path):
    res, rgb, grid = series_photo(tmp_path, 118, seed=8812001)
    placements = {c: (p.tile, p.rot) for c, p in res.truth.tiles.items()}
    cfg = load_config().figures
    assert cfg.ore_demote == 1.5
    truth_black = sorted((m.x, m.y) for m in res.truth.meeples if m.player == "black")
    assert truth_black == [(2, 2), (5, 3), (8, 5), (11, 2)]
    singles = {(4, 1), (8, 5)}
    assert all(any((o.x, o.y) == c and o.count == 1 for o in res.truth.ore) for c in singles)

    on = read_figures(rgb, grid, placements, cfg, game="goldrush")
    assert sorted((m["x"], m["y"]) for m in on.meeples if m["player"] == "black") == truth_black
    assert {(o["x"], o["y"]) for o in on.ore if o["count"] == 1} >= singles

    # Off: ore_demote 0, and the cowboy rules (one a tile, four of a colour) that now mend this too.
    off = read_figures(rgb, grid, placements,
                       dataclasses.replace(cfg, ore_demote=0.0, one_cowboy=False, max_cowboys=0), game="goldrush")
    black = sorted((m["x"], m["y"]) for m in off.meeples if m["player"] == "black")
    assert black == sorted(truth_black + [(4, 1), (8, 5)])
    assert not {(o["x"], o["y"]) for o in off.ore} & {(4, 1)}
