"""Accuracy harness: measure the photo pipeline on photos with ground truth.

A folder holds photos (``.jpg``, ``.jpeg``, ``.png``, ``.heic``, ``.heif``), each
with a ground-truth board (``carcassonne-board/1``, ``board-format.md``) beside it:

* ``PHOTO.truth.json`` (``IMG_1.jpg.truth.json`` or ``IMG_1.truth.json``), as the
  renderer writes it; an extra ``synth`` key (homography, cell corners, figure
  pixels) is kept in :attr:`Board.extra`; only its cell corners and camera turn
  are used, to tell a photo whose lattice points at a photo diagonal (no single
  north, :func:`north_off_diagonal`: its reading is also compared a quarter turn back);
* ``NAME.board.json`` beside ``NAME.jpg`` (the ``sample_photos/`` layout).

Every photo is read by a *reader* (by default ``scorer.vision.read_photo``), timed
and memory-traced, and the board it returns is compared with the truth by
:func:`compare_boards`.  The comparison is exact and documented metric by metric
there; :class:`Evaluation` pools the counts over all photos (micro-averages: a
photo with many tiles weighs more than one with few) and writes the per-photo
rows, the summary and the configuration used (reader, versions) as JSON or CSV.

A photo the reader cannot read (it raises a :class:`~scorer.errors.ScorerError`,
for instance ``TableNotFoundError``, or the pipeline cannot be imported) is a
failed read: it is scored as an empty prediction (grid not found, every tile
missed, every figure missed, scores wrong even where the truth is worth no
points) and its reason is recorded.  The figures stay
honest and the run never stops on one bad photo.
"""

from __future__ import annotations

import csv
import datetime as _dt
import importlib
import io
import json
import logging
import math
import platform
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from .board import Board, Figure, Placement, Stack, read_board, turn_board
from .errors import BoardFormatError, ScorerError
from .fileio import write_atomic
from .geometry import Cell, around
from .tiles import TileSet, canonical_features

log = logging.getLogger(__name__)

EVALUATION_FORMAT = "scorer-evaluation/1"
#: Photo file suffixes looked for (lower case).
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".heic", ".heif")
#: Figure kinds compared; a predicted figure only matches a truth figure of its kind.
FIGURE_KINDS = ("meeple", "tent", "sheriff")
#: The reader used when none is given, as ``module:function``.
DEFAULT_READER = "scorer.vision:read_photo"
#: Scoring modes (:func:`scorer.scoring.score`).
SCORE_MODES = ("completed", "final")
#: Keys of the truth board (top level, or inside ``synth``) that name its scoring mode.
MODE_KEYS = ("mode", "score_mode")

#: A photo whose truth lattice points north within this many degrees of a photo diagonal
#: has no single "north up" (the photo's top edge snaps to either lattice side): its reading
#: may be a quarter turn off the truth and is then compared turned back (``north_turns``).
NORTH_AMBIGUOUS_DEG = 3.0

Reader = Callable[[Path], Board]
ScoreFn = Callable[[Board, str], Mapping[str, int]]


# --------------------------------------------------------------------------- tiles


def same_tile(truth: Placement, pred: Placement) -> bool:
    """Whether a predicted tile is the truth tile in an equivalent rotation.

    Two catalogue tiles are the same when their ids are equal and the rotations
    differ by one of the truth tile's symmetries (:meth:`TileType.symmetries`:
    ``U`` at rot 0 and rot 2, ``C`` at any rot).  When either tile is an inline
    tile (``board-format.md``, "Inline tiles"), the features in board orientation
    must be identical (kinds, sides, half-sides, field-city links, attributes),
    and so must the tile-level Goldmines symbol and Sheriff star.

    Parameters
    ----------
    truth, pred : Placement
        The truth tile and the predicted tile on the same cell.

    Returns
    -------
    bool
    """
    if truth.inline is None and pred.inline is None:
        if truth.tile.id != pred.tile.id:
            return False
        turn = (pred.rot - truth.rot) % 4
        return turn == 0 or turn in truth.tile.symmetries()
    if (truth.tile.gold, truth.tile.sheriff) != (pred.tile.gold, pred.tile.sheriff):
        return False
    same = canonical_features(truth.tile.turned(truth.rot).features)
    return same == canonical_features(pred.tile.turned(pred.rot).features)


def _tile_label(p: Placement | None) -> str | None:
    if p is None:
        return None
    return f"{p.tile.id}{' (inline)' if p.inline is not None else ''} rot {p.rot}"


# --------------------------------------------------------------------------- translation


def translate(board: Board, offset: Cell) -> Board:
    """A copy of ``board`` moved by ``offset`` cells (tiles, figures, tokens, ``last_placed``).

    Parameters
    ----------
    board : Board
    offset : (int, int)
        ``(dx, dy)`` in cells, x east, y south.

    Returns
    -------
    Board
        An independent board; ``board`` is not changed.
    """
    dx, dy = offset
    out = board.copy()
    if (dx, dy) == (0, 0):
        return out
    tiles = {}
    for p in out.tiles.values():
        p.x += dx
        p.y += dy
        tiles[p.cell] = p
    out.tiles = tiles
    figs: list[Figure | Stack] = [*out.meeples, *out.tents, *out.gold, *out.ore]
    if out.sheriff is not None:
        figs.append(out.sheriff)
    for f in figs:
        f.x += dx
        f.y += dy
    if out.last_placed is not None:
        out.last_placed = (out.last_placed[0] + dx, out.last_placed[1] + dy)
    return out


