"""The automatic choice of test (``pairwise: auto``, ``omnibus: auto``), every step recorded.

Each decision is one small function that returns a :class:`Selection`: the chosen method, the
ordered checks that led to it (what was measured, against which threshold, with what outcome)
and a one-sentence reason. results.json stores the steps and the report shows them under
"why this test". Sentences carry no formatted numbers; the numbers are in ``value`` and
``threshold`` so every output format can format them its own way.

The rules (the n >= 30 rule and Shapiro-Wilk come from Leite and Rino 2009, who state the rule
as n > 30; sigreport uses n >= 30; the omnibus and post-hoc choices follow Demšar 2006):

* :func:`choose_pairwise`: paired t when there are at least 30 items (the mean difference is
  then close to normal by the central limit theorem and normality is not tested), or when the
  differences of *every* pair in the family pass Shapiro-Wilk at alpha; otherwise Wilcoxon for
  the whole family, so that all pairs of one family are compared by the same test.
* :func:`choose_omnibus`: no omnibus test for fewer than three systems; RM-ANOVA (whose
  sphericity rule is applied inside the RM-ANOVA result) when there are at least 30 items or
  the residuals of the additive items + systems model pass Shapiro-Wilk at alpha; otherwise
  Friedman.
* :func:`posthoc_for`: after RM-ANOVA, ``paired`` t tests with the spec's correction (never an
  independent-groups Tukey test); after Friedman, Nemenyi for all pairs and Bonferroni-Dunn
  against a baseline (Demšar 2006, section 3.2.2).

A Shapiro-Wilk check *passes* when its p-value is at least alpha (no evidence against
normality) and *fails* when p < alpha. When it cannot be computed (fewer than 3 values, or
values that are all equal) it counts as not passed: the parametric test is chosen only on
positive grounds. Step outcomes start with one of the words ``pass``, ``fail``,
``undefined`` or ``chosen``, followed by a plain-English explanation.

Tests (``tests/stats/test_select.py``) drive every branch with constructed data and check the
recorded Shapiro-Wilk p-values against R's ``shapiro.test``.
"""

from __future__ import annotations

import dataclasses
import warnings as _warnings
from collections.abc import Sequence

import numpy as np

from sigreport.stats.correction import METHODS as CORRECTIONS
from sigreport.stats.lazy import scipy_stats as stats

#: Items from which the t test / RM-ANOVA is used without a normality check (CLT rule).
MIN_ITEMS_CLT = 30
#: Fewest systems for an omnibus test.
MIN_SYSTEMS_OMNIBUS = 3
#: Above this many values scipy's Shapiro-Wilk p-value is an approximation (scipy, R cap).
SHAPIRO_MAX_N = 5000

COMPARISONS = ("all_pairs", "vs_baseline")
OMNIBUS_METHODS = ("rm_anova", "friedman")


@dataclasses.dataclass(frozen=True, kw_only=True)
class SelectionStep:
    """One check of a decision: ``value`` compared with ``threshold`` gave ``outcome``."""

    check: str
    value: float | None
    threshold: float | None
    outcome: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Selection:
    """The chosen method, the checks that led to it (in order) and why."""

    method: str
    steps: tuple[SelectionStep, ...]
    reason: str


# --------------------------------------------------------------------------- helpers


def _check_alpha(alpha: float) -> None:
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")


