"""Tile catalogues as data: tile types, tile-set files, their loader and checks.

A tile type lists its features in **catalogue orientation** exactly as an inline
tile of ``board-format.md`` does::

    {"kind": "city", "edges": ["N", "W"], "pennants": 1}
    {"kind": "road", "edges": ["E", "S"]}
    {"kind": "field", "edges": ["EL", "SR"], "cities": [0]}
    {"kind": "cloister"}

A tile-set file (``scorer/data/tiles/*.json`` or a user's own file given with
``--tiles``) is::

    {"format": "carcassonne-tiles/1", "name": "base", "game": "carcassonne",
     "expansion": null, "title": "...", "source": "...", "reconstruction": false,
     "tiles": [{"id": "A", "count": 2, "features": [...]}, ...]}

Tile-level keys: ``id``, ``count``, optional ``name``, ``start`` (how many of the
``count`` copies are the start tile), ``gold`` (Goldmines symbol), ``sheriff``
(Sheriff star), ``river`` (``spring``, ``lake``, ``fork`` or ``river``: its role
when placing river tiles), ``art`` (file-name stem of the tile's published art),
``art_rot`` (clockwise quarter turns by which that art shows the tile turned from
catalogue orientation) and ``note``.

Consistency checked on load (``rules.md`` section 1): every side holds at most one
edge feature; every half-side belongs to exactly one field unless its side is a
city or mountain side; fields border only city features of their own tile; roads,
rails and rivers touch 1 or 2 sides; at most one centre feature per tile.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import TileSetError
from .geometry import CENTRE, HALVES, SIDES, Cell, halves_of, neighbour, rotate_location

log = logging.getLogger(__name__)

TILESET_FORMAT = "carcassonne-tiles/1"

#: Features that touch the middle of sides.
EDGE_KINDS = ("city", "road", "river", "mountain", "rail")
#: Features that cover field half-sides.
FIELD_KINDS = ("field", "prairie")
#: Features in the tile centre.
CENTRE_KINDS = ("cloister", "town", "cemetery")
KINDS = EDGE_KINDS + FIELD_KINDS + CENTRE_KINDS
#: Edge features whose side closes the field half-sides (fields stop at them).
WALL_KINDS = ("city", "mountain")
#: Edge features that run like a road: 1 side ends in the tile, 2 sides pass through.
LINE_KINDS = ("road", "river", "rail")

#: Attribute -> (kinds that may carry it, type).
ATTRIBUTES: dict[str, tuple[tuple[str, ...], type]] = {
    "pennants": (("city",), int),
    "inn": (("road",), bool),
    "pigherd": (("field",), bool),
    "nuggets": (("mountain",), int),
    "locomotives": (("rail",), int),
    "camps": (("prairie",), int),
    "horses": (("prairie",), int),
}

RIVER_ROLES = ("spring", "lake", "fork", "river")
GAMES = ("carcassonne", "goldrush")

#: Built-in tile sets: name -> (game, expansion or None).
BUILTIN_SETS: dict[str, tuple[str, str | None]] = {
    "base": ("carcassonne", None),
    "river1": ("carcassonne", "river"),
    "river2": ("carcassonne", "river"),
    "goldmines": ("carcassonne", "goldmines"),
    "goldrush": ("goldrush", None),
    "sheriff": ("goldrush", "sheriff"),
}

#: Expansions known per game (``board-format.md``, field ``expansions``).
EXPANSIONS: dict[str, tuple[str, ...]] = {
    "carcassonne": ("river", "goldmines"),
    "goldrush": ("sheriff",),
}


@dataclass(frozen=True)
class FeatureSpec:
    """One feature of a tile type.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    edges : tuple of str
        Sides (edge features), half-sides (fields) or empty (centre features).
    cities : tuple of int
        For fields: indices, in the tile's feature list, of the cities it borders.
    attrs : tuple of (str, int | bool)
        Attributes such as ``("pennants", 1)``, sorted by name.
    """

    kind: str
    edges: tuple[str, ...] = ()
    cities: tuple[int, ...] = ()
    attrs: tuple[tuple[str, Any], ...] = ()

    def get(self, name: str, default: Any = 0) -> Any:
        """The attribute ``name`` (``pennants``, ``inn``...) or ``default``."""
        for key, value in self.attrs:
            if key == name:
                return value
        return default

    def rotated(self, rot: int) -> "FeatureSpec":
        """The same feature turned ``rot`` clockwise quarter turns."""
        if rot % 4 == 0 or not self.edges:
            return self
        return FeatureSpec(
            self.kind, tuple(rotate_location(e, rot) for e in self.edges), self.cities, self.attrs
        )

    def to_dict(self) -> dict[str, Any]:
        """The feature as an inline-tile JSON object."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.edges:
            out["edges"] = list(self.edges)
        if self.cities:
            out["cities"] = list(self.cities)
        out.update(self.attrs)
        return out


