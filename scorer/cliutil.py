"""Shared pieces of the click commands (kept apart from :mod:`scorer.cli` to avoid import cycles).

* :func:`handle_errors`: a command's :class:`~scorer.errors.ScorerError` becomes
  one ``error: ...`` line on stderr and exit status 2;
* :class:`OneLineGroup`: the ``scorer`` group; click's own usage errors (an
  unknown option, a bad choice, a missing argument, a value out of range, a
  folder given as a file) of every command below it become one line too,
  ``error: <click's message> (see scorer COMMAND --help)``, with exit status 2;
* :func:`require_tiles`, :func:`check_image_output`, :func:`quiet_opencv`:
  checks and settings several commands share.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from pathlib import Path

import click

from .errors import ScorerError

EXIT_BAD_INPUT = 2
#: Picture files the commands write, by extension.
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: Longest quote of the user's input in an error line, in characters.
QUOTE_MAX = 80

# A quoted piece of input: opened after a blank, '(', '[' or '=', closed before a
# blank or punctuation, longer than QUOTE_MAX.
_LONG_QUOTE = re.compile(r"(?<![^\s(\[=])'([^'\n]{%d,})'(?=[\s).,;:\]]|$)" % (QUOTE_MAX - 1))
_LONG_WORD = re.compile(r"[^\s'/\\]{%d,}" % (QUOTE_MAX + 1))


def _cut_quote(m: re.Match) -> str:
    inner = m[1]
    if ("/" in inner or os.sep in inner) and not any(ch.isspace() for ch in inner):
        return m[0]  # a file path: kept whole, its end names the file
    return "'" + inner[: QUOTE_MAX - 5] + "...'"


def one_line(message: str) -> str:
    """An error message as one line, every quote of input cut to :data:`QUOTE_MAX` characters.

    Messages of every module pass through here, so a pasted line of thousands of
    characters is never echoed back whole (file paths are kept whole).
    """
    text = " ".join(str(message).split())
    text = _LONG_QUOTE.sub(_cut_quote, text)
    return _LONG_WORD.sub(lambda m: m[0][: QUOTE_MAX - 3] + "...", text)


def handle_errors(func):
    """Decorate a click command so that domain errors exit with status 2 and one line."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ScorerError as exc:
            click.echo(f"error: {one_line(str(exc))}", err=True)
            sys.exit(EXIT_BAD_INPUT)

    return wrapper


def _command_path(ctx: click.Context | None) -> str:
    """``scorer fix BOARD tile``: the command as a user types it (the program is called ``scorer``)."""
    if ctx is None:
        return "scorer"
    path = ctx.command_path
    root = ctx.find_root().info_name or ""
    if root and path.startswith(root):
        path = "scorer" + path[len(root):]
    return path


class OneLineUsageError(click.ClickException):
    """A click usage error shown as one line: ``error: MESSAGE (see scorer COMMAND --help)``."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, error: click.ClickException) -> None:
        message = one_line(error.format_message())
        if message.endswith("."):
            message = message[:-1]
        ctx = getattr(error, "ctx", None)
        super().__init__(f"{message} (see {_command_path(ctx)} --help)")
        self.exit_code = getattr(error, "exit_code", EXIT_BAD_INPUT) or EXIT_BAD_INPUT

    def show(self, file=None) -> None:  # noqa: D102 - click's interface
        click.echo(f"error: {self.format_message()}", err=True, file=file)


class OneLineGroup(click.Group):
    """A click group whose usage errors, and those of every command below it, print one line.

    ``--help`` and a group called without a command still print the help.
    """

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise OneLineUsageError(exc) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.NoArgsIsHelpError, OneLineUsageError):
            raise
        except click.UsageError as exc:
            raise OneLineUsageError(exc) from None


def require_tiles(board, source: str | Path) -> None:
    """Refuse a board without tiles (an empty or header-only file) with one line.

    Raises
    ------
    ScorerError
        ``board.tiles`` is empty.
    """
    if not board.tiles:
        raise ScorerError(f"{Path(source).name}: the board has no tiles; a board lists at least the start tile "
                          "(text notation: a line 'X,Y TILE ROT' such as '0,0 D 0'; JSON: the 'tiles' list)")


def check_image_output(path: str | Path, option: str = "-o") -> None:
    """Refuse a picture file name that is not ``.png``, ``.jpg`` or ``.jpeg``.

    Raises
    ------
    ScorerError
        Naming the option and the extensions.
    """
    ext = Path(path).suffix.lower()
    if ext not in IMAGE_SUFFIXES:
        raise ScorerError(f"{option} {str(path)!r}: cannot encode a picture as {ext or 'a file without extension'}; "
                          "name it .png, .jpg or .jpeg")


def quiet_opencv() -> None:
    """Silence OpenCV's own WARN lines (a missing camera), so that one ``error:`` line stands alone."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_VIDEOIO_DEBUG", "0")
    try:
        import cv2

        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except (ImportError, AttributeError):  # pragma: no cover - other OpenCV builds
        pass
