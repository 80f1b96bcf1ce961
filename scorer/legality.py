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
    "isolated",
)


def problem(kind: str, cell: Cell | None, message: str, other: Cell | None = None) -> dict[str, Any]:
    """One problem entry: ``kind``, ``cell`` ``[x, y]``, ``message`` (and ``other``).

    ``cell`` is ``None`` for a problem that belongs to no tile (a score-track
    colour that is not a player).
    """
    out: dict[str, Any] = {"kind": kind, "cell": None if cell is None else [cell[0], cell[1]], "message": message}
    if other is not None:
        out["other"] = [other[0], other[1]]
    return out


def cell_text(cell: Cell) -> str:
    """A cell as text output writes it: ``2,-1``."""
    return f"{cell[0]},{cell[1]}"


def figure_word(board: Board, plural: bool = False) -> str:
    """What a follower is called in the board's game: meeple (Carcassonne) or cowboy (Gold Rush)."""
    word = "cowboy" if board.game == "goldrush" else "meeple"
    return word + "s" if plural else word


def _where(f: Figure) -> str:
    return f"{f.player} at {f.at} of tile {f.x},{f.y}"


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def edge_problems(graph: FeatureGraph) -> list[dict[str, Any]]:
    """One problem per pair of neighbouring tiles whose facing sides differ.

    A normal tile that covers an open river end shows up here too (river against
    field or road: ``rules.md`` section 9.5, JCZ #167).  A plain side is a field
    in Carcassonne and a prairie in Gold Rush.
    """
    out = []
    plain = "prairie" if graph.board.game == "goldrush" else "field"
    for m in graph.mismatches:
        kind = plain if m.kind == "field" else m.kind
        other_kind = plain if m.other_kind == "field" else m.other_kind
        msg = (
            f"tiles {cell_text(m.cell)} and {cell_text(m.other)} do not match: "
            f"side {m.side} shows {_article(kind)} {kind}, the facing side shows "
            f"{_article(other_kind)} {other_kind}"
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
        name = figure_word(board, plural=True) if key == "meeples" else key
        for colour, figs in per_colour.items():
            if len(figs) > limit:
                here = [f for f in figs if f.cell == board.last_placed] or figs
                out.append(problem(
                    "too_many_figures", here[-1].cell,
                    f"{colour} has {len(figs)} {name} on the board but the box holds {limit} per colour; "
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
                f"{len(figs)} {figure_word(board, plural=True)} on tile {cell_text(cell)} ({who}); "
                "only one can be placed on a tile",
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
            word = figure_word(board)
            out.append(problem(
                "occupied_feature", m.cell,
                f"the {word} {_where(m)} stands on a {f.kind} that already holds "
                f"{', '.join(_where(o) for o in others)}; a {word} may not join an occupied feature",
            ))
    return out


def colour_problems(board: Board) -> list[dict[str, Any]]:
    """Figures, score-track and held entries whose colour is not among ``board.players``.

    Only when players are given.  Track and held entries belong to no tile: their
    ``cell`` is ``None``.
    """
    if not board.players:
        return []
    out = []
    players = ", ".join(board.players)
    for name, figures in ((figure_word(board), board.meeples), ("tent", board.tents)):
        for f in figures:
            if f.player not in board.players:
                out.append(problem(
                    "unknown_player", f.cell,
                    f"the {name} {_where(f)} is not the colour of any player ({players}); "
                    "add the player or correct the colour",
                ))
    for colour in board.track:
        if colour not in board.players:
            out.append(problem(
                "unknown_player", None,
                f"the score track lists {colour} ({board.track[colour]} points), who is not a player ({players}); "
                "add the player or correct the colour",
            ))
    for colour in board.held:
        if colour not in board.players:
            out.append(problem(
                "unknown_player", None,
                f"{colour} holds {held_text(board.held[colour])} but is not a player ({players}); "
                "add the player or correct the colour",
            ))
    return out


def held_text(held: dict[str, int]) -> str:
    """``2 gold bars, 7 ore points``: what a player holds, in words."""
    nouns = {"gold_bars": "gold bar", "ore_points": "ore point", "ore_tokens": "ore token"}
    parts = [f"{n} {nouns.get(k, k)}{'' if n == 1 or k not in nouns else 's'}" for k, n in held.items()]
    return ", ".join(parts) or "nothing"


def isolated_problems(board: Board) -> list[dict[str, Any]]:
    """Tiles that touch no other tile (a board of one tile is fine).

    Every tile is placed next to a tile already on the table (``rules.md``
    section 2, seed 000 step 1), so a lone tile is a mistyped cell or a misread.
    """
    if len(board.tiles) < 2:
        return []
    out = []
    for (x, y) in board.tiles:
        if not any(c in board.tiles for c in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))):
            out.append(problem(
                "isolated", (x, y),
                f"tile {x},{y} touches no other tile; every tile is placed next to one on the table, "
                "so check its cell (x grows east, y grows south)",
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
        tile, occupied features, unknown colours, meeples on the river, isolated
        tiles, then the game module's problems.  Empty for a legal board.
    """
    from .scoring import rules_module

    module = rules_module(board.game)
    out = edge_problems(graph)
    out += figure_count_problems(board, getattr(module, "FIGURES_PER_COLOUR", {}))
    out += tile_problems(board)
    out += occupied_problems(board, graph)
    out += colour_problems(board)
    out += river_figure_problems(board, graph)
    out += isolated_problems(board)
    out += module.problems(board, graph)
    if out:
        log.info("%d rule problem(s) on the board: %s", len(out), ", ".join(p["kind"] for p in out))
    return out
