"""Fit the figure stage's decisions (``scorer.vision.figures._DECISIONS`` and ``SECOND_ORDER``) on synthesised photos.

Not part of the package.  Development only: reads candidate files written by
``scripts/figure_collect.py`` (every candidate of the figure stage, read with
the true tiles, labelled with the synthesiser's truth) and fits, by L2-regularised
logistic regression (iteratively reweighted least squares), each decision
between the two answers it chooses from:

* ``gold``: Goldmines gold bars (positive) or a yellow follower;
* ``sheriff``: the Sheriff (positive) or a yellow cowboy or tent;
* ``tent``: a tent (positive) or a cowboy, standing or lying, of any colour but black;
* ``tent_black``: the same for black candidates (their faces show little shading);
* ``ore``: an ore stack (positive) or a black cowboy or tent.

The ``tent``, ``tent_black`` and ``sheriff`` decisions are of second order
(``figures.SECOND_ORDER``): they weigh their features and every product of two
of them (:func:`scorer.vision.figures.second_order`), so an outline cue may
count for more or less as the shading fit is clear or not.  ``gold`` and
``ore`` are linear.  ``--second-order`` fits further decisions so.

Prints the weights of the linear decisions in the form of ``_DECISIONS``,
writes the second-order ones with ``--write`` (the JSON file
``scorer/vision/decisions.json`` that the figure stage loads; with ``--only``,
the decisions not fitted keep the weights the package has), and prints the
training and held-out error of the old and new weights.

Usage::

    .venv/bin/python scripts/figure_fit_decisions.py TRAIN.pkl [...] --test DEV.pkl [...]
    .venv/bin/python scripts/figure_fit_decisions.py TRAIN.pkl [...] --only sheriff \
        --write scorer/vision/decisions.json --about "..."
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys

import numpy as np

from scorer.fileio import write_atomic
from scorer.vision import figures

#: Which labelled candidates each decision is fitted on: (positive labels, negative labels, colour classes, game);
#: colour classes None: any, a string: any but that one.
SETS = {
    "gold": ({"gold"}, {"meeple_standing", "meeple_lying"}, {"gold", "yellow"}, "carcassonne"),
    "sheriff": ({"sheriff"}, {"meeple_standing", "meeple_lying", "tent"}, {"gold", "yellow"}, "goldrush"),
    "tent": ({"tent"}, {"meeple_standing", "meeple_lying"}, "black", "goldrush"),
    "tent_black": ({"tent"}, {"meeple_standing", "meeple_lying"}, {"black"}, "goldrush"),
    "ore": ({"ore"}, {"meeple_standing", "meeple_lying", "tent"}, {"black"}, "goldrush"),
}


#: Decisions that read another decision's features (the same question on fewer candidates).
FEATURES = {"tent_black": "tent"}


def dataset(rows: list[dict], name: str, second: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The features and answers (1: the first) of decision ``name``'s labelled candidates; of
    second order (:func:`scorer.vision.figures.second_order`) where ``second`` says so
    (``None``: as the figure stage weighs the decision now)."""
    second = name in figures.SECOND_ORDER if second is None else second
    pos, neg, classes, game = SETS[name]
    key = FEATURES.get(name, name)
    X, y = [], []
    for r in rows:
        if r.get("game") != game or key not in r.get("feats", {}):
            continue
        if isinstance(classes, str) and r.get("class") == classes:
            continue
        if isinstance(classes, set) and r.get("class") not in classes:
            continue
        if r["label"] in pos:
            y.append(1)
        elif r["label"] in neg:
            y.append(0)
        else:
            continue
        x = np.asarray(r["feats"][key], dtype=np.float64)
        X.append(figures.second_order(x) if second else x)
    return np.array(X), np.array(y)


