"""Development measurement of the figure stage alone, with true tiles and with read tiles.

Not part of the package.  For each photo of the given folders (synthesised
photos with ``NAME.jpg.truth.json``), the figure stage
(:func:`scorer.vision.figures.read_figures`) runs twice:

* **true**: the grid fitted to the true cell corners (lens ``k1`` included)
  and the true tiles of the truth board;
* **read**: the grid and tiles the tile stage read (cached under ``--cache``
  after the first run, so later runs time the figure stage only), with the
  catalogue and the second look's tiles adopted, as the photo pipeline does;
  the figures of photos whose tiles could not be read count as missed.

It prints pooled figure precision, recall, colour and location, gold and
ore counts per cell, the figure errors by kind, the tiles wrong as the tile
stage read them (``tiles_wrong_read``) and once the figure stage's second look
and twin checks changed them (``tiles_wrong_after``; the board's box settling,
which needs the tile stage's runners-up, not applied), and the seconds the
figure stage took per photo, and can dump every reading for inspection.

Usage::

    .venv/bin/python scripts/figure_dev_eval.py /tmp/dev3/gr --limit 20 --cache /tmp/figdev/cache
    .venv/bin/python scripts/figure_dev_eval.py /tmp/dev3/gr --modes read --set figures.max_stack=16
"""

from __future__ import annotations

import argparse
import collections
import json
import pickle
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from scorer.board import Board, Placement, read_board
from scorer.errors import ScorerError
from scorer.evaluate import best_offset, compare_boards, same_tile
from scorer.tiles import catalog_for
from scorer.vision import config as vconfig
from scorer.vision.figures import read_figures
from scorer.vision.grid import Grid
from scorer.vision.pipeline import add_figures
from scorer.vision.photo import load_photo

GAMES = {"carcassonne": ("river", "goldmines"), "goldrush": ("sheriff",)}


def true_grid(truth_json: dict, shape: tuple[int, int]) -> Grid:
    """The lattice fitted to the true cell corners, in the working image's pixels."""
    s = truth_json["synth"]
    W0, H0 = s["image_size"]
    h, w = shape
    sx, sy = w / W0, h / H0
    k1 = float(s["params"].get("k1", 0.0))
    c = np.array([w / 2, h / 2])
    n = 0.5 * np.hypot(w, h)
    src, dst = [], []
    for cc in s["cell_corners"]:
        px = np.array(cc["px"], dtype=np.float64) * [sx, sy]
        q = (px - c) / n
        src.append(q * (1 + k1 * np.sum(q * q, axis=1, keepdims=True)))
        x, y = cc["x"], cc["y"]
        dst.append(np.array([[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]], dtype=np.float64))
    Hn, _ = cv2.findHomography(np.vstack(src), np.vstack(dst))
    return Grid(Hn, (h, w), k1=k1)


def wrong_tiles(placements: dict, truth: Board, off: tuple[int, int]) -> list[tuple[int, int, str, str]]:
    """The cells of ``placements`` ((x, y) -> (TileType, rot)) that hold another tile in ``truth``, moved by
    ``off``: (truth x, truth y, "TILE rot R" of the truth, of the reading) each."""
    wrong = []
    for c, (t, r) in placements.items():
        tc = (c[0] + off[0], c[1] + off[1])
        tt = truth.tiles.get(tc)
        if tt is not None and not same_tile(tt, Placement(tc[0], tc[1], t, r)):
            wrong.append((tc[0], tc[1], f"{tt.tile.id} rot {tt.rot}", f"{t.id} rot {r}"))
    return wrong


def apply_sets(cfg, items: list[str]) -> None:
    """Override thresholds of a vision configuration from ``STAGE.KEY=VALUE`` items (JSON values)."""
    for item in items:
        key, _, value = item.partition("=")
        stage, _, name = key.partition(".")
        section = getattr(cfg, stage, None)
        if section is None or not hasattr(section, name):
            raise ValueError(f"--set {key}: no such threshold")
        setattr(section, name, json.loads(value))


