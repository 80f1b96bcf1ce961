"""Tests of the Gold Rush and The Sheriff tile sets (``scorer/data/tiles/goldrush.json``, ``sheriff.json``).

Both are reconstructions (``rules.md`` section 6 "Unknown"): the counts follow the
distribution of seed 000 (Zlatá horečka) and seed 002 (Šerif); the designs are
plausible, not read from the printed tiles.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.board import Board
from scorer.geometry import HALVES, SIDES, halves_of
from scorer.tiles import catalog_for, load_tileset, parse_tileset

DATA = Path(__file__).resolve().parents[1] / "scorer" / "data" / "tiles"

#: Seed 000, "Tile Distribution": four prairie variants, the start-tile design, the others.
SEED_COUNTS = [7, 5, 6, 5, 5, 4, 4, 4, 2, 1, 3, 3, 2, 2, 2, 5, 2, 3, 4, 1, 1, 1, 1]


@pytest.fixture(scope="module")
def goldrush():
    return load_tileset("goldrush")


@pytest.fixture(scope="module")
def sheriff():
    return load_tileset("sheriff")


def _all_tiles(*sets):
    return [t for s in sets for t in s.tiles.values()]


# --------------------------------------------------------------------------- counts


def test_goldrush_has_72_tiles_with_one_start_tile(goldrush):
    assert (goldrush.game, goldrush.expansion) == ("goldrush", None)
    assert goldrush.total == 72
    assert list(goldrush.tiles) == [f"GR{i:02d}" for i in range(1, 24)]
    starts = {tid: t.meta["start"] for tid, t in goldrush.tiles.items() if t.meta.get("start")}
    assert starts == {"GR05": 1}


def test_counts_follow_the_seed_with_one_count_reduced(goldrush):
    counts = [t.count for t in goldrush.tiles.values()]
    assert sum(SEED_COUNTS) == 73
    diff = [(i, s, c) for i, (s, c) in enumerate(zip(SEED_COUNTS, counts)) if s != c]
    # only GR01 differs, by one, and the set says so
    assert diff == [(0, 7, 6)]
    assert "GR01" in goldrush.info["count_correction"] and "73" in goldrush.info["count_correction"]


def test_prairie_variants_differ_only_in_camps_and_horses(goldrush):
    variants = [goldrush.tiles[f"GR0{i}"] for i in range(1, 5)]
    assert [t.count for t in variants] == [6, 5, 6, 5]
    for t in variants:
        symbols = [(f.get("camps"), f.get("horses")) for f in t.features if f.kind == "prairie"]
        assert sorted(symbols) in ([(0, 0), (1, 0)], [(0, 0), (0, 1)])
    camps = sum(t.count * f.get("camps") for t in variants for f in t.features)
    horses = sum(t.count * f.get("horses") for t in variants for f in t.features)
    assert (camps, horses) == (12, 10)


def test_sheriff_has_6_star_tiles_2_with_a_cemetery(sheriff):
    assert (sheriff.game, sheriff.expansion) == ("goldrush", "sheriff")
    assert sheriff.total == 6
    assert list(sheriff.tiles) == ["SH1", "SH2", "SH3", "SH4", "SH5", "SH6"]
    assert all(t.sheriff and t.count == 1 for t in sheriff.tiles.values())
    cemeteries = [tid for tid, t in sheriff.tiles.items() if t.has("cemetery")]
    assert cemeteries == ["SH1", "SH2"]


def test_cemetery_tiles_hold_only_prairie_and_the_cemetery(sheriff):
    # seed 002: a cowboy on a cemetery tile goes "do oblasti prérie nebo na hřbitov"
    for tid in ("SH1", "SH2"):
        assert {f.kind for f in sheriff.tiles[tid].features} == {"cemetery", "prairie"}


def test_no_sheriff_star_outside_the_sheriff_set(goldrush):
    assert not any(t.sheriff or t.has("cemetery") for t in goldrush.tiles.values())


def test_both_sets_are_marked_as_reconstructions(goldrush, sheriff):
    for s in (goldrush, sheriff):
        assert s.info["reconstruction"] is True
        note = s.info["note"]
        assert "reconstruction" in note and "--tiles FILE" in note and "inline" in note


# --------------------------------------------------------------------------- symbols


def test_nugget_symbols_add_up_to_the_63_ore_tokens(goldrush):
    nuggets = sum(t.count * f.get("nuggets") for t in goldrush.tiles.values() for f in t.features)
    assert nuggets == goldrush.info["ore_tokens"] == 63


def test_every_mountain_shows_1_to_3_nuggets(goldrush, sheriff):
    mountains = [f for t in _all_tiles(goldrush, sheriff) for f in t.features if f.kind == "mountain"]
    assert len(mountains) == 18
    assert all(1 <= f.get("nuggets") <= 3 for f in mountains)


def test_start_tile_has_a_mountain_with_one_nugget(goldrush):
    # seed 000 "Příprava hry": 1 ore token is put on the start tile's mountain
    start = goldrush.tiles["GR05"]
    mountains = [f for f in start.features if f.kind == "mountain"]
    assert [(f.edges, f.get("nuggets")) for f in mountains] == [(("N",), 1)]
    assert start.edge_signature() == ("mountain", "rail", "prairie", "rail")


def test_every_town_has_3_or_4_single_side_rails(goldrush, sheriff):
    towns = [t for t in _all_tiles(goldrush, sheriff) if t.has("town")]
    assert [t.id for t in towns] == ["GR16", "GR17", "GR23", "SH5"]
    for t in towns:
        rails = [f for f in t.features if f.kind == "rail"]
        assert len(rails) in (3, 4), t.id
        assert all(len(f.edges) == 1 for f in rails), t.id


def test_single_side_rails_end_at_a_town_crossing_or_mountain(goldrush, sheriff):
    # seed 000: a rail ends at a crossing, a town or a mountain
    for t in _all_tiles(goldrush, sheriff):
        ends = [f for f in t.features if f.kind == "rail" and len(f.edges) == 1]
        if ends:
            assert t.has("town") or len(ends) >= 3 or t.has("mountain"), t.id


def test_locomotives_on_rails_only(goldrush, sheriff):
    tiles = _all_tiles(goldrush, sheriff)
    locos = {t.id: sum(f.get("locomotives") for f in t.features) for t in tiles}
    assert {tid: n for tid, n in locos.items() if n} == {"GR09": 1, "GR15": 1, "GR19": 1, "SH6": 1}


# --------------------------------------------------------------------------- consistency


@pytest.mark.parametrize("name", ["goldrush", "sheriff"])
def test_set_loads_from_its_file_and_round_trips(name):
    ts = load_tileset(DATA / f"{name}.json")  # parse_tileset checks every tile
    again = parse_tileset(json.loads(json.dumps(ts.to_dict())), name)
    assert again.to_dict() == ts.to_dict()
    assert again.total == ts.total


@pytest.mark.parametrize("name", ["goldrush", "sheriff"])
def test_every_side_is_a_mountain_a_rail_or_one_prairie(name):
    for t in load_tileset(name).tiles.values():
        o = t.turned(0)
        kinds = {f.kind for f in t.features}
        assert kinds <= {"mountain", "rail", "prairie", "town", "cemetery"}, t.id
        for side in SIDES:
            left, right = (o.half.get(h) for h in halves_of(side))
            kind = o.side_kind(side)
            if kind == "mountain":
                assert left is None and right is None, (t.id, side)
            elif kind == "rail":
                # a rail separates the prairies on its two sides
                assert left is not None and right is not None and left != right, (t.id, side)
            else:
                # a plain prairie side: both halves in the same prairie
                assert kind is None and left is not None and left == right, (t.id, side)
        covered = sorted(h for f in t.features if f.kind == "prairie" for h in f.edges)
        walled = [h for s in SIDES if o.side_kind(s) == "mountain" for h in halves_of(s)]
        assert sorted(covered + walled) == sorted(HALVES), t.id


def test_each_tile_placed_in_every_rotation_loads_on_a_board(goldrush, sheriff):
    tiles = [{"x": 2 * i, "y": 2 * r, "tile": t.id, "rot": r}
             for i, t in enumerate(_all_tiles(goldrush, sheriff)) for r in range(4)]
    board = Board.from_dict({"format": "carcassonne-board/1", "game": "goldrush",
                             "expansions": ["sheriff"], "tiles": tiles})
    assert len(board.tiles) == 29 * 4


def test_catalog_joins_goldrush_and_sheriff_only_with_the_expansion():
    plain = catalog_for("goldrush")
    both = catalog_for("goldrush", ["sheriff"])
    assert "SH1" not in plain and "SH1" in both
    assert sum(plain.box_count(t) for t in plain.tiles) == 72
    assert sum(both.box_count(t) for t in both.tiles) == 78
