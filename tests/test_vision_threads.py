"""The photo stages hold NumPy's BLAS to one thread while they run, and give the caller's setting back."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from scorer.vision.threads import one_blas_thread


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_one_blas_thread_inside_and_the_callers_setting_after():
    if not _blas_threads():
        pytest.skip("NumPy here has no BLAS thread pool that threadpoolctl can see")

    @one_blas_thread
    def stage(x):
        """A stage."""
        return x, _blas_threads()

    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        value, inside = stage(7)
        assert value == 7 and stage.__doc__ == "A stage."
        assert inside and all(n == 1 for n in inside)
        assert _blas_threads() == before

        @one_blas_thread
        def failing():
            raise ValueError("bad photo")

        with pytest.raises(ValueError, match="bad photo"):
            failing()
        assert _blas_threads() == before


def test_the_grid_stage_runs_on_one_blas_thread(monkeypatch):
    if not _blas_threads():
        pytest.skip("NumPy here has no BLAS thread pool that threadpoolctl can see")
    import scorer.vision.grid as G

    seen = []

    def spy(gray, cfg):
        seen.append(_blas_threads())
        raise RuntimeError("stop here")

    monkeypatch.setattr(G, "_segments", spy)
    with threadpool_limits(limits=2, user_api="blas"):
        with pytest.raises(RuntimeError, match="stop here"):
            G.find_grid(np.zeros((120, 160, 3), np.uint8))
        assert seen and all(n == 1 for n in seen[0])
        assert all(n == 2 for n in _blas_threads())
