"""Board decoding: choose every cell's tile from its candidates, the board as a whole.

Each examined cell comes with up to ``top_k`` candidate templates ``(tile, rot)``,
their match scores and the probability that the cell holds a tile at all.  A
legal table obeys rules that single cells do not see (``rules.md`` sections 1-3):

* neighbouring sides match: a city side meets a city side, a road a road, a
  field a field, a river a river (Gold Rush: rail, mountain, prairie);
* no tile lies more often than the box holds (:meth:`Catalog.box_count`);
* the river tiles form one river: each river tile joins the others through
  its river sides (seed 004: a river tile must continue the river).

Every cell takes one label: one of its candidates, or *empty*.  The decoder
maximises the board's log-probability (nats)::

    sum over cells of  log p(occupied) + (score - best score) / unary_temperature   (a tile)
                       + count_prior * log box count  (cells whose candidates figures hide
                         the difference of; then the likeliest tile of the cell moved to 0)
                    or log p(empty)                                                 (empty)
    - side_penalty * (neighbouring tile sides that do not match)
    - box_penalty * (copies beyond the box count)
    - side_penalty * (river tiles cut off from the largest river)
    + sum over cells holding a tile of neighbour_prior[occupied neighbours]

by iterated conditional modes (Besag 1986): start from every cell's best
label, then repeatedly give each cell, weakest first, the label that is best
given its neighbours; adjacent pairs whose shared side still disagrees are
tried jointly, and so is a cell that wants a tile whose every copy lies on
other cells, with each of them (it takes the tile, the other cell its best
other label).  A photo of a legal table almost always decodes to a board whose
sides all match, so a wrong or weak cell is repaired from its runners-up, and a
patch of table that looks a little like a tile is dropped when no tile there
fits its neighbours.

Confidence of a cell is the softmax of its labels' energies with the
neighbours fixed (temperature ``confidence_temperature``): the decoded margin
between the best and the runners-up, in nats.  Labels that are the same tile
(rotations a rotation-symmetric tile cannot tell apart) share their probability.

Reference: J. Besag, "On the statistical analysis of dirty pictures", Journal
of the Royal Statistical Society B 48 (1986), 259-302.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..tiles import Catalog

log = logging.getLogger(__name__)

#: Neighbour offsets per side N, E, S, W and the side of the neighbour that meets it.
_OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0))
_FACING = (2, 3, 0, 1)

Key = tuple[str, int]


@dataclass
class DecodeProblem:
    """A board to decode: per cell a list of candidates with match scores.

    Attributes
    ----------
    cells : list of (int, int)
        The cells examined.
    keys : list of list of (str, int)
        Per cell, candidate ``(tile id, rot)``, best match first.
    scores : list of (K,) float ndarray
        Per cell, the match score of each candidate (about 0..1, higher is better).
    occupancy : list of float, optional
        Per cell, the probability that it holds a tile; ``None``: every cell holds one.
    softness : list of float, optional
        Per cell, a factor (>= 1) on ``unary_temperature``: a cell partly hidden by
        figures or ore stacks tells its candidates apart less surely, so its
        neighbours' sides and the box counts weigh more there.  ``None``: 1 everywhere.
    undecided : list of bool, optional
        Per cell, whether what tells its candidates apart is hidden (a figure
        on the symbol of look-alike tiles): ``count_prior`` applies there only.
        ``None``: everywhere.
    """

    cells: list[tuple[int, int]]
    keys: list[list[Key]]
    scores: list[np.ndarray]
    occupancy: list[float] | None = None
    softness: list[float] | None = None
    undecided: list[bool] | None = None


@dataclass
class Decoded:
    """The decoded board.

    Attributes
    ----------
    labels : list of (str, int) or None
        Per cell, the chosen ``(tile id, rot)``, or ``None`` for an empty cell.
    choice : list of int
        Per cell, the index of the chosen candidate (``-1``: empty).
    confidence : list of float
        Per cell, probability (0-1) that the chosen tile and rotation are right,
        given that the cell holds a tile.
    occupied : list of float
        Per cell, probability (0-1) that it holds a tile, after decoding.
    alternatives : list of list of ((str, int), float)
        Per cell, the other tiles, best first, with their probabilities.
    mismatches : int
        Neighbouring sides that still do not match.
    over_box : dict str -> int
        Tiles read more often than the box holds, and by how many.
    """

    labels: list[Key | None]
    choice: list[int]
    confidence: list[float]
    occupied: list[float]
    alternatives: list[list[tuple[Key, float]]] = field(default_factory=list)
    mismatches: int = 0
    over_box: dict[str, int] = field(default_factory=dict)


def decode_problem(problem: DecodeProblem, catalog: Catalog, *, unary_temperature: float = 0.04,
                   side_penalty: float = 4.0, box_penalty: float = 6.0, rounds: int = 6,
                   confidence_temperature: float = 1.0,
                   neighbour_prior: Sequence[float] | None = None, count_prior: float = 0.0,
                   swap_min: float = -np.inf) -> Decoded:
    """Decode a board from per-cell candidates (see the module docstring).

    Parameters
    ----------
    problem : DecodeProblem
    catalog : Catalog
        Gives the side kinds (:meth:`TileType.edge_signature`), box counts and river roles.
    unary_temperature : float
        Match-score units per nat.
    side_penalty : float
        Nats per neighbouring side that does not match.
    box_penalty : float
        Nats per copy beyond the box count.
    rounds : int
        Passes of iterated conditional modes at most.
    confidence_temperature : float
        Divides the final energies before the softmax (> 1 softens).
    neighbour_prior : sequence of 5 floats, optional
        Nats added to a cell's log-odds of holding a tile when 0, 1, 2, 3 or 4
        of its neighbours hold one (tiles are laid next to tiles, and a hole
        closed on every side is rare); used with ``problem.occupancy``.
    count_prior : float
        Nats per unit of the log box count (:meth:`Catalog.box_count`) added
        to each candidate of the cells ``problem.undecided`` names, relative
        to the cell's likeliest (whose odds against an empty cell stay as they
        were): a tile the box holds three of is three times as likely to lie
        on a cell as a tile it holds once.  Where a figure hides the symbol
        that tells two look-alikes apart (the gold ingot of Goldmines G.CcRr,
        of which the box holds one, and base P, of which it holds three), only
        this tells them apart.  0: off.
    swap_min : float
        A cell takes a copy of a tile from a cell holding it (:func:`_swap_pass`)
        only for a candidate scoring at least this (match-score units): a patch
        of table that matches nothing has no claim on a copy.

    Returns
    -------
    Decoded
    """
    n = len(problem.cells)
    index = {c: k for k, c in enumerate(problem.cells)}
    nbrs = [[index.get((x + dx, y + dy)) for dx, dy in _OFFSETS] for x, y in problem.cells]
    occ = problem.occupancy
    # Labels per cell: the candidates, then (when occupancy is given) None = empty.
    labels: list[list[Key | None]] = []
    unary: list[np.ndarray] = []
    for k in range(n):
        keys: list[Key | None] = list(problem.keys[k])
        s = np.asarray(problem.scores[k], float)
        temperature = unary_temperature * (problem.softness[k] if problem.softness is not None else 1.0)
        u = (s - s.max()) / temperature if len(s) else np.zeros(0)
        if count_prior > 0 and len(s) and (problem.undecided is None or problem.undecided[k]):
            u = u + count_prior * np.log([max(catalog.box_count(key[0]), 1) for key in keys])
            u = u - u.max()  # the likeliest tile keeps its odds against an empty cell
        if occ is not None:
            p = float(np.clip(occ[k], 1e-6, 1 - 1e-6))
            u = np.append(u + np.log(p), np.log(1 - p))
            keys.append(None)
        labels.append(keys)
        unary.append(u)
    sigs: dict[Key, tuple[str, ...]] = {}
    for ks in labels:
        for key in ks:
            if key is not None and key not in sigs:
                sigs[key] = catalog[key[0]].edge_signature(key[1])
    river = {tid for tid, t in catalog.tiles.items() if t.river is not None}
    state = _State(labels, unary, nbrs, sigs, catalog, side_penalty, box_penalty,
                   neighbour_prior if occ is not None else None)
    # Greedy start: surest cells first take their best label the box still has.
    margin = [float(np.sort(u)[-1] - np.sort(u)[-2]) if len(u) > 1 else 1e9 for u in unary]
    for k in sorted(range(n), key=lambda k: -margin[k]):
        order = np.argsort(-unary[k])
        pick = int(order[0])
        for c in order:
            key = labels[k][c]
            if key is None or state.counts.get(key[0], 0) < catalog.box_count(key[0]):
                pick = int(c)
                break
        state.assign(k, pick)
    weakest_first = sorted(range(n), key=lambda k: margin[k])
    takers = [[c < len(problem.scores[k]) and float(problem.scores[k][c]) >= swap_min for c in range(len(labels[k]))]
              for k in range(n)]
    for _ in range(max(1, rounds)):
        changed = _icm_pass(state, weakest_first)
        changed += _pair_pass(state)
        changed += _swap_pass(state, weakest_first, takers)
        if river:
            state.river_cut = _river_islands(state, river)
            if state.river_cut:
                changed += _icm_pass(state, sorted(state.river_cut, key=lambda k: margin[k]))
        if not changed:
            break
    return _summarise(state, confidence_temperature, catalog)


class _State:
    """Current labels of a decode, with incremental box counts."""

    def __init__(self, labels, unary, nbrs, sigs, catalog: Catalog, side_penalty: float, box_penalty: float,
                 prior: Sequence[float] | None = None):
        self.prior = None if prior is None else np.asarray(prior, float)
        self.labels = labels
        self.unary = unary
        self.nbrs = nbrs
        self.sigs = sigs
        self.catalog = catalog
        self.side_penalty = side_penalty
        self.box_penalty = box_penalty
        self.choice = [-1] * len(labels)
        self.counts: dict[str, int] = {}
        self.river_cut: set[int] = set()
        self.river: set[str] = {tid for tid, t in catalog.tiles.items() if t.river is not None}

    def key(self, k: int) -> Key | None:
        c = self.choice[k]
        return None if c < 0 else self.labels[k][c]

    def assign(self, k: int, c: int) -> None:
        old = self.key(k)
        if old is not None:
            self.counts[old[0]] -= 1
        self.choice[k] = c
        new = self.key(k)
        if new is not None:
            self.counts[new[0]] = self.counts.get(new[0], 0) + 1

    def mismatches(self, k: int, key: Key | None) -> int:
        if key is None:
            return 0
        sig = self.sigs[key]
        bad = 0
        for s in range(4):
            m = self.nbrs[k][s]
            if m is None:
                continue
            other = self.key(m)
            if other is not None and self.sigs[other][_FACING[s]] != sig[s]:
                bad += 1
        return bad

    def box_excess(self, k: int, key: Key | None) -> int:
        """Copies beyond the box count if cell ``k`` took ``key`` (others unchanged)."""
        if key is None:
            return 0
        cur = self.key(k)
        others = self.counts.get(key[0], 0) - (1 if cur is not None and cur[0] == key[0] else 0)
        return max(0, others + 1 - self.catalog.box_count(key[0]))

    def occupied_neighbours(self, k: int) -> int:
        return sum(1 for m in self.nbrs[k] if m is not None and self.key(m) is not None)

    def board_prior(self, k: int) -> float:
        """Nats the board shape adds when cell ``k`` holds a tile rather than not.

        Its own term (``neighbour_prior`` of its occupied neighbours) and the
        change it makes to its occupied neighbours' terms.
        """
        if self.prior is None:
            return 0.0
        P = self.prior
        total = P[self.occupied_neighbours(k)]
        for m in self.nbrs[k]:
            if m is None or self.key(m) is None:
                continue
            n = self.occupied_neighbours(m) - (1 if self.key(k) is not None else 0)
            total += P[n + 1] - P[n]
        return float(total)

    def energies(self, k: int) -> np.ndarray:
        e = self.unary[k].copy()
        prior = self.board_prior(k)
        for c, key in enumerate(self.labels[k]):
            if key is None:
                continue
            e[c] += prior - self.side_penalty * self.mismatches(k, key) - self.box_penalty * self.box_excess(k, key)
            if k in self.river_cut and key[0] in self.river:
                e[c] -= self.side_penalty
        return e

    def joint(self, k: int, i: int, m: int, j: int) -> float:
        """Cells ``k`` and ``m`` take labels ``i`` and ``j`` (left so): the part of the board's
        energy that moves with them, nats: both unaries, every side of both cells (a side
        they share once) and the box counts."""
        self.assign(k, i)
        self.assign(m, j)
        ki, mj = self.key(k), self.key(m)
        bad = self.mismatches(k, ki) + self.mismatches(m, mj)
        if ki is not None and mj is not None:
            bad -= sum(1 for s in range(4) if self.nbrs[k][s] == m and self.sigs[ki][s] != self.sigs[mj][_FACING[s]])
        return self.unary[k][i] + self.unary[m][j] - self.side_penalty * bad - self.box_penalty * self.total_box_excess()

    def total_box_excess(self) -> int:
        return sum(max(0, c - self.catalog.box_count(t)) for t, c in self.counts.items())


def _icm_pass(state: _State, order: Sequence[int]) -> int:
    changed = 0
    for k in order:
        e = state.energies(k)
        c = int(np.argmax(e))
        cur = state.choice[k]
        if c != cur and e[c] > e[cur] + 1e-9:
            state.assign(k, c)
            changed += 1
    return changed


def _pair_pass(state: _State) -> int:
    """Adjacent pairs whose shared side disagrees: try both cells' labels jointly."""
    changed = 0
    for k in range(len(state.labels)):
        for s in (1, 2):
            m = state.nbrs[k][s]
            if m is None:
                continue
            a, b = state.key(k), state.key(m)
            if a is None or b is None or state.sigs[a][s] == state.sigs[b][_FACING[s]]:
                continue
            ck, cm = state.choice[k], state.choice[m]
            best = (state.joint(k, ck, m, cm), ck, cm)
            for i in range(len(state.labels[k])):
                for j in range(len(state.labels[m])):
                    if state.labels[k][i] is None or state.labels[m][j] is None:
                        continue  # both cells keep a tile: the board's shape is unchanged
                    if (i, j) != (ck, cm):
                        e = state.joint(k, i, m, j)
                        if e > best[0] + 1e-9:
                            best = (e, i, j)
            state.assign(k, best[1])
            state.assign(m, best[2])
            if (best[1], best[2]) != (ck, cm):
                changed += 1
    return changed


