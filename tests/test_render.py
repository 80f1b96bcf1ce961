"""Tests of the procedural tile art, the top-down board renderer and ``scorer render`` / ``scorer tiles``."""

from __future__ import annotations

import itertools
import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from scorer.board import Board
from scorer.errors import ScorerError
from scorer.render import tile_image
from scorer.render.colours import FIGURE_RGB, PLAYER_RGB, SHERIFF_RGB, encode_image, imread_rgb
from scorer.render.tileart import PALETTE, art_path, clear_cache
from scorer.render.topdown import (
    LOCATION_ANCHORS,
    MEEPLE_SIZE,
    BoardRaster,
    figure_point,
    nearest_location,
    render_board,
)
from scorer.render_cli import contact_sheet, render, tiles
from scorer.tiles import BUILTIN_SETS, load_tileset, parse_tile

REAL_ART = Path(__file__).resolve().parents[2] / "shared" / "tile_art" / "base_c2"


def _available_sets() -> list[str]:
    folder = resources.files("scorer").joinpath("data", "tiles")
    return [n for n in BUILTIN_SETS if folder.joinpath(f"{n}.json").is_file()]


SETS = _available_sets()
BASE = load_tileset("base")


def _diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


# Tile-art classes by the colours they are drawn with (sides are told apart by these).
_CLASSES = {
    "carcassonne": {"field": ["field"], "city": ["city", "wall"], "road": ["road"], "river": ["river", "river_edge"]},
    "goldrush": {"prairie": ["prairie"], "mountain": ["mountain"], "rail": ["ballast", "sleeper", "rail"]},
}


def _side_kind(img: np.ndarray, side: str, game: str) -> str:
    """Kind of feature drawn at the middle of ``side``: nearest palette colour of the patch median."""
    s = img.shape[0]
    a, b = int(0.44 * s), int(0.56 * s)
    c, d = int(0.03 * s), int(0.07 * s)
    patch = {"N": img[c:d, a:b], "S": img[s - d:s - c, a:b], "W": img[a:b, c:d], "E": img[a:b, s - d:s - c]}[side]
    med = np.median(patch.reshape(-1, 3), axis=0)
    return min((float(np.abs(med - np.array(PALETTE[n])).sum()), kind)
               for kind, names in _CLASSES[game].items() for n in names)[1]


# --------------------------------------------------------------------------- tile art


def test_tile_image_shape_dtype_and_determinism():
    tile = BASE.tiles["D"]
    a = tile_image(tile, 256)
    clear_cache()
    b = tile_image(tile, 256)
    assert a.shape == (256, 256, 3) and a.dtype == np.uint8
    assert a.tobytes() == b.tobytes()
    assert tile_image(tile, 100, seed=3).tobytes() == tile_image(tile, 100, seed=3).tobytes()


def test_seed_changes_only_texture_details():
    tile = BASE.tiles["K"]
    a, b = tile_image(tile, 128, seed=0), tile_image(tile, 128, seed=1)
    assert a.tobytes() != b.tobytes()
    assert _diff(a, b) < 6.0  # same layout, different grass tufts and speckles
    assert _diff(a, tile_image(BASE.tiles["J"], 128)) > 10.0


def test_tile_image_returns_a_fresh_array():
    tile = BASE.tiles["E"]
    a = tile_image(tile, 64)
    a[:] = 0
    assert tile_image(tile, 64).max() > 0


def test_rotation_convention_rot1_moves_north_to_east():
    # E: a city on the north side only.  np.rot90(img, -1) is one clockwise quarter turn.
    img = tile_image(BASE.tiles["E"], 128)
    turned = np.rot90(img, -1)
    assert [_side_kind(img, s, "carcassonne") for s in "NESW"] == ["city", "field", "field", "field"]
    assert [_side_kind(turned, s, "carcassonne") for s in "NESW"] == ["field", "city", "field", "field"]


@pytest.mark.parametrize("set_name", SETS)
def test_every_tile_draws_with_its_sides_where_the_catalogue_puts_them(set_name):
    ts = load_tileset(set_name)
    for tile in ts.tiles.values():
        img = tile_image(tile, 128)
        assert img.shape == (128, 128, 3) and img.dtype == np.uint8
        for rot in range(4):
            turned = np.rot90(img, -rot)
            got = tuple(_side_kind(turned, s, ts.game) for s in "NESW")
            assert got == tile.edge_signature(rot), (tile.id, rot)


