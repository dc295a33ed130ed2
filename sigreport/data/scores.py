"""The score table: ``system, corpus, item, metric, value`` (or ``repeat, fold`` for cross-validation).

Every check is a vectorised pass over the table (factorised key columns, one duplicate pass, blocks
filled by fancy indexing), so the cost grows linearly with the rows, whatever the number of systems.
Every problem is reported at once, naming the file and the first offending lines.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from sigreport.data.aggregates import AggregateImportError, corpus_metric
from sigreport.data.corpora import across_corpora
from sigreport.data.model import Block, BlockKey, Dataset
from sigreport.data.tables import MAX_ROWS_SHOWN, Table, control_problems, frame_table, read_table
from sigreport.errors import DataError, Problem
from sigreport.spec import SpecFile
from sigreport.stats.resampling import CorpusMetric

KEYS = ("system", "corpus", "item", "metric")
NUMBER_WORDS = ("nan", "inf", "-inf", "+inf")


@dataclasses.dataclass(frozen=True)
class Column:
    """A factorised key column: ``codes[r]`` indexes ``names`` (in order of first appearance)."""

    codes: np.ndarray
    names: list[str]


def load_scores(sf: SpecFile, frame: pd.DataFrame | None = None) -> Dataset:
    """Read and check ``data.scores`` (or the data frame standing in for it); a Dataset of blocks, one per
    (metric, corpus)."""
    spec = sf.spec
    if frame is not None:
        table = frame_table(frame, "data.scores")
    else:
        table = read_table(sf.resolve(spec.data.scores), str(sf.path), "data.scores")
    shown = str(table.path)
    df, wanted = _columns(sf, table)
    if df.empty:
        raise DataError(shown, [Problem(shown, None, "", "the table has no rows")])
    problems: list[Problem] = []
    table = dataclasses.replace(table, frame=df)
    keys = {k: _factorize(df[k]) for k in KEYS}
    for key in [k for k in wanted if k != "value"]:
        problems += _blank(table, key, keys[key] if key in keys else _factorize(df[key]))
    problems += control_problems(table, {k: wanted.get(k, k) for k in ("system", "corpus", "metric", "item")
                                         if k in wanted}, {k: (c.codes, c.names) for k, c in keys.items()})
    values, value_problems = _values(table, spec.data.columns.value)
    problems += value_problems
    problems += _duplicates(table, keys, cv=spec.tests.design != "items")
    spec_problems, needed, aggregates = _against_spec(sf, shown, keys)
    if spec_problems or problems:
        raise DataError(str(sf.path) if spec_problems and not problems else shown, spec_problems + problems)
    blocks, n_rows = _blocks(sf, table, keys, values, needed, problems)
    if problems:
        raise DataError(shown, problems)
    systems = _order(spec.systems, keys["system"].names)
    corpora = _order(spec.corpora, keys["corpus"].names)
    if spec.tests.level == "corpora":
        blocks = {(m, None): across_corpora(m, [blocks[(m, c)] for c in corpora], aggregates[m]) for m in spec.metrics}
    return Dataset(shown, table.sha256, tuple(systems), tuple(corpora), tuple(spec.metrics), blocks, n_rows,
                   dict(spec.metrics), aggregates)


def _order(declared: Sequence[str] | None, present: list[str]) -> list[str]:
    return list(declared) if declared else present


def _columns(sf: SpecFile, table: Table) -> tuple[pd.DataFrame, dict[str, str]]:
    """The needed columns renamed to their roles; a missing column is an error at once."""
    spec = sf.spec
    cols = spec.data.columns
    df = table.frame
    cv = spec.tests.design != "items"
    shown = str(table.path)
    wanted = {"system": cols.system, "corpus": cols.corpus, "metric": cols.metric, "value": cols.value}
    if cv:
        wanted["fold"] = cols.fold
        if cols.repeat in df.columns or spec.tests.design != "kfold":
            wanted["repeat"] = cols.repeat
    elif spec.tests.level == "corpora" and cols.item not in df.columns:
        df = df.assign(**{cols.item: "all"})  # one score per system and corpus
        wanted["item"] = cols.item
    else:
        wanted["item"] = cols.item
    missing = [c for c in wanted.values() if c not in df.columns]
    if missing:
        raise DataError(shown, [Problem(shown, 1, "", f"missing column{'s' if len(missing) > 1 else ''} "
                                        f"{', '.join(repr(m) for m in missing)}; present: "
                                        f"{', '.join(repr(str(c)) for c in df.columns)}"
                                        + ("" if cols == type(cols)() else " (mapped in data.columns)"))])
    df = df[list(wanted.values())]
    df.columns = list(wanted)
    if cv:
        if "repeat" not in df.columns:
            df = df.assign(repeat="1")
        df = df.assign(item=df["repeat"] + "/" + df["fold"])
    return df, wanted


def _factorize(col: pd.Series) -> Column:
    codes, uniques = pd.factorize(col, sort=False)
    return Column(codes.astype(np.int64, copy=False), [str(u) for u in uniques.tolist()])


def _blank(table: Table, key: str, column: Column) -> list[Problem]:
    blank = [k for k, n in enumerate(column.names) if not n.strip()]
    if not blank:
        return []
    at = table.frame.index[np.isin(column.codes, blank)]
    return [Problem(str(table.path), None, "", f"empty {key!r} at {table.where(at)}")]


def _values(table: Table, column: str) -> tuple[np.ndarray, list[Problem]]:
    """Parsed values; problems for text that is not a number and for NaN or infinite numbers."""
    raw = table.frame["value"]
    values = _fast_numbers(raw)
    if values is not None:
        return values, []
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, copy=True)
    odd = np.flatnonzero(~np.isfinite(values))
    bad: list[int] = []
    nonfinite: list[int] = []
    if len(odd):  # only rows pandas could not read as a finite number: retry without surrounding spaces
        text = raw.iloc[odd].str.strip()
        again = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
        words = text.str.lower().isin(NUMBER_WORDS).to_numpy()
        is_bad = np.isnan(again) & ~words
        bad = list(odd[is_bad])
        nonfinite = list(odd[~is_bad & ~np.isfinite(again)])
        values[odd] = again
    problems = []
    index = table.frame.index
    shown = str(table.path)
    if bad:
        first = raw.iat[bad[0]]
        problems.append(Problem(shown, None, "", f"non-numeric value{'s' if len(bad) > 1 else ''} in column {column!r} "
                                f"at {table.where(index[bad])} (first: {first!r})"))
    if nonfinite:
        problems.append(Problem(shown, None, "", f"NaN or infinite value{'s' if len(nonfinite) > 1 else ''} in column "
                                f"{column!r} at {table.where(index[nonfinite])}"))
    return values, problems


def _fast_numbers(raw: pd.Series) -> np.ndarray | None:
    """Every value parsed by pyarrow when all are plain finite numbers; None sends the caller to the
    exact path that names the offending lines."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    try:
        values = np.asarray(pc.cast(pa.array(raw.array), pa.float64()).to_numpy(zero_copy_only=False), dtype=float)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError):
        return None
    return values.copy() if np.isfinite(values).all() else None


