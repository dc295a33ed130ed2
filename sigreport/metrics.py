"""From a metric's spec to the corpus-level function the statistics use.

A metric is held as per-item sufficient statistics; its corpus score is ``aggregate(totals, n)``:
mean (one statistic), ratio (two), f_beta (tp, fp, fn), a built-in label average
``sigreport.labels:<precision|recall|specificity|f>_<macro|weighted>`` (tp, fp, fn of every class)
or a user function named by import path.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from sigreport.spec import MetricSpec
from sigreport.stats.resampling import CorpusMetric, f_beta_metric, mean_metric, ratio_metric, user_metric


class AggregateImportError(Exception):
    pass


def corpus_metric(m: MetricSpec, folder: Path | None = None) -> CorpusMetric:
    """The metric's corpus-level function; user aggregates are imported with the spec's folder on the path."""
    if m.aggregate == "mean":
        return mean_metric()
    if m.aggregate == "ratio":
        return ratio_metric()
    if m.aggregate == "f_beta":
        return f_beta_metric(m.beta)
    if m.aggregate.startswith("sigreport.labels:"):
        from sigreport.labels import averaged_metric  # built-in label aggregates (macro/weighted averages)

        return averaged_metric(m)
    module, _, name = m.aggregate.partition(":")
    added = folder is not None and str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        func = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise AggregateImportError(f"cannot import aggregate {m.aggregate!r}: {exc}") from None
    finally:
        if added:
            sys.path.remove(str(folder))
    return user_metric(func, len(m.statistics or ()), name=m.aggregate)
