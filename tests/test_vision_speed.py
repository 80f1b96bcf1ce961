"""The faster paths of the figure stage give the same numbers as the plain ones (``figures._FAST``)."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.tiles import catalog_for
from scorer.vision import figures as F
from scorer.vision.figures import FigureConfig


@pytest.fixture
def plain_and_fast(monkeypatch):
    """Run a callable with the plain and with the fast paths; returns both results."""

    def run(fn):
        monkeypatch.setattr(F, "_FAST", False)
        a = fn()
        monkeypatch.setattr(F, "_FAST", True)
        b = fn()
        return a, b

    return run


def test_residual_fast_is_the_plain_residual(plain_and_fast):
    rng = np.random.default_rng(5)
    norm = rng.uniform(0, 255, (2, 37, 41, 3)).astype(np.float32)
    exp = rng.uniform(0, 255, (2, 37, 41, 3)).astype(np.float32)
    norm[0, :5] = 3.0  # dark pixels on bright art: the dark term
    cfg = FigureConfig()
    (r0, s0), (r1, s1) = plain_and_fast(lambda: F._residual(norm, exp, cfg))
    assert r0.dtype == r1.dtype == np.float32
    assert np.array_equal(r0, r1)
    assert np.array_equal(s0, s1)
    assert float(r1[0, :5].min()) > float(np.median(r1[1]))  # the dark term is there


def test_residual_of_a_large_picture_in_two_halves_is_the_same(plain_and_fast):
    rng = np.random.default_rng(6)
    norm = rng.uniform(0, 255, (301, 23, 3)).astype(np.float32)
    exp = rng.uniform(0, 255, (301, 23, 3)).astype(np.float32)
    (r0, s0), (r1, s1) = plain_and_fast(lambda: F._residual(norm, exp, FigureConfig()))
    assert r1.shape == (301, 23)
    assert np.array_equal(r0, r1) and np.array_equal(s0, s1)


def test_register_threads_find_the_same_tiles(plain_and_fast):
    cfg = FigureConfig()
    P = cfg.px
    cat = catalog_for("carcassonne", [])
    kind = next(iter(cat.tiles.values()))
    cells = [(x, y) for x in range(3) for y in range(3)]
    placements = {c: (kind, 0) for c in cells}
    canvas = F._make_canvas(placements, P)
    rng = np.random.default_rng(7)
    arts = {c: F._blur(rng.uniform(0, 255, (P, P, 3)).astype(np.float32), 2.0) for c in cells}
    rect = np.zeros((*canvas.shape, 3), np.float32)
    for i, c in enumerate(cells):
        x0, y0 = canvas.origin_px(c)
        dx, dy = i % 3 - 1, (i // 3) % 3 - 1  # each tile drifts by a pixel or none
        rect[y0 + dy:y0 + dy + P, x0 + dx:x0 + dx + P] = arts[c]
    a, b = plain_and_fast(lambda: F._register(rect, canvas, placements, arts, cfg))
    assert list(a) == list(b) == cells
    for c in cells:
        assert np.array_equal(a[c].A, b[c].A)
        assert a[c].score == b[c].score
    assert min(t.score for t in b.values()) > 0.9  # every tile found


def test_solids_come_back_from_the_disk_cache_unchanged(monkeypatch, tmp_path):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(F, "_FAST", True)
    monkeypatch.setattr(F, "_MODELS", {})
    monkeypatch.setattr(F, "_FACES", {})
    monkeypatch.setattr(F, "_MODEL_FILE_READ", True)  # nothing to read yet
    verts, spans = F._model("tent", 1, 2)
    faces = F._FACES[("tent", 1, 2)]
    assert len(F._MODELS) == F._YAWS["tent"]  # every yaw of the solid built at once
    files = list((tmp_path / "figures").glob("solids-*.npz"))
    assert len(files) == 1
    # A new process: empty caches, the file read on the first look-up.
    monkeypatch.setattr(F, "_MODELS", {})
    monkeypatch.setattr(F, "_FACES", {})
    monkeypatch.setattr(F, "_MODEL_FILE_READ", False)
    verts2, spans2 = F._model("tent", 1, 2)
    assert len(F._MODELS) == F._YAWS["tent"]
    assert np.array_equal(verts, verts2) and verts2.dtype == np.float64
    assert spans2 == spans and all(type(a) is int for ab in spans2 for a in ab)
    for x, y in zip(faces, F._FACES[("tent", 1, 2)]):
        assert np.array_equal(x, y) and x.dtype == y.dtype
    # The plain path builds the same solid.
    monkeypatch.setattr(F, "_FAST", False)
    monkeypatch.setattr(F, "_MODELS", {})
    v3, s3 = F._model("tent", 1, 2)
    assert np.array_equal(v3, verts) and s3 == spans


def test_a_damaged_solids_file_is_rebuilt(monkeypatch, tmp_path):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(F, "_FAST", True)
    path = F._model_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a zip file")
    monkeypatch.setattr(F, "_MODELS", {})
    monkeypatch.setattr(F, "_FACES", {})
    monkeypatch.setattr(F, "_MODEL_FILE_READ", False)
    verts, spans = F._model("meeple", 1, 0)
    assert len(spans) > 4 and verts.shape[1] == 3
    assert path.stat().st_size > 1000  # written again, whole


def test_no_disk_cache_when_caching_is_off(monkeypatch):
    monkeypatch.setenv("SCORER_CACHE_DIR", "off")
    assert F._model_file() is None


def test_warm_solids_caches_every_solid(monkeypatch, tmp_path):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(F, "_FAST", True)
    monkeypatch.setattr(F, "_MODELS", {})
    monkeypatch.setattr(F, "_FACES", {})
    monkeypatch.setattr(F, "_MODEL_FILE_READ", False)
    n = F.warm_solids(max_stack=2)
    stacks = sum(F._YAWS[k] for k in ("ore", "gold"))
    assert n == sum(F._YAWS.values()) + stacks  # ore and gold at heights 1 and 2
    monkeypatch.setattr(F, "_MODELS", {})
    monkeypatch.setattr(F, "_FACES", {})
    monkeypatch.setattr(F, "_MODEL_FILE_READ", False)
    F._model("gold", 2, 5)
    assert len(F._MODELS) == n  # all read back from the one file


def test_old_solids_files_are_removed(monkeypatch, tmp_path):
    monkeypatch.setenv("SCORER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(F, "_FAST", True)
    folder = tmp_path / "figures"
    folder.mkdir()
    for i in range(5):
        (folder / f"solids-old{i}.npz").write_bytes(b"x")
    monkeypatch.setattr(F, "_MODELS", {})
    monkeypatch.setattr(F, "_FACES", {})
    monkeypatch.setattr(F, "_MODEL_FILE_READ", True)
    F._model("ore", 1, 0)
    left = sorted(f.name for f in folder.glob("solids-*.npz"))
    assert len(left) == F._MODEL_FILES_KEPT and F._model_file().name in left
