"""Figure detection on small synthesised photos with known figures.

Each scene is a tiny board rendered once by :func:`scorer.render.synth.synthesize`
with fixed parameters (a phone photo tilted 12 degrees, even light); the
figure stage reads it with the true tiles and a grid fitted to the true cell
corners, so only the figure stage is under test.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.board import Board, Placement
from scorer.errors import ScorerError
from scorer.evaluate import compare_boards
from scorer.render.synth import SynthParams, synthesize
from scorer.vision import colour
from scorer.vision.figures import (FigureConfig, FigureReading, _Blob, _colour_gap, _crowded_cells, _drop_cells,
                                   _figure_colours, _find_blobs, _inside_outline, _lean_back, _locate_read,
                                   _make_canvas, _render, _shading_fit, _spot, _split_lobes, _Tile, camera_from_grid,
                                   read_figures)
from scorer.vision.grid import Grid
from scorer.vision.pipeline import add_figures


def _scene(board: dict, seed: int, **params) -> tuple:
    base = dict(seed=seed, megapixels=0.5, tilt_deg=12.0, rotation_deg=0.0, fill=0.75, clutter=0,
                light_elevation_deg=70.0, shadow=0.4, blur_px=0.3, noise=1.0, jpeg_quality=92,
                tile_offset=0.02, tile_turn_deg=1.0, gap_mm=0.8, figure_jitter_mm=0.5)
    base.update(params)
    result = synthesize(Board.from_dict(board), rng=np.random.default_rng(seed), params=SynthParams(**base))
    return result, _true_grid(result)


def _true_grid(result) -> Grid:
    """The lattice of a synthesised photo, fitted to its true cell corners (lens model included)."""
    h, w = result.image.shape[:2]
    c = np.array([w / 2, h / 2])
    n = 0.5 * np.hypot(w, h)
    src, dst = [], []
    for (x, y), corners in result.cell_corners.items():
        q = (corners - c) / n
        src.append(q * (1 + result.params.k1 * np.sum(q * q, axis=1, keepdims=True)))
        dst.append(np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], dtype=np.float64))
    Hn, _ = cv2.findHomography(np.vstack(src), np.vstack(dst))
    return Grid(Hn, (h, w), k1=result.params.k1)


def _as_board(truth: Board, reading) -> Board:
    out = Board(game=truth.game, expansions=list(truth.expansions), catalog=truth.catalog)
    out.tiles = {c: Placement(p.x, p.y, p.tile, p.rot) for c, p in truth.tiles.items()}
    return add_figures(out, reading)


def _read(scene, **kwargs):
    result, grid = scene
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    reading = read_figures(result.image, grid, placements, FigureConfig(), game=truth.game, **kwargs)
    return truth, reading, compare_boards(truth, _as_board(truth, reading), offset=(0, 0))


BASE = {
    "format": "carcassonne-board/1", "game": "carcassonne", "expansions": ["goldmines"],
    "players": ["red", "green", "blue", "yellow", "black"],
    "tiles": [
        {"x": 0, "y": 0, "tile": "E", "rot": 0}, {"x": 1, "y": 0, "tile": "B", "rot": 0},
        {"x": 2, "y": 0, "tile": "U", "rot": 0}, {"x": 0, "y": 1, "tile": "V", "rot": 0},
        {"x": 1, "y": 1, "tile": "B", "rot": 0}, {"x": 2, "y": 1, "tile": "D", "rot": 0},
    ],
    "meeples": [
        {"player": "red", "x": 0, "y": 0, "at": "N"},      # knight in a city
        {"player": "green", "x": 1, "y": 0, "at": "C"},    # monk in a cloister
        {"player": "blue", "x": 2, "y": 0, "at": "W"},     # thief on a road
        {"player": "yellow", "x": 0, "y": 1, "at": "NR"},  # farmer, lying in a field
        {"player": "black", "x": 2, "y": 1, "at": "N"},    # black knight on the dark city
    ],
    "gold": [{"x": 1, "y": 1, "count": 1}],
}

GOLDRUSH = {
    "format": "carcassonne-board/1", "game": "goldrush", "expansions": ["sheriff"],
    "players": ["black", "yellow", "red", "green", "blue"],
    "tiles": [
        {"x": 0, "y": 0, "tile": "GR10", "rot": 0}, {"x": 1, "y": 0, "tile": "GR06", "rot": 0},
        {"x": 2, "y": 0, "tile": "GR06", "rot": 0}, {"x": 0, "y": 1, "tile": "GR01", "rot": 0},
        {"x": 1, "y": 1, "tile": "GR22", "rot": 0}, {"x": 2, "y": 1, "tile": "GR05", "rot": 0},
    ],
    "meeples": [
        {"player": "black", "x": 0, "y": 0, "at": "N"},    # black miner on a mountain (dark art)
        {"player": "yellow", "x": 2, "y": 0, "at": "N"},   # yellow miner: not the Sheriff
        {"player": "red", "x": 0, "y": 1, "at": "W"},      # railwayman
        {"player": "blue", "x": 2, "y": 1, "at": "SL"},    # farmer on the prairie
    ],
    "sheriff": {"x": 1, "y": 0, "at": "N"},
    "tents": [{"player": "green", "x": 1, "y": 1, "at": "W"}],
}


#: Four tents and five cowboys on the mountains, black figures on the dark rock among them.
TENTS = {
    "format": "carcassonne-board/1", "game": "goldrush", "expansions": ["sheriff"],
    "players": ["black", "yellow", "red", "green", "blue"],
    "tiles": [
        {"x": 0, "y": 0, "tile": "GR13", "rot": 0}, {"x": 1, "y": 0, "tile": "GR22", "rot": 0},
        {"x": 2, "y": 0, "tile": "GR13", "rot": 0}, {"x": 0, "y": 1, "tile": "GR07", "rot": 0},
        {"x": 1, "y": 1, "tile": "GR22", "rot": 0}, {"x": 2, "y": 1, "tile": "GR06", "rot": 0},
    ],
    "tents": [{"player": "red", "x": 0, "y": 0, "at": "N"}, {"player": "blue", "x": 1, "y": 0, "at": "E"},
              {"player": "yellow", "x": 2, "y": 1, "at": "N"}, {"player": "black", "x": 0, "y": 1, "at": "W"}],
    "meeples": [{"player": "red", "x": 0, "y": 0, "at": "S"}, {"player": "blue", "x": 1, "y": 1, "at": "W"},
                {"player": "yellow", "x": 2, "y": 0, "at": "N"}, {"player": "green", "x": 1, "y": 0, "at": "W"},
                {"player": "black", "x": 2, "y": 0, "at": "S"}],
}


@pytest.fixture(scope="module")
def base_scene():
    return _scene(BASE, seed=11)


@pytest.fixture(scope="module")
def goldrush_scene():
    return _scene(GOLDRUSH, seed=12)


def test_base_game_figures_found_with_colours_and_features(base_scene):
    """Given a base-game photo with a knight, monk, thief, farmer and black knight, when read,
    then exactly those five are found, with their colours and features, and the farmer lies."""
    truth, reading, cmp = _read(base_scene, players=BASE["players"])
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (5, 5, 5)
    assert cmp.colour_right == cmp.colour_total == 5
    assert cmp.location_right == cmp.location_total == 5
    poses = {(m["x"], m["y"]): m["pose"] for m in reading.meeples}
    assert poses == {(0, 0): "standing", (1, 0): "standing", (2, 0): "standing", (0, 1): "lying", (2, 1): "standing"}
    assert [(g["x"], g["y"]) for g in reading.gold] == [(1, 1)]
    assert reading.sheriff is None and reading.tents == [] and reading.ore == []


def test_black_miner_on_a_mountain_found(goldrush_scene):
    """Given a black cowboy on an all-mountain tile (the darkest art), when read, then he is found there in black."""
    _, reading, _ = _read(goldrush_scene, players=GOLDRUSH["players"])
    black = [(m["x"], m["y"]) for m in reading.meeples if m["player"] == "black"]
    assert black == [(0, 0)]


def test_sheriff_told_from_a_yellow_cowboy(goldrush_scene):
    """Given the golden Sheriff and a yellow cowboy on two mountains, when read, then the Sheriff is
    the figure on (1, 0) and the yellow cowboy on (2, 0) stays a yellow meeple."""
    truth, reading, cmp = _read(goldrush_scene, players=GOLDRUSH["players"])
    assert reading.sheriff is not None
    assert (reading.sheriff["x"], reading.sheriff["y"], reading.sheriff["at"]) == (1, 0, "N")
    yellow = [(m["x"], m["y"], m["at"]) for m in reading.meeples if m["player"] == "yellow"]
    assert yellow == [(2, 0, "N")]
    assert [(t["player"], t["x"], t["y"]) for t in reading.tents] == [("green", 1, 1)]
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (6, 6, 6)
    assert cmp.location_right == 6


def test_players_constrain_the_colours(base_scene):
    """Given the base photo read for players red and blue only, when read, then every figure is red or
    blue, and the red and blue figures keep their colours."""
    _, reading, _ = _read(base_scene, players=["red", "blue"])
    got = {(m["x"], m["y"]): m["player"] for m in reading.meeples}
    assert set(got.values()) <= {"red", "blue"}
    assert got[(0, 0)] == "red" and got[(2, 0)] == "blue"


def test_assign_colours_one_photo_together():
    """Given figure colours under a warm cast (red channel up, blue down), when assigned, then each takes
    its own colour; restricted to two players, a pink figure goes to red, not to blue."""
    cast = np.array([1.15, 1.0, 0.85])
    protos = np.array([colour.PROTOTYPES[c] for c in ("red", "blue", "green", "yellow", "black", "grey", "pink")])
    shaded = protos * 0.8 * cast
    got = [c.colour for c in colour.assign_colours(shaded, colour.allowed_colours(None))]
    assert got == ["red", "blue", "green", "yellow", "black", "grey", "pink"]
    two = colour.assign_colours(np.array([colour.PROTOTYPES["pink"]]), ["red", "blue"])
    assert two[0].colour == "red"


def test_mixed_distances_read_a_figure_blurred_into_its_art():
    """Given a blue figure whose pixels hold 40% of the green field beneath (a thin farmer, a blurred
    photo), then unmixed it is far from blue, mixed it is near blue at a share of 0.6 and unmixing gives
    the blue back; grey mixed with the field (the art paled) is not read mixed."""
    blue = np.array(colour.PROTOTYPES["blue"]) * 0.8
    field = np.array([60.0, 120.0, 30.0])
    seen = 0.6 * blue + 0.4 * field
    names = ["blue", "grey", "black"]
    plain = colour.distances(seen[None], names)[0]
    d, alpha = colour.mixed_distances(seen[None], field[None], names, min_alpha=0.6, alpha_cost=0.5)
    assert plain[0] > 0.5
    assert alpha[0, 0] == pytest.approx(0.6)
    assert d[0, 0] == pytest.approx(0.2, abs=1e-6)  # an exact fit, plus the share's cost 0.5 * 0.4
    assert np.argmin(d[0]) == 0
    assert colour.unmixed(seen[None], field[None], alpha[0, :1])[0] == pytest.approx(blue)
    assert (alpha[0, 1:] == 1.0).all() and d[0, 1:] == pytest.approx(plain[1:])
    same, one = colour.mixed_distances(seen[None], field[None], names, min_alpha=1.0)
    assert same[0] == pytest.approx(plain) and (one == 1.0).all()


def test_sheriff_score_separates_gold_from_yellow():
    """Given the Sheriff's gold and yellow paint (each at two shadings), then gold scores positive, yellow negative."""
    gold = np.array(colour.PROTOTYPES["gold"])
    yellow = np.array(colour.PROTOTYPES["yellow"])
    s = colour.sheriff_score(np.array([gold, 0.7 * gold, yellow, 0.7 * yellow]))
    assert (s[:2] > 0).all() and (s[2:] < 0).all()


