"""Reviewing what a photo reading is least sure of, one detection at a time.

:func:`review_items` lists the detections of a board (tiles, meeples/cowboys,
tents, the Sheriff, gold bars, ore tokens) least confident first, each with what
was read and its runners-up as ready-made corrections (:class:`Choice`), so that
the ``scorer review`` command only has to show them and apply the one picked
through :func:`scorer.corrections.correct_file` (same checks, same history).

:func:`write_review_image` saves a picture per detection for the person at the
table: the cell cut out of the photo (when the board has ``photo.source`` and
the file exists), the cell as read, and each alternative, numbered as in the
terminal.  The photo cell is cut with the homography ``photo.grid.homography``
(photo pixels of the working image of size ``photo.size`` -> lattice
coordinates in tile units; cell ``(i, j)`` covers ``[i, i+1] x [j, j+1]``, see
:mod:`scorer.vision.grid`).  A board cell ``(x, y)`` is lattice cell
``(x + dx, y + dy)`` where ``photo.grid.cell_offset`` is ``[dx, dy]`` (0, 0
when absent).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .board import Board, Figure, Placement, Stack
from .corrections import alternatives_of, apply_correction, format_rot
from .errors import PhotoError, ScorerError
from .fileio import write_atomic

log = logging.getLogger(__name__)

#: Side of one picture panel in a review image, pixels.
PANEL_PX = 224
#: Table shown around the cell in a panel, as a fraction of a tile on each side.
PANEL_MARGIN = 0.25
#: At most this many alternatives are offered per detection (keys 1-9).
MAX_CHOICES = 9


@dataclass
class Choice:
    """One alternative for a detection, as the correction that would make it so.

    Attributes
    ----------
    label : str
        What the alternative says, e.g. ``"K rot 1 (90°)"``.
    op : str
    args : dict
        The correction (:func:`scorer.corrections.apply_correction`).
    confidence : float or None
        The reader's confidence in the alternative (0-1), when it gave one.
    """

    label: str
    op: str
    args: dict[str, Any]
    confidence: float | None = None


@dataclass
class ReviewItem:
    """One detection to check.

    Attributes
    ----------
    kind : str
        ``tile``, ``meeple``, ``tent``, ``sheriff``, ``gold`` or ``ore``.
    x, y : int
        Cell.
    at : str or None
        Location on the tile (figures, ore).
    player : str or None
        Colour (meeples, tents).
    confidence : float or None
        The reader's confidence (0-1); ``None`` for a typed entry.
    read : str
        What was read, in words.
    choices : list of Choice
        The reader's runners-up, best first, then the other rotations of a
        tile and the other player colours of a figure (at most :data:`MAX_CHOICES`).
    """

    kind: str
    x: int
    y: int
    at: str | None = None
    player: str | None = None
    confidence: float | None = None
    read: str = ""
    choices: list[Choice] = field(default_factory=list)

    @property
    def cell(self) -> tuple[int, int]:
        return (self.x, self.y)

    @property
    def key(self) -> tuple:
        """What identifies the detection on the board: kind, cell, location, colour."""
        return (self.kind, self.x, self.y, self.at, self.player)

    def title(self) -> str:
        """``"tile 2,-1"``, ``"red meeple 1,0 SL"``..."""
        where = f"{self.x},{self.y}" + (f" {self.at}" if self.at else "")
        if self.kind == "tile":
            return f"tile {where}"
        if self.kind in ("gold", "ore"):
            return f"{'gold bars' if self.kind == 'gold' else 'ore tokens'} {where}"
        if self.kind == "sheriff":
            return f"Sheriff {where}"
        return f"{self.player} {self.kind} {where}"

    def remove(self) -> tuple[str, dict[str, Any]]:
        """The correction that removes the detection (it is not on the table)."""
        if self.kind == "tile":
            return "remove_tile", {"x": self.x, "y": self.y}
        if self.kind == "gold":
            return "set_gold", {"x": self.x, "y": self.y, "count": 0}
        if self.kind == "ore":
            return "set_ore", {"x": self.x, "y": self.y, "at": self.at, "count": 0}
        return "remove_figure", self._figure_args()

    def confirm(self) -> tuple[str, dict[str, Any]]:
        """The correction that records the detection as right (confidence 1.0)."""
        args: dict[str, Any] = {"kind": self.kind, "x": self.x, "y": self.y}
        if self.at is not None:
            args["at"] = self.at
        if self.player is not None:
            args["player"] = self.player
        return "confirm", args

    def _figure_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "x": self.x, "y": self.y, "at": self.at}
        if self.player is not None:
            out["player"] = self.player
        return out


def _conf(extra: dict) -> float | None:
    c = extra.get("confidence")
    return float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else None


def _fmt_conf(c: float | None) -> str:
    return "" if c is None else f"{c:.2f}"


def _tile_label(tile: Any, rot: int) -> str:
    name = tile if isinstance(tile, str) else tile.get("name", "inline tile") if isinstance(tile, dict) else str(tile)
    return f"{name} {format_rot(int(rot) % 4)}"


def _choices(kind: str, item: Placement | Figure, board: Board) -> list[Choice]:
    out: list[Choice] = []
    for alt, conf in alternatives_of(kind, item):
        op, args = alt["op"], alt["args"]
        if op == "set_tile":
            if (args["tile"], int(args.get("rot", 0)) % 4) == (item.tile.id, item.rot):
                continue
            label = _tile_label(args["tile"], args.get("rot", 0))
        elif op == "move_figure":
            to = args["to"]
            if (to["x"], to["y"], to["at"]) == (item.x, item.y, item.at):
                continue
            label = f"at {to['at']}" if (to["x"], to["y"]) == (item.x, item.y) else f"at {to['x']},{to['y']} {to['at']}"
        else:
            label = f"colour {args['colour']}"
        out.append(Choice(label, op, args, None if conf is None else float(conf)))
    # then what a person often has to fix by hand: a tile turned, a figure's colour
    if kind == "tile" and item.inline is None:
        sym = (0,) + item.tile.symmetries()
        seen = {(item.rot + k) % 4 for k in sym}  # rotations that give the same tile as read
        offered = {(c.args["tile"], int(c.args.get("rot", 0)) % 4) for c in out if c.op == "set_tile"}
        for r in range(4):
            if r in seen:
                continue
            seen |= {(r + k) % 4 for k in sym}
            if (item.tile.id, r) not in offered:
                out.append(Choice(f"{_tile_label(item.tile.id, r)} turned", "set_tile",
                                  {"x": item.x, "y": item.y, "tile": item.tile.id, "rot": r}))
    elif kind in ("meeple", "tent"):
        offered = {c.args.get("colour") for c in out if c.op == "recolour_figure"}
        for colour in board.players:
            if colour != item.player and colour not in offered:
                out.append(Choice(f"colour {colour}", "recolour_figure",
                                  {"kind": kind, "x": item.x, "y": item.y, "at": item.at, "player": item.player,
                                   "colour": colour}))
    return out[:MAX_CHOICES]


def _tile_item(board: Board, p: Placement) -> ReviewItem:
    return ReviewItem("tile", p.x, p.y, None, None, _conf(p.extra), _tile_label(p.tile.id if p.inline is None
                                                                                else p.inline, p.rot),
                      _choices("tile", p, board))


def _figure_item(board: Board, kind: str, f: Figure) -> ReviewItem:
    read = "the Sheriff" if kind == "sheriff" else f"{f.player} {kind}"
    p = board.tiles.get(f.cell)
    if p is not None:
        kind_there = p.tile.turned(p.rot).kind_at(f.at)
        if kind_there is not None:
            read += f" on the {kind_there} at {f.at}"
    return ReviewItem(kind, f.x, f.y, f.at, f.player, _conf(f.extra), read, _choices(kind, f, board))


def _stack_item(kind: str, s: Stack) -> ReviewItem:
    what = f"{s.count} gold bar(s)" if kind == "gold" else f"{s.count} ore token(s) at {s.at}"
    if "count_seen" in s.extra:
        # Settled with the mountain's nugget symbols (scorer.vision.ore): the count seen differed.
        what += f" (seen as {s.extra['count_seen']}; set from the mountain's nugget symbols)"
    return ReviewItem(kind, s.x, s.y, s.at, None, _conf(s.extra), what, [])


def all_items(board: Board) -> list[ReviewItem]:
    """Every detection of the board, in board order (tiles, meeples, tents, Sheriff, gold, ore)."""
    items = [_tile_item(board, p) for p in board.tiles.values()]
    items += [_figure_item(board, "meeple", f) for f in board.meeples]
    items += [_figure_item(board, "tent", f) for f in board.tents]
    if board.sheriff is not None:
        items.append(_figure_item(board, "sheriff", board.sheriff))
    items += [_stack_item("gold", s) for s in board.gold]
    items += [_stack_item("ore", s) for s in board.ore]
    return items


def review_items(board: Board, *, threshold: float = 1.0, everything: bool = False) -> list[ReviewItem]:
    """The detections to check, least confident first.

    Parameters
    ----------
    board : Board
        A board read from a photo (entries with ``confidence``) or typed.
    threshold : float
        Detections with a confidence below it are listed (0-1; default 1.0:
        everything not yet confirmed).
    everything : bool
        List every tile and figure, also the sure and the typed ones (typed
        entries, without a confidence, come after the others).

    Returns
    -------
    list of ReviewItem
        Sorted by confidence, lowest first; ties keep board order.
    """
    items = all_items(board)
    if not everything:
        items = [i for i in items if i.confidence is not None and i.confidence < threshold]
    order = {id(i): n for n, i in enumerate(items)}
    return sorted(items, key=lambda i: (i.confidence if i.confidence is not None else 2.0, order[id(i)]))


def find_item(board: Board, key: tuple) -> ReviewItem | None:
    """The detection with ``key`` (:attr:`ReviewItem.key`) on ``board`` now, or ``None`` if it is gone."""
    for item in all_items(board):
        if item.key == key:
            return item
    return None


# --------------------------------------------------------------------------- pictures


def review_dir(board_path: str | Path) -> Path:
    """Where the review pictures of a board file go: ``PHOTO.board.json`` -> ``PHOTO.review/``."""
    path = Path(board_path)
    name = path.name
    stem = name[: -len(".board.json")] if name.endswith(".board.json") else path.stem
    return path.parent / f"{stem}.review"


@dataclass
class PhotoView:
    """A photo with the homography from its pixels to board cells.

    Attributes
    ----------
    image : (H, W, 3) uint8 ndarray
        RGB photo.
    H : (3, 3) float64 ndarray
        Photo pixels of ``image`` -> board coordinates in tile units (cell
        ``(x, y)`` covers ``[x, x+1] x [y, y+1]``).
    """

    image: np.ndarray
    H: np.ndarray


def load_photo_view(board: Board, board_path: str | Path | None = None) -> PhotoView | None:
    """The photo a board was read from, if the board names it and the file is there.

    ``photo.source`` is looked up as given, then beside the board file.  The
    homography is rescaled when the photo is loaded at another size than
    ``photo.size`` (the working size the pipeline measured it in).

    Returns
    -------
    PhotoView or None
        ``None`` for a typed board, a missing photo or a malformed ``photo`` key.
    """
    photo = board.extra.get("photo")
    if not isinstance(photo, dict) or not photo.get("source"):
        return None
    try:
        H = np.asarray(photo["grid"]["homography"], dtype=np.float64)
    except (KeyError, TypeError, ValueError):
        log.warning("board photo key has no usable grid homography")
        return None
    if H.shape != (3, 3) or not np.isfinite(H).all():
        return None
    src = Path(photo["source"])
    candidates = [src] + ([Path(board_path).parent / src.name, Path(board_path).parent / src]
                          if board_path is not None else [])
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        log.info("photo %s not found; review pictures are drawn", src)
        return None
    from .vision.photo import load_photo

    size = photo.get("size")
    max_side = int(max(size)) if isinstance(size, list) and len(size) == 2 else None
    try:
        rgb = load_photo(path, max_side=max_side)
    except PhotoError as exc:
        log.warning("cannot use the photo for review: %s", exc)
        return None
    if max_side:
        sx, sy = size[0] / rgb.shape[1], size[1] / rgb.shape[0]
        H = H @ np.diag([sx, sy, 1.0])
    offset = photo["grid"].get("cell_offset") or [0, 0]
    H = np.array([[1.0, 0, -float(offset[0])], [0, 1.0, -float(offset[1])], [0, 0, 1.0]]) @ H
    return PhotoView(rgb, H)


def cut_cell(view: PhotoView, cell: tuple[int, int], *, size_px: int = PANEL_PX,
             margin: float = PANEL_MARGIN) -> np.ndarray:
    """The photo of one cell seen from above (rectified with the homography).

    Parameters
    ----------
    view : PhotoView
    cell : (int, int)
        Board cell.
    size_px : int
        Side of the output picture, pixels.
    margin : float
        Extra table shown on each side, in tiles.

    Returns
    -------
    (size_px, size_px, 3) uint8 ndarray
        RGB, north up; the cell spans the middle ``1 / (1 + 2 margin)`` of it.
    """
    import cv2

    scale = size_px / (1.0 + 2 * margin)
    x0, y0 = cell[0] - margin, cell[1] - margin
    A = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale], [0, 0, 1.0]])
    return cv2.warpPerspective(view.image, A @ view.H, (size_px, size_px), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(60, 60, 60))


def _cell_board(board: Board, cell: tuple[int, int]) -> Board:
    """A board holding only ``cell``'s tile and what lies on it (for drawing)."""
    on = lambda e: e.cell == cell  # noqa: E731
    sh = board.sheriff if board.sheriff is not None and on(board.sheriff) else None
    return Board(game=board.game, expansions=list(board.expansions), players=list(board.players),
                 tiles={cell: board.tiles[cell]}, meeples=[f for f in board.meeples if on(f)],
                 tents=[f for f in board.tents if on(f)], sheriff=sh, gold=[s for s in board.gold if on(s)],
                 ore=[s for s in board.ore if on(s)], catalog=board.catalog)


