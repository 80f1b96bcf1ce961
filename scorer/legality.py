"""Rule problems on a board: what breaks the rules, reported, never raised.

A photo or a hand-typed board can show a position no legal game reaches: edges
that do not match, an eighth meeple of one colour, two followers on one tile...
As in python-chess (``board.status()``), such a board still loads and scores;
:func:`problems` lists what is wrong, each with its cell, so the user can check
the table or correct the board.

The checks here are common to every game (they only look at the generic
features of :mod:`scorer.features` and the figures); each game's rule module
adds its own through its ``problems(board, graph)`` (the river geometry of
base Carcassonne, for instance).

Every problem is a dict::

    {"kind": "edge_mismatch", "cell": [x, y], "message": "...", "other": [x2, y2]}

``other`` is present for problems between two tiles.
"""

from __future__ import annotations

import logging
from typing import Any

from .board import Board, Figure
from .features import FeatureGraph
from .geometry import Cell

log = logging.getLogger(__name__)

#: Kinds of the common problems.
COMMON_KINDS = (
    "edge_mismatch",
    "too_many_figures",
    "two_figures_on_tile",
    "occupied_feature",
    "unknown_player",
    "meeple_on_river",
)


def problem(kind: str, cell: Cell, message: str, other: Cell | None = None) -> dict[str, Any]:
    """One problem entry: ``kind``, ``cell`` ``[x, y]``, ``message`` (and ``other``)."""
    out: dict[str, Any] = {"kind": kind, "cell": [cell[0], cell[1]], "message": message}
    if other is not None:
        out["other"] = [other[0], other[1]]
    return out


def _where(f: Figure) -> str:
    return f"{f.player} at {f.at} of tile ({f.x},{f.y})"


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def edge_problems(graph: FeatureGraph) -> list[dict[str, Any]]:
    """One problem per pair of neighbouring tiles whose facing sides differ.

    A normal tile that covers an open river end shows up here too (river against
    field or road: ``rules.md`` section 9.5, JCZ #167).
    """
    out = []
    for m in graph.mismatches:
        msg = (
            f"tiles ({m.cell[0]},{m.cell[1]}) and ({m.other[0]},{m.other[1]}) do not match: "
            f"side {m.side} shows {_article(m.kind)} {m.kind}, the facing side shows "
            f"{_article(m.other_kind)} {m.other_kind}"
        )
        if "river" in (m.kind, m.other_kind):
            msg += " (a tile must continue the river, never cover an open river end)"
        out.append(problem("edge_mismatch", m.cell, msg + "; check both tiles and their rotations", m.other))
    return out


def figure_count_problems(board: Board, limits: dict[str, int]) -> list[dict[str, Any]]:
    """More figures of one colour on the board than the box holds.

    Parameters
    ----------
    board : Board
    limits : dict str -> int
        Box contents per colour by board list (``{"meeples": 7}``; ``"tents"`` for
        Gold Rush), the rule module's ``FIGURES_PER_COLOUR``.
    """
    out = []
    for key, limit in limits.items():
        figures: list[Figure] = getattr(board, key, None) or []
        per_colour: dict[str, list[Figure]] = {}
        for f in figures:
            per_colour.setdefault(f.player, []).append(f)
        for colour, figs in per_colour.items():
            if len(figs) > limit:
                here = [f for f in figs if f.cell == board.last_placed] or figs
                out.append(problem(
                    "too_many_figures", here[-1].cell,
                    f"{colour} has {len(figs)} {key} on the board but the box holds {limit} per colour; "
                    "a figure was read in the wrong colour or counted twice",
                ))
    return out


def tile_problems(board: Board) -> list[dict[str, Any]]:
    """Two or more meeples on one tile (a follower is placed only on the tile just laid)."""
    per_cell: dict[Cell, list[Figure]] = {}
    for m in board.meeples:
        per_cell.setdefault(m.cell, []).append(m)
    out = []
    for cell, figs in per_cell.items():
        if len(figs) > 1:
            who = ", ".join(f"{f.player} at {f.at}" for f in figs)
            out.append(problem(
                "two_figures_on_tile", cell,
                f"{len(figs)} meeples on tile ({cell[0]},{cell[1]}) ({who}); only one can be placed on a tile",
            ))
    return out


def occupied_problems(board: Board, graph: FeatureGraph) -> list[dict[str, Any]]:
    """A meeple on the tile just placed, on a feature that already held a meeple.

    A figure may only be put on a feature of the new tile that holds no follower
    (``rules.md`` sections 5 and 6, seed 000 step 2a).  Without ``last_placed``
    nothing is known about which meeple came last, and nothing is reported.
    """
    if board.last_placed is None:
        return []
    out = []
    for m in board.meeples:
        if m.cell != board.last_placed:
            continue
        f = graph.locate(m.cell, m.at)
        if f is None:
            continue
        others = [o for o in f.meeples if o is not m]
        if others:
            out.append(problem(
                "occupied_feature", m.cell,
                f"the meeple {_where(m)} stands on a {f.kind} that already holds "
                f"{', '.join(_where(o) for o in others)}; a meeple may not join an occupied feature",
            ))
    return out


def colour_problems(board: Board) -> list[dict[str, Any]]:
    """Figures whose colour is not among ``board.players`` (only when players are given)."""
    if not board.players:
        return []
    out = []
    for name, figures in (("meeple", board.meeples), ("tent", board.tents)):
        for f in figures:
            if f.player not in board.players:
                out.append(problem(
                    "unknown_player", f.cell,
                    f"the {name} {_where(f)} is not the colour of any player ({', '.join(board.players)}); "
                    "add the player or correct the colour",
                ))
    return out


def river_figure_problems(board: Board, graph: FeatureGraph) -> list[dict[str, Any]]:
    """Meeples standing on the river itself (seed 004: "Přímo na samotnou řeku družiníka umístit nelze")."""
    out = []
    for m in board.meeples:
        f = graph.locate(m.cell, m.at)
        if f is not None and f.kind == "river":
            out.append(problem(
                "meeple_on_river", m.cell,
                f"the meeple {_where(m)} stands on the river; no meeple may be placed on the river",
            ))
    return out


def problems(board: Board, graph: FeatureGraph) -> list[dict[str, Any]]:
    """Every rule problem of a board: the common checks plus the game's own.

    Parameters
    ----------
    board : Board
    graph : FeatureGraph
        The features of ``board``.

    Returns
    -------
    list of dict
        ``{"kind", "cell": [x, y], "message"}`` (plus ``"other": [x, y]`` for a
        pair of tiles), in the order: edge mismatches, figure counts, figures per
        tile, occupied features, unknown colours, meeples on the river, then the
        game module's problems.  Empty for a legal board.
    """
    from .scoring import rules_module

    module = rules_module(board.game)
    out = edge_problems(graph)
    out += figure_count_problems(board, getattr(module, "FIGURES_PER_COLOUR", {}))
    out += tile_problems(board)
    out += occupied_problems(board, graph)
    out += colour_problems(board)
    out += river_figure_problems(board, graph)
    out += module.problems(board, graph)
    if out:
        log.info("%d rule problem(s) on the board: %s", len(out), ", ".join(p["kind"] for p in out))
    return out
