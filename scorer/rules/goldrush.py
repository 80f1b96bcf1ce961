"""Scoring rules of Carcassonne: Gold Rush and its mini expansion The Sheriff.

The generic feature engine (:mod:`scorer.features`) builds rails, mountains,
towns, prairies and cemeteries; this module only says how they score.  Every
rule cites the user's own rule pages: seed ``000_*`` (Zlatá horečka, the main
game) and seed ``002_*`` (Šerif); ``rules.md`` sections 6 and 7 summarise them.

During play (``score_completed``):

* rail: 1 point per tile to the majority railwayman owner(s), doubled when
  exactly one locomotive runs on the whole rail (seed 000, "Dokončená železniční
  trať s lokomotivami": none or more than one, no doubling);
* mountain: the majority miner(s) first take every ore token still on it (tied
  miners one at a time, starting with the active player, clockwise), then each
  scores 1 point per nugget symbol; tents score nothing and go back; with no
  miner the tokens go back to the supply (seed 000, "Uzavřené hory", footnote 6);
* town: 3 points per completed rail leaving it, a loop from one town rail into
  another counting once (seed 000, "Město napojené na dokončenou železniční síť");
* cemetery: 9 + 1 per town on the 8 surrounding tiles (seed 002, "Hodnocení v
  průběhu hry").

End of game (``score_final``, seed 000 "Závěrečné bodování"; seed 002):
complete features still holding figures are first scored as completed, then
mountains (leftover ore tokens and tents removed, 1 per nugget; the Sheriff's
mountain goes to its owners), rails (1 per tile), towns (3 per completed rail),
cemeteries (1 per tile of the 3x3 area + 1 per town), prairies (2 per Indian
camp, 4 per wild-horse herd) and finally the held ore points.

Ore tokens are face down: their values are unknown to the scorer.  Tokens handed
out are reported in ``Report.awards`` (``token: "ore"``); their values count only
once the players reveal them and enter the sum as ``held.<colour>.ore_points``.
"""

from __future__ import annotations

import logging
from typing import Any

from ..board import Board, Figure
from ..features import Feature, FeatureGraph, completed_by
from ..geometry import around
from ..legality import problem
from ..scoring import ScoringContext, distribute

log = logging.getLogger(__name__)

#: Figures per colour in the box: 5 cowboys, one of them the score marker, and 1 tent
#: (seed 000, "Herní materiál" and "Příprava hry").
FIGURES_PER_COLOUR: dict[str, int] = {"meeples": 4, "tents": 1}

#: Points per rail tile (seed 000: "tolik bodů, z kolika kartiček je trať složena").
RAIL_POINTS_PER_TILE = 1
#: Points per completed rail leaving a town (seed 000: "3 body").
TOWN_POINTS_PER_RAIL = 3
#: Prairie points (seed 000, "Vyhodnocení farmářů").
CAMP_POINTS = 2
HORSE_POINTS = 4
#: A completed cemetery's base points (seed 002: "9 bodů plus 1 bod za každé město").
CEMETERY_POINTS = 9

#: Kinds that complete during play and score when they do.
_COMPLETING = ("rail", "mountain", "town", "cemetery")

#: Said when a mid-game scoring has no ``last_placed`` to go by.
NO_LAST_TILE_NOTE = "no last tile given: scored every complete feature still holding figures"

ORE_VALUES_NOTE = (
    "ore tokens are face down: whoever took them reveals them at the end of the game and "
    "adds their nugget values (enter the sum as held.<colour>.ore_points)"
)


# --------------------------------------------------------------------------- helpers


def _where(f: Feature) -> str:
    """``mountain at (0,0) (0,1)``: a feature named by its cells for notes."""
    return f"{f.kind} at " + " ".join(f"{x},{y}" for x, y in f.sorted_cells())


def sheriff_active(board: Board) -> bool:
    """Whether the Sheriff's rules apply: he stands on the board and The Sheriff is played.

    Source: seed 002 (the Sheriff comes with the mini expansion only); a Sheriff on a
    board without the ``sheriff`` expansion is reported by :func:`problems` and ignored.
    """
    return board.sheriff is not None and "sheriff" in board.expansions


