"""Rule tests for base Carcassonne, The River and The Goldmines: exact points.

Sources: ``rules.md`` sections 1-5 and 9, seed 001 (The Goldmines), seed 004
(The River).  Base tiles are the catalogue letters of ``scorer/data/tiles/base.json``
(E: city N; D: city N + road W-E; F: city W-E with a pennant; U: road W-E;
V: road S-W; W: roads E, S, W to a junction; X: 4 roads; A: cloister + road S;
B: cloister); ``rot`` turns them clockwise.  River and special tiles are inline.
"""

from __future__ import annotations

import pytest

from helpers import inline, kinds_of, make_board, points_of
from scorer.scoring import score

ALL_HALVES = ["NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR"]

SPRING = inline({"kind": "river", "edges": ["E"]}, {"kind": "field", "edges": ALL_HALVES},
                name="spring", river="spring")
LAKE = inline({"kind": "river", "edges": ["W"]}, {"kind": "field", "edges": ALL_HALVES},
              name="lake", river="lake")
RIVER = inline({"kind": "river", "edges": ["W", "E"]},
               {"kind": "field", "edges": ["WR", "NL", "NR", "EL"]},
               {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}, name="IFI", river="river")
BEND = inline({"kind": "river", "edges": ["W", "S"]},
              {"kind": "field", "edges": ["WR", "NL", "NR", "EL", "ER", "SL"]},
              {"kind": "field", "edges": ["WL", "SR"]}, name="II", river="river")
FORK = inline({"kind": "river", "edges": ["W"]}, {"kind": "river", "edges": ["N"]},
              {"kind": "river", "edges": ["E"]},
              {"kind": "field", "edges": ["WR", "NL"]}, {"kind": "field", "edges": ["NR", "EL"]},
              {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}, name="fork", river="fork")
CICI = inline({"kind": "river", "edges": ["W", "E"]}, {"kind": "city", "edges": ["N"]},
              {"kind": "city", "edges": ["S"]},
              {"kind": "field", "edges": ["EL", "WR"], "cities": [1]},
              {"kind": "field", "edges": ["ER", "WL"], "cities": [2]}, name="CICI", river="river")
INN = inline({"kind": "road", "edges": ["W", "E"], "inn": True},
             {"kind": "field", "edges": ["WR", "NL", "NR", "EL"]},
             {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}, name="inn")
PIGS = inline({"kind": "field", "edges": ALL_HALVES, "pigherd": True}, name="pigs")
PENNANT_E = inline({"kind": "city", "edges": ["N"], "pennants": 1},
                   {"kind": "field", "edges": ["EL", "ER", "SL", "SR", "WL", "WR"], "cities": [0]},
                   name="E+")

# A cloister (B) ringed by a loop road of 8 tiles: V corners, U sides.
RING = [
    (0, 0, "B", 0),
    (-1, -1, "V", 3), (0, -1, "U", 0), (1, -1, "V", 0),
    (-1, 0, "U", 1), (1, 0, "U", 1),
    (-1, 1, "V", 2), (0, 1, "U", 0), (1, 1, "V", 1),
]

# Farm board: city A = E(0,0)+E(0,-1); city B = E(1,-1)+E(2,-1); a cloister east of it.
# Field 1: tile (0,0) (borders A); field 2: tiles (0,-1),(1,-1) (borders A and B);
# field 3: tiles (2,-1),(3,-1) (borders B).
FARM_TILES = [(0, 0, "E", 0), (0, -1, "E", 2), (1, -1, "E", 1), (2, -1, "E", 3), (3, -1, "B", 0)]
FARM_MEEPLES = [("red", 0, 0, "S"), ("red", 0, -1, "N"), ("blue", 2, -1, "E"), ("blue", 3, -1, "N")]


# --------------------------------------------------------------------------- basics


def test_completed_road_scores_one_point_per_tile():
    """Given a junction-U-cloister road with a red thief, when the cloister tile closes it, then red scores 3."""
    board = make_board([(0, 0, "W", 0), (1, 0, "U", 0), (2, 0, "A", 1)], [("red", 1, 0, "W")],
                       players=["red", "blue"], active="blue", last_placed=(2, 0))
    report = score(board)
    assert report.points == {"red": 3, "blue": 0}
    assert [(f["kind"], f["tiles"], f["points"], f["owners"]) for f in report.features] == [("road", 3, 3, ["red"])]
    assert [m.to_dict() for m in report.returned] == [{"player": "red", "x": 1, "y": 0, "at": "W"}]
    assert report.problems == []


