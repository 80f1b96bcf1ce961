"""A picture of what the photo pipeline saw when it gave up on a photo.

When a photo cannot be read (no grid, too blurry, too dark, tiles too small),
``scorer score`` writes ``PHOTO.debug.jpg`` beside it: the photo, dimmed, with
the straight edges the grid search found (the candidates for tile seams), the
lattice it settled on if it found one, and the reason in a banner.  Looking at
it tells the user what to change: edges found only on the table's pattern mean
the tiles are too small or too faint; a lattice drawn off the tiles means a
cluttered table; no edges at all means too dark or too blurred.
"""

from __future__ import annotations

import logging
import textwrap
from typing import Any

import cv2
import numpy as np

log = logging.getLogger(__name__)

#: Longest side of the debug picture, pixels.
DEBUG_SIDE = 1600


def draw_seen(seen: dict[str, Any], message: str) -> np.ndarray | None:
    """Draw the photo with the edges and lattice found, and the failure message.

    Parameters
    ----------
    seen : dict
        :attr:`scorer.errors.PhotoError.seen`: ``image`` ((H, W, 3) uint8 RGB,
        required), optional ``segments`` ((N, 4) float, photo pixels x1, y1,
        x2, y2) and ``grid`` (:class:`~scorer.vision.grid.Grid`).
    message : str
        Why the photo was refused; wrapped into a banner across the top.

    Returns
    -------
    (h, w, 3) uint8 ndarray or None
        RGB picture at most :data:`DEBUG_SIDE` pixels on its longest side;
        None when ``seen`` holds no image.
    """
    img = seen.get("image")
    if not isinstance(img, np.ndarray) or img.ndim != 3:
        return None
    h, w = img.shape[:2]
    scale = min(1.0, DEBUG_SIDE / max(h, w))
    out = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    # Stretched to its own range (a too-dark photo still shows what is there), then dimmed under the drawing.
    lo, hi = np.percentile(out, (1, 99))
    out = np.clip((out.astype(np.float32) - lo) * (0.6 * 255 / max(hi - lo, 1.0)), 0, 255).astype(np.uint8)
    thick = max(1, round(max(out.shape[:2]) / 800))

    segs = seen.get("segments")
    if isinstance(segs, np.ndarray) and segs.size:
        for x1, y1, x2, y2 in segs.reshape(-1, 4) * scale:
            cv2.line(out, (round(x1), round(y1)), (round(x2), round(y2)), (80, 220, 255), thick, cv2.LINE_AA)

    grid = seen.get("grid")
    if grid is not None:
        _draw_lattice(out, grid, scale, thick)

    _banner(out, message, thick)
    return out


def _draw_lattice(out: np.ndarray, grid: Any, scale: float, thick: int) -> None:
    """Draw the lattice lines that fall inside the photo, in yellow."""
    h, w = grid.shape
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    try:
        lat = grid.to_lattice(corners)
    except (np.linalg.LinAlgError, ValueError):  # pragma: no cover - degenerate lattice
        return
    if not np.all(np.isfinite(lat)):
        return
    lo = np.floor(lat.min(axis=0)).astype(int)
    hi = np.ceil(lat.max(axis=0)).astype(int)
    if np.any(hi - lo > 200):  # a lattice seen almost edge-on: draw the part near the photo only
        return
    ts = np.linspace(0.0, 1.0, 24)
    for i in range(lo[0], hi[0] + 1):
        _polyline(out, grid.to_photo(np.c_[np.full_like(ts, i), lo[1] + ts * (hi[1] - lo[1])]) * scale, thick)
    for j in range(lo[1], hi[1] + 1):
        _polyline(out, grid.to_photo(np.c_[lo[0] + ts * (hi[0] - lo[0]), np.full_like(ts, j)]) * scale, thick)


def _polyline(out: np.ndarray, pts: np.ndarray, thick: int) -> None:
    if not np.all(np.isfinite(pts)) or np.abs(pts).max() > 1e6:
        return
    cv2.polylines(out, [np.round(pts).astype(np.int32)], False, (255, 230, 0), thick + 1, cv2.LINE_AA)


def _banner(out: np.ndarray, message: str, thick: int) -> None:
    """Write the message, wrapped, on a dark band across the top."""
    w = out.shape[1]
    font = max(0.4, w / 1600)
    chars = max(20, int(w / (font * 19)))
    lines = textwrap.wrap(message, chars)[:6]
    line_h = int(30 * font)
    band = line_h * len(lines) + line_h // 2
    out[:band] = (out[:band].astype(np.float32) * 0.3).astype(np.uint8)
    for k, text in enumerate(lines):
        cv2.putText(out, text, (int(10 * font), line_h * (k + 1)), cv2.FONT_HERSHEY_SIMPLEX, font,
                    (255, 255, 255), thick, cv2.LINE_AA)