def sheriff_mountain(board: Board, graph: FeatureGraph) -> Feature | None:
    """The mountain the Sheriff stands on (``None``: off the board, ignored or not on a mountain)."""
    if not sheriff_active(board):
        return None
    f = graph.locate(board.sheriff.cell, board.sheriff.at)
    return f if f is not None and f.kind == "mountain" else None


def ore_on_mountains(board: Board, graph: FeatureGraph) -> dict[int, int]:
    """Ore tokens lying on each mountain.

    Returns
    -------
    dict int -> int
        Mountain feature id -> number of face-down ore tokens on its tiles (all
        stacks of the mountain added).  Stacks that do not lie on a mountain are
        left out (reported by :func:`problems`).
    """
    out: dict[int, int] = {}
    for s in board.ore:
        f = graph.locate(s.cell, s.at)
        if f is not None and f.kind == "mountain":
            out[f.id] = out.get(f.id, 0) + s.count
    return out


def towns_around(graph: FeatureGraph, f: Feature) -> int:
    """Towns on the (up to 8) tiles around a cemetery (seed 002: "každé město v jeho okolí")."""
    tiles = graph.board.tiles
    return sum(1 for c in around(f.anchor) if c in tiles and tiles[c].tile.has("town"))


def _pending(ctx: ScoringContext) -> list[Feature]:
    """Complete features not scored yet that still hold something to hand out.

    Rails, towns and cemeteries with cowboys; mountains with cowboys, tents, ore
    tokens or the Sheriff.
    """
    board, graph = ctx.board, ctx.graph
    ore = ore_on_mountains(board, graph)
    sheriff_at = sheriff_mountain(board, graph)
    out = []
    for f in graph.of_kind(*_COMPLETING):
        if not f.complete or f.id in ctx.done:
            continue
        held = bool(f.meeples)
        if f.kind == "mountain":
            held = held or bool(f.tents) or ore.get(f.id, 0) > 0 or (sheriff_at is not None and sheriff_at.id == f.id)
        if held:
            out.append(f)
    return out


# --------------------------------------------------------------------------- completed features


def _rail_completed(ctx: ScoringContext, f: Feature) -> None:
    # Seed 000, "Dokončená železniční trať" and "... s lokomotivami".
    owners = f.owners()
    if not owners:
        return
    tiles = len(f.cells)
    doubled = f.locomotives == 1
    points = tiles * RAIL_POINTS_PER_TILE * (2 if doubled else 1)
    ctx.report.add_feature(f, owners, points, tiles=tiles, locomotives=f.locomotives, doubled=doubled)
    ctx.return_figures(f)


def _hand_out_ore(ctx: ScoringContext, f: Feature, owners: list[str], count: int) -> None:
    """The majority miners take ``count`` tokens, one at a time from the active player."""
    taken = distribute([(f.id, count, owners)], ctx.order())
    for player in ctx.order():
        n = taken.get(player, {}).get(f.id, 0)
        if n:
            ctx.report.awards.append({"player": player, "token": "ore", "count": n, "from": f.sorted_cells()})
    if len(owners) > 1 and ctx.board.active is None:
        ctx.report.notes.append(
            f"no active player is given: the tied miners of the {_where(f)} took its ore tokens in turn "
            "order starting with the first player; set 'active' to the player who placed the last tile"
        )


def _mountain_completed(ctx: ScoringContext, f: Feature) -> None:
    # Seed 000, "Uzavřené hory"; footnote 6 (no miner); seed 002 "Zmrazení žetonů".
    report = ctx.report
    owners = f.owners()
    ore = ore_on_mountains(ctx.board, ctx.graph).get(f.id, 0)
    if owners:
        if ore:
            _hand_out_ore(ctx, f, owners, ore)
        report.add_feature(f, owners, f.nuggets, nuggets=f.nuggets, ore=ore)
    elif ore:
        report.notes.append(
            f"the completed {_where(f)} has no miner: its {ore} ore token(s) go back to the supply"
        )
    ctx.return_figures(f)
    if f.tents:
        report.returned.extend(f.tents)
        who = ", ".join(t.player for t in f.tents)
        report.notes.append(f"tents on the completed {_where(f)} score nothing and go back to their owners ({who})")
    here = sheriff_mountain(ctx.board, ctx.graph)
    if here is not None and here.id == f.id:
        report.notes.append(
            f"the {_where(f)} under the Sheriff is complete: its ore tokens are handed out as usual "
            "and the Sheriff leaves the board"
        )


