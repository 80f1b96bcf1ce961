"""Domain exceptions.

Every message says what is wrong (naming the field, cell or line and quoting the
offending text) and, where it helps, what to do about it.  The CLI turns any
:class:`ScorerError` into a one-line message and exit status 2.
"""

from __future__ import annotations


class ScorerError(Exception):
    """Base class of every error the library raises on bad input."""


class TileSetError(ScorerError, ValueError):
    """A tile catalogue (tile-set file or inline tile) is malformed or inconsistent."""


class BoardFormatError(ScorerError, ValueError):
    """A board (JSON or text notation) is malformed: unknown id, bad field, clash."""


class NotationError(BoardFormatError):
    """The compact text notation cannot be parsed; the message names the line."""


class TallyError(ScorerError, ValueError):
    """A Goldland tally breaks a rule or cannot be read."""


class PhotoError(ScorerError):
    """A photo cannot be used: unreadable, not an image, too large, too small, too dark, too blurry.

    Attributes
    ----------
    seen : dict
        What the photo pipeline saw before it gave up, for a debug image
        (:func:`scorer.vision.debugview.draw_seen`): ``image`` (the photo, RGB),
        ``segments`` ((N, 4) float, photo pixels x1, y1, x2, y2: the straight
        edges found), ``grid`` (the lattice found, if any), ``stage``.  Empty
        when the photo could not be decoded at all.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.seen: dict = {}


class TableNotFoundError(PhotoError):
    """No tile grid was found in the photo; the message says what to change."""


class TilesTooSmallError(PhotoError):
    """The tiles are too few pixels wide in the photo (at the size it was read at) to be recognised."""