def test_completed_city_scores_two_per_tile_and_two_per_pennant():
    """Given a 4-tile city with 2 pennants and a red knight, when it completes, then red scores 12."""
    board = make_board([(-1, 0, "E", 1), (0, 0, "F", 0), (1, 0, "F", 0), (2, 0, "E", 3)], [("red", 0, 0, "E")],
                       players=["red"], active="red", last_placed=(2, 0))
    report = score(board)
    assert points_of(report) == {"red": 12}
    (entry,) = report.features
    assert (entry["kind"], entry["tiles"], entry["pennants"], entry["complete"]) == ("city", 4, 2, True)


def test_cloister_and_loop_road_completed_by_one_tile():
    """Given a cloister ringed by a loop road, when the last ring tile is placed, then the monk scores 9 and the thief 8 and both return."""
    board = make_board(RING, [("red", 0, 0, "C"), ("blue", 0, -1, "E")],
                       players=["red", "blue"], active="red", last_placed=(1, 1))
    report = score(board)
    assert report.points == {"red": 9, "blue": 8}
    assert sorted((f["kind"], f["points"], f["complete"]) for f in report.features) == [
        ("cloister", 9, True), ("road", 8, True)]
    assert sorted((m.player, m.x, m.y, m.at) for m in report.returned) == [
        ("blue", 0, -1, "E"), ("red", 0, 0, "C")]


def test_final_scores_features_the_last_tile_completed_as_completed():
    """Given the ring board at game end with monk and thief still on it, when scored final, then 9 and 8 as completed."""
    board = make_board(RING, [("red", 0, 0, "C"), ("blue", 0, -1, "E")],
                       players=["red", "blue"], active="red", last_placed=(1, 1), track={"red": 20, "blue": 30})
    report = score(board, "final")
    assert report.points == {"red": 9, "blue": 8}
    assert report.totals() == {"red": {"points": 9, "total": 29}, "blue": {"points": 8, "total": 38}}


def test_incomplete_cloister_scores_one_plus_neighbours_at_game_end():
    """Given a cloister with 2 of 8 neighbours and a red monk, when scored final, then red scores 3."""
    board = make_board([(0, 0, "B", 0), (0, -1, "U", 0), (1, 1, "A", 0)], [("red", 0, 0, "C")], players=["red"])
    report = score(board, "final")
    assert points_of(report) == {"red": 3}
    (entry,) = report.features
    assert (entry["kind"], entry["complete"], entry["neighbours"], entry["tiles"]) == ("cloister", False, 2, 3)


def test_incomplete_cloister_scores_nothing_mid_game():
    """Given the same incomplete cloister, when scored mid-game, then nobody scores and nothing returns."""
    board = make_board([(0, 0, "B", 0), (0, -1, "U", 0), (1, 1, "A", 0)], [("red", 0, 0, "C")],
                       players=["red"], active="red", last_placed=(1, 1))
    report = score(board)
    assert report.points == {"red": 0}
    assert report.features == [] and report.returned == []


def test_loop_road_of_four_curves_is_complete():
    """Given four curves closing a road loop with a red thief, when the fourth is placed, then red scores 4."""
    board = make_board([(0, 0, "V", 3), (1, 0, "V", 0), (1, 1, "V", 1), (0, 1, "V", 2)], [("red", 0, 0, "E")],
                       players=["red"], active="red", last_placed=(0, 1))
    report = score(board)
    assert points_of(report) == {"red": 4}
    assert report.features[0]["complete"] is True


def test_road_between_two_junctions_is_complete():
    """Given a road from a 3-way to a 4-way junction with a red thief, when the 4-way is placed, then red scores 2."""
    board = make_board([(0, 0, "W", 0), (1, 0, "X", 0)], [("red", 0, 0, "E")],
                       players=["red"], active="red", last_placed=(1, 0))
    report = score(board)
    assert points_of(report) == {"red": 2}
    assert [(f["kind"], f["tiles"]) for f in report.features] == [("road", 2)]