def _town_completed(ctx: ScoringContext, f: Feature) -> None:
    # Seed 000, "Město napojené na dokončenou železniční síť"; a loop is one rail (Feature.rails).
    owners = f.owners()
    if not owners:
        return
    rails = len(f.rails)
    ctx.report.add_feature(f, owners, TOWN_POINTS_PER_RAIL * rails, rails=rails)
    ctx.return_figures(f)


def _cemetery_completed(ctx: ScoringContext, f: Feature) -> None:
    # Seed 002, "Hodnocení v průběhu hry".
    owners = f.owners()
    if not owners:
        return
    towns = towns_around(ctx.graph, f)
    ctx.report.add_feature(f, owners, CEMETERY_POINTS + towns, tiles=9, towns=towns)
    ctx.return_figures(f)


_COMPLETED_SCORERS = {
    "rail": _rail_completed,
    "mountain": _mountain_completed,
    "town": _town_completed,
    "cemetery": _cemetery_completed,
}


def _score_as_completed(ctx: ScoringContext, f: Feature) -> None:
    scorer = _COMPLETED_SCORERS.get(f.kind)
    if scorer is None or f.id in ctx.done:
        return
    ctx.done.add(f.id)
    scorer(ctx, f)
    log.debug("completed %s scored", _where(f))


def score_completed(ctx: ScoringContext) -> None:
    """Score what the last tile completed (mid-game), or every complete feature with figures.

    Parameters
    ----------
    ctx : ScoringContext
        Board, features and the report to fill: ``points`` (integer points per
        colour), ``features``, ``returned`` (cowboys and tents going back),
        ``awards`` (ore tokens taken: ``{"player", "token": "ore", "count",
        "from": [[x, y], ...]}``) and ``notes``.

    Notes
    -----
    With ``board.last_placed`` the features it completed are scored
    (:func:`scorer.features.completed_by`); without it, every complete feature
    still holding figures, tents, ore tokens or the Sheriff.  In ``completed``
    mode a mountain under the Sheriff that stays incomplete gets a note: it is
    frozen, nobody may mine there; and when ore tokens were handed out, a note
    says that their hidden values count at the end (``held.<colour>.ore_points``).

    Sources
    -------
    Seed 000 "3. Bodování ukončených železničních tratí, hor a měst" (rails,
    mountains, towns, returning cowboys); seed 002 "Zmrazení žetonů" and
    "Hodnocení v průběhu hry" (Sheriff, cemetery).
    """
    board = ctx.board
    if board.last_placed is not None:
        features = completed_by(ctx.graph, board.last_placed)
    else:
        features = _pending(ctx)
        if ctx.report.mode == "completed":
            ctx.report.notes.append(NO_LAST_TILE_NOTE)
    for f in features:
        _score_as_completed(ctx, f)
    if ctx.report.mode == "completed":
        if any(a.get("token") == "ore" for a in ctx.report.awards):
            ctx.report.notes.append(ORE_VALUES_NOTE)
        here = sheriff_mountain(board, ctx.graph)
        if here is not None and not here.complete:
            ctx.report.notes.append(
                f"the {_where(here)} is frozen by the Sheriff: no mining there while he stands on it"
            )


# --------------------------------------------------------------------------- final scoring


