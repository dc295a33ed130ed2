"""Confusion-matrix metrics of one system's predicted labels against gold labels.

Definitions (Matos et al. 2009, their F-measure formula corrected; van Rijsbergen 1979): for class ``c`` with
TP, FP, FN, TN counted one-vs-rest from the confusion matrix (rows gold, columns predicted),

* precision = TP / (TP + FP), recall = TP / (TP + FN), specificity = TN / (TN + FP),
* F-beta = (1 + b^2) P R / (b^2 P + R), computed as (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)
  (the same number whenever P and R exist; 0 when TP = 0 but FP + FN > 0, as in scikit-learn),
* accuracy = trace / n.

Averages (as in scikit-learn's ``precision_recall_fscore_support``):

* ``_macro``: unweighted mean over the classes where the metric is defined. A class whose metric is
  0/0 (never predicted for precision, never in gold for recall, ...) is *left out* of the mean, with a
  warning naming it; scikit-learn's ``zero_division=np.nan`` does the same, its default counts it as 0.
* ``_micro``: the metric of the summed one-vs-rest counts (for single-label data micro precision =
  micro recall = micro F = accuracy).
* ``_weighted``: mean over the defined classes weighted by gold support (renormalised over them).

Metric names: ``accuracy``; per class ``<metric>_<label>``; ``<metric>_macro|_micro|_weighted``;
and, when ``positive_label`` is given, plain ``precision``, ``recall``, ``specificity``, ``f<beta>``
for that class. The F name is ``"f" + format(beta, "g")``: ``f1``, ``f0.5``, ``f2``.

Confidence intervals: percentile bootstrap over items. Every metric is a function of the confusion
matrix only, and resampling n items with replacement gives a confusion matrix distributed exactly
Multinomial(n, observed cell shares); so one draw of ``n_resamples`` resampled matrices (one
resample of items shared by all metrics) is made from that multinomial and all metrics are computed
on the (B, K, K) stack at once. Resamples where a metric is 0/0 are left out of its interval (warned).

Tests check Matos et al.'s (2009) worked example (TP 120, FP 40, FN 30, TN 310) and scikit-learn 1.9.1 values.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

import numpy as np

from sigreport.stats.result import finite_or_none

BASE_METRICS = ("precision", "recall", "specificity")
AVERAGES = ("macro", "micro", "weighted")


@dataclasses.dataclass(frozen=True, kw_only=True)
class MetricValue:
    """One metric with its bootstrap percentile interval (``None`` where undefined)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClassificationResult:
    """Confusion matrix (rows gold, columns predicted, in ``labels`` order) and its metrics.

    ``metrics`` maps names (see the module docstring) to values with CIs at ``ci_level`` from
    ``n_resamples`` bootstrap resamples of the ``n`` items.
    """

    labels: tuple[str, ...]
    matrix: np.ndarray
    beta: float
    metrics: dict[str, MetricValue]
    n: int
    ci_level: float
    n_resamples: int
    warnings: tuple[str, ...] = ()


def f_name(beta: float) -> str:
    """Metric name of F-beta: ``'f' + format(beta, 'g')`` (``f1``, ``f0.5``, ``f2``)."""
    return "f" + format(float(beta), "g")


def _labels_array(x: np.ndarray, n_labels: int, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer) and not np.all(np.equal(np.mod(a, 1), 0)):
        raise ValueError(f"{name} must hold integer label codes")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= n_labels):
        raise ValueError(f"{name} holds codes outside 0..{n_labels - 1}")
    return a


def confusion_matrix(gold: np.ndarray, pred: np.ndarray, n_labels: int) -> np.ndarray:
    """K x K counts, rows gold label, columns predicted label (codes 0..n_labels-1)."""
    if n_labels < 1:
        raise ValueError("n_labels must be at least 1")
    g = _labels_array(gold, n_labels, "gold")
    p = _labels_array(pred, n_labels, "pred")
    if g.shape != p.shape:
        raise ValueError(f"gold and pred differ in length ({g.size} vs {p.size})")
    return np.bincount(g * n_labels + p, minlength=n_labels * n_labels).reshape(n_labels, n_labels)


