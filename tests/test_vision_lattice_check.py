"""The tiles check the lattice the seams gave (recognise.check_lattice).

The grid stage sees seams only.  On steep photos it can lock on half the tile
period (lines through the middle of the tiles), on twice it (a floor of
squares twice a tile's size), or its least-squares fit can bend the lattice off
the far half of the board.  On the right lattice many cells match a tile
template well; on those lattices few do.

The photos are from the base series ``scorer synth --generate 200 --seed
9920002 --difficulty mixed --game carcassonne --expansions river,goldmines``.
Measured on its 200 photos and on the 200 of the Gold Rush series of seed
9920001: the grid stage's lattice was wrong on 5 base photos; the check put 4
right (photos 139: half the period, 147: twice it, 60: a dotted cloth, 4/3 of
it along one axis, 187: bent by the fit) and replaced no right lattice.

Later, on the base series of seed 9924002: the lattice half a tile off (photo
18: green fields side by side show hardly any seam) and two lattices the seams
of something else framed better (109: a floor's tiles, 168: a striped cloth)
were put right by the tiles among the grid stage's other lattices; on the 400
photos of seeds 9923001 and 9923002 no lattice was replaced by them.  Since
the other lattices are rated also where a lattice of another period passed,
photo 147 takes the tiles' own lattice among them rather than the halved one
(both right there).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scorer.render.synth import generated_photo
from scorer.tiles import catalog_for
from scorer.vision.config import load_config
from scorer.vision.grid import find_grid
from scorer.vision.photo import load_photo
from scorer.vision.pipeline import CANDIDATE_GAMES
from scorer.vision.recognise import check_lattice, default_config

from test_vision_tiles import truth_grid

CATALOGS = [catalog_for(g, e) for g, e in CANDIDATE_GAMES]


def base_photo(tmp_path, index: int, seed: int = 9920002):
    """Photo ``index`` of the base series of ``seed`` at the pipeline's working size."""
    res, _level, _ = generated_photo("carcassonne", ["river", "goldmines"], seed, index, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    return res, load_photo(path, max_side=load_config().photo.max_side)


def share_right(grid, res, rgb) -> float:
    """Share of the true tile cells whose centres land in the lattice's cells with one common offset."""
    sx, sy = rgb.shape[1] / res.image.shape[1], rgb.shape[0] / res.image.shape[0]
    cells = np.array([c for c in res.truth.tiles], float)
    centres = np.array([np.mean(res.cell_corners[c], axis=0) for c in res.truth.tiles]) * [sx, sy]
    off = np.floor(grid.to_lattice(centres)).astype(int) - cells.astype(int)
    _, counts = np.unique(off, axis=0, return_counts=True)
    return counts.max() / len(off)


def scaled(grid, s, phase=(0.0, 0.0)):
    """The lattice of cells ``s`` (or ``(sx, sy)``) times as large, its lines through ``phase`` (tile
    units of ``grid``)."""
    a, b = phase
    sx, sy = (s, s) if np.isscalar(s) else s
    S = np.array([[1 / sx, 0, -a / sx], [0, 1 / sy, -b / sy], [0, 0, 1.0]])
    return dataclasses.replace(grid, Hn=S @ grid.Hn, debug={})


@pytest.fixture(scope="module")
def easy(tmp_path_factory):
    """Photo 4 of the series (easy, 20 tiles) and its exact lattice."""
    res, rgb = base_photo(tmp_path_factory.mktemp("easy"), 4)
    return res, rgb, truth_grid(res, rgb.shape[:2])


def test_the_right_lattice_is_kept(easy):
    res, rgb, grid = easy
    assert share_right(grid, res, rgb) == 1.0
    kept, survey = check_lattice(rgb, grid, CATALOGS, default_config())
    assert kept is grid
    assert "lattice_check" not in kept.debug
    assert len(survey.cells) > len(res.truth.tiles)


@pytest.mark.parametrize("s, phase, name", [
    (0.5, (0.0, 0.0), "twice the period"),  # cells of a quarter tile: the lattice of twice their size is right
    (2.0, (1.0, 0.0), "half the period"),  # cells of four tiles
    ((4 / 3, 1.0), (1 / 3, 0.0), "3/4 the period along x"),  # cells 4/3 of a tile wide
])
def test_a_lattice_of_another_period_is_put_right(easy, s, phase, name):
    res, rgb, grid = easy
    wrong = scaled(grid, s, phase)
    assert share_right(wrong, res, rgb) < 0.7
    fixed, survey = check_lattice(rgb, wrong, CATALOGS, default_config())
    assert fixed.debug["lattice_check"] == name
    assert share_right(fixed, res, rgb) == 1.0
    off = dataclasses.replace(default_config(), lattice_check=False)
    assert check_lattice(rgb, wrong, CATALOGS, off)[0] is wrong


def test_a_lattice_bent_by_the_fit_goes_back_to_the_one_before(easy):
    res, rgb, grid = easy
    # A projective bend: right near the lattice's origin, cells off by a growing share further out.
    bend = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.03, 0.05, 1.0]])
    cells = np.array(list(res.truth.tiles), float)
    bent = dataclasses.replace(grid, Hn=bend @ grid.Hn, debug={"start": (grid.Hn, grid.k1)})
    assert share_right(bent, res, rgb) < 0.7, cells.min(axis=0)
    fixed, _ = check_lattice(rgb, bent, CATALOGS, default_config())
    assert fixed.debug["lattice_check"] == "before the fit"
    assert share_right(fixed, res, rgb) == 1.0


