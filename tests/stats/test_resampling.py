"""Tests of sigreport.stats.resampling (paired bootstrap and approximate randomization).

References used:
- scipy 1.17.1 ``scipy.stats.permutation_test`` (permutation_type='samples') and
  ``scipy.stats.bootstrap`` (paired=True, percentile and BCa), called at test time;
- brute-force enumeration of all 2**n swap assignments in exact rational arithmetic
  (``fractions.Fraction``), written here;
- a plain per-replicate Python loop written here (slow but obviously correct);
- scikit-learn 1.9.1 ``f1_score`` / ``fbeta_score`` (test-only dependency) for corpus F_beta;
- the seeds' README worked example 6 (TP = 120, FP = 40, FN = 30: F1 = 0.774).

Monte Carlo tolerances are stated as multiples of the Monte Carlo standard error (mc_se).
"""

from __future__ import annotations

import itertools
import math
import threading
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from sigreport.stats import resampling as rs
from sigreport.stats.resampling import (
    CorpusMetric,
    ResamplingResult,
    f_beta_metric,
    mean_metric,
    paired_resampling,
    ratio_metric,
    user_metric,
)
from sigreport.stats.result import PairedTestResult, to_jsonable

# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def _mean_stats(*systems: np.ndarray) -> np.ndarray:
    """(n, k, 1) stats array of per-item scores."""
    return np.stack([np.asarray(s, dtype=float) for s in systems], axis=1)[:, :, None]


def _p(res: ResamplingResult, i: int = 0) -> float:
    p = res.pairs[i].pvalue
    assert p is not None
    return p


def _mcse(res: ResamplingResult, i: int = 0) -> float:
    v = res.pairs[i].extra["mc_se"]
    assert isinstance(v, float)
    return v


