"""A score table as Parquet shards, read where it lives: the functions the Dask workers run on each shard.

With ``--executor dask`` and ``data.scores`` a glob of ``.parquet`` files, no table comes to the client:
each worker reads its shards (:func:`read_shard`: key columns as integer codes and their distinct names,
values as float64, the shard's sha256), sends the client a small :func:`summary` (names in order of first
appearance, rows per name, the problems found), cuts each shard into the rows of every (metric, corpus)
(:func:`piece`), and one worker assembles each (metric, corpus) block from its pieces in shard order
(:func:`assemble`, the serial reader's own ``_block``), so a block's items, systems and values are those the
single-machine build reads, and every analysis, resampling included, gives the same bytes. The client
merges the summaries into a :class:`ShardedDataset`, whose blocks are :class:`BlockStub`\\ s (shape and
fingerprint): the plan is built from them, and each analysis runs on the worker that holds its block.

Why blocks and not sums: the analyses of one (metric, corpus) read its items x systems matrix (paired t,
Welch and RM-ANOVA could run from per-system sums and cross-products, but bootstrap and permutation
replicates draw items with the spec's seed, and rank tests rank within each item's row, which needs the
whole row of an item in one place). One block is a small part of the table (1/50 of it in the benchmark),
so a worker holds it; the client holds only names, counts and the records.

What the sharded path reads: a long table (``system, corpus, item, metric, value``, named as
``data.columns`` says) of per-item scores; the features that need the table on the client or another layout
are refused with a message (:func:`unsupported`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.model import BlockKey, Dataset, LeftOut, _digest
from sigreport.data.scores import Column, _against_spec, _block, _first_appearance, _named_once, _not_binary, \
    _too_large
from sigreport.data.sources.tables import FILE_SHIFT, FilesTable
from sigreport.data.tables import MAX_ROWS_SHOWN, Table, control_problems, factorize, plain_numbers
from sigreport.errors import DataError, Problem
from sigreport.spec import SpecFile, TableSource

KEY_ROLES = ("system", "corpus", "item", "metric")


@dataclasses.dataclass(frozen=True)
class ShardRead:
    """One shard as a worker holds it: each key role's codes and distinct names, the values, the sha256."""

    path: str
    sha256: str
    rows: int
    codes: Mapping[str, np.ndarray]
    names: Mapping[str, list[str]]
    values: np.ndarray
    problems: tuple[Problem, ...] = ()


@dataclasses.dataclass(frozen=True)
class ShardSummary:
    """What the client learns of one shard: its names in order of first appearance with their rows, the rows
    the spec analyses, its sha256 and its problems."""

    path: str
    sha256: str
    rows: int
    used: int
    names: Mapping[str, list[str]]
    counts: Mapping[str, list[int]]
    problems: tuple[Problem, ...]


@dataclasses.dataclass(frozen=True)
class Piece:
    """The rows of one shard for one (metric, corpus): item codes (first appearance in the piece) and names,
    system index, statistic index, value and the row's place (shard index << FILE_SHIFT | row)."""

    item: np.ndarray
    item_names: list[str]
    system: np.ndarray
    stat: np.ndarray
    values: np.ndarray
    places: np.ndarray


@dataclasses.dataclass(frozen=True)
class BlockStub:
    """What the client knows of a block held by a worker: enough to plan its analyses and key its cache entries
    (no scores: reading ``stats`` here is an AttributeError, never a silent empty block)."""

    metric: str
    corpus: str | None
    systems: tuple[str, ...]
    n_items: int
    fingerprint: str
    dropped_items: int = 0
    level: str = "items"
    runs: None = None


@dataclasses.dataclass(frozen=True)
class ShardedDataset(Dataset):
    """A Dataset whose score blocks live on the Dask workers (``blocks`` holds their :class:`BlockStub`\\ s)."""

    def fingerprint(self, key: tuple) -> str:
        if key[0] == "scores":
            return self.blocks[(key[1], key[2])].fingerprint  # type: ignore[attr-defined]
        return super().fingerprint(key)


