"""Corrections: `scorer fix` / `scorer undo` and the library under them, and suggest_corrections.

The board used throughout (base game, players red, blue, green, track 10 / 3 / 5)::

    (0,-1) E rot 2   city S closes the city of (0,0); red's knight on it (S)
    (-1,0) U         road W-E; blue's thief on it (W)
    (0,0)  D         city N, road W-E; green's farmer on the north field (WR),
                     which borders the city

Final scoring: red city 2 tiles x 2 = 4 -> 14; blue road 2 tiles -> 5; green
farmer, one completed city -> 3 -> 8.  Mid-game (E was placed last): red 4 -> 14.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import board_dict

from scorer.board import Board, read_board
from scorer.corrections import (
    CorrectionError,
    apply_correction,
    describe_entry,
    fix_command,
    history,
    parse_rot,
    suggest_corrections,
    undo,
)
from scorer.fix_cli import fix, undo as undo_cmd
from scorer.scoring import score

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MEEPLES = [("red", 0, -1, "S"), ("blue", -1, 0, "W"), ("green", 0, 0, "WR")]
CLAIMS = {"red": 14, "blue": 5, "green": 8}


def table_dict(meeples=MEEPLES, **kw) -> dict:
    kw.setdefault("players", ["red", "blue", "green"])
    kw.setdefault("track", {"red": 10, "blue": 3, "green": 5})
    return board_dict([(0, 0, "D", 0), (0, -1, "E", 2), (-1, 0, "U", 0)], meeples, active="blue",
                      last_placed=(0, -1), **kw)


def table(meeples=MEEPLES, **kw) -> Board:
    return Board.from_dict(table_dict(meeples, **kw))


def totals(board: Board, mode: str = "final") -> dict[str, int]:
    return {c: t["total"] for c, t in score(board, mode).totals().items()}


def saved(tmp_path: Path, board: Board | dict, name: str = "board.json") -> Path:
    """The board written as the tools write it (Board.save), or a dict as plain json.dumps."""
    path = tmp_path / name
    if isinstance(board, Board):
        board.save(path)
    else:
        path.write_text(json.dumps(board))
    return path


def run_fix(path: Path, *words: str):
    return CliRunner().invoke(fix, [str(path), *words])


def rows(output: str) -> dict[str, list[str]]:
    """The player rows of the printed score table: colour -> [track, +points, total, (change)]."""
    out = {}
    for line in output.splitlines():
        parts = line.split()
        if parts and parts[0] in ("red", "blue", "green", "yellow") and len(parts) >= 4 and parts[2].startswith("+"):
            out[parts[0]] = parts[1:]
    return out


def test_the_table_scores_as_documented():
    """Given the test table, when scored, then final 14/5/8 and mid-game 14/3/5 with no problems."""
    board = table()
    assert totals(board) == CLAIMS
    assert totals(board, "completed") == {"red": 14, "blue": 3, "green": 5}
    assert score(board, "final").problems == []


# =========================================================================== rotations


@pytest.mark.parametrize("text, rot", [("0", 0), ("1", 1), ("2", 2), ("3", 3), ("90", 1), ("180", 2),
                                       ("270", 3), ("90°", 1), ("270deg", 3), (2, 2)])
def test_rotation_reads_quarter_turns_and_degrees(text, rot):
    assert parse_rot(text) == rot


@pytest.mark.parametrize("text", ["45", "4", "-90", "east", ""])
def test_rotation_rejects_anything_else(text):
    with pytest.raises(CorrectionError, match="0, 90, 180 or 270 degrees"):
        parse_rot(text)


# =========================================================================== each operation via the CLI


def test_fix_tile_turns_a_tile_and_rescores(tmp_path):
    """Given the table, when E at 0,-1 is turned to 0 degrees, then the city opens: red 10, green 5."""
    path = saved(tmp_path, table())
    result = run_fix(path, "tile", "0,-1", "E", "0", "--final")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("tile 0,-1: E rot 2 (180°) -> E rot 0 (0°)")
    # red's knight now stands on E's field (S), which borders only E's open city: 0
    assert rows(result.output) == {"red": ["10", "+0", "10", "-4"], "blue": ["3", "+2", "5"],
                                   "green": ["5", "+0", "5", "-3"]}
    board = read_board(path)
    assert (board.tiles[(0, -1)].tile.id, board.tiles[(0, -1)].rot) == ("E", 0)
    # when turned back with "." (keep the tile) and degrees, then the scores are back
    assert run_fix(path, "tile", "0,-1", ".", "180").exit_code == 0
    assert totals(read_board(path)) == CLAIMS


def test_fix_tile_quarter_turns_and_a_new_id(tmp_path):
    """Given the table, when D at 0,0 is replaced by K turned 1 quarter, then the tile and scores change."""
    path = saved(tmp_path, table())
    assert run_fix(path, "tile", "0,0", "K", "1").exit_code == 0
    board = read_board(path)
    assert (board.tiles[(0, 0)].tile.id, board.tiles[(0, 0)].rot) == ("K", 1)
    # K rot 1: city E, road W-N; green's WR is now the small field {WR, NL} (no city);
    # the city on E faces K's road: red's city is 1 open tile -> 1
    assert totals(board) == {"red": 11, "blue": 5, "green": 5}


def test_fix_tile_remove_takes_the_figures_on_it(tmp_path):
    """Given the table, when U at -1,0 is removed, then blue's thief goes with it: blue 3."""
    path = saved(tmp_path, table())
    result = run_fix(path, "tile", "-1,0", "--remove", "--final")
    assert result.exit_code == 0, result.output
    assert "tile -1,0 removed (was U rot 0 (0°)) with 1 figure(s) on it" in result.output
    board = read_board(path)
    assert (-1, 0) not in board.tiles
    assert [(m.player, m.cell) for m in board.meeples] == [("red", (0, -1)), ("green", (0, 0))]
    assert totals(board) == {"red": 14, "blue": 3, "green": 8}


