"""results.json: written and read here only (``schema_version`` 1).

Field names are a contract (README "results.json"): later versions add kinds and fields but rename
none. Records are written field by field in a fixed order (a record may name its order in
``json_fields``; method-specific values of a pairwise row follow its fields); non-finite numbers
become ``null``. :func:`from_json` gives back a :class:`Results` whose records are read-only views with
the same attribute names as the typed records, so a report can be rendered or compared from a
results.json alone.
"""

from __future__ import annotations

import json
import math
import types
from typing import Any

from sigreport.results.collection import MetricInfo, Results
from sigreport.results.records import Record

SCHEMA_VERSION = 1


def to_json(results: Results) -> str:
    """The results.json text (the same bytes for the same results): exactly ``json.dumps(results.to_dict(),
    indent=2, ensure_ascii=False, allow_nan=False) + "\\n"``, written by :func:`dumps_indented`."""
    return dumps_indented(results.to_dict()) + "\n"


def dumps_indented(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``, byte for byte, in one pass.

    With ``indent`` the json module falls back to its pure-Python encoder, a chain of generators that
    costs seconds on a large report; this writes the same text with one function call per container and
    C-level string escaping (tests/test_startup.py compares the two on every example and edge case)."""
    parts: list[str] = []
    _write(doc, "\n", parts)
    return "".join(parts)


_escape = json.encoder.encode_basestring  # the C function json.dumps uses with ensure_ascii=False


def _scalar(v: Any) -> str | None:
    """The JSON text of a string, number, bool or None as json.dumps writes it; None for containers."""
    if isinstance(v, str):
        return _escape(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        if v != v or v in (math.inf, -math.inf):
            raise ValueError("Out of range float values are not JSON compliant: " + repr(v))
        return float.__repr__(v)
    return None


def _key(k: Any) -> str:
    """A dict key as json.dumps writes it (strings escaped; numbers, bools and None as their text)."""
    if isinstance(k, str):
        return _escape(k)
    text = _scalar(k)
    if text is None:
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")
    return f'"{text}"'


def _write(v: Any, newline: str, out: list[str]) -> None:
    kind = type(v)
    if kind is float:
        if v != v or v in (math.inf, -math.inf):
            raise ValueError("Out of range float values are not JSON compliant: " + repr(v))
        out.append(float.__repr__(v))
        return
    if kind is str:
        out.append(_escape(v))
        return
    if isinstance(v, dict):
        if not v:
            out.append("{}")
            return
        inner = newline + "  "
        sep = "{" + inner
        for k, x in v.items():
            out.append(sep + _key(k) + ": ")
            sep = "," + inner
            _write(x, inner, out)
        out.append(newline + "}")
        return
    if isinstance(v, (list, tuple)):
        if not v:
            out.append("[]")
            return
        inner = newline + "  "
        sep = "[" + inner
        for x in v:
            out.append(sep)
            sep = "," + inner
            _write(x, inner, out)
        out.append(newline + "]")
        return
    text = _scalar(v)
    if text is None:
        raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")
    out.append(text)


class LoadedRecord(types.SimpleNamespace, Record):
    """A record read back from results.json: its fields as attributes (nested objects likewise)."""


def _view(value: Any) -> Any:
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _view(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_view(v) for v in value)
    return value


def from_dict(doc: dict[str, Any]) -> Results:
    """A :class:`Results` from a results.json document. Raises ValueError for another schema version."""
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"results.json schema_version {version!r}; this sigreport reads {SCHEMA_VERSION}")
    records = []
    for a in doc.get("analyses", []):
        fields = {k: _view(v) for k, v in a.items() if k not in ("average_ranks", "corrections", "accuracy")}
        # maps keyed by system or correction name stay mappings
        fields.update({k: v for k, v in a.items() if k in ("average_ranks", "accuracy")})
        if "corrections" in a:
            fields["corrections"] = {k: _view(v) for k, v in a["corrections"].items()}
        records.append(LoadedRecord(**fields))
    return Results(
        title=doc["title"], alpha=doc["alpha"], seed=doc["seed"], data=doc.get("data", {}),
        systems=tuple(doc.get("systems", ())), corpora=tuple(doc.get("corpora", ())),
        metrics={k: MetricInfo(**m) for k, m in doc.get("metrics", {}).items()}, tests=doc.get("tests", {}),
        records=tuple(records), sigreport_version=doc.get("sigreport_version", ""), schema_version=version)


def from_json(text: str) -> Results:
    return from_dict(json.loads(text))
