"""Tests for two systems evaluated by cross-validation (per-fold scores, a minus b).

Data for one pair: the score of system ``a`` and of system ``b`` on each test fold, arranged
as ``(n_repeats, n_folds)``. Every function returns a :class:`CVTestResult`; ``method`` is one
of the names used in the spec and in results.json:

==========================  ==========================================  ===================
method                      reference                                   null distribution
==========================  ==========================================  ===================
``5x2cv_t``                 Dietterich (1998), section 3.5              t, 5 df
``5x2cv_f``                 Alpaydin (1999)                             F(10, 5)
``kfold_t``                 Dietterich (1998), section 3.4              t, k - 1 df
``corrected_resampled_t``   Nadeau & Bengio (2003), "corrected          t, J - 1 df
                            resampled t"
``resampled_t``             Dietterich (1998), section 3.3              t, J - 1 df
==========================  ==========================================  ===================

Notation (Dietterich 1998): ``p_i^(j) = a[i, j] - b[i, j]`` is the difference on fold ``j`` of
repeat ``i``. Faria's (2017) lecture slides print the 5x2cv statistic; its numerator is
``p_1^(1)``, the *first* fold of the *first* repeat, not a mean (Dietterich 1998, section 3.5:
t = p_1^(1) / sqrt(mean of the five s_i^2), 5 df).

Conventions shared with :class:`~sigreport.stats.result.PairedTestResult`:

* ``estimate`` is always the mean of all fold differences ``a - b``.
* ``critical_value`` follows :func:`sigreport.stats.pairwise.t_critical`: reject when
  ``|t| >= c`` (two-sided, ``c > 0``), ``t >= c`` (``greater``, ``c > 0``) or ``t <= c``
  (``less``, ``c < 0``); for the F test reject when ``F >= c``.
* ``ci_low``/``ci_high`` is the confidence set at level ``ci_level`` (default ``1 - alpha``, obtained by
  inverting the test, so that ``pvalue < alpha`` exactly when the interval excludes 0). For one-sided alternatives
  the interval is one-sided like R's ``t.test`` and scipy's ``TtestResult``: the open end is
  ``-inf``/``+inf`` (``null`` in JSON). For ``5x2cv_t`` the interval is centred on ``p_1^(1)``,
  the test's numerator, not on ``estimate``. ``5x2cv_f`` tests ``mu = 0`` only and has no
  interval: both bounds are always ``None`` (by construction, not because of the data).
* Degenerate data (zero variance, fewer than two differences) give ``None`` and a sentence in
  ``warnings``; wrong shapes, non-finite scores, bad ``alpha``/``alternative``/sizes raise
  :class:`ValueError`.

Tests (``tests/stats/test_cv.py``) check hand computations of the formulas on literal arrays,
mlxtend 0.25.0 (``paired_ttest_5x2cv``, ``combined_ftest_5x2cv``, ``paired_ttest_kfold_cv``,
``paired_ttest_resampled`` driven by stub estimators that replay fixed scores), baycomp 1.0.3
(``CorrelatedTTest.compute_statistics``, the Nadeau-Bengio variance) and R 4.2.2 (``t.test``,
``pt``, ``pf``, ``qt``, ``qf``).

References: T. G. Dietterich (1998), Approximate statistical tests for comparing supervised
classification learning algorithms, Neural Computation 10(7):1895-1923. E. Alpaydin (1999),
Combined 5x2 cv F test for comparing supervised classification learning algorithms, Neural
Computation 11(8):1885-1892. C. Nadeau and Y. Bengio (2003), Inference for the generalization
error, Machine Learning 52:239-281.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from sigreport.stats.lazy import scipy_stats as stats
from sigreport.stats.pairwise import t_critical
from sigreport.stats.result import finite_or_none

ALTERNATIVES = ("two-sided", "greater", "less")

KFOLD_WARNING = (
    "The k-fold cross-validated paired t test treats the fold differences as independent, but "
    "every two folds share most of their training data, so its type I error is above alpha "
    "(Dietterich 1998); prefer the 5x2cv tests or the corrected resampled t test."
)
RESAMPLED_WARNING = (
    "The resampled paired t test ignores that the resamples share training and test items; "
    "its type I error is badly inflated (Dietterich 1998; Nadeau & Bengio 2003). Use the "
    "corrected resampled t test (Nadeau & Bengio 2003) or the 5x2cv tests instead."
)

UNDERFLOW_WARNING = (
    "The spread of the differences a - b is too small to represent in floating point "
    "(its variance underflows to zero), so the statistic is undefined."
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class CVTestResult:
    """One cross-validation comparison of two systems (a minus b).

    ``df`` is set for t tests and ``df1``/``df2`` for the F test; the other is ``None``.
    ``ci_level`` is ``1 - alpha``. ``n_folds``/``n_repeats`` describe the design the scores
    came from (a flat list of J hold-out resamples counts as ``n_folds = 1``,
    ``n_repeats = J``).
    """

    method: str
    statistic: float | None
    df: float | None
    df1: float | None
    df2: float | None
    pvalue: float | None
    alternative: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    critical_value: float | None
    n_folds: int
    n_repeats: int
    warnings: tuple[str, ...] = ()


# --------------------------------------------------------------------------- helpers


def _check_alpha_alternative(alpha: float, alternative: str) -> None:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; known: {', '.join(ALTERNATIVES)}")
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float arrays of equal shape with finite, non-empty content (else ValueError)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    if a.size == 0:
        raise ValueError("a and b hold no scores")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("fold scores must be finite numbers (no NaN or infinity)")
    return a, b


def _noise_tolerance(a: np.ndarray, b: np.ndarray) -> float:
    """Spread of differences a - b that is floating-point noise, not data.

    ``0.1 - 0.3`` and ``0.2 - 0.4`` differ by 2.8e-17; a t statistic built on such a spread
    would be a huge number made of rounding error. Differences are computed with a relative
    error of about one ulp of the larger score, so spreads below 16 ulps count as zero.
    """
    scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    return 16.0 * np.finfo(float).eps * scale


def _t_pvalue(t: float, df: float, alternative: str) -> float:
    if alternative == "two-sided":
        return float(min(1.0, 2.0 * stats.t.sf(abs(t), df)))
    if alternative == "greater":
        return float(stats.t.sf(t, df))
    return float(stats.t.cdf(t, df))


def _t_interval(centre: float, se: float, crit: float, alternative: str) -> tuple[float, float]:
    if alternative == "greater":
        return centre - crit * se, math.inf
    if alternative == "less":
        return -math.inf, centre + crit * se
    return centre - crit * se, centre + crit * se


def _t_result(
    method: str,
    centre: float,
    se: float | None,
    df: float,
    estimate: float,
    alternative: str,
    alpha: float,
    n_folds: int,
    n_repeats: int,
    warnings: tuple[str, ...],
    ci_level: float | None = None,
) -> CVTestResult:
    """Assemble a t-test result; ``se=None`` means the statistic is undefined (warning given). The interval
    is at ``ci_level`` (default ``1 - alpha``, the level at which it is the inverted test)."""
    level = 1.0 - alpha if ci_level is None else float(ci_level)
    crit = t_critical(alpha, df, alternative) if df > 0 else None
    crit_ci = t_critical(1.0 - level, df, alternative) if df > 0 else None
    if se is not None and not (math.isfinite(se) and se > 0.0 and math.isfinite(centre / se)):
        se, warnings = None, (*warnings, UNDERFLOW_WARNING)
    if se is None or crit is None:
        t = p = lo = hi = None
    else:
        t = centre / se
        p = _t_pvalue(t, df, alternative)
        lo, hi = _t_interval(centre, se, abs(crit_ci), alternative)  # type: ignore[arg-type]
    return CVTestResult(
        method=method,
        statistic=finite_or_none(t),
        df=float(df) if df > 0 else None,
        df1=None,
        df2=None,
        pvalue=finite_or_none(p),
        alternative=alternative,
        estimate=finite_or_none(estimate),
        # infinite one-sided bounds are kept (as R and scipy do); to_jsonable writes null
        ci_low=lo,
        ci_high=hi,
        ci_level=level,
        critical_value=finite_or_none(crit),
        n_folds=n_folds,
        n_repeats=n_repeats,
        warnings=warnings,
    )


def _five_by_two(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Differences p (5, 2), per-repeat variances s_i^2 (5,) and the noise tolerance."""
    a, b = _pair(a, b)
    if a.shape != (5, 2):
        raise ValueError(f"5x2cv needs scores of shape (5 repeats, 2 folds), got {a.shape}")
    p = a - b
    pbar = p.mean(axis=1, keepdims=True)
    s2 = ((p - pbar) ** 2).sum(axis=1)
    return p, s2, _noise_tolerance(a, b)


