"""The score table: ``system, corpus, item, metric, value`` (or ``repeat, fold`` for cross-validation).

Every check is a vectorised pass over the table (factorised key columns, one duplicate pass, blocks
filled by fancy indexing), so the cost grows linearly with the rows, whatever the number of systems.
Every problem is reported at once, naming the file and the first offending lines. The key columns are
never held as Python strings per row: each is factorised once into integer codes and its distinct
names (:func:`~sigreport.data.tables.factorize`), and every check works on the codes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from sigreport.data.aggregates import AggregateImportError, corpus_metric
from sigreport.data.corpora import across_corpora
from sigreport.data.model import Block, BlockKey, Dataset, LeftOut
from sigreport.data.samples import pass_at_k_blocks, sample_means
from sigreport.data.sources import read_source
from sigreport.data.tables import MAX_ROWS_SHOWN, Table, control_problems, factorize, plain_numbers, text_series
from sigreport.errors import DataError, Problem, did_you_mean
from sigreport.spec import SpecFile
from sigreport.stats.resampling import CorpusMetric

if TYPE_CHECKING:
    import pandas as pd

KEYS = ("system", "corpus", "item", "metric")
NUMBER_WORDS = ("nan", "inf", "-inf", "+inf")
BOOLEAN_WORDS = ("true", "false")  # scores of a yes/no outcome (True/False of a data frame): 1 and 0


@dataclasses.dataclass(frozen=True)
class Column:
    """A factorised key column: ``codes[r]`` indexes ``names`` (in order of first appearance)."""

    codes: np.ndarray
    names: list[str]


def load_scores(sf: SpecFile, frame: pd.DataFrame | None = None) -> Dataset:
    """Read and check ``data.scores`` (or the data frame standing in for it); a Dataset of blocks, one per
    (metric, corpus)."""
    spec = sf.spec
    source = read_source(sf, frame)
    table = source.table
    shown = str(table.path)
    keys, value_cells, wanted = _columns(sf, table)
    if not len(table):
        raise DataError(shown, [Problem(shown, None, "", "the table has no rows")])
    problems: list[Problem] = []
    for key in [k for k in wanted if k != "value"]:
        problems += _blank(table, key, keys[key])
    problems += control_problems(table, {k: wanted.get(k, k) for k in ("system", "corpus", "metric", "item", "run")
                                         if k in wanted}, {k: (c.codes, c.names) for k, c in keys.items()})
    values, value_problems = _values(table, value_cells, spec.data.columns.value)
    problems += value_problems or _too_large(table, values, keys["metric"], spec.data.columns.value)
    problems += [] if value_problems else _not_binary(sf, table, values, keys["metric"], spec.data.columns.value)
    problems += _duplicates(table, keys, cv=spec.tests.design != "items")
    for role in ("cluster", "stratum"):
        if role in keys:
            problems += _one_per_item(table, keys, role, getattr(spec.data.columns, role))
    spec_problems, needed, aggregates = _against_spec(sf, shown, keys)
    if spec_problems or problems:
        raise DataError(str(sf.path) if spec_problems and not problems else shown, spec_problems + problems)
    blocks, n_rows = _blocks(sf, table, keys, values, needed, problems, source.per_task_metrics)
    if not problems:
        blocks = _fold_sizes(sf, table, keys, blocks, problems)
    if problems:
        raise DataError(shown, problems)
    spec_problems = []
    derived, derived_specs = pass_at_k_blocks(sf, blocks, spec_problems)
    if spec_problems:
        raise DataError(str(sf.path), spec_problems)
    blocks = {**blocks, **derived}
    aggregates = {**aggregates, **{m: corpus_metric(s, metric=m) for m, s in derived_specs.items()}}
    spec_problems = _sizes_known(sf, blocks)
    if spec_problems:
        raise DataError(str(sf.path), spec_problems)
    systems = _order(spec.systems, keys["system"].names)
    corpora = _order(spec.corpora, keys["corpus"].names)
    if spec.tests.level == "corpora":
        blocks = {(m, None): across_corpora(m, [blocks[(m, c)] for c in corpora], aggregates[m])
                  for m in (*spec.metrics, *derived_specs)}
    return Dataset(source=shown, sha256=table.sha256, systems=tuple(systems), corpora=tuple(corpora),
                   metrics=tuple(spec.metrics) + tuple(derived_specs), blocks=blocks, n_rows=n_rows,
                   metric_specs={**spec.metrics, **derived_specs}, aggregates=aggregates, source_info=dict(source.info),
                   left_out=_left_out(sf, keys, needed, len(table)), table_rows=len(table))


def _order(declared: Sequence[str] | None, present: list[str]) -> list[str]:
    return list(declared) if declared else present


def _columns(sf: SpecFile, table: Table) -> tuple[dict[str, Column], Sequence[str], dict[str, str]]:
    """The key columns by role (factorised; ``item`` built from repeat and fold in cross-validation
    designs), the value column's cells, and role -> file column of the columns read. A missing column is
    an error at once."""
    spec = sf.spec
    cols = spec.data.columns
    present = table.columns
    cv = spec.tests.design != "items"
    shown = str(table.path)
    wanted = {"system": cols.system, "corpus": cols.corpus, "metric": cols.metric, "value": cols.value}
    constant: dict[str, str] = {}
    if cv:
        wanted["fold"] = cols.fold
        if cols.repeat in present or spec.tests.design != "kfold":
            wanted["repeat"] = cols.repeat
        else:
            constant["repeat"] = "1"
    elif spec.tests.level == "corpora" and cols.item not in present:
        constant["item"] = "all"  # one score per system and corpus
        wanted["item"] = cols.item
    else:
        wanted["item"] = cols.item
    if not cv and cols.run in present:
        wanted["run"] = cols.run
    if cols.cluster is not None:
        wanted["cluster"] = cols.cluster  # named, so it must be there (a missing column is reported below)
    if cols.stratum is not None:
        wanted["stratum"] = cols.stratum
    if cols.sample is not None:
        if cv or "run" in wanted:
            raise DataError(str(sf.path), [sf.problem(
                "data.columns.sample (several answers per question) goes with per-item scores, not with "
                + ("cross-validation folds" if cv else f"a run column ({cols.run!r} is in {shown})"),
                "data", "columns", "sample")])
        wanted["sample"] = cols.sample
    constant.update(_named_once(sf, present))
    missing = [c for role, c in wanted.items() if c not in present and role not in constant]
    if missing:
        frame = table.unit == "row" and shown.startswith("<")
        hints = [f"name exactly one {r} in the spec's {r + 's' if r == 'metric' else 'corpora'} to go without it"
                 for r in ("metric", "corpus") if wanted[r] in missing]
        raise DataError(shown, [Problem(shown, None if frame else 1, "",
                                        f"missing column{'s' if len(missing) > 1 else ''} "
                                        f"{', '.join(repr(m) for m in missing)}"
                                        + (" in the data frame" if frame else "") + "; present: "
                                        f"{', '.join(repr(str(c)) for c in present) or 'none'}"
                                        + ("" if cols == type(cols)() else " (mapped in data.columns)")
                                        + (f" ({'; '.join(hints)})" if hints else ""))])
    n = len(table)
    keys = {role: Column(np.zeros(n, dtype=np.int64), [constant[role]]) if role in constant
            else Column(*factorize(table.cells[c])) for role, c in wanted.items() if role != "value"}
    keys.update({role: Column(np.zeros(n, dtype=np.int64), [v]) for role, v in constant.items() if role not in keys})
    if cv:
        keys["item"] = _joined(keys["repeat"], keys["fold"])
    return keys, table.cells[wanted["value"]], wanted


def _named_once(sf: SpecFile, present: Sequence[str]) -> dict[str, str]:
    """The metric and corpus a table without that column has: the one the spec names, when it names exactly one
    (a metric held as several statistics needs its metric column)."""
    spec = sf.spec
    cols = spec.data.columns
    out = {}
    metrics = list(spec.metrics.items())
    if cols.metric not in present and len(metrics) == 1 and not metrics[0][1].corpus_level:
        out["metric"] = metrics[0][0]
    if cols.corpus not in present and spec.corpora is not None and len(spec.corpora) == 1:
        out["corpus"] = spec.corpora[0]
    return out


def _joined(a: Column, b: Column) -> Column:
    """The column of ``a/b`` texts (cross-validation items: ``repeat/fold``), factorised."""
    pair, firsts = _first_appearance(a.codes * max(len(b.names), 1) + b.codes)
    width = max(len(b.names), 1)
    texts = [f"{a.names[p // width]}/{b.names[p % width]}" for p in firsts.tolist()]
    again, names = factorize(texts)  # two pairs may give one text ('1/2' + '3', '1' + '2/3')
    return Column(again[pair], names)


def _first_appearance(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(new codes, distinct values) of an integer array, numbered in order of first appearance."""
    uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(uniq), dtype=np.int64)
    rank[order] = np.arange(len(uniq))
    return rank[inverse.reshape(-1)], uniq[order]


