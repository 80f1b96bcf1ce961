"""Tile recognition: which tile, turned how, lies on every cell of the lattice.

Pipeline (one public entry, :func:`read_tiles`; helpers below in pipeline order):

0. **lattice check** (:func:`check_lattice`, called by the photo pipeline
   before the catalogue guess): a lattice of half or twice the tile period
   (or 3/4 or 4/3 of it along one axis), or one the grid stage's fit bent off
   the far tiles, is replaced by the one
   whose cells match the tile templates clearly better; a weak lattice, by
   another pass's of the grid stage whose tiles read match clearly better;
1. **survey**: every lattice cell seen in the photo is warped top-down at a
   few pixels a tile and compared coarsely with every template (step 4);
   only cells within ``board_margin`` of a cell that clearly looks like a
   tile are examined further (with a steep view and a wide lens most of the
   lattice is far table).  :func:`guess_catalog` makes the same survey and
   hands it to :func:`read_tiles` on the same photo and lattice;
2. **rectify**: the cells examined are warped, in one pass (homography and
   lens distortion of the :class:`~scorer.vision.grid.Grid`), to a top-down
   picture with ``detail_px`` pixels per tile, the photo first shrunk with
   area averaging so that no cell is aliased;
   **phase check** (after step 5, off by default: ``phase_check``): a lattice
   found half a tile off (seams inside tiles can pull it there) is moved back
   when the tiles match clearly better so; :func:`check_lattice` tries that
   lattice too;
3. **quality**: too small tiles (fewer than ``min_tile_px`` photo pixels a
   side) or too dark a photo (mean luminance) raise a
   :class:`~scorer.errors.PhotoError` saying what to change; so does too
   blurry a photo, once the tiles are matched (the blur that best turns the
   tile art into the surest cells, ``max_blur``);
4. **coarse match**: every cell, blurred to ``coarse_px`` pixels a tile, is
   compared with every template (every tile type of the catalogue at each of
   its rotations) by normalised cross-correlation with per-channel means
   removed, over a search of shifts (hand-laid tiles lie up to ~10% off the
   lattice); the ``top_k`` best templates per cell go on;
5. **fine match**: at ``patch_px`` pixels a tile the shift is refined;
6. **position prior**: tiles and lattice errors drift smoothly across the
   table, so each cell is searched again, coarse and fine, only near where its
   surely matched neighbours lie (a wide search lets a wrong template fit at a
   wrong position; only neighbours whose colours agree with the tiles' vote:
   a striped cloth fits a tile's structure anywhere); then the photo is
   white-balanced on the surest cells (the largest group whose colours
   agree, counting few copies of any one tile: wood grain may fit a plain
   prairie all round the board) and each candidate scored by a robust
   fit (one gain, an offset per channel) that ignores the worst-fitting
   pixels, less its chromaticity misfit under the photo's typical colours
   (a plain field under a monk must not read as a plain city);
7. **occlusion**: what no candidate explains on a tile of the board, in a
   compact blob (a figure, a gold stack, its shadow), is hidden; such cells
   are compared with every template on what stays visible, and the hidden
   pixels cost every template alike;
8. **detail**: candidates that score nearly alike (tiles that differ in a
   pennant, an inn or a road stub) are compared where they differ and nothing
   hides the tile, at ``detail_px``;
9. **occupancy**: a logistic model of the match score, the contrast, the
   colour misfit, the tint (colour misfit under the photo's typical contrast),
   the hidden share, how far an unhidden cell falls short of any template and
   the colours of this photo's table and tiles;
10. **decode** (:mod:`scorer.vision.decode`): the board as a whole, neighbouring
    sides must match, no tile more often than the box holds, the river is one
    river, tiles lie next to tiles; cells that still disagree are compared with
    every tile that would fit their neighbours and decoded again.  Confidences
    come from the decoded margins.  A small group of tiles two or more empty
    cells away from the board (a supply stack, a score board) is left out.

Tile templates come from an :class:`~scorer.vision.appearance.Appearance`
(procedural art by default, real art with ``art_dir``, or pictures learnt by
``scorer calibrate``).

References: J. P. Lewis, "Fast Normalized Cross-Correlation", Vision Interface
1995 (normalised cross-correlation with running sums); J. Besag, "On the
statistical analysis of dirty pictures", JRSS B 48 (1986) (iterated
conditional modes, used by the decoder); M. J. Swain, D. H. Ballard, "Color
indexing", IJCV 7 (1991) (colour histograms, the table model); P. J. Huber,
"Robust Statistics", Wiley 1981 (trimmed and capped misfits: a pixel that is
either the template plus noise or something standing on it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import PhotoError, TableNotFoundError, TilesTooSmallError
from ..geometry import Cell
from ..tiles import Catalog, TileType
from .appearance import Appearance, merged_pictures
from .grid import Grid

log = logging.getLogger(__name__)

#: Second round of speed-ups that give the same numbers (one pool of two threads kept between
#: calls, chunk loops shared by both threads, ...); False runs the plain versions (to measure and check).
_FAST2 = True
_POOL: Any = None
_POOL_LOCK = threading.Lock()
_IN_POOL = threading.local()


def _mark_worker() -> None:
    _IN_POOL.on = True


def parallel_map(fn: Any, items: Sequence[Any]) -> list[Any]:
    """``[fn(x) for x in items]``, shared by two threads kept between calls when that can help.

    For work that mostly runs in numpy or OpenCV (which let go of the
    interpreter).  Serial on one processor, with ``_FAST2`` off, and inside
    the pool's own threads (a nested call would wait for itself).  Every
    item's result is computed exactly as in the serial loop.
    """
    global _POOL
    items = list(items)
    if not _FAST2 or len(items) < 2 or (os.cpu_count() or 1) < 2 or getattr(_IN_POOL, "on", False):
        return [fn(x) for x in items]
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="scorer-vision",
                                           initializer=_mark_worker)
    return list(_POOL.map(fn, items))


@dataclass
class TileConfig:
    """Thresholds of tile recognition (``config.toml`` section ``[tiles]``).

    Lengths in tile units are fractions of a tile side.
    """

    detail_px: int = 64  # rectified picture and detail comparison: pixels per tile side
    patch_px: int = 32  # fine comparison: pixels per tile side
    coarse_px: int = 12  # coarse comparison: pixels per tile side
    oversample: float = 1.5  # photo pixels per patch pixel kept before rectifying
    inset: float = 0.1  # border of each tile ignored (gaps, rounded corners), tile units
    max_shift: float = 0.12  # hand misalignment searched (coarse stage), tile units
    fine_shift: float = 0.06  # fine search around the coarse position, tile units
    blur: float = 0.025  # Gaussian sigma applied to cells and templates, tile units
    coarse_blur: float = 0.05
    top_k: int = 8  # candidates per cell kept from the coarse stage
    position_prior: bool = True  # search each tile again near where its surely matched neighbours lie
    prior_radius: int = 2  # neighbours within this many cells vote ...
    prior_sigma: float = 1.5  # ... weighted by a Gaussian of their distance, cells
    prior_votes: int = 3  # fewest voters for a local prediction (else the median of every sure cell)
    prior_candidates: int = 2  # best coarse candidates placed at the fine scale to find the sure tiles
    prior_coarse_shift: float = 0.08  # coarse search around the prediction, tile units
    prior_fine_shift: float = 0.05  # fine search around the prediction, tile units
    occlusion: bool = True  # find what hides part of a tile (figures) and compare on the rest
    occ_candidates: int = 8  # a pixel none of this many best candidates explains is hidden ...
    occ_noise: float = 8.0  # a hidden pixel misfits more than this times the cell's median misfit ...
    occ_level: float = 0.5  # ... and more than this times the cell's mean pixel variance
    occ_rounds: int = 2  # find the hidden pixels and compare again this many times
    occ_seed: float = 0.5  # ... on cells that match some tile this well, and their neighbours ...
    occ_min_occupancy: float = 0.05  # ... that hold a tile at least this likely (before looking through figures)
    occ_neighbours: int = 2  # ... or have at least this many such neighbours
    occ_cap: float = 3.0  # a hidden pixel's squared misfit counts up to this times the hiding threshold
    occ_open: float = 0.06  # hidden blobs narrower than twice this are art (a road, a rail, a pennant), tile units
    occ_min: float = 0.04  # cells with at least this share hidden are compared again with every template ...
    occ_max: float = 0.6  # ... and at most this share
    occ_shift: float = 0.035  # shift search of that comparison, tile units
    detail_margin: float = 0.08  # candidates this close to the best are compared in detail
    detail_candidates: int = 4  # ... at most this many
    detail_diff: float = 60.0  # pixels where close templates differ by more (sum of RGB, 0-765)
    detail_shift: float = 0.016  # shift search of the detail comparison, tile units
    detail_inset: float = 0.03  # border ignored by the detail comparison (symbols sit near corners)
    detail_weight: float = 0.5  # score moved per unit of masked fit
    detail_min: float = 0.3  # only cells whose best score reaches this are examined in detail
    detail_hidden_min: float = 0.1  # ... this, where figures hide at least occ_min of the tile (they lower every score)
    detail_hidden_margin: float = 0.15  # ... and there the candidates this close to the best are compared
    detail_floor: float = 0.25  # masked photo variance floored at this share of the cell's
    detail_local: bool = True  # the masked fit removes the mask's own means and fits its own gain ...
    detail_gain_low: float = 0.5  # ... between this ...
    detail_gain_high: float = 1.5  # ... and this times the whole cell's gain ...
    detail_local_visible: float = 0.5  # ... when at least this share of those pixels is not hidden
    detail_own_shift: bool = True  # where figures hide part of the tile, close candidates compared at each one's own fitted position, kept where they fit together best (False: the best's only)
    detail_band: bool = True  # the hidden pixels at the edge of the fine window go on to the tile's border
    detail_hidden_grow: float = 0.03  # the hidden pixels grown by this much for the detail comparison, tile units
    detail_chroma: float = 0.5  # share of the detail comparison made on chromaticity (blind to shadows; 0: off)
    detail_reclaim: float = 4.0  # hidden pixels a close candidate explains within this times the visible pixels' median misfit take part again (0: off)
    detail_twin: float = 0.05  # close candidates whose detail pictures differ on at most this share of the window start the detail comparison level (0: off)
    trim: float = 0.12  # share of worst-fitting pixels ignored by the fine score (figures on the tile)
    chroma_weight: float = 1.5  # score lost per unit of a candidate's chromaticity misfit (log ratio) ...
    chroma_cap: float = 0.5  # ... counted up to this misfit
    sure_ncc: float = 0.8  # cells matched at least this well set the white balance ...
    max_cast: float = 0.3  # ... unless their colours need a larger cast (log ratio of a channel to the mean); such cells set neither the typical tile colours nor the occupancy reference
    consensus_per_tile: int = 4  # the white balance is the largest group of such cells whose colours agree, each tile type counted at most this many times (wood grain may fit one plain tile all round the board)
    sure_score: float = 0.75  # cells above this score set the photo's typical tile contrast ...
    sure_colour: float = 0.0  # ... when their colour cue is at most this (log misfit / variance)
    # occupancy logistic model without the table colours: bias, then the weights of
    # score, contrast, colour, tint, hidden, bare (see _occupancy_features)
    occ0_weights: tuple = (-5.90, 1.74, 0.78, -0.78, -1.95, 0.75, -1.04)
    # ... with them: the same, then the weight of the tile/table colour log-likelihood ratio (0: not used)
    occ_weights: tuple = (-5.40, 1.10, 0.49, -0.55, -1.44, 0.28, -0.55, 1.54)
    bare_score: float = 0.2  # "bare" cue: how far the best match falls below this ...
    bare_hidden: float = 0.1  # ... fading with the share hidden by figures (this share: 1/e)
    table_llr_clip: float = 4.0
    decode_min_occupancy: float = 0.01  # cells less likely to hold a tile are left out of decoding ...
    hole_neighbours: int = 4  # ... unless this many of their neighbours hold decoded tiles (0: off)
    neighbour_prior: tuple = (-2.5, 0.3, 1.8, 3.4, 4.1)  # nats for a tile with 0-4 occupied neighbours
    phase_check: bool = False  # try the lattice moved by half a tile on its best cells' coarse match (off: the lattice check's own half-tile trial only; on small boards the coarse match prefers cells of four quarter tiles)
    phase_cells: int = 120  # on at most this many of the best-matching cells
    phase_margin: float = 0.05  # coarse match another phase must gain to replace the grid's
    # Lattice check (check_lattice): a lattice of another period than the tiles', or one bent by the fit.
    lattice_check: bool = True  # off: the grid stage's lattice is taken as it is
    lattice_top: int = 20  # a lattice is rated by the mean best coarse match of its this many best cells (of a tile's size)
    lattice_check_below: float = 0.85  # a lattice rated below this is compared with lattices of other periods (half, twice; 3/4, 4/3 along one axis) ...
    lattice_period_gain: float = 0.12  # ... one of which replaces it when rated this much better ...
    lattice_period_min: float = 0.85  # ... and at least this ...
    lattice_min_tiles: float = 8.0  # ... with this many more cells (of the smaller size) matching at board_score
    lattice_alternatives: int = 6  # ... and so are this many of the other lattices the seams allow (grid.debug["alternatives"]; 0: none) ...
    lattice_same: float = 0.2  # ... that put the cells looking like tiles elsewhere: corners this far off its lines, tile units
    lattice_alt_larger: float = 4.0  # ... and whose cells are at most this many times as large in the photo
    lattice_alt_near: float = 1.25  # ... one whose cells are within this factor of the lattice's in area ...
    lattice_alt_near_gain: float = 0.03  # ... is read when rated this much better ...
    lattice_alt_near_tiles: float = 2.0  # ... with this many more cells matching (0: only on the terms above)
    lattice_alt_reads: int = 3  # at most this many other lattices that pass are read, the best rated first
    lattice_game_gap: float = 0.02  # a lattice another game's tiles rate this much above the guessed game's ...
    lattice_game_below: float = 0.85  # ... and the guessed game's below this is checked again on the guessed game's alone
    lattice_start_move: float = 0.25  # the lattice before the fit is rated too when the board's cells lie this far apart on the two, tile units ...
    lattice_start_gain: float = 1.5  # ... and replaces the fit when this many times its cells (plus lattice_min_tiles) match on it
    lattice_passes: bool = True  # a lattice the grid stage found weak and searched again for (grid.debug["passes"]) is compared with the other passes' lattices by the tiles read on each (off: not) ...
    lattice_pass_gain: float = 0.02  # ... one of which replaces it when its tiles match their templates this much better on average ...
    lattice_pass_tiles: float = 0.9  # ... and at least this share as many tiles are read on it
    lattice_pass_floor: float = 0.35  # ... and, where the photo is refused on the lattice chosen, when its tiles match at least this on average
    repair: bool = True  # compare disagreeing cells with every tile that fits their neighbours
    repair_trim: float = 0.3  # share of worst-fitting pixels ignored when repairing (figures)
    repair_min_occupancy: float = 0.001  # cells less likely to hold a tile are not repaired
    repair_edge_occupancy: float = 0.02  # an empty cell beside one tile is repaired when at least this likely
    repair_occlusion: bool = True  # find what hides the repaired cells again and compare around it
    min_tile_px: float = 21.0  # smallest tile side in photo pixels (narrower tiles are refused)
    close_tile_px: float = 300.0  # tiles at least this large (pixels a side, working size) that match nothing: advise stepping back (0: off)
    min_luminance: float = 35.0  # darkest board mean luminance, 0-255
    max_blur: float = 0.07  # largest photo blur (Gaussian sigma, tile units) before refusing the photo ...
    max_sharpness_blurred: float = 0.5  # ... when its Laplacian variance / intensity variance is also below this
    max_cells: int = 6000  # lattice cells surveyed at most
    survey_min_px: float = 12.0  # cells whose side in the photo is below this are not surveyed, unless no cell is larger: far table or floor of a steep view, too small to read even at the retry size (photo.retry_max_side), pixels (0: off)
    board_score: float = 0.8  # cells whose best coarse match reaches this look like tiles ...
    board_margin: int = 2  # ... and only cells this near one are examined (the rest is table), cells
    max_board_area: int = 3000  # cells in the bounding box of the examined cells at most: beyond, the farthest (smallest in the photo) are dropped (a steep view over a textured floor), cells
    # decoding
    unary_temperature: float = 0.04  # match-score units per nat
    side_penalty: float = 4.0  # nats lost per neighbouring side that does not match
    box_penalty: float = 6.0  # nats lost per copy more than the box holds
    box_swap_min: float = 0.2  # a cell takes a copy of a tile from another cell in the decode only when it matches that tile at least this (fine score; a patch of table has no claim on a copy)
    count_prior: float = 1.0  # where figures hide what tells close candidates apart, they score alike and each gains this many nats per unit of its log box count (0: off)
    decode_rounds: int = 6
    confidence_temperature: float = 2.0  # softens the decoded margins (calibrated on synthetic photos)
    alternatives: int = 3
    catalog_margin: float = 0.02  # mean score a larger catalogue must gain to be preferred
    catalog_cells: int = 40  # cells (best matched under any catalogue) that decide the catalogue
    catalog_colour_weight: float = 2.0  # weight of the colour agreement against the coarse match
    catalog_min_contrast: float = 0.35  # cells whose pixel spread is below this share of a sure tile's do not vote ...
    catalog_contrast_rank: int = 2  # ... the sure tile: the cell with this many cells of larger spread
    occ_dark: float = 0.6  # pixels darker than this share of the art of each of ... (0: off)
    occ_dark_candidates: int = 3  # ... this many best candidates are hidden too (black wood, an ore stack)
    catalog_recheck_gap: float = 0.6  # a guessed catalogue leading by less is checked by reading the runner-up too
    hidden_softness: float = 3.0  # a cell's decoding temperature grows by this times its share hidden (0: off)
    unmatched_score: float = 0.0  # a decoded tile matching below this (fine score) is table ... (-1: off)
    unmatched_hidden: float = 0.05  # ... when less than this share of the cell is hidden ...
    unmatched_neighbours: int = 4  # ... and fewer of its neighbours hold tiles that match (0: any number)
    unmatched_occupancy: float = 0.9  # ... unless its occupancy is at least this (a tile with faint art; >1: off)
    detached_gap: int = 2  # a group of tiles this many empty cells or more away from the board is not on it ... (0: off)
    detached_share: float = 0.5  # ... when it holds at most this share of the board's tiles


@dataclass
class CellReading:
    """What one occupied cell holds.

    Attributes
    ----------
    cell : (int, int)
        Lattice cell ``(i, j)`` (``i`` east, ``j`` south).
    tile_id : str
        Catalogue id.
    tile : TileType
        The catalogue's tile type.
    rot : int
        Clockwise quarter turns, 0-3.
    confidence : float
        Probability (0-1) that tile and rotation are right (a rotation
        symmetric tile is right in any of its equivalent rotations).
    alternatives : list of dict
        Runners-up ``{"tile": id, "rot": r, "confidence": c}``, best first.
    occupancy : float
        Probability (0-1) that the cell holds a tile at all.
    score : float
        Raw fine match score of the chosen template (-1..1).
    shift : (float, float)
        Offset of the tile from its lattice cell, tile units (east, south).
    """

    cell: Cell
    tile_id: str
    tile: TileType
    rot: int
    confidence: float
    alternatives: list[dict[str, Any]]
    occupancy: float
    score: float
    shift: tuple[float, float] = (0.0, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """``{"x", "y", "tile", "rot", "confidence", "alternatives"}`` in lattice coordinates."""
        return {"x": self.cell[0], "y": self.cell[1], "tile": self.tile_id, "rot": self.rot,
                "confidence": round(self.confidence, 4), "alternatives": self.alternatives}


@dataclass
class TileReading:
    """The tiles read from one photo.

    Attributes
    ----------
    cells : dict (int, int) -> CellReading
        Every occupied cell wholly inside the photo.
    cut : list of (int, int)
        Cells cut by the photo's edge that may hold a tile (beside the board or
        looking like a tile where visible): reported, not guessed.
    occupancy : dict (int, int) -> float
        Probability that the cell holds a tile, for every cell examined.
    catalog : Catalog
        The catalogue the tiles were read with.
    rectified : (R, C, 3) uint8 ndarray
        Top-down picture of the examined lattice region, ``px`` pixels a tile.
    origin : (int, int)
        Lattice cell at the top-left corner of ``rectified``.
    px : int
        Pixels per tile side in ``rectified``.
    grid : Grid
        The lattice the cells refer to: the grid given, or a copy moved by half
        a tile when the tiles showed it was off (``debug["phase_shift"]``).
    debug : dict
        Timings and statistics; ``hidden``: ``[x, y, share]`` of every cell
        where figures hide at least ``occ_min`` of the tile.
    detached : list of (int, int)
        Cells read as tiles but left out, lying apart from the board (a supply
        stack, a score board): reported, in case one belongs to the board.
    """

    cells: dict[Cell, CellReading]
    cut: list[Cell]
    occupancy: dict[Cell, float]
    catalog: Catalog
    rectified: np.ndarray
    origin: Cell
    px: int
    grid: Grid | None = None
    debug: dict[str, Any] = field(default_factory=dict)
    detached: list[Cell] = field(default_factory=list)

    def patch(self, cell: Cell, *, pad: float = 0.0) -> np.ndarray:
        """Top-down RGB crop of ``cell`` (``pad`` tiles around it), ``px`` pixels a tile.

        Parameters
        ----------
        cell : (int, int)
            Lattice cell.
        pad : float
            Extra border in tiles (at most 1).

        Returns
        -------
        (S, S, 3) uint8 ndarray
            Black where the cell lies outside the photo or the examined region.
        """
        p = self.px
        m = int(round(min(max(pad, 0.0), 1.0) * p))
        x0 = (cell[0] - self.origin[0]) * p - m
        y0 = (cell[1] - self.origin[1]) * p - m
        size = p + 2 * m
        out = np.zeros((size, size, 3), np.uint8)
        h, w = self.rectified.shape[:2]
        xa, ya = max(x0, 0), max(y0, 0)
        xb, yb = min(x0 + size, w), min(y0 + size, h)
        if xa < xb and ya < yb:
            out[ya - y0:yb - y0, xa - x0:xb - x0] = self.rectified[ya:yb, xa:xb]
        return out

    def placements(self) -> list[dict[str, Any]]:
        """Every read tile as a board-file tile object (lattice coordinates), with confidences."""
        return [r.to_dict() for _, r in sorted(self.cells.items(), key=lambda kv: (kv[0][1], kv[0][0]))]


# --------------------------------------------------------------------------- templates


@dataclass
class Templates:
    """Every tile of a catalogue at each distinct rotation, ready to compare.

    Attributes
    ----------
    keys : list of (str, int)
        ``(tile id, rot)`` per template; rotations whose picture repeats an
        earlier rotation's are left out.
    alias : dict (str, int) -> int
        Template index of every ``(tile id, rot)``, repeated pictures included.
    coarse, fine : (M, D) float32 ndarray
        Inner part of each template, per-channel zero mean, unit norm.
    fine_norm : (M,) float ndarray
        Norm of each fine template before normalising (its contrast).
    detail : (M, w, w, 3) float32 ndarray
        Inner part of each template at ``detail_px``, blurred, raw colours 0-255.
    """

    keys: list[tuple[str, int]]
    alias: dict[tuple[str, int], int]  # every (tile id, rot), repeated pictures included -> template index
    coarse: np.ndarray
    fine: np.ndarray
    fine_norm: np.ndarray  # (M,) norm of each fine template before normalising (its contrast)
    fine_raw: np.ndarray  # (M, w, w, 3) float32: inner part at ``patch_px``, blurred, raw colours
    mean_rgb: np.ndarray  # (M, 3) mean colour of each template's inner part
    detail: np.ndarray  # (M, w, w, 3) float32: inner part at ``detail_px``, blurred, raw colours
    sharp: np.ndarray  # (M, w, w, 3) float32: the same, not blurred
    catalog_ids: tuple[str, ...]
    differ: dict = field(default_factory=dict)  # (a, b) -> (w, w) bool: where templates a and b differ (detail_px)


_TEMPLATE_CACHE: dict[tuple, Templates] = {}


def _catalog_key(catalog: Catalog) -> tuple:
    return tuple((tid, t.features, bool(t.gold), bool(t.sheriff)) for tid, t in catalog.tiles.items())


def build_templates(catalog: Catalog, cfg: TileConfig, appearance: Appearance | None = None) -> Templates:
    """Templates of every tile of ``catalog`` at every distinct rotation (cached).

    Cached in memory and on disk (:func:`cache_dir`, ``templates/<hash>.npz``,
    the hash of the drawing and template code, the tile data, the template
    settings of ``cfg``, the appearance's pictures and the numpy and OpenCV
    major versions); a cache file that cannot be read is built again.

    Parameters
    ----------
    catalog : Catalog
    cfg : TileConfig
    appearance : Appearance, optional
        Tile pictures (default: procedural art).

    Returns
    -------
    Templates
    """
    key = (_catalog_key(catalog), None if appearance is None else appearance.fingerprint(),
           cfg.detail_px, cfg.patch_px, cfg.coarse_px, cfg.inset, cfg.detail_inset, cfg.blur, cfg.coarse_blur)
    hit = _TEMPLATE_CACHE.get(key)
    if hit is not None:
        return hit
    path = _template_file(catalog, cfg, appearance)
    tpl = _load_templates(path, catalog) if path is not None else None
    if tpl is None:
        tpl = _make_templates(catalog, cfg, appearance)
        if path is not None:
            _save_templates(path, tpl)
            if _FAST3:
                _catalog_chroma(catalog, tpl)  # cached beside the templates (what guess_catalog weighs)
    if len(_TEMPLATE_CACHE) > 16:
        _TEMPLATE_CACHE.clear()
    _TEMPLATE_CACHE[key] = tpl
    return tpl


def _make_templates(catalog: Catalog, cfg: TileConfig, appearance: Appearance | None) -> Templates:
    """Draw and prepare every template (what :func:`build_templates` caches)."""
    size = max(128, 2 * cfg.detail_px)
    pics = merged_pictures(catalog, appearance, size)
    keys, coarse, fine, norms, detail, raw, means, sharp = [], [], [], [], [], [], [], []
    alias: dict[tuple[str, int], int] = {}
    di, dw = _inner(cfg.detail_px, cfg.detail_inset)
    for tid, tile in catalog.tiles.items():
        pic = pics[tid].astype(np.float32)
        seen: list[tuple[np.ndarray, int]] = []
        for rot in range(4):
            img = np.ascontiguousarray(np.rot90(pic, -rot))
            # A rotation-symmetric tile (TileType.symmetries) may still have art
            # that is not (a church, a junction house): only identical pictures merge.
            same = next((t for other, t in seen if np.abs(img - other).mean() < 2.0), None)
            if same is not None:
                alias[(tid, rot)] = same
                continue
            alias[(tid, rot)] = len(keys)
            seen.append((img, len(keys)))
            keys.append((tid, rot))
            vec, norm = _template_vector(img, cfg.patch_px, cfg.inset, cfg.blur)
            fine.append(vec)
            norms.append(norm)
            raw.append(_template_raw(img, cfg.patch_px, cfg.inset, cfg.blur))
            means.append(raw[-1].reshape(-1, 3).mean(axis=0))
            coarse.append(_template_vector(img, cfg.coarse_px, cfg.inset, cfg.coarse_blur)[0])
            big = cv2.resize(img, (cfg.detail_px, cfg.detail_px), interpolation=cv2.INTER_AREA)
            sharp.append(big[di:di + dw, di:di + dw])
            detail.append(_blur(big, cfg.blur * cfg.detail_px)[di:di + dw, di:di + dw])
    tpl = Templates(keys, alias, np.stack(coarse), np.stack(fine), np.array(norms), np.stack(raw).astype(np.float32),
                    np.array(means), np.stack(detail).astype(np.float32), np.stack(sharp).astype(np.float32),
                    tuple(catalog.tiles))
    return tpl


# Templates on disk: drawing the tile art and preparing ~200 templates costs
# about a quarter of a second, paid by every fresh process (every ``scorer
# score``).  The file name is a hash of everything the templates depend on, so
# a stale file is never read: a changed drawing or template code, tile data,
# configuration, appearance or library version gives another name.

#: Environment variable naming the cache folder; ``off`` (or empty, ``0``,
#: ``no``, ``none``) disables the disk cache.
CACHE_ENV = "SCORER_CACHE_DIR"
#: Bump when the layout of the cached template file changes.
_TEMPLATE_FILE_VERSION = 1
_TEMPLATE_ARRAYS = ("coarse", "fine", "fine_norm", "fine_raw", "mean_rgb", "detail", "sharp")
#: Template files kept in the cache folder (the most recently used; each is 10-25 MB):
#: files left by older versions or other settings are removed when a new one is written.
_TEMPLATE_FILES_KEPT = 6
_SOURCE_DIGEST: str | None = None


def cache_dir() -> Path | None:
    """The user's scorer cache folder, or ``None`` when caching is off.

    ``$SCORER_CACHE_DIR`` when set (``off``, ``0``, ``no``, ``none`` or empty:
    no disk cache), else ``$XDG_CACHE_HOME/scorer`` (default ``~/.cache/scorer``).
    """
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        env = env.strip()
        if env.lower() in ("", "0", "off", "no", "none"):
            return None
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "scorer"


def write_cache_file(path: Path, data: bytes, what: str, keep: int | None = None, pattern: str = "*") -> bool:
    """Write ``data`` to the cache file ``path`` atomically, then prune its folder.

    Parameters
    ----------
    path : Path
        File in :func:`cache_dir` (its folder is made when missing).
    data : bytes
    what : str
        What the file holds, for the log (``"tile templates"``).
    keep : int, optional
        Keep only this many most recently used files matching ``pattern`` in
        the folder (files of older code or settings); ``None``: prune nothing.
    pattern : str
        Glob of the files ``keep`` counts.

    Returns
    -------
    bool
        Whether the file was written; a folder that cannot be written only
        costs a log line (the cache is an optimisation, never an error).
    """
    from ..fileio import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    except Exception as exc:  # noqa: BLE001 - the cache is an optimisation only
        log.warning("cannot write the %s cache %s (%s); set %s=off to stop trying", what, path, exc, CACHE_ENV)
        return False
    log.debug("%s written to %s", what, path)
    if keep is not None:
        prune_cache(path.parent, keep, pattern, what)
    return True


def prune_cache(folder: Path, keep: int, pattern: str = "*", what: str = "cache") -> None:
    """Remove all but the ``keep`` most recently used files matching ``pattern`` in the cache ``folder``
    (files left by older code or other settings); a failure only costs a log line."""
    try:
        files = sorted(folder.glob(pattern), key=lambda f: f.stat().st_mtime, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
            log.debug("removed the unused %s cache %s", what, old)
    except OSError as exc:
        log.debug("cannot prune the %s cache %s (%s)", what, folder, exc)


def _source_digest() -> str:
    """Hash of the code that draws the tile art and turns it into templates (whole source files)."""
    global _SOURCE_DIGEST
    if _SOURCE_DIGEST is None:
        here = Path(__file__).resolve().parent
        h = hashlib.blake2b(digest_size=16)
        for f in (here / "recognise.py", here / "appearance.py",
                  here.parent / "render" / "tileart.py", here.parent / "render" / "colours.py"):
            h.update(f.name.encode())
            h.update(f.read_bytes())
        _SOURCE_DIGEST = h.hexdigest()
    return _SOURCE_DIGEST


def _template_file(catalog: Catalog, cfg: TileConfig, appearance: Appearance | None) -> Path | None:
    """Where the templates of this catalogue, configuration and appearance are cached (``None``: no cache)."""
    folder = cache_dir()
    if folder is None:
        return None
    h = hashlib.blake2b(digest_size=16)
    parts = [
        _TEMPLATE_FILE_VERSION, _source_digest(),
        [(tid, repr(t.features), repr(sorted((k, repr(v)) for k, v in t.meta.items())))
         for tid, t in catalog.tiles.items()],
        [cfg.detail_px, cfg.patch_px, cfg.coarse_px, cfg.inset, cfg.detail_inset, cfg.blur, cfg.coarse_blur],
        None if appearance is None else repr(appearance.fingerprint()),
        np.__version__.split(".")[0], cv2.__version__.split(".")[0],
    ]
    h.update(json.dumps(parts, default=repr).encode())
    return folder / "templates" / f"{h.hexdigest()}.npz"


def _load_templates(path: Path, catalog: Catalog) -> Templates | None:
    """The templates cached in ``path``; ``None`` (logged) when absent, unreadable or not fitting."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            head = json.loads(bytes(z["header"]).decode())
            arrays = {k: np.array(z[k]) for k in _TEMPLATE_ARRAYS}
        keys = [(str(t), int(r)) for t, r in head["keys"]]
        alias = {(str(t), int(r)): int(i) for t, r, i in head["alias"]}
        m = len(keys)
        if (head.get("version") != _TEMPLATE_FILE_VERSION or tuple(head["catalog_ids"]) != tuple(catalog.tiles)
                or any(len(a) != m for a in arrays.values()) or any(not 0 <= i < m for i in alias.values())):
            raise ValueError("the file does not fit the catalogue")
    except Exception as exc:  # noqa: BLE001 - a damaged cache file is rebuilt, never an error
        log.warning("tile template cache %s is unreadable (%s): building the templates again", path, exc)
        return None
    log.debug("tile templates read from %s", path)
    try:
        os.utime(path)  # most recently used: kept when the folder is pruned
    except OSError:
        pass
    return Templates(keys, alias, catalog_ids=tuple(catalog.tiles), **arrays)


