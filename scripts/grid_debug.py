"""Why the lattice search went wrong on one synthesised photo (development aid).

Usage::

    .venv/bin/python scripts/grid_debug.py PHOTO.jpg [--k1 0.05]

Fits the true lattice from the photo's ``cell_corners`` (lens distortion
included), then runs the stages of :mod:`scorer.vision.grid` at one ``k1`` and
prints: the seam families found and how far each is from the true directions,
the period candidates of each family beside the true periods, and the score of
every candidate lattice beside the score of the true one.
"""

from __future__ import annotations

import argparse
import json

import cv2
import numpy as np

from scorer.vision import grid as G
from scorer.vision.photo import load_photo


def truth_hn(path: str, shape: tuple[int, int]) -> np.ndarray:
    t = json.load(open(path + ".truth.json"))["synth"]
    W0, H0 = t["image_size"]
    h, w = shape
    sc = w / W0
    src, dst = [], []
    for c in t["cell_corners"]:
        x, y = c["x"], c["y"]
        src += [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]
        dst += c["px"]
    q = (np.array(dst) * sc - [w / 2, h / 2]) / (0.5 * np.hypot(w, h))
    r2 = (q * q).sum(axis=1, keepdims=True)
    u = q * (1 + t["lens"]["k1"] * r2 + t["lens"]["k2"] * r2 * r2)
    H, _ = cv2.findHomography(u.astype(np.float32), np.array(src, np.float32), 0)
    return H, t["lens"]["k1"], t["lens"]["k2"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("photo")
    ap.add_argument("--k1", type=float, default=None)
    ap.add_argument("--draw", help="PNG of the candidate with the best image score")
    args = ap.parse_args()
    rgb = load_photo(args.photo, max_side=2048)
    cfg = G.GridConfig()
    h, w = rgb.shape[:2]
    Ht, k1t, k2t = truth_hn(args.photo, (h, w))
    k1 = k1t if args.k1 is None else args.k1
    print(f"true k1 {k1t:.3f} k2 {k2t:.3f}; running at k1 {k1:.3f}")
    scale = min(1.0, cfg.work_side / max(h, w))
    small = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    segs = G._segments(gray, cfg)
    hs, ws = gray.shape
    half = 0.5 * np.hypot(ws, hs)
    q1 = (segs[:, :2] - [ws / 2, hs / 2]) / half
    q2 = (segs[:, 2:4] - [ws / 2, hs / 2]) / half
    p1, p2 = G._undistort(q1, k1), G._undistort(q2, k1)
    usegs = np.c_[p1, p2]
    ev = G._Evidence(gray, cfg)
    print(f"{len(segs)} segments; true lattice: {_rescore(Ht, k1, usegs, ev, cfg)}")
    Hti = np.linalg.inv(Ht)
    vx, vy = Hti[:, 0], Hti[:, 1]
    rng = np.random.default_rng(0)
    fams = G._families(p1, p2, cfg, rng) if hasattr(G, "_families") else None
    if fams is None:
        return
    for n, (vp, inl) in enumerate(fams):
        dx = np.degrees(np.arccos(min(1, _agree(vp, vx, p1, p2))))
        dy = np.degrees(np.arccos(min(1, _agree(vp, vy, p1, p2))))
        print(f"family {n}: {inl.sum()} segments, {dx:.1f} deg from true x, {dy:.1f} from true y")
    best = None
    for a in range(len(fams)):
        for b in range(a + 1, len(fams)):
            cands = G._rectify(fams[a][0], fams[b][0], p1, p2, fams[a][1], fams[b][1], cfg)
            if not cands:
                continue
            print(f"pair {a},{b}: {len(cands)} candidates")
            for H in cands:
                # scale of candidate relative to truth at the board
                J = _jac(H, Hti)
                sc = _rescore(H, k1, usegs, ev, cfg)
                if best is None or sc[0] > best[0]:
                    best = (sc[0], H)
                print(f"   {sc[1]} vs truth: {J}")

    if args.draw and best is not None:
        _draw(rgb, best[1], k1, args.draw)


def _rescore(H, k1, usegs, ev, cfg):
    out = []
    seg = G._framed_cells(H, usegs, 2 * cfg.snap_tol, cells_out=out)
    cells, n2 = out if out else (np.zeros((0, 2)), 0)
    t = ev.tileness(H, k1, cells).sum()
    bal = G._parity_balance(H, usegs, cfg.snap_tol)
    sc = (t * t / n2 if n2 else 0.0) * min(1.0, bal / cfg.min_parity_balance) ** 2
    return sc, f"frames {seg:6.1f} n4 {len(cells):4d} tiles {t:6.1f} parity {bal:.2f} score {sc:6.2f}"


def _draw(rgb, H, k1, out):
    from scorer.vision.debugview import _draw_lattice
    from scorer.vision.grid import Grid
    img = rgb.copy()
    _draw_lattice(img, Grid(H, rgb.shape[:2], k1), 1.0, 2)
    h, w = img.shape[:2]
    s = min(1.0, 1100 / max(h, w))
    img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    cv2.imwrite(out, cv2.cvtColor(img, cv2.COLOR_RGB2BGR))


def _agree(vp, v, p1, p2) -> float:
    mid = 0.5 * (p1 + p2)
    return float(np.median(np.abs(np.sum(G._direction_to(vp, mid) * G._direction_to(v, mid), axis=1))))


def _jac(H, Hti) -> str:
    # candidate lattice coords of the true lattice points (0..4)
    pts = np.array([[i, j] for i in range(5) for j in range(5)], float)
    img = G._apply(Hti, pts)
    lat = G._apply(H, img)
    X = np.c_[pts, np.ones(len(pts))]
    sol, *_ = np.linalg.lstsq(X, lat, rcond=None)
    A = sol[:2].T
    sx, sy = np.linalg.norm(A, axis=0)
    frac = (sol[2] + 0.5) % 1 - 0.5
    return f"scale {sx:.2f}x{sy:.2f} offset frac {frac[0]:+.2f},{frac[1]:+.2f}"


if __name__ == "__main__":
    main()
