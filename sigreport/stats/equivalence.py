"""Equivalence (TOST) and non-inferiority tests of a mean difference, t-based, vectorised over pairs.

A margin ``D > 0`` in the metric's units turns "no significant difference" (which is no proof of parity)
into two claims a test can support:

* **Equivalence** (two one-sided tests, Schuirmann 1987; Lakens 2017): the true difference lies within
  ``(-D, +D)``. Test ``H0: delta <= -D`` against ``delta > -D`` and ``H0: delta >= +D`` against ``delta < +D``;
  the TOST p-value is the larger of the two one-sided p-values, and equivalence is shown at level alpha
  exactly when the ``1 - 2 alpha`` two-sided interval lies inside ``(-D, +D)`` (Wellek 2010, ch. 3).
* **Non-inferiority** (Wellek 2010, ch. 2): a is not worse than b by more than ``D``. For a metric where
  higher is better, ``H0: delta <= -D`` against ``delta > -D`` (the lower bound of the one-sided ``1 - alpha``
  interval, the low end of the ``1 - 2 alpha`` two-sided interval, above ``-D``); where lower is better,
  ``H0: delta >= +D`` against ``delta < +D``.

Both use the paired t test's summary statistics: the mean difference, its standard error (SD ddof 1 over
sqrt(n)) and ``df = n - 1``, so they reproduce statsmodels' ``ttost_paired`` and R's
``t.test(x, y, paired = TRUE, mu = -D, alternative = "greater")`` (tests/stats/test_equivalence.py). With
zero variance of the differences the t statistics are infinite: the p-values take their limits (0 or 1),
and a difference exactly on a bound has no p-value (None, with a warning).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sigreport.stats.result import finite_or_none


@dataclasses.dataclass(frozen=True, kw_only=True)
class EquivalenceResult:
    """One pair's equivalence and non-inferiority tests of a - b against margin ``D``.

    ``tost_pvalue`` = max(``pvalue_lower``, ``pvalue_upper``) (the tests of delta > -D and of delta < +D);
    ``ci_low``/``ci_high``: the two-sided interval at ``ci_level`` = 1 - 2 alpha (its ends are the one-sided
    1 - alpha bounds); ``noninferiority_pvalue``: the one-sided test that a is not worse than b by more than
    D, with ``noninferiority_bound`` its one-sided 1 - alpha bound (lower where higher is better, upper where
    lower is better) and ``higher_is_better`` the direction it used. ``*_adjusted`` are filled by the
    analysis when the family is corrected (None here)."""

    margin: float
    estimate: float | None
    se: float | None
    df: float | None
    pvalue_lower: float | None
    pvalue_upper: float | None
    tost_pvalue: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    higher_is_better: bool
    noninferiority_pvalue: float | None
    noninferiority_bound: float | None
    tost_pvalue_adjusted: float | None = None
    noninferiority_pvalue_adjusted: float | None = None
    equivalent: bool | None = None
    noninferior: bool | None = None
    noninferiority_of: str | None = None  # the system tested as not worse (set by the analysis: a, or the
    noninferiority_against: str | None = None  # system compared with the baseline), and the one it is held against
    warnings: tuple[str, ...] = ()


def check_margin(margin: float) -> float:
    """A margin is a positive finite number in the metric's units."""
    m = float(margin)
    if not (np.isfinite(m) and m > 0):
        raise ValueError(f"an equivalence margin is a positive number in the metric's units, got {margin!r}")
    return m


def _one_sided(t: np.ndarray, df: np.ndarray, upper: bool) -> np.ndarray:
    """P(T >= t) (``upper``) or P(T <= t), the limits for infinite t, NaN where t is NaN."""
    from scipy import stats as sps  # here: results.records imports this module, and validate no scipy.stats

    with np.errstate(invalid="ignore"):
        return sps.t.sf(t, df) if upper else sps.t.cdf(t, df)


