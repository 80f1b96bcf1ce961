"""Ore stack counts read together with the mountains they lie on (Gold Rush).

A stack of face-down ore tokens seen from above shows its top token; its
height shows only in the stack's side, a few pixels under a steep camera and
none from straight above, so the figure stage's count
(:func:`scorer.vision.figures.read_figures`, the stack solid of the best
height) is often short.  The rules say more: every tile placed puts as many
tokens on its mountain as it shows nugget symbols, all on one stack, and only a
tent takes tokens away (one a turn) while the mountain is open (seed 000,
``rules.md`` section 6, turn steps 1 and 2c).  So a mountain with no tent on it
holds as many tokens as its nugget symbols (unless a tent mined it and moved
on, which the photo cannot show), and no mountain holds more.

:func:`settle_ore_counts` applies this to a board read from a photo: the one
stack of a mountain without a tent gets the mountain's nugget count; stacks of
a mountain with a tent (or several stacks on one mountain, where two mountains
were joined) keep the count seen, lowered so that together they hold no more
than the nuggets.  A changed stack keeps the count seen as ``count_seen`` (an
extra field of the board JSON) so the correction step can show both.
"""

from __future__ import annotations

import logging

from ..board import Board
from ..errors import ScorerError
from ..features import FeatureGraph

log = logging.getLogger(__name__)


def settle_ore_counts(board: Board) -> int:
    """Set the count of each ore stack of ``board`` from the nuggets of its mountain (see the module docstring).

    Parameters
    ----------
    board : Board
        A Gold Rush board with tiles and the figures read (``board.ore``,
        ``board.tents``); its stacks are changed in place.  Other games and
        boards without stacks are left alone.

    Returns
    -------
    int
        Number of stacks whose count changed.

    Notes
    -----
    Rule source: seed 000 (``rules.md`` section 6): "put that many face-down
    ore tokens on the mountain (stacked at one spot of the whole mountain)";
    "take the top ore token of the mountain where your tent stands".  A board
    whose features cannot be built (an inconsistent reading) is left as read.
    """
    if board.game != "goldrush" or not board.ore:
        return 0
    try:
        graph = FeatureGraph(board)
    except ScorerError as exc:  # pragma: no cover - the assembled board was checked already
        log.debug("ore counts left as read: %s", exc)
        return 0
    on: dict[int, list] = {}
    for stack in board.ore:
        f = graph.locate(stack.cell, stack.at) if stack.at else None
        if f is not None and f.kind == "mountain":
            on.setdefault(f.id, []).append(stack)
    changed = 0
    for fid, stacks in on.items():
        mountain = graph.features[fid]
        nuggets = int(mountain.nuggets)
        if nuggets < len(stacks):
            continue  # more stacks than symbols: a stack is misread; nothing to go by
        seen = [int(s.count) for s in stacks]
        if len(stacks) == 1 and not mountain.tents:
            new = [nuggets]
        else:
            new = list(seen)
            while sum(new) > nuggets:
                i = max(range(len(new)), key=lambda k: new[k])
                new[i] -= 1
        for stack, was, now in zip(stacks, seen, new):
            if now != was:
                stack.extra["count_seen"] = was
                stack.count = now
                changed += 1
    if changed:
        log.debug("ore counts: %d stack(s) set from their mountains' nuggets", changed)
    return changed
