"""Bayesian signed-rank test with a ROPE and correlated Bayesian t test (sigreport/stats/bayes.py).

References, computed live (baycomp 1.0.3, ``pip install baycomp``, in the ``test`` extra):

* ``baycomp.SignedRankTest.probs(b, a, rope, nsamples=S, random_state=seed)`` and
  ``SignedRankTest.sample(...)`` (baycomp's y - x is our a - b, so its (left, rope, right) is our
  (b better, equivalent, a better)). baycomp draws with ``RandomState``, we with ``PCG64``: the two
  are independent Monte Carlo estimates of the same posterior quantities, compared within
  ``5 * sqrt(se_1^2 + se_2^2)`` where ``se = sqrt(p (1 - p) / S)`` for a probability and
  ``sd / sqrt(S)`` for a mean mass (a false failure has probability below 1e-6 per comparison).
* ``baycomp.CorrelatedTTest.probs(b, a, rope, runs)``: exact Student t tail areas, compared to 1e-12.
* The O(u log u) reduction of ``w^T A w`` is compared exactly (1e-12) with the dense quadratic
  form over the indicator matrix of Walsh sums, built here with baycomp's own heaviside rule.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigreport.stats import bayes
from sigreport.stats.bayes import (
    bayesian_signed_rank,
    correlated_bayesian_t,
    cv_correlation,
    decide,
    signed_rank_masses,
)


def _datasets() -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    rng = np.random.default_rng(2017)
    base = rng.normal(0.7, 0.1, 30)
    return {
        "equal": (base + rng.normal(0, 0.01, 30), base.copy(), 0.01),  # differences ~N(0, 0.01), rope 0.01
        "different": (base + rng.normal(0.05, 0.03, 30), base.copy(), 0.01),
        "mostly_rope": (base + rng.normal(0.002, 0.004, 30), base.copy(), 0.01),
        "ties_01": (rng.integers(0, 2, 40).astype(float), rng.integers(0, 2, 40).astype(float), 0.1),
        "undecided": (base + rng.normal(0.008, 0.02, 30), base.copy(), 0.01),
    }


S = 8_000


@pytest.mark.parametrize("name", list(_datasets()))
def test_signed_rank_matches_baycomp_within_monte_carlo_error(name: str) -> None:
    baycomp = pytest.importorskip("baycomp")
    a, b, rope = _datasets()[name]
    ours = bayesian_signed_rank(a, b, rope, seed=7, n_samples=S)
    ref = baycomp.SignedRankTest.probs(b, a, rope, nsamples=S, random_state=7)  # (left, rope, right)
    for p_ours, p_ref in zip((ours.p_b_better, ours.p_equivalent, ours.p_a_better), ref):
        se = math.sqrt(p_ours * (1 - p_ours) / S + p_ref * (1 - p_ref) / S)
        assert abs(p_ours - p_ref) <= 5 * se + 1e-12, (name, p_ours, p_ref)
    # the region masses themselves (more sensitive than the winner shares)
    m_ours = signed_rank_masses(a - b, rope, seed=8, n_samples=S)
    m_ref = baycomp.SignedRankTest.sample(b, a, rope, nsamples=S, random_state=8)
    se = np.sqrt(m_ours.var(axis=0) / S + m_ref.var(axis=0) / S)
    assert np.all(np.abs(m_ours.mean(axis=0) - m_ref.mean(axis=0)) <= 5 * se + 1e-12), name


def test_signed_rank_decisions_on_clear_cases() -> None:
    data = _datasets()
    assert bayesian_signed_rank(*data["different"], seed=1).decision == "a_better"
    a, b, rope = data["different"]
    assert bayesian_signed_rank(b, a, rope, seed=1).decision == "b_better"
    assert bayesian_signed_rank(*data["mostly_rope"], seed=1).decision == "equivalent"
    r = bayesian_signed_rank(*data["undecided"], seed=1)
    assert r.decision == "undecided"
    assert r.p_a_better + r.p_equivalent + r.p_b_better == pytest.approx(1.0, abs=1e-12)


def _dense_masses(u: np.ndarray, g: np.ndarray, rope: float) -> np.ndarray:
    """baycomp's dense computation: heaviside(a, t) = (a > t) + 0.5 (a == t) on all Walsh sums."""
    sums = u[:, None] + u[None, :]
    above = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    below = (-sums > 2 * rope) + 0.5 * (-sums == 2 * rope)
    w = g / g.sum(axis=1, keepdims=True)
    right = np.einsum("si,ij,sj->s", w, above, w)
    left = np.einsum("si,ij,sj->s", w, below, w)
    return np.stack([left, 1 - left - right, right], axis=1)


