"""results.json: written and read here only (``schema_version`` 1).

Field names are a contract (docs/results-json.md): later versions add kinds and fields but rename
none. Records are written field by field in a fixed order (a record may name its order in
``json_fields``; method-specific values of a pairwise row follow its fields); non-finite numbers
become ``null``. :func:`from_json` gives back a :class:`Results` of the same typed records
(:mod:`sigreport.results.reading`), so a report can be rendered or compared from a results.json alone, and
writing it again gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from typing import Any

from sigreport.results.collection import MetricInfo, Results
from sigreport.results.reading import Reader, read_records
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


HEADER_FIELDS = ("schema_version", "sigreport_version", "title", "alpha", "seed", "data", "systems", "corpora",
                 "metrics", "tests", "analyses")
"""The top-level fields of a results.json (:meth:`Results.to_dict`)."""


class UnreadFieldsWarning(UserWarning):
    """A version-1 results.json held fields or analysis kinds this sigreport does not know: they were skipped."""


def from_dict(doc: dict[str, Any], partial: bool = False) -> Results:
    """A :class:`Results` from a results.json document, its records of the classes they were written from
    (:mod:`sigreport.results.reading`; ``partial``: a hand-made or older document, read leniently). Raises
    ValueError for another schema version or a document that does not fit the records. Fields and kinds of
    schema version 1 this sigreport does not know (a later version's additions) are skipped, their paths in
    ``Results.unread`` and, for a whole document, in one :class:`UnreadFieldsWarning`."""
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise ValueError(f"results.json schema_version {version!r}: this sigreport reads schema_version "
                         f"{SCHEMA_VERSION} only (the document was written by sigreport "
                         f"{doc.get('sigreport_version') or 'of an unknown version'})")
    whole, reader = Reader(), Reader(partial)  # the header is read whole in both modes: a Results needs it all
    header = whole.obj(_Header, doc, "", closed=False)
    metrics = {k: whole.obj(MetricInfo, m, f"metrics.{k}") for k, m in (doc.get("metrics") or {}).items()}
    records = read_records(doc.get("analyses", []), partial, reader)
    unread = (*(str(k) for k in doc if k not in HEADER_FIELDS), *whole.unread, *reader.unread)
    if unread and not partial:
        shown = ", ".join(unread[:6]) + (f" and {len(unread) - 6} more" if len(unread) > 6 else "")
        warnings.warn(UnreadFieldsWarning(f"results.json: {len(unread)} fields and kinds this sigreport does not "
                                          f"read (a later version's additions) were skipped: {shown}"), stacklevel=2)
    return Results(
        title=header.title, alpha=header.alpha, seed=header.seed, data=doc.get("data", {}),
        systems=tuple(doc.get("systems", ())), corpora=tuple(doc.get("corpora", ())),
        metrics=metrics, tests=doc.get("tests", {}), records=records,
        sigreport_version=doc.get("sigreport_version", ""), schema_version=version, unread=unread)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Header:
    """The header fields a Results must have (read like a record's: a missing one is an error naming it)."""

    title: str
    alpha: float
    seed: int


def from_json(text: str, partial: bool = False) -> Results:
    """The :class:`Results` of a results.json text: ``to_json(from_json(text)) == text`` for a text sigreport
    wrote (``partial``: an older or hand-made one, read leniently; see :func:`from_dict`)."""
    return from_dict(json.loads(text), partial)
