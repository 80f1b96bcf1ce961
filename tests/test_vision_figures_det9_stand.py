"""A follower standing on a road end it hides: a runner-up tile with a road there takes it.

:func:`scorer.vision.figures._stand_on_runner_up` is tested on hand-made rows
of the figure stage (``(blob, kind, tile, frac, location, match)``) over base
tiles registered 64 pixels wide: R (city on three sides, field at S) read at
(0, 0), whose second look (``looks``) ranks T rot 0 (the same with a road at S)
as its runner-up.  A whole synthesised photo shows such a follower, read as a
farmer on R before and standing on the road of T now.  A Gold Rush cowboy
standing on the town he hides is checked alike (GR18 read, GR16 the runner-up).
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
from scorer.vision.figures import FigureConfig, FigureReading, _spot, _stand_on_runner_up, _Tile
from scorer.vision.pipeline import read_photo_full

PX = 64


def _tiles(cells: dict) -> dict:
    """Base tiles ``{(x, y): code}`` at rot 0, registered exactly: ``{cell: _Tile}``."""
    cat = catalog_for("carcassonne", [])
    return {(x, y): _Tile((x, y), cat[code], 0, np.array([[1.0, 0.0, x * PX], [0.0, 1.0, y * PX]]), 0.9)
            for (x, y), code in cells.items()}


def _road_foot() -> np.ndarray:
    """A standing follower's spot on a road at S, as fractions of the tile."""
    return _spot("S", "meeple", FigureConfig().offset_spread)


def _farmer_row(t, frac, standing: float, lying: float):
    """A follower laid as a farmer at SR of tile ``t``, its outline fitting standing and lying so well."""
    foot = np.asarray(frac, dtype=np.float64)
    shapes = {"meeple": {"score": standing, "foot": foot}, "farmer": {"score": lying, "foot": foot}}
    return (SimpleNamespace(info={"_matches": shapes}), "farmer", t, foot, ("SR", 1.0, [], 0.2), shapes["farmer"])


def _run(tiles, rows, t_misfit: float = 0.10):
    """:func:`_stand_on_runner_up` with R read at (0, 0) (misfit 0.12) and its runners-up T rot 0
    (``t_misfit``) and Q rot 0 (0.125: no road); returns the figure reading."""
    cat = catalog_for("carcassonne", [])
    out = FigureReading()
    out.debug["looks"] = {(0, 0): {"best": 0.10, "read": 0.12,
                                   "runners": [(cat["T"], 0, t_misfit), (cat["Q"], 0, 0.125)]}}
    _stand_on_runner_up(rows, tiles, {}, out, FigureConfig())
    return out


def test_a_follower_on_the_hidden_road_end_stands_on_the_runner_up():
    """Given a follower laid at SR of R whose outline fits standing better (0.62 against 0.58) and
    whose foot is at T's road spot, T rot 0 replaces R (misfit 0.10 against 0.12 read) and the
    follower stands on its road at S."""
    tiles = _tiles({(0, 0): "R"})
    rows = [_farmer_row(tiles[(0, 0)], _road_foot(), 0.62, 0.58)]
    out = _run(tiles, rows)
    assert [(r[1], r[2].tile.id, r[4][0]) for r in rows] == [("meeple", "T", "S")]
    assert out.tiles == {(0, 0): {"tile": "T", "rot": 0, "misfit": 0.1, "misfit_read": 0.12, "figure": "follower"}}
    assert tiles[(0, 0)].tile.id == "T"


def test_the_other_figures_on_the_cell_are_located_again():
    """Given also a farmer on (0, 0) lying at the field spot SL, it stays a farmer on T, at SL."""
    tiles = _tiles({(0, 0): "R"})
    lying = _farmer_row(tiles[(0, 0)], _spot("SL", "farmer", FigureConfig().offset_spread), 0.50, 0.70)
    rows = [_farmer_row(tiles[(0, 0)], _road_foot(), 0.62, 0.58), lying]
    _run(tiles, rows)
    assert [(r[1], r[2].tile.id, r[4][0]) for r in rows] == [("meeple", "T", "S"), ("farmer", "T", "SL")]


@pytest.mark.parametrize("why", ["lying fits better", "a neighbour's field", "foot far from the road",
                                 "runner-up fits worse", "the box holds no other T"])
def test_the_tile_read_stays(why):
    """Given the outline fitting lying better (0.55 against 0.60), or a tile at (0, 1) whose north side
    is a field (B: T's road would meet it), or the foot in the middle of the west half (0.2, 0.5), far
    from T's road spot, or T's misfit 0.135 (more than ``stand_alt_slack`` 0.012 above the 0.12 read),
    or the board's only T already read at (2, 0): nothing changes."""
    extra = {(0, 1): "B"} if why == "a neighbour's field" else {(2, 0): "T"} if why.startswith("the box") else {}
    tiles = _tiles({(0, 0): "R", **extra})
    frac = np.array([0.2, 0.5]) if why == "foot far from the road" else _road_foot()
    standing, lying = (0.55, 0.60) if why == "lying fits better" else (0.62, 0.58)
    rows = [_farmer_row(tiles[(0, 0)], frac, standing, lying)]
    before = list(rows)
    out = _run(tiles, rows, t_misfit=0.135 if why == "runner-up fits worse" else 0.10)
    assert rows == before and out.tiles == {} and tiles[(0, 0)].tile.id == "R"