def best_offset(truth: Board, pred: Board) -> Cell:
    """The translation of the predicted board that best aligns it with the truth.

    Boards are compared up to translation (``board-format.md``, "Geometry"); both
    have north at the top of the photo, so no rotation is searched.  The offsets
    tried are those implied by every pair (truth cell, predicted cell), plus
    ``(0, 0)``.  The best one maximises, in order: the number of matching tiles
    (:func:`same_tile`), the number of cells occupied on both boards; ties go to
    the smallest ``|dx| + |dy|``, then the smallest ``dx``, then the smallest ``dy``.

    Parameters
    ----------
    truth, pred : Board

    Returns
    -------
    (int, int)
        ``(dx, dy)`` to add to every predicted cell; ``(0, 0)`` when either board
        has no tiles.
    """
    if not truth.tiles or not pred.tiles:
        return (0, 0)
    overlap: Counter[Cell] = Counter()
    matches: Counter[Cell] = Counter()
    for tc, tp in truth.tiles.items():
        for pc, pp in pred.tiles.items():
            d = (tc[0] - pc[0], tc[1] - pc[1])
            overlap[d] += 1
            if same_tile(tp, pp):
                matches[d] += 1
    overlap[(0, 0)] += 0

    def key(d: Cell) -> tuple:
        return (-matches[d], -overlap[d], abs(d[0]) + abs(d[1]), d[0], d[1])

    return min(overlap, key=key)


# --------------------------------------------------------------------------- comparison


def _ratio(right: int, total: int) -> float | None:
    return right / total if total else None


@dataclass
class BoardComparison:
    """How a predicted board compares with the truth (counts, errors, fractions).

    Every ``*_right``/total pair is an exact count; the properties turn them into
    fractions in ``[0, 1]`` (``None`` when nothing was counted).  Cells in the
    error lists are truth cells (the predicted board translated by ``offset``).

    Attributes
    ----------
    offset : (int, int)
        Translation added to the predicted cells (:func:`best_offset`).
    grid_found : bool
        The prediction has at least one tile.
    truth_tiles, pred_tiles : int
    occupancy_right, occupancy_cells : int
        Cells whose occupied/empty state is right, over the union of truth cells,
        predicted cells and the ring of cells around the truth tiles.
    tiles_right : int
        Truth cells holding the right tile in an equivalent rotation.
    figures_truth, figures_pred, figures_matched : int
    colour_right, colour_total : int
        Over matched meeples and tents (the Sheriff has no colour).
    location_right, location_total : int
        Over matched figures.
    gold_right, gold_cells : int
        Cells with gold bars in truth or prediction whose count is right.
    ore_right, ore_cells : int
        Cells with ore tokens in truth or prediction whose count is right.
    tiles_all_right : bool
        The grid found, every tile right and no extra tile (the tile stage alone).
    board_right : bool
        Every tile, figure, colour, location and token count right and no extra tile.
    scores_right : bool or None
        Every player's points equal; ``None`` when the truth could not be scored.
    scores_truth, scores_pred : dict colour -> int, or None
    score_mode : str
    score_note : str or None
        Why scores were not compared (or why the prediction could not be scored).
    occupancy_errors, tile_errors, figure_errors, token_errors : list of dict
    """

    offset: Cell = (0, 0)
    grid_found: bool = False
    truth_tiles: int = 0
    pred_tiles: int = 0
    occupancy_right: int = 0
    occupancy_cells: int = 0
    tiles_right: int = 0
    figures_truth: int = 0
    figures_pred: int = 0
    figures_matched: int = 0
    colour_right: int = 0
    colour_total: int = 0
    location_right: int = 0
    location_total: int = 0
    gold_right: int = 0
    gold_cells: int = 0
    ore_right: int = 0
    ore_cells: int = 0
    tiles_all_right: bool = False
    board_right: bool = False
    scores_right: bool | None = None
    scores_truth: dict[str, int] | None = None
    scores_pred: dict[str, int] | None = None
    score_mode: str = "final"
    score_note: str | None = None
    occupancy_errors: list[dict[str, Any]] = field(default_factory=list)
    tile_errors: list[dict[str, Any]] = field(default_factory=list)
    figure_errors: list[dict[str, Any]] = field(default_factory=list)
    token_errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def occupancy_accuracy(self) -> float | None:
        return _ratio(self.occupancy_right, self.occupancy_cells)

    @property
    def tile_accuracy(self) -> float | None:
        return _ratio(self.tiles_right, self.truth_tiles)

    @property
    def tile_error(self) -> float | None:
        """Fraction of truth cells with a wrong or missing tile."""
        acc = self.tile_accuracy
        return None if acc is None else (self.truth_tiles - self.tiles_right) / self.truth_tiles

    @property
    def figure_precision(self) -> float | None:
        return _ratio(self.figures_matched, self.figures_pred)

    @property
    def figure_recall(self) -> float | None:
        return _ratio(self.figures_matched, self.figures_truth)

    @property
    def colour_accuracy(self) -> float | None:
        return _ratio(self.colour_right, self.colour_total)

    @property
    def location_accuracy(self) -> float | None:
        return _ratio(self.location_right, self.location_total)

    @property
    def gold_accuracy(self) -> float | None:
        return _ratio(self.gold_right, self.gold_cells)

    @property
    def ore_accuracy(self) -> float | None:
        return _ratio(self.ore_right, self.ore_cells)

    def to_dict(self) -> dict[str, Any]:
        """Counts, fractions and error lists as JSON-ready values."""
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            out[name] = list(value) if isinstance(value, tuple) else value
        for name in ("occupancy_accuracy", "tile_accuracy", "tile_error", "figure_precision", "figure_recall",
                     "colour_accuracy", "location_accuracy", "gold_accuracy", "ore_accuracy"):
            out[name] = getattr(self, name)
        return out