@dataclass(frozen=True)
class Orientation:
    """A tile type turned by ``rot``: lookups from board-orientation locations.

    Attributes
    ----------
    features : tuple of FeatureSpec
        The features with their edges in board orientation.
    side : dict str -> int
        Side -> index of the edge feature touching its middle (absent: none).
    half : dict str -> int
        Half-side -> index of the field covering it (absent: none).
    centre : int or None
        Index of the centre feature.
    """

    features: tuple[FeatureSpec, ...]
    side: Mapping[str, int]
    half: Mapping[str, int]
    centre: int | None

    def side_kind(self, side: str) -> str | None:
        """Kind of the edge feature on ``side`` (``None`` for a plain field side)."""
        idx = self.side.get(side)
        return None if idx is None else self.features[idx].kind

    def kind_at(self, loc: str) -> str | None:
        """Kind of the feature addressed by a figure location (:meth:`locate`), or ``None``."""
        idx = self.locate(loc)
        return None if idx is None else self.features[idx].kind

    def locate(self, loc: str) -> int | None:
        """Index of the feature addressed by a figure location, or ``None``.

        ``N``/``E``/``S``/``W`` give the edge feature on that side or, on a plain
        field side, the field covering both halves; half-sides give their field;
        ``C`` gives the centre feature.
        """
        if loc == CENTRE:
            return self.centre
        if loc in self.side:
            return self.side[loc]
        if loc in self.half:
            return self.half[loc]
        if loc in SIDES:
            left, right = (self.half.get(h) for h in halves_of(loc))
            if left is not None and left == right:
                return left
        return None


