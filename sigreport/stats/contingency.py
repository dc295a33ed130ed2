"""Tests on per-item correctness of classifiers: McNemar (two systems) and Cochran's Q (k systems).

McNemar (1947), as presented by Dietterich (1998) and Faria (2017): with n01 = items system a got
wrong and b got right, n10 = a right and b wrong, the chi-square statistic is
(|n01 - n10| - 1)^2 / (n01 + n10) with continuity correction (Edwards 1948) or
(n01 - n10)^2 / (n01 + n10) without, on 1 df. As in R's ``mcnemar.test`` the correction is not
applied when n01 == n10 (the statistic is then 0). The exact version is the two-sided binomial test
of n01 successes in n01 + n10 trials with p = 1/2 (R ``binom.test``), p = min(1, 2 P(X <= min)).
By default (``exact=None``) the exact test is used when n01 + n10 < 25, where the chi-square
approximation of the discordant-pair count is commonly judged too coarse.

Cochran (1950) Q for k related binary samples: Q = (k - 1)(k sum C_j^2 - N^2) / (k N - sum R_i^2)
with column (system) totals C_j, row (item) totals R_i and N the grand total, chi-square on k - 1 df.
It equals the tie-corrected Friedman statistic on 0/1 data, and with k = 2 systems it equals
McNemar's chi-square without continuity correction, (n01 - n10)^2 / (n01 + n10) (a property test
shows it on random data). ``continuity_correction=False`` in :func:`mcnemar` selects that variant.

Tests: Faria's (2017) example (n01 = 121, n10 = 59 -> 20.67), R ``mcnemar.test``, ``binom.test``,
``rstatix::cochran_qtest`` and ``friedman.test``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sigreport.stats.lazy import scipy_stats as stats
from sigreport.stats.result import finite_or_none

EXACT_THRESHOLD = 25


@dataclasses.dataclass(frozen=True, kw_only=True)
class McNemarResult:
    """McNemar's test of two systems' per-item correctness.

    ``n00`` both wrong, ``n01`` a wrong and b right, ``n10`` a right and b wrong, ``n11`` both right.
    ``statistic``: the chi-square value, or for the exact test min(n01, n10) (the binomial count
    whose tail gives the two-sided p). ``df`` is 1 for chi-square and ``None`` for the exact test.
    ``critical_value``: chi-square quantile at 1 - alpha (``None`` for the exact test).
    ``continuity_correction`` says whether the correction was applied (``False`` for the exact test
    and when n01 == n10). ``reason`` says in words why this variant was used.
    """

    n00: int
    n01: int
    n10: int
    n11: int
    statistic: float | None
    df: float | None
    pvalue: float | None
    exact: bool
    continuity_correction: bool
    alpha: float
    critical_value: float | None
    warnings: tuple[str, ...]
    reason: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class CochranQResult:
    """Cochran's Q over ``k`` systems on ``n`` items (chi-square with ``df`` = k - 1)."""

    statistic: float | None
    df: float
    pvalue: float | None
    n: int
    k: int
    warnings: tuple[str, ...] = ()