def _blank(table: Table, key: str, column: Column) -> list[Problem]:
    blank = [k for k, n in enumerate(column.names) if not n.strip()]
    if not blank:
        return []
    at = table.places[np.isin(column.codes, blank)]
    return [Problem(str(table.path), None, "", f"empty {key!r} at {table.where(at)}")]


def _values(table: Table, cells: Sequence[str], column: str) -> tuple[np.ndarray, list[Problem]]:
    """Parsed values; problems for text that is not a number and for NaN or infinite numbers."""
    values = plain_numbers(cells)
    if values is not None:
        return values, []
    import pandas as pd  # the exact path: some cell is not a plain finite number

    raw = text_series(cells)
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, copy=True)
    odd = np.flatnonzero(~np.isfinite(values))
    bad: list[int] = []
    nonfinite: list[int] = []
    if len(odd):  # only rows pandas could not read as a finite number: retry without surrounding spaces
        text = raw.iloc[odd].str.strip()
        again = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
        lower = text.str.lower()
        again = np.where(lower == "true", 1.0, np.where(lower == "false", 0.0, again))  # pred == gold: 1 / 0
        words = lower.isin(NUMBER_WORDS + BOOLEAN_WORDS).to_numpy()
        is_bad = np.isnan(again) & ~words
        bad = list(odd[is_bad])
        nonfinite = list(odd[~is_bad & ~np.isfinite(again)])
        values[odd] = again
    problems = []
    places = table.places
    shown = str(table.path)
    if bad:
        first = raw.iat[bad[0]]
        problems.append(Problem(shown, None, "", f"non-numeric value{'s' if len(bad) > 1 else ''} in column {column!r} "
                                f"at {table.where(places[bad])} (first: {first!r})"))
    if nonfinite:
        problems.append(Problem(shown, None, "", f"NaN or infinite value{'s' if len(nonfinite) > 1 else ''} in column "
                                f"{column!r} at {table.where(places[nonfinite])}"))
    return values, problems


