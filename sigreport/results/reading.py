"""results.json read back into the record classes it was written from.

Every analysis of a document becomes the typed record of its kind (:data:`~.records.RECORD_KINDS`), its nested
objects the same classes the analysis made (a pair's :class:`~sigreport.stats.result.PairedTestResult`, effect sizes,
differences, a classification's metrics, ...), so a report rendered or compared from a results.json alone reads
the same objects as one built from data. The reading follows each class's type hints; numbers and strings are
kept as the document has them (never coerced), so writing the records again gives the same bytes.

Two modes. *Whole* documents (results.json as sigreport writes it): a field the class has no default for must
be present, and a value of the wrong shape is an error naming its path (a field added later has a default, so
older documents read). *Partial* documents (hand-made or older ones the archive meets, already checked for the
fields it reads by :mod:`sigreport.archive.documents`): a missing field reads as its type's empty value (None,
"", 0, NaN, False, (), {}), and so does one of the wrong shape (a list where an object belongs). Only the
decisions and the methods of such a document are read (:func:`sigreport.results.decisions.decide_document`, a
build's previous report), and what the archive compares: :func:`read_document` reads a document once into
:class:`DocumentRecords` (``sigreport diff``, the trends, the release index), :func:`read_header` its header.

In both modes a field or an analysis kind this sigreport does not know (a later sigreport's addition to schema
version 1, which only adds) is skipped and its path kept in :attr:`Reader.unread`, which ``from_dict`` hands
on as ``Results.unread``: a record class has nowhere to keep it (a pair's method-specific fields excepted: they
are its test's ``extra``), and the reader must not refuse what the schema promises to add.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, Union

from sigreport.results.collection import MetricInfo
from sigreport.results.records import (DescriptivesRecord, FriedmanRecord, PairRow, PairwiseRecord, Record,
                                       RMAnovaRecord, record_type)
from sigreport.stats.omnibus import FriedmanResult, RMAnovaResult, SphericityDetail
from sigreport.stats.result import PairedTestResult

_EMPTY: dict[Any, Any] = {str: "", int: 0, float: math.nan, bool: False}


class DocumentShapeError(ValueError):
    """A results.json analysis that does not fit its record class: the field path and what is wrong."""


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


class Reader:
    """Reads JSON values into the types of the records' fields (``partial``: see the module docstring)."""

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial
        self.unread: list[str] = []
        """Paths of the fields and analyses skipped as unknown, in document order."""

    def record(self, a: Mapping[str, Any], where: str) -> Record | None:
        """One analysis as its record; None for a kind this sigreport does not know (named in :attr:`unread`)."""
        if not isinstance(a, Mapping):
            raise DocumentShapeError(f"{where}: expected an object")
        cls = record_type(str(a.get("kind")), a.get("method"))
        if cls is None:
            self.unread.append(f"{where} (kind {a.get('kind')!r})")
            return None
        if cls is PairwiseRecord:
            context = {name: a.get(name) for name in PairRow.FROM_RECORD}
            pairs = tuple(self.pair_row(p, context, f"{where}.pairs[{i}]") for i, p in enumerate(a.get("pairs") or ()))
            return self.obj(cls, a, where, pairs=pairs)
        if cls is RMAnovaRecord:
            return self.obj(cls, a, where, anova=self.rm_anova(a, where))
        if cls is FriedmanRecord:
            ranks = self.flat(a, "average_ranks", dict[str, float | None], where)
            given = {name: a[name] for name in FriedmanRecord.FROM_RESULT if name in a}
            friedman = self.obj(FriedmanResult, {"method": a.get("method"), **given}, where, closed=False,
                                average_ranks=tuple(ranks.values()), warnings=())
            return self.obj(cls, a, where, friedman=friedman, systems=tuple(ranks))
        return self.obj(cls, a, where)

    def flat(self, a: Mapping[str, Any], name: str, tp: Any, where: str) -> Any:
        """Field ``name`` of ``a`` read as ``tp``, as :meth:`obj` reads a field (missing: an error, or in a partial
        document its empty value)."""
        if name in a:
            return self.field(tp, a[name], _at(where, name))
        if not self.partial:
            raise DocumentShapeError(f"{_at(where, name)}: missing")
        return self.empty(tp)

    def rm_anova(self, a: Mapping[str, Any], where: str) -> RMAnovaResult:
        """An RM-ANOVA record's result from its flat results.json fields: the sums and mean squares from the
        ``table``'s 'systems' and 'error' rows (None without a table: too few systems or items), the sphericity
        detail from ``mauchly_pvalue_second_order`` and ``epsilon_hf_uncapped`` (its first-order p is
        ``sphericity.pvalue``), no warnings (they are the record's)."""
        given = {name: a[name] for name in RMAnovaRecord.FROM_RESULT if name in a}
        base = self.obj(RMAnovaResult, {"method": a.get("method"), **given}, where, closed=False, ss_systems=None,
                        ss_error=None, ms_systems=None, ms_error=None, warnings=(),
                        sphericity_detail=SphericityDetail(pvalue_second_order=None, pvalue_first_order=None,
                                                           epsilon_hf_uncapped=None))
        rows = {row.source: row for row in base.table}
        systems, error = rows.get("systems"), rows.get("error")
        detail = SphericityDetail(pvalue_second_order=a.get("mauchly_pvalue_second_order"),
                                  pvalue_first_order=base.sphericity.pvalue,
                                  epsilon_hf_uncapped=a.get("epsilon_hf_uncapped"))
        return dataclasses.replace(
            base, ss_systems=systems.ss if systems else None, ms_systems=systems.ms if systems else None,
            ss_error=error.ss if error else None, ms_error=error.ms if error else None, sphericity_detail=detail)

    def pair_row(self, p: Any, context: Mapping[str, Any], where: str) -> PairRow:
        """A pairwise row: its flat results.json fields, the test's method-specific ones (``extra``) after them,
        and the test's method, alternative and interval level from its family's record."""
        if not isinstance(p, Mapping):
            raise DocumentShapeError(f"{where}: expected an object")
        extra = {k: v for k, v in p.items() if k not in PairRow.json_fields and k not in PairRow.WHEN_SET}
        test = self.obj(PairedTestResult, {**p, **context}, where, closed=False, extra=extra)
        return self.obj(PairRow, p, where, closed=False, test=test)

    def obj(self, cls: type, d: Any, where: str, closed: bool = True, **given: Any) -> Any:
        """An instance of dataclass ``cls`` from object ``d`` (``given``: fields already read; ``closed``: a field
        of ``d`` the class does not have is named in :attr:`unread`; else the caller keeps it)."""
        if not isinstance(d, Mapping):
            raise DocumentShapeError(f"{where}: expected an object, got {type(d).__name__}")
        hints = _hints(cls)
        fields = [f for f in dataclasses.fields(cls) if f.init]
        if closed:
            names = {f.name for f in fields} | set(getattr(cls, "json_fields", ()))
            self.unread += [_at(where, k) for k in d if k not in names]
        kwargs = dict(given)
        for f in fields:
            if f.name in kwargs:
                continue
            if f.name in d:
                kwargs[f.name] = self.field(hints[f.name], d[f.name], _at(where, f.name))
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                if not self.partial:
                    raise DocumentShapeError(f"{_at(where, f.name)}: missing")
                kwargs[f.name] = self.empty(hints[f.name])
        return cls(**kwargs)

    def field(self, tp: Any, v: Any, where: str) -> Any:
        """A field's value: :meth:`value`; in a partial document, a value of the wrong shape reads as empty."""
        try:
            return self.value(tp, v, where)
        except DocumentShapeError:
            if not self.partial:
                raise
            return self.empty(tp)

    def value(self, tp: Any, v: Any, where: str) -> Any:
        """``v`` read as type ``tp``: dataclasses from objects, tuples from lists; scalars as they are."""
        origin = typing.get_origin(tp)
        if origin is Union or origin is types.UnionType:
            if v is None:
                return None
            options = [t for t in typing.get_args(tp) if t is not type(None)]
            return self.value(options[0], v, where) if len(options) == 1 else v
        if origin is tuple:
            if not isinstance(v, list):
                raise DocumentShapeError(f"{where}: expected a list, got {type(v).__name__}")
            item = typing.get_args(tp)[0]
            return tuple(self.value(item, x, f"{where}[{i}]") for i, x in enumerate(v))
        if origin is dict:
            if not isinstance(v, Mapping):
                raise DocumentShapeError(f"{where}: expected an object, got {type(v).__name__}")
            item = typing.get_args(tp)[1]
            return {k: self.value(item, x, f"{where}.{k}") for k, x in v.items()}
        if dataclasses.is_dataclass(tp):
            return self.obj(tp, v, where)  # type: ignore[arg-type]
        return v

    def empty(self, tp: Any) -> Any:
        """A missing field of a partial document: its type's empty value."""
        origin = typing.get_origin(tp)
        if origin is Union or origin is types.UnionType:
            return None
        if origin is tuple:
            return ()
        if origin is dict:
            return {}
        if dataclasses.is_dataclass(tp):
            return self.obj(tp, {}, "")  # type: ignore[arg-type]
        return _EMPTY.get(tp)