def is_sharded(sf: SpecFile, matches: Sequence[Path]) -> bool:
    """Whether ``data.scores`` is a glob whose every match is a Parquet file (the sharded path's input)."""
    source = sf.spec.data.source
    return (isinstance(source, TableSource) and source.path is not None and len(matches) > 0
            and all(p.suffix.lower() == ".parquet" for p in matches))


def unsupported(sf: SpecFile) -> list[Problem]:
    """The spec's features the sharded path does not read (each needs the whole table on the client, or a layout
    the shards are not cut by): one problem each, at its field."""
    spec = sf.spec
    source = spec.data.source
    cols = spec.data.columns
    checks: list[tuple[bool, str, tuple[Any, ...]]] = [
        (isinstance(source, TableSource) and source.layout != "long", "a wide layout", ("data", "scores", "layout")),
        (isinstance(source, TableSource) and source.from_name is not None, "from_name", ("data", "scores", "from_name")),
        (spec.tests.design != "items", "cross-validation designs", ("tests", "design")),
        (spec.tests.level != "items", "level corpora", ("tests", "level")),
        (cols.cluster is not None, "data.columns.cluster", ("data", "columns", "cluster")),
        (cols.stratum is not None, "data.columns.stratum", ("data", "columns", "stratum")),
        (cols.sample is not None, "data.columns.sample", ("data", "columns", "sample")),
        (spec.has_labels() or spec.data.preferences is not None, "label and preference tables", ("data",)),
    ]
    checks += [(m.corpus_level, f"metric {name!r}: corpus-level aggregates", ("metrics", name, "aggregate"))
               for name, m in spec.metrics.items()]
    return [sf.problem(f"{what}: not read from Parquet shards with --executor dask (build without "
                       "--executor dask, which reads the table on this machine)", *field)
            for bad, what, field in checks if bad]


# -------------------------------------------------------------------------------------------- on a worker