def _duplicates(table: Table, keys: dict[str, Column], cv: bool) -> list[Problem]:
    combined = np.zeros(len(table.frame), dtype=np.int64)
    span = 1
    for k in KEYS:  # one integer per (system, corpus, item, metric) while it fits in 63 bits
        size = max(len(keys[k].names), 1)
        if span * size >= 2 ** 62:
            break
        combined = combined * size + keys[k].codes
        span *= size
    else:
        dup = np.flatnonzero(pd.Series(combined).duplicated(keep=False).to_numpy())
        return _duplicate_problem(table, dup, cv)
    codes = pd.DataFrame({k: keys[k].codes for k in KEYS})
    return _duplicate_problem(table, np.flatnonzero(codes.duplicated(keep=False).to_numpy()), cv)


def _duplicate_problem(table: Table, dup: np.ndarray, cv: bool) -> list[Problem]:
    if not len(dup):
        return []
    r = table.frame.iloc[dup[0]]
    what = "(system, corpus, repeat, fold, metric)" if cv else "(system, corpus, item, metric)"
    return [Problem(str(table.path), None, "", f"duplicate {what} rows at {table.where(table.frame.index[dup])} "
                    f"(first: {r['system']}, {r['corpus']}, {r['item']}, {r['metric']})")]


def _against_spec(sf: SpecFile, shown: str, keys: dict[str, Column]
                  ) -> tuple[list[Problem], dict[str, list[str]], dict[str, CorpusMetric]]:
    """Spec entries absent from the table; statistic names per metric; each metric's aggregate."""
    spec = sf.spec
    out: list[Problem] = []
    present = {k: keys[k].names for k in ("system", "corpus", "metric")}
    have = {k: set(v) for k, v in present.items()}
    for i, s in enumerate(spec.systems or []):
        if s not in have["system"]:
            out.append(sf.problem(f"system {s!r} is not in {shown}; present: {', '.join(present['system'])}",
                                  "systems", i))
    if spec.baseline is not None and spec.baseline not in have["system"]:
        out.append(sf.problem(f"baseline {spec.baseline!r} is not in {shown}; present: "
                              f"{', '.join(present['system'])}", "baseline"))
    for i, c in enumerate(spec.corpora or []):
        if c not in have["corpus"]:
            out.append(sf.problem(f"corpus {c!r} is not in {shown}; present: {', '.join(present['corpus'])}",
                                  "corpora", i))
    needed: dict[str, list[str]] = {}
    for m, mspec in spec.metrics.items():
        names = list(mspec.statistics) if mspec.corpus_level else [m]
        needed[m] = names
        absent = [n for n in names if n not in have["metric"]]
        if absent and not mspec.corpus_level:
            out.append(sf.problem(f"metric {m!r} is not in {shown}; present: {', '.join(present['metric'])}",
                                  "metrics", m))
        elif absent:
            out.append(sf.problem(f"statistic{'s' if len(absent) > 1 else ''} {', '.join(absent)} of metric "
                                  f"{m!r} not in {shown}; present: {', '.join(present['metric'])}",
                                  "metrics", m, "statistics"))
    corpora = _order(spec.corpora, present["corpus"])
    if spec.tests.level == "corpora" and len(corpora) < 2:
        out.append(sf.problem(f"level corpora needs two or more corpora; {shown} has {len(corpora)}", "tests", "level"))
    aggregates: dict[str, CorpusMetric] = {}
    for m, mspec in spec.metrics.items():
        try:
            aggregates[m] = corpus_metric(mspec, sf.folder, m, str(sf.path))
        except AggregateImportError as exc:
            out.append(sf.problem(str(exc), "metrics", m, "aggregate"))
    return out, needed, aggregates


