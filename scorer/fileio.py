"""Safe file output: every file the project writes goes through :func:`write_atomic`.

A temporary file is written in the target's folder and renamed over the target,
so a failed command leaves the earlier file intact and never a half-written one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import ScorerError


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
        The folder does not exist or is not writable.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ScorerError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ScorerError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path