def _finite_matrix(x: np.ndarray, name: str, allow_no_rows: bool = False) -> np.ndarray:
    """``x`` as a finite 2-D float array; ``allow_no_rows``: zero rows (every item dropped) is fine."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or (x.shape[0] == 0 and not allow_no_rows) or x.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite numbers (no NaN or infinity)")
    return x


def _is_constant(x: np.ndarray, scale: float, axis: int | None = None) -> np.ndarray:
    """Spread at most a few ulps of ``scale``: floating-point noise, not variation."""
    return np.ptp(x, axis=axis) <= 64.0 * np.finfo(float).eps * scale


def _shapiro_pvalues(x: np.ndarray) -> np.ndarray:
    """Shapiro-Wilk p of each column of ``x`` (``scipy.stats.shapiro``); columns must vary.

    W is location-scale invariant, so each column is first centred on its median and divided
    by its range: scipy (like AS R94) treats an absolute range below 1e-19 as zero and would
    return p = 1 for real but tiny differences. scipy's note that p is approximate above 5000
    values is silenced here; callers record that fact in the step instead.
    """
    z = x - np.median(x, axis=0)
    z = z / np.ptp(z, axis=0)
    with _warnings.catch_warnings():
        _warnings.filterwarnings("ignore", message=".*N > 5000", category=UserWarning)
        return np.atleast_1d(np.asarray(stats.shapiro(z, axis=0).pvalue, dtype=float))


def _shapiro_step(check: str, p: float, alpha: float, n_values: int) -> SelectionStep:
    if not np.isfinite(p):  # defensive: scipy returned no p-value
        return SelectionStep(
            check=check, value=None, threshold=float(alpha),
            outcome="undefined: Shapiro-Wilk returned no p-value, so the check is not passed",
        )
    note = (
        "; with more than 5000 values scipy's p-value is approximate"
        if n_values > SHAPIRO_MAX_N
        else ""
    )
    if p >= alpha:
        outcome = "pass: p >= alpha, no evidence against normality" + note
    else:
        outcome = "fail: p < alpha, the values do not look normal" + note
    return SelectionStep(check=check, value=float(p), threshold=float(alpha), outcome=outcome)


def _no_items(method: str, steps: tuple[SelectionStep, ...], why: str) -> Selection:
    """The choice when no item is left (for example ``missing: drop_items`` dropped them all)."""
    step = SelectionStep(check="items left to check", value=0.0, threshold=None,
                         outcome="undefined: no item is left, so no check can be run and no test gives a value")
    return Selection(method=method, steps=(*steps, step), reason=f"{method}: no items to analyse; {why}")


def _items_step(n: int, what: str) -> SelectionStep:
    if n >= MIN_ITEMS_CLT:
        outcome = (
            f"pass: at least {MIN_ITEMS_CLT} items, so the {what} is robust to non-normality "
            "by the central limit theorem and normality is not tested"
        )
    else:
        outcome = f"fail: fewer than {MIN_ITEMS_CLT} items, so normality must be checked"
    return SelectionStep(check="number of items n", value=float(n), threshold=float(MIN_ITEMS_CLT), outcome=outcome)


# --------------------------------------------------------------------------- decisions


def choose_pairwise(
    differences: np.ndarray, alpha: float = 0.05, *, labels: Sequence[str] | None = None,
    empty_ok: bool = False,
) -> Selection:
    """Paired t or Wilcoxon for a family of pairs (Leite and Rino 2009: Shapiro-Wilk and the n >= 30 rule).

    ``differences``: shape (n_items, n_pairs), column j holding a - b of pair j on every item
    (a 1-D array is one pair). Pass them as the pairwise tests see them (rounded to the
    metric's precision); a column whose spread is floating-point noise counts as constant.
    ``labels`` name the pairs in the recorded checks (default ``pair 1``, ``pair 2``, ...).
    ``empty_ok``: zero items (every item dropped) gives a recorded "no items" choice instead of a
    ValueError; the tests then report null values with their own warnings.

    Rule: paired t when n >= 30 (no normality test is run), or when every column passes
    Shapiro-Wilk at ``alpha``; otherwise Wilcoxon signed-ranks for the whole family. A column
    that Shapiro-Wilk cannot judge (n < 3, or all differences equal, where the t statistic is
    itself undefined) counts as not passing. Steps: the item count, then (n < 30) one
    Shapiro-Wilk step per pair, then the family rule.
    """
    _check_alpha(alpha)
    d = np.asarray(differences, dtype=float)
    d = _finite_matrix(d[:, None] if d.ndim == 1 else d, "differences", allow_no_rows=empty_ok)
    n, n_pairs = d.shape
    if labels is None:
        labels = [f"pair {j + 1}" for j in range(n_pairs)]
    if len(labels) != n_pairs:
        raise ValueError(f"{len(labels)} labels for {n_pairs} pairs")
    if n == 0:
        return _no_items("wilcoxon", (_items_step(n, "paired t test"),),
                         "the rank test is kept as for any family whose normality cannot be shown")

    first = _items_step(n, "paired t test")
    if n >= MIN_ITEMS_CLT:
        return Selection(
            method="paired_t",
            steps=(first,),
            reason="paired_t: there are at least 30 items, so the paired t test is used without a "
            "normality check (rule: Shapiro-Wilk at alpha, or n >= 30)",
        )
    steps, passed = _pair_normality_steps(d, labels, alpha)
    return _family_rule((first, *steps), passed, labels)


def _pair_normality_steps(
    d: np.ndarray, labels: Sequence[str], alpha: float
) -> tuple[list[SelectionStep], np.ndarray]:
    """One recorded Shapiro-Wilk step per pair (column of ``d``), and which pairs pass it; a pair with fewer
    than 3 items or constant differences is undefined and does not pass. The p-values are computed at once."""
    n, n_pairs = d.shape
    checks = [f"Shapiro-Wilk p of the differences, {label}" for label in labels]
    scale = max(float(np.max(np.abs(d))), np.finfo(float).tiny)
    constant = _is_constant(d, scale, axis=0)
    pvalues = np.full(n_pairs, np.nan)
    testable = ~constant if n >= 3 else np.zeros(n_pairs, dtype=bool)
    if testable.any():
        pvalues[testable] = _shapiro_pvalues(d[:, testable])

    steps = []
    for j in range(n_pairs):  # one recorded step per pair; the statistics above are vectorised
        if n < 3:
            steps.append(SelectionStep(
                check=checks[j], value=None, threshold=float(alpha),
                outcome="undefined: Shapiro-Wilk needs at least 3 items, so normality cannot be "
                "shown and the check is not passed",
            ))
        elif constant[j]:
            steps.append(SelectionStep(
                check=checks[j], value=None, threshold=float(alpha),
                outcome="undefined: the differences are all equal (zero variance), so Shapiro-Wilk "
                "and the t statistic are undefined; the check is not passed",
            ))
        else:
            steps.append(_shapiro_step(checks[j], pvalues[j], alpha, n))
    return steps, np.isfinite(pvalues) & (pvalues >= alpha)


def _family_rule(steps: tuple[SelectionStep, ...], passed: np.ndarray, labels: Sequence[str]) -> Selection:
    """Paired t when every pair passed its normality check, else Wilcoxon for the whole family."""
    n_pairs = passed.size
    n_pass = int(passed.sum())
    if n_pass == n_pairs:
        rule = SelectionStep(
            check="pairs whose differences pass the normality check", value=float(n_pass),
            threshold=float(n_pairs), outcome="chosen: every pair passes, so the paired t test for the family",
        )
        return Selection(
            method="paired_t", steps=(*steps, rule),
            reason="paired_t: fewer than 30 items, and the differences of every pair pass "
            "Shapiro-Wilk at alpha",
        )
    failing = ", ".join(label for label, ok in zip(labels, passed) if not ok)
    rule = SelectionStep(
        check="pairs whose differences pass the normality check", value=float(n_pass), threshold=float(n_pairs),
        outcome="chosen: not every pair passes, so the Wilcoxon signed-ranks test for the whole "
        "family (one method per family keeps its pairs comparable)",
    )
    return Selection(
        method="wilcoxon", steps=(*steps, rule),
        reason=f"wilcoxon: fewer than 30 items, and the differences of {failing} do not pass "
        "Shapiro-Wilk at alpha; one test serves the whole family",
    )


def additive_residuals(scores: np.ndarray) -> np.ndarray:
    """Residuals of the two-way additive model items + systems without interaction.

    ``r_ij = x_ij - mean_i. - mean_.j + mean_..`` for scores of shape (n_items, k). These are
    the error terms of the repeated-measures ANOVA (item = subject, system = condition).
    """
    x = np.asarray(scores, dtype=float)
    return x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()


def choose_omnibus(scores: np.ndarray, alpha: float = 0.05, *, empty_ok: bool = False) -> Selection:
    """RM-ANOVA, Friedman or none for k systems on the same items.

    ``scores``: shape (n_items, k). Rule:

    1. fewer than 3 systems: ``'none'`` (the pair goes to the pairwise test);
    2. n >= 30 items: ``'rm_anova'`` without a normality test, the same central-limit rule as
       the pairwise choice (each system's mean is over n items; with thousands of items
       Shapiro-Wilk rejects trivial departures and would always pick Friedman);
    3. otherwise Shapiro-Wilk on all n * k residuals of the additive model
       (:func:`additive_residuals`) at ``alpha``: pass gives ``'rm_anova'``, fail gives
       ``'friedman'``; residuals that are all zero (the data are exactly additive, the
       ANOVA's error variance is zero) give ``'friedman'``.

    The residuals are pooled although they are not independent (each row and column sums to
    zero): it is the usual diagnostic of an ANOVA's normality assumption. All residuals are
    used, never a subsample; with n < 30 there are more than 5000 of them only when k > 172,
    and then the step notes that scipy's p-value is approximate. The sphericity rule
    (Mauchly's test, then Greenhouse-Geisser or Huynh-Feldt) belongs to the RM-ANOVA result,
    not to this choice. ``empty_ok``: as for :func:`choose_pairwise`.
    """
    _check_alpha(alpha)
    x = _finite_matrix(scores, "scores", allow_no_rows=empty_ok)
    n, k = x.shape
    systems = SelectionStep(
        check="number of systems k", value=float(k), threshold=float(MIN_SYSTEMS_OMNIBUS),
        outcome="pass: three or more systems, an omnibus test applies" if k >= MIN_SYSTEMS_OMNIBUS
        else "fail: fewer than three systems, no omnibus test",
    )
    if k < MIN_SYSTEMS_OMNIBUS:
        return Selection(
            method="none", steps=(systems,),
            reason="none: an omnibus test needs at least three systems; the pair is compared by the "
            "pairwise test",
        )
    items = _items_step(n, "RM-ANOVA")
    if n == 0:
        return _no_items("friedman", (systems, items), "the rank test is kept as when the residuals cannot be "
                         "checked")
    if n >= MIN_ITEMS_CLT:
        return Selection(
            method="rm_anova", steps=(systems, items),
            reason="rm_anova: there are at least 30 items, so RM-ANOVA is used without a normality "
            "check; its sphericity rule decides the correction",
        )
    resid = additive_residuals(x).ravel()
    check = "Shapiro-Wilk p of the residuals of the additive items + systems model"
    if bool(_is_constant(resid, max(float(np.max(np.abs(x))), np.finfo(float).tiny))):
        normality = SelectionStep(
            check=check, value=None, threshold=float(alpha),
            outcome="undefined: the residuals are all zero (the scores are exactly additive), so "
            "Shapiro-Wilk and the ANOVA's error variance are undefined; the check is not "
            "passed",
        )
        return Selection(
            method="friedman", steps=(systems, items, normality),
            reason="friedman: fewer than 30 items, and the residuals cannot be checked for "
            "normality because they are all zero",
        )
    normality = _shapiro_step(check, float(_shapiro_pvalues(resid)[0]), alpha, resid.size)
    if normality.outcome.startswith("pass"):
        return Selection(
            method="rm_anova", steps=(systems, items, normality),
            reason="rm_anova: fewer than 30 items, and the residuals pass Shapiro-Wilk at alpha; "
            "its sphericity rule decides the correction",
        )
    return Selection(
        method="friedman", steps=(systems, items, normality),
        reason="friedman: fewer than 30 items, and the residuals do not pass Shapiro-Wilk at alpha",
    )


def posthoc_for(
    omnibus_method: str, comparisons: str = "all_pairs", *, correction: str | None = None
) -> Selection:
    """The post-hoc procedure that fits the omnibus test.

    * ``rm_anova`` -> ``paired``: paired t tests (all pairs, or each system against the
      baseline) with the family's correction (``correction``, named in the reason when
      given). Never an independent-groups Tukey HSD: it ignores that all systems scored the
      same items (a flaw of autorank, Herbold 2020).
    * ``friedman`` -> ``nemenyi`` for ``all_pairs``, ``bonferroni_dunn`` for ``vs_baseline``
      (Demšar 2006, section 3.2.2).

    Whether a post-hoc runs at all (for example only after a significant omnibus test) is the
    plan's decision, not this function's.
    """
    if omnibus_method not in OMNIBUS_METHODS:
        raise ValueError(
            f"unknown omnibus method {omnibus_method!r}; known: {', '.join(OMNIBUS_METHODS)}"
        )
    if comparisons not in COMPARISONS:
        raise ValueError(f"unknown comparisons {comparisons!r}; known: {', '.join(COMPARISONS)}")
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}; known: {', '.join(CORRECTIONS)}")
    scope = "all pairs" if comparisons == "all_pairs" else "each system against the baseline"
    omnibus = SelectionStep(
        check="omnibus test", value=None, threshold=None,
        outcome="chosen: " + ("parametric (RM-ANOVA), so a paired parametric post-hoc"
                      if omnibus_method == "rm_anova"
                      else "rank-based (Friedman), so a post-hoc on average ranks"),
    )
    family = SelectionStep(check="comparisons", value=None, threshold=None, outcome=f"chosen: {comparisons} ({scope})")
    if omnibus_method == "rm_anova":
        corr = f"the {correction} correction" if correction else "the spec's correction"
        return Selection(
            method="paired", steps=(omnibus, family),
            reason=f"paired: after RM-ANOVA, paired t tests for {scope} with {corr}; never an "
            "independent-groups Tukey test, which ignores that the systems scored the same "
            "items",
        )
    if comparisons == "all_pairs":
        return Selection(
            method="nemenyi", steps=(omnibus, family),
            reason="nemenyi: after Friedman, all pairs are compared by the Nemenyi test on average "
            "ranks (Demšar 2006)",
        )
    return Selection(
        method="bonferroni_dunn", steps=(omnibus, family),
        reason="bonferroni_dunn: after Friedman, each system is compared with the baseline by the "
        "Bonferroni-Dunn test on average ranks (Demšar 2006)",
    )
