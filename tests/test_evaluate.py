"""Tests of the accuracy harness (``scorer evaluate``): exact comparisons on hand-made boards."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from scorer import scoring
from scorer.board import Board, read_board
from scorer.errors import BoardFormatError, ScorerError
from scorer.evaluate import (
    best_offset,
    compare_boards,
    evaluate_dir,
    find_photos,
    same_tile,
    translate,
)
from scorer.evaluate_cli import evaluate

# --------------------------------------------------------------------------- helpers

#: A five-tile board: E (city S) above D (city N, road W-E), V (road N-E) west of D,
#: U (road W-E) east of D, A (cloister, road W) east of U.
TILES = [(0, -1, "E", 2), (0, 0, "D", 0), (-1, 0, "V", 2), (1, 0, "U", 0), (2, 0, "A", 1)]
MEEPLES = [("red", 0, -1, "S"), ("blue", 1, 0, "N"), ("red", 2, 0, "C"), ("blue", -1, 0, "N")]


def board_dict(tiles=TILES, meeples=MEEPLES, *, tents=(("red", 0, 0, "E"),), sheriff=(0, 0, "W"),
               gold=((1, 0, 2),), ore=((2, 0, "C", 3),), shift=(0, 0), **extra) -> dict:
    dx, dy = shift
    out = {
        "format": "carcassonne-board/1",
        "game": "carcassonne",
        "players": ["red", "blue"],
        "tiles": [{"x": x + dx, "y": y + dy, "tile": t, "rot": r} for x, y, t, r in tiles],
        "meeples": [{"player": p, "x": x + dx, "y": y + dy, "at": a} for p, x, y, a in meeples],
        "tents": [{"player": p, "x": x + dx, "y": y + dy, "at": a} for p, x, y, a in tents],
        "sheriff": None if sheriff is None else {"x": sheriff[0] + dx, "y": sheriff[1] + dy, "at": sheriff[2]},
        "gold": [{"x": x + dx, "y": y + dy, "count": n} for x, y, n in gold],
        "ore": [{"x": x + dx, "y": y + dy, "at": a, "count": n} for x, y, a, n in ore],
    }
    out.update(extra)
    return out


def make_board(*args, **kwargs) -> Board:
    return Board.from_dict(board_dict(*args, **kwargs))


def meeple_count(board: Board, mode: str) -> dict[str, int]:
    """A stand-in scoring: 1 point per meeple of each colour (the real rules are tested elsewhere)."""
    out: dict[str, int] = {}
    for m in board.meeples:
        out[m.player] = out.get(m.player, 0) + 1
    return out


def compare(truth: Board, pred: Board, **kw):
    kw.setdefault("score_fn", meeple_count)
    return compare_boards(truth, pred, **kw)


def single(tile: str, rot: int, **kw) -> Board:
    return make_board([(0, 0, tile, rot)], [], tents=(), sheriff=None, gold=(), ore=(), **kw)


FRACTIONS = ("occupancy_accuracy", "tile_accuracy", "figure_precision", "figure_recall", "colour_accuracy",
             "location_accuracy", "gold_accuracy", "ore_accuracy")


# --------------------------------------------------------------------------- compare_boards


def test_identical_boards_are_right_everywhere():
    # given the truth and an identical prediction
    truth, pred = make_board(), make_board()
    # when compared
    c = compare(truth, pred)
    # then every figure is 100 % and nothing is listed as an error
    assert c.offset == (0, 0)
    assert c.grid_found and c.board_right and c.scores_right is True
    assert {name: getattr(c, name) for name in FRACTIONS} == dict.fromkeys(FRACTIONS, 1.0)
    assert c.tile_error == 0.0
    assert (c.truth_tiles, c.tiles_right, c.occupancy_cells) == (5, 5, 21)
    assert (c.figures_truth, c.figures_pred, c.figures_matched) == (6, 6, 6)
    assert (c.colour_total, c.location_total) == (5, 6)  # the Sheriff has no colour
    assert c.scores_truth == c.scores_pred == {"red": 2, "blue": 2}
    assert c.occupancy_errors == c.tile_errors == c.figure_errors == c.token_errors == []


def test_translated_prediction_is_still_right():
    # given a prediction whose origin is elsewhere
    truth, pred = make_board(), make_board(shift=(7, -3))
    # when compared
    c = compare(truth, pred)
    # then the translation is found and everything is right
    assert c.offset == (-7, 3)
    assert c.board_right and c.scores_right is True
    assert {name: getattr(c, name) for name in FRACTIONS} == dict.fromkeys(FRACTIONS, 1.0)


def test_one_wrong_tile_gives_exact_per_cell_error():
    # given a prediction with W instead of U east of the start tile (the figures still fit)
    tiles = [t if t[:2] != (1, 0) else (1, 0, "W", 0) for t in TILES]
    c = compare(make_board(), make_board(tiles, shift=(2, 2)))
    # then exactly 1 of 5 cells is wrong, and only the tile
    assert c.offset == (-2, -2)
    assert (c.tiles_right, c.truth_tiles) == (4, 5)
    assert c.tile_error == pytest.approx(0.2, abs=0) and c.tile_accuracy == 0.8
    assert c.tile_errors == [{"x": 1, "y": 0, "truth": "U rot 0", "pred": "W rot 0"}]
    assert c.occupancy_accuracy == 1.0 and c.figure_recall == 1.0 and c.location_accuracy == 1.0
    assert not c.board_right


@pytest.mark.parametrize("tile, truth_rot, pred_rot, right", [
    ("U", 0, 2, True),   # straight road: half a turn gives the same tile
    ("U", 0, 1, False),
    ("C", 0, 1, True),   # city on all four sides: any rotation
    ("C", 2, 3, True),
    ("B", 1, 3, True),   # cloister in a field
    ("D", 1, 0, False),  # city on one side only
    ("D", 1, 1, True),
    ("X", 0, 3, True),
])
def test_symmetric_tiles_count_as_right(tile, truth_rot, pred_rot, right):
    c = compare(single(tile, truth_rot), single(tile, pred_rot))
    assert c.offset == (0, 0)
    assert c.tiles_right == int(right)
    assert c.board_right is right


def test_inline_tile_with_identical_features_is_right():
    # given the truth D at rot 1 and a prediction that describes D inline
    d = {"features": [{"kind": "city", "edges": ["N"]}, {"kind": "road", "edges": ["W", "E"]},
                      {"kind": "field", "edges": ["WR", "EL"], "cities": [0]},
                      {"kind": "field", "edges": ["ER", "SL", "SR", "WL"]}]}
    truth = single("D", 1)
    # then the same rotation is right, another one is not, and a different tile is not
    assert compare(truth, single(d, 1)).tiles_right == 1
    assert compare(truth, single(d, 0)).tiles_right == 0
    assert compare(truth, single({"features": [{"kind": "city", "edges": ["N"], "pennants": 1},
                                               *d["features"][1:]]}, 1)).tiles_right == 0
    # and a catalogue tile of the same features under another id is not the same tile
    assert not same_tile(truth.tiles[(0, 0)], single("U", 1).tiles[(0, 0)])


def test_missing_figure_drops_recall_by_exact_fraction():
    # given a prediction that misses the red monk
    meeples = [m for m in MEEPLES if m[3] != "C"]
    c = compare(make_board(), make_board(meeples=meeples))
    # then 5 of 6 figures are found, all predicted ones are right
    assert (c.figures_matched, c.figures_truth, c.figures_pred) == (5, 6, 5)
    assert c.figure_recall == 5 / 6 and c.figure_precision == 1.0
    assert c.figure_errors == [{"error": "missed", "kind": "meeple", "x": 2, "y": 0,
                                "truth": {"player": "red", "at": "C"}}]
    assert not c.board_right and c.scores_right is False
    # and the tiles alone are still all right
    assert c.tiles_all_right


def test_extra_figure_drops_precision():
    # given an extra tent of the wrong kind where a meeple stands
    c = compare(make_board(), make_board(tents=(("red", 0, 0, "E"), ("blue", 1, 0, "N"))))
    assert (c.figures_matched, c.figures_truth, c.figures_pred) == (6, 6, 7)
    assert c.figure_precision == 6 / 7 and c.figure_recall == 1.0
    assert c.figure_errors[0]["error"] == "extra" and c.figure_errors[0]["kind"] == "tent"


def test_wrong_colour_counts_against_colour_only():
    # given the blue farmer read as red
    meeples = [("red", 1, 0, "N") if m[1:3] == (1, 0) else m for m in MEEPLES]
    c = compare(make_board(), make_board(meeples=meeples))
    # then the figure is still found, 4 of 5 colours are right, locations all right
    assert c.figure_recall == 1.0 and c.figure_precision == 1.0
    assert (c.colour_right, c.colour_total) == (4, 5)
    assert c.location_accuracy == 1.0
    assert not c.board_right and c.scores_right is False
    assert c.scores_pred == {"red": 3, "blue": 1}


def test_side_and_half_side_of_one_field_are_the_same_location():
    # given the blue farmer on U's north field put at NL (truth: N)
    meeples = [("blue", 1, 0, "NL") if m[1:3] == (1, 0) else m for m in MEEPLES]
    c = compare(make_board(), make_board(meeples=meeples))
    # then the location is right
    assert c.location_accuracy == 1.0 and c.board_right


def test_other_field_is_a_wrong_location():
    # given the blue farmer put on U's south field
    meeples = [("blue", 1, 0, "SL") if m[1:3] == (1, 0) else m for m in MEEPLES]
    c = compare(make_board(), make_board(meeples=meeples))
    assert (c.location_right, c.location_total) == (5, 6)
    assert c.colour_accuracy == 1.0 and not c.board_right
    assert c.figure_errors == [{"error": "wrong", "kind": "meeple", "x": 1, "y": 0,
                                "truth": {"player": "blue", "at": "N"}, "pred": {"player": "blue", "at": "SL"},
                                "colour_right": True, "location_right": False}]


def test_greedy_matching_pairs_right_figures_first():
    # given two figures on one tile, predicted in the other order
    truth = make_board(meeples=[("red", 1, 0, "N"), ("blue", 1, 0, "S")], tents=(), sheriff=None)
    pred = make_board(meeples=[("blue", 1, 0, "S"), ("red", 1, 0, "N")], tents=(), sheriff=None)
    c = compare(truth, pred)
    assert c.colour_accuracy == 1.0 and c.location_accuracy == 1.0 and c.board_right


def test_extra_tile_is_an_occupancy_error():
    # given a tile read where the table is empty, next to the board and far away
    c = compare(make_board(), make_board([*TILES, (3, 0, "U", 0)]))
    far = compare(make_board(), make_board([*TILES, (10, 10, "B", 0)]))
    # then the tiles are right but occupancy is not
    assert (c.occupancy_right, c.occupancy_cells) == (20, 21)
    assert c.occupancy_errors == [{"x": 3, "y": 0, "error": "extra"}]
    assert (far.occupancy_right, far.occupancy_cells) == (21, 22)
    assert c.tile_accuracy == 1.0 and far.tile_accuracy == 1.0
    assert not c.board_right and not far.board_right


def test_missing_tile_is_an_occupancy_and_tile_error():
    tiles = [t for t in TILES if t[:2] != (-1, 0)]
    c = compare(make_board(), make_board(tiles, [m for m in MEEPLES if m[1:3] != (-1, 0)]))
    assert (c.occupancy_right, c.occupancy_cells) == (20, 21)
    assert c.tile_errors == [{"x": -1, "y": 0, "truth": "V rot 2", "pred": None}]
    assert c.figure_recall == 5 / 6


def test_gold_and_ore_counts_per_cell():
    # given one gold bar too few and ore on the wrong cell
    c = compare(make_board(), make_board(gold=((1, 0, 1),), ore=((0, 0, "N", 3),)))
    assert (c.gold_right, c.gold_cells) == (0, 1)
    assert (c.ore_right, c.ore_cells) == (0, 2)
    assert c.token_errors == [{"token": "gold", "x": 1, "y": 0, "truth": 2, "pred": 1},
                              {"token": "ore", "x": 0, "y": 0, "truth": 0, "pred": 3},
                              {"token": "ore", "x": 2, "y": 0, "truth": 3, "pred": 0}]
    assert not c.board_right


def test_empty_prediction_finds_no_grid():
    truth = make_board()
    c = compare(truth, Board(catalog=truth.catalog))
    assert not c.grid_found and not c.board_right
    assert c.tile_accuracy == 0.0 and c.figure_recall == 0.0 and c.figure_precision is None
    assert (c.occupancy_right, c.occupancy_cells) == (16, 21)


def test_best_offset_tie_break_is_deterministic():
    truth = single("U", 0)
    # two equally good offsets: the nearest wins, then the smallest dx
    assert best_offset(truth, make_board([(0, 0, "U", 0), (5, 0, "U", 0)], [], tents=(), sheriff=None,
                                         gold=(), ore=())) == (0, 0)
    assert best_offset(truth, make_board([(2, 0, "U", 0), (-2, 0, "U", 0)], [], tents=(), sheriff=None,
                                         gold=(), ore=())) == (-2, 0)
    # with no matching tile, overlap decides
    assert best_offset(truth, single("D", 0)) == (0, 0)


def test_translate_moves_everything():
    moved = translate(make_board(last_placed={"x": 2, "y": 0}), (3, -1))
    assert moved.to_dict() == make_board(shift=(3, -1), last_placed={"x": 5, "y": -1}).to_dict()


def test_scores_compared_in_the_given_mode(monkeypatch):
    # given the real scoring entry point replaced by a recorder
    modes = []

    def fake_score(board, mode="completed"):
        modes.append(mode)
        return types.SimpleNamespace(points={"red": len(board.tiles)})

    monkeypatch.setattr(scoring, "score", fake_score)
    c = compare_boards(make_board(), make_board([*TILES, (3, 0, "U", 0)]))
    assert modes == ["final", "final"]
    assert c.scores_truth == {"red": 5} and c.scores_pred == {"red": 6} and c.scores_right is False
    assert compare_boards(make_board(), make_board(), mode="completed").score_mode == "completed"
    with pytest.raises(ScorerError, match="unknown scoring mode 'halftime'"):
        compare_boards(make_board(), make_board(), mode="halftime")


def test_unscorable_truth_leaves_scores_uncompared():
    def broken(board, mode):
        raise ScorerError("no rules for game")

    c = compare(make_board(), make_board(), score_fn=broken)
    assert c.scores_right is None and c.score_note == "truth not scored (ScorerError: no rules for game)"
    assert c.board_right


@pytest.mark.skipif(importlib.util.find_spec("scorer.rules.carcassonne") is None
                    or importlib.util.find_spec("scorer.legality") is None,
                    reason="the carcassonne rule module is not written yet")
def test_real_scores_of_a_two_tile_city():
    # given a completed 2-tile city with a red knight (rules.md section 5: 2 points per tile)
    truth = make_board([(0, -1, "E", 2), (0, 0, "D", 0)], [("red", 0, -1, "S")], tents=(), sheriff=None,
                       gold=(), ore=())
    blue = make_board([(0, -1, "E", 2), (0, 0, "D", 0)], [("blue", 0, -1, "S")], tents=(), sheriff=None,
                      gold=(), ore=())
    same = compare_boards(truth, truth.copy())
    wrong = compare_boards(truth, blue)
    assert same.scores_right is True and same.scores_truth == {"red": 4, "blue": 0}
    assert wrong.scores_right is False and wrong.scores_pred == {"red": 0, "blue": 4}


# --------------------------------------------------------------------------- evaluate_dir


def _png(path: Path) -> None:
    img = np.zeros((8, 8, 3), np.uint8)
    img[2:6, 2:6] = (0, 128, 255)
    assert cv2.imwrite(str(path), img)


@pytest.fixture
def photo_dir(tmp_path: Path) -> Path:
    """Three photos in the three truth layouts, and one photo without truth."""
    _png(tmp_path / "a.png")
    (tmp_path / "a.png.truth.json").write_text(json.dumps(board_dict(
        synth={"homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "figures_px": []})))
    _png(tmp_path / "b.png")
    (tmp_path / "b.truth.json").write_text(json.dumps(board_dict(shift=(4, 4), mode="completed")))
    _png(tmp_path / "c.jpg")
    (tmp_path / "c.board.json").write_text(json.dumps(board_dict(meeples=MEEPLES[:2])))
    _png(tmp_path / "d.png")
    (tmp_path / "notes.txt").write_text("not a photo")
    return tmp_path


def _truth_of(photo: Path) -> Board:
    pairs, _ = find_photos(photo.parent)
    return read_board(dict(pairs)[photo])


def read_truth(photo: Path) -> Board:
    return _truth_of(photo)


def read_shifted(photo: Path) -> Board:
    return translate(_truth_of(photo), (-11, 6))


def test_find_photos_pairs_each_layout(photo_dir):
    pairs, missing = find_photos(photo_dir)
    assert [(p.name, t.name) for p, t in pairs] == [("a.png", "a.png.truth.json"), ("b.png", "b.truth.json"),
                                                    ("c.jpg", "c.board.json")]
    assert [m.name for m in missing] == ["d.png"]


@pytest.mark.parametrize("reader", [read_truth, read_shifted])
def test_evaluate_dir_with_truth_reader_is_right_everywhere(photo_dir, reader):
    result = evaluate_dir(photo_dir, reader=reader, score_fn=meeple_count)
    s = result.summary()
    assert [p.photo for p in result.photos] == ["a.png", "b.png", "c.jpg"]
    assert result.skipped == ["d.png"]
    assert all(p.read_ok and p.reason is None for p in result.photos)
    for key in ("grid_found", "occupancy", "tile_accuracy", "figure_precision", "figure_recall", "colour",
                "location", "gold", "ore", "boards_tiles_right", "boards_right", "scores_right"):
        assert s[key] == 1.0, key
    assert s["tile_error"] == 0.0 and s["photos"] == 3 and s["failed_reads"] == 0
    assert s["scores_compared"] == 3
    assert [p.comparison.score_mode for p in result.photos] == ["final", "completed", "final"]
    assert all(p.seconds >= 0 and p.tracemalloc_peak_mb >= 0 for p in result.photos)
    assert result.config["reader"] == f"{__name__}.{reader.__name__}"
    assert set(result.config["versions"]) >= {"python", "scorer", "numpy", "opencv"}


def test_reader_that_raises_is_a_failed_read(photo_dir):
    class TableNotFound(ScorerError):
        pass

    def failing(photo: Path) -> Board:
        if photo.name == "b.png":
            raise TableNotFound(f"{photo.name}: no table edge found; photograph the whole table from above")
        return read_truth(photo)

    result = evaluate_dir(photo_dir, reader=failing, score_fn=meeple_count, trace_memory=False)
    b = result.photos[1]
    assert not b.read_ok and not b.comparison.grid_found
    assert b.reason == "TableNotFound: b.png: no table edge found; photograph the whole table from above"
    assert b.comparison.tile_accuracy == 0.0 and b.comparison.figure_recall == 0.0
    assert b.tracemalloc_peak_mb is None and b.seconds >= 0
    s = result.summary()
    assert s["grid_found"] == 2 / 3 and s["failed_reads"] == 1 and s["boards_right"] == 2 / 3
    # pooled over photos: 10 of 15 tiles; 6 + 6 + 4 truth figures (c.jpg: 2 meeples, tent, Sheriff), 10 found
    assert s["tile_accuracy"] == 10 / 15 and s["figure_recall"] == 10 / 16 and s["figure_precision"] == 1.0


def test_failed_read_never_has_its_scores_right(photo_dir):
    """Given a scoring that gives no points (nothing completed yet), when b.png fails to read and
    c.jpg is read as an empty board, then their scores are wrong though both totals are zero; a.png,
    read right, has its scores right."""
    def failing(photo: Path) -> Board:
        if photo.name == "b.png":
            raise ScorerError("no whole tile cell lies inside the photo")
        return Board() if photo.name == "c.jpg" else read_truth(photo)

    result = evaluate_dir(photo_dir, reader=failing, score_fn=lambda board, mode: {}, trace_memory=False)
    assert [p.comparison.scores_right for p in result.photos] == [True, False, False]
    assert result.summary()["scores_right"] == 1 / 3


def test_missing_pipeline_counts_every_photo_as_failed(photo_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "scorer.vision", None)
    result = evaluate_dir(photo_dir, score_fn=meeple_count)
    assert [p.read_ok for p in result.photos] == [False, False, False]
    assert all(p.reason.startswith("photo pipeline not available: reader 'scorer.vision:read_photo'")
               for p in result.photos)
    assert result.summary()["grid_found"] == 0.0 and result.summary()["seconds_median"] is None
    assert result.config["reader_available"] is False


def test_empty_board_from_reader_is_grid_not_found(photo_dir):
    result = evaluate_dir(photo_dir, reader=lambda p: Board(), score_fn=meeple_count)
    assert all(p.read_ok and p.reason == "no tiles read (grid not found)" for p in result.photos)


def test_reader_returning_something_else_is_a_failed_read(photo_dir):
    result = evaluate_dir(photo_dir, reader=lambda p: {"tiles": []}, score_fn=meeple_count)
    assert result.photos[0].reason == "reader returned dict, not a Board"


def test_evaluate_dir_bad_input(tmp_path):
    with pytest.raises(ScorerError, match="not a folder"):
        evaluate_dir(tmp_path / "nowhere", reader=read_truth)
    _png(tmp_path / "x.png")
    with pytest.raises(ScorerError, match="holds no photo .* with a ground-truth file"):
        evaluate_dir(tmp_path, reader=read_truth)
    (tmp_path / "x.truth.json").write_text(json.dumps(board_dict(mode="halftime")))
    with pytest.raises(BoardFormatError, match="x.truth.json: mode: expected one of completed, final"):
        evaluate_dir(tmp_path, reader=read_truth)
    (tmp_path / "x.truth.json").write_text(json.dumps(board_dict(tiles=[(0, 0, "Z", 0)])))
    with pytest.raises(BoardFormatError, match="x.truth.json: .*unknown tile id 'Z'"):
        evaluate_dir(tmp_path, reader=read_truth)


def test_results_written_as_json_and_csv(photo_dir, tmp_path):
    result = evaluate_dir(photo_dir, reader=read_shifted, score_fn=meeple_count)
    out = result.write_json(tmp_path / "results.json")
    data = json.loads(out.read_text())
    assert data["format"] == "scorer-evaluation/1"
    assert data["summary"]["boards_right"] == 1.0 and data["skipped"] == ["d.png"]
    assert [p["offset"] for p in data["photos"]] == [[11, -6]] * 3
    rows = list(csv.DictReader((result.write_csv(tmp_path / "results.csv")).open()))
    assert [r["photo"] for r in rows] == ["a.png", "b.png", "c.jpg", "ALL"]
    assert rows[-1]["truth_tiles"] == "15" and rows[-1]["figures_truth"] == "16"
    assert rows[-1]["board_right"] == "1.0" and rows[0]["board_right"] == "1"


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def fake_pipeline(monkeypatch):
    module = types.ModuleType("evalfake")
    module.read_photo = read_truth
    monkeypatch.setitem(sys.modules, "evalfake", module)


def test_cli_prints_summary_and_writes_files(photo_dir, tmp_path, fake_pipeline):
    out, table = tmp_path / "r.json", tmp_path / "r.csv"
    res = CliRunner().invoke(evaluate, [str(photo_dir), "--reader", "evalfake:read_photo", "--per-photo",
                                        "--out", str(out), "--csv", str(table), "--no-memory"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].split()[:5] == ["photo", "grid", "occup", "tile", "err"]
    assert lines[1].split()[:4] == ["a.png", "yes", "100.0%", "0.0%"]
    assert "grid found             100.0%" in lines
    assert "photos                 3 (0 failed reads, 1 without truth skipped)" in lines
    assert "tile error per cell    0.0%" in lines
    assert "peak MB (tracemalloc)  -" in lines
    assert json.loads(out.read_text())["config"]["reader"] == f"{__name__}.read_truth"
    assert table.read_text().count("\n") == 5


def test_cli_without_pipeline_reports_failed_reads(photo_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "scorer.vision", None)
    res = CliRunner().invoke(evaluate, [str(photo_dir)])
    assert res.exit_code == 0, res.output
    assert "grid found             0.0%" in res.output.splitlines()
    assert "(not available)" in res.output


def test_cli_bad_input_exits_2(tmp_path, fake_pipeline):
    res = CliRunner().invoke(evaluate, [str(tmp_path / "nowhere"), "--reader", "evalfake:read_photo"])
    assert res.exit_code == 2
    assert res.output.startswith("error: cannot evaluate") and res.output.count("\n") == 1
    res = CliRunner().invoke(evaluate, [str(tmp_path), "--reader", "evalfake"])
    assert res.exit_code == 2 and "expected MODULE:FUNCTION" in res.output
    res = CliRunner().invoke(evaluate, [str(tmp_path), "--reader", "evalfake:nothing"])
    assert res.exit_code == 2 and "has no function 'nothing'" in res.output


# --------------------------------------------------------------------------- no single north


def _cell_corners(board: Board, degrees: float) -> list[dict]:
    """Photo pixels of each cell's square (clockwise from north-west), the lattice turned
    ``degrees`` clockwise in the photo (100 px cells, no perspective)."""
    a = np.radians(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    out = []
    for x, y in board.tiles:
        square = np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], float) * 100.0
        out.append({"x": x, "y": y, "px": (square @ rot.T + 1000.0).tolist()})
    return out


@pytest.mark.parametrize("degrees, off", [(44.0, 1.0), (-46.5, 1.5), (10.0, 35.0), (90.0, 45.0)])
def test_north_off_diagonal_reads_the_lattice_angle(tmp_path, degrees, off):
    from scorer.evaluate import north_off_diagonal

    truth = make_board()
    path = tmp_path / "p.png.truth.json"
    path.write_text(json.dumps(board_dict(synth={"cell_corners": _cell_corners(truth, degrees)})))
    assert north_off_diagonal(read_board(path)) == pytest.approx(off, abs=1e-6)
    (tmp_path / "q.truth.json").write_text(json.dumps(board_dict()))
    assert north_off_diagonal(read_board(tmp_path / "q.truth.json")) is None


def test_north_off_diagonal_takes_the_camera_turn_when_nearer(tmp_path):
    """Given a board whose lattice shows 20 degrees turned (25 from a diagonal) but whose truth
    records a camera turned 225.06 degrees, then the photo is 0.06 degrees from a diagonal; a
    camera turn farther from one than the lattice seen leaves the lattice's angle."""
    from scorer.evaluate import north_off_diagonal

    truth = make_board()
    corners = _cell_corners(truth, 20.0)
    for roll, off in ((225.06, 0.06), (10.0, 25.0)):
        path = tmp_path / "p.png.truth.json"
        path.write_text(json.dumps(board_dict(synth={"cell_corners": corners, "params": {"rotation_deg": roll}})))
        assert north_off_diagonal(read_board(path)) == pytest.approx(off, abs=1e-6)


@pytest.mark.parametrize("degrees, turned", [(44.0, True), (30.0, False)])
def test_quarter_turned_reading_counts_only_without_a_single_north(tmp_path, degrees, turned):
    from scorer.board import turn_board

    truth = make_board()
    _png(tmp_path / "p.png")
    (tmp_path / "p.png.truth.json").write_text(json.dumps(board_dict(
        synth={"cell_corners": _cell_corners(truth, degrees)})))
    result = evaluate_dir(tmp_path, reader=lambda p: turn_board(truth, -1), score_fn=meeple_count,
                          trace_memory=False)
    s = result.summary()
    assert s["north_turned"] == int(turned)
    assert result.photos[0].north_turns == (1 if turned else 0)
    assert (s["boards_right"] == 1.0) is turned
    assert s["tile_error"] == (0.0 if turned else pytest.approx(1.0))
