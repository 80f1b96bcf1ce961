"""Check the tile lattice found in synthesised photos against their ground truth.

Usage::

    .venv/bin/python scripts/grid_check.py DIR [DIR ...] [--max-side 2048] [--draw OUTDIR] [--json OUT]

Every ``X.jpg`` with an ``X.jpg.truth.json`` beside it (written by ``scorer
synth``) is loaded as the photo pipeline loads it, :func:`find_grid` runs on it,
and each true cell centre (mean of its four ``cell_corners``) is mapped into the
lattice found.  The grid is right when more than 95% of the cells land in
lattice cells with one common integer offset (the lattice may be shifted by
whole cells; north must point to the photo's top).  Also printed: the largest
distance of a mapped centre from its lattice cell centre (tile units: lens
distortion and refinement error), the seconds ``find_grid`` took, and the k1
found beside the true one.  ``--draw`` writes each wrong photo with the lattice
found (yellow) and the true cell centres (green: right cell, red: wrong).
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys
import time

import cv2
import numpy as np

from scorer.vision.grid import find_grid
from scorer.vision.photo import load_photo


def check(path: str, max_side: int, draw: str | None = None) -> dict:
    """One photo's row: right, offset share, max centre error, seconds, k1."""
    truth = json.load(open(path + ".truth.json"))
    syn = truth["synth"]
    prm = syn["params"]
    rgb = load_photo(path, max_side=max_side)
    sc = rgb.shape[1] / syn["image_size"][0]
    row = {"photo": os.path.basename(path), "dir": os.path.basename(os.path.dirname(path)),
           "difficulty": prm.get("difficulty", "?"), "tilt": round(prm.get("tilt_deg", -1), 1),
           "tiles": len(truth["tiles"]), "table": prm.get("table", "?"),
           "k1_true": round(prm.get("k1", 0.0), 3), "k2_true": round(prm.get("k2", 0.0), 3)}
    t0 = time.perf_counter()
    try:
        g = find_grid(rgb)
    except Exception as exc:  # noqa: BLE001 - a failure is a row
        row.update(right=False, error=str(exc), seconds=round(time.perf_counter() - t0, 3))
        return row
    row["seconds"] = round(time.perf_counter() - t0, 3)
    keys = np.array([(c["x"], c["y"]) for c in syn["cell_corners"]])
    centres = np.array([np.mean(c["px"], axis=0) for c in syn["cell_corners"]]) * sc
    lat = g.to_lattice(centres)
    share, best, off = _share(lat, keys)
    # Near 45 degrees of camera roll, which side is "north" is a coin toss: the truth
    # snaps the roll, the grid the photo's up direction; a quarter turn is accepted.
    rot = prm.get("rotation_deg", 0.0)
    resid = (rot - 90.0 * np.floor(rot / 90.0 + 0.5) + 180.0) % 360.0 - 180.0
    row["north"] = "ok"
    if share <= 0.95 and abs(resid) > 35:
        for k in (1, 3):
            R = np.array([[0, -1], [1, 0]]) if k == 1 else np.array([[0, 1], [-1, 0]])
            s2, b2, o2 = _share(lat @ R.T, keys)
            if s2 > share:
                share, best, off, lat = s2, b2, o2, lat @ R.T
                row["north"] = "turned (roll %.0f)" % rot
    err = np.abs(lat - (keys + best + 0.5)).max(axis=1) if share > 0.5 else np.full(len(keys), 9.0)
    row.update(right=bool(share > 0.95), share=round(float(share), 3), max_err=round(float(err.max()), 3),
               mean_err=round(float(err.mean()), 3), k1=round(float(g.k1), 3), support=round(float(g.support), 3),
               k2=round(float(getattr(g, "k2", 0.0)), 3))
    if not row["right"]:
        row["kind"] = _kind(keys + 0.5, lat)
        if "start" in g.debug:  # the lattice chosen, before the least-squares fit
            g0 = dataclasses.replace(g, Hn=g.debug["start"][0], k1=g.debug["start"][1], k2=0.0)
            lat0 = g0.to_lattice(centres)
            turns = (np.eye(2), np.array([[0, -1], [1, 0]]), np.array([[0, 1], [-1, 0]]))
            s0 = max(_share(lat0 @ R.T, keys)[0] for R in turns)
            row["kind"] += f" | before the fit: share {s0:.3f} {_kind(keys + 0.5, lat0)}"
    if draw and not row["right"]:
        _draw(rgb, g, centres, (off == best).all(axis=1), os.path.join(draw, row["dir"] + "-" + row["photo"]))
    return row


