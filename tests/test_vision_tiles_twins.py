"""Look-alike tiles that differ in a small symbol: P and Goldmines G.CcRr; and B under a monk.

Base P and Goldmines G.CcRr differ in the gold ingot only.  Where a figure
hides the symbol, the tile stage's detail comparison has nothing to go on:
the box counts tell (``tiles.count_prior``: the box holds three P and one
G.CcRr).  And a monk seen from the side stays on the B (a cloister) read
under him when the runner-up A (a cloister with a road) offers him no nearer
place to stand (``figures.stand_alt_nearer``).

The photos are of the base + River + Goldmines series of seed 9939002
(``scorer synth --generate 200 --difficulty mixed``), a series the development
looked at; each was read wrong before the option named, and is read right
with it (measured: the reading with the option off is asserted too).
"""

from __future__ import annotations

import numpy as np
from helpers import config_with, read_generated

from scorer.tiles import catalog_for
from scorer.vision.config import load_config
from scorer.vision.decode import DecodeProblem, decode_problem

GAME, EXPANSIONS, SEED = "carcassonne", ["river", "goldmines"], 9939002


def _errors(photo: int, tmp_path, cfg) -> list[tuple[int, int, str, str]]:
    """The tile errors ``(x, y, truth, read)`` of one photo of the series."""
    cmp = read_generated(tmp_path, GAME, EXPANSIONS, SEED, photo, cfg)
    assert cmp.occupancy_errors == []
    return [(e["x"], e["y"], e["truth"], e["pred"]) for e in cmp.tile_errors]


def test_the_box_count_decides_between_look_alikes_that_score_alike():
    cat = catalog_for(GAME, EXPANSIONS)
    problem = DecodeProblem([(0, 0)], [[("G.CcRr", 0), ("P", 0)]], [np.array([0.80, 0.79])])
    assert decode_problem(problem, cat).labels[0] == ("G.CcRr", 0)
    assert decode_problem(problem, cat, count_prior=1.0).labels[0] == ("P", 0)
    # Only where figures hide what tells them apart (recognise._detail marks the cell).
    problem.undecided = [False]
    assert decode_problem(problem, cat, count_prior=1.0).labels[0] == ("G.CcRr", 0)
    problem.undecided = [True]
    assert decode_problem(problem, cat, count_prior=1.0).labels[0] == ("P", 0)
    # A clear difference in the match still wins over the box counts.
    problem = DecodeProblem([(0, 0)], [[("G.CcRr", 0), ("P", 0)]], [np.array([0.80, 0.70])])
    assert decode_problem(problem, cat, count_prior=1.0).labels[0] == ("G.CcRr", 0)


def test_a_hidden_ingot_is_decided_by_the_box_counts(tmp_path):
    """Photo 55: a P whose corner a yellow meeple hides was read as G.CcRr."""
    cfg = load_config()
    assert cfg.tiles.count_prior == 1.0
    assert _errors(55, tmp_path, cfg) == []
    assert _errors(55, tmp_path, config_with("tiles", count_prior=0.0)) == [(3, 5, "P rot 1", "G.CcRr rot 1")]


def test_a_monk_on_the_cloister_stays_on_the_tile_read(tmp_path):
    """Photo 44: a grey monk seen from the side stands 0.19 from the cloister's spot of B; the
    runner-up A offered its cloister, as far from the foot, and replaced B."""
    cfg = load_config()
    assert cfg.figures.stand_alt_nearer == 0.05
    assert _errors(44, tmp_path, cfg) == []
    assert _errors(44, tmp_path, config_with("figures", stand_alt_nearer=0.0)) == [(8, 5, "B rot 2", "A rot 2")]
