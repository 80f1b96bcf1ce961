"""A photo reader for ``scorer evaluate --reader`` that matches tiles against real tile art.

Development and evaluation only: the real art is published artwork that the
project does not ship.  The folder comes from the environment variable
``SCORER_ART_DIR`` (one folder holding every tile's art file, as named by the
tile sets' ``art`` keys).  ``SCORER_GAME`` (``carcassonne`` or ``goldrush``) and
``SCORER_EXPANSIONS`` (comma-separated) name the game when the folder holds the art
of one game only; without them the reader guesses among the games, as ``scorer
score`` does::

    SCORER_ART_DIR=/path/to/art PYTHONPATH=scripts \\
        scorer evaluate PHOTOS --reader real_art_reader:read
"""

from __future__ import annotations

import os
from pathlib import Path

from scorer.board import Board
from scorer.errors import ScorerError
from scorer.vision.pipeline import read_photo


def read(path: str | Path) -> Board:
    """Read a photo with the real art of ``$SCORER_ART_DIR`` as the tile templates."""
    art = os.environ.get("SCORER_ART_DIR")
    if not art or not Path(art).is_dir():
        raise ScorerError("set SCORER_ART_DIR to the folder of real tile art")
    game = os.environ.get("SCORER_GAME") or None
    exps = os.environ.get("SCORER_EXPANSIONS")
    expansions = [e for e in exps.split(",") if e] if exps is not None else None
    return read_photo(path, art_dir=art, game=game, expansions=expansions)
