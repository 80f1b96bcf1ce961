"""A Gold Rush cell half hidden by a figure decodes with a softer unary (decode.py).

Under a meeple and an ore stack, the two caps of GR13 read as the single
mountain of GR22 (one copy in the box); the board's other, unhidden GR22 is
sure.  A cell's decoding temperature grows with its share hidden
(``hidden_softness``), so the box count then outweighs what the figure left
of its match scores.
"""

from __future__ import annotations

import numpy as np

from scorer.tiles import catalog_for
from scorer.vision.decode import DecodeProblem, decode_problem
from scorer.vision.recognise import TileConfig


def _problem(softness=None) -> DecodeProblem:
    # Two cells far apart (no shared side): the first shows GR22 plainly, the second is
    # hidden and scores GR22 0.25 above GR13 (6.25 nats at 0.04 per nat, more than the 6 of the box).
    return DecodeProblem(
        cells=[(0, 0), (5, 5)],
        keys=[[("GR22", 0), ("GR13", 0)], [("GR22", 0), ("GR13", 0)]],
        scores=[np.array([0.9, 0.6]), np.array([0.5, 0.25])],
        softness=softness,
    )


def test_a_hidden_cell_gives_way_to_the_box_count():
    cat = catalog_for("goldrush", ("sheriff",))
    assert cat.box_count("GR22") == 1
    plain = decode_problem(_problem(), cat, unary_temperature=0.04, box_penalty=6.0)
    assert [k[0] for k in plain.labels] == ["GR22", "GR22"]
    assert plain.over_box == {"GR22": 1}
    share = 0.2  # a meeple and a stack cover a fifth of the tile
    soft = decode_problem(_problem([1.0, 1.0 + TileConfig().hidden_softness * share]), cat,
                          unary_temperature=0.04, box_penalty=6.0)
    assert [k[0] for k in soft.labels] == ["GR22", "GR13"]
    assert soft.over_box == {}


def test_hidden_softness_defaults():
    assert TileConfig().hidden_softness == 3.0
