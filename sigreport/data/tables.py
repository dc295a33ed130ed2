"""One reader for every input table: CSV, TSV, JSON Lines (.jsonl, .ndjson) and Parquet.

:func:`read_table` returns every column as text with the frame's index holding each row's place in the
file: the 1-based *line* of CSV, TSV and JSON Lines (blank lines and quoted line breaks counted), the
1-based *row* of Parquet. Every message about a row quotes that number, so the readers of scores,
predictions and annotations can never drift apart again. Operating-system errors (a missing file, a
folder, no permission) and malformed rows (a trailing delimiter, a short row, a duplicate column name,
a line that is not a JSON object) are :class:`~sigreport.errors.DataError`\\ s, never tracebacks.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from sigreport.errors import DataError, Problem

MAX_ROWS_SHOWN = 5
DELIMITED = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSON_LINES = (".jsonl", ".ndjson")


@dataclasses.dataclass(frozen=True)
class Table:
    """A table read as text. ``frame.index`` holds file lines (``unit == 'line'``) or rows (Parquet)."""

    path: Path
    frame: pd.DataFrame
    sha256: str
    unit: str = "line"

    def where(self, index: Iterable[object]) -> str:
        """'line 3', 'lines 3, 4, 9 and 2 more': the first places of ``index`` (labels of ``frame``)."""
        places = [int(i) for i in index]  # type: ignore[call-overload]
        shown = ", ".join(str(x) for x in places[:MAX_ROWS_SHOWN])
        more = f" and {len(places) - MAX_ROWS_SHOWN} more" if len(places) > MAX_ROWS_SHOWN else ""
        return f"{self.unit}{'s' if len(places) > 1 else ''} {shown}{more}"


def frame_table(frame: pd.DataFrame, field: str) -> Table:
    """A data frame standing in for the table the spec names at ``field`` (Python API): cells as text,
    places given as row numbers (1 = the first row), sha256 of its CSV form."""
    text = _as_text(frame.reset_index(drop=True))
    _check_header(list(text.columns), f"<{field} data frame>")
    text.index = pd.RangeIndex(1, len(text) + 1)
    digest = hashlib.sha256(text.to_csv(index=False).encode("utf-8")).hexdigest()
    return Table(Path(f"<{field} data frame>"), text, digest, "row")


def read_table(path: Path, source: str, field: str) -> Table:
    """Read one table with every column as text; ``source``/``field``: the spec entry that names it."""
    raw = _read_bytes(path, source, field)
    suffix = path.suffix.lower()
    shown = str(path)
    digest = hashlib.sha256(raw).hexdigest()
    try:
        if suffix in DELIMITED:
            return Table(path, _read_delimited(raw, DELIMITED[suffix], shown), digest)
        if suffix in JSON_LINES:
            return Table(path, _read_json_lines(raw, shown), digest)
        if suffix == ".parquet":
            return Table(path, _read_parquet(raw, path, source, field), digest, "row")
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(source, [Problem(source, None, field, f"cannot read {path}: {first}")]) from None
    raise DataError(source, [Problem(source, None, field, f"{path.name}: unknown table format {suffix!r}; "
                                     "use .csv, .tsv, .jsonl, .ndjson or .parquet")])


def _read_bytes(path: Path, source: str, field: str) -> bytes:
    """The file's bytes, or a DataError saying why the operating system refused them."""
    def fail(message: str) -> DataError:
        return DataError(source, [Problem(source, None, field, message)])

    try:
        if path.is_dir():
            raise fail(f"{path} is a folder, not a table file")
        return path.read_bytes()
    except FileNotFoundError:
        raise fail(f"file not found: {path}") from None
    except NotADirectoryError:
        raise fail(f"file not found: {path} (a parent of it is a file)") from None
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None


# -------------------------------------------------------------------------------------------- CSV, TSV


def _read_delimited(raw: bytes, sep: str, shown: str) -> pd.DataFrame:
    """Header from line 1; every row must have the header's number of fields.

    Files without a quote character take the fast path: field counts and line starts from one numpy
    pass over the bytes, cells from pandas' C parser. Quoted files (a field may hold a delimiter or a
    line break) are read with the csv module, which knows where every record starts.
    """
    if b'"' not in raw and not _has_blank_lines(raw):
        grid = _parse_with_pyarrow(raw, sep)
        if grid is not None:  # every line a record: line = row + 1
            header = [str(h) for h in grid.iloc[0]]
            _check_header(header, shown)
            frame = grid.iloc[1:]
            frame.columns = header
            frame.index = pd.RangeIndex(2, len(grid) + 1)
            return frame
    layout = None if b'"' in raw else _fast_layout(raw, sep)
    if layout is not None:
        starts, counts = layout
        if not len(starts):
            raise DataError(shown, [Problem(shown, None, "", "the file is empty (no header line)")])
        if (counts != counts[0]).any():
            raise DataError(shown, _field_count_problems(raw, sep, shown))
        grid = _parse_unquoted(raw, sep)
        if len(grid) == len(starts) and grid.shape[1] == counts[0]:
            header = [str(h) for h in grid.iloc[0]]
            _check_header(header, shown)
            frame = grid.iloc[1:]
            frame.columns = header
            frame.index = pd.Index(starts[1:])
            return frame
    return _read_with_csv(raw, sep, shown)


