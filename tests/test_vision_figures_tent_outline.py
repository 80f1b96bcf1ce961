"""A black tent is told from a black cowboy by its outline too.

Black faces show almost none of the shading that tells a tent's prism from a
cowboy (:func:`scorer.vision.figures._shading_fit`), and a dark table edge or a
stack beside it blurs the outline correlations the tent decision weighs.  The
tent decision for black candidates (``tent_black`` in
:data:`scorer.vision.figures._DECISIONS`) also weighs the blob's own outline
cues (:data:`scorer.vision.figures._BLOB_SHAPE`: convexity, rectangularity,
elongation ...): a tent's full, straight-sided outline against a cowboy's
notched one.

The photo is photo 16 of ``scorer synth --generate 200 --seed 9921001
--difficulty mixed --game goldrush --expansions sheriff`` (one of the 400 photos
the weights were fitted on), read with its true tiles on the synthesiser's exact
lattice, so the test measures the figure stage alone.  Measured: black's tent at
(6, 2) is read as a tent; with the weights before the outline cues it was read
as a black cowboy.
"""

from __future__ import annotations

import numpy as np
import pytest

import scorer.vision.figures as F
from scorer.vision.config import load_config

from test_vision_tiles import series_photo

#: ``tent_black`` before the outline cues (its ten features; none on the outline cues).
_BEFORE = ((27.728, 34.364, 1.691, 0.200, 1.902, 4.844, -6.992, -0.269, 4.167, 3.527, *(0.0,) * len(F._BLOB_SHAPE)),
           -0.837)


@pytest.fixture(scope="module")
def photo16(tmp_path_factory):
    return series_photo(tmp_path_factory.mktemp("tent"), 16, seed=9921001)


def _black_at(reading, cell):
    tents = [(t["x"], t["y"]) for t in reading.tents if t["player"] == "black"]
    cowboys = [(m["x"], m["y"]) for m in reading.meeples if m["player"] == "black"]
    return cell in tents, cowboys.count(cell)


def test_black_tent_read_as_tent(photo16):
    res, rgb, grid = photo16
    assert any((t.x, t.y) == (6, 2) and t.player == "black" for t in res.truth.tents)
    assert not any((m.x, m.y) == (6, 2) and m.player == "black" for m in res.truth.meeples)
    placements = {c: (p.tile, p.rot) for c, p in res.truth.tiles.items()}
    reading = F.read_figures(rgb, grid, placements, load_config().figures, game="goldrush")
    assert _black_at(reading, (6, 2)) == (True, 0)


def test_without_outline_cues_it_was_a_cowboy(photo16, monkeypatch):
    res, rgb, grid = photo16
    placements = {c: (p.tile, p.rot) for c, p in res.truth.tiles.items()}
    monkeypatch.setitem(F._DECISIONS, "tent_black", _BEFORE)
    reading = F.read_figures(rgb, grid, placements, load_config().figures, game="goldrush")
    assert _black_at(reading, (6, 2)) == (False, 1)


def test_only_the_black_tent_decision_weighs_outline_cues():
    assert set(F._BLOB_MEANS) == set(F._BLOB_SHAPE)
    w, _ = F._DECISIONS["tent"]
    assert np.allclose(w[-len(F._BLOB_SHAPE):], 0.0)
    assert len(F._DECISIONS["tent_black"][0]) == len(w)
