"""Grid detection where the seams are as bright as the tiles: the chroma pass.

Green and brown tiles lie on a fine grey checked cloth that shows through the
seams.  In the grey image a seam's dashes average to the tiles' own grey, the
cloth's segments are set aside, and no pass frames the tiles; in colour the
grey gap between coloured tiles is plain, and the fourth pass finds the lattice
on the segments of the chroma image (:func:`scorer.vision.grid._chroma`).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.errors import PhotoError
from scorer.vision import grid as G
from scorer.vision.grid import GridConfig, find_grid

from helpers import config_with, read_generated
from test_vision_grid_cloth import COLS, ROWS, TILE, found_right, lattice_right


def grey_seamed_board(seed: int, check: float) -> tuple[np.ndarray, np.ndarray]:
    """An RGB 800 x 600 photo of a board of 6 x 5 tiles (80 pixels) turned by 9 degrees on a grey cloth.

    Each tile mixes a field green (70, 150, 40) and a city brown (170, 110, 60), of grey 114 and 122,
    with three dark or bright spots (roads, buildings); the cloth is checked 200 / 70 grey in squares of
    ``check`` pixels turned by 25 degrees, and every seam is a 4-pixel gap showing it.  Blurred
    (1.6 pixels) with noise.  Returns the photo (uint8) and the affine map board pixels -> photo pixels
    (2, 3).
    """
    rng = np.random.default_rng(seed)
    h, w = 600, 800
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    a = np.radians(25.0)
    u, v = x * np.cos(a) + y * np.sin(a), -x * np.sin(a) + y * np.cos(a)
    cloth = np.where((np.floor(u / check) + np.floor(v / check)) % 2 == 0, 200.0, 70.0)
    cloth = np.dstack([cloth] * 3)
    field, city = np.array([70, 150, 40], np.float32), np.array([170, 110, 60], np.float32)
    art = np.zeros((ROWS * TILE, COLS * TILE, 3), np.float32)
    for i in range(COLS):
        for j in range(ROWS):
            m = np.clip(cv2.resize(rng.uniform(0, 1, (3, 3)).astype(np.float32), (TILE, TILE),
                                   interpolation=cv2.INTER_CUBIC), 0, 1)[..., None]
            c = field * (1 - m) + city * m
            c += cv2.GaussianBlur(rng.normal(0, 12, (TILE, TILE)).astype(np.float32), (0, 0), 1.5)[..., None]
            for _ in range(3):
                cv2.circle(c, tuple(int(t) for t in rng.integers(10, TILE - 10, 2)), int(rng.integers(5, 12)),
                           [float(rng.choice([30.0, 235.0]))] * 3, -1)
            art[j * TILE:(j + 1) * TILE, i * TILE:(i + 1) * TILE] = c
    solid = np.ones(art.shape[:2], np.float32)
    for j in range(ROWS + 1):
        solid[max(0, j * TILE - 2):j * TILE + 2, :] = 0
    for i in range(COLS + 1):
        solid[:, max(0, i * TILE - 2):i * TILE + 2] = 0
    A = cv2.getRotationMatrix2D((COLS * TILE / 2, ROWS * TILE / 2), 9.0, 1.0)
    A[:, 2] += [w / 2 - COLS * TILE / 2, h / 2 - ROWS * TILE / 2]
    inside = cv2.warpAffine(solid, A, (w, h), flags=cv2.INTER_NEAREST) > 0
    img = np.where(inside[..., None], cv2.warpAffine(art, A, (w, h), flags=cv2.INTER_LINEAR), cloth)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 1.6) + rng.normal(0, 2, img.shape), 0, 255)
    return img.astype(np.uint8), A


@pytest.mark.parametrize("seed, check", [(0, 4.0), (1, 6.0), (3, 4.0)])
def test_grey_seams_between_coloured_tiles_are_found_on_the_chroma_image(seed, check):
    rgb, A = grey_seamed_board(seed, check)
    grid = find_grid(rgb)
    assert lattice_right(grid, A)
    assert grid.debug["tiles"] >= GridConfig().weak_lattice
    # Without the fourth pass no lattice is found, or a wrong one.
    assert not found_right(rgb, A, GridConfig(chroma_pass=False))


def test_chroma_is_the_distance_from_grey_whatever_the_brightness():
    """Grey pixels of any brightness are 0; the most colourful pixels are 255; green beats a greyish green."""
    rgb = np.zeros((4, 50, 3), np.uint8)
    rgb[0] = (30, 30, 30)
    rgb[1] = (220, 220, 220)
    rgb[2] = (70, 150, 40)
    rgb[3] = (110, 130, 100)
    c = G._chroma(rgb)
    assert c.dtype == np.uint8 and c.shape == (4, 50)
    assert c[0].max() <= 1 and c[1].max() <= 1
    assert c[2].min() == 255
    assert 10 < c[3].mean() < 128


def test_a_base_photo_on_a_grey_checked_cloth_is_read_through_the_chroma_pass(tmp_path):
    """Photo 169 of ``scorer synth --generate 200 --difficulty mixed --seed 9940002`` (base, River and
    Goldmines): grey seams on a checked cloth, no lattice framed in the grey image."""
    new = read_generated(tmp_path, "carcassonne", ["river", "goldmines"], 9940002, 169)
    assert new.tile_accuracy >= 0.98
    # Without the fourth pass the blur check measures a wrong lattice and refuses the photo.
    with pytest.raises(PhotoError, match="too blurry"):
        read_generated(tmp_path, "carcassonne", ["river", "goldmines"], 9940002, 169,
                       config_with("grid", chroma_pass=False))
