"""The macro average over strata (``metrics.M.average: macro`` with ``data.columns.stratum``).

A benchmark of S strata (MMLU's 57 subjects) is often reported as the mean of the per-stratum means, each
stratum weighing the same whatever its size. For n_s items of stratum s with mean m_s and variance v_s (ddof 1):

    macro = (1/S) sum_s m_s,   SE^2 = sum_s v_s / (n_s S^2) = sum_s SE_s^2 / S^2,

the variance of a stratified mean with the strata fixed by the design (Cochran 1977, "Sampling Techniques",
sec. 5.3, with the stratum weights W_s = 1/S and no finite-population correction). R's ``survey`` package gives
the same standard error for ``svymean(~x, svydesign(ids = ~1, strata = ~s, weights = ~w))`` with w_i = 1/n_s
(its linearization of the ratio estimator). Intervals and tests use Student's t with the Welch-Satterthwaite
degrees of freedom df = (sum_s u_s)^2 / sum_s (u_s^2 / (n_s - 1)), u_s = v_s / n_s (Satterthwaite 1946), which
is n - 1 for one stratum. The paired t of a macro average applies the same to the per-item differences.

Resampling within strata: the bootstrap draws n_s items with replacement within every stratum
(:func:`stratified_counts`), and the macro average of a replicate is a weighted mean of the items with weight
n / (S n_s) (:func:`macro_weights`), so the engine's mean metric over the weighted scores gives it exactly.
Whole-array numpy: every column (system, or pair's differences) at once; the strata are summed by one sort and
``np.add.reduceat``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from sigreport.stats.cluster import cluster_sums, t_ppf
from sigreport.stats.lazy import scipy_special as special
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none


@dataclasses.dataclass(frozen=True, kw_only=True)
class StrataSummary:
    """results.json ``strata`` of a macro average: ``S`` strata, the Welch-Satterthwaite ``df`` of its t, its
    standard error ``se``, the design effect (SE_macro / SE_iid)^2 against the micro mean's i.i.d. SE and the
    effective number of items n / design_effect (None where not finite)."""

    S: int
    df: float | None
    se: float | None
    design_effect: float | None
    effective_n: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class MacroMeans:
    n: int
    S: int
    mean: np.ndarray
    se: np.ndarray
    df: np.ndarray
    design_effect: np.ndarray
    effective_n: np.ndarray

    def summary(self, j: int) -> StrataSummary:
        return StrataSummary(S=self.S, df=finite_or_none(self.df[j]), se=finite_or_none(self.se[j]),
                             design_effect=finite_or_none(self.design_effect[j]),
                             effective_n=finite_or_none(self.effective_n[j]))


def macro_means(x: np.ndarray, s: np.ndarray, S: int) -> MacroMeans:
    """Macro averages, standard errors and Welch-Satterthwaite df of every column of ``x`` (items x columns)
    with stratum codes ``s`` (0..S-1, each with at least 2 items)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    sizes = np.bincount(s, minlength=S).astype(np.float64)
    if (sizes < 2).any():
        raise ValueError("every stratum needs at least 2 items")
    means = cluster_sums(x, s, S) / sizes[:, None]  # (S, k)
    dev = x - means[s]
    var = cluster_sums(dev * dev, s, S) / (sizes[:, None] - 1)
    u = var / sizes[:, None]
    se = np.sqrt(u.sum(axis=0)) / S
    with np.errstate(divide="ignore", invalid="ignore"):
        df = u.sum(axis=0) ** 2 / (u**2 / (sizes[:, None] - 1)).sum(axis=0)
        iid = x.std(axis=0, ddof=1) / np.sqrt(n)
        deff = np.where(iid > 0, (se / np.where(iid > 0, iid, 1.0)) ** 2, np.nan)
        n_eff = n / deff
    return MacroMeans(n=n, S=S, mean=means.mean(axis=0), se=se, df=df, design_effect=deff, effective_n=n_eff)


