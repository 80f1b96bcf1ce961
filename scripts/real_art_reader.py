"""A photo reader for ``scorer evaluate --reader`` that matches tiles against real tile art.

Development and evaluation only: the real art is published artwork that the
project does not ship.  The folder comes from the environment variable
``SCORER_ART_DIR`` (one folder holding every tile's art file, as named by the
tile sets' ``art`` keys).  ``SCORER_GAME`` (``carcassonne`` or ``goldrush``) and
``SCORER_EXPANSIONS`` (comma-separated) name the game; without them the reader
guesses among the games whose every tile has its art in the folder (the only one,
or as ``scorer score`` does when the folder holds the art of several)::

    SCORER_ART_DIR=/path/to/art PYTHONPATH=scripts \\
        scorer evaluate PHOTOS --reader real_art_reader:read
"""

from __future__ import annotations

import os
from pathlib import Path

from scorer.board import Board
from scorer.errors import ScorerError
from scorer.render.tileart import art_path
from scorer.tiles import catalog_for
from scorer.vision.pipeline import CANDIDATE_GAMES, read_photo


def games_with_art(art_dir: str | Path) -> list[str]:
    """The games of :data:`CANDIDATE_GAMES` whose every tile (expansions included) has an art file in ``art_dir``."""
    out = []
    for game, expansions in CANDIDATE_GAMES:
        try:
            for tile in catalog_for(game, expansions).tiles.values():
                art_path(tile, art_dir)
        except ScorerError:
            continue
        out.append(game)
    return out


def read(path: str | Path) -> Board:
    """Read a photo with the real art of ``$SCORER_ART_DIR`` as the tile templates."""
    art = os.environ.get("SCORER_ART_DIR")
    if not art or not Path(art).is_dir():
        raise ScorerError("set SCORER_ART_DIR to the folder of real tile art")
    game = os.environ.get("SCORER_GAME") or None
    if game is None:
        games = games_with_art(art)
        if not games:
            raise ScorerError(f"{art} holds the art of no game's whole tile set")
        game = games[0] if len(games) == 1 else None
    exps = os.environ.get("SCORER_EXPANSIONS")
    expansions = [e for e in exps.split(",") if e] if exps is not None else None
    return read_photo(path, art_dir=art, game=game, expansions=expansions)