@dataclass(frozen=True, eq=False)
class TileType:
    """A tile design of a catalogue (or an inline tile of a board).

    Attributes
    ----------
    id : str
        Catalogue id (base tiles: Wikicarpedia letters ``A``-``X``).
    features : tuple of FeatureSpec
        In catalogue orientation.
    count : int
        Copies in the box.
    meta : dict
        Tile-level keys: ``name``, ``start``, ``gold``, ``sheriff``, ``river``,
        ``art``, ``note`` and the name of the tile set it came from (``set``).
    """

    id: str
    features: tuple[FeatureSpec, ...]
    count: int = 1
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_orientations", tuple(self._orient(r) for r in range(4)))

    def _orient(self, rot: int) -> Orientation:
        feats = tuple(f.rotated(rot) for f in self.features)
        side: dict[str, int] = {}
        half: dict[str, int] = {}
        centre = None
        for i, f in enumerate(feats):
            if f.kind in EDGE_KINDS:
                for e in f.edges:
                    side[e] = i
            elif f.kind in FIELD_KINDS:
                for e in f.edges:
                    half[e] = i
            else:
                centre = i
        return Orientation(feats, side, half, centre)

    def turned(self, rot: int) -> Orientation:
        """The tile in board orientation after ``rot`` clockwise quarter turns."""
        return self._orientations[rot % 4]  # type: ignore[attr-defined]

    @property
    def gold(self) -> bool:
        """Whether the tile shows the Goldmines gold symbol."""
        return bool(self.meta.get("gold", False))

    @property
    def sheriff(self) -> bool:
        """Whether the tile shows the Sheriff star."""
        return bool(self.meta.get("sheriff", False))

    @property
    def river(self) -> str | None:
        """River role (``spring``, ``lake``, ``fork``, ``river``) or ``None``."""
        return self.meta.get("river")

    def has(self, kind: str) -> bool:
        """Whether any feature of the tile is of ``kind``."""
        return any(f.kind == kind for f in self.features)

    def edge_signature(self, rot: int = 0) -> tuple[str, ...]:
        """Kind on each side N, E, S, W after ``rot`` (``field`` for plain sides)."""
        o = self.turned(rot)
        out = []
        for s in SIDES:
            kind = o.side_kind(s)
            if kind is None:
                idx = o.half.get(s + "L")
                kind = o.features[idx].kind if idx is not None else "field"
            out.append(kind)
        return tuple(out)

    def symmetries(self) -> tuple[int, ...]:
        """Rotations (besides 0) that give the same tile: the same features in place."""
        base = canonical_features(self.turned(0).features)
        return tuple(r for r in (1, 2, 3) if canonical_features(self.turned(r).features) == base)

    def to_dict(self, *, with_id: bool = True) -> dict[str, Any]:
        """The tile as JSON: catalogue entry (``with_id``) or inline tile."""
        out: dict[str, Any] = {}
        if with_id:
            out["id"] = self.id
            out["count"] = self.count
        for key in ("name", "start", "gold", "sheriff", "river", "art", "art_rot", "note"):
            if key in self.meta and self.meta[key] not in (None, False):
                out[key] = self.meta[key]
        if not with_id and "name" not in out and self.id:
            out["name"] = self.id
        out["features"] = [f.to_dict() for f in self.features]
        return out

    def __repr__(self) -> str:
        return f"TileType({self.id!r}, {len(self.features)} features, count={self.count})"


def fits_neighbours(tile: TileType, rot: int, cell: Cell, placed: Mapping[Cell, tuple[TileType, int]]) -> bool:
    """Whether ``tile`` turned ``rot`` (quarter turns) at ``cell`` meets its placed neighbours.

    Every side must have the feature kind of the neighbouring tile's facing
    side (roads meet roads, cities cities, rivers rivers; ``rules.md`` section 1).
    ``placed`` maps cells to ``(tile, rot)``; sides with no neighbour placed
    fit anything.
    """
    sig = tile.edge_signature(rot)
    for k, side in enumerate(SIDES):
        other = placed.get(neighbour(cell, side))
        if other is not None and other[0].edge_signature(other[1])[(k + 2) % 4] != sig[k]:
            return False
    return True


def canonical_features(features: Iterable[FeatureSpec]) -> tuple:
    """Order-free form of a tile's features in one orientation.

    Fields refer to cities by index; the index is replaced by the city's edges, so
    two feature lists describing the same tile compare equal.
    """
    feats = list(features)
    out = []
    for f in feats:
        cities = tuple(sorted(tuple(sorted(feats[c].edges)) for c in f.cities))
        out.append((f.kind, tuple(sorted(f.edges)), cities, f.attrs))
    return tuple(sorted(out))


# --------------------------------------------------------------------------- parsing


