"""The Sheriff on a misread tile: a runner-up tile of the second look with a mountain there takes it.

:func:`scorer.vision.figures._spot_alternative` and
:func:`scorer.vision.figures._sheriff_on_runner_up` are tested on hand-made
candidates and rows of the figure stage over a two-tile canvas: GR01 (rail and
prairie, no mountain) read at (0, 0), GR10 (all mountain) at (1, 0), each drawn
64 pixels wide.  The second look (``looks``) ranks GR13 rot 0 (mountains at N
and S) and GR07 rot 0 (mountain at N and W) as runners-up of cell (0, 0).
Of several Sheriff candidates, one surely of the Sheriff's gold goes before
pale ones (:func:`scorer.vision.figures._sheriff_gold`).  A whole synthesised
photo shows a Sheriff seen only in parts smaller than a figure read through
``sheriff_small_logit``.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from scorer.evaluate import compare_boards
from scorer.render.synth import generated_photo
from scorer.tiles import catalog_for
from scorer.vision.config import load_config
from scorer.vision.figures import (FigureConfig, FigureReading, _sheriff_gold, _sheriff_on_runner_up, _spot,
                                   _spot_alternative)
from scorer.vision.pipeline import read_photo_full
from test_vision_figures_det3 import two_tiles

SHERIFF_GOLD = [214.0, 172.0, 48.0]  # the Sheriff's render colour, light-corrected
PALE_GOLD = [212.0, 194.0, 110.0]  # a nugget of the art: 0.60 from the Sheriff's gold


@pytest.fixture()
def board():
    cat, _, tiles, given = two_tiles("GR01", "GR10")
    looks = {(0, 0): {"best": 0.20, "read": 0.20,
                      "runners": [(cat["GR01"], 2, 0.205), (cat["GR13"], 0, 0.21), (cat["GR07"], 0, 0.22)]}}
    return cat, tiles, given, looks


def _south() -> np.ndarray:
    """The Sheriff's spot of a mountain at S, as fractions of the tile."""
    return _spot("S", "sheriff", FigureConfig().offset_spread)


def _candidate(board, frac, logit: float = 2.0, rgb=SHERIFF_GOLD):
    """A Sheriff-first candidate on cell (0, 0) whose foot is at ``frac``, with its runner-up found."""
    _, tiles, given, looks = board
    alt = _spot_alternative(np.asarray(frac, dtype=np.float64), tiles[(0, 0)], looks, given, FigureConfig())
    mt = {"score": 0.7, "foot": np.asarray(frac, dtype=np.float64), "yaw": 0, "count": 1}
    info = {"_logits": {"sheriff": logit, "tent": -2.0}, "rgb": list(rgb),
            "_sheriff_alt": None if alt is None else (alt[0], np.asarray(frac), alt[1], mt)}
    return SimpleNamespace(info=info)


def test_runner_up_with_a_mountain_under_the_foot(board):
    """Given a foot at the Sheriff's S spot of cell (0, 0) read as GR01, the first runner-up with a
    mountain spot within max_spot_distance is GR13 rot 0 (GR01 rot 2 has none), at S; a foot in the
    middle of the east edge (0.95, 0.45) is near no mountain spot of GR13 or GR07: none."""
    _, tiles, given, looks = board
    alt = _spot_alternative(_south(), tiles[(0, 0)], looks, given, FigureConfig())
    assert alt is not None
    assert (alt[0].tile.id, alt[0].rot, alt[1][0]) == ("GR13", 0, "S")
    assert alt[0].cell == (0, 0)
    assert _spot_alternative(np.array([0.95, 0.45]), tiles[(0, 0)], looks, given, FigureConfig()) is None
    assert _spot_alternative(_south(), tiles[(1, 0)], looks, given, FigureConfig()) is None  # not looked at


def test_sheriff_placed_on_the_runner_up_and_the_tile_replaced(board):
    """Given no Sheriff read and a gold Sheriff-first candidate at S of (0, 0), it is added as the
    Sheriff at S on GR13 rot 0, which replaces GR01 (out.tiles, misfit 0.21 against 0.20 read);
    a cowboy row on (0, 0) at WL is located again on GR13 (WL is a prairie of it: kept)."""
    _, tiles, given, _ = board
    b = _candidate(board, _south())
    cowboy = (SimpleNamespace(info={}), "farmer", tiles[(0, 0)], np.array([0.1, 0.6]), ("WL", 1.0, [], 0.05), {})
    rows = [cowboy]
    out = FigureReading()
    out.debug["looks"] = board[3]
    _sheriff_on_runner_up(rows, [b], tiles, {}, out, FigureConfig())
    assert [(r[1], r[2].tile.id, r[4][0]) for r in rows] == [("farmer", "GR13", "WL"), ("sheriff", "GR13", "S")]
    assert out.tiles == {(0, 0): {"tile": "GR13", "rot": 0, "misfit": 0.21, "misfit_read": 0.2, "figure": "sheriff"}}
    assert tiles[(0, 0)].tile.id == "GR13"


