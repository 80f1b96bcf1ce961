"""One cowboy a tile, four of a colour on the tiles (:func:`scorer.vision.figures._one_cowboy`,
:func:`scorer.vision.figures._cap_cowboys`), and of two tents of a colour the one on a tent's spot
(:func:`scorer.vision.figures._on_tent_spot`).

A Gold Rush cowboy goes only on the tile just placed, one a turn, and a player has
five, one on the score track (seed 000).  Hand-made rows of the figure stage
(``(blob, kind, tile, frac, location, match)``) on the two-tile canvas of
``test_vision_figures_det3.py``: GR10 (all mountain) at (0, 0), GR01 (rail and
prairie) at (1, 0); and two photos of the Gold Rush + Sheriff series of seed 9960401
(``scorer synth --generate 100 --difficulty mixed``), a series the development
looked at, read wrong without the rules and right with them.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from helpers import config_with, read_generated
from scorer.vision.figures import FigureConfig, _cap_cowboys, _locate, _on_tent_spot, _one_cowboy, _spot
from test_vision_figures_det3 import two_tiles


@pytest.fixture(scope="module")
def board():
    return two_tiles("GR10", "GR01")[1:]


def _row(tiles, cell, kind: str, *, tent: float | None = None, ore: float | None = None, black: bool = False,
         tent_foot=None, ore_foot=None, fit: float = 0.8, distance: float = 0.05):
    """A row of kind ``kind`` on ``cell`` located at N, ``distance`` from its spot, with tent and ore
    decision logits and outlines whose feet are ``tent_foot`` and ``ore_foot`` (lattice points)."""
    body = {"score": fit, "foot": np.array([cell[0] + 0.5, cell[1] + 0.5]), "yaw": 0, "count": 1}
    matches, logits = {"meeple": body}, {}
    if tent is not None:
        logits["tent"] = tent
        matches["tent"] = {"score": 0.8, "foot": np.asarray(tent_foot, dtype=np.float64), "yaw": 0, "count": 1}
    if ore is not None:
        logits["ore"] = ore
        matches["ore"] = {"score": 0.8, "foot": np.asarray(ore_foot, dtype=np.float64), "yaw": 0, "count": 2}
    info = {"_logits": logits, "_matches": matches, "class": "black" if black else "red",
            "shapes": {"meeple": fit, "farmer": fit - 0.1}}
    return (SimpleNamespace(info=info), kind, tiles[cell], np.array([0.5, 0.5]), ("N", 1.0, [], distance), body)


def _colours(names):
    return {i: SimpleNamespace(colour=c) for i, c in enumerate(names)}


def _feet():
    """Lattice points of cell (0, 0) (GR10): the tent's spot, the standing cowboy's spot and the ore
    stack's spot at N."""
    cfg = FigureConfig()
    return (_spot("N", "tent", cfg.offset_spread), _spot("N", "meeple", cfg.offset_spread),
            _spot("N", "ore", cfg.offset_spread, tuple(cfg.ore_spot)))


def test_of_two_cowboys_on_a_tile_the_one_on_the_tent_spot_is_the_tent(board):
    """Given two red cowboys read on GR10: one whose tent outline stands on the cowboy's spot (tent
    logit -3) and one whose tent outline stands on the tent's own spot (logit -5, its cowboy 0.2
    from his location), when no red tent is read, then the second is the red tent and nothing is
    dropped."""
    canvas, tiles, given = board
    at_tent, at_cowboy, _ = _feet()
    cfg = FigureConfig()
    assert _locate(at_tent, given[(0, 0)][0], 0, "tent", cfg)[3] < 0.2
    rows = [_row(tiles, (0, 0), "meeple", tent=-3.0, tent_foot=at_cowboy),
            _row(tiles, (0, 0), "meeple", tent=-5.0, tent_foot=at_tent, distance=0.2)]
    gone = _one_cowboy(rows, [0, 1], _colours(["red", "red"]), tiles, canvas, given, cfg)
    assert gone == set()
    assert [r[1] for r in rows] == ["meeple", "tent"]


def test_two_cowboys_that_can_be_nothing_else_keep_the_best_outline(board):
    """Given a red tent read and two red cowboys on GR01 (no mountain: no tent or stack spot), the
    cowboy whose outline fits worse (0.7 against 0.9) is dropped; cowboys of a crowded cell (more
    than max_cell_followers) are left for the table check."""
    canvas, tiles, given = board
    at_tent, _, _ = _feet()
    tent = _row(tiles, (0, 0), "meeple", tent=3.0, tent_foot=at_tent)
    rows = [(tent[0], "tent", *tent[2:]), _row(tiles, (1, 0), "meeple", fit=0.7), _row(tiles, (1, 0), "farmer", fit=0.9)]
    assert _one_cowboy(rows, [0, 1, 2], _colours(["red"] * 3), tiles, canvas, given, FigureConfig()) == {1}
    rows = [_row(tiles, (1, 0), "meeple", fit=0.7 + k / 100) for k in range(4)]
    assert _one_cowboy(rows, [0, 1, 2, 3], _colours(["red"] * 4), tiles, canvas, given, FigureConfig()) == set()


