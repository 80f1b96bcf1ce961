"""Pictures of tiles and boards: procedural tile art and a top-down board renderer.

RGB ``uint8`` everywhere; :mod:`scorer.render.colours` holds the figure colours
and the only BGR conversion.
"""

from .colours import PLAYER_RGB, SHERIFF_RGB
from .tileart import tile_image
from .topdown import LOCATION_ANCHORS, BoardRaster, render_board

__all__ = ["LOCATION_ANCHORS", "PLAYER_RGB", "SHERIFF_RGB", "BoardRaster", "render_board", "tile_image"]
