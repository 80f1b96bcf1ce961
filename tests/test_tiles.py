"""Tests of the tile catalogues (``scorer/data/tiles/*.json``) and their loader.

Rule sources: ``docs/rules.md`` section 1 (data model), 2 (base game: 72 tiles, 10
pennants), 3 (The River I and II) and 4 (The Goldmines).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from scorer.errors import TileSetError
from scorer.geometry import HALVES, SIDES, rotate_location
from scorer.tiles import (
    FeatureSpec,
    catalog_for,
    load_tileset,
    parse_tile,
    parse_tileset,
)

SETS = ("base", "river1", "river2", "goldmines")
ALL8 = frozenset(HALVES)

#: Published art for evaluation only; never copied into the project.
ART_ROOT = Path(__file__).resolve().parents[2] / "shared" / "tile_art"
ART_DIRS = {"river1": "river1_c2", "river2": "river2_c1", "goldmines": "goldmines_c2"}


def _fields(tile):
    """Field half-side sets of a tile in catalogue orientation -> bordered city edge sets."""
    feats = tile.features
    return {
        frozenset(f.edges): frozenset(frozenset(feats[c].edges) for c in f.cities)
        for f in feats
        if f.kind == "field"
    }


def _edges(tile, kind):
    return sorted(tuple(sorted(f.edges)) for f in tile.features if f.kind == kind)


# --------------------------------------------------------------------------- counts


def test_base_has_72_tiles_one_start_tile_and_10_pennants():
    base = load_tileset("base")
    assert base.total == 72
    assert len(base.tiles) == 24
    assert sum(t.meta.get("start", 0) for t in base.tiles.values()) == 1
    assert base.tiles["D"].meta["start"] == 1
    pennants = sum(t.count * f.get("pennants") for t in base.tiles.values() for f in t.features)
    assert pennants == 10


def test_river1_has_12_tiles():
    river1 = load_tileset("river1")
    assert (river1.game, river1.expansion) == ("carcassonne", "river")
    assert river1.total == 12
    assert len(river1.tiles) == 10
    assert {tid: t.count for tid, t in river1.tiles.items() if t.count != 1} == {"R1.IFI": 2, "R1.II": 2}
    roles = [t.river for t in river1.tiles.values() for _ in range(t.count)]
    assert (roles.count("spring"), roles.count("lake"), roles.count("river")) == (1, 1, 10)


def test_river2_has_12_tiles_one_each():
    river2 = load_tileset("river2")
    assert (river2.game, river2.expansion) == ("carcassonne", "river")
    assert river2.total == 12
    assert all(t.count == 1 for t in river2.tiles.values())
    roles = {tid: t.river for tid, t in river2.tiles.items() if t.river != "river"}
    assert roles == {"R2.spring": "spring", "R2.volcano": "lake", "R2.fork": "fork"}
    assert all(t.river == "river" for tid, t in river2.tiles.items() if tid not in roles)


def test_goldmines_has_8_gold_tiles():
    gold = load_tileset("goldmines")
    assert (gold.game, gold.expansion) == ("carcassonne", "goldmines")
    assert gold.total == 8
    assert list(gold.tiles) == [
        "G.LRr", "G.LCc", "G.LCcRr", "G.LRrRr", "G.RrRr", "G.CcRr", "G.CRcr", "G.RRrr"
    ]
    assert all(t.gold and t.count == 1 and t.river is None for t in gold.tiles.values())
    # the crop-circle tile packed with the first edition is unknown (rules.md section 4)
    assert "UNKNOWN" in gold.info["note"]


def test_no_gold_or_river_outside_their_sets():
    for name in ("base", "river1", "river2"):
        assert not any(t.gold for t in load_tileset(name).tiles.values())
    for name in ("base", "goldmines"):
        assert not any(t.river or t.has("river") for t in load_tileset(name).tiles.values())


def test_ids_unique_across_builtin_sets():
    ids = [tid for name in SETS for tid in load_tileset(name).tiles]
    assert len(ids) == len(set(ids)) == 24 + 10 + 12 + 8


# --------------------------------------------------------------------------- consistency


@pytest.mark.parametrize("name", SETS)
def test_every_set_loads_from_its_file(name):
    path = Path(__file__).resolve().parents[1] / "scorer" / "data" / "tiles" / f"{name}.json"
    ts = load_tileset(path)  # parse_tileset runs check_tile on every tile
    assert ts.name == name
    assert ts.tiles.keys() == load_tileset(name).tiles.keys()
    assert ts.info["reconstruction"] is False


@pytest.mark.parametrize("name", SETS)
def test_fields_border_only_cities_and_cover_the_open_halves(name):
    for tile in load_tileset(name).tiles.values():
        o = tile.turned(0)
        for f in tile.features:
            assert all(tile.features[c].kind == "city" for c in f.cities), tile.id
        for side in SIDES:
            kind = o.side_kind(side)
            halves = {side + "L", side + "R"}
            if kind == "city":
                assert not halves & o.half.keys(), tile.id
            else:
                assert halves <= o.half.keys(), tile.id
            if kind in ("road", "river") and len(o.features[o.side[side]].edges) == 2:
                # a road or river passing through splits its sides' halves into 2 fields
                assert o.half[side + "L"] != o.half[side + "R"], (tile.id, side)


@pytest.mark.parametrize("name", ("river1", "river2"))
def test_river_never_in_a_field_and_spring_lake_wrap_around(name):
    for tile in load_tileset(name).tiles.values():
        river_sides = [e for f in tile.features if f.kind == "river" for e in f.edges]
        assert river_sides, tile.id
        if tile.river in ("spring", "lake"):
            assert len(river_sides) == 1
            assert _fields(tile) == {ALL8: frozenset()}, tile.id
        elif tile.river == "fork":
            assert len(river_sides) == 3
        else:
            assert 1 <= len(river_sides) <= 2


def test_river_tile_features_exact():
    r1 = load_tileset("river1").tiles
    r2 = load_tileset("river2").tiles
    # road bridge over the river: 4 corner fields (rules.md section 3)
    assert _edges(r1["R1.RIrI"], "river") == [("N", "S")]
    assert _edges(r1["R1.RIrI"], "road") == [("E", "W")]
    assert set(_fields(r1["R1.RIrI"])) == {
        frozenset(p) for p in (("WR", "NL"), ("NR", "EL"), ("ER", "SL"), ("SR", "WL"))
    }
    # city bridge: the fields pass under it and each borders the city
    city = frozenset({"N", "S"})
    assert _fields(r2["R2.CIcI"]) == {
        frozenset({"EL", "WR"}): frozenset({city}),
        frozenset({"ER", "WL"}): frozenset({city}),
    }
    assert _edges(r2["R2.CIcI"], "river") == [("E", "W")]
    # inn and pig herd
    inn_road = [f for f in r2["R2.inn"].features if f.kind == "road"]
    assert [f.get("inn", False) for f in inn_road] == [True]
    pig = [f for f in r2["R2.pigs"].features if f.get("pigherd", False)]
    assert [frozenset(f.edges) for f in pig] == [frozenset({"NL", "NR", "EL", "ER", "SL", "WR"})]
    # pennant on the River II city bend only
    assert [f.get("pennants") for f in r2["R2.CcII"].features if f.kind == "city"] == [1]
    assert [f.get("pennants") for f in r1["R1.CcII"].features if f.kind == "city"] == [0]
    # CIRI: the two strips between city and river each border the city
    assert _fields(r1["R1.CIRI"]) == {
        frozenset({"EL"}): frozenset({frozenset({"N"})}),
        frozenset({"WR"}): frozenset({frozenset({"N"})}),
        frozenset({"ER", "SL"}): frozenset(),
        frozenset({"SR", "WL"}): frozenset(),
    }


def test_goldmines_tile_features_exact():
    g = load_tileset("goldmines").tiles
    city = frozenset({"W", "E"})
    assert _fields(g["G.CRcr"]) == {frozenset({h}): frozenset({city}) for h in ("NL", "NR", "SL", "SR")}
    assert _edges(g["G.RRrr"], "road") == [("E", "W"), ("N", "S")]
    assert len(_fields(g["G.RRrr"])) == 4
    assert _fields(g["G.LRrRr"])[frozenset({"WR", "NL", "ER", "SL"})] == frozenset()
    assert sum(t.has("cloister") for t in g.values()) == 4


@pytest.mark.parametrize("name", SETS)
def test_edge_signatures_match_between_features_and_fields(name):
    for tile in load_tileset(name).tiles.values():
        for rot in range(4):
            sig = tile.edge_signature(rot)
            o = tile.turned(rot)
            for side, kind in zip(SIDES, sig):
                assert kind == (o.side_kind(side) or "field"), (tile.id, rot, side)


# --------------------------------------------------------------------------- broken tiles


def _parse(features, tile_id="X1"):
    return parse_tile({"id": tile_id, "count": 1, "features": features}, "mine.json tiles[0]")


@pytest.mark.parametrize(
    ("features", "message"),
    [
        (  # NL in two fields
            [{"kind": "road", "edges": ["W", "E"]},
             {"kind": "field", "edges": ["NL", "NR", "EL", "WR"]},
             {"kind": "field", "edges": ["NL", "ER", "SL", "SR", "WL"]}],
            "half-side NL is in features 1 and 2",
        ),
        (  # field half-side under a city side
            [{"kind": "city", "edges": ["N"]},
             {"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"], "cities": [0]}],
            "half-side NL is in field 1 but side N is a city",
        ),
        (  # a road cannot touch 3 sides
            [{"kind": "road", "edges": ["E", "S", "W"]},
             {"kind": "field", "edges": ["NL", "NR", "EL", "WR"]},
             {"kind": "field", "edges": ["ER", "SL"]},
             {"kind": "field", "edges": ["SR", "WL"]}],
            "a road touches 1 side",
        ),
        (
            [{"kind": "castle", "edges": ["N"]}],
            "unknown feature kind 'castle'",
        ),
        (
            [{"kind": "city", "edges": ["N", "E", "S", "W"], "pennant": 1}],
            "unknown attribute 'pennant' on a city",
        ),
        (
            [{"kind": "city", "edges": ["N", "E", "S", "W"], "inn": True}],
            "a city cannot carry 'inn'",
        ),
        (  # SR left out
            [{"kind": "road", "edges": ["S", "W"]},
             {"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "WR"]},
             {"kind": "field", "edges": ["WL"]}],
            "half-side SR belongs to no field",
        ),
        (  # a field bordering a road
            [{"kind": "road", "edges": ["W", "E"]},
             {"kind": "field", "edges": ["NL", "NR", "EL", "WR"], "cities": [0]},
             {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}],
            "field 1 borders feature 0, which is not a city",
        ),
        (
            [{"kind": "cloister"}, {"kind": "town"},
             {"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]}],
            "at most one centre feature",
        ),
    ],
)
def test_broken_tiles_raise_naming_the_tile(features, message):
    with pytest.raises(TileSetError, match=re.escape("mine.json tiles[0] (X1)") + ".*" + re.escape(message)):
        _parse(features)


def test_broken_tile_in_a_set_names_the_set_entry(tmp_path):
    bad = {
        "format": "carcassonne-tiles/1", "name": "mine", "game": "carcassonne", "expansion": None,
        "tiles": [
            {"id": "OK", "count": 1, "features": [
                {"kind": "cloister"},
                {"kind": "field", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]}]},
            {"id": "BAD", "count": 1, "features": [
                {"kind": "river", "edges": ["W", "E"]},
                {"kind": "field", "edges": ["NL", "NR", "EL", "WR"]}]},
        ],
    }
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    message = "mine.json tiles[1] (BAD): half-side ER belongs to no field"
    with pytest.raises(TileSetError, match=re.escape(message)):
        load_tileset(path)


def test_duplicate_id_and_bad_count_rejected():
    tile = {"id": "A1", "count": 1, "features": [{"kind": "city", "edges": ["N", "E", "S", "W"]}]}
    obj = {"format": "carcassonne-tiles/1", "name": "dup", "game": "carcassonne", "tiles": [tile, tile]}
    with pytest.raises(TileSetError, match=re.escape("dup tiles[1]: duplicate tile id 'A1'")):
        parse_tileset(obj, "dup")
    with pytest.raises(TileSetError, match=re.escape("t (A1): 'count' must be a positive integer, got 0")):
        parse_tile(dict(tile, count=0), "t")
    message = "t (A1): 'river' must be one of spring, lake, fork, river"
    with pytest.raises(TileSetError, match=re.escape(message)):
        parse_tile(dict(tile, river="delta"), "t")


# --------------------------------------------------------------------------- rotation


def test_rotation_maps_n_to_e_and_nl_to_el():
    assert rotate_location("N", 1) == "E"
    assert rotate_location("NL", 1) == "EL"
    assert rotate_location("WR", 1) == "NR"
    assert rotate_location("C", 3) == "C"
    d = load_tileset("base").tiles["D"]
    o = d.turned(1)
    assert o.side_kind("E") == "city"
    assert o.side["E"] == 0  # the city keeps its index
    assert o.features[0].edges == ("E",)
    assert o.features[2].edges == ("NR", "SL")  # the field by the city: WR, EL turned
    assert o.half["NR"] == o.half["SL"] == 2
    assert o.locate("N") == 1  # the road now runs N-S
    assert d.turned(5) is o


def test_edge_signature_and_symmetries_of_base_tiles():
    base = load_tileset("base").tiles
    assert base["D"].edge_signature() == ("city", "road", "field", "road")
    assert base["D"].edge_signature(1) == ("road", "city", "road", "field")
    assert base["C"].symmetries() == (1, 2, 3)
    assert base["U"].symmetries() == (2,)
    assert base["D"].symmetries() == ()
    assert base["H"].symmetries() == (2,)
    assert base["X"].symmetries() == (1, 2, 3)


def test_rotated_feature_keeps_attributes():
    f = FeatureSpec("city", ("N", "W"), (), (("pennants", 1),))
    assert f.rotated(2) == FeatureSpec("city", ("S", "E"), (), (("pennants", 1),))
    assert f.rotated(4) is f


# --------------------------------------------------------------------------- round trip


@pytest.mark.parametrize("name", SETS)
def test_round_trip_to_dict_and_back(name):
    ts = load_tileset(name)
    obj = ts.to_dict()
    again = parse_tileset(json.loads(json.dumps(obj)), f"{name} (again)")
    assert again.to_dict() == obj
    assert again.info == ts.info
    for tid, tile in ts.tiles.items():
        assert again.tiles[tid].features == tile.features
        assert again.tiles[tid].count == tile.count


@pytest.mark.parametrize("name", SETS)
def test_round_trip_matches_the_file(name):
    path = Path(__file__).resolve().parents[1] / "scorer" / "data" / "tiles" / f"{name}.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    obj = load_tileset(name).to_dict()
    assert [t["id"] for t in obj["tiles"]] == [t["id"] for t in raw["tiles"]]
    for mine, theirs in zip(obj["tiles"], raw["tiles"]):
        assert mine == theirs


# --------------------------------------------------------------------------- catalogue


def test_catalog_with_river_and_goldmines():
    cat = catalog_for("carcassonne", ["river", "goldmines"])
    assert [s.name for s in cat.sets] == ["base", "river1", "river2", "goldmines"]
    assert len(cat.tiles) == 24 + 10 + 12 + 8
    assert sum(cat.counts.values()) == 72 + 12 + 12 + 8
    # same code in River I and II: separate ids, separate counts
    assert cat.box_count("R1.II") == 2
    assert cat.box_count("R2.II") == 1
    assert cat.box_count("R1.CIRI") == cat.box_count("R2.CIRI") == 1
    assert cat["R2.CIRI"].meta["set"] == "river2"
    assert cat.box_count("G.CRcr") == 1
    assert cat.box_count("Z") == 0
    assert "R1.spring" in cat and "R3.spring" not in cat


def test_catalog_base_only():
    cat = catalog_for("carcassonne")
    assert len(cat.tiles) == 24
    assert sum(cat.counts.values()) == 72
    assert "R1.spring" not in cat


def test_user_tile_set_overrides_count_and_adds_tiles(tmp_path):
    user = {
        "format": "carcassonne-tiles/1", "name": "my-box", "game": "carcassonne", "expansion": None,
        "title": "my own box",
        "tiles": [
            {"id": "U", "count": 6, "features": [
                {"kind": "road", "edges": ["W", "E"]},
                {"kind": "field", "edges": ["NL", "NR", "EL", "WR"]},
                {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}]},
            {"id": "my.CC", "count": 2, "name": "crop circle", "features": [
                {"kind": "city", "edges": ["N"]},
                {"kind": "road", "edges": ["S"]},
                {"kind": "field", "edges": ["EL", "ER", "SL"], "cities": [0]},
                {"kind": "field", "edges": ["SR", "WL", "WR"], "cities": [0]}]},
        ],
    }
    path = tmp_path / "my-box.json"
    path.write_text(json.dumps(user), encoding="utf-8")
    cat = catalog_for("carcassonne", ["goldmines"], extra=[path])
    assert cat.box_count("U") == 6
    assert cat["U"].meta["set"] == "my-box"
    assert cat.box_count("my.CC") == 2
    assert cat["my.CC"].edge_signature() == ("city", "field", "road", "field")
    assert sum(cat.counts.values()) == 72 - 8 + 6 + 8 + 2
    assert [s.name for s in cat.sets] == ["base", "goldmines", "my-box"]


def test_user_tile_set_for_another_game_rejected(tmp_path):
    user = {
        "format": "carcassonne-tiles/1", "name": "rush", "game": "goldrush",
        "tiles": [{"id": "P1", "count": 1, "features": [
            {"kind": "prairie", "edges": ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"], "camps": 1}]}],
    }
    path = tmp_path / "rush.json"
    path.write_text(json.dumps(user), encoding="utf-8")
    with pytest.raises(TileSetError, match="tile set 'rush' is for goldrush, but the board is carcassonne"):
        catalog_for("carcassonne", extra=[path])


def test_missing_and_non_json_tile_set_files(tmp_path):
    with pytest.raises(TileSetError, match="cannot read tile set"):
        load_tileset(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(TileSetError, match=r"bad\.json: not JSON \(line 1"):
        load_tileset(bad)


# --------------------------------------------------------------------------- published art


def _art_strips(path):
    """Fractions of river-blue, grass-green and road-grey pixels in 4 strips along the sides.

    The tile is cropped to its coloured square first (the River II scans carry a
    grey drop shadow). Each strip runs along the middle 60 % of a side, 3-13 % in.
    """
    cv2 = pytest.importorskip("cv2")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    assert img is not None, path
    img = img.astype(np.int32)
    coloured = (img.max(axis=2) - img.min(axis=2)) > 25
    rows = np.nonzero(coloured.mean(axis=1) > 0.5)[0]
    cols = np.nonzero(coloured.mean(axis=0) > 0.5)[0]
    img = img[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    b, g, r = img[..., 0], img[..., 1], img[..., 2]
    water = (b > g + 12) & (b > r + 12)
    masks = {
        "blue": water & (g > 140),  # river water, not blue roofs
        "green": (g > r) & (g > b + 30),
        "road": (img.min(axis=2) > 150) & ((img.max(axis=2) - img.min(axis=2)) < 45) & ~water,
    }
    h, w = b.shape
    a, z = int(0.03 * h), int(0.13 * h)
    lo, hi = int(0.2 * w), int(0.8 * w)
    out = {}
    for name, m in masks.items():
        out[name] = {
            "N": m[a:z, lo:hi].mean(),
            "S": m[h - z : h - a, lo:hi].mean(),
            "W": m[lo:hi, a:z].mean(),
            "E": m[lo:hi, w - z : w - a].mean(),
        }
    return out


def _art_path(name, stem):
    folder = ART_ROOT / ART_DIRS[name]
    if not folder.is_dir():
        pytest.skip(f"published art not available in {folder}")
    found = sorted(folder.glob(stem + ".*"))
    assert len(found) == 1, f"{name}: art {stem!r} not found in {folder}"
    return found[0]


@pytest.mark.parametrize("name", sorted(ART_DIRS))
def test_every_tile_has_its_own_art_file(name):
    tiles = load_tileset(name).tiles.values()
    stems = [t.meta["art"] for t in tiles]
    assert len(stems) == len(set(stems))
    for stem in stems:
        _art_path(name, stem)


@pytest.mark.parametrize("name", sorted(ART_DIRS))
def test_catalogue_orientation_matches_the_art(name):
    # River sides show water in the art, city sides show no grass, road sides more
    # light grey than the other sides of the same tile: checks that each tile is stored
    # as its art lies (rot 0). Measured: blue >= 0.13 on river sides, <= 0.07 elsewhere;
    # green <= 0.07 on city sides, >= 0.36 elsewhere; road grey on the weakest road side
    # >= 1.59 x the strongest other side of its tile.
    for tile in load_tileset(name).tiles.values():
        strips = _art_strips(_art_path(name, tile.meta["art"]))
        sig = tile.edge_signature()
        for side, kind in zip(SIDES, sig):
            assert (strips["blue"][side] > 0.10) == (kind == "river"), (tile.id, side, kind)
            assert (strips["green"][side] < 0.20) == (kind == "city"), (tile.id, side, kind)
        roads = [strips["road"][s] for s, k in zip(SIDES, sig) if k == "road"]
        others = [strips["road"][s] for s, k in zip(SIDES, sig) if k != "road"]
        if roads and others:
            assert min(roads) > 1.3 * max(others), (tile.id, roads, others)
