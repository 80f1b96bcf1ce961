"""Tests of the common rule-problem checks (``scorer.legality``): reported, never raised."""

from __future__ import annotations

from helpers import inline, kinds_of, make_board, points_of
from scorer.features import FeatureGraph
from scorer.legality import problems
from scorer.scoring import score

RIVER = inline({"kind": "river", "edges": ["W", "E"]},
               {"kind": "field", "edges": ["WR", "NL", "NR", "EL"]},
               {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}, name="IFI", river="river")


def _problems(board):
    return problems(board, FeatureGraph(board))


def test_legal_board_has_no_problems():
    """Given a legal board with figures of listed players, when checked, then no problem."""
    board = make_board([(0, 0, "D", 0), (0, -1, "E", 2), (1, 0, "U", 0)], [("red", 0, -1, "S"), ("blue", 1, 0, "E")],
                       players=["red", "blue"], active="red", last_placed=(0, -1))
    assert _problems(board) == []


def test_mismatched_edges_give_one_problem_per_pair():
    """Given a city side facing a road side, when checked, then one edge_mismatch with both cells; the board still scores."""
    board = make_board([(0, 0, "E", 0), (0, -1, "U", 1), (1, 0, "U", 1)], [("red", 1, 0, "N")], players=["red"])
    found = _problems(board)
    assert kinds_of(found) == ["edge_mismatch"]
    assert (found[0]["cell"], found[0]["other"]) == ([0, -1], [0, 0])
    assert "city" in found[0]["message"] and "road" in found[0]["message"]
    assert points_of(score(board, "final")) == {"red": 1}


def test_more_meeples_than_the_box_holds():
    """Given 8 red meeples (the box holds 7 per colour), when checked, then one too_many_figures."""
    tiles = [(x, 0, "U", 0) for x in range(8)]
    board = make_board(tiles, [("red", x, 0, "E") for x in range(8)], players=["red"])
    found = _problems(board)
    assert kinds_of(found) == ["too_many_figures"]
    assert "8 meeples" in found[0]["message"] and "7" in found[0]["message"]


def test_seven_meeples_are_fine():
    """Given 7 red meeples, when checked, then no problem."""
    tiles = [(x, 0, "U", 0) for x in range(7)]
    board = make_board(tiles, [("red", x, 0, "E") for x in range(7)], players=["red"])
    assert _problems(board) == []


def test_two_meeples_on_one_tile():
    """Given a red knight and a blue thief on one tile, when checked, then one two_figures_on_tile at that cell."""
    board = make_board([(0, 0, "D", 0)], [("red", 0, 0, "N"), ("blue", 0, 0, "E")], players=["red", "blue"])
    found = _problems(board)
    assert kinds_of(found) == ["two_figures_on_tile"]
    assert found[0]["cell"] == [0, 0]


def test_meeple_placed_on_an_occupied_feature():
    """Given blue's thief on the new tile joining red's road, when checked, then one occupied_feature at the new tile."""
    board = make_board([(0, 0, "U", 0), (1, 0, "U", 0)], [("red", 0, 0, "E"), ("blue", 1, 0, "W")],
                       players=["red", "blue"], active="blue", last_placed=(1, 0))
    found = _problems(board)
    assert kinds_of(found) == ["occupied_feature"]
    assert found[0]["cell"] == [1, 0]


def test_occupied_feature_needs_last_placed():
    """Given the same board without last_placed (the features may have merged later), when checked, then no problem."""
    board = make_board([(0, 0, "U", 0), (1, 0, "U", 0)], [("red", 0, 0, "E"), ("blue", 1, 0, "W")],
                       players=["red", "blue"])
    assert _problems(board) == []


def test_figure_of_a_colour_not_playing():
    """Given players red and blue and a green meeple, when checked, then one unknown_player."""
    board = make_board([(0, 0, "U", 0)], [("green", 0, 0, "E")], players=["red", "blue"])
    assert kinds_of(_problems(board)) == ["unknown_player"]


def test_colours_unchecked_without_players():
    """Given no players list, when checked, then figure colours are not judged."""
    board = make_board([(0, 0, "U", 0)], [("green", 0, 0, "E")])
    assert _problems(board) == []


def test_meeple_on_the_river():
    """Given a meeple standing on the river itself, when checked, then one meeple_on_river; the river scores nothing."""
    board = make_board([(0, 0, RIVER, 0)], [("red", 0, 0, "E")], players=["red"])
    found = _problems(board)
    assert kinds_of(found) == ["meeple_on_river"]
    report = score(board, "final")
    assert report.features == [] and report.points == {"red": 0}


def test_problems_reach_the_score_report():
    """Given a board with a problem, when scored, then the report lists it and still scores."""
    board = make_board([(0, 0, "D", 0), (0, -1, "E", 2)], [("red", 0, 0, "N"), ("red", 0, 0, "E")],
                       players=["red"], active="red", last_placed=(0, -1))
    report = score(board)
    assert kinds_of(report.problems) == ["two_figures_on_tile"]
    assert points_of(report) == {"red": 4}
