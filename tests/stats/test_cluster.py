"""Cluster-robust inference (sigreport.stats.cluster) against statsmodels (live), R's sandwich (pasted values),
Inspect AI's ``stderr(cluster=...)`` formula (written out below as its source computes it) and a cluster
bootstrap computed independently with a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats import cluster, power

sm = pytest.importorskip("statsmodels.api")


def statsmodels_fit(y: np.ndarray, g: np.ndarray):
    """The reference: OLS on a constant with cluster-robust covariance (statsmodels' default use_correction=True:
    G/(G-1) and (N-1)/(N-K)), t on G - 1 df (use_t=True: df_resid_inference = G - 1)."""
    return sm.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)


def inspect_stderr(values: np.ndarray, clusters: np.ndarray) -> float:
    """Inspect AI's clustered standard error as src/inspect_ai/scorer/_metrics/std.py (_clustered_stderr) computes
    it: per cluster the sum of the outer product of the deviations from the overall mean, times C/(C-1), square
    root, divided by n."""
    mean = float(np.mean(values))
    unique = np.unique(clusters)
    total = 0.0
    for c in unique:
        data = values[clusters == c]
        total += np.outer(data - mean, data - mean).sum()
    return float(np.sqrt(total * len(unique) / (len(unique) - 1)) / len(values))


def random_design(rng: np.random.Generator, G: int, k: int, icc: float = 0.3, singletons: bool = False):
    sizes = rng.integers(1, 12, size=G) if not singletons else np.ones(G, dtype=int)
    g = np.repeat(np.arange(G), sizes)
    u = rng.normal(0, np.sqrt(icc), size=(G, k))
    x = u[g] + rng.normal(0, np.sqrt(1 - icc), size=(len(g), k))
    perm = rng.permutation(len(g))  # clusters need not be contiguous
    return x[perm], g[perm]


@pytest.mark.parametrize("G", [2, 3, 5, 20, 100, 500])
def test_se_equals_statsmodels_and_inspect_over_a_sweep(G):
    rng = np.random.default_rng(G)
    x, g = random_design(rng, G, 4)
    codes, found = cluster.codes(g)
    assert found == G
    cm = cluster.clustered_means(x, codes, G)
    for j in range(x.shape[1]):
        fit = statsmodels_fit(x[:, j], g)
        assert cm.se[j] == pytest.approx(float(fit.bse[0]), rel=1e-10)
        assert cm.mean[j] == pytest.approx(float(fit.params[0]), rel=1e-12)
        assert cm.se[j] == pytest.approx(inspect_stderr(x[:, j], g), rel=1e-10)
        iid = np.std(x[:, j], ddof=1) / np.sqrt(len(g))
        assert cm.design_effect[j] == pytest.approx((cm.se[j] / iid) ** 2, rel=1e-12)
        assert cm.effective_n[j] == pytest.approx(len(g) / cm.design_effect[j], rel=1e-12)


def test_singletons_give_the_iid_standard_error():
    """One item per cluster: G/(G-1) * sum e^2 / n^2 = sd^2 / n (ddof 1), a design effect of exactly 1."""
    rng = np.random.default_rng(7)
    x, g = random_design(rng, 40, 3, singletons=True)
    cm = cluster.clustered_means(x, *cluster.codes(g))
    assert np.allclose(cm.se, x.std(axis=0, ddof=1) / np.sqrt(40), rtol=1e-12)
    assert np.allclose(cm.design_effect, 1.0, rtol=1e-12)


def test_against_r_sandwich_vcovcl_hc1():
    """R 4.x, sandwich (Debian r-cran-sandwich):
    sqrt(vcovCL(lm(y ~ 1), cluster = g, type = "HC1")[1, 1]) for the three data sets below
    (printed with sprintf("%.17g"))."""
    cases = [
        ([0.9, 0.7, 0.8, 0.2, 0.3, 0.1, 0.5, 0.6, 0.4, 1.0, 0.0, 0.55], [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 5, 5],
         0.1342542703415362),
        ([1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1], list("aaaaabccdddeffg"), 0.091084006808529738),
        ([3.1, 2.9, 3.0, 5.2, 4.8, 1.1, 1.3, 0.9, 1.0, 2.2], [1, 1, 1, 2, 2, 3, 3, 3, 3, 4], 0.90011110425324714),
    ]
    for y, g, want in cases:
        codes, G = cluster.codes(g)
        cm = cluster.clustered_means(np.array(y, dtype=float)[:, None], codes, G)
        assert float(cm.se[0]) == pytest.approx(want, rel=1e-12)


def test_zero_variance_and_one_cluster():
    x = np.full((6, 2), 0.5)
    codes, G = cluster.codes([1, 1, 2, 2, 3, 3])
    cm = cluster.clustered_means(x, codes, G)
    assert np.all(cm.se == 0) and np.all(np.isnan(cm.design_effect))
    assert cm.summary(0) == cluster.ClusterSummary(G=3, design_effect=None, effective_n=None)
    with pytest.raises(ValueError, match="at least 2 clusters"):
        cluster.clustered_means(x, np.zeros(6, dtype=int), 1)
    res = cluster.paired_t_family(np.column_stack([x[:, 0], x[:, 0] + 0.1]), [(0, 1)], codes, G)
    assert res[0].pvalue is None and res[0].statistic is None and "do not vary" in res[0].warnings[0]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("G", [2, 7, 60])
def test_clustered_paired_t_equals_statsmodels_t_on_g_minus_1(G, alternative):
    rng = np.random.default_rng(100 + G)
    x, g = random_design(rng, G, 3)
    x[:, 0] += 0.2
    pairs = [(0, 1), (0, 2), (1, 2)]
    codes, found = cluster.codes(g)
    res = cluster.paired_t_family(x, pairs, codes, found, alternative, 0.05, 0.9)
    for (i, j), r in zip(pairs, res):
        fit = statsmodels_fit(x[:, i] - x[:, j], g)
        assert r.df == G - 1
        assert r.statistic == pytest.approx(float(fit.tvalues[0]), rel=1e-10)
        p_two = float(fit.pvalues[0])
        t = float(fit.tvalues[0])
        want_p = p_two if alternative == "two-sided" else (p_two / 2 if (t > 0) == (alternative == "greater")
                                                           else 1 - p_two / 2)
        assert r.pvalue == pytest.approx(want_p, rel=1e-8, abs=1e-14)
        if alternative == "two-sided":
            lo, hi = fit.conf_int(alpha=0.1)[0]
            assert (r.ci_low, r.ci_high) == (pytest.approx(lo, rel=1e-10), pytest.approx(hi, rel=1e-10))
        assert r.extra["clusters"]["G"] == G


def cluster_bootstrap_loop(x: np.ndarray, g: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The cluster bootstrap written out: for replicate r, cluster c drawn weights[r, c] times; the replicate's
    value is the mean of the items of the drawn clusters (Inspect's ci(cluster=...) computes the same)."""
    out = np.empty((weights.shape[0], x.shape[1]))
    for r in range(weights.shape[0]):
        items = []
        for c in range(weights.shape[1]):
            for _ in range(int(weights[r, c])):
                items.extend(np.flatnonzero(g == c).tolist())
        out[r] = x[items].mean(axis=0)
    return out