def old_weights(name: str) -> tuple[np.ndarray, float] | None:
    """The weights the figure stage has now for decision ``name`` (None: it has none)."""
    if name in figures.SECOND_ORDER:
        return figures.SECOND_ORDER[name]
    if name in figures._DECISIONS:
        w, b = figures._DECISIONS[name]
        return np.array(w), b
    return None


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1.0, rounds: int = 50, balance: bool = True) -> tuple[np.ndarray, float]:
    """Logistic regression on standardised features; weights returned for the raw features."""
    mu, sd = X.mean(axis=0), X.std(axis=0) + 1e-9
    Z = np.column_stack([(X - mu) / sd, np.ones(len(X))])
    w = np.zeros(Z.shape[1])
    reg = np.full(Z.shape[1], l2)
    reg[-1] = 0.0
    # Balance the two answers: each weighs as much in all.
    cw = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9)) if balance else np.ones(len(y))
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-np.clip(Z @ w, -30, 30)))
        g = Z.T @ (cw * (p - y)) + reg * w
        Hm = (Z * (cw * p * (1 - p))[:, None]).T @ Z + np.diag(reg + 1e-9)
        step = np.linalg.solve(Hm, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    wr = w[:-1] / sd
    b = w[-1] - float(wr @ mu)
    return wr, b


def errors(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> tuple[int, int]:
    z = X @ w + b
    return int(((z > 0) & (y == 0)).sum()), int(((z <= 0) & (y == 1)).sum())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("train", nargs="+")
    ap.add_argument("--test", nargs="*", default=[])
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--unbalanced", action="store_true", help="every example weighs alike (fewest errors)")
    ap.add_argument("--second-order", default="", help="comma-separated decisions to fit of second order "
                    "besides those the figure stage weighs so now")
    ap.add_argument("--write", default="", help="write the second-order decisions to this JSON file")
    ap.add_argument("--about", default="", help="with --write: where the weights come from (kept in the file)")
    args = ap.parse_args(argv)
    train = [r for f in args.train for r in pickle.load(open(f, "rb"))]
    test = [r for f in args.test for r in pickle.load(open(f, "rb"))]
    second = set(figures.SECOND_ORDER) | {n for n in args.second_order.split(",") if n}
    written = {}
    for name in SETS:
        if args.only and name not in args.only.split(","):
            continue
        X, y = dataset(train, name, name in second)
        if len(y) < 10 or y.min() == y.max():
            print(f"{name}: too few examples ({len(y)})")
            continue
        w, b = fit(X, y, args.l2, balance=not args.unbalanced)
        old = old_weights(name)
        if old is not None and len(old[0]) != X.shape[1]:
            old = None  # weights of other features: nothing to compare

        def was(X_: np.ndarray, y_: np.ndarray) -> tuple[int, int] | str:
            return errors(X_, y_, *old) if old is not None else "-"

        msg = f"{name}: train n={len(y)} pos={int(y.sum())}  old FP/FN {was(X, y)}  new {errors(X, y, w, b)}"
        if test:
            Xt, yt = dataset(test, name, name in second)
            if len(yt):
                msg += f" | test n={len(yt)} pos={int(yt.sum())} old {was(Xt, yt)} new {errors(Xt, yt, w, b)}"
        print(msg)
        if name in second:
            written[name] = {"weights": [float(f"{v:.6g}") for v in w], "bias": float(f"{b:.6g}"), "train": len(y)}
        else:
            print(f'    "{name}": (({", ".join(f"{v:.3f}" for v in w)}), {b:.3f}),')
    if args.write:
        # Decisions not fitted now (--only) keep the weights the figure stage has.
        kept = figures.decisions_doc()["decisions"] if args.only else {}
        written = {**{k: v for k, v in kept.items() if k in second}, **written}
        if set(written) != second:
            print(f"--write needs every second-order decision fitted ({', '.join(sorted(second))}); nothing written")
            return 1
        doc = {"about": args.about, "l2": args.l2, "decisions": written}
        write_atomic(args.write, json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
