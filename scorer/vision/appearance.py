"""Tile appearance: what each tile type of a catalogue looks like, as pictures.

Tile recognition (:mod:`scorer.vision.recognise`) compares every cell of a photo
with a picture of every catalogue tile at its four rotations.  Those pictures
come from an :class:`Appearance`:

* **procedural** (the default): drawn from the tile's features by
  :func:`scorer.render.tileart.tile_image`, so every tile set, user tile sets
  included, can be read without any setup;
* **real art** (``art_dir``): pictures of published tiles, for development and
  evaluation only (never shipped);
* **calibrated**: learnt from one photo of the user's own tiles by
  ``scorer calibrate`` (:mod:`scorer.vision.calibrate_cli`), saved as
  ``$XDG_CONFIG_HOME/scorer/appearance/<name>.npz``, so editions with other art
  work too.

Pictures are square RGB ``uint8`` in **catalogue orientation** (``rot`` 0); a
tile missing from a calibrated appearance falls back to its procedural picture.
"""

from __future__ import annotations

import io
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from ..errors import ScorerError
from ..fileio import write_atomic
from ..tiles import Catalog, TileType

log = logging.getLogger(__name__)

APPEARANCE_FORMAT = "scorer-appearance/1"
#: Side in pixels of the stored tile pictures.
PICTURE_PX = 64


class AppearanceError(ScorerError, ValueError):
    """A tile-appearance file is missing, unreadable or does not fit the catalogue."""


@dataclass
class Appearance:
    """Pictures of tile types, one per tile id, in catalogue orientation.

    Attributes
    ----------
    name : str
        ``procedural``, ``art`` or the name given to ``scorer calibrate``.
    pictures : dict str -> (S, S, 3) uint8 ndarray
        Tile id -> RGB picture of the tile at ``rot`` 0, ``S`` pixels a side.
    source : str
        Where the pictures come from (``procedural``, ``art:<folder>``,
        ``calibrated:<photo>``).
    sets : tuple of str
        Tile sets the pictures were made for (``base``, ``river1``...).
    info : dict
        Free-form facts kept with a calibrated appearance (photo, columns, date).
    """

    name: str
    pictures: dict[str, np.ndarray]
    source: str = "procedural"
    sets: tuple[str, ...] = ()
    info: dict = field(default_factory=dict)

    def fingerprint(self) -> tuple:
        """A hashable key that changes when any picture changes (for caches)."""
        return (self.name, self.source, tuple((k, _digest(v)) for k, v in sorted(self.pictures.items())))

    def picture(self, tile: TileType, size: int) -> np.ndarray | None:
        """The picture of ``tile`` resized to ``size`` pixels, or ``None`` when absent."""
        img = self.pictures.get(tile.id)
        if img is None:
            return None
        return _resize(img, size)


def _digest(img: np.ndarray) -> int:
    import hashlib

    return int.from_bytes(hashlib.blake2b(np.ascontiguousarray(img).tobytes(), digest_size=8).digest(), "big")


def _resize(img: np.ndarray, size: int) -> np.ndarray:
    import cv2

    if img.shape[0] == size and img.shape[1] == size:
        return img
    interp = cv2.INTER_AREA if img.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(img, (size, size), interpolation=interp)


def procedural_appearance(catalog: Catalog, *, size: int = PICTURE_PX, art_dir: str | Path | None = None) -> Appearance:
    """Pictures of every tile of ``catalog`` drawn by the project's renderer (or real art).

    Parameters
    ----------
    catalog : Catalog
        The tile types to draw.
    size : int
        Picture side in pixels.
    art_dir : str or Path, optional
        A folder of real tile art (``tile_image``'s ``art_dir``): development
        and evaluation only.

    Returns
    -------
    Appearance
        Named ``procedural`` (or ``art``).

    Tiles without an art file in ``art_dir`` are drawn procedurally.
    """
    from ..render.tileart import tile_image

    pics = {}
    drawn = []
    for tid, t in catalog.tiles.items():
        if art_dir is not None:
            try:
                pics[tid] = tile_image(t, size, art_dir=art_dir)
                continue
            except ScorerError:
                drawn.append(tid)
        pics[tid] = tile_image(t, size)
    if drawn:
        log.info("no art in %s for %s: drawn procedurally", art_dir, ", ".join(drawn))
    sets = tuple(s.name for s in catalog.sets)
    if art_dir is None:
        return Appearance("procedural", pics, "procedural", sets)
    return Appearance("art", pics, f"art:{art_dir}", sets)


