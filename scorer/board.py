"""The board model and its ``carcassonne-board/1`` JSON form (``board-format.md``).

A :class:`Board` is one state of the table: placed tiles, figures, tokens, what
players hold and the score track.  It is a plain value (``copy()`` gives an
independent board), so a game followed photo by photo is a list of boards.

Two layers of errors, as in python-chess: malformed input (unknown id, colour,
rot outside 0-3, two tiles on one cell, a figure at a location its tile does not
have) raises :class:`~scorer.errors.BoardFormatError` naming the field and cell
before anything is built; a well-formed board that breaks the rules loads and is
reported by :func:`scorer.legality.problems`.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .errors import BoardFormatError, ScorerError, TileSetError
from .fileio import write_atomic
from .geometry import LOCATIONS, Cell, rotate_location
from .tiles import EXPANSIONS, GAMES, Catalog, TileSet, TileType, catalog_for, parse_tile

BOARD_FORMAT = "carcassonne-board/1"
COLOURS = ("red", "blue", "green", "yellow", "black", "grey", "pink")
RULE_CHOICES: dict[str, tuple] = {"small_city": (4, 2), "farmers": ("3rd", "2nd", "1st")}
DEFAULT_RULES: dict[str, Any] = {"small_city": 4, "farmers": "3rd"}
HELD_KEYS = ("gold_bars", "ore_points", "ore_tokens")
#: Sane bounds (a mistyped number must not make scoring or drawing run for ever):
#: cells at most this far from the origin in x and in y...
MAX_COORD = 10_000
#: ...at most this many gold bars or ore tokens on one tile...
MAX_TOKENS_PER_TILE = 100
#: ...and score-track points / held counts at most this.
MAX_POINTS = 100_000
#: Feature kinds each game's tiles may have (``board-format.md``, inline tiles).
GAME_KINDS: dict[str, tuple[str, ...]] = {
    "carcassonne": ("city", "road", "river", "field", "cloister"),
    "goldrush": ("rail", "mountain", "town", "prairie", "cemetery"),
}
GAME_TITLES = {"carcassonne": "Carcassonne", "goldrush": "Gold Rush"}
#: Longest quote of input in an error message, in characters.
QUOTE_MAX = 80


def short(value: Any, limit: int = QUOTE_MAX) -> str:
    """``repr(value)`` cut to ``limit`` characters (``...`` at the end), for error messages."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        text = "<a number with too many digits>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def looks_like_json(text: str) -> bool:
    """Whether board text is JSON (an object or array, after a byte-order mark and blanks)."""
    return text.lstrip("\ufeff").lstrip().startswith(("{", "["))


@dataclass
class Placement:
    """A placed tile.

    Attributes
    ----------
    x, y : int
        Cell (x east, y south).
    tile : TileType
        The tile design.
    rot : int
        Clockwise quarter turns, 0-3.
    inline : dict or None
        The inline tile object when the tile was described in the board itself.
    extra : dict
        Further keys kept as read (``confidence``, ``alternatives``...).
    """

    x: int
    y: int
    tile: TileType
    rot: int = 0
    inline: dict | None = None
    extra: dict = field(default_factory=dict)

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    def to_dict(self) -> dict:
        out = {"x": self.x, "y": self.y, "tile": self.inline if self.inline is not None else self.tile.id, "rot": self.rot}
        out.update(self.extra)
        return out


@dataclass
class Figure:
    """A figure at a tile location: a meeple/cowboy, a tent, or (player ``None``) the Sheriff.

    Attributes
    ----------
    player : str or None
        Colour of the owner; ``None`` for the Sheriff.
    x, y : int
        Cell.
    at : str
        Location on the tile in board orientation (``N``, ``NL``..., ``C``).
    extra : dict
        Further keys kept as read (``confidence``, ``alternatives``, ``pose``...).
    """

    player: str | None
    x: int
    y: int
    at: str
    extra: dict = field(default_factory=dict)

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {} if self.player is None else {"player": self.player}
        out.update({"x": self.x, "y": self.y, "at": self.at})
        out.update(self.extra)
        return out


@dataclass
class Stack:
    """Tokens lying on a tile: Goldmines gold bars (``at`` None) or face-down ore tokens."""

    x: int
    y: int
    count: int
    at: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"x": self.x, "y": self.y}
        if self.at is not None:
            out["at"] = self.at
        out["count"] = self.count
        out.update(self.extra)
        return out