def parse_feature(obj: Any, where: str) -> FeatureSpec:
    """Read one feature object of an inline tile or tile-set entry.

    Raises
    ------
    TileSetError
        Unknown kind, location or attribute; the message starts with ``where``.
    """
    if not isinstance(obj, dict):
        raise TileSetError(f"{where}: a feature must be an object, got {obj!r}")
    kind = obj.get("kind")
    if kind not in KINDS:
        raise TileSetError(f"{where}: unknown feature kind {kind!r}; expected one of {', '.join(KINDS)}")
    edges = obj.get("edges", [])
    if not isinstance(edges, list) or not all(isinstance(e, str) for e in edges):
        raise TileSetError(f"{where}: 'edges' must be a list of locations, got {edges!r}")
    allowed = SIDES if kind in EDGE_KINDS else HALVES if kind in FIELD_KINDS else ()
    for e in edges:
        if e not in allowed:
            what = "sides N E S W" if kind in EDGE_KINDS else "half-sides NL..WR" if allowed else "no edges"
            raise TileSetError(f"{where}: a {kind} takes {what}, not {e!r}")
    if len(set(edges)) != len(edges):
        raise TileSetError(f"{where}: repeated edge in {edges!r}")
    if kind in EDGE_KINDS and not edges:
        raise TileSetError(f"{where}: a {kind} must touch at least one side")
    if kind in LINE_KINDS and len(edges) > 2:
        raise TileSetError(
            f"{where}: a {kind} touches 1 side (it ends in the tile) or 2 (it passes through), "
            f"not {edges!r}; list separate segments as separate features"
        )
    if kind in FIELD_KINDS and not edges:
        raise TileSetError(f"{where}: a {kind} must cover at least one half-side")
    cities = obj.get("cities", [])
    if cities and kind != "field":
        raise TileSetError(f"{where}: only a field lists 'cities', not a {kind}")
    if not isinstance(cities, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in cities):
        raise TileSetError(f"{where}: 'cities' must be a list of feature indices, got {cities!r}")
    attrs = []
    for key, value in obj.items():
        if key in ("kind", "edges", "cities"):
            continue
        if key not in ATTRIBUTES:
            raise TileSetError(f"{where}: unknown attribute {key!r} on a {kind}")
        kinds, typ = ATTRIBUTES[key]
        if kind not in kinds:
            raise TileSetError(f"{where}: a {kind} cannot carry {key!r} (only {', '.join(kinds)})")
        if typ is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise TileSetError(f"{where}: {key!r} must be a count >= 0, got {value!r}")
        if typ is bool and not isinstance(value, bool):
            raise TileSetError(f"{where}: {key!r} must be true or false, got {value!r}")
        if value:
            attrs.append((key, value))
    return FeatureSpec(kind, tuple(edges), tuple(cities), tuple(sorted(attrs)))


def parse_tile(obj: Any, where: str, *, tile_id: str | None = None, set_name: str | None = None) -> TileType:
    """Read and check a tile (tile-set entry, or inline tile with ``tile_id``).

    Parameters
    ----------
    obj : dict
        JSON object with ``features`` (and ``id``/``count`` for catalogue entries).
    where : str
        Prefix for error messages, e.g. ``"base.json tiles[3]"``.
    tile_id : str, optional
        Id for an inline tile (defaults to its ``name`` or ``"inline"``).
    set_name : str, optional
        Name of the tile set the tile belongs to, kept in ``meta["set"]``.

    Raises
    ------
    TileSetError
        On a malformed or inconsistent tile; the message names ``where``.
    """
    if not isinstance(obj, dict):
        raise TileSetError(f"{where}: a tile must be an object, got {obj!r}")
    if tile_id is None:
        tile_id = obj.get("id")
        if not isinstance(tile_id, str) or not tile_id or any(c.isspace() for c in tile_id):
            raise TileSetError(f"{where}: 'id' must be a non-empty string without spaces, got {tile_id!r}")
        count = obj.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise TileSetError(f"{where} ({tile_id}): 'count' must be a positive integer, got {count!r}")
    else:
        count = 1
    where = f"{where} ({tile_id})"
    feats_obj = obj.get("features")
    if not isinstance(feats_obj, list) or not feats_obj:
        raise TileSetError(f"{where}: 'features' must be a non-empty list")
    feats = tuple(parse_feature(f, f"{where} features[{i}]") for i, f in enumerate(feats_obj))
    known = {"id", "count", "features", "name", "start", "gold", "sheriff", "river", "art", "art_rot", "note"}
    for key in obj:
        if key not in known:
            raise TileSetError(f"{where}: unknown tile key {key!r}; known: {', '.join(sorted(known))}")
    meta = {k: obj[k] for k in ("name", "start", "gold", "sheriff", "river", "art", "art_rot", "note") if k in obj}
    if meta.get("art_rot", 0) not in (0, 1, 2, 3):
        raise TileSetError(f"{where}: 'art_rot' must be 0-3 (clockwise quarter turns), got {meta['art_rot']!r}")
    if "river" in meta and meta["river"] not in RIVER_ROLES:
        raise TileSetError(f"{where}: 'river' must be one of {', '.join(RIVER_ROLES)}, got {meta['river']!r}")
    start = meta.get("start", 0)
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= count:
        raise TileSetError(f"{where}: 'start' must be a count between 0 and {count}, got {start!r}")
    for key in ("gold", "sheriff"):
        if key in meta and not isinstance(meta[key], bool):
            raise TileSetError(f"{where}: {key!r} must be true or false, got {meta[key]!r}")
    if set_name:
        meta["set"] = set_name
    check_tile(feats, where)
    return TileType(tile_id, feats, count, meta)


