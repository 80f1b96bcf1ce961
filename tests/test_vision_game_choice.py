"""Which game's reading of a photo wins when the catalogue guess is rechecked (:func:`_explained_both`)."""

from __future__ import annotations

from types import SimpleNamespace

from scorer.vision.pipeline import _explained, _explained_both


def _reading(n: int, score: float, x0: int = 0) -> SimpleNamespace:
    """A tile reading of ``n`` cells in a row from ``(x0, 0)``, each matched ``score``."""
    return SimpleNamespace(cells={(x0 + i, 0): SimpleNamespace(score=score) for i in range(n)})


def test_many_poorly_matched_tiles_do_not_outweigh_fewer_well_matched_ones():
    """14 base tiles matched 0.85 each against 32 cells of a striped cloth read as Gold Rush rails at 0.68
    (a base-game photo of the kind that was read as Gold Rush): by the mean of as many best tiles as
    the smaller reading has (14), the base reading wins; by the plain sum (11.9 against 21.8) it lost."""
    base, cloth = _reading(14, 0.85), _reading(32, 0.68, x0=20)
    have, found = _explained_both(base, cloth)
    assert have > found
    assert round(have, 2) == 0.85 and round(found, 2) == 0.68


def test_a_game_that_fits_only_a_few_cells_is_judged_by_the_sum():
    """Below five tiles on either side the sum decides: 3 cells matched 0.8 lose to 40 tiles matched 0.75."""
    few, many = _reading(3, 0.8), _reading(40, 0.75)
    have, found = _explained_both(few, many)
    assert round(have, 2) == 2.4 and round(found, 2) == 30.0
    assert found > have


def test_a_few_table_cells_do_not_outweigh_a_blurred_board():
    """Photo 34 of ``scorer synth --generate 200 --seed 9934001 --difficulty mixed --game goldrush
    --expansions sheriff`` (35 tiles, 9 pixels of motion blur): Gold Rush read the 35 tiles at 0.59 on
    average, its 6 best at 0.90; Carcassonne's art fit 6 cells of the far table at 0.63.  By the mean
    of all tiles Carcassonne won and no tile of the board was read; by equally many best tiles
    (6 against 6) Gold Rush wins."""
    board = SimpleNamespace(cells={**_reading(6, 0.90).cells, **_reading(29, 0.526, x0=6).cells})
    table = _reading(6, 0.63, x0=50)
    have, found = _explained_both(board, table)
    assert round(have, 2) == 0.90 and round(found, 2) == 0.63
    assert have > found
    assert round(_explained(board) / len(board.cells), 2) == 0.59  # the whole reading's mean lost