def mean_intervals(mm: MacroMeans, ci_level: float) -> tuple[np.ndarray, np.ndarray]:
    half = np.array([t_ppf(0.5 + ci_level / 2, df) if np.isfinite(df) else np.nan for df in mm.df]) * mm.se
    return mm.mean - half, mm.mean + half


def paired_t_family(x: np.ndarray, pairs: Sequence[tuple[int, int]], s: np.ndarray, S: int,
                    alternative: str = "two-sided", alpha: float = 0.05, ci_level: float = 0.95,
                    shapiro: Sequence[float | None] | None = None) -> list[PairedTestResult]:
    """The paired t of the macro average's difference for every pair (a - b): t = macro(d) / SE_macro(d) on the
    Welch-Satterthwaite df, its interval and critical t; ``extra['strata']`` (:class:`StrataSummary`)."""
    from sigreport.stats.pairwise import t_critical

    x = np.asarray(x, dtype=np.float64)
    if not pairs:
        return []
    d = x[:, [i for i, _ in pairs]] - x[:, [j for _, j in pairs]]
    mm = macro_means(d, s, S)
    out = []
    for k in range(len(pairs)):
        extra: dict[str, object] = {"strata": dataclasses.asdict(mm.summary(k))}  # as results.json reads it back
        if shapiro is not None:
            extra = {"shapiro_pvalue": shapiro[k], **extra}
        df, se, m = float(mm.df[k]), float(mm.se[k]), float(mm.mean[k])
        if not (se > 0 and np.isfinite(df)):
            out.append(PairedTestResult(
                method="paired_t", n=mm.n, statistic=None, df=None, pvalue=None, alternative=alternative,
                estimate=finite_or_none(m), ci_low=None, ci_high=None, ci_level=ci_level, critical_value=None,
                effect_size=None, extra=extra,
                warnings=("the differences do not vary within any stratum: no t test of the macro average",)))
            continue
        t = m / se
        if alternative == "two-sided":
            p = 2 * float(special.stdtr(df, -abs(t)))
            h = t_ppf(0.5 + ci_level / 2, df) * se
            lo, hi = m - h, m + h
        else:
            p = float(special.stdtr(df, -t) if alternative == "greater" else special.stdtr(df, t))
            q = t_ppf(ci_level, df) * se
            lo, hi = (m - q, float("inf")) if alternative == "greater" else (float("-inf"), m + q)
        sd = float(d[:, k].std(ddof=1))
        out.append(PairedTestResult(
            method="paired_t", n=mm.n, statistic=t, df=df, pvalue=p, alternative=alternative, estimate=m,
            ci_low=finite_or_none(lo), ci_high=finite_or_none(hi), ci_level=ci_level,
            critical_value=t_critical(alpha, df, alternative),
            effect_size=EffectSize(name="d_z", value=m / sd) if sd > 0 else None, extra=extra))
    return out


def macro_weights(s: np.ndarray, S: int) -> np.ndarray:
    """Each item's weight n / (S n_s): the mean of the weighted scores is the macro average, and stays it for
    every replicate that keeps each stratum's size (the stratified bootstrap, a within-item swap)."""
    sizes = np.bincount(s, minlength=S).astype(np.float64)
    return len(s) / (S * sizes[s])


def stratified_counts(s: np.ndarray, S: int, n_rows: int, seed: int) -> np.ndarray:
    """(n_rows, n) bootstrap counts drawn within strata: in every row, stratum s's n_s items get a
    Multinomial(n_s, 1/n_s) draw of counts (one generator from ``seed``; one call per stratum, all rows at once)."""
    rng = np.random.default_rng(seed)
    n = len(s)
    out = np.zeros((n_rows, n), dtype=np.uint8 if n < 256 else np.uint16)
    order = np.argsort(s, kind="stable")
    sizes = np.bincount(s, minlength=S)
    start = 0
    for size in sizes.tolist():  # one multinomial draw per stratum (S is small: subjects, task families)
        idx = order[start : start + size]
        out[:, idx] = rng.multinomial(size, np.full(size, 1.0 / size), size=n_rows)
        start += size
    return out
