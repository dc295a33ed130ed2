"""results.json: written and read here only (``schema_version`` 1).

Field names are a contract (docs/results-json.md): later versions add kinds and fields but rename
none. Records are written field by field in a fixed order (a record may name its order in
``json_fields``; method-specific values of a pairwise row follow its fields); non-finite numbers
become ``null``. :func:`from_json` gives back a :class:`Results` whose records are read-only views with
the same attribute names as the typed records, so a report can be rendered or compared from a
results.json alone.
"""

from __future__ import annotations

import json
import types
from typing import Any

from sigreport.results.collection import MetricInfo, Results
from sigreport.results.records import Record
from sigreport.speed.json_text import Writer
from sigreport.stats.result import json_fields_of, to_jsonable

SCHEMA_VERSION = 1


def to_json(results: Results) -> str:
    """The results.json text (the same bytes for the same results): exactly ``json.dumps(results.to_dict(),
    indent=2, ensure_ascii=False, allow_nan=False) + "\\n"``, written in one pass from the records
    (:mod:`sigreport.speed.json_text`)."""
    return _WRITER.document(results.to_dict) + "\n"


_WRITER = Writer(to_jsonable, json_fields_of)


def dumps_jsonable(obj: Any) -> str:
    """``dumps_indented(to_jsonable(obj))``, byte for byte, without building the converted copy."""
    return _WRITER.converted(obj)


def dumps_indented(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``, byte for byte, in one pass."""
    return _WRITER.indented(doc)


class LoadedRecord(types.SimpleNamespace, Record):
    """A record read back from results.json: its fields as attributes (nested objects likewise)."""


def _view(value: Any) -> Any:
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _view(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_view(v) for v in value)
    return value


def load_record(a: dict[str, Any]) -> LoadedRecord:
    """One analysis of a results.json document as a record (its fields as attributes)."""
    fields = {k: _view(v) for k, v in a.items() if k not in ("average_ranks", "corrections", "accuracy")}
    # maps keyed by system or correction name stay mappings
    fields.update({k: v for k, v in a.items() if k in ("average_ranks", "accuracy")})
    if "corrections" in a:
        fields["corrections"] = {k: _view(v) for k, v in a["corrections"].items()}
    return LoadedRecord(**fields)


def from_dict(doc: dict[str, Any]) -> Results:
    """A :class:`Results` from a results.json document. Raises ValueError for another schema version."""
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"results.json schema_version {version!r}; this sigreport reads {SCHEMA_VERSION}")
    records = [load_record(a) for a in doc.get("analyses", [])]
    return Results(
        title=doc["title"], alpha=doc["alpha"], seed=doc["seed"], data=doc.get("data", {}),
        systems=tuple(doc.get("systems", ())), corpora=tuple(doc.get("corpora", ())),
        metrics={k: MetricInfo(**m) for k, m in doc.get("metrics", {}).items()}, tests=doc.get("tests", {}),
        records=tuple(records), sigreport_version=doc.get("sigreport_version", ""), schema_version=version)


def from_json(text: str) -> Results:
    return from_dict(json.loads(text))
