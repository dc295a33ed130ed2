"""Score tables as people have them: long or wide, one file or several by a glob, names in file names.

A *wide* table has one row per corpus or item (its name in the first column, or a data frame's index)
and one column per system (what ``df.groupby([...]).mean().unstack()`` gives, and what autorank and
scikit-posthocs take), or two header rows of metric and system (a data frame's two column levels).
Each score becomes a row of the long table, keeping the line of the file it came from; an empty cell is
an absent score. Several files (``path: data/*.csv``) are read one by one and stacked; ``from_name``
takes the system, corpus or metric of each file from its name. Messages about a stacked table name the
file and the line (:class:`FilesTable`).
"""

from __future__ import annotations

import csv
import dataclasses
import glob
import hashlib
import io
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sigreport.data.tables import DELIMITED, MAX_ROWS_SHOWN, CodedCells, Table, cell_list, frame_table, read_table
from sigreport.errors import DataError, Problem
from sigreport.spec import ColumnsSpec, SpecFile, TableSource

if TYPE_CHECKING:
    import pandas as pd

FILE_SHIFT = 32  # a stacked table's place: file index << FILE_SHIFT | line
GLOB_CHARS = re.compile(r"[*?\[]")


@dataclasses.dataclass(frozen=True)
class FilesTable(Table):
    """Several files stacked: each place holds the file's index and the line (or row) in it."""

    files: tuple[str, ...] = ()

    def where(self, index: Iterable[object]) -> str:
        places = [int(i) for i in index]  # type: ignore[call-overload]
        mask = (1 << FILE_SHIFT) - 1
        shown = ", ".join(f"{Path(self.files[p >> FILE_SHIFT]).name} {self.unit} {p & mask}"
                          for p in places[:MAX_ROWS_SHOWN])
        more = f" and {len(places) - MAX_ROWS_SHOWN} more" if len(places) > MAX_ROWS_SHOWN else ""
        return f"{shown}{more}"


def table_source(sf: SpecFile, source: TableSource, frame: pd.DataFrame | None, cols: ColumnsSpec | None = None,
                 role: str = "scores") -> Table:
    """The long table of a table source (or of the data frame standing in for it) at ``data.<role>``, its
    columns named as ``cols`` (default ``data.columns``) says."""
    cols = cols or sf.spec.data.columns
    field = f"data.{role}"
    if frame is not None:
        return wide_frame(frame, source, cols, field) if source.layout == "wide" else frame_table(frame, field)
    if source.path is None:
        raise DataError(str(sf.path), [sf.problem(f"{field} names no path: give one, or pass a data frame to the "
                                                  "Python API", "data", role)])
    files = matched_files(sf, source.path, ("data", role, "path"))
    tables = []
    for path in files:
        table = wide_file(sf, path, source, cols, field) if source.layout == "wide" else \
            read_table(path, str(sf.path), field)
        if source.from_name is not None:
            table = with_name_columns(table, path, source.from_name, cols)
        tables.append(table)
    return tables[0] if len(tables) == 1 else stacked(tables, source.path)


def read_table_source(sf: SpecFile, source: TableSource, frame: pd.DataFrame | None
                      ) -> tuple[Table, dict[str, object]]:
    """The reader the table format declares (sigreport.spec.sources.table): ``data.scores``' long table, and
    nothing more for results.json (a table records its files where every table does)."""
    return table_source(sf, source, frame), {}


def glob_matches(sf: SpecFile, pattern: str, keep: Callable[[Path], bool] = Path.is_file) -> list[Path]:
    """Every path a glob pattern (relative to the spec's folder, ``**`` recursive) matches that ``keep`` accepts,
    resolved and sorted."""
    return sorted(Path(p).resolve() for p in glob.glob(str(sf.folder / pattern), recursive=True) if keep(Path(p)))


def matched_files(sf: SpecFile, pattern: str, field: tuple[str, ...]) -> list[Path]:
    """The files a path names: itself, or every file a glob pattern matches (sorted; none is an error)."""
    if not GLOB_CHARS.search(pattern):
        return [sf.resolve(pattern)]
    found = glob_matches(sf, pattern)
    if not found:
        raise DataError(str(sf.path), [sf.problem(f"no file matches {pattern!r} (in {sf.folder})", *field)])
    return found


