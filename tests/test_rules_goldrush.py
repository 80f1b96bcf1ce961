"""Rule tests of Carcassonne: Gold Rush (seed 000) and The Sheriff (seed 002).

One given/when/then test per rule sentence that changes points, with exact
points.  Boards with inline tiles do not depend on the reconstructed tile set;
the others use its ids (GR01..GR23, SH1..SH6):

GR01 straight rail W-E, camp north; GR02 same with wild horses; GR03 rail curve
S-W, camp outside; GR05 start tile: mountain N (1 nugget) over a rail W-E; GR06
mountain N (1 nugget); GR16 town with rails E, S, W; GR17 town with 4 rails;
GR18 crossing with rails E, S, W; GR19 straight rail W-E with a locomotive;
GR22 mountain W-E (3 nuggets); SH1 cemetery on prairie.
"""

from __future__ import annotations

import json

import pytest

from helpers import inline, kinds_of, make_board, points_of
from scorer.features import FeatureGraph
from scorer.legality import problems as all_problems
from scorer.rules import goldrush
from scorer.scoring import score

NORTH = ["WR", "NL", "NR", "EL"]
SOUTH = ["ER", "SL", "SR", "WL"]


def gr_board(tiles, meeples=(), **kw):
    """A Gold Rush board (players red, blue, green unless given)."""
    kw.setdefault("players", ["red", "blue", "green"])
    return make_board(tiles, meeples, game="goldrush", **kw)


def rail_tile(locomotives=0, name="rail"):
    rail = {"kind": "rail", "edges": ["W", "E"]}
    if locomotives:
        rail["locomotives"] = locomotives
    return inline(rail, {"kind": "prairie", "edges": NORTH}, {"kind": "prairie", "edges": SOUTH}, name=name)


#: A rail end at a mountain: the rail enters from E and stops at the mountain on W.
RAIL_INTO_MOUNTAIN = inline(
    {"kind": "mountain", "edges": ["W"], "nuggets": 1},
    {"kind": "rail", "edges": ["E"]},
    {"kind": "prairie", "edges": ["NL", "NR", "EL"]},
    {"kind": "prairie", "edges": ["ER", "SL", "SR"]},
    name="rail-into-mountain",
)

#: Rail crossing with rails N, E, S (no town): the rails end there.
CROSSING = inline(
    {"kind": "rail", "edges": ["N"]}, {"kind": "rail", "edges": ["E"]}, {"kind": "rail", "edges": ["S"]},
    {"kind": "prairie", "edges": ["NR", "EL"]}, {"kind": "prairie", "edges": ["ER", "SL"]},
    {"kind": "prairie", "edges": ["SR", "WL", "WR", "NL"]},
    name="crossing",
)


def rail_line(middle, meeples=(), **kw):
    """Crossing (0,0) - middle tiles (1,0)... - crossing: a complete rail W-E."""
    n = len(middle)
    tiles = [(0, 0, "GR18", 0)] + [(1 + i, 0, t, 0) for i, t in enumerate(middle)] + [(n + 1, 0, "GR18", 2)]
    kw.setdefault("last_placed", (n + 1, 0))
    return gr_board(tiles, meeples, **kw)


def mountain_pair(meeples=(), **kw):
    """Two GR06 tiles whose mountains face each other: a closed mountain of 2 tiles, 2 nuggets."""
    kw.setdefault("last_placed", (0, 1))
    return gr_board([(0, 0, "GR06", 2), (0, 1, "GR06", 0)], meeples, **kw)


def joined_mountain(meeples=(), **kw):
    """GR06 (mountain E) - GR22 - GR06 (mountain W): the middle tile, placed last without a
    cowboy, joins two mountains into one closed mountain of 3 tiles, 1 + 3 + 1 = 5 nuggets."""
    kw.setdefault("last_placed", (1, 0))
    return gr_board([(0, 0, "GR06", 1), (1, 0, "GR22", 0), (2, 0, "GR06", 3)], meeples, **kw)


def open_range(meeples=(), **kw):
    """Two GR22 tiles side by side: an open mountain W-E of 2 tiles, 6 nuggets."""
    return gr_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], meeples, **kw)


def feature(report, kind):
    entries = [f for f in report.features if f["kind"] == kind]
    assert len(entries) == 1, entries
    return entries[0]


# =========================================================================== rails
# Seed 000 "Dokončená železniční trať": complete when both ends stop at a crossing,
# town or mountain, or it closes a loop; 1 point per tile.


