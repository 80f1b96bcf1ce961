"""How the photo pipeline shares the processor's cores.

The pipeline splits its own work between two threads
(:func:`scorer.vision.recognise.parallel_map`), and most of that work is
NumPy and OpenCV code.  NumPy's BLAS (OpenBLAS) starts a thread per core for
every matrix product as well, and its threads wait for work by spinning: with
both pools on a 2-core machine, the cores spend a fifth of a photo's time
waiting for each other (a 12-megapixel photo of 72 tiles: 1.60 s with BLAS
threads, 1.22 s without, ``scripts/bench_vision.py``).  The matrix products
are small (one cell, one chunk of cells), so one BLAS thread loses nothing.

:func:`one_blas_thread` holds BLAS to one thread while a stage runs
(threadpoolctl, which restores the previous setting afterwards); calls nest.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from threadpoolctl import threadpool_limits

F = TypeVar("F", bound=Callable[..., Any])


def one_blas_thread(fn: F) -> F:
    """Decorate ``fn`` so that BLAS runs on one thread while it runs (see the module docstring).

    The result and the errors raised are ``fn``'s own; the BLAS thread count
    the caller had is restored afterwards, also when ``fn`` raises.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
