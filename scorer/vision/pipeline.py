"""The photo pipeline's orchestrator: photo -> :class:`~scorer.board.Board`.

Stages in order: :func:`~scorer.vision.photo.load_photo`,
:func:`~scorer.vision.grid.find_grid`, the lattice checked by the tiles
(:func:`~scorer.vision.recognise.check_lattice`: one of another period than the
tiles', or bent by the fit, is replaced), the game guessed from the tiles when
not given (:func:`~scorer.vision.recognise.guess_catalog`, the lattice checked
again against that game's tiles alone where they rate it low and another
game's higher: :func:`check_lattice_and_game`; when the guessed
game's tiles read nothing or the guess was a close call, the other game is
read too and the one whose tiles match the photo best wins), tile recognition
(:func:`~scorer.vision.recognise.read_tiles`, decoded as a whole board; a
photo shrunk to the working size whose tiles come out too small is read again
larger), figure detection
(:func:`~scorer.vision.figures.read_figures`, whose second look at cells the
art does not explain may replace a misread tile: the board takes that tile and
keeps the first reading as its runner-up; a tile it finds under a figure or ore
stack on a cell the tile stage read empty is added, marked ``added``, when its
sides fit the neighbours, rules.md section 1; a copy beyond the box count that
the second look made goes back to a look-alike runner-up of another cell,
:func:`_settle_box`), then the ore stacks' counts
settled with their mountains' nugget symbols (:func:`~scorer.vision.ore.settle_ore_counts`,
Gold Rush).  The result is
an ordinary board that the rules engine scores, with per-detection confidences
and runner-up alternatives kept as extra fields (``confidence``,
``alternatives``) so the correction step can ask about the weakest first, and a
top-level ``photo`` key with what the pipeline saw (grid homography, cells cut by
the photo's edge, cells found to be the table, tiles apart from the board left out).
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..board import Board, Figure, Placement, Stack
from ..errors import PhotoError, ScorerError, TilesTooSmallError
from ..tiles import BUILTIN_SETS, Catalog, TileSet, catalog_for, fits_neighbours
from .grid import Grid, find_grid
from .ore import settle_ore_counts
from .photo import load_photo

log = logging.getLogger(__name__)

#: The tile catalogues a photo may show when the game is not given.
CANDIDATE_GAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("carcassonne", ("river", "goldmines")),
    ("goldrush", ("sheriff",)),
)


@dataclass
class PhotoReading:
    """Everything the pipeline read from one photo.

    Attributes
    ----------
    board : Board
        The board read (with confidences), ready to score.
    grid : Grid
        The lattice found.
    image : (H, W, 3) uint8 ndarray
        The photo as the pipeline saw it (RGB, working size).
    seconds : dict str -> float
        Wall time per stage.
    tiles, figures : object
        The stages' own readings (for debug images and review).
    """

    board: Board
    grid: Grid
    image: np.ndarray
    seconds: dict[str, float] = field(default_factory=dict)
    tiles: Any = None
    figures: Any = None


def _expansion_of(tile: Any) -> str | None:
    """The built-in expansion ``tile`` belongs to (None: a base game's own tile, or a set of the user's)."""
    return BUILTIN_SETS.get(tile.meta.get("set"), (None, None))[1]


def _used_expansions(game: str, expansions: Sequence[str], placements: dict) -> list[str]:
    """Expansions whose tiles the reading actually contains (others are dropped)."""
    have = {_expansion_of(tile) for tile, _rot in placements.values()}
    return [exp for exp in expansions if exp in have]


def read_photo_full(
    source: str | Path | np.ndarray,
    *,
    game: str | None = None,
    expansions: Sequence[str] | None = None,
    players: Sequence[str] | None = None,
    tile_sets: Iterable[str | Path | TileSet] = (),
    appearance: Any = None,
    art_dir: str | Path | None = None,
    config: Any = None,
) -> PhotoReading:
    """Read a photo (or an RGB array) into a board, keeping every stage's output.

    Parameters
    ----------
    source : path or (H, W, 3) uint8 ndarray
        Photo file (JPEG, PNG, HEIC) or an RGB image.
    game : {"carcassonne", "goldrush"}, optional
        The game on the table; guessed from the tiles when not given.
    expansions : list of str, optional
        Expansions that may be on the table (default: all of the game's).
    players : list of str, optional
        Colours in turn order; constrains the figure colours.
    tile_sets : iterable
        User tile sets (``--tiles``) added to the catalogue.
    appearance : optional
        Calibrated tile appearance (``scorer calibrate``) to match tiles against.
    art_dir : path, optional
        Folder of real tile art to match against (development).
    config : optional
        Per-stage configuration (``scorer/vision/config.toml`` by default).

    Raises
    ------
    PhotoError, TableNotFoundError, TilesTooSmallError
        The photo cannot be read or shows no tile grid; the message says what to change.
        A photo shrunk to ``config.photo.max_side`` whose tiles come out narrower than
        ``config.photo.retry_tile_px`` there is read again at up to
        ``config.photo.retry_max_side``; tiles narrower than ``config.tiles.min_tile_px``
        at the size read are refused.
    """
    from . import config as vconfig

    cfg = config or vconfig.load_config()
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    if isinstance(source, np.ndarray):
        rgb = source
    else:
        rgb = load_photo(source, max_side=cfg.photo.max_side)
    seconds["load"] = time.perf_counter() - t0

    kwargs = dict(game=game, expansions=expansions, players=players, tile_sets=tile_sets, appearance=appearance,
                  art_dir=art_dir)
    side = max(rgb.shape[:2])
    shrunk = not isinstance(source, np.ndarray) and side >= cfg.photo.max_side and cfg.photo.retry_max_side > side
    first = cfg
    if shrunk and cfg.photo.retry_tile_px > cfg.tiles.min_tile_px:
        # Tiles a little larger than the least readable are read better from more of the file's pixels.
        first = copy.copy(cfg)
        first.tiles = dataclasses.replace(cfg.tiles, min_tile_px=cfg.photo.retry_tile_px)
    try:
        return _read_loaded(rgb, source, first, seconds, **kwargs)
    except TilesTooSmallError as exc:
        # Keep what was seen so the caller can draw a debug image.
        exc.seen.setdefault("image", rgb)
        if not shrunk:
            raise
        small = exc
    except PhotoError as exc:
        exc.seen.setdefault("image", rgb)
        raise
    # The photo was shrunk to the working size and its tiles came out too small there (a large
    # board, or one far away): it is read again from the file at a larger size.
    t0 = time.perf_counter()
    large = load_photo(source, max_side=cfg.photo.retry_max_side)
    seconds["load"] += time.perf_counter() - t0
    if max(large.shape[:2]) <= side:
        if first is cfg:
            raise small
        # The file is no larger than the working size: its tiles are read at this size after all.
        try:
            return _read_loaded(rgb, source, cfg, seconds, **kwargs)
        except PhotoError as exc:
            exc.seen.setdefault("image", rgb)
            raise
    log.info("the tiles are too small at %d pixels; reading the photo again at %d pixels", side, max(large.shape[:2]))
    try:
        return _read_loaded(large, source, cfg, seconds, **kwargs)
    except PhotoError as exc:
        exc.seen.setdefault("image", large)
        raise


def _prefetch(cfg: Any, game: str | None, expansions: Sequence[str] | None,
              tile_sets: list) -> threading.Thread | None:
    """Start a thread that loads what the next stages read from the disk caches (the tile
    templates of every game the photo may show, the figure solids) while the grid is found.

    The stages get the very objects they would load themselves (the same caches), only
    sooner.  A failure here is left to the stage that needs the object, which raises it.
    """
    from .figures import load_cached_solids
    from .recognise import build_templates

    try:
        if game is not None:
            exps = tuple(expansions) if expansions is not None else dict(CANDIDATE_GAMES)[game]
            catalogs = [catalog_for(game, exps, tile_sets)]
        else:
            catalogs = [catalog_for(g, e, tile_sets) for g, e in CANDIDATE_GAMES]
    except (ScorerError, KeyError):  # the tile stage reports a bad game or tile set itself
        return None

    def load() -> None:
        try:
            for catalog in catalogs:
                build_templates(catalog, cfg.tiles)
            load_cached_solids()
        except Exception as exc:  # noqa: BLE001 - the stage that needs it raises it again
            log.debug("prefetch of the tile templates and figure solids failed: %s", exc)

    thread = threading.Thread(target=load, name="scorer-prefetch", daemon=True)
    thread.start()
    return thread


def check_lattice_and_game(rgb: np.ndarray, grid: Grid, candidates: Sequence[Catalog], cfg: Any, *, guess: bool,
                           appearance: Any = None, art_dir: Any = None) -> tuple[Grid, Any, Catalog]:
    """The lattice checked by the tiles, and the game whose tiles lie on it.

    :func:`~scorer.vision.recognise.check_lattice` rates the lattice the seams
    gave by how well its cells match the tiles of every catalogue in
    ``candidates`` and replaces it when one of another period, or another
    lattice the seams allow, matches clearly better.  With ``guess`` the game
    is then guessed on the lattice kept
    (:func:`~scorer.vision.recognise.guess_catalog`), and where the check kept
    a lattice that the guessed game's tiles rate low (below
    ``lattice_game_below``, as low as the check examines) and another game's
    tiles rate higher (by ``lattice_game_gap``), it is checked once more
    against the guessed game's tiles alone: a table the colour of
    another game's art (a pale wood under Gold Rush's sand) matches that art
    in any cells, so a wrong lattice on it rates well enough under every game
    together, or the lattice that would replace it is held to that game's
    rating as well.  When that check replaces the lattice, the game is guessed
    again on the new one.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB.
    grid : Grid
        The lattice found by :func:`~scorer.vision.grid.find_grid`.
    candidates : sequence of Catalog
        The tile sets the photo may show; without ``guess``, the first is the game's.
    cfg : TileConfig
        The ``[tiles]`` thresholds.
    guess : bool
        Whether the game is to be guessed (else ``candidates[0]`` is returned).

    Returns
    -------
    (Grid, LatticeSurvey, Catalog)
        The lattice, its survey and the catalogue to read it with.

    Raises
    ------
    TableNotFoundError
        No whole cell of the lattice lies inside the photo.
    """
    from .recognise import check_lattice, guess_catalog

    grid, survey = check_lattice(rgb, grid, candidates, cfg, appearance=appearance, art_dir=art_dir)
    if not guess:
        return grid, survey, candidates[0]
    catalog = guess_catalog(rgb, grid, candidates, cfg, art_dir=art_dir, appearance=appearance, survey=survey)
    rating = survey.rating  # per catalogue of candidates; None where the check replaced the lattice
    own = None if rating is None else float(rating[next(i for i, c in enumerate(candidates) if c is catalog)])
    if own is not None and own < cfg.lattice_game_below and own + cfg.lattice_game_gap <= float(rating.max()):
        again, survey2 = check_lattice(rgb, grid, [catalog], cfg, appearance=appearance, art_dir=art_dir,
                                       survey=survey)
        if again is not grid:
            log.info("the lattice checked against the %s tiles alone was replaced", catalog.sets[0].game)
            grid, survey = again, survey2
            catalog = guess_catalog(rgb, grid, candidates, cfg, art_dir=art_dir, appearance=appearance,
                                    survey=survey)
    return grid, survey, catalog


def _read_loaded(rgb: np.ndarray, source: Any, cfg: Any, seconds: dict[str, float], *,
                 game: str | None, expansions: Sequence[str] | None, players: Sequence[str] | None,
                 tile_sets: Iterable[str | Path | TileSet], appearance: Any, art_dir: Any) -> PhotoReading:
    from .figures import read_figures
    from .recognise import read_tiles

    tile_sets = list(tile_sets)
    t0 = time.perf_counter()
    prefetch = _prefetch(cfg, game, expansions, tile_sets) if appearance is None and art_dir is None else None
    try:
        grid = find_grid(rgb, cfg.grid)
    except BaseException:
        if prefetch is not None:
            prefetch.join()  # a process that exits now must not cut a cache file's writing short
        raise
    seconds["grid"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    if prefetch is not None:
        prefetch.join()  # the tile stage's wait for what it would otherwise load itself
    try:
        others: list[Catalog] = []
        if game is not None:
            exps = tuple(expansions) if expansions is not None else dict(CANDIDATE_GAMES)[game]
            candidates = [catalog_for(game, exps, tile_sets)]
        else:
            candidates = [catalog_for(g, e, tile_sets) for g, e in CANDIDATE_GAMES]
        grid, survey, catalog = check_lattice_and_game(rgb, grid, candidates, cfg.tiles, guess=game is None,
                                                       appearance=appearance, art_dir=art_dir)
        if game is None:
            others = [c for c in candidates if c is not catalog]
        try:
            tiles = read_tiles(rgb, grid, catalog, cfg.tiles, appearance=appearance, art_dir=art_dir, survey=survey)
            failed: PhotoError | None = None
        except PhotoError as exc:
            if not others:
                raise
            tiles, failed = None, exc
        gap = survey.catalog_gap if survey is not None else None
        close = gap is not None and abs(gap) < cfg.tiles.catalog_recheck_gap
        if others and (tiles is None or not tiles.cells or close):
            # The guessed game's art explains nothing (every cell looks blurred or unlike a
            # tile against it), or the guess was a close call: the other games are read too,
            # and the one whose art explains the photo best wins (_explained_both: the wrong
            # game's art fits a few cells, or reads many table cells, each worse than the right
            # game's best tiles).  Before a photo is refused, every game is tried.
            for other in others:
                try:
                    again = read_tiles(rgb, grid, other, cfg.tiles, appearance=appearance, art_dir=art_dir,
                                       survey=survey)
                except PhotoError:
                    continue
                have, found = (0.0, _explained(again)) if tiles is None else _explained_both(tiles, again)
                if again.cells and (tiles is None or found > have):
                    log.info("%d %s tiles read (catalogue guess lead %s, match %.2f); read as %s instead "
                             "(%d tiles, match %.2f)", 0 if tiles is None else len(tiles.cells),
                             catalog.sets[0].game, "-" if gap is None else f"{gap:.2f}", have,
                             other.sets[0].game, len(again.cells), found)
                    tiles, catalog = again, other
                elif again.cells:
                    log.debug("%s read too (%d tiles, match %.2f); kept %s (%d tiles, match %.2f)",
                              other.sets[0].game, len(again.cells), found, catalog.sets[0].game,
                              len(tiles.cells), have)
            if tiles is None:
                raise failed
        if game is None:
            game = catalog.sets[0].game
            exps = tuple(expansions) if expansions is not None else dict(CANDIDATE_GAMES)[game]
    except PhotoError as exc:
        exc.seen.setdefault("grid", grid)
        raise
    seconds["tiles"] = time.perf_counter() - t0

    # The tile stage may move the lattice by half a tile (a seam found between tiles).
    grid = getattr(tiles, "grid", None) or grid
    placements = {c: (catalog[r.tile_id], r.rot) for c, r in tiles.cells.items()}
    t0 = time.perf_counter()
    figs = read_figures(rgb, grid, placements, cfg.figures, players=list(players) if players else None, game=game,
                        art_dir=art_dir, appearance=appearance, catalog=catalog, adopt_tiles=True,
                        add_tiles=True)
    seconds["figures"] = time.perf_counter() - t0

    # The figure stage's second look replaces tiles that another tile explains clearly better,
    # and adds the tiles a figure or ore stack hid from the tile stage.
    looks = getattr(figs, "tiles", {})
    for c in [c for c, look in looks.items() if look.get("removed")]:
        # A patch of table the tile stage took for a tile: no tile explains what is seen there.
        log.debug("tile %s at %s removed: the table (visible pixels off by %.2f at the median)",
                  placements[c][0].id if c in placements else None, c, looks[c]["table"])
        placements.pop(c, None)
    for c, look in looks.items():
        if look.get("removed"):
            continue
        if c in placements and look["tile"] in catalog:
            placements[c] = (catalog[look["tile"]], int(look["rot"]))
    for c in [c for c, look in looks.items() if look.get("added")]:
        look = looks[c]
        if c in placements or look["tile"] not in catalog:
            del looks[c]
        elif not fits_neighbours(catalog[look["tile"]], int(look["rot"]), c, placements):
            # Not added: the figures read on it lose their tile too, as on any empty cell.
            log.debug("tile %s rot %s seen under a figure at %s does not fit its neighbours: not added",
                      look["tile"], look["rot"], c)
            del looks[c]
            _drop_cell(figs, c)
        else:
            placements[c] = (catalog[look["tile"]], int(look["rot"]))
    used = _used_expansions(game, exps, placements)
    if figs.gold and game == "carcassonne" and "goldmines" not in used:
        # Gold bars enter the game only with The Goldmines' gold tiles (rules.md section 4:
        # each gold tile placed brings its ingots), and placed tiles stay: with no gold tile
        # on the board, what looked like gold bars is art or a yellow figure's glint.
        log.info("%d gold bar stack(s) read but no Goldmines tile: not kept", len(figs.gold))
        figs.gold = []
    board = _assemble(game, used, catalog, tiles, figs, grid, players)
    if cfg.figures.ore_from_nuggets:
        settle_ore_counts(board)  # Gold Rush only; other games are left alone
    board.extra["photo"] = {
        "source": None if isinstance(source, np.ndarray) else str(source),
        "size": [int(rgb.shape[1]), int(rgb.shape[0])],
        "grid": {"homography": np.round(grid.H, 9).tolist(), "support": round(float(grid.support), 3)},
        "cut_cells": [list(c) for c in getattr(tiles, "cut", [])],
        "removed_cells": [list(c) for c, look in sorted(looks.items()) if look.get("removed")],
        "detached_cells": [list(c) for c in getattr(tiles, "detached", [])],
        "seconds": {k: round(v, 3) for k, v in seconds.items()},
    }
    return PhotoReading(board, grid, rgb, seconds, tiles, figs)


def _explained_both(a: Any, b: Any, min_tiles: int = 5) -> tuple[float, float]:
    """How well two games' readings of one photo explain it, to compare: (a, b).

    When both read at least ``min_tiles`` tiles, the mean fine match score of
    as many of each reading's best matched tiles as the smaller reading has:
    the wrong game's art may read a patterned cloth as many tiles (stripes as
    rails) that together outweigh the right game's fewer, better matched
    tiles, but each of them fits worse; and it may fit a few cells of the
    table a little better than a blurred board's tiles fit their own art on
    average, but not better than the board's best tiles.  Otherwise
    :func:`_explained` of each: the wrong game's art fits only a few cells.
    """
    if len(a.cells) >= min_tiles and len(b.cells) >= min_tiles:
        k = min(len(a.cells), len(b.cells))
        return _best_mean(a, k), _best_mean(b, k)
    return _explained(a), _explained(b)


def _best_mean(tiles: Any, k: int) -> float:
    """The mean fine match score of a reading's ``k`` best matched tiles."""
    return float(np.mean(sorted((c.score for c in tiles.cells.values()), reverse=True)[:k]))


