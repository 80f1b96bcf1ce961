"""Random legal games: boards that look like real play, turn by turn.

:func:`generate_turns` plays a whole game (or its first ``n_tiles`` tiles) by
the rules with simulated players; :func:`generate_history` returns the board
after each turn and :func:`generate_game` the last one.  The boards feed the
renderer (sample photos), the accuracy harness and the game-following code, so
every one of them is a legal table: matching sides, figures only where the rules
allow them, completed features scored and their figures returned, the score
track equal to the sum of what was scored.

One turn (``rules.md`` sections 3-7, seeds 000, 001, 002 and 004):

1. Draw a tile from the box (start tile first; with The River the spring, then
   the River II fork, the other river tiles at random and the lake(s) last, all
   before any normal tile).  It goes where its sides match every neighbour; a
   tile that fits nowhere is discarded and the player draws again.  Among the
   legal placements the player prefers ones that touch more tiles, complete
   features and keep the layout compact (:class:`PlayStyle`).
2. Tokens the tile brings: Goldmines gold bars (one on the tile, one on a tile
   around it), Gold Rush ore tokens (one per nugget symbol, one stack per
   mountain); after a Sheriff star tile the Sheriff moves.
3. The player may put one figure from supply on a free feature of the new tile
   (never on the river); in Gold Rush instead pitch or move the tent, or mine
   one ore token from the mountain of the tent.
4. What the tile completed is scored with :func:`scorer.scoring.score`
   (``completed`` mode): the points go on the track, the figures go back, gold
   bars and ore tokens go to the players (:attr:`Board.held`).

Each :class:`Turn` keeps the table before step 4 (``placed``: the input of
``scorer score`` for that turn) and after it (``board``).

Ore token values are hidden on the table, so the generator keeps the drawn
values aside and writes a player's ``held`` as ``ore_tokens`` (count) and
``ore_points`` (their sum).  The values come from :data:`ORE_TOKENS` (an
assumption, see there).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .board import COLOURS, Board, Figure, Placement, Stack
from .errors import ScorerError
from .features import Feature, FeatureGraph, completed_by
from .geometry import CENTRE, DELTA, OPPOSITE, SIDES, Cell, around, neighbour
from .scoring import Report, rules_module, score
from .tiles import EDGE_KINDS, EXPANSIONS, FIELD_KINDS, GAMES, Catalog, TileSet, TileType, catalog_for

log = logging.getLogger(__name__)

#: Face-down Gold Rush ore tokens by value (nuggets -> tokens in the box).
#: Seed 000 gives 63 tokens worth 1, 2, 3 or 5 nuggets or gravel (0) and, without
#: pictures, the counts 10, 30, 10, 3, 10.  ASSUMPTION: the counts are listed in
#: order of value, gravel first (10 gravel, 30 x 1, 10 x 2, 3 x 3, 10 x 5).
ORE_TOKENS: dict[int, int] = {0: 10, 1: 30, 2: 10, 3: 3, 5: 10}

#: Figures per colour when the rule module does not say (``FIGURES_PER_COLOUR``):
#: 7 followers (``rules.md`` section 2); Gold Rush 4 cowboys and 1 tent (seed 000).
DEFAULT_FIGURES: dict[str, dict[str, int]] = {
    "carcassonne": {"meeples": 7},
    "goldrush": {"meeples": 4, "tents": 1},
}

#: Goldmines gold bars in the box (seed 001: 16 wooden bars).
GOLD_BARS = 16

#: Relative weight of each feature kind as a place for a figure.
FIGURE_KIND_WEIGHT: dict[str, float] = {
    "city": 1.0, "road": 0.7, "cloister": 1.3, "field": 1.0,
    "rail": 0.8, "mountain": 1.0, "town": 1.1, "prairie": 1.0, "cemetery": 0.9,
}


class GenerateError(ScorerError, ValueError):
    """The generator was asked for something it cannot make (unknown game, colour...)."""


@dataclass(frozen=True)
class PlayStyle:
    """How the simulated players choose; every weight is >= 0.

    Attributes
    ----------
    touch : float
        Log-weight per tile a placement touches beyond the first.
    close : float
        Log-weight per feature (road, city, rail, mountain, cloister, cemetery)
        a placement completes.
    close_mine : float
        Further log-weight per completed feature holding the player's own figure.
    extend_mine : float
        Log-weight per incomplete feature of the player's own that the tile extends.
    spread : float
        Log-weight penalty per unit of distance from the centre of the layout,
        the distance measured in radii of a disc with the layout's area: higher
        keeps the layout rounder and more compact.
    figure : float
        Chance that a player with a full supply of figures and a free feature
        places one; it falls to ``0.4 * figure`` with the last figure in supply.
    farmer : float
        Weight of a field or prairie relative to the other features; it grows to
        ``2 * farmer`` by the end of the box (farmers come late in real play).
    camp : float
        Gold Rush: weight of pitching or moving the tent towards ore tokens.
    mine : float
        Gold Rush: weight of mining when the tent stands on ore tokens.
    """

    touch: float = 1.1
    close: float = 1.0
    close_mine: float = 4.0
    extend_mine: float = 1.5
    spread: float = 1.5
    figure: float = 0.8
    farmer: float = 0.15
    camp: float = 0.5
    mine: float = 1.5


@dataclass
class Turn:
    """One turn of a generated game.

    Attributes
    ----------
    number : int
        1 for the first turn after the start tile.
    player : str
        The active player.
    cell : (int, int)
        Where the tile went.
    tile : str
        Its catalogue id.
    discarded : list of str
        Tiles drawn before it this turn that fitted nowhere (``rules.md`` section 3,
        seed 000 "Pokud výjimečně nelze kartičku nikam přiložit, vyřaďte ji").
    placed : Board
        The table with the tile and the turn's figure, tent, tokens and Sheriff,
        before the turn's scoring: ``score(placed, "completed")`` gives ``report``.
    report : Report or None
        What the tile completed (``None`` when it completed nothing).
    board : Board
        The table at the end of the turn: points on the track, figures returned,
        gold bars / ore tokens handed out.
    """

    number: int
    player: str
    cell: Cell
    tile: str
    discarded: list[str]
    placed: Board
    report: Report | None
    board: Board


@dataclass
class GeneratedGame:
    """A generated game: the table at the end and every turn that led there.

    Attributes
    ----------
    board : Board
        The table at the end of the last turn (the set-up when no turn was played).
    turns : list of Turn
        Empty when only the start tile was asked for, or when the turns were not kept.
    """

    board: Board
    turns: list[Turn]


# --------------------------------------------------------------------------- public API


def play_game(
    game: str = "carcassonne",
    expansions: Sequence[str] = (),
    *,
    players: Sequence[str] = ("red", "blue"),
    n_tiles: int | None = None,
    rng: np.random.Generator,
    tile_sets: Iterable[str | Path | TileSet] = (),
    style: PlayStyle | None = None,
    keep_turns: bool = True,
) -> GeneratedGame:
    """Play a random legal game; the final table and (with ``keep_turns``) every turn.

    Parameters are those of :func:`generate_turns`, plus ``keep_turns`` (False:
    do not copy the table at every turn, a little faster).

    Returns
    -------
    GeneratedGame
    """
    sim = _Game(game, expansions, players, rng, tile_sets, style or PlayStyle(), keep=keep_turns)
    sim.play(n_tiles)
    return GeneratedGame(sim.board, sim.turns)


def generate_turns(
    game: str = "carcassonne",
    expansions: Sequence[str] = (),
    *,
    players: Sequence[str] = ("red", "blue"),
    n_tiles: int | None = None,
    rng: np.random.Generator,
    tile_sets: Iterable[str | Path | TileSet] = (),
    style: PlayStyle | None = None,
) -> list[Turn]:
    """Play a random legal game and return every turn.

    Parameters
    ----------
    game : {"carcassonne", "goldrush"}
    expansions : sequence of str
        ``river``, ``goldmines`` (carcassonne) or ``sheriff`` (goldrush).
    players : sequence of str
        Colours in turn order (``scorer.board.COLOURS``); the first one plays first.
    n_tiles : int, optional
        Stop when this many tiles lie on the table, start tile included
        (mid-game); ``None`` plays the whole box (end of game, before the final
        scoring).
    rng : numpy.random.Generator
        Every random choice; the same seed gives the same game.
    tile_sets : iterable of path or TileSet
        User tile sets added to the built-in catalogue (their ids replace
        built-in ones; their counts are the box).
    style : PlayStyle, optional
        How the players choose (default :class:`PlayStyle`).

    Returns
    -------
    list of Turn
        One per placed tile after the start tile (``n_tiles - 1`` turns, fewer
        when the box runs out).

    Raises
    ------
    GenerateError
        Unknown game, expansion or colour, a repeated colour, no players,
        ``n_tiles`` below 1, no start tile in the catalogue, ``rng`` not a
        ``numpy.random.Generator``.
    """
    return play_game(game, expansions, players=players, n_tiles=n_tiles, rng=rng, tile_sets=tile_sets,
                     style=style).turns


def generate_history(
    game: str = "carcassonne",
    expansions: Sequence[str] = (),
    *,
    players: Sequence[str] = ("red", "blue"),
    n_tiles: int | None = None,
    rng: np.random.Generator,
    tile_sets: Iterable[str | Path | TileSet] = (),
    style: PlayStyle | None = None,
    scored: bool = True,
) -> list[Board]:
    """The board after each turn of a random legal game.

    Parameters are those of :func:`generate_turns`, plus:

    scored : bool
        ``True`` (default): each board is the table at the end of its turn
        (completed features scored, their figures back in supply).  ``False``:
        the table before the turn's scoring (:attr:`Turn.placed`), which
        ``scorer score`` reads in ``completed`` mode.

    Returns
    -------
    list of Board
        ``history[i]`` is the table after turn ``i + 1``; its ``active`` and
        ``last_placed`` name that turn's player and tile.
    """
    turns = generate_turns(game, expansions, players=players, n_tiles=n_tiles, rng=rng,
                           tile_sets=tile_sets, style=style)
    return [t.board if scored else t.placed for t in turns]


def generate_game(
    game: str = "carcassonne",
    expansions: Sequence[str] = (),
    *,
    players: Sequence[str] = ("red", "blue"),
    n_tiles: int | None = None,
    rng: np.random.Generator,
    tile_sets: Iterable[str | Path | TileSet] = (),
    style: PlayStyle | None = None,
) -> Board:
    """A random legal board: the table at the end of the last turn played.

    Parameters are those of :func:`generate_turns`.  With ``n_tiles`` None the
    whole box is played: the board is ready for the final scoring
    (``score(board, "final")``).  With ``n_tiles`` 1 it holds the start tile only.

    Returns
    -------
    Board
        ``active`` and ``last_placed`` are the last turn's player and tile;
        ``players`` is the turn order; ``track`` the points scored so far.
    """
    return play_game(game, expansions, players=players, n_tiles=n_tiles, rng=rng, tile_sets=tile_sets,
                     style=style, keep_turns=False).board


# --------------------------------------------------------------------------- helpers


def _pick(rng: np.random.Generator, weights: Sequence[float]) -> int:
    """Index drawn with probability proportional to ``weights`` (not all zero)."""
    cum = np.cumsum(np.asarray(weights, dtype=float))
    i = int(np.searchsorted(cum, rng.random() * cum[-1], side="right"))
    return min(i, len(cum) - 1)


def _snapshot(b: Board) -> Board:
    """An independent copy of a board sharing only the (read-only) tile types."""
    return Board(
        game=b.game, expansions=list(b.expansions), rules=dict(b.rules), players=list(b.players),
        active=b.active, last_placed=b.last_placed,
        tiles={c: Placement(p.x, p.y, p.tile, p.rot) for c, p in b.tiles.items()},
        meeples=[Figure(m.player, m.x, m.y, m.at) for m in b.meeples],
        gold=[Stack(s.x, s.y, s.count) for s in b.gold],
        tents=[Figure(t.player, t.x, t.y, t.at) for t in b.tents],
        sheriff=None if b.sheriff is None else Figure(None, b.sheriff.x, b.sheriff.y, b.sheriff.at),
        ore=[Stack(s.x, s.y, s.count, s.at) for s in b.ore],
        held={c: dict(v) for c, v in b.held.items()},
        track=dict(b.track),
        catalog=b.catalog,
    )


def _turn_of(heading: str, exit_side: str) -> int:
    """River turn when flowing ``heading`` and leaving by ``exit_side``: 0 straight, 1 right, -1 left."""
    d = (SIDES.index(exit_side) - SIDES.index(heading)) % 4
    return {0: 0, 1: 1, 3: -1}.get(d, 2)


def _ahead_cells(cell: Cell, side: str) -> list[Cell]:
    """The 6 cells of an open river end's look-ahead (see :func:`_ahead_level`)."""
    dx, dy = DELTA[side]
    px, py = DELTA[SIDES[(SIDES.index(side) + 1) % 4]]
    out = []
    for k in (1, 2):
        cx, cy = cell[0] + k * dx, cell[1] + k * dy
        out += [(cx, cy), (cx + px, cy + py), (cx - px, cy - py)]
    return out


