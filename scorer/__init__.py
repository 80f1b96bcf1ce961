"""scorer: a table-side scoring assistant for Carcassonne-family board games.

Photograph the table (or type the board in), read the tiles and figures, rebuild
the features and score them by the rules of base Carcassonne (with The River and
The Goldmines) or Carcassonne: Gold Rush (with The Sheriff); tally Goldland.
"""

__version__ = "0.1.0"
