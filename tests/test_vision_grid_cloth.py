"""Grid detection on a striped table cloth that shows through the seams.

A board lies on a finely striped cloth: the seams of one direction are faint
dark lines, those of the other gaps through which the stripes show as dark and
bright dashes.  The segment detector sees the dashed seams in pieces only, and
the cloth's own segments are set aside: no cell is framed.  The line energy
image (:func:`scorer.vision.grid._line_energy`) joins each dashed seam into one
line and flattens the fine stripes, and the third pass finds the lattice there.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.errors import TableNotFoundError
from scorer.vision import grid as G
from scorer.vision.grid import GridConfig, find_grid

TILE, COLS, ROWS = 80, 6, 5


def striped_board(seed: int, period: float, board_turn: float = 9.0, stripe_turn: float = 50.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A grey 800 x 600 photo of a board of 6 x 5 tiles (80 pixels, textured art) turned by ``board_turn``
    degrees on a cloth of dark and bright stripes ``period`` pixels apart, turned by ``stripe_turn``.

    The seams across the board are 3-pixel gaps showing the cloth; the seams along it are 2-pixel lines 25
    grey levels darker than the art; blurred (2 pixels) with noise.  Returns the photo (uint8) and the
    affine map board pixels -> photo pixels (2, 3).
    """
    rng = np.random.default_rng(seed)
    h, w = 600, 800
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = np.radians(stripe_turn)
    cloth = np.where(np.sin(2 * np.pi * (x * np.cos(ang) + y * np.sin(ang)) / period) > 0, 215.0, 60.0)
    board = np.zeros((ROWS * TILE, COLS * TILE), np.float32)
    for i in range(COLS):
        for j in range(ROWS):
            art = cv2.resize(rng.uniform(90, 190, (4, 4)).astype(np.float32), (TILE, TILE),
                             interpolation=cv2.INTER_CUBIC)
            art += cv2.GaussianBlur(rng.normal(0, 20, (TILE, TILE)).astype(np.float32), (0, 0), 1.5)
            board[j * TILE:(j + 1) * TILE, i * TILE:(i + 1) * TILE] = art
    solid = np.ones_like(board)
    for j in range(ROWS + 1):
        solid[max(0, j * TILE - 1):j * TILE + 2, :] = 0
    for i in range(COLS + 1):
        board[:, max(0, i * TILE - 1):i * TILE + 1] -= 25
    A = cv2.getRotationMatrix2D((COLS * TILE / 2, ROWS * TILE / 2), board_turn, 1.0)
    A[:, 2] += [w / 2 - COLS * TILE / 2, h / 2 - ROWS * TILE / 2]
    inside = cv2.warpAffine(solid, A, (w, h), flags=cv2.INTER_NEAREST) > 0
    img = np.where(inside, cv2.warpAffine(board, A, (w, h), flags=cv2.INTER_LINEAR), cloth)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 1.6) + rng.normal(0, 2, img.shape), 0, 255)
    return img.astype(np.uint8), A


def lattice_right(grid: G.Grid, A: np.ndarray) -> bool:
    """Whether every tile centre lands in its own lattice cell, up to one whole-cell offset and a quarter turn."""
    keys = np.array([(i, j) for i in range(COLS) for j in range(ROWS)])
    centres = np.c_[(keys + 0.5) * TILE, np.ones(len(keys))] @ A.T
    lat = grid.to_lattice(centres)
    turns = (np.eye(2), np.array([[0, -1], [1, 0]]), -np.eye(2), np.array([[0, 1], [-1, 0]]))
    return any(len(np.unique(np.floor(lat @ R.T).astype(int) - keys, axis=0)) == 1 for R in turns)


def found_right(rgb: np.ndarray, A: np.ndarray, cfg: GridConfig) -> bool:
    """Whether ``find_grid`` with ``cfg`` finds a lattice and it is right (:func:`lattice_right`)."""
    try:
        return lattice_right(find_grid(rgb, cfg), A)
    except TableNotFoundError:
        return False


@pytest.mark.parametrize("seed, period", [(2, 8.0), (1, 12.0)])
def test_dashed_seams_on_a_striped_cloth_are_found_on_the_line_energy(seed, period):
    img, A = striped_board(seed, period)
    rgb = np.dstack([img] * 3)
    grid = find_grid(rgb)
    assert lattice_right(grid, A)
    assert grid.support >= GridConfig().min_seam_support
    # Without the third pass no lattice is found, or a wrong one.
    assert not found_right(rgb, A, GridConfig(line_pass=False))


def test_line_energy_joins_a_dashed_seam_and_flattens_fine_stripes():
    """Along a dashed seam the line energy stays high from dash to dash; over the fine stripes it is even."""
    img, A = striped_board(2, 8.0)
    e = G._line_energy(img, GridConfig()).astype(np.float64)
    # Points along the seam between tile rows 2 and 3 (board y = 160), inside the board.
    t = np.arange(40.0, COLS * TILE - 40.0, 1.0)
    seam = np.c_[t, np.full_like(t, 2 * TILE), np.ones_like(t)] @ A.T
    on = e[np.round(seam[:, 1]).astype(int), np.round(seam[:, 0]).astype(int)]
    # Tile middles (board y = 120 and 200) along the same stretch.
    mids = [np.c_[t, np.full_like(t, y), np.ones_like(t)] @ A.T for y in (1.5 * TILE, 2.5 * TILE)]
    off = np.concatenate([e[np.round(m[:, 1]).astype(int), np.round(m[:, 0]).astype(int)] for m in mids])
    assert np.percentile(on, 10) > 2 * np.median(off)
    cloth = e[20:120, 20:120]
    assert cloth.std() < 0.25 * cloth.mean()
