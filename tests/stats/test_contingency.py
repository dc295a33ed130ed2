"""McNemar and Cochran's Q: the seed's example and R (stats 4.x, rstatix 0.7.2)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigreport.stats.contingency import cochran_q, mcnemar, mcnemar_from_counts


def correctness_from_counts(n00, n01, n10, n11):
    a = np.array([False] * n00 + [False] * n01 + [True] * n10 + [True] * n11)
    b = np.array([False] * n00 + [True] * n01 + [False] * n10 + [True] * n11)
    return a, b


def test_seed_example():
    # Seed 003 / digest example 3: n01 = 121, n10 = 59 (n00 = 101, n11 = 33):
    # (|121 - 59| - 1)^2 / 180 = 20.67, df 1, critical value 3.841 at alpha 0.05: reject.
    a, b = correctness_from_counts(101, 121, 59, 33)
    r = mcnemar(a, b)
    assert (r.n00, r.n01, r.n10, r.n11) == (101, 121, 59, 33)
    assert r.statistic == pytest.approx(61**2 / 180, abs=1e-12)
    assert round(r.statistic, 2) == 20.67
    assert r.df == 1
    assert not r.exact and r.continuity_correction
    assert r.critical_value == pytest.approx(3.841458820694124, abs=1e-12)  # R: qchisq(0.95, 1)
    assert r.statistic > r.critical_value
    # R 4.x: mcnemar.test(matrix(c(101,121,59,33), 2, byrow=TRUE))
    # -> McNemar's chi-squared = 20.6722222222222, df = 1, p-value = 5.45009482542713e-06
    assert r.pvalue == pytest.approx(5.45009482542713e-06, rel=1e-10)
    assert "n01 + n10 = 180 >= 25" in r.reason


def test_without_continuity_correction_against_r():
    # R: mcnemar.test(matrix(c(101,121,59,33), 2, byrow=TRUE), correct=FALSE)
    # -> 21.3555555555556, p-value = 3.8151358651126e-06
    r = mcnemar_from_counts(121, 59, n00=101, n11=33, continuity_correction=False)
    assert r.statistic == pytest.approx(21.3555555555556, rel=1e-12)
    assert r.pvalue == pytest.approx(3.8151358651126e-06, rel=1e-10)
    assert not r.continuity_correction


def test_other_chi_square_tables_against_r():
    # R: mcnemar.test(matrix(c(40,20,35,50), 2, byrow=TRUE)) -> 3.56363636363636, p-value = 0.0590582290905369
    r = mcnemar_from_counts(20, 35, n00=40, n11=50)
    assert r.statistic == pytest.approx(3.56363636363636, rel=1e-12)
    assert r.pvalue == pytest.approx(0.0590582290905369, rel=1e-10)
    # R: mcnemar.test(matrix(c(40,30,30,50), 2)) -> McNemar's chi-squared = 0, p-value = 1
    # (R applies no correction when n01 == n10).
    r = mcnemar_from_counts(30, 30, n00=40, n11=50)
    assert r.statistic == 0.0 and r.pvalue == pytest.approx(1.0)
    assert not r.continuity_correction and "n01 = n10" in r.reason


@pytest.mark.parametrize(
    ("n01", "n10", "expected"),
    [
        (3, 10, 0.09228515625),  # R: binom.test(3, 13)$p.value
        (10, 3, 0.09228515625),  # R: binom.test(10, 13)$p.value
        (7, 7, 1.0),  # R: binom.test(7, 14)$p.value
        (0, 5, 0.0625),  # R: binom.test(0, 5)$p.value
    ],
)
def test_exact_binomial_against_r(n01, n10, expected):
    r = mcnemar_from_counts(n01, n10)
    assert r.exact and r.df is None and not r.continuity_correction
    assert r.pvalue == pytest.approx(expected, rel=1e-12)
    assert r.statistic == min(n01, n10)
    assert f"n01 + n10 = {n01 + n10} < 25" in r.reason


def test_auto_switch_at_25_and_explicit_choice():
    assert mcnemar_from_counts(10, 14).exact  # 24 < 25
    assert not mcnemar_from_counts(10, 15).exact  # 25
    forced = mcnemar_from_counts(121, 59, exact=True)
    assert forced.exact and forced.reason == "exact binomial test as requested"
    chi = mcnemar_from_counts(3, 10, exact=False)
    assert not chi.exact and any("approximation is poor" in w for w in chi.warnings)


def test_no_discordant_items():
    r = mcnemar_from_counts(0, 0, n00=5, n11=7)
    assert r.exact and r.pvalue == 1.0 and r.warnings
    chi = mcnemar_from_counts(0, 0, n00=5, n11=7, exact=False)
    assert chi.statistic is None and chi.pvalue is None
    assert any("undefined" in w for w in chi.warnings)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.sampled_from([None, True, False]), st.booleans())
def test_p_in_unit_interval_and_swap_symmetry(n01, n10, exact, cc):
    r = mcnemar_from_counts(n01, n10, exact=exact, continuity_correction=cc)
    s = mcnemar_from_counts(n10, n01, exact=exact, continuity_correction=cc)
    if r.pvalue is not None:
        assert 0.0 <= r.pvalue <= 1.0
    assert r.pvalue == s.pvalue and r.statistic == s.statistic
    assert (r.n01, r.n10) == (s.n10, s.n01)


# 14 items x 3 systems (1 = correct), used with R below.
Q_DATA = np.array(
    [[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1],
     [1, 1, 0], [0, 1, 1], [1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 0], [1, 1, 0]]
)


def test_cochran_q_against_r():
    # R 4.x, rstatix 0.7.2: d <- data.frame(item = factor(rep(1:14, 3)), sys = factor(rep(c("a","b","c"),
    # each = 14)), y = as.vector(Q_DATA)); cochran_qtest(d, y ~ sys | item) -> statistic 6.55, df 2,
    # p 0.0379; friedman.test(Q_DATA) -> 6.54545454545455, df 2, p-value 0.0379029144009585
    # (Cochran's Q is the tie-corrected Friedman statistic on 0/1 data).
    r = cochran_q(Q_DATA.astype(bool))
    assert r.statistic == pytest.approx(6.54545454545455, rel=1e-12)
    assert r.df == 2
    assert r.pvalue == pytest.approx(0.0379029144009585, rel=1e-10)
    assert (r.n, r.k) == (14, 3)


def test_cochran_q_two_systems_is_mcnemar_without_correction():
    # With k = 2, Q = (n01 - n10)^2 / (n01 + n10) (Cochran 1950): McNemar without correction.
    a, b = correctness_from_counts(101, 121, 59, 33)
    q = cochran_q(np.column_stack([a, b]))
    m = mcnemar(a, b, exact=False, continuity_correction=False)
    assert q.statistic == pytest.approx(m.statistic, rel=1e-12)
    assert q.pvalue == pytest.approx(m.pvalue, rel=1e-12)


def test_cochran_q_degenerate():
    r = cochran_q(np.array([[1, 1, 1], [0, 0, 0]], dtype=bool))
    assert r.statistic is None and r.pvalue is None and r.warnings
    empty = cochran_q(np.zeros((0, 3), dtype=bool))
    assert empty.statistic is None and empty.warnings
    with pytest.raises(ValueError):
        cochran_q(np.ones((4, 1), dtype=bool))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.lists(st.lists(st.booleans(), min_size=k, max_size=k),
                                                      min_size=1, max_size=30)))
def test_cochran_q_properties(rows):
    x = np.array(rows, dtype=bool)
    r = cochran_q(x)
    if r.pvalue is not None:
        assert 0.0 <= r.pvalue <= 1.0 and r.statistic >= -1e-12
        # Invariant under reordering systems and items.
        p = cochran_q(x[::-1, ::-1])
        assert p.statistic == pytest.approx(r.statistic, rel=1e-9, abs=1e-12)
