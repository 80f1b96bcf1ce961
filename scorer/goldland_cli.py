"""``scorer goldland``: the Goldland end-of-game tally on the command line.

With a FILE the tally is read from it (JSON or text, see :mod:`scorer.goldland`);
without one the players and their counts are asked for interactively: the
questions go to stderr, so stdout holds only the result, and input that ends
before the tally is complete is an error.  Any :class:`scorer.errors.ScorerError`
becomes a one-line ``error: ...`` message on stderr and exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from .cliutil import handle_errors
from .errors import ScorerError, TallyError  # noqa: F401  (ScorerError re-exported)
from .goldland import (
    ADVENTURES,
    BACKPACK_SLOTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TOKEN_VALUE_MAX,
    TOKEN_VALUE_MIN,
    GoldlandResult,
    PlayerTally,
    Tally,
    load_tally,
    missing_token_values,
    parse_adventures,
    score_tally,
)

EXIT_BAD_INPUT = 2


#: Turn a domain error into one ``error:`` line on stderr and exit status 2.
_exit_on_scorer_error = handle_errors


@click.command("goldland")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@_exit_on_scorer_error
def goldland(file: Path | None, as_json: bool) -> None:
    """Score the end-of-game tally of Goldland.

    FILE is a JSON (goldland-tally/1) or text tally; without FILE the players
    and their counts are asked for.  Gold piece 1, treasure 3, amulet 3,
    adventure token its printed value; the most gold wins.
    """
    if file is not None:
        tally = load_tally(file)
    else:
        try:
            tally = _prompt_missing_values(_prompt_tally())
        except click.Abort:  # end of input (or Ctrl-C) in the middle of a question
            click.echo("", err=True)
            raise TallyError("the input ended before the tally was complete; answer every question, "
                             "or give the tally in a FILE (see scorer goldland --help)") from None
    result = score_tally(tally)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(format_ranking(result))


def format_ranking(result: GoldlandResult) -> str:
    """Render the ranking as a plain-text table, amounts in gold pieces.

    Parameters
    ----------
    result : GoldlandResult
        The scored tally.

    Returns
    -------
    str
        Header, one row per player (place, player, gold, treasures, amulet,
        tokens, total) and a line naming the winner or the players sharing
        first place.
    """
    headers = ("Place", "Player", "Gold", "Treasures", "Amulet", "Tokens", "Total")
    rows = [
        (f"{s.place}.", s.name, s.gold, s.treasures, s.amulet, s.tokens, s.total)
        for s in result.ranking
    ]
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells) -> str:
        parts = []
        for i, cell in enumerate(cells):
            text = str(cell)
            parts.append(text.ljust(widths[i]) if i < 2 else text.rjust(widths[i]))
        return "  ".join(parts).rstrip()

    out = [line(headers), *(line(r) for r in rows)]
    winners = result.winners
    if len(winners) == 1:
        out.append(f"Winner: {winners[0]}")
    else:
        out.append(f"Shared first place: {', '.join(winners)}")
    return "\n".join(out)


# --------------------------------------------------------------------------- prompts


def _ask(text: str, **kwargs):
    """``click.prompt`` writing its question to stderr (stdout holds only the result)."""
    return click.prompt(text, err=True, **kwargs)


def _prompt_tally() -> Tally:
    """Ask for the players and their counts; the answers are checked as they come."""
    count = _ask(
        f"Number of players ({MIN_PLAYERS}-{MAX_PLAYERS})",
        type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    )
    players: list[PlayerTally] = []
    holders: dict[str, str] = {}
    for number in range(1, count + 1):
        while True:
            name = _ask(f"Player {number} name or colour").strip()
            if name and all(p.name != name for p in players):
                break
            click.echo("error: give each player a different, non-empty name", err=True)
        gold = _ask(f"  {name}: gold pieces", type=click.IntRange(min=0))
        amulet = _ask(f"  {name}: amulet (0 or 1)", type=click.IntRange(0, 1), default=0)
        treasures = _ask(
            f"  {name}: treasures",
            type=click.IntRange(0, BACKPACK_SLOTS - amulet),
            default=0,
        )
        adventures = _prompt_adventures(name, holders)
        equipment = _prompt_equipment(name, BACKPACK_SLOTS - amulet - treasures)
        players.append(PlayerTally(name, gold, treasures, amulet, adventures, equipment))
    return Tally(players=tuple(players))


def _prompt_adventures(name: str, holders: dict[str, str]) -> tuple[str, ...]:
    """Ask for a player's adventure tokens until the answer is valid."""
    while True:
        text = _ask(
            f"  {name}: adventure tokens ({', '.join(ADVENTURES)}; comma-separated, empty for none)",
            default="",
            show_default=False,
        )
        try:
            adventures = parse_adventures(text, f"player {name}")
        except TallyError as exc:
            click.echo(f"error: {exc}", err=True)
            continue
        taken = [a for a in adventures if a in holders]
        if taken:
            click.echo(
                f"error: the {taken[0]} token is already held by {holders[taken[0]]}; "
                "there is one token per adventure type",
                err=True,
            )
            continue
        holders.update(dict.fromkeys(adventures, name))
        return adventures


def _prompt_equipment(name: str, free: int) -> int | None:
    """Ask for the equipment count; an empty answer leaves it out of the backpack check."""
    while True:
        text = _ask(
            f"  {name}: equipment items in the backpack (0-{free}, empty to skip)",
            default="",
            show_default=False,
        ).strip()
        if not text:
            return None
        if text.isdigit() and int(text) <= free:
            return int(text)
        click.echo(f"error: {text!r} is not a whole number from 0 to {free}", err=True)


def _prompt_missing_values(tally: Tally) -> Tally:
    """Ask for the printed value of every held token whose value is not known."""
    values = dict(tally.token_values)
    for adventure in missing_token_values(tally):
        values[adventure] = _ask(
            f"Value of the {adventure} adventure token (printed on it, "
            f"{TOKEN_VALUE_MIN}-{TOKEN_VALUE_MAX})",
            type=click.IntRange(TOKEN_VALUE_MIN, TOKEN_VALUE_MAX),
        )
    return Tally(players=tally.players, token_values=values)