def test_incomplete_road_and_city_at_game_end():
    """Given an open 2-tile road (red) and an open 2-tile city with 2 pennants (blue), when final, then 2 and 2+2 points."""
    board = make_board([(0, 0, "U", 0), (1, 0, "U", 0), (0, 2, "F", 0), (1, 2, "F", 0)],
                       [("red", 0, 0, "E"), ("blue", 0, 2, "E")], players=["red", "blue"])
    report = score(board, "final")
    assert report.points == {"red": 2, "blue": 4}
    city = next(f for f in report.features if f["kind"] == "city")
    assert (city["tiles"], city["pennants"], city["points"], city["complete"]) == (2, 2, 4, False)


def test_one_tile_completes_road_and_city_and_returns_both():
    """Given a D that closes red's road and blue's city, when scored, then red 3, blue 4 and both meeples return."""
    board = make_board([(-1, 0, "A", 3), (0, -1, "E", 2), (1, 0, "A", 1), (0, 0, "D", 0)],
                       [("red", -1, 0, "E"), ("blue", 0, -1, "S")],
                       players=["red", "blue"], active="blue", last_placed=(0, 0))
    report = score(board)
    assert report.points == {"red": 3, "blue": 4}
    assert sorted(m.player for m in report.returned) == ["blue", "red"]


def test_completed_feature_without_followers_scores_nothing():
    """Given a city closed with nobody on it, when scored, then no feature is listed and nobody scores."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2)], players=["red"], active="red", last_placed=(0, -1))
    report = score(board)
    assert report.features == [] and report.points == {"red": 0}


def test_without_last_placed_every_occupied_complete_feature_scores():
    """Given no last_placed and two occupied complete features, when scored, then both score."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2), (3, 0, "W", 0), (4, 0, "X", 0), (3, 3, "U", 0)],
                       [("red", 0, 0, "N"), ("blue", 3, 0, "E"), ("blue", 3, 3, "E")], players=["red", "blue"])
    report = score(board)
    assert report.points == {"red": 4, "blue": 2}
    assert len(report.returned) == 2


# --------------------------------------------------------------------------- rules.md section 9


@pytest.mark.parametrize("edition, expected", [(4, 4), (2, 2)])
def test_two_tile_city_by_edition(edition, expected):
    """Given a completed 2-tile city with a red knight, when scored under small_city 4 / 2, then 4 / 2 points (9.1)."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2)], [("red", 0, 0, "N")], rules={"small_city": edition},
                       players=["red"], active="red", last_placed=(0, -1))
    assert points_of(score(board)) == {"red": expected}


@pytest.mark.parametrize("edition, expected", [(4, 6), (2, 3)])
def test_two_tile_city_with_pennant_by_edition(edition, expected):
    """Given a completed 2-tile city with a pennant, when scored under small_city 4 / 2, then 6 / 2+1 points."""
    board = make_board([(0, 0, PENNANT_E, 0), (0, -1, "E", 2)], [("red", 0, 0, "N")],
                       rules={"small_city": edition}, players=["red"], active="red", last_placed=(0, -1))
    assert points_of(score(board)) == {"red": expected}


def test_older_edition_leaves_three_tile_cities_alone():
    """Given a completed 3-tile city with a pennant under small_city 2, when scored, then 2 per tile + 2 = 8."""
    board = make_board([(-1, 0, "E", 1), (0, 0, "F", 0), (1, 0, "E", 3)], [("red", 0, 0, "E")],
                       rules={"small_city": 2}, players=["red"], active="red", last_placed=(1, 0))
    assert points_of(score(board)) == {"red": 8}


def test_city_entering_one_tile_twice_counts_the_tile_once():
    """Given a 4-tile city ring that enters tile I twice (5 segments), when completed, then 2 x 4 tiles = 8 (9.2)."""
    board = make_board([(0, 0, "I", 0), (0, -1, "N", 3), (-1, -1, "N", 2), (-1, 0, "N", 1)], [("red", 0, -1, "S")],
                       players=["red"], active="red", last_placed=(-1, 0))
    report = score(board)
    assert points_of(report) == {"red": 8}
    (entry,) = report.features
    assert entry["tiles"] == 4 and len(entry["cells"]) == 4


@pytest.mark.parametrize("edition, expected", [
    ("3rd", {"red": 9, "blue": 3}),
    ("2nd", {"red": 6, "blue": 3}),
    ("1st", {"red": 4, "blue": 4}),
])
def test_farm_editions_on_the_same_board(edition, expected):
    """Given red on 2 fields by city A (1 also by B), 2 blue by B, when final per edition, then 9/3, 6/3, 4/4 (9.3)."""
    board = make_board(FARM_TILES, FARM_MEEPLES, rules={"farmers": edition}, players=["red", "blue"])
    report = score(board, "final")
    assert points_of(report) == expected
    assert all(f["kind"] == "field" and f["edition"] == edition for f in report.features)


def test_third_edition_farm_entries():
    """Given the farm board, when final under the 3rd edition, then one entry per occupied field with its cities."""
    board = make_board(FARM_TILES, FARM_MEEPLES, players=["red", "blue"])
    report = score(board, "final")
    assert sorted((tuple(f["owners"]), f["cities"], f["points"]) for f in report.features) == [
        (("blue",), 1, 3), (("red",), 1, 3), (("red",), 2, 6)]


def test_first_edition_farmers_counted_across_fields():
    """Given 1st-edition farms, when final, then city B goes to blue (2 farmers) over red (1) for 4 points."""
    board = make_board(FARM_TILES, FARM_MEEPLES, rules={"farmers": "1st"}, players=["red", "blue"])
    report = score(board, "final")
    assert sorted((tuple(f["owners"]), f["points"], tuple(sorted(f["farmers"].items()))) for f in report.features) == [
        (("blue",), 4, (("blue", 2), ("red", 1))), (("red",), 4, (("red", 2),))]


def test_farm_ignores_incomplete_cities_and_pig_herd_adds_one():
    """Given a red farm by a complete and an incomplete city with a pig herd, when final, then 3+1 for the complete city only (9.3, 9.7)."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2), (1, 0, "E", 1), (0, 1, PIGS, 0)], [("red", 0, 1, "N")],
                       players=["red"])
    report = score(board, "final")
    assert points_of(report) == {"red": 4}
    (entry,) = report.features
    assert (entry["cities"], entry["pigherd"]) == (1, True)


