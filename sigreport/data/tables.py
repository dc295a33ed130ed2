"""One reader for every input table: CSV, TSV, JSON Lines (.jsonl, .ndjson) and Parquet.

:func:`read_table` returns every column as text, with each row's place in the file: the 1-based *line*
of CSV, TSV and JSON Lines (blank lines and quoted line breaks counted), the 1-based *row* of Parquet.
Every message about a row quotes that number, so the readers of scores, predictions and annotations can
never drift apart again. Operating-system errors (a missing file, a folder, no permission) and
malformed rows (a trailing delimiter, a short row, a duplicate column name, a line that is not a JSON
object) are :class:`~sigreport.errors.DataError`\\ s, never tracebacks.

Why the columns are not a pandas frame: importing pandas costs about a third of a second, more than
``sigreport validate`` of a small spec should take, and turning a million-row column into Python
strings costs as much again. A delimited file is read by the csv module when it is small or quoted (it
knows where every record starts), and by pyarrow's multi-threaded reader when it is large; either way a
column is a sequence of text cells (a list, a pyarrow string array, or the codes and names a native source
made while reading, :class:`CodedCells`) that :func:`factorize` turns into integer codes and distinct names,
which is all the checks need. pandas is imported only for
JSON Lines, Parquet, a data frame given through the Python API, and the label tables
(:meth:`Table.to_frame`).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sigreport.errors import DataError, Problem

if TYPE_CHECKING:
    import pandas as pd

MAX_ROWS_SHOWN = 5
DELIMITED = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSON_LINES = (".jsonl", ".ndjson")
SMALL_TABLE_BYTES = 1 << 20  # below this the csv module is faster than importing pyarrow


@dataclasses.dataclass(frozen=True)
class Table:
    """A table read as text: ``cells[column][r]`` is row r's cell, ``places[r]`` its line in the file
    (``unit == 'line'``) or its row (Parquet, data frames). ``frame``: the label readers' pandas form
    (:meth:`to_frame`), None for the score table."""

    path: Path
    columns: tuple[str, ...]
    cells: dict[str, Sequence[str]]
    places: np.ndarray
    sha256: str
    unit: str = "line"
    frame: Any = None

    def __len__(self) -> int:
        return len(self.places)

    def where(self, index: Iterable[object]) -> str:
        """'line 3', 'lines 3, 4, 9 and 2 more': the first of the given places (lines or rows)."""
        places = [int(i) for i in index]  # type: ignore[call-overload]
        shown = ", ".join(str(x) for x in places[:MAX_ROWS_SHOWN])
        more = f" and {len(places) - MAX_ROWS_SHOWN} more" if len(places) > MAX_ROWS_SHOWN else ""
        return f"{self.unit}{'s' if len(places) > 1 else ''} {shown}{more}"

    def to_frame(self) -> pd.DataFrame:
        """The cells as a pandas frame of text, indexed by place (the label readers' form)."""
        import pandas as pd

        data = {c: pd.Series(cell_list(self.cells[c]), dtype=str) for c in self.columns}
        frame = pd.DataFrame(data, columns=list(self.columns))
        frame.index = pd.Index(self.places, dtype=np.int64)
        return frame


@dataclasses.dataclass(frozen=True, eq=False)
class CodedCells(Sequence[str]):
    """A text column held as integer codes into names (``cells[r] == names[codes[r]]``): the key columns a
    native source (TREC, text, lm-eval, Inspect, HELM) builds from the codes it made while reading, so that
    no string is made per row and no pyarrow is needed (importing pyarrow and its compute module costs more
    than reading a 100,000-line TREC run). :func:`factorize` reads the codes directly. ``names`` may hold a
    name twice or a name no row uses; factorize gives the distinct names of the rows, as for any column."""

    codes: np.ndarray  # int64, one per row
    names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, r: Any) -> Any:  # a cell, or a list of cells for a slice
        if isinstance(r, slice):
            return [self.names[c] for c in self.codes[r].tolist()]
        return self.names[int(self.codes[r])]

    def to_pylist(self) -> list[str]:
        names = self.names
        return [names[c] for c in self.codes.tolist()]

    def take(self, rows: np.ndarray) -> CodedCells:
        return CodedCells(self.codes[rows], self.names)