def per_item_correct(gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Boolean vector: the prediction equals the gold label (input for McNemar / Cochran's Q)."""
    g = np.asarray(gold)
    p = np.asarray(pred)
    if g.shape != p.shape or g.ndim != 1:
        raise ValueError(f"gold and pred must be 1-D of equal length, got {g.shape} and {p.shape}")
    return g == p


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with NaN where den == 0 (0/0 cases)."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _all_metrics(m: np.ndarray, beta: float) -> dict[str, np.ndarray]:
    """Every metric for a stack of confusion matrices ``m`` of shape (..., K, K).

    Returns arrays of shape (...) for scalars and (..., K) for per-class values; NaN = 0/0.
    """
    m = np.asarray(m, dtype=float)
    n = m.sum(axis=(-2, -1))
    tp = np.diagonal(m, axis1=-2, axis2=-1)
    support = m.sum(axis=-1)  # gold counts per class
    predicted = m.sum(axis=-2)
    fp = predicted - tp
    fn = support - tp
    tn = n[..., None] - tp - fp - fn
    b2 = beta * beta
    per_class = {
        "precision": (tp, tp + fp),
        "recall": (tp, tp + fn),
        "specificity": (tn, tn + fp),
        "f": ((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp),
    }
    out: dict[str, np.ndarray] = {"accuracy": _ratio(tp.sum(axis=-1), n)}
    for name, (num, den) in per_class.items():
        values = _ratio(num, den)
        out[name] = values
        defined = np.isfinite(values)
        count = defined.sum(axis=-1)
        out[name + "_macro"] = _ratio(np.where(defined, values, 0.0).sum(axis=-1), count)
        w = np.where(defined, support, 0.0)
        out[name + "_weighted"] = _ratio((np.where(defined, values, 0.0) * w).sum(axis=-1), w.sum(axis=-1))
        out[name + "_micro"] = _ratio(num.sum(axis=-1), den.sum(axis=-1))
    return out


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _percentile_ci(
    samples: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval along axis 0 ignoring NaN resamples; also the count of NaN resamples."""
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    n_nan = np.isnan(samples).sum(axis=0)
    all_nan = n_nan == samples.shape[0]
    safe = np.where(all_nan, 0.0, samples)  # avoid nanquantile's all-NaN warning
    lo = np.nanquantile(safe, lo_q, axis=0)
    hi = np.nanquantile(safe, hi_q, axis=0)
    lo = np.where(all_nan, np.nan, lo)
    hi = np.where(all_nan, np.nan, hi)
    return lo, hi, n_nan


def classification_metrics(
    gold: np.ndarray,
    pred: np.ndarray,
    labels: Sequence[str],
    beta: float = 1.0,
    positive_label: str | None = None,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    ci_level: float = 0.95,
) -> ClassificationResult:
    """Confusion matrix and all metrics with bootstrap percentile CIs over items.

    ``gold`` and ``pred`` are integer codes into ``labels``. ``n_resamples=0`` gives no intervals.
    References: Matos et al. (2009) (definitions, F-beta corrected), van Rijsbergen (1979) for F-beta;
    averages as scikit-learn (module docstring). Tests: Matos et al.'s (2009) example and scikit-learn 1.9.1.
    """
    labels = _checked_labels(labels, beta, positive_label, ci_level, n_resamples)
    k = len(labels)
    matrix = confusion_matrix(gold, pred, k)
    n = int(matrix.sum())
    fname = f_name(beta)
    warnings: list[str] = []

    point = _all_metrics(matrix, beta)
    if n_resamples > 0 and n > 0:
        rng = _rng(seed)
        boot = rng.multinomial(n, matrix.ravel() / n, size=n_resamples).reshape(n_resamples, k, k)
        boot_metrics = _all_metrics(boot, beta)
        cis = {name: _percentile_ci(v, ci_level) for name, v in boot_metrics.items()}
    else:
        cis = {}
    if n == 0:
        warnings.append("There are no items, so no metric can be computed.")

    entry = functools.partial(_metric_entry, point, cis, n_resamples, warnings)
    metrics: dict[str, MetricValue] = {"accuracy": entry("accuracy", None, "accuracy")}
    for name in (*BASE_METRICS, "f"):
        pub = fname if name == "f" else name
        metrics.update(_metric_family(entry, name, pub, labels, n, positive_label, warnings))
    return ClassificationResult(
        labels=labels,
        matrix=matrix,
        beta=float(beta),
        metrics=metrics,
        n=n,
        ci_level=float(ci_level),
        n_resamples=int(n_resamples),
        warnings=tuple(dict.fromkeys(warnings)),
    )


def _checked_labels(
    labels: Sequence[str], beta: float, positive_label: str | None, ci_level: float, n_resamples: int
) -> tuple[str, ...]:
    """The labels as strings, after checking them and the other arguments of :func:`classification_metrics`."""
    labels = tuple(str(x) for x in labels)
    k = len(labels)
    if k < 1:
        raise ValueError("labels must not be empty")
    if len(set(labels)) != k:
        raise ValueError("labels must be distinct")
    clash = sorted(set(labels) & set(AVERAGES))
    if clash:
        raise ValueError(f"label names {clash} clash with the average suffixes {AVERAGES}")
    if not (beta > 0 and np.isfinite(beta)):
        raise ValueError("beta must be a positive finite number")
    if positive_label is not None and positive_label not in labels:
        raise ValueError(f"positive_label {positive_label!r} is not one of {labels}")
    if not 0 < ci_level < 1:
        raise ValueError("ci_level must be in (0, 1)")
    if n_resamples < 0:
        raise ValueError("n_resamples must be >= 0")
    return labels


def _metric_entry(
    point: dict[str, np.ndarray],
    cis: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    n_resamples: int,
    warnings: list[str],
    name: str,
    idx: int | None,
    out_name: str,
) -> MetricValue:
    """Metric ``name`` (class ``idx``, or the scalar when None) with its interval; a warning names ``out_name``
    when some resamples left it undefined."""
    value = point[name] if idx is None else point[name][idx]
    value = finite_or_none(value)
    if value is None or name not in cis:
        return MetricValue(value=value, ci_low=None, ci_high=None)
    lo, hi, n_nan = cis[name]
    if idx is not None:
        lo, hi, n_nan = lo[idx], hi[idx], n_nan[idx]
    if n_nan:
        warnings.append(
            f"{int(n_nan)} of {n_resamples} bootstrap resamples left {out_name} undefined (0/0); "
            "its interval uses the others."
        )
    return MetricValue(value=value, ci_low=finite_or_none(lo), ci_high=finite_or_none(hi))


_UNDEFINED_BECAUSE = {  # why a class's metric is 0/0
    "precision": "it is never predicted",
    "recall": "it never occurs in the gold labels",
    "specificity": "every gold label is this class (no negatives)",
    "f": "it neither occurs in the gold labels nor is predicted",
}


def _metric_family(
    entry: Callable[[str, int | None, str], MetricValue],
    name: str,
    pub: str,
    labels: tuple[str, ...],
    n: int,
    positive_label: str | None,
    warnings: list[str],
) -> dict[str, MetricValue]:
    """One metric (``name``, published as ``pub``) per class, its three averages and, with a positive label,
    its plain value; warnings name the classes where it is undefined and left out of the averages."""
    out: dict[str, MetricValue] = {}
    undefined: list[str] = []
    for i, lab in enumerate(labels):
        out[f"{pub}_{lab}"] = entry(name, i, f"{pub}_{lab}")
        if out[f"{pub}_{lab}"].value is None and n > 0:
            undefined.append(lab)
            warnings.append(f"{pub} of class '{lab}' is undefined (0/0) because {_UNDEFINED_BECAUSE[name]}.")
    for avg in AVERAGES:
        out[f"{pub}_{avg}"] = entry(f"{name}_{avg}", None, f"{pub}_{avg}")
    if undefined and len(undefined) < len(labels):
        warnings.append(
            f"{pub}_macro and {pub}_weighted leave out the classes where {pub} is undefined: "
            + ", ".join(f"'{u}'" for u in undefined)
            + "."
        )
    if positive_label is not None:
        out[pub] = entry(name, labels.index(positive_label), pub)
    return out


# ---------------------------------------------------------------------------------------------
# Matthews correlation coefficient (Matthews 1975; Chicco & Jurman 2020)


@dataclasses.dataclass(frozen=True, kw_only=True)
class MCCResult:
    """Matthews correlation coefficient of one system with its bootstrap percentile interval.

    ``value`` is None (with a warning) when MCC is 0/0: all gold labels or all predictions are one
    class (scikit-learn then returns 0). ``ci_level`` is 1 - alpha of the interval.
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    n: int
    n_resamples: int
    warnings: tuple[str, ...] = ()


def _mcc(m: np.ndarray) -> np.ndarray:
    """Gorodkin's (2004) K-class MCC of confusion matrices (..., K, K); NaN where 0/0.

    MCC = (c s - sum_k p_k t_k) / sqrt((s^2 - sum_k p_k^2)(s^2 - sum_k t_k^2)) with c the trace,
    s the total, t_k gold and p_k predicted counts; for K = 2 it is Matthews' (1975)
    (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)), as scikit-learn's ``matthews_corrcoef``.
    """
    m = np.asarray(m, dtype=float)
    s = m.sum(axis=(-2, -1))
    c = np.trace(m, axis1=-2, axis2=-1)
    t = m.sum(axis=-1)
    p = m.sum(axis=-2)
    num = c * s - np.sum(p * t, axis=-1)
    den = np.sqrt((s**2 - np.sum(p**2, axis=-1)) * (s**2 - np.sum(t**2, axis=-1)))
    return _ratio(num, den)


def matthews_corrcoef(
    gold: np.ndarray,
    pred: np.ndarray,
    n_labels: int,
    alpha_ci: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
) -> MCCResult:
    """MCC of predicted against gold label codes, with a percentile bootstrap interval over items.

    Resampled confusion matrices are Multinomial(n, observed cell shares) draws, exactly the law of
    the confusion matrix of n resampled items (see the module docstring), all computed at once.
    """
    if not 0.0 < alpha_ci < 1.0:
        raise ValueError(f"alpha_ci must be in (0, 1); got {alpha_ci}")
    if n_resamples < 0:
        raise ValueError("n_resamples must be >= 0")
    m = confusion_matrix(gold, pred, n_labels)
    n = int(m.sum())
    level = 1.0 - alpha_ci
    warnings: list[str] = []
    if n == 0:
        return MCCResult(value=None, ci_low=None, ci_high=None, ci_level=level, n=0, n_resamples=n_resamples,
                         warnings=("no items",))
    value = finite_or_none(_mcc(m))
    if value is None:
        warnings.append("MCC is undefined (0/0): all gold labels or all predictions are the same class.")
    lo = hi = None
    if n_resamples > 0:
        k = m.shape[0]
        draws = _rng(seed).multinomial(n, (m / n).ravel(), size=n_resamples).reshape(n_resamples, k, k)
        low, high, n_nan = _percentile_ci(_mcc(draws), level)
        lo, hi = finite_or_none(low), finite_or_none(high)
        if int(n_nan):
            warnings.append(f"MCC was undefined (0/0) in {int(n_nan)} of {n_resamples} resamples; "
                            "they are left out of the interval.")
    return MCCResult(value=value, ci_low=lo, ci_high=hi, ci_level=level, n=n, n_resamples=n_resamples,
                     warnings=tuple(warnings))
