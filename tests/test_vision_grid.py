"""Grid detection: the lattice found puts every tile of a synthesised photo in its cell.

Photos are synthesised (seeded) by :mod:`scorer.render.synth`; a lattice is
right when every true cell centre falls into the lattice cell ``(x + dx, y +
dy)`` for one whole-cell offset ``(dx, dy)`` (the board may lie anywhere in
the lattice, but north must be the photo's top).  The geometric stages (the
least-squares fit with lens distortion, settling the period and phase) are also
checked on exact synthetic seams.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.errors import TableNotFoundError
from scorer.generate import generate_game
from scorer.render.synth import SynthParams, synthesize
from scorer.vision import grid as G
from scorer.vision.grid import Grid, GridConfig, find_grid


def photo(game: str, expansions: list[str], n_tiles: int, seed: int, difficulty: str, *, megapixels: float,
          **params):
    rng = np.random.default_rng(seed)
    board = generate_game(game, expansions, n_tiles=n_tiles, rng=rng)
    p = SynthParams.random(rng, difficulty, megapixels=megapixels)
    for key, value in params.items():
        setattr(p, key, value)
    return synthesize(board, rng=rng, params=p)


def cell_offsets(res, grid: Grid) -> tuple[np.ndarray, float]:
    """Every true cell's (lattice cell - truth cell), and the largest distance of a centre from its cell's centre."""
    keys = np.array(list(res.cell_corners.keys()))
    centres = np.array([np.mean(c, axis=0) for c in res.cell_corners.values()])
    lat = grid.to_lattice(centres)
    off = np.floor(lat).astype(int) - keys
    return off, float(np.abs(lat - (keys + off + 0.5)).max())


# --------------------------------------------------------------------------- photos

CASES = {
    # name: (game, expansions, tiles, seed, difficulty, megapixels, fixed parameters)
    "easy, from above": ("carcassonne", ["river"], 20, 96010, "easy", 1.0, {}),
    "steep, turned, strong lens distortion": ("goldrush", ["sheriff"], 30, 96011, "hard", 1.5,
                                              {"tilt_deg": 42.0, "rotation_deg": 33.0, "k1": 0.11, "k2": 0.025,
                                               "table": "wood"}),
    "checked table cloth": ("carcassonne", ["river"], 10, 96901, "hard", 3.0, {"table": "pattern"}),
    "checked table cloth, steep": ("carcassonne", ["river"], 12, 92970, "hard", 2.0, {"table": "pattern"}),
    "dotted table cloth": ("carcassonne", ["river"], 12, 92972, "hard", 2.0, {"table": "pattern"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_lattice_puts_every_tile_in_its_cell(name):
    game, exps, n, seed, difficulty, mp, fixed = CASES[name]
    res = photo(game, exps, n, seed, difficulty, megapixels=mp, **fixed)
    grid = find_grid(res.image)
    off, err = cell_offsets(res, grid)
    assert len(np.unique(off, axis=0)) == 1, f"{name}: cells land at offsets {np.unique(off, axis=0).tolist()}"
    assert err < 0.25, f"{name}: a cell centre is {err:.2f} tile from its lattice cell's centre"
    assert grid.support >= GridConfig().min_seam_support


def test_lens_distortion_is_fitted():
    """With k1 and k2 fitted, the strongly distorted photo's cell centres sit near the lattice cells' centres.

    The board (30 tiles, off-centre, within 0.44 half-diagonals of the photo's
    centre) says little about the lens itself: a lattice without distortion maps
    its cell centres to within 0.05 tile as well, and k1 from 0.03 to 0.6 (with
    k2 making up) fit it equally; so only the map is checked here, the lens on
    the next photo.
    """
    game, exps, n, seed, difficulty, mp, fixed = CASES["steep, turned, strong lens distortion"]
    res = photo(game, exps, n, seed, difficulty, megapixels=mp, **fixed)
    grid = find_grid(res.image)
    off, err = cell_offsets(res, grid)
    assert len(np.unique(off, axis=0)) == 1
    assert err < 0.12
    assert corner_error(res, grid) < 0.1


def corner_error(res, grid: Grid) -> float:
    """Largest distance (tile units) of a true cell corner from its lattice corner (one common offset assumed)."""
    keys = np.array(list(res.cell_corners.keys()))
    corners = np.array(list(res.cell_corners.values())).reshape(-1, 2)
    off, _ = cell_offsets(res, grid)
    want = np.stack([keys, keys + [1, 0], keys + [1, 1], keys + [0, 1]], axis=1) + off[0]
    return float(np.abs(grid.to_lattice(corners) - want.reshape(-1, 2)).max())


def test_lens_is_seen_on_a_board_filling_the_photo():
    """A board filling the photo bends visibly under a strong lens (k1 0.12, k2 0.03): the fit sees the
    barrel distortion and every cell corner lands on its lattice corner, where a lattice without
    distortion is off by a quarter tile or more."""
    res = photo("carcassonne", ["river"], 40, 92905, "easy", megapixels=1.0, k1=0.12, k2=0.03, fill=0.95,
                tilt_deg=10.0, table="wood")
    grid = find_grid(res.image)
    off, _ = cell_offsets(res, grid)
    assert len(np.unique(off, axis=0)) == 1
    assert 0.07 < grid.k1 < 0.17
    assert corner_error(res, grid) < 0.05
    flat = find_grid(res.image, GridConfig(k1_candidates=(0.0,), fit_lens_prior=1e7))
    off, _ = cell_offsets(res, flat)
    assert len(np.unique(off, axis=0)) > 1 or corner_error(res, flat) > 0.2


def test_blank_table_is_refused_with_the_edges_seen():
    rng = np.random.default_rng(5)
    table = np.clip(rng.normal(140, 6, (480, 640, 3)), 0, 255).astype(np.uint8)
    with pytest.raises(TableNotFoundError) as info:
        find_grid(table)
    assert "closer" in str(info.value)
    assert info.value.seen["segments"].shape[1:] == (4,)


def test_blurred_seams_are_found_on_the_second_look():
    """Seams smeared by blur escape the default segment detector; the coarser, more sensitive look finds them."""
    import cv2

    img = np.full((600, 800), 150, np.uint8)
    for x in range(50, 800, 90):
        cv2.line(img, (x, 0), (x, 599), 110, 2)
    for y in range(40, 600, 90):
        cv2.line(img, (0, y), (799, y), 110, 2)
    noise = np.random.default_rng(0).normal(0, 2, img.shape)
    blurred = np.clip(cv2.GaussianBlur(img, (0, 0), 3.5) + noise, 0, 255).astype(np.uint8)
    cfg = GridConfig()
    assert len(G._segments(blurred, cfg)) == 0
    assert len(G._segments(blurred, cfg, blurred=True)) > 100


# --------------------------------------------------------------------------- table cloths


def _cloth_with_board(seed: int, board_turn: float, cloth_turn: float, cloth: bool = True, tile: int = 100,
                      cols: int = 3, rows: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A grey 800 x 600 photo: a board of ``cols`` x ``rows`` tiles with textured art and dark seams, turned by
    ``board_turn`` degrees, on a checked cloth (period 30 pixels, turned by ``cloth_turn``) or a plain table.

    Returns the photo (uint8), the affine map board pixels -> photo pixels (2, 3) and the board's mask.
    """
    import cv2

    rng = np.random.default_rng(seed)
    h, w = 600, 800
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    if cloth:
        ang = np.radians(cloth_turn)

        def stripes(t):
            return 0.5 + 0.5 * np.clip(6.0 * np.sin(2 * np.pi * t / 30.0), -1, 1)

        img = 200 - 55 * (stripes(x * np.cos(ang) + y * np.sin(ang)) + stripes(-x * np.sin(ang) + y * np.cos(ang)))
    else:
        img = np.full((h, w), 150.0, np.float32)
    board = np.zeros((rows * tile, cols * tile), np.float32)
    for i in range(cols):
        for j in range(rows):
            art = cv2.resize(rng.uniform(60, 230, (5, 5)).astype(np.float32), (tile, tile), interpolation=cv2.INTER_CUBIC)
            art += cv2.GaussianBlur(rng.normal(0, 25, (tile, tile)).astype(np.float32), (0, 0), 1.5)
            board[j * tile:(j + 1) * tile, i * tile:(i + 1) * tile] = art
    board[::tile, :] = board[:, ::tile] = board[-1, :] = board[:, -1] = 30
    A = cv2.getRotationMatrix2D((cols * tile / 2, rows * tile / 2), board_turn, 1.0)
    A[:, 2] += [w / 2 - cols * tile / 2, h / 2 - rows * tile / 2]
    inside = cv2.warpAffine(np.ones_like(board), A, (w, h), flags=cv2.INTER_NEAREST) > 0
    img = np.where(inside, cv2.warpAffine(board, A, (w, h), flags=cv2.INTER_LINEAR), img)
    img = np.clip(cv2.GaussianBlur(img, (0, 0), 0.8) + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    return img, A, inside


def _seams_and_far(segs: np.ndarray, A: np.ndarray, inside: np.ndarray, tile: int, cols: int, rows: int):
    """Which segments lie on a seam of the board (within 3 pixels, inside its extent) and which lie well off it."""
    import cv2

    Ai = cv2.invertAffineTransform(A)
    p = np.c_[segs[:, :2], np.ones(len(segs))] @ Ai.T
    q = np.c_[segs[:, 2:4], np.ones(len(segs))] @ Ai.T
    seam = np.zeros(len(segs), bool)
    for ax, (n, span) in enumerate(((cols, rows * tile), (rows, cols * tile))):
        k = np.round(p[:, ax] / tile)
        seam |= ((np.abs(p[:, ax] - tile * k) < 3) & (np.abs(q[:, ax] - tile * k) < 3) & (k >= 0) & (k <= n)
                 & (np.minimum(p[:, 1 - ax], q[:, 1 - ax]) > -3) & (np.maximum(p[:, 1 - ax], q[:, 1 - ax]) < span + 3))
    mid = ((segs[:, :2] + segs[:, 2:4]) / 2).astype(int)
    near = cv2.dilate(inside.astype(np.uint8), np.ones((21, 21), np.uint8))
    far = near[mid[:, 1].clip(0, inside.shape[0] - 1), mid[:, 0].clip(0, inside.shape[1] - 1)] == 0
    return seam, far


@pytest.mark.parametrize("seed, board_turn, cloth_turn", [(1, 13.0, 1.0), (2, 23.0, 2.0), (3, 33.0, 30.0)])
def test_cloth_segments_are_set_aside_and_seams_kept(seed, board_turn, cloth_turn):
    """A checked cloth's edges repeat one period away, the seams between tiles do not: the cloth's segments are
    set aside before the lattice search (also with the cloth nearly aligned with the board), the seams kept."""
    img, A, inside = _cloth_with_board(seed, board_turn, cloth_turn)
    cfg = GridConfig()
    segs = G._segments(img, cfg)
    cloth = G._cloth_segments(segs, G._Evidence(img, cfg), cfg)
    seam, far = _seams_and_far(segs, A, inside, 100, 3, 4)
    assert far.sum() > 2000 and seam.sum() > 100
    assert cloth[far].mean() > 0.9
    assert cloth[seam].sum() <= 1


def test_a_board_alone_is_no_pattern():
    """Tiles repeat their seams but not their art: on a plain table no seam of a 7 x 5 board is set aside."""
    img, A, inside = _cloth_with_board(7, 8.0, 0.0, cloth=False, tile=70, cols=7, rows=5)
    cfg = GridConfig()
    segs = G._segments(img, cfg)
    cloth = G._cloth_segments(segs, G._Evidence(img, cfg), cfg)
    seam, _ = _seams_and_far(segs, A, inside, 70, 7, 5)
    assert seam.sum() > 150
    assert cloth[seam].sum() == 0


def test_cloth_period_is_measured():
    """The windows of a checked cloth (period 30 pixels, turned 10 degrees) report periods of its pattern:
    whole multiples of 30 pixels along both of its axes, nine in ten to 0.6 pixel."""
    img, _, _ = _cloth_with_board(1, 0.0, 10.0, tile=1, cols=1, rows=1)
    ev = G._Evidence(img, GridConfig())
    lags = np.concatenate([lags.reshape(-1, 2) for _, lags, _ in ev.cloth_windows()])
    lags = lags[np.isfinite(lags).all(axis=1)]
    ang = np.radians(10.0)
    along_axes = lags @ np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]]) / 30.0
    assert len(lags) > 40
    assert np.all(np.abs(along_axes).max(axis=1) > 0.9)
    assert np.percentile(np.abs(along_axes - np.round(along_axes)), 90) * 30.0 < 0.6


