"""``scorer generate``: write a random legal board (or a whole game, turn by turn).

A thin layer over :mod:`scorer.generate`.  Any :class:`scorer.errors.ScorerError`
becomes a one-line ``error: ...`` message on stderr and exit status 2, and no
file is written.
"""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from .cliutil import handle_errors
from .generate import GenerateError, play_game
from .tiles import GAMES


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


@click.command("generate")
@click.option("--game", type=click.Choice(GAMES), default="carcassonne", show_default=True,
              help="The game to play.")
@click.option("--expansions", default="", metavar="LIST",
              help="Comma-separated expansions: river, goldmines (carcassonne); sheriff (goldrush).")
@click.option("--players", default="red,blue", show_default=True, metavar="LIST",
              help="Comma-separated colours in turn order.")
@click.option("--n-tiles", "n_tiles", type=int, default=None, metavar="N",
              help="Stop when N tiles lie on the table, start tile included (default: the whole box).")
@click.option("--seed", type=click.IntRange(min=0), metavar="N", required=True,
              help="Random seed (0 or more): the same seed gives the same game.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the last board here (default: print it when no --history is given).")
@click.option("--history", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the board after every turn into this folder (turn-001.json, ...).")
@click.option("--unscored", is_flag=True,
              help="Write each board as it stands before its turn's scoring (the input of 'scorer score').")
@click.option("--tiles", "tile_sets", multiple=True, type=click.Path(dir_okay=False),
              help="A tile-set file describing your own box (carcassonne-tiles/1); may be repeated.")
@handle_errors
def generate(game: str, expansions: str, players: str, n_tiles: int | None, seed: int,
             output: Path | None, history: Path | None, unscored: bool, tile_sets: tuple[str, ...]) -> None:
    """Play a random legal game and write its board as JSON (carcassonne-board/1).

    The players follow the rules (matching sides, figures on free features,
    river first, gold bars, ore tokens, tents, the Sheriff) and every completed
    feature is scored onto the track, so the board is a table as real play
    leaves it.
    """
    if n_tiles is not None and n_tiles < 1:
        raise GenerateError(f"--n-tiles must be at least 1 (the start tile), got {n_tiles}")
    if len(_names(players)) < 2:
        raise GenerateError(f"--players: a game needs at least 2 players, got {players!r}; e.g. --players red,blue")
    result = play_game(game, _names(expansions), players=_names(players), n_tiles=n_tiles,
                       rng=np.random.default_rng(seed), tile_sets=tile_sets)
    turns = result.turns
    last = turns[-1].placed if unscored and turns else result.board
    if history is not None:
        try:
            history.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GenerateError(f"--history: cannot create folder {str(history)!r}: {exc.strerror or exc}") from None
        for t in turns:
            (t.placed if unscored else t.board).save(history / f"turn-{t.number:03d}.json")
    if output is not None:
        last.save(output)
    elif history is None:
        click.echo(last.to_json(), nl=False)
        return
    discarded = sum(len(t.discarded) for t in turns)
    where = ", ".join(str(p) for p in (output, history) if p is not None)
    click.echo(f"{len(last.tiles)} tiles, {len(turns)} turns, {discarded} tile(s) discarded: wrote {where}")
