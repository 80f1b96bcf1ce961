"""The generic feature engine: tiles -> connected features.

Each feature of each placed tile is a node; nodes are joined by union-find
across shared sides (edge features of the same kind: city, road, river,
mountain, rail) and across paired half-sides (fields and prairies,
``NL-SR``, ``NR-SL``, ``EL-WR``, ``ER-WL``).  Corners never join.  This one
engine serves base Carcassonne, The River, The Goldmines and Gold Rush; the game
rule modules only say how features score (``rules.md`` sections 1 and 6).

Completion (``rules.md`` sections 5 and 6):

* edge features are complete when every side they touch meets a tile whose
  facing side is of the same kind (roads/rails/rivers ending inside a tile are
  closed there; loops close themselves);
* cloisters and cemeteries when all 8 surrounding cells hold tiles;
* towns when every rail leaving them is a complete rail;
* fields and prairies never complete.

Tiles are counted once per feature (``rules.md`` 9.2): ``Feature.cells`` is a set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board, Figure
from .geometry import HALF_MATE, OPPOSITE, Cell, around, halves_of, neighbour
from .tiles import CENTRE_KINDS, EDGE_KINDS, FIELD_KINDS


@dataclass
class Feature:
    """A connected feature on the board.

    Attributes
    ----------
    id : int
        Index in :attr:`FeatureGraph.features`.
    kind : str
        ``city``, ``road``, ``river``, ``mountain``, ``rail``, ``field``,
        ``prairie``, ``cloister``, ``town`` or ``cemetery``.
    parts : list of ((int, int), int)
        ``(cell, index of the feature on that tile)`` for every tile piece.
    cells : set of (int, int)
        Distinct tiles the feature covers.
    open_sides : int
        Sides of edge features that do not yet meet a matching tile.
    complete : bool
        See the module docstring.
    pennants, nuggets, locomotives, camps, horses : int
        Sums over the pieces (symbols printed on the tiles).
    inn, pigherd : bool
        Whether any piece shows an inn (roads) or a pig herd (fields).
    cities : set of int
        Fields only: ids of the city features the field borders.
    rails : list of int
        Towns only: ids of the rail features leaving the town (distinct).
    meeples, tents : list of Figure
        Figures standing on the feature.
    """

    id: int
    kind: str
    parts: list[tuple[Cell, int]] = field(default_factory=list)
    cells: set[Cell] = field(default_factory=set)
    open_sides: int = 0
    complete: bool = False
    pennants: int = 0
    nuggets: int = 0
    locomotives: int = 0
    camps: int = 0
    horses: int = 0
    inn: bool = False
    pigherd: bool = False
    cities: set[int] = field(default_factory=set)
    rails: list[int] = field(default_factory=list)
    meeples: list[Figure] = field(default_factory=list)
    tents: list[Figure] = field(default_factory=list)

    def sorted_cells(self) -> list[list[int]]:
        """Cells as ``[[x, y], ...]`` sorted by row then column (for reports)."""
        return [[x, y] for x, y in sorted(self.cells, key=lambda c: (c[1], c[0]))]

    def followers(self) -> dict[str, int]:
        """Meeples/cowboys per colour on the feature."""
        out: dict[str, int] = {}
        for m in self.meeples:
            out[m.player] = out.get(m.player, 0) + 1
        return out

    def owners(self) -> list[str]:
        """The majority owner(s): every colour with the most followers (ties all own).

        Source: ``rules.md`` section 5 "Majority and ties"; seed 000 (Gold Rush),
        "Více železničářů na dokončené železniční trati".
        """
        counts = self.followers()
        if not counts:
            return []
        top = max(counts.values())
        return [c for c, n in counts.items() if n == top]

    @property
    def anchor(self) -> Cell:
        """The feature's first cell (centre features: their own tile)."""
        return self.parts[0][0]


@dataclass
class Mismatch:
    """Two neighbouring tiles whose facing sides do not match."""

    cell: Cell
    side: str
    kind: str
    other: Cell
    other_kind: str


