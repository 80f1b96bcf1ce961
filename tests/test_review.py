"""`scorer review` (walking the least sure detections), review pictures and `scorer sheet`."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from helpers import board_dict

from scorer.board import Board, read_board
from scorer.corrections import history
from scorer.fix_cli import review, sheet
from scorer.render.colours import encode_image
from scorer.render.topdown import render_board
from scorer.review import PhotoView, cut_cell, load_photo_view, review_dir, review_items
from scorer.scoring import score
from scorer.sheet import format_summary

MEEPLES = [("red", 0, -1, "S"), ("blue", -1, 0, "W"), ("green", 0, 0, "WR")]


def reading() -> dict:
    """The table of test_corrections as a photo might read it: E at 0,-1 unsure (read rot 0,
    runner-up rot 2), blue's thief unsure of its colour, a phantom yellow meeple on U's south field."""
    obj = board_dict([(0, 0, "D", 0), (0, -1, "E", 0), (-1, 0, "U", 0)], MEEPLES + [("yellow", -1, 0, "SL")],
                     players=["red", "blue", "green"], active="blue", last_placed=(0, -1),
                     track={"red": 10, "blue": 3, "green": 5})
    obj["tiles"][0]["confidence"] = 0.97
    obj["tiles"][1].update({"confidence": 0.41, "alternatives": [{"tile": "E", "rot": 2, "confidence": 0.38},
                                                                 {"tile": "N", "rot": 1, "confidence": 0.05}]})
    obj["tiles"][2]["confidence"] = 1.0
    for m in obj["meeples"]:
        m["confidence"] = 0.99
    obj["meeples"][1].update({"confidence": 0.62, "colour_alternatives": [{"player": "red", "confidence": 0.3}]})
    obj["meeples"][3]["confidence"] = 0.55
    obj["photo"] = {"source": None}
    return obj


def write(tmp_path: Path, obj: dict, name: str = "table.board.json") -> Path:
    path = tmp_path / name
    Board.from_dict(obj).save(path)
    return path


def totals(board: Board, mode: str = "final") -> dict[str, int]:
    return {c: t["total"] for c, t in score(board, mode).totals().items()}


def test_items_come_least_sure_first_with_their_alternatives():
    items = review_items(Board.from_dict(reading()))
    assert [(i.title(), i.confidence) for i in items] == [
        ("tile 0,-1", 0.41), ("yellow meeple -1,0 SL", 0.55), ("blue meeple -1,0 W", 0.62),
        ("tile 0,0", 0.97), ("red meeple 0,-1 S", 0.99), ("green meeple 0,0 WR", 0.99)]
    # the reader's runners-up first, then the read tile turned
    assert [(c.label, c.op, c.confidence) for c in items[0].choices] == [
        ("E rot 2 (180°)", "set_tile", 0.38), ("N rot 1 (90°)", "set_tile", 0.05),
        ("E rot 1 (90°) turned", "set_tile", None), ("E rot 3 (270°) turned", "set_tile", None)]
    # the colour runner-up first, then the other players' colours
    assert [(c.label, c.confidence) for c in items[2].choices] == [("colour red", 0.3), ("colour green", None)]
    # D is not the same turned half-way round, U is: U offers two turns, not three
    assert [c.label for c in items[3].choices] == ["D rot 1 (90°) turned", "D rot 2 (180°) turned",
                                                   "D rot 3 (270°) turned"]
    u = next(i for i in review_items(Board.from_dict(reading()), everything=True) if i.title() == "tile -1,0")
    assert [c.label for c in u.choices] == ["U rot 1 (90°) turned"]
    assert items[2].read == "blue meeple on the road at W"


def test_review_picks_removes_accepts_and_quits(tmp_path):
    """Given the reading, when the keys 1, r, enter, q are given, then E is turned, the phantom removed, blue confirmed."""
    path = write(tmp_path, reading())
    result = CliRunner().invoke(review, [str(path), "--final"], input="1\nr\n\nq\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "[1/6] tile 0,-1: read E rot 0 (0°), confidence 0.41" in out
    assert "  1  E rot 2 (180°)  (0.38)" in out
    assert "  -> tile 0,-1: E rot 0 (0°) -> E rot 2 (180°)" in out
    assert "  -> yellow meeple removed from -1,0 SL" in out
    assert "  -> blue meeple at -1,0 W confirmed as read" in out
    assert "[4/6]" in out and "[5/6]" not in out
    assert "3 change(s) saved; undo with scorer undo" in out
    board = read_board(path)
    assert (board.tiles[(0, -1)].rot, board.tiles[(0, -1)].extra) == (2, {"confidence": 1.0})
    assert [m.player for m in board.meeples] == ["red", "blue", "green"]
    assert board.meeples[1].extra == {"confidence": 1.0}
    assert board.tiles[(0, 0)].extra == {"confidence": 0.97}
    assert [e["op"] for e in history(board)] == ["set_tile", "remove_figure", "confirm"]
    assert totals(board) == {"red": 14, "blue": 5, "green": 8}
    # the final table shows the change the review made: red +4 (city closed), green +3 (farmer)
    last = {line.split()[0]: line.split()[1:] for line in out.splitlines()[-4:] if line.split()}
    assert last["red"] == ["10", "+4", "14", "+4"] and last["green"] == ["5", "+3", "8", "+3"]


def test_review_writes_a_picture_per_detection(tmp_path):
    path = write(tmp_path, reading())
    result = CliRunner().invoke(review, [str(path)], input="s\nq\n")
    assert result.exit_code == 0, result.output
    folder = review_dir(path)
    assert folder == tmp_path / "table.review"
    assert f"  picture: {folder / 'cell_0_-1.png'}" in result.output
    img = cv2.imread(str(folder / "cell_0_-1.png"))
    assert img.shape == (224 + 44, 5 * 224, 3)  # as read + 2 runners-up + 2 turns, captions below
    assert sorted(p.name for p in folder.iterdir()) == ["cell_-1_0_meeple_yellow_SL.png", "cell_0_-1.png"]
    assert history(read_board(path)) == []


def test_review_rejects_an_impossible_pick_and_asks_again(tmp_path):
    """Given a runner-up tile on which green's farmer would have no place, when picked, then it says why and asks again."""
    obj = reading()
    obj["tiles"][0].update({"confidence": 0.3, "alternatives": [{"tile": "C", "rot": 0, "confidence": 0.2}]})
    path = write(tmp_path, obj)
    result = CliRunner().invoke(review, [str(path), "--no-images"], input="1\nx\ns\nq\n")
    assert result.exit_code == 0, result.output
    assert f"  cannot: tile 0,0: C rot 0 (0°) has no feature at WR, where the green meeple stands; move or remove it first (scorer fix {path} meeple 0,0 green WR --remove)" in result.output
    assert "  keys: 1-4 pick, enter accept, r remove, s skip, q quit" in result.output
    assert read_board(path).tiles[(0, 0)].tile.id == "D"
    assert history(read_board(path)) == []


