"""Photo synthesiser: any board as a realistic phone photo of a table, with exact ground truth.

No public data set shows a Carcassonne table with figures, so the project makes
its own, as chesscog trained on rendered chess boards.  :func:`synthesize`
lays the board's tiles on a table the way hands do (small offsets, turns and
gaps), stands the figures on them in 3-D, puts clutter around (cards, a score
track board, the box lid, face-down tile stacks), and photographs it with a
phone: tilt 0-45 degrees, any in-plane rotation, barrel distortion, uneven
light, blur, noise and JPEG compression.

Ground truth, exact by construction:

* ``truth``: the board in photo orientation.  When the camera turns the board
  by ``theta`` (clockwise, as seen in the photo), the truth is the board turned
  ``k = round(theta / 90)`` clockwise quarter turns: cell ``(x, y)`` goes to
  ``(-y, x)``, every tile's ``rot`` grows by ``k`` and figure locations turn with
  :func:`scorer.geometry.rotate_location`; cells are then moved so that the
  smallest ``x`` and ``y`` are 0 (a translation, which the board format ignores).
* board millimetres: truth cell ``(x, y)`` is the square
  ``[x p, (x + 1) p] x [y p, (y + 1) p]`` with lattice pitch ``p`` = 45 mm plus
  the mean gap between tiles; it lies on the tiles' top faces.
* ``homography``: board millimetres -> pinhole photo pixels; the photo pixel is
  that point after the lens distortion (:class:`scorer.render.scene.Lens`).
  :meth:`SynthResult.project` does both.

Everything random comes from ``params.seed`` (drawn from ``rng`` with the other
parameters), so the same seed gives the same bytes, and a sidecar's ``params``
reproduce its photo.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..board import Board, Figure, dumps_compact, turn_board
from ..errors import ScorerError
from ..fileio import write_atomic_group
from ..geometry import Cell
from . import scene
from .figures3d import FOOTPRINT_MM, draw_solid, figure_faces
from .scene import TILE_MM, Camera, Lens
from .tileart import tile_image
from .topdown import FIGURE_OFFSETS, GOLD_ANCHOR, LOCATION_ANCHORS, offset_axes

log = logging.getLogger(__name__)

SYNTH_FORMAT = "scorer-synth/1"
DIFFICULTIES = ("easy", "hard")
TABLES = ("wood", "cloth", "pattern")
#: Megapixels a photo may have (tests use small ones; phones give 1-12).
MEGAPIXELS_RANGE = (0.05, 16.0)
#: How much further apart than in :mod:`scorer.render.topdown` figures sharing a
#: location stand (:data:`FIGURE_OFFSETS` are made for flat icons).
SPREAD = 2.0

#: Where an ore stack lies from its mountain's location anchor, ``(across, inward)``
#: in tile fractions (axes as in :data:`FIGURE_OFFSETS`): on the mountain (a
#: one-side mountain reaches 0.29 in at the middle of its side), beside the
#: cowboy's spot (the anchor) on the side away from the tent, so that it covers
#: the mountain rather than what lies at the tile's centre.
ORE_SPOT = (0.13, 0.09)
#: Height of the tallest figure (the Sheriff's hat), mm: kept inside the frame.
FIGURE_TOP_MM = 18.5
#: Of two solids on one tile whose bases would overlap, the one ranked lower here
#: makes room (equal ranks: both): a follower or cowboy marks its feature and
#: stays; the Sheriff and a tent stand on their mountain; gold bars and an ore
#: stack are put down wherever the tile has room.
ROOM_RANK = {"meeple": 3, "farmer": 3, "sheriff": 2, "tent": 1, "gold": 0, "ore": 0}


# --------------------------------------------------------------------------- parameters


@dataclass
class SynthParams:
    """Every knob of one synthetic photo.

    Attributes
    ----------
    seed : int
        Seed of every detail (tile jitter, table grain, clutter, noise...).
    difficulty : str
        ``easy`` or ``hard``: the range the other values were drawn from (information only).
    megapixels : float
        Photo size, width x height / 1e6.
    aspect : float
        Long side / short side (4/3, 3/2 or 16/9 for phones).
    portrait : bool
        Whether the photo is taller than wide.
    hfov_deg : float
        Field of view across the long side, degrees (a phone's main camera: 60-75).
    tilt_deg : float
        Camera tilt from straight down, degrees, 0-45.
    rotation_deg : float
        In-plane turn of the board in the photo, clockwise degrees, 0-360.
    fill : float
        Fraction of the frame's area the board's bounding box covers, 0.3-0.9
        (less when the board's shape does not allow that inside the frame).
    shift_x, shift_y : float
        Where the board sits in the rest of the frame, -1 to 1 (0: centred).
    k1, k2 : float
        Radial distortion (``scene`` module docstring); ``k1 > 0`` is barrel.
    table : str
        ``wood``, ``cloth`` or ``pattern``.
    table_rgb, table_rgb2 : list of float
        Table colour and the pattern's second colour, RGB 0-1.
    table_margin_mm : list of float
        How far the table top reaches beyond the board's bounding box to the
        west, north, east and south, mm; beyond is the floor.
    floor_rgb : list of float
        Floor colour (seen past the table's edge), RGB 0-1.
    clutter : int
        Objects tried around the board (cards, score track, box lid, tile stacks).
    supply_figures : int
        Spare figures lying on the table beside the board (not on the board, not in the truth).
    light_azimuth_deg, light_elevation_deg : float
        Direction of the main light (azimuth from east towards south; elevation above the table).
    shadow : float
        Darkness of cast shadows, 0-1.
    gradient, gradient_angle_deg : float
        Linear light fall-off across the photo (fraction per half frame) and its direction.
    vignette : float
        Corner darkening of the lens, 0-1.
    spot, spot_x, spot_y : float
        A lamp's bright spot: strength and centre (-1..1 of the frame).
    hand_shadow : float
        Darkness of the phone-and-hand shadow, 0 for none.
    exposure : float
        Overall brightness gain.
    white_balance : list of float
        RGB gains (a warm lamp: red up, blue down).
    blur_px, motion_px, motion_angle_deg : float
        Defocus (Gaussian sigma, photo pixels) and shake (length, pixels; angle).
    sharpen : float
        Phone sharpening (unsharp mask amount).
    noise : float
        Sensor noise, grey levels of 255.
    jpeg_quality : int
        JPEG quality, 60-95.
    tile_offset : float
        Largest offset of a tile from its lattice place, fraction of a tile (<= 0.08).
    tile_turn_deg : float
        Largest turn of a tile, degrees (<= 5).
    gap_mm : float
        Mean gap between neighbouring tiles, mm.
    tile_thickness_mm : float
        Tile thickness, mm.
    figure_jitter_mm : float
        How far a figure stands from its location's anchor, mm.
    room_mm : float or None
        Least gap between the bases of two solids on one tile, mm
        (:func:`_make_room`); ``None``: every solid at its spot, however
        the solids overlap (as in photos made before solids made room).
    ore_spot : list of float
        Where an ore stack lies from its mountain's location anchor,
        ``[across, inward]`` in tile fractions (:data:`ORE_SPOT`; not drawn at random).
    """

    seed: int = 0
    difficulty: str = "easy"
    megapixels: float = 3.0
    aspect: float = 4 / 3
    portrait: bool = False
    hfov_deg: float = 66.0
    tilt_deg: float = 0.0
    rotation_deg: float = 0.0
    fill: float = 0.7
    shift_x: float = 0.0
    shift_y: float = 0.0
    k1: float = 0.0
    k2: float = 0.0
    table: str = "wood"
    table_rgb: list = field(default_factory=lambda: [0.70, 0.52, 0.33])
    table_rgb2: list = field(default_factory=lambda: [0.70, 0.12, 0.12])
    table_margin_mm: list = field(default_factory=lambda: [800.0, 800.0, 800.0, 800.0])
    floor_rgb: list = field(default_factory=lambda: [0.22, 0.16, 0.11])
    clutter: int = 0
    supply_figures: int = 0
    light_azimuth_deg: float = 135.0
    light_elevation_deg: float = 60.0
    shadow: float = 0.6
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    vignette: float = 0.0
    spot: float = 0.0
    spot_x: float = 0.0
    spot_y: float = 0.0
    hand_shadow: float = 0.0
    exposure: float = 1.0
    white_balance: list = field(default_factory=lambda: [1.0, 1.0, 1.0])
    blur_px: float = 0.0
    motion_px: float = 0.0
    motion_angle_deg: float = 0.0
    sharpen: float = 0.0
    noise: float = 0.0
    jpeg_quality: int = 90
    tile_offset: float = 0.0
    tile_turn_deg: float = 0.0
    gap_mm: float = 0.8
    tile_thickness_mm: float = 2.0
    figure_jitter_mm: float = 1.0
    ore_spot: list = field(default_factory=lambda: list(ORE_SPOT))
    room_mm: float | None = 1.0

    @classmethod
    def random(cls, rng: np.random.Generator, difficulty: str = "easy", *,
               megapixels: float | None = None) -> "SynthParams":
        """Draw a photo's parameters.

        Parameters
        ----------
        rng : numpy.random.Generator
        difficulty : {"easy", "hard"}
            ``easy``: nearly straight down (tilt <= 20 degrees), the board nearly
            square to the frame, even light, sharp, clean; ``hard``: tilt 15-45
            degrees, any rotation, strong distortion, uneven light, blur, noise,
            clutter and spare figures, JPEG quality down to 60.
        megapixels : float, optional
            Fixes the photo size (otherwise drawn from 1-12).

        Raises
        ------
        ScorerError
            Unknown difficulty.
        """
        if difficulty not in DIFFICULTIES:
            raise ScorerError(f"difficulty: expected one of {', '.join(DIFFICULTIES)}, got {difficulty!r}")
        hard = difficulty == "hard"
        u = rng.uniform
        p = cls()
        p.seed = int(rng.integers(0, 2**31 - 1))
        p.difficulty = difficulty
        p.megapixels = float(round(u(1.0, 12.0), 2))
        p.aspect = float([4 / 3, 4 / 3, 3 / 2, 16 / 9][int(rng.integers(0, 4))])
        p.portrait = bool(rng.random() < 0.3)
        p.hfov_deg = float(u(58, 76))
        if hard:
            p.tilt_deg = float(u(15, 45))
            p.rotation_deg = float(u(0, 360))
            p.fill = float(u(0.3, 0.9))
            p.k1 = float(u(0.0, 0.12))
            p.k2 = float(u(0.0, 0.03))
        else:
            p.tilt_deg = float(u(0, 20))
            p.rotation_deg = float((90 * int(rng.integers(0, 4)) + rng.normal(0, 5)) % 360)
            p.fill = float(u(0.45, 0.9))
            p.k1 = float(u(0.0, 0.04))
            p.k2 = 0.0
        p.shift_x, p.shift_y = (float(v) for v in u(-1, 1, 2) * (0.5 if hard else 0.25))
        p.table = TABLES[int(rng.choice(3, p=[0.5, 0.3, 0.2]))]
        if p.table == "wood":
            p.table_rgb = list(scene.WOODS[int(rng.integers(0, len(scene.WOODS)))])
        elif p.table == "cloth":
            p.table_rgb = list(scene.CLOTHS[int(rng.integers(0, len(scene.CLOTHS)))])
        else:
            p.table_rgb = list(scene.PATTERN_BASES[int(rng.integers(0, len(scene.PATTERN_BASES)))])
        tone = u(0.9, 1.08)
        p.table_rgb = [float(np.clip(c * tone, 0, 1)) for c in p.table_rgb]
        p.table_rgb2 = [float(c) for c in scene.PATTERN_INKS[int(rng.integers(0, len(scene.PATTERN_INKS)))]]
        p.table_margin_mm = [float(v) for v in (u(120, 600, 4) if hard else u(250, 800, 4))]
        p.floor_rgb = [float(c) for c in scene.FLOORS[int(rng.integers(0, len(scene.FLOORS)))]]
        p.clutter = int(rng.integers(1, 6) if hard else rng.integers(0, 3))
        p.supply_figures = int(rng.integers(0, 7)) if hard else 0
        p.light_azimuth_deg = float(u(0, 360))
        p.light_elevation_deg = float(u(35, 80) if hard else u(55, 85))
        p.shadow = float(u(0.4, 0.8) if hard else u(0.3, 0.6))
        p.gradient = float(u(0.05, 0.35) if hard else u(0.0, 0.12))
        p.gradient_angle_deg = float(u(0, 360))
        p.vignette = float(u(0.1, 0.45) if hard else u(0.0, 0.2))
        p.spot = float(u(0.0, 0.35) if hard else u(0.0, 0.1))
        p.spot_x, p.spot_y = (float(v) for v in u(-1, 1, 2))
        p.hand_shadow = float(u(0.15, 0.45)) if hard and rng.random() < 0.4 else 0.0
        p.exposure = float(u(0.8, 1.15) if hard else u(0.95, 1.08))
        wb = u(-0.08, 0.08) if hard else u(-0.03, 0.03)
        p.white_balance = [float(1 + wb), 1.0, float(1 - wb)]
        scale = math.sqrt(p.megapixels / 3.0)  # sizes in pixels grow with the photo
        p.blur_px = float((u(0.4, 1.5) if hard else u(0.0, 0.7)) * scale)
        p.motion_px = float(u(0, 6) * scale) if hard and rng.random() < 0.35 else 0.0
        p.motion_angle_deg = float(u(0, 180))
        p.sharpen = float(u(0.0, 0.6))
        p.noise = float(u(2, 8) if hard else u(0.5, 3))
        p.jpeg_quality = int(rng.integers(60, 86) if hard else rng.integers(80, 96))
        p.tile_offset = float(u(0.04, 0.08) if hard else u(0.0, 0.03))
        p.tile_turn_deg = float(u(2, 5) if hard else u(0, 1.5))
        p.gap_mm = float(u(0.8, 2.5) if hard else u(0.3, 1.2))
        p.tile_thickness_mm = float(u(1.8, 2.2))
        p.figure_jitter_mm = float(u(1.0, 2.5) if hard else u(0.0, 1.2))
        if megapixels is not None:
            p.megapixels = float(megapixels)
        return p

    def check(self) -> None:
        """Raise :class:`ScorerError` naming the first parameter out of range."""
        lo, hi = MEGAPIXELS_RANGE
        tests = [
            ("megapixels", lo <= self.megapixels <= hi, f"between {lo} and {hi}"),
            ("aspect", 1.0 <= self.aspect <= 3.0, "between 1 and 3"),
            ("hfov_deg", 20 <= self.hfov_deg <= 120, "between 20 and 120"),
            ("tilt_deg", 0 <= self.tilt_deg <= 60, "between 0 and 60"),
            ("fill", 0.05 <= self.fill <= 0.95, "between 0.05 and 0.95"),
            ("shift_x", -1 <= self.shift_x <= 1, "between -1 and 1"),
            ("shift_y", -1 <= self.shift_y <= 1, "between -1 and 1"),
            ("k1", 0 <= self.k1 <= 0.5, "between 0 and 0.5"),
            ("k2", 0 <= self.k2 <= 0.2, "between 0 and 0.2"),
            ("table", self.table in TABLES, f"one of {', '.join(TABLES)}"),
            ("jpeg_quality", 1 <= int(self.jpeg_quality) <= 100, "between 1 and 100"),
            ("tile_offset", 0 <= self.tile_offset <= 0.2, "between 0 and 0.2"),
            ("tile_turn_deg", 0 <= self.tile_turn_deg <= 15, "between 0 and 15"),
            ("gap_mm", 0 <= self.gap_mm <= 10, "between 0 and 10"),
            ("tile_thickness_mm", 0 <= self.tile_thickness_mm <= 5, "between 0 and 5"),
            ("light_elevation_deg", 10 <= self.light_elevation_deg <= 90, "between 10 and 90"),
            ("clutter", 0 <= self.clutter <= 20, "between 0 and 20"),
            ("table_margin_mm", len(self.table_margin_mm) == 4 and min(self.table_margin_mm) >= 50,
             "4 distances (west, north, east, south) of at least 50 mm"),
            ("supply_figures", 0 <= self.supply_figures <= 30, "between 0 and 30"),
            ("ore_spot", len(self.ore_spot) == 2 and max(abs(float(v)) for v in self.ore_spot) <= 0.5,
             "2 offsets (across, inward) of at most 0.5 tile"),
            ("room_mm", self.room_mm is None or 0 <= float(self.room_mm) <= 10, "between 0 and 10 (or null)"),
        ]
        for name, ok, what in tests:
            if not ok:
                raise ScorerError(f"synth parameter {name} must be {what}, got {getattr(self, name)!r}")

    def size(self) -> tuple[int, int]:
        """Photo ``(width, height)`` in pixels."""
        long_side = math.sqrt(self.megapixels * 1e6 * self.aspect)
        short_side = long_side / self.aspect
        w, h = int(round(long_side)), int(round(short_side))
        return (h, w) if self.portrait else (w, h)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> "SynthParams":
        """Parameters from :meth:`to_dict` output (a sidecar's ``synth.params``).

        Raises
        ------
        ScorerError
            Unknown key or a value out of range.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(obj) - names)
        if unknown:
            raise ScorerError(f"synth params: unknown key(s) {', '.join(unknown)}")
        p = cls(**obj)
        p.check()
        return p


# --------------------------------------------------------------------------- result


@dataclass
class SynthResult:
    """A synthetic photo and its ground truth.

    Attributes
    ----------
    image : (H, W, 3) uint8 ndarray
        RGB photo, exactly the decoded :attr:`jpeg`.
    jpeg : bytes
        The photo file (quality ``params.jpeg_quality``).
    truth : Board
        The board in photo orientation (module docstring).
    homography : (3, 3) float64 ndarray
        Board millimetres (truth frame, tile top faces) -> pinhole photo pixels.
    cell_corners : dict (x, y) -> (4, 2) float64 ndarray
        Photo pixels (lens distortion applied) of each truth cell's lattice
        square, clockwise from the north-west corner.
    tile_corners : dict (x, y) -> (4, 2) float64 ndarray
        Photo pixels of each tile's real corners as laid (offsets and turns), same order.
    figures_px : list of dict
        Every figure and token on the board: ``kind`` (``meeple``, ``tent``,
        ``sheriff``, ``gold``, ``ore``), ``pose`` for meeples (``standing`` or
        ``lying``), ``player``, ``x``, ``y``, ``at`` (truth cell and location),
        ``count`` for stacks, ``mm`` (foot point, board millimetres) and ``px``
        (foot point, photo pixels).
    params : SynthParams
    pitch_mm : float
        Lattice pitch, mm.
    turns : int
        ``k``: quarter turns from the input board to the truth.
    camera : Camera
        The pinhole camera (pixels of the undistorted photo).
    lens : Lens
    clutter_px : list of dict
        Objects beside the board: ``kind`` (``card``, ``track``, ``lid``,
        ``stack``) and ``px``, the outline of their picture (convex, photo pixels).
    supply_px : list of dict
        Spare figures on the table (not part of the board): ``kind``
        (``meeple``/``farmer``), ``player`` and ``px`` (foot point, photo pixels).
    seconds : float
        Time taken.
    """

    image: np.ndarray
    jpeg: bytes
    truth: Board
    homography: np.ndarray
    cell_corners: dict[Cell, np.ndarray]
    tile_corners: dict[Cell, np.ndarray]
    figures_px: list[dict[str, Any]]
    params: SynthParams
    pitch_mm: float
    turns: int
    camera: Camera
    lens: Lens
    clutter_px: list[dict[str, Any]] = field(default_factory=list)
    supply_px: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def project(self, points_mm: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Photo pixels ``(N, 2)`` of board-millimetre points ``(N, 2)`` at ``height_mm`` above the tiles."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        world = np.column_stack([pts, np.full(len(pts), -float(height_mm))])
        return self.lens.distort_points(self.camera.project(world))

    def synth_dict(self) -> dict[str, Any]:
        """The ``synth`` key of the sidecar: parameters and pixel ground truth."""
        def r(a: np.ndarray) -> list:
            return np.round(np.asarray(a, dtype=np.float64), 3).tolist()

        w, h = self.image.shape[1], self.image.shape[0]
        return {
            "format": SYNTH_FORMAT,
            "image_size": [w, h],
            "tile_mm": TILE_MM,
            "pitch_mm": round(self.pitch_mm, 6),
            "turns": self.turns,
            "homography": self.homography.tolist(),
            "lens": {"k1": self.lens.k1, "k2": self.lens.k2, "centre": r(self.lens.centre),
                     "norm": self.lens.norm,
                     "model": "undistorted = c + (d - c) * (1 + k1 rho^2 + k2 rho^4), rho = |d - c| / norm"},
            "camera": {"K": self.camera.K.tolist(), "R": self.camera.R.tolist(), "C": self.camera.C.tolist()},
            "params": self.params.to_dict(),
            "cell_corners": [{"x": c[0], "y": c[1], "px": r(v)} for c, v in sorted(self.cell_corners.items())],
            "tile_corners": [{"x": c[0], "y": c[1], "px": r(v)} for c, v in sorted(self.tile_corners.items())],
            "figures_px": [{**f, "mm": r(f["mm"]), "px": r(f["px"])} for f in self.figures_px],
            "clutter_px": [{**c, "px": r(c["px"])} for c in self.clutter_px],
            "supply_px": [{**c, "px": r(c["px"])} for c in self.supply_px],
        }

    def sidecar(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """The truth board JSON object with the ``synth`` key (and ``extra`` keys in ``synth``)."""
        out = self.truth.to_dict()
        synth = self.synth_dict()
        if extra:
            synth.update(extra)
        out["synth"] = synth
        return out

    def save(self, photo_path: str | Path, *, extra: dict[str, Any] | None = None) -> tuple[Path, Path]:
        """Write the JPEG and ``PHOTO.truth.json`` beside it, both or neither.

        Both files are written to temporary files first and renamed only when
        both are ready (:func:`scorer.fileio.write_atomic_group`), so a failure
        leaves an earlier photo and sidecar exactly as they were.

        Returns
        -------
        (Path, Path)
            The photo and the sidecar.

        Raises
        ------
        ScorerError
            The folder does not exist or is not writable, or a target is a folder
            (nothing is left behind, earlier files are intact).
        """
        photo_path = Path(photo_path)
        side = photo_path.with_name(photo_path.name + ".truth.json")
        text = dumps_compact(self.sidecar(extra))
        write_atomic_group([(side, text), (photo_path, self.jpeg)])
        return photo_path, side


# --------------------------------------------------------------------------- layout


@dataclass
class _Laid:
    """A tile as laid on the table: centre (mm), turn (radians), corners (4, 2) mm."""

    cell: Cell
    centre: np.ndarray
    angle: float
    corners: np.ndarray

    def point(self, frac: tuple[float, float]) -> np.ndarray:
        """Board millimetres of a point given as fractions of the tile (board orientation)."""
        local = np.array([(frac[0] - 0.5) * TILE_MM, (frac[1] - 0.5) * TILE_MM])
        c, s = math.cos(self.angle), math.sin(self.angle)
        return self.centre + np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]])


def _lay_tiles(truth: Board, p: SynthParams, rng: np.random.Generator) -> tuple[float, dict[Cell, _Laid]]:
    """Where every tile really lies: drift that grows along rows plus a little hand noise."""
    pitch = TILE_MM + p.gap_mm
    amp = p.tile_offset * TILE_MM
    waves = []
    for _ in range(4):
        waves.append((rng.uniform(0, 2 * math.pi), rng.uniform(1.5, 6.0), rng.uniform(0, 2 * math.pi),
                      rng.uniform(-1, 1, 2)))
    laid: dict[Cell, _Laid] = {}
    for cell in sorted(truth.tiles):
        x, y = cell
        drift = np.zeros(2)
        for ang, wl, ph, vec in waves:
            drift += vec * math.sin((x * math.cos(ang) + y * math.sin(ang)) * 2 * math.pi / wl + ph)
        drift = drift / 2.0
        offset = amp * (0.75 * np.clip(drift, -1, 1) + 0.25 * rng.uniform(-1, 1, 2))
        n = np.linalg.norm(offset)
        if n > amp > 0:
            offset *= amp / n
        angle = math.radians(p.tile_turn_deg) * float(np.clip(rng.normal(0, 0.45), -1, 1))
        centre = np.array([(x + 0.5) * pitch, (y + 0.5) * pitch]) + offset
        c, s = math.cos(angle), math.sin(angle)
        local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (TILE_MM / 2)
        corners = local @ np.array([[c, s], [-s, c]]) + centre
        laid[cell] = _Laid(cell, centre, angle, corners)
    return pitch, laid


def _figure_kind(board: Board, f: Figure) -> str:
    placement = board.tiles.get(f.cell)
    if placement is not None and placement.tile.turned(placement.rot).kind_at(f.at) in ("field", "prairie"):
        return "farmer"
    return "meeple"


def _place_items(truth: Board, laid: dict[Cell, _Laid], p: SynthParams,
                 rng: np.random.Generator) -> list[dict[str, Any]]:
    """Every figure and token with its foot point (board mm), as :attr:`SynthResult.figures_px` entries.

    Spots follow :mod:`scorer.render.topdown`: the location's anchor, the kind's
    offset (:data:`FIGURE_OFFSETS`, :data:`SPREAD` times larger) and a sideways
    fan for several of one kind; ore stacks lie at :attr:`SynthParams.ore_spot`
    from the anchor, on their mountain.
    """
    items: list[dict[str, Any]] = []
    used: dict[tuple, int] = {}

    def spot(cell: Cell, at: str, kind: str) -> tuple[float, float]:
        ax, ay = LOCATION_ANCHORS[at]
        across, inward = FIGURE_OFFSETS.get(kind, (0.0, 0.0))
        (ix, iy), (cx, cy) = offset_axes(at)
        k = used.get((cell, at, kind), 0)
        used[(cell, at, kind)] = k + 1
        fan = 0.0 if k == 0 else 0.11 * ((k + 1) // 2) * (1 if k % 2 else -1)
        if kind == "ore":  # on the mountain, at its own spot
            across, inward = p.ore_spot[0] + SPREAD * fan, p.ore_spot[1]
        else:  # solid figures are wider than the flat top-down icons: spread them further
            across, inward = SPREAD * (across + fan), SPREAD * inward
        fx = ax + across * cx + inward * ix
        fy = ay + across * cy + inward * iy
        return (min(0.88, max(0.12, fx)), min(0.88, max(0.12, fy)))

    def add(kind: str, cell: Cell, frac: tuple[float, float], **info: Any) -> None:
        jitter = rng.normal(0, 0.5, 2) * p.figure_jitter_mm
        jitter = np.clip(jitter, -p.figure_jitter_mm, p.figure_jitter_mm)
        mm = laid[cell].point(frac) + jitter
        items.append({"kind": kind, **info, "x": cell[0], "y": cell[1], "mm": mm})

    for s in truth.ore:
        add("ore", s.cell, spot(s.cell, s.at, "ore"), at=s.at, count=s.count)
    for f in truth.tents:
        add("tent", f.cell, spot(f.cell, f.at, "tent"), player=f.player, at=f.at)
    for f in truth.meeples:
        pose = "lying" if _figure_kind(truth, f) == "farmer" else "standing"
        add("meeple", f.cell, spot(f.cell, f.at, "meeple"), pose=pose, player=f.player, at=f.at)
    if truth.sheriff is not None:
        f = truth.sheriff
        add("sheriff", f.cell, spot(f.cell, f.at, "sheriff"), at=f.at)
    for s in truth.gold:
        others = [np.asarray(LOCATION_ANCHORS.get(it.get("at", "C"), (0.5, 0.5)))
                  for it in items if (it["x"], it["y"]) == s.cell]
        cands = [GOLD_ANCHOR, (0.78, 0.78), (0.22, 0.78), (0.78, 0.22), (0.22, 0.22)]

        def room(c: tuple[float, float]) -> float:
            return min((float(np.linalg.norm(np.asarray(c) - o)) for o in others), default=1.0)

        frac = next((c for c in cands if room(c) >= 0.3), max(cands, key=room))
        add("gold", s.cell, frac, count=s.count)
    if p.room_mm is not None:
        _make_room(items, laid, float(p.room_mm))
    return items


def _solid(it: dict[str, Any]) -> str:
    """The solid an item of :func:`_place_items` is drawn as (:data:`FOOTPRINT_MM` keys)."""
    return "farmer" if it["kind"] == "meeple" and it.get("pose") == "lying" else it["kind"]


def _make_room(items: list[dict[str, Any]], laid: dict[Cell, _Laid], gap_mm: float, rounds: int = 30) -> None:
    """Move the solids sharing a tile apart until their bases are ``gap_mm`` apart (in place).

    Each solid stands on a round base of radius :data:`FOOTPRINT_MM`; of two
    that overlap, the lower of :data:`ROOM_RANK` moves straight away from the
    other (equal ranks: both, half each), and stays within 0.1 of a tile of the
    tile's edge.  Real figures touch but never stand inside one another: a
    cowboy stands beside the ore stack on its mountain, not through it.
    Repeated until nothing moves or ``rounds`` passes were made (a crowded
    corner may keep some overlap).
    """
    by_cell: dict[Cell, list[dict[str, Any]]] = {}
    for it in items:
        by_cell.setdefault((it["x"], it["y"]), []).append(it)
    for cell, group in by_cell.items():
        if len(group) < 2:
            continue
        t = laid[cell]
        c, s = math.cos(t.angle), math.sin(t.angle)
        rot = np.array([[c, -s], [s, c]])
        lo, hi = (0.1 - 0.5) * TILE_MM, (0.9 - 0.5) * TILE_MM

        def clamp(mm: np.ndarray) -> np.ndarray:
            local = rot.T @ (mm - t.centre)
            return t.centre + rot @ np.clip(local, lo, hi)

        for _ in range(rounds):
            moved = False
            for i in range(len(group)):
                for j in range(i + 1, len(group)):
                    a, b = group[i], group[j]
                    need = FOOTPRINT_MM[_solid(a)] + FOOTPRINT_MM[_solid(b)] + gap_mm
                    d = b["mm"] - a["mm"]
                    dist = float(np.linalg.norm(d))
                    if dist >= need - 1e-6:
                        continue
                    if dist < 1e-6:  # one on top of the other: apart along the tile's x axis
                        d, dist = rot[:, 0].copy(), 1.0
                    u = d / dist
                    ra, rb = ROOM_RANK[_solid(a)], ROOM_RANK[_solid(b)]
                    share_a = 0.5 if ra == rb else (1.0 if ra < rb else 0.0)
                    a["mm"] = clamp(a["mm"] - u * (need - dist) * share_a)
                    b["mm"] = clamp(b["mm"] + u * (need - dist) * (1.0 - share_a))
                    moved = True
            if not moved:
                break


# --------------------------------------------------------------------------- drawing


def _light_vector(p: SynthParams) -> np.ndarray:
    az, el = math.radians(p.light_azimuth_deg), math.radians(p.light_elevation_deg)
    return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), -math.sin(el)])


