"""The studentized paired bootstrap (``paired_resampling(..., method='bootstrap_t')``).

Reference: a plain per-replicate Python loop written here from the textbook definition
(Efron & Tibshirani 1993, sec. 12.5 and eq. 12.22; Hall 1992, sec. 3.5): each replicate's items are
materialised with ``np.repeat``, ``t* = (mean* - mean) / (sd*(ddof=1) / sqrt(n))``, the two-sided
p-value is ``(#{|t*| >= |t|} + 1) / (B + 1)`` and the interval ``[d - q*_0.975 se, d - q*_0.025 se]``
with numpy's default (linear) quantile. The count matrices are rebuilt from the engine's documented
stream layout (block j of 32 replicates from ``SeedSequence(seed).spawn(n_blocks)[j]``), so the
loop and the engine see the same resamples and must agree to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats import resampling as R
from sigreport.stats.resampling import f_beta_metric, mean_metric, paired_resampling, ratio_metric, user_metric


def _counts(n: int, B: int, seed: int) -> np.ndarray:
    seeds = np.random.SeedSequence(seed).spawn(-(-B // 32))
    W = np.empty((B, n))
    for j in range(0, B, 32):
        R._multinomial_rows(np.random.Generator(np.random.PCG64(seeds[j // 32])), W[j : min(B, j + 32)])
    return W


def _loop_reference(d: np.ndarray, W: np.ndarray, alternative: str, level: float) -> tuple[float, float, float]:
    n = d.size
    se = d.std(ddof=1) / np.sqrt(n)
    t = d.mean() / se
    ts = []
    for w in W:
        dd = np.repeat(d, w.astype(int))
        ts.append((dd.mean() - d.mean()) / (dd.std(ddof=1) / np.sqrt(n)))
    ts = np.array(ts)
    B = ts.size
    if alternative == "two-sided":
        p = (np.sum(np.abs(ts) >= abs(t)) + 1) / (B + 1)
        q_hi, q_lo = np.quantile(ts, [1 - (1 - level) / 2, (1 - level) / 2])
        return p, d.mean() - q_hi * se, d.mean() - q_lo * se
    if alternative == "greater":
        return (np.sum(ts >= t) + 1) / (B + 1), d.mean() - np.quantile(ts, level) * se, np.inf
    return (np.sum(ts <= t) + 1) / (B + 1), -np.inf, d.mean() - np.quantile(ts, 1 - level) * se


def _data(n: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a + rng.normal(0.3, 1.0, size=n)
    c = rng.lognormal(size=n)
    return np.stack([a, b, c], axis=1)[:, :, None]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [12, 40])
def test_matches_plain_loop(alternative: str, n: int) -> None:
    x = _data(n)
    B = 499
    res = paired_resampling(x, mean_metric(), [(0, 1), (2, 0)], "bootstrap_t", B, seed=11, alternative=alternative)
    W = _counts(n, B, 11)
    for pair, (a, b) in zip(res.pairs, [(0, 1), (2, 0)]):
        d = x[:, a, 0] - x[:, b, 0]
        p, lo, hi = _loop_reference(d, W, alternative, 0.95)
        assert pair.method == "bootstrap_t"
        assert pair.pvalue == pytest.approx(p, abs=1e-12)
        assert pair.statistic == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(n)), rel=1e-12)
        assert pair.estimate == pytest.approx(d.mean(), rel=1e-12)
        assert (pair.ci_low if np.isfinite(lo) else None) == (pytest.approx(lo, rel=1e-9) if np.isfinite(lo) else None)
        assert (pair.ci_high if np.isfinite(hi) else None) == (
            pytest.approx(hi, rel=1e-9) if np.isfinite(hi) else None)
        assert pair.extra["ci_method"] == "studentized"
        assert pair.pvalue >= 1 / (B + 1)
    assert res.ci_method == "studentized"


def test_same_resamples_as_bootstrap_and_independent_of_chunks() -> None:
    x = _data(60)
    pairs = [(0, 1), (1, 2)]
    t1 = paired_resampling(x, mean_metric(), pairs, "bootstrap_t", 300, seed=4)
    t2 = paired_resampling(x, mean_metric(), pairs, "bootstrap_t", 300, seed=4, chunk_size=64)
    boot = paired_resampling(x, mean_metric(), pairs, "bootstrap", 300, seed=4)
    assert [p.pvalue for p in t1.pairs] == [p.pvalue for p in t2.pairs]
    assert [p.ci_low for p in t1.pairs] == pytest.approx([p.ci_low for p in t2.pairs], rel=1e-12)
    # the per-system percentile intervals come from the same count matrices as method='bootstrap'
    for s_t, s_b in zip(t1.system_ci, boot.system_ci):
        assert s_t == pytest.approx(s_b, rel=1e-9)


def test_swapping_systems_flips_t_and_keeps_two_sided_p() -> None:
    x = _data(25)
    ab = paired_resampling(x, mean_metric(), [(0, 1)], "bootstrap_t", 400, seed=9).pairs[0]
    ba = paired_resampling(x, mean_metric(), [(1, 0)], "bootstrap_t", 400, seed=9).pairs[0]
    assert ba.statistic == pytest.approx(-ab.statistic, rel=1e-12)
    assert ba.pvalue == ab.pvalue
    assert ba.ci_low == pytest.approx(-ab.ci_high, rel=1e-9)


def test_degenerate_differences_follow_paired_t() -> None:
    a = np.arange(10.0)
    same = np.stack([a, a], axis=1)[:, :, None]
    r = paired_resampling(same, mean_metric(), [(0, 1)], "bootstrap_t", 100, seed=1).pairs[0]
    assert r.pvalue == 1.0 and r.statistic is None and "identical" in r.warnings[0]
    shifted = np.stack([a + 1.0, a], axis=1)[:, :, None]
    r = paired_resampling(shifted, mean_metric(), [(0, 1)], "bootstrap_t", 100, seed=1).pairs[0]
    assert r.pvalue is None and r.estimate == 1.0 and "zero variance" in r.warnings[0]
    two = paired_resampling(same[:2], mean_metric(), [(0, 1)], "bootstrap_t", 100, seed=1)
    assert two.pairs[0].pvalue is None and "at least 3" in two.warnings[0]


def test_binary_scores_give_finite_p_with_infinite_t_replicates_counted() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, size=(8, 2, 1)).astype(float)
    x[:, 1, 0] = 0.0
    x[:4, 0, 0] = 1.0  # differences in {0, 1}: some resamples have all-equal differences
    r = paired_resampling(x, mean_metric(), [(0, 1)], "bootstrap_t", 2000, seed=3).pairs[0]
    assert r.pvalue is not None and 1 / 2001 <= r.pvalue <= 1


@pytest.mark.parametrize("metric", [ratio_metric(), f_beta_metric(1.0), user_metric(lambda t, n: t[..., 0], 1, "sum")])
def test_corpus_metrics_are_refused(metric: R.CorpusMetric) -> None:
    x = np.ones((6, 2, metric.n_stats))
    with pytest.raises(ValueError, match="bootstrap_t' needs the mean metric"):
        paired_resampling(x, metric, [(0, 1)], "bootstrap_t", 50, seed=1)


def test_interval_method_names_are_checked() -> None:
    x = _data(10)
    with pytest.raises(ValueError, match="bca"):
        paired_resampling(x, mean_metric(), [(0, 1)], "bootstrap_t", 50, seed=1, ci_method="bca")
    with pytest.raises(ValueError, match="studentized"):
        paired_resampling(x, mean_metric(), [(0, 1)], "bootstrap", 50, seed=1, ci_method="studentized")
    ok = paired_resampling(x, mean_metric(), [(0, 1)], "bootstrap_t", 50, seed=1, ci_method="studentized")
    assert ok.pairs[0].extra["ci_method"] == "studentized"