def _save_templates(path: Path, tpl: Templates) -> None:
    """Write ``tpl`` to ``path`` atomically, keeping the :data:`_TEMPLATE_FILES_KEPT` most recently used files."""
    head = {"version": _TEMPLATE_FILE_VERSION, "keys": [list(k) for k in tpl.keys],
            "alias": [[t, r, i] for (t, r), i in tpl.alias.items()], "catalog_ids": list(tpl.catalog_ids)}
    buf = io.BytesIO()
    np.savez(buf, header=np.frombuffer(json.dumps(head).encode(), dtype=np.uint8),
             **{k: getattr(tpl, k) for k in _TEMPLATE_ARRAYS})
    write_cache_file(path, buf.getvalue(), "tile templates", keep=_TEMPLATE_FILES_KEPT, pattern="*.npz")


def _inner(px: int, inset: float) -> tuple[int, int]:
    i = int(round(inset * px))
    return i, px - 2 * i


def _template_raw(img: np.ndarray, px: int, inset: float, blur: float) -> np.ndarray:
    """Inner part of a tile picture at ``px`` pixels a tile, blurred, raw colours: (w, w, 3)."""
    small = _blur(cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA), blur * px)
    i, w = _inner(px, inset)
    return small[i:i + w, i:i + w]


def _template_vector(img: np.ndarray, px: int, inset: float, blur: float) -> tuple[np.ndarray, float]:
    """Inner part of a tile picture, per-channel zero mean, unit norm; and its norm before."""
    small = cv2.resize(img, (px, px), interpolation=cv2.INTER_AREA)
    small = _blur(small, blur * px)
    i, w = _inner(px, inset)
    v = small[i:i + w, i:i + w].reshape(-1, 3)
    v = v - v.mean(axis=0)
    norm = float(np.linalg.norm(v))
    return (v / (norm + 1e-6)).reshape(-1).astype(np.float32), norm


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    if sigma < 0.3:
        return img
    return cv2.GaussianBlur(img, (0, 0), sigma, borderType=cv2.BORDER_REFLECT)


# --------------------------------------------------------------------------- rectify


@dataclass
class _Region:
    """The examined lattice region warped top-down."""

    image: np.ndarray  # (R, C, 3) uint8, px per tile, one spare cell around
    valid: np.ndarray  # (R, C) bool: pixel comes from inside the photo
    origin: Cell  # lattice cell of the top-left spare cell
    px: int
    tile_px: np.ndarray  # photo pixels per tile side, per examined cell


def _cell_sides(grid: Grid, cells: np.ndarray) -> np.ndarray:
    """Mean side length in photo pixels of each cell (N,)."""
    pts = np.concatenate([cells, cells + [1, 0], cells + [1, 1], cells + [0, 1]]).astype(np.float64)
    ph = grid.to_photo(pts).reshape(4, len(cells), 2)
    sides = [np.linalg.norm(ph[(k + 1) % 4] - ph[k], axis=1) for k in range(4)]
    return np.mean(sides, axis=0)


