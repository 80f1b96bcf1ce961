"""The compact text notation for boards: typing a table in by hand, like FEN for chess.

One line per tile, a few header lines above them.  It is the manual-entry
fallback beside the ``carcassonne-board/1`` JSON (``board-format.md``), which
stays the exchange form: :func:`parse_notation` builds the board through
:meth:`Board.from_dict <scorer.board.Board.from_dict>`, so both forms are checked
by the same code, and :func:`format_notation` prints any board back.

Example (``examples/base-midgame.txt``)::

    # comment lines start with '#'; '#' after a space also starts a comment
    game carcassonne
    players red blue green
    active blue
    last 0,-1
    track red=12 blue=9 green=7

    0,0 D 0 red@N
    0,-1 E 2
    -1,0 U 0 blue@W

Header lines (each at most once, except ``held`` once per colour and ``tile``
once per name; all optional, in any order; the printer writes them in this order):

``game GAME [EXPANSION ...]``
    ``game carcassonne river goldmines``; default ``carcassonne`` without expansions.
``rules KEY=VALUE ...``
    Edition switches, ``rules small_city=2 farmers=2nd``.  A value is read as an
    integer when it is one, as ``true``/``false``, else as a word.
``players COLOUR ...``
    Colours in clockwise turn order.
``active COLOUR``
    The player whose turn it is.
``last X,Y``
    The tile placed this turn (``last_placed``; ``last_placed X,Y`` also reads).
``track COLOUR=POINTS ...``
    Points on the score track, laps included.
``held COLOUR [KEY=COUNT ...]``
    What a player holds off the board: ``held red gold_bars=3 ore_points=7``.
``sheriff X,Y LOC``
    The Sheriff; the printer writes it on its tile line instead (``sheriff@LOC``).
``tile NAME {JSON}``
    An inline tile (``board-format.md``, "Inline tiles"): the rest of the line is
    its JSON object in catalogue orientation; ``NAME`` is then usable as a tile id
    on tile lines (defined before or after its use).  The placed tile's JSON is
    the object as written, with ``"name": NAME`` added when it has no ``name``.
    ``NAME`` may not be a catalogue id.  No trailing comment on this line.

Tile lines, one per placed tile: ``X,Y TILE ROT [FIGURE ...]``

* ``X,Y``: the cell, ``x`` east and ``y`` south (``-1,2``), no spaces;
* ``TILE``: a catalogue id (base game ``A``-``X``) or an inline tile name;
* ``ROT``: ``0``-``3`` clockwise quarter turns;
* figures, locations ``LOC`` in board orientation (``N E S W NL NR EL ER SL SR
  WL WR C``):

  ``COLOUR@LOC``
      a meeple (base game) or cowboy (Gold Rush), ``red@N``;
  ``tent:COLOUR@LOC``
      a Gold Rush tent, ``tent:blue@N``;
  ``sheriff@LOC``
      the Sheriff;
  ``gold=N``
      Goldmines gold bars lying on the tile (repeat for several stacks);
  ``ore@LOC=N``
      ``N`` face-down ore tokens on the mountain at ``LOC``.

Colours and locations are read in any case; keywords in lower case.

Canonical form (what :func:`format_notation` writes): the header lines in the
order above (``game`` always, the others when set), the ``tile`` definitions,
one blank line, then the tile lines in board order, each with its figures in
the order meeples, tents, Sheriff, gold, ore; single spaces, no comments,
newline-terminated.  For canonical text ``format_notation(parse_notation(t)) ==
t``, and for every board ``parse_notation(format_notation(b)).to_dict() ==
notation_fields(b)``.

What the notation does not carry (:func:`notation_fields` is the board JSON
without it):

* the order of the ``meeples``, ``tents``, ``gold`` and ``ore`` lists across
  tiles: figures are grouped by tile, in tile order (their order within one tile
  is kept);
* the extra keys of tiles, figures and stacks (``confidence``,
  ``alternatives``, ``pose``...) and unknown top-level keys;
* rule values that are not an integer, ``true``/``false`` or a single word;
* an inline tile without a ``name`` gains its notation name as ``name``.

Errors: every problem raises :class:`~scorer.errors.NotationError` naming the
line and field and quoting the line, e.g. ``line 4: unknown tile id 'Z' for
carcassonne; known ids: A B ... in '0,1 Z 0'``; nothing is returned then.
"""

