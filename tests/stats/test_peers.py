"""sigreport beside its peers on the same data: Inspect AI's clustered metrics and evalsig's paired comparisons.

* Inspect AI (inspect-ai 0.3.285): ``stderr(cluster=...)``, ``ci(method="t", cluster=...)`` and
  ``ci_wilson(cluster=...)`` over G = 2 .. 500 clusters of unequal sizes (1 to 9 items), continuous and 0/1
  scores. Its values are pinned below (importing inspect_ai takes about 3 s and pulls in its many dependencies,
  too much for the suite); they were computed by calling its metric functions live on ``SampleScore`` objects::

      from inspect_ai.scorer import Score
      from inspect_ai.scorer._metric import SampleScore
      from inspect_ai.scorer._metrics.std import stderr, ci, ci_wilson
      x, g = design(G, binary)                     # the function below
      scores = [SampleScore(score=Score(value=float(v)), sample_id=k, sample_metadata={"c": int(c)})
                for k, (v, c) in enumerate(zip(x, g))]
      stderr(cluster="c")(scores); ci(level=0.95, method="t", cluster="c")(scores)
      ci_wilson(level=0.95, cluster="c")(scores)   # 0/1 scores only

* evalsig 0.1.2 (PyPI; numpy, scipy and pyarrow only, so a test extra, called live): its paired t test, McNemar
  test, sign-flip permutation test, cluster bootstrap and MDE. Where the two differ the test pins who is right
  against an independent check (R's ``mcnemar.test``, a simulation of the t test's power, Kish's design effect);
  docs/methods.md ("Beside the peers") says why.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from sigreport.stats import cluster, contingency, pairwise, power, proportion, resampling

evalsig = pytest.importorskip("evalsig.inference")  # the test extra; a plain install of sigreport lacks it


def design(G: int, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic integer arithmetic (no random stream to change between numpy versions): cluster sizes 1 to 9,
    unequal; scores a cluster effect plus item noise, thresholded at 0.5 for 0/1 scores."""
    g = np.repeat(np.arange(G), 1 + (np.arange(G) * 7919 + 13 * G) % 9)
    i = np.arange(len(g))
    u = ((g * 2654435761) % 1000) / 1000.0
    e = ((i * 40503 + 17) % 997) / 997.0
    x = 0.6 * u + 0.4 * e
    return ((x > 0.5).astype(float) if binary else x), g


# (G, n, stderr(cluster=), ci(method="t", cluster=) lower, upper): continuous scores, inspect-ai 0.3.285
INSPECT_CONTINUOUS = [
    (2, 17, 0.23698621400533781, -2.625199626441169, 3.3971910831642798),
    (3, 9, 0.15366478829646849, -0.27719080569588056, 1.045141635964464),
    (5, 23, 0.06833428426437481, 0.1215771999649356, 0.5010299780909713),
    (10, 50, 0.06304007701116031, 0.32464521357183135, 0.6098583370801245),
    (20, 107, 0.04591891809151504, 0.3774867322042545, 0.5697055324401461),
    (50, 248, 0.02756504419069949, 0.44224817300656816, 0.5530362334385737),
    (100, 500, 0.019065590043537743, 0.457733656814929, 0.5333941907276989),
    (200, 1007, 0.013918903995161781, 0.47118345750218976, 0.5260784051463318),
    (500, 2498, 0.008888123891447799, 0.4848612777588422, 0.5197867942393782),]
# (G, n, stderr, ci t lower, upper, ci_wilson(cluster=) lower, upper): 0/1 scores, inspect-ai 0.3.285
INSPECT_BINARY = [
    (2, 17, 0.4359861591695502, -5.127964694664384, 5.951494106429091, 0.0013313339353620002, 0.9972867516466083),
    (3, 9, 0.3394500514782104, -1.127202357272982, 1.7938690239396484, 0.010947040567843014, 0.9576041645213066),
    (5, 23, 0.10096181620587208, -0.1498801578079769, 0.41074972302536816, 0.01844391738263418, 0.5449196974161116),
    (10, 50, 0.13142636299041713, 0.18269291158071127, 0.7773070884192887, 0.2296864207612036, 0.7407743752721511),
    (20, 107, 0.09191167230472955, 0.3029537617890456, 0.6877004438184311, 0.3163867711609015, 0.6754725974505932),
    (50, 248, 0.060297479991316426, 0.39092445154170335, 0.6332690968453933, 0.3936618776917102, 0.6291888408166825),
    (100, 500, 0.040846881364086006, 0.41295092557794094, 0.575049074422059, 0.41414884556196263, 0.5741584343754439),
    (200, 1007, 0.03022626105499714, 0.44684994299033476, 0.5660596895816612, 0.4471785444095756, 0.5655501707027825),
    (500, 2498, 0.018954528884622415, 0.46636236231390055, 0.5408434022977889, 0.4664453515448172, 0.5407206580993507),]


