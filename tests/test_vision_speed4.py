"""The third round of faster paths (``_FAST3`` in recognise and figures) gives the same results.

The catalogue chroma that the game guess weighs is cached in memory and on
disk, the window norms of a stack of cells are shared by the candidate
catalogues, the four half-tile phases are tried in two threads and the light
gain shrinks its pictures in two threads; with the faster paths and without, a
small synthesised table read with its game guessed gives the same board
(confidences to 1e-6), and the parts are checked exactly on their own.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.tiles import catalog_for
from scorer.vision import figures as F
from scorer.vision import recognise as R
from scorer.vision.pipeline import read_photo_full
from test_vision_figures import BASE, _scene
from test_vision_speed3 import _same


def _set_fast(monkeypatch, on: bool) -> None:
    monkeypatch.setattr(R, "_FAST3", on)
    monkeypatch.setattr(F, "_FAST3", on)
    R._CHROMA_CACHE.clear()
    del R._NORMS_MEMO[:]


def test_fast3_pipeline_guessing_the_game_reads_the_same_board(monkeypatch):
    monkeypatch.setenv(R.CACHE_ENV, "off")
    result, _ = _scene(BASE, seed=13)
    _set_fast(monkeypatch, False)
    plain = read_photo_full(result.image).board.to_dict()
    _set_fast(monkeypatch, True)
    fast = read_photo_full(result.image).board.to_dict()
    again = read_photo_full(result.image).board.to_dict()  # finds the norms and the chroma the first kept
    assert plain["game"] == "carcassonne"
    assert len(BASE["tiles"]) - 1 <= len(plain["tiles"]) <= len(BASE["tiles"])  # a tile read with the game guessed
    assert _same(plain, fast) is None
    assert _same(plain, again) is None


def test_catalogue_chroma_cached_on_disk_is_the_computed_one(monkeypatch, tmp_path):
    monkeypatch.setenv(R.CACHE_ENV, str(tmp_path))
    cat = catalog_for("carcassonne", ["river"])
    cfg = R.default_config()
    tpl = R.build_templates(cat, cfg)
    _set_fast(monkeypatch, False)
    plain = R._catalog_chroma(cat, tpl)
    assert plain.shape == (12, 12) and plain.dtype == np.float32
    _set_fast(monkeypatch, True)
    first = R._catalog_chroma(cat, tpl)  # computed (or read when build_templates kept it), kept on disk
    files = list((tmp_path / "chroma").glob("*.npy"))
    assert len(files) == 1
    R._CHROMA_CACHE.clear()
    read = R._catalog_chroma(cat, tpl)  # read from disk
    again = R._catalog_chroma(cat, tpl)  # from memory
    for got in (first, read, again):
        assert got.dtype == np.float32 and np.array_equal(got, plain)
    again[0, 0] = 99.0  # a caller's copy: the kept histogram is not changed
    assert np.array_equal(R._catalog_chroma(cat, tpl), plain)
    # A damaged file is computed again (and rewritten), never an error.
    files[0].write_bytes(b"not a histogram")
    R._CHROMA_CACHE.clear()
    assert np.array_equal(R._catalog_chroma(cat, tpl), plain)
    assert np.array_equal(np.load(files[0]), plain)


@pytest.mark.parametrize("w, cand", [(6, None), (6, "some"), (10, "one")])
def test_ncc_with_shared_window_norms_is_the_plain_ncc(monkeypatch, w, cand):
    rng = np.random.default_rng(93001)
    n = 1 if cand == "one" else 9
    stack = rng.uniform(0, 255, (n, 14, 14, 3)).astype(np.float32)
    T = rng.standard_normal((7, 3 * w * w)).astype(np.float32)
    cands = None if cand is None else rng.integers(0, 7, (n, 3))
    _set_fast(monkeypatch, False)
    plain = R._ncc(stack, w, T, cands)
    assert R._NORMS_MEMO == []
    _set_fast(monkeypatch, True)
    first = R._ncc(stack, w, T, cands)
    assert len(R._NORMS_MEMO) == 1
    second = R._ncc(stack.copy(), w, T[::-1].copy(), cands)  # other templates, the same cells: norms shared
    assert len(R._NORMS_MEMO) == 1
    other = stack.copy()
    other[0, 3, 4, 1] += 1.0  # one pixel differs: its own norms
    R._ncc(other, w, T, cands)
    assert len(R._NORMS_MEMO) == 2
    _set_fast(monkeypatch, False)
    plain_rev = R._ncc(stack, w, T[::-1].copy(), cands)
    for a, b in zip(plain, first):
        assert a.shape == b.shape and np.array_equal(a, b)
    for a, b in zip(plain_rev, second):
        assert a.shape == b.shape and np.array_equal(a, b)


@pytest.mark.parametrize("sigma", [3.0, 22.4, 64.0])
def test_gain_shrunk_in_two_threads_is_the_plain_gain(monkeypatch, sigma):
    rng = np.random.default_rng(93002)
    rect = rng.uniform(0, 255, (300, 260, 3)).astype(np.float32)
    exp = rng.uniform(1, 255, (300, 260, 3)).astype(np.float32)
    weight = (rng.uniform(size=(300, 260)) > 0.3).astype(np.float32)
    weight[:, :40] = 0.0  # no tile there: the board's overall gain
    got = {}
    for on in (False, True):
        monkeypatch.setattr(F, "_FAST3", on)
        got[on] = F._gain(rect, exp, weight, sigma)
    assert got[True].shape == (300, 260, 3) and got[True].dtype == np.float32
    assert np.array_equal(got[True], got[False])
