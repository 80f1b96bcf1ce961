"""Score a photo end to end: read it, score it, save what was read beside it.

``scorer score PHOTO`` writes ``PHOTO.board.json`` (the board read, with
confidences, ready for ``scorer fix`` / ``scorer review``) and
``PHOTO.annotated.jpg`` (grid, tile ids, figures, scored features with their
points), both atomically.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .annotate import annotate_photo, board_map, least_sure
from .errors import PhotoError
from .fileio import write_atomic
from .render.colours import encode_image
from .scoring import Report, score
from .textreport import format_report

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp", ".bmp", ".tif", ".tiff"}


def is_photo(path: str | Path) -> bool:
    """Whether ``path`` names an image file (by its suffix)."""
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


@dataclass
class PhotoScore:
    """One photo's reading, its scoring and the files written beside it."""

    source: str
    report: Report
    board_path: Path | None
    annotated_path: Path | None
    seconds: dict[str, float]

    def summary(self) -> str:
        """Terminal summary: a small map, the score table, the least sure detections, files written."""
        board = self.report.board
        figures = len(board.meeples) + len(board.tents) + (board.sheriff is not None)
        lines = [f"{self.source}: {len(board.tiles)} tiles, {figures} figures read "
                 f"({sum(self.seconds.values()):.1f} s)", "", board_map(board).rstrip(),
                 "(tile id, then its turn: ^ as in `scorer tiles`, > a quarter turn clockwise, v a half turn, "
                 "< a quarter turn anticlockwise; * figures stand on it)", ""]
        photo = board.extra.get("photo", {})
        for key, what, hint in (
                ("cut_cells", "cell(s) cut by the photo's edge were not read", ""),
                ("removed_cells", "cell(s) looked like the table, not a tile, and were left empty",
                 " (add a tile there with `scorer fix` if one lies there)"),
                ("detached_cells", "tile(s) lay apart from the board (spare tiles, a score board?) and were left out",
                 " (add them with `scorer fix` if they belong to the board)")):
            cells = photo.get(key) or []
            if cells:
                lines += [f"{len(cells)} {what}: " + " ".join(f"{x},{y}" for x, y in cells[:8])
                          + ("..." if len(cells) > 8 else "") + hint, ""]
        lines.append(format_report(self.report).rstrip())
        if self.board_path is not None and not any(board.track.values()):
            from .corrections import fix_command

            held = None
            if self.report.mode == "final":
                held = ({"ore_points": 5} if board.game == "goldrush"
                        else {"gold_bars": 2} if "goldmines" in board.expansions else None)
            what = "the score track" + (" or what the players hold" if held else "")
            track = fix_command("set_track", {"points": {"red": 37, "blue": 52}}, str(self.board_path))
            lines += ["", f"The photo does not show {what}: the totals are this scoring alone. Add "
                      + ("them" if held else "it") + f" with `{track}`"
                      + (f" and `{fix_command('set_held', {'player': 'red', **held}, str(self.board_path))}`"
                         if held else "") + "."]
        weak = [d for d in least_sure(board) if d["confidence"] < 0.9]
        if weak:
            lines += ["", "Least sure (check these first; fix with `scorer fix` or walk them with `scorer review`):"]
            for d in weak:
                alts = ", ".join(_alt(a) for a in d["alternatives"][:3])
                lines.append(f"  {d['what']} {d['cell'][0]},{d['cell'][1]}: {d['read']} "
                             f"({d['confidence']:.0%})" + (f"; or {alts}" if alts else ""))
        written = [str(p) for p in (self.board_path, self.annotated_path) if p]
        if written:
            lines += ["", "wrote " + ", ".join(written)]
        return "\n".join(lines) + "\n"


def _alt(a: dict[str, Any]) -> str:
    if "tile" in a and a.get("first_read"):
        # The tile stage's reading, replaced where the figures' stage saw its art fit badly:
        # its confidence was among the tiles alone, not against the reading now shown.
        return f"{a['tile']} rot {a.get('rot', 0)} (read first, before the figures were seen)"
    if "tile" in a:
        return f"{a['tile']} rot {a.get('rot', 0)} ({a.get('confidence', 0):.0%})"
    if "at" in a:
        return f"at {a['at']} ({a.get('confidence', 0):.0%})"
    return ", ".join(f"{k} {v}" for k, v in a.items())


def write_debug_image(exc: PhotoError, stem: Path) -> Path | None:
    """Save ``STEM.debug.jpg``: what the pipeline saw before refusing the photo.

    Parameters
    ----------
    exc : PhotoError
        The refusal, with :attr:`~scorer.errors.PhotoError.seen` filled in.
    stem : Path
        The photo's path (or the frame's name); ``.debug.jpg`` is appended.

    Returns
    -------
    Path or None
        The file written; None when nothing was seen or it could not be written
        (the reason is logged).
    """
    from .vision.debugview import draw_seen

    img = draw_seen(exc.seen, str(exc))
    if img is None:
        return None
    path = Path(f"{stem}.debug.jpg")
    try:
        return write_atomic(path, encode_image(img, ".jpg"))
    except OSError as err:
        log.warning("could not write the debug image %s: %s", path, err)
        return None


def score_photo(source: str | Path | np.ndarray, *, final: bool = False, game: str | None = None,
                players: Sequence[str] | None = None, tile_sets: Sequence[str | Path] = (),
                appearance: Any = None, art_dir: str | Path | None = None, write: bool = True,
                name: str | None = None) -> PhotoScore:
    """Read a photo (or webcam frame), score it and save the board and annotated image beside it.

    Parameters
    ----------
    source : path or (H, W, 3) uint8 ndarray
        Photo file, or an RGB frame (then ``name`` gives the output file stem).
    final : bool
        End-of-game scoring instead of what the last tile completed.
    game, players, tile_sets, appearance, art_dir
        Passed to :func:`scorer.vision.pipeline.read_photo_full`.
    write : bool
        Save ``PHOTO.board.json`` and ``PHOTO.annotated.jpg``.
    name : str, optional
        Output stem for a frame (``camera0`` -> ``camera0.board.json``).

    Raises
    ------
    PhotoError, TableNotFoundError
        The photo cannot be read or shows no tile grid.  With ``write``, a
        debug image of what was seen is saved as ``PHOTO.debug.jpg`` first and
        the message names it.
    """
    from .vision.pipeline import read_photo_full

    try:
        reading = read_photo_full(source, game=game, players=players, tile_sets=tile_sets,
                                  appearance=appearance, art_dir=art_dir)
    except PhotoError as exc:
        if not write or exc.seen.get("image") is None:
            raise
        debug = write_debug_image(exc, Path(name) if name else Path(source))
        if debug is None:
            raise
        err = type(exc)(f"{exc} (what the reader saw: {debug})")
        err.seen = exc.seen
        raise err from None
    report = score(reading.board, "final" if final else "completed")
    label = name or str(source)
    board_path = annotated_path = None
    if write:
        stem = Path(name) if name else Path(source)
        board_path = write_atomic(Path(f"{stem}.board.json"), reading.board.to_json())
        img = annotate_photo(reading.image, reading.board, reading.grid.to_photo, report)
        annotated_path = write_atomic(Path(f"{stem}.annotated.jpg"), encode_image(img, ".jpg"))
    return PhotoScore(label, report, board_path, annotated_path, reading.seconds)