def _mountains_final(ctx: ScoringContext) -> None:
    # Seed 000, "Vyhodnocení nedokončených tratí, hor a nenapojených měst" (Hory);
    # seed 002, "Šerif na konci hry".
    board, graph, report = ctx.board, ctx.graph, ctx.report
    ore = ore_on_mountains(board, graph)
    sheriff_at = sheriff_mountain(board, graph)
    for f in graph.of_kind("mountain"):
        if f.id in ctx.done:
            continue
        ctx.done.add(f.id)
        owners = f.owners()
        left = ore.get(f.id, 0)
        if sheriff_at is not None and sheriff_at.id == f.id and not f.complete:
            if owners and left:
                share, rest = divmod(left, len(owners))
                if share:
                    for player in ctx.order():
                        if player in owners:
                            report.awards.append(
                                {"player": player, "token": "ore", "count": share, "from": f.sorted_cells()}
                            )
                if len(owners) == 1:
                    note = (f"the Sheriff stands on the incomplete {_where(f)} at the end of the game: "
                            f"its owner {owners[0]} takes its {left} ore token{'' if left == 1 else 's'}")
                else:
                    note = (f"the Sheriff stands on the incomplete {_where(f)} at the end of the game: "
                            f"its owners ({', '.join(owners)}) take its {left} ore token(s), {share} each")
                if rest:
                    note += (f"; {rest} token(s) cannot be shared evenly among {len(owners)} owners "
                             "and are removed with the other leftover tokens")
                report.notes.append(note)
                left = rest
            elif left:
                report.notes.append(
                    f"the Sheriff stands on the incomplete {_where(f)}, which has no miner: "
                    "nobody takes its ore tokens"
                )
        if left:
            report.notes.append(
                f"{left} ore token(s) left on the {_where(f)} are removed at the end of the game (no points)"
            )
        if f.tents:
            who = ", ".join(t.player for t in f.tents)
            report.notes.append(f"tents on the {_where(f)} are removed at the end of the game (no points: {who})")
        if owners:
            report.add_feature(f, owners, f.nuggets, nuggets=f.nuggets)


def _rails_final(ctx: ScoringContext) -> None:
    # Seed 000: "Vlastník trati získává po 1 bodu za každý dílek trati (lokomotivy ... žádnou roli)".
    for f in ctx.graph.of_kind("rail"):
        if f.id in ctx.done:
            continue
        ctx.done.add(f.id)
        owners = f.owners()
        if owners:
            tiles = len(f.cells)
            ctx.report.add_feature(f, owners, tiles * RAIL_POINTS_PER_TILE, tiles=tiles)


def _towns_final(ctx: ScoringContext) -> None:
    # Seed 000: "Vlastník města získává 3 body za každou dokončenou železniční trať, která z města vychází."
    graph = ctx.graph
    for f in graph.of_kind("town"):
        if f.id in ctx.done:
            continue
        ctx.done.add(f.id)
        owners = f.owners()
        if owners:
            done_rails = sum(1 for r in f.rails if graph.features[r].complete)
            ctx.report.add_feature(f, owners, TOWN_POINTS_PER_RAIL * done_rails, rails=done_rails,
                                   open_rails=len(f.rails) - done_rails)


def _cemeteries_final(ctx: ScoringContext) -> None:
    # Seed 002, "Závěrečné vyhodnocení hřbitova": 1 per tile of the 3x3 area + 1 per town around.
    graph = ctx.graph
    for f in graph.of_kind("cemetery"):
        if f.id in ctx.done:
            continue
        ctx.done.add(f.id)
        owners = f.owners()
        if owners:
            tiles = 1 + graph.neighbours_present(f)
            towns = towns_around(graph, f)
            ctx.report.add_feature(f, owners, tiles + towns, tiles=tiles, towns=towns)


def _prairies_final(ctx: ScoringContext) -> None:
    # Seed 000, "Vyhodnocení farmářů": 2 per Indian camp, 4 per herd of wild horses.
    for f in ctx.graph.of_kind("prairie"):
        if f.id in ctx.done:
            continue
        ctx.done.add(f.id)
        owners = f.owners()
        if owners:
            ctx.report.add_feature(f, owners, CAMP_POINTS * f.camps + HORSE_POINTS * f.horses,
                                   camps=f.camps, horses=f.horses)