def _draw_tiles(canvas: np.ndarray, cam: Camera, truth: Board, laid: dict[Cell, _Laid], p: SynthParams,
                light: np.ndarray, art_dir: str | Path | None, rng: np.random.Generator) -> None:
    """Tiles as thin cardboard slabs: soft shadows in the gaps, visible sides, printed tops."""
    T = p.tile_thickness_mm
    # Shadows and darkness in the gaps between tiles.
    polys = []
    for t in laid.values():
        foot = np.column_stack([t.corners, np.full(4, T)])
        top = np.column_stack([t.corners, np.zeros(4)])
        cast = scene.shadow_on_plane(top, light, T)
        polys.append(scene._hull(cam.project(np.vstack([foot, cast]))))
    px_mm = cam.K[0, 0] / max(float(np.median(cam.depth(np.column_stack(
        [np.vstack([t.centre for t in laid.values()]), np.zeros(len(laid))])))), 1.0)
    scene.soft_shadow(canvas, polys, sigma_px=max(0.5, 0.8 * px_mm), strength=0.55 * p.shadow + 0.15)
    # Picture size: a little more than the largest tile in the photo.
    sizes = []
    for t in laid.values():
        q = cam.project(np.column_stack([t.corners, np.zeros(4)]))
        sizes.append(max(np.linalg.norm(q[(i + 1) % 4] - q[i]) for i in range(4)))
    tile_px = int(np.clip(math.ceil(max(sizes) * 1.15), 16, 720))
    side_rgb = np.array([0.80, 0.77, 0.70])
    order = list(laid)
    rng.shuffle(order)  # hands put tiles down in any order: overlaps fall either way
    for cell in order:
        t = laid[cell]
        placement = truth.tiles[cell]
        scene.draw_box(canvas, cam, t.corners, T, 0.0, side_rgb, light)
        img = tile_image(placement.tile, tile_px, art_dir=art_dir, seed=int(rng.integers(0, 4)))
        img = np.ascontiguousarray(np.rot90(img, -placement.rot))
        scene.draw_quad_texture(canvas, img, cam.project(np.column_stack([t.corners, np.zeros(4)])),
                                gain=float(rng.uniform(0.96, 1.03)))


