"""Tests of sigreport.stats.leaderboard: a leaderboard's pair statistics from whole-matrix algebra.

References, called at test time:
- ``scipy.stats.ttest_rel(a, b, alternative=...)`` per pair (statistic, pvalue, ``confidence_interval(0.95)``),
  every pair of a random 30-system family, at 1e-10;
- numpy on each pair's own differences (``d.mean()``, ``d.std(ddof=1)``);
- the engine's bootstrap (``paired_resampling``, one weights-by-scores product) against a loop over pairs with
  the same count matrix (regenerated from the engine's streams), p-values equal and intervals at 1e-10 of
  ``numpy.quantile`` of the loop's replicates;
- ``sigreport.stats.pairwise.noncentral_t_cis`` (the exact inversion) for the normal approximation.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest
from scipy import stats as sps

from sigreport.stats import leaderboard, pairwise
from sigreport.stats import resampling as rs


def _family(k: int = 30, n: int = 200, seed: int = 3) -> np.ndarray:
    """Scores as a benchmark's: a shared item difficulty, each system its own mean and noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.standard_normal(n)[:, None] * 0.2
    return 0.5 + 0.01 * np.arange(k)[None, :] + difficulty + 0.1 * rng.standard_normal((n, k))


def _pairs(k: int) -> list[tuple[int, int]]:
    return list(itertools.combinations(range(k), 2))


def _close(a: float | None, b: float, tol: float = 1e-10) -> bool:
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


def test_moments_match_each_pairs_differences() -> None:
    x = _family()
    pairs = _pairs(x.shape[1])
    m = leaderboard.difference_moments(x, [i for i, _ in pairs], [j for _, j in pairs])
    for k, (i, j) in enumerate(pairs):
        d = x[:, i] - x[:, j]
        assert _close(float(m.mean[k]), float(d.mean()))
        assert _close(float(m.sd[k]), float(d.std(ddof=1)))
    assert not m.constant.any()


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_t_matches_ttest_rel_on_every_pair(alternative: str) -> None:
    x = _family()
    pairs = _pairs(x.shape[1])
    assert len(pairs) == 435
    m = leaderboard.difference_moments(x, [i for i, _ in pairs], [j for _, j in pairs])
    got = leaderboard.paired_t_family(x, pairs, alternative, 0.05, 0.95, m)
    for r, (i, j) in zip(got, pairs):
        ref = sps.ttest_rel(x[:, i], x[:, j], alternative=alternative)
        ci = ref.confidence_interval(0.95)
        assert _close(r.statistic, float(ref.statistic))
        assert _close(r.pvalue, float(ref.pvalue))
        assert r.df == float(ref.df)
        if np.isfinite(ci.low):
            assert _close(r.ci_low, float(ci.low))
        else:
            assert r.ci_low is None
        if np.isfinite(ci.high):
            assert _close(r.ci_high, float(ci.high))
        else:
            assert r.ci_high is None
        assert r.critical_value == pairwise.t_critical(0.05, x.shape[0] - 1, alternative)


def test_identical_and_shifted_systems_take_the_direct_path() -> None:
    """Where the covariance formula cancels, the pair is made directly: the verdicts of one pair at a time."""
    x = _family(k=45)
    x[:, 3] = x[:, 2]  # identical: p taken as 1
    x[:, 5] = x[:, 4] + 0.25  # constant difference: no p-value
    x[:, 7] = x[:, 6] + 1e-9 * np.sin(np.arange(x.shape[0]))  # nearly identical: varies, barely
    pairs = _pairs(x.shape[1])
    m = leaderboard.difference_moments(x, [i for i, _ in pairs], [j for _, j in pairs])
    got = leaderboard.paired_t_family(x, pairs, "two-sided", 0.05, 0.95, m)
    for k, (i, j) in enumerate(pairs):
        if (i, j) in ((2, 3), (4, 5), (6, 7)):
            ref = pairwise.paired_t(x[:, i], x[:, j])
            assert got[k].pvalue == ref.pvalue and got[k].statistic == ref.statistic
            assert got[k].warnings == ref.warnings
    k23, k45 = pairs.index((2, 3)), pairs.index((4, 5))
    assert m.constant[k23] and m.constant[k45] and got[k23].pvalue == 1.0 and got[k45].pvalue is None
    k67 = pairs.index((6, 7))
    assert not m.constant[k67]
    assert _close(float(m.sd[k67]), float((x[:, 6] - x[:, 7]).std(ddof=1)), 1e-6)


