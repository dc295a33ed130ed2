"""What the predictions and annotations readers share: reading a label table, collecting problems.

Problems are gathered per file and per spec entry and raised together (:class:`Collector`), naming
the file and its first offending lines through :meth:`~sigreport.data.tables.Table.where`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from sigreport.data.tables import Table, control_problems, frame_table, read_table
from sigreport.errors import DataError, Problem
from sigreport.spec import SpecFile


class Collector:
    """Problems found in the data files (each with its ``source``) and in the spec."""

    def __init__(self, sf: SpecFile):
        self.sf = sf
        self.data: list[tuple[str, Problem]] = []
        self.spec: list[Problem] = []

    def add(self, source: str, message: str) -> None:
        self.data.append((source, Problem(source, None, "", message)))

    def extend(self, problems: list[Problem]) -> None:
        self.data += [(p.file, p) for p in problems]

    def add_spec(self, message: str, *path: object) -> None:
        self.spec.append(self.sf.problem(message, *path))

    def __bool__(self) -> bool:
        return bool(self.data or self.spec)

    def raise_if_any(self) -> None:
        if not self:
            return
        sources = {s for s, _ in self.data}
        if not self.spec and len(sources) == 1:
            raise DataError(sources.pop(), [p for _, p in self.data])
        problems = list(self.spec)
        for source, p in self.data:
            problems.append(Problem(source, None, "", f"{Path(source).name}: {p.message}"))
        raise DataError(str(self.sf.path), problems)


def listing(values: list[str], limit: int = 8) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def read_label_table(sf: SpecFile, relative: str, field: str, wanted: dict[str, str], optional: dict[str, str],
                     mapped: bool, out: Collector, frame: pd.DataFrame | None = None,
                     constants: dict[str, str] | None = None) -> Table:
    """The table (or the data frame standing in for it) with its needed columns renamed to their roles and
    stripped; names checked printable. ``constants``: role -> the value of a needed column the table may
    lack (the one corpus the spec names)."""
    table = frame_table(frame, field) if frame is not None else read_table(sf.resolve(relative), str(sf.path), field)
    shown = str(table.path)
    df = table.to_frame()
    for role, value in (constants or {}).items():
        if wanted[role] not in df.columns:
            df[wanted[role]] = value
    missing = [c for c in wanted.values() if c not in df.columns]
    if missing:
        is_frame = frame is not None
        raise DataError(shown, [Problem(shown, None if is_frame else 1, "",
                                        f"missing column{'s' if len(missing) > 1 else ''} "
                                        f"{', '.join(repr(m) for m in missing)}{' in the data frame' if is_frame else ''}"
                                        f"; present: {', '.join(repr(str(c)) for c in df.columns)}"
                                        + (" (mapped in data.label_columns)" if mapped else ""))])
    cols = {**wanted, **{k: v for k, v in optional.items() if v in df.columns}}
    df = df[list(cols.values())]
    df.columns = list(cols)
    df = df.apply(lambda s: s.str.strip())
    if df.empty:
        raise DataError(shown, [Problem(shown, None, "", "the table has no rows")])
    table = dataclasses.replace(table, frame=df)
    out.extend(control_problems(table, cols, {c: _factorized(df[c]) for c in cols}))
    return table


def _factorized(column: pd.Series) -> tuple[np.ndarray, list[str]]:
    import pandas as pd  # the label readers work on pandas frames (Table.to_frame)

    codes, uniques = pd.factorize(column, sort=False)
    return codes, [str(v) for v in uniques.tolist()]


def check_blank(table: Table, keys: list[str], out: Collector, what: dict[str, str]) -> None:
    df = table.frame
    for key in keys:
        blank = df.index[(df[key] == "").to_numpy()]
        if len(blank):
            out.add(str(table.path), f"empty {what.get(key, repr(key))} at {table.where(blank)}")


def declared_list(values: list[str] | None, out: Collector, *path: object) -> list[str] | None:
    """The spec's list without repeats (a repeat is a problem)."""
    if values is None:
        return None
    seen: set[str] = set()
    dup = sorted({v for v in values if v in seen or seen.add(v)})  # type: ignore[func-returns-value]
    if dup:
        out.add_spec(f"listed more than once: {', '.join(dup)}", *path)
    return list(dict.fromkeys(values))


def undeclared(table: Table, columns: dict[str, str], allowed_list: list[str], where: str, out: Collector) -> None:
    """Labels outside the declared set, each with its first lines. ``columns``: column -> what it holds."""
    df = table.frame
    allowed = set(allowed_list)
    for col, what in columns.items():
        bad = df[(df[col] != "") & ~df[col].isin(allowed)]
        if bad.empty:
            continue
        labels = list(dict.fromkeys(bad[col]))
        out.add(str(table.path), f"{what}{'s' if len(labels) > 1 else ''} {listing(labels)} at "
                f"{table.where(bad.index)} {'are' if len(labels) > 1 else 'is'} not in {where} "
                f"({', '.join(allowed_list)})")