def _explained(tiles: Any) -> float:
    """How much of a photo a reading's tiles explain: the sum of their fine match scores (-1..1 each).

    Of two games' readings of one photo, the right game's tiles match well
    (about 0.6-0.85 each); the wrong game's art fits only a few cells, or reads
    patches of table and misreads tiles as many poorly matched ones (about
    0.1-0.5 each), so a count of tiles alone can favour it.
    """
    return float(sum(c.score for c in tiles.cells.values()))


def _drop_cell(figs: Any, cell: tuple[int, int]) -> None:
    """Remove from a figure reading (in place) every figure and token read on ``cell``."""
    def elsewhere(d: dict) -> bool:
        return (d["x"], d["y"]) != tuple(cell)

    for name in ("meeples", "tents", "gold", "ore"):
        setattr(figs, name, [d for d in getattr(figs, name) if elsewhere(d)])
    if figs.sheriff and not elsewhere(figs.sheriff):
        figs.sheriff = None


def _assemble(game: str, expansions: list[str], catalog: Catalog, tiles: Any, figs: Any, grid: Grid,
              players: Sequence[str] | None) -> Board:
    """Build the Board from the stages' readings; board cells are the lattice cells of the grid."""
    board = Board(game=game, expansions=expansions, catalog=catalog)
    unreadable = {tuple(c) for c in getattr(figs, "unreadable", [])}
    looks = getattr(figs, "tiles", {})
    added = {c: look for c, look in looks.items()
             if look.get("added") and c not in tiles.cells and look["tile"] in catalog}
    removed = {c for c, look in looks.items() if look.get("removed")}
    for (x, y) in sorted((set(tiles.cells) | set(added)) - removed, key=lambda c: (c[1], c[0])):
        look = looks.get((x, y))
        if (x, y) in added:
            # Read empty by the tile stage, but a tile explains the cell around a figure
            # or ore stack: added by the figure stage, and marked so a review asks about it.
            extra = {"confidence": round(max(0.0, 1.0 - look["misfit"]), 3), "added": True}
            tile, rot = catalog[look["tile"]], int(look["rot"])
            board.tiles[(x, y)] = Placement(x, y, tile, rot, None, extra)
            continue
        r = tiles.cells[(x, y)]
        extra = {"confidence": round(float(r.confidence), 3)}
        if r.alternatives:
            extra["alternatives"] = r.alternatives
        tile, rot = catalog[r.tile_id], r.rot
        same = (look is not None and look["tile"] == r.tile_id
                and (int(look["rot"]) - r.rot) % 4 in (0, *catalog[r.tile_id].symmetries()))
        if look is not None and look["tile"] in catalog and not same:
            # Read again by the figure stage, where the art of the tile first read
            # left much of the cell unexplained: that reading becomes the runner-up.
            # A twin taken where the figures hide what tells the two apart is as likely as its share
            # of the copies not on the table elsewhere (figures._recheck_twins).
            sure = (look["share"] if "share" in look
                    else max(0.0, 1.0 - look["misfit"] / max(look["misfit_read"], 1e-6)))
            extra = _replaced(r.tile_id, r.rot, round(float(r.confidence), 3), r.alternatives, look["tile"],
                              look["rot"], sure, "reread")
            tile, rot = catalog[look["tile"]], int(look["rot"])
        if (x, y) in unreadable:
            # No catalogue tile explains the cell's picture (the table, a hand): kept, as the least sure.
            extra["confidence"] = 0.0
            extra["unreadable"] = True
        board.tiles[(x, y)] = Placement(x, y, tile, rot, None, extra)
    _settle_box(board, tiles, figs, catalog)
    add_figures(board, figs)
    colours = list(players) if players else []
    for f in board.meeples + board.tents:
        if f.player not in colours:
            colours.append(f.player)
    board.players = colours
    # Re-check the assembled board through the JSON contract (catches stage bugs early).
    try:
        return Board.from_dict(board.to_dict(), tile_sets=[s for s in catalog.sets if s.name not in _builtin_names()])
    except ScorerError as exc:  # pragma: no cover - a stage produced an impossible reading
        raise ScorerError(f"the photo reading is inconsistent ({exc}); please report this photo") from None