def read_tiles_cached(photo: Path, rgb: np.ndarray, cache: Path, cfg) -> dict | None:
    """The tile stage's grid and placements (ids), cached."""
    f = cache / (photo.parent.name + "_" + photo.name + ".pkl")
    if f.exists():
        return pickle.loads(f.read_bytes())
    from scorer.vision.grid import find_grid
    from scorer.vision.recognise import guess_catalog, read_tiles

    try:
        grid = find_grid(rgb, cfg.grid)
        cands = [catalog_for(g, e) for g, e in GAMES.items()]
        catalog = guess_catalog(rgb, grid, cands, cfg.tiles)
        game = catalog.sets[0].game
        tiles = read_tiles(rgb, grid, catalog, cfg.tiles)
        grid = getattr(tiles, "grid", None) or grid
        out = {"game": game, "grid": Grid(grid.Hn, grid.shape, grid.k1),
               "cells": {c: (r.tile_id, r.rot) for c, r in tiles.cells.items()}}
    except ScorerError as exc:
        out = {"error": str(exc)}
    cache.mkdir(parents=True, exist_ok=True)
    f.write_bytes(pickle.dumps(out))
    return out


def as_board(truth: Board, game: str, placements: dict, reading) -> Board:
    """A board from placements and a figure reading."""
    b = Board(game=game, expansions=list(truth.expansions), catalog=truth.catalog)
    b.tiles = {c: Placement(c[0], c[1], t, r) for c, (t, r) in placements.items()}
    return add_figures(b, reading)