@pytest.mark.parametrize("binary", [False, True])
def test_clustered_se_and_t_interval_equal_inspect(binary):
    """sigreport's CR1 standard error equals Inspect's ``stderr(cluster=)`` and its t interval on G - 1 df equals
    Inspect's ``ci(method="t", cluster=)``, for G = 2 .. 500 clusters of unequal sizes."""
    table = INSPECT_BINARY if binary else INSPECT_CONTINUOUS
    for G, n, se, lo, hi, *_ in table:
        x, g = design(G, binary)
        assert len(x) == n
        codes, found = cluster.codes(g)
        assert found == G
        cm = cluster.clustered_means(x[:, None], codes, G)
        assert cm.se[0] == pytest.approx(se, rel=1e-12)
        low, high = cluster.mean_intervals(cm, 0.95)
        assert (low[0], high[0]) == (pytest.approx(lo, rel=1e-10), pytest.approx(hi, rel=1e-10))


def test_clustered_proportion_interval_equals_inspect_ci_wilson():
    """0/1 scores in clusters: Wilson's interval on Korn and Graubard's effective n (what a clustered binary
    metric's systems get, sigreport.analyses.scores.clustered_proportion_rows) equals Inspect's
    ``ci_wilson(cluster=)`` (the Korn-Graubard effective size capped at n, a t_{G-1} critical value), in [0, 1]."""
    for G, n, _, _, _, lo, hi in INSPECT_BINARY:
        x, g = design(G, True)
        codes, _ = cluster.codes(g)
        cm = cluster.clustered_means(x[:, None], codes, G)
        m = proportion.korn_graubard_n(n, cm.design_effect[0], G, 0.95)
        ci = proportion.proportion_ci(np.array([x.mean() * m]), np.array([m]), 0.95, "wilson")
        assert (ci.low[0], ci.high[0]) == (pytest.approx(lo, rel=1e-10), pytest.approx(hi, rel=1e-10))
        assert 0 <= ci.low[0] < x.mean() < ci.high[0] <= 1


def test_korn_graubard_n_edges():
    """Undefined design effect (a proportion of 0 or 1): the items count as they are; a design effect below 1
    (negative intra-cluster correlation) is capped at n; many clusters: (z/t)^2 -> 1 and n* -> (n - 1)/deff."""
    z, t9 = stats.norm.ppf(0.975), stats.t.ppf(0.975, 9)
    assert proportion.korn_graubard_n(40, np.nan, 10, 0.95) == pytest.approx(40 * (z / t9) ** 2, rel=1e-12)
    assert proportion.korn_graubard_n(40, 0.5, 10, 0.95) == pytest.approx(40 * (z / t9) ** 2, rel=1e-12)
    assert proportion.korn_graubard_n(40, 2.0, 10, 0.95) == pytest.approx(19.5 * (z / t9) ** 2, rel=1e-12)
    assert proportion.korn_graubard_n(10_001, 2.0, 10**6, 0.95) == pytest.approx(5000, rel=1e-5)


# --- evalsig 0.1.2 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [3, 5, 20, 100, 1000])
def test_paired_t_equals_evalsig(n, alternative):
    """evalsig's paired_t_test(a, b) tests b - a: sigreport's paired_t(b, a) gives the same p-value and interval."""
    rng = np.random.default_rng(n)
    a = rng.normal(0, 1, n)
    b = a + rng.normal(0.2, 1, n)
    e = evalsig.paired_t_test(a, b, alternative=alternative, ci_level=0.9)
    s = pairwise.paired_t(b, a, alternative=alternative, ci_level=0.9)
    assert s.pvalue == pytest.approx(e.p_value, rel=1e-12, abs=1e-300)
    # sigreport writes a one-sided interval's open end as None (JSON has no infinity)
    low = -np.inf if s.ci_low is None else s.ci_low
    high = np.inf if s.ci_high is None else s.ci_high
    assert low == pytest.approx(e.ci[0], rel=1e-12) and high == pytest.approx(e.ci[1], rel=1e-12)