def _replaced(tile_id: str, rot: int, confidence: Any, alternatives: Sequence[dict] | None, new_id: str,
              new_rot: int, new_confidence: float, mark: str) -> dict[str, Any]:
    """Extra fields of a cell whose first reading (``tile_id`` turned ``rot``) another tile replaced:
    that reading becomes the first runner-up (``"first_read": True``) before the others but the new
    tile (at most 3), and ``mark`` (``reread``, ``box``) says why."""
    first = {"tile": tile_id, "rot": rot, "confidence": confidence, "first_read": True}
    rest = [a for a in (alternatives or []) if (a.get("tile"), a.get("rot")) != (new_id, new_rot)][:3]
    return {"confidence": round(new_confidence, 3), "alternatives": [first] + rest, mark: True}


#: Least confidence (0-1) of a tile stage runner-up that :func:`_settle_box` takes for a tile the box
#: holds too few of.
BOX_SWAP_MIN_CONFIDENCE = 0.01


def _settle_box(board: Board, tiles: Any, figs: Any, catalog: Catalog) -> None:
    """Give back the copy one too many that the figure stage's second look made, where a runner-up allows.

    No tile is on the table more often than the box holds (``rules.md``, tile
    catalogues).  The tile stage's decode keeps to that; the second look
    (:func:`~scorer.vision.figures.read_figures`) reads again a cell whose art
    explains the photo badly and may take a tile the board already holds as
    often as the box does: two look-alike tiles (an Indian camp and wild
    horses) were then read the other way round, and the second look has put one
    right.  For each tile beyond its box count (and beyond how often the tile
    stage read it), the cells holding it (not found unreadable) offer their
    tile stage runners-up (``alternatives``) of tiles the box still holds that
    are look-alikes of the tile read (the same kind of feature on every side, as
    the twins the stages confuse are: they differ in a small symbol) and give
    every figure on the cell a feature of the same kind; the likeliest of them
    (confidence at least :data:`BOX_SWAP_MIN_CONFIDENCE`) replaces that cell's
    tile, which becomes its runner-up (``"box": True`` marks it for review).
    A cell the second look read again offers them too: where the tile stage
    read a third tile there (a figure taken for a locomotive) with the right
    twin as its runner-up, the second look may have taken the wrong twin, and
    that runner-up is likelier than a clearly seen twin's elsewhere (the tile
    stage's first read is no runner-up, so a twin the second look put right is
    not turned back).  The figure stage has settled the twins it could
    already, by their pictures (:func:`~scorer.vision.figures._settle_twins`).
    Where none does, the board is left as read (the copy
    too many may be a tile read on the table beside the board, or the second
    look may be wrong; on the development photos, runners-up with other sides
    were wrong as often as right).  A runner-up of an expansion that no other
    tile read is of adds it to ``board.expansions``.  ``board.tiles`` (and ``board.expansions``) are
    changed in place; figures are still to be put on the board.
    """
    from .figures import figure_locations

    counts = Counter(p.tile.id for p in board.tiles.values())
    first = Counter(r.tile_id for r in tiles.cells.values())
    figures_at = figure_locations(figs)

    for tid in sorted(counts):
        while counts[tid] > max(catalog.box_count(tid), first[tid]):
            best = None
            for c, p in board.tiles.items():
                if p.tile.id != tid or c not in tiles.cells or p.extra.get("unreadable"):
                    continue
                for alt in tiles.cells[c].alternatives or []:
                    aid, arot, conf = alt.get("tile"), int(alt.get("rot", 0)), float(alt.get("confidence", 0.0))
                    if (aid == tid or aid not in catalog or counts[aid] >= catalog.box_count(aid)
                            or conf < BOX_SWAP_MIN_CONFIDENCE or (best is not None and conf <= best[0])):
                        continue
                    new = catalog[aid]
                    if new.edge_signature(arot) != p.tile.edge_signature(p.rot):
                        continue  # not a look-alike of the tile read
                    here, there = p.tile.turned(p.rot), new.turned(arot)
                    if any(there.kind_at(at) != here.kind_at(at) for at in figures_at.get(c, ())):
                        continue
                    best = (conf, c, new, arot)
                    break  # the alternatives come likeliest first
            if best is None:
                break
            conf, c, new, arot = best
            old = board.tiles[c]
            log.info("tile %s read %d times, the box holds %d: %s rot %d at %s becomes its runner-up %s rot %d",
                     tid, counts[tid], catalog.box_count(tid), tid, old.rot, c, new.id, arot)
            board.tiles[c] = Placement(c[0], c[1], new, arot, None, _replaced(
                tid, old.rot, old.extra.get("confidence"), old.extra.get("alternatives"), new.id, arot, conf, "box"))
            counts[tid] -= 1
            counts[new.id] += 1
            # The runner-up may be of an expansion no other tile read is of (the board's
            # expansions were taken from the tiles read): the board now holds it.
            exp = _expansion_of(new)
            if exp and exp not in board.expansions:
                board.expansions.append(exp)