def test_every_pair_of_base_tiles_looks_different():
    imgs = {t.id: tile_image(t, 128) for t in BASE.tiles.values()}
    for a, b in itertools.combinations(imgs, 2):
        # the closest pairs differ by one pennant shield (F/G, M/N, O/P, Q/R, S/T)
        assert _diff(imgs[a], imgs[b]) > 3.0, (a, b)


def test_asymmetric_tiles_look_different_in_every_rotation():
    for ts in (load_tileset(n) for n in SETS):
        for tile in ts.tiles.values():
            img = tile_image(tile, 96)
            for rot in (1, 2, 3):
                if rot in tile.symmetries():
                    continue
                assert _diff(np.rot90(img, -rot), img) > 8.0, (tile.id, rot)


_ALL_BUT_NORTH = ["EL", "ER", "SL", "SR", "WL", "WR"]
_ALL_HALVES = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]


def _inline(features, **meta):
    return parse_tile({"features": features, **meta}, "test", tile_id=meta.get("name", "t"))


@pytest.mark.parametrize("with_symbol, without", [
    ([{"kind": "city", "edges": ["N", "W"], "pennants": 1}, {"kind": "field", "edges": ["EL", "ER", "SL", "SR"]}],
     [{"kind": "city", "edges": ["N", "W"]}, {"kind": "field", "edges": ["EL", "ER", "SL", "SR"]}]),
    ([{"kind": "road", "edges": ["W", "E"], "inn": True}, {"kind": "field", "edges": ["NL", "NR", "EL", "WR"]},
      {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}],
     [{"kind": "road", "edges": ["W", "E"]}, {"kind": "field", "edges": ["NL", "NR", "EL", "WR"]},
      {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}]),
    ([{"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"], "pigherd": True}],
     [{"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]}]),
    ([{"kind": "mountain", "edges": ["N"], "nuggets": 2}, {"kind": "prairie", "edges": _ALL_BUT_NORTH}],
     [{"kind": "mountain", "edges": ["N"], "nuggets": 1}, {"kind": "prairie", "edges": _ALL_BUT_NORTH}]),
    ([{"kind": "rail", "edges": ["W", "E"], "locomotives": 1}, {"kind": "prairie", "edges": ["NL", "NR", "EL", "WR"]},
      {"kind": "prairie", "edges": ["ER", "SL", "SR", "WL"]}],
     [{"kind": "rail", "edges": ["W", "E"]}, {"kind": "prairie", "edges": ["NL", "NR", "EL", "WR"]},
      {"kind": "prairie", "edges": ["ER", "SL", "SR", "WL"]}]),
    ([{"kind": "prairie", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"], "camps": 1}],
     [{"kind": "prairie", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"], "horses": 1}]),
])
def test_symbols_show(with_symbol, without):
    assert _diff(tile_image(_inline(with_symbol), 128), tile_image(_inline(without), 128)) > 1.0


def test_gold_and_sheriff_symbols_show():
    feats = [{"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]}, {"kind": "cloister"}]
    plain = tile_image(_inline(feats, name="p"), 128)
    gold = tile_image(_inline(feats, name="g", gold=True), 128)
    assert _diff(plain, gold) > 0.6
    # the ingot is gold-coloured
    assert np.any(np.all(np.abs(gold.astype(int) - PALETTE["gold"]) < 12, axis=2))
    prairie = [{"kind": "prairie", "edges": _ALL_HALVES}, {"kind": "cemetery"}]
    star = tile_image(_inline(prairie, name="s", sheriff=True), 128)
    assert _diff(tile_image(_inline(prairie, name="c"), 128), star) > 1.0


def test_tile_drawing_is_fast():
    import time

    clear_cache()
    start = time.perf_counter()
    for tile in BASE.tiles.values():
        tile_image(tile, 256, seed=7)
    per_tile = (time.perf_counter() - start) / len(BASE.tiles)
    assert per_tile < 0.05  # about 2 ms on one core; generous for slow machines


def test_bad_size_raises():
    with pytest.raises(ScorerError, match="at least 16"):
        tile_image(BASE.tiles["A"], 8)


def test_missing_art_names_tile_and_folder(tmp_path):
    with pytest.raises(ScorerError, match=r"tile D: no art file D\.png or D\.jpg in .*" + tmp_path.name):
        tile_image(BASE.tiles["D"], 64, art_dir=tmp_path)
    with pytest.raises(ScorerError, match="tile t: its tile set names no art file"):
        art_path(_inline([{"kind": "cloister"}, {"kind": "field", "edges": _ALL_HALVES}]), tmp_path)


def test_art_dir_loads_and_resizes(tmp_path):
    art = np.zeros((40, 50, 3), np.uint8)
    art[:, :, 0] = 200  # red in RGB
    (tmp_path / "D.png").write_bytes(encode_image(art))
    img = tile_image(BASE.tiles["D"], 64, art_dir=tmp_path)
    assert img.shape == (64, 64, 3)
    assert tuple(img[32, 32]) == (200, 0, 0)


@pytest.mark.skipif(not REAL_ART.is_dir(), reason="real tile art (../shared/tile_art) not available")
def test_real_art_loads():
    img = tile_image(BASE.tiles["D"], 128, art_dir=REAL_ART)
    assert img.shape == (128, 128, 3)
    # D: city on the north side, green field in the south
    assert img[110:120, 40:90, 1].mean() > img[110:120, 40:90, 2].mean() + 30


def test_colour_conversion_round_trip(tmp_path):
    rgb = np.zeros((4, 6, 3), np.uint8)
    rgb[..., 0] = 250
    rgb[..., 2] = 10
    path = tmp_path / "x.png"
    path.write_bytes(encode_image(rgb))
    back = imread_rgb(path)
    assert back.tobytes() == rgb.tobytes()
    with pytest.raises(ScorerError, match="cannot read image"):
        imread_rgb(tmp_path / "missing.png")


def test_colour_table_has_seven_players_and_the_sheriff():
    assert set(PLAYER_RGB) == {"red", "blue", "green", "yellow", "black", "grey", "pink"}
    assert FIGURE_RGB["sheriff"] == SHERIFF_RGB
    colours = list(FIGURE_RGB.values())
    for a, b in itertools.combinations(colours, 2):
        assert sum(abs(x - y) for x, y in zip(a, b)) > 60


# --------------------------------------------------------------------------- board renderer


def _board(**extra) -> Board:
    obj = {
        "format": "carcassonne-board/1", "game": "carcassonne", "expansions": ["goldmines"],
        "players": ["red", "blue"],
        "tiles": [{"x": 0, "y": 0, "tile": "D", "rot": 0}, {"x": 1, "y": 0, "tile": "U", "rot": 0},
                  {"x": 0, "y": -1, "tile": "E", "rot": 2}, {"x": -1, "y": 0, "tile": "B", "rot": 0},
                  {"x": 1, "y": 1, "tile": "V", "rot": 1}],
    }
    obj.update(extra)
    return Board.from_dict(obj)


def test_render_board_size_and_tile_placement():
    board = _board()
    img, raster = render_board(board, tile_px=64, figures=False)
    # x from -1 to 1 (3 columns), y from -1 to 1 (3 rows)
    assert img.shape == (3 * 64, 3 * 64, 3) and img.dtype == np.uint8
    assert raster == BoardRaster((-1, -1), 64, 0)
    x0, y0 = raster.cell_to_px((1, 1))
    assert (x0, y0) == (128, 128)
    expected = np.rot90(tile_image(board.tiles[(1, 1)].tile, 64), -1)
    assert img[y0:y0 + 64, x0:x0 + 64].tobytes() == expected.tobytes()
    # an empty cell shows the table
    x0, y0 = raster.cell_to_px((1, -1))
    assert len(np.unique(img[y0:y0 + 64, x0:x0 + 64].reshape(-1, 3), axis=0)) == 1


def test_render_board_margin():
    img, raster = render_board(_board(), tile_px=32, figures=False, margin=7)
    assert img.shape == (3 * 32 + 14, 3 * 32 + 14, 3)
    assert raster.cell_to_px((-1, -1)) == (7, 7)
    assert raster.px_to_cell(7 + 32 * 2 + 5, 7 + 3) == ((1, -1), (5 / 32, 3 / 32))


def test_location_px_inside_the_right_cell():
    raster = BoardRaster((-2, 3), 100, 5)
    for cell in ((-2, 3), (0, 4), (3, 7)):
        x0, y0 = raster.cell_to_px(cell)
        for at in LOCATION_ANCHORS:
            x, y = raster.location_px(cell, at)
            assert x0 < x < x0 + 100 and y0 < y < y0 + 100
            assert raster.px_to_cell(x, y)[0] == cell
    assert raster.location_px((0, 4), "C") == (5 + 2 * 100 + 50.0, 5 + 100 + 50.0)
    assert raster.location_px((0, 4), "N") == (5 + 2 * 100 + 50.0, 5 + 100 + 15.0)
    with pytest.raises(ScorerError, match="unknown tile location"):
        raster.location_px((0, 4), "Q")


def test_anchors_follow_the_half_side_names():
    a = LOCATION_ANCHORS
    assert a["NL"][0] < a["N"][0] < a["NR"][0]      # NL west half of the north side
    assert a["EL"][1] < a["E"][1] < a["ER"][1]      # EL north half of the east side
    assert a["SL"][0] > a["S"][0] > a["SR"][0]      # SL east half of the south side
    assert a["WL"][1] > a["W"][1] > a["WR"][1]      # WL south half of the west side
    for at in a:
        assert nearest_location(a[at]) == at
    assert nearest_location((0.5, 0.3), ["C", "N"]) == "N"


def test_figure_points_keep_figures_apart():
    points = [figure_point("N", k) for k in ("meeple", "tent", "sheriff", "ore")]
    for p, q in itertools.combinations(points, 2):
        assert np.hypot(p[0] - q[0], p[1] - q[1]) > 0.12
    assert figure_point("N") == LOCATION_ANCHORS["N"]
    assert figure_point(None, "gold") == (0.68, 0.68)


def test_meeples_drawn_in_player_colour_on_their_location():
    board = _board(meeples=[{"player": "red", "x": 0, "y": 0, "at": "N"},
                            {"player": "blue", "x": 0, "y": 0, "at": "SL"}],
                   gold=[{"x": 1, "y": 0, "count": 2}])
    plain, _ = render_board(board, tile_px=128, figures=False)
    img, raster = render_board(board, tile_px=128)
    x, y = (int(round(v)) for v in raster.location_px((0, 0), "N"))
    assert tuple(img[y, x]) == PLAYER_RGB["red"]
    x, y = (int(round(v)) for v in raster.location_px((0, 0), "SL"))  # a farmer, lying
    assert tuple(img[y, x]) == PLAYER_RGB["blue"]
    gx, gy = raster.point_px((1, 0), figure_point(None, "gold"))
    patch = img[int(gy) - 6:int(gy) + 6, int(gx) - 6:int(gx) + 6]
    assert np.any(np.all(np.abs(patch.astype(int) - PALETTE["gold"]) < 10, axis=2))
    assert _diff(img, plain) > 0.5
    # a farmer lies: wider than tall
    mask = np.all(img == PLAYER_RGB["blue"], axis=2)
    ys, xs = np.nonzero(mask)
    assert np.ptp(xs) > np.ptp(ys) and np.ptp(xs) > 0.8 * MEEPLE_SIZE * 128


def test_goldrush_figures():
    board = Board.from_dict({
        "format": "carcassonne-board/1", "game": "goldrush", "expansions": ["sheriff"], "players": ["red", "blue"],
        "tiles": [{"x": 0, "y": 0, "tile": "GR05", "rot": 0}, {"x": 1, "y": 0, "tile": "GR16", "rot": 0}],
        "meeples": [{"player": "red", "x": 1, "y": 0, "at": "C"}],
        "tents": [{"player": "blue", "x": 0, "y": 0, "at": "N"}],
        "sheriff": {"x": 0, "y": 0, "at": "N"},
        "ore": [{"x": 0, "y": 0, "at": "N", "count": 3}],
    })
    img, raster = render_board(board, tile_px=128)
    x, y = (int(round(v)) for v in raster.point_px((0, 0), figure_point("N", "tent")))
    assert tuple(img[y, x]) == PLAYER_RGB["blue"]
    x, y = (int(round(v)) for v in raster.point_px((0, 0), figure_point("N", "sheriff")))
    assert tuple(img[y - int(0.38 * MEEPLE_SIZE * 128), x]) == SHERIFF_RGB  # the head
    x, y = (int(round(v)) for v in raster.location_px((1, 0), "C"))
    assert tuple(img[y, x]) == PLAYER_RGB["red"]
    x, y = (int(round(v)) for v in raster.point_px((0, 0), figure_point("N", "ore")))
    assert img[y - 6:y + 6, x - 6:x + 6].mean() < 150  # dark disc with a white count


def test_render_board_errors():
    board = _board()
    with pytest.raises(ScorerError, match="tile_px"):
        render_board(board, tile_px=4)
    with pytest.raises(ScorerError, match="margin"):
        render_board(board, margin=-1)
    empty = Board.from_dict({"format": "carcassonne-board/1", "tiles": []})
    with pytest.raises(ScorerError, match="no tiles"):
        render_board(empty)


# --------------------------------------------------------------------------- command line


def _write_board(path: Path, **extra) -> Path:
    obj = {"format": "carcassonne-board/1", "game": "carcassonne", "players": ["red"],
           "tiles": [{"x": 0, "y": 0, "tile": "D", "rot": 0}, {"x": 1, "y": 0, "tile": "V", "rot": 3}],
           "meeples": [{"player": "red", "x": 0, "y": 0, "at": "N"}]}
    obj.update(extra)
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def test_cli_render_writes_png(tmp_path):
    board = _write_board(tmp_path / "b.json")
    out = tmp_path / "top.png"
    res = CliRunner().invoke(render, [str(board), "-o", str(out), "--tile-px", "40"])
    assert res.exit_code == 0, res.output
    img = imread_rgb(out)
    assert img.shape == (40, 80, 3)
    expected, _ = render_board(Board.from_dict(json.loads(board.read_text())), tile_px=40)
    assert img.tobytes() == expected.tobytes()
    res = CliRunner().invoke(render, [str(board), "-o", str(out), "--tile-px", "40", "--no-figures"])
    assert res.exit_code == 0
    assert imread_rgb(out)[6, 20].tolist() != list(PLAYER_RGB["red"])


def test_cli_render_bad_board_leaves_output_untouched(tmp_path):
    board = _write_board(tmp_path / "b.json", tiles=[{"x": 0, "y": 0, "tile": "NOPE", "rot": 0}], meeples=[])
    out = tmp_path / "top.png"
    out.write_bytes(b"old picture")
    res = CliRunner().invoke(render, [str(board), "-o", str(out)])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1 and res.output.startswith("error: ") and "NOPE" in res.output
    assert out.read_bytes() == b"old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "top.png"]


def test_cli_tiles_listing():
    res = CliRunner().invoke(tiles, [])
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[0].startswith("base: ") and "72 tiles" in lines[0]
    row = next(line for line in lines if line.startswith("D "))
    assert row.split()[:6] == ["D", "x4", "city", "road", "field", "road"]
    assert "start=1" in row
    res = CliRunner().invoke(tiles, ["--json"])
    data = json.loads(res.output)
    assert data["total"] == 72 and len(data["tiles"]) == 24
    c = next(t for t in data["tiles"] if t["id"] == "C")
    assert c["edges"] == {"N": "city", "E": "city", "S": "city", "W": "city"}
    assert c["attributes"] == {"pennants": 1}


def test_cli_tiles_from_file(tmp_path):
    ts = {"format": "carcassonne-tiles/1", "name": "mine", "game": "carcassonne", "tiles": [
        {"id": "Z1", "count": 3, "features": [{"kind": "road", "edges": ["N", "S"], "inn": True},
                                              {"kind": "field", "edges": ["NL", "SR", "WL", "WR"], "pigherd": True},
                                              {"kind": "field", "edges": ["NR", "EL", "ER", "SL"]}]}]}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(ts), encoding="utf-8")
    res = CliRunner().invoke(tiles, ["--tiles", str(path), "--json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.output)["tiles"][0]
    assert row["attributes"] == {"inn": True, "pigherd": True}
    assert row["edges"] == {"N": "road", "E": "field", "S": "road", "W": "field"}


def test_cli_tiles_draw(tmp_path):
    out = tmp_path / "tile.png"
    res = CliRunner().invoke(tiles, ["--draw", "K", "--rot", "1", "-o", str(out), "--size", "96"])
    assert res.exit_code == 0, res.output
    assert imread_rgb(out).tobytes() == np.rot90(tile_image(BASE.tiles["K"], 96), -1).tobytes()


def test_cli_tiles_sheet(tmp_path):
    out = tmp_path / "sheet.png"
    res = CliRunner().invoke(tiles, ["--sheet", "--set", "base", "-o", str(out), "--size", "48"])
    assert res.exit_code == 0, res.output
    img = imread_rgb(out)
    assert img.shape == contact_sheet(BASE, 48).shape
    assert img.shape[1] == 8 * (48 + 2 * 4)


def test_cli_tiles_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(tiles, ["--draw", "ZZ", "-o", str(tmp_path / "x.png")])
    assert res.exit_code == 2 and "tile 'ZZ' is not in tile set 'base'" in res.output
    res = runner.invoke(tiles, ["--draw", "A"])
    assert res.exit_code == 2 and "needs -o" in res.output
    res = runner.invoke(tiles, ["--sheet", "--draw", "A", "-o", str(tmp_path / "x.png")])
    assert res.exit_code == 2
    res = runner.invoke(tiles, ["--draw", "A", "-o", str(tmp_path / "x.bmpx")])
    assert res.exit_code == 2 and "cannot encode" in res.output
    assert not list(tmp_path.iterdir())