def test_two_pig_herds_on_one_farm_count_once():
    """Given a farm with two pig-herd tiles by one completed city, when final, then still 4 (9.7)."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2), (0, 1, PIGS, 0), (0, 2, PIGS, 0)], [("red", 0, 2, "N")],
                       players=["red"])
    assert points_of(score(board, "final")) == {"red": 4}


def test_farm_without_pig_herd_scores_three_per_city():
    """Given the same farm on a plain tile, when final, then 3 (control for the pig herd)."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2), (0, 1, "B", 0)], [("red", 0, 1, "N")], players=["red"])
    assert points_of(score(board, "final")) == {"red": 3}


def test_farmers_tie_both_score_full():
    """Given one red and one blue farmer on the same farm by one completed city, when final, then both score 3."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2), (0, 1, "B", 0)], [("red", 0, 1, "N"), ("blue", 0, 0, "S")],
                       players=["red", "blue"])
    assert score(board, "final").points == {"red": 3, "blue": 3}


@pytest.mark.parametrize("active, expected", [("blue", {"blue": 2, "red": 1}), ("red", {"red": 2, "blue": 1})])
def test_gold_on_a_tie_is_taken_one_bar_at_a_time_from_the_active_player(active, expected):
    """Given a red-blue tie on a city with 3 bars, when it completes, then both 8 and bars 2/1 from the active player (9.4)."""
    board = make_board([(-1, 0, "E", 1), (1, 0, "E", 3), (0, 0, "F", 0)], [("red", -1, 0, "E"), ("blue", 1, 0, "W")],
                       expansions=["goldmines"],
                       players=["red", "blue", "green"], active=active, last_placed=(0, 0), gold=[(0, 0, 3)])
    report = score(board)
    assert report.points == {"red": 8, "blue": 8, "green": 0}
    assert {a["player"]: a["count"] for a in report.awards} == expected
    assert report.awards[0]["player"] == active and report.awards[0]["from"] == [[0, 0], [0, 0]]


def test_gold_of_features_completed_together_is_shared_one_bar_at_a_time():
    """Given one tile closing red's road and blue's city, 2 bars on it, 1 on the road, when blue active, then blue 1, red 2 (9.4)."""
    board = make_board([(-1, 0, "A", 3), (0, -1, "E", 2), (1, 0, "A", 1), (0, 0, "D", 0)],
                       [("red", -1, 0, "E"), ("blue", 0, -1, "S")],
                       expansions=["goldmines"],
                       players=["red", "blue"], active="blue", last_placed=(0, 0), gold=[(0, 0, 2), (1, 0, 1)])
    report = score(board)
    assert report.points == {"red": 3, "blue": 4}
    assert report.awards == [
        {"player": "blue", "token": "gold", "count": 1, "from": [[0, 0]]},
        {"player": "red", "token": "gold", "count": 2, "from": [[0, 0], [1, 0]]},
    ]


def test_gold_placed_on_the_completing_tile_pays_that_turn():
    """Given a gold tile completing a city with red's new knight, when scored, then red 4, takes both bars, knight returns (9.8)."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2)], [("red", 0, -1, "S")],
                       expansions=["goldmines"],
                       players=["red", "blue"], active="red", last_placed=(0, -1), gold=[(0, -1, 1), (0, 0, 1)])
    report = score(board)
    assert report.points == {"red": 4, "blue": 0}
    assert report.awards == [{"player": "red", "token": "gold", "count": 2, "from": [[0, -1], [0, 0]]}]
    assert [m.to_dict() for m in report.returned] == [{"player": "red", "x": 0, "y": -1, "at": "S"}]
    assert report.problems == []


