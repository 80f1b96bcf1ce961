"""Corrections to a board: one change at a time, each recorded so it can be undone.

After a photo is read, the players fix what was misread: a tile or its rotation,
a figure's colour or location, a count of gold bars or ore tokens, the players,
the active player, the score track.  Every change here

* takes a :class:`~scorer.board.Board` and returns a **new** board (the given one
  is never changed);
* is checked through :meth:`Board.from_dict <scorer.board.Board.from_dict>`, so
  the result is always a valid board (``board-format.md``); a cell without a
  tile, a location the tile lacks or an unknown colour raises
  :class:`CorrectionError` with a one-line message saying what to do;
* marks the corrected detection as sure: its ``confidence`` becomes 1.0 and its
  ``alternatives`` (and ``colour_alternatives``) are dropped;
* is appended to the board's top-level extra key ``history``, a list of::

      {"op": "set_tile", "args": {"x": 2, "y": -1, "tile": "K", "rot": 1},
       "before": {"tiles": {"index": 3, "old": [{"x": 2, "y": -1, "tile": "L", "rot": 1, ...}], "count": 1}}}

  ``before`` is the minimal JSON that reverts the change, per board field: a
  list field (``tiles``, ``meeples``, ``gold``, ``tents``, ``ore``) as a splice
  (the ``count`` entries ``new`` the change left from ``index`` of the new list
  are replaced by the ``old`` entries), any other field as ``{"value": <old
  value>, "new": <value the change left>}`` or ``{"absent": true, "new": ...}``.
  :func:`undo` applies it, so undoing gives back the earlier board exactly.
  The entries the change left are found by content (a tile by cell, id and
  rotation; a figure by kind, colour, cell and location; a stack by cell and
  count), so an edit by hand elsewhere in the file does not mislead undo; when
  the board no longer shows what the change left (the figure it added was
  removed by hand...), undo refuses with a message naming what is missing.

Operations (``op`` and its ``args``):

=================== ===============================================================
``set_tile``        ``x, y, tile, rot``: place or replace the tile on a cell
                    (``tile`` ``None`` keeps the tile there and only turns it)
``remove_tile``     ``x, y``: remove a tile with the figures and tokens on it
``add_figure``      ``kind, x, y, at, player``: a meeple/cowboy (``kind`` ``meeple``),
                    a tent (``tent``) or the Sheriff (``sheriff``, no player)
``move_figure``     ``kind, x, y, at, [player], to: {x, y, at}``
``remove_figure``   ``kind, x, y, at, [player]``
``recolour_figure`` ``kind, x, y, at, [player], colour``
``set_gold``        ``x, y, count``: Goldmines gold bars lying on a tile (0 removes)
``set_ore``         ``x, y, at, count``: face-down ore tokens on a mountain (0 removes)
``set_players``     ``players``: colours in clockwise turn order
``set_active``      ``player`` (``None`` clears)
``set_last_placed`` ``x, y`` (both ``None`` clears)
``set_track``       ``points: {colour: points}``: score-track positions, laps included
``set_held``        ``player, gold_bars / ore_points / ore_tokens``: what a player holds
``confirm``         ``kind, x, y, [at], [player]``: the detection was right (confidence 1.0)
=================== ===============================================================

Rotations are given as clockwise quarter turns 0-3 or as degrees 0/90/180/270
(:func:`parse_rot`); the board keeps quarter turns.

Board files: :func:`correct_file` and :func:`undo_file` read a board file (JSON
or the text notation), change it and write it back atomically
(:func:`scorer.fileio.write_atomic`; on any error the file is left unchanged).
A text-notation file keeps its history as ``#history {...}`` comment lines at
its end and its leading comment lines.  When a file is not in the form these
tools write (hand-formatted JSON, a notation file with comments between its
lines), its exact text is kept once in the first change's entry (``"file"``),
so that undoing that change gives the file back byte for byte.

:func:`suggest_corrections` finds one correction that would make the computed
totals equal the totals the players claim.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
import logging
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .board import COLOURS, HELD_KEYS, Board, Figure, Placement, looks_like_json
from .errors import BoardFormatError, ScorerError
from .fileio import write_atomic
from .geometry import LOCATIONS, Cell
from .tiles import TileSet, builtin_sets_for

log = logging.getLogger(__name__)

#: Board fields kept as lists of objects; their changes are recorded as splices.
LIST_FIELDS = ("tiles", "meeples", "gold", "tents", "ore")
#: Figure kinds and the board field that holds them.
FIGURE_FIELDS = {"meeple": "meeples", "tent": "tents", "sheriff": "sheriff"}
#: Detection keys a manual correction makes obsolete.
GUESS_KEYS = ("alternatives", "colour_alternatives", "count_seen")
#: Prefix of the history lines of a text-notation board file.
NOTATION_HISTORY = "#history "
#: Default number of re-scorings :func:`suggest_corrections` may spend.
MAX_SCORINGS = 500
#: Longest number read from a command line, in digits (larger ones are refused unread).
_MAX_DIGITS = 12


class CorrectionError(ScorerError, ValueError):
    """A correction cannot be applied; the message says what to do instead."""


# --------------------------------------------------------------------------- small parsers


def parse_rot(value: Any) -> int:
    """A rotation as clockwise quarter turns.

    Parameters
    ----------
    value : int or str
        Quarter turns ``0``-``3`` or degrees ``0``, ``90``, ``180``, ``270``
        (``"90deg"`` and ``"90°"`` also read).  ``0`` is the same in both.

    Returns
    -------
    int
        Clockwise quarter turns, 0-3 (``board-format.md``, ``rot``).

    Raises
    ------
    CorrectionError
        Any other value.
    """
    text = str(value).strip().lower()
    for suffix in ("°", "deg"):
        if text.endswith(suffix):
            text = text[: -len(suffix)].strip()
    if text.lstrip("-").isdigit():
        n = int(text)
        if n in (0, 1, 2, 3):
            return n
        if n in (90, 180, 270, 360):
            return (n // 90) % 4
    raise CorrectionError(
        f"rotation must be 0, 90, 180 or 270 degrees clockwise (or 0-3 quarter turns), got {value!r}"
    )


def parse_cell(text: str) -> Cell:
    """``"2,-1"`` -> ``(2, -1)`` (``x`` east, ``y`` south).

    Raises
    ------
    CorrectionError
        The text is not two integers separated by a comma.
    """
    raw = str(text).strip().strip("()[]")
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) == 2 and all(p.lstrip("-").isdigit() and len(p) <= _MAX_DIGITS for p in parts):
        return int(parts[0]), int(parts[1])
    raise CorrectionError(f"a cell is X,Y like 2,-1 (x grows east, y grows south), got {_short(str(text))!r}")


def parse_colour(text: str, what: str = "colour") -> str:
    """A player colour in any case; unknown colours raise :class:`CorrectionError`."""
    c = str(text).strip().lower()
    if c not in COLOURS:
        raise CorrectionError(f"{what}: unknown colour {text!r}; colours are {', '.join(COLOURS)}")
    return c


def parse_location(text: str) -> str:
    """A tile location (``N``, ``NL``..., ``C``) in any case."""
    loc = str(text).strip().upper()
    if loc not in LOCATIONS:
        raise CorrectionError(f"unknown tile location {text!r}; locations are {' '.join(LOCATIONS)} "
                              "(board orientation: N is up)")
    return loc


def format_rot(rot: int) -> str:
    """``1`` -> ``"rot 1 (90°)"``."""
    return f"rot {rot} ({rot * 90}°)"


# --------------------------------------------------------------------------- applying


def apply_correction(board: Board, op: str, args: dict[str, Any], *, form: str = "json") -> Board:
    """Apply one correction and return the corrected board with the change in its history.

    Parameters
    ----------
    board : Board
        The board to correct; it is not changed.
    op : str
        One of the operations in the module documentation (``set_tile``...).
    args : dict
        The operation's arguments.  Cells are integers, rotations quarter turns
        or degrees, colours and locations in any case.
    form : {"json", "notation"}
        The form of the file the board is kept in.  A board kept in the text
        notation is normalised through it (figures grouped by tile) before the
        change is recorded, so that its ``before`` fits the file as written.

    Returns
    -------
    Board
        A new board.  When the correction changes nothing (the board already says
        so), the board returned is ``board`` itself and no history is added.

    Raises
    ------
    CorrectionError
        Unknown operation or bad arguments, or the result would not be a valid
        board; the message names the cell and says what to do.
    """
    spec = _OPS.get(op)
    if spec is None:
        raise CorrectionError(f"unknown correction {op!r}; known: {', '.join(_OPS)}")
    if not isinstance(args, dict):
        raise CorrectionError(f"{op}: arguments must be an object, got {args!r}")
    args = spec.normalise(dict(args), board)
    old = board.to_dict()
    new = copy.deepcopy(old)
    spec.apply(new, args, board)
    result = _rebuild(new, board, f"{describe(op, args)}")
    if form == "notation":
        result = _through_notation(result, board)
    old_plain = {k: v for k, v in old.items() if k != "history"}
    new_plain = {k: v for k, v in result.to_dict().items() if k != "history"}
    before = _diff(old_plain, new_plain)
    if not before:
        log.info("correction %s %s changes nothing", op, args)
        return board
    # The key keeps its place among the extra keys (``new`` was copied with it).
    result.extra["history"] = history(board) + [{"op": op, "args": args, "before": before}]
    log.debug("applied %s %s", op, args)
    return result


def history(board: Board) -> list[dict[str, Any]]:
    """The board's recorded changes, oldest first (empty for a board never corrected)."""
    h = board.extra.get("history")
    return list(h) if isinstance(h, list) else []


