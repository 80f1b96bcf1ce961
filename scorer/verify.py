"""Check the totals the players claim against the computed ones.

A player's computed total is the score track (``board.track``) plus what the
scoring gives (``final`` mode by default: incomplete features, farms, gold bars,
ore).  Each difference is explained by the features involved: the player's own
scored features, and single features whose points equal the difference (the
likely mistake: a feature scored twice, forgotten, or scored for the wrong player).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .board import COLOURS, Board
from .errors import ScorerError
from .scoring import Report, score


@dataclass
class PlayerCheck:
    """One player's claim against the computed total (points)."""

    player: str
    claimed: int
    computed: int
    track: int
    points: int
    features: list[dict[str, Any]] = field(default_factory=list)
    suspects: list[str] = field(default_factory=list)

    @property
    def difference(self) -> int:
        """``claimed - computed`` (positive: the player claims too much)."""
        return self.claimed - self.computed

    @property
    def ok(self) -> bool:
        return self.difference == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "claimed": self.claimed,
            "computed": self.computed,
            "difference": self.difference,
            "ok": self.ok,
            "track": self.track,
            "points": self.points,
            "features": self.features,
            "suspects": self.suspects,
        }


@dataclass
class Verification:
    """Every claimed player's check and the scoring report they were checked against.

    ``corrections``: single corrections of the board (a figure's colour, a
    farmer's field, one tile) that would make every claim match, most likely first.
    """

    checks: list[PlayerCheck]
    report: Report
    corrections: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {"format": "carcassonne-verify/1", "ok": self.ok,
                "players": [c.to_dict() for c in self.checks], "corrections": self.corrections,
                "score": self.report.to_dict()}


def parse_claims(text: str) -> dict[str, int]:
    """Parse ``"red=102,blue=95"`` into ``{"red": 102, "blue": 95}``.

    Raises
    ------
    ScorerError
        A part is not ``colour=points``, an unknown colour, or a repeated colour.
    """
    out: dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        colour, sep, value = part.partition("=")
        colour = colour.strip()
        if not sep or not value.strip().lstrip("-").isdigit():
            raise ScorerError(f"--claimed: expected colour=points like red=102, got {part!r}")
        if colour not in COLOURS:
            raise ScorerError(f"--claimed: unknown colour {colour!r}; colours are {', '.join(COLOURS)}")
        if colour in out:
            raise ScorerError(f"--claimed: {colour} is given twice")
        out[colour] = int(value)
    if not out:
        raise ScorerError("--claimed: give at least one colour=points, e.g. red=102,blue=95")
    return out


def _where(entry: dict[str, Any]) -> str:
    cells = entry.get("cells") or []
    if not cells:
        return ""
    x, y = cells[0]
    more = f" (+{len(cells) - 1} tiles)" if len(cells) > 1 else ""
    return f" at {x},{y}{more}"


def verify(board: Board, claimed: dict[str, int], *, mode: str = "final", corrections: bool = True,
           board_path: str = "BOARD") -> Verification:
    """Compare claimed totals with track + computed points.

    Parameters
    ----------
    board : Board
        The table as it stands (``track`` holds the points already scored).
    claimed : dict colour -> int
        The totals the players say they have, in points.
    mode : {"final", "completed"}
        Scoring mode for the computed points (``final`` at the end of the game).
    corrections : bool
        Also search for one correction of the board that explains every
        difference (:func:`scorer.corrections.suggest_corrections`).
    board_path : str
        The board file's name, for the ``scorer fix`` command lines suggested.

    Returns
    -------
    Verification
        Per player: claimed, computed, difference, the player's scored features
        and suspects (features whose points equal the difference).

    Raises
    ------
    ScorerError
        A claimed colour does not play on this board.
    """
    colours = board.colours()
    for c in claimed:
        if colours and c not in colours:
            raise ScorerError(f"--claimed: {c} does not play on this board (players: {', '.join(colours)})")
    report = score(board, mode)
    totals = report.totals()
    checks = []
    for player, value in claimed.items():
        t = totals.get(player, {"points": 0, "total": board.track.get(player, 0)})
        own = [f for f in report.features if player in f.get("owners", [])]
        check = PlayerCheck(player, value, t["total"], board.track.get(player, 0), t["points"], own)
        diff = check.difference
        if diff:
            check.suspects = _suspects(report, player, diff)
        checks.append(check)
    result = Verification(checks, report)
    if corrections and not result.ok:
        from .corrections import fix_command, suggest_corrections

        for c in suggest_corrections(board, claimed, mode)[:3]:
            c = dict(c)
            c["command"] = fix_command(c["op"], c["args"], board_path)
            result.corrections.append(c)
    return result


def _suspects(report: Report, player: str, diff: int) -> list[str]:
    """Features and extras whose points would explain a difference of ``diff``."""
    out = []
    size = abs(diff)
    for f in report.features:
        pts = f.get("points", 0)
        mine = player in f.get("owners", [])
        label = f"{f['kind']}{_where(f)} ({pts} points, owners {', '.join(f.get('owners', [])) or 'none'})"
        if diff > 0 and mine and pts == size:
            out.append(f"{label}: scored twice?")
        elif diff > 0 and not mine and pts == size:
            out.append(f"{label}: claimed although {player} does not own it?")
        elif diff < 0 and mine and pts == size:
            out.append(f"{label}: not counted?")
    for e in report.extras:
        if e.get("player") != player:
            continue
        if e.get("points") == size:
            out.append(f"{e['kind'].replace('_', ' ')} ({e['points']} points): {'counted twice' if diff > 0 else 'not counted'}?")
        if e.get("kind") == "gold_bars" and e.get("bars"):
            bars, right = e["bars"], e["points"] // e["bars"]
            for per in (1, 2, 3, 4):
                if per != right and bars * per - e["points"] == diff:
                    out.append(f"{bars} gold bars counted at {per} point(s) each instead of {right} "
                               "(seed 001: 1-3 bars 1 each, 4-6 2, 7-9 3, 10+ 4)?")
    if diff < 0 and not out:
        out.append(f"{size} points short: check the score track and the features listed")
    elif diff > 0 and not out:
        out.append(f"{size} points too many: check the score track and the features listed")
    return out
