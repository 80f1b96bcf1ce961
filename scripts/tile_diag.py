"""What the tile stage saw on chosen cells of a synthetic photo (truth lattice).

Runs :func:`scorer.vision.recognise.read_tiles` on the photo's truth lattice
(``scripts/tile_bench.py``) and prints, for each cell asked (default: every
cell read wrong), the truth, the reading, the occupancy cues
(:func:`scorer.vision.recognise._occupancy_features`), the occupancy before
and after decoding, the hidden share and the candidates with their scores.

Usage::

    .venv/bin/python scripts/tile_diag.py /tmp/dev4/gr/synth-00000.jpg [X,Y ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str] | None = None) -> int:
    from tile_bench import _Spy, same, truth_lattice

    import scorer.vision.recognise as R
    from scorer.board import Board
    from scorer.tiles import catalog_for
    from scorer.vision.config import load_config
    from scorer.vision.photo import load_photo
    from scorer.vision.pipeline import CANDIDATE_GAMES

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("photo", type=Path)
    ap.add_argument("cells", nargs="*")
    args = ap.parse_args(argv)
    truth = json.loads(args.photo.with_name(args.photo.name + ".truth.json").read_text())
    board = Board.from_dict({k: v for k, v in truth.items() if k != "synth"})
    catalog = catalog_for(board.game, dict(CANDIDATE_GAMES)[board.game])
    rgb = load_photo(args.photo, max_side=2048)
    grid = truth_lattice(truth, rgb.shape[:2])
    cfg = load_config().tiles
    occs = []
    orig = R._occupancy

    def spy_occ(match, c):
        out = orig(match, c)
        F = R._occupancy_features(match, c)
        w0 = np.asarray(c.occ0_weights, float)
        p0 = 1.0 / (1.0 + np.exp(-(w0[0] + F @ w0[1:])))
        occs.append((out.copy(), F, R._table_llr(match, p0, c)))
        return out

    R._occupancy = spy_occ
    try:
        with _Spy() as spy:
            reading = R.read_tiles(rgb, grid, catalog, cfg)
    finally:
        R._occupancy = orig
    match, tpl = spy.match, spy.tpl
    if args.cells:
        cells = [tuple(map(int, c.split(","))) for c in args.cells]
    else:
        cells = []
        for c, p in sorted(board.tiles.items()):
            r = reading.cells.get(c)
            if r is None or not same(p.tile, p.rot, r.tile_id, r.rot):
                cells.append(c)
        cells += [c for c in reading.cells if c not in board.tiles]
    index = {tuple(map(int, c)): k for k, c in enumerate(match.cells)}
    occ, F, llr = occs[-1]
    print(f"{args.photo}: {len(reading.cells)} read, {len(board.tiles)} truth; debug "
          f"{ {k: v for k, v in reading.debug.items() if k not in ('hidden', 'seconds')} }")
    for c in cells:
        p = board.tiles.get(c)
        r = reading.cells.get(c)
        k = index.get(c)
        print(f"cell {c}: truth {p.tile.id + ' ' + str(p.rot) if p else None}, read "
              f"{r.tile_id + ' ' + str(r.rot) if r else None}, occ after {reading.occupancy.get(c)}")
        if k is None:
            continue
        print("   features", dict(zip(R.OCCUPANCY_FEATURES, np.round(F[k], 3))), "llr", round(float(llr[k]), 2),
              "occ", round(float(occ[k]), 4),
              "hidden", None if match.hidden_share is None else round(float(match.hidden_share[k]), 3))
        nb = [(d, board.tiles.get((c[0] + d[0], c[1] + d[1])) is not None) for d in ((0, -1), (1, 0), (0, 1), (-1, 0))]
        print("   truth neighbours", sum(v for _, v in nb))
        print("   cands", [(tpl.keys[t][0], tpl.keys[t][1], round(float(s), 3))
                           for t, s in zip(match.cand[k], match.score[k])])
    return 0


if __name__ == "__main__":
    sys.exit(main())