# --------------------------------------------------------------------------- geometry on exact seams


def _lattice_photo_map(k1: float, k2: float) -> tuple[np.ndarray, callable]:
    """A tilted lattice seen through a lens: (Hn, lattice -> distorted normalised coordinates)."""
    tilt, turn, f = np.radians(35.0), np.radians(20.0), 1.3
    R = np.array([[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]]) @ np.array(
        [[np.cos(turn), -np.sin(turn), 0], [np.sin(turn), np.cos(turn), 0], [0, 0, 1]])
    K = np.diag([f, f, 1.0])
    P = K @ np.c_[R[:, 0], R[:, 1], R @ np.array([-4.0, -3.0, 0.0]) + np.array([0, 0, 14.0])]
    Hn = np.linalg.inv(P)  # undistorted normalised -> lattice

    def to_q(lat: np.ndarray) -> np.ndarray:
        u = G._apply(P, lat)
        q = u.copy()
        for _ in range(30):
            r2 = np.sum(q * q, axis=1, keepdims=True)
            q = u / (1 + k1 * r2 + k2 * r2 * r2)
        return q

    return Hn / Hn[2, 2], to_q


def _seams(to_q, n: int = 8, *, roads: bool = False, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Segments along every tile side of an n x n board (and road edges along some tiles' middles)."""
    rng = rng or np.random.default_rng(0)
    a, b = [], []
    for i in range(n + 1):
        for j in range(n):
            a += [[i, j + 0.1], [j + 0.1, i]]
            b += [[i, j + 0.9], [j + 0.9, i]]
    if roads:
        for i in range(n):
            for j in range(n):
                if rng.random() < 0.3:
                    for e in (-0.07, 0.07):
                        a.append([i + 0.1, j + 0.5 + e])
                        b.append([i + 0.9, j + 0.5 + e])
    a, b = np.array(a, float), np.array(b, float)
    return to_q(a), to_q(b)


def test_fit_recovers_homography_and_lens():
    """Exact seams through a lens: the fit finds lattice and lens; the lens prior only holds k1, k2 back a little."""
    Hn, to_q = _lattice_photo_map(0.10, 0.03)
    q1, q2 = _seams(to_q)
    start = np.array([[1, 0.02, 0.1], [0.01, 1, -0.08], [0, 0, 1.0]]) @ Hn  # a little off
    pts = np.array([[x, y] for x in np.linspace(0, 8, 9) for y in np.linspace(0, 8, 9)])
    H, k1, k2, used = G._fit(start, 0.05, q1, q2, 1000.0, GridConfig(fit_lens_prior=1.0))
    got = G._apply(H, G._undistort(to_q(pts), k1, k2))
    assert used == len(q1)
    assert np.abs(got - pts).max() < 0.002
    assert (k1, k2) == pytest.approx((0.10, 0.03), abs=0.005)
    H, k1, k2, _ = G._fit(start, 0.05, q1, q2, 1000.0, GridConfig())
    got = G._apply(H, G._undistort(to_q(pts), k1, k2))
    assert np.abs(got - pts).max() < 0.05


@pytest.mark.parametrize("change, name", [
    (np.diag([2.0, 2.0, 1.0]), "half the period"),
    (np.array([[0.5, 0, 0], [0, 0.5, 0], [0, 0, 1.0]]), "double the period"),
    (np.array([[1, 0, 0.5], [0, 1, 0], [0, 0, 1.0]]), "half a tile off"),
])
def test_settle_puts_the_lattice_back_on_the_seams(change, name):
    Hn, to_q = _lattice_photo_map(0.0, 0.0)
    q1, q2 = _seams(to_q, roads=True)
    settled = G._settle(change @ Hn, np.c_[q1, q2], GridConfig())
    pts = np.array([[x, y] for x in range(9) for y in range(9)], float)
    got = G._apply(settled, G._apply(np.linalg.inv(Hn), pts))
    assert np.abs(got - np.round(got)).max() < 1e-6, name  # tile corners on lattice corners
    assert np.abs(np.diff(got[:2], axis=0)).sum() == pytest.approx(1.0), name  # one tile per cell


def test_grid_maps_round_trip_with_k2():
    g = Grid(np.array([[3.0, 0.2, 1.0], [-0.1, 2.5, 0.5], [0.05, 0.1, 1.0]]), (600, 800), k1=0.1, k2=0.03)
    px = np.array([[10.0, 20.0], [400.0, 300.0], [790.0, 590.0]])
    assert np.abs(g.to_photo(g.to_lattice(px)) - px).max() < 1e-6