def merged_pictures(catalog: Catalog, appearance: Appearance | None, size: int) -> dict[str, np.ndarray]:
    """Picture of every tile of ``catalog``: from ``appearance`` where it has one, else drawn.

    Parameters
    ----------
    catalog : Catalog
    appearance : Appearance or None
        ``None``: every picture is drawn procedurally.
    size : int
        Picture side in pixels.

    Returns
    -------
    dict str -> (size, size, 3) uint8 ndarray
        Tile id -> RGB picture in catalogue orientation.
    """
    from ..render.tileart import tile_image

    out: dict[str, np.ndarray] = {}
    missing = []
    for tid, t in catalog.tiles.items():
        pic = appearance.picture(t, size) if appearance is not None else None
        if pic is None:
            pic = tile_image(t, size)
            if appearance is not None:
                missing.append(tid)
        out[tid] = pic
    if missing:
        log.info("appearance %r has no picture of %s: drawn procedurally", appearance.name, ", ".join(missing))
    return out


# --------------------------------------------------------------------------- files


def config_dir() -> Path:
    """The user's scorer configuration folder: ``$XDG_CONFIG_HOME/scorer`` (default ``~/.config/scorer``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "scorer"


def appearance_path(name: str) -> Path:
    """Where the calibrated appearance ``name`` is stored (``<config>/appearance/<name>.npz``).

    Raises
    ------
    AppearanceError
        ``name`` is empty or holds a path separator.
    """
    if not name or any(c in name for c in "/\\") or name in (".", ".."):
        raise AppearanceError(f"appearance name {name!r} must be a plain name such as 'mybox' (no folders)")
    return config_dir() / "appearance" / f"{name}.npz"


def save_appearance(app: Appearance, path: str | Path) -> Path:
    """Write an appearance as an ``.npz`` file (pictures plus a JSON header).

    Parameters
    ----------
    app : Appearance
    path : str or Path
        Target file; its folder is created when missing.

    Returns
    -------
    Path
        The written file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = list(app.pictures)
    header = {
        "format": APPEARANCE_FORMAT,
        "name": app.name,
        "source": app.source,
        "sets": list(app.sets),
        "ids": ids,
        "info": app.info,
    }
    arrays = {f"tile{k}": np.ascontiguousarray(app.pictures[tid], dtype=np.uint8) for k, tid in enumerate(ids)}
    buf = io.BytesIO()
    np.savez_compressed(buf, header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8), **arrays)
    return write_atomic(path, buf.getvalue())


