"""Write ``sample_photos/``: synthetic table photos with their expected boards and scores.

Each sample is a random legal game (:mod:`scorer.generate`) photographed by
:func:`scorer.render.synth.synthesize` with procedural tile art only:

* ``NAME.jpg``: the photo (under 1 MB);
* ``NAME.board.json``: the expected board in photo orientation (the truth),
  with ``mode`` (``completed`` mid-game, ``final`` at the end of the game) and
  the ``synth`` key (parameters, homography, cell corners, figure pixels);
* ``NAME.scores.json``: ``scorer.scoring.score(board, mode).to_dict()``.

Names read ``GAME-EXPANSIONS-STAGE-DIFFICULTY``, e.g.
``base-river-goldmines-midgame-easy``.  The same seeds give the same files.

Usage::

    .venv/bin/python scripts/make_samples.py [--out sample_photos] [--megapixels 4]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

from scorer.board import dumps_compact
from scorer.fileio import write_atomic
from scorer.generate import generate_game, generate_turns
from scorer.render.synth import SynthParams, synthesize
from scorer.scoring import score

log = logging.getLogger("make_samples")

MAX_BYTES = 1_000_000

#: name prefix, game, expansions, players per sample family.
FAMILIES = [
    ("base-river-goldmines", "carcassonne", ["river", "goldmines"], ["red", "blue", "green", "yellow", "pink"]),
    ("goldrush-sheriff", "goldrush", ["sheriff"], ["yellow", "red", "blue", "black"]),
]
STAGES = ("midgame", "endgame")
DIFFICULTIES = ("easy", "hard")


def board_for(game: str, expansions: list[str], players: list[str], stage: str, seed: int):
    """A legal board and its scoring mode: mid-game (a tile that completed something) or end of game."""
    if stage == "endgame":
        return generate_game(game, expansions, players=players, rng=np.random.default_rng(seed)), "final"
    # Mid-game: about 40 tiles down, and the last tile completed a feature, so there is something to score.
    for n_tiles in range(40, 60):
        turns = generate_turns(game, expansions, players=players, n_tiles=n_tiles, rng=np.random.default_rng(seed))
        last = turns[-1]
        if last.report is not None and any(f.get("points") for f in last.report.features):
            return last.placed, "completed"
    return turns[-1].placed, "completed"


def make(out: Path, megapixels: float) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    seed = 1000
    for prefix, game, expansions, players in FAMILIES:
        for stage in STAGES:
            for difficulty in DIFFICULTIES:
                seed += 1
                name = f"{prefix}-{stage}-{difficulty}"
                board, mode = board_for(game, expansions, players, stage, seed)
                params = SynthParams.random(np.random.default_rng(seed), difficulty, megapixels=megapixels)
                started = time.perf_counter()
                result = synthesize(board, rng=np.random.default_rng(seed), params=params)
                while len(result.jpeg) > MAX_BYTES and params.jpeg_quality > 50:
                    params.jpeg_quality -= 5
                    result = synthesize(board, rng=np.random.default_rng(seed), params=params)
                seconds = time.perf_counter() - started
                truth = result.truth
                board_obj = truth.to_dict()
                board_obj["mode"] = mode
                board_obj["synth"] = result.synth_dict()
                report = score(truth, mode)
                write_atomic(out / f"{name}.jpg", result.jpeg)
                write_atomic(out / f"{name}.board.json", dumps_compact(board_obj))
                write_atomic(out / f"{name}.scores.json", json.dumps(report.to_dict(), indent=2) + "\n")
                h, w = result.image.shape[:2]
                rows.append({"name": name, "tiles": len(truth.tiles), "figures": len(result.figures_px),
                             "size": f"{w}x{h}", "kb": len(result.jpeg) // 1024, "quality": params.jpeg_quality,
                             "tilt": round(params.tilt_deg, 1), "rotation": round(params.rotation_deg, 1),
                             "seconds": round(seconds, 2),
                             "points": {c: v["points"] for c, v in report.to_dict()["players"].items()}})
                log.info("%s: %s", name, rows[-1])
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "sample_photos"))
    ap.add_argument("--megapixels", type=float, default=4.0)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    rows = make(Path(args.out), args.megapixels)
    for r in rows:
        sys.stdout.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
