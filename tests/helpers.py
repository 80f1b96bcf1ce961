"""Small board builders for rule tests, for any game of the project, and the reading of a
synthesised photo for vision tests.

Boards are built as ``carcassonne-board/1`` JSON objects and read back through
:meth:`scorer.board.Board.from_dict`, so every test also exercises the JSON path.

Example::

    board = make_board(
        tiles=[(0, 0, "D", 0), (0, -1, "E", 2)],
        meeples=[("red", 0, 0, "N")],
        players=["red", "blue"], active="red", last_placed=(0, -1),
    )
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scorer.board import Board


def inline(*features: Mapping[str, Any], name: str = "inline", **meta: Any) -> dict[str, Any]:
    """An inline tile object: ``inline({"kind": "river", "edges": ["W", "E"]}, river="river")``."""
    out: dict[str, Any] = {"name": name}
    out.update(meta)
    out["features"] = [dict(f) for f in features]
    return out


def board_dict(
    tiles: Iterable[tuple] = (),
    meeples: Iterable[tuple] = (),
    *,
    game: str = "carcassonne",
    expansions: Iterable[str] = (),
    rules: Mapping[str, Any] | None = None,
    players: Iterable[str] | None = None,
    active: str | None = None,
    last_placed: tuple[int, int] | None = None,
    gold: Iterable[tuple] = (),
    tents: Iterable[tuple] = (),
    sheriff: tuple | None = None,
    ore: Iterable[tuple] = (),
    held: Mapping[str, Mapping[str, int]] | None = None,
    track: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """A ``carcassonne-board/1`` object from short tuples.

    Parameters
    ----------
    tiles : iterable of (x, y, tile, rot)
        ``tile`` is a catalogue id or an inline tile object (see :func:`inline`);
        ``rot`` may be left out (0).
    meeples : iterable of (player, x, y, at)
    game, expansions, rules, players, active
        As in the board format; ``players`` omitted leaves the field out.
    last_placed : (x, y), optional
    gold : iterable of (x, y, count)
        Goldmines gold bars on a tile.
    tents : iterable of (player, x, y, at)
    sheriff : (x, y, at), optional
    ore : iterable of (x, y, at, count)
    held : dict colour -> {"gold_bars": n, "ore_points": n}
    track : dict colour -> points
    """
    obj: dict[str, Any] = {
        "format": "carcassonne-board/1",
        "game": game,
        "expansions": list(expansions),
        "tiles": [
            {"x": t[0], "y": t[1], "tile": t[2], "rot": t[3] if len(t) > 3 else 0} for t in tiles
        ],
        "meeples": [{"player": p, "x": x, "y": y, "at": at} for p, x, y, at in meeples],
        "gold": [{"x": x, "y": y, "count": n} for x, y, n in gold],
        "tents": [{"player": p, "x": x, "y": y, "at": at} for p, x, y, at in tents],
        "ore": [{"x": x, "y": y, "at": at, "count": n} for x, y, at, n in ore],
    }
    if rules:
        obj["rules"] = dict(rules)
    if players is not None:
        obj["players"] = list(players)
    if active is not None:
        obj["active"] = active
    if last_placed is not None:
        obj["last_placed"] = {"x": last_placed[0], "y": last_placed[1]}
    if sheriff is not None:
        obj["sheriff"] = {"x": sheriff[0], "y": sheriff[1], "at": sheriff[2]}
    if held:
        obj["held"] = {c: dict(v) for c, v in held.items()}
    if track:
        obj["track"] = dict(track)
    return obj


def make_board(tiles: Iterable[tuple] = (), meeples: Iterable[tuple] = (), **kwargs: Any) -> Board:
    """A :class:`Board` read from :func:`board_dict` (same arguments)."""
    return Board.from_dict(board_dict(tiles, meeples, **kwargs))


def points_of(report) -> dict[str, int]:
    """``{colour: points}`` of a scoring report, without zero entries."""
    return {c: p for c, p in report.points.items() if p}


def kinds_of(problems: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ``kind`` of each problem, in order."""
    return [p["kind"] for p in problems]


def config_with(section: str, **values: Any):
    """The shipped vision config (``load_config()``) with some thresholds of one section changed."""
    import dataclasses

    from scorer.vision.config import load_config

    cfg = load_config()
    return dataclasses.replace(cfg, **{section: dataclasses.replace(getattr(cfg, section), **values)})


def read_generated(tmp_path, game: str, expansions: list[str], seed: int, photo: int, config=None):
    """Photo ``photo`` of the series ``scorer synth --generate N --difficulty mixed --seed SEED``
    saved under ``tmp_path`` and read with ``config`` (default: the shipped one): its
    :class:`scorer.evaluate.BoardComparison` with the truth."""
    from scorer.evaluate import compare_boards
    from scorer.render.synth import generated_photo
    from scorer.vision.pipeline import read_photo_full

    res, _level, _ = generated_photo(game, expansions, seed, photo, difficulty="mixed")
    path, _ = res.save(tmp_path / f"photo{photo}.jpg")
    return compare_boards(res.truth, read_photo_full(path, config=config).board)