#: The largest score magnitude taken. The statistics sum squares of differences of scores over the items of a
#: block; with |x| <= 1e150 a difference is at most 2e150, its square 4e300, and a sum over up to 10 million
#: items 4e307, below the largest double (1.8e308). Beyond it sums overflow to infinity and every mean,
#: SD and test of the metric would come out null with no reason given.
LARGEST_SCORE = 1e150


def _too_large(table: Table, values: np.ndarray, metric: Column, column: str) -> list[Problem]:
    """One problem per metric with a score beyond :data:`LARGEST_SCORE` in magnitude, naming its lines."""
    if not len(values) or (values.max() <= LARGEST_SCORE and values.min() >= -LARGEST_SCORE):
        return []
    big = np.flatnonzero(np.abs(values) > LARGEST_SCORE)
    out = []
    for code in dict.fromkeys(metric.codes[big].tolist()):
        rows = big[metric.codes[big] == code]
        out.append(Problem(str(table.path), None, "", f"metric {metric.names[code]!r}: value{'s' if len(rows) > 1 else ''} "
                           f"beyond ±{LARGEST_SCORE:g} in column {column!r} at {table.where(table.places[rows])} "
                           f"(first: {values[rows[0]]:g}); sums of their squares overflow double precision, so every "
                           "statistic of the metric would be null: rescale it (its logarithm, another unit)"))
    return out