def test_completed_rail_scores_one_point_per_tile():
    # given a rail crossing - rail - rail - crossing without locomotives, red's railwayman on it
    board = rail_line(["GR01", "GR01"], [("red", 1, 0, "W")])
    # when the last crossing completes it
    report = score(board)
    # then red scores 4 (4 tiles) and the railwayman goes back
    assert points_of(report) == {"red": 4}
    assert feature(report, "rail") == {"kind": "rail", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]], "complete": True,
                                           "owners": ["red"], "points": 4, "tiles": 4, "locomotives": 0,
                                           "doubled": False}
    assert [(m.player, m.cell) for m in report.returned] == [("red", (1, 0))]


def test_rail_with_exactly_one_locomotive_scores_double():
    # given a complete 3-tile rail with one locomotive (GR19)
    board = rail_line(["GR19"], [("blue", 1, 0, "E")])
    # when scored
    report = score(board)
    # then the points double: 3 tiles x 2 = 6
    assert points_of(report) == {"blue": 6}
    assert feature(report, "rail")["doubled"] is True


def test_rail_with_two_locomotives_is_not_doubled():
    # given a complete 4-tile rail with two locomotives
    board = rail_line(["GR19", "GR19"], [("blue", 1, 0, "E")])
    # when scored
    report = score(board)
    # then "více než jedna lokomotiva": no doubling, 4 points
    assert points_of(report) == {"blue": 4}
    assert (feature(report, "rail")["locomotives"], feature(report, "rail")["doubled"]) == (2, False)


def test_rail_with_no_locomotive_is_not_doubled_inline_tiles():
    # given inline tiles: a rail ending at a mountain, 2 straight rails, a rail crossing
    tiles = [(0, 0, RAIL_INTO_MOUNTAIN, 0), (1, 0, rail_tile(), 0), (2, 0, rail_tile(), 0), (3, 0, CROSSING, 3)]
    board = gr_board(tiles, [("red", 2, 0, "W")], last_placed=(3, 0))
    # when the crossing closes the east end
    report = score(board)
    # then 4 tiles, no locomotive: 4 points
    assert points_of(report) == {"red": 4}


def test_one_locomotive_on_an_inline_rail_doubles():
    # given the same rail with one locomotive on an inline tile
    tiles = [(0, 0, RAIL_INTO_MOUNTAIN, 0), (1, 0, rail_tile(1), 0), (2, 0, rail_tile(), 0), (3, 0, CROSSING, 3)]
    board = gr_board(tiles, [("red", 2, 0, "W")], last_placed=(3, 0))
    # when scored
    report = score(board)
    # then 4 tiles x 2 = 8
    assert points_of(report) == {"red": 8}


def test_two_locomotives_on_one_tile_count_as_two():
    # given an inline tile printed with two locomotives on the rail
    tiles = [(0, 0, RAIL_INTO_MOUNTAIN, 0), (1, 0, rail_tile(2), 0), (2, 0, CROSSING, 3)]
    board = gr_board(tiles, [("red", 1, 0, "W")], last_placed=(2, 0))
    # when scored
    report = score(board)
    # then no doubling: 3 points
    assert points_of(report) == {"red": 3}


def test_rail_ending_in_a_mountain_is_complete():
    # given GR12 (rail S ends in the mountain) above a crossing whose N rail meets it
    board = gr_board([(0, 0, "GR12", 0), (0, 1, "GR18", 3)], [("green", 0, 1, "N")], last_placed=(0, 1))
    # when scored
    report = score(board)
    # then the 2-tile rail is complete: 2 points
    assert points_of(report) == {"green": 2}


def test_incomplete_rail_scores_nothing_during_play():
    # given a rail with one open end
    board = gr_board([(0, 0, "GR18", 0), (1, 0, "GR19", 0)], [("red", 1, 0, "W")], last_placed=(1, 0))
    # when the mid-game scoring runs
    report = score(board)
    # then nothing scores and nothing goes back
    assert (points_of(report), report.features, report.returned) == ({}, [], [])


def test_rail_loop_is_complete():
    # given four GR03 curves closing a loop
    tiles = [(0, 0, "GR03", 3), (1, 0, "GR03", 0), (1, 1, "GR03", 1), (0, 1, "GR03", 2)]
    board = gr_board(tiles, [("red", 0, 0, "E")], last_placed=(0, 1))
    # when the last curve closes it
    report = score(board)
    # then 4 tiles, 4 points
    assert points_of(report) == {"red": 4}


# Seed 000 "Více železničářů ...": most railwaymen score; a tie scores for all.


def test_rail_majority_scores_alone():
    # given red with two railwaymen and blue with one on a 5-tile rail
    board = rail_line(["GR01", "GR01", "GR01"], [("red", 1, 0, "W"), ("red", 2, 0, "W"), ("blue", 3, 0, "W")])
    # when scored
    report = score(board)
    # then red scores 5, blue nothing; all three railwaymen go back
    assert points_of(report) == {"red": 5}
    assert sorted(m.player for m in report.returned) == ["blue", "red", "red"]


