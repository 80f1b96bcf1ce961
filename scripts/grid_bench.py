"""Seconds :func:`find_grid` takes, photo by photo, optionally beside another implementation.

Usage::

    .venv/bin/python scripts/grid_bench.py DIR [DIR ...] [--impl OLD_grid.py] [--repeat 3] [--max-side 2048]

Each photo is loaded as the pipeline loads it (longest side ``--max-side``), and
the grid search is timed ``--repeat`` times (the best time counts; ``--cpu``:
CPU seconds of the process, steadier on a shared machine); with
``--impl`` the other implementation runs right after on the same pixels, so
both see the same machine load.  Also timed: loading the photo.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import sys
import time

import numpy as np

from scorer.vision.grid import find_grid
from scorer.vision.photo import load_photo


def _best(fn, rgb, repeat: int, clock=time.perf_counter) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = clock()
        try:
            fn(rgb)
        except Exception:  # noqa: BLE001 - a refusal is timed too
            pass
        best = min(best, clock() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--impl")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-side", type=int, default=2048)
    ap.add_argument("--cpu", action="store_true", help="CPU seconds of this process instead of wall-clock seconds "
                    "(steadier on a machine others use)")
    args = ap.parse_args(argv)
    clock = time.process_time if args.cpu else time.perf_counter
    other = None
    if args.impl:
        spec = importlib.util.spec_from_file_location("scorer.vision._grid_alt", args.impl)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        other = mod.find_grid
    rows = []
    for d in args.dirs:
        for p in sorted(glob.glob(os.path.join(d, "*.jpg"))):
            t0 = time.perf_counter()
            rgb = load_photo(p, max_side=args.max_side)
            load = time.perf_counter() - t0
            t_new = _best(find_grid, rgb, args.repeat, clock)
            t_old = _best(other, rgb, args.repeat, clock) if other else np.nan
            rows.append((load, t_new, t_old))
            print(f"{os.path.basename(d)}/{os.path.basename(p)} {rgb.shape[1]}x{rgb.shape[0]} load {load:.2f}s "
                  f"grid {t_new:.3f}s" + (f" other {t_old:.3f}s" if other else ""), flush=True)
    a = np.array(rows)
    print(f"{len(a)} photos: load median {np.median(a[:, 0]):.2f}s; grid median {np.median(a[:, 1]):.3f}s "
          f"(max {a[:, 1].max():.3f}s)" + (f"; other median {np.median(a[:, 2]):.3f}s (max {a[:, 2].max():.3f}s)"
                                           if other else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