def test_meeple_placed_on_completing_tile_scores_and_returns():
    """Given red's knight placed on the tile that completes its city, when scored, then red scores 4 and it returns (9.8)."""
    board = make_board([(0, 0, "D", 0), (0, -1, "E", 2)], [("red", 0, -1, "S")],
                       players=["red"], active="red", last_placed=(0, -1))
    report = score(board)
    assert points_of(report) == {"red": 4}
    assert [(m.x, m.y, m.at) for m in report.returned] == [(0, -1, "S")]


def test_complete_feature_without_followers_keeps_its_gold():
    """Given a city closed with nobody on it and a bar on it, when scored, then no bar is handed out and a note says it stays."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2)], expansions=["goldmines"], players=["red"], active="red",
                       last_placed=(0, -1), gold=[(0, 0, 1)])
    report = score(board)
    assert report.awards == [] and report.points == {"red": 0}
    assert len(report.notes) == 1 and "stay" in report.notes[0]


def test_cloister_claims_the_gold_of_its_3x3_area():
    """Given the ring with only a red monk and bars on a corner and a side tile, when completed, then red takes all 3 bars."""
    board = make_board(RING, [("red", 0, 0, "C")], expansions=["goldmines"], players=["red", "blue"], active="blue",
                       last_placed=(1, 1), gold=[(-1, -1, 2), (1, 0, 1)])
    report = score(board)
    assert report.points == {"red": 9, "blue": 0}
    assert report.awards == [{"player": "red", "token": "gold", "count": 3, "from": [[-1, -1], [-1, -1], [1, 0]]}]


def test_farmers_never_claim_gold_and_leftover_gold_is_removed():
    """Given a red farm and 2 bars on its tiles, red holding 2 bars, when final, then farm 3 + 2 bars x 1 and 2 bars removed."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2), (0, 1, "B", 0)], [("red", 0, 1, "N")],
                       expansions=["goldmines"], players=["red"], gold=[(0, 1, 2)], held={"red": {"gold_bars": 2}})
    report = score(board, "final")
    assert points_of(report) == {"red": 5}
    assert report.awards == []
    assert report.extras == [{"kind": "gold_bars", "player": "red", "bars": 2, "points": 2}]
    assert any("2 unclaimed gold bar(s) removed" in n for n in report.notes)


def test_final_counts_bars_won_by_the_last_tile():
    """Given red holding 2 bars and the last tile completing red's city with 2 bars, when final, then city 4 + 4 bars x 2 = 12."""
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2)], [("red", 0, 0, "N")], expansions=["goldmines"],
                       players=["red"], active="red",
                       last_placed=(0, -1), gold=[(0, -1, 2)], held={"red": {"gold_bars": 2}})
    report = score(board, "final")
    assert points_of(report) == {"red": 12}
    assert report.extras == [{"kind": "gold_bars", "player": "red", "bars": 4, "points": 8}]
    assert not any("removed" in n for n in report.notes)


def test_goldmines_worked_example():
    """Given red at 102 points holding 7 bars (seed 001 example), when final, then 7 x 3 = 21 and total 123."""
    board = make_board([(0, 0, "D", 0)], expansions=["goldmines"],
                       players=["red"], held={"red": {"gold_bars": 7}}, track={"red": 102})
    report = score(board, "final")
    assert report.totals()["red"] == {"points": 21, "total": 123}
    assert report.extras == [{"kind": "gold_bars", "player": "red", "bars": 7, "points": 21}]