def test_rail_tie_scores_in_full_for_both():
    # given red and blue with one railwayman each
    board = rail_line(["GR01", "GR01"], [("red", 1, 0, "W"), ("blue", 2, 0, "W")])
    # when scored
    report = score(board)
    # then both get the full 4 points
    assert points_of(report) == {"red": 4, "blue": 4}


# =========================================================================== mountains
# Seed 000 "Uzavřené hory": the majority miner first takes all ore tokens, then 1 per nugget.


def test_completed_mountain_gives_tokens_then_one_point_per_nugget():
    # given a closed 2-tile mountain (2 nuggets) with 2 ore tokens and red's miner
    board = mountain_pair([("red", 0, 1, "N")], ore=[(0, 0, "S", 2)], active="red")
    # when the tile that closes it is scored
    report = score(board)
    # then red takes both tokens and scores 2 points
    assert points_of(report) == {"red": 2}
    assert report.awards == [{"player": "red", "token": "ore", "count": 2, "from": [[0, 0], [0, 1]]}]
    assert feature(report, "mountain")["nuggets"] == 2
    assert [m.player for m in report.returned] == ["red"]


@pytest.mark.parametrize("active, awards", [
    ("blue", [("blue", 2), ("red", 1)]),
    ("red", [("red", 2), ("blue", 1)]),
])
def test_mountain_tie_tokens_alternate_from_the_active_player(active, awards):
    # given red's and blue's mountains joined by the last tile: one miner each, 3 ore tokens
    board = joined_mountain([("red", 0, 0, "E"), ("blue", 2, 0, "W")], ore=[(0, 0, "E", 3)], active=active)
    # when scored
    report = score(board)
    # then the tokens go one at a time from the active player, and both score the full 5 points
    assert [(a["player"], a["count"]) for a in report.awards] == awards
    assert points_of(report) == {"red": 5, "blue": 5}


def test_mountain_tie_skips_players_without_a_claim():
    # given players red, blue, green (green has no miner), active green, 3 tokens
    board = joined_mountain([("red", 0, 0, "E"), ("blue", 2, 0, "W")], ore=[(0, 0, "E", 3)], active="green")
    # when scored
    report = score(board)
    # then green is skipped: red (next clockwise) 2, blue 1
    assert [(a["player"], a["count"]) for a in report.awards] == [("red", 2), ("blue", 1)]


def test_mountain_majority_takes_all_tokens():
    # given a 4-tile mountain GR06 - GR22 - GR22 - GR06 (1+3+3+1 nuggets): red 2 miners, blue 1, 3 tokens
    tiles = [(0, 0, "GR06", 1), (1, 0, "GR22", 0), (2, 0, "GR22", 0), (3, 0, "GR06", 3)]
    board = gr_board(tiles, [("red", 0, 0, "E"), ("red", 1, 0, "W"), ("blue", 2, 0, "W")],
                     ore=[(1, 0, "W", 3)], last_placed=(3, 0), active="blue")
    # when the last tile closes it
    report = score(board)
    # then red alone takes the 3 tokens (even though blue is active) and scores 8
    assert points_of(report) == {"red": 8}
    assert report.awards == [{"player": "red", "token": "ore", "count": 3,
                              "from": [[0, 0], [1, 0], [2, 0], [3, 0]]}]
    assert sorted(m.player for m in report.returned) == ["blue", "red", "red"]


def test_mountain_awards_note_that_token_values_come_at_the_end():
    # given a closing mountain with 2 tokens and red's miner
    board = mountain_pair([("red", 0, 1, "N")], ore=[(0, 0, "S", 2)], active="red")
    # when the mid-game scoring runs
    report = score(board)
    # then the report says the tokens' hidden values are added at the end via held ore points
    assert goldrush.ORE_VALUES_NOTE in report.notes


def test_tents_score_nothing_and_go_back():
    # given red's miner and green's tent on a mountain that closes
    board = mountain_pair([("red", 0, 1, "N")], tents=[("green", 0, 0, "S")], ore=[(0, 0, "S", 1)])
    # when scored
    report = score(board)
    # then green scores nothing, takes no token, and the tent goes back with the miner
    assert points_of(report) == {"red": 2}
    assert [a["player"] for a in report.awards] == ["red"]
    assert sorted((m.player, m.cell) for m in report.returned) == [("green", (0, 0)), ("red", (0, 1))]


def test_completed_mountain_without_miner_returns_tokens_to_the_supply():
    # given a closed mountain with 2 tokens and only a tent
    board = mountain_pair(tents=[("green", 0, 0, "S")], ore=[(0, 0, "S", 2)])
    # when scored (footnote 6 of seed 000)
    report = score(board)
    # then nobody scores or takes a token; the tokens go back to the supply, the tent to green
    assert (points_of(report), report.awards) == ({}, [])
    assert any("no miner" in n and "2 ore token(s) go back to the supply" in n for n in report.notes)
    assert [(m.player, m.cell) for m in report.returned] == [("green", (0, 0))]