def _positions(names: list[str], wanted: Sequence[str]) -> np.ndarray:
    """For each code of a factorised column, its index in ``wanted`` (-1: not wanted)."""
    where = {n: i for i, n in enumerate(wanted)}
    return np.array([where.get(n, -1) for n in names], dtype=np.int64)


def _blocks(sf: SpecFile, table: Table, keys: dict[str, Column], values: np.ndarray,
            needed: dict[str, list[str]], problems: list[Problem]) -> tuple[dict[BlockKey, Block], int]:
    """One items x systems x statistics array per (metric, corpus), filled by vectorised indexing."""
    spec = sf.spec
    cv = spec.tests.design != "items"
    systems = _order(spec.systems, keys["system"].names)
    corpora = _order(spec.corpora, keys["corpus"].names)
    all_names = sorted({n for names in needed.values() for n in names})
    sys_of = _positions(keys["system"].names, systems)[keys["system"].codes]
    corpus_of = _positions(keys["corpus"].names, corpora)[keys["corpus"].codes]
    name_of = _positions(keys["metric"].names, all_names)[keys["metric"].codes]
    used = np.flatnonzero((sys_of >= 0) & (corpus_of >= 0) & (name_of >= 0))
    groups = pd.DataFrame({"c": corpus_of[used], "n": name_of[used]}).groupby(["c", "n"], sort=False).indices
    shown = str(table.path)
    blocks: dict[BlockKey, Block] = {}
    for metric, names in needed.items():
        stat_of = np.full(len(all_names), -1, dtype=np.int64)
        for s, n in enumerate(names):
            stat_of[all_names.index(n)] = s
        for c, corpus in enumerate(corpora):
            parts = [groups[(c, all_names.index(n))] for n in names if (c, all_names.index(n)) in groups]
            if not parts:
                problems.append(Problem(shown, None, "", f"metric {metric!r} has no rows on corpus {corpus!r}"))
                continue
            rows = used[np.sort(np.concatenate(parts))]
            block = _block(sf, table, keys, values, rows, sys_of, stat_of[name_of[rows]], metric, corpus, len(names),
                           systems, problems)
            if block is not None:
                blocks[(metric, corpus)] = block
    return blocks, int(len(used))


