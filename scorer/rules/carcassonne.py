"""Scoring rules of base Carcassonne with The River and The Goldmines.

Sources: ``rules.md`` sections 1-5 and 9 (base game, JCloisterZone), seed 004
(The River, ``Řeka``) and seed 001 (The Goldmines, ``Zlaté doly``).

During play (``completed`` mode) the features the last tile completed score:

* road: 1 point per tile, 2 per tile with an inn;
* city: 2 per tile + 2 per pennant (edition switch ``small_city`` 2: a completed
  2-tile city scores 2 + 1 per pennant);
* cloister: 9;
* the river never scores;

to the majority owner(s) (tied players all score in full); their followers go
back.  A complete feature without followers scores nothing and keeps its gold.
Gold bars on the tiles a scored feature covers (a cloister: its 3x3 area) go to
its owners, one bar at a time clockwise from the active player across every
feature of the same scoring (:func:`scorer.scoring.distribute`).

At game end (``final`` mode) every complete feature still holding followers is
first scored as completed (gold paid), then incomplete roads score 1 per tile
(inn: 0), incomplete cities 1 per tile + 1 per pennant, incomplete cloisters
1 + 1 per neighbour present, farms by the ``farmers`` edition (``3rd``, ``2nd``,
``1st``), unclaimed gold is removed and each player's gold bars score by
:func:`scorer.scoring.gold_bar_points`.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from ..board import Board
from ..features import Feature, FeatureGraph, completed_by
from ..geometry import OPPOSITE, SIDES, Cell, neighbour
from ..legality import cell_text, problem
from ..scoring import ScoringContext, distribute, gold_bar_points

log = logging.getLogger(__name__)

#: Box contents per colour (``rules.md`` section 2: 7 followers per colour; the
#: eighth figure of the box is the score marker).
FIGURES_PER_COLOUR = {"meeples": 7}

#: Features that score in base Carcassonne (fields separately, at game end).
SCORING_KINDS = ("road", "city", "cloister")

#: Farm points per completed city (``rules.md`` section 5 "Farm").
CITY_FARM_POINTS = {"3rd": 3, "2nd": 3, "1st": 4}

#: Said when a mid-game scoring has no ``last_placed`` to go by.
NO_LAST_TILE_NOTE = "no last tile given: scored every complete feature still holding figures"


# --------------------------------------------------------------------------- helpers


def _cell_key(c: Cell) -> tuple[int, int]:
    return (c[1], c[0])


def _cells(cells) -> list[list[int]]:
    return [[x, y] for x, y in sorted(cells, key=_cell_key)]


def _seated(board: Board, players) -> list[str]:
    """Colours in seat order (the board's player list), for stable reports."""
    seats = board.colours()
    return sorted(players, key=lambda c: seats.index(c) if c in seats else len(seats))


def _owners(board: Board, f: Feature) -> list[str]:
    """Majority owner(s) of ``f`` in seat order (``rules.md`` section 5, ties all own)."""
    if not f.meeples:
        return []
    owners = f.owners()
    return owners if len(owners) == 1 else _seated(board, owners)


def _claim_area(graph: FeatureGraph, f: Feature) -> list[Cell]:
    """Tiles whose gold a scored feature claims: its own tiles, a cloister its 3x3 area.

    Source: seed 001 ("K cestě či městu patří všechny kartičky, na kterých cesta
    či město leží. Ke klášteru patří kartička s klášterem a osm sousedních kartiček").
    """
    if f.kind == "cloister":
        return [c for c in graph.area(f) if c in graph.board.tiles]
    return sorted(f.cells, key=_cell_key)


def completed_points(board: Board, graph: FeatureGraph, f: Feature) -> tuple[int, dict[str, Any]]:
    """Points of a completed road, city or cloister, and the entry's detail.

    Parameters
    ----------
    board : Board
        For the edition switch ``small_city``.
    graph : FeatureGraph
    f : Feature
        A complete feature of kind ``road``, ``city`` or ``cloister``.

    Returns
    -------
    points : int
        Road 1 per tile (inn 2 per tile); city 2 per tile + 2 per pennant, or with
        ``small_city`` 2 a 2-tile city 2 + 1 per pennant; cloister 9.
    detail : dict
        ``tiles`` (distinct tiles), ``pennants``, ``inn``, ``neighbours``, ``rule``.

    Sources
    -------
    ``rules.md`` sections 3 (inn), 5 (road, city, tiny-city variant, cloister)
    and 9.1-9.2 (2-tile city; count tiles, not segments).
    """
    tiles = len(f.cells)
    if f.kind == "road":
        per = 2 if f.inn else 1
        return per * tiles, {"tiles": tiles, "inn": f.inn}
    if f.kind == "city":
        if tiles == 2 and board.rule("small_city") == 2:
            return 2 + f.pennants, {"tiles": tiles, "pennants": f.pennants, "rule": "small_city 2"}
        return 2 * tiles + 2 * f.pennants, {"tiles": tiles, "pennants": f.pennants}
    if f.kind == "cloister":
        return 9, {"tiles": 9, "neighbours": 8}
    raise ValueError(f"a {f.kind} does not score in Carcassonne")


def incomplete_points(graph: FeatureGraph, f: Feature) -> tuple[int, dict[str, Any]]:
    """End-of-game points of an incomplete road, city or cloister, and the detail.

    Road 1 per tile (a road with an inn 0); city 1 per tile + 1 per pennant;
    cloister 1 + 1 per tile on the 8 cells around it.  Sources: ``rules.md``
    sections 3 ("Inn road ... 0 if incomplete") and 5; JCZ ``Road.java``.
    """
    tiles = len(f.cells)
    if f.kind == "road":
        return (0 if f.inn else tiles), {"tiles": tiles, "inn": f.inn}
    if f.kind == "city":
        return tiles + f.pennants, {"tiles": tiles, "pennants": f.pennants}
    if f.kind == "cloister":
        n = graph.neighbours_present(f)
        return 1 + n, {"tiles": 1 + n, "neighbours": n}
    raise ValueError(f"a {f.kind} does not score in Carcassonne")


def goldmines(board: Board) -> bool:
    """Whether The Goldmines is played (seed 001): listed, or gold bars on the table or held.

    Gold bars on a board that does not list the expansion are still scored (the
    table shows the game is played) and reported by :func:`problems`.
    """
    if "goldmines" in board.expansions:
        return True
    return any(s.count for s in board.gold) or any(h.get("gold_bars") for h in board.held.values())


def _gold_left(ctx: ScoringContext) -> dict[Cell, int]:
    """Gold bars still on each tile: the board's minus those handed out in this run.

    Without The Goldmines there are none to hand out.
    """
    if not goldmines(ctx.board):
        return {}
    left = ctx.board.gold_on()
    for a in ctx.report.awards:
        if a.get("token") == "gold":
            for x, y in a["from"]:
                left[(x, y)] = left.get((x, y), 0) - 1
    return {c: n for c, n in left.items() if n > 0}


def _gold_won(ctx: ScoringContext) -> dict[str, int]:
    won: dict[str, int] = {}
    for a in ctx.report.awards:
        if a.get("token") == "gold":
            won[a["player"]] = won.get(a["player"], 0) + a["count"]
    return won


def _score_completed_batch(ctx: ScoringContext, features: list[Feature]) -> None:
    """Score complete features together and hand out the gold on their tiles.

    Every feature with owners scores (:func:`completed_points`) and its followers
    go back; a feature without followers scores nothing and its gold stays.  The
    gold of all features of the batch is shared out in one go: for each tile, the
    union of the owners of every scored feature covering it may take from it, one
    bar at a time clockwise from the active player (seed 001, "Pokud má ... převahu
    společně více hráčů nebo je uzavřeno více částí krajiny zároveň"; ``rules.md``
    sections 4 and 9.4).
    """
    board, graph, report = ctx.board, ctx.graph, ctx.report
    gold = _gold_left(ctx)
    claims: dict[Cell, list[str]] = {}
    for f in features:
        if f.id in ctx.done or f.kind not in SCORING_KINDS or not f.complete:
            continue
        owners = _owners(board, f)
        if not owners:
            on = sum(gold.get(c, 0) for c in _claim_area(graph, f))
            if on:
                report.notes.append(
                    f"the {f.kind} at {cell_text(_cells(f.cells)[0])} is complete but holds no meeple: "
                    f"nobody scores it and its {on} gold bar(s) stay on the board"
                )
            continue
        points, detail = completed_points(board, graph, f)
        report.add_feature(f, owners, points, **detail)
        ctx.done.add(f.id)
        ctx.return_figures(f)
        for c in _claim_area(graph, f):
            if gold.get(c):
                have = claims.setdefault(c, [])
                have.extend(o for o in owners if o not in have)
    if not claims:
        return
    order = ctx.order()
    piles = [(c, gold[c], _seated(board, claims[c])) for c in sorted(claims, key=_cell_key)]
    taken = distribute(piles, order)
    for player in order + [p for p in taken if p not in order]:
        got = taken.get(player)
        if not got:
            continue
        frm = [[c[0], c[1]] for c in sorted(got, key=_cell_key) for _ in range(got[c])]
        report.awards.append({"player": player, "token": "gold", "count": len(frm), "from": frm})
    log.debug("gold handed out: %s", taken)


# --------------------------------------------------------------------------- interface


def score_completed(ctx: ScoringContext) -> None:
    """Score completed features: what ``last_placed`` completed, or every one still occupied.

    ``completed`` mode with ``last_placed``: the features the tile completed
    (:func:`scorer.features.completed_by`), including one a meeple was placed on
    that same turn (``rules.md`` 9.8).  Without ``last_placed``, and always in
    ``final`` mode (the board as it stands after the last tile), every complete
    feature that still holds followers.  The river never scores (seed 004,
    "Samotnou řeku nelze bodovat").

    Parameters
    ----------
    ctx : ScoringContext
        Writes feature entries, points, returned figures and gold awards.
    """
    board, graph = ctx.board, ctx.graph
    if board.last_placed is not None and ctx.report.mode == "completed":
        features = completed_by(graph, board.last_placed)
    else:
        features = [f for f in graph.features if f.complete and f.meeples]
        if ctx.report.mode == "completed":
            ctx.report.notes.append(NO_LAST_TILE_NOTE)
    _score_completed_batch(ctx, features)


def score_final(ctx: ScoringContext) -> None:
    """End-of-game scoring: incomplete features, farms and gold bars.

    Runs after :func:`score_completed`; features in ``ctx.done`` are not scored again.

    Parameters
    ----------
    ctx : ScoringContext
        Writes feature entries (incomplete roads/cities/cloisters, fields), notes
        (removed gold) and extras (each player's gold bars, ``kind`` ``gold_bars``).

    Sources
    -------
    ``rules.md`` section 5 (incomplete features, farm editions), section 3 (inn,
    pig herd), seed 004 (pig herd: "za každé město 1 bod navíc"), seed 001
    ("Závěrečné vyhodnocení": gold left on the board is removed; bars score by
    the table, 102 points + 7 bars = 123).
    """
    board, graph, report = ctx.board, ctx.graph, ctx.report
    # Safety net: anything complete and occupied that score_completed left.
    _score_completed_batch(ctx, [f for f in graph.features if f.complete and f.meeples])
    for f in graph.features:
        if f.id in ctx.done or f.kind not in SCORING_KINDS:
            continue
        owners = _owners(board, f)
        if not owners or f.complete:  # complete and occupied: scored by the batch above
            continue
        points, detail = incomplete_points(graph, f)
        report.add_feature(f, owners, points, **detail)
        ctx.done.add(f.id)
    _score_farms(ctx)
    _score_gold_bars(ctx)


def _score_farms(ctx: ScoringContext) -> None:
    """Farmers at game end, by the ``farmers`` edition switch (``rules.md`` 5 and 9.3).

    * ``3rd`` (current, JCZ): each field scores 3 per distinct completed city it
      borders to its majority farmer(s), 4 with a pig herd on the field (several
      pig herds count once).
    * ``2nd``: as ``3rd``, but a player scores a given city at most once over all
      fields (through the field that pays most: one with a pig herd if any).
    * ``1st``: city-centred; for each completed city the player(s) with most
      farmers across all fields bordering it score 4 (+1 if such a player owns a
      pig-herd field bordering that city: the pig herd pays "the farmer who owns
      the field", seed 004; the seeds do not combine it with 1st-edition farms).
    """
    board, graph, report = ctx.board, ctx.graph, ctx.report
    edition = board.rule("farmers")
    cities = {f.id: f for f in graph.of_kind("city") if f.complete}
    fields = [f for f in graph.of_kind("field") if f.meeples and f.id not in ctx.done]
    if not fields:
        return
    for f in fields:
        ctx.done.add(f.id)
    per_city = CITY_FARM_POINTS[edition]

    def bordered(f: Feature) -> list[Feature]:
        return [cities[c] for c in sorted(f.cities) if c in cities]

    def detail(f: Feature, got: list[Feature]) -> dict[str, Any]:
        return {"cities": len(got), "city_cells": [c.sorted_cells() for c in got],
                "pigherd": f.pigherd, "edition": edition}

    if edition == "3rd":
        for f in fields:
            got = bordered(f)
            points = len(got) * (per_city + (1 if f.pigherd else 0))
            report.add_feature(f, _owners(board, f), points, **detail(f, got))
        return

    if edition == "2nd":
        # Each player's cities go to the field that pays most (pig herd first, then board order).
        assigned: dict[tuple[int, str], list[Feature]] = {}
        best: dict[tuple[str, int], tuple[tuple[bool, int], Feature]] = {}
        for rank, f in enumerate(fields):
            key = (not f.pigherd, rank)
            for player in _owners(board, f):
                for c in bordered(f):
                    if (player, c.id) not in best or key < best[(player, c.id)][0]:
                        best[(player, c.id)] = (key, f)
        for (player, cid), (_, f) in best.items():
            assigned.setdefault((f.id, player), []).append(cities[cid])
        for f in fields:
            groups: dict[tuple[int, ...], list[str]] = {}
            for player in _owners(board, f):
                got = sorted(assigned.get((f.id, player), []), key=lambda c: c.id)
                groups.setdefault(tuple(c.id for c in got), []).append(player)
            for ids, players in groups.items():
                got = [cities[i] for i in ids]
                points = len(got) * (per_city + (1 if f.pigherd else 0))
                report.add_feature(f, players, points, **detail(f, got))
        return

    # 1st edition: city-centred.
    fields_of: dict[int, list[Feature]] = {}
    for f in fields:
        for c in bordered(f):
            fields_of.setdefault(c.id, []).append(f)
    for cid in sorted(fields_of):
        city = cities[cid]
        around_city = fields_of[cid]
        farmers: dict[str, int] = {}
        for f in around_city:
            for colour, n in f.followers().items():
                farmers[colour] = farmers.get(colour, 0) + n
        if not farmers:
            continue
        top = max(farmers.values())
        winners = _seated(board, [c for c, n in farmers.items() if n == top])
        pig = {p for p in winners if any(f.pigherd and p in f.owners() for f in around_city)}
        cells = set().union(*(f.cells for f in around_city))
        for bonus in (True, False):
            players = [p for p in winners if (p in pig) == bonus]
            if not players:
                continue
            entry = {
                "kind": "field",
                "cells": _cells(cells),
                "complete": False,
                "owners": players,
                "points": per_city + (1 if bonus else 0),
                "cities": 1,
                "city_cells": [city.sorted_cells()],
                "pigherd": bonus,
                "edition": edition,
                "farmers": {c: farmers[c] for c in _seated(board, farmers)},
            }
            report.features.append(entry)
            report.add_points(players, entry["points"])


def _score_gold_bars(ctx: ScoringContext) -> None:
    """Remove unclaimed gold, then score each player's bars (held + won now).

    Source: seed 001, "Závěrečné vyhodnocení" (bars left on the board are removed;
    1-3 bars 1 point each, 4-6 2, 7-9 3, 10+ 4).
    """
    board, report = ctx.board, ctx.report
    if not goldmines(board):
        return
    left = _gold_left(ctx)
    if left:
        n = sum(left.values())
        where = ", ".join(f"{x},{y}" for x, y in sorted(left, key=_cell_key))
        report.notes.append(f"{n} unclaimed gold bar(s) removed from the board at game end: {where}")
    won = _gold_won(ctx)
    for player in board.colours() + [p for p in won if p not in board.colours()]:
        bars = board.held.get(player, {}).get("gold_bars", 0) + won.get(player, 0)
        if bars <= 0:
            continue
        points = gold_bar_points(bars)
        report.extras.append({"kind": "gold_bars", "player": player, "bars": bars, "points": points})
        report.add_points([player], points)


# --------------------------------------------------------------------------- problems


def _river_sides(board: Board) -> dict[Cell, tuple[tuple[str, ...], list[tuple[str, ...]]]]:
    """River tiles: cell -> (sides showing river, edges of each river feature)."""
    out = {}
    for cell, p in board.tiles.items():
        o = p.tile.turned(p.rot)
        rivers = [f.edges for f in o.features if f.kind == "river"]
        if rivers:
            out[cell] = (tuple(s for s in SIDES if o.side_kind(s) == "river"), rivers)
    return out


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def foreign_problems(board: Board) -> list[dict[str, Any]]:
    """Pieces that do not belong to this game or its expansions; they are not scored.

    * ``foreign_piece``: tents, the Sheriff and ore tokens (Gold Rush) on a
      Carcassonne board, or ore points held;
    * ``gold_without_goldmines``: gold bars on the tiles or held without The
      Goldmines (seed 001) in ``expansions``.

    Returns
    -------
    list of dict
        ``{"kind", "cell", "message"}``; ``cell`` is ``None`` for what a player holds.
    """
    out: list[dict[str, Any]] = []
    game = "this board is carcassonne (not scored)"
    for t in board.tents:
        out.append(problem("foreign_piece", t.cell, f"the {t.player} tent at {t.at} of tile {t.x},{t.y}: "
                                                    f"tents belong to Gold Rush; {game}"))
    if board.sheriff is not None:
        s = board.sheriff
        out.append(problem("foreign_piece", s.cell, f"the Sheriff at {s.at} of tile {s.x},{s.y}: "
                                                    f"the Sheriff belongs to Gold Rush; {game}"))
    for st in board.ore:
        out.append(problem("foreign_piece", st.cell, f"{_count(st.count, 'ore token')} at {st.at} of tile "
                                                     f"{st.x},{st.y}: ore tokens belong to Gold Rush; {game}"))
    for colour, held in board.held.items():
        ore = {k: v for k, v in held.items() if k in ("ore_points", "ore_tokens") and v}
        if ore:
            what = ", ".join(f"{k} {v}" for k, v in ore.items())
            out.append(problem("foreign_piece", None, f"{colour} holds {what}: ore belongs to Gold Rush; {game}"))
    if "goldmines" not in board.expansions:
        fix = ("add 'goldmines' to the expansions (the game line) or remove them; "
               "they are scored as The Goldmines meanwhile")
        for cell, n in sorted(board.gold_on().items(), key=lambda kv: _cell_key(kv[0])):
            if n:
                out.append(problem("gold_without_goldmines", cell,
                                   f"{_count(n, 'gold bar')} on tile {cell_text(cell)} but the board does not "
                                   f"list The Goldmines; {fix}"))
        for colour, held in board.held.items():
            if held.get("gold_bars"):
                out.append(problem("gold_without_goldmines", None,
                                   f"{colour} holds {_count(held['gold_bars'], 'gold bar')} but the board does "
                                   f"not list The Goldmines; {fix}"))
    return out


def problems(board: Board, graph: FeatureGraph) -> list[dict[str, Any]]:
    """Rule problems of base Carcassonne: pieces of another game, and the river.

    :func:`foreign_problems` first, then the river (seed 004 "Přiložení
    kartičky"; ``rules.md`` 3 and 9.5):

    * ``river_u_turn``: two consecutive river tiles turn the same way, so the
      river comes back on itself ("Není dovoleno na dvou po sobě následujících
      kartičkách řeky zatočit řeku o 180 stupňů"); only the immediate U-turn is
      banned (seed 004, note 14).
    * ``river_joined``: the river closes a loop, i.e. the two branches of a fork
      (or two rivers) join ("Není dovoleno spojit obě ramena řeky").
    * ``two_springs``: more than one spring ("Při spojení dvou sad řeky odeberte
      jeden pramen a jedno jezero").

    A normal tile over an open river end is an edge mismatch, reported by
    :func:`scorer.legality.edge_problems`.

    Returns
    -------
    list of dict
        ``{"kind", "cell", "message", "other"}``; ``cell`` is the later tile of the
        pair as far as the board tells (``last_placed``, else the one further
        from the spring).
    """
    out: list[dict[str, Any]] = foreign_problems(board)
    rivers = _river_sides(board)
    if not rivers:
        return out
    links: list[tuple[Cell, str, Cell]] = []  # (cell, side, neighbour) with river on both sides
    for cell in sorted(rivers, key=_cell_key):
        for side in ("E", "S"):
            other = neighbour(cell, side)
            if other in rivers and side in rivers[cell][0] and OPPOSITE[side] in rivers[other][0]:
                links.append((cell, side, other))
    adj: dict[Cell, list[Cell]] = {c: [] for c in rivers}
    for a, _, b in links:
        adj[a].append(b)
        adj[b].append(a)

    springs = sorted((c for c in rivers if board.tiles[c].tile.river == "spring"), key=_cell_key)
    if board.last_placed in springs:
        springs.remove(board.last_placed)
        springs.append(board.last_placed)
    dist: dict[Cell, int] = {}
    queue = deque()
    for s in springs[:1]:
        dist[s] = 0
        queue.append(s)
    while queue:
        c = queue.popleft()
        for n in adj[c]:
            if n not in dist:
                dist[n] = dist[c] + 1
                queue.append(n)

    def later(a: Cell, b: Cell) -> tuple[Cell, Cell]:
        if board.last_placed in (a, b):
            return (board.last_placed, b if board.last_placed == a else a)
        if dist.get(a, -1) > dist.get(b, -1):
            return (a, b)
        return (b, a)

    for extra in springs[1:]:
        out.append(problem(
            "two_springs", extra,
            f"{len(springs)} river springs on the board ({', '.join(f'{x},{y}' for x, y in springs)}); "
            "the river has one spring (with River I and II together, remove one spring and one lake)",
            springs[0],
        ))

    # U-turns: two adjacent bends whose other river ends face the same way.
    def bend(c: Cell) -> tuple[str, str] | None:
        sides, feats = rivers[c]
        if len(feats) != 1 or len(sides) != 2 or OPPOSITE[sides[0]] == sides[1]:
            return None
        return sides[0], sides[1]

    for a, side, b in links:
        ba, bb = bend(a), bend(b)
        if ba is None or bb is None:
            continue
        end_a = ba[0] if ba[1] == side else ba[1]
        end_b = bb[0] if bb[1] == OPPOSITE[side] else bb[1]
        if end_a == end_b:
            cell, other = later(a, b)
            out.append(problem(
                "river_u_turn", cell,
                f"the river turns the same way on tiles {cell_text(other)} and {cell_text(cell)} "
                "and flows back on itself; two consecutive river tiles may not make a 180-degree turn",
                other,
            ))

    # Joined branches: a link between tiles already connected closes a loop.
    parent: dict[Cell, Cell] = {c: c for c in rivers}

    def find(c: Cell) -> Cell:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    # Links by the later tile (last_placed last, then by distance from the spring),
    # so that the link found to close the loop is the one the last tile made.
    def lateness(link: tuple[Cell, str, Cell]) -> tuple[bool, int]:
        a, _, b = link
        return (board.last_placed in (a, b), max(dist.get(a, -1), dist.get(b, -1)))

    for a, _, b in sorted(links, key=lateness):
        ra, rb = find(a), find(b)
        if ra == rb:
            cell, other = later(a, b)
            out.append(problem(
                "river_joined", cell,
                f"the river joins itself between tiles {cell_text(other)} and {cell_text(cell)}; "
                "the branches of the river may never be joined",
                other,
            ))
        else:
            parent[rb] = ra
    return out
