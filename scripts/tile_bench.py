"""Measure the tile stage alone on synthetic photos with ground truth.

For every photo ``X.jpg`` with ``X.jpg.truth.json`` (``scorer synth`` output) in
the folders given, the photo is loaded as the pipeline loads it, and
:func:`scorer.vision.recognise.read_tiles` is run on

* the **truth lattice**, built from the truth file's ``cell_corners`` (lens
  distortion included), so that grid errors do not count, and/or
* the **found grid** (:func:`scorer.vision.grid.find_grid`, cached in
  ``--cache`` because it is slow and not what is measured here),

with the catalogue of the truth board's game (every expansion the pipeline
would allow).  Prints per photo the tile errors per truth cell and the tile
stage's seconds, then the pooled error, the commonest confusions and, for the
truth lattice, where each error arose: ``empty`` (read as no tile),
``coarse`` (the truth template was not among the cell's candidates),
``match`` (among them but not the best fine/detail score, and the decoder did
not repair it) or ``decode`` (best fine score, changed by the decoder).

Usage::

    .venv/bin/python scripts/tile_bench.py /tmp/dev3/gr --limit 10 --grid truth
    .venv/bin/python scripts/tile_bench.py /tmp/dev3/gr /tmp/dev3/base --grid both --json out.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np


def truth_lattice(truth: dict, shape: tuple[int, int]):
    """The :class:`Grid` of a synthetic photo from its truth ``cell_corners``, in a photo of ``shape``."""
    from scorer.vision.grid import Grid

    s = truth["synth"]
    W0, H0 = s["image_size"]
    h, w = shape
    sx, sy = w / W0, h / H0
    src, dst = [], []
    for c in s["cell_corners"]:
        x, y = c["x"], c["y"]
        src += [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]]
        dst += [[(px + 0.5) * sx - 0.5, (py + 0.5) * sy - 0.5] for px, py in c["px"]]
    lens = s.get("lens", {})
    k1, k2 = float(lens.get("k1", 0.0)), float(lens.get("k2", 0.0))
    centre = np.array([w / 2, h / 2])
    n = 0.5 * np.hypot(w, h)
    q = (np.array(dst, float) - centre) / n
    r2 = (q * q).sum(axis=1, keepdims=True)
    u = q * (1 + k1 * r2 + k2 * r2 * r2)
    Hn, _ = cv2.findHomography(u.astype(np.float32), np.array(src, np.float32), 0)
    return Grid(Hn, (h, w), k1=k1 + k2)  # k2 folded into k1: exact enough over a board


def found_grid(rgb: np.ndarray, photo: Path, cache: Path | None):
    from scorer.errors import ScorerError
    from scorer.fileio import write_atomic
    from scorer.vision.grid import Grid, find_grid

    f = None if cache is None else cache / f"{photo.parent.name}_{photo.stem}_{_photo_key(photo)}.grid2.json"
    if f is not None and f.is_file():
        d = json.loads(f.read_text())
        if d is None:
            return None
        # What the tile stage reads of the grid: the fitted lattice, the lattice before the fit and
        # the other lattices the seams allow.
        debug = {} if d.get("start") is None else {"start": (np.array(d["start"][0]), d["start"][1])}
        debug["alternatives"] = [(np.array(H), k1, k2) for H, k1, k2 in d.get("alternatives", [])]
        return Grid(np.array(d["Hn"]), tuple(d["shape"]), k1=d["k1"], k2=d.get("k2", 0.0), support=d["support"],
                    segments=d.get("segments", 0), debug=debug)
    try:
        g = find_grid(rgb)
        start = g.debug.get("start")
        d = {"Hn": g.Hn.tolist(), "shape": list(g.shape), "k1": g.k1, "k2": g.k2, "support": g.support,
             "segments": g.segments,
             "start": None if start is None else [np.asarray(start[0]).tolist(), float(start[1])],
             "alternatives": [[np.asarray(H).tolist(), float(k1), float(k2)]
                              for H, k1, k2 in g.debug.get("alternatives", [])]}
    except ScorerError:
        g, d = None, None
    if f is not None:
        f.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(f, json.dumps(d))
    return g


def _photo_key(photo: Path) -> str:
    """The photo's whole path, size and time, hashed: two sets with like folder names (gr/, base/)
    must not share cached grids, nor a photo made again in the same place."""
    st = photo.stat()
    return hashlib.sha1(f"{photo.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:16]


def same(truth_tile, truth_rot: int, tid: str, rot: int) -> bool:
    if truth_tile.id != tid:
        return False
    turn = (rot - truth_rot) % 4
    return turn == 0 or turn in truth_tile.symmetries()


def best_offset(truth: dict, pred: dict) -> tuple[int, int]:
    """Translation of the predicted cells that matches most truth tiles (then most overlap)."""
    votes: Counter = Counter()
    for tc, (tt, tr) in truth.items():
        for pc, (pid, pr) in pred.items():
            d = (tc[0] - pc[0], tc[1] - pc[1])
            votes[d] += 1000 * same(tt, tr, pid, pr) + 1
    return max(votes, key=votes.get) if votes else (0, 0)


class _Spy:
    """Keeps the match of the last read_tiles call (wraps scorer.vision.decode.decode)."""

    def __init__(self):
        import scorer.vision.decode as D

        self.D = D
        self.orig = D.decode
        self.match = None
        self.first = None

    def __enter__(self):
        def wrapped(match, cells, occ, tpl, catalog, cfg):
            if self.first is None:
                self.first = (match.cand.copy(), match.score.copy())
            self.match, self.tpl = match, tpl
            return self.orig(match, cells, occ, tpl, catalog, cfg)

        self.D.decode = wrapped
        return self

    def __exit__(self, *a):
        self.D.decode = self.orig


def run_one(photo: Path, truth: dict, grid_kind: str, cache: Path | None, cfg, appearance=None) -> dict:
    from scorer.board import Board
    from scorer.errors import ScorerError
    from scorer.tiles import catalog_for
    from scorer.vision.photo import load_photo
    from scorer.vision.pipeline import CANDIDATE_GAMES
    from scorer.vision.recognise import read_tiles

    board = Board.from_dict({k: v for k, v in truth.items() if k != "synth"})
    game = board.game
    catalog = catalog_for(game, dict(CANDIDATE_GAMES)[game])
    rgb = load_photo(photo, max_side=2048)
    grid = truth_lattice(truth, rgb.shape[:2]) if grid_kind == "truth" else found_grid(rgb, photo, cache)
    tt = {c: (p.tile, p.rot) for c, p in board.tiles.items()}
    row = {"photo": str(photo), "grid": grid_kind, "truth_tiles": len(tt), "errors": [], "seconds": None,
           "params": {k: truth["synth"]["params"].get(k) for k in ("tilt_deg", "k1", "k2", "blur_px", "tile_offset",
                                                                   "tile_turn_deg", "megapixels", "difficulty")}}
    if grid is None:
        row["errors"] = [{"cell": list(c), "truth": f"{t.id} {r}", "pred": None, "why": "grid"} for c, (t, r) in tt.items()]
        return row
    spy = _Spy()
    t0 = time.perf_counter()
    try:
        with spy:
            reading = read_tiles(rgb, grid, catalog, cfg, appearance=appearance)
    except ScorerError as exc:
        row["seconds"] = time.perf_counter() - t0
        row["failed"] = str(exc)
        row["errors"] = [{"cell": list(c), "truth": f"{t.id} {r}", "pred": None, "why": "failed"} for c, (t, r) in tt.items()]
        return row
    row["seconds"] = time.perf_counter() - t0
    row["stage_seconds"] = {k: round(v, 3) for k, v in reading.debug.get("seconds", {}).items()}
    pred = {c: (r.tile_id, r.rot) for c, r in reading.cells.items()}
    off = (0, 0) if grid_kind == "truth" and not any(reading.debug.get("phase_shift", [0, 0])) else best_offset(tt, pred)
    row["offset"] = list(off)
    moved = {(c[0] + off[0], c[1] + off[1]): v for c, v in pred.items()}
    match = spy.match
    index = {} if match is None else {(int(c[0]) + off[0], int(c[1]) + off[1]): k for k, c in enumerate(match.cells)}
    tpl = getattr(spy, "tpl", None)
    row["extra"] = sum(1 for c in moved if c not in tt)
    for c, (t, r) in sorted(tt.items()):
        p = moved.get(c)
        if p is not None and same(t, r, *p):
            continue
        err = {"cell": list(c), "truth": f"{t.id} {r}", "pred": None if p is None else f"{p[0]} {p[1]}"}
        k = index.get(c)
        if p is None:
            err["why"] = "empty"
        elif k is None or tpl is None:
            err["why"] = "?"
        else:
            keys = [tpl.keys[j] for j in match.cand[k]]
            hit = [n for n, (tid, rot) in enumerate(keys) if same(t, r, tid, rot)]
            if not hit:
                err["why"] = "coarse"
            elif hit[0] == 0:
                err["why"] = "decode"
            else:
                err["why"] = "match"
                err["gap"] = round(float(match.score[k, 0] - match.score[k, hit[0]]), 3)
        row["errors"].append(err)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--limit", type=int, default=0, help="photos per folder (0: all)")
    ap.add_argument("--start", type=int, default=0, help="skip this many photos per folder")
    ap.add_argument("--grid", choices=("truth", "found", "both"), default="truth")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/tile_bench_cache"))
    ap.add_argument("--json", type=Path, help="write every row here")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--config", type=Path, help="a vision config.toml")
    ap.add_argument("--only", default="", help="comma-separated photo names (stems) to keep, e.g. synth-00004")
    args = ap.parse_args(argv)
    from scorer.vision.config import load_config

    cfg = load_config(args.config).tiles
    kinds = ("truth", "found") if args.grid == "both" else (args.grid,)
    rows = []
    for folder in args.folders:
        photos = sorted(folder.glob("*.jpg"))[args.start:]
        if args.only:
            keep = set(args.only.split(","))
            photos = [p for p in photos if p.stem in keep]
        if args.limit:
            photos = photos[:args.limit]
        for photo in photos:
            tf = photo.with_name(photo.name + ".truth.json")
            if not tf.is_file():
                continue
            truth = json.loads(tf.read_text())
            for kind in kinds:
                row = run_one(photo, truth, kind, args.cache, cfg)
                rows.append(row)
                if not args.quiet:
                    print(f"{photo.parent.name}/{photo.name} {kind:5s} err {len(row['errors']):3d}/{row['truth_tiles']:3d}"
                          f" extra {row.get('extra', 0):2d} {row['seconds'] or 0:6.2f}s "
                          + " ".join(f"{e['truth']}>{e['pred']}({e['why']})" for e in row["errors"][:12]),
                          flush=True)
    for kind in kinds:
        for folder in args.folders:
            sel = [r for r in rows if r["grid"] == kind and Path(r["photo"]).parent == folder]
            if not sel:
                continue
            n = sum(r["truth_tiles"] for r in sel)
            e = sum(len(r["errors"]) for r in sel)
            secs = [r["seconds"] for r in sel if r["seconds"] is not None]
            why = Counter(x["why"] for r in sel for x in r["errors"])
            conf = Counter((x["truth"].split()[0], (x["pred"] or "empty").split()[0]) for r in sel for x in r["errors"])
            print(f"== {folder} grid={kind}: {len(sel)} photos, tile error {e}/{n} = {100 * e / max(n, 1):.2f}%, "
                  f"extra {sum(r.get('extra', 0) for r in sel)}, median {statistics.median(secs) if secs else 0:.2f}s")
            print("   why:", dict(why))
            print("   confusions:", ", ".join(f"{a}>{b} {c}" for (a, b), c in conf.most_common(16)))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