def test_tied_majority_all_score_full_and_minority_scores_nothing():
    """Given a 7-tile road with red 2, blue 2, green 1 thieves, when completed, then red and blue 7 each, green 0 (9.6)."""
    tiles = [(0, 0, "A", 3)] + [(x, 0, "U", 0) for x in range(1, 6)] + [(6, 0, "A", 1)]
    meeples = [("red", 1, 0, "E"), ("blue", 2, 0, "E"), ("green", 3, 0, "E"), ("red", 4, 0, "E"), ("blue", 5, 0, "E")]
    board = make_board(tiles, meeples, players=["red", "blue", "green"], active="green", last_placed=(6, 0))
    report = score(board)
    assert report.points == {"red": 7, "blue": 7, "green": 0}
    assert report.features[0]["owners"] == ["red", "blue"]
    assert len(report.returned) == 5


def test_completed_inn_road_scores_two_per_tile():
    """Given a 3-tile road with an inn and a red thief, when completed, then 2 x 3 = 6 (9.7)."""
    board = make_board([(0, 0, "A", 3), (1, 0, INN, 0), (2, 0, "A", 1)], [("red", 1, 0, "E")],
                       players=["red"], active="red", last_placed=(2, 0))
    report = score(board)
    assert points_of(report) == {"red": 6}
    assert report.features[0]["inn"] is True


def test_incomplete_inn_road_scores_zero_at_game_end():
    """Given an open road with an inn (red) and an open plain road (blue), when final, then red 0 and blue 2 (9.7)."""
    board = make_board([(0, 0, INN, 0), (1, 0, "U", 0), (0, 3, "U", 0), (1, 3, "U", 0)],
                       [("red", 0, 0, "E"), ("blue", 0, 3, "E")], players=["red", "blue"])
    report = score(board, "final")
    assert report.points == {"red": 0, "blue": 2}
    inn = next(f for f in report.features if f["owners"] == ["red"])
    assert (inn["inn"], inn["points"], inn["complete"]) == (True, 0, False)


# --------------------------------------------------------------------------- the river


def test_river_never_scores_and_river_tiles_score_their_other_features():
    """Given spring, CICI and lake with red's knight on the CICI north city, when E closes that city, then red 4 and no river entry."""
    board = make_board([(0, 0, SPRING, 0), (1, 0, CICI, 0), (2, 0, LAKE, 0), (1, -1, "E", 2)], [("red", 1, 0, "N")],
                       players=["red"], active="red", last_placed=(1, -1))
    report = score(board)
    assert points_of(report) == {"red": 4}
    assert [f["kind"] for f in report.features] == ["city"]
    assert report.problems == []


def test_river_separates_fields():
    """Given a red farmer north of a river between two completed cities, when final, then only the north city counts: 3."""
    board = make_board([(0, 0, RIVER, 0), (1, 0, CICI, 0), (2, 0, RIVER, 0), (1, -1, "E", 2), (1, 1, "E", 0)],
                       [("red", 1, 0, "EL")], players=["red"])
    assert points_of(score(board, "final")) == {"red": 3}


def test_field_wraps_round_the_spring_and_lake():
    """Given the same river closed by spring and lake, when final, then the field wraps round the river ends and red scores both cities: 6."""
    board = make_board([(0, 0, SPRING, 0), (1, 0, CICI, 0), (2, 0, LAKE, 0), (1, -1, "E", 2), (1, 1, "E", 0)],
                       [("red", 1, 0, "EL")], players=["red"])
    assert points_of(score(board, "final")) == {"red": 6}


def test_river_u_turn_is_a_problem():
    """Given spring, a right bend and another right bend, when checked, then one river_u_turn at the second bend (9.5)."""
    board = make_board([(0, 0, SPRING, 0), (1, 0, BEND, 0), (1, 1, BEND, 1)])
    report = score(board)
    assert kinds_of(report.problems) == ["river_u_turn"]
    assert (report.problems[0]["cell"], report.problems[0]["other"]) == ([1, 1], [1, 0])


def test_river_s_bend_is_legal():
    """Given spring, a right bend and then a left bend, when checked, then no problem."""
    board = make_board([(0, 0, SPRING, 0), (1, 0, BEND, 0), (1, 1, BEND, 2)])
    assert score(board).problems == []