def undo(board: Board, steps: int = 1) -> Board:
    """Revert the last ``steps`` recorded changes.

    Parameters
    ----------
    board : Board
        A board with a ``history``; not changed.
    steps : int
        How many changes to revert, newest first.

    Returns
    -------
    Board
        The earlier board; the reverted entries are gone from its history (the
        ``history`` key itself goes when it becomes empty).

    Raises
    ------
    CorrectionError
        Fewer changes are recorded than ``steps``, or an entry cannot be reverted.
    """
    _check_steps(board, steps)
    d = copy.deepcopy(board.to_dict())  # the board's own history list must not be popped
    for _ in range(steps):
        entry = d["history"].pop()
        try:
            _revert(d, entry)
        except _HandEdited as exc:
            raise _refused(entry, exc) from None
        if not d["history"]:
            del d["history"]
    return _rebuild(d, board, "undo")


def _check_steps(board: Board, steps: int) -> None:
    n = len(history(board))
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise CorrectionError(f"--steps must be a positive number of changes, got {steps!r}")
    if n == 0:
        raise CorrectionError("the board has no recorded changes to undo")
    if steps > n:
        raise CorrectionError(f"only {n} change(s) are recorded; undo at most {n} (--steps {n})")


#: The keys that identify an entry of each list field (what a person sees on the table).
_IDENTITY = {
    "tiles": ("x", "y", "tile", "rot"),
    "meeples": ("player", "x", "y", "at"),
    "tents": ("player", "x", "y", "at"),
    "gold": ("x", "y", "count"),
    "ore": ("x", "y", "at", "count"),
}


def _ident(key: str, e: Any) -> Any:
    if not isinstance(e, dict):
        return json.dumps(e, sort_keys=True)
    return tuple(json.dumps(e.get(k), sort_keys=True) for k in _IDENTITY.get(key, sorted(e)))


def _item_text(key: str, e: Any) -> str:
    """``the red meeple at 1,1 S``: a list entry named as a person sees it."""
    if not isinstance(e, dict):
        return f"the {key} entry {_short(e)}"
    cell = f"{e.get('x')},{e.get('y')}"
    if key == "tiles":
        t = e.get("tile")
        name = t if isinstance(t, str) else (t or {}).get("name", "inline tile") if isinstance(t, dict) else t
        return f"the tile {name} {format_rot(e.get('rot', 0))} on {cell}"
    if key in ("meeples", "tents"):
        return f"the {e.get('player')} {key[:-1]} at {cell} {e.get('at')}"
    if key == "gold":
        n = e.get("count")
        return f"the {n} gold bar{'' if n == 1 else 's'} on {cell}"
    if key == "ore":
        n = e.get("count")
        return f"the {n} ore token{'' if n == 1 else 's'} at {cell} {e.get('at')}"
    if key == "sheriff":
        return f"the Sheriff at {cell} {e.get('at')}"
    return f"the {key} entry {_short(e)}"


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False) if not isinstance(value, str) else value
    except (TypeError, ValueError):
        text = "<unprintable value>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _HandEdited(CorrectionError):
    """The board no longer shows what a recorded change left; the change cannot be reverted."""


def _revert(d: dict[str, Any], entry: Any) -> None:
    """Revert one history entry in the board object ``d`` (in place).

    List fields are matched by content (:data:`_IDENTITY`): the entries the
    change left are found wherever they now stand and replaced by the earlier
    ones.  When the board no longer shows what the change left (a person edited
    the file since), :class:`_HandEdited` is raised and ``d`` may be half changed
    (callers work on a copy).  Entries written before the change's result was
    recorded (no ``new``) are reverted by position.
    """
    if not isinstance(entry, dict) or not isinstance(entry.get("before"), dict):
        raise CorrectionError(f"history entry {_short(entry)} cannot be reverted: it has no 'before'")
    for key, patch in entry["before"].items():
        if not isinstance(patch, dict):
            raise CorrectionError(f"history entry {entry.get('op')!r}: 'before.{key}' must be an object")
        if "index" in patch:
            _revert_list(d, key, patch)
            continue
        if "new" in patch and d.get(key) != patch["new"]:
            raise _HandEdited(_value_changed(key, patch["new"], d.get(key)))
        if patch.get("absent"):
            d.pop(key, None)
        else:
            d[key] = copy.deepcopy(patch.get("value"))


def _value_changed(key: str, left: Any, now: Any) -> str:
    if key == "sheriff":
        if isinstance(left, dict):
            return f"{_item_text('sheriff', left)} is no longer there"
        return f"the Sheriff now stands at {now.get('x')},{now.get('y')} {now.get('at')}" if isinstance(now, dict) \
            else "the Sheriff was changed"
    return f"'{key}' is now {_short(now, 40)}, the change left {_short(left, 40)}"


def _revert_list(d: dict[str, Any], key: str, patch: dict[str, Any]) -> None:
    lst = d.setdefault(key, [])
    if not isinstance(lst, list):
        raise _HandEdited(f"'{key}' is no longer a list")
    old = copy.deepcopy(patch.get("old", []))
    i = patch["index"]
    if "new" not in patch:  # recorded before the result was kept: by position
        n = patch.get("count", 0)
        lst[i:i + n] = old
        return
    left = patch["new"]
    want = [_ident(key, e) for e in left]
    have = [_ident(key, e) for e in lst]
    n = len(want)
    if have[i:i + n] == want:
        at = i
        del lst[i:i + n]
    else:
        spots: list[int] = []
        for e, ident in zip(left, want):
            j = next((j for j, h in enumerate(have) if h == ident and j not in spots), None)
            if j is None:
                raise _HandEdited(f"{_item_text(key, e)} is no longer there")
            spots.append(j)
        at = min(spots) if spots else min(i, len(lst))
        for j in sorted(spots, reverse=True):
            del lst[j]
    if key == "tiles":  # a tile to put back needs its cell free
        taken = {(t.get("x"), t.get("y")): t for t in lst if isinstance(t, dict)}
        for e in old:
            if isinstance(e, dict) and (e.get("x"), e.get("y")) in taken:
                raise _HandEdited(f"{_item_text(key, taken[(e.get('x'), e.get('y'))])} was put there since")
    lst[at:at] = old


