"""Inter-annotator agreement: Cohen's kappa (plain and weighted), Fleiss' kappa, Krippendorff's alpha.

Conventions shared by every function here:

* Ratings are integer label codes ``0..n_labels-1`` (Cohen, Fleiss; ``-1`` = missing) or floats with
  NaN for missing (Krippendorff). For ordinal labels the code order is the label order.
* Every result is an :class:`AgreementResult`; ``interpretation`` is the Landis & Koch (1977) band of
  ``value`` (:func:`landis_koch`).
* Bootstrap intervals resample items with replacement (percentile method, ``numpy.quantile`` default
  interpolation). Each statistic is a sum over items of a per-item feature vector, so the
  resampled sums are drawn at once as Multinomial(n, share of each distinct item profile) counts
  times the profiles: exactly the distribution of resampled items, one matrix product, no loop.
  Resamples where the statistic is undefined (chance agreement 1) are left out (warned).

References and what the tests check:

* Cohen (1960) kappa; Cohen (1968) weighted kappa with linear (Cicchetti & Allison 1971) and quadratic
  (Fleiss & Cohen 1973) agreement weights 1 - |i-j|/(K-1) and 1 - (i-j)^2/(K-1)^2, K = the declared
  number of labels. ``se`` is the large-sample standard error *under the alternative*
  (Fleiss, Cohen & Everitt 1969, eq. for weighted kappa; identity weights give the unweighted one):
  var = [sum_ij p_ij (w_ij - (wbar_i. + wbar_.j)(1 - kappa))^2 - (kappa - p_e (1 - kappa))^2]
  / (n (1 - p_e)^2). This is vcd::Kappa's ASE and, for unweighted kappa, psych::cohen.kappa's
  var.kappa (its weighted variance differs: psych sums the row weights as p_i. * sum_j w_ij instead
  of sum_i w_ij p_i.). The Wald interval kappa +- z se is clipped to [-1, 1] as vcd/psych do.
  Tests: the worked examples of Matos et al. (2009), vcd 1.4.11 ``Kappa``/``confint`` and psych 2.2.9 ``cohen.kappa``.
* Fleiss (1971) kappa for m raters per item. Fleiss' kappa assumes the same raters rate every item, so
  annotators with no ratings are dropped and then only items rated by all remaining annotators are
  used (as R irr::kappam.fleiss, which calls ``na.omit``); both are counted in ``warnings``.
  ``se_null`` is the standard error under kappa = 0 of Fleiss, Nee & Landis (1979), the one
  irr::kappam.fleiss uses for its z test. ``se`` is the standard error under the alternative by
  linearisation over items (Gwet 2014, Handbook of Inter-Rater Reliability, 4th ed., ch. 5; the
  R/Python irrCAC ``fleiss.kappa.raw`` formula without finite-population correction); the Wald
  interval uses ``se`` and the normal quantile. Tests: irr's documented ``diagnoses`` example
  (kappa 0.430, z 17.7, via the pyirr port) and irrCAC 0.4.4.
* Krippendorff's alpha from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's
  alpha-reliability", sections A-C): o_ck = sum_u (number of c-k pairs in unit u) / (m_u - 1) over
  units with m_u >= 2 values (pairable); alpha = 1 - (n - 1) sum o_ck d2_ck / sum n_c n_k d2_ck with
  d2 = 1[c != k] (nominal), (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 (ordinal), (c - k)^2 (interval).
  There is no closed-form SE; ``se`` is the bootstrap standard deviation and the interval is the
  bootstrap percentile interval over units (not Krippendorff's own bootstrap of pairable values).
  Tests: the paper's 4-observer x 12-unit example (nominal .743, ordinal .815, interval .849) and
  the ``krippendorff`` 0.9.0 and pyirr (port of irr::kripp.alpha) packages.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from sigreport.stats.lazy import scipy_stats as stats
from sigreport.stats.result import finite_or_none

LEVELS = ("nominal", "ordinal", "interval")
WEIGHTS = (None, "linear", "quadratic")
_EPS = 1e-12
Interval = tuple[float | None, float | None]


@dataclasses.dataclass(frozen=True, kw_only=True)
class AgreementResult:
    """One agreement coefficient.

    ``observed_agreement`` / ``expected_agreement``: P(A) and P(E) (weighted ones for weighted kappa;
    for Krippendorff's alpha 1 - D_o and 1 - D_e at the nominal level, ``None`` at the ordinal and
    interval levels, where only the disagreement ratio is meaningful). ``se``: standard error under
    the alternative (bootstrap SD for alpha); ``se_null``: standard error under "no agreement beyond
    chance" where the method has one (Fleiss' kappa), else ``None``. ``ci_low``/``ci_high`` at
    ``ci_level`` by ``ci_method`` (``'wald'`` from ``se``, ``'bootstrap_percentile'``, or ``'none'``);
    ``bootstrap_ci_low``/``_high`` is the percentile bootstrap interval over items.
    ``annotators`` are the names whose ratings entered the value; ``n_items`` the items used.
    """

    measure: str
    level: str
    annotators: tuple[str, ...]
    value: float | None
    observed_agreement: float | None
    expected_agreement: float | None
    se: float | None
    se_null: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: str
    bootstrap_ci_low: float | None
    bootstrap_ci_high: float | None
    interpretation: str | None
    n_items: int
    warnings: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Landis & Koch


def landis_koch(value: float | None) -> str | None:
    """Landis & Koch (1977) band of an agreement value, on the unrounded value.

    value < 0: 'poor'; 0 <= value <= 0.20: 'slight'; 0.20 < value <= 0.40: 'fair';
    0.40 < value <= 0.60: 'moderate'; 0.60 < value <= 0.80: 'substantial'; value > 0.80:
    'almost perfect'. (The printed bands 0.21-0.40 etc. are these intervals at two decimals.)
    ``None`` or NaN gives ``None``.
    """
    v = finite_or_none(value)
    if v is None:
        return None
    if v < 0:
        return "poor"
    for upper, band in ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial")):
        if v <= upper:
            return band
    return "almost perfect"


# ---------------------------------------------------------------------------------------------
# helpers


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _bootstrap_sums(features: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of ``features`` (n, F) over ``n_resamples`` item resamples, shape (B, F).

    Equal rows are pooled: drawing n items with replacement puts Multinomial(n, count/n) draws on the
    distinct rows, so the resampled sums are ``draws @ unique_rows``.
    """
    n = features.shape[0]
    uniq, counts = np.unique(features, axis=0, return_counts=True)
    draws = rng.multinomial(n, counts / n, size=n_resamples)
    return draws @ uniq


