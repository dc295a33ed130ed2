"""Parquet shards with --executor dask: read by the workers, never by the client, and the serial build's bytes."""

from __future__ import annotations

import numpy as np
import pytest

SPEC = """\
title: sharded
data:
  scores: shards/*.parquet
systems: [sys3, sys0, sys1, sys2]
metrics:
  m0: {higher_is_better: true}
  m1: {higher_is_better: false}
tests:
  pairwise: bootstrap
  resamples: 300
  omnibus: friedman
seed: 11
"""


@pytest.fixture(scope="module")
def scheduler():
    """One local cluster of two single-threaded workers for the module, reached as a real cluster is
    (``--scheduler tcp://...``); in-process workers start in a fraction of the time worker processes take, and
    the patches of :func:`_client_never_reads` cannot reach them: they read the shards with pyarrow."""
    pytest.importorskip("dask.distributed")
    import logging

    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        yield cluster.scheduler_address


def _shards(folder, n_shards: int = 4, items: int = 40) -> None:
    """A long table of 5 systems (sys4 not listed: left out) x 2 corpora x 2 metrics x ``items`` items, rows
    shuffled so that each shard holds part of every block, cut into ``n_shards`` Parquet files."""
    import pandas as pd

    rng = np.random.default_rng(5)
    grid = [(f"sys{s}", f"c{c}", f"q{i}", f"m{m}") for c in range(2) for m in range(2) for s in range(5)
            for i in range(items)]
    frame = pd.DataFrame(grid, columns=["system", "corpus", "item", "metric"])
    frame["value"] = rng.normal(0.5, 0.1, len(frame)) + 0.03 * frame["system"].str[-1].astype(int)
    frame = frame.sample(frac=1.0, random_state=2).reset_index(drop=True)
    (folder / "shards").mkdir()
    cuts = np.linspace(0, len(frame), n_shards + 1).astype(int)
    for k in range(n_shards):
        frame.iloc[cuts[k]:cuts[k + 1]].to_parquet(folder / "shards" / f"part{k}.parquet", index=False)


def _client_never_reads(monkeypatch) -> None:
    """Every client-side way to the table raises: the score reader, the table reader, Parquet's, and the scatter
    of a dataset to the workers (the cluster's worker processes are not patched)."""
    import distributed

    import sigreport.data.dataset
    import sigreport.data.sources.tables
    import sigreport.data.tables

    def refuse(*args, **kwargs):
        raise AssertionError("the client read the sharded table")

    monkeypatch.setattr(sigreport.data.dataset, "load_scores", refuse)
    monkeypatch.setattr(sigreport.data.sources.tables, "read_table", refuse)
    monkeypatch.setattr(sigreport.data.tables, "_read_parquet", refuse)
    monkeypatch.setattr(distributed.Client, "scatter", refuse)


def test_sharded_build_on_a_local_cluster_gives_the_serial_results_json(cli, workdir, monkeypatch, scheduler):
    _shards(workdir.path)
    spec = workdir.write("spec.yaml", SPEC)
    r = cli("build", "-q", "--no-cache", "-o", workdir.path / "serial", "--formats", "json", spec)
    assert r.code == 0, r.err
    want = (workdir.path / "serial" / "results.json").read_bytes()
    _client_never_reads(monkeypatch)
    r = cli("build", "-q", "--no-cache", "-o", workdir.path / "dask", "--formats", "json", "--executor", "dask",
            "--scheduler", scheduler, spec)
    assert r.code == 0, r.err
    assert (workdir.path / "dask" / "results.json").read_bytes() == want
    assert b'"left_out"' in want and b'"mde"' in want  # what the workers' summaries and blocks gave is in it


def test_a_shard_with_a_bad_column_is_a_one_line_error_naming_it(cli, workdir, monkeypatch, scheduler):
    import pandas as pd

    _shards(workdir.path)
    bad = workdir.path / "shards" / "part2.parquet"
    pd.read_parquet(bad).rename(columns={"value": "score"}).to_parquet(bad, index=False)
    spec = workdir.write("spec.yaml", SPEC)
    _client_never_reads(monkeypatch)
    r = cli("build", "-q", "--no-cache", "-o", workdir.path / "out", "--executor", "dask", "--scheduler", scheduler,
            spec)
    assert r.code == 2 and "Traceback" not in r.err, r.err
    problems = [line for line in r.err.splitlines() if line.startswith("  ")]
    assert problems == ["  part2.parquet: missing column 'value'; present: 'system', 'corpus', 'item', 'metric', "
                        "'score'"], r.err
    assert str(bad) in r.err or "shards/*.parquet" in r.err
    assert not (workdir.path / "out").exists()


def test_what_the_client_holds_of_a_sharded_table_does_not_grow_with_its_items(workdir, scheduler):
    """The client's Dataset of a sharded table is names, counts and a stub per block: as large with 40 items as
    with 4,000 (100 times the rows), only the digits of its row counts differ. (The growth the benchmark's
    100M-row case once showed was the benchmark's own peak, inherited: tests/whole/test_bench_memory.py.)"""
    import pickle

    from sigreport.api.shards import load_sharded
    from sigreport.execute.dask import DaskExecutor
    from sigreport.spec import load_spec_file

    sizes = []
    for items in (40, 4000):
        spec = workdir.write(f"i{items}/spec.yaml", SPEC)
        _shards(spec.parent, items=items)
        executor = DaskExecutor(scheduler)
        try:
            ds = load_sharded(load_spec_file(spec), executor)
        finally:
            executor.shutdown()
        assert ds.blocks[("m0", "c0")].n_items == items and ds.n_rows == 4 * 4 * items
        sizes.append(len(pickle.dumps(ds)))
    assert abs(sizes[1] - sizes[0]) < 64, sizes


def _column_sums(node_id, inputs, params, deps):
    """A node function: each system's sum over the items, a strided sum (as its mean and SD take it)."""
    x = inputs[0].stats[:, :, 0]
    return [float(x[:, j].sum()) for j in range(x.shape[1])]


def test_a_block_received_on_unaligned_bytes_sums_as_the_single_machine_build():
    """A block sent from another worker may lie at an address that is not a multiple of 8 (where Dask's frame
    put it); numpy then sums a column through a buffer and the last bits change. The node runs on an aligned
    copy, as the serial build does."""
    from sigreport.data.model import Block
    from sigreport.execute.dask import _work_on
    from sigreport.plan import Node

    stats = np.round(np.random.default_rng(0).normal(0.5, 0.1, (10_000, 20, 1)), 4)
    raw = np.empty(stats.nbytes + 8, dtype=np.uint8)
    odd = raw[1:1 + stats.nbytes].view(np.float64).reshape(stats.shape)
    odd[:] = stats
    assert not odd.flags.aligned
    block = Block("m", "c", tuple(f"s{j}" for j in range(20)), tuple(map(str, range(10_000))), stats)
    received = Block("m", "c", block.systems, block.items, odd)
    node = Node("m/c/sums", "sums", "m", "c", _column_sums, None, (("scores", "m", "c"),))
    want = _column_sums("", (block,), None, ())
    assert _column_sums("", (received,), None, ()) != want  # the buffered sum differs: what the test guards
    assert _work_on(node, (), received) == want