def test_review_of_a_typed_board(tmp_path):
    obj = board_dict([(0, 0, "D", 0)], [("red", 0, 0, "N")], players=["red"])
    path = tmp_path / "typed.json"
    Board.from_dict(obj).save(path)
    result = CliRunner().invoke(review, [str(path)])
    assert result.exit_code == 0
    assert result.output.startswith("Nothing to review: this board has no detection confidences (a typed board)")
    result = CliRunner().invoke(review, [str(path), "--all", "--no-images"], input="\nr\n")
    assert "[1/2] tile 0,0: read D rot 0 (0°)" in result.output
    board = read_board(path)
    assert board.meeples == [] and board.tiles[(0, 0)].extra == {"confidence": 1.0}


def test_cell_cut_from_the_photo_with_the_homography(tmp_path):
    """Given a top-down 'photo' with a known homography, when a cell is cut, then it is that tile's pixels."""
    board = Board.from_dict(board_dict([(0, 0, "D", 0), (0, -1, "E", 2), (-1, 0, "U", 0)], MEEPLES))
    img, raster = render_board(board, tile_px=150, margin=30)
    photo = tmp_path / "table.png"
    photo.write_bytes(encode_image(img))
    # photo pixel (px, py) -> board coordinates (x, y) in tile units
    H = np.array([[1 / 150, 0, raster.origin[0] - 30 / 150], [0, 1 / 150, raster.origin[1] - 30 / 150], [0, 0, 1]])
    board.extra["photo"] = {"source": str(photo), "size": [img.shape[1], img.shape[0]],
                            "grid": {"homography": H.tolist()}}
    view = load_photo_view(board)
    assert isinstance(view, PhotoView)
    x0, y0 = raster.cell_to_px((0, -1))
    crop = cut_cell(view, (0, -1), size_px=150, margin=0.0)
    diff = np.abs(crop.astype(int) - img[y0:y0 + 150, x0:x0 + 150].astype(int)).mean()
    assert diff < 1.0
    other = cut_cell(view, (-1, 0), size_px=150, margin=0.0)
    assert np.abs(other.astype(int) - img[y0:y0 + 150, x0:x0 + 150].astype(int)).mean() > 20
    # the review picture starts with the photo panel when the photo is there
    path = tmp_path / "table.board.json"
    obj = board.to_dict()
    obj["tiles"][1]["confidence"] = 0.5
    Board.from_dict(obj).save(path)
    result = CliRunner().invoke(review, [str(path)], input="q\n")
    assert result.exit_code == 0, result.output
    pic = cv2.imread(str(tmp_path / "table.review" / "cell_0_-1.png"))
    assert pic.shape == (224 + 44, 5 * 224, 3)  # photo, as read, E turned 3 ways


