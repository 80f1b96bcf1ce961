"""Command-line interface: a thin click layer over the library.

Every :class:`scorer.errors.ScorerError` becomes a one-line ``error: ...`` message
on stderr and exit status 2, with no traceback and no file written.
"""

from __future__ import annotations

import functools
import logging
import sys

import click

from .errors import ScorerError

EXIT_BAD_INPUT = 2


def handle_errors(func):
    """Decorate a click command so that domain errors exit with status 2 and one line."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ScorerError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_BAD_INPUT)

    return wrapper


@click.group()
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.version_option(package_name="scorer")
def main(verbose: int) -> None:
    """Score Carcassonne-family games from a table photo or a typed board."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
from .goldland_cli import goldland  # noqa: E402
main.add_command(goldland)