def _at(where: str, name: object) -> str:
    """The path of field ``name`` of the object at ``where`` ("" for the document itself)."""
    return f"{where}.{name}" if where else str(name)


def read_records(analyses: Any, partial: bool = False, reader: Reader | None = None) -> tuple[Record, ...]:
    """The records of a results.json document's ``analyses`` (``partial``: see the module docstring; ``reader``:
    the one whose :attr:`Reader.unread` collects what was skipped)."""
    reader = reader or Reader(partial)
    found = (reader.record(a, f"analyses[{i}]") for i, a in enumerate(analyses or ()))
    return tuple(r for r in found if r is not None)


# ---- a results.json as the archive reads it (diff, trends, the release index) -------------------------

DEFAULT_DECIMALS = 4  # a document without a metric's decimals (hand-made): the renderer's default


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnalysisHeader:
    """The fields every analysis of a document has, of any kind (one this sigreport does not know included):
    its id, its kind, and the (metric, corpus) of its block (:func:`analysis_key`)."""

    id: str
    kind: str
    metric: str
    corpus: str | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class DocumentHeader:
    """The header of a results.json document, read leniently (:func:`read_header`: a field missing or of another
    type reads as None, or empty): what a reader needs before, or instead of, the analyses (whether two documents
    can be compared, the release index's title), without reading a large report's every pair."""

    schema_version: int | None
    sigreport_version: str | None
    title: str | None
    alpha: float | None
    data: Mapping[str, object]
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    metric_names: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class DocumentRecords(DocumentHeader):
    """A results.json document read leniently into records, for the readers that meet hand-made, older or
    partial documents (``sigreport diff``, trends, the release index; already checked for the fields they read
    by :mod:`sigreport.archive.documents`): its header (:class:`DocumentHeader`); ``metrics``: the
    :class:`~sigreport.results.collection.MetricInfo` of every metric that has descriptives, a missing label,
    direction or decimals defaulting to its name, higher is better and :data:`DEFAULT_DECIMALS`;
    ``analyses``: every analysis with an id, in document order (of a repeated id, the last); ``records``: the
    ones of a kind this sigreport knows, read as a partial document (see the module docstring), in document
    order (what :func:`~sigreport.results.decisions.decide_records` reads), and ``by_id``."""

    metrics: Mapping[str, MetricInfo]
    analyses: tuple[AnalysisHeader, ...]
    records: tuple[Record, ...]
    by_id: Mapping[str, Record]

    def record(self, analysis: str) -> Record | None:
        """The record of analysis id ``analysis`` (of a repeated id, the last analysis), None for an id without
        a record (none there, or of a kind this sigreport does not know)."""
        return self.by_id.get(analysis)

    def descriptives(self, metric: str, corpus: str | None) -> DescriptivesRecord | None:
        """The descriptives record of a block (the first in :attr:`by_id`), found at once."""
        return self._descriptives.get((metric, corpus))

    @functools.cached_property
    def _descriptives(self) -> dict[tuple[str | None, str | None], DescriptivesRecord]:
        found: dict[tuple[str | None, str | None], DescriptivesRecord] = {}
        for r in self.by_id.values():
            if isinstance(r, DescriptivesRecord):
                found.setdefault((r.metric, r.corpus), r)
        return found


