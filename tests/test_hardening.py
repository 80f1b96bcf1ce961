"""Hardening: what a newcomer's first tries turned up, one section per finding.

Each test gives a bad or unusual input and checks the exact outcome: a one-line
``error: ...`` with exit status 2 (and files left as they were), a reported
problem, or the text a report prints.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner
from helpers import board_dict, make_board

from scorer import fileio
from scorer.board import Board, read_board
from scorer.cli import main
from scorer.corrections import apply_correction, history, undo
from scorer.errors import BoardFormatError, NotationError, ScorerError
from scorer.notation import parse_notation
from scorer.render.topdown import render_board
from scorer.scoring import distribute, score
from scorer.textreport import award_text, format_report

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# Red's knight on D (0,0) and blue's thief on U (-1,0); E (0,-1) closes red's city.
TABLE = dict(tiles=[(0, 0, "D", 0), (0, -1, "E", 2), (-1, 0, "U", 0)],
             meeples=[("red", 0, 0, "N"), ("blue", -1, 0, "W")],
             players=["red", "blue"], active="blue", last_placed=(0, -1), track={"red": 10, "blue": 3})


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def one_error(result, exit_code: int = 2) -> str:
    """The single ``error:`` line of a failed command (stdout empty, no traceback)."""
    assert result.exit_code == exit_code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path


def table_file(tmp_path: Path, name: str = "board.json") -> Path:
    return write_json(tmp_path / name, board_dict(**TABLE))


# =========================================================================== 1. synth keeps earlier files


def test_synth_keeps_the_earlier_photo_when_the_sidecar_cannot_be_written(tmp_path):
    board = table_file(tmp_path)
    photo = tmp_path / "p.jpg"
    photo.write_bytes(b"earlier photo")
    (tmp_path / "p.jpg.truth.json").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    err = one_error(run("synth", board, "-o", photo, "--megapixels", "0.05"))
    assert err == f"error: cannot write {str(tmp_path / 'p.jpg.truth.json')!r}: it is a folder; give a file name"
    assert photo.read_bytes() == b"earlier photo"
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_write_atomic_group_puts_earlier_files_back_when_a_rename_fails(tmp_path, monkeypatch):
    a, b = tmp_path / "a.jpg", tmp_path / "a.jpg.truth.json"
    a.write_text("old photo")
    b.write_text("old truth")
    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(Path(dst).name)
        if Path(dst) == a and not str(src).endswith(".bak"):
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(fileio.os, "replace", flaky)
    with pytest.raises(ScorerError, match=r"^cannot write '.*a\.jpg': Permission denied$"):
        fileio.write_atomic_group([(b, "new truth"), (a, b"new photo")])
    assert (a.read_text(), b.read_text()) == ("old photo", "old truth")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg", "a.jpg.truth.json"]
    assert calls[:2] == ["a.jpg.truth.json", "a.jpg"]


def test_write_atomic_group_writes_both(tmp_path):
    paths = fileio.write_atomic_group([(tmp_path / "x.json", "{}"), (tmp_path / "x.jpg", b"\xff\xd8")])
    assert [p.read_bytes() for p in paths] == [b"{}", b"\xff\xd8"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.jpg", "x.json"]


# =========================================================================== 2. undo by content


def _meeples(path: Path) -> list[tuple]:
    return [(m.player, m.x, m.y, m.at) for m in read_board(path).meeples]


def test_undo_finds_the_figure_by_content_after_a_hand_edit(tmp_path):
    path = table_file(tmp_path)
    ok = run("fix", path, "meeple", "-1,0", "red", "NL")
    assert ok.exit_code == 0, ok.output
    assert _meeples(path) == [("red", 0, 0, "N"), ("blue", -1, 0, "W"), ("red", -1, 0, "NL")]
    d = json.loads(path.read_text())
    del d["meeples"][0]  # by hand: red's knight taken off
    path.write_text(json.dumps(d, indent=1))
    result = run("undo", path)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "undone: red meeple added at -1,0 NL"
    assert _meeples(path) == [("blue", -1, 0, "W")]


def test_fix_says_which_scoring_it_shows(tmp_path):
    """A board does not remember the mode: fix re-scores mid-game unless told --final, and says so."""
    path = table_file(tmp_path)
    mid = run("fix", path, "meeple", "-1,0", "red", "NL")
    assert mid.exit_code == 0 and "scored mid-game" in mid.output and "add --final" in mid.output
    end = run("fix", path, "meeple", "-1,0", "red", "NL", "--remove", "--final")
    assert end.exit_code == 0, end.output
    assert "scored mid-game" not in end.output


def test_undo_refuses_when_the_figure_it_added_was_removed_by_hand(tmp_path):
    path = table_file(tmp_path)
    assert run("fix", path, "meeple", "-1,0", "red", "NL").exit_code == 0
    d = json.loads(path.read_text())
    d["meeples"] = [m for m in d["meeples"] if m["at"] != "NL"]
    path.write_text(json.dumps(d, indent=1))
    before = path.read_bytes()
    err = one_error(run("undo", path))
    assert err == ("error: the board was edited by hand since this change (red meeple added at -1,0 NL); "
                   "undo refused: the red meeple at -1,0 NL is no longer there")
    assert path.read_bytes() == before


def test_undo_in_the_library_refuses_a_changed_value():
    board = make_board(**TABLE)
    after = apply_correction(board, "set_track", {"points": {"red": 20}})
    edited = Board.from_dict({**after.to_dict(), "track": {"red": 25, "blue": 3}})
    with pytest.raises(ScorerError, match=r"undo refused: 'track' is now \{\"blue\": 3, \"red\": 25\}, "
                                          r"the change left \{\"blue\": 3, \"red\": 20\}$"):
        undo(edited)
    assert undo(after).to_dict() == board.to_dict()


def test_undo_of_a_hand_written_file_keeps_edits_made_elsewhere(tmp_path):
    path = table_file(tmp_path)  # json.dumps: not the tools' layout, so the change keeps the file's text
    assert run("fix", path, "gold", "0,0", "1").exit_code == 0
    assert "file" in history(read_board(path))[-1]
    d = json.loads(path.read_text())
    d["track"]["blue"] = 30  # by hand, elsewhere
    path.write_text(json.dumps(d))
    assert run("undo", path).exit_code == 0
    again = read_board(path)
    assert (again.gold, again.track, history(again)) == ([], {"red": 10, "blue": 30}, [])


# =========================================================================== 3. bounds


@pytest.mark.parametrize("change, message", [
    (dict(gold=[(0, 0, 10 ** 23)], expansions=["goldmines"]),
     "gold[0] (cell 0,0): 'count' must be at most 100 gold bars on one tile, got 100000000000000000000000"),
    (dict(gold=[(0, 0, 60), (0, 0, 60)], expansions=["goldmines"]),
     "gold[1] (cell 0,0): 120 gold bars on one tile in all; at most 100 fit on a tile"),
    (dict(track={"red": 100_001}), "track: 'red' must be at most 100000 points, got 100001"),
    (dict(held={"red": {"gold_bars": 10 ** 9}}), "held.red: 'gold_bars' must be at most 100000, got 1000000000"),
    (dict(tiles=[(0, 0, "D", 0), (10_001, 0, "E", 0)]),
     "tiles[1] (cell 10001,0): 'x' must be between -10000 and 10000, got 10001; cells count tiles from the "
     "start tile, so this one looks mistyped"),
])
def test_board_bounds_name_field_and_cell(change, message):
    obj = board_dict(**{**TABLE, "meeples": [], "last_placed": None, **change})
    with pytest.raises(BoardFormatError) as info:
        Board.from_dict(obj)
    assert str(info.value) == message


def test_notation_gets_the_same_bounds():
    with pytest.raises(NotationError, match=r"^line 2: figure 'gold=1000': 'count' must be at most 100 gold bars "
                                            r"on one tile, got 1000 in '0,0 D 0 gold=1000'$"):
        parse_notation("game carcassonne goldmines\n0,0 D 0 gold=1000\n")
    with pytest.raises(NotationError, match=r"^line 1: cell '1{20},0' is far too large; check the cell"):
        parse_notation("1" * 20 + ",0 D 0\n")


def test_fix_with_a_huge_count_is_one_line_and_quick(tmp_path):
    path = table_file(tmp_path)
    before = path.read_bytes()
    start = time.perf_counter()
    err = one_error(run("fix", path, "gold", "0,0", "100000000000000000000000"))
    assert err == "error: the number of gold bars is far too large ('1000000000000000...); at most 100 lie on a tile"
    err = one_error(run("fix", path, "gold", "0,0", "101"))
    assert err.endswith("gold[0] (cell 0,0): 'count' must be at most 100 gold bars on one tile, got 101")
    assert time.perf_counter() - start < 5
    assert path.read_bytes() == before


def _token_walk(piles, order):
    """The token-by-token distribution (the reference the fast one must equal)."""
    left, claim = {}, {}
    for key, count, claimants in piles:
        if count > 0 and claimants:
            left[key] = left.get(key, 0) + count
            claim[key] = list(dict.fromkeys(claimants))
    ranked = sorted(claim, key=lambda k: -len(claim[k]))
    seats = list(order) + [c for k in ranked for c in claim[k] if c not in order]
    taken: dict = {}
    while any(left[k] for k in ranked):
        for player in seats:
            for k in ranked:
                if left[k] and player in claim[k]:
                    left[k] -= 1
                    taken.setdefault(player, {}).setdefault(k, 0)
                    taken[player][k] += 1
                    break
    return taken


def test_distribute_equals_the_token_walk_and_is_fast_for_huge_piles():
    rng = random.Random(7)
    colours = ["red", "blue", "green", "yellow", "black"]
    for _ in range(500):
        order = rng.sample(colours, rng.randint(0, 5))
        piles = [(rng.randint(0, 3), rng.randint(0, 25), rng.sample(colours, rng.randint(0, 3)))
                 for _ in range(rng.randint(0, 4))]
        assert distribute(piles, order) == _token_walk(piles, order)
    start = time.perf_counter()
    assert distribute([("a", 10 ** 23 + 1, ["red", "blue"]), ("b", 5, ["blue"])], ["blue", "red"]) == {
        "blue": {"a": 5 * 10 ** 22 + 1, "b": 5}, "red": {"a": 5 * 10 ** 22}}
    assert time.perf_counter() - start < 0.5


# =========================================================================== 4. far-apart tiles


def test_render_refuses_a_picture_of_far_apart_tiles(tmp_path):
    board = make_board([(0, 0, "D", 0), (5000, 0, "D", 0)])
    with pytest.raises(ScorerError, match=r"^the board spans 5001 x 1 cells \(0,0 to 5000,0\); a picture of at most "
                                          r"200 x 200 cells is drawn; the cell coordinates look mistyped"):
        render_board(board, tile_px=16)
    path = tmp_path / "far.txt"
    path.write_text("0,0 D 0\n5000,0 D 0\n")
    for args in (["render", path, "-o", tmp_path / "top.png"], ["sheet", path, "-o", tmp_path / "s.html"]):
        assert "the board spans 5001 x 1 cells" in one_error(run(*args))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["far.txt"]


def test_render_refuses_too_many_pixels():
    board = make_board([(x, 0, "U", 0) for x in range(60)])
    with pytest.raises(ScorerError, match=r"^the picture would be 61440 x 1024 pixels \(63 megapixels; at most 60"):
        render_board(board, tile_px=1024)


def test_a_tile_touching_no_other_is_isolated_but_a_lone_start_tile_is_fine():
    board = make_board([(0, 0, "D", 0), (0, -1, "E", 2), (3, 3, "B", 0)])
    found = [p for p in score(board).problems if p["kind"] == "isolated"]
    assert found == [{"kind": "isolated", "cell": [3, 3],
                      "message": "tile 3,3 touches no other tile; every tile is placed next to one on the table, "
                                 "so check its cell (x grows east, y grows south)"}]
    assert score(make_board([(0, 0, "D", 0)])).problems == []


# =========================================================================== 5. camera


@pytest.mark.parametrize("value", ["-1", "99999999999999999999", "64"])
def test_camera_index_is_checked(value):
    err = one_error(run("score", "--camera", value))
    assert err == (f"error: Invalid value for '--camera': {value} is not in the range 0<=x<=63 "
                   "(see scorer score --help)")


def test_opencv_warnings_are_silenced_for_the_camera():
    from scorer.cliutil import quiet_opencv

    level = cv2.utils.logging.getLogLevel()
    try:
        quiet_opencv()
        assert cv2.utils.logging.getLogLevel() == cv2.utils.logging.LOG_LEVEL_ERROR
    finally:
        cv2.utils.logging.setLogLevel(level)


# =========================================================================== 6. tracebacks


@pytest.mark.parametrize("command", [["generate"], ["synth", "--generate", "1", "--out-dir", "out"]])
def test_negative_seed_is_a_usage_error(command):
    err = one_error(run(*command, "--seed", "-1"))
    assert err == f"error: Invalid value for '--seed': -1 is not in the range x>=0 (see scorer {command[0]} --help)"


def test_synth_generate_into_a_folder_that_cannot_be_made(tmp_path):
    (tmp_path / "afile").write_text("x")
    err = one_error(run("synth", "--generate", "1", "--out-dir", tmp_path / "afile" / "set", "--megapixels", "0.05"))
    assert err == (f"error: --out-dir {str(tmp_path / 'afile' / 'set')!r}: cannot create the folder: "
                   f"{str(tmp_path / 'afile')!r} is a file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_write_atomic_turns_a_failed_rename_into_one_line(tmp_path, monkeypatch):
    target = tmp_path / "b.json"
    target.write_text("earlier")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileio.os, "replace", refuse)
    with pytest.raises(ScorerError) as info:
        fileio.write_atomic(target, "new")
    assert str(info.value) == f"cannot write {str(target)!r}: Permission denied"
    assert target.read_text() == "earlier"
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]


def test_write_atomic_refuses_a_folder(tmp_path):
    with pytest.raises(ScorerError, match=r"it is a folder; give a file name$"):
        fileio.write_atomic(tmp_path, "x")


# =========================================================================== 7. click's usage errors


@pytest.mark.parametrize("args, message", [
    (["score", "--bogus"], "No such option '--bogus'. Did you mean '--jobs'? (see scorer score --help)"),
    (["score", "b.json", "--game", "chess"],
     "Invalid value for '--game': 'chess' is not one of 'carcassonne', 'goldrush' (see scorer score --help)"),
    (["verify", "b.json"], "Missing option '--claimed' (see scorer verify --help)"),
    (["render", "b.json", "-o", "t.png", "--tile-px", "5"],
     "Invalid value for '--tile-px': 5 is not in the range 16<=x<=1024 (see scorer render --help)"),
    (["score", "."], "Invalid value for 'BOARD|PHOTO...': File '.' is a directory (see scorer score --help)"),
    (["bogus"], "No such command 'bogus' (see scorer --help)"),
    (["fix", "b.json", "tile"], "Missing argument 'X,Y' (see scorer fix BOARD tile --help)"),
    (["undo", "b.json", "--steps", "x"],
     "Invalid value for '--steps': 'x' is not a valid integer (see scorer undo --help)"),
])
def test_click_usage_errors_are_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    table_file(tmp_path, "b.json")
    assert one_error(run(*args)) == f"error: {message}"


def test_help_is_unchanged_by_the_one_line_errors():
    result = run("score", "--help")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: main score [OPTIONS] BOARD|PHOTO...\n\n  Score a typed board")
    assert "scorer calibrate" in result.stdout
    bare = run()
    assert bare.output.startswith("Usage: main [OPTIONS] COMMAND [ARGS]...")


# =========================================================================== 8. silently accepted input


@pytest.mark.parametrize("text", ["", "  \n\t\n", "game carcassonne\nplayers red blue\n# no tiles\n"])
@pytest.mark.parametrize("command", [["score"], ["verify", "--claimed", "red=1"], ["sheet", "-o", "s.html"],
                                     ["render", "-o", "t.png"]])
def test_a_board_without_tiles_is_an_error(tmp_path, monkeypatch, text, command):
    monkeypatch.chdir(tmp_path)
    Path("empty.txt").write_text(text)
    name, *rest = command
    err = one_error(run(name, "empty.txt", *rest))
    assert err == ("error: empty.txt: the board has no tiles; a board lists at least the start tile (text notation: "
                   "a line 'X,Y TILE ROT' such as '0,0 D 0'; JSON: the 'tiles' list)")
    assert sorted(os.listdir()) == ["empty.txt"]


def test_fix_may_place_the_first_tile_of_an_empty_board(tmp_path):
    path = tmp_path / "new.txt"
    path.write_text("game carcassonne\nplayers red blue\n")
    result = run("fix", path, "tile", "0,0", "D", "0")
    assert result.exit_code == 0, result.output
    assert [(c, p.tile.id) for c, p in read_board(path).tiles.items()] == [((0, 0), "D")]


def test_unknown_rules_are_errors_in_json_and_notation():
    with pytest.raises(BoardFormatError) as info:
        Board.from_dict(board_dict([(0, 0, "D", 0)], rules={"farmer": "3rd"}))
    assert str(info.value) == "rules.farmer: unknown rule 'farmer'; known rules: small_city, farmers"
    with pytest.raises(NotationError) as info:
        parse_notation("rules farmer=3rd\n0,0 D 0\n")
    assert str(info.value) == ("line 1: rules farmer: unknown rule 'farmer'; known rules: small_city, farmers "
                               "in 'rules farmer=3rd'")


def test_pieces_of_another_game_are_problems_gold_still_scored():
    """Given Gold Rush pieces and gold bars on a base board without The Goldmines listed,
    when scored, then the Gold Rush pieces are problems and ignored, and the gold bars are
    reported but still handed out (the table shows The Goldmines is played)."""
    board = parse_notation("game carcassonne\nplayers red blue\nactive red\nlast 0,-1\n"
                           "0,0 D 0 red@N gold=2 tent:red@W ore@S=1\n0,-1 E 2 sheriff@N\n")
    report = score(board)
    assert report.points == {"red": 4, "blue": 0}
    assert report.awards == [{"player": "red", "token": "gold", "count": 2, "from": [[0, 0], [0, 0]]}]
    assert [(p["kind"], p["cell"]) for p in report.problems] == [
        ("foreign_piece", [0, 0]), ("foreign_piece", [0, -1]), ("foreign_piece", [0, 0]),
        ("gold_without_goldmines", [0, 0])]
    assert report.problems[0]["message"] == ("the red tent at W of tile 0,0: tents belong to Gold Rush; "
                                             "this board is carcassonne (not scored)")
    assert report.problems[3]["message"] == (
        "2 gold bars on tile 0,0 but the board does not list The Goldmines; add 'goldmines' to the expansions "
        "(the game line) or remove them; they are scored as The Goldmines meanwhile")
    final = score(Board.from_dict(board_dict([(0, 0, "D", 0)], players=["red"], held={"red": {"gold_bars": 7}})),
                  "final")
    assert final.points == {"red": 21}
    assert [p["kind"] for p in final.problems] == ["gold_without_goldmines"]


def test_gold_bars_on_a_gold_rush_board_are_a_problem():
    board = make_board([(0, 0, "GR22", 0)], game="goldrush", players=["red"], gold=[(0, 0, 1)])
    assert [(p["kind"], p["message"]) for p in score(board, "final").problems] == [
        ("foreign_piece", "1 gold bar on tile 0,0: gold bars belong to The Goldmines (base Carcassonne); "
                          "this board is goldrush (not scored)")]


def test_track_and_held_colours_that_are_not_players_are_problems():
    board = make_board([(0, 0, "D", 0)], players=["red", "blue"], expansions=["goldmines"],
                       track={"red": 3, "green": 4}, held={"yellow": {"gold_bars": 2}})
    assert [(p["kind"], p["cell"], p["message"]) for p in score(board).problems] == [
        ("unknown_player", None, "the score track lists green (4 points), who is not a player (red, blue); "
                                 "add the player or correct the colour"),
        ("unknown_player", None, "yellow holds 2 gold bars but is not a player (red, blue); "
                                 "add the player or correct the colour")]


@pytest.mark.parametrize("args, message", [
    (["render", "b.json", "-o", "top.bmp"],
     "-o 'top.bmp': cannot encode a picture as .bmp; name it .png, .jpg or .jpeg"),
    (["tiles", "--draw", "A", "-o", "tile"],
     "-o 'tile': cannot encode a picture as a file without extension; name it .png, .jpg or .jpeg"),
    (["tiles", "--sheet", "--art-dir", "nodir", "-o", "s.png"], "--art-dir 'nodir' is not a folder"),
    (["tiles", "-o", "x.png"], "-o 'x.png': say what to draw, --draw ID or --sheet (the listing is printed)"),
    (["score", "b.json", "--players", "red,blue"],
     "--players applies to photos only; b.json is a typed board, which says its game and players itself "
     "(change them with scorer fix)"),
    (["score", "b.json", "--game", "goldrush", "--jobs", "2"],
     "--game, --jobs apply to photos only; b.json is a typed board, which says its game and players itself "
     "(change them with scorer fix)"),
    (["score", "b.json", "--camera", "0"],
     "--camera applies to photos only; b.json is a typed board, which says its game and players itself "
     "(change them with scorer fix)"),
    (["verify", "b.json", "--claimed", "red=-5"], "--claimed: points are 0 or more, got red=-5"),
    (["generate", "--players", "red", "--seed", "1"],
     "--players: a game needs at least 2 players, got 'red'; e.g. --players red,blue"),
])
def test_bad_options_are_one_line_errors(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    table_file(tmp_path, "b.json")
    assert one_error(run(*args)) == f"error: {message}"
    assert sorted(os.listdir()) == ["b.json"]


# =========================================================================== 9. messages


def test_a_json_board_with_a_byte_order_mark_is_read_as_json(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes("\ufeff".encode() + json.dumps(board_dict(**TABLE)).encode())
    assert read_board(path).to_dict() == make_board(**TABLE).to_dict()
    assert run("score", path).exit_code == 0


def test_a_json_array_is_told_it_must_be_an_object(tmp_path):
    path = write_json(tmp_path / "arr.json", [board_dict(**TABLE)])
    assert one_error(run("score", path)) == ('error: arr.json: the board must be a JSON object '
                                             '{"format": "carcassonne-board/1", ...}, got a JSON array')


def test_long_input_is_quoted_in_at_most_80_characters():
    with pytest.raises(NotationError) as info:
        parse_notation("x" * 500 + "\n")
    quoted = "'" + "x" * 77 + "...'"
    assert str(info.value).startswith(f"line 1: unknown line start {quoted}; a line is a header")
    assert str(info.value).endswith(f" in {quoted}")
    with pytest.raises(BoardFormatError) as info:
        Board.from_dict({**board_dict([(0, 0, "D", 0)]), "game": "g" * 300})
    assert str(info.value) == f"game: unknown game '{'g' * 76}...; expected one of carcassonne, goldrush"


def test_error_lines_of_every_module_cut_long_quotes(tmp_path):
    from scorer.cliutil import one_line

    tally = tmp_path / "tally.txt"
    tally.write_text("red gold=" + "x" * 300 + "\nblue gold=1\n")
    err = one_error(run("goldland", tally))
    assert err == (f"error: {tally}: line 1 ('red gold=" + "x" * 66 + "...'): gold='" + "x" * 75
                   + "...' is not a whole number; fix the count")
    deep = "/" + "/".join(f"folder{i}" for i in range(20)) + "/p.jpg"
    assert one_line(f"cannot write '{deep}': it is a folder") == f"cannot write '{deep}': it is a folder"
    assert one_line("two\nlines " + "w" * 100) == "two lines " + "w" * 77 + "..."


@pytest.mark.parametrize("text, line", [
    ('game carcassonne\ntile my {"features": [{"kind": "rail", "edges": ["N", "S"]}]}\n0,0 my 0\n', 2),
    ('tile my {"features": [{"kind": "rail", "edges": ["N", "S"]}]}\ngame carcassonne\n0,0 my 0\n', 1),
])
def test_a_rail_on_a_carcassonne_board_is_named(text, line):
    with pytest.raises(NotationError, match=rf"^line {line}: tile 'my': rail belongs to Gold Rush; this board is "
                                            r"carcassonne \(its tiles have city, road, river, field, cloister\)"):
        parse_notation(text)
    obj = board_dict([(0, 0, {"name": "my", "features": [{"kind": "town"}]}, 0)])
    with pytest.raises(BoardFormatError, match=r"^tiles\[0\] \(cell 0,0\): town belongs to Gold Rush; "
                                               r"this board is carcassonne"):
        Board.from_dict(obj)


def test_interactive_goldland_at_end_of_input_is_one_line():
    result = run("goldland", input="2\nred\n3\n")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[-1] == ("error: the input ended before the tally was complete; answer every "
                                              "question, or give the tally in a FILE (see scorer goldland --help)")


def test_interactive_goldland_asks_on_stderr():
    answers = "2\nred\n3\n0\n0\n\n\nblue\n1\n0\n0\n\n\n"
    result = run("goldland", input=answers)
    assert result.exit_code == 0, result.output
    assert "Number of players" in result.stderr and "Number of players" not in result.stdout
    assert result.stdout.splitlines()[-1] == "Winner: red"


# =========================================================================== 10. docs


def test_board_format_ships_with_the_project():
    doc = (ROOT / "docs" / "board-format.md").read_text()
    assert doc.startswith("# Board file format `carcassonne-board/1` (JSON)")
    assert "| `held.<colour>.ore_tokens` |" in doc
    readme = (ROOT / "README.md").read_text()
    assert "[`docs/board-format.md`](docs/board-format.md)" in readme
    assert "examples/goldland-tally.txt" in readme
    assert "River I and II combined" in readme


def test_the_goldland_example_scores():
    result = run("goldland", EXAMPLES / "goldland-tally.txt", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    ranking = json.loads(result.stdout)["ranking"]
    assert [(r["player"], r["place"], r["total"]) for r in ranking] == [("red", 1, 22), ("blue", 2, 16),
                                                                        ("green", 2, 16)]


# =========================================================================== 11. cosmetics


def test_text_report_counts_in_words():
    board = make_board([(0, 0, "E", 0), (0, -1, "E", 2)], [("red", 0, 0, "N"), ("red", 0, 0, "S")],
                       players=["red"], expansions=["goldmines"], gold=[(0, 0, 1)],
                       rules={"farmers": "1st"}, held={"red": {"gold_bars": 0}})
    text = format_report(score(board, "final"))
    assert "city     complete  red       4  0,-1 0,0  2 tiles" in text
    assert "field    open      red       4  0,0       1 city, 1st edition, farmers red 1" in text
    assert "  red: 1 gold bar -> 1 point" in text
    assert "  red takes 1 gold bar from 0,0" in text
    assert "{" not in text


def test_awards_list_each_cell_once():
    assert award_text({"player": "red", "token": "gold", "count": 2, "from": [[0, 0], [0, 0]]}) == \
        "red takes 2 gold bars from 0,0"
    assert award_text({"player": "red", "token": "gold", "count": 3, "from": [[0, 0], [0, 0], [1, 0]]}) == \
        "red takes 3 gold bars: 2 from 0,0, 1 from 1,0"
    assert award_text({"player": "blue", "token": "ore", "count": 1, "from": [[0, 0], [1, 0]]}) == \
        "blue takes 1 ore token from the mountain at 0,0 1,0"


def test_gold_rush_problems_say_cowboy_and_prairie():
    board = make_board([(0, 0, "GR22", 0), (0, 1, "GR01", 1)], [("red", 0, 0, "W"), ("blue", 0, 0, "E")],
                       game="goldrush", players=["red", "blue"], last_placed=(0, 0))
    messages = [p["message"] for p in score(board).problems]
    assert messages[:3] == [
        "tiles 0,0 and 0,1 do not match: side S shows a prairie, the facing side shows a rail; "
        "check both tiles and their rotations",
        "2 cowboys on tile 0,0 (red at W, blue at E); only one can be placed on a tile",
        "the cowboy red at W of tile 0,0 stands on a mountain that already holds blue at E of tile 0,0; "
        "a cowboy may not join an occupied feature"]
    assert not any("meeple" in m or "field" in m for m in messages)


def test_sheriff_note_with_one_owner():
    board = make_board([(0, 0, "GR22", 0), (1, 0, "GR22", 0)], [("red", 0, 0, "W")], game="goldrush",
                       expansions=["sheriff"], players=["red", "blue"], sheriff=(1, 0, "E"), ore=[(1, 0, "E", 3)])
    notes = score(board, "final").notes
    assert ("the Sheriff stands on the incomplete mountain at 0,0 1,0 at the end of the game: its owner red "
            "takes its 3 ore tokens") in notes
    assert not any("each" in n for n in notes)


def test_fix_keeps_crlf_line_endings_and_a_byte_order_mark(tmp_path):
    path = tmp_path / "b.txt"
    original = ("\ufeff# typed on Windows\r\ngame carcassonne\r\nplayers red blue\r\n\r\n"
                "0,0 D 0 red@N\r\n0,-1 E 2\r\n").encode()
    path.write_bytes(original)
    result = run("fix", path, "meeple", "0,-1", "blue", "S")
    assert result.exit_code == 0, result.output
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# typed on Windows\r\ngame carcassonne\r\n")
    assert b"0,-1 E 2 blue@S\r\n" in data
    assert data.count(b"\n") == data.count(b"\r\n")
    assert run("undo", path).exit_code == 0
    assert path.read_bytes() == original


def test_mid_game_scoring_without_a_last_tile_says_so():
    board = make_board(**{**TABLE, "last_placed": None})
    report = score(board)
    assert report.points == {"red": 4, "blue": 0}
    assert report.notes == ["no last tile given: scored every complete feature still holding figures"]
    assert "note: no last tile given" in format_report(report)
    assert score(make_board(**TABLE)).notes == []


def test_photos_that_are_not_images_are_named_by_their_path_once(tmp_path):
    """One bad photo or several: each error names the file as given, once, and nothing is written."""
    a, b = tmp_path / "a.jpg", tmp_path / "b.jpg"
    a.write_text("not a photo")
    b.write_text("nor this")
    one = run("score", str(a))
    assert one.exit_code == 2
    assert one_error(one) == f"error: {a}: not an image (expected a JPEG, PNG or HEIC photo)"
    both = run("score", str(a), str(b))
    assert both.exit_code == 2
    lines = [line for line in both.output.splitlines() if line.startswith("error:")]
    assert lines == [f"error: {p}: not an image (expected a JPEG, PNG or HEIC photo)" for p in (a, b)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jpg", "b.jpg"]
