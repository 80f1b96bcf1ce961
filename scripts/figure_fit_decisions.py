"""Fit the figure stage's linear decisions (``scorer.vision.figures._DECISIONS``) on synthesised photos.

Not part of the package.  Development only: reads candidate files written by
``scripts/figure_collect.py`` (every candidate of the figure stage, read with
the true tiles, labelled with the synthesiser's truth) and fits, by L2-regularised
logistic regression (iteratively reweighted least squares), each decision
between the two answers it chooses from:

* ``gold``: Goldmines gold bars (positive) or a yellow follower;
* ``sheriff``: the Sheriff (positive) or a yellow cowboy or tent;
* ``tent``: a tent (positive) or a cowboy, standing or lying;
* ``tent_black``: the same for black candidates alone (their faces show little shading);
  the tent features end with the blob's outline cues (``figures._BLOB_SHAPE``), which only
  ``tent_black`` weighs: the ``tent`` weights keep 0 there;
* ``ore``: an ore stack (positive) or a black cowboy or tent.

Prints the weights in the form of ``_DECISIONS`` and the training and
held-out error of the old and new weights.

Usage::

    .venv/bin/python scripts/figure_fit_decisions.py TRAIN.pkl [...] --test DEV.pkl [...]
"""

from __future__ import annotations

import argparse
import pickle
import sys

import numpy as np

from scorer.vision import figures

#: Which labelled candidates each decision is fitted on: (positive labels, negative labels, colour classes, game).
SETS = {
    "gold": ({"gold"}, {"meeple_standing", "meeple_lying"}, {"gold", "yellow"}, "carcassonne"),
    "sheriff": ({"sheriff"}, {"meeple_standing", "meeple_lying", "tent"}, {"gold", "yellow"}, "goldrush"),
    "tent": ({"tent"}, {"meeple_standing", "meeple_lying"}, None, "goldrush"),
    "tent_black": ({"tent"}, {"meeple_standing", "meeple_lying"}, {"black"}, "goldrush"),
    "ore": ({"ore"}, {"meeple_standing", "meeple_lying", "tent"}, {"black"}, "goldrush"),
}


#: Decisions that read another decision's features (the same question on fewer candidates).
FEATURES = {"tent_black": "tent"}


def dataset(rows: list[dict], name: str) -> tuple[np.ndarray, np.ndarray]:
    pos, neg, classes, game = SETS[name]
    key = FEATURES.get(name, name)
    X, y = [], []
    for r in rows:
        if r.get("game") != game or key not in r.get("feats", {}):
            continue
        if classes is not None and r.get("class") not in classes:
            continue
        if r["label"] in pos:
            y.append(1)
        elif r["label"] in neg:
            y.append(0)
        else:
            continue
        X.append(np.asarray(r["feats"][key], dtype=np.float64))
    return np.array(X), np.array(y)


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
    args = ap.parse_args(argv)
    train = [r for f in args.train for r in pickle.load(open(f, "rb"))]
    test = [r for f in args.test for r in pickle.load(open(f, "rb"))]
    for name in SETS:
        if args.only and name not in args.only.split(","):
            continue
        X, y = dataset(train, name)
        if len(y) < 10 or y.min() == y.max():
            print(f"{name}: too few examples ({len(y)})")
            continue
        w, b = fit(X, y, args.l2, balance=not args.unbalanced)
        ow, ob = figures._DECISIONS.get(name, figures._DECISIONS[FEATURES.get(name, name)])
        ow = np.array(ow)
        msg = f"{name}: train n={len(y)} pos={int(y.sum())}  old FP/FN {errors(X, y, ow, ob)}  new {errors(X, y, w, b)}"
        if test:
            Xt, yt = dataset(test, name)
            if len(yt):
                msg += f" | test n={len(yt)} pos={int(yt.sum())} old {errors(Xt, yt, ow, ob)} new {errors(Xt, yt, w, b)}"
        print(msg)
        print(f'    "{name}": (({", ".join(f"{v:.3f}" for v in w)}), {b:.3f}),')
    return 0


if __name__ == "__main__":
    sys.exit(main())
