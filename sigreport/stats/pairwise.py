"""Paired t test between two systems (seed 000, formula I) and per-system descriptives.

t = mean(d) / (sd(d) / sqrt(n)) with d = a - b and n - 1 degrees of freedom. Both the p-value
("Case II" of the source) and the critical t at alpha for the chosen alternative ("Case I") are
reported: the critical value is computed from the t distribution, never read from a table (the
source's Table 1 is wrong at df = 1). Tests check the source's worked example
(t = 6.3790, df = 2, p = 0.02370) and R's ``t.test(a, b, paired = TRUE)``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import stats as sps

from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclasses.dataclass(frozen=True)
class Descriptives:
    """Per-system summary of one metric on one corpus; the CI is the t interval of the mean."""

    n: int
    mean: float | None
    sd: float | None
    median: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    warnings: tuple[str, ...] = ()


def describe(x: np.ndarray, ci_level: float = 0.95) -> Descriptives:
    """n, mean, sd (ddof 1), median and the t confidence interval of the mean."""
    x = np.asarray(x, dtype=float)
    n = int(x.size)
    warnings: list[str] = []
    if n == 0:
        return Descriptives(0, None, None, None, None, None, ci_level, ("no items",))
    mean = float(np.mean(x))
    if n < 2:
        warnings.append("only one item: the standard deviation and the CI of the mean are undefined")
        return Descriptives(n, mean, None, float(np.median(x)), None, None, ci_level, tuple(warnings))
    sd = float(np.std(x, ddof=1))
    half = sps.t.ppf(0.5 + ci_level / 2, n - 1) * sd / np.sqrt(n)
    return Descriptives(n, mean, sd, float(np.median(x)), mean - half, mean + half, ci_level, ())


def _t_pvalue(t: float, df: float, alternative: str) -> float:
    if alternative == "two-sided":
        return float(2 * sps.t.sf(abs(t), df))
    if alternative == "greater":
        return float(sps.t.sf(t, df))
    return float(sps.t.cdf(t, df))


def t_critical(alpha: float, df: float, alternative: str) -> float:
    """Critical t at level alpha: the rejection region is |t| >= c (two-sided), t >= c or t <= c."""
    if alternative == "two-sided":
        return float(sps.t.ppf(1 - alpha / 2, df))
    if alternative == "greater":
        return float(sps.t.ppf(1 - alpha, df))
    return float(sps.t.ppf(alpha, df))


def _t_interval(mean: float, se: float, df: float, level: float, alternative: str) -> tuple[float, float]:
    """Confidence interval matching the alternative (one-sided bounds for one-sided tests, as R)."""
    if alternative == "two-sided":
        h = sps.t.ppf(0.5 + level / 2, df) * se
        return mean - h, mean + h
    q = sps.t.ppf(level, df) * se
    return (mean - q, np.inf) if alternative == "greater" else (-np.inf, mean + q)


def paired_t(
    a: np.ndarray, b: np.ndarray, alternative: str = "two-sided", alpha: float = 0.05, ci_level: float = 0.95
) -> PairedTestResult:
    """Student's paired t test of a - b, with Shapiro-Wilk on the differences as an assumption check.

    ``extra`` carries ``shapiro_pvalue`` (None when n < 3 or the differences are constant) and
    ``normality_rejected``. A warning is added when n < 30 and Shapiro-Wilk rejects at alpha,
    since the t test then leans on normality (seed 000: the n > 30 rule).
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}")
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("a and b must be 1-d arrays of the same length")
    d = a - b
    n = int(d.size)
    warnings: list[str] = []
    extra: dict[str, object] = {"shapiro_pvalue": None, "normality_rejected": None}
    if n < 2:
        warnings.append(f"only {n} paired item(s): the t test needs at least 2")
        return PairedTestResult("paired_t", n, None, None, None, alternative, finite_or_none(d.mean()) if n else None,
                                None, None, ci_level, None, EffectSize("d_z", None), tuple(warnings), extra)
    df = n - 1
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    crit = t_critical(alpha, df, alternative)
    # Differences equal to within rounding noise count as constant.
    if sd <= 1e-12 * max(1.0, float(np.max(np.abs(d)))):
        if np.all(d == 0) or abs(mean) <= 1e-12:
            warnings.append("the two systems have identical scores on every item: t is undefined, p taken as 1")
            pvalue: float | None = 1.0
        else:
            warnings.append("the differences have zero variance: t is undefined (infinite), no p-value")
            pvalue = None
        return PairedTestResult("paired_t", n, None, float(df), pvalue, alternative, mean, mean, mean, ci_level,
                                crit, EffectSize("d_z", None), tuple(warnings), extra)
    se = sd / np.sqrt(n)
    t = mean / se
    p = _t_pvalue(t, df, alternative)
    lo, hi = _t_interval(mean, se, df, ci_level, alternative)
    if n >= 3:
        sw = sps.shapiro(d)
        extra["shapiro_pvalue"] = float(sw.pvalue)
        extra["normality_rejected"] = bool(sw.pvalue < alpha)
        if sw.pvalue < alpha and n < 30:
            warnings.append(
                f"Shapiro-Wilk rejects normality of the differences (p = {sw.pvalue:.3g} < {alpha:g}) with only "
                f"{n} items: the t test's p-value is doubtful; consider wilcoxon or bootstrap"
            )
    else:
        warnings.append("n < 3: Shapiro-Wilk cannot check normality of the differences")
    return PairedTestResult("paired_t", n, float(t), float(df), p, alternative, mean, finite_or_none(lo),
                            finite_or_none(hi), ci_level, crit, EffectSize("d_z", mean / sd), tuple(warnings), extra)
