"""Per-item one-vs-rest counts and averaged classification metrics over summed counts.

A classification metric tested with the resampling engine is held as per-item sufficient statistics
(counts that sum over items to the corpus confusion counts); :func:`averaged_metric` turns summed
counts back into a macro or weighted average. Definitions are those of
:mod:`sigreport.stats.classification` (scikit-learn's with ``zero_division=nan``: classes whose metric
is 0/0 are left out of the average); tests/analyses/test_labels.py checks the two agree.
"""

from __future__ import annotations

import numpy as np

from sigreport.stats.resampling import CorpusMetric

BASES = ("precision", "recall", "specificity", "f")
AVERAGED = ("macro", "weighted")


def one_vs_rest_counts(gold: np.ndarray, pred: np.ndarray, n_labels: int) -> tuple[np.ndarray, ...]:
    """Per-item indicators tp, fp, fn, tn of shape (n_items, k_systems, n_labels).

    ``gold``: (n,) label codes; ``pred``: (n, k) label codes of k systems.
    """
    classes = np.arange(n_labels)
    g = gold[:, None, None] == classes
    p = pred[:, :, None] == classes
    return g & p, ~g & p, g & ~p, ~g & ~p


def averaged_metric(name: str, base: str, average: str, n_stats: int, beta: float = 1.0,
                    stat_names: tuple[str, ...] = ()) -> CorpusMetric:
    """``base`` (precision, recall, specificity, f) averaged (macro or weighted) over K classes.

    Statistics: tp of every class, then fp of every class, then fn of every class (``n_stats`` = 3K);
    tn = n_items - tp - fp - fn. Macro: mean over the classes whose metric is defined (not 0/0);
    weighted: mean over those classes weighted by gold support tp + fn. NaN when no class is defined.
    Raises ValueError for an unknown base or average or a count that is not 3K.
    """
    if base not in BASES or average not in AVERAGED:
        raise ValueError(f"unknown average {base}_{average}; known: <{'|'.join(BASES)}>_<{'|'.join(AVERAGED)}>")
    if n_stats == 0 or n_stats % 3:
        raise ValueError(f"{name!r} needs 3K statistics (tp, fp, fn per class), not {n_stats}")
    k = n_stats // 3
    b2 = float(beta) ** 2

    def value(totals: np.ndarray, n_items: int) -> np.ndarray:
        tp, fp, fn = totals[..., :k], totals[..., k:2 * k], totals[..., 2 * k:]
        tn = n_items - tp - fp - fn
        num, den = {"precision": (tp, tp + fp), "recall": (tp, tp + fn), "specificity": (tn, tn + fp),
                    "f": ((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)}[base]
        defined = den > 0
        per_class = np.where(defined, num / np.where(defined, den, 1.0), 0.0)
        w = np.where(defined, 1.0 if average == "macro" else tp + fn, 0.0)
        wsum = w.sum(axis=-1)
        return np.where(wsum > 0, (per_class * w).sum(axis=-1) / np.where(wsum > 0, wsum, 1.0), np.nan)

    return CorpusMetric(name=name, n_stats=n_stats, func=value, stat_names=tuple(stat_names))
