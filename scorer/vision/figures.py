"""Figure detection: every figure and token on the tiles, whose it is and where it stands.

One public entry, :func:`read_figures`; helpers below in pipeline order:

1. **camera** (:func:`camera_from_grid`): the grid's lattice -> photo
   homography is decomposed into a pinhole camera (focal length from the two
   constraints a plane of square cells gives, principal point at the photo
   centre), so heights above the tiles can be projected: a point ``h`` above
   the table appears on the table's plane pushed away from the camera's nadir
   by ``h / (H - h)`` of its distance to it (``H`` the camera's height).
2. **top-down picture**: the board region of the photo (shrunk first, so no
   tile is aliased) is sampled through the grid's exact lattice -> photo
   mapping, lens distortion included, at ``px`` pixels a tile.
3. **expected picture**: every recognised tile's art (turned ``rot``) is
   registered where the tile really lies (a shift and a small turn per tile,
   normalised cross-correlation over a wide window, pulled towards the shift
   of its neighbours so that plain tiles follow them) and composed into the
   picture the board would give without figures.
4. **light**: a smooth per-channel gain (photo / expected, by normalised
   convolution, fitted twice, the second time without the pixels that did not
   fit) takes out uneven light, vignetting and white balance: colours are then
   read as under the art's neutral light.
5. **residual**: per pixel, the distance of the photo from the art in
   log-RGB after matching brightness within the range shadows and light spots
   allow (a shadow darkens, it does not change chromaticity), plus a term for
   pixels much darker than their art (black wood, ore tokens).
6. **second look at the tiles** (:func:`_refit`): the tile stage misreads
   some tiles, and against a wrong tile's art the whole difference would look
   like figures.  Every cell that differs from its art is compared with every
   catalogue tile in every rotation, under a light field too smooth for a
   misread tile to bend to its own colours; a tile that explains the photo
   clearly better replaces the tile read (reported in ``FigureReading.tiles``),
   and a cell no tile explains (a cloth, a box lid) is left out
   (``FigureReading.unreadable``).  Closely, each pixel costs at most
   ``refit_cap`` and shadows darken less (``refit_shadow_min``): two tiles
   alike but for a small picture (a camp or wild horses) then differ by what
   that picture costs, not by how faint the photo draws it.  On request
   (``add_tiles``) the empty cells beside the tiles are compared too, and a
   tile a figure hid from the tile stage is added, as is a plain tile that
   some tile explains far better than any patch of table comes to one; a tile
   read whose visible pixels no tile explains is removed (a patch of
   patterned cloth or play mat the tile stage took for a tile).  The
   light and residual are then computed again.  In the base game, pixels nearer a figure colour than their art's
   colour count as figures even where the art is of a like colour (a gold bar
   on a city: :func:`_figure_colours`; a candidate of a field's green
   taken so is the art, never a gold bar: ``gold_max_green``).  Hysteresis, an opening that removes
   thin seams, and bridges across the gaps between tiles give the blobs.
7. **candidates**: a blob of touching figures is split between colour groups
   (:data:`scorer.vision.colour.SEGMENT_CLASSES`) and, for one colour, at the
   waist between two lobes; a seam between tiles that a figure stands across
   is filled in first, so it is taken for neither (:func:`_seam_filled`).
8. **solids** (:func:`_match_shapes`): for every solid the candidate may be
   (standing meeple, lying farmer, tent, ore stack, gold bars; the 3-D models
   of :mod:`scorer.render.figures3d`, made after the real components), the
   outline it would throw on the table through the camera, at a few yaws and
   stack heights, is correlated with the map of how much each pixel has the
   candidate's colour, over small shifts of the foot (where the art itself
   has a like colour, a pixel counts only as far as it differs from the art:
   black wood on dark rock, yellow on a yellow prairie; off the board, the
   table counts only where it is not of the candidate's colour itself: a
   figure's top may hang over a table, but a red cloth is no red figure).
   The best outline gives
   the foot (the base's centre) and the count of a stack; for the figures,
   how much of the candidate's shading the solid's flat faces explain in that
   pose (:func:`_shading_fit`) tells a tent's two roof slopes from a meeple's
   front and sides.  The correlations, shading fits, size and colour feed four
   decisions, linear (:data:`_DECISIONS`: gold bars or a yellow follower, an
   ore stack or a black figure) or of second order (:data:`SECOND_ORDER`: the
   Sheriff or a yellow cowboy, and a tent or a cowboy, which also weighs the
   blob's outline).  Two figures cannot stand on one spot: of two feet closer than
   ``min_foot_gap``, the smaller candidate is a part of the larger; so is a
   candidate lying mostly inside the outline fitted to a larger one of its
   colour (a tall figure's head cut from its body, :func:`_inside_outline`;
   the Sheriff and ore stacks count as larger ones too).  A follower, cowboy
   or tent must be near a player colour (``max_colour_distance``; in the base
   game a thin or blurred figure's colour is read with the art beneath it
   mixed in, down to ``mix_min_alpha`` of its own, :func:`_read_colour`), and a
   candidate surely an ore stack (``ore_sure``) is never read as a cowboy; a
   black candidate read as a tent that no tent spot takes, or a second tent of
   its colour, is a stack when the ore decision is within ``ore_demote`` of one
   (a lone token from above fits a tent's outline as well).
   An ore stack seen by its top alone may have its foot nearer the camera's
   nadir by the lean of a tall stack (:func:`_lean_back`).  A cowboy or the
   Sheriff standing behind an ore stack may show only a few pixels of its
   colour beside it: those, not explained by the art, are that figure
   (:func:`_hidden_by_stacks`).
9. **colours** (:mod:`scorer.vision.colour`): all player figures of the photo
   are read together, among ``players`` when given.  Rules bound the reading:
   one Sheriff (the likeliest; one surely of his gold before pale ones, which
   may be nuggets of the art: :func:`_sheriff_gold`), one tent per colour
   (seed 000); in Gold Rush one cowboy a tile (:func:`_one_cowboy`) and at
   most four of a colour on the tiles (:func:`_cap_cowboys`), the others read
   as a tent or an ore stack where a mountain spot takes one.
10. **locations**: the foot is taken into its own tile (through the tile's
    registration) and to the nearest spot, among the locations of the features
    the figure may stand on (farmers: fields and prairies; followers and
    cowboys: any other feature but rivers; tents, the Sheriff and ore: mountain
    parts), where a spot is the location's anchor
    (:data:`scorer.render.topdown.LOCATION_ANCHORS`) moved by the figure kind's
    offset.  Standing or lying is decided by which pose puts the foot nearer to
    a spot of a feature it may stand on, unless the outlines clearly disagree.
    Runners-up are kept as ``alternatives``.  Where the second look replaced
    the tile read, the location is one the tile read has (the board keeps it).
    Where no Sheriff was placed and a Sheriff of his gold stands on no mountain
    of the tile read, the tile may be misread: a runner-up tile of the second
    look with a mountain spot at his foot takes him and replaces the tile read
    (:func:`_sheriff_on_runner_up`).  Likewise a follower whose outline fits
    standing but which was laid in a field, the tile read having no road, city
    or cloister near its foot, stands on a close runner-up that has one there
    (it hid the short road end that tells the two apart) and that tile replaces
    the tile read (:func:`_stand_on_runner_up`); so does a figure read standing
    far from its location (a cowboy on the town it hides).
11. **twins again** (once the figures are found, their outlines drawn:
    :func:`_figure_outlines`): in Gold Rush every tile a figure stands on is
    compared with its twins (the same sides, a small picture apart) where the
    outlines leave them apart (:func:`_recheck_twins`); a tile then held more
    often than the box holds becomes its twin on the cell whose photo the
    twin's picture explains best (:func:`_settle_twins`).

Every reading carries a ``confidence``: location, colour and kind
probabilities multiplied.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

import cv2
import numpy as np

from ..errors import ScorerError
from ..geometry import CENTRE, Cell
from ..tiles import FIELD_KINDS, KINDS, TileType, fits_neighbours
from .grid import Grid

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- configuration


@dataclass
class FigureConfig:
    """Thresholds of figure detection (``config.toml`` section ``[figures]``).

    Lengths in tile units are fractions of a lattice step (a tile plus the gap
    between tiles); sizes of real components in millimetres.
    """

    px: int = 64  # top-down picture, pixels per tile
    oversample: float = 1.3  # photo pixels per top-down pixel kept before warping
    lattice_mm: float = 46.0  # one lattice step (a 45 mm tile and the gap), mm
    max_shift: float = 0.3  # drift of a tile from the lattice searched (hand, lens), tile units
    prior_sigma: float = 0.06  # a tile's shift is expected within this of its neighbours', tile units
    prior_weight: float = 0.08  # correlation lost at one prior_sigma from the neighbours' shift
    max_turn_deg: float = 5.0  # hand turn of a tile searched, degrees
    turn_steps: int = 5  # turns tried in that range
    register_blur: float = 0.02  # Gaussian sigma before registering, tile units
    gain_sigma: float = 0.35  # smoothness of the light field, tile units
    residual_blur: float = 0.02  # Gaussian sigma of photo and art before comparing, tile units
    shadow_min: float = 0.50  # darkest a shadow makes the art (fraction of its brightness)
    dark_luma: float = 75.0  # light-corrected brightness (0-255) below which a pixel darker than its art is a figure
    dark_ratio: float = 0.75  # ... when it is at most this fraction of the art's brightness
    dark_weight: float = 2.0  # weight of that darkness in the residual
    bright_max: float = 1.25  # brightest the light makes the art (highlights beyond are figures)
    chroma_eps: float = 12.0  # added to each channel before taking colour log-ratios (0-255 scale)
    residual_high: float = 0.50  # residual that seeds a blob
    residual_low: float = 0.28  # residual a blob grows into
    mix_min_alpha: float = 0.6  # least share of a figure's own colour in its blob's, the art beneath the rest (base game; 1: off)
    mix_alpha_cost: float = 0.5  # colour distance a share below 1 costs, per unit of (1 - share)
    figure_min: float = 0.15  # residual from which a pixel's colour is compared with the figure colours
    figure_margin: float = 0.15  # a pixel this much nearer a figure colour than its art is a figure's (0: off)
    open_px: float = 0.03  # opening radius removing thin seams, tile units
    open_fig_px: float = 0.015  # ... for pixels of a figure's colour (base game: gold bars seen aslant), tile units
    border: float = 0.045  # band along each tile's edge left out of the comparison, tile units
    bridge_px: float = 0.07  # blobs this close across a seam between tiles are joined, tile units
    min_area_mm2: float = 40.0  # smallest blob kept, mm^2 on the table
    min_part_mm2: float = 45.0  # smallest part of a blob split by colour, mm^2
    lobe_min_mm2: float = 170.0  # blobs at least this large are checked for two touching figures of one colour
    lobe_gap: float = 0.2  # least distance between the centres of two touching figures, tile units
    lobe_waist: float = 0.6  # the waist between them is at most this fraction of their half-widths
    offset_spread: float = 2.0  # figure offsets from the location anchors (topdown.FIGURE_OFFSETS) are this many times larger in a photo
    min_foot_gap: float = 0.25  # feet of two figures are at least this far apart (their bases do not overlap), tile units
    inside_share: float = 0.7  # a candidate this much inside the outline fitted to a larger one of its colour is its part
    location_sigma: float = 0.08  # spread of a foot around its location's spot, tile units
    min_gold_mm2: float = 20.0  # smallest candidate kept (gold bars, the smallest tokens), mm^2
    colour_temperature: float = 0.12  # colour distance units per nat
    pose_weight: float = 0.5  # tile units of location fit one unit of shape correlation is worth (standing vs lying)
    foot_search: float = 0.05  # the foot is searched this far around its first guess, tile units
    soft_sigma: float = 0.4  # colour distance at which a pixel is half as likely the figure's colour
    art_like: bool = True  # where the art has a colour like a candidate's, its pixels count for the outline only by their residual
    silhouette_blur: float = 0.02  # Gaussian sigma of the rendered outlines, tile units
    max_stack: int = 10  # largest ore or gold stack tried
    stack_stop: float = 0.05  # taller stacks are not tried once two heights fit this much worse than the best
    min_shape_score: float = 0.42  # least correlation of a figure's outline with its colour map
    min_gold_shape: float = 0.55  # ... of a gold bar's (a small blob fits any small outline a little)
    gold_max_green: float = 25.0  # a gold bar's light-corrected median colour has green at most this above red, 0-255 (above: a field's art; 0: off)
    max_spot_distance: float = 0.3  # a tent, the Sheriff or ore lies at most this far from a mountain spot, tile units
    max_area_mm2: float = 900.0  # larger candidates are a misread tile, not a figure, mm^2 on the table
    table_reach: float = 0.3  # off the board, pixels this far from a candidate are the table's, tile units
    table_gap: float = 0.25  # a table pixel this near a candidate's colour (log-RGB chromaticity) looks like it ...
    table_like: float = 0.5  # ... and when this share of the table around it does, only the tiles are read
    refit: bool = True  # take a second look at every tile: another tile of the catalogue may explain the photo better
    refit_gain_sigma: float = 1.0  # smoothness of the light field the tiles are compared under, tile units
    refit_px: int = 16  # pixels a tile when every catalogue tile is compared
    refit_top: int = 4  # catalogue tiles compared closely per cell
    refit_shift: float = 0.12  # drift searched when registering them, tile units
    refit_min_frac: float = 0.03  # share of a tile differing from its art that earns it a second look
    refit_margin: float = 0.025  # misfit another tile must save to replace the tile read (capped residual / refit_cap)
    refit_cap: float = 0.5  # a pixel's residual is capped at this in the close comparison
    refit_shadow_min: float = 0.85  # darkest a shadow makes the art in the close comparison (light fitted first)
    refit_close: float = 0.01  # a tile read that the small comparison finds best by less than this is compared closely too
    refit_add_coarse: float = 0.35  # an empty cell beside the tiles gets the tile whose small misfit is below this ...
    refit_add_close: float = 0.4  # ... and whose close misfit (as refit_margin's) is below this
    refit_add_hidden: float = 0.04  # ... where something no tile explains (a figure, ore) hides this share of it
    refit_add_plain: float = 0.08  # ... or, hidden or not, whose small misfit is below this (a plain tile the tile stage doubted) ...
    refit_add_plain_close: float = 0.2  # ... and close misfit below this
    refit_add_fitting: float = 0.005  # the tile added is the best of those meeting the tiles read beside it, when its close misfit is at most this above the best of all's (0: the best of all)
    refit_hidden: float = 0.9  # capped residual against every tile compared from which a pixel is hidden (a figure): not in the misfit
    refit_table: float = 0.25  # a tile read whose visible pixels (refit_px) even the best fitting tile leaves this far off at the median is the table: removed (0: never)
    refit_table_seen: float = 0.5  # ... judged only where at least this share of the cell is visible
    refit_table_low: float = 0.15  # ... and one left this far off, when also refit_table_ratio times the median over the cells looked at again ...
    refit_table_ratio: float = 4.0  # ... (the photo's own level: real art fits its tiles less closely; 0: off)
    refit_table_cells: int = 8  # ... of at least this many cells
    twin_check: tuple = ("goldrush",)  # games where, once the figures are found, each tile they stand on is compared with its twins (other tiles with the same sides) where the arts differ and no figure hides it (empty: none; base left out: 26 -> 36 tiles misread on 250 development photos, river and pennant look-alikes)
    box_check: tuple = ("goldrush", "carcassonne")  # games where, of the copies of a tile held beyond the box, the one a twin's picture explains best becomes that twin (_settle_twins; empty: none)
    box_gain_min: float = -0.1  # ... where it explains them better than the tile read by more than this (negative: the picture faint in a blurred photo)
    twin_diff: float = 0.3  # two arts differ where their log-RGB distance (blurred as the photo) is above this
    twin_grow: float = 0.03  # the figures' outlines are grown by this before hiding pixels (their edges, a shadow's start), tile units
    twin_shift: float = 0.0625  # drift searched for each art over the pixels compared (a printed picture's place on its tile), tile units
    twin_min_px: int = 12  # least differing pixels (of a px-pixel tile) left visible to compare two twins
    twin_keep: float = 0.7  # ... and a drift counts only where it leaves at least this share of them visible
    twin_prior: float = 2.0  # where the figures hide what tells a tile from its twin, the twin is taken when the copies of it not on the table elsewhere are more than this many times the tile read's (inf: off)
    twin_margin: float = 0.05  # the twin replaces the tile where its misfit there (capped residual, as refit_cap) is lower by more than this
    max_misfit: float = 0.45  # a cell no catalogue tile explains better than this holds no tile figures can be read on
    ore_sure: float = 2.0  # ore decision logit above which a black candidate is only tried as an ore stack
    ore_demote: float = 1.5  # a black candidate read as a tent but not taken as one is an ore stack when the ore logit is above minus this (0: never)
    max_colour_distance: float = 0.55  # a follower, cowboy or tent is this near a player colour (colour.distances)
    max_colour_figures: int = 2  # most figures of one colour on a tile (a follower, a tent); more: the table
    max_cell_followers: int = 3  # most followers read on a tile (one placed, two misread); more: the table
    f_default: float = 0.77  # focal length when the grid does not tell it, fraction of the long side
    f_range: tuple = (0.35, 2.5)  # plausible focal lengths, fractions of the long side
    ore_split: bool = True  # a dark candidate read as an ore stack whose outline leaves a figure-sized part unexplained is split
    ore_split_mm2: float = 45.0  # ... when that part (opened by ore_split_open) is at least this large, mm^2 on the table
    ore_split_open: float = 0.03  # opening radius taking the outline's thin misfit rim off that part, tile units
    off_colour_distance: float = 0.25  # a candidate of a colour no player has is a figure only this near a player colour
    off_grey_distance: float = 0.0  # ... and a grey one where the game has no grey figures (Gold Rush) only this near (0: never)
    ore_cut_mm2: float = 250.0  # a candidate read as an ore stack at least this large whose outline explains it all is also tried cut at its waist (0: off), mm^2 on the table
    ore_cut_part_mm2: float = 100.0  # ... and the figure part so cut off must be at least this large (most of a cowboy), mm^2 on the table
    ore_cut_margin: float = 0.1  # ... and the stack's outline must fit the whole candidate less than this better than a figure's (else it is a stack alone)
    foot_gap_hues: tuple = ("red", "green", "blue", "yellow")  # two candidates of two of these colours (player figures, not shades of one) are two figures however near their feet
    tent_promote: float = 2.0  # a player with no tent read gets one: its cowboy with the highest tent decision logit, when above minus this and a mountain spot takes it (0: off)
    tent_promote_slack: float = 0.01  # ... and when the tent's outline correlation is at most this below the better cowboy outline's
    tent_promote_spots: float = 1.0  # ... its foot may be near any solid figure's spot on a mountain (the cowboy's, the tent's, the Sheriff's), not only the tent's, when that logit is above this: a tent beside a cowboy stands off its own spot (inf: off)
    spot_alt_tiles: bool = True  # a Sheriff no mountain spot of the tile read takes is tried on the second look's runner-up tiles of its cell, and such a tile then replaces the tile read (off: no Sheriff there)
    spot_alt_slack: float = 0.04  # ... the tiles whose small misfit (refit_px) is at most this above the tile read's
    spot_alt_top: int = 20  # ... at most this many of them, best first
    spot_alt_gold: float = 0.35  # ... for a candidate at most this far from the Sheriff's gold (colour.distances; pale gold of the art is farther)
    stand_alt_tiles: bool = True  # a follower whose outline fits standing, laid in a field for want of a feature near its foot on the tile read, stands on the second look's runner-up that has one there, and that tile replaces the tile read
    stand_alt_gap: float = 0.0  # ... when its outline fits standing at least this much better than lying (shape correlation)
    stand_alt_distance: float = 0.2  # ... and the runner-up's standing spot lies at most this far from its foot, tile units
    stand_alt_slack: float = 0.012  # ... and its small misfit (refit_px) is at most this above the tile read's
    stand_alt_far: float = 0.15  # a follower or cowboy read standing farther than this from its location on the tile read is tried on the runners-up alike (a town or cloister it hides), tile units (0: off)
    stand_alt_nearer: float = 0.05  # ... and stands on one only this much nearer its foot than on the tile read, tile units
    sheriff_small_logit: float = 5.0  # a candidate below min_area_mm2 (at least min_gold_mm2) is still the Sheriff when its Sheriff logit is at least this: the gold Sheriff on pale sand leaves only parts of itself in the residual (0: off)
    sheriff_gold_logit: float = 1.0  # of several Sheriff candidates, those of the Sheriff's gold (within spot_alt_gold) whose Sheriff logit is at least this go before pale ones (nuggets of the art; 0: off)
    ore_cut_fit: float = 0.75  # a candidate read as an ore stack (ore_cut_mm2 large) whose best outline correlation is below this is tried cut at its waist whatever ore_cut_margin says: no one solid explains it (0: off)
    tent_promote_black: float = 3.0  # tent_promote for a black cowboy, whose faces show almost no shading for the tent decision to weigh (0: tent_promote)
    shadow_touch: float = 0.08  # a figure candidate of a colour no player has (grey in Gold Rush) whose pixels come this near a kept figure's or stack's is its shadow or shaded side, not a figure (0: off), tile units
    ore_spot: tuple = (0.13, 0.09)  # where an ore stack lies from its mountain's location anchor, (across, inward) as in topdown.FIGURE_OFFSETS but not spread: on the mountain beside the cowboy (empty: FIGURE_OFFSETS x offset_spread like other figures), tile units
    grey_tint: float = 0.07  # a grey candidate this far from the grey figures' colour (colour.distances: a tinted shadow, a grey-green or blue-grey detail of the art) ...
    grey_tint_shape: float = 0.55  # ... whose best outline correlation is below this is no figure (0: off)
    one_follower: bool = True  # base game: of several followers read on one tile, only the one whose outline fits best is kept (one follower per tile; off: all)
    ore_cut_count: int = 3  # a candidate read as an ore stack of at least this many tokens is also tried cut at its waist whatever ore_cut_mm2 and ore_cut_margin say (a black cowboy beside a low stack reads as one tall stack; 0: off) ...
    ore_cut_count_fit: float = 0.65  # ... and the cut stands only when the figure part's best figure outline correlation is at least this ...
    ore_cut_count_slack: float = 0.16  # ... and at most this below the whole candidate's stack outline correlation (stack of m plus a cowboy explains it about as well as one stack of n)
    ore_cut_count_mm2: float = 200.0  # ... tried only on candidates at least this large (larger than one low stack alone), mm^2 on the table
    ore_cut_pick: str = "logit"  # the part of a candidate cut at its waist taken for the stack: the one the ore decision takes for a stack most surely ("logit") or the one the stack's outline fits best ("fit": a cowboy's part fits a low stack's outline well too)
    ore_cut_ore: float = -2.0  # a candidate cut at its waist (ore_cut_mm2, ore_cut_fit, ore_cut_count) is read cut only when the ore decision logit of the figure part is at most this (above: the part is the stack's shadow or dark side; inf: off)
    hidden_mm2: float = 8.0  # Gold Rush: pixels of one player colour (or the Sheriff's gold) at least this large around an ore stack, not explained by the art, are a cowboy (the Sheriff) the stack hides (0: off), mm^2 on the table
    hidden_reach: float = 0.12  # ... pixels within this of the stack's pixels count, tile units
    hidden_colour: float = 0.3  # ... pixels at most this far from the colour (colour.distances) and nearer it than any other figure colour count
    hidden_gold: float = 0.35  # ... yellow and gold pixels are the Sheriff when their median colour is at least this much nearer his gold than yellow wood (colour.sheriff_score; yellow wood in shade looks gold), else a yellow cowboy
    hidden_table: float = 0.1  # ... off the tiles only where at most this share of the table around the stack has that colour
    tent_promote_near: float = 0.12  # a player with no tent read (tent_promote) also gets one, whatever tent_promote_slack says and with the logit above minus max(tent_promote_near_logit, the limit), when the tent's foot lies this near the tent's own spot and no farther than the cowboy's from his location (0: off), tile units
    tent_promote_near_logit: float = 3.0  # ... see tent_promote_near
    tent_demote_far: float = 0.15  # a tent whose tent decision logit is below tent_demote_logit and whose foot lies farther than this from the tent's own spot (0: off), tile units ...
    tent_demote_near: float = 0.1  # ... while a standing cowboy's foot lies within this of his location is that cowboy, tile units
    tent_demote_logit: float = 3.0  # ... see tent_demote_far
    ore_from_nuggets: bool = True  # Gold Rush: an ore stack's count is settled with its mountain's nugget symbols (scorer.vision.ore; off: the count seen)
    tent_keep_spot: bool = True  # of two tents read of one colour, one standing nearer the tent's spot than a cowboy's goes before the tent decision's logit (off: the logit alone)
    one_cowboy: bool = True  # Gold Rush: of several cowboys read on one tile, the others are a tent, an ore stack or nothing (one cowboy a tile, seed 000; off: all kept)
    max_cowboys: int = 4  # Gold Rush: most cowboys of one colour on the tiles (five a player, one on the score track; seed 000); of more read, the likeliest tent (none of the colour read) or ore stack (black) is read so (0: off)


@dataclass
class FigureReading:
    """The figures and tokens read from one photo.

    Attributes
    ----------
    meeples : list of dict
        ``{"player", "x", "y", "at", "pose", "confidence", "alternatives",
        "colour_alternatives"}``: followers (base game) and cowboys (Gold Rush);
        ``pose`` is ``standing`` or ``lying`` (a farmer).
    tents : list of dict
        ``{"player", "x", "y", "at", "confidence"}``.
    sheriff : dict or None
        ``{"x", "y", "at", "confidence"}``.
    gold : list of dict
        ``{"x", "y", "count", "confidence"}``: Goldmines gold bars per tile.
    ore : list of dict
        ``{"x", "y", "at", "count", "confidence"}``: ore token stacks.
    unreadable : list of (int, int)
        Cells whose photo no catalogue tile explains (``max_misfit``): most of
        the cell differs from every tile's art, so it shows no tile (a cloth, a
        box lid) or one hidden under a hand; no figures are read there.  So
        are cells read with more than ``max_colour_figures`` figures of one
        colour (:func:`_crowded_cells`): a patterned cloth's cells.
    unlisted : list of (str, (int, int))
        Figures whose outline and colour are those of a colour of the game's
        box that the ``players`` given leave out (not read: their colour is
        no player's), with the cell of their foot; also logged as a warning.
    tiles : dict (x, y) -> dict
        Cells where another catalogue tile explains the photo clearly better
        than the tile read: ``{"tile", "rot", "misfit", "misfit_read"}`` (misfits:
        mean residual, capped at 1, of the photo against each tile's art).
        Figures there were found against that tile; their ``at`` is a location
        of the tile read (its feature nearest the foot when that tile has no
        feature at the location found).  ``"twin": True`` marks a tile the twin
        check took once the figures were found (:func:`_recheck_twins`; the
        figures on it stand on features of the same kind on both).
    blobs : list of dict
        Every candidate found, kept or not, with its measurements, outline
        scores and (when kept) kind, cell and location: for review and debugging.
    debug : dict
        ``seconds`` per step, the ``camera`` recovered (focal length, height,
        nadir), the number of ``blobs``, the ``candidates``' measurements, the
        top-down ``canvas``, the registered ``tiles``, the cells given a second
        look (``looks``: best and read tile's misfit), the ``solids`` read
        (``(solid, count, yaw step, foot)`` per figure or stack kept: what
        :func:`_render` draws) and the top-down
        ``pictures``: the light-corrected ``photo`` and the ``expected`` art
        (``(H, W, 3)`` float32, 0-255), the ``residual`` and the blob
        ``labels`` (``(H, W)``).
    """

    meeples: list[dict[str, Any]] = field(default_factory=list)
    tents: list[dict[str, Any]] = field(default_factory=list)
    sheriff: dict[str, Any] | None = None
    gold: list[dict[str, Any]] = field(default_factory=list)
    ore: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[Cell] = field(default_factory=list)
    unlisted: list[tuple[str, Cell]] = field(default_factory=list)
    tiles: dict[Cell, dict[str, Any]] = field(default_factory=dict)
    blobs: list[dict[str, Any]] = field(default_factory=list)
    debug: dict[str, Any] = field(default_factory=dict)


def figure_locations(reading: Any) -> dict[Cell, list[str]]:
    """The locations (``at``) that the meeples, tents, ore stacks and the Sheriff of a
    :class:`FigureReading` (or an object with those attributes) stand on, per cell (x, y)."""
    at: dict[Cell, list[str]] = {}
    sheriff = getattr(reading, "sheriff", None)
    for d in [*(getattr(reading, "meeples", None) or []), *(getattr(reading, "tents", None) or []),
              *(getattr(reading, "ore", None) or []), *([sheriff] if sheriff else [])]:
        if d.get("at"):
            at.setdefault((d["x"], d["y"]), []).append(d["at"])
    return at


# --------------------------------------------------------------------------- camera


@dataclass
class Camera:
    """A pinhole camera in lattice units recovered from the grid homography.

    World frame: lattice ``X`` east, ``Y`` south (tile units), ``Z`` down into
    the table, so a point ``h`` tiles above the tiles has ``Z = -h``.

    Attributes
    ----------
    K : (3, 3) float64 ndarray
        Intrinsics: photo pixels, or the grid's undistorted coordinates
        (centred, unit = half the photo diagonal) when the grid models the lens.
    R : (3, 3) float64 ndarray
        World-to-camera rotation.
    t : (3,) float64 ndarray
        Translation, tile units (``x_cam = R X + t``).
    """

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        """Camera centre in world coordinates (tile units); ``Z < 0`` above the table."""
        return -self.R.T @ self.t

    @property
    def nadir(self) -> np.ndarray:
        """The table point straight under the camera, ``(2,)`` tile units."""
        return self.centre[:2]

    @property
    def height(self) -> float:
        """Height of the camera above the tiles, tile units."""
        return float(-self.centre[2])

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points ``(N, 3)`` (tile units) -> photo pixels ``(N, 2)``."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 3) @ self.R.T + self.t
        q = p @ self.K.T
        return q[:, :2] / q[:, 2:3]

    def lifted(self, xy: np.ndarray, h: float) -> np.ndarray:
        """Where a point ``h`` tiles above table points ``xy`` (N, 2) appears on the table plane.

        A ray from the camera centre through the raised point meets the plane
        farther from the nadir: ``q = n + (p - n) H / (H - h)``.
        """
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        H = max(self.height, 1e-6)
        k = H / max(H - h, 1e-6)
        return self.nadir + (xy - self.nadir) * k


def camera_from_grid(grid: Grid, cfg: FigureConfig | None = None) -> Camera:
    """The pinhole camera that explains a grid homography.

    The lattice -> photo homography is ``K [r1 r2 t]`` up to scale.  With the
    principal point at the photo centre and square pixels, ``r1 . r2 = 0`` and
    ``|r1| = |r2|`` give two linear equations in ``1 / f^2`` (solved by least
    squares); a nearly straight-down photo leaves ``f`` undetermined, and
    ``cfg.f_default`` is used (the figures' heights hardly matter then).

    Parameters
    ----------
    grid : Grid
        ``grid.H`` maps photo pixels to lattice coordinates.
    cfg : FigureConfig, optional

    Returns
    -------
    Camera

    References
    ----------
    R. Hartley, A. Zisserman, *Multiple View Geometry in Computer Vision*,
    2nd ed., Cambridge University Press 2004, §8.8.
    """
    cfg = cfg or FigureConfig()
    h, w = grid.shape
    Hn = getattr(grid, "Hn", None)
    if Hn is not None:  # lattice -> undistorted coordinates centred on the photo, unit = half its diagonal
        long_side = float(max(h, w)) / (0.5 * math.hypot(w, h))
        M = np.linalg.inv(Hn)
        cx = cy = 0.0
    else:
        long_side = float(max(h, w))
        M = np.linalg.inv(grid.H)
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    T = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    Mp = T @ M
    m1, m2 = Mp[:, 0], Mp[:, 1]
    A = np.array([m1[0] * m2[0] + m1[1] * m2[1], m1[0] ** 2 + m1[1] ** 2 - m2[0] ** 2 - m2[1] ** 2])
    b = -np.array([m1[2] * m2[2], m1[2] ** 2 - m2[2] ** 2])
    f = None
    denom = float(A @ A)
    if denom > 0:
        wv = float(A @ b) / denom
        if wv > 0:
            f = 1.0 / math.sqrt(wv)
    lo, hi = cfg.f_range
    if f is None or not (lo * long_side <= f <= hi * long_side):
        f = cfg.f_default * long_side
    K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
    B = np.linalg.inv(K) @ M
    lam = 2.0 / (np.linalg.norm(B[:, 0]) + np.linalg.norm(B[:, 1]))
    B = B * lam
    if B[2, 2] < 0:  # the lattice origin must lie in front of the camera
        B = -B
    r1 = B[:, 0] / np.linalg.norm(B[:, 0])
    r2 = B[:, 1] - r1 * (r1 @ B[:, 1])
    r2 /= np.linalg.norm(r2)
    r3 = np.cross(r1, r2)
    R = np.column_stack([r1, r2, r3])
    cam = Camera(K, R, B[:, 2].copy())
    if cam.centre[2] > 0:  # mirrored solution: the camera must be above the table (Z < 0)
        R = np.column_stack([r1, r2, -r3])
        cam = Camera(K, R, B[:, 2].copy())
    return cam


# --------------------------------------------------------------------------- top-down picture


@dataclass
class _Canvas:
    """The top-down picture: pixel ``(u, v)`` shows lattice point ``lo + ((u, v) + 0.5) / px``."""

    lo: tuple[int, int]
    cells: tuple[int, int]  # (columns, rows)
    px: int

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, columns)`` of the picture, pixels."""
        return (self.cells[1] * self.px, self.cells[0] * self.px)

    def T(self) -> np.ndarray:
        """Lattice -> canvas pixels, (3, 3) homogeneous."""
        p = self.px
        return np.array([[p, 0.0, -self.lo[0] * p - 0.5], [0.0, p, -self.lo[1] * p - 0.5], [0.0, 0.0, 1.0]])

    def to_lattice(self, uv: np.ndarray) -> np.ndarray:
        """Canvas pixels ``(N, 2)`` -> lattice points ``(N, 2)``, tile units."""
        uv = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
        return np.asarray(self.lo, dtype=np.float64) + (uv + 0.5) / self.px

    def to_canvas(self, xy: np.ndarray) -> np.ndarray:
        """Lattice points ``(N, 2)`` -> canvas pixels ``(N, 2)``."""
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        return (xy - np.asarray(self.lo, dtype=np.float64)) * self.px - 0.5

    def origin_px(self, cell: Cell) -> tuple[int, int]:
        """Canvas pixel of the north-west pixel of ``cell``."""
        return ((cell[0] - self.lo[0]) * self.px, (cell[1] - self.lo[1]) * self.px)


def _make_canvas(placements: Mapping[Cell, Any], px: int, margin: int = 1) -> _Canvas:
    """The canvas over the placed cells and ``margin`` cells around them."""
    xs = [c[0] for c in placements]
    ys = [c[1] for c in placements]
    lo = (min(xs) - margin, min(ys) - margin)
    hi = (max(xs) + 1 + margin, max(ys) + 1 + margin)
    return _Canvas(lo, (hi[0] - lo[0], hi[1] - lo[1]), px)


#: Faster equivalents in the picture, light and outline steps (:func:`_residual`, :func:`_match_shapes`, ...):
#: the same results (to float rounding); False runs the plain versions (kept to measure and check them).
_FAST = True
#: Second round of speed-ups with the same results (one kept pool of two threads,
#: :func:`scorer.vision.recognise.parallel_map`; ...); False runs the first round's versions.
_FAST2 = True


def _rectify(rgb: np.ndarray, grid: Grid, canvas: _Canvas, cfg: FigureConfig) -> np.ndarray:
    """The board region of the photo as a top-down float32 RGB picture (0-255).

    The photo is first shrunk (area averaging) so that no tile is aliased, then
    sampled through the grid's exact lattice -> photo mapping (lens distortion
    included), computed on a coarse grid of points and interpolated.
    """
    side = _tile_side_px(grid, canvas)
    scale = min(1.0, cfg.px * cfg.oversample / max(side, 1e-6))
    img = rgb
    sx = sy = 1.0
    if scale < 0.95:
        h, w = rgb.shape[:2]
        img = cv2.resize(rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        sx = img.shape[1] / w
        sy = img.shape[0] / h
    hh, ww = canvas.shape
    step = 4
    us = np.arange(0, ww + step, step, dtype=np.float64)
    vs = np.arange(0, hh + step, step, dtype=np.float64)
    gu, gv = np.meshgrid(us, vs)
    lat = canvas.to_lattice(np.column_stack([gu.ravel(), gv.ravel()]))
    # Points towards the horizon of a steep view map far off the photo: kept far off (outside
    # the image, where remap gives the border) but within float32.
    ph = np.clip(grid.to_photo(lat), -1e7, 1e7)
    mx = ((ph[:, 0] + 0.5) * sx - 0.5).reshape(gu.shape).astype(np.float32)
    my = ((ph[:, 1] + 0.5) * sy - 0.5).reshape(gu.shape).astype(np.float32)
    big = (len(us) * step, len(vs) * step)
    mx = cv2.resize(mx, big, interpolation=cv2.INTER_LINEAR)[:hh, :ww]
    my = cv2.resize(my, big, interpolation=cv2.INTER_LINEAR)[:hh, :ww]
    # cv2.resize aligns pixel centres: coarse sample k sits at fine pixel k*step + (step-1)/2; undo that shift.
    off = (step - 1) / 2.0
    M = np.float32([[1, 0, -off], [0, 1, -off]])  # dst(x) = src(x + off)
    mx = cv2.warpAffine(mx, M, (ww, hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.warpAffine(my, M, (ww, hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return out.astype(np.float32)


def _tile_side_px(grid: Grid, canvas: _Canvas) -> float:
    """Largest tile side in photo pixels over the canvas region (the finest detail to keep)."""
    xs = np.arange(canvas.lo[0], canvas.lo[0] + canvas.cells[0] + 1, dtype=np.float64)
    ys = np.arange(canvas.lo[1], canvas.lo[1] + canvas.cells[1] + 1, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    ph = grid.to_photo(pts).reshape(len(ys), len(xs), 2)
    h, w = grid.shape
    inside = (ph[..., 0] >= 0) & (ph[..., 0] < w) & (ph[..., 1] >= 0) & (ph[..., 1] < h)
    dx = np.linalg.norm(np.diff(ph, axis=1), axis=2)
    dy = np.linalg.norm(np.diff(ph, axis=0), axis=2)
    vals = np.concatenate([dx[inside[:, 1:] & inside[:, :-1]], dy[inside[1:, :] & inside[:-1, :]]])
    if len(vals) == 0:
        vals = np.concatenate([dx.ravel(), dy.ravel()])
    return float(np.percentile(vals, 90))


# --------------------------------------------------------------------------- expected picture


@dataclass
class _Tile:
    """A placed tile as found in the top-down picture."""

    cell: Cell
    tile: TileType
    rot: int
    A: np.ndarray  # (2, 3) affine: tile-art pixels -> canvas pixels
    score: float  # registration correlation (-1..1)

    def art_to_canvas(self, pts: np.ndarray) -> np.ndarray:
        """Tile-art pixels ``(N, 2)`` (board orientation) -> canvas pixels ``(N, 2)``."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        return pts @ self.A[:, :2].T + self.A[:, 2]

    def canvas_to_frac(self, uv: np.ndarray, px: int) -> np.ndarray:
        """Canvas pixels -> fractions of this tile (board orientation), ``(N, 2)``."""
        uv = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
        Ai = cv2.invertAffineTransform(self.A)
        art = uv @ Ai[:, :2].T + Ai[:, 2]
        return (art + 0.5) / px


def _art(tile: TileType, rot: int, px: int, art_dir, appearance, oversample: int = 1) -> np.ndarray:
    """The tile's picture turned ``rot``, ``(px, px, 3)`` float32 0-255: calibrated, real or procedural art
    (the procedural art drawn ``oversample`` times larger and shrunk, :func:`_draw_shrunk`)."""
    from ..render.tileart import tile_image

    img = None
    if appearance is not None:
        img = appearance.picture(tile, px)
    if img is None:
        img = _drawn_art(tile, px, oversample) if art_dir is None and ART_DISK_CACHE else None
    if img is None:
        img = tile_image(tile, px, art_dir=art_dir) if art_dir is not None else _draw_shrunk(tile, px, oversample)
    return np.ascontiguousarray(np.rot90(img, -rot)).astype(np.float32)


#: The twin check (:func:`_recheck_twins`) draws the procedural art this many times larger and
#: shrinks it (area average), as a camera sees a printed tile: drawn straight at the figure stage's
#: 64 pixels a tile, thin lines (a horse's legs) come out bolder than in a photo.  The rest of the
#: figure stage, whose thresholds were measured on it, keeps the art drawn at size.
ART_OVERSAMPLE = 4


def _draw_shrunk(tile: TileType, px: int, oversample: int = 1) -> np.ndarray:
    """The procedural picture of ``tile`` (rot 0, seed 0) drawn at ``oversample * px`` pixels and
    shrunk to ``(px, px, 3)`` uint8 by area averaging (1: drawn at size)."""
    from ..render.tileart import tile_image

    big = tile_image(tile, oversample * px)
    return big if oversample == 1 else cv2.resize(big, (px, px), interpolation=cv2.INTER_AREA)


#: Read the procedural tile art from the disk cache (:func:`_drawn_art`); ``False`` always draws it.
ART_DISK_CACHE = True
#: Pictures read or drawn through :func:`_drawn_art` in this process: (tile key, px[, oversample]) -> read-only uint8 array.
_DRAWN: dict[tuple, np.ndarray] = {}
_ART_DIGEST: str | None = None


def _art_digest() -> str:
    """Hash of the code that draws the procedural tile art (whole source files) and of the library versions."""
    global _ART_DIGEST
    if _ART_DIGEST is None:
        import hashlib
        from pathlib import Path

        render = Path(__file__).resolve().parent.parent / "render"
        h = hashlib.blake2b(digest_size=16)
        for f in (render / "tileart.py", render / "colours.py", render.parent / "geometry.py"):
            h.update(f.name.encode())
            h.update(f.read_bytes())
        h.update(f"{np.__version__}|{cv2.__version__}".encode())
        _ART_DIGEST = h.hexdigest()
    return _ART_DIGEST


def _drawn_art(tile: TileType, px: int, oversample: int = 1) -> np.ndarray | None:
    """The procedural picture of ``tile`` (rot 0, seed 0), ``(px, px, 3)`` uint8, through a disk cache.

    The same bytes as :func:`_draw_shrunk` ``(tile, px, oversample)``: read from
    ``cache_dir()/tile_art/<code>-<hash>.npy`` (``code`` a hash of the drawing code, ``hash`` one
    of it, the tile's design, ``px`` and ``oversample``, so a stale file is never read), else drawn and written
    there; the first file a process writes removes the files of other drawing code.  ``None``
    when the disk cache is off (the caller draws it).
    """
    from ..render.tileart import _tile_key
    from .recognise import cache_dir

    key = (_tile_key(tile), int(px)) if oversample == 1 else (_tile_key(tile), int(px), int(oversample))
    hit = _DRAWN.get(key)
    if hit is not None:
        return hit
    folder = cache_dir()
    if folder is None:
        return None
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    h.update(f"{_art_digest()}|{key!r}".encode())
    code = _art_digest()[:12]
    path = folder / "tile_art" / f"{code}-{h.hexdigest()}.npy"
    img = None
    try:
        if path.is_file():
            img = np.load(path, allow_pickle=False)
            if img.shape != (px, px, 3) or img.dtype != np.uint8:
                log.warning("tile art cache %s does not fit (%s %s): drawing it again", path, img.shape, img.dtype)
                img = None
    except Exception as exc:  # noqa: BLE001 - a damaged cache file is drawn again, never an error
        log.warning("tile art cache %s is unreadable (%s): drawing it again", path, exc)
        img = None
    if img is None:
        import io

        from .recognise import write_cache_file

        img = _draw_shrunk(tile, px, oversample)
        buf = io.BytesIO()
        np.save(buf, img, allow_pickle=False)
        if write_cache_file(path, buf.getvalue(), "tile art") and not _ART_PRUNED:
            _prune_other_art(path.parent, code)
    img.setflags(write=False)
    if len(_DRAWN) >= 512:
        _DRAWN.pop(next(iter(_DRAWN)))
    _DRAWN[key] = img
    return img


def _prune_other_art(folder, code: str) -> None:
    """Remove the tile art files in ``folder`` drawn by other code than ``code`` (once a process;
    a failure only costs a log line)."""
    global _ART_PRUNED
    _ART_PRUNED = True
    try:
        for old in folder.glob("*.npy"):
            if not old.name.startswith(f"{code}-"):
                old.unlink(missing_ok=True)
                log.debug("removed the unused tile art cache %s", old)
    except OSError as exc:
        log.debug("cannot prune the tile art cache %s (%s)", folder, exc)


_ART_PRUNED = False


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of ``sigma`` pixels (none below 0.3)."""
    if sigma < 0.3:
        return img
    return cv2.GaussianBlur(img, (0, 0), sigma)


def _register(rect: np.ndarray, canvas: _Canvas, placements: Mapping[Cell, tuple[TileType, int]],
              arts: dict[Cell, np.ndarray], cfg: FigureConfig) -> dict[Cell, _Tile]:
    """Find where each tile's art lies in the top-down picture: a shift and a small turn per tile.

    The lattice of the grid is one homography; the tiles in the photo drift
    from it (hand placement, lens distortion), by up to a third of a tile in a
    wide-angle photo.  Every tile's art is matched (normalised
    cross-correlation) over a wide window at a few small turns; the score is
    lowered by the squared distance from the shift its neighbours took (their
    median), so that tiles with little detail (a plain road) follow their
    neighbours instead of sliding along their own road.
    """
    P = canvas.px
    sig = cfg.register_blur * P
    g = _blur(rect, sig)
    b = 1
    wide = int(math.ceil(cfg.max_shift * P))
    pad = wide + P
    gp = cv2.copyMakeBorder(g, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    cells = list(placements)
    turns = np.linspace(-cfg.max_turn_deg, cfg.max_turn_deg, cfg.turn_steps) if cfg.turn_steps > 1 else np.zeros(1)
    ctr = ((P - 1) / 2.0, (P - 1) / 2.0)
    maps: dict[Cell, list[np.ndarray]] = {}

    turned: dict[bytes, list[np.ndarray]] = {}  # an art's pixels -> its blurred, turned pictures (tiles alike share)

    def match(c: Cell) -> list[np.ndarray]:
        x0, y0 = canvas.origin_px(c)
        win = gp[pad + y0 + b - wide: pad + y0 + P - b + wide, pad + x0 + b - wide: pad + x0 + P - b + wide]
        key = arts[c].tobytes() if _FAST2 else b""
        pics = turned.get(key) if _FAST2 else None
        if pics is None:
            art_b = _blur(arts[c], sig)
            pics = []
            for ang in turns:
                if ang == 0:
                    rot_art = art_b
                else:
                    R = cv2.getRotationMatrix2D(ctr, float(ang), 1.0)
                    rot_art = cv2.warpAffine(art_b, R, (P, P), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
                pics.append(rot_art[b:P - b, b:P - b])
            if _FAST2:
                turned[key] = pics
        return [cv2.matchTemplate(win, pic, cv2.TM_CCOEFF_NORMED) for pic in pics]

    if _FAST:
        # The matching is OpenCV's (it lets go of the interpreter): two threads share the cells.
        from .recognise import parallel_map

        maps = dict(zip(cells, parallel_map(match, cells)))
    else:
        for c in cells:
            maps[c] = match(c)
    # First guess: best shift per tile, any turn.
    first = {}
    for c in cells:
        best = max(range(len(turns)), key=lambda k: float(maps[c][k].max()))
        sc = maps[c][best]
        _, v, _, loc = cv2.minMaxLoc(sc)
        first[c] = (np.array([loc[0] - wide, loc[1] - wide], dtype=np.float64), float(v))
    good = [c for c in cells if first[c][1] > 0.5] or cells
    allmed = np.median(np.array([first[c][0] for c in good]), axis=0)
    yy, xx = np.mgrid[-wide:wide + 1, -wide:wide + 1].astype(np.float32)
    sigma = cfg.prior_sigma * P
    tiles: dict[Cell, _Tile] = {}
    if _FAST2:
        # The good tiles within two cells of each tile, at once (the same lists, in the same order).
        gxy = np.array(good, dtype=np.int64).reshape(-1, 2)
        gshift = np.array([first[d][0] for d in good]).reshape(-1, 2)
    for c in cells:
        if _FAST2:
            dd = np.abs(gxy - np.array(c, dtype=np.int64))
            sel = (dd[:, 0] <= 2) & (dd[:, 1] <= 2) & ((dd[:, 0] > 0) | (dd[:, 1] > 0))
            near = gshift[sel]
        else:
            near = [first[d][0] for d in good if d != c and abs(d[0] - c[0]) <= 2 and abs(d[1] - c[1]) <= 2]
        prior = np.median(np.array(near), axis=0) if len(near) >= 2 else allmed
        pen = cfg.prior_weight * ((xx - prior[0]) ** 2 + (yy - prior[1]) ** 2) / (sigma * sigma)
        best = (-9.0, (0, 0), 0)
        for k in range(len(turns)):
            sc = maps[c][k] - pen
            _, v, _, loc = cv2.minMaxLoc(sc)
            if v > best[0]:
                best = (float(v), loc, k)
        v, loc, k = best
        sub = _subpixel(maps[c][k] - pen, loc)
        shift = np.array([sub[0] - wide, sub[1] - wide])
        x0, y0 = canvas.origin_px(c)
        R = cv2.getRotationMatrix2D(ctr, float(turns[k]), 1.0)
        R[:, 2] += np.array([x0, y0], dtype=np.float64) + shift
        tile, rot = placements[c]
        tiles[c] = _Tile(c, tile, rot, R, float(maps[c][k][loc[1], loc[0]]))
    return tiles


def _subpixel(sc: np.ndarray, loc: tuple[int, int]) -> tuple[float, float]:
    """The peak ``loc`` of a score map refined by a parabola through its neighbours, per axis."""
    x, y = loc
    dx = dy = 0.0
    if 0 < x < sc.shape[1] - 1:
        l, m, r = sc[y, x - 1], sc[y, x], sc[y, x + 1]
        d = l - 2 * m + r
        if d < 0:
            dx = float(np.clip(0.5 * (l - r) / d, -0.5, 0.5))
    if 0 < y < sc.shape[0] - 1:
        t, m, bt = sc[y - 1, x], sc[y, x], sc[y + 1, x]
        d = t - 2 * m + bt
        if d < 0:
            dy = float(np.clip(0.5 * (t - bt) / d, -0.5, 0.5))
    return x + dx, y + dy


def _compose(canvas: _Canvas, tiles: dict[Cell, _Tile], arts: dict[Cell, np.ndarray],
             border: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The expected picture, its coverage (1 inside a tile, eroded at the border) and a tile-index map."""
    H, W = canvas.shape
    P = canvas.px
    exp = np.zeros((H, W, 3), np.float32)
    cover = np.zeros((H, W), np.float32)
    index = np.full((H, W), -1, np.int32)
    e = max(1, int(round(border * P)))
    inner = np.zeros((P, P), np.float32)
    inner[e:P - e, e:P - e] = 1.0
    for k, (c, t) in enumerate(tiles.items()):
        x0 = int(math.floor(t.A[0, 2])) - 2
        y0 = int(math.floor(t.A[1, 2])) - 2
        size = P + 6
        A = t.A.copy()
        A[0, 2] -= x0
        A[1, 2] -= y0
        wa = cv2.warpAffine(arts[c], A, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        wm = cv2.warpAffine(inner, A, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        xa, ya = max(x0, 0), max(y0, 0)
        xb, yb = min(x0 + size, W), min(y0 + size, H)
        if xa >= xb or ya >= yb:
            continue
        sl = (slice(ya, yb), slice(xa, xb))
        ssl = (slice(ya - y0, yb - y0), slice(xa - x0, xb - x0))
        m = wm[ssl] > 0.99
        if _FAST2:
            # The same pixels written through a mask, without gathering them first.
            np.copyto(exp[sl], wa[ssl], where=m[..., None])
            np.copyto(cover[sl], 1.0, where=m)
            np.copyto(index[sl], k, where=m)
            continue
        exp[sl][m] = wa[ssl][m]
        cover[sl][m] = 1.0
        index[sl][m] = k
    return exp, cover, index


# --------------------------------------------------------------------------- light and residual


#: Third round of speed-ups with the same results (:func:`_gain` shrinks its three pictures in the
#: two threads of :func:`scorer.vision.recognise.parallel_map`); False runs the second round's versions.
_FAST3 = True


def _gain(rect: np.ndarray, exp: np.ndarray, weight: np.ndarray, sigma: float) -> np.ndarray:
    """Smooth per-channel gain photo / expected (normalised convolution), ``(H, W, 3)`` float32.

    The field is as smooth as a Gaussian of ``sigma`` pixels, so it is computed
    on pictures shrunk by about ``sigma / 4`` (area averaging keeps the sums'
    ratio) and enlarged again.
    """
    H, W = weight.shape
    f = max(1, int(sigma // 4))
    w = weight.astype(np.float32)
    if f > 1:
        from .recognise import parallel_map

        size = (max(1, round(W / f)), max(1, round(H / f)))

        def shrink(a: np.ndarray | None) -> np.ndarray:
            return cv2.resize(w if a is None else a * w[..., None], size, interpolation=cv2.INTER_AREA)

        # The weight, the weighted photo and the weighted art shrunk side by side (the same numbers).
        run = parallel_map if _FAST3 else (lambda fn, xs: [fn(x) for x in xs])
        w, num, den = run(shrink, (None, rect, exp))
    else:
        num, den = rect * w[..., None], exp * w[..., None]
    s = sigma * w.shape[1] / W
    wb = cv2.GaussianBlur(w, (0, 0), s)
    nb = cv2.GaussianBlur(num, (0, 0), s)
    db = cv2.GaussianBlur(den, (0, 0), s)
    g = nb / np.maximum(db, 1e-3)
    # Where no tile is near, use the board's overall gain.
    tot = num.reshape(-1, 3).sum(axis=0) / np.maximum(den.reshape(-1, 3).sum(axis=0), 1e-3)
    g[wb < 0.05] = tot
    mix = np.clip(wb / 0.2, 0.0, 1.0)[..., None]
    g = g * mix + tot[None, None, :] * (1 - mix)
    if f > 1:
        g = cv2.resize(g, (W, H), interpolation=cv2.INTER_LINEAR)
    return np.clip(g, 0.05, 20.0).astype(np.float32, copy=False)


def _residual(norm: np.ndarray, exp: np.ndarray, cfg: FigureConfig) -> tuple[np.ndarray, np.ndarray]:
    """Shadow-tolerant colour distance of the light-corrected photo from the expected art.

    The art is first scaled by the brightness ratio clipped to
    ``[shadow_min, bright_max]`` (a shadow or a brighter spot changes
    brightness only); the distance is the length of the log-ratio difference
    of the three channels, each offset by ``chroma_eps``.

    Parameters
    ----------
    norm, exp : (..., H, W, 3) float32 ndarray
        Light-corrected photo and expected art, 0-255.

    Returns
    -------
    residual : (..., H, W) float32
    scale : (..., H, W) float32
        The brightness ratio photo / art (unclipped).
    """
    eps = cfg.chroma_eps
    if _FAST and norm.dtype.kind == "f" and exp.dtype.kind == "f":
        return _residual_fast(norm, exp, cfg)
    yo = norm.mean(axis=-1)
    ye = exp.mean(axis=-1)
    ratio = (yo + 1.0) / (ye + 1.0)
    s = np.clip(ratio, cfg.shadow_min, cfg.bright_max)
    d = np.log(norm + eps) - np.log(exp * s[..., None] + eps)
    r2 = (d * d).sum(axis=-1)
    # Dark pixels where the art is not dark: black wood or ore tokens, not a shadow.
    dark = np.where(ratio < cfg.dark_ratio, np.maximum(0.0, np.log(cfg.dark_luma / (yo + 1.0))), 0.0)
    r2 += (cfg.dark_weight * dark) ** 2
    return np.sqrt(r2).astype(np.float32), ratio.astype(np.float32)


def _residual_fast(norm: np.ndarray, exp: np.ndarray, cfg: FigureConfig) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_residual` with the channel sums written out and fewer temporaries (the same numbers).

    A numpy reduction over an axis of three is slow; the sum of the three
    channels in order is what it computes.  A large picture is done as two
    halves in two threads (every step is per pixel).
    """
    if norm.ndim == 3 and norm.shape[0] >= 256 and norm.shape == exp.shape and (os.cpu_count() or 1) > 1:
        from .recognise import parallel_map

        h = norm.shape[0] // 2
        (r0, s0), (r1, s1) = parallel_map(lambda sl: _residual_fast(norm[sl], exp[sl], cfg),
                                          (slice(0, h), slice(h, None)))
        return np.concatenate([r0, r1]), np.concatenate([s0, s1])
    eps = cfg.chroma_eps
    yo = (norm[..., 0] + norm[..., 1] + norm[..., 2]) / 3
    ye = (exp[..., 0] + exp[..., 1] + exp[..., 2]) / 3
    ratio = (yo + 1.0) / (ye + 1.0)
    s = np.clip(ratio, cfg.shadow_min, cfg.bright_max)
    a = norm + eps
    np.log(a, out=a)
    b = exp * s[..., None]
    b += eps
    np.log(b, out=b)
    a -= b
    a *= a
    r2 = a[..., 0] + a[..., 1] + a[..., 2]
    # Dark pixels where the art is not dark: black wood or ore tokens, not a shadow.
    low = ratio < cfg.dark_ratio
    if low.any():
        dark = np.maximum(0.0, np.log(cfg.dark_luma / (yo[low] + 1.0)))
        r2[low] += (cfg.dark_weight * dark) ** 2
    return np.sqrt(r2).astype(np.float32, copy=False), ratio.astype(np.float32, copy=False)


def _light_residual(rect: np.ndarray, exp: np.ndarray, cover: np.ndarray, cfg: FigureConfig
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Light-corrected photo, residual and brightness ratio against the expected picture.

    The light is fitted on the whole board, then again without the pixels that
    do not fit (figures).  Returns ``norm`` (H, W, 3), ``res`` (H, W, zero off
    the tiles) and ``ratio`` (H, W) of :func:`_residual`, float32.
    """
    P = cfg.px
    sig = cfg.residual_blur * P
    exp_b = _blur(exp, sig)
    gain = _gain(rect, exp, cover, cfg.gain_sigma * P)
    res, _ = _residual(_blur(rect / gain, sig), exp_b, cfg)
    keep = (cover > 0.5) & (cv2.dilate((res > cfg.residual_low).astype(np.uint8), np.ones((5, 5), np.uint8)) == 0)
    gain = _gain(rect, exp, keep.astype(np.float32), cfg.gain_sigma * P)
    norm = rect / gain
    res, ratio = _residual(_blur(norm, sig), exp_b, cfg)
    res *= cover
    return norm, res, ratio


def _figure_colours(res: np.ndarray, norm: np.ndarray, allowed: Sequence[str], cfg: FigureConfig) -> np.ndarray:
    """Raise, in place, the residual of pixels that look more like a figure than like their art.

    A gold bar on a city, a yellow figure on a sand-coloured field differ
    from their art less than :data:`FigureConfig.residual_high` asks, yet
    their colour is nearer a figure colour (a player colour among
    ``allowed``, the gold of the bars, bright or in shade) than their art's:
    where the residual exceeds that distance by ``figure_margin`` the pixel
    is taken as a figure's (its residual raised to ``residual_high``); where
    by less, the residual is raised by the excess.

    Returns
    -------
    (H, W) bool ndarray
        The pixels taken as a figure's by their colour.
    """
    from . import colour

    taken = np.zeros(res.shape, bool)
    if cfg.figure_margin <= 0:
        return taken
    near = res > cfg.figure_min
    if not near.any():
        return taken
    names = list(dict.fromkeys(list(allowed) + ["gold", "gold_light"]))
    d = colour.distances(norm[near], names).min(axis=1)
    r = res[near]
    gain = r - d
    low = r < cfg.residual_high
    res[near] = np.where(low, np.where(gain > cfg.figure_margin, np.maximum(r, cfg.residual_high),
                                       r + np.maximum(gain, 0.0)), r)
    taken[near] = gain > cfg.figure_margin
    return taken


# --------------------------------------------------------------------------- second look at the tiles


def _candidate_tiles(placements: Mapping[Cell, tuple[TileType, int]], game: str, catalog: Any) -> list[TileType]:
    """Tiles a cell may really hold: ``catalog`` when given, else every built-in set of ``game``, plus the tiles read."""
    from ..tiles import BUILTIN_SETS, load_tileset

    out: dict[str, TileType] = {}
    if catalog is not None:
        out.update(catalog.tiles)
    else:
        for name, (g, _exp) in BUILTIN_SETS.items():
            if g == game:
                for tid, t in load_tileset(name).tiles.items():
                    out.setdefault(tid, t)
    for t, _r in placements.values():
        out.setdefault(t.id, t)
    return list(out.values())


def _misfit(photo: np.ndarray, art: np.ndarray, cfg: FigureConfig, edge: int) -> np.ndarray:
    """Mean residual (capped at 1) of ``photo`` (..., S, S, 3) against arts (..., S, S, 3), inside ``edge`` pixels."""
    r, _ = _residual(photo, art, cfg)
    S = r.shape[-1]
    return np.minimum(r[..., edge:S - edge, edge:S - edge], 1.0).mean(axis=(-2, -1))


def _small_arts(kinds: Sequence[tuple[TileType, int]], P: int, S: int, edge: int, cfg: FigureConfig, art_dir: Any,
                appearance: Any) -> tuple[np.ndarray, np.ndarray]:
    """Logs of the arts of ``kinds`` (tile, rot) shrunk to ``S`` pixels, blurred and trimmed by ``edge``.

    Returns ``log(art + chroma_eps)`` (N, S', S', 3) and ``log(brightness + 1)``
    (N, S', S'), float32; cached per catalogue when no calibrated appearance is used.
    """
    key = None
    if appearance is None:
        key = (tuple((t.id, t.features, r) for t, r in kinds), P, S, edge, cfg.residual_blur, cfg.chroma_eps,
               None if art_dir is None else str(art_dir))
        hit = _SMALL_ARTS.get(key)
        if hit is not None:
            return hit
    small = np.stack([_blur(cv2.resize(_art(t, r, P, art_dir, appearance), (S, S), interpolation=cv2.INTER_AREA),
                            cfg.residual_blur * S) for t, r in kinds])[:, edge:S - edge, edge:S - edge]
    out = (np.log(small + cfg.chroma_eps).astype(np.float32), np.log(small.mean(axis=-1) + 1.0).astype(np.float32))
    if key is not None:
        if len(_SMALL_ARTS) >= 4:
            _SMALL_ARTS.pop(next(iter(_SMALL_ARTS)))
        _SMALL_ARTS[key] = out
    return out


_SMALL_ARTS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _empty_beside(tiles: Mapping[Cell, _Tile], canvas: _Canvas, grid: Grid) -> dict[Cell, np.ndarray]:
    """Empty cells next to a tile read (4-neighbours), wholly inside the photo and the canvas.

    Returns cell -> (2, 3) affine art -> canvas pixels: the lattice cell moved
    by the median drift of the tiles read around it.
    """
    h, w = grid.shape
    out: dict[Cell, np.ndarray] = {}
    for (x, y) in tiles:
        for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if c in tiles or c in out:
                continue
            if not (canvas.lo[0] <= c[0] < canvas.lo[0] + canvas.cells[0]
                    and canvas.lo[1] <= c[1] < canvas.lo[1] + canvas.cells[1]):
                continue
            corners = grid.to_photo(np.array([[c[0], c[1]], [c[0] + 1, c[1]], [c[0] + 1, c[1] + 1], [c[0], c[1] + 1]],
                                             dtype=np.float64))
            if not ((corners[:, 0] >= 0).all() and (corners[:, 0] < w).all() and (corners[:, 1] >= 0).all()
                    and (corners[:, 1] < h).all()):
                continue
            drift = [t.A[:, 2] - np.array(canvas.origin_px(d), dtype=np.float64) for d, t in tiles.items()
                     if abs(d[0] - c[0]) <= 1 and abs(d[1] - c[1]) <= 1]
            x0, y0 = canvas.origin_px(c)
            A = np.array([[1.0, 0.0, x0], [0.0, 1.0, y0]])
            A[:, 2] += np.median(np.array(drift), axis=0)
            out[c] = A
    return out


def _refit(rect: np.ndarray, exp: np.ndarray, cover: np.ndarray, res: np.ndarray, canvas: _Canvas,
           tiles: dict[Cell, _Tile], candidates: Sequence[TileType], cfg: FigureConfig, art_dir: Any,
           appearance: Any, looks: dict[Cell, dict[str, float]],
           empty: Mapping[Cell, np.ndarray] | None = None) -> dict[Cell, dict[str, Any]]:
    """Cells whose photo another catalogue tile explains clearly better than the tile read.

    The tile stage misreads some tiles (a figure hides the detail that tells
    two tiles apart, two tiles look alike); compared with the wrong art, the
    whole difference would look like figures.  Every cell is compared with
    every catalogue tile in every rotation, under a light field smoother than
    the one figures are read under (``refit_gain_sigma``: a misread tile
    cannot bend it to its own colours), first small (``refit_px`` pixels a
    tile), then the ``refit_top`` best at full size, each registered again
    within ``refit_shift``.  The misfit is the mean residual capped at 1 when
    small; at full size (shadows allowed down to ``refit_shadow_min`` only,
    the light being fitted already) the mean residual capped at
    ``refit_cap``, as a fraction of it, over the pixels some compared tile
    explains (below ``refit_hidden``): figures and ore tokens cost every tile alike, and left
    in they would dilute the tiles' own differences by how much of the cell
    they hide.  A tile replaces the tile read when
    it saves more than ``refit_margin``; a cell no tile explains better than
    ``max_misfit`` is left as it is.  ``looks`` receives, per cell looked at,
    the small misfit of the best tile and of the tile read.

    ``empty`` maps cells the tile stage left empty beside the tiles read
    (``A``: the (2, 3) art -> canvas affine where a tile there would lie) to
    be compared too: a figure or an ore stack may hide so much of a tile that
    the tile stage took the cell for the table.  The best tile is added
    (``"added": True``) when both comparisons find it within
    ``refit_add_coarse`` and ``refit_add_close`` and something no tile
    explains hides ``refit_add_hidden`` of it, or, hidden or not, within
    ``refit_add_plain`` and ``refit_add_plain_close``: closer than any patch of
    table comes to a tile (a plain mountain tile in a blurred photo, whose
    texture the tile stage could not match).  Of the tiles compared, the best
    that meets the tiles read beside it (:func:`scorer.tiles.fits_neighbours`)
    stands in for the best of all when its close misfit is at most
    ``refit_add_fitting`` above it: a lying meeple on the end of a rail leaves
    a mountain on three sides with the rail and without it alike, and only
    one of them meets the rail beside it.  With ``empty`` given, a tile
    read is also removed (``"removed": True``, ``"table"``: the residual of
    :func:`_table_like`) where neither the tile read nor the tile the small
    comparison fits best explains the visible pixels closer than
    ``refit_table`` at the median: a patch of table read as a tile; so is one
    left more than ``refit_table_low`` off and more than ``refit_table_ratio``
    times the median of the cells so judged (at least ``refit_table_cells``):
    how closely the tiles fit differs from photo to photo (real art, blur),
    a patch of table stands out of its photo's tiles.

    Returns
    -------
    dict cell -> {"tile": TileType, "rot": int, "A": (2, 3) ndarray, "art": (P, P, 3) ndarray,
    "misfit": float, "misfit_read": float}, or {"removed": True, "table": float, "coarse": float}
    """
    P = canvas.px
    S = cfg.refit_px
    keep = ((cover > 0.5) & (res < cfg.residual_low)).astype(np.float32)
    norm = rect / _gain(rect, exp, keep, cfg.refit_gain_sigma * P)
    sig = cfg.residual_blur * P
    m = max(1, int(round(cfg.refit_shift * P)))
    edge_s = max(1, int(round(cfg.border * S)) + 1)
    edge = int(round(cfg.border * P)) + 2
    close_cfg = dataclasses.replace(cfg, shadow_min=cfg.refit_shadow_min)
    # Cells worth a second look: more of the tile differs from its art than its own noise explains.
    look = []
    for c, t in tiles.items():
        Ai = cv2.invertAffineTransform(t.A)
        r = cv2.warpAffine(res, Ai, (P, P), flags=cv2.INTER_NEAREST)[edge:P - edge, edge:P - edge]
        if (r > cfg.residual_low).mean() >= cfg.refit_min_frac:
            look.append(c)
    add = empty is not None  # the caller edits its board: tiles may be added and removed
    empty = dict(empty or {})
    placed = {c: (t.tile, t.rot) for c, t in tiles.items()}  # the tiles read: a tile added must meet them
    for c, A in empty.items():
        tiles = {**tiles, c: _Tile(c, None, 0, A, 0.0)}  # type: ignore[arg-type]
        look.append(c)
    if not look:
        return {}
    kinds = [(t, r) for t in candidates for r in range(4)]
    index = {(t.id, r): k for k, (t, r) in enumerate(kinds)}
    eps = cfg.chroma_eps
    l_art, ly_art = _small_arts(kinds, P, S, edge_s, cfg, art_dir, appearance)
    lo_s, hi_s = math.log(cfg.shadow_min), math.log(cfg.bright_max)
    yy, xx = np.mgrid[-m - 2:m + 3, -m - 2:m + 3].astype(np.float32)
    pen = cfg.prior_weight * (xx * xx + yy * yy) / (cfg.prior_sigma * P) ** 2
    out: dict[Cell, dict[str, Any]] = {}
    table: dict[Cell, tuple[float, float]] = {}  # cell -> (table residual, best small misfit)
    for c in look:
        t = tiles[c]
        Ai = cv2.invertAffineTransform(t.A)
        Ai[:, 2] += m
        big = cv2.warpAffine(norm, Ai, (P + 2 * m, P + 2 * m), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        ph = _blur(cv2.resize(big[m:m + P, m:m + P], (S, S), interpolation=cv2.INTER_AREA), cfg.residual_blur * S)
        ph = ph[edge_s:S - edge_s, edge_s:S - edge_s]
        yo = ph.mean(axis=-1)
        lr = np.log(yo + 1.0)[None] - ly_art
        d = np.log(ph + eps)[None] - l_art - np.clip(lr, lo_s, hi_s)[..., None]
        if _FAST2:
            d *= d
            r2 = d[..., 0] + d[..., 1] + d[..., 2]  # the channel sum in order: the same numbers, faster
        else:
            r2 = (d * d).sum(axis=-1)
        dark = cfg.dark_weight * np.maximum(0.0, np.log(cfg.dark_luma / (yo + 1.0)))
        r2 += np.where(lr < math.log(cfg.dark_ratio), dark * dark, 0.0)
        coarse = np.minimum(np.sqrt(r2), 1.0).mean(axis=(1, 2))
        if c not in empty and add and cfg.refit_table > 0:
            gi = index[(t.tile.id, t.rot)]
            off = _table_like(r2[[gi, int(np.argmin(coarse))]], cfg)
            table[c] = (off, float(coarse.min()))
            if off > cfg.refit_table:
                out[c] = {"removed": True, "table": round(off, 4), "coarse": round(float(coarse.min()), 4)}
                continue
        order = [int(k) for k in np.argsort(coarse)[:cfg.refit_top]]
        if c in empty:
            gi = None
            # The table beside the board may look like a plain tile: only a cell with something
            # on it that no tile explains is worth it, or one that some tile explains far better
            # than any patch of table (a mountain with its nuggets that a blurred photo left the
            # tile stage unsure of).
            covered = float((r2[order[:2]].min(axis=0) > cfg.refit_hidden ** 2).mean())
            best_coarse = float(coarse.min())
            plain = best_coarse <= cfg.refit_add_plain
            if best_coarse > cfg.refit_add_coarse or (covered < 0.5 * cfg.refit_add_hidden and not plain):
                continue
        else:
            gi = index[(t.tile.id, t.rot)]
            looks[c] = {"best": float(coarse.min()), "read": float(coarse[gi])}
            if cfg.spot_alt_tiles:
                # Runners-up within spot_alt_slack of the tile read: a Sheriff no mountain of the
                # tile read takes may tell which of them lies there (_spot_alternative).
                near = np.flatnonzero(coarse <= coarse[gi] + cfg.spot_alt_slack)
                near = near[np.argsort(coarse[near], kind="stable")][:cfg.spot_alt_top + 1]
                looks[c]["runners"] = [(kinds[k][0], kinds[k][1], float(coarse[k])) for k in near if k != gi]
            # The small comparison only picks the tiles to compare closely: the tile
            # read is kept at once only when it is best by a clear margin there.
            runner = float(coarse[order[1]]) if order[0] == gi and len(order) > 1 else float(coarse.min())
            if runner - coarse[gi] >= cfg.refit_close or coarse.min() > cfg.max_misfit:
                continue
            if gi not in order:
                order.append(gi)
        big_r = _blur(big, cfg.register_blur * P)
        big_b = _blur(big, sig)
        fits = {}
        for k in order:
            tk, rk = kinds[k]
            art = _art(tk, rk, P, art_dir, appearance)
            sc = cv2.matchTemplate(big_r, _blur(art, cfg.register_blur * P)[2:P - 2, 2:P - 2], cv2.TM_CCOEFF_NORMED)
            _, v, _, loc = cv2.minMaxLoc(sc - pen)
            dx = int(np.clip(loc[0] - m - 2, -m, m))
            dy = int(np.clip(loc[1] - m - 2, -m, m))
            r, _ = _residual(big_b[m + dy:m + dy + P, m + dx:m + dx + P], _blur(art, sig), close_cfg)
            rk = np.ones(big.shape[:2], np.float32)
            rk[m + dy + edge:m + dy + P - edge, m + dx + edge:m + dx + P - edge] = np.minimum(
                r[edge:P - edge, edge:P - edge], 1.0)
            fits[k] = (rk, dx, dy, art)
        # Pixels no tile compared explains (a figure, an ore token) cost every tile
        # alike: the misfit is the mean over the others, so that the tiles' own
        # differences are not diluted by how much of the cell figures hide.
        seen = np.min([f[0] for f in fits.values()], axis=0) < cfg.refit_hidden
        # Each pixel costs at most refit_cap: a detail the photo shows fainter
        # than the art draws it (a printed horse blurred by the lens) then
        # weighs no more than a detail the art lacks.
        mis = {}
        for k, (rk, dx, dy, _a) in fits.items():
            win = (slice(m + dy + edge, m + dy + P - edge), slice(m + dx + edge, m + dx + P - edge))
            vis = seen[win]
            q = np.minimum(rk[win], cfg.refit_cap)
            mis[k] = (float(q[vis].mean()) if vis.sum() >= 0.2 * vis.size else float(q.mean())) / cfg.refit_cap
        best = min(mis, key=lambda k: mis[k])
        if gi is None and cfg.refit_add_fitting > 0 and not fits_neighbours(*kinds[best], c, placed):
            # The tile added must meet the tiles read beside it (the caller checks again): of
            # those that do, the best, where it fits about as well as the best of all (a lying
            # meeple on the end of a rail leaves a mountain on three sides with and without it alike).
            fitting = min((k for k in mis if fits_neighbours(*kinds[k], c, placed)), key=mis.get, default=None)
            if fitting is not None and mis[fitting] <= mis[best] + cfg.refit_add_fitting:
                best = fitting
        if gi is None:
            _rk, dx, dy, _a = fits[best]
            hidden = 1.0 - float(seen[m + dy + edge:m + dy + P - edge, m + dx + edge:m + dx + P - edge].mean())
            worth = hidden >= cfg.refit_add_hidden or (plain and mis[best] <= cfg.refit_add_plain_close)
            if mis[best] > cfg.refit_add_close or not worth:
                continue
        elif best == gi or mis[gi] - mis[best] <= cfg.refit_margin:
            continue
        _rk, dx, dy, art = fits[best]
        A = t.A.copy()
        A[:, 2] += A[:, :2] @ np.array([dx, dy], dtype=np.float64)
        out[c] = {"tile": kinds[best][0], "rot": kinds[best][1], "A": A, "art": art, "misfit": round(mis[best], 4),
                  "coarse": round(float(coarse.min()), 4), "hidden": round(hidden, 4) if gi is None else 0.0,
                  "covered": round(covered, 4) if gi is None else 0.0,
                  "misfit_read": 1.0 if gi is None else round(mis[gi], 4)}
        if gi is None:
            out[c]["added"] = True
    if cfg.refit_table_ratio > 0 and len(table) >= cfg.refit_table_cells:
        level = cfg.refit_table_ratio * float(np.median([v[0] for v in table.values()]))
        for c, (off, best_coarse) in table.items():
            if off > max(cfg.refit_table_low, level):
                out[c] = {"removed": True, "table": round(off, 4), "coarse": round(best_coarse, 4)}
                looks.pop(c, None)  # as for a cell removed at once: not looked at as a tile
    read = [c for c in tiles if c not in empty]
    if read and all(out.get(c, {}).get("removed") for c in read):
        # Every tile looks like the table: nothing is left to tell the table by; the tile stage's reading stands.
        for c in read:
            del out[c]
    return out


def _table_like(r2: np.ndarray, cfg: FigureConfig) -> float:
    """How far the best of some tiles' arts leaves a cell's visible pixels: the least median residual.

    ``r2`` is (K, S, S) float32, the squared residual of the cell's small photo
    (``refit_px``) against K arts.  Pixels above ``refit_hidden`` are hidden
    (a figure, an ore stack) and left out, as in :func:`_refit`.  A tile fits
    the pixels a figure leaves visible closely (median below 0.21 on the
    development photos, blurred and turned ones and real art included; the
    median over a photo's cells about 0.03-0.1); a patch of table (a cloth's
    stripes or checks, a green play mat) that the tile stage took for a tile
    is off over most of it (0.16-0.9, four or more times its photo's
    median).  Returns 0.0 when less than ``refit_table_seen`` of the cell is
    visible against every art: too hidden to judge.
    """
    best = math.inf
    for rk in r2:
        vis = rk < cfg.refit_hidden ** 2
        if vis.mean() >= cfg.refit_table_seen:
            best = min(best, float(np.median(np.sqrt(rk[vis]))))
    return 0.0 if best == math.inf else best


# --------------------------------------------------------------------------- blobs


@dataclass
class _Blob:
    """A connected region of high residual: one figure or token (or a few touching)."""

    label: int
    uv: np.ndarray  # (N, 2) canvas pixels (u, v)
    xy: np.ndarray  # (N, 2) lattice points
    res: np.ndarray  # (N,) residual
    rgb: np.ndarray  # (N, 3) light-corrected colour, 0-255
    ratio: np.ndarray  # (N,) brightness photo / art
    info: dict = field(default_factory=dict)


def _find_blobs(res: np.ndarray, cover: np.ndarray, band: np.ndarray, cfg: FigureConfig, P: int,
                coloured: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Label the blobs of high residual (hysteresis, thin seams opened away, seams between tiles bridged).

    ``band`` marks the seams between tiles (no art to compare with there):
    blobs on both sides of a seam are joined through it, and the seam pixels
    themselves stay out of the blob (label 0).  ``coloured`` marks pixels of a
    figure's colour (:func:`_figure_colours`): a seam of the art has no such
    colour, so these are opened only by ``open_fig_px`` (a gold bar seen
    aslant is narrower than the opening that removes seams).
    """
    lo = ((res > cfg.residual_low) & (cover > 0.5)).astype(np.uint8)
    hi = (res >= cfg.residual_high).astype(np.uint8)  # pixels taken as figures by their colour are raised to it
    r = max(1, int(round(cfg.open_px * P)))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    opened = cv2.morphologyEx(lo, cv2.MORPH_OPEN, k)
    if coloured is not None and coloured.any():
        rf = max(1, int(round(cfg.open_fig_px * P)))
        kf = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rf + 1, 2 * rf + 1))
        opened |= cv2.morphologyEx(lo & coloured.astype(np.uint8), cv2.MORPH_OPEN, kf)
    lo = opened
    rb = max(1, int(round(cfg.bridge_px * P)))
    bridge = cv2.dilate(lo, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rb + 1, 2 * rb + 1))) & band
    n, lab = cv2.connectedComponents(lo | bridge, connectivity=8)
    lab[lo == 0] = 0
    if n <= 1:
        return lab, 0
    seeded = np.zeros(n, bool)
    seeded[np.unique(lab[(hi > 0) & (lo > 0)])] = True
    seeded[0] = False
    keep = np.zeros(n, np.int32)
    keep[seeded] = np.arange(1, seeded.sum() + 1)
    return keep[lab], int(seeded.sum())


def _measure(b: _Blob, cam: Camera, cfg: FigureConfig) -> dict[str, Any]:
    """Size, shape, height and colour cues of a blob (millimetres on the table).

    ``u`` is the unit direction on the table from the camera's nadir through
    the blob: parts above the table are thrown outwards along it, so the
    blob's near edge (``near``, tile units from the nadir) is its foot's edge.
    """
    mm = cfg.lattice_mm
    xy = b.xy
    c = xy.mean(axis=0)
    n = cam.nadir
    d = c - n
    dist = float(np.linalg.norm(d))
    u = d / dist if dist > 1e-6 else np.array([0.0, 1.0])
    v = np.array([-u[1], u[0]])
    s = (xy - n) @ u
    a = (xy - n) @ v
    s0, s1 = np.percentile(s, [2, 98])
    a0, a1 = np.percentile(a, [2, 98])
    H = max(cam.height, 1e-6)
    near = float(s0)

    def smear(h_mm: float) -> float:
        h = h_mm / mm
        return max(near, 0.0) * h / max(H - h, 1e-6) * mm

    cov = np.cov(xy.T) if len(xy) > 2 else np.eye(2) * 1e-6
    ev = np.sort(np.linalg.eigvalsh(cov))
    # Width profile along the radial direction: a tent or an ore stack is as wide
    # everywhere, a meeple is not (head, arms, legs).
    nb = 5
    edges = np.linspace(s0, s1, nb + 1)
    widths = []
    for i in range(nb):
        sel = (s >= edges[i]) & (s <= edges[i + 1])
        widths.append(float(np.ptp(a[sel])) if sel.sum() >= 2 else 0.0)
    widths = np.array(widths)
    wvar = float(widths.std() / max(widths.mean(), 1e-6))
    fill = len(xy) * (1.0 / cfg.px) ** 2 / max((s1 - s0) * (a1 - a0), 1e-6)
    core = b.res > cfg.residual_high
    rgb = b.rgb[core] if core.sum() >= 5 else b.rgb
    med = np.median(rgb, axis=0)
    luma = rgb.mean(axis=1)
    return {
        "n": len(xy),
        "area": len(xy) * (mm / cfg.px) ** 2,
        "radial": float(s1 - s0) * mm,
        "across": float(a1 - a0) * mm,
        "smear16": smear(16.0),
        "smear8": smear(8.0),
        "elong": float(math.sqrt(max(ev[1], 1e-12) / max(ev[0], 1e-12))),
        "near": near,
        "dist": dist,
        "u": u,
        "a_mid": float(np.median(a)),
        "rgb": med,
        "dark": float((luma < 60).mean()),
        "bright": float((luma > 200).mean()),
        "peak": float(b.res.max()),
        "wvar": wvar,
        "fill": float(fill),
        "lum_cv": float(luma.std() / max(luma.mean(), 1e-6)),
        "centre": c,
    }


def _shape(b: _Blob) -> dict[str, float]:
    """Shape of a blob's pixel set (canvas pixels).

    ``convexity`` = pixels / pixels of the filled convex hull; ``rectangularity``
    = pixels / area of the smallest rotated rectangle around them;
    ``circularity`` = pixels / area of the smallest circle around them.
    """
    uv = b.uv.astype(np.int32)
    lo = uv.min(axis=0) - 1
    hi = uv.max(axis=0) + 2
    m = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
    m[uv[:, 1] - lo[1], uv[:, 0] - lo[0]] = 1
    area = float(len(uv))
    pts = (uv - lo).astype(np.int32)
    hull = cv2.convexHull(pts)
    hm = np.zeros_like(m)
    cv2.fillConvexPoly(hm, hull, 1)
    ha = max(float(hm.sum()), 1.0)
    (w, h) = cv2.minAreaRect(pts.astype(np.float32))[1]
    ra = (w + 1.0) * (h + 1.0)
    r = cv2.minEnclosingCircle(pts.astype(np.float32))[1] + 0.5
    return {"convexity": float(min(1.0, area / ha)), "rectangularity": float(min(1.0, area / max(ra, 1.0))),
            "circularity": float(min(1.0, area / (math.pi * r * r)))}


#: Colour classes a single figure's pixels may spread over (index into SEGMENT_CLASSES -> group id).
_GROUP = {"gold": 100, "gold_light": 100, "yellow": 100, "black": 101, "grey": 101}


def _seam_filled(b: _Blob, band: np.ndarray | None, cfg: FigureConfig, grow: bool = False
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The blob's mask in a window of the canvas, with the seams it spans filled in.

    The seams between tiles (``band``) are left out of every blob (there is
    no art to compare with), so a figure standing across one is cut in two;
    its parts are joined again through the seam pixels with the blob on
    both sides along a row or a column within ``1.5 bridge_px``, so that a
    seam is taken neither for the waist between two figures nor for the
    border between two regions of one colour.

    Returns
    -------
    lo : (2,) int ndarray
        Canvas pixel ``(u, v)`` of the window's top-left corner.
    mask : (h, w) uint8 ndarray
        The blob's own pixels.
    filled : (h, w) uint8 ndarray
        ``mask`` plus the seam pixels joining its parts (with ``grow``, also
        every seam pixel within that reach of the blob: the seam may hide it).
    """
    rb = max(1, int(round(1.5 * cfg.bridge_px * cfg.px)))  # seams up to 3 bridge_px wide are filled
    uv = b.uv.astype(np.int32)
    lo = uv.min(axis=0) - 1 - rb
    hi = uv.max(axis=0) + 2 + rb
    m = np.zeros((hi[1] - lo[1], hi[0] - lo[0]), np.uint8)
    m[uv[:, 1] - lo[1], uv[:, 0] - lo[0]] = 1
    if band is None:
        return lo, m, m
    H, W = band.shape
    win = np.zeros_like(m)
    x0, y0 = max(lo[0], 0), max(lo[1], 0)
    x1, y1 = min(hi[0], W), min(hi[1], H)
    if x0 < x1 and y0 < y1:
        win[y0 - lo[1]:y1 - lo[1], x0 - lo[0]:x1 - lo[0]] = band[y0:y1, x0:x1]
    if not win.any():
        return lo, m, m
    # Seams run along the lattice: a seam pixel with the blob on both sides of it
    # (across a row or a column) is filled.
    closed = (cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((2 * rb + 1, 1), np.uint8))
              | cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((1, 2 * rb + 1), np.uint8)))
    if grow:
        # The seam may hide the blob's continuation: seam pixels within reach of it count as its own.
        closed |= cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rb + 1, 2 * rb + 1)))
    return lo, m, m | (closed & win)


def _split(b: _Blob, cfg: FigureConfig, band: np.ndarray | None = None) -> list[_Blob]:
    """Split a blob of touching figures of different colours into one part per colour region.

    Every pixel takes its nearest colour class
    (:data:`scorer.vision.colour.SEGMENT_CLASSES`), the class map is smoothed,
    and each connected region of one class is a part; regions smaller than
    ``cfg.min_part_mm2`` go to the part they touch most.  Regions of one class
    are connected through the seams between tiles (``band``, see
    :func:`_seam_filled`).
    """
    from . import colour

    if len(b.uv) < 8:
        return [b]
    labels = colour.segment_labels(b.rgb)
    # Shading moves a colour within its group (a yellow figure's lit side looks
    # golden, a black figure's highlight grey): split only between groups.
    labels = np.array([_GROUP.get(colour.SEGMENT_CLASSES[k], k) for k in labels])
    classes = np.unique(labels)
    if len(classes) == 1:
        return [b]
    uv = b.uv.astype(np.int32)
    lo, inside, filled = _seam_filled(b, band, cfg)
    shape = inside.shape
    # Smooth the class map: each pixel takes the class most present around it.
    sig = max(0.8, 0.015 * cfg.px)
    votes = np.zeros((len(classes),) + shape, np.float32)
    for k, c in enumerate(classes):
        m = np.zeros(shape, np.float32)
        sel = labels == c
        m[uv[sel, 1] - lo[1], uv[sel, 0] - lo[0]] = 1.0
        votes[k] = cv2.GaussianBlur(m, (0, 0), sig)
    best = np.argmax(votes, axis=0)
    pix_area = (cfg.lattice_mm / cfg.px) ** 2
    min_px = cfg.min_part_mm2 / pix_area
    parts: list[np.ndarray] = []  # masks
    for k in range(len(classes)):
        m = ((best == k) & (filled > 0)).astype(np.uint8)
        n, lab = cv2.connectedComponents(m, connectivity=8)
        for j in range(1, n):
            part = (lab == j) & (inside > 0)
            if part.any():
                parts.append(part)
    if len(parts) <= 1:
        return [b]
    sizes = np.array([p.sum() for p in parts])
    big = [i for i in range(len(parts)) if sizes[i] >= min_px]
    if len(big) <= 1:
        return [b]
    owner = np.full(shape, -1, np.int32)
    for i in big:
        owner[parts[i]] = i
    # Small regions join the big part that surrounds them most.
    small = [i for i in range(len(parts)) if i not in big]
    k3 = np.ones((3, 3), np.uint8)
    for i in sorted(small, key=lambda i: -sizes[i]):
        ring = cv2.dilate(parts[i].astype(np.uint8), k3) > 0
        touch = owner[ring & ~parts[i]]
        touch = touch[touch >= 0]
        if len(touch):
            owner[parts[i]] = int(np.bincount(touch).argmax())
    # Pixels still without an owner (isolated small bits) go to the nearest big part.
    if (owner[inside > 0] < 0).any():
        dist = np.full(shape, np.inf)
        nearest = np.full(shape, -1, np.int32)
        for i in big:
            d = cv2.distanceTransform((owner != i).astype(np.uint8), cv2.DIST_L2, 3)
            closer = d < dist
            dist[closer] = d[closer]
            nearest[closer] = i
        fill = (owner < 0) & (inside > 0)
        owner[fill] = nearest[fill]
    pix_owner = owner[uv[:, 1] - lo[1], uv[:, 0] - lo[0]]
    out = []
    for i in big:
        sel = pix_owner == i
        if sel.sum() < 3:
            continue
        out.append(_Blob(b.label, b.uv[sel], b.xy[sel], b.res[sel], b.rgb[sel], b.ratio[sel]))
    return out or [b]


def _split_lobes(b: _Blob, cfg: FigureConfig, band: np.ndarray | None = None) -> list[_Blob]:
    """Split a large blob made of two touching figures of one colour at its waist.

    The distance transform of the blob has one peak per roughly convex lobe;
    two peaks far enough apart, with a waist between them much narrower than
    both, are two figures (a tent beside a cowboy of its colour, a black
    figure beside an ore stack).  Pixels go to the nearer peak.  The seams
    between tiles the blob spans (``band``) are filled in first
    (:func:`_seam_filled`): a figure standing across a seam is one lobe.
    """
    P = cfg.px
    pix_mm2 = (cfg.lattice_mm / P) ** 2
    if len(b.uv) * pix_mm2 < cfg.lobe_min_mm2:
        return [b]
    uv = b.uv.astype(np.int32)
    lo, _, m = _seam_filled(b, band, cfg, grow=True)
    dt = cv2.distanceTransform(m, cv2.DIST_L2, 5)
    r = max(2, int(round(cfg.lobe_gap * P / 2)))
    peaks = (dt >= cv2.dilate(dt, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))) & (dt >= 0.05 * P)
    ys, xs = np.nonzero(peaks)
    if len(xs) < 2:
        return [b]
    order = np.argsort(-dt[ys, xs])
    pts: list[tuple[int, int]] = []
    for k in order:
        p = (int(xs[k]), int(ys[k]))
        if all(math.hypot(p[0] - q[0], p[1] - q[1]) >= cfg.lobe_gap * P for q in pts):
            pts.append(p)
        if len(pts) == 2:
            break
    if len(pts) < 2:
        return [b]
    (x1, y1), (x2, y2) = pts
    t = np.linspace(0.0, 1.0, 25)
    line = dt[np.round(y1 + (y2 - y1) * t).astype(int), np.round(x1 + (x2 - x1) * t).astype(int)]
    if line.min() > cfg.lobe_waist * min(dt[y1, x1], dt[y2, x2]):
        return [b]
    loc = (uv - lo).astype(np.float64)
    d1 = np.hypot(loc[:, 0] - x1, loc[:, 1] - y1) / max(dt[y1, x1], 1.0)
    d2 = np.hypot(loc[:, 0] - x2, loc[:, 1] - y2) / max(dt[y2, x2], 1.0)
    out = []
    for sel in (d1 <= d2, d1 > d2):
        if sel.sum() * pix_mm2 >= cfg.min_part_mm2:
            out.append(_Blob(b.label, b.uv[sel], b.xy[sel], b.res[sel], b.rgb[sel], b.ratio[sel]))
    return out if len(out) == 2 else [b]


# --------------------------------------------------------------------------- locations


#: Height of a standing cowboy or the Sheriff, mm (the real components, :mod:`scorer.render.figures3d`).
_FIGURE_HEIGHT_MM = 16.0

#: Empirical distance (mm) from a blob's near edge to the figure's foot, per kind:
#: half the depth of the base, less what the blur and threshold take off the edge
#: (measured on synthetic photos).
_FOOT_INSET_MM = {"meeple": 4.5, "farmer": 5.2, "tent": 6.1, "ore": 4.5, "gold": 3.6, "sheriff": 4.1}

#: Feature kinds each figure kind may stand on (``rules.md`` sections 5-7).
_STANDS_ON = {
    "meeple": ("city", "road", "cloister", "mountain", "rail", "town", "cemetery"),
    "farmer": FIELD_KINDS,
    "tent": ("mountain",),
    "sheriff": ("mountain",),
    "ore": ("mountain",),
    "any": KINDS,
}


#: The solid figures that stand on a mountain (rules.md sections 6 and 7).
_MOUNTAIN_SOLIDS = ("meeple", "tent", "sheriff")


def _feature_locations(tile: TileType, rot: int, kinds: Sequence[str]) -> list[tuple[int, str]]:
    """``(feature index, location)`` for every location of a feature of ``kinds`` on the turned tile."""
    o = tile.turned(rot)
    out = []
    for i, f in enumerate(o.features):
        if f.kind not in kinds:
            continue
        if f.edges:
            out.extend((i, e) for e in f.edges)
        else:
            out.append((i, CENTRE))
    return out


def _spot(at: str, kind: str, spread: float, ore_spot: tuple = ()) -> np.ndarray:
    """Where a figure of ``kind`` on location ``at`` usually stands, as fractions of the tile.

    The location's anchor plus the kind's offset (``topdown.FIGURE_OFFSETS``)
    times ``spread``; an ore stack lies at ``ore_spot`` (``(across, inward)``,
    tile fractions) from the anchor, on the mountain, when one is given.
    Returns float64 ``(2,)``: ``(fx, fy)``.
    """
    from ..render.topdown import FIGURE_OFFSETS, LOCATION_ANCHORS, offset_axes

    ax, ay = LOCATION_ANCHORS[at]
    across, inward = FIGURE_OFFSETS.get({"farmer": "meeple"}.get(kind, kind), (0.0, 0.0))
    (ix, iy), (cx, cy) = offset_axes(at)
    across, inward = spread * across, spread * inward
    if kind == "ore" and ore_spot:
        across, inward = ore_spot
    return np.clip(np.array([ax + across * cx + inward * ix, ay + across * cy + inward * iy]), 0.12, 0.88)


def _locate(frac: np.ndarray, tile: TileType, rot: int, kind: str, cfg: FigureConfig, spots: Sequence[str] = ()
            ) -> tuple[str, float, list[dict[str, Any]], float] | None:
    """The location of a figure whose foot is at ``frac`` (fractions of its tile).

    The distance is to the location's spot for ``kind`` or, nearer, for any of
    the kinds ``spots`` (where a figure of another kind would stand there).

    Returns
    -------
    (at, confidence, alternatives, distance) or None
        ``None`` when the tile has no feature the figure may stand on.
        ``alternatives`` are other features' best locations with their
        probabilities; ``distance`` (tile units) from the foot to the chosen spot.
    """
    locs = _feature_locations(tile, rot, _STANDS_ON[kind])
    if not locs:
        return None
    best: dict[int, tuple[float, str]] = {}
    for idx, at in locs:
        d = min(float(np.linalg.norm(_spot(at, k, cfg.offset_spread, tuple(cfg.ore_spot)) - frac))
                for k in (kind, *spots))
        if idx not in best or d < best[idx][0]:
            best[idx] = (d, at)
    items = sorted(best.values())
    d = np.array([t[0] for t in items])
    z = -(d * d) / (2 * cfg.location_sigma ** 2)
    z -= z.max()
    p = np.exp(z)
    p /= p.sum()
    alts = [{"at": items[k][1], "confidence": round(float(p[k]), 3)} for k in range(1, len(items)) if p[k] >= 0.01]
    return items[0][1], float(p[0]), alts, float(d[0])


def _locate_read(frac: np.ndarray, t: _Tile, given: Mapping[Cell, tuple[TileType, int]], kind: str,
                 cfg: FigureConfig, spots: Sequence[str] = ()) -> tuple[str, float, list[dict[str, Any]], float] | None:
    """:func:`_locate` on the tile found at the cell, as a location the tile read there has.

    Where the second look replaced the tile read (:func:`_refit`), the location
    found on the better tile is kept when the tile read has a feature there,
    else the figure goes to the nearest location of the tile read, among the
    features it may stand on or, failing those, any feature.
    """
    loc = _locate(frac, t.tile, t.rot, kind, cfg, spots)
    read = given.get(t.cell)
    if read is None or (read[0].id, read[1]) == (t.tile.id, t.rot):
        return loc
    if loc is not None and read[0].turned(read[1]).locate(loc[0]) is not None:
        return loc
    alt = _locate(frac, read[0], read[1], kind, cfg, spots)
    if alt is None and loc is not None:
        alt = _locate(frac, read[0], read[1], "any", cfg)
        if alt is not None:
            alt = (alt[0], alt[1], alt[2], loc[3])
    return alt


def _tile_at(foot_uv: np.ndarray, tiles: dict[Cell, _Tile], canvas: _Canvas) -> tuple[_Tile, np.ndarray] | None:
    """The registered tile under a canvas point, and the point as fractions of it.

    A point in the seam between tiles goes to the tile it is nearest to.
    """
    lat = canvas.to_lattice(foot_uv)[0]
    cx, cy = int(math.floor(lat[0])), int(math.floor(lat[1]))
    best = None
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            t = tiles.get((cx + dx, cy + dy))
            if t is None:
                continue
            f = t.canvas_to_frac(foot_uv, canvas.px)[0]
            out = float(np.max(np.maximum(np.maximum(-f, f - 1.0), 0.0)))
            if best is None or out < best[0]:
                best = (out, t, f)
    if best is None or best[0] > 0.08:
        return None
    return best[1], np.clip(best[2], 0.0, 1.0)


def _locate_foot(foot: np.ndarray, kind: str, tiles: dict[Cell, _Tile], canvas: _Canvas,
                 given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig
                 ) -> tuple[_Tile, np.ndarray, tuple[str, float, list[dict[str, Any]], float] | None] | None:
    """The tile under a fitted outline's ``foot`` (lattice point, (2,)), the foot as fractions of
    it, and :func:`_locate_read`'s location of a figure of ``kind`` there; ``None`` off the tiles."""
    at = _tile_at(canvas.to_canvas(np.asarray(foot, dtype=np.float64)[None]), tiles, canvas)
    if at is None:
        return None
    return at[0], at[1], _locate_read(at[1], at[0], given, kind, cfg)


# --------------------------------------------------------------------------- public entry


def read_figures(rgb: np.ndarray, grid: Grid, placements: Mapping[Cell, tuple[TileType, int]],
                 cfg: FigureConfig | None = None, *, players: Sequence[str] | None = None,
                 game: str = "carcassonne", art_dir: Any = None, appearance: Any = None,
                 catalog: Any = None, adopt_tiles: bool = False, add_tiles: bool = False) -> FigureReading:
    """Find every figure and token on the tiles of a photo.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB, the pixels ``grid`` maps.
    grid : Grid
        The tile lattice (:func:`scorer.vision.grid.find_grid`).
    placements : dict (x, y) -> (TileType, int)
        The tile and rotation read on each lattice cell
        (:func:`scorer.vision.recognise.read_tiles`).
    cfg : FigureConfig, optional
        Thresholds (default: ``config.toml`` section ``[figures]``).
    players : list of str, optional
        The player colours (``board-format.md``, ``players``): figure colours
        are read among these only.
    game : {"carcassonne", "goldrush"}
        Which figures can be on the table: followers and Goldmines gold bars
        (``carcassonne``), or cowboys, tents, the Sheriff and ore tokens
        (``goldrush``).
    art_dir : path, optional
        Real tile art to compare the photo with (development and evaluation).
    appearance : Appearance, optional
        Calibrated tile pictures (:mod:`scorer.vision.appearance`).
    catalog : Catalog, optional
        The tiles that may be on the table (:func:`scorer.tiles.catalog_for`),
        for the second look at the tiles (``cfg.refit``); default: every
        built-in set of ``game``.
    adopt_tiles : bool
        The caller takes the second look's tiles (``FigureReading.tiles``) in
        place of those read: figures there keep the location found on the
        better tile.  Otherwise their ``at`` is a location of the tile read.
    add_tiles : bool
        Also compare the cells beside the tiles read that lie wholly inside
        the photo with every catalogue tile: a tile found there (a figure or
        an ore stack hid it from the tile stage) is reported in
        ``FigureReading.tiles`` with ``"added": True``, and figures on it are
        read.  A tile read that looks like the table rather than any tile is
        reported with ``"removed": True`` and no figure is read on it.  The
        caller must then add and remove those tiles on its board.

    Returns
    -------
    FigureReading
        Meeples (with ``pose``), tents, the Sheriff, gold bars and ore stacks,
        each with its cell, location and confidences.

    Raises
    ------
    ScorerError
        ``rgb`` is not an RGB image, ``game`` is unknown, a colour in
        ``players`` is unknown.
    """
    from . import colour

    cfg = cfg or FigureConfig()
    if not isinstance(rgb, np.ndarray) or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ScorerError("read_figures: the photo must be an (H, W, 3) RGB array")
    if game not in ("carcassonne", "goldrush"):
        raise ScorerError(f"read_figures: unknown game {game!r}; expected carcassonne or goldrush")
    allowed = colour.allowed_colours(players, game)
    out = FigureReading()
    if not placements:
        return out
    t0 = time.perf_counter()
    cam = camera_from_grid(grid, cfg)
    P = cfg.px
    placements = {tuple(map(int, c)): (t, int(r) % 4) for c, (t, r) in placements.items()}
    canvas = _make_canvas(placements, P)
    rect = _rectify(rgb, grid, canvas, cfg)
    arts = {c: _art(t, r, P, art_dir, appearance) for c, (t, r) in placements.items()}
    t1 = time.perf_counter()
    tiles = _register(rect, canvas, placements, arts, cfg)
    exp, cover, _ = _compose(canvas, tiles, arts, cfg.border)
    t2 = time.perf_counter()
    norm, res, ratio = _light_residual(rect, exp, cover, cfg)
    t_light = time.perf_counter()
    refits: dict[Cell, dict[str, Any]] = {}
    # The tiles a cell may hold, for the second look and the twin check.
    candidates = _candidate_tiles(placements, game, catalog) if cfg.refit or game in cfg.twin_check else []
    if cfg.refit:
        looks: dict[Cell, dict[str, float]] = {}
        empty = _empty_beside(tiles, canvas, grid) if add_tiles else None
        refits = _refit(rect, exp, cover, res, canvas, tiles, candidates, cfg,
                        art_dir, appearance, looks, empty)
        out.debug["looks"] = looks
        out.unreadable = sorted(c for c, v in looks.items() if v["best"] > cfg.max_misfit)
        for c, f in refits.items():
            if f.get("removed"):
                # A patch of table read as a tile: no figure is read on it.
                out.tiles[c] = {"removed": True, "table": f["table"], "coarse": f["coarse"]}
                del tiles[c], arts[c]
                continue
            tiles[c] = _Tile(c, f["tile"], f["rot"], f["A"], tiles[c].score if c in tiles else 0.0)
            arts[c] = f["art"]
            out.tiles[c] = {"tile": f["tile"].id, "rot": f["rot"], "misfit": f["misfit"],
                            "misfit_read": f["misfit_read"]}
            if f.get("added"):
                out.tiles[c].update(added=True, coarse=f["coarse"], hidden=f["hidden"], covered=f["covered"])
        if refits:
            exp, cover, _ = _compose(canvas, tiles, arts, cfg.border)
            norm, res, ratio = _light_residual(rect, exp, cover, cfg)
        if out.unreadable:
            gone = np.zeros(res.shape, np.uint8)
            for c in out.unreadable:
                cv2.fillConvexPoly(gone, np.round(tiles[c].art_to_canvas(
                    np.array([[-1, -1], [P, -1], [P, P], [-1, P]], dtype=np.float64))).astype(np.int32), 1)
            res[gone > 0] = 0.0
            cover[gone > 0] = 0.0
    t_refit = time.perf_counter()
    if game == "carcassonne":
        # Gold Rush art holds every figure colour's look-alike (nuggets, sand, dark
        # rock): there the colour alone is no evidence.
        coloured = _figure_colours(res, norm, allowed, cfg)
    else:
        coloured = None
    e = int(round(cfg.border * P)) + 3
    board = cv2.morphologyEx((cover > 0).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((2 * e + 1, 2 * e + 1), np.uint8))
    band = board & (cover == 0).astype(np.uint8)
    lab, n = _find_blobs(res, cover, band, cfg, P, coloured)
    t3 = time.perf_counter()
    blobs = _collect(lab, n, canvas, norm, res, ratio)
    cands = []
    pix_mm2 = (cfg.lattice_mm / P) ** 2
    for b in blobs:
        for part in (q for p in _split(b, cfg, band) for q in _split_lobes(p, cfg, band)):
            if not cfg.min_gold_mm2 <= len(part.uv) * pix_mm2 <= cfg.max_area_mm2:
                continue
            part.info = _measure(part, cam, cfg)
            part.info.update(_shape(part))
            cands.append(part)
    # Which candidate owns each pixel: a candidate's outline is matched only
    # against its own pixels and free ones, not its neighbours'.  Off the board
    # (the table, -1) a cloth may have any figure's colour (see _match_shapes).
    owner = np.zeros(lab.shape, np.int32)
    owner[board == 0] = -1
    for k, part in enumerate(cands):
        part.info["_id"] = k + 1
        owner[part.uv[:, 1].astype(int), part.uv[:, 0].astype(int)] = k + 1
    _classify(cands, tiles, canvas, cam, cfg, game, allowed, norm, res, owner, out, {} if adopt_tiles else placements,
              exp=exp)
    hide = _figure_outlines(out, canvas, cam, cfg) if game in cfg.twin_check else None
    if hide is not None:
        for c, (u, r, mis) in _recheck_twins(out, tiles, canvas, hide, norm, candidates, cfg, art_dir,
                                             appearance).items():
            _take_twin(out, tiles, c, u, r, mis)
    over = _beyond_box(tiles, placements) if game in cfg.box_check else []
    if over:
        if hide is None:
            hide = _figure_outlines(out, canvas, cam, cfg)
        for c, (u, r, mis) in _settle_twins(out, tiles, over, canvas, hide, norm, candidates, cfg, art_dir,
                                            appearance).items():
            if c in out.tiles and not out.tiles[c].get("added") and c in placements \
                    and (placements[c][0].id, placements[c][1]) == (u.id, r):
                tiles[c] = _Tile(c, u, r, tiles[c].A, tiles[c].score)
                del out.tiles[c]  # back to the tile stage's reading
            else:
                _take_twin(out, tiles, c, u, r, mis)
    crowded = _crowded_cells(out, cfg)
    if crowded:
        log.debug("figures: cells %s hold more than %d figures of one colour: read as the table", crowded,
                  cfg.max_colour_figures)
        _drop_cells(out, crowded)
    t4 = time.perf_counter()
    out.debug = {
        **out.debug,
        "seconds": {"rectify": t1 - t0, "register": t2 - t1, "residual": t3 - t2 - (t_refit - t_light),
                    "refit": t_refit - t_light, "classify": t4 - t3},
        "camera": {"f": float(cam.K[0, 0]), "height": cam.height, "nadir": cam.nadir.tolist()},
        "blobs": n,
        "candidates": [b.info for b in cands],
        "canvas": canvas,
        "tiles": tiles,
        "pictures": {"photo": norm, "expected": exp, "residual": res, "labels": lab},
    }
    log.debug("figures: %d meeples, %d tents, sheriff %s, %d gold stacks, %d ore stacks from %d blobs in %.2f s",
              len(out.meeples), len(out.tents), out.sheriff is not None, len(out.gold), len(out.ore), n, t4 - t0)
    return out


def _recheck_twins(out: FigureReading, tiles: dict[Cell, _Tile], canvas: _Canvas, hide: np.ndarray,
                   norm: np.ndarray, candidates: Sequence[TileType], cfg: FigureConfig, art_dir: Any,
                   appearance: Any) -> dict[Cell, tuple[TileType, int, tuple[float, float] | float]]:
    """Cells whose tile a twin explains clearly better where the figures found on it leave them apart.

    Twins are tiles with the same sides that differ in a small picture (an
    Indian camp or wild horses, a Sheriff star).  A figure lying on that picture hides what tells them
    apart, and the tile stage grows what it hides round the figure and its
    shadow, so a sliver beside the figure is lost.  Here the figures are
    known: the outlines of the solids read (``hide``: :func:`_figure_outlines`)
    hide the pixels they cover.
    For each cell such an outline touches, the tile there is compared with
    each catalogue tile (another id) whose sides turned some way are the
    same: over the pixels where the two arts differ (``twin_diff``) and no
    outline lies, each art's mean residual (:func:`_residual`, shadows down
    to ``refit_shadow_min``, each pixel capped at ``refit_cap``) at its best
    drift within ``twin_shift`` (a drift leaving fewer than ``twin_keep`` of
    those pixels visible does not count).  A twin whose misfit is lower by
    more than ``twin_margin`` replaces the tile (the largest such gain), when
    at least ``twin_min_px`` pixels are compared, every figure on the cell
    stands on a feature of the same kind on it, and the tiles read hold
    fewer copies of the twin than the box (``rules.md``, tile catalogues: a
    twin beyond them would make the board take back another copy, often a
    right one).  Where the figures hide what tells the tile read from a
    twin (:func:`_twin_misfits` gives ``()``) and no twin wins by its
    picture, the tile drawn was any copy not on the table elsewhere: the
    twin with the most such copies is taken when they are more than
    ``twin_prior`` times the tile read's (the board's counts as read,
    this cell left out, once the twins seen are taken; ``rules.md``, tile
    catalogues), its share of the two reported as ``share``; a tile read
    beyond the box is left to :func:`_settle_twins`.  On 400 Gold Rush
    development photos read from the tile stage's tiles (seeds 9951001,
    9957001, 9958001), tiles wrong after the figure stage 59 -> 56 (4 camp /
    wild horses tiles mended, 1 broken: a star tile SH5 under a figure taken
    for one of the GR16); twice as many copies enough (2 against 1): 54 (6
    mended, 1 broken), and photo 48 of seed 9926001 broken (SH5 again); any
    majority, taken cell by cell: 56 (9 mended, 6 broken).  The procedural arts are
    drawn :data:`ART_OVERSAMPLE` times larger and shrunk, as a photo sees a
    print (drawn at 64 pixels a horse's legs are bolder than in a photo, and
    the comparison favoured the camp).

    It runs for the games in ``twin_check``: Gold Rush, where the twins
    differ in pictures on the prairie that lying farmers cover.  In base the
    river twins are drawn nearly alike and the pennant look-alikes differ on
    city walls the tile stage sees well: on 250 development photos (seeds
    9951002, 9952002) it misread 26 -> 36 tiles, so base is left out.

    Whole readings of 600 Gold Rush development photos (seeds 9951001,
    9952001, 9953001, 9954001; 150 each): tiles misread 166 -> 140 of 31,043,
    boards with every tile right 81.2 -> 84.0%, the figures as before (23
    photos better, none worse); without the box counts 147 and 83.5% (24
    better, 6 worse).  On 104 of those photos (64 with a twin misread), the
    comparison with the art drawn at size would have mended 20 tiles and
    broken 144; with the art drawn large, 18 and 1.

    Parameters
    ----------
    out : FigureReading
        The figures read (``meeples``, ``tents``, ``sheriff`` and ``ore``
        for their locations).
    tiles : dict (x, y) -> _Tile
        The registered tiles (after the second look, :func:`_refit`).
    canvas : _Canvas
        The top-down picture.
    hide : (H, W) uint8 ndarray
        The figures' outlines in it (:func:`_figure_outlines`, from
        ``out.debug["solids"]``), 1 hidden.
    norm : (H, W, 3) float32 ndarray
        The light-corrected top-down photo, 0-255.
    candidates : list of TileType
        The tiles a cell may hold (:func:`_candidate_tiles`).

    Returns
    -------
    dict cell -> (TileType, rot, (misfit of the tile read, misfit of the twin) or share)
        ``share`` (float, 0-1): the twin's share of the copies of the two not
        on the table elsewhere, where the figures hide what tells them apart.
    """
    if not hide.any():
        return {}
    P = canvas.px
    at = figure_locations(out)
    by_sides = _by_sides(candidates)
    edge = int(round(cfg.border * P)) + 2
    inner = np.zeros((P, P), bool)
    inner[edge:P - edge, edge:P - edge] = True
    found: dict[Cell, tuple[TileType, int, tuple[float, float] | float]] = {}
    held = Counter(t.tile.id for t in tiles.values())  # no tile is on the table more often than the box holds
    unseen: list[tuple[Cell, _Tile, list[tuple[TileType, int]]]] = []
    for c, t in tiles.items():
        Ai = cv2.invertAffineTransform(t.A)
        if not cv2.warpAffine(hide, Ai, (P, P), flags=cv2.INTER_NEAREST)[inner].any():
            continue
        twins = [(u, r) for u, r in _twins_of(t, by_sides, at.get(c, ())) if held[u.id] < u.count]
        if not twins:
            continue
        best = None
        hidden = []
        for u, r, mis in _twin_misfits(t, twins, hide, canvas, norm, cfg, art_dir, appearance):
            log.debug("figures: twin check at %s: %s rot %d against %s rot %d: %s", c, t.tile.id, t.rot, u.id, r,
                      "hidden" if mis == () else mis)
            if mis == ():
                hidden.append((u, r))
            if not mis:
                continue
            gain = mis[0] - mis[1]
            if gain > cfg.twin_margin and (best is None or gain > best[0]):
                best = (gain, u, r, mis)
        if best is not None:
            _, u, r, mis = best
            log.debug("figures: twin check at %s: %s rot %d explains the pixels the figures leave better than "
                      "%s rot %d (misfit %.3f against %.3f)", c, u.id, r, t.tile.id, t.rot, mis[1], mis[0])
            found[c] = (u, r, mis)
            held[t.tile.id] -= 1
            held[u.id] += 1
        elif hidden:
            unseen.append((c, t, hidden))
    if not math.isfinite(cfg.twin_prior):
        return found
    # Nothing seen tells them apart: the tile drawn was any copy not on the table elsewhere, so
    # the twin with more such copies is the likelier (once the pictures seen have settled theirs;
    # a tile read beyond the box is left to the settling by the pictures, _settle_twins).
    for c, t, hidden in unseen:
        left = {u.id: u.count - held[u.id] for u, _ in hidden} | {t.tile.id: t.tile.count - held[t.tile.id] + 1}
        u, r = max(hidden, key=lambda ur: left[ur[0].id])
        if left[t.tile.id] >= 1 and left[u.id] > cfg.twin_prior * left[t.tile.id]:
            log.debug("figures: twin check at %s: the figures hide what tells %s from %s; %d copies of the twin "
                      "are not on the table elsewhere, %d of the tile read", c, t.tile.id, u.id, left[u.id],
                      left[t.tile.id])
            found[c] = (u, r, round(left[u.id] / (left[u.id] + left[t.tile.id]), 3))
            held[t.tile.id] -= 1
            held[u.id] += 1
    return found


def _settle_twins(out: FigureReading, tiles: dict[Cell, _Tile], over: Sequence[tuple[str, int]], canvas: _Canvas,
                  hide: np.ndarray, norm: np.ndarray, candidates: Sequence[TileType], cfg: FigureConfig,
                  art_dir: Any, appearance: Any) -> dict[Cell, tuple[TileType, int, tuple[float, float]]]:
    """Which copy of a tile held more often than the box holds is a twin: the one whose picture says so.

    No tile is on the table more often than the box holds (``rules.md``, tile
    catalogues).  The second look may read a tile that the tile stage read
    elsewhere as often as the box holds (its small art draws the pictures
    that tell twins apart bolder than a photo shows them, and takes a wild
    horses tile for the picture-less one).  Of the cells holding such a tile,
    each twin (the same sides turned some way, every figure on the cell on a
    feature of the same kind, fewer copies held than the box) is compared
    with the tile read over the pixels where the two arts differ and no
    figure's outline (``hide``) lies (:func:`_twin_misfits`, the arts drawn
    large); the twin that explains them best relative to the tile read
    replaces it, until the tile is within the box.  The gain may be below
    nought down to ``box_gain_min`` (a blurred photo shows the picture fainter
    than the art, and a copy must be turned anyway; the copies that are the
    tile read lose 0.18-0.33 against SH4 on photo 114 of seed 9951001, the
    SH4 read as GR07 0.06); where no twin comes that close
    the board's box settling (:func:`scorer.vision.pipeline._settle_box`)
    decides.  A tile the tile stage itself read beyond the box (a user's
    second box) is left alone.

    On the development photos of seeds 9951001 (Gold Rush + Sheriff) and
    9951002 (base + River + Goldmines), 150 each: tiles misread 25 -> 21 and
    17 -> 13, boards with every tile right 86.0 -> 87.3% and 89.3 -> 91.3%,
    none worse (a gain above nought only: 23 on the Gold Rush photos; any
    gain: 22, one photo worse).

    Parameters
    ----------
    out : FigureReading
        The figures read (their locations).
    tiles : dict (x, y) -> _Tile
        The registered tiles (after the second look and the twin check).
    over : list of (str, int)
        The tiles held beyond the box and how many copies each may keep
        (:func:`_beyond_box`).
    canvas : _Canvas
        The top-down picture.
    hide : (H, W) uint8 ndarray
        The figures' outlines in it (:func:`_figure_outlines`), 1 hidden.
    norm : (H, W, 3) float32 ndarray
        The light-corrected top-down photo, 0-255.
    candidates : list of TileType
        The tiles a cell may hold (:func:`_candidate_tiles`).

    Returns
    -------
    dict cell -> (TileType, rot, (misfit of the tile read, misfit of the twin))
    """
    held = Counter(t.tile.id for t in tiles.values())
    at = figure_locations(out)
    by_sides = _by_sides(candidates)
    found: dict[Cell, tuple[TileType, int, tuple[float, float]]] = {}
    gains: dict[Cell, list[tuple[float, TileType, int, tuple[float, float]]]] = {}
    for tid, most in over:
        cells = [c for c, t in tiles.items() if t.tile.id == tid]
        for c in cells:
            t = tiles[c]
            gains[c] = [(mis[0] - mis[1], u, r, mis)
                        for u, r, mis in _twin_misfits(t, _twins_of(t, by_sides, at.get(c, ())), hide, canvas, norm,
                                                       cfg, art_dir, appearance)
                        if mis]
        while held[tid] > most:
            best = max(((g, c, u, r, mis) for c in cells if c not in found for g, u, r, mis in gains[c]
                        if held[u.id] < u.count), key=lambda x: x[0], default=None)
            if best is None or best[0] <= cfg.box_gain_min:
                break
            g, c, u, r, mis = best
            log.debug("figures: %s held %d times, %d may stay: %s rot %d at %s explains the pixels the "
                      "figures leave better than the others (misfit %.3f against %.3f)", tid, held[tid], most,
                      u.id, r, c, mis[1], mis[0])
            found[c] = (u, r, mis)
            held[tid] -= 1
            held[u.id] += 1
    return found


def _by_sides(candidates: Sequence[TileType]) -> dict[tuple[str, ...], list[tuple[TileType, int]]]:
    """The catalogue grouped by the sides of each tile turned each way (sides -> [(tile, rot)]): a tile's twins share its sides."""
    out: dict[tuple[str, ...], list[tuple[TileType, int]]] = {}
    for u in candidates:
        for r in range(4):
            out.setdefault(u.edge_signature(r), []).append((u, r))
    return out


def _beyond_box(tiles: Mapping[Cell, _Tile], placements: Mapping[Cell, tuple[TileType, int]]
                ) -> list[tuple[str, int]]:
    """The tiles held more often than both the box and the tile stage's reading: (id, copies they may keep), sorted.

    No tile is on the table more often than the box holds (``rules.md``, tile
    catalogues); a tile the tile stage itself read beyond it (a user's second
    box) keeps those copies.
    """
    held = Counter(t.tile.id for t in tiles.values())
    first = Counter(t.id for t, _r in placements.values())
    count = {t.tile.id: t.tile.count for t in tiles.values()}
    return sorted((tid, max(count[tid], first[tid])) for tid, n in held.items() if n > max(count[tid], first[tid]))


def _twins_of(t: _Tile, by_sides: Mapping[tuple[str, ...], list[tuple[TileType, int]]], at: Sequence[str]
              ) -> list[tuple[TileType, int]]:
    """The twins of the tile read at ``t``: other tiles with its sides turned some way (``by_sides``:
    :func:`_by_sides`) on which every figure location ``at`` of the cell is a feature of the same kind."""
    here = t.tile.turned(t.rot)
    return [(u, r) for u, r in by_sides.get(t.tile.edge_signature(t.rot), ()) if u.id != t.tile.id
            and all(u.turned(r).kind_at(a) == here.kind_at(a) for a in at)]


def _take_twin(out: FigureReading, tiles: dict[Cell, _Tile], c: Cell, u: TileType, r: int,
               mis: tuple[float, float] | float) -> None:
    """Put twin ``u`` turned ``r`` on cell ``c`` of ``tiles`` and report it in ``out.tiles`` (``"twin": True``).

    A cell the second look read again or added keeps that entry (its misfits,
    ``"added"``) with the twin; ``mis`` is (misfit of the tile read, of the twin),
    or where the figures hide what tells them apart the twin's share (0-1) of the
    copies of the two not on the table elsewhere (reported as ``"share"``).
    """
    tiles[c] = _Tile(c, u, r, tiles[c].A, tiles[c].score)
    if c in out.tiles:
        out.tiles[c].update(tile=u.id, rot=r, twin=True)
    elif isinstance(mis, float):
        out.tiles[c] = {"tile": u.id, "rot": r, "twin": True, "share": mis}
    else:
        out.tiles[c] = {"tile": u.id, "rot": r, "misfit": round(mis[1], 4), "misfit_read": round(mis[0], 4),
                        "twin": True}


def _figure_outlines(out: FigureReading, canvas: _Canvas, cam: Camera, cfg: FigureConfig) -> np.ndarray:
    """The pixels of the top-down picture that the figures read hide: (H, W) uint8, 1 hidden (none: all 0).

    The outlines of the solids read (``out.debug["solids"]``: solid, stack
    count, yaw step, foot), drawn by :func:`_render` in a window round each
    foot and grown by ``twin_grow`` (their edges, a shadow's start).
    """
    P = canvas.px
    H, W = canvas.shape
    hide = np.zeros((H, W), np.uint8)
    solids = out.debug.get("solids") or []
    reach = int(1.5 * P)  # a solid's outline lies within this of its foot (a tall stack leaning away)
    for solid, count, yaw, foot in solids:
        fu, fv = np.round(canvas.to_canvas(foot[None])[0]).astype(int)
        x0, y0, x1, y1 = max(fu - reach, 0), max(fv - reach, 0), min(fu + reach, W), min(fv + reach, H)
        if x0 < x1 and y0 < y1:
            hide[y0:y1, x0:x1] |= _render(solid, count, yaw, foot, cam, canvas, np.array([x0, y0], np.float64),
                                          (y1 - y0, x1 - x0), cfg.lattice_mm)
    if not hide.any():
        return hide
    g = max(1, int(round(cfg.twin_grow * P)))
    return cv2.dilate(hide, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))


def _twin_misfits(t: _Tile, twins: Sequence[tuple[TileType, int]], hide: np.ndarray, canvas: _Canvas,
                  norm: np.ndarray, cfg: FigureConfig, art_dir: Any, appearance: Any
                  ) -> list[tuple[TileType, int, tuple[float, float] | tuple[()] | None]]:
    """How well the tile registered at ``t`` and each of ``twins`` explain the pixels where the two differ.

    For each twin (tile, rot): over the pixels where the two arts (drawn
    :data:`ART_OVERSAMPLE` times larger and shrunk, blurred as the photo)
    differ by more than ``twin_diff`` in log-RGB and ``hide`` (the figures'
    outlines, :func:`_figure_outlines`) leaves visible, each art's mean
    residual (:func:`_residual`, shadows down to ``refit_shadow_min``, each
    pixel capped at ``refit_cap``) at its best drift within ``twin_shift``
    (a drift leaving fewer than ``twin_keep`` of those pixels visible does
    not count).  Returns ``(tile, rot, (misfit of t's tile, misfit of the
    twin))`` per twin, ``(tile, rot, None)`` where the two arts differ in
    fewer than ``twin_min_px`` pixels (of a ``canvas.px``-pixel tile), or
    ``(tile, rot, ())`` where the figures leave fewer than that many of them
    visible: nothing seen tells the two apart.
    """
    from numpy.lib.stride_tricks import sliding_window_view

    P = canvas.px
    sig = cfg.residual_blur * P
    edge = int(round(cfg.border * P)) + 2
    s = max(1, int(round(cfg.twin_shift * P)))
    inner = np.zeros((P, P), bool)
    inner[edge:P - edge, edge:P - edge] = True
    close = dataclasses.replace(cfg, shadow_min=cfg.refit_shadow_min)
    Ab = cv2.invertAffineTransform(t.A)
    Ab[:, 2] += s
    photo = _blur(cv2.warpAffine(norm, Ab, (P + 2 * s, P + 2 * s), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT), sig)
    hidden = cv2.warpAffine(hide, Ab, (P + 2 * s, P + 2 * s), flags=cv2.INTER_NEAREST)
    art0 = _blur(_art(t.tile, t.rot, P, art_dir, appearance, ART_OVERSAMPLE), sig)
    log0 = np.log(art0 + cfg.chroma_eps)
    found: list[tuple[TileType, int, tuple[float, float] | tuple[()] | None]] = []
    for u, r in twins:
        art1 = _blur(_art(u, r, P, art_dir, appearance, ART_OVERSAMPLE), sig)
        d = np.log(art1 + cfg.chroma_eps) - log0
        differ = (np.sqrt((d * d).sum(axis=-1)) > cfg.twin_diff) & inner
        if differ.sum() < cfg.twin_min_px:
            found.append((u, r, None))
            continue
        ys, xs = np.nonzero(differ)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        # Every drift of the photo within s pixels at once: (2s+1, 2s+1, h, w) windows.
        win = np.ascontiguousarray(sliding_window_view(
            photo[y0:y1 + 2 * s, x0:x1 + 2 * s], (y1 - y0, x1 - x0, 3))[:, :, 0])
        vis = differ[y0:y1, x0:x1] & (sliding_window_view(hidden[y0:y1 + 2 * s, x0:x1 + 2 * s],
                                                          (y1 - y0, x1 - x0)) == 0)
        n = vis.sum(axis=(-1, -2))
        if n[s, s] < cfg.twin_min_px:
            found.append((u, r, ()))
            continue
        ok = n >= max(cfg.twin_min_px, cfg.twin_keep * n[s, s])
        mis = []
        for art in (art0, art1):
            res = np.minimum(_residual(win, np.ascontiguousarray(art[y0:y1, x0:x1]), close)[0], cfg.refit_cap)
            mis.append(float(((res * vis).sum(axis=(-1, -2)) / np.maximum(n, 1))[ok].min()))
        found.append((u, r, (mis[0], mis[1])))
    return found


def _crowded_cells(out: FigureReading, cfg: FigureConfig) -> list[Cell]:
    """Cells read with more figures than a tile holds.

    More than ``cfg.max_colour_figures`` followers and tents of one colour, or
    more than ``cfg.max_cell_followers`` followers of any colour.

    A follower goes only on the tile just placed, one per turn, and a player
    has one tent (rules.md section 6, turn step 2; seed 000): a tile holds at
    most one follower (``max_cell_followers`` leaves room for one figure read
    twice) and one tent of a colour.  A cell read with more shows no tile but
    a patterned table (a checked cloth next to the board) whose regular cells
    were taken for figures.

    Returns
    -------
    list of (int, int)
        The cells, sorted.
    """
    return sorted(_crowded([((int(f["x"]), int(f["y"])), f["player"], True) for f in out.meeples]
                           + [((int(f["x"]), int(f["y"])), f["player"], False) for f in out.tents], cfg))


def _crowded(figures: Iterable[tuple[Cell, str, bool]], cfg: FigureConfig) -> set[Cell]:
    """The cells of ``figures`` (``(cell, colour, follower?)`` each: a follower or cowboy, else a tent)
    holding more than ``max_colour_figures`` figures of one colour or more than
    ``max_cell_followers`` followers (:func:`_crowded_cells`)."""
    count: Counter = Counter()
    followers: Counter = Counter()
    for cell, colour, follower in figures:
        count[cell, colour] += 1
        followers[cell] += follower
    return ({c for (c, _), n in count.items() if n > cfg.max_colour_figures}
            | {c for c, n in followers.items() if n > cfg.max_cell_followers})


def _drop_cells(out: FigureReading, cells: Sequence[Cell]) -> None:
    """Remove every figure and token read on ``cells`` and report the cells as ``unreadable``."""
    gone = {tuple(c) for c in cells}

    def keep(f: Mapping[str, Any]) -> bool:
        return (int(f["x"]), int(f["y"])) not in gone

    out.meeples = [f for f in out.meeples if keep(f)]
    out.tents = [f for f in out.tents if keep(f)]
    out.gold = [f for f in out.gold if keep(f)]
    out.ore = [f for f in out.ore if keep(f)]
    if out.sheriff is not None and not keep(out.sheriff):
        out.sheriff = None
    for b in out.blobs:
        if b.get("kept") and "x" in b and not keep(b):
            b["kept"] = False
            b["why"] = "on a cell crowded with figures of one colour (the table)"
    out.unreadable = sorted(set(out.unreadable) | gone)
    for c in gone:
        out.tiles.pop(c, None)


def _collect(lab: np.ndarray, n: int, canvas: _Canvas, norm: np.ndarray, res: np.ndarray,
             ratio: np.ndarray) -> list[_Blob]:
    """The pixels of every labelled blob."""
    if n == 0:
        return []
    W = lab.shape[1]
    flat = lab.ravel()
    idx = np.flatnonzero(flat)
    labs = flat[idx]
    order = np.argsort(labs, kind="stable")
    idx, labs = idx[order], labs[order]
    bounds = np.searchsorted(labs, np.arange(1, n + 2))
    nf = norm.reshape(-1, 3)
    rf = res.ravel()
    qf = ratio.ravel()
    out = []
    for k in range(n):
        ii = idx[bounds[k]:bounds[k + 1]]
        if len(ii) == 0:
            continue
        uv = np.column_stack([ii % W, ii // W]).astype(np.float64)
        out.append(_Blob(k + 1, uv, canvas.to_lattice(uv), rf[ii], nf[ii], qf[ii]))
    return out


def _foot(info: dict[str, Any], cam: Camera, kind: str, cfg: FigureConfig) -> np.ndarray:
    """First guess of a figure's foot (lattice point): its near edge pushed in by the kind's inset, at its middle across."""
    u = info["u"]
    v = np.array([-u[1], u[0]])
    return cam.nadir + u * (info["near"] + _FOOT_INSET_MM[kind] / cfg.lattice_mm) + v * info["a_mid"]


#: Colour classes whose look-alikes are common in tile art (see :func:`_match_shapes`).
_NEUTRAL = ("gold", "grey")

#: Colour prototypes (:data:`scorer.vision.colour.PROTOTYPES`) a figure of each colour class may show.
_SOFT = {"gold": ("gold", "gold_light", "yellow"), "yellow": ("yellow", "gold"), "black": ("black", "ore")}


def _soft_map(norm: np.ndarray, cls: str, sigma: float) -> np.ndarray:
    """How much each pixel looks like colour class ``cls`` (0-1), from the light-corrected picture."""
    from . import colour

    names = _SOFT.get(cls, (cls,))
    d = colour.distances(norm.reshape(-1, 3), names).min(axis=1).reshape(norm.shape[:2])
    return np.exp(-(d * d) / (2 * sigma * sigma)).astype(np.float32)


def _colour_gap(rgb: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Distance of colours ``(N, 3)`` from one colour ``ref`` (0-255) in log-RGB, shading forgiven.

    Chromaticity counts in full; brightness only beyond a factor of two either
    way (shading), so that black is not taken for white.
    """
    from . import colour

    d = colour.log_rgb(rgb) - colour.log_rgb(np.asarray(ref, dtype=np.float64)[None])
    m = d.mean(axis=1, keepdims=True)
    d -= m
    lum = np.maximum(np.abs(m[:, 0]) - math.log(2.0), 0.0)
    return np.sqrt((d * d).sum(axis=1) + 3.0 * lum * lum)


def _shapes_for(cls: str, game: str) -> list[str]:
    """Solids a candidate of colour class ``cls`` may be (``_model`` kinds)."""
    if game == "goldrush":
        if cls == "black":
            return ["meeple", "farmer", "tent", "ore"]
        return ["meeple", "farmer", "tent"]
    if cls in ("gold", "yellow"):
        return ["meeple", "farmer", "gold"]
    return ["meeple", "farmer"]


def _match_shapes(cand: _Blob, norm: np.ndarray, res: np.ndarray, owner: np.ndarray, cam: Camera, canvas: _Canvas,
                  cfg: FigureConfig, game: str, exp: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
    """Best match of every possible solid with the candidate's colour map.

    For each solid (and count, for stacks) and each yaw, the solid's outline
    on the table (:func:`_render`, through the camera) is blurred and
    correlated (normalised cross-correlation) with the map of how much each
    pixel has the candidate's colour, over small shifts of the foot.  Where
    the art itself has a colour like the candidate's (``exp``, the expected
    picture: yellow wood on a yellow-green field, green on green), a pixel
    counts only as far as it differs from the art (its residual, up to
    ``residual_high``), with ``art_like``.

    Returns
    -------
    dict kind -> {"score", "foot", "yaw", "count"}
    """
    info = cand.info
    P = canvas.px
    mm = cfg.lattice_mm
    H, W = norm.shape[:2]
    m = max(2, int(round(cfg.foot_search * P)))

    def window(kind: str) -> tuple[np.ndarray, int, int, int, int]:
        foot0 = _foot(info, cam, {"meeple": "meeple", "farmer": "farmer"}.get(kind, kind), cfg)
        f_uv = canvas.to_canvas(foot0[None])[0]
        # Window: the blob and the largest solid around the foot, plus the search margin.
        lo = np.minimum(cand.uv.min(axis=0), f_uv - 0.35 * P) - m - 2
        hi = np.maximum(cand.uv.max(axis=0), f_uv + 0.35 * P) + m + 3
        lo = np.floor(lo).astype(int)
        hi = np.ceil(hi).astype(int)
        return foot0, max(lo[0], 0), max(lo[1], 0), min(hi[0], W), min(hi[1], H)

    shared: list[Any] = [None, 0, 0]  # the colour map over every solid's window, and its corner

    def one(kind: str) -> dict[str, Any] | None:
        foot0, x0, y0, x1, y1 = window(kind)
        if x1 - x0 < 2 * m + 4 or y1 - y0 < 2 * m + 4:
            return None
        key = (info["class"], x0, y0, x1, y1)
        soft = info.setdefault("_soft", {}).get(key)
        if soft is None:
            raw, sx0, sy0 = shared
            if raw is not None and sx0 <= x0 and sy0 <= y0 and x1 - sx0 <= raw.shape[1] and y1 - sy0 <= raw.shape[0]:
                soft = raw[y0 - sy0:y1 - sy0, x0 - sx0:x1 - sx0].copy()  # per pixel: the same numbers
            else:
                soft = _soft_map(norm[y0:y1, x0:x1], info["class"], cfg.soft_sigma)
            if info["class"] in _NEUTRAL:
                # These colours' shading range takes in art (prairie and city take
                # gold, roads and walls grey): keep only what
                # the art does not explain.
                soft *= np.clip(res[y0:y1, x0:x1] / cfg.residual_high, 0.0, 1.0)
            elif cfg.art_like and exp is not None:
                # Elsewhere only where the art has a like colour: there the colour alone is no evidence.
                like = _soft_map(exp[y0:y1, x0:x1], info["class"], cfg.soft_sigma)
                soft *= 1.0 - like * (1.0 - np.clip(res[y0:y1, x0:x1] / cfg.residual_high, 0.0, 1.0))
            own = owner[y0:y1, x0:x1]
            soft[(own > 0) & (own != info["_id"])] = 0.0
            table = own < 0
            if table.any():
                # Off the board, a figure's top may hang over the table; but a
                # table of the figure's own colour (beyond the figure's reach)
                # says nothing, and then only the tiles are read.
                far = cv2.distanceTransform((own != info["_id"]).astype(np.uint8), cv2.DIST_L2, 3) > cfg.table_reach * P
                far &= table
                if far.sum() >= 10:
                    like = float((_colour_gap(norm[y0:y1, x0:x1][far], info["rgb"]) < cfg.table_gap).mean())
                    if like > cfg.table_like:
                        soft[table] = 0.0
            info["_soft"][key] = soft
        origin = np.array([x0, y0], dtype=np.float64)
        shape = soft.shape
        counts = range(1, cfg.max_stack + 1) if kind in ("ore", "gold") else (1,)
        best = None

        def score(count: int, k: int) -> dict[str, Any] | None:
            if _FAST:
                mask = _render(kind, count, k, foot0, cam, canvas, origin, shape, mm)
                if cv2.countNonZero(mask) < 4:
                    return None
                sil = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), cfg.silhouette_blur * P)
                tpl = sil[m:shape[0] - m, m:shape[1] - m]
                # The standard deviation is at least the range over sqrt(2 n): only a flat template needs it.
                lo_v, hi_v = cv2.minMaxLoc(tpl)[:2]
                if hi_v - lo_v < 1e-6 * math.sqrt(2.0 * tpl.size) and tpl.std() < 1e-6:
                    return None
            else:
                sil = _render(kind, count, k, foot0, cam, canvas, origin, shape, mm).astype(np.float32)
                if sil.sum() < 4:
                    return None
                sil = cv2.GaussianBlur(sil, (0, 0), cfg.silhouette_blur * P)
                tpl = sil[m:shape[0] - m, m:shape[1] - m]
                if tpl.std() < 1e-6:
                    return None
            sc = cv2.matchTemplate(soft, tpl, cv2.TM_CCOEFF_NORMED)
            _, v, _, loc = cv2.minMaxLoc(sc)
            shift = np.array([loc[0] - m, loc[1] - m], dtype=np.float64)
            return {"score": float(v), "foot": foot0 + shift / P, "yaw": k, "count": count}

        n_yaw = _YAWS[kind]
        for count in counts:
            # Every other yaw first, then the two between the best and its neighbours.
            tried: dict[int, dict[str, Any] | None] = {k: score(count, k) for k in range(0, n_yaw, 2)}
            top = max((v for v in tried.values() if v is not None), key=lambda v: v["score"], default=None)
            if top is not None and n_yaw > 2:
                for k in ((top["yaw"] - 1) % n_yaw, (top["yaw"] + 1) % n_yaw):
                    if k not in tried:
                        tried[k] = score(count, k)
                top = max((v for v in tried.values() if v is not None), key=lambda v: v["score"])
            if top is None:
                continue
            if best is None or top["score"] > best["score"]:
                best = top
            elif count >= best["count"] + 2 and top["score"] < best["score"] - cfg.stack_stop:
                break  # taller stacks only fit worse from here
        if best is not None:
            if kind in ("meeple", "farmer", "tent"):
                planes = _planes(kind, best["count"], best["yaw"], best["foot"], cam, canvas, origin, shape, mm)
                win = norm[y0:y1, x0:x1]
                lum = (win[..., 0] + win[..., 1] + win[..., 2]) / 3 if _FAST and win.dtype.kind == "f" else win.mean(axis=2)
                best["shading"] = _shading_fit(lum, soft, planes)
        return best

    kinds = _shapes_for(info["class"], game)
    if _FAST2 and len(kinds) > 1:
        # The colour map is made once over the windows of all the solids tried (each
        # pixel's value is its own), not once per solid.
        wins = [w for w in map(window, kinds) if w[3] - w[1] >= 2 * m + 4 and w[4] - w[2] >= 2 * m + 4
                and (info["class"], *w[1:]) not in info.get("_soft", {})]
        if len(wins) > 1:
            sx0, sy0 = min(w[1] for w in wins), min(w[2] for w in wins)
            sx1, sy1 = max(w[3] for w in wins), max(w[4] for w in wins)
            shared[:] = [_soft_map(norm[sy0:sy1, sx0:sx1], info["class"], cfg.soft_sigma), sx0, sy0]
    # One thread: each solid's drawing is many small calls that hold the interpreter, so two
    # threads sharing the solids wait on each other (on the 8 Gold Rush photos of the benchmark,
    # the figure stage took 0.05 s longer a photo with two).
    found = [one(kind) for kind in kinds]
    out: dict[str, dict[str, Any]] = {}
    for kind, best in zip(kinds, found):
        if best is not None:
            out[kind] = best
    return out


def _decision_features(info: dict[str, Any], sh: dict[str, float]) -> dict[str, np.ndarray]:
    """Inputs of the decisions (:data:`_DECISIONS`, :data:`SECOND_ORDER`), per decision."""
    from . import colour

    rgb = np.asarray(info["rgb"], dtype=np.float64)
    ss = float(colour.sheriff_score(rgb[None])[0])
    info["sheriff"] = ss
    sd = info.get("shading", {})
    body = max(sh.get("meeple", 0.0), sh.get("farmer", 0.0))
    best = max(sh.values()) if sh else 0.0
    common = [info["area"] / 100, info["radial"] / 10, info["across"] / 10]
    return {
        "gold": np.array([ss, info["area"] / 100, sh.get("gold", 0.0) - body, info["lum_cv"], info["radial"] / 10,
                          info["across"] / 10, best]),
        "sheriff": np.array([ss, info["area"] / 100, -body, info["lum_cv"], info["radial"] / 10,
                             info["across"] / 10, best]),
        "tent": np.array([sh.get("tent", 0.0) - sh.get("meeple", 0.0), sh.get("tent", 0.0) - sh.get("farmer", 0.0),
                          *common, info["lum_cv"], info["dark"], info["smear16"] / 10,
                          sd.get("tent", 0.0) - sd.get("meeple", 0.0), sd.get("tent", 0.0) - sd.get("farmer", 0.0),
                          *(info.get(k, _BLOB_MEANS[k]) for k in _BLOB_SHAPE)]),
        "ore": np.array([sh.get("ore", 0.0) - max(body, sh.get("tent", 0.0)), *common, info["lum_cv"], info["dark"],
                         (rgb[0] - rgb[2]) / 10, rgb.mean() / 50, info["smear16"] / 10]),
    }


#: Blob outline cues (:func:`_measure`, :func:`_shape`) the tent decisions also weigh: a
#: tent's prism shows straight sides and a full, convex outline where a cowboy's arms and
#: legs leave notches.  A part measured without its outline cues takes the mean of the
#: black tents and cowboys of 400 Gold Rush photos (``--seed 9920001`` and ``9921001``).
_BLOB_MEANS = {"convexity": 0.922, "rectangularity": 0.752, "circularity": 0.61, "elong": 1.48, "fill": 0.906,
               "wvar": 0.153, "peak": 3.298, "smear8": 4.081}
_BLOB_SHAPE = tuple(_BLOB_MEANS)


#: Linear decisions ``weights . features + bias > 0`` (features: :func:`_decision_features`),
#: fitted by logistic regression on candidates of synthetic photos
#: (:mod:`scorer.render.synth`, 200 photos: seeds 0-99, easy and hard): gold bars
#: against a yellow follower (base game), an ore stack against a black cowboy or tent.
#: The ore decision was refitted (both answers weighing alike) on the candidates of 300
#: Gold Rush photos whose solids make room for one another (``scorer synth --generate
#: 300 --seed 8812001``, mixed difficulty) read with their true tiles
#: (``scripts/figure_collect.py``, ``scripts/figure_fit_decisions.py``).  The tent and
#: Sheriff decisions are of second order (:data:`SECOND_ORDER`).
_DECISIONS: dict[str, tuple[tuple[float, ...], float]] = {
    "gold": ((4.161, -1.087, 14.83, 4.447, -1.322, -3.599, -0.457), 3.499),
    "ore": ((25.557, 2.409, -2.209, -1.161, -23.567, -63.581, 8.546, -4.687, 0.302), 70.525),
}


def _decide(name: str, feats: dict[str, np.ndarray]) -> float:
    """Logit of decision ``name`` (positive: the first of its two answers): of second order where
    :data:`SECOND_ORDER` has it, else linear (:data:`_DECISIONS`)."""
    if name in SECOND_ORDER:
        w, b = SECOND_ORDER[name]
        return float(np.dot(w, second_order(feats[name])) + b)
    w, b = _DECISIONS[name]
    return float(np.dot(w, feats[name]) + b)


def second_order(x: np.ndarray) -> np.ndarray:
    """The features of a second-order decision: ``x`` and every product of two of its entries.

    Parameters
    ----------
    x : numpy.ndarray
        Shape ``(n,)``, float: the features of one candidate (:func:`_decision_features`).

    Returns
    -------
    numpy.ndarray
        Shape ``(n + n (n + 1) / 2,)``, float64: ``x``, then ``x[i] * x[j]`` for
        ``i <= j`` in row order (``numpy.triu_indices``).
    """
    x = np.asarray(x, dtype=np.float64)
    i, j = np.triu_indices(len(x))
    return np.concatenate([x, x[i] * x[j]])


def decisions_doc() -> dict:
    """The packaged ``decisions.json`` as read: ``about``, ``l2`` and per decision its ``weights``,
    ``bias`` and ``train`` (how many candidates it was fitted on)."""
    return json.loads(resources.files(__package__).joinpath("decisions.json").read_text(encoding="utf-8"))


def _load_second_order() -> dict[str, tuple[np.ndarray, float]]:
    """The second-order decisions of the packaged ``decisions.json``: name -> (weights, bias)."""
    return {name: (np.asarray(d["weights"], dtype=np.float64), float(d["bias"]))
            for name, d in decisions_doc()["decisions"].items()}


#: Second-order decisions ``weights . second_order(features) + bias > 0`` of Gold Rush:
#:
#: * a tent against a cowboy, standing or lying (``tent``: any colour but black;
#:   ``tent_black``: black, whose faces show little of the shading that tells the solids
#:   apart).  The features (:func:`_decision_features`, ``"tent"``) are how much better the
#:   tent's outline and flat faces explain the candidate than a standing or lying cowboy's
#:   (:func:`_match_shapes`, :func:`_shading_fit`), its size, shading and blur, and the
#:   blob's outline cues (:data:`_BLOB_SHAPE`); the products let one cue count for more
#:   where another is unclear (the outline where the shading says little);
#: * the Sheriff against a yellow cowboy or tent (``sheriff``), on its own features.
#:
#: Fitted by ``scripts/figure_fit_decisions.py`` (L2 1, both answers weighing alike) on the
#: candidates of Gold Rush photos read with their true tiles (``scorer synth --generate 200
#: --difficulty mixed``): the tent decisions on 800 (``--seed`` 9920001, 9921001, 9923001
#: and 9924001), the Sheriff's on 1600 (those and 9926001, 9927001, 9928001, 9930001); the
#: file's ``about`` says so too.  Fitted on three of the first four series, the fourth's
#: candidates (9924001; 9923001) were misread 49 and 35 times, against 68 and 50 with linear
#: tent decisions.  Fitted on seven of the eight series, the Sheriff candidates of each of the
#: four later ones were misread 7 times in all, against 14 with the linear decision before
#: (fitted on 200 other photos).  The ore decision and the tent decision (all colours but
#: black) were refitted so too, of second order and on 1600 photos: fewer candidates misread
#: (70 against 89, 75 against 80), but on 200 fresh photos (seed 9931001) tents and cowboys
#: were swapped more often, and those two refits were taken out again.  The ore decision
#: was refitted once more with the blob's outline cues (:data:`_BLOB_SHAPE`) added, of
#: second order, on 300 photos (seeds 9960201 and 9960202): on 400 development photos
#: (seeds 9951001, 9957001, 9958001) its candidates were misread 22 times against 34, but
#: the figures read wrong were 111 against 112 (``ore_sure`` 4: 112; ``ore_demote`` 3:
#: 114), and it was not taken.
SECOND_ORDER: dict[str, tuple[np.ndarray, float]] = _load_second_order()


def _tent_logit(info: dict[str, Any], feats: dict[str, np.ndarray]) -> float:
    """Logit of a tent against a cowboy (:data:`SECOND_ORDER`): a black candidate has its own
    weights (``tent_black``: its faces show little of the shading that tells the solids apart)."""
    w, b = SECOND_ORDER["tent_black" if info.get("class") == "black" else "tent"]
    return float(np.dot(w, second_order(feats["tent"])) + b)


def _ore_close(info: dict[str, Any], cfg: FigureConfig) -> bool:
    """Whether a black candidate's ore decision (:func:`_roles`) is within ``ore_demote`` of a stack:
    read as a tent but not taken as one, it is then a stack rather than a cowboy (``ore_demote`` 0: never)."""
    return (cfg.ore_demote > 0 and info.get("class") == "black"
            and info.get("_logits", {}).get("ore", -math.inf) > -cfg.ore_demote)


def _roles(info: dict[str, Any], game: str, cfg: FigureConfig) -> list[str]:
    """Roles a candidate may play, most likely first: ``meeple`` (standing), ``farmer``, ``tent``,
    ``sheriff``, ``ore``, ``gold``."""
    sh = info.get("shapes", {})
    f = _decision_features(info, sh)
    info["_feats"] = f
    cls = info["class"]
    body = ["meeple", "farmer"] if sh.get("meeple", 0) >= sh.get("farmer", 0) else ["farmer", "meeple"]
    if game == "carcassonne":
        if cls in ("gold", "yellow"):
            info["_logits"] = {"gold": _decide("gold", f)}
            if info["_logits"]["gold"] > 0:
                # A gold bar is yellow: a candidate whose colour is a field's green is the
                # field's art, taken for gold where a figure colour is nearer than the art's.
                if cfg.gold_max_green and info["rgb"][1] - info["rgb"][0] > cfg.gold_max_green:
                    return []
                # The smallest token: a small blob fits any small outline a little,
                # so a gold bar must fit its own well.
                return ["gold"] if sh.get("gold", 0.0) >= cfg.min_gold_shape else []
        return body
    info["_logits"] = {"tent": _tent_logit(info, f)}
    figure = (["tent"] + body) if info["_logits"]["tent"] > 0 else (body + ["tent"])
    if cls == "black":
        info["_logits"]["ore"] = _decide("ore", f)
        # The two parts of a candidate cut in two (_ore_cut) are read as a pair: a stack and a figure.
        if info.get("_cut") == "ore":
            return ["ore"]
        if info.get("_cut") == "figure" and max(sh.get("meeple", 0.0), sh.get("farmer", 0.0),
                                                 sh.get("tent", 0.0)) > sh.get("ore", 0.0):
            # Cut off for the stack's count (ore_cut_count): a cowboy, whose cut-short outline the tent's fits too.
            return body if info.get("_cut_count") else figure
        if info["_logits"]["ore"] > cfg.ore_sure:
            # Surely a stack: where no mountain spot takes it, it is no cowboy either.
            return ["ore"]
        if info["_logits"]["ore"] > 0:
            return ["ore"] + figure
        if _ore_close(info, cfg):
            # A lone ore token from above fits a tent's outline as well as a stack's: where
            # no tent spot takes it and the ore decision is close, it is a stack, not a cowboy;
            # so too where the tent decision is against it but the stack's outline fits
            # better than a cowboy's.
            if figure[0] == "tent":
                return ["tent", "ore"] + body
            if sh.get("ore", 0.0) > max(sh.get(k, 0.0) for k in body):
                return ["ore"] + figure
    if cls in ("gold", "yellow"):
        info["sheriff_logit"] = info["_logits"]["sheriff"] = _decide("sheriff", f)
        if info["sheriff_logit"] > 0:
            return ["sheriff"] + figure
    return figure


def _read_colour(b: _Blob, exp: np.ndarray | None, cfg: FigureConfig, game: str = "carcassonne") -> None:
    """A candidate's own colour (``info["rgb_fig"]``), its colour class (``"class"``), the art colour
    beneath it (``"_bg"``, ``None`` when read unmixed) and its distance to every colour class
    (``"_colour_d"``, :data:`scorer.vision.colour.SEGMENT_CLASSES` -> float).

    With ``mix_min_alpha`` below 1 and the expected picture ``exp`` given, the
    blob's colour is read as a figure's colour with the art beneath it
    (the median of ``exp`` over the blob) mixed in
    (:func:`scorer.vision.colour.mixed_distances`); the own colour is then the
    unmixed colour at the nearest class's share.  Otherwise the blob's colour,
    compared as :func:`scorer.vision.colour.distances` does.  Gold Rush is read
    unmixed: its sand, nuggets and rock hold every figure colour's look-alike,
    and a yellow cowboy mixed with sand is sand lit brighter.
    """
    from . import colour

    info = b.info
    rgb = np.asarray(info["rgb"], dtype=np.float64)
    bg = None
    if exp is not None and cfg.mix_min_alpha < 1.0 and game == "carcassonne":
        v = np.clip(b.uv[:, 1].astype(int), 0, exp.shape[0] - 1)
        u = np.clip(b.uv[:, 0].astype(int), 0, exp.shape[1] - 1)
        bg = np.median(exp[v, u].reshape(-1, 3), axis=0).astype(np.float64)
    # Share 1 only (no art beneath): the plain distances.
    d, a = colour.mixed_distances(rgb[None], (rgb if bg is None else bg)[None], colour.SEGMENT_CLASSES,
                                  min_alpha=1.0 if bg is None else cfg.mix_min_alpha,
                                  alpha_cost=cfg.mix_alpha_cost)
    k = int(np.argmin(d[0]))
    cls = colour.SEGMENT_CLASSES[k]
    info["class"] = "gold" if cls == "gold_light" else cls
    info["rgb_fig"] = rgb if bg is None else colour.unmixed(rgb, bg, a[0, k])[0]
    info["_bg"] = bg
    info["_colour_d"] = dict(zip(colour.SEGMENT_CLASSES, d[0].tolist()))


def _colour_far(info: dict[str, Any], names: Sequence[str]) -> float:
    """Distance of a candidate's colour (:func:`_read_colour`) to the nearest of ``names``."""
    return min(info["_colour_d"][n] for n in names)


def _classify(cands: list[_Blob], tiles: dict[Cell, _Tile], canvas: _Canvas, cam: Camera, cfg: FigureConfig,
              game: str, allowed: list[str], norm: np.ndarray, res: np.ndarray, owner: np.ndarray,
              out: FigureReading, given: Mapping[Cell, tuple[TileType, int]], exp: np.ndarray | None = None) -> None:
    """Decide what each candidate is, its colour, cell and location; fill ``out``.

    ``given`` are the tiles read (locations are reported on them, see
    :func:`_locate_read`); ``tiles`` may hold another tile where the second look
    found one (:func:`_refit`).  A candidate read as an ore stack whose outline
    leaves a figure-sized part unexplained (:func:`_ore_remainder`) is read again
    as two candidates, the part inside the outline and the part outside; the
    split stands when they give one ore stack and one cowboy or tent.  A
    candidate read as a stack too tall for its size (:func:`_count_cut_need`) is
    tried cut too; that split stands when the part cut off fits a cowboy well.  A
    split cut at the waist (:func:`_ore_cut`) stands only when the ore decision of the
    part cut off is at most ``ore_cut_ore``: a part that still reads as a stack is
    the stack's shadow or dark side (on 900 Gold Rush development photos with true
    tiles: 9 fewer extra figures, 3 more missed, figure errors 240 -> 231).  Once
    the stack is the part the ore decision is surest of (``ore_cut_pick``), the
    part cut off is the one least like a stack, and a stack alone cut in two
    still gives one a cowboy's outline fits: it must then be clearly no stack
    (``ore_cut_ore`` -2; on 400 Gold Rush development photos read from the tile
    stage's tiles, the figure parts of stacks alone reached -1.8, those of
    cowboys -2.6 and below).  A
    candidate of a colour no player has (one ``--players`` leaves out) is a figure only
    within ``off_colour_distance`` of a player colour (a grey one where the game
    has no grey figures, within ``off_grey_distance``), and none at all when it
    touches another kept candidate (:func:`_drop_shadows`: its shadow).  In
    Gold Rush, a cowboy or the Sheriff that an ore stack hides but for a few
    pixels of its colour is added (:func:`_hidden_by_stacks`, ``hidden_mm2``;
    ``exp`` is the expected picture, the art a nugget beside the stack is told by).
    A candidate smaller than ``min_area_mm2`` is no figure, except the Sheriff when
    its Sheriff logit is at least ``sheriff_small_logit``: his gold on a prairie's pale
    sand leaves only parts of him in the residual (one to three parts of 20-40
    mm^2 each on the Gold Rush photos looked at); of several such parts the
    likeliest is the Sheriff and the others are dropped, not read as cowboys.
    """
    from . import colour

    rows = []
    unlisted: list[tuple[str, Cell]] = []  # figures of a colour of the box that the players given leave out
    box = colour.allowed_colours(None, game)
    splits: dict[int, tuple] = {}  # ore candidates split in two (see _ore_remainder): their whole reading
    strict: dict[int, float] = {}  # splits cut for their stack count (ore_cut_count): least figure outline fit
    for b in cands:
        info = b.info
        _read_colour(b, exp, cfg, game)
        if info["area"] < cfg.min_gold_mm2:
            continue
        matches = _match_shapes(b, norm, res, owner, cam, canvas, cfg, game, exp)
        info.pop("_soft", None)
        info["shapes"] = {k: round(v["score"], 3) for k, v in matches.items()}
        info["shading"] = {k: round(v["shading"], 3) for k, v in matches.items() if "shading" in v}
        if not matches or max(info["shapes"].values()) < cfg.min_shape_score:
            info["why"] = "does not look like a figure"
            out.blobs.append({**_public(info), "kept": False, "why": info["why"]})
            continue
        roles = _roles(info, game, cfg)
        # A player figure has a player's colour: a candidate far from every one
        # (a printed horse drawn fainter than its art, a patch of sand) is none.
        far = _colour_far(info, allowed)
        info["colour_distance"] = round(far, 3)
        # Of a colour no player has here (a colour --players leaves out), it must be much
        # nearer a player's colour; grey, where the game has no grey figures (Gold Rush: the
        # pale side of a tall ore stack, a shadow), nearer still.
        off = info["class"] in colour.COLOURS and info["class"] not in allowed
        reach = cfg.off_grey_distance if info["class"] == "grey" and "grey" not in box else cfg.off_colour_distance
        if far > (reach if off else cfg.max_colour_distance) or _tinted_grey(info, allowed, cfg):
            roles = [r for r in roles if r not in ("meeple", "farmer", "tent")]
            # A figure's outline in a colour of the box that the players given leave out (--players).
            fig = max(("meeple", "farmer", "tent"), key=lambda k: info["shapes"].get(k, 0.0))
            if (off and info["class"] in box and info["class"] != "grey" and fig in matches
                    and info["shapes"][fig] >= cfg.min_shape_score
                    and _colour_far(info, [info["class"]])
                    <= cfg.max_colour_distance):
                unlisted.append((info["class"], tuple(int(v) for v in np.floor(matches[fig]["foot"]))))
        info["_matches"], info["_roles"] = matches, roles
        placed = None
        for role in roles:
            solid = "meeple" if role == "sheriff" else role
            mt = matches.get(solid) or matches.get("meeple")
            if mt is None:
                continue
            if role != "gold" and info["area"] < cfg.min_area_mm2:
                # Too small for a figure, but the Sheriff's gold on pale sand may show only in parts.
                if not (role == "sheriff" and 0 < cfg.sheriff_small_logit <= info["_logits"].get("sheriff", -math.inf)):
                    continue
            at_tile = _tile_at(canvas.to_canvas(mt["foot"][None]), tiles, canvas)
            if at_tile is None:
                continue
            t, frac = at_tile
            loc = (CENTRE, 1.0, [], 0.0) if role == "gold" else _locate_read(frac, t, given, role, cfg)
            if (role == "sheriff" and cfg.spot_alt_tiles and (loc is None or loc[3] > cfg.max_spot_distance)
                    and _of_sheriff_gold(info, cfg)):
                # No mountain of the tile read takes it: the tile may be misread (see below).
                alt = _spot_alternative(frac, t, out.debug.get("looks", {}), given, cfg)
                if alt is not None:
                    info["_sheriff_alt"] = (alt[0], frac, alt[1], mt)
            if loc is None:
                continue
            if role == "ore" and loc[3] > cfg.max_spot_distance:
                loc = _lean_back(mt["foot"], t.cell, loc, tiles, canvas, cam, given, cfg)
            if role in ("tent", "sheriff", "ore") and loc[3] > cfg.max_spot_distance:
                continue
            if role in ("meeple", "farmer"):
                # Standing or lying: the pose whose feature spot the foot is nearer to,
                # unless the shapes clearly disagree.
                other = "farmer" if role == "meeple" else "meeple"
                lo2 = _locate_read(frac, t, given, other, cfg)
                gap = mt["score"] - matches.get(other, {"score": -1.0})["score"]
                if lo2 is not None and lo2[3] + cfg.pose_weight * gap < loc[3]:
                    role, loc = other, lo2
            placed = (role, t, frac, loc, mt)
            break
        if placed is not None and placed[0] == "ore" and cfg.ore_split and "_ore_part" not in info:
            # A figure touching an ore stack merges with it into one dark blob: when
            # the stack's outline leaves a figure-sized part unexplained, the part
            # outside it and the part inside are read as candidates of their own
            # (classified in their turn below; kept when they give a stack and a figure).
            rest = _ore_remainder(b, placed[4], cam, canvas, cfg)
            cut = False
            if rest is None and _cut_worth_trying(info, cfg):
                rest = _ore_cut(b, norm, res, owner, cam, canvas, cfg, game)
                cut = rest is not None
            need = _count_cut_need(info, placed[4], cfg) if rest is None else None
            if need is not None:
                # Read as a stack as tall as a low stack and a cowboy beside it: tried cut too, and
                # the cut stands only when the cowboy's outline fits its part about as well (below).
                rest = _ore_cut(b, norm, res, owner, cam, canvas, cfg, game, part_mm2=cfg.ore_split_mm2)
                if rest is not None:
                    cut = True
                    strict[len(splits)] = need
            if rest is not None:
                W = owner.shape[1]
                inner = ~np.isin(b.uv[:, 1].astype(np.int64) * W + b.uv[:, 0].astype(np.int64),
                                 rest.uv[:, 1].astype(np.int64) * W + rest.uv[:, 0].astype(np.int64))
                core = _Blob(b.label, b.uv[inner], b.xy[inner], b.res[inner], b.rgb[inner], b.ratio[inner])
                splits[len(splits)] = (b, *placed)
                for part in (core, rest):
                    part.info = _measure(part, cam, cfg)
                    part.info.update(_shape(part))
                    part.info["_id"] = int(owner.max()) + 1
                    part.info["_ore_part"] = len(splits) - 1
                    if cut:
                        # Read as a pair (_roles): the part within the stack's outline is the stack, the
                        # other a figure whose outline the stack cuts short (weaker evidence of its kind).
                        part.info["_cut"] = "ore" if part is core else "figure"
                        if len(splits) - 1 in strict:
                            part.info["_cut_count"] = True
                    owner[part.uv[:, 1].astype(int), part.uv[:, 0].astype(int)] = part.info["_id"]
                    cands.append(part)
                info["foot"] = placed[4]["foot"]
                continue
        info["foot"] = None if placed is None else placed[4]["foot"]
        if placed is None:
            small = info["area"] < cfg.min_area_mm2 and "gold" not in roles
            info["why"] = ("too small for a figure" if small and roles else "no feature for it here" if roles
                           else "does not look like a figure")
            info["_unkept"] = {**_public(info), "kept": False, "why": info["why"]}
            out.blobs.append(info["_unkept"])
            continue
        rows.append((b, *placed))
    if splits:
        # A split stands when its two parts read as one ore stack and one figure;
        # otherwise the candidate is read whole, as before the split.
        parts: dict[int, list[int]] = {}
        for i, r in enumerate(rows):
            if "_ore_part" in r[0].info:
                parts.setdefault(r[0].info["_ore_part"], []).append(i)
        undone = set()
        for k, whole in splits.items():
            idx = parts.get(k, [])
            kinds = [rows[i][1] for i in idx]
            # A figure part cut at the waist (_ore_cut) whose own ore decision still says stack (above
            # ore_cut_ore) is the stack's shadow or dark side, not a cowboy: the cut does not stand.
            cut_ore = max((rows[i][0].info.get("_logits", {}).get("ore", -math.inf) for i in idx
                           if rows[i][1] != "ore" and rows[i][0].info.get("_cut") == "figure"), default=-math.inf)
            if len(idx) == 2 and kinds.count("ore") == 1 and any(r in ("meeple", "farmer", "tent") for r in kinds) and (
                    k not in strict or max(rows[i][0].info["shapes"].get(r, 0.0) for i in idx
                                           for r in ("meeple", "farmer", "tent") if rows[i][1] != "ore") >= strict[k]
            ) and cut_ore <= cfg.ore_cut_ore:
                continue
            undone.update(idx)
            rows.append(whole)
        rows = [r for i, r in enumerate(rows) if i not in undone]

    if game == "goldrush" and cfg.spot_alt_tiles and not any(r[1] == "sheriff" for r in rows):
        _sheriff_on_runner_up(rows, cands, tiles, given, out, cfg)
    if cfg.stand_alt_tiles:
        _stand_on_runner_up(rows, tiles, given, out, cfg)

    def demote(i: int) -> None:
        """Make candidate ``i`` a cowboy/follower (standing or lying, whichever fits its foot), or an
        ore stack where it is black, the ore decision is within ``ore_demote`` of a stack and a
        mountain spot takes one (a lone ore token from above fits a tent's outline as well)."""
        b, _, t, frac, _, mt = rows[i]
        info = b.info
        ore = info.get("_matches", {}).get("ore")
        if ore is not None and not info.get("_cut") and _ore_close(info, cfg):
            at = _locate_foot(ore["foot"], "ore", tiles, canvas, given, cfg)
            if at is not None and at[2] is not None and at[2][3] <= cfg.max_spot_distance:
                rows[i] = (b, "ore", *at, ore)
                return
        opts = [(r, _locate_read(frac, t, given, r, cfg)) for r in ("meeple", "farmer")]
        opts = [(r, lo) for r, lo in opts if lo is not None]
        if opts:
            r, lo = min(opts, key=lambda z: z[1][3])
            rows[i] = (b, r, t, frac, lo, mt)

    # Two figures cannot stand on one spot: feet closer than min_foot_gap are one
    # figure seen as two candidates (a shaded side read as another colour, a
    # tall figure cut by a seam, the Sheriff cut by a highlight); the larger stays.
    # Nor can a figure hide inside another's outline: a candidate lying mostly
    # within the solid fitted to a larger one of its colour is a part of it
    # (a tall figure's head cut from its body at the neck or by a seam).
    order = sorted(range(len(rows)), key=lambda i: -rows[i][0].info["area"])
    kept_feet: list[tuple[np.ndarray, str]] = []
    kept: list[int] = []
    drop = set()
    for i in order:
        b, kind, *_rest, mt = rows[i]
        if kind == "ore":
            # A stack's dark side or shadow cut off as a grey candidate is part of it too.
            kept.append(i)
            continue
        if kind not in ("meeple", "farmer", "tent", "sheriff"):
            continue
        foot = np.asarray(mt["foot"], dtype=np.float64)
        cls = "sheriff" if kind == "sheriff" else b.info.get("class", "")
        if _foot_taken(foot, cls, kept_feet, cfg) or any(
                _inside_outline(b, rows[j][0], rows[j][1], rows[j][5], cam, canvas, cfg) for j in kept
                # a cowboy cut off for the stack's count (_count_cut_need) stands against its own stack's outline
                if not (b.info.get("_cut_count") and rows[j][0].info.get("_ore_part") == b.info["_ore_part"])):
            drop.add(i)
            b.info["why"] = "part of a figure next to it"
            out.blobs.append({**_public(b.info), "kept": False, "why": b.info["why"]})
        else:
            kept_feet.append((foot, cls))
            kept.append(i)
    rows = [r for i, r in enumerate(rows) if i not in drop]
    if unlisted:
        log.warning("%d figure(s) look %s, a colour not among the players given (%s), and are not read: at %s; "
                    "name every colour on the table with --players", len(unlisted),
                    "/".join(sorted({c for c, _ in unlisted})), ",".join(allowed),
                    " ".join(f"{x},{y}" for _, (x, y) in unlisted[:8]) + (" ..." if len(unlisted) > 8 else ""))
        out.unlisted = unlisted
    if cfg.shadow_touch > 0:
        _drop_shadows(rows, allowed, out, cfg)
    if game == "goldrush" and cfg.hidden_mm2 > 0:
        _hidden_by_stacks(rows, cands, norm, res, owner, tiles, canvas, cam, given, allowed, cfg, exp)

    # At most one Sheriff: the likeliest (outline and colour); the others are yellow figures.
    sheriffs = [i for i, r in enumerate(rows) if r[1] == "sheriff"]
    if len(sheriffs) > 1:
        keep = max(sheriffs, key=lambda i: (_sheriff_gold(rows[i][0].info, cfg),
                                            _kind_confidence(rows[i][0].info, "sheriff", cfg)))
        gone = set()
        for i in sheriffs:
            if i != keep:
                info = rows[i][0].info
                if info.get("colour_distance", 0.0) > cfg.max_colour_distance or info["area"] < cfg.min_area_mm2:
                    # Gold of no player's colour (a gold piece of the art), or too small for a cowboy
                    # (another part of the Sheriff): not a cowboy.
                    gone.add(i)
                else:
                    demote(i)
        rows = [r for i, r in enumerate(rows) if i not in gone]
    # Colours of player figures, read together.
    players = [i for i, r in enumerate(rows) if r[1] in ("meeple", "farmer", "tent")]
    own = [rows[i][0].info.get("rgb_fig", rows[i][0].info["rgb"]) for i in players]
    choices = colour.assign_colours(np.array(own).reshape(-1, 3), allowed,
                                    temperature=cfg.colour_temperature)
    colour_of = dict(zip(players, choices))
    # At most one tent per colour (seed 000): the others are cowboys.
    tents: dict[str, list[int]] = {}
    for i in players:
        if rows[i][1] == "tent":
            tents.setdefault(colour_of[i].colour, []).append(i)
    for col, idx in tents.items():
        if len(idx) > 1:
            # A part cut from an ore candidate (_ore_cut) shows a cut-short outline: a whole candidate goes first;
            # then (tent_keep_spot) one standing on the tent's own spot rather than a cowboy's.
            keep = max(idx, key=lambda i: (not rows[i][0].info.get("_cut", False),
                                           cfg.tent_keep_spot and _on_tent_spot(rows[i], tiles, canvas, given, cfg),
                                           _tent_logit(rows[i][0].info,
                                                       _decision_features(rows[i][0].info, rows[i][0].info["shapes"]))))
            for i in idx:
                if i != keep:
                    demote(i)
    if game == "goldrush":
        _promote_tents(rows, players, colour_of, tiles, canvas, given, cfg)
    if game == "goldrush" and _demote_far_tents(rows, tiles, canvas, given, cfg):
        # The player of a tent read as a cowboy may have his tent among his other cowboys.
        _promote_tents(rows, players, colour_of, tiles, canvas, given, cfg)
    if game == "goldrush" and cfg.one_cowboy:
        gone = _one_cowboy(rows, players, colour_of, tiles, canvas, given, cfg)
        if gone:
            for i in sorted(gone):
                info = rows[i][0].info
                info["why"] = "a second cowboy on its tile"
                out.blobs.append({**_public(info), "kept": False, "why": info["why"]})
            keep = [i for i in range(len(rows)) if i not in gone]
            was_player = set(players)
            colour_of = {n: colour_of[i] for n, i in enumerate(keep) if i in colour_of}
            players = [n for n, i in enumerate(keep) if i in was_player]
            rows = [rows[i] for i in keep]
    if game == "goldrush" and cfg.max_cowboys > 0:
        _cap_cowboys(rows, players, colour_of, tiles, canvas, given, cfg)
    gold: dict[Cell, dict[str, Any]] = {}
    fits: list[float] = []  # each follower's best outline correlation, as out.meeples
    for i, (b, kind, t, frac, loc, mt) in enumerate(rows):
        at, conf, alts, dist = loc
        info = b.info
        x, y = t.cell
        info["kind"] = kind
        out.blobs.append({**_public(info), "kept": True, "kind": kind, "x": x, "y": y, "at": at})
        shape_conf = _kind_confidence(info, kind, cfg)
        # The solid whose outline was matched (the Sheriff's is a meeple's; a hidden one's a guess).
        solid = next((k for k, v in (info.get("_matches") or {}).items() if v is mt),
                     "meeple" if kind == "sheriff" else kind)
        out.debug.setdefault("solids", []).append((solid, int(mt.get("count", 1)), int(mt.get("yaw", 0)),
                                                   np.asarray(mt["foot"], dtype=np.float64)))
        if kind in ("meeple", "farmer"):
            ch = colour_of[i]
            fits.append(_cowboy_fit(info))
            out.meeples.append({"player": ch.colour, "x": x, "y": y, "at": at,
                                "pose": "lying" if kind == "farmer" else "standing",
                                "confidence": round(conf * ch.confidence * shape_conf, 3), "alternatives": alts,
                                "colour_alternatives": ch.alternatives})
        elif kind == "tent":
            ch = colour_of[i]
            out.tents.append({"player": ch.colour, "x": x, "y": y, "at": at,
                              "confidence": round(conf * ch.confidence * shape_conf, 3), "alternatives": alts,
                              "colour_alternatives": ch.alternatives})
        elif kind == "sheriff":
            out.sheriff = {"x": x, "y": y, "at": at, "confidence": round(conf * shape_conf, 3), "alternatives": alts}
        elif kind == "ore":
            out.ore.append({"x": x, "y": y, "at": at, "count": int(mt["count"]),
                            "confidence": round(conf * shape_conf, 3)})
        elif kind == "gold":
            g = gold.setdefault((x, y), {"x": x, "y": y, "count": 0, "confidence": 1.0})
            g["count"] += int(mt["count"])
            g["confidence"] = round(min(g["confidence"], shape_conf), 3)
    out.gold = list(gold.values())
    if game == "carcassonne" and cfg.one_follower:
        _one_follower(out, fits, cfg)


def _tinted_grey(info: Mapping[str, Any], allowed: Sequence[str], cfg: FigureConfig) -> bool:
    """Whether a grey candidate is a tinted shade or a detail of the art, not a grey figure.

    Grey figures are painted a neutral grey; a shadow on a tile takes the tint of
    the light and of the art under it (blue-grey, grey-green), and a shadow or
    a dark detail of the art fits a figure's outline poorly.  A candidate of
    the grey class, where grey is a player colour, lying more than
    ``grey_tint`` from grey (:func:`scorer.vision.colour.distances`) whose best
    outline correlation is below ``grey_tint_shape`` is therefore none.
    """
    from . import colour

    if cfg.grey_tint_shape <= 0 or info.get("class") != "grey" or "grey" not in allowed:
        return False
    if max(info.get("shapes", {}).values(), default=0.0) >= cfg.grey_tint_shape:
        return False
    return bool(colour.distances(np.asarray(info["rgb"], dtype=np.float64)[None], ("grey",))[0, 0] > cfg.grey_tint)


def _one_follower(out: FigureReading, fits: Sequence[float], cfg: FigureConfig) -> None:
    """Keep one follower per tile: the one whose outline fits best (``fits``, aligned with ``out.meeples``).

    A follower is placed only on the tile just placed, one per turn (rules.md
    section 5, "Meeples"; seed 004: one follower with each tile placed), so a
    tile holds at most one.  A second follower read on a tile is a figure's
    own shade or highlight split off by colour, or its shadow.  Cells read
    with more figures than even a misread leaves (:func:`_crowded_cells`: the
    table) are left as they are, to be dropped whole.
    """
    crowded = set(_crowded_cells(out, cfg))
    best: dict[Cell, int] = {}
    for i, m in enumerate(out.meeples):
        c = (int(m["x"]), int(m["y"]))
        if c not in crowded and (c not in best or fits[i] > fits[best[c]]):
            best[c] = i
    kept = []
    for i, m in enumerate(out.meeples):
        c = (int(m["x"]), int(m["y"]))
        if c in crowded or best[c] == i:
            kept.append(m)
        else:
            log.debug("figures: a second follower on %s (%s at %s) is dropped: one follower per tile", c,
                      m["player"], m["at"])
    out.meeples = kept


def _of_sheriff_gold(info: Mapping[str, Any], cfg: FigureConfig) -> bool:
    """Whether a candidate's colour lies within ``spot_alt_gold`` of the Sheriff's gold
    (:func:`scorer.vision.colour.distances`; the art's pale gold nuggets lie farther)."""
    from . import colour

    return bool(colour.distances(np.asarray(info["rgb"], dtype=np.float64)[None], ("gold",))[0, 0]
                <= cfg.spot_alt_gold)


def _sheriff_gold(info: Mapping[str, Any], cfg: FigureConfig) -> bool:
    """Whether a Sheriff candidate is surely of the Sheriff's gold: within ``spot_alt_gold`` of it
    (:func:`scorer.vision.colour.distances`) with a Sheriff logit of at least ``sheriff_gold_logit``.

    The art's gold nuggets and sand look pale gold and their small blobs often
    get a higher Sheriff logit than the Sheriff himself; where several
    candidates are read as the Sheriff, one that is surely of his gold goes
    first (``sheriff_gold_logit`` 0: off).
    """
    if cfg.sheriff_gold_logit <= 0 or info.get("_logits", {}).get("sheriff", -math.inf) < cfg.sheriff_gold_logit:
        return False
    return _of_sheriff_gold(info, cfg)


def _spot_alternative(frac: np.ndarray, t: _Tile, looks: Mapping[Cell, Mapping[str, Any]],
                      given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig
                      ) -> tuple[_Tile, tuple[str, float, list[dict[str, Any]], float]] | None:
    """The runner-up tile of a cell on which a mountain spot takes the Sheriff's foot.

    The Sheriff stands on a mountain (seed 000, rules.md section 7); where no
    mountain spot of the tile read lies within ``max_spot_distance`` of its foot
    (``frac``, fractions of the tile), the tile may be misread: the second look's
    runners-up of the cell (:func:`_refit`, ``looks[cell]["runners"]``: tiles
    whose small misfit is within ``spot_alt_slack`` of the tile read's, best
    first) are tried in turn, under the tile read's registration.

    Returns
    -------
    (_Tile, location) or None
        The first runner-up whose mountain spot takes the foot, with the
        location (:func:`_locate_read`); ``None`` when none does.
    """
    for tile, rot, _coarse in looks.get(t.cell, {}).get("runners", ()):
        alt = _Tile(t.cell, tile, rot, t.A, t.score)
        loc = _locate(frac, tile, rot, "sheriff", cfg)
        if loc is None or loc[3] > cfg.max_spot_distance:
            continue
        return alt, _locate_read(frac, alt, given, "sheriff", cfg)
    return None


def _sheriff_on_runner_up(rows: list[tuple], cands: Sequence[_Blob], tiles: dict[Cell, _Tile],
                          given: Mapping[Cell, tuple[TileType, int]], out: FigureReading, cfg: FigureConfig) -> None:
    """Where no Sheriff was placed, place the likeliest one a runner-up tile takes, and take that tile.

    A candidate read as the Sheriff first (:func:`_roles`), of the Sheriff's
    gold (within ``spot_alt_gold``: the art's pale gold nuggets are not), whose
    cell's tile read has no mountain spot near its foot, but a runner-up of the
    second look has (:func:`_spot_alternative`), is the Sheriff on that tile: of
    such candidates, the one with the highest Sheriff logit.  Its row (a yellow
    cowboy or tent it fell back to) is replaced, or it is added; the runner-up
    replaces the tile read (``out.tiles``, ``"figure": "sheriff"``) and the
    other figures on the cell are located again on it.  ``rows`` and ``tiles``
    are changed in place.
    """
    found = [b for b in cands if b.info.get("_sheriff_alt") is not None
             and b.info.get("_logits", {}).get("sheriff", 0) > 0 and _of_sheriff_gold(b.info, cfg)]
    if not found:
        return
    b = max(found, key=lambda q: q.info["_logits"]["sheriff"])
    t_new, frac, loc, mt = b.info["_sheriff_alt"]
    if loc is None:
        return
    c = t_new.cell
    old = tiles[c]
    row = (b, "sheriff", t_new, frac, loc, mt)
    at = [i for i, r in enumerate(rows) if r[0] is b]
    if at:
        rows[at[0]] = row
    else:
        rows.append(row)
        if b.info.get("_unkept") is not None:
            out.blobs[:] = [d for d in out.blobs if d is not b.info["_unkept"]]
    _take_runner_up(rows, b, t_new, tiles, given, out, cfg, "sheriff")
    log.debug("figures: the Sheriff at %s stands on no mountain of %s rot %d: read %s rot %d there", c,
              old.tile.id, old.rot, t_new.tile.id, t_new.rot)


def _take_runner_up(rows: list[tuple], b: _Blob, t_new: _Tile, tiles: dict[Cell, _Tile],
                    given: Mapping[Cell, tuple[TileType, int]], out: FigureReading, cfg: FigureConfig,
                    figure: str) -> None:
    """Put the runner-up ``t_new`` in place of its cell's tile, for the sake of ``b``'s row (``figure``).

    The other figures on the cell are located again on it (any feature where
    their own kind has none), ``tiles`` takes it, and ``out.tiles`` reports
    it with the second look's misfits and ``"figure": figure``.  ``rows`` and
    ``tiles`` are changed in place.
    """
    c = t_new.cell
    for i, r in enumerate(rows):
        if r[0] is b or r[2].cell != c:
            continue
        kind = r[1]
        lo = None if kind == "gold" else _locate_read(r[3], t_new, given, kind, cfg)
        if lo is None and kind != "gold":
            lo = _locate_read(r[3], t_new, given, "any", cfg)
        rows[i] = (r[0], kind, t_new, r[3], lo if lo is not None else r[4], r[5])
    tiles[c] = t_new
    runners = {(q[0].id, q[1]): q[2] for q in out.debug.get("looks", {}).get(c, {}).get("runners", ())}
    read = out.debug.get("looks", {}).get(c, {}).get("read", 1.0)
    out.tiles[c] = {"tile": t_new.tile.id, "rot": t_new.rot,
                    "misfit": round(runners.get((t_new.tile.id, t_new.rot), read), 4),
                    "misfit_read": round(read, 4), "figure": figure}


def _stand_on_runner_up(rows: list[tuple], tiles: dict[Cell, _Tile], given: Mapping[Cell, tuple[TileType, int]],
                        out: FigureReading, cfg: FigureConfig) -> None:
    """Stand a follower laid in a field for want of a feature near its foot on a runner-up that has one.

    A follower on a short road end, or on a cloister, hides it: the tile stage
    then reads the look-alike without it (R for T, Q for S, B for A, U for W:
    the same tile but for that part) and the pose decision lays the follower in
    the field beside, the nearest location the tile read offers.  Only farmers
    lie (seed 000 and rules.md section 6: a figure on a prairie is laid on its
    side, as a farmer in a field is); so where a follower read as a farmer fits
    the standing outline at least ``stand_alt_gap`` better than the lying one
    and the tile read has no standing location within ``max_spot_distance`` of
    its foot, the second look's runners-up of the cell (``looks[cell]["runners"]``,
    best first) are tried: the first whose small misfit is at most
    ``stand_alt_slack`` above the tile read's, of which the box holds a copy not
    yet read (``TileType.count``), that meets its neighbours' sides
    (:func:`scorer.tiles.fits_neighbours`) and has a standing location within
    ``stand_alt_distance`` of the foot replaces the tile read (``out.tiles``,
    ``"figure": "follower"``), and the follower stands there.  Likewise a follower
    or cowboy read standing more than ``stand_alt_far`` from its location on the
    tile read: on a town (or a cloister) it hides, the crossing without it is read
    (GR18 for GR16, GR20 for GR17) and the figure is put on the nearest rail;
    such a figure stands on a runner-up only at least ``stand_alt_nearer``
    nearer its foot than on the tile read (a monk seen from the side stands
    about 0.19 from the cloister's spot of B, and as far from A's: the tile
    read is kept).
    ``rows`` and ``tiles`` are changed in place.
    """
    looks = out.debug.get("looks", {})
    for i in range(len(rows)):
        b, kind, t, frac, loc, _mt = rows[i]
        if not _may_stand_elsewhere(rows[i], given, cfg):
            continue
        look = looks.get(t.cell, {})
        held = Counter(x.tile.id for x in tiles.values())
        placed = {c: (x.tile, x.rot) for c, x in tiles.items()}
        for tile, rot, misfit in look.get("runners", ()):
            if misfit > look["read"] + cfg.stand_alt_slack or held[tile.id] >= tile.count:
                continue
            lo = _locate(frac, tile, rot, "meeple", cfg)
            if lo is None or lo[3] > cfg.stand_alt_distance or not fits_neighbours(tile, rot, t.cell, placed):
                continue
            if kind == "meeple" and loc is not None and lo[3] > loc[3] - cfg.stand_alt_nearer:
                continue  # the same place to stand, no nearer (a monk on the cloister of B and of A)
            t_new = _Tile(t.cell, tile, rot, t.A, t.score)
            stand = _locate_read(frac, t_new, given, "meeple", cfg) or lo
            rows[i] = (b, "meeple", t_new, frac, stand, b.info["_matches"]["meeple"])
            _take_runner_up(rows, b, t_new, tiles, given, out, cfg, "follower")
            log.debug("figures: a figure read as %s at %s has no standing location near its foot on %s rot %d: "
                      "read %s rot %d there", kind, t.cell, t.tile.id, t.rot, tile.id, rot)
            break


def _may_stand_elsewhere(row: tuple, given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig) -> bool:
    """Whether the figure of ``row`` (``_classify``'s ``(blob, kind, tile, frac, location, match)``)
    may stand on a runner-up tile (:func:`_stand_on_runner_up`).

    A figure read standing: when its location on the tile read is more than
    ``stand_alt_far`` away (0: never).  A farmer: when its outline fits standing
    at least ``stand_alt_gap`` better than lying and the tile read has no standing
    location within ``max_spot_distance`` of its foot.  Any other row: never.
    """
    b, kind, t, frac, loc, _mt = row
    shapes = b.info.get("_matches", {})
    if "meeple" not in shapes:
        return False
    if kind == "meeple":
        return cfg.stand_alt_far > 0 and loc is not None and loc[3] > cfg.stand_alt_far
    if kind != "farmer" or "farmer" not in shapes:
        return False
    if shapes["meeple"]["score"] - shapes["farmer"]["score"] < cfg.stand_alt_gap:
        return False
    here = _locate_read(frac, t, given, "meeple", cfg)
    return here is None or here[3] > cfg.max_spot_distance


def _promote_tents(rows: list[tuple], players: Sequence[int], colour_of: Mapping[int, Any], tiles: dict[Cell, _Tile],
                   canvas: _Canvas, given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig) -> None:
    """Read as a tent the likeliest tent among the cowboys of each player who has no tent read.

    Every player has one tent (seed 000, rules.md section 6), and a tent's outline
    from above fits a cowboy's, lying or standing, nearly as well (the roof's two
    slopes look alike a quarter turn round); so where a colour has no tent read,
    its cowboy whose tent decision (:func:`_roles`) is least against a tent is one
    when that logit is above ``-cfg.tent_promote`` (``-cfg.tent_promote_black`` for a black
    cowboy: a black solid's faces show almost no shading, so the decision's shading
    terms tell little and its logit strays further), its colour may be a tent, the
    tent's outline fits it at most ``tent_promote_slack`` worse than a cowboy's
    and its foot lies within ``max_spot_distance`` of a mountain spot: the tent's
    or, where that logit is above ``tent_promote_spots`` (the tent decision itself
    says tent), any solid figure's there (a tent that shares its mountain with a
    cowboy stands aside, off its own spot, and a tent may stand anywhere on its
    mountain; a cowboy at his own spot whose logit is near zero stays one).
    Where the tent's foot lies within ``tent_promote_near`` of the tent's own spot
    and no farther from it than the cowboy's foot from his location, the outline
    slack is waived and the logit need only be above ``-max(limit,
    tent_promote_near_logit)``: where a tent stands beside an ore stack or
    another figure, its outline is cut short or merged and fits a cowboy's as
    well, but its foot still stands where a tent stands.  On 900 Gold Rush
    photos read with their true tiles (``scripts/figure_dev_eval.py``, six
    development series of ``scorer synth --difficulty mixed``) the figure errors
    fell from 271 to 240: 17 tents read as cowboys before are read right, one
    lying cowboy became a tent.
    ``rows`` (``_classify``'s ``(blob, kind, tile, frac, location, match)``) is changed in place.
    """
    if cfg.tent_promote <= 0:
        return
    has = {colour_of[i].colour for i in players if rows[i][1] == "tent"}
    best: dict[str, tuple[float, int, tuple]] = {}
    for i in players:
        b, kind = rows[i][0], rows[i][1]
        info = b.info
        z = info.get("_logits", {}).get("tent")
        col = colour_of[i].colour
        limit = cfg.tent_promote_black if col == "black" and cfg.tent_promote_black > 0 else cfg.tent_promote
        if kind not in ("meeple", "farmer") or col in has or z is None or info.get("_demoted"):
            continue
        mt = info.get("_matches", {}).get("tent")
        if mt is None or "tent" not in info.get("_roles", ()) or info.get("_cut") or z <= best.get(col, (-math.inf,))[0]:
            continue
        at = _locate_foot(mt["foot"], "tent", tiles, canvas, given, cfg)
        if at is None:
            continue
        t, frac, own = at
        near = cfg.tent_promote_near > 0 and own is not None and own[3] <= min(cfg.tent_promote_near, rows[i][4][3])
        if z <= -(max(limit, cfg.tent_promote_near_logit) if near else limit):
            continue
        sh = info.get("shapes", {})
        if not near and sh.get("tent", 0.0) < max(sh.get("meeple", 0.0), sh.get("farmer", 0.0)) - cfg.tent_promote_slack:
            continue  # a cowboy's outline fits clearly better
        loc = own if near else _locate_read(frac, t, given, "tent", cfg,
                                            _MOUNTAIN_SOLIDS if z > cfg.tent_promote_spots else ())
        if loc is None or loc[3] > cfg.max_spot_distance:
            continue
        best[col] = (z, i, (b, "tent", t, frac, loc, mt))
    for _, i, row in best.values():
        rows[i] = row


def _cowboy_fit(info: Mapping[str, Any]) -> float:
    """A candidate's best outline correlation as a follower or cowboy, standing or lying (0 without one)."""
    sh = info.get("shapes", {})
    return max(sh.get("meeple", 0.0), sh.get("farmer", 0.0))


def _on_tent_spot(row: tuple, tiles: dict[Cell, _Tile], canvas: _Canvas,
                  given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig) -> bool:
    """Whether a candidate read as a tent (a ``_classify`` row) stands nearer the tent's own spot than a cowboy's.

    Its location's distance (the tent's foot to the tent's spot, tile units)
    is no more than that of its standing or lying cowboy outline's foot to the
    nearer of their locations on the tile read: the outlines of the two solids
    from above are nearly alike, but a tent stands on its own spot and a cowboy
    on his feature's (see :func:`_demote_far_tents`).
    """
    info = row[0].info
    body = []
    for kind in ("meeple", "farmer"):
        mt = info.get("_matches", {}).get(kind)
        at = None if mt is None else _locate_foot(mt["foot"], kind, tiles, canvas, given, cfg)
        if at is not None and at[2] is not None:
            body.append(at[2][3])
    return not body or row[4][3] <= min(body)


def _cap_cowboys(rows: list[tuple], players: Sequence[int], colour_of: Mapping[int, Any],
                 tiles: dict[Cell, _Tile], canvas: _Canvas, given: Mapping[Cell, tuple[TileType, int]],
                 cfg: FigureConfig) -> int:
    """Read as a tent or an ore stack the cowboys of a colour beyond the most a player has on the tiles.

    A Gold Rush player has five cowboys, one of them on the score track, and one
    tent (seed 000, "Příprava hry"; ``rules.md`` section 6): at most
    ``max_cowboys`` (4) of a colour stand on the tiles.  While more are read,
    the one likeliest something else (:func:`_likeliest_not_cowboy`: the
    player's tent where none is read, an ore stack where it is black, each
    only where a mountain spot of the tile read takes its foot) is read so.  A
    colour with no such candidate left keeps its cowboys, and so do cells read
    with more figures than a tile holds (:func:`_crowded_rows`: the table).
    ``rows`` (``_classify``'s ``(blob, kind, tile, frac, location, match)``)
    is changed in place.

    Returns
    -------
    int
        How many cowboys were read as something else.
    """
    changed = 0
    crowded = _crowded_rows(rows, players, colour_of, cfg)
    for col in sorted({colour_of[i].colour for i in players}):
        while True:
            cowboys = [i for i in players if colour_of[i].colour == col and rows[i][1] in ("meeple", "farmer")]
            if len(cowboys) <= cfg.max_cowboys:
                break
            best = _likeliest_not_cowboy(rows, [i for i in cowboys if rows[i][2].cell not in crowded], players,
                                         colour_of, tiles, canvas, given, cfg)
            if best is None:
                break
            z, i, row = best
            log.debug("figures: %d %s cowboys read, at most %d on the tiles: the one at %s read as %s (logit %.2f)",
                      len(cowboys), col, cfg.max_cowboys, rows[i][2].cell, row[1], z)
            rows[i] = row
            changed += 1
    return changed


def _crowded_rows(rows: list[tuple], players: Sequence[int], colour_of: Mapping[int, Any],
                  cfg: FigureConfig) -> set[Cell]:
    """Cells of ``rows`` read with more figures than a tile holds, as :func:`_crowded_cells` counts them.

    More than ``max_colour_figures`` cowboys and tents of one colour, or more
    than ``max_cell_followers`` cowboys of any colour: a patterned table whose
    cells were taken for figures.  ``players`` index the rows of player figures,
    ``colour_of`` their colours.
    """
    return _crowded([(rows[i][2].cell, colour_of[i].colour, rows[i][1] != "tent") for i in players
                     if rows[i][1] in ("meeple", "farmer", "tent")], cfg)


def _likeliest_not_cowboy(rows: list[tuple], cowboys: Sequence[int], players: Sequence[int],
                          colour_of: Mapping[int, Any], tiles: dict[Cell, _Tile], canvas: _Canvas,
                          given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig
                          ) -> tuple[float, int, tuple] | None:
    """Of the cowboys ``cowboys`` (indices into ``rows``), the one likeliest a tent or an ore stack.

    A tent only where no tent of the cowboy's colour is read (one a player), an
    ore stack only for a black one, and only where the solid's foot lies within
    ``max_spot_distance`` of a mountain spot of the tile read.  A tent whose
    foot lies no farther from the tent's own spot than the cowboy's foot from
    his location goes first (the outlines of the two solids from above are
    nearly alike, but a cowboy stands on his feature's spot and a tent on its
    own; see :func:`_demote_far_tents`); then the decision logit of the solid
    (:func:`_roles`) ranks them.  Returns ``(logit, index, new row)`` or
    ``None`` when none can be read so.
    """
    tents = {colour_of[i].colour for i in players if rows[i][1] == "tent"}
    best = None
    for i in cowboys:
        b = rows[i][0]
        info = b.info
        logits = info.get("_logits", {})
        options = [] if colour_of[i].colour in tents else [("tent", logits.get("tent"))]
        if info.get("class") == "black":
            options.append(("ore", logits.get("ore")))
        for kind, z in options:
            mt = info.get("_matches", {}).get(kind)
            if z is None or mt is None:
                continue
            at = _locate_foot(mt["foot"], kind, tiles, canvas, given, cfg)
            if at is None or at[2] is None or at[2][3] > cfg.max_spot_distance:
                continue
            rank = (kind == "tent" and at[2][3] <= rows[i][4][3], z)
            if best is None or rank > best[0]:
                best = (rank, i, (b, kind, *at, mt))
    return None if best is None else (best[0][1], best[1], best[2])


def _one_cowboy(rows: list[tuple], players: Sequence[int], colour_of: Mapping[int, Any],
                tiles: dict[Cell, _Tile], canvas: _Canvas, given: Mapping[Cell, tuple[TileType, int]],
                cfg: FigureConfig) -> set[int]:
    """One cowboy a tile: of two or more read on one, the others are a tent, an ore stack or nothing.

    A cowboy is placed only on the tile just placed, one a turn (seed 000,
    "2a. Umístění figurky kovboje"; ``rules.md`` section 6), so a tile holds at
    most one; tents and ore stacks may share it.  While a tile holds two or
    more, the one likeliest a tent or an ore stack
    (:func:`_likeliest_not_cowboy`) is read so; where none can be, all but the
    one whose outline fits a cowboy best are a figure's shade or shadow.
    Cells read with more figures than even a misread leaves
    (:func:`_crowded_rows`) are left as they are: they show the table, and
    :func:`_crowded_cells` drops them whole.  ``rows`` is changed in place.

    Returns
    -------
    set of int
        Indices into ``rows`` of the cowboys that are no figure (to drop).
    """
    cells: dict[Cell, list[int]] = {}
    crowded = _crowded_rows(rows, players, colour_of, cfg)
    for i in players:
        if rows[i][1] in ("meeple", "farmer") and rows[i][2].cell not in crowded:
            cells.setdefault(rows[i][2].cell, []).append(i)
    drop: set[int] = set()
    for cell, idx in sorted(cells.items()):
        while len(idx) >= 2:
            best = _likeliest_not_cowboy(rows, idx, players, colour_of, tiles, canvas, given, cfg)
            if best is None:
                keep = max(idx, key=lambda i: _cowboy_fit(rows[i][0].info))
                log.debug("figures: %d cowboys read on %s, one a tile: only the best fitting kept", len(idx), cell)
                drop.update(i for i in idx if i != keep)
                break
            z, i, row = best
            log.debug("figures: %d cowboys read on %s, one a tile: the %s one read as %s (logit %.2f)",
                      len(idx), cell, colour_of[i].colour, row[1], z)
            rows[i] = row
            idx.remove(i)
    return drop


def _demote_far_tents(rows: list[tuple], tiles: dict[Cell, _Tile], canvas: _Canvas,
                      given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig) -> int:
    """Read as a standing cowboy a tent whose foot stands far from a tent's spot and near a cowboy's.

    A tent read (by its decision, :func:`_roles`, or promoted, :func:`_promote_tents`)
    whose tent decision logit is below ``tent_demote_logit``, whose tent outline's
    foot lies farther than ``tent_demote_far`` from the tent's own spot, and whose
    standing cowboy outline's foot lies within ``tent_demote_near`` of a cowboy's
    location on its tile, is that cowboy: the outlines of the two solids from above
    are nearly alike, but a cowboy stands on his feature's spot and a tent on its
    own (the renderer's spots, ``topdown.FIGURE_OFFSETS``; a tent that shares its
    mountain with a cowboy stands aside, which a logit above ``tent_demote_logit``
    still reads).  On 900 Gold Rush development photos read with their true tiles
    (``scripts/figure_dev_eval.py``) 15 cowboys read as tents before are read right,
    no tent is lost, and with the second promotion that follows (the tent of the
    cowboy's player among his other cowboys) 3 tents more: figure errors 231 -> 195.
    ``rows`` (``_classify``'s ``(blob, kind, tile, frac, location, match)``) is
    changed in place; such a cowboy is marked (``info["_demoted"]``) so that
    :func:`_promote_tents` does not take him again.

    Returns
    -------
    int
        How many tents were read as cowboys.
    """
    if cfg.tent_demote_far <= 0:
        return 0
    demoted = 0
    for i, row in enumerate(rows):
        b, kind = row[0], row[1]
        info = b.info
        z = info.get("_logits", {}).get("tent")
        matches = info.get("_matches", {})
        tent, body = matches.get("tent"), matches.get("meeple")
        if kind != "tent" or z is None or z >= cfg.tent_demote_logit or tent is None or body is None:
            continue
        own = _locate_foot(tent["foot"], "tent", tiles, canvas, given, cfg)
        if own is not None and own[2] is not None and own[2][3] <= cfg.tent_demote_far:
            continue
        at = _locate_foot(body["foot"], "meeple", tiles, canvas, given, cfg)
        if at is None or at[2] is None or at[2][3] > cfg.tent_demote_near:
            continue
        rows[i] = (b, "meeple", *at, body)
        info["_demoted"] = True
        demoted += 1
    return demoted


def _touching(a: _Blob, b: _Blob, reach: float) -> bool:
    """Whether some pixel of candidate ``a`` lies within ``reach`` (tile units) of one of ``b``'s."""
    lo, hi = b.xy.min(axis=0) - reach, b.xy.max(axis=0) + reach
    near = a.xy[np.all((a.xy >= lo) & (a.xy <= hi), axis=1)]
    if not len(near):
        return False
    lo, hi = a.xy.min(axis=0) - reach, a.xy.max(axis=0) + reach
    other = b.xy[np.all((b.xy >= lo) & (b.xy <= hi), axis=1)]
    if not len(other):
        return False
    d2 = ((near[:, None, :] - other[None, :, :]) ** 2).sum(axis=2)
    return bool(d2.min() <= reach * reach)


def _drop_shadows(rows: list[tuple], allowed: Sequence[str], out: FigureReading, cfg: FigureConfig) -> None:
    """Drop the figures of a colour no player has that touch another kept candidate: its shadow.

    A figure or an ore stack casts its shadow on the tile beside it, and its side
    turned from the light is darker than its lit side; both read as a candidate of
    grey (Gold Rush has no grey figures, rules.md section 6), split from the
    figure by colour but touching it.  A real figure reads in its own colour;
    so a player-figure candidate whose colour class no player has and whose
    pixels come within ``shadow_touch`` (tile units) of another kept candidate
    (figure, Sheriff, ore stack) is that candidate's shadow or shaded side.
    ``rows`` (``_classify``'s ``(blob, kind, tile, frac, location, match)``) is changed in place.
    """
    from . import colour

    drop = set()
    for i, r in enumerate(rows):
        info = r[0].info
        cls = info.get("class", "")
        if r[1] not in ("meeple", "farmer", "tent") or cls not in colour.COLOURS or cls in allowed:
            continue
        if any(j != i and j not in drop and rows[j][0].info.get("class") != cls
               and _touching(r[0], rows[j][0], cfg.shadow_touch) for j in range(len(rows))):
            drop.add(i)
            info["why"] = "shadow of a candidate it touches"
            out.blobs.append({**_public(info), "kept": False, "why": info["why"]})
    rows[:] = [r for i, r in enumerate(rows) if i not in drop]


def _hidden_by_stacks(rows: list[tuple], cands: list[_Blob], norm: np.ndarray, res: np.ndarray, owner: np.ndarray,
                      tiles: dict[Cell, _Tile], canvas: _Canvas, cam: Camera,
                      given: Mapping[Cell, tuple[TileType, int]], allowed: Sequence[str], cfg: FigureConfig,
                      exp: np.ndarray | None = None) -> None:
    """Add the cowboys and the Sheriff that an ore stack hides but for a few pixels of their colour.

    A figure standing on a mountain behind or beside its ore stack (rules.md
    section 6: the stack lies at one spot of the mountain, where cowboys, tents
    and the Sheriff stand too) shows only what the stack does not cover: its
    head or an arm beside the stack, often hanging over the next tile or the
    table.  Such a part is too small, or too cut, for any solid's outline, or
    it is swallowed by the stack's candidate.  Around every ore stack read
    (within ``hidden_reach`` of its pixels), the pixels nearest a player colour
    of ``allowed`` or the Sheriff's gold (:func:`scorer.vision.colour.distances`,
    within ``hidden_colour``) are counted where the art does not explain them
    (residual at least ``residual_low``, and no art of a like colour, within
    twice ``hidden_colour``, in the expected picture ``exp`` within ``border``
    and ``open_px``: a nugget beside the stack; in the seams between tiles
    always; on the table only where at most ``hidden_table`` of the table
    within half a tile of the stack has a like colour), leaving out the pixels
    of other figures kept and their rims (``open_px``).  A colour group
    (:data:`_GROUP`: yellow wood in shade looks like the Sheriff's gold; their
    median colour is his when at least ``hidden_gold`` nearer his gold than
    yellow wood, :func:`scorer.vision.colour.sheriff_score`) with at least
    ``hidden_mm2`` of them is a cowboy hidden there, or the Sheriff (one, the
    largest, and none when one was read; a cowboy seen beside two stacks is
    read once).  Its foot is taken from the stack's towards those pixels (at
    most ``min_foot_gap``, after pulling them back by the lean of a figure's
    upper half) and located as a standing figure's; a cowboy of its colour
    kept there already is not read twice (:func:`_seen_already`).  ``rows``
    (``_classify``'s ``(blob, kind, tile, frac, location, match)``) and
    ``cands`` (the candidates, for review) are changed in place.
    """
    from . import colour

    P = canvas.px
    H, W = owner.shape
    pix_mm2 = (cfg.lattice_mm / P) ** 2
    names = [c for c in dict.fromkeys([*allowed, "gold"]) if c not in ("black", "grey")]
    if not names:
        return
    figures = [r for r in rows if r[1] in ("meeple", "farmer", "tent", "sheriff")]
    taken_ids = np.array(sorted({int(r[0].info["_id"]) for r in figures if "_id" in r[0].info}), np.int32)
    reach = max(1, int(round(cfg.hidden_reach * P)))
    k_near = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    edge = max(1, int(round(cfg.open_px * P)))
    k_edge = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * edge + 1, 2 * edge + 1))
    art_px = max(1, int(round((cfg.border + cfg.open_px) * P)))  # across the band left out at a tile's edge too
    k_art = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * art_px + 1, 2 * art_px + 1))
    far_px = max(reach + 2, int(round(0.5 * P)))
    k_far = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * far_px + 1, 2 * far_px + 1))
    found: list[tuple[float, str, tuple]] = []
    for r in rows:
        if r[1] != "ore":
            continue
        b, mt = r[0], r[5]
        uv = b.uv.astype(int)
        lo = np.maximum(uv.min(axis=0) - far_px - 1, 0)
        hi = np.minimum(uv.max(axis=0) + far_px + 2, [W, H])
        shape = (int(hi[1] - lo[1]), int(hi[0] - lo[0]))
        m = np.zeros(shape, np.uint8)
        m[uv[:, 1] - lo[1], uv[:, 0] - lo[0]] = 1
        near = cv2.dilate(m, k_near) > 0
        own = owner[lo[1]:hi[1], lo[0]:hi[0]]
        rr = res[lo[1]:hi[1], lo[0]:hi[0]]
        free = cv2.dilate(np.isin(own, taken_ids).astype(np.uint8), k_edge) == 0  # their shaded rims too
        d = colour.distances(norm[lo[1]:hi[1], lo[0]:hi[0]].reshape(-1, 3), names).reshape(*shape, len(names))
        nearest = d.argmin(axis=2)
        close = d.min(axis=2) <= cfg.hidden_colour
        table = own < 0
        around = table & (cv2.dilate(m, k_far) > 0) & ~near
        unexplained = np.where(rr > 0, rr >= cfg.residual_low, True)
        if exp is not None:
            d_art = colour.distances(exp[lo[1]:hi[1], lo[0]:hi[0]].reshape(-1, 3), names).reshape(*shape, len(names))
        groups: dict[Any, list[int]] = {}
        for k, name in enumerate(names):
            groups.setdefault(_GROUP.get(name, name), []).append(k)
        for ks in groups.values():
            # Yellow wood and the Sheriff's gold shade into each other (yellow in shade looks gold): one region.
            sel = near & free & close & np.isin(nearest, ks) & unexplained
            for k in ks:
                if exp is not None:  # art of this colour nearby (a nugget): misregistered, not hidden
                    art = (d_art[..., k] <= 2 * cfg.hidden_colour).astype(np.uint8)
                    sel &= ~((nearest == k) & (cv2.dilate(art, k_art) > 0))
                like = (d[..., k] <= 2 * cfg.hidden_colour) & around
                if around.sum() >= 10 and float(like.sum()) / float(around.sum()) > cfg.hidden_table:
                    sel &= ~(table & (nearest == k))  # a table of a like colour
            area = float(sel.sum()) * pix_mm2
            if area < cfg.hidden_mm2:
                continue
            rgb = norm[lo[1]:hi[1], lo[0]:hi[0]][sel].astype(np.float64)
            name = names[ks[0]]
            if "gold" in (names[k] for k in ks) and len(ks) > 1:
                gold = float(colour.sheriff_score(np.median(rgb, axis=0)[None])[0]) >= cfg.hidden_gold
                name = "gold" if gold else next(names[k] for k in ks if names[k] != "gold")
            role = "sheriff" if name == "gold" else "meeple"
            ys, xs = np.nonzero(sel)
            puv = np.column_stack([xs + lo[0], ys + lo[1]]).astype(np.float64)
            part = _Blob(b.label, puv, canvas.to_lattice(puv), rr[ys, xs], rgb, np.ones(len(xs)))
            stack_foot = np.asarray(mt["foot"], dtype=np.float64)
            seen = part.xy.mean(axis=0)
            seen = seen - (cam.lifted(seen, 0.5 * _FIGURE_HEIGHT_MM / cfg.lattice_mm)[0] - seen)
            step = seen - stack_foot
            n = float(np.linalg.norm(step))
            foot = stack_foot + (step * min(1.0, cfg.min_foot_gap / n) if n > 1e-9 else 0.0)
            if role == "meeple" and any(_seen_already(b, foot, f, name, cfg) for f in figures):
                continue
            at_tile = _tile_at(canvas.to_canvas(foot[None]), tiles, canvas)
            if at_tile is None:
                continue
            t, frac = at_tile
            loc = _locate_read(frac, t, given, role, cfg)
            if loc is None or (role == "sheriff" and loc[3] > cfg.max_spot_distance):
                continue
            part.info = _measure(part, cam, cfg)
            part.info.update(_shape(part))
            part.info.update({"class": name, "shapes": {}, "shading": {}, "hidden": round(area, 1), "foot": foot,
                              "why": "hidden by the ore stack beside it"})
            found.append((area, role, (part, role, t, frac, loc, {"score": 0.0, "foot": foot, "yaw": 0, "count": 1})))
    if any(r[1] == "sheriff" for r in rows):
        found = [f for f in found if f[1] != "sheriff"]
    kept: list[tuple[float, str, tuple]] = []
    for f in sorted(found, key=lambda f: -f[0]):
        # One Sheriff; and a cowboy seen beside two stacks is one cowboy (the larger sighting).
        if any(g[1] == f[1] == "sheriff" or (g[2][0].info["class"] == f[2][0].info["class"] and float(
                np.linalg.norm(g[2][5]["foot"] - f[2][5]["foot"])) < cfg.min_foot_gap) for g in kept):
            continue
        kept.append(f)
    for area, role, row in kept:
        log.debug("figures: a %s hidden by an ore stack at %s (%.0f mm^2 of %s)", role, row[2].cell, area,
                  row[0].info["class"])
        rows.append(row)
        cands.append(row[0])


def _seen_already(stack: _Blob, foot: np.ndarray, row: tuple, name: str, cfg: FigureConfig) -> bool:
    """Whether the figure of colour group ``name`` hidden by the ore ``stack`` with its foot at ``foot``
    (:func:`_hidden_by_stacks`) is the kept figure ``row`` seen in full.

    So it is when ``row`` is a cowboy or tent of that colour group (:data:`_GROUP`: a yellow
    one may read as gold) whose foot is within ``min_foot_gap`` of ``foot`` (two figures
    cannot stand on one spot), or a cowboy of that group touching the stack (``hidden_reach``).
    """
    cls = row[0].info.get("class")
    if row[1] not in ("meeple", "farmer", "tent") or _GROUP.get(cls, cls) != _GROUP.get(name, name):
        return False
    if float(np.linalg.norm(np.asarray(row[5]["foot"], dtype=np.float64) - foot)) < cfg.min_foot_gap:
        return True
    return row[1] != "tent" and _touching(stack, row[0], cfg.hidden_reach)


def _foot_taken(foot: np.ndarray, cls: str, kept: Sequence[tuple[np.ndarray, str]], cfg: FigureConfig) -> bool:
    """Whether a candidate's foot (lattice point) is another kept candidate's: one figure seen as two.

    Two figures cannot stand on one spot: feet closer than ``min_foot_gap``
    (tile units) are one figure's, unless the two candidates are of two
    player hues (``foot_gap_hues``): a shaded side reads darker (black, grey)
    or paler (gold) than its figure, never as another player's hue, so a
    green cowboy beside a yellow tent on one mountain are two figures.
    ``kept`` holds ``(foot, colour class)`` pairs (``"sheriff"`` for the Sheriff).
    """
    for f, c in kept:
        if float(np.linalg.norm(foot - f)) >= cfg.min_foot_gap:
            continue
        if cls != c and cls in cfg.foot_gap_hues and c in cfg.foot_gap_hues:
            continue
        return True
    return False


def _inside_outline(small: _Blob, big: _Blob, kind: str, mt: dict[str, Any], cam: Camera, canvas: _Canvas,
                    cfg: FigureConfig) -> bool:
    """Whether candidate ``small`` lies mostly within the outline of the solid fitted to ``big``.

    Only for two candidates of one colour group (:data:`_GROUP`), near each
    other; the outline (``kind`` at ``mt``'s foot and yaw, through the camera)
    is widened by ``silhouette_blur`` and must cover ``inside_share`` of
    ``small``'s pixels.
    """
    ca, cb = small.info.get("class"), big.info.get("class")
    if ca is None or cb is None or _GROUP.get(ca, ca) != _GROUP.get(cb, cb):
        return False
    if np.linalg.norm(small.info["centre"] - big.info["centre"]) > 0.6:  # tile units: no figure is longer
        return False
    P = canvas.px
    r = max(1, int(round(cfg.silhouette_blur * P)))
    lo = np.floor(np.minimum(small.uv.min(axis=0), big.uv.min(axis=0)) - 0.4 * P).astype(int)
    hi = np.ceil(np.maximum(small.uv.max(axis=0), big.uv.max(axis=0)) + 0.4 * P).astype(int)
    shape = (int(hi[1] - lo[1]), int(hi[0] - lo[0]))
    solid = "meeple" if kind == "sheriff" else kind
    sil = _render(solid, int(mt.get("count", 1)), int(mt["yaw"]), np.asarray(mt["foot"], dtype=np.float64), cam,
                  canvas, lo.astype(np.float64), shape, cfg.lattice_mm)
    sil = cv2.dilate(sil, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    uv = small.uv.astype(int) - lo
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < shape[1]) & (uv[:, 1] >= 0) & (uv[:, 1] < shape[0])
    inside = np.zeros(len(uv), bool)
    inside[ok] = sil[uv[ok, 1], uv[ok, 0]] > 0
    return bool(inside.mean() >= cfg.inside_share)


def _cut_worth_trying(info: Mapping[str, Any], cfg: FigureConfig) -> bool:
    """Whether a candidate read as an ore stack is also tried cut at its waist (:func:`_ore_cut`).

    It must be at least ``ore_cut_mm2`` large, and either the stack's outline fits it
    less than ``ore_cut_margin`` better than a figure's, or no outline fits it well
    (best correlation below ``ore_cut_fit``): one solid does not explain a cowboy
    standing against a stack, however much darker and larger the stack's part is.
    """
    sh = info.get("shapes", {})
    if cfg.ore_cut_mm2 <= 0 or info["area"] < cfg.ore_cut_mm2:
        return False
    clear = sh.get("ore", 0.0) - max(sh.get("meeple", 0.0), sh.get("farmer", 0.0), sh.get("tent", 0.0))
    return clear < cfg.ore_cut_margin or max(sh.values(), default=0.0) < cfg.ore_cut_fit


def _count_cut_need(info: Mapping[str, Any], mt: Mapping[str, Any], cfg: FigureConfig) -> float | None:
    """The least figure outline fit for a cut of a stack read too tall to stand, or ``None``: not tried.

    A black cowboy standing beside a low ore stack merges with it into one dark
    candidate that the outline of one taller stack fits (the cowboy's height read
    as tokens).  A candidate read as a stack of at least ``ore_cut_count`` tokens
    (``mt["count"]``) and at least ``ore_cut_count_mm2`` large is tried cut at
    its waist (:func:`_ore_cut`); the cut stands when the figure part's best
    cowboy outline correlation is at least ``ore_cut_count_fit`` and at most
    ``ore_cut_count_slack`` below the whole candidate's stack outline
    correlation (``info["shapes"]["ore"]``): a stack of fewer tokens and a
    cowboy explain the candidate about as well as one tall stack.

    Returns
    -------
    float or None
        The least correlation (unitless, -1..1) the figure part must reach.
    """
    if cfg.ore_cut_count <= 0 or int(mt.get("count", 1)) < cfg.ore_cut_count or info["area"] < cfg.ore_cut_count_mm2:
        return None
    return max(cfg.ore_cut_count_fit, float(info.get("shapes", {}).get("ore", 0.0)) - cfg.ore_cut_count_slack)


def _ore_remainder(b: _Blob, mt: dict[str, Any], cam: Camera, canvas: _Canvas, cfg: FigureConfig) -> _Blob | None:
    """The part of candidate ``b``, read as an ore stack, that the stack's outline does not explain.

    The outline of the stack fitted (``mt``: foot, yaw, count; through the
    camera) is widened by ``silhouette_blur``; the candidate's pixels outside
    it are opened by ``ore_split_open`` (the thin rim a slightly misfitted
    outline leaves) and the largest connected part is returned when it is at
    least ``ore_split_mm2`` large (a figure standing against the stack), else
    ``None``.
    """
    P = canvas.px
    lo = np.floor(b.uv.min(axis=0) - 2).astype(int)
    hi = np.ceil(b.uv.max(axis=0) + 3).astype(int)
    shape = (int(hi[1] - lo[1]), int(hi[0] - lo[0]))
    sil = _render("ore", int(mt.get("count", 1)), int(mt["yaw"]), np.asarray(mt["foot"], dtype=np.float64), cam,
                  canvas, lo.astype(np.float64), shape, cfg.lattice_mm)
    r = max(1, int(round(cfg.silhouette_blur * P)))
    sil = cv2.dilate(sil, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    uv = b.uv.astype(int) - lo
    m = np.zeros(shape, np.uint8)
    m[uv[:, 1], uv[:, 0]] = 1
    m[sil > 0] = 0
    ro = max(1, int(round(cfg.ore_split_open * P)))
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * ro + 1, 2 * ro + 1)))
    n, lab = cv2.connectedComponents(m, connectivity=8)
    if n <= 1:
        return None
    sizes = np.bincount(lab.ravel(), minlength=n)[1:]
    k = int(np.argmax(sizes)) + 1
    log.debug("figures: ore candidate of %.0f mm^2 leaves %.0f mm^2 outside its outline", b.info.get("area", 0.0),
              sizes[k - 1] * (cfg.lattice_mm / P) ** 2)
    if sizes[k - 1] * (cfg.lattice_mm / P) ** 2 < cfg.ore_split_mm2:
        return None
    sel = lab[uv[:, 1], uv[:, 0]] == k
    return _Blob(b.label, b.uv[sel], b.xy[sel], b.res[sel], b.rgb[sel], b.ratio[sel])


def _ore_cut(b: _Blob, norm: np.ndarray, res: np.ndarray, owner: np.ndarray, cam: Camera, canvas: _Canvas,
             cfg: FigureConfig, game: str, part_mm2: float | None = None) -> _Blob | None:
    """The part of candidate ``b`` a figure standing against a small ore stack makes, found by cutting ``b``.

    A taller stack's outline covers a figure standing against a small stack,
    so :func:`_ore_remainder` finds nothing left over.  The candidate is then
    cut across its long axis where it is narrowest (the waist between two
    touching solids, within the middle half of its length); each part is
    matched alone (the other part's pixels lent to no one), and the part of
    ``b`` outside the stack's outline fitted to the part taken for the stack
    (:func:`_ore_remainder`) is returned, or the other part when nothing is
    left outside.  The part taken for the stack is the one the ore decision
    (:func:`_stack_logit`) is surest of (``ore_cut_pick = "logit"``), or the
    one the stack's outline fits best (``"fit"``): a cowboy's part fits the
    outline of a stack of three or four tokens well too, often better than
    the stack's own part, a single token whose outline from above a tent's
    fits as well.  ``None`` when either part is smaller than
    ``ore_split_mm2`` or the part returned is smaller than
    ``ore_cut_part_mm2`` (most of a cowboy; ``part_mm2`` when given).  Whether the cut stands is
    decided by reading both parts (:func:`_classify`).
    """
    from . import colour

    P = canvas.px
    xy = b.xy
    if len(xy) < 8:
        return None
    c = xy.mean(axis=0)
    _, vec = np.linalg.eigh(np.cov((xy - c).T))
    s = (xy - c) @ vec[:, 1] * P  # along the long axis, canvas pixels
    lo, hi = np.percentile(s, [25, 75])
    edges = np.arange(math.floor(s.min()), math.ceil(s.max()) + 1.0)
    if len(edges) < 4:
        return None
    counts, _ = np.histogram(s, bins=edges)
    mid = (edges[:-1] + edges[1:]) / 2
    inner = (mid >= lo) & (mid <= hi)
    if not inner.any():
        return None
    k = int(np.argmin(np.where(inner, counts, np.iinfo(np.int64).max)))
    pix_mm2 = (cfg.lattice_mm / P) ** 2
    sides = [s > mid[k], s <= mid[k]]
    if min(int(m.sum()) for m in sides) * pix_mm2 < cfg.ore_split_mm2:
        return None
    parts = [_Blob(b.label, b.uv[m], b.xy[m], b.res[m], b.rgb[m], b.ratio[m]) for m in sides]
    fits = []
    rows, cols = b.uv[:, 1].astype(int), b.uv[:, 0].astype(int)
    saved = owner[rows, cols].copy()
    try:
        for part, m in zip(parts, sides):
            part.info = _measure(part, cam, cfg)
            _read_colour(part, None, cfg)
            part.info["_id"] = int(saved[0])
            owner[rows, cols] = saved
            owner[rows[~m], cols[~m]] = np.iinfo(np.int32).max  # the other part: no one's to match
            fits.append(_match_shapes(part, norm, res, owner, cam, canvas, cfg, game))
    finally:
        owner[rows, cols] = saved
    scored = [(found["ore"]["score"] if cfg.ore_cut_pick == "fit" else _stack_logit(part, found), i)
              for i, (part, found) in enumerate(zip(parts, fits)) if "ore" in found]
    if not scored:
        return None
    i = max(scored)[1]
    rest = _ore_remainder(b, fits[i]["ore"], cam, canvas, cfg)
    rest = rest if rest is not None else parts[1 - i]
    if len(rest.uv) * pix_mm2 < (cfg.ore_cut_part_mm2 if part_mm2 is None else part_mm2):
        return None  # too small for a figure beside the stack: the stack's own side (a tall stack, two stacks)
    return rest


def _stack_logit(part: _Blob, found: Mapping[str, Mapping[str, Any]]) -> float:
    """The ore decision's logit (:func:`_decide`; positive: a stack) for a part of a cut candidate
    (:func:`_ore_cut`), measured (``part.info``: :func:`_measure`, :func:`_read_colour`), with
    ``found`` its outline matches (:func:`_match_shapes`: solid -> {"score": correlation, ...})."""
    sh = {k: float(v["score"]) for k, v in found.items()}
    return _decide("ore", _decision_features(dict(part.info), sh))


def _lean_back(foot: np.ndarray, cell: Cell, loc: tuple, tiles: dict[Cell, _Tile], canvas: _Canvas, cam: Camera,
               given: Mapping[Cell, tuple[TileType, int]], cfg: FigureConfig) -> tuple:
    """The ore location found with the foot moved back towards the camera's nadir, when that fits better.

    A stack is often seen by its dark top alone (its pale sides are the
    mountains' colour), and a top fits stacks of every height with the foot
    moved along the lean (away from the nadir): the true foot may lie up to
    the lean of the tallest stack tried (``max_stack`` tokens) nearer the
    nadir than the foot found, on the same tile (``cell``).

    Returns
    -------
    tuple
        ``loc`` (:func:`_locate`: at, confidence, alternatives, distance in
        tile units) or a location nearer its spot.
    """
    from ..render.figures3d import ORE_TOKEN_MM

    h = cfg.max_stack * ORE_TOKEN_MM[1] / cfg.lattice_mm
    foot = np.asarray(foot, dtype=np.float64).reshape(1, 2)
    lean = cam.lifted(foot, h) - foot
    best = loc
    for k in np.linspace(0.25, 1.0, 4):
        at = _tile_at(canvas.to_canvas(foot - k * lean), tiles, canvas)
        if at is None or at[0].cell != cell:
            continue
        alt = _locate_read(at[1], at[0], given, "ore", cfg)
        if alt is not None and alt[3] < best[3]:
            best = alt
    return best


def _kind_confidence(info: dict[str, Any], kind: str, cfg: FigureConfig) -> float:
    """Probability (0-1) that the candidate is a figure at all and of the kind read.

    The product of a logistic of how well its best outline matched (above
    ``min_shape_score``) and of the margins of the linear decisions it went
    through (tent or not, ore or not, the Sheriff or not, gold bars or not).
    """
    if info.get("hidden"):
        # Seen by a few pixels of its colour beside an ore stack (_hidden_by_stacks): even odds at hidden_mm2.
        return float(info["hidden"] / (info["hidden"] + cfg.hidden_mm2))
    best = max(info.get("shapes", {}).values(), default=0.0)
    p = 1.0 / (1.0 + math.exp(-(best - cfg.min_shape_score) / 0.05))
    for name, z in info.get("_logits", {}).items():
        z = float(np.clip(z, -30, 30))
        yes = 1.0 / (1.0 + math.exp(-z))
        p *= yes if name == kind else 1.0 - yes
    return float(p)


def _public(info: dict[str, Any]) -> dict[str, Any]:
    """The JSON-ready measurements of a candidate (``FigureReading.blobs``)."""
    keep = ("area", "radial", "across", "smear16", "elong", "dark", "peak", "convexity", "circularity", "class",
            "shapes", "shading", "sheriff", "hidden")
    d = {k: (round(float(info[k]), 3) if isinstance(info[k], (float, np.floating)) else info[k]) for k in keep if k in info}
    d["rgb"] = [int(round(v)) for v in info["rgb"]]
    if info.get("_bg") is not None:
        d["beneath"] = [int(round(v)) for v in info["_bg"]]
    if info.get("_logits"):
        d["logits"] = {k: round(float(v), 3) for k, v in info["_logits"].items()}
    return d


# --------------------------------------------------------------------------- silhouettes


#: Yaw steps tried per model (figures symmetric under a half turn need half the range).
_YAWS = {"meeple": 12, "sheriff": 12, "tent": 9, "farmer": 24, "ore": 1, "gold": 6}


def _model(kind: str, count: int, k: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Vertices ``(N, 3)`` (mm, foot at the origin, ``Z`` down) and per-face index ranges of a figure solid.

    ``k`` indexes the yaw: ``k * pi / steps`` (a full turn for the farmer).
    """
    key = (kind, count, k)
    hit = _MODELS.get(key)
    if hit is not None:
        return hit
    if _FAST:
        with _MODEL_LOCK:  # solids may be looked up from several threads (a caller reading photos in parallel)
            hit = _MODELS.get(key)
            if hit is not None:
                return hit
            if not _MODEL_FILE_READ:
                _read_models()
                hit = _MODELS.get(key)
                if hit is not None:
                    return hit
            # Building a solid costs milliseconds in every new process: build every yaw of this
            # solid at once and keep them in the disk cache (:func:`_save_models`).
            for j in range(_YAWS[kind]):
                if j != k and (kind, count, j) not in _MODELS:
                    _build_model(kind, count, j)
            out = _build_model(kind, count, k)
            _save_models()
            return out
    return _build_model(kind, count, k)


def _build_model(kind: str, count: int, k: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """:func:`_model` without the caches' look-up: builds the solid and stores it in them."""
    key = (kind, count, k)
    from ..render.figures3d import figure_faces

    steps = _YAWS[kind]
    yaw = k * (2 * math.pi if kind == "farmer" else math.pi) / steps
    solid = "meeple" if kind == "meeple" else kind
    faces = figure_faces(solid, "red" if solid in ("meeple", "farmer", "tent") else None, np.zeros(3), yaw,
                         count=max(1, count), rng=np.random.default_rng(0))
    verts = np.vstack([f.verts for f in faces])
    spans = []
    i = 0
    for f in faces:
        spans.append((i, i + len(f.verts)))
        i += len(f.verts)
    # Faces turned alike (normals within _PLANE_DEG) form one plane of the solid's shading.
    planes: list[np.ndarray] = []
    group = []
    for f in faces:
        n = np.asarray(f.normal, dtype=np.float64)
        for g, p in enumerate(planes):
            if float(n @ p) > math.cos(math.radians(_PLANE_DEG)):
                group.append(g)
                break
        else:
            planes.append(n)
            group.append(len(planes) - 1)
    _FACES[key] = (np.array([f.normal for f in faces], dtype=np.float64),
                   np.array([f.verts.mean(axis=0) for f in faces]), np.array(group))
    _MODELS[key] = (verts, spans)
    return verts, spans


#: Faces whose normals are within this angle shade as one plane (degrees).
_PLANE_DEG = 35.0

#: Whether this process has looked for the disk cache of solids (:func:`_read_models`).
_MODEL_FILE_READ = False
#: Held while solids are read, built or written.
_MODEL_LOCK = threading.Lock()
#: Bump when the layout of the cached solids file changes.
_MODEL_FILE_VERSION = 1
#: Solids files kept in the cache folder (each 1-2 MB); older ones are removed when one is written.
_MODEL_FILES_KEPT = 3


def _model_file():
    """Where the solids of :func:`_model` are cached (``None``: no disk cache); named by a hash of the code
    that builds them, so that a change of the solids or of :func:`_build_model` makes a new file."""
    import hashlib
    import inspect
    from pathlib import Path

    from .recognise import cache_dir

    folder = cache_dir()
    if folder is None:
        return None
    h = hashlib.blake2b(digest_size=16)
    src = Path(__file__).resolve().parent.parent / "render" / "figures3d.py"
    try:
        h.update(src.read_bytes())
        h.update(inspect.getsource(_build_model).encode())
    except OSError:
        return None
    h.update(repr((_MODEL_FILE_VERSION, sorted(_YAWS.items()), _PLANE_DEG, np.__version__.split(".")[0])).encode())
    return folder / "figures" / f"solids-{h.hexdigest()}.npz"


def _read_models() -> None:
    """Fill :data:`_MODELS` and :data:`_FACES` from the disk cache, once per process (a bad file is ignored)."""
    global _MODEL_FILE_READ
    _MODEL_FILE_READ = True
    path = _model_file()
    if path is None or not path.is_file():
        return
    try:
        with np.load(path, allow_pickle=False) as z:
            d = {k: np.array(z[k]) for k in ("keys", "nv", "nf", "verts", "spans", "normals", "centres", "group")}
        keys = [str(x).split("|") for x in d["keys"]]
        iv = np.concatenate([[0], np.cumsum(d["nv"])])
        jf = np.concatenate([[0], np.cumsum(d["nf"])])
        if iv[-1] != len(d["verts"]) or jf[-1] != len(d["spans"]):
            raise ValueError("the arrays do not fit together")
        for n, (kind, count, k) in enumerate(keys):
            key = (kind, int(count), int(k))
            f0, f1 = int(jf[n]), int(jf[n + 1])
            spans = [(int(a), int(b)) for a, b in d["spans"][f0:f1]]
            _MODELS.setdefault(key, (d["verts"][iv[n]:iv[n + 1]].copy(), spans))
            _FACES.setdefault(key, (d["normals"][f0:f1].copy(), d["centres"][f0:f1].copy(), d["group"][f0:f1].copy()))
    except Exception as exc:  # noqa: BLE001 - a damaged cache file is rebuilt, never an error
        log.warning("figure solids cache %s is unreadable (%s): building them again", path, exc)


def load_cached_solids() -> None:
    """Read the figure solids from the disk cache now (once per process; later calls do nothing).

    The figure stage reads them on first use anyway; the photo pipeline calls this in a
    thread while it looks for the grid, so that the figure stage finds them in memory.
    """
    if not _MODEL_FILE_READ:
        _read_models()


def warm_solids(max_stack: int | None = None) -> int:
    """Build every figure solid the figure stage may try, and draw the art of every built-in tile
    (:func:`_drawn_art`), into the disk cache, so that no photo pays for them.

    Parameters
    ----------
    max_stack : int, optional
        Tallest ore and gold stack (default :attr:`FigureConfig.max_stack`).

    Returns
    -------
    int
        Number of solids (kind, stack height, yaw) cached.
    """
    from ..tiles import EXPANSIONS, catalog_for

    top = FigureConfig().max_stack if max_stack is None else max_stack
    for kind in _YAWS:
        for count in (range(1, top + 1) if kind in ("ore", "gold") else (1,)):
            _model(kind, count, 0)  # a solid not known yet: every yaw of it built and written to the cache
    if ART_DISK_CACHE:  # the procedural art of every built-in tile at the figure stage's size, too
        px = FigureConfig().px
        for game, exps in EXPANSIONS.items():
            for tile in catalog_for(game, exps).tiles.values():
                _drawn_art(tile, px)
    return len(_MODELS)


def _save_models() -> None:
    """Write every solid built so far to the disk cache (atomically; a folder that cannot be written is logged)."""
    import io

    from .recognise import write_cache_file

    path = _model_file()
    if path is None:
        return
    keys = [key for key in _MODELS if key in _FACES]
    buf = io.BytesIO()
    np.savez(buf, keys=np.array(["|".join(map(str, key)) for key in keys]),
             nv=np.array([len(_MODELS[key][0]) for key in keys], np.int64),
             nf=np.array([len(_MODELS[key][1]) for key in keys], np.int64),
             verts=np.concatenate([_MODELS[key][0] for key in keys]).reshape(-1, 3),
             spans=np.array([ab for key in keys for ab in _MODELS[key][1]], np.int64).reshape(-1, 2),
             normals=np.concatenate([_FACES[key][0] for key in keys]).reshape(-1, 3),
             centres=np.concatenate([_FACES[key][1] for key in keys]).reshape(-1, 3),
             group=np.concatenate([_FACES[key][2] for key in keys]).astype(np.int64))
    write_cache_file(path, buf.getvalue(), "figure solids", keep=_MODEL_FILES_KEPT, pattern="solids-*.npz")

#: Per model: face normals ``(F, 3)``, face centres ``(F, 3)`` (mm, foot at the origin) and plane ids ``(F,)``.
_FACES: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _planes(kind: str, count: int, k: int, foot: np.ndarray, cam: Camera, canvas: _Canvas, origin: np.ndarray,
            shape: tuple[int, int], mm: float) -> np.ndarray:
    """Which plane of the solid (:func:`_model`) each pixel of the window at ``origin`` sees; -1 where none.

    Faces turned away from the camera are left out and the others drawn far to
    near, so nearer faces hide farther ones.
    """
    verts, spans = _model(kind, count, k)
    normals, centres, group = _FACES[(kind, count, k)]
    C = cam.centre * mm  # camera centre, mm (Z < 0 above the table)
    world = np.column_stack([centres[:, :2] + foot[None, :] * mm, centres[:, 2]])
    view = C[None, :] - world
    visible = np.einsum("ij,ij->i", normals, view) > 0
    order = [i for i in np.argsort(-np.linalg.norm(view, axis=1)) if visible[i]]
    xy = foot[None, :] + verts[:, :2] / mm
    h = -verts[:, 2] / mm
    H = max(cam.height, 1e-6)
    plane = cam.nadir + (xy - cam.nadir) * (H / np.maximum(H - h, 1e-6))[:, None]
    q = np.round((canvas.to_canvas(plane) - origin) * 16.0).astype(np.int32)
    m = np.full(shape, -1, np.int32)
    for i in order:
        a, b = spans[i]
        cv2.fillPoly(m, [q[a:b]], int(group[i]), cv2.LINE_8, 4)
    return m


def _shading_fit(lum: np.ndarray, soft: np.ndarray, planes: np.ndarray) -> float:
    """Share of the brightness variance of a figure's pixels explained by the planes of a solid (0-1).

    Light falls alike on every point of a flat face, so a solid in the right
    pose explains a figure's shading by its faces (a tent's two roof slopes
    and gable, a meeple's front and sides); the wrong solid cuts across them.
    The pixels are those of the figure's colour (``soft`` > 0.5) the solid covers.
    """
    use = (soft > 0.5) & (planes >= 0)
    if use.sum() < 10:
        return 0.0
    v = lum[use].astype(np.float64)
    g = planes[use]
    total = float(((v - v.mean()) ** 2).sum())
    if total <= 1e-6:
        return 0.0
    n = np.bincount(g)
    s1 = np.bincount(g, weights=v)
    s2 = np.bincount(g, weights=v * v)
    within = float((s2 - s1 * s1 / np.maximum(n, 1)).sum())
    return float(np.clip(1.0 - within / total, 0.0, 1.0))


_MODELS: dict[tuple, tuple[np.ndarray, list[tuple[int, int]]]] = {}


def _render(kind: str, count: int, k: int, foot: np.ndarray, cam: Camera, canvas: _Canvas, origin: np.ndarray,
            shape: tuple[int, int], mm: float) -> np.ndarray:
    """Mask of where a figure standing on ``foot`` (lattice) covers the top-down picture (window at ``origin``)."""
    verts, spans = _model(kind, count, k)
    xy = foot[None, :] + verts[:, :2] / mm
    h = -verts[:, 2] / mm
    H = max(cam.height, 1e-6)
    scale = H / np.maximum(H - h, 1e-6)
    plane = cam.nadir + (xy - cam.nadir) * scale[:, None]
    uv = (canvas.to_canvas(plane) - origin) * 16.0
    q = np.round(uv).astype(np.int32)
    m = np.zeros(shape, np.uint8)
    for a, b in spans:
        cv2.fillPoly(m, [q[a:b]], 1, cv2.LINE_8, 4)
    return m