def _swap_pass(state: _State, order: Sequence[int], takers: Sequence[Sequence[bool]]) -> int:
    """Cells held back by a box count: try them with a cell that holds the tile they want.

    A single cell cannot take a tile whose every copy the box holds lies on
    other cells already (``box_penalty``), nor can one of those give it up
    while the first still wants it: iterated conditional modes stops there.
    For each cell whose best label ignoring the box counts is such a tile, the
    cells holding that tile are tried jointly with it, each taking its best
    other tile (both cells keep a tile: the board's shape is unchanged), and
    the best joint move that lowers the board's energy is made: a camp read on
    a tile whose wild horses a figure hides gives its copy to a tile whose wild
    horses are in plain view.  ``takers[k][c]``: whether cell ``k`` may take
    its label ``c`` so (``decode_problem``'s ``swap_min``).
    """
    changed = 0
    for a in order:
        ka = state.key(a)
        if ka is None:
            continue
        own = [-np.inf if key is None else state.unary[a][c] - state.side_penalty * state.mismatches(a, key)
               for c, key in enumerate(state.labels[a])]
        ca = state.choice[a]
        wanted = [c for c in np.argsort(own)[::-1] if takers[a][c] and own[c] > own[ca] + 1e-9
                  and state.labels[a][c][0] != ka[0] and state.box_excess(a, state.labels[a][c]) > 0]
        if not wanted:
            continue
        best = None
        for i in wanted:
            tile = state.labels[a][i][0]
            for b in [b for b in range(len(state.labels)) if b != a and (state.key(b) or ("",))[0] == tile]:
                cb = state.choice[b]
                now = state.joint(a, ca, b, cb)
                for j, kj in enumerate(state.labels[b]):
                    if kj is None or kj[0] == tile:
                        continue
                    e = state.joint(a, i, b, j) - now
                    if e > 1e-9 and (best is None or e > best[0]):
                        best = (e, b, i, j)
                state.assign(a, ca)
                state.assign(b, cb)
        if best is not None:
            gain, b, i, j = best
            log.debug("box swap: cell %d %s -> %s, cell %d %s -> %s (%.2f nats)", a, state.key(a),
                      state.labels[a][i], b, state.key(b), state.labels[b][j], gain)
            state.assign(a, i)
            state.assign(b, j)
            changed += 1
    return changed