def read_shard(path: str, columns: Mapping[str, str], constant: Mapping[str, str], run_column: str) -> ShardRead:
    """Read one shard (on the worker that runs this): role -> file column ``columns``; ``constant``: the name of
    a role the spec fixes when the shard lacks its column (one metric or corpus named). A missing column, or a ``run`` column (several
    training runs, which the sharded path does not read), is a problem naming the shard file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = Path(path).name
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:  # a worker that does not see the client's file system (docs/performance.md)
        return _failed(path, "", f"{name}: this Dask worker cannot read {path}: {exc.strerror or type(exc).__name__}")
    digest = hashlib.sha256(raw).hexdigest()
    try:
        grid = pq.read_table(io.BytesIO(raw))
    except (pa.ArrowException, OSError, ValueError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return _failed(path, digest, f"{name}: cannot read this Parquet shard: {first}")
    present = list(grid.column_names)
    missing = [c for role, c in columns.items() if c not in present and role not in constant]
    if missing:
        return _failed(path, digest, f"{name}: missing column{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(map(repr, missing))}; present: {', '.join(map(repr, present)) or 'none'}")
    if run_column in present:
        return _failed(path, digest, f"{name}: column {run_column!r} (several training runs) is not read from "
                       "Parquet shards with --executor dask")
    n = grid.num_rows
    codes: dict[str, np.ndarray] = {}
    names: dict[str, list[str]] = {}
    for role in KEY_ROLES:
        if role in constant and columns[role] not in present:
            codes[role], names[role] = np.zeros(n, dtype=np.int64), [constant[role]]
        else:
            codes[role], names[role] = factorize(_text(grid.column(columns[role])))
    values, problems = _values(grid.column(columns["value"]), path, n)
    return ShardRead(path, digest, n, codes, names, values, tuple(problems))


def _failed(path: str, digest: str, message: str) -> ShardRead:
    return ShardRead(path, digest, 0, {}, {}, np.zeros(0), (Problem(path, None, "", message),))


def _text(column: Any) -> Any:
    """A Parquet column as one pyarrow string array (numbers and categories as the serial reader's text)."""
    import pyarrow as pa

    array = column.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if not pa.types.is_string(array.type):
        array = array.cast(pa.string())
    return array.fill_null("")


def _values(column: Any, path: str, n: int) -> tuple[np.ndarray, list[Problem]]:
    """The value column as float64 (numbers taken as they are; text parsed as the serial reader parses it); a
    problem naming the first rows that are null, not a number, NaN or infinite."""
    import pyarrow as pa

    array = column.combine_chunks()
    name = Path(path).name
    if (pa.types.is_floating(array.type) or pa.types.is_integer(array.type)) and not array.null_count:
        values = np.asarray(array.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    else:
        parsed = plain_numbers(_text(column))
        if parsed is None:
            return np.zeros(n), [Problem(path, None, "", f"{name}: the value column holds text that is not a plain "
                                         "number, or nulls (each score is one finite number)")]
        values = parsed
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        rows = ", ".join(str(int(r) + 1) for r in bad[:MAX_ROWS_SHOWN])
        return values, [Problem(path, None, "", f"{name}: NaN or infinite value at row{'s' if len(bad) > 1 else ''} "
                                f"{rows}{' and more' if len(bad) > MAX_ROWS_SHOWN else ''}")]
    return values, []


def summary(shard: ShardRead, sf: SpecFile, listed: Mapping[str, Sequence[str] | None]) -> ShardSummary:
    """The small facts of a shard the client merges; ``listed``: the names the spec analyses by role (None: all)."""
    if shard.problems and not shard.codes:
        return ShardSummary(shard.path, shard.sha256, 0, 0, {}, {}, shard.problems)
    table = Table(Path(shard.path), (), {}, np.arange(1, shard.rows + 1, dtype=np.int64), shard.sha256, "row")
    keys = {role: Column(shard.codes[role], shard.names[role]) for role in KEY_ROLES}
    cols = sf.spec.data.columns
    problems = list(shard.problems)
    for role in KEY_ROLES:
        blank = [k for k, v in enumerate(shard.names[role]) if not v.strip()]
        if blank:
            at = table.places[np.isin(shard.codes[role], blank)]
            problems.append(Problem(shard.path, None, "", f"{Path(shard.path).name}: empty {role!r} at {table.where(at)}"))
    problems += control_problems(table, {r: getattr(cols, r) for r in KEY_ROLES},
                                 {r: (c.codes, c.names) for r, c in keys.items()})
    if not shard.problems:
        problems += _too_large(table, shard.values, keys["metric"], cols.value)
        problems += _not_binary(sf, table, shard.values, keys["metric"], cols.value)
    used = np.ones(shard.rows, dtype=bool)
    for role, names in listed.items():
        if names is not None:
            used &= np.isin(np.arange(len(shard.names[role])), [k for k, v in enumerate(shard.names[role])
                                                                  if v in set(names)])[shard.codes[role]]
    counts = {r: np.bincount(shard.codes[r], minlength=len(shard.names[r])).tolist() for r in ("system", "corpus",
                                                                                                  "metric")}
    return ShardSummary(shard.path, shard.sha256, shard.rows, int(used.sum()),
                        {r: shard.names[r] for r in ("system", "corpus", "metric")}, counts,
                        tuple(_named(p, shard.path) for p in problems))


def _named(p: Problem, path: str) -> Problem:
    """A problem whose message starts with the shard's file name (the head line names the glob)."""
    name = Path(path).name
    return p if p.message.startswith(name) else dataclasses.replace(p, message=f"{name}: {p.message}")


def piece(shard: ShardRead, index: int, corpus: str, statistics: Sequence[str], systems: Sequence[str]) -> Piece:
    """The rows of shard number ``index`` for one corpus and the metric of ``statistics``, systems numbered by
    their place in ``systems`` (the rows of other systems left out)."""
    def positions(role: str, wanted: Sequence[str]) -> np.ndarray:
        where = {v: i for i, v in enumerate(wanted)}
        return np.array([where.get(v, -1) for v in shard.names[role]], dtype=np.int64)

    by_name = positions("corpus", [corpus]), positions("metric", statistics)
    rows = np.flatnonzero((by_name[0][shard.codes["corpus"]] >= 0) & (by_name[1][shard.codes["metric"]] >= 0))
    sys_of = positions("system", systems)[shard.codes["system"][rows]]
    rows, sys_of = rows[sys_of >= 0], sys_of[sys_of >= 0]
    stat_of = by_name[1][shard.codes["metric"][rows]]
    item, firsts = _first_appearance(shard.codes["item"][rows])
    names = shard.names["item"]
    return Piece(item, [names[f] for f in firsts.tolist()], sys_of, stat_of, shard.values[rows],
                 (np.int64(index) << FILE_SHIFT) | (rows.astype(np.int64) + 1))


def pieces(shard: ShardRead, index: int, corpora: Sequence[str], needed: Mapping[str, Sequence[str]],
           systems: Sequence[str]) -> dict[tuple[str, str], Piece]:
    """Every (metric, corpus) piece of shard number ``index`` in one pass (:func:`piece` for each)."""
    return {(metric, corpus): piece(shard, index, corpus, statistics, systems)
            for metric, statistics in needed.items() for corpus in corpora}


def assemble(sf: SpecFile, pattern: str, files: tuple[str, ...], metric: str, corpus: str,
             statistics: Sequence[str], systems: Sequence[str], *pieces: Piece) -> Any:
    """The block of one (metric, corpus) from its pieces in shard order (the serial reader's ``_block``, so the
    same items in the same order), or the problems found: duplicate rows, missing scores."""
    index: dict[str, int] = {}
    parts = []
    for p in pieces:
        local = np.fromiter((index.setdefault(n, len(index)) for n in p.item_names), dtype=np.int64,
                            count=len(p.item_names))
        parts.append(local[p.item] if len(p.item) else p.item)
    item = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    sys_of = np.concatenate([p.system for p in pieces])
    stat = np.concatenate([p.stat for p in pieces])
    values = np.concatenate([p.values for p in pieces])
    places = np.concatenate([p.places for p in pieces])
    table = FilesTable(Path(pattern), (), {}, places, "", "row", files=files)
    problems: list[Problem] = []
    if not len(item):
        return [Problem(pattern, None, "", f"metric {metric!r} has no rows on corpus {corpus!r}")]
    key = (item * len(systems) + sys_of) * len(statistics) + stat
    uniq, first, counts = np.unique(key, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = np.flatnonzero(np.isin(key, uniq[counts > 1]))
        return [Problem(pattern, None, "", f"duplicate (system, corpus, item, metric) rows at {table.where(places[dup])}"
                        f" (first: {systems[sys_of[dup[0]]]}, {corpus}, {list(index)[item[dup[0]]]}, {metric})")]
    keys = {"item": Column(item, list(index))}
    block = _block(sf=sf, table=table, keys=keys, values=values, rows=np.arange(len(item)), sys_of=sys_of, stat=stat,
                   metric=metric, corpus=corpus, n_stats=len(statistics), systems=list(systems), problems=problems)
    return problems if block is None else block


def stub(block: Any) -> Any:
    """The client's view of an assembled block (its problems, when it is not one)."""
    if isinstance(block, list):
        return block
    h = hashlib.sha256()
    _digest(h, block)
    return BlockStub(block.metric, block.corpus, block.systems, len(block.items), h.hexdigest(), block.dropped_items)


# -------------------------------------------------------------------------------------------- on the client


@dataclasses.dataclass(frozen=True)
class Layout:
    """The merged shape of a sharded table: systems and corpora in the serial order, the statistics per metric."""

    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    needed: dict[str, list[str]]
    aggregates: dict[str, Any]


def shard_columns(sf: SpecFile) -> tuple[dict[str, str], dict[str, str]]:
    """(role -> file column, the name of each role the spec fixes for a shard without its column) as the serial
    reader takes them."""
    cols = sf.spec.data.columns
    columns = {"system": cols.system, "corpus": cols.corpus, "item": cols.item, "metric": cols.metric,
               "value": cols.value}
    return columns, _named_once(sf, ())


def listed(sf: SpecFile) -> dict[str, Sequence[str] | None]:
    """The names the spec analyses per role (None: every name in the table)."""
    spec = sf.spec
    return {"system": spec.systems, "corpus": spec.corpora,
            "metric": [n for m, ms in spec.metrics.items() for n in (list(ms.statistics) if ms.corpus_level else [m])]}


def merge(sf: SpecFile, pattern: str, summaries: Sequence[ShardSummary]) -> Layout:
    """The summaries merged in shard order; a DataError naming every problem of every shard, and the spec's
    names the table lacks."""
    problems = [p for s in summaries for p in s.problems]
    if problems:
        raise DataError(pattern, problems)
    if not sum(s.rows for s in summaries):
        raise DataError(pattern, [Problem(pattern, None, "", "the shards hold no rows")])
    names: dict[str, list[str]] = {}
    for role in ("system", "corpus", "metric"):
        names[role] = list(dict.fromkeys(n for s in summaries for n in s.names[role]))
    keys = {role: Column(np.zeros(0, dtype=np.int64), names[role]) for role in names}
    spec_problems, needed, aggregates = _against_spec(sf, pattern, keys)
    if spec_problems:
        raise DataError(str(sf.path), spec_problems)
    spec = sf.spec
    return Layout(tuple(spec.systems or names["system"]), tuple(spec.corpora or names["corpus"]), needed, aggregates)


def left_out(sf: SpecFile, summaries: Sequence[ShardSummary], total: int) -> tuple[LeftOut, ...]:
    """The names the shards have and the spec does not list, with their rows (as the serial reader names them)."""
    wanted = listed(sf)
    out = []
    for role, field in (("system", "systems"), ("corpus", "corpora"), ("metric", "metrics")):
        if not wanted[role]:
            continue
        rows: dict[str, int] = {}
        for s in summaries:
            for n, c in zip(s.names[role], s.counts[role]):
                rows[n] = rows.get(n, 0) + c
        idle = [n for n in rows if n not in set(wanted[role] or ())]
        if idle:
            out.append(LeftOut(field, tuple(idle), sum(rows[n] for n in idle), "scores", total))
    return tuple(out)


def sharded_dataset(sf: SpecFile, pattern: str, summaries: Sequence[ShardSummary], layout: Layout,
                    stubs: Mapping[BlockKey, BlockStub]) -> ShardedDataset:
    """The client's Dataset of a sharded table, its source and sha256 the serial reader's (one match: the file;
    several: the glob, and the sha256 of the shards' digests)."""
    spec = sf.spec
    total = sum(s.rows for s in summaries)
    one = len(summaries) == 1
    digest = summaries[0].sha256 if one else hashlib.sha256("".join(s.sha256 for s in summaries).encode()).hexdigest()
    return ShardedDataset(source=summaries[0].path if one else pattern, sha256=digest, systems=layout.systems, corpora=layout.corpora,
                          metrics=tuple(spec.metrics), blocks=dict(stubs), n_rows=sum(s.used for s in summaries),
                          metric_specs=dict(spec.metrics), aggregates=layout.aggregates, source_info={},
                          left_out=left_out(sf, summaries, total), table_rows=total)