def test_miner_placed_on_the_completing_tile_scores_at_once():
    # given red's miner on the tile that closes the mountain (seed 000: place, score, return)
    board = mountain_pair([("red", 0, 1, "N")])
    # when scored
    report = score(board)
    # then red scores 2 and gets the cowboy back the same turn
    assert points_of(report) == {"red": 2}
    assert [(m.player, m.cell) for m in report.returned] == [("red", (0, 1))]


def test_open_mountain_scores_nothing_during_play():
    # given an open mountain with a miner
    board = open_range([("red", 0, 0, "W")], last_placed=(1, 0), ore=[(0, 0, "W", 3)])
    # when the mid-game scoring runs
    report = score(board)
    # then nothing happens
    assert (points_of(report), report.awards, report.returned) == ({}, [], [])


# =========================================================================== towns
# Seed 000 "Město napojené na dokončenou železniční síť": 3 per completed rail; a loop counts once.


def town_board(with_west=True, meeples=(), **kw):
    """Town GR17 (4 rails) at (0,0): its N and E rails form one loop over 3 curves,
    S ends at a crossing, W ends at a crossing (when ``with_west``)."""
    tiles = [(0, 0, "GR17", 0), (1, 0, "GR03", 1), (1, -1, "GR03", 0), (0, -1, "GR03", 3), (0, 1, "GR18", 1)]
    if with_west:
        tiles.append((-1, 0, "GR18", 0))
    kw.setdefault("last_placed", (1, -1))
    return gr_board(tiles, meeples, **kw)


def test_connected_town_scores_three_per_rail():
    # given a town with 3 rails, each ending at a crossing, and red's merchant
    tiles = [(0, 0, "GR16", 0), (1, 0, "GR18", 2), (0, 1, "GR18", 1), (-1, 0, "GR18", 0)]
    board = gr_board(tiles, [("red", 0, 0, "C")], last_placed=(-1, 0))
    # when the last rail completes
    report = score(board)
    # then the town is connected: 3 rails x 3 = 9
    assert points_of(report) == {"red": 9}
    assert feature(report, "town")["rails"] == 3


def test_town_loop_counts_once():
    # given a 4-rail town whose N and E rails are one loop, red's merchant, blue's railwayman on the loop
    board = town_board(meeples=[("red", 0, 0, "C"), ("blue", 1, 0, "W")])
    # when the loop closes
    report = score(board)
    # then the loop counts once: 3 rails x 3 = 9 (not 12); the loop rail scores 4 tiles for blue
    assert points_of(report) == {"red": 9, "blue": 4}
    assert feature(report, "town")["rails"] == 3


def test_town_with_an_open_rail_scores_nothing_during_play():
    # given the same town with its W rail open
    board = town_board(with_west=False, meeples=[("red", 0, 0, "C")])
    # when the loop closes
    report = score(board)
    # then the town is not connected: red scores nothing
    assert points_of(report) == {}


def test_one_tile_can_connect_two_towns():
    # given two towns sharing a rail, each with a merchant, every other rail ending at a crossing
    tiles = [(0, 0, "GR16", 0), (1, 0, "GR16", 2), (0, 1, "GR18", 1), (-1, 0, "GR18", 0),
             (1, -1, "GR18", 3), (2, 0, "GR18", 2)]
    board = gr_board(tiles, [("red", 0, 0, "C"), ("blue", 1, 0, "C")], last_placed=(1, 0))
    # when blue's town tile completes the shared rail and both towns
    report = score(board)
    # then each merchant scores its own town: 3 rails x 3 = 9 each
    assert points_of(report) == {"red": 9, "blue": 9}


# =========================================================================== final scoring
# Seed 000 "Závěrečné bodování".


def test_final_incomplete_rail_one_per_tile_locomotives_ignored():
    # given an open rail of 3 tiles with one locomotive
    board = gr_board([(0, 0, "GR18", 0), (1, 0, "GR19", 0), (2, 0, "GR01", 0)], [("red", 1, 0, "W")])
    # when the final scoring runs
    report = score(board, "final")
    # then 1 per tile: 3 (the locomotive plays no role)
    assert points_of(report) == {"red": 3}


def test_final_complete_rail_with_figure_is_scored_as_completed():
    # given a complete rail with one locomotive still holding red's railwayman (last tile)
    board = rail_line(["GR19"], [("red", 1, 0, "E")])
    # when the final scoring runs
    report = score(board, "final")
    # then it scores as completed: doubled, 6, and only once
    assert points_of(report) == {"red": 6}
    assert len(report.features) == 1


