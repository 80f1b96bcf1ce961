"""Collect the figure stage's candidates of synthesised photos, labelled with the truth.

Not part of the package.  Development only: for every photo of the given
folders (``NAME.jpg`` with ``NAME.jpg.truth.json``), the figure stage reads the
photo with the true tiles and a grid fitted to the true cell corners; each
candidate (``FigureReading.debug["candidates"]``) is matched, greedily by
distance, to the synthesiser's figure feet (``synth.figures_px``) within 0.3
tile and labelled with that figure's kind (``meeple_standing``,
``meeple_lying``, ``tent``, ``sheriff``, ``ore``, ``gold``), ``dup`` (near a
figure another candidate took) or ``none``; figures no candidate took are
added as ``missed_KIND`` rows.  The rows (pickled list of dicts) feed
``scripts/figure_fit_decisions.py``.

Usage::

    .venv/bin/python scripts/figure_collect.py DIR[,DIR...] OUT.pkl
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

from figure_dev_eval import true_grid
from scorer.board import read_board
from scorer.vision import config as vconfig
from scorer.vision.figures import read_figures
from scorer.vision.photo import load_photo


def collect(folders: list[str]) -> list[dict]:
    cfg = vconfig.load_config()
    rows: list[dict] = []
    for folder in folders:
        for photo in sorted(Path(folder).glob("*.jpg")):
            tj = json.loads(Path(str(photo) + ".truth.json").read_text())
            truth = read_board(str(photo) + ".truth.json")
            rgb = load_photo(photo, max_side=cfg.photo.max_side)
            grid = true_grid(tj, rgb.shape[:2])
            placements = {c: (p.tile, p.rot) for c, p in truth.tiles.items()}
            W0, H0 = tj["synth"]["image_size"]
            h, w = rgb.shape[:2]
            figs = tj["synth"]["figures_px"]
            lat = grid.to_lattice(np.array([f["px"] for f in figs]) * [w / W0, h / H0]) if figs else np.zeros((0, 2))
            reading = read_figures(rgb, grid, placements, cfg.figures, game=truth.game)
            cands = reading.debug["candidates"]

            def where(c: dict) -> np.ndarray:
                return np.asarray(c["foot"] if c.get("foot") is not None else c["centre"], dtype=np.float64)

            pairs = sorted((float(np.linalg.norm(lat[j] - where(c))), i, j)
                           for i, c in enumerate(cands) for j in range(len(figs)))
            used_i: set[int] = set()
            used_j: set[int] = set()
            label: dict[int, tuple[int, float]] = {}
            for d, i, j in pairs:
                if d >= 0.3 or i in used_i or j in used_j:
                    continue
                used_i.add(i)
                used_j.add(j)
                label[i] = (j, d)
            for i, c in enumerate(cands):
                row = {k: v for k, v in c.items() if not k.startswith("_") and k != "u"}
                row["feats"] = {k: np.asarray(v).tolist() for k, v in c.get("_feats", {}).items()}
                row["logits"] = c.get("_logits", {})
                if i in label:
                    f = figs[label[i][0]]
                    kind = f["kind"] if f["kind"] != "meeple" else "meeple_" + f.get("pose", "standing")
                    row.update(label=kind, label_count=f.get("count", 1), label_player=f.get("player"),
                               label_d=label[i][1])
                else:
                    near = min((float(np.linalg.norm(p - where(c))) for p in lat), default=9.0)
                    row["label"] = "dup" if near < 0.3 else "none"
                row.update(photo=str(photo), game=truth.game)
                rows.append(row)
            for j, f in enumerate(figs):
                if j not in used_j:
                    rows.append({"photo": str(photo), "game": truth.game, "label": "missed_" + f["kind"], "figure": f})
            print(photo.name, len(cands), "missed", len(figs) - len(used_j), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__)
        return 2
    rows = collect(argv[0].split(","))
    Path(argv[1]).write_bytes(pickle.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
