"""``scorer fix``, ``scorer undo``, ``scorer review`` and ``scorer sheet``: after the photo.

A thin click layer over :mod:`scorer.corrections`, :mod:`scorer.review` and
:mod:`scorer.sheet`.  Every change is saved atomically and recorded in the
board file's history (``scorer undo`` reverts it), then the board is re-scored
and the compact score table printed.  Any :class:`scorer.errors.ScorerError`
becomes one ``error: ...`` line on stderr and exit status 2, and the board file
is left unchanged.

Grammar of ``scorer fix BOARD WHAT ...`` (cells ``X,Y`` with ``x`` east and ``y``
south, negative numbers allowed: ``-1,2``; colours and locations in any case and
any order after the cell)::

    tile X,Y ID [ROT]                 place or replace a tile; ID "." keeps the tile and turns it
    tile X,Y --remove                 remove a tile and what stands on it
    meeple X,Y COLOUR LOC             add a meeple (cowboy in Gold Rush)
    meeple X,Y [COLOUR] LOC --remove
    meeple X,Y [COLOUR] LOC --colour NEW
    meeple X,Y [COLOUR] LOC --from-at OLD      move it on its tile from OLD to LOC
    meeple X,Y [COLOUR] LOC --move-to X2,Y2[:LOC2]
    tent ...                          as meeple
    sheriff X,Y LOC | sheriff --remove
    gold X,Y COUNT                    gold bars on a tile (0 removes them)
    ore X,Y LOC COUNT                 face-down ore tokens on a mountain (0 removes them)
    players red,blue,green            turn order
    active COLOUR | active none
    last X,Y | last none              the tile placed this turn
    track red=37[,blue=52]            score-track points, laps included
    held COLOUR gold_bars=N [ore_points=N] [ore_tokens=N]

``ROT`` is the clockwise turn: 0, 90, 180 or 270 degrees, or 0-3 quarter turns.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .cliutil import handle_errors
from .errors import ScorerError

EXIT_BAD_INPUT = 2
_WORDS = {"context_settings": {"ignore_unknown_options": True}}


#: Turn a domain error into one ``error:`` line on stderr and exit status 2.
_exit_on_scorer_error = handle_errors


def _common(func):
    """``--final`` and ``--tiles`` on every command that re-scores."""
    func = click.option("--tiles", "tile_files", multiple=True, type=click.Path(dir_okay=False),
                        help="A tile-set file describing your own box (carcassonne-tiles/1); may be repeated.")(func)
    func = click.option("--final", is_flag=True,
                        help="Re-score as the end of the game (default: what the last tile completed).")(func)
    return func


def _mode(final: bool) -> str:
    return "final" if final else "completed"


def _show(before, after, final: bool, board_path: str = "BOARD") -> None:
    from .scoring import score
    from .sheet import format_summary

    mode = _mode(final)
    click.echo(format_summary(score(after, mode), score(before, mode) if before is not None else None,
                              board_path=board_path), nl=False)
    if not final:
        click.echo("(scored mid-game: what the last tile completed; add --final to the command to score "
                   "the end of the game)")


def _apply(ctx: click.Context, op: str, args: dict[str, Any], final: bool, tile_files: tuple[str, ...]) -> None:
    from .corrections import correct_file, describe_entry

    path = ctx.obj["board_path"]
    try:
        before, after, entry = correct_file(path, op, args, tile_sets=tile_files)
    except ScorerError as exc:  # name the real file in the commands the message suggests
        raise ScorerError(_with_path(str(exc), path)) from None
    if entry is None:
        click.echo("nothing changed: the board already says so")
        return
    click.echo(f"{describe_entry(entry)}  (saved; undo: scorer undo {path})")
    _show(before, after, final, path)


def _with_path(message: str, path: str) -> str:
    import shlex

    return message.replace("scorer fix BOARD ", f"scorer fix {shlex.quote(str(path))} ")


def _split_words(words: tuple[str, ...], what: str) -> tuple[str | None, str | None, list[str]]:
    """Sort the words after the cell into a colour, a location and the rest."""
    from .geometry import LOCATIONS

    from .corrections import parse_colour

    colour = loc = None
    rest = []
    for w in words:
        if w.upper() in LOCATIONS and loc is None:
            loc = w.upper()
        elif w.isalpha() and colour is None and w.upper() not in LOCATIONS:
            colour = parse_colour(w, f"{what} colour")
        else:
            rest.append(w)
    return colour, loc, rest


def _no_more(rest: list[str], usage: str) -> None:
    if rest:
        raise ScorerError(f"unexpected {' '.join(repr(r) for r in rest)}; usage: scorer fix BOARD {usage}")


# --------------------------------------------------------------------------- fix


@click.group("fix")
@click.argument("board_path", metavar="BOARD", type=click.Path(dir_okay=False))
@click.pass_context
def fix(ctx: click.Context, board_path: str) -> None:
    """Correct BOARD (board JSON or text notation) and re-score it.

    Every change is saved atomically and recorded in the file, so
    `scorer undo BOARD` reverts it.  Cells are X,Y (x east, y south, e.g. -1,2);
    ROT is 0/90/180/270 degrees clockwise or 0-3 quarter turns.

    \b
    Examples:
      scorer fix board.json tile 2,-1 K 90
      scorer fix board.json tile 2,-1 --remove
      scorer fix board.json meeple 1,0 red SL
      scorer fix board.json meeple 1,0 SL --colour blue
      scorer fix board.json meeple 1,0 red SR --from-at NL
      scorer fix board.json gold 1,0 2
      scorer fix board.json track red=37,blue=52
    """
    ctx.ensure_object(dict)
    ctx.obj["board_path"] = board_path


@fix.command("tile", **_WORDS)
@click.argument("cell", metavar="X,Y")
@click.argument("words", nargs=-1, metavar="[ID] [ROT]")
@click.option("--remove", is_flag=True, help="Remove the tile and the figures and tokens on it.")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_tile(ctx, cell: str, words: tuple[str, ...], remove: bool, final: bool, tile_files) -> None:
    """Place, replace or turn the tile on X,Y (ID "." keeps the tile), or --remove it."""
    from .corrections import parse_cell

    x, y = parse_cell(cell)
    if remove:
        _no_more(list(words), f"tile {cell} --remove")
        _apply(ctx, "remove_tile", {"x": x, "y": y}, final, tile_files)
        return
    if not words or len(words) > 2:
        raise ScorerError(f"give the tile id and its rotation: scorer fix BOARD tile {cell} ID ROT "
                          "(ROT 0/90/180/270 degrees or 0-3 quarter turns; ID '.' keeps the tile)")
    args: dict[str, Any] = {"x": x, "y": y, "tile": words[0]}
    if len(words) == 2:
        args["rot"] = words[1]
    _apply(ctx, "set_tile", args, final, tile_files)


def _figure_command(kind: str):
    @click.argument("cell", metavar="X,Y")
    @click.argument("words", nargs=-1, metavar="[COLOUR] LOC")
    @click.option("--remove", is_flag=True, help=f"Remove the {kind}.")
    @click.option("--colour", "--color", "new_colour", metavar="COLOUR", help=f"Give the {kind} this colour.")
    @click.option("--from-at", "from_at", metavar="LOC", help=f"Move the {kind} on its tile from LOC to the given LOC.")
    @click.option("--move-to", "move_to", metavar="X,Y[:LOC]", help=f"Move the {kind} to another cell and/or location.")
    @_common
    @click.pass_context
    @_exit_on_scorer_error
    def command(ctx, cell, words, remove, new_colour, from_at, move_to, final, tile_files):
        from .corrections import parse_cell, parse_location

        x, y = parse_cell(cell)
        colour, loc, rest = _split_words(words, kind)
        _no_more(rest, f"{kind} {cell} [COLOUR] LOC [--remove | --colour C | --from-at LOC | --move-to X,Y:LOC]")
        if loc is None:
            raise ScorerError(f"say where the {kind} stands on {cell}: a location N E S W NL NR EL ER SL SR WL WR C "
                              f"(e.g. scorer fix BOARD {kind} {cell} red SL)")
        base: dict[str, Any] = {"kind": kind, "x": x, "y": y, "at": loc}
        if colour is not None:
            base["player"] = colour
        chosen = [n for n, v in (("--remove", remove), ("--colour", new_colour), ("--from-at", from_at),
                                 ("--move-to", move_to)) if v]
        if len(chosen) > 1:
            raise ScorerError(f"use one of {', '.join(chosen)} at a time")
        if remove:
            _apply(ctx, "remove_figure", base, final, tile_files)
        elif new_colour:
            _apply(ctx, "recolour_figure", {**base, "colour": new_colour}, final, tile_files)
        elif from_at:
            src = {**base, "at": parse_location(from_at), "to": {"x": x, "y": y, "at": loc}}
            _apply(ctx, "move_figure", src, final, tile_files)
        elif move_to:
            _apply(ctx, "move_figure", {**base, "to": _parse_target(move_to, x, y, loc)}, final, tile_files)
        else:
            if colour is None:
                raise ScorerError(f"say whose {kind} it is: scorer fix BOARD {kind} {cell} COLOUR {loc} "
                                  "(or --remove, --colour, --from-at, --move-to to change one)")
            _apply(ctx, "add_figure", base, final, tile_files)

    command.__doc__ = (f"Add a {kind} (X,Y COLOUR LOC), or change the one at X,Y LOC: --remove, --colour NEW, "
                       f"--from-at OLD (move on the tile), --move-to X2,Y2[:LOC2].")
    return command


def _parse_target(text: str, x: int, y: int, loc: str) -> dict[str, Any]:
    from .corrections import parse_cell, parse_location

    text = text.strip()
    if "," not in text:
        return {"x": x, "y": y, "at": parse_location(text)}
    cell_part, _, at = text.replace(" ", ":").partition(":")
    tx, ty = parse_cell(cell_part)
    return {"x": tx, "y": ty, "at": parse_location(at) if at else loc}


fix.command("meeple", **_WORDS)(_figure_command("meeple"))
fix.command("tent", **_WORDS)(_figure_command("tent"))


@fix.command("sheriff", **_WORDS)
@click.argument("words", nargs=-1, metavar="X,Y LOC")
@click.option("--remove", is_flag=True, help="Take the Sheriff off the board.")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_sheriff(ctx, words: tuple[str, ...], remove: bool, final: bool, tile_files) -> None:
    """Put the Sheriff on X,Y LOC (moving it if it is elsewhere), or --remove it."""
    from .corrections import parse_cell, parse_location, read_board_file

    board = read_board_file(ctx.obj["board_path"], tile_sets=tile_files).board
    sh = board.sheriff
    if remove:
        if sh is None:
            click.echo("nothing changed: the Sheriff is not on the board")
            return
        _apply(ctx, "remove_figure", {"kind": "sheriff", "x": sh.x, "y": sh.y, "at": sh.at}, final, tile_files)
        return
    if len(words) != 2:
        raise ScorerError("usage: scorer fix BOARD sheriff X,Y LOC (or sheriff --remove)")
    x, y = parse_cell(words[0])
    at = parse_location(words[1])
    if sh is None:
        _apply(ctx, "add_figure", {"kind": "sheriff", "x": x, "y": y, "at": at}, final, tile_files)
    else:
        _apply(ctx, "move_figure", {"kind": "sheriff", "x": sh.x, "y": sh.y, "at": sh.at,
                                    "to": {"x": x, "y": y, "at": at}}, final, tile_files)


@fix.command("gold", **_WORDS)
@click.argument("cell", metavar="X,Y")
@click.argument("count", metavar="COUNT")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_gold(ctx, cell: str, count: str, final: bool, tile_files) -> None:
    """Set the number of Goldmines gold bars lying on the tile X,Y (0 removes them)."""
    from .corrections import parse_cell

    x, y = parse_cell(cell)
    _apply(ctx, "set_gold", {"x": x, "y": y, "count": _count(count, "gold bars")}, final, tile_files)


@fix.command("ore", **_WORDS)
@click.argument("cell", metavar="X,Y")
@click.argument("loc", metavar="LOC")
@click.argument("count", metavar="COUNT")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_ore(ctx, cell: str, loc: str, count: str, final: bool, tile_files) -> None:
    """Set the number of face-down ore tokens on the mountain at X,Y LOC (0 removes them)."""
    from .corrections import parse_cell

    x, y = parse_cell(cell)
    _apply(ctx, "set_ore", {"x": x, "y": y, "at": loc, "count": _count(count, "ore tokens")}, final, tile_files)


def _count(text: str, what: str) -> int:
    from .board import short

    if not text.strip().isdigit():
        raise ScorerError(f"the number of {what} must be a whole number 0 or more, got {short(text)}")
    if len(text.strip()) > 12:
        raise ScorerError(f"the number of {what} is far too large ({short(text.strip(), 20)}); "
                          "at most 100 lie on a tile")
    return int(text)


@fix.command("players", **_WORDS)
@click.argument("colours", nargs=-1, required=True, metavar="COLOURS")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_players(ctx, colours: tuple[str, ...], final: bool, tile_files) -> None:
    """Set the players in clockwise turn order: red,blue,green (or red blue green)."""
    _apply(ctx, "set_players", {"players": " ".join(colours)}, final, tile_files)


@fix.command("active", **_WORDS)
@click.argument("colour", metavar="COLOUR")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_active(ctx, colour: str, final: bool, tile_files) -> None:
    """Set the player whose turn it is (who placed the last tile); 'none' clears it."""
    _apply(ctx, "set_active", {"player": None if colour.lower() == "none" else colour}, final, tile_files)


@fix.command("last", **_WORDS)
@click.argument("cell", metavar="X,Y")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_last(ctx, cell: str, final: bool, tile_files) -> None:
    """Set the tile placed this turn (what mid-game scoring scores); 'none' clears it."""
    from .corrections import parse_cell

    if cell.lower() == "none":
        _apply(ctx, "set_last_placed", {"x": None, "y": None}, final, tile_files)
        return
    x, y = parse_cell(cell)
    _apply(ctx, "set_last_placed", {"x": x, "y": y}, final, tile_files)


@fix.command("track", **_WORDS)
@click.argument("points", nargs=-1, required=True, metavar="COLOUR=POINTS...")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_track(ctx, points: tuple[str, ...], final: bool, tile_files) -> None:
    """Set score-track points, laps included: red=37,blue=52 (a marker on 12 after two laps is 112)."""
    _apply(ctx, "set_track", {"points": _pairs(points, "track", "red=37,blue=52")}, final, tile_files)


@fix.command("held", **_WORDS)
@click.argument("colour", metavar="COLOUR")
@click.argument("counts", nargs=-1, required=True, metavar="KEY=COUNT...")
@_common
@click.pass_context
@_exit_on_scorer_error
def fix_held(ctx, colour: str, counts: tuple[str, ...], final: bool, tile_files) -> None:
    """Set what a player holds: gold_bars=N, ore_points=N (revealed ore), ore_tokens=N."""
    _apply(ctx, "set_held", {"player": colour, **_pairs(counts, "held", "gold_bars=3")}, final, tile_files)


def _pairs(words: tuple[str, ...], what: str, example: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in " ".join(words).replace(",", " ").split():
        key, sep, value = part.partition("=")
        if not sep or not key or not value:
            raise ScorerError(f"{what}: expected KEY=NUMBER like {example}, got {part!r}")
        out[key.strip().lower()] = value.strip()
    return out


# --------------------------------------------------------------------------- undo


@click.command("undo")
@click.argument("board_path", metavar="BOARD", type=click.Path(dir_okay=False))
@click.option("--steps", default=1, show_default=True, type=int, help="How many changes to revert, newest first.")
@click.option("--list", "list_only", is_flag=True, help="List the recorded changes and revert nothing.")
@_common
@_exit_on_scorer_error
def undo(board_path: str, steps: int, list_only: bool, final: bool, tile_files) -> None:
    """Revert the last change(s) made to BOARD by scorer fix or scorer review."""
    from .corrections import describe_entry, history, read_board_file, undo_file

    if list_only:
        entries = history(read_board_file(board_path, tile_sets=tile_files).board)
        if not entries:
            click.echo("no recorded changes")
        for n, e in enumerate(entries, 1):
            click.echo(f"{n:3d}  {describe_entry(e)}")
        return
    before, after, undone = undo_file(board_path, steps, tile_sets=tile_files)
    for e in undone:
        click.echo(f"undone: {describe_entry(e)}")
    _show(before, after, final, board_path)


# --------------------------------------------------------------------------- review


def _read_key(interactive: bool) -> str:
    """One answer: a key press on a terminal, else a line of input (empty = enter)."""
    if interactive:
        click.echo("> ", nl=False)
        ch = click.getchar()
        if ch in ("\r", "\n"):
            click.echo("enter")
            return ""
        click.echo(ch if ch.isprintable() else repr(ch))
        return ch.lower()
    try:
        return click.prompt("", default="", show_default=False, prompt_suffix="> ").strip().lower()
    except click.Abort:
        return "q"


@click.command("review")
@click.argument("board_path", metavar="BOARD", type=click.Path(dir_okay=False))
@click.option("--all", "everything", is_flag=True, help="Walk every tile and figure, also the sure and typed ones.")
@click.option("--below", "threshold", default=1.0, show_default=True, type=float,
              help="Walk the detections whose confidence is below this (0-1).")
@click.option("--no-images", is_flag=True, help="Do not save a picture per detection.")
@_common
@_exit_on_scorer_error
def review(board_path: str, everything: bool, threshold: float, no_images: bool, final: bool, tile_files) -> None:
    """Check what a photo reading is least sure of, one detection at a time.

    For each: the cell, what was read, the alternatives numbered, and a saved
    picture (PHOTO.review/cell_X_Y.png: the cell cut from the photo, as read,
    each alternative).  Keys: 1-9 pick an alternative, enter accepts what was
    read, r removes it, s skips, q quits.  Every change is saved at once and
    can be undone with scorer undo.
    """
    from .corrections import correct_file, describe_entry, read_board_file
    from .review import find_item, load_photo_view, review_dir, review_items, write_review_image

    board = read_board_file(board_path, tile_sets=tile_files).board
    start = board
    items = review_items(board, threshold=threshold, everything=everything)
    if not items:
        typed = not any("confidence" in e for e in (board.to_dict().get("tiles") or []))
        click.echo("Nothing to review: " + ("this board has no detection confidences (a typed board); "
                                            "use --all to walk every tile and figure" if typed else
                                            f"every detection is at least {threshold:g} sure."))
        _show(None, board, final, board_path)
        return
    photo = None if no_images else load_photo_view(board, board_path)
    folder = review_dir(board_path)
    interactive = sys.stdin.isatty()
    click.echo(f"{len(items)} detection(s) to check, least sure first. "
               "Keys: 1-9 pick, enter accept, r remove, s skip, q quit.")
    changed = 0
    for n, first in enumerate(items, 1):
        item = find_item(board, first.key)
        if item is None:  # gone with an earlier change (a removed tile takes its figures)
            continue
        click.echo("")
        conf = f", confidence {item.confidence:.2f}" if item.confidence is not None else ""
        click.echo(f"[{n}/{len(items)}] {item.title()}: read {item.read}{conf}")
        for k, choice in enumerate(item.choices, 1):
            c = f"  ({choice.confidence:.2f})" if choice.confidence is not None else ""
            click.echo(f"  {k}  {choice.label}{c}")
        if not no_images:
            click.echo(f"  picture: {write_review_image(board, item, folder, photo)}")
        quit_now = False
        while True:
            key = _read_key(interactive)
            if key == "q":
                quit_now = True
                break
            if key == "s":
                break
            if key == "":
                op, args = item.confirm()
            elif key == "r":
                op, args = item.remove()
            elif key.isdigit() and 1 <= int(key) <= len(item.choices):
                choice = item.choices[int(key) - 1]
                op, args = choice.op, choice.args
            else:
                picks = "1" if len(item.choices) == 1 else f"1-{len(item.choices)}"
                click.echo(f"  keys: {picks} pick, enter accept, r remove, s skip, q quit"
                           if item.choices else "  keys: enter accept, r remove, s skip, q quit")
                continue
            try:
                _, board, entry = correct_file(board_path, op, args, tile_sets=tile_files)
            except ScorerError as exc:
                click.echo(f"  cannot: {_with_path(str(exc), board_path)}")
                continue
            if entry is not None:
                changed += 1
                click.echo(f"  -> {describe_entry(entry)}")
            else:
                click.echo("  ok (nothing to change)")
            break
        if quit_now:
            break
    click.echo("")
    click.echo(f"{changed} change(s) saved" + (f"; undo with scorer undo {board_path} --steps {changed}"
                                                if changed else "") + ".")
    _show(start, board, final, board_path)


# --------------------------------------------------------------------------- sheet


@click.command("sheet")
@click.argument("board_path", metavar="BOARD", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The sheet to write: .html (self-contained page) or .png (picture).")
@click.option("--title", help="Heading of the sheet (default: the game and expansions).")
@_common
@_exit_on_scorer_error
def sheet(board_path: str, output: str, title: str | None, final: bool, tile_files) -> None:
    """Write a score sheet to keep: players, totals, the breakdown per feature and the board."""
    from .corrections import read_board_file
    from .scoring import score
    from .sheet import format_summary, write_sheet

    from .cliutil import require_tiles

    board = read_board_file(board_path, tile_sets=tile_files).board
    require_tiles(board, board_path)
    report = score(board, _mode(final))
    path = write_sheet(report, output, title=title, source=Path(board_path).name)
    click.echo(format_summary(report), nl=False)
    click.echo(f"score sheet written to {path}")
