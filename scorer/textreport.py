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


def _cells(cells: list[list[int]], limit: int = 4) -> str:
    shown = " ".join(f"{x},{y}" for x, y in cells[:limit])
    return shown + (f" +{len(cells) - limit}" if len(cells) > limit else "")


def _detail(entry: dict[str, Any]) -> str:
    skip = {"kind", "cells", "complete", "owners", "points", "city_cells"}
    parts = []
    for key, value in entry.items():
        if key in skip or value in (None, False, 0, [], {}):
            continue
        parts.append(f"{key} {value}" if not isinstance(value, bool) else key)
    return ", ".join(parts)


def _extra(e: dict[str, Any]) -> str:
    if e.get("kind") == "gold_bars":
        return f"{e.get('bars')} gold bars"
    if e.get("kind") == "ore_points":
        return "revealed ore tokens"
    rest = ", ".join(f"{k} {v}" for k, v in e.items() if k not in ("kind", "player", "points"))
    return f"{e.get('kind', '').replace('_', ' ')} {rest}".strip()


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
            lines.append(f"  {e.get('player')}: {_extra(e)} -> {e.get('points', 0)} points")
    if report.awards:
        lines += ["", "Tokens handed out:"]
        for a in report.awards:
            lines.append(f"  {a['player']} takes {a['count']} {a['token']} from {_cells(a.get('from', []))}")
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
            lines.append(f"  {f['kind']} {_cells(f['cells'])}: {f['points']} points")
        for s in c.suspects:
            lines.append(f"  suspect: {s}")
    if v.corrections:
        lines += ["", "One correction of the board would explain every difference (likely misread):"]
        for c in v.corrections:
            lines.append(f"  {c['description']}:  {c['command']}")
    lines.append("")
    lines.append("All claimed totals match." if v.ok else "Some claimed totals differ (see above).")
    return "\n".join(lines) + "\n"