def _rectify(rgb: np.ndarray, grid: Grid, cells: np.ndarray, px: int, oversample: float,
             small: np.ndarray | None = None) -> _Region:
    """The lattice region around ``cells`` warped top-down at ``px`` pixels a tile.

    ``small``: the photo already shrunk (any size), used instead of shrinking it here.
    """
    lo = cells.min(axis=0) - 1
    hi = cells.max(axis=0) + 2
    tile_px = _cell_sides(grid, cells)
    h, w = rgb.shape[:2]
    scale = min(1.0, oversample * px / max(float(np.percentile(tile_px, 90)), 1.0))
    if small is not None:
        sx, sy = small.shape[1] / w, small.shape[0] / h
    elif scale < 1.0:
        small = cv2.resize(rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        sx, sy = small.shape[1] / w, small.shape[0] / h
    else:
        small, sx, sy = rgb, 1.0, 1.0
    size = (int((hi[0] - lo[0]) * px), int((hi[1] - lo[1]) * px))
    mx, my = _lattice_maps(grid, (int(lo[0]), int(lo[1])), size, px)
    # Photo pixel centres: the small image's pixel (x + 0.5) covers photo (x + 0.5) / s.
    mx = (mx + 0.5) * sx - 0.5
    my = (my + 0.5) * sy - 0.5
    img = cv2.remap(small, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sh, sw = small.shape[:2]
    valid = (mx >= -0.5) & (mx <= sw - 0.5) & (my >= -0.5) & (my <= sh - 0.5)
    return _Region(img, valid, (int(lo[0]), int(lo[1])), px, tile_px)


def _lattice_maps(grid: Grid, lo: Cell, size: tuple[int, int], px: int, step: int = 4
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Photo pixel coordinates (float32 maps for ``cv2.remap``) of every rectified pixel.

    The lattice-to-photo mapping (homography and lens distortion) is smooth, so
    it is evaluated at the centre of every ``step`` x ``step`` block and
    interpolated linearly in between.
    """
    W, H = size
    nx, ny = -(-W // step), -(-H // step)
    cx = (np.arange(nx) * step + (step - 1) / 2 + 0.5) / px + lo[0]
    cy = (np.arange(ny) * step + (step - 1) / 2 + 0.5) / px + lo[1]
    gx, gy = np.meshgrid(cx, cy)
    # Lattice points far outside the photo (behind the camera of a steep view) map
    # to huge or undefined pixels: clipped, they sample nothing either way.
    pts = np.nan_to_num(np.clip(grid.to_photo(np.c_[gx.ravel(), gy.ravel()]), -1e6, 1e6), nan=-1e6)
    mx = pts[:, 0].reshape(ny, nx).astype(np.float32)
    my = pts[:, 1].reshape(ny, nx).astype(np.float32)
    mx = cv2.resize(mx, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
    my = cv2.resize(my, (nx * step, ny * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
    return np.ascontiguousarray(mx), np.ascontiguousarray(my)


# --------------------------------------------------------------------------- quality


def check_quality(region: _Region, cells: np.ndarray, cfg: TileConfig) -> dict[str, float]:
    """Refuse photos that show too small tiles or are too dark (blur: :func:`_estimate_blur`).

    Parameters
    ----------
    region : _Region
        The rectified lattice region.
    cells : (N, 2) int ndarray
        The cells wholly inside the photo.
    cfg : TileConfig

    Returns
    -------
    dict
        ``tile_px`` (median photo pixels per tile side), ``luminance`` (mean,
        0-255) and ``sharpness`` (Laplacian variance over intensity variance,
        reported only).

    Raises
    ------
    TilesTooSmallError
        The tiles are narrower than ``cfg.min_tile_px``: come closer.
    PhotoError
        Too dark: add light.
    """
    tile_px = float(np.median(region.tile_px))
    if tile_px < cfg.min_tile_px:
        raise TilesTooSmallError(
            f"the tiles are only about {tile_px:.0f} pixels wide in the photo (at least "
            f"{cfg.min_tile_px:.0f} needed); take the photo from closer or with more megapixels"
        )
    gray = cv2.cvtColor(region.image, cv2.COLOR_RGB2GRAY).astype(np.float32)
    mask = region.valid.copy()
    lum = float(gray[mask].mean()) if mask.any() else 0.0
    if lum < cfg.min_luminance:
        raise PhotoError(
            f"the photo is too dark (mean brightness {lum:.0f} of 255, at least {cfg.min_luminance:.0f} needed); "
            "turn on more light or use the flash"
        )
    # Variance of the Laplacian relative to the intensity variance, at the
    # resolution where the photo is compared (reported; the blur decision is
    # made on the tiles themselves by _estimate_blur, which does not depend on
    # what the table and the tiles show).
    lap = cv2.Laplacian(gray, cv2.CV_32F, ksize=3)
    inner = cv2.erode(mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    var = float(gray[inner].var()) if inner.any() else 0.0
    sharp = float(lap[inner].var()) / (var + 1e-6) if inner.any() else 0.0
    return {"tile_px": tile_px, "luminance": lum, "sharpness": sharp}


def _estimate_blur(region: _Region, match: _Match, tpl: Templates, cfg: TileConfig, cells: int = 24) -> float:
    """The photo's blur, tile units: the Gaussian sigma that best turns the art into the surest cells.

    Each of the ``cells`` best-matched cells (matched at least ``occ_seed``:
    a blurred photo matches less surely) is compared, at ``detail_px``, with
    its template blurred by each of :data:`_BLUR_STEPS`; the median of the
    best sigmas is the estimate (0 when no cell matches well).
    """
    dp = cfg.detail_px
    di, dw = _inner(dp, cfg.detail_inset)
    sure = np.flatnonzero(match.score[:, 0] >= min(cfg.sure_score, cfg.occ_seed))
    if len(sure) == 0:
        return 0.0
    sure = sure[np.argsort(-match.score[sure, 0])][:cells]
    # Only the windows gathered below become float (not the whole region).
    img = region.image if region.px == dp else _scaled(region, dp, 0.0)
    best = []
    blurred: dict[int, list[tuple[np.ndarray, float]]] = {}  # template -> per blur step (centred T, |T|)
    for k in sure:
        x0 = (match.cells[k, 0] - region.origin[0]) * dp + di + int(round(match.shift[k, 0, 0] * dp))
        y0 = (match.cells[k, 1] - region.origin[1]) * dp + di + int(round(match.shift[k, 0, 1] * dp))
        X = _gather(img, np.array(x0), np.array(y0), dw).reshape(-1, 3).astype(np.float32, copy=False)
        X = X - X.mean(axis=0)
        pic = tpl.sharp[match.cand[k, 0]]
        scores: list[float] = []
        if _FAST2:
            # The same template's blurred pictures serve every cell that matched it (the same numbers).
            steps = blurred.get(int(match.cand[k, 0]))
            if steps is None:
                steps = []
                for sigma in _BLUR_STEPS:
                    T = _blur(pic, sigma * dp).reshape(-1, 3)
                    T = T - T.mean(axis=0)
                    steps.append((T, np.linalg.norm(T)))
                blurred[int(match.cand[k, 0])] = steps
            nx = np.linalg.norm(X)
            scores = [float((X * T).sum() / (nx * nt + 1e-6)) for T, nt in steps]
        else:
            for sigma in _BLUR_STEPS:
                T = _blur(pic, sigma * dp).reshape(-1, 3)
                T = T - T.mean(axis=0)
                scores.append(float((X * T).sum() / (np.linalg.norm(X) * np.linalg.norm(T) + 1e-6)))
        best.append(_BLUR_STEPS[int(np.argmax(scores))])
    return float(np.median(best))


#: Blurs tried by :func:`_estimate_blur`, tile units.
_BLUR_STEPS = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.13)


# --------------------------------------------------------------------------- matching


def _window_stack(img: np.ndarray, cells: np.ndarray, origin: Cell, px: int, inset: float, margin: int,
                  centre: np.ndarray | None = None) -> np.ndarray:
    """Per cell, the inner region enlarged by ``margin`` pixels: (N, span, span, 3).

    ``centre`` (N, 2) int, optional: an extra offset in pixels (east, south) per cell.
    """
    i, w = _inner(px, inset)
    span = w + 2 * margin
    x0 = (cells[:, 0] - origin[0]) * px + i - margin
    y0 = (cells[:, 1] - origin[1]) * px + i - margin
    if centre is not None:
        x0 = x0 + centre[:, 0]
        y0 = y0 + centre[:, 1]
    h, wd = img.shape[:2]
    x0 = np.clip(x0, 0, wd - span)
    y0 = np.clip(y0, 0, h - span)
    return np.stack([img[y:y + span, x:x + span] for x, y in zip(x0, y0)])


#: Least standard deviation (grey levels, 0-255) a window's norm stands for in :func:`_window_norms`:
#: a flat patch (a white table cloth, the fill beyond the photo's edge) has a norm near 0, and
#: its match, the rounding noise of the float32 products divided by it, would be any number, even
#: far above 1.  Tiles vary by tens of grey levels.
NORM_FLOOR_GREY = 1.0


def _window_norms(stack: np.ndarray, w: int) -> np.ndarray:
    """Norm of every w x w window with its per-channel means removed: (N, S*S), row-major shifts.

    Floored at :data:`NORM_FLOOR_GREY` per pixel and channel, so that the NCC of a flat window is near 0.
    """
    n, span = stack.shape[:2]
    S = span - w + 1
    c = np.cumsum(np.cumsum(np.pad(stack, ((0, 0), (1, 0), (1, 0), (0, 0))), axis=1), axis=2)
    c2 = np.cumsum(np.cumsum(np.pad(stack * stack, ((0, 0), (1, 0), (1, 0), (0, 0))), axis=1), axis=2)

    def box(a):
        return a[:, w:w + S, w:w + S] - a[:, :S, w:w + S] - a[:, w:w + S, :S] + a[:, :S, :S]

    s1 = box(c)  # (n, S, S, 3)
    s2 = box(c2).sum(axis=3)
    var = s2 - (s1 * s1).sum(axis=3) / (w * w)
    return np.maximum(np.sqrt(np.maximum(var, 0.0)), NORM_FLOOR_GREY * float(np.sqrt(3 * w * w))).reshape(n, S * S)


def _ncc(stack: np.ndarray, w: int, T: np.ndarray, cand: np.ndarray | None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best NCC over the shifts of each stacked cell; ``T`` channel-major (M, 3*w*w).

    ``cand`` (N, K): per cell the template rows to compare (None: all of ``T``).
    Returns the best score, the index of the best shift and the window norm there,
    each (N, K or M).
    """
    n, span = stack.shape[:2]
    S = span - w + 1
    norms = _shared_norms(stack, w) if _FAST3 else None
    if norms is None:
        norms = _window_norms(stack.astype(np.float64), w).astype(np.float32)
        if _FAST3:
            _keep_norms(stack, w, norms)
    win = sliding_window_view(stack, (w, w), axis=(1, 2))  # (n, S, S, 3, w, w)
    X = np.ascontiguousarray(win).reshape(n, S * S, -1)
    if cand is None:
        num = (X.reshape(n * S * S, -1) @ T.T).reshape(n, S * S, -1)
    elif n == 1:
        # One cell (a repair, with a long list of candidates): numpy's own loop, as a
        # threaded BLAS call this small costs more to start than to run on a busy machine.
        num = np.einsum("nsd,nkd->nsk", X, T[cand], optimize=False)
    else:
        num = np.matmul(X, T[cand].transpose(0, 2, 1))
    ncc = num / norms[:, :, None]
    k = ncc.argmax(axis=1)
    best = np.take_along_axis(ncc, k[:, None, :], axis=1)[:, 0, :]
    return best, k, np.take_along_axis(norms, k, axis=1)


#: The window norms of the last few stacks :func:`_ncc` compared: (stack, w, norms).  Each
#: candidate catalogue compares the same cells at the same shifts (only the templates differ).
_NORMS_MEMO: list[tuple[np.ndarray, int, np.ndarray]] = []
_NORMS_LOCK = threading.Lock()


def _shared_norms(stack: np.ndarray, w: int) -> np.ndarray | None:
    """The window norms :func:`_keep_norms` kept for an identical ``stack`` and ``w`` (None: none)."""
    with _NORMS_LOCK:
        memo = list(_NORMS_MEMO)
    for st, ww, norms in memo:
        if ww == w and st.shape == stack.shape and st.dtype == stack.dtype and np.array_equal(st, stack):
            return norms
    return None


def _keep_norms(stack: np.ndarray, w: int, norms: np.ndarray) -> None:
    with _NORMS_LOCK:
        _NORMS_MEMO.append((stack.copy(), w, norms))
        del _NORMS_MEMO[:-12]


def _channel_major(tpl: np.ndarray, w: int) -> np.ndarray:
    return np.ascontiguousarray(tpl.reshape(len(tpl), w, w, 3).transpose(0, 3, 1, 2).reshape(len(tpl), -1))


def _ncc_all(img: np.ndarray, cells: np.ndarray, origin: Cell, px: int, inset: float, margin: int,
             tpl: np.ndarray, chunk: int = 256, centre: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Best NCC over shifts of every cell against every template.

    ``centre`` (N, 2) int, optional: the shifts are searched around this
    offset (pixels, east/south) instead of the lattice position.

    Returns
    -------
    score : (N, M) float32
    shift : (N, M) int, index of the best shift (row-major over the S x S grid, S = 2*margin+1)
    """
    _, w = _inner(px, inset)
    T = _channel_major(tpl, w)
    scores, shifts = [], []
    for a in range(0, len(cells), chunk):
        stack = _window_stack(img, cells[a:a + chunk], origin, px, inset, margin,
                              None if centre is None else centre[a:a + chunk])
        sc, k, _ = _ncc(stack, w, T, None)
        scores.append(sc)
        shifts.append(k)
    return np.concatenate(scores), np.concatenate(shifts)


def _ncc_candidates(img: np.ndarray, cells: np.ndarray, origin: Cell, px: int, inset: float, margin: int,
                    tpl: np.ndarray, cand: np.ndarray, centre: np.ndarray, chunk: int = 32
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best NCC over shifts (around ``centre`` px) of every cell against its candidates ``cand`` (N, K).

    Returns the scores, the best shift indices and the window norms there, each (N, K).
    """
    _, w = _inner(px, inset)
    T = _channel_major(tpl, w)
    scores, shifts, norms = [], [], []
    for a in range(0, len(cells), chunk):
        stack = _window_stack(img, cells[a:a + chunk], origin, px, inset, margin, centre[a:a + chunk])
        sc, k, nm = _ncc(stack, w, T, cand[a:a + chunk])
        scores.append(sc)
        shifts.append(k)
        norms.append(nm)
    return np.concatenate(scores), np.concatenate(shifts), np.concatenate(norms)


@dataclass
class _Match:
    """Raw matching results for the examined cells."""

    cells: np.ndarray  # (N, 2) lattice cells
    cand: np.ndarray  # (N, K) template indices, best fine score first
    score: np.ndarray  # (N, K) fine scores
    shift: np.ndarray  # (N, K, 2) tile units (east, south)
    contrast: np.ndarray  # (N, K) fitted gain of the template: the photo's contrast on that cell
    colour: np.ndarray  # (N, K) colour misfit of the template (see _robust_scores)
    xmean: np.ndarray  # (N, K, 3) mean colour of the cell over the pixels fitted
    tmean: np.ndarray  # (N, K, 3) mean colour of the template there
    spread: np.ndarray  # (N, K) mean squared deviation of those pixels (RGB units squared)
    coarse_best: np.ndarray | None = None  # (N,) best coarse score
    wb: np.ndarray = field(default_factory=lambda: np.ones(3))  # white balance applied
    centre: np.ndarray | None = None  # (N, 2) where the fine search was centred, fine pixels
    origin: Cell = (0, 0)  # lattice cell at the top-left of the fine pictures
    search: float = 0.06  # fine shift search around ``centre``, tile units
    detail_img: np.ndarray | None = None  # the white-balanced picture at ``detail_px`` (made by _detail)
    fine: tuple | None = None  # (fine image, white-balanced fine image)
    hidden: np.ndarray | None = None  # (h, w) float32 over the fine image: 1 where a figure hides the tile
    hidden_share: np.ndarray | None = None  # (N,) share of each cell's tile hidden
    tau: np.ndarray | None = None  # (N,) cap of a hidden pixel's squared misfit (see _robust_scores)
    tone: tuple | None = None  # (gain, (3,) offset): the photo's typical colours of a tile, see _tone
    consensus: np.ndarray | None = None  # (N,) bool: sure cells whose colours set the white balance
    undecided: np.ndarray | None = None  # (N,) bool: figures hide what tells the close candidates apart (_detail)


def _scaled(region: _Region, px: int, blur: float) -> np.ndarray:
    """The rectified region at ``px`` pixels per tile, blurred by ``blur`` tiles, float32."""
    h, w = region.image.shape[:2]
    rp = region.px
    img = region.image if px == rp else cv2.resize(region.image, (w * px // rp, h * px // rp), interpolation=cv2.INTER_AREA)
    return _blur(img.astype(np.float32), blur * px)


def _coarse_image(region: _Region, cfg: TileConfig) -> np.ndarray:
    return _scaled(region, cfg.coarse_px, cfg.coarse_blur)


def _white_balance(img: np.ndarray, cells: np.ndarray, origin: Cell, px: int, inset: float,
                   score: np.ndarray, cand: np.ndarray, tpl: Templates, sure_score: float,
                   max_cast: float = 10.0, per_tile: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel gains (3,) that turn the photo's colours into the templates' (mean 1), and who set them.

    Measured on the cells matched surest: the ratio of each cell's mean colour
    to its best template's, median over the largest group of cells that agree.
    Cells whose colour would need a cast of more than ``max_cast`` (log ratio
    of a channel to the mean of the three) take no part: a striped or checked
    cloth can match a tile's structure, not its colours, and a camera's white
    balance leaves only a mild cast.  With ``per_tile`` > 0, a group's size
    counts each tile type at most that many times: a board holds few copies
    of any one tile, while a wide table of wood grain the colour of a plain
    prairie may match that one tile on every cell around the board.

    Returns
    -------
    gains : (3,) float ndarray
    consensus : (N,) bool ndarray
        The cells whose colours agree with the gains: surely tiles (all
        ``False`` when too few cells are sure).
    """
    consensus = np.zeros(len(cells), bool)
    sure = score[:, 0] >= sure_score
    if sure.sum() < 3:
        return np.ones(3), consensus
    i, w = _inner(px, inset)
    idx = np.flatnonzero(sure)
    means = np.array([img[(c[1] - origin[1]) * px + i:(c[1] - origin[1]) * px + i + w,
                          (c[0] - origin[0]) * px + i:(c[0] - origin[0]) * px + i + w].reshape(-1, 3).mean(axis=0)
                      for c in cells[idx]])
    lr = _log_colour_ratio(means, tpl.mean_rgb[cand[idx, 0]])
    mild = np.abs(lr).max(axis=1) <= max_cast
    if mild.sum() >= 3:
        idx, lr = idx[mild], lr[mild]
    # Consensus: the cells whose colour ratios agree with the most others (a box lid
    # or a card can match a template well, but not in the tiles' colours; with per_tile,
    # few copies of any one tile counted), preferring casts near neutral; then the
    # median over that consensus.
    close = np.abs(lr[:, None, :] - lr[None, :, :]).max(axis=2) < 0.06
    if per_tile > 0:
        _, kind = np.unique([tpl.keys[c][0] for c in cand[idx, 0]], return_inverse=True)
        per_kind = close.astype(np.int64) @ np.eye(kind.max() + 1, dtype=np.int64)[kind]  # (n, types)
        size = np.minimum(per_kind, per_tile).sum(axis=1)
    else:
        size = close.sum(axis=1)
    support = size - 20.0 * np.abs(lr).max(axis=1)
    best = int(np.argmax(support))
    g = np.exp(np.median(lr[close[best]], axis=0))
    consensus[idx[close[best]]] = True
    return g / g.mean(), consensus


def _gather(img: np.ndarray, x0: np.ndarray, y0: np.ndarray, w: int) -> np.ndarray:
    """Windows ``img[y0:y0+w, x0:x0+w]`` for arrays of corners (any shape S): (S..., w, w, C)."""
    h, wd = img.shape[:2]
    x0 = np.clip(x0, 0, wd - w)
    y0 = np.clip(y0, 0, h - w)
    if _FAST2 and h >= w and wd >= w:
        # Whole windows picked from a strided view: the same pixels, block copies instead of
        # one index per pixel (about twenty times faster).
        out = sliding_window_view(img, (w, w), axis=(0, 1))[y0, x0]  # (S..., [C,] w, w)
        return np.ascontiguousarray(np.moveaxis(out, -3, -1) if img.ndim == 3 else out)
    r = np.arange(w)
    rows = (y0[..., None] + r)[..., :, None]
    cols = (x0[..., None] + r)[..., None, :]
    return img[rows, cols]


def _robust_scores(img: np.ndarray, cells: np.ndarray, origin: Cell, px: int, inset: float, cand: np.ndarray,
                   offset: np.ndarray, tpl_raw: np.ndarray, trim: float, chunk: int = 64,
                   hidden: np.ndarray | None = None, tau: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Trimmed goodness of fit of each cell to each of its candidates, at their best offsets.

    The cell window ``X`` is fitted as ``a * T + b`` (one gain ``a``, one offset
    per channel ``b``); the share ``trim`` of pixels with the largest residuals
    (a figure standing on the tile, a shadow) is left out, and the score is the
    fraction of the remaining pixels' variance explained, ``1 - E / V`` (the
    square of the normalised cross-correlation when nothing is left out).
    With ``hidden`` (same frame as ``img``) and ``tau`` (N,) the fit is made
    on the visible pixels (the trimmed share taken of those), and a hidden
    pixel still counts, its squared misfit capped at the cell's ``tau`` (in
    ``E`` and, as its squared deviation, in ``V``): what hides the tile costs
    every template alike, but a template that explains pixels wrongly taken
    for hidden (a road under a meeple) earns them.

    Returns
    -------
    score : (N, K) float
    gain : (N, K) float
        ``a``, the cell's contrast relative to the template's.
    colour : (N, K) float
        Colour misfit: the squared difference between the cell's mean colour
        and the template's carried by the same gain (grey removed), relative to
        the cell's variance.
    xmean, tmean : (N, K, 3) float
        Mean colour of the cell and of the template over the pixels kept.
    spread : (N, K) float
        Mean squared deviation of the kept pixels from their mean (RGB units squared).
    """
    i, w = _inner(px, inset)
    n_all, K = cand.shape
    P = w * w
    Traw = tpl_raw.reshape(len(tpl_raw), P, 3).astype(np.float32, copy=False)
    keep = max(1, int(round((1.0 - trim) * P)))
    scores = np.empty((n_all, K))
    gains = np.empty((n_all, K))
    colour = np.empty((n_all, K))
    xmean = np.empty((n_all, K, 3))
    tmean = np.empty((n_all, K, 3))
    spread = np.empty((n_all, K))

    def corners(a: int, e: int) -> tuple[np.ndarray, np.ndarray]:
        c = cells[a:e]
        return (((c[:, 0] - origin[0]) * px + i)[:, None] + offset[a:e, :, 0],
                ((c[:, 1] - origin[1]) * px + i)[:, None] + offset[a:e, :, 1])

    def any_hidden(a: int, e: int) -> bool:
        return hidden is not None and bool((_gather(hidden, *corners(a, e), w) > 0.5).any())

    def _robust_chunk(a: int, e: int, use_hidden: bool) -> None:
        c = cells[a:e]
        x0, y0 = corners(a, e)
        Xr = _gather(img, x0, y0, w).reshape(len(c), K, P, 3).astype(np.float32, copy=False)
        Tr = Traw[cand[a:e]]  # (n, K, P, 3)
        H = None
        if use_hidden:
            # Whether the hidden pixels count is decided per chunk of ``chunk`` cells.
            H = _gather(hidden, x0, y0, w).reshape(len(c), K, P) > 0.5
        if H is None:
            # First fit on every pixel, to find the pixels a figure or shadow spoils ...
            E = _fit_residual(Xr, Tr, None)
            if keep < P:
                thr = np.partition(E, keep - 1, axis=2)[:, :, keep - 1:keep]
                M = (E <= thr).astype(np.float32)
            else:
                M = np.ones_like(E)
        else:
            # ... or on every visible one, the trimmed share taken of those.
            vis = (~H).astype(np.float32)
            E = _fit_residual(Xr, Tr, vis)
            E[H] = np.inf
            n_keep = np.maximum(1, np.round((1.0 - trim) * vis.sum(axis=2)).astype(np.int64))
            thr = np.take_along_axis(np.sort(E, axis=2), (n_keep - 1)[:, :, None], axis=2)
            M = (E <= thr).astype(np.float32)
        # ... then fit again on the others.
        f = _fit(Xr, Tr, M)
        Vs = f.V + 1e-6
        Es = f.E
        if H is not None:
            # The hidden pixels still count, each up to the cap.
            t = tau[a:e, None, None].astype(np.float32)
            D = Xr - f.g[:, :, None, None] * Tr - (f.xm - f.g[:, :, None] * f.tm)[:, :, None, :]
            Dv = Xr - f.xm[:, :, None, :]
            out = H.astype(np.float32)
            Es = Es + (out * np.minimum(np.einsum("nkpc,nkpc->nkp", D, D, optimize=False), t)).sum(axis=2)
            Vs = Vs + (out * np.minimum(np.einsum("nkpc,nkpc->nkp", Dv, Dv, optimize=False), t)).sum(axis=2)
        scores[a:e] = 1.0 - Es / Vs
        gains[a:e] = f.g
        dm = f.xm - f.g[:, :, None] * f.tm
        dm = dm - dm.mean(axis=2, keepdims=True)
        colour[a:e] = (dm * dm).sum(axis=2) * f.n / Vs
        xmean[a:e], tmean[a:e] = f.xm, f.tm
        spread[a:e] = f.V / np.maximum(f.n, 1.0)

    jobs = []
    for a in range(0, n_all, chunk):
        e = min(a + chunk, n_all)
        use = any_hidden(a, e)
        if _FAST2 and e - a > 1:
            # Each chunk in two halves, for the two threads: every cell's numbers are its own.
            h = (a + e + 1) // 2
            jobs += [(a, h, use), (h, e, use)]
        else:
            jobs.append((a, e, use))
    parallel_map(lambda job: _robust_chunk(*job), jobs)
    return scores, gains, colour, xmean, tmean, spread


@dataclass
class _Fit:
    """A weighted fit ``X ~ g T + b`` per cell and candidate (see :func:`_fit`)."""

    n: np.ndarray  # (n, K) weight sum
    xm: np.ndarray  # (n, K, 3) weighted mean of X
    tm: np.ndarray  # (n, K, 3) weighted mean of T
    g: np.ndarray  # (n, K) gain
    E: np.ndarray  # (n, K) weighted residual energy
    V: np.ndarray  # (n, K) weighted variance energy of X


def _fit(X: np.ndarray, T: np.ndarray, M: np.ndarray) -> _Fit:
    """Fit ``X ~ g T + b`` (one gain, an offset per channel) on pixels weighted by ``M``.

    ``X``, ``T``: (n, K, P, 3) float32; ``M``: (n, K, P) weights.  From
    weighted sums (moments), each array read about twice.
    """
    WX = M[..., None] * X
    WT = M[..., None] * T
    n = M.sum(axis=2) + 1e-9
    # The weighted means as matrix products: numpy's sums over the pixel axis (not the last)
    # took three quarters of this fit's time (the same numbers to float32 rounding).
    xm = np.matmul(M[..., None, :], X)[..., 0, :] / n[..., None]
    tm = np.matmul(M[..., None, :], T)[..., 0, :] / n[..., None]
    sxx = np.einsum("nkpc,nkpc->nk", WX, X, optimize=False)
    stt = np.einsum("nkpc,nkpc->nk", WT, T, optimize=False)
    sxt = np.einsum("nkpc,nkpc->nk", WX, T, optimize=False)
    cov = sxt - n * (xm * tm).sum(axis=2)
    vt = np.maximum(stt - n * (tm * tm).sum(axis=2), 1e-6)
    V = np.maximum(sxx - n * (xm * xm).sum(axis=2), 0.0)
    g = cov / vt
    E = np.maximum(V - cov * g, 0.0)
    return _Fit(n, xm, tm, g, E, V)


def _fit_residual(X: np.ndarray, T: np.ndarray, M: np.ndarray | None) -> np.ndarray:
    """Per-pixel squared residual (n, K, P) of ``X ~ g T + b`` fitted on pixels ``M`` (weights, or all).

    ``X``, ``T``: (n, K, P, 3); the residual is summed over the channels and
    given at every pixel, weighted or not.
    """
    if M is None:
        # The means as matrix products, as in _fit (numpy's means over the pixel axis are slow).
        ones = np.full((1, X.shape[2]), 1.0 / X.shape[2], dtype=X.dtype)
        xm = np.matmul(ones, X)
        tm = np.matmul(ones, T)
        Tc = T - tm
        tt = np.einsum("nkpc,nkpc->nk", Tc, Tc, optimize=False) + 1e-6
        g = np.einsum("nkpc,nkpc->nk", X, Tc, optimize=False) / tt
        R = X - xm - g[:, :, None, None] * Tc
    else:
        f = _fit(X, T, M)
        R = X - f.g[:, :, None, None] * T - (f.xm - f.g[:, :, None] * f.tm)[:, :, None, :]
    return np.einsum("nkpc,nkpc->nkp", R, R, optimize=False)


def _match(region: _Region, cells: np.ndarray, tpl: Templates, cfg: TileConfig, coarse: tuple | None = None
           ) -> _Match:
    """Candidates of every cell of ``region``, matched coarse, fine, around figures and in detail.

    ``coarse``: ``(picture, origin, scores, shifts)`` of the coarse stage when
    already made (:func:`_prepare`), else made here from ``region``.
    """
    px, cpx = cfg.patch_px, cfg.coarse_px
    cm = max(1, int(np.ceil(cfg.max_shift * cpx)))
    if coarse is None:
        coarse_img, corigin = _coarse_image(region, cfg), region.origin
        cscore, cshift = _ncc_all(coarse_img, cells, corigin, cpx, cfg.inset, cm, tpl.coarse)
    else:
        coarse_img, corigin, cscore, cshift = coarse
    K = min(cfg.top_k, len(tpl.keys))
    cand = np.argsort(-cscore, axis=1)[:, :K]
    # The tile's position from the best coarse template, refined at the fine scale.
    cS = 2 * cm + 1
    k0 = np.take_along_axis(cshift, cand[:, :1], axis=1)[:, 0]
    centre = np.round(np.stack([k0 % cS - cm, k0 // cS - cm], axis=1) * px / cpx).astype(np.int64)
    fine_img = _scaled(region, px, cfg.blur)
    pred = None
    if cfg.position_prior:
        # Where the best coarse candidates fit at the fine scale tells where the sure tiles lie
        # (those whose colours agree too: a patterned cloth may fit a tile's structure anywhere).
        first = cand[:, :max(1, cfg.prior_candidates)]
        ncc1, off1 = _fine_offsets(fine_img, cells, region.origin, first, centre, tpl, cfg)
        o1 = np.argsort(-ncc1, axis=1)
        _, agree = _white_balance(fine_img, cells, region.origin, px, cfg.inset, np.take_along_axis(ncc1, o1, axis=1),
                                  np.take_along_axis(first, o1, axis=1), tpl, cfg.sure_ncc, cfg.max_cast,
                                  cfg.consensus_per_tile)
        pred = _predicted_offsets(cells, ncc1, off1, cfg, voters=agree if agree.sum() >= cfg.prior_votes else None)
    if pred is None:
        ncc, offset = _fine_offsets(fine_img, cells, region.origin, cand, centre, tpl, cfg)
    else:
        # Second pass: every template again, searched only near where the neighbours say the tile lies.
        cc = np.round(pred * cpx / px).astype(np.int64)
        cm2 = max(1, int(np.ceil(cfg.prior_coarse_shift * cpx)))
        cscore, _ = _ncc_all(coarse_img, cells, corigin, cpx, cfg.inset, cm2, tpl.coarse, centre=cc)
        cand = np.argsort(-cscore, axis=1)[:, :K]
        centre = np.round(pred).astype(np.int64)
        ncc, offset = _fine_offsets(fine_img, cells, region.origin, cand, centre, tpl, cfg, cfg.prior_fine_shift)
    order = np.argsort(-ncc, axis=1)
    wb, agree = _white_balance(fine_img, cells, region.origin, px, cfg.inset, np.take_along_axis(ncc, order, axis=1),
                               np.take_along_axis(cand, order, axis=1), tpl, cfg.sure_ncc, cfg.max_cast,
                               cfg.consensus_per_tile)
    fine_wb = fine_img / wb.astype(np.float32)
    match = _Match(cells, **_rescore(fine_wb, cells, region.origin, cand, offset, tpl, cfg, cfg.trim),
                   coarse_best=cscore.max(axis=1))
    # The photo's typical colours of a tile, then every candidate's score less its colour misfit.
    match.consensus = agree
    match.tone = _tone(match, cfg)
    if match.tone is not None:
        arrays = {n: getattr(match, n) for n in _PER_CANDIDATE}
        arrays["score"] = arrays["score"] - _chroma_penalty(arrays["xmean"], arrays["tmean"], match.tone, cfg)
        for name, a in _take(arrays, np.argsort(-arrays["score"], axis=1)).items():
            setattr(match, name, a)
    match.wb = wb
    match.centre = centre
    match.search = cfg.prior_fine_shift if pred is not None else cfg.fine_shift
    match.fine = (fine_img, fine_wb)
    match.origin = region.origin
    if cfg.occlusion:
        _occlusion(match, tpl, cfg)
    _detail(region, match, tpl, cfg, wb)
    return match


def _predicted_offsets(cells: np.ndarray, ncc: np.ndarray, offset: np.ndarray, cfg: TileConfig,
                       voters: np.ndarray | None = None) -> np.ndarray | None:
    """Where each tile should lie, judged by its surely matched neighbours: (N, 2) float, fine pixels.

    Hand-laid tiles sit a little off the lattice, and a lattice found in the
    photo is a little off too, but both offsets vary smoothly across the
    table: a tile is pushed against its neighbours, and the lattice's error
    is a smooth function of position.  A cell searched on its own over a wide
    range can therefore find a wrong template fitting at a wrong position (the
    arcs of mountains and walls repeat); its neighbours tell where to look.
    The cells whose best fine correlation reaches ``sure_ncc`` vote with
    their offsets, weighted by correlation and by a Gaussian of the lattice
    distance (``prior_sigma`` cells) within ``prior_radius`` cells; the
    weighted median per axis is the prediction.  A cell with fewer than
    ``prior_votes`` voters near it takes the median of all sure cells.
    ``voters`` (N,) bool, optional: only these cells may vote (those whose
    colours agree with the tiles', :func:`_white_balance`).

    Returns
    -------
    (N, 2) float ndarray or None
        ``None`` when fewer than ``prior_votes`` cells are sure.
    """
    best = ncc.argmax(axis=1)
    q = ncc[np.arange(len(ncc)), best]
    off = offset[np.arange(len(ncc)), best].astype(np.float64)  # (N, 2)
    ok = q >= cfg.sure_ncc
    if voters is not None:
        ok &= voters
    sure = np.flatnonzero(ok)
    if len(sure) < cfg.prior_votes:
        return None
    glob = np.median(off[sure], axis=0)
    pred = np.tile(glob, (len(cells), 1))
    sc = cells[sure].astype(np.float64)
    R = cfg.prior_radius
    for n, c in enumerate(cells.astype(np.float64)):
        d = np.abs(sc - c)
        near = np.flatnonzero((d[:, 0] <= R) & (d[:, 1] <= R))
        if len(near) < cfg.prior_votes:
            continue
        wgt = q[sure[near]] * np.exp(-(d[near] ** 2).sum(axis=1) / (2 * cfg.prior_sigma ** 2))
        for ax in range(2):
            v = off[sure[near], ax]
            o = np.argsort(v)
            cw = np.cumsum(wgt[o])
            pred[n, ax] = v[o[np.searchsorted(cw, 0.5 * cw[-1])]]
    return pred


def _fine_offsets(fine_img: np.ndarray, cells: np.ndarray, origin: Cell, cand: np.ndarray, centre: np.ndarray,
                  tpl: Templates, cfg: TileConfig, shift: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per cell and candidate, the best fine NCC and the offset (pixels, east/south) where it is.

    The search spans ``shift`` tiles (default ``cfg.fine_shift``) around ``centre`` (pixels).
    """
    px = cfg.patch_px
    fm = max(1, int(np.ceil((cfg.fine_shift if shift is None else shift) * px)))
    ncc, fshift, _ = _ncc_candidates(fine_img, cells, origin, px, cfg.inset, fm, tpl.fine, cand, centre)
    S = 2 * fm + 1
    # The window moved by (dx, dy) pixels from the lattice position: the tile is there.
    offset = np.stack([centre[:, :1] + fshift % S - fm, centre[:, 1:] + fshift // S - fm], axis=-1)
    return ncc, offset


def _rescore(fine_wb: np.ndarray, cells: np.ndarray, origin: Cell, cand: np.ndarray, offset: np.ndarray,
             tpl: Templates, cfg: TileConfig, trim: float, hidden: np.ndarray | None = None,
             tau: np.ndarray | None = None, tone: tuple | None = None) -> dict[str, np.ndarray]:
    """Robust scores of the candidates at their offsets, every array sorted best first.

    ``hidden``: the fine picture's occluded pixels (:func:`_occlusion`), left
    out of the fit; ``tau`` (per cell): their misfit cap (:func:`_robust_scores`);
    ``tone``: the photo's typical tile colours (:func:`_tone`), when given each
    score loses the candidate's colour misfit (:func:`_chroma_penalty`).
    Returns the per-candidate arrays of :class:`_Match` (:data:`_PER_CANDIDATE`) by name.
    """
    px = cfg.patch_px
    score, gain, colour, xm, tm, spread = _robust_scores(fine_wb, cells, origin, px, cfg.inset, cand, offset,
                                                         tpl.fine_raw, trim, hidden=hidden, tau=tau)
    if tone is not None:
        score = score - _chroma_penalty(xm, tm, tone, cfg)
    out = {"cand": cand, "score": score, "shift": offset / px, "contrast": gain, "colour": colour,
           "xmean": xm, "tmean": tm, "spread": spread}
    return _take(out, np.argsort(-score, axis=1))


def _tone(match: _Match, cfg: TileConfig) -> tuple[float, np.ndarray] | None:
    """The photo's typical colour mapping of a tile: ``X ~ gain * T + offset`` (white-balanced pixels).

    Medians over the cells matched at least ``sure_score`` whose colours need
    no more than ``max_cast`` (:func:`_cast`; those of the white balance's
    consensus when at least three; ``None`` when fewer than three) of the
    best candidate's fitted gain and of its per-channel offset (the cell's
    mean colour less the gain times the template's).
    """
    sure = (match.score[:, 0] >= cfg.sure_score) & (_cast(match) <= cfg.max_cast)
    if match.consensus is not None and (sure & match.consensus).sum() >= 3:
        sure &= match.consensus
    if sure.sum() < 3:
        return None
    gain = float(np.median(match.contrast[sure, 0]))
    if gain <= 0:
        return None
    offset = np.median(match.xmean[sure, 0] - gain * match.tmean[sure, 0], axis=0)
    return gain, offset


def _cast(match: _Match) -> np.ndarray:
    """The colour cast each cell's best candidate needs: (N,) float, log units.

    The largest absolute log ratio of a channel of the cell's mean colour
    (white-balanced) to the template's, less the mean of the three, as in
    :func:`_white_balance`: a camera leaves a mild cast, while a striped or
    checked cloth that fits a tile's structure (blue and white stripes fit
    the rails of a straight track) needs a strong one.
    """
    return np.abs(_log_colour_ratio(match.xmean[:, 0], match.tmean[:, 0])).max(axis=1)


def _log_colour_ratio(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Log ratio per channel of colours ``x`` to template colours ``t`` (both (N, 3)), less its mean.

    Colour only: the mean is brightness, the gain's business.  Returns (N, 3) float.
    """
    lr = np.log(np.maximum(x / np.maximum(t, 1.0), 1e-3))
    return lr - lr.mean(axis=1, keepdims=True)


def _chroma_penalty(xmean: np.ndarray, tmean: np.ndarray, tone: tuple[float, np.ndarray], cfg: TileConfig
                    ) -> np.ndarray:
    """Score lost by each candidate whose colours are not the cell's: (N, K) float.

    The per-cell fit (one gain, an offset per channel) explains any colour, so
    a plain cell (a field under a monk, a city, a mountain) matches a brown city
    as well as a green field.  Under the photo's typical mapping ``tone`` the
    cell's mean colour less the offset is the template's mean colour times a
    brightness (shading scales every channel alike): the misfit is the norm of
    the difference of their log chromaticities (log colour less its channel
    mean), ``chroma_weight`` score units per unit, counted up to
    ``chroma_cap``.

    Parameters
    ----------
    xmean, tmean : (N, K, 3) float ndarray
        Mean colour of the cell and of each candidate over the pixels fitted.
    tone : (float, (3,) ndarray)
        :func:`_tone`.
    cfg : TileConfig
    """
    if not cfg.chroma_weight:
        return np.zeros(xmean.shape[:2])
    gain, offset = tone
    lu = np.log(np.maximum(xmean - offset, 2.0))
    lt = np.log(np.maximum(gain * tmean, 2.0))
    d = (lu - lu.mean(axis=-1, keepdims=True)) - (lt - lt.mean(axis=-1, keepdims=True))
    return cfg.chroma_weight * np.minimum(np.sqrt((d * d).sum(axis=-1)), cfg.chroma_cap)


#: The arrays of :class:`_Match` that hold one entry per cell and candidate.
_PER_CANDIDATE = ("cand", "score", "shift", "contrast", "colour", "xmean", "tmean", "spread")


def _take(arrays: dict[str, np.ndarray], order: np.ndarray) -> dict[str, np.ndarray]:
    """Per-candidate arrays (N, K, ...) reordered along the candidates by ``order`` (N, K')."""
    out = {}
    for name, a in arrays.items():
        idx = order.reshape(order.shape + (1,) * (a.ndim - 2))
        out[name] = np.take_along_axis(a, idx, axis=1)
    return out


def _put(match: _Match, rows: np.ndarray, arrays: dict[str, np.ndarray]) -> None:
    """Replace the candidates of cells ``rows`` by the first ``K`` of ``arrays``."""
    K = match.cand.shape[1]
    for name in _PER_CANDIDATE:
        getattr(match, name)[rows] = arrays[name][:, :K]


def _fit_to(src: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``src`` (h, w, 3) with per-channel gain and offset fitted to ``ref``.

    Pictures learnt from a photo carry that photo's uneven light; two tiles
    that differ only in a pennant must not seem to differ everywhere.
    """
    a = src.reshape(-1, 3)
    b = ref.reshape(-1, 3)
    am, bm = a.mean(axis=0), b.mean(axis=0)
    ac, bc = a - am, b - bm
    g = (ac * bc).sum(axis=0) / ((ac * ac).sum(axis=0) + 1e-6)
    return (ac * g + bm).reshape(src.shape)


def _differ(tpl: Templates, a: int, b: int, threshold: float) -> np.ndarray:
    """Where the detail pictures of templates ``a`` and ``b`` differ (``b`` fitted to ``a``): (w, w) bool, cached."""
    key = (a, b, threshold)
    hit = tpl.differ.get(key)
    if hit is None:
        A, B = tpl.detail[a], tpl.detail[b]
        hit = np.abs(A - _fit_to(B, A)).sum(axis=2) > threshold
        if len(tpl.differ) > 4000:  # about 14 MB
            tpl.differ.clear()
        tpl.differ[key] = hit
    return hit


def _detail(region: _Region, match: _Match, tpl: Templates, cfg: TileConfig, wb: np.ndarray,
            rows: np.ndarray | None = None) -> None:
    """Settle close candidates by comparing them where they differ, at ``detail_px``.

    Tiles that differ only in a small symbol (pennant, road stub, inn, gold
    ingot) score nearly alike on the whole tile.  For each cell whose runners-up
    lie within ``detail_margin`` of the best (whose best scores at least
    ``detail_min``; where figures hide at least ``occ_min`` of the tile, which
    lowers every candidate's score, ``detail_hidden_margin`` and
    ``detail_hidden_min``), every close template is fitted
    to the whole cell (one gain, one offset per channel), and its residual is
    measured only where the close templates differ from each other (their
    absolute difference above ``detail_diff``, dilated): there the right
    template explains the photo and a wrong one does not, whether the photo
    shows the symbol or plain ground.  With ``detail_local`` the masked pixels'
    own means are removed and each template's gain is fitted there, within
    ``detail_gain_low`` and ``detail_gain_high`` times its whole-cell gain (a
    faint camp or horse symbol on a shaded patch of ground), when at least
    ``detail_local_visible`` of those pixels is not hidden.  Hidden pixels (figures,
    :func:`_hidden_masks`) are grown by ``detail_hidden_grow``: the edge of a figure
    that one close candidate happens to explain (a dark meeple's legs where one
    look-alike has dark wild horses and the other a pale camp) is no evidence for
    it; with ``detail_reclaim`` a hidden pixel that one close candidate
    explains as closely as the visible ones, in colour and in chromaticity,
    takes part again (:func:`_reclaimed`: the sliver of a camp or of wild
    horses beside a figure lying on it).  They are known inside the fine window (``inset``) only; with
    ``detail_band`` the band between it and the detail window (``detail_inset``)
    repeats the window's edge, so a figure standing at a tile's border is not
    taken for art there.  The masked fit ``1 - E / V`` (``V``: the
    photo's variance there, floored), a share ``detail_chroma`` of it made on
    chromaticity (:func:`_chroma_fit`: a figure's shadow darkens plain ground
    without changing its colour, and then looks like no symbol), moves each
    close candidate's score by ``detail_weight`` times its difference from the
    best.  Close candidates whose detail pictures differ on at most
    ``detail_twin`` of the window (a camp or wild horses on the same prairie)
    first take the best whole-tile score among them: what tells them apart is
    the symbol the detail comparison looks at, and the rest of their whole-tile
    difference is noise.  The window is searched
    (``detail_shift``) around the best candidate's position or, with
    ``detail_own_shift`` where figures hide at least ``occ_min`` of the tile,
    around each close candidate's own, keeping the window the candidates
    together explain best.  Where figures hide what tells the close
    candidates apart (fewer than 4 of those pixels visible) and ``count_prior``
    is on, their scores are set to the best of them (what is left differs by
    the ground's texture and the light only) and the cell is marked
    ``match.undecided``: the decode's box counts choose.  Updates ``match`` in place
    (candidates re-sorted); ``rows``: only these cells.
    """
    dp = cfg.detail_px
    di, dw = _inner(dp, cfg.detail_inset)
    r = max(1, int(round(cfg.detail_shift * dp)))
    if match.detail_img is None:
        match.detail_img = _scaled(region, dp, cfg.blur) / wb.astype(np.float32)
    img = match.detail_img
    h, w = img.shape[:2]
    kernel = np.ones((3, 3), np.uint8)
    best0 = match.score[:, :1]
    # A figure on the tile lowers every candidate's score (often below detail_min) and may
    # push the twin that its symbol tells apart out of detail_margin.
    hid = (np.zeros(len(best0), bool) if match.hidden_share is None else match.hidden_share >= cfg.occ_min)[:, None]
    margin = np.where(hid, cfg.detail_hidden_margin, cfg.detail_margin)
    least = np.where(hid, cfg.detail_hidden_min, cfg.detail_min)
    close = (match.score >= best0 - margin) & (best0 >= least)
    if rows is not None:
        only = np.zeros(len(close), bool)
        only[rows] = True
        close &= only[:, None]
    hidden = None
    if match.hidden is not None and match.hidden.any():
        hidden = cv2.resize(match.hidden, (w, h), interpolation=cv2.INTER_NEAREST)
        g = int(round(cfg.detail_hidden_grow * dp))
        if g > 0:
            hidden = cv2.dilate(hidden, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))
    band = max(0, int(round((cfg.inset - cfg.detail_inset) * dp))) if cfg.detail_band else 0
    band = min(band, (dw - 1) // 2)
    if match.undecided is None or len(match.undecided) != len(close):
        match.undecided = np.zeros(len(close), bool)
    match.undecided[slice(None) if rows is None else rows] = False
    for k in np.flatnonzero(close.sum(axis=1) >= 2):
        js = np.flatnonzero(close[k])[: cfg.detail_candidates]
        D = tpl.detail[match.cand[k, js]]  # (J, dw, dw, 3)
        diff = np.zeros((dw, dw), bool)
        for a in range(len(js)):
            for b in range(a + 1, len(js)):
                diff |= _differ(tpl, int(match.cand[k, js[a]]), int(match.cand[k, js[b]]), cfg.detail_diff)
        if diff.sum() < 4:
            continue  # the same picture: nothing to settle here
        mask = (cv2.dilate(diff.astype(np.uint8), kernel) > 0).reshape(-1)
        D = D.reshape(len(js), dw * dw, 3)
        # Where figures hide part of the tile, the window is tried at each candidate's own
        # position (``detail_own_shift``) and kept where the candidates together explain it
        # best: the best candidate's position may be a wrong twin's, pulled along an edge where
        # a figure hides the rest, and there the right twin's symbol would fall beside the photo's.
        own = match.shift[k, js] if cfg.detail_own_shift and hid[k, 0] else match.shift[k, :1]
        best = None
        for step in np.unique(np.round(own * dp).astype(np.int64), axis=0):
            xc = (match.cells[k, 0] - region.origin[0]) * dp + di + int(step[0])
            yc = (match.cells[k, 1] - region.origin[1]) * dp + di + int(step[1])
            fit = _detail_fit(img, hidden, D, mask, xc, yc, dw, r, band, cfg)
            if fit is not None and (best is None or fit[1] < best[1]):
                best = fit
        if best is None:
            if hid[k, 0] and cfg.count_prior > 0:
                # A figure hides what tells them apart: their scores differ by the ground's
                # texture and the light only; the box counts decide (decode, count_prior).
                match.score[k, js] = match.score[k, js].max()
                match.undecided[k] = True
            continue  # what tells the candidates apart is hidden (or the photo flat)
        m = best[0]
        if cfg.detail_twin > 0:
            match.score[k, js] = _twins_level(tpl, match.cand[k, js], match.score[k, js], cfg)
        match.score[k, js] += cfg.detail_weight * (m - m.max())
    for name, a in _take({n: getattr(match, n) for n in _PER_CANDIDATE}, np.argsort(-match.score, axis=1)).items():
        setattr(match, name, a)


def _twins_level(tpl: Templates, cand: np.ndarray, score: np.ndarray, cfg: TileConfig) -> np.ndarray:
    """Each close candidate's score raised to its best twin's (:func:`_detail`, ``detail_twin``).

    ``cand`` (J,) template indices, ``score`` (J,) their whole-tile scores.
    Twins (a camp or wild horses on the same prairie) are templates whose
    detail pictures differ on at most ``detail_twin`` of the window: their
    whole-tile difference is their small symbol and the noise.  Returns (J,).
    """
    out = score.copy()
    for a in range(len(cand)):
        for b in range(len(cand)):
            if score[b] > out[a] and _differ(tpl, int(cand[a]), int(cand[b]), cfg.detail_diff).mean() <= cfg.detail_twin:
                out[a] = score[b]
    return out


def _detail_fit(img: np.ndarray, hidden: np.ndarray | None, D: np.ndarray, mask: np.ndarray, xc: int, yc: int,
                dw: int, r: int, band: int, cfg: TileConfig, seen: np.ndarray | None = None
                ) -> tuple[np.ndarray, float] | None:
    """Masked fit of detail templates ``D`` (J, dw*dw, 3) to the photo's window at ``(xc, yc)`` (:func:`_detail`).

    The window is searched within ``r`` pixels for the position where the
    templates together fit the whole cell best (hidden pixels take no part);
    there each template's residual is measured where ``mask`` (dw*dw,) bool
    holds and the pixels are visible.  The visible pixels are those ``hidden``
    (the detail picture's (h, w) float mask, 1: hidden; None: all) leaves
    there, or ``seen`` (dw*dw,) bool when given; with ``detail_reclaim`` the
    hidden pixels :func:`_reclaimed` takes back join them and the fit is made
    again on them.  Returns ``(fit, unexplained)``: the masked
    fit ``1 - E / V`` per template, (J,) float ndarray, and the share of the
    window's variance the templates leave unexplained at that position, summed
    over them (float; lower: the templates agree better with the window); or
    None when fewer than 4 pixels of the mask are visible or the photo is flat
    there.
    """
    h, w = img.shape[:2]
    S = 2 * r + 1
    whole = int(mask.sum())
    vis = np.ones(dw * dw, np.float32)
    if seen is not None:
        vis = seen.astype(np.float32)
    elif hidden is not None:
        vis = 1.0 - _gather(hidden, np.array(xc), np.array(yc), dw)
        if band > 0:
            # The hidden masks cover the fine comparison's window (``inset``) only: a figure
            # crossing its edge goes on to the tile's border, so the band outside repeats it.
            vis = np.pad(vis[band:dw - band, band:dw - band], band, mode="edge")
        vis = vis.reshape(-1)
    reclaim = seen is None and hidden is not None and cfg.detail_reclaim > 0
    if (mask & (vis > 0.5)).sum() < 4 and not reclaim:
        return None  # what tells the candidates apart is hidden
    if r <= xc <= w - dw - r and r <= yc <= h - dw - r:
        sub = img[yc - r:yc + r + dw, xc - r:xc + r + dw]
        X3 = sliding_window_view(sub, (dw, dw), axis=(0, 1)).transpose(0, 1, 3, 4, 2).reshape(S * S, dw * dw, 3)
    else:
        dy, dx = np.divmod(np.arange(S * S), S)  # the shifts, for a window off the region's edge
        X3 = _gather(img, xc - r + dx, yc - r + dy, dw).reshape(S * S, dw * dw, 3)
    nv = float(vis.sum())
    T = D
    if hidden is None and seen is None:
        T = T - T.mean(axis=1, keepdims=True)
        Xc = X3 - X3.mean(axis=1, keepdims=True)
    else:
        v3 = vis[None, :, None]
        # The visible pixels' means as matrix products: numpy's weighted sums over the middle
        # axis took 40% of the time of this fit (the same numbers to float32 rounding).
        T = (T - np.matmul(vis, T)[:, None, :] / nv) * v3
        Xc = (X3 - np.matmul(vis, X3)[:, None, :] / nv) * v3
    # One position for the templates: where they fit the whole cell best together
    # (residual of the best gain, sum over templates: |X|^2 - <X,T>^2 / |T|^2).
    Xf = Xc.reshape(S * S, -1)
    Tf = T.reshape(len(T), -1)
    xt = np.einsum("sp,jp->sj", Xf, Tf, optimize=False)  # (S*S, J); tiny: no BLAS threads
    tt = np.einsum("jp,jp->j", Tf, Tf) + 1e-6
    xx = np.einsum("sp,sp->s", Xf, Xf)
    left = (xx[:, None] - xt * xt / tt).sum(axis=1)  # (S*S,)
    pos = int(np.argmin(left))
    x = Xc[pos]
    g = xt[pos] / tt  # (J,)
    if reclaim:
        # Hidden pixels that one of the close candidates explains as closely as the visible
        # ones, in colour and in chromaticity: a sliver of a camp or of wild horses beside a figure.
        back = _reclaimed(X3[pos], D, vis, g, cfg.detail_reclaim)
        if back.any():
            return _detail_fit(img, hidden, D, mask, xc, yc, dw, r, band, cfg, seen=(vis > 0.5) | back)
    mask = mask & (vis > 0.5)
    if mask.sum() < 4:
        return None  # what tells the candidates apart is hidden
    xm = x[mask]  # (m, 3): the residual is needed where the candidates differ only
    Tm = T[:, mask]  # (J, m, 3)
    if cfg.detail_local and mask.sum() >= cfg.detail_local_visible * whole:
        # The symbols' own means and contrast: a small symbol keeps less of its contrast
        # through blur than the rails or roads that set the whole cell's gain (a gain fitted
        # on the few pixels a figure leaves visible would follow the noise).
        xm, Tm, gl = _own_gain(xm, Tm)
        g = np.clip(gl, cfg.detail_gain_low * g, cfg.detail_gain_high * g)
    Em = _residual(xm, Tm, g)
    Vm = max(float((xm * xm).sum()), cfg.detail_floor * float(xx[pos] / nv) * int(mask.sum()))
    if Vm <= 0:
        return None  # a flat patch (off the photo): nothing to settle
    fit = 1.0 - Em / Vm
    if cfg.detail_chroma > 0:
        fit = (1.0 - cfg.detail_chroma) * fit + cfg.detail_chroma * _chroma_fit(X3[pos], D, mask, vis, cfg)
    # ... and how much of the window's variance the templates leave unexplained there (summed).
    return fit, float(left[pos]) / max(float(xx[pos]), 1e-6)


def _reclaimed(x: np.ndarray, D: np.ndarray, vis: np.ndarray, g: np.ndarray, k: float) -> np.ndarray:
    """Hidden pixels of a detail window that a close candidate explains as closely as the visible ones.

    ``x`` (P, 3) the photo's window at the position chosen, ``D`` (J, P, 3) the
    close candidates' detail pictures (raw colours), ``vis`` (P,) float 1 where
    visible, ``g`` (J,) each candidate's gain fitted there.  A hidden pixel
    comes back (True in the (P,) bool ndarray returned) when one candidate
    leaves it within ``k`` times the visible pixels' median misfit (of the
    candidate fitting each best) both in colour (means of the visible pixels
    removed, the gain applied) and in chromaticity (each colour divided by its
    brightness plus 30, as :func:`_chroma_fit`): the part of a camp or of wild
    horses that shows beside a figure, which the hidden mask, grown round the
    figure and its shadow, covers.  The edge of a dark figure or its shadow
    only darkens the ground: it may come near a dark symbol in colour but not
    in chromaticity, and stays hidden.  No pixel comes back when fewer than
    16 are visible.
    """
    seen = vis > 0.5
    back = np.zeros(len(vis), bool)
    if seen.sum() < 16:
        return back
    nv = float(vis.sum())
    xr = x - (vis @ x) / nv
    Tc = D - np.matmul(vis, D)[:, None, :] / nv
    res = ((xr[None] - g[:, None, None] * Tc) ** 2).sum(axis=2)  # (J, P)
    cx = _chromaticity(x)
    cd = _chromaticity(D)
    cx = cx - (vis @ cx) / nv
    cd = cd - np.matmul(vis, cd)[:, None, :] / nv
    cres = ((cx[None] - cd) ** 2).sum(axis=2)  # (J, P)
    lr = k * float(np.median(res.min(axis=0)[seen]))
    lc = k * float(np.median(cres.min(axis=0)[seen]))
    return ~seen & ((res < lr) & (cres < lc)).any(axis=0)


def _chromaticity(a: np.ndarray) -> np.ndarray:
    """Each colour of ``a`` (..., 3) divided by its brightness plus 30 of 765 (which keeps dark
    pixels' noise down), times 255: same shape, float."""
    return a * (255.0 / (a.sum(axis=-1, keepdims=True) + 30.0))


def _chroma_fit(x: np.ndarray, D: np.ndarray, mask: np.ndarray, vis: np.ndarray, cfg: TileConfig) -> np.ndarray:
    """The masked fit of :func:`_detail_fit` on chromaticity: (J,) float ndarray.

    ``x`` (P, 3) the photo's window at the position chosen, ``D`` (J, P, 3) the
    templates, raw colours; ``mask`` (P,) bool where they differ and the photo
    is visible; ``vis`` (P,) its visible pixels.  Each pixel's colour is
    divided by its brightness (plus 30 of 765, which keeps dark pixels'
    noise down): a figure's shadow on plain ground darkens it without changing
    its colour, a brown horse or a red-striped tipi changes both, so in
    chromaticity a shadow no longer looks like the symbol of a look-alike.
    Means and a gain (between ``detail_gain_low`` and ``detail_gain_high``)
    are fitted on the mask; the photo's variance there is floored at
    ``detail_floor`` of the visible window's.
    """
    cx = _chromaticity(np.asarray(x, np.float32))
    cd = _chromaticity(D[:, mask])  # (J, m, 3): the templates are needed on the mask only
    seen = vis > 0.5
    floor = float(((cx[seen] - cx[seen].mean(axis=0)) ** 2).sum()) / max(int(seen.sum()), 1)
    xm, Tm, g = _own_gain(cx[mask], cd)
    Em = _residual(xm, Tm, np.clip(g, cfg.detail_gain_low, cfg.detail_gain_high))
    Vm = max(float((xm * xm).sum()), cfg.detail_floor * floor * int(mask.sum()), 1e-6)
    return 1.0 - Em / Vm


def _own_gain(xm: np.ndarray, Tm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masked pixels' own means removed and each template's gain fitted there.

    ``xm`` (m, 3) the photo, ``Tm`` (J, m, 3) the templates; returns both
    centred and the least-squares gain per template, (J,) float ndarray.
    """
    xm = xm - xm.mean(axis=0)
    Tm = Tm - Tm.mean(axis=1, keepdims=True)
    return xm, Tm, np.einsum("mc,jmc->j", xm, Tm) / (np.einsum("jmc,jmc->j", Tm, Tm) + 1e-6)


def _residual(xm: np.ndarray, Tm: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Squared residual of the photo ``xm`` (m, 3) against each template ``Tm`` (J, m, 3) times
    its gain ``g`` (J,): (J,) float ndarray."""
    return ((xm[None] - g[:, None, None] * Tm) ** 2).sum(axis=2).sum(axis=1)


# --------------------------------------------------------------------------- occlusion


#: Speed-ups of :func:`_compare_visible` that give the same numbers (the template matrices kept
#: between calls); False runs the plain version (kept to measure and check it).
_FAST = True
#: The last template matrices of :func:`_compare_visible`: ``(fine_raw, T, T12)``.
_VISIBLE_MATS: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []


def _occlusion(match: _Match, tpl: Templates, cfg: TileConfig) -> None:
    """Find what hides part of a tile (a figure, a gold stack, its shadow) and compare around it.

    A figure standing on a tile hides a tenth to a third of it: more than the
    fine score's trimming ignores, so the covered pixels drag the match
    towards templates that happen to be dark or coloured there (a town under
    a meeple reads as a crossing), push the right template out of the
    coarse candidates, or make the tile look like no tile at all.

    Cells of the board (one that matches some tile at least ``occ_seed``,
    or a neighbour of one, that holds a tile at least ``occ_min_occupancy``
    likely or has ``occ_neighbours`` such neighbours) get a mask of hidden pixels
    (:func:`_hidden_masks`: what none of the cell's best candidates explains,
    in blobs too wide to be art).  Cells with between ``occ_min`` and
    ``occ_max`` of the tile hidden are compared with every template on their
    visible pixels (:func:`_compare_visible`), and scored with the hidden
    pixels' misfit capped at ``occ_cap`` times the hiding threshold: a
    pixel wrongly taken for hidden (a road under a meeple, which the old
    candidates did not explain) still rewards the template that explains it.
    This runs ``occ_rounds`` times, the mask found again with the new
    candidates.  Updates ``match`` in place: ``hidden`` (the mask over the
    fine picture), ``hidden_share`` (N,), ``tau`` (N,) and the rows compared
    again.

    The same principle as the figure stage (:mod:`scorer.vision.figures`):
    what the art does not explain stands on it.
    """
    _, fine_wb = match.fine
    N = len(match.cells)
    match.hidden = np.zeros(fine_wb.shape[:2], np.float32)
    match.hidden_share = np.zeros(N)
    match.tau = np.zeros(N)
    # Cells of the board: a sure tile there or beside it (a tile lies next to a tile).
    sure = {tuple(c) for c in match.cells[match.score[:, 0] >= cfg.occ_seed].tolist()}
    near = np.array([sum((x + dx, y + dy) in sure for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
                     for x, y in match.cells.tolist()])
    own = np.array([(x, y) in sure for x, y in match.cells.tolist()])
    board = own | (near > 0)
    # ... that may hold a tile at all: a patch of table beside the board has no figure to see through;
    # but a cell between sure tiles (a hole or a bay of the board) is looked at whatever it shows.
    if cfg.occ_min_occupancy > 0:
        board &= (_occupancy(match, cfg) >= cfg.occ_min_occupancy) | (near >= cfg.occ_neighbours)
    rows = np.flatnonzero(board)
    for _ in range(max(1, cfg.occ_rounds)):
        if not len(rows):
            break
        masks, share, level = _hidden_masks(match, rows, tpl, cfg)
        pick = (share >= cfg.occ_min) & (share <= cfg.occ_max)
        match.hidden_share[rows] = share
        if not pick.any():
            break
        rows, masks = rows[pick], masks[pick]
        match.tau[rows] = cfg.occ_cap * level[pick]
        _paint_hidden(match, rows, masks, cfg)
        _compare_visible(match, rows, tpl, cfg)


def _hidden_masks(match: _Match, rows: np.ndarray, tpl: Templates, cfg: TileConfig
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell of ``rows``, the pixels of its tile window that none of its candidates explains.

    Each of the cell's ``occ_candidates`` best candidates (tiles a symbol
    apart are among them: they score alike) is carried by its own fit (gain and
    offsets, :func:`_robust_scores`) to the window of the best candidate's
    position; a pixel is hidden when even the best of them misfits it by
    more than ``occ_noise`` times the cell's median misfit and more than
    ``occ_level`` times the cell's mean pixel variance, or when its
    brightness is below ``occ_dark`` times that of each of the
    ``occ_dark_candidates`` best candidates' fitted art there (a black
    figure, an ore stack: a dark crossing hub explains those too well).

    Returns
    -------
    masks : (R, w, w) uint8 ndarray
        The window at ``patch_px``: 1 where hidden.  Opened with a disc of
        radius ``occ_open`` (a thin misfit along a road, a rail or a wall, a
        pennant a little off, is art, not a figure), then dilated by a pixel.
    share : (R,) float ndarray
        Share of each window hidden.
    level : (R,) float ndarray
        Each cell's hiding threshold, squared RGB misfit.
    """
    _, fine_wb = match.fine
    px = cfg.patch_px
    i, w = _inner(px, cfg.inset)
    P = w * w
    J = min(cfg.occ_candidates, match.cand.shape[1])
    Traw = tpl.fine_raw.reshape(len(tpl.fine_raw), P, 3)
    k3 = np.ones((3, 3), np.uint8)
    ko = max(1, int(round(cfg.occ_open * px)))
    kopen = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * ko + 1, 2 * ko + 1))
    masks = np.zeros((len(rows), w, w), np.uint8)
    levels = np.zeros(len(rows))
    for a in range(0, len(rows), 64):
        ks = rows[a:a + 64]
        off = np.round(match.shift[ks, 0] * px).astype(np.int64)
        x0 = (match.cells[ks, 0] - match.origin[0]) * px + i + off[:, 0]
        y0 = (match.cells[ks, 1] - match.origin[1]) * px + i + off[:, 1]
        X = _gather(fine_wb, x0, y0, w).reshape(-1, 1, P, 3).astype(np.float32, copy=False)
        n = len(X)
        g = match.contrast[ks, :J].astype(np.float32)  # (n, J)
        b = (match.xmean[ks, :J] - g[..., None] * match.tmean[ks, :J]).astype(np.float32)  # (n, J, 3)
        D = X - g[:, :, None, None] * Traw[match.cand[ks, :J]] - b[:, :, None, :]
        R = np.einsum("njpc,njpc->njp", D, D, optimize=False).min(axis=1)  # (n, P)
        Xc = X[:, 0] - X[:, 0].mean(axis=1, keepdims=True)
        var = np.einsum("npc,npc->n", Xc, Xc, optimize=False) / P
        level = np.maximum(cfg.occ_noise * np.median(R, axis=1), cfg.occ_level * var)
        hide = R > level[:, None]
        if cfg.occ_dark > 0:
            # Much darker than the art of each of the occ_dark_candidates best there: black wood
            # or an ore stack, which a dark-hubbed crossing would otherwise explain (and so win
            # under it, over the town it hides) well enough.
            jd = max(1, min(J, cfg.occ_dark_candidates))
            lum = (g[:, :jd, None, None] * Traw[match.cand[ks, :jd]] + b[:, :jd, None, :]).mean(axis=3)  # (n, jd, P)
            hide |= X[:, 0].mean(axis=2) + 1.0 < cfg.occ_dark * (np.maximum(lum.min(axis=1), 0.0) + 1.0)
        raw = hide.reshape(n, w, w).astype(np.uint8)
        levels[a:a + n] = level
        for m in range(n):
            if raw[m].any():
                masks[a + m] = cv2.dilate(cv2.morphologyEx(raw[m], cv2.MORPH_OPEN, kopen), k3)
    return masks, masks.reshape(len(rows), -1).mean(axis=1), levels


def _paint_hidden(match: _Match, rows: np.ndarray, masks: np.ndarray, cfg: TileConfig) -> None:
    """Write the masks of ``rows`` (at their best candidates' positions) into ``match.hidden``."""
    px = cfg.patch_px
    i, w = _inner(px, cfg.inset)
    H, W = match.hidden.shape
    for k, m in zip(rows, masks):
        off = np.round(match.shift[k, 0] * px).astype(np.int64)
        x = int(np.clip((match.cells[k, 0] - match.origin[0]) * px + i + off[0], 0, W - w))
        y = int(np.clip((match.cells[k, 1] - match.origin[1]) * px + i + off[1], 0, H - w))
        match.hidden[y:y + w, x:x + w] = np.maximum(match.hidden[y:y + w, x:x + w], m)


def _compare_visible(match: _Match, rows: np.ndarray, tpl: Templates, cfg: TileConfig, chunk: int = 128) -> None:
    """Compare cells ``rows`` with every template on their visible pixels; keep the ``top_k`` best.

    Per cell and template, the weighted correlation (one gain, an offset per
    channel, over the pixels ``match.hidden`` leaves visible; its square, 0
    for a negative one) at each shift within ``occ_shift`` tiles of the
    cell's position; the best shift counts.  The ``top_k`` best templates
    and the cell's own candidates are then scored by :func:`_robust_scores`
    on the visible pixels, and the ``top_k`` best replace the candidates.
    """
    _, fine_wb = match.fine
    px = cfg.patch_px
    i, w = _inner(px, cfg.inset)
    P = w * w
    r = max(1, int(round(cfg.occ_shift * px)))
    S = 2 * r + 1
    dy, dx = np.divmod(np.arange(S * S), S)
    M = len(tpl.keys)
    K = match.cand.shape[1]
    hit = [m for m in _VISIBLE_MATS if m[0] is tpl.fine_raw and m[1].shape == (P * 3, M)] if _FAST else []
    if hit:
        T, T12 = hit[0][1], hit[0][2]
    else:
        T = np.ascontiguousarray(tpl.fine_raw.reshape(M, P * 3).T.astype(np.float32))  # (P*3, M), channels inner
        T1 = tpl.fine_raw.reshape(M, P, 3).transpose(1, 0, 2).reshape(P, M * 3).astype(np.float32)
        T12 = np.ascontiguousarray(np.concatenate([T1, T1 * T1], axis=1))  # (P, 2*M*3): sums of T and T^2 in one product
        if _FAST:
            _VISIBLE_MATS[:] = [(tpl.fine_raw, T, T12)]
    pool_c = np.empty((len(rows), 2 * K), np.int64)
    pool_o = np.empty((len(rows), 2 * K, 2), np.int64)
    base = np.round(match.shift[rows, 0] * px).astype(np.int64)  # (R, 2)
    for a in range(0, len(rows), chunk):
        ks = rows[a:a + chunk]
        b = base[a:a + chunk]
        n = len(ks)
        xs = ((match.cells[ks, 0] - match.origin[0]) * px + i + b[:, 0] - r)[:, None] + dx
        ys = ((match.cells[ks, 1] - match.origin[1]) * px + i + b[:, 1] - r)[:, None] + dy
        X = _gather(fine_wb, xs, ys, w).reshape(n * S * S, P, 3).astype(np.float32, copy=False)
        W = 1.0 - _gather(match.hidden, xs, ys, w).reshape(n * S * S, P)
        cnt = W.sum(axis=1) + 1e-6
        WX = W[:, :, None] * X
        sx = WX.sum(axis=1)  # (nS, 3)
        sxx = (WX * X).sum(axis=(1, 2))  # (nS,)
        both = W @ T12
        st = both[:, :M * 3].reshape(-1, M, 3)
        stt = both[:, M * 3:].reshape(-1, M, 3).sum(axis=2)
        sxt = WX.reshape(-1, P * 3) @ T  # (nS, M)
        xm = sx / cnt[:, None]
        tm = st / cnt[:, None, None]
        cov = sxt - cnt[:, None] * np.einsum("sc,smc->sm", xm, tm)
        vt = stt - cnt[:, None] * (tm * tm).sum(axis=2)
        vx = sxx - cnt * (xm * xm).sum(axis=1)
        sc = np.where(cov > 0, cov * cov / (np.maximum(vt, 1e-6) * np.maximum(vx, 1e-6)[:, None]), 0.0)
        sc = sc.reshape(n, S * S, M)
        best_s = sc.argmax(axis=1)  # (n, M)
        best = np.take_along_axis(sc, best_s[:, None, :], axis=1)[:, 0]
        top = np.argsort(-best, axis=1)[:, :K]
        s_top = np.take_along_axis(best_s, top, axis=1)
        pool_c[a:a + n, :K] = top
        pool_o[a:a + n, :K, 0] = b[:, :1] - r + dx[s_top]
        pool_o[a:a + n, :K, 1] = b[:, 1:] - r + dy[s_top]
    pool_c[:, K:] = match.cand[rows]
    pool_o[:, K:] = np.round(match.shift[rows] * px).astype(np.int64)
    res = _rescore(fine_wb, match.cells[rows], match.origin, pool_c, pool_o, tpl, cfg, cfg.trim, hidden=match.hidden,
                   tau=match.tau[rows], tone=match.tone)
    # A template in both pools (at two positions) keeps its better score only.
    keep = np.empty((len(rows), K), np.int64)
    for n in range(len(rows)):
        _, first = np.unique(res["cand"][n], return_index=True)
        kn = np.sort(first)[:K]
        keep[n] = np.concatenate([kn, np.full(K - len(kn), kn[-1])])  # pad with the worst kept
    _put(match, rows, _take(res, keep))
    log.debug("occlusion: %d cells compared again on their visible pixels", len(rows))


# --------------------------------------------------------------------------- occupancy


def _occupancy(match: _Match, cfg: TileConfig) -> np.ndarray:
    """Probability that each examined cell holds a tile, before decoding: (N,) float.

    A logistic model (weights fitted on synthetic photos by
    ``scripts/tile_fit_occupancy.py``, ``occ0_weights`` and ``occ_weights``
    in ``config.toml``) of the cues of :func:`_occupancy_features`; then the
    same with the cell's colours weighed against the colours of this photo's
    table and of its tiles (:func:`_table_llr`, which needs the first model
    to tell which cells surely are table and tile).
    """
    F = _occupancy_features(match, cfg)
    w0 = np.asarray(cfg.occ0_weights, float)
    z = w0[0] + F @ w0[1:]
    w = np.asarray(cfg.occ_weights, float)
    if w[-1]:
        llr = _table_llr(match, 1.0 / (1.0 + np.exp(-z)), cfg)
        z = w[0] + F @ w[1:-1] + w[-1] * llr
    return 1.0 / (1.0 + np.exp(-z))


#: The cues of the occupancy model, in the order of ``occ0_weights`` (after the bias).
OCCUPANCY_FEATURES = ("score", "contrast", "colour", "tint", "hidden", "bare")


def _occupancy_features(match: _Match, cfg: TileConfig) -> np.ndarray:
    """The cues of occupancy per examined cell: (N, 6) float, :data:`OCCUPANCY_FEATURES`.

    * ``score``: the best candidate's match score (a tile looks like some
      template, the table like none);
    * ``contrast``: log of the cell's contrast relative to the photo's
      typical tile contrast (a plain table is much flatter than any tile);
    * ``colour``: log of the best candidate's colour misfit relative to the
      cell's variance (a striped tablecloth may have structure, but not the
      tile's colours);
    * ``tint``: log of the colour misfit when the template is carried by the
      photo's typical gain instead of the cell's own, less the typical misfit
      of the sure tiles, relative to their typical variance: unlike
      ``colour`` it stays small for a tile whose structure is hidden or faint
      (a monk on a cloister leaves plain field, which is field-green);
    * ``hidden``: the share of the tile hidden by figures (:func:`_occlusion`);
    * ``bare``: how far the best match falls below ``bare_score`` when
      nothing hides the cell (times ``exp(-hidden / bare_hidden)``): a tile
      that no figure covers matches its template, while a patterned cloth in
      the tiles' colours matches none.

    "Sure" cells score at least ``sure_score`` with a colour cue of at most
    ``sure_colour`` and a colour cast of at most ``max_cast`` (:func:`_cast`;
    at least the three best such cells, if they reach ``occ_seed`` times the
    share of the tile not hidden: large figures on a board of three tiles
    seen from close may hide a fifth of each; with none, ``contrast`` and
    ``tint`` are 0): on a board of a few tiles, wood
    grain may match a rail's structure better than the tiles match their own
    art, but not its colours, and a striped cloth not without a strong cast.
    """
    best = match.score[:, 0]
    contrast = match.contrast[:, 0]
    colour = np.log(np.maximum(match.colour[:, 0], 0.0) + 0.01)
    # Wood grain may match a rail's structure, never its colours; a striped cloth may fit the
    # per-cell colour model too, but not without a strong cast.
    fits = (colour <= cfg.sure_colour) & (_cast(match) <= cfg.max_cast)
    sure = (best >= cfg.sure_score) & fits
    hidden = match.hidden_share if match.hidden_share is not None else np.zeros(len(best))
    if sure.sum() < 3:  # a small board, a hard photo: its three best cells, if they match some tile at all
        # (what figures hide, a tile matches less: with a third of it hidden, two thirds of occ_seed)
        seed = fits & (best >= cfg.occ_seed * (1.0 - hidden))
        sure = seed & (best >= np.sort(best[seed])[-min(3, int(seed.sum()))]) if seed.any() else seed
    if sure.any():
        gain = float(np.median(contrast[sure]))
        rel = np.log(np.clip(contrast / max(gain, 1e-6), 0.02, 10.0))
        b = match.xmean[:, 0] - gain * match.tmean[:, 0]
        b = b - b.mean(axis=1, keepdims=True)
        ref = np.median(b[sure], axis=0)
        spread = float(np.median(match.spread[sure, 0]))
        tint = np.log(((b - ref) ** 2).sum(axis=1) / max(spread, 1.0) + 0.01)
    else:
        # Nothing looks like a tile: no typical contrast or colours to compare with.
        rel = np.zeros(len(best))
        tint = np.zeros(len(best))
    bare = np.maximum(cfg.bare_score - best, 0.0) * np.exp(-hidden / max(cfg.bare_hidden, 1e-6))
    return np.stack([best, rel, colour, tint, hidden, bare], axis=1)


def _table_llr(match: _Match, p0: np.ndarray, cfg: TileConfig, bins: int = 12) -> np.ndarray:
    """Per cell, the mean log-likelihood ratio of its colours: this photo's tiles versus its table.

    Colour histograms (``bins`` per channel, white-balanced fine picture) of the
    cells surely holding a tile and of the cells surely showing table; 0 for
    every cell when either set is too small (a board filling the photo).
    """
    _, img = match.fine
    px = cfg.patch_px
    i, w = _inner(px, cfg.inset)
    origin = match.origin
    tiles = np.flatnonzero(p0 > 0.97)
    table = np.flatnonzero(p0 < 0.003)
    out = np.zeros(len(p0))
    if len(tiles) < 3 or len(table) < 3:
        return out
    q = np.clip(img, 0, 255) * (bins / 256.0)
    q = np.minimum(q.astype(np.int32), bins - 1)
    code = (q[..., 0] * bins + q[..., 1]) * bins + q[..., 2]

    def cell_codes(k: int) -> np.ndarray:
        x0 = (match.cells[k, 0] - origin[0]) * px + i
        y0 = (match.cells[k, 1] - origin[1]) * px + i
        return code[y0:y0 + w, x0:x0 + w].ravel()

    def hist(idx: np.ndarray) -> np.ndarray:
        h = np.bincount(np.concatenate([cell_codes(k) for k in idx]), minlength=bins ** 3).astype(np.float64)
        h = cv2.GaussianBlur(h.reshape(bins, bins * bins), (0, 0), 0.7).ravel()  # a little smoothing
        return h / h.sum()

    ht, hb = hist(table), hist(tiles)
    eps = 1.0 / (bins ** 3)
    lr = np.log((hb + eps) / (ht + eps))
    for k in range(len(p0)):
        out[k] = lr[cell_codes(k)].mean()
    return np.clip(out, -cfg.table_llr_clip, cfg.table_llr_clip)


# --------------------------------------------------------------------------- repair


def _repair(region: _Region, match: _Match, occ: np.ndarray, maybe: np.ndarray, dec, tpl: Templates,
            catalog: Catalog, cfg: TileConfig) -> np.ndarray:
    """Give cells that disagree with the decoded board every tile that would fit there.

    The coarse stage keeps only the ``top_k`` likeliest templates per cell, so a
    tile half hidden by a figure (a meeple on a cloister, a Gold Rush tent) may
    have lost its own.  After a first decode, every cell that is read empty
    although two or more neighbours hold tiles (or one, when the cell holds a
    tile at least ``repair_edge_occupancy`` likely: the end of an arm of the
    board, such as a mountain whose nuggets an ore stack hides), or whose
    tile's sides disagree with its neighbours, is compared with *every*
    template whose sides match its decoded neighbours, with a larger share of
    spoilt pixels ignored (``repair_trim``).  With ``repair_occlusion``, what
    hides the repaired cells that were read empty and looked like no tile (occupancy
    below one half) is then looked for again (their own tile now
    among the candidates explains the rest of the cell, so a tall ore stack or
    a figure stands out) and their candidates are scored again around it, as
    :func:`_occlusion` does.  Updates ``match`` and ``occ`` in place.

    Returns
    -------
    (M,) int ndarray
        Indices of the cells repaired.
    """
    index = {tuple(map(int, c)): k for k, c in enumerate(match.cells)}
    label: dict[Cell, tuple[str, int]] = {}
    for n, k in enumerate(maybe):
        if dec.labels[n] is not None:
            label[tuple(map(int, match.cells[k]))] = dec.labels[n]
    sigs = [catalog[t].edge_signature(r) for t, r in tpl.keys]
    offsets = ((0, -1), (1, 0), (0, 1), (-1, 0))
    facing = (2, 3, 0, 1)
    fine_img, fine_wb = match.fine
    done, empty = [], []  # cells repaired; those of them read empty that looked like no tile
    for cell in sorted(set(index)):
        k = index[cell]
        if occ[k] < cfg.repair_min_occupancy:
            continue
        req = {}
        for s, (dx, dy) in enumerate(offsets):
            nb = label.get((cell[0] + dx, cell[1] + dy))
            if nb is not None:
                req[s] = catalog[nb[0]].edge_signature(nb[1])[facing[s]]
        cur = label.get(cell)
        if cur is None:
            if len(req) < 2 and not (req and occ[k] >= cfg.repair_edge_occupancy):
                continue
        else:
            sig = catalog[cur[0]].edge_signature(cur[1])
            if all(sig[s] == v for s, v in req.items()):
                continue
        options = [t for t, sg in enumerate(sigs) if all(sg[s] == v for s, v in req.items())]
        if not options:
            continue
        pool = np.array(sorted(set(options) | set(int(t) for t in match.cand[k])))[None, :]
        one = match.cells[k:k + 1]
        _, off = _fine_offsets(fine_img, one, region.origin, pool, match.centre[k:k + 1], tpl, cfg, match.search)
        _put(match, np.array([k]), _rescore(fine_wb, one, region.origin, pool, off, tpl, cfg, cfg.repair_trim,
                                            hidden=match.hidden, tau=None if match.tau is None else match.tau[k:k + 1],
                                            tone=match.tone))
        done.append(k)
        if cur is None and occ[k] < 0.5:  # looked like no tile: what hides it went unseen
            empty.append(k)
    done = np.array(done, dtype=np.int64)
    empty = np.array(empty, dtype=np.int64)
    if len(empty) and cfg.occlusion and cfg.repair_occlusion and match.hidden is not None:
        # With their own tile among the candidates, what hides these cells shows:
        # look through it (a tall ore stack or a figure hides more than the trimming ignores).
        masks, share, level = _hidden_masks(match, empty, tpl, cfg)
        pick = (share >= cfg.occ_min) & (share <= cfg.occ_max) & (share > match.hidden_share[empty])
        if pick.any():
            rows = empty[pick]
            match.hidden_share[rows] = share[pick]
            match.tau[rows] = cfg.occ_cap * level[pick]
            _paint_hidden(match, rows, masks[pick], cfg)
            # Their candidates already hold every tile that fits the neighbours: score those again.
            offset = np.round(match.shift[rows] * cfg.patch_px).astype(np.int64)
            _put(match, rows, _rescore(fine_wb, match.cells[rows], region.origin, match.cand[rows], offset, tpl,
                                       cfg, cfg.trim, hidden=match.hidden, tau=match.tau[rows], tone=match.tone))
    if len(done):
        _detail(region, match, tpl, cfg, match.wb, rows=done)
        occ[done] = _occupancy(match, cfg)[done]
    return done


def _unmatched(match: _Match, maybe: np.ndarray, occ: np.ndarray, dec, cfg: TileConfig) -> set[Cell]:
    """Decoded cells that are table after all: a patterned cloth in the tiles' colours.

    A cell whose decoded tile matches below ``unmatched_score`` while less
    than ``unmatched_hidden`` of it is hidden matches no tile and nothing
    covers it, unless ``unmatched_neighbours`` or more of its neighbours hold
    tiles that match (a tile with little structure of its own, enclosed by the board)
    or its occupancy ``occ`` (shape ``(cells,)``, float, 0-1, indexed like
    ``match.cells``) is at least ``unmatched_occupancy`` (a tile with faint art,
    such as the low-contrast rock of the all-mountain Gold Rush tile, whose
    random texture no template shares, but whose edges and colours the
    occupancy sees).
    """
    weak, held = set(), set()
    for n, k in enumerate(maybe):
        if dec.labels[n] is None:
            continue
        cell = tuple(map(int, match.cells[k]))
        hid = 0.0 if match.hidden_share is None else float(match.hidden_share[k])
        if (match.score[k, dec.choice[n]] < cfg.unmatched_score and hid < cfg.unmatched_hidden
                and occ[k] < cfg.unmatched_occupancy):
            weak.add(cell)
        else:
            held.add(cell)
    if not cfg.unmatched_neighbours:
        return weak
    return {c for c in weak if _neighbours(c, held) < cfg.unmatched_neighbours}


def _neighbours(cell: Cell, held: set[Cell]) -> int:
    """How many of ``cell``'s four neighbours are in ``held``."""
    x, y = int(cell[0]), int(cell[1])
    return sum(c in held for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))


def _detached(board: set[Cell], gap: int, share: float) -> set[Cell]:
    """Tiles read apart from the board: a supply stack, a score board, a patch of cloth.

    Every tile is placed against a tile already on the table (Gold Rush:
    ``rules.md`` section 6, turn step 1, seed ``000_*``; the base game's rule
    book likewise), so the board is one group of tiles joined side to side.
    The largest group (most tiles) is the board; a group that lies within
    ``gap`` - 1 empty cells of it (a tile missed, hidden or cut by the photo's
    edge) joins it, and so on. A group left over would need ``gap`` or more
    tiles all missed in a row, and is dropped when it holds at most ``share``
    of the board's tiles. Cells outside the photo count as empty: a board that
    leaves the photo and comes back into it is rarer than a supply stack or a
    score board near the photo's edge.

    Parameters
    ----------
    board : set of (int, int)
        The lattice cells read as holding a tile.
    gap : int
        Fewest empty cells between a dropped group and the board (0: drop nothing).
    share : float
        Largest dropped group, as a share of the board's tile count.

    Returns
    -------
    set of (int, int)
        The cells to drop (empty when every tile may belong to the board).
    """
    if gap <= 0 or len(board) < 2:
        return set()
    groups = _linked(board, 1)
    main = max(groups, key=lambda g: (len(g), min(g)))
    # Two cells with fewer than gap empty cells on a side-to-side path between them
    # lie within gap of each other, city-block.
    joined = next(r for r in _linked(board, gap) if next(iter(main)) in r)
    return set().union(*(g for g in groups if not g & joined and len(g) <= share * len(main)))


def _linked(cells: set[Cell], reach: int) -> list[set[Cell]]:
    """``cells`` grouped so that each lies within city-block distance ``reach`` of another of its group."""
    steps = [(dx, dy) for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1)
             if 0 < abs(dx) + abs(dy) <= reach]
    groups, left = [], set(cells)
    while left:
        todo = [left.pop()]
        group = set(todo)
        while todo:
            x, y = todo.pop()
            for dx, dy in steps:
                c = (x + dx, y + dy)
                if c in left:
                    left.discard(c)
                    group.add(c)
                    todo.append(c)
        groups.append(group)
    return groups


def _holes(match: _Match, maybe: np.ndarray, dec, occ: np.ndarray, cfg: TileConfig) -> np.ndarray:
    """Cells left out of decoding that ``hole_neighbours`` or more decoded tiles enclose: (M,) int.

    A tile with little structure of its own (Gold Rush's all-mountain tile,
    a plain field) matches no template well and looks like the table, but a
    hole enclosed by tiles is rare on a board: such cells are decoded too,
    where the neighbour prior and the sides of their neighbours weigh in.
    Cells less likely than ``repair_min_occupancy`` stay out.
    """
    if not cfg.hole_neighbours:
        return np.zeros(0, np.int64)
    held = {tuple(map(int, match.cells[k])) for n, k in enumerate(maybe) if dec.labels[n] is not None}
    out = [k for k, c in enumerate(match.cells)
           if occ[k] < cfg.decode_min_occupancy and occ[k] >= cfg.repair_min_occupancy
           and _neighbours(c, held) >= cfg.hole_neighbours]
    return np.array(out, dtype=np.int64)


# --------------------------------------------------------------------------- public entry


def _visible_cells(grid: Grid) -> tuple[list[Cell], list[Cell]]:
    """Lattice cells wholly inside the photo, and cells cut by its edge (some corner inside)."""
    h, w = grid.shape
    t = np.linspace(0.0, 1.0, 17)
    border = np.concatenate([np.c_[t * w, np.zeros_like(t)], np.c_[t * w, np.full_like(t, h)],
                             np.c_[np.zeros_like(t), t * h], np.c_[np.full_like(t, w), t * h]])
    lat = grid.to_lattice(border)
    if not np.all(np.isfinite(lat)):
        return [], []
    lo = np.floor(lat.min(axis=0)).astype(int) - 1
    hi = np.ceil(lat.max(axis=0)).astype(int) + 1
    if np.prod(hi - lo) > 250_000:  # a degenerate lattice: the horizon is in the picture
        return [], []
    ii, jj = np.meshgrid(np.arange(lo[0], hi[0] + 1), np.arange(lo[1], hi[1] + 1))
    pts = grid.to_photo(np.c_[ii.ravel(), jj.ravel()]).reshape(ii.shape + (2,))
    ok = ((pts[..., 0] >= 0) & (pts[..., 0] <= w) & (pts[..., 1] >= 0) & (pts[..., 1] <= h)).astype(np.int8)
    n = ok[:-1, :-1] + ok[:-1, 1:] + ok[1:, :-1] + ok[1:, 1:]
    cells = np.stack([ii[:-1, :-1], jj[:-1, :-1]], axis=-1)
    inside = [tuple(map(int, c)) for c in cells[n == 4]]
    cut = [tuple(map(int, c)) for c in cells[(n > 0) & (n < 4)]]
    return inside, cut


def _phase_check(rgb: np.ndarray, grid: Grid, tpl: Templates, cfg: TileConfig, match: _Match
                 ) -> tuple[Grid, tuple[float, float]]:
    """Guard against a lattice found half a tile off: try the four half-tile phases.

    Seams inside tiles (a road edge, a city wall) can pull a lattice half a tile
    away from the real tile edges; then no cell shows a whole tile.  On the
    cells that matched best (at most ``phase_cells``), each phase is scored by
    the mean coarse match; another phase replaces the grid's only when it is
    better by ``phase_margin``.  Off by default (``phase_check``): on the 600
    photos of seeds 9926001, 9927002 and 9933001 it moved six lattices, and
    reading them with it off read two photos better and changed no other result
    (on a board of a few tiles, cells of four quarter tiles of plain sand match
    the coarse templates better than whole tiles that large figures cover);
    :func:`check_lattice` tries the lattice half a tile off itself.

    Returns
    -------
    Grid
        ``grid`` itself, or a copy moved by half a tile.
    (float, float)
        The shift applied, tile units.
    """
    order = np.argsort(-match.coarse_best)
    cells = match.cells[order[: max(4, min(cfg.phase_cells, len(order) // 2))]]
    if len(cells) < 4:
        return grid, (0.0, 0.0)
    cpx = cfg.coarse_px
    cm = max(1, int(np.ceil(cfg.max_shift * cpx)))
    tile_px = float(np.median(_cell_sides(grid, cells)))
    scale = min(1.0, 2.0 * cpx / max(tile_px, 1.0))
    h, w = rgb.shape[:2]
    small = cv2.resize(rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)

    def phase(d: tuple[float, float]) -> tuple[float, tuple[float, float], Grid]:
        T = np.array([[1, 0, -d[0]], [0, 1, -d[1]], [0, 0, 1.0]])
        g = dataclasses.replace(grid, Hn=T @ grid.Hn) if d != (0.0, 0.0) else grid
        region = _rectify(rgb, g, cells, cpx, 2.0, small=small)
        img = _blur(region.image.astype(np.float32), cfg.coarse_blur * cpx)
        sc, _ = _ncc_all(img, cells, region.origin, cpx, cfg.inset, cm, tpl.coarse)
        return float(sc.max(axis=1).mean()), d, g

    phases = ((0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5))
    # The phases are independent: with _FAST3 the two threads share them (the same numbers).
    results = parallel_map(phase, phases) if _FAST3 else [phase(d) for d in phases]
    base = results[0][0]
    score, d, g = max(results, key=lambda r: r[0])
    if d != (0.0, 0.0) and score > base + cfg.phase_margin:
        log.warning("tile lattice moved by half a tile %s (coarse match %.2f instead of %.2f)", d, score, base)
        return g, d
    return grid, (0.0, 0.0)


@dataclass
class LatticeSurvey:
    """Every lattice cell wholly seen in the photo, at the coarse scale: where the board may lie.

    Made by :func:`survey_lattice`; one survey serves :func:`guess_catalog` and then
    :func:`read_tiles` on the same photo, lattice and configuration (the board is
    rectified once).
    """

    cells: np.ndarray  # (N, 2) int: the cells (at most ``max_cells``)
    cut: list[Cell]  # cells cut by the photo's edge
    image: np.ndarray  # (R, C, 3) uint8: the cells top-down, ``2 * coarse_px`` pixels a tile, a spare cell around
    origin: Cell  # lattice cell at the top-left of ``image``
    coarse: np.ndarray  # (r, c, 3) float32: the same at ``coarse_px``, blurred (the coarse stage's picture)
    scores: dict = field(default_factory=dict)  # id(templates) -> (templates, coarse scores (N, M), shifts (N, M))
    catalog_gap: float | None = None  # set by guess_catalog: the chosen catalogue's lead over the runner-up
    rating: np.ndarray | None = None  # set by check_lattice on a lattice it kept: per catalogue, the mean best match of its lattice_top best cells


def survey_lattice(rgb: np.ndarray, grid: Grid, cfg: TileConfig | None = None, *,
                   within: tuple[np.ndarray, np.ndarray] | None = None) -> LatticeSurvey:
    """The lattice cells seen in the photo, top-down at the coarse scale (cheap: a few pixels a tile).

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB, the pixels ``grid.H`` maps.
    grid : Grid
    cfg : TileConfig, optional
    within : ((2,) float ndarray, (2,) float ndarray), optional
        Survey only the cells that overlap this box of lattice coordinates
        (lowest and highest corner, tile units).

    Returns
    -------
    LatticeSurvey
        Cells (N, 2) int, those cut by the photo's edge, and their top-down
        picture at ``2 * cfg.coarse_px`` pixels a tile.

    Raises
    ------
    PhotoError
        ``rgb`` is not an RGB uint8 image.
    TableNotFoundError
        No whole cell lies inside the photo.
    """
    cfg = cfg or default_config()
    if not isinstance(rgb, np.ndarray) or rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise PhotoError("the photo must be an RGB uint8 image of shape (rows, cols, 3)")
    inside, cut = _visible_cells(grid)
    if not inside:
        raise TableNotFoundError(
            "no whole tile cell lies inside the photo; take the photo from farther away so whole tiles show"
        )
    cells = np.array(inside, dtype=np.int64)
    if within is not None:
        cells = cells[np.all((cells + 1 > within[0]) & (cells < within[1]), axis=1)]
        if not len(cells):
            raise TableNotFoundError("no whole tile cell lies inside the photo within the box surveyed")
    if cfg.survey_min_px > 0:
        large = _cell_sides(grid, cells) >= cfg.survey_min_px
        if large.any():
            cells = cells[large]
    if len(cells) > cfg.max_cells:
        # Keep the cells nearest the photo centre (a huge lattice means tiny, far tiles).
        h, w = grid.shape
        centres = grid.to_photo(cells + 0.5)
        d = np.hypot(centres[:, 0] - w / 2, centres[:, 1] - h / 2)
        cells = cells[np.argsort(d)[:cfg.max_cells]]
    region = _rectify(rgb, grid, cells, 2 * cfg.coarse_px, cfg.oversample)
    coarse = _scaled(region, cfg.coarse_px, cfg.coarse_blur)
    return LatticeSurvey(cells, cut, region.image, region.origin, coarse)


def _survey_scores(survey: LatticeSurvey, tpl: Templates, cfg: TileConfig) -> tuple[np.ndarray, np.ndarray]:
    """Best coarse NCC (and shift index) of every surveyed cell against every template, (N, M) each; cached."""
    hit = survey.scores.get(id(tpl))
    if hit is None or hit[0] is not tpl:
        cm = max(1, int(np.ceil(cfg.max_shift * cfg.coarse_px)))
        hit = (tpl, *_ncc_all(survey.coarse, survey.cells, survey.origin, cfg.coarse_px, cfg.inset, cm, tpl.coarse))
        survey.scores[id(tpl)] = hit
    return hit[1], hit[2]


def check_lattice(rgb: np.ndarray, grid: Grid, catalogs: Sequence[Catalog], cfg: TileConfig | None = None, *,
                  appearance: Appearance | None = None, art_dir: str | Path | None = None,
                  survey: LatticeSurvey | None = None) -> tuple[Grid, LatticeSurvey]:
    """Guard against a lattice of another period than the tiles', or one the fit bent off the tiles.

    The grid stage sees only seams: a cloth of squares twice a tile's size, or
    the lines through the middle of the tiles, can make a lattice of twice or
    half the tile period fit the seams as well as the tiles' own; and its
    least-squares fit, grown outwards from the middle of a steep photo, can
    bend the lattice off the far tiles.  The tiles themselves tell: on the
    right lattice many cells match a tile template well.  A lattice is rated,
    per catalogue, by the mean best coarse match of its best cells and by how
    many of its cells match at ``board_score`` or better.

    * Rated below ``lattice_check_below`` on its ``lattice_top`` best cells,
      the lattice is compared with those of half its period, of twice its
      period (at each of the four phases), moved by half a tile (its lines
      through the tiles' middles: seams of green fields side by side hardly
      show, the lines across the tiles' roads and rivers do) and of 3/4 or 4/3 its period along
      one axis (at each phase where their lines meet), each surveyed around
      the best matching cells only, both on the best cells covering the same
      area (``lattice_top`` cells of the smaller size).  One of them
      replaces it when rated ``lattice_period_gain`` better, at least
      ``lattice_period_min`` and no worse than the lattice under any
      catalogue, with ``lattice_min_tiles`` more cells (of the smaller size)
      matching.
    * Rated so, the other lattices the grid stage found (``grid.debug["alternatives"]``)
      are rated too and one may replace it on the same terms (:func:`_other_lattice`),
      also where a lattice of another period passed, when rated better than that.
    * When the board's cells lie ``lattice_start_move`` tile or more apart on
      the lattice before the grid stage's fit (``grid.debug["start"]``) and
      after it, the one before replaces the fit when ``lattice_start_gain``
      times as many cells (plus ``lattice_min_tiles``) match on it, under the
      catalogue that rates either of the two best.
    * Where none of these replaced it and the grid stage searched again for
      a lattice framing few tiles (``grid.debug["passes"]``), the tiles read on
      each of its other passes' lattices may replace it (:func:`_pass_lattice`).
      The tiles are read under the game guessed on the lattice
      (:func:`guess_catalog`): a wood table rates the Gold Rush art high
      whether base tiles lie on it or not.  No pass replaces it where that
      game's tiles rate it below ``lattice_game_below`` and another game's
      ``lattice_game_gap`` higher: such a lattice is checked again on the
      guessed game's tiles alone
      (:func:`scorer.vision.pipeline.check_lattice_and_game`).

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB, the pixels ``grid`` maps.
    grid : Grid
        The lattice found (:func:`scorer.vision.grid.find_grid`).
    catalogs : sequence of Catalog
        The tile sets the photo may show; a cell's match is its best over all.
    cfg : TileConfig, optional
        Thresholds (default: ``config.toml`` section ``[tiles]``).
    appearance, art_dir : optional
        Tile pictures, as for :func:`read_tiles`.
    survey : LatticeSurvey, optional
        :func:`survey_lattice` of ``grid`` when already made.

    Returns
    -------
    (Grid, LatticeSurvey)
        ``grid`` and its survey, or the lattice that replaces it (its
        ``debug["lattice_check"]`` names which) and that lattice's survey.

    Raises
    ------
    TableNotFoundError
        No whole cell of ``grid`` lies inside the photo (from :func:`survey_lattice`).
    """
    cfg = cfg or default_config()
    survey = survey or survey_lattice(rgb, grid, cfg)
    if not cfg.lattice_check or not catalogs:
        return grid, survey
    tpls = [build_templates(cat, cfg, _appearance(cat, appearance, art_dir)) for cat in catalogs]

    def rate(g: Grid, sv: LatticeSurvey | None = None, within: tuple | None = None
             ) -> tuple[np.ndarray, np.ndarray, LatticeSurvey | None]:
        # Per catalogue: cells matching at board_score, and every cell's best match (C, N).
        try:
            sv = sv or survey_lattice(rgb, g, cfg, within=within)
        except TableNotFoundError:
            return np.zeros(len(tpls)), np.full((len(tpls), 1), -1.0), None
        best = np.stack([_survey_scores(sv, t, cfg)[0].max(axis=1) for t in tpls])
        return (best >= cfg.board_score).sum(axis=1), best, sv

    def top(best: np.ndarray, k: float) -> np.ndarray:
        # Per catalogue: the mean of the k best cells' matches.
        k = max(1, min(round(k), best.shape[1]))
        return -np.sort(-best, axis=1)[:, :k].mean(axis=1)

    tiles, best, _ = rate(grid, survey)
    best_any = best.max(axis=0)
    rating = top(best, cfg.lattice_top)
    # (name, lattice, its survey or None where the trial surveyed only part of it, rating)
    chosen: tuple[str, Grid, LatticeSurvey | None, float] | None = None
    if rating.max() < cfg.lattice_check_below:
        # Lattice coordinates u become (u - phase) / s: cells s times as large.  Each catalogue
        # compares the lattices on its own templates (another game's art may match the blocks of
        # a wrong lattice better than this game's matches them), each lattice on its best cells
        # covering the same area, lattice_top cells of the smaller size, and by its cells
        # matching at board_score, counted in cells of the smaller size.
        trials = [("half the period", (0.5, 0.5), (0.0, 0.0))] + [
            ("twice the period", (2.0, 2.0), (float(a), float(b))) for a in (0, 1) for b in (0, 1)] + [
            ("half a tile off", (1.0, 1.0), ab) for ab in ((0.5, 0.0), (0.0, 0.5), (0.5, 0.5))]
        # A period 3/4 or 4/3 of the tiles' along one axis (seams and a cloth's pattern beating):
        # its lines meet the tiles' every 3 or 4 of them, at any of those phases.
        for axis in (0, 1):
            for s, phases in ((0.75, (0.0, 0.25, 0.5)), (4 / 3, (0.0, 1 / 3, 2 / 3, 1.0))):
                for ph in phases:
                    trials.append((f"{'3/4' if s < 1 else '4/3'} the period along {'xy'[axis]}",
                                   (s, 1.0)[::1 - 2 * axis], (ph, 0.0)[::1 - 2 * axis]))
        # The variants are surveyed only around most of the best matching cells (with a margin
        # of a few tiles): a steep photo shows far more table than board, some of which matches.
        near = survey.cells[np.argsort(-best_any)[:2 * cfg.lattice_top]]
        box = (np.percentile(near, 10, axis=0) - 2.0, np.percentile(near, 90, axis=0) + 3.0)
        for name, (sx, sy), (a, b) in trials:
            S = np.array([[1 / sx, 0, -a / sx], [0, 1 / sy, -b / sy], [0, 0, 1.0]])
            g = dataclasses.replace(grid, Hn=S @ grid.Hn, debug=dict(grid.debug))
            t2, b2, _ = rate(g, within=((box[0] - (a, b)) / (sx, sy), (box[1] - (a, b)) / (sx, sy)))
            area = sx * sy
            was = top(best, cfg.lattice_top * min(1.0, area))
            now = top(b2, cfg.lattice_top * min(1.0, 1 / area))
            ok = ((now >= was + cfg.lattice_period_gain) & (now >= cfg.lattice_period_min) & (now >= was.max())
                  & (t2 * max(1.0, area) >= tiles * max(1.0, 1 / area) + cfg.lattice_min_tiles))
            log.debug("lattice at %s, phase %s: rated %s (%s cells) against %s (%s cells)", name, (a, b),
                      np.round(now, 2), t2, np.round(was, 2), tiles)
            if ok.any() and (chosen is None or now.max() > chosen[3]):
                chosen = (name, g, None, float(now.max()))

    def read(g: Grid, i: int) -> TileReading:
        # The lattice checked is read on its own survey, which the photo pipeline reads it on again.
        return read_tiles(rgb, g, catalogs[i], cfg, appearance=appearance, art_dir=art_dir,
                          survey=survey if g is grid else None)

    if rating.max() < cfg.lattice_check_below and cfg.lattice_alternatives:
        # Also where a lattice of another period passed: halving a lattice of cells about two
        # tiles a side is only near the tiles' period, and one the seams allow may be on it.
        other = _other_lattice(rgb, grid, survey, best, tiles, rate, top, cfg, read)
        if other is not None and (chosen is None or other[3] > chosen[3]):
            chosen = other
    start = grid.debug.get("start")
    if chosen is None and start is not None:
        g0 = dataclasses.replace(grid, Hn=np.asarray(start[0], float), k1=float(start[1]), k2=0.0,
                                 debug=dict(grid.debug))
        board = survey.cells[best_any >= cfg.board_score]
        if len(board):
            d = g0.to_lattice(grid.to_photo(board + 0.5)) - (board + 0.5)
            d = d - np.median(np.round(d), axis=0)
            move = float(np.percentile(np.abs(d).max(axis=1), 90)) if np.all(np.isfinite(d)) else 0.0
            if move >= cfg.lattice_start_move:
                t0, b0, sv0 = rate(g0)
                p0 = top(b0, cfg.lattice_top)
                log.debug("the fit moved the board's cells by %.2f tile: %s tiles match after it, %s before",
                          move, tiles, t0)
                # Judged on the tiles that rate either lattice best (the photo's game): another
                # game's art matches a table or a blurred board in any cells, more of them on a
                # lattice that covers more of the photo.
                k = int(np.argmax(np.maximum(rating, p0)))
                if t0[k] >= cfg.lattice_start_gain * tiles[k] + cfg.lattice_min_tiles and p0[k] >= rating[k]:
                    chosen = ("before the fit", g0, sv0, float(p0.max()))
    if chosen is None and cfg.lattice_passes and grid.debug.get("passes"):
        # The tiles read on the lattices are compared under the game guessed on this one (a wood
        # table rates the Gold Rush art high on its own, base tiles on it or not); not where that
        # game's tiles rate it low and another game's clearly higher: the lattice is then checked
        # again on that game's tiles alone (check_lattice_and_game), which a lattice taken here
        # would escape.
        k = 0 if len(catalogs) == 1 else catalogs.index(
            guess_catalog(rgb, grid, catalogs, cfg, appearance=appearance, art_dir=art_dir, survey=survey))
        low = rating[k] < cfg.lattice_game_below and rating.max() >= rating[k] + cfg.lattice_game_gap
        g = None if low else _pass_lattice(grid, k, cfg, read)
        if g is not None:
            chosen = ("another pass of the grid stage", g, None, float(rating.max()))
    if chosen is None:
        survey.rating = rating
        return grid, survey
    name, g, sv, _ = chosen
    log.warning("tile lattice replaced (%s): the tiles match it clearly better", name)
    g.debug["lattice_check"] = name
    if sv is None:
        sv = survey_lattice(rgb, g, cfg)  # the trial surveyed only around the best cells
    return g, sv


def _other_lattice(rgb: np.ndarray, grid: Grid, survey: LatticeSurvey, best: np.ndarray, tiles: np.ndarray,
                   rate: Any, top: Any, cfg: TileConfig, read: Any) -> tuple[str, Grid, LatticeSurvey, float] | None:
    """The best of the grid stage's other lattices (``grid.debug["alternatives"]``) that the tiles prefer.

    The seams may frame another lattice better than the tiles' own (the
    squares of a score board beside a small board, a cloth's stripes, the
    tiles of a floor), and tiles whose seams hardly show (green fields side by
    side) frame theirs weakly.  Of the first ``lattice_alternatives`` other
    lattices, those that put the cells looking like tiles elsewhere than
    ``grid`` does (cell corners more than ``lattice_same`` tile off the other
    lattice's lines) and whose cells are at most ``lattice_alt_larger`` times
    as large are surveyed where the tiles seem to lie (as the period trials
    are) and rated as :func:`check_lattice` rates the lattices of other
    periods, their cells
    counted in cells of the smaller size (``area``: a cell's size in the
    photo, near the board, against ``grid``'s).  One whose cells are within
    ``lattice_alt_near`` of ``grid``'s in area passes on lighter terms too:
    rated ``lattice_alt_near_gain`` better with ``lattice_alt_near_tiles`` more
    cells matching (a lattice bent off the far tiles, or a few percent off
    their period, rates only a little below the right one).  The
    ``lattice_alt_reads`` best rated that pass are each fitted to the seams
    (:func:`scorer.vision.grid.fit_to_seams`: the grid stage fitted only the
    lattice it chose), the fit kept where the tiles match it no worse.  Last,
    each and ``grid`` are read (``read(lattice, catalogue index)``:
    :func:`read_tiles` under the catalogue that rated the other lattice best)
    and the one whose tiles match their templates best on average is taken,
    when it beats ``grid``: plain sand cut into smaller cells matches the Gold
    Rush art at the coarse scale, not in detail.  Returns (name, lattice,
    survey, rating), or None.
    """
    best_any = best.max(axis=0)
    order = np.argsort(-best_any)[:cfg.lattice_top]
    cells = survey.cells[order].astype(np.float64)
    corners = np.concatenate([cells, cells + (1.0, 0.0), cells + (0.0, 1.0)])
    photo = grid.to_photo(corners)
    centre = grid.to_photo(np.median(cells, axis=0, keepdims=True) + 0.5)
    # Where the tiles seem to lie, with a margin of a few cells, as the period trials survey: a
    # steep photo shows far more table than board, and a wood or a sand-coloured cloth matches the
    # Gold Rush art somewhat anywhere.
    near = survey.cells[np.argsort(-best_any)[:2 * cfg.lattice_top]].astype(np.float64)
    lo, hi = np.percentile(near, 10, axis=0) - 2.0, np.percentile(near, 90, axis=0) + 3.0
    box = grid.to_photo(np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]))

    def cell_area(g: Grid) -> float:
        # Photo area of a lattice cell at the board's middle (pixels^2), from a small step of it.
        p = centre[0]
        q = g.to_lattice(np.array([p, p + (4.0, 0.0), p + (0.0, 4.0)]))
        a, b = q[1] - q[0], q[2] - q[0]
        return 16.0 / max(abs(float(a[0] * b[1] - a[1] * b[0])), 1e-12)

    here = cell_area(grid)
    passed: list[tuple[float, Grid, LatticeSurvey, np.ndarray, np.ndarray]] = []
    tried: list[np.ndarray] = []  # corners (photo pixels) of the lattices rated, near the board
    # An other lattice may send points of the photo far from the board to infinity (its
    # lens fit, its horizon): those give non-finite values, tested below, not warnings.
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for Hn, k1, k2 in grid.debug.get("alternatives", [])[:cfg.lattice_alternatives]:
            g = dataclasses.replace(grid, Hn=np.asarray(Hn, float), k1=float(k1), k2=float(k2), debug=dict(grid.debug))
            g.debug.pop("alternatives", None)
            if not np.all(np.isfinite(g.to_lattice(photo))):
                continue
            if _same_cells(g, photo, cfg.lattice_same) or any(
                    _same_cells(g, pts, cfg.lattice_same) for pts in tried):
                continue
            mine = np.floor(g.to_lattice(centre)[0]) + np.stack(np.meshgrid(np.arange(-2, 3), np.arange(-2, 3)), -1
                                                                ).reshape(-1, 2)
            tried.append(g.to_photo(mine.astype(np.float64)))
            area = cell_area(g) / here
            if area > cfg.lattice_alt_larger:
                continue
            there = g.to_lattice(box)
            if not np.all(np.isfinite(there)):
                continue
            t2, b2, sv = rate(g, within=(np.floor(there.min(axis=0)), np.ceil(there.max(axis=0))))
            if sv is None:
                continue
            was = top(best, cfg.lattice_top * min(1.0, area))
            now = top(b2, cfg.lattice_top * min(1.0, 1 / area))
            ok = ((now >= was + cfg.lattice_period_gain) & (now >= cfg.lattice_period_min) & (now >= was.max())
                  & (t2 * max(1.0, area) >= tiles * max(1.0, 1 / area) + cfg.lattice_min_tiles))
            if cfg.lattice_alt_near_tiles > 0 and max(area, 1 / area) <= cfg.lattice_alt_near:
                # Cells of about the lattice's size: the lattice may be a little off the tiles
                # (bent, or of a period a few percent off) and this one on them, which the coarse
                # rating tells only a little apart; reading the tiles on both tells.
                ok |= ((now >= was + cfg.lattice_alt_near_gain) & (now >= was.max())
                       & (t2 >= tiles + cfg.lattice_alt_near_tiles))
            log.debug("another lattice the seams allow (cells %.2f times as large): rated %s (%s cells) against %s "
                      "(%s cells)", area, np.round(now, 2), t2, np.round(was, 2), tiles)
            if ok.any():
                passed.append((float(now.max()), g, sv, t2, b2))
    if not passed:
        return None
    from .grid import fit_to_seams

    passed.sort(key=lambda p: -p[0])
    reads: dict[int, float] = {}

    def fine(lattice: Grid, which: int) -> float:
        return _tiles_match(read, lattice, which)[0]

    chosen = None
    for rated, g, sv, t2, b2 in passed[:cfg.lattice_alt_reads]:
        fitted = fit_to_seams(rgb, g, sv.cells[b2.max(axis=0) >= cfg.board_score])
        if fitted is not g:
            t3, b3, sv3 = rate(fitted)
            log.debug("the lattice fitted to the seams: rated %s (%s cells) against %s (%s cells) before",
                      np.round(top(b3, cfg.lattice_top), 2), t3, np.round(top(b2, cfg.lattice_top), 2), t2)
            if (sv3 is not None and t3.max() >= t2.max()
                    and top(b3, cfg.lattice_top).max() >= top(b2, cfg.lattice_top).max()):
                g, sv = fitted, sv3
        which = int(np.argmax(top(b2, cfg.lattice_top)))
        if which not in reads:
            reads[which] = fine(grid, which)
        now, was = fine(g, which), reads[which]
        log.debug("tiles read on the other lattice match %.2f on average, on the lattice found %.2f", now, was)
        if now > was and (chosen is None or now > chosen[0]):
            chosen = (now, g, sv, rated)
    return None if chosen is None else ("another lattice the seams allow", chosen[1], chosen[2], chosen[3])


def _tiles_match(read: Any, lattice: Grid, which: int) -> tuple[float, int]:
    """Mean fine match (:attr:`CellReading.score`) of the tiles read on ``lattice`` under catalogue
    ``which`` (``read(lattice, which)``: :func:`read_tiles`), and how many were read; (-1, 0) where
    none is or the photo is refused on that lattice."""
    try:
        cells = read(lattice, which).cells.values()
    except PhotoError:
        return -1.0, 0
    return (float(np.mean([c.score for c in cells])), len(cells)) if cells else (-1.0, 0)


def _pass_lattice(grid: Grid, which: int, cfg: TileConfig, read: Any) -> Grid | None:
    """The lattice of another pass of the grid stage whose tiles match clearly better than ``grid``'s.

    Where the lattice of its first pass frames few tiles, the grid stage looks
    again on other segments (blurred, the line energy image, the chroma image)
    and chooses among the passes' lattices on the seams alone
    (:func:`scorer.vision.grid.find_grid`); seams that weak tell little, and a
    lattice a wrong lens distortion bends off the far tiles can frame as many
    of them as the right one.  The tiles tell: the other passes' lattices (the
    first ``grid.debug["passes"]`` of ``grid.debug["alternatives"]``) and
    ``grid`` are each read (``read(lattice, which)``: :func:`read_tiles` under
    catalogue ``which``, the game guessed on ``grid``), and the one whose tiles match
    their templates best on average (:func:`_tiles_match`) replaces ``grid``
    when it does so by ``lattice_pass_gain`` more (a later pass's lattice also
    beats an earlier one's only by that much: two lattices both right up to a
    fraction of a tile match alike, and the earlier pass's seams are the
    sharper), with at least
    ``lattice_pass_tiles`` times as many tiles read; where the photo is
    refused on ``grid`` (too blurry, nothing like a tile), only by tiles that
    match ``lattice_pass_floor`` or better on average: tiles read on a score
    board's squares match far worse than that, and the refusal says what to
    change.  Returns that lattice (its debug without the alternatives), or None.
    """
    now, count = _tiles_match(read, grid, which)
    chosen, bar = None, now  # the lattice to beat: the one chosen, then the best other pass's
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for Hn, k1, k2 in grid.debug.get("alternatives", [])[:int(grid.debug["passes"])]:
            g = dataclasses.replace(grid, Hn=np.asarray(Hn, float), k1=float(k1), k2=float(k2), debug={
                k: v for k, v in grid.debug.items() if k not in ("alternatives", "passes", "start")})
            mean, n = _tiles_match(read, g, which)
            log.debug("tiles read on another pass's lattice (k1 %.3f) match %.3f on average (%d tiles), on the "
                      "lattice chosen %.3f (%d tiles)", k1, mean, n, now, count)
            if (mean >= bar + cfg.lattice_pass_gain and n >= cfg.lattice_pass_tiles * count
                    and (count or mean >= cfg.lattice_pass_floor)):
                chosen, bar = g, mean
    return chosen


def _same_cells(g: Grid, photo: np.ndarray, tol: float) -> bool:
    """Whether lattice ``g`` has its lines through (nearly all of) the photo points ``photo`` (N, 2),
    pixels: cell corners of another lattice, which is then the same up to whole cells and quarter turns."""
    q = g.to_lattice(photo)
    if not np.all(np.isfinite(q)):
        return False
    return float(np.percentile(np.abs(q - np.round(q)).max(axis=1), 90)) < tol


def _board_cells(cells: np.ndarray, best: np.ndarray, cfg: TileConfig) -> np.ndarray:
    """Which surveyed cells to examine: (N,) bool.

    A tile matches some template clearly at the coarse scale (best NCC at
    least ``board_score``) unless a figure hides much of it, and tiles lie
    next to tiles: every cell within ``board_margin`` cells (either axis) of a
    cell that looks like a tile is examined.  The rest is table (with a steep
    view and a wide lens, most of the lattice seen in the photo is far table).
    All cells when none looks like a tile (the later stages then say so).
    """
    like = best >= cfg.board_score
    if not like.any():
        return np.ones(len(cells), bool)
    lo = cells.min(axis=0)
    size = cells.max(axis=0) - lo + 1
    grid = np.zeros((size[1], size[0]), np.uint8)
    grid[cells[like, 1] - lo[1], cells[like, 0] - lo[0]] = 1
    m = max(0, int(cfg.board_margin))
    if m:
        grid = cv2.dilate(grid, np.ones((2 * m + 1, 2 * m + 1), np.uint8))
    return grid[cells[:, 1] - lo[1], cells[:, 0] - lo[0]] > 0


def _nearest_within(grid: Grid, cells: np.ndarray, keep: np.ndarray, max_area: int) -> np.ndarray:
    """Of the kept cells, those whose bounding box stays within ``max_area`` cells, nearest first: (N,) bool.

    A steep view over a textured floor or table shows thousands of far, tiny
    lattice cells, many of which match some tile at the coarse scale; examined
    at the detail scale they would cost seconds and gigabytes.  The cells are
    taken largest in the photo first (nearest the camera: where a readable
    board is), each one only when the bounding box of those taken stays within
    ``max_area`` cells.  ``keep`` unchanged when its box is within already.

    Parameters
    ----------
    grid : Grid
    cells : (N, 2) int ndarray
        Lattice cells.
    keep : (N,) bool ndarray
        The cells chosen so far.
    max_area : int
        Largest bounding box, in cells (0: no limit).
    """
    idx = np.flatnonzero(keep)
    if max_area <= 0 or len(idx) == 0:
        return keep
    span = cells[idx].max(axis=0) - cells[idx].min(axis=0) + 1
    if int(span[0]) * int(span[1]) <= max_area:
        return keep
    order = idx[np.argsort(-_cell_sides(grid, cells[idx]), kind="stable")]
    out = np.zeros_like(keep)
    lo = hi = cells[order[0]].copy()
    for i in order:
        nlo, nhi = np.minimum(lo, cells[i]), np.maximum(hi, cells[i])
        if int(nhi[0] - nlo[0] + 1) * int(nhi[1] - nlo[1] + 1) <= max_area:
            out[i], lo, hi = True, nlo, nhi
    log.debug("examining %d of %d board cells (bounding box within %d cells)", int(out.sum()), len(idx), max_area)
    return out


def _prepare(rgb: np.ndarray, grid: Grid, cfg: TileConfig, tpl: Templates, survey: LatticeSurvey | None = None
             ) -> tuple[_Region, np.ndarray, list[Cell], dict, tuple]:
    """Survey the lattice, keep the cells near tiles, rectify those at ``detail_px`` and check the photo.

    Returns the rectified region, its cells (M, 2), the cells cut by the
    photo's edge, the quality statistics and the coarse stage's inputs
    ``(picture, origin, scores (M, T), shifts (M, T))`` for those cells.
    """
    survey = survey or survey_lattice(rgb, grid, cfg)
    cscore, cshift = _survey_scores(survey, tpl, cfg)
    keep = _board_cells(survey.cells, cscore.max(axis=1), cfg)
    keep = _nearest_within(grid, survey.cells, keep, cfg.max_board_area)
    cells = survey.cells[keep]
    region = _rectify(rgb, grid, cells, cfg.detail_px, cfg.oversample)
    stats = check_quality(region, cells, cfg)
    stats["cells_seen"] = len(survey.cells)
    return region, cells, survey.cut, stats, (survey.coarse, survey.origin, cscore[keep], cshift[keep])


def read_tiles(rgb: np.ndarray, grid: Grid, catalog: Catalog, cfg: TileConfig | None = None, *,
               appearance: Appearance | None = None, art_dir: str | Path | None = None,
               survey: LatticeSurvey | None = None) -> TileReading:
    """Read the tile and rotation of every occupied lattice cell of a photo.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB, the pixels ``grid.H`` maps.
    grid : Grid
        The tile lattice (:func:`scorer.vision.grid.find_grid`).
    catalog : Catalog
        The tile types that may lie on the table (with their box counts).
    cfg : TileConfig, optional
        Thresholds (default: ``config.toml`` section ``[tiles]``).
    appearance : Appearance, optional
        Tile pictures (``load_appearance(name)`` after ``scorer calibrate``);
        default: procedural art.
    art_dir : str or Path, optional
        A folder of real tile art used as the appearance when ``appearance``
        is not given (development and evaluation only).
    survey : LatticeSurvey, optional
        :func:`survey_lattice` of this photo, lattice and ``cfg`` when already
        made (by the caller of :func:`guess_catalog`); made here otherwise.

    Returns
    -------
    TileReading
        Per occupied cell the tile, rotation, confidence and runners-up; the
        cells cut by the photo's edge; occupancy probabilities; crops.

    Raises
    ------
    PhotoError
        Tiles too small, photo too dark or too blurry (the message says what to change).
    TableNotFoundError
        No whole cell in the photo, or nothing on the lattice looks like a tile.
    """
    import time

    from .decode import alternatives_json, decode

    cfg = cfg or default_config()
    appearance = _appearance(catalog, appearance, art_dir)
    t0 = time.perf_counter()
    tpl = build_templates(catalog, cfg, appearance)
    t1 = time.perf_counter()
    phase = (0.0, 0.0)
    region, cells, cut, stats, coarse = _prepare(rgb, grid, cfg, tpl, survey)
    t2 = time.perf_counter()
    match = _match(region, cells, tpl, cfg, coarse)
    if cfg.phase_check:
        moved, phase = _phase_check(rgb, grid, tpl, cfg, match)
        if phase != (0.0, 0.0):
            grid = moved
            region, cells, cut, stats, coarse = _prepare(rgb, grid, cfg, tpl)
            match = _match(region, cells, tpl, cfg, coarse)
    blur = _estimate_blur(region, match, tpl, cfg)
    stats["blur"] = blur
    # Both measures must agree: a lattice that misses the tiles also makes the
    # blurred art fit best, but leaves the photo's own edges sharp.
    if blur >= cfg.max_blur and stats["sharpness"] < cfg.max_sharpness_blurred:
        raise PhotoError(
            f"the photo is too blurry (the tiles' edges are smeared over about {100 * blur:.0f}% of a tile, "
            f"at most {100 * cfg.max_blur:.0f}% can be read); hold the camera still, let it focus on the "
            "tiles and take the photo again"
        )
    t3 = time.perf_counter()
    occ = _occupancy(match, cfg)
    maybe = np.flatnonzero(occ >= cfg.decode_min_occupancy)
    if not np.any(occ > 0.5):
        if cfg.close_tile_px > 0 and stats["tile_px"] >= cfg.close_tile_px:
            advice = (f"; the tiles are very large in the photo (about {stats['tile_px']:.0f} pixels a side), so "
                      "figures hide much of each: step back until the whole board and some table around it are "
                      "in the photo")
        else:
            advice = ", or photograph the tiles from closer and more from above"
        raise TableNotFoundError(
            f"nothing on the lattice looks like a {', '.join(s.name for s in catalog.sets)} tile "
            f"(best match {match.score[:, 0].max():.2f}); check the game and expansions chosen" + advice
        )
    dec = decode(match, maybe, occ, tpl, catalog, cfg)
    if cfg.repair:
        repaired = _repair(region, match, occ, maybe, dec, tpl, catalog, cfg)
        holes = _holes(match, maybe, dec, occ, cfg)
        if len(repaired) or len(holes):
            maybe = np.union1d(np.flatnonzero(occ >= cfg.decode_min_occupancy), holes)
            dec = decode(match, maybe, occ, tpl, catalog, cfg)
    t4 = time.perf_counter()
    occupancy = {tuple(map(int, c)): float(p) for c, p in zip(match.cells, occ)}
    readings: dict[Cell, CellReading] = {}
    unmatched = _unmatched(match, maybe, occ, dec, cfg)
    for n, k in enumerate(maybe):
        cell = tuple(map(int, match.cells[k]))
        occupancy[cell] = float(dec.occupied[n])
        key = dec.labels[n]
        if key is None:
            continue
        c = dec.choice[n]
        if cell in unmatched:
            # Nothing hides the cell and no tile matches it: a patterned cloth in the tiles' colours.
            occupancy[cell] = 0.0
            continue
        tid, rot = key
        readings[cell] = CellReading(
            cell, tid, catalog[tid], int(rot), float(dec.confidence[n]),
            alternatives_json(dec.alternatives[n], cfg.alternatives), float(dec.occupied[n]),
            float(match.score[k, c]), (float(match.shift[k, c, 0]), float(match.shift[k, c, 1])),
        )
    apart = _detached(set(readings), cfg.detached_gap, cfg.detached_share)
    for cell in apart:
        # Tiles off the board (a supply stack, a score board, cloth): left out of the reading.
        del readings[cell]
        occupancy[cell] = 0.0
    if apart:
        log.info("%d tile(s) read apart from the board dropped: %s", len(apart), sorted(apart))
    board = set(readings)
    near = {(x + dx, y + dy) for x, y in board for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    cut_report = sorted((c for c in cut if c in near), key=lambda c: (c[1], c[0]))
    debug = dict(stats)
    debug.update({"cells_examined": len(cells), "templates": len(tpl.keys),
                  "phase_shift": list(phase),
                  "hidden": [] if match.hidden_share is None else
                  [[int(c[0]), int(c[1]), round(float(h), 3)] for c, h in zip(match.cells, match.hidden_share)
                   if h >= cfg.occ_min],
                  "seconds": {"templates": t1 - t0, "rectify": t2 - t1, "match": t3 - t2, "decode": t4 - t3}})
    log.debug("tiles: %d occupied of %d cells; %s", len(readings), len(cells), debug["seconds"])
    rect = region.image.copy()
    rect[~region.valid] = 0
    return TileReading(readings, cut_report, occupancy, catalog, rect, region.origin, region.px, grid, debug,
                       sorted(apart))


def guess_catalog(rgb: np.ndarray, grid: Grid, candidates: Sequence[Catalog], cfg: TileConfig | None = None, *,
                  appearance: Appearance | None = None, art_dir: str | Path | None = None,
                  survey: LatticeSurvey | None = None) -> Catalog:
    """The catalogue whose tiles explain the photo's cells best.

    Every catalogue's templates are matched against the cells (coarse stage
    only).  Cells whose pixel spread is below ``cfg.catalog_min_contrast``
    times that of a surely tiled cell (the one ranked
    ``cfg.catalog_contrast_rank`` by spread) are plain table: normalised
    correlation of a flat cell only fits noise, and the flat, textured
    Gold Rush prairie fits a table's grain well, so such cells do not vote.
    On the ``cfg.catalog_cells`` remaining cells that look most like tiles, a
    catalogue scores the mean best match plus ``cfg.catalog_colour_weight``
    times the agreement of the cells' colours with its art (Bhattacharyya
    coefficient of the Lab a*b* histograms, the art weighted by box counts):
    structure alone confuses the games on tilted, blurred photos, while base
    Carcassonne's green and Gold Rush's sand tell them apart.  A catalogue with
    more tile types wins only when it gains at least ``cfg.catalog_margin``:
    more templates always fit noise a little better, so base Carcassonne is not
    read as base + every expansion.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
    grid : Grid
    candidates : sequence of Catalog
        For instance ``[catalog_for("carcassonne"), catalog_for("goldrush")]``.
    cfg : TileConfig, optional
    appearance : Appearance, optional
        Calibrated tile pictures (tiles it lacks are drawn procedurally).
    art_dir : str or Path, optional
        Real tile art (development and evaluation only).
    survey : LatticeSurvey, optional
        :func:`survey_lattice` of this photo, lattice and ``cfg``; pass the same
        survey to :func:`read_tiles` afterwards and it keeps the chosen
        catalogue's coarse match (the board is rectified once).  Its
        ``catalog_gap`` is set to the chosen catalogue's lead over the
        runner-up (score units; near 0: a close call, see
        ``cfg.catalog_recheck_gap``).

    Returns
    -------
    Catalog
        One of ``candidates``.

    Raises
    ------
    ValueError
        ``candidates`` is empty.
    """
    if not candidates:
        raise ValueError("guess_catalog needs at least one candidate catalogue")
    cfg = cfg or default_config()
    if len(candidates) == 1:
        return candidates[0]
    survey = survey or survey_lattice(rgb, grid, cfg)
    cells = survey.cells
    bests, tpls = [], []
    for n, cat in enumerate(candidates):
        tpl = build_templates(cat, cfg, _appearance(cat, appearance, art_dir))
        bests.append(_survey_scores(survey, tpl, cfg)[0].max(axis=1))
        tpls.append(tpl)
    B = np.stack(bests)  # (C, N)
    # The cells that look like tiles under any catalogue, among those contrasted like tiles
    # (looked for among the best matched cells: a tile matches its own catalogue well).
    near = np.argsort(-B.max(axis=0))[:5 * cfg.catalog_cells]
    spread = _cell_spread(survey, near, cfg)
    rank = min(max(int(cfg.catalog_contrast_rank), 0), len(near) - 1)
    tiled = near[spread >= cfg.catalog_min_contrast * np.sort(spread)[::-1][rank]]
    if len(tiled) < 2:
        tiled = near
    keep = tiled[:cfg.catalog_cells]
    px = 2 * cfg.coarse_px
    i, w = _inner(px, cfg.inset)
    img = survey.image
    o = survey.origin
    pixels = np.concatenate([img[(y - o[1]) * px + i:(y - o[1]) * px + i + w,
                                 (x - o[0]) * px + i:(x - o[0]) * px + i + w].reshape(-1, 3) for x, y in cells[keep]])
    seen = _chroma_histogram(pixels)
    colour = np.array([np.sqrt(seen * _catalog_chroma(cat, tpl)).sum() for cat, tpl in zip(candidates, tpls)])
    means = B[:, keep].mean(axis=1) + cfg.catalog_colour_weight * colour
    sizes = np.array([len(c.tiles) for c in candidates])
    order = sorted(range(len(candidates)), key=lambda k: sizes[k])
    best = order[0]
    for k in order[1:]:
        if means[k] > means[best] + (cfg.catalog_margin if sizes[k] > sizes[best] else 0.0):
            best = k
    log.debug("catalogue guess: means %s -> %d", np.round(means, 3).tolist(), best)
    survey.catalog_gap = float(means[best] - np.delete(means, best).max())
    # The survey keeps only the chosen catalogue's coarse match, for read_tiles.
    for key in [k for k, v in survey.scores.items() if v[0] is not tpls[best]]:
        del survey.scores[key]
    return candidates[best]


def _cell_spread(survey: LatticeSurvey, rows: np.ndarray, cfg: TileConfig) -> np.ndarray:
    """Pixel spread of the inner part of surveyed cells ``rows`` (K,) int: (K,) float32, the mean of
    the RGB standard deviations, 0-255.

    Tiles carry art (roads, rivers, cities, rails) and spread far more than
    the table around them, however the table is lit.
    """
    px = 2 * cfg.coarse_px
    i, w = _inner(px, cfg.inset)
    nr, nc = survey.image.shape[0] // px, survey.image.shape[1] // px
    blocks = survey.image[:nr * px, :nc * px].reshape(nr, px, nc, px, 3)[:, i:i + w, :, i:i + w]
    gx = survey.cells[rows, 0] - survey.origin[0]
    gy = survey.cells[rows, 1] - survey.origin[1]
    v = blocks[gy, :, gx].astype(np.float32)  # (N, w, w, 3)
    return v.reshape(len(v), -1, 3).std(axis=1).mean(axis=1)


def _chroma_histogram(rgb: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Normalised 12 x 12 histogram of Lab a*, b* (OpenCV's 8-bit scale, 88-168) of (N, 3) RGB pixels."""
    ab = _lab_ab(rgb)
    h, _, _ = np.histogram2d(ab[:, 0], ab[:, 1], bins=12, range=[[88, 168], [88, 168]], weights=weights)
    h = cv2.GaussianBlur(h.astype(np.float32), (0, 0), 0.7)
    return h / max(float(h.sum()), 1e-9)


#: sRGB 0-255 -> linear light (the sRGB transfer curve), for :func:`_lab_ab`.
_SRGB_LINEAR = np.where(np.arange(256) / 255.0 <= 0.04045, np.arange(256) / 255.0 / 12.92,
                        ((np.arange(256) / 255.0 + 0.055) / 1.055) ** 2.4).astype(np.float32)
#: Linear RGB -> XYZ (D65), rows scaled by the white point, as OpenCV's RGB2LAB.
_RGB_XYZ = (np.array([[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
                      [0.019334, 0.119193, 0.950227]]) / np.array([[0.950456], [1.0], [1.088754]])).astype(np.float32)


def _lab_ab(rgb: np.ndarray) -> np.ndarray:
    """CIE Lab a*, b* of (N, 3) RGB 0-255 pixels on OpenCV's 8-bit scale (+128, rounded): (N, 2) float32.

    The same formulas as ``cv2.cvtColor(..., COLOR_RGB2LAB)`` (sRGB, D65), in numpy: OpenCV
    builds lookup tables for the 8-bit conversion on its first call (about 0.1 s in every
    fresh process), more than this whole histogram costs.
    """
    lin = _SRGB_LINEAR[np.clip(np.asarray(rgb).reshape(-1, 3), 0, 255).astype(np.uint8)]
    xyz = lin @ _RGB_XYZ.T
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16.0 / 116.0)
    a = 500.0 * (f[:, 0] - f[:, 1]) + 128.0
    b = 200.0 * (f[:, 1] - f[:, 2]) + 128.0
    return np.clip(np.rint(np.stack([a, b], axis=1)), 0, 255).astype(np.float32)


def _catalog_chroma(catalog: Catalog, tpl: Templates) -> np.ndarray:
    """The chroma histogram of a catalogue's art, each tile weighted by how many the box holds.

    With ``_FAST3`` cached in memory and on disk (:func:`cache_dir`,
    ``chroma/<hash>.npy``, the hash of the template pixels, the counts and
    the code), as every fresh process would otherwise convert all the art's
    pixels again (the same numbers either way).
    """
    per = tpl.fine_raw.reshape(len(tpl.keys), -1, 3)
    counts = np.array([max(catalog[t].count, 1) for t, _ in tpl.keys], dtype=np.float64)
    if not _FAST3:
        return _chroma_histogram(per.reshape(-1, 3), np.repeat(counts, per.shape[1]))
    h = hashlib.blake2b(digest_size=16)
    for part in (_CHROMA_FILE_VERSION, _source_digest(), per.shape, per.dtype.str):
        h.update(repr(part).encode())
    h.update(np.ascontiguousarray(per).data)
    h.update(counts.tobytes())
    key = h.hexdigest()
    hit = _CHROMA_CACHE.get(key)
    if hit is not None:
        return hit.copy()
    folder = cache_dir()
    path = None if folder is None else folder / "chroma" / f"{key}.npy"
    hist = None
    if path is not None and path.is_file():
        try:
            hist = np.load(path, allow_pickle=False)
            if hist.shape != (12, 12) or hist.dtype != np.float32:
                raise ValueError("not a 12 x 12 float32 histogram")
        except Exception as exc:  # noqa: BLE001 - a damaged cache file is rebuilt, never an error
            log.warning("chroma cache %s is unreadable (%s): computing it again", path, exc)
            hist = None
    if hist is None:
        hist = _chroma_histogram(per.reshape(-1, 3), np.repeat(counts, per.shape[1]))
        if path is not None:
            buf = io.BytesIO()
            np.save(buf, hist, allow_pickle=False)
            write_cache_file(path, buf.getvalue(), "catalogue chroma", keep=_CHROMA_FILES_KEPT, pattern="*.npy")
    if len(_CHROMA_CACHE) > 16:
        _CHROMA_CACHE.clear()
    _CHROMA_CACHE[key] = hist
    return hist.copy()


#: Third round of speed-ups that give the same numbers (the catalogue chroma cached on disk, the
#: window norms of :func:`_ncc` shared by the candidate catalogues, the half-tile phases of
#: :func:`_phase_check` in two threads); False runs the plain versions (to measure and check).
_FAST3 = True
#: Bump when the layout of the cached chroma file changes.
_CHROMA_FILE_VERSION = 1
#: Chroma files kept in the cache folder (the most recently used; 700 bytes each).
_CHROMA_FILES_KEPT = 24
_CHROMA_CACHE: dict[str, np.ndarray] = {}


def _appearance(catalog: Catalog, appearance: Appearance | None, art_dir: str | Path | None) -> Appearance | None:
    if appearance is not None or art_dir is None:
        return appearance
    from .appearance import procedural_appearance

    return procedural_appearance(catalog, art_dir=art_dir)


def default_config() -> TileConfig:
    """The ``[tiles]`` section of the packaged ``config.toml``."""
    from .config import load_config

    return load_config().tiles