def test_final_open_mountain_removes_tokens_and_tents():
    # given an open mountain (6 nuggets) with red's miner, green's tent and 4 ore tokens
    board = open_range([("red", 0, 0, "W")], tents=[("green", 1, 0, "E")], ore=[(1, 0, "E", 4)])
    # when the final scoring runs
    report = score(board, "final")
    # then tokens and tent are removed without points; red scores 1 per nugget
    assert points_of(report) == {"red": 6}
    assert report.awards == []
    assert any("4 ore token(s)" in n and "removed" in n for n in report.notes)
    assert any("tents" in n and "removed" in n and "green" in n for n in report.notes)


def test_final_mountain_tie_both_score_all_nuggets():
    # given red and blue with one miner each on the open mountain
    board = open_range([("red", 0, 0, "W"), ("blue", 1, 0, "E")])
    # when the final scoring runs
    report = score(board, "final")
    # then both score 6
    assert points_of(report) == {"red": 6, "blue": 6}


def test_final_complete_mountain_with_miner_hands_out_tokens_first():
    # given a mountain the last tile closed, 3 tokens, red's miner
    board = mountain_pair([("red", 0, 1, "N")], ore=[(0, 0, "S", 3)], active="blue")
    # when the final scoring runs
    report = score(board, "final")
    # then red takes the 3 tokens (their value comes later) and scores 2
    assert points_of(report) == {"red": 2}
    assert report.awards == [{"player": "red", "token": "ore", "count": 3, "from": [[0, 0], [0, 1]]}]
    assert any("held.<colour>.ore_points" in n for n in report.notes)


def test_final_town_scores_three_per_completed_rail_only():
    # given the 4-rail town with the loop and the S rail complete, the W rail open
    board = town_board(with_west=False, meeples=[("red", 0, 0, "C")], last_placed=None)
    # when the final scoring runs
    report = score(board, "final")
    # then 2 completed rails (the loop once, S) x 3 = 6; the open W rail gives 0
    assert points_of(report) == {"red": 6}
    assert (feature(report, "town")["rails"], feature(report, "town")["open_rails"]) == (2, 1)


def test_final_town_without_completed_rail_scores_zero():
    # given a town whose three rails are all open
    board = gr_board([(0, 0, "GR16", 0)], [("blue", 0, 0, "C")])
    # when the final scoring runs
    report = score(board, "final")
    # then blue scores 0
    assert points_of(report) == {}
    assert feature(report, "town")["points"] == 0


def test_final_prairie_two_per_camp_four_per_horses():
    # given GR01 (camp north) and GR02 (wild horses north): one northern prairie, red's farmer
    board = gr_board([(0, 0, "GR01", 0), (1, 0, "GR02", 0)], [("red", 0, 0, "NL")])
    # when the final scoring runs
    report = score(board, "final")
    # then 1 camp x 2 + 1 herd x 4 = 6
    assert points_of(report) == {"red": 6}
    assert (feature(report, "prairie")["camps"], feature(report, "prairie")["horses"]) == (1, 1)


def test_final_prairies_are_separated_by_rails():
    # given the same tiles, red's farmer south of the rail
    board = gr_board([(0, 0, "GR01", 0), (1, 0, "GR02", 0)], [("red", 0, 0, "SL")])
    # when the final scoring runs
    report = score(board, "final")
    # then the camp and horses are on the other prairie: 0
    assert points_of(report) == {}


@pytest.mark.parametrize("at, points", [("NL", 4), ("SL", 0)])
def test_final_prairies_are_separated_by_mountains(at, points):
    # given GR22 (mountain W-E) under GR02 turned so that its wild horses face the mountain
    board = gr_board([(0, 0, "GR22", 0), (0, -1, "GR02", 2)], [("red", 0, 0, at)])
    # when the final scoring runs
    report = score(board, "final")
    # then the farmer north of the mountain shares the horses' prairie (4), the one south of it not (0)
    assert report.points["red"] == points


def test_final_prairie_majority_and_tie():
    # given two horses prairies joined: red 1 farmer, blue 1 farmer on it
    board = gr_board([(0, 0, "GR02", 0), (1, 0, "GR02", 0)], [("red", 0, 0, "N"), ("blue", 1, 0, "N")])
    # when the final scoring runs
    report = score(board, "final")
    # then both score 2 herds x 4 = 8
    assert points_of(report) == {"red": 8, "blue": 8}


def test_final_held_ore_points_are_added_last():
    # given red holds revealed ore tokens worth 11, blue 0
    board = gr_board([(0, 0, "GR05", 0)], held={"red": {"ore_points": 11}, "blue": {"ore_points": 0}})
    # when the final scoring runs
    report = score(board, "final")
    # then red gets 11 as an extra
    assert points_of(report) == {"red": 11}
    assert report.extras == [{"kind": "ore_points", "player": "red", "points": 11}]


