"""``scorer calibrate``: learn what a tile set looks like from one photo of its tiles.

Thin click layer over :func:`scorer.vision.appearance.calibrate`; the learnt
pictures go to ``$XDG_CONFIG_HOME/scorer/appearance/<name>.npz`` (or ``--out``)
and are used by reading photos with that appearance.
"""

from __future__ import annotations

from pathlib import Path

import click

from .appearance import LAYOUT_HELP


@click.command("calibrate", help=(
    "Learn what the tiles of a set look like from PHOTO, so that photos of your own "
    "edition (other art) are read right.\n\n" + LAYOUT_HELP + "\n\n"
    "The pictures are stored as APPEARANCE_DIR/NAME.npz (APPEARANCE_DIR is "
    "$XDG_CONFIG_HOME/scorer/appearance, ~/.config/scorer/appearance by default); "
    "read photos with that appearance afterwards."
))
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--set", "set_name", required=True,
              help="Tile set laid out: base, river1, river2, goldmines, goldrush, sheriff, or a tile-set file.")
@click.option("--name", default=None, help="Name to store the appearance under (default: the set's name).")
@click.option("--columns", type=int, default=6, show_default=True, help="Tiles per row of the layout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write the .npz file here instead.")
def calibrate(photo: str, set_name: str, name: str | None, columns: int, out: str | None) -> None:
    """Learn your edition's tile pictures from one photo of a layout.

    Lay every tile type of the set out once, in catalogue order (the order of
    `scorer tiles --set NAME`, e.g. base A, B, C ... X), row by row from the top
    left, COLUMNS tiles to a row, each turned as the catalogue draws it (north
    side to the top of the photo), edge to edge on a plain table; photograph it
    from above.  The pictures are stored under
    $XDG_CONFIG_HOME/scorer/appearance/NAME.npz and used with
    `scorer score PHOTO --appearance NAME`.
    """
    from ..cliutil import handle_errors

    handle_errors(_run)(photo, set_name, name, columns, out)


def _run(photo: str, set_name: str, name: str | None, columns: int, out: str | None) -> None:
    from ..tiles import load_tileset
    from .appearance import appearance_path, calibrate as learn, save_appearance
    from .config import load_config
    from .grid import find_grid
    from .photo import load_photo

    tileset = load_tileset(set_name)
    name = name or tileset.name
    target = Path(out) if out else appearance_path(name)
    cfg = load_config()
    rgb = load_photo(photo, max_side=cfg.photo.max_side)
    grid = find_grid(rgb, cfg.grid)
    result = learn(rgb, grid, list(tileset.tiles.values()), columns=columns, name=name,
                   source=Path(photo).name, sets=(tileset.name,), cfg=cfg.tiles)
    written = save_appearance(result.appearance, target)
    weak = sorted((s, t) for t, s in result.scores.items())[:3]
    click.echo(f"learnt {len(result.appearance.pictures)} tiles of {tileset.name!r} "
               f"(layout at lattice cell {result.origin}, turned {result.turns} quarter turns, "
               f"mean match {result.appearance.info['mean_match']:.2f})")
    click.echo(f"weakest matches: {', '.join(f'{t} {s:.2f}' for s, t in weak)}")
    click.echo(f"written to {written}")