@dataclasses.dataclass(frozen=True, eq=False)
class NumberCells(Sequence[float]):
    """A column of numbers as a native source computed them (float64, one per row): :func:`plain_numbers` takes
    them as they are; :meth:`to_pylist` gives the floats (the exact paths show them as text)."""

    values: np.ndarray

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, r: Any) -> Any:
        return self.values[r].tolist()

    def to_pylist(self) -> list[float]:
        return self.values.tolist()


def factorize(cells: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """(codes, names): ``names`` the distinct cells in order of first appearance, ``codes[r]`` the
    index of row r's cell in it (int64)."""
    if isinstance(cells, CodedCells):
        return _recoded(cells)
    if isinstance(cells, list):
        index: dict[str, int] = {}
        codes = np.fromiter((index.setdefault(c, len(index)) for c in cells), dtype=np.int64, count=len(cells))
        return codes, list(index)
    encoded = cells.dictionary_encode()  # type: ignore[attr-defined]  # pyarrow: first-appearance order
    return _arrow_numbers(encoded.indices).astype(np.int64), [str(v) for v in encoded.dictionary.to_pylist()]


def _recoded(cells: CodedCells) -> tuple[np.ndarray, list[str]]:
    """:func:`factorize` of coded cells: the codes renumbered in order of first appearance (two codes of one name
    become one), the names no row uses left out."""
    index: dict[str, int] = {}
    same = np.fromiter((index.setdefault(n, len(index)) for n in cells.names), dtype=np.int64, count=len(cells.names))
    distinct = list(index)
    codes = same[cells.codes] if len(cells.codes) else np.zeros(0, dtype=np.int64)
    first = first_rows(codes, len(distinct))
    used = np.flatnonzero(first < len(codes))
    order = used[np.argsort(first[used], kind="stable")]
    renumber = np.full(len(distinct), -1, dtype=np.int64)
    renumber[order] = np.arange(len(order), dtype=np.int64)
    return renumber[codes], [distinct[k] for k in order.tolist()]


def first_rows(codes: np.ndarray, k: int) -> np.ndarray:
    """The first row of each code 0..k-1 in ``codes`` (``len(codes)`` for a code no row has): what orders names
    by first appearance."""
    first = np.full(k, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes), dtype=np.int64))
    return first


def _arrow_numbers(array: Any) -> np.ndarray:
    """A null-free pyarrow array of fixed-width numbers as numpy, read from its buffer: pyarrow's own
    ``to_numpy`` imports pandas (a third of a second) to look for pandas types."""
    dtype = _NUMPY_OF[str(array.type)]
    return np.frombuffer(array.buffers()[1], dtype=dtype)[array.offset:array.offset + len(array)]


_NUMPY_OF = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "double": np.float64}


_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # ASCII digits only


def plain_numbers(cells: Sequence[str]) -> np.ndarray | None:
    """Every cell as a float64 when all are plain finite decimal numbers; None otherwise (the caller
    then takes its exact path, which names the offending lines). Both readers round correctly, so the
    values are the same bits whichever reader read the file."""
    if isinstance(cells, NumberCells):
        values = np.array(cells.values, dtype=np.float64)
        return values if np.isfinite(values).all() else None
    if isinstance(cells, list):
        match = _PLAIN_NUMBER.fullmatch
        if not all(match(c) for c in cells):
            return None
        values = np.array([float(c) for c in cells], dtype=float) if cells else np.zeros(0)
    else:
        import pyarrow as pa

        try:
            numbers = cells.cast(pa.float64())  # type: ignore[attr-defined]
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError):
            return None
        if numbers.null_count:
            return None
        values = _arrow_numbers(numbers).copy()
    return values if np.isfinite(values).all() else None


def text_series(cells: Sequence[str]) -> pd.Series:
    """The cells as a pandas text series (for the exact, rarely taken paths)."""
    import pandas as pd

    return pd.Series(cell_list(cells), dtype=str)


def cell_list(cells: Sequence[str]) -> list[str]:
    """A column's cells as a Python list (a list as it is; a pyarrow array or coded cells converted)."""
    return cells if isinstance(cells, list) else cells.to_pylist()  # type: ignore[attr-defined]