def _block(sf: SpecFile, table: Table, keys: dict[str, Column], values: np.ndarray, rows: np.ndarray,
           sys_of: np.ndarray, stat: np.ndarray, metric: str, corpus: str, n_stats: int, systems: list[str],
           problems: list[Problem]) -> Block | None:
    spec = sf.spec
    cv = spec.tests.design != "items"
    shown = str(table.path)
    cols = sys_of[rows]
    counts = np.bincount(cols, minlength=len(systems))
    absent = [systems[j] for j in np.flatnonzero(counts == 0)]
    if absent:
        problems.append(Problem(shown, None, "", f"system{'s' if len(absent) > 1 else ''} {', '.join(absent)} "
                                f"ha{'ve' if len(absent) > 1 else 's'} no scores for metric {metric!r} "
                                f"on corpus {corpus!r}"))
        return None
    item_rows, firsts = pd.factorize(keys["item"].codes[rows], sort=False)
    item_names = [keys["item"].names[i] for i in firsts]
    arr = np.full((len(item_names), len(systems), n_stats), np.nan)
    arr[item_rows, cols, stat] = values[rows]
    holes = np.isnan(arr).any(axis=2)
    dropped = 0
    keep_rows = np.arange(len(item_names))
    if holes.any():
        if spec.data.missing == "error":
            where = list(zip(*np.nonzero(holes)))
            desc = ", ".join(f"{systems[j]} lacks {'fold' if cv else 'item'} {item_names[i]!r}"
                             for i, j in where[:MAX_ROWS_SHOWN])
            more = f" and {len(where) - MAX_ROWS_SHOWN} more" if len(where) > MAX_ROWS_SHOWN else ""
            problems.append(Problem(shown, None, "", f"metric {metric!r}, corpus {corpus!r}: {desc}{more} that another "
                                    "system has (set data.missing: drop_items to analyse only the items every "
                                    "system has)"))
            return None
        keep = ~holes.any(axis=1)
        dropped = int((~keep).sum())
        arr = arr[keep]
        keep_rows = np.flatnonzero(keep)
    items = tuple(item_names[i] for i in keep_rows)
    folds = None
    if cv:
        first_row = rows[np.unique(item_rows, return_index=True)[1]]
        frame = table.frame
        folds_all = list(zip(frame["repeat"].iloc[first_row], frame["fold"].iloc[first_row]))
        folds = tuple((str(folds_all[i][0]), str(folds_all[i][1])) for i in keep_rows)
    return Block(metric, corpus, tuple(systems), items, arr, dropped, "folds" if cv else "items", folds)