from __future__ import annotations

import copy
import difflib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .board import BOARD_FORMAT, COLOURS, Board, foreign_kind
from .errors import BoardFormatError, NotationError, TileSetError
from .geometry import LOCATIONS
from .tiles import TileSet, catalog_for, parse_tile

log = logging.getLogger(__name__)

#: Header keywords in canonical order (``last_placed`` is an alias of ``last``).
HEADERS = ("game", "rules", "players", "active", "last", "track", "held", "sheriff", "tile")
_ALIASES = {"last_placed": "last"}

_CELL = re.compile(r"(-?\d+),(-?\d+)")
_COUNT = re.compile(r"\d+")
_INT = re.compile(r"-?\d+")
_WORD = re.compile(r"[A-Za-z0-9_.+-]+")
_NAME = re.compile(r"[^\s#]+")
_QUOTE_MAX = 80
_LOCS = {loc.upper(): loc for loc in LOCATIONS}
# The prefix of a BoardFormatError message: ``tiles[3] (cell 0,1): ...``, ``rules.farmers: ...``.
_WHERE = re.compile(
    r"(?P<field>[a-z_]+)(?:\[(?P<idx>\d+)\])?(?:\.(?P<key>[A-Za-z0-9_]+))?(?: \(cell [^)]*\))?: (?P<msg>.*)",
    re.S,
)
#: Notation names of board fields, for error messages.
_LABELS = {"last_placed": "last"}
_FIGURE_HELP = "expected COLOUR@LOC, tent:COLOUR@LOC, sheriff@LOC, gold=N or ore@LOC=N"
#: Longest number the notation reads, in digits (larger ones are refused, not parsed).
_MAX_DIGITS = 12