def _share(lat: np.ndarray, keys: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Share of cells with the most common integer offset, that offset, and every cell's offset."""
    off = np.floor(lat).astype(int) - keys
    vals, counts = np.unique(off, axis=0, return_counts=True)
    return counts.max() / len(off), vals[int(np.argmax(counts))], off


def _kind(truth: np.ndarray, found: np.ndarray) -> str:
    """What is wrong: the affine map truth lattice -> lattice found (scale per axis, skew, residual, phase)."""
    X = np.c_[truth, np.ones(len(truth))]
    sol, *_ = np.linalg.lstsq(X, found, rcond=None)
    A = sol[:2].T
    resid = np.abs(X @ sol - found).max()
    sx, sy = np.linalg.norm(A, axis=0)
    fr = (found - truth @ A.T).mean(axis=0)
    fr = np.abs((fr + 0.5) % 1.0 - 0.5)
    return (f"scale {sx:.2f}x{sy:.2f} skew {abs(A[:, 0] @ A[:, 1]) / (sx * sy + 1e-9):.2f} resid {resid:.2f} "
            f"phase {fr[0]:.2f},{fr[1]:.2f}")


def _draw(rgb: np.ndarray, g, centres: np.ndarray, good: np.ndarray, out: str) -> None:
    from scorer.vision.debugview import _draw_lattice

    img = rgb.copy()
    _draw_lattice(img, g, 1.0, 2)
    for (x, y), ok in zip(centres, good):
        cv2.circle(img, (round(x), round(y)), 9, (0, 255, 0) if ok else (255, 0, 0), -1)
    h, w = img.shape[:2]
    s = min(1.0, 1100 / max(h, w))
    img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    cv2.imwrite(out[:-4] + ".png", cv2.cvtColor(img, cv2.COLOR_RGB2BGR))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--max-side", type=int, default=2048)
    ap.add_argument("--draw")
    ap.add_argument("--json")
    ap.add_argument("--only", help="comma-separated photo names")
    ap.add_argument("--impl", help="another grid.py to measure instead (e.g. an older copy)")
    args = ap.parse_args(argv)
    if args.impl:
        import importlib.util

        spec = importlib.util.spec_from_file_location("scorer.vision._grid_alt", args.impl)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        globals()["find_grid"] = mod.find_grid
    if args.draw:
        os.makedirs(args.draw, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    rows = []
    for d in args.dirs:
        for p in sorted(glob.glob(os.path.join(d, "*.jpg"))):
            if not os.path.exists(p + ".truth.json") or (only and os.path.basename(p) not in only):
                continue
            r = check(p, args.max_side, args.draw)
            rows.append(r)
            if r["right"]:
                text = f"share {r['share']:.3f} err max {r['max_err']:.3f} mean {r['mean_err']:.3f}"
            elif "error" in r:
                text = r["error"][:90]
            else:
                text = f"share {r['share']:.3f} err max {r['max_err']:.3f} {r['kind']}"
            print(f"{'OK ' if r['right'] else 'BAD'} {r['dir']}/{r['photo']} {r['difficulty']:4s} tilt {r['tilt']:4.0f} "
                  f"tiles {r['tiles']:3d} k1 {r.get('k1', 0):.2f}/{r['k1_true']:.2f} {r['seconds']:.2f}s {text}",
                  flush=True)
    for d in sorted({r["dir"] for r in rows}):
        sel = [r for r in rows if r["dir"] == d]
        print(f"{d}: {sum(r['right'] for r in sel)}/{len(sel)} right")
    for diff in ("easy", "hard", None):
        sel = [r for r in rows if diff is None or r["difficulty"] == diff]
        if sel:
            ok = sum(r["right"] for r in sel)
            secs = np.array([r["seconds"] for r in sel])
            errs = [r["max_err"] for r in sel if r["right"]]
            print(f"{diff or 'all'}: {ok}/{len(sel)} right ({ok / len(sel):.1%}); seconds median {np.median(secs):.2f} "
                  f"max {secs.max():.2f}; max centre error median {np.median(errs) if errs else 0:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