def _figures(board: Board) -> list[tuple[str, Figure]]:
    out = [("meeple", f) for f in board.meeples] + [("tent", f) for f in board.tents]
    if board.sheriff is not None:
        out.append(("sheriff", board.sheriff))
    return out


def _same_location(truth: Board, t: Figure, p: Figure) -> bool:
    """Whether ``p.at`` addresses the feature ``t.at`` addresses on the truth tile."""
    placement = truth.tiles.get(t.cell)
    if placement is not None:
        o = placement.tile.turned(placement.rot)
        ti, pi = o.locate(t.at), o.locate(p.at)
        if ti is not None and pi is not None:
            return ti == pi
    return t.at == p.at


def _match_figures(truth: Board, pred: Board, cmp: BoardComparison) -> bool:
    """Greedy one-to-one figure matching; fills the figure counts; True when all right."""
    tfigs, pfigs = _figures(truth), _figures(pred)
    cmp.figures_truth, cmp.figures_pred = len(tfigs), len(pfigs)
    # Candidate pairs: same kind on the same cell.  Greedy by quality (colour and
    # location right first), then by truth order, then by prediction order.
    pairs = []
    for i, (tk, t) in enumerate(tfigs):
        for j, (pk, p) in enumerate(pfigs):
            if tk != pk or t.cell != p.cell:
                continue
            colour_ok = t.player == p.player
            loc_ok = _same_location(truth, t, p)
            pairs.append((-(int(colour_ok) + int(loc_ok)), i, j, colour_ok, loc_ok))
    pairs.sort()
    used_t: set[int] = set()
    used_p: set[int] = set()
    for _, i, j, colour_ok, loc_ok in pairs:
        if i in used_t or j in used_p:
            continue
        used_t.add(i)
        used_p.add(j)
        kind, t = tfigs[i]
        p = pfigs[j][1]
        cmp.figures_matched += 1
        if kind != "sheriff":
            cmp.colour_total += 1
            cmp.colour_right += colour_ok
        cmp.location_total += 1
        cmp.location_right += loc_ok
        if not (colour_ok and loc_ok):
            cmp.figure_errors.append({"error": "wrong", "kind": kind, "x": t.x, "y": t.y,
                                      "truth": {"player": t.player, "at": t.at},
                                      "pred": {"player": p.player, "at": p.at},
                                      "colour_right": colour_ok, "location_right": loc_ok})
    for i, (kind, t) in enumerate(tfigs):
        if i not in used_t:
            cmp.figure_errors.append({"error": "missed", "kind": kind, "x": t.x, "y": t.y,
                                      "truth": {"player": t.player, "at": t.at}})
    for j, (kind, p) in enumerate(pfigs):
        if j not in used_p:
            cmp.figure_errors.append({"error": "extra", "kind": kind, "x": p.x, "y": p.y,
                                      "pred": {"player": p.player, "at": p.at}})
    return (cmp.figures_matched == cmp.figures_truth == cmp.figures_pred
            and cmp.colour_right == cmp.colour_total and cmp.location_right == cmp.location_total)


def _per_cell(stacks: list[Stack]) -> dict[Cell, int]:
    out: dict[Cell, int] = {}
    for s in stacks:
        out[s.cell] = out.get(s.cell, 0) + s.count
    return out


def _compare_counts(name: str, truth: dict[Cell, int], pred: dict[Cell, int],
                    errors: list[dict[str, Any]]) -> tuple[int, int]:
    cells = sorted(c for c in set(truth) | set(pred) if truth.get(c, 0) or pred.get(c, 0))
    right = 0
    for c in cells:
        if truth.get(c, 0) == pred.get(c, 0):
            right += 1
        else:
            errors.append({"token": name, "x": c[0], "y": c[1], "truth": truth.get(c, 0), "pred": pred.get(c, 0)})
    return right, len(cells)


def _score_points(board: Board, mode: str) -> dict[str, int]:
    from . import scoring

    return dict(scoring.score(board, mode).points)