def _river_islands(state: _State, river: set[str]) -> set[int]:
    """River tiles outside the largest group of river tiles joined through river sides."""
    cells = [k for k in range(len(state.labels)) if (state.key(k) or ("",))[0] in river]
    if len(cells) < 2:
        return set()
    rset = set(cells)
    seen: set[int] = set()
    groups = []
    for k in cells:
        if k in seen:
            continue
        stack, group = [k], []
        seen.add(k)
        while stack:
            a = stack.pop()
            group.append(a)
            sig = state.sigs[state.key(a)]
            for s in range(4):
                b = state.nbrs[a][s]
                if b is None or b in seen or b not in rset:
                    continue
                if sig[s] == "river" and state.sigs[state.key(b)][_FACING[s]] == "river":
                    seen.add(b)
                    stack.append(b)
        groups.append(group)
    if len(groups) < 2:
        return set()
    groups.sort(key=len, reverse=True)
    return {k for g in groups[1:] for k in g}


#: The tiles' symmetries looked up once per decoding (:func:`_summarise`); False: every time.
_FAST2 = True


def _same_tile(catalog: Catalog, a: Key, b: Key, symmetries: dict[str, tuple[int, ...]] | None = None) -> bool:
    """Whether labels ``a`` and ``b`` are the same tile (rotations a symmetric tile cannot tell apart).

    ``symmetries``: a cache, tile id -> ``TileType.symmetries()``, filled here.
    """
    if a[0] != b[0]:
        return False
    turn = (a[1] - b[1]) % 4
    if turn == 0:
        return True
    if symmetries is None:
        return turn in catalog[a[0]].symmetries()
    sym = symmetries.get(a[0])
    if sym is None:
        sym = symmetries[a[0]] = catalog[a[0]].symmetries()
    return turn in sym