def test_a_fifth_black_cowboy_is_the_ore_stack_a_spot_takes(board):
    """Given five black cowboys and a black tent read (on one tile here: the table check is set
    aside with max_colour_figures and max_cell_followers 9), the one whose ore decision logit is
    highest among those whose stack outline lies on a mountain's stack spot (-2.0; one at -1.0
    lies off the tiles' spots) is read as an ore stack; with max_cowboys 5 all five stay cowboys;
    with the table check as shipped, the cell is the table's and all stay."""
    canvas, tiles, given = board
    at_tent, _, at_ore = _feet()
    far = np.array([1.5, 0.5])  # the middle of GR01: prairie and rail, no mountain
    tent = _row(tiles, (0, 0), "meeple", tent=4.0, tent_foot=at_tent, black=True)

    def rows():
        out = [(tent[0], "tent", *tent[2:])]
        for z, foot in ((-4.0, at_ore), (-2.0, at_ore), (-1.0, far), (-6.0, at_ore), (-3.0, at_ore)):
            out.append(_row(tiles, (0, 0), "meeple", ore=z, ore_foot=foot, black=True))
        return out

    colours = _colours(["black"] * 6)
    loose = {"max_colour_figures": 9, "max_cell_followers": 9}
    got = rows()
    assert _cap_cowboys(got, list(range(6)), colours, tiles, canvas, given, FigureConfig(**loose)) == 1
    assert [r[1] for r in got] == ["tent", "meeple", "ore", "meeple", "meeple", "meeple"]
    for cfg in (FigureConfig(max_cowboys=5, **loose), FigureConfig()):
        got = rows()
        assert _cap_cowboys(got, list(range(6)), colours, tiles, canvas, given, cfg) == 0
        assert [r[1] for r in got] == ["tent"] + ["meeple"] * 5


def test_a_tent_on_the_tent_spot_rather_than_a_cowboy_spot(board):
    """A tent row on GR10 whose tent outline's foot lies on the tent's spot (location distance 0.0)
    while its standing cowboy outline's foot lies 0.2 off the cowboy's spot stands on a tent's
    spot; one whose tent foot is 0.25 from the tent's spot while its cowboy foot is on the cowboy's
    spot does not."""
    canvas, tiles, given = board
    at_tent, at_cowboy, _ = _feet()
    cfg = FigureConfig()

    def tent_row(distance, body_foot):
        row = _row(tiles, (0, 0), "meeple", tent=5.0, tent_foot=at_tent, distance=distance)
        row[0].info["_matches"]["meeple"]["foot"] = np.asarray(body_foot, dtype=np.float64)
        return (row[0], "tent", *row[2:])

    off = at_cowboy + np.array([0.2, 0.0])
    assert _locate(off, given[(0, 0)][0], 0, "meeple", cfg)[3] > 0.1
    assert _on_tent_spot(tent_row(0.0, off), tiles, canvas, given, cfg)
    assert not _on_tent_spot(tent_row(0.25, at_cowboy), tiles, canvas, given, cfg)


@pytest.mark.parametrize("photo, before", [
    # Two black cowboys read on one tile (one an ore stack) and six black cowboys, one of them the
    # black tent, whose player had no tent read.
    (92, [("extra", "meeple", 1, 8), ("extra", "meeple", 6, 4), ("missed", "tent", 1, 8)]),
    # Seven black cowboys read: three of them lone ore tokens on mountains.
    (76, [("extra", "meeple", 0, 5), ("extra", "meeple", 6, 9), ("extra", "meeple", 7, 8)]),
])
def test_photos_read_right_with_the_rules(tmp_path, photo, before):
    """Photos 92 and 76 of seed 9960401 read every figure right; with one_cowboy off and
    max_cowboys 0 (off) they read the figures ``before`` wrong."""
    def errors(cfg=None):
        cmp = read_generated(tmp_path, "goldrush", ["sheriff"], 9960401, photo, cfg)
        return sorted((e["error"], e["kind"], e["x"], e["y"]) for e in cmp.figure_errors)

    assert errors() == []
    assert errors(config_with("figures", one_cowboy=False, max_cowboys=0)) == before


def test_of_two_yellow_tents_the_one_on_its_spot_stays(tmp_path):
    """Photo 0 of seed 9960401: a yellow cowboy at E of (7, 0) and the yellow tent at S of (9, 6) are
    both read as tents (logits 6.7 and 5.9); the cowboy's foot lies nearer a cowboy's spot and the
    tent's nearer the tent's, so the tent stays one and the cowboy is a cowboy (the black cowboy
    at C of (10, 5) stays missed, for another reason); with tent_keep_spot off the higher logit
    keeps the tent."""
    def errors(cfg=None):
        cmp = read_generated(tmp_path, "goldrush", ["sheriff"], 9960401, 0, cfg)
        return sorted((e["error"], e["kind"], e["x"], e["y"]) for e in cmp.figure_errors)

    assert errors() == [("missed", "meeple", 10, 5)]
    assert errors(config_with("figures", tent_keep_spot=False)) == [
        ("extra", "meeple", 9, 6), ("extra", "tent", 7, 0), ("missed", "meeple", 7, 0), ("missed", "meeple", 10, 5),
        ("missed", "tent", 9, 6)]
