"""The photo pipeline: photo -> tile grid -> tiles -> figures -> Board.

Stages, each a module with one public entry, in pipeline order:
:mod:`~scorer.vision.photo` (``load_photo``), :mod:`~scorer.vision.grid`
(``find_grid``), tile recognition, figure detection; the orchestrator
``read_photo`` returns a :class:`scorer.board.Board` carrying per-detection
confidences.
"""


def read_photo(path, **kwargs):
    """Read a photo of a table into a :class:`scorer.board.Board` (see :mod:`.pipeline`)."""
    from .pipeline import read_photo as _read_photo

    return _read_photo(path, **kwargs)
