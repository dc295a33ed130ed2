"""Building the long score table from arrays: what the native sources (TREC, text, lm-eval, Inspect, HELM)
produce.

Key columns are given as integer codes into their names and stay so (:class:`~sigreport.data.tables.CodedCells`,
which :func:`~sigreport.data.tables.factorize` reads without a string per row); values stay float64
(:class:`~sigreport.data.tables.NumberCells`). No Python string is made per row and nothing here imports pyarrow
(its import and its compute module's cost 40 ms, more than reading a 100,000-line TREC run), so a source with
millions of per-item statistics costs what its field library costs, not a text round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.sources.tables import FILE_SHIFT, FilesTable
from sigreport.data.tables import CodedCells, NumberCells, Table, factorize


def coded(codes: np.ndarray, names: Sequence[str]) -> CodedCells:
    """A text column whose row r is ``names[codes[r]]``."""
    return CodedCells(np.asarray(codes, dtype=np.int64).reshape(-1), tuple(str(n) for n in names))


def constant(value: str, n: int) -> CodedCells:
    return coded(np.zeros(n, dtype=np.int64), [value])


def numbers(values: np.ndarray) -> NumberCells:
    return NumberCells(np.ascontiguousarray(values, dtype=np.float64).reshape(-1))


def long_table(label: str, digest: str, columns: dict[str, object], files: Sequence[str], file_of: np.ndarray,
               lines: np.ndarray, unit: str = "line") -> Table:
    """The long table with each row's place: the file it came from (an index into ``files``) and its line."""
    places = (np.asarray(file_of, dtype=np.int64) << FILE_SHIFT) | np.asarray(lines, dtype=np.int64)
    return FilesTable(Path(label), tuple(columns), dict(columns), places, digest, unit,  # type: ignore[arg-type]
                      files=tuple(str(f) for f in files))


def sample_means(columns: dict[str, Any], cols: Any, file_of: np.ndarray, lines: np.ndarray
                 ) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The table with one row per (system, corpus, item, metric): the mean of its rows (a question's answers
    over epochs or trials), placed at its first row. Other columns than these five are not kept."""
    keys = [cols.system, cols.corpus, cols.item, cols.metric]
    codes = np.stack([factorize(columns[k])[0] for k in keys], axis=1)
    unique, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    values = np.asarray(columns[cols.value].values, dtype=np.float64)
    means = np.bincount(inverse, weights=values, minlength=len(unique)) / np.bincount(inverse, minlength=len(unique))
    order = np.argsort(first)
    pick = first[order]
    out: dict[str, Any] = {k: columns[k].take(pick) for k in keys}
    out[cols.value] = numbers(means[order])
    return out, np.asarray(file_of)[pick], np.asarray(lines)[pick]


def numbered(values: np.ndarray) -> object:
    """Whole numbers (epochs, trials) as a text column of their distinct values."""
    names, codes = np.unique(np.asarray(values, dtype=np.int64), return_inverse=True)
    return coded(codes.reshape(-1), [str(n) for n in names.tolist()])


def add_columns(columns: dict[str, object], extra: dict[str, object], sf: Any, field: tuple[str, ...]) -> None:
    """``columns`` with the reader's own columns (sample, task, group, metadata keys) added; one whose name is
    already a role's column (data.columns maps a role to it) is an error naming ``field``, never overwritten."""
    from sigreport.errors import DataError

    taken = [name for name in extra if name in columns]
    if taken:
        raise DataError(str(sf.path), [sf.problem(
            f"column {name!r} is in the table already (a role's column under data.columns, or the reader's sample "
            "column): " + ("choose another key" if field[-1] == "metadata" else "name that role's column otherwise"),
            *field)
            for name in taken])
    columns.update(extra)


def code_of(index: dict[str, int], name: str) -> int:
    """``name``'s code in ``index``, a new one (the next integer) the first time it is seen: the readers' codes
    of systems, corpora, items and metrics, in order of first appearance."""
    if name not in index:
        index[name] = len(index)
    return index[name]


def first_rows(rows: dict[str, list[Any]]) -> np.ndarray:
    """The first row of each (system, corpus, item, metric) of coded ``rows``, in row order (the rows
    :func:`sample_means` keeps for a question's answers)."""
    key = np.stack([np.asarray(rows[k]) for k in ("system", "corpus", "item", "metric")], axis=1)
    return np.sort(np.unique(key, axis=0, return_index=True)[1])