def test_camera_recovered_from_the_grid(base_scene):
    """Given the photo's lattice, when the camera is recovered, then its focal length is within 15% and
    its height within 15% of the synthesiser's camera."""
    result, grid = base_scene
    cam = camera_from_grid(grid)
    half_diag = 0.5 * np.hypot(*result.image.shape[:2])
    f_true = result.camera.K[0, 0] / half_diag  # the grid's coordinates: unit = half the photo diagonal
    assert abs(cam.K[0, 0] / f_true - 1) < 0.15
    height_true = -result.camera.C[2] / result.pitch_mm
    assert abs(cam.height / height_true - 1) < 0.15


def test_no_tiles_no_figures_and_bad_input_rejected(base_scene):
    """Given no placements the reading is empty; a grey image, an unknown game or colour raise ScorerError."""
    result, grid = base_scene
    empty = read_figures(result.image, grid, {})
    assert (empty.meeples, empty.tents, empty.sheriff, empty.gold, empty.ore) == ([], [], None, [], [])
    with pytest.raises(ScorerError, match="RGB"):
        read_figures(result.image[..., 0], grid, {})
    with pytest.raises(ScorerError, match="unknown game"):
        read_figures(result.image, grid, {}, game="chess")
    with pytest.raises(ScorerError, match="unknown colour 'purple'"):
        read_figures(result.image, grid, {}, players=["purple"])