def _within_repeat_constant(p: np.ndarray, tol: float) -> bool:
    """True when both folds of every repeat have the same difference (all s_i^2 are zero)."""
    return bool(np.all(np.abs(p[:, 0] - p[:, 1]) <= tol))


def _resamples(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int, int, float]:
    """Flattened differences of a (n_repeats, n_folds) or flat (J,) design."""
    a, b = _pair(a, b)
    if a.ndim == 1:
        n_repeats, n_folds = a.shape[0], 1
    elif a.ndim == 2:
        n_repeats, n_folds = a.shape
    else:
        raise ValueError(f"scores must have shape (n_repeats, n_folds) or (J,), got {a.shape}")
    return (a - b).ravel(), n_folds, n_repeats, _noise_tolerance(a, b)


def _variance_or_warning(
    d: np.ndarray, tol: float, what: str
) -> tuple[float | None, tuple[str, ...]]:
    """Sample variance (ddof 1) of the differences, or None with the reason."""
    if d.size < 2:
        return None, (f"The t statistic needs at least two {what}; got {d.size}.",)
    if np.ptp(d) <= tol:
        return None, (
            f"All {d.size} {what} a - b are equal, so their variance is zero and the t "
            "statistic is undefined.",
        )
    return float(np.var(d, ddof=1)), ()