# =========================================================================== score sheets


def test_summary_table_with_changes():
    before = Board.from_dict(board_dict([(0, 0, "D", 0), (0, -1, "E", 2), (-1, 0, "U", 0)], MEEPLES,
                                        players=["red", "blue", "green"], track={"red": 10, "blue": 3, "green": 5},
                                        last_placed=(0, -1)))
    after = Board.from_dict({**before.to_dict(), "meeples": before.to_dict()["meeples"][:2]})
    text = format_summary(score(after, "final"), score(before, "final"))
    assert text == ("Final scoring\n"
                    "player  track  points  total  change\n"
                    "red        10      +4     14\n"
                    "blue        3      +2      5\n"
                    "green       5      +0      5      -3\n")


@pytest.fixture
def final_board(tmp_path) -> Path:
    path = tmp_path / "final.json"
    Board.from_dict(board_dict([(0, 0, "D", 0), (0, -1, "E", 2), (-1, 0, "U", 0)], MEEPLES,
                               players=["red", "blue", "green"], track={"red": 10, "blue": 3, "green": 5},
                               last_placed=(0, -1))).save(path)
    return path


def test_sheet_png(final_board, tmp_path):
    out = tmp_path / "sheet.png"
    result = CliRunner().invoke(sheet, [str(final_board), "-o", str(out), "--final"])
    assert result.exit_code == 0, result.output
    assert result.output.endswith(f"score sheet written to {out}\n")
    img = cv2.imread(str(out))
    assert img is not None and img.shape[1] == 900 and img.shape[0] > 2 * 128 + 300


def test_sheet_html_is_self_contained(final_board, tmp_path):
    out = tmp_path / "sheet.html"
    result = CliRunner().invoke(sheet, [str(final_board), "-o", str(out), "--final", "--title", "Friday game"])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "<h1>Friday game</h1>" in page
    cells = re.findall(r"<tr(?: class=\"win\")?><td>(\d)</td><td><span[^>]*></span>(\w+)</td>"
                       r"<td class=\"n\">(\d+)</td><td class=\"n\">\+(\d+)</td><td class=\"n\">(\d+)</td>", page)
    assert cells == [("1", "red", "10", "4", "14"), ("2", "green", "5", "3", "8"), ("3", "blue", "3", "2", "5")]
    assert page.count("<td>city</td>") == 1 and page.count("<td>field</td>") == 1
    data = re.search(r"src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"", page).group(1)
    pic = cv2.imdecode(np.frombuffer(base64.b64decode(data), np.uint8), cv2.IMREAD_COLOR)
    assert pic.shape[:2] == (2 * 128 + 2 * 21, 2 * 128 + 2 * 21)
    assert "src=\"http" not in page and "<link" not in page


def test_sheet_unknown_extension_is_an_error(final_board, tmp_path):
    result = CliRunner().invoke(sheet, [str(final_board), "-o", str(tmp_path / "sheet.pdf")])
    assert result.exit_code == 2
    assert result.stderr == f"error: -o {str(tmp_path / 'sheet.pdf')!r}: a score sheet is .html or .png, not .pdf\n"
    assert not (tmp_path / "sheet.pdf").exists()
