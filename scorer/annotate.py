"""What the photo pipeline saw, for people: an annotated photo and a small text map.

The annotated image draws, on the photo itself, the tile grid, each tile's id and
rotation, every figure in its colour, and every scored feature outlined in its
owner's colour with its points.  :func:`board_map` prints the board as a few
lines of text; :func:`least_sure` lists the detections least sure of themselves.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from .board import Board
from .render.colours import PLAYER_RGB
from .scoring import Report

#: Rotation marks for the text map: where the tile's catalogue north now points.
ROT_MARK = "^>v<"


def _rgb(colour: str | None) -> tuple[int, int, int]:
    if colour is None:
        return (235, 190, 40)
    return tuple(int(v) for v in PLAYER_RGB.get(colour, (255, 255, 255)))


def annotate_photo(rgb: np.ndarray, board: Board, to_photo, report: Report | None = None) -> np.ndarray:
    """Draw the reading and the scoring on a copy of the photo.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 ndarray
        The photo, RGB.
    board : Board
        The board read from it (cells in lattice coordinates of ``to_photo``).
    to_photo : callable
        Maps lattice points (N, 2) in tile units to photo pixels (N, 2), e.g.
        :meth:`scorer.vision.grid.Grid.to_photo`.
    report : Report, optional
        Scored features to outline in their owners' colours.

    Returns
    -------
    (H, W, 3) uint8 ndarray
        The annotated copy, RGB.
    """
    out = rgb.copy()
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 700))
    font = max(0.35, max(h, w) / 2400)
    offset = board.extra.get("photo", {}).get("offset", [0, 0])
    ox, oy = offset

    def poly(cell, inset=0.0):
        x, y = cell[0] + ox, cell[1] + oy
        pts = np.array([[x + inset, y + inset], [x + 1 - inset, y + inset], [x + 1 - inset, y + 1 - inset],
                        [x + inset, y + 1 - inset]], dtype=np.float64)
        return to_photo(pts).round().astype(np.int32)

    for (x, y), p in board.tiles.items():
        conf = p.extra.get("confidence", 1.0)
        colour = (255, 255, 255) if conf >= 0.8 else (255, 150, 0) if conf >= 0.5 else (255, 40, 40)
        cv2.polylines(out, [poly((x, y))], True, colour, thick, cv2.LINE_AA)
        c = to_photo(np.array([[x + ox + 0.5, y + oy + 0.5]]))[0]
        label = f"{p.tile.id}/{p.rot}"
        cv2.putText(out, label, (int(c[0]) - 12 * len(label) // 3, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, font,
                    (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, (int(c[0]) - 12 * len(label) // 3, int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, font,
                    colour, thick, cv2.LINE_AA)
    if report is not None:
        for f in report.features:
            if not f.get("owners") or f["kind"] in ("field", "prairie"):
                continue
            col = _rgb(f["owners"][0])
            for cx, cy in f["cells"]:
                cv2.polylines(out, [poly((cx, cy), 0.08)], True, col, thick + 1, cv2.LINE_AA)
            mx = np.mean([c[0] for c in f["cells"]]) + 0.5 + ox
            my = np.mean([c[1] for c in f["cells"]]) + 0.5 + oy
            m = to_photo(np.array([[mx, my]]))[0]
            cv2.putText(out, f"+{f['points']}", (int(m[0]), int(m[1]) + 20), cv2.FONT_HERSHEY_SIMPLEX, font * 1.4,
                        col, thick + 1, cv2.LINE_AA)
    from .render.topdown import LOCATION_ANCHORS

    figures = [(m.player, m) for m in board.meeples] + [(t.player, t) for t in board.tents]
    if board.sheriff is not None:
        figures.append((None, board.sheriff))
    for colour, f in figures:
        fx, fy = LOCATION_ANCHORS[f.at]
        pt = to_photo(np.array([[f.x + ox + fx, f.y + oy + fy]]))[0]
        r = max(4, round(max(h, w) / 250))
        cv2.circle(out, (int(pt[0]), int(pt[1])), r + 2, (0, 0, 0), -1, cv2.LINE_AA)
        cv2.circle(out, (int(pt[0]), int(pt[1])), r, _rgb(colour), -1, cv2.LINE_AA)
    return out


def board_map(board: Board) -> str:
    """The board as text: one 4-character cell per tile (id and rotation mark), ``*`` where figures stand.

    Rows run north to south, columns west to east; empty cells are ``.``.
    """
    if not board.tiles:
        return "(no tiles)\n"
    x0, y0, x1, y1 = board.bounds()
    figured = {f.cell for f in board.meeples + board.tents}
    if board.sheriff is not None:
        figured.add(board.sheriff.cell)
    width = max(3, max(len(p.tile.id) for p in board.tiles.values()) + 1)
    lines = []
    for y in range(y0, y1 + 1):
        row = []
        for x in range(x0, x1 + 1):
            p = board.tiles.get((x, y))
            if p is None:
                row.append(".".center(width))
            else:
                mark = ROT_MARK[p.rot] + ("*" if (x, y) in figured else "")
                row.append((p.tile.id + mark).ljust(width + 1)[: width + 1])
        lines.append(f"{y:>4} " + " ".join(row).rstrip())
    head = "     " + " ".join(str(x).ljust(width + 1)[: width + 1] for x in range(x0, x1 + 1))
    return head.rstrip() + "\n" + "\n".join(lines) + "\n"


def least_sure(board: Board, n: int = 5) -> list[dict[str, Any]]:
    """The ``n`` detections with the lowest confidence (tiles and figures), least sure first."""
    items: list[dict[str, Any]] = []
    for p in board.tiles.values():
        if "confidence" in p.extra:
            items.append({"what": "tile", "cell": [p.x, p.y], "read": f"{p.tile.id} rot {p.rot}",
                          "confidence": p.extra["confidence"], "alternatives": p.extra.get("alternatives", [])})
    for kind, figs in (("meeple", board.meeples), ("tent", board.tents)):
        for f in figs:
            if "confidence" in f.extra:
                items.append({"what": kind, "cell": [f.x, f.y], "read": f"{f.player} at {f.at}",
                              "confidence": f.extra["confidence"], "alternatives": f.extra.get("alternatives", [])})
    items.sort(key=lambda d: d["confidence"])
    return items[:n]
