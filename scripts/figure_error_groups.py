"""Group the figure stage's errors on synthesised photos by cause.

Not part of the package.  Development only.  For every photo of the given
folders (``NAME.jpg`` with ``NAME.jpg.truth.json``) the figure stage reads the
photo with the true tiles and a grid fitted to the true cell corners (as
``scripts/figure_dev_eval.py`` mode ``true``), and every candidate it found
(``FigureReading.debug["candidates"]``) is compared with the synthesiser's
figure feet (``synth.figures_px``, taken into the lattice):

* every **player figure or the Sheriff** of the truth is *found* (a kept
  candidate of its kind on its cell within 0.3 tile), or *missed* with a cause:
  ``no_blob`` (no candidate near its foot), ``dropped:WHY`` (the nearest
  candidate was not kept, and why), ``as:KIND`` (kept as another kind),
  ``part_of_other`` (its candidate was taken for part of a figure next to it),
  ``cell`` (kept on another cell);
* every kept **meeple, tent or Sheriff** candidate not matched to a truth
  figure is *extra* with a cause: ``dup`` (near a figure another candidate
  took), ``token:KIND`` (an ore stack or gold bar read as a figure),
  ``supply``/``clutter`` (a figure or card off the board), ``art`` (nothing
  there: the tile art or a shadow).

Missed figures are also tagged with context: ``edge`` (foot within 3% of the
photo's side from its border), ``small`` (tile side under 60 photo pixels),
``crowded`` (another truth figure within 0.35 tile), ``seam`` (foot within
0.06 tile of its tile's edge), and the blur and tilt of the photo.

Usage::

    .venv/bin/python scripts/figure_error_groups.py /tmp/dev4/base /tmp/dev4/gr --out /tmp/x/groups.json
    .venv/bin/python scripts/figure_error_groups.py /tmp/dev4/real --art-dir ART --out /tmp/x/real.json
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

from figure_dev_eval import apply_sets, true_grid
from scorer.board import read_board
from scorer.vision import config as vconfig
from scorer.vision.figures import read_figures
from scorer.vision.photo import load_photo

FIG_KINDS = {"meeple", "farmer", "tent", "sheriff"}


def truth_kind(f: dict) -> str:
    if f["kind"] == "meeple":
        return "farmer" if f.get("pose") == "lying" else "meeple"
    return f["kind"]


def same_role(tk: str, ck: str) -> bool:
    """A kept candidate of kind ``ck`` counts for a truth figure of kind ``tk`` (pose aside)."""
    norm = {"farmer": "meeple"}
    return norm.get(tk, tk) == norm.get(ck, ck)


def _rounded(v) -> list | None:
    """An optional colour as a list of whole numbers."""
    return None if v is None else np.asarray(v).round().tolist()


def analyse(photo: Path, cfg, art_dir: str | None = None) -> dict:
    tj = json.loads(Path(str(photo) + ".truth.json").read_text())
    truth = read_board(str(photo) + ".truth.json")
    rgb = load_photo(photo, max_side=cfg.photo.max_side)
    h, w = rgb.shape[:2]
    grid = true_grid(tj, (h, w))
    s = tj["synth"]
    W0, H0 = s["image_size"]
    sc = np.array([w / W0, h / H0])
    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
    reading = read_figures(rgb, grid, placements, cfg.figures, game=truth.game, players=None, art_dir=art_dir)
    cands = reading.debug["candidates"]
    figs = s["figures_px"]
    lat = grid.to_lattice(np.array([f["px"] for f in figs]) * sc) if figs else np.zeros((0, 2))
    off = [np.asarray(f["px"], dtype=np.float64) * sc for f in s.get("supply_px", [])]
    off_lat = grid.to_lattice(np.array(off)) if off else np.zeros((0, 2))
    clutter = []
    for c in s.get("clutter_px", []):
        p = np.asarray(c["px"], dtype=np.float64) * sc
        clutter.append(grid.to_lattice(p))

    def where(c: dict) -> np.ndarray:
        return np.asarray(c["foot"] if c.get("foot") is not None else c["centre"], dtype=np.float64)

    pos = np.array([where(c) for c in cands]) if cands else np.zeros((0, 2))
    kept = [i for i, c in enumerate(cands) if c.get("kind") in FIG_KINDS]
    # Match truth figures to kept candidates of their role on their cell, greedily by distance.
    pairs = []
    for j, f in enumerate(figs):
        tk = truth_kind(f)
        if tk not in FIG_KINDS:
            continue
        for i in kept:
            ck = cands[i]["kind"]
            d = float(np.linalg.norm(pos[i] - lat[j]))
            if same_role(tk, ck) and d < 0.45:
                pairs.append((d, i, j))
    pairs.sort()
    used_i, used_j = set(), set()
    for d, i, j in pairs:
        if i in used_i or j in used_j:
            continue
        used_i.add(i)
        used_j.add(j)
    # Tile side in photo pixels at a lattice point.
    def side_px(p: np.ndarray) -> float:
        q = grid.to_photo(np.array([p, p + [1, 0], p + [0, 1]]))
        return float(0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[0])))

    rows = []
    for j, f in enumerate(figs):
        tk = truth_kind(f)
        if tk not in FIG_KINDS or j in used_j:
            continue
        p = lat[j]
        fp = np.asarray(f["px"], dtype=np.float64) * sc
        tags = []
        if min(fp[0], fp[1], w - fp[0], h - fp[1]) < 0.03 * max(w, h):
            tags.append("edge")
        if side_px(p) < 60:
            tags.append("small")
        others = [np.linalg.norm(lat[k] - p) for k in range(len(figs)) if k != j]
        if others and min(others) < 0.35:
            tags.append("crowded")
        fr = p - np.floor(p)
        if min(fr.min(), 1 - fr.max()) < 0.06:
            tags.append("seam")
        d = np.linalg.norm(pos - p, axis=1) if len(pos) else np.zeros(0)
        cause = "no_blob"
        near = None
        if len(d) and d.min() < 0.35:
            i = int(np.argmin(d))
            near = cands[i]
            if i in used_i:
                cause = "taken_by_other"
            elif near.get("kind") in FIG_KINDS | {"ore", "gold"}:
                cause = "as:" + near["kind"] if not same_role(tk, near["kind"]) else "cell"
            else:
                cause = "dropped:" + str(near.get("why"))
        rows.append({"photo": str(photo), "game": truth.game, "error": "missed", "kind": tk,
                     "player": f.get("player"), "cause": cause, "tags": tags, "lat": p.tolist(),
                     "side_px": round(side_px(p), 1), "blur": s["params"].get("blur_px"),
                     "tilt": s["params"].get("tilt_deg"), "difficulty": s["params"].get("difficulty"),
                     "cand": None if near is None else {k: v for k, v in near.items() if not k.startswith("_")
                                                        and k not in ("u", "centre", "foot", "rgb")}
                     | {"rgb": np.asarray(near["rgb"]).round().tolist(), "beneath": _rounded(near.get("_bg")),
                        "foot": None if near.get("foot") is None else np.asarray(near["foot"]).round(3).tolist(),
                        "centre": np.asarray(near["centre"]).round(3).tolist()}})
    for i in kept:
        if i in used_i:
            continue
        c = cands[i]
        p = pos[i]
        d = np.linalg.norm(lat - p, axis=1) if len(lat) else np.zeros(0)
        cause = "art"
        if len(d) and d.min() < 0.35:
            j = int(np.argmin(d))
            tk = truth_kind(figs[j])
            if tk in ("ore", "gold"):
                cause = "token:" + tk
            elif j in used_j:
                cause = "dup"
            else:
                cause = "kind:" + tk  # near an unmatched truth figure of another role
        elif len(off_lat) and np.linalg.norm(off_lat - p, axis=1).min() < 0.5:
            cause = "supply"
        elif any(_inside(p, poly) for poly in clutter):
            cause = "clutter"
        rows.append({"photo": str(photo), "game": truth.game, "error": "extra", "kind": c["kind"],
                     "cause": cause, "lat": p.round(3).tolist(), "cls": c.get("class"),
                     "area": round(float(c["area"]), 1), "shapes": c.get("shapes"),
                     "rgb": np.asarray(c["rgb"]).round().tolist(), "beneath": _rounded(c.get("_bg")),
                     "logits": c.get("_logits"),
                     "blur": s["params"].get("blur_px"), "difficulty": s["params"].get("difficulty")})
    n_truth = sum(1 for f in figs if truth_kind(f) in FIG_KINDS)
    return {"photo": str(photo), "game": truth.game, "truth": n_truth, "kept": len(kept), "matched": len(used_i),
            "rows": rows, "seconds": reading.debug["seconds"]}


def _inside(p: np.ndarray, poly: np.ndarray) -> bool:
    import cv2

    return cv2.pointPolygonTest(np.asarray(poly, dtype=np.float32).reshape(-1, 1, 2), (float(p[0]), float(p[1])),
                                False) >= 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out", default="")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--art-dir", default=None, help="real tile art the photos were made with (development only)")
    ap.add_argument("--set", action="append", default=[], metavar="STAGE.KEY=VALUE",
                    help="override a threshold (JSON value), e.g. figures.max_stack=16; repeatable")
    args = ap.parse_args(argv)
    cfg = vconfig.load_config()
    try:
        apply_sets(cfg, args.set)
    except ValueError as exc:
        ap.error(str(exc))
    res = []
    for folder in args.folders:
        photos = sorted(Path(folder).glob("*.jpg"))
        if args.limit:
            photos = photos[:args.limit]
        for photo in photos:
            r = analyse(photo, cfg, args.art_dir)
            res.append(r)
            print(f"{photo.parent.name}/{photo.name} T{r['truth']} K{r['kept']} M{r['matched']}", flush=True)
    for game in sorted({r["game"] for r in res}):
        rs = [r for r in res if r["game"] == game]
        T, K, M = (sum(r[k] for r in rs) for k in ("truth", "kept", "matched"))
        print(f"== {game}: {len(rs)} photos  P {100 * M / max(K, 1):.1f}%  R {100 * M / max(T, 1):.1f}%")
        groups = collections.Counter()
        tags = collections.Counter()
        for r in rs:
            for row in r["rows"]:
                groups[f"{row['error']} {row['kind']} {row['cause']}"] += 1
                for t in row.get("tags", []):
                    tags[f"{row['error']} {t}"] += 1
        for k, v in groups.most_common():
            print(f"   {v:4d}  {k}")
        print("   tags:", dict(tags))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else float(o)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
