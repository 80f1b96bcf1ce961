"""Which game's reading of a photo wins when the catalogue guess is rechecked (:func:`_explained_both`)."""

from __future__ import annotations

from types import SimpleNamespace

from scorer.vision.pipeline import _explained_both


def _reading(n: int, score: float, x0: int = 0) -> SimpleNamespace:
    """A tile reading of ``n`` cells in a row from ``(x0, 0)``, each matched ``score``."""
    return SimpleNamespace(cells={(x0 + i, 0): SimpleNamespace(score=score) for i in range(n)})


def test_many_poorly_matched_tiles_do_not_outweigh_fewer_well_matched_ones():
    """14 base tiles matched 0.85 each against 32 cells of a striped cloth read as Gold Rush rails at 0.68
    (a base-game photo of the kind that was read as Gold Rush): by their mean, the base reading wins;
    by the plain sum (11.9 against 21.8) it lost."""
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
