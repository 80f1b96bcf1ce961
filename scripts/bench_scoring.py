"""Benchmark: feature building + scoring of a 72-tile game and of large generated boards.

Prints milliseconds per scoring (median of several runs) for a full 72-tile base
game and for boards of 1,000 and 10,000 tiles filled greedily with matching base
tiles.  Run: ``python scripts/bench_scoring.py``.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from scorer.board import Board, Figure, Placement
from scorer.geometry import OPPOSITE, SIDES, neighbour
from scorer.scoring import score
from scorer.tiles import catalog_for


def filled_board(n_tiles: int, seed: int = 0) -> Board:
    """A square-ish board of ``n_tiles`` base tiles whose sides all match, with meeples."""
    rng = np.random.default_rng(seed)
    catalog = catalog_for("carcassonne")
    options = [(t, r) for t in catalog.tiles.values() for r in range(4)]
    signatures = [t.edge_signature(r) for t, r in options]
    side = int(np.ceil(np.sqrt(n_tiles)))
    board = Board(players=["red", "blue", "green"], catalog=catalog)
    placed = 0
    for y in range(side):
        for x in range(side):
            if placed == n_tiles:
                break
            need = {}
            for i, s in enumerate(SIDES):
                other = board.tiles.get(neighbour((x, y), s))
                if other is not None:
                    need[i] = other.tile.edge_signature(other.rot)[SIDES.index(OPPOSITE[s])]
            fits = [k for k, sig in enumerate(signatures) if all(sig[i] == v for i, v in need.items())]
            if not fits:
                continue
            tile, rot = options[fits[rng.integers(len(fits))]]
            board.tiles[(x, y)] = Placement(x, y, tile, rot)
            placed += 1
            if rng.random() < 0.1:
                at = ["N", "E", "S", "W", "C", "NL", "ER"][rng.integers(7)]
                if tile.turned(rot).locate(at) is not None:
                    board.meeples.append(Figure(["red", "blue", "green"][rng.integers(3)], x, y, at))
    board.last_placed = next(reversed(board.tiles))
    return board


def bench(board: Board, mode: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        score(board, mode)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> int:
    cases = [("72 tiles", filled_board(72), 50), ("1,000 tiles", filled_board(1000), 10),
             ("10,000 tiles", filled_board(10000), 3)]
    try:
        from scorer.generate import generate_game

        game = generate_game("carcassonne", (), players=("red", "blue", "green"), rng=np.random.default_rng(1))
        cases.insert(0, (f"full game ({len(game.tiles)} tiles)", game, 50))
    except ImportError:
        pass
    print(f"{'board':<26} {'completed ms':>13} {'final ms':>10}  per tile (final)")
    for name, board, runs in cases:
        c = bench(board, "completed", runs)
        f = bench(board, "final", runs)
        print(f"{name:<26} {c:13.2f} {f:10.2f}  {f / len(board.tiles) * 1000:8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