def _draw_cell(board: Board, cell: tuple[int, int], size_px: int, margin: float, ring: str | None) -> np.ndarray:
    import cv2

    from .render.topdown import render_board

    tile_px = max(16, int(round(size_px / (1.0 + 2 * margin))))
    pad = (size_px - tile_px) // 2
    img, raster = render_board(_cell_board(board, cell), tile_px=tile_px, margin=pad)
    if ring is not None:
        cx, cy = raster.location_px(cell, ring)
        cv2.circle(img, (int(cx), int(cy)), max(6, tile_px // 7), (255, 240, 60), 2, cv2.LINE_AA)
    out = np.zeros((size_px, size_px, 3), np.uint8)
    out[:] = img[0, 0]
    h, w = min(size_px, img.shape[0]), min(size_px, img.shape[1])
    out[:h, :w] = img[:h, :w]
    return out


def _labelled(panel: np.ndarray, text: str, sub: str = "") -> np.ndarray:
    import cv2

    strip = np.full((44, panel.shape[1], 3), 245, np.uint8)
    cv2.putText(strip, text[:26], (6, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (20, 20, 20), 1, cv2.LINE_AA)
    if sub:
        cv2.putText(strip, sub[:30], (6, 38), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (90, 90, 90), 1, cv2.LINE_AA)
    return np.vstack([panel, strip])


def _ascii(text: str) -> str:
    return text.replace("°", " deg")


def review_image(board: Board, item: ReviewItem, photo: PhotoView | None = None, *,
                 size_px: int = PANEL_PX) -> np.ndarray:
    """One picture for a detection: photo cell, as read, then each alternative (numbered).

    Returns
    -------
    (H, W, 3) uint8 ndarray
        RGB; panels ``size_px`` wide side by side, a caption under each.
    """
    panels = []
    ring = item.at if item.kind in ("meeple", "tent", "sheriff", "ore") else None
    if photo is not None:
        import cv2

        crop = cut_cell(photo, item.cell, size_px=size_px).copy()
        lo = int(round(size_px * PANEL_MARGIN / (1 + 2 * PANEL_MARGIN)))
        cv2.rectangle(crop, (lo, lo), (size_px - lo, size_px - lo), (255, 240, 60), 1, cv2.LINE_AA)
        panels.append(_labelled(crop, "photo", item.title()))
    if item.cell in board.tiles:
        panels.append(_labelled(_draw_cell(board, item.cell, size_px, PANEL_MARGIN, ring), "read: " + _ascii(item.read)
                                if item.kind == "tile" else "as read", _fmt_conf(item.confidence)))
    for n, choice in enumerate(item.choices, 1):
        alt_ring = ring
        try:
            alt = apply_correction(board, choice.op, choice.args)
        except ScorerError:
            if choice.op != "set_tile":
                continue
            alt = _bare_tile(board, choice)
            if alt is None:
                continue
        if choice.op == "move_figure":
            alt_ring = choice.args["to"]["at"]
        cell = item.cell if choice.op != "move_figure" else (choice.args["to"]["x"], choice.args["to"]["y"])
        panels.append(_labelled(_draw_cell(alt, cell, size_px, PANEL_MARGIN, alt_ring),
                                f"{n}: {_ascii(choice.label)}", _fmt_conf(choice.confidence)))
    if not panels:
        panels.append(_labelled(np.full((size_px, size_px, 3), 60, np.uint8), item.title()))
    return np.hstack(panels)


def _bare_tile(board: Board, choice: Choice) -> Board | None:
    """The alternative tile alone (its figures would not fit it) for drawing."""
    a = choice.args
    tile = a.get("tile")
    if not isinstance(tile, str) or tile not in board.catalog:
        return None
    cell = (a["x"], a["y"])
    p = Placement(cell[0], cell[1], board.catalog[tile], int(a.get("rot", 0)) % 4)
    return Board(game=board.game, expansions=list(board.expansions), tiles={cell: p}, catalog=board.catalog)


def review_image_name(item: ReviewItem) -> str:
    """``cell_X_Y.png`` for a tile; figures and tokens add kind, colour and location."""
    parts = ["cell", str(item.x), str(item.y)]
    if item.kind != "tile":
        parts.append(item.kind)
        if item.player:
            parts.append(item.player)
        if item.at:
            parts.append(item.at)
    return "_".join(parts) + ".png"


def write_review_image(board: Board, item: ReviewItem, folder: str | Path,
                       photo: PhotoView | None = None) -> Path:
    """Save :func:`review_image` as ``FOLDER/cell_X_Y.png`` (folder created if needed).

    Raises
    ------
    ScorerError
        The folder cannot be created or written.
    """
    from .render.colours import encode_image

    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScorerError(f"cannot create the review folder {str(folder)!r}: {exc.strerror or exc}") from None
    path = folder / review_image_name(item)
    write_atomic(path, encode_image(review_image(board, item, photo), ".png"))
    return path