def test_a_follower_on_a_hidden_road_end_in_a_photo(tmp_path):
    """Photo 134 of the base series of seed 9937002 (``scorer synth --generate 200 --difficulty mixed``,
    River and Goldmines): a green follower stands on the road end of T rot 0 at truth cell (5, 3) and
    hides it.  With ``stand_alt_tiles`` every tile and figure is read as the truth has them; with it
    off, R is read there and the follower lies in the field beside the road (SR)."""
    res, _level, _ = generated_photo("carcassonne", ["river", "goldmines"], 9937002, 134, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    cfg = load_config()
    assert cfg.figures.stand_alt_tiles
    seen = compare_boards(res.truth, read_photo_full(path, config=cfg).board)
    assert seen.tiles_right == seen.truth_tiles
    assert seen.location_right == seen.location_total == seen.figures_truth
    off = dataclasses.replace(cfg, figures=dataclasses.replace(cfg.figures, stand_alt_tiles=False))
    missed = compare_boards(res.truth, read_photo_full(path, config=off).board)
    assert [(e["truth"], e["pred"]) for e in missed.tile_errors] == [("T rot 0", "R rot 0")]
    assert [(e["truth"]["at"], e["pred"]["at"]) for e in missed.figure_errors] == [("S", "SR")]


def test_a_cowboy_on_the_town_it_hides_takes_the_town_tile():
    """Gold Rush: a cowboy standing on the town of GR16 (town with three rails) hides it, and GR18
    (the three-way crossing without a town) is read; the cowboy stands on a rail, his foot at the
    tile's centre, more than ``stand_alt_far`` (0.15) from that rail's spot.  GR16 rot 0, a
    runner-up within the slack whose town spot takes the foot, replaces GR18 and the cowboy stands
    on the town (C).  With ``stand_alt_far`` 0 (off), or the foot at the rail's spot, nothing
    changes."""
    cat = catalog_for("goldrush", ["sheriff"])
    spread = FigureConfig().offset_spread
    centre, rail = _spot("C", "meeple", spread), _spot("S", "meeple", spread)
    for cfg, foot, swapped in ((FigureConfig(), centre, True), (FigureConfig(stand_alt_far=0.0), centre, False),
                               (FigureConfig(), rail, False)):
        t = _Tile((0, 0), cat["GR18"], 0, np.eye(2, 3), 0.9)
        tiles = {(0, 0): t}
        shapes = {"meeple": {"score": 0.7, "foot": foot}, "farmer": {"score": 0.5, "foot": foot}}
        far = float(np.linalg.norm(rail - foot))
        rows = [(SimpleNamespace(info={"_matches": shapes}), "meeple", t, foot, ("S", 1.0, [], far), shapes["meeple"])]
        out = FigureReading()
        out.debug["looks"] = {(0, 0): {"best": 0.10, "read": 0.11, "runners": [(cat["GR16"], 0, 0.10)]}}
        _stand_on_runner_up(rows, tiles, {}, out, cfg)
        got = [(r[1], r[2].tile.id, r[4][0]) for r in rows]
        assert got == ([("meeple", "GR16", "C")] if swapped else [("meeple", "GR18", "S")])


def test_a_cowboy_on_a_hidden_town_in_a_photo(tmp_path):
    """Photo 12 of the Gold Rush series of seed 9936001 (``scorer synth --generate 200 --difficulty
    mixed``): a blue cowboy stands on the town of GR17 rot 0 at truth cell (2, 1) and hides it.  With
    ``stand_alt_far`` (0.15) every tile is read as the truth has it and the cowboy stands on the
    town; with it off, the four-way crossing GR20 is read there and the cowboy put on a rail.  Read
    on the lattices of the grid stage's first three passes (``chroma_pass`` off): the tiles read on
    the chroma pass's lattice match their templates better (0.70 against 0.63 on average) and it
    replaces them, but there the two tiles that figures hide are read otherwise (GR04 as its twin
    GR03, GR17 as GR16)."""
    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9936001, 12, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    cfg = load_config()
    cfg = dataclasses.replace(cfg, grid=dataclasses.replace(cfg.grid, chroma_pass=False))
    assert cfg.figures.stand_alt_far == 0.15
    seen = compare_boards(res.truth, read_photo_full(path, config=cfg).board)
    assert seen.tiles_right == seen.truth_tiles
    assert not [e for e in seen.figure_errors if (e["x"], e["y"]) == (2, 1)]
    off = dataclasses.replace(cfg, figures=dataclasses.replace(cfg.figures, stand_alt_far=0.0))
    missed = compare_boards(res.truth, read_photo_full(path, config=off).board)
    assert [(e["x"], e["y"], e["truth"], e["pred"].split(" rot")[0]) for e in missed.tile_errors] == [
        (2, 1, "GR17 rot 0", "GR20")]
    assert [(e["truth"]["at"], e["pred"]["at"]) for e in missed.figure_errors if (e["x"], e["y"]) == (2, 1)] == [
        ("C", "S")]