def check_tile(feats: tuple[FeatureSpec, ...], where: str) -> None:
    """Check that a tile's features describe a consistent tile.

    Raises
    ------
    TileSetError
        Two features on one side or half-side, a half-side in no field beside a
        road/rail/river/plain side, a field half-side under a city or mountain side,
        a field bordering a feature that is not a city, or two centre features.
    """
    side_owner: dict[str, int] = {}
    half_owner: dict[str, int] = {}
    centres = []
    for i, f in enumerate(feats):
        if f.kind in EDGE_KINDS:
            for e in f.edges:
                if e in side_owner:
                    raise TileSetError(f"{where}: side {e} is claimed by features {side_owner[e]} and {i}")
                side_owner[e] = i
        elif f.kind in FIELD_KINDS:
            for e in f.edges:
                if e in half_owner:
                    raise TileSetError(f"{where}: half-side {e} is in features {half_owner[e]} and {i}")
                half_owner[e] = i
            for c in f.cities:
                if not 0 <= c < len(feats) or feats[c].kind != "city":
                    raise TileSetError(f"{where}: field {i} borders feature {c}, which is not a city of this tile")
        else:
            centres.append(i)
    if len(centres) > 1:
        raise TileSetError(f"{where}: a tile has at most one centre feature, found {centres}")
    for s in SIDES:
        owner = side_owner.get(s)
        walled = owner is not None and feats[owner].kind in WALL_KINDS
        for h in halves_of(s):
            if walled and h in half_owner:
                raise TileSetError(
                    f"{where}: half-side {h} is in field {half_owner[h]} but side {s} is a {feats[owner].kind}"
                )
            if not walled and h not in half_owner:
                raise TileSetError(f"{where}: half-side {h} belongs to no field (side {s} is not a city or mountain)")


@dataclass
class TileSet:
    """A tile catalogue: one box or expansion.

    Attributes
    ----------
    name : str
        Short name (``base``, ``river1``...).
    game : str
        ``carcassonne`` or ``goldrush``.
    expansion : str or None
        The expansion the set belongs to (``river``, ``goldmines``, ``sheriff``).
    tiles : dict str -> TileType
        In file order.
    info : dict
        ``title``, ``source``, ``reconstruction`` and other descriptive keys.
    """

    name: str
    game: str
    expansion: str | None
    tiles: dict[str, TileType]
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """Number of tiles in the box (sum of counts)."""
        return sum(t.count for t in self.tiles.values())

    def to_dict(self) -> dict[str, Any]:
        """The tile set as a ``carcassonne-tiles/1`` JSON object (round-trips)."""
        out: dict[str, Any] = {
            "format": TILESET_FORMAT,
            "name": self.name,
            "game": self.game,
            "expansion": self.expansion,
        }
        out.update(self.info)
        out["tiles"] = [t.to_dict() for t in self.tiles.values()]
        return out


