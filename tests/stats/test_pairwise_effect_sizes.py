"""Differences summary and small-sample-corrected paired effect sizes.

References (hard-coded; nothing here runs R):
- Lakens (2013), Frontiers in Psychology 4:863, Table 1 (movie ratings of 10 people) and the
  text's worked example: t(9) = 4.74, Cohen's d_z = 1.50, Cohen's d_av = 1.13.
- R 4.2.2 with effectsize 0.8.3 (Debian r-cran-effectsize): ``cohens_d(a, b, paired = TRUE)``
  and ``hedges_g(a, b, paired = TRUE)`` (noncentral-t intervals); ``shapiro.test``, ``sd``;
  Hedges' J by ``exp(lgamma(df/2) - log(sqrt(df/2)) - lgamma((df-1)/2))``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sigreport.stats.pairwise import describe_differences, hedges_j, noncentral_t_ci, paired_effect_sizes

LAKENS_A = np.array([9, 7, 8, 9, 8, 9, 9, 10, 9, 9], dtype=float)  # Lakens 2013 Table 1, movie 1
LAKENS_B = np.array([9, 6, 7, 8, 7, 9, 8, 8, 8, 7], dtype=float)  # movie 2
# 14 differences (as many as Demšar's data sets), typed in; R: x <- c(...); y <- rep(0, 14)
X14 = np.array([0.8, 0.1, -0.3, 1.2, 0.5, 0.9, -0.2, 0.4, 1.1, 0.05, 0.3, 0.6, 0.2, 0.7])


def test_lakens_2013_published_values():
    e = paired_effect_sizes(LAKENS_A, LAKENS_B)
    assert round(e.d_z.value, 2) == 1.50  # Lakens 2013: "Cohen's d_z = 1.50"
    assert round(e.d_av.value, 2) == 1.13  # Lakens 2013: "Cohen's d_av = 1.13"
    assert round(e.d_z.value * math.sqrt(10), 2) == 4.74  # t(9) = 4.74


def test_d_z_and_g_z_with_intervals_match_effectsize():
    e = paired_effect_sizes(LAKENS_A, LAKENS_B)
    # effectsize 0.8.3: cohens_d(a, b, paired = TRUE): 1.5, CI 0.560514144905937, 2.4034363122637
    assert e.d_z.value == pytest.approx(1.5, rel=1e-14)
    assert (e.d_z.ci_low, e.d_z.ci_high) == pytest.approx((0.560514144905937, 2.4034363122637), rel=1e-6)
    # hedges_g(a, b, paired = TRUE): 1.37081233768883, CI 0.512239803524109, 2.19644009980028
    assert e.g_z.value == pytest.approx(1.37081233768883, rel=1e-12)
    assert (e.g_z.ci_low, e.g_z.ci_high) == pytest.approx((0.512239803524109, 2.19644009980028), rel=1e-6)
    assert e.ci_method == "noncentral_t" and e.ci_level == 0.95


def test_fourteen_items_at_90_percent_match_effectsize():
    e = paired_effect_sizes(X14, np.zeros(14), ci_level=0.90)
    # effectsize 0.8.3: cohens_d(x, rep(0, 14), paired = TRUE, ci = 0.9):
    #   0.985752279581815, CI 0.430128364314925, 1.51149162094599
    assert e.d_z.value == pytest.approx(0.985752279581815, rel=1e-12)
    assert (e.d_z.ci_low, e.d_z.ci_high) == pytest.approx((0.430128364314925, 1.51149162094599), rel=1e-6)
    # hedges_g(..., paired = TRUE, ci = 0.9): 0.927575612356206, CI 0.404743249582388, 1.42228711503972
    assert e.g_z.value == pytest.approx(0.927575612356206, rel=1e-12)
    assert (e.g_z.ci_low, e.g_z.ci_high) == pytest.approx((0.404743249582388, 1.42228711503972), rel=1e-6)
    assert e.d_z.value / e.g_z.value == pytest.approx(1.0627, abs=1e-4)  # d_z runs ~6% high at n = 14


def test_d_av_and_g_av_formula():
    e = paired_effect_sizes(LAKENS_A, LAKENS_B)
    # R 4.2.2: dav <- mean(d) / ((sd(a) + sd(b)) / 2) = 1.12869626131754;
    #   J(9) = 0.913874891792553; J * dav = 1.03148717367823 (df = n - 1, Cumming 2012 p. 294;
    #   Lakens's spreadsheet uses 2(n - 1) and prints g_av = 1.08 for these data)
    assert e.d_av.value == pytest.approx(1.12869626131754, rel=1e-12)
    assert hedges_j(9) == pytest.approx(0.913874891792553, rel=1e-13)
    assert e.g_av.value == pytest.approx(1.03148717367823, rel=1e-12)
    # interval: d_z's noncentral-t interval rescaled by SD(d) / SD_av (documented approximation)
    ratio = e.d_av.value / e.d_z.value
    assert e.d_av.ci_low == pytest.approx(e.d_z.ci_low * ratio, rel=1e-12)
    assert e.g_av.ci_high == pytest.approx(e.d_z.ci_high * ratio * hedges_j(9), rel=1e-12)


def test_describe_differences_matches_r():
    s = describe_differences(LAKENS_A, LAKENS_B)
    # R 4.2.2: shapiro.test(d): W = 0.8148397636204, p-value = 0.0219477903116;
    #   sd(d) = 0.666666666666667; sd(d) / sqrt(10) = 0.210818510677892
    assert s.shapiro_w == pytest.approx(0.8148397636204, rel=1e-8)
    assert s.shapiro_pvalue == pytest.approx(0.0219477903116, rel=1e-7)
    assert (s.sd, s.se, s.mean, s.n) == pytest.approx((0.666666666666667, 0.210818510677892, 1.0, 10), rel=1e-13)


def test_degenerate_inputs_give_none_with_warnings():
    e = paired_effect_sizes(np.array([1.0, 2.0]), np.array([0.0, 1.0]))
    assert e.d_z.value is None and e.warnings
    c = paired_effect_sizes(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0]))  # constant differences
    assert c.g_z.value is None and "zero variance" in c.warnings[0]
    s = describe_differences(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0]))
    assert s.sd == 0.0 and s.shapiro_w is None and s.warnings


def test_noncentral_t_interval_covers_by_definition():
    from scipy import stats as sps

    lo, hi = noncentral_t_ci(2.5, 12, 0.95)
    assert sps.nct.sf(2.5, 12, lo) == pytest.approx(0.025, abs=1e-10)
    assert sps.nct.cdf(2.5, 12, hi) == pytest.approx(0.025, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(float, st.integers(4, 25), elements=st.floats(-5, 5)), st.floats(-2, 2))
def test_swapping_systems_flips_signs_and_g_shrinks_d(x, shift):
    y = np.roll(x, 1) * 0.5 + shift
    e, f = paired_effect_sizes(x, y), paired_effect_sizes(y, x)
    if e.d_z.value is None:
        return
    assert f.d_z.value == pytest.approx(-e.d_z.value, rel=1e-9, abs=1e-12)
    assert abs(e.g_z.value) <= abs(e.d_z.value)
    assert e.d_z.ci_low <= e.d_z.value <= e.d_z.ci_high


def test_near_constant_differences_do_not_hang_and_keep_their_interval():
    """Near-constant differences give t of about 1e7, where scipy's noncentral t cdf fails to converge (its
    fallback took minutes per call, a hypothesis example hung the suite): the bound is the large-t limit
    t sqrt(chi2 quantile / df) (pairwise.T_EXACT_MAX), within 1e-6 of scipy's exact bound at t = 9,999, and
    the d_z value lies inside its interval."""
    import time

    from scipy import optimize, stats

    from sigreport.stats.pairwise import large_t_ci, noncentral_t_ci

    x = np.array([1.0, 1.0, 1.0, 1.0 + 1e-7, 1.0])
    start = time.perf_counter()
    e = paired_effect_sizes(x, np.roll(x, 1) * 0.5 - 2)
    assert time.perf_counter() - start < 10
    assert e.d_z.ci_low <= e.d_z.value <= e.d_z.ci_high
    # scipy.stats.nct.sf(9999, 24, lo) = 0.025 solved by brentq: the exact lower bound just below the limit
    exact = optimize.brentq(lambda n: stats.nct.sf(9999, 24, n) - 0.025, 1000, 99990)
    assert large_t_ci(9999, 24, 0.95)[0] == pytest.approx(exact, rel=1e-6)
    assert noncentral_t_ci(2e4, 24, 0.95) == large_t_ci(2e4, 24, 0.95)
    lo, hi = large_t_ci(-2e4, 24, 0.95)
    assert lo < -2e4 < hi < 0
