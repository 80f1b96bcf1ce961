"""``scorer evaluate DIR``: measure the photo pipeline on photos with ground truth.

A thin layer over :func:`scorer.evaluate.evaluate_dir`: it prints the summary
table (and one row per photo with ``--per-photo``) and writes the results as
JSON (``--out``) and/or CSV (``--csv``).  Any :class:`scorer.errors.ScorerError`
becomes a one-line ``error: ...`` message on stderr and exit status 2.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from .errors import ScorerError
from .evaluate import DEFAULT_READER, SCORE_MODES, Evaluation, evaluate_dir, load_reader

EXIT_BAD_INPUT = 2


def _exit_on_scorer_error(func):
    """Turn a domain error into one ``error:`` line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ScorerError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_BAD_INPUT)

    return wrapper


@click.command("evaluate")
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--per-photo", is_flag=True, help="Print one row per photo before the summary.")
@click.option("--out", "out_json", type=click.Path(dir_okay=False, path_type=Path),
              help="Write per-photo rows, summary and configuration as JSON.")
@click.option("--csv", "out_csv", type=click.Path(dir_okay=False, path_type=Path),
              help="Write per-photo rows and a summary row (photo ALL) as CSV.")
@click.option("--mode", type=click.Choice(SCORE_MODES), default=None,
              help="Scoring mode for the scores comparison [default: the truth's 'mode', else final].")
@click.option("--reader", "reader_spec", default=None, metavar="MODULE:FUNCTION",
              help=f"Photo pipeline to evaluate [default: {DEFAULT_READER}].")
@click.option("--tiles", "tile_sets", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Extra tile-set file the truth boards use (repeatable).")
@click.option("--no-memory", is_flag=True, help="Do not trace memory with tracemalloc (faster readers).")
@_exit_on_scorer_error
def evaluate(folder: Path, per_photo: bool, out_json: Path | None, out_csv: Path | None, mode: str | None,
             reader_spec: str | None, tile_sets: tuple[Path, ...], no_memory: bool) -> None:
    """Measure the photo pipeline on the photos of DIR that have ground truth.

    The truth of NAME.jpg (or .png, .heic) is NAME.jpg.truth.json,
    NAME.truth.json or NAME.board.json beside it.  Boards are compared up to
    translation; a photo the pipeline cannot read counts as a failed read.
    """
    reader = load_reader(reader_spec) if reader_spec else None
    result = evaluate_dir(folder, reader=reader, mode=mode, tile_sets=tile_sets, trace_memory=not no_memory)
    if per_photo:
        click.echo(format_photos(result))
        click.echo("")
    click.echo(format_summary(result))
    if out_json is not None:
        result.write_json(out_json)
        click.echo(f"wrote {out_json}")
    if out_csv is not None:
        result.write_csv(out_csv)
        click.echo(f"wrote {out_csv}")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _num(v: float | None, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def format_summary(result: Evaluation) -> str:
    """The summary as a two-column table (percentages; ``-`` where nothing was counted)."""
    s = result.summary()
    c = result.config
    rows = [
        ("reader", f"{c.get('reader')}{'' if c.get('reader_available', True) else ' (not available)'}"),
        ("photos", f"{s['photos']} ({s['failed_reads']} failed reads, {len(result.skipped)} without truth skipped)"
                    + (f", {s['north_turned']} compared a quarter turn back (no single north)" if s["north_turned"] else "")),
        ("grid found", _pct(s["grid_found"])),
        ("occupancy accuracy", _pct(s["occupancy"])),
        ("tile error per cell", _pct(s["tile_error"])),
        ("figure precision", _pct(s["figure_precision"])),
        ("figure recall", _pct(s["figure_recall"])),
        ("colour", _pct(s["colour"])),
        ("location", _pct(s["location"])),
        ("gold bars per cell", _pct(s["gold"])),
        ("ore tokens per cell", _pct(s["ore"])),
        ("boards, tiles right", _pct(s["boards_tiles_right"])),
        ("boards fully right", _pct(s["boards_right"])),
        ("scores exactly right", f"{_pct(s['scores_right'])} (of {s['scores_compared']} scored)"),
        ("seconds median / max", f"{_num(s['seconds_median'], '.3f')} / {_num(s['seconds_max'], '.3f')}"),
        ("peak MB (tracemalloc)", _num(s["tracemalloc_peak_mb"], ".1f")),
        ("peak RSS growth MB", _num(s["rss_delta_mb"], ".1f")),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def format_photos(result: Evaluation) -> str:
    """One row per photo: grid, occupancy, tile error, figures, board and scores right, time, memory."""
    head = ("photo", "grid", "occup", "tile err", "fig P", "fig R", "colour", "loc", "board", "scores",
            "sec", "MB", "reason")
    rows = [head]
    for p in result.photos:
        c = p.comparison
        rows.append((
            p.photo, "yes" if c.grid_found else "no", _pct(c.occupancy_accuracy), _pct(c.tile_error),
            _pct(c.figure_precision), _pct(c.figure_recall), _pct(c.colour_accuracy), _pct(c.location_accuracy),
            "ok" if c.board_right else "wrong", "-" if c.scores_right is None else "ok" if c.scores_right else "wrong",
            _num(p.seconds, ".3f"), _num(p.tracemalloc_peak_mb, ".1f"), p.reason or "",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head) - 1)]
    return "\n".join(("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1]).rstrip() for r in rows)