def t_equivalence(estimate: np.ndarray, se: np.ndarray, df: np.ndarray, margin: float, alpha: float,
                  higher_is_better: bool) -> dict[str, np.ndarray]:
    """TOST and non-inferiority of every pair at once, from the mean differences, their SEs and df (arrays of
    one shape). Returns arrays ``pvalue_lower``, ``pvalue_upper``, ``tost_pvalue``, ``ci_low``, ``ci_high``,
    ``noninferiority_pvalue``, ``noninferiority_bound`` (NaN where not computable)."""
    d = check_margin(margin)
    est = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_low = (est + d) / se  # H0: delta <= -D
        t_upp = (est - d) / se  # H0: delta >= +D
        # se == 0: the sign of the numerator decides (its limit); a numerator of zero stays NaN (0/0)
        t_low = np.where(se == 0, np.sign(est + d) * np.inf, t_low)
        t_upp = np.where(se == 0, np.sign(est - d) * np.inf, t_upp)
        t_low = np.where((se == 0) & (est + d == 0), np.nan, t_low)
        t_upp = np.where((se == 0) & (est - d == 0), np.nan, t_upp)
    p_low = _one_sided(t_low, df, upper=True)
    p_upp = _one_sided(t_upp, df, upper=False)
    tost = np.maximum(p_low, p_upp)  # NaN propagates
    from scipy import stats as sps

    crit = sps.t.ppf(1 - alpha, df)
    half = np.where(se == 0, 0.0, crit * se)
    lo, hi = est - half, est + half
    if higher_is_better:
        ni_p, ni_bound = p_low, lo
    else:
        ni_p, ni_bound = p_upp, hi
    return {"pvalue_lower": p_low, "pvalue_upper": p_upp, "tost_pvalue": tost, "ci_low": lo, "ci_high": hi,
            "noninferiority_pvalue": ni_p, "noninferiority_bound": ni_bound}


def equivalence_results(estimate: list[float | None], se: list[float | None], df: list[float | None],
                        margin: float, alpha: float, higher_is_better: bool) -> list[EquivalenceResult]:
    """:func:`t_equivalence` as one :class:`EquivalenceResult` per pair (None inputs: None outputs, said)."""
    nan = float("nan")
    arrays = t_equivalence(np.array([nan if v is None else v for v in estimate], dtype=np.float64),
                           np.array([nan if v is None else v for v in se], dtype=np.float64),
                           np.array([nan if v is None else v for v in df], dtype=np.float64),
                           margin, alpha, higher_is_better)
    out = []
    for i in range(len(estimate)):
        vals = {k: finite_or_none(v[i]) for k, v in arrays.items()}
        warnings: list[str] = []
        if estimate[i] is None or se[i] is None or df[i] is None:
            warnings.append("no mean difference, standard error or df for this pair: no equivalence test")
        elif vals["tost_pvalue"] is None or vals["noninferiority_pvalue"] is None:
            warnings.append(f"the differences do not vary and their mean lies on a margin (+-{margin:g}): the "
                            "one-sided test there has no p-value")
        elif se[i] == 0:
            warnings.append("the differences do not vary: the one-sided p-values are their limits (0 or 1)")
        out.append(EquivalenceResult(margin=float(margin), estimate=finite_or_none(estimate[i]),
                                     se=finite_or_none(se[i]), df=finite_or_none(df[i]),
                                     pvalue_lower=vals["pvalue_lower"], pvalue_upper=vals["pvalue_upper"],
                                     tost_pvalue=vals["tost_pvalue"],
                                     ci_low=vals["ci_low"] if se[i] is not None else None,
                                     ci_high=vals["ci_high"] if se[i] is not None else None,
                                     ci_level=1 - 2 * alpha, higher_is_better=higher_is_better,
                                     noninferiority_pvalue=vals["noninferiority_pvalue"],
                                     noninferiority_bound=vals["noninferiority_bound"] if se[i] is not None else None,
                                     warnings=tuple(warnings)))
    return out


def tost_paired(x: np.ndarray, y: np.ndarray, margin: float, alpha: float = 0.05,
                higher_is_better: bool = True) -> EquivalenceResult:
    """TOST and non-inferiority of paired samples x, y (d = x - y): the paired t test's summary statistics
    through :func:`equivalence_results` (what the tests compare with statsmodels and R)."""
    dlt = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    n = dlt.size
    if n < 2:
        return equivalence_results([float(dlt.mean()) if n else None], [None], [None], margin, alpha,
                                   higher_is_better)[0]
    sd = float(dlt.std(ddof=1))
    sd = 0.0 if np.all(dlt == dlt[0]) else sd
    return equivalence_results([float(dlt.mean())], [sd / np.sqrt(n)], [float(n - 1)], margin, alpha,
                               higher_is_better)[0]