def test_misread_tile_replaced_not_read_as_figures(goldrush_scene):
    """Given the yellow miner's tile (2, 0) misread as GR13 turned once (mountains east and west), when
    read without the second look at the tiles, then its art's difference from the photo misleads the
    figure stage (extra figures, or the miner lying on a prairie); with it, GR06 is found there, and
    exactly the six figures are read, every location right."""
    result, grid = goldrush_scene
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    placements[(2, 0)] = (truth.catalog["GR13"], 1)
    blind = read_figures(result.image, grid, placements,
                         FigureConfig(refit=False, max_colour_figures=99, max_cell_followers=99, sheriff_gold_logit=0.0),
                         game="goldrush")
    cmp = compare_boards(truth, _as_board(truth, blind), offset=(0, 0))
    assert cmp.figures_truth == 6 and cmp.figure_errors
    reading = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush")
    cmp = compare_boards(truth, _as_board(truth, reading), offset=(0, 0))
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched, cmp.location_right) == (6, 6, 6, 6)
    assert {c: (t["tile"], t["rot"]) for c, t in reading.tiles.items()} == {(2, 0): ("GR06", 0)}
    assert reading.tiles[(2, 0)]["misfit"] < reading.tiles[(2, 0)]["misfit_read"]


def test_right_tiles_are_kept(base_scene, goldrush_scene):
    """Given the true tiles of both scenes, when read, then the second look replaces none of them."""
    for (result, grid), players in ((base_scene, BASE["players"]), (goldrush_scene, GOLDRUSH["players"])):
        truth = result.truth
        placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
        reading = read_figures(result.image, grid, placements, FigureConfig(), game=truth.game, players=players)
        assert reading.tiles == {} and reading.unreadable == []


