"""Command-line interface: a thin click layer over the library.

Every :class:`scorer.errors.ScorerError` becomes a one-line ``error: ...`` message
on stderr and exit status 2, with no traceback and no file written; click's own
usage errors (unknown option, bad value...) of every command are one line too
(:class:`scorer.cliutil.OneLineGroup`).
"""

from __future__ import annotations

import logging
import sys

import click

from .cliutil import EXIT_BAD_INPUT, OneLineGroup, handle_errors, require_tiles  # noqa: F401  (re-exported)

#: Webcam numbers ``--camera`` accepts.
CAMERAS = click.IntRange(0, 63)


@click.group(cls=OneLineGroup)
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.version_option(package_name="scorer")
def main(verbose: int) -> None:
    """Score Carcassonne-family games from a table photo or a typed board."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


_tiles_option = click.option(
    "--tiles", "tile_files", multiple=True, type=click.Path(dir_okay=False),
    help="A tile-set file describing your own box (carcassonne-tiles/1); may be repeated.",
)


def _load(board_path: str, tile_files: tuple[str, ...]):
    """A typed board with at least one tile (an empty file is an error)."""
    from .board import read_board

    board = read_board(board_path, tile_sets=tile_files)
    require_tiles(board, board_path)
    return board


@main.command()
@click.argument("sources", metavar="BOARD|PHOTO...", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--final", is_flag=True, help="End-of-game scoring (default: what the last tile completed).")
@click.option("--json", "as_json", is_flag=True, help="Print the carcassonne-score/1 JSON report.")
@click.option("--camera", type=CAMERAS, default=None, metavar="N",
              help="Read a frame from webcam N instead of a file.")
@click.option("--game", type=click.Choice(["carcassonne", "goldrush"]), default=None,
              help="The game on the photo (guessed from the tiles when not given).")
@click.option("--players", default=None, metavar="LIST",
              help="Colours in turn order, e.g. red,blue,green; name every colour with figures on the table "
                   "(figures of a colour not named are not read).")
@click.option("--appearance", default=None, metavar="NAME|FILE",
              help="Tile appearance learned with `scorer calibrate` (for editions with other art).")
@click.option("--art-dir", default=None, type=click.Path(file_okay=False), hidden=True)
@click.option("--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Photos read in parallel (default: CPU count).")
@_tiles_option
@handle_errors
def score(sources: tuple[str, ...], final: bool, as_json: bool, camera: int | None, game: str | None,
          players: str | None, appearance: str | None, art_dir: str | None, jobs: int | None,
          tile_files: tuple[str, ...]) -> None:
    """Score a typed board or read and score table photos.

    BOARD (board JSON or text notation): a table per player and the breakdown per
    feature.  PHOTO (JPEG, PNG, HEIC; several at once run in parallel): also saves
    PHOTO.board.json (what was read, with confidences) and PHOTO.annotated.jpg, and
    prints a small map of the board and the detections least sure of themselves.
    """
    import json

    from .errors import ScorerError
    from .photoscore import is_photo

    if camera is None and not sources:
        raise ScorerError("give a board file, one or more photos, or --camera N")
    typed = [s for s in sources if not is_photo(s)]
    if typed:
        given = [name for name, value in (("--camera", camera), ("--game", game), ("--players", players),
                                          ("--appearance", appearance), ("--jobs", jobs)) if value is not None]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise ScorerError(f"{', '.join(given)} {verb} to photos only; {typed[0]} is a typed board, which says "
                              "its game and players itself (change them with scorer fix)")
    colours = _player_colours(players)
    if camera is not None or any(is_photo(s) for s in sources):
        _score_photos(sources, camera, final=final, as_json=as_json, game=game, players=colours,
                      appearance=appearance, art_dir=art_dir, jobs=jobs, tile_files=tile_files)
        return
    from .scoring import score as run_score
    from .textreport import format_report

    if len(sources) > 1:
        raise ScorerError("score one board file at a time (several photos may be given at once)")
    board = _load(sources[0], tile_files)
    report = run_score(board, "final" if final else "completed")
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(format_report(report), nl=False)


def _score_one(args: tuple) -> tuple[str, object]:
    """Worker: score one photo; returns (source, PhotoScore or error message)."""
    from .errors import ScorerError
    from .photoscore import score_photo

    source, kwargs = args
    try:
        return source, score_photo(source, **kwargs)
    except ScorerError as exc:
        return source, f"{exc}"


def _player_colours(players: str | None) -> list[str] | None:
    """``--players``: two or more known colours, each once, in turn order (``None`` when not given).

    The colours limit what the figures are read as: a colour left out is not
    read at all, so a list of one colour is refused (a game has two players or more).
    """
    if players is None:
        return None
    from .corrections import parse_colour
    from .errors import ScorerError

    colours = [parse_colour(c, "--players") for c in players.replace(" ", ",").split(",") if c.strip()]
    if not colours:
        raise ScorerError(f"--players {players!r}: give the colours in turn order, e.g. --players red,blue,green")
    if len(set(colours)) != len(colours):
        raise ScorerError(f"--players {players!r}: a colour is listed twice; give each player's colour once")
    if len(colours) < 2:
        raise ScorerError(f"--players {players!r}: a game has at least 2 players; name every colour that has "
                          "figures on the table (figures of a colour not named are not read), e.g. "
                          f"--players {colours[0]},blue")
    return colours


def _score_photos(sources, camera, *, final, as_json, game, players, appearance, art_dir, jobs, tile_files):
    import json
    import os

    from .errors import ScorerError
    from .photoscore import is_photo, score_photo

    appearance_obj = None
    if appearance:
        from .vision.appearance import load_appearance

        appearance_obj = load_appearance(appearance)
    kwargs = dict(final=final, game=game, players=players, tile_sets=tile_files, appearance=appearance_obj,
                  art_dir=art_dir)
    results = []
    if camera is not None:
        from .cliutil import quiet_opencv
        from .vision.photo import grab_frame

        quiet_opencv()

        results.append((f"camera{camera}", score_photo(grab_frame(camera), name=f"camera{camera}", **kwargs)))
    not_photos = [s for s in sources if not is_photo(s)]
    if not_photos:
        raise ScorerError(f"{not_photos[0]}: not a photo (JPEG, PNG, HEIC); score board files one at a time")
    photos = list(sources)
    if len(photos) == 1:
        results.append(_score_one((photos[0], kwargs)))
    elif photos:
        from concurrent.futures import ProcessPoolExecutor

        workers = max(1, min(jobs or os.cpu_count() or 1, len(photos)))
        with ProcessPoolExecutor(workers) as pool, click.progressbar(
                length=len(photos), label="reading photos", file=sys.stderr) as bar:
            for res in pool.map(_score_one, [(p, kwargs) for p in photos]):
                results.append(res)
                bar.update(1)
    failed = [(s, r) for s, r in results if isinstance(r, str)]
    if len(results) == 1 and failed:
        raise ScorerError(failed[0][1])
    if as_json:
        out = [r.report.to_dict() if not isinstance(r, str) else {"source": s, "error": r} for s, r in results]
        click.echo(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    else:
        for s, r in results:
            if isinstance(r, str):  # the photo's own name first, once
                click.echo(f"error: {r}" if r.startswith(f"{s}:") else f"error: {s}: {r}", err=True)
            else:
                click.echo(r.summary())
    if failed:
        sys.exit(EXIT_BAD_INPUT)


@main.command()
@click.argument("board_path", metavar="BOARD", type=click.Path(dir_okay=False))
@click.option("--claimed", required=True, help="The players' totals, e.g. red=102,blue=95.")
@click.option("--completed", "mid_game", is_flag=True,
              help="Check after a mid-game scoring instead of the end of the game.")
@click.option("--json", "as_json", is_flag=True, help="Print the verification as JSON.")
@_tiles_option
@handle_errors
def verify(board_path: str, claimed: str, mid_game: bool, as_json: bool, tile_files: tuple[str, ...]) -> None:
    """Compare the totals the players claim with track + computed scoring.

    Exit status 0 when every claim matches, 1 when some differ, 2 on bad input.
    """
    import json

    from .errors import ScorerError
    from .textreport import format_verification
    from .verify import parse_claims
    from .verify import verify as run_verify

    if any(len(run) > 9 for run in "".join(ch if ch.isdigit() else " " for ch in claimed).split()):
        raise ScorerError("--claimed: a total has too many digits; give points like red=102")
    claims = parse_claims(claimed)
    negative = [f"{c}={v}" for c, v in claims.items() if v < 0]
    if negative:
        raise ScorerError(f"--claimed: points are 0 or more, got {negative[0]}")
    board = _load(board_path, tile_files)
    result = run_verify(board, claims, mode="completed" if mid_game else "final", board_path=board_path)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        if not result.ok and not any(board.track.values()):
            # A photo shows no score track: the claims are compared with this scoring alone.
            from .corrections import fix_command

            example = fix_command("set_track", {"points": {c: "..." for c in list(claims)[:2]}}, board_path)
            click.echo(f"note: {board_path} records no score track (every player at 0), so each claim is compared "
                       f"with this scoring alone; record the track first: {example}\n")
        click.echo(format_verification(result), nl=False)
    sys.exit(0 if result.ok else 1)


from .goldland_cli import goldland  # noqa: E402

main.add_command(goldland)

from .evaluate_cli import evaluate  # noqa: E402

main.add_command(evaluate)

from .render_cli import render, tiles  # noqa: E402

main.add_command(render)
main.add_command(tiles)

from .generate_cli import generate  # noqa: E402

main.add_command(generate)

from .fix_cli import fix, review, sheet, undo  # noqa: E402

main.add_command(fix)
main.add_command(undo)
main.add_command(review)
main.add_command(sheet)

from .synth_cli import synth  # noqa: E402

main.add_command(synth)

from .vision.calibrate_cli import calibrate  # noqa: E402

main.add_command(calibrate)
