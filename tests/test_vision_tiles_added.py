"""A tile a figure hides from the tile stage, added by the figure stage's second look.

A lying meeple on the end of a rail and an ore stack beside him hide so much
of a Gold Rush GR12 (a mountain on three sides with a rail ending in it) that
the tile stage leaves its cell to the table.  The figure stage compares such a
cell with every tile; with the rail's end hidden, the mountain on three sides
without a rail (GR11) fits it exactly as well, and GR11 does not meet the
rail of the tile beside it, so nothing was added.  With
``figures.refit_add_fitting`` the tile added is the best of those that meet
the tiles read beside it, where it fits about as well as the best of all
(0.223 against 0.223 here; within 0.005).

The photo is photo 1 of the Gold Rush + Sheriff series of seed 9940001
(``scorer synth --generate 200 --difficulty mixed``), a series the development
looked at; the reading with the option off is asserted too.
"""

from __future__ import annotations

from helpers import config_with, read_generated

from scorer.vision.config import load_config

GAME, EXPANSIONS, SEED, PHOTO, CELL = "goldrush", ["sheriff"], 9940001, 1, (7, 3)


def _read(tmp_path, **figures) -> tuple[list, list]:
    """The tile and occupancy errors, and the figure errors, of the photo at CELL, the ``[figures]``
    thresholds changed as given."""
    cmp = read_generated(tmp_path, GAME, EXPANSIONS, SEED, PHOTO, config_with("figures", **figures))
    at = lambda e: (e["x"], e["y"]) == CELL  # noqa: E731
    return ([e for e in cmp.tile_errors if at(e)] + [e for e in cmp.occupancy_errors if at(e)],
            [e for e in cmp.figure_errors if at(e)])


def test_the_tile_added_under_a_figure_meets_its_neighbours(tmp_path):
    assert load_config().figures.refit_add_fitting == 0.005
    assert _read(tmp_path) == ([], [])


def test_without_it_the_hidden_tile_and_its_meeple_were_lost(tmp_path):
    tiles, figures = _read(tmp_path, refit_add_fitting=0.0)
    assert [(e["truth"], e["pred"]) for e in tiles if "truth" in e] == [("GR12 rot 1", None)]
    assert [(e["error"], e["kind"]) for e in figures] == [("missed", "meeple")]
