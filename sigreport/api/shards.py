"""Parquet shards read by the Dask workers (``--executor dask`` with ``data.scores`` a glob of .parquet files).

The client globs the file names and sends the workers tasks (:mod:`sigreport.data.shards`): read each shard,
summarise it, cut it into (metric, corpus) pieces, assemble each block on one worker. What comes back is
small (names, counts, problems, each block's shape and fingerprint); the blocks stay on the workers and the
executor runs each analysis on its block's future (:meth:`~sigreport.execute.dask.DaskExecutor.hold`). The
client never holds the table, a shard or a block.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

from sigreport.analyses.power import with_power
from sigreport.api.running import RunOptions
from sigreport.data import shards
from sigreport.data.model import Dataset
from sigreport.data.sources.tables import GLOB_CHARS, glob_matches
from sigreport.errors import DataError, SpecError
from sigreport.execute.dask import DaskExecutor, aligned
from sigreport.spec import SpecFile, TableSource, TestsSpec


def sharded_input(sf: SpecFile, run: RunOptions) -> bool:
    """Whether this build reads its scores as Parquet shards on the Dask workers."""
    source = sf.spec.data.source
    if run.executor != "dask" or not isinstance(source, TableSource) or source.path is None \
            or not GLOB_CHARS.search(source.path):
        return False
    return shards.is_sharded(sf, glob_matches(sf, source.path))


def load_sharded(sf: SpecFile, executor: DaskExecutor) -> Dataset:
    """The Dataset of a sharded score table, its blocks made and held by the workers of ``executor``."""
    problems = shards.unsupported(sf)
    if problems:
        raise SpecError(str(sf.path), problems)
    source = sf.spec.data.source
    assert isinstance(source, TableSource) and source.path is not None
    pattern = source.path
    files = tuple(str(p) for p in glob_matches(sf, pattern))
    executor.connect()
    client = executor.client
    columns, constant = shards.shard_columns(sf)
    run_column = sf.spec.data.columns.run
    read = [client.submit(shards.read_shard, f, columns, constant, run_column, pure=False) for f in files]
    summaries = client.gather([client.submit(shards.summary, r, sf, shards.listed(sf), pure=False) for r in read])
    layout = shards.merge(sf, pattern, summaries)
    cut = [client.submit(shards.pieces, r, k, layout.corpora, layout.needed, layout.systems, pure=False)
           for k, r in enumerate(read)]
    del read  # each shard is freed once it is cut
    blocks: dict[tuple, Any] = {}
    for metric, statistics in layout.needed.items():
        for corpus in layout.corpora:
            parts = [client.submit(operator.getitem, c, (metric, corpus), pure=False) for c in cut]
            blocks[(metric, corpus)] = client.submit(shards.assemble, sf, pattern, files, metric, corpus, *parts,
                                                     statistics=statistics, systems=layout.systems, pure=False)
    del cut, parts  # each shard's pieces are freed once their blocks are made: the workers keep the blocks
    stubs = dict(zip(blocks, client.gather([client.submit(shards.stub, b, pure=False) for b in blocks.values()])))
    problems = [p for s in stubs.values() if isinstance(s, list) for p in s]
    if problems:
        raise DataError(pattern, problems)
    executor.hold({("scores", m, c): f for (m, c), f in blocks.items()})
    return shards.sharded_dataset(sf, pattern, summaries, layout, stubs)


def power_on(executor: DaskExecutor) -> Callable[..., tuple[Any, ...]]:
    """The power step of :data:`~sigreport.analyses.COLLECT_STEPS` (:func:`~sigreport.analyses.power.with_power`)
    with each pairwise record's rows computed on the worker that holds its block (the client has no items to
    compute them from)."""
    def power(records: tuple[Any, ...], spec: Any, dataset: Any) -> tuple[Any, ...]:
        tests, alpha, seed = spec.tests, spec.alpha, spec.seed
        if tests.power is None:
            return records
        at = [k for k, r in enumerate(records)
              if getattr(r, "kind", None) == "pairwise" and ("scores", r.metric, r.corpus) in executor.held]
        done = executor.on_blocks(_power_of, [(("scores", records[k].metric, records[k].corpus), records[k])
                                              for k in at], tests, alpha, seed)
        out = list(records)
        for k, rec in zip(at, done):
            out[k] = rec
        return tuple(out)

    return power


@dataclasses.dataclass(frozen=True)
class _OneBlock:
    """The one block a worker holds, as :func:`~sigreport.analyses.power.with_power` looks blocks up."""

    blocks: dict[tuple, Any]


def _power_of(block: Any, record: Any, tests: TestsSpec, alpha: float, seed: int) -> Any:
    """On the worker: ``record`` with its pairs' minimum detectable differences."""
    return with_power((record,), _OneBlock({(record.metric, record.corpus): aligned(block)}), tests, alpha, seed)[0]
