"""Synthesise test photos for the grid search with some camera or table parameters fixed.

Usage::

    .venv/bin/python scripts/grid_make_photos.py OUT_DIR --n 30 --seed 97000 \\
        [--game carcassonne|goldrush] [--difficulty hard] [--tiles 4-30] [--set table=pattern] [--set tilt_deg=40]

Like ``scorer synth --generate`` (same files: ``synth-NNNNN.jpg`` and its
``.truth.json``), but every ``--set KEY=VALUE`` overrides that
:class:`~scorer.render.synth.SynthParams` field after the random draw, and the
board size is drawn from ``--tiles``: a stress set for one hard case (checked
table cloths, steep tilt, strong lens distortion, small boards).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from scorer.generate import generate_game
from scorer.render.synth import SynthParams, synthesize

EXPANSIONS = {"carcassonne": ["river", "goldmines"], "goldrush": ["sheriff"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--game", default=None, help="default: alternate carcassonne and goldrush")
    ap.add_argument("--difficulty", default="hard")
    ap.add_argument("--tiles", default="4-40", help="board size range, e.g. 4-40")
    ap.add_argument("--megapixels", type=float, default=None)
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE (JSON value) for a SynthParams field")
    args = ap.parse_args(argv)
    lo, hi = (int(v) for v in args.tiles.split("-"))
    fixed = {}
    for item in args.set:
        key, _, value = item.partition("=")
        try:
            fixed[key] = json.loads(value)
        except json.JSONDecodeError:
            fixed[key] = value
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.n):
        rng = np.random.default_rng([args.seed, i])
        game = args.game or ("carcassonne", "goldrush")[i % 2]
        board = generate_game(game, EXPANSIONS[game], n_tiles=int(rng.integers(lo, hi + 1)), rng=rng)
        p = SynthParams.random(rng, args.difficulty, megapixels=args.megapixels)
        for key, value in fixed.items():
            if not hasattr(p, key):
                raise SystemExit(f"--set {key}: SynthParams has no such field")
            setattr(p, key, value)
        res = synthesize(board, rng=rng, params=p)
        photo, _ = res.save(out / f"synth-{i:05d}.jpg", extra={"mode": "grid-stress", "game": game})
        print(f"wrote {photo} ({len(res.truth.tiles)} tiles, {game})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
