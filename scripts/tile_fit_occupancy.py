"""Fit the tile stage's occupancy model on synthetic photos with ground truth.

For every photo ``X.jpg`` with ``X.jpg.truth.json`` in the folders given, the
tile stage runs on the truth lattice (see ``scripts/tile_bench.py``) and, at
the moment it judges occupancy for decoding (after looking through figures),
the cues of every examined cell
(:func:`scorer.vision.recognise._occupancy_features`) are kept with the truth
(does the cell hold a tile).  Two logistic models are fitted by iteratively
reweighted least squares with a small ridge: without the table colours
(``occ0_weights``) and with the tile/table colour log-likelihood ratio
(``occ_weights``, computed from the first model as the pipeline does).  The
weights are printed in ``config.toml`` form with the log-loss of the old and
the new weights.

Use photos made for fitting (their own seeds), never the photos you measure on.

Usage::

    .venv/bin/python scripts/tile_fit_occupancy.py /tmp/fit_gr /tmp/fit_base
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def collect(photo: Path, cfg) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Cues (N, F), table log-likelihood ratios under the current first model (N,), truth (N,) of one photo."""
    from tile_bench import truth_lattice

    import scorer.vision.recognise as R
    from scorer.board import Board
    from scorer.errors import ScorerError
    from scorer.tiles import catalog_for
    from scorer.vision.photo import load_photo
    from scorer.vision.pipeline import CANDIDATE_GAMES

    truth = json.loads(photo.with_name(photo.name + ".truth.json").read_text())
    board = Board.from_dict({k: v for k, v in truth.items() if k != "synth"})
    catalog = catalog_for(board.game, dict(CANDIDATE_GAMES)[board.game])
    rgb = load_photo(photo, max_side=2048)
    grid = truth_lattice(truth, rgb.shape[:2])
    seen: dict = {"matched": False}
    original, original_match = R._occupancy, R._match

    def spy_match(*a, **k):
        out = original_match(*a, **k)
        seen["matched"] = True
        return out

    def spy(match, c):
        # The first judgement after matching is the one decoding uses (an earlier
        # one, inside the occlusion stage, only picks the cells to look through figures on).
        if seen["matched"] and "match" not in seen:
            seen["match"] = match
            seen["F"] = R._occupancy_features(match, c)
        return original(match, c)

    R._occupancy, R._match = spy, spy_match
    try:
        R.read_tiles(rgb, grid, catalog, cfg)
    except ScorerError:
        pass
    finally:
        R._occupancy, R._match = original, original_match
    if "match" not in seen:
        return None
    match = seen["match"]
    y = np.array([tuple(map(int, c)) in board.tiles for c in match.cells], float)
    # Only what the table cue needs (R._table_llr), the picture as bytes: many photos fit in memory.
    light = SimpleNamespace(fine=(None, np.clip(match.fine[1], 0, 255).astype(np.uint8)),
                            cells=match.cells.copy(), origin=match.origin)
    return seen["F"], light, y


def fit_logistic(X: np.ndarray, y: np.ndarray, ridge: float = 1e-3, rounds: int = 50) -> np.ndarray:
    """Weights (bias first) of ``P(y=1) = sigmoid(w0 + X w)`` by iteratively reweighted least squares."""
    A = np.c_[np.ones(len(X)), X]
    w = np.zeros(A.shape[1])
    R = ridge * len(X) * np.eye(A.shape[1])
    R[0, 0] = 0.0
    for _ in range(rounds):
        p = 1.0 / (1.0 + np.exp(-(A @ w)))
        W = np.maximum(p * (1 - p), 1e-6)
        H = A.T @ (A * W[:, None]) + R
        step = np.linalg.solve(H, A.T @ (y - p) - R @ w)
        w += step
        if np.abs(step).max() < 1e-7:
            break
    return w


def logloss(A: np.ndarray, w: np.ndarray, y: np.ndarray) -> float:
    z = w[0] + A @ w[1:]
    return float(np.mean(np.logaddexp(0, z) - y * z))


def _padded(weights, n: int, llr_last: bool = False) -> np.ndarray:
    """Old weights with zeros for cues they lack (cues added since), the table cue kept last."""
    w = np.asarray(weights, float)
    if len(w) >= n:
        return w[:n]
    if llr_last:
        return np.r_[w[:-1], np.zeros(n - len(w)), w[-1:]]
    return np.r_[w, np.zeros(n - len(w))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--use", default="", help="comma-separated cues to fit, the others get 0 (default: every cue)")
    args = ap.parse_args(argv)
    import scorer.vision.recognise as R
    from scorer.vision.config import load_config

    cfg = load_config().tiles
    names = list(R.OCCUPANCY_FEATURES)
    use = [names.index(n) for n in args.use.split(",")] if args.use else list(range(len(names)))
    rows = []
    for folder in args.folders:
        photos = sorted(folder.glob("*.jpg"))
        for photo in photos[:args.limit or None]:
            got = collect(photo, cfg)
            if got is not None:
                rows.append(got)
                print(f"{photo.parent.name}/{photo.name}: {len(got[2])} cells, {int(got[2].sum())} tiles", flush=True)
    F = np.concatenate([r[0] for r in rows])
    y = np.concatenate([r[2] for r in rows])
    w0 = np.zeros(len(names) + 1)
    w0[[0] + [u + 1 for u in use]] = fit_logistic(F[:, use], y)
    print("old occ0 log-loss %.4f, new %.4f" % (logloss(F, _padded(cfg.occ0_weights, len(w0)), y), logloss(F, w0, y)))
    # The table cue as the pipeline computes it: from the first model's probabilities.
    cfg.occ0_weights = tuple(float(v) for v in w0)
    llr = []
    for Fp, match, _ in rows:
        p0 = 1.0 / (1.0 + np.exp(-(w0[0] + Fp @ w0[1:])))
        llr.append(R._table_llr(match, p0, cfg))
    L = np.concatenate(llr)
    G = np.c_[F, L]
    w = np.zeros(len(names) + 2)
    w[[0] + [u + 1 for u in use] + [len(names) + 1]] = fit_logistic(G[:, use + [len(names)]], y)
    print("old occ log-loss %.4f, new %.4f" % (logloss(G, _padded(cfg.occ_weights, len(w), llr_last=True), y),
                                                logloss(G, w, y)))
    fmt = lambda v: "[" + ", ".join(f"{x:.2f}" for x in v) + "]"  # noqa: E731
    print(f"occ0_weights = {fmt(w0)}")
    print(f"occ_weights = {fmt(w)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