@pytest.mark.parametrize("words, meeples, expected", [
    # add: a yellow farmer on U's south field (no city) scores 0 but yellow now plays
    (["meeple", "-1,0", "yellow", "SL"], None, {"red": 14, "blue": 5, "green": 8, "yellow": 0}),
    # move on the tile: green's farmer to the south field (no city): green 5
    (["meeple", "0,0", "green", "SL", "--from-at", "WR"],
     [("red", 0, -1, "S"), ("blue", -1, 0, "W"), ("green", 0, 0, "SL")], {"red": 14, "blue": 5, "green": 5}),
    # move to another cell: blue's thief onto D's road (same road): blue still 5
    (["meeple", "-1,0", "W", "--move-to", "0,0:E"],
     [("red", 0, -1, "S"), ("blue", 0, 0, "E"), ("green", 0, 0, "WR")], {"red": 14, "blue": 5, "green": 8}),
    # remove red's knight: the city scores for nobody: red 10
    (["meeple", "0,-1", "S", "--remove"], [("blue", -1, 0, "W"), ("green", 0, 0, "WR")],
     {"red": 10, "blue": 5, "green": 8}),
    # recolour blue's thief red: red 14 + 2 = 16, blue 3
    (["meeple", "-1,0", "blue", "W", "--colour", "red"],
     [("red", 0, -1, "S"), ("red", -1, 0, "W"), ("green", 0, 0, "WR")], {"red": 16, "blue": 3, "green": 8}),
])
def test_fix_meeple_operations(tmp_path, words, meeples, expected):
    path = saved(tmp_path, table())
    result = run_fix(path, *words, "--final")
    assert result.exit_code == 0, result.output
    board = read_board(path)
    if meeples is not None:
        assert sorted((m.player, m.x, m.y, m.at) for m in board.meeples) == sorted(meeples)
    assert totals(board) == expected
    assert {c: int(r[2]) for c, r in rows(result.output).items()} == expected