def test_paired_t_without_spread_is_no_test():
    """Every difference the same non-zero value: evalsig returns p = 0 (and a zero-width interval) at any n, even
    n = 2; sigreport runs no test and says why (the t statistic is undefined, not infinite evidence)."""
    a = np.array([0.0, 1.0])  # + 0.25: exact in binary, so the differences are exactly equal
    e = evalsig.paired_t_test(a, a + 0.25)
    assert e.p_value == 0.0 and e.ci[0] == e.ci[1]
    s = pairwise.paired_t(a + 0.25, a)
    assert s.pvalue is None and s.warnings


def two_by_two(n01: int, n10: int, n11: int = 50, n00: int = 20) -> tuple[np.ndarray, np.ndarray]:
    a = np.r_[np.zeros(n01), np.ones(n10), np.ones(n11), np.zeros(n00)]
    b = np.r_[np.ones(n01), np.zeros(n10), np.ones(n11), np.zeros(n00)]
    return a, b


@pytest.mark.parametrize("n01, n10", [(0, 3), (3, 9), (1, 12), (12, 14), (30, 45), (100, 130), (7, 300)])
def test_mcnemar_equals_evalsig(n01, n10):
    """Away from the two points below the McNemar p-values agree (exact binomial below 25 discordant items,
    chi-square with continuity correction above)."""
    a, b = two_by_two(n01, n10)
    e = evalsig.mcnemar_test(a, b)
    s = contingency.mcnemar(a.astype(bool), b.astype(bool))
    assert s.pvalue == pytest.approx(e.p_value, rel=1e-12)


def test_mcnemar_where_evalsig_differs():
    """Two differences, R's mcnemar.test beside each.

    * n01 = n10 = 20: the data sit exactly on the null. R: ``mcnemar.test(matrix(c(50, 20, 20, 20), 2))$p.value``
      = 1 (R applies the continuity correction only when the table is not symmetric); sigreport 1; evalsig
      subtracts the correction anyway, (|0| - 1)^2/40, and reports 0.874.
    * 25 discordant items (10 and 15): a convention, both defensible. sigreport takes the chi-square with
      correction from 25 on (R: ``mcnemar.test(matrix(c(50, 15, 10, 20), 2))$p.value`` = 0.4237108), evalsig the
      exact binomial up to 25 (R: ``binom.test(10, 25)$p.value`` = 0.4243562)."""
    a, b = two_by_two(20, 20)
    assert contingency.mcnemar(a.astype(bool), b.astype(bool)).pvalue == 1.0
    assert evalsig.mcnemar_test(a, b).p_value == pytest.approx(0.8743670611628918, rel=1e-9)
    a, b = two_by_two(10, 15)
    assert contingency.mcnemar(a.astype(bool), b.astype(bool)).pvalue == pytest.approx(0.4237108, abs=5e-8)
    assert evalsig.mcnemar_test(a, b).p_value == pytest.approx(0.4243562, abs=5e-8)


def test_mcnemar_interval_evalsig_wald_sigreport_newcombe():
    """evalsig's interval of a paired difference of proportions is Wald's: of zero width when the two systems
    agree on every item, and outside [-1, 1] near the edge; Newcombe's method 10 (sigreport) is neither."""
    a, b = two_by_two(0, 0, n11=5, n00=5)
    e = evalsig.mcnemar_test(a, b)
    assert e.ci == (0.0, 0.0)
    nc = proportion.newcombe_paired(b, a, 0.95)
    assert nc.low[0] < 0 < nc.high[0]
    a, b = two_by_two(9, 0, n11=0, n00=1)
    e = evalsig.mcnemar_test(a, b)
    assert e.ci[1] > 1
    nc = proportion.newcombe_paired(b, a, 0.95)
    assert -1 <= nc.low[0] < nc.high[0] <= 1


@pytest.mark.parametrize("n", [8, 10])
def test_permutation_p_within_evalsig_monte_carlo_error(n):
    """Sign-flip permutation: sigreport enumerates all 2^n sign patterns (2^n <= B), evalsig draws 10000 with the
    +1 correction; they agree within 4 of evalsig's Monte Carlo standard errors."""
    rng = np.random.default_rng(40 + n)
    a = rng.normal(0, 1, n)
    b = a + rng.normal(0.5, 1, n)
    e = evalsig.paired_permutation_test(a, b, n_resamples=10_000, rng=1)
    x = np.c_[b, a][:, :, None]
    s = resampling.paired_resampling(x, resampling.mean_metric(), [(0, 1)], "permutation", 2**n, 0)
    p = s.pairs[0].pvalue
    assert abs(e.p_value - p) <= 4 * np.sqrt(p * (1 - p) / 10_000) + 1e-4


