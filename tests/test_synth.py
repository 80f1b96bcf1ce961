"""The photo synthesiser: determinism, exact ground truth, sidecar and command line."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import make_board
from scorer.board import read_board
from scorer.errors import ScorerError
from scorer.render.scene import Lens
from scorer.render.synth import SynthParams, synthesize, turn_board
from scorer.synth_cli import synth

MP = 0.25  # small photos keep the tests fast


def carcassonne_board():
    """Three tiles in an L, a knight, a farmer, a monk and Goldmines gold."""
    return make_board(
        tiles=[(0, 0, "D", 0), (1, 0, "E", 1), (0, 1, "B", 0)],
        meeples=[("red", 0, 0, "N"), ("blue", 0, 0, "SL"), ("green", 0, 1, "C")],
        gold=[(1, 0, 2)],
        game="carcassonne", expansions=["goldmines"], players=["red", "blue", "green"],
        active="red", last_placed=(1, 0),
    )


def goldrush_board():
    """A mountain with a cowboy, a tent, the Sheriff and ore tokens."""
    return make_board(
        tiles=[(0, 0, "GR11", 0), (1, 0, "GR01", 0)],
        meeples=[("yellow", 1, 0, "N")],
        tents=[("red", 0, 0, "N")],
        sheriff=(0, 0, "N"),
        ore=[(0, 0, "N", 3)],
        game="goldrush", expansions=["sheriff"], players=["yellow", "red"],
    )


def params(**kw) -> SynthParams:
    base = SynthParams(seed=11, megapixels=MP, tilt_deg=20, rotation_deg=0, fill=0.7, k1=0.0, k2=0.0)
    return replace(base, **kw)


def normalised(board) -> dict:
    d = turn_board(board, 0).to_dict()
    d["tiles"] = sorted(d["tiles"], key=lambda t: (t["x"], t["y"]))
    return d


def inside(quad: np.ndarray, pt: np.ndarray) -> bool:
    """Whether ``pt`` lies inside the convex quadrilateral ``quad`` (either winding)."""
    signs = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d, e = b - a, pt - a
        signs.append(d[0] * e[1] - d[1] * e[0])
    return all(s > 0 for s in signs) or all(s < 0 for s in signs)


# --------------------------------------------------------------------------- determinism


def test_same_seed_gives_identical_photo_and_truth():
    board = carcassonne_board()
    a = synthesize(board, rng=np.random.default_rng(5), params=SynthParams.random(np.random.default_rng(5), "hard",
                                                                                   megapixels=MP))
    b = synthesize(board, rng=np.random.default_rng(5), params=SynthParams.random(np.random.default_rng(5), "hard",
                                                                                   megapixels=MP))
    assert a.jpeg == b.jpeg
    assert np.array_equal(a.image, b.image)
    assert a.truth.to_dict() == b.truth.to_dict()
    assert a.sidecar() == b.sidecar()


def test_different_seed_gives_a_different_photo():
    board = carcassonne_board()
    a = synthesize(board, rng=np.random.default_rng(1), params=params(seed=1))
    b = synthesize(board, rng=np.random.default_rng(1), params=params(seed=2))
    assert a.jpeg != b.jpeg


def test_sidecar_params_reproduce_the_photo():
    board = goldrush_board()
    a = synthesize(board, rng=np.random.default_rng(3), difficulty="hard", params=SynthParams.random(
        np.random.default_rng(3), "hard", megapixels=MP))
    again = SynthParams.from_dict(json.loads(json.dumps(a.params.to_dict())))
    b = synthesize(board, rng=np.random.default_rng(999), params=again)
    assert a.jpeg == b.jpeg


def test_image_is_the_decoded_jpeg_of_the_requested_size():
    r = synthesize(carcassonne_board(), rng=np.random.default_rng(0), params=params(megapixels=0.3, aspect=1.5))
    h, w = r.image.shape[:2]
    assert r.image.dtype == np.uint8 and r.image.shape[2] == 3
    assert w / h == pytest.approx(1.5, abs=0.01)
    assert w * h == pytest.approx(0.3e6, rel=0.01)
    assert r.jpeg[:2] == b"\xff\xd8"


# --------------------------------------------------------------------------- ground truth


def test_homography_maps_truth_cell_corners_to_cell_corners():
    r = synthesize(carcassonne_board(), rng=np.random.default_rng(0), params=params(rotation_deg=31, tilt_deg=35))
    p = r.pitch_mm
    assert set(r.cell_corners) == set(r.truth.tiles)
    for (x, y), px in r.cell_corners.items():
        mm = np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], float) * p
        h = np.column_stack([mm, np.ones(4)]) @ r.homography.T
        assert np.allclose(h[:, :2] / h[:, 2:], px, atol=1e-9)


def test_lens_distortion_is_in_the_corners_and_undone_by_the_lens_model():
    r = synthesize(carcassonne_board(), rng=np.random.default_rng(0), params=params(k1=0.1, k2=0.02, rotation_deg=10))
    p = r.pitch_mm
    for (x, y), px in r.cell_corners.items():
        mm = np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], float) * p
        h = np.column_stack([mm, np.ones(4)]) @ r.homography.T
        pinhole = h[:, :2] / h[:, 2:]
        assert np.allclose(r.lens.undistort_points(px), pinhole, atol=1e-6)
        assert np.allclose(r.project(mm), px, atol=1e-9)
        # Barrel distortion pulls points towards the centre.
        c = r.lens.centre
        assert (np.linalg.norm(px - c, axis=1) <= np.linalg.norm(pinhole - c, axis=1) + 1e-9).all()


def test_lens_round_trip():
    lens = Lens(0.12, 0.03, 400, 300)
    pts = np.array([[0.0, 0.0], [399.0, 299.0], [200.0, 10.0], [199.5, 149.5]])
    assert np.allclose(lens.undistort_points(lens.distort_points(pts)), pts, atol=1e-9)


@pytest.mark.parametrize("rotation", [0.0, 44.0, 46.0, 91.0, 180.0, 224.9, 271.0, 359.0])
def test_truth_turned_back_equals_the_input_board(rotation):
    board = goldrush_board()
    r = synthesize(board, rng=np.random.default_rng(0), params=params(rotation_deg=rotation))
    k = int(math.floor(rotation / 90 + 0.5)) % 4
    assert r.turns == k
    assert normalised(turn_board(r.truth, -k)) == normalised(board)


def test_quarter_turn_of_the_camera_gives_the_turned_truth():
    board = carcassonne_board()
    r = synthesize(board, rng=np.random.default_rng(0), params=params(rotation_deg=90, tilt_deg=0))
    truth = r.truth
    # (x, y) -> (-y, x), then moved so the smallest x and y are 0: x + 1.
    assert {c: (p.tile.id, p.rot) for c, p in truth.tiles.items()} == {
        (1, 0): ("D", 1), (1, 1): ("E", 2), (0, 0): ("B", 1)}
    assert [(m.player, m.cell, m.at) for m in truth.meeples] == [
        ("red", (1, 0), "E"), ("blue", (1, 0), "WL"), ("green", (0, 0), "C")]
    assert [(g.cell, g.count) for g in truth.gold] == [((1, 1), 2)]
    assert truth.last_placed == (1, 1)
    # North is up in the photo: the truth's cell (1, 1) lies below (1, 0), (0, 0) left of (1, 0).
    centre = {c: q.mean(axis=0) for c, q in r.cell_corners.items()}
    assert centre[(1, 1)][1] > centre[(1, 0)][1] + 10
    assert centre[(0, 0)][0] < centre[(1, 0)][0] - 10
    assert abs(centre[(1, 1)][0] - centre[(1, 0)][0]) < 2


def test_figures_stand_inside_their_truth_cells():
    for board in (carcassonne_board(), goldrush_board()):
        r = synthesize(board, rng=np.random.default_rng(2), params=params(rotation_deg=200, tilt_deg=30))
        kinds = sorted(f["kind"] for f in r.figures_px)
        expected = sorted(["meeple"] * len(board.meeples) + ["tent"] * len(board.tents)
                          + ["sheriff"] * (board.sheriff is not None) + ["gold"] * len(board.gold)
                          + ["ore"] * len(board.ore))
        assert kinds == expected
        for f in r.figures_px:
            assert inside(r.cell_corners[(f["x"], f["y"])], f["px"]), f


def test_solids_on_a_tile_make_room_and_the_cowboy_stays():
    """Given a cowboy, a tent, the Sheriff and an ore stack on one mountain (the spots of
    GR11's N location, where their round bases overlap), when the photo is made, then every two
    bases are at least their radii and room_mm apart and the cowboy stands at its own spot;
    with room_mm None the Sheriff and the stack still overlap as the spots put them."""
    from scorer.render.figures3d import FOOTPRINT_MM
    from scorer.render.synth import _place_items, _lay_tiles, _solid

    board = make_board(tiles=[(0, 0, "GR11", 0), (1, 0, "GR01", 0)], meeples=[("yellow", 0, 0, "N")],
                       tents=[("red", 0, 0, "N")], sheriff=(0, 0, "N"), ore=[(0, 0, "N", 3)],
                       game="goldrush", expansions=["sheriff"], players=["yellow", "red"])

    def items(room):
        p = params(room_mm=room, figure_jitter_mm=0.0)
        _, laid = _lay_tiles(board, p, np.random.default_rng(0))
        return _place_items(board, laid, p, np.random.default_rng(0))

    def gaps(its):
        return [float(np.linalg.norm(a["mm"] - b["mm"])) - FOOTPRINT_MM[_solid(a)] - FOOTPRINT_MM[_solid(b)]
                for i, a in enumerate(its) for b in its[i + 1:]]

    before, after = items(None), items(1.0)
    assert min(gaps(before)) < 0
    assert min(gaps(after)) >= 1.0 - 1e-6
    (was,), (now,) = ([it["mm"] for it in its if it["kind"] == "meeple"] for its in (before, after))
    assert np.allclose(was, now)


def clean(**kw) -> SynthParams:
    """A sharp, noiseless, evenly lit photo on a black cloth: pixels can be checked."""
    return params(table="cloth", table_rgb=[0.03, 0.03, 0.03], blur_px=0, noise=0, sharpen=0, vignette=0,
                  gradient=0, spot=0, jpeg_quality=95, clutter=0, megapixels=0.5, **kw)


def test_photo_shows_the_tile_where_the_truth_says():
    board = make_board(tiles=[(0, 0, "U", 0)])
    r = synthesize(board, rng=np.random.default_rng(0),
                   params=clean(k1=0.12, k2=0.02, tilt_deg=30, rotation_deg=20, fill=0.15))
    grey = r.image.astype(float).mean(axis=2)
    mm_in, mm_out = [], []
    p = r.pitch_mm
    for fx in np.linspace(0.15, 0.85, 8):
        for fy in (0.15, 0.85):
            mm_in += [(fx * p, fy * p), (fy * p, fx * p)]
    for t in np.linspace(-0.2, 1.2, 15):
        mm_out += [(t * p, -0.25 * p), (t * p, 1.25 * p), (-0.25 * p, t * p), (1.25 * p, t * p)]
    def values(mm):
        px = np.round(r.project(np.array(mm))).astype(int)
        return grey[px[:, 1], px[:, 0]]
    assert values(mm_in).min() > 60  # tile art
    assert values(mm_out).max() < 30  # black cloth


def test_figure_is_painted_at_its_truth_pixel():
    board = make_board(tiles=[(0, 0, "U", 0)], meeples=[("blue", 0, 0, "E")])
    r = synthesize(board, rng=np.random.default_rng(0), params=clean(tilt_deg=0, rotation_deg=0, fill=0.6))
    (fig,) = r.figures_px
    body = r.project(np.array(fig["mm"])[None], height_mm=8.0)[0]
    red, green, blue = r.image[int(round(body[1])), int(round(body[0]))].astype(int)
    assert blue > red + 40 and blue > green + 30


def test_farmers_lie_and_others_stand():
    r = synthesize(carcassonne_board(), rng=np.random.default_rng(0), params=params())
    poses = {f["at"]: f["pose"] for f in r.figures_px if f["kind"] == "meeple"}
    assert poses == {"N": "standing", "SL": "lying", "C": "standing"}


def test_board_fills_the_requested_part_of_the_frame():
    square = make_board(tiles=[(x, y, "B", 0) for x in range(5) for y in range(5)])
    for fill in (0.3, 0.6):
        r = synthesize(square, rng=np.random.default_rng(0), params=params(
            fill=fill, tilt_deg=0, rotation_deg=0, gap_mm=0, tile_offset=0, tile_turn_deg=0, aspect=1.0))
        pts = np.vstack(list(r.tile_corners.values()))
        h, w = r.image.shape[:2]
        span = pts.max(axis=0) - pts.min(axis=0)
        assert span[0] * span[1] / (w * h) == pytest.approx(fill, abs=0.01)
        assert (pts.min(axis=0) >= 0).all() and (pts.max(axis=0) <= [w, h]).all()


def test_clutter_and_spare_figures_stay_off_the_board():
    import cv2

    board = carcassonne_board()
    seen = set()
    for seed in range(5):
        p = SynthParams.random(np.random.default_rng(seed), "hard", megapixels=0.15)
        p.k1 = p.k2 = 0.0
        p.clutter, p.supply_figures = 6, 6
        r = synthesize(board, rng=np.random.default_rng(seed), params=p)
        h, w = r.image.shape[:2]
        board_mask = np.zeros((h, w), np.uint8)
        for q in r.tile_corners.values():
            cv2.fillConvexPoly(board_mask, np.round(q).astype(np.int32), 1)
        for c in r.clutter_px:
            seen.add(c["kind"])
            m = np.zeros((h, w), np.uint8)
            cv2.fillConvexPoly(m, np.round(c["px"]).astype(np.int32), 1)
            assert not (m & board_mask).any(), (seed, c["kind"])
        for f in r.supply_px:
            seen.add("supply")
            u, v = np.round(f["px"]).astype(int)
            assert not board_mask[min(max(v, 0), h - 1), min(max(u, 0), w - 1)]
    assert {"card", "supply"} <= seen


def test_random_params_stay_in_their_ranges():
    for i in range(40):
        for level in ("easy", "hard"):
            p = SynthParams.random(np.random.default_rng(i), level)
            p.check()
            assert 1.0 <= p.megapixels <= 12.0
            assert 0 <= p.tilt_deg <= 45 and 0.3 <= p.fill <= 0.9
            assert 60 <= p.jpeg_quality <= 95
            assert p.tile_offset <= 0.08 and p.tile_turn_deg <= 5
            if level == "easy":
                assert p.tilt_deg <= 20


def test_bad_parameters_are_named():
    with pytest.raises(ScorerError, match="fill"):
        synthesize(carcassonne_board(), rng=np.random.default_rng(0), params=params(fill=1.5))
    with pytest.raises(ScorerError, match="difficulty"):
        SynthParams.random(np.random.default_rng(0), "medium")
    with pytest.raises(ScorerError, match="unknown key"):
        SynthParams.from_dict({"zoom": 2})
    with pytest.raises(ScorerError, match="no tiles"):
        synthesize(make_board(), rng=np.random.default_rng(0), params=params())


# --------------------------------------------------------------------------- files and CLI


def test_save_writes_photo_and_sidecar(tmp_path):
    r = synthesize(goldrush_board(), rng=np.random.default_rng(0), params=params())
    photo, side = r.save(tmp_path / "table.jpg")
    assert side == tmp_path / "table.jpg.truth.json"
    assert photo.read_bytes() == r.jpeg
    truth = read_board(side)
    assert truth.to_dict()["tiles"] == r.truth.to_dict()["tiles"]
    synth_key = json.loads(side.read_text())["synth"]
    assert synth_key["image_size"] == [r.image.shape[1], r.image.shape[0]]
    assert len(synth_key["cell_corners"]) == 2 and len(synth_key["figures_px"]) == 4
    assert np.allclose(synth_key["homography"], r.homography)


def test_cli_writes_photo_and_sidecar(tmp_path):
    board = tmp_path / "board.json"
    goldrush_board().save(board)
    out = tmp_path / "photo.jpg"
    res = CliRunner().invoke(synth, [str(board), "-o", str(out), "--seed", "3", "--megapixels", "0.2",
                                     "--difficulty", "hard"])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:2] == b"\xff\xd8"
    side = json.loads((tmp_path / "photo.jpg.truth.json").read_text())
    assert side["synth"]["params"]["difficulty"] == "hard"
    assert side["synth"]["params"]["megapixels"] == 0.2
    again = tmp_path / "again.jpg"
    CliRunner().invoke(synth, [str(board), "-o", str(again), "--seed", "3", "--megapixels", "0.2",
                               "--difficulty", "hard"])
    assert again.read_bytes() == out.read_bytes()


def test_cli_generate_writes_a_data_set(tmp_path):
    res = CliRunner().invoke(synth, ["--generate", "2", "--game", "carcassonne", "--expansions", "river,goldmines",
                                     "--out-dir", str(tmp_path / "set"), "--seed", "4", "--megapixels", "0.1"])
    assert res.exit_code == 0, res.output
    names = sorted(p.name for p in (tmp_path / "set").iterdir())
    assert names == ["synth-00000.jpg", "synth-00000.jpg.truth.json", "synth-00001.jpg",
                     "synth-00001.jpg.truth.json"]
    for side in (tmp_path / "set").glob("*.truth.json"):
        board = read_board(side)
        assert board.expansions == ["river", "goldmines"]
        assert board.extra["synth"]["mode"] in ("completed", "final")


@pytest.mark.parametrize("args", [
    ["missing.json", "-o", "{tmp}/p.jpg"],
    ["{board}", "-o", "{tmp}/p.png"],
    ["{board}", "-o", "{tmp}/no/such/folder/p.jpg"],
    ["{board}", "-o", "{tmp}/p.jpg", "--megapixels", "0"],
    ["{board}"],
    ["{bad}", "-o", "{tmp}/p.jpg"],
    ["--generate", "0", "--out-dir", "{tmp}/set"],
    ["--generate", "1", "--expansions", "dragons", "--out-dir", "{tmp}/set"],
    ["--generate", "1", "--players", "red,purple", "--out-dir", "{tmp}/set", "--megapixels", "0.1"],
    ["--generate", "1"],
    [],
])
def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, args):
    board = tmp_path / "board.json"
    carcassonne_board().save(board)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "carcassonne-board/1", "tiles": [{"x": 0, "y": 0, "tile": "ZZ"}]}')
    before = sorted(p.name for p in tmp_path.iterdir())
    filled = [a.format(tmp=tmp_path, board=board, bad=bad) for a in args]
    res = CliRunner().invoke(synth, filled)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_clutter_at_the_camera_is_left_out_of_the_picture():
    """Given a camera 400 mm above the table looking straight down, a box lid in view is drawn,
    while a stack reaching above the camera (its projection unbounded) is left out without
    touching the picture."""
    from scorer.render.scene import Camera, Clutter, draw_clutter

    cam = Camera(K=np.array([[500.0, 0, 320], [0, 500.0, 240], [0, 0, 1]]), R=np.eye(3),
                 C=np.array([0.0, 0.0, -400.0]))
    light = np.array([0.3, 0.2, 1.0]) / np.linalg.norm([0.3, 0.2, 1.0])
    blank = np.full((480, 640, 3), 0.5, np.float32)
    canvas = blank.copy()
    draw_clutter(canvas, cam, [Clutter("stack", (10.0, 0.0), (60.0, 60.0), 0.0, 450.0, 1)], 0.0, light, 0.5)
    assert np.array_equal(canvas, blank)
    draw_clutter(canvas, cam, [Clutter("lid", (0.0, 0.0), (100.0, 80.0), 0.0, 5.0, 1)], 0.0, light, 0.5)
    assert (np.abs(canvas - blank).max(axis=2) > 0.05).sum() > 100 * 80 * (500 / 400) ** 2 * 0.8