def test_cluster_bootstrap_equals_an_independent_loop():
    """paired_resampling on the cluster totals (cluster_stats, ratio metric) with the engine's replicates: each
    system's percentile interval equals the one computed from the same replicate counts by a plain loop over
    clusters and items."""
    from sigreport.stats import resampling

    rng = np.random.default_rng(3)
    x, g = random_design(rng, 15, 3)
    codes, G = cluster.codes(g)
    B, seed = 499, 11
    drawn = resampling.draw_resample("bootstrap", B, G, seed)
    stats = cluster.cluster_stats(x[:, :, None], codes, G)
    res = resampling.paired_resampling(stats, resampling.ratio_metric(), [(0, 1), (0, 2)], "bootstrap", B, seed,
                                       ci_level=0.9, resample=drawn)
    loop = cluster_bootstrap_loop(x, codes, drawn.weights)
    for j, (value, lo, hi) in enumerate(res.system_ci):
        assert value == pytest.approx(x[:, j].mean(), rel=1e-12)
        want_lo, want_hi = np.quantile(loop[:, j], [0.05, 0.95])
        assert lo == pytest.approx(want_lo, rel=1e-9) and hi == pytest.approx(want_hi, rel=1e-9)
    d = loop[:, 0] - loop[:, 1]
    assert res.pairs[0].ci_low == pytest.approx(np.quantile(d, 0.05), rel=1e-9, abs=1e-12)
    assert res.pairs[0].ci_high == pytest.approx(np.quantile(d, 0.95), rel=1e-9, abs=1e-12)


def test_cluster_permutation_flips_whole_clusters():
    """With swaps of whole clusters, the permutation test's null distribution is that of sum_g s_g D_g / n with
    D_g the cluster sums of the differences and s_g = +-1: exact enumeration (2^G <= B) gives
    #{|stat| >= |observed|} / 2^G counted by a loop over every sign assignment."""
    from itertools import product

    from sigreport.stats import resampling

    rng = np.random.default_rng(5)
    x, g = random_design(rng, 8, 2)
    x[:, 0] += 0.3
    codes, G = cluster.codes(g)
    res = resampling.paired_resampling(cluster.cluster_stats(x[:, :, None], codes, G), resampling.ratio_metric(),
                                       [(0, 1)], "permutation", 999, 0)
    D = cluster.cluster_sums((x[:, 0] - x[:, 1])[:, None], codes, G)[:, 0]
    obs = D.sum() / len(g)
    stats = np.array([np.dot(s, D) / len(g) for s in product([1, -1], repeat=G)])
    want = np.mean(np.abs(stats) >= abs(obs) - 1e-12)
    assert res.pairs[0].pvalue == pytest.approx(want, rel=1e-12)


def test_clustered_mde_is_the_noncentral_t_on_g_minus_1():
    """The clustered MDE's power: noncentral t, df = G - 1, ncp = dz sqrt(n_eff), checked with scipy.stats.nct."""
    from scipy import stats

    for G, n_eff in [(5, 12.0), (20, 50.5), (100, 340.0)]:
        dz = power.clustered_t_mde_dz(n_eff, G, 0.05, 0.8)
        df, ncp = G - 1, dz * np.sqrt(n_eff)
        c = stats.t.ppf(0.975, df)
        got = stats.nct.sf(c, df, ncp) + stats.nct.cdf(-c, df, ncp)
        assert got == pytest.approx(0.8, abs=1e-9)
    assert power.clustered_t_mde_dz(10.0, 1, 0.05, 0.8) is None
    need = power.clusters_needed(0.2, 2.0, 5.0, 0.05, 0.8)
    assert power.clustered_t_power(0.2, need * 5.0 / 2.0, need, 0.05) >= 0.8
    assert power.clustered_t_power(0.2, (need - 1) * 5.0 / 2.0, need - 1, 0.05) < 0.8
