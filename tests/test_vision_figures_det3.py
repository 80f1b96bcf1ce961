"""One tent per player (seed 000): a player with no tent read gets its likeliest tent among its cowboys.

:func:`scorer.vision.figures._promote_tents` is tested on hand-made rows of the
figure stage (``(blob, kind, tile, frac, location, match)``) over a two-tile
canvas: GR10 (all mountain) at (0, 0) and GR01 (rail and prairie, no mountain)
at (1, 0), each drawn 64 pixels wide.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from scorer.tiles import catalog_for
from scorer.vision.figures import FigureConfig, _Canvas, _promote_tents, _spot, _Tile

PX = 64


def two_tiles(first: str, second: str):
    """A canvas of ``PX`` pixels a tile holding Gold Rush tile ``first`` at (0, 0) and ``second`` at (1, 0),
    both at rot 0 and registered exactly; returns ``(catalogue, canvas, tiles, given)``."""
    cat = catalog_for("goldrush", ["sheriff"])
    canvas = _Canvas(lo=(-1, -1), cells=(4, 3), px=PX)
    tiles = {}
    for cell, code in (((0, 0), first), ((1, 0), second)):
        u, v = canvas.origin_px(cell)
        tiles[cell] = _Tile(cell, cat[code], 0, np.array([[1.0, 0.0, u], [0.0, 1.0, v]]), 0.9)
    return cat, canvas, tiles, {c: (t.tile, t.rot) for c, t in tiles.items()}


@pytest.fixture(scope="module")
def board():
    return two_tiles("GR10", "GR01")[1:]


def _row(tiles, cell, kind: str, logit: float, tent_foot, roles=("farmer", "meeple", "tent")):
    """A cowboy row (located at NR) whose tent outline's foot is ``tent_foot`` (lattice)."""
    match = {"score": 0.8, "foot": np.asarray(tent_foot, dtype=np.float64), "yaw": 0, "count": 1}
    info = {"_logits": {"tent": logit}, "_matches": {"tent": match, kind: dict(match)}, "_roles": list(roles)}
    return (SimpleNamespace(info=info), kind, tiles[cell], np.array([0.5, 0.5]), ("NR", 1.0, [], 0.05), match)


def _mountain_foot() -> np.ndarray:
    """The tent spot of GR10's mountain at N, as a lattice point of cell (0, 0)."""
    return np.array([0.0, 0.0]) + _spot("N", "tent", FigureConfig().offset_spread)


def _run(board, rows, colours, cfg=None):
    canvas, tiles, given = board
    colour_of = {i: SimpleNamespace(colour=c) for i, c in enumerate(colours)}
    _promote_tents(rows, list(range(len(rows))), colour_of, tiles, canvas, given, cfg or FigureConfig())
    return [(r[1], r[4][0]) for r in rows]


def test_cowboy_of_a_player_without_tent_becomes_the_tent(board):
    """Given a red lying cowboy whose tent logit is -1.0 (above -tent_promote = -2) and whose
    tent outline stands on GR10's mountain spot, when no red tent is read, then it is read as
    the red tent at N; with tent_promote = 0 (off) it stays a farmer."""
    _, tiles, _ = board
    rows = [_row(tiles, (0, 0), "farmer", -1.0, _mountain_foot())]
    assert _run(board, rows, ["red"]) == [("tent", "N")]
    rows = [_row(tiles, (0, 0), "farmer", -1.0, _mountain_foot())]
    assert _run(board, rows, ["red"], FigureConfig(tent_promote=0.0)) == [("farmer", "NR")]


def test_no_promotion_when_the_colour_has_a_tent_or_the_logit_is_low(board):
    """Given a red tent already read, a red cowboy at logit -0.5 stays a cowboy; a blue cowboy
    at logit -2.5 (below -2) stays a cowboy too (with tent_promote_near 0: where the tent's foot
    stands is not weighed, see test_a_tent_foot_at_the_tent_spot_waives_the_outline_slack)."""
    _, tiles, _ = board
    tent = _row(tiles, (0, 0), "farmer", 3.0, _mountain_foot())
    tent = (tent[0], "tent", *tent[2:])
    rows = [tent, _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot()),
            _row(tiles, (0, 0), "farmer", -2.5, _mountain_foot())]
    assert _run(board, rows, ["red", "red", "blue"], FigureConfig(tent_promote_near=0.0)) == [
        ("tent", "NR"), ("meeple", "NR"), ("farmer", "NR")]


