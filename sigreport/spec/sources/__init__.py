"""Input formats of ``data.scores``: each declares itself in its module here (model, default metrics, path fields,
reader), and :data:`FORMATS` lists them; the spec's tagged union, its messages and the data layer's dispatch
(:func:`sigreport.data.sources.read_source`) are built from that list.

Adding a format is one module declaring ``FORMAT = SourceFormat(...)`` (its reader, named there, lives in the data
layer, or in a plugin's own module) and one line in :data:`FORMATS`; at run time
:func:`sigreport.spec.register_format` does the same. The declarations sit in the spec layer, not in
``sigreport/data/sources/``, because the spec (a layer below data) validates with these models and may not
import the data layer (docs/architecture.md), nor numpy or pandas (``sigreport validate`` and ``schema`` start
fast).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Union

from pydantic import Discriminator, Tag

from sigreport.spec.sources import helm, inspect_logs, lm_eval, table, text, trec
from sigreport.spec.sources.declaration import SourceFormat

FORMATS: dict[str, SourceFormat] = {f.name: f for f in (table.FORMAT, text.FORMAT, trec.FORMAT, lm_eval.FORMAT,
                                                         inspect_logs.FORMAT, helm.FORMAT)}
"""Every input format by its ``format`` name, in the order the JSON Schema and messages list them."""


def format_of(value: Any) -> str | None:
    """Which model reads ``data.scores``: a path (text), or a mapping by its ``format`` (default table)."""
    if isinstance(value, str):
        return "path"
    if isinstance(value, dict):
        return value.get("format", "table") if isinstance(value.get("format", "table"), str) else None
    return getattr(value, "format", None)


def scores_source(formats: Mapping[str, SourceFormat]) -> Any:
    """The type of ``data.scores``: a file name, or a mapping tagged by ``format`` among ``formats``; a mapping
    of another format is refused naming every allowed one."""
    members = (Annotated[str, Tag("path")], *(Annotated[f.model, Tag(name)] for name, f in formats.items()))
    return Annotated[Union[members],  # noqa: UP007 (a Union of a tuple built at run time)
                     Discriminator(format_of, custom_error_type="source_format",
                                   custom_error_message="expected a file name or a mapping with format: "
                                   + ", ".join(formats))]


def source_metrics(scores: Any) -> dict[str, dict[str, Any]]:
    """The metrics a native source defines (a raw ``data.scores`` mapping): name -> MetricSpec fields."""
    if not isinstance(scores, dict) or not isinstance(scores.get("format"), str) or scores["format"] not in FORMATS:
        return {}
    return FORMATS[scores["format"]].default_metrics(scores)


def path_fields() -> tuple[str, ...]:
    """Fields of the source models that name files, over every format (each once, in declaration order)."""
    return tuple(dict.fromkeys(name for f in FORMATS.values() for name in f.path_fields))