def test_sheriff_replaces_the_cowboy_it_fell_back_to(board):
    """Given the candidate already in the rows as a yellow cowboy (its Sheriff role found no mountain),
    its row becomes the Sheriff: one row, not two."""
    _, tiles, _, _ = board
    b = _candidate(board, _south())
    rows = [(b, "meeple", tiles[(0, 0)], _south(), ("SL", 1.0, [], 0.1), {})]
    out = FigureReading()
    out.debug["looks"] = board[3]
    _sheriff_on_runner_up(rows, [b], tiles, {}, out, FigureConfig())
    assert [(r[1], r[2].tile.id, r[4][0]) for r in rows] == [("sheriff", "GR13", "S")]


def test_no_sheriff_from_pale_gold_grey_or_a_negative_logit(board):
    """Given a candidate of the art's pale gold (0.60 from the Sheriff's, above spot_alt_gold = 0.35),
    or one whose Sheriff logit is -0.5, or a grey one (150, 150, 150), nothing is added and the
    tile stays GR01."""
    _, tiles, _, _ = board
    for b in (_candidate(board, _south(), rgb=PALE_GOLD), _candidate(board, _south(), logit=-0.5)):
        rows: list = []
        out = FigureReading()
        out.debug["looks"] = board[3]
        _sheriff_on_runner_up(rows, [b], tiles, {}, out, FigureConfig())
        assert rows == [] and out.tiles == {} and tiles[(0, 0)].tile.id == "GR01"
    rows = []
    out = FigureReading()
    out.debug["looks"] = board[3]
    _sheriff_on_runner_up(rows, [_candidate(board, _south(), rgb=[150.0, 150.0, 150.0])], tiles, {}, out,
                          FigureConfig())
    assert rows == []


def test_location_reported_on_the_tile_read_when_not_adopted(board):
    """Given the tiles read passed as ``given`` (the caller keeps them), the Sheriff's location is
    one GR01 has: S, which GR01 locates on its southern prairie (``turned(0).locate``)."""
    _, tiles, given, looks = board
    alt = _spot_alternative(_south(), tiles[(0, 0)], looks, given, FigureConfig())
    assert alt is not None and alt[0].tile.id == "GR13"
    assert alt[1][0] == "S"
    assert catalog_for("goldrush", ["sheriff"])["GR01"].turned(0).locate("S") is not None


def test_sheriff_of_gold_goes_before_pale_candidates():
    """Given Sheriff candidates: one of the Sheriff's gold at logit 1.5, one pale gold (a nugget of the
    art, 0.60 away) at logit 8.0, one of gold at logit 0.5, then only the first is surely the Sheriff
    (_sheriff_gold); with sheriff_gold_logit = 0 (off) none is."""
    cfg = FigureConfig()
    gold = {"rgb": SHERIFF_GOLD, "_logits": {"sheriff": 1.5}}
    pale = {"rgb": PALE_GOLD, "_logits": {"sheriff": 8.0}}
    weak = {"rgb": SHERIFF_GOLD, "_logits": {"sheriff": 0.5}}
    assert [_sheriff_gold(i, cfg) for i in (gold, pale, weak)] == [True, False, False]
    assert _sheriff_gold(gold, FigureConfig(sheriff_gold_logit=0.0)) is False
    assert _sheriff_gold({"rgb": SHERIFF_GOLD}, cfg) is False  # never decided as the Sheriff


def test_a_sheriff_seen_only_in_small_parts_is_read(tmp_path):
    """Photo 41 of the Gold Rush series of seed 9936001 (``scorer synth --generate 200 --difficulty
    mixed``): the Sheriff lies on a prairie's pale sand beside a mountain, and his gold leaves only two
    parts in the residual, each smaller than ``min_area_mm2`` (about 24 and 23 mm^2), one with a Sheriff
    logit near 29.  With ``sheriff_small_logit`` (5) he is read on his cell and location and the
    figures read are those of the truth; with it off he is missed and nothing else changes."""
    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9936001, 41, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    cfg = load_config()
    assert cfg.figures.sheriff_small_logit == 5.0
    seen = compare_boards(res.truth, read_photo_full(path, config=cfg).board)
    assert res.truth.sheriff is not None
    assert seen.figures_truth == seen.figures_pred == seen.figures_matched
    assert seen.location_right == seen.location_total
    off = dataclasses.replace(cfg, figures=dataclasses.replace(cfg.figures, sheriff_small_logit=0.0))
    missed = compare_boards(res.truth, read_photo_full(path, config=off).board)
    assert (missed.figures_truth, missed.figures_pred, missed.figures_matched) == (
        seen.figures_truth, seen.figures_truth - 1, seen.figures_truth - 1)
    assert [e["kind"] for e in missed.figure_errors] == ["sheriff"]