def add_figures(board: Board, figs: Any) -> Board:
    """Put a figure reading's meeples, tents, Sheriff, gold bars and ore stacks on ``board``.

    Parameters
    ----------
    board : Board
        Changed in place; its tiles are not touched.
    figs : FigureReading
        :func:`scorer.vision.figures.read_figures`' result; each detection's
        other fields (``confidence``, ``alternatives``, ``pose``...) become the
        figure's extra fields.

    Returns
    -------
    Board
        ``board``.
    """
    def rest(d: dict, *keys: str) -> dict:
        return {k: v for k, v in d.items() if k not in keys}

    board.meeples += [Figure(m["player"], m["x"], m["y"], m["at"], rest(m, "player", "x", "y", "at"))
                      for m in figs.meeples]
    board.tents += [Figure(t["player"], t["x"], t["y"], t["at"], rest(t, "player", "x", "y", "at")) for t in figs.tents]
    if figs.sheriff:
        s = figs.sheriff
        board.sheriff = Figure(None, s["x"], s["y"], s["at"], rest(s, "x", "y", "at"))
    board.gold += [Stack(g["x"], g["y"], g["count"], None, rest(g, "x", "y", "count")) for g in figs.gold]
    board.ore += [Stack(o["x"], o["y"], o["count"], o["at"], rest(o, "x", "y", "at", "count")) for o in figs.ore]
    return board


def _builtin_names() -> set[str]:
    from ..tiles import BUILTIN_SETS

    return set(BUILTIN_SETS)


def read_photo(path: str | Path, **kwargs: Any) -> Board:
    """Read a photo of a table into a board (see :func:`read_photo_full`)."""
    return read_photo_full(path, **kwargs).board
