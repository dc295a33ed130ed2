"""Cluster-robust inference for means of items that are not independent (``data.columns.cluster``).

Items that share a passage, an image or a task family are correlated; the i.i.d. standard error of their mean
understates its spread (Miller 2024, "Adding Error Bars to Evals", sec. 2.2). For the mean of ``n`` items in
``G`` clusters, with residuals ``e_i = x_i - mean(x)`` and cluster sums ``S_g = sum_{i in g} e_i``, the CR1
cluster-robust variance (Liang and Zeger 1986; Cameron and Miller 2015, sec. II.C) is

    Var_CR1 = G / (G - 1) * (N - 1) / (N - K) * sum_g S_g^2 / N^2,   K = 1 (the mean is the only parameter),

so the factor (N - 1)/(N - K) is 1 and the variance is ``G/(G-1) * sum_g S_g^2 / N^2``. That is exactly
statsmodels' ``OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g})`` (its default
``use_correction=True`` applies both factors), R's ``sandwich::vcovCL(lm(y ~ 1), cluster = g, type = "HC1")``
(``cadjust = TRUE``: G/(G-1); HC1: (N-1)/(N-K)) and Inspect AI's ``stderr(cluster=...)`` (its finite-cluster
correction G/(G-1), no other factor). With one item per cluster it is ``n/(n-1)`` times the i.i.d. variance
with the biased SD, i.e. exactly the i.i.d. variance ``sd^2/n`` (ddof 1).

The design effect is ``deff = (SE_CR1 / SE_iid)^2`` with ``SE_iid = sd(x, ddof=1)/sqrt(n)`` (Kish 1965), the
effective number of items ``n_eff = n / deff``; intervals and tests use Student's t on ``G - 1`` degrees of
freedom (Cameron and Miller 2015, sec. VI.B: the CR1 estimator with t(G-1) critical values, as Stata does).

Everything is whole-array numpy: ``x`` is items x columns (every system at once, or every pair's per-item
differences at once), the cluster sums come from one sort and one ``np.add.reduceat``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from sigreport.stats.lazy import scipy_special as special
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClusterSummary:
    """results.json ``clusters`` of a system's mean or of a pair's difference: ``G`` clusters, the design
    effect ``(SE_CR1/SE_iid)^2`` and the effective number of items ``n / design_effect`` (None where the
    i.i.d. SE is 0: a design effect needs a spread)."""

    G: int
    design_effect: float | None
    effective_n: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClusteredMeans:
    """Column-wise results of :func:`clustered_means` (arrays of one value per column)."""

    n: int
    G: int
    mean: np.ndarray
    se: np.ndarray  # CR1
    se_iid: np.ndarray
    design_effect: np.ndarray  # NaN where se_iid is 0
    effective_n: np.ndarray

    def summary(self, j: int) -> ClusterSummary:
        return ClusterSummary(G=self.G, design_effect=finite_or_none(self.design_effect[j]),
                              effective_n=finite_or_none(self.effective_n[j]))


def codes(labels: Sequence[object] | np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 of cluster labels (in order of first appearance) and G."""
    _, first, inverse = np.unique(np.asarray(labels), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(first), dtype=np.int64)
    rank[order] = np.arange(len(first))
    return rank[inverse.reshape(-1)], len(first)


def cluster_sums(x: np.ndarray, g: np.ndarray, G: int) -> np.ndarray:
    """(G, columns) sums of the rows of ``x`` (items x columns) per cluster code ``g`` (0..G-1, each present)."""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(g, kind="stable")
    sorted_g = np.asarray(g)[order]
    starts = np.flatnonzero(np.r_[True, sorted_g[1:] != sorted_g[:-1]])
    if len(starts) != G:
        raise ValueError(f"cluster codes must be 0..{G - 1}, each present; found {len(starts)} distinct")
    return np.add.reduceat(x[order], starts, axis=0)


def clustered_means(x: np.ndarray, g: np.ndarray, G: int) -> ClusteredMeans:
    """Means, CR1 standard errors, i.i.d. standard errors, design effects and effective n of every column of
    ``x`` (items x columns) with cluster codes ``g`` (see the module docstring). Needs G >= 2 clusters."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("x must be an items x columns matrix")
    n = x.shape[0]
    if G < 2:
        raise ValueError(f"cluster-robust inference needs at least 2 clusters, got {G}")
    mean = x.mean(axis=0)
    e = x - mean
    s = cluster_sums(e, g, G)
    var = G / (G - 1) * np.einsum("gk,gk->k", s, s) / float(n) ** 2
    se = np.sqrt(var)
    se_iid = x.std(axis=0, ddof=1) / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = np.where(se_iid > 0, var / np.where(se_iid > 0, se_iid, 1.0) ** 2, np.nan)
        n_eff = n / deff
    return ClusteredMeans(n=n, G=G, mean=mean, se=se, se_iid=se_iid, design_effect=deff, effective_n=n_eff)


def t_ppf(q: float, df: float) -> float:
    return float(special.stdtrit(df, q))


def mean_intervals(cm: ClusteredMeans, ci_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided intervals mean -/+ t_{G-1}(0.5 + level/2) * SE_CR1 of every column."""
    half = t_ppf(0.5 + ci_level / 2, cm.G - 1) * cm.se
    return cm.mean - half, cm.mean + half


