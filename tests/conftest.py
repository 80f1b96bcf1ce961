"""Test-wide settings: caches go to a temporary folder, never to the user's home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_in_tmp(tmp_path_factory):
    """Point the tile template disk cache (``SCORER_CACHE_DIR``) at a temporary folder."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SCORER_CACHE_DIR", str(tmp_path_factory.mktemp("scorer-cache")))
    yield
    mp.undo()