class FeatureGraph:
    """All features of a board and the lookups between figures, tiles and features.

    Parameters
    ----------
    board : Board
        The board; its figures are attached to the features they stand on.

    Notes
    -----
    Built in time linear in the number of tiles (union-find with path halving).
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self.features: list[Feature] = []
        self.mismatches: list[Mismatch] = []
        self._node: dict[tuple[Cell, int], int] = {}
        self._build()

    # ------------------------------------------------------------------ lookups
    def feature_of(self, cell: Cell, index: int) -> Feature:
        """The feature holding piece ``index`` of the tile on ``cell``."""
        return self.features[self._node[(cell, index)]]

    def locate(self, cell: Cell, at: str) -> Feature | None:
        """The feature at location ``at`` of the tile on ``cell`` (``None`` if none)."""
        p = self.board.tiles.get(cell)
        if p is None:
            return None
        idx = p.tile.turned(p.rot).locate(at)
        return None if idx is None else self.feature_of(cell, idx)

    def on_cell(self, cell: Cell) -> list[Feature]:
        """Distinct features with a piece on the tile of ``cell``."""
        p = self.board.tiles.get(cell)
        if p is None:
            return []
        seen: dict[int, Feature] = {}
        for i in range(len(p.tile.features)):
            f = self.feature_of(cell, i)
            seen.setdefault(f.id, f)
        return list(seen.values())

    def of_kind(self, *kinds: str) -> list[Feature]:
        """Features of the given kinds, in board order."""
        return [f for f in self.features if f.kind in kinds]

    def area(self, f: Feature) -> list[Cell]:
        """The 3x3 area of a centre feature: its own cell and the 8 around, placed or not."""
        return [f.anchor, *around(f.anchor)]

    def neighbours_present(self, f: Feature) -> int:
        """Tiles placed on the 8 cells around a centre feature."""
        return sum(1 for c in around(f.anchor) if c in self.board.tiles)

    # ------------------------------------------------------------------ build
    def _build(self) -> None:
        board = self.board
        tiles = board.tiles
        parent: list[int] = []
        keys: list[tuple[Cell, int]] = []
        node = self._node
        turned = {}
        for cell, p in tiles.items():
            o = p.tile.turned(p.rot)
            turned[cell] = o
            for i in range(len(o.features)):
                node[(cell, i)] = len(parent)
                parent.append(len(parent))
                keys.append((cell, i))

        def find(a: int) -> int:
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        def union(a: int, b: int) -> None:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[rb] = ra

        matched: set[tuple[Cell, str]] = set()
        for cell, o in turned.items():
            for side in ("E", "S"):
                other = neighbour(cell, side)
                ob = turned.get(other)
                if ob is None:
                    continue
                opp = OPPOSITE[side]
                ia, ib = o.side.get(side), ob.side.get(opp)
                ka = o.features[ia].kind if ia is not None else "field"
                kb = ob.features[ib].kind if ib is not None else "field"
                if ka != kb:
                    self.mismatches.append(Mismatch(cell, side, ka, other, kb))
                elif ia is not None:
                    union(node[(cell, ia)], node[(other, ib)])
                    matched.add((cell, side))
                    matched.add((other, opp))
                for h in halves_of(side):
                    ha, hb = o.half.get(h), ob.half.get(HALF_MATE[h])
                    if ha is not None and hb is not None and o.features[ha].kind == ob.features[hb].kind:
                        union(node[(cell, ha)], node[(other, hb)])

        roots: dict[int, Feature] = {}
        node_feature = [0] * len(parent)
        for n, (cell, i) in enumerate(keys):
            r = find(n)
            spec = turned[cell].features[i]
            f = roots.get(r)
            if f is None:
                f = Feature(len(self.features), spec.kind)
                roots[r] = f
                self.features.append(f)
            node_feature[n] = f.id
            f.parts.append((cell, i))
            f.cells.add(cell)
            if spec.kind in EDGE_KINDS:
                f.open_sides += sum(1 for e in spec.edges if (cell, e) not in matched)
            for name, value in spec.attrs:
                if isinstance(value, bool):
                    setattr(f, name, getattr(f, name) or value)
                else:
                    setattr(f, name, getattr(f, name) + value)
        for key, n in list(node.items()):
            node[key] = node_feature[n]

        # Field -> bordering cities; town -> rails leaving it.
        for f in self.features:
            if f.kind in FIELD_KINDS:
                for cell, i in f.parts:
                    spec = turned[cell].features[i]
                    for c in spec.cities:
                        f.cities.add(node[(cell, c)])
            elif f.kind == "town":
                cell = f.anchor
                o = turned[cell]
                for i, spec in enumerate(o.features):
                    if spec.kind == "rail" and len(spec.edges) == 1:
                        rid = node[(cell, i)]
                        if rid not in f.rails:
                            f.rails.append(rid)

        for f in self.features:
            if f.kind in EDGE_KINDS:
                f.complete = f.open_sides == 0
            elif f.kind in ("cloister", "cemetery"):
                f.complete = self.neighbours_present(f) == 8
        for f in self.features:
            if f.kind == "town":
                f.complete = bool(f.rails) and all(self.features[r].complete for r in f.rails)

        for m in board.meeples:
            target = self.locate(m.cell, m.at)
            if target is not None:
                target.meeples.append(m)
        for t in board.tents:
            target = self.locate(t.cell, t.at)
            if target is not None:
                target.tents.append(t)


def completed_by(graph: FeatureGraph, cell: Cell) -> list[Feature]:
    """Features that the tile on ``cell`` completed: complete and touched by it.

    A feature is touched when it has a piece on ``cell``; a cloister or cemetery
    also when ``cell`` is in its 3x3 area; a town also when one of its rails was
    touched.  Source: ``rules.md`` sections 5-7 (scoring after placing a tile).
    """
    out: dict[int, Feature] = {}
    touched_rails: set[int] = set()
    for f in graph.on_cell(cell):
        if f.kind == "rail":
            touched_rails.add(f.id)
        if f.complete and f.kind not in FIELD_KINDS:
            out[f.id] = f
    for c in around(cell):
        for f in graph.on_cell(c):
            if f.kind in ("cloister", "cemetery") and f.anchor == c and f.complete:
                out[f.id] = f
    if touched_rails:
        for f in graph.of_kind("town"):
            if f.complete and touched_rails.intersection(f.rails):
                out[f.id] = f
    return sorted(out.values(), key=lambda f: f.id)


__all__ = ["Feature", "FeatureGraph", "Mismatch", "completed_by", "CENTRE_KINDS"]
