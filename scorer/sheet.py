"""Score sheets a group can keep, and the compact score table shown after each correction.

* :func:`format_summary`: a few lines of text, one row per player (track,
  points, total and the change a correction made);
* :func:`sheet_html`: a self-contained HTML page (players, totals, the breakdown
  per feature, other points, problems, and a top-down picture of the board
  inlined as a base64 PNG);
* :func:`sheet_image`: the same as one picture (the board drawn by
  :func:`scorer.render.topdown.render_board`, the tables drawn with ``cv2.putText``);
* :func:`write_sheet`: either, chosen by the file extension.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import logging
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ScorerError
from .fileio import write_atomic
from .scoring import Report

log = logging.getLogger(__name__)

#: Longest side of the board picture on a sheet, in pixels.
SHEET_BOARD_PX = 1200
#: Tile side on a sheet picture, in pixels: at most / at least.
SHEET_TILE_PX = (128, 40)


def _title(report: Report) -> str:
    board = report.board
    game = {"carcassonne": "Carcassonne", "goldrush": "Carcassonne: Gold Rush"}.get(board.game, board.game)
    if board.expansions:
        game += " + " + ", ".join(e.capitalize() for e in board.expansions)
    return game


def _mode_text(report: Report) -> str:
    return "final scoring" if report.mode == "final" else "mid-game scoring (what the last tile completed)"


def _ranked(report: Report) -> list[tuple[str, dict[str, int]]]:
    totals = report.totals()
    return sorted(totals.items(), key=lambda kv: -kv[1]["total"])


def format_summary(report: Report, previous: Report | None = None, *, board_path: str = "BOARD") -> str:
    """The compact score table: one row per player.

    Parameters
    ----------
    report : Report
        The scoring to show.
    previous : Report, optional
        The scoring before a correction; adds a ``change`` column with the
        difference in total points.
    board_path : str
        Named in the hint to see the problems on the board.

    Returns
    -------
    str
        Newline-terminated text, e.g.::

            Final scoring
            player  track  points  total  change
            red        41     +16     57      +3
            blue       38     +12     50
    """
    totals = report.totals()
    old = previous.totals() if previous is not None else {}
    header = ["player", "track", "points", "total"] + (["change"] if previous is not None else [])
    rows = []
    for c, t in totals.items():
        row = [c, str(report.board.track.get(c, 0)), f"+{t['points']}", str(t["total"])]
        if previous is not None:
            d = t["total"] - old.get(c, {"total": previous.board.track.get(c, 0)})["total"]
            row.append(f"{d:+d}" if d else "")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    lines = [("Final scoring" if report.mode == "final" else "Mid-game scoring (what the last tile completed)")]
    for r in [header] + rows:
        lines.append("  ".join(v.ljust(widths[i]) if i == 0 else v.rjust(widths[i]) for i, v in enumerate(r)).rstrip())
    if report.problems:
        lines.append(f"{len(report.problems)} problem(s) on the board; see scorer score {board_path}")
    return "\n".join(lines) + "\n"


def _cells(cells: list, limit: int = 4) -> str:
    shown = " ".join(f"{x},{y}" for x, y in cells[:limit])
    return shown + (f" +{len(cells) - limit}" if len(cells) > limit else "")


def _feature_rows(report: Report) -> list[list[str]]:
    from .textreport import detail_text

    keys = ("tiles", "pennants", "cities", "neighbours", "nuggets", "locomotives", "camps", "horses")
    rows = []
    for f in report.features:
        rows.append([f["kind"], "complete" if f.get("complete") else "open", ", ".join(f.get("owners", [])) or "-",
                     str(f.get("points", 0)), _cells(f.get("cells", [])), detail_text(f, keys)])
    return rows


def _extra_rows(report: Report) -> list[list[str]]:
    from .textreport import extra_text

    return [[str(e.get("player", "")), extra_text(e), str(e.get("points", 0))] for e in report.extras]


def board_picture(report: Report, *, max_px: int = SHEET_BOARD_PX) -> np.ndarray | None:
    """Top-down picture of the scored board (RGB uint8), or ``None`` for a board without tiles."""
    from .render.topdown import render_board

    board = report.board
    if not board.tiles:
        return None
    x0, y0, x1, y1 = board.bounds()
    span = max(x1 - x0 + 1, y1 - y0 + 1)
    tile_px = int(max(SHEET_TILE_PX[1], min(SHEET_TILE_PX[0], max_px // span)))
    img, _ = render_board(board, tile_px=tile_px, margin=max(8, tile_px // 6))
    return img


def _png_bytes(rgb: np.ndarray) -> bytes:
    from .render.colours import encode_image

    return encode_image(np.ascontiguousarray(rgb), ".png")


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:60em;color:#222}
h1{margin-bottom:.1em}.sub{color:#666;margin-top:0}
table{border-collapse:collapse;margin:.6em 0 1.4em}th,td{padding:.25em .8em;border-bottom:1px solid #ddd;text-align:left}
td.n,th.n{text-align:right}.swatch{display:inline-block;width:.9em;height:.9em;border-radius:50%;
margin-right:.4em;vertical-align:-.1em;border:1px solid #0004}.win{font-weight:bold}
img{max-width:100%;border-radius:6px}.problems li{color:#a33}
"""