def test_a_lattice_half_a_tile_off_is_moved_onto_the_tiles(easy):
    """Lines through the tiles' middles (the seams of green fields side by side hardly show, the
    lines across roads and rivers do): the lattice moved by half a tile replaces it."""
    res, rgb, grid = easy
    sx, sy = rgb.shape[1] / res.image.shape[1], rgb.shape[0] / res.image.shape[0]
    centres = np.array([np.mean(res.cell_corners[c], axis=0) for c in res.truth.tiles]) * [sx, sy]

    def centred(g) -> float:
        # Share of the true tile centres within a quarter tile of a lattice cell's centre.
        q = g.to_lattice(centres)
        return float(np.mean(np.abs(q - np.floor(q) - 0.5).max(axis=1) < 0.25))

    wrong = scaled(grid, 1.0, (0.0, 0.5))
    assert centred(grid) == 1.0 and centred(wrong) == 0.0
    fixed, _ = check_lattice(rgb, wrong, CATALOGS, default_config())
    assert fixed.debug["lattice_check"] == "half a tile off"
    assert centred(fixed) == 1.0


def test_another_lattice_the_seams_allow_replaces_a_wrong_one(easy):
    """A lattice of cells 1.6 tiles wide (none of the periods tried), with the tiles' lattice among
    the grid stage's alternatives, gives way to it; with no alternatives (or none tried) it stays."""
    res, rgb, grid = easy
    wrong = scaled(grid, 1.6, (0.3, 0.2))
    assert share_right(wrong, res, rgb) < 0.7
    wrong.debug["alternatives"] = [(scaled(grid, 1.3).Hn, grid.k1, grid.k2), (grid.Hn, grid.k1, grid.k2)]
    fixed, survey = check_lattice(rgb, wrong, CATALOGS, default_config())
    # Halved, the lattice passes too (cells 0.8 tiles wide near the middle), but the tiles'
    # own lattice rates better.
    assert fixed.debug["lattice_check"] == "another lattice the seams allow"
    assert share_right(fixed, res, rgb) == 1.0
    assert len(survey.cells) > len(res.truth.tiles)
    none = dataclasses.replace(default_config(), lattice_alternatives=0)
    assert check_lattice(rgb, wrong, CATALOGS, none)[0] is wrong


def test_find_grid_keeps_distinct_alternatives(easy):
    """The grid stage's other lattices are each another lattice than the one chosen (and than each
    other) round the photo's middle, north up."""
    from scorer.vision.grid import Grid, _same_lattice

    res, rgb, _ = easy
    found = find_grid(rgb, load_config().grid)
    alts = [Grid(np.asarray(H), found.shape, k1, k2=k2) for H, k1, k2 in found.debug["alternatives"]]
    assert 0 < len(alts) <= load_config().grid.alternatives + 2
    middle = np.array([rgb.shape[1] / 2, rgb.shape[0] / 2], float)
    assert not any(_same_lattice(a, found, middle) for a in alts[2:])
    for a in alts:
        up = a.to_lattice(np.array([[100.0, 300.0], [100.0, 200.0]]))
        assert up[1, 1] < up[0, 1]  # north points to the photo's top


def test_fit_to_seams_brings_a_slightly_wrong_lattice_onto_the_seams(easy):
    """A lattice 3% too large about the board's middle is fitted back onto the seams."""
    from scorer.vision.grid import fit_to_seams

    res, rgb, grid = easy
    cells = np.array(list(res.truth.tiles), float)
    m = np.median(cells, axis=0) + 0.5
    S = np.array([[1 / 1.03, 0, m[0] * (1 - 1 / 1.03)], [0, 1 / 1.03, m[1] * (1 - 1 / 1.03)], [0, 0, 1.0]])
    off = dataclasses.replace(grid, Hn=S @ grid.Hn, debug={})
    fitted = fit_to_seams(rgb, off, cells, load_config().grid)
    corners = grid.to_photo(np.concatenate([cells, cells + 1.0]))

    def error(g):
        q = g.to_lattice(corners)
        return float(np.abs(q - np.round(q)).max())

    assert error(off) > 0.1
    assert error(fitted) < 0.05