@dataclass
class Board:
    """One state of the table.

    Attributes
    ----------
    game : str
        ``carcassonne`` or ``goldrush``.
    expansions : list of str
        ``river``, ``goldmines`` (carcassonne) or ``sheriff`` (goldrush).
    rules : dict
        Edition switches, ``small_city`` (4 or 2) and ``farmers`` (``3rd``/``2nd``/``1st``).
    players : list of str
        Colours in clockwise turn order.
    active : str or None
        The player who placed ``last_placed``.
    last_placed : (int, int) or None
        The tile placed this turn.
    tiles : dict (x, y) -> Placement
    meeples, tents : list of Figure
    gold : list of Stack
        Goldmines gold bars per tile.
    sheriff : Figure or None
    ore : list of Stack
        Ore tokens on mountains, with ``at``.
    held : dict colour -> dict
        ``gold_bars`` and ``ore_points`` (also ``ore_tokens``, unrevealed count) held off the board.
    track : dict colour -> int
        Points on the score track, laps included.
    catalog : Catalog
        The tile types this board may use.
    extra : dict
        Unknown top-level keys, kept for writing back.
    """

    game: str = "carcassonne"
    expansions: list[str] = field(default_factory=list)
    rules: dict[str, Any] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)
    active: str | None = None
    last_placed: Cell | None = None
    tiles: dict[Cell, Placement] = field(default_factory=dict)
    meeples: list[Figure] = field(default_factory=list)
    gold: list[Stack] = field(default_factory=list)
    tents: list[Figure] = field(default_factory=list)
    sheriff: Figure | None = None
    ore: list[Stack] = field(default_factory=list)
    held: dict[str, dict[str, int]] = field(default_factory=dict)
    track: dict[str, int] = field(default_factory=dict)
    catalog: Catalog | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.catalog is None:
            self.catalog = catalog_for(self.game, self.expansions)

    # ------------------------------------------------------------------ queries
    def rule(self, name: str) -> Any:
        """An edition switch, with the current-rules default."""
        return self.rules.get(name, DEFAULT_RULES.get(name))

    def turn_order_from(self, player: str | None) -> list[str]:
        """Players clockwise starting with ``player`` (the active player)."""
        order = list(self.players)
        for figure_colour in self.colours():
            if figure_colour not in order:
                order.append(figure_colour)
        if player in order:
            i = order.index(player)
            order = order[i:] + order[:i]
        return order

    def colours(self) -> list[str]:
        """Every colour the board mentions: players first, then figure colours."""
        seen = list(self.players)
        for f in self.meeples + self.tents:
            if f.player not in seen:
                seen.append(f.player)
        for c in list(self.held) + list(self.track):
            if c not in seen:
                seen.append(c)
        return seen

    def gold_on(self) -> dict[Cell, int]:
        """Gold bars per cell (several stacks on one cell add up)."""
        out: dict[Cell, int] = {}
        for s in self.gold:
            out[s.cell] = out.get(s.cell, 0) + s.count
        return out

    def bounds(self) -> tuple[int, int, int, int]:
        """``(min_x, min_y, max_x, max_y)`` of the placed tiles.

        Raises
        ------
        ScorerError
            The board has no tiles.
        """
        if not self.tiles:
            raise ScorerError("the board has no tiles")
        xs = [c[0] for c in self.tiles]
        ys = [c[1] for c in self.tiles]
        return min(xs), min(ys), max(xs), max(ys)

    def copy(self) -> "Board":
        """An independent copy (the catalogue is shared: it is read-only)."""
        cat = self.catalog
        self.catalog = None
        try:
            dup = copy.deepcopy(self)
        finally:
            self.catalog = cat
        dup.catalog = cat
        return dup

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """The board as a ``carcassonne-board/1`` JSON object."""
        out: dict[str, Any] = {
            "format": BOARD_FORMAT,
            "game": self.game,
            "expansions": list(self.expansions),
        }
        if self.rules:
            out["rules"] = dict(self.rules)
        out["players"] = list(self.players)
        out["active"] = self.active
        out["last_placed"] = None if self.last_placed is None else {"x": self.last_placed[0], "y": self.last_placed[1]}
        out["tiles"] = [p.to_dict() for p in self.tiles.values()]
        out["meeples"] = [m.to_dict() for m in self.meeples]
        out["gold"] = [g.to_dict() for g in self.gold]
        out["tents"] = [t.to_dict() for t in self.tents]
        out["sheriff"] = None if self.sheriff is None else self.sheriff.to_dict()
        out["ore"] = [o.to_dict() for o in self.ore]
        out["held"] = {c: dict(v) for c, v in self.held.items()}
        out["track"] = dict(self.track)
        out.update(self.extra)
        return out

    def to_json(self) -> str:
        """The board as indented JSON text (one tile or figure per line)."""
        return dumps_compact(self.to_dict())

    def save(self, path: str | Path) -> Path:
        """Write the board as JSON atomically (temp file + rename)."""
        return write_atomic(path, self.to_json())

    @classmethod
    def from_dict(cls, obj: Any, *, tile_sets: Iterable[str | Path | TileSet] = ()) -> "Board":
        """Read a ``carcassonne-board/1`` object, checking every field.

        Parameters
        ----------
        obj : dict
            The parsed JSON.
        tile_sets : iterable
            User tile sets (paths or :class:`TileSet`) added to the built-in catalogue.

        Raises
        ------
        BoardFormatError
            Naming the field (and cell) that is wrong; nothing is returned.  Besides
            the format of ``board-format.md``, the sane bounds are checked: cells
            within :data:`MAX_COORD` of the origin, at most
            :data:`MAX_TOKENS_PER_TILE` gold bars or ore tokens on a tile, track and
            held values at most :data:`MAX_POINTS`, only the known ``rules`` keys,
            and inline tiles with the feature kinds of the board's game
            (:data:`GAME_KINDS`).
        """
        return _BoardReader(obj, tile_sets).read()

    @classmethod
    def from_json(cls, text: str, *, tile_sets: Iterable[str | Path | TileSet] = ()) -> "Board":
        """Parse JSON text (see :meth:`from_dict`)."""
        try:
            obj = json.loads(text.lstrip("\ufeff"))
        except json.JSONDecodeError as exc:
            raise BoardFormatError(f"not JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
        except ValueError:  # an integer with thousands of digits
            raise BoardFormatError("not a usable board: a number has too many digits") from None
        return cls.from_dict(obj, tile_sets=tile_sets)


def dumps_compact(obj: Any) -> str:
    """JSON with one list item per line for top-level lists (readable diffs)."""
    lines = ["{"]
    items = list(obj.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f"  {json.dumps(key)}: [")
            lines.append(",\n".join("    " + json.dumps(v) for v in value))
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


class _BoardReader:
    """Checks and converts one board object; every error names its field."""

    def __init__(self, obj: Any, tile_sets: Iterable) -> None:
        self.obj = obj
        self.tile_sets = list(tile_sets)

    def fail(self, msg: str) -> None:
        raise BoardFormatError(msg)

    def int_field(self, d: dict, key: str, where: str, *, minimum: int | None = None,
                  maximum: int | None = None, why: str = "") -> int:
        v = d.get(key)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(f"{where}: '{key}' must be an integer, got {short(v)}")
        if minimum is not None and v < minimum:
            self.fail(f"{where}: '{key}' must be at least {minimum}, got {short(v)}")
        if maximum is not None and v > maximum:
            self.fail(f"{where}: '{key}' must be at most {maximum}{why}, got {short(v)}")
        return v

    def cell(self, d: dict, where: str) -> tuple[int, int, str]:
        """``(x, y, where with the cell)``; coordinates within :data:`MAX_COORD`."""
        x = self.int_field(d, "x", where)
        y = self.int_field(d, "y", where)
        at = f"{where} (cell {short(x, 20)},{short(y, 20)})"
        for key, v in (("x", x), ("y", y)):
            if abs(v) > MAX_COORD:
                self.fail(f"{at}: '{key}' must be between {-MAX_COORD} and {MAX_COORD}, got {short(v)}; "
                          "cells count tiles from the start tile, so this one looks mistyped")
        return x, y, at

    def colour(self, v: Any, where: str) -> str:
        if v not in COLOURS:
            self.fail(f"{where}: unknown colour {short(v)}; colours are {', '.join(COLOURS)}")
        return v

    def read(self) -> Board:
        o = self.obj
        if not isinstance(o, dict):
            what = "a JSON array" if isinstance(o, list) else f"{type(o).__name__} {short(o, 40)}"
            self.fail(f"the board must be a JSON object {{\"format\": \"{BOARD_FORMAT}\", ...}}, got {what}")
        if o.get("format") != BOARD_FORMAT:
            self.fail(f"format: expected {BOARD_FORMAT!r}, got {short(o.get('format'))} (unknown format version)")
        game = o.get("game", "carcassonne")
        if game not in GAMES:
            self.fail(f"game: unknown game {short(game)}; expected one of {', '.join(GAMES)}")
        expansions = o.get("expansions", []) or []
        if not isinstance(expansions, list):
            self.fail(f"expansions: must be a list, got {short(expansions)}")
        for i, e in enumerate(expansions):
            if e not in EXPANSIONS[game]:
                self.fail(f"expansions[{i}]: unknown expansion {short(e)} for {game}; "
                          f"known: {', '.join(EXPANSIONS[game])}")
        rules = o.get("rules") or {}
        if not isinstance(rules, dict):
            self.fail(f"rules: must be an object, got {short(rules)}")
        for key in rules:
            if key not in RULE_CHOICES:
                label = f"rules.{key}" if re.fullmatch(r"[A-Za-z0-9_]{1,40}", str(key)) else "rules"
                self.fail(f"{label}: unknown rule {short(key)}; known rules: {', '.join(RULE_CHOICES)}")
        for key, choices in RULE_CHOICES.items():
            if key in rules and rules[key] not in choices:
                self.fail(f"rules.{key}: must be one of {', '.join(map(str, choices))}, got {short(rules[key])}")
        players = o.get("players", []) or []
        if not isinstance(players, list):
            self.fail(f"players: must be a list of colours, got {short(players)}")
        for i, p in enumerate(players):
            self.colour(p, f"players[{i}]")
        if len(set(players)) != len(players):
            self.fail(f"players: a colour is listed twice in {short(players)}")
        active = o.get("active")
        if active is not None:
            self.colour(active, "active")
            if players and active not in players:
                self.fail(f"active: {active!r} is not one of the players {short(players)}")
        try:
            catalog = catalog_for(game, expansions, self.tile_sets)
        except TileSetError as exc:
            raise BoardFormatError(str(exc)) from None
        board = Board(game=game, expansions=list(expansions), rules=dict(rules), players=list(players),
                      active=active, catalog=catalog)
        self.read_tiles(board, o.get("tiles", []))
        lp = o.get("last_placed")
        if lp is not None:
            if not isinstance(lp, dict):
                self.fail(f"last_placed: must be {{'x': .., 'y': ..}}, got {short(lp)}")
            cell = self.cell(lp, "last_placed")[:2]
            if cell not in board.tiles:
                self.fail(f"last_placed (cell {cell[0]},{cell[1]}): no tile on that cell")
            board.last_placed = cell
        board.meeples = self.read_figures(board, o.get("meeples", []), "meeples")
        board.tents = self.read_figures(board, o.get("tents", []), "tents")
        sh = o.get("sheriff")
        if sh is not None:
            board.sheriff = self.read_figures(board, [sh], "sheriff", owned=False)[0]
        board.gold = self.read_stacks(board, o.get("gold", []), "gold", located=False)
        board.ore = self.read_stacks(board, o.get("ore", []), "ore", located=True)
        board.held = self.read_held(o.get("held", {}) or {})
        track = o.get("track", {}) or {}
        if not isinstance(track, dict):
            self.fail(f"track: must be an object colour -> points, got {short(track)}")
        for c, v in track.items():
            self.colour(c, f"track.{c}")
            self.int_field(track, c, "track", minimum=0, maximum=MAX_POINTS, why=" points")
        board.track = dict(track)
        known = {"format", "game", "expansions", "rules", "players", "active", "last_placed", "tiles",
                 "meeples", "gold", "tents", "sheriff", "ore", "held", "track"}
        board.extra = {k: v for k, v in o.items() if k not in known}
        return board

    def read_tiles(self, board: Board, tiles: Any) -> None:
        if not isinstance(tiles, list):
            self.fail(f"tiles: must be a list, got {short(tiles)}")
        for i, t in enumerate(tiles):
            where = f"tiles[{i}]"
            if not isinstance(t, dict):
                self.fail(f"{where}: must be an object with x, y, tile, rot; got {short(t)}")
            x, y, where = self.cell(t, where)
            rot = t.get("rot", 0)
            if isinstance(rot, bool) or rot not in (0, 1, 2, 3):
                self.fail(f"{where}: 'rot' must be 0, 1, 2 or 3 (clockwise quarter turns), got {short(rot)}")
            ref = t.get("tile")
            inline = None
            if isinstance(ref, str):
                if ref not in board.catalog:
                    ids = " ".join(board.catalog.tiles)
                    self.fail(f"{where}: unknown tile id {short(ref)} for {board.game}"
                              f"{'+' + '+'.join(board.expansions) if board.expansions else ''}; known ids: {ids}")
                tile = board.catalog[ref]
            elif isinstance(ref, dict):
                wrong = foreign_kind(ref, board.game)
                if wrong is not None:
                    self.fail(f"{where}: {wrong}")
                try:
                    tile = parse_tile(ref, where, tile_id=ref.get("name") or "inline")
                except TileSetError as exc:
                    raise BoardFormatError(str(exc)) from None
                inline = ref
            else:
                self.fail(f"{where}: 'tile' must be a catalogue id or an inline tile object, got {short(ref)}")
            if (x, y) in board.tiles:
                self.fail(f"{where}: two tiles on one cell ({board.tiles[(x, y)].tile.id} and {tile.id})")
            extra = {k: v for k, v in t.items() if k not in ("x", "y", "tile", "rot")}
            board.tiles[(x, y)] = Placement(x, y, tile, rot, inline, extra)

    def read_figures(self, board: Board, figs: Any, name: str, *, owned: bool = True) -> list[Figure]:
        if not isinstance(figs, list):
            self.fail(f"{name}: must be a list, got {short(figs)}")
        out = []
        for i, f in enumerate(figs):
            where = name if not owned else f"{name}[{i}]"
            if not isinstance(f, dict):
                self.fail(f"{where}: must be an object, got {short(f)}")
            x, y, where = self.cell(f, where)
            player = self.colour(f.get("player"), where) if owned else None
            at = f.get("at")
            if at not in LOCATIONS:
                self.fail(f"{where}: 'at' must be one of {' '.join(LOCATIONS)}, got {short(at)}")
            placement = board.tiles.get((x, y))
            if placement is None:
                self.fail(f"{where}: no tile on that cell")
            if placement.tile.turned(placement.rot).locate(at) is None:
                self.fail(f"{where}: tile {placement.tile.id} (rot {placement.rot}) has no feature at {at!r}")
            extra = {k: v for k, v in f.items() if k not in ("player", "x", "y", "at")}
            out.append(Figure(player, x, y, at, extra))
        return out

    def read_stacks(self, board: Board, stacks: Any, name: str, *, located: bool) -> list[Stack]:
        if not isinstance(stacks, list):
            self.fail(f"{name}: must be a list, got {short(stacks)}")
        out = []
        what = "gold bars" if name == "gold" else "ore tokens"
        per_tile: dict[Cell, int] = {}
        for i, s in enumerate(stacks):
            where = f"{name}[{i}]"
            if not isinstance(s, dict):
                self.fail(f"{where}: must be an object, got {short(s)}")
            x, y, where = self.cell(s, where)
            count = self.int_field(s, "count", where, minimum=0, maximum=MAX_TOKENS_PER_TILE,
                                   why=f" {what} on one tile")
            per_tile[(x, y)] = per_tile.get((x, y), 0) + count
            if per_tile[(x, y)] > MAX_TOKENS_PER_TILE:
                self.fail(f"{where}: {per_tile[(x, y)]} {what} on one tile in all; at most "
                          f"{MAX_TOKENS_PER_TILE} fit on a tile")
            placement = board.tiles.get((x, y))
            if placement is None:
                self.fail(f"{where}: no tile on that cell")
            at = None
            if located:
                at = s.get("at")
                if at not in LOCATIONS:
                    self.fail(f"{where}: 'at' must be one of {' '.join(LOCATIONS)}, got {short(at)}")
                if placement.tile.turned(placement.rot).locate(at) is None:
                    self.fail(f"{where}: tile {placement.tile.id} (rot {placement.rot}) has no feature at {at!r}")
            extra = {k: v for k, v in s.items() if k not in ("x", "y", "at", "count")}
            out.append(Stack(x, y, count, at, extra))
        return out

    def read_held(self, held: Any) -> dict[str, dict[str, int]]:
        if not isinstance(held, dict):
            self.fail(f"held: must be an object colour -> {{gold_bars, ore_points}}, got {short(held)}")
        out = {}
        for c, v in held.items():
            self.colour(c, f"held.{c}")
            if not isinstance(v, dict):
                self.fail(f"held.{c}: must be an object like {{'gold_bars': 3}}, got {short(v)}")
            for k in v:
                if k not in HELD_KEYS:
                    self.fail(f"held.{c}: unknown key {short(k)}; known: {', '.join(HELD_KEYS)}")
                self.int_field(v, k, f"held.{c}", minimum=0, maximum=MAX_POINTS)
            out[c] = dict(v)
        return out


def foreign_kind(inline: dict, game: str) -> str | None:
    """Why an inline tile does not fit ``game`` (a feature kind of the other game), or ``None``.

    ``board-format.md``: carcassonne tiles have city, road, river, field and
    cloister features; goldrush tiles rail, mountain, town, prairie and cemetery.
    """
    feats = inline.get("features")
    if not isinstance(feats, list) or game not in GAME_KINDS:
        return None
    for f in feats:
        kind = f.get("kind") if isinstance(f, dict) else None
        if not isinstance(kind, str) or kind in GAME_KINDS[game]:
            continue
        for other, kinds in GAME_KINDS.items():
            if other != game and kind in kinds:
                return (f"{kind} belongs to {GAME_TITLES[other]}; this board is {game} "
                        f"(its tiles have {', '.join(GAME_KINDS[game])})")
    return None


def read_board(path: str | Path, *, tile_sets: Iterable[str | Path | TileSet] = ()) -> Board:
    """Load a board file: ``carcassonne-board/1`` JSON or the text notation.

    The form is told by the content: JSON starts with ``{`` (or ``[``, which is
    refused: a board is an object), after an optional UTF-8 byte-order mark.

    Raises
    ------
    BoardFormatError
        The file cannot be read or is malformed (message names the field/line).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BoardFormatError(f"{path}: not a text file (a board is JSON or text notation)") from None
    except OSError as exc:
        raise BoardFormatError(f"cannot read board {str(path)!r}: {exc.strerror or exc}") from None
    if looks_like_json(text):
        try:
            return Board.from_json(text, tile_sets=tile_sets)
        except BoardFormatError as exc:
            raise BoardFormatError(f"{path.name}: {exc}") from None
    from .errors import NotationError
    from .notation import parse_notation

    try:
        return parse_notation(text, tile_sets=tile_sets)
    except NotationError as exc:
        raise NotationError(f"{path.name}: {exc}") from None


def turn_board(board: Board, k: int, *, normalise: bool = True) -> Board:
    """The board turned ``k`` clockwise quarter turns (``board-format.md`` geometry).

    Cell ``(x, y)`` goes to ``(-y, x)`` per turn, each tile's ``rot`` grows by
    ``k``, figure and ore locations turn with :func:`scorer.geometry.rotate_location`.
    With ``normalise`` the cells are then moved so the smallest ``x`` and ``y`` are 0.

    Parameters
    ----------
    board : Board
    k : int
        Clockwise quarter turns (any integer).

    Returns
    -------
    Board
        A new board; ``board`` is not changed.
    """
    k %= 4
    out = board.copy()

    def cell(x: int, y: int) -> Cell:
        for _ in range(k):
            x, y = -y, x
        return x, y

    cells = [cell(*c) for c in board.tiles] or [(0, 0)]
    dx = -min(c[0] for c in cells) if normalise else 0
    dy = -min(c[1] for c in cells) if normalise else 0

    def move(x: int, y: int) -> Cell:
        nx, ny = cell(x, y)
        return nx + dx, ny + dy

    tiles = {}
    for p in out.tiles.values():
        p.x, p.y = move(p.x, p.y)
        p.rot = (p.rot + k) % 4
        tiles[(p.x, p.y)] = p
    out.tiles = tiles
    figs = list(out.meeples) + list(out.tents) + ([out.sheriff] if out.sheriff is not None else [])
    for f in figs:
        f.x, f.y = move(f.x, f.y)
        f.at = rotate_location(f.at, k)
    for s in list(out.gold) + list(out.ore):
        s.x, s.y = move(s.x, s.y)
        if s.at is not None:
            s.at = rotate_location(s.at, k)
    if out.last_placed is not None:
        out.last_placed = move(*out.last_placed)
    return out
