"""TOST equivalence and non-inferiority (sigreport.stats.equivalence) against statsmodels and R.

statsmodels: ``statsmodels.stats.weightstats.ttost_paired(x1, x2, low, upp)`` is called live.
R 4.x (TOSTER is not packaged for Debian; the plain one-sided t tests are TOST's two halves):

    d <- read.csv(FILE, header = FALSE)     # the x, y columns this test generates (gen() below)
    t.test(d$V1, d$V2, paired = TRUE, mu = -D, alternative = "greater")$p.value   # p_lower
    t.test(d$V1, d$V2, paired = TRUE, mu = D, alternative = "less")$p.value       # p_upper
    t.test(d$V1, d$V2, paired = TRUE, conf.level = 0.90)$conf.int                 # 1 - 2 alpha interval
"""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.weightstats import ttost_paired

from sigreport.stats.equivalence import equivalence_results, t_equivalence, tost_paired


def gen(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.5, 0.2, n)
    y = x - rng.normal(0.01, 0.05, n)
    return x, y


# (n, margin D, seed, R p_lower, R p_upper, R 90% CI low, high): the R calls in the module docstring
R_VALUES = [
    (2, 0.1, 1, 0.141580830724896, 0.109217541719891, -0.27217071726451, 0.243534709493461),
    (3, 0.05, 2, 0.204253954246421, 0.339336702554286, -0.174071562680928, 0.21081842508487),
    (5, 0.5, 3, 0.000168179644394801, 0.000196252333530618, -0.0853514871152675, 0.105156902525042),
    (30, 0.01, 4, 0.0108629943071252, 0.424659456812748, -0.00444745465287695, 0.0215180688327518),
    (30, 10, 5, 2.04112586567678e-68, 2.0334613752729e-68, -0.0166429897104484, 0.0153456820782241),
    (1000, 0.02, 6, 3.61798279383389e-79, 9.08293061967958e-06, 0.0104391961067846, 0.0157270235957636),
    (100000, 0.0105, 7, 0, 0.0161926445406614, 0.00990170486223738, 0.0104217796610769),
]


@pytest.mark.parametrize("n,margin,seed,p_low,p_upp,lo,hi", R_VALUES)
def test_tost_matches_r_and_statsmodels(n, margin, seed, p_low, p_upp, lo, hi):
    x, y = gen(n, seed)
    r = tost_paired(x, y, margin, alpha=0.05)
    assert r.pvalue_lower == pytest.approx(p_low, rel=1e-9, abs=1e-300)
    assert r.pvalue_upper == pytest.approx(p_upp, rel=1e-9, abs=1e-300)
    assert r.tost_pvalue == pytest.approx(max(p_low, p_upp), rel=1e-9, abs=1e-300)
    assert (r.ci_low, r.ci_high) == (pytest.approx(lo, rel=1e-9), pytest.approx(hi, rel=1e-9))
    assert r.ci_level == pytest.approx(0.90)
    sm_p, (_, sm_low, sm_df1), (_, sm_upp, _) = ttost_paired(x, y, -margin, margin)
    assert r.tost_pvalue == pytest.approx(sm_p, rel=1e-12, abs=1e-300)
    assert r.pvalue_lower == pytest.approx(sm_low, rel=1e-12, abs=1e-300)
    assert r.pvalue_upper == pytest.approx(sm_upp, rel=1e-12, abs=1e-300)
    assert r.df == sm_df1 == n - 1
    # non-inferiority where higher is better is the lower one-sided test (R's mu = -D, "greater")
    assert r.noninferiority_pvalue == r.pvalue_lower and r.noninferiority_bound == r.ci_low
    # where lower is better it is the upper one (mu = +D, "less")
    s = tost_paired(x, y, margin, alpha=0.05, higher_is_better=False)
    assert s.noninferiority_pvalue == r.pvalue_upper and s.noninferiority_bound == r.ci_high
    # equivalence at alpha <=> the 1 - 2 alpha interval inside (-D, D) (Schuirmann 1987)
    assert (r.tost_pvalue <= 0.05) == (-margin < r.ci_low and r.ci_high < margin)


@pytest.mark.parametrize("margin", [1e-9, 1e-4, 0.3, 1e6])
@pytest.mark.parametrize("n", [2, 4, 50, 10_000])
def test_sweep_against_statsmodels(n, margin):
    x, y = gen(n, 100 + n)
    r = tost_paired(x, y, margin)
    sm_p, (_, sm_low, _), (_, sm_upp, _) = ttost_paired(x, y, -margin, margin)
    assert r.tost_pvalue == pytest.approx(sm_p, rel=1e-10, abs=1e-300)
    assert r.pvalue_lower == pytest.approx(sm_low, rel=1e-10, abs=1e-300)
    assert r.pvalue_upper == pytest.approx(sm_upp, rel=1e-10, abs=1e-300)
    assert 0 <= r.tost_pvalue <= 1