def frame_table(frame: pd.DataFrame, field: str) -> Table:
    """A data frame standing in for the table the spec names at ``field`` (Python API): cells as text,
    places given as row numbers (1 = the first row), sha256 of its CSV form."""
    import pandas as pd

    text = _as_text(frame.reset_index(drop=True))
    shown = f"<{field} data frame>"
    _check_header(list(text.columns), shown, line=None)  # a frame has no lines
    text.index = pd.RangeIndex(1, len(text) + 1)
    digest = hashlib.sha256(text.to_csv(index=False).encode("utf-8")).hexdigest()
    return _from_frame(Path(shown), text, digest, "row")


def read_table(path: Path, source: str, field: str) -> Table:
    """Read one table with every column as text; ``source``/``field``: the spec entry that names it."""
    raw = _read_bytes(path, source, field)
    suffix = path.suffix.lower()
    shown = str(path)
    digest = hashlib.sha256(raw).hexdigest()
    try:
        if suffix in DELIMITED:
            return _read_delimited(raw, DELIMITED[suffix], path, digest)
        if suffix in JSON_LINES:
            return _from_frame(path, _read_json_lines(raw, shown), digest, "line")
        if suffix == ".parquet":
            return _from_frame(path, _read_parquet(raw, path, source, field), digest, "row")
    except (ValueError, UnicodeDecodeError) as exc:  # pandas' ParserError is a ValueError
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(source, [Problem(source, None, field, f"cannot read {path}: {first}")]) from None
    raise DataError(source, [Problem(source, None, field, f"{path.name}: unknown table format {suffix!r}; "
                                     "use .csv, .tsv, .jsonl, .ndjson or .parquet")])


def _from_frame(path: Path, frame: pd.DataFrame, digest: str, unit: str) -> Table:
    columns = tuple(str(c) for c in frame.columns)
    cells = {c: [str(v) for v in frame.iloc[:, k].tolist()] for k, c in enumerate(columns)}
    return Table(path, columns, cells, np.asarray(frame.index, dtype=np.int64), digest, unit)


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


def _read_delimited(raw: bytes, sep: str, path: Path, digest: str) -> Table:
    """Header from line 1; every row must have the header's number of fields.

    Large unquoted files take the fast path: cells from pyarrow's multi-threaded reader, which refuses
    any row whose field count differs from the header's, and line numbers from the row order (no blank
    lines) or from one numpy pass over the bytes (blank lines). Small files, quoted files (a field may
    hold a delimiter or a line break) and anything pyarrow refuses are read with the csv module, which
    knows where every record starts and names the lines with a wrong number of fields.
    """
    if len(raw) >= SMALL_TABLE_BYTES and b'"' not in raw:
        table = _read_with_pyarrow(raw, sep, path, digest)
        if table is not None:
            return table
    return _read_with_csv(raw, sep, path, digest)


def _read_with_pyarrow(raw: bytes, sep: str, path: Path, digest: str) -> Table | None:
    """The fast path; None when pyarrow is missing or refuses the file (the csv module then reads it or
    names the faulty lines)."""
    try:
        import pyarrow as pa  # optional (the parquet extra); about 4x faster than the csv module
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    try:
        names = _header_names(raw, sep)
        grid = pcsv.read_csv(io.BytesIO(raw), read_options=pcsv.ReadOptions(column_names=names, skip_rows=1),
                             parse_options=pcsv.ParseOptions(delimiter=sep, quote_char=False),
                             convert_options=pcsv.ConvertOptions(
                                 column_types={n: pa.string() for n in names}, strings_can_be_null=False,
                                 quoted_strings_can_be_null=False, null_values=[]))
    except Exception:  # noqa: BLE001 - whatever pyarrow refuses, the exact path reads or reports
        return None
    if _has_blank_lines(raw):
        starts, counts = _fast_layout(raw, sep)
        if len(starts) != grid.num_rows + 1 or (counts != len(names)).any():
            return None
        places = starts[1:]
    else:
        places = np.arange(2, grid.num_rows + 2, dtype=np.int64)
    shown = str(path)
    _check_header(names, shown)
    cells = {n: grid.column(k).combine_chunks() for k, n in enumerate(names)}
    return Table(path, tuple(names), cells, places, digest)


