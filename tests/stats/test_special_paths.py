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


# --- sigreport.stats.tails: F, chi-square, normal and noncentral t upper tails (expected: scipy.stats' own
# calls on the same arguments, the installed scipy; exact equality) -----------------------------------------

F_XS = [-1.0, -0.0, 0.0, 1e-300, 1e-9, 0.05, 0.99, 1.0, 3.7, 47.2, 1e6, np.inf, -np.inf, np.nan]
F_DFS = [0.4, 1, 2.5, 3, 19, 1881, 1e7, np.inf, 0, -2, np.nan]


@pytest.mark.parametrize("x,d1,d2", list(itertools.product(F_XS, F_DFS, [1, 7.5, 18981, np.inf, 0, np.nan])))
def test_f_sf_is_scipy_stats(x, d1, d2):
    from sigreport.stats.tails import f_sf

    assert same(f_sf(x, d1, d2), float(sps.f.sf(x, d1, d2))), (x, d1, d2)


@pytest.mark.parametrize("x,df", list(itertools.product(F_XS, F_DFS)))
def test_chi2_sf_is_scipy_stats(x, df):
    from sigreport.stats.tails import chi2_sf

    assert same(chi2_sf(x, df), float(sps.chi2.sf(x, df))), (x, df)


def test_chi2_and_f_sf_take_numpy_and_integer_arguments_as_scipy_does():
    from sigreport.stats.tails import chi2_sf, f_sf

    rng = np.random.default_rng(11)
    for x in rng.exponential(3.0, 200):
        k = int(rng.integers(1, 60))
        assert same(chi2_sf(np.float64(x), k), float(sps.chi2.sf(np.float64(x), k)))
        assert same(f_sf(x, k, k * 999), float(sps.f.sf(x, k, k * 999)))


def test_norm_sf_is_scipy_stats():
    from sigreport.stats.tails import norm_sf

    rng = np.random.default_rng(12)
    finite = np.concatenate([rng.standard_normal(500) * 10, [0.0, -0.0, 1e-300, 37.5, 38.5, 40.0, -40.0]])
    for x in (finite, np.abs(finite), np.array([1.0, np.inf, np.nan, -np.inf]), np.array(2.5), np.zeros(0)):
        got, want = norm_sf(x), np.asarray(sps.norm.sf(x), dtype=np.float64)
        assert got.shape == want.shape
        assert all(same(a, b) for a, b in zip(got.ravel(), want.ravel()))


@pytest.mark.parametrize("df", [1, 2, 7, 99, 999, 9999.0, 0, -1, np.inf, np.nan])
def test_nct_sf_is_scipy_stats(df):
    from sigreport.stats.tails import nct_sf

    rng = np.random.default_rng(13)
    x = np.concatenate([rng.standard_normal(300) * 30, [-0.0, 0.0, 1e3, -1e3, 40.0]])
    nc = np.concatenate([rng.standard_normal(300) * 40, [0.0, -0.0, 50.0, -60.0, 1e3]])
    cases = [(x, nc), (x[:3], np.array([np.nan, 1.0, 2.0])), (np.array([np.inf, 1.0]), np.array([0.5, np.inf]))]
    for xs, ncs in cases:
        got = nct_sf(xs, df, ncs)
        with np.errstate(all="ignore"):
            want = np.asarray(sps.nct.sf(xs, df, ncs), dtype=np.float64)
        assert all(same(a, b) for a, b in zip(got, want)), df