def _unseen_from_truth(truth: Board, pred: Board) -> Board:
    """The prediction with what a photo cannot show filled in from the truth where it is empty.

    Edition ``rules``, ``players``, ``active``, ``last_placed``, ``held`` and
    ``track`` come from the players, not from the table; the app asks for them.
    """
    out = pred.copy()
    if not out.rules:
        out.rules = dict(truth.rules)
    if not out.players:
        out.players = list(truth.players)
    if out.active is None:
        out.active = truth.active
    if out.last_placed is None and truth.last_placed in out.tiles:
        out.last_placed = truth.last_placed
    if not out.held:
        out.held = {c: dict(v) for c, v in truth.held.items()}
    if not out.track:
        out.track = dict(truth.track)
    return out


def _compare_scores(truth: Board, pred: Board, mode: str, score_fn: ScoreFn | None,
                    cmp: BoardComparison) -> None:
    fn = score_fn or _score_points
    cmp.score_mode = mode
    try:
        ts = dict(fn(truth, mode))
    except Exception as exc:  # rules not available, or a rule module failing: no comparison, recorded
        cmp.score_note = f"truth not scored ({type(exc).__name__}: {exc})"
        if isinstance(exc, (ScorerError, ImportError)):
            log.info("scores not compared: %s", cmp.score_note)
        else:
            log.warning("scores not compared: %s", cmp.score_note, exc_info=True)
        return
    cmp.scores_truth = ts
    try:
        ps = dict(fn(_unseen_from_truth(truth, pred), mode))
    except Exception as exc:  # a misread board may break any rule module; record it, go on
        cmp.score_note = f"prediction not scored ({type(exc).__name__}: {exc})"
        log.warning("%s", cmp.score_note, exc_info=not isinstance(exc, ScorerError))
        cmp.scores_right = False
        return
    cmp.scores_pred = ps
    cmp.scores_right = all(ts.get(c, 0) == ps.get(c, 0) for c in set(ts) | set(ps))


def compare_boards(truth: Board, pred: Board, *, mode: str = "final",
                   score_fn: ScoreFn | None = None, offset: Cell | None = None) -> BoardComparison:
    """Compare a predicted board with the truth, up to translation.

    Metrics (all exact counts; see :class:`BoardComparison`):

    * **offset**: :func:`best_offset` (no rotation: north is the photo top on both).
    * **grid found**: the prediction has tiles.
    * **occupancy**: over the union of truth cells, predicted cells and every
      cell 8-adjacent to a truth tile (the ring around the board), the cells
      whose occupied/empty state is right.
    * **tiles**: truth cells whose predicted tile is the same tile in an
      equivalent rotation (:func:`same_tile`); a missing tile is wrong.
    * **figures**: a predicted figure matches a truth figure of the same kind
      (meeple, tent, Sheriff) on the same cell, greedily one to one, best pairs
      first (colour and location both right, then one of them, then neither).
      Precision = matched / predicted, recall = matched / truth.
    * **colour** over matched meeples and tents; **location** over matched
      figures: right when ``at`` addresses the same feature of the truth tile
      (``TileType.turned(rot).locate``), so ``N`` and ``NL`` on one field match;
      when either location addresses nothing there, the names must be equal.
    * **gold bars** and **ore tokens**: per cell (ore summed over the cell's
      stacks), over cells with a non-zero count on either board.
    * **board right**: grid found, every tile right, no extra tile, every figure
      matched with colour and location right, every token count right.
    * **scores**: both boards scored in ``mode`` and every player's points
      compared (a missing player counts 0).  What a photo cannot show (edition
      ``rules``, ``players``, ``active``, ``last_placed``, ``held``, ``track``)
      is taken from the truth when the prediction leaves it empty.

    Parameters
    ----------
    truth, pred : Board
        The ground truth and the pipeline's board (any cell origin).
    mode : {"final", "completed"}
        Scoring mode for both boards (``board-format.md``, "Scoring report").
    score_fn : callable (Board, str) -> dict colour -> int, optional
        Points per player; default :func:`scorer.scoring.score` ``.points``.
    offset : (int, int), optional
        Use this translation instead of searching for the best one.

    Returns
    -------
    BoardComparison

    Raises
    ------
    ScorerError
        Unknown ``mode``.
    """
    if mode not in SCORE_MODES:
        raise ScorerError(f"mode: unknown scoring mode {mode!r}; expected one of {', '.join(SCORE_MODES)}")
    cmp = BoardComparison()
    cmp.offset = best_offset(truth, pred) if offset is None else (int(offset[0]), int(offset[1]))
    moved = translate(pred, cmp.offset)
    cmp.grid_found = bool(moved.tiles)
    cmp.truth_tiles, cmp.pred_tiles = len(truth.tiles), len(moved.tiles)

    region = set(truth.tiles) | set(moved.tiles)
    for c in truth.tiles:
        region.update(around(c))
    for c in sorted(region):
        has_t, has_p = c in truth.tiles, c in moved.tiles
        if has_t == has_p:
            cmp.occupancy_right += 1
        else:
            cmp.occupancy_errors.append({"x": c[0], "y": c[1], "error": "missed" if has_t else "extra"})
    cmp.occupancy_cells = len(region)

    for c in sorted(truth.tiles):
        t, p = truth.tiles[c], moved.tiles.get(c)
        if p is not None and same_tile(t, p):
            cmp.tiles_right += 1
        else:
            cmp.tile_errors.append({"x": c[0], "y": c[1], "truth": _tile_label(t), "pred": _tile_label(p)})

    figures_ok = _match_figures(truth, moved, cmp)
    cmp.gold_right, cmp.gold_cells = _compare_counts("gold", truth.gold_on(), moved.gold_on(), cmp.token_errors)
    cmp.ore_right, cmp.ore_cells = _compare_counts("ore", _per_cell(truth.ore), _per_cell(moved.ore),
                                                   cmp.token_errors)
    cmp.tiles_all_right = (cmp.grid_found and cmp.tiles_right == cmp.truth_tiles
                           and cmp.occupancy_right == cmp.occupancy_cells)
    cmp.board_right = (cmp.tiles_all_right and figures_ok
                       and cmp.gold_right == cmp.gold_cells and cmp.ore_right == cmp.ore_cells)
    _compare_scores(truth, moved, mode, score_fn, cmp)
    return cmp


