"""results.json: written and read here only (``schema_version`` 1).

Field names are a contract (docs/results-json.md): later versions add kinds and fields but rename
none. Records are written field by field in a fixed order (a record may name its order in
``json_fields``; method-specific values of a pairwise row follow its fields); non-finite numbers
become ``null``. :func:`from_json` gives back a :class:`Results` of the same typed records
(:mod:`sigreport.results.reading`), so a report can be rendered or compared from a results.json alone, and
writing it again gives the same bytes.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sigreport.results.collection import MetricInfo, Results
from sigreport.results.reading import read_records
from sigreport.stats.result import json_fields_of, to_jsonable

SCHEMA_VERSION = 1


def to_json(results: Results) -> str:
    """The results.json text (the same bytes for the same results): exactly ``json.dumps(results.to_dict(),
    indent=2, ensure_ascii=False, allow_nan=False) + "\\n"``.

    Written in one pass: the records are not first converted to dicts (:func:`to_jsonable`) and then
    written, but written from the records themselves with the same rules (:func:`dumps_jsonable`)."""
    parts: list[str] = []
    _write(results.to_dict(convert=_Jsonable), "\n", parts)
    parts.append("\n")
    return "".join(parts)


def dumps_jsonable(obj: Any) -> str:
    """``dumps_indented(to_jsonable(obj))``, byte for byte, without building the converted copy."""
    parts: list[str] = []
    _emit(obj, "\n", parts)
    return "".join(parts)


def dumps_indented(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``, byte for byte, in one pass.

    With ``indent`` the json module falls back to its pure-Python encoder, a chain of generators that
    costs seconds on a large report; this writes the same text with one function call per container and
    C-level string escaping (tests/test_results_json.py compares the two on edge cases and random documents)."""
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
    if kind is _Jsonable:
        _emit(v.obj, newline, out)
        return
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


class _Jsonable:
    """A value to be written as :func:`to_jsonable` would convert it (``Results.to_dict``'s ``convert``)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj


_FINITE = math.isfinite


def _emit(v: Any, newline: str, out: list[str]) -> None:
    """Append ``dumps_indented(to_jsonable(v))`` (at this indentation) to ``out``.

    The common shapes (records, dicts with string keys, lists, plain scalars) are written directly, each
    scalar field in one append; anything else is converted by :func:`to_jsonable` and written by
    :func:`_write`, so the rules stay those of the two-pass path."""
    kind = type(v)
    text = _plain(v, kind)
    if text is not None:
        out.append(text)
        return
    if kind is list or kind is tuple:
        if not v:
            out.append("[]")
            return
        inner = newline + "  "
        sep = "[" + inner
        for x in v:
            text = _plain(x, type(x))
            if text is None:
                out.append(sep)
                _emit(x, inner, out)
            else:
                out.append(sep + text)
            sep = "," + inner
        out.append(newline + "]")
        return
    if kind is dict:
        if not all(type(k) is str for k in v):  # str(k) may merge keys: the two-pass rules
            _write(to_jsonable(v), newline, out)
            return
        _object([_escape(k) + ": " for k in v], v.values(), newline, out)
        return
    shape = _shape(kind)
    if shape is None:
        _write(to_jsonable(v), newline, out)
        return
    names, keys, values, custom = shape
    extra = (getattr(v, "extra", None) or {}) if custom else {}
    if not extra:
        _object(keys, values(v), newline, out)
        return
    if not all(type(k) is str for k in extra):
        _write(to_jsonable(v), newline, out)
        return
    more = [k for k in extra if k not in names]
    _object([*keys, *(_escape(k) + ": " for k in more)], [*values(v), *(extra[k] for k in more)], newline, out)


def _plain(x: Any, kind: type) -> str | None:
    """The JSON text of a plain scalar as :func:`to_jsonable` leaves it (non-finite floats ``null``), or None."""
    if kind is float:
        return float.__repr__(x) if _FINITE(x) else "null"
    if kind is str:
        return _escape(x)
    if x is None:
        return "null"
    if kind is int:
        return int.__repr__(x)
    if kind is bool:
        return "true" if x else "false"
    return None


def _object(keys: Sequence[str], values: Iterable[Any], newline: str, out: list[str]) -> None:
    """An object of ``keys`` (each escaped, with its ``": "``) and ``values``; plain scalars (the most
    common values, :func:`_plain` inlined) in one append each."""
    if not keys:
        out.append("{}")
        return
    inner = newline + "  "
    sep = "{" + inner
    comma = "," + inner
    append, frepr, finite, escape = out.append, float.__repr__, _FINITE, _escape
    for key, x in zip(keys, values):
        kind = type(x)
        if kind is float:
            append(f"{sep}{key}{frepr(x)}" if finite(x) else f"{sep}{key}null")
        elif kind is str:
            append(f"{sep}{key}{escape(x)}")
        elif x is None:
            append(f"{sep}{key}null")
        elif kind is int:
            append(f"{sep}{key}{int.__repr__(x)}")
        elif kind is bool:
            append(f"{sep}{key}true" if x else f"{sep}{key}false")
        else:
            append(sep + key)
            _emit(x, inner, out)
        sep = comma
    append(newline + "}")


# per type: None (not a record: converted by to_jsonable), else its JSON field names, their escaped keys, a
# getter of their values (one C call) and whether ``extra`` follows them
_Shape = tuple[frozenset[str], tuple[str, ...], Callable[[Any], tuple[Any, ...]], bool]
_SHAPES: dict[type, _Shape | None] = {}


def _shape(kind: type) -> _Shape | None:
    try:
        return _SHAPES[kind]
    except KeyError:
        pass
    fields = json_fields_of(kind)
    shape = None
    if fields is not None:
        names, custom = fields
        get = operator.attrgetter(*names) if len(names) > 1 else (
            (lambda v, n=names[0]: (getattr(v, n),)) if names else (lambda v: ()))
        shape = (frozenset(names), tuple(_escape(n) + ": " for n in names), get, custom)
    _SHAPES[kind] = shape
    return shape


def from_dict(doc: dict[str, Any], partial: bool = False) -> Results:
    """A :class:`Results` from a results.json document, its records of the classes they were written from
    (:mod:`sigreport.results.reading`; ``partial``: a hand-made or older document, read leniently). Raises
    ValueError for another schema version or a document that does not fit the records."""
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"results.json schema_version {version!r}; this sigreport reads {SCHEMA_VERSION}")
    return Results(
        title=doc["title"], alpha=doc["alpha"], seed=doc["seed"], data=doc.get("data", {}),
        systems=tuple(doc.get("systems", ())), corpora=tuple(doc.get("corpora", ())),
        metrics={k: MetricInfo(**m) for k, m in doc.get("metrics", {}).items()}, tests=doc.get("tests", {}),
        records=read_records(doc.get("analyses", []), partial), sigreport_version=doc.get("sigreport_version", ""),
        schema_version=version)


def from_json(text: str, partial: bool = False) -> Results:
    """The :class:`Results` of a results.json text: ``to_json(from_json(text)) == text`` for a text sigreport
    wrote (``partial``: an older or hand-made one, read leniently; see :func:`from_dict`)."""
    return from_dict(json.loads(text), partial)