def test_cluster_bootstrap_within_evalsig_monte_carlo_error():
    """The cluster bootstrap of a paired difference (whole clusters drawn with replacement): sigreport's (the
    engine on cluster totals) and evalsig's cluster_bootstrap_ci give the same percentile interval and
    null-shifted p-value within Monte Carlo error (two independent streams of 20000 replicates)."""
    rng = np.random.default_rng(9)
    G = 30
    g = np.repeat(np.arange(G), rng.integers(1, 10, size=G))
    u = rng.normal(0, 0.6, G)
    a = rng.normal(0, 1, len(g))
    b = a + 0.25 + u[g] + rng.normal(0, 0.8, len(g))
    e = evalsig.cluster_bootstrap_ci(a, b, g, n_resamples=20_000, rng=2)
    codes, G = cluster.codes(g)
    st = cluster.cluster_stats(np.c_[b, a][:, :, None], codes, G)
    s = resampling.paired_resampling(st, resampling.ratio_metric(), [(0, 1)], "bootstrap", 20_000, 5)
    pr = s.pairs[0]
    se = cluster.clustered_means((b - a)[:, None], codes, G).se[0]
    assert pr.estimate == pytest.approx(e.delta, rel=1e-12)
    # a 2.5% quantile of 20000 replicates moves by about 0.03 SE between streams; 0.1 SE is > 3 of those
    assert abs(pr.ci_low - e.ci[0]) < 0.1 * se and abs(pr.ci_high - e.ci[1]) < 0.1 * se
    assert abs(pr.pvalue - e.p_value) <= 4 * np.sqrt(max(pr.pvalue, 1e-3) * (1 - pr.pvalue) / 20_000) + 2e-4


def test_mde_evalsig_normal_approximation_overstates_power():
    """evalsig's MDE is (z_{alpha/2} + z_beta) sd / sqrt(n); the paired t test it goes with has less power at that
    difference: simulated (40000 normal samples of n = 10, scipy's ttest_1samp), power 0.70, not 0.80. At
    sigreport's MDE (noncentral t) the simulated power is 0.80 within Monte Carlo error."""
    n, R = 10, 40_000
    rng = np.random.default_rng(11)
    z = rng.normal(0, 1, (R, n))
    e = evalsig.mde(1.0, n).mde
    s = power.paired_t_mde_dz(n, 0.05, 0.8)
    assert e == pytest.approx((stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) / np.sqrt(n), rel=1e-12)
    mc = 4 * np.sqrt(0.8 * 0.2 / R)
    power_e = np.mean(stats.ttest_1samp(z + e, 0, axis=1).pvalue < 0.05)
    power_s = np.mean(stats.ttest_1samp(z + s, 0, axis=1).pvalue < 0.05)
    assert abs(power_s - 0.8) < mc
    assert power_e < 0.8 - 5 * mc and abs(power_e - 0.704) < mc


def test_design_effect_evalsig_ignores_unequal_cluster_sizes():
    """Clustered MDE: evalsig inflates the variance by 1 + (m - 1) ICC with m the mean cluster size; with unequal
    sizes the design effect of a mean is 1 + ICC (sum n_g^2 / n - 1) (Kish 1965; Eldridge, Ashby and Kerry 2006).
    30 clusters of 2 items and 10 of 30, ICC 0.2: the truth is 5.87 (and a simulation of the mean's variance
    agrees); sigreport's CR1 design effect averages within 10% of it (CR1 is biased down a little at G = 40),
    evalsig's about 2.5."""
    from evalsig.inference.mde import estimate_icc

    sizes = np.r_[np.full(30, 2), np.full(10, 30)]
    G, n, icc = len(sizes), int(sizes.sum()), 0.2
    g = np.repeat(np.arange(G), sizes)
    kish = 1 + icc * (np.sum(sizes**2) / n - 1)
    assert kish == pytest.approx(5.8667, abs=1e-4)
    rng = np.random.default_rng(12)
    R = 400
    x = rng.normal(0, np.sqrt(icc), (G, R))[g] + rng.normal(0, np.sqrt(1 - icc), (n, R))
    assert x.mean(axis=0).var() * n == pytest.approx(kish, rel=0.2)  # the simulated truth
    deff_s = np.mean(cluster.clustered_means(x, g, G).design_effect)
    deff_e = np.mean([1 + (n / G - 1) * estimate_icc(x[:, r], g) for r in range(R)])
    assert abs(deff_s - kish) < 0.1 * kish
    assert deff_e < 0.5 * kish
