"""pass@k and the between/within-question variance (sigreport.stats.samples).

pass@k against the numpy reference of Chen et al. (2021)'s human-eval repository
(``human_eval/evaluation.py::estimate_pass_at_k``'s inner ``estimator``:
``1.0 if n - c < k else 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))``), against exact binomial
coefficients (``math.comb``) and hand values; the variance components against the one-way random-effects
ANOVA moment estimators written out by hand (MSB, MSW: sigma_b^2 = (MSB - MSW) / K for K answers each) and a
simulation with known components.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigreport.stats.samples import pass_at_k, variance_components


def chen_estimator(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), human-eval/evaluation.py, verbatim in substance."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def test_hand_values() -> None:
    # 1 - C(n - c, k) / C(n, k)
    assert pass_at_k(np.array([5]), np.array([1]), 1)[0] == pytest.approx(0.2)  # c / n
    assert pass_at_k(np.array([5]), np.array([2]), 2)[0] == pytest.approx(1 - 3 / 10)  # C(3,2)/C(5,2)
    assert pass_at_k(np.array([10]), np.array([0]), 5)[0] == 0.0
    assert pass_at_k(np.array([10]), np.array([10]), 5)[0] == 1.0
    assert pass_at_k(np.array([10]), np.array([7]), 5)[0] == 1.0  # n - c = 3 < k: every k-subset has a correct one
    assert pass_at_k(np.array([200]), np.array([13]), 1)[0] == pytest.approx(13 / 200)


@pytest.mark.parametrize("k", [1, 2, 5, 10, 100])
def test_against_chen_et_al_and_exact_binomials(k: int) -> None:
    rng = np.random.default_rng(k)
    for n in [k, k + 1, 2 * k, 10 * k, 1000]:
        if n < k:
            continue
        c = np.unique(np.r_[0, 1, n - k, n - 1, n, rng.integers(0, n + 1, 5)].clip(0, n))
        got = pass_at_k(np.full(c.shape, n), c, k)
        want = [chen_estimator(n, int(ci), k) for ci in c]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        exact = [1 - math.comb(n - int(ci), k) / math.comb(n, k) for ci in c]
        np.testing.assert_allclose(got, exact, rtol=1e-9, atol=1e-12)


def test_large_n_is_stable() -> None:
    """n = 10^6 answers: factorials would overflow; the product does not (Chen et al.'s reference agrees)."""
    got = pass_at_k(np.array([10**6]), np.array([3]), 1000)[0]
    assert got == pytest.approx(chen_estimator(10**6, 3, 1000), rel=1e-10)
    assert 0 < got < 1


def test_k_beyond_n_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 5 answers"):
        pass_at_k(np.array([5, 4]), np.array([1, 1]), 5)
    with pytest.raises(ValueError):
        pass_at_k(np.array([5]), np.array([6]), 1)


def test_variance_components_equal_k_against_anova_moments() -> None:
    # 4 questions x 3 answers, one system
    x = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 1], [1, 0, 0]], dtype=float)
    K, n = 3, 4
    means = x.mean(axis=1)
    msw = np.mean(x.var(axis=1, ddof=1))
    msb = K * np.var(means, ddof=1)
    vc = variance_components(x[:, None, :])
    assert vc.sigma_w2[0] == pytest.approx(msw)
    assert vc.sigma_b2[0] == pytest.approx((msb - msw) / K)
    assert vc.se[0] == pytest.approx(np.std(means, ddof=1) / np.sqrt(n))
    assert vc.se_with(K)[0] == pytest.approx(vc.se[0])  # sigma_b2 not floored here
    assert vc.se_infinite_k[0] < vc.se[0]
    assert vc.se_with(2 * K)[0] < vc.se[0]


def test_unequal_k_and_several_systems() -> None:
    """NaN marks a question's missing answers; each system is decomposed on its own; a question with one answer
    adds to the means but not to the within-question variance."""
    a = np.array([[1, 0, np.nan], [1, 1, 1], [0, np.nan, np.nan], [1, 0, 1]])
    b = np.array([[0.2, 0.4, 0.6], [0.5, 0.5, 0.5], [0.1, 0.3, 0.2], [0.9, 0.7, 0.8]])
    vc = variance_components(np.stack([a, b], axis=1))
    k_a = np.array([2, 3, 1, 3])
    s2 = [np.var([1, 0], ddof=1), 0.0, np.var([1, 0, 1], ddof=1)]
    assert vc.sigma_w2[0] == pytest.approx(np.mean(s2))
    means = np.array([0.5, 1.0, 0.0, 2 / 3])
    assert vc.sigma_b2[0] == pytest.approx(max(np.var(means, ddof=1) - np.mean(np.mean(s2) / k_a), 0.0))
    assert vc.k_mean[0] == pytest.approx(2.25) and vc.k_mean[1] == 3
    single = variance_components(b[:, None, :])
    assert vc.sigma_b2[1] == pytest.approx(single.sigma_b2[0])


def test_simulated_components_are_recovered() -> None:
    """sigma_b = 0.2 between questions, sigma_w = 0.5 within, 4000 questions x 5 answers: both within a few
    percent (the moment estimators are unbiased)."""
    rng = np.random.default_rng(7)
    q = rng.normal(0, 0.2, size=(4000, 1))
    x = q + rng.normal(0, 0.5, size=(4000, 5))
    vc = variance_components(x[:, None, :])
    assert vc.sigma_b2[0] == pytest.approx(0.04, rel=0.1)
    assert vc.sigma_w2[0] == pytest.approx(0.25, rel=0.05)
