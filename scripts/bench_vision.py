"""Benchmark the whole photo pipeline on 12-megapixel photos: photo in, scores out.

Synthesises ``--photos`` phone photos (fresh seeds, whole games of ``--tiles``
tiles) with :func:`scorer.render.synth.synthesize`, writes them as JPEG files,
then reads each one in a fresh process (so that its peak memory is its own) as
``scorer score PHOTO`` does: :func:`scorer.vision.pipeline.read_photo_full` with
the game guessed from the tiles (load, grid, tiles with the catalogue guess,
figures), then the final scoring.  The modules are imported before the clock
starts.  Prints per photo the seconds of each stage and of the whole photo, the
peak resident memory and the tiles read right, then the medians; ``--json``
writes it all.  Time it with Python's bytecode cache on (an installed package
has one; ``PYTHONDONTWRITEBYTECODE`` set makes every process compile the
modules the pipeline imports lazily).

Usage::

    .venv/bin/python scripts/bench_vision.py --photos 8 --megapixels 12 --tiles 72
    .venv/bin/python scripts/bench_vision.py --photos 8 --difficulty hard --art-dir ../shared/tile_art/base_c2
    .venv/bin/python scripts/bench_vision.py --photos 8 --cache off   # every process builds the tile templates
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def synthesise(folder: Path, n: int, seed: int, megapixels: float, tiles: int, difficulty: str,
               game: str, expansions: list[str], art_dir: str | None) -> list[Path]:
    import numpy as np

    from scorer.fileio import write_atomic
    from scorer.generate import generate_game
    from scorer.render.synth import SynthParams, synthesize

    out = []
    for k in range(n):
        rng = np.random.default_rng(seed + k)
        board = generate_game(game, expansions, n_tiles=tiles, rng=rng)
        params = SynthParams.random(rng, difficulty, megapixels=megapixels)
        res = synthesize(board, rng=rng, params=params, art_dir=art_dir)
        path = folder / f"bench_{seed + k}.jpg"
        write_atomic(path, res.jpeg)
        write_atomic(path.with_suffix(".truth.json"), json.dumps(res.truth.to_dict()))
        out.append(path)
    return out


def peak_mb() -> float:
    """This process's peak resident memory, MB (``VmHWM``; ``ru_maxrss`` would include
    the parent's memory from before ``exec`` on Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker(photo: str, art_dir: str | None) -> dict:
    """Read one photo as ``scorer score PHOTO`` does (the game guessed from the tiles), then score
    it; runs in its own process.  The modules are imported before the clock starts (a process
    that reads many photos imports them once)."""
    from scorer.board import read_board
    from scorer.evaluate import compare_boards
    from scorer.scoring import score
    from scorer.vision import figures, recognise  # noqa: F401 - imported before timing
    from scorer.vision.pipeline import read_photo_full

    truth = read_board(Path(photo).with_suffix(".truth.json"))
    row: dict = {"photo": Path(photo).name}
    t0 = time.perf_counter()
    try:
        reading = read_photo_full(photo, art_dir=art_dir)
        t1 = time.perf_counter()
        score(reading.board, "final")
        t2 = time.perf_counter()
        s = reading.seconds
        row.update(size=[int(reading.image.shape[1]), int(reading.image.shape[0])], load=s["load"],
                   grid=s["grid"], tiles=s["tiles"], figures=s["figures"], score=t2 - t1, total=t2 - t0,
                   read=len(reading.board.tiles), game=reading.board.game, error=None,
                   figures_read=len(reading.board.meeples) + len(reading.board.tents)
                   + (reading.board.sheriff is not None))
        row["peak_rss_mb"] = peak_mb()
        row["right"] = compare_boards(truth, reading.board, score_fn=lambda b, m: {}).tiles_right
    except Exception as exc:  # noqa: BLE001 - a benchmark records every failure and goes on
        row.update(load=time.perf_counter() - t0, grid=None, tiles=None, read=0, right=0,
                   error=f"{type(exc).__name__}: {exc}")
    row["truth"] = len(truth.tiles)
    row.setdefault("peak_rss_mb", peak_mb())
    return row