def name_pattern(pattern: str) -> re.Pattern[str]:
    """``'{corpus}/{system}.csv'`` as a regular expression matched against the end of a path."""
    parts = re.split(r"({system}|{corpus}|{metric})", pattern)
    rx = "".join(f"(?P<{p[1:-1]}>[^/]+?)" if p in ("{system}", "{corpus}", "{metric}") else re.escape(p)
                 for p in parts)
    return re.compile(f"(?:^|/){rx}$")


def names_from(path: Path, pattern: str) -> dict[str, str]:
    """The names ``pattern`` takes from ``path``; a DataError when it does not fit."""
    found = name_pattern(pattern).search(path.as_posix())
    if found is None:
        shown = str(path)
        raise DataError(shown, [Problem(shown, None, "data.scores.from_name",
                                        f"the file name does not fit from_name {pattern!r}")])
    return found.groupdict()


def with_name_columns(table: Table, path: Path, pattern: str, cols: ColumnsSpec) -> Table:
    """``table`` with a constant column for each name the file's name gives."""
    names = names_from(path, pattern)
    shown = str(path)
    clash = [getattr(cols, role) for role in names if getattr(cols, role) in table.columns]
    if clash:
        raise DataError(shown, [Problem(shown, None, "", f"column {clash[0]!r} is in the file and in "
                                        f"data.scores.from_name {pattern!r}: keep one")])
    cells = dict(table.cells)
    for role, value in names.items():
        cells[getattr(cols, role)] = [value] * len(table)
    return dataclasses.replace(table, columns=(*table.columns, *(getattr(cols, r) for r in names)), cells=cells)


def stacked(tables: Sequence[Table], pattern: str) -> FilesTable:
    """One table of several files' rows, in file order; the columns of every file must be the same."""
    first = tables[0]
    for t in tables[1:]:
        if set(t.columns) != set(first.columns):
            shown = str(t.path)
            raise DataError(shown, [Problem(shown, 1, "", f"columns {', '.join(map(repr, t.columns))} differ from "
                                            f"{first.path.name}'s: {', '.join(map(repr, first.columns))}")])
    cells = {c: _concatenated([t.cells[c] for t in tables]) for c in first.columns}
    places = np.concatenate([(np.int64(k) << FILE_SHIFT) | t.places.astype(np.int64) for k, t in enumerate(tables)])
    digest = hashlib.sha256("".join(t.sha256 for t in tables).encode()).hexdigest()
    return FilesTable(Path(pattern), first.columns, cells, places, digest, first.unit,
                      files=tuple(str(t.path) for t in tables))


def _concatenated(parts: list[Sequence[str]]) -> Sequence[str]:
    parts = [p.to_pylist() if isinstance(p, CodedCells) else p for p in parts]
    if all(isinstance(p, list) for p in parts):
        return [c for p in parts for c in p]
    import pyarrow as pa  # a large file's cells are a pyarrow array already

    return pa.concat_arrays([p if not isinstance(p, list) else pa.array(p, pa.string()) for p in parts])


# -------------------------------------------------------------------------------------------- wide tables


@dataclasses.dataclass(frozen=True)
class Grid:
    """A wide table as text: header rows (the first cell of each names the row-name column), data rows, and
    the line (or row) of each data row."""

    header: list[list[str]]
    rows: list[list[str]]
    places: list[int]
    unit: str = "line"


def wide_file(sf: SpecFile, path: Path, source: TableSource, cols: ColumnsSpec, field: str) -> Table:
    """A wide table file as the long table."""
    if path.suffix.lower() in DELIMITED:
        grid = _delimited_grid(path, DELIMITED[path.suffix.lower()], len(source.header), str(sf.path), field)
        raw_digest = hashlib.sha256(path.read_bytes()).hexdigest()
    else:  # JSON Lines, Parquet: one header row, the reader's own
        table = read_table(path, str(sf.path), field)
        if len(source.header) > 1:
            shown = str(path)
            raise DataError(shown, [Problem(shown, None, "", "two header rows need a .csv or .tsv file (or a data "
                                            "frame with two column levels)")])
        grid = Grid([list(table.columns)], [list(r) for r in zip(*(cell_list(table.cells[c]) for c in table.columns))],
                    [int(p) for p in table.places], table.unit)
        raw_digest = table.sha256
    return melted(grid, path, raw_digest, source, cols)