# --------------------------------------------------------------------------- tests


def dietterich_5x2cv_t(
    a: np.ndarray, b: np.ndarray, alternative: str = "two-sided", alpha: float = 0.05, ci_level: float | None = None
) -> CVTestResult:
    """Dietterich's 5x2cv paired t test.

    Five repetitions of 2-fold cross-validation; ``a``, ``b`` have shape (5, 2). With
    ``p_i^(j) = a[i, j] - b[i, j]``, ``pbar_i = (p_i^(1) + p_i^(2)) / 2`` and
    ``s_i^2 = (p_i^(1) - pbar_i)^2 + (p_i^(2) - pbar_i)^2``::

        t = p_1^(1) / sqrt(sum_i s_i^2 / 5)      ~ t with 5 df under H0

    (Dietterich 1998, eq. 8; Faria 2017). The confidence interval inverts this test:
    ``p_1^(1) -/+ t_5 * sqrt(mean s_i^2)``. Validated against mlxtend's
    ``paired_ttest_5x2cv`` (same formula) and R's ``pt``/``qt``.
    """
    _check_alpha_alternative(alpha, alternative)
    p, s2, tol = _five_by_two(a, b)
    if _within_repeat_constant(p, tol):
        se, warnings = None, (
            "In every repeat both folds have the same difference a - b, so all five s_i^2 "
            "are zero and the 5x2cv t statistic is undefined.",
        )
    else:
        se, warnings = math.sqrt(float(s2.mean())), ()
    return _t_result(method="5x2cv_t", centre=float(p[0, 0]), se=se, df=5.0, estimate=float(p.mean()),
                     alternative=alternative, alpha=alpha, n_folds=2, n_repeats=5, warnings=warnings, ci_level=ci_level)


def alpaydin_5x2cv_f(a: np.ndarray, b: np.ndarray, alpha: float = 0.05, ci_level: float | None = None
                     ) -> CVTestResult:
    """Alpaydin's combined 5x2cv F test.

    With the notation of :func:`dietterich_5x2cv_t`::

        F = sum_i sum_j (p_i^(j))^2 / (2 * sum_i s_i^2)      ~ F(10, 5) under H0

    p-value = upper tail of F(10, 5) (Alpaydin 1999). Squared differences make the test
    two-sided by construction, so ``alternative`` is always ``'two-sided'``; it tests
    ``mu = 0`` only, so there is no confidence interval (``ci_low``/``ci_high`` are ``None``).
    Validated against mlxtend's ``combined_ftest_5x2cv`` and R's ``pf``/``qf``.
    """
    _check_alpha_alternative(alpha, "two-sided")
    p, s2, tol = _five_by_two(a, b)
    crit = float(stats.f.ppf(1.0 - alpha, 10, 5))
    denominator = 2.0 * float(s2.sum())
    if _within_repeat_constant(p, tol):
        f = pval = None
        warnings: tuple[str, ...] = (
            "In every repeat both folds have the same difference a - b, so the sum of the "
            "s_i^2 is zero and the combined 5x2cv F statistic is undefined.",
        )
    elif not denominator > 0.0:
        f = pval = None
        warnings = (UNDERFLOW_WARNING,)
    else:
        f = float((p**2).sum() / denominator)
        pval = float(stats.f.sf(f, 10, 5))
        warnings = ()
    return CVTestResult(
        method="5x2cv_f",
        statistic=f,
        df=None,
        df1=10.0,
        df2=5.0,
        pvalue=pval,
        alternative="two-sided",
        estimate=float(p.mean()),
        ci_low=None,
        ci_high=None,
        ci_level=1.0 - alpha if ci_level is None else float(ci_level),
        critical_value=crit,
        n_folds=2,
        n_repeats=5,
        warnings=warnings,
    )


