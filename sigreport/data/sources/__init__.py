"""Sources of scores: each format named in ``data.scores`` read by its own module into one long table.

Every module turns its native files (a wide table, several files by a glob, TREC runs with qrels, MT
hypotheses with references, lm-evaluation-harness samples, Inspect AI logs, HELM runs) into the
:class:`~sigreport.data.tables.Table` of ``system, corpus, item, metric, value`` rows that :mod:`sigreport.data.scores` reads, so everything
downstream is the same whatever the source. A native file's mistakes are reported by its module with
the file, the line and the problem; the field libraries (ir_measures, sacrebleu) are imported only by
the module that needs them, when a spec names that format.

Which module reads a format is its declaration's (:data:`sigreport.spec.sources.FORMATS`, where each format's
model, default metrics and path fields are declared too): :func:`read_source` dispatches on it, with no list of
formats of its own.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from sigreport.data.tables import Table
from sigreport.errors import DataError
from sigreport.spec import FORMATS, SourceFormat, SpecFile

if TYPE_CHECKING:
    import pandas as pd

Reader = Callable[..., tuple[Table, Mapping[str, object]]]


@dataclasses.dataclass(frozen=True)
class SourceTable:
    """The long table a source gives, and what results.json records of how it was made (``info``)."""

    table: Table
    info: Mapping[str, object] = dataclasses.field(default_factory=dict)
    per_task_metrics: bool = False  # a metric may be absent from a corpus (each lm-eval task logs its own)


def read_source(sf: SpecFile, frame: pd.DataFrame | None = None) -> SourceTable:
    """The long score table of ``data.scores`` (or of the data frame standing in for it), read by the reader
    its format declares."""
    source = sf.spec.data.source
    assert source is not None
    declaration = format_declaration(getattr(source, "format"))
    reader = reader_of(declaration)
    args: tuple[Any, ...] = (sf, source, frame) if declaration.reads_frame else (sf, source)
    if declaration.optional_library:
        table, info = _imported(sf, lambda: reader(*args))
    else:
        table, info = reader(*args)
    return SourceTable(table, info, per_task_metrics=declaration.per_task_metrics)


def format_declaration(name: str) -> SourceFormat:
    """The declaration of the input format ``name``; an unknown name (a registration undone, a model built by
    hand) raises naming the allowed ones (validation refuses it before, in a spec)."""
    if name not in FORMATS:
        raise ValueError(f"unknown input format {name!r}; allowed: {', '.join(FORMATS)}")
    return FORMATS[name]


def reader_of(declaration: SourceFormat) -> Reader:
    """The function a declaration names (``package.module:function``), imported when a spec uses the format."""
    module, _, function = declaration.reader.partition(":")
    reader: Reader = getattr(importlib.import_module(module), function)
    return reader


def _imported(sf: SpecFile, read: Callable[[], tuple[Table, Mapping[str, object]]]
              ) -> tuple[Table, Mapping[str, object]]:
    """``read()``, with a missing field library (an optional extra not installed) as a one-line DataError."""
    try:
        return read()
    except ImportError as exc:
        raise DataError(str(sf.path), [sf.problem(str(exc), "data", "scores", "format")]) from None
