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
import hashlib
import json
import warnings
from pathlib import Path
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
_COMPACT = Writer(to_jsonable, json_fields_of, compact=True)  # the side file's lines (PAIRS_FILE)


def dumps_jsonable(obj: Any) -> str:
    """``dumps_indented(to_jsonable(obj))``, byte for byte, without building the converted copy."""
    return _WRITER.converted(obj)


def dumps_indented(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)``, byte for byte, in one pass."""
    return _WRITER.indented(doc)


HEADER_FIELDS = ("schema_version", "sigreport_version", "title", "alpha", "seed", "data", "systems", "corpora",
                 "metrics", "tests", "analyses", "pairs_file")
"""The top-level fields of a results.json (:meth:`Results.to_dict`)."""


class UnreadFieldsWarning(UserWarning):
    """A version-1 results.json held fields or analysis kinds this sigreport does not know: they were skipped."""


PAIRS_FILE = "results-pairs.jsonl.zst"
"""The side file of a results.json that would exceed :data:`PAIRS_LIMIT`: the pairs of its large families, one JSON
line per pair (``{"analysis": id, "pair": {...}}``, the pair as results.json writes it, compact), zstd-compressed
(pyarrow's codec; ``zstd -dc results-pairs.jsonl.zst`` reads it too). results.json then names it in ``pairs_file``
(path, sha256, the analyses whose pairs it holds and their counts) and writes those analyses' ``pairs`` as []."""

PAIRS_LIMIT = 100 * 1024 * 1024
"""results.json's size (bytes, estimated from each family's first :data:`_SAMPLE` pairs) beyond which the pairs of
families of more than :data:`PAIRS_MIN` pairs go to :data:`PAIRS_FILE`."""

PAIRS_MIN = 1_000
_SAMPLE = 100


def _moved(results: Results) -> list[Any]:
    """The records whose pairs go to the side file (none when results.json stays under :data:`PAIRS_LIMIT`)."""
    big = [r for r in results.records if len(getattr(r, "pairs", ()) or ()) > PAIRS_MIN]
    if not big:
        return []
    size = 0.0
    for r in results.records:
        pairs = getattr(r, "pairs", ()) or ()
        if len(pairs) > PAIRS_MIN:
            size += len(dumps_jsonable(list(pairs[:_SAMPLE]))) / _SAMPLE * len(pairs)
    return big if size > PAIRS_LIMIT else []


def to_json_files(results: Results) -> tuple[str, bytes | None]:
    """results.json's text and, where it would exceed :data:`PAIRS_LIMIT`, the bytes of :data:`PAIRS_FILE` (else
    None: the text is :func:`to_json`'s)."""
    moved = _moved(results)
    if not moved:
        return to_json(results), None
    side = pairs_bytes(moved)
    ids = {r.id for r in moved}
    slim = dataclasses.replace(results, records=tuple(dataclasses.replace(r, pairs=()) if r.id in ids else r
                                                      for r in results.records))
    info = {"path": PAIRS_FILE, "sha256": hashlib.sha256(side).hexdigest(), "format": "jsonl+zstd",
            "analyses": {r.id: len(r.pairs) for r in moved}}
    return _WRITER.document(lambda convert: {**slim.to_dict(convert), "pairs_file": info}) + "\n", side


def pairs_bytes(records: list[Any]) -> bytes:
    """The side file's bytes: one compact JSON line per pair of ``records`` (``json.dumps(to_jsonable(pair),
    ensure_ascii=False, allow_nan=False, separators=(",", ":"))``, written in one pass by :data:`_COMPACT`), zstd-compressed (pyarrow's codec at
    its default level: the same bytes for the same pairs) as they are made, :data:`_LINES` lines at a time, so that
    the uncompressed text (about 1 GB at 499,500 pairs) is never held whole."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        for r in records:
            head = '{"analysis":' + json.dumps(r.id, ensure_ascii=False) + ',"pair":'
            for s0 in range(0, len(r.pairs), _LINES):
                out.write("".join(head + _COMPACT.converted(p) + "}\n"
                                  for p in r.pairs[s0:s0 + _LINES]).encode("utf-8"))
    return sink.getvalue().to_pybytes()


_LINES = 5_000


def _unzstd(data: bytes) -> bytes:
    import pyarrow as pa

    with pa.CompressedInputStream(pa.BufferReader(data), "zstd") as stream:
        return stream.read()


def with_pairs(doc: dict[str, Any], side: bytes) -> dict[str, Any]:
    """``doc`` (a results.json document with ``pairs_file``) with its analyses' pairs read back from the side
    file's bytes; ValueError when the bytes are not the file results.json names (its sha256) or miss pairs."""
    info = doc.get("pairs_file") or {}
    if hashlib.sha256(side).hexdigest() != info.get("sha256"):
        raise ValueError(f"{info.get('path', PAIRS_FILE)}: its sha256 is not the one results.json names (another "
                         "build's side file, or a damaged one)")
    found: dict[str, list[Any]] = {}
    for line in _unzstd(side).decode("utf-8").splitlines():
        row = json.loads(line)
        found.setdefault(row["analysis"], []).append(row["pair"])
    counts = info.get("analyses") or {}
    short = [k for k, n in counts.items() if len(found.get(k, ())) != n]
    if short:
        raise ValueError(f"{info.get('path', PAIRS_FILE)}: the pairs of {', '.join(short)} are not the count "
                         "results.json names")
    analyses = [{**a, "pairs": found[a["id"]]} if isinstance(a, dict) and a.get("id") in counts else a
                for a in doc.get("analyses", [])]
    return {k: v for k, v in {**doc, "analyses": analyses}.items() if k != "pairs_file"}


def read(path: str | Path, partial: bool = False) -> Results:
    """The :class:`Results` of a results.json file (or of the report folder holding it), with the pairs of its
    side file (:data:`PAIRS_FILE`) when it names one."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(doc, dict) and doc.get("pairs_file"):
        doc = with_pairs(doc, (path.parent / str(doc["pairs_file"].get("path", PAIRS_FILE))).read_bytes())
    return from_dict(doc, partial)


def from_dict(doc: dict[str, Any], partial: bool = False) -> Results:
    """A :class:`Results` from a results.json document, its records of the classes they were written from
    (:mod:`sigreport.results.reading`; ``partial``: a hand-made or older document, read leniently). Raises
    ValueError for another schema version or a document that does not fit the records. Fields and kinds of
    schema version 1 this sigreport does not know (a later version's additions) are skipped, their paths in
    ``Results.unread`` and, for a whole document, in one :class:`UnreadFieldsWarning`."""
    if doc.get("pairs_file"):
        raise ValueError(f"results.json keeps the pairs of {len(doc['pairs_file'].get('analyses') or {})} analyses in "
                         f"{doc['pairs_file'].get('path', PAIRS_FILE)}: read it with sigreport.results.read(path), "
                         "or join them with sigreport.results.io.with_pairs(doc, side_file_bytes)")
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