def _refused(entry: dict[str, Any], exc: _HandEdited) -> CorrectionError:
    return CorrectionError(f"the board was edited by hand since this change ({describe_entry(entry)}); "
                           f"undo refused: {exc}")


def _diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The minimal ``before`` record that turns ``new`` back into ``old``.

    Each record also keeps what the change left (``new``), so that undo can
    find it by content and tell when the board was edited by hand since.
    """
    before: dict[str, Any] = {}
    for key in list(old) + [k for k in new if k not in old]:
        if key in old and key in new and old[key] == new[key]:
            continue
        if key not in old:
            before[key] = {"absent": True, "new": new[key]}
        elif key in LIST_FIELDS and isinstance(old[key], list) and isinstance(new.get(key), list):
            a, b = old[key], new[key]
            lo = 0
            while lo < min(len(a), len(b)) and a[lo] == b[lo]:
                lo += 1
            hi = 0
            while hi < min(len(a), len(b)) - lo and a[len(a) - 1 - hi] == b[len(b) - 1 - hi]:
                hi += 1
            before[key] = {"index": lo, "old": a[lo:len(a) - hi], "count": len(b) - lo - hi,
                           "new": b[lo:len(b) - hi]}
        elif key in new:
            before[key] = {"value": old[key], "new": new[key]}
        else:
            before[key] = {"value": old[key]}
    return before


def user_tile_sets(board: Board) -> list[TileSet]:
    """The tile sets of ``board`` that are not built in (``--tiles`` files), to rebuild it."""
    n = len(builtin_sets_for(board.game, board.expansions))
    return list(board.catalog.sets[n:]) if board.catalog is not None else []


def _rebuild(d: dict[str, Any], like: Board, what: str) -> Board:
    try:
        return Board.from_dict(d, tile_sets=user_tile_sets(like))
    except BoardFormatError as exc:
        raise CorrectionError(f"{what}: {exc}") from None


def _through_notation(board: Board, like: Board) -> Board:
    from .notation import format_notation, parse_notation

    out = parse_notation(format_notation(board), tile_sets=user_tile_sets(like))
    out.extra = {k: v for k, v in board.extra.items() if k != "history"}
    return out


# --------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class _Op:
    normalise: Callable[[dict, Board], dict]
    apply: Callable[[dict, dict, Board], None]


def _int(args: dict, key: str, op: str, *, minimum: int | None = None) -> int:
    v = args.get(key)
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        if len(v.strip()) > _MAX_DIGITS:
            raise CorrectionError(f"{op}: '{key}' is far too large, got {_short(v.strip())}")
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise CorrectionError(f"{op}: '{key}' must be a whole number, got {_short(v)}")
    if minimum is not None and v < minimum:
        raise CorrectionError(f"{op}: '{key}' must be at least {minimum}, got {v}")
    return v


def _xy(args: dict, op: str) -> tuple[int, int]:
    return _int(args, "x", op), _int(args, "y", op)


def _is_photo(board: Board) -> bool:
    return "photo" in board.extra


def _confirmed(entry: dict, photo: bool) -> dict:
    """A detection entry marked as checked by a person: confidence 1.0, no runners-up."""
    for k in GUESS_KEYS:
        entry.pop(k, None)
    if "confidence" in entry or photo:
        entry["confidence"] = 1.0
    return entry


def _tile_at(board: Board, x: int, y: int, what: str) -> Placement:
    p = board.tiles.get((x, y))
    if p is None:
        raise CorrectionError(f"{what}: no tile on {x},{y}; place one first (scorer fix BOARD tile {x},{y} ID ROT) "
                              "or check the cell (x grows east, y grows south)")
    return p


def tile_locations(placement: Placement) -> list[str]:
    """The locations of a placed tile that name a feature, in :data:`LOCATIONS` order."""
    o = placement.tile.turned(placement.rot)
    return [loc for loc in LOCATIONS if o.locate(loc) is not None]


def _check_location(board: Board, x: int, y: int, at: str, what: str) -> None:
    p = _tile_at(board, x, y, what)
    if p.tile.turned(p.rot).locate(at) is None:
        raise CorrectionError(f"{what}: tile {p.tile.id} {format_rot(p.rot)} on {x},{y} has no feature at {at}; "
                              f"its locations are {' '.join(tile_locations(p))}")


# ---- tiles


def _norm_set_tile(args: dict, board: Board) -> dict:
    op = "set_tile"
    x, y = _xy(args, op)
    current = board.tiles.get((x, y))
    tile = args.get("tile")
    if tile in (None, "", "."):
        if current is None:
            raise CorrectionError(f"tile {x},{y}: there is no tile to turn there; give the tile id "
                                  f"(scorer fix BOARD tile {x},{y} ID ROT)")
        tile = current.inline if current.inline is not None else current.tile.id
    elif isinstance(tile, str):
        tile = _resolve_tile_id(board, tile.strip(), x, y)
    elif not isinstance(tile, dict):
        raise CorrectionError(f"tile {x},{y}: 'tile' must be a tile id or an inline tile, got {tile!r}")
    rot = args.get("rot")
    if rot is None:
        rot = current.rot if current is not None else 0
    rot = parse_rot(rot)
    return {"x": x, "y": y, "tile": tile, "rot": rot}


def _resolve_tile_id(board: Board, tile_id: str, x: int, y: int) -> str | dict:
    if tile_id in board.catalog:
        return tile_id
    for p in board.tiles.values():  # an inline tile already on the board, by its name
        if p.inline is not None and p.inline.get("name") == tile_id:
            return copy.deepcopy(p.inline)
    by_upper = {t.upper(): t for t in board.catalog.tiles}
    if tile_id.upper() in by_upper:
        return by_upper[tile_id.upper()]
    close = difflib.get_close_matches(tile_id, list(board.catalog.tiles), n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    game = board.game + ("+" + "+".join(board.expansions) if board.expansions else "")
    raise CorrectionError(f"tile {x},{y}: unknown tile id {tile_id!r} for {game}; {hint}"
                          f"known ids: {' '.join(board.catalog.tiles)}")


def _apply_set_tile(d: dict, args: dict, board: Board) -> None:
    x, y = args["x"], args["y"]
    tiles = d["tiles"]
    idx = next((i for i, t in enumerate(tiles) if (t["x"], t["y"]) == (x, y)), None)
    entry: dict[str, Any] = {"x": x, "y": y, "tile": args["tile"], "rot": args["rot"]}
    if idx is not None:
        entry.update({k: v for k, v in tiles[idx].items() if k not in ("x", "y", "tile", "rot")})
    entry = _confirmed(entry, _is_photo(board))
    # Figures and ore already on the cell must still find their feature.
    probe = Board.from_dict({"format": d["format"], "game": d["game"], "expansions": d["expansions"],
                             "tiles": [entry]}, tile_sets=user_tile_sets(board))
    turned = probe.tiles[(x, y)]
    o = turned.tile.turned(turned.rot)
    for kind, field_name in FIGURE_FIELDS.items():
        figs = d.get(field_name)
        figs = [figs] if isinstance(figs, dict) else (figs or [])
        for f in figs:
            if (f["x"], f["y"]) == (x, y) and o.locate(f["at"]) is None:
                who = "the Sheriff" if kind == "sheriff" else f"the {f['player']} {kind}"
                words = " ".join(fix_words("remove_figure", {"kind": kind, "x": x, "y": y, "at": f["at"],
                                                             "player": f.get("player")}))
                raise CorrectionError(
                    f"tile {x},{y}: {turned.tile.id} {format_rot(turned.rot)} has no feature at {f['at']}, where "
                    f"{who} stands; move or remove it first (scorer fix BOARD {words})")
    for s in d.get("ore") or []:
        if (s["x"], s["y"]) == (x, y) and o.locate(s["at"]) is None:
            raise CorrectionError(
                f"tile {x},{y}: {turned.tile.id} {format_rot(turned.rot)} has no feature at {s['at']}, where "
                f"{s['count']} ore token(s) lie; move them first (scorer fix BOARD ore {x},{y} {s['at']} 0)")
    if idx is None:
        tiles.append(entry)
    else:
        tiles[idx] = entry


def _norm_cell(op: str) -> Callable[[dict, Board], dict]:
    def norm(args: dict, board: Board) -> dict:
        x, y = _xy(args, op)
        return {"x": x, "y": y}

    return norm


def _apply_remove_tile(d: dict, args: dict, board: Board) -> None:
    x, y = args["x"], args["y"]
    _tile_at(board, x, y, f"remove tile {x},{y}")
    on = lambda e: (e["x"], e["y"]) == (x, y)  # noqa: E731
    for key in LIST_FIELDS:
        d[key] = [e for e in d.get(key) or [] if not on(e)]
    if d.get("sheriff") and on(d["sheriff"]):
        d["sheriff"] = None
    lp = d.get("last_placed")
    if lp and (lp["x"], lp["y"]) == (x, y):
        d["last_placed"] = None


# ---- figures


def _norm_figure(op: str) -> Callable[[dict, Board], dict]:
    def norm(args: dict, board: Board) -> dict:
        kind = args.get("kind", "meeple")
        if kind not in FIGURE_FIELDS:
            raise CorrectionError(f"{op}: figure kind must be one of {', '.join(FIGURE_FIELDS)}, got {kind!r}")
        x, y = _xy(args, op)
        out: dict[str, Any] = {"kind": kind, "x": x, "y": y, "at": parse_location(args.get("at", ""))}
        player = args.get("player")
        if kind == "sheriff":
            player = None
        elif player is not None:
            out["player"] = parse_colour(player, f"{kind} at {x},{y}")
        if op == "add_figure" and kind != "sheriff" and player is None:
            raise CorrectionError(f"add a {kind} at {x},{y}: say whose it is, e.g. "
                                  f"scorer fix BOARD {kind} {x},{y} red {out['at']}")
        if op == "move_figure":
            to = args.get("to")
            if not isinstance(to, dict):
                raise CorrectionError(f"move_figure: 'to' must be {{x, y, at}}, got {to!r}")
            tx = to.get("x", x)
            ty = to.get("y", y)
            out["to"] = {"x": _int({"x": tx}, "x", op), "y": _int({"y": ty}, "y", op),
                         "at": parse_location(to.get("at", out["at"]))}
        if op == "recolour_figure":
            if kind == "sheriff":
                raise CorrectionError("the Sheriff belongs to nobody: it has no colour to change")
            out["colour"] = parse_colour(args.get("colour", ""), f"new colour of the {kind} at {x},{y}")
        return out

    return norm


def _figure_name(args: dict) -> str:
    if args["kind"] == "sheriff":
        return "the Sheriff"
    return f"{args['player']} {args['kind']}" if args.get("player") else args["kind"]


def _find_figure(d: dict, args: dict, board: Board) -> tuple[str, int | None]:
    """``(field, index)`` of the one figure ``args`` names (index ``None`` for the Sheriff)."""
    kind, x, y, at = args["kind"], args["x"], args["y"], args["at"]
    field_name = FIGURE_FIELDS[kind]
    if kind == "sheriff":
        sh = d.get("sheriff")
        if not sh or (sh["x"], sh["y"], sh["at"]) != (x, y, at):
            where = f"it stands at {sh['x']},{sh['y']} {sh['at']}" if sh else "it is not on the board"
            raise CorrectionError(f"the Sheriff is not at {x},{y} {at}: {where}")
        return field_name, None
    figs = d.get(field_name) or []
    hits = [i for i, f in enumerate(figs) if (f["x"], f["y"], f["at"]) == (x, y, at)
            and (args.get("player") is None or f["player"] == args["player"])]
    if not hits:
        on_cell = [f for f in figs if (f["x"], f["y"]) == (x, y)]
        there = (f"{kind}s on {x},{y}: " + ", ".join(f"{f['player']} at {f['at']}" for f in on_cell)
                 if on_cell else f"no {kind}s stand on {x},{y}")
        raise CorrectionError(f"no {_figure_name(args)} at {x},{y} {at} ({there})")
    if len(hits) > 1:
        colours = [figs[i]["player"] for i in hits]
        raise CorrectionError(f"{len(hits)} {kind}s stand at {x},{y} {at} ({', '.join(colours)}); say which, e.g. "
                              f"scorer fix BOARD {kind} {x},{y} {colours[0]} {at} ...")
    return field_name, hits[0]


def _apply_add_figure(d: dict, args: dict, board: Board) -> None:
    kind, x, y, at = args["kind"], args["x"], args["y"], args["at"]
    _check_location(board, x, y, at, f"add {_figure_name(args)} at {x},{y} {at}")
    entry: dict[str, Any] = {} if kind == "sheriff" else {"player": args["player"]}
    entry.update({"x": x, "y": y, "at": at})
    entry = _confirmed(entry, _is_photo(board))
    if kind == "sheriff":
        sh = d.get("sheriff")
        if sh:
            raise CorrectionError(f"the Sheriff already stands at {sh['x']},{sh['y']} {sh['at']}; move it with "
                                  f"scorer fix BOARD sheriff {x},{y} {at}")
        d["sheriff"] = entry
    else:
        d.setdefault(FIGURE_FIELDS[kind], []).append(entry)


def _apply_move_figure(d: dict, args: dict, board: Board) -> None:
    to = args["to"]
    _check_location(board, to["x"], to["y"], to["at"], f"move {_figure_name(args)} to {to['x']},{to['y']} {to['at']}")
    field_name, idx = _find_figure(d, args, board)
    fig = d[field_name] if idx is None else d[field_name][idx]
    fig.update({"x": to["x"], "y": to["y"], "at": to["at"]})
    _confirmed(fig, _is_photo(board))


def _apply_remove_figure(d: dict, args: dict, board: Board) -> None:
    field_name, idx = _find_figure(d, args, board)
    if idx is None:
        d[field_name] = None
    else:
        del d[field_name][idx]


def _apply_recolour_figure(d: dict, args: dict, board: Board) -> None:
    field_name, idx = _find_figure(d, args, board)
    fig = d[field_name][idx]
    fig["player"] = args["colour"]
    _confirmed(fig, _is_photo(board))


# ---- counts


def _norm_gold(args: dict, board: Board) -> dict:
    x, y = _xy(args, "set_gold")
    return {"x": x, "y": y, "count": _int(args, "count", "set_gold", minimum=0)}


def _apply_gold(d: dict, args: dict, board: Board) -> None:
    x, y, n = args["x"], args["y"], args["count"]
    _tile_at(board, x, y, f"gold bars on {x},{y}")
    _set_stack(d, "gold", lambda s: (s["x"], s["y"]) == (x, y), {"x": x, "y": y, "count": n}, n, board)


def _norm_ore(args: dict, board: Board) -> dict:
    x, y = _xy(args, "set_ore")
    return {"x": x, "y": y, "at": parse_location(args.get("at", "")), "count": _int(args, "count", "set_ore", minimum=0)}


def _apply_ore(d: dict, args: dict, board: Board) -> None:
    x, y, at, n = args["x"], args["y"], args["at"], args["count"]
    if n:
        _check_location(board, x, y, at, f"ore tokens at {x},{y} {at}")
    else:
        _tile_at(board, x, y, f"ore tokens at {x},{y} {at}")
    _set_stack(d, "ore", lambda s: (s["x"], s["y"], s.get("at")) == (x, y, at),
               {"x": x, "y": y, "at": at, "count": n}, n, board)


def _set_stack(d: dict, key: str, match: Callable[[dict], bool], entry: dict, n: int, board: Board) -> None:
    stacks = d.setdefault(key, [])
    hits = [i for i, s in enumerate(stacks) if match(s)]
    if hits:
        first = stacks[hits[0]]
        first["count"] = n
        _confirmed(first, _is_photo(board))
        for i in reversed(hits[1:]):  # several stacks on one place become one
            del stacks[i]
        if n == 0:
            del stacks[hits[0]]
    elif n:
        stacks.append(_confirmed(entry, _is_photo(board)))


# ---- game state


def _norm_players(args: dict, board: Board) -> dict:
    players = args.get("players")
    if isinstance(players, str):
        players = [p for p in players.replace(",", " ").split() if p]
    if not isinstance(players, list) or not players:
        raise CorrectionError("players: give the colours in turn order, e.g. red,blue,green")
    out = [parse_colour(p, "players") for p in players]
    if len(set(out)) != len(out):
        raise CorrectionError(f"players: a colour is listed twice in {','.join(out)}")
    return {"players": out}


def _apply_players(d: dict, args: dict, board: Board) -> None:
    active = d.get("active")
    if active is not None and active not in args["players"]:
        raise CorrectionError(f"players: the active player {active} is not in {','.join(args['players'])}; "
                              f"set the active player first (scorer fix BOARD active {args['players'][0]})")
    d["players"] = args["players"]


def _norm_active(args: dict, board: Board) -> dict:
    p = args.get("player")
    return {"player": None if p in (None, "", "none") else parse_colour(p, "active player")}


def _apply_active(d: dict, args: dict, board: Board) -> None:
    p = args["player"]
    if p is not None and d.get("players") and p not in d["players"]:
        raise CorrectionError(f"active: {p} is not one of the players ({', '.join(d['players'])}); "
                              f"add it first (scorer fix BOARD players {','.join(d['players'] + [p])})")
    d["active"] = p


def _norm_last(args: dict, board: Board) -> dict:
    if args.get("x") is None and args.get("y") is None:
        return {"x": None, "y": None}
    x, y = _xy(args, "set_last_placed")
    return {"x": x, "y": y}


def _apply_last(d: dict, args: dict, board: Board) -> None:
    if args["x"] is None:
        d["last_placed"] = None
        return
    _tile_at(board, args["x"], args["y"], "last placed tile")
    d["last_placed"] = {"x": args["x"], "y": args["y"]}


def _norm_track(args: dict, board: Board) -> dict:
    pts = args.get("points")
    if not isinstance(pts, dict) or not pts:
        raise CorrectionError("track: give points per colour, e.g. red=37,blue=52")
    out = {}
    for c, v in pts.items():
        c = parse_colour(c, "track")
        out[c] = _int({"points": v}, "points", f"track of {c}", minimum=0)
    return {"points": out}


def _apply_track(d: dict, args: dict, board: Board) -> None:
    track = dict(d.get("track") or {})
    track.update(args["points"])
    d["track"] = track


def _norm_held(args: dict, board: Board) -> dict:
    out: dict[str, Any] = {"player": parse_colour(args.get("player", ""), "held")}
    counts = {k: v for k, v in args.items() if k != "player"}
    if not counts:
        raise CorrectionError(f"held: give what {out['player']} holds, e.g. gold_bars=3 ore_points=7")
    for k, v in counts.items():
        if k not in HELD_KEYS:
            raise CorrectionError(f"held: unknown key {k!r}; known: {', '.join(HELD_KEYS)}")
        out[k] = _int({k: v}, k, f"held by {out['player']}", minimum=0)
    return out


def _apply_held(d: dict, args: dict, board: Board) -> None:
    held = copy.deepcopy(d.get("held") or {})
    mine = dict(held.get(args["player"], {}))
    for k, v in args.items():
        if k == "player":
            continue
        if v:
            mine[k] = v
        else:
            mine.pop(k, None)
    if mine:
        held[args["player"]] = mine
    else:
        held.pop(args["player"], None)
    d["held"] = held


# ---- confirmation (review: "what was read is right")


def _norm_confirm(args: dict, board: Board) -> dict:
    kind = args.get("kind", "tile")
    x, y = _xy(args, "confirm")
    out: dict[str, Any] = {"kind": kind, "x": x, "y": y}
    if kind in ("meeple", "tent", "sheriff", "ore"):
        out["at"] = parse_location(args.get("at", ""))
    elif kind not in ("tile", "gold"):
        raise CorrectionError(f"confirm: kind must be tile, meeple, tent, sheriff, gold or ore, got {kind!r}")
    if kind in ("meeple", "tent") and args.get("player") is not None:
        out["player"] = parse_colour(args["player"], f"{kind} at {x},{y}")
    return out


def _apply_confirm(d: dict, args: dict, board: Board) -> None:
    kind, x, y = args["kind"], args["x"], args["y"]
    if kind == "tile":
        _tile_at(board, x, y, f"confirm tile {x},{y}")
        entry = next(t for t in d["tiles"] if (t["x"], t["y"]) == (x, y))
    elif kind in FIGURE_FIELDS:
        field_name, idx = _find_figure(d, args, board)
        entry = d[field_name] if idx is None else d[field_name][idx]
    else:
        key = "gold" if kind == "gold" else "ore"
        hits = [s for s in d.get(key) or [] if (s["x"], s["y"]) == (x, y) and (kind == "gold" or s["at"] == args["at"])]
        if not hits:
            raise CorrectionError(f"confirm: no {'gold bars' if kind == 'gold' else 'ore tokens'} on {x},{y}")
        entry = hits[0]
    _confirmed(entry, True)


_OPS: dict[str, _Op] = {
    "set_tile": _Op(_norm_set_tile, _apply_set_tile),
    "remove_tile": _Op(_norm_cell("remove_tile"), _apply_remove_tile),
    "add_figure": _Op(_norm_figure("add_figure"), _apply_add_figure),
    "move_figure": _Op(_norm_figure("move_figure"), _apply_move_figure),
    "remove_figure": _Op(_norm_figure("remove_figure"), _apply_remove_figure),
    "recolour_figure": _Op(_norm_figure("recolour_figure"), _apply_recolour_figure),
    "set_gold": _Op(_norm_gold, _apply_gold),
    "set_ore": _Op(_norm_ore, _apply_ore),
    "set_players": _Op(_norm_players, _apply_players),
    "set_active": _Op(_norm_active, _apply_active),
    "set_last_placed": _Op(_norm_last, _apply_last),
    "set_track": _Op(_norm_track, _apply_track),
    "set_held": _Op(_norm_held, _apply_held),
    "confirm": _Op(_norm_confirm, _apply_confirm),
}

#: The names of every correction operation.
OPERATIONS: tuple[str, ...] = tuple(_OPS)


# --------------------------------------------------------------------------- describing


def _tile_text(entry: dict | None) -> str:
    if not entry:
        return "nothing"
    t = entry["tile"]
    name = t if isinstance(t, str) else t.get("name", "inline tile")
    return f"{name} {format_rot(entry.get('rot', 0))}"


def describe(op: str, args: dict[str, Any], before: dict[str, Any] | None = None) -> str:
    """One line saying what a correction does (with ``before``: what it changed from).

    Parameters
    ----------
    op, args
        The correction, as in a history entry.
    before : dict, optional
        The entry's ``before`` record, to name the old values.
    """
    a, b = args, before or {}

    def old_list(key: str) -> list:
        return (b.get(key) or {}).get("old") or []

    def old_value(key: str, default: Any = None) -> Any:
        return (b.get(key) or {}).get("value", default)

    cell = f"{a.get('x')},{a.get('y')}"
    if op == "set_tile":
        old = old_list("tiles")
        new = _tile_text(a)
        if before is None:
            return f"tile {cell}: {new}"
        return f"tile {cell}: {_tile_text(old[0])} -> {new}" if old else f"tile {cell}: placed {new}"
    if op == "remove_tile":
        old = old_list("tiles")
        figs = sum(len(old_list(k)) for k in ("meeples", "tents")) + (1 if "sheriff" in b else 0)
        extra = f" with {figs} figure(s) on it" if figs else ""
        return f"tile {cell} removed" + (f" (was {_tile_text(old[0])}){extra}" if old else "")
    if op in ("add_figure", "move_figure", "remove_figure", "recolour_figure"):
        was = old_list(FIGURE_FIELDS.get(a.get("kind"), ""))
        if a.get("player") is None and was and was[0].get("player") and op != "recolour_figure":
            a = {**a, "player": was[0]["player"]}
        name = _figure_name(a)
        where = f"{cell} {a.get('at')}"
        if op == "add_figure":
            return f"{name} added at {where}"
        if op == "remove_figure":
            return f"{name} removed from {where}"
        if op == "move_figure":
            to = a["to"]
            return f"{name} moved from {where} to {to['x']},{to['y']} {to['at']}"
        was = a.get("player")
        if was is None and old_list(FIGURE_FIELDS[a["kind"]]):
            was = old_list(FIGURE_FIELDS[a["kind"]])[0].get("player")
        return f"{a['kind']} at {where}: {was or '?'} -> {a['colour']}"
    if op == "set_gold":
        old = sum(s.get("count", 0) for s in old_list("gold")) if before is not None else None
        return f"gold bars on {cell}: " + (f"{old} -> " if old is not None else "") + str(a["count"])
    if op == "set_ore":
        old = sum(s.get("count", 0) for s in old_list("ore")) if before is not None else None
        return f"ore tokens at {cell} {a['at']}: " + (f"{old} -> " if old is not None else "") + str(a["count"])
    if op == "set_players":
        return "players: " + (f"{', '.join(old_value('players', []) or ['none'])} -> " if "players" in b else "") \
            + ", ".join(a["players"])
    if op == "set_active":
        return "active player: " + (f"{old_value('active') or 'none'} -> " if "active" in b else "") \
            + (a["player"] or "none")
    if op == "set_last_placed":
        new = "none" if a.get("x") is None else cell
        lp = old_value("last_placed")
        old = "none" if not lp else f"{lp['x']},{lp['y']}"
        return "last placed tile: " + (f"{old} -> " if "last_placed" in b else "") + new
    if op == "set_track":
        old = old_value("track", {}) or {}
        parts = [f"{c} " + (f"{old.get(c, 0)} -> " if "track" in b else "") + str(v) for c, v in a["points"].items()]
        return "track: " + ", ".join(parts)
    if op == "set_held":
        old = (old_value("held", {}) or {}).get(a["player"], {})
        parts = [f"{k} " + (f"{old.get(k, 0)} -> " if "held" in b else "") + str(v)
                 for k, v in a.items() if k != "player"]
        return f"{a['player']} holds: " + ", ".join(parts)
    if op == "confirm":
        what = a["kind"] if a["kind"] not in FIGURE_FIELDS else _figure_name(a)
        return f"{what} at {cell}{' ' + a['at'] if a.get('at') else ''} confirmed as read"
    return f"{op} {json.dumps(a)}"


def describe_entry(entry: dict[str, Any]) -> str:
    """:func:`describe` for a history entry."""
    return describe(entry.get("op", "?"), entry.get("args", {}), entry.get("before"))


def fix_words(op: str, args: dict[str, Any]) -> list[str]:
    """The ``scorer fix BOARD ...`` words that make a correction (empty for ``confirm``).

    Example: ``fix_words("set_tile", {"x": 2, "y": -1, "tile": "K", "rot": 1})``
    is ``["tile", "2,-1", "K", "90"]``.
    """
    a = args
    cell = f"{a.get('x')},{a.get('y')}"
    if op == "set_tile":
        t = a["tile"] if isinstance(a["tile"], str) else a["tile"].get("name", ".")
        return ["tile", cell, t, str(a["rot"] * 90)]
    if op == "remove_tile":
        return ["tile", cell, "--remove"]
    if op in ("add_figure", "move_figure", "remove_figure", "recolour_figure"):
        words = [a["kind"], cell] + ([a["player"]] if a.get("player") else [])
        if op == "move_figure" and a["kind"] == "sheriff":
            to = a["to"]
            return ["sheriff", f"{to['x']},{to['y']}", to["at"]]
        if op == "move_figure" and (a["to"]["x"], a["to"]["y"]) == (a["x"], a["y"]):
            return words + [a["to"]["at"], "--from-at", a["at"]]
        words.append(a["at"])
        if op == "move_figure":
            return words + ["--move-to", f"{a['to']['x']},{a['to']['y']}:{a['to']['at']}"]
        if op == "remove_figure":
            return words + ["--remove"]
        if op == "recolour_figure":
            return words + ["--colour", a["colour"]]
        return words
    if op == "set_gold":
        return ["gold", cell, str(a["count"])]
    if op == "set_ore":
        return ["ore", cell, a["at"], str(a["count"])]
    if op == "set_players":
        return ["players", ",".join(a["players"])]
    if op == "set_active":
        return ["active", a["player"] or "none"]
    if op == "set_last_placed":
        return ["last", "none" if a.get("x") is None else cell]
    if op == "set_track":
        return ["track", ",".join(f"{c}={v}" for c, v in a["points"].items())]
    if op == "set_held":
        return ["held", a["player"]] + [f"{k}={v}" for k, v in a.items() if k != "player"]
    return []


def fix_command(op: str, args: dict[str, Any], board_path: str = "BOARD") -> str:
    """The shell command that makes a correction: ``scorer fix BOARD tile 2,-1 K 90``."""
    words = fix_words(op, args)
    return " ".join(shlex.quote(w) for w in ["scorer", "fix", str(board_path)] + words) if words else ""


# --------------------------------------------------------------------------- board files


@dataclass
class BoardFile:
    """A board file as read for editing.

    Attributes
    ----------
    path : Path
    text : str
        The file's exact content.
    form : {"json", "notation"}
    board : Board
        The board, with the file's history in ``board.extra["history"]``.
    header : str
        Notation files: the leading comment lines, written back unchanged.
    """

    path: Path
    text: str
    form: str
    board: Board
    header: str = ""
    #: The file's line ending (``"\r\n"`` for a file written on Windows) and byte-order mark.
    newline: str = "\n"
    bom: str = ""

    @property
    def canonical(self) -> bool:
        """Whether the file is exactly what :meth:`render` writes for its board."""
        return self.render(self.board) == self.text

    def render(self, board: Board) -> str:
        """The file text for ``board`` in this file's form (its line endings and byte-order mark kept)."""
        if self.form == "json":
            text = board.to_json()
        else:
            from .notation import format_notation

            lines = [NOTATION_HISTORY + json.dumps(e, separators=(",", ":")) for e in history(board)]
            tail = ("\n".join(lines) + "\n") if lines else ""
            text = self.header + format_notation(board) + tail
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return self.bom + text


