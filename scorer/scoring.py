"""Scoring: a board in, a ``carcassonne-score/1`` report out (``board-format.md``).

Two modes:

* ``completed`` (mid-game): score what ``last_placed`` completed, hand out gold
  bars / ore tokens, and list the figures that go back to their owners;
* ``final`` (end of game): first every complete feature that still holds figures
  is scored as completed (the last tile completed it), then the end-game scoring
  of the game runs on everything still on the board.

The feature engine is generic (:mod:`scorer.features`); each game's rule module
(:mod:`scorer.rules.carcassonne`, :mod:`scorer.rules.goldrush`) implements::

    score_completed(ctx: ScoringContext) -> None
    score_final(ctx: ScoringContext) -> None
    problems(board: Board, graph: FeatureGraph) -> list[dict]
    FIGURES_PER_COLOUR: dict[str, int]   # box contents per colour: {"meeples": 7}

and writes into the context's :class:`Report`.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass, field
from typing import Any, Hashable, Iterable

from .board import Board, Figure
from .errors import ScorerError
from .features import Feature, FeatureGraph

log = logging.getLogger(__name__)

SCORE_FORMAT = "carcassonne-score/1"
MODES = ("completed", "final")


@dataclass
class Report:
    """What one scoring gives.

    Attributes
    ----------
    mode : str
        ``completed`` or ``final``.
    board : Board
        The board that was scored.
    points : dict colour -> int
        Points this scoring gives (``final``: including held gold bars / ore points).
    features : list of dict
        Every feature that scored: ``kind``, ``cells``, ``complete``, ``owners``,
        ``points`` and detail keys (``tiles``, ``pennants``, ``cities``...).
    returned : list of Figure
        Figures that go back to their owners.
    awards : list of dict
        Tokens handed out: ``{"player", "token": "gold"|"ore", "count", "from": [[x, y]...]}``.
    extras : list of dict
        Points not tied to a board feature (held gold bars, held ore points).
    problems : list of dict
        Rule problems found on the board (``kind``, ``cell``, ``message``).
    notes : list of str
        Human-readable remarks (a frozen mountain, tokens removed...).
    """

    mode: str
    board: Board
    points: dict[str, int] = field(default_factory=dict)
    features: list[dict[str, Any]] = field(default_factory=list)
    returned: list[Figure] = field(default_factory=list)
    awards: list[dict[str, Any]] = field(default_factory=list)
    extras: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add_points(self, players: Iterable[str], points: int) -> None:
        """Give ``points`` to each of ``players`` (tied owners all score in full)."""
        for p in players:
            self.points[p] = self.points.get(p, 0) + points

    def add_feature(self, f: Feature, owners: list[str], points: int, **detail: Any) -> dict[str, Any]:
        """Record a scored feature and give its points to its owners."""
        entry: dict[str, Any] = {
            "kind": f.kind,
            "cells": f.sorted_cells(),
            "complete": f.complete,
            "owners": list(owners),
            "points": points,
        }
        entry.update(detail)
        self.features.append(entry)
        self.add_points(owners, points)
        return entry

    def totals(self) -> dict[str, dict[str, int]]:
        """``{colour: {"points", "total"}}`` with ``total = track + points``, every colour listed."""
        out = {}
        for c in self.board.colours():
            pts = self.points.get(c, 0)
            out[c] = {"points": pts, "total": self.board.track.get(c, 0) + pts}
        for c, pts in self.points.items():
            if c not in out:
                out[c] = {"points": pts, "total": self.board.track.get(c, 0) + pts}
        return out

    def to_dict(self) -> dict[str, Any]:
        """The ``carcassonne-score/1`` JSON object."""
        return {
            "format": SCORE_FORMAT,
            "mode": self.mode,
            "players": self.totals(),
            "features": self.features,
            "returned": [m.to_dict() for m in self.returned],
            "tokens": self.awards,
            "extras": self.extras,
            "notes": self.notes,
            "board": self.board.to_dict(),
            "problems": self.problems,
        }


@dataclass
class ScoringContext:
    """What a rule module works with: the board, its features and the report."""

    board: Board
    graph: FeatureGraph
    report: Report
    #: Features already scored in this run (a feature is scored at most once).
    done: set[int] = field(default_factory=set)

    def order(self) -> list[str]:
        """Players clockwise from the active player (who takes tokens first)."""
        return self.board.turn_order_from(self.board.active)

    def return_figures(self, f: Feature) -> None:
        """Send the followers on a scored feature back to their owners."""
        self.report.returned.extend(f.meeples)


def distribute(piles: list[tuple[Hashable, int, list[str]]], order: list[str]) -> dict[str, dict[Hashable, int]]:
    """Hand out tokens one at a time, clockwise from the active player.

    Used for Goldmines gold bars and Gold Rush ore tokens.  Follows JCZ's
    reference algorithm (``rules.md`` section 4): piles are taken in order of
    most claimants first; going round the table from the active player, each
    player with a claim left takes one token from the first pile they can claim;
    players with no claim are skipped; repeat until the claimed tokens are gone.

    Parameters
    ----------
    piles : list of (key, count, claimants)
        A pile (a tile's gold bars, a mountain's ore tokens), how many tokens it
        holds and the colours entitled to take from it.
    order : list of str
        Colours clockwise starting with the active player.

    Returns
    -------
    dict colour -> dict key -> int
        Tokens each player takes from each pile.

    Whole rounds in which no pile runs out are handed out at once, so the work
    grows with the number of piles and players, not with the number of tokens.

    Sources
    -------
    Seed 001 (The Goldmines): "Distribution proceeds clockwise, starting with the
    active player"; seed 000 (Gold Rush): tied miners take ore tokens one at a time
    starting with the active player.
    """
    left = {}
    claim = {}
    for key, count, claimants in piles:
        if count > 0 and claimants:
            left[key] = left.get(key, 0) + count
            claim[key] = list(dict.fromkeys(claimants))
    ranked = sorted(claim, key=lambda k: -len(claim[k]))
    seats = list(order) + [c for k in ranked for c in claim[k] if c not in order]
    taken: dict[str, dict[Hashable, int]] = {}
    while any(left[k] for k in ranked):
        # The pile each seat takes from this round.  While no pile runs out, every
        # round is the same: play as many whole rounds at once as the piles allow
        # (the result is the one of the token-by-token walk, in a few steps).
        picks = [(p, next((k for k in ranked if left[k] and p in claim[k]), None)) for p in seats]
        takers: dict[Hashable, int] = {}
        for _, k in picks:
            if k is not None:
                takers[k] = takers.get(k, 0) + 1
        rounds = min(left[k] // n for k, n in takers.items())
        if rounds > 1:
            for player, k in picks:
                if k is not None:
                    mine = taken.setdefault(player, {})
                    mine[k] = mine.get(k, 0) + rounds - 1
            for k, n in takers.items():
                left[k] -= n * (rounds - 1)
        for player in seats:
            for k in ranked:
                if left[k] and player in claim[k]:
                    left[k] -= 1
                    mine = taken.setdefault(player, {})
                    mine[k] = mine.get(k, 0) + 1
                    break
    return taken


def gold_bar_points(bars: int) -> int:
    """End-game points of a player's gold bars.

    1-3 bars score 1 each, 4-6 score 2 each, 7-9 score 3 each, 10 or more 4 each.
    Source: seed 001 (The Goldmines), table "Počet cihliček / Body za každou
    cihličku"; worked example: 7 bars -> 21 points.
    """
    if bars <= 0:
        return 0
    per = 1 if bars <= 3 else 2 if bars <= 6 else 3 if bars <= 9 else 4
    return bars * per


def rules_module(game: str):
    """The rule module of ``game`` (``carcassonne`` or ``goldrush``)."""
    try:
        return importlib.import_module(f".rules.{game}", __package__)
    except ModuleNotFoundError as exc:  # pragma: no cover - games are checked on load
        raise ScorerError(f"no rules for game {game!r}") from exc


def score(board: Board, mode: str = "completed") -> Report:
    """Score a board.

    Parameters
    ----------
    board : Board
        The table as it stands.
    mode : {"completed", "final"}
        ``completed``: what ``last_placed`` completed (without ``last_placed``:
        every complete feature still holding figures); ``final``: end of game.

    Returns
    -------
    Report
        Points per player, scored features, returned figures, token awards and
        rule problems.  The board itself is not changed.

    Raises
    ------
    ScorerError
        Unknown mode.
    """
    if mode not in MODES:
        raise ScorerError(f"unknown scoring mode {mode!r}; expected one of {', '.join(MODES)}")
    graph = FeatureGraph(board)
    report = Report(mode, board)
    ctx = ScoringContext(board, graph, report)
    module = rules_module(board.game)
    from .legality import problems

    report.problems = problems(board, graph)
    module.score_completed(ctx)
    if mode == "final":
        module.score_final(ctx)
    for c in board.colours():
        report.points.setdefault(c, 0)
    log.debug("scored %s board (%d tiles, mode %s): %s", board.game, len(board.tiles), mode, report.points)
    return report
