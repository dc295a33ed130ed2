"""scikit-learn results as sigreport's tables, with no glue: pass the frames to ``sigreport.analyze``.

``cross_validate({system: cv_result}, corpus=...)`` turns what ``sklearn.model_selection.cross_validate``
returns (one ``test_<scorer>`` array per scorer, folds in the order the splitter made them) into the long
score table of a cross-validation design: ``system, corpus, repeat, fold, metric, value`` and, when the
fold sizes are known, ``n_train`` and ``n_test`` per fold (from ``return_indices=True``, or from the
splitter given as ``cv=`` with the labels ``y`` it splits), which the corrected resampled t test uses.
``predictions(y_true, {system: y_pred}, corpus=...)`` gives the predictions table.

scikit-learn itself is imported only when a splitter has to be asked for its folds; the rest reads plain
arrays and dictionaries (pandas is imported when a table is made).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

SCORE_PREFIX = "test_"


def cross_validate(results: Mapping[str, Mapping[str, Any]], *, corpus: str, metric: str | Sequence[str] | None = None,
                   cv: Any = None, y: Any = None, groups: Any = None, n_splits: int | None = None) -> pd.DataFrame:
    """The long score table of cross-validation results, one row per system, fold and metric.

    ``results``: system -> the dictionary ``cross_validate`` returned. ``metric``: the scorer(s) to keep
    (``test_<metric>`` keys; a single unnamed scorer's ``test_score`` is named ``metric``); default every
    ``test_*`` key. Folds are numbered as the splitter made them: with ``cv`` a repeated splitter
    (``RepeatedKFold``, ``RepeatedStratifiedKFold``) or ``n_splits``, fold i is repeat ``i // k + 1``,
    fold ``i % k + 1`` (what ``tests.design: 5x2cv`` and ``resampled`` read); otherwise one repeat.
    Fold sizes come from ``results[system]['indices']`` (``return_indices=True``) or from ``cv.split`` on
    ``y`` (and ``groups``)."""
    import pandas as pd

    if not results:
        raise ValueError("results: give at least one system's cross_validate output")
    frames = []
    for system, result in results.items():
        scores = _scores(system, result, metric)
        n_folds = len(next(iter(scores.values())))
        k = _splits_per_repeat(cv, n_splits, n_folds)
        sizes = _fold_sizes(result, cv, y, groups, n_folds)
        for name, values in scores.items():
            folds = np.arange(n_folds)
            part = {"system": system, "corpus": corpus, "repeat": folds // k + 1, "fold": folds % k + 1,
                    "metric": name, "value": np.asarray(values, dtype=float)}
            if sizes is not None:
                part["n_train"], part["n_test"] = sizes
            frames.append(pd.DataFrame(part))
    return pd.concat(frames, ignore_index=True)


def _scores(system: str, result: Mapping[str, Any], metric: str | Sequence[str] | None) -> dict[str, np.ndarray]:
    """metric name -> per-fold test scores of one system."""
    keys = [k for k in result if k.startswith(SCORE_PREFIX)]
    if not keys:
        raise ValueError(f"results[{system!r}] has no test_* scores (is it what cross_validate returned?)")
    if metric is None:
        return {k[len(SCORE_PREFIX):]: np.asarray(result[k]) for k in keys}
    wanted = [metric] if isinstance(metric, str) else list(metric)
    if keys == ["test_score"] and len(wanted) == 1:
        return {wanted[0]: np.asarray(result["test_score"])}
    missing = [m for m in wanted if SCORE_PREFIX + m not in result]
    if missing:
        raise ValueError(f"results[{system!r}] has no test_{missing[0]}; present: {', '.join(keys)}")
    return {m: np.asarray(result[SCORE_PREFIX + m]) for m in wanted}


def _splits_per_repeat(cv: Any, n_splits: int | None, n_folds: int) -> int:
    """Folds per repetition: ``n_splits``, or the splitter's (a repeated splitter keeps it in ``cvargs``)."""
    k = n_splits
    if k is None and cv is not None:
        k = getattr(cv, "cvargs", {}).get("n_splits") or getattr(cv, "n_splits", None)
    k = int(k) if k else n_folds
    if n_folds % k:
        raise ValueError(f"{n_folds} folds are not whole repetitions of {k} splits")
    return k


def _fold_sizes(result: Mapping[str, Any], cv: Any, y: Any, groups: Any, n_folds: int
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """(n_train, n_test) per fold: from the returned indices, else from the splitter's folds of ``y``."""
    indices = result.get("indices")
    if indices is not None:
        train, test = indices["train"], indices["test"]
    elif cv is not None and y is not None:
        y = np.asarray(y)
        train, test = zip(*cv.split(np.zeros((len(y), 1)), y, groups))
    else:
        return None
    if len(train) != n_folds:
        raise ValueError(f"the folds' indices give {len(train)} folds, the scores {n_folds}")
    return np.array([len(t) for t in train]), np.array([len(t) for t in test])


def predictions(y_true: Any, y_pred: Mapping[str, Any], *, corpus: str, items: Sequence[object] | None = None
                ) -> pd.DataFrame:
    """The predictions table (``system, corpus, item, gold, pred``) of one data set: ``y_pred`` maps each
    system to its predicted labels for the items of ``y_true`` (same order). Items are named by ``items``, the
    index of a pandas ``y_true``, or their position (0, 1, ...). Concatenate the frames of several data sets."""
    import pandas as pd

    gold = np.asarray(y_true)
    if items is None:
        items = list(y_true.index) if isinstance(y_true, pd.Series) else list(range(len(gold)))
    if len(items) != len(gold):
        raise ValueError(f"items: {len(items)} names for {len(gold)} labels")
    frames = []
    for system, pred in y_pred.items():
        pred = np.asarray(pred)
        if pred.shape != gold.shape:
            raise ValueError(f"y_pred[{system!r}] has {len(pred)} labels, y_true {len(gold)}")
        frames.append(pd.DataFrame({"system": system, "corpus": corpus, "item": [str(i) for i in items],
                                    "gold": gold.astype(str), "pred": pred.astype(str)}))
    return pd.concat(frames, ignore_index=True)
