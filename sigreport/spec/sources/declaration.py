"""What an input format of ``data.scores`` declares: one frozen :class:`SourceFormat` in its own module."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import Any

from sigreport.spec.base import _Model

DefaultMetrics = Callable[[Mapping[str, Any]], dict[str, dict[str, Any]]]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SourceFormat:
    """One input format, declared once: the spec's tagged union, its messages, the files a spec names and the
    dispatch that reads the scores are all derived from the declarations in :data:`sigreport.spec.sources.FORMATS`.

    ``reader`` is named as ``"package.module:function"`` (an entry point's form), not imported: the readers live
    in the data layer (:mod:`sigreport.data.sources`), above the spec, which must stay importable without numpy
    or pandas; :func:`sigreport.data.sources.read_source` resolves the name when a spec uses the format. The
    reader is called ``reader(spec_file, source)`` (``reader(spec_file, source, frame)`` when ``reads_frame``)
    and returns the long table and what results.json records of how it was made.
    """

    name: str  # the value of data.scores.format
    model: type[_Model]  # its pydantic model; its ``format`` field is Literal[name]
    reader: str  # "package.module:function" of the function reading its files into the long table
    path_fields: tuple[str, ...]  # fields of the model that name files (a text, a list or a mapping of them)
    default_metrics: DefaultMetrics  # raw data.scores mapping -> the metrics it defines (MetricSpec fields)
    reads_frame: bool = False  # a data frame given to the Python API may stand in for its files
    per_task_metrics: bool = False  # a metric may be absent from a corpus (each task logs its own)
    optional_library: bool = False  # the reader imports an optional extra: an ImportError is a one-line DataError

    def __post_init__(self) -> None:
        if typing.get_args(self.model.model_fields["format"].annotation) != (self.name,):
            raise ValueError(f"source format {self.name!r}: its model's format field must be Literal[{self.name!r}]")
        if self.reader.count(":") != 1:
            raise ValueError(f"source format {self.name!r}: reader {self.reader!r} is not 'package.module:function'")


def no_metrics(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A format whose metrics the spec names itself (a table's metric column): it defines none."""
    return {}


def listed(raw: Mapping[str, Any], key: str, default: list[str], **fields: Any) -> dict[str, dict[str, Any]]:
    """The names listed under ``key`` of a raw source mapping (``default`` when absent), each a metric with
    ``fields``; what is not a list of names is left to validation to refuse."""
    chosen = raw.get(key, default)
    return {m: dict(fields) for m in (chosen if isinstance(chosen, list) else []) if isinstance(m, str) and m}