def sheet_html(report: Report, *, title: str | None = None, source: str | None = None,
               when: _dt.datetime | None = None) -> str:
    """A self-contained HTML score sheet.

    Parameters
    ----------
    report : Report
        The scoring (its board is drawn).
    title : str, optional
        Heading; the game and expansions by default.
    source : str, optional
        Where the board came from (file name), shown under the heading.
    when : datetime, optional
        Date shown on the sheet (default: now).

    Returns
    -------
    str
        HTML text; the board picture is inlined as a base64 PNG (no other files).
    """
    from .render.colours import PLAYER_RGB

    e = html.escape
    when = when or _dt.datetime.now()
    ranked = _ranked(report)
    best = ranked[0][1]["total"] if ranked else None
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>{e(title or _title(report))} - score sheet</title><style>{_CSS}</style></head><body>",
           f"<h1>{e(title or _title(report))}</h1>",
           f"<p class=\"sub\">{e(_mode_text(report).capitalize())} &middot; {e(when.strftime('%Y-%m-%d %H:%M'))}"
           + (f" &middot; {e(source)}" if source else "") + "</p>",
           "<h2>Players</h2><table><tr><th>#</th><th>player</th><th class=\"n\">track</th>"
           "<th class=\"n\">points</th><th class=\"n\">total</th></tr>"]
    for rank, (c, t) in enumerate(ranked, 1):
        rgb = PLAYER_RGB.get(c, (128, 128, 128))
        cls = " class=\"win\"" if t["total"] == best else ""
        out.append(f"<tr{cls}><td>{rank}</td><td><span class=\"swatch\" style=\"background:rgb{tuple(rgb)}\">"
                   f"</span>{e(c)}</td><td class=\"n\">{report.board.track.get(c, 0)}</td>"
                   f"<td class=\"n\">+{t['points']}</td><td class=\"n\">{t['total']}</td></tr>")
    out.append("</table>")
    frows = _feature_rows(report)
    out.append("<h2>Features scored</h2>")
    if frows:
        out.append("<table><tr><th>feature</th><th>state</th><th>owners</th><th class=\"n\">points</th>"
                   "<th>cells</th><th>detail</th></tr>")
        for r in frows:
            out.append("<tr>" + "".join(f"<td class=\"n\">{e(v)}</td>" if i == 3 else f"<td>{e(v)}</td>"
                                        for i, v in enumerate(r)) + "</tr>")
        out.append("</table>")
    else:
        out.append("<p>No feature scored.</p>")
    erows = _extra_rows(report)
    if erows:
        out.append("<h2>Other points</h2><table><tr><th>player</th><th>for</th><th class=\"n\">points</th></tr>")
        out += [f"<tr><td>{e(a)}</td><td>{e(b)}</td><td class=\"n\">{e(c)}</td></tr>" for a, b, c in erows]
        out.append("</table>")
    if report.problems:
        out.append("<h2>Problems on the board</h2><ul class=\"problems\">")
        for p in report.problems:
            cell = p.get("cell")
            where = f"{cell[0]},{cell[1]}: " if cell else ""
            out.append(f"<li>{e(where + str(p.get('message', p.get('kind'))))}</li>")
        out.append("</ul>")
    pic = board_picture(report)
    if pic is not None:
        data = base64.b64encode(_png_bytes(pic)).decode("ascii")
        out.append(f"<h2>The board</h2><img alt=\"top-down picture of the board\" "
                   f"src=\"data:image/png;base64,{data}\">")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def sheet_image(report: Report, *, title: str | None = None, source: str | None = None,
                when: _dt.datetime | None = None) -> np.ndarray:
    """The score sheet as one picture: heading, players table, board picture, features.

    Returns
    -------
    (H, W, 3) uint8 ndarray
        RGB; ``W`` is at least 900 pixels.
    """
    import cv2

    from .render.colours import PLAYER_RGB

    when = when or _dt.datetime.now()
    pic = board_picture(report, max_px=1000)
    font = cv2.FONT_HERSHEY_SIMPLEX
    width = max(900, (pic.shape[1] + 40) if pic is not None else 0)
    lines: list[tuple[str, Any]] = []  # (kind, payload)
    lines.append(("title", title or _title(report)))
    lines.append(("sub", f"{_mode_text(report).capitalize()} - {when.strftime('%Y-%m-%d %H:%M')}"
                  + (f" - {source}" if source else "")))
    lines.append(("gap", None))
    lines.append(("head", ["#", "player", "track", "points", "total"]))
    for rank, (c, t) in enumerate(_ranked(report), 1):
        lines.append(("player", (c, [str(rank), c, str(report.board.track.get(c, 0)), f"+{t['points']}",
                                     str(t["total"])])))
    lines.append(("gap", None))
    frows = _feature_rows(report)
    if frows:
        lines.append(("text", "Features scored"))
        lines.append(("head6", ["feature", "state", "owners", "points", "cells", "detail"]))
        lines += [("row6", r) for r in frows]
    else:
        lines.append(("text", "No feature scored."))
    erows = _extra_rows(report)
    if erows:
        lines.append(("text", "Other points"))
    for a, b, c in erows:
        lines.append(("small", f"{a}: {b} -> {c} point{'' if c == '1' else 's'}"))
    if report.problems:
        lines.append(("text", "Problems on the board"))
    for p in report.problems:
        cell = p.get("cell")
        lines.append(("problem", (f"{cell[0]},{cell[1]}: " if cell else "") + str(p.get("message", p.get("kind")))))
    heights = {"title": 44, "sub": 28, "gap": 14, "head": 30, "player": 30, "text": 32, "head6": 26, "row6": 24,
               "small": 24, "problem": 24}
    pic_h = (pic.shape[0] + 30) if pic is not None else 0
    text_h = sum(heights[k] for k, _ in lines) + 30
    img = np.full((text_h + pic_h, width, 3), 250, np.uint8)
    ink, grey = (30, 30, 30), (110, 110, 110)
    y = 20
    cols5 = [20, 60, 260, 370, 480]
    cols6 = [20, 130, 240, 420, 500, 680]
    split = next((i for i, (k, _) in enumerate(lines) if k == "text"), len(lines))
    for i, (kind, payload) in enumerate(lines):
        if i == split and pic is not None:  # the picture sits between the players and the features
            img[y + 10:y + 10 + pic.shape[0], 20:20 + pic.shape[1]] = pic
            y += pic_h
        y += heights[kind]
        if kind == "title":
            cv2.putText(img, payload, (20, y - 10), font, 1.0, ink, 2, cv2.LINE_AA)
        elif kind == "sub":
            cv2.putText(img, payload, (20, y - 8), font, 0.55, grey, 1, cv2.LINE_AA)
        elif kind in ("head", "head6"):
            cols = cols5 if kind == "head" else cols6
            for x, v in zip(cols, payload):
                cv2.putText(img, v, (x, y - 8), font, 0.55, grey, 1, cv2.LINE_AA)
            cv2.line(img, (20, y - 2), (width - 20, y - 2), (200, 200, 200), 1)
        elif kind == "player":
            colour, vals = payload
            rgb = tuple(int(v) for v in PLAYER_RGB.get(colour, (128, 128, 128)))
            cv2.circle(img, (cols5[1] - 12, y - 14), 8, rgb, -1, cv2.LINE_AA)
            cv2.circle(img, (cols5[1] - 12, y - 14), 8, (60, 60, 60), 1, cv2.LINE_AA)
            for x, v in zip(cols5, vals):
                cv2.putText(img, v, (x + (8 if x == cols5[1] else 0), y - 8), font, 0.7, ink,
                            2 if x == cols5[-1] else 1, cv2.LINE_AA)
        elif kind == "row6":
            for x, v in zip(cols6, payload):
                cv2.putText(img, v[:40], (x, y - 7), font, 0.5, ink, 1, cv2.LINE_AA)
        elif kind == "text":
            cv2.putText(img, payload, (20, y - 8), font, 0.75, ink, 2, cv2.LINE_AA)
        elif kind == "small":
            cv2.putText(img, payload, (20, y - 7), font, 0.5, ink, 1, cv2.LINE_AA)
        elif kind == "problem":
            cv2.putText(img, payload[:110], (20, y - 7), font, 0.5, (170, 40, 40), 1, cv2.LINE_AA)
    if split >= len(lines) and pic is not None:
        img[y + 10:y + 10 + pic.shape[0], 20:20 + pic.shape[1]] = pic
    return img


def write_sheet(report: Report, path: str | Path, *, title: str | None = None, source: str | None = None) -> Path:
    """Write a score sheet: ``.html``/``.htm`` (self-contained page) or ``.png`` (picture).

    Raises
    ------
    ScorerError
        Another file extension, or the folder does not exist.
    """
    path = Path(path)
    ext = path.suffix.lower()
    if ext in (".html", ".htm"):
        data: str | bytes = sheet_html(report, title=title, source=source)
    elif ext == ".png":
        data = _png_bytes(sheet_image(report, title=title, source=source))
    else:
        raise ScorerError(f"-o {str(path)!r}: a score sheet is .html or .png, not {ext or 'a file without extension'}")
    out = write_atomic(path, data)
    log.info("wrote score sheet %s", out)
    return out
