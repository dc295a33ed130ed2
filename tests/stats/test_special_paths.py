"""The scipy.special short cuts in :mod:`sigreport.stats.pairwise` give scipy.stats' own numbers, bit for bit.

``t_sf``, ``t_cdf``, ``t_ppf`` and ``nct_cdf`` skip scipy.stats' argument handling (tens of microseconds a
call, tens of thousands of calls in a large report) and call the scipy.special function that
``scipy.stats.t`` / ``scipy.stats.nct`` call themselves. The expected values here are scipy.stats' calls
on the same arguments (``scipy.stats.t.sf(x, df)`` etc., the installed scipy); equality is exact, so a
scipy release that changed its own path would fail here rather than silently change a report.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from sigreport.stats.pairwise import nct_cdf, shapiro, t_cdf, t_ppf, t_sf

XS = [-40.0, -7.5, -2.0, -1e-9, -0.0, 0.0, 1e-300, 0.3, 1.96, 2.5758293035489, 12.0, 1e3, np.inf, -np.inf, np.nan]
DFS = [1, 2, 2.5, 4, 9, 29, 999, 1e6, np.inf, 0, -1]
QS = [1e-12, 0.001, 0.025, 0.05, 0.5, 0.8, 0.95, 0.975, 0.995, 1 - 1e-12, 0.0, 1.0, 1.5, np.nan]


def same(a: float, b: float) -> bool:
    """Equal as results.json would write them (NaN equals NaN; -0.0 and 0.0 differ)."""
    return (np.isnan(a) and np.isnan(b)) or (a == b and np.signbit(a) == np.signbit(b))


@pytest.mark.parametrize("x,df", list(itertools.product(XS, DFS)))
def test_t_sf_and_cdf_are_scipy_stats(x, df):
    assert same(t_sf(x, df), float(sps.t.sf(x, df))), (x, df)
    assert same(t_cdf(x, df), float(sps.t.cdf(x, df))), (x, df)


@pytest.mark.parametrize("q,df", list(itertools.product(QS, DFS)))
def test_t_ppf_is_scipy_stats(q, df):
    assert same(t_ppf(q, df), float(sps.t.ppf(q, df))), (q, df)


@pytest.mark.parametrize("x,df,ncp", list(itertools.product([-30.0, -2.0, 0.0, 0.7, 3.2, 25.0, np.inf, np.nan],
                                                             [1, 2, 7, 99, 0],
                                                             [-40.0, -3.0, -0.0, 0.0, 1.5, 12.0, 60.0, np.nan])))
def test_nct_cdf_is_scipy_stats(x, df, ncp):
    assert same(nct_cdf(x, df, ncp), float(sps.nct.cdf(x, df, ncp))), (x, df, ncp)


@pytest.mark.parametrize("n,seed", [(3, 0), (4, 1), (11, 2), (50, 3), (1000, 4), (5001, 5)])
def test_shapiro_is_scipy_stats(n, seed):
    rng = np.random.default_rng(seed)
    for d in (rng.standard_normal(n), rng.exponential(size=n), np.round(rng.random(n), 2) - 0.5):
        with pytest.warns(UserWarning) if n > 5000 else _nothing():
            ours = shapiro(d)
        with pytest.warns(UserWarning) if n > 5000 else _nothing():
            want = sps.shapiro(d)
        assert same(float(ours.statistic), float(want.statistic)) and same(float(ours.pvalue), float(want.pvalue))


def test_shapiro_falls_back_to_scipy_stats_outside_the_short_cut():
    d = np.array([0.1, np.nan, 0.3, 0.2])
    want = sps.shapiro(d)  # NaN in, NaN out (scipy's nan policy)
    ours = shapiro(d)
    assert same(float(ours.pvalue), float(want.pvalue))


def _nothing():
    import contextlib

    return contextlib.nullcontext()
