"""The macro average over strata (sigreport.stats.strata) against R's survey package (pasted values), the
formulas written out stratum by stratum, and a stratified bootstrap computed with a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats import cluster, strata


def test_against_r_survey_svymean():
    """R 4.x, survey 4.1-1 (Debian r-cran-survey), w = 1 / n_s (every stratum weighing the same):
    d <- svydesign(ids = ~1, strata = ~s, weights = ~w, data = data.frame(x = x, s = s, w = w))
    m <- svymean(~x, d); sprintf("%.17g %.17g", coef(m), SE(m))"""
    cases = [
        ([0.9, 0.7, 0.8, 0.2, 0.3, 0.1, 0.5, 0.6, 0.4, 1.0, 0.0, 0.55, 0.35],
         ["a", "a", "a", "b", "b", "b", "b", "c", "c", "c", "c", "c", "a"],
         0.49083333333333334, 0.072812226791730314),
        ([1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3],
         0.70833333333333326, 0.09631092176276608),
    ]
    for x, s, mean, se in cases:
        codes, S = cluster.codes(s)
        mm = strata.macro_means(np.array(x, dtype=float)[:, None], codes, S)
        assert float(mm.mean[0]) == pytest.approx(mean, rel=1e-12)
        assert float(mm.se[0]) == pytest.approx(se, rel=1e-12)


def written_out(x: np.ndarray, s: np.ndarray) -> tuple[float, float, float]:
    """The macro mean, its SE and the Welch-Satterthwaite df, stratum by stratum (Cochran 1977, sec. 5.3)."""
    means, us, dfs = [], [], []
    for k in np.unique(s):
        v = x[s == k]
        means.append(v.mean())
        us.append(v.var(ddof=1) / len(v))
        dfs.append(len(v) - 1)
    S = len(means)
    u = np.array(us)
    return float(np.mean(means)), float(np.sqrt(u.sum()) / S), float(u.sum() ** 2 / np.sum(u**2 / np.array(dfs)))


@pytest.mark.parametrize("S", [1, 2, 5, 57])
def test_sweep_against_the_written_out_formulas(S):
    rng = np.random.default_rng(S)
    sizes = rng.integers(2, 30, size=S)
    s = rng.permutation(np.repeat(np.arange(S), sizes))
    x = rng.normal(size=(len(s), 3)) + rng.normal(size=S)[s][:, None]
    mm = strata.macro_means(x, s, S)
    for j in range(3):
        mean, se, df = written_out(x[:, j], s)
        assert mm.mean[j] == pytest.approx(mean, rel=1e-12) and mm.se[j] == pytest.approx(se, rel=1e-12)
        assert mm.df[j] == pytest.approx(df, rel=1e-10)
    if S == 1:  # one stratum: the plain t interval of the mean
        assert mm.df[0] == pytest.approx(len(s) - 1) and mm.se[0] == pytest.approx(x[:, 0].std(ddof=1) / np.sqrt(len(s)))
    r = strata.paired_t_family(x, [(0, 1)], s, S)[0]
    mean, se, df = written_out(x[:, 0] - x[:, 1], s)
    from scipy import stats

    assert r.statistic == pytest.approx(mean / se, rel=1e-10) and r.df == pytest.approx(df, rel=1e-10)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(mean / se), df), rel=1e-8)


def test_single_item_strata_and_zero_variance():
    with pytest.raises(ValueError, match="at least 2 items"):
        strata.macro_means(np.ones((3, 1)), np.array([0, 0, 1]), 2)
    x = np.column_stack([np.ones(6), np.ones(6)])
    r = strata.paired_t_family(x, [(0, 1)], np.array([0, 0, 0, 1, 1, 1]), 2)[0]
    assert r.pvalue is None and "do not vary" in r.warnings[0]


def test_stratified_bootstrap_equals_a_loop():
    """The engine on the weighted scores (macro_weights) with the stratified counts gives, per replicate, the macro
    average of the items drawn within each stratum: the systems' percentile intervals equal those of a plain loop
    over the same counts."""
    from sigreport.stats import resampling

    rng = np.random.default_rng(9)
    s = rng.permutation(np.repeat(np.arange(4), [3, 10, 25, 6]))
    x = rng.normal(size=(len(s), 2)) + np.array([0.0, 1.0, -1.0, 2.0])[s][:, None]
    B, seed = 399, 5
    W = strata.stratified_counts(s, 4, B, seed)
    for k in range(4):  # every row keeps every stratum's size
        assert (W[:, s == k].sum(axis=1) == (s == k).sum()).all()
    res = resampling.paired_resampling(x[:, :, None] * strata.macro_weights(s, 4)[:, None, None],
                                       resampling.mean_metric(), [(0, 1)], "bootstrap", B, seed, ci_level=0.9,
                                       resample=resampling.Resample(kind="bootstrap", seed=seed, weights=W))
    loop = np.empty((B, 2))
    for r in range(B):
        per = []
        for k in range(4):
            idx = np.flatnonzero(s == k)
            per.append(np.repeat(x[idx], W[r, idx], axis=0).mean(axis=0))
        loop[r] = np.mean(per, axis=0)
    for j, (value, lo, hi) in enumerate(res.system_ci):
        assert value == pytest.approx(written_out(x[:, j], s)[0], rel=1e-12)
        want = np.quantile(loop[:, j], [0.05, 0.95])
        assert (lo, hi) == (pytest.approx(want[0], rel=1e-9), pytest.approx(want[1], rel=1e-9))