def test_cell_showing_no_tile_is_unreadable(goldrush_scene):
    """Given a tile read on the empty table south of the board (0, 2), when read, then that cell is
    unreadable, nothing is read on it, and the six figures are still read exactly."""
    result, grid = goldrush_scene
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    placements[(0, 2)] = (truth.catalog["GR19"], 0)
    reading = read_figures(result.image, grid, placements, FigureConfig(), game="goldrush")
    assert reading.unreadable == [(0, 2)]
    cells = [(f["x"], f["y"]) for f in reading.meeples + reading.tents + reading.ore]
    assert (0, 2) not in cells
    truth_board = _as_board(truth, reading)
    truth_board.tiles[(0, 2)] = Placement(0, 2, truth.catalog["GR19"], 0)
    cmp = compare_boards(truth, truth_board, offset=(0, 0))
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (6, 6, 6)


def test_tents_told_from_cowboys_of_their_colours():
    """Given four tents beside cowboys of their own colours (the black tent on the dark rock), when read,
    then exactly the four tents and five cowboys are found, every colour and location right.  Two
    cowboys share tile (2, 0), which a game never shows (one cowboy a tile, seed 000): the rule that
    reads one of them as something else (``one_cowboy``) is off here."""
    result, grid = _scene(TENTS, seed=23)
    truth = result.truth
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    reading = read_figures(result.image, grid, placements, FigureConfig(one_cowboy=False), game="goldrush",
                           players=TENTS["players"])
    assert sorted((t["player"], t["x"], t["y"], t["at"]) for t in reading.tents) == [
        ("black", 0, 1, "W"), ("blue", 1, 0, "E"), ("red", 0, 0, "N"), ("yellow", 2, 1, "N")]
    cmp = compare_boards(truth, _as_board(truth, reading), offset=(0, 0))
    assert (cmp.figures_truth, cmp.figures_pred, cmp.figures_matched) == (9, 9, 9)
    assert (cmp.colour_right, cmp.location_right) == (9, 9)