def _summarise(state: _State, temperature: float, catalog: Catalog) -> Decoded:
    n = len(state.labels)
    out = Decoded([state.key(k) for k in range(n)], list(state.choice), [0.0] * n, [1.0] * n, [[] for _ in range(n)])
    sym: dict[str, tuple[int, ...]] | None = {} if _FAST2 else None
    for k in range(n):
        e = state.energies(k) / max(temperature, 1e-6)
        p = np.exp(e - e.max())
        p /= p.sum()
        # Merge labels that are the same tile (rotations a symmetric tile cannot tell apart).
        merged: list[tuple[Key, float]] = []
        empty = 0.0
        for c, key in enumerate(state.labels[k]):
            if key is None:
                empty += float(p[c])
                continue
            for i, (other, q) in enumerate(merged):
                if _same_tile(catalog, key, other, sym):
                    merged[i] = (other, q + float(p[c]))
                    break
            else:
                merged.append((key, float(p[c])))
        occupied = 1.0 - empty
        out.occupied[k] = occupied
        chosen = state.key(k)
        merged.sort(key=lambda kv: -kv[1])
        if chosen is not None:
            mine = next(q for key, q in merged if _same_tile(catalog, key, chosen, sym))
            out.confidence[k] = mine / max(occupied, 1e-12)
            out.alternatives[k] = [(key, q / max(occupied, 1e-12)) for key, q in merged
                                   if not _same_tile(catalog, key, chosen, sym)]
        else:
            out.alternatives[k] = [(key, q / max(occupied, 1e-12)) for key, q in merged]
    for k in range(n):
        key = state.key(k)
        if key is None:
            continue
        for s in (1, 2):  # east and south: each pair once
            m = state.nbrs[k][s]
            other = None if m is None else state.key(m)
            if other is not None and state.sigs[other][_FACING[s]] != state.sigs[key][s]:
                out.mismatches += 1
    out.over_box = {t: c - catalog.box_count(t) for t, c in state.counts.items() if c > catalog.box_count(t)}
    if out.mismatches or out.over_box:
        log.debug("decode: %d mismatching sides, over the box: %s", out.mismatches, out.over_box)
    return out


