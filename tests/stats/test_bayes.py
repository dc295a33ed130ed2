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


# -------------------------------------------------------------------------------------------- normal approximation


def _dense_moments(d: np.ndarray, rope: float, s: float) -> tuple[np.ndarray, np.ndarray]:
    """Brute force over all n + 1 points (no merging of equal values, no sorting): the exact mean of
    (left, right) from the n x n matrix of Dirichlet second moments, and the delta-method covariance
    from the dense gradient of g'Ag / (sum g)^2 at g = alpha (Var g_i = alpha_i)."""
    z = np.concatenate([[0.0], d])
    alpha = np.concatenate([[s], np.ones(d.size)])
    a0 = alpha.sum()
    sums = z[:, None] + z[None, :]
    right = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)  # baycomp's heaviside
    left = (-sums > 2 * rope) + 0.5 * (-sums == 2 * rope)
    second = (np.outer(alpha, alpha) + np.diag(alpha)) / (a0 * (a0 + 1))  # E[w_i w_j], Dirichlet
    mean = np.array([(left * second).sum(), (right * second).sum()])
    grads = []
    for A in (left, right):
        q = alpha @ A @ alpha
        grads.append(2 * (A @ alpha) / a0**2 - 2 * q / a0**3)
    g = np.array(grads)
    return mean, (g * alpha) @ g.T