def _held_ore(ctx: ScoringContext) -> None:
    # Seed 000, "Vyhodnocení těžby zlata": everyone reveals the ore tokens and adds their values.
    board, report = ctx.board, ctx.report
    for colour in board.colours():
        held = board.held.get(colour, {})
        points = held.get("ore_points", 0)
        if points:
            report.add_points([colour], points)
            report.extras.append({"kind": "ore_points", "player": colour, "points": points})
        elif held.get("ore_tokens", 0) and "ore_points" not in held:
            report.notes.append(
                f"{colour} holds {held['ore_tokens']} ore token(s) whose values are not entered: "
                f"reveal them and enter the sum as held.{colour}.ore_points"
            )
    if any(a.get("token") == "ore" for a in report.awards):
        report.notes.append(
            "the ore tokens handed out in this final scoring are not counted in these points yet: "
            + ORE_VALUES_NOTE
        )


def score_final(ctx: ScoringContext) -> None:
    """End-of-game scoring of Gold Rush (and The Sheriff).

    Parameters
    ----------
    ctx : ScoringContext
        As for :func:`score_completed`; features already scored in this run
        (``ctx.done``) are skipped.

    Notes
    -----
    Order: complete features still holding figures are first scored as completed
    (ore tokens handed out, the last tile completed them); then mountains (ore
    tokens and tents still on them are removed without points, except on the
    Sheriff's mountain, whose tokens go to its owners; owners score 1 per nugget
    symbol), rails (1 point per tile, locomotives ignored), towns (3 points per
    completed rail leaving the town, incomplete rails 0), cemeteries (1 point per
    tile of the 3x3 area present, itself included, + 1 per town on the tiles
    around), prairies (2 points per Indian camp, 4 per wild-horse herd) and last
    the players' held ore points (``board.held[colour]["ore_points"]``).

    The Sheriff on an incomplete mountain at the end: its owners share the tokens
    still on it evenly.  When they cannot be shared evenly, each tied owner takes
    the same number and the remainder stays undistributed and is removed with
    every other leftover token: seed 002 "jsou žetony zlatonosné rudy rozděleny
    rovnoměrně" (shared evenly) together with seed 000 "Nejprve odstraňte všechny
    nerozdělené žetony rudy ... Za ně již žádné body nedostanete" (undistributed
    tokens are removed, no points).

    Sources
    -------
    Seed 000 "Závěrečné bodování", "Vyhodnocení farmářů", "Vyhodnocení těžby
    zlata"; seed 002 "Šerif na konci hry", "Závěrečné vyhodnocení hřbitova".
    """
    for f in _pending(ctx):
        _score_as_completed(ctx, f)
    _mountains_final(ctx)
    _rails_final(ctx)
    _towns_final(ctx)
    _cemeteries_final(ctx)
    _prairies_final(ctx)
    _held_ore(ctx)


# --------------------------------------------------------------------------- problems


def _figure(kind: str, f: Figure) -> str:
    owner = f"{f.player} " if f.player else ""
    return f"the {owner}{kind} at {f.at} of tile {f.x},{f.y}"