def test_shading_fit_follows_the_faces():
    """Given a figure lit 200 on one face and 90 on the other (noise 3), then the two faces explain over
    99% of its shading, and planes cut across them explain none."""
    lum = np.full((20, 20), 200.0)
    lum[:, 10:] = 90.0
    lum += np.random.default_rng(0).normal(0.0, 3.0, lum.shape)
    faces = np.zeros((20, 20), int)
    faces[:, 10:] = 1
    across = np.zeros((20, 20), int)
    across[10:, :] = 1
    soft = np.ones((20, 20))
    assert _shading_fit(lum, soft, faces) > 0.99
    assert _shading_fit(lum, soft, across) < 0.01
    assert _shading_fit(lum, np.zeros((20, 20)), faces) == 0.0


def test_figure_colours_raise_gold_on_a_like_art():
    """Given pixels of the gold bars' gold differing from their art by 0.35, 0.30 and 0.10, and a
    grass-green one by 0.35, when compared with the figure colours, then the first two become
    figure pixels (0.5), the third stays below the comparison, and the green one stays as it was."""
    gold = colour.PROTOTYPES["gold"]
    norm = np.array([[gold, gold, gold, (90.0, 170.0, 60.0)]], np.float32)
    res = np.array([[0.35, 0.30, 0.10, 0.35]], np.float32)
    taken = _figure_colours(res, norm, ["red", "blue"], FigureConfig())
    assert res[0].tolist() == pytest.approx([0.5, 0.5, 0.1, 0.35])
    assert taken[0].tolist() == [True, True, False, False]


def test_figure_colours_mark_gold_already_above_the_seed_level():
    """Given a gold pixel differing from its art by 0.8 (above residual_high), when compared with
    the figure colours, then its residual stays 0.8 and it is marked as of a figure's colour."""
    norm = np.array([[colour.PROTOTYPES["gold"]]], np.float32)
    res = np.array([[0.8]], np.float32)
    taken = _figure_colours(res, norm, ["red"], FigureConfig())
    assert res[0, 0] == pytest.approx(0.8)
    assert taken.tolist() == [[True]]


def test_find_blobs_keeps_a_thin_bar_of_a_figure_colour():
    """Given a 2-pixel-wide slanting bar raised to residual_high (a gold bar seen aslant), when
    labelled, then the seam opening removes it unless its pixels are marked as of a figure's
    colour, and a bar just below residual_high seeds no blob even when marked."""
    cfg = FigureConfig()
    P = 64
    bar = np.zeros((P, P), np.uint8)
    cv2.line(bar, (20, 20), (34, 30), 1, 2)
    res = np.where(bar > 0, cfg.residual_high, 0.0).astype(np.float32)
    cover = np.ones((P, P), np.float32)
    band = np.zeros((P, P), np.uint8)
    assert _find_blobs(res, cover, band, cfg, P)[1] == 0
    lab, n = _find_blobs(res, cover, band, cfg, P, bar > 0)
    assert n == 1
    assert int((lab > 0).sum()) == int(bar.sum()) == 65
    low = np.where(bar > 0, 0.49, 0.0).astype(np.float32)
    assert _find_blobs(low, cover, band, cfg, P, bar > 0)[1] == 0


