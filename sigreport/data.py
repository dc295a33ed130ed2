"""Reading score tables and checking that they pair up.

``load_data(spec_file)`` reads the long table ``system, corpus, item, metric, value`` and returns a
:class:`Dataset`: for every (metric, corpus) a matrix items x systems in the spec's system order.
Every problem found is reported at once, naming the file and the first offending rows.
No statistics here.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from sigreport.errors import DataError, Problem
from sigreport.spec import MetricSpec, SpecFile

MAX_ROWS_SHOWN = 5


@dataclasses.dataclass(frozen=True)
class Block:
    """Scores of one metric on one corpus (or across corpora when ``corpus`` is None).

    ``stats[i, j, :]`` holds the per-item sufficient statistics of system j on item i (one column for a
    mean metric, whose values are then ``scores[i, j]``). ``items`` name the rows: items, corpora
    (level corpora) or ``repeat/fold`` (cross-validation designs).
    """

    metric: str
    corpus: str | None
    systems: tuple[str, ...]
    items: tuple[str, ...]
    stats: np.ndarray
    dropped_items: int = 0
    level: str = "items"
    folds: tuple[tuple[str, str], ...] | None = None

    @property
    def scores(self) -> np.ndarray:
        """Items x systems values of a mean metric (the first statistic otherwise)."""
        return self.stats[:, :, 0]


@dataclasses.dataclass(frozen=True)
class Dataset:
    source: str
    sha256: str
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    metrics: tuple[str, ...]
    blocks: dict[tuple[str, str | None], Block]
    n_rows: int
    metric_specs: dict[str, MetricSpec] = dataclasses.field(default_factory=dict)
    aggregates: dict[str, object] = dataclasses.field(default_factory=dict)  # metric -> CorpusMetric
    extra: dict[str, object] = dataclasses.field(default_factory=dict)

    def lookup(self, key: tuple) -> object:
        """The data a plan node reads, by block key: ("scores", metric, corpus) -> Block; ("aggregate",
        metric) -> the metric's CorpusMetric; ("predictions" | "annotations", corpus) -> (table, group)."""
        kind = key[0]
        if kind == "scores":
            return self.blocks[(key[1], key[2])]
        if kind == "aggregate":
            if key[1] in self.aggregates:
                return self.aggregates[key[1]]
            from sigreport.metrics import corpus_metric

            return corpus_metric(self.metric_specs[key[1]])
        if kind in ("predictions", "annotations"):
            table = self.extra[kind]
            return table, table.groups[key[1]]  # type: ignore[attr-defined]
        raise KeyError(key)

    def fingerprint(self, key: tuple) -> str:
        """sha256 of the content of a block (for content-addressed caching of the analyses that read it)."""
        h = hashlib.sha256()
        if key[0] == "aggregate":
            fn = self.lookup(key)
            _digest(h, (self.metric_specs[key[1]].model_dump(mode="json"), getattr(fn, "name", repr(fn))))
        else:
            _digest(h, self.lookup(key))
        return h.hexdigest()