# --------------------------------------------------------------------------- photos


@dataclass
class PhotoResult:
    """One photo of an evaluation.

    Attributes
    ----------
    photo : str
        File name, relative to the evaluated folder.
    truth : str
        Ground-truth file name, relative to the folder.
    read_ok : bool
        The reader returned a board.
    reason : str or None
        Why the read failed (the error message), or why the grid was not found.
    seconds : float or None
        Wall time of the reader call, seconds (``None``: reader not called).
    tracemalloc_peak_mb : float or None
        Peak of memory traced by :mod:`tracemalloc` during the call above what was
        traced before it, MiB (Python objects and NumPy arrays; not OpenCV's own
        buffers).
    rss_delta_mb : float or None
        Growth of the process's peak resident set (``getrusage`` ``ru_maxrss``)
        during the call, MiB; 0 when the call stayed under an earlier peak.
    comparison : BoardComparison
    north_turns : int
        Clockwise quarter turns applied to the reading before the comparison: 0,
        or +-1 when the photo has no single north (its lattice points within
        :data:`NORTH_AMBIGUOUS_DEG` of a photo diagonal, :func:`north_off_diagonal`)
        and the turned reading has more tiles right.
    """

    photo: str
    truth: str
    read_ok: bool
    reason: str | None
    seconds: float | None
    tracemalloc_peak_mb: float | None
    rss_delta_mb: float | None
    comparison: BoardComparison
    north_turns: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "comparison"}
        out.update(self.comparison.to_dict())
        return out


