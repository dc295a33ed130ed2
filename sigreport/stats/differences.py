"""Paired differences of many pairs of systems at once, with the same floats as one pair at a time.

A family of k systems has k(k - 1)/2 pairs (4,950 at k = 100), and each pair's row reports the mean,
SD, SE and Shapiro-Wilk of its differences (:func:`sigreport.stats.pairwise.describe_differences`).
One pair at a time that is a few numpy calls and a scipy call per pair, dominated by call overhead
at 1,000 items and by Shapiro-Wilk's sort and coefficients at 10,000. Here the differences of a
block of pairs are one (pairs x items) array whose rows are exactly ``a - b``; numpy reduces each
contiguous row with the same pairwise summation as a 1-d array, sorts each row with the same
routine, and scipy's Shapiro-Wilk core (``swilk``, the routine under ``scipy.stats.shapiro``) runs
per row with its coefficients computed once per n (they depend on n only). The results are
bit-for-bit the per-pair ones; tests/stats/test_differences.py checks that on random data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from sigreport.speed import scipy_private
from sigreport.stats.pairwise import DifferenceSummary, describe_differences, shapiro

#: Pairs per block of differences (bounds the (pairs x items) array: 256 x 10,000 doubles = 20 MB).
_PAIRS_PER_BLOCK = 256


def shapiro_rows(d: np.ndarray) -> list[tuple[float, float]]:
    """``(W, p)`` of ``scipy.stats.shapiro`` on every row of ``d`` (rows of 3 or more finite values).

    The body of scipy's ``shapiro`` on a whole block: sort each row, subtract its middle element
    (``x[N // 2]`` of the unsorted row, as scipy does), then ``swilk`` per row with the coefficients
    of the first row reused (``init = 1``; they depend on N only), and scipy's two warnings. Where that
    routine is not at hand (:func:`sigreport.speed.scipy_private.swilk`: the plain path, another scipy),
    ``shapiro`` itself runs per row: the same floats.
    """
    d = np.asarray(d)
    swilk = scipy_private.swilk()
    m, n = d.shape
    if swilk is None or d.dtype != np.float64 or n < 3 or not np.isfinite(d).all():
        return [(float(r.statistic), float(r.pvalue)) for r in (shapiro(np.ascontiguousarray(row)) for row in d)]
    y = np.sort(d, axis=1)
    y -= d[:, n // 2, None]
    a = np.zeros(n // 2, dtype=np.float64)
    out = []
    for i in range(m):
        w, pw, ifault = swilk(y[i], a, 1 if i else 0)
        if ifault not in (0, 2):
            warnings.warn("scipy.stats.shapiro: Input data has range zero. The results may not be accurate.",
                          stacklevel=2)
        if n > 5000:
            warnings.warn(f"scipy.stats.shapiro: For N > 5000, computed p-value may not be accurate. Current N is "
                          f"{n}.", stacklevel=2)
        out.append((float(w), float(pw)))
    return out


def describe_differences_many(x: np.ndarray, pairs: Sequence[tuple[int, int]]) -> list[DifferenceSummary]:
    """:func:`~sigreport.stats.pairwise.describe_differences` of ``x[:, i]`` and ``x[:, j]`` for every (i, j)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError("x must be an items x systems matrix")
    n = x.shape[0]
    if n < 3:  # the one-pair function words the degenerate cases
        return [describe_differences(x[:, i], x[:, j]) for i, j in pairs]
    xt = np.ascontiguousarray(x.T)
    out: list[DifferenceSummary] = []
    for start in range(0, len(pairs), _PAIRS_PER_BLOCK):
        chunk = pairs[start:start + _PAIRS_PER_BLOCK]
        ia = np.fromiter((i for i, _ in chunk), dtype=np.int64, count=len(chunk))
        ib = np.fromiter((j for _, j in chunk), dtype=np.int64, count=len(chunk))
        d = xt[ia] - xt[ib]  # row r is exactly x[:, i] - x[:, j]
        mean = d.mean(axis=1)
        sd = d.std(axis=1, ddof=1)
        top = np.maximum(np.max(d, axis=1), -np.min(d, axis=1))  # max |d|, exactly, without an |d| array
        constant = sd <= 1e-12 * np.where(top > 1.0, top, 1.0)  # max(1.0, top) as Python takes it
        tested = np.flatnonzero(~constant)
        rows = d if tested.size == len(chunk) else d[tested]
        sw = dict(zip(tested.tolist(), shapiro_rows(rows))) if tested.size else {}
        for r in range(len(chunk)):
            m_r, sd_r = float(mean[r]), float(sd[r])
            se = sd_r / math.sqrt(n)
            if r in sw:
                out.append(DifferenceSummary(n=n, mean=m_r, sd=sd_r, se=se, shapiro_w=sw[r][0],
                                             shapiro_pvalue=sw[r][1]))
            else:
                out.append(DifferenceSummary(n=n, mean=m_r, sd=sd_r, se=se, shapiro_w=None, shapiro_pvalue=None,
                                             warnings=("Shapiro-Wilk is undefined: the differences are constant",)))
    return out