def _cut(text: str, limit: int = _QUOTE_MAX) -> str:
    """Input quoted in an error, cut to ``limit`` characters (``...`` at the end)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# =========================================================================== parsing


def parse_notation(text: str, *, tile_sets: Iterable[str | Path | TileSet] = ()) -> Board:
    """Read a board written in the text notation.

    Parameters
    ----------
    text : str
        The notation (see the module docstring): header lines, ``tile``
        definitions and one ``X,Y TILE ROT [FIGURE ...]`` line per tile.
    tile_sets : iterable of str, Path or TileSet, optional
        User tile sets added to the built-in catalogue (as ``--tiles``).

    Returns
    -------
    Board
        The board, built and checked by :meth:`Board.from_dict`.

    Raises
    ------
    NotationError
        On any problem (syntax, unknown tile id or colour, rot outside 0-3, two
        tiles on one cell, a figure at a location its tile lacks...); the message
        names the line and field and quotes the line.
    """
    reader = _Reader()
    reader.read(text)
    obj = reader.board_object()
    reader.check_inline_names(tile_sets)
    try:
        board = Board.from_dict(obj, tile_sets=tile_sets)
    except NotationError:
        raise
    except BoardFormatError as exc:
        raise reader.translate(exc) from None
    log.debug("parsed notation: %d tiles, %d meeples", len(board.tiles), len(board.meeples))
    return board


@dataclass
class _Source:
    """Where an item of the board object came from."""

    lineno: int
    text: str
    token: str | None = None


@dataclass
class _Reader:
    """Turns notation lines into a ``carcassonne-board/1`` object, remembering sources."""

    headers: dict[str, _Source] = field(default_factory=dict)
    game: str = "carcassonne"
    expansions: list[str] = field(default_factory=list)
    rules: dict[str, Any] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)
    active: str | None = None
    last: dict[str, int] | None = None
    track: dict[str, int] = field(default_factory=dict)
    held: dict[str, dict[str, int]] = field(default_factory=dict)
    sheriff: dict[str, Any] | None = None
    defs: dict[str, dict] = field(default_factory=dict)
    tiles: list[dict] = field(default_factory=list)
    lists: dict[str, list[dict]] = field(
        default_factory=lambda: {"meeples": [], "gold": [], "tents": [], "ore": []}
    )
    #: (field, index or key) -> source, for turning Board.from_dict errors into line errors.
    sources: dict[tuple[str, Any], _Source] = field(default_factory=dict)
    cells: dict[tuple[int, int], int] = field(default_factory=dict)
    #: Inline tile definitions that do not parse, raised once the game is known.
    def_errors: dict[str, NotationError] = field(default_factory=dict)

    # ------------------------------------------------------------------ errors
    @staticmethod
    def error(src: _Source, msg: str) -> NotationError:
        return NotationError(f"line {src.lineno}: {msg} in '{_cut(src.text)}'")

    def translate(self, exc: BoardFormatError) -> NotationError:
        """Name the source line of a :meth:`Board.from_dict` error."""
        msg = str(exc)
        m = _WHERE.fullmatch(msg)
        if m is None:  # not about one field: a user tile set; blame the game line
            src = self.headers.get("game")
            return self.error(src, msg) if src else NotationError(f"notation: {msg}")
        name, idx, key = m["field"], m["idx"], m["key"]
        if name == "expansions":
            name, idx = "game", None
        ref = int(idx) if idx is not None else key
        src = self.sources.get((name, ref)) or self.sources.get((name, None)) or self.headers.get(name)
        if src is None:
            return NotationError(f"notation: {msg}")
        detail = m["msg"]
        if src.token is not None:
            detail = f"figure '{_cut(src.token)}': {detail}"
        elif name != "tiles":
            label = _LABELS.get(name, name)
            detail = f"{label} {key}: {detail}" if key else f"{label}: {detail}"
        return self.error(src, detail)

    # ------------------------------------------------------------------ lines
    def read(self, text: str) -> None:
        if not isinstance(text, str):
            raise NotationError(f"notation: expected text, got {type(text).__name__}")
        for lineno, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            first = line.split(None, 1)[0]
            keyword = _ALIASES.get(first.lower(), first.lower())
            if keyword == "tile":
                self.read_tile_def(_Source(lineno, line))
                continue
            tokens = line.split()
            for i, tok in enumerate(tokens):
                if tok.startswith("#"):
                    tokens = tokens[:i]
                    break
            src = _Source(lineno, line)
            if keyword in HEADERS:
                if keyword != "held" and keyword in self.headers:
                    raise self.error(
                        src, f"second '{keyword}' line (the first is line {self.headers[keyword].lineno})"
                    )
                self.headers.setdefault(keyword, src)
                getattr(self, f"read_{keyword}")(src, tokens[1:])
            elif _CELL.fullmatch(first):
                self.read_tile_line(src, tokens)
            else:
                hint = difflib.get_close_matches(first.lower(), HEADERS, n=1)
                hint_text = f" (did you mean '{hint[0]}'?)" if hint else ""
                raise self.error(
                    src,
                    f"unknown line start '{_cut(first)}'{hint_text}; a line is a header "
                    f"({', '.join(HEADERS)}) or a tile 'X,Y TILE ROT [FIGURE ...]'",
                )
        for name in self.defs:
            self.check_def(name)

    def colour(self, src: _Source, value: str, what: str = "colour") -> str:
        c = value.lower()
        if c not in COLOURS:
            raise self.error(src, f"{what} '{_cut(value)}' is not one of {', '.join(COLOURS)}")
        return c

    def location(self, src: _Source, value: str, label: str) -> str:
        loc = _LOCS.get(value.upper())
        if loc is None:
            raise self.error(src, f"{label}: location '{_cut(value)}' is not one of {' '.join(LOCATIONS)}")
        return loc

    def cell(self, src: _Source, value: str, what: str) -> tuple[int, int]:
        m = _CELL.fullmatch(value)
        if m is None:
            raise self.error(src, f"{what} must be a cell X,Y such as 0,-1 (no spaces), got '{_cut(value)}'")
        if max(len(m[1].lstrip("-")), len(m[2].lstrip("-"))) > _MAX_DIGITS:
            raise self.error(src, f"{what} '{_cut(value)}' is far too large; check the cell")
        return int(m[1]), int(m[2])

    def count(self, src: _Source, value: str, what: str) -> int:
        if not _COUNT.fullmatch(value):
            raise self.error(src, f"{what} must be a whole number, 0 or more, got '{_cut(value)}'")
        if len(value) > _MAX_DIGITS:
            raise self.error(src, f"{what}: '{_cut(value)}' is far too large")
        return int(value)

    def pairs(self, src: _Source, tokens: list[str], what: str) -> list[tuple[str, str]]:
        out = []
        seen: set[str] = set()
        for tok in tokens:
            key, eq, value = tok.partition("=")
            if not eq or not key or not value:
                raise self.error(src, f"{what}: expected KEY=VALUE, got '{_cut(tok)}'")
            if key in seen:
                raise self.error(src, f"{what}: '{_cut(key)}' is given twice")
            seen.add(key)
            out.append((key, value))
        return out

    # ------------------------------------------------------------------ headers
    def read_game(self, src: _Source, args: list[str]) -> None:
        if not args:
            raise self.error(src, "game: expected 'game GAME [EXPANSION ...]', e.g. 'game carcassonne river'")
        self.game = args[0].lower()
        self.expansions = [a.lower() for a in args[1:]]
        if len(set(self.expansions)) != len(self.expansions):
            raise self.error(src, "game: an expansion is listed twice")

    def read_rules(self, src: _Source, args: list[str]) -> None:
        for key, value in self.pairs(src, args, "rules"):
            if _INT.fullmatch(value) and len(value) <= _MAX_DIGITS:
                self.rules[key] = int(value)
            elif value in ("true", "false"):
                self.rules[key] = value == "true"
            else:
                self.rules[key] = value

    def read_players(self, src: _Source, args: list[str]) -> None:
        self.players = [self.colour(src, a) for a in args]
        for i, c in enumerate(self.players):
            if c in self.players[:i]:
                raise self.error(src, f"players: colour '{_cut(c)}' is listed twice")

    def read_active(self, src: _Source, args: list[str]) -> None:
        if len(args) != 1:
            raise self.error(src, "active: expected one colour, 'active red'")
        self.active = self.colour(src, args[0])

    def read_last(self, src: _Source, args: list[str]) -> None:
        if len(args) != 1:
            raise self.error(src, "last: expected one cell, 'last 2,-1'")
        x, y = self.cell(src, args[0], "last")
        self.last = {"x": x, "y": y}
        self.sources[("last_placed", None)] = src

    def read_track(self, src: _Source, args: list[str]) -> None:
        for key, value in self.pairs(src, args, "track"):
            c = self.colour(src, key)
            if c in self.track:
                raise self.error(src, f"track: '{_cut(c)}' is given twice")
            self.track[c] = self.count(src, value, f"track {c}")

    def read_held(self, src: _Source, args: list[str]) -> None:
        if not args:
            raise self.error(src, "held: expected 'held COLOUR KEY=COUNT ...', e.g. 'held red gold_bars=3'")
        c = self.colour(src, args[0])
        if c in self.held:
            first = self.sources[("held", c)].lineno
            raise self.error(src, f"second 'held {c}' line (the first is line {first})")
        self.held[c] = {k: self.count(src, v, f"held {c} {k}") for k, v in self.pairs(src, args[1:], f"held {c}")}
        self.sources[("held", c)] = src

    def read_sheriff(self, src: _Source, args: list[str]) -> None:
        if len(args) != 2:
            raise self.error(src, "sheriff: expected 'sheriff X,Y LOC', e.g. 'sheriff 3,1 N'")
        x, y = self.cell(src, args[0], "sheriff")
        self.set_sheriff(src, x, y, self.location(src, args[1], "sheriff"), None)

    def set_sheriff(self, src: _Source, x: int, y: int, at: str, token: str | None) -> None:
        if self.sheriff is not None:
            first = self.sources[("sheriff", None)].lineno
            raise self.error(src, f"a second Sheriff (the first is on line {first})")
        self.sheriff = {"x": x, "y": y, "at": at}
        self.sources[("sheriff", None)] = _Source(src.lineno, src.text, token)

    def read_tile_def(self, src: _Source) -> None:
        parts = src.text.split(None, 2)
        if len(parts) < 3:
            raise self.error(src, "tile: expected 'tile NAME {JSON object}'")
        name, body = parts[1], parts[2]
        if not _NAME.fullmatch(name):
            raise self.error(src, f"tile: name '{_cut(name)}' may not contain '#'")
        if _CELL.fullmatch(name):
            raise self.error(src, f"tile: name '{_cut(name)}' looks like a cell; pick a name such as 'my-tile'")
        if name in self.defs:
            first = self.sources[("tile", name)].lineno
            raise self.error(src, f"tile '{_cut(name)}' is defined twice (the first is line {first})")
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as exc:
            column = len(src.text) - len(body) + exc.pos + 1
            hint = "; the JSON object must end the line (no comment after it)" if exc.msg == "Extra data" else ""
            raise self.error(src, f"tile '{_cut(name)}': not JSON ({exc.msg} at column {column}){hint}") from None
        if not isinstance(obj, dict):
            raise self.error(src, f"tile '{_cut(name)}': expected a JSON object {{\"features\": [...]}}")
        if "name" not in obj:
            obj = {"name": name, **obj}
        tile_id = obj.get("name") or name
        self.defs[name] = obj
        self.sources[("tile", name)] = src
        try:
            parse_tile(obj, "inline", tile_id=tile_id)
        except TileSetError as exc:
            msg = str(exc)
            prefix = f"inline ({tile_id})"
            if msg.startswith(prefix):
                msg = msg[len(prefix):].lstrip(": ")
            # A feature of the other game explains it better; the game line may come later.
            self.def_errors[name] = self.error(src, f"tile '{_cut(name)}': {msg}")
        if "game" in self.headers:
            self.check_def(name)

    def check_def(self, name: str) -> None:
        """Raise the problem of an inline tile definition, the game's feature kinds first."""
        wrong = foreign_kind(self.defs[name], self.game)
        if wrong is not None:
            raise self.error(self.sources[("tile", name)], f"tile '{_cut(name)}': {wrong}")
        if name in self.def_errors:
            raise self.def_errors[name]

    # ------------------------------------------------------------------ tiles
    def read_tile_line(self, src: _Source, tokens: list[str]) -> None:
        if len(tokens) < 3:
            raise self.error(
                src, f"a tile line needs 'X,Y TILE ROT [FIGURE ...]', got {len(tokens)} field(s)"
            )
        x, y = self.cell(src, tokens[0], "cell")
        if (x, y) in self.cells:
            raise self.error(src, f"two tiles on cell {x},{y} (lines {self.cells[(x, y)]} and {src.lineno})")
        self.cells[(x, y)] = src.lineno
        rot = tokens[2]
        if rot not in ("0", "1", "2", "3"):
            raise self.error(src, f"rot must be 0-3 (clockwise quarter turns), got '{_cut(rot)}'")
        self.sources[("tiles", len(self.tiles))] = src
        self.tiles.append({"x": x, "y": y, "tile": tokens[1], "rot": int(rot)})
        for tok in tokens[3:]:
            self.read_figure(src, x, y, tok)

    def add(self, name: str, src: _Source, token: str, item: dict) -> None:
        items = self.lists[name]
        self.sources[(name, len(items))] = _Source(src.lineno, src.text, token)
        items.append(item)

    def read_figure(self, src: _Source, x: int, y: int, tok: str) -> None:
        head, eq, value = tok.partition("=")
        if eq:
            if head.lower() == "gold":
                count = self.count(src, value, f"figure '{_cut(tok)}': gold")
                self.add("gold", src, tok, {"x": x, "y": y, "count": count})
                return
            kind, at, loc = head.partition("@")
            if kind.lower() == "ore" and at:
                stack = {"x": x, "y": y, "at": self.location(src, loc, f"figure '{_cut(tok)}'"),
                         "count": self.count(src, value, f"figure '{_cut(tok)}': ore")}
                self.add("ore", src, tok, stack)
                return
            raise self.error(src, f"unknown figure '{_cut(tok)}'; {_FIGURE_HELP}")
        who, at, loc = tok.partition("@")
        if not at or not who or not loc:
            raise self.error(src, f"unknown figure '{_cut(tok)}'; {_FIGURE_HELP}")
        if who.lower() == "sheriff":
            self.set_sheriff(src, x, y, self.location(src, loc, f"figure '{_cut(tok)}'"), tok)
            return
        kind, colon, colour = who.rpartition(":")
        if colon and kind.lower() != "tent":
            raise self.error(src, f"unknown figure '{_cut(tok)}'; {_FIGURE_HELP}")
        player = self.colour(src, colour, f"figure '{_cut(tok)}': colour")
        item = {"player": player, "x": x, "y": y, "at": self.location(src, loc, f"figure '{_cut(tok)}'")}
        self.add("tents" if colon else "meeples", src, tok, item)

    # ------------------------------------------------------------------ result
    def check_inline_names(self, tile_sets: Iterable) -> None:
        """An inline tile name may not hide a catalogue id."""
        if not self.defs:
            return
        try:
            catalog = catalog_for(self.game, self.expansions, tile_sets)
        except TileSetError:
            return  # Board.from_dict reports it
        for name in self.defs:
            if name in catalog:
                raise self.error(
                    self.sources[("tile", name)],
                    f"tile: '{_cut(name)}' is already a catalogue tile id; pick another name",
                )

    def board_object(self) -> dict[str, Any]:
        """The ``carcassonne-board/1`` object, key order as :meth:`Board.to_dict`."""
        tiles = []
        for t in self.tiles:
            ref = self.defs.get(t["tile"])
            tiles.append(dict(t, tile=copy.deepcopy(ref)) if ref is not None else t)
        used = {t["tile"] for t in self.tiles}
        for name in self.defs:
            if name not in used:
                log.info("inline tile %r (line %d) is not placed", name, self.sources[("tile", name)].lineno)
        obj: dict[str, Any] = {"format": BOARD_FORMAT, "game": self.game, "expansions": list(self.expansions)}
        if self.rules:
            obj["rules"] = dict(self.rules)
        obj.update({
            "players": list(self.players),
            "active": self.active,
            "last_placed": self.last,
            "tiles": tiles,
            "meeples": self.lists["meeples"],
            "gold": self.lists["gold"],
            "tents": self.lists["tents"],
            "sheriff": self.sheriff,
            "ore": self.lists["ore"],
            "held": self.held,
            "track": self.track,
        })
        return obj