def test_fix_gold_bars_and_held_bars(tmp_path):
    """Given the table with The Goldmines, when 2 bars lie on D, then red takes them with the city (seed 001)."""
    path = saved(tmp_path, table(expansions=["goldmines"]))
    assert run_fix(path, "gold", "0,0", "2").exit_code == 0
    board = read_board(path)
    assert [(g.cell, g.count) for g in board.gold] == [((0, 0), 2)]
    report = score(board, "completed")
    assert report.points["red"] == 4
    assert report.awards == [{"player": "red", "token": "gold", "count": 2, "from": [[0, 0], [0, 0]]}]
    # final: 2 bars at 1 point each
    assert totals(board) == {"red": 16, "blue": 5, "green": 8}
    # when gold is set to 0 the stack goes; when red holds 4 bars they score 4 x 2 = 8
    assert run_fix(path, "gold", "0,0", "0").exit_code == 0
    assert read_board(path).gold == []
    result = run_fix(path, "held", "red", "gold_bars=4", "--final")
    assert result.exit_code == 0, result.output
    assert read_board(path).held == {"red": {"gold_bars": 4}}
    assert rows(result.output)["red"] == ["10", "+12", "22", "+8"]


def test_fix_players_active_last_and_track(tmp_path):
    path = saved(tmp_path, table())
    assert run_fix(path, "players", "red,blue,green,yellow").exit_code == 0
    assert run_fix(path, "active", "Red").exit_code == 0
    assert run_fix(path, "last", "-1,0").exit_code == 0
    result = run_fix(path, "track", "red=37,blue=52")
    assert result.exit_code == 0, result.output
    board = read_board(path)
    assert (board.players, board.active, board.last_placed) == (["red", "blue", "green", "yellow"], "red", (-1, 0))
    assert board.track == {"red": 37, "blue": 52, "green": 5}
    # U placed last completes nothing: mid-game everybody scores 0
    assert rows(result.output) == {"red": ["37", "+0", "37", "+27"], "blue": ["52", "+0", "52", "+49"],
                                   "green": ["5", "+0", "5"], "yellow": ["0", "+0", "0"]}
    assert totals(board) == {"red": 41, "blue": 54, "green": 8, "yellow": 0}
    assert run_fix(path, "last", "none").exit_code == 0
    assert read_board(path).last_placed is None


def mountain_pair(**kw) -> dict:
    """Gold Rush: two GR06 tiles whose mountains face each other (closed, 2 nuggets); red's miner on 0,1 N."""
    return board_dict([(0, 0, "GR06", 2), (0, 1, "GR06", 0)], [("red", 0, 1, "N")], game="goldrush",
                      players=["red", "blue", "green"], active="red", last_placed=(0, 1), **kw)


def test_fix_ore_and_tent_on_a_gold_rush_mountain(tmp_path):
    """Given a closing mountain with red's miner, when 3 ore tokens and green's tent are added, then red takes 3 (seed 000)."""
    path = saved(tmp_path, Board.from_dict(mountain_pair()))
    assert run_fix(path, "ore", "0,0", "S", "3").exit_code == 0
    result = run_fix(path, "tent", "0,0", "green", "S")
    assert result.exit_code == 0, result.output
    board = read_board(path)
    assert [(t.player, t.cell, t.at) for t in board.tents] == [("green", (0, 0), "S")]
    report = score(board, "completed")
    assert {c: p for c, p in report.points.items() if p} == {"red": 2}
    assert report.awards == [{"player": "red", "token": "ore", "count": 3, "from": [[0, 0], [0, 1]]}]
    assert sorted((m.player, m.cell) for m in report.returned) == [("green", (0, 0)), ("red", (0, 1))]
    assert run_fix(path, "tent", "0,0", "S", "--remove").exit_code == 0
    assert run_fix(path, "ore", "0,0", "S", "0").exit_code == 0
    board = read_board(path)
    assert (board.tents, board.ore) == ([], [])


def test_fix_sheriff_place_move_remove(tmp_path):
    """Given an open mountain with red's miner and 3 tokens, when the Sheriff stands on it, then red keeps the tokens (seed 002)."""
    obj = board_dict([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], [("red", 0, 0, "W")], game="goldrush",
                     expansions=["sheriff"], players=["red", "blue"], ore=[(1, 0, "E", 3)])
    path = saved(tmp_path, Board.from_dict(obj))
    assert score(read_board(path), "final").awards == []
    assert run_fix(path, "sheriff", "1,0", "E").exit_code == 0
    assert read_board(path).sheriff.cell == (1, 0)
    result = run_fix(path, "sheriff", "0,0", "w")
    assert result.exit_code == 0, result.output
    assert "the Sheriff moved from 1,0 E to 0,0 W" in result.output
    board = read_board(path)
    assert (board.sheriff.cell, board.sheriff.at) == ((0, 0), "W")
    report = score(board, "final")
    assert report.awards == [{"player": "red", "token": "ore", "count": 3, "from": [[0, 0], [1, 0]]}]
    assert report.points["red"] == 6
    assert run_fix(path, "sheriff", "--remove").exit_code == 0
    assert read_board(path).sheriff is None