def test_only_the_likeliest_cowboy_and_only_on_a_mountain(board):
    """Given two green cowboys (logits -1.5 and -0.5) on the mountain, only the -0.5 one becomes
    the green tent; a yellow cowboy (logit -0.1) whose tent foot is on GR01 (no mountain), or
    whose colour may not be a tent (no tent role), stays a cowboy."""
    _, tiles, _ = board
    rows = [_row(tiles, (0, 0), "farmer", -1.5, _mountain_foot()),
            _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot()),
            _row(tiles, (1, 0), "farmer", -0.1, [1.5, 0.3]),
            _row(tiles, (0, 0), "farmer", -0.1, _mountain_foot(), roles=("farmer", "meeple"))]
    assert _run(board, rows, ["green", "green", "yellow", "blue"]) == [
        ("farmer", "NR"), ("tent", "N"), ("farmer", "NR"), ("farmer", "NR")]


def test_no_promotion_when_a_cowboy_outline_fits_clearly_better(board):
    """Given a red cowboy at logit -0.5 on the mountain whose outline correlations are meeple 0.90,
    tent 0.85 (0.05 worse, more than tent_promote_slack = 0.01), it stays a cowboy; at tent 0.895
    (0.005 worse) it becomes the red tent (tent_promote_near 0, as above)."""
    _, tiles, _ = board
    off = FigureConfig(tent_promote_near=0.0)
    row = _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot())
    row[0].info["shapes"] = {"meeple": 0.90, "farmer": 0.80, "tent": 0.85}
    assert _run(board, [row], ["red"], off) == [("meeple", "NR")]
    row = _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot())
    row[0].info["shapes"] = {"meeple": 0.90, "farmer": 0.80, "tent": 0.895}
    assert _run(board, [row], ["red"], off) == [("tent", "N")]


def _near_row(tiles, logit: float, tent_off: float, own: float):
    """A blue lying cowboy whose outline fits 0.05 better than the tent's, ``own`` tile units from his
    location's spot, and whose tent outline's foot lies ``tent_off`` west of GR10's tent spot at N."""
    row = _row(tiles, (0, 0), "farmer", logit, _mountain_foot() - [tent_off, 0.0])
    row[0].info["shapes"] = {"meeple": 0.80, "farmer": 0.85, "tent": 0.80}
    return (*row[:4], ("NR", 1.0, [], own), row[5])


def test_a_tent_foot_at_the_tent_spot_waives_the_outline_slack(board):
    """Given a blue cowboy at logit -2.5 (below -tent_promote = -2, above -tent_promote_near_logit = -3)
    whose outline fits 0.05 better than a tent's (more than tent_promote_slack), no blue tent read:
    when the tent's foot is on the tent spot (0.0, within tent_promote_near 0.12) and the cowboy's
    foot 0.10 from his own spot, it is the blue tent at N; with tent_promote_near 0 it stays."""
    _, tiles, _ = board
    assert _run(board, [_near_row(tiles, -2.5, 0.0, 0.10)], ["blue"]) == [("tent", "N")]
    assert _run(board, [_near_row(tiles, -2.5, 0.0, 0.10)], ["blue"], FigureConfig(tent_promote_near=0.0)) == [
        ("farmer", "NR")]


def test_near_tent_spot_needs_the_foot_nearer_than_the_cowboy_spot_and_the_logit(board):
    """The same cowboy stays one when the tent's foot lies 0.08 from the tent spot and his own
    foot 0.05 from his (nearer his own), when the tent's foot lies 0.15 off (beyond
    tent_promote_near 0.12), or when the logit is -3.5 (below -3)."""
    _, tiles, _ = board
    assert _run(board, [_near_row(tiles, -2.5, 0.08, 0.05)], ["blue"]) == [("farmer", "NR")]
    assert _run(board, [_near_row(tiles, -2.5, 0.15, 0.30)], ["blue"]) == [("farmer", "NR")]
    assert _run(board, [_near_row(tiles, -3.5, 0.0, 0.10)], ["blue"]) == [("farmer", "NR")]
    assert _run(board, [_near_row(tiles, -2.9, 0.08, 0.10)], ["blue"]) == [("tent", "N")]