def _percentile(samples: np.ndarray, level: float) -> tuple[float | None, float | None, int]:
    """Percentile interval of a 1-D sample ignoring NaN; also the number of NaN resamples."""
    bad = int(np.sum(~np.isfinite(samples)))
    ok = samples[np.isfinite(samples)]
    if ok.size == 0:
        return None, None, bad
    lo, hi = np.quantile(ok, [(1 - level) / 2, 1 - (1 - level) / 2])
    return finite_or_none(lo), finite_or_none(hi), bad


def _bootstrap_note(bad: int, n_resamples: int, what: str) -> list[str]:
    if not bad:
        return []
    return [f"{bad} of {n_resamples} bootstrap resamples left {what} undefined (0/0: no disagreement "
            "expected by chance); the bootstrap interval uses the others."]


def _check_common(alpha_ci: float, n_resamples: int) -> None:
    if not 0 < alpha_ci < 1:
        raise ValueError("alpha_ci must be in (0, 1)")
    if n_resamples < 0:
        raise ValueError("n_resamples must be >= 0")


def _codes(x: np.ndarray, n_labels: int, name: str, ndim: int) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer) and not np.all(np.equal(np.mod(a, 1), 0)):
        raise ValueError(f"{name} must hold integer label codes (-1 for missing)")
    a = a.astype(np.int64)
    if a.size and (a.min() < -1 or a.max() >= n_labels):
        raise ValueError(f"{name} holds codes outside -1..{n_labels - 1}")
    return a


def _weight_matrix(n_labels: int, weights: str | None) -> np.ndarray:
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}; known: None, 'linear', 'quadratic'")
    if weights is None or n_labels == 1:
        return np.eye(n_labels)
    d = np.abs(np.subtract.outer(np.arange(n_labels), np.arange(n_labels))) / (n_labels - 1)
    return 1.0 - d if weights == "linear" else 1.0 - d**2


