"""Plain-text rendering of scoring reports and verifications for the terminal."""

from __future__ import annotations

from typing import Any

from .scoring import Report
from .verify import Verification


def _table(rows: list[list[str]], header: list[str], right: set[int] = frozenset()) -> list[str]:
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        cells = [str(v).rjust(widths[i]) if i in right else str(v).ljust(widths[i]) for i, v in enumerate(row)]
        return "  ".join(cells).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]


#: Detail keys of a scored feature counted in a noun: key -> (singular, plural).
_NOUNS: dict[str, tuple[str, str]] = {
    "tiles": ("tile", "tiles"),
    "pennants": ("pennant", "pennants"),
    "cities": ("city", "cities"),
    "neighbours": ("neighbour", "neighbours"),
    "nuggets": ("nugget", "nuggets"),
    "locomotives": ("locomotive", "locomotives"),
    "camps": ("Indian camp", "Indian camps"),
    "horses": ("wild-horse herd", "wild-horse herds"),
    "rails": ("completed rail", "completed rails"),
    "open_rails": ("open rail", "open rails"),
    "towns": ("town", "towns"),
    "ore": ("ore token", "ore tokens"),
    "bars": ("gold bar", "gold bars"),
}


def plural(n: int, singular: str, many: str | None = None) -> str:
    """``1 city``, ``2 cities``: a count with its noun in the right number."""
    return f"{n} {singular if n == 1 else (many or singular + 's')}"


def cell_text(cell) -> str:
    """A cell as every text output writes it: ``2,-1``."""
    return f"{cell[0]},{cell[1]}"


def _cells(cells: list[list[int]], limit: int = 4) -> str:
    shown = " ".join(cell_text(c) for c in cells[:limit])
    return shown + (f" +{len(cells) - limit}" if len(cells) > limit else "")


def detail_text(entry: dict[str, Any], keys: tuple[str, ...] | None = None) -> str:
    """The detail of a scored feature in words: ``2 tiles, 1 pennant``, ``1 city, 3rd edition``.

    Parameters
    ----------
    entry : dict
        A ``features`` entry of the report.
    keys : tuple of str, optional
        Only these detail keys (all by default).
    """
    skip = {"kind", "cells", "complete", "owners", "points", "city_cells"}
    parts = []
    for key, value in entry.items():
        if key in skip or (keys is not None and key not in keys) or value in (None, False, 0, [], {}):
            continue
        if isinstance(value, bool):
            parts.append(key)
        elif key in _NOUNS and isinstance(value, int):
            parts.append(plural(value, *_NOUNS[key]))
        elif key in _NOUNS and isinstance(value, list):
            parts.append(plural(len(value), *_NOUNS[key]))
        elif key == "edition":
            parts.append(f"{value} edition")
        elif key == "farmers" and isinstance(value, dict):
            parts.append("farmers " + ", ".join(f"{c} {n}" for c, n in value.items()))
        elif isinstance(value, (dict, list)):
            parts.append(f"{key} " + ", ".join(map(str, value.items() if isinstance(value, dict) else value)))
        else:
            parts.append(f"{key.replace('_', ' ')} {value}")
    return ", ".join(parts)


_detail = detail_text


def extra_text(e: dict[str, Any]) -> str:
    """What points outside the board features were for: ``1 gold bar``, ``revealed ore tokens``."""
    if e.get("kind") == "gold_bars":
        return plural(e.get("bars", 0), "gold bar")
    if e.get("kind") == "ore_points":
        return "revealed ore tokens"
    rest = ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("kind", "player", "points"))
    return f"{e.get('kind', '').replace('_', ' ')} {rest}".strip()


_extra = extra_text