def notation_to_dict(text: str) -> dict[str, Any]:
    """The ``carcassonne-board/1`` object of a notation text, without loading the catalogue.

    Only the syntax is checked (tile ids and figure locations are not): use it to
    convert notation to JSON where the tile catalogue is not at hand, and
    :func:`parse_notation` to get a checked :class:`Board`.

    Raises
    ------
    NotationError
        A syntax error; the message names the line.
    """
    reader = _Reader()
    reader.read(text)
    return reader.board_object()


# =========================================================================== printing


def format_notation(board: Board) -> str:
    """Write a board in the canonical text notation.

    Parameters
    ----------
    board : Board
        A board as :meth:`Board.from_dict` accepts it.

    Returns
    -------
    str
        Newline-terminated text: header lines, ``tile`` definitions, a blank
        line and one line per tile (see the module docstring).  What the notation
        does not carry is listed there; :func:`notation_fields` gives the board
        JSON that reading the text back yields.
    """
    lines = [" ".join(["game", board.game, *board.expansions])]
    rules = _rule_words(board.rules)
    if rules:
        lines.append("rules " + " ".join(f"{k}={v}" for k, v in rules.items()))
    if board.players:
        lines.append("players " + " ".join(board.players))
    if board.active is not None:
        lines.append(f"active {board.active}")
    if board.last_placed is not None:
        lines.append(f"last {board.last_placed[0]},{board.last_placed[1]}")
    if board.track:
        lines.append("track " + " ".join(f"{c}={v}" for c, v in board.track.items()))
    for c, v in board.held.items():
        lines.append(" ".join([f"held {c}", *(f"{k}={n}" for k, n in v.items())]))
    handles = _inline_handles(board)
    for handle, printed in handles.values():
        lines.append(f"tile {handle} {json.dumps(printed, ensure_ascii=False)}")

    figures: dict[tuple[int, int], list[str]] = {cell: [] for cell in board.tiles}
    for m in board.meeples:
        figures.setdefault(m.cell, []).append(f"{m.player}@{m.at}")
    for t in board.tents:
        figures.setdefault(t.cell, []).append(f"tent:{t.player}@{t.at}")
    if board.sheriff is not None:
        if board.sheriff.cell in board.tiles:
            figures[board.sheriff.cell].append(f"sheriff@{board.sheriff.at}")
        else:  # not valid for Board.from_dict, but keep what we were given
            lines.append(f"sheriff {board.sheriff.x},{board.sheriff.y} {board.sheriff.at}")
    for g in board.gold:
        figures.setdefault(g.cell, []).append(f"gold={g.count}")
    for o in board.ore:
        figures.setdefault(o.cell, []).append(f"ore@{o.at}={o.count}")

    if board.tiles:
        lines.append("")
    for cell, p in board.tiles.items():
        tid = handles[_inline_key(p.inline)][0] if p.inline is not None else p.tile.id
        lines.append(" ".join([f"{p.x},{p.y}", tid, str(p.rot), *figures[cell]]))
    return "\n".join(lines) + "\n"


