"""Contact sheet of chosen cells of synthetic photos: the photo's cell beside the art of the truth and of the reading.

For each ``PHOTO:X,Y[:TILE,ROT]`` given, the cell is cut out of the photo along
the truth lattice (``scripts/tile_bench.py``'s ``truth_lattice``) at 128
pixels a tile, and shown beside the procedural art of the truth tile and, when
given, of another tile (the reading).  Development aid for grouping the tile
stage's errors.

Usage::

    .venv/bin/python scripts/tile_inspect.py /tmp/dev4/gr/synth-00000.jpg:1,6:GR01,0 --out /tmp/sheet.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str] | None = None) -> int:
    from tile_bench import truth_lattice

    from scorer.board import Board
    from scorer.render.tileart import tile_image
    from scorer.vision.photo import load_photo

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cells", nargs="+")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--px", type=int, default=128)
    ap.add_argument("--pad", type=float, default=0.25, help="border shown around each cell, tiles")
    args = ap.parse_args(argv)
    px = args.px
    rows = []
    for spec in args.cells:
        parts = spec.split(":")
        photo = Path(parts[0])
        x, y = map(int, parts[1].split(","))
        truth = json.loads(photo.with_name(photo.name + ".truth.json").read_text())
        board = Board.from_dict({k: v for k, v in truth.items() if k != "synth"})
        rgb = load_photo(photo, max_side=2048)
        grid = truth_lattice(truth, rgb.shape[:2])
        crop = grid.warp_cell(rgb, (x, y), px, pad=args.pad)
        crop = cv2.resize(crop, (px, px))
        tiles = [crop]
        p = board.tiles.get((x, y))
        if p is not None:
            tiles.append(np.ascontiguousarray(np.rot90(tile_image(p.tile, px), -p.rot)))
        if len(parts) > 2:
            tid, rot = parts[2].split(",")
            tiles.append(np.ascontiguousarray(np.rot90(tile_image(board.catalog[tid], px), -int(rot))))
        row = np.full((px, 3 * (px + 4), 3), 255, np.uint8)
        for n, t in enumerate(tiles):
            row[:, n * (px + 4):n * (px + 4) + px] = t
        rows.append(row)
    sheet = np.concatenate(rows)
    cv2.imwrite(str(args.out), cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