def analysis_key(a: Mapping[str, Any]) -> tuple[str, str | None]:
    """(metric, corpus) of an analysis of a results.json document: its fields, else its id
    '<metric>/<corpus>/...' ('*': across corpora)."""
    parts = str(a.get("id", "")).split("/")
    metric = a.get("metric") or (parts[0] if parts else "")
    corpus = a.get("corpus") if "corpus" in a else (parts[1] if len(parts) > 2 and parts[1] != "*" else None)
    return str(metric), corpus


def read_document(doc: Mapping[str, Any]) -> DocumentRecords:
    """The :class:`DocumentRecords` of a results.json document as parsed: analyses without an id are left out
    (and those without a kind have no record), pairs without both systems and descriptives rows without a
    system are left out, a descriptives mean that is not a number reads as None."""
    reader = Reader(partial=True)
    headers: dict[str, AnalysisHeader] = {}
    records: list[Record] = []
    by_id: dict[str, Record] = {}
    for a in doc.get("analyses") or []:
        if not isinstance(a, dict) or "id" not in a:
            continue
        metric, corpus = analysis_key(a)
        aid = str(a["id"])
        headers[aid] = AnalysisHeader(id=aid, kind=str(a.get("kind")), metric=metric, corpus=corpus)
        record = reader.record(_cleaned({**a, "metric": metric, "corpus": corpus}), "") if "kind" in a else None
        if record is None:
            by_id.pop(aid, None)  # a repeated id: the last analysis of that id is the one compared
            continue
        records.append(record)
        by_id[aid] = record
    return DocumentRecords(**header_fields(doc), metrics=_metric_infos(doc, records),
                           analyses=tuple(headers.values()), records=tuple(records), by_id=by_id)