@pytest.mark.parametrize("rope", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("s", [0.5, 1.0])
def test_normal_moments_equal_brute_force_n_by_n(rope: float, s: float) -> None:
    rng = np.random.default_rng(5)
    for d in (rng.integers(-4, 5, 80) / 2.0, rng.normal(0.3, 1.0, 120)):  # ties at 2 rope and among values; none
        mean, cov = bayes.signed_rank_normal_moments(d, rope, s)
        ref_mean, ref_cov = _dense_moments(d, rope, s)
        np.testing.assert_allclose(mean, ref_mean, rtol=0, atol=1e-13)
        np.testing.assert_allclose(cov, ref_cov, rtol=1e-10, atol=1e-17)


def test_normal_mean_is_the_monte_carlo_mean_and_covariance_close() -> None:
    rng = np.random.default_rng(6)
    d = rng.normal(0.004, 0.02, 400)
    mean, cov = bayes.signed_rank_normal_moments(d, 0.01)
    S = 40_000
    m = signed_rank_masses(d, 0.01, seed=1, n_samples=S)[:, [0, 2]]
    se = m.std(axis=0) / math.sqrt(S)
    assert np.all(np.abs(m.mean(axis=0) - mean) <= 5 * se)  # the mean is exact: Monte Carlo error only
    # the delta method drops O(1/n) relative terms; the sample covariance's own error is ~sqrt(2/S) = 0.7%
    np.testing.assert_allclose(cov, np.cov(m.T), rtol=0.05)


@pytest.mark.parametrize("h,k,rho", [(0.3, -1.2, 0.4), (-0.7, -0.2, -0.8), (0.0, 1.1, 0.5), (-1.3, 0.0, -0.3),
                                     (0.0, 0.0, 0.6), (2.0, 1.5, 0.999), (1.0, -0.5, 0.0), (0.4, 0.9, -0.95)])
def test_orthant_equals_numerical_integration(h: float, k: float, rho: float) -> None:
    from scipy import integrate, stats

    # P(Z1 < h, Z2 < k) = int_{-inf}^{h} phi(x) Phi((k - rho x) / sqrt(1 - rho^2)) dx (scipy 1.17 quad)
    ref, _ = integrate.quad(lambda x: stats.norm.pdf(x) * stats.norm.cdf((k - rho * x) / math.sqrt(1 - rho**2)),
                            -np.inf, h, epsabs=1e-13, epsrel=1e-12)
    assert bayes._orthant(h, k, rho) == pytest.approx(ref, abs=1e-9)


def test_orthant_degenerate_correlations() -> None:
    phi = bayes._std_normal_cdf
    assert bayes._orthant(0.5, -0.2, 1.0) == pytest.approx(phi(-0.2), abs=1e-15)  # Z1 = Z2
    assert bayes._orthant(0.5, 0.7, -1.0) == pytest.approx(phi(0.5) + phi(0.7) - 1, abs=1e-15)  # Z1 = -Z2
    assert bayes._orthant(-0.5, -0.7, -1.0) == 0.0


def _tuned_differences(n: int, rng: np.random.Generator, target: float, rope: float, spread: float,
                       rounding: int | None = None) -> np.ndarray:
    """Differences whose shift puts the approximation's P(a better) at ``target``: the decision is in
    doubt, where the approximation errs most (benchmarks/bench_bayes.py --accuracy)."""
    z = rng.normal(0, 1, n)

    def f(s: float) -> np.ndarray:
        x = s + spread * z
        return np.round(x, rounding) if rounding is not None else x

    lo, hi = -0.05, 0.05
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if bayes.signed_rank_normal_probs(f(mid), rope)[2] < target else (lo, mid)
    return f(0.5 * (lo + hi))


# measured by benchmarks/bench_bayes.py --accuracy 2000 --reference-budget 5e8 (largest |normal - Monte Carlo|
# of the three probabilities over its shapes): 0.0016 (ties and zeros, reference se 0.0004) and 0.0017 (rope = 0,
# se 0.0010); at n = 2,500 the error is smaller (it falls as 1/sqrt(n)), so 0.002 bounds it with a margin
APPROX_ERROR_2000 = 0.002


@pytest.mark.parametrize("case", ["boundary_rope_right", "decision_level", "ties_zeros", "binary"])
def test_normal_approximation_agrees_with_monte_carlo_at_n_2500(case: str) -> None:
    rng = np.random.default_rng(2500)
    n, rope = 2500, 0.01
    if case == "boundary_rope_right":
        d = _tuned_differences(n, rng, 0.5, rope, 0.02)
    elif case == "decision_level":
        d = _tuned_differences(n, rng, 0.95, rope, 0.02)
    elif case == "ties_zeros":
        d = _tuned_differences(n, rng, 0.5, rope, 0.02, rounding=2)
    else:
        rope = 0.1
        d = (rng.random(n) < 0.6).astype(float) - (rng.random(n) < 0.58).astype(float)
    S = 30_000 if case != "binary" and case != "ties_zeros" else 200_000  # few distinct values: sampling is cheap
    mc = bayesian_signed_rank(d, np.zeros(n), rope, seed=3, n_samples=S, method="monte_carlo")
    normal = bayesian_signed_rank(d, np.zeros(n), rope, seed=3, method="normal")
    assert (mc.posterior, normal.posterior) == ("monte_carlo", "normal")
    assert normal.n_samples is None and normal.mc_se is None and mc.n_samples == S
    for p_mc, p_n in zip((mc.p_b_better, mc.p_equivalent, mc.p_a_better),
                         (normal.p_b_better, normal.p_equivalent, normal.p_a_better)):
        # 4 standard errors of the Monte Carlo estimate (false failure < 1e-4) plus the measured approximation error
        assert abs(p_mc - p_n) <= 4 * math.sqrt(p_mc * (1 - p_mc) / S) + APPROX_ERROR_2000, (case, p_mc, p_n)
    assert normal.p_a_better + normal.p_equivalent + normal.p_b_better == pytest.approx(1.0, abs=1e-12)


def test_normal_approximation_against_baycomp_at_n_300() -> None:
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(300)
    d = _tuned_differences(300, rng, 0.6, 0.01, 0.02)
    S = 4_000
    ref = baycomp.SignedRankTest.sample(np.zeros(300), d, 0.01, nsamples=S, random_state=9)  # (left, rope, right)
    mean, _ = bayes.signed_rank_normal_moments(d, 0.01)
    se = ref.std(axis=0) / math.sqrt(S)
    assert np.all(np.abs(ref.mean(axis=0)[[0, 2]] - mean) <= 5 * se[[0, 2]])  # exact mean vs baycomp's samples
    probs = baycomp.SignedRankTest.probs(np.zeros(300), d, 0.01, nsamples=S, random_state=9)
    ours = bayes.signed_rank_normal_probs(d, 0.01)
    # 5 standard errors of baycomp's estimate plus the approximation error at n = 300 (0.0032 measured at
    # n = 500 by bench_bayes.py --accuracy 500, times sqrt(500 / 300) for the 1/sqrt(n) decay: 0.0041)
    for p_ref, p in zip(probs, ours):
        assert abs(p_ref - p) <= 5 * math.sqrt(p_ref * (1 - p_ref) / S) + 0.0045


def test_normal_degenerate_posteriors() -> None:
    # all differences 0 (within the rope): every Walsh average is 0, the posterior is a point mass
    r = bayesian_signed_rank(np.ones(6000), np.ones(6000), 0.01, seed=1)
    assert r.posterior == "normal" and (r.p_b_better, r.p_equivalent, r.p_a_better) == (0.0, 1.0, 0.0)
    assert r.decision == "equivalent"
    # rope = 0: the equivalence mass is 0, left = 1 - right (a one-dimensional posterior)
    rng = np.random.default_rng(8)
    d = rng.normal(0, 1, 3000)
    normal = bayesian_signed_rank(d, np.zeros(3000), 0.0, seed=1, method="normal")
    mc = bayesian_signed_rank(d, np.zeros(3000), 0.0, seed=1, n_samples=20_000, method="monte_carlo")
    assert normal.p_equivalent == 0.0 and "rope = 0" in normal.warnings[0]
    assert normal.p_a_better == pytest.approx(mc.p_a_better, abs=4 * mc.mc_se + APPROX_ERROR_2000)


def test_auto_is_monte_carlo_up_to_the_threshold_and_normal_above() -> None:
    n = bayes.NORMAL_ABOVE
    assert bayes.resolve_posterior("auto", n) == "monte_carlo"
    assert bayes.resolve_posterior("auto", n + 1) == "normal"
    assert bayes.resolve_posterior("normal", 10) == "normal" and bayes.resolve_posterior("monte_carlo", 10**6) == \
        "monte_carlo"
    with pytest.raises(ValueError, match="method"):
        bayes.resolve_posterior("exact", 10)
    a, b, rope = _datasets()["undecided"]  # every existing size: auto is the Monte Carlo of before, sample for sample
    auto = bayesian_signed_rank(a, b, rope, seed=5, n_samples=4000)
    mc = bayesian_signed_rank(a, b, rope, seed=5, n_samples=4000, method="monte_carlo")
    assert auto == mc and auto.posterior == "monte_carlo" and auto.n_samples == 4000
    rng = np.random.default_rng(4)
    d = rng.normal(0.005, 0.02, n + 1)
    big = bayesian_signed_rank(d, np.zeros(n + 1), 0.01, seed=5)
    assert big.posterior == "normal" and big.n_samples is None
    assert (big.p_b_better, big.p_equivalent, big.p_a_better) == bayes.signed_rank_normal_probs(d, 0.01)


def test_normal_is_deterministic_and_free_of_the_seed() -> None:
    rng = np.random.default_rng(10)
    d = rng.normal(0.006, 0.02, 800)
    first = bayesian_signed_rank(d, np.zeros(800), 0.01, seed=1, method="normal")
    again = bayesian_signed_rank(d, np.zeros(800), 0.01, seed=1, method="normal")
    other = bayesian_signed_rank(d, np.zeros(800), 0.01, seed=2, method="normal")
    assert first == again
    assert (first.p_a_better, first.p_equivalent) == (other.p_a_better, other.p_equivalent)


def test_threshold_is_the_one_the_spec_and_report_name() -> None:
    from sigreport.render.views.settings import POSTERIOR_TEXT
    from sigreport.spec import BayesianSpec

    text = f"{bayes.NORMAL_ABOVE:,}"
    assert text in BayesianSpec.model_fields["method"].description
    assert text in POSTERIOR_TEXT["auto"]


BAYES_SPEC = """
    title: t
    seed: 3
    data: {{scores: s.csv}}
    metrics: {{m: {{higher_is_better: true}}}}
    tests:
      omnibus: none
      bayesian:
        rope: {{m: 0.01}}
        samples: 5000
{method}"""


def _scores_csv(n: int) -> str:
    rng = np.random.default_rng(n)
    a = rng.normal(0.6, 0.1, n)
    b = a - rng.normal(0.004, 0.02, n)
    return "system,corpus,item,metric,value\n" + "".join(
        f"{s},c,i{i:05d},m,{v!r}\n" for i in range(n) for s, v in (("A", float(a[i])), ("B", float(b[i]))))


@pytest.mark.parametrize("method,n,expected", [(None, 40, "monte_carlo"), ("normal", 40, "normal"),
                                               ("monte_carlo", 40, "monte_carlo")])
def test_method_is_recorded_and_reported(cli, workdir, method: str | None, n: int, expected: str) -> None:
    workdir.write("spec.yaml", BAYES_SPEC.format(method=f"        method: {method}\n" if method else ""))
    workdir.write("s.csv", _scores_csv(n))
    r = cli("build", workdir.path / "spec.yaml", "-o", workdir.path / "out", "--formats", "json,html", "--quiet")
    assert r.code == 0, r.err
    doc = workdir.results()
    (rec,) = [a for a in doc["analyses"] if a["kind"] == "bayesian"]
    assert rec["posterior"] == expected and rec["n_samples"] == (5000 if expected == "monte_carlo" else None)
    html = (workdir.path / "out" / "index.html").read_text()
    if expected == "normal":
        assert "by its large-n normal approximation" in html and "posterior by normal approximation" in html
    else:
        assert "5,000 samples from the spec" in html and "posterior by Monte Carlo" in html


def test_bad_method_is_a_spec_error_with_field_and_line(cli, workdir) -> None:
    from conftest import assert_user_error

    spec = workdir.write("spec.yaml", BAYES_SPEC.format(method="        method: exact\n"))
    workdir.write("s.csv", _scores_csv(10))
    assert_user_error(cli, spec, workdir.path / "out", "bad method",
                      ["line 10", "tests.bayesian.method", "auto", "monte_carlo", "normal"])