def test_joined_fork_branches_are_a_problem():
    """Given a fork whose two branches meet in a ring without U-turns, when checked, then one river_joined at the closing tile (9.5)."""
    tiles = [
        (-1, 0, SPRING, 0), (0, 0, FORK, 0),
        (0, -1, RIVER, 1), (0, -2, BEND, 3), (1, -2, RIVER, 0), (2, -2, BEND, 0),
        (2, -1, RIVER, 1), (2, 0, BEND, 1), (1, 0, RIVER, 0),
    ]
    board = make_board(tiles, last_placed=(1, 0))
    problems = score(board).problems
    assert kinds_of(problems) == ["river_joined"]
    assert problems[0]["cell"] == [1, 0]


def test_tight_river_loop_reports_u_turns_and_the_join():
    """Given fork branches joined through a 2x2 ring, when checked, then two U-turns and one join at the last tile."""
    tiles = [(-1, 0, SPRING, 0), (0, 0, FORK, 0), (0, -1, BEND, 3), (1, -1, BEND, 0), (1, 0, BEND, 1)]
    board = make_board(tiles, last_placed=(1, 0))
    problems = score(board).problems
    assert sorted(kinds_of(problems)) == ["river_joined", "river_u_turn", "river_u_turn"]
    joined = next(p for p in problems if p["kind"] == "river_joined")
    assert (joined["cell"], joined["other"]) == ([1, 0], [1, -1])


def test_two_springs_are_a_problem():
    """Given two springs on the board, when checked, then one two_springs problem at the second spring."""
    board = make_board([(0, 0, SPRING, 0), (1, 0, LAKE, 0), (0, 3, SPRING, 0), (1, 3, RIVER, 0)])
    problems = score(board).problems
    assert kinds_of(problems) == ["two_springs"]
    assert (problems[0]["cell"], problems[0]["other"]) == ([0, 3], [0, 0])


def test_normal_tile_covering_an_open_river_end_is_a_mismatch():
    """Given a road tile placed against an open river end, when checked, then one edge_mismatch naming the river; the board still scores."""
    board = make_board([(0, 0, SPRING, 0), (1, 0, RIVER, 0), (2, 0, "U", 0)], [("red", 2, 0, "E")], players=["red"])
    report = score(board, "final")
    assert kinds_of(report.problems) == ["edge_mismatch"]
    assert "river" in report.problems[0]["message"]
    assert (report.problems[0]["cell"], report.problems[0]["other"]) == ([1, 0], [2, 0])
    assert points_of(report) == {"red": 1}


# --------------------------------------------------------------------------- real expansion tiles


def test_river_u_turn_with_catalogue_tiles():
    """Given R1 spring, straight, bend and a second bend back north, when checked, then one river_u_turn at the second bend."""
    board = make_board([(0, 0, "R1.spring", 0), (0, 1, "R1.IFI", 0), (0, 2, "R1.II", 0), (-1, 2, "R1.II", 1)],
                       expansions=["river"], last_placed=(-1, 2))
    problems = score(board).problems
    assert kinds_of(problems) == ["river_u_turn"]
    assert (problems[0]["cell"], problems[0]["other"]) == ([-1, 2], [0, 2])


def test_inn_bridge_over_the_river_completed():
    """Given the River II inn bridge between two cloister road ends with a red thief, when completed, then 2 x 3 = 6."""
    board = make_board([(0, -1, "A", 0), (0, 0, "R2.inn", 0), (0, 1, "A", 2)], [("red", 0, 0, "N")],
                       expansions=["river"], players=["red"], active="red", last_placed=(0, 1))
    report = score(board)
    assert points_of(report) == {"red": 6}
    assert report.problems == []


def test_gold_tile_cloister_at_game_end():
    """Given a lone Goldmines cloister with a red monk and 2 bars, red holding 3, when final, then 1 + 3 bars x 1 = 4 and the 2 bars removed."""
    board = make_board([(0, 0, "G.LRr", 0)], [("red", 0, 0, "C")], expansions=["goldmines"], players=["red"],
                       gold=[(0, 0, 2)], held={"red": {"gold_bars": 3}})
    report = score(board, "final")
    assert points_of(report) == {"red": 4}
    assert report.awards == []
    assert any("2 unclaimed gold bar(s) removed" in n for n in report.notes)
