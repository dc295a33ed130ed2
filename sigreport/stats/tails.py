"""Tail probabilities of scipy.stats distributions through the scipy.special functions scipy.stats calls.

``scipy.stats.f.sf(x, d1, d2)`` checks and broadcasts its arguments and then, for an argument strictly
inside the support and positive finite degrees of freedom, returns ``scipy.special.fdtrc(d1, d2, x)``;
``chi2.sf`` returns ``chdtrc(df, x)``, ``norm.sf`` returns ``ndtr(-x)`` and ``nct.sf`` returns
``clip(_nct_sf(x, df, nc), 0, 1)``. Calling those functions directly gives the same floats, and it
spares a build that needs nothing else from scipy.stats importing it (slow: scipy builds every
distribution's docstring at import). Anything outside the regular case (a bound of the support, an
infinite or NaN argument, a non-positive degree of freedom) goes to scipy.stats itself, so the edge cases
are scipy's by construction. tests/stats/test_special_paths.py checks every function against scipy.stats
on a grid that includes those edges, exactly.

This is also the one stats module that takes scipy's private routines from the speed seam
(:mod:`sigreport.speed.scipy_private`: ``nct``'s ``_nct_sf``, the studentized range's QUADPACK integrand,
Shapiro-Wilk's compiled ``swilk`` and ``shapiro`` under its wrapper): each function here uses one when the seam
gives it and scipy.stats otherwise (the plain path), with the same floats, so the tests elsewhere in
``sigreport.stats`` call plain functions and never see the seam.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from sigreport.speed import scipy_private
from sigreport.stats.lazy import scipy_special as special
from sigreport.stats.lazy import scipy_stats as sps


def _positive_finite(*values: float) -> bool:
    return all(math.isfinite(v) and v > 0 for v in values)


def f_sf(x: float, dfn: float, dfd: float) -> float:
    """``scipy.stats.f.sf(x, dfn, dfd)``: ``special.fdtrc(dfn, dfd, x)`` for 0 < x < inf and positive finite dfs."""
    x, dfn, dfd = float(x), float(dfn), float(dfd)
    if _positive_finite(x, dfn, dfd):
        return float(special.fdtrc(dfn, dfd, x))
    return float(sps.f.sf(x, dfn, dfd))


def chi2_sf(x: float, df: float) -> float:
    """``scipy.stats.chi2.sf(x, df)``: ``special.chdtrc(df, x)`` for 0 < x < inf and a positive finite df."""
    x, df = float(x), float(df)
    if _positive_finite(x, df):
        return float(special.chdtrc(df, x))
    return float(sps.chi2.sf(x, df))


def norm_sf(x: np.ndarray) -> np.ndarray:
    """``scipy.stats.norm.sf(x)`` of a float64 array: ``special.ndtr(-x)`` when every x is finite."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1 and np.isfinite(x).all():
        return np.asarray(special.ndtr(-x), dtype=np.float64)
    return np.asarray(sps.norm.sf(x), dtype=np.float64)


def nct_sf(x: np.ndarray, df: float, nc: np.ndarray) -> np.ndarray:
    """``scipy.stats.nct.sf(x, df, nc)`` of float64 arrays x and nc (same length) and one df:
    ``clip(special._ufuncs._nct_sf(x, df, nc), 0, 1)`` (with overflow warnings off, as scipy) when every x
    and nc is finite and df is positive and finite, and :func:`sigreport.speed.scipy_private.nct_sf` gives
    that function (not on the plain path)."""
    x = np.asarray(x, dtype=np.float64)
    nc = np.asarray(nc, dtype=np.float64)
    df = float(df)
    fast = scipy_private.nct_sf()  # scipy.stats.nct's own ``scu`` function; importing it loads nothing new
    if fast is not None and x.ndim == 1 and x.shape == nc.shape and _positive_finite(df) and np.isfinite(x).all() \
            and np.isfinite(nc).all():
        with np.errstate(over="ignore"):
            return np.asarray(np.clip(fast(x, df, nc), 0, 1), dtype=np.float64)
    return np.asarray(sps.nct.sf(x, df, nc), dtype=np.float64)


def studentized_range_sf_inf(q: np.ndarray, k: int) -> np.ndarray:
    """``scipy.stats.studentized_range.sf(q, k, np.inf)`` of a float64 array: the same floats, computed by
    :func:`sigreport.speed.scipy_private.studentized_range_sf_inf` where it can (less overhead per value)."""
    fast = scipy_private.studentized_range_sf_inf(q, k)
    if fast is not None:
        return fast
    return np.asarray(sps.studentized_range.sf(np.asarray(q, dtype=np.float64), k, np.inf), dtype=np.float64)


def shapiro(d: np.ndarray) -> Any:
    """``scipy.stats.shapiro(d)``. For a finite 1-d float array of 3 or more values, the function under its
    nan-policy/axis wrapper, which would only pass the same array on (a quarter of the time per call)."""
    raw = scipy_private.unwrapped(sps.shapiro)
    if raw is not None and d.ndim == 1 and d.size >= 3 and d.dtype == np.float64 and np.isfinite(d).all():
        return raw(d)
    return sps.shapiro(d)


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