# =========================================================================== library behaviour


def test_a_correction_returns_a_new_board_and_marks_the_detection_sure():
    """Given a photo reading, when a tile is corrected, then only the new board changes; confidence 1.0, no alternatives."""
    obj = table_dict()
    obj["photo"] = {"source": None}
    obj["tiles"][1].update({"confidence": 0.42, "alternatives": [{"tile": "E", "rot": 0, "confidence": 0.3}]})
    obj["meeples"][1].update({"confidence": 0.5, "colour_alternatives": [{"player": "red", "confidence": 0.2}]})
    board = Board.from_dict(obj)
    text = board.to_json()
    after = apply_correction(board, "set_tile", {"x": 0, "y": -1, "tile": "E", "rot": "0"})
    assert board.to_json() == text
    assert after.tiles[(0, -1)].extra == {"confidence": 1.0}
    assert history(after) == [{"op": "set_tile", "args": {"x": 0, "y": -1, "tile": "E", "rot": 0},
                               "before": {"tiles": {"index": 1, "count": 1, "old": [obj["tiles"][1]],
                                                    "new": [{"x": 0, "y": -1, "tile": "E", "rot": 0,
                                                             "confidence": 1.0}]}}}]
    recoloured = apply_correction(after, "recolour_figure",
                                  {"kind": "meeple", "x": -1, "y": 0, "at": "W", "colour": "red"})
    assert recoloured.meeples[1].extra == {"confidence": 1.0}
    assert [e["op"] for e in history(recoloured)] == ["set_tile", "recolour_figure"]
    assert undo(recoloured, 2).to_json() == text


def test_a_correction_that_changes_nothing_adds_no_history():
    board = table()
    assert apply_correction(board, "set_track", {"points": {"red": 10}}) is board


def test_describe_and_command_of_an_entry():
    after = apply_correction(table(), "move_figure",
                             {"kind": "meeple", "x": 0, "y": 0, "at": "WR", "to": {"x": 0, "y": 0, "at": "SL"}})
    entry = history(after)[-1]
    assert describe_entry(entry) == "green meeple moved from 0,0 WR to 0,0 SL"
    assert fix_command(entry["op"], entry["args"], "t.json") == "scorer fix t.json meeple 0,0 SL --from-at WR"


# =========================================================================== undo


