"""Two Gold Rush figure rules of the figure stage, on hand-made candidates.

* :func:`scorer.vision.figures._cut_worth_trying`: a large candidate read as an ore
  stack that no outline fits well is tried cut at its waist (a cowboy against a stack).
* :func:`scorer.vision.figures._promote_tents` with ``tent_promote_black``: a black
  cowboy's tent logit may be further below zero before it is read as its player's tent.
  Rows as in ``test_vision_figures_det3.py``: GR10 (all mountain) at (0, 0).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from scorer.tiles import catalog_for
from scorer.vision.figures import FigureConfig, _Canvas, _cut_worth_trying, _promote_tents, _spot, _Tile

PX = 64


def test_large_poorly_fitted_stack_is_tried_cut():
    """A 337 mm^2 candidate whose ore outline fits 0.694 and a lying cowboy's 0.565 (ore clearly
    ahead by 0.129 > ore_cut_margin 0.1) is tried cut with ore_cut_fit = 0.75, not with 0 (off)."""
    info = {"area": 337.0, "shapes": {"meeple": 0.54, "farmer": 0.565, "tent": 0.555, "ore": 0.694}}
    assert _cut_worth_trying(info, FigureConfig(ore_cut_fit=0.75)) is True
    assert _cut_worth_trying(info, FigureConfig(ore_cut_fit=0.0)) is False


def test_well_fitted_or_small_stack_is_not_cut():
    """A stack whose outline fits 0.93 (0.1 ahead of a cowboy's) is not tried cut; nor is a
    poorly fitted candidate below ore_cut_mm2 (200 < 250 mm^2); a close call (ore 0.05 ahead)
    is tried cut as before."""
    cfg = FigureConfig(ore_cut_fit=0.75)
    assert _cut_worth_trying({"area": 400.0, "shapes": {"meeple": 0.83, "tent": 0.8, "ore": 0.93}}, cfg) is False
    assert _cut_worth_trying({"area": 200.0, "shapes": {"meeple": 0.5, "ore": 0.69}}, cfg) is False
    assert _cut_worth_trying({"area": 300.0, "shapes": {"meeple": 0.85, "ore": 0.9}}, cfg) is True


@pytest.fixture(scope="module")
def board():
    cat = catalog_for("goldrush", ["sheriff"])
    canvas = _Canvas(lo=(-1, -1), cells=(4, 3), px=PX)
    u, v = canvas.origin_px((0, 0))
    tiles = {(0, 0): _Tile((0, 0), cat["GR10"], 0, np.array([[1.0, 0.0, u], [0.0, 1.0, v]]), 0.9)}
    return canvas, tiles, {c: (t.tile, t.rot) for c, t in tiles.items()}


def _row(tiles, kind: str, logit: float):
    """A cowboy row whose tent outline's foot is on GR10's mountain spot at N."""
    foot = _spot("N", "tent", FigureConfig().offset_spread)
    match = {"score": 0.8, "foot": foot, "yaw": 0, "count": 1}
    info = {"_logits": {"tent": logit}, "_matches": {"tent": match, kind: dict(match)},
            "_roles": ["farmer", "meeple", "tent"]}
    return (SimpleNamespace(info=info), kind, tiles[(0, 0)], np.array([0.5, 0.5]), ("NR", 1.0, [], 0.05), match)


def _run(board, rows, colours, cfg):
    canvas, tiles, given = board
    colour_of = {i: SimpleNamespace(colour=c) for i, c in enumerate(colours)}
    _promote_tents(rows, list(range(len(rows))), colour_of, tiles, canvas, given, cfg)
    return [(r[1], r[4][0]) for r in rows]


def test_black_cowboy_promoted_within_the_black_limit(board):
    """Given a black and a red cowboy at tent logit -2.5 (below -tent_promote = -2) and no tent read,
    with tent_promote_black = 3 the black one becomes the black tent at N and the red one stays;
    with tent_promote_black = 0 (off) both stay cowboys.  (tent_promote_near 0: the tent's foot is on
    its spot, which would waive the limits up to tent_promote_near_logit.)"""
    _, tiles, _ = board
    rows = [_row(tiles, "farmer", -2.5), _row(tiles, "meeple", -2.5)]
    assert _run(board, rows, ["black", "red"], FigureConfig(tent_promote_black=3.0, tent_promote_near=0.0)) == [
        ("tent", "N"), ("meeple", "NR")]
    rows = [_row(tiles, "farmer", -2.5), _row(tiles, "meeple", -2.5)]
    assert _run(board, rows, ["black", "red"], FigureConfig(tent_promote_black=0.0, tent_promote_near=0.0)) == [
        ("farmer", "NR"), ("meeple", "NR")]
    rows = [_row(tiles, "farmer", -3.5)]
    assert _run(board, rows, ["black"], FigureConfig(tent_promote_black=3.0, tent_promote_near=0.0)) == [("farmer", "NR")]