def warm_cache(art_dir: str | None, folder: str) -> None:
    """Build the tile templates of every game the pipeline may guess and the figure solids once
    into the disk cache ``folder``."""
    from scorer.tiles import catalog_for
    from scorer.vision.config import load_config
    from scorer.vision.figures import warm_solids
    from scorer.vision.pipeline import CANDIDATE_GAMES
    from scorer.vision.recognise import _appearance, build_templates

    old = os.environ.get("SCORER_CACHE_DIR")
    os.environ["SCORER_CACHE_DIR"] = folder
    try:
        for game, exps in CANDIDATE_GAMES:  # the game is guessed: every candidate's templates
            catalog = catalog_for(game, exps)
            build_templates(catalog, load_config().tiles, _appearance(catalog, None, art_dir))
        warm_solids()
    finally:
        if old is None:
            os.environ.pop("SCORER_CACHE_DIR", None)
        else:
            os.environ["SCORER_CACHE_DIR"] = old


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=int, default=8)
    ap.add_argument("--seed", type=int, default=9000, help="first seed (fresh seeds: results the code never saw)")
    ap.add_argument("--megapixels", type=float, default=12.0)
    ap.add_argument("--tiles", type=int, default=72)
    ap.add_argument("--difficulty", choices=["easy", "hard"], default="easy")
    ap.add_argument("--game", default="carcassonne")
    ap.add_argument("--expansions", default="", help="comma-separated, e.g. river,goldmines")
    ap.add_argument("--art-dir", default=None, help="real tile art (development only)")
    ap.add_argument("--folder", default=None, help="keep the photos here (default: a temporary folder)")
    ap.add_argument("--json", default=None, help="write the rows and medians here")
    ap.add_argument("--cache", choices=["warm", "off"], default="warm",
                    help="tile template disk cache: warm (a temporary one, filled before timing; what every "
                         "'scorer score' after the first sees) or off (templates built in every process)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.art_dir)))
        return
    exps = [e for e in args.expansions.split(",") if e]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.folder or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        photos = synthesise(folder, args.photos, args.seed, args.megapixels, args.tiles, args.difficulty,
                            args.game, exps, args.art_dir)
        print(f"synthesised {len(photos)} photos in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        env = dict(os.environ)
        env["SCORER_CACHE_DIR"] = str(Path(tmp) / "cache") if args.cache == "warm" else "off"
        if args.cache == "warm":
            warm_cache(args.art_dir, env["SCORER_CACHE_DIR"])
        rows = []
        for p in photos:
            cmd = [sys.executable, __file__, "--worker", str(p)] + (["--art-dir", args.art_dir] if args.art_dir else [])
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                rows.append({"photo": p.name, "error": done.stderr.strip().splitlines()[-1:]})
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(f"{row['photo']}: whole {row.get('total') or 0:.2f} s: load {row['load']:.2f} s, grid {row['grid'] or 0:.2f} s, "
                  f"tiles {row['tiles'] or 0:.2f} s, figures {row.get('figures') or 0:.2f} s, "
                  f"score {row.get('score') or 0:.3f} s, peak {row['peak_rss_mb']:.0f} MB, "
                  f"{row['right']}/{row['truth']} tiles right" + (f", {row['error']}" if row.get("error") else ""))
    ok = [r for r in rows if r.get("figures") is not None]
    summary = {}
    if ok:
        summary = {
            "photos": len(rows),
            "read": len(ok),
            "median_load_s": statistics.median(r["load"] for r in ok),
            "median_grid_s": statistics.median(r["grid"] for r in ok),
            "median_tiles_s": statistics.median(r["tiles"] for r in ok),
            "median_grid_tiles_s": statistics.median(r["grid"] + r["tiles"] for r in ok),
            "median_figures_s": statistics.median(r["figures"] for r in ok),
            "median_score_s": statistics.median(r["score"] for r in ok),
            "median_total_s": statistics.median(r["total"] for r in ok),
            "max_peak_rss_mb": max(r["peak_rss_mb"] for r in ok),
            "tiles_right": sum(r["right"] for r in rows if "right" in r),
            "tiles_truth": sum(r["truth"] for r in rows if "truth" in r),
            "cpus": os.cpu_count(),
        }
        print(json.dumps(summary, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
