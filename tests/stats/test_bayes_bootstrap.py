"""The Bayesian bootstrap of the mean difference (sigreport.stats.bayes.bayesian_bootstrap), the rule that
chooses it, and the rule that never declares equivalence outside the ROPE.

Independent references (R's ``bayesboot`` is not packaged by Debian, so none of them is R):

* the closed form of the posterior (Rubin 1981, sec. 2; Dirichlet(1, ..., 1) moments): mean = mean(d),
  Var = sum((d - mean(d))^2) / (n (n + 1));
* for 0/1 scores, whose differences take the values -1, 0, 1 with counts (c-, c0, c+): the mean is
  w+ - w- with (w+, w-, w0) ~ Dirichlet(c+, c-, c0) (aggregation property), so P(mean > r) is the integral
  of ``scipy.stats.dirichlet.pdf`` over {x - y > r}, computed by ``scipy.integrate.dblquad``: deterministic;
* numpy's own Dirichlet sampler, ``Generator.dirichlet(np.ones(n), size)`` with another seed (another
  random path: numpy draws the n gammas per row itself, without merging equal values).

Monte Carlo comparisons use ``5 * sqrt(se_1^2 + se_2^2)``, se = sqrt(p (1 - p) / S) (a false failure has
probability below 1e-6 per comparison).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigreport.stats import bayes
from sigreport.stats.bayes import (BayesianResult, bayesian_bootstrap, choose_model, guard_equivalence,
                                   mean_difference_moments, mean_difference_samples)

S = 200_000


def _close(p: float, q: float, n1: int, n2: int | None = None) -> bool:
    se = math.sqrt(p * (1 - p) / n1 + (q * (1 - q) / n2 if n2 else 0.0))
    return abs(p - q) <= 5 * se + 1e-12


@pytest.mark.parametrize("kind", ["continuous", "binary"])
def test_posterior_mean_and_variance_are_the_closed_form(kind: str) -> None:
    rng = np.random.default_rng(1981)
    d = rng.normal(0.02, 0.1, 25) if kind == "continuous" else (rng.integers(0, 2, 60) - rng.integers(0, 2, 60)) * 1.0
    mean, var = mean_difference_moments(d)
    assert mean == pytest.approx(d.mean(), abs=1e-15)
    assert var == pytest.approx(np.sum((d - d.mean()) ** 2) / (d.size * (d.size + 1)), rel=1e-12)
    mu = mean_difference_samples(d, seed=5, n_samples=S)
    assert abs(mu.mean() - mean) <= 5 * math.sqrt(var / S)
    # sd of a sample variance of S near-normal draws: var sqrt(2 / S) (0.3% here); 5 of them
    assert mu.var() == pytest.approx(var, rel=5 * math.sqrt(2 / S) * 1.5)


@pytest.mark.parametrize("counts,rope", [((5, 2, 3), 0.1), ((20, 14, 66), 0.01), ((3, 3, 4), 0.0)])
def test_binary_probabilities_equal_the_integrated_dirichlet(counts: tuple[int, int, int], rope: float) -> None:
    from scipy import integrate, stats

    plus, minus, zero = counts
    alpha = np.array([plus, minus, zero], dtype=float)

    def density(y: float, x: float) -> float:  # x = w+, y = w-, w0 = 1 - x - y
        z = 1.0 - x - y
        return float(stats.dirichlet.pdf([x, y, z], alpha)) if x > 0 and y > 0 and z > 0 else 0.0

    # P(w+ - w- > rope): x from rope to 1, y from 0 to min(x - rope, 1 - x)
    p_right = integrate.dblquad(density, rope, 1.0, 0.0, lambda x: max(0.0, min(x - rope, 1.0 - x)),
                                epsabs=1e-10)[0]
    # P(w- - w+ > rope): the outer variable is w- (from rope to 1), the inner w+ (0 to min(w- - rope, 1 - w-))
    p_left = integrate.dblquad(lambda plus_w, minus_w: density(minus_w, plus_w), rope, 1.0, 0.0,
                               lambda minus_w: max(0.0, min(minus_w - rope, 1.0 - minus_w)), epsabs=1e-10)[0]
    d = np.array([1.0] * plus + [-1.0] * minus + [0.0] * zero)
    r = bayesian_bootstrap(d, np.zeros_like(d), rope, seed=11, n_samples=S)
    assert _close(r.p_a_better, p_right, S) and _close(r.p_b_better, p_left, S), (r, p_right, p_left)
    assert r.method == "bayesian_bootstrap" and r.posterior == "monte_carlo" and r.estimate == pytest.approx(d.mean())


@pytest.mark.parametrize("case", ["continuous", "ties", "binary_small"])
def test_agrees_with_numpy_dirichlet_sampler(case: str) -> None:
    rng = np.random.default_rng(7)
    if case == "continuous":
        a, b, rope = rng.normal(0.6, 0.1, 40), rng.normal(0.59, 0.1, 40), 0.01
    elif case == "ties":
        a = np.round(rng.normal(0.6, 0.05, 50), 2)
        b = np.where(rng.random(50) < 0.7, a, np.round(rng.normal(0.58, 0.05, 50), 2))
        rope = 0.005
    else:
        a, b, rope = rng.integers(0, 2, 12).astype(float), rng.integers(0, 2, 12).astype(float), 0.05
    d = a - b
    ours = bayesian_bootstrap(a, b, rope, seed=3, n_samples=S)
    w = np.random.default_rng(2024).dirichlet(np.ones(d.size), size=S)
    mu = w @ d
    ref = (float(np.mean(mu > rope)), float(np.mean(np.abs(mu) <= rope)), float(np.mean(mu < -rope)))
    for p, q in zip((ours.p_a_better, ours.p_equivalent, ours.p_b_better), ref):
        assert _close(p, q, S, S), (case, p, q)


def test_normal_method_and_auto_threshold() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.003, 0.1, 6000)  # more distinct values than NORMAL_ABOVE: auto is the normal law
    r = bayesian_bootstrap(d, np.zeros_like(d), 0.001, seed=1)
    assert r.posterior == "normal" and r.n_samples is None and r.mc_se is None
    mean, var = mean_difference_moments(d)
    from scipy import stats
    assert r.p_a_better == pytest.approx(stats.norm.sf(0.001, mean, math.sqrt(var)), abs=1e-12)
    assert r.p_b_better == pytest.approx(stats.norm.cdf(-0.001, mean, math.sqrt(var)), abs=1e-12)
    mc = bayesian_bootstrap(d, np.zeros_like(d), 0.001, seed=1, n_samples=20_000, method="monte_carlo")
    for p, q in zip((r.p_a_better, r.p_equivalent, r.p_b_better), (mc.p_a_better, mc.p_equivalent, mc.p_b_better)):
        assert abs(p - q) <= 5 * math.sqrt(q * (1 - q) / 20_000) + 0.002  # 0.002: the normal law's own error
    small = bayesian_bootstrap(d[:300], np.zeros(300), 0.001, seed=1, n_samples=2000)
    assert small.posterior == "monte_carlo"


def test_same_seed_same_samples_whatever_the_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    d = np.random.default_rng(0).normal(0, 1, 300)
    first = mean_difference_samples(d, 42, 5000)
    monkeypatch.setattr(bayes, "_BLOCK_ELEMENTS", 1000)  # other step sizes inside a block
    assert np.array_equal(first, mean_difference_samples(d, 42, 5000))
    assert not np.array_equal(first, mean_difference_samples(d, 43, 5000))


def test_degenerate_inputs() -> None:
    r = bayesian_bootstrap(np.array([]), np.array([]), 0.1, seed=0)
    assert r.decision == "undecided" and r.p_a_better is None and r.warnings
    same = bayesian_bootstrap(np.ones(20), np.ones(20), 0.1, seed=0)
    assert (same.p_equivalent, same.decision) == (1.0, "equivalent")
    with pytest.raises(ValueError):
        bayesian_bootstrap(np.ones(3), np.ones(3), 0.1, seed=0, method="exact")


def test_choose_model_binary_or_mostly_tied() -> None:
    rng = np.random.default_rng(4)
    binary = rng.integers(0, 2, (100, 3)).astype(float)
    assert choose_model(binary, [(0, 1), (0, 2), (1, 2)])[0] == "bayesian_bootstrap"
    cont = rng.normal(0, 1, (100, 2))
    assert choose_model(cont, [(0, 1)])[0] == "signed_rank"
    tied = cont.copy()
    tied[:51, 1] = tied[:51, 0]  # 51% of the differences zero: mostly tied
    model, why = choose_model(tied, [(0, 1)])
    assert model == "bayesian_bootstrap" and "51%" in why
    tied[50, 1] += 1.0  # exactly half: not "more than half"
    assert choose_model(tied, [(0, 1)])[0] == "signed_rank"
    # differences below the metric's precision count as zero
    near = cont.copy()
    near[:60, 1] = near[:60, 0] + 1e-13
    assert choose_model(near, [(0, 1)], decimals=12)[0] == "bayesian_bootstrap"


def test_equivalence_is_never_declared_outside_the_rope() -> None:
    r = BayesianResult(method="signed_rank", n=100, rope=0.01, p_a_better=0.01, p_equivalent=0.97, p_b_better=0.02,
                       decision="equivalent", decision_level=0.95, estimate=0.05)
    g = guard_equivalence(r)
    assert g.decision == "undecided" and "outside" in g.warnings[-1] and g.p_equivalent == 0.97
    inside = BayesianResult(method="signed_rank", n=100, rope=0.01, p_a_better=0.01, p_equivalent=0.97, p_b_better=0.02,
                            decision="equivalent", decision_level=0.95, estimate=-0.01)
    assert guard_equivalence(inside) is inside  # on the boundary: inside the ROPE
    assert guard_equivalence(BayesianResult(method="signed_rank", n=9, rope=0.0, p_a_better=0.9, p_equivalent=0.0,
                                            p_b_better=0.1, decision="undecided", decision_level=0.95,
                                            estimate=0.3)).warnings == ()


def test_binary_scores_the_signed_rank_posterior_calls_equivalent_and_the_mean_does_not() -> None:
    """The issue's case: 0/1 accuracy of two classifiers that agree on 85% of the items and differ by 6 points
    of accuracy; the signed-rank posterior puts the ties in the ROPE of 0.01 and declares them practically
    equivalent, the posterior of the mean difference puts nearly nothing there."""
    rng = np.random.default_rng(19)
    n = 400
    a = (rng.random(n) < 0.80).astype(float)
    b = a.copy()  # they agree on 85% of the items ...
    flip = rng.choice(n, 60, replace=False)
    a[flip[:45]], b[flip[:45]] = 1.0, 0.0  # ... a alone is right on 45 items, b alone on 15: 7.5 points apart
    a[flip[45:]], b[flip[45:]] = 0.0, 1.0
    d = a - b
    assert d.mean() == pytest.approx(0.075) and np.mean(d == 0) == pytest.approx(0.85)
    sr = bayes.bayesian_signed_rank(a, b, 0.01, seed=1, n_samples=20_000)
    bb = bayesian_bootstrap(a, b, 0.01, seed=1)
    assert sr.decision == "equivalent"  # the contradiction the rule prevents
    assert guard_equivalence(sr).decision == "undecided"
    assert bb.decision == "a_better" and bb.p_equivalent < 0.01
