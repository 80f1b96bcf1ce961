"""Profile the photo loading and the tile stage of one photo (cProfile), in this process.

Usage::

    .venv/bin/python scripts/tile_profile.py PHOTO.jpg [--top 40] [--sort tottime]

The photo needs its ``PHOTO.truth.json`` (for the catalogue).  Prints the
seconds of ``load_photo``, ``find_grid`` and ``read_tiles``, then the
``--top`` entries of the profile of ``load_photo`` + ``read_tiles``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("photo")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--sort", default="tottime")
    args = ap.parse_args()

    from scorer.board import read_board
    from scorer.vision.config import load_config
    from scorer.vision.grid import find_grid
    from scorer.vision.photo import load_photo
    from scorer.vision.recognise import read_tiles

    cfg = load_config()
    truth = read_board(Path(args.photo).with_suffix(".truth.json"))
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    rgb = load_photo(args.photo, max_side=cfg.photo.max_side)
    prof.disable()
    t1 = time.perf_counter()
    grid = find_grid(rgb, cfg.grid)
    t2 = time.perf_counter()
    prof.enable()
    reading = read_tiles(rgb, grid, truth.catalog, cfg.tiles)
    prof.disable()
    t3 = time.perf_counter()
    print(f"load {t1 - t0:.3f} s, grid {t2 - t1:.3f} s, tiles {t3 - t2:.3f} s, {len(reading.cells)} cells")
    pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