def test_held_ore_points_count_only_in_the_final_scoring():
    # given the same holding, mid-game
    board = gr_board([(0, 0, "GR05", 0)], held={"red": {"ore_points": 11}})
    # when the mid-game scoring runs
    report = score(board)
    # then nothing is added
    assert (points_of(report), report.extras) == ({}, [])


def test_unrevealed_ore_tokens_get_a_note():
    # given red holds 3 ore tokens without their value
    board = gr_board([(0, 0, "GR05", 0)], held={"red": {"ore_tokens": 3}})
    # when the final scoring runs
    report = score(board, "final")
    # then a note asks for the value
    assert points_of(report) == {}
    assert any("held.red.ore_points" in n for n in report.notes)


def test_final_game_on_catalogue_tiles():
    # given a small game around the start tile GR05: mountain closed by GR06 with the start ore
    # token and red's miner; the rail from town GR16 to crossing GR18 with blue's railwayman;
    # green's merchant; red's farmer on the prairie with wild horses (GR02); red holds 5 ore points
    tiles = [(0, 0, "GR05", 0), (0, -1, "GR06", 2), (1, 0, "GR18", 2), (-1, 0, "GR16", 0), (0, 1, "GR02", 0)]
    meeples = [("red", 0, -1, "S"), ("blue", 1, 0, "W"), ("green", -1, 0, "C"), ("red", 0, 1, "N")]
    board = gr_board(tiles, meeples, ore=[(0, 0, "N", 1)], held={"red": {"ore_points": 5}}, active="red",
                     track={"red": 20, "blue": 17, "green": 30})
    # when the final scoring runs
    report = score(board, "final")
    # then red: mountain 2 + horses 4 + ore 5 = 11 and the start token; blue: rail 3 tiles;
    # green: one completed rail leaving the town, 3
    assert report.problems == []
    assert points_of(report) == {"red": 11, "blue": 3, "green": 3}
    assert report.totals() == {"red": {"points": 11, "total": 31}, "blue": {"points": 3, "total": 20},
                               "green": {"points": 3, "total": 33}}
    assert report.awards == [{"player": "red", "token": "ore", "count": 1, "from": [[0, -1], [0, 0]]}]


# =========================================================================== The Sheriff (seed 002)


def sheriff_board(tiles, meeples=(), **kw):
    kw.setdefault("expansions", ["sheriff"])
    return gr_board(tiles, meeples, **kw)


def test_sheriff_freezes_his_mountain_note():
    # given the Sheriff on an open mountain, a tile placed elsewhere
    board = sheriff_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0), (0, 1, "GR01", 0)],
                          sheriff=(1, 0, "E"), ore=[(0, 0, "W", 2)], last_placed=(0, 1))
    # when the mid-game scoring runs
    report = score(board)
    # then the report names the frozen mountain and nobody scores
    assert points_of(report) == {}
    assert "the mountain at 0,0 1,0 is frozen by the Sheriff: no mining there while he stands on it" in report.notes
    assert report.problems == []


def test_sheriff_mountain_completes_tokens_distributed_normally_and_he_leaves():
    # given the Sheriff and red's miner on a mountain that closes, 3 tokens
    board = sheriff_board([(0, 0, "GR06", 2), (0, 1, "GR06", 0)], [("red", 0, 1, "N")],
                          sheriff=(0, 0, "S"), ore=[(0, 0, "S", 3)], last_placed=(0, 1))
    # when scored
    report = score(board)
    # then red takes the 3 tokens and 2 points; the Sheriff leaves the board
    assert points_of(report) == {"red": 2}
    assert [(a["player"], a["count"]) for a in report.awards] == [("red", 3)]
    assert any("Sheriff leaves the board" in n for n in report.notes)
    assert not any("frozen" in n for n in report.notes)


def test_sheriff_end_of_game_owner_takes_the_tokens():
    # given the Sheriff on an open mountain with 3 tokens and red's miner
    board = sheriff_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], [("red", 0, 0, "W")],
                          sheriff=(1, 0, "E"), ore=[(1, 0, "E", 3)])
    # when the final scoring runs
    report = score(board, "final")
    # then red takes the 3 tokens instead of them being removed, and scores 6 nuggets
    assert points_of(report) == {"red": 6}
    assert report.awards == [{"player": "red", "token": "ore", "count": 3, "from": [[0, 0], [1, 0]]}]
    assert not any("removed at the end" in n for n in report.notes)


