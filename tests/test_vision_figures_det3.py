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
    at logit -2.5 (below -2) stays a cowboy too."""
    _, tiles, _ = board
    tent = _row(tiles, (0, 0), "farmer", 3.0, _mountain_foot())
    tent = (tent[0], "tent", *tent[2:])
    rows = [tent, _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot()),
            _row(tiles, (0, 0), "farmer", -2.5, _mountain_foot())]
    assert _run(board, rows, ["red", "red", "blue"]) == [("tent", "NR"), ("meeple", "NR"), ("farmer", "NR")]


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
    (0.005 worse) it becomes the red tent."""
    _, tiles, _ = board
    row = _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot())
    row[0].info["shapes"] = {"meeple": 0.90, "farmer": 0.80, "tent": 0.85}
    assert _run(board, [row], ["red"]) == [("meeple", "NR")]
    row = _row(tiles, (0, 0), "meeple", -0.5, _mountain_foot())
    row[0].info["shapes"] = {"meeple": 0.90, "farmer": 0.80, "tent": 0.895}
    assert _run(board, [row], ["red"]) == [("tent", "N")]
