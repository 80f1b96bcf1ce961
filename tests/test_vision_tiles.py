"""Tile recognition, board decoding, tile appearance and calibration.

Photos are synthesised (seeded) by :mod:`scorer.render.synth`; the lattice is
built from the synthesiser's exact cell corners so that these tests measure
tile recognition alone (grid detection has its own tests).  The accuracy
thresholds are the figures measured on these seeds, with a little slack only
where JPEG and OpenCV builds may differ.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from scorer.board import Board, Placement
from scorer.errors import PhotoError, TableNotFoundError
from scorer.generate import generate_game
from scorer.render.synth import SynthParams, generated_photo, synthesize
from scorer.tiles import catalog_for, load_tileset
from scorer.vision.appearance import (
    Appearance,
    AppearanceError,
    calibrate,
    load_appearance,
    save_appearance,
)
from scorer.vision.config import ConfigError, VisionConfig, default_toml, load_config
from scorer.vision.decode import DecodeProblem, decode_problem
from scorer.vision.grid import Grid
from scorer.vision.photo import load_photo
from scorer.vision.recognise import TileConfig, _detail_fit, guess_catalog, read_tiles, survey_lattice

ART = Path(__file__).resolve().parents[2] / "shared" / "tile_art"


# --------------------------------------------------------------------------- helpers


def truth_grid(res, shape: tuple[int, int] | None = None) -> Grid:
    """The lattice of a synthetic photo from its exact cell corners (lens distortion included);
    ``shape``: of the photo shrunk to that size (pixel centres kept), default the photo's own."""
    H0, W0 = res.image.shape[:2]
    h, w = (H0, W0) if shape is None else shape
    src, dst = [], []
    for (x, y), corners in res.cell_corners.items():
        src += [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]
        dst += [[(px + 0.5) * w / W0 - 0.5, (py + 0.5) * h / H0 - 0.5] for px, py in corners]
    c = np.array([w / 2, h / 2])
    n = 0.5 * np.hypot(w, h)
    q = (np.array(dst, float) - c) / n
    r2 = (q * q).sum(axis=1, keepdims=True)
    u = q * (1 + res.lens.k1 * r2 + res.lens.k2 * r2 * r2)
    H, _ = cv2.findHomography(u.astype(np.float32), np.array(src, np.float32), 0)
    return Grid(H, (h, w), k1=res.lens.k1)