def load_appearance(source: str | Path) -> Appearance:
    """Read a calibrated appearance by name (from the config folder) or by file path.

    Parameters
    ----------
    source : str or Path
        A name given to ``scorer calibrate --name`` or the path of an ``.npz`` file.

    Returns
    -------
    Appearance

    Raises
    ------
    AppearanceError
        No such appearance, or the file is not a ``scorer-appearance/1`` file.
    """
    text = str(source)
    path = Path(text) if (text.endswith(".npz") or os.sep in text or "/" in text) else appearance_path(text)
    if not path.is_file():
        raise AppearanceError(
            f"no tile appearance {text!r} (looked for {str(path)!r}); "
            "make one with 'scorer calibrate PHOTO --set SET --name NAME'"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(bytes(data["header"]).decode("utf-8"))
            if header.get("format") != APPEARANCE_FORMAT:
                raise AppearanceError(f"{path.name}: not a {APPEARANCE_FORMAT} file")
            pics = {tid: np.array(data[f"tile{k}"], dtype=np.uint8) for k, tid in enumerate(header["ids"])}
    except AppearanceError:
        raise
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise AppearanceError(f"{path.name}: cannot read the tile appearance ({exc}); run 'scorer calibrate' again") from None
    for tid, img in pics.items():
        if img.ndim != 3 or img.shape[2] != 3 or img.shape[0] != img.shape[1]:
            raise AppearanceError(f"{path.name}: the picture of tile {tid} is not a square RGB image")
    return Appearance(header.get("name", path.stem), pics, header.get("source", "calibrated"),
                      tuple(header.get("sets", ())), dict(header.get("info", {})))


def list_appearances() -> list[str]:
    """Names of the calibrated appearances in the user's config folder."""
    folder = config_dir() / "appearance"
    return sorted(p.stem for p in folder.glob("*.npz")) if folder.is_dir() else []


def restrict(app: Appearance, ids: Iterable[str]) -> Appearance:
    """A copy of ``app`` holding only the pictures of ``ids``."""
    keep = set(ids)
    return Appearance(app.name, {k: v for k, v in app.pictures.items() if k in keep}, app.source, app.sets, dict(app.info))


# --------------------------------------------------------------------------- calibration

#: How the tiles of a calibration photo are laid out (``scorer calibrate --help``).
LAYOUT_HELP = (
    "Lay every tile type of the set out once, in catalogue order (the order of "
    "'scorer tiles SET', e.g. base: A, B, C ... X), row by row from the top left, "
    "COLUMNS tiles to a row, each tile turned as the catalogue draws it (its north "
    "side towards the top of the photo), edge to edge on a plain table; photograph "
    "the layout from above, filling most of the frame.  A layout turned as a whole "
    "by a quarter turn is recognised too."
)


@dataclass
class Calibration:
    """What ``scorer calibrate`` learnt from one photo.

    Attributes
    ----------
    appearance : Appearance
        The learnt pictures, one per tile type of the set.
    origin : (int, int)
        Lattice cell of the layout's first tile.
    turns : int
        Clockwise quarter turns of the whole layout in the photo (0 when laid as documented).
    scores : dict str -> float
        Per tile id, the coarse match of the cell with the tile's procedural
        picture (low values point at a misplaced tile).
    """

    appearance: Appearance
    origin: tuple[int, int]
    turns: int
    scores: dict[str, float]


def calibrate(rgb: np.ndarray, grid, tiles: list[TileType], *, columns: int, name: str, source: str = "",
              sets: tuple[str, ...] = (), cfg=None) -> Calibration:
    """Learn the pictures of ``tiles`` from a photo of them laid out (:data:`LAYOUT_HELP`).

    The layout is found by trying every placement (and quarter turn) of the
    ``columns``-wide block of tiles on the lattice and keeping the one whose
    cells best match the tiles' procedural pictures; each tile is then cut out
    at its own position (hand-laid tiles sit a little off the lattice) and
    turned back to catalogue orientation.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The calibration photo, RGB.
    grid : Grid
        Its tile lattice (:func:`scorer.vision.grid.find_grid`).
    tiles : list of TileType
        The tile types in layout order.
    columns : int
        Tiles per row of the layout.
    name : str
        Name of the appearance.
    source : str
        What to record as the source (the photo's file name).
    sets : tuple of str
        Tile-set names recorded with the appearance.
    cfg : TileConfig, optional

    Returns
    -------
    Calibration

    Raises
    ------
    AppearanceError
        ``columns`` out of range, or the layout does not fit the photo's lattice.
    PhotoError, TableNotFoundError
        The photo itself is unusable (see :func:`scorer.vision.recognise.read_tiles`).
    """
    from . import recognise as R
    from ..tiles import Catalog

    if columns < 1 or columns > len(tiles):
        raise AppearanceError(f"--columns must be between 1 and {len(tiles)} (the number of tiles), got {columns}")
    cfg = cfg or R.default_config()
    catalog = Catalog({t.id: t for t in tiles}, [], {t.id: 1 for t in tiles})
    tpl = R.build_templates(catalog, cfg, None)
    survey = R.survey_lattice(rgb, grid, cfg)
    cells = survey.cells
    S, _ = R._survey_scores(survey, tpl, cfg)
    index = {tuple(map(int, c)): k for k, c in enumerate(cells)}
    base = [(n % columns, n // columns) for n in range(len(tiles))]
    best = None
    for turn in range(4):
        pos = []
        for c, r in base:
            for _ in range(turn):  # a clockwise quarter turn of the layout: (x, y) -> (-y, x)
                c, r = -r, c
            pos.append((c, r))
        pos = np.array(pos)
        cols = [tpl.alias[(t.id, turn)] for t in tiles]
        lo = cells.min(axis=0) - pos.min(axis=0)
        hi = cells.max(axis=0) - pos.max(axis=0)
        for oy in range(int(lo[1]), int(hi[1]) + 1):
            for ox in range(int(lo[0]), int(hi[0]) + 1):
                ks = [index.get((int(x + ox), int(y + oy))) for x, y in pos]
                if any(k is None for k in ks):
                    continue
                score = float(np.mean(S[ks, cols]))
                if best is None or score > best[0]:
                    best = (score, turn, (ox, oy), ks, cols)
    if best is None:
        raise AppearanceError(
            f"the photo's lattice has no room for {len(tiles)} tiles in rows of {columns}; "
            "photograph the whole layout, with a little table around it"
        )
    score, turn, origin, ks, cols = best
    log.info("calibration layout at %s, turned %d, mean coarse match %.2f", origin, turn, score)
    # Each tile's own square: the straight seams around it, near the lattice square.
    ks_arr = np.array(ks)
    edges = [_tile_edges(rgb, grid, int(cells[k][0]), int(cells[k][1])) for k in ks_arr]
    widths = [e[1] - e[0] for e in edges] + [e[3] - e[2] for e in edges]
    side = float(np.clip(np.median(widths), 0.9, 1.02))
    pictures: dict[str, np.ndarray] = {}
    scores: dict[str, float] = {}
    for n, t in enumerate(tiles):
        i, j = (int(v) for v in cells[ks_arr[n]])
        left, right, top, bottom = edges[n]
        # A pair of edges that does not span one tile was a wall or a road, not a seam.
        cx = 0.5 * (left + right) if abs((right - left) - side) < 0.04 else i + 0.5
        cy = 0.5 * (top + bottom) if abs((bottom - top) - side) < 0.04 else j + 0.5
        pic = _warp_rect(rgb, grid, cx - side / 2, cy - side / 2, side, PICTURE_PX * 2)
        pictures[t.id] = np.ascontiguousarray(np.rot90(pic, turn))  # back to catalogue orientation
        scores[t.id] = round(float(S[ks_arr[n], cols[n]]), 3)
    info = {"columns": columns, "origin": list(origin), "turns": turn, "mean_match": round(score, 3)}
    app = Appearance(name, pictures, f"calibrated:{source}" if source else "calibrated", tuple(sets), info)
    return Calibration(app, origin, turn, scores)


def _tile_edges(rgb: np.ndarray, grid, i: int, j: int, pad: float = 0.08, size: int = 160
                ) -> tuple[float, float, float, float]:
    """The seams around the tile on lattice cell ``(i, j)``: left, right, top, bottom (lattice units).

    The cell is warped with a margin of ``pad`` tiles; each seam is the column
    (row) with the strongest mean gradient along the whole side within ``pad``
    of the lattice line: a seam is straight and runs the tile's full length,
    a city wall or a road near the edge does not.
    """
    import cv2

    span = 1 + 2 * pad
    patch = _warp_rect(rgb, grid, i - pad, j - pad, span, size).astype(np.float32)
    grey = cv2.GaussianBlur(cv2.cvtColor(patch, cv2.COLOR_RGB2GRAY), (0, 0), 1.0)
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))
    unit = size / span
    along = slice(int((pad + 0.1) * unit), int((pad + 0.9) * unit))
    cols = gx[along, :].mean(axis=0)
    rows = gy[:, along].mean(axis=1)

    def edge(profile: np.ndarray, at: float) -> float:
        lo, hi = int(max(0, (at - pad) * unit)), int(min(size, (at + pad) * unit) + 1)
        return (lo + int(np.argmax(profile[lo:hi])) + 0.5) / unit

    left, right = edge(cols, pad), edge(cols, pad + 1)
    top, bottom = edge(rows, pad), edge(rows, pad + 1)
    return i - pad + left, i - pad + right, j - pad + top, j - pad + bottom


def _warp_rect(rgb: np.ndarray, grid, x0: float, y0: float, side: float, size: int) -> np.ndarray:
    """The lattice square ``[x0, x0+side] x [y0, y0+side]`` as a top-down ``size`` x ``size`` RGB picture."""
    import cv2

    t = (np.arange(size) + 0.5) / size * side
    gx, gy = np.meshgrid(x0 + t, y0 + t)
    pts = grid.to_photo(np.c_[gx.ravel(), gy.ravel()])
    mx = pts[:, 0].reshape(size, size).astype(np.float32)
    my = pts[:, 1].reshape(size, size).astype(np.float32)
    step = float(np.hypot(mx[0, -1] - mx[0, 0], my[0, -1] - my[0, 0])) / size
    src = rgb
    if step > 1.6:  # more photo pixels than picture pixels: average them (no aliasing)
        k = int(min(15, 2 * round(step / 2) + 1))
        src = cv2.blur(rgb, (k, k))
    return cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