def _ahead_level(occupied, reserved, cell: Cell, side: str) -> int:
    """How free the way ahead of an open river end is: 0 (blocked) to 3 (clear).

    3 is JCZ's look-ahead (``rules.md`` section 3: "the next cell, its two side
    neighbours, the cell after that and that cell's two side neighbours must all
    be empty"); 2 when only the next cell and its side cells are free; 1 when only
    the next cell is; 0 when it is taken.  ``reserved`` holds the next cells of
    the other open ends, which count as taken so that branches do not meet.
    """
    dx, dy = DELTA[side]
    px, py = DELTA[SIDES[(SIDES.index(side) + 1) % 4]]
    n1 = (cell[0] + dx, cell[1] + dy)
    if n1 in occupied or n1 in reserved:
        return 0
    level = 1
    for k in (1, 2):
        cx, cy = cell[0] + k * dx, cell[1] + k * dy
        cells = ((cx + px, cy + py), (cx - px, cy - py)) if k == 1 else ((cx, cy), (cx + px, cy + py),
                                                                          (cx - px, cy - py))
        if any(c in occupied or c in reserved for c in cells):
            return level
        level += 1
    return level


class _Tracker:
    """Edge features joined so far, with their open sides: tells cheaply what a placement completes."""

    def __init__(self) -> None:
        self.parent: dict[tuple[Cell, int], tuple[Cell, int]] = {}
        self.open: dict[tuple[Cell, int], int] = {}

    def find(self, k: tuple[Cell, int]) -> tuple[Cell, int]:
        parent = self.parent
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    def _links(self, tiles, cell: Cell, o) -> list[tuple[int, tuple[Cell, int]]]:
        out = []
        for i, f in enumerate(o.features):
            if f.kind not in EDGE_KINDS:
                continue
            for e in f.edges:
                other = neighbour(cell, e)
                p = tiles.get(other)
                if p is not None:
                    j = p.tile.turned(p.rot).side.get(OPPOSITE[e])
                    if j is not None:
                        out.append((i, self.find((other, j))))
        return out

    def add(self, tiles, cell: Cell, tile: TileType, rot: int) -> None:
        """Record a placed tile (call before or after putting it in ``tiles``)."""
        o = tile.turned(rot)
        links = self._links(tiles, cell, o)
        for i, f in enumerate(o.features):
            if f.kind in EDGE_KINDS:
                self.parent[(cell, i)] = (cell, i)
                self.open[(cell, i)] = len(f.edges)
        for i, root in links:
            a, b = self.find((cell, i)), self.find(root)
            if a != b:
                self.parent[b] = a
                self.open[a] += self.open.pop(b)
        for i, _ in links:
            self.open[self.find((cell, i))] -= 2

    def closes(self, tiles, cell: Cell, tile: TileType, rot: int, mine=frozenset()) -> tuple[int, int, int]:
        """What placing the tile would do to features (rivers aside).

        Parameters
        ----------
        tiles : dict cell -> Placement
            The table (without the tile).
        cell, tile, rot
            The placement.
        mine : set
            Roots (:meth:`find`) of edge features and cells of centre features
            holding the active player's figures.

        Returns
        -------
        closed : int
            Features the placement completes.
        closed_mine : int
            Of those, features holding the active player's figures.
        extended_mine : int
            Incomplete features of the active player it adds a tile to.
        """
        o = tile.turned(rot)
        links = self._links(tiles, cell, o)
        # Group the tile's features with the board features they join.
        group: dict[Any, Any] = {}

        def gfind(k):
            while group.setdefault(k, k) != k:
                k = group[k]
            return k

        for i, root in links:
            a, b = gfind(("t", i)), gfind(root)
            if a != b:
                group[b] = a
        totals: dict[Any, int] = {}
        kinds: dict[Any, str] = {}
        owned: dict[Any, bool] = {}
        for i, f in enumerate(o.features):
            if f.kind in EDGE_KINDS:
                g = gfind(("t", i))
                totals[g] = totals.get(g, 0) + len(f.edges)
                kinds[g] = f.kind
                owned.setdefault(g, False)
        seen_roots = set()
        for i, root in links:
            g = gfind(("t", i))
            if root not in seen_roots:
                seen_roots.add(root)
                totals[g] += self.open[root]
                owned[g] = owned[g] or root in mine
            totals[g] -= 2
        closed = closed_mine = extended = 0
        for g, t in totals.items():
            if kinds[g] == "river":
                continue
            if t == 0:
                closed += 1
                closed_mine += owned[g]
            elif owned[g]:
                extended += 1
        # Cloisters and cemeteries: this tile's own, and those around it.
        if o.centre is not None and o.features[o.centre].kind in ("cloister", "cemetery"):
            if all(c in tiles for c in around(cell)):
                closed += 1
        for c in around(cell):
            p = tiles.get(c)
            if p is None:
                continue
            oc = p.tile.turned(p.rot)
            if oc.centre is not None and oc.features[oc.centre].kind in ("cloister", "cemetery"):
                if c in mine:
                    extended += 1
                if all(d in tiles or d == cell for d in around(c)):
                    closed += 1
                    closed_mine += c in mine
        return closed, closed_mine, extended


