"""A grey candidate touching a kept figure or ore stack is its shadow (Gold Rush has no grey figures).

:func:`scorer.vision.figures._drop_shadows` is tested on hand-made rows of the
figure stage (``(blob, kind, tile, frac, location, match)``) whose blobs are
squares of lattice points; only the blob's ``xy`` and ``info`` are read.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from scorer.vision.figures import FigureConfig, FigureReading, _drop_shadows, _touching

GOLDRUSH = ["yellow", "red", "green", "blue", "black"]


def _blob(x0: float, y0: float, cls: str, side: float = 0.2, step: float = 0.01) -> SimpleNamespace:
    """A square candidate of ``side`` tile units from (x0, y0), sampled every ``step``."""
    g = np.arange(0.0, side + 1e-9, step)
    xy = np.stack(np.meshgrid(x0 + g, y0 + g), axis=-1).reshape(-1, 2)
    return SimpleNamespace(xy=xy, info={"class": cls, "rgb": [60.0, 60.0, 58.0], "area": 120.0})


def _row(blob, kind: str) -> tuple:
    return (blob, kind, None, None, ("W", 1.0, [], 0.05), {})


def _kinds(rows) -> list[tuple[str, str]]:
    return [(r[0].info["class"], r[1]) for r in rows]


def test_touching_measures_the_gap_between_pixels():
    """Two squares 0.05 tile units apart touch within a reach of 0.06, not within 0.04."""
    a, b = _blob(0.0, 0.0, "grey"), _blob(0.25, 0.0, "green")
    assert _touching(a, b, 0.06) is True
    assert _touching(a, b, 0.04) is False
    assert _touching(b, a, 0.06) is True


def test_grey_candidate_beside_a_tent_is_its_shadow():
    """Given a green tent and a grey 'cowboy' 0.05 tile units from it (a shadow), the grey one is
    dropped with shadow_touch = 0.08 and kept with shadow_touch = 0 (off)."""
    cfg = FigureConfig(shadow_touch=0.08)
    rows = [_row(_blob(0.0, 0.0, "green"), "tent"), _row(_blob(0.25, 0.0, "grey"), "meeple")]
    out = FigureReading()
    _drop_shadows(rows, GOLDRUSH, out, cfg)
    assert _kinds(rows) == [("green", "tent")]
    assert [b["why"] for b in out.blobs] == ["shadow of a candidate it touches"]


def test_grey_candidate_alone_or_of_a_player_colour_stays():
    """A grey cowboy 0.3 tile units from every other candidate stays; a black cowboy touching an
    ore stack stays (black is a player colour); in the base game, where grey is a player colour,
    a grey follower touching another stays too."""
    cfg = FigureConfig(shadow_touch=0.08)
    rows = [_row(_blob(0.0, 0.0, "black"), "ore"), _row(_blob(0.25, 0.0, "black"), "meeple"),
            _row(_blob(0.75, 0.0, "grey"), "farmer")]
    _drop_shadows(rows, GOLDRUSH, FigureReading(), cfg)
    assert _kinds(rows) == [("black", "ore"), ("black", "meeple"), ("grey", "farmer")]
    rows = [_row(_blob(0.0, 0.0, "red"), "meeple"), _row(_blob(0.25, 0.0, "grey"), "meeple")]
    _drop_shadows(rows, ["red", "blue", "green", "yellow", "black", "grey", "pink"], FigureReading(), cfg)
    assert _kinds(rows) == [("red", "meeple"), ("grey", "meeple")]


def test_shadow_touch_is_on_by_default():
    """The packaged default drops shadows (shadow_touch > 0)."""
    assert FigureConfig().shadow_touch > 0
