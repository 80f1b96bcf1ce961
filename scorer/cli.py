"""Command-line interface: a thin click layer over the library.

Every :class:`scorer.errors.ScorerError` becomes a one-line ``error: ...`` message
on stderr and exit status 2, with no traceback and no file written.
"""

from __future__ import annotations

import logging
import sys

import click

from .cliutil import EXIT_BAD_INPUT, handle_errors  # noqa: F401  (re-exported)


@click.group()
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
    from .board import read_board

    return read_board(board_path, tile_sets=tile_files)


@main.command()
@click.argument("board_path", metavar="BOARD", type=click.Path(dir_okay=False))
@click.option("--final", is_flag=True, help="End-of-game scoring (default: what the last tile completed).")
@click.option("--json", "as_json", is_flag=True, help="Print the carcassonne-score/1 JSON report.")
@_tiles_option
@handle_errors
def score(board_path: str, final: bool, as_json: bool, tile_files: tuple[str, ...]) -> None:
    """Score BOARD (board JSON or text notation): a table per player and the breakdown per feature."""
    import json

    from .scoring import score as run_score
    from .textreport import format_report

    board = _load(board_path, tile_files)
    report = run_score(board, "final" if final else "completed")
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(format_report(report), nl=False)


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

    from .textreport import format_verification
    from .verify import parse_claims
    from .verify import verify as run_verify

    claims = parse_claims(claimed)
    board = _load(board_path, tile_files)
    result = run_verify(board, claims, mode="completed" if mid_game else "final")
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
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