def award_text(a: dict[str, Any]) -> str:
    """``red takes 3 gold bars: 2 from 0,0, 1 from 1,0`` or ``... 2 ore tokens from the mountain at 0,0 1,0``."""
    n = a.get("count", 0)
    cells = a.get("from", []) or []
    if a.get("token") == "gold":
        counts: dict[tuple[int, int], int] = {}
        for x, y in cells:
            counts[(x, y)] = counts.get((x, y), 0) + 1
        what = plural(n, "gold bar")
        if len(counts) == 1:
            return f"{a['player']} takes {what} from {cell_text(next(iter(counts)))}"
        return f"{a['player']} takes {what}: " + ", ".join(f"{k} from {cell_text(c)}" for c, k in counts.items())
    if a.get("token") == "ore":
        return f"{a['player']} takes {plural(n, 'ore token')} from the mountain at {_cells(cells)}"
    return f"{a['player']} takes {n} {a.get('token')} from {_cells(cells)}"


def format_report(report: Report) -> str:
    """The score table per player, the breakdown per feature, tokens, returns and problems."""
    board = report.board
    title = "Mid-game scoring (what the last tile completed)" if report.mode == "completed" else "Final scoring"
    lines = [f"{title}: {board.game}" + (f" + {', '.join(board.expansions)}" if board.expansions else ""), ""]
    totals = report.totals()
    rows = [[c, str(board.track.get(c, 0)), f"+{t['points']}", str(t["total"])] for c, t in totals.items()]
    lines += _table(rows, ["player", "track", "points", "total"], right={1, 2, 3})
    if report.features:
        lines += ["", "Features scored:"]
        rows = [[f["kind"], "complete" if f["complete"] else "open", ", ".join(f["owners"]) or "-",
                 str(f["points"]), _cells(f["cells"]), _detail(f)] for f in report.features]
        lines += _table(rows, ["feature", "state", "owners", "pts", "cells", "detail"], right={3})
    else:
        lines += ["", "No feature scored."]
    if report.extras:
        lines += ["", "Other points:"]
        for e in report.extras:
            lines.append(f"  {e.get('player')}: {extra_text(e)} -> {plural(e.get('points', 0), 'point')}")
    if report.awards:
        lines += ["", "Tokens handed out:"]
        for a in report.awards:
            lines.append(f"  {award_text(a)}")
    if report.returned:
        lines += ["", "Figures going back: " + ", ".join(f"{m.player} from {m.x},{m.y} {m.at}" for m in report.returned)]
    for note in report.notes:
        lines.append(f"note: {note}")
    if report.problems:
        lines += ["", f"Problems on the board ({len(report.problems)}; the board is still scored):"]
        for p in report.problems:
            cell = p.get("cell")
            where = f"{cell[0]},{cell[1]}: " if cell else ""
            lines.append(f"  {where}{p.get('message', p.get('kind'))}")
    return "\n".join(lines) + "\n"


def format_verification(v: Verification) -> str:
    """Claimed against computed totals, with each difference explained."""
    rows = [[c.player, str(c.claimed), str(c.computed), f"{c.difference:+d}" if c.difference else "ok"] for c in v.checks]
    lines = _table(rows, ["player", "claimed", "computed", "difference"], right={1, 2})
    for c in v.checks:
        if c.ok:
            continue
        lines += ["", f"{c.player}: claims {c.claimed}, computed {c.computed} = track {c.track} + {c.points} "
                      f"({'claims too much' if c.difference > 0 else 'claims too little'} by {abs(c.difference)})"]
        for f in c.features:
            lines.append(f"  {f['kind']} {_cells(f['cells'])}: {plural(f['points'], 'point')}")
        for s in c.suspects:
            lines.append(f"  suspect: {s}")
    if v.corrections:
        lines += ["", "One correction of the board would explain every difference (likely misread):"]
        for c in v.corrections:
            lines.append(f"  {c['description']}:  {c['command']}")
    lines.append("")
    lines.append("All claimed totals match." if v.ok else "Some claimed totals differ (see above).")
    return "\n".join(lines) + "\n"
