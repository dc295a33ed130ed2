"""Paired t test: the source's worked example and R's t.test."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigreport.stats.pairwise import describe, paired_t, t_critical

A = [0.59, 0.58, 0.57]
B = [0.39, 0.44, 0.45]


def test_source_example_two_sided():
    # NILC-TR-01-09 section 2 (seed 000; digest example 1): t = 6.3790, df 2, two-sided p = 0.02370.
    r = paired_t(A, B)
    # The exact value is 6.379052 (R prints 6.3791); the source truncates to 6.3790.
    assert r.statistic == pytest.approx(6.379052, abs=5e-7)
    assert f"{r.statistic:.5f}"[:6] == "6.3790"
    assert r.df == 2
    assert r.pvalue == pytest.approx(0.02370, abs=5e-6)
    # Critical t(0.975, 2) = 4.3027 (qt(0.975, 2) in R).
    assert r.critical_value == pytest.approx(4.302653, abs=1e-6)


def test_source_example_one_sided():
    # Seed 000: one-sided critical t at alpha 0.05 with 2 df = 2.9200; p = 0.02370 / 2 = 0.01185.
    r = paired_t(A, B, alternative="greater")
    assert r.pvalue == pytest.approx(0.01185, abs=5e-6)
    assert r.critical_value == pytest.approx(2.9200, abs=5e-5)
    assert paired_t(A, B, alternative="less").pvalue == pytest.approx(1 - 0.011852, abs=1e-6)


def test_against_r_t_test():
    # R 4.x: x <- c(0.59,0.58,0.57); y <- c(0.39,0.44,0.45); t.test(x, y, paired=TRUE)
    # -> t = 6.3791, df = 2, p-value = 0.0237; 95 percent CI 0.04991043 0.25675623; mean diff 0.1533333
    r = paired_t(A, B)
    assert r.ci_low == pytest.approx(0.04991043, abs=1e-8)
    assert r.ci_high == pytest.approx(0.25675623, abs=1e-8)
    assert r.estimate == pytest.approx(0.1533333, abs=1e-7)
    # t.test(x, y, paired=TRUE, alternative="greater")$conf.int -> 0.08314562 Inf
    g = paired_t(A, B, alternative="greater")
    assert g.ci_low == pytest.approx(0.08314562, abs=1e-8) and g.ci_high is None


def test_effect_size_dz():
    # d_z = mean(d) / sd(d): mean 0.153333, sd(c(0.20, 0.14, 0.12)) = 0.0416333 (R: sd(x - y)).
    assert paired_t(A, B).effect_size.value == pytest.approx(0.1533333 / 0.04163332, rel=1e-6)


def test_critical_values_not_from_the_wrong_table():
    # Seed 000 Table 1 prints 1.27062 / 6.36567 at df = 1; the true values are qt(0.975, 1) = 12.7062
    # and qt(0.995, 1) = 63.6567 (R).
    assert t_critical(0.05, 1, "two-sided") == pytest.approx(12.7062, abs=1e-4)
    assert t_critical(0.01, 1, "two-sided") == pytest.approx(63.6567, abs=1e-4)


def test_identical_systems_warn_and_p_is_one():
    r = paired_t([0.3, 0.4, 0.5], [0.3, 0.4, 0.5])
    assert r.statistic is None and r.pvalue == 1.0
    assert any("identical" in w for w in r.warnings)


def test_constant_nonzero_difference_is_a_warning_not_nan():
    r = paired_t([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])
    assert r.statistic is None and r.pvalue is None
    assert any("zero variance" in w for w in r.warnings)


def test_too_few_items():
    r = paired_t([0.5], [0.4])
    assert r.pvalue is None and r.warnings


def test_shapiro_warning_small_n():
    # Strongly non-normal differences with n < 30: Shapiro-Wilk rejects, a warning is attached.
    b = np.zeros(12)
    a = np.array([0.0] * 10 + [5.0, 9.0]) + np.linspace(0, 0.01, 12)
    r = paired_t(a, b)
    assert r.extra["normality_rejected"] is True
    assert any("Shapiro-Wilk" in w for w in r.warnings)


def test_describe_against_r():
    # R: x <- c(0.59,0.58,0.57); mean(x) 0.58; sd(x) 0.01; t.test(x)$conf.int 0.5551586 0.6048414
    d = describe(np.array(A))
    assert (d.mean, d.sd, d.median) == pytest.approx((0.58, 0.01, 0.58))
    assert (d.ci_low, d.ci_high) == pytest.approx((0.5551586, 0.6048414), abs=1e-7)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-10, 10), st.floats(-10, 10)), min_size=3, max_size=40))
def test_properties(pairs):
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    r = paired_t(a, b)
    s = paired_t(b, a)
    if r.pvalue is not None:
        assert 0 <= r.pvalue <= 1
        assert s.pvalue == pytest.approx(r.pvalue, abs=1e-12)
    if r.statistic is not None:
        assert s.statistic == pytest.approx(-r.statistic)
