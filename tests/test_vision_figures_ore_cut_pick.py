"""A black cowboy standing against an ore stack: which part of the candidate cut at its waist is the stack.

The two merge into one dark candidate that one tall stack's outline fits; the
figure stage cuts it at its waist (:func:`scorer.vision.figures._ore_cut`)
and reads the two parts as a pair, a stack and a figure.  A cowboy's part fits
the outline of a low stack well too (a stack of three or four tokens is about
a cowboy's size), often better than the stack's own part, whose single token
seen from above fits a tent's outline as well.  The stack is the part the ore
decision (:func:`scorer.vision.figures._decide`, ``ore``) takes for one
(``ore_cut_pick = "logit"``), not the one the stack's outline fits best
(``"fit"``); the cut then stands only where the figure part is clearly no
stack (``ore_cut_ore``).

* Photo 1 of seed 9958001 (Gold Rush + Sheriff): a black cowboy at (8, 4) W
  against one ore token.
* Photo 136 of seed 9951001: a black cowboy at (7, 0) N beside a stack.
"""

from __future__ import annotations

import pytest

from helpers import config_with, read_generated

BY_FIT = {"ore_cut_pick": "fit", "ore_cut_ore": 1.2}


@pytest.mark.parametrize("seed, photo, cell", [(9958001, 1, (8, 4)), (9951001, 136, (7, 0))])
def test_the_cowboy_against_the_stack_is_found(tmp_path, seed, photo, cell):
    """Read whole, no figure is missed on the cell and its ore count is right; with the part the
    stack's outline fits best taken for the stack, the cowboy is missed (read as part of the stack)."""
    comp = read_generated(tmp_path, "goldrush", ["sheriff"], seed, photo)
    old = read_generated(tmp_path, "goldrush", ["sheriff"], seed, photo, config=config_with("figures", **BY_FIT))
    assert [e for e in comp.figure_errors if (e["x"], e["y"]) == cell] == []
    assert [e for e in comp.token_errors if (e["x"], e["y"]) == cell] == []
    assert [(e["error"], e["kind"], e["truth"]["player"]) for e in old.figure_errors
            if (e["x"], e["y"]) == cell] == [("missed", "meeple", "black")]