def notation_fields(board: Board) -> dict[str, Any]:
    """The board JSON as the notation carries it.

    ``parse_notation(format_notation(board)).to_dict() == notation_fields(board)``
    for every board :meth:`Board.from_dict` accepts.

    Parameters
    ----------
    board : Board

    Returns
    -------
    dict
        ``board.to_dict()`` without extra keys (``confidence``...), with the
        ``meeples``/``tents``/``gold``/``ore`` lists grouped by tile in tile order,
        only the rules the notation can write, and nameless inline tiles named.
    """
    d = board.to_dict()
    order = {cell: i for i, cell in enumerate(board.tiles)}
    handles = _inline_handles(board)

    def tile(p) -> dict[str, Any]:
        if p.inline is None:
            ref: Any = p.tile.id
        else:
            ref = copy.deepcopy(p.inline)
            if "name" not in ref:
                ref = {"name": handles[_inline_key(p.inline)][0], **ref}
        return {"x": p.x, "y": p.y, "tile": ref, "rot": p.rot}

    def grouped(items, keys) -> list[dict[str, Any]]:
        ranked = sorted(items, key=lambda f: order.get(f.cell, len(order)))
        return [{k: v for k, v in f.to_dict().items() if k in keys} for f in ranked]

    rules = _rule_words(board.rules)
    out: dict[str, Any] = {"format": BOARD_FORMAT, "game": board.game, "expansions": list(board.expansions)}
    if rules:
        out["rules"] = {k: board.rules[k] for k in rules}
    figure = ("player", "x", "y", "at")
    stack = ("x", "y", "at", "count")
    out.update({
        "players": d["players"],
        "active": d["active"],
        "last_placed": d["last_placed"],
        "tiles": [tile(p) for p in board.tiles.values()],
        "meeples": grouped(board.meeples, figure),
        "gold": grouped(board.gold, stack),
        "tents": grouped(board.tents, figure),
        "sheriff": None if board.sheriff is None else {k: d["sheriff"][k] for k in ("x", "y", "at")},
        "ore": grouped(board.ore, stack),
        "held": d["held"],
        "track": d["track"],
    })
    return out