def test_sheriff_end_of_game_tied_owners_share_evenly_remainder_removed():
    # given red and blue tied on the Sheriff's open mountain with 5 tokens
    board = sheriff_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], [("red", 0, 0, "W"), ("blue", 1, 0, "E")],
                          sheriff=(1, 0, "E"), ore=[(1, 0, "E", 5)], active="blue")
    # when the final scoring runs
    report = score(board, "final")
    # then each takes 2 (evenly); the 5th token cannot be shared and is removed
    assert [(a["player"], a["count"]) for a in report.awards] == [("blue", 2), ("red", 2)]
    assert points_of(report) == {"red": 6, "blue": 6}
    assert any("1 token(s) cannot be shared evenly" in n for n in report.notes)
    assert any("1 ore token(s) left" in n and "removed" in n for n in report.notes)


def test_sheriff_end_of_game_without_owner_tokens_removed():
    # given the Sheriff on an open mountain with 2 tokens and no miner
    board = sheriff_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], sheriff=(0, 0, "W"), ore=[(0, 0, "W", 2)])
    # when the final scoring runs
    report = score(board, "final")
    # then nobody takes them
    assert (points_of(report), report.awards) == ({}, [])
    assert any("2 ore token(s) left" in n for n in report.notes)


def test_sheriff_ignored_without_the_expansion():
    # given a Sheriff figure on a board that does not list the expansion
    board = gr_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], [("red", 0, 0, "W")],
                     sheriff=(1, 0, "E"), ore=[(1, 0, "E", 3)])
    # when the final scoring runs
    report = score(board, "final")
    # then the tokens are removed as usual and a problem names the missing expansion
    assert report.awards == []
    assert kinds_of(report.problems) == ["sheriff_without_expansion"]


def test_cowboy_may_join_a_part_held_only_by_the_sheriff():
    # given the Sheriff and red's miner on the same mountain part (seed 000 footnote 2)
    board = sheriff_board([(0, 0, "GR22", 0)], [("red", 0, 0, "W")], sheriff=(0, 0, "E"), last_placed=(0, 0))
    # when the board is checked
    # then no problem
    assert goldrush.problems(board, FeatureGraph(board)) == []


# --------------------------------------------------------------------------- cemetery


def cemetery_board(full=True, meeples=(("red", 0, 0, "C"),), **kw):
    """SH1 at (0,0) with towns GR16 north (rotated) and south; crossings and GR06 around."""
    tiles = [(0, 0, "SH1", 0),
             (-1, -1, "GR18", 2), (0, -1, "GR16", 2), (1, -1, "GR18", 2),
             (-1, 0, "GR06", 3), (1, 0, "GR06", 1),
             (0, 1, "GR16", 0)]
    if full:
        tiles += [(-1, 1, "GR18", 0), (1, 1, "GR18", 0)]
    return sheriff_board(tiles, list(meeples), **kw)


def test_cemetery_completed_scores_nine_plus_towns_around():
    # given the cemetery with red's cowboy, 8 tiles around it, 2 of them towns
    board = cemetery_board(last_placed=(1, 1))
    # when the 8th tile around it is placed
    report = score(board)
    # then red scores 9 + 2 = 11 and the cowboy goes back
    assert report.problems == []
    assert points_of(report) == {"red": 11}
    assert feature(report, "cemetery")["towns"] == 2
    assert [(m.player, m.cell) for m in report.returned] == [("red", (0, 0))]


def test_cemetery_not_surrounded_scores_nothing_during_play():
    # given only 6 tiles around the cemetery
    board = cemetery_board(full=False, last_placed=(0, 1))
    # when the mid-game scoring runs
    report = score(board)
    # then nothing
    assert points_of(report) == {}


def test_cemetery_final_counts_tiles_and_towns_seed_example():
    # given the seed's example: 7 tiles in the 3x3 area (cemetery included), 2 towns around
    board = cemetery_board(full=False)
    # when the final scoring runs
    report = score(board, "final")
    # then 7 + 2 = 9
    assert points_of(report) == {"red": 9}
    assert (feature(report, "cemetery")["tiles"], feature(report, "cemetery")["towns"]) == (7, 2)


def test_cemetery_complete_at_the_end_scores_as_completed():
    # given a surrounded cemetery still holding red's cowboy at the end
    board = cemetery_board()
    # when the final scoring runs
    report = score(board, "final")
    # then it scores as completed: 9 + 2 = 11
    assert points_of(report) == {"red": 11}


# =========================================================================== problems


def test_catalogue_figures_per_colour():
    assert goldrush.FIGURES_PER_COLOUR == {"meeples": 4, "tents": 1}


def test_tent_off_a_mountain_is_a_problem():
    # given a tent on the prairie of GR06
    board = gr_board([(0, 0, "GR06", 0)], tents=[("red", 0, 0, "S")])
    # then
    assert kinds_of(goldrush.problems(board, FeatureGraph(board))) == ["tent_off_mountain"]