@pytest.mark.parametrize("rope", [0.0, 0.5, 1.0])
def test_sorted_cumulative_reduction_equals_dense_quadratic_form(rope: float) -> None:
    rng = np.random.default_rng(1)
    # integers and halves: many exact ties of z_i + z_j with 2 rope and among the values
    d = rng.integers(-4, 5, 60) / 2.0
    u, alpha, idx = bayes._walsh_plan(d, rope, 0.5)
    g = rng.standard_gamma(alpha[None, :], size=(50, alpha.size))
    assert np.all(np.diff(u) < 0)  # distinct, descending
    assert alpha.sum() == pytest.approx(60.5)
    np.testing.assert_allclose(bayes._masses_from_gammas(g, idx), _dense_masses(u, g, rope), atol=1e-12)


def test_continuous_values_reduction_equals_dense() -> None:
    rng = np.random.default_rng(2)
    d = rng.normal(0, 1, 200)
    u, alpha, idx = bayes._walsh_plan(d, 0.3, 0.5)
    g = rng.standard_gamma(alpha[None, :], size=(20, alpha.size))
    np.testing.assert_allclose(bayes._masses_from_gammas(g, idx), _dense_masses(u, g, 0.3), atol=1e-12)


def test_deterministic_and_independent_of_processing_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, rope = _datasets()["undecided"]
    first = signed_rank_masses(a - b, rope, seed=3, n_samples=3000)
    again = signed_rank_masses(a - b, rope, seed=3, n_samples=3000)
    assert first.tobytes() == again.tobytes()
    monkeypatch.setattr(bayes, "_BLOCK_ELEMENTS", 97)  # a few rows per step instead of whole blocks
    stepped = signed_rank_masses(a - b, rope, seed=3, n_samples=3000)
    np.testing.assert_allclose(stepped, first, rtol=0, atol=1e-13)
    other = signed_rank_masses(a - b, rope, seed=4, n_samples=3000)
    assert not np.array_equal(other, first)


@pytest.mark.parametrize("rope,runs", [(0.0, 1), (0.01, 1), (0.01, 3), (0.05, 2)])
def test_correlated_t_matches_baycomp_exactly(rope: float, runs: int) -> None:
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(runs)
    k = 10
    a = rng.normal(0.80, 0.02, k * runs)
    b = a - rng.normal(0.01, 0.015, k * runs)
    ours = correlated_bayesian_t(a, b, rope, rho=cv_correlation(n_train=9, n_test=1))
    ref = baycomp.CorrelatedTTest.probs(b, a, rope, runs=runs)
    if rope == 0:
        assert (ours.p_b_better, ours.p_a_better) == pytest.approx(tuple(ref), abs=1e-12)
        assert ours.p_equivalent == pytest.approx(0.0, abs=1e-12)
    else:
        assert (ours.p_b_better, ours.p_equivalent, ours.p_a_better) == pytest.approx(tuple(ref), abs=1e-12)
    assert ours.df == k * runs - 1 and ours.rho == pytest.approx(0.1)


def test_correlated_t_zero_variance_is_a_point_mass() -> None:
    r = correlated_bayesian_t(np.full(10, 0.8), np.full(10, 0.7), rope=0.01, rho=0.1)
    assert (r.p_a_better, r.p_equivalent, r.p_b_better) == (1.0, 0.0, 0.0)
    assert r.decision == "a_better" and "zero variance" in r.warnings[0]


def test_decide_and_input_errors() -> None:
    assert decide(0.96, 0.03, 0.01, 0.95) == "a_better"
    assert decide(0.5, 0.45, 0.05, 0.95) == "undecided"
    assert cv_correlation(90, 10) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="rope"):
        bayesian_signed_rank([1.0, 2.0], [1.0, 1.0], -0.1, seed=1)
    with pytest.raises(ValueError, match="same number"):
        bayesian_signed_rank([1.0, 2.0], [1.0], 0.1, seed=1)
    with pytest.raises(ValueError, match="NaN"):
        bayesian_signed_rank([1.0, np.nan], [1.0, 1.0], 0.1, seed=1)
    with pytest.raises(ValueError, match="rho"):
        correlated_bayesian_t([1.0, 2.0], [1.0, 1.0], 0.1, rho=1.0)
    with pytest.raises(ValueError, match="decision_level"):
        correlated_bayesian_t([1.0, 2.0], [1.0, 1.0], 0.1, rho=0.1, decision_level=0.4)
    empty = bayesian_signed_rank([], [], 0.1, seed=1)
    assert empty.p_a_better is None and empty.decision == "undecided" and empty.warnings
