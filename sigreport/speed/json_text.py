"""JSON text written in one pass: exactly ``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``
(or, compact, with ``separators=(",", ":")`` and no indent: the pairs' side file of a large results.json).

With ``indent`` the json module falls back to its pure-Python encoder, a chain of generators that costs
seconds on a large report; and results.json's records would first be converted to dicts and then written.
:class:`Writer` writes the same text with one function call per container and C-level string escaping,
from the records themselves, with the rules of their converter (tests/results/test_results_json.py compares the
two on edge cases, random documents and every example). On the plain path
(:func:`sigreport.speed.is_plain`) it is ``json.dumps`` of the converted document.

What a record is, and how it converts, is the caller's (``results/io.py`` passes
``sigreport.stats.result.to_jsonable`` and ``json_fields_of``): this module knows JSON only.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sigreport.speed import is_plain

Convert = Callable[[Any], Any]  # any value -> JSON data (non-finite floats None, records dicts)
FieldsOf = Callable[[type], "tuple[tuple[str, ...], bool] | None"]  # a record type -> (field names, extra follows)
# per type: None (not a record: converted), else its field names, their escaped keys, a getter of their
# values (one C call) and whether ``extra`` follows them
_Shape = tuple[frozenset[str], tuple[str, ...], Callable[[Any], tuple[Any, ...]], bool]

_escape = json.encoder.encode_basestring  # type: ignore[attr-defined]  # json.dumps's C function (ensure_ascii=False)
_FINITE = math.isfinite


def dumps(doc: Any, compact: bool = False) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``; ``compact``: with
    ``separators=(",", ":")`` and no indent instead (one line)."""
    if compact:
        return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)


class _Deferred:
    """A value to be written as the converter would convert it (passed as ``convert`` to a document maker)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj


class Writer:
    """The one-pass writer for the records of one converter (``convert``, ``fields_of``: see the module);
    ``compact``: the text of :func:`dumps` with ``compact`` (one line, ``","`` and ``":"`` separators), for
    :meth:`converted` and :meth:`indented` alike."""

    def __init__(self, convert: Convert, fields_of: FieldsOf, compact: bool = False) -> None:
        self.convert, self.fields_of, self.compact = convert, fields_of, compact
        self._step, self._colon = ("", ":") if compact else ("  ", ": ")  # one indentation level; after a key
        self._start = "" if compact else "\n"  # the top level's newline
        self._shapes: dict[type, _Shape | None] = {}

    def indented(self, doc: Any) -> str:
        """:func:`dumps` of ``doc`` (JSON data)."""
        if is_plain():
            return dumps(doc, self.compact)
        parts: list[str] = []
        self._write(doc, self._start, parts)
        return "".join(parts)

    def converted(self, obj: Any) -> str:
        """``dumps(convert(obj))``, without building the converted copy."""
        if is_plain():
            return dumps(self.convert(obj), self.compact)
        parts: list[str] = []
        self._emit(obj, self._start, parts)
        return "".join(parts)

    def document(self, make: Callable[[Convert], Any]) -> str:
        """``dumps(make(convert))``: ``make`` builds the document with ``convert`` applied to its records and
        mappings (``Results.to_dict``); here they are written from the objects themselves."""
        if is_plain():
            return dumps(make(self.convert), self.compact)
        parts: list[str] = []
        self._write(make(_Deferred), self._start, parts)
        return "".join(parts)

    def _write(self, v: Any, newline: str, out: list[str]) -> None:
        """Append the JSON text of data ``v`` (at this indentation) to ``out``."""
        kind = type(v)
        if kind is _Deferred:
            self._emit(v.obj, newline, out)
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
            inner = newline + self._step
            sep = "{" + inner
            for k, x in v.items():
                out.append(sep + _key(k) + self._colon)
                sep = "," + inner
                self._write(x, inner, out)
            out.append(newline + "}")
            return
        if isinstance(v, (list, tuple)):
            if not v:
                out.append("[]")
                return
            inner = newline + self._step
            sep = "[" + inner
            for x in v:
                out.append(sep)
                sep = "," + inner
                self._write(x, inner, out)
            out.append(newline + "]")
            return
        text = _scalar(v)
        if text is None:
            raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")
        out.append(text)

    def _emit(self, v: Any, newline: str, out: list[str]) -> None:
        """Append ``dumps(convert(v))`` (at this indentation) to ``out``.

        The common shapes (records, dicts with string keys, lists, plain scalars) are written directly, each
        scalar field in one append; anything else is converted and written by :meth:`_write`, so the rules
        stay those of the two-pass path."""
        kind = type(v)
        text = _plain(v, kind)
        if text is not None:
            out.append(text)
            return
        if kind is list or kind is tuple:
            if not v:
                out.append("[]")
                return
            inner = newline + self._step
            sep = "[" + inner
            for x in v:
                text = _plain(x, type(x))
                if text is None:
                    out.append(sep)
                    self._emit(x, inner, out)
                else:
                    out.append(sep + text)
                sep = "," + inner
            out.append(newline + "]")
            return
        if kind is dict:
            if not all(type(k) is str for k in v):  # str(k) may merge keys: the two-pass rules
                self._write(self.convert(v), newline, out)
                return
            self._object([_escape(k) + self._colon for k in v], v.values(), newline, out)
            return
        shape = self._shape(kind)
        if shape is None:
            self._write(self.convert(v), newline, out)
            return
        names, keys, values, custom = shape
        extra = (getattr(v, "extra", None) or {}) if custom else {}
        if not extra:
            self._object(keys, values(v), newline, out)
            return
        if not all(type(k) is str for k in extra):
            self._write(self.convert(v), newline, out)
            return
        more = [k for k in extra if k not in names]
        self._object([*keys, *(_escape(k) + self._colon for k in more)], [*values(v), *(extra[k] for k in more)],
                     newline, out)

    def _object(self, keys: Sequence[str], values: Iterable[Any], newline: str, out: list[str]) -> None:
        """An object of ``keys`` (each escaped, with its colon) and ``values``; plain scalars (the most
        common values, :func:`_plain` inlined) in one append each."""
        if not keys:
            out.append("{}")
            return
        inner = newline + self._step
        sep = "{" + inner
        comma = "," + inner
        append, frepr, finite, escape, emit = out.append, float.__repr__, _FINITE, _escape, self._emit
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
                emit(x, inner, out)
            sep = comma
        append(newline + "}")

    def _shape(self, kind: type) -> _Shape | None:
        try:
            return self._shapes[kind]
        except KeyError:
            pass
        fields = self.fields_of(kind)
        shape = None
        if fields is not None:
            names, custom = fields
            get = operator.attrgetter(*names) if len(names) > 1 else (
                (lambda v, n=names[0]: (getattr(v, n),)) if names else (lambda v: ()))
            shape = (frozenset(names), tuple(_escape(n) + self._colon for n in names), get, custom)
        self._shapes[kind] = shape
        return shape


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


def _plain(x: Any, kind: type) -> str | None:
    """The JSON text of a plain scalar as the converter leaves it (non-finite floats ``null``), or None."""
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
