"""A tent standing off its own spot on the mountain is still promoted from a cowboy.

Every player has one tent (seed 000, rules.md section 6).  Where a colour has
no tent read, :func:`scorer.vision.figures._promote_tents` reads its likeliest
cowboy as the tent when, among other things, the foot lies near a mountain
spot.  A tent sharing its mountain with a cowboy stands aside, off the tent's
own spot, often nearer the cowboy's; where the candidate's tent logit is above
``tent_promote_spots`` (1.0), the foot may be near any solid figure's spot on
the mountain (:func:`scorer.vision.figures._locate`, ``spots``).  Photo 36 of
the Gold Rush series of seed 9938001 (``scorer synth --generate 200
--difficulty mixed``, a series the development looked at) shows a yellow tent
beside a blue cowboy on GR21 (tent logit 3.5, foot 0.303 tile from the tent's
spot); measured: read as a tent with the option, as a yellow cowboy with it
off (``inf``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from scorer.evaluate import compare_boards
from scorer.render.synth import generated_photo
from scorer.tiles import catalog_for
from scorer.vision.config import load_config
from scorer.vision.figures import _MOUNTAIN_SOLIDS, FigureConfig, _locate, _spot
from scorer.vision.pipeline import read_photo_full


def test_the_distance_is_to_the_nearest_spot_of_the_kinds_given():
    cfg = FigureConfig()
    tile = catalog_for("goldrush", ["sheriff"])["GR21"]  # mountain at N
    cowboy = _spot("N", "meeple", cfg.offset_spread)
    tent = _spot("N", "tent", cfg.offset_spread)
    assert np.linalg.norm(cowboy - tent) > cfg.max_spot_distance  # a tent at the cowboy's spot is far from its own
    at, _, _, d = _locate(cowboy, tile, 0, "tent", cfg)
    assert at == "N" and d > cfg.max_spot_distance
    at, _, _, d = _locate(cowboy, tile, 0, "tent", cfg, _MOUNTAIN_SOLIDS)
    assert at == "N" and d == 0.0
    at, _, _, d = _locate(tent, tile, 0, "tent", cfg, _MOUNTAIN_SOLIDS)
    assert at == "N" and d == 0.0


def test_a_tent_beside_a_cowboy_in_a_photo(tmp_path):
    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9938001, 36, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    cfg = load_config()
    assert cfg.figures.tent_promote_spots == 1.0
    assert [(t.cell, t.player) for t in res.truth.tents if t.cell == (7, 3)] == [((7, 3), "yellow")]
    seen = compare_boards(res.truth, read_photo_full(path, config=cfg).board)
    assert seen.tiles_right == seen.truth_tiles
    assert seen.figure_errors == []
    # Off: tent_promote_spots, and the cowboy rules (one a tile, four of a colour) that now mend it too.
    off = dataclasses.replace(cfg, figures=dataclasses.replace(cfg.figures, tent_promote_spots=float("inf"),
                                                               one_cowboy=False, max_cowboys=0))
    missed = compare_boards(res.truth, read_photo_full(path, config=off).board)
    assert sorted((e["error"], e["kind"], e["x"], e["y"]) for e in missed.figure_errors) == [
        ("extra", "meeple", 7, 3), ("missed", "tent", 7, 3)]
