"""Board geometry: cells, sides, field half-sides and quarter-turn rotation.

Conventions (``board-format.md``): ``x`` grows east, ``y`` grows **south**;
``rot`` counts clockwise quarter turns.  Field half-sides are named clockwise
around the tile: ``NL NR EL ER SL SR WL WR``; across a shared side they pair as
``NL-SR``, ``NR-SL``, ``EL-WR``, ``ER-WL``.
"""

from __future__ import annotations

from typing import Iterator

Cell = tuple[int, int]

SIDES: tuple[str, ...] = ("N", "E", "S", "W")
HALVES: tuple[str, ...] = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
CENTRE = "C"
LOCATIONS: tuple[str, ...] = SIDES + HALVES + (CENTRE,)

#: Cell offset (dx, dy) of the neighbour across each side.
DELTA: dict[str, Cell] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
OPPOSITE: dict[str, str] = {"N": "S", "E": "W", "S": "N", "W": "E"}

#: The half-side a half-side meets on the neighbouring tile.
HALF_MATE: dict[str, str] = {h: OPPOSITE[h[0]] + ("R" if h[1] == "L" else "L") for h in HALVES}

#: Offsets of the 8 cells around a cell (a cloister's or cemetery's surroundings).
AROUND: tuple[Cell, ...] = tuple(
    (dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)
)


def rotate_location(loc: str, rot: int) -> str:
    """Turn a tile location ``rot`` quarter turns clockwise.

    Parameters
    ----------
    loc : str
        ``N``/``E``/``S``/``W``, a half-side such as ``NL``, or ``C``.
    rot : int
        Clockwise quarter turns (any integer; taken modulo 4).

    Returns
    -------
    str
        The location after the turn: ``N -> E``, ``NL -> EL``, ``C -> C``.

    Raises
    ------
    ValueError
        If ``loc`` is not a tile location.
    """
    if loc == CENTRE:
        return loc
    if loc not in LOCATIONS:
        raise ValueError(f"unknown tile location {loc!r}; expected one of {' '.join(LOCATIONS)}")
    side = SIDES[(SIDES.index(loc[0]) + rot) % 4]
    return side + loc[1:]


def neighbour(cell: Cell, side: str) -> Cell:
    """The cell across ``side`` of ``cell`` (``N`` is ``y - 1``)."""
    dx, dy = DELTA[side]
    return (cell[0] + dx, cell[1] + dy)


def around(cell: Cell) -> Iterator[Cell]:
    """The 8 cells orthogonally and diagonally adjacent to ``cell``."""
    x, y = cell
    for dx, dy in AROUND:
        yield (x + dx, y + dy)


def halves_of(side: str) -> tuple[str, str]:
    """The two field half-sides of a side, clockwise: ``N -> (NL, NR)``."""
    return (side + "L", side + "R")