def read_board_file(path: str | Path, *, tile_sets: Iterable[str | Path | TileSet] = ()) -> BoardFile:
    """Read a board file (JSON or text notation) with its history, for editing.

    Raises
    ------
    BoardFormatError
        The file cannot be read or is malformed (the message names the file and field/line).
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")  # bytes: line endings are kept as written
    except UnicodeDecodeError:
        raise BoardFormatError(f"{path}: not a text file (a board is JSON or text notation)") from None
    except OSError as exc:
        raise BoardFormatError(f"cannot read board {str(path)!r}: {exc.strerror or exc}") from None
    return _parse_board_text(path, text, tile_sets)


def _parse_board_text(path: Path, text: str, tile_sets: Iterable) -> BoardFile:
    tile_sets = list(tile_sets)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    newline = "\r\n" if "\r\n" in text else "\n"
    body = text[len(bom):].replace("\r\n", "\n")
    if looks_like_json(body):
        try:
            board = Board.from_json(body, tile_sets=tile_sets)
        except BoardFormatError as exc:
            raise BoardFormatError(f"{path.name}: {exc}") from None
        hist = board.extra.get("history")
        if hist is not None and not isinstance(hist, list):
            raise BoardFormatError(f"{path.name}: 'history' must be a list of changes, got {_short(hist)}")
        return BoardFile(path, text, "json", board, newline=newline, bom=bom)
    from .errors import NotationError
    from .notation import parse_notation

    try:
        board = parse_notation(body, tile_sets=tile_sets)
    except NotationError as exc:
        raise NotationError(f"{path.name}: {exc}") from None
    lines = body.splitlines(keepends=True)
    header = []
    for line in lines:
        if line.strip() and not line.startswith("#") or line.startswith(NOTATION_HISTORY):
            break
        header.append(line)
    hist = []
    for n, line in enumerate(lines, 1):
        if line.startswith(NOTATION_HISTORY):
            try:
                hist.append(json.loads(line[len(NOTATION_HISTORY):]))
            except json.JSONDecodeError:
                raise BoardFormatError(f"{path.name}: line {n}: the history entry is not JSON; "
                                       "repair or delete that line") from None
    if hist:
        board.extra["history"] = hist
    return BoardFile(path, text, "notation", board, "".join(header), newline=newline, bom=bom)


def correct_file(path: str | Path, op: str, args: dict[str, Any], *,
                 tile_sets: Iterable[str | Path | TileSet] = ()) -> tuple[Board, Board, dict | None]:
    """Apply one correction to a board file and save it atomically.

    Parameters
    ----------
    path : str or Path
        The board file (JSON or text notation); written only when the change is valid.
    op, args
        The correction (see :func:`apply_correction`).
    tile_sets : iterable
        User tile sets (``--tiles``).

    Returns
    -------
    before : Board
    after : Board
    entry : dict or None
        The history entry written, or ``None`` when nothing changed (the file is
        not written then).

    Raises
    ------
    ScorerError
        The file cannot be read, or the correction is invalid; the file is unchanged.
    """
    bf = read_board_file(path, tile_sets=tile_sets)
    after = apply_correction(bf.board, op, args, form=bf.form)
    if after is bf.board:
        return bf.board, after, None
    entry = history(after)[-1]
    if not bf.canonical:
        entry["file"] = bf.text
    write_atomic(bf.path, bf.render(after))
    log.info("%s: %s", bf.path, describe_entry(entry))
    return bf.board, after, entry


def undo_file(path: str | Path, steps: int = 1, *,
              tile_sets: Iterable[str | Path | TileSet] = ()) -> tuple[Board, Board, list[dict]]:
    """Revert the last ``steps`` changes of a board file and save it atomically.

    The file gets back the exact text it had before those changes.

    Returns
    -------
    before : Board
    after : Board
    undone : list of dict
        The reverted history entries, newest first.

    Raises
    ------
    ScorerError
        The file has fewer recorded changes than ``steps``; the file is unchanged.
    """
    bf = read_board_file(path, tile_sets=tile_sets)
    _check_steps(bf.board, steps)
    cur, undone = bf, []
    for _ in range(steps):
        entry = history(cur.board)[-1]
        if isinstance(entry.get("file"), str):
            d = cur.board.to_dict()
            try:  # only when the board still shows what the change left
                _revert(d, entry)
            except _HandEdited as exc:
                raise _refused(entry, exc) from None
            earlier = _parse_board_text(bf.path, entry["file"], tile_sets)
            plain = {k: v for k, v in d.items() if k != "history"}
            if plain == {k: v for k, v in earlier.board.to_dict().items() if k != "history"}:
                cur = earlier  # the exact earlier text
            else:  # edited by hand elsewhere since: keep those edits, give up the exact text
                d.pop("history", None)
                if history(cur.board)[:-1]:
                    d["history"] = history(cur.board)[:-1]
                board = _rebuild(d, cur.board, "undo")
                cur = BoardFile(bf.path, cur.render(board), cur.form, board, cur.header, cur.newline, cur.bom)
        else:
            board = undo(cur.board)
            cur = BoardFile(bf.path, cur.render(board), cur.form, board, cur.header, cur.newline, cur.bom)
        undone.append(entry)
    write_atomic(bf.path, cur.text)
    return bf.board, cur.board, undone


# --------------------------------------------------------------------------- suggestions


def suggest_corrections(board: Board, claimed: dict[str, int], mode: str = "final", *,
                        max_scorings: int = MAX_SCORINGS) -> list[dict[str, Any]]:
    """Single corrections that would make the computed totals equal the claims.

    Candidates, in this order: the runners-up of the least confident detections
    first (a tile's alternative tile/rotation, a figure's alternative location or
    colour); then every figure (least confident first) in another colour or on
    another feature of its tile (a farmer on another field); then every tile in
    another rotation; then every figure removed.  Each is re-scored; the work
    stops after ``max_scorings`` scorings (one scoring takes about 1 ms).

    Parameters
    ----------
    board : Board
        The board as read (``track`` holds the points already scored).
    claimed : dict colour -> int
        The totals (points) the players say they have.
    mode : {"final", "completed"}
        Scoring mode, as in :func:`scorer.verify.verify`.
    max_scorings : int
        Cap on the number of re-scorings.

    Returns
    -------
    list of dict
        In the order found: ``op``, ``args`` (apply with :func:`apply_correction`),
        ``totals`` (colour -> total points after the correction), ``description``
        (one line) and ``command`` (the ``scorer fix BOARD ...`` line).  Empty
        when the claims already match or nothing single explains them.
    """
    from .scoring import score

    def matches(report) -> dict[str, int] | None:
        totals = {c: t["total"] for c, t in report.totals().items()}
        ok = all(totals.get(c, board.track.get(c, 0)) == v for c, v in claimed.items())
        return totals if ok else None

    if matches(score(board, mode)) is not None:
        return []
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    used = 0
    for op, args in _candidates(board, claimed):
        key = json.dumps([op, args], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        if used >= max_scorings:
            log.info("suggest_corrections: stopped after %d scorings", used)
            break
        trial = _quick_apply(board, op, args)
        if trial is None:
            continue
        used += 1
        try:
            totals = matches(score(trial, mode))
        except ScorerError:
            continue
        if totals is None:
            continue
        try:  # the suggestion must also pass the full checks
            after = apply_correction(board, op, args)
        except ScorerError:
            continue
        entry = history(after)[-1]
        out.append({"op": entry["op"], "args": entry["args"], "totals": totals,
                    "description": describe(entry["op"], entry["args"], entry["before"]),
                    "command": fix_command(entry["op"], entry["args"])})
    log.debug("suggest_corrections: %d scorings, %d found", used, len(out))
    return out


def _confidence(extra: dict) -> float:
    c = extra.get("confidence", 1.0)
    return float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else 1.0


def _figures(board: Board) -> list[tuple[str, Figure]]:
    figs = [("meeple", f) for f in board.meeples] + [("tent", f) for f in board.tents]
    if board.sheriff is not None:
        figs.append(("sheriff", board.sheriff))
    return figs


def _fig_args(kind: str, f: Figure) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "x": f.x, "y": f.y, "at": f.at}
    if f.player is not None:
        out["player"] = f.player
    return out


def alternatives_of(kind: str, item: Placement | Figure) -> list[tuple[dict, float | None]]:
    """A detection's runners-up as corrections: ``[((op, args), confidence), ...]``, best first.

    Tiles: ``alternatives`` ``[{"tile", "rot", "confidence"}]`` -> ``set_tile``.
    Figures: ``alternatives`` ``[{"at", "confidence"}]`` (optionally ``x``, ``y``)
    -> ``move_figure``; ``colour_alternatives`` (``[{"player"|"colour", "confidence"}]``
    or colour names) -> ``recolour_figure``.  Malformed entries are skipped.
    """
    out: list[tuple[dict, float | None]] = []
    alts = item.extra.get("alternatives") or []
    if kind == "tile":
        for a in alts if isinstance(alts, list) else []:
            if isinstance(a, dict) and a.get("tile") is not None:
                out.append(({"op": "set_tile", "args": {"x": item.x, "y": item.y, "tile": a["tile"],
                                                        "rot": a.get("rot", 0)}}, a.get("confidence")))
        return out
    base = _fig_args(kind, item)
    for a in alts if isinstance(alts, list) else []:
        if isinstance(a, dict) and a.get("at"):
            to = {"x": a.get("x", item.x), "y": a.get("y", item.y), "at": a["at"]}
            out.append(({"op": "move_figure", "args": {**base, "to": to}}, a.get("confidence")))
    cols = item.extra.get("colour_alternatives") or []
    for a in cols if isinstance(cols, list) else []:
        colour = a if isinstance(a, str) else (a.get("player") or a.get("colour")) if isinstance(a, dict) else None
        if colour and colour != item.player and kind != "sheriff":
            conf = a.get("confidence") if isinstance(a, dict) else None
            out.append(({"op": "recolour_figure", "args": {**base, "colour": colour}}, conf))
    return out


def _candidates(board: Board, claimed: dict[str, int]) -> Iterator[tuple[str, dict[str, Any]]]:
    detections: list[tuple[float, int, str, Any]] = []
    for i, p in enumerate(board.tiles.values()):
        detections.append((_confidence(p.extra), i, "tile", p))
    for i, (kind, f) in enumerate(_figures(board)):
        detections.append((_confidence(f.extra), len(board.tiles) + i, kind, f))
    detections.sort(key=lambda d: (d[0], d[1]))
    # 1. runners-up of the least confident detections
    for conf, _, kind, item in detections:
        if conf >= 1.0:
            break
        for alt, _c in alternatives_of(kind, item):
            yield alt["op"], alt["args"]
    colours = list(dict.fromkeys(board.colours() + list(claimed)))
    figures = [(kind, f) for _, _, kind, f in detections if kind in ("meeple", "tent")]
    # 2. every figure in another colour, or on another feature of its tile
    for kind, f in figures:
        base = _fig_args(kind, f)
        for c in colours:
            if c != f.player:
                yield "recolour_figure", {**base, "colour": c}
        p = board.tiles.get(f.cell)
        if p is None:
            continue
        o = p.tile.turned(p.rot)
        mine = o.locate(f.at)
        done = {mine}
        for loc in LOCATIONS:
            idx = o.locate(loc)
            if idx is not None and idx not in done:
                done.add(idx)
                yield "move_figure", {**base, "to": {"x": f.x, "y": f.y, "at": loc}}
    # 3. every tile turned
    for _, _, kind, p in detections:
        if kind != "tile":
            continue
        same = {(p.rot + s) % 4 for s in p.tile.symmetries()} | {p.rot}
        for r in range(4):
            if r not in same:
                yield "set_tile", {"x": p.x, "y": p.y, "tile": p.inline if p.inline is not None else p.tile.id,
                                   "rot": r}
    # 4. a figure that is not there
    for kind, f in figures:
        yield "remove_figure", _fig_args(kind, f)


def _quick_apply(board: Board, op: str, args: dict[str, Any]) -> Board | None:
    """A cheap trial board for a candidate (no history, no full checks); ``None`` if impossible."""
    try:
        if op == "set_tile":
            cell = (args["x"], args["y"])
            old = board.tiles.get(cell)
            tile_ref = args["tile"]
            if isinstance(tile_ref, dict) or tile_ref not in board.catalog:
                return None
            tile = board.catalog[tile_ref]
            rot = parse_rot(args["rot"])
            o = tile.turned(rot)
            for _, f in _figures(board):
                if f.cell == cell and o.locate(f.at) is None:
                    return None
            if any(s.cell == cell and s.at is not None and o.locate(s.at) is None for s in board.ore):
                return None
            tiles = dict(board.tiles)
            tiles[cell] = Placement(cell[0], cell[1], tile, rot, None, dict(old.extra) if old else {})
            return dataclasses.replace(board, tiles=tiles)
        if op in ("move_figure", "recolour_figure", "remove_figure"):
            kind = args["kind"]
            if kind == "sheriff":
                return None if op != "move_figure" else _quick_sheriff(board, args)
            field_name = FIGURE_FIELDS[kind]
            figs = list(getattr(board, field_name))
            idx = next((i for i, f in enumerate(figs) if (f.x, f.y, f.at) == (args["x"], args["y"], args["at"])
                        and (args.get("player") is None or f.player == args["player"])), None)
            if idx is None:
                return None
            f = figs[idx]
            if op == "remove_figure":
                del figs[idx]
            elif op == "recolour_figure":
                if args["colour"] not in COLOURS:
                    return None
                figs[idx] = Figure(args["colour"], f.x, f.y, f.at, f.extra)
            else:
                to = args["to"]
                p = board.tiles.get((to["x"], to["y"]))
                if p is None or p.tile.turned(p.rot).locate(to["at"]) is None:
                    return None
                figs[idx] = Figure(f.player, to["x"], to["y"], to["at"], f.extra)
            return dataclasses.replace(board, **{field_name: figs})
    except (KeyError, TypeError, ScorerError):
        return None
    return None


def _quick_sheriff(board: Board, args: dict[str, Any]) -> Board | None:
    to = args["to"]
    p = board.tiles.get((to["x"], to["y"]))
    if board.sheriff is None or p is None or p.tile.turned(p.rot).locate(to["at"]) is None:
        return None
    return dataclasses.replace(board, sheriff=Figure(None, to["x"], to["y"], to["at"], board.sheriff.extra))