def _not_binary(sf: SpecFile, table: Table, values: np.ndarray, metric: Column, column: str) -> list[Problem]:
    """One problem per metric the spec declares ``binary: true`` whose scores are not all 0 or 1, naming the
    lines and the first bad value (a proportion's intervals would be wrong for it)."""
    out = []
    for code, name in enumerate(metric.names):
        if name not in sf.spec.metrics or not sf.spec.metrics[name].binary:
            continue
        rows = np.flatnonzero(metric.codes == code)
        bad = rows[(values[rows] != 0) & (values[rows] != 1)]
        if len(bad):
            out.append(Problem(str(table.path), None, "", f"metric {name!r} is declared binary: true "
                               f"(metrics.{name}.binary) but has value{'s' if len(bad) > 1 else ''} other than 0 "
                               f"and 1 in column {column!r} at {table.where(table.places[bad])} (first: "
                               f"{values[bad[0]]:g})"))
    return out


def _duplicates(table: Table, keys: dict[str, Column], cv: bool) -> list[Problem]:
    """Rows sharing (system, corpus, item, metric): one integer per key combination, then one count."""
    combined = np.zeros(len(table), dtype=np.int64)
    span = 1
    for k in (*KEYS, *(extra for extra in ("run", "sample") if extra in keys)):
        size = max(len(keys[k].names), 1)
        if span * size >= 2 ** 62:  # renumber the combinations seen so far (at most one per row)
            combined, _ = _first_appearance(combined)
            span = max(int(combined.max(initial=0)) + 1, 1)
        combined = combined * size + keys[k].codes
        span *= size
    if span <= 4 * len(combined) + 1024:
        counts = np.bincount(combined, minlength=span)
    else:
        combined, _ = _first_appearance(combined)
        counts = np.bincount(combined)
    dup = np.flatnonzero(counts[combined] > 1)
    if not len(dup):
        return []
    r = int(dup[0])
    named = (*KEYS, "run") if "run" in keys else KEYS
    first = ", ".join(keys[k].names[keys[k].codes[r]] for k in named)
    what = "(system, corpus, repeat, fold, metric)" if cv else f"({', '.join(named)})"
    return [Problem(str(table.path), None, "", f"duplicate {what} rows at {table.where(table.places[dup])} "
                    f"(first: {first})")]


def _one_per_item(table: Table, keys: dict[str, Column], role: str, column: str | None) -> list[Problem]:
    """An item (of a corpus) has one cluster (or stratum: ``role``) over all its rows (systems, metrics, runs):
    one problem naming the first items that have several, with their lines."""
    width = max(len(keys["item"].names), 1)
    item = keys["corpus"].codes * width + keys["item"].codes
    cl = keys[role].codes
    order = np.argsort(item, kind="stable")
    si, sc = item[order], cl[order]
    starts = np.flatnonzero(np.r_[True, si[1:] != si[:-1]])
    lo, hi = np.minimum.reduceat(sc, starts), np.maximum.reduceat(sc, starts)
    bad = np.flatnonzero(lo != hi)
    if not len(bad):
        return []
    names, cnames = keys["item"].names, keys[role].names
    shown = []
    for b in bad[:MAX_ROWS_SHOWN].tolist():
        code = int(si[starts[b]])
        shown.append(f"item {names[code % width]!r} of corpus {keys['corpus'].names[code // width]!r} in "
                     f"{cnames[int(lo[b])]!r} and {cnames[int(hi[b])]!r}")
    rows = order[np.isin(si, si[starts[bad]])]
    more = f" and {len(bad) - MAX_ROWS_SHOWN} more items" if len(bad) > MAX_ROWS_SHOWN else ""
    return [Problem(str(table.path), None, "", f"column {column!r}: an item has one {role}; "
                    f"{'; '.join(shown)}{more} (at {table.where(table.places[np.sort(rows)])})")]