def _delimited_grid(path: Path, sep: str, n_header: int, source: str, field: str) -> Grid:
    table = read_table(path, source, field) if n_header == 1 else None  # one header: the common reader
    if table is not None:
        return Grid([list(table.columns)], [list(r) for r in zip(*(cell_list(table.cells[c]) for c in table.columns))],
                    [int(p) for p in table.places])
    text = path.read_bytes().decode("utf-8-sig")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    records: list[tuple[int, list[str]]] = []
    start = 1
    for row in reader:
        if row:
            records.append((start, row))
        start = reader.line_num + 1
    shown = str(path)
    if len(records) <= n_header:
        raise DataError(shown, [Problem(shown, None, "", f"the file needs {n_header} header lines and data lines")])
    header = [r for _, r in records[:n_header]]
    body = records[n_header:]
    width = len(header[-1])
    if body and body[0][1][0].strip() and not any(c.strip() for c in body[0][1][1:]):
        body = body[1:]  # pandas writes the row names' column title on a line of its own under two header rows
    bad = [line for line, r in body if len(r) != width] + [k + 1 for k, h in enumerate(header) if len(h) != width]
    if bad:
        raise DataError(shown, [Problem(shown, None, "", f"line {bad[0]} has another number of fields than the "
                                        f"header ({width})")])
    return Grid(header, [r for _, r in body], [line for line, _ in body])


def wide_frame(frame: pd.DataFrame, source: TableSource, cols: ColumnsSpec, field: str = "data.scores") -> Table:
    """A wide data frame (rows named by its index, or its first column when the index is the default one;
    one or two column levels) as the long table."""
    import pandas as pd

    levels = frame.columns.nlevels
    shown = f"<{field} data frame>"
    if levels != len(source.header):
        raise DataError(shown, [Problem(shown, None, f"{field}.header",
                                        f"the data frame has {levels} column level{'s' if levels > 1 else ''}, "
                                        f"{field}.header names {len(source.header)}: {', '.join(source.header)}")])
    plain_index = isinstance(frame.index, pd.RangeIndex) and frame.index.name is None
    body = frame if not plain_index else frame.iloc[:, 1:]
    names = frame.index if not plain_index else frame.iloc[:, 0]
    title = str(frame.index.name or "") if not plain_index else _label(frame.columns[0])
    header = [[title] + [_label(c[k] if levels > 1 else c) for c in body.columns] for k in range(levels)]
    text = body.astype(object).where(body.notna(), "").astype(str)
    rows = [[str(n), *r] for n, r in zip(names, text.itertuples(index=False, name=None))]
    grid = Grid(header, rows, list(range(1, len(rows) + 1)), "row")
    digest = hashlib.sha256(frame.to_csv().encode("utf-8")).hexdigest()
    return melted(grid, Path(shown), digest, source, cols)


def _label(value: Any) -> str:
    return "/".join(map(str, value)) if isinstance(value, tuple) else str(value)


def melted(grid: Grid, path: Path, digest: str, source: TableSource, cols: ColumnsSpec) -> Table:
    """One long row per non-empty score cell: the row's name, the column's system (and metric), the value."""
    shown = str(path)
    level = {name: k for k, name in enumerate(source.header)}
    keys = [tuple(h[c] for h in grid.header) for c in range(1, len(grid.header[-1]))]
    seen: dict[tuple[str, ...], int] = {}
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
    dup = [k for k, n in seen.items() if n > 1]
    if dup:
        raise DataError(shown, [Problem(shown, None, "", f"column {' / '.join(dup[0])!r} appears more than once in "
                                        "the header")])
    if any(not k[level["system"]].strip() for k in keys):
        raise DataError(shown, [Problem(shown, None, "", "a score column has no system name in the header")])
    row_role = getattr(cols, source.rows)
    out: dict[str, list[str]] = {row_role: [], cols.system: [], cols.value: []}
    if "metric" in level:
        out[cols.metric] = []
    places: list[int] = []
    for row, place in zip(grid.rows, grid.places):
        for c, key in enumerate(keys, start=1):
            value = row[c].strip()
            if not value:
                continue  # an empty cell: no score (data.missing says what happens)
            out[row_role].append(row[0].strip())
            out[cols.system].append(key[level["system"]].strip())
            if "metric" in level:
                out[cols.metric].append(key[level["metric"]].strip())
            out[cols.value].append(value)
            places.append(place)
    return Table(path, tuple(out), out, np.asarray(places, dtype=np.int64), digest, grid.unit)