def _kappa_parts(p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(A), P(E), kappa for proportion tables p of shape (..., K, K); kappa NaN where P(E) = 1."""
    po = np.sum(w * p, axis=(-2, -1))
    rows = p.sum(axis=-1)
    cols = p.sum(axis=-2)
    pe = np.einsum("...i,ij,...j->...", rows, w, cols)
    den = 1.0 - pe
    kappa = np.full(np.shape(po), np.nan)
    np.divide(po - pe, den, out=kappa, where=den > _EPS)
    return po, pe, kappa


def _fce_variance(p: np.ndarray, w: np.ndarray, pe: float, kappa: float, n: int) -> float:
    """Fleiss, Cohen & Everitt (1969) large-sample variance of (weighted) kappa, non-null case."""
    rows = p.sum(axis=1)
    cols = p.sum(axis=0)
    wbar_row = w @ cols  # wbar_i. = sum_j w_ij p_.j
    wbar_col = w.T @ rows  # wbar_.j = sum_i w_ij p_i.
    term = w - (wbar_row[:, None] + wbar_col[None, :]) * (1.0 - kappa)
    first = float(np.sum(p * term**2))
    second = (kappa - pe * (1.0 - kappa)) ** 2
    num = first - second
    if abs(num) <= 1e-12 * max(first, second):
        num = 0.0  # a zero variance computed as the rounding residue of two equal terms
    return float(num / (n * (1.0 - pe) ** 2))


def _wald(value: float, se: float, level: float) -> tuple[float, float]:
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    return max(-1.0, value - z * se), min(1.0, value + z * se)


def _label_name(code: int, labels: Sequence[str] | None) -> str:
    return f"'{labels[code]}'" if labels is not None else f"code {code}"


# ---------------------------------------------------------------------------------------------
# Cohen


def agreement_matrix(labels1: np.ndarray, labels2: np.ndarray, n_labels: int) -> np.ndarray:
    """K x K counts of items: rows = annotator 1's label, columns = annotator 2's label.

    Items where either label is missing (-1) are not counted.
    """
    a = _codes(labels1, n_labels, "labels1", 1)
    b = _codes(labels2, n_labels, "labels2", 1)
    if a.shape != b.shape:
        raise ValueError(f"labels1 and labels2 differ in length ({a.size} vs {b.size})")
    keep = (a >= 0) & (b >= 0)
    idx = a[keep] * n_labels + b[keep]
    return np.bincount(idx, minlength=n_labels * n_labels).reshape(n_labels, n_labels)


def _cohen_from_table(
    table: np.ndarray,
    weights: str | None,
    annotators: tuple[str, ...],
    alpha_ci: float,
    n_resamples: int,
    rng: np.random.Generator,
    labels: Sequence[str] | None,
    warnings: list[str],
) -> AgreementResult:
    k = table.shape[0]
    w = _weight_matrix(k, weights)
    measure = "cohen_kappa" if weights is None else f"weighted_kappa_{weights}"
    level = "nominal" if weights is None else "ordinal"
    level_ci = 1.0 - alpha_ci
    n = int(table.sum())

    def result(
        value: float | None = None,
        po: float | None = None,
        pe: float | None = None,
        se: float | None = None,
        ci: Interval = (None, None),
        boot: Interval = (None, None),
    ) -> AgreementResult:
        return AgreementResult(
            measure=measure, level=level, annotators=annotators, value=finite_or_none(value),
            observed_agreement=finite_or_none(po), expected_agreement=finite_or_none(pe),
            se=finite_or_none(se), se_null=None, ci_low=finite_or_none(ci[0]), ci_high=finite_or_none(ci[1]),
            ci_level=level_ci, ci_method="wald", bootstrap_ci_low=boot[0], bootstrap_ci_high=boot[1],
            interpretation=landis_koch(value), n_items=n, warnings=tuple(dict.fromkeys(warnings)),
        )

    if n == 0:
        warnings.append(f"No item was rated by both annotators {annotators[0]} and {annotators[1]}, "
                        "so kappa cannot be computed.")
        return result()
    p = table / n
    po, pe, kappa = (float(x) for x in _kappa_parts(p, w))
    if not np.isfinite(kappa):
        used = np.flatnonzero(p.sum(axis=0) + p.sum(axis=1))
        what = (f"both annotators gave every item the same label {_label_name(int(used[0]), labels)}"
                if used.size == 1 else "the chance agreement is 1")
        warnings.append(f"Kappa is undefined (0/0): {what}, so chance agreement P(E) = 1 "
                        "and there is no disagreement left to correct for.")
        return result(po=po, pe=pe)
    if n == 1:
        warnings.append("Only one item is rated by both annotators: kappa describes a single item "
                        "and its standard error and intervals are not meaningful.")
    var = _fce_variance(p, w, pe, kappa, n)
    if var < 0 and var > -_EPS:
        var = 0.0
    se: float | None
    ci: Interval
    if var < 0 or not np.isfinite(var):
        se, ci = None, (None, None)
        warnings.append("The asymptotic variance of kappa came out negative (sparse table), so no "
                        "standard error or Wald interval is given.")
    else:
        se = float(np.sqrt(var))
        ci = _wald(kappa, se, level_ci)
        if se == 0.0:
            warnings.append("The asymptotic standard error is 0 (as with perfect agreement or a single item), so "
                            "the Wald interval has zero width; see the bootstrap interval.")
    boot: Interval = (None, None)
    if n_resamples > 0:
        draws = rng.multinomial(n, p.ravel(), size=n_resamples).reshape(n_resamples, k, k) / n
        _, _, kb = _kappa_parts(draws, w)
        lo, hi, bad = _percentile(kb, level_ci)
        boot = (lo, hi)
        warnings.extend(_bootstrap_note(bad, n_resamples, "kappa"))
    return result(kappa, po, pe, se, ci, boot)


def cohen_kappa_from_matrix(
    matrix: np.ndarray,
    weights: str | None = None,
    annotators: tuple[str, str] = ("1", "2"),
    alpha_ci: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    labels: Sequence[str] | None = None,
) -> AgreementResult:
    """Cohen's kappa from a K x K agreement table of counts (either orientation: kappa is symmetric)."""
    _check_common(alpha_ci, n_resamples)
    t = np.asarray(matrix)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 1:
        raise ValueError(f"matrix must be square K x K, got shape {t.shape}")
    if np.any(t < 0) or not np.all(np.equal(np.mod(t, 1), 0)):
        raise ValueError("matrix must hold non-negative integer counts")
    return _cohen_from_table(t.astype(np.int64), weights, tuple(annotators), alpha_ci, n_resamples,
                             _rng(seed), labels, [])


def cohen_kappa(
    r1: np.ndarray,
    r2: np.ndarray,
    n_labels: int,
    weights: str | None = None,
    annotators: tuple[str, str] = ("1", "2"),
    alpha_ci: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    labels: Sequence[str] | None = None,
) -> AgreementResult:
    """Cohen's kappa (``weights=None``) or weighted kappa between two annotators' label codes.

    Items missing a rating (-1) from either annotator are dropped (counted in ``warnings``).
    ``labels`` (optional) names the codes in warnings.
    """
    _check_common(alpha_ci, n_resamples)
    a = _codes(r1, n_labels, "r1", 1)
    b = _codes(r2, n_labels, "r2", 1)
    if a.shape != b.shape:
        raise ValueError(f"r1 and r2 differ in length ({a.size} vs {b.size})")
    warnings: list[str] = []
    dropped = int(np.sum((a < 0) | (b < 0)))
    if dropped:
        warnings.append(f"{dropped} of {a.size} items lack a rating from {annotators[0]} or {annotators[1]} "
                        "and were left out.")
    table = agreement_matrix(a, b, n_labels)
    return _cohen_from_table(table, weights, tuple(annotators), alpha_ci, n_resamples, _rng(seed),
                             labels, warnings)


def _annotator_names(annotators: Sequence[str] | None, m: int) -> tuple[str, ...]:
    if annotators is None:
        return tuple(str(i + 1) for i in range(m))
    names = tuple(str(x) for x in annotators)
    if len(names) != m:
        raise ValueError(f"{len(names)} annotator names for {m} columns of ratings")
    return names


def pairwise_kappa_matrix(
    ratings: np.ndarray,
    n_labels: int,
    weights: str | None = None,
    annotators: Sequence[str] | None = None,
    alpha_ci: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    labels: Sequence[str] | None = None,
) -> tuple[AgreementResult, ...]:
    """Cohen's kappa for every pair of annotators (columns i < j, in order (0,1), (0,2), ..., (1,2), ...).

    ``ratings`` is (n_items, n_annotators) of label codes with -1 for missing; each pair uses the items
    both rated. All pair tables come from one tensor product of the one-hot ratings. One generator,
    seeded once, feeds the pairs' bootstraps in order.
    """
    _check_common(alpha_ci, n_resamples)
    x = _codes(ratings, n_labels, "ratings", 2)
    n, m = x.shape
    names = _annotator_names(annotators, m)
    onehot = (x[:, :, None] == np.arange(n_labels)).astype(np.int64)  # missing -> all zeros
    tables = np.einsum("nak,nbl->abkl", onehot, onehot)
    rated = x >= 0
    both = rated.T.astype(np.int64) @ rated.astype(np.int64)
    rng = _rng(seed)
    out = []
    for i, j in zip(*np.triu_indices(m, k=1), strict=True):
        warnings: list[str] = []
        dropped = n - int(both[i, j])
        if dropped:
            warnings.append(f"{dropped} of {n} items lack a rating from {names[i]} or {names[j]} "
                            "and were left out.")
        out.append(_cohen_from_table(tables[i, j], weights, (names[i], names[j]), alpha_ci, n_resamples,
                                     rng, labels, warnings))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Fleiss


def _drop_empty_annotators(rated: np.ndarray, names: tuple[str, ...]) -> tuple[np.ndarray, list[str]]:
    """Column mask of annotators with at least one rating, and a warning naming the others."""
    has = rated.any(axis=0)
    warnings = []
    if not has.all():
        empty = [names[i] for i in np.flatnonzero(~has)]
        warnings.append("Annotators without any rating were left out: " + ", ".join(empty) + ".")
    return has, warnings


def fleiss_kappa(
    ratings: np.ndarray,
    n_labels: int,
    annotators: Sequence[str] | None = None,
    alpha_ci: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    labels: Sequence[str] | None = None,
) -> AgreementResult:
    """Fleiss' (1971) kappa for m annotators; ``ratings`` (n_items, n_annotators), -1 = missing.

    Annotators with no ratings are dropped, then items not rated by every remaining annotator
    (module docstring). ``se`` (alternative, Gwet 2014) gives the Wald interval; ``se_null`` is
    Fleiss, Nee & Landis (1979), as R irr::kappam.fleiss.
    """
    _check_common(alpha_ci, n_resamples)
    x = _codes(ratings, n_labels, "ratings", 2)
    n_all, m_all = x.shape
    names = _annotator_names(annotators, m_all)
    level_ci = 1.0 - alpha_ci
    keep_cols, warnings = _drop_empty_annotators(x >= 0, names)
    x = x[:, keep_cols]
    used = tuple(nm for nm, k in zip(names, keep_cols, strict=True) if k)
    m = x.shape[1]
    complete = np.all(x >= 0, axis=1) if m else np.zeros(n_all, dtype=bool)
    x = x[complete]
    n = x.shape[0]
    if m < 2:
        warnings.append(f"Fleiss' kappa needs at least two annotators with ratings; {m} remain.")
        return _fleiss_result(used, n, level_ci, warnings)
    if n < n_all:
        warnings.append(f"{n_all - n} of {n_all} items were not rated by all {m} annotators and were left "
                        "out (Fleiss' kappa assumes every item has the same number of ratings).")
    if n == 0:
        warnings.append("No item was rated by all annotators, so Fleiss' kappa cannot be computed.")
        return _fleiss_result(used, n, level_ci, warnings)

    counts = (x[:, :, None] == np.arange(n_labels)).sum(axis=1).astype(float)  # n_ij, (n, K)
    p_item = (np.sum(counts**2, axis=1) - m) / (m * (m - 1))  # P_i
    pa = float(p_item.mean())
    pj = counts.sum(axis=0) / (n * m)
    pe = float(np.sum(pj**2))
    if 1.0 - pe <= _EPS:
        only = int(np.argmax(pj))
        warnings.append(f"Fleiss' kappa is undefined (0/0): every rating is the label "
                        f"{_label_name(only, labels)}, so chance agreement P(E) = 1.")
        return _fleiss_result(used, n, level_ci, warnings, pa=pa, pe=pe)
    kappa = (pa - pe) / (1.0 - pe)
    se0 = _fleiss_se_null(pj, n, m)
    se, ci = _fleiss_se(counts, m, p_item, pj, pe, kappa, level_ci, warnings)
    boot: Interval = (None, None)
    if n_resamples > 0:
        boot = _fleiss_bootstrap(counts, m, p_item, n_resamples, _rng(seed), level_ci, warnings)
    return _fleiss_result(used=used, n=n, level_ci=level_ci, warnings=warnings, value=kappa, pa=pa, pe=pe, se=se,
                          se0=se0, ci=ci, boot=boot)


def _fleiss_result(
    used: tuple[str, ...],
    n: int,
    level_ci: float,
    warnings: list[str],
    value: float | None = None,
    pa: float | None = None,
    pe: float | None = None,
    se: float | None = None,
    se0: float | None = None,
    ci: Interval = (None, None),
    boot: Interval = (None, None),
) -> AgreementResult:
    """Fleiss' kappa's record (annotators ``used``, ``n`` items); repeated warnings are given once."""
    return AgreementResult(
        measure="fleiss_kappa", level="nominal", annotators=used, value=finite_or_none(value),
        observed_agreement=finite_or_none(pa), expected_agreement=finite_or_none(pe),
        se=finite_or_none(se), se_null=finite_or_none(se0), ci_low=finite_or_none(ci[0]),
        ci_high=finite_or_none(ci[1]), ci_level=level_ci, ci_method="wald", bootstrap_ci_low=boot[0],
        bootstrap_ci_high=boot[1], interpretation=landis_koch(value), n_items=n,
        warnings=tuple(dict.fromkeys(warnings)),
    )


def _fleiss_se_null(pj: np.ndarray, n: int, m: int) -> float | None:
    """Fleiss, Nee & Landis (1979) standard error under kappa = 0 (irr::kappam.fleiss); None if negative."""
    pq = pj * (1.0 - pj)
    spq = pq.sum()
    var0 = 2.0 / (spq**2 * n * m * (m - 1)) * (spq**2 - np.sum(pq * (1.0 - 2.0 * pj)))
    return float(np.sqrt(var0)) if var0 >= 0 else None


def _fleiss_se(
    counts: np.ndarray, m: int, p_item: np.ndarray, pj: np.ndarray, pe: float, kappa: float, level_ci: float,
    warnings: list[str],
) -> tuple[float | None, Interval]:
    """Standard error under the alternative by Gwet's (2014) linearisation over items, and its Wald interval:
    kappa_i* = kappa_i - 2 (1 - kappa)(pe_i - pe)/(1 - pe). None, with a warning, for a single item."""
    n = counts.shape[0]
    if n < 2:
        warnings.append("Only one item is usable: Fleiss' kappa describes a single item and has no standard "
                        "error under the alternative.")
        return None, (None, None)
    kappa_i = (p_item - pe) / (1.0 - pe)
    pe_i = (counts / m) @ pj
    kappa_star = kappa_i - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
    var = float(np.sum((kappa_star - kappa) ** 2) / (n * (n - 1)))
    se = float(np.sqrt(var))
    if se == 0.0:
        warnings.append("The standard error is 0 (every item contributes the same agreement), so the "
                        "Wald interval has zero width; see the bootstrap interval.")
    return se, _wald(kappa, se, level_ci)


def _fleiss_bootstrap(
    counts: np.ndarray, m: int, p_item: np.ndarray, n_resamples: int, rng: np.random.Generator, level_ci: float,
    warnings: list[str],
) -> Interval:
    """Percentile interval of Fleiss' kappa over item resamples (the per-item label counts and P_i are summed
    per resample by :func:`_bootstrap_sums`); resamples with P(E) = 1 are left out, with a warning."""
    n = counts.shape[0]
    sums = _bootstrap_sums(np.column_stack([counts, p_item]), n_resamples, rng)
    pa_b = sums[:, -1] / n
    pe_b = np.sum((sums[:, :-1] / (n * m)) ** 2, axis=1)
    den = 1.0 - pe_b
    kb = np.full(n_resamples, np.nan)
    np.divide(pa_b - pe_b, den, out=kb, where=den > _EPS)
    lo, hi, bad = _percentile(kb, level_ci)
    warnings.extend(_bootstrap_note(bad, n_resamples, "Fleiss' kappa"))
    return lo, hi


# ---------------------------------------------------------------------------------------------
# Krippendorff


def _delta2(level: str, values: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """Squared difference function d2_ck, shape (..., V, V) for marginals of shape (..., V)."""
    v = values.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(v), (*marginals.shape[:-1], v, v))
    if level == "interval":
        d = np.subtract.outer(values, values) ** 2
        return np.broadcast_to(d, (*marginals.shape[:-1], v, v))
    cum = np.cumsum(marginals, axis=-1)
    idx = np.arange(v)
    lo = np.minimum.outer(idx, idx)
    hi = np.maximum.outer(idx, idx)
    d = cum[..., hi] - cum[..., lo] + (marginals[..., lo] - marginals[..., hi]) / 2.0
    return d**2


def _coincidences(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Coincidence matrix o_ck = sum_u w_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1).

    ``counts`` (U, V) are the per-unit value counts (every m_u >= 2); ``weights`` (U,) or (B, U)
    are how often each unit is taken (1 for the data, bootstrap draws for resamples).
    """
    scaled = weights / (counts.sum(axis=1) - 1.0)  # (..., U)
    o = np.einsum("...u,uc,uk->...ck", scaled, counts, counts, optimize=True)
    diag = scaled @ counts  # (..., V)
    idx = np.arange(counts.shape[1])
    o[..., idx, idx] -= diag
    return o


def _alpha_from_coincidence(
    o: np.ndarray, level: str, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """alpha, D_o, D_e for coincidence matrices o of shape (..., V, V); alpha NaN where D_e = 0."""
    nc = o.sum(axis=-1)
    ntot = nc.sum(axis=-1)
    d2 = _delta2(level, values, nc)
    do = np.sum(o * d2, axis=(-2, -1)) / ntot
    de = np.einsum("...c,...ck,...k->...", nc, d2, nc) / (ntot * (ntot - 1))
    alpha = np.full(np.shape(do), np.nan)
    np.divide(do, de, out=alpha, where=de > _EPS * np.maximum(1.0, np.max(d2)))
    return 1.0 - alpha, do, de


def krippendorff_alpha(
    ratings: np.ndarray,
    level: str = "nominal",
    n_labels: int | None = None,
    values: Sequence[float] | None = None,
    annotators: Sequence[str] | None = None,
    alpha_ci: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
) -> AgreementResult:
    """Krippendorff's alpha for (n_items, n_annotators) ratings with NaN for missing.

    ``level``: 'nominal', 'ordinal' (the numeric order of the values is the label order; pass label
    ranks 0..K-1) or 'interval' (numeric differences). ``n_labels`` (ratings are codes 0..n_labels-1)
    or ``values`` (the allowed values) is optional; when given, every rating must be one of them
    (unused categories change nothing at any level). Units with fewer than two ratings are not
    pairable and are left out (counted in ``warnings``).
    """
    _check_common(alpha_ci, n_resamples)
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(LEVELS)}")
    x = np.asarray(ratings, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"ratings must be 2-D (n_items, n_annotators), got shape {x.shape}")
    if np.any(np.isinf(x)):
        raise ValueError("ratings must be finite or NaN (missing)")
    n_all, m_all = x.shape
    names = _annotator_names(annotators, m_all)
    level_ci = 1.0 - alpha_ci
    rated = ~np.isnan(x)
    keep_cols, warnings = _drop_empty_annotators(rated, names)
    used = tuple(nm for nm, k in zip(names, keep_cols, strict=True) if k)
    x = x[:, keep_cols]
    rated = rated[:, keep_cols]
    vals = _alpha_values(np.unique(x[rated]), n_labels, values)
    pairable = rated.sum(axis=1) >= 2
    n = int(pairable.sum())
    if n < n_all:
        warnings.append(f"{n_all - n} of {n_all} items have fewer than two ratings (not pairable) and were "
                        "left out.")
    if n == 0:
        warnings.append("No item has two or more ratings, so Krippendorff's alpha cannot be computed.")
        return _alpha_result(level, used, n, level_ci, warnings)
    codes = np.where(rated[pairable], np.searchsorted(vals, np.nan_to_num(x[pairable])), -1)
    counts = (codes[:, :, None] == np.arange(vals.size)).sum(axis=1).astype(float)  # n_uc, (n, V)
    alpha, do, de = (float(t) for t in _alpha_from_coincidence(_coincidences(counts, np.ones(n)), level, vals))
    pa = 1.0 - do if level == "nominal" else None
    pe = 1.0 - de if level == "nominal" else None
    if not np.isfinite(alpha):
        warnings.append("Krippendorff's alpha is undefined (0/0): all pairable ratings have the same value, "
                        "so there is no expected disagreement.")
        return _alpha_result(level, used, n, level_ci, warnings, pa=pa, pe=pe)
    if n == 1:
        warnings.append("Only one item has two or more ratings: alpha describes a single item and its "
                        "bootstrap interval is not meaningful.")
    if n_resamples == 0:
        return _alpha_result(level, used, n, level_ci, warnings, alpha, pa, pe)
    se, ci = _alpha_bootstrap(counts, level, vals, n_resamples, _rng(seed), level_ci, warnings)
    return _alpha_result(level=level, used=used, n=n, level_ci=level_ci, warnings=warnings, value=alpha, pa=pa, pe=pe,
                         se=se, ci=ci, method="bootstrap_percentile")


def _alpha_result(
    level: str,
    used: tuple[str, ...],
    n: int,
    level_ci: float,
    warnings: list[str],
    value: float | None = None,
    pa: float | None = None,
    pe: float | None = None,
    se: float | None = None,
    ci: Interval = (None, None),
    method: str = "none",
) -> AgreementResult:
    """Krippendorff's alpha's record (annotators ``used``, ``n`` pairable items); its interval is the
    bootstrap one or none; repeated warnings are given once."""
    return AgreementResult(
        measure="krippendorff_alpha", level=level, annotators=used, value=finite_or_none(value),
        observed_agreement=finite_or_none(pa), expected_agreement=finite_or_none(pe),
        se=finite_or_none(se), se_null=None, ci_low=ci[0], ci_high=ci[1], ci_level=level_ci,
        ci_method=method, bootstrap_ci_low=ci[0], bootstrap_ci_high=ci[1],
        interpretation=landis_koch(value), n_items=n, warnings=tuple(dict.fromkeys(warnings)),
    )


def _alpha_values(observed: np.ndarray, n_labels: int | None, values: Sequence[float] | None) -> np.ndarray:
    """The sorted values alpha is computed over: the ``observed`` ones, or the declared ``n_labels`` codes or
    ``values``, which must then hold every observed value."""
    if n_labels is not None and values is not None:
        raise ValueError("give n_labels or values, not both")
    if n_labels is not None:
        values = range(n_labels)
    if values is None:
        return observed
    vals = np.unique(np.asarray(values, dtype=float))
    missing = np.setdiff1d(observed, vals)
    if missing.size:
        raise ValueError(f"ratings hold values not among `values`: {missing.tolist()}")
    return vals


def _alpha_bootstrap(
    counts: np.ndarray, level: str, vals: np.ndarray, n_resamples: int, rng: np.random.Generator,
    level_ci: float, warnings: list[str],
) -> tuple[float | None, Interval]:
    """Bootstrap standard deviation and percentile interval of alpha over units, drawn as Multinomial counts
    of the distinct unit profiles (see :func:`_bootstrap_sums`); undefined resamples are left out (warned)."""
    n = counts.shape[0]
    uniq, mult = np.unique(counts, axis=0, return_counts=True)
    draws = rng.multinomial(n, mult / n, size=n_resamples).astype(float)
    ab, _, _ = _alpha_from_coincidence(_coincidences(uniq, draws), level, vals)
    lo, hi, bad = _percentile(ab, level_ci)
    warnings.extend(_bootstrap_note(bad, n_resamples, "alpha"))
    ok = ab[np.isfinite(ab)]
    se = float(np.std(ok, ddof=1)) if ok.size >= 2 else None
    return se, (lo, hi)


# ---------------------------------------------------------------------------------------------
# Cohen's kappa: test of "no agreement beyond chance" (Fleiss, Cohen & Everitt 1969)


@dataclasses.dataclass(frozen=True, kw_only=True)
class KappaNullTest:
    """Cohen's (weighted) kappa with its standard error under kappa = 0 and the z test.

    ``se_null`` is Fleiss, Cohen & Everitt's (1969) large-sample SE when the two annotators are
    independent: var0 = [sum_ij p_i. p_.j (w_ij - (wbar_i. + wbar_.j))^2 - P(E)^2] / (n (1 - P(E))^2),
    which for identity weights is Fleiss, Cohen & Everitt's
    [P(E) + P(E)^2 - sum_i p_i. p_.i (p_i. + p_.i)] / (n (1 - P(E))^2).
    ``statistic`` z = kappa / se_null; ``pvalue`` two-sided (R irr ``kappa2``), or one-sided for
    'greater' (agreement above chance). ``se`` is the non-null SE used for the interval
    (:func:`cohen_kappa`), repeated here so both stand side by side.
    """

    measure: str
    value: float | None
    se: float | None
    se_null: float | None
    statistic: float | None
    pvalue: float | None
    alternative: str
    n_items: int
    warnings: tuple[str, ...] = ()


def _fce_null_variance(p: np.ndarray, w: np.ndarray, pe: float, n: int) -> float:
    rows = p.sum(axis=1)
    cols = p.sum(axis=0)
    wbar_row = w @ cols
    wbar_col = w.T @ rows
    term = w - (wbar_row[:, None] + wbar_col[None, :])
    first = float(np.sum(np.outer(rows, cols) * term**2))
    return (first - pe**2) / (n * (1.0 - pe) ** 2)


def cohen_kappa_null_test(
    matrix: np.ndarray, weights: str | None = None, alternative: str = "two-sided"
) -> KappaNullTest:
    """z test of Cohen's (weighted) kappa against 0 from a K x K table of counts (see :class:`KappaNullTest`)."""
    if alternative not in ("two-sided", "greater"):
        raise ValueError(f"unknown alternative {alternative!r}; known: two-sided, greater")
    t = np.asarray(matrix)
    if t.ndim != 2 or t.shape[0] != t.shape[1] or t.shape[0] < 1:
        raise ValueError(f"matrix must be square K x K, got shape {t.shape}")
    if np.any(t < 0) or not np.all(np.equal(np.mod(t, 1), 0)):
        raise ValueError("matrix must hold non-negative integer counts")
    measure = "cohen_kappa" if weights is None else f"weighted_kappa_{weights}"
    k = t.shape[0]
    n = int(t.sum())
    if n == 0:
        return KappaNullTest(measure=measure, value=None, se=None, se_null=None, statistic=None, pvalue=None,
                             alternative=alternative, n_items=0, warnings=("no items",))
    w = _weight_matrix(k, weights)
    p = t / n
    _, pe_a, kappa_a = _kappa_parts(p, w)
    pe, kappa = float(pe_a), float(kappa_a)
    if not np.isfinite(kappa):
        return KappaNullTest(measure=measure, value=None, se=None, se_null=None, statistic=None, pvalue=None,
                             alternative=alternative, n_items=n,
                             warnings=("Kappa is undefined (0/0): the chance agreement P(E) is 1.",))
    var = _fce_variance(p, w, pe, kappa, n)
    se = float(np.sqrt(var)) if var >= 0 else None
    var0 = _fce_null_variance(p, w, pe, n)
    if not var0 > 0:
        return KappaNullTest(measure=measure, value=kappa, se=se, se_null=None, statistic=None, pvalue=None,
                             alternative=alternative, n_items=n,
                             warnings=("The standard error under kappa = 0 is 0, so the z test is undefined.",))
    se0 = float(np.sqrt(var0))
    z = kappa / se0
    pvalue = float(stats.norm.sf(z)) if alternative == "greater" else float(2 * stats.norm.sf(abs(z)))
    return KappaNullTest(measure=measure, value=kappa, se=se, se_null=se0, statistic=float(z), pvalue=pvalue,
                         alternative=alternative, n_items=n)