def decode(match, cells: Sequence[int], occupancy: np.ndarray, tpl, catalog: Catalog, cfg) -> Decoded:
    """Decode examined cells of a match (used by :func:`scorer.vision.recognise.read_tiles`).

    A cell a share ``h`` of whose tile is hidden (``match.hidden_share``) decodes at
    ``1 + cfg.hidden_softness * h`` times the unary temperature (``DecodeProblem.softness``).
    Cells whose close candidates figures hide the difference of (``match.undecided``,
    :func:`scorer.vision.recognise._detail`) take the box counts' prior (``cfg.count_prior``).

    Parameters
    ----------
    match : recognise._Match
        Candidates and fine scores per examined cell.
    cells : sequence of int
        Indices (into ``match.cells``) of the cells that may hold a tile.
    occupancy : (N,) float ndarray
        Probability that each examined cell holds a tile (before decoding).
    tpl : recognise.Templates
        Gives ``(tile id, rot)`` per template index.
    catalog : Catalog
    cfg : TileConfig

    Returns
    -------
    Decoded
        In the order of ``cells``.
    """
    cells = list(cells)
    problem = DecodeProblem(
        [tuple(map(int, match.cells[k])) for k in cells],
        [[tpl.keys[t] for t in match.cand[k]] for k in cells],
        [match.score[k] for k in cells],
        [float(occupancy[k]) for k in cells],
    )
    if match.undecided is not None and len(match.undecided) == len(match.cells):
        problem.undecided = [bool(match.undecided[k]) for k in cells]
    else:
        problem.undecided = [False] * len(cells)
    if cfg.hidden_softness > 0 and match.hidden_share is not None:
        # What a figure hides cannot tell look-alike tiles apart (wild horses from a camp).
        problem.softness = [1.0 + cfg.hidden_softness * float(match.hidden_share[k]) for k in cells]
    return decode_problem(problem, catalog, unary_temperature=cfg.unary_temperature,
                          side_penalty=cfg.side_penalty, box_penalty=cfg.box_penalty,
                          rounds=cfg.decode_rounds, confidence_temperature=cfg.confidence_temperature,
                          neighbour_prior=cfg.neighbour_prior, count_prior=cfg.count_prior,
                          swap_min=cfg.box_swap_min)


def alternatives_json(alts: list[tuple[Key, float]], limit: int) -> list[dict[str, Any]]:
    """Runners-up as ``[{"tile": id, "rot": r, "confidence": c}, ...]`` (at most ``limit``)."""
    return [{"tile": key[0], "rot": int(key[1]), "confidence": round(float(q), 4)} for key, q in alts[:limit]]
