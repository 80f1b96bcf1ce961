"""Look-alike tiles under dark figures and ore stacks (tile stage).

A Gold Rush town and a rail crossing differ only at the tile centre; a dark
ore stack standing there fits the crossing's dark hub better than the town,
so the tile stage must take such pixels for hidden (``occ_dark``) instead of
letting them decide.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from scorer.vision.config import load_config
from scorer.vision.recognise import read_tiles

from test_vision_tiles import photo, truth_grid


def _dark_disc_on_the_town(seed: int):
    """A synthetic Gold Rush photo with a near-black disc (an ore stack's top) on the GR23 town."""
    res = photo("goldrush", ["sheriff"], 30, seed)
    cell = next(c for c, p in res.truth.tiles.items() if p.tile.id == "GR23")
    g = truth_grid(res)
    centre = g.to_photo(np.array([[cell[0] + 0.5, cell[1] + 0.5]]))[0]
    side = float(np.linalg.norm(g.to_photo(np.array([[cell[0] + 1.0, cell[1]]]))
                                - g.to_photo(np.array([[float(cell[0]), float(cell[1])]]))))
    img = res.image.copy()
    cv2.circle(img, (int(centre[0]), int(centre[1])), int(0.17 * side), (38, 38, 40), -1)
    return res, g, cell, img


def test_a_dark_stack_on_a_town_is_hidden_not_read_as_a_crossing_hub():
    res, g, cell, img = _dark_disc_on_the_town(95005)
    rot = res.truth.tiles[cell].rot
    assert rot == 2
    off = read_tiles(img, g, res.truth.catalog, dataclasses.replace(load_config().tiles, occ_dark=0.0))
    on = read_tiles(img, g, res.truth.catalog, load_config().tiles)
    assert (off.cells[cell].tile_id, off.cells[cell].rot) == ("GR21", 2)  # the disc fits the crossing's hub
    assert (on.cells[cell].tile_id, on.cells[cell].rot) == ("GR23", 2)
    assert cell in {(x, y) for x, y, _ in on.debug["hidden"]}
