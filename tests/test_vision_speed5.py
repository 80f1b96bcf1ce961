"""The fourth round of faster paths gives the numbers of the plain formulas.

The tile stage's weighted means (the fine fit ``_fit``, the plain fit of
``_fit_residual`` and the detail window's visible means in ``_detail_fit``)
are matrix products instead of numpy sums over the pixel axis, and the colour
distances add their three channels written out.  Here each is checked against
the plain formula computed in float64: the colour distances exactly, the fits
to float32 rounding.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scorer.vision import colour
from scorer.vision import recognise as R


def _plain_fit(X, T, M):
    """``X ~ g T + b`` on pixels weighted by ``M``, the moments summed in float64."""
    X, T, M = (np.asarray(a, np.float64) for a in (X, T, M))
    n = M.sum(axis=2) + 1e-9
    xm = (M[..., None] * X).sum(axis=2) / n[..., None]
    tm = (M[..., None] * T).sum(axis=2) / n[..., None]
    Xc, Tc = X - xm[:, :, None, :], T - tm[:, :, None, :]
    cov = (M[..., None] * Xc * Tc).sum(axis=(2, 3))
    vt = np.maximum((M[..., None] * Tc * Tc).sum(axis=(2, 3)), 1e-6)
    V = (M[..., None] * Xc * Xc).sum(axis=(2, 3))
    g = cov / vt
    return xm, tm, g, np.maximum(V - cov * g, 0.0), V


@pytest.fixture
def cells():
    """Two cells, three candidates, 400 pixels: photo, templates (0-255) and weights (0-1), float32."""
    rng = np.random.default_rng(5)
    T = rng.uniform(0, 255, (2, 3, 400, 3)).astype(np.float32)
    X = (0.8 * T + 20 + rng.normal(0, 12, T.shape)).astype(np.float32)
    M = rng.uniform(0, 1, (2, 3, 400)).astype(np.float32)
    M[0, 1, :200] = 0.0  # half the cell hidden
    return X, T, M


def test_weighted_fit_is_the_plain_fit(cells):
    X, T, M = cells
    f = R._fit(X, T, M)
    xm, tm, g, E, V = _plain_fit(X, T, M)
    assert f.xm.shape == (2, 3, 3) and f.g.shape == (2, 3)
    np.testing.assert_allclose(f.xm, xm, rtol=1e-5)
    np.testing.assert_allclose(f.tm, tm, rtol=1e-5)
    np.testing.assert_allclose(f.g, g, rtol=1e-4)
    np.testing.assert_allclose(f.E, E, rtol=1e-3)
    np.testing.assert_allclose(f.V, V, rtol=1e-4)


def test_plain_fit_residual_is_the_formula(cells):
    X, T, _ = cells
    R2 = R._fit_residual(X, T, None)
    Xd, Td = X.astype(np.float64), T.astype(np.float64)
    Tc = Td - Td.mean(axis=2, keepdims=True)
    g = (Xd * Tc).sum(axis=(2, 3)) / ((Tc * Tc).sum(axis=(2, 3)) + 1e-6)
    res = Xd - Xd.mean(axis=2, keepdims=True) - g[:, :, None, None] * Tc
    assert R2.shape == (2, 3, 400)
    np.testing.assert_allclose(R2, (res * res).sum(axis=3), rtol=1e-3, atol=1e-2)


def test_detail_fit_takes_the_visible_pixels_means():
    """A window whose hidden pixels hold anything: only the visible ones count (their means removed).

    Hidden pixels that a template explains are taken back with ``detail_reclaim``
    (tests/test_vision_tiles_reclaim.py): here the hidden half shows the first
    template too, so the mask alone is measured with that off."""
    rng = np.random.default_rng(7)
    dw, r = 20, 1
    D = rng.uniform(0, 255, (2, dw * dw, 3)).astype(np.float32)
    img = np.zeros((dw + 2 * r, dw + 2 * r, 3), np.float32)
    img[r:r + dw, r:r + dw] = (0.9 * D[0] + 15).reshape(dw, dw, 3)
    hidden = np.zeros(img.shape[:2], np.float32)
    hidden[r:r + dw // 2, r:r + dw] = 1.0  # the top half hidden
    mask = np.ones(dw * dw, bool)
    cfg = dataclasses.replace(R.default_config(), detail_reclaim=0.0)
    fit, left = R._detail_fit(img, hidden, D, mask, r, r, dw, r, 0, cfg)
    img2 = img.copy()
    img2[r:r + dw // 2, r:r + dw] = rng.uniform(0, 255, (dw // 2, dw, 3))  # anything under the figure
    fit2, left2 = R._detail_fit(img2, hidden, D, mask, r, r, dw, r, 0, cfg)
    assert fit[0] > 0.99 > fit[1]  # the template the photo shows explains it
    np.testing.assert_allclose(fit2, fit, rtol=1e-4, atol=1e-5)
    assert left2 == pytest.approx(left, rel=1e-4, abs=1e-6)


def test_colour_distances_are_the_plain_formula():
    rng = np.random.default_rng(3)
    rgb = rng.uniform(0, 255, (500, 3))
    names = sorted(colour.PROTOTYPES)
    got = colour.distances(rgb, names)
    x = rgb.astype(np.float64)
    want = np.empty_like(got)
    for k, name in enumerate(names):
        p = np.asarray(colour.PROTOTYPES[name], np.float64)
        lo, hi = colour.SHADING[name]
        s = np.clip(x.mean(axis=1) / p.mean(), lo, hi)
        d = np.log(x + colour.EPS) - np.log(s[:, None] * p[None, :] + colour.EPS)
        want[:, k] = np.sqrt((d * d).sum(axis=1))
    assert np.array_equal(got, want)