def read_header(doc: Mapping[str, Any]) -> DocumentHeader:
    """The :class:`DocumentHeader` of a results.json document as parsed (its analyses are not read)."""
    return DocumentHeader(**header_fields(doc))


def header_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    return dict(schema_version=_header(doc, "schema_version", int),
                sigreport_version=_header(doc, "sigreport_version", str), title=_header(doc, "title", str),
                alpha=_header(doc, "alpha", float), data=_header(doc, "data", dict) or {},
                systems=_names(doc.get("systems")), corpora=_names(doc.get("corpora")),
                metric_names=_names(doc.get("metrics")))


def _cleaned(a: dict[str, Any]) -> dict[str, Any]:
    """An analysis with the parts a partial record cannot hold left out (see :func:`read_document`)."""
    if isinstance(a.get("pairs"), list):
        a["pairs"] = [p for p in a["pairs"] if isinstance(p, dict) and "a" in p and "b" in p]
    if a["kind"] == "descriptives":
        rows = [r for r in a.get("systems") or [] if isinstance(r, dict) and "system" in r]
        a["systems"] = [{**r, "mean": r["mean"] if _is_number(r.get("mean")) else None} for r in rows]
    return a


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _header(doc: Mapping[str, Any], name: str, tp: type) -> Any:
    """A header field of the type it should have, else None (a number is an int or a float, never a bool)."""
    v = doc.get(name)
    if tp is float:
        return float(v) if _is_number(v) else None
    if tp is int:
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    return v if isinstance(v, tp) else None


def _names(v: object) -> tuple[str, ...]:
    """The names a header list holds (or the keys of a map: ``metrics``)."""
    return tuple(str(x) for x in (v.keys() if isinstance(v, dict) else v if isinstance(v, list) else ()))


def _metric_infos(doc: Mapping[str, Any], records: list[Record]) -> dict[str, MetricInfo]:
    """The metric of every descriptives record, its label, direction and decimals from the document's metrics."""
    given = doc.get("metrics") if isinstance(doc.get("metrics"), dict) else {}
    out = {}
    for m in dict.fromkeys(r.metric for r in records if r.kind == "descriptives"):
        info = given.get(m) if isinstance(given.get(m), dict) else {}
        out[str(m)] = MetricInfo(label=info.get("label", m), higher_is_better=bool(info.get("higher_is_better", True)),
                                 decimals=int(info.get("decimals", DEFAULT_DECIMALS)),
                                 aggregate=str(info.get("aggregate", "")))
    return out
