"""Gold Rush: cowboys and the Sheriff that an ore stack hides but for a few pixels of their colour.

:func:`scorer.vision.figures._hidden_by_stacks` counts, around every ore stack
read, the pixels of a player colour or of the Sheriff's gold that the art does
not explain (``hidden_mm2``, ``hidden_reach``, ``hidden_colour``,
``hidden_gold``, ``hidden_table``); :func:`scorer.vision.figures._seen_already`
keeps a cowboy read in full from being read a second time.  A seeded
synthesised scene (a red and a blue cowboy and the Sheriff, each on a
mountain beside its ore stack of 5 to 7 tokens, seen steeply, 45 degrees from
above, so that the Sheriff stands behind his stack) is read with the true tiles
and a grid fitted to the true cell corners, so only the figure stage is under test.
His gold beside the stack is a candidate of its own, which the Sheriff decision
(of second order since it was fitted on 1600 photos) takes for him; the hidden-pixel
count is tested with that decision held against him (``sheriff_unseen``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from scorer.evaluate import compare_boards
from scorer.vision.figures import FigureConfig, _Blob, _seen_already, read_figures

from test_vision_figures import _as_board, _scene

HIDDEN = {
    "format": "carcassonne-board/1", "game": "goldrush", "expansions": ["sheriff"],
    "players": ["black", "yellow", "red", "green", "blue"],
    "tiles": [
        {"x": 0, "y": 0, "tile": "GR10", "rot": 0}, {"x": 1, "y": 0, "tile": "GR06", "rot": 0},
        {"x": 2, "y": 0, "tile": "GR13", "rot": 0}, {"x": 0, "y": 1, "tile": "GR01", "rot": 0},
        {"x": 1, "y": 1, "tile": "GR22", "rot": 0}, {"x": 2, "y": 1, "tile": "GR05", "rot": 0},
    ],
    "meeples": [{"player": "red", "x": 0, "y": 0, "at": "N"}, {"player": "blue", "x": 2, "y": 0, "at": "S"}],
    "sheriff": {"x": 1, "y": 0, "at": "N"},
    "ore": [{"x": 0, "y": 0, "at": "N", "count": 6}, {"x": 1, "y": 0, "at": "N", "count": 7},
            {"x": 2, "y": 0, "at": "S", "count": 5}],
}


@pytest.fixture(scope="module")
def scene():
    return _scene(HIDDEN, 401001, tilt_deg=45.0, rotation_deg=135.0, megapixels=0.35)


def _read(scene, cfg: FigureConfig):
    result, grid = scene
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    reading = read_figures(result.image, grid, placements, cfg, game="goldrush", players=HIDDEN["players"])
    return reading, compare_boards(truth, _as_board(truth, reading), offset=(0, 0))


@pytest.fixture
def sheriff_unseen(monkeypatch):
    """The Sheriff decision against every candidate: the gold blob beside his stack (206 canvas pixels,
    Sheriff logit 8.2 with the decisions fitted on 1600 photos, -0.9 with the linear one before) is
    then none, as where less of him shows."""
    import scorer.vision.figures as F

    decide = F._decide
    monkeypatch.setattr(F, "_decide", lambda name, feats: -1.0 if name == "sheriff" else decide(name, feats))


def test_sheriff_beside_his_stack_is_read(scene):
    """With the defaults all three figures are read right, the Sheriff from his gold beside the
    stack (a candidate of its own), not from hidden pixels."""
    reading, cmp = _read(scene, FigureConfig())
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (3, 3, 3)
    assert not any(b.get("hidden") for b in reading.blobs)
    truth = scene[0].truth
    assert (reading.sheriff["x"], reading.sheriff["y"], reading.sheriff["at"]) == (
        truth.sheriff.x, truth.sheriff.y, truth.sheriff.at)


def test_hidden_sheriff_is_read(scene, sheriff_unseen):
    """With his gold blob not taken for him (``sheriff_unseen``) and the defaults (hidden_mm2 =
    8 mm^2), all three figures are read right: the Sheriff from the 103 mm^2 of his gold that his
    stack does not hide."""
    reading, cmp = _read(scene, FigureConfig())
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (3, 3, 3)
    assert sorted((b["kind"], b["class"], round(b["hidden"])) for b in reading.blobs if b.get("hidden")) == [
        ("sheriff", "gold", 103)]
    truth = scene[0].truth
    assert (reading.sheriff["x"], reading.sheriff["y"], reading.sheriff["at"]) == (
        truth.sheriff.x, truth.sheriff.y, truth.sheriff.at)
    assert sorted((m["player"], m["x"], m["y"], m["at"]) for m in reading.meeples) == sorted(
        (m.player, m.x, m.y, m.at) for m in truth.meeples)


def test_off_misses_him(scene, sheriff_unseen):
    """hidden_mm2 = 0 (off), his gold blob not taken for him: the two cowboys are read, the Sheriff is not."""
    reading, cmp = _read(scene, FigureConfig(hidden_mm2=0.0))
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (3, 2, 2)
    assert reading.sheriff is None
    assert sorted(m["player"] for m in reading.meeples) == ["blue", "red"]


def _row(kind: str, cls: str, foot, xy) -> tuple:
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    b = _Blob(1, xy * 64, xy, np.zeros(len(xy)), np.zeros((len(xy), 3)), np.ones(len(xy)), {"class": cls})
    return (b, kind, None, None, None, {"foot": np.asarray(foot, dtype=np.float64)})


def test_seen_already():
    """A cowboy of the colour group (a yellow cowboy read as gold) within min_foot_gap (0.25) of the
    hidden foot, or touching the stack, is the one seen; a tent counts by its foot only; another
    colour, or one 0.3 away not touching, does not."""
    cfg = FigureConfig()
    stack = _Blob(1, np.zeros((1, 2)), np.array([[1.5, 1.5]]), np.zeros(1), np.zeros((1, 3)), np.ones(1))
    foot = np.array([1.6, 1.5])
    assert _seen_already(stack, foot, _row("meeple", "gold", [1.8, 1.5], [[1.8, 1.45]]), "yellow", cfg)
    assert _seen_already(stack, foot, _row("tent", "yellow", [1.8, 1.5], [[1.8, 1.45]]), "yellow", cfg)
    assert not _seen_already(stack, foot, _row("meeple", "red", [1.8, 1.5], [[1.8, 1.45]]), "yellow", cfg)
    assert not _seen_already(stack, foot, _row("meeple", "yellow", [1.9, 1.5], [[1.9, 1.7]]), "yellow", cfg)
    assert _seen_already(stack, foot, _row("meeple", "yellow", [1.9, 1.5], [[1.58, 1.5]]), "yellow", cfg)
    assert not _seen_already(stack, foot, _row("tent", "yellow", [1.9, 1.5], [[1.58, 1.5]]), "yellow", cfg)


def test_defaults():
    cfg = FigureConfig()
    assert (cfg.hidden_mm2, cfg.hidden_reach, cfg.hidden_colour, cfg.hidden_gold, cfg.hidden_table) == (
        8.0, 0.12, 0.3, 0.35, 0.1)
