"""A tent read where a cowboy stands is that cowboy (:func:`scorer.vision.figures._demote_far_tents`).

Hand-made rows of the figure stage (``(blob, kind, tile, frac, location, match)``)
on the two-tile canvas of ``test_vision_figures_det3.py``: GR10 (all mountain) at
(0, 0), GR01 (rail and prairie) at (1, 0); and one photo of the Gold Rush + Sheriff
series of seed 9946001 (``scorer synth --generate 150 --difficulty mixed``), a series
the development looked at, read wrong without the option and right with it.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from helpers import config_with, read_generated
from scorer.vision.figures import FigureConfig, _demote_far_tents, _locate, _spot
from test_vision_figures_det3 import two_tiles


@pytest.fixture(scope="module")
def board():
    return two_tiles("GR10", "GR01")[1:]


def _tent_row(tiles, logit: float, tent_foot, body_foot):
    """A tent row on GR10 whose tent outline's foot is ``tent_foot`` and standing cowboy outline's
    foot ``body_foot`` (lattice points of cell (0, 0))."""
    tent = {"score": 0.8, "foot": np.asarray(tent_foot, dtype=np.float64), "yaw": 0, "count": 1}
    body = {"score": 0.8, "foot": np.asarray(body_foot, dtype=np.float64), "yaw": 0, "count": 1}
    info = {"_logits": {"tent": logit}, "_matches": {"tent": tent, "meeple": body}}
    return (SimpleNamespace(info=info), "tent", tiles[(0, 0)], np.asarray(tent_foot), ("N", 1.0, [], 0.0), tent)


def _run(board, rows, cfg=None):
    canvas, tiles, given = board
    n = _demote_far_tents(rows, tiles, canvas, given, cfg or FigureConfig())
    return n, [(r[1], r[4][0]) for r in rows]


def test_a_tent_on_a_cowboy_spot_far_from_the_tent_spot_is_the_cowboy(board):
    """Given a tent at logit 2.0 (below tent_demote_logit 3) whose feet both stand on the standing
    cowboy's spot at N of GR10, which lies more than tent_demote_far (0.15) from the tent's spot,
    it is read as a cowboy standing at N (and marked); with tent_demote_far 0 (off) it stays."""
    _, tiles, given = board
    cfg = FigureConfig()
    at_cowboy = _spot("N", "meeple", cfg.offset_spread)
    tent_spot = _locate(at_cowboy, given[(0, 0)][0], 0, "tent", cfg)
    assert tent_spot is not None and tent_spot[3] > cfg.tent_demote_far
    rows = [_tent_row(tiles, 2.0, at_cowboy, at_cowboy)]
    assert _run(board, rows) == (1, [("meeple", "N")])
    assert rows[0][0].info["_demoted"] is True
    rows = [_tent_row(tiles, 2.0, at_cowboy, at_cowboy)]
    assert _run(board, rows, FigureConfig(tent_demote_far=0.0)) == (0, [("tent", "N")])


def test_a_sure_tent_or_one_on_its_spot_stays(board):
    """The same tent stays one at logit 3.5 (above tent_demote_logit), and a tent whose tent
    outline's foot stands on the tent's spot stays one at logit 2.0."""
    _, tiles, _ = board
    cfg = FigureConfig()
    at_cowboy = _spot("N", "meeple", cfg.offset_spread)
    at_tent = _spot("N", "tent", cfg.offset_spread)
    assert _run(board, [_tent_row(tiles, 3.5, at_cowboy, at_cowboy)]) == (0, [("tent", "N")])
    assert _run(board, [_tent_row(tiles, 2.0, at_tent, at_cowboy)]) == (0, [("tent", "N")])


def test_a_black_cowboy_and_the_black_tent_beside_him_are_told_apart(tmp_path):
    """Photo 140: a black cowboy at N of (1, 1) was read as the black tent (his tent logit 0.7),
    and the black tent at N of (0, 1) as a cowboy at E (only one tent a player).  Read as a
    cowboy, his player has no tent, and the other is promoted to it: both right.  With
    tent_demote_far 0 both are wrong (with the cowboy rules off too, the tent is also read as a
    cowboy; with them, that second cowboy on its tile is read as an ore stack)."""
    def errors(cfg=None):
        cmp = read_generated(tmp_path, "goldrush", ["sheriff"], 9946001, 140, cfg)
        return sorted((e["error"], e["kind"], e["x"], e["y"]) for e in cmp.figure_errors)

    assert errors() == []
    assert errors(config_with("figures", tent_demote_far=0.0, one_cowboy=False, max_cowboys=0)) == [
        ("extra", "meeple", 0, 1), ("extra", "tent", 1, 1), ("missed", "meeple", 1, 1), ("missed", "tent", 0, 1)]
    assert errors(config_with("figures", tent_demote_far=0.0)) == [
        ("extra", "tent", 1, 1), ("missed", "meeple", 1, 1), ("missed", "tent", 0, 1)]