@pytest.fixture
def float32_real(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force the float32 item-centred path for real-valued data of any size."""
    monkeypatch.setattr(rs, "_FLOAT32_MIN_ELEMENTS", 0)


# ----------------------------------------------------------------------------------------------
# corpus metrics
# ----------------------------------------------------------------------------------------------


def test_mean_metric_value() -> None:
    # 10 / 4 = 2.5 by definition of the mean
    assert mean_metric().value(np.array([[10.0]]), 4)[0] == 2.5


def test_ratio_metric_value_and_zero_denominator() -> None:
    m = ratio_metric()
    assert m.n_stats == 2
    out = m.value(np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0]]), 7)
    assert out[0] == 0.75  # 3 / 4
    assert np.isnan(out[1]) and np.isnan(out[2])  # 0/0 and 1/0 are undefined -> NaN


def test_f_beta_metric_seed_example() -> None:
    # seeds/README.md worked example 6: TP = 120, FP = 40, FN = 30 -> precision 0.75, recall 0.80, F1 0.774
    f1 = f_beta_metric(1.0).value(np.array([120.0, 40.0, 30.0]), 500)
    assert float(f1) == pytest.approx(0.774, abs=5e-4)
    # F_beta = (1 + b^2) P R / (b^2 P + R) (README, corrected formula 5) with P = 0.75, R = 0.8
    for beta in (0.5, 2.0):
        expected = (1 + beta**2) * 0.75 * 0.8 / (beta**2 * 0.75 + 0.8)
        assert float(f_beta_metric(beta).value(np.array([120.0, 40.0, 30.0]), 500)) == pytest.approx(expected, rel=1e-14)
    assert np.isnan(f_beta_metric().value(np.zeros(3), 10))  # tp = fp = fn = 0: 0/0


def test_f_beta_rejects_bad_beta() -> None:
    for beta in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            f_beta_metric(beta)


def test_user_metric_shape_checks() -> None:
    m = user_metric(lambda t, n: t[..., 0] * t[..., 1] / n, 2, name="prod")
    assert m.name == "prod" and m.n_stats == 2
    assert m.value(np.array([[2.0, 3.0]]), 2)[0] == 3.0  # 2 * 3 / 2
    bad = user_metric(lambda t, n: t, 2)  # returns the wrong shape
    with pytest.raises(ValueError):
        bad.value(np.ones((4, 2)), 1)
    with pytest.raises(ValueError):
        m.value(np.ones((4, 3)), 1)  # wrong number of statistics
    inf = user_metric(lambda t, n: t[..., 0] / 0.0, 1)
    assert np.isnan(inf.value(np.ones((2, 1)), 1)).all()  # non-finite -> NaN


def test_corpus_metric_is_frozen() -> None:
    m = mean_metric()
    assert isinstance(m, CorpusMetric)
    with pytest.raises(AttributeError):
        m.n_stats = 3  # type: ignore[misc]


def test_observed_f_beta_and_ratio_against_sklearn() -> None:
    """Observed corpus metrics (system values and pair estimates) from summed tp/fp/fn."""
    from sklearn.metrics import fbeta_score  # scikit-learn 1.9.1, test-only

    rng = np.random.default_rng(11)
    n = 300
    truth = rng.integers(0, 2, n)
    preds = [np.where(rng.random(n) < acc, truth, 1 - truth) for acc in (0.8, 0.7, 0.6)]
    tp = np.stack([(p == 1) & (truth == 1) for p in preds], axis=1)
    fp = np.stack([(p == 1) & (truth == 0) for p in preds], axis=1)
    fn = np.stack([(p == 0) & (truth == 1) for p in preds], axis=1)
    stats = np.stack([tp, fp, fn], axis=2).astype(np.int64)
    for beta in (1.0, 2.0):
        res = paired_resampling(stats, f_beta_metric(beta), [(0, 1), (2, 0)], "bootstrap", 200, seed=1)
        sk = [fbeta_score(truth, p, beta=beta) for p in preds]  # sklearn.metrics.fbeta_score(y, yhat, beta=beta)
        assert [v for v, _, _ in res.system_ci] == pytest.approx(sk, rel=1e-12)
        assert res.pairs[0].estimate == pytest.approx(sk[0] - sk[1], rel=1e-12)
        assert res.pairs[1].estimate == pytest.approx(sk[2] - sk[0], rel=1e-12)
    # ratio metric: accuracy over tokens = sum(correct) / sum(tokens)
    tokens = rng.integers(1, 30, size=(n, 2))
    correct = np.minimum(tokens, rng.integers(0, 30, size=(n, 2)))
    rstats = np.stack([correct, tokens], axis=2)
    res = paired_resampling(rstats, ratio_metric(), [(0, 1)], "permutation", 100, seed=2)
    expected = correct.sum(0) / tokens.sum(0)  # numpy: column sums divided
    assert [v for v, _, _ in res.system_ci] == pytest.approx(list(expected), rel=1e-14)
    assert res.pairs[0].estimate == pytest.approx(expected[0] - expected[1], rel=1e-12)


# ----------------------------------------------------------------------------------------------
# the weight generators
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1024, 5000, 100_000, 10_000_000])
def test_poisson_plan_is_exact_inversion(n: int) -> None:
    """The relabelled 16-bit inversion gives exactly the Poisson(lambda) pmf (scipy.stats.poisson.pmf)."""
    plan = rs._poisson_plan(n)
    prob = np.zeros(plan.cdf.size + 1)
    v = np.arange(plan.special_start)
    np.add.at(prob, (v[:, None] >= plan.thresholds[None, :]).sum(axis=1), 1 / 65536)
    for cell in plan.special_cells:  # a special cell's mass splits at the CDF steps inside it
        a, b = cell / 65536, (cell + 1) / 65536
        cuts = np.concatenate([[a], plan.cdf[(plan.cdf > a) & (plan.cdf < b)], [b]])
        for x0, x1 in itertools.pairwise(cuts):
            prob[np.searchsorted(plan.cdf, (x0 + x1) / 2, side="right")] += x1 - x0
    ref = sps.poisson.pmf(np.arange(prob.size), plan.lam)  # scipy 1.17.1
    np.testing.assert_allclose(prob, ref, rtol=0, atol=1e-15)


@pytest.mark.parametrize("n", [50, 3000])
def test_multinomial_rows_distribution(n: int) -> None:
    """Rows sum to n; cell counts follow Binomial(n, 1/n) (chi-square goodness of fit, scipy)."""
    rng = np.random.default_rng(5)
    W = np.empty((400, n), dtype=np.float32)
    rs._multinomial_rows(rng, W)
    assert np.all(W.sum(axis=1) == n)
    assert np.all(W == np.round(W)) and W.min() >= 0
    counts = np.bincount(W.astype(np.int64).ravel())
    pmf = sps.binom.pmf(np.arange(counts.size), n, 1 / n)
    top = 5  # pool counts >= 5
    obs = np.append(counts[:top], counts[top:].sum())
    exp = np.append(pmf[:top], 1 - pmf[:top].sum()) * W.size
    # cells are negatively correlated within a row (fixed sum), which only lowers the chi-square
    assert sps.chisquare(obs, exp).pvalue > 1e-3
    # the covariance of two cells of a row is -1/n (multinomial), the variance 1 - 1/n
    assert W[:, 0].astype(float).var() == pytest.approx(1 - 1 / n, rel=0.2)


def test_swap_and_enumeration_rows() -> None:
    S = np.empty((64, 1000), dtype=np.float64)
    rs._swap_rows(np.random.default_rng(1), S)
    assert set(np.unique(S)) <= {0.0, 1.0}
    assert abs(S.mean() - 0.5) < 4 * math.sqrt(0.25 / S.size)  # fair coins, 4 binomial SDs
    E = np.empty((8, 3), dtype=np.float64)
    rs._enumeration_rows(0, E)
    assert sorted(map(tuple, E.tolist())) == sorted(itertools.product([0.0, 1.0], repeat=3))


# ----------------------------------------------------------------------------------------------
# agreement with scipy
# ----------------------------------------------------------------------------------------------


def _mean_diff(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_permutation_equals_scipy_exact(alternative: str) -> None:
    """n = 11, 2**11 <= B: both enumerate all sign flips; p must be equal (scipy's two-sided 2*min
    equals the |delta| form because the sign-flip distribution is symmetric)."""
    rng = np.random.default_rng(3)
    a = rng.normal(0.3, 1.0, 11)
    b = rng.normal(0.0, 1.0, 11)
    res = paired_resampling(_mean_stats(a, b), mean_metric(), [(0, 1)], "permutation", 5000, seed=1,
                            alternative=alternative)
    assert res.pairs[0].extra["exact"] is True and res.pairs[0].extra["n_resamples"] == 2**11
    ref = sps.permutation_test((a, b), _mean_diff, permutation_type="samples", vectorized=True,
                               n_resamples=5000, alternative=alternative)  # scipy 1.17.1, exact for 2**11 <= 5000
    assert _p(res) == pytest.approx(ref.pvalue, rel=1e-12)


def test_permutation_agrees_with_scipy_within_mc_error() -> None:
    rng = np.random.default_rng(4)
    n = 80
    a = rng.normal(0.0, 1.0, n)
    b = a - 0.25 + rng.normal(0.0, 0.9, n)
    B = 20000
    res = paired_resampling(_mean_stats(a, b), mean_metric(), [(0, 1)], "permutation", B, seed=7)
    ref = sps.permutation_test((a, b), _mean_diff, permutation_type="samples", vectorized=True, n_resamples=B,
                               rng=np.random.default_rng(8))  # scipy 1.17.1, random sign flips
    se = math.sqrt(2) * _mcse(res)  # both estimates carry MC error of about the same size
    assert 0.01 < _p(res) < 0.9  # a p-value with real MC error, not an extreme one
    assert abs(_p(res) - ref.pvalue) <= 4 * se


def _ci_quantile_mcsd(boot_sd: float, level: float, B: int) -> float:
    """MC SD of an empirical alpha-quantile of a roughly normal bootstrap distribution."""
    a = (1 - level) / 2
    return math.sqrt(a * (1 - a) / B) * boot_sd / sps.norm.pdf(sps.norm.ppf(a))


@pytest.mark.parametrize("ci_method", ["percentile", "bca"])
def test_bootstrap_ci_agrees_with_scipy(ci_method: str) -> None:
    rng = np.random.default_rng(12)
    n = 120
    a = rng.exponential(1.0, n)  # skewed, so BCa differs from percentile
    b = 0.8 * a + rng.exponential(0.4, n)
    B = 20000
    res = paired_resampling(_mean_stats(a, b), mean_metric(), [(0, 1)], "bootstrap", B, seed=3,
                            ci_method=ci_method)
    ref = sps.bootstrap((a, b), _mean_diff, paired=True, vectorized=True, n_resamples=B, method=ci_method,
                        confidence_level=0.95, rng=np.random.default_rng(9))  # scipy 1.17.1
    sd = float(ref.standard_error)
    tol = 4 * math.sqrt(2) * _ci_quantile_mcsd(sd, 0.95, B)  # two independent MC estimates, 4 SDs
    pr = res.pairs[0]
    assert pr.extra["ci_method"] == ci_method
    assert pr.ci_low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert pr.ci_high == pytest.approx(ref.confidence_interval.high, abs=tol)


def test_bca_acceleration_matches_loop_jackknife() -> None:
    """Vectorised all-pairs jackknife acceleration vs an explicit leave-one-out loop (Efron &
    Tibshirani 1993 eq. 14.15, as scipy's _bca_interval), for a nonlinear (ratio) metric."""
    rng = np.random.default_rng(2)
    n, k = 40, 3
    den = rng.integers(5, 20, size=(n, k)).astype(float)
    num = np.minimum(den, rng.integers(0, 20, size=(n, k))).astype(float)
    x = np.stack([num, den], axis=2)
    totals = x.sum(0)
    m = ratio_metric()
    theta = m.value(totals, n)
    pa, pb = np.array([0, 1, 2]), np.array([1, 2, 0])
    got = rs._jackknife_acceleration(x, totals, m, pa, pb, theta[pa] - theta[pb])
    for j, (a, b) in enumerate(zip(pa, pb)):
        jack = []
        for i in range(n):
            keep = np.arange(n) != i
            t = x[keep].sum(0)
            jack.append(t[a, 0] / t[a, 1] - t[b, 0] / t[b, 1])
        jack = np.array(jack)
        u = jack.mean() - jack
        expected = (u**3).sum() / (6 * (u**2).sum() ** 1.5)
        assert got[j] == pytest.approx(expected, rel=1e-9)


# ----------------------------------------------------------------------------------------------
# plain-loop reference implementations
# ----------------------------------------------------------------------------------------------


def _loop_bootstrap_p(stats: np.ndarray, metric: CorpusMetric, a: int, b: int, W: np.ndarray,
                      alternative: str) -> float:
    """Per-replicate Python loop: totals = sum_i w_i x_i, delta* = m(a) - m(b), null-shifted p."""
    n = stats.shape[0]
    obs = float(metric.value(stats[:, a].sum(0), n) - metric.value(stats[:, b].sum(0), n))
    hits = 0
    for w in W:
        ta = (w[:, None] * stats[:, a]).sum(0)
        tb = (w[:, None] * stats[:, b]).sum(0)
        t = float(metric.value(ta, n) - metric.value(tb, n)) - obs
        if alternative == "two-sided":
            hits += abs(t) >= abs(obs) * (1 - 1e-10)
        elif alternative == "greater":
            hits += t >= obs - 1e-10 * abs(obs)
        else:
            hits += t <= obs + 1e-10 * abs(obs)
    return (hits + 1) / (len(W) + 1)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_bootstrap_matches_loop_with_identical_replicates(alternative: str) -> None:
    """Same weight matrix (regenerated from the engine's streams) -> exactly the loop's p-values."""
    rng = np.random.default_rng(21)
    n, k, B = 60, 3, 300
    den = rng.integers(1, 15, size=(n, k))
    num = np.minimum(den, rng.integers(0, 15, size=(n, k)) + np.array([2, 0, 1]))
    x = np.stack([num, den], axis=2)
    pairs = [(0, 1), (2, 1), (0, 2)]
    res = paired_resampling(x, ratio_metric(), pairs, "bootstrap", B, seed=5, alternative=alternative)
    seeds = np.random.SeedSequence(5).spawn(-(-B // rs._STREAM_BLOCK))
    W = rs._weights("bootstrap", 0, B, n, np.float64, seeds, threading.local())
    for i, (a, b) in enumerate(pairs):
        assert _p(res, i) == _loop_bootstrap_p(x.astype(float), ratio_metric(), a, b, W, alternative)


def test_bootstrap_agrees_with_independent_loop_within_mc_error() -> None:
    """A loop with its own RNG (numpy integers, i.e. a different multinomial sampler)."""
    rng = np.random.default_rng(22)
    n, B = 150, 4000
    a = rng.normal(0.0, 1.0, n)
    b = a - 0.15 + rng.normal(0.0, 1.0, n)
    x = _mean_stats(a, b)
    res = paired_resampling(x, mean_metric(), [(0, 1)], "bootstrap", B, seed=1)
    loop_rng = np.random.default_rng(99)
    W = np.stack([np.bincount(loop_rng.integers(0, n, n), minlength=n) for _ in range(B)]).astype(float)
    p_loop = _loop_bootstrap_p(x, mean_metric(), 0, 1, W, "two-sided")
    se = math.sqrt(p_loop * (1 - p_loop) / B + _mcse(res) ** 2)
    assert abs(_p(res) - p_loop) <= 4 * se


def _brute_force_swap_p(num: list[list[Fraction]], den: list[list[Fraction]] | None, alternative: str) -> Fraction:
    """Enumerate all 2**n swaps in exact arithmetic; metric = sum(num) / n or sum(num) / sum(den)."""
    n = len(num)

    def value(nums: list[Fraction], dens: list[Fraction] | None) -> Fraction:
        return sum(nums, Fraction(0)) / (n if dens is None else sum(dens, Fraction(0)))

    obs = value([r[0] for r in num], None if den is None else [r[0] for r in den]) - value(
        [r[1] for r in num], None if den is None else [r[1] for r in den])
    hits = 0
    for flips in itertools.product([0, 1], repeat=n):
        na = [num[i][f] for i, f in enumerate(flips)]
        nb = [num[i][1 - f] for i, f in enumerate(flips)]
        da = None if den is None else [den[i][f] for i, f in enumerate(flips)]
        db = None if den is None else [den[i][1 - f] for i, f in enumerate(flips)]
        d = value(na, da) - value(nb, db)
        if alternative == "two-sided":
            hits += abs(d) >= abs(obs)
        elif alternative == "greater":
            hits += d >= obs
        else:
            hits += d <= obs
    return Fraction(hits, 2**n)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_enumeration_equals_brute_force_mean_with_ties(alternative: str) -> None:
    """Scores on a grid of thirds, so many sign assignments tie exactly with the observed value."""
    a = [Fraction(v, 3) for v in (1, 2, 2, 0, 3, 1, 2, 1, 3)]
    b = [Fraction(v, 3) for v in (0, 1, 2, 1, 1, 0, 2, 0, 1)]
    x = _mean_stats(np.array([float(v) for v in a]), np.array([float(v) for v in b]))
    res = paired_resampling(x, mean_metric(), [(0, 1)], "permutation", 512, seed=0, alternative=alternative)
    assert res.pairs[0].extra["exact"] is True
    assert _p(res) == float(_brute_force_swap_p([[p, q] for p, q in zip(a, b)], None, alternative))


def test_exact_enumeration_equals_brute_force_in_float32(float32_real: None) -> None:
    """Same with the float32 item-centred path forced: the tie tolerance must absorb float32 rounding."""
    a = [Fraction(v, 3) for v in (1, 2, 2, 0, 3, 1, 2, 1, 3, 2)]
    b = [Fraction(v, 3) for v in (0, 1, 2, 1, 1, 0, 2, 0, 1, 1)]
    x = _mean_stats(np.array([float(v) for v in a]), np.array([float(v) for v in b]))
    res = paired_resampling(x, mean_metric(), [(0, 1)], "permutation", 1024, seed=0)
    assert _p(res) == float(_brute_force_swap_p([[p, q] for p, q in zip(a, b)], None, "two-sided"))


def test_exact_enumeration_equals_brute_force_ratio() -> None:
    num = [[3, 2], [1, 1], [4, 2], [0, 1], [2, 2], [5, 3], [1, 0], [2, 1]]
    den = [[5, 5], [2, 2], [6, 4], [3, 3], [4, 4], [6, 6], [2, 2], [3, 3]]
    x = np.stack([np.array(num), np.array(den)], axis=2)
    res = paired_resampling(x, ratio_metric(), [(0, 1)], "permutation", 256, seed=0)
    frac_num = [[Fraction(v) for v in r] for r in num]
    frac_den = [[Fraction(v) for v in r] for r in den]
    assert _p(res) == float(_brute_force_swap_p(frac_num, frac_den, "two-sided"))


# ----------------------------------------------------------------------------------------------
# properties
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_identical_systems_give_p_one(method: str, alternative: str) -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(size=50)
    res = paired_resampling(_mean_stats(a, a, a + 1), mean_metric(), [(0, 1), (1, 0)], method, 500, seed=2,
                            alternative=alternative)
    assert [_p(res, 0), _p(res, 1)] == [1.0, 1.0]
    assert res.pairs[0].estimate == 0.0


def test_identical_systems_give_p_one_float32(float32_real: None) -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(size=(400, 1, 1))
    x = np.concatenate([a, a, a * 2 + 1, a], axis=1)
    for method in ("bootstrap", "permutation"):
        res = paired_resampling(x, mean_metric(), [(0, 1), (3, 1)], method, 300, seed=4)
        assert [_p(res, 0), _p(res, 1)] == [1.0, 1.0]


def test_identical_systems_integer_corpus_metric() -> None:
    rng = np.random.default_rng(1)
    tp = rng.integers(0, 5, size=(70, 1))
    st_ = np.stack([tp, rng.integers(0, 3, size=(70, 1)), rng.integers(0, 3, size=(70, 1))], axis=2)
    x = np.concatenate([st_, st_], axis=1)
    for method in ("bootstrap", "permutation"):
        assert _p(paired_resampling(x, f_beta_metric(), [(0, 1)], method, 400, seed=3)) == 1.0


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 25),
    shift=st.floats(-2, 2),
    seed=st.integers(0, 2**31 - 1),
    method=st.sampled_from(["bootstrap", "permutation"]),
    alternative=st.sampled_from(["two-sided", "greater", "less"]),
)
def test_pvalue_range_and_swap_symmetry(n: int, shift: float, seed: int, method: str, alternative: str) -> None:
    """p in (0, 1]; p >= 1/(B+1) unless exact (then >= 2**-n); swapping a and b keeps the two-sided p,
    flips the statistic, and maps greater to less."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + shift + rng.normal(size=n)
    B = 199
    x = _mean_stats(a, b)
    res = paired_resampling(x, mean_metric(), [(0, 1), (1, 0)], method, B, seed=seed, alternative=alternative)
    p_ab, p_ba = _p(res, 0), _p(res, 1)
    exact = bool(res.pairs[0].extra.get("exact"))
    floor = 2.0**-n if exact else 1 / (B + 1)
    for p in (p_ab, p_ba):
        assert floor <= p <= 1.0
    assert res.pairs[1].statistic == -res.pairs[0].statistic  # type: ignore[operator]
    flip = {"two-sided": "two-sided", "greater": "less", "less": "greater"}[alternative]
    res_flip = paired_resampling(x, mean_metric(), [(1, 0)], method, B, seed=seed, alternative=flip)
    assert _p(res_flip) == p_ab
    if alternative == "two-sided":
        assert p_ba == p_ab
        if method == "bootstrap":
            pr, ps = res.pairs
            assert ps.ci_low == pytest.approx(-pr.ci_high, rel=1e-12, abs=1e-15)  # type: ignore[operator]
            assert ps.ci_high == pytest.approx(-pr.ci_low, rel=1e-12, abs=1e-15)  # type: ignore[operator]


def _all_pairs_data(seed: int = 0, integer: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n, k = 700, 5
    if integer:
        return rng.integers(0, 6, size=(n, k, 3))
    return rng.normal(size=(n, k, 1)) + np.linspace(0, 0.2, k)[None, :, None]


@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
@pytest.mark.parametrize("integer", [False, True])
def test_same_seed_same_result_any_chunks(method: str, integer: bool) -> None:
    x = _all_pairs_data(integer=integer)
    metric = f_beta_metric() if integer else mean_metric()
    pairs = list(itertools.combinations(range(5), 2))
    base = to_jsonable(paired_resampling(x, metric, pairs, method, 230, seed=11))
    again = to_jsonable(paired_resampling(x, metric, pairs, method, 230, seed=11))
    assert base == again  # same seed, identical output
    for chunk in (32, 64, 100):
        other = to_jsonable(paired_resampling(x, metric, pairs, method, 230, seed=11, chunk_size=chunk))
        for p0, p1 in zip(base["pairs"], other["pairs"]):
            assert p0["pvalue"] == p1["pvalue"]
            for key in ("ci_low", "ci_high"):
                if p0[key] is None:
                    assert p1[key] is None
                else:
                    assert p1[key] == pytest.approx(p0[key], rel=1e-12, abs=1e-15)
        for s0, s1 in zip(base["system_ci"], other["system_ci"]):
            assert s1 == pytest.approx(s0, rel=1e-12, abs=1e-15) if s0[1] is not None else s1 == s0
    different = to_jsonable(paired_resampling(x, metric, pairs, method, 230, seed=12))
    assert [p["pvalue"] for p in different["pairs"]] != [p["pvalue"] for p in base["pairs"]]


def test_chunks_float32_path(float32_real: None) -> None:
    x = _all_pairs_data(seed=3)
    pairs = [(0, 4), (1, 2)]
    r1 = paired_resampling(x, mean_metric(), pairs, "bootstrap", 200, seed=1)
    r2 = paired_resampling(x, mean_metric(), pairs, "bootstrap", 200, seed=1, chunk_size=32)
    assert [p.pvalue for p in r1.pairs] == [p.pvalue for p in r2.pairs]
    for p1, p2 in zip(r1.pairs, r2.pairs):
        assert p2.ci_low == pytest.approx(p1.ci_low, rel=1e-6)


def test_float32_and_float64_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same replicates in float32 and float64: CIs agree to float32 accuracy, p-values exactly."""
    x = _all_pairs_data(seed=4)
    pairs = list(itertools.combinations(range(5), 2))
    r64 = paired_resampling(x, mean_metric(), pairs, "bootstrap", 300, seed=2)
    monkeypatch.setattr(rs, "_FLOAT32_MIN_ELEMENTS", 0)
    r32 = paired_resampling(x, mean_metric(), pairs, "bootstrap", 300, seed=2)
    for a, b in zip(r64.pairs, r32.pairs):
        assert a.pvalue == b.pvalue
        assert b.ci_low == pytest.approx(a.ci_low, abs=1e-6)
        assert b.ci_high == pytest.approx(a.ci_high, abs=1e-6)


def test_result_shape_and_extra_keys() -> None:
    x = _all_pairs_data(seed=5)
    res = paired_resampling(x, mean_metric(), [(0, 1), (3, 2)], "bootstrap", 100, seed=1, ci_level=0.9)
    assert isinstance(res, ResamplingResult)
    assert (res.method, res.n, res.n_resamples, res.seed, res.ci_level, res.ci_method) == (
        "bootstrap", 700, 100, 1, 0.9, "percentile")
    assert len(res.system_ci) == 5 and all(lo <= v <= hi for v, lo, hi in res.system_ci)  # type: ignore[operator]
    for pr in res.pairs:
        assert isinstance(pr, PairedTestResult)
        assert pr.method == "bootstrap" and pr.df is None and pr.critical_value is None
        assert pr.effect_size is None and pr.statistic == pr.estimate and pr.ci_level == 0.9
        assert set(pr.extra) == {"n_resamples", "mc_se", "ci_method", "null"}
        assert pr.extra["null"] == "shifted"
        assert pr.extra["mc_se"] == pytest.approx(math.sqrt(pr.pvalue * (1 - pr.pvalue) / 100))  # type: ignore[operator]
        assert pr.ci_low <= pr.estimate <= pr.ci_high  # type: ignore[operator]
    perm = paired_resampling(x, mean_metric(), [(0, 1)], "permutation", 100, seed=1)
    pr = perm.pairs[0]
    assert set(pr.extra) == {"n_resamples", "mc_se", "ci_method", "null", "exact"}
    assert pr.extra["null"] == "sign-flip" and pr.extra["exact"] is False and pr.extra["ci_method"] is None
    assert pr.ci_low is None and pr.ci_high is None  # by design, and without a warning about it:
    assert not any("interval" in w for w in pr.warnings)
    assert all(lo is None and hi is None for _, lo, hi in perm.system_ci)


def test_one_sided_intervals_are_one_sided() -> None:
    x = _all_pairs_data(seed=6)
    g = paired_resampling(x, mean_metric(), [(4, 0)], "bootstrap", 400, seed=1, alternative="greater").pairs[0]
    l_ = paired_resampling(x, mean_metric(), [(4, 0)], "bootstrap", 400, seed=1, alternative="less").pairs[0]
    t = paired_resampling(x, mean_metric(), [(4, 0)], "bootstrap", 400, seed=1).pairs[0]
    assert g.ci_high is None and l_.ci_low is None  # infinite bound -> None, as paired_t
    assert t.ci_low < g.ci_low and l_.ci_high < t.ci_high  # type: ignore[operator]


def test_pvalues_of_one_sided_tests_add_up() -> None:
    """Permutation: p_greater + p_less = 1 + P(delta_perm == delta) -> >= 1 (counts with >=)."""
    x = _all_pairs_data(seed=7)
    pg = _p(paired_resampling(x, mean_metric(), [(0, 2)], "permutation", 999, seed=3, alternative="greater"))
    pl = _p(paired_resampling(x, mean_metric(), [(0, 2)], "permutation", 999, seed=3, alternative="less"))
    assert pg + pl == pytest.approx(1 + 1 / 1000)  # continuous data, no ties: (c + 1 + B - c + 1) / (B + 1)


# ----------------------------------------------------------------------------------------------
# degenerate data and errors
# ----------------------------------------------------------------------------------------------


def test_too_few_items() -> None:
    res = paired_resampling(np.ones((1, 2, 1)), mean_metric(), [(0, 1)], "bootstrap", 100, seed=1)
    assert res.pairs[0].pvalue is None and res.pairs[0].warnings
    assert "at least 2" in res.warnings[0]


def test_undefined_metric_on_full_data() -> None:
    x = np.zeros((20, 2, 3))
    x[:, 0, 0] = 1  # system 0 has tp; system 1 has tp = fp = fn = 0 everywhere
    res = paired_resampling(x, f_beta_metric(), [(0, 1)], "bootstrap", 100, seed=1)
    pr = res.pairs[0]
    assert pr.pvalue is None and pr.estimate is None
    assert "undefined" in pr.warnings[0] and "system 1" in pr.warnings[0]
    assert res.system_ci[1] == (None, None, None)
    assert any("system 1" in w for w in res.warnings)


def test_undefined_metric_in_some_replicates() -> None:
    x = np.zeros((30, 2, 2))
    x[:, :, 0] = 1
    x[0, :, 1] = 2  # the denominator is non-zero on one item only
    x[1, 0, 1] = 1
    res = paired_resampling(x, ratio_metric(), [(0, 1)], "bootstrap", 500, seed=1)
    pr = res.pairs[0]
    used = pr.extra["n_resamples"]
    assert isinstance(used, int) and 0 < used < 500
    assert any("left out" in w for w in pr.warnings)
    assert pr.pvalue is not None and pr.pvalue >= 1 / (used + 1)


def test_near_alpha_warning() -> None:
    x = _all_pairs_data(seed=8)
    res = paired_resampling(x, mean_metric(), [(0, 1)], "permutation", 50, seed=1, alpha=0.5)
    p = _p(res)
    near = abs(p - 0.5) < 2 * _mcse(res)
    assert near == any("Monte Carlo" in w for w in res.pairs[0].warnings)


def test_programmer_errors_raise() -> None:
    x = _all_pairs_data(seed=9)
    m = mean_metric()
    with pytest.raises(ValueError):
        paired_resampling(x, m, [(0, 1)], "jackknife", 10, seed=1)
    with pytest.raises(ValueError):
        paired_resampling(x, m, [(0, 0)], "bootstrap", 10, seed=1)
    with pytest.raises(ValueError):
        paired_resampling(x, m, [(0, 9)], "bootstrap", 10, seed=1)
    with pytest.raises(ValueError):
        paired_resampling(x[:, :, 0], m, [(0, 1)], "bootstrap", 10, seed=1)
    with pytest.raises(ValueError):
        paired_resampling(x, ratio_metric(), [(0, 1)], "bootstrap", 10, seed=1)
    with pytest.raises(ValueError):
        paired_resampling(x, m, [(0, 1)], "bootstrap", 10, seed=1, alternative="two_sided")
    with pytest.raises(ValueError):
        paired_resampling(x, m, [(0, 1)], "bootstrap", 10, seed=1, ci_method="basic")
    with pytest.raises(ValueError):
        paired_resampling(x, m, [(0, 1)], "bootstrap", 0, seed=1)
    bad = x.copy()
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError):
        paired_resampling(bad, m, [(0, 1)], "bootstrap", 10, seed=1)


def test_no_pairs_still_gives_system_intervals() -> None:
    x = _all_pairs_data(seed=10)
    res = paired_resampling(x, mean_metric(), [], "bootstrap", 200, seed=1)
    assert res.pairs == () and len(res.system_ci) == 5


def test_system_ci_matches_scipy_percentile_within_mc_error() -> None:
    rng = np.random.default_rng(13)
    a = rng.gamma(2.0, 1.0, 90)
    B = 20000
    res = paired_resampling(_mean_stats(a, a * 0.5), mean_metric(), [], "bootstrap", B, seed=5)
    ref = sps.bootstrap((a,), np.mean, n_resamples=B, method="percentile", rng=np.random.default_rng(1))  # scipy 1.17.1
    tol = 4 * math.sqrt(2) * _ci_quantile_mcsd(float(ref.standard_error), 0.95, B)
    value, lo, hi = res.system_ci[0]
    assert value == pytest.approx(a.mean(), rel=1e-14)
    assert lo == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=tol)


def test_bca_degenerate_distribution_warns() -> None:
    a = np.arange(10.0)
    res = paired_resampling(_mean_stats(a, a), mean_metric(), [(0, 1)], "bootstrap", 100, seed=1, ci_method="bca")
    pr = res.pairs[0]
    assert pr.pvalue == 1.0 and pr.ci_low == 0.0 and pr.ci_high == 0.0
    assert any("single point" in w for w in pr.warnings)