def parse_tileset(obj: Any, where: str) -> TileSet:
    """Read and check a ``carcassonne-tiles/1`` object.

    Raises
    ------
    TileSetError
        Wrong format tag, unknown game, duplicate ids or any bad tile.
    """
    if not isinstance(obj, dict):
        raise TileSetError(f"{where}: a tile set must be a JSON object")
    if obj.get("format") != TILESET_FORMAT:
        raise TileSetError(f"{where}: 'format' must be {TILESET_FORMAT!r}, got {obj.get('format')!r}")
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise TileSetError(f"{where}: 'name' must be a non-empty string")
    game = obj.get("game")
    if game not in GAMES:
        raise TileSetError(f"{where}: unknown game {game!r}; expected one of {', '.join(GAMES)}")
    expansion = obj.get("expansion")
    if expansion is not None and expansion not in EXPANSIONS[game]:
        raise TileSetError(f"{where}: unknown expansion {expansion!r} for {game}")
    tiles_obj = obj.get("tiles")
    if not isinstance(tiles_obj, list) or not tiles_obj:
        raise TileSetError(f"{where}: 'tiles' must be a non-empty list")
    tiles: dict[str, TileType] = {}
    for i, t in enumerate(tiles_obj):
        tile = parse_tile(t, f"{where} tiles[{i}]", set_name=name)
        if tile.id in tiles:
            raise TileSetError(f"{where} tiles[{i}]: duplicate tile id {tile.id!r}")
        tiles[tile.id] = tile
    info = {k: v for k, v in obj.items() if k not in ("format", "name", "game", "expansion", "tiles")}
    return TileSet(name, game, expansion, tiles, info)


def load_tileset(source: str | Path) -> TileSet:
    """Load a built-in tile set by name or a tile-set JSON file by path.

    Parameters
    ----------
    source : str or Path
        A name of :data:`BUILTIN_SETS` or the path of a ``carcassonne-tiles/1`` file.

    Raises
    ------
    TileSetError
        File missing, not JSON, or an inconsistent catalogue.
    """
    if isinstance(source, str) and source in BUILTIN_SETS:
        return _builtin(source)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TileSetError(f"cannot read tile set {str(path)!r}: {exc.strerror or exc}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TileSetError(f"{path.name}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return parse_tileset(obj, path.name)


@lru_cache(maxsize=None)
def _builtin(name: str) -> TileSet:
    text = resources.files("scorer").joinpath("data", "tiles", f"{name}.json").read_text(encoding="utf-8")
    return parse_tileset(json.loads(text), f"{name}.json")


def builtin_sets_for(game: str, expansions: Iterable[str]) -> list[str]:
    """Names of the built-in tile sets a game with ``expansions`` uses."""
    wanted = set(expansions)
    return [n for n, (g, e) in BUILTIN_SETS.items() if g == game and (e is None or e in wanted)]


@dataclass
class Catalog:
    """The tile types available to one board: id -> tile type.

    Built from the built-in sets of the game and expansions, then any user tile
    sets (``--tiles FILE``), whose ids replace built-in ones of the same id.
    """

    tiles: dict[str, TileType]
    sets: list[TileSet]
    counts: dict[str, int] = field(default_factory=dict)

    def __getitem__(self, tile_id: str) -> TileType:
        return self.tiles[tile_id]

    def __contains__(self, tile_id: object) -> bool:
        return tile_id in self.tiles

    def box_count(self, tile_id: str) -> int:
        """How many copies of ``tile_id`` the box holds (0 for an unknown id)."""
        return self.counts.get(tile_id, 0)


def catalog_for(game: str, expansions: Iterable[str] = (), extra: Iterable[str | Path | TileSet] = ()) -> Catalog:
    """The catalogue of a game with its expansions plus user tile sets.

    Raises
    ------
    TileSetError
        A user tile set for another game, or an unreadable/inconsistent set.
    """
    sets = [load_tileset(n) for n in builtin_sets_for(game, expansions)]
    user = [s if isinstance(s, TileSet) else load_tileset(s) for s in extra]
    for s in user:
        if s.game != game:
            raise TileSetError(f"tile set {s.name!r} is for {s.game}, but the board is {game}")
    tiles: dict[str, TileType] = {}
    counts: dict[str, int] = {}
    for s in sets:
        for tid, t in s.tiles.items():
            tiles.setdefault(tid, t)
            counts[tid] = counts.get(tid, 0) + t.count
    for s in user:  # a user's own box replaces the built-in description and count
        for tid, t in s.tiles.items():
            tiles[tid] = t
            counts[tid] = t.count
    return Catalog(tiles, sets + user, counts)
