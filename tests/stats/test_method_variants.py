"""Named variants and new quantities for paired ranks, McNemar, Cochran's Q, kappa, MCC.

References (hard-coded; nothing here runs R or imports statsmodels):
- R 4.2.2 (Debian): ``wilcox.test(..., exact = FALSE, correct = TRUE/FALSE, digits.rank = 7)``,
  ``mcnemar.test(..., correct = TRUE/FALSE)``; coin 1.4.2 (Debian r-cran-coin)
  ``wilcoxsign_test(x ~ y, zero.method = ..., distribution = "exact")`` with x the rounded
  differences (``round(a - b, 10)``, y = 0) so that R sees the same ties as sigreport.
- statsmodels 0.15.0 ``statsmodels.stats.inter_rater.cohens_kappa(table, wt=...)``: ``kappa``,
  ``std_kappa0`` (SE under kappa = 0, Fleiss, Cohen & Everitt 1969), ``z_value``,
  ``pvalue_two_sided``, ``std_kappa``.
- scikit-learn 1.9.1 ``sklearn.metrics.matthews_corrcoef`` (a test dependency already).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import matthews_corrcoef as sk_mcc

from sigreport.stats.agreement import cohen_kappa_from_matrix, cohen_kappa_null_test
from sigreport.stats.classification import matthews_corrcoef
from sigreport.stats.contingency import cochran_q, mcnemar, mcnemar_from_counts
from sigreport.stats.rank import wilcoxon

# Differences 0.03, 0, 0.06, -0.03, 0.06, 0, 0.06, 0.03, 0.03, 0.06, 0, 0.06, -0.03, 0.06, 0.03, 0.06:
# three zeros and heavy ties.
A = np.array([0.61, 0.55, 0.70, 0.42, 0.58, 0.66, 0.49, 0.73, 0.52, 0.60, 0.45, 0.68, 0.57, 0.63, 0.50, 0.71])
B = np.array([0.58, 0.55, 0.64, 0.45, 0.52, 0.66, 0.43, 0.70, 0.49, 0.54, 0.45, 0.62, 0.60, 0.57, 0.47, 0.65])


@pytest.mark.parametrize("zero_method,two_sided,greater", [
    # coin 1.4.2: pvalue(wilcoxsign_test(x ~ y, data = d, zero.method = "Pratt", distribution = "exact"))
    ("pratt", 0.007080078125, 0.0035400390625),
    # ... zero.method = "Wilcoxon"
    ("wilcox", 0.00537109375, 0.002685546875),
])
def test_exact_conditional_wilcoxon_with_ties_and_zeros_matches_coin(zero_method, two_sided, greater):
    r = wilcoxon(A, B, zero_method=zero_method, mode="exact")
    assert r.extra["exact"] is True and r.extra["n_zeros"] == 3
    assert r.pvalue == pytest.approx(two_sided, rel=1e-12)
    assert wilcoxon(A, B, zero_method=zero_method, mode="exact", alternative="greater").pvalue == pytest.approx(
        greater, rel=1e-12)
    # 'auto' sees ties and zeros and takes the normal approximation instead
    assert wilcoxon(A, B, zero_method=zero_method).extra["exact"] is False


@pytest.mark.parametrize("correction,expected", [
    # R 4.2.2: wilcox.test(A, B, paired = TRUE, exact = FALSE, correct = FALSE, digits.rank = 7)$p.value
    (False, 0.00562973187424504),
    # ... correct = TRUE (R's default, and sigreport's)
    (True, 0.00628277487585968),
])
def test_wilcoxon_normal_mode_and_continuity_option_match_r(correction, expected):
    r = wilcoxon(A, B, zero_method="wilcox", mode="normal", correction=correction)
    assert r.extra["exact"] is False and r.extra["continuity_correction"] is correction
    assert r.pvalue == pytest.approx(expected, rel=1e-10)
    assert wilcoxon(A, B, zero_method="wilcox", mode="approx", correction=correction).pvalue == r.pvalue


def test_wilcoxon_default_is_continuity_corrected():
    assert wilcoxon(A, B, zero_method="wilcox").pvalue == wilcoxon(A, B, zero_method="wilcox", correction=True).pvalue


def test_mcnemar_continuity_option_matches_r():
    # R 4.2.2: m <- matrix(c(10, 12, 5, 30), 2); mcnemar.test(m, correct = FALSE) -> 2.882352941176,
    #   p 0.0895550744136431; mcnemar.test(m) -> 2.117647058824, p 0.145610095396868
    off = mcnemar_from_counts(12, 5, 10, 30, exact=False, continuity_correction=False)
    on = mcnemar_from_counts(12, 5, 10, 30, exact=False)
    assert (off.statistic, off.pvalue) == pytest.approx((2.882352941176, 0.0895550744136431), rel=1e-11)
    assert (on.statistic, on.pvalue) == pytest.approx((2.117647058824, 0.145610095396868), rel=1e-11)
    assert off.continuity_correction is False and on.continuity_correction is True


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(bool, st.tuples(st.integers(1, 60), st.just(2))))
def test_cochran_q_with_two_systems_equals_uncorrected_mcnemar(x):
    # Cochran (1950): for k = 2, Q = (n01 - n10)^2 / (n01 + n10), McNemar without continuity correction.
    q = cochran_q(x)
    m = mcnemar(x[:, 0], x[:, 1], exact=False, continuity_correction=False)
    if m.statistic is None:
        assert q.statistic is None
    else:
        assert q.statistic == pytest.approx(m.statistic, rel=1e-12, abs=1e-12)
        assert q.pvalue == pytest.approx(m.pvalue, rel=1e-10, abs=1e-15)


def test_cochran_q_two_systems_on_data():
    # 40 items: n01 = 12 (a wrong, b right), n10 = 5, 23 concordant
    a = np.array([0] * 12 + [1] * 5 + [1] * 15 + [0] * 8, dtype=bool)
    b = np.array([1] * 12 + [0] * 5 + [1] * 15 + [0] * 8, dtype=bool)
    q = cochran_q(np.column_stack([a, b]))
    # R: mcnemar.test(matrix(c(8, 12, 5, 15), 2), correct = FALSE): 2.882352941176, p 0.0895550744136431
    assert (q.statistic, q.pvalue) == pytest.approx((2.882352941176, 0.0895550744136431), rel=1e-11)


TABLE = np.array([[22, 3, 1], [4, 15, 2], [2, 3, 18]])


@pytest.mark.parametrize("weights,kappa,se0,z,p,se", [
    # statsmodels 0.15.0: cohens_kappa(TABLE)
    (None, 0.6767241379310345, 0.08462056469572957, 7.997159323674258, 1.2732244461175443e-15, 0.07369734782573596),
    # cohens_kappa(TABLE, wt="linear")
    ("linear", 0.7160883280757098, 0.09576391061154857, 7.477642918953163, 7.566745966318499e-14,
     0.07030908357810113),
    # cohens_kappa(TABLE, wt="quadratic")
    ("quadratic", 0.7535934291581109, 0.11924031131845005, 6.319955230119459, 2.6163909153163907e-10,
     0.07491114289229547),
])
def test_kappa_null_se_and_z_test_match_statsmodels(weights, kappa, se0, z, p, se):
    r = cohen_kappa_null_test(TABLE, weights)
    assert r.value == pytest.approx(kappa, rel=1e-13)
    assert r.se_null == pytest.approx(se0, rel=1e-12)
    assert r.statistic == pytest.approx(z, rel=1e-12)
    assert r.pvalue == pytest.approx(p, rel=1e-9)
    assert r.se == pytest.approx(se, rel=1e-12)
    # the non-null SE is the one cohen_kappa already reports for its Wald interval
    assert r.se == pytest.approx(cohen_kappa_from_matrix(TABLE, weights, n_resamples=0).se, rel=1e-14)
    one = cohen_kappa_null_test(TABLE, weights, alternative="greater")
    assert one.pvalue == pytest.approx(p / 2, rel=1e-9)


def test_kappa_null_test_degenerate():
    r = cohen_kappa_null_test(np.array([[5, 0], [0, 0]]))
    assert r.value is None and r.warnings


GOLD = np.array([0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1])
PRED = np.array([0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1])
GOLD3 = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 2, 1])
PRED3 = np.array([0, 2, 2, 0, 1, 1, 1, 1, 2, 2, 0, 0, 0, 2, 1])


def test_mcc_matches_scikit_learn_binary_and_multiclass():
    # scikit-learn 1.9.1: matthews_corrcoef(GOLD, PRED) = 0.47809144373375745;
    #   matthews_corrcoef(GOLD3, PRED3) = 0.6
    r = matthews_corrcoef(GOLD, PRED, 2)
    assert r.value == pytest.approx(0.47809144373375745, rel=1e-14)
    assert r.ci_low <= r.value <= r.ci_high
    assert matthews_corrcoef(GOLD3, PRED3, 3).value == pytest.approx(0.6, rel=1e-14)
    # same seed, same interval
    assert matthews_corrcoef(GOLD, PRED, 2, seed=7) == matthews_corrcoef(GOLD, PRED, 2, seed=7)


@pytest.mark.filterwarnings("ignore:A single label was found")
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.data())
def test_mcc_equals_scikit_learn_on_random_labels(k, data):
    n = data.draw(st.integers(2, 40))
    g = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    p = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    r = matthews_corrcoef(g, p, k, n_resamples=0)
    ref = sk_mcc(g, p)
    if r.value is None:
        assert ref == 0.0 and r.warnings  # scikit-learn reports 0 for 0/0
    else:
        assert r.value == pytest.approx(ref, abs=1e-12)