def _blob(mask: np.ndarray, cls: str = "black", px: int = 64) -> _Blob:
    """A candidate made of the pixels of ``mask`` (canvas pixels; lattice = canvas / px)."""
    v, u = np.nonzero(mask)
    uv = np.column_stack([u, v]).astype(np.float64)
    n = len(uv)
    b = _Blob(1, uv, (uv + 0.5) / px, np.ones(n), np.full((n, 3), 30.0), np.ones(n))
    b.info = {"class": cls, "centre": b.xy.mean(axis=0)}
    return b


def test_seam_is_not_a_waist_between_two_figures():
    """Given one figure's blob (an ellipse 14 by 40 pixels) cut in two by the seam between two tiles
    (6 pixel rows across its middle), when checked for two touching figures, then it stays one candidate;
    without the seam marked, the gap splits it in two; two discs touching at a thin neck on a tile are
    two figures."""
    yy, xx = np.mgrid[0:64, 0:64]
    body = ((xx - 32) / 7.0) ** 2 + ((yy - 32) / 20.0) ** 2 <= 1.0
    seam = (yy >= 29) & (yy < 35)
    cut = body & ~seam
    cfg = FigureConfig()
    assert len(_split_lobes(_blob(cut), cfg, band=seam.astype(np.uint8))) == 1
    assert len(_split_lobes(_blob(cut), cfg, band=np.zeros((64, 64), np.uint8))) == 2
    top = (xx - 32) ** 2 + (yy - 20) ** 2 <= 81
    bottom = (xx - 32) ** 2 + (yy - 44) ** 2 <= 81
    neck = (abs(xx - 32) <= 1) & (yy >= 20) & (yy <= 44)
    parts = _split_lobes(_blob(top | bottom | neck), cfg, band=np.zeros((64, 64), np.uint8))
    assert sorted(len(p.uv) for p in parts) == sorted([int((top | (neck & (yy < 32))).sum()),
                                                       int((bottom | (neck & (yy >= 32))).sum())])