def test_zero_variance_takes_statsmodels_limits():
    x = np.array([1.0, 2.0, 3.0])
    with np.errstate(divide="ignore"):
        sm_p, (_, sm_low, _), (_, sm_upp, _) = ttost_paired(x, x - 0.5, -0.1, 0.1)  # d = 0.5 everywhere
    r = tost_paired(x, x - 0.5, 0.1)
    assert (r.tost_pvalue, r.pvalue_lower, r.pvalue_upper) == (sm_p, sm_low, sm_upp) == (1.0, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        sm_p, *_ = ttost_paired(x, x, -0.1, 0.1)  # d = 0: equivalent
    r = tost_paired(x, x, 0.1)
    assert r.tost_pvalue == sm_p == 0.0 and r.noninferiority_pvalue == 0.0
    assert (r.ci_low, r.ci_high) == (0.0, 0.0) and r.warnings
    # a constant difference exactly on the margin: no p-value, said
    r = tost_paired(x, x - 0.25, 0.25)
    assert r.tost_pvalue is None and "margin" in r.warnings[0]


def test_vectorised_equals_one_by_one_and_missing_inputs():
    est, se, df = np.array([0.1, -0.2, 0.0]), np.array([0.05, 0.1, 0.02]), np.array([9.0, 20.0, 4.0])
    many = t_equivalence(est, se, df, 0.15, 0.05, True)
    for i in range(3):
        one = t_equivalence(est[i:i + 1], se[i:i + 1], df[i:i + 1], 0.15, 0.05, True)
        assert all(one[k][0] == many[k][i] for k in many)
    r = equivalence_results([None], [None], [None], 0.1, 0.05, True)[0]
    assert r.tost_pvalue is None and r.warnings


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan")])
def test_margin_must_be_positive(bad):
    with pytest.raises(ValueError, match="positive"):
        t_equivalence(np.array([0.0]), np.array([1.0]), np.array([3.0]), bad, 0.05, True)


def test_declaration_is_complete():
    from sigreport.render.views.methods import REFERENCES
    from sigreport.stats import registry
    from sigreport.stats.methods.equivalence import TOST

    assert all(k in REFERENCES for k in TOST.references) and TOST.references
    assert all(m in registry.names("pairwise") for m in TOST.methods)
    assert "90%" in TOST.methods_sentence(0.05, "\u00b10.01 for accuracy")
    with pytest.raises(ValueError, match="paired_t"):
        TOST.require("wilcoxon")
    r = TOST.compute([0.0], [0.1], [9.0], 0.5, 0.05, True)[0]
    assert r == tost_result_of(0.0, 0.1, 9.0, 0.5)


def tost_result_of(est, se, df, margin):
    return equivalence_results([est], [se], [df], margin, 0.05, True)[0]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(est=st.floats(-5, 5), se=st.floats(1e-6, 5), df=st.floats(1, 1e5), margin=st.floats(1e-6, 10),
       alpha=st.floats(0.001, 0.4))
def test_properties(est, se, df, margin, alpha):
    """p in [0, 1]; TOST symmetric in the pair (a - b and b - a give the same p, the one-sided ones swapped);
    the interval decides as the test does; a wider margin never makes a pair less equivalent or non-inferior."""
    one = t_equivalence(np.array([est]), np.array([se]), np.array([df]), margin, alpha, True)
    swapped = t_equivalence(np.array([-est]), np.array([se]), np.array([df]), margin, alpha, True)
    wider = t_equivalence(np.array([est]), np.array([se]), np.array([df]), margin * 2, alpha, True)
    for k in ("tost_pvalue", "pvalue_lower", "pvalue_upper", "noninferiority_pvalue"):
        assert 0 <= one[k][0] <= 1
    assert one["tost_pvalue"][0] == swapped["tost_pvalue"][0]
    assert one["pvalue_lower"][0] == swapped["pvalue_upper"][0]
    assert wider["tost_pvalue"][0] <= one["tost_pvalue"][0] and \
        wider["noninferiority_pvalue"][0] <= one["noninferiority_pvalue"][0]
    inside = -margin < one["ci_low"][0] and one["ci_high"][0] < margin
    p = one["tost_pvalue"][0]
    if abs(p - alpha) > 1e-9:  # away from the boundary, where rounding may decide
        assert (p < alpha) == inside
    lower = one["noninferiority_bound"][0] > -margin
    q = one["noninferiority_pvalue"][0]
    if abs(q - alpha) > 1e-9:
        assert (q < alpha) == lower