def _digest(h: "hashlib._Hash", obj: object) -> None:
    """Feed a stable byte form of data (dataclasses, arrays, containers, scalars) into a hash."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            h.update(f.name.encode())
            _digest(h, getattr(obj, f.name))
    elif isinstance(obj, np.ndarray):
        h.update(f"{obj.dtype.str}{obj.shape}".encode())
        h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            h.update(repr(k).encode())
            _digest(h, obj[k])
    elif isinstance(obj, (list, tuple)):
        h.update(f"[{len(obj)}".encode())
        for v in obj:
            _digest(h, v)
    else:
        h.update(repr(obj).encode())


def _line_numbers(path: Path, index: pd.Index) -> list[int]:
    """File line of each data row (header is line 1 for CSV/TSV, none for JSON Lines)."""
    offset = 1 if path.suffix.lower() == ".jsonl" else 2
    return [int(i) + offset for i in index]


def _rows(lines: list[int]) -> str:
    shown = ", ".join(str(x) for x in lines[:MAX_ROWS_SHOWN])
    more = f" and {len(lines) - MAX_ROWS_SHOWN} more" if len(lines) > MAX_ROWS_SHOWN else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"


def read_table(path: Path, source: str, field: str) -> pd.DataFrame:
    """Read CSV, TSV, JSON Lines or Parquet with every column as text (values are parsed later)."""
    if not path.exists():
        raise DataError(source, [Problem(source, None, field, f"file not found: {path}")])
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path, dtype=str, keep_default_na=False)
        if suffix in (".tsv", ".tab"):
            return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
        if suffix in (".jsonl", ".ndjson"):
            df = pd.read_json(path, lines=True, dtype=False)
            return df.astype(object).where(df.notna(), "").astype(str)
        if suffix == ".parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise DataError(source, [Problem(source, None, field,
                                                 f"{path.name}: reading Parquet needs pyarrow "
                                                 "(pip install 'sigreport[parquet]')")]) from None
            df = pd.read_parquet(path)
            return df.astype(object).where(df.notna(), "").astype(str)
    except DataError:
        raise
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(source, [Problem(source, None, field, f"cannot read {path}: {first}")]) from None
    raise DataError(source, [Problem(source, None, field,
                                     f"{path.name}: unknown table format {suffix!r}; use .csv, .tsv, .jsonl or .parquet")])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pivot(sub: pd.DataFrame, index: list[str], systems: list[str], names: list[str]) -> tuple[list, np.ndarray]:
    """(row keys, array rows x systems x statistics) with NaN where a system lacks a row."""
    keys = list(dict.fromkeys(map(tuple, sub[index].to_numpy())))
    out = np.full((len(keys), len(systems), len(names)), np.nan)
    for s_idx, name in enumerate(names):
        part = sub[sub["metric"] == name]
        wide = part.pivot_table(index=index, columns="system", values="value", aggfunc="first")
        wide = wide.reindex(index=pd.MultiIndex.from_tuples(keys) if len(index) > 1 else [k[0] for k in keys],
                            columns=systems)
        out[:, :, s_idx] = wide.to_numpy(dtype=float)
    return keys, out


def load_data(sf: SpecFile) -> Dataset:
    """Read and check the score table named in the spec."""
    spec = sf.spec
    if spec.data.scores is None:
        return _with_labels(sf, Dataset("", "", tuple(spec.systems or ()), tuple(spec.corpora or ()), (), {}, 0))
    path = sf.resolve(spec.data.scores)
    shown = str(path)
    cols = spec.data.columns
    cv = spec.tests.design != "items"
    df = read_table(path, str(sf.path), "data.scores")
    problems: list[Problem] = []

    def problem(msg: str) -> None:
        problems.append(Problem(shown, None, "", msg))

    wanted = {"system": cols.system, "corpus": cols.corpus, "metric": cols.metric, "value": cols.value}
    if cv:
        wanted["fold"] = cols.fold
        if cols.repeat in df.columns or spec.tests.design != "kfold":
            wanted["repeat"] = cols.repeat
    elif spec.tests.level == "corpora" and cols.item not in df.columns:
        df[cols.item] = "all"  # one score per system and corpus
        wanted["item"] = cols.item
    else:
        wanted["item"] = cols.item
    missing = [c for c in wanted.values() if c not in df.columns]
    if missing:
        raise DataError(shown, [Problem(shown, 1, "", f"missing column{'s' if len(missing) > 1 else ''} "
                                        f"{', '.join(repr(m) for m in missing)}; present: "
                                        f"{', '.join(repr(str(c)) for c in df.columns)}"
                                        + ("" if cols == type(cols)() else " (mapped in data.columns)"))])
    df = df[list(wanted.values())].rename(columns={v: k for k, v in wanted.items()})
    if cv:
        if "repeat" not in df.columns:
            df["repeat"] = "1"
        df["item"] = df["repeat"].astype(str) + "/" + df["fold"].astype(str)
    if df.empty:
        raise DataError(shown, [Problem(shown, None, "", "the table has no rows")])
    for key in [k for k in wanted if k != "value"]:
        blank = df.index[df[key].str.strip() == ""]
        if len(blank):
            problem(f"empty {key!r} at {_rows(_line_numbers(path, blank))}")
    values = pd.to_numeric(df["value"].str.strip(), errors="coerce")
    bad = df.index[values.isna() & ~df["value"].str.strip().str.lower().isin(["nan", "inf", "-inf", "+inf"])]
    if len(bad):
        first = df.loc[bad[0], "value"]
        problem(f"non-numeric value{'s' if len(bad) > 1 else ''} in column {cols.value!r} at "
                f"{_rows(_line_numbers(path, bad))} (first: {first!r})")
    nonfinite = df.index[~np.isfinite(values.to_numpy(dtype=float)) & ~df.index.isin(bad)]
    if len(nonfinite):
        problem(f"NaN or infinite value{'s' if len(nonfinite) > 1 else ''} in column {cols.value!r} at "
                f"{_rows(_line_numbers(path, nonfinite))}")
    keys = ["system", "corpus", "item", "metric"]
    dup = df.index[df.duplicated(keys, keep=False)]
    if len(dup):
        r = df.loc[dup[0]]
        what = "(system, corpus, repeat, fold, metric)" if cv else "(system, corpus, item, metric)"
        problem(f"duplicate {what} rows at {_rows(_line_numbers(path, dup))} "
                f"(first: {r.system}, {r.corpus}, {r['item']}, {r.metric})")

    present_systems = list(dict.fromkeys(df["system"]))
    present_corpora = list(dict.fromkeys(df["corpus"]))
    present_metrics = list(dict.fromkeys(df["metric"]))
    spec_problems: list[Problem] = []
    systems = list(spec.systems) if spec.systems else present_systems
    for i, s in enumerate(spec.systems or []):
        if s not in present_systems:
            spec_problems.append(sf.problem(f"system {s!r} is not in {shown}; present: {', '.join(present_systems)}",
                                            "systems", i))
    if spec.baseline is not None and spec.baseline not in present_systems:
        spec_problems.append(sf.problem(f"baseline {spec.baseline!r} is not in {shown}; present: "
                                        f"{', '.join(present_systems)}", "baseline"))
    corpora = list(spec.corpora) if spec.corpora else present_corpora
    for i, c in enumerate(spec.corpora or []):
        if c not in present_corpora:
            spec_problems.append(sf.problem(f"corpus {c!r} is not in {shown}; present: {', '.join(present_corpora)}",
                                            "corpora", i))
    needed: dict[str, list[str]] = {}
    for m, mspec in spec.metrics.items():
        names = list(mspec.statistics) if mspec.corpus_level else [m]
        needed[m] = names
        absent = [n for n in names if n not in present_metrics]
        if absent and not mspec.corpus_level:
            spec_problems.append(sf.problem(f"metric {m!r} is not in {shown}; present: {', '.join(present_metrics)}",
                                            "metrics", m))
        elif absent:
            spec_problems.append(sf.problem(f"statistic{'s' if len(absent) > 1 else ''} {', '.join(absent)} of metric "
                                            f"{m!r} not in {shown}; present: {', '.join(present_metrics)}",
                                            "metrics", m, "statistics"))
    spec_problems += main_table_problems(sf, corpora)
    if spec.tests.level == "corpora" and len(corpora) < 2:
        spec_problems.append(sf.problem(f"level corpora needs two or more corpora; {shown} has {len(corpora)}",
                                        "tests", "level"))
    from sigreport.metrics import AggregateImportError, corpus_metric

    aggregates = {}
    for m, mspec in spec.metrics.items():
        try:
            aggregates[m] = corpus_metric(mspec, sf.folder)
        except AggregateImportError as exc:
            spec_problems.append(sf.problem(str(exc), "metrics", m, "aggregate"))
    if spec_problems or problems:
        raise DataError(str(sf.path) if spec_problems and not problems else shown, spec_problems + problems)

    all_names = sorted({n for names in needed.values() for n in names})
    df = df.assign(value=values.to_numpy(dtype=float))
    df = df[df["system"].isin(systems) & df["corpus"].isin(corpora) & df["metric"].isin(all_names)]
    blocks: dict[tuple[str, str | None], Block] = {}
    for metric, names in needed.items():
        for corpus in corpora:
            sub = df[df["corpus"] == corpus]
            sub = sub[sub["metric"].isin(names)]
            if sub.empty:
                problem(f"metric {metric!r} has no rows on corpus {corpus!r}")
                continue
            absent_systems = [s for s in systems if sub["system"].eq(s).sum() == 0]
            if absent_systems:
                problem(f"system{'s' if len(absent_systems) > 1 else ''} {', '.join(absent_systems)} "
                        f"ha{'ve' if len(absent_systems) > 1 else 's'} no scores for metric {metric!r} "
                        f"on corpus {corpus!r}")
                continue
            index = ["repeat", "fold"] if cv else ["item"]
            keys_, arr = _pivot(sub, index, systems, names)
            holes = np.isnan(arr).any(axis=2)
            dropped = 0
            if holes.any():
                if spec.data.missing == "error":
                    rows = list(zip(*np.nonzero(holes)))
                    label = (lambda k: "/".join(map(str, k))) if cv else (lambda k: str(k[0]))
                    desc = ", ".join(f"{systems[j]} lacks {'fold' if cv else 'item'} {label(keys_[i])!r}"
                                     for i, j in rows[:MAX_ROWS_SHOWN])
                    more = f" and {len(rows) - MAX_ROWS_SHOWN} more" if len(rows) > MAX_ROWS_SHOWN else ""
                    problem(f"metric {metric!r}, corpus {corpus!r}: {desc}{more} that another system has "
                            "(set data.missing: drop_items to analyse only the items every system has)")
                    continue
                keep = ~holes.any(axis=1)
                dropped = int((~keep).sum())
                arr = arr[keep]
                keys_ = [k for k, kp in zip(keys_, keep) if kp]
            items = tuple("/".join(map(str, k)) for k in keys_)
            folds = tuple((str(k[0]), str(k[1])) for k in keys_) if cv else None
            blocks[(metric, corpus)] = Block(metric, corpus, tuple(systems), items, arr, dropped,
                                             "folds" if cv else "items", folds)
    if problems:
        raise DataError(shown, problems)
    if spec.tests.level == "corpora":
        blocks = across_corpora(blocks, spec, corpora, aggregates)
    return _with_labels(sf, Dataset(shown, _sha256(path), tuple(systems), tuple(corpora), tuple(spec.metrics), blocks,
                                    int(len(df)), dict(spec.metrics), aggregates))


def _with_labels(sf: SpecFile, ds: Dataset) -> Dataset:
    """Add predictions and annotations (classification and agreement) when the spec has them."""
    if not sf.spec.has_labels():
        return ds
    from sigreport.labels import add_label_data

    return add_label_data(sf, ds)


def across_corpora(blocks: dict[tuple[str, str | None], Block], spec, corpora: list[str],
                   aggregates: dict) -> dict:
    """Demsar's setting: one score per system and corpus (the metric's aggregate over the corpus's items)."""
    out: dict[tuple[str, str | None], Block] = {}
    for metric in spec.metrics:
        metric_fn = aggregates[metric]
        rows = []
        for c in corpora:
            b = blocks[(metric, c)]
            rows.append(metric_fn.value(b.stats.sum(axis=0), b.stats.shape[0]))
        values = np.asarray(rows, dtype=float)[:, :, None]
        systems = blocks[(metric, corpora[0])].systems
        dropped = sum(blocks[(metric, c)].dropped_items for c in corpora)
        out[(metric, None)] = Block(metric, None, systems, tuple(corpora), values, dropped, "corpora")
    return out


def main_table_problems(sf: SpecFile, corpora: list[str]) -> list[Problem]:
    """outputs.main_table names metrics and corpora that exist (the corpora are known from the data)."""
    opts = sf.spec.outputs.main_table
    out = [sf.problem(f"metric {m!r} is not a metric of the spec; known: {', '.join(sf.spec.metrics)}",
                      "outputs", "main_table", "metrics", i)
           for i, m in enumerate(opts.metrics or []) if m not in sf.spec.metrics]
    out += [sf.problem(f"corpus {c!r} is not analysed; known: {', '.join(corpora)}",
                       "outputs", "main_table", "corpora", i)
            for i, c in enumerate(opts.corpora or []) if c not in corpora]
    return out
