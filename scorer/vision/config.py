"""Vision thresholds: ``config.toml`` read into one dataclass per pipeline stage.

The packaged ``scorer/vision/config.toml`` holds every threshold of the photo
pipeline, grouped by stage (``[grid]``, ``[tiles]``).  A user's own file
(``load_config(path)``) may set any subset; unknown keys are an error, so a
misspelt threshold is never silently ignored.
"""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ScorerError
from .grid import GridConfig
from .recognise import TileConfig


class ConfigError(ScorerError, ValueError):
    """A vision configuration file is unreadable or names an unknown threshold."""


@dataclass
class PhotoConfig:
    """Photo loading (``config.toml`` section ``[photo]``)."""

    max_side: int = 2048  # longest side the pipeline works at, pixels (larger photos are shrunk while decoding)
    retry_max_side: int = 4096  # a shrunk photo whose tiles come out too small is read again at up to this (0: never)
    retry_tile_px: float = 24.0  # ... too small there: narrower than this, pixels (tiles.min_tile_px refuses only at the size read last)


def _figure_config() -> type | None:
    try:
        from .figures import FigureConfig
    except ImportError:  # pragma: no cover - the figure stage is optional here
        return None
    return FigureConfig


@dataclass
class VisionConfig:
    """Every stage's thresholds.

    Attributes
    ----------
    photo : PhotoConfig
        Section ``[photo]``: loading (:mod:`scorer.vision.photo`).
    grid : GridConfig
        Section ``[grid]``: lattice detection (:mod:`scorer.vision.grid`).
    tiles : TileConfig
        Section ``[tiles]``: tile recognition (:mod:`scorer.vision.recognise`).
    figures : FigureConfig or None
        Section ``[figures]``: figure detection (:mod:`scorer.vision.figures`).
    extra : dict
        Sections of other stages, kept as read.
    """

    photo: PhotoConfig = field(default_factory=PhotoConfig)
    grid: GridConfig = field(default_factory=GridConfig)
    tiles: TileConfig = field(default_factory=TileConfig)
    figures: Any = field(default_factory=lambda: (_figure_config() or dict)())
    extra: dict[str, Any] = field(default_factory=dict)


def stages() -> dict[str, type]:
    """Section name -> stage dataclass."""
    out: dict[str, type] = {"photo": PhotoConfig, "grid": GridConfig, "tiles": TileConfig}
    fig = _figure_config()
    if fig is not None:
        out["figures"] = fig
    return out


def _build(cls: type, values: dict[str, Any], where: str) -> Any:
    known = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown threshold {key!r}; known: {', '.join(sorted(known))}")
        default = known[key].default
        if isinstance(default, tuple):
            if not isinstance(value, list):
                raise ConfigError(f"{where}: {key!r} must be a list, got {value!r}")
            value = tuple(value)
        elif isinstance(default, bool) or isinstance(value, bool):
            if not isinstance(value, bool) or not isinstance(default, bool):
                raise ConfigError(f"{where}: {key!r} must be {type(default).__name__}, got {value!r}")
        elif isinstance(default, int) and not isinstance(value, int):
            raise ConfigError(f"{where}: {key!r} must be an integer, got {value!r}")
        elif isinstance(default, float):
            if not isinstance(value, (int, float)):
                raise ConfigError(f"{where}: {key!r} must be a number, got {value!r}")
            value = float(value)
        kwargs[key] = value
    return cls(**kwargs)


def parse_config(obj: dict[str, Any], where: str = "config.toml") -> VisionConfig:
    """Build a :class:`VisionConfig` from parsed TOML (missing keys take the defaults).

    Raises
    ------
    ConfigError
        An unknown key, or a value of the wrong type; the message names section and key.
    """
    out = VisionConfig()
    known = stages()
    for section, values in obj.items():
        if section in known:
            if not isinstance(values, dict):
                raise ConfigError(f"{where}: [{section}] must be a table of thresholds")
            setattr(out, section, _build(known[section], values, f"{where} [{section}]"))
        else:
            out.extra[section] = values
    return out


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


#: The sections ``config.toml`` holds, with a title each.
PACKAGED_SECTIONS: dict[str, str] = {
    "photo": "Photo loading (scorer/vision/config.py, PhotoConfig).",
    "grid": "Lattice detection (scorer/vision/grid.py, GridConfig).",
    "tiles": "Tile recognition (scorer/vision/recognise.py, TileConfig); occ*_ weights fitted on synthetic photos.",
    "figures": "Figure detection (scorer/vision/figures.py, FigureConfig).",
}


def default_toml() -> str:
    """The text of the packaged ``config.toml``: every stage's dataclass defaults, commented.

    Regenerate the file with it after changing a default::

        python -c "from scorer.vision.config import default_toml; print(default_toml(), end='')" \\
            > scorer/vision/config.toml
    """
    import inspect
    import re

    out = [
        "# Thresholds of the photo pipeline, one section per stage; each section mirrors",
        "# its stage's dataclass defaults exactly (tests/test_vision_tiles.py checks it;",
        "# regenerate with scorer.vision.config.default_toml()).  Lengths in \"tile units\"",
        "# are fractions of a tile side.  A user's own file may set any subset.",
        "",
    ]
    known = stages()
    for section, title in PACKAGED_SECTIONS.items():
        cls = known[section]
        comments = {}
        for line in inspect.getsource(cls).splitlines():
            m = re.match(r"\s+(\w+): [^=]+=\s*.*?#\s*(.*)$", line)
            if m:
                comments[m.group(1)] = m.group(2)
        out += [f"[{section}]", f"# {title}"]
        obj = cls()
        for f in dataclasses.fields(cls):
            text = f"{f.name} = {_toml_value(getattr(obj, f.name))}"
            note = comments.get(f.name)
            out.append(f"{text:<39} # {note}" if note else text)
        out.append("")
    return "\n".join(out)


_default: VisionConfig | None = None


def load_config(path: str | Path | None = None) -> VisionConfig:
    """Read the vision thresholds.

    Parameters
    ----------
    path : str or Path, optional
        A TOML file; default: the packaged ``scorer/vision/config.toml``.

    Returns
    -------
    VisionConfig
        A fresh object the caller may change.

    Raises
    ------
    ConfigError
        Unreadable file, invalid TOML, unknown key or wrong type.
    """
    global _default
    if path is None:
        if _default is None:
            text = resources.files("scorer").joinpath("vision", "config.toml").read_text(encoding="utf-8")
            _default = parse_config(tomllib.loads(text))
        return copy.deepcopy(_default)
    p = Path(path)
    try:
        obj = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read vision config {str(p)!r}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p.name}: not valid TOML ({exc})") from None
    return parse_config(obj, p.name)
