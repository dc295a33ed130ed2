"""Building the long score table from arrays: what the native sources (TREC, text, lm-eval) produce.

Key columns are given as integer codes into their distinct names and become pyarrow string arrays (the
form :func:`~sigreport.data.tables.factorize` reads in one C++ pass); values stay float64. No Python
string is made per row, so a source with millions of per-item statistics costs what its field library
costs, not a text round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.sources.tables import FILE_SHIFT, FilesTable
from sigreport.data.tables import Table


def coded(codes: np.ndarray, names: Sequence[str]) -> object:
    """A pyarrow string array whose row r is ``names[codes[r]]``."""
    import pyarrow as pa

    indices = _from_numpy(pa.int32(), np.asarray(codes, dtype=np.int32))
    return pa.DictionaryArray.from_arrays(indices, _strings([str(n) for n in names])).cast(pa.string())


def constant(value: str, n: int) -> object:
    return coded(np.zeros(n, dtype=np.int32), [value])


def numbers(values: np.ndarray) -> object:
    import pyarrow as pa

    return _from_numpy(pa.float64(), np.asarray(values, dtype=np.float64))


# Why arrays are made from buffers, not with ``pa.array``: ``pa.array`` asks pyarrow's pandas shim whether its
# argument is a pandas object, which imports pandas (0.15-0.2 s, more than reading a 100,000-line TREC run);
# nothing else on a native source's path needs pandas. The arrays are the same (no nulls, no offset).


def _from_numpy(kind: Any, values: np.ndarray) -> object:
    """A pyarrow array of ``kind`` over a copy-free view of the 1-d numeric ``values`` (no nulls)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def _strings(names: Sequence[str]) -> object:
    """A pyarrow string array of ``names`` (no nulls), from its UTF-8 bytes and offsets."""
    import pyarrow as pa

    encoded = [n.encode("utf-8") for n in names]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    kind, width = (pa.string(), np.int32) if offsets[-1] < 2 ** 31 else (pa.large_string(), np.int64)
    array = pa.Array.from_buffers(kind, len(encoded), [None, pa.py_buffer(offsets.astype(width)),
                                                        pa.py_buffer(b"".join(encoded))])
    return array if kind == pa.string() else array.cast(pa.string())


def long_table(label: str, digest: str, columns: dict[str, object], files: Sequence[str], file_of: np.ndarray,
               lines: np.ndarray, unit: str = "line") -> Table:
    """The long table with each row's place: the file it came from (an index into ``files``) and its line."""
    places = (np.asarray(file_of, dtype=np.int64) << FILE_SHIFT) | np.asarray(lines, dtype=np.int64)
    return FilesTable(Path(label), tuple(columns), dict(columns), places, digest, unit,  # type: ignore[arg-type]
                      files=tuple(str(f) for f in files))


def sample_means(columns: dict[str, object], cols: Any, file_of: np.ndarray, lines: np.ndarray
                 ) -> tuple[dict[str, object], np.ndarray, np.ndarray]:
    """The table with one row per (system, corpus, item, metric): the mean of its rows (a question's answers
    over epochs or trials), placed at its first row. Other columns than these five are not kept."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = [cols.system, cols.corpus, cols.item, cols.metric]
    codes = np.stack([np.asarray(pc.dictionary_encode(columns[k]).indices) for k in keys], axis=1)
    unique, first, inverse = np.unique(codes, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    values = np.asarray(columns[cols.value])
    means = np.bincount(inverse, weights=values, minlength=len(unique)) / np.bincount(inverse, minlength=len(unique))
    order = np.argsort(first)
    pick = first[order]
    out: dict[str, object] = {k: pa.array(columns[k]).take(pa.array(pick)) for k in keys}
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