def series_photo(tmp_path: Path, index: int, seed: int = 8811301):
    """Photo ``index`` of the Gold Rush series ``scorer synth --generate N --seed SEED --difficulty
    mixed --game goldrush --expansions sheriff``, read from its JPEG file at the pipeline's working
    size: (synthesis result, (H, W, 3) uint8 RGB photo, the synthesiser's exact lattice)."""
    res, _level, _ = generated_photo("goldrush", ["sheriff"], seed, index, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    rgb = load_photo(path, max_side=load_config().photo.max_side)
    return res, rgb, truth_grid(res, rgb.shape[:2])


def photo(game: str, expansions: list[str], n_tiles: int, seed: int, *, megapixels: float = 0.6, **params):
    rng = np.random.default_rng(seed)
    board = generate_game(game, expansions, n_tiles=n_tiles, rng=rng)
    p = SynthParams.random(rng, "easy", megapixels=megapixels)
    for key, value in params.items():
        setattr(p, key, value)
    return synthesize(board, rng=rng, params=p)


def right_tiles(res, reading) -> tuple[int, int, int]:
    """(tiles right, truth tiles, extra tiles) of a reading, lattice = truth cells."""
    right = extra = 0
    for cell, p in res.truth.tiles.items():
        r = reading.cells.get(cell)
        if r is not None and r.tile_id == p.tile.id:
            turn = (r.rot - p.rot) % 4
            right += turn == 0 or turn in p.tile.symmetries()
    extra = sum(1 for c in reading.cells if c not in res.truth.tiles)
    return right, len(res.truth.tiles), extra


# --------------------------------------------------------------------------- configuration


def test_config_toml_mirrors_the_stage_defaults():
    cfg = load_config()
    defaults = VisionConfig()
    assert cfg.tiles == defaults.tiles
    assert cfg.grid == defaults.grid, "scorer/vision/config.toml [grid] differs from GridConfig: regenerate it"
    assert cfg.photo == defaults.photo
    assert cfg.figures == defaults.figures, "scorer/vision/config.toml [figures] differs from FigureConfig: regenerate it"
    assert "[tiles]" in default_toml() and "top_k = 8" in default_toml()


def test_config_rejects_unknown_thresholds(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text("[tiles]\ntop_k = 5\n")
    assert load_config(path).tiles.top_k == 5
    path.write_text("[tiles]\ntopk = 5\n")
    with pytest.raises(ConfigError, match=r"\[tiles\]: unknown threshold 'topk'"):
        load_config(path)
    path.write_text("[tiles]\ntop_k = 'five'\n")
    with pytest.raises(ConfigError, match="'top_k' must be an integer"):
        load_config(path)


# --------------------------------------------------------------------------- recognition


@pytest.mark.parametrize(
    "game, expansions, seed, at_least",
    [
        ("carcassonne", [], 11, 25),
        ("carcassonne", ["river", "goldmines"], 12, 25),  # river tiles whose drawings are twins
        ("goldrush", ["sheriff"], 13, 22),  # measured again when the renderer moved its figures
        ("goldrush", ["sheriff"], 14, 25),  # gold stacks and figures hide parts of the tiles
    ],
)
def test_reads_synthetic_photos(game, expansions, seed, at_least):
    res = photo(game, expansions, 25, seed)
    reading = read_tiles(res.image, truth_grid(res), res.truth.catalog)
    right, total, extra = right_tiles(res, reading)
    assert total == 25
    assert right >= at_least
    assert extra == 0
    for r in reading.cells.values():
        assert 0.0 <= r.confidence <= 1.0
        assert len(r.alternatives) <= 3
        assert all(set(a) == {"tile", "rot", "confidence"} for a in r.alternatives)
    crop = reading.patch(next(iter(reading.cells)), pad=0.1)
    assert crop.shape == (76, 76, 3) and crop.dtype == np.uint8


def test_tiles_are_read_through_the_figures_on_them():
    """A figure hides a fifth of a tile: the tile stage marks it and compares what stays visible."""
    res = photo("goldrush", ["sheriff"], 25, 14)
    on = read_tiles(res.image, truth_grid(res), res.truth.catalog)
    off_cfg = load_config().tiles
    off_cfg.occlusion = False
    off = read_tiles(res.image, truth_grid(res), res.truth.catalog, off_cfg)
    assert right_tiles(res, on)[0] == 25
    assert right_tiles(res, off)[0] <= 23  # without: the figures drag the matches astray
    things = [*res.truth.meeples, *res.truth.tents, *res.truth.gold, *res.truth.ore]
    figures = {(f.x, f.y) for f in things + ([res.truth.sheriff] if res.truth.sheriff else [])}
    hidden = {(x, y) for x, y, _ in on.debug["hidden"]}
    assert len(figures) == 11
    assert len(hidden & figures) >= 8  # measured: 8 of the 11 (since the renderer moved its figures), no other cell
    assert len(hidden - figures) <= 1
    assert all(0.0 < share <= 0.6 for _, _, share in on.debug["hidden"])


def test_a_blob_painted_on_a_tile_is_hidden_and_the_tile_still_read():
    res = photo("carcassonne", [], 25, 61)
    g = truth_grid(res)
    cell = (2, 2)
    assert res.truth.tiles[cell].tile.id == "A" and cell not in {(m.x, m.y) for m in res.truth.meeples}
    centre = g.to_photo(np.array([[cell[0] + 0.5, cell[1] + 0.62]]))[0]
    side = float(np.linalg.norm(g.to_photo(np.array([[3.0, 2.0]])) - g.to_photo(np.array([[2.0, 2.0]]))))
    img = res.image.copy()
    cv2.circle(img, (int(centre[0]), int(centre[1])), int(0.16 * side), (150, 30, 200), -1)
    reading = read_tiles(img, g, res.truth.catalog)
    share = {(x, y): h for x, y, h in reading.debug["hidden"]}
    assert 0.12 <= share[cell] <= 0.3  # the disc covers about 0.08 of the tile, its shadow of misfit a little more
    got = reading.cells[cell]
    assert (got.tile_id, got.rot) == ("A", res.truth.tiles[cell].rot)


def test_position_prior_follows_the_surely_matched_neighbours():
    from scorer.vision.recognise import TileConfig, _predicted_offsets

    cfg = TileConfig()
    cells = np.array([(x, y) for y in range(5) for x in range(5)])
    ncc = np.full((25, 2), 0.9)
    offset = np.zeros((25, 2, 2), np.int64)
    offset[:, :, 0] = 2  # every tile lies 2 pixels east of its lattice cell
    k = 12  # (2, 2): a wrong template fitted far away, not surely
    ncc[k] = (0.6, 0.5)
    offset[k] = (-6, 5)
    pred = _predicted_offsets(cells, ncc, offset, cfg)
    assert pred.shape == (25, 2)
    assert pred[k].tolist() == [2.0, 0.0]
    assert (pred[:, 0] == 2.0).all() and (pred[:, 1] == 0.0).all()
    # Too few sure cells: no prediction, each cell keeps its own search.
    assert _predicted_offsets(cells, np.full((25, 2), 0.5), offset, cfg) is None


def test_position_prior_listens_only_to_the_voters_given():
    """Cells whose colours are not the tiles' (a striped cloth) do not tell where the tiles lie."""
    from scorer.vision.recognise import TileConfig, _predicted_offsets

    cfg = TileConfig()
    cells = np.array([(x, y) for y in range(5) for x in range(5)])
    ncc = np.full((25, 2), 0.9)
    offset = np.zeros((25, 2, 2), np.int64)
    offset[:, :, 0] = 2
    cloth = cells[:, 1] >= 2  # three rows of cloth cells that fit a template well, 5 pixels off
    offset[cloth, :, 1] = 5
    voters = ~cloth
    pred = _predicted_offsets(cells, ncc, offset, cfg, voters=voters)
    assert (pred[:, 0] == 2.0).all() and (pred[:, 1] == 0.0).all()
    assert (_predicted_offsets(cells, ncc, offset, cfg)[cloth, 1] == 5.0).all()  # without: the cloth wins


def test_white_balance_ignores_cells_that_need_a_strong_cast():
    from types import SimpleNamespace

    from scorer.vision.recognise import _white_balance

    px, inset = 10, 0.1
    art = np.array([[170.0, 150.0, 100.0]])  # the one template: sand
    tpl = SimpleNamespace(mean_rgb=art)
    n = 23  # 3 tiles and 20 cells of cloth, all matched surely
    cells = np.array([(x, 0) for x in range(n)])
    img = np.zeros((px, n * px, 3), np.float32)
    for x in range(n):
        cast = (1.04, 1.0, 0.96) if x < 3 else (0.75, 0.9, 1.5)  # blue and white stripes
        img[:, x * px:(x + 1) * px] = art[0] * np.array(cast)
    score = np.full((n, 1), 0.9)
    cand = np.zeros((n, 1), np.int64)
    gains, consensus = _white_balance(img, cells, (0, 0), px, inset, score, cand, tpl, 0.8, 0.3)
    assert consensus.tolist() == [True] * 3 + [False] * 20
    expect = np.array([1.04, 1.0, 0.96])
    assert np.allclose(gains, expect / expect.mean(), atol=1e-3)
    gains, consensus = _white_balance(img, cells, (0, 0), px, inset, score, cand, tpl, 0.8)  # no limit
    assert consensus.tolist() == [False] * 3 + [True] * 20  # without: the cloth sets the colours


def test_white_balance_counts_few_copies_of_one_tile():
    """Wood grain the colour of a plain prairie, matched to that one tile all round the board, does not
    outvote a smaller board of many different tiles: the board holds few copies of any one tile."""
    from types import SimpleNamespace

    from scorer.vision.recognise import _white_balance

    px, inset = 10, 0.1
    kinds = 12  # the board's tile types, all sand-coloured art
    art = np.tile([[170.0, 150.0, 100.0]], (kinds + 1, 1))  # the last one: plain prairie
    tpl = SimpleNamespace(mean_rgb=art, keys=[(f"T{k:02d}", 0) for k in range(kinds + 1)])
    board, wood = 24, 40  # 24 tiles of 12 types (2 copies each), 40 cells of wood fitting the prairie
    n = board + wood
    cells = np.array([(x, 0) for x in range(n)])
    img = np.zeros((px, n * px, 3), np.float32)
    for x in range(n):
        cast = (0.98, 1.0, 1.02) if x < board else (1.14, 0.98, 0.89)  # a mild cast, but not the tiles'
        img[:, x * px:(x + 1) * px] = art[0] * np.array(cast)
    score = np.full((n, 1), 0.9)
    cand = np.array([[x % kinds] if x < board else [kinds] for x in range(n)], np.int64)
    gains, consensus = _white_balance(img, cells, (0, 0), px, inset, score, cand, tpl, 0.8, 0.3, per_tile=4)
    assert consensus.tolist() == [True] * board + [False] * wood
    expect = np.array([0.98, 1.0, 1.02])
    assert np.allclose(gains, expect / expect.mean(), atol=1e-3)
    gains, consensus = _white_balance(img, cells, (0, 0), px, inset, score, cand, tpl, 0.8, 0.3)  # every cell counts
    assert consensus.tolist() == [False] * board + [True] * wood  # the wood sets the colours


def test_typical_tile_colours_ignore_cells_that_need_a_strong_cast():
    """A striped cloth that fits a rail's structure does not set the photo's typical tile colours."""
    from scorer.vision.recognise import TileConfig, _Match, _cast, _tone

    cfg = TileConfig()
    n = 23  # 3 tiles and 20 cells of blue and white cloth, all matched surely
    art = np.array([170.0, 150.0, 100.0])
    cast = np.array([(1.04, 1.0, 0.96)] * 3 + [(0.75, 0.9, 1.5)] * 20)
    gain = np.array([0.9] * 3 + [0.5] * 20)
    xmean = (gain[:, None] * art * cast)[:, None, :]
    tmean = np.broadcast_to(art, (n, 1, 3)).copy()
    match = _Match(cells=np.array([(x, 0) for x in range(n)]), cand=np.zeros((n, 1), np.int64),
                   score=np.full((n, 1), 0.9), shift=np.zeros((n, 1, 2)), contrast=gain[:, None],
                   colour=np.zeros((n, 1)), xmean=xmean, tmean=tmean, spread=np.zeros((n, 1)))
    assert _cast(match)[:3] == pytest.approx(0.04, abs=0.005)
    assert (_cast(match)[3:] > cfg.max_cast).all()
    g, offset = _tone(match, cfg)
    assert g == pytest.approx(0.9)  # the tiles' contrast, not the cloth's 0.5
    assert np.abs(offset - (0.9 * art * cast[0] - 0.9 * art)).max() < 1e-6


def test_chroma_penalty_is_blind_to_shading_not_to_colour():
    from scorer.vision.recognise import TileConfig, _chroma_penalty

    cfg = TileConfig()
    field = np.array([70.0, 140.0, 50.0])
    city = np.array([180.0, 120.0, 70.0])
    tone = (1.0, np.zeros(3))
    x = np.stack([field, 0.6 * field, field])[:, None, :]  # a field in light, in shade, and again
    t = np.stack([field, field, city])[:, None, :]
    pen = _chroma_penalty(x, t, tone, cfg)[:, 0]
    assert pen[0] == pytest.approx(0.0, abs=1e-9)
    assert pen[1] == pytest.approx(0.0, abs=1e-9)  # shading scales every channel alike
    assert pen[2] == pytest.approx(cfg.chroma_weight * cfg.chroma_cap)  # a city drawn where a field shows


def test_only_cells_near_tile_like_cells_are_examined():
    from scorer.vision.recognise import TileConfig, _board_cells

    cfg = TileConfig()
    cells = np.array([(x, y) for y in range(-3, 7) for x in range(10)])
    best = np.full(len(cells), 0.6)
    best[(cells[:, 0] == 2) & (cells[:, 1] == 0)] = 0.95
    best[(cells[:, 0] == 9) & (cells[:, 1] == 6)] = cfg.board_score
    keep = _board_cells(cells, best, cfg)
    kept = {tuple(c) for c in cells[keep].tolist()}
    near = {(x, y) for x in range(0, 5) for y in range(-2, 3)} | {(x, y) for x in range(7, 10) for y in range(4, 7)}
    assert kept == near
    assert _board_cells(cells, np.full(len(cells), 0.6), cfg).all()  # nothing tile-like: every cell


def test_one_survey_serves_guess_catalog_and_read_tiles():
    base = catalog_for("carcassonne", ["river", "goldmines"])
    gold = catalog_for("goldrush", ["sheriff"])
    res = photo("goldrush", ["sheriff"], 16, 33)
    grid = truth_grid(res)
    survey = survey_lattice(res.image, grid)
    catalog = guess_catalog(res.image, grid, [base, gold], survey=survey)
    # the survey keeps the chosen catalogue's coarse match only
    assert catalog is gold and len(survey.scores) == 1
    shared = read_tiles(res.image, grid, catalog, survey=survey)
    fresh = read_tiles(res.image, grid, catalog)

    def tiles(reading):
        return {c: (r.tile_id, r.rot) for c, r in reading.cells.items()}

    assert tiles(shared) == tiles(fresh)
    assert right_tiles(res, shared) == (15, 16, 0)  # measured since the renderer moved its figures


def test_cut_cells_are_reported_not_guessed():
    res = photo("carcassonne", [], 30, 21, k1=0.0, k2=0.0)
    g = truth_grid(res)
    h, w = res.image.shape[:2]
    x0 = w // 2  # keep the right half: the photo's new left edge cuts through the board
    crop = np.ascontiguousarray(res.image[:, x0:])
    moved = _pixel_grid(g.H @ np.array([[1, 0, x0], [0, 1, 0], [0, 0, 1.0]]), crop.shape[:2])
    reading = read_tiles(crop, moved, res.truth.catalog)
    assert reading.cut, "a board cut by the photo's edge has cells on the edge"
    assert not set(reading.cut) & set(reading.cells)
    for cell in reading.cells:  # only whole cells are read
        assert (res.cell_corners[cell][:, 0] >= x0 - 1).all() if cell in res.cell_corners else True
    cut_truth = {c for c, k in res.cell_corners.items() if (k[:, 0] < x0).any() and (k[:, 0] > x0).any()}
    assert cut_truth <= set(reading.cut)


def test_guess_catalog_tells_the_games_apart():
    base = catalog_for("carcassonne", ["river", "goldmines"])
    gold = catalog_for("goldrush", ["sheriff"])
    res = photo("goldrush", [], 20, 31)
    assert guess_catalog(res.image, truth_grid(res), [base, gold]) is gold
    res = photo("carcassonne", [], 20, 32)
    assert guess_catalog(res.image, truth_grid(res), [base, gold]) is base


# --------------------------------------------------------------------------- failures


def test_too_dark_photo_is_refused():
    res = photo("carcassonne", [], 12, 41)
    dark = (res.image.astype(np.float32) * 0.08).astype(np.uint8)
    with pytest.raises(PhotoError, match="too dark"):
        read_tiles(dark, truth_grid(res), res.truth.catalog)


def test_too_small_tiles_are_refused():
    res = photo("carcassonne", [], 12, 42)
    small = cv2.resize(res.image, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA)
    # The same lattice for the shrunk photo (its pixels are 8 of the original's).
    g = truth_grid(res)
    with pytest.raises(PhotoError, match="pixels wide"):
        read_tiles(small, _pixel_grid(g.H @ np.diag([8.0, 8.0, 1.0]), small.shape[:2]), res.truth.catalog)


def _pixel_grid(H: np.ndarray, shape: tuple[int, int]) -> Grid:
    """A distortion-free Grid from a pixel homography."""
    h, w = shape
    n = 0.5 * float(np.hypot(w, h))
    N_inv = np.array([[n, 0, w / 2], [0, n, h / 2], [0, 0, 1]])
    return Grid(H @ N_inv, shape)


def test_too_blurry_photo_is_refused():
    res = photo("carcassonne", [], 12, 43, megapixels=1.5)
    blurry = cv2.GaussianBlur(res.image, (0, 0), 14)  # about 10% of a tile
    with pytest.raises(PhotoError, match="too blurry"):
        read_tiles(blurry, truth_grid(res), res.truth.catalog)


def test_nothing_tile_like_is_refused():
    rng = np.random.default_rng(0)
    table = cv2.GaussianBlur(rng.integers(90, 140, (600, 800, 3)).astype(np.uint8), (0, 0), 3)
    H = np.array([[1 / 80, 0, 0], [0, 1 / 80, 0], [0, 0, 1]])
    with pytest.raises(TableNotFoundError, match="looks like"):
        read_tiles(table, _pixel_grid(H, table.shape[:2]), catalog_for("carcassonne"))


def test_detail_comparison_in_chromaticity_is_blind_to_a_shadow():
    # Two look-alikes: a red-striped camp at the top left, or brown wild horses at the
    # bottom right.  The photo shows the camp, faint, and a figure's shadow where the horses
    # would be: in RGB the dark shadow looks more like the horses than the faint camp
    # looks like the camp; its colour is the ground's.
    dw, r = 32, 1
    ground = np.array([204, 184, 112], np.float32)
    camp = np.tile(ground, (dw, dw, 1))
    horses = camp.copy()
    camp[4:11, 4:11] = (190, 54, 40)
    horses[20:28, 20:28] = (118, 72, 38)
    photo = np.tile(ground, (dw + 2 * r, dw + 2 * r, 1))
    photo += np.random.default_rng(0).normal(0, 3, photo.shape).astype(np.float32)
    window = photo[r:r + dw, r:r + dw]
    window[4:11, 4:11] = 0.5 * window[4:11, 4:11] + 0.5 * np.array([190, 54, 40])
    window[18:30, 18:30] *= 0.55
    D = np.stack([camp, horses]).reshape(2, dw * dw, 3)
    mask = (np.abs(camp - horses).sum(axis=2) > 60).reshape(-1)
    cfg = load_config().tiles
    assert cfg.detail_chroma == 0.5
    fits = {c: _detail_fit(photo, None, D, mask, r, r, dw, r, 0, dataclasses.replace(cfg, detail_chroma=c))[0]
            for c in (0.0, 0.5)}
    assert fits[0.0][1] > fits[0.0][0] + 0.5  # RGB alone: the shadow reads as the horses
    assert fits[0.5][0] > fits[0.5][1] + 0.5


# --------------------------------------------------------------------------- decoding


def test_decode_repairs_a_cell_that_does_not_fit_its_neighbours():
    cat = catalog_for("carcassonne")
    # North of the centre: a tile whose south side is a road.
    north = next((k for k in (("V", r) for r in range(4)) if cat["V"].edge_signature(k[1])[2] == "road"))
    problem = DecodeProblem(
        [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)],
        [[("L", 0), ("X", 0)], [("U", 0)], [("U", 0)], [north], [("U", 1)]],
        [np.array([0.80, 0.76]), np.array([0.9]), np.array([0.9]), np.array([0.9]), np.array([0.9])],
    )
    assert cat["L"].edge_signature(0)[0] == "city"  # L's north (city) meets a road: wrong
    dec = decode_problem(problem, cat)
    assert dec.labels[0] == ("X", 0)
    assert dec.mismatches == 0
    # Without the neighbours the better match wins.
    alone = decode_problem(DecodeProblem([(0, 0)], [[("L", 0), ("X", 0)]], [np.array([0.80, 0.76])]), cat)
    assert alone.labels[0] == ("L", 0)


def test_decode_respects_the_box_count():
    cat = catalog_for("carcassonne")
    assert cat.box_count("C") == 1
    # Two far-apart cells both look most like C (one city on all four sides).
    problem = DecodeProblem(
        [(0, 0), (5, 5)],
        [[("C", 0), ("R", 0)], [("C", 0), ("Q", 0)]],
        [np.array([0.90, 0.85]), np.array([0.92, 0.80])],
    )
    dec = decode_problem(problem, cat)
    assert [l[0] for l in dec.labels].count("C") == 1
    assert dec.labels[1] == ("C", 0)  # the better match keeps it
    assert dec.labels[0] == ("R", 0)
    assert dec.over_box == {}


def test_decode_gives_a_tile_of_the_box_to_the_cell_that_needs_it():
    cat = catalog_for("carcassonne")
    assert cat.box_count("X") == 1
    north = next((k for k in (("V", r) for r in range(4)) if cat["V"].edge_signature(k[1])[2] == "road"))
    assert cat["L"].edge_signature(0)[0] == "city" and cat["X"].edge_signature(0)[0] == "road"
    # (0, 0) looks a hair more like X than L and only X meets the road north of it; (5, 5) looks
    # like X or, clearly less, W.  The surer match of the two takes X first, (0, 0) takes L, and
    # no single cell can move from there: X taken twice costs more than the side L gets wrong.
    problem = DecodeProblem(
        [(0, 0), (0, -1), (5, 5)],
        [[("X", 0), ("L", 0)], [north], [("X", 0), ("W", 0)]],
        [np.array([0.90, 0.89]), np.array([0.9]), np.array([0.95, 0.85])],
    )
    dec = decode_problem(problem, cat)
    assert dec.labels == [("X", 0), north, ("W", 0)]
    assert dec.mismatches == 0 and dec.over_box == {}
    # A cell that matches the tile it wants below swap_min (a patch of table) takes no copy.
    dec = decode_problem(problem, cat, swap_min=0.92)
    assert dec.labels == [("L", 0), north, ("X", 0)]
    assert load_config().tiles.box_swap_min == 0.2


def test_decode_merges_rotations_a_symmetric_tile_cannot_tell_apart():
    cat = catalog_for("carcassonne")
    assert cat["U"].symmetries() == (2,)
    problem = DecodeProblem([(0, 0)], [[("U", 0), ("U", 2), ("D", 0)]], [np.array([0.80, 0.80, 0.70])])
    dec = decode_problem(problem, cat, unary_temperature=0.05)
    assert dec.labels[0][0] == "U"
    # exp(0) + exp(0) against exp(-2): the two U rotations share 2 / (2 + e^-2).
    assert dec.confidence[0] == pytest.approx(2 / (2 + np.exp(-2.0)))
    assert [a[0] for a in dec.alternatives[0]] == [("D", 0)]


def test_decode_drops_a_weak_cell_that_fits_no_neighbour():
    cat = catalog_for("carcassonne")
    # A cell that barely looks like C (city all round) beside a field side: empty wins.
    problem = DecodeProblem(
        [(0, 0), (1, 0)],
        [[("B", 0)], [("C", 0)]],
        [np.array([0.95]), np.array([0.55])],
        occupancy=[0.999, 0.6],
    )
    dec = decode_problem(problem, cat, neighbour_prior=(0, 0, 0, 0, 0))
    assert dec.labels == [("B", 0), None]
    assert dec.occupied[1] < 0.5


def test_decode_keeps_the_river_in_one_piece():
    cat = catalog_for("carcassonne", ["river"])
    # A straight river W-E at (0,0)-(1,0); at (3,0) a lone river tile scores a hair above a field tile.
    problem = DecodeProblem(
        [(0, 0), (1, 0), (3, 0)],
        [[("R1.IFI", 1)], [("R1.IFI", 1)], [("R1.IFI", 0), ("B", 0)]],
        [np.array([0.9]), np.array([0.9]), np.array([0.81, 0.80])],
    )
    assert cat["R1.IFI"].edge_signature(1) == ("field", "river", "field", "river")
    dec = decode_problem(problem, cat)
    assert dec.labels[2] == ("B", 0)


# --------------------------------------------------------------------------- appearance and calibration


def _layout_photo(set_name: str, columns: int, seed: int, *, turns: int = 0, art_dir=None):
    ts = load_tileset(set_name)
    board = Board(game=ts.game, expansions=[ts.expansion] if ts.expansion else [])
    for n, t in enumerate(ts.tiles.values()):
        board.tiles[(n % columns, n // columns)] = Placement(n % columns, n // columns, board.catalog[t.id], 0)
    rng = np.random.default_rng(seed)
    p = SynthParams.random(rng, "easy", megapixels=1.0)
    p.rotation_deg, p.clutter, p.tilt_deg = 90.0 * turns + 2.0, 0, 5.0
    return synthesize(board, rng=rng, params=p, art_dir=art_dir), ts


def test_calibrate_round_trip(tmp_path):
    res, ts = _layout_photo("goldmines", 4, 51)
    cal = calibrate(res.image, truth_grid(res), list(ts.tiles.values()), columns=4, name="mine",
                    source="layout.jpg", sets=("goldmines",))
    assert cal.turns == 0
    assert set(cal.appearance.pictures) == set(ts.tiles)
    assert min(cal.scores.values()) > 0.6
    path = save_appearance(cal.appearance, tmp_path / "mine.npz")
    back = load_appearance(path)
    assert back.name == "mine" and back.source == "calibrated:layout.jpg" and back.sets == ("goldmines",)
    for tid, img in cal.appearance.pictures.items():
        assert np.array_equal(back.pictures[tid], img)
    # Read a board of the same tiles with the learnt pictures.
    board = photo("carcassonne", ["goldmines"], 20, 52)
    reading = read_tiles(board.image, truth_grid(board), board.truth.catalog, appearance=back)
    right, total, extra = right_tiles(board, reading)
    assert right >= total - 1 and extra == 0


def test_calibrate_finds_a_turned_layout():
    res, ts = _layout_photo("river1", 5, 53, turns=1)
    cal = calibrate(res.image, truth_grid(res), list(ts.tiles.values()), columns=5, name="r")
    assert cal.turns == 1  # the photo shows the layout turned a quarter clockwise
    # Pictures come back in catalogue orientation: each matches its own tile best.
    from scorer.render.tileart import tile_image

    for tid, img in cal.appearance.pictures.items():
        small = cv2.resize(img, (32, 32), interpolation=cv2.INTER_AREA).astype(np.float32)
        refs = {t: cv2.resize(tile_image(ts.tiles[t], 64), (32, 32), interpolation=cv2.INTER_AREA).astype(np.float32)
                for t in ts.tiles}
        err = {t: float(np.abs(small - r).mean()) for t, r in refs.items()}
        assert min(err, key=err.get) == tid or err[tid] < 1.2 * min(err.values())


def test_calibrate_refuses_bad_columns():
    res, ts = _layout_photo("goldmines", 4, 54)
    with pytest.raises(AppearanceError, match="--columns"):
        calibrate(res.image, truth_grid(res), list(ts.tiles.values()), columns=0, name="x")


def test_load_appearance_by_name_uses_the_config_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(AppearanceError, match="scorer calibrate"):
        load_appearance("nobox")
    app = Appearance("nobox", {"A": np.zeros((8, 8, 3), np.uint8)})
    save_appearance(app, tmp_path / "scorer" / "appearance" / "nobox.npz")
    assert load_appearance("nobox").pictures["A"].shape == (8, 8, 3)


def test_calibrate_command(tmp_path, monkeypatch):
    from scorer.vision.calibrate_cli import calibrate as command

    res, ts = _layout_photo("goldmines", 4, 55)
    path = tmp_path / "layout.jpg"
    path.write_bytes(res.jpeg)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    out = CliRunner().invoke(command, [str(path), "--set", "goldmines", "--columns", "4"])
    assert out.exit_code == 0, out.output
    assert "learnt 8 tiles of 'goldmines'" in out.output
    assert (tmp_path / "cfg" / "scorer" / "appearance" / "goldmines.npz").is_file()
    bad = CliRunner().invoke(command, [str(tmp_path / "missing.jpg"), "--set", "goldmines"])
    assert bad.exit_code == 2 and "does not exist" in bad.output


@pytest.mark.skipif(not (ART / "base_c2").is_dir(), reason="real tile art (../shared/tile_art) is not here")
def test_reads_real_art_with_calibrated_pictures():
    res, ts = _layout_photo("base", 6, 56, art_dir=ART / "base_c2")
    cal = calibrate(res.image, truth_grid(res), list(ts.tiles.values()), columns=6, name="c2")
    assert cal.origin is not None and cal.turns == 0
    rng = np.random.default_rng(57)
    board = generate_game("carcassonne", [], n_tiles=25, rng=rng)
    shot = synthesize(board, rng=rng, params=SynthParams.random(rng, "easy", megapixels=0.8), art_dir=ART / "base_c2")
    reading = read_tiles(shot.image, truth_grid(shot), shot.truth.catalog, appearance=cal.appearance)
    right, total, extra = right_tiles(shot, reading)
    assert right >= total - 2 and extra == 0


# --------------------------------------------------------------------------- template disk cache


def _fresh_templates(catalog, cfg):
    from scorer.vision import recognise

    recognise._TEMPLATE_CACHE.clear()
    return recognise.build_templates(catalog, cfg)


def test_template_cache_round_trip_gives_the_same_templates(tmp_path, monkeypatch):
    from scorer.vision import recognise

    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    cat = catalog_for("carcassonne", [])
    cfg = load_config().tiles
    built = _fresh_templates(cat, cfg)
    files = list((tmp_path / "templates").glob("*.npz"))
    assert len(files) == 1
    monkeypatch.setattr(recognise, "_make_templates", lambda *a: pytest.fail("templates drawn again"))
    read = _fresh_templates(cat, cfg)
    assert read.keys == built.keys and read.alias == built.alias and read.catalog_ids == built.catalog_ids
    for name in recognise._TEMPLATE_ARRAYS:
        a, b = getattr(read, name), getattr(built, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    recognise._TEMPLATE_CACHE.clear()


def test_template_cache_key_follows_config_and_catalogue(tmp_path, monkeypatch):
    from scorer.vision import recognise

    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    cfg = load_config().tiles
    base = recognise._template_file(catalog_for("carcassonne", []), cfg, None)
    assert base.parent == tmp_path / "templates"
    assert recognise._template_file(catalog_for("carcassonne", []), cfg, None) == base
    other = [recognise._template_file(catalog_for("carcassonne", ["river"]), cfg, None),
             recognise._template_file(catalog_for("carcassonne", []), TileConfig(blur=0.03), None),
             recognise._template_file(catalog_for("carcassonne", []), cfg,
                                      Appearance("x", {"A": np.zeros((8, 8, 3), np.uint8)}))]
    assert len({base, *other}) == 4


def test_corrupt_template_cache_is_rebuilt_with_a_log_line(tmp_path, monkeypatch, caplog):
    from scorer.vision import recognise

    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    cat = catalog_for("carcassonne", [])
    cfg = load_config().tiles
    built = _fresh_templates(cat, cfg)
    (path,) = (tmp_path / "templates").glob("*.npz")
    for junk in (b"not a cache file", path.read_bytes()[:5000]):
        path.write_bytes(junk)
        with caplog.at_level("WARNING", logger="scorer.vision.recognise"):
            again = _fresh_templates(cat, cfg)
        assert "unreadable" in caplog.text and str(path) in caplog.text
        assert again.keys == built.keys and np.array_equal(again.detail, built.detail)
        assert recognise._load_templates(path, cat) is not None  # written again, whole
        caplog.clear()
    recognise._TEMPLATE_CACHE.clear()


def test_template_cache_folder_from_the_environment(tmp_path, monkeypatch):
    from scorer.vision import recognise

    monkeypatch.delenv("SCORER_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert recognise.cache_dir() == tmp_path / "xdg" / "scorer"
    monkeypatch.setenv("SCORER_CACHE_DIR", "off")
    assert recognise.cache_dir() is None
    assert recognise._template_file(catalog_for("carcassonne", []), load_config().tiles, None) is None
    _fresh_templates(catalog_for("carcassonne", []), load_config().tiles)
    assert not (tmp_path / "xdg").exists()
    recognise._TEMPLATE_CACHE.clear()


def test_template_cache_keeps_only_the_most_recently_used_files(tmp_path):
    """Given eight template files of other versions, used one after another, when the folder is
    pruned, then the six most recently used remain."""
    import os

    from scorer.vision import recognise

    files = [tmp_path / f"{k}.npz" for k in range(8)]
    for k, f in enumerate(files):
        f.write_bytes(b"x")
        os.utime(f, (1000 + k, 1000 + k))
    recognise.prune_cache(tmp_path, recognise._TEMPLATE_FILES_KEPT, "*.npz")
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == [f"{k}.npz" for k in range(2, 8)]


def test_a_flat_window_matches_no_template():
    """Given windows of a flat white cloth (grey 240 give or take a hundredth) and zero-mean unit
    templates, when matched, then every NCC is near 0: the window's norm is floored
    (recognise.NORM_FLOOR_GREY), and the float32 rounding noise is not divided by a norm near 0
    (such cells once matched at 1.00 to 2.0 and made a clear board look like no tile at all)."""
    from scorer.vision import recognise as R

    rng = np.random.default_rng(44)
    w = 8
    stack = (240.0 + rng.uniform(-0.01, 0.01, (5, 12, 12, 3))).astype(np.float32)
    T = rng.standard_normal((6, 3 * w * w))
    T -= T.mean(axis=1, keepdims=True)
    T = (T / np.linalg.norm(T, axis=1, keepdims=True)).astype(np.float32)
    best, _k, norms = R._ncc(stack, w, T, None)
    assert np.abs(best).max() < 0.01
    assert np.all(norms >= R.NORM_FLOOR_GREY * np.sqrt(3 * w * w) - 1e-3)
    # A window with a tile's contrast keeps its plain normalised correlation.
    tile = rng.uniform(0, 255, (1, w, w, 3)).astype(np.float32)
    tc = tile.transpose(0, 3, 1, 2).reshape(1, -1)  # channel-major, as the templates are
    t = (tc - tc.reshape(3, -1).mean(axis=1).repeat(w * w)[None]).astype(np.float32)
    t /= np.linalg.norm(t)
    got, _, _ = R._ncc(tile, w, t, None)
    assert got[0, 0] == pytest.approx(1.0, abs=1e-4)