def _plan_supply(rng: np.random.Generator, n: int, board_rect, truth: Board, cam: Camera,
                 canvas_size: tuple[int, int], board_hull: np.ndarray, clutter: list, table_z: float,
                 table_rect: tuple[float, float, float, float]) -> list:
    """Spare figures lying on the table next to the board (never on it)."""
    x0, y0, x1, y1 = board_rect
    colours = list(truth.players) or ["red", "blue", "green", "yellow", "black"]
    out = []
    W, H = canvas_size
    for _ in range(n * 10):
        if len(out) >= n:
            break
        side = int(rng.integers(0, 4))
        gap = rng.uniform(30, 120)
        along = rng.uniform(-0.1, 1.1)
        if side == 0:
            xy = (x0 + along * (x1 - x0), y0 - gap)
        elif side == 1:
            xy = (x1 + gap, y0 + along * (y1 - y0))
        elif side == 2:
            xy = (x0 + along * (x1 - x0), y1 + gap)
        else:
            xy = (x0 - gap, y0 + along * (y1 - y0))
        foot = np.array([xy[0], xy[1], table_z])
        box = np.array([[xy[0] - 10, xy[1] - 10], [xy[0] + 10, xy[1] - 10], [xy[0] + 10, xy[1] + 10],
                        [xy[0] - 10, xy[1] + 10]])
        if not scene.on_table(box, table_rect) or any(scene._convex_overlap(box, c.footprint()) for c in clutter):
            continue
        if any(np.linalg.norm(np.asarray(o[1][:2]) - foot[:2]) < 20 for o in out):
            continue
        pts = np.vstack([np.column_stack([box, np.full(4, table_z)]), np.column_stack([box, np.full(4, table_z - 18)])])
        if np.any(cam.depth(pts) <= 1):
            continue
        hull = scene._hull(cam.project(pts))
        if scene._convex_overlap(hull, board_hull):
            continue
        uv = cam.project(foot[None])[0]
        if not (0 <= uv[0] < W and 0 <= uv[1] < H):
            continue
        kind = "farmer" if rng.random() < 0.4 else "meeple"
        out.append((kind, foot, colours[int(rng.integers(0, len(colours)))], float(rng.uniform(0, 2 * math.pi))))
    return out


