"""Tiles read apart from the board are not on it: a supply stack, a score board, a patch of cloth.

Every tile is placed against the board, so a group of tiles that only two or
more missed tiles in a row could join to it lies off the board
(``recognise._detached``).  On the 200 Gold Rush photos of ``scorer synth
--generate 200 --seed 9926001 --difficulty mixed --game goldrush --expansions
sheriff``, 19 of the 35 table cells read as tiles lay apart from the board
(score boards, stacks of tiles waiting to be drawn, checks of an orange
cloth), each two to six empty cells away; no true tile did.
"""

from __future__ import annotations

import dataclasses

import pytest

from scorer.board import read_board
from scorer.evaluate import compare_boards
from scorer.render.synth import generated_photo
from scorer.vision.config import load_config
from scorer.vision.pipeline import read_photo_full
from scorer.vision.recognise import _detached


def block(x0: int, y0: int, w: int, h: int) -> set[tuple[int, int]]:
    return {(x, y) for x in range(x0, x0 + w) for y in range(y0, y0 + h)}


def test_a_group_two_empty_cells_away_is_dropped():
    board = block(0, 0, 4, 3)
    far = {(6, 1), (6, 2)}  # cells (4, 1) and (5, 1) between: two missed tiles in a row
    assert _detached(board | far, gap=2, share=0.5) == far


def test_a_group_one_empty_cell_away_stays():
    board = block(0, 0, 4, 3)
    near = {(5, 1), (5, 2)}  # one missed tile at (4, 1) would join it
    assert _detached(board | near, gap=2, share=0.5) == set()


def test_a_group_that_joins_through_another_group_stays():
    board = block(0, 0, 4, 3)
    step = {(5, 0)}
    beyond = {(7, 0), (7, 1)}  # one empty cell from the step, three from the board
    assert _detached(board | step | beyond, gap=2, share=0.5) == set()


def test_a_diagonal_neighbour_counts_one_empty_cell_apart():
    board = block(0, 0, 3, 3)
    corner = {(3, 3)}  # (3, 2) or (2, 3) would join it
    assert _detached(board | corner, gap=2, share=0.5) == set()


def test_a_large_group_apart_is_kept_and_the_rule_can_be_turned_off():
    board = block(0, 0, 4, 3)  # 12 tiles
    other = block(8, 0, 3, 3)  # 9 tiles: more than half the board
    assert _detached(board | other, gap=2, share=0.5) == set()
    small = {(8, 0)}
    assert _detached(board | small, gap=0, share=0.5) == set()
    assert _detached(board | small, gap=2, share=0.5) == small


@pytest.mark.parametrize("index", [48, 39])
def test_tiles_read_off_the_board_are_left_out(tmp_path, index):
    """Photo 48: the score board at the top of the photo, read as tiles; photo 39: two cells of an
    orange checked cloth in a corner, with yellow 'meeples' on them (the figure stage's table
    check takes one of the two for the table too)."""
    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9926001, index, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    cfg = load_config()
    assert (cfg.tiles.detached_gap, cfg.tiles.detached_share) == (2, 0.5)
    off = compare_boards(res.truth, read_photo_full(
        path, config=dataclasses.replace(cfg, tiles=dataclasses.replace(cfg.tiles, detached_gap=0))).board)
    board = read_photo_full(path, config=cfg).board
    on = compare_boards(res.truth, board)
    extra = [e for e in off.occupancy_errors if e["error"] == "extra"]
    assert extra and off.tiles_right == off.truth_tiles
    assert on.tiles_all_right
    apart = board.extra["photo"]["detached_cells"]
    assert apart and not any(tuple(c) in board.tiles for c in apart)
    assert len(on.figure_errors) <= len(off.figure_errors)


def test_the_summary_names_the_tiles_left_out(tmp_path):
    """The terminal summary of a photo says which tiles lay apart from the board and how to add them."""
    from scorer.photoscore import score_photo

    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9926001, 48, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    scored = score_photo(path)
    text = scored.summary()
    apart = scored.report.board.extra["photo"]["detached_cells"]
    assert apart == read_board(scored.board_path).extra["photo"]["detached_cells"]
    line = next(line for line in text.splitlines() if "apart from the board" in line)
    assert line.startswith(f"{len(apart)} tile(s) lay apart from the board")
    assert " ".join(f"{x},{y}" for x, y in apart) in line and "scorer fix" in line