def _rule_words(rules: dict[str, Any]) -> dict[str, str]:
    """Rules the notation can write, as words (others are left out, with a warning)."""
    out = {}
    for key, value in rules.items():
        if isinstance(value, bool):
            word = "true" if value else "false"
        elif isinstance(value, int):
            word = str(value)
        elif (isinstance(value, str) and _WORD.fullmatch(value) and not _INT.fullmatch(value)
              and value not in ("true", "false")):
            word = value
        else:
            word = None
        if word is None or not _WORD.fullmatch(str(key)):
            log.warning("rule %s=%r cannot be written in the text notation; left out", key, value)
            continue
        out[key] = word
    return out


def _inline_key(inline: dict) -> str:
    return json.dumps(inline, sort_keys=True)


def _inline_handles(board: Board) -> dict[str, tuple[str, dict]]:
    """Inline tiles of a board: key -> (name used in the notation, JSON object to print).

    A tile's own ``name`` is its handle when it is one word, not a catalogue id
    and not taken; the printed object then leaves ``name`` out (reading adds it
    back).  Otherwise the handle is ``inline1``, ``inline2``... and the object is
    printed whole.
    """
    out: dict[str, tuple[str, dict]] = {}
    taken: set[str] = set()
    catalog = board.catalog
    n = 0
    for p in board.tiles.values():
        if p.inline is None:
            continue
        key = _inline_key(p.inline)
        if key in out:
            continue
        name = p.inline.get("name")
        usable = (isinstance(name, str) and _NAME.fullmatch(name) and not _CELL.fullmatch(name)
                  and name not in catalog and name not in taken)
        if usable:
            handle = name
            printed = {k: v for k, v in p.inline.items() if k != "name"}
        else:
            while True:
                n += 1
                handle = f"inline{n}"
                if handle not in catalog and handle not in taken:
                    break
            printed = p.inline
        taken.add(handle)
        out[key] = (handle, printed)
    return out
