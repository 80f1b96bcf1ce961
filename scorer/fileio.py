"""Safe file output: every file the project writes goes through :func:`write_atomic`.

A temporary file is written in the target's folder and renamed over the target,
so a failed command leaves the earlier file intact and never a half-written one.
:func:`write_atomic_group` does the same for files that belong together (a
photo and its ground-truth sidecar): either every target gets its new content
or every target keeps its earlier one.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from .errors import ScorerError

log = logging.getLogger(__name__)


def _raw(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def _cannot(path: Path, exc: BaseException) -> ScorerError:
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return ScorerError(f"cannot write {str(path)!r}: {reason}")


def _check_target(path: Path) -> Path:
    """The folder of ``path``; raises when it is missing or ``path`` is a folder."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ScorerError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")
    if path.is_dir():
        raise ScorerError(f"cannot write {str(path)!r}: it is a folder; give a file name")
    return folder


def _write_temp(path: Path, folder: Path, raw: bytes) -> str:
    """Write ``raw`` to a new temporary file beside ``path``; returns its name."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _cannot(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
    except BaseException as exc:
        _unlink(tmp)
        if isinstance(exc, OSError):
            raise _cannot(path, exc) from None
        raise
    return tmp


def _unlink(name: str | Path) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file + rename).

    Parameters
    ----------
    path : str or Path
        Target file; its folder must exist.
    data : str or bytes
        Text (written as UTF-8) or bytes.

    Returns
    -------
    Path
        The written path.

    Raises
    ------
    ScorerError
        The folder does not exist or is not writable, the target is a folder, or
        the rename fails (permissions, full disk); the earlier file is intact.
    """
    path = Path(path)
    folder = _check_target(path)
    tmp = _write_temp(path, folder, _raw(data))
    try:
        os.replace(tmp, path)
    except BaseException as exc:
        _unlink(tmp)
        if isinstance(exc, OSError):
            raise _cannot(path, exc) from None
        raise
    return path


def write_atomic_group(items: list[tuple[str | Path, str | bytes]]) -> list[Path]:
    """Write several files that belong together: all of them, or none.

    Every file is first written to a temporary file beside its target; only when
    all are ready are they renamed over their targets.  Should a rename fail, the
    targets already replaced get their earlier content back (or are removed when
    they did not exist), so the files never disagree.

    Parameters
    ----------
    items : list of (path, data)
        Targets and their content (text is written as UTF-8).

    Returns
    -------
    list of Path
        The written paths, in the given order.

    Raises
    ------
    ScorerError
        A folder is missing or not writable, a target is a folder, or a rename
        fails; every target keeps its earlier content.
    """
    paths = [Path(p) for p, _ in items]
    folders = [_check_target(p) for p in paths]
    temps: list[str] = []
    backups: dict[int, str | None] = {}
    try:
        for path, folder, (_, data) in zip(paths, folders, items):
            temps.append(_write_temp(path, folder, _raw(data)))
        for i, (path, folder, tmp) in enumerate(zip(paths, folders, temps)):
            backup = None
            if path.exists():
                backup = os.path.join(folder, f".{path.name}.{os.getpid()}.{i}.bak")
                try:
                    os.link(path, backup)
                except OSError:  # no hard links here: keep a copy
                    try:
                        backup = _write_temp(path, folder, path.read_bytes())
                    except ScorerError:
                        backup = None
            backups[i] = backup
            try:
                os.replace(tmp, path)
            except OSError as exc:
                del backups[i]
                if backup is not None:
                    _unlink(backup)
                raise _cannot(path, exc) from None
    except BaseException:
        for i in sorted(backups, reverse=True):  # put the earlier files back
            backup = backups[i]
            try:
                if backup is None:
                    os.unlink(paths[i])
                else:
                    os.replace(backup, paths[i])
            except OSError:
                log.warning("could not restore %s", paths[i])
        for tmp in temps:
            _unlink(tmp)
        raise
    for backup in backups.values():
        if backup is not None:
            _unlink(backup)
    return paths
