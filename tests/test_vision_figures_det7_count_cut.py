"""Gold Rush: a candidate read as an ore stack too tall for its size is tried cut (a cowboy beside a low stack).

:func:`scorer.vision.figures._count_cut_need` says whether a candidate read as a
stack is tried cut at its waist for its count (``ore_cut_count``,
``ore_cut_count_mm2``) and how well the part cut off must fit a cowboy for the
cut to stand (``ore_cut_count_fit``, ``ore_cut_count_slack``).
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.vision.figures import FigureConfig, _count_cut_need


def test_tall_stack_of_a_cowboy_and_a_low_stack_is_tried_cut():
    """225 mm^2 read as 4 tokens, stack outline 0.789: tried; the cowboy part must fit 0.65
    (ore_cut_count_fit, above 0.789 - 0.16); read as 10 tokens with outline 0.885: 0.725."""
    cfg = FigureConfig()
    assert _count_cut_need({"area": 225.0, "shapes": {"ore": 0.789}}, {"count": 4}, cfg) == pytest.approx(0.65)
    assert _count_cut_need({"area": 225.0, "shapes": {"ore": 0.885}}, {"count": 10}, cfg) == pytest.approx(0.725)


def test_low_or_small_stack_or_off_is_not_tried():
    """A stack read as 2 tokens, one below ore_cut_count_mm2 (190 < 200 mm^2), and any with
    ore_cut_count = 0 (off) are not tried."""
    info = {"area": 225.0, "shapes": {"ore": 0.789}}
    assert _count_cut_need(info, {"count": 2}, FigureConfig()) is None
    assert _count_cut_need({"area": 190.0, "shapes": {"ore": 0.789}}, {"count": 6}, FigureConfig()) is None
    assert _count_cut_need(info, {"count": 6}, FigureConfig(ore_cut_count=0)) is None


def test_seeded_candidates():
    """40 candidates drawn with seed 66000 (area 150-300 mm^2, count 1-10, outline 0.6-0.95):
    exactly these are tried, with these least cowboy fits."""
    rng = np.random.default_rng(66000)
    area = rng.uniform(150.0, 300.0, 40)
    count = rng.integers(1, 11, 40)
    ore = rng.uniform(0.6, 0.95, 40)
    got = [(i, round(n, 3)) for i in range(40)
           if (n := _count_cut_need({"area": area[i], "shapes": {"ore": ore[i]}}, {"count": int(count[i])},
                                    FigureConfig())) is not None]
    assert got == EXPECTED
    assert all(count[i] >= 3 and area[i] >= 200.0 for i, _ in got)
    assert sum((count >= 3) & (area >= 200.0)) == len(EXPECTED)


#: (index, least cowboy fit) of the candidates tried: 23 of 40 (count >= 3 and area >= 200 mm^2).
EXPECTED = [(0, 0.778), (1, 0.65), (2, 0.65), (8, 0.679), (11, 0.65), (12, 0.659), (13, 0.65), (14, 0.65),
            (15, 0.65), (17, 0.72), (18, 0.65), (22, 0.761), (23, 0.65), (24, 0.65), (25, 0.66), (26, 0.65),
            (29, 0.727), (30, 0.65), (33, 0.744), (34, 0.706), (36, 0.65), (37, 0.65), (38, 0.685)]
