"""The second round of faster paths (``_FAST2`` in recognise, figures, decode and photo) gives the same results.

A small synthesised table is read through the whole pipeline with the faster
paths and with the plain ones: the boards must be the same (confidences to
1e-6); the parts are checked exactly on their own.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest
from PIL import Image

from scorer.vision import decode as D
from scorer.vision import figures as F
from scorer.vision import photo as PH
from scorer.vision import recognise as R
from scorer.vision.pipeline import read_photo_full
from test_vision_figures import BASE, GOLDRUSH, _scene


def _set_fast(monkeypatch, on: bool) -> None:
    for mod in (R, F, PH, D):
        monkeypatch.setattr(mod, "_FAST2", on)


def _same(a, b, path="board"):
    """Equal, floats to 1e-6, stage timings aside; returns the first difference found (or None)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(set(a) ^ set(b))}"
        for k in a:
            if k == "seconds":
                continue
            d = _same(a[k], b[k], f"{path}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _same(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, float) or isinstance(b, float):
        return None if abs(float(a) - float(b)) <= 1e-6 else f"{path}: {a} != {b}"
    return None if a == b else f"{path}: {a!r} != {b!r}"


@pytest.mark.parametrize("board, seed", [(BASE, 11), (GOLDRUSH, 12)], ids=["base", "goldrush"])
def test_fast_pipeline_reads_the_same_board(monkeypatch, board, seed):
    result, _ = _scene(board, seed=seed)
    out = {}
    for on in (False, True):
        _set_fast(monkeypatch, on)
        out[on] = read_photo_full(result.image, game=board["game"]).board.to_dict()
    assert len(out[True]["tiles"]) == len(board["tiles"])
    assert _same(out[False], out[True]) is None


def test_robust_scores_in_threaded_halves_are_the_plain_ones(monkeypatch):
    rng = np.random.default_rng(92001)
    px, inset = 32, 0.1
    i, w = R._inner(px, inset)
    cells = np.array([(x, y) for y in range(1, 8) for x in range(1, 11)], dtype=np.int64)  # 70: two chunks of 64
    img = rng.uniform(0, 255, (10 * px, 13 * px, 3)).astype(np.float32)
    tpl = rng.uniform(0, 255, (12, w, w, 3)).astype(np.float32)
    cand = rng.integers(0, 12, (len(cells), 4))
    offset = rng.integers(-2, 3, (len(cells), 4, 2))
    hidden = np.zeros(img.shape[:2], np.float32)
    hidden[px + 5:px + 15, px + 5:px + 15] = 1.0  # a figure on the first cell only: the first chunk counts it
    tau = rng.uniform(100, 900, len(cells))
    for kw in ({}, {"hidden": hidden, "tau": tau}):
        got = {}
        for on in (False, True):
            _set_fast(monkeypatch, on)
            got[on] = R._robust_scores(img, cells, (0, 0), px, inset, cand, offset, tpl, 0.12, **kw)
        for a, b in zip(got[False], got[True]):
            assert a.shape == b.shape and np.array_equal(a, b)


def test_parallel_map_keeps_the_order_and_runs_nested_calls_in_place(monkeypatch):
    _set_fast(monkeypatch, True)
    seen = []

    def inner(x):
        seen.append(threading.current_thread().name)
        return x * x

    def outer(x):
        return sum(R.parallel_map(inner, range(x)))

    assert R.parallel_map(outer, range(6)) == [sum(k * k for k in range(x)) for x in range(6)]
    assert R.parallel_map(lambda x: -x, [3]) == [-3]
    _set_fast(monkeypatch, False)
    assert R.parallel_map(lambda x: x + 1, [1, 2]) == [2, 3]


def test_jpeg_decoded_by_opencv_is_pillows_picture(monkeypatch, tmp_path):
    rng = np.random.default_rng(92002)
    small = rng.uniform(0, 255, (60, 80, 3)).astype(np.uint8)
    big = cv2.resize(small, (2600, 1950), interpolation=cv2.INTER_CUBIC)  # drafted at half size
    for name, img, side in (("big.jpg", big, 1200), ("whole.jpg", big, 4000), ("tiny.jpg", big[:700, :900], 2048)):
        path = tmp_path / name
        Image.fromarray(img).save(path, quality=90)
        got = {}
        for on in (False, True):
            _set_fast(monkeypatch, on)
            got[on] = PH.load_photo(path, max_side=side)
        assert got[True].shape == got[False].shape and np.array_equal(got[True], got[False])
    assert PH.load_photo(tmp_path / "big.jpg", max_side=1200).shape == (900, 1200, 3)
    # A photo that must be turned (EXIF orientation 6) is left to Pillow, and turned.
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(big[:700, :900]).save(tmp_path / "turned.jpg", quality=90, exif=exif)
    _set_fast(monkeypatch, True)
    with Image.open(tmp_path / "turned.jpg") as im:
        assert PH._decode_jpeg(tmp_path / "turned.jpg", im, im.size) is None
    assert PH.load_photo(tmp_path / "turned.jpg").shape == (900, 700, 3)


def test_gather_by_blocks_is_the_per_pixel_gather(monkeypatch):
    rng = np.random.default_rng(92003)
    img = rng.uniform(0, 255, (50, 70, 3)).astype(np.float32)
    mask = (rng.uniform(size=(50, 70)) > 0.5).astype(np.float32)
    x0 = rng.integers(-5, 70, (4, 3))  # some beyond the edges: clipped alike
    y0 = rng.integers(-5, 50, (4, 3))
    for pic in (img, mask, img.astype(np.uint8)):
        for xs, ys in ((x0, y0), (np.array(7), np.array(9))):
            got = {}
            for on in (False, True):
                _set_fast(monkeypatch, on)
                got[on] = R._gather(pic, xs, ys, 11)
            assert got[True].shape == got[False].shape == xs.shape + (11, 11) + pic.shape[2:]
            assert got[True].dtype == pic.dtype and np.array_equal(got[True], got[False])