def test_undo_restores_each_earlier_file_byte_for_byte(tmp_path):
    path = saved(tmp_path, table())
    versions = [path.read_bytes()]
    for words in (["tile", "0,-1", "E", "90"], ["meeple", "-1,0", "W", "--colour", "green"], ["track", "red=20"]):
        assert run_fix(path, *words).exit_code == 0
        versions.append(path.read_bytes())
    assert len(set(versions)) == 4
    result = CliRunner().invoke(undo_cmd, [str(path), "--final"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "undone: track: red 10 -> 20"
    assert path.read_bytes() == versions[2]
    assert CliRunner().invoke(undo_cmd, [str(path), "--steps", "2"]).exit_code == 0
    assert path.read_bytes() == versions[0]


def test_undo_gives_back_a_hand_written_json_file(tmp_path):
    """Given a board file not written by the tools (json.dumps), when fixed and undone, then it is byte-identical."""
    path = saved(tmp_path, table_dict())
    original = path.read_bytes()
    assert run_fix(path, "gold", "0,0", "1").exit_code == 0
    assert run_fix(path, "meeple", "0,0", "WR", "--remove").exit_code == 0
    assert path.read_bytes() != original
    assert CliRunner().invoke(undo_cmd, [str(path), "--steps", "2"]).exit_code == 0
    assert path.read_bytes() == original


def test_typed_notation_board_is_fixed_in_notation_and_undone(tmp_path):
    """Given the typed example board, when fixed, then it stays notation with its comments; undo restores it."""
    path = tmp_path / "midgame.txt"
    original = (EXAMPLES / "base-midgame.txt").read_bytes()
    path.write_bytes(original)
    result = run_fix(path, "meeple", "-2,0", "C", "--colour", "blue")
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert text.startswith("# Base Carcassonne, middle of a game")
    assert "-2,0 A 3 blue@C" in text
    assert "\n#history {\"op\":\"recolour_figure\"" in text
    assert [(m.player, m.cell) for m in read_board(path).meeples if m.cell == (-2, 0)] == [("blue", (-2, 0))]
    assert run_fix(path, "tile", "1,0", "V", "90").exit_code == 0
    listed = CliRunner().invoke(undo_cmd, [str(path), "--list"])
    assert listed.output.splitlines() == ["  1  meeple at -2,0 C: red -> blue", "  2  tile 1,0: V rot 0 (0°) -> V rot 1 (90°)"]
    assert CliRunner().invoke(undo_cmd, [str(path), "--steps", "2"]).exit_code == 0
    assert path.read_bytes() == original


def test_undo_without_history_is_an_error(tmp_path):
    path = saved(tmp_path, table())
    before = path.read_bytes()
    result = CliRunner().invoke(undo_cmd, [str(path)])
    assert result.exit_code == 2
    assert result.stderr == "error: the board has no recorded changes to undo\n"
    assert run_fix(path, "track", "red=11").exit_code == 0
    changed = path.read_bytes()
    result = CliRunner().invoke(undo_cmd, [str(path), "--steps", "2"])
    assert (result.exit_code, result.stderr) == (2, "error: only 1 change(s) are recorded; undo at most 1 (--steps 1)\n")
    assert path.read_bytes() == changed != before


# =========================================================================== errors leave the file as it was


@pytest.mark.parametrize("words, message", [
    (["meeple", "5,5", "red", "N"], "no tile on 5,5; place one first"),
    (["meeple", "0,0", "red", "NL"], "tile D rot 0 (0°) on 0,0 has no feature at NL; its locations are N E S W EL"),
    (["meeple", "0,0", "purple", "SL"], "unknown colour 'purple'; colours are red, blue"),
    (["meeple", "0,0", "SL", "--colour", "purple"], "unknown colour 'purple'"),
    (["meeple", "0,0", "red", "SL", "--remove"], "no red meeple at 0,0 SL (meeples on 0,0: green at WR)"),
    (["tile", "0,0", "K", "45"], "rotation must be 0, 90, 180 or 270 degrees"),
    (["tile", "0,0", "Z", "0"], "unknown tile id 'Z' for carcassonne"),
    (["tile", "0,-1", "E", "0", "extra"], "give the tile id and its rotation"),
    (["tile", "0,0", "C", "0"], "tile 0,0: C rot 0 (0°) has no feature at WR, where the green meeple stands; "
                                "move or remove it first (scorer fix {path} meeple 0,0 green WR --remove)"),
    (["tile", "x,1", "E", "0"], "a cell is X,Y like 2,-1"),
    (["gold", "0,0", "-1"], "must be a whole number 0 or more"),
    (["track", "red37"], "expected KEY=NUMBER like red=37,blue=52"),
    (["players", "red,green"], "the active player blue is not in red,green; set the active player first"),
    (["active", "pink"], "pink is not one of the players"),
    (["meeple", "0,0", "SL", "--remove", "--colour", "red"], "use one of --remove, --colour at a time"),
])
def test_a_bad_fix_exits_2_with_one_line_and_leaves_the_file(tmp_path, words, message):
    path = saved(tmp_path, table_dict(players=["red", "blue", "green"]))
    before = path.read_bytes()
    result = run_fix(path, *words)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message.format(path=path) in result.stderr
    assert path.read_bytes() == before


def test_no_other_file_is_left_behind(tmp_path):
    path = saved(tmp_path, table())
    run_fix(path, "meeple", "9,9", "red", "N")
    run_fix(path, "track", "red=12")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json"]


# =========================================================================== suggest_corrections


def test_suggest_finds_the_recoloured_meeple():
    """Given blue's thief read as red (red 16, blue 3), when the claims are 14/5/8, then: recolour it blue."""
    board = table([("red", 0, -1, "S"), ("red", -1, 0, "W"), ("green", 0, 0, "WR")])
    assert totals(board) == {"red": 16, "blue": 3, "green": 8}
    assert suggest_corrections(board, CLAIMS) == [{
        "op": "recolour_figure",
        "args": {"kind": "meeple", "x": -1, "y": 0, "at": "W", "player": "red", "colour": "blue"},
        "totals": CLAIMS,
        "description": "meeple at -1,0 W: red -> blue",
        "command": "scorer fix BOARD meeple -1,0 red W --colour blue",
    }]


def test_suggest_finds_the_farmer_on_the_wrong_field():
    """Given green's farmer read on D's south field (no city: green 5), then: move it to the field by the city."""
    board = table([("red", 0, -1, "S"), ("blue", -1, 0, "W"), ("green", 0, 0, "SL")])
    assert totals(board) == {"red": 14, "blue": 5, "green": 5}
    found = suggest_corrections(board, CLAIMS)
    assert [(s["op"], s["args"], s["totals"]) for s in found] == [
        ("move_figure", {"kind": "meeple", "x": 0, "y": 0, "at": "SL", "player": "green",
                         "to": {"x": 0, "y": 0, "at": "EL"}}, CLAIMS)]
    assert found[0]["command"] == "scorer fix BOARD meeple 0,0 green EL --from-at SL"


def test_suggest_finds_the_turned_tile():
    """Given E at 0,-1 read turned away (rot 0: red 10, green 5), then: turn it to 180 degrees."""
    obj = table_dict()
    obj["tiles"][1]["rot"] = 0
    board = Board.from_dict(obj)
    assert totals(board) == {"red": 10, "blue": 5, "green": 5}
    found = suggest_corrections(board, CLAIMS)
    assert [(s["op"], s["args"]) for s in found] == [("set_tile", {"x": 0, "y": -1, "tile": "E", "rot": 2})]
    assert found[0]["description"] == "tile 0,-1: E rot 0 (0°) -> E rot 2 (180°)"


def test_suggest_tries_the_runner_up_of_the_least_sure_tile_first():
    """Given the turned E read with confidence 0.4 and runner-up E rot 2, then it is found in one scoring."""
    obj = table_dict()
    obj["tiles"][1].update({"rot": 0, "confidence": 0.4, "alternatives": [{"tile": "E", "rot": 2, "confidence": 0.35}]})
    board = Board.from_dict(obj)
    found = suggest_corrections(board, CLAIMS, max_scorings=1)
    assert [(s["op"], s["args"]) for s in found] == [("set_tile", {"x": 0, "y": -1, "tile": "E", "rot": 2})]


def test_suggest_nothing_when_claims_match_or_the_work_is_capped():
    assert suggest_corrections(table(), CLAIMS) == []
    board = table([("red", 0, -1, "S"), ("red", -1, 0, "W"), ("green", 0, 0, "WR")])
    assert suggest_corrections(board, CLAIMS, max_scorings=0) == []
    assert suggest_corrections(board, {"red": 1000}) == []


@pytest.mark.parametrize("meeples, rot", [
    ([("red", 0, -1, "S"), ("blue", -1, 0, "W"), ("green", 0, 0, "SL")], 2),
    ([("red", 0, -1, "S"), ("red", -1, 0, "W"), ("green", 0, 0, "WR")], 2),
    (MEEPLES, 0),
])
def test_the_suggested_command_makes_the_claims_true(tmp_path, meeples, rot):
    """Given a misread board and the true claims, when the suggested `scorer fix` line is run, then the totals match."""
    obj = table_dict(meeples)
    obj["tiles"][1]["rot"] = rot
    path = saved(tmp_path, Board.from_dict(obj))
    (found,) = suggest_corrections(read_board(path), CLAIMS)
    words = found["command"].split()
    assert words[:3] == ["scorer", "fix", "BOARD"]
    result = run_fix(path, *words[3:], "--final")
    assert result.exit_code == 0, result.output
    assert totals(read_board(path)) == CLAIMS
    assert {c: int(r[2]) for c, r in rows(result.output).items()} == CLAIMS