def test_part_inside_a_figures_outline_is_that_figure(base_scene):
    """Given the outline a standing meeple throws in the base scene's camera, cut into its farther third
    (the head) and the rest, then the head lies inside the outline fitted to the rest when both are
    black, not when the head is red, nor when it lies half a tile aside."""
    result, grid = base_scene
    cfg = FigureConfig()
    cam = camera_from_grid(grid, cfg)
    placements = {c: (p.tile, p.rot) for c, p in result.truth.tiles.items()}
    canvas = _make_canvas(placements, cfg.px, margin=0)
    foot = np.array([1.5, 0.6])
    sil = _render("meeple", 1, 0, foot, cam, canvas, np.zeros(2), canvas.shape, cfg.lattice_mm) > 0
    v, u = np.nonzero(sil)
    lean = cam.lifted(foot[None], 0.5)[0] - foot
    along = (np.column_stack([u, v]) - canvas.to_canvas(foot[None])[0]) @ (lean / np.linalg.norm(lean))
    head = np.zeros_like(sil)
    head[v[along > np.percentile(along, 66)], u[along > np.percentile(along, 66)]] = True
    body, head_b = _blob(sil & ~head), _blob(head)
    mt = {"foot": foot, "yaw": 0, "count": 1}
    assert _inside_outline(head_b, body, "meeple", mt, cam, canvas, cfg)
    assert not _inside_outline(_blob(head, "red"), body, "meeple", mt, cam, canvas, cfg)
    aside = np.roll(head, cfg.px // 2, axis=1)
    assert not _inside_outline(_blob(aside), body, "meeple", mt, cam, canvas, cfg)


def test_colour_gap_forgives_shading_not_hue_or_black_for_white():
    """Given a red figure's colour, then the same red in shade (0.6) is near (under 0.15: only the
    offset added before the logs tells them apart), a dark red cloth is near (under 0.25), a wooden table
    and white are far (over 0.5); black against white is far too."""
    red = np.array([200.0, 30.0, 30.0])
    gaps = _colour_gap(np.array([[120.0, 18.0, 18.0], [150.0, 26.0, 24.0], [180.0, 140.0, 90.0],
                                 [240.0, 240.0, 240.0]]), red)
    assert gaps[0] < 0.15
    assert gaps[1] < 0.25
    assert gaps[2] > 0.5 and gaps[3] > 0.5
    assert _colour_gap(np.array([[235.0, 235.0, 235.0]]), np.array([25.0, 25.0, 25.0]))[0] > 0.5


def test_ore_stack_top_leans_back_to_its_mountain_spot():
    """Given a close camera tilted 40 degrees over the Gold Rush scene and an ore stack's foot read at
    0.8 of the lean of a 10-token stack beyond its spot (north of the mountain tile GR10), then the
    spot is over 0.3 tile away, and moving the foot back towards the nadir finds a spot of GR10's one
    mountain (N, E, S or W) within 0.1 tile; a foot read on its spot keeps its location."""
    result, grid = _scene(GOLDRUSH, seed=12, tilt_deg=40.0)
    cfg = FigureConfig()
    cam = camera_from_grid(grid, cfg)
    placements = {c: (p.tile, p.rot) for c, p in result.truth.tiles.items()}
    canvas = _make_canvas(placements, cfg.px)
    tiles = {c: _Tile(c, t, r, np.array([[1.0, 0.0, canvas.origin_px(c)[0]], [0.0, 1.0, canvas.origin_px(c)[1]]]),
                      1.0) for c, (t, r) in placements.items()}
    spot = _spot("N", "ore", cfg.offset_spread, tuple(cfg.ore_spot))
    lean = cam.lifted(spot[None], cfg.max_stack * 2.2 / cfg.lattice_mm)[0] - spot
    foot = spot + 0.8 * lean
    loc = _locate_read(foot, tiles[(0, 0)], {}, "ore", cfg)
    assert loc[3] > 0.3
    back = _lean_back(foot, (0, 0), loc, tiles, canvas, cam, {}, cfg)
    assert back[0] in ("N", "E", "S", "W") and back[3] < 0.1
    at_spot = _locate_read(spot, tiles[(0, 0)], {}, "ore", cfg)
    assert _lean_back(spot, (0, 0), at_spot, tiles, canvas, cam, {}, cfg) == at_spot


def test_cell_crowded_with_one_colour_is_the_table():
    # A tile holds one follower and one tent of a colour at most (rules.md 6): four
    # yellow cowboys on (2, 0) and four followers on (1, 0) are a checked cloth's
    # cells; (0, 0) keeps its two.
    out = FigureReading()
    out.meeples = [{"player": "yellow", "x": 2, "y": 0, "at": "C"} for _ in range(4)]
    out.meeples.append({"player": "red", "x": 0, "y": 0, "at": "N"})
    out.meeples += [{"player": p, "x": 1, "y": 0, "at": "C"} for p in ("green", "grey", "green", "blue")]
    out.tents = [{"player": "red", "x": 0, "y": 0, "at": "C"}, {"player": "blue", "x": 2, "y": 0, "at": "C"}]
    out.ore = [{"x": 2, "y": 0, "at": "C", "count": 1}]
    out.sheriff = {"x": 2, "y": 0, "at": "C"}
    out.blobs = [{"kept": True, "kind": "meeple", "x": 2, "y": 0}, {"kept": True, "kind": "meeple", "x": 0, "y": 0}]
    cfg = FigureConfig()
    assert _crowded_cells(out, cfg) == [(1, 0), (2, 0)]
    _drop_cells(out, _crowded_cells(out, cfg))
    assert [(m["player"], m["x"], m["y"]) for m in out.meeples] == [("red", 0, 0)]
    assert [(t["player"], t["x"]) for t in out.tents] == [("red", 0)]
    assert out.ore == [] and out.sheriff is None
    assert out.unreadable == [(1, 0), (2, 0)]
    assert [b["kept"] for b in out.blobs] == [False, True]
    assert _crowded_cells(out, cfg) == []