def paired_t_family(x: np.ndarray, pairs: Sequence[tuple[int, int]], g: np.ndarray, G: int,
                    alternative: str = "two-sided", alpha: float = 0.05, ci_level: float = 0.95,
                    shapiro: Sequence[float | None] | None = None) -> list[PairedTestResult]:
    """The clustered paired t test of every pair (a - b) at once: t = mean(d) / SE_CR1(d) on G - 1 degrees of
    freedom, the interval mean(d) -/+ t_{G-1} SE_CR1(d) (one-sided for a one-sided alternative), the critical t
    at ``alpha``. ``extra``: ``clusters`` (:class:`ClusterSummary` of the differences) and, when given, the
    differences' Shapiro-Wilk p-value. A pair whose differences do not vary gets no test (a warning)."""
    from sigreport.stats.pairwise import t_critical

    x = np.asarray(x, dtype=np.float64)
    if not pairs:
        return []
    a = np.array([i for i, _ in pairs])
    b = np.array([j for _, j in pairs])
    d = x[:, a] - x[:, b]
    cm = clustered_means(d, g, G)
    df = G - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t = cm.mean / cm.se
    if alternative == "two-sided":
        p = 2 * special.stdtr(df, -np.abs(t))
        h = t_ppf(0.5 + ci_level / 2, df) * cm.se
        lo, hi = cm.mean - h, cm.mean + h
    else:
        p = special.stdtr(df, -t) if alternative == "greater" else special.stdtr(df, t)
        q = t_ppf(ci_level, df) * cm.se
        lo, hi = (cm.mean - q, np.full(len(pairs), np.inf)) if alternative == "greater" else \
            (np.full(len(pairs), -np.inf), cm.mean + q)
    crit = t_critical(alpha, df, alternative)
    sd = d.std(axis=0, ddof=1) if d.shape[0] > 1 else np.full(len(pairs), np.nan)
    out = []
    for k in range(len(pairs)):
        extra: dict[str, object] = {"clusters": dataclasses.asdict(cm.summary(k))}  # as results.json reads it back
        if shapiro is not None:
            extra = {"shapiro_pvalue": shapiro[k], **extra}
        if not (cm.se[k] > 0 and np.isfinite(t[k])):
            out.append(PairedTestResult(
                method="paired_t", n=cm.n, statistic=None, df=float(df), pvalue=None, alternative=alternative,
                estimate=finite_or_none(cm.mean[k]), ci_low=None, ci_high=None, ci_level=ci_level,
                critical_value=crit, effect_size=None, extra=extra,
                warnings=("the differences do not vary between clusters (SE_CR1 = 0): no clustered t test",)))
            continue
        out.append(PairedTestResult(
            method="paired_t", n=cm.n, statistic=float(t[k]), df=float(df), pvalue=float(p[k]),
            alternative=alternative, estimate=float(cm.mean[k]), ci_low=finite_or_none(lo[k]),
            ci_high=finite_or_none(hi[k]), ci_level=ci_level, critical_value=crit,
            effect_size=EffectSize(name="d_z", value=float(cm.mean[k] / sd[k])) if sd[k] > 0 else None,
            extra=extra))
    return out


def cluster_stats(stats: np.ndarray, g: np.ndarray, G: int) -> np.ndarray:
    """A mean metric's block collapsed to its clusters: (G, systems, 2) of (sum of the cluster's scores, its
    number of items). The metric of these is the ratio sum/sum, so resampling the G rows with replacement is
    the cluster bootstrap (the mean of the items of the drawn clusters, as Inspect's ``ci(cluster=...)``
    computes it) and swapping a row's two systems swaps (sign-flips) every item of the cluster at once."""
    x = np.asarray(stats, dtype=np.float64)[:, :, 0]
    sums = cluster_sums(x, g, G)  # (G, k)
    sizes = np.bincount(g, minlength=G).astype(np.float64)
    return np.stack([sums, np.broadcast_to(sizes[:, None], sums.shape)], axis=2)