def problems(board: Board, graph: FeatureGraph) -> list[dict[str, Any]]:
    """Rule problems particular to Gold Rush and The Sheriff.

    The common checks (edges, cowboys and tents per colour against
    :data:`FIGURES_PER_COLOUR`, one cowboy per tile, occupied features) are in
    :mod:`scorer.legality`.

    Returns
    -------
    list of dict
        ``{"kind", "cell": [x, y], "message"}``; kinds ``tent_off_mountain``,
        ``tent_on_complete_mountain``, ``tent_on_occupied_part``,
        ``sheriff_without_expansion``, ``sheriff_off_mountain``,
        ``sheriff_on_complete_mountain``, ``ore_off_mountain``,
        ``ore_on_complete_mountain``, and ``foreign_piece`` for Goldmines gold
        bars on the tiles or held (``cell`` ``None``), which Gold Rush does not score.

    Notes
    -----
    "Complete" checks only run with ``board.last_placed``: a mountain the last
    tile completed still holds its tents, tokens and the Sheriff until it is
    scored.

    Sources
    -------
    Seed 000 "2b. Postavení čí přemístění stanu" (a tent stands in the mountains,
    on an incomplete mountain, on a mountain part of a tile nobody occupies);
    seed 000 "Pokládání zlatých nugetů" (ore tokens lie on mountains); seed 002
    "Pohyb Šerifa" (the Sheriff stands on an incomplete mountain and leaves it
    when it is complete).
    """
    out: list[dict[str, Any]] = []
    just_done: set[int] | None = None
    if board.last_placed is not None:
        just_done = {f.id for f in completed_by(graph, board.last_placed)}

    def stale(f: Feature) -> bool:
        return just_done is not None and f.complete and f.id not in just_done

    # Tents.
    parts: dict[tuple, list[tuple[str, Figure]]] = {}
    for t in board.tents:
        f = graph.locate(t.cell, t.at)
        if f is None or f.kind != "mountain":
            what = f.kind if f is not None else "nothing"
            out.append(problem("tent_off_mountain", t.cell,
                               f"{_figure('tent', t)} stands on {what}; a tent may only stand on a mountain"))
            continue
        if stale(f):
            out.append(problem("tent_on_complete_mountain", t.cell,
                               f"{_figure('tent', t)} stands on the complete {_where(f)}; tents go back "
                               "when their mountain is complete and may not be put on one"))
        parts.setdefault((t.cell, _piece(board, t)), []).append(("tent", t))
    for m in board.meeples:
        key = (m.cell, _piece(board, m))
        if key in parts:
            parts[key].append(("cowboy", m))
    for (cell, _), figs in parts.items():
        if len(figs) > 1:
            who = ", ".join(_figure(kind, fig) for kind, fig in figs)
            out.append(problem("tent_on_occupied_part", cell,
                               f"one mountain part of tile {cell[0]},{cell[1]} holds {who}; a tent may only "
                               "be put on a mountain part that nobody occupies"))

    # The Sheriff.
    if board.sheriff is not None:
        s = board.sheriff
        if "sheriff" not in board.expansions:
            out.append(problem("sheriff_without_expansion", s.cell,
                               f"the Sheriff stands on tile {s.x},{s.y} but the board does not list the "
                               "'sheriff' expansion; add it to 'expansions' (the Sheriff is ignored until then)"))
        else:
            f = graph.locate(s.cell, s.at)
            if f is None or f.kind != "mountain":
                what = f.kind if f is not None else "nothing"
                out.append(problem("sheriff_off_mountain", s.cell,
                                   f"the Sheriff at {s.at} of tile {s.x},{s.y} stands on {what}; "
                                   "he may only stand on an incomplete mountain"))
            elif stale(f):
                out.append(problem("sheriff_on_complete_mountain", s.cell,
                                   f"the Sheriff stands on the complete {_where(f)}; he leaves the board "
                                   "when his mountain is complete"))

    # Pieces of base Carcassonne's The Goldmines (not scored here).
    for st in board.gold:
        if st.count:
            out.append(problem("foreign_piece", st.cell,
                               f"{st.count} gold bar{'' if st.count == 1 else 's'} on tile {st.x},{st.y}: gold bars "
                               "belong to The Goldmines (base Carcassonne); this board is goldrush (not scored)"))
    for colour, held in board.held.items():
        if held.get("gold_bars"):
            n = held["gold_bars"]
            out.append(problem("foreign_piece", None,
                               f"{colour} holds {n} gold bar{'' if n == 1 else 's'}: gold bars belong to The "
                               "Goldmines (base Carcassonne); this board is goldrush (not scored)"))

    # Ore tokens.
    for st in board.ore:
        f = graph.locate(st.cell, st.at)
        if f is None or f.kind != "mountain":
            what = f.kind if f is not None else "nothing"
            out.append(problem("ore_off_mountain", st.cell,
                               f"{st.count} ore token(s) at {st.at} of tile {st.x},{st.y} lie on {what}; "
                               "ore tokens lie on mountains (they are not scored)"))
        elif stale(f) and st.count:
            out.append(problem("ore_on_complete_mountain", st.cell,
                               f"{st.count} ore token(s) still lie on the complete {_where(f)}; they were "
                               "handed out (or returned to the supply) when it was completed"))
    return out


def _piece(board: Board, f: Figure) -> int | None:
    p = board.tiles[f.cell]
    return p.tile.turned(p.rot).locate(f.at)


__all__ = [
    "FIGURES_PER_COLOUR",
    "score_completed",
    "score_final",
    "problems",
    "ore_on_mountains",
    "sheriff_active",
    "sheriff_mountain",
    "towns_around",
]