# --------------------------------------------------------------------------- public


def synthesize(board: Board, *, rng: np.random.Generator, art_dir: str | Path | None = None,
               params: SynthParams | None = None, difficulty: str = "easy") -> SynthResult:
    """A realistic phone photo of ``board`` lying on a table, with exact ground truth.

    Parameters
    ----------
    board : Board
        Any board with at least one tile.
    rng : numpy.random.Generator
        Draws the parameters when ``params`` is None (then also their ``seed``).
    art_dir : str or Path, optional
        Real tile art for development (:func:`scorer.render.tileart.tile_image`).
    params : SynthParams, optional
        Every knob; by default ``SynthParams.random(rng, difficulty)``.
    difficulty : {"easy", "hard"}
        Used when ``params`` is None.

    Returns
    -------
    SynthResult
        ``image`` (H, W, 3) uint8 RGB, ``truth`` Board, ``homography`` (3, 3)
        float64, ``cell_corners`` and ``figures_px`` in photo pixels, ``params``.

    Raises
    ------
    ScorerError
        The board has no tiles, or a parameter is out of range (the message names it).
    """
    started = time.perf_counter()
    if not isinstance(rng, np.random.Generator):
        raise ScorerError("rng must be a numpy.random.Generator (np.random.default_rng(seed))")
    if not board.tiles:
        raise ScorerError("the board has no tiles: nothing to photograph")
    params = params if params is not None else SynthParams.random(rng, difficulty)
    params.check()
    p = params
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(p.seed).spawn(8)]
    r_tiles, r_figs, r_table, r_clutter, r_light, r_sensor, r_draw, r_supply = streams

    k = int(math.floor(p.rotation_deg / 90.0 + 0.5)) % 4
    residual = (p.rotation_deg - 90.0 * k + 180.0) % 360.0 - 180.0
    truth = turn_board(board, k)
    pitch, laid = _lay_tiles(truth, p, r_tiles)
    items = _place_items(truth, laid, p, r_figs)
    T = p.tile_thickness_mm

    W, H = p.size()
    lens = Lens(float(p.k1), float(p.k2), W, H)
    mx, my = lens.margin()
    corners = np.vstack([t.corners for t in laid.values()])
    hull_mm = scene._hull(corners)
    outline = np.column_stack([hull_mm, np.zeros(len(hull_mm))])
    tops = np.vstack([np.column_stack([hull_mm, np.full(len(hull_mm), -FIGURE_TOP_MM)]),
                      np.column_stack([hull_mm, np.full(len(hull_mm), T)])])
    margin_px = 0.01 * min(W, H)
    cam = scene.frame_board(outline, tops, (W, H), hfov_deg=p.hfov_deg, tilt_deg=p.tilt_deg,
                            roll_deg=residual, fill=p.fill, shift=(p.shift_x, p.shift_y), margin_px=margin_px)
    ccam = cam.shifted(mx, my)
    CW, CH = W + 2 * mx, H + 2 * my
    light = _light_vector(p)

    # Table.
    step = 2 if W * H <= 4e6 else 3 if W * H <= 9e6 else 4  # the table has no fine detail worth more
    X, Y, foot = scene.table_grid(ccam, (CH, CW), T, step)
    xs, ys = corners[:, 0], corners[:, 1]
    rect = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
    mw, mn, me, ms = p.table_margin_mm
    table_rect = (rect[0] - mw, rect[1] - mn, rect[2] + me, rect[3] + ms)
    table = scene.render_table(p.table, tuple(p.table_rgb), tuple(p.table_rgb2), X, Y, foot * step, r_table)
    table = scene.add_floor(table, X, Y, foot * step, table_rect, tuple(p.floor_rgb), r_table)
    canvas = cv2.resize(table, (X.shape[1] * step, X.shape[0] * step), interpolation=cv2.INTER_LINEAR)
    canvas = np.ascontiguousarray(canvas[:CH, :CW])
    edge_rgb = np.asarray(p.table_rgb, dtype=np.float64) * 0.75
    scene.draw_box(canvas, ccam, scene.table_corners(table_rect), T + 30.0, T, edge_rgb, light)

    # Clutter around the play area, never over it.
    board_hull_px = scene._hull(ccam.project(np.vstack([outline, tops])))
    clutter = scene.plan_clutter(r_clutter, p.clutter, rect, ccam, (CW, CH), board_hull_px, T, table_rect)
    scene.draw_clutter(canvas, ccam, clutter, T, light, p.shadow)
    supply = _plan_supply(r_supply, p.supply_figures, rect, truth, ccam, (CW, CH), board_hull_px, clutter, T,
                          table_rect)

    # Tiles.
    _draw_tiles(canvas, ccam, truth, laid, p, light, art_dir, r_draw)

    # Figures and tokens, far to near.
    solids = []
    for it in items:
        foot3 = np.array([it["mm"][0], it["mm"][1], 0.0])
        yaw = float(r_figs.uniform(0, 2 * math.pi))
        if it["kind"] == "meeple":
            kind, colour = ("farmer" if it["pose"] == "lying" else "meeple"), it["player"]
        elif it["kind"] == "tent":
            kind, colour = "tent", it["player"]
        else:
            kind, colour = it["kind"], None
        faces = figure_faces(kind, colour, foot3, yaw, count=it.get("count", 1), rng=r_figs)
        solids.append((float(ccam.depth(foot3[None])[0]), faces, 0.0))
    for kind, foot3, colour, yaw in supply:
        solids.append((float(ccam.depth(foot3[None])[0]), figure_faces(kind, colour, foot3, yaw, rng=r_supply), T))
    solids.sort(key=lambda s: -s[0])
    for _, faces, ground in solids:
        draw_solid(canvas, ccam, faces, light, ground_z=ground, shadow=p.shadow, rng=r_draw)

    # Lens, light, optics and sensor.
    photo = lens.apply(canvas, (mx, my))
    del canvas
    gain = scene.light_field((H, W), gradient=p.gradient, gradient_angle_deg=p.gradient_angle_deg,
                             vignette=p.vignette, spot=p.spot, spot_xy=(p.spot_x, p.spot_y),
                             hand_shadow=p.hand_shadow, rng=r_light)
    wb = np.asarray(p.white_balance, dtype=np.float32) * np.float32(p.exposure)
    photo = cv2.multiply(photo, cv2.merge([gain * wb[0], gain * wb[1], gain * wb[2]]))
    del gain
    img = scene.sensor(photo, blur_px=p.blur_px, motion_px=p.motion_px, motion_angle_deg=p.motion_angle_deg,
                       sharpen=p.sharpen, noise=p.noise, rng=r_sensor)
    jpeg = encode_jpeg(img, int(p.jpeg_quality))
    image = decode_jpeg(jpeg)

    # Ground truth in photo pixels.
    Hm = cam.homography(0.0)
    cells = sorted(truth.tiles)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float64)
    squares = np.vstack([(unit + np.asarray(c, dtype=np.float64)) * pitch for c in cells])
    real = np.vstack([laid[c].corners for c in cells])
    feet = np.array([it["mm"] for it in items]).reshape(-1, 2)
    px = lens.distort_points(_apply_h(Hm, np.vstack([squares, real, feet])))
    n = 4 * len(cells)
    cell_corners = {c: px[4 * i:4 * i + 4] for i, c in enumerate(cells)}
    tile_corners = {c: px[n + 4 * i:n + 4 * i + 4] for i, c in enumerate(cells)}
    for i, it in enumerate(items):
        it["px"] = px[2 * n + i]
    clutter_px = []
    for c in clutter:
        foot = c.footprint()
        pts = np.vstack([np.column_stack([foot, np.full(4, T)]), np.column_stack([foot, np.full(4, T - c.height)])])
        clutter_px.append({"kind": c.kind, "px": scene._hull(lens.distort_points(cam.project(pts)))})
    supply_px = [{"kind": kind, "player": colour, "px": lens.distort_points(cam.project(foot3[None]))[0]}
                 for kind, foot3, colour, _ in supply]
    seconds = time.perf_counter() - started
    log.debug("synthesised %dx%d photo of %d tiles in %.2f s", W, H, len(truth.tiles), seconds)
    return SynthResult(image=image, jpeg=jpeg, truth=truth, homography=Hm, cell_corners=cell_corners,
                       tile_corners=tile_corners, figures_px=items, params=p, pitch_mm=pitch, turns=k,
                       camera=cam, lens=lens, clutter_px=clutter_px, supply_px=supply_px, seconds=seconds)


