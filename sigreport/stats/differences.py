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
from collections.abc import Sequence

import numpy as np

from sigreport.stats.pairwise import DifferenceSummary, describe_differences
from sigreport.stats.tails import shapiro_rows

#: Pairs per block of differences (bounds the (pairs x items) array: 256 x 10,000 doubles = 20 MB).
_PAIRS_PER_BLOCK = 256


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