def _bool_vector(x: np.ndarray, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.dtype != bool:
        if a.size and not np.all((a == 0) | (a == 1)):
            raise ValueError(f"{name} must be boolean (or 0/1)")
        a = a.astype(bool)
    return a


def mcnemar(
    correct_a: np.ndarray,
    correct_b: np.ndarray,
    exact: bool | None = None,
    continuity_correction: bool = True,
    alpha: float = 0.05,
) -> McNemarResult:
    """McNemar's test from per-item correctness of systems a and b (same items, same order)."""
    a = _bool_vector(correct_a, "correct_a")
    b = _bool_vector(correct_b, "correct_b")
    if a.shape != b.shape:
        raise ValueError(f"correct_a and correct_b differ in length ({a.size} vs {b.size})")
    n00 = int(np.sum(~a & ~b))
    n01 = int(np.sum(~a & b))
    n10 = int(np.sum(a & ~b))
    n11 = int(np.sum(a & b))
    return mcnemar_from_counts(n01, n10, n00=n00, n11=n11, exact=exact,
                               continuity_correction=continuity_correction, alpha=alpha)


def mcnemar_from_counts(
    n01: int,
    n10: int,
    n00: int = 0,
    n11: int = 0,
    exact: bool | None = None,
    continuity_correction: bool = True,
    alpha: float = 0.05,
) -> McNemarResult:
    """McNemar's test from the 2x2 table's cells (only the discordant n01, n10 enter the test)."""
    counts = (n00, n01, n10, n11)
    if any(int(c) != c or c < 0 for c in counts):
        raise ValueError(f"cell counts must be non-negative integers, got {counts}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    n00, n01, n10, n11 = (int(c) for c in counts)
    m = n01 + n10
    warnings: list[str] = []
    if exact is None:
        use_exact = m < EXACT_THRESHOLD
        why = f"because n01 + n10 = {m} {'<' if use_exact else '>='} {EXACT_THRESHOLD}"
    else:
        use_exact = bool(exact)
        why = "as requested"
        if not use_exact and 0 < m < EXACT_THRESHOLD:
            warnings.append(
                f"Only {m} discordant items (n01 + n10 < {EXACT_THRESHOLD}): the chi-square "
                "approximation is poor; the exact binomial test is preferable."
            )
    if m == 0:
        warnings.append(
            "No discordant items (n01 = n10 = 0): the two systems are right and wrong on the same items, "
            "so there is no evidence of a difference."
        )

    if use_exact:
        reason = f"exact binomial test {why}"
        statistic = float(min(n01, n10))
        pvalue = 1.0 if m == 0 else float(min(1.0, 2.0 * stats.binom.cdf(min(n01, n10), m, 0.5)))
        return McNemarResult(n00=n00, n01=n01, n10=n10, n11=n11, statistic=statistic, df=None, pvalue=pvalue,
                             exact=True, continuity_correction=False, alpha=float(alpha), critical_value=None,
                             warnings=tuple(warnings), reason=reason)

    critical = float(stats.chi2.ppf(1 - alpha, 1))
    applied = bool(continuity_correction) and n01 != n10
    if applied:
        reason = f"chi-square test with continuity correction {why}"
    elif continuity_correction and m > 0:
        reason = f"chi-square test {why}; no continuity correction because n01 = n10 (as R's mcnemar.test)"
    else:
        reason = f"chi-square test without continuity correction {why}"
    if m == 0:
        warnings.append("The chi-square statistic is 0/0 without discordant items; it is undefined.")
        return McNemarResult(n00=n00, n01=n01, n10=n10, n11=n11, statistic=None, df=1.0, pvalue=None, exact=False,
                             continuity_correction=applied, alpha=float(alpha), critical_value=critical,
                             warnings=tuple(warnings), reason=reason)
    statistic = (abs(n01 - n10) - (1 if applied else 0)) ** 2 / m
    pvalue = float(stats.chi2.sf(statistic, 1))
    return McNemarResult(n00=n00, n01=n01, n10=n10, n11=n11, statistic=float(statistic), df=1.0, pvalue=pvalue,
                         exact=False, continuity_correction=applied, alpha=float(alpha), critical_value=critical,
                         warnings=tuple(warnings), reason=reason)


def cochran_q(correct: np.ndarray) -> CochranQResult:
    """Cochran's Q test that k systems have the same probability of a correct answer.

    ``correct`` is boolean (or 0/1) of shape (n_items, k_systems). Items that every system got right,
    or every system got wrong, carry no information and leave Q unchanged.
    """
    x = np.asarray(correct)
    if x.ndim != 2:
        raise ValueError(f"correct must be 2-D (n_items, k_systems), got shape {x.shape}")
    if x.size and not np.all((x == 0) | (x == 1)):
        raise ValueError("correct must be boolean (or 0/1)")
    n, k = x.shape
    if k < 2:
        raise ValueError("Cochran's Q needs at least two systems")
    x = x.astype(float)
    df = float(k - 1)
    if n == 0:
        return CochranQResult(statistic=None, df=df, pvalue=None, n=0, k=k,
                              warnings=("There are no items, so Q cannot be computed.",))
    col = x.sum(axis=0)
    row = x.sum(axis=1)
    total = col.sum()
    den = k * total - np.sum(row**2)
    if den <= 0:
        return CochranQResult(
            statistic=None, df=df, pvalue=None, n=n, k=k,
            warnings=("Every item was answered correctly by all systems or by none, so Q is 0/0 and undefined: "
             "there is no item on which the systems disagree.",),
        )
    q = (k - 1) * (k * np.sum(col**2) - total**2) / den
    return CochranQResult(statistic=finite_or_none(q), df=df, pvalue=finite_or_none(stats.chi2.sf(q, df)), n=n, k=k)