def put_right(tmp_path, index: int, seed: int, name: str, wrong_below: float, **grid_cfg):
    """Photo ``index`` of the base series of ``seed``: the grid stage's lattice (found with the
    thresholds ``grid_cfg`` changed) has less than ``wrong_below`` of the board on it, and the check
    replaces it (``name``) by the right one.  Returns the photo and the lattice found."""
    res, rgb = base_photo(tmp_path, index, seed)
    grid = find_grid(rgb, dataclasses.replace(load_config().grid, **grid_cfg))
    assert share_right(grid, res, rgb) < wrong_below
    fixed, _ = check_lattice(rgb, grid, CATALOGS, default_config())
    assert fixed.debug["lattice_check"] == name
    assert share_right(fixed, res, rgb) == 1.0
    return rgb, grid


@pytest.mark.parametrize("index, name", [(139, "twice the period"), (147, "another lattice the seams allow"),
                                         (60, "3/4 the period along x")])
def test_steep_photos_whose_seams_gave_the_wrong_period(tmp_path, index, name):
    """Found without the grid stage's chroma pass; with it photo 139's seams give the right lattice."""
    rgb, _ = put_right(tmp_path, index, 9920002, name, 0.6, chroma_pass=False)
    if index == 139:
        res, _ = base_photo(tmp_path, index, 9920002)
        assert share_right(find_grid(rgb), res, rgb) == 1.0


def test_a_lattice_rated_on_another_games_art_is_checked_on_the_guessed_games(tmp_path):
    """A pale wood table matches the Gold Rush sand in any cells.

    Photo 47 of the base series of seed 9925002 (a small board, 4 MP, on pale
    wood): the seams gave a wrong lattice that the Gold Rush tiles rate 0.87 (26
    cells matching) and the base tiles 0.70 (1 cell), so the check against both
    games kept it (its cells are two tiles a side).  The game is still guessed
    right (base), and since the base tiles rate the lattice below
    ``lattice_game_below`` (0.8) and the Gold Rush tiles higher, the check runs
    again against the base tiles alone and replaces it: the lattice of half its
    period passes, and the right one among the grid stage's other lattices rates
    better still.  Measured on the 600 base photos of seeds 9923002, 9924002 and
    9925002: this photo and photo 144 of seed 9924002 were put right, no lattice
    was made wrong, and the Gold Rush photos of seeds 9924001 and 9925001 kept
    their lattices.
    """
    from scorer.vision.pipeline import check_lattice_and_game

    res, rgb = base_photo(tmp_path, 47, 9925002)
    grid = find_grid(rgb)
    assert share_right(grid, res, rgb) < 0.2
    cfg = default_config()
    kept, _ = check_lattice(rgb, grid, CATALOGS, cfg)
    assert kept is grid
    fixed, _survey, catalog = check_lattice_and_game(rgb, grid, CATALOGS, cfg, guess=True)
    assert catalog.sets[0].game == "carcassonne"
    assert fixed.debug["lattice_check"] == "another lattice the seams allow"
    assert share_right(fixed, res, rgb) == 1.0


def test_a_lattice_the_seams_allow_beats_a_halved_one_only_near_the_tiles(tmp_path):
    """Halving a lattice of cells about two tiles a side is only near the tiles' period.

    Photo 127 of the base series of seed 9925002 (a steep photo of a large
    board on a pale cloth): the seams gave a lattice about 2.3 by 1.9 tiles a
    cell.  Halved, it passes the check (17 cells match a tile) but is 14% off
    the tiles' period, so only about half the board lies on it.  One of the grid
    stage's other lattices is the right one (81 cells match); it is now rated
    after a lattice of another period passed, and replaces it when rated
    better.  Measured on the 600 base photos of seeds 9923002, 9924002 and
    9925002 and the 400 Gold Rush photos of seeds 9924001 and 9925001, two
    lattices changed, both put right: this one and photo 98 of seed 9923002
    (65% of its cells on the lattice before, a halved lattice too).
    """
    put_right(tmp_path, 127, 9925002, "another lattice the seams allow", 0.2)


def test_a_lattice_a_little_off_the_tiles_gives_way_to_one_the_tiles_read_better(tmp_path):
    """Cells of about the same size: the coarse rating tells little, reading the tiles tells.

    Photo 119 of the base series of seed 9925002 (a steep photo, strong lens
    distortion, a checked cloth): the seams gave a lattice on about half the
    board's tiles, rated 0.82 (10 cells matching); the right one among the grid
    stage's other lattices rates 0.86 (13 cells), short of the 0.12 gain asked
    of a lattice of another size.  Of the same size, it is read: its tiles match
    0.65 on average against 0.45 on the lattice found, and it replaces it.
    Without the lighter terms (``lattice_alt_near_tiles`` 0) the wrong lattice
    is kept.
    """
    rgb, grid = put_right(tmp_path, 119, 9925002, "another lattice the seams allow", 0.6)
    kept, _ = check_lattice(rgb, grid, CATALOGS, dataclasses.replace(default_config(), lattice_alt_near_tiles=0.0))
    assert kept is grid