def _has_blank_lines(raw: bytes) -> bool:
    return raw[:1] in (b"\n", b"\r") or b"\n\n" in raw or b"\n\r\n" in raw


def _parse_with_pyarrow(raw: bytes, sep: str) -> pd.DataFrame | None:
    """Cells by pyarrow's multi-threaded reader, which refuses any row whose field count differs from the
    first line's; None when pyarrow is missing or refuses (the exact path then names the lines)."""
    try:
        import pyarrow  # noqa: F401  (optional: the parquet extra; about 4x faster than the C parser)
    except ImportError:
        return None
    try:
        return pd.read_csv(io.BytesIO(raw), engine="pyarrow", sep=sep, header=None, dtype=str,
                           keep_default_na=False, encoding="utf-8")
    except Exception:  # noqa: BLE001 - whatever pyarrow refuses, the exact path reads or reports
        return None


def _parse_unquoted(raw: bytes, sep: str) -> pd.DataFrame:
    """Cells of an unquoted delimited file: pyarrow's multi-threaded reader when installed, else pandas' C
    parser. Blank lines are skipped by both (the line numbers come from :func:`_fast_layout`)."""
    options = dict(sep=sep, header=None, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    try:
        import pyarrow  # noqa: F401  (optional: the parquet extra; about 4x faster on large tables)
    except ImportError:
        return pd.read_csv(io.BytesIO(raw), quoting=csv.QUOTE_NONE, **options)  # type: ignore[arg-type]
    try:
        return pd.read_csv(io.BytesIO(raw), engine="pyarrow", **options)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - anything pyarrow refuses, the C parser reads or reports exactly
        return pd.read_csv(io.BytesIO(raw), quoting=csv.QUOTE_NONE, **options)  # type: ignore[arg-type]


def _fast_layout(raw: bytes, sep: str) -> tuple[np.ndarray, np.ndarray]:
    """(line, field count) of every non-blank line of an unquoted file, header first."""
    a = np.frombuffer(raw, dtype=np.uint8)
    ends = np.flatnonzero(a == 10)
    if len(a) and a[-1] != 10:
        ends = np.append(ends, len(a))
    begins = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    seps = np.flatnonzero(a == ord(sep))
    counts = np.searchsorted(seps, ends) - np.searchsorted(seps, begins) + 1
    last = a[np.maximum(ends - 1, 0)] if len(a) else np.zeros(0, dtype=np.uint8)
    length = ends - begins - ((ends > begins) & (last == 13))
    if len(raw) >= 3 and raw[:3] == b"\xef\xbb\xbf" and len(length):
        length[0] -= 3
    keep = length > 0
    return np.flatnonzero(keep) + 1, counts[keep]


def _read_with_csv(raw: bytes, sep: str, shown: str) -> pd.DataFrame:
    """The exact path: the csv module's records, each with the line it starts on."""
    reader = csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=sep)
    rows: list[list[str]] = []
    starts: list[int] = []
    start = 1
    for row in reader:
        if row:
            rows.append(row)
            starts.append(start)
        start = reader.line_num + 1
    if not rows:
        raise DataError(shown, [Problem(shown, None, "", "the file is empty (no header line)")])
    if any(len(r) != len(rows[0]) for r in rows):
        raise DataError(shown, _field_count_problems(raw, sep, shown))
    _check_header(rows[0], shown)
    frame = pd.DataFrame(rows[1:], columns=rows[0], index=pd.Index(starts[1:], dtype=np.int64), dtype=str)
    if not len(rows[1:]):
        frame = pd.DataFrame({c: pd.Series([], dtype=str) for c in rows[0]})
    return frame


