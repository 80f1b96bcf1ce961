"""CLI: `scorer score` and `scorer verify` on typed boards, and bad input handling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import board_dict

from scorer.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def write(tmp_path: Path, obj, name: str = "board.json") -> str:
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def test_score_json_reports_completed_city(tmp_path):
    """Given red's knight in a city the last tile closed, when scored mid-game, then red gets 4 and the knight returns."""
    board = board_dict(
        tiles=[(0, 0, "D", 0), (0, -1, "E", 2)],
        meeples=[("red", 0, 0, "N")],
        players=["red", "blue"], active="blue", last_placed=(0, -1), track={"red": 10, "blue": 3},
    )
    result = run("score", write(tmp_path, board), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["format"] == "carcassonne-score/1"
    assert report["mode"] == "completed"
    assert report["players"] == {"red": {"points": 4, "total": 14}, "blue": {"points": 0, "total": 3}}
    assert report["features"][0]["kind"] == "city"
    assert report["features"][0]["cells"] == [[0, -1], [0, 0]]
    assert report["returned"] == [{"player": "red", "x": 0, "y": 0, "at": "N"}]
    assert report["board"]["format"] == "carcassonne-board/1"


def test_score_text_table_and_final_mode():
    """Given the Goldmines example board, when scored at the end, then the table shows every player's total."""
    result = run("score", str(EXAMPLES / "goldmines-final.txt"), "--final")
    assert result.exit_code == 0, result.output
    assert "Final scoring" in result.output
    lines = {line.split()[0]: line.split() for line in result.output.splitlines() if line[:4] in ("red ", "blue")}
    assert lines["red"][1:] == ["41", "+16", "57"]
    assert lines["blue"][1:] == ["38", "+12", "50"]


def test_verify_matching_claims_exit_zero():
    """Given claims equal to track + final scoring, when verified, then every player is ok and the exit status is 0."""
    result = run("verify", str(EXAMPLES / "goldmines-final.txt"), "--claimed", "red=57,blue=50")
    assert result.exit_code == 0, result.output
    assert "All claimed totals match." in result.output


def test_verify_explains_difference_by_feature():
    """Given blue claims 3 too many, when verified, then the 3-point features are named as suspects and exit is 1."""
    result = run("verify", str(EXAMPLES / "goldmines-final.txt"), "--claimed", "red=57,blue=53", "--json")
    assert result.exit_code == 1
    out = json.loads(result.output)
    blue = next(p for p in out["players"] if p["player"] == "blue")
    assert (blue["claimed"], blue["computed"], blue["difference"]) == (53, 50, 3)
    assert any("road" in s and "3 points" in s for s in blue["suspects"])
    red = next(p for p in out["players"] if p["player"] == "red")
    assert red["ok"] is True


def test_verify_goldmines_worked_example(tmp_path):
    """Given red with 102 points on the track and 7 gold bars, when verified at the end, then 123 is right (seed 001)."""
    board = board_dict(tiles=[(0, 0, "D", 0)], players=["red"], held={"red": {"gold_bars": 7}},
                       track={"red": 102}, expansions=["goldmines"])
    assert run("verify", write(tmp_path, board), "--claimed", "red=123").exit_code == 0
    wrong = run("verify", write(tmp_path, board), "--claimed", "red=116")
    assert wrong.exit_code == 1
    assert "7 gold bars counted at 2 point(s) each instead of 3" in wrong.output


BASE = {"format": "carcassonne-board/1", "game": "carcassonne", "players": ["red"],
        "tiles": [{"x": 0, "y": 0, "tile": "D", "rot": 0}]}


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda b: "{not json", r"not JSON"),
        (lambda b: {**b, "format": "carcassonne-board/9"}, r"format: .*unknown format version"),
        (lambda b: {**b, "game": "chess"}, r"game: unknown game 'chess'"),
        (lambda b: {**b, "expansions": ["dragons"]}, r"expansions\[0\]: unknown expansion 'dragons'"),
        (lambda b: {**b, "players": ["purple"]}, r"players\[0\]: unknown colour 'purple'"),
        (lambda b: {**b, "tiles": [{"x": 0, "y": 0, "tile": "Z", "rot": 0}]}, r"tiles\[0\] \(cell 0,0\): unknown tile id 'Z'"),
        (lambda b: {**b, "tiles": [{"x": 0, "y": 0, "tile": "D", "rot": 4}]}, r"tiles\[0\] \(cell 0,0\): 'rot' must be 0, 1, 2 or 3"),
        (lambda b: {**b, "tiles": b["tiles"] * 2}, r"tiles\[1\] \(cell 0,0\): two tiles on one cell"),
        (lambda b: {**b, "meeples": [{"player": "red", "x": 0, "y": 0, "at": "C"}]},
         r"meeples\[0\] \(cell 0,0\): tile D \(rot 0\) has no feature at 'C'"),
        (lambda b: {**b, "meeples": [{"player": "red", "x": 5, "y": 5, "at": "N"}]}, r"meeples\[0\] \(cell 5,5\): no tile on that cell"),
    ],
)
def test_bad_board_one_line_error_exit_2(tmp_path, mutate, message):
    """Given a malformed board, when scored, then one line names the field and cell, exit 2, no traceback."""
    path = write(tmp_path, mutate(dict(BASE)))
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run("score", path)
    assert result.exit_code == 2
    err = result.output.strip()
    assert err.startswith("error: ")
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err
    import re

    assert re.search(message, err), err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_missing_file_and_bad_claims(tmp_path):
    """Given a missing board or a malformed --claimed, when run, then exit 2 with a one-line error."""
    result = run("score", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and "cannot read board" in result.output
    path = write(tmp_path, BASE)
    bad = run("verify", path, "--claimed", "red:12")
    assert bad.exit_code == 2 and "expected colour=points" in bad.output
    other = run("verify", path, "--claimed", "blue=3")
    assert other.exit_code == 2 and "does not play on this board" in other.output


def test_verify_names_one_correction_that_explains_claims():
    """Given blue claims red's city (the meeple's colour misread), when verified, then recolouring that meeple is suggested."""
    result = run("verify", str(EXAMPLES / "base-midgame.txt"), "--completed", "--claimed", "red=12,blue=13", "--json")
    assert result.exit_code == 1
    out = json.loads(result.output)
    first = out["corrections"][0]
    assert first["totals"]["red"] == 12 and first["totals"]["blue"] == 13
    assert first["command"].endswith("meeple 0,0 red N --colour blue")


@pytest.mark.parametrize("given, message", [
    ("red", "a game has at least 2 players"),
    ("red,red", "a colour is listed twice"),
    ("", "give the colours in turn order"),
    (",,,", "give the colours in turn order"),
    ("red,purple", "unknown colour 'purple'"),
])
def test_players_for_a_photo_are_checked_before_it_is_read(tmp_path, given, message):
    """--players limits the colours figures are read as: a list that would lose figures is refused."""
    photo = tmp_path / "table.jpg"
    photo.write_bytes(b"not read")  # refused before the photo is opened
    res = run("score", str(photo), "--players", given)
    assert res.exit_code == 2
    assert message in res.output and "Traceback" not in res.output
    assert photo.read_bytes() == b"not read" and sorted(p.name for p in tmp_path.iterdir()) == ["table.jpg"]


def test_verify_without_a_score_track_says_so_first(tmp_path):
    """A board read from a photo has no track: a differing claim is compared with the scoring alone, and told."""
    board = board_dict(tiles=[(0, 0, "D", 0)], players=["red", "blue"])
    path = write(tmp_path, board)
    result = run("verify", path, "--claimed", "red=40,blue=3")
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert first.startswith("note: ") and "records no score track" in first
    assert f"scorer fix {path} track red=...,blue=..." in first
    tracked = write(tmp_path, {**board, "track": {"red": 10, "blue": 3}}, "tracked.json")
    assert "records no score track" not in run("verify", tracked, "--claimed", "red=40,blue=3").output


@pytest.mark.parametrize("game, tiles, track, mode, note", [
    ("carcassonne", [(0, 0, "D", 0)], {}, "completed", "does not show the score track: the totals are this scoring"),
    ("goldrush", [(0, 0, "GR05", 0)], {}, "final", "held red ore_points=5"),
    ("carcassonne", [(0, 0, "D", 0)], {"red": 4, "blue": 0}, "final", None),
])
def test_photo_summary_says_what_a_photo_cannot_show(tmp_path, game, tiles, track, mode, note):
    from scorer.board import Board
    from scorer.photoscore import PhotoScore
    from scorer.scoring import score

    board = Board.from_dict(board_dict(game=game, tiles=tiles, players=["red", "blue"], track=track))
    text = PhotoScore("table.jpg", score(board, mode), tmp_path / "table.jpg.board.json", None, {}).summary()
    if note is None:
        assert "does not show" not in text
    else:
        assert note in text and f"scorer fix {tmp_path / 'table.jpg.board.json'} track red=37,blue=52" in text
