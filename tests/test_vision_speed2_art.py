"""The figure stage's disk cache of procedural tile art gives the very bytes it would draw."""

import cv2
import numpy as np
import pytest

from scorer.render import tileart
from scorer.tiles import catalog_for
from scorer.vision import figures


@pytest.fixture
def tile():
    return next(iter(catalog_for("carcassonne").tiles.values()))


def test_art_cache_round_trip(tmp_path, monkeypatch, tile):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(figures, "_DRAWN", {})
    drawn = tileart.tile_image(tile, 48)
    first = figures._drawn_art(tile, 48)
    assert first.dtype == np.uint8 and first.shape == (48, 48, 3)
    assert np.array_equal(first, drawn)
    files = list((tmp_path / "tile_art").glob("*.npy"))
    assert len(files) == 1
    # a fresh process: nothing in memory, the picture comes from the file, nothing is drawn
    monkeypatch.setattr(figures, "_DRAWN", {})

    def no_draw(*a, **k):
        raise AssertionError("drawn although cached")

    monkeypatch.setattr(tileart, "tile_image", no_draw)
    again = figures._drawn_art(tile, 48)
    assert np.array_equal(again, drawn)
    # _art turns it exactly as before
    assert np.array_equal(figures._art(tile, 1, 48, None, None), np.rot90(drawn, -1).astype(np.float32))


def test_art_cache_damaged_file_and_off(tmp_path, monkeypatch, tile):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(figures, "_DRAWN", {})
    drawn = figures._drawn_art(tile, 32).copy()
    (path,) = (tmp_path / "tile_art").glob("*.npy")
    path.write_bytes(b"not an array")
    monkeypatch.setattr(figures, "_DRAWN", {})
    assert np.array_equal(figures._drawn_art(tile, 32), drawn)
    assert np.array_equal(np.load(path), drawn)  # written again
    monkeypatch.setenv("SCORER_CACHE_DIR", "off")
    monkeypatch.setattr(figures, "_DRAWN", {})
    assert figures._drawn_art(tile, 32) is None
    assert np.array_equal(figures._art(tile, 0, 32, None, None), drawn.astype(np.float32))


def test_art_cache_flag_off(tmp_path, monkeypatch, tile):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(figures, "ART_DISK_CACHE", False)
    art = figures._art(tile, 2, 40, None, None)
    assert not (tmp_path / "tile_art").exists()
    assert np.array_equal(art, np.rot90(tileart.tile_image(tile, 40), -2).astype(np.float32))


def test_warm_solids_draws_every_builtin_tile(tmp_path, monkeypatch):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(figures, "_DRAWN", {})
    monkeypatch.setattr(figures, "_model", lambda *a, **k: None)  # the solids are tested elsewhere
    figures.warm_solids()
    n = sum(len(catalog_for(g, e).tiles) for g, e in (("carcassonne", ("river", "goldmines")),
                                                         ("goldrush", ("sheriff",))))
    assert len(list((tmp_path / "tile_art").glob("*.npy"))) == n == 83


def test_art_of_other_drawing_code_is_removed(tmp_path, monkeypatch, tile):
    """The first picture a process writes removes the pictures drawn by other (older) drawing code;
    files of the current code stay."""
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(figures, "_DRAWN", {})
    monkeypatch.setattr(figures, "_ART_PRUNED", False)
    folder = tmp_path / "tile_art"
    folder.mkdir()
    stale = folder / "000000000000-older.npy"
    stale.write_bytes(b"old")
    code = figures._art_digest()[:12]
    current = folder / f"{code}-kept.npy"
    current.write_bytes(b"new")
    figures._drawn_art(tile, 36)
    names = sorted(f.name for f in folder.glob("*.npy"))
    assert stale.name not in names and current.name in names
    assert len(names) == 2 and all(n.startswith(f"{code}-") for n in names)


def test_art_drawn_large_and_shrunk(tmp_path, monkeypatch, tile):
    """The twin check's art (oversample 4) is the picture drawn four times larger and shrunk by area
    averaging, cached apart from the art drawn at size."""
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(figures, "_DRAWN", {})
    big = figures._drawn_art(tile, 48, 4)
    assert np.array_equal(big, cv2.resize(tileart.tile_image(tile, 192), (48, 48), interpolation=cv2.INTER_AREA))
    assert np.array_equal(figures._drawn_art(tile, 48), tileart.tile_image(tile, 48))
    assert len(list((tmp_path / "tile_art").glob("*.npy"))) == 2
    assert np.array_equal(figures._art(tile, 3, 48, None, None, 4), np.rot90(big, -3).astype(np.float32))
