"""Sources of scores: each format named in ``data.scores`` read by its own module into one long table.

Every module turns its native files (a wide table, several files by a glob, TREC runs with qrels, MT
hypotheses with references, lm-evaluation-harness samples, Inspect AI logs, HELM runs) into the
:class:`~sigreport.data.tables.Table` of ``system, corpus, item, metric, value`` rows that :mod:`sigreport.data.scores` reads, so everything
downstream is the same whatever the source. A native file's mistakes are reported by its module with
the file, the line and the problem; the field libraries (ir_measures, sacrebleu) are imported only by
the module that needs them, when a spec names that format.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from sigreport.data.sources.tables import table_source
from sigreport.data.tables import Table
from sigreport.errors import DataError
from sigreport.spec import HelmSource, InspectSource, LmEvalSource, SpecFile, TextSource, TrecSource

if TYPE_CHECKING:
    import pandas as pd


@dataclasses.dataclass(frozen=True)
class SourceTable:
    """The long table a source gives, and what results.json records of how it was made (``info``)."""

    table: Table
    info: Mapping[str, object] = dataclasses.field(default_factory=dict)
    per_task_metrics: bool = False  # a metric may be absent from a corpus (each lm-eval task logs its own)


def read_source(sf: SpecFile, frame: pd.DataFrame | None = None) -> SourceTable:
    """The long score table of ``data.scores`` (or of the data frame standing in for it)."""
    source = sf.spec.data.source
    assert source is not None
    if isinstance(source, TextSource):
        from sigreport.data.sources.text import text_source

        return SourceTable(*_imported(sf, lambda: text_source(sf, source)))
    if isinstance(source, LmEvalSource):
        from sigreport.data.sources.lm_eval import lm_eval_source

        return SourceTable(*lm_eval_source(sf, source), per_task_metrics=True)
    if isinstance(source, InspectSource):
        from sigreport.data.sources.inspect_logs import inspect_source

        return SourceTable(*_imported(sf, lambda: inspect_source(sf, source)), per_task_metrics=True)
    if isinstance(source, HelmSource):
        from sigreport.data.sources.helm import helm_source

        return SourceTable(*helm_source(sf, source), per_task_metrics=True)
    if isinstance(source, TrecSource):
        from sigreport.data.sources.trec import trec_source

        return SourceTable(*_imported(sf, lambda: trec_source(sf, source)))
    return SourceTable(table_source(sf, source, frame))


def _imported(sf: SpecFile, read: Callable[[], tuple[Table, dict[str, object]]]) -> tuple[Table, dict[str, object]]:
    """``read()``, with a missing field library (an optional extra not installed) as a one-line DataError."""
    try:
        return read()
    except ImportError as exc:
        raise DataError(str(sf.path), [sf.problem(str(exc), "data", "scores", "format")]) from None
