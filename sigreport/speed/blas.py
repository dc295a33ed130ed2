"""BLAS held to one thread while the analyses run in this process.

The analyses' matrix products are tall and thin (items x systems, replicates x items): a second BLAS
thread gains little on them, and waking it costs far more on a busy machine (on 2 shared cores, RM-ANOVA's
SVD of a 1,000 x 19 matrix was hundreds of times slower with two OpenBLAS threads than with one). The
products are the same bits either way (OpenBLAS splits rows and columns between threads, never a sum),
which tests/speed/test_speed.py checks by building every example on both paths.
"""

from __future__ import annotations

from collections.abc import Callable

from sigreport.speed import is_plain


def one_thread() -> Callable[[], None]:
    """Hold this process's BLAS libraries to one thread and return the function that puts back what they had
    (nothing is changed on the plain path)."""
    if is_plain():
        return lambda: None
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas").restore_original_limits