def _field_count_problems(raw: bytes, sep: str, shown: str) -> list[Problem]:
    """The slow, exact path, taken only when a row's field count differs from the header's."""
    reader = csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=sep)
    header: list[str] = []
    for header in reader:
        if header:
            break
    problems: list[Problem] = []
    start = reader.line_num + 1
    bad = 0
    for row in reader:
        if row and len(row) != len(header):
            bad += 1
            if bad <= MAX_ROWS_SHOWN:
                hint = " (a trailing delimiter?)" if len(row) > len(header) and not any(
                    f.strip() for f in row[len(header):]) else ""
                problems.append(Problem(shown, None, "", f"line {start} has {len(row)} field{'s' if len(row) != 1 else ''}"
                                        f", the header has {len(header)}{hint}"))
        start = reader.line_num + 1
    if bad > MAX_ROWS_SHOWN:
        problems.append(Problem(shown, None, "", f"and {bad - MAX_ROWS_SHOWN} more lines with a wrong number of "
                                "fields"))
    return problems or [Problem(shown, None, "", "rows with a wrong number of fields")]


def _check_header(header: list[str], shown: str) -> None:
    seen: dict[str, int] = {}
    for h in header:
        seen[h] = seen.get(h, 0) + 1
    dup = [h for h, n in seen.items() if n > 1]
    if dup:
        raise DataError(shown, [Problem(shown, 1, "", f"duplicate column name{'s' if len(dup) > 1 else ''} "
                                        f"{', '.join(repr(d) for d in dup)} in the header; each column needs "
                                        "its own name")])


# -------------------------------------------------------------------------------------------- JSON Lines


def _read_json_lines(raw: bytes, shown: str) -> pd.DataFrame:
    """One JSON object per line; blank lines are skipped but counted."""
    records: list[dict[str, object]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_no_duplicate_keys)
        except _DuplicateKeys as exc:
            problems.append(Problem(shown, None, "", f"line {number}: duplicate key{'s' if len(exc.keys) > 1 else ''} "
                                    f"{', '.join(repr(k) for k in exc.keys)}"))
            continue
        except ValueError as exc:
            problems.append(Problem(shown, None, "", f"line {number} is not valid JSON: {exc}"))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(shown, None, "", f"line {number} is not a JSON object"))
            continue
        records.append(obj)
        lines.append(number)
        if len(problems) > MAX_ROWS_SHOWN:
            break
    if problems:
        raise DataError(shown, problems[:MAX_ROWS_SHOWN])
    frame = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    frame.index = pd.Index(lines, dtype=np.int64)
    return _as_text(frame)


class _DuplicateKeys(ValueError):
    def __init__(self, keys: list[str]):
        super().__init__("duplicate keys")
        self.keys = keys


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [k for k, _ in pairs]
    dup = list(dict.fromkeys(k for k in keys if keys.count(k) > 1))
    if dup:
        raise _DuplicateKeys(dup)
    return dict(pairs)


# -------------------------------------------------------------------------------------------- Parquet


def _read_parquet(raw: bytes, path: Path, source: str, field: str) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401  (optional dependency: the parquet extra)
    except ImportError:
        raise DataError(source, [Problem(source, None, field, f"{path.name}: reading Parquet needs pyarrow "
                                         "(pip install 'sigreport[parquet]')")]) from None
    frame = pd.read_parquet(io.BytesIO(raw))
    _check_header([str(c) for c in frame.columns], str(path))
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    return _as_text(frame)


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell as text ('' for null), as the CSV reader gives them."""
    frame = frame.astype(object).where(frame.notna(), "").astype(str)
    frame.columns = [str(c) for c in frame.columns]
    return frame


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def control_problems(table: Table, columns: dict[str, str],
                     factorized: dict[str, tuple[np.ndarray, list[str]]] | None = None) -> list[Problem]:
    """Names holding a control character (newline, tab, ESC, DEL, C1), which no report can show.

    ``columns``: frame column -> the file's column name; ``factorized``: (codes, distinct values) of
    columns the caller has already factorised. Checked on distinct values, so the cost is linear.
    """
    out: list[Problem] = []
    shown = str(table.path)
    for col, file_col in columns.items():
        if col not in table.frame.columns:
            continue
        if factorized is not None and col in factorized:
            codes, uniques = factorized[col]
        else:
            codes, index = pd.factorize(table.frame[col], sort=False)
            uniques = [str(v) for v in index.tolist()]
        bad = [k for k, v in enumerate(uniques) if _UNPRINTABLE.search(v)]
        for k in bad[:MAX_ROWS_SHOWN]:
            at = table.frame.index[codes == k]
            out.append(Problem(shown, None, "", f"column {file_col!r} at {table.where(at)}: {uniques[k]!r} "
                               "contains a control character (a line break, tab or terminal escape); names must be "
                               "printable"))
        if len(bad) > MAX_ROWS_SHOWN:
            out.append(Problem(shown, None, "", f"column {file_col!r}: {len(bad) - MAX_ROWS_SHOWN} more values with "
                               "control characters"))
    return out