# --------------------------------------------------------------------------- the game


class _Game:
    """State of one generated game (see the module docstring for the turn)."""

    def __init__(self, game, expansions, players, rng, tile_sets, style: PlayStyle, *, keep: bool) -> None:
        if not isinstance(rng, np.random.Generator):
            raise GenerateError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {rng!r}")
        if game not in GAMES:
            raise GenerateError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
        exps = list(dict.fromkeys(expansions))
        for e in exps:
            if e not in EXPANSIONS[game]:
                raise GenerateError(
                    f"unknown expansion {e!r} for {game}; known: {', '.join(EXPANSIONS[game]) or 'none'}")
        players = list(players)
        if not players:
            raise GenerateError("players: give at least one colour, e.g. red,blue")
        for p in players:
            if p not in COLOURS:
                raise GenerateError(f"players: unknown colour {p!r}; colours are {', '.join(COLOURS)}")
        if len(set(players)) != len(players):
            raise GenerateError(f"players: a colour is listed twice in {players!r}")
        self.rng = rng
        self.style = style
        self.keep = keep
        self.game = game
        self.players = players
        catalog = catalog_for(game, exps, list(tile_sets))
        self.board = Board(game=game, expansions=exps, players=list(players), catalog=catalog,
                           track={p: 0 for p in players})
        try:
            module = rules_module(game)
            limits = dict(getattr(module, "FIGURES_PER_COLOUR", {}) or {})
        except ScorerError:  # pragma: no cover - every game has a rule module
            limits = {}
        self.limits = {**DEFAULT_FIGURES[game], **limits}
        self.tracker = _Tracker()
        self.frontier: dict[Cell, None] = {}
        self.sigs: dict[tuple[int, int], tuple[str, ...]] = {}
        self.river_ends: dict[tuple[Cell, str], int] = {}
        self.ore_bag: list[int] = []
        self.ore_values: dict[tuple[int, int, str], list[int]] = {}
        self.gold_supply = GOLD_BARS
        self.turns: list[Turn] = []
        self._build_box(catalog)

    # ------------------------------------------------------------------ box
    def _build_box(self, catalog: Catalog) -> None:
        """Start tile, river queue and shuffled normal tiles.

        Without the river the start tile is the tile marked ``start`` (one copy of
        its count).  With the river (``rules.md`` section 3, seed 004) one spring
        is the start tile ("Startovní kartička ze základní hry není potřeba": the
        base start tile is then an ordinary tile among the others), the fork
        comes right after it, the other river tiles in random order, the lake(s)
        last; when River I and II are played together the River I lake stays in
        the box.
        """
        rng = self.rng
        counts = {tid: catalog.box_count(tid) for tid in catalog.tiles}
        river = {role: [] for role in ("spring", "fork", "river", "lake")}
        normal: list[TileType] = []
        for tid, t in catalog.tiles.items():
            n = counts[tid]
            if t.river in river:
                river[t.river].extend([t] * n)
            else:
                normal.extend([t] * n)
        self.river_queue: list[TileType] = []
        if river["spring"]:
            # One river: one spring; with River I and II together the River I lake goes
            # back in the box (rules.md section 3; JCZ <remove tile="RI.1/I.e">).
            start = river["spring"][int(rng.integers(len(river["spring"])))]
            lakes = river["lake"]
            if len({t.meta.get("set") for t in lakes}) > 1:
                lakes = [t for t in lakes if t.meta.get("set") != "river1"]
            middle = river["river"]
            order = rng.permutation(len(middle))
            lake_order = rng.permutation(len(lakes))
            self.river_queue = river["fork"] + [middle[i] for i in order] + [lakes[i] for i in lake_order]
            self.start_rot = int(rng.integers(4))
        else:
            if river["river"] or river["lake"] or river["fork"]:
                log.warning("river tiles without a spring in the catalogue: they are left in the box")
            starts = [t for t in normal if t.meta.get("start", 0)]
            if not starts:
                raise GenerateError(
                    f"no start tile in the {self.game} catalogue: mark one tile with \"start\": 1 in its tile set")
            start = starts[0]
            normal.remove(start)
            self.start_rot = 0
        self.start = start
        order = rng.permutation(len(normal))
        self.bag = [normal[i] for i in order]
        if self.game == "goldrush":
            values = [v for v, n in ORE_TOKENS.items() for _ in range(n)]
            self.ore_bag = [values[i] for i in rng.permutation(len(values))]

    # ------------------------------------------------------------------ geometry
    def sig(self, tile: TileType, rot: int) -> tuple[str, ...]:
        key = (id(tile), rot)
        s = self.sigs.get(key)
        if s is None:
            s = self.sigs[key] = tile.edge_signature(rot)
        return s

    def _put(self, cell: Cell, tile: TileType, rot: int) -> None:
        tiles = self.board.tiles
        self.tracker.add(tiles, cell, tile, rot)
        tiles[cell] = Placement(cell[0], cell[1], tile, rot)
        self.frontier.pop(cell, None)
        for s in SIDES:
            n = neighbour(cell, s)
            if n not in tiles:
                self.frontier[n] = None

    def _needs(self, cell: Cell) -> tuple[str | None, ...]:
        """Kind each side of ``cell`` must show to match its neighbours (``None``: no neighbour)."""
        tiles = self.board.tiles
        out = []
        for i, s in enumerate(SIDES):
            p = tiles.get(neighbour(cell, s))
            out.append(None if p is None else self.sig(p.tile, p.rot)[(i + 2) % 4])
        return tuple(out)

    def _fits(self, cell: Cell, sig: tuple[str, ...]) -> bool:
        """Whether a tile showing ``sig`` (kinds N, E, S, W) matches every neighbour of ``cell``."""
        return all(n is None or n == k for n, k in zip(self._needs(cell), sig))

    # ------------------------------------------------------------------ placement
    def _owned_roots(self, player: str) -> set:
        """Tracker roots / centre cells of the features holding ``player``'s figures."""
        out: set = set()
        for m in self.board.meeples:
            if m.player != player:
                continue
            p = self.board.tiles[m.cell]
            o = p.tile.turned(p.rot)
            i = o.locate(m.at)
            if i is None:
                continue
            kind = o.features[i].kind
            if kind in EDGE_KINDS:
                out.add(self.tracker.find((m.cell, i)))
            elif kind in ("cloister", "cemetery"):
                out.add(m.cell)
        return out

    def _normal_placements(self, tile: TileType, player: str) -> tuple[list[tuple[Cell, int]], list[float]]:
        """Legal placements of a normal tile and their preference weights (:class:`PlayStyle`)."""
        tiles = self.board.tiles
        style = self.style
        mine = self._owned_roots(player)
        count = len(tiles)
        cx = sum(c[0] for c in tiles) / count
        cy = sum(c[1] for c in tiles) / count
        radius = max(1.0, math.sqrt(count / math.pi))
        options: list[tuple[Cell, int]] = []
        logw: list[float] = []
        sigs = [self.sig(tile, rot) for rot in range(4)]
        for cell in self.frontier:
            needs = self._needs(cell)
            touching = sum(1 for n in needs if n is not None)
            dist = math.hypot(cell[0] - cx, cell[1] - cy) / radius
            base = style.touch * (touching - 1) - style.spread * dist
            for rot, sig in enumerate(sigs):
                if not all(n is None or n == k for n, k in zip(needs, sig)):
                    continue
                closed, closed_mine, extended = self.tracker.closes(tiles, cell, tile, rot, mine)
                options.append((cell, rot))
                logw.append(base + style.close * closed + style.close_mine * closed_mine
                            + style.extend_mine * extended)
        if not options:
            return options, []
        top = max(logw)
        return options, [math.exp(w - top) for w in logw]

    def _river_fits(self, tile: TileType, ecell: Cell, eside: str, prev: int) -> list[tuple[int, dict[str, int]]]:
        """Rotations in which ``tile`` legally continues the open river end ``(ecell, eside)``.

        Rules (``rules.md`` section 3, seed 004): the tile's river meets the open
        end and every side matches its neighbour; its other river sides face empty
        cells (branches never join); the river never turns the same way on two
        consecutive tiles (no U-turn).

        Returns
        -------
        list of (rot, turns)
            ``turns`` maps each new open river side to its turn (0 straight,
            1 right, -1 left).
        """
        tiles = self.board.tiles
        cell = neighbour(ecell, eside)
        out: list[tuple[int, dict[str, int]]] = []
        if cell in tiles:
            return out
        entry = SIDES.index(OPPOSITE[eside])
        for rot in range(4):
            sig = self.sig(tile, rot)
            if sig[entry] != "river" or not self._fits(cell, sig):
                continue
            exits = [s for i, s in enumerate(SIDES) if sig[i] == "river" and i != entry]
            if any(neighbour(cell, s) in tiles for s in exits):
                continue
            turns = {s: _turn_of(eside, s) for s in exits}
            if any(t != 0 and t == prev for t in turns.values()):
                continue
            out.append((rot, turns))
        return out

    def _river_placements(self, tile: TileType) -> list[tuple[Cell, int, dict]]:
        """Legal placements of a river tile, each with the open ends after it and how promising it is.

        ``info["rank"]`` orders them, best last: whether every open end after the
        placement can still take one of the river tiles left to draw, the worst
        :func:`_ahead_level` over the open ends (capped at 2), fewer city and road
        sides facing the way ahead of the open ends, how many of the river tiles
        left fit the worst end, then the uncapped level.  A placement
        that strands a branch makes later river tiles fit nowhere.
        """
        tiles = self.board.tiles
        kinds: dict[str, list] = {}
        for t in self.river_queue:
            kinds.setdefault(t.id, [t, 0])[1] += 1
        out = []
        for (ecell, eside), prev in self.river_ends.items():
            cell = neighbour(ecell, eside)
            for rot, turns in self._river_fits(tile, ecell, eside, prev):
                occupied = set(tiles)
                occupied.add(cell)
                ends = {k: v for k, v in self.river_ends.items() if k != (ecell, eside)}
                for s, t in turns.items():
                    ends[(cell, s)] = t
                ahead = {k: neighbour(*k) for k in ends}
                levels = [_ahead_level(occupied, [n for j, n in ahead.items() if j != k], *k) for k in ends]
                fit = len(self.river_queue)
                if kinds and ends:
                    tiles[cell] = Placement(cell[0], cell[1], tile, rot)
                    try:
                        fit = min(sum(n for t, n in kinds.values() if self._river_fits(t, c, s, v))
                                  for (c, s), v in ends.items())
                    finally:
                        del tiles[cell]
                level = min(levels, default=3)
                # City and road sides facing the way ahead of a river end narrow
                # down the river tiles that can go there later.
                region = {c for k in ends for c in _ahead_cells(*k)}
                sig = self.sig(tile, rot)
                hard = sum(1 for i, side in enumerate(SIDES)
                           if sig[i] not in ("field", "river") and neighbour(cell, side) in region)
                out.append((cell, rot, {"ends": ends, "rank": (fit > 0, min(level, 2), -hard, fit, level)}))
        return out

    def _place(self, tile: TileType, player: str) -> Cell | None:
        """Put ``tile`` somewhere legal (chosen by :class:`PlayStyle`), or return None."""
        rng = self.rng
        if tile.river is not None:
            opts = self._river_placements(tile)
            if not opts:
                return None
            pool = opts
            if any(t.river == "river" for t in self.river_queue):
                # Keep the river open while river tiles remain.
                pool = [o for o in pool if o[2]["ends"]] or pool
            best = max(o[2]["rank"] for o in pool)
            pool = [o for o in pool if o[2]["rank"] == best]
            cell, rot, info = pool[int(rng.integers(len(pool)))]
            self._put(cell, tile, rot)
            self.river_ends = info["ends"]
            return cell
        options, weights = self._normal_placements(tile, player)
        if not options:
            return None
        cell, rot = options[_pick(rng, weights)]
        self._put(cell, tile, rot)
        return cell

    # ------------------------------------------------------------------ play
    def play(self, n_tiles: int | None) -> None:
        if n_tiles is not None and (isinstance(n_tiles, bool) or not isinstance(n_tiles, (int, np.integer))
                                    or n_tiles < 1):
            raise GenerateError(f"n_tiles must be a whole number of tiles >= 1 (start tile included), got {n_tiles!r}")
        board = self.board
        self._put((0, 0), self.start, self.start_rot)
        if self.start.river is not None:
            o = self.start.turned(self.start_rot)
            self.river_ends = {((0, 0), s): 0 for s in SIDES if o.side_kind(s) == "river"}
        if self.game == "goldrush":
            self._start_ore()
        seat = 0
        extra_turn = False
        while n_tiles is None or len(board.tiles) < n_tiles:
            player = self.players[seat % len(self.players)]
            discarded: list[str] = []
            cell = None
            tile = None
            while cell is None:
                tile = self._draw()
                if tile is None:
                    break
                cell = self._place(tile, player)
                if cell is None:
                    discarded.append(tile.id)
                    log.debug("tile %s fits nowhere: discarded", tile.id)
            if cell is None:
                break
            extra_turn = self._turn(player, cell, tile, discarded)
            if not extra_turn:
                seat += 1
        log.info("generated %s game: %d tiles, %d turns", self.game, len(board.tiles), len(self.turns))

    def _draw(self) -> TileType | None:
        if self.river_queue:
            return self.river_queue.pop(0)
        if self.bag:
            return self.bag.pop()
        return None

    def _turn(self, player: str, cell: Cell, tile: TileType, discarded: list[str]) -> bool:
        """Tokens, figure, scoring for the tile just put on ``cell``; True if the player plays again."""
        board = self.board
        graph = FeatureGraph(board)
        if tile.gold and "goldmines" in board.expansions:
            self._gold(cell)
        if self.game == "goldrush":
            self._ore(graph, cell)
            if tile.sheriff and "sheriff" in board.expansions:
                self._sheriff(graph, player)
        # The River II volcano lake, told by its id or name (seed 004: no meeple on it,
        # "Následně tento hráč provede ihned další tah").
        volcano = tile.river == "lake" and "volcano" in f"{tile.id} {tile.meta.get('name', '')}".lower()
        if self.game == "goldrush":
            self._goldrush_action(graph, player, cell)
        elif not volcano:
            self._figure(graph, player, cell)
        board.active = player
        board.last_placed = cell
        placed = _snapshot(board) if self.keep else None
        report = None
        if completed_by(graph, cell):
            report = score(board, "completed")
            self._apply(report, graph)
            if placed is not None:
                report.board = placed  # the table that was scored, not the live one
        if self.game == "goldrush":
            self._clear_complete_mountains(graph)
        if self.keep:
            self.turns.append(Turn(len(self.turns) + 1, player, cell, tile.id, discarded, placed, report,
                                   _snapshot(board)))
        # Seed 004 (River II volcano): whoever places it plays another turn at once.
        return volcano

    # ------------------------------------------------------------------ figures
    def _supply(self, player: str, key: str = "meeples") -> int:
        figures = getattr(self.board, key)
        return self.limits.get(key, 0) - sum(1 for f in figures if f.player == player)

    def _figure_options(self, graph: FeatureGraph, cell: Cell) -> tuple[list[tuple[str, Feature]], list[float]]:
        """Free features of the new tile a figure may take, with preference weights.

        A figure goes only on the tile just placed, on a feature (after joining)
        that holds no figure, never on the river (seed 000 step 2a, seed 004
        "Přímo na samotnou řeku družiníka umístit nelze"; ``rules.md`` section 5).
        """
        p = self.board.tiles[cell]
        o = p.tile.turned(p.rot)
        progress = len(self.board.tiles) / max(1, len(self.board.tiles) + len(self.bag))
        options: list[tuple[str, Feature]] = []
        weights: list[float] = []
        seen: set[int] = set()
        for i, spec in enumerate(o.features):
            f = graph.feature_of(cell, i)
            if f.id in seen or f.kind == "river" or f.meeples:
                continue
            seen.add(f.id)
            if spec.kind in EDGE_KINDS or spec.kind in FIELD_KINDS:
                at = spec.edges[int(self.rng.integers(len(spec.edges)))]
            else:
                at = CENTRE
            w = FIGURE_KIND_WEIGHT.get(f.kind, 1.0)
            if f.kind in FIELD_KINDS:
                w *= self.style.farmer * 3 * progress ** 2 * (1 + 0.5 * len(f.cities) + f.camps + 2 * f.horses)
            elif f.complete:
                w *= 4.0  # scores at once and comes straight back
            elif f.kind in ("cloister", "cemetery"):
                w *= 0.5 + 0.25 * graph.neighbours_present(f)
            else:  # nearly closed features come back soon
                w *= (1 + 0.1 * min(len(f.cells), 10) + 0.3 * (f.pennants + f.nuggets)) * 3 / (1 + f.open_sides)
            options.append((at, f))
            weights.append(w)
        return options, weights

    def _figure_rate(self, player: str) -> float:
        """Chance to place a figure given the player's supply (:attr:`PlayStyle.figure`)."""
        limit = max(1, self.limits.get("meeples", 1))
        return self.style.figure * (0.4 + 0.6 * (self._supply(player) - 1) / max(1, limit - 1))

    def _figure(self, graph: FeatureGraph, player: str, cell: Cell) -> bool:
        """Maybe put one of the player's figures from supply on the new tile."""
        if self._supply(player) <= 0:
            return False
        options, weights = self._figure_options(graph, cell)
        if not options or self.rng.random() >= self._figure_rate(player):
            return False
        at, f = options[_pick(self.rng, weights)]
        m = Figure(player, cell[0], cell[1], at)
        self.board.meeples.append(m)
        f.meeples.append(m)
        return True

    # ------------------------------------------------------------------ gold
    def _gold(self, cell: Cell) -> None:
        """Goldmines: one bar on the gold tile, one on a placed tile around it (seed 001)."""
        board = self.board
        targets = [cell]
        nearby = [c for c in around(cell) if c in board.tiles]
        if nearby:
            targets.append(nearby[int(self.rng.integers(len(nearby)))])
        for c in targets:
            if self.gold_supply <= 0:
                break
            self.gold_supply -= 1
            for s in board.gold:
                if s.cell == c:
                    s.count += 1
                    break
            else:
                board.gold.append(Stack(c[0], c[1], 1))

    # ------------------------------------------------------------------ Gold Rush
    def _draw_ore(self, n: int) -> list[int]:
        out = []
        while n > 0 and self.ore_bag:
            out.append(self.ore_bag.pop())
            n -= 1
        return out

    def _return_ore(self, values: list[int]) -> None:
        """Tokens back to the supply, which is shuffled (seed 002)."""
        if values:
            self.ore_bag.extend(values)
            self.ore_bag = [self.ore_bag[i] for i in self.rng.permutation(len(self.ore_bag))]

    def _stacks_on(self, graph: FeatureGraph, f: Feature) -> list[Stack]:
        return [s for s in self.board.ore if graph.locate(s.cell, s.at) is f]

    def _key(self, s: Stack) -> tuple[int, int, str]:
        return (s.x, s.y, s.at)

    def _add_ore(self, graph: FeatureGraph, cell: Cell, index: int, values: list[int]) -> None:
        """Put tokens on the mountain of piece ``index`` of ``cell``, merging its stacks into one."""
        board = self.board
        f = graph.feature_of(cell, index)
        stacks = self._stacks_on(graph, f)
        if stacks:
            first = stacks[0]
            pile = self.ore_values[self._key(first)]
            for s in stacks[1:]:
                pile.extend(self.ore_values.pop(self._key(s)))
                first.count += s.count
                board.ore.remove(s)
            pile.extend(values)
            first.count += len(values)
        elif values:
            p = board.tiles[cell]
            spec = p.tile.turned(p.rot).features[index]
            s = Stack(cell[0], cell[1], len(values), spec.edges[0])
            board.ore.append(s)
            self.ore_values[self._key(s)] = list(values)

    def _start_ore(self) -> None:
        """Set-up: 1 ore token on the start tile's mountain (seed 000, "Příprava hry")."""
        graph = FeatureGraph(self.board)
        p = self.board.tiles[(0, 0)]
        for i, spec in enumerate(p.tile.turned(p.rot).features):
            if spec.kind == "mountain":
                self._add_ore(graph, (0, 0), i, self._draw_ore(1))
                break

    def _ore(self, graph: FeatureGraph, cell: Cell) -> None:
        """As many ore tokens as nugget symbols on the new tile's mountain, one stack per mountain (seed 000)."""
        p = self.board.tiles[cell]
        for i, spec in enumerate(p.tile.turned(p.rot).features):
            if spec.kind == "mountain":
                self._add_ore(graph, cell, i, self._draw_ore(spec.get("nuggets", 0)))

    def _mountain_part(self, cell: Cell, index: int) -> str:
        p = self.board.tiles[cell]
        return p.tile.turned(p.rot).features[index].edges[0]

    def _sheriff_feature(self, graph: FeatureGraph) -> Feature | None:
        sh = self.board.sheriff
        return None if sh is None else graph.locate(sh.cell, sh.at)

    def _sheriff(self, graph: FeatureGraph, player: str) -> None:
        """Move the Sheriff to another incomplete mountain; tents of others lose a token (seed 002)."""
        board = self.board
        here = self._sheriff_feature(graph)
        mountains = [f for f in graph.of_kind("mountain") if not f.complete and f is not here]
        if not mountains:
            board.sheriff = None
            return
        weights = []
        for f in mountains:
            tokens = sum(s.count for s in self._stacks_on(graph, f))
            rivals = sum(1 for t in f.tents if t.player != player)
            weights.append(1.0 + tokens * (1 + 2 * rivals))
        f = mountains[_pick(self.rng, weights)]
        cell, index = f.parts[int(self.rng.integers(len(f.parts)))]
        board.sheriff = Figure(None, cell[0], cell[1], self._mountain_part(cell, index))
        stacks = self._stacks_on(graph, f)
        for t in f.tents:
            if t.player == player or not stacks:
                continue
            s = stacks[0]
            pile = self.ore_values[self._key(s)]
            self._return_ore([pile.pop()])
            s.count -= 1
            if s.count == 0:
                board.ore.remove(s)
                del self.ore_values[self._key(s)]
                stacks = self._stacks_on(graph, f)

    def _goldrush_action(self, graph: FeatureGraph, player: str, cell: Cell) -> None:
        """Exactly one of: cowboy on the new tile, pitch/move the tent, mine a token, nothing (seed 000 step 2)."""
        board, rng, style = self.board, self.rng, self.style
        choices: list[tuple[str, Any]] = []
        weights: list[float] = []
        if self._supply(player) > 0:
            options, w = self._figure_options(graph, cell)
            if options:
                choices.append(("cowboy", (options, w)))
                rate = self._figure_rate(player)
                weights.append(rate / (1 - rate + 1e-9))
        tent = next((t for t in board.tents if t.player == player), None)
        tent_feature = None if tent is None else graph.locate(tent.cell, tent.at)
        sheriff_at = self._sheriff_feature(graph)
        if tent_feature is not None and tent_feature is not sheriff_at and not tent_feature.complete:
            tokens = sum(s.count for s in self._stacks_on(graph, tent_feature))
            if tokens:
                choices.append(("mine", tent_feature))
                weights.append(style.mine)
        if tent is not None or self._supply(player, "tents") > 0:
            spots = self._tent_spots(graph, tent_feature)
            if spots:
                choices.append(("tent", spots))
                weights.append(style.camp)
        choices.append(("none", None))
        weights.append(1.0)
        what, arg = choices[_pick(rng, weights)]
        if what == "cowboy":
            options, w = arg
            at, f = options[_pick(rng, w)]
            m = Figure(player, cell[0], cell[1], at)
            board.meeples.append(m)
            f.meeples.append(m)
        elif what == "mine":
            self._mine(graph, player, arg)
        elif what == "tent":
            spots, w = arg
            t_cell, t_at, f = spots[_pick(rng, w)]
            if tent is not None:
                board.tents.remove(tent)
                if tent_feature is not None:
                    tent_feature.tents.remove(tent)
            t = Figure(player, t_cell[0], t_cell[1], t_at)
            board.tents.append(t)
            f.tents.append(t)

    def _tent_spots(self, graph: FeatureGraph, current: Feature | None):
        """Mountain parts a tent may go to: incomplete mountain, part with no cowboy or tent (seed 000 step 2b).

        Players pitch where ore tokens lie, so only mountains with tokens (other
        than the one the tent already stands in and the one the Sheriff freezes)
        are offered.
        """
        occupied = set()
        for m in list(self.board.meeples) + list(self.board.tents):
            p = self.board.tiles[m.cell]
            occupied.add((m.cell, p.tile.turned(p.rot).locate(m.at)))
        spots, weights = [], []
        frozen = self._sheriff_feature(graph)
        for f in graph.of_kind("mountain"):
            if f.complete or f is current or f is frozen:
                continue
            tokens = sum(s.count for s in self._stacks_on(graph, f))
            if not tokens:
                continue
            for cell, index in f.parts:
                if (cell, index) in occupied:
                    continue
                spots.append((cell, self._mountain_part(cell, index), f))
                weights.append(float(tokens))
        return (spots, weights) if spots else None

    def _mine(self, graph: FeatureGraph, player: str, f: Feature) -> None:
        """Take the top ore token of the tent's mountain (seed 000 step 2c)."""
        s = self._stacks_on(graph, f)[0]
        value = self.ore_values[self._key(s)].pop()
        self._hold(player, value)
        s.count -= 1
        if s.count == 0:
            self.board.ore.remove(s)
            del self.ore_values[self._key(s)]

    def _hold(self, player: str, value: int) -> None:
        held = self.board.held.setdefault(player, {})
        held["ore_tokens"] = held.get("ore_tokens", 0) + 1
        held["ore_points"] = held.get("ore_points", 0) + value

    def _clear_complete_mountains(self, graph: FeatureGraph) -> None:
        """After scoring: a completed mountain keeps no tokens, tents or Sheriff (seed 000, seed 002)."""
        board = self.board
        for s in list(board.ore):
            f = graph.locate(s.cell, s.at)
            if f is not None and f.complete:
                board.ore.remove(s)
                self._return_ore(self.ore_values.pop(self._key(s)))
        board.tents = [t for t in board.tents if not graph.locate(t.cell, t.at).complete]
        if board.sheriff is not None and graph.locate(board.sheriff.cell, board.sheriff.at).complete:
            board.sheriff = None

    # ------------------------------------------------------------------ scoring
    def _apply(self, report: Report, graph: FeatureGraph) -> None:
        """Put a ``completed`` report on the table: track, returned figures, tokens."""
        board = self.board
        for c, pts in report.points.items():
            if pts:
                board.track[c] = board.track.get(c, 0) + pts
        gone = {id(f) for f in report.returned}
        board.meeples = [m for m in board.meeples if id(m) not in gone]
        board.tents = [t for t in board.tents if id(t) not in gone]
        ore_awards: list[dict] = []
        for a in report.awards:
            token, player = a.get("token"), a["player"]
            cells = [tuple(c) for c in a.get("from", [])]
            if token == "gold":
                held = board.held.setdefault(player, {})
                held["gold_bars"] = held.get("gold_bars", 0) + a["count"]
                for c in cells:
                    for s in board.gold:
                        if s.cell == c and s.count:
                            s.count -= 1
                            break
            elif token == "ore":
                ore_awards.append(a)
        # Ore tokens of a completed mountain: one at a time, in the order of the
        # awards (the active player first, clockwise; seed 000 "Uzavřené hory").
        left = [a["count"] for a in ore_awards]
        while any(left):
            for k, a in enumerate(ore_awards):
                if not left[k]:
                    continue
                cells = {tuple(c) for c in a.get("from", [])}
                stack = next((s for s in board.ore if s.cell in cells and s.count
                              and graph.locate(s.cell, s.at).complete), None)
                if stack is None:
                    log.warning("ore award to %s, but no ore stack lies on its mountain", a["player"])
                    left[k] = 0
                    continue
                self._hold(a["player"], self.ore_values[self._key(stack)].pop())
                stack.count -= 1
                left[k] -= 1
        board.gold = [s for s in board.gold if s.count > 0]
        for s in [s for s in board.ore if s.count <= 0]:
            board.ore.remove(s)
            del self.ore_values[self._key(s)]


__all__ = [
    "DEFAULT_FIGURES",
    "GOLD_BARS",
    "ORE_TOKENS",
    "GenerateError",
    "GeneratedGame",
    "PlayStyle",
    "Turn",
    "generate_game",
    "generate_history",
    "generate_turns",
    "play_game",
]