def _header_names(raw: bytes, sep: str) -> list[str]:
    """The first line's fields (the file has no quotes), a byte-order mark dropped."""
    end = raw.find(b"\n")
    line = (raw if end < 0 else raw[:end]).decode("utf-8-sig").rstrip("\r")
    if not line:
        raise ValueError("no header on the first line")
    return line.split(sep)


def _has_blank_lines(raw: bytes) -> bool:
    return raw[:1] in (b"\n", b"\r") or b"\n\n" in raw or (b"\r" in raw and b"\n\r\n" in raw)


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


def _read_with_csv(raw: bytes, sep: str, path: Path, digest: str) -> Table:
    """The exact path: the csv module's records, each with the line it starts on."""
    shown = str(path)
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
    header = rows[0]
    _check_header(header, shown)
    cells = {h: [r[k] for r in rows[1:]] for k, h in enumerate(header)}
    return Table(path, tuple(header), cells, np.array(starts[1:], dtype=np.int64), digest)


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


def _check_header(header: list[str], shown: str, line: int | None = 1) -> None:
    seen: dict[str, int] = {}
    for h in header:
        seen[h] = seen.get(h, 0) + 1
    dup = [h for h, n in seen.items() if n > 1]
    if dup:
        raise DataError(shown, [Problem(shown, line, "", f"duplicate column name{'s' if len(dup) > 1 else ''} "
                                        f"{', '.join(repr(d) for d in dup)} in the header; each column needs "
                                        "its own name")])


# -------------------------------------------------------------------------------------------- JSON Lines


def _read_json_lines(raw: bytes, shown: str) -> pd.DataFrame:
    """One JSON object per line; blank lines are skipped but counted."""
    import pandas as pd

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
        import pyarrow  # noqa: F401  (a dependency of sigreport; an installation may still lack it)
    except ImportError:
        raise DataError(source, [Problem(source, None, field, f"{path.name}: reading Parquet needs pyarrow "
                                         "(pip install pyarrow)")]) from None
    import pandas as pd

    frame = pd.read_parquet(io.BytesIO(raw))
    _check_header([str(c) for c in frame.columns], str(path))
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    return _as_text(frame)


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell as text ('' for null), as the CSV reader gives them."""
    frame = frame.astype(object).where(frame.notna(), "").astype(str)
    frame.columns = [str(c) for c in frame.columns]
    return frame


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")  # control characters and U+FEFF


def control_problems(table: Table, columns: dict[str, str],
                     factorized: dict[str, tuple[np.ndarray, list[str]]]) -> list[Problem]:
    """Names holding a control character (newline, tab, ESC, DEL, C1), which no report can show, or a
    byte-order mark (U+FEFF) inside the file: invisible, it makes ``\ufeffA`` a system apart from ``A``
    (and matplotlib's PDF writer fails on it). It comes from files joined after each began with one; the
    one at the start of the file is removed when the file is read.

    ``columns``: role -> the file's column name; ``factorized``: (codes, distinct values) of each role's
    column (roles missing from it are skipped). Checked on distinct values, so the cost is linear.
    """
    out: list[Problem] = []
    shown = str(table.path)
    for col, file_col in columns.items():
        if col not in factorized:
            continue
        codes, uniques = factorized[col]
        bad = [k for k, v in enumerate(uniques) if _UNPRINTABLE.search(v)]
        for k in bad[:MAX_ROWS_SHOWN]:
            at = table.places[codes == k]
            what = ("contains a control character (a line break, tab or terminal escape); names must be printable"
                    if _CONTROL.search(uniques[k]) else
                    "contains a byte-order mark (U+FEFF, invisible; files joined after each began with one?): remove it")
            out.append(Problem(shown, None, "", f"column {file_col!r} at {table.where(at)}: {uniques[k]!r} {what}"))
        if len(bad) > MAX_ROWS_SHOWN:
            out.append(Problem(shown, None, "", f"column {file_col!r}: {len(bad) - MAX_ROWS_SHOWN} more values with "
                               "control characters or byte-order marks"))
    return out
