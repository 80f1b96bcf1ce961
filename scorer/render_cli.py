"""``scorer render`` and ``scorer tiles``: board pictures and tile catalogues on the command line.

``render`` draws a board top-down; ``tiles`` lists a tile set, draws one tile or
a contact sheet of the whole set.  Pictures are written atomically as PNG (or
JPEG by the extension of ``-o``).  Any :class:`scorer.errors.ScorerError`
becomes one ``error: ...`` line on stderr and exit status 2, and no file is
written.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import cv2
import numpy as np

from .board import read_board
from .cliutil import check_image_output, handle_errors, require_tiles
from .errors import ScorerError
from .fileio import write_atomic
from .geometry import SIDES
from .render.colours import encode_image
from .render.tileart import tile_image
from .render.topdown import render_board
from .tiles import BUILTIN_SETS, TileSet, TileType, load_tileset


def write_image(path: str | Path, rgb: np.ndarray) -> Path:
    """Encode an RGB picture by the extension of ``path`` and write it atomically.

    Raises
    ------
    ScorerError
        An extension other than ``.png``, ``.jpg``, ``.jpeg``, or an unwritable folder.
    """
    check_image_output(path)
    ext = Path(path).suffix.lower()
    return write_atomic(path, encode_image(rgb, ext))


@click.command("render")
@click.argument("board", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Picture to write (.png or .jpg).")
@click.option("--tile-px", default=128, show_default=True, type=click.IntRange(16, 1024),
              help="Side of one tile in pixels.")
@click.option("--art-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of real tile art (files named by the tiles' 'art' key) instead of drawn tiles.")
@click.option("--no-figures", is_flag=True, help="Draw the tiles only.")
@click.option("--margin", default=0, show_default=True, type=click.IntRange(0, 4096),
              help="Table border around the tiles, in pixels.")
@click.option("--tiles", "tile_sets", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Extra tile-set file for tiles not in the built-in catalogue (repeatable).")
@handle_errors
def render(board: Path, output: Path, tile_px: int, art_dir: Path | None, no_figures: bool, margin: int,
           tile_sets: tuple[Path, ...]) -> None:
    """Draw BOARD (JSON or text notation) top-down: north up, figures on their places."""
    check_image_output(output)
    if art_dir is not None and not art_dir.is_dir():
        raise ScorerError(f"--art-dir {str(art_dir)!r} is not a folder")
    b = read_board(board, tile_sets=tile_sets)
    require_tiles(b, board)
    img, _ = render_board(b, tile_px=tile_px, art_dir=art_dir, figures=not no_figures, margin=margin)
    write_image(output, img)
    click.echo(f"wrote {output} ({img.shape[1]}x{img.shape[0]} px, {len(b.tiles)} tiles)")


@click.command("tiles")
@click.option("--set", "set_name", type=click.Choice(sorted(BUILTIN_SETS)), help="Built-in tile set (default base).")
@click.option("--tiles", "tiles_file", type=click.Path(dir_okay=False, path_type=Path),
              help="A tile-set file (carcassonne-tiles/1) instead of a built-in set.")
@click.option("--json", "as_json", is_flag=True, help="List the set as JSON.")
@click.option("--draw", "draw_id", metavar="ID", help="Draw the tile ID (needs -o).")
@click.option("--rot", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Clockwise quarter turns for --draw.")
@click.option("--sheet", is_flag=True, help="Draw a contact sheet of the whole set with ids (needs -o).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Picture to write.")
@click.option("--size", type=click.IntRange(16, 2048), help="Tile side in pixels [--draw: 256, --sheet: 160].")
@click.option("--art-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder of real tile art; with --sheet each drawn tile is shown beside its real art.")
@handle_errors
def tiles(set_name: str | None, tiles_file: Path | None, as_json: bool, draw_id: str | None, rot: int, sheet: bool,
          output: Path | None, size: int | None, art_dir: Path | None) -> None:
    """List a tile set (id, count, name, sides N E S W, symbols), draw one tile or a contact sheet."""
    if set_name and tiles_file:
        raise ScorerError("give either --set or --tiles, not both")
    if draw_id and sheet:
        raise ScorerError("give either --draw or --sheet, not both")
    if output is not None and not (draw_id or sheet):
        raise ScorerError(f"-o {str(output)!r}: say what to draw, --draw ID or --sheet (the listing is printed)")
    if output is not None:
        check_image_output(output)
    if art_dir is not None and not art_dir.is_dir():
        raise ScorerError(f"--art-dir {str(art_dir)!r} is not a folder")
    ts = load_tileset(tiles_file if tiles_file is not None else (set_name or "base"))
    if draw_id or sheet:
        if output is None:
            raise ScorerError(f"{'--draw' if draw_id else '--sheet'} needs -o FILE for the picture")
        if draw_id:
            if draw_id not in ts.tiles:
                raise ScorerError(f"tile {draw_id!r} is not in tile set {ts.name!r}; ids: {' '.join(ts.tiles)}")
            img = np.ascontiguousarray(np.rot90(tile_image(ts.tiles[draw_id], size or 256, art_dir=art_dir), -rot))
        else:
            img = contact_sheet(ts, size or 160, art_dir=art_dir)
        write_image(output, img)
        click.echo(f"wrote {output} ({img.shape[1]}x{img.shape[0]} px)")
        return
    rows = [tile_row(t) for t in ts.tiles.values()]
    if as_json:
        click.echo(json.dumps({"set": ts.name, "game": ts.game, "expansion": ts.expansion, "total": ts.total,
                               "reconstruction": bool(ts.info.get("reconstruction", False)), "tiles": rows},
                              indent=2, ensure_ascii=False))
        return
    click.echo(format_tiles(ts, rows))


def tile_row(t: TileType) -> dict:
    """One tile as a listing row: id, count, name, sides N/E/S/W and its symbols."""
    attrs: dict[str, object] = {}
    for f in t.features:
        for key, value in f.attrs:
            if isinstance(value, bool):
                attrs[key] = True
            else:
                attrs[key] = int(attrs.get(key, 0)) + value
    for f in t.features:
        if f.kind in ("cloister", "town", "cemetery"):
            attrs[f.kind] = True
    for key in ("gold", "sheriff"):
        if t.meta.get(key):
            attrs[key] = True
    if t.meta.get("start"):
        attrs["start"] = t.meta["start"]
    if t.river:
        attrs["river"] = t.river
    return {"id": t.id, "count": t.count, "name": t.meta.get("name", ""),
            "edges": dict(zip(SIDES, t.edge_signature(0))), "attributes": attrs}


def format_tiles(ts: TileSet, rows: list[dict]) -> str:
    """The listing as a plain-text table."""
    title = ts.info.get("title", ts.name)
    lines = [f"{ts.name}: {title} ({ts.total} tiles, {len(rows)} designs)"]
    sides = [" ".join(r["edges"][s] for s in SIDES) for r in rows]
    extras = [", ".join(k if v is True else f"{k}={v}" for k, v in r["attributes"].items()) for r in rows]
    w_id = max(len(r["id"]) for r in rows)
    w_sides = max(len(s) for s in sides)
    w_extra = max(len(e) for e in extras)
    lines.append(f"{'id':<{w_id}}  {'#':<3}  {'N E S W':<{w_sides}}  {'symbols':<{w_extra}}  name".rstrip())
    for r, sd, ex in zip(rows, sides, extras):
        lines.append(f"{r['id']:<{w_id}}  x{r['count']:<2}  {sd:<{w_sides}}  {ex:<{w_extra}}  {r['name']}".rstrip())
    return "\n".join(lines)


def contact_sheet(ts: TileSet, size: int = 160, *, art_dir: str | Path | None = None, cols: int = 8) -> np.ndarray:
    """Every tile of a set in a grid with its id and count below it.

    Parameters
    ----------
    ts : TileSet
    size : int
        Tile side in pixels.
    art_dir : str or Path, optional
        With real art: each drawn tile is followed by its real art (missing art
        shows a grey square).
    cols : int
        Cells per row.

    Returns
    -------
    (H, W, 3) uint8 ndarray
        RGB sheet.
    """
    pad, label_h = max(4, size // 20), max(14, size // 7)
    cells = []
    for t in ts.tiles.values():
        cells.append((f"{t.id} x{t.count}", tile_image(t, size)))
        if art_dir is not None:
            try:
                real = tile_image(t, size, art_dir=art_dir)
            except ScorerError:
                real = np.full((size, size, 3), 128, np.uint8)
            cells.append((f"{t.id} art", real))
    cols = max(1, min(cols, len(cells)))
    rows = (len(cells) + cols - 1) // cols
    cw, ch = size + 2 * pad, size + 2 * pad + label_h
    sheet = np.full((rows * ch, cols * cw, 3), 236, np.uint8)
    scale = max(0.35, size / 400)
    thick = max(1, round(size / 200))
    for k, (text, img) in enumerate(cells):
        r, c = divmod(k, cols)
        x0, y0 = c * cw + pad, r * ch + pad
        sheet[y0:y0 + size, x0:x0 + size] = img
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        org = (x0 + (size - tw) // 2, y0 + size + (label_h + th) // 2)
        cv2.putText(sheet, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (30, 30, 30), thick, cv2.LINE_AA)
    return sheet