KEYS = ("figures_truth", "figures_pred", "figures_matched", "colour_right", "colour_total", "location_right",
        "location_total", "gold_right", "gold_cells", "ore_right", "ore_cells")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated photo names")
    ap.add_argument("--cache", default="/tmp/figdev/cache")
    ap.add_argument("--modes", default="true,read")
    ap.add_argument("--dump", default="", help="folder to pickle every reading into")
    ap.add_argument("--json", default="", help="write per-photo rows here")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="STAGE.KEY=VALUE",
                    help="override a threshold (JSON value), e.g. figures.max_stack=16; repeatable")
    args = ap.parse_args(argv)
    cfg = vconfig.load_config()
    try:
        apply_sets(cfg, args.set)
    except ValueError as exc:
        ap.error(str(exc))
    cache = Path(args.cache)
    modes = args.modes.split(",")
    tot = {m: collections.Counter() for m in modes}
    errs = {m: collections.Counter() for m in modes}
    secs = {m: [] for m in modes}
    rows = []
    dump = Path(args.dump) if args.dump else None
    if dump:
        dump.mkdir(parents=True, exist_ok=True)
    for folder in args.folders:
        photos = sorted(Path(folder).glob("*.jpg"))
        if args.only:
            keep = set(args.only.split(","))
            photos = [p for p in photos if p.name in keep or p.stem in keep]
        photos = photos[args.skip:]
        if args.limit:
            photos = photos[:args.limit]
        for photo in photos:
            tpath = photo.with_name(photo.name + ".truth.json")
            tj = json.loads(tpath.read_text())
            truth = read_board(tpath)
            rgb = load_photo(photo, max_side=cfg.photo.max_side)
            for mode in modes:
                if mode == "true":
                    grid = true_grid(tj, rgb.shape[:2])
                    placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
                    game = truth.game
                else:
                    rd = read_tiles_cached(photo, rgb, cache, cfg)
                    if "error" in rd:
                        tot[mode]["figures_truth"] += len(truth.meeples) + len(truth.tents) + (
                            truth.sheriff is not None)
                        tot[mode]["failed_reads"] += 1
                        rows.append({"photo": f"{Path(folder).name}/{photo.name}", "mode": mode, "failed": True,
                                     **{k: 0 for k in KEYS}, "figures_truth": len(truth.meeples) + len(truth.tents)
                                     + (truth.sheriff is not None), "figure_errors": [], "token_errors": []})
                        continue
                    game = rd["game"]
                    cat = catalog_for(game, GAMES[game])
                    grid = rd["grid"]
                    placements = {c: (cat[t], r) for c, (t, r) in rd["cells"].items()}
                t0 = time.perf_counter()
                # As the photo pipeline (scorer.vision.pipeline.read_photo_full) calls it.
                reading = read_figures(rgb, grid, placements, cfg.figures, game=game,
                                       catalog=catalog_for(game, GAMES[game]), adopt_tiles=True)
                dt = time.perf_counter() - t0
                secs[mode].append(dt)
                read_placements = placements
                placements = dict(placements)
                for c, look in getattr(reading, "tiles", {}).items():
                    if c in placements:
                        placements[c] = (catalog_for(game, GAMES[game])[look["tile"]], int(look["rot"]))
                pred = as_board(truth, game, placements, reading)
                off = (0, 0) if mode == "true" else best_offset(truth, pred)
                cmp = compare_boards(truth, pred, offset=off, mode="completed")
                for k in KEYS:
                    tot[mode][k] += getattr(cmp, k)
                cat = truth.catalog if mode == "true" else catalog_for(game, GAMES[game])
                for c, f in getattr(reading, "tiles", {}).items():
                    tc = (c[0] + off[0], c[1] + off[1])
                    tt = truth.tiles.get(tc)
                    was = tt is not None and same_tile(tt, Placement(tc[0], tc[1], *read_placements[c]))
                    now = tt is not None and f["tile"] in cat and same_tile(tt, Placement(tc[0], tc[1], cat[f["tile"]], f["rot"]))
                    tot[mode]["refit_" + ("fixed" if now and not was else "broke" if was and not now
                                          else "same_right" if now else "still_wrong")] += 1
                tot[mode]["tiles_wrong_read"] += len(wrong_tiles(read_placements, truth, off))
                wrong_after = wrong_tiles(placements, truth, off)
                tot[mode]["tiles_wrong_after"] += len(wrong_after)
                for e in cmp.figure_errors:
                    tag = e["error"] + " " + e["kind"]
                    if e["error"] == "wrong":
                        tag += " colour" if not e["colour_right"] else ""
                        tag += " loc" if not e["location_right"] else ""
                    errs[mode][tag] += 1
                row = {"photo": f"{Path(folder).name}/{photo.name}", "mode": mode, "seconds": round(dt, 3),
                       "offset": list(off), **{k: getattr(cmp, k) for k in KEYS},
                       "figure_errors": cmp.figure_errors, "token_errors": cmp.token_errors,
                       "tile_errors_after": wrong_after}
                rows.append(row)
                if not args.quiet:
                    print(f"{row['photo']:24s} {mode:4s} T{cmp.figures_truth:3d} P{cmp.figures_pred:3d} "
                          f"M{cmp.figures_matched:3d} col {cmp.colour_right}/{cmp.colour_total} "
                          f"loc {cmp.location_right}/{cmp.location_total} {dt:.2f}s", flush=True)
                if dump:
                    d = {"mode": mode, "game": game, "offset": off, "grid": grid,
                         "placements": {c: (t.id, r) for c, (t, r) in placements.items()},
                         "meeples": reading.meeples, "tents": reading.tents, "sheriff": reading.sheriff,
                         "gold": reading.gold, "ore": reading.ore, "blobs": reading.blobs,
                         "errors": cmp.figure_errors, "token_errors": cmp.token_errors,
                         "refit": getattr(reading, "tiles", {})}
                    (dump / f"{Path(folder).name}_{photo.stem}_{mode}.pkl").write_bytes(pickle.dumps(d))
    for mode in modes:
        t = tot[mode]
        if not secs[mode]:
            continue

        def r(a, b):
            return f"{100 * t[a] / t[b]:.1f}%" if t[b] else "-"

        print(f"== {mode}: {len(secs[mode])} photos  P {r('figures_matched', 'figures_pred')}  "
              f"R {r('figures_matched', 'figures_truth')}  colour {r('colour_right', 'colour_total')}  "
              f"loc {r('location_right', 'location_total')}  gold {r('gold_right', 'gold_cells')}  "
              f"ore {r('ore_right', 'ore_cells')}  sec median {np.median(secs[mode]):.2f} "
              f"mean {np.mean(secs[mode]):.2f}")
        print("   ", dict(t))
        print("   ", dict(sorted(errs[mode].items(), key=lambda kv: -kv[1])))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