def test_the_lattice_before_the_fit_is_judged_on_the_photos_own_game(tmp_path):
    """Another game's art matches a blurred board in any cells.

    Photo 146 of the base series of seed 9924002: the grid stage's lattice is
    right, and the one before its fit lies 2.6 tiles off it across the board.
    Under the Gold Rush tiles 62 cells match on the one before against 22 on
    the fit, enough to replace it; under the base tiles, which rate the lattices
    best, 32 against 29.  The lattice before the fit is now judged on the
    catalogue that rates either lattice best, and the right lattice is kept.
    """
    res, rgb = base_photo(tmp_path, 146, 9924002)
    grid = find_grid(rgb)
    assert share_right(grid, res, rgb) == 1.0
    kept, _ = check_lattice(rgb, grid, CATALOGS, default_config())
    assert "lattice_check" not in kept.debug
    assert share_right(kept, res, rgb) == 1.0


def test_a_lattice_rated_just_under_the_check_on_the_guessed_games_art_is_checked_on_it(tmp_path):
    """The guessed game's art rating the lattice as low as the check examines is enough.

    Photo 39 of the base series of seed 9935002 (a river board of 29 tiles on a
    pale cloth whose faint squares the seams also show): the grid stage's
    lattice has cells about 7% larger than the tiles, drifting off them
    towards the far end.  The Gold Rush art rates it above ``lattice_check_below`` on
    the pale cloth, so the check against both games tried no other lattice;
    the base tiles rate it 0.81.  With ``lattice_game_below`` at 0.8 it was
    not checked again (7 of 29 tiles read right); at 0.85, the check on the
    base tiles alone takes the grid stage's other lattice on the tiles.
    Measured on the 400 photos of seeds 9933001 and 9933002: nothing else
    changed, and no time was lost.
    """
    from scorer.vision.pipeline import check_lattice_and_game

    res, rgb = base_photo(tmp_path, 39, 9935002)
    grid = find_grid(rgb)
    assert share_right(grid, res, rgb) < 0.6
    cfg = default_config()
    assert cfg.lattice_game_below == cfg.lattice_check_below
    kept, _ = check_lattice(rgb, grid, CATALOGS, cfg)
    assert kept is grid
    fixed, _survey, catalog = check_lattice_and_game(rgb, grid, CATALOGS, cfg, guess=True)
    assert catalog.sets[0].game == "carcassonne"
    assert fixed.debug["lattice_check"] == "another lattice the seams allow"
    assert share_right(fixed, res, rgb) >= 0.95
    before = dataclasses.replace(cfg, lattice_game_below=0.8)
    again, _survey, _catalog = check_lattice_and_game(rgb, grid, CATALOGS, before, guess=True)
    assert again is grid


def test_a_small_board_of_large_tiles_keeps_its_lattice(tmp_path):
    """No half-tile move on the coarse match of a few cells (``phase_check`` off).

    Photo 126 of the Gold Rush series of seed 9933001 (four tiles filling the
    photo, large figures on them): the grid stage's lattice is on the tiles.
    The half-tile phase check moved it half a tile down (cells of two half tiles
    of sand matched the coarse templates better, 0.78 against 0.70), and two
    tiles were read instead of four.  On the 600 photos of seeds 9926001,
    9927002 and 9933001 the check moved six lattices; turning it off read two
    photos better (12 fewer tile and figure errors) and changed no other result.
    """
    from scorer.vision.recognise import read_tiles

    res, _level, _ = generated_photo("goldrush", ["sheriff"], 9933001, 126, difficulty="mixed")
    path, _ = res.save(tmp_path / "photo.jpg")
    rgb = load_photo(path, max_side=load_config().photo.max_side)
    grid = find_grid(rgb)
    assert share_right(grid, res, rgb) == 1.0
    cfg = default_config()
    assert not cfg.phase_check
    cat = catalog_for("goldrush", ["sheriff"])
    kept = read_tiles(rgb, grid, cat, cfg)
    assert kept.debug["phase_shift"] == [0.0, 0.0]
    assert len(kept.cells) == len(res.truth.tiles) == 4
    moved = read_tiles(rgb, grid, cat, dataclasses.replace(cfg, phase_check=True))
    assert moved.debug["phase_shift"] == [0.0, 0.5]
    assert len(moved.cells) == 2