def test_tent_on_a_complete_mountain_is_a_problem_unless_just_completed():
    # given a tent on a closed mountain, the last tile placed elsewhere
    tiles = [(0, 0, "GR06", 2), (0, 1, "GR06", 0), (1, 0, "GR19", 1)]
    stale = gr_board(tiles, tents=[("red", 0, 0, "S")], last_placed=(1, 0))
    fresh = gr_board(tiles, tents=[("red", 0, 0, "S")], last_placed=(0, 1))
    # then only the stale one is a problem
    assert kinds_of(goldrush.problems(stale, FeatureGraph(stale))) == ["tent_on_complete_mountain"]
    assert goldrush.problems(fresh, FeatureGraph(fresh)) == []


def test_tent_on_an_occupied_mountain_part_is_a_problem():
    # given red's miner and blue's tent on the same mountain part of one tile
    board = gr_board([(0, 0, "GR22", 0)], [("red", 0, 0, "W")], tents=[("blue", 0, 0, "E")])
    # then
    assert kinds_of(goldrush.problems(board, FeatureGraph(board))) == ["tent_on_occupied_part"]


def test_tents_elsewhere_in_the_same_mountain_are_fine():
    # given red's miner on one tile and blue's tent on another tile of the same mountain
    board = open_range([("red", 0, 0, "W")], tents=[("blue", 1, 0, "E")])
    # then no problem (seed 000 2b: other miners and tents may stand elsewhere in the mountain)
    assert goldrush.problems(board, FeatureGraph(board)) == []


def test_sheriff_off_a_mountain_and_ore_off_a_mountain_are_problems():
    # given the Sheriff and an ore stack on a rail
    board = sheriff_board([(0, 0, "GR19", 0)], sheriff=(0, 0, "W"), ore=[(0, 0, "N", 1)])
    # then
    assert kinds_of(goldrush.problems(board, FeatureGraph(board))) == ["sheriff_off_mountain", "ore_off_mountain"]


def test_sheriff_and_ore_on_an_old_complete_mountain_are_problems():
    # given the Sheriff and tokens on a mountain closed before the last tile
    tiles = [(0, 0, "GR06", 2), (0, 1, "GR06", 0), (1, 0, "GR19", 1)]
    board = sheriff_board(tiles, sheriff=(0, 0, "S"), ore=[(0, 1, "N", 2)], last_placed=(1, 0))
    # then
    assert kinds_of(goldrush.problems(board, FeatureGraph(board))) == [
        "sheriff_on_complete_mountain", "ore_on_complete_mountain"]


def test_five_cowboys_or_two_tents_of_one_colour_are_reported():
    # given 5 red cowboys (4 in supply per colour) and 2 red tents (1 per colour)
    tiles = [(i, 0, "GR22", 0) for i in range(5)]
    meeples = [("red", i, 0, "W") for i in range(5)]
    board = gr_board(tiles + [(5, 0, "GR22", 0), (6, 0, "GR22", 0)], meeples,
                     tents=[("red", 5, 0, "W"), ("red", 6, 0, "W")])
    # then the common check, using FIGURES_PER_COLOUR, reports both
    found = all_problems(board, FeatureGraph(board))
    assert kinds_of(found) == ["too_many_figures", "too_many_figures"]
    assert "5 cowboys" in found[0]["message"] and "2 tents" in found[1]["message"]


# =========================================================================== report


def test_without_last_placed_every_complete_feature_with_figures_scores():
    # given a complete rail with a railwayman and a closed mountain with a miner, no last_placed
    tiles = [(0, 0, "GR18", 0), (1, 0, "GR19", 0), (2, 0, "GR18", 2), (0, 5, "GR06", 2), (0, 6, "GR06", 0)]
    board = gr_board(tiles, [("red", 1, 0, "W"), ("blue", 0, 6, "N")], ore=[(0, 5, "S", 1)])
    # when the mid-game scoring runs
    report = score(board)
    # then both score as completed: rail 3 x 2 = 6, mountain 2 and its token
    assert points_of(report) == {"red": 6, "blue": 2}
    assert [(a["player"], a["count"]) for a in report.awards] == [("blue", 1)]


def test_report_is_json_with_tokens_and_notes():
    # given a closing mountain with a tied pair of miners and 2 tokens
    board = joined_mountain([("red", 0, 0, "E"), ("blue", 2, 0, "W")], ore=[(0, 0, "E", 2)], active="red")
    # when the report is written as JSON
    out = json.loads(json.dumps(score(board).to_dict()))
    # then it lists both players' tokens and the two miners going back
    cells = [[0, 0], [1, 0], [2, 0]]
    assert out["tokens"] == [{"player": "red", "token": "ore", "count": 1, "from": cells},
                             {"player": "blue", "token": "ore", "count": 1, "from": cells}]
    assert sorted(r["player"] for r in out["returned"]) == ["blue", "red"]
    assert out["players"]["red"]["points"] == out["players"]["blue"]["points"] == 5
    assert out["problems"] == []