def _apply_h(Hm: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ Hm.T
    return q[:, :2] / q[:, 2:3]


def encode_jpeg(rgb: np.ndarray, quality: int) -> bytes:
    """JPEG file bytes of an RGB uint8 picture."""
    from .colours import encode_image

    return encode_image(rgb, ".jpg", quality=quality)


def decode_jpeg(data: bytes) -> np.ndarray:
    """RGB uint8 picture of JPEG bytes."""
    from .colours import bgr_to_rgb

    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if bgr is None:  # pragma: no cover
        raise ScorerError("cannot decode JPEG data")
    return bgr_to_rgb(bgr)


#: Figure colours each game's box has (board-format ``players``; seed 000 for Gold Rush).
GAME_COLOURS = {
    "carcassonne": ("red", "blue", "green", "yellow", "black", "grey", "pink"),
    "goldrush": ("yellow", "red", "green", "blue", "black"),
}


def pick_difficulty(choice: str, rng: np.random.Generator) -> str:
    """``easy`` or ``hard`` for a photo: ``mixed`` draws one (even odds) from ``rng``, any other is kept."""
    if choice == "mixed":
        return "hard" if rng.random() < 0.5 else "easy"
    return choice


def generated_photo(game: str, expansions: list[str], seed: int, index: int, *, colours: list[str] | None = None,
                    art_dir: str | Path | None = None, difficulty: str = "easy", megapixels: float | None = None,
                    tile_sets: tuple[str, ...] = ()) -> tuple["SynthResult", str, str]:
    """Photo ``index`` of ``scorer synth --generate N --seed SEED``: a random game, photographed.

    Three photos in ten show a finished game (``final``), the others a game
    stopped after a random number of tiles (``completed``: what the last tile
    completed is scored).  Everything is drawn from ``numpy.random.default_rng([seed, index])``,
    so one photo of a series can be made again alone.

    Parameters
    ----------
    game, expansions : the game (``carcassonne``, ``goldrush``) and its expansions.
    seed, index : int
        The series' seed and the photo's place in it (0 or more).
    colours : list of str, optional
        Players' colours in turn order (default: 2-5 of :data:`GAME_COLOURS` at random).
    art_dir, difficulty, megapixels, tile_sets :
        As :func:`synthesize`, :meth:`SynthParams.random` (``difficulty`` may be ``mixed``).

    Returns
    -------
    (SynthResult, str, str)
        The photo with its ground truth, the difficulty drawn and the mode.

    Raises
    ------
    ScorerError
        An unknown game or expansion.
    """
    from ..generate import generate_game, generate_turns
    from ..tiles import catalog_for

    box = sum(t.count for t in catalog_for(game, expansions, tile_sets).tiles.values())
    rng = np.random.default_rng([seed, index])
    who = colours or list(rng.choice(GAME_COLOURS[game], size=int(rng.integers(2, 6)), replace=False))
    if rng.random() < 0.3:
        board = generate_game(game, expansions, players=who, rng=rng, tile_sets=tile_sets)
        mode = "final"
    else:
        n_tiles = int(rng.integers(3, box + 1))
        turns = generate_turns(game, expansions, players=who, n_tiles=n_tiles, rng=rng, tile_sets=tile_sets)
        board = turns[-1].placed if turns else generate_game(game, expansions, players=who, n_tiles=1,
                                                              rng=rng, tile_sets=tile_sets)
        mode = "completed"
    level = pick_difficulty(difficulty, rng)
    params = SynthParams.random(rng, level, megapixels=megapixels)
    return synthesize(board, rng=rng, art_dir=art_dir, params=params), level, mode