def test_bootstrap_of_a_leaderboard_matches_a_loop_over_pairs() -> None:
    """The engine's bootstrap (every system's replicate means from one W @ X, then pair differences in blocks)
    against each pair's replicates computed on its own with the same counts."""
    x = _family(k=30, n=120)
    pairs = _pairs(x.shape[1])
    B, seed = 400, 11
    res = rs.paired_resampling(x[:, :, None], rs.mean_metric(), pairs, "bootstrap", B, seed)
    seeds = np.random.SeedSequence(seed).spawn(-(-B // rs._STREAM_BLOCK))
    W = rs._weights("bootstrap", 0, B, x.shape[0], np.float64, seeds, threading.local()).copy()
    n = x.shape[0]
    for r, (i, j) in zip(res.pairs, pairs):
        d = x[:, i] - x[:, j]
        obs = x[:, i].mean() - x[:, j].mean()
        reps = np.array([float(w @ x[:, i]) / n - float(w @ x[:, j]) / n for w in W])
        tol = 1e-10 * max(abs(x[:, i].mean()), abs(x[:, j].mean()))
        hits = int(np.sum(np.abs(reps - obs) >= abs(obs) - tol))
        assert r.pvalue == (hits + 1) / (B + 1)
        lo, hi = np.quantile(reps, [0.025, 0.975])
        assert _close(r.ci_low, float(lo)) and _close(r.ci_high, float(hi))
        assert _close(r.estimate, float(d.mean()))


def test_normal_interval_of_the_noncentrality_is_near_the_exact_one() -> None:
    """At 10,000 items the normal approximation is within 1e-3 of the exact interval's width."""
    t = np.array([-30.0, -4.0, -1.0, 0.0, 0.5, 2.0, 8.0, 40.0])
    df = 9_999
    lo, hi = leaderboard.noncentral_t_cis_normal(t, df, 0.95)
    for k, (e_lo, e_hi) in enumerate(pairwise.noncentral_t_cis(t, df, 0.95)):
        width = e_hi - e_lo
        assert abs(lo[k] - e_lo) <= 1e-3 * width and abs(hi[k] - e_hi) <= 1e-3 * width


def test_only_large_families_take_the_path() -> None:
    assert not leaderboard.is_leaderboard(40, 10_000)  # the examples' families (24 systems at most) never do
    assert leaderboard.is_leaderboard(41, 30)
    assert not leaderboard.is_leaderboard(100, 29)


def test_effect_sizes_match_the_per_pair_formulas() -> None:
    """Point values against ``pairwise.paired_effect_sizes`` (one pair at a time, exact intervals) at 1e-10;
    the intervals against its formulas (``pairwise._effect_sizes``) fed the normal interval of the same t."""
    x = _family(k=45, n=300)
    x[:, 1] = x[:, 0]  # a pair without variance: no effect sizes, the per-pair wording
    pairs = _pairs(x.shape[1])
    m = leaderboard.difference_moments(x, [i for i, _ in pairs], [j for _, j in pairs])
    got = leaderboard.effect_sizes_family(x, pairs, 0.95, m)
    n = x.shape[0]
    for e, (i, j) in zip(got, pairs):
        ref = pairwise.paired_effect_sizes(x[:, i], x[:, j], 0.95)
        if ref.d_z.value is None:
            assert e.d_z.value is None and e.warnings == ref.warnings
            continue
        d = x[:, i] - x[:, j]
        lo, hi = leaderboard.noncentral_t_cis_normal(np.array([d.mean() / d.std(ddof=1) * np.sqrt(n)]), n - 1, 0.95)
        formula = pairwise._effect_sizes(pairwise._EffectInputs(
            n=n, mean=float(d.mean()), sd_d=float(d.std(ddof=1)),
            sd_av=(float(x[:, i].std(ddof=1)) + float(x[:, j].std(ddof=1))) / 2), (float(lo[0]), float(hi[0])), 0.95)
        for name in ("d_z", "g_z", "d_av", "g_av"):
            mine, exact, same = getattr(e, name), getattr(ref, name), getattr(formula, name)
            assert _close(mine.value, exact.value)
            assert _close(mine.ci_low, same.ci_low) and _close(mine.ci_high, same.ci_high)
        assert e.ci_method == leaderboard.NORMAL_CI


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_float32_bootstrap_in_blocks_of_pairs_gives_the_same_results(monkeypatch: pytest.MonkeyPatch,
                                                                     alternative: str) -> None:
    """A large family's float32 replicates counted and selected a block of pairs at a time (no (B, P) matrix):
    every p-value, Monte Carlo SE and interval end equal to the whole matrix's."""
    x = _family(k=30, n=150)[:, :, None]
    pairs = _pairs(30)
    monkeypatch.setattr(rs, "_FLOAT32_MIN_ELEMENTS", 0)  # the float32 design at this size
    monkeypatch.setattr(rs, "_F32_PAIRS_MIN", 10 ** 9)
    whole = rs.paired_resampling(x, rs.mean_metric(), pairs, "bootstrap", 300, 7, alternative=alternative)
    monkeypatch.setattr(rs, "_F32_PAIRS_MIN", 1)
    monkeypatch.setattr(rs, "_F32_BLOCK", 64)
    calls = []
    real = rs._float32_pairs
    monkeypatch.setattr(rs, "_float32_pairs", lambda *a: calls.append(1) or real(*a))
    blocks = rs.paired_resampling(x, rs.mean_metric(), pairs, "bootstrap", 300, 7, alternative=alternative)
    assert calls == [1]
    assert whole == blocks
    assert [p.pvalue for p in whole.pairs] == [p.pvalue for p in blocks.pairs]
    assert [(p.ci_low, p.ci_high) for p in whole.pairs] == [(p.ci_low, p.ci_high) for p in blocks.pairs]
