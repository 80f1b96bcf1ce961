"""``scorer synth``: synthetic phone photos of boards, with ground truth, on the command line.

Two forms::

    scorer synth BOARD -o photo.jpg [--seed S] [--art-dir DIR] [--difficulty easy|hard] [--megapixels M]
    scorer synth --generate N --game G [--expansions river,goldmines] --out-dir DIR [--seed S]

The first photographs a board file; the second plays ``N`` random legal games
(:mod:`scorer.generate`) and photographs each, for data sets.  Every photo gets a
sidecar ``PHOTO.truth.json``: the truth board (photo orientation) plus a
``synth`` key with the parameters, homography, cell corners and figure pixels.
Every :class:`scorer.errors.ScorerError` becomes one ``error: ...`` line on
stderr and exit status 2, with nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
import numpy as np

from .cliutil import handle_errors, require_tiles
from .errors import ScorerError

PHOTO_SUFFIXES = (".jpg", ".jpeg")


def _split(values: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for v in values:
        out += [part.strip() for part in v.split(",") if part.strip()]
    return out


@click.command("synth")
@click.argument("board_path", metavar="BOARD", required=False, type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="The photo to write (.jpg).")
@click.option("--seed", type=click.IntRange(min=0), metavar="N", default=0, show_default=True,
              help="Seed of every random choice (0 or more).")
@click.option("--art-dir", type=click.Path(file_okay=False), help="Real tile art for development (never shipped).")
@click.option("--difficulty", type=click.Choice(["easy", "hard", "mixed"]), default="easy", show_default=True,
              help="Camera and light: easy (from above, even light) or hard; mixed draws one per photo.")
@click.option("--megapixels", type=float, help="Photo size in megapixels (default: drawn from 1-12).")
@click.option("--generate", "n_generate", type=int, help="Generate N random games and photograph each.")
@click.option("--game", type=click.Choice(["carcassonne", "goldrush"]), default="carcassonne", show_default=True,
              help="With --generate: the game.")
@click.option("--expansions", multiple=True, help="With --generate: expansions, comma-separated or repeated.")
@click.option("--players", help="With --generate: colours in turn order, e.g. red,blue (default: 2-5 at random).")
@click.option("--out-dir", type=click.Path(file_okay=False), help="With --generate: folder for the photos.")
@click.option("--tiles", "tile_files", multiple=True, type=click.Path(dir_okay=False),
              help="A tile-set file describing your own box (carcassonne-tiles/1); may be repeated.")
@handle_errors
def synth(board_path: str | None, output: str | None, seed: int, art_dir: str | None, difficulty: str,
          megapixels: float | None, n_generate: int | None, game: str, expansions: tuple[str, ...],
          players: str | None, out_dir: str | None, tile_files: tuple[str, ...]) -> None:
    """Make a realistic phone photo of BOARD lying on a table, with its ground truth.

    Writes the JPEG and PHOTO.truth.json beside it (the board as seen in the
    photo, north up, plus homography, cell corners and figure pixels).  With
    --generate N, plays N random games and writes synth-00000.jpg... to --out-dir.
    """
    from .render.synth import MEGAPIXELS_RANGE

    if megapixels is not None and not (MEGAPIXELS_RANGE[0] <= megapixels <= MEGAPIXELS_RANGE[1]):
        raise ScorerError(f"--megapixels must be between {MEGAPIXELS_RANGE[0]} and {MEGAPIXELS_RANGE[1]}, "
                          f"got {megapixels}")
    if art_dir is not None and not Path(art_dir).is_dir():
        raise ScorerError(f"--art-dir {art_dir!r} is not a folder")
    if n_generate is not None:
        if board_path is not None or output is not None:
            raise ScorerError("give either BOARD with -o PHOTO, or --generate N with --out-dir, not both")
        _generate(n_generate, game, _split(expansions), players, out_dir, seed, art_dir, difficulty, megapixels,
                  tile_files)
        return
    if board_path is None:
        raise ScorerError("missing BOARD (a board file) or --generate N; see scorer synth --help")
    if output is None:
        raise ScorerError("missing -o PHOTO.jpg: where to write the photo")
    if out_dir is not None or expansions or players:
        raise ScorerError("--out-dir, --expansions and --players go with --generate only")
    out = Path(output)
    if out.suffix.lower() not in PHOTO_SUFFIXES:
        raise ScorerError(f"-o {output!r}: the photo is a JPEG, name it .jpg or .jpeg")
    if not (out.parent if str(out.parent) else Path(".")).is_dir():
        raise ScorerError(f"-o {output!r}: folder {str(out.parent)!r} does not exist")
    from .board import read_board
    from .render.synth import SynthParams, pick_difficulty, synthesize

    board = read_board(board_path, tile_sets=tile_files)
    require_tiles(board, board_path)
    rng = np.random.default_rng(seed)
    level = pick_difficulty(difficulty, rng)
    params = SynthParams.random(rng, level, megapixels=megapixels)
    result = synthesize(board, rng=rng, art_dir=art_dir, params=params)
    photo, side = result.save(out)
    h, w = result.image.shape[:2]
    click.echo(f"wrote {photo} ({w}x{h}, {len(result.truth.tiles)} tiles, {level}) and {side.name}")


def _generate(n: int, game: str, expansions: list[str], players: str | None, out_dir: str | None, seed: int,
              art_dir: str | None, difficulty: str, megapixels: float | None, tile_files: tuple[str, ...]) -> None:
    from .render.synth import generated_photo
    from .tiles import catalog_for

    if n < 1:
        raise ScorerError(f"--generate must be at least 1, got {n}")
    if out_dir is None:
        raise ScorerError("--generate needs --out-dir DIR: where to write the photos")
    colours = _split((players,)) if players else None
    if colours is not None and len(colours) < 2:
        raise ScorerError(f"--players: a game needs at least 2 players, got {players!r}; e.g. --players red,blue")
    catalog_for(game, expansions, tile_files)  # checks the expansions before anything is written
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise ScorerError(f"--out-dir {out_dir!r} is a file, not a folder")
    _check_out_dir(folder, out_dir)
    for i in range(n):
        result, level, mode = generated_photo(game, expansions, seed, i, colours=colours, art_dir=art_dir,
                                              difficulty=difficulty, megapixels=megapixels, tile_sets=tile_files)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ScorerError(f"--out-dir {out_dir!r}: cannot create the folder: {exc.strerror or exc}") from None
        photo, _ = result.save(folder / f"synth-{i:05d}.jpg", extra={"mode": mode})
        click.echo(f"wrote {photo} ({len(result.truth.tiles)} tiles, {level}, {mode})")


def _check_out_dir(folder: Path, out_dir: str) -> None:
    """Fail at once, before the first (slow) photo, when ``folder`` cannot be made or written.

    Nothing is created here: the folder is made when the first photo is ready.
    """
    probe = folder.absolute()
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ScorerError(f"--out-dir {out_dir!r}: cannot create the folder: {str(probe)!r} is a file")
    if not os.access(probe, os.W_OK | os.X_OK):
        what = "the folder" if probe == folder.absolute() else f"{str(probe)!r}"
        raise ScorerError(f"--out-dir {out_dir!r}: {what} is not writable")