@dataclass
class Evaluation:
    """The result of :func:`evaluate_dir`: per-photo rows, pooled summary, configuration.

    Attributes
    ----------
    photos : list of PhotoResult
    skipped : list of str
        Photos without a ground-truth file.
    config : dict
        Reader, scoring mode, memory tracing, folder, versions, time.
    """

    photos: list[PhotoResult]
    skipped: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Pooled figures over all photos, fractions in ``[0, 1]`` (``None``: nothing counted).

        Failed reads count as empty predictions.  ``scores_right`` is over the
        photos whose truth could be scored (``scores_compared`` of them).
        """
        cs = [p.comparison for p in self.photos]

        def pooled(right: str, total: str) -> float | None:
            return _ratio(sum(getattr(c, right) for c in cs), sum(getattr(c, total) for c in cs))

        n = len(self.photos)
        truth_tiles = sum(c.truth_tiles for c in cs)
        tiles_right = sum(c.tiles_right for c in cs)
        compared = [c.scores_right for c in cs if c.scores_right is not None]
        secs = [p.seconds for p in self.photos if p.seconds is not None]
        mem = [p.tracemalloc_peak_mb for p in self.photos if p.tracemalloc_peak_mb is not None]
        rss = [p.rss_delta_mb for p in self.photos if p.rss_delta_mb is not None]
        return {
            "photos": n,
            "failed_reads": sum(not p.read_ok for p in self.photos),
            "north_turned": sum(p.north_turns != 0 for p in self.photos),
            "grid_found": _ratio(sum(c.grid_found for c in cs), n),
            "occupancy": pooled("occupancy_right", "occupancy_cells"),
            "tile_accuracy": _ratio(tiles_right, truth_tiles),
            "tile_error": _ratio(truth_tiles - tiles_right, truth_tiles),
            "figure_precision": pooled("figures_matched", "figures_pred"),
            "figure_recall": pooled("figures_matched", "figures_truth"),
            "colour": pooled("colour_right", "colour_total"),
            "location": pooled("location_right", "location_total"),
            "gold": pooled("gold_right", "gold_cells"),
            "ore": pooled("ore_right", "ore_cells"),
            "boards_tiles_right": _ratio(sum(c.tiles_all_right for c in cs), n),
            "boards_right": _ratio(sum(c.board_right for c in cs), n),
            "scores_right": _ratio(sum(compared), len(compared)),
            "scores_compared": len(compared),
            "seconds_median": statistics.median(secs) if secs else None,
            "seconds_max": max(secs) if secs else None,
            "tracemalloc_peak_mb": max(mem) if mem else None,
            "rss_delta_mb": max(rss) if rss else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """The ``scorer-evaluation/1`` JSON object: config, summary, photos, skipped."""
        return {
            "format": EVALUATION_FORMAT,
            "config": self.config,
            "summary": self.summary(),
            "photos": [p.to_dict() for p in self.photos],
            "skipped": list(self.skipped),
        }

    def write_json(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as indented JSON, atomically."""
        return write_atomic(path, json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n")

    def write_csv(self, path: str | Path) -> Path:
        """Write one row per photo and a last ``ALL`` row with the summary, atomically.

        Fractions are written in ``[0, 1]``, flags as 0/1, the offset as ``dx dy``.
        In the ``ALL`` row counts are sums, fractions are pooled as in
        :meth:`summary`, ``read_ok`` counts the photos read, ``seconds`` is the
        median and the memory columns are maxima.  The configuration is in the
        JSON output only.
        """
        cols = CSV_COLUMNS
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for p in self.photos:
            row = p.to_dict()
            w.writerow([_csv_value(row.get(c)) for c in cols])
        s = self.summary()
        summary_row = {
            "photo": "ALL", "read_ok": s["photos"] - s["failed_reads"], "grid_found": s["grid_found"],
            "occupancy_accuracy": s["occupancy"], "tile_accuracy": s["tile_accuracy"], "tile_error": s["tile_error"],
            "figure_precision": s["figure_precision"], "figure_recall": s["figure_recall"],
            "colour_accuracy": s["colour"], "location_accuracy": s["location"], "gold_accuracy": s["gold"],
            "ore_accuracy": s["ore"], "tiles_all_right": s["boards_tiles_right"], "board_right": s["boards_right"], "scores_right": s["scores_right"],
            "seconds": s["seconds_median"], "tracemalloc_peak_mb": s["tracemalloc_peak_mb"],
            "rss_delta_mb": s["rss_delta_mb"],
        }
        for name in ("truth_tiles", "pred_tiles", "occupancy_right", "occupancy_cells", "tiles_right",
                     "figures_truth", "figures_pred", "figures_matched", "colour_right", "colour_total",
                     "location_right", "location_total", "gold_right", "gold_cells", "ore_right", "ore_cells"):
            summary_row[name] = sum(getattr(p.comparison, name) for p in self.photos)
        w.writerow([_csv_value(summary_row.get(c)) for c in cols])
        return write_atomic(path, buf.getvalue())


CSV_COLUMNS = (
    "photo", "truth", "read_ok", "reason", "grid_found", "offset", "north_turns", "truth_tiles", "pred_tiles",
    "occupancy_right", "occupancy_cells", "occupancy_accuracy", "tiles_right", "tile_accuracy", "tile_error",
    "figures_truth", "figures_pred", "figures_matched", "figure_precision", "figure_recall",
    "colour_right", "colour_total", "colour_accuracy", "location_right", "location_total", "location_accuracy",
    "gold_right", "gold_cells", "gold_accuracy", "ore_right", "ore_cells", "ore_accuracy",
    "tiles_all_right", "board_right", "scores_right", "score_mode", "score_note", "seconds", "tracemalloc_peak_mb", "rss_delta_mb",
)


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (list, tuple)):
        return " ".join(str(x) for x in v)
    return v