def _item_groups(keys: dict[str, Column], role: str, rows: np.ndarray, item_rows: np.ndarray, keep_rows: np.ndarray
                 ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each kept item's cluster (or stratum: ``role``) code (0..G-1, in order of first appearance) and the names."""
    first_row = rows[np.unique(item_rows, return_index=True)[1]][keep_rows]
    codes, firsts = _first_appearance(keys[role].codes[first_row])
    names = keys[role].names
    return codes, tuple(names[c] for c in firsts.tolist())


def _against_spec(sf: SpecFile, shown: str, keys: dict[str, Column]
                  ) -> tuple[list[Problem], dict[str, list[str]], dict[str, CorpusMetric]]:
    """Spec entries absent from the table; statistic names per metric; each metric's aggregate."""
    spec = sf.spec
    out: list[Problem] = []
    present = {k: keys[k].names for k in ("system", "corpus", "metric")}
    have = {k: set(v) for k, v in present.items()}
    for i, s in enumerate(spec.systems or []):
        if s not in have["system"]:
            out.append(sf.problem(f"system {s!r} is not in {shown}{did_you_mean(s, present['system'])}; present: "
                                  f"{', '.join(present['system'])}",
                                  "systems", i))
    if spec.baseline is not None and spec.baseline not in have["system"]:
        out.append(sf.problem(f"baseline {spec.baseline!r} is not in {shown}{did_you_mean(spec.baseline, present['system'])}; present: "
                              f"{', '.join(present['system'])}", "baseline"))
    for i, c in enumerate(spec.corpora or []):
        if c not in have["corpus"]:
            out.append(sf.problem(f"corpus {c!r} is not in {shown}{did_you_mean(c, present['corpus'])}; present: "
                                  f"{', '.join(present['corpus'])}",
                                  "corpora", i))
    needed: dict[str, list[str]] = {}
    for m, mspec in spec.metrics.items():
        names = list(mspec.statistics) if mspec.corpus_level else [m]
        needed[m] = names
        absent = [n for n in names if n not in have["metric"]]
        if absent and not mspec.corpus_level:
            out.append(sf.problem(f"metric {m!r} is not in {shown}{did_you_mean(m, present['metric'])}; present: "
                                  f"{', '.join(present['metric'])}",
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


def _left_out(sf: SpecFile, keys: dict[str, Column], needed: dict[str, list[str]], total: int
              ) -> tuple[LeftOut, ...]:
    """The systems, corpora and metrics the table has and the spec does not list, with their rows: the
    analyses never see them, so they are named (validate's and the build's warnings, the report) rather
    than dropped in silence. An axis the spec does not list (no ``systems:``) takes every name: none left out."""
    spec = sf.spec
    listed = {"systems": spec.systems, "corpora": spec.corpora,
              "metrics": [n for names in needed.values() for n in names]}
    out = []
    for role, field in (("system", "systems"), ("corpus", "corpora"), ("metric", "metrics")):
        if not listed[field]:
            continue
        column, known = keys[role], set(listed[field] or ())
        idle = [k for k, n in enumerate(column.names) if n not in known]
        if idle:
            rows = np.bincount(column.codes, minlength=len(column.names))[idle].sum()
            out.append(LeftOut(field, tuple(column.names[k] for k in idle), int(rows), "scores", total))
    return tuple(out)


def _positions(names: list[str], wanted: Sequence[str]) -> np.ndarray:
    """For each code of a factorised column, its index in ``wanted`` (-1: not wanted)."""
    where = {n: i for i, n in enumerate(wanted)}
    return np.array([where.get(n, -1) for n in names], dtype=np.int64)


def _blocks(sf: SpecFile, table: Table, keys: dict[str, Column], values: np.ndarray,
            needed: dict[str, list[str]], problems: list[Problem], sparse: bool = False
            ) -> tuple[dict[BlockKey, Block], int]:
    """One items x systems x statistics array per (metric, corpus), filled by vectorised indexing. ``sparse``: a
    metric may be absent from a corpus (lm-eval tasks log their own metrics); else that is a problem."""
    spec = sf.spec
    cv = spec.tests.design != "items"
    systems = _order(spec.systems, keys["system"].names)
    corpora = _order(spec.corpora, keys["corpus"].names)
    all_names = sorted({n for names in needed.values() for n in names})
    sys_of = _positions(keys["system"].names, systems)[keys["system"].codes]
    corpus_of = _positions(keys["corpus"].names, corpora)[keys["corpus"].codes]
    name_of = _positions(keys["metric"].names, all_names)[keys["metric"].codes]
    used = np.flatnonzero((sys_of >= 0) & (corpus_of >= 0) & (name_of >= 0))
    width = max(len(all_names), 1)
    groups = _groups(corpus_of[used] * width + name_of[used])
    shown = str(table.path)
    blocks: dict[BlockKey, Block] = {}
    for metric, names in needed.items():
        stat_of = np.full(len(all_names), -1, dtype=np.int64)
        for s, n in enumerate(names):
            stat_of[all_names.index(n)] = s
        for c, corpus in enumerate(corpora):
            parts = [groups[c * width + all_names.index(n)] for n in names if c * width + all_names.index(n) in groups]
            if not parts:
                if not sparse:
                    problems.append(Problem(shown, None, "", f"metric {metric!r} has no rows on corpus {corpus!r}"))
                continue
            rows = used[np.sort(np.concatenate(parts))]
            block = _block(sf=sf, table=table, keys=keys, values=values, rows=rows, sys_of=sys_of,
                           stat=stat_of[name_of[rows]], metric=metric, corpus=corpus, n_stats=len(names),
                           systems=systems, problems=problems)
            if block is not None:
                blocks[(metric, corpus)] = block
    return blocks, int(len(used))


def _fold_sizes(sf: SpecFile, table: Table, keys: dict[str, Column], blocks: dict[BlockKey, Block],
                problems: list[Problem]) -> dict[BlockKey, Block]:
    """Cross-validation designs: each block with the mean training and test sizes of its folds, from the
    table's optional n_train and n_test columns (one pair per fold, the same for every system and metric)."""
    cols = sf.spec.data.columns
    present = [c for c in (cols.n_train, cols.n_test) if c in table.columns]
    if sf.spec.tests.design == "items" or not present:
        return blocks
    shown = str(table.path)
    if len(present) == 1:
        problems.append(Problem(shown, None, "", f"column {present[0]!r} needs its partner "
                                f"{({cols.n_train, cols.n_test} - set(present)).pop()!r} (fold sizes)"))
        return blocks
    sizes = []
    for column in present:
        v = plain_numbers(table.cells[column])
        if v is None or (v <= 0).any():
            problems.append(Problem(shown, None, "", f"column {column!r} holds fold sizes: positive numbers only"))
            return blocks
        sizes.append(v)
    corpus_names = keys["corpus"].names
    item = keys["item"]
    out = {}
    for key, block in blocks.items():
        rows = np.flatnonzero(keys["corpus"].codes == corpus_names.index(str(block.corpus)))
        wanted = set(block.items)
        means = []
        for v, column in zip(sizes, present):
            per_fold: dict[str, set[float]] = {}
            for r in rows[np.isin(item.codes[rows], [k for k, n in enumerate(item.names) if n in wanted])].tolist():
                per_fold.setdefault(item.names[item.codes[r]], set()).add(float(v[r]))
            clash = [f for f, found in per_fold.items() if len(found) > 1]
            if clash:
                problems.append(Problem(shown, None, "", f"column {column!r}: fold {clash[0]!r} of corpus "
                                        f"{block.corpus!r} has several sizes; one per fold"))
                return blocks
            means.append(float(np.mean([next(iter(per_fold[f])) for f in block.items])))
        out[key] = dataclasses.replace(block, n_train=means[0], n_test=means[1])
    return out


def _sizes_known(sf: SpecFile, blocks: dict[BlockKey, Block]) -> list[Problem]:
    """The corrected resampled t needs the training and test sizes of every corpus: from the data or the spec."""
    t = sf.spec.tests
    methods = t.cv_methods or (["corrected_resampled_t"] if t.design == "resampled" else [])
    if t.design == "items" or "corrected_resampled_t" not in methods:
        return []
    lacking = sorted({str(b.corpus) for b in blocks.values()
                      if b.n_train is None and (t.sizes_of(str(b.corpus)) is None)})
    if not lacking:
        return []
    return [sf.problem(f"corrected_resampled_t needs n_train and n_test (Nadeau and Bengio's correction) for corpus "
                       f"{', '.join(map(repr, lacking))}: set tests.n_train and tests.n_test (a number, or one per "
                       "corpus), or give n_train and n_test columns in the data", "tests", "n_train")]


def _groups(key: np.ndarray) -> dict[int, np.ndarray]:
    """Positions of each distinct value of ``key``, ascending within each group."""
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    cuts = np.flatnonzero(sorted_key[1:] != sorted_key[:-1]) + 1
    return {int(sorted_key[a]): order[a:b] for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(key)]) if b > a}


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
    item_rows, firsts = _first_appearance(keys["item"].codes[rows])
    names = keys["item"].names
    item_names = [names[i] for i in firsts.tolist()]
    runs = run_names = samples = sample_names = None
    if "sample" in keys:
        arr, samples = sample_means(codes=keys["sample"].codes[rows], n_samples=len(keys["sample"].names),
                                    item_rows=item_rows, cols=cols, stat=stat, values=values[rows],
                                    n_items=len(item_names), k=len(systems), n_stats=n_stats)
        sample_names = tuple(keys["sample"].names)
    elif "run" in keys:
        arr, runs, run_names = _run_means(run=keys["run"], rows=rows, item_rows=item_rows, cols=cols, stat=stat,
                                          values=values, n_items=len(item_names), k=len(systems), n_stats=n_stats)
    else:
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
        runs = None if runs is None else tuple(r[keep] for r in runs)
        samples = None if samples is None else samples[keep]
    items = tuple(item_names) if not dropped else tuple(item_names[i] for i in keep_rows.tolist())
    folds = None
    if cv:
        first_row = rows[np.unique(item_rows, return_index=True)[1]]
        rep, fold = keys["repeat"], keys["fold"]
        folds_all = [(rep.names[r], fold.names[f]) for r, f in zip(rep.codes[first_row], fold.codes[first_row])]
        folds = tuple((str(folds_all[i][0]), str(folds_all[i][1])) for i in keep_rows)
    clusters = cluster_names = None
    if "cluster" in keys:
        clusters, cluster_names = _item_groups(keys, "cluster", rows, item_rows, keep_rows)
        if len(cluster_names) < 2:
            problems.append(Problem(shown, None, "", f"metric {metric!r}, corpus {corpus!r}: its items are in "
                                    f"{len(cluster_names)} cluster ({spec.data.columns.cluster!r}); clustered "
                                    "inference needs at least 2 clusters"))
            return None
    strata = stratum_names = None
    if "stratum" in keys and spec.metrics[metric].average == "macro":
        strata, stratum_names = _item_groups(keys, "stratum", rows, item_rows, keep_rows)
        sizes = np.bincount(strata, minlength=len(stratum_names))
        if (sizes < 2).any():
            lone = [stratum_names[k] for k in np.flatnonzero(sizes < 2)[:MAX_ROWS_SHOWN].tolist()]
            problems.append(Problem(shown, None, "", f"metric {metric!r}, corpus {corpus!r}: stratum "
                                    f"{', '.join(map(repr, lone))} ({spec.data.columns.stratum!r}) has a single item; "
                                    "a macro average's standard error needs at least 2 items per stratum"))
            return None
    return Block(metric=metric, corpus=corpus, systems=tuple(systems), items=items, stats=arr, dropped_items=dropped,
                 level="folds" if cv else "items", folds=folds, runs=runs, run_names=run_names, clusters=clusters,
                 cluster_names=cluster_names, strata=strata, stratum_names=stratum_names, samples=samples,
                 sample_names=sample_names)


def _run_means(run: Column, rows: np.ndarray, item_rows: np.ndarray, cols: np.ndarray, stat: np.ndarray,
               values: np.ndarray, n_items: int, k: int, n_stats: int
               ) -> tuple[np.ndarray, tuple[np.ndarray, ...], tuple[tuple[str, ...], ...]]:
    """Each system's statistics per item and run (its own runs: those with any row), and their mean over the
    runs. An item that a system has in some of its runs and not in others is a hole (NaN) of the mean, like an
    item a system lacks: an error, or dropped with ``data.missing: drop_items``."""
    codes = run.codes[rows]
    full = np.full((n_items, k, n_stats, len(run.names)), np.nan)
    full[item_rows, cols, stat, codes] = values[rows]
    per_system, names = [], []
    for j in range(k):
        present = np.flatnonzero(np.isin(np.arange(len(run.names)), codes[cols == j]))
        per_system.append(np.moveaxis(full[:, j][:, :, present], 2, 1))  # (items, runs, stats)
        names.append(tuple(run.names[r] for r in present.tolist()))
    with np.errstate(invalid="ignore"):
        mean = np.stack([r.mean(axis=1) for r in per_system], axis=1)  # NaN where any run lacks the item
    return mean, tuple(per_system), tuple(names)