def kfold_paired_t(
    a: np.ndarray, b: np.ndarray, alternative: str = "two-sided", alpha: float = 0.05, ci_level: float | None = None
) -> CVTestResult:
    """k-fold cross-validated paired t test (Dietterich 1998, section 3.4).

    ``a``, ``b``: one score per fold, shape (k,) or (1, k). Student's paired t on the k fold
    differences, ``t = mean(d) / (sd(d) / sqrt(k))`` with k - 1 df. Always carries a warning:
    the folds share training data, so the differences are not independent and the test's
    type I error exceeds alpha (Dietterich 1998). Validated against R's ``t.test(a, b,
    paired = TRUE)`` and mlxtend's ``paired_ttest_kfold_cv``.
    """
    _check_alpha_alternative(alpha, alternative)
    a, b = _pair(a, b)
    if a.ndim == 2 and a.shape[0] == 1:
        a, b = a[0], b[0]
    if a.ndim != 1:
        raise ValueError(
            f"kfold_paired_t needs one score per fold, shape (k,) or (1, k), got {a.shape}; "
            "for repeated cross-validation use corrected_resampled_t"
        )
    d = a - b
    k = d.size
    var, warnings = _variance_or_warning(d, _noise_tolerance(a, b), "fold differences")
    se = None if var is None else math.sqrt(var / k)
    return _t_result(method="kfold_t", centre=float(d.mean()), se=se, df=float(k - 1), estimate=float(d.mean()),
                     alternative=alternative, alpha=alpha, n_folds=k, n_repeats=1, warnings=(KFOLD_WARNING, *warnings),
                     ci_level=ci_level)


def corrected_resampled_t(
    a: np.ndarray,
    b: np.ndarray,
    n_train: float,
    n_test: float,
    alternative: str = "two-sided",
    alpha: float = 0.05,
    ci_level: float | None = None,
) -> CVTestResult:
    """Nadeau & Bengio's corrected resampled t test.

    ``a``, ``b``: shape (n_repeats, n_folds) for repeated k-fold cross-validation or flat (J,)
    for J random train/test splits; all J = n_repeats * n_folds differences are used::

        t = mean(d) / sqrt((1/J + n_test/n_train) * var(d, ddof=1))      ~ t with J - 1 df

    (Nadeau & Bengio 2003, the "corrected resampled t"; Bouckaert & Frank 2004 use it for
    repeated k-fold, where ``n_test/n_train = 1/(k-1)``). ``n_train`` and ``n_test`` are the
    numbers of training and test items in one split. Validated against baycomp's
    ``CorrelatedTTest.compute_statistics`` (the same corrected variance) and R's ``pt``.
    """
    _check_alpha_alternative(alpha, alternative)
    if not (np.isfinite(n_train) and np.isfinite(n_test) and n_train > 0 and n_test > 0):
        raise ValueError(f"n_train and n_test must be positive, got {n_train!r} and {n_test!r}")
    d, n_folds, n_repeats, tol = _resamples(a, b)
    J = d.size
    var, warnings = _variance_or_warning(d, tol, "resample differences")
    se = None if var is None else math.sqrt((1.0 / J + float(n_test) / float(n_train)) * var)
    return _t_result(method="corrected_resampled_t", centre=float(d.mean()), se=se, df=float(J - 1),
                     estimate=float(d.mean()), alternative=alternative, alpha=alpha, n_folds=n_folds,
                     n_repeats=n_repeats, warnings=warnings, ci_level=ci_level)


def resampled_t(
    a: np.ndarray, b: np.ndarray, alternative: str = "two-sided", alpha: float = 0.05, ci_level: float | None = None
) -> CVTestResult:
    """The plain resampled paired t test (Dietterich 1998, section 3.3), with its warning.

    ``a``, ``b``: shape (n_repeats, n_folds) or flat (J,). Student's paired t on the J
    differences, ``t = mean(d) / sqrt(var(d, ddof=1) / J)``, J - 1 df. The warning that its
    type I error is badly inflated (Dietterich 1998; Nadeau & Bengio 2003) is always in
    ``warnings``; Faria's (2017) slides present this test without it. Validated against R's
    ``t.test`` and mlxtend's ``paired_ttest_resampled``.
    """
    _check_alpha_alternative(alpha, alternative)
    d, n_folds, n_repeats, tol = _resamples(a, b)
    J = d.size
    var, warnings = _variance_or_warning(d, tol, "resample differences")
    se = None if var is None else math.sqrt(var / J)
    return _t_result(method="resampled_t", centre=float(d.mean()), se=se, df=float(J - 1), estimate=float(d.mean()),
                     alternative=alternative, alpha=alpha, n_folds=n_folds, n_repeats=n_repeats,
                     warnings=(RESAMPLED_WARNING, *warnings), ci_level=ci_level)