def find_photos(folder: str | Path) -> tuple[list[tuple[Path, Path]], list[Path]]:
    """Photos of ``folder`` with their ground-truth files, and those without one.

    The truth of ``NAME.jpg`` is the first of ``NAME.jpg.truth.json``,
    ``NAME.truth.json`` and ``NAME.board.json`` that exists.  Only the folder
    itself is searched (not subfolders); names are sorted.

    Parameters
    ----------
    folder : str or Path

    Returns
    -------
    pairs : list of (Path, Path)
        ``(photo, truth file)``.
    missing : list of Path
        Photos without a truth file.

    Raises
    ------
    ScorerError
        ``folder`` is not a folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ScorerError(f"cannot evaluate {str(folder)!r}: not a folder (give the folder of photos)")
    pairs, missing = [], []
    for photo in sorted(folder.iterdir()):
        if not photo.is_file() or photo.suffix.lower() not in PHOTO_SUFFIXES:
            continue
        for cand in (photo.with_name(photo.name + ".truth.json"), photo.with_name(photo.stem + ".truth.json"),
                     photo.with_name(photo.stem + ".board.json")):
            if cand.is_file():
                pairs.append((photo, cand))
                break
        else:
            missing.append(photo)
    return pairs, missing


def truth_mode(truth: Board, where: str = "truth") -> str | None:
    """The scoring mode the truth board names (``mode`` or ``score_mode``, top level or in ``synth``).

    Raises
    ------
    BoardFormatError
        The named mode is not ``final`` or ``completed``.
    """
    synth = truth.extra.get("synth")
    for src, prefix in ((truth.extra, ""), (synth if isinstance(synth, dict) else {}, "synth.")):
        for key in MODE_KEYS:
            if key in src:
                value = src[key]
                if value not in SCORE_MODES:
                    raise BoardFormatError(f"{where}: {prefix}{key}: expected one of "
                                           f"{', '.join(SCORE_MODES)}, got {value!r}")
                return value
    return None


def north_off_diagonal(truth: Board) -> float | None:
    """How far the truth lattice's north is from the nearest photo diagonal, degrees.

    Read from a synthesised truth's ``synth.cell_corners`` (kept in
    :attr:`Board.extra` by :func:`~scorer.board.read_board`; photo pixels of each
    truth cell, clockwise from the north-west corner): the mean over cells of
    the angle between the photo's up direction and the cell's south-to-north
    edge-midpoint vector (a mean on the circle of quarter turns), as its
    distance in ``[0, 45]`` from the diagonal.  The truth's
    north is the camera's in-plane turn rounded to a quarter turn; perspective
    moves the angle seen across the photo, so near a diagonal the photo's top
    edge points at two lattice sides almost equally.  Where the truth records
    that turn (``synth.params.rotation_deg``), its own distance from a
    diagonal is taken when smaller: a camera turned 225.06 degrees and
    tilted 41 has its truth's north set by those 0.06 degrees, while the
    board, seen off the photo's centre, may show its lattice 7 degrees from
    the diagonal.

    Parameters
    ----------
    truth : Board
        A truth board read from a ``PHOTO.truth.json`` file.

    Returns
    -------
    float or None
        Degrees (0 = exactly diagonal, 45 = a lattice side straight up);
        ``None`` when the file has no synthesised cell corners (a hand-made truth).
    """
    try:
        cells = truth.extra["synth"]["cell_corners"]
        angles = []
        for cell in cells:
            nw, ne, se, sw = ((float(x), float(y)) for x, y in cell["px"])
            vx = (nw[0] + ne[0] - se[0] - sw[0]) / 2.0
            vy = (nw[1] + ne[1] - se[1] - sw[1]) / 2.0
            angles.append(math.atan2(vx, -vy))
    except (ValueError, KeyError, TypeError):
        return None
    if not angles:
        return None
    # Quarter turns are alike: average on the circle of four times the angle.
    mean = math.atan2(sum(math.sin(4 * a) for a in angles), sum(math.cos(4 * a) for a in angles))
    seen = abs(math.degrees(mean / 4.0) % 90.0 - 45.0)
    try:
        roll = float(truth.extra["synth"]["params"]["rotation_deg"])
    except (ValueError, KeyError, TypeError):
        return seen
    return min(seen, abs(roll % 90.0 - 45.0))


def reader_name(reader: Callable) -> str:
    """``module.qualname`` of a reader function (its ``repr`` for other callables)."""
    mod = getattr(reader, "__module__", None)
    qual = getattr(reader, "__qualname__", None)
    return f"{mod}.{qual}" if mod and qual else repr(reader)


def load_reader(spec: str) -> Reader:
    """Import a reader given as ``module:function`` (e.g. ``scorer.vision:read_photo``).

    Raises
    ------
    ScorerError
        Malformed ``spec``, module not importable or no such callable.
    """
    mod_name, sep, func_name = spec.partition(":")
    if not sep or not mod_name or not func_name:
        raise ScorerError(f"reader: expected MODULE:FUNCTION such as {DEFAULT_READER!r}, got {spec!r}")
    try:
        module = importlib.import_module(mod_name)
    except ImportError as exc:
        raise ScorerError(f"reader {spec!r}: cannot import {mod_name!r} ({exc})") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ScorerError(f"reader {spec!r}: module {mod_name!r} has no function {func_name!r}")
    return func


def _default_reader() -> tuple[Reader | None, str | None]:
    try:
        return load_reader(DEFAULT_READER), None
    except ScorerError as exc:
        return None, f"photo pipeline not available: {exc}"


def _max_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10  # bytes on macOS, KiB on Linux


def _run_reader(reader: Reader, photo: Path, trace_memory: bool):
    """Call the reader once: (board or None, error or None, seconds, traced peak MiB, RSS growth MiB)."""
    rss0 = _max_rss_mb()
    started_tracing = False
    base = 0
    if trace_memory:
        if not tracemalloc.is_tracing():
            tracemalloc.start()
            started_tracing = True
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
    board, error = None, None
    t0 = time.perf_counter()
    try:
        board = reader(photo)
    except ScorerError as exc:
        error = f"{type(exc).__name__}: {exc}"
    finally:
        seconds = time.perf_counter() - t0
        peak = None
        if trace_memory:
            peak = max(0, tracemalloc.get_traced_memory()[1] - base) / 2**20
            if started_tracing:
                tracemalloc.stop()
    rss1 = _max_rss_mb()
    rss = None if rss0 is None or rss1 is None else max(0.0, rss1 - rss0)
    if error is None and not isinstance(board, Board):
        error = f"reader returned {type(board).__name__}, not a Board"
        board = None
    return board, error, seconds, peak, rss


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version(), "platform": platform.platform()}
    try:
        from importlib.metadata import version

        out["scorer"] = version("scorer")
    except Exception:  # pragma: no cover - not installed
        from . import __version__

        out["scorer"] = __version__
    for name, mod in (("numpy", "numpy"), ("opencv", "cv2"), ("scikit-image", "skimage")):
        m = sys.modules.get(mod)
        if m is None:
            try:
                m = importlib.import_module(mod)
            except ImportError:
                continue
        out[name] = str(getattr(m, "__version__", "?"))
    return out


def evaluate_dir(folder: str | Path, *, reader: Reader | None = None, mode: str | None = None,
                 score_fn: ScoreFn | None = None, tile_sets: Iterable[str | Path | TileSet] = (),
                 trace_memory: bool = True) -> Evaluation:
    """Read every photo of a folder with ground truth and compare with the truth.

    Parameters
    ----------
    folder : str or Path
        Folder of photos with truth files (:func:`find_photos`).
    reader : callable Path -> Board, optional
        The photo pipeline.  ``None``: ``scorer.vision.read_photo``, imported now;
        when it cannot be imported every photo is a failed read, with the reason.
        A :class:`ScorerError` raised on a photo is a failed read of that photo.
    mode : {"final", "completed"}, optional
        Scoring mode for the scores comparison.  ``None``: the mode the truth
        names (:func:`truth_mode`), else ``final``.
    score_fn : callable (Board, str) -> dict colour -> int, optional
        Points per player (default :func:`scorer.scoring.score`).
    tile_sets : iterable
        User tile sets the truth boards need (``--tiles``).
    trace_memory : bool
        Trace the reader with :mod:`tracemalloc` (its overhead is then part of ``seconds``).

    Returns
    -------
    Evaluation

    Raises
    ------
    ScorerError
        ``folder`` is not a folder or holds no photo with a truth file; ``mode``
        is unknown.
    BoardFormatError
        A truth file is malformed (the message names the file and the field).
    """
    if mode is not None and mode not in SCORE_MODES:
        raise ScorerError(f"mode: unknown scoring mode {mode!r}; expected one of {', '.join(SCORE_MODES)}")
    folder = Path(folder)
    tile_sets = list(tile_sets)
    pairs, missing = find_photos(folder)
    for m in missing:
        log.warning("%s: no ground truth (%s.truth.json or %s.board.json); skipped", m.name, m.name, m.stem)
    if not pairs:
        raise ScorerError(f"{str(folder)!r} holds no photo ({', '.join(PHOTO_SUFFIXES)}) with a ground-truth "
                          f"file beside it (PHOTO.truth.json or NAME.board.json)")
    unavailable = None
    if reader is None:
        reader, unavailable = _default_reader()
        if unavailable:
            log.warning("%s; every photo counts as a failed read", unavailable)
    config: dict[str, Any] = {
        "reader": reader_name(reader) if reader is not None else DEFAULT_READER,
        "reader_available": reader is not None,
        "mode": mode or "from truth, else final",
        "memory": ("tracemalloc peak of the reader call (Python objects and NumPy arrays) and "
                   "getrusage ru_maxrss growth" if trace_memory else "getrusage ru_maxrss growth only"),
        "seconds": "wall time of the reader call" + (" (with tracemalloc on)" if trace_memory else ""),
        "folder": str(folder),
        "tile_sets": [s.name if isinstance(s, TileSet) else str(s) for s in tile_sets],
        "versions": _versions(),
        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    reader_config = getattr(reader, "config", None)
    if isinstance(reader_config, Mapping):
        config["reader_config"] = dict(reader_config)
    results = []
    for photo, truth_path in pairs:
        truth = read_board(truth_path, tile_sets=tile_sets)
        photo_mode = mode or truth_mode(truth, truth_path.name) or "final"
        if reader is None:
            board, error, seconds, peak, rss = None, unavailable, None, None, None
        else:
            board, error, seconds, peak, rss = _run_reader(reader, photo, trace_memory)
        pred = board if board is not None else Board(game=truth.game, expansions=list(truth.expansions),
                                                      catalog=truth.catalog)
        cmp = compare_boards(truth, pred, mode=photo_mode, score_fn=score_fn)
        north_turns = 0
        off_diagonal = north_off_diagonal(truth)
        if pred.tiles and off_diagonal is not None and off_diagonal < NORTH_AMBIGUOUS_DEG:
            for k in (1, -1):  # no single north: a quarter-turned reading is as right
                other = compare_boards(truth, turn_board(pred, k, normalise=False), mode=photo_mode,
                                       score_fn=score_fn)
                if other.tiles_right > cmp.tiles_right:
                    cmp, north_turns = other, k
        reason = error
        if error is None and not cmp.grid_found:
            reason = "no tiles read (grid not found)"
        if (error is not None or not cmp.grid_found) and cmp.scores_right:
            # Nothing was read: even a truth worth no points (nothing completed yet) is not scored right.
            cmp.scores_right = False
        if error is not None:
            log.info("%s: failed read: %s", photo.name, error)
        results.append(PhotoResult(photo.name, truth_path.name, board is not None, reason, seconds, peak, rss, cmp,
                                   north_turns))
        log.debug("%s: %.2f s, board right %s", photo.name, seconds or 0.0, cmp.board_right)
    return Evaluation(results, [m.name for m in missing], config)
