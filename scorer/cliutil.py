"""Shared pieces of the click commands (kept apart from :mod:`scorer.cli` to avoid import cycles)."""

from __future__ import annotations

import functools
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
