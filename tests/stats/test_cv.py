"""Cross-validation tests of two systems (sigreport.stats.cv).

Reference values and where they come from:

* mlxtend 0.25.0 (scikit-learn 1.9.1): its 5x2cv / k-fold / resampled tests fit estimators,
  so they were driven by stub estimators whose ``fit`` does nothing and a ``scoring`` callable
  that replays the literal fold scores below in mlxtend's call order (a[i, j], b[i, j] for
  fold j of repeat i). Script (run once, values hard-coded)::

      class Stub:
          _estimator_type = "classifier"
          def __init__(self, scores): self.scores = list(scores)
          def fit(self, X, y): return self
      def replay(s1, s2):
          it = {id(s1): iter(s1.scores), id(s2): iter(s2.scores)}
          return lambda est, X, y: next(it[id(est)])
      def run(f, a, b, **kw):
          s1, s2 = Stub(np.ravel(a)), Stub(np.ravel(b))
          X = np.arange(40.).reshape(-1, 1); y = np.arange(40) % 2
          return f(s1, s2, X, y, scoring=replay(s1, s2), **kw)
      run(paired_ttest_5x2cv, A5, B5, random_seed=1)  # etc.

* baycomp 1.0.3: ``CorrelatedTTest.compute_statistics(x=b, y=a, runs)`` returns the mean of
  a - b and the Nadeau-Bengio corrected variance ``var(d) * (1/n + 1/(n_folds - 1))``;
  ``CorrelatedTTest(b, a, rope=0, runs).probs()[0]`` = P(a - b < 0) under its posterior, which
  equals the frequentist one-sided p-value of the corrected t for ``alternative='greater'``.
* R 4.2.2 (Debian r-base-core): ``t.test``, ``pt``, ``qt``, ``pf``, ``qf`` with
  ``options(digits = 17)``; the exact calls are next to the values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sigreport.stats.cv import (
    KFOLD_WARNING,
    RESAMPLED_WARNING,
    CVTestResult,
    alpaydin_5x2cv_f,
    corrected_resampled_t,
    dietterich_5x2cv_t,
    kfold_paired_t,
    resampled_t,
)
from sigreport.stats.result import to_jsonable

REL = 1e-12  # all references are double-precision computations of the same formula

# 5 repeats x 2 folds. Differences p = a - b:
# [[.03, .02], [.03, .01], [.01, .04], [.01, .05], [.04, .01]]
A5 = np.array([[0.81, 0.79], [0.83, 0.80], [0.78, 0.82], [0.80, 0.81], [0.84, 0.79]])
B5 = np.array([[0.78, 0.77], [0.80, 0.79], [0.77, 0.78], [0.79, 0.76], [0.80, 0.78]])
# a second 5x2 example whose p_1^(1) = -0.04 is negative
A5B = np.array([[0.70, 0.74], [0.71, 0.69], [0.75, 0.72], [0.73, 0.70], [0.72, 0.74]])
B5B = np.array([[0.74, 0.73], [0.70, 0.72], [0.74, 0.75], [0.71, 0.73], [0.75, 0.72]])
# 10-fold CV
AK = np.array([0.82, 0.85, 0.80, 0.88, 0.84, 0.79, 0.86, 0.83, 0.81, 0.87])
BK = np.array([0.80, 0.84, 0.81, 0.85, 0.82, 0.80, 0.83, 0.82, 0.80, 0.84])
# 3 repeats x 5-fold CV (n_train = 80, n_test = 20, so n_test/n_train = 1/(k-1) = 0.25)
AC = np.array([[0.71, 0.74, 0.69, 0.73, 0.72], [0.70, 0.75, 0.72, 0.71, 0.74],
               [0.73, 0.70, 0.74, 0.72, 0.71]])
BC = np.array([[0.69, 0.72, 0.70, 0.70, 0.71], [0.70, 0.72, 0.69, 0.70, 0.72],
               [0.71, 0.70, 0.72, 0.69, 0.70]])
# 8 random hold-out splits
AR = np.array([0.61, 0.64, 0.59, 0.66, 0.63, 0.60, 0.65, 0.62])
BR = np.array([0.60, 0.61, 0.60, 0.62, 0.60, 0.61, 0.62, 0.59])


# --------------------------------------------------------------------------- 5x2cv t


def test_5x2cv_t_matches_hand_mlxtend_and_r():
    r = dietterich_5x2cv_t(A5, B5)
    assert r.method == "5x2cv_t"
    # hand: p_1^(1) = 0.03; s_i^2 = (p_i1 - p_i2)^2 / 2 = .00005, .0002, .00045, .0008, .00045;
    # mean 0.00039; t = 0.03 / sqrt(0.00039) = 1.519109...
    assert r.statistic == pytest.approx(0.03 / math.sqrt(0.00039), rel=1e-12)
    # mlxtend 0.25.0 paired_ttest_5x2cv (stub replay, see module docstring) -> t
    assert r.statistic == pytest.approx(1.5191090506255032, rel=REL)
    # mlxtend paired_ttest_5x2cv p; R: 2*pt(-abs(t), 5) = 0.189200951902321
    assert r.pvalue == pytest.approx(0.18920095190232109, rel=REL)
    assert r.df == 5 and r.df1 is None and r.df2 is None
    # hand: mean of the ten differences = 0.25 / 10
    assert r.estimate == pytest.approx(0.025, rel=1e-12)
    # R: qt(.975, 5)
    assert r.critical_value == pytest.approx(2.5705818356363137, rel=REL)
    # R: p11 -/+ qt(.975, 5) * sqrt(mean(s2)) with p11 = 0.03, s2 as above
    assert r.ci_low == pytest.approx(-0.020764923714552158, rel=1e-10)
    assert r.ci_high == pytest.approx(0.080764923714552211, rel=1e-10)
    assert r.ci_level == 0.95
    assert (r.n_folds, r.n_repeats) == (2, 5)
    assert r.alternative == "two-sided" and r.warnings == ()


def test_5x2cv_t_one_sided_matches_r():
    g = dietterich_5x2cv_t(A5, B5, alternative="greater")
    lo = dietterich_5x2cv_t(A5, B5, alternative="less")
    # R: pt(t, 5, lower.tail = FALSE) and pt(t, 5) with t = 1.5191090506255034
    assert g.pvalue == pytest.approx(0.094600475951160501, rel=REL)
    assert lo.pvalue == pytest.approx(0.9053995240488395, rel=REL)
    # R: qt(.95, 5) and qt(.05, 5)
    assert g.critical_value == pytest.approx(2.0150483733330224, rel=REL)
    assert lo.critical_value == pytest.approx(-2.0150483733330233, rel=REL)
    # one-sided interval, open end infinite like R's t.test
    assert g.ci_high == math.inf and lo.ci_low == -math.inf
    # hand: 0.03 -/+ qt(.95, 5) * sqrt(0.00039)
    assert g.ci_low == pytest.approx(0.03 - 2.0150483733330224 * math.sqrt(0.00039), rel=1e-10)
    assert lo.ci_high == pytest.approx(0.03 + 2.0150483733330224 * math.sqrt(0.00039), rel=1e-10)


def test_5x2cv_t_negative_first_difference_matches_mlxtend():
    r = dietterich_5x2cv_t(A5B, B5B)
    # mlxtend 0.25.0 paired_ttest_5x2cv(stub replay of A5B, B5B) -> (t, p)
    assert r.statistic == pytest.approx(-1.222835681031486, rel=REL)
    assert r.pvalue == pytest.approx(0.27588019981100137, rel=REL)
    # hand: differences sum to -0.09 over ten folds
    assert r.estimate == pytest.approx(-0.009, rel=1e-12)


# --------------------------------------------------------------------------- 5x2cv F


def test_5x2cv_f_matches_hand_mlxtend_and_r():
    r = alpaydin_5x2cv_f(A5, B5)
    assert r.method == "5x2cv_f"
    # hand: sum p^2 = (9+4+9+1+1+16+1+25+16+1)e-4 = 0.0083; 2 * sum s_i^2 = 0.0039
    assert r.statistic == pytest.approx(0.0083 / 0.0039, rel=1e-12)
    # mlxtend 0.25.0 combined_ftest_5x2cv (stub replay) -> F; R: sum(p^2)/(2*sum(s2))
    assert r.statistic == pytest.approx(2.1282051282051313, rel=REL)
    # mlxtend combined_ftest_5x2cv p; R: pf(F, 10, 5, lower.tail = FALSE) = 0.20927965084573449
    assert r.pvalue == pytest.approx(0.20927965084573447, rel=REL)
    # R: qf(.95, 10, 5)
    assert r.critical_value == pytest.approx(4.7350630696934219, rel=REL)
    assert (r.df, r.df1, r.df2) == (None, 10, 5)
    assert r.ci_low is None and r.ci_high is None
    assert r.alternative == "two-sided" and r.warnings == ()
    assert r.estimate == pytest.approx(0.025, rel=1e-12)  # hand, as for the t test


def test_5x2cv_f_second_example_matches_mlxtend():
    r = alpaydin_5x2cv_f(A5B, B5B)
    # mlxtend 0.25.0 combined_ftest_5x2cv(stub replay of A5B, B5B) -> (F, p)
    assert r.statistic == pytest.approx(0.588785046728972, rel=REL)
    assert r.pvalue == pytest.approx(0.7775574508498795, rel=REL)


# --------------------------------------------------------------------------- k-fold t


@pytest.mark.parametrize(
    "alternative, pvalue, ci_low, ci_high, crit",
    [
        # R: t.test(AK, BK, paired = TRUE, alternative = "two.sided"); qt(.975, 9)
        ("two-sided", 0.016470978836514442, 0.0032299776851740371, 0.024770022314825967,
         2.2621571627982049),
        # R: t.test(AK, BK, paired = TRUE, alternative = "greater"); qt(.95, 9)
        ("greater", 0.0082354894182572209, 0.0052726367933327942, math.inf, 1.8331129326562365),
        # R: t.test(AK, BK, paired = TRUE, alternative = "less"); qt(.05, 9)
        ("less", 0.99176451058174275, -math.inf, 0.022727363206667208, -1.8331129326562374),
    ],
)
def test_kfold_t_matches_r(alternative, pvalue, ci_low, ci_high, crit):
    r = kfold_paired_t(AK, BK, alternative=alternative)
    assert r.method == "kfold_t"
    # R: t.test(AK, BK, paired = TRUE)$statistic
    assert r.statistic == pytest.approx(2.9405881764588191, rel=REL)
    assert r.df == 9
    assert r.pvalue == pytest.approx(pvalue, rel=1e-10)
    assert r.ci_low == pytest.approx(ci_low, rel=1e-10)
    assert r.ci_high == pytest.approx(ci_high, rel=1e-10)
    assert r.critical_value == pytest.approx(crit, rel=1e-12)
    assert r.estimate == pytest.approx(0.014, rel=1e-12)  # hand: sum of differences 0.14 / 10
    assert (r.n_folds, r.n_repeats) == (10, 1)
    assert r.warnings == (KFOLD_WARNING,)


def test_kfold_t_matches_mlxtend_and_accepts_one_repeat_row():
    r = kfold_paired_t(AK[None, :], BK[None, :])
    # mlxtend 0.25.0 paired_ttest_kfold_cv(stub replay of AK, BK, cv=10) -> (t, p)
    assert r.statistic == pytest.approx(2.9405881764588195, rel=REL)
    assert r.pvalue == pytest.approx(0.016470978836514428, rel=REL)
    assert "share" in KFOLD_WARNING and "Dietterich 1998" in KFOLD_WARNING


# --------------------------------------------------------------------------- corrected resampled t


def test_corrected_resampled_t_repeated_kfold_matches_baycomp_and_r():
    r = corrected_resampled_t(AC, BC, n_train=80, n_test=20)
    assert r.method == "corrected_resampled_t"
    # baycomp 1.0.3: m, v, df = CorrelatedTTest.compute_statistics(BC.ravel(), AC.ravel(), runs=3)
    # -> (0.016000000000000014, 4.885714285714293e-05, 14); t = m / sqrt(v)
    assert r.estimate == pytest.approx(0.016000000000000014, rel=REL)
    assert r.statistic == pytest.approx(0.016000000000000014 / math.sqrt(4.885714285714293e-05),
                                        rel=REL)
    # R: d <- a - b; t <- mean(d) / sqrt((1/15 + 20/80) * var(d))
    assert r.statistic == pytest.approx(2.289053534077206, rel=REL)
    assert r.df == 14
    # R: 2 * pt(-abs(t), 14)
    assert r.pvalue == pytest.approx(0.038133143233040699, rel=1e-10)
    # R: mean(d) + c(-1, 1) * qt(.975, 14) * se
    assert r.ci_low == pytest.approx(0.0010083947379068061, rel=1e-9)
    assert r.ci_high == pytest.approx(0.030991605262093221, rel=1e-10)
    assert (r.n_folds, r.n_repeats) == (5, 3)
    assert r.warnings == ()


def test_corrected_resampled_t_one_sided_matches_baycomp_posterior():
    r = corrected_resampled_t(AC, BC, n_train=80, n_test=20, alternative="greater")
    # baycomp 1.0.3: CorrelatedTTest(BC.ravel(), AC.ravel(), rope=0, runs=3).probs()[0]
    # (posterior P(a - b < 0)); R: pt(t, 14, lower.tail = FALSE) = 0.01906657161652035
    assert r.pvalue == pytest.approx(0.019066571616520367, rel=1e-10)


def test_corrected_resampled_t_flat_resamples_matches_hand_and_r():
    a = np.array([0.80, 0.82, 0.78, 0.84])
    b = np.array([0.78, 0.79, 0.77, 0.80])
    r = corrected_resampled_t(a, b, n_train=700, n_test=300)
    # hand: d = .02 .03 .01 .04, mean .025, var = 0.0005/3, factor 1/4 + 3/7
    assert r.statistic == pytest.approx(0.025 / math.sqrt((0.25 + 3 / 7) * 0.0005 / 3), rel=1e-10)
    # R: t <- mean(d) / sqrt((1/4 + 300/700) * var(d))
    assert r.statistic == pytest.approx(2.3508117299081412, rel=1e-12)
    # R: 2 * pt(-abs(t), 3)
    assert r.pvalue == pytest.approx(0.10023189359022669, rel=1e-10)
    # R: mean(d) + c(-1, 1) * qt(.975, 3) * se
    assert r.ci_low == pytest.approx(-0.008844121424050215, rel=1e-9)
    assert r.ci_high == pytest.approx(0.058844121424050148, rel=1e-10)
    # R: qt(.975, 3)
    assert r.critical_value == pytest.approx(3.1824463052837078, rel=1e-12)
    assert (r.n_folds, r.n_repeats, r.df) == (1, 4, 3)
    r90 = corrected_resampled_t(a, b, n_train=700, n_test=300, alpha=0.10)
    # R: mean(d) + c(-1, 1) * qt(.95, 3) * se
    assert r90.ci_low == pytest.approx(-2.71364233598477e-05, rel=1e-7)
    assert r90.ci_high == pytest.approx(0.050027136423359778, rel=1e-10)
    assert r90.ci_level == pytest.approx(0.90)


def test_corrected_t_is_resampled_t_shrunk_by_the_variance_factor():
    # Nadeau & Bengio (2003): the correction multiplies var(d)/J by 1 + J * n_test/n_train
    plain = resampled_t(AC, BC)
    corr = corrected_resampled_t(AC, BC, n_train=80, n_test=20)
    assert corr.statistic == pytest.approx(plain.statistic / math.sqrt(1 + 15 * 0.25), rel=1e-12)
    assert corr.pvalue > plain.pvalue


# --------------------------------------------------------------------------- resampled t


def test_resampled_t_matches_r_and_mlxtend_and_always_warns():
    r = resampled_t(AR, BR)
    assert r.method == "resampled_t"
    # mlxtend 0.25.0 paired_ttest_resampled(stub replay of AR, BR, num_rounds=8) -> (t, p);
    # R: t.test(AR, BR, paired = TRUE) -> t = 2.7065811266889521, p = 0.030348700921589578
    assert r.statistic == pytest.approx(2.706581126688952, rel=REL)
    assert r.pvalue == pytest.approx(0.03034870092158959, rel=1e-10)
    assert r.df == 7
    # R: t.test(AR, BR, paired = TRUE)$conf.int
    assert r.ci_low == pytest.approx(0.0023689263716609073, rel=1e-9)
    assert r.ci_high == pytest.approx(0.035131073628339129, rel=1e-10)
    assert (r.n_folds, r.n_repeats) == (1, 8)
    assert r.warnings == (RESAMPLED_WARNING,)
    assert "inflated" in RESAMPLED_WARNING and "Nadeau & Bengio 2003" in RESAMPLED_WARNING
    # the warning stays when the data are degenerate too
    d = resampled_t(AR, AR)
    assert d.warnings[0] == RESAMPLED_WARNING and len(d.warnings) == 2


def test_resampled_t_two_dimensional_uses_all_resamples():
    r2 = resampled_t(AC, BC)
    r1 = resampled_t(AC.ravel(), BC.ravel())
    assert r2.statistic == r1.statistic and r2.pvalue == r1.pvalue
    assert (r2.n_folds, r2.n_repeats) == (5, 3)


# --------------------------------------------------------------------------- degenerate data


def test_5x2cv_zero_variance_gives_none_and_warning():
    # both folds of each repeat have exactly the same difference, so every s_i^2 is zero
    a = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    b = a - np.array([[0.5], [0.25], [0.0], [0.125], [0.5]])
    for fn in (dietterich_5x2cv_t, alpaydin_5x2cv_f):
        r = fn(a, b)
        assert r.statistic is None and r.pvalue is None
        assert r.ci_low is None and r.ci_high is None
        assert len(r.warnings) == 1 and "zero" in r.warnings[0]
        assert r.estimate == pytest.approx(0.275)  # hand: (0.5+0.25+0+0.125+0.5)/5
        assert r.critical_value is not None


def test_floating_point_noise_counts_as_zero_variance():
    # 0.1 - 0.3 and 0.2 - 0.4 differ by 2.8e-17 in floating point, not in the data
    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    b = a + 0.2
    assert np.ptp(a - b) > 0  # the noise is real
    for r in (kfold_paired_t(a, b), resampled_t(a, b),
              corrected_resampled_t(a, b, n_train=4, n_test=1)):
        assert r.statistic is None and r.pvalue is None
        assert any("variance is zero" in w for w in r.warnings)
    a5 = np.linspace(0.1, 0.9, 10).reshape(5, 2)
    r = dietterich_5x2cv_t(a5, a5 + 0.2)
    assert r.statistic is None and r.warnings


def test_too_few_folds_gives_none_and_warning():
    r = kfold_paired_t([0.8], [0.7])
    assert r.statistic is None and r.df is None and r.critical_value is None
    assert any("at least two" in w for w in r.warnings)
    assert r.estimate == pytest.approx(0.1)
    r = corrected_resampled_t([0.8], [0.7], n_train=9, n_test=1)
    assert r.statistic is None and any("at least two" in w for w in r.warnings)


def test_constant_nonzero_difference_is_undefined_not_infinite():
    r = kfold_paired_t(AK, AK - 0.25)
    assert r.statistic is None and r.pvalue is None and r.estimate == pytest.approx(0.25)


# --------------------------------------------------------------------------- programmer errors


@pytest.mark.parametrize(
    "call",
    [
        lambda: dietterich_5x2cv_t(np.zeros((5, 3)), np.zeros((5, 3))),
        lambda: dietterich_5x2cv_t(np.zeros(10), np.zeros(10)),
        lambda: alpaydin_5x2cv_f(np.zeros((2, 5)), np.zeros((2, 5))),
        lambda: dietterich_5x2cv_t(A5, B5[:4]),
        lambda: kfold_paired_t(AC, BC),  # repeated CV: not a single k-fold run
        lambda: kfold_paired_t(AK, BK[:-1]),
        lambda: resampled_t(np.zeros((2, 2, 2)), np.zeros((2, 2, 2))),
        lambda: resampled_t([], []),
        lambda: resampled_t([0.1, np.nan], [0.2, 0.3]),
        lambda: corrected_resampled_t(AR, BR, n_train=0, n_test=10),
        lambda: corrected_resampled_t(AR, BR, n_train=10, n_test=-1),
        lambda: kfold_paired_t(AK, BK, alternative="two.sided"),
        lambda: kfold_paired_t(AK, BK, alpha=0.0),
        lambda: alpaydin_5x2cv_f(A5, B5, alpha=1.5),
    ],
)
def test_wrong_arguments_raise(call):
    with pytest.raises(ValueError):
        call()


# --------------------------------------------------------------------------- properties

scores = st.floats(0.0, 1.0, allow_nan=False, width=64)
T_TESTS = {
    "5x2cv_t": (lambda a, b, alt: dietterich_5x2cv_t(a, b, alternative=alt), (5, 2)),
    "kfold_t": (lambda a, b, alt: kfold_paired_t(a, b, alternative=alt), (10,)),
    "corrected": (lambda a, b, alt: corrected_resampled_t(a, b, 90, 10, alternative=alt), (3, 4)),
    "resampled": (lambda a, b, alt: resampled_t(a, b, alternative=alt), (7,)),
}


@pytest.mark.parametrize("name", sorted(T_TESTS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_t_tests_properties(name, data):
    fn, shape = T_TESTS[name]
    a = data.draw(arrays(float, shape, elements=scores))
    b = data.draw(arrays(float, shape, elements=scores))
    two = fn(a, b, "two-sided")
    if two.statistic is None:
        assert two.pvalue is None and two.warnings
        return
    assert 0.0 <= two.pvalue <= 1.0
    swapped = fn(b, a, "two-sided")
    assert swapped.statistic == pytest.approx(-two.statistic, rel=1e-9, abs=1e-12)
    assert swapped.pvalue == pytest.approx(two.pvalue, rel=1e-9, abs=1e-15)
    assert swapped.estimate == pytest.approx(-two.estimate, rel=1e-9, abs=1e-15)
    greater, less = fn(a, b, "greater"), fn(a, b, "less")
    assert greater.pvalue + less.pvalue == pytest.approx(1.0, rel=1e-12)
    assert 0.0 <= greater.pvalue <= 1.0 and 0.0 <= less.pvalue <= 1.0
    # the interval inverts the test: it excludes 0 exactly when p < alpha (away from the edge)
    if abs(two.pvalue - 0.05) > 1e-9:
        assert (two.pvalue < 0.05) == (two.ci_low > 0 or two.ci_high < 0)
    # adding the same constant to both systems changes nothing but rounding
    shifted = fn(a + 0.5, b + 0.5, "two-sided")
    if shifted.statistic is not None and abs(two.statistic) < 1e6:
        assert shifted.statistic == pytest.approx(two.statistic, rel=1e-6, abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(a=arrays(float, (5, 2), elements=scores), b=arrays(float, (5, 2), elements=scores))
def test_5x2cv_f_properties(a, b):
    r = alpaydin_5x2cv_f(a, b)
    if r.statistic is None:
        assert r.warnings
        return
    assert r.statistic >= 0 and 0.0 <= r.pvalue <= 1.0
    s = alpaydin_5x2cv_f(b, a)
    assert s.statistic == pytest.approx(r.statistic, rel=1e-12)
    assert s.pvalue == pytest.approx(r.pvalue, rel=1e-12)
    assert (r.pvalue < 0.05) == (r.statistic > r.critical_value)


def test_results_are_frozen_and_json_safe():
    r = kfold_paired_t(AK, BK, alternative="greater")
    assert isinstance(r, CVTestResult)
    with pytest.raises(AttributeError):
        r.statistic = 0.0  # type: ignore[misc]
    j = to_jsonable(r)
    assert j["ci_high"] is None and j["ci_low"] == pytest.approx(0.0052726367933327942)
    assert set(j) == {
        "method", "statistic", "df", "df1", "df2", "pvalue", "alternative", "estimate",
        "ci_low", "ci_high", "ci_level", "critical_value", "n_folds", "n_repeats", "warnings",
    }
